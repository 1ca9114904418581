//! One pair of elements measured channel by channel: distance, absolute and relative error.

use super::{DiffOptions, Endpoint, Layout, ValueLine};
use crate::exact::{Number, Ratio, signed_add};
use crate::format::Format;

/// The measurement of one channel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChannelDiff {
    /// The line the channel was measured on.
    pub line: ValueLine,
    /// `r`, `g`, `b` for packed words, `None` otherwise.
    pub channel: Option<&'static str>,
    /// The channel's own format name (`f11`, `f10`, `rgb9e5`, or the format).
    pub format: &'static str,
    /// Channel A, the reference side the distance is counted from: its pattern, value and
    /// step on the line.
    pub a: Endpoint,
    /// Channel B, the side measured against A.
    pub b: Endpoint,
    /// Steps from A to B; `None` when a NaN is involved.
    pub distance: Option<i128>,
    /// `|B - A|`; `None` when a NaN is involved or exactly one side is infinite.
    pub abs_error: Option<Ratio>,
    /// `|B - A| / |A|`; also `None` when A is zero and B is not.
    pub rel_error: Option<Ratio>,
}

/// How an operand was read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolved {
    /// The element's pattern.
    pub bits: u64,
    /// Given as a value (rounded into the format with round-to-nearest-even), not as bits.
    pub from_value: bool,
    /// For a value: whether the rounding was exact (every channel, for packed words).
    pub exact: bool,
}

impl Resolved {
    /// An operand given as a bit pattern: taken as it is, so nothing was rounded.
    pub fn bits(bits: u64) -> Resolved {
        Resolved {
            bits,
            from_value: false,
            exact: true,
        }
    }
}

/// The measurement of one pair of elements.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairDiff {
    /// The format both elements are in.
    pub format: Format,
    /// The options the pair was measured under (whether f32 subnormals count as zero).
    pub opts: DiffOptions,
    /// Operand A as read; distances are counted from it.
    pub a: Resolved,
    /// Operand B as read.
    pub b: Resolved,
    /// One measurement per channel: one for a float format, R, G and B for the packed
    /// words.
    pub channels: Vec<ChannelDiff>,
}

impl PairDiff {
    /// The headline distance: the channel distance of largest magnitude (the first such),
    /// or `None` when any channel involves a NaN.
    pub fn distance(&self) -> Option<i128> {
        let mut worst: Option<i128> = None;
        for c in &self.channels {
            let d = c.distance?;
            if worst.is_none_or(|w| d.abs() > w.abs()) {
                worst = Some(d);
            }
        }
        worst
    }

    /// Whether a channel involves a NaN.
    pub fn has_nan(&self) -> bool {
        self.channels.iter().any(|c| c.distance.is_none())
    }

    /// The `--max` verdict: a NaN, or a distance beyond `max`, fails.
    pub fn exceeds(&self, max: u64) -> bool {
        self.distance()
            .is_none_or(|d| d.unsigned_abs() > max as u128)
    }
}

/// Measures one pair of elements, channel by channel.
pub fn diff_pair(format: Format, a: Resolved, b: Resolved, opts: DiffOptions) -> PairDiff {
    let layout = Layout::new(format, opts);
    let channels = (0..layout.channels())
        .map(|i| {
            let line = layout.line(i);
            let ea = line.endpoint(layout.channel_bits(a.bits, i));
            let eb = line.endpoint(layout.channel_bits(b.bits, i));
            let (abs_error, rel_error) = errors(&ea.effective(), &eb.effective());
            ChannelDiff {
                line: *line,
                channel: layout.channel_name(i),
                format: layout.channel_format_name(i),
                distance: line.distance(ea.bits, eb.bits),
                a: ea,
                b: eb,
                abs_error,
                rel_error,
            }
        })
        .collect();
    PairDiff {
        format,
        opts,
        a,
        b,
        channels,
    }
}

/// `|b - a|` and `|b - a| / |a|`, exactly, where they are finite.
fn errors(a: &Number, b: &Number) -> (Option<Ratio>, Option<Ratio>) {
    let abs = match (a, b) {
        (Number::Finite { neg: an, mag: am }, Number::Finite { neg: bn, mag: bm }) => {
            Some(signed_add(*bn, bm, !*an, am).1)
        }
        (Number::Infinity { neg: an }, Number::Infinity { neg: bn }) if an == bn => {
            Some(Ratio::zero())
        }
        _ => None,
    };
    let rel = match (&abs, a) {
        (Some(e), _) if e.is_zero() => Some(Ratio::zero()),
        (Some(e), Number::Finite { mag, .. }) if !mag.is_zero() => Some(e.div(mag)),
        _ => None,
    };
    (abs, rel)
}

/// One measured pair with its context, as the renderers take it.
#[derive(Clone, Debug)]
pub struct PairReport<'a> {
    /// The measurement to render.
    pub pair: &'a PairDiff,
    /// A and B as typed.
    pub inputs: [&'a str; 2],
    /// The `--max` limit, if given.
    pub limit: Option<u64>,
    /// One of many stdin pairs: a short form suits the human view.
    pub batch: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::F16;

    const FLUSH: DiffOptions = DiffOptions {
        flush_subnormals: true,
    };

    #[test]
    fn errors_are_exact() {
        let pair = diff_pair(
            Format::Float(F16),
            Resolved::bits(0x3c00),
            Resolved::bits(0x3c01),
            FLUSH,
        );
        let c = &pair.channels[0];
        assert_eq!(c.abs_error, Some(Ratio::dyadic(1u32, -10)));
        assert_eq!(c.rel_error, Some(Ratio::dyadic(1u32, -10)));
        assert_eq!(pair.distance(), Some(1));
    }

    #[test]
    fn packed_words_split_into_channels() {
        let pair = diff_pair(
            Format::R11G11B10,
            Resolved::bits(0x3c0 | 0x3c0 << 11 | 0x1e0 << 22),
            Resolved::bits(0x3c1 | 0x3be << 11 | 0x3e0 << 22),
            FLUSH,
        );
        let ds: Vec<_> = pair.channels.iter().map(|c| c.distance).collect();
        assert_eq!(ds, [Some(1), Some(-2), Some(0x3e0 - 0x1e0)]);
        assert_eq!(pair.distance(), Some(0x200));
    }
}
