//! sin and cos of a 32-bit operand of any size, for the fast deciders, without the library.
//!
//! An exhaustive sincos sweep judges 2^32 operands, and the library's `sin` and `cos` were
//! most of its judging time: slow beyond 2^27 (hundreds of bits of 2/π), and a call each
//! below, which the processor cannot overlap with its neighbours. Here an operand is first
//! reduced to a quadrant `q` and a remainder `r`, `|r| <= π/4`, then two polynomials give
//! sin r and cos r, and the quadrant picks and negates them by bit masks, not branches (a
//! `match` on the quadrant mispredicted on every other line).
//!
//! - From 2^7 up ([`reduce`]): a 32-bit operand is `M * 2^E` with `M` below 2^24, so
//!   `x * 2/π mod 4` is `M * (2^E * 2/π mod 4)`: one 128-bit product per operand with a
//!   table of that last factor per exponent, made once from astro-float's π. Each entry is
//!   truncated to 126 fraction bits, so the product is within `2^24 * 2^-126 = 2^-102` of
//!   the exact value and the remainder within `2^-101` radians.
//! - Below 2^7 ([`reduce_small`]): `k` the nearest integer to `x * 2/π` (at most 82) and
//!   `r = x - k * π/2` with π/2 in three parts (fdlibm's split: 33, 33 and 53 bits). `k`
//!   times the first part is exact and so is the difference (Sterbenz: `x` is within a
//!   factor of 2 of it when `k >= 1`); the other two steps round once each, 2^-53 of `r`,
//!   and the split leaves `2^-113` radians out.
//!
//! Over every f32 operand, no nonzero remainder is smaller than 2^-30 (the ignored tests
//! measure it), so each reduction is within 2^-52 of `r` relative; the polynomials
//! ([`sin_cos_small`]) add 2^-58 and a few roundings. The tests bound the whole at 2^-48 relative
//! against astro-float, far inside the deciders' margin of 2^-40.

use std::sync::OnceLock;

use astro_float::{BigFloat, Consts, RoundingMode};

use super::bits::F32;
use crate::format::FormatType;

/// The smallest and largest `E` (an operand is `M * 2^E`, `M` below 2^24) the table
/// covers: operands from 2^7 (below, the library's own reduction is quick and exact
/// enough) to the largest f32.
const E_MIN: i32 = -16;
const E_MAX: i32 = 104;

/// `2^E * 2/π mod 4` for each `E` from [`E_MIN`], in fixed point: 2 integer bits and 126
/// fraction bits, truncated.
fn table() -> &'static [u128] {
    static TABLE: OnceLock<Vec<u128>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let bits = two_over_pi_bits(E_MAX as usize + 130);
        (E_MIN..=E_MAX)
            .map(|e| {
                // Bit i of 2/π (weight 2^-i) has weight 2^(e - i) in 2^e * 2/π, which is
                // position e - i + 126 of the fixed point; weights of 4 and above are the
                // multiples of 4 that `mod 4` drops.
                (1..bits.len() as i32)
                    .filter(|&i| (0..128).contains(&(e - i + 126)) && bits[i as usize])
                    .fold(0u128, |acc, i| acc | 1u128 << (e - i + 126))
            })
            .collect()
    })
}

/// The first `n` fraction bits of 2/π (`bits[i]` has weight 2^-i; `bits[0]` is the units
/// bit, 0), from astro-float's π at a precision well beyond them.
fn two_over_pi_bits(n: usize) -> Vec<bool> {
    let p = n + 128;
    let mut cc = Consts::new().expect("astro-float constants");
    let pi = cc.pi(p, RoundingMode::ToEven);
    let t = BigFloat::from_word(2, 64).div(&pi, p, RoundingMode::ToEven);
    let (words, _, _, exponent, _) = t.as_raw_parts().expect("2/π is a number");
    // The value is 0.m * 2^exponent with m's top bit the top bit of the last word.
    let top = words.len() * 64;
    let mantissa_bit = |j: usize| -> bool {
        j < top && (words[words.len() - 1 - j / 64] >> (63 - j % 64)) & 1 == 1
    };
    // m's bit j (from the top, 0 first) has weight 2^(exponent - 1 - j): fraction bit
    // i = j + 1 - exponent.
    (0..=n)
        .map(|i| {
            let j = i as i64 - 1 + exponent as i64;
            j >= 0 && mantissa_bit(j as usize)
        })
        .collect()
}

