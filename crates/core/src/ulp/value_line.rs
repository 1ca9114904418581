//! The ordered line of values one channel can hold, and a pattern's place on it.

use super::DiffOptions;
use crate::exact::{Number, Ratio};
use crate::format::packed::{
    R11G11B10_CHANNELS, RGB9E5_MANTISSA_BITS, RGB9E5_MAX_EXPONENT, RGB9E5_MAX_MANTISSA,
    rgb9e5_channel_mantissa, rgb9e5_shared_exponent,
};
use crate::format::{Class, FloatFormat, Format};

/// The ordered value line of one channel, with what is needed to place a pattern on it
/// using integer operations only (the buffer comparison runs this per element).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueLine {
    /// A channel that is a float of its own (a float format, or an R11G11B10 channel): a
    /// pattern's position is its magnitude bits, negated for a set sign bit, less any
    /// flushed subnormals.
    Float {
        /// The channel's format.
        fmt: FloatFormat,
        /// The sign bit (0 for unsigned formats).
        sign_bit: u64,
        /// Magnitude bits of +infinity; larger magnitudes are NaN.
        infinity: u64,
        /// With subnormals flushed: the number of positive subnormals, removed from the line.
        /// Zero when subnormals count.
        flushed_span: u64,
    },
    /// An RGB9E5 channel, given as the 14-bit pattern `exponent << 9 | mantissa`.
    Rgb9e5,
}

impl ValueLine {
    /// The line of a float format. Its subnormals are removed only when `opts` asks for
    /// flushing and D3D arithmetic reads that format's subnormals as zero (f32, §3.1.3.2).
    pub fn float(fmt: FloatFormat, opts: DiffOptions) -> ValueLine {
        let flush = opts.flush_subnormals && fmt.arithmetic_flushes_subnormals;
        let sign_bit = if fmt.signed {
            1u64 << (fmt.width() - 1)
        } else {
            0
        };
        ValueLine::Float {
            fmt,
            sign_bit,
            infinity: fmt.infinity(false),
            flushed_span: if flush { fmt.min_normal() - 1 } else { 0 },
        }
    }

    /// Whether this line reads subnormal patterns as zero.
    pub fn flushes(&self) -> bool {
        matches!(self, ValueLine::Float { flushed_span, .. } if *flushed_span != 0)
    }

    /// The pattern's position on the line (`None` for NaN). +0 and -0 are both 0.
    #[inline]
    pub fn position(&self, bits: u64) -> Option<i64> {
        match *self {
            ValueLine::Float {
                sign_bit,
                infinity,
                flushed_span,
                ..
            } => {
                let magnitude = bits & !sign_bit;
                if magnitude > infinity {
                    return None;
                }
                // With the subnormals gone, every normal moves down by their number.
                let step = magnitude.saturating_sub(flushed_span) as i64;
                Some(if bits & sign_bit != 0 { -step } else { step })
            }
            // RGB9E5 channels have no single line; this is the value in units of 2^-24,
            // which [`ValueLine::distance`] rescales to the finer of the two words' steps.
            ValueLine::Rgb9e5 => Some((rgb9e5_mantissa(bits) << rgb9e5_exponent(bits)) as i64),
        }
    }

    /// Signed number of steps from `a` to `b`, `None` when either is NaN.
    #[inline]
    pub fn distance(&self, a: u64, b: u64) -> Option<i128> {
        let steps = self.position(b)? as i128 - self.position(a)? as i128;
        Some(match self {
            ValueLine::Float { .. } => steps,
            // Both values are whole multiples of the finer step, so the shift is exact.
            ValueLine::Rgb9e5 => steps >> rgb9e5_exponent(a).min(rgb9e5_exponent(b)),
        })
    }

    /// Whether a pattern is NaN on this line.
    #[inline]
    pub fn is_nan(&self, bits: u64) -> bool {
        match *self {
            ValueLine::Float {
                sign_bit, infinity, ..
            } => bits & !sign_bit > infinity,
            ValueLine::Rgb9e5 => false,
        }
    }

    /// The value the line reads a pattern as, in double precision (exact for every format
    /// here): a flushed subnormal is zero, as [`ValueLine::position`] places it. For
    /// `--abs-tol` and `--rel-tol`.
    #[inline]
    pub fn value_f64(&self, bits: u64) -> f64 {
        match *self {
            ValueLine::Float {
                fmt,
                sign_bit,
                flushed_span,
                ..
            } => {
                let magnitude = bits & !sign_bit & fmt.mask();
                if flushed_span != 0 && magnitude != 0 && magnitude <= flushed_span {
                    return if bits & sign_bit != 0 { -0.0 } else { 0.0 };
                }
                fmt.to_f64(bits)
            }
            ValueLine::Rgb9e5 => {
                let exponent = rgb9e5_exponent(bits) as i32;
                rgb9e5_mantissa(bits) as f64 * 2f64.powi(exponent - 24)
            }
        }
    }

