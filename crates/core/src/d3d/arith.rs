//! The evaluation context, the dispatch of instructions, add/sub/mul (the basic steps every
//! other instruction is built from), and the tolerance of each kind of step, written once
//! for both the exact and the fast path. Divide is in `divide.rs`, the fused operations in
//! `fused.rs`, the one-operand functions in `functions.rs`.

use super::RuleList;
use super::allowed::{AllowedSet, Domain};
use std::cmp::Ordering;

use super::numeric::value_f64;
use super::numeric::{Position, tolerance_set};
use super::rules::{Rule, RuleSet, Ulps, denorm_rule};
use super::step::{Kind, StepValue};
use super::{ExactResult, Op, OperandReading, OutputResult};
use crate::exact::Number;
use crate::format::{Arithmetic, Class, FloatFormat};

/// The state of one evaluation: the working format, the rule set and the rules used.
pub struct Ctx {
    pub f: FloatFormat,
    pub rules: RuleSet,
    pub notes: RuleList,
}

/// What a basic (unfused) step gives before any tolerance, over either kind of value.
pub enum Basic<V: StepValue> {
    /// Any NaN, because of this rule.
    Nan(Rule),
    /// Exactly this representable value (an identity, an infinity, a zero).
    Exactly(V, Rule),
    /// The exact finite result, to be rounded within the step's tolerance.
    Rounded(V::Exact),
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
            notes: RuleList::new(),
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
    pub fn value(&self, r: &OperandReading) -> Number {
        match r.domain {
            Domain::Float(f) => f.value(r.flushed_to.unwrap_or(r.bits)),
            _ => unreachable!("float operand expected"),
        }
    }

    /// The operand's value after the input flush, as an `f64` (exact for every format).
    pub fn fv(&self, r: &OperandReading) -> f64 {
        match r.domain {
            Domain::Float(f) => value_f64(&f, r.flushed_to.unwrap_or(r.bits)),
            _ => unreachable!("float operand expected"),
        }
    }

    /// Notes how the operands were read (flushed or kept denorms).
    pub fn note_operands(&mut self, args: &[Vec<OperandReading>]) {
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

    /// The pattern of 1.0.
    pub fn one_bits(&self) -> u64 {
        crate::format::round_f64(
            &self.f,
            1.0,
            crate::format::RoundOptions::new(crate::format::Rounding::NearestEven),
        )
        .bits
    }

    pub fn qnan(&self) -> u64 {
        self.f.quiet_nan()
    }

    /// Allowed set of a basic step with the given tolerance, flushed as an output
    /// (`None`: the fast path cannot decide it).
    pub fn shape<V: StepValue>(
        &mut self,
        basic: &Basic<V>,
        tol: Ulps,
        tol_rule: Rule,
    ) -> Option<Shaped> {
        Some(match basic {
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
                let bits = self.flush_bits(v.pattern(&self.f));
                Shaped {
                    set: AllowedSet::single(&self.domain(), bits),
                    preferred: bits,
                    governing: *rule,
                }
            }
            Basic::Rounded(x) => {
                let (set, nearest) = self.tolerance_around::<V>(x, tol)?;
                Shaped {
                    preferred: self.flush_bits(nearest),
                    set,
                    governing: tol_rule,
                }
            }
        })
    }

    /// The patterns within `tol` of the exact `x`, its correct rounding included,
    /// output-flushed; also that (unflushed) rounding. `None` when the fast path knows too
    /// little of `x` for this tolerance.
    pub fn tolerance_around<V: StepValue>(
        &mut self,
        x: &V::Exact,
        tol: Ulps,
    ) -> Option<(AllowedSet, u64)> {
        let pos = V::position(&self.f, x);
        if !pos.decides(tol) {
            return None;
        }
        let nearest = V::nearest(&self.f, x, &pos);
        Some((self.tolerance_at(&pos, nearest, tol), nearest))
    }

    /// The patterns within `tol` of a position, with its nearest pattern, output-flushed;
    /// a nearest that overflows is noted.
    pub fn tolerance_at(&mut self, pos: &Position, nearest: u64, tol: Ulps) -> AllowedSet {
        let mut set = tolerance_set(&self.f, pos, tol);
        if self.f.class(nearest) == Class::Infinity {
            self.note(Rule::Overflow);
        }
        set.add_bits(&self.domain(), nearest);
        self.finish(set)
    }

