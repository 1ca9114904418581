//! `--plain`: just the answer, one line per input (the script contract in the README).

use std::io::{self, Write};

use super::Renderer;
use crate::format::encode::{Encoding, channels};
use crate::format::{Format, hex_bits, text};
use crate::ulp::{Compared, PairReport, SummaryReport};

#[derive(Default)]
pub struct Plain {
    /// One line's text, reused across lines: stdin batches are the hot path.
    line: String,
}

impl Renderer for Plain {
    fn decode(&mut self, out: &mut dyn Write, format: &Format, bits: u64) -> io::Result<()> {
        self.line.clear();
        if let Format::Float(f) = format {
            text::write_shortest(&mut self.line, f, bits);
        } else {
            let values: Vec<String> = channels(format, bits)
                .iter()
                .map(|c| c.shortest())
                .collect();
            self.line.push_str(&values.join(" "));
        }
        self.line.push('\n');
        out.write_all(self.line.as_bytes())
    }

    fn encode(&mut self, out: &mut dyn Write, e: &Encoding) -> io::Result<()> {
        writeln!(out, "{}", hex_bits(e.bits, e.format.width()))
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
        writeln!(
            out,
            "count={} max={} mean={} nan={} over_max={}",
            m.compared,
            m.max_abs,
            m.mean_abs().map_or("nan".to_string(), |x| format!("{x}")),
            m.nans(),
            m.over_limit
        )
    }
}
