//! The formats as the fast deciders read them: a float16 or float32 pattern in the low bits
//! of a `u32`, its value as an `f64`, the nearest pattern of an `f64`, positions on the
//! value line, and the few `f64` roundings the deciders need without library calls (whose
//! branches on the magnitude random data mispredicts).

use crate::format::{self, FloatFormat, FormatType};

/// A float format as the deciders read it: a pattern in the low bits of a `u32`, its
/// constants from [`FormatType`].
pub(super) trait Fmt: FormatType {
    /// The value of a pattern (no flush).
    fn to_f64(x: u32) -> f64;
    /// The correctly rounded pattern of a value (ties to even, overflow to infinity).
    fn rne(v: f64) -> u32;
}

#[derive(Clone, Copy)]
pub(super) struct F32;
#[derive(Clone, Copy)]
pub(super) struct F16;

impl FormatType for F32 {
    const FORMAT: FloatFormat = format::F32;
}

impl FormatType for F16 {
    const FORMAT: FloatFormat = format::F16;
}

impl F32 {
    #[cfg(test)]
    pub(super) fn is_denorm_or_nan(x: u32) -> bool {
        let m = x & Self::MAG;
        (m != 0 && m < 1 << Self::FRAC) || m > Self::EXP
    }
}

impl Fmt for F32 {
    #[inline]
    fn to_f64(x: u32) -> f64 {
        f32::from_bits(x) as f64
    }

    #[inline]
    fn rne(v: f64) -> u32 {
        (v as f32).to_bits()
    }
}

impl Fmt for F16 {
    #[inline]
    fn to_f64(x: u32) -> f64 {
        // Rebias the exponent (15 to 127) and widen the fraction: an exact f32.
        const WIDENED_BITS: u32 = F32::FRAC - F16::FRAC;
        const REBIAS: u32 = ((F32::FORMAT.bias - F16::FORMAT.bias) as u32) << F32::FRAC;
        let m = x & Self::MAG;
        let v = if m >= Self::EXP {
            if m == Self::EXP {
                f64::INFINITY
            } else {
                f64::NAN
            }
        } else if m >= 1 << Self::FRAC {
            f32::from_bits((m << WIDENED_BITS) + REBIAS) as f64
        } else {
            // A subnormal: a count of steps of 2^(emin - frac), 2^-24.
            m as f64 / (1u32 << (Self::FRAC as i32 - Self::FORMAT.emin())) as f64
        };
        if x & Self::SIGN != 0 { -v } else { v }
    }

    #[inline]
    fn rne(v: f64) -> u32 {
        f16_nearest(v)
    }
}

/// The float16 nearest `v`, ties to even, from the `f64` directly (through f32 would
/// round twice). Written without branches on the value: the normal and the subnormal
/// steps are one formula (the exponent held at float16's smallest, -14), and NaN and
/// overflow are selected at the end.
pub(super) fn f16_nearest(v: f64) -> u32 {
    const EMIN: i32 = F16::FORMAT.emin();
    let sign = ((v.to_bits() >> (64 - F16::BITS)) as u32) & F16::SIGN;
    let a = v.abs();
    let e = (((a.to_bits() >> 52) as i32) - 1023).max(EMIN);
    // n is 1024 + fraction for a normal result (or 2048 when it rounds up to the next
    // power of two), the count of 2^-24 steps for a subnormal one.
    let n = nearest_integer(a * pow2(F16::FRAC as i32 - e));
    let finite = sign | (((e - EMIN) as u32) << F16::FRAC).wrapping_add(n);
    // 65520 is half-way between 65504 and the next power of two: ties go to the even
    // pattern, which is infinity.
    let special = sign
        | if a.is_nan() {
            F16::EXP | F16::QUIET
        } else {
            F16::EXP
        };
    if a < 65520.0 { finite } else { special }
}

/// The nearest integer to `0 <= x < 2^52`, ties to even: adding 2^52 leaves no fraction
/// bits, so the add rounds exactly so (cheaper than `round_ties_even` where the CPU has no
/// rounding instruction in its baseline).
#[inline]
fn nearest_integer(x: f64) -> u32 {
    ((x + TWO_52) - TWO_52) as u32
}

/// 2^k for a k of the normal range, built from its bits.
#[inline]
pub(super) fn pow2(k: i32) -> f64 {
    f64::from_bits(((1023 + k) as u64) << 52)
}

#[inline]
pub(super) fn is_nan<F: Fmt>(x: u32) -> bool {
    x & F::MAG > F::EXP
}

/// Normal: neither zero, subnormal, infinite nor NaN.
#[inline]
pub(super) fn normal<F: Fmt>(x: u32) -> bool {
    let e = x & F::EXP;
    e != 0 && e != F::EXP
}

/// A finite nonzero operand as the instruction reads it: normal, or a float16 subnormal.
#[inline]
pub(super) fn finite_nonzero<F: Fmt>(x: u32) -> bool {
    let m = x & F::MAG;
    m < F::EXP && (m >= 1 << F::FRAC || (!F::RULES_32 && m != 0))
}

/// An operand's value as the arithmetic reads it: 32-bit denorms as zeros (§3.1.3.2).
#[inline]
pub(super) fn read<F: Fmt>(x: u32) -> f64 {
    if F::RULES_32 && x & F::EXP == 0 {
        if x & F::SIGN != 0 { -0.0 } else { 0.0 }
    } else {
        F::to_f64(x)
    }
}

