//! Every f16, f11 and f10 pattern, checked against references that are not the crate's code:
//! the `half` crate for f16, the §3.1.5/§3.1.6 formulas written out here for f11/f10, an exact
//! decimal expansion written here on `u128`, and an exact rounding-interval test for the
//! shortest decimal written here on `u128`.
//!
//! For each pattern: `to_f64`, `value`, `text::exact_decimal`, `round_number` and `round_f64`
//! in every mode (and with `--saturate`) give back the pattern; the shortest decimal reads back
//! to it (through the crate's parser and independently), no decimal with one digit fewer does,
//! and no other decimal with as many digits is closer to the value.

mod common;

use common::exact_signed_decimal;
use d3dfloat::exact::Number;
use d3dfloat::format::text::{exact_decimal, shortest_decimal};
use d3dfloat::format::{
    Class, F10, F11, F16, FloatFormat, RoundOptions, Rounding, round_f64, round_number,
};
use d3dfloat::input::{Constants, parse_value};
use num_bigint::BigUint;

/// Every value of these formats is a multiple of 2^-24 and every midpoint between two
/// neighbours a multiple of 2^-25; every decimal we compare has at most 15 places.
/// Scaling by 2^25 * 10^15 makes all of them integers (< 2^91, well inside u128).
const POW2_SCALE: u32 = 25;
const POW10_SCALE: u32 = 15;

/// A small format described from scratch, for the reference (not the crate's descriptor).
#[derive(Clone, Copy)]
struct Layout {
    signed: bool,
    frac_bits: u32,
}

const L16: Layout = Layout {
    signed: true,
    frac_bits: 10,
};
const L11: Layout = Layout {
    signed: false,
    frac_bits: 6,
};
const L10: Layout = Layout {
    signed: false,
    frac_bits: 5,
};

/// The reference reading of a pattern: NaN, infinity, or sign * m * 2^e with m, e integers.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Ref {
    Nan { neg: bool, frac: u64 },
    Inf { neg: bool },
    Finite { neg: bool, m: u64, e: i32 },
}

impl Layout {
    fn width(self) -> u32 {
        self.signed as u32 + 5 + self.frac_bits
    }

    /// §3.1.5 / §3.1.6: 5 exponent bits, bias 15; e == 31 is INF (f == 0) or NaN; 0 < e < 31
    /// is 2^(e-15) * 1.f; e == 0 is 2^-14 * 0.f.
    fn decode(self, bits: u64) -> Ref {
        let neg = self.signed && bits >> (self.width() - 1) & 1 == 1;
        let e = (bits >> self.frac_bits) & 31;
        let f = bits & ((1 << self.frac_bits) - 1);
        match e {
            31 if f != 0 => Ref::Nan { neg, frac: f },
            31 => Ref::Inf { neg },
            0 => Ref::Finite {
                neg,
                m: f,
                e: -14 - self.frac_bits as i32,
            },
            _ => Ref::Finite {
                neg,
                m: f | 1 << self.frac_bits,
                e: e as i32 - 15 - self.frac_bits as i32,
            },
        }
    }

    /// The formula evaluated in f64 (exact: at most 11 significant bits, exponents in range).
    fn formula_f64(self, bits: u64) -> f64 {
        match self.decode(bits) {
            Ref::Nan { .. } => f64::NAN,
            Ref::Inf { neg } => {
                if neg {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                }
            }
            Ref::Finite { neg, m, e } => {
                let mag = m as f64 * (e as f64).exp2();
                if neg { -mag } else { mag }
            }
        }
    }
}

/// m * 2^e scaled by 2^25 * 10^15.
fn scaled_dyadic(m: u64, e: i32) -> u128 {
    let shift = e + POW2_SCALE as i32;
    assert!(shift >= 0, "value finer than 2^-25");
    ((m as u128) << shift) * 10u128.pow(POW10_SCALE)
}

