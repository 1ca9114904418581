//! Renderers: one type per output style over the core's result structs. A new result
//! field shows up in every style, or is left out of one on purpose.

use std::io::{self, Write};

use crate::convert::Report;
use crate::d3d::BatchSummary;
use crate::d3d::Evaluation;
use crate::format::Format;
use crate::format::decoded::{Decoded, Detail};
use crate::format::encoded::Encoded;
use crate::input::Typed;
use crate::ulp::{PairReport, Sample, SummaryReport};

pub mod bc6h;
mod csv;
mod human;
mod json;
pub mod op_text;
mod plain;
pub mod probe;
pub mod program;
pub mod report;
mod ulp_text;

/// The `"schema"` version every JSON object carries.
pub use json::SCHEMA;

pub use human::Palette;

/// The output style a run uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// The default: labelled blocks that explain every field, coloured on a terminal.
    Human,
    /// `--plain`: just the answer, one line per input, stable for scripts.
    Plain,
    /// `--json`: one JSON object per input, per line, with a `schema` field.
    Json,
    /// `--csv`: a header row, then one row per input.
    Csv,
}

/// Which stream a style writes a summary to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    /// Standard output: the summary is the style's output.
    Stdout,
    /// Standard error: stdout is left to the data or to one line per input.
    Stderr,
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
    /// A decoded BC6H block (`decode --fmt bc6h_uf16|bc6h_sf16`).
    fn bc6h(&mut self, out: &mut dyn Write, b: &crate::format::bc6h::Block) -> io::Result<()>;
    /// A value (or three) rounded into a format.
    fn encode(&mut self, out: &mut dyn Write, e: &Encoded) -> io::Result<()>;
    /// The summary of a bulk conversion, written to the stream [`Renderer::convert_stream`]
    /// names.
    fn convert(&mut self, out: &mut dyn Write, r: &Report) -> io::Result<()>;
    /// Where this style writes a conversion's summary: stderr unless the style's output
    /// is the summary itself (then the converted data needs a file of its own).
    fn convert_stream(&self) -> Stream {
        Stream::Stderr
    }
    /// The ULP distance between two elements (one stdin pair, or the two arguments).
    fn ulp_diff(&mut self, out: &mut dyn Write, d: &PairReport) -> io::Result<()>;
    /// The summary after stdin pairs or a buffer comparison.
    fn ulp_summary(&mut self, out: &mut dyn Write, s: &SummaryReport) -> io::Result<()>;
    /// One element of `ulp-diff --files --list` (over the limit), as the comparison
    /// meets it, before the summary.
    fn ulp_listed(&mut self, out: &mut dyn Write, format: Format, s: &Sample) -> io::Result<()> {
        writeln!(out, "{}", listed_fields(format, s).join(" "))
    }
    /// An evaluated instruction; `batch` asks for the one-line form of stdin runs.
    fn op(
        &mut self,
        out: &mut dyn Write,
        e: &Evaluation,
        typed: &Typed,
        batch: bool,
    ) -> io::Result<()>;
    /// The end of a batch in which results were checked: on `out` (stdout) where the
    /// style shows it there, and as one line on `err` (stderr) in the styles whose stdout
    /// scripts read one line per input.
    /// By default (the script styles), the tally line on `err` alone.
    fn op_summary(
        &mut self,
        out: &mut dyn Write,
        err: &mut dyn Write,
        s: &BatchSummary,
    ) -> io::Result<()> {
        tally_line(out, err, s)
    }
}

/// One scalar of a result, typed so each script style writes it its own way: JSON as a
/// number, string or boolean; `--plain` and `--csv` as text.
#[derive(Clone, Debug, PartialEq)]
pub enum Scalar {
    /// A name, a path or a mode.
    Text(String),
    /// A count.
    Count(u64),
    /// A yes/no setting.
    Flag(bool),
    /// A real number; `--plain` and `--csv` write every digit that round-trips.
    Real(f64),
    /// A duration in seconds; `--plain` and `--csv` round it to milliseconds, JSON keeps it.
    Seconds(f64),
}

impl Scalar {
    /// The scalar as `--plain` and `--csv` write it.
    pub fn text(&self) -> String {
        match self {
            Scalar::Text(s) => s.clone(),
            Scalar::Count(n) => n.to_string(),
            Scalar::Flag(b) => b.to_string(),
            Scalar::Real(x) => x.to_string(),
            Scalar::Seconds(x) => format!("{x:.3}"),
        }
    }

