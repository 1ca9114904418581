//! Exact signed arithmetic on finite values, where an exact value sits between a format's
//! representable neighbours, and the allowed sets that tolerances and intervals give.
//!
//! Two ways in: [`position_exact`] from an exact rational (any format, the reference), and
//! [`position_f64`] from an `f64` plus the sign of what it misses (f32 and f16 only, the
//! fast path of batch checking; both grids and all their midpoints are `f64` values, so the
//! comparisons it makes are exact). Tests hold the two against each other.

use std::cmp::Ordering;

use crate::d3d::allowed::{AllowedSet, key_of_ordinal};
use crate::d3d::rules::Ulps;
use crate::exact::{Number, Ratio, signed_add};
use crate::format::{Arithmetic, FloatFormat, RoundOptions, Rounding, round_f64, round_number};

// ----- exact signed arithmetic on finite numbers -----

/// The magnitude of a finite number; panics on infinity or NaN.
pub fn mag(x: &Number) -> &Ratio {
    match x {
        Number::Finite { mag, .. } => mag,
        _ => panic!("finite value expected"),
    }
}

/// Whether a number is a zero of either sign.
pub fn is_zero(x: &Number) -> bool {
    matches!(x, Number::Finite { mag, .. } if mag.is_zero())
}

/// The exact sum of two finite numbers.
pub fn add(a: &Number, b: &Number) -> Number {
    let (neg, m) = signed_add(a.is_negative(), mag(a), b.is_negative(), mag(b));
    Number::finite(neg, m)
}

/// The exact product of two finite numbers.
pub fn mul(a: &Number, b: &Number) -> Number {
    Number::finite(a.is_negative() != b.is_negative(), mag(a).mul(mag(b)))
}

/// The exact quotient of two finite numbers; the divisor must be nonzero.
pub fn div(a: &Number, b: &Number) -> Number {
    Number::finite(a.is_negative() != b.is_negative(), mag(a).div(mag(b)))
}

/// Signed comparison of two finite numbers (the two zeros are equal).
pub fn cmp(a: &Number, b: &Number) -> Ordering {
    let (za, zb) = (is_zero(a), is_zero(b));
    let sa = if za {
        0
    } else if a.is_negative() {
        -1
    } else {
        1
    };
    let sb = if zb {
        0
    } else if b.is_negative() {
        -1
    } else {
        1
    };
    if sa != sb {
        return sa.cmp(&sb);
    }
    match sa {
        0 => Ordering::Equal,
        1 => mag(a).cmp(mag(b)),
        _ => mag(b).cmp(mag(a)),
    }
}

/// `|a - b|` for finite numbers.
pub fn distance(a: &Number, b: &Number) -> Ratio {
    mag(&add(a, &b.negate())).clone()
}

/// A finite `f64` as an exact number.
pub fn from_f64(x: f64) -> Number {
    crate::format::F64.value(x.to_bits())
}

/// The pattern of `f` nearest `x`, ties to even: the correctly rounded result.
pub fn rne(f: &FloatFormat, x: &Number) -> u64 {
    round_number(f, x, RoundOptions::new(Rounding::NearestEven)).bits
}

pub use crate::format::pow2::pow2;

/// A pattern's value as an `f64` (exact for every format here), without a libm call.
pub fn value_f64(f: &FloatFormat, bits: u64) -> f64 {
    match f.arithmetic {
        Arithmetic::Float32 => f32::from_bits(bits as u32) as f64,
        Arithmetic::Double => f64::from_bits(bits),
        _ => match f.class(bits) {
            crate::format::Class::Nan | crate::format::Class::Infinity => f.to_f64(bits),
            _ => {
                let (m, e) = f.significand(bits);
                let v = m as f64 * pow2(e);
                if f.fields(bits).sign { -v } else { v }
            }
        },
    }
}

// ----- positions on the value line -----

/// How the part of `|x|` above the lower neighbour compares with the gap to the upper one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FracClass {
    /// No fraction: the value is the lower neighbour itself.
    Zero,
    /// Nonzero and less than half the gap.
    BelowHalf,
    /// Exactly half the gap: a tie.
    Half,
    /// More than half the gap, less than all of it.
    AboveHalf,
}

