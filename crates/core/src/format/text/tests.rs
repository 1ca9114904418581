//! Unit tests of the shortest-digit text (`format::text`).

use super::*;

/// Splits `d.ddde±x` into the digit string and the exponent of its last digit.
fn std_digits(s: &str) -> (String, i64) {
    let (mantissa, exp) = s.split_once('e').unwrap();
    let exp: i64 = exp.parse().unwrap();
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let frac_len = mantissa.split_once('.').map_or(0, |(_, f)| f.len()) as i64;
    (digits, exp - frac_len)
}
use crate::format::descriptor::{F10, F11, F16, F32, F64};

#[test]
fn shortest_small_formats() {
    assert_eq!(shortest_decimal(&F16, 0x3c00), "1");
    assert_eq!(shortest_decimal(&F16, 0x7bff), "65500");
    assert_eq!(shortest_decimal(&F16, 0x3555), "0.3333");
    assert_eq!(shortest_decimal(&F16, 0x0001), "6e-8");
    assert_eq!(shortest_decimal(&F16, 0x8000), "-0");
    assert_eq!(shortest_decimal(&F11, 0x7c0), "inf");
    assert_eq!(shortest_decimal(&F11, 0x7bf), "65000");
    assert_eq!(shortest_decimal(&F10, 0x3df), "65000");
}

#[test]
fn shortest_reference_agrees_with_std_on_f32_samples() {
    for bits in [
        1u64,
        0x0080_0000,
        0x3f80_0001,
        0x7f7f_ffff,
        0x3dcc_cccd,
        0x4b80_0000,
        0x0000_0f00,
    ] {
        let std = std_digits(&format!("{:e}", f32::from_bits(bits as u32)));
        assert_eq!(shortest_digits(&F32, bits), std, "{bits:#x}");
    }
}

/// The decode hot path (zmij) prints what the standard library's shortest digits give.
fn assert_matches_std(fmt: &FloatFormat, bits: u64) {
    let std = if fmt.width() == 64 {
        format!("{:e}", f64::from_bits(bits).abs())
    } else {
        format!("{:e}", f32::from_bits(bits as u32).abs())
    };
    let (digits, exp10) = std_digits(&std);
    let mut want = String::new();
    if fmt.fields(bits).sign {
        want.push('-');
    }
    layout_into(&mut want, &digits, exp10);
    assert_eq!(shortest_decimal(fmt, bits), want, "{bits:#x}");
}

#[test]
fn zmij_digits_are_the_standard_librarys() {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for _ in 0..200_000 {
        let r = next();
        for (fmt, bits) in [(&F32, r & 0xffff_ffff), (&F64, r)] {
            if matches!(fmt.class(bits), Class::Normal | Class::Subnormal) {
                assert_matches_std(fmt, bits);
            }
        }
    }
    // Every power of two and its neighbours, where the gaps change size.
    for e in 1..255u64 {
        for d in [0, 1, 0x7f_ffff] {
            assert_matches_std(&F32, (e << 23) + d);
        }
    }
    for e in 1..2047u64 {
        for d in [0, 1, (1 << 52) - 1] {
            assert_matches_std(&F64, (e << 52) + d);
        }
    }
    // 0x4a3b20fd is 3065919.25, halfway between 3065919.2 and 3065919.3.
    for bits in [
        1,
        0x7f_ffff,
        0x7f7f_ffff,
        0x4b80_0000,
        0x5a0e_1bca,
        0x4a3b_20fd,
    ] {
        assert_matches_std(&F32, bits);
    }
}

/// Every positive finite f32 (about a minute in release):
/// `cargo test --release --lib zmij_digits_on_every_f32 -- --ignored`.
#[test]
#[ignore]
fn zmij_digits_on_every_f32() {
    for bits in 1..0x7f80_0000u64 {
        assert_matches_std(&F32, bits);
    }
}

/// The integer search equals the exact one on every positive finite pattern of the small
/// formats.
#[test]
fn small_shortest_digits_equal_the_exact_search() {
    for fmt in [F16, F11, F10] {
        for bits in 1..=fmt.max_finite() {
            assert_eq!(
                small_shortest_digits(&fmt, bits),
                Some(shortest_digits(&fmt, bits)),
                "{} {bits:#x}",
                fmt.name
            );
        }
    }
}

#[test]
fn lifted_digits_drop_their_zeros() {
    let lift = |s: &str| {
        let mut d = [0u8; 40];
        let (n, e) = lift_digits(s, &mut d);
        (String::from_utf8(d[..n].to_vec()).unwrap(), e)
    };
    assert_eq!(lift("1.0"), ("1".into(), 0));
    assert_eq!(lift("100.0"), ("1".into(), 2));
    assert_eq!(lift("0.00001"), ("1".into(), -5));
    assert_eq!(lift("123.456"), ("123456".into(), -3));
    assert_eq!(lift("1.5e+20"), ("15".into(), 19));
    assert_eq!(lift("3.4028235e+38"), ("34028235".into(), 31));
    assert_eq!(lift("1e-45"), ("1".into(), -45));
}

#[test]
fn layout_switches_to_exponent_far_from_one() {
    assert_eq!(layout_decimal("1", -40), "1e-40");
    assert_eq!(layout_decimal("34028235", 31), "3.4028235e38");
    assert_eq!(layout_decimal("1", -4), "0.0001");
    assert_eq!(layout_decimal("1", -5), "1e-5");
    assert_eq!(layout_decimal("15", -1), "1.5");
    assert_eq!(shortest_decimal(&F64, 0.1f64.to_bits()), "0.1");
}

#[test]
fn hex_float_forms() {
    assert_eq!(hex_float(&F32, 0x4140_0000), "0x1.8p+3");
    assert_eq!(hex_float(&F16, 0x0001), "0x0.004p-14");
    assert_eq!(hex_float(&F11, 0x3c0), "0x1p+0");
    assert_eq!(hex_float(&F11, 0x3c1), "0x1.04p+0");
    assert_eq!(hex_float(&F32, 0x8000_0000), "-0x0p+0");
}
