//! Renderers: one type per output style over the core's result structs. A new result
//! field shows up in every style, or is left out of one on purpose.

use std::io::{self, Write};

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
