//! One descriptor for every binary float format D3D stores: f64, f32, f16, f11, f10.
//! Decoding, rounding, neighbours and text forms are written once against it.

use super::pow2::pow2_normal;
use crate::exact::{Number, Ratio};

/// Layout and policy of one binary floating-point format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FloatFormat {
    /// Canonical short name (`f16`).
    pub name: &'static str,
    /// Whether there is a sign bit (f11 and f10 have none, §3.1.6).
    pub signed: bool,
    /// Width of the exponent field in bits.
    pub exp_bits: u32,
    /// Width of the fraction field in bits (the stored significand, without the hidden bit).
    pub frac_bits: u32,
    /// Exponent bias: the stored field minus the bias is the power of two of a normal value.
    pub bias: i32,
    /// Whether D3D arithmetic flushes this format's subnormals to signed zero on input and
    /// output (f32 only, §3.1.3.2; f16 §3.1.5, f11/f10 §3.1.6 and f64 §3.1.4 keep them).
    pub arithmetic_flushes_subnormals: bool,
    /// Whether quiet and signalling NaN are told apart by the top fraction bit in common
    /// hardware (IEEE interchange formats). D3D itself treats every NaN alike (§3.1.3.2).
    pub has_quiet_bit: bool,
    /// The spec section that defines the format.
    pub section: &'static str,
    /// Which D3D shader arithmetic works in this format, if any.
    pub arithmetic: Arithmetic,
}

/// The precision class of D3D shader arithmetic a format is the working format of: each
/// class has its own accuracy rules (§3.1.3 for 32-bit, §3.1.5 float16, §3.1.4 double).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Arithmetic {
    /// 32-bit float: 0.5 ULP (1 ULP under the D3D10 rules), denorms flushed.
    Float32,
    /// float16: round to nearest even, 0.6 ULP for fused operations.
    Float16,
    /// double: IEEE 754 round to nearest even.
    Double,
    /// A storage-only format (f11, f10): no shader instructions work in it.
    None,
}

/// IEEE binary64 (`double`); D3D arithmetic keeps its denorms (§3.1.4).
pub const F64: FloatFormat = FloatFormat {
    name: "f64",
    signed: true,
    exp_bits: 11,
    frac_bits: 52,
    bias: 1023,
    arithmetic_flushes_subnormals: false,
    has_quiet_bit: true,
    section: "3.1.4",
    arithmetic: Arithmetic::Double,
};

/// IEEE binary32 (`float`); D3D arithmetic flushes its denorms to signed zero (§3.1.3.2).
pub const F32: FloatFormat = FloatFormat {
    name: "f32",
    signed: true,
    exp_bits: 8,
    frac_bits: 23,
    bias: 127,
    arithmetic_flushes_subnormals: true,
    has_quiet_bit: true,
    section: "3.1.3",
    arithmetic: Arithmetic::Float32,
};

/// IEEE binary16 (`half`); denorms kept (§3.1.5).
pub const F16: FloatFormat = FloatFormat {
    name: "f16",
    signed: true,
    exp_bits: 5,
    frac_bits: 10,
    bias: 15,
    arithmetic_flushes_subnormals: false,
    has_quiet_bit: true,
    section: "3.1.5",
    arithmetic: Arithmetic::Float16,
};

/// float11: no sign, 5 exponent bits (bias 15), 6 fraction bits (§3.1.6).
pub const F11: FloatFormat = FloatFormat {
    name: "f11",
    signed: false,
    exp_bits: 5,
    frac_bits: 6,
    bias: 15,
    arithmetic_flushes_subnormals: false,
    has_quiet_bit: false,
    section: "3.1.6",
    arithmetic: Arithmetic::None,
};

/// float10: no sign, 5 exponent bits (bias 15), 5 fraction bits (§3.1.6).
pub const F10: FloatFormat = FloatFormat {
    name: "f10",
    signed: false,
    exp_bits: 5,
    frac_bits: 5,
    bias: 15,
    arithmetic_flushes_subnormals: false,
    has_quiet_bit: false,
    section: "3.1.6",
    arithmetic: Arithmetic::None,
};

