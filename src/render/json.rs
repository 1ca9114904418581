//! `--json`: one object per input, per line, always with `"schema": 1`. The keys are a
//! contract documented in docs/output-contract.md.

use super::op_text::{bits_text, exact_script};
use super::ulp_text;
use crate::d3d::BatchSummary;
use crate::d3d::{Domain, Evaluation, OutputResult};
use crate::input::Typed;
use std::io::{self, Write};

use serde_json::{Value, json};

use super::Renderer;
use crate::convert::Report;
use crate::exact::Number;
use crate::format::decoded::{Decoded, DecodedChannel, Neighbour};
use crate::format::encode::Channel;
use crate::format::encoded::{Encoded, EncodedChannel};
use crate::format::{Format, hex_bits};
use crate::ulp::{ChannelDiff, Compared, PairReport, Sample, SummaryReport};

/// The version of the JSON objects' layout; it changes only when a key changes meaning.
pub const SCHEMA: u32 = 1;

pub struct Json;

fn write_object(out: &mut dyn Write, v: &Value) -> io::Result<()> {
    serde_json::to_writer(&mut *out, v)?;
    writeln!(out)
}

/// The exact decimal of a number, or `inf`, `-inf`, `nan`.
pub(super) fn number_text(n: &Number) -> String {
    match n {
        Number::Nan { .. } => "nan".into(),
        Number::Infinity { neg } => if *neg { "-inf" } else { "inf" }.into(),
        Number::Finite { neg, mag } => {
            let d = mag
                .decimal_expansion()
                .unwrap_or_else(|| mag.to_f64_lossy().to_string());
            if *neg { format!("-{d}") } else { d }
        }
    }
}

/// The decode object of one channel (or of a plain float pattern).
fn channel_object(c: &DecodedChannel) -> Value {
    match c {
        DecodedChannel::Float(f) => {
            let hex =
                |n: &Option<Neighbour>| n.as_ref().map(|n| hex_bits(n.bits, f.format.width()));
            json!({
                "format": f.format.name,
                "bits": hex_bits(f.bits, f.format.width()),
                "sign": f.fields.sign as u8,
                "exponent": f.fields.exponent,
                "unbiased_exponent": f.unbiased_exponent,
                "fraction": f.fields.fraction,
                "class": f.class.as_str(),
                "quiet": f.quiet,
                "value": f.exact,
                "shortest": f.shortest,
                "hex_float": f.hex_float,
                "previous": hex(&f.previous),
                "next": hex(&f.next),
                "ulp": f.ulp.as_ref().and_then(|u| u.decimal.clone()),
            })
        }
        DecodedChannel::Rgb9e5(ch) => json!({
            "format": "rgb9e5_channel",
            "mantissa": ch.mantissa,
            "exponent": ch.exponent,
            "class": ch.class,
            "value": ch.value.decimal_expansion(),
            "shortest": ch.shortest,
        }),
    }
}

impl Renderer for Json {
    fn bc6h(&mut self, out: &mut dyn Write, b: &crate::format::bc6h::Block) -> io::Result<()> {
        write_object(out, &super::bc6h::json_object(b, SCHEMA))
    }

    fn decode(&mut self, out: &mut dyn Write, d: &Decoded) -> io::Result<()> {
        let mut obj = match (d.format, d.channels.as_slice()) {
            (Format::Float(_), [c]) => channel_object(c),
            _ => json!({
                "format": d.format.name(),
                "bits": hex_bits(d.bits, d.format.width()),
                "channels": d.channels.iter().map(channel_object).collect::<Vec<_>>(),
            }),
        };
        obj["schema"] = json!(SCHEMA);
        write_object(out, &obj)
    }

    fn convert(&mut self, out: &mut dyn Write, r: &Report) -> io::Result<()> {
        let mut obj = serde_json::Map::new();
        obj.insert("schema".into(), json!(SCHEMA));
        obj.insert("command".into(), json!("convert"));
        for (key, value) in super::convert_fields(r) {
            obj.insert(key.into(), value.json());
        }
        write_object(out, &serde_json::Value::Object(obj))
    }

