//! The formats as the fast deciders read them: a float16 or float32 pattern in the low bits
//! of a `u32`, its value as an `f64`, the nearest pattern of an `f64`, positions on the
//! value line, and the few `f64` roundings the deciders need without library calls (whose
//! branches on the magnitude random data mispredicts).

/// A float format as the deciders read it: a pattern in the low bits of a `u32`.
pub(super) trait Fmt {
    const BITS: u32;
    const FRAC: u32;
    /// 32-bit rules: denorms flushed on input and output (§3.1.3.2), sqrt within 1 ULP.
    const WIDE: bool;
    /// The smallest normal and the largest finite value.
    const MIN_NORMAL: f64;
    const MAX: f64;
    const SIGN: u32 = 1 << (Self::BITS - 1);
    const MAG: u32 = Self::SIGN - 1;
    const EXP: u32 = Self::MAG & !((1 << Self::FRAC) - 1);

    /// The value of a pattern (no flush).
    fn to_f64(x: u32) -> f64;
    /// The correctly rounded pattern of a value (ties to even, overflow to infinity).
    fn rne(v: f64) -> u32;
}

pub(super) struct F32;
pub(super) struct F16;

impl F32 {
    #[cfg(test)]
    pub(super) fn is_denorm_or_nan(x: u32) -> bool {
        let m = x & Self::MAG;
        (m != 0 && m < 1 << Self::FRAC) || m > Self::EXP
    }
}

impl Fmt for F32 {
    const BITS: u32 = 32;
    const FRAC: u32 = 23;
    const WIDE: bool = true;
    const MIN_NORMAL: f64 = f32::MIN_POSITIVE as f64;
    const MAX: f64 = f32::MAX as f64;

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
    const BITS: u32 = 16;
    const FRAC: u32 = 10;
    const WIDE: bool = false;
    const MIN_NORMAL: f64 = 1.0 / (1u32 << 14) as f64;
    const MAX: f64 = 65504.0;

    #[inline]
    fn to_f64(x: u32) -> f64 {
        let m = x & 0x7fff;
        let v = if m >= 0x7c00 {
            if m == 0x7c00 { f64::INFINITY } else { f64::NAN }
        } else if m >= 0x400 {
            // Rebias the exponent (15 to 127) and widen the fraction: an exact f32.
            f32::from_bits((m << 13) + (112 << 23)) as f64
        } else {
            m as f64 / (1u32 << 24) as f64
        };
        if x & 0x8000 != 0 { -v } else { v }
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
    let sign = ((v.to_bits() >> 48) & 0x8000) as u32;
    let a = v.abs();
    let e = (((a.to_bits() >> 52) as i32) - 1023).max(-14);
    // n is 1024 + fraction for a normal result (or 2048 when it rounds up to the next
    // power of two), the count of 2^-24 steps for a subnormal one.
    let n = nearest_integer(a * pow2(10 - e));
    let finite = sign | (((e + 14) as u32) << 10).wrapping_add(n);
    // 65520 is half-way between 65504 and the next power of two: ties go to the even
    // pattern, which is infinity.
    let special = sign | if a.is_nan() { 0x7e00 } else { 0x7c00 };
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
    m < F::EXP && (m >= 1 << F::FRAC || (!F::WIDE && m != 0))
}

/// An operand's value as the arithmetic reads it: 32-bit denorms as zeros (§3.1.3.2).
#[inline]
pub(super) fn read<F: Fmt>(x: u32) -> f64 {
    if F::WIDE && x & F::EXP == 0 {
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
    if F::WIDE && e & F::EXP == 0 {
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