    /// add and sub (§3.1.3.2, IEEE 754 §6.1, §6.3): NaN in, NaN out; inf - inf is invalid;
    /// an infinity otherwise wins; x ± 0 = x exactly and -0 + -0 = -0, other zero sums +0;
    /// an exact cancellation is +0; anything else is rounded.
    pub fn add_basic<V: StepValue>(&self, a: &V, b: &V) -> Option<Basic<V>> {
        use Kind::*;
        Some(match (a.kind(), b.kind()) {
            (Nan, _) | (_, Nan) => Basic::Nan(Rule::NanPropagates),
            (Infinite { neg: p }, Infinite { neg: q }) if p != q => Basic::Nan(Rule::InvalidNan),
            (Infinite { .. }, _) => Basic::Exactly(a.clone(), Rule::InfinityArithmetic),
            (_, Infinite { .. }) => Basic::Exactly(b.clone(), Rule::InfinityArithmetic),
            (Zero { neg: p }, Zero { neg: q }) => {
                Basic::Exactly(V::zero(p && q), Rule::NegZeroPlusZero)
            }
            (Zero { .. }, _) => Basic::Exactly(b.clone(), Rule::AddZeroIdentity),
            (_, Zero { .. }) => Basic::Exactly(a.clone(), Rule::AddZeroIdentity),
            _ => {
                let x = V::sum(a, b)?;
                if V::exact_is_zero(&x) {
                    Basic::Exactly(V::zero(false), Rule::ExactCancellation)
                } else {
                    Basic::Rounded(x)
                }
            }
        })
    }

    /// mul (§3.1.3.2, IEEE 754 §7.2): NaN in, NaN out; inf * 0 is invalid; an infinity
    /// otherwise wins; x * ±1 = ±x exactly; a zero factor gives a zero of the product's
    /// sign; anything else is rounded.
    pub fn mul_basic<V: StepValue>(&self, a: &V, b: &V) -> Option<Basic<V>> {
        use Kind::*;
        let neg = a.is_neg() != b.is_neg();
        Some(match (a.kind(), b.kind()) {
            (Nan, _) | (_, Nan) => Basic::Nan(Rule::NanPropagates),
            (Infinite { .. }, Zero { .. }) | (Zero { .. }, Infinite { .. }) => {
                Basic::Nan(Rule::InvalidNan)
            }
            (Infinite { .. }, _) | (_, Infinite { .. }) => {
                Basic::Exactly(V::infinity(neg), Rule::InfinityArithmetic)
            }
            _ if b.unit() => Basic::Exactly(signed(a, b.is_neg()), Rule::MulOneIdentity),
            _ if a.unit() => Basic::Exactly(signed(b, a.is_neg()), Rule::MulOneIdentity),
            (Zero { .. }, _) | (_, Zero { .. }) => Basic::Exactly(V::zero(neg), Rule::ZeroOperand),
            _ => Basic::Rounded(V::product(a, b)?),
        })
    }

    /// add, sub and mul, held to the unfused tolerance.
    pub fn unfused_op<V: StepValue>(&mut self, basic: Basic<V>) -> Option<(Shaped, ExactResult)> {
        let (tol, rule) = self.unfused();
        let exact = exact_of(&basic);
        Some((self.shape(&basic, tol, rule)?, exact))
    }

