//! `--plain`: just the answer, one line per input (the script contract in docs/output-contract.md).

use super::op_text::{push_allowed, push_bits};
use crate::d3d::{Domain, Evaluation};
use crate::input::Typed;
use crate::path_text;
use std::io::{self, Write};
use std::path::Path;

use super::Renderer;
use crate::convert::Report;
use crate::format::HexBits;
use crate::format::decoded::{Decoded, Detail};
use crate::format::encoded::Encoded;
use crate::ulp::{Compared, PairReport, SummaryReport};

#[derive(Default)]
pub struct Plain {
    /// One line's text, reused across lines: stdin batches are the hot path.
    line: String,
}

impl Renderer for Plain {
    /// The shortest decimal and the bits are all `--plain` prints.
    fn detail(&self) -> Detail {
        Detail::Answer
    }

    fn bc6h(&mut self, out: &mut dyn Write, b: &crate::format::bc6h::Block) -> io::Result<()> {
        super::bc6h::plain(out, b)
    }

    fn decode(&mut self, out: &mut dyn Write, d: &Decoded) -> io::Result<()> {
        out.write_all(d.shortest.as_bytes())?;
        out.write_all(b"\n")
    }

    fn convert(&mut self, out: &mut dyn Write, r: &Report) -> io::Result<()> {
        let pairs: Vec<String> = super::convert_fields(r)
            .into_iter()
            .map(|(k, v)| match k {
                // A name with a space or a newline would break the `key=value` line.
                "input" | "output" => {
                    format!("{k}={}", path_text::display_path(Path::new(&v.text())))
                }
                _ => format!("{k}={}", v.text()),
            })
            .collect();
        writeln!(out, "{}", pairs.join(" "))
    }

    fn encode(&mut self, out: &mut dyn Write, e: &Encoded) -> io::Result<()> {
        let (bits, width) = (e.bits, e.format.width());
        let mut buf = [0u8; 19];
        let mut hex = [0u8; 18];
        let digits = HexBits { bits, width }.to_bytes(&mut hex);
        buf[..digits.len()].copy_from_slice(digits);
        buf[digits.len()] = b'\n';
        out.write_all(&buf[..=digits.len()])
    }

    /// The signed distance, or `nan`; packed words: one per channel, space separated.
    fn ulp_diff(&mut self, out: &mut dyn Write, d: &PairReport) -> io::Result<()> {
        let ds: Vec<String> = d
            .pair
            .channels
            .iter()
            .map(|c| super::distance_text(c.distance, false))
            .collect();
        writeln!(out, "{}", ds.join(" "))
    }

    /// Stdin pairs: nothing, so the output stays one line per input. Buffers: one line of
    /// `key=value` fields.
    fn ulp_summary(&mut self, out: &mut dyn Write, s: &SummaryReport) -> io::Result<()> {
        if s.compared == Compared::Pairs {
            return Ok(());
        }
        let m = s.summary;
        write!(
            out,
            "count={} max={} mean={} nan={} over_max={}",
            m.compared,
            m.max_abs,
            m.mean_abs().map_or("nan".to_string(), |x| format!("{x}")),
            m.nans(),
            m.over_limit
        )?;
        if m.tolerance.is_some() {
            write!(out, " over_tolerance={}", m.over_tolerance)?;
        }
        writeln!(out)
    }

    /// The correctly rounded bits and the allowed set (`true`/`false` for comparisons;
    /// sincos: sine then cosine); with `--check`, the verdict.
    fn op(
        &mut self,
        out: &mut dyn Write,
        e: &Evaluation,
        _typed: &Typed,
        _batch: bool,
    ) -> io::Result<()> {
        self.line.clear();
        if let Some(c) = &e.check {
            self.line
                .push_str(if c.conforms { "conforms" } else { "violates" });
        } else {
            for (i, o) in e.outputs.iter().enumerate() {
                if i > 0 {
                    self.line.push(' ');
                }
                push_bits(&mut self.line, &o.domain, o.preferred);
                if o.domain != Domain::Bool {
                    self.line.push(' ');
                    push_allowed(&mut self.line, &o.domain, &o.allowed);
                }
            }
        }
        self.line.push('\n');
        out.write_all(self.line.as_bytes())
    }
}
