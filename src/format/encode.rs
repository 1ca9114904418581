//! What `encode` reports: the pattern a value rounds to in a format, the error, and what the
//! other rounding modes would have given.

use super::descriptor::FloatFormat;
use super::packed::{
    R11G11B10_CHANNELS, Rgb9e5Channel, r11g11b10_encode, r11g11b10_split, rgb9e5_encode,
    rgb9e5_split,
};
use super::round::{Outcome, RoundOptions, Rounding, round_f64, round_number};
use super::{Format, text};
use crate::exact::{Number, Ratio};

/// One channel of a result: a pattern of a float format, or an RGB9E5 channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Channel {
    /// A pattern of a float format (each channel of R11G11B10 is an f11 or f10).
    Float(FloatFormat, u64),
    /// A channel of an RGB9E5 word: a mantissa and the shared exponent.
    Rgb9e5(Rgb9e5Channel),
}

impl Channel {
    /// The channel's exact value.
    pub fn value(&self) -> Number {
        match self {
            Channel::Float(f, bits) => f.value(*bits),
            Channel::Rgb9e5(c) => Number::finite(false, c.value()),
        }
    }

    /// The shortest decimal naming this channel's value. RGB9E5 channels have no
    /// round-trip of their own (the exponent is shared), so they use the shortest f32
    /// decimal, which every RGB9E5 value has exactly.
    pub fn shortest(&self) -> String {
        match self {
            Channel::Float(f, bits) => text::shortest_decimal(f, *bits),
            Channel::Rgb9e5(c) => {
                text::shortest_decimal(&super::F32, (c.to_f64() as f32).to_bits() as u64)
            }
        }
    }

    /// The spacing of values around this one: the binade's ULP, or for RGB9E5 one
    /// mantissa unit at the shared exponent.
    pub fn ulp(&self) -> Option<Ratio> {
        match self {
            Channel::Float(f, bits) => f.ulp(*bits),
            Channel::Rgb9e5(c) => Some(Ratio::dyadic(1u32, c.exponent as i64 - 24)),
        }
    }
}

/// The channels of a word of `format`.
pub fn channels(format: &Format, bits: u64) -> Vec<Channel> {
    match format {
        Format::Float(f) => vec![Channel::Float(*f, bits)],
        Format::R11G11B10 => r11g11b10_split(bits as u32)
            .iter()
            .zip(R11G11B10_CHANNELS)
            .map(|(&b, (f, _))| Channel::Float(f, b))
            .collect(),
        Format::Rgb9e5 => rgb9e5_split(bits as u32)
            .into_iter()
            .map(Channel::Rgb9e5)
            .collect(),
    }
}

/// How far a result lies from the value it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct RoundingError {
    /// `|result - input|`, exact.
    pub absolute: Ratio,
    /// Whether the result is above the input.
    pub result_above: bool,
    /// `|result - input| / |input|` (infinite for a zero input).
    pub relative: f64,
    /// The error in units of the result's ULP (NaN for a clamped negative).
    pub ulps: f64,
}

/// A value (or three, for the packed words) rounded into a format.
#[derive(Clone, Debug)]
pub struct Encoding {
    /// The target format.
    pub format: Format,
    /// The inputs as the user wrote them.
    pub inputs: Vec<String>,
    /// The inputs, read exactly.
    pub values: Vec<Number>,
    /// The rounding mode and whether overflow saturates.
    pub opts: RoundOptions,
    /// The resulting pattern (a 32-bit word for the packed formats).
    pub bits: u64,
    /// What the rounding did, one entry per channel.
    pub outcomes: Vec<Outcome>,
}

/// Rounds `values` (one, or three for the packed formats) into `format`.
pub fn encode(
    format: Format,
    inputs: Vec<String>,
    values: Vec<Number>,
    opts: RoundOptions,
) -> Encoding {
    let (bits, outcomes) = encode_bits(&format, &values, opts);
    Encoding {
        format,
        inputs,
        values,
        opts,
        bits,
        outcomes,
    }
}