/// Which of the five IEEE classes a bit pattern falls in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    /// Positive or negative zero.
    Zero,
    /// A subnormal (denormal): exponent field zero, fraction non-zero.
    Subnormal,
    /// A normal value.
    Normal,
    /// Positive or negative infinity.
    Infinity,
    /// Not a number.
    Nan,
}

impl Class {
    /// The word used in JSON and CSV output.
    pub fn as_str(self) -> &'static str {
        match self {
            Class::Zero => "zero",
            Class::Subnormal => "subnormal",
            Class::Normal => "normal",
            Class::Infinity => "infinity",
            Class::Nan => "nan",
        }
    }
}

/// The three fields of a bit pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fields {
    /// Whether the sign bit is set (always false for unsigned formats).
    pub sign: bool,
    /// Biased exponent field.
    pub exponent: u32,
    /// Fraction field as an integer.
    pub fraction: u64,
}

impl FloatFormat {
    /// Total width in bits.
    pub const fn width(&self) -> u32 {
        self.signed as u32 + self.exp_bits + self.frac_bits
    }

    /// Mask of every valid bit.
    pub const fn mask(&self) -> u64 {
        if self.width() == 64 {
            u64::MAX
        } else {
            (1u64 << self.width()) - 1
        }
    }

    /// Number of hex digits of a pattern, `ceil(width / 4)`.
    pub const fn hex_digits(&self) -> usize {
        self.width().div_ceil(4) as usize
    }

    /// Significand precision, hidden bit included.
    pub const fn precision(&self) -> u32 {
        self.frac_bits + 1
    }

    /// The all-ones exponent field (infinity and NaN).
    pub const fn max_exp_field(&self) -> u32 {
        (1 << self.exp_bits) - 1
    }

    /// Unbiased exponent of the smallest normal (and of every subnormal's scale).
    pub const fn emin(&self) -> i32 {
        1 - self.bias
    }

    /// Unbiased exponent of the largest finite value.
    pub const fn emax(&self) -> i32 {
        self.max_exp_field() as i32 - 1 - self.bias
    }

    /// The fraction field in place: every fraction bit.
    pub const fn frac_mask(&self) -> u64 {
        (1u64 << self.frac_bits) - 1
    }

    /// The sign bit in place (0 for an unsigned format).
    pub const fn sign_bit(&self) -> u64 {
        if self.signed {
            1u64 << (self.width() - 1)
        } else {
            0
        }
    }

    /// The exponent field in place, every bit set: also the pattern of +infinity.
    pub const fn exp_mask(&self) -> u64 {
        (self.max_exp_field() as u64) << self.frac_bits
    }

    /// Every bit but the sign: a pattern's magnitude.
    pub const fn magnitude_mask(&self) -> u64 {
        self.exp_mask() | self.frac_mask()
    }

    /// The top fraction bit: it marks a quiet NaN where [`FloatFormat::has_quiet_bit`].
    pub const fn quiet_bit(&self) -> u64 {
        1 << (self.frac_bits - 1)
    }

    /// The smallest positive normal value, 2^emin, as an `f64` (exact).
    pub const fn min_normal_value(&self) -> f64 {
        pow2_normal(self.emin())
    }

    /// The largest finite value, (2 - 2^-frac_bits) * 2^emax, as an `f64` (exact).
    pub const fn max_finite_value(&self) -> f64 {
        let top = pow2_normal(self.emax());
        let ulp = pow2_normal(self.emax() - self.frac_bits as i32);
        // top + (top - ulp): no step overflows, even for f64.
        top + (top - ulp)
    }

    /// Splits a pattern into its sign, exponent and fraction fields.
    pub fn fields(&self, bits: u64) -> Fields {
        Fields {
            sign: bits & self.sign_bit() != 0,
            exponent: ((bits >> self.frac_bits) as u32) & self.max_exp_field(),
            fraction: bits & self.frac_mask(),
        }
    }

    /// Builds a pattern from its fields (the sign is ignored by unsigned formats).
    pub const fn assemble(&self, sign: bool, exponent: u32, fraction: u64) -> u64 {
        let s = if sign { self.sign_bit() } else { 0 };
        s | ((exponent as u64) << self.frac_bits) | (fraction & self.frac_mask())
    }

