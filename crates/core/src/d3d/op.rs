//! The instructions: their names in each format, operand counts and widths, the domains
//! of their operands and results, and why a request for one cannot be evaluated.

use super::Domain;
use super::instructions::{INSTRUCTIONS, Op, Shape, f64_form_names};
use crate::format::{Arithmetic, F32, F64, FloatFormat};

/// The op a name (any case) stands for: an f32 name or alias (`false`), or a double
/// name (`true`). Comparing length and first letter before the whole name keeps this
/// cheap on the batch hot path.
fn find_name(name: &str) -> Option<(Op, bool)> {
    let first = name.as_bytes().first()?.to_ascii_lowercase();
    let is =
        |n: &str| n.len() == name.len() && n.as_bytes()[0] == first && n.eq_ignore_ascii_case(name);
    INSTRUCTIONS.iter().find_map(|i| {
        if is(i.name) || i.alias.is_some_and(is) {
            Some((i.op, false))
        } else if i.double.is_some_and(|d| is(d.name)) {
            Some((i.op, true))
        } else {
            None
        }
    })
}

/// Why an instruction could not be evaluated.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OpError {
    /// The name is neither an f32/f16 instruction nor a double one (the name as typed).
    #[error("unknown instruction '{0}'")]
    UnknownOp(String),
    /// The instruction exists, but not in the requested format (`sqrt` or `dp3` in f64).
    #[error("{op} has no {format} form{hint}")]
    NoSuchForm {
        /// The instruction's name, lower-cased.
        op: String,
        /// The format asked for (`f64`).
        format: &'static str,
        /// Text appended to the message: the instructions that format does have, with a leading
        /// space.
        hint: String,
    },
    /// The wrong number of source operands for the instruction.
    #[error("{op} takes {expected} operand{plural}, got {got}", plural = if *.expected == 1 { "" } else { "s" })]
    OperandCount {
        /// The instruction's name in the working format.
        op: String,
        /// Source operands it takes ([`Op::arity`]).
        expected: usize,
        /// Source operands given.
        got: usize,
    },
    /// An operand with the wrong number of components: dp2, dp3 and dp4 take 2, 3 and 4, every
    /// other instruction single values.
    #[error("{}", vector_width_message(op, *expected, *index, *got))]
    VectorWidth {
        /// The instruction's name in the working format.
        op: String,
        /// Components each operand must have.
        expected: usize,
        /// The operand, counted from 1.
        index: usize,
        /// Components it has.
        got: usize,
    },
    /// A pattern with bits set above its domain's width (operand `index`, 1-based).
    #[error("operand {index}: pattern {bits:#x} is wider than {domain}'s {width} bits")]
    PatternTooWide {
        /// The operand, counted from 1.
        index: usize,
        /// The pattern given.
        bits: u64,
        /// The operand's domain (`f32`, `i32`, ...).
        domain: &'static str,
        /// Its width in bits.
        width: u32,
    },
    /// A claimed result with bits set above its output's width.
    #[error("result: pattern {bits:#x} is wider than {domain}'s {width} bits")]
    ClaimTooWide {
        /// The pattern given.
        bits: u64,
        /// The output's domain.
        domain: &'static str,
        /// Its width in bits.
        width: u32,
    },
    /// More claimed results than the instruction has outputs.
    #[error("expected at most {expected} result value{}, got {got}", if *expected == 1 { "" } else { "s" })]
    ClaimCount {
        /// Outputs of the instruction (2 for sincos).
        expected: usize,
        /// Claimed values given.
        got: usize,
    },
    /// A conversion asked for in a working format it does not take (`ftoi` in f16).
    #[error(
        "{op} converts {from} to {to}; it has no {format} form (conversions name their own formats, §22.13)"
    )]
    ConversionFormat {
        /// The conversion's name.
        op: &'static str,
        /// The domain it reads.
        from: &'static str,
        /// The domain it writes.
        to: &'static str,
        /// The working format asked for.
        format: &'static str,
    },
    /// A working format without D3D arithmetic (f11, f10); holds the format's name.
    #[error("only f32, f16 and f64 have D3D arithmetic (got {0})")]
    Format(String),
}

fn vector_width_message(op: &str, expected: usize, index: usize, got: usize) -> String {
    if expected == 1 {
        return format!(
            "{op} takes single values, not vectors: operand {index} has {got} components"
        );
    }
    let example: Vec<String> = (1..=expected).map(|i| i.to_string()).collect();
    format!(
        "{op} takes vectors of {expected} components (written {}), operand {index} has {got}",
        example.join(",")
    )
}

