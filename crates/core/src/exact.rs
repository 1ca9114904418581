//! Exact arithmetic on rationals: the ground truth that decoding, rounding and the
//! D3D arithmetic rules are measured against.
//!
//! Every value a float format can hold is a dyadic rational, and every decimal a user can
//! type is a rational with a power-of-ten denominator, so an unbounded `num / den` pair is
//! enough to compare, add, multiply and round any of them without an intermediate rounding.
//! Speed is not the point here; the fast paths elsewhere are tested against this module.

use std::cmp::Ordering;

use num_bigint::BigUint;
use num_integer::Integer;
use num_traits::{One, ToPrimitive, Zero};

/// A non-negative rational number `num / den` with `den > 0`. Not kept in lowest terms:
/// equality and ordering go through cross multiplication.
#[derive(Clone, Debug)]
pub struct Ratio {
    num: BigUint,
    den: BigUint,
}

impl PartialEq for Ratio {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Ratio {}
impl PartialOrd for Ratio {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Ratio {
    fn cmp(&self, other: &Self) -> Ordering {
        (&self.num * &other.den).cmp(&(&other.num * &self.den))
    }
}

/// How the part of a value below the rounding position compares with half a unit there.
/// This is all a rounding mode needs to know about the discarded bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Residue {
    /// Discarded part compared with one half of a unit in the last kept place.
    pub vs_half: Ordering,
    /// Whether anything non-zero was discarded.
    pub nonzero: bool,
}

impl Residue {
    /// Nothing was discarded.
    pub const EXACT: Residue = Residue {
        vs_half: Ordering::Less,
        nonzero: false,
    };
}

impl Ratio {
    /// Zero (`0/1`).
    pub fn zero() -> Ratio {
        Ratio {
            num: BigUint::zero(),
            den: BigUint::one(),
        }
    }

    /// An integer, as `n/1`.
    pub fn from_integer(n: impl Into<BigUint>) -> Ratio {
        Ratio {
            num: n.into(),
            den: BigUint::one(),
        }
    }

    /// `num / den`; `den` must not be zero.
    pub fn new(num: BigUint, den: BigUint) -> Ratio {
        assert!(!den.is_zero(), "Ratio with zero denominator");
        Ratio { num, den }
    }

    /// `m * 2^exp2`, the shape of every binary float value.
    pub fn dyadic(m: impl Into<BigUint>, exp2: i64) -> Ratio {
        let m = m.into();
        if exp2 >= 0 {
            Ratio::from_integer(m << exp2 as u64)
        } else {
            Ratio::new(m, BigUint::one() << exp2.unsigned_abs())
        }
    }

    /// `m * 10^exp10`, the shape of every decimal literal.
    pub fn decimal(m: impl Into<BigUint>, exp10: i64) -> Ratio {
        let m = m.into();
        let p = BigUint::from(10u32).pow(exp10.unsigned_abs() as u32);
        if exp10 >= 0 {
            Ratio::from_integer(m * p)
        } else {
            Ratio::new(m, p)
        }
    }

    /// The numerator, in lowest terms.
    pub fn numer(&self) -> &BigUint {
        &self.num
    }

    /// The denominator, in lowest terms (never zero).
    pub fn denom(&self) -> &BigUint {
        &self.den
    }

    /// Whether the ratio is zero.
    pub fn is_zero(&self) -> bool {
        self.num.is_zero()
    }

    /// The exact sum.
    pub fn add(&self, other: &Ratio) -> Ratio {
        if self.den == other.den {
            return Ratio::new(&self.num + &other.num, self.den.clone());
        }
        Ratio::new(
            &self.num * &other.den + &other.num * &self.den,
            &self.den * &other.den,
        )
    }

    /// `|self - other|` and which of the two is larger.
    pub fn abs_diff(&self, other: &Ratio) -> (Ratio, Ordering) {
        let a = &self.num * &other.den;
        let b = &other.num * &self.den;
        let den = &self.den * &other.den;
        match a.cmp(&b) {
            Ordering::Less => (Ratio::new(b - a, den), Ordering::Less),
            Ordering::Equal => (Ratio::zero(), Ordering::Equal),
            Ordering::Greater => (Ratio::new(a - b, den), Ordering::Greater),
        }
    }

    /// The exact product.
    pub fn mul(&self, other: &Ratio) -> Ratio {
        Ratio::new(&self.num * &other.num, &self.den * &other.den)
    }

    /// `self / other`; `other` must not be zero.
    pub fn div(&self, other: &Ratio) -> Ratio {
        Ratio::new(&self.num * &other.den, &self.den * &other.num)
    }

    /// `self * 2^k`.
    pub fn mul_pow2(&self, k: i64) -> Ratio {
        if k >= 0 {
            Ratio::new(&self.num << k as u64, self.den.clone())
        } else {
            Ratio::new(self.num.clone(), &self.den << k.unsigned_abs())
        }
    }

