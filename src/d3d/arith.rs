//! The evaluation context, the dispatch of instructions, add/sub/mul (the basic steps every
//! other instruction is built from), and the tolerance of each kind of step, written once
//! for both the exact and the fast path. Divide is in `divide.rs`, the fused operations in
//! `fused.rs`, the one-operand functions in `functions.rs`.

use super::allowed::{AllowedSet, Domain};
use super::numeric::value_f64;
use super::numeric::{self, Position, is_zero, position_exact, rne, tolerance_set};
use super::rules::{Rule, RuleSet, Ulps, denorm_rule};
use super::{ExactResult, Op, OperandReport, OutputReport};
use crate::exact::{Number, Ratio};
use crate::format::{Arithmetic, Class, FloatFormat};

/// The state of one evaluation: the working format, the rule set and the rules used.
pub struct Ctx {
    pub f: FloatFormat,
    pub rules: RuleSet,
    pub notes: Vec<Rule>,
}

/// What a basic (unfused) step gives before any tolerance.
#[derive(Clone, Debug)]
pub enum Basic {
    /// Any NaN, because of this rule.
    Nan(Rule),
    /// Exactly this representable value (an identity, an infinity, a zero).
    Exactly(Number, Rule),
    /// The exact finite result, to be rounded within the step's tolerance.
    Rounded(Number),
}

/// A result set with its preferred (correctly rounded) pattern and the rule that governs it.
pub struct Shaped {
    pub set: AllowedSet,
    pub preferred: u64,
    pub governing: Rule,
}

impl Ctx {
    pub fn new(f: FloatFormat, rules: RuleSet) -> Ctx {
        Ctx {
            f,
            rules,
            notes: Vec::new(),
        }
    }

    pub fn note(&mut self, r: Rule) {
        if !self.notes.contains(&r) {
            self.notes.push(r);
        }
    }

    pub fn domain(&self) -> Domain {
        Domain::Float(self.f)
    }

    /// The operand's value after the input flush.
    pub fn value(&self, r: &OperandReport) -> Number {
        match r.domain {
            Domain::Float(f) => f.value(r.flushed_to.unwrap_or(r.bits)),
            _ => unreachable!("float operand expected"),
        }
    }

    /// The operand's value after the input flush, as an `f64` (exact for every format).
    pub fn fv(&self, r: &OperandReport) -> f64 {
        match r.domain {
            Domain::Float(f) => value_f64(&f, r.flushed_to.unwrap_or(r.bits)),
            _ => unreachable!("float operand expected"),
        }
    }

    /// Notes how the operands were read (flushed or kept denorms).
    pub fn note_operands(&mut self, args: &[Vec<OperandReport>]) {
        for r in args.iter().flatten() {
            if r.flushed_to.is_some() {
                self.note(Rule::FlushInput);
            } else if let Domain::Float(f) = r.domain
                && f.class(r.bits) == Class::Subnormal
                && let Some(rule) = denorm_rule(&f)
            {
                self.note(rule);
            }
        }
    }

    /// The tolerance of an unfused add, subtract or multiply, noting its rule.
    pub fn unfused(&mut self) -> (Ulps, Rule) {
        let (ulps, rule) = unfused_tolerance(self.f.arithmetic, self.rules);
        self.note(rule);
        (ulps, rule)
    }

    /// The tolerance of each step of a fused operation's serial expansion, noting its rule.
    pub fn fused_step(&mut self) -> (Ulps, Rule) {
        let (ulps, rule) = fused_step_tolerance(self.f.arithmetic);
        self.note(rule);
        (ulps, rule)
    }

    /// The tolerance of an approximated reciprocal (rcp's 1 ULP reading, the first step of
    /// a two-step divide), noting the float16 tightening where it applies.
    pub fn reciprocal_step(&mut self) -> Ulps {
        if self.f.arithmetic == Arithmetic::Float16 {
            self.note(Rule::F16HalfUlp);
        }
        reciprocal_tolerance(self.f.arithmetic)
    }