/// d * 10^k scaled by 2^25 * 10^15.
fn scaled_decimal(d: u128, k: i32) -> u128 {
    let p = k + POW10_SCALE as i32;
    assert!(p >= 0, "decimal finer than 10^-15");
    d.checked_mul(10u128.pow(p as u32))
        .and_then(|x| x.checked_mul(1 << POW2_SCALE))
        .expect("fits in u128")
}

/// Reads `[-]ddd[.ddd][e±x]` into (negative, significant digits as integer, exponent of the
/// last digit). Independent of the crate's parser.
fn parse_plain_decimal(s: &str) -> (bool, u128, i32) {
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let (mant, exp) = match s.split_once('e') {
        Some((m, x)) => (m, x.parse::<i32>().expect("integer exponent")),
        None => (s, 0),
    };
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    assert!(
        int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()),
        "not a plain decimal: {s}"
    );
    let digits = format!("{int}{frac}");
    let d: u128 = digits.parse().expect("digits");
    (neg, d, exp - frac.len() as i32)
}

fn significant_digits(mut d: u128) -> u32 {
    assert!(d > 0);
    while d.is_multiple_of(10) {
        d /= 10;
    }
    d.ilog10() + 1
}

/// The rounding interval of a positive finite non-zero pattern under nearest-even, scaled:
/// (low, high, inclusive). Built from the reference values of the neighbouring patterns.
fn rounding_interval(l: Layout, bits: u64) -> (u128, u128, bool) {
    let Ref::Finite { m, e, .. } = l.decode(bits) else {
        unreachable!()
    };
    let v = scaled_dyadic(m, e);
    // Positive patterns are ordered by their bits; the one below is finite (or zero).
    let below = match l.decode(bits - 1) {
        Ref::Finite { m, e, .. } => scaled_dyadic(m, e),
        _ => unreachable!(),
    };
    let above = match l.decode(bits + 1) {
        Ref::Finite { m, e, .. } => scaled_dyadic(m, e),
        // Past the largest finite value: one more unit (the overflow threshold is halfway).
        Ref::Inf { .. } => scaled_dyadic(m + 1, e),
        Ref::Nan { .. } => unreachable!(),
    };
    // Ties go to the even significand; the pattern's last bit is the significand's.
    ((v + below) / 2, (v + above) / 2, bits & 1 == 0)
}

fn inside(x: u128, (lo, hi, inclusive): (u128, u128, bool)) -> bool {
    if inclusive {
        lo <= x && x <= hi
    } else {
        lo < x && x < hi
    }
}

