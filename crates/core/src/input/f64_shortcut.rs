//! The fast text path of `encode --plain`: a decimal read as `f64` (by
//! [`read_short_decimal`] when it is short, else by the standard parser), when that provably
//! gives the bits the exact parser would (fast-float's "fast path first, exact fallback":
//! both answer the same question with the same rules).

use super::short_decimal::{ShortDecimal, read_short_decimal};
use crate::format::{F32, FloatFormat, RoundOptions, Rounding, round_f64};

/// The bits `encode --plain` prints, without exact arithmetic when an `f64` reading of the
/// text provably decides them; `None` means "take the exact path".
///
/// Parsing a decimal to `f64` rounds it once (to nearest). That rounding is monotonic and
/// every value of the target format, and every midpoint between two neighbours, is an `f64`,
/// so unless the `f64` lands exactly on one of those points it lies strictly between the same
/// two points as the true decimal, and any rounding mode gives the same answer for both.
pub fn encode_fast(fmt: &FloatFormat, text: &str, opts: RoundOptions) -> Option<u64> {
    // Non-ASCII white space is left in place: the standard parser then refuses the text and
    // the exact path reads it. Names (`max`, `epsilon`) and hex-floats fail here too; the
    // standard parser's own `inf` and `nan` are refused just below.
    let text = text.trim_ascii();
    // The common short decimal is read without the standard parser; its reading may be a
    // few units in the last place off (`slack` of them), which the test below allows for.
    let (x, slack) = match read_short_decimal(text) {
        Some(d) if d.exact => (d.value, 0),
        Some(d) if fmt.width() < 64 => (d.value, ShortDecimal::MAX_ERROR_ULPS),
        _ => (text.parse::<f64>().ok()?, 0),
    };
    if !x.is_finite() {
        return None;
    }
    if fmt.width() == 64 {
        // The standard parser already rounds to nearest even, overflow included.
        return (opts.mode == Rounding::NearestEven).then_some(x.to_bits());
    }
    // Every value of the target and every midpoint between neighbours, up to the overflow
    // threshold, is a whole multiple of half the target's unit in the last place where it
    // lies. An `f64` that is such a multiple may be the parser's rounding of a decimal on
    // either side of the point, so the exact path decides it (zero included); any other
    // `f64` lies strictly between the points the true decimal lies between.
    let b = x.abs().to_bits();
    if b == 0 {
        // Zero, or a decimal too small for an f64.
        return None;
    }
    let field = (b >> 52) as i32;
    let (m, q, e) = if field == 0 {
        (b, -1074, -1075)
    } else {
        (b & ((1 << 52) - 1) | 1 << 52, field - 1075, field - 1023)
    };
    let half_ulp = e.max(fmt.emin()) - fmt.frac_bits as i32 - 1;
    if slack == 0 {
        if q + m.trailing_zeros() as i32 >= half_ulp {
            return None;
        }
    } else {
        // The points are 2^(half_ulp - q) units of the last place of `x` apart: the true
        // value lies in the same gap as `x` unless `x` is within `slack` units of a point
        // (one a power of two away is a point of both binades, so crossing one is caught).
        let spacing = half_ulp - q;
        if spacing < 8 {
            return None;
        }
        let (r, gap) = if spacing >= 64 {
            (m, u64::MAX)
        } else {
            (m & ((1u64 << spacing) - 1), 1u64 << spacing)
        };
        if r <= slack || gap - r <= slack {
            return None;
        }
    }
    if *fmt == F32 && opts == RoundOptions::new(Rounding::NearestEven) {
        // The hardware's conversion rounds to nearest even, subnormals and overflow to
        // infinity included: `round_f64`'s answer (tested equal on random and edge `f64`s).
        return Some(u64::from((x as f32).to_bits()));
    }
    Some(round_f64(fmt, x, opts).bits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{F10, F11, F16, F64, round_number};
    use crate::input::{Constants, parse_value};

    fn slow(fmt: &FloatFormat, text: &str, opts: RoundOptions) -> u64 {
        let v = parse_value(text, Constants::Float(fmt)).unwrap();
        round_number(fmt, &v, opts).bits
    }

    #[test]
    fn fast_path_agrees_or_declines() {
        let texts = [
            "0.1",
            "1",
            "1.0009765625",
            "1.00048828125",
            "65504",
            "65520",
            "65519.999",
            "-65520",
            "1e-8",
            "2.98023223876953125e-8",
            "5.9604644775390625e-8",
            "-0",
            "0",
            "3.4028235677973366e38",
            "1e-45",
            "7e-46",
            "123456.789",
            "1e-400",
            "1e400",
        ];
        for fmt in [F64, F32, F16, F11, F10] {
            for mode in Rounding::ALL {
                let opts = RoundOptions::new(mode);
                for t in texts {
                    if let Some(fast) = encode_fast(&fmt, t, opts) {
                        assert_eq!(fast, slow(&fmt, t, opts), "{t} {} {mode:?}", fmt.name);
                    }
                }
            }
        }
    }

    /// The cast `encode_fast` takes for f32 to nearest even is `round_f64`, on random bit
    /// patterns of every exponent and on values around every f32 and midpoint.
    #[test]
    fn f32_cast_is_round_f64_to_nearest_even() {
        let opts = RoundOptions::new(Rounding::NearestEven);
        let check = |x: f64| {
            if !x.is_nan() {
                let want = round_f64(&F32, x, opts).bits;
                assert_eq!(u64::from((x as f32).to_bits()), want, "{x:e}");
            }
        };
        let mut r = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..1_000_000 {
            r ^= r << 13;
            r ^= r >> 7;
            r ^= r << 17;
            check(f64::from_bits(r));
            // Exponents where f32 lives, subnormals and overflow included.
            let e = 1023 - 160 + (r >> 52) % 300;
            check(f64::from_bits(r & (1 << 63 | ((1 << 52) - 1)) | e << 52));
        }
        for bits in (0..0x7f80_0000u32)
            .step_by(9_973)
            .chain([0x7f7f_ffff, 1, 0])
        {
            let v = f64::from(f32::from_bits(bits));
            let next = f64::from(f32::from_bits(bits + 1));
            let mid = (v + next) / 2.0;
            for x in [v, next, mid, mid.next_up(), mid.next_down(), v.next_up()] {
                check(x);
                check(-x);
            }
        }
    }

    #[test]
    fn fast_path_declines_exact_ties() {
        let opts = RoundOptions::new(Rounding::NearestEven);
        assert_eq!(encode_fast(&F16, "1.00048828125", opts), None);
        assert_eq!(encode_fast(&F16, "1", opts), None);
        assert!(encode_fast(&F16, "0.1", opts).is_some());
        assert_eq!(encode_fast(&F16, "inf", opts), None);
    }
}