/// Where `|x|` lies between its lower neighbour and the next pattern, as a fraction of the gap:
/// exactly, or only as a [`FracClass`].
#[derive(Clone, Debug, PartialEq)]
pub enum Frac {
    /// The exact fraction in [0, 1).
    Exact(Ratio),
    /// Only its class is known (enough for 0.5 and 1 ULP).
    Class(FracClass),
    /// The exact fraction in [0, 1), a dyadic `f64` (the fast path, when the value itself
    /// is an `f64`): enough for every tolerance, float16's 0.6 ULP included.
    Dyadic(f64),
}

/// `|x|` lies at `ord + frac` on the ordinal line of the format's magnitudes, where
/// ordinals above infinity continue the top binade's spacing (so "2^128" in f32 is the
/// ordinal of infinity, and anything beyond it is nearer to infinity than to any finite value).
#[derive(Clone, Debug, PartialEq)]
pub struct Position {
    /// The sign of `x` (of the zero, when `x` is zero).
    pub neg: bool,
    /// The ordinal of the largest magnitude at or below `|x|` (the pattern with the sign bit clear,
    /// or past infinity as described above).
    pub ord: i64,
    /// How far `|x|` lies above that ordinal, in units of the gap to the next.
    pub frac: Frac,
}

/// Virtual ordinals past infinity are capped here: farther ones all allow only infinity.
const BEYOND_CAP: i64 = 4;

fn ord_inf(f: &FloatFormat) -> i64 {
    f.infinity(false) as i64
}

/// Exact position of a finite number (zero: ordinal 0 with the given sign).
pub fn position_exact(f: &FloatFormat, x: &Number) -> Position {
    let neg = x.is_negative();
    let m = mag(x);
    if m.is_zero() {
        return Position {
            neg,
            ord: 0,
            frac: Frac::Exact(Ratio::zero()),
        };
    }
    let top = Ratio::dyadic(1u32, f.emax() as i64 + 1);
    let spacing_top = Ratio::dyadic(1u32, f.emax() as i64 - f.frac_bits as i64);
    if *m >= top {
        let (beyond, _) = m.abs_diff(&top);
        let q = beyond.div(&spacing_top);
        let (k, _) = q.floor_ceil();
        let k: i64 = k.try_into().unwrap_or(i64::MAX);
        if k >= BEYOND_CAP {
            return Position {
                neg,
                ord: ord_inf(f) + BEYOND_CAP,
                frac: Frac::Exact(Ratio::zero()),
            };
        }
        let (frac, _) = q.abs_diff(&Ratio::from_integer(k as u64));
        return Position {
            neg,
            ord: ord_inf(f) + k,
            frac: Frac::Exact(frac),
        };
    }
    let below = round_number(
        f,
        &Number::finite(false, m.clone()),
        RoundOptions::new(Rounding::TowardZero),
    )
    .bits;
    let spacing = f.ulp(below).expect("finite");
    let base = match f.value(below) {
        Number::Finite { mag, .. } => mag,
        _ => unreachable!(),
    };
    let (over, _) = m.abs_diff(&base);
    Position {
        neg,
        ord: below as i64,
        frac: Frac::Exact(over.div(&spacing)),
    }
}

