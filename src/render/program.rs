//! `op --asm` / `op --expr` output in every style: one block (human), line (plain, JSON)
//! or row (CSV) per output component; over buffers, one verdict.

use std::io::Write;

use serde_json::json;

use super::Style;
use crate::commands::Exit;
use crate::d3d::RuleSet;
use crate::format::{FloatFormat, text};
use crate::input::read_result;
use crate::program::{ComponentAnswer, ProgramVerdict, Span};

/// The JSON schema version, as every command's objects carry it (docs/output-contract.md).
pub const SCHEMA: u32 = 1;

/// What the answer is about.
pub struct Query<'a> {
    /// The program or expression as typed.
    pub title: &'a str,
    /// `asm` or `expr`.
    pub kind: &'a str,
    /// Who emits each alternative.
    pub sources: &'a [String],
    /// The working format.
    pub format: FloatFormat,
    /// The rules.
    pub rules: RuleSet,
}

/// The reading every answer states: each instruction is bounded as given.
pub const ORDER_NOTE: &str = "each instruction is bounded as written, in this order (what \
`precise` keeps); a compiler that reassociates or fuses emits another sequence: give that one too";

/// Reads `--check R1,R2,...`, one result per output component.
pub fn parse_claims(text: &str, f: &FloatFormat, n: usize) -> anyhow::Result<Vec<u64>> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if parts.len() != n {
        anyhow::bail!(
            "--check '{text}': {} result{} for {n} output component{}",
            parts.len(),
            if parts.len() == 1 { "" } else { "s" },
            if n == 1 { "" } else { "s" }
        );
    }
    parts
        .iter()
        .map(|p| {
            read_result(p, &crate::d3d::Domain::Float(*f))
                .map(|r| r.bits)
                .map_err(|e| anyhow::anyhow!("--check '{p}': {e}"))
        })
        .collect()
}

fn hex(f: &FloatFormat, bits: u64) -> String {
    format!("0x{:0w$x}", bits, w = f.hex_digits())
}

fn value(f: &FloatFormat, bits: u64) -> String {
    text::shortest_decimal(f, bits)
}

fn ends(f: &FloatFormat, s: &Span) -> Option<(u64, u64)> {
    s.bits(f)
}

/// Renders the answers; `Negative` when a checked result lies outside.
pub fn answer(
    out: &mut dyn Write,
    style: Style,
    q: &Query,
    answers: &[ComponentAnswer],
    claims: Option<&[u64]>,
) -> anyhow::Result<Exit> {
    let f = q.format;
    let verdicts: Vec<Option<bool>> = answers
        .iter()
        .enumerate()
        .map(|(i, a)| claims.map(|c| a.span.contains(&f, c[i])))
        .collect();
    match style {
        Style::Human => {
            writeln!(out, "{} ({}, {} rules)", q.title, f.name, q.rules)?;
            if q.sources.len() > 1 || q.kind == "expr" {
                writeln!(
                    out,
                    "  sequences: {} (the answer is their union)",
                    q.sources.join("; ")
                )?;
            }
            writeln!(out, "  note: {ORDER_NOTE}")?;
            for (i, a) in answers.iter().enumerate() {
                writeln!(out, "{}", a.component)?;
                match ends(&f, &a.span) {
                    Some((lo, hi)) => writeln!(
                        out,
                        "  allowed  [{}, {}]  {} .. {}  ({} ULPs wide){}",
                        hex(&f, lo),
                        hex(&f, hi),
                        value(&f, lo),
                        value(&f, hi),
                        a.span.ulps(&f),
                        if a.span.nan { ", or NaN" } else { "" }
                    )?,
                    None => writeln!(out, "  allowed  NaN only")?,
                }
                writeln!(
                    out,
                    "  exact    {}  {} (the exact expression {}, rounded to nearest)",
                    hex(&f, a.exact),
                    value(&f, a.exact),
                    a.exact_approx
                )?;
                match &a.set {
                    Some(s) if s.len() <= 16 => writeln!(
                        out,
                        "  set      {} reachable: {}",
                        s.len(),
                        s.iter().map(|&b| hex(&f, b)).collect::<Vec<_>>().join(" ")
                    )?,
                    Some(s) => writeln!(out, "  set      {} patterns reachable", s.len())?,
                    None => {}
                }
                if let (Some(c), Some(ok)) = (claims, verdicts[i]) {
                    writeln!(
                        out,
                        "  check    {}  {}",
                        hex(&f, c[i]),
                        if ok {
                            "conforms"
                        } else {
                            "VIOLATES: outside the interval"
                        }
                    )?;
                }
            }
        }
        Style::Plain => {
            for (i, a) in answers.iter().enumerate() {
                let (lo, hi) = ends(&f, &a.span)
                    .map(|(l, h)| (hex(&f, l), hex(&f, h)))
                    .unwrap_or(("nan".into(), "nan".into()));
                let mut line = format!(
                    "{} {} {} {}{}",
                    a.component,
                    lo,
                    hi,
                    hex(&f, a.exact),
                    if a.span.nan { " nan" } else { "" }
                );
                if let Some(ok) = verdicts[i] {
                    line.push_str(if ok { " conforms" } else { " violates" });
                }
                writeln!(out, "{line}")?;
            }
        }
        Style::Json => {
            for (i, a) in answers.iter().enumerate() {
                let (lo, hi) = match ends(&f, &a.span) {
                    Some((l, h)) => (json!(hex(&f, l)), json!(hex(&f, h))),
                    None => (json!(null), json!(null)),
                };
                let mut o = json!({
                    "schema": SCHEMA,
                    "component": a.component,
                    "lo": lo,
                    "hi": hi,
                    "lo_value": ends(&f, &a.span).map(|(l, _)| value(&f, l)),
                    "hi_value": ends(&f, &a.span).map(|(_, h)| value(&f, h)),
                    "nan": a.span.nan,
                    "ulps": a.span.ulps(&f),
                    "exact": hex(&f, a.exact),
                    "exact_value": a.exact_approx.to_string(),
                    "set": a.set.as_ref().map(|s| s.iter().map(|&b| hex(&f, b)).collect::<Vec<_>>()),
                    "format": f.name,
                    "rules": q.rules.as_str(),
                    q.kind: q.title,
                    "sequences": q.sources,
                    "order": "as-written",
                });
                if let (Some(c), Some(ok)) = (claims, verdicts[i]) {
                    o["result"] = json!(hex(&f, c[i]));
                    o["conforms"] = json!(ok);
                }
                writeln!(out, "{o}")?;
            }
        }
        Style::Csv => {
            writeln!(
                out,
                "component,lo,hi,nan,exact,lo_value,hi_value,ulps,result,conforms"
            )?;
            for (i, a) in answers.iter().enumerate() {
                let (lo, hi, lv, hv) = match ends(&f, &a.span) {
                    Some((l, h)) => (hex(&f, l), hex(&f, h), value(&f, l), value(&f, h)),
                    None => Default::default(),
                };
                let (r, ok) = match (claims, verdicts[i]) {
                    (Some(c), Some(ok)) => (hex(&f, c[i]), ok.to_string()),
                    _ => (String::new(), String::new()),
                };
                writeln!(
                    out,
                    "{},{lo},{hi},{},{},{lv},{hv},{},{r},{ok}",
                    a.component,
                    a.span.nan,
                    hex(&f, a.exact),
                    a.span.ulps(&f)
                )?;
            }
        }
    }
    Ok(if verdicts.contains(&Some(false)) {
        Exit::Negative
    } else {
        Exit::Success
    })
}