    /// The scalar as JSON writes it.
    pub fn json(&self) -> serde_json::Value {
        match self {
            Scalar::Text(s) => s.as_str().into(),
            Scalar::Count(n) => (*n).into(),
            Scalar::Flag(b) => (*b).into(),
            Scalar::Real(x) | Scalar::Seconds(x) => (*x).into(),
        }
    }
}

/// The summary of a conversion as (key, value) pairs, in order: the `--plain` keys, the
/// `--csv` columns and the JSON members after `schema` and `command`. One list, so the three
/// styles cannot drift apart.
pub fn convert_fields(r: &Report) -> Vec<(&'static str, Scalar)> {
    use Scalar::{Count, Flag, Real, Seconds, Text};
    let c = &r.conversion;
    let s = &r.stats;
    vec![
        // BC6H on either side is named for what the file holds; the conversion itself
        // runs from or to the f16 texels of the blocks.
        (
            "from",
            Text(r.input_bc6h.map_or(c.from.name(), |b| b.name()).to_string()),
        ),
        (
            "to",
            Text(r.output_bc6h.map_or(c.to.name(), |b| b.name()).to_string()),
        ),
        ("channels", Count(c.channels as u64)),
        ("rounding", Text(c.opts.mode.as_str().to_string())),
        ("saturate", Flag(c.opts.saturate)),
        ("input", Text(r.input.clone())),
        ("output", Text(r.output.clone())),
        (
            "input_container",
            Text(r.input_container.name().to_string()),
        ),
        (
            "output_container",
            Text(r.output_container.name().to_string()),
        ),
        ("values", Count(s.values)),
        ("bytes_in", Count(r.bytes_in)),
        ("bytes_out", Count(r.bytes_out)),
        ("inexact", Count(s.inexact)),
        ("saturated", Count(s.saturated)),
        ("overflow_to_infinity", Count(s.overflow_to_infinity)),
        ("nan_in", Count(s.nan_in)),
        ("nan_out", Count(s.nan_out)),
        ("clamped_negative", Count(s.clamped_negative)),
        ("subnormal_out", Count(s.subnormal_out)),
        ("flushed_to_zero", Count(s.flushed_to_zero)),
        ("max_ulp_error", Real(s.max_ulp_error)),
        ("seconds", Seconds(r.seconds)),
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
/// The one-line tally of a checked batch on `err`, after what `out` holds so far (the
/// script styles' ending).
pub(crate) fn tally_line(
    out: &mut dyn Write,
    err: &mut dyn Write,
    s: &BatchSummary,
) -> io::Result<()> {
    out.flush()?;
    writeln!(err, "d3dfloat: {}", op_text::batch_summary_text(s))
}

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
/// A listed element's fields, as the text styles write them: index, channel (`-` for
/// none), the two patterns and the signed distance (`nan` when a NaN is involved).
pub(crate) fn listed_fields(format: Format, s: &Sample) -> Vec<String> {
    let mut fields = vec![
        s.index.to_string(),
        s.channel.map_or("-".to_string(), sample_channel_name),
        sample_bits(format, s, s.a),
        sample_bits(format, s, s.b),
        s.distance.map_or("nan".to_string(), |d| d.to_string()),
    ];
    if let Some((x, y)) = s.at {
        fields.push(x.to_string());
        fields.push(y.to_string());
    }
    fields
}

/// A compared element's channel: `r`, `g`, `b`, `a`, then the channel's number for
/// pixels of more than four elements (`--channels`).
pub(crate) fn sample_channel_name(c: usize) -> String {
    const RGBA: [&str; 4] = ["r", "g", "b", "a"];
    RGBA.get(c).map_or_else(|| c.to_string(), |n| n.to_string())
}

pub(crate) fn sample_bits(format: Format, x: &crate::ulp::Sample, bits: u64) -> String {
    use crate::format::hex_bits;
    match (format, x.channel) {
        (Format::R11G11B10, Some(2)) => hex_bits(bits, 10),
        (Format::R11G11B10, Some(_)) => hex_bits(bits, 11),
        (Format::Rgb9e5, Some(_)) => hex_bits(bits, 14),
        _ => hex_bits(bits, format.width()),
    }
}
