//! `--csv`: a header, then one row per input. Columns are a contract documented in the
//! README; packed formats have their own columns (one run has one format).

use std::io::{self, Write};

use super::Renderer;
use crate::format::encode::{Channel, Encoding, channels};
use crate::format::{Format, hex_bits, text};

#[derive(Default)]
pub struct Csv {
    header_written: bool,
}

/// Quotes a field when it holds a comma, a quote or a line break.
fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn row(out: &mut dyn Write, cells: &[String]) -> io::Result<()> {
    let line: Vec<String> = cells.iter().map(|c| field(c)).collect();
    writeln!(out, "{}", line.join(","))
}

fn channel_bits(c: &Channel) -> String {
    match c {
        Channel::Float(f, b) => hex_bits(*b, f.width()),
        Channel::Rgb9e5(ch) => format!("0x{:03x}", ch.mantissa),
    }
}

impl Csv {
    fn header(&mut self, out: &mut dyn Write, cols: &[&str]) -> io::Result<()> {
        if !self.header_written {
            self.header_written = true;
            writeln!(out, "{}", cols.join(","))?;
        }
        Ok(())
    }
}

impl Renderer for Csv {
    fn decode(&mut self, out: &mut dyn Write, format: &Format, bits: u64) -> io::Result<()> {
        match format {
            Format::Float(f) => {
                self.header(
                    out,
                    &[
                        "format",
                        "bits",
                        "sign",
                        "exponent",
                        "fraction",
                        "class",
                        "value",
                        "shortest",
                        "hex_float",
                    ],
                )?;
                let fl = f.fields(bits);
                row(
                    out,
                    &[
                        f.name.to_string(),
                        hex_bits(bits, f.width()),
                        (fl.sign as u8).to_string(),
                        fl.exponent.to_string(),
                        fl.fraction.to_string(),
                        f.class(bits).as_str().to_string(),
                        text::exact_decimal(f, bits),
                        text::shortest_decimal(f, bits),
                        text::hex_float(f, bits),
                    ],
                )
            }
            _ => {
                self.header(
                    out,
                    &[
                        "format",
                        "bits",
                        "r_bits",
                        "r",
                        "g_bits",
                        "g",
                        "b_bits",
                        "b",
                        "shared_exponent",
                    ],
                )?;
                let chans = channels(format, bits);
                let mut cells = vec![format.name().to_string(), hex_bits(bits, 32)];
                for c in &chans {
                    cells.push(channel_bits(c));
                    cells.push(c.shortest());
                }
                cells.push(match chans[0] {
                    Channel::Rgb9e5(ch) => ch.exponent.to_string(),
                    Channel::Float(..) => String::new(),
                });
                row(out, &cells)
            }
        }
    }

    fn encode(&mut self, out: &mut dyn Write, e: &Encoding) -> io::Result<()> {
        self.header(
            out,
            &[
                "format",
                "input",
                "rounding",
                "bits",
                "exact",
                "value",
                "abs_error",
                "ulp_error",
                "flags",
            ],
        )?;
        let chans = e.channels();
        let values: Vec<String> = chans.iter().map(|c| c.shortest()).collect();
        let errors: Vec<String> = (0..chans.len())
            .map(|i| {
                e.error(i)
                    .and_then(|r| r.absolute.decimal_expansion())
                    .unwrap_or_default()
            })
            .collect();
        let ulps: Vec<String> = (0..chans.len())
            .map(|i| {
                e.error(i)
                    .map(|r| r.ulps)
                    .filter(|u| u.is_finite())
                    .map(|u| u.to_string())
                    .unwrap_or_default()
            })
            .collect();
        let flags: Vec<&str> = e
            .outcomes
            .iter()
            .flat_map(|o| {
                [
                    (o.overflow_to_infinity, "overflow"),
                    (o.saturated, "saturated"),
                    (o.clamped_negative, "clamped"),
                    (o.nan, "nan"),
                    (o.subnormal, "subnormal"),
                    (o.underflow_to_zero, "underflow"),
                ]
            })
            .filter_map(|(on, name)| on.then_some(name))
            .collect();
        row(
            out,
            &[
                e.format.name().to_string(),
                e.inputs.join(" "),
                e.opts.mode.as_str().to_string(),
                hex_bits(e.bits, e.format.width()),
                e.exact().to_string(),
                values.join(" "),
                errors.join(" "),
                ulps.join(" "),
                flags.join(" "),
            ],
        )
    }
}
