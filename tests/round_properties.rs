//! Property tests over random `f64` inputs:
//! - `round_f64` (fast) and `round_number` (exact) return the same bits and outcome in every
//!   format, mode and saturation setting;
//! - into f32 they agree with the hardware: `x as f32` for nearest-even, and for the other
//!   modes that result stepped once with `next_up`/`next_down` when it lies on the wrong side
//!   of `x` (an independent directed rounding);
//! - into f16 nearest-even agrees with an exact search among the f16 values (the `half`
//!   crate is not a reference here: its `f16::from_f64` rounds twice, through f32 on F16C
//!   machines and after dropping the low 32 bits otherwise, see `half_from_f64_rounds_twice`).
//!
//! Inputs mix uniformly random bit patterns with values close to the formats' grid points
//! and halfway points (a few f64 ulps either side), where rounding decisions happen.

use d3dfloat::exact::{Number, Ratio};
use d3dfloat::format::{
    Class, F10, F11, F16, F32, F64, FloatFormat, RoundOptions, Rounding, round_f64, round_number,
};
use proptest::prelude::*;

const FORMATS: [FloatFormat; 5] = [F64, F32, F16, F11, F10];

/// The f64's exact value as a `Number`, from its fields.
fn number_of(x: f64) -> Number {
    let b = x.to_bits();
    let neg = b >> 63 == 1;
    let e = ((b >> 52) & 0x7ff) as i64;
    let f = b & ((1 << 52) - 1);
    match e {
        0x7ff if f != 0 => Number::Nan {
            neg,
            payload: f << 12,
        },
        0x7ff => Number::Infinity { neg },
        0 => Number::finite(neg, Ratio::dyadic(f, -1074)),
        _ => Number::finite(neg, Ratio::dyadic(f | 1 << 52, e - 1075)),
    }
}

/// A value near a grid point or a halfway point of f32/f16/f11/f10: a random pattern's
/// value (or the midpoint to the next one), moved by a few f64 ulps.
fn near_boundary() -> impl Strategy<Value = f64> {
    (
        0usize..4,
        any::<u32>(),
        any::<bool>(),
        -3i64..=3,
        any::<bool>(),
    )
        .prop_map(|(which, raw, midpoint, nudge, neg)| {
            let fmt = [F32, F16, F11, F10][which];
            let top = fmt.infinity(false); // positive patterns 0 ..= top are ordered
            let b = raw as u64 % top;
            let v = fmt.to_f64(b);
            let next = if b + 1 == top {
                let (m, e) = fmt.significand(b);
                (m + 1) as f64 * 2f64.powi(e)
            } else {
                fmt.to_f64(b + 1)
            };
            let base = if midpoint { (v + next) / 2.0 } else { v };
            let bits = base.to_bits() as i64 + nudge;
            let x = f64::from_bits(bits.max(0) as u64);
            if neg { -x } else { x }
        })
}

fn any_input() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<u64>().prop_map(f64::from_bits),
        near_boundary(),
        // Values in the small formats' range, with random low bits.
        (any::<u64>(), -30i32..20).prop_map(|(m, e)| (m >> 11) as f64 * 2f64.powi(e - 53)),
    ]
}

/// Directed rounding of an f64 into f32 built on the hardware's nearest conversion.
fn f32_reference(x: f64, mode: Rounding) -> f32 {
    let r = x as f32;
    if x.is_nan() || r as f64 == x {
        return r;
    }
    let above = r as f64 > x;
    match mode {
        Rounding::NearestEven => r,
        Rounding::TowardPositive if !above => r.next_up(),
        Rounding::TowardNegative if above => r.next_down(),
        Rounding::TowardZero if (r as f64).abs() > x.abs() => {
            // One step toward zero; a zero result keeps the sign of x.
            let t = if x > 0.0 { r.next_down() } else { r.next_up() };
            if t == 0.0 { 0f32.copysign(x as f32) } else { t }
        }
        _ => r,
    }
}

/// Every non-negative f16 value with its pattern, ascending (`half` decodes; decoding is
/// exact).
fn f16_table() -> &'static [(f64, u16)] {
    static TABLE: std::sync::OnceLock<Vec<(f64, u16)>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        (0..=0x7c00u16)
            .map(|b| (half::f16::from_bits(b).to_f64(), b))
            .collect()
    })
}

