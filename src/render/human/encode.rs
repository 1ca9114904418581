//! The human view of `encode`: the bits, the rounding, each channel's error and notes.

use std::io::{self, Write};

use super::{Human, decimal_or_approx};
use crate::format::encode::Channel;
use crate::format::encoded::Encoded;
use crate::format::{Format, Outcome, Rounding, hex_bits};

fn mode_text(m: Rounding) -> &'static str {
    match m {
        Rounding::NearestEven => "rne: to nearest, ties to even; overflow to infinity",
        Rounding::TowardZero => {
            "rtz (d3d): toward zero; overflow to the largest finite value (§3.2.2)"
        }
        Rounding::TowardPositive => "rtp: toward +infinity",
        Rounding::TowardNegative => "rtn: toward -infinity",
    }
}

impl Human {
    pub(super) fn render_encode(&mut self, out: &mut dyn Write, e: &Encoded) -> io::Result<()> {
        self.separate(out)?;
        let width = e.format.width();
        writeln!(
            out,
            "{} {} = {}",
            e.format.name(),
            e.inputs_text(),
            self.p.value(&hex_bits(e.bits, width))
        )?;
        self.line(
            out,
            "",
            "rounding",
            &format!(
                "{}{}",
                mode_text(e.opts.mode),
                if e.opts.saturate { ", saturating" } else { "" }
            ),
        )?;
        if let Format::Rgb9e5 = e.format {
            self.line(
                out,
                "",
                "rule",
                "shared exponent from the largest channel (IEEE exponent + 1 + bias 15), each mantissa rounded at that scale, exponent bumped when the largest rounds up to 512 (§19.3.2.2)",
            )?;
        }
        let names = ["R", "G", "B"];
        for (i, ch) in e.channels.iter().enumerate() {
            let prefix = if e.channels.len() > 1 {
                format!("{} ", names[i])
            } else {
                String::new()
            };
            let bits_text = match &ch.channel {
                Channel::Float(f, b) => {
                    format!("{} = {}", hex_bits(*b, f.width()), self.split_bits(f, *b))
                }
                Channel::Rgb9e5(ch) => format!(
                    "mantissa {:#05x}, shared exponent {}",
                    ch.mantissa, ch.exponent
                ),
            };
            self.line(out, "", &format!("{prefix}bits"), &bits_text)?;
            self.line(
                out,
                "",
                &format!("{prefix}input"),
                &self.number(&ch.input_value),
            )?;
            self.line(
                out,
                "",
                &format!("{prefix}result"),
                &format!(
                    "{} (shortest {})",
                    self.number(&ch.value),
                    self.p.value(&ch.shortest)
                ),
            )?;
            let o = &ch.outcome;
            let verdict = if o.exact {
                self.p.good("exact")
            } else if o.clamped_negative {
                self.p.warn("clamped: the format holds no negative values")
            } else if o.overflow_to_infinity {
                self.p.warn("inexact: overflowed to infinity")
            } else {
                match &ch.error {
                    Some(err) => self.p.warn(&format!(
                        "inexact: {} {} the input, relative {:.3e}, {:.4} ULP",
                        decimal_or_approx(&err.absolute),
                        if err.result_above { "above" } else { "below" },
                        err.relative,
                        err.ulps
                    )),
                    None => self.p.warn("inexact"),
                }
            };
            self.line(out, "", &format!("{prefix}error"), &verdict)?;
            for n in self.outcome_notes(o, &e.format) {
                self.line(out, "", &format!("{prefix}note"), &n)?;
            }
        }
        for a in &e.alternatives {
            self.line(
                out,
                "",
                "other mode",
                &format!(
                    "{} gives {} = {}",
                    a.mode.as_str(),
                    hex_bits(a.bits, width),
                    a.shortest.join(" ")
                ),
            )?;
        }
        Ok(())
    }

    /// What rounding did to one channel, as notes with their spec sections.
    fn outcome_notes(&self, o: &Outcome, format: &Format) -> Vec<String> {
        let mut v = Vec::new();
        if o.overflow_to_infinity {
            v.push("overflow: beyond the largest finite value, rounded to infinity".into());
        }
        if o.saturated {
            v.push("saturated: beyond the range, gave the largest finite value".into());
        }
        if o.clamped_negative {
            v.push(format!(
                "negative clamped to 0: {} has no sign (§3.1.6, §19.3.2)",
                format.name()
            ));
        }
        if o.nan {
            v.push(match format {
                Format::Rgb9e5 => "NaN becomes 0: RGB9E5 has no NaN (§3.2.2, §19.3.2)".into(),
                _ => "NaN stays NaN (top payload bits kept, quiet bit set) (§3.2.2)".into(),
            });
        }
        if o.subnormal {
            v.push("result is subnormal".into());
        }
        if o.underflow_to_zero {
            v.push("underflow: a non-zero input rounded to zero".into());
        }
        v
    }
}
