//! What an evaluation is given and what it finds: the request, each operand as read, each
//! output's exact and allowed results, the verdict on a claimed result, a batch's tally.

use super::{AllowedSet, Domain, Op, Operands, PerOutput, Rule, RuleList, RuleSet, numeric};
use crate::exact::Number;
use crate::format::FloatFormat;

/// A bit pattern given to an instruction (an operand component or a claimed result), with
/// whether it came from a value literal that had to be rounded (to nearest-even) to fit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Pattern {
    /// The pattern, in the low bits.
    pub bits: u64,
    /// A value literal that the domain cannot hold exactly was rounded to make it.
    pub inexact_literal: bool,
}

impl Pattern {
    /// A pattern given as bits.
    pub const fn bits(bits: u64) -> Pattern {
        Pattern {
            bits,
            inexact_literal: false,
        }
    }
}

impl From<u64> for Pattern {
    fn from(bits: u64) -> Pattern {
        Pattern::bits(bits)
    }
}

/// One instruction to evaluate.
#[derive(Clone, Debug)]
pub struct OpRequest {
    /// The instruction.
    pub op: Op,
    /// The working format (f32, f16 or f64); conversions fix their own.
    pub format: FloatFormat,
    /// The D3D version whose rules decide.
    pub rules: RuleSet,
    /// One entry per source operand; a vector operand (dp2-dp4) has one pattern per component.
    pub args: Operands<Pattern>,
    /// A claimed result to check: one pattern per output (sincos may give its sine alone, or
    /// sine then cosine).
    pub check: Option<PerOutput<Pattern>>,
}

impl OpRequest {
    /// A request from bare patterns, with nothing to check.
    pub fn from_bits(op: Op, format: FloatFormat, rules: RuleSet, args: &[&[u64]]) -> OpRequest {
        OpRequest {
            op,
            format,
            rules,
            args: args
                .iter()
                .map(|comps| comps.iter().map(|&b| Pattern::bits(b)).collect())
                .collect(),
            check: None,
        }
    }
}

/// An operand component as the instruction reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OperandReading {
    /// The operand's domain (its format, or i32/u32 for the integer conversions).
    pub domain: Domain,
    /// The pattern (a value literal rounded to nearest-even into the format).
    pub bits: u64,
    /// The literal was a value that the format cannot hold exactly.
    pub inexact_literal: bool,
    /// The zero a denorm was flushed to on input (§3.1.3.2).
    pub flushed_to: Option<u64>,
}

/// The exact result of an output, where there is one.
#[derive(Clone, Debug, PartialEq)]
pub enum ExactResult {
    /// An exact real number (or infinity) the allowed set is measured against.
    Value(Number),
    /// An irrational result known to `f64` precision (sqrt, exp, log, sin, cos, rsq).
    Approx(f64),
    /// Exactly the sum of two `f64` values (the fast path's exact results).
    Sum(f64, f64),
    /// Exactly the quotient of two `f64` values.
    Quotient(f64, f64),
    /// Exactly `a * b + c` of three `f64` values (the double fast path's dfma).
    FusedSum(f64, f64, f64),
    /// A comparison's exact answer.
    Bool(bool),
    /// The result is NaN (any NaN).
    Nan,
}

impl ExactResult {
    /// The exact number, where the result has one.
    pub fn number(&self) -> Option<Number> {
        use numeric::{add, div, from_f64};
        match self {
            ExactResult::Value(n) => Some(n.clone()),
            ExactResult::Sum(hi, lo) if *lo == 0.0 => Some(from_f64(*hi)),
            ExactResult::Sum(hi, lo) => Some(add(&from_f64(*hi), &from_f64(*lo))),
            ExactResult::Quotient(a, b) => Some(div(&from_f64(*a), &from_f64(*b))),
            ExactResult::FusedSum(a, b, c) => Some(add(
                &numeric::mul(&from_f64(*a), &from_f64(*b)),
                &from_f64(*c),
            )),
            _ => None,
        }
    }
}

