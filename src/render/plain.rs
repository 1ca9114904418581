//! `--plain`: just the answer, one line per input (the script contract in the README).

use std::io::{self, Write};

use super::Renderer;
use crate::format::encode::{Encoding, channels};
use crate::format::{Format, hex_bits};
use crate::ulp::{Compared, PairReport, SummaryReport};

pub struct Plain;

impl Renderer for Plain {
    fn decode(&mut self, out: &mut dyn Write, format: &Format, bits: u64) -> io::Result<()> {
        let values: Vec<String> = channels(format, bits)
            .iter()
            .map(|c| c.shortest())
            .collect();
        writeln!(out, "{}", values.join(" "))
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
