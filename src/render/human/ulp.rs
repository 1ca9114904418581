//! The human view of `ulp-diff`: a pair's channels and distances, or a summary with its
//! histogram.

use std::io::{self, Write};

use super::Human;
use crate::format::{Format, hex_bits};
use crate::render::ulp_text;
use crate::ulp::{ChannelDiff, Compared, Endpoint, PairReport, Resolved, SummaryReport, ValueLine};

impl Human {
    pub(super) fn render_ulp_diff(
        &mut self,
        out: &mut dyn Write,
        d: &PairReport,
    ) -> io::Result<()> {
        let p = d.pair;
        let exceeds = d.limit.map(|l| p.exceeds(l));
        if d.batch {
            // One line per pair; the summary after them is set off by a blank line.
            self.started = true;
            let ds: Vec<String> = p
                .channels
                .iter()
                .map(|c| {
                    let t = crate::render::distance_text(c.distance, true);
                    match c.channel {
                        Some(name) => format!("{} {t}", name.to_uppercase()),
                        None => t,
                    }
                })
                .collect();
            let flag = match exceeds {
                Some(true) => format!("  {}", self.p.bad("over --max")),
                _ => String::new(),
            };
            return writeln!(
                out,
                "{} {}  {}{flag}",
                d.inputs[0],
                d.inputs[1],
                self.p.value(&ds.join(", "))
            );
        }
        self.separate(out)?;
        let width = p.format.width();
        let headline = match p.distance() {
            Some(dist) => format!("{} ULP", crate::render::distance_text(Some(dist), true)),
            None => "NaN, not measured".to_string(),
        };
        writeln!(
            out,
            "{} ulp-diff {} -> {}: {}",
            p.format.name(),
            hex_bits(p.a.bits, width),
            hex_bits(p.b.bits, width),
            self.p.value(&headline)
        )?;
        for (label, r, input) in [("A", &p.a, d.inputs[0]), ("B", &p.b, d.inputs[1])] {
            if let Some(note) = self.operand_note(r, input) {
                self.line(out, "", &format!("{label} input"), &note)?;
            }
        }
        for c in &p.channels {
            self.channel_diff(out, c)?;
        }
        if p.channels.len() > 1 {
            self.line(
                out,
                "",
                "distance",
                &format!("{headline} (the channel farthest apart)"),
            )?;
        }
        match (d.limit, exceeds) {
            (Some(l), Some(true)) => self.line(
                out,
                "",
                "verdict",
                &self.p.bad(&if p.has_nan() {
                    format!("fails --max {l}: a NaN is involved")
                } else {
                    format!("exceeds --max {l}")
                }),
            ),
            (Some(l), _) => self.line(
                out,
                "",
                "verdict",
                &self.p.good(&format!("within --max {l}")),
            ),
            _ => Ok(()),
        }
    }

    pub(super) fn render_ulp_summary(
        &mut self,
        out: &mut dyn Write,
        s: &SummaryReport,
    ) -> io::Result<()> {
        self.separate(out)?;
        let m = s.summary;
        let what = match &s.compared {
            Compared::Pairs => format!("{} comparisons from stdin", m.compared),
            Compared::Files {
                expected,
                actual,
                elements,
            } => format!(
                "{expected} (expected) vs {actual} (actual): {elements} elements, {} comparisons",
                m.compared
            ),
        };
        writeln!(out, "{} summary, {}", s.format.name(), self.p.value(&what))?;
        if s.format == Format::Float(crate::format::F32) {
            self.line(
                out,
                "",
                "subnormals",
                if s.opts.flush_subnormals {
                    "counted as zero, as D3D arithmetic reads them (§3.1.3.2)"
                } else {
                    "counted as values (--no-flush)"
                },
            )?;
        }
        self.line(
            out,
            "",
            "measured",
            &format!(
                "{}; NaN {} ({} against a number, {} both NaN)",
                m.measured(),
                m.nans(),
                m.nan_mismatches,
                m.nan_both
            ),
        )?;
        self.line(out, "", "max |d|", &m.max_abs.to_string())?;
        self.line(
            out,
            "",
            "mean |d|",
            &m.mean_abs().map_or("-".to_string(), |x| {
                if x != 0.0 && x < 1e-3 {
                    format!("{x:.3e}")
                } else {
                    format!("{x:.6}")
                }
            }),
        )?;
        if m.measured() > 0 {
            self.line(out, "", "histogram", "|distance|  count")?;
            let rows = ulp_text::histogram_rows(m);
            let rows: Vec<_> = rows.into_iter().filter(|(_, n)| *n > 0).collect();
            let widest = rows.iter().map(|(_, n)| *n).max().unwrap_or(1);
            let label_width = rows.iter().map(|(l, _)| l.len()).max().unwrap_or(1).max(10);
            for (label, n) in rows {
                let bar = "#".repeat(((n as f64 / widest as f64) * 40.0).ceil() as usize);
                writeln!(
                    out,
                    "  {:>w$}  {n:>12}  {}",
                    label,
                    self.p.label(&bar),
                    w = label_width + 2
                )?;
            }
        }
        let index_word = match s.compared {
            Compared::Pairs => "line",
            Compared::Files { .. } => "element",
        };
        let sample_text = |x: &crate::ulp::Sample| {
            let ch = x
                .channel
                .map(|c| format!(" {}", crate::render::sample_channel_name(c).to_uppercase()))
                .unwrap_or_default();
            // An image's element by pixel, as image tools name it.
            let place = match x.at {
                Some((px, py)) => format!("pixel ({px}, {py})"),
                None => format!("{index_word} {}", x.index),
            };
            format!(
                "{place}{ch}: {} vs {}, {}",
                crate::render::sample_bits(s.format, x, x.a),
                crate::render::sample_bits(s.format, x, x.b),
                crate::render::distance_text(x.distance, true)
            )
        };
        for x in &m.worst {
            self.line(out, "", "worst", &sample_text(x))?;
        }
        for x in &m.first_nans {
            self.line(out, "", "NaN at", &sample_text(x))?;
        }
        if let Some(t) = m.tolerance {
            let within = m.within_tolerance().unwrap_or(0);
            let text = format!(
                "{within} of {} within {} + {} x |expected|",
                m.compared, t.abs, t.rel
            );
            let text = if m.over_tolerance > 0 {
                self.p.bad(&format!("{text}: {} not", m.over_tolerance))
            } else {
                self.p.good(&text)
            };
            self.line(out, "", "tolerance", &text)?;
        }
        if let Some(l) = m.limit {
            let text = if m.failed() {
                self.p.bad(&format!(
                    "fails --max {l}: {} over, {} NaN",
                    m.over_limit,
                    m.nans()
                ))
            } else {
                self.p.good(&format!("all within --max {l}"))
            };
            self.line(out, "", "verdict", &text)?;
        }
        Ok(())
    }

