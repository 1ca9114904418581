//! Renderers: one type per output style over the core's result structs. A new result
//! field shows up in every style, or is left out of one on purpose.

use std::io::{self, Write};

use crate::convert::Report;
use crate::d3d::Evaluation;
use crate::d3d::line::BatchSummary;
use crate::format::Format;
use crate::format::decoded::{Decoded, Detail};
use crate::format::encoded::Encoded;
use crate::ulp::{PairReport, SummaryReport};

mod csv;
mod human;
mod json;
mod op_text;
mod plain;
pub mod probe;
mod ulp_text;

pub use human::Palette;

/// The output style a run uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    Human,
    Plain,
    Json,
    Csv,
}

/// Writes results in one style.
pub trait Renderer {
    /// How much of a decode or encode result this style shows: the command works out
    /// that much and no more.
    fn detail(&self) -> Detail {
        Detail::Full
    }
    /// A decoded pattern (a float pattern or a packed word).
    fn decode(&mut self, out: &mut dyn Write, d: &Decoded) -> io::Result<()>;
    /// A value (or three) rounded into a format.
    fn encode(&mut self, out: &mut dyn Write, e: &Encoded) -> io::Result<()>;
    /// The summary of a bulk conversion.
    fn convert(&mut self, out: &mut dyn Write, r: &Report) -> io::Result<()>;
    /// The ULP distance between two elements (one stdin pair, or the two arguments).
    fn ulp_diff(&mut self, out: &mut dyn Write, d: &PairReport) -> io::Result<()>;
    /// The summary after stdin pairs or a buffer comparison.
    fn ulp_summary(&mut self, out: &mut dyn Write, s: &SummaryReport) -> io::Result<()>;
    /// An evaluated instruction; `batch` asks for the one-line form of stdin runs.
    fn op(&mut self, out: &mut dyn Write, e: &Evaluation, batch: bool) -> io::Result<()>;
    /// The end of a batch in which results were checked.
    fn op_summary(&mut self, out: &mut dyn Write, s: &BatchSummary) -> io::Result<()>;
}

/// The summary of a conversion as (key, value) pairs: the `--plain` keys and the `--csv`
/// columns, in order.
pub fn convert_fields(r: &Report) -> Vec<(&'static str, String)> {
    let c = &r.conversion;
    let s = &r.stats;
    vec![
        ("from", c.from.name().to_string()),
        ("to", c.to.name().to_string()),
        ("channels", c.channels.to_string()),
        ("rounding", c.opts.mode.as_str().to_string()),
        ("saturate", c.opts.saturate.to_string()),
        ("input", r.input.clone()),
        ("output", r.output.clone()),
        ("input_container", r.input_container.name().to_string()),
        ("output_container", r.output_container.name().to_string()),
        ("values", s.values.to_string()),
        ("bytes_in", r.bytes_in.to_string()),
        ("bytes_out", r.bytes_out.to_string()),
        ("inexact", s.inexact.to_string()),
        ("saturated", s.saturated.to_string()),
        ("overflow_to_infinity", s.overflow_to_infinity.to_string()),
        ("nan_in", s.nan_in.to_string()),
        ("nan_out", s.nan_out.to_string()),
        ("clamped_negative", s.clamped_negative.to_string()),
        ("subnormal_out", s.subnormal_out.to_string()),
        ("flushed_to_zero", s.flushed_to_zero.to_string()),
        ("max_ulp_error", s.max_ulp_error.to_string()),
        ("seconds", format!("{:.3}", r.seconds)),
    ]
}

/// The renderer for a style; `color` matters to the human style only.
pub fn renderer(style: Style, color: bool) -> Box<dyn Renderer> {
    match style {
        Style::Human => Box::new(human::Human::new(Palette::new(color))),
        Style::Plain => Box::new(plain::Plain::default()),
        Style::Json => Box::new(json::Json),
        Style::Csv => Box::new(csv::Csv::default()),
    }
}

/// A distance as text: `nan` when not measured, signed (`+3`) when asked.
pub(crate) fn distance_text(d: Option<i128>, plus: bool) -> String {
    match d {
        None => "nan".to_string(),
        Some(d) if plus && d > 0 => format!("+{d}"),
        Some(d) => d.to_string(),
    }
}

/// An exact error as text: every digit when that is short, else a 6-digit approximation.
pub(crate) fn error_text(r: &crate::exact::Ratio) -> String {
    match r.decimal_expansion() {
        Some(d) if d.len() <= 24 => d,
        _ => format!("{:.6e}", r.to_f64_lossy()),
    }
}

/// A summary sample's pattern in script form, at the channel's own width (an RGB9E5
/// channel is the 14-bit `exponent << 9 | mantissa`).
pub(crate) fn sample_bits(format: Format, x: &crate::ulp::Sample, bits: u64) -> String {
    use crate::format::hex_bits;
    match (format, x.channel) {
        (Format::R11G11B10, Some(2)) => hex_bits(bits, 10),
        (Format::R11G11B10, Some(_)) => hex_bits(bits, 11),
        (Format::Rgb9e5, Some(_)) => hex_bits(bits, 14),
        _ => hex_bits(bits, format.width()),
    }
}