    fn encode(&mut self, out: &mut dyn Write, e: &Encoded) -> io::Result<()> {
        let channel_entry = |c: &EncodedChannel| {
            let o = &c.outcome;
            let err = c.error.as_ref();
            let (bits, mantissa) = match c.channel {
                Channel::Float(f, b) => (Some(hex_bits(b, f.width())), None),
                Channel::Rgb9e5(ch) => (None, Some(ch.mantissa)),
            };
            json!({
                "input": c.input,
                "bits": bits,
                "mantissa": mantissa,
                "value": number_text(&c.value),
                "shortest": c.shortest,
                "exact": o.exact,
                "abs_error": err.and_then(|r| r.absolute.decimal_expansion()),
                "rel_error": err.map(|r| r.relative).filter(|r| r.is_finite()),
                "ulp_error": err.map(|r| r.ulps).filter(|r| r.is_finite()),
                "overflow_to_infinity": o.overflow_to_infinity,
                "saturated": o.saturated,
                "clamped_negative": o.clamped_negative,
                "nan": o.nan,
                "subnormal": o.subnormal,
                "underflow_to_zero": o.underflow_to_zero,
            })
        };
        let alternatives: serde_json::Map<String, Value> = e
            .alternatives
            .iter()
            .map(|a| {
                (
                    a.mode.as_str().to_string(),
                    json!(hex_bits(a.bits, e.format.width())),
                )
            })
            .collect();
        let mut obj = match (e.format, e.channels.as_slice()) {
            (Format::Float(_), [c]) => channel_entry(c),
            _ => json!({
                "input": e.inputs_text(),
                "value": e.channels.iter().map(|c| number_text(&c.value)).collect::<Vec<_>>().join(" "),
                "channels": e.channels.iter().map(channel_entry).collect::<Vec<_>>(),
            }),
        };
        obj["schema"] = json!(SCHEMA);
        obj["format"] = json!(e.format.name());
        obj["rounding"] = json!(e.opts.mode.as_str());
        obj["saturate"] = json!(e.opts.saturate);
        obj["bits"] = json!(hex_bits(e.bits, e.format.width()));
        obj["exact"] = json!(e.exact());
        obj["other_modes"] = Value::Object(alternatives);
        write_object(out, &obj)
    }

    fn ulp_diff(&mut self, out: &mut dyn Write, d: &PairReport) -> io::Result<()> {
        let p = d.pair;
        let width = p.format.width();
        let mut obj = json!({
            "schema": SCHEMA,
            "kind": "pair",
            "format": p.format.name(),
            "a": hex_bits(p.a.bits, width),
            "b": hex_bits(p.b.bits, width),
            "distance": distance_json(p.distance()),
            "nan": p.has_nan(),
            "a_input": d.inputs[0],
            "b_input": d.inputs[1],
            "a_inexact": !p.a.exact,
            "b_inexact": !p.b.exact,
            "flush_subnormals": p.opts.flush_subnormals,
            "max": d.limit,
            "exceeds": d.limit.map(|l| p.exceeds(l)),
        });
        let channels: Vec<Value> = p.channels.iter().map(channel_diff_object).collect();
        match p.format {
            Format::Float(_) => {
                // A single channel: its keys sit at the top level.
                if let (Value::Object(top), Value::Object(ch)) = (&mut obj, &channels[0]) {
                    for (k, v) in ch {
                        if k != "channel" && !top.contains_key(k) {
                            top.insert(k.clone(), v.clone());
                        }
                    }
                }
            }
            _ => obj["channels"] = Value::Array(channels),
        }
        write_object(out, &obj)
    }

    fn ulp_listed(
        &mut self,
        out: &mut dyn Write,
        format: crate::format::Format,
        x: &Sample,
    ) -> io::Result<()> {
        write_object(
            out,
            &json!({
                "schema": SCHEMA,
                "listed": sample_json(format, x),
            }),
        )
    }