    pub fn flushes(&self) -> bool {
        self.f.arithmetic_flushes_subnormals
    }

    /// The output flush of 32-bit arithmetic (§3.1.3.2), noted when it changes the set.
    pub fn finish(&mut self, mut set: AllowedSet) -> AllowedSet {
        if self.flushes() && set.flush_subnormals(&self.f) {
            self.note(Rule::FlushOutput);
        }
        set
    }

    pub fn flush_bits(&self, bits: u64) -> u64 {
        if self.flushes() && self.f.class(bits) == Class::Subnormal {
            self.f.assemble(self.f.fields(bits).sign, 0, 0)
        } else {
            bits
        }
    }

    pub fn qnan(&self) -> u64 {
        self.f.quiet_nan()
    }

    /// Allowed set of a basic step with the given tolerance, flushed as an output.
    pub fn shape(&mut self, basic: &Basic, tol: Ulps, tol_rule: Rule) -> Shaped {
        match basic {
            Basic::Nan(rule) => {
                self.note(*rule);
                Shaped {
                    set: AllowedSet::any_nan(),
                    preferred: self.qnan(),
                    governing: *rule,
                }
            }
            Basic::Exactly(v, rule) => {
                self.note(*rule);
                let bits = self.flush_bits(rne(&self.f, v));
                Shaped {
                    set: AllowedSet::single(&self.domain(), bits),
                    preferred: bits,
                    governing: *rule,
                }
            }
            Basic::Rounded(x) => {
                let pos = position_exact(&self.f, x);
                let set = self.tolerance_around(x, &pos, tol);
                Shaped {
                    preferred: self.flush_bits(rne(&self.f, x)),
                    set,
                    governing: tol_rule,
                }
            }
        }
    }

    /// The patterns within `tol` of `x`, its correct rounding included, output-flushed.
    pub fn tolerance_around(&mut self, x: &Number, pos: &Position, tol: Ulps) -> AllowedSet {
        let mut set = tolerance_set(&self.f, pos, tol);
        let nearest = rne(&self.f, x);
        if self.f.class(nearest) == Class::Infinity {
            self.note(Rule::Overflow);
        }
        set.add_bits(&self.domain(), nearest);
        self.finish(set)
    }

    pub fn add_basic(&self, a: &Number, b: &Number) -> Basic {
        use Number::*;
        match (a, b) {
            (Nan { .. }, _) | (_, Nan { .. }) => Basic::Nan(Rule::NanPropagates),
            (Infinity { neg: p }, Infinity { neg: q }) if p != q => Basic::Nan(Rule::InvalidNan),
            (Infinity { .. }, _) => Basic::Exactly(a.clone(), Rule::InfinityArithmetic),
            (_, Infinity { .. }) => Basic::Exactly(b.clone(), Rule::InfinityArithmetic),
            _ => {
                // §3.1.3.2: x ± 0 = x exactly, and -0 + 0 = +0.
                match (is_zero(a), is_zero(b)) {
                    (true, true) => Basic::Exactly(
                        Number::zero(a.is_negative() && b.is_negative()),
                        Rule::NegZeroPlusZero,
                    ),
                    (true, false) => Basic::Exactly(b.clone(), Rule::AddZeroIdentity),
                    (false, true) => Basic::Exactly(a.clone(), Rule::AddZeroIdentity),
                    _ => {
                        let x = numeric::add(a, b);
                        if is_zero(&x) {
                            Basic::Exactly(Number::zero(false), Rule::ExactCancellation)
                        } else {
                            Basic::Rounded(x)
                        }
                    }
                }
            }
        }
    }

