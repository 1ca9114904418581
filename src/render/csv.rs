//! `--csv`: a header, then one row per input. Columns are a contract documented in the
//! README; packed formats have their own columns (one run has one format).

use super::op_text::{allowed_text, bits_text, exact_script};
use super::ulp_text;
use crate::d3d::Evaluation;
use crate::d3d::line::BatchSummary;
use std::io::{self, Write};

use super::Renderer;
use crate::convert::Report;
use crate::format::encode::{Channel, Encoding, channels};
use crate::format::packed::RGB9E5_MANTISSA_BITS;
use crate::format::{Format, hex_bits, text};
use crate::ulp::{Compared, PairReport, SummaryReport};

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
        Channel::Rgb9e5(ch) => hex_bits(ch.mantissa as u64, RGB9E5_MANTISSA_BITS),
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

    fn convert(&mut self, out: &mut dyn Write, r: &Report) -> io::Result<()> {
        let fields = super::convert_fields(r);
        let cols: Vec<&str> = fields.iter().map(|(k, _)| *k).collect();
        self.header(out, &cols)?;
        let cells: Vec<String> = fields.into_iter().map(|(_, v)| v).collect();
        row(out, &cells)
    }

    /// Packed words put one entry per channel in the per-value cells, space separated, with
    /// `-` where a channel has no finite error; flags are prefixed with their channel (`b:`).
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
                "shortest",
                "abs_error",
                "ulp_error",
                "flags",
            ],
        )?;
        let chans = e.channels();
        let per_channel = |f: &dyn Fn(usize) -> Option<String>| -> String {
            (0..chans.len())
                .map(|i| f(i).unwrap_or_else(|| "-".to_string()))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let values = per_channel(&|i| Some(super::json::number_text(&chans[i].value())));
        let shortest = per_channel(&|i| Some(chans[i].shortest()));
        // Each channel's error is exact arithmetic: compute it once for both columns.
        let errs: Vec<_> = (0..chans.len()).map(|i| e.error(i)).collect();
        let errors = per_channel(&|i| {
            errs[i]
                .as_ref()
                .and_then(|r| r.absolute.decimal_expansion())
        });
        let ulps = per_channel(&|i| {
            errs[i]
                .as_ref()
                .map(|r| r.ulps)
                .filter(|u| u.is_finite())
                .map(|u| u.to_string())
        });
        let packed = chans.len() > 1;
        let flags: Vec<String> = e
            .outcomes
            .iter()
            .enumerate()
            .flat_map(|(i, o)| {
                [
                    (o.overflow_to_infinity, "overflow"),
                    (o.saturated, "saturated"),
                    (o.clamped_negative, "clamped"),
                    (o.nan, "nan"),
                    (o.subnormal, "subnormal"),
                    (o.underflow_to_zero, "underflow"),
                ]
                .into_iter()
                .filter(|(on, _)| *on)
                .map(move |(_, name)| {
                    if packed {
                        format!("{}:{name}", ["r", "g", "b"][i])
                    } else {
                        name.to_string()
                    }
                })
            })
            .collect();
        row(
            out,
            &[
                e.format.name().to_string(),
                e.inputs.join(" "),
                e.opts.mode.as_str().to_string(),
                hex_bits(e.bits, e.format.width()),
                e.exact().to_string(),
                values,
                shortest,
                errors,
                ulps,
                flags.join(" "),
            ],
        )
    }

    /// One row per pair; packed words put the channel values, errors and distances in
    /// their cells space separated, and `distance` is the largest of them.
    fn ulp_diff(&mut self, out: &mut dyn Write, d: &PairReport) -> io::Result<()> {
        self.header(
            out,
            &[
                "format",
                "a",
                "b",
                "distance",
                "channel_distances",
                "a_value",
                "b_value",
                "abs_error",
                "rel_error",
                "a_inexact",
                "b_inexact",
                "exceeds",
            ],
        )?;
        let p = d.pair;
        let join = |f: &dyn Fn(&crate::ulp::ChannelDiff) -> String| {
            p.channels.iter().map(f).collect::<Vec<_>>().join(" ")
        };
        let width = p.format.width();
        row(
            out,
            &[
                p.format.name().to_string(),
                hex_bits(p.a.bits, width),
                hex_bits(p.b.bits, width),
                super::distance_text(p.distance(), false),
                join(&|c| super::distance_text(c.distance, false)),
                join(&|c| ulp_text::value_text(c, &c.a)),
                join(&|c| ulp_text::value_text(c, &c.b)),
                join(&|c| {
                    c.abs_error
                        .as_ref()
                        .and_then(|r| r.decimal_expansion())
                        .unwrap_or_else(|| "nan".into())
                }),
                join(&|c| {
                    c.rel_error
                        .as_ref()
                        .map_or("nan".into(), |r| r.to_f64_lossy().to_string())
                }),
                (!p.a.exact).to_string(),
                (!p.b.exact).to_string(),
                d.limit
                    .map(|l| p.exceeds(l).to_string())
                    .unwrap_or_default(),
            ],
        )
    }

    /// Stdin pairs: no extra rows (the table stays one row per input). Buffers: a
    /// `statistic,value` table, histogram buckets as `histogram_<range>`.
    fn ulp_summary(&mut self, out: &mut dyn Write, s: &SummaryReport) -> io::Result<()> {
        let Compared::Files { elements, .. } = &s.compared else {
            return Ok(());
        };
        let m = s.summary;
        self.header(out, &["statistic", "value"])?;
        let mut rows: Vec<(String, String)> = vec![
            ("format".into(), s.format.name().into()),
            ("elements".into(), elements.to_string()),
            ("count".into(), m.compared.to_string()),
            ("max_abs".into(), m.max_abs.to_string()),
            (
                "mean_abs".into(),
                m.mean_abs().map(|x| x.to_string()).unwrap_or_default(),
            ),
            ("nan_mismatches".into(), m.nan_mismatches.to_string()),
            ("nan_both".into(), m.nan_both.to_string()),
            ("over_max".into(), m.over_limit.to_string()),
        ];
        for (label, n) in ulp_text::histogram_rows(m) {
            rows.push((format!("histogram_{label}"), n.to_string()));
        }
        for (k, v) in rows {
            row(out, &[k, v])?;
        }
        Ok(())
    }

    fn op(&mut self, out: &mut dyn Write, e: &Evaluation, _batch: bool) -> io::Result<()> {
        self.header(
            out,
            &[
                "op",
                "format",
                "rules",
                "args",
                "preferred",
                "allowed",
                "nan_allowed",
                "count",
                "exact",
                "result",
                "conforms",
                "miss_ulps",
            ],
        )?;
        let o = e.main_output();
        let args: Vec<String> = e
            .args
            .iter()
            .map(|comps| {
                comps
                    .iter()
                    .map(|c| bits_text(&c.domain, c.bits))
                    .collect::<Vec<_>>()
                    .join(",")
            })
            .collect();
        let (result, conforms, miss) = match &e.check {
            Some(c) => (
                bits_text(&o.domain, c.verdicts[0].result),
                c.conforms.to_string(),
                c.verdicts
                    .iter()
                    .map(|v| v.miss_ulps)
                    .max()
                    .flatten()
                    .map(|m| m.to_string())
                    .unwrap_or_default(),
            ),
            None => Default::default(),
        };
        let mut allowed = allowed_text(&o.domain, &o.allowed);
        if allowed.ends_with("nan") {
            allowed.truncate(allowed.len() - 3);
            allowed = allowed.trim_end_matches(',').to_string();
        }
        row(
            out,
            &[
                e.op_name.to_string(),
                e.format.name.to_string(),
                e.rules.as_str().to_string(),
                args.join(" "),
                bits_text(&o.domain, o.preferred),
                allowed,
                o.allowed.nan.to_string(),
                o.allowed.count().to_string(),
                exact_script(&o.exact).unwrap_or_default(),
                result,
                conforms,
                miss,
            ],
        )
    }

    /// The summary goes to stderr (the command writes it): the table stays rectangular.
    fn op_summary(&mut self, _out: &mut dyn Write, _s: &BatchSummary) -> io::Result<()> {
        Ok(())
    }
}
