//! Powers of two as `f64`, built from the exponent bits (no libm call): the batch and bulk
//! conversion hot paths scale by them.

/// `2^e` for `e` in f64's normal exponent range, -1022 to 1023, with no range check: the
/// bulk conversion kernels call it inside branch-free vectorised loops, which compute it
/// for every lane and discard the lanes (zero, NaN, infinity) where `e` is out of range.
/// There the result is meaningless; [`pow2`] is the total version.
#[inline(always)]
pub const fn pow2_normal(e: i32) -> f64 {
    f64::from_bits(((1023 + e) as u64) << 52)
}

/// `2^e` for any `e`: exact down to f64's smallest subnormal 2^-1074, then 0; infinity
/// above 2^1023.
#[inline]
pub fn pow2(e: i32) -> f64 {
    match e {
        -1022..=1023 => pow2_normal(e),
        // f64's subnormal powers of two.
        -1074..=-1023 => f64::from_bits(1u64 << (e + 1074)),
        _ if e < 0 => 0.0,
        _ => f64::INFINITY,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal_powers_are_exact() {
        for k in -1022..=1023 {
            assert_eq!(pow2_normal(k), 2f64.powi(k));
            assert_eq!(pow2(k), 2f64.powi(k));
        }
    }

    #[test]
    fn beyond_the_normal_range() {
        assert_eq!(pow2(-1074), f64::from_bits(1));
        assert_eq!(pow2(-1023), 2f64.powi(-1023));
        assert_eq!(pow2(-1075), 0.0);
        assert_eq!(pow2(1024), f64::INFINITY);
    }
}
