//! Distance in units in the last place, counted on the ordered line of representable values.
//!
//! The distance from A to B is the number of steps between them on the line of every value
//! a format can hold, so it is exact across binades and across zero: +0 and -0 are one point,
//! infinity is one step past the largest finite value, and a NaN is not on the line at all.
//! D3D arithmetic reads f32 subnormals as zero (§3.1.3.2), so by default an f32 line has no
//! subnormals: the step after 0 is the smallest normal. f16, f11 and f10 keep their
//! subnormals (§3.1.5, §3.1.6), and so does f64 (§3.1.4).
//!
//! Packed words are measured channel by channel. R11G11B10 channels are plain f11 and f10
//! values (§19.3.3). RGB9E5 channels share an exponent (§19.3.2): a channel's step is the
//! word's, `2^(E-24)`, so the representable values of a channel depend on its word and do
//! not form one line. Two RGB9E5 channels are therefore measured in steps of the finer of
//! the two words' grids: `(b - a) / 2^(min(Ea, Eb) - 24)`, always a whole number. Within
//! one shared exponent that is the mantissa difference (one mantissa unit is one ULP, as
//! it is for the hardware that wrote the word); across exponents it counts the finer
//! word's steps, so equal values under different exponents are 0 apart.
//!
//! Nothing here prints: the CLI's renderers take [`PairDiff`] and [`Summary`].

use std::io::{self, Read};

use crate::exact::{Number, Ratio, signed_add};
use crate::format::packed::{
    R11G11B10_CHANNELS, RGB9E5_MANTISSA_BITS, RGB9E5_MAX_MANTISSA, r11g11b10_encode, rgb9e5_encode,
};
use crate::format::{
    Class, F32, FloatFormat, Format, RoundOptions, Rounding, hex_bits, round_number, text,
};
use crate::input::{Constants, InputError, Operand, parse_operand, parse_value};

/// Measuring options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DiffOptions {
    /// Count f32 subnormals as zero, as D3D arithmetic reads them (§3.1.3.2). Has no effect
    /// on formats whose subnormals D3D keeps.
    pub flush_subnormals: bool,
}

impl Default for DiffOptions {
    fn default() -> DiffOptions {
        DiffOptions {
            flush_subnormals: true,
        }
    }
}

