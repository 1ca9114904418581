//! Direct3D shader arithmetic: which results a conforming implementation may return.
//!
//! An [`OpRequest`] names an instruction, its operands as bit patterns, the format and the
//! rule set (text becomes a request in [`crate::input::line`]); [`evaluate`] reads the
//! operands the way the hardware does (denorm flush, §3.1.3.2),
//! works out the exact result, the correctly rounded one, and the allowed set shaped by
//! the rules of §3.1 and the instruction's own section, and checks a claimed result.
//! Pure: no printing, no I/O.

pub mod allowed;
mod arith;
mod conversions;
mod divide;
mod fast;
mod fast_double;
mod functions;
mod fused;
mod irrational;
pub mod numeric;
mod operands;
pub mod rules;
mod select;
mod step;
mod transcendental;

pub use allowed::{AllowedSet, Domain};
use smallvec::SmallVec;

/// An operand's components: one, or two to four for the dot products. Held in place (the
/// request and its evaluation allocate little on the batch hot path).
pub type Vector<T> = SmallVec<[T; 4]>;
/// The operands of an instruction, at most three (mad), each a [`Vector`].
pub type Operands<T> = SmallVec<[Vector<T>; 3]>;
/// One entry per output of an instruction: one, or two for sincos.
pub type PerOutput<T> = SmallVec<[T; 2]>;
/// The rules an evaluation applied, in order.
pub type RuleList = SmallVec<[Rule; 6]>;
pub use rules::{Rule, RuleSet, Ulps};

use crate::exact::Number;
use crate::format::{Arithmetic, F16, F32, F64, FloatFormat};

/// A shader instruction (format-independent; `Add` is `add` for f32/f16 and `dadd` for f64).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// `add` (f32/f16, §22.10.1), `dadd` (f64): one rounded sum.
    Add,
    /// `sub`, `dsub`: a convenience, not a D3D instruction; `add` with the second operand negated.
    Sub,
    /// `mul` (f32/f16), `dmul` (f64): one rounded product.
    Mul,
    /// `div` (f32/f16, §22.10.2, which may run as `a * (1/b)`), `ddiv` (f64, §22.14.6, correctly
    /// rounded).
    Div,
    /// `mad` (f32/f16; alias `fma`), held to the worst serial order of its multiply and add;
    /// `dfma` (f64, §22.14.7), rounded once.
    Mad,
    /// `dp2`: the dot product of two 2-component vectors, a fused operation held to its worst
    /// serial order (f32/f16).
    Dp2,
    /// `dp3`: the dot product of two 3-component vectors, as [`Op::Dp2`].
    Dp3,
    /// `dp4`: the dot product of two 4-component vectors, as [`Op::Dp2`].
    Dp4,
    /// `min` (f32/f16, §22.10.10), `dmin` (f64): the smaller operand, returned unchanged.
    Min,
    /// `max` (f32/f16, §22.10.11), `dmax` (f64): the larger operand, returned unchanged.
    Max,
    /// `sqrt` (§22.10.21): square root within 1 ULP; no double form.
    Sqrt,
    /// `rsq` (§22.10.19): reciprocal square root, relative error up to 2^-21.
    Rsq,
    /// `rcp` (f32/f16, §22.10.18; 2^-21 relative or 1 ULP), `drcp` (f64, §22.14.5; either neighbour
    /// of the exact reciprocal).
    Rcp,
    /// `exp` (§22.10.6): 2^x, relative error up to 2^-21.
    Exp,
    /// `log` (§22.10.8): log2 x, 2^-21 absolute in [0.5, 2] and relative elsewhere.
    Log,
    /// `frc` (§22.10.7): the fractional part, `x - round_ni(x)`.
    Frc,
    /// `round_ne` (§22.10.14-17): the nearest integral value, ties to even.
    RoundNe,
    /// `round_ni`: the integral value toward negative infinity (floor).
    RoundNi,
    /// `round_pi`: the integral value toward positive infinity (ceiling).
    RoundPi,
    /// `round_z`: the integral value toward zero (truncation).
    RoundZ,
    /// `sincos` (§22.10.20): sine and cosine of one operand, two outputs (`sin`, `cos`).
    Sincos,
    /// `sin`: a convenience, `sincos` with the cosine destination NULL (one output).
    Sin,
    /// `cos`: a convenience, `sincos` with the sine destination NULL (one output).
    Cos,
    /// `eq` (f32/f16, §22.6), `deq` (f64): equality, written as a full 32-bit mask.
    Eq,
    /// `ne` (§22.6), `dne` (f64): inequality; true when an operand is NaN.
    Ne,
    /// `lt` (§22.6), `dlt` (f64): less than.
    Lt,
    /// `ge` (§22.6), `dge` (f64): greater than or equal.
    Ge,
    /// `gt`, `dgt`: a convenience, not a D3D instruction; `lt` with the operands swapped.
    Gt,
    /// `le`, `dle`: a convenience, not a D3D instruction; `ge` with the operands swapped.
    Le,
    /// `ftoi` (§22.13.3): f32 to i32, truncating toward zero and saturating.
    Ftoi,
    /// `ftou` (§22.13.4): f32 to u32, truncating toward zero and saturating (negatives give 0).
    Ftou,
    /// `itof` (§22.13.5): i32 to f32.
    Itof,
    /// `utof` (§22.13.6): u32 to f32.
    Utof,
    /// `f16tof32` (§22.13.1): float16 to float32, exact.
    F16ToF32,
    /// `f32tof16` (§22.13.2): float32 to float16.
    F32ToF16,
    /// `dtof` (§22.17.1): double to float32.
    Dtof,
    /// `ftod` (§22.17.2): float32 to double, exact.
    Ftod,
}