/// One result of an instruction (sincos has two).
#[derive(Clone, Debug)]
pub struct OutputResult {
    /// The output's name: `dest`, or `sin` and `cos` for sincos.
    pub name: &'static str,
    /// What the output holds, and how its patterns order (a float format, i32, u32 or a comparison
    /// mask).
    pub domain: Domain,
    /// The result the allowed set is measured from: exact where it can be, to `f64` precision
    /// for irrational results, a comparison's answer, or NaN.
    pub exact: ExactResult,
    /// What a strict implementation returns: the correctly rounded result.
    pub preferred: u64,
    /// Every pattern a conforming implementation may return, as key ranges of
    /// [`OutputResult::domain`], plus whether NaN is allowed.
    pub allowed: AllowedSet,
    /// The rule a result outside the set breaks.
    pub governing: Rule,
}

/// The verdict on a claimed result for one output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputVerdict {
    /// The claimed pattern, in the output's domain.
    pub result: u64,
    /// The claimed pattern lies in the output's allowed set.
    pub conforms: bool,
    /// ULPs outside the allowed set: `Some(0)` for a conforming claim; `None` for a
    /// non-conforming NaN, a comparison mask that is neither true nor false, or an output
    /// that allows only NaN.
    pub miss_ulps: Option<u64>,
    /// The rule the claim breaks (the output's governing rule); `None` when it conforms.
    pub broken: Option<Rule>,
    /// A value literal that had to be rounded to become a pattern.
    pub inexact_literal: bool,
}

/// The verdict on a claimed result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaimVerdict {
    /// One verdict per claimed value (sincos: sine, then cosine when given).
    pub verdicts: PerOutput<OutputVerdict>,
    /// Every claimed value lies in its output's allowed set.
    pub conforms: bool,
}

/// The tally of a batch of evaluations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BatchSummary {
    /// Lines evaluated.
    pub lines: u64,
    /// Lines with a claimed result (`= RESULT`).
    pub checked: u64,
    /// Checked lines whose result conforms.
    pub conform: u64,
    /// Checked lines whose result does not.
    pub violate: u64,
}

impl BatchSummary {
    /// Counts one evaluation by its verdict ([`Evaluation::conforms`]).
    pub fn add(&mut self, conforms: Option<bool>) {
        self.lines += 1;
        match conforms {
            Some(true) => {
                self.checked += 1;
                self.conform += 1;
            }
            Some(false) => {
                self.checked += 1;
                self.violate += 1;
            }
            None => {}
        }
    }
}

/// Everything known about one evaluation; renderers print it.
#[derive(Clone, Debug)]
pub struct Evaluation {
    /// The instruction evaluated.
    pub op: Op,
    /// The instruction's spec name in the working format (`dfma` for `Mad` in f64).
    pub op_name: &'static str,
    /// The request's working format ([`Op::parse`] gives f32 for the conversions, which name
    /// their own formats).
    pub format: FloatFormat,
    /// The rule set applied (D3D11 or D3D10).
    pub rules: RuleSet,
    /// Each source operand as read, one report per component (after the input flush).
    pub args: Vec<Vec<OperandReading>>,
    /// One report per output: one, or sine then cosine for sincos.
    pub outputs: Vec<OutputResult>,
    /// Every rule that shaped the allowed sets, in the order applied, as cited in output.
    pub rules_applied: RuleList,
    /// The verdict on the claimed result; `None` when the request claimed nothing.
    pub check: Option<ClaimVerdict>,
}

impl Evaluation {
    /// The single output of every instruction but sincos (its sine for sincos).
    pub fn main_output(&self) -> &OutputResult {
        &self.outputs[0]
    }

    /// Whether the claimed result conforms: `None` when nothing was claimed ([`BatchSummary::add`]
    /// counts it as a line, not a check).
    pub fn conforms(&self) -> Option<bool> {
        self.check.as_ref().map(|c| c.conforms)
    }
}