/// The quadrant `q` (mod 4) and remainder `r` (|r| <= π/4) with `x = q * π/2 + r`, for a
/// finite f32 pattern `x` of magnitude at least 2^7; `None` below.
#[inline]
pub(super) fn reduce(x: u32) -> Option<(u32, f64)> {
    let f = F32::FORMAT;
    let biased = (x & F32::EXP) >> F32::FRAC;
    // An operand is M * 2^(biased - 150); finite ones only.
    let e = biased as i32 - (f.bias + F32::FRAC as i32);
    if !(E_MIN..=E_MAX).contains(&e) || biased == f.max_exp_field() {
        return None;
    }
    let m = ((x & f.frac_mask() as u32) | 1 << F32::FRAC) as u128;
    let c = table()[(e - E_MIN) as usize];
    // M * c mod 4, then to the nearest quadrant: the fraction left is in [-1/2, 1/2).
    let p = m.wrapping_mul(c).wrapping_add(1 << 125);
    let q = (p >> 126) as u32;
    let f = (p & ((1 << 126) - 1)) as i128 - (1 << 125);
    let r = f as f64 * (1.0 / (1u128 << 126) as f64) * std::f64::consts::FRAC_PI_2;
    let q = if x >> 31 == 1 { q.wrapping_neg() } else { q } & 3;
    let r = if x >> 31 == 1 { -r } else { r };
    Some((q, r))
}

/// The quadrant and remainder of an operand's value `v` below 2^7 in magnitude (see the
/// module's notes): `v = k * π/2 + r`, `k = q mod 4`. No branch.
#[inline(always)]
pub(super) fn reduce_small(v: f64) -> (u32, f64) {
    // fdlibm's π/2 split: 33 bits, the next 33, and the 53 after them.
    const PIO2_1: f64 = 1.5707963267341256;
    const PIO2_2: f64 = 6.077100506303966e-11;
    const PIO2_2T: f64 = 2.0222662487959506e-21;
    // Adding 1.5 * 2^52 rounds to an integer (ties to even) and leaves it in the low
    // mantissa bits: 2^51 + k there, which is k mod 4 in the last two.
    const SHIFT: f64 = 6_755_399_441_055_744.0;
    let kk = v * std::f64::consts::FRAC_2_PI + SHIFT;
    let q = (kk.to_bits() & 3) as u32;
    let k = kk - SHIFT;
    (q, ((v - k * PIO2_1) - k * PIO2_2) - k * PIO2_2T)
}

/// sin r and cos r for `|r| <= π/4` (and a little past it: the reductions round), by
/// fdlibm's minimax polynomials (`__kernel_sin`, `__kernel_cos`: within 2^-58 of
/// `sin r / r` and of `cos r`'s part past `1 - r^2/2` on that interval). Each is summed as
/// pairs of terms (Estrin's scheme) rather than one chain of multiplies and adds: the chain's
/// latency, not the count of operations, was this function's cost. No branch.
#[inline(always)]
pub(super) fn sin_cos_small(r: f64) -> (f64, f64) {
    const S: [f64; 6] = [
        -0.16666666666666632,
        0.00833333333332249,
        -0.0001984126982985795,
        2.7557313707070068e-06,
        -2.5050760253406863e-08,
        1.58969099521155e-10,
    ];
    const C: [f64; 6] = [
        0.0416666666666666,
        -0.001388888888887411,
        2.480158728947673e-05,
        -2.7557314351390663e-07,
        2.087572321298175e-09,
        -1.1359647557788195e-11,
    ];
    let z = r * r;
    let z2 = z * z;
    let z4 = z2 * z2;
    let estrin = |k: &[f64; 6]| (k[0] + z * k[1]) + z2 * (k[2] + z * k[3]) + z4 * (k[4] + z * k[5]);
    let sin = r + r * z * estrin(&S);
    let cos = (1.0 - 0.5 * z) + z2 * estrin(&C);
    // sin(-0) is -0, where the sum above gives +0.
    (if r == 0.0 { r } else { sin }, cos)
}