    /// `floor(log2(self))`; `self` must be positive.
    pub fn floor_log2(&self) -> i64 {
        debug_assert!(!self.is_zero());
        // bits(n) - bits(d) is floor(log2) or one more; one comparison decides.
        let guess = self.num.bits() as i64 - self.den.bits() as i64;
        let at_guess = if guess >= 0 {
            self.num >= (&self.den << guess as u64)
        } else {
            (&self.num << guess.unsigned_abs()) >= self.den
        };
        if at_guess { guess } else { guess - 1 }
    }

    /// `floor(log10(self))`; `self` must be positive.
    pub fn floor_log10(&self) -> i64 {
        // log10(2) ~ 0.30103: start from the binary exponent and correct by comparison.
        let mut e = (self.floor_log2() as f64 * std::f64::consts::LOG10_2).floor() as i64;
        while Ratio::decimal(1u32, e + 1) <= *self {
            e += 1;
        }
        while Ratio::decimal(1u32, e) > *self {
            e -= 1;
        }
        e
    }

    /// `floor(self * 2^shift)` and how the discarded fraction compares with one half.
    pub fn scaled_floor(&self, shift: i64) -> (BigUint, Residue) {
        let (n, d) = if shift >= 0 {
            (&self.num << shift as u64, self.den.clone())
        } else {
            (self.num.clone(), &self.den << shift.unsigned_abs())
        };
        let (q, r) = n.div_rem(&d);
        let twice = &r << 1u32;
        let residue = Residue {
            vs_half: twice.cmp(&d),
            nonzero: !r.is_zero(),
        };
        (q, residue)
    }

    /// `floor(self)` and `ceil(self)` as integers.
    pub fn floor_ceil(&self) -> (BigUint, BigUint) {
        let (q, r) = self.num.div_rem(&self.den);
        let c = if r.is_zero() { q.clone() } else { &q + 1u32 };
        (q, c)
    }

    /// A nearby `f64`, for display of errors and ratios only (never for deciding bits).
    pub fn to_f64_lossy(&self) -> f64 {
        if self.is_zero() {
            return 0.0;
        }
        // Keep 64 significant bits of the quotient, then scale: accurate to well under an f64 ulp
        // of relative error, and free of overflow in the intermediate steps.
        let e = self.floor_log2();
        let (q, _) = self.scaled_floor(63 - e);
        let q = q.to_u64().unwrap_or(u64::MAX) as f64;
        let scale = (e - 63).clamp(-3000, 3000) as i32;
        // Split the scaling in three so no factor under- or overflows on its own.
        let third = scale / 3;
        q * 2f64.powi(third) * 2f64.powi(third) * 2f64.powi(scale - 2 * third)
    }

    /// The exact decimal expansion, every digit, when the denominator divides a power of ten
    /// (true of every dyadic and every decimal value); `None` otherwise.
    pub fn decimal_expansion(&self) -> Option<String> {
        let twos = self.den.trailing_zeros().unwrap_or(0);
        let rest = &self.den >> twos;
        let mut fives = 0u64;
        let mut r = rest;
        let five = BigUint::from(5u32);
        while !r.is_one() {
            let (q, rem) = r.div_rem(&five);
            if !rem.is_zero() {
                return None;
            }
            r = q;
            fives += 1;
        }
        // num/den = num * 2^(k-twos) * 5^(k-fives) / 10^k with k = max(twos, fives).
        let k = twos.max(fives);
        let scaled = &self.num
            * (BigUint::one() << (k - twos))
            * BigUint::from(5u32).pow((k - fives) as u32);
        Some(place_decimal_point(&scaled.to_str_radix(10), k as usize))
    }
}

/// `digits / 10^frac_digits` written out, without trailing zeros after the point.
fn place_decimal_point(digits: &str, frac_digits: usize) -> String {
    if frac_digits == 0 {
        return digits.to_string();
    }
    let padded = if digits.len() <= frac_digits {
        format!("{}{}", "0".repeat(frac_digits + 1 - digits.len()), digits)
    } else {
        digits.to_string()
    };
    let (int, frac) = padded.split_at(padded.len() - frac_digits);
    let frac = frac.trim_end_matches('0');
    if frac.is_empty() {
        int.to_string()
    } else {
        format!("{int}.{frac}")
    }
}

/// A real number as a user or a format can name it: finite (exact), infinite or NaN.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Number {
    /// NaN with the fraction field left-aligned in 64 bits (bit 63 = the format's top
    /// fraction bit), so payloads carry across formats the way F16C and the `half` crate
    /// carry them: the top bits survive, the bottom bits are truncated.
    Nan {
        /// The sign bit.
        neg: bool,
        /// The fraction field, left-aligned in 64 bits.
        payload: u64,
    },
    /// An infinity.
    Infinity {
        /// Whether it is negative infinity.
        neg: bool,
    },
    /// A finite value, zero included: a sign and an exact magnitude.
    Finite {
        /// The sign (`-0` has `neg: true` and a zero magnitude).
        neg: bool,
        /// The magnitude.
        mag: Ratio,
    },
}