/// Renders a buffer verdict.
pub fn verdict(
    out: &mut dyn Write,
    style: Style,
    q: &Query,
    v: &ProgramVerdict,
) -> anyhow::Result<()> {
    let f = q.format;
    let viol = |x: &crate::program::ProgramViolation| {
        let (lo, hi) = x
            .span
            .bits(&f)
            .map(|(l, h)| (hex(&f, l), hex(&f, h)))
            .unwrap_or(("nan".into(), "nan".into()));
        (lo, hi)
    };
    match style {
        Style::Human => {
            writeln!(out, "{} ({}, {} rules)", q.title, f.name, q.rules)?;
            writeln!(
                out,
                "  {} elements: {} conform, {} violate",
                v.elements, v.conform, v.violate
            )?;
            for x in &v.violations {
                let (lo, hi) = viol(x);
                writeln!(
                    out,
                    "  element {} {}: {} outside [{lo}, {hi}]",
                    x.index,
                    x.component,
                    hex(&f, x.result)
                )?;
            }
        }
        Style::Plain => {
            writeln!(
                out,
                "elements {} conform {} violate {}",
                v.elements, v.conform, v.violate
            )?;
            for x in &v.violations {
                let (lo, hi) = viol(x);
                writeln!(
                    out,
                    "{} {} {} {lo} {hi}",
                    x.index,
                    x.component,
                    hex(&f, x.result)
                )?;
            }
        }
        Style::Json => {
            let list: Vec<_> = v
                .violations
                .iter()
                .map(|x| {
                    let (lo, hi) = viol(x);
                    json!({"index": x.index, "component": x.component, "result": hex(&f, x.result), "lo": lo, "hi": hi, "nan": x.span.nan})
                })
                .collect();
            writeln!(
                out,
                "{}",
                json!({
                    "schema": SCHEMA,
                    q.kind: q.title,
                    "format": f.name,
                    "rules": q.rules.as_str(),
                    "elements": v.elements,
                    "conform": v.conform,
                    "violate": v.violate,
                    "violations": list,
                })
            )?;
        }
        Style::Csv => {
            writeln!(out, "index,component,result,lo,hi,nan")?;
            for x in &v.violations {
                let (lo, hi) = viol(x);
                writeln!(
                    out,
                    "{},{},{},{lo},{hi},{}",
                    x.index,
                    x.component,
                    hex(&f, x.result),
                    x.span.nan
                )?;
            }
        }
    }
    Ok(())
}