/// The op a name (any case) stands for in a table. Comparing length and first letter
/// before the whole name keeps this cheap on the batch hot path.
fn find_name(table: &[(&str, Op)], name: &str) -> Option<Op> {
    let first = name.as_bytes().first()?.to_ascii_lowercase();
    table
        .iter()
        .find(|(n, _)| {
            n.len() == name.len() && n.as_bytes()[0] == first && n.eq_ignore_ascii_case(name)
        })
        .map(|&(_, op)| op)
}

/// Every f32 instruction name, with the op it names, in the order `Op` declares them (then
/// the alias `fma`).
const F32_NAMES: &[(&str, Op)] = &[
    ("add", Op::Add),
    ("sub", Op::Sub),
    ("mul", Op::Mul),
    ("div", Op::Div),
    ("mad", Op::Mad),
    ("dp2", Op::Dp2),
    ("dp3", Op::Dp3),
    ("dp4", Op::Dp4),
    ("min", Op::Min),
    ("max", Op::Max),
    ("sqrt", Op::Sqrt),
    ("rsq", Op::Rsq),
    ("rcp", Op::Rcp),
    ("exp", Op::Exp),
    ("log", Op::Log),
    ("frc", Op::Frc),
    ("round_ne", Op::RoundNe),
    ("round_ni", Op::RoundNi),
    ("round_pi", Op::RoundPi),
    ("round_z", Op::RoundZ),
    ("sincos", Op::Sincos),
    ("sin", Op::Sin),
    ("cos", Op::Cos),
    ("eq", Op::Eq),
    ("ne", Op::Ne),
    ("lt", Op::Lt),
    ("ge", Op::Ge),
    ("gt", Op::Gt),
    ("le", Op::Le),
    ("ftoi", Op::Ftoi),
    ("ftou", Op::Ftou),
    ("itof", Op::Itof),
    ("utof", Op::Utof),
    ("f16tof32", Op::F16ToF32),
    ("f32tof16", Op::F32ToF16),
    ("dtof", Op::Dtof),
    ("ftod", Op::Ftod),
    ("fma", Op::Mad),
];

/// The double instructions by their spec names (§22.14-22.17); they imply `--fmt f64`.
const F64_NAMES: &[(&str, Op)] = &[
    ("dadd", Op::Add),
    ("dsub", Op::Sub),
    ("dmul", Op::Mul),
    ("ddiv", Op::Div),
    ("drcp", Op::Rcp),
    ("dfma", Op::Mad),
    ("dmin", Op::Min),
    ("dmax", Op::Max),
    ("deq", Op::Eq),
    ("dge", Op::Ge),
    ("dlt", Op::Lt),
    ("dne", Op::Ne),
    ("dgt", Op::Gt),
    ("dle", Op::Le),
];

