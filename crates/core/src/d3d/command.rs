//! The words of the `op` command: the one place outside the command line (`src/cli/`) that
//! writes op's syntax, so that a report can hand back a line to paste. A line of an
//! instruction is written as the command that reproduces its verdict,
//! `d3dfloat op [--fmt f16 ][--rules d3d10 ]NAME ARGS --check RESULTS`, or as a batch line
//! `NAME ARGS = RESULTS` that `op` reads from a file; patterns in hex at their domain's
//! width, vector components and a line's outputs joined by commas.

use super::{Domain, Op, RuleSet};
use crate::format::{Arithmetic, FloatFormat};

/// An instruction as `op` selects it: its name, and the options before the name that pick
/// its working format and rule set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpCommand {
    op: Op,
    format: FloatFormat,
    rules: RuleSet,
}

impl OpCommand {
    /// The instruction `op` in working format `format` (as [`Op::parse`] returns them)
    /// under `rules`.
    pub fn new(op: Op, format: FloatFormat, rules: RuleSet) -> OpCommand {
        OpCommand { op, format, rules }
    }

    /// The name `op` reads (`add`, `dfma`, `f32tof16`).
    pub fn name(&self) -> &'static str {
        self.op.name(&self.format)
    }

    /// The options before the name that select this reading: `--fmt f16 ` for float16
    /// arithmetic, `--rules d3d10 ` for the D3D10 rules, each with its trailing space.
    pub fn options(&self) -> String {
        let mut s = String::new();
        if self.format.arithmetic == Arithmetic::Float16 {
            s.push_str("--fmt f16 ");
        }
        if self.rules == RuleSet::D3D10 {
            s.push_str("--rules d3d10 ");
        }
        s
    }

    /// The pasteable command that checks the results `results` of the operand patterns
    /// `args` (every component of every operand, in order):
    /// `d3dfloat op [OPTIONS ]NAME ARGS --check RESULTS`.
    pub fn check(&self, args: &[u64], results: &[u64]) -> String {
        let (operands, results) = self.words(args, results);
        format!(
            "d3dfloat op {}{} {operands} --check {results}",
            self.options(),
            self.name()
        )
    }

    /// The batch line `NAME ARGS = RESULTS` of the same line (without the options: a
    /// batch file is read under the options of its command).
    pub fn batch_line(&self, args: &[u64], results: &[u64]) -> String {
        let (operands, results) = self.words(args, results);
        format!("{} {operands} = {results}", self.name())
    }

    /// The operands (separated by spaces, a vector's components by commas) and the
    /// results (by commas), each pattern in hex at its domain's width.
    fn words(&self, args: &[u64], results: &[u64]) -> (String, String) {
        let hex = |d: &Domain, b: u64| format!("0x{:0w$x}", b, w = d.width() as usize / 4);
        let (input, outputs) = self.op.domains(&self.format);
        let width = self.op.arity().1;
        let operands: Vec<String> = args
            .chunks(width)
            .map(|c| {
                c.iter()
                    .map(|&b| hex(&input, b))
                    .collect::<Vec<_>>()
                    .join(",")
            })
            .collect();
        let results: Vec<String> = outputs
            .iter()
            .zip(results)
            .map(|((_, d), &b)| hex(d, b))
            .collect();
        (operands.join(" "), results.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{F16, F32, F64};

    #[test]
    fn commands_spell_the_options_that_select_the_reading() {
        let add = OpCommand::new(Op::Add, F32, RuleSet::D3D11);
        assert_eq!(
            add.check(&[0x3f80_0000, 0x3f80_0000], &[0x4000_0001]),
            "d3dfloat op add 0x3f800000 0x3f800000 --check 0x40000001"
        );
        assert_eq!(
            add.batch_line(&[0x3f80_0000, 0x3f80_0000], &[0x4000_0001]),
            "add 0x3f800000 0x3f800000 = 0x40000001"
        );
        let d3d10 = OpCommand::new(Op::Add, F32, RuleSet::D3D10);
        assert_eq!(
            d3d10.check(&[1, 2], &[3]),
            "d3dfloat op --rules d3d10 add 0x00000001 0x00000002 --check 0x00000003"
        );
        let f16 = OpCommand::new(Op::Add, F16, RuleSet::D3D11);
        assert_eq!(
            f16.check(&[0x3c00, 0x3c00], &[0x4001]),
            "d3dfloat op --fmt f16 add 0x3c00 0x3c00 --check 0x4001"
        );
        let dfma = OpCommand::new(Op::Mad, F64, RuleSet::D3D11);
        assert_eq!(dfma.name(), "dfma");
        assert_eq!(dfma.options(), "");
    }

    #[test]
    fn vectors_and_outputs_are_joined_by_commas() {
        let dp2 = OpCommand::new(Op::Dp2, F32, RuleSet::D3D11);
        assert_eq!(
            dp2.batch_line(&[1, 2, 3, 4], &[5]),
            "dp2 0x00000001,0x00000002 0x00000003,0x00000004 = 0x00000005"
        );
        let sincos = OpCommand::new(Op::Sincos, F32, RuleSet::D3D11);
        assert_eq!(
            sincos.check(&[0], &[0, 0x3f80_0000]),
            "d3dfloat op sincos 0x00000000 --check 0x00000000,0x3f800000"
        );
    }
}