/// One pattern, every check. Returns a failure description instead of panicking, so a
/// run reports many failures at once.
fn check_pattern(fmt: &FloatFormat, l: Layout, bits: u64, fails: &mut Vec<String>) {
    let name = fmt.name;
    let mut fail = |what: String| fails.push(format!("{name} {bits:#06x}: {what}"));
    let reference = l.decode(bits);
    let ref_f64 = if fmt.name == "f16" {
        half::f16::from_bits(bits as u16).to_f64()
    } else {
        l.formula_f64(bits)
    };
    // The two references agree with each other where both exist (a sanity check of the test).
    if fmt.name == "f16" {
        let f = l.formula_f64(bits);
        assert!(
            f.to_bits() == ref_f64.to_bits() || (f.is_nan() && ref_f64.is_nan()),
            "test's own formula disagrees with half at {bits:#x}"
        );
    }

    // to_f64: bit-identical to the reference (NaN: any NaN of the same sign).
    let got = fmt.to_f64(bits);
    let same = if ref_f64.is_nan() {
        got.is_nan() && got.is_sign_negative() == ref_f64.is_sign_negative()
    } else {
        got.to_bits() == ref_f64.to_bits()
    };
    if !same {
        fail(format!("to_f64 = {got:e}, reference {ref_f64:e}"));
    }

    // value: the exact number, compared through BigUint cross-multiplication.
    match (fmt.value(bits), reference) {
        (Number::Nan { neg, payload }, Ref::Nan { neg: rn, frac }) => {
            if neg != rn || payload != frac << (64 - l.frac_bits) {
                fail(format!("value NaN neg={neg} payload={payload:#x}"));
            }
        }
        (Number::Infinity { neg }, Ref::Inf { neg: rn }) if neg == rn => {}
        (Number::Finite { neg, mag }, Ref::Finite { neg: rn, m, e }) => {
            // mag = numer/denom must equal m * 2^e.
            let (lhs, rhs) = if e >= 0 {
                (
                    mag.numer().clone(),
                    mag.denom() * (BigUint::from(m) << e as u32),
                )
            } else {
                (mag.numer() << (-e) as u32, mag.denom() * BigUint::from(m))
            };
            if neg != rn || lhs != rhs {
                fail(format!("value {neg} {mag:?}, reference {rn} {m}*2^{e}"));
            }
        }
        (got, want) => fail(format!("value {got:?}, reference {want:?}")),
    }

    // exact_decimal.
    let want_text = match reference {
        Ref::Nan { .. } => "nan".to_string(),
        Ref::Inf { neg: true } => "-inf".to_string(),
        Ref::Inf { neg: false } => "inf".to_string(),
        Ref::Finite { neg, m, e } => exact_signed_decimal(neg, m, e as i64),
    };
    let got_text = exact_decimal(fmt, bits);
    if got_text != want_text {
        fail(format!("exact_decimal {got_text}, reference {want_text}"));
    }

    // Rounding the exact value, or its f64, gives the pattern back in every mode.
    let value = fmt.value(bits);
    let quiet_bit = 1u64 << (l.frac_bits - 1);
    let want_bits = match reference {
        // NaN keeps its payload's top bits and gets the quiet (top fraction) bit.
        Ref::Nan { .. } => bits | quiet_bit,
        _ => bits,
    };
    for mode in Rounding::ALL {
        for saturate in [false, true] {
            let opts = RoundOptions { mode, saturate };
            let r = round_number(fmt, &value, opts);
            if r.bits != want_bits || fmt.class(r.bits) != fmt.class(bits) || !r.outcome.exact {
                fail(format!(
                    "round_number {mode:?} sat={saturate} gave {:#x} exact={}",
                    r.bits, r.outcome.exact
                ));
            }
            let r = round_f64(fmt, ref_f64, opts);
            // The f64 NaN reference is the canonical quiet NaN, so only the class is checked.
            let ok = if ref_f64.is_nan() {
                fmt.class(r.bits) == Class::Nan
            } else {
                r.bits == bits
            };
            if !ok {
                fail(format!(
                    "round_f64 {mode:?} sat={saturate} gave {:#x}",
                    r.bits
                ));
            }
        }
    }

    // Shortest decimal.
    let shortest = shortest_decimal(fmt, bits);
    let Ref::Finite { neg, m, .. } = reference else {
        let want = match reference {
            Ref::Nan { .. } => "nan",
            Ref::Inf { neg: true } => "-inf",
            _ => "inf",
        };
        if shortest != want {
            fail(format!("shortest {shortest}, want {want}"));
        }
        return;
    };
    if m == 0 {
        let want = if neg { "-0" } else { "0" };
        if shortest != want {
            fail(format!("shortest {shortest}, want {want}"));
        }
        return;
    }
    // Through the crate's parser and nearest-even rounding.
    match parse_value(&shortest, Constants::Float(fmt)) {
        Ok(v) => {
            let back = round_number(fmt, &v, RoundOptions::new(Rounding::NearestEven)).bits;
            if back != bits {
                fail(format!("shortest {shortest} reads back as {back:#x}"));
            }
        }
        Err(e) => fail(format!("shortest {shortest} does not parse: {e}")),
    }
    // Independently: inside the nearest-even rounding interval of the pattern.
    let sign_bit = if l.signed { 1u64 << (l.width() - 1) } else { 0 };
    let magnitude_bits = bits & !sign_bit;
    let interval = rounding_interval(l, magnitude_bits);
    let (sneg, d, k) = parse_plain_decimal(&shortest);
    if sneg != neg {
        fail(format!("shortest {shortest} has the wrong sign"));
    }
    let x = scaled_decimal(d, k);
    if !inside(x, interval) {
        fail(format!(
            "shortest {shortest} lies outside the rounding interval"
        ));
    }
    // Minimality: with one significant digit fewer, the nearest decimals on either side of
    // the value (at the value's own decade) are outside the interval. Decimals of even fewer
    // digits are among these multiples too, and the interval is contiguous around v.
    let n = significant_digits(d);
    let Ref::Finite { m: vm, e: ve, .. } = l.decode(magnitude_bits) else {
        unreachable!()
    };
    let v = scaled_dyadic(vm, ve);
    // floor(log10(value)), from the scaled integer: value = v / (2^25 * 10^15).
    let top = (v >> POW2_SCALE).checked_ilog10().map_or_else(
        || {
            // value < 10^-15 never happens here (smallest is 2^-24 ~ 6e-8).
            unreachable!()
        },
        |t| t as i32 - POW10_SCALE as i32,
    );
    // (v >> 25) truncates, which can only lower floor(log10) when v is within 2^25 of a
    // power of ten boundary from above; correct it exactly.
    let top = if scaled_decimal(1, top + 1) <= v {
        top + 1
    } else {
        top
    };
    if n >= 2 {
        let unit_exp = top - (n as i32 - 1) + 1;
        let unit = scaled_decimal(1, unit_exp);
        let lower = v / unit * unit;
        let upper = v.div_ceil(unit) * unit;
        for c in [lower, upper] {
            if c != 0 && inside(c, interval) {
                fail(format!(
                    "shortest {shortest} has {n} digits but {}e{unit_exp} units (x{}) also read back",
                    c / unit,
                    c / unit
                ));
            }
        }
    }
    // Closest among decimals with as many digits: the two neighbours one unit (of the
    // shortest's last digit) away are not nearer to v while still reading back.
    let own_unit = scaled_decimal(1, k + (d.trailing_zeros_dec() as i32));
    for c in [x - own_unit.min(x), x + own_unit] {
        if c != 0 && inside(c, interval) && c.abs_diff(v) < x.abs_diff(v) {
            fail(format!(
                "shortest {shortest} is not the closest of its length"
            ));
        }
    }
}