/// Nearest-even into f16 by search: the f16 values just below and above |x|, compared with
/// their midpoint (exact in f64); a tie goes to the even pattern. Past 65504 the next step
/// would be 65536, so the overflow threshold is 65520.
fn f16_nearest_reference(x: f64) -> u16 {
    let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
    let a = x.abs();
    let t = f16_table();
    let magnitude = if a >= 65520.0 {
        0x7c00
    } else {
        let i = t.partition_point(|(v, _)| *v <= a) - 1; // t[i].0 <= a < t[i + 1].0
        let (lo, lo_bits) = t[i];
        if lo == a {
            lo_bits
        } else {
            let hi = if lo_bits == 0x7bff {
                65536.0
            } else {
                t[i + 1].0
            };
            let mid = (lo + hi) / 2.0;
            if a < mid || (a == mid && lo_bits % 2 == 0) {
                lo_bits
            } else {
                lo_bits + 1
            }
        }
    };
    sign | magnitude
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10_000, ..ProptestConfig::default() })]

    #[test]
    fn fast_and_exact_rounding_agree(x in any_input()) {
        let n = number_of(x);
        for fmt in FORMATS {
            for mode in Rounding::ALL {
                for saturate in [false, true] {
                    let opts = RoundOptions { mode, saturate };
                    let fast = round_f64(&fmt, x, opts);
                    let exact = round_number(&fmt, &n, opts);
                    prop_assert_eq!(
                        fast, exact,
                        "{} ({:#x}) into {} {:?} sat={}", x, x.to_bits(), fmt.name, mode, saturate
                    );
                }
            }
        }
    }

    #[test]
    fn f32_agrees_with_hardware(x in any_input()) {
        for mode in Rounding::ALL {
            let got = round_f64(&F32, x, RoundOptions::new(mode)).bits as u32;
            let want = f32_reference(x, mode);
            if x.is_nan() {
                prop_assert_eq!(F32.class(got as u64), Class::Nan);
                // Hardware keeps the top payload bits and sets the quiet bit, as the crate does.
                prop_assert_eq!(got, want.to_bits(), "NaN {:#x}", x.to_bits());
            } else {
                prop_assert_eq!(
                    got, want.to_bits(),
                    "{:e} ({:#x}) {:?}: crate {:#x}, reference {:e}", x, x.to_bits(), mode, got, want
                );
            }
        }
    }

    #[test]
    fn f16_nearest_agrees_with_exact_search(x in any_input()) {
        let got = round_f64(&F16, x, RoundOptions::new(Rounding::NearestEven)).bits as u16;
        if x.is_nan() {
            prop_assert_eq!(F16.class(got as u64), Class::Nan);
        } else {
            let want = f16_nearest_reference(x);
            prop_assert_eq!(
                got, want,
                "{:e} ({:#x}): crate {:#06x}, reference {:#06x}", x, x.to_bits(), got, want
            );
        }
    }
}

/// `half::f16::from_f64(x)` on an F16C machine converts `x as f32` first. Here x is one
/// f64 ulp below the midpoint between f16 0x06b1 and 0x06b2: the f32 conversion rounds it
/// onto the midpoint, which then ties to the even 0x06b2. The correct answer is 0x06b1.
#[test]
fn half_from_f64_rounds_twice() {
    let mid = (F16.to_f64(0x06b1) + F16.to_f64(0x06b2)) / 2.0;
    let x = f64::from_bits(mid.to_bits() - 1);
    assert_eq!(x.to_bits(), 0x3f1a_c5ff_ffff_ffff);
    assert_eq!(f16_nearest_reference(x), 0x06b1);
    assert_eq!(
        round_f64(&F16, x, RoundOptions::new(Rounding::NearestEven)).bits,
        0x06b1
    );
    assert_eq!((x as f32) as f64, mid, "the f32 step lands on the midpoint");
}

/// The reference itself on known cases, so a broken reference is told apart from a bug.
#[test]
fn f32_reference_on_known_values() {
    let third = 1.0f64 / 3.0;
    assert_eq!(f32_reference(third, Rounding::NearestEven), 1.0f32 / 3.0);
    assert!((f32_reference(third, Rounding::TowardPositive) as f64) > third);
    assert!((f32_reference(third, Rounding::TowardNegative) as f64) < third);
    assert_eq!(f32_reference(1e300, Rounding::TowardZero), f32::MAX);
    assert_eq!(f32_reference(-1e300, Rounding::TowardPositive), f32::MIN);
    assert_eq!(
        f32_reference(-1e300, Rounding::TowardNegative),
        f32::NEG_INFINITY
    );
    assert_eq!(
        f32_reference(1e-300, Rounding::TowardPositive),
        f32::from_bits(1)
    );
    assert_eq!(
        f32_reference(-1e-300, Rounding::TowardZero).to_bits(),
        0x8000_0000
    );
    assert_eq!(f16_nearest_reference(1.0), 0x3c00);
    assert_eq!(f16_nearest_reference(1.0 + 2f64.powi(-11)), 0x3c00);
    assert_eq!(f16_nearest_reference(1.0 + 3.0 * 2f64.powi(-11)), 0x3c02);
    assert_eq!(f16_nearest_reference(-65519.0), 0xfbff);
    assert_eq!(f16_nearest_reference(65520.0), 0x7c00);
    assert_eq!(f16_nearest_reference(2f64.powi(-25)), 0x0000);
    assert_eq!(f16_nearest_reference(-0.0), 0x8000);
}