    fn ulp_summary(&mut self, out: &mut dyn Write, s: &SummaryReport) -> io::Result<()> {
        let m = s.summary;
        let sample = |x: &Sample| sample_json(s.format, x);
        let mut obj = json!({
            "schema": SCHEMA,
            "kind": "summary",
            "format": s.format.name(),
            "flush_subnormals": s.opts.flush_subnormals,
            "count": m.compared,
            "measured": m.measured(),
            "max_abs": m.max_abs,
            "mean_abs": m.mean_abs(),
            "histogram": ulp_text::histogram_rows(m).iter().map(|(label, n)| json!({"range": label, "count": n})).collect::<Vec<_>>(),
            "nan_mismatches": m.nan_mismatches,
            "nan_both": m.nan_both,
            "max": m.limit,
            "over_max": m.over_limit,
            "failed": m.failed(),
            "abs_tol": m.tolerance.map(|t| t.abs),
            "rel_tol": m.tolerance.map(|t| t.rel),
            "over_tolerance": m.over_tolerance,
            "within_max": m.within_max(),
            "within_tolerance": m.within_tolerance(),
            "worst": m.worst.iter().map(sample).collect::<Vec<_>>(),
            "first_nans": m.first_nans.iter().map(sample).collect::<Vec<_>>(),
        });
        if let Compared::Files {
            expected,
            actual,
            elements,
        } = &s.compared
        {
            obj["expected"] = json!(expected);
            obj["actual"] = json!(actual);
            obj["elements"] = json!(elements);
        }
        write_object(out, &obj)
    }

    fn op(
        &mut self,
        out: &mut dyn Write,
        e: &Evaluation,
        typed: &Typed,
        _batch: bool,
    ) -> io::Result<()> {
        let args: Vec<Value> = e
            .args
            .iter()
            .map(|comps| {
                let bits: Vec<Value> = comps
                    .iter()
                    .map(|c| Value::String(bits_text(&c.domain, c.bits)))
                    .collect();
                if bits.len() == 1 {
                    bits.into_iter().next().unwrap()
                } else {
                    Value::Array(bits)
                }
            })
            .collect();
        let operands: Vec<Value> = e
            .args
            .iter()
            .enumerate()
            .flat_map(|(i, comps)| comps.iter().enumerate().map(move |(j, c)| (i, j, c)))
            .map(|(i, j, c)| {
                json!({
                    "text": typed.component(i, j).map_or_else(|| bits_text(&c.domain, c.bits), str::to_string),
                    "bits": bits_text(&c.domain, c.bits),
                    "inexact_literal": c.inexact_literal,
                    "flushed_to": c.flushed_to.map(|z| bits_text(&c.domain, z)),
                })
            })
            .collect();
        let output = |o: &OutputResult| -> Value {
            let preferred = match o.domain {
                Domain::Bool => Value::Bool(o.preferred != 0),
                _ => Value::String(bits_text(&o.domain, o.preferred)),
            };
            let ranges = o.allowed.ascending_bit_ranges(&o.domain);
            let allowed: Vec<Value> = ranges
                .iter()
                .map(|&(lo, hi)| json!([bits_text(&o.domain, lo), bits_text(&o.domain, hi)]))
                .collect();
            // Per range of `allowed`: how many patterns and how many ULPs from end to end.
            let widths: Vec<Value> = ranges
                .iter()
                .map(|&(lo, hi)| {
                    let (a, b) = (o.domain.key(lo).unwrap_or(0), o.domain.key(hi).unwrap_or(0));
                    let r = (a.min(b), a.max(b));
                    json!({
                        "count": (r.1 - r.0) as u64 + 1,
                        "ulps": crate::d3d::AllowedSet::ulp_width(&o.domain, r),
                    })
                })
                .collect();
            json!({
                "name": o.name,
                "format": o.domain.name(),
                "preferred": preferred,
                "allowed": allowed,
                "widths": widths,
                "nan_allowed": o.allowed.nan,
                "count": o.allowed.count(),
                "exact": exact_script(&o.exact),
                "approx": match o.exact {
                    crate::d3d::ExactResult::Approx(x) => json!(x),
                    _ => Value::Null,
                },
            })
        };
        let main = output(e.main_output());
        let mut obj = json!({
            "schema": SCHEMA,
            "op": e.op_name,
            "format": e.format.name,
            "result_format": e.main_output().domain.name(),
            "rules": e.rules.as_str(),
            "args": args,
            "operands": operands,
            "exact": main["exact"],
            "approx": main["approx"],
            "preferred": main["preferred"],
            "allowed": main["allowed"],
            "widths": main["widths"],
            "nan_allowed": main["nan_allowed"],
            "count": main["count"],
            "rules_applied": e.rules_applied.iter().map(|r| r.cite()).collect::<Vec<_>>(),
        });
        if e.outputs.len() > 1 {
            obj["outputs"] = Value::Array(e.outputs.iter().map(output).collect());
        }
        if let Some(c) = &e.check {
            let v = &c.verdicts[0];
            let o = e.main_output();
            obj["result"] = match o.domain {
                Domain::Bool => Value::Bool(v.result != 0),
                _ => Value::String(bits_text(&o.domain, v.result)),
            };
            obj["conforms"] = Value::Bool(c.conforms);
            obj["miss_ulps"] = json!(c.verdicts.iter().map(|v| v.miss_ulps).max().flatten());
            obj["broken_rule"] = json!(c.verdicts.iter().find_map(|v| v.broken.map(|r| r.cite())));
        }
        write_object(out, &obj)
    }