    pub fn mul_basic(&self, a: &Number, b: &Number) -> Basic {
        use Number::*;
        let neg = a.is_negative() != b.is_negative();
        match (a, b) {
            (Nan { .. }, _) | (_, Nan { .. }) => Basic::Nan(Rule::NanPropagates),
            (Infinity { .. }, _) | (_, Infinity { .. }) => {
                if (a.is_nan() || matches!(a, Finite { .. }) && is_zero(a))
                    || (matches!(b, Finite { .. }) && is_zero(b))
                {
                    Basic::Nan(Rule::InvalidNan)
                } else {
                    Basic::Exactly(Infinity { neg }, Rule::InfinityArithmetic)
                }
            }
            _ => {
                if is_one(b) {
                    Basic::Exactly(signed(a, b.is_negative()), Rule::MulOneIdentity)
                } else if is_one(a) {
                    Basic::Exactly(signed(b, a.is_negative()), Rule::MulOneIdentity)
                } else if is_zero(a) || is_zero(b) {
                    Basic::Exactly(Number::zero(neg), Rule::ZeroOperand)
                } else {
                    Basic::Rounded(numeric::mul(a, b))
                }
            }
        }
    }

    /// Dispatches an instruction.
    pub fn run(
        &mut self,
        op: Op,
        args: &[Vec<OperandReport>],
        outs: &[(&'static str, Domain)],
    ) -> Vec<OutputReport> {
        self.note_operands(args);
        let v = |i: usize, c: usize| self.value(&args[i][c]);
        let one = |_: &mut Ctx, s: Shaped, exact: ExactResult| single_output(outs, s, exact);
        match op {
            Op::Add | Op::Sub => {
                let (a, mut b) = (v(0, 0), v(1, 0));
                if op == Op::Sub {
                    b = b.negate();
                }
                let basic = self.add_basic(&a, &b);
                let (tol, rule) = self.unfused();
                let exact = exact_of(&basic);
                let s = self.shape(&basic, tol, rule);
                one(self, s, exact)
            }
            Op::Mul => {
                let (a, b) = (v(0, 0), v(1, 0));
                let basic = self.mul_basic(&a, &b);
                let (tol, rule) = self.unfused();
                let exact = exact_of(&basic);
                let s = self.shape(&basic, tol, rule);
                one(self, s, exact)
            }
            Op::Div => {
                let (a, b) = (v(0, 0), v(1, 0));
                let (s, exact) = match (self.f.arithmetic, self.rules) {
                    (Arithmetic::Double, _) => self.ddiv(&args[0][0], &args[1][0]),
                    (Arithmetic::Float32, RuleSet::D3D10) => self.div_d3d10(&a, &b),
                    _ => self.div(&a, &b),
                };
                one(self, s, exact)
            }
            Op::Mad => {
                let (a, b, c) = (v(0, 0), v(1, 0), v(2, 0));
                let (s, exact) = self.fused(vec![(a, b)], Some(c));
                one(self, s, exact)
            }
            Op::Dp2 | Op::Dp3 | Op::Dp4 => {
                let pairs = (0..args[0].len()).map(|c| (v(0, c), v(1, c))).collect();
                let (s, exact) = self.fused(pairs, None);
                one(self, s, exact)
            }
            Op::Min | Op::Max | Op::Eq | Op::Ne | Op::Lt | Op::Ge | Op::Gt | Op::Le => {
                self.select(op, args, outs)
            }
            Op::Ftoi
            | Op::Ftou
            | Op::Itof
            | Op::Utof
            | Op::F16ToF32
            | Op::F32ToF16
            | Op::Dtof
            | Op::Ftod => self.convert(op, &args[0][0], outs),
            _ => self.function(op, &args[0][0], outs),
        }
    }

    /// Every pattern at least as close to `x` as the farthest finite member of `set`.
    pub fn at_least_as_close(&mut self, x: &Number, set: &AllowedSet) -> AllowedSet {
        let d = self.domain();
        let Some((lo_k, hi_k)) = set.finite_extremes(&d) else {
            return AllowedSet::empty();
        };
        let worst = [lo_k, hi_k]
            .iter()
            .map(|&k| numeric::distance(&self.f.value(d.bits(k)), x))
            .max()
            .expect("two extremes");
        if worst.is_zero() {
            let bits = self.flush_bits(rne(&self.f, x));
            return AllowedSet::single(&d, bits);
        }
        // A bound that reaches zero holds both zeros (interval_set).
        let lo = numeric::add(x, &Number::finite(true, worst.clone()));
        let hi = numeric::add(x, &Number::finite(false, worst));
        let set = numeric::interval_set(&self.f, &lo, &hi);
        self.finish(set)
    }

    /// The lowest and highest member of a set and any zeros, as values (monotone steps
    /// reach their extremes from these), plus NaN when allowed.
    pub fn members(&self, set: &AllowedSet) -> Vec<Number> {
        let d = self.domain();
        let mut out = Vec::new();
        if let Some((lo, hi)) = set.extremes() {
            out.push(self.f.value(d.bits(lo)));
            if hi != lo {
                out.push(self.f.value(d.bits(hi)));
            }
            for z in [-1, 0] {
                if z != lo && z != hi && set.contains_key(z) {
                    out.push(self.f.value(d.bits(z)));
                }
            }
        }
        if set.nan {
            out.push(Number::QUIET_NAN);
        }
        out
    }
}

/// §3.1.3.1 (0.5 ULP) and the D3D10 page (1 ULP, truncation allowed) for 32-bit; §3.1.5
/// for float16 and §3.1.4 for double, both round to nearest even.
pub fn unfused_tolerance(a: Arithmetic, rules: RuleSet) -> (Ulps, Rule) {
    match (a, rules) {
        (Arithmetic::Float16, _) => (Ulps::HalfEven, Rule::F16HalfUlp),
        (Arithmetic::Double, _) => (Ulps::HalfEven, Rule::F64Ieee),
        (_, RuleSet::D3D10) => (Ulps::Faithful, Rule::D3D10OneUlp),
        _ => (Ulps::Half, Rule::HalfUlp),
    }
}

/// Both pages give each step of a fused operation's unfused expansion 1 ULP (read as the
/// D3D10 page reads 1 ULP: truncation conforms); §3.1.3.2 says 0.5 ULP, which 1 ULP
/// contains, so the union is 1 ULP under either rule set. Float16 replaces that 1 ULP with
/// 0.6 ULP (§3.1.5).
pub fn fused_step_tolerance(a: Arithmetic) -> (Ulps, Rule) {
    match a {
        Arithmetic::Float16 => (Ulps::SixTenths, Rule::F16FusedStep),
        _ => (Ulps::Faithful, Rule::FusedStepOneUlp),
    }
}

/// rcp and the reciprocal of a two-step divide: 1 ULP for 32-bit (§3.1.3.2), tightened to
/// float16's correct rounding (§3.1.5).
pub fn reciprocal_tolerance(a: Arithmetic) -> Ulps {
    match a {
        Arithmetic::Float16 => Ulps::HalfEven,
        _ => Ulps::One,
    }
}

pub fn single_output(
    outs: &[(&'static str, Domain)],
    s: Shaped,
    exact: ExactResult,
) -> Vec<OutputReport> {
    vec![OutputReport {
        name: outs[0].0,
        domain: outs[0].1,
        exact,
        preferred: s.preferred,
        allowed: s.set,
        governing: s.governing,
    }]
}

pub fn exact_of(basic: &Basic) -> ExactResult {
    match basic {
        Basic::Nan(_) => ExactResult::Nan,
        Basic::Exactly(v, _) | Basic::Rounded(v) => ExactResult::Value(v.clone()),
    }
}

pub(super) fn is_one(x: &Number) -> bool {
    matches!(x, Number::Finite { mag, .. } if *mag == Ratio::from_integer(1u32))
}

pub(super) fn is_zero_num(x: &Number) -> bool {
    matches!(x, Number::Finite { .. }) && is_zero(x)
}

pub(super) fn signed(x: &Number, flip: bool) -> Number {
    if flip { x.negate() } else { x.clone() }
}
