//! `--plain`: just the answer, one line per input (the script contract in the README).

use std::io::{self, Write};

use super::Renderer;
use crate::format::encode::{Encoding, channels};
use crate::format::{Format, hex_bits};

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
}
