//! sin and cos of a 32-bit operand of any size, for the fast deciders.
//!
//! The library's `sin` and `cos` of a large `f64` reduce the argument modulo π/2 with
//! hundreds of bits of 2/π, slowly (glibc's slow path starts near 2^27): nearly half of all
//! f32 patterns are beyond 100π, and an exhaustive sincos sweep spent most of its judging
//! time there. A 32-bit operand is `M * 2^E` with `M` below 2^24, so `x * 2/π mod 4` is
//! `M * (2^E * 2/π mod 4)`: one 128-bit product per operand with a table of that last
//! factor per exponent, made once from astro-float's π. What is left, a remainder of at
//! most π/4, is the library's fast case.
//!
//! Accuracy: each table entry is truncated to 126 fraction bits, so the product is within
//! `2^24 * 2^-126 = 2^-102` of the exact `x * 2/π mod 4`, and the remainder within
//! `2^-101` radians; its conversion to `f64` and the product with π/2 add a relative
//! 2^-52. Over every f32 operand from 2^7 up, no remainder is smaller than 2^-30 (the test
//! `remainders_of_every_large_f32_stay_far_from_zero` measures it), so sin and cos come
//! out within 2^-50 relative, far inside the deciders' margin of 2^-40.

use std::sync::OnceLock;

use astro_float::{BigFloat, Consts, RoundingMode};

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
    let biased = ((x >> 23) & 0xff) as i32;
    // An operand is M * 2^(biased - 150); finite ones only.
    let e = biased - 150;
    if !(E_MIN..=E_MAX).contains(&e) || biased == 0xff {
        return None;
    }
    let m = ((x & 0x7f_ffff) | 0x80_0000) as u128;
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

/// sin and cos of the f32 pattern `x`'s value `v` (NaN for infinities and NaN), within
/// 2^-50 relative (see the module's notes).
#[inline]
pub(super) fn sin_cos_f32(x: u32, v: f64) -> (f64, f64) {
    match reduce(x) {
        None => (v.sin(), v.cos()),
        Some((q, r)) => {
            let (s, c) = (r.sin(), r.cos());
            match q {
                0 => (s, c),
                1 => (c, -s),
                2 => (-s, -c),
                _ => (-c, s),
            }
        }
    }
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
            let bound = BigFloat::from_f64(2f64.powi(-50), 64);
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
    fn below_the_table_the_library_answers() {
        for v in [0.0f32, 1.0, -3.0, 127.9] {
            assert!(reduce(v.to_bits()).is_none());
            let (s, c) = sin_cos_f32(v.to_bits(), v as f64);
            assert_eq!((s, c), ((v as f64).sin(), (v as f64).cos()));
        }
        for bits in [0x7f80_0000u32, 0xff80_0000, 0x7fc0_0000] {
            assert!(reduce(bits).is_none());
        }
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
            }
        }
        assert!(smallest > 2f64.powi(-30), "smallest remainder {smallest:e}");
    }
}
