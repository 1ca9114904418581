//! The values a step of arithmetic works on, as one small trait with two implementations:
//! exact rationals ([`Number`], the reference, any format) and `f64` (the fast path of
//! batch checking, f32 and f16 only). The rules of every step (the identities, the
//! NaN/infinity/zero cases, the tolerances, the overflow leeway of fused intermediates, the
//! serial orders of a fused operation, the two-step divide) are written once over this
//! trait, in `arith.rs`, `fused.rs` and `divide.rs`.
//!
//! The `f64` implementation is exact or silent: every f32/f16 value, every product of two
//! and every grid point and midpoint of those formats is an `f64`, so a step result is known
//! as `hi` plus an error whose sign is exact (TwoSum for sums, an FMA remainder for
//! quotients). Where an exact quantity does not fit (an extra-range intermediate needing
//! more than one double, the 0.6 ULP fraction of an inexact sum), an operation answers
//! `None` and the caller gives the whole evaluation to the exact path.

use std::cmp::Ordering;

use super::ExactResult;
use super::allowed::Domain;
use super::numeric::{self, Position, nearest_of_position, position_exact, position_f64, rne};
use crate::exact::{Number, Ratio};
use crate::format::{FloatFormat, RoundOptions, Rounding, round_f64, round_number};

/// What a step operand is, as far as the special cases of a step care.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Nan,
    Infinite { neg: bool },
    Zero { neg: bool },
    Finite { neg: bool },
}

/// The exact result of a fused sum of products.
pub enum FusedExact<X> {
    Nan,
    Infinite(bool),
    Finite(X),
}

/// A value a step reads and hands on. `Exact` is a step's exact finite result, which need
/// not be a value of `Self` (an exact quotient is not an `f64`).
pub trait StepValue: Clone {
    type Exact;

    fn kind(&self) -> Kind;
    fn nan() -> Self;
    fn zero(neg: bool) -> Self;
    fn infinity(neg: bool) -> Self;
    fn one() -> Self;
    /// `|x| == 1`.
    fn unit(&self) -> bool;
    fn flip(&self) -> Self;
    /// The same value, the two zeros told apart, every NaN one.
    fn same(&self, other: &Self) -> bool;
    /// Signed order of two finite values (the zeros equal).
    fn order(&self, other: &Self) -> Ordering;
    /// The value of a pattern of the working format.
    fn of_bits(f: &FloatFormat, bits: u64) -> Self;
    /// The pattern of a value the format represents (zero, infinity, an identity's
    /// operand).
    fn pattern(&self, f: &FloatFormat) -> u64;
    /// `floor(x)` of a finite value.
    fn floor_of(&self) -> Self;
    /// Exact `a + b`, `a * b`, `a / b` of finite values (`b` nonzero).
    fn sum(a: &Self, b: &Self) -> Option<Self::Exact>;
    fn product(a: &Self, b: &Self) -> Option<Self::Exact>;
    fn quotient(a: &Self, b: &Self) -> Option<Self::Exact>;
    fn exact_is_zero(x: &Self::Exact) -> bool;
    /// The exact result as a value, where it is one (`None`: undecided).
    fn exact_value(x: &Self::Exact) -> Option<Self>;
    /// Where the exact result sits on the format's grid.
    fn position(f: &FloatFormat, x: &Self::Exact) -> Position;
    /// Its correct rounding (ties to even), given its position.
    fn nearest(f: &FloatFormat, x: &Self::Exact, pos: &Position) -> u64;
    /// `|x|` against `|m|`.
    fn cmp_mag(x: &Self::Exact, m: &Self) -> Ordering;
    /// The sign of `(a + b) / 2 - x`.
    fn cmp_mid(a: &Self, b: &Self, x: &Self::Exact) -> Option<Ordering>;
    /// The key of the pattern nearest `2x - far` on the side toward `x`: the first at or
    /// above it when `lower`, else the last at or below it (`far_key` is `far`'s key).
    fn reflect_key(
        f: &FloatFormat,
        x: &Self::Exact,
        far: &Self,
        far_key: i64,
        lower: bool,
    ) -> Option<i64>;
    fn exact_result(x: &Self::Exact) -> ExactResult;
    fn value_report(&self) -> ExactResult;
    /// The exact `sum(a_i * b_i) + c`.
    fn fused_exact(
        pairs: &[(Self, Self)],
        addend: Option<&Self>,
    ) -> Option<FusedExact<Self::Exact>>;

    fn is_nan(&self) -> bool {
        self.kind() == Kind::Nan
    }
    fn is_zero(&self) -> bool {
        matches!(self.kind(), Kind::Zero { .. })
    }
    fn is_finite_nonzero(&self) -> bool {
        matches!(self.kind(), Kind::Finite { .. })
    }
    fn is_neg(&self) -> bool {
        match self.kind() {
            Kind::Nan => false,
            Kind::Infinite { neg } | Kind::Zero { neg } | Kind::Finite { neg } => neg,
        }
    }
}

