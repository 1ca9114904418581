//! `--csv`: a header, then one row per input. Columns are a contract documented in the
//! docs/output-contract.md; packed formats have their own columns (one run has one format).

use super::op_text::{allowed_text, bits_text, exact_script};
use super::ulp_text;
use crate::d3d::Evaluation;
use crate::input::Typed;
use std::io::{self, Write};

use super::Renderer;
use crate::convert::Report;
use crate::format::decoded::{Decoded, DecodedChannel, Neighbour};
use crate::format::encoded::{Encoded, EncodedChannel};
use crate::format::hex_bits;
use crate::format::packed::RGB9E5_MANTISSA_BITS;
use crate::ulp::{Compared, PairReport, SummaryReport};

#[derive(Default)]
pub struct Csv {
    header_written: bool,
    /// Whether a `--list` table was written (it ends with a blank line before the
    /// summary table).
    listed: bool,
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
    fn bc6h(&mut self, out: &mut dyn Write, b: &crate::format::bc6h::Block) -> io::Result<()> {
        self.header(out, &super::bc6h::CSV_COLUMNS)?;
        row(out, &super::bc6h::csv_cells(b))
    }

    /// New columns go at the end of a row, so existing column positions stay. A value
    /// JSON writes as `null` is `null` here too.
    fn decode(&mut self, out: &mut dyn Write, d: &Decoded) -> io::Result<()> {
        match d.channels.as_slice() {
            [DecodedChannel::Float(f)] => {
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
                        "unbiased_exponent",
                        "quiet",
                        "previous",
                        "next",
                        "ulp",
                    ],
                )?;
                let null = || "null".to_string();
                let width = f.format.width();
                let neighbour = |n: &Option<Neighbour>| {
                    n.as_ref().map_or_else(null, |n| hex_bits(n.bits, width))
                };
                row(
                    out,
                    &[
                        f.format.name.to_string(),
                        hex_bits(f.bits, width),
                        (f.fields.sign as u8).to_string(),
                        f.fields.exponent.to_string(),
                        f.fields.fraction.to_string(),
                        f.class.as_str().to_string(),
                        f.exact.clone(),
                        f.shortest.clone(),
                        f.hex_float.clone(),
                        f.unbiased_exponent.map_or_else(null, |e| e.to_string()),
                        f.quiet.map_or_else(null, |q| q.to_string()),
                        neighbour(&f.previous),
                        neighbour(&f.next),
                        f.ulp
                            .as_ref()
                            .and_then(|u| u.decimal.clone())
                            .unwrap_or_else(null),
                    ],
                )
            }
            chans => {
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
                        "r_class",
                        "r_value",
                        "g_class",
                        "g_value",
                        "b_class",
                        "b_value",
                    ],
                )?;
                let mut cells = vec![d.format.name().to_string(), hex_bits(d.bits, 32)];
                for c in chans {
                    cells.push(match c {
                        DecodedChannel::Float(f) => hex_bits(f.bits, f.format.width()),
                        DecodedChannel::Rgb9e5(ch) => {
                            hex_bits(ch.mantissa as u64, RGB9E5_MANTISSA_BITS)
                        }
                    });
                    cells.push(c.shortest().to_string());
                }
                cells.push(d.shared_exponent.map(|e| e.to_string()).unwrap_or_default());
                for c in chans {
                    cells.push(c.class().to_string());
                    cells.push(c.exact());
                }
                row(out, &cells)
            }
        }
    }

    fn convert(&mut self, out: &mut dyn Write, r: &Report) -> io::Result<()> {
        let fields = super::convert_fields(r);
        let cols: Vec<&str> = fields.iter().map(|(k, _)| *k).collect();
        self.header(out, &cols)?;
        let cells: Vec<String> = fields.iter().map(|(_, v)| v.text()).collect();
        row(out, &cells)
    }

    /// Packed words put one entry per channel in the per-value cells, space separated, with
    /// `-` where a channel has no finite error; flags are prefixed with their channel (`b:`).
    /// New columns go at the end of a row, so existing column positions stay.
    fn encode(&mut self, out: &mut dyn Write, e: &Encoded) -> io::Result<()> {
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
                "saturate",
                "rel_error",
                "other_modes",
            ],
        )?;
        let per_channel = |f: &dyn Fn(&EncodedChannel) -> Option<String>| -> String {
            e.channels
                .iter()
                .map(|c| f(c).unwrap_or_else(|| "-".to_string()))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let finite = |x: f64| x.is_finite().then(|| x.to_string());
        let values = per_channel(&|c| Some(super::json::number_text(&c.value)));
        let shortest = per_channel(&|c| Some(c.shortest.clone()));
        let errors = per_channel(&|c| {
            c.error
                .as_ref()
                .and_then(|r| r.absolute.decimal_expansion())
        });
        let ulps = per_channel(&|c| c.error.as_ref().and_then(|r| finite(r.ulps)));
        let relative = per_channel(&|c| c.error.as_ref().and_then(|r| finite(r.relative)));
        let packed = e.channels.len() > 1;
        let flags: Vec<String> = e
            .channels
            .iter()
            .enumerate()
            .flat_map(|(i, c)| {
                let o = &c.outcome;
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
        let width = e.format.width();
        let other_modes: Vec<String> = e
            .alternatives
            .iter()
            .map(|a| format!("{}={}", a.mode.as_str(), hex_bits(a.bits, width)))
            .collect();
        row(
            out,
            &[
                e.format.name().to_string(),
                e.inputs_text(),
                e.opts.mode.as_str().to_string(),
                hex_bits(e.bits, width),
                e.exact().to_string(),
                values,
                shortest,
                errors,
                ulps,
                flags.join(" "),
                e.opts.saturate.to_string(),
                relative,
                other_modes.join(" "),
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

    /// `--list`: an `index,channel,a,b,distance` table, then a blank line before the
    /// summary's table.
    fn ulp_listed(
        &mut self,
        out: &mut dyn Write,
        format: crate::format::Format,
        x: &crate::ulp::Sample,
    ) -> io::Result<()> {
        if !self.listed {
            self.listed = true;
            // Images add the pixel's column and row.
            let xy = if x.at.is_some() { ",x,y" } else { "" };
            writeln!(out, "index,channel,a,b,distance{xy}")?;
        }
        writeln!(out, "{}", super::listed_fields(format, x).join(","))
    }

    /// Stdin pairs: no extra rows (the table stays one row per input). Buffers: a
    /// `statistic,value` table, histogram buckets as `histogram_<range>`.
    fn ulp_summary(&mut self, out: &mut dyn Write, s: &SummaryReport) -> io::Result<()> {
        let Compared::Files { elements, .. } = &s.compared else {
            return Ok(());
        };
        if self.listed {
            writeln!(out)?;
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
        if let Some(t) = m.tolerance {
            rows.push(("abs_tol".into(), t.abs.to_string()));
            rows.push(("rel_tol".into(), t.rel.to_string()));
            rows.push(("over_tolerance".into(), m.over_tolerance.to_string()));
        }
        for (label, n) in ulp_text::histogram_rows(m) {
            rows.push((format!("histogram_{label}"), n.to_string()));
        }
        for (k, v) in rows {
            row(out, &[k, v])?;
        }
        Ok(())
    }

    fn op(
        &mut self,
        out: &mut dyn Write,
        e: &Evaluation,
        _typed: &Typed,
        _batch: bool,
    ) -> io::Result<()> {
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

    /// A conversion's summary is the CSV output itself, on stdout. (A checked `op`
    /// batch's tally goes to stderr, the trait's default: the table stays rectangular.)
    fn convert_stream(&self) -> super::Stream {
        super::Stream::Stdout
    }
}