    /// One endpoint: its value as stored, whether the line reads it as zero, and the step
    /// from it to the next value up on this line.
    pub fn endpoint(&self, bits: u64) -> Endpoint {
        match *self {
            ValueLine::Float {
                fmt, flushed_span, ..
            } => {
                let class = fmt.class(bits);
                let counted_as_zero = flushed_span != 0 && class == Class::Subnormal;
                let ulp = match class {
                    Class::Infinity | Class::Nan => None,
                    // On a flushed line the step out of zero is the smallest normal.
                    Class::Zero | Class::Subnormal if flushed_span != 0 => {
                        Some(Ratio::dyadic(1u32, fmt.emin() as i64))
                    }
                    _ => fmt.ulp(bits),
                };
                Endpoint {
                    bits,
                    value: fmt.value(bits),
                    counted_as_zero,
                    ulp,
                }
            }
            ValueLine::Rgb9e5 => {
                let exponent = rgb9e5_exponent(bits) as i64;
                Endpoint {
                    bits,
                    value: Number::finite(
                        false,
                        Ratio::dyadic(rgb9e5_mantissa(bits), exponent - 24),
                    ),
                    counted_as_zero: false,
                    ulp: Some(Ratio::dyadic(1u32, exponent - 24)),
                }
            }
        }
    }
}

/// The mantissa of an RGB9E5 channel pattern `exponent << 9 | mantissa`.
#[inline]
fn rgb9e5_mantissa(bits: u64) -> u64 {
    bits & RGB9E5_MAX_MANTISSA as u64
}

/// The shared exponent field of an RGB9E5 channel pattern.
#[inline]
fn rgb9e5_exponent(bits: u64) -> u64 {
    (bits >> RGB9E5_MANTISSA_BITS) & RGB9E5_MAX_EXPONENT as u64
}

/// The channel layout of one element of a format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// The element format the layout splits.
    pub format: Format,
    lines: [ValueLine; 3],
    channels: usize,
}

/// Channel names of the packed words.
pub const CHANNEL_NAMES: [&str; 3] = ["r", "g", "b"];

impl Layout {
    /// The layout of `format`'s elements under `opts`: one line for a float format, three
    /// for R11G11B10 (f11, f11, f10) and for RGB9E5 (shared-exponent channels).
    pub fn new(format: Format, opts: DiffOptions) -> Layout {
        let (lines, channels) = match format {
            Format::Float(f) => ([ValueLine::float(f, opts); 3], 1),
            Format::R11G11B10 => (
                R11G11B10_CHANNELS.map(|(f, _)| ValueLine::float(f, opts)),
                3,
            ),
            Format::Rgb9e5 => ([ValueLine::Rgb9e5; 3], 3),
        };
        Layout {
            format,
            lines,
            channels,
        }
    }

    /// Number of channels an element has (1, or 3 for the packed words).
    pub fn channels(&self) -> usize {
        self.channels
    }

    /// The value line of channel `channel`, counting from 0 (below 3; a single-channel
    /// format answers every index with its one line).
    pub fn line(&self, channel: usize) -> &ValueLine {
        &self.lines[channel]
    }

    /// The pattern of one channel of an element (for RGB9E5: `exponent << 9 | mantissa`).
    #[inline]
    pub fn channel_bits(&self, element: u64, channel: usize) -> u64 {
        match self.format {
            Format::Float(_) => element,
            Format::R11G11B10 => {
                let (f, shift) = R11G11B10_CHANNELS[channel];
                (element >> shift) & f.mask()
            }
            Format::Rgb9e5 => {
                let word = element as u32;
                let mantissa = rgb9e5_channel_mantissa(word, channel) as u64;
                ((rgb9e5_shared_exponent(word) as u64) << RGB9E5_MANTISSA_BITS) | mantissa
            }
        }
    }

    /// The element's valid bits (a 16-bit slot of an f11 or f10 has unused high bits).
    pub(crate) fn element_mask(&self) -> u64 {
        match self.format {
            Format::Float(f) => f.mask(),
            _ => u32::MAX as u64,
        }
    }

    /// The name a channel is shown under (`None` for single-channel formats).
    pub fn channel_name(&self, channel: usize) -> Option<&'static str> {
        (self.channels > 1).then(|| CHANNEL_NAMES[channel])
    }

    /// The format name of a channel (`f11`, `f10`, `rgb9e5`, or the format itself).
    pub fn channel_format_name(&self, channel: usize) -> &'static str {
        match self.lines[channel] {
            ValueLine::Float { fmt, .. } => fmt.name,
            ValueLine::Rgb9e5 => "rgb9e5",
        }
    }
}