/// The ordered value line of one channel, with what is needed to place a pattern on it
/// using integer operations only (the buffer comparison runs this per element).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Line {
    Float {
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

impl Line {
    pub fn float(fmt: FloatFormat, opts: DiffOptions) -> Line {
        let flush = opts.flush_subnormals && fmt.arithmetic_flushes_subnormals;
        let sign_bit = if fmt.signed {
            1u64 << (fmt.width() - 1)
        } else {
            0
        };
        Line::Float {
            fmt,
            sign_bit,
            infinity: fmt.infinity(false),
            flushed_span: if flush { fmt.min_normal() - 1 } else { 0 },
        }
    }

    /// Whether this line reads subnormal patterns as zero.
    pub fn flushes(&self) -> bool {
        matches!(self, Line::Float { flushed_span, .. } if *flushed_span != 0)
    }

    /// The pattern's position on the line (`None` for NaN). +0 and -0 are both 0.
    #[inline]
    pub fn position(&self, bits: u64) -> Option<i64> {
        match *self {
            Line::Float {
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
            // which [`Line::distance`] rescales to the finer of the two words' steps.
            Line::Rgb9e5 => Some((rgb9e5_mantissa(bits) << rgb9e5_exponent(bits)) as i64),
        }
    }

    /// Signed number of steps from `a` to `b`, `None` when either is NaN.
    #[inline]
    pub fn distance(&self, a: u64, b: u64) -> Option<i128> {
        let steps = self.position(b)? as i128 - self.position(a)? as i128;
        Some(match self {
            Line::Float { .. } => steps,
            // Both values are whole multiples of the finer step, so the shift is exact.
            Line::Rgb9e5 => steps >> rgb9e5_exponent(a).min(rgb9e5_exponent(b)),
        })
    }

    /// Whether a pattern is NaN on this line.
    #[inline]
    pub fn is_nan(&self, bits: u64) -> bool {
        match *self {
            Line::Float {
                sign_bit, infinity, ..
            } => bits & !sign_bit > infinity,
            Line::Rgb9e5 => false,
        }
    }

    /// One endpoint: its value as stored, whether the line reads it as zero, and the step
    /// from it to the next value up on this line.
    pub fn endpoint(&self, bits: u64) -> Endpoint {
        match *self {
            Line::Float {
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
            Line::Rgb9e5 => {
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
    (bits >> RGB9E5_MANTISSA_BITS) & 0x1f
}

/// The channel layout of one element of a format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub format: Format,
    lines: [Line; 3],
    channels: usize,
}

/// Channel names of the packed words.
pub const CHANNEL_NAMES: [&str; 3] = ["r", "g", "b"];

impl Layout {
    pub fn new(format: Format, opts: DiffOptions) -> Layout {
        let (lines, channels) = match format {
            Format::Float(f) => ([Line::float(f, opts); 3], 1),
            Format::R11G11B10 => (R11G11B10_CHANNELS.map(|(f, _)| Line::float(f, opts)), 3),
            Format::Rgb9e5 => ([Line::Rgb9e5; 3], 3),
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

    pub fn line(&self, channel: usize) -> &Line {
        &self.lines[channel]
    }

    /// Bytes per element in a raw buffer: f11 and f10 travel one per little-endian u16.
    pub fn element_bytes(&self) -> usize {
        match self.format {
            Format::Float(f) => f.width().div_ceil(16) as usize * 2,
            Format::R11G11B10 | Format::Rgb9e5 => 4,
        }
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
                let mantissa = (element >> (9 * channel)) & RGB9E5_MAX_MANTISSA as u64;
                (((element >> 27) & 0x1f) << RGB9E5_MANTISSA_BITS) | mantissa
            }
        }
    }

    /// The element's valid bits (a 16-bit slot of an f11 or f10 has unused high bits).
    fn element_mask(&self) -> u64 {
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
            Line::Float { fmt, .. } => fmt.name,
            Line::Rgb9e5 => "rgb9e5",
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

/// The measurement of one channel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChannelDiff {
    /// The line the channel was measured on.
    pub line: Line,
    /// `r`, `g`, `b` for packed words, `None` otherwise.
    pub channel: Option<&'static str>,
    /// The channel's own format name (`f11`, `f10`, `rgb9e5`, or the format).
    pub format: &'static str,
    pub a: Endpoint,
    pub b: Endpoint,
    /// Steps from A to B; `None` when a NaN is involved.
    pub distance: Option<i128>,
    /// `|B - A|`; `None` when a NaN is involved or exactly one side is infinite.
    pub abs_error: Option<Ratio>,
    /// `|B - A| / |A|`; also `None` when A is zero and B is not.
    pub rel_error: Option<Ratio>,
}

impl ChannelDiff {
    /// An endpoint's pattern in script form: `0x3c00`; an RGB9E5 channel as its 9-bit
    /// mantissa (`0x0c8`), the shared exponent being [`Endpoint::rgb9e5_exponent`].
    pub fn bits_text(&self, e: &Endpoint) -> String {
        match self.line {
            Line::Float { fmt, .. } => hex_bits(e.bits, fmt.width()),
            Line::Rgb9e5 => hex_bits(e.bits & RGB9E5_MAX_MANTISSA as u64, RGB9E5_MANTISSA_BITS),
        }
    }

    /// The shortest decimal naming an endpoint's stored value (`inf`, `nan`, `-0`, ...).
    /// RGB9E5 channels use the shortest f32 decimal, which holds every one exactly.
    pub fn value_text(&self, e: &Endpoint) -> String {
        match self.line {
            Line::Float { fmt, .. } => text::shortest_decimal(&fmt, e.bits),
            Line::Rgb9e5 => {
                let v = e.value.to_f64_lossy() as f32;
                text::shortest_decimal(&F32, v.to_bits() as u64)
            }
        }
    }

    /// The endpoint's class word (`zero`, `subnormal`, `normal`, `infinity`, `nan`).
    pub fn class_text(&self, e: &Endpoint) -> &'static str {
        match self.line {
            Line::Float { fmt, .. } => fmt.class(e.bits).as_str(),
            Line::Rgb9e5 if e.bits & RGB9E5_MAX_MANTISSA as u64 == 0 => "zero",
            Line::Rgb9e5 => "normal",
        }
    }
}

impl Endpoint {
    /// For an RGB9E5 channel: the word's shared exponent field.
    pub fn rgb9e5_exponent(&self) -> u64 {
        (self.bits >> RGB9E5_MANTISSA_BITS) & 0x1f
    }
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
    pub format: Format,
    pub opts: DiffOptions,
    pub a: Resolved,
    pub b: Resolved,
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

/// Reads an operand of `format` the way `op` does: `0x` followed by exactly the format's
/// width in hex digits is a pattern, anything else a value rounded into the format to
/// nearest even. Packed words take a pattern or three values `R,G,B`.
pub fn resolve_operand(text: &str, format: Format) -> Result<Resolved, InputError> {
    let from_value = |bits, exact| Resolved {
        bits,
        from_value: true,
        exact,
    };
    match format {
        Format::Float(f) => match parse_operand(text, &f)? {
            Operand::Bits(bits) => Ok(Resolved::bits(bits)),
            Operand::Value(v) => {
                let r = round_number(&f, &v, RoundOptions::new(Rounding::NearestEven));
                Ok(from_value(r.bits, r.outcome.exact))
            }
        },
        Format::R11G11B10 | Format::Rgb9e5 => {
            let t = text.trim();
            if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X"))
                && hex.len() == 8
                && hex.bytes().all(|b| b.is_ascii_hexdigit())
            {
                let bits = u64::from_str_radix(hex, 16).expect("checked hex digits");
                return Ok(Resolved::bits(bits));
            }
            let parts: Vec<&str> = t.split(',').collect();
            let [r, g, b] = parts[..] else {
                return Err(InputError::Other(format!(
                    "a {} operand is a word (0x and 8 hex digits) or three values R,G,B",
                    format.name()
                )));
            };
            // Named constants (`max`, ...) are the channel's own: f11, f11, f10 or RGB9E5.
            let values = [
                parse_value(r, Constants::for_channel(&format, 0))?,
                parse_value(g, Constants::for_channel(&format, 1))?,
                parse_value(b, Constants::for_channel(&format, 2))?,
            ];
            let (word, outcomes) = if format == Format::R11G11B10 {
                r11g11b10_encode(&values, RoundOptions::new(Rounding::NearestEven))
            } else {
                rgb9e5_encode(&values, Rounding::NearestEven)
            };
            Ok(from_value(word as u64, outcomes.iter().all(|o| o.exact)))
        }
    }
}

/// Histogram buckets: 0, 1, 2, 3-4, 5-8, ..., (2^63, 2^64].
pub const HISTOGRAM_BUCKETS: usize = 66;

/// The histogram bucket of a distance magnitude.
#[inline]
pub fn bucket(magnitude: u64) -> usize {
    if magnitude <= 1 {
        magnitude as usize
    } else {
        1 + (64 - (magnitude - 1).leading_zeros() as usize)
    }
}

/// The label of a bucket: `0`, `1`, `2`, `3-4`, `5-8`, ...
pub fn bucket_label(bucket: usize) -> String {
    match bucket {
        0..=2 => bucket.to_string(),
        _ => {
            let hi = 1u128 << (bucket - 1);
            format!("{}-{}", hi / 2 + 1, hi)
        }
    }
}

/// How many of the worst elements (and of the first NaN elements) a summary keeps.
pub const WORST_KEPT: usize = 5;

/// One remembered comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    /// Element index in a buffer, or line number on stdin.
    pub index: u64,
    /// Channel number for packed words.
    pub channel: Option<usize>,
    pub a: u64,
    pub b: u64,
    pub distance: Option<i128>,
}

/// Running totals over many comparisons (channels count one each).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    /// Every comparison, NaN ones included.
    pub compared: u64,
    /// Comparisons where exactly one side is NaN.
    pub nan_mismatches: u64,
    /// Comparisons where both sides are NaN.
    pub nan_both: u64,
    /// Sum of |distance| over the measured comparisons.
    pub sum_abs: u128,
    pub max_abs: u64,
    pub histogram: [u64; HISTOGRAM_BUCKETS],
    /// The `--max` limit, if any, and the number of distances beyond it.
    pub limit: Option<u64>,
    pub over_limit: u64,
    /// The largest |distance| seen, largest first, earliest first among equals.
    pub worst: Vec<Sample>,
    /// The first comparisons that involved a NaN.
    pub first_nans: Vec<Sample>,
}

impl Summary {
    pub fn new(limit: Option<u64>) -> Summary {
        Summary {
            compared: 0,
            nan_mismatches: 0,
            nan_both: 0,
            sum_abs: 0,
            max_abs: 0,
            histogram: [0; HISTOGRAM_BUCKETS],
            limit,
            over_limit: 0,
            worst: Vec::with_capacity(WORST_KEPT + 1),
            first_nans: Vec::with_capacity(WORST_KEPT),
        }
    }

    /// Comparisons that gave a distance.
    pub fn measured(&self) -> u64 {
        self.compared - self.nan_mismatches - self.nan_both
    }

    pub fn nans(&self) -> u64 {
        self.nan_mismatches + self.nan_both
    }

    /// Mean |distance| over the measured comparisons.
    pub fn mean_abs(&self) -> Option<f64> {
        let n = self.measured();
        (n > 0).then(|| self.sum_abs as f64 / n as f64)
    }

    /// The `--max` verdict over everything seen: a NaN or a distance beyond the limit fails.
    pub fn failed(&self) -> bool {
        self.limit.is_some() && (self.over_limit > 0 || self.nans() > 0)
    }

    /// `n` comparisons at distance 0 (equal, non-NaN patterns).
    #[inline]
    pub fn add_equal(&mut self, n: u64) {
        self.compared += n;
        self.histogram[0] += n;
    }

    /// One comparison. When `sample.distance` is `None` (a NaN is involved), `both_nan` tells
    /// NaN against NaN from NaN against a number.
    pub fn record(&mut self, sample: Sample, both_nan: bool) {
        self.compared += 1;
        let Some(d) = sample.distance else {
            if both_nan {
                self.nan_both += 1;
            } else {
                self.nan_mismatches += 1;
            }
            if self.first_nans.len() < WORST_KEPT {
                self.first_nans.push(sample);
            }
            return;
        };
        let magnitude = d.unsigned_abs() as u64;
        self.sum_abs += magnitude as u128;
        self.max_abs = self.max_abs.max(magnitude);
        self.histogram[bucket(magnitude)] += 1;
        if self.limit.is_some_and(|l| magnitude > l) {
            self.over_limit += 1;
        }
        if magnitude == 0 {
            return;
        }
        let full = self.worst.len() == WORST_KEPT;
        let least = self
            .worst
            .last()
            .map(|s| s.distance.map_or(0, i128::unsigned_abs));
        if full && least.is_some_and(|l| magnitude as u128 <= l) {
            return;
        }
        let at = self
            .worst
            .iter()
            .position(|s| s.distance.map_or(0, i128::unsigned_abs) < magnitude as u128)
            .unwrap_or(self.worst.len());
        self.worst.insert(at, sample);
        self.worst.truncate(WORST_KEPT);
    }

    /// Records every channel of a measured pair, under `index`.
    pub fn record_pair(&mut self, index: u64, pair: &PairDiff) {
        for (i, c) in pair.channels.iter().enumerate() {
            let both_nan = c.a.value.is_nan() && c.b.value.is_nan();
            self.record(
                Sample {
                    index,
                    channel: (pair.channels.len() > 1).then_some(i),
                    a: c.a.bits,
                    b: c.b.bits,
                    distance: c.distance,
                },
                both_nan,
            );
        }
    }

    /// The non-empty stretch of the histogram: `(label, count)` from bucket 0 to the last
    /// bucket with a count.
    pub fn histogram_rows(&self) -> Vec<(String, u64)> {
        let last = self.histogram.iter().rposition(|&n| n > 0).unwrap_or(0);
        (0..=last)
            .map(|b| (bucket_label(b), self.histogram[b]))
            .collect()
    }
}

/// What a summary was taken over, for its heading.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Compared {
    /// `A B` lines on stdin; indices are line numbers.
    Pairs,
    /// Two raw buffers; indices are element numbers from 0.
    Files {
        expected: String,
        actual: String,
        elements: u64,
    },
}

/// A finished summary with its context, as the renderers take it.
#[derive(Clone, Debug)]
pub struct SummaryReport<'a> {
    pub format: Format,
    pub opts: DiffOptions,
    pub compared: Compared,
    pub summary: &'a Summary,
}

/// One measured pair with its context, as the renderers take it.
#[derive(Clone, Debug)]
pub struct PairReport<'a> {
    pub pair: &'a PairDiff,
    /// A and B as typed.
    pub inputs: [&'a str; 2],
    /// The `--max` limit, if given.
    pub limit: Option<u64>,
    /// One of many stdin pairs: a short form suits the human view.
    pub batch: bool,
}

/// Why two buffers could not be compared.
#[derive(Debug, thiserror::Error)]
pub enum BufferError {
    #[error("the files differ in size: expected has {expected} bytes, actual has {actual} bytes")]
    SizeMismatch { expected: u64, actual: u64 },
    #[error(
        "size is not a whole number of {element}-byte {format} elements: expected has {expected} bytes, actual has {actual} bytes"
    )]
    PartialElement {
        format: &'static str,
        element: usize,
        expected: u64,
        actual: u64,
    },
    #[error(
        "element {index} of the {which} file has bits set above {format}'s {width} (0x{element:04x})"
    )]
    StrayBits {
        which: &'static str,
        index: u64,
        element: u64,
        format: &'static str,
        width: u32,
    },
    #[error("reading the {which} file: {source}")]
    Read {
        which: &'static str,
        source: io::Error,
    },
}

