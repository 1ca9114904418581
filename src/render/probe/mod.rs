//! Renderers of `probe`: the device list and the conformance report, one file per style,
//! over the probe core's result structs.

use std::io::{self, Write};

use super::{Palette, Style};
use crate::judge::{DeviceInfo, Findings};

mod csv;
mod human;
mod json;
mod plain;

/// Writes probe results in one style.
pub trait ProbeRenderer {
    /// `--list-devices`.
    fn devices(&mut self, out: &mut dyn Write, devices: &[DeviceInfo]) -> io::Result<()>;
    /// The device, one entry per instruction, and the totals.
    fn findings(&mut self, out: &mut dyn Write, findings: &Findings) -> io::Result<()>;
}

/// The renderer for a style; `color` matters to the human style only.
pub fn probe_renderer(style: Style, color: bool) -> Box<dyn ProbeRenderer> {
    match style {
        Style::Human => Box::new(human::Human::new(Palette::new(color))),
        Style::Plain => Box::new(plain::Plain),
        Style::Json => Box::new(json::Json),
        Style::Csv => Box::new(csv::Csv),
    }
}
