//! `probe --json`: a device object, one object per instruction, a summary object; each on
//! its own line with `"schema": 1`.

use std::io::{self, Write};

use serde_json::{Map, Value, json};

use super::ProbeRenderer;
use crate::judge::{DeviceInfo, Findings, Source};
use crate::probe::paths;
use crate::render::json::SCHEMA;

pub struct Json;

fn line(out: &mut dyn Write, v: &Value) -> io::Result<()> {
    serde_json::to_writer(&mut *out, v)?;
    writeln!(out)
}

fn device(d: &DeviceInfo) -> Value {
    let mut controls = Map::new();
    for (name, on) in d.float_controls.entries() {
        controls.insert(name.to_string(), Value::Bool(on));
    }
    json!({
        "schema": SCHEMA,
        "kind": "device",
        "index": d.index,
        "name": d.name,
        "driver": d.driver,
        "driver_version": d.driver_version,
        "api_version": d.api_version,
        "device_type": d.device_type,
        "float16": d.float16,
        "float64": d.float64,
        "float_controls": controls,
        "float_controls_independence": d.float_controls.independence,
        "translators": d.translators.iter().map(|t| {
            let options: Map<String, Value> = t
                .options
                .iter()
                .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                .collect();
            json!({"via": t.via, "version": t.version, "source": t.source, "options": options})
        }).collect::<Vec<_>>(),
    })
}

/// The distance histogram as its non-empty buckets: `{"from", "to", "count"}` each (`to`
/// inclusive), then `{"nan": count}` when a NaN stood against a number.
fn histogram(h: &crate::judge::Histogram) -> Value {
    let mut v: Vec<Value> = h
        .buckets
        .iter()
        .enumerate()
        .filter(|&(_, &c)| c > 0)
        .map(|(k, &c)| {
            let (from, to) = crate::judge::Histogram::range(k);
            json!({"from": from, "to": to, "count": c})
        })
        .collect();
    if h.nan > 0 {
        v.push(json!({"nan": h.nan}));
    }
    Value::Array(v)
}

impl ProbeRenderer for Json {
    fn devices(&mut self, out: &mut dyn Write, devices: &[DeviceInfo]) -> io::Result<()> {
        for d in devices {
            line(out, &device(d))?;
        }
        Ok(())
    }

    fn findings(&mut self, out: &mut dyn Write, r: &Findings) -> io::Result<()> {
        let mut d = match &r.source {
            Source::Device(d) => device(d),
            Source::Buffers { operands, results } => json!({
                "schema": SCHEMA,
                "kind": "buffers",
                "operands": operands,
                "results": results,
            }),
        };
        d["rules"] = json!(r.rules.as_str());
        line(out, &d)?;
        for op in &r.ops {
            let mut v = json!({
                "schema": SCHEMA,
                "kind": "op",
                "op": op.name,
                "format": op.format,
                "via": op.via.name(),
            });
            match &op.skipped {
                Some(reason) => v["skipped"] = json!(reason),
                None => {
                    v["lines"] = json!(op.lines);
                    v["conform"] = json!(op.conform);
                    v["violate"] = json!(op.violate);
                    v["max_ulps"] = json!(op.max_ulps);
                    v["max_distance"] = json!(op.max_distance);
                    v["classes"] = op
                        .classes
                        .iter()
                        .map(|c| {
                            let mut o =
                                json!({"class": c.class.to_string(), "count": c.count, "example": c.example, "rule": c.rule});
                            if paths::introduced(r, op, &c.class) {
                                o["introduced"] = json!(true);
                            }
                            let around = paths::worked_around_by(r, op, &c.class);
                            if !around.is_empty() {
                                o["worked_around_by"] =
                                    around.iter().map(|v| v.name()).collect::<Vec<_>>().into();
                            }
                            o
                        })
                        .collect();
                    if !op.violations.is_empty() {
                        v["violations"] = op
                            .violations
                            .iter()
                            .map(|x| json!({"index": x.index, "class": x.class.map(|c| c.to_string()).unwrap_or_default()}))
                            .collect();
                    }
                    if let Some(sweep) = &op.exhaustive {
                        v["exhaustive"] = json!(true);
                        v["complete"] = json!(sweep.complete);
                        v["histogram"] = histogram(&sweep.histogram);
                        let secs = |x: f64| (x * 1000.0).round() / 1000.0;
                        v["device_seconds"] = json!(secs(sweep.device_seconds));
                        v["judge_seconds"] = json!(secs(sweep.judge_seconds));
                    }
                }
            }
            line(out, &v)?;
        }
        line(
            out,
            &json!({
                "schema": SCHEMA,
                "kind": "summary",
                "ops": r.ops_run(),
                "skipped": r.ops.len() - r.ops_run(),
                "lines": r.lines(),
                "violate": r.violate(),
                "partial": r.partial,
                "seconds": (r.seconds * 1000.0).round() / 1000.0,
            }),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_object_per_line_with_the_issue_keys() {
        let mut buf = Vec::new();
        Json.findings(&mut buf, &crate::judge::findings::sample())
            .unwrap();
        let objects: Vec<Value> = String::from_utf8(buf)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(objects.len(), 5);
        assert!(objects.iter().all(|o| o["schema"] == 1));
        assert_eq!(objects[0]["kind"], "device");
        assert_eq!(objects[0]["float_controls"]["denorm_flush_f32"], true);
        assert_eq!(objects[0]["float_controls"]["denorm_preserve_f64"], false);
        assert_eq!(objects[2]["op"], "add");
        assert_eq!(objects[2]["violate"], 3);
        assert_eq!(objects[2]["classes"][0]["count"], 3);
        assert_eq!(
            (
                objects[2]["max_ulps"].clone(),
                objects[2]["max_distance"].clone()
            ),
            (json!(1), json!(5))
        );
        assert_eq!(
            objects[2]["violations"],
            json!([{"index": 4, "class": "f32 denormal operand not flushed"}])
        );
        assert!(
            objects[1].get("violations").is_none(),
            "listed only when asked"
        );
        assert_eq!(objects[3]["skipped"], "device has no shaderFloat64");
        assert!(objects[3].get("lines").is_none());
        assert_eq!(objects[4]["kind"], "summary");
        assert_eq!(
            (objects[4]["ops"].clone(), objects[4]["lines"].clone()),
            (json!(2), json!(20))
        );
    }
}