    /// The class of a pattern.
    pub fn class(&self, bits: u64) -> Class {
        let f = self.fields(bits);
        match (f.exponent, f.fraction) {
            (0, 0) => Class::Zero,
            (0, _) => Class::Subnormal,
            (e, 0) if e == self.max_exp_field() => Class::Infinity,
            (e, _) if e == self.max_exp_field() => Class::Nan,
            _ => Class::Normal,
        }
    }

    /// For NaN patterns of IEEE interchange formats: whether the quiet bit is set.
    pub fn is_quiet_nan(&self, bits: u64) -> Option<bool> {
        (self.has_quiet_bit && self.class(bits) == Class::Nan)
            .then(|| self.fields(bits).fraction >> (self.frac_bits - 1) == 1)
    }

    /// The integer significand (hidden bit included) and unbiased exponent of its last
    /// place: a finite pattern's magnitude is `significand * 2^exp2`.
    pub fn significand(&self, bits: u64) -> (u64, i32) {
        let f = self.fields(bits);
        let last_place = self.emin() - self.frac_bits as i32;
        if f.exponent == 0 {
            (f.fraction, last_place)
        } else {
            (
                f.fraction | (1 << self.frac_bits),
                last_place + f.exponent as i32 - 1,
            )
        }
    }

    /// The exact value a pattern stands for (§3.1.3, §3.1.5 and §3.1.6 formulas).
    pub fn value(&self, bits: u64) -> Number {
        let f = self.fields(bits);
        match self.class(bits) {
            Class::Nan => Number::Nan {
                neg: f.sign,
                payload: f.fraction << (64 - self.frac_bits),
            },
            Class::Infinity => Number::Infinity { neg: f.sign },
            _ => {
                let (m, e) = self.significand(bits);
                Number::finite(f.sign, Ratio::dyadic(m, e as i64))
            }
        }
    }

    /// The pattern as an `f64`; exact for every format here (f64 itself included).
    pub fn to_f64(&self, bits: u64) -> f64 {
        if self.width() == 64 {
            return f64::from_bits(bits);
        }
        let f = self.fields(bits);
        let mag = match self.class(bits) {
            Class::Nan => f64::from_bits(
                0x7ff0_0000_0000_0000 | (f.fraction << (52 - self.frac_bits)) | (1 << 51),
            ),
            Class::Infinity => f64::INFINITY,
            _ => {
                let (m, e) = self.significand(bits);
                // 2^e built from its bits: this is on the batch hot path, where a libm call
                // shows.
                m as f64 * super::pow2::pow2(e)
            }
        };
        if f.sign { -mag } else { mag }
    }

    /// The pattern of the largest finite value.
    pub const fn max_finite(&self) -> u64 {
        self.assemble(false, self.max_exp_field() - 1, self.frac_mask())
    }

    /// The pattern of the smallest positive normal value.
    pub const fn min_normal(&self) -> u64 {
        self.assemble(false, 1, 0)
    }

    /// The pattern of the smallest positive subnormal value.
    pub fn min_subnormal(&self) -> u64 {
        1
    }

    /// The pattern of positive or negative infinity.
    pub const fn infinity(&self, neg: bool) -> u64 {
        self.assemble(neg, self.max_exp_field(), 0)
    }

    /// The canonical quiet NaN (top fraction bit set).
    pub const fn quiet_nan(&self) -> u64 {
        self.assemble(false, self.max_exp_field(), self.quiet_bit())
    }

    /// The distance from 1.0 to the next value up, `2^-frac_bits`, as an exact number.
    pub fn epsilon(&self) -> Ratio {
        Ratio::dyadic(1u32, -(self.frac_bits as i64))
    }

    /// Position on the ordered value line: +0 and -0 are both 0, the smallest positive
    /// subnormal is 1, +infinity is one past the largest finite value. `None` for NaN.
    pub fn ordinal(&self, bits: u64) -> Option<i64> {
        if self.class(bits) == Class::Nan {
            return None;
        }
        let magnitude = (bits & !self.sign_bit()) as i64;
        Some(if bits & self.sign_bit() != 0 {
            -magnitude
        } else {
            magnitude
        })
    }