impl Number {
    /// The quiet NaN a literal `nan` stands for.
    pub const QUIET_NAN: Number = Number::Nan {
        neg: false,
        payload: 1 << 63,
    };

    /// A finite number from its sign and magnitude.
    pub fn finite(neg: bool, mag: Ratio) -> Number {
        Number::Finite { neg, mag }
    }

    /// A zero of the given sign.
    pub fn zero(neg: bool) -> Number {
        Number::Finite {
            neg,
            mag: Ratio::zero(),
        }
    }

    /// Whether it is a NaN.
    pub fn is_nan(&self) -> bool {
        matches!(self, Number::Nan { .. })
    }

    /// Whether the sign is negative (`-0`, `-inf` and a NaN with its sign bit set included).
    pub fn is_negative(&self) -> bool {
        match self {
            Number::Nan { neg, .. } | Number::Infinity { neg } | Number::Finite { neg, .. } => *neg,
        }
    }

    /// The number with its sign flipped (NaN and zero included).
    pub fn negate(&self) -> Number {
        match self.clone() {
            Number::Nan { neg, payload } => Number::Nan { neg: !neg, payload },
            Number::Infinity { neg } => Number::Infinity { neg: !neg },
            Number::Finite { neg, mag } => Number::Finite { neg: !neg, mag },
        }
    }

    /// A nearby `f64` for display; NaN and infinities map to themselves.
    pub fn to_f64_lossy(&self) -> f64 {
        match self {
            Number::Nan { .. } => f64::NAN,
            Number::Infinity { neg } => {
                if *neg {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                }
            }
            Number::Finite { neg, mag } => {
                let m = mag.to_f64_lossy();
                if *neg { -m } else { m }
            }
        }
    }
}

/// Sum of two signed finite rationals, as (negative, magnitude). An exact zero sum is
/// reported as positive; callers that care about the sign of zero decide it themselves.
pub fn signed_add(a_neg: bool, a: &Ratio, b_neg: bool, b: &Ratio) -> (bool, Ratio) {
    if a_neg == b_neg {
        return (a_neg, a.add(b));
    }
    let (mag, order) = a.abs_diff(b);
    match order {
        Ordering::Greater => (a_neg, mag),
        Ordering::Less => (b_neg, mag),
        Ordering::Equal => (false, mag),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floor_log2_at_powers_and_between() {
        assert_eq!(Ratio::dyadic(1u32, -149).floor_log2(), -149);
        assert_eq!(Ratio::dyadic(3u32, 10).floor_log2(), 11);
        assert_eq!(Ratio::decimal(1u32, -1).floor_log2(), -4);
        assert_eq!(Ratio::new(7u32.into(), 7u32.into()).floor_log2(), 0);
    }

    #[test]
    fn floor_log10_at_powers() {
        assert_eq!(Ratio::decimal(1u32, 5).floor_log10(), 5);
        assert_eq!(Ratio::decimal(99999u32, 0).floor_log10(), 4);
        assert_eq!(Ratio::decimal(1u32, -40).floor_log10(), -40);
        assert_eq!(Ratio::dyadic(1u32, -1).floor_log10(), -1);
    }

    #[test]
    fn decimal_expansion_is_every_digit() {
        assert_eq!(
            Ratio::dyadic(1u32, -24).decimal_expansion().unwrap(),
            "0.000000059604644775390625"
        );
        assert_eq!(
            Ratio::dyadic(65504u32, 0).decimal_expansion().unwrap(),
            "65504"
        );
        assert_eq!(
            Ratio::decimal(15u32, -1).decimal_expansion().unwrap(),
            "1.5"
        );
        assert_eq!(Ratio::zero().decimal_expansion().unwrap(), "0");
        assert!(
            Ratio::new(1u32.into(), 3u32.into())
                .decimal_expansion()
                .is_none()
        );
    }

    #[test]
    fn scaled_floor_reports_the_half() {
        let r = Ratio::decimal(25u32, -1); // 2.5
        let (q, res) = r.scaled_floor(0);
        assert_eq!(q, BigUint::from(2u32));
        assert_eq!(res.vs_half, Ordering::Equal);
        assert!(res.nonzero);
        let (q, res) = r.scaled_floor(1); // 5.0
        assert_eq!(q, BigUint::from(5u32));
        assert_eq!(res, Residue::EXACT);
    }

    #[test]
    fn signed_add_cancels_to_positive_zero() {
        let one = Ratio::from_integer(1u32);
        let (neg, mag) = signed_add(true, &one, false, &one);
        assert!(!neg && mag.is_zero());
        let (neg, mag) = signed_add(true, &Ratio::from_integer(3u32), false, &one);
        assert!(neg && mag == Ratio::from_integer(2u32));
    }

    #[test]
    fn lossy_f64_is_close() {
        assert_eq!(Ratio::decimal(1u32, -1).to_f64_lossy(), 0.1);
        assert_eq!(Ratio::dyadic(1u32, -1074).to_f64_lossy(), 5e-324);
        assert_eq!(Ratio::dyadic(1u32, 1000).to_f64_lossy(), 2f64.powi(1000));
    }
}