// ----- exact rationals -----

impl StepValue for Number {
    type Exact = Number;

    fn kind(&self) -> Kind {
        match self {
            Number::Nan { .. } => Kind::Nan,
            Number::Infinity { neg } => Kind::Infinite { neg: *neg },
            Number::Finite { neg, mag } if mag.is_zero() => Kind::Zero { neg: *neg },
            Number::Finite { neg, .. } => Kind::Finite { neg: *neg },
        }
    }
    fn nan() -> Self {
        Number::QUIET_NAN
    }
    fn zero(neg: bool) -> Self {
        Number::zero(neg)
    }
    fn infinity(neg: bool) -> Self {
        Number::Infinity { neg }
    }
    fn one() -> Self {
        Number::finite(false, Ratio::from_integer(1u32))
    }
    fn unit(&self) -> bool {
        matches!(self, Number::Finite { mag, .. } if *mag == Ratio::from_integer(1u32))
    }
    fn flip(&self) -> Self {
        self.negate()
    }
    fn same(&self, other: &Self) -> bool {
        self == other || (self.is_nan() && other.is_nan())
    }
    fn order(&self, other: &Self) -> Ordering {
        numeric::cmp(self, other)
    }
    fn of_bits(f: &FloatFormat, bits: u64) -> Self {
        f.value(bits)
    }
    fn pattern(&self, f: &FloatFormat) -> u64 {
        rne(f, self)
    }
    fn floor_of(&self) -> Self {
        let (fl, ce) = numeric::mag(self).floor_ceil();
        // floor(x) for negative x is -ceil(|x|).
        if self.is_negative() {
            Number::finite(true, Ratio::from_integer(ce))
        } else {
            Number::finite(false, Ratio::from_integer(fl))
        }
    }
    fn sum(a: &Self, b: &Self) -> Option<Number> {
        Some(numeric::add(a, b))
    }
    fn product(a: &Self, b: &Self) -> Option<Number> {
        Some(numeric::mul(a, b))
    }
    fn quotient(a: &Self, b: &Self) -> Option<Number> {
        Some(numeric::div(a, b))
    }
    fn exact_is_zero(x: &Number) -> bool {
        numeric::is_zero(x)
    }
    fn exact_value(x: &Number) -> Option<Self> {
        Some(x.clone())
    }
    fn position(f: &FloatFormat, x: &Number) -> Position {
        position_exact(f, x)
    }
    fn nearest(f: &FloatFormat, x: &Number, _: &Position) -> u64 {
        rne(f, x)
    }
    fn cmp_mag(x: &Number, m: &Self) -> Ordering {
        numeric::mag(x).cmp(numeric::mag(m))
    }
    fn cmp_mid(a: &Self, b: &Self, x: &Number) -> Option<Ordering> {
        Some(numeric::cmp(&numeric::add(a, b), &numeric::add(x, x)))
    }
    fn reflect_key(f: &FloatFormat, x: &Number, far: &Self, _: i64, lower: bool) -> Option<i64> {
        let bound = numeric::add(&numeric::add(x, x), &far.negate());
        let dir = if lower {
            Rounding::TowardPositive
        } else {
            Rounding::TowardNegative
        };
        Domain::Float(*f).key(round_number(f, &bound, RoundOptions::new(dir)).bits)
    }
    fn exact_result(x: &Number) -> ExactResult {
        ExactResult::Value(x.clone())
    }
    fn value_report(&self) -> ExactResult {
        ExactResult::Value(self.clone())
    }
    fn fused_exact(pairs: &[(Self, Self)], addend: Option<&Self>) -> Option<FusedExact<Number>> {
        let finite = pairs
            .iter()
            .flat_map(|(a, b)| [a, b])
            .chain(addend)
            .all(|v| matches!(v, Number::Finite { .. }));
        if finite {
            let mut sum = Number::zero(false);
            let mut all_negative_zeros = true;
            let terms = pairs
                .iter()
                .map(|(a, b)| numeric::mul(a, b))
                .chain(addend.cloned());
            for t in terms {
                all_negative_zeros &= numeric::is_zero(&t) && t.is_negative();
                sum = numeric::add(&sum, &t);
            }
            // IEEE 754 (§6.3): an exact zero sum is -0 only when every term is -0.
            if numeric::is_zero(&sum) {
                sum = Number::zero(all_negative_zeros);
            }
            return Some(FusedExact::Finite(sum));
        }
        // Some operand is infinite: only signs and zero-ness matter (inf * 0 and inf - inf
        // are NaN, IEEE 754 §7.2), which ±1/±0/±inf in f64 keep.
        let class = |x: &Number| match x.kind() {
            Kind::Infinite { neg } => f64::INFINITY.copysign(if neg { -1.0 } else { 1.0 }),
            Kind::Zero { .. } => 0.0,
            Kind::Nan => f64::NAN,
            Kind::Finite { neg } => {
                if neg {
                    -1.0
                } else {
                    1.0
                }
            }
        };
        let mut sum = 0.0f64;
        for (a, b) in pairs {
            sum += class(a) * class(b);
        }
        if let Some(c) = addend {
            sum += class(c);
        }
        Some(if sum.is_infinite() {
            FusedExact::Infinite(sum < 0.0)
        } else {
            FusedExact::Nan
        })
    }
}