/// Bytes read from each stream per step. Small enough that both buffers stay in the L2
/// cache, so neither the kernel's copy into them nor the comparison goes out to main
/// memory: 64 KiB measured about twice as fast as 1 MiB for two 256 MiB files.
pub const CHUNK_BYTES: usize = 1 << 16;
/// Elements compared as one block by the equal-bytes fast path.
const BLOCK_ELEMENTS: usize = 64;

/// Compares two raw little-endian buffers element by element (packed words channel by
/// channel), streaming in [`CHUNK_BYTES`] steps with constant memory, into `summary`.
/// Returns the number of elements compared.
pub fn compare_streams(
    layout: &Layout,
    mut expected: impl Read,
    mut actual: impl Read,
    summary: &mut Summary,
) -> Result<u64, BufferError> {
    let element = layout.element_bytes();
    let mut buf_e = vec![0u8; CHUNK_BYTES];
    let mut buf_a = vec![0u8; CHUNK_BYTES];
    let mut total: u64 = 0;
    loop {
        let n_e = read_full(&mut expected, &mut buf_e).map_err(|source| BufferError::Read {
            which: "expected",
            source,
        })?;
        let n_a = read_full(&mut actual, &mut buf_a).map_err(|source| BufferError::Read {
            which: "actual",
            source,
        })?;
        if n_e != n_a {
            let expected_size = total + n_e as u64 + drain(&mut expected, &mut buf_e, "expected")?;
            let actual_size = total + n_a as u64 + drain(&mut actual, &mut buf_a, "actual")?;
            return Err(BufferError::SizeMismatch {
                expected: expected_size,
                actual: actual_size,
            });
        }
        if n_e % element != 0 {
            let size = total + n_e as u64;
            return Err(BufferError::PartialElement {
                format: layout.format.name(),
                element,
                expected: size,
                actual: size,
            });
        }
        let first_index = total / element as u64;
        compare_chunk(layout, &buf_e[..n_e], &buf_a[..n_a], first_index, summary)?;
        total += n_e as u64;
        if n_e < CHUNK_BYTES {
            return Ok(total / element as u64);
        }
    }
}

