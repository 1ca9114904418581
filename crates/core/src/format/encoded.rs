//! The result of encoding one input: everything any output style shows about it, worked
//! out once here so that renderers only lay it out.

use super::decoded::Detail;
use super::encode::{Channel, Encoding, RoundingError, channels};
use super::{Format, Outcome, RoundOptions, Rounding};
use crate::exact::Number;

/// One channel of an encoded result (the whole result for a float format).
#[derive(Clone, Debug, PartialEq)]
pub struct EncodedChannel {
    /// The input as the user wrote it.
    pub input: String,
    /// The input's exact value.
    pub input_value: Number,
    /// The channel of the result: a float pattern, or an RGB9E5 mantissa and exponent.
    pub channel: Channel,
    /// The result's exact value.
    pub value: Number,
    /// The shortest decimal of the result.
    pub shortest: String,
    /// What rounding did (inexact, overflow, clamping, ...).
    pub outcome: Outcome,
    /// How far the result lies from the input; `None` where either is not finite.
    pub error: Option<RoundingError>,
}

/// A rounding mode other than the one used that gives different bits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Alternative {
    /// The other rounding mode.
    pub mode: Rounding,
    /// The bits it gives.
    pub bits: u64,
    /// The shortest decimal of each channel of `bits`.
    pub shortest: Vec<String>,
}

/// The result of encoding one input (a value, or three for the packed formats).
#[derive(Clone, Debug, PartialEq)]
pub struct Encoded {
    /// The format encoded into.
    pub format: Format,
    /// The rounding mode and saturation used.
    pub opts: RoundOptions,
    /// The encoded word.
    pub bits: u64,
    /// One per channel. Empty at [`Detail::Answer`], where only `format`, `opts` and
    /// `bits` are filled.
    pub channels: Vec<EncodedChannel>,
    /// What the other rounding modes give, where it differs. Empty at [`Detail::Answer`].
    pub alternatives: Vec<Alternative>,
}

impl Encoded {
    /// The answer alone: the bits, as the `--plain` path found them.
    pub fn answer(format: Format, opts: RoundOptions, bits: u64) -> Encoded {
        Encoded {
            format,
            opts,
            bits,
            channels: Vec::new(),
            alternatives: Vec::new(),
        }
    }

    /// The result of an encoding, worked out to the given detail.
    pub fn new(e: &Encoding, detail: Detail) -> Encoded {
        let mut out = Encoded::answer(e.format, e.opts, e.bits);
        if detail == Detail::Answer {
            return out;
        }
        out.channels = e
            .channels()
            .into_iter()
            .enumerate()
            .map(|(i, channel)| EncodedChannel {
                input: e.inputs[i].clone(),
                input_value: e.values[i].clone(),
                channel,
                value: channel.value(),
                shortest: channel.shortest(),
                outcome: e.outcomes[i],
                error: e.error(i),
            })
            .collect();
        out.alternatives = e
            .alternatives()
            .into_iter()
            .map(|(mode, bits)| Alternative {
                mode,
                bits,
                shortest: channels(&e.format, bits)
                    .iter()
                    .map(Channel::shortest)
                    .collect(),
            })
            .collect();
        out
    }

    /// Whether every channel was represented exactly (at [`Detail::Full`]).
    pub fn exact(&self) -> bool {
        self.channels.iter().all(|c| c.outcome.exact)
    }

    /// The inputs as the user wrote them, space separated.
    pub fn inputs_text(&self) -> String {
        let inputs: Vec<&str> = self.channels.iter().map(|c| c.input.as_str()).collect();
        inputs.join(" ")
    }
}