/// Position of `hi + e` where `hi` is a finite nonzero `f64` and `e` a quantity smaller than
/// half an `f64` ULP of `hi` whose sign is `err` (so `hi` is the value rounded to f64).
/// For formats whose grid and midpoints are all `f64` values (f32, f16, f11, f10).
pub fn position_f64(f: &FloatFormat, hi: f64, err: Ordering) -> Position {
    let neg = hi.is_sign_negative();
    let m = hi.abs();
    // The error as seen on the magnitude.
    let err = if neg { err.reverse() } else { err };
    let classify = |rem: f64, spacing: f64| -> FracClass {
        let half = spacing / 2.0;
        if rem == 0.0 {
            match err {
                Ordering::Equal => FracClass::Zero,
                _ => FracClass::BelowHalf,
            }
        } else if rem < half {
            FracClass::BelowHalf
        } else if rem == half {
            match err {
                Ordering::Less => FracClass::BelowHalf,
                Ordering::Equal => FracClass::Half,
                Ordering::Greater => FracClass::AboveHalf,
            }
        } else {
            FracClass::AboveHalf
        }
    };
    // With no error the value is exactly an f64, and so is its fraction of a spacing (the
    // difference from a grid point, over a power of two).
    let fraction = |rem: f64, spacing: f64| -> Frac {
        if err == Ordering::Equal {
            Frac::Dyadic(rem / spacing)
        } else {
            Frac::Class(classify(rem, spacing))
        }
    };
    let top = pow2(f.emax() + 1);
    let spacing_top = pow2(f.emax() - f.frac_bits as i32);
    if m > top || (m == top && err != Ordering::Less) {
        if m >= top + BEYOND_CAP as f64 * spacing_top {
            return Position {
                neg,
                ord: ord_inf(f) + BEYOND_CAP,
                frac: Frac::Class(FracClass::Zero),
            };
        }
        let beyond = m - top;
        let k = (beyond / spacing_top).floor();
        let rem = beyond - k * spacing_top;
        return Position {
            neg,
            ord: ord_inf(f) + k as i64,
            frac: fraction(rem, spacing_top),
        };
    }
    let mut below = round_f64(f, m, RoundOptions::new(Rounding::TowardZero)).bits;
    let mut base = value_f64(f, below);
    if base == m && err == Ordering::Less {
        below -= 1;
        base = value_f64(f, below);
    }
    let (_, e) = f.significand(below);
    let spacing = pow2(e);
    Position {
        neg,
        ord: below as i64,
        frac: fraction(m - base, spacing),
    }
}

impl Position {
    /// Whether this much knowledge of the fraction decides `tol`: only the class of an
    /// inexact fast-path fraction is known, which answers 0.5 and 1 ULP but not 0.6 ULP.
    pub fn decides(&self, tol: Ulps) -> bool {
        !(tol == Ulps::SixTenths && matches!(self.frac, Frac::Class(_)))
    }
}

impl Frac {
    fn is_zero(&self) -> bool {
        match self {
            Frac::Exact(r) => r.is_zero(),
            Frac::Class(c) => *c == FracClass::Zero,
            Frac::Dyadic(d) => *d == 0.0,
        }
    }

    /// `frac > num/den`.
    fn above(&self, num: u32, den: u32) -> bool {
        match self {
            Frac::Exact(r) => *r > Ratio::new(num.into(), den.into()),
            // den * d - num, rounded once by the FMA, keeps the exact sign.
            Frac::Dyadic(d) => f64::from(den).mul_add(*d, -f64::from(num)) > 0.0,
            // A zero fraction is below every positive bound.
            Frac::Class(FracClass::Zero) => false,
            Frac::Class(c) => match (num, den) {
                (0, _) => *c != FracClass::Zero,
                (1, 2) => *c == FracClass::AboveHalf,
                _ => panic!("fraction class cannot answer {num}/{den}"),
            },
        }
    }

    /// `frac >= num/den`.
    fn at_least(&self, num: u32, den: u32) -> bool {
        match self {
            Frac::Exact(r) => *r >= Ratio::new(num.into(), den.into()),
            Frac::Dyadic(d) => f64::from(den).mul_add(*d, -f64::from(num)) >= 0.0,
            Frac::Class(FracClass::Zero) => num == 0,
            Frac::Class(c) => match (num, den) {
                (n, d) if n == d => false,
                (1, 2) => matches!(c, FracClass::Half | FracClass::AboveHalf),
                _ => panic!("fraction class cannot answer {num}/{den}"),
            },
        }
    }
}

