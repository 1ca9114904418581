//! `op`'s arguments and its long help (the instruction lists come from the table of
//! instructions).

use clap::Args;

use super::DEFAULT_VIOLATION_LIMIT;
use super::values::{choice, parse_format};
use crate::d3d::RuleSet;
use crate::format::Format;

/// `op --help`'s text after the options: the instruction lists come from the table of
/// instructions (`d3d::instructions`), so that a new row shows here by itself.
pub(super) fn op_help() -> String {
    use crate::d3d::instructions::{conveniences, double_names, f16_names, f32_instruction_names};
    let list = |names: &mut dyn Iterator<Item = &str>| names.collect::<Vec<_>>().join(" ");
    let conveniences: Vec<String> = conveniences()
        .map(|(name, stands_for)| format!("{name} ({stands_for})"))
        .collect();
    let instructions = format!(
        "OP is a shader instruction. f32 (default): {}. Conveniences that are not D3D \
         instructions: {}; fma is mad. --fmt f16: {}, under the float16 rules (3.1.5). --fmt \
         f64, or the double names (which imply it): {}; with --fmt f64 the f32 names of \
         those work too.",
        list(&mut f32_instruction_names()),
        conveniences.join(", "),
        list(&mut f16_names()),
        list(&mut double_names()),
    );
    format!("{}\n\n{OP_HELP_REST}", wrap(&instructions, 92))
}

/// `text` broken into lines of at most `width` characters at spaces.
fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = 0;
    for word in text.split(' ') {
        if line > 0 && line + 1 + word.len() > width {
            out.push('\n');
            line = 0;
        } else if line > 0 {
            out.push(' ');
            line += 1;
        }
        out.push_str(word);
        line += word.len();
    }
    out
}

const OP_HELP_REST: &str = "\
ARGs are values (0.1, 1e-40, 0x1.8p+3, inf, nan, -0, max, min-normal, ...), rounded to
nearest-even into the format, or bits written 0x and exactly the format's width in hex
digits (0x3f800000 for f32, 0x3c00 for f16). Vector operands of dp2/dp3/dp4 are written
1,2,3. itof/utof take integers.

--check RESULT (bits or a value; true/false for comparisons; S,C for sincos) exits 0 when
RESULT conforms and 1 when it does not. With no OP, lines 'OP ARG... [= RESULT]' are read
from stdin; lines with = RESULT are checked, a summary ends the run, and the exit status is
1 when any line does not conform.

--operands A.bin[,B.bin[,C.bin]] --results R.bin judges whole buffers a harness read back:
raw little-endian patterns, one file per source operand (f16 as 2 bytes, f32, i32, u32 and
comparison masks as 4, f64 as 8; dp2-dp4 components one after another; sincos results sine
then cosine), streamed on every core. It prints what probe prints for one instruction, and
--violations FILE writes each violating line as 'OP ARG... = RESULT  # index N' (N: the
element index) for `d3dfloat op` to check again (with the same --fmt and --rules); --list
adds the violating indexes to --json and --csv.

Examples:
  d3dfloat op add 1 0x33800000
  d3dfloat op mad 0x3f800001 0x3f800001 -1 --check 0x34800000
  d3dfloat op --rules d3d10 div 1 3
  d3dfloat op --fmt f16 dp3 1,2,3 0.1,0.2,0.3
  printf 'mul 3 0.1 = 0x3e99999a\\nsqrt 2 = 0x3fb504f4\\n' | d3dfloat op --plain
  d3dfloat op sqrt --operands x.f32 --results sqrt.f32 --violations bad.txt
  d3dfloat op --expr 'normalize(float3(1, 2, 3))'
  d3dfloat op --asm 'mul r0.x, v0.x, v0.y; add r0.x, r0.x, v0.z' --input v0=3,5,1 --check 16";

/// `op`'s arguments.
#[derive(Debug, Args)]
pub struct OpArgs {
    /// Working format: f32, f16 or f64 (the double instruction names imply f64)
    #[arg(long, short = 'f', default_value = "f32", value_name = "F", value_parser = parse_format)]
    pub fmt: Format,
    /// Rule set: d3d11 (Direct3D 11 and later) or d3d10 (1 ULP for 32-bit arithmetic)
    #[arg(long, value_parser = choice::<RuleSet>(), default_value_t = RuleSet::default(), value_name = "RULES")]
    pub rules: RuleSet,
    /// Check a claimed result (bits or value): exit 0 if it conforms, 1 if not
    #[arg(long, value_name = "RESULT", allow_hyphen_values = true)]
    pub check: Option<String>,
    /// The instruction and its operands (stdin lines 'OP ARG... [= RESULT]' when none)
    #[arg(value_name = "OP ARG")]
    pub words: Vec<String>,
    /// A sequence of instructions in shader assembly ('dp3 r0.x, v0.xyz, v0.xyz; rsq r0.x,
    /// r0.x'): the interval each output component may take (with --input, --output)
    #[arg(long, value_name = "ASM", conflicts_with_all = ["words", "expr"], allow_hyphen_values = true)]
    pub asm: Option<String>,
    /// An HLSL expression ('normalize(float3(1, 2, 3))'), expanded into the sequences
    /// compilers emit: the interval each result component may take
    #[arg(
        long,
        value_name = "EXPR",
        conflicts_with = "words",
        allow_hyphen_values = true
    )]
    pub expr: Option<String>,
    /// With --asm: an input register's values, v0=1,2,3 (values or bit patterns); with
    /// --expr: a variable's, NAME=1,2,3. Repeat for each
    #[arg(long, value_name = "REG=VALUES", allow_hyphen_values = true)]
    pub input: Vec<String>,
    /// With --asm: the register (and components) reported, r1 or r1.xy; the last
    /// destination written when absent
    #[arg(long, value_name = "REG")]
    pub output: Option<String>,
    /// Judge raw operand buffers, one file per source operand (with --results); with
    /// --asm or --expr, REG=FILE (or NAME=FILE) per input, its components interleaved
    #[arg(
        long,
        value_name = "FILES",
        value_delimiter = ',',
        conflicts_with = "check"
    )]
    pub operands: Vec<std::path::PathBuf>,
    /// The results buffer that goes with --operands
    #[arg(long, value_name = "FILE")]
    pub results: Option<std::path::PathBuf>,
    /// With --operands: write every violating line as 'OP ARG... = RESULT  # index N' to
    /// FILE (N: the line's element index in the buffers)
    #[arg(long, value_name = "FILE")]
    pub violations: Option<std::path::PathBuf>,
    /// With --operands and --json or --csv: list each violating line's index and class (up
    /// to --limit)
    #[arg(long, requires = "operands")]
    pub list: bool,
    /// With --list: the most violating lines listed
    #[arg(long, value_name = "N", default_value_t = DEFAULT_VIOLATION_LIMIT, requires = "operands")]
    pub limit: usize,
    /// With --operands: also write the verdict as one self-contained HTML page, with a
    /// plot of the error against the input
    #[arg(long, value_name = "FILE.html", requires = "operands")]
    pub report: Option<std::path::PathBuf>,
}
