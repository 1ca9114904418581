//! The human view: every field explained, coloured on a terminal. One file per command
//! (as hyperfine has one exporter per file), over the palette and line helpers here.

use std::io::{self, Write};

use owo_colors::{OwoColorize, Style as Paint};

use super::Renderer;
use crate::convert::Report;
use crate::d3d::BatchSummary;
use crate::d3d::Evaluation;
use crate::exact::{Number, Ratio};
use crate::format::FloatFormat;
use crate::format::decoded::Decoded;
use crate::format::encoded::Encoded;
use crate::input::Typed;
use crate::ulp::{PairReport, SummaryReport};

mod bc6h;
mod convert;
mod decode;
mod encode;
mod op;
mod ulp;

/// The colours of one run: all off unless the run decided to colour.
#[derive(Clone, Copy, Debug)]
pub struct Palette {
    on: bool,
}

impl Palette {
    /// A palette that colours when `on` is true: the run's `--color` choice, already
    /// resolved against the terminal and `NO_COLOR`.
    pub fn new(on: bool) -> Palette {
        Palette { on }
    }

    fn paint(&self, s: &str, style: Paint) -> String {
        if self.on {
            s.style(style).to_string()
        } else {
            s.to_string()
        }
    }

    /// A sign bit, or the `sign` label of the bit-field legend: bold red.
    pub fn sign(&self, s: &str) -> String {
        self.paint(s, Paint::new().red().bold())
    }
    /// Exponent bits, or their legend label: bold green.
    pub fn exponent(&self, s: &str) -> String {
        self.paint(s, Paint::new().green().bold())
    }
    /// Fraction (stored mantissa) bits, or their legend label: bold blue.
    pub fn fraction(&self, s: &str) -> String {
        self.paint(s, Paint::new().blue().bold())
    }
    /// A line's label and other secondary text, such as histogram bars: dimmed.
    pub fn label(&self, s: &str) -> String {
        self.paint(s, Paint::new().dimmed())
    }
    /// The headline of a result, such as a pattern or its value: bold.
    pub fn value(&self, s: &str) -> String {
        self.paint(s, Paint::new().bold())
    }
    /// A caution that is no failure, such as an inexact or clamped encoding: yellow.
    pub fn warn(&self, s: &str) -> String {
        self.paint(s, Paint::new().yellow())
    }
    /// A passing verdict (exact, within `--max`, every result conforms): green.
    pub fn good(&self, s: &str) -> String {
        self.paint(s, Paint::new().green())
    }
    /// A failing verdict (over `--max`, a NaN, a violation): bold red.
    pub fn bad(&self, s: &str) -> String {
        self.paint(s, Paint::new().red().bold())
    }
}

/// The human renderer: blocks of labelled lines, separated by blank lines.
pub struct Human {
    p: Palette,
    /// Whether a block was written already: blocks are separated by a blank line.
    started: bool,
}

impl Human {
    pub fn new(p: Palette) -> Human {
        Human { p, started: false }
    }

    fn separate(&mut self, out: &mut dyn Write) -> io::Result<()> {
        if std::mem::replace(&mut self.started, true) {
            writeln!(out)?;
        }
        Ok(())
    }

    fn line(&self, out: &mut dyn Write, indent: &str, label: &str, body: &str) -> io::Result<()> {
        writeln!(
            out,
            "{indent}  {} {body}",
            self.p.label(&format!("{label:<11}"))
        )
    }

    /// The bits split as `s eeeee ffffffffff`, coloured by field.
    fn split_bits(&self, f: &FloatFormat, bits: u64) -> String {
        let fl = f.fields(bits);
        let exp = format!("{:0w$b}", fl.exponent, w = f.exp_bits as usize);
        let frac = format!("{:0w$b}", fl.fraction, w = f.frac_bits as usize);
        let mut s = String::new();
        if f.signed {
            s.push_str(&self.p.sign(if fl.sign { "1" } else { "0" }));
            s.push(' ');
        }
        s.push_str(&self.p.exponent(&exp));
        s.push(' ');
        s.push_str(&self.p.fraction(&frac));
        s
    }

    fn number(&self, n: &Number) -> String {
        match n {
            Number::Nan { .. } => "nan".into(),
            Number::Infinity { neg } => if *neg { "-inf" } else { "inf" }.into(),
            Number::Finite { neg, mag } => {
                let d = decimal_or_approx(mag);
                if *neg { format!("-{d}") } else { d }
            }
        }
    }
}

/// Every digit when that is short enough to read, else `~` and a 17-digit approximation.
fn decimal_or_approx(r: &Ratio) -> String {
    match r.decimal_expansion() {
        Some(d) if d.len() <= 80 => d,
        _ => format!("~{:e}", r.to_f64_lossy()),
    }
}

impl Renderer for Human {
    fn bc6h(&mut self, out: &mut dyn Write, b: &crate::format::bc6h::Block) -> io::Result<()> {
        self.separate(out)?;
        bc6h::human(out, &self.p, b)
    }

    fn decode(&mut self, out: &mut dyn Write, d: &Decoded) -> io::Result<()> {
        self.render_decode(out, d)
    }

    fn encode(&mut self, out: &mut dyn Write, e: &Encoded) -> io::Result<()> {
        self.render_encode(out, e)
    }

    fn convert(&mut self, out: &mut dyn Write, r: &Report) -> io::Result<()> {
        self.render_convert(out, r)
    }

    fn ulp_diff(&mut self, out: &mut dyn Write, d: &PairReport) -> io::Result<()> {
        self.render_ulp_diff(out, d)
    }

    fn ulp_summary(&mut self, out: &mut dyn Write, s: &SummaryReport) -> io::Result<()> {
        self.render_ulp_summary(out, s)
    }

    fn op(
        &mut self,
        out: &mut dyn Write,
        e: &Evaluation,
        typed: &Typed,
        batch: bool,
    ) -> io::Result<()> {
        self.render_op(out, e, typed, batch)
    }

    fn op_summary(
        &mut self,
        out: &mut dyn Write,
        _err: &mut dyn Write,
        s: &BatchSummary,
    ) -> io::Result<()> {
        self.render_op_summary(out, s)
    }
}