/// Every pattern within `tol` of the position (no denorm flush applied): the one
/// definition of each tolerance (see [`Ulps`]).
pub fn tolerance_set(f: &FloatFormat, pos: &Position, tol: Ulps) -> AllowedSet {
    let inf = ord_inf(f);
    // (lowest, highest ordinal on the magnitude line, whether a zero in reach takes both signs)
    let (lower, upper, value_bound) = match tol {
        Ulps::HalfEven => {
            let bits = nearest_of_position(f, pos);
            return AllowedSet::single(&crate::d3d::allowed::Domain::Float(*f), bits);
        }
        Ulps::Faithful => {
            if pos.ord >= inf {
                (inf - 1, inf, false)
            } else if pos.frac.is_zero() {
                (pos.ord, pos.ord, false)
            } else {
                (pos.ord, pos.ord + 1, false)
            }
        }
        Ulps::Half => (
            pos.ord + pos.frac.above(1, 2) as i64,
            pos.ord + pos.frac.at_least(1, 2) as i64,
            false,
        ),
        Ulps::SixTenths => (
            pos.ord + pos.frac.above(3, 5) as i64,
            pos.ord + pos.frac.at_least(2, 5) as i64,
            true,
        ),
        Ulps::One => (pos.ord - 1 + pos.frac.above(0, 1) as i64, pos.ord + 1, true),
    };
    let (lo, hi) = if pos.neg {
        (-upper, -lower)
    } else {
        (lower, upper)
    };
    let (lo, hi) = (lo.clamp(-inf, inf), hi.clamp(-inf, inf));
    let mut set = AllowedSet::empty();
    set.add_key_range(key_of_ordinal(lo, pos.neg), key_of_ordinal(hi, pos.neg));
    // A value bound that reaches zero from a nonzero value holds both zeros: they are one
    // point on the value line.
    let exact_zero = pos.ord == 0 && pos.frac.is_zero();
    if value_bound && !exact_zero && lo <= 0 && hi >= 0 {
        set.add_key_range(-1, 0);
    }
    set
}

/// Round-to-nearest, ties to even, from a position (infinity counts as even, so a tie
/// between the largest finite value and infinity overflows, as IEEE 754 does).
pub fn nearest_of_position(f: &FloatFormat, pos: &Position) -> u64 {
    let up = match &pos.frac {
        Frac::Exact(r) => match r.cmp(&Ratio::dyadic(1u32, -1)) {
            Ordering::Less => false,
            Ordering::Greater => true,
            Ordering::Equal => pos.ord & 1 == 1,
        },
        Frac::Dyadic(d) => match d.partial_cmp(&0.5).expect("a fraction") {
            Ordering::Less => false,
            Ordering::Greater => true,
            Ordering::Equal => pos.ord & 1 == 1,
        },
        Frac::Class(c) => match c {
            FracClass::Zero | FracClass::BelowHalf => false,
            FracClass::AboveHalf => true,
            FracClass::Half => pos.ord & 1 == 1,
        },
    };
    let ord = (pos.ord + up as i64).min(ord_inf(f));
    let zero_neg = pos.neg;
    let key = key_of_ordinal(if pos.neg { -ord } else { ord }, zero_neg);
    crate::d3d::allowed::Domain::Float(*f).bits(key)
}

/// Every pattern `p` with `lo <= p <= hi` (finite bounds).
/// A value bound that contains zero holds both zeros (they are one point on the value
/// line); a bound that is just one zero keeps that zero's sign.
pub fn interval_set(f: &FloatFormat, lo: &Number, hi: &Number) -> AllowedSet {
    let first = round_number(f, lo, RoundOptions::new(Rounding::TowardPositive)).bits;
    let last = round_number(f, hi, RoundOptions::new(Rounding::TowardNegative)).bits;
    let mut set = bits_interval(f, first, last);
    let (lo_sign, hi_sign) = (signum(lo), signum(hi));
    if lo_sign <= 0 && hi_sign >= 0 && (lo_sign, hi_sign) != (0, 0) {
        set.add_key_range(-1, 0);
    }
    set
}

fn signum(x: &Number) -> i32 {
    match x {
        Number::Finite { .. } if is_zero(x) => 0,
        _ if x.is_negative() => -1,
        _ => 1,
    }
}

