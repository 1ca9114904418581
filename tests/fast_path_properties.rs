//! `encode_fast` (the `f64` shortcut of `encode --plain`) against the exact parser on
//! arbitrary decimal and hex-float strings, in every format and rounding mode: where the
//! fast path answers, its bits are the exact path's.

use d3dfloat::format::{
    F10, F11, F16, F32, F64, FloatFormat, RoundOptions, Rounding, round_number,
};
use d3dfloat::input::short_decimal::read_short_decimal;
use d3dfloat::input::{Constants, encode_fast, parse_value};
use proptest::prelude::*;

mod common;

const FORMATS: [FloatFormat; 5] = [F64, F32, F16, F11, F10];

/// Decimals: an optional sign, digits around an optional point, an optional exponent
/// reaching past every format's range.
fn decimal() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec!["", "-", "+"]),
        "[0-9]{0,25}",
        prop::option::of("[0-9]{0,25}"),
        prop::option::of((prop::sample::select(vec!["e", "E"]), -420i32..420)),
    )
        .prop_filter_map("needs a digit", |(sign, int, frac, exp)| {
            let mut s = format!("{sign}{int}");
            if let Some(f) = &frac {
                s.push('.');
                s.push_str(f);
            }
            if int.is_empty() && frac.as_deref().is_none_or(str::is_empty) {
                return None;
            }
            if let Some((e, x)) = exp {
                s.push_str(&format!("{e}{x}"));
            }
            Some(s)
        })
}

/// Decimals written exactly at values and midpoints of the formats (where the fast path
/// must decline or agree): the shortest round trip of a random f64 pattern and its
/// neighbours' midpoints, printed in full.
fn boundary() -> impl Strategy<Value = String> {
    (any::<u64>(), 0usize..FORMATS.len(), any::<bool>()).prop_map(|(bits, f, mid)| {
        let fmt = FORMATS[f];
        let b = bits & fmt.mask();
        let x = fmt.to_f64(b);
        if mid && x.is_finite() {
            let next = fmt.to_f64((b + 1) & fmt.mask());
            format!("{:e}", (x + next) / 2.0)
        } else {
            format!("{x:e}")
        }
    })
}

/// Hex-floats, which the fast path leaves to the exact parser.
fn hex_float() -> impl Strategy<Value = String> {
    ("[0-9a-f]{1,15}", "[0-9a-f]{0,15}", -1100i32..1100)
        .prop_map(|(int, frac, e)| format!("0x{int}.{frac}p{e}"))
}

/// Every rounding mode, with and without saturation (`--rounding d3d` is toward zero).
fn modes() -> impl Iterator<Item = (Rounding, bool)> {
    Rounding::ALL
        .into_iter()
        .flat_map(|m| [(m, false), (m, true)])
}

