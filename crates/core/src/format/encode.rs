//! What `encode` reports: the pattern a value rounds to in a format, the error, and what the
//! other rounding modes would have given.

use super::descriptor::FloatFormat;
use super::packed::{
    R11G11B10_CHANNELS, Rgb9e5Channel, r11g11b10_encode, r11g11b10_split, rgb9e5_encode,
    rgb9e5_split,
};
use super::round::{Outcome, RoundOptions, Rounding, round_number};
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::F16;
    use crate::input::{Constants, parse_value};

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