fn encode_bits(format: &Format, values: &[Number], opts: RoundOptions) -> (u64, Vec<Outcome>) {
    match format {
        Format::Float(f) => {
            let r = round_number(f, &values[0], opts);
            (r.bits, vec![r.outcome])
        }
        Format::R11G11B10 => {
            let v: [Number; 3] = values.to_vec().try_into().expect("three channels");
            let (w, o) = r11g11b10_encode(&v, opts);
            (w as u64, o.to_vec())
        }
        Format::Rgb9e5 => {
            let v: [Number; 3] = values.to_vec().try_into().expect("three channels");
            let (w, o) = rgb9e5_encode(&v, opts.mode);
            (w as u64, o.to_vec())
        }
    }
}

impl Encoding {
    /// The result's channels (one for a float format, three for a packed word).
    pub fn channels(&self) -> Vec<Channel> {
        channels(&self.format, self.bits)
    }

    /// Whether every channel was represented exactly.
    pub fn exact(&self) -> bool {
        self.outcomes.iter().all(|o| o.exact)
    }

    /// The rounding error of channel `i`; `None` where either side is not finite.
    pub fn error(&self, i: usize) -> Option<RoundingError> {
        let channel = channels(&self.format, self.bits)[i];
        let (Number::Finite { neg: rn, mag: r }, Number::Finite { neg: xn, mag: x }) =
            (channel.value(), &self.values[i])
        else {
            return None;
        };
        let (absolute, result_above) = {
            // Signed difference result - input.
            let (neg, mag) = crate::exact::signed_add(rn, &r, !*xn, x);
            (mag, !neg)
        };
        let relative = if x.is_zero() {
            f64::INFINITY
        } else {
            absolute.div(x).to_f64_lossy()
        };
        // A clamped negative was not rounded: its error in ULPs of zero means nothing.
        let ulps = match channel.ulp() {
            Some(u) if !self.outcomes[i].clamped_negative => absolute.div(&u).to_f64_lossy(),
            _ => f64::NAN,
        };
        Some(RoundingError {
            result_above: result_above && !absolute.is_zero(),
            absolute,
            relative,
            ulps,
        })
    }

    /// The rounding modes other than the one used that give different bits, with those bits.
    pub fn alternatives(&self) -> Vec<(Rounding, u64)> {
        Rounding::ALL
            .iter()
            .filter(|&&m| m != self.opts.mode)
            .filter_map(|&m| {
                let opts = RoundOptions {
                    mode: m,
                    ..self.opts
                };
                let (bits, _) = encode_bits(&self.format, &self.values, opts);
                (bits != self.bits).then_some((m, bits))
            })
            .collect()
    }
}

/// The bits `encode --plain` prints, without exact arithmetic when an `f64` reading of the
/// text provably decides them; `None` means "take the exact path".
///
/// Parsing a decimal to `f64` rounds it once (to nearest). That rounding is monotonic and
/// every value of the target format, and every midpoint between two neighbours, is an `f64`,
/// so unless the `f64` lands exactly on one of those points it lies strictly between the same
/// two points as the true decimal, and any rounding mode gives the same answer for both.
pub fn encode_fast(fmt: &FloatFormat, text: &str, opts: RoundOptions) -> Option<u64> {
    let t = text.trim();
    let plain_decimal = t.bytes().any(|b| b.is_ascii_digit())
        && t.bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'))
        && !t.contains("0x");
    if !plain_decimal {
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
        (m + 1) as f64 * 2f64.powi(e)
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
    use crate::format::{F10, F11, F16, F32, F64};
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

    #[test]
    fn error_and_alternatives() {
        let v = parse_value("0.1", Constants::Float(&F16)).unwrap();
        let e = encode(
            Format::Float(F16),
            vec!["0.1".into()],
            vec![v],
            RoundOptions::new(Rounding::NearestEven),
        );
        assert_eq!(e.bits, 0x2e66);
        let err = e.error(0).unwrap();
        assert!(!err.result_above);
        assert!(err.ulps > 0.0 && err.ulps <= 0.5);
        let alts = e.alternatives();
        assert_eq!(alts, vec![(Rounding::TowardPositive, 0x2e67)]);
    }
}
