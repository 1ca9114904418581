//! The fast text path of `encode --plain`: a decimal read as `f64` by the standard parser,
//! when that provably gives the bits the exact parser would (fast-float's "fast path first,
//! exact fallback": both answer the same question with the same rules).

use crate::format::{FloatFormat, RoundOptions, Rounding, round_f64};

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
    let x: f64 = text.trim_ascii().parse().ok()?;
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
    if q + m.trailing_zeros() as i32 >= half_ulp {
        return None;
    }
    Some(round_f64(fmt, x, opts).bits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{F10, F11, F16, F32, F64, round_number};
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

    #[test]
    fn fast_path_declines_exact_ties() {
        let opts = RoundOptions::new(Rounding::NearestEven);
        assert_eq!(encode_fast(&F16, "1.00048828125", opts), None);
        assert_eq!(encode_fast(&F16, "1", opts), None);
        assert!(encode_fast(&F16, "0.1", opts).is_some());
        assert_eq!(encode_fast(&F16, "inf", opts), None);
    }
}