// ----- f64 (f32 and f16 operands) -----

/// Exact `a + b = s + err` (Knuth's TwoSum).
pub(crate) fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let err = (a - (s - bb)) + (b - bb);
    (s, err)
}

pub(super) fn sign(x: f64) -> Ordering {
    if x > 0.0 {
        Ordering::Greater
    } else if x < 0.0 {
        Ordering::Less
    } else {
        Ordering::Equal
    }
}

/// A sign multiplied by the sign of a factor.
pub(super) fn times(s: Ordering, neg: bool) -> Ordering {
    if neg { s.reverse() } else { s }
}

/// An exact step result on the fast path: `hi + lo` exactly, or the quotient `a / b`,
/// rounded to `q` with the exact sign `err` of `a/b - q`.
#[derive(Clone, Copy, Debug)]
pub enum Near {
    Sum(f64, f64),
    Quotient {
        a: f64,
        b: f64,
        q: f64,
        err: Ordering,
    },
}

impl Near {
    /// `1 / b` (the reciprocal step of a two-step divide, rcp).
    pub fn reciprocal(b: f64) -> Near {
        let q = 1.0 / b;
        let rem = (-q).mul_add(b, 1.0);
        Near::Quotient {
            a: 1.0,
            b,
            q,
            err: times(sign(rem), b < 0.0),
        }
    }

    pub fn hi(&self) -> f64 {
        match *self {
            Near::Sum(hi, _) => hi,
            Near::Quotient { q, .. } => q,
        }
    }

    fn err(&self) -> Ordering {
        match *self {
            Near::Sum(_, lo) => sign(lo),
            Near::Quotient { err, .. } => err,
        }
    }
}

/// Most grid steps a boundary search may take before it leaves the answer to the exact path.
const STEP_LIMIT: usize = 64;

impl StepValue for f64 {
    type Exact = Near;