/// Fills `buf` as far as the stream allows; short only at the end of the stream.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match r.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// Reads a stream to its end, returning how many bytes were left.
fn drain(r: &mut impl Read, buf: &mut [u8], which: &'static str) -> Result<u64, BufferError> {
    let mut n = 0u64;
    loop {
        let got = read_full(r, buf).map_err(|source| BufferError::Read { which, source })?;
        n += got as u64;
        if got < buf.len() {
            return Ok(n);
        }
    }
}

fn compare_chunk(
    layout: &Layout,
    expected: &[u8],
    actual: &[u8],
    first_index: u64,
    summary: &mut Summary,
) -> Result<(), BufferError> {
    match layout.element_bytes() {
        2 => compare_chunk_of::<2>(layout, expected, actual, first_index, summary),
        4 => compare_chunk_of::<4>(layout, expected, actual, first_index, summary),
        _ => compare_chunk_of::<8>(layout, expected, actual, first_index, summary),
    }
}

#[inline(always)]
fn load<const N: usize>(bytes: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    word[..N].copy_from_slice(&bytes[..N]);
    u64::from_le_bytes(word)
}

/// Whether a block holds only NaN-free, in-range elements, so that equal bytes mean
/// distance 0 for every element. Written without early exits so that it vectorises.
#[inline(always)]
fn block_is_plain<const N: usize>(layout: &Layout, block: &[u8]) -> bool {
    match layout.format {
        Format::Float(_) => {
            let Line::Float {
                sign_bit, infinity, ..
            } = layout.lines[0]
            else {
                unreachable!("float formats have float lines")
            };
            let valid = layout.element_mask();
            block.chunks_exact(N).fold(true, |ok, c| {
                let w = load::<N>(c);
                ok & (w & !valid == 0) & (w & !sign_bit & valid <= infinity)
            })
        }
        Format::R11G11B10 => block.chunks_exact(N).fold(true, |ok, c| {
            let w = load::<N>(c);
            ok & R11G11B10_CHANNELS
                .iter()
                .all(|(f, shift)| (w >> shift) & f.mask() <= f.infinity(false))
        }),
        Format::Rgb9e5 => true,
    }
}