/// sin and cos of `k * π/2 + r` (`q = k mod 4`) from sin r and cos r, by masks: odd
/// quadrants swap the two, quadrants 2 and 3 negate the sine, 1 and 2 the cosine.
#[inline(always)]
fn by_quadrant(q: u32, (s, c): (f64, f64)) -> (f64, f64) {
    let q = u64::from(q & 3);
    let swap = (q & 1).wrapping_neg();
    let (s, c) = (s.to_bits(), c.to_bits());
    let sin = (s & !swap) | (c & swap);
    let cos = (c & !swap) | (s & swap);
    let sin_sign = (q & 2) << 62;
    let cos_sign = ((q + 1) & 2) << 62;
    (
        f64::from_bits(sin ^ sin_sign),
        f64::from_bits(cos ^ cos_sign),
    )
}

/// sin and cos of the f32 pattern `x`'s value `v` (NaN for infinities and NaN), within
/// 2^-48 relative (see the module's notes).
#[inline(always)]
pub(super) fn sin_cos_f32(x: u32, v: f64) -> (f64, f64) {
    let (q, r) = if x & F32::MAG < 0x4300_0000 {
        reduce_small(v)
    } else {
        match reduce(x) {
            Some(qr) => qr,
            None => return (f64::NAN, f64::NAN),
        }
    };
    by_quadrant(q, sin_cos_small(r))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_starts_with_the_known_bits_of_two_over_pi() {
        // 2/π = 0.A2F9836E4E441529FC... (hex), as every argument reduction table has it.
        let bits = two_over_pi_bits(72);
        let word = |from: usize| (from..from + 24).fold(0u32, |a, i| a << 1 | bits[i] as u32);
        assert_eq!(word(1), 0xA2F983);
        assert_eq!(word(25), 0x6E4E44);
        assert_eq!(word(49), 0x1529FC);
    }

    /// An f32 pattern's sine and cosine through the exact reduction against astro-float's
    /// at 512 bits (which reduces with its own π).
    fn against_astro(x: u32) {
        let v = f32::from_bits(x) as f64;
        let (s, c) = sin_cos_f32(x, v);
        let mut cc = Consts::new().unwrap();
        let bx = BigFloat::from_f64(v, 512);
        for (got, want) in [
            (s, bx.sin(512, RoundingMode::ToEven, &mut cc)),
            (c, bx.cos(512, RoundingMode::ToEven, &mut cc)),
        ] {
            let diff = BigFloat::from_f64(got, 64).sub(&want, 512, RoundingMode::ToEven);
            let rel = diff.div(&want, 64, RoundingMode::ToEven).abs();
            let bound = BigFloat::from_f64(2f64.powi(-48), 64);
            assert!(
                rel.cmp(&bound).is_some_and(|o| o <= 0),
                "{x:#010x}: {got} against {want}, relative {rel}"
            );
        }
    }

    #[test]
    fn large_operands_agree_with_astro_float() {
        // Every exponent the table covers, both signs, the ends of each binade and one
        // random fraction in each.
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for biased in 134..=254u32 {
            for sign in [0, 0x8000_0000] {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                for frac in [0, 0x7f_ffff, seed as u32 & 0x7f_ffff] {
                    against_astro(sign | biased << 23 | frac);
                }
            }
        }
    }

    #[test]
    fn small_operands_agree_with_astro_float() {
        // Every binade below the table's, both signs, its ends and one random fraction;
        // and the f32 values nearest the multiples of π/2 it reduces, where the remainder
        // is smallest.
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for biased in 1..134u32 {
            for sign in [0, 0x8000_0000] {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                for frac in [0, 0x7f_ffff, seed as u32 & 0x7f_ffff] {
                    against_astro(sign | biased << 23 | frac);
                }
            }
        }
        for k in 1..=81 {
            let near = (k as f64 * std::f64::consts::FRAC_PI_2) as f32;
            for x in [near.to_bits() - 1, near.to_bits(), near.to_bits() + 1] {
                against_astro(x);
                against_astro(x | 0x8000_0000);
            }
        }
    }

    #[test]
    fn zeros_infinities_and_nans() {
        assert_eq!(sin_cos_f32(0, 0.0), (0.0, 1.0));
        let (s, c) = sin_cos_f32(0x8000_0000, -0.0);
        assert_eq!((s.to_bits(), c), ((-0.0f64).to_bits(), 1.0));
        for bits in [0x7f80_0000u32, 0xff80_0000, 0x7fc0_0000, 0xffc0_0001] {
            assert!(reduce(bits).is_none());
            let (s, c) = sin_cos_f32(bits, f32::from_bits(bits) as f64);
            assert!(s.is_nan() && c.is_nan(), "{bits:#x}");
        }
    }

    #[test]
    fn each_quadrant_picks_and_negates_as_the_identities_say() {
        let (s, c) = (0.25f64, 0.75f64);
        let want = [(s, c), (c, -s), (-s, -c), (-c, s)];
        for q in 0..8u32 {
            assert_eq!(by_quadrant(q, (s, c)), want[q as usize % 4], "quadrant {q}");
        }
    }

    /// [`sin_cos_f32`] of pattern `x` (value `v`) within 2^-48 of the library's sin and cos.
    fn near_the_library(x: u32, v: f64) {
        let (s, c) = sin_cos_f32(x, v);
        assert!(
            (s - v.sin()).abs() <= v.sin().abs() * 2f64.powi(-48),
            "{x:#x}"
        );
        assert!(
            (c - v.cos()).abs() <= v.cos().abs() * 2f64.powi(-48),
            "{x:#x}"
        );
    }

    /// Every f32 pattern below 2^7: the remainder's magnitude never falls below 2^-30
    /// where something is taken off (from π/4 up) and sin and cos agree with the library's to 2^-48. About 2^30
    /// operands: run with `cargo test --release --lib remainders_of_every -- --ignored`.
    #[test]
    #[ignore]
    fn remainders_of_every_small_f32_stay_far_from_zero() {
        let mut smallest = f64::MAX;
        for x in 1..0x4300_0000u32 {
            let v = f32::from_bits(x) as f64;
            let (_, r) = reduce_small(v);
            // Below π/4 the remainder is the operand itself, exactly.
            if v > std::f64::consts::FRAC_PI_4 {
                smallest = smallest.min(r.abs());
            }
            near_the_library(x, v);
        }
        assert!(smallest > 2f64.powi(-30), "smallest remainder {smallest:e}");
    }

    /// Every f32 pattern the table reduces: the remainder's magnitude never falls below
    /// 2^-30 (the module's accuracy rests on it) and agrees with the library's sin and cos
    /// (glibc's slow path, its own 2/π) to 2^-48. About 2^31 operands: run with
    /// `cargo test --release --lib remainders_of_every -- --ignored`.
    #[test]
    #[ignore]
    fn remainders_of_every_large_f32_stay_far_from_zero() {
        let mut smallest = f64::MAX;
        for biased in 134..=254u32 {
            for frac in 0..=0x7f_ffffu32 {
                let x = biased << 23 | frac;
                let (_, r) = reduce(x).unwrap();
                smallest = smallest.min(r.abs());
                if frac % 4099 == 0 {
                    let v = f32::from_bits(x) as f64;
                    near_the_library(x, v);
                }
            }
        }
        assert!(smallest > 2f64.powi(-30), "smallest remainder {smallest:e}");
    }
}