    /// What happened to an operand given as a value.
    fn operand_note(&self, r: &Resolved, input: &str) -> Option<String> {
        if !r.from_value {
            return None;
        }
        Some(if r.exact {
            format!("{input} (a value, represented exactly)")
        } else {
            self.p.warn(&format!(
                "{input} (a value, rounded to nearest even: inexact; the distance is measured from the rounded pattern)"
            ))
        })
    }

    /// `0x3c00 = 1 (normal)`, with the flush note where it applies.
    fn endpoint_text(&self, c: &ChannelDiff, e: &Endpoint) -> String {
        let exp = match c.line {
            ValueLine::Rgb9e5 => format!(" at shared exponent {}", e.rgb9e5_exponent()),
            ValueLine::Float { .. } => String::new(),
        };
        let mut t = format!(
            "{}{exp} = {} ({})",
            ulp_text::bits_text(c, e),
            self.p.value(&ulp_text::value_text(c, e)),
            ulp_text::class_text(c, e)
        );
        if e.counted_as_zero {
            t.push_str(&self.p.warn(&format!(
                ", counted as {}0: D3D arithmetic flushes f32 subnormals (§3.1.3.2; --no-flush counts them)",
                if e.value.is_negative() { "-" } else { "+" }
            )));
        }
        t
    }

    fn channel_diff(&self, out: &mut dyn Write, c: &ChannelDiff) -> io::Result<()> {
        let prefix = c
            .channel
            .map(|n| format!("{} ", n.to_uppercase()))
            .unwrap_or_default();
        let label = |l: &str| format!("{prefix}{l}");
        self.line(out, "", &label("A"), &self.endpoint_text(c, &c.a))?;
        self.line(out, "", &label("B"), &self.endpoint_text(c, &c.b))?;
        let dist = match c.distance {
            Some(0) => "0: the same point on the value line".to_string(),
            Some(d) => {
                let n = d.unsigned_abs();
                let plural = if n == 1 { "" } else { "s" };
                let side = if d > 0 { "above" } else { "below" };
                let steps = match c.line {
                    ValueLine::Rgb9e5 => {
                        let finer = c.a.rgb9e5_exponent().min(c.b.rgb9e5_exponent()) as i64 - 24;
                        format!("{n} step{plural} of 2^{finer}, the finer word's grid,")
                    }
                    ValueLine::Float { .. } => format!("{n} representable value{plural}"),
                };
                format!(
                    "{} (B is {steps} {side} A)",
                    crate::render::distance_text(Some(d), true)
                )
            }
            None => {
                let which = match (c.a.value.is_nan(), c.b.value.is_nan()) {
                    (true, true) => "A and B are NaN",
                    (true, false) => "A is NaN",
                    _ => "B is NaN",
                };
                format!("not measured: {which}, and NaN is not on the value line")
            }
        };
        self.line(out, "", &label("distance"), &dist)?;
        let ulp = |e: &Endpoint| {
            e.ulp
                .as_ref()
                .map_or("none (infinite or NaN)".to_string(), |u| {
                    format!("2^{} = {}", u.floor_log2(), crate::render::error_text(u))
                })
        };
        let ulp_text = if c.a.ulp == c.b.ulp {
            format!("{} at both", ulp(&c.a))
        } else {
            format!("{} at A, {} at B", ulp(&c.a), ulp(&c.b))
        };
        self.line(out, "", &label("ulp"), &ulp_text)?;
        if c.distance.is_some() {
            self.line(
                out,
                "",
                &label("abs error"),
                &c.abs_error
                    .as_ref()
                    .map_or("infinite".to_string(), crate::render::error_text),
            )?;
            self.line(
                out,
                "",
                &label("rel error"),
                &c.rel_error
                    .as_ref()
                    .map_or("infinite (A is zero or infinite)".to_string(), |r| {
                        if r.is_zero() {
                            "0".to_string()
                        } else {
                            format!("{:.6e}", r.to_f64_lossy())
                        }
                    }),
            )?;
        }
        Ok(())
    }
}
