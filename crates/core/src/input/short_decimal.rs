//! A quick reading of the common short decimal (`-1182.1165638151106`, `3.5e-7`) as an
//! `f64`, for the fast path of `encode --plain`: at most 19 significant digits and a small
//! power of ten, so that the value is one `u64` times or over one exact power of ten. It
//! declines everything else (the standard parser then reads the text as before).

/// A decimal read by [`read_short_decimal`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShortDecimal {
    /// The value in `f64`: within [`ShortDecimal::MAX_ERROR_ULPS`] units in the last place
    /// of the decimal's true value, and exactly the correctly rounded value when `exact`.
    pub value: f64,
    /// Whether `value` is the decimal rounded once to nearest (ties to even), the
    /// standard parser's answer (both factors exact in `f64`: Clinger's fast path).
    pub exact: bool,
}

impl ShortDecimal {
    /// How far `value` may lie from the true value, in units in the last place of `value`.
    /// At most three roundings of relative size 2^-53 each (the digits to `f64`, a negative
    /// power of ten to `f64`, the product) move it by at most about 1.5 * 2^-52 of the
    /// value, which is at most three units in the last place of `value` (an `f64` in
    /// [2^k, 2^(k+1)) has units of 2^(k-52)); more than twice that is kept as a margin.
    pub const MAX_ERROR_ULPS: u64 = 8;
}

/// Powers of ten that `f64` holds exactly (5^22 < 2^53).
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// The nearest `f64` to each 10^-k.
const NEG_POW10: [f64; 23] = [
    1e0, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11, 1e-12, 1e-13, 1e-14,
    1e-15, 1e-16, 1e-17, 1e-18, 1e-19, 1e-20, 1e-21, 1e-22,
];

/// Reads `[+-]digits[.digits][(e|E)[+-]digits]` (digits on both sides of a point, no
/// white space, no underscores: a subset of what the standard `f64` parser accepts, with
/// the same meaning) when it has at most 19 significant digits, its value is not zero and
/// its power of ten, once the digits are a whole number, lies within ±22. `None` otherwise.
pub fn read_short_decimal(text: &str) -> Option<ShortDecimal> {
    let bytes = text.as_bytes();
    let mut i = 0;
    let neg = match bytes.first()? {
        b'-' => {
            i = 1;
            true
        }
        b'+' => {
            i = 1;
            false
        }
        _ => false,
    };
    // The digits as one integer; leading zeros are not significant.
    let int_start = i;
    while bytes.get(i) == Some(&b'0') {
        i += 1;
    }
    let mut w = 0u64;
    let mut significant = 0u32;
    digit_run(bytes, &mut i, &mut w, &mut significant)?;
    if i == int_start {
        // No digit before the point (`.5`, `-`): the standard parser's business.
        return None;
    }
    let mut frac_digits = 0i32;
    if bytes.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        if w == 0 {
            while bytes.get(i) == Some(&b'0') {
                i += 1;
            }
        }
        digit_run(bytes, &mut i, &mut w, &mut significant)?;
        frac_digits = (i - start) as i32;
        if frac_digits == 0 {
            return None;
        }
    }
    let mut exp = 0i32;
    if let Some(b'e' | b'E') = bytes.get(i) {
        i += 1;
        let exp_neg = match bytes.get(i) {
            Some(b'-') => {
                i += 1;
                true
            }
            Some(b'+') => {
                i += 1;
                false
            }
            _ => false,
        };
        let start = i;
        while let Some(&b) = bytes.get(i)
            && b.is_ascii_digit()
        {
            // Past four digits the power is out of reach whatever the fraction.
            if i - start == 4 {
                return None;
            }
            exp = exp * 10 + i32::from(b - b'0');
            i += 1;
        }
        if i == start {
            return None;
        }
        if exp_neg {
            exp = -exp;
        }
    }
    if i != bytes.len() || w == 0 {
        return None;
    }
    let q = exp - frac_digits;
    if !(-22..=22).contains(&q) {
        return None;
    }
    let k = q.unsigned_abs() as usize;
    // Exact when `w` converts without rounding: then one rounding, the product's or the
    // quotient's, gives the correctly rounded value. Otherwise a product by the nearest
    // `f64` to 10^-k stands in for the slower quotient (one more rounding).
    let exact = w <= 1 << 53;
    let m = w as f64;
    let magnitude = if q >= 0 {
        m * POW10[k]
    } else if exact {
        m / POW10[k]
    } else {
        m * NEG_POW10[k]
    };
    Some(ShortDecimal {
        value: if neg { -magnitude } else { magnitude },
        exact,
    })
}

/// Reads the digits from `bytes[*i]` on into `w`, eight at a time, and returns how many
/// there were; `None` past 19 significant digits in all (10^19 < 2^64).
#[inline]
fn digit_run(bytes: &[u8], i: &mut usize, w: &mut u64, significant: &mut u32) -> Option<u32> {
    let mut total = 0;
    loop {
        let (value, n) = match bytes.get(*i..*i + 8) {
            Some(eight) => eight_digits(u64::from_le_bytes(eight.try_into().ok()?)),
            None => {
                // The last few bytes, one at a time.
                let mut value = 0u64;
                let mut n = 0;
                while let Some(&b) = bytes.get(*i + n as usize)
                    && b.is_ascii_digit()
                {
                    value = value * 10 + u64::from(b - b'0');
                    n += 1;
                }
                (value, n)
            }
        };
        if n > 0 {
            *significant += n;
            if *significant > 19 {
                return None;
            }
            *w = *w * POW10_INT[n as usize] + value;
            *i += n as usize;
            total += n;
        }
        if n < 8 {
            return Some(total);
        }
    }
}

