//! `probe`'s arguments and its long help.

use clap::Args;

use super::DEFAULT_VIOLATION_LIMIT;
use super::values::{choice, parse_range};
use crate::d3d::RuleSet;

pub(super) const PROBE_HELP: &str = "\
Each instruction of op runs as a compute shader on the device, in the SPIR-V form a
D3D-to-Vulkan translator emits (one instruction per dispatch, with the float controls D3D
needs where the device grants them), over a generated input set: specials, denormals,
ties, overflow, cancellation, large sincos arguments, out-of-range conversions, random
patterns; all 65,536 halves for f16tof32. The same --seed gives the same inputs. Every
result is judged by the op engine. The f16 and f64 instructions run when the device has
shaderFloat16 / shaderFloat64. --ops takes names (add,dadd); f16:add or f32:add picks one
format's.

--emit-log FILE writes every line as 'OP ARG... = RESULT' (bit patterns), so that
`d3dfloat op --plain < FILE` gives each verdict again (add --rules d3d10 if the probe had
it); 16-bit arithmetic lines go to FILE.f16, for `d3dfloat op --fmt f16 --plain < FILE.f16`.

Vulkan is loaded at run time. Without a loader or a device, probe exits 2; on Debian,
`apt-get install mesa-vulkan-drivers libvulkan1` gives a software device (lavapipe).

--exhaustive runs every input: the device makes the operands from the invocation index,
and each chunk of results is judged on the other cores while the device computes the next
(memory stays under 100 MiB). A progress bar shows on a terminal; Ctrl-C stops the sweep,
prints the report of what was judged, marked partial, and exits 130. Two-f32-operand,
three-operand, vector and double instructions have no sweep and are listed as skipped.
--first N or --range START..END runs a slice of each sweep (--range 0x3c00..0x4000: the
f16 binade [1, 2)). --violations FILE writes the failing inputs as they are judged, as
'OP ARG... = RESULT  # index N' lines (f16 ones to FILE.f16), up to --limit per
instruction, for `d3dfloat op --plain < FILE` to check again.

Exit status: 0 every result conforms, 1 any result violates, 2 no Vulkan or a usage error,
130 an exhaustive sweep interrupted (the report printed is partial).

Examples:
  d3dfloat probe
  d3dfloat probe --list-devices
  d3dfloat probe --ops add,mul,mad --count 100000 --emit-log add.log
  d3dfloat probe --json | jq 'select(.kind == \"op\" and .violate > 0)'
  d3dfloat probe --exhaustive --ops sqrt,rsq,rcp
  d3dfloat probe --exhaustive --ops f16:rsq --violations rsq.txt";

/// `probe`'s arguments.
#[derive(Debug, Args)]
pub struct ProbeArgs {
    /// Device: an index from --list-devices or part of its name [default: the first]
    #[arg(long, value_name = "INDEX|NAME")]
    pub device: Option<String>,
    /// List the Vulkan devices and exit
    #[arg(long)]
    pub list_devices: bool,
    /// Instructions to probe, comma-separated [default: all]
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub ops: Vec<String>,
    /// Input lines per instruction (f16tof32 takes all 65,536 halves from 4096 up)
    #[arg(long, value_name = "N", default_value_t = 4096, value_parser = clap::value_parser!(u32).range(1..=16_777_216))]
    pub count: u32,
    /// Rule set: d3d11 (Direct3D 11 and later) or d3d10
    #[arg(long, value_parser = choice::<RuleSet>(), default_value_t = RuleSet::default(), value_name = "RULES")]
    pub rules: RuleSet,
    /// Write every line as 'OP ARG... = RESULT' to FILE, for `d3dfloat op --plain < FILE`
    #[arg(long, value_name = "FILE")]
    pub emit_log: Option<std::path::PathBuf>,
    /// Seed of the generated inputs
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    /// Every input instead of samples: all 2^32 f32 patterns of each one-operand
    /// instruction, all 65,536 f16 ones, every pair of f16 operands (2^32)
    #[arg(long, conflicts_with_all = ["emit_log", "count", "seed"])]
    pub exhaustive: bool,
    /// With --exhaustive: only the first N inputs of each sweep
    #[arg(long, value_name = "N", requires = "exhaustive")]
    pub first: Option<u64>,
    /// With --exhaustive: only inputs START to END (excluded) of each sweep, decimal or 0x
    /// hex; an input's index is its pattern (a << 16 | b for two f16 operands)
    #[arg(long, value_name = "START..END", requires = "exhaustive", conflicts_with = "first", value_parser = parse_range)]
    pub range: Option<std::ops::Range<u64>>,
    /// With --exhaustive: write each violating line as 'OP ARG... = RESULT  # index N' to
    /// FILE (f16 instructions' to FILE.f16), for `d3dfloat op --plain < FILE`
    #[arg(long, value_name = "FILE", requires = "exhaustive")]
    pub violations: Option<std::path::PathBuf>,
    /// Violating lines written (--violations) or listed (--list) per instruction
    #[arg(long, value_name = "N", default_value_t = DEFAULT_VIOLATION_LIMIT)]
    pub limit: usize,
    /// With --exhaustive and --json or --csv: list each violating line's index and class
    /// (up to --limit per instruction)
    #[arg(long, requires = "exhaustive")]
    pub list: bool,
    /// Also write the report as one self-contained HTML page, with a plot of each
    /// instruction's error against its input
    #[arg(long, value_name = "FILE.html", conflicts_with = "list_devices")]
    pub report: Option<std::path::PathBuf>,
    /// Path of each shader to the device, comma-separated: direct (SPIR-V written by
    /// d3dfloat), vkd3d-shader or dxbc-spirv (DXBC written by d3dfloat, translated by
    /// that translator); with several, every instruction runs through each and the report
    /// compares them
    #[arg(
        long,
        value_name = "PATHS",
        value_delimiter = ',',
        default_value = "direct"
    )]
    pub via: Vec<String>,
    /// With --via vkd3d-shader: the vkd3d-shader library to load [default:
    /// libvkd3d-shader.so.1 from the system]
    #[arg(long, value_name = "PATH")]
    pub translator_lib: Option<std::path::PathBuf>,
    /// Write each selected instruction's DXBC compute shader (sampled and exhaustive
    /// forms) into DIR as NAME.FORMAT[.indexed].dxbc, then exit; no device is needed
    #[arg(long, value_name = "DIR", conflicts_with_all = ["list_devices", "report", "emit_log"])]
    pub dump_dxbc: Option<std::path::PathBuf>,
}
