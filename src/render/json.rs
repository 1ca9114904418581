//! `--json`: one object per input, per line, always with `"schema": 1`. The keys are a
//! contract documented in the README.

use std::io::{self, Write};

use serde_json::{Value, json};

use super::Renderer;
use crate::exact::Number;
use crate::format::describe::unbiased_exponent;
use crate::format::encode::{Channel, Encoding, channels};
use crate::format::{Format, hex_bits, text};

pub const SCHEMA: u32 = 1;

pub struct Json;

fn write_object(out: &mut dyn Write, v: &Value) -> io::Result<()> {
    serde_json::to_writer(&mut *out, v)?;
    writeln!(out)
}

fn number_text(n: &Number) -> String {
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
fn channel_object(c: &Channel) -> Value {
    match c {
        Channel::Float(f, bits) => {
            let fields = f.fields(*bits);
            let (prev, next) = f.neighbours(*bits);
            let hex = |b: Option<u64>| b.map(|b| hex_bits(b, f.width()));
            json!({
                "format": f.name,
                "bits": hex_bits(*bits, f.width()),
                "sign": fields.sign as u8,
                "exponent": fields.exponent,
                "unbiased_exponent": unbiased_exponent(f, *bits),
                "fraction": fields.fraction,
                "class": f.class(*bits).as_str(),
                "quiet": f.is_quiet_nan(*bits),
                "value": text::exact_decimal(f, *bits),
                "shortest": text::shortest_decimal(f, *bits),
                "hex_float": text::hex_float(f, *bits),
                "previous": hex(prev),
                "next": hex(next),
                "ulp": f.ulp(*bits).and_then(|u| u.decimal_expansion()),
            })
        }
        Channel::Rgb9e5(ch) => json!({
            "format": "rgb9e5_channel",
            "mantissa": ch.mantissa,
            "exponent": ch.exponent,
            "class": if ch.mantissa == 0 { "zero" } else { "normal" },
            "value": ch.value().decimal_expansion(),
            "shortest": c.shortest(),
        }),
    }
}

impl Renderer for Json {
    fn decode(&mut self, out: &mut dyn Write, format: &Format, bits: u64) -> io::Result<()> {
        let chans = channels(format, bits);
        let mut obj = match format {
            Format::Float(_) => channel_object(&chans[0]),
            _ => json!({
                "format": format.name(),
                "bits": hex_bits(bits, format.width()),
                "channels": chans.iter().map(channel_object).collect::<Vec<_>>(),
            }),
        };
        obj["schema"] = json!(SCHEMA);
        write_object(out, &obj)
    }

    fn encode(&mut self, out: &mut dyn Write, e: &Encoding) -> io::Result<()> {
        let chans = e.channels();
        let channel_entry = |i: usize| {
            let o = &e.outcomes[i];
            let err = e.error(i);
            json!({
                "input": e.inputs[i],
                "value": number_text(&chans[i].value()),
                "shortest": chans[i].shortest(),
                "exact": o.exact,
                "abs_error": err.as_ref().and_then(|r| r.absolute.decimal_expansion()),
                "rel_error": err.as_ref().map(|r| r.relative).filter(|r| r.is_finite()),
                "ulp_error": err.as_ref().map(|r| r.ulps).filter(|r| r.is_finite()),
                "overflow_to_infinity": o.overflow_to_infinity,
                "saturated": o.saturated,
                "clamped_negative": o.clamped_negative,
                "nan": o.nan,
                "subnormal": o.subnormal,
                "underflow_to_zero": o.underflow_to_zero,
            })
        };
        let alternatives: serde_json::Map<String, Value> = e
            .alternatives()
            .into_iter()
            .map(|(m, b)| (m.as_str().to_string(), json!(hex_bits(b, e.format.width()))))
            .collect();
        let mut obj = match e.format {
            Format::Float(_) => channel_entry(0),
            _ => json!({
                "input": e.inputs.join(" "),
                "value": chans.iter().map(|c| number_text(&c.value())).collect::<Vec<_>>().join(" "),
                "channels": (0..chans.len()).map(channel_entry).collect::<Vec<_>>(),
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
}
