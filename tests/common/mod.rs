//! Test code shared by several integration test files (`mod common;` in each). Written
//! independently of the crate, so it can serve as a reference.

#![allow(dead_code)]

use num_bigint::BigUint;

/// The exact decimal of `m * 2^e` as (integer digits, fraction digits without trailing
/// zeros), computed with `BigUint`: `m * 2^e = m * 5^-e / 10^-e`.
pub fn exact_parts(m: u64, e: i64) -> (String, String) {
    if e >= 0 {
        return ((BigUint::from(m) << e as usize).to_string(), String::new());
    }
    let places = (-e) as usize;
    let digits = (BigUint::from(m) * BigUint::from(5u32).pow((-e) as u32)).to_string();
    let padded = format!(
        "{}{digits}",
        "0".repeat((places + 1).saturating_sub(digits.len()))
    );
    let (int, frac) = padded.split_at(padded.len() - places);
    (int.to_string(), frac.trim_end_matches('0').to_string())
}

/// The exact decimal of `m * 2^e`: `1.00048828125`, `65504`.
pub fn exact_decimal(m: u64, e: i64) -> String {
    let (int, frac) = exact_parts(m, e);
    if frac.is_empty() {
        int
    } else {
        format!("{int}.{frac}")
    }
}

/// The exact decimal of `(-1)^neg * m * 2^e`.
pub fn exact_signed_decimal(neg: bool, m: u64, e: i64) -> String {
    let body = exact_decimal(m, e);
    if neg { format!("-{body}") } else { body }
}

/// A small deterministic generator (xorshift64*), so failures reproduce.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// `n` bytes from splitmix64 seeded with `seed`, for reproducible data (16 of them make a
/// BC6H block; reserved modes decode to zero, so random bytes try every mode and
/// partition).
pub fn random_bytes(n: usize, seed: u64) -> Vec<u8> {
    let mut state = seed;
    (0..n)
        .map(|_| {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            (z ^ (z >> 31)) as u8
        })
        .collect()
}

/// f32 patterns where something happens in every conversion: both zeros and infinities,
/// quiet and signalling NaNs with payloads, the smallest subnormal, the largest subnormal
/// (negative), the smallest normal and the largest finite values.
pub const F32_SPECIALS: [u32; 16] = [
    0x0000_0000,
    0x8000_0000,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0xffc0_0000,
    0x7f80_0001,
    0xff80_0001,
    0x7fbf_ffff,
    0x7fa0_1234,
    0xffe0_4321,
    0x0000_0001,
    0x807f_ffff,
    0x0080_0000,
    0x7f7f_ffff,
    0xff7f_ffff,
];
