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
    let t = text.trim();
    // Digits, point, exponent and signs only: no names (`inf`, `max`), no hex; one pass.
    let (mut digits, mut others) = (false, false);
    for b in t.bytes() {
        digits |= b.is_ascii_digit();
        others |= !(b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'));
    }
    if !digits || others {
        return None;
    }
    let x: f64 = t.parse().ok()?;
    if x.is_infinite() {
        return None;
    }
    if fmt.width() == 64 {
        // The standard parser already rounds to nearest even, overflow included.
        return (opts.mode == Rounding::NearestEven).then_some(x.to_bits());
    }
    let toward_zero = RoundOptions {
        mode: Rounding::TowardZero,
        saturate: true,
    };
    let below_bits = round_f64(fmt, x.abs(), toward_zero).bits;
    let below = fmt.to_f64(below_bits);
    let above = if below_bits == fmt.max_finite() {
        let (m, e) = fmt.significand(below_bits);
        (m + 1) as f64 * crate::format::pow2::pow2(e)
    } else {
        fmt.to_f64(below_bits + 1)
    };
    let ax = x.abs();
    if ax == below || ax == (below + above) / 2.0 {
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