fn compare_chunk_of<const N: usize>(
    layout: &Layout,
    expected: &[u8],
    actual: &[u8],
    first_index: u64,
    summary: &mut Summary,
) -> Result<(), BufferError> {
    let channels = layout.channels();
    let valid = layout.element_mask();
    let block_bytes = N * BLOCK_ELEMENTS;
    let blocks = expected.chunks(block_bytes).zip(actual.chunks(block_bytes));
    for (block_no, (be, ba)) in blocks.enumerate() {
        if be == ba && block_is_plain::<N>(layout, be) {
            summary.add_equal((be.len() / N * channels) as u64);
            continue;
        }
        let base = first_index + (block_no * BLOCK_ELEMENTS) as u64;
        for (i, (ce, ca)) in be.chunks_exact(N).zip(ba.chunks_exact(N)).enumerate() {
            let index = base + i as u64;
            let (we, wa) = (load::<N>(ce), load::<N>(ca));
            for (which, w) in [("expected", we), ("actual", wa)] {
                if w & !valid != 0 {
                    let Format::Float(f) = layout.format else {
                        unreachable!("packed words fill their slot")
                    };
                    return Err(BufferError::StrayBits {
                        which,
                        index,
                        element: w,
                        format: f.name,
                        width: f.width(),
                    });
                }
            }
            for ch in 0..channels {
                let line = layout.line(ch);
                let (e, a) = (layout.channel_bits(we, ch), layout.channel_bits(wa, ch));
                if e == a && !line.is_nan(e) {
                    summary.add_equal(1);
                    continue;
                }
                summary.record(
                    Sample {
                        index,
                        channel: (channels > 1).then_some(ch),
                        a: e,
                        b: a,
                        distance: line.distance(e, a),
                    },
                    line.is_nan(e) && line.is_nan(a),
                );
            }
        }
    }
    Ok(())
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
        Line::float(fmt, opts).distance(a, b)
    }

    #[test]
    fn positions_agree_with_the_descriptor_ordinal_when_nothing_is_flushed() {
        for fmt in [F16, F11, F10] {
            let line = Line::float(fmt, KEEP);
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
        let line = Line::Rgb9e5;
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
                        let got = Line::Rgb9e5.distance(ea << 9 | ma, eb << 9 | mb);
                        assert_eq!(got, Some(want as i128), "{ma}@{ea} -> {mb}@{eb}");
                    }
                }
            }
        }
    }

    #[test]
    fn buckets_double() {
        let labels: Vec<String> = (0..7).map(bucket_label).collect();
        assert_eq!(labels, ["0", "1", "2", "3-4", "5-8", "9-16", "17-32"]);
        for (m, b) in [
            (0, 0),
            (1, 1),
            (2, 2),
            (3, 3),
            (4, 3),
            (5, 4),
            (8, 4),
            (9, 5),
        ] {
            assert_eq!(bucket(m), b, "{m}");
        }
        assert_eq!(bucket(u64::MAX), 65);
    }

    #[test]
    fn summary_keeps_the_worst_and_counts_nans() {
        let mut s = Summary::new(Some(2));
        let sample = |index, distance| Sample {
            index,
            channel: None,
            a: 0,
            b: 0,
            distance,
        };
        for (i, dist) in [1, -7, 3, 7, 0, 2, 100, 1].into_iter().enumerate() {
            s.record(sample(i as u64, Some(dist)), false);
        }
        s.record(sample(8, None), false);
        s.record(sample(9, None), true);
        let worst: Vec<u64> = s.worst.iter().map(|w| w.index).collect();
        assert_eq!(worst, [6, 1, 3, 2, 5]);
        assert_eq!((s.compared, s.measured(), s.nans()), (10, 8, 2));
        assert_eq!((s.max_abs, s.sum_abs, s.over_limit), (100, 121, 4));
        assert!(s.failed());
        assert_eq!(s.histogram_rows().len(), 9); // up to 65-128
    }

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