/// Position on the value line, the two zeros one point.
#[inline]
pub(super) fn ordinal<F: Fmt>(x: u32) -> i64 {
    let m = (x & F::MAG) as i64;
    if x & F::SIGN != 0 { -m } else { m }
}

/// Representable values between two non-NaN patterns.
#[inline]
pub(super) fn dist<F: Fmt>(a: u32, b: u32) -> u64 {
    ordinal::<F>(a).abs_diff(ordinal::<F>(b))
}

/// The pattern one step up (`up`) or down the value line from a nonzero finite one.
#[inline]
pub(super) fn step<F: Fmt>(x: u32, up: bool) -> u32 {
    if (x & F::SIGN == 0) == up {
        x + 1
    } else {
        x - 1
    }
}

/// Values from 2^52 up are integers already; below, the integer part fits an `i64`.
const TWO_52: f64 = 4_503_599_627_370_496.0;

/// `x.trunc()` for the values of the formats here, without the library call (and its
/// branches on the magnitude, which random data mispredicts): both answers are computed
/// and one is selected.
#[inline]
pub(super) fn trunc(v: f64) -> f64 {
    let t = ((v as i64) as f64).copysign(v);
    select(v.abs() < TWO_52, t, v)
}

/// `if c { a } else { b }` through a bit mask, so that no branch depends on the data.
#[inline]
fn select(c: bool, a: f64, b: f64) -> f64 {
    let m = u64::from(c).wrapping_neg();
    f64::from_bits((a.to_bits() & m) | (b.to_bits() & !m))
}

/// `x.round_ties_even()` for the values of the formats here, without the library call
/// (`rint`, a call where the baseline x86-64 has no rounding instruction): below 2^52 the
/// magnitude plus 2^52 keeps no fraction bit, so that add rounds ties to even, and the
/// sign goes back on after (-0.4 gives -0).
#[inline]
pub(super) fn round_ne(v: f64) -> f64 {
    let a = v.abs();
    let t = ((a + TWO_52) - TWO_52).copysign(v);
    select(a < TWO_52, t, v)
}

/// `x.floor()` as [`trunc`] does it: one step down for a negative value with a fraction.
#[inline]
pub(super) fn floor(v: f64) -> f64 {
    let t = (v as i64) as f64;
    let t = (t - f64::from(u8::from(t > v))).copysign(v);
    select(v.abs() < TWO_52, t, v)
}

/// The pattern a correctly rounded step writes: `e` itself, or for 32-bit arithmetic a
/// denorm `e` flushed to the zero of its sign (§3.1.3.2). It is always allowed: float16
/// rounds every result to nearest even (§3.1.5), overflow and underflow included; a 32-bit
/// add or multiply allows the rounded result (D3D11) or either neighbour (D3D10), infinity
/// beyond the range, and the flushed zero of a denorm.
#[inline]
pub(super) fn written<F: Fmt>(e: u32) -> u32 {
    if F::RULES_32 && e & F::EXP == 0 {
        e & F::SIGN
    } else {
        e
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{F16 as F16_FORMAT, RoundOptions, Rounding, round_f64};

    #[test]
    fn f16_nearest_matches_the_exact_rounding() {
        let check = |v: f64| {
            let want = round_f64(&F16_FORMAT, v, RoundOptions::new(Rounding::NearestEven)).bits;
            assert_eq!(f16_nearest(v) as u64, want, "{v:e}");
        };
        // Every pattern, the midpoints around it and a nudge either side of each.
        for bits in 0u32..0x7c00 {
            let x = F16::to_f64(bits);
            let next = F16::to_f64(bits + 1);
            let mid = (x + next) / 2.0;
            for v in [x, mid, mid.next_down(), mid.next_up(), -mid, x * 1.3] {
                check(v);
            }
        }
        for v in [
            65519.99,
            65520.0,
            1e300,
            f64::INFINITY,
            2f64.powi(-25),
            2f64.powi(-26),
        ] {
            check(v);
        }
    }

    #[test]
    fn branch_free_rounds_match_the_library_ones() {
        // Every f16 value, the f32 patterns on a stride that hits each binade's integers,
        // halves and quarters, each one's neighbours, and the edges of the f64 cut at 2^52.
        let mut values: Vec<f64> = (0u32..0x7c00).map(F16::to_f64).collect();
        for bits in (0u32..0x7f80_0000).step_by(997) {
            let x = f32::from_bits(bits) as f64;
            values.extend([x, x.next_up(), x.next_down()]);
        }
        for k in -3..=3 {
            for e in [0, 1, 2, 23, 24, 51, 52, 53] {
                values.push(2f64.powi(e) + f64::from(k) * 0.5);
            }
        }
        values.extend([0.5, 1.5, 2.5, 0.49999999999999994, f64::INFINITY, f64::MAX]);
        for v in values.iter().flat_map(|&v| [v, -v]) {
            let same = |got: f64, want: f64, name: &str| {
                assert_eq!(got.to_bits(), want.to_bits(), "{name}({v:e})");
            };
            same(round_ne(v), v.round_ties_even(), "round_ne");
            same(trunc(v), v.trunc(), "trunc");
            same(floor(v), v.floor(), "floor");
        }
    }
}