    fn kind(&self) -> Kind {
        let neg = self.is_sign_negative();
        if f64::is_nan(*self) {
            Kind::Nan
        } else if self.is_infinite() {
            Kind::Infinite { neg }
        } else if *self == 0.0 {
            Kind::Zero { neg }
        } else {
            Kind::Finite { neg }
        }
    }
    fn nan() -> Self {
        f64::NAN
    }
    fn zero(neg: bool) -> Self {
        if neg { -0.0 } else { 0.0 }
    }
    fn infinity(neg: bool) -> Self {
        if neg {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        }
    }
    fn one() -> Self {
        1.0
    }
    fn unit(&self) -> bool {
        self.abs() == 1.0
    }
    fn flip(&self) -> Self {
        -*self
    }
    fn same(&self, other: &Self) -> bool {
        self.to_bits() == other.to_bits() || (f64::is_nan(*self) && f64::is_nan(*other))
    }
    fn order(&self, other: &Self) -> Ordering {
        self.partial_cmp(other).expect("finite")
    }
    fn of_bits(f: &FloatFormat, bits: u64) -> Self {
        numeric::value_f64(f, bits)
    }
    fn pattern(&self, f: &FloatFormat) -> u64 {
        match self.kind() {
            Kind::Nan => f.quiet_nan(),
            Kind::Infinite { neg } => f.infinity(neg),
            _ => nearest_of_position(f, &position_f64(f, *self, Ordering::Equal)),
        }
    }
    fn floor_of(&self) -> Self {
        self.floor()
    }
    fn sum(a: &Self, b: &Self) -> Option<Near> {
        let (hi, lo) = two_sum(*a, *b);
        hi.is_finite().then_some(Near::Sum(hi, lo))
    }
    fn product(a: &Self, b: &Self) -> Option<Near> {
        // Products of two f32/f16 values (and of the values steps hand on) are exact in
        // f64; anything else is left to the exact path.
        let p = a * b;
        (p.is_finite() && a.mul_add(*b, -p) == 0.0).then_some(Near::Sum(p, 0.0))
    }
    fn quotient(a: &Self, b: &Self) -> Option<Near> {
        let q = a / b;
        // The FMA remainder a - q*b is exact while nothing underflows.
        if !q.is_normal() || a.abs() < 2f64.powi(-900) {
            return None;
        }
        let rem = (-q).mul_add(*b, *a);
        Some(Near::Quotient {
            a: *a,
            b: *b,
            q,
            err: times(sign(rem), *b < 0.0),
        })
    }
    fn exact_is_zero(x: &Near) -> bool {
        x.hi() == 0.0
    }
    fn exact_value(x: &Near) -> Option<Self> {
        (x.err() == Ordering::Equal).then(|| x.hi())
    }
    fn position(f: &FloatFormat, x: &Near) -> Position {
        position_f64(f, x.hi(), x.err())
    }
    fn nearest(f: &FloatFormat, _: &Near, pos: &Position) -> u64 {
        nearest_of_position(f, pos)
    }
    fn cmp_mag(x: &Near, m: &Self) -> Ordering {
        let (h, m) = (x.hi().abs(), m.abs());
        if h != m {
            h.partial_cmp(&m).expect("finite")
        } else {
            times(x.err(), x.hi() < 0.0)
        }
    }
    fn cmp_mid(a: &Self, b: &Self, x: &Near) -> Option<Ordering> {
        let (s, e) = two_sum(*a, *b);
        if e != 0.0 || !s.is_finite() {
            return None;
        }
        let m = s / 2.0;
        match *x {
            Near::Sum(hi, lo) => {
                let (t, e) = two_sum(m, -hi);
                (e == 0.0).then(|| t.partial_cmp(&lo).expect("finite"))
            }
            // sign(m - a/b) = sign(m*b - a) * sign(b); the FMA rounds once, keeping it.
            Near::Quotient { a, b, .. } => Some(times(sign(m.mul_add(b, -a)), b < 0.0)),
        }
    }
    fn reflect_key(
        f: &FloatFormat,
        x: &Near,
        far: &Self,
        far_key: i64,
        lower: bool,
    ) -> Option<i64> {
        // A search from an f64 estimate of 2x - far, each step decided by `cmp_mid`.
        let d = Domain::Float(*f);
        let toward = if lower {
            Ordering::Less
        } else {
            Ordering::Greater
        };
        let inside = |k: i64| -> Option<bool> {
            let y = numeric::value_f64(f, d.bits(k));
            Some(f64::cmp_mid(&y, far, x)? != toward)
        };
        let (dir, step, end) = if lower {
            let bottom = d.key(f.infinity(true))?;
            (Rounding::TowardPositive, -1i64, bottom)
        } else {
            let top = d.key(f.infinity(false))?;
            (Rounding::TowardNegative, 1i64, top)
        };
        let start = round_f64(f, 2.0 * x.hi() - far, RoundOptions::new(dir)).bits;
        let start = d.key(start)?;
        let mut k = if lower {
            start.min(far_key)
        } else {
            start.max(far_key)
        };
        let mut n = 0;
        while k != end && inside(k + step)? {
            k += step;
            n += 1;
            if n > STEP_LIMIT {
                return None;
            }
        }
        while !inside(k)? {
            k -= step;
            n += 1;
            if n > STEP_LIMIT {
                return None;
            }
        }
        Some(k)
    }
    fn exact_result(x: &Near) -> ExactResult {
        match *x {
            Near::Sum(hi, lo) => ExactResult::Sum(hi, lo),
            Near::Quotient { a, b, .. } => ExactResult::Quotient(a, b),
        }
    }
    fn value_report(&self) -> ExactResult {
        match self.kind() {
            Kind::Infinite { neg } => ExactResult::Value(Number::Infinity { neg }),
            _ => ExactResult::Sum(*self, 0.0),
        }
    }
    fn fused_exact(pairs: &[(Self, Self)], addend: Option<&Self>) -> Option<FusedExact<Near>> {
        // Products are exact; the sum must fit two doubles, and a zero sum (whose sign has
        // its own rule) or an infinite operand goes to the exact path.
        let mut all = pairs.iter().flat_map(|(a, b)| [a, b]).chain(addend);
        if !all.all(|v| v.is_finite()) {
            return None;
        }
        let (mut hi, mut lo) = (0.0f64, 0.0f64);
        for v in pairs.iter().map(|(a, b)| a * b).chain(addend.copied()) {
            let (s, e) = two_sum(hi, v);
            let (t, e2) = two_sum(lo, e);
            if e2 != 0.0 {
                return None;
            }
            (hi, lo) = two_sum(s, t);
        }
        (hi != 0.0).then_some(FusedExact::Finite(Near::Sum(hi, lo)))
    }
}