    /// The pattern at an ordinal, if one exists (ordinal 0 gives +0).
    pub fn from_ordinal(&self, ordinal: i64) -> Option<u64> {
        let top = self.infinity(false) as i64;
        let bottom = if self.signed { -top } else { 0 };
        if ordinal < bottom || ordinal > top {
            return None;
        }
        Some(if ordinal < 0 {
            self.sign_bit() | ordinal.unsigned_abs()
        } else {
            ordinal as u64
        })
    }

    /// The next representable value up and down, as patterns (`None` past the ends or for NaN).
    pub fn neighbours(&self, bits: u64) -> (Option<u64>, Option<u64>) {
        match self.ordinal(bits) {
            None => (None, None),
            Some(o) => (self.from_ordinal(o - 1), self.from_ordinal(o + 1)),
        }
    }

    /// The unit in the last place of the binade holding this pattern: `2^(e - frac_bits)`,
    /// with subnormals and zero sharing the smallest normal's spacing. `None` for INF/NaN.
    pub fn ulp(&self, bits: u64) -> Option<Ratio> {
        match self.class(bits) {
            Class::Infinity | Class::Nan => None,
            _ => {
                let (_, e) = self.significand(bits);
                Some(Ratio::dyadic(1u32, e as i64))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_accessors_agree_with_the_patterns() {
        for f in [F64, F32, F16, F11, F10] {
            assert_eq!(f.min_normal_value(), f.to_f64(f.min_normal()), "{}", f.name);
            assert_eq!(f.max_finite_value(), f.to_f64(f.max_finite()), "{}", f.name);
            assert_eq!(f.exp_mask(), f.infinity(false), "{}", f.name);
            assert_eq!(f.magnitude_mask() | f.sign_bit(), f.mask(), "{}", f.name);
            assert_eq!(f.quiet_nan(), f.exp_mask() | f.quiet_bit(), "{}", f.name);
        }
    }

    #[test]
    fn widths_and_limits() {
        assert_eq!(
            (
                F64.width(),
                F32.width(),
                F16.width(),
                F11.width(),
                F10.width()
            ),
            (64, 32, 16, 11, 10)
        );
        assert_eq!(F16.max_finite(), 0x7bff);
        assert_eq!(F11.max_finite(), 0x7bf);
        assert_eq!(F10.max_finite(), 0x3df);
        assert_eq!(F11.infinity(false), 0x7c0);
        assert_eq!(F32.quiet_nan(), 0x7fc0_0000);
        assert_eq!(F16.to_f64(0x7bff), 65504.0);
        assert_eq!(F11.to_f64(0x7bf), 65024.0);
        assert_eq!(F10.to_f64(0x3df), 64512.0);
        assert_eq!(F16.to_f64(1), 2f64.powi(-24));
        assert_eq!(F11.to_f64(1), 2f64.powi(-20));
        assert_eq!(F10.to_f64(1), 2f64.powi(-19));
    }

    #[test]
    fn ordinals_join_the_two_zeros() {
        assert_eq!(F32.ordinal(0x8000_0000), Some(0));
        assert_eq!(F32.ordinal(0x8000_0001), Some(-1));
        assert_eq!(F32.ordinal(0x7f80_0000), Some(0x7f80_0000));
        assert_eq!(F32.ordinal(0x7fc0_0000), None);
        assert_eq!(F16.neighbours(0x8000), (Some(0x8001), Some(0x0001)));
        assert_eq!(F11.neighbours(0), (None, Some(1)));
        assert_eq!(F11.neighbours(0x7c0), (Some(0x7bf), None));
    }

    #[test]
    fn quiet_bit_only_where_it_means_something() {
        assert_eq!(F32.is_quiet_nan(0x7fc0_0000), Some(true));
        assert_eq!(F32.is_quiet_nan(0x7f80_0001), Some(false));
        assert_eq!(F11.is_quiet_nan(0x7c1), None);
        assert_eq!(F16.is_quiet_nan(0x3c00), None);
    }
}