/// One end of a measured pair.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Endpoint {
    /// The channel's pattern (RGB9E5: `exponent << 9 | mantissa`).
    pub bits: u64,
    /// The value the pattern stores.
    pub value: Number,
    /// An f32 subnormal that the line reads as zero (§3.1.3.2).
    pub counted_as_zero: bool,
    /// The step to the next value up on the line; `None` for infinity and NaN.
    pub ulp: Option<Ratio>,
}

impl Endpoint {
    /// The value as the line sees it: a flushed subnormal is a zero of the same sign.
    pub fn effective(&self) -> Number {
        if self.counted_as_zero {
            Number::zero(self.value.is_negative())
        } else {
            self.value.clone()
        }
    }
}

impl Endpoint {
    /// For an RGB9E5 channel: the word's shared exponent field.
    pub fn rgb9e5_exponent(&self) -> u64 {
        rgb9e5_exponent(self.bits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{F10, F11, F16, F32, F64};

    const FLUSH: DiffOptions = DiffOptions {
        flush_subnormals: true,
    };
    const KEEP: DiffOptions = DiffOptions {
        flush_subnormals: false,
    };

    fn d(fmt: FloatFormat, opts: DiffOptions, a: u64, b: u64) -> Option<i128> {
        ValueLine::float(fmt, opts).distance(a, b)
    }

    #[test]
    fn positions_agree_with_the_descriptor_ordinal_when_nothing_is_flushed() {
        for fmt in [F16, F11, F10] {
            let line = ValueLine::float(fmt, KEEP);
            for bits in 0..=fmt.mask() {
                assert_eq!(
                    line.position(bits),
                    fmt.ordinal(bits),
                    "{} {bits:#x}",
                    fmt.name
                );
            }
        }
    }

    #[test]
    fn f32_subnormals_are_zero_unless_asked() {
        // The smallest normal is one step from zero once the subnormals are gone.
        assert_eq!(d(F32, FLUSH, 0, 0x0080_0000), Some(1));
        assert_eq!(d(F32, FLUSH, 0x8000_0001, 0x0000_0001), Some(0));
        assert_eq!(d(F32, FLUSH, 0x8080_0000, 0x0080_0000), Some(2));
        assert_eq!(d(F32, KEEP, 0, 0x0080_0000), Some(0x80_0000));
        assert_eq!(d(F32, KEEP, 0x8000_0001, 0x0000_0001), Some(2));
        // f16 keeps its subnormals whatever the option says (§3.1.5).
        assert_eq!(d(F16, FLUSH, 0, 0x0400), Some(0x400));
    }

    #[test]
    fn f64_extremes_fit() {
        let inf = F64.infinity(false);
        assert_eq!(
            d(F64, FLUSH, inf | 1 << 63, inf),
            Some(2 * 0x7ff0_0000_0000_0000i128)
        );
        assert_eq!(d(F64, FLUSH, 0x7ff8_0000_0000_0000, 0), None);
    }

    #[test]
    fn rgb9e5_channels_count_steps_of_the_finer_word() {
        let line = ValueLine::Rgb9e5;
        // Same shared exponent: the mantissa difference.
        assert_eq!(line.distance(16 << 9 | 256, 16 << 9 | 259), Some(3));
        assert_eq!(line.distance(31 << 9 | 511, 31 << 9), Some(-511));
        // 1.0 as mantissa 256 at E = 16 and as 128 at E = 17 is one point.
        let one_a = (16 << 9) | 256;
        let one_b = (17 << 9) | 128;
        assert_eq!(line.distance(one_a, one_b), Some(0));
        // 1 + 2^-7 at E = 17 is two steps of E = 16's 2^-8 grid from 1.0.
        assert_eq!(line.distance(one_a, (17 << 9) | 129), Some(2));
        assert_eq!(line.distance((17 << 9) | 129, one_a), Some(-2));
    }

    #[test]
    fn rgb9e5_distance_is_the_value_gap_over_the_finer_step() {
        // Independent: values and steps as f64 (exact for every RGB9E5 channel).
        let value = |m: u64, e: u64| m as f64 * 2f64.powi(e as i32 - 24);
        for ea in (0..32u64).step_by(3) {
            for eb in (0..32u64).step_by(5) {
                for ma in (0..512u64).step_by(37) {
                    for mb in (0..512u64).step_by(41) {
                        let finer = 2f64.powi(ea.min(eb) as i32 - 24);
                        let want = (value(mb, eb) - value(ma, ea)) / finer;
                        assert_eq!(want.fract(), 0.0);
                        let got = ValueLine::Rgb9e5.distance(ea << 9 | ma, eb << 9 | mb);
                        assert_eq!(got, Some(want as i128), "{ma}@{ea} -> {mb}@{eb}");
                    }
                }
            }
        }
    }
}