/// Every instruction name `op` accepts: the f32 names, then the double ones (spec names and
/// the conveniences `dsub`, `dgt`, `dle`), as `d3dfloat op --help` lists them. Nothing in
/// the tool reads it (the names are resolved through the tables above); it is for library
/// users, and a doc test in `lib.rs` checks that every entry parses.
pub const OP_NAMES: &[&str] = &[
    "add", "sub", "mul", "div", "mad", "dp2", "dp3", "dp4", "min", "max", "sqrt", "rsq", "rcp",
    "exp", "log", "frc", "round_ne", "round_ni", "round_pi", "round_z", "sincos", "sin", "cos",
    "eq", "ne", "lt", "ge", "gt", "le", "ftoi", "ftou", "itof", "utof", "f16tof32", "f32tof16",
    "dtof", "ftod", "fma", "dadd", "dsub", "dmul", "ddiv", "drcp", "dfma", "dmin", "dmax", "deq",
    "dge", "dlt", "dne", "dgt", "dle",
];

/// Why an instruction could not be evaluated.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OpError {
    /// The name is neither an f32/f16 instruction nor a double one (the name as typed).
    #[error("unknown instruction '{0}' (see `d3dfloat op --help` for the list)")]
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
        hint: &'static str,
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
    /// A working format without D3D arithmetic (f11, f10); holds the format's name.
    #[error("only f32, f16 and f64 have D3D arithmetic (got {0})")]
    Format(String),
}