trait TrailingZerosDec {
    fn trailing_zeros_dec(self) -> u32;
}

impl TrailingZerosDec for u128 {
    fn trailing_zeros_dec(mut self) -> u32 {
        let mut n = 0;
        while self != 0 && self.is_multiple_of(10) {
            self /= 10;
            n += 1;
        }
        n
    }
}

/// Checks every pattern of a format on two threads and reports every failure.
fn exhaustive(fmt: FloatFormat, l: Layout) {
    assert_eq!(fmt.width(), l.width());
    let count = 1u64 << l.width();
    let fails: Vec<String> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..2u64)
            .map(|w| {
                s.spawn(move || {
                    let mut fails = Vec::new();
                    for bits in (w..count).step_by(2) {
                        check_pattern(&fmt, l, bits, &mut fails);
                    }
                    fails
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|h| h.join().expect("worker"))
            .collect()
    });
    assert!(
        fails.is_empty(),
        "{} failures, first ones:\n{}",
        fails.len(),
        fails[..fails.len().min(40)].join("\n")
    );
}

#[test]
fn every_f16_pattern() {
    exhaustive(F16, L16);
}

#[test]
fn every_f11_pattern() {
    exhaustive(F11, L11);
}

#[test]
fn every_f10_pattern() {
    exhaustive(F10, L10);
}

