//! Text forms of f32 and f64 patterns (and hex-floats of every format), against references
//! written here:
//! - `exact_decimal`: the expansion of m * 2^e computed with BigUint;
//! - `shortest_decimal`: read back by the standard library's correctly rounded parser to
//!   the same pattern; the exact expansion cut to one significant digit fewer, and that
//!   plus one unit, do not read back (so no shorter decimal does); the neighbours one unit
//!   away at the same length are not closer while still reading back;
//! - `hex_float`: parsed by a hex-float reader written here, to the exact same value.
//!
//! Samples: a stride over all f32 patterns plus edges, and a stride over f64 patterns.

mod common;

use common::{exact_parts, exact_signed_decimal};
use d3dfloat::format::text::{exact_decimal, hex_float, shortest_decimal};
use d3dfloat::format::{F10, F11, F16, F32, F64, FloatFormat};
use num_bigint::BigUint;

/// (negative, m, e) with value m * 2^e, for a finite pattern of an IEEE binary format.
fn fields(bits: u64, exp_bits: u32, frac_bits: u32, signed: bool) -> Option<(bool, u64, i64)> {
    let width = signed as u32 + exp_bits + frac_bits;
    let neg = signed && bits >> (width - 1) & 1 == 1;
    let bias = (1i64 << (exp_bits - 1)) - 1;
    let e = (bits >> frac_bits) & ((1 << exp_bits) - 1);
    let f = bits & ((1 << frac_bits) - 1);
    if e == (1 << exp_bits) - 1 {
        return None;
    }
    Some(if e == 0 {
        (neg, f, 1 - bias - frac_bits as i64)
    } else {
        (neg, f | 1 << frac_bits, e as i64 - bias - frac_bits as i64)
    })
}

fn layout(fmt: &FloatFormat) -> (u32, u32, bool) {
    (fmt.exp_bits, fmt.frac_bits, fmt.signed)
}

/// Significant digits of a decimal text and the exponent of its last digit.
fn sig_digits(text: &str) -> (String, i64) {
    let t = text.trim_start_matches('-');
    let (mant, exp) = match t.split_once('e') {
        Some((m, x)) => (m, x.parse::<i64>().unwrap()),
        None => (t, 0),
    };
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    let all = format!("{int}{frac}");
    let mut exp_last = exp - frac.len() as i64;
    let lead = all.trim_start_matches('0');
    let trimmed = lead.trim_end_matches('0');
    exp_last += (lead.len() - trimmed.len()) as i64;
    (trimmed.to_string(), exp_last)
}

/// Decimal digits string `d` (no leading zeros) plus one in the last place.
fn increment(d: &str) -> String {
    (BigUint::parse_bytes(d.as_bytes(), 10).unwrap() + 1u32).to_string()
}

/// Reads `digits * 10^exp` with the standard library into the format (f32 or f64) and
/// returns the bits.
fn std_read(fmt: &FloatFormat, digits: &str, exp: i64) -> u64 {
    let text = format!("{digits}e{exp}");
    if fmt.width() == 32 {
        text.parse::<f32>().unwrap().to_bits() as u64
    } else {
        text.parse::<f64>().unwrap().to_bits()
    }
}

fn check_wide(fmt: &FloatFormat, bits: u64, fails: &mut Vec<String>) {
    let (eb, fb, s) = layout(fmt);
    let Some((neg, m, e)) = fields(bits, eb, fb, s) else {
        return;
    };
    let name = fmt.name;
    let want = exact_signed_decimal(neg, m, e);
    let got = exact_decimal(fmt, bits);
    if got != want {
        fails.push(format!(
            "{name} {bits:#x}: exact_decimal {got}, want {want}"
        ));
    }
    if m == 0 {
        return;
    }
    let magnitude = bits & !(1u64 << (fmt.width() - 1));
    let shortest = shortest_decimal(fmt, bits);
    if shortest.starts_with('-') != neg {
        fails.push(format!("{name} {bits:#x}: shortest {shortest} sign"));
    }
    let (d, k) = sig_digits(&shortest);
    if std_read(fmt, &d, k) != magnitude {
        fails.push(format!(
            "{name} {bits:#x}: shortest {shortest} does not read back"
        ));
    }
    let n = d.len();
    // The exact expansion's significant digits; cut to n - 1 of them (floor), and one more
    // unit (ceil): neither may read back to the pattern.
    let (int, frac) = exact_parts(m, e);
    let all = format!("{int}{frac}");
    let lead_zeros = all.len() - all.trim_start_matches('0').len();
    let sig = &all[lead_zeros..];
    // Exponent of the last digit of `all` is -frac.len().
    let last_exp = -(frac.len() as i64);
    if n >= 2 && sig.len() > n - 1 {
        let cut = &sig[..n - 1];
        let cut_exp = last_exp + (sig.len() - (n - 1)) as i64;
        for (cand, ce) in [(cut.to_string(), cut_exp), (increment(cut), cut_exp)] {
            if cand.trim_start_matches('0').is_empty() {
                continue;
            }
            if std_read(fmt, &cand, ce) == magnitude {
                fails.push(format!(
                    "{name} {bits:#x}: shortest {shortest} has {n} digits, {cand}e{ce} is shorter"
                ));
            }
        }
    }
    // Closest of its length: one unit up or down reads back only if it is not closer.
    let v = BigUint::from(m);
    let dist = |digits: &str, exp10: i64| -> (BigUint, BigUint) {
        // |digits * 10^exp10 - m * 2^e| scaled by 2^max(0,-e) * 10^max(0,-exp10).
        let dd = BigUint::parse_bytes(digits.as_bytes(), 10).unwrap();
        let (p2, p10) = ((-e).max(0) as usize, (-exp10).max(0) as u32);
        let dec = (dd * BigUint::from(10u32).pow((exp10 + p10 as i64) as u32)) << p2;
        let bin = (&v << (e + p2 as i64) as usize) * BigUint::from(10u32).pow(p10);
        (dec, bin)
    };
    let abs = |(a, b): (BigUint, BigUint)| if a > b { a - b } else { b - a };
    let mine = abs(dist(&d, k));
    let down = (BigUint::parse_bytes(d.as_bytes(), 10).unwrap() - 1u32).to_string();
    for cand in [increment(&d), down] {
        if cand == "0" || cand.len() != n {
            continue;
        }
        if std_read(fmt, &cand, k) == magnitude && abs(dist(&cand, k)) < mine {
            fails.push(format!(
                "{name} {bits:#x}: shortest {shortest}, but {cand}e{k} is closer"
            ));
        }
    }
}