/// As [`interval_set`] with `f64` bounds.
pub fn interval_set_f64(f: &FloatFormat, lo: f64, hi: f64) -> AllowedSet {
    let first = round_f64(f, lo, RoundOptions::new(Rounding::TowardPositive)).bits;
    let last = round_f64(f, hi, RoundOptions::new(Rounding::TowardNegative)).bits;
    let mut set = bits_interval(f, first, last);
    if lo <= 0.0 && hi >= 0.0 && (lo != 0.0 || hi != 0.0) {
        set.add_key_range(-1, 0);
    }
    set
}

fn bits_interval(f: &FloatFormat, first: u64, last: u64) -> AllowedSet {
    let d = crate::d3d::allowed::Domain::Float(*f);
    let mut set = AllowedSet::empty();
    if let (Some(a), Some(b)) = (d.key(first), d.key(last)) {
        set.add_key_range(a, b);
    }
    set
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::d3d::allowed::Domain;
    use crate::format::{F16, F32};

    fn set_bits(f: &FloatFormat, s: &AllowedSet) -> Vec<(u64, u64)> {
        s.bit_ranges(&Domain::Float(*f))
    }

    #[test]
    fn half_ulp_is_rne_with_both_at_a_tie() {
        let x = from_f64(1.0 + 2f64.powi(-24)); // tie between 1 and 1+2^-23
        let p = position_exact(&F32, &x);
        assert_eq!(
            set_bits(&F32, &tolerance_set(&F32, &p, Ulps::Half)),
            vec![(0x3f80_0000, 0x3f80_0001)]
        );
        let x = from_f64(1.0 + 2f64.powi(-25));
        let p = position_exact(&F32, &x);
        assert_eq!(
            set_bits(&F32, &tolerance_set(&F32, &p, Ulps::Half)),
            vec![(0x3f80_0000, 0x3f80_0000)]
        );
        assert_eq!(
            set_bits(&F32, &tolerance_set(&F32, &p, Ulps::One)),
            vec![(0x3f80_0000, 0x3f80_0001)]
        );
    }

    #[test]
    fn one_ulp_of_an_exact_value_takes_both_neighbours() {
        let p = position_exact(&F16, &from_f64(-2.0));
        assert_eq!(
            set_bits(&F16, &tolerance_set(&F16, &p, Ulps::One)),
            vec![(0xc001, 0xbfff)]
        );
    }

    #[test]
    fn overflow_goes_to_infinity() {
        let p = position_exact(&F16, &from_f64(65530.0));
        assert_eq!(
            set_bits(&F16, &tolerance_set(&F16, &p, Ulps::Half)),
            vec![(0x7c00, 0x7c00)]
        );
        let p = position_exact(&F16, &from_f64(1e9));
        assert_eq!(
            set_bits(&F16, &tolerance_set(&F16, &p, Ulps::One)),
            vec![(0x7c00, 0x7c00)]
        );
    }

    #[test]
    fn fast_position_agrees_with_exact() {
        for &(hi, err) in &[
            (1.0 + 2f64.powi(-24), Ordering::Equal),
            (1.0 + 2f64.powi(-24), Ordering::Greater),
            (1.0 + 2f64.powi(-24), Ordering::Less),
            (1.0, Ordering::Less),
            (3.0e38, Ordering::Equal),
            (-5.5, Ordering::Greater),
        ] {
            let fast = position_f64(&F32, hi, err);
            let tiny = Number::finite(
                err == Ordering::Less,
                Ratio::dyadic(1u32, -200)
                    .mul(&Ratio::from_integer((err != Ordering::Equal) as u32)),
            );
            let exact = position_exact(&F32, &add(&from_f64(hi), &tiny));
            for tol in [Ulps::Half, Ulps::One] {
                assert_eq!(
                    tolerance_set(&F32, &fast, tol),
                    tolerance_set(&F32, &exact, tol),
                    "{hi} {err:?} {tol:?}"
                );
            }
        }
    }
}
