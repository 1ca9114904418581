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
//! Nothing here reads or writes text: operands arrive parsed (`crate::input::pairs`), and
//! the renderers (`crate::render::ulp_text`) turn [`PairDiff`] and [`Summary`] into text.
//!
//! - [`value_line`]: the ordered line of a channel ([`ValueLine`]) and an element's [`Layout`];
//! - [`pair`]: one pair measured channel by channel ([`diff_pair`]);
//! - [`summary`]: totals, histogram and worst elements over many comparisons;
//! - [`buffers`]: two raw buffers compared in constant memory ([`compare_streams`]).

pub mod buffers;
pub mod images;
pub mod pair;
pub mod summary;
pub mod value_line;

pub use buffers::{
    BufferError, CHUNK_BYTES, DRAIN_LIMIT, Size, compare_streams, compare_streams_listing,
};
pub use pair::{ChannelDiff, PairDiff, PairReport, Resolved, diff_pair};
pub use summary::{
    Compared, HISTOGRAM_BUCKETS, Sample, Summary, SummaryReport, Tolerance, WORST_KEPT, bucket,
    bucket_range,
};
pub use value_line::{CHANNEL_NAMES, Endpoint, Layout, ValueLine};

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