fn agrees(text: &str) -> Result<(), TestCaseError> {
    for fmt in FORMATS {
        for (mode, saturate) in modes() {
            let opts = RoundOptions { mode, saturate };
            let Some(fast) = encode_fast(&fmt, text, opts) else {
                continue;
            };
            let exact = parse_value(text, Constants::Float(&fmt)).map_err(|e| {
                TestCaseError::fail(format!("{text}: fast path read it, exact refused: {e}"))
            })?;
            let slow = round_number(&fmt, &exact, opts).bits;
            prop_assert_eq!(fast, slow, "{} {} {:?}", text, fmt.name, opts);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn decimals_agree_with_the_exact_parser(text in decimal()) {
        agrees(&text)?;
    }

    #[test]
    fn boundaries_agree_with_the_exact_parser(text in boundary()) {
        agrees(&text)?;
    }

    #[test]
    fn hex_floats_take_the_exact_path(text in hex_float()) {
        for fmt in FORMATS {
            for (mode, saturate) in modes() {
                let opts = RoundOptions { mode, saturate };
                prop_assert_eq!(encode_fast(&fmt, &text, opts), None);
            }
        }
        agrees(&text)?;
    }
}

/// `fast` against the exact path for `text` in `fmt`, every mode and saturation.
fn agrees_in(fmt: &FloatFormat, text: &str) {
    for (mode, saturate) in modes() {
        let opts = RoundOptions { mode, saturate };
        if let Some(fast) = encode_fast(fmt, text, opts) {
            let exact = parse_value(text, Constants::Float(fmt)).unwrap();
            assert_eq!(
                fast,
                round_number(fmt, &exact, opts).bits,
                "{text} {} {opts:?}",
                fmt.name
            );
        }
    }
}

/// Every finite float16: its shortest decimal, the decimal of the `f64` halfway to the next
/// pattern up (the tie the fast path must leave to the exact one), and a value just off it.
#[test]
fn every_f16_value_and_midpoint_agrees_with_the_exact_path() {
    use d3dfloat::format::text::shortest_decimal;
    for bits in 0..0x7c00u64 {
        let x = F16.to_f64(bits);
        let next = F16.to_f64(bits + 1);
        let mid = (x + next) / 2.0;
        for sign in ["", "-"] {
            agrees_in(&F16, &format!("{sign}{}", shortest_decimal(&F16, bits)));
            agrees_in(&F16, &format!("{sign}{mid:e}"));
            agrees_in(&F16, &format!("{sign}{:e}", mid * (1.0 + f64::EPSILON)));
        }
    }
}

/// Random f32 and f64 patterns: their shortest decimals, and for f32 the midpoints.
#[test]
fn random_f32_and_f64_values_agree_with_the_exact_path() {
    use d3dfloat::format::text::shortest_decimal;
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for _ in 0..3000 {
        let r = next();
        let b32 = r & 0x7f7f_ffff;
        agrees_in(&F32, &shortest_decimal(&F32, b32));
        let mid = (F32.to_f64(b32) + F32.to_f64(b32 + 1)) / 2.0;
        agrees_in(&F32, &format!("{mid:e}"));
        let b64 = r & 0x7fef_ffff_ffff_ffff;
        agrees_in(&F64, &shortest_decimal(&F64, b64));
    }
}

/// The short-decimal reading (`f64` arithmetic a few units in the last place off) where it
/// matters most: decimals of 15 to 19 significant digits from 0 to 30000 units of their
/// last digit away from a value or a midpoint of the format (so from on the point to a few
/// hundred `f64` units off, either side of the reader's margin), in every small format and f32, with a
/// sign or none, in every mode. Reading them a unit off without the margin gives wrong bits
/// here (checked by hand by setting the margin to zero).
#[test]
fn long_decimals_next_to_values_and_midpoints_agree_with_the_exact_path() {
    let mut rng = common::Rng(0x5eed_1234_abcd_0001);
    let mut answered = 0;
    let mut tried = 0;
    for _ in 0..4000 {
        for fmt in [F32, F16, F11, F10] {
            let bits = rng.below(fmt.max_finite()) + 1;
            let x = fmt.to_f64(bits);
            let next = fmt.to_f64(bits + 1);
            let point = if rng.below(2) == 0 || next.is_infinite() {
                x
            } else {
                (x + next) / 2.0
            };
            let digits = 14 + rng.below(5) as usize;
            let printed = format!("{point:.digits$e}");
            let (mantissa, exp) = printed.split_once('e').unwrap();
            let whole: u64 = mantissa.replace('.', "").parse().unwrap();
            for nudge in [-30_000i64, -1000, -30, -3, -1, 0, 1, 3, 30, 1000, 30_000] {
                let Some(w) = whole.checked_add_signed(nudge) else {
                    continue;
                };
                let sign = ["", "-", "+"][rng.below(3) as usize];
                let text = format!("{sign}{w}e{}", exp.parse::<i64>().unwrap() - digits as i64);
                tried += 1;
                let quick = read_short_decimal(&text).is_some_and(|d| !d.exact);
                let opts = RoundOptions::new(Rounding::TowardZero);
                if quick && encode_fast(&fmt, &text, opts).is_some() {
                    answered += 1;
                }
                agrees_in(&fmt, &text);
            }
        }
    }
    // Many are read inexactly and still settled by the fast path, which is what is tested.
    assert!(answered * 10 > tried, "{answered} of {tried}");
}

/// Short decimals of every shape the quick reader takes or leaves (signs, leading zeros,
/// points, exponents at and past ±22 once the digits are whole, 19 and 20 digits, zeros),
/// against the exact path in every format and mode.
#[test]
fn short_decimal_shapes_agree_with_the_exact_path() {
    let mut rng = common::Rng(0x0dd_ba11);
    for _ in 0..20_000 {
        let n = 1 + rng.below(21) as usize;
        let mut digits: String = (0..n)
            .map(|_| char::from(b'0' + rng.below(10) as u8))
            .collect();
        if rng.below(4) == 0 {
            digits.insert_str(0, "000");
        }
        let point = rng.below(digits.len() as u64 + 1) as usize;
        if point > 0 && point < digits.len() {
            digits.insert(point, '.');
        }
        let sign = ["", "-", "+"][rng.below(3) as usize];
        let exp = match rng.below(4) {
            0 => String::new(),
            1 => format!("e{}", rng.below(60) as i64 - 30),
            2 => format!("E+{}", rng.below(30)),
            _ => format!("e-0{}", rng.below(30)),
        };
        let text = format!("{sign}{digits}{exp}");
        for fmt in FORMATS {
            agrees_in(&fmt, &text);
        }
    }
}