    fn convert_stream(&self) -> super::Stream {
        super::Stream::Stdout
    }

    fn op_summary(
        &mut self,
        out: &mut dyn Write,
        err: &mut dyn Write,
        s: &BatchSummary,
    ) -> io::Result<()> {
        // The summary object ends stdout; the tally line goes to stderr as in the other
        // script styles.
        write_object(
            out,
            &json!({
                "schema": SCHEMA,
                "summary": {
                    "lines": s.lines,
                    "checked": s.checked,
                    "conform": s.conform,
                    "violate": s.violate,
                }
            }),
        )?;
        super::tally_line(out, err, s)
    }
}

/// One compared element (a summary's worst or first NaN, or a `--list` line): index,
/// channel, both patterns and the signed distance (null when a NaN is involved).
fn sample_json(format: crate::format::Format, x: &Sample) -> Value {
    json!({
        "index": x.index,
        "channel": x.channel.map(super::sample_channel_name),
        "a": super::sample_bits(format, x, x.a),
        "b": super::sample_bits(format, x, x.b),
        "distance": distance_json(x.distance),
        "x": x.at.map(|p| p.0),
        "y": x.at.map(|p| p.1),
    })
}

/// A distance as a JSON integer (null when a NaN is involved). Beyond 64 bits, which only
/// f64 distances across zero reach, it goes out as the nearest double.
fn distance_json(d: Option<i128>) -> Value {
    match d {
        None => Value::Null,
        Some(d) => serde_json::Number::from_i128(d)
            .map(Value::Number)
            .unwrap_or_else(|| json!(d as f64)),
    }
}

fn channel_diff_object(c: &ChannelDiff) -> Value {
    let ulp = |e: &crate::ulp::Endpoint| e.ulp.as_ref().and_then(|u| u.decimal_expansion());
    let mut obj = json!({
        "channel": c.channel,
        "channel_format": c.format,
        "a": ulp_text::bits_text(c, &c.a),
        "b": ulp_text::bits_text(c, &c.b),
        "distance": distance_json(c.distance),
        "a_value": ulp_text::value_text(c, &c.a),
        "b_value": ulp_text::value_text(c, &c.b),
        "a_class": ulp_text::class_text(c, &c.a),
        "b_class": ulp_text::class_text(c, &c.b),
        "a_flushed": c.a.counted_as_zero,
        "b_flushed": c.b.counted_as_zero,
        "a_ulp": ulp(&c.a),
        "b_ulp": ulp(&c.b),
        "abs_error": c.abs_error.as_ref().and_then(|r| r.decimal_expansion()),
        "rel_error": c.rel_error.as_ref().map(|r| r.to_f64_lossy()),
    });
    if let crate::ulp::ValueLine::Rgb9e5 = c.line {
        obj["a_exponent"] = json!(c.a.rgb9e5_exponent());
        obj["b_exponent"] = json!(c.b.rgb9e5_exponent());
    }
    obj
}