    /// Dispatches an instruction.
    pub fn run(
        &mut self,
        op: Op,
        args: &[Vec<OperandReading>],
        outs: &[(&'static str, Domain)],
    ) -> Vec<OutputResult> {
        self.note_operands(args);
        let v = |i: usize, c: usize| self.value(&args[i][c]);
        let one = |_: &mut Ctx, s: Shaped, exact: ExactResult| single_output(outs, s, exact);
        match op {
            Op::Add | Op::Sub | Op::Mul => {
                let (a, mut b) = (v(0, 0), v(1, 0));
                let basic = match op {
                    Op::Mul => self.mul_basic(&a, &b),
                    _ => {
                        if op == Op::Sub {
                            b = b.negate();
                        }
                        self.add_basic(&a, &b)
                    }
                };
                let (s, exact) = self.unfused_op(basic.expect(EXACT)).expect(EXACT);
                one(self, s, exact)
            }
            Op::Div => {
                let (a, b) = (v(0, 0), v(1, 0));
                let (s, exact) = match (self.f.arithmetic, self.rules) {
                    (Arithmetic::Double, _) => self.ddiv(&args[0][0], &args[1][0]),
                    (Arithmetic::Float32, RuleSet::D3D10) => self.div_d3d10(&a, &b).expect(EXACT),
                    _ => self.div(&a, &b).expect(EXACT),
                };
                one(self, s, exact)
            }
            Op::Mad => {
                let (a, b, c) = (v(0, 0), v(1, 0), v(2, 0));
                let double = self.f.arithmetic == Arithmetic::Double;
                let (s, exact) = if double && ![&a, &b, &c].iter().any(|x| x.is_nan()) {
                    self.dfma(&(a, b), &c)
                } else {
                    self.fused(&[(a, b)], Some(&c)).expect(EXACT)
                };
                one(self, s, exact)
            }
            Op::Dp2 | Op::Dp3 | Op::Dp4 => {
                let pairs: Vec<_> = (0..args[0].len()).map(|c| (v(0, c), v(1, c))).collect();
                let (s, exact) = self.fused(&pairs, None).expect(EXACT);
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

    /// Every pattern at least as close to the exact `x` as the farthest finite member of
    /// `set` (the worst serial order of a fused operation, the worst reciprocal of a
    /// two-step divide): the patterns between that member and its mirror image in `x`.
    /// A bound that reaches zero holds both zeros; a bound that is one exact zero keeps
    /// its sign.
    pub fn at_least_as_close<V: StepValue>(
        &mut self,
        x: &V::Exact,
        set: &AllowedSet,
    ) -> Option<AllowedSet> {
        let d = self.domain();
        let Some((lo_k, hi_k)) = set.finite_extremes(&d) else {
            return Some(AllowedSet::empty());
        };
        let (ls, hs) = (
            V::of_bits(&self.f, d.bits(lo_k)),
            V::of_bits(&self.f, d.bits(hi_k)),
        );
        let mut out = AllowedSet::empty();
        match V::cmp_mid(&ls, &hs, x)? {
            Ordering::Equal if lo_k == hi_k => {
                // The one member is x itself (its rounding keeps x's zero sign).
                let bits = self.flush_bits(V::nearest(&self.f, x, &V::position(&self.f, x)));
                return Some(AllowedSet::single(&d, bits));
            }
            Ordering::Equal => out.add_key_range(lo_k, hi_k),
            // The highest member is the farthest.
            Ordering::Greater => {
                let k = V::reflect_key(&self.f, x, &hs, hi_k, true)?;
                out.add_key_range(k, hi_k);
            }
            Ordering::Less => {
                let k = V::reflect_key(&self.f, x, &ls, lo_k, false)?;
                out.add_key_range(lo_k, k);
            }
        }
        if out.contains_key(-1) || out.contains_key(0) {
            out.add_key_range(-1, 0);
        }
        Some(self.finish(out))
    }

    /// The lowest and highest member of a set and any zeros, as values (monotone steps
    /// reach their extremes from these), plus NaN when allowed.
    pub fn members<V: StepValue>(&self, set: &AllowedSet) -> Vec<V> {
        let d = self.domain();
        let mut out = Vec::new();
        if let Some((lo, hi)) = set.extremes() {
            out.push(V::of_bits(&self.f, d.bits(lo)));
            if hi != lo {
                out.push(V::of_bits(&self.f, d.bits(hi)));
            }
            for z in [-1, 0] {
                if z != lo && z != hi && set.contains_key(z) {
                    out.push(V::of_bits(&self.f, d.bits(z)));
                }
            }
        }
        if set.nan {
            out.push(V::nan());
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
) -> Vec<OutputResult> {
    vec![OutputResult {
        name: outs[0].0,
        domain: outs[0].1,
        exact,
        preferred: s.preferred,
        allowed: s.set,
        governing: s.governing,
    }]
}

pub fn exact_of<V: StepValue>(basic: &Basic<V>) -> ExactResult {
    match basic {
        Basic::Nan(_) => ExactResult::Nan,
        Basic::Exactly(v, _) => v.value_report(),
        Basic::Rounded(x) => V::exact_result(x),
    }
}

/// `x` with its sign flipped when `flip`.
pub(super) fn signed<V: StepValue>(x: &V, flip: bool) -> V {
    if flip { x.flip() } else { x.clone() }
}

/// The exact path decides every step.
pub(super) const EXACT: &str = "exact arithmetic decides every step";