impl Op {
    /// Looks up an instruction name for a working format. Double names imply f64.
    pub fn parse(name: &str, fmt: &FloatFormat) -> Result<(Op, FloatFormat), OpError> {
        let lower = name.trim();
        let (op, double) = find_name(lower).ok_or_else(|| OpError::UnknownOp(name.to_string()))?;
        if double {
            return Ok((op, F64));
        }
        let fmt = match fmt.arithmetic {
            Arithmetic::None => return Err(OpError::Format(fmt.name.to_string())),
            _ => *fmt,
        };
        let row = op.instruction();
        if fmt.arithmetic == Arithmetic::Double && row.double.is_none() && !row.is_conversion() {
            return Err(OpError::NoSuchForm {
                op: lower.to_ascii_lowercase(),
                format: "f64",
                hint: format!(" (double instructions: {})", f64_form_names()),
            });
        }
        // Conversions name their own formats (§22.13, §22.17): another working format
        // would be ignored, so it is refused (dtof and ftod take f64's).
        if let Shape::Convert(from, to) = row.shape {
            let doubles = fmt.arithmetic == Arithmetic::Double && row.converts_doubles();
            if fmt != F32 && !doubles {
                return Err(OpError::ConversionFormat {
                    op: row.name,
                    from: from.name(),
                    to: to.name(),
                    format: fmt.name,
                });
            }
            return Ok((op, F32));
        }
        Ok((op, fmt))
    }

    /// The name the spec gives the instruction in this format.
    pub fn name(self, fmt: &FloatFormat) -> &'static str {
        let row = self.instruction();
        match row.double {
            Some(d) if fmt.arithmetic == Arithmetic::Double => d.name,
            _ => row.name,
        }
    }

    /// Number of source operands and components per operand.
    pub fn arity(self) -> (usize, usize) {
        let row = self.instruction();
        (row.operands, row.width)
    }

    /// Domain of the operands and of each result, given the working format.
    pub fn domains(self, fmt: &FloatFormat) -> (Domain, Outputs) {
        let f = Domain::Float(*fmt);
        match self.instruction().shape {
            Shape::Arithmetic => (f, Outputs::one(f)),
            Shape::Compare => (f, Outputs::one(Domain::Bool)),
            Shape::Convert(from, to) => (from, Outputs::one(to)),
            Shape::SinCos => (
                f,
                Outputs {
                    list: [("sin", f), ("cos", f)],
                    len: 2,
                },
            ),
        }
    }
}

/// The results of an instruction, named (`dest`; sincos has `sin` and `cos`), with their
/// domains; a slice held in place, so that naming them allocates nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outputs {
    list: [(&'static str, Domain); 2],
    len: usize,
}

impl Outputs {
    fn one(d: Domain) -> Outputs {
        Outputs {
            list: [("dest", d), ("", Domain::Bool)],
            len: 1,
        }
    }
}

impl std::ops::Deref for Outputs {
    type Target = [(&'static str, Domain)];
    fn deref(&self) -> &Self::Target {
        &self.list[..self.len]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::d3d::instructions::op_names;

    #[test]
    fn every_name_parses_back_to_its_row() {
        for row in &INSTRUCTIONS {
            for name in std::iter::once(row.name).chain(row.alias) {
                let upper = name.to_ascii_uppercase();
                assert_eq!(Op::parse(&upper, &F32).unwrap().0, row.op, "{name}");
                assert_eq!(row.op.name(&F32), row.name);
            }
            if let Some(d) = row.double {
                assert_eq!(Op::parse(d.name, &F32).unwrap(), (row.op, F64));
                assert_eq!(row.op.name(&F64), d.name);
            }
        }
        assert_eq!(op_names().count(), 37 + 1 + 14);
        assert_eq!(Op::Mad.name(&F32), "mad");
        assert_eq!(Op::Mad.name(&F64), "dfma");
        assert_eq!(Op::parse("DSub", &F32).unwrap(), (Op::Sub, F64));
        assert!(matches!(Op::parse("ad", &F32), Err(OpError::UnknownOp(_))));
        assert!(matches!(Op::parse("", &F32), Err(OpError::UnknownOp(_))));
        assert!(matches!(
            Op::parse("sqrt", &F64),
            Err(OpError::NoSuchForm { .. })
        ));
    }
}