/// The references themselves on a few hand-known values, so a broken reference shows up as
/// such and not as a crate bug.
#[test]
fn references_on_known_values() {
    assert_eq!(L11.formula_f64(0x7bf), 65024.0);
    assert_eq!(L10.formula_f64(0x3df), 64512.0);
    assert_eq!(L11.formula_f64(1), 2f64.powi(-20));
    assert_eq!(L10.formula_f64(1), 2f64.powi(-19));
    assert_eq!(L11.formula_f64(0x3c0), 1.0);
    assert!(L11.formula_f64(0x7c1).is_nan());
    assert_eq!(L11.formula_f64(0x7c0), f64::INFINITY);
    assert_eq!(
        exact_signed_decimal(false, 1, -24),
        "0.000000059604644775390625"
    );
    assert_eq!(exact_signed_decimal(true, 2047, 5), "-65504");
    assert_eq!(exact_signed_decimal(false, 3, -1), "1.5");
    assert_eq!(parse_plain_decimal("6e-8"), (false, 6, -8));
    assert_eq!(parse_plain_decimal("-0.3333"), (true, 3333, -4));
    assert_eq!(parse_plain_decimal("65500"), (false, 65500, 0));
    // 1 (0x3c00, even) reads back from [1 - 2^-12, 1 + 2^-11], ends included.
    let (lo, hi, inc) = rounding_interval(L16, 0x3c00);
    assert!(inc);
    assert_eq!(lo, scaled_dyadic(4095, -12));
    assert_eq!(hi, scaled_dyadic(2049, -11));
}

/// `neighbours` and `ulp` of every pattern against the sorted list of the format's values
/// (the reference's own decoding): the next pattern holds the least value above, the
/// previous one the greatest value below (zero is +0), none past ±INF or for NaN; the ULP is
/// 2^e of the reference's `m * 2^e` (for subnormals and zero, the smallest normal's spacing).
fn neighbours_and_ulp(fmt: FloatFormat, l: Layout) {
    let values = |b: u64| match l.decode(b) {
        Ref::Finite { neg, m, e } => {
            Some(if neg { -1.0 } else { 1.0 } * m as f64 * (e as f64).exp2())
        }
        Ref::Inf { neg } => Some(if neg {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        }),
        Ref::Nan { .. } => None,
    };
    let mut table: Vec<(f64, u64)> = (0..1u64 << l.width())
        .filter_map(|b| values(b).map(|v| (v, b)))
        .filter(|(v, b)| !(*v == 0.0 && *b != 0)) // -0 and +0 are one point; keep +0
        .collect();
    table.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut fails = Vec::new();
    for bits in 0..1u64 << l.width() {
        let (prev, next) = fmt.neighbours(bits);
        let want = match values(bits) {
            None => (None, None),
            Some(v) => {
                let i = table.partition_point(|(t, _)| *t < v);
                let below = i.checked_sub(1).map(|j| table[j].1);
                let j = table.partition_point(|(t, _)| *t <= v);
                let above = table.get(j).map(|t| t.1);
                (below, above)
            }
        };
        if (prev, next) != want {
            fails.push(format!(
                "{bits:#x}: neighbours {prev:x?} {next:x?}, want {want:x?}"
            ));
        }
        let ulp = fmt.ulp(bits);
        match (l.decode(bits), ulp) {
            (Ref::Finite { e, .. }, Some(u)) => {
                let ok = if e >= 0 {
                    *u.denom() == BigUint::from(1u32)
                        && *u.numer() == BigUint::from(1u32) << e as u32
                } else {
                    *u.numer() == BigUint::from(1u32)
                        && *u.denom() == BigUint::from(1u32) << (-e) as u32
                };
                if !ok {
                    fails.push(format!("{bits:#x}: ulp {u:?}, want 2^{e}"));
                }
            }
            (Ref::Finite { .. }, None) => fails.push(format!("{bits:#x}: no ulp")),
            (_, Some(u)) => fails.push(format!("{bits:#x}: ulp {u:?} for INF/NaN")),
            (_, None) => {}
        }
    }
    assert!(
        fails.is_empty(),
        "{} {} failures:\n{}",
        fmt.name,
        fails.len(),
        fails[..fails.len().min(20)].join("\n")
    );
}

#[test]
fn neighbours_and_ulp_of_every_pattern() {
    neighbours_and_ulp(F16, L16);
    neighbours_and_ulp(F11, L11);
    neighbours_and_ulp(F10, L10);
}