/// "an i32", "a u32": the article as the name is read aloud.
pub fn with_article(kind: &str) -> String {
    let article = if kind.starts_with(['a', 'e', 'i', 'o']) {
        "an"
    } else {
        "a"
    };
    format!("{article} {kind}")
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
        let Some(op) = find_name(F32_NAMES, lower) else {
            return match find_name(F64_NAMES, lower) {
                Some(op) => Ok((op, F64)),
                None => Err(OpError::UnknownOp(name.to_string())),
            };
        };
        let fmt = match fmt.arithmetic {
            Arithmetic::None => return Err(OpError::Format(fmt.name.to_string())),
            _ => *fmt,
        };
        if fmt.arithmetic == Arithmetic::Double && !op.has_double_form() && !op.is_conversion() {
            return Err(OpError::NoSuchForm {
                op: lower.to_ascii_lowercase(),
                format: "f64",
                hint: " (double instructions: add sub mul div rcp fma/mad min max eq ne lt ge gt le, dtof, ftod)",
            });
        }
        // Conversions name their own formats (§22.13, §22.17).
        let fmt = if op.is_conversion() { F32 } else { fmt };
        Ok((op, fmt))
    }

    fn has_double_form(self) -> bool {
        use Op::*;
        matches!(
            self,
            Add | Sub | Mul | Div | Rcp | Mad | Min | Max | Eq | Ne | Lt | Ge | Gt | Le
        )
    }

    fn is_conversion(self) -> bool {
        use Op::*;
        matches!(
            self,
            Ftoi | Ftou | Itof | Utof | F16ToF32 | F32ToF16 | Dtof | Ftod
        )
    }

    /// The name the spec gives the instruction in this format.
    pub fn name(self, fmt: &FloatFormat) -> &'static str {
        if fmt.arithmetic == Arithmetic::Double
            && let Some(&(n, _)) = F64_NAMES.iter().find(|(_, o)| *o == self)
        {
            return n;
        }
        // F32_NAMES lists the ops in declaration order (a unit test checks it).
        F32_NAMES[self as usize].0
    }

    /// Number of source operands and components per operand.
    pub fn arity(self) -> (usize, usize) {
        use Op::*;
        match self {
            Add | Sub | Mul | Div | Min | Max | Eq | Ne | Lt | Ge | Gt | Le => (2, 1),
            Mad => (3, 1),
            Dp2 => (2, 2),
            Dp3 => (2, 3),
            Dp4 => (2, 4),
            _ => (1, 1),
        }
    }

    /// Domain of the operands and of each result, given the working format.
    pub fn domains(self, fmt: &FloatFormat) -> (Domain, Outputs) {
        use Op::*;
        let f = Domain::Float(*fmt);
        let one = |d| Outputs::one(d);
        match self {
            Eq | Ne | Lt | Ge | Gt | Le => (f, one(Domain::Bool)),
            Ftoi => (Domain::Float(F32), one(Domain::I32)),
            Ftou => (Domain::Float(F32), one(Domain::U32)),
            Itof => (Domain::I32, one(Domain::Float(F32))),
            Utof => (Domain::U32, one(Domain::Float(F32))),
            F16ToF32 => (Domain::Float(F16), one(Domain::Float(F32))),
            F32ToF16 => (Domain::Float(F32), one(Domain::Float(F16))),
            Dtof => (Domain::Float(F64), one(Domain::Float(F32))),
            Ftod => (Domain::Float(F32), one(Domain::Float(F64))),
            Sincos => (
                f,
                Outputs {
                    list: [("sin", f), ("cos", f)],
                    len: 2,
                },
            ),
            _ => (f, one(f)),
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
pub struct OperandReport {
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
pub struct OutputReport {
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
    /// [`OutputReport::domain`], plus whether NaN is allowed.
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
    /// ULPs outside the allowed set (None when NaN was claimed or only NaN is allowed).
    pub miss_ulps: Option<u64>,
    /// The rule the claim breaks (the output's governing rule); `None` when it conforms.
    pub broken: Option<Rule>,
    /// A value literal that had to be rounded to become a pattern.
    pub inexact_literal: bool,
}

/// The verdict on a claimed result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckReport {
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
    pub args: Vec<Vec<OperandReport>>,
    /// One report per output: one, or sine then cosine for sincos.
    pub outputs: Vec<OutputReport>,
    /// Every rule that shaped the allowed sets, in the order applied, as cited in output.
    pub rules_applied: RuleList,
    /// The verdict on the claimed result; `None` when the request claimed nothing.
    pub check: Option<CheckReport>,
}

impl Evaluation {
    /// The single output of every instruction but sincos (its sine for sincos).
    pub fn main_output(&self) -> &OutputReport {
        &self.outputs[0]
    }

    /// Whether the claimed result conforms: `None` when nothing was claimed ([`BatchSummary::add`]
    /// counts it as a line, not a check).
    pub fn conforms(&self) -> Option<bool> {
        self.check.as_ref().map(|c| c.conforms)
    }
}

/// Evaluates one instruction.
pub fn evaluate(req: &OpRequest) -> Result<Evaluation, OpError> {
    evaluate_with(req, true)
}

/// Evaluates one instruction on exact rationals only, never the `f64` fast path: the
/// reference the fast path is tested against.
pub fn evaluate_exact(req: &OpRequest) -> Result<Evaluation, OpError> {
    evaluate_with(req, false)
}

fn evaluate_with(req: &OpRequest, fast: bool) -> Result<Evaluation, OpError> {
    let (operand_domain, out_domains) = req.op.domains(&req.format);
    let op_name = req.op.name(&req.format);
    let (count, width) = req.op.arity();
    if req.args.len() != count {
        return Err(OpError::OperandCount {
            op: op_name.to_string(),
            expected: count,
            got: req.args.len(),
        });
    }
    let mut args = Vec::with_capacity(count);
    for (i, comps) in req.args.iter().enumerate() {
        if comps.len() != width {
            return Err(OpError::VectorWidth {
                op: op_name.to_string(),
                expected: width,
                index: i + 1,
                got: comps.len(),
            });
        }
        let mut read = Vec::with_capacity(width);
        for &p in comps {
            read.push(operands::read(p, &operand_domain, req.op, i + 1)?);
        }
        args.push(read);
    }
    let mut ctx = arith::Ctx::new(req.format, req.rules);
    let fast_outputs = if fast {
        ctx.run_fast(req.op, &args, &out_domains)
    } else {
        None
    };
    let outputs = match fast_outputs {
        Some(o) => o,
        None => {
            ctx = arith::Ctx::new(req.format, req.rules);
            ctx.run(req.op, &args, &out_domains)
        }
    };
    let check = match &req.check {
        Some(claims) => Some(operands::check(claims, &outputs)?),
        None => None,
    };
    Ok(Evaluation {
        op: req.op,
        op_name,
        format: req.format,
        rules: req.rules,
        args,
        outputs,
        rules_applied: ctx.notes,
        check,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_declaration_order_and_parse_back() {
        for (i, &(name, op)) in F32_NAMES.iter().enumerate() {
            if name != "fma" {
                assert_eq!(op as usize, i, "{name}");
            }
            let upper = name.to_ascii_uppercase();
            assert_eq!(Op::parse(&upper, &F32).unwrap().0, op);
        }
        assert_eq!(Op::Mad.name(&F32), "mad");
        assert_eq!(Op::Mad.name(&F64), "dfma");
        assert_eq!(Op::parse("DSub", &F32).unwrap(), (Op::Sub, F64));
        assert!(matches!(Op::parse("ad", &F32), Err(OpError::UnknownOp(_))));
        assert!(matches!(Op::parse("", &F32), Err(OpError::UnknownOp(_))));
    }
}