/// Powers of ten up to 10^8, as integers.
const POW10_INT: [u64; 9] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
];

/// The leading decimal digits of eight bytes (the first byte in the low bits): their
/// value and how many there are (0 to 8), without a branch per byte.
#[inline]
fn eight_digits(word: u64) -> (u64, u32) {
    const ONES: u64 = 0x0101_0101_0101_0101;
    // A byte is a digit when its high nibble is 3 and adding 6 leaves it at 3.
    let high = |w: u64| (w & 0xf0f0_f0f0_f0f0_f0f0) ^ 0x3030_3030_3030_3030;
    let digit_bits = high(word) | high(word.wrapping_add(0x0606_0606_0606_0606));
    // A byte of `digit_bits` is zero exactly where the byte is a digit; mark the others
    // with their top bit (exactly, with no carry from one byte into the next).
    let low7 = 0x7f7f_7f7f_7f7f_7f7fu64;
    let not_digit = (((digit_bits & low7) + low7) | digit_bits) & !low7;
    let n = not_digit.trailing_zeros() / 8;
    if n == 0 {
        return (0, 0);
    }
    // The n digits moved to the top bytes, zeros below, then combined pairwise.
    let digits = word.wrapping_sub(0x30 * ONES) << (8 * (8 - n));
    let pairs = (digits & 0x0f0f_0f0f_0f0f_0f0f).wrapping_mul(10 << 8 | 1) >> 8;
    let fours = (pairs & 0x00ff_00ff_00ff_00ff).wrapping_mul(100 << 16 | 1) >> 16;
    let value = (fours & 0x0000_ffff_0000_ffff).wrapping_mul(10_000 << 32 | 1) >> 32;
    (value, n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_common_forms() {
        let read = |t: &str| read_short_decimal(t).map(|d| (d.value, d.exact));
        assert_eq!(read("1"), Some((1.0, true)));
        assert_eq!(read("-0.5"), Some((-0.5, true)));
        assert_eq!(read("+12.25e2"), Some((1225.0, true)));
        assert_eq!(read("3E-7"), Some((3e-7, true)));
        assert_eq!(read("0.1"), Some((0.1, true)));
        assert_eq!(read("000123.4500"), Some((123.45, true)));
        assert_eq!(read("1e22"), Some((1e22, true)));
        assert_eq!(read("1e-22"), Some((1e-22, true)));
        assert_eq!(read("9999999999999999999"), Some((1e19, false)));
        assert_eq!(read("1182.1165638151106").map(|r| r.1), Some(false));
    }

    #[test]
    fn declines_what_it_cannot_settle() {
        for t in [
            "",
            "-",
            "+",
            ".5",
            "1.",
            "1e",
            "1e+",
            "e5",
            "1_0",
            " 1",
            "1 ",
            "0",
            "-0.000",
            "0e5",
            "1e23",
            "1e-23",
            "1.5e-22",
            "10000000000000000000",
            "1.0000000000000000000",
            "1e00001",
            "inf",
            "nan",
            "0x1p3",
            "1..2",
            "1.2.3",
            "1e5e5",
            "١",
        ] {
            assert_eq!(read_short_decimal(t), None, "{t:?}");
        }
        // Leading zeros are not significant digits, trailing ones are.
        assert!(read_short_decimal("0.0000000000000000000000001234e20").is_some());
        assert!(read_short_decimal("1234567890.123456789").is_some());
        assert!(read_short_decimal("1234567890.1234567890").is_none());
    }

    /// Where it answers, the standard parser reads the same text, and to the same `f64`
    /// when `exact`, else to within the promised error.
    #[test]
    fn agrees_with_the_standard_parser() {
        let mut x = 0x1234_5678_9abc_def1u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..200_000 {
            let r = next();
            let digits = (r % 20) as usize + 1;
            let w = next() % 10u64.pow(digits.min(19) as u32);
            let point = (r >> 8) as usize % (digits + 2);
            let mut text = format!("{w:0digits$}");
            if point > 0 && point < text.len() {
                text.insert(point, '.');
            }
            if r >> 20 & 1 == 1 {
                text.push_str(&format!("e{}", (r >> 24) as i32 % 30));
            }
            if r >> 40 & 1 == 1 {
                text.insert(0, '-');
            }
            let Some(quick) = read_short_decimal(&text) else {
                continue;
            };
            let std: f64 = text.parse().expect("the standard parser reads it too");
            if quick.exact {
                assert_eq!(quick.value.to_bits(), std.to_bits(), "{text}");
            } else {
                let apart = quick.value.to_bits().abs_diff(std.to_bits());
                assert!(apart <= 4, "{text}: {} vs {std}", quick.value);
            }
        }
    }
}
