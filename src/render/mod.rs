//! Renderers: one type per output style over the core's result structs. A new result
//! field shows up in every style, or is left out of one on purpose.

use std::io::{self, Write};

use crate::convert::Report;
use crate::format::Format;
use crate::format::encode::Encoding;

mod csv;
mod human;
mod json;
mod plain;

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
    /// A decoded pattern of `format` (a float pattern or a packed word).
    fn decode(&mut self, out: &mut dyn Write, format: &Format, bits: u64) -> io::Result<()>;
    /// A value (or three) rounded into a format.
    fn encode(&mut self, out: &mut dyn Write, e: &Encoding) -> io::Result<()>;
    /// The summary of a bulk conversion.
    fn convert(&mut self, out: &mut dyn Write, r: &Report) -> io::Result<()>;
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
        Style::Plain => Box::new(plain::Plain),
        Style::Json => Box::new(json::Json),
        Style::Csv => Box::new(csv::Csv::default()),
    }
}