fn report(fails: Vec<String>) {
    assert!(
        fails.is_empty(),
        "{} failures:\n{}",
        fails.len(),
        fails[..fails.len().min(30)].join("\n")
    );
}

#[test]
fn f32_text_forms_on_a_sample() {
    let mut fails = Vec::new();
    let edges = [
        1u64,
        2,
        3,
        0x007f_ffff,
        0x0080_0000,
        0x0080_0001,
        0x3f80_0000,
        0x3f7f_ffff,
        0x3f80_0001,
        0x7f7f_ffff,
        0x7f7f_fffe,
        0x4b80_0000,
        0x4b7f_ffff,
        0x3dcc_cccd,
        0x3e99_999a,
        0x5a0e_1bca,
        0x0000_0f00,
    ];
    for bits in (0..=u32::MAX as u64).step_by(400_009).chain(edges) {
        check_wide(&F32, bits, &mut fails);
        check_wide(&F32, bits | 0x8000_0000, &mut fails);
    }
    report(fails);
}

#[test]
fn f64_text_forms_on_a_sample() {
    let mut fails = Vec::new();
    let edges = [
        1u64,
        2,
        0x000f_ffff_ffff_ffff,
        0x0010_0000_0000_0000,
        0x3ff0_0000_0000_0000,
        0x3fef_ffff_ffff_ffff,
        0x3ff0_0000_0000_0001,
        0x7fef_ffff_ffff_ffff,
        0x3fb9_9999_9999_999a,
        0x4340_0000_0000_0000,
        0x433f_ffff_ffff_ffff,
        0x4341_c379_37e0_8000,
        0x44b5_2d02_c7e1_4af6, // 1e23's nearest double, a classic shortest case
    ];
    // A multiplicative stride (odd constant) visits patterns spread over all exponents.
    let stride = (0..6000u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 1);
    for bits in stride.chain(edges) {
        check_wide(&F64, bits, &mut fails);
    }
    report(fails);
}

/// A hex-float reader written here: `[-]0xH[.HHH]p±D` to (negative, m, exp2).
fn read_hex_float(s: &str) -> (bool, BigUint, i64) {
    let (neg, t) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let t = t.strip_prefix("0x").expect("0x prefix");
    let (mant, exp) = t.split_once('p').expect("p exponent");
    let exp: i64 = exp.parse().unwrap();
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    assert!(!frac.is_empty() || !mant.contains('.'), "no empty fraction");
    let m = BigUint::parse_bytes(format!("{int}{frac}").as_bytes(), 16).unwrap();
    (neg, m, exp - 4 * frac.len() as i64)
}

/// Hex-float of every small-format pattern and of f32/f64 samples reads back to the exact
/// value; normal numbers start with `0x1`, subnormals with `0x0.` and the exponent emin.
#[test]
fn hex_float_reads_back_exactly() {
    let mut fails = Vec::new();
    let mut check = |fmt: &FloatFormat, bits: u64| {
        let (eb, fb, s) = layout(fmt);
        let text = hex_float(fmt, bits);
        let Some((neg, m, e)) = fields(bits, eb, fb, s) else {
            let want = if fmt.class(bits) == d3dfloat::format::Class::Nan {
                "nan"
            } else if s && bits >> (fmt.width() - 1) == 1 {
                "-inf"
            } else {
                "inf"
            };
            if text != want {
                fails.push(format!("{} {bits:#x}: {text}, want {want}", fmt.name));
            }
            return;
        };
        let (hneg, hm, he) = read_hex_float(&text);
        // Compare hm * 2^he with m * 2^e exactly.
        let shift = he.min(e);
        let lhs = hm << (he - shift) as usize;
        let rhs = BigUint::from(m) << (e - shift) as usize;
        let subnormal = (bits >> fb) & ((1 << eb) - 1) == 0;
        let lead_ok = if m == 0 {
            text.trim_start_matches('-') == "0x0p+0"
        } else if subnormal {
            text.trim_start_matches('-').starts_with("0x0.")
                && text.ends_with(&format!("p{}", fmt.emin()))
        } else {
            text.trim_start_matches('-').starts_with("0x1")
        };
        if hneg != neg || lhs != rhs || !lead_ok {
            fails.push(format!("{} {bits:#x}: hex_float {text}", fmt.name));
        }
    };
    for fmt in [F16, F11, F10] {
        for bits in 0..=fmt.mask() {
            check(&fmt, bits);
        }
    }
    for bits in (0..=u32::MAX as u64).step_by(65_537) {
        check(&F32, bits);
    }
    for i in 0..20_000u64 {
        check(&F64, i.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    }
    report(fails);
}
