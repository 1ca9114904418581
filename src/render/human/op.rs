//! The human view of `op`: the operands, the exact and strict results, the allowed set,
//! the rules applied and the verdict; one line per instruction in a batch.

use std::io::{self, Write};

use super::Human;
use crate::d3d::BatchSummary;
use crate::d3d::{AllowedSet, Domain, Evaluation, OutputResult, OutputVerdict};
use crate::input::Typed;
use crate::render::op_text::{allowed_text, batch_summary_text, bits_text, exact_text, value_text};

impl Human {
    pub(super) fn render_op(
        &mut self,
        out: &mut dyn Write,
        e: &Evaluation,
        typed: &Typed,
        batch: bool,
    ) -> io::Result<()> {
        if batch {
            return self.op_line(out, e, typed);
        }
        self.separate(out)?;
        let p = self.p;
        let call = op_call(e, typed);
        let rules = match e.rules {
            crate::d3d::RuleSet::D3D11 => "Direct3D 11 rules",
            crate::d3d::RuleSet::D3D10 => "Direct3D 10 rules",
        };
        writeln!(
            out,
            "{}  {}",
            p.value(&call),
            p.label(&format!("({}, {rules})", e.format.name))
        )?;
        let multi = e.args.iter().any(|a| a.len() > 1);
        for (i, comps) in e.args.iter().enumerate() {
            for (j, c) in comps.iter().enumerate() {
                let label = if multi {
                    format!("src{i}.{}", ["x", "y", "z", "w"][j])
                } else {
                    format!("src{i}")
                };
                let mut body = format!(
                    "{} = {}",
                    bits_text(&c.domain, c.bits),
                    value_text(&c.domain, c.bits)
                );
                if c.inexact_literal {
                    let text = typed.component(i, j).unwrap_or("the value");
                    body.push_str(&p.warn(&format!("  ({text} rounded to nearest-even)")));
                }
                if let Some(z) = c.flushed_to {
                    body.push_str(&p.warn(&format!(
                        "  denorm, read as {} (§3.1.3.2)",
                        value_text(&c.domain, z)
                    )));
                }
                self.line(out, "", &format!("{label:<10}"), &body)?;
            }
        }
        for o in &e.outputs {
            let indent = if e.outputs.len() > 1 {
                writeln!(out, "  {}", p.value(&format!("{}:", o.name)))?;
                "  "
            } else {
                ""
            };
            self.op_output(out, indent, o)?;
        }
        let mut first = true;
        for r in &e.rules_applied {
            let label = if std::mem::replace(&mut first, false) {
                "rules     "
            } else {
                "          "
            };
            self.line(
                out,
                "",
                label,
                &format!("{}  {}", p.label(r.section()), r.text()),
            )?;
        }
        if let Some(c) = &e.check {
            for (v, o) in c.verdicts.iter().zip(&e.outputs) {
                let label = if c.verdicts.len() > 1 {
                    format!("check {:<4}", o.name)
                } else {
                    "check     ".to_string()
                };
                let body = format!(
                    "{} = {}: {}",
                    bits_text(&o.domain, v.result),
                    value_text(&o.domain, v.result),
                    self.verdict_text(v)
                );
                self.line(out, "", &label, &body)?;
                if let Some(rule) = v.broken {
                    self.line(out, "", "          ", &format!("breaks {}", rule.cite()))?;
                }
            }
        }
        Ok(())
    }

    pub(super) fn render_op_summary(
        &mut self,
        out: &mut dyn Write,
        s: &BatchSummary,
    ) -> io::Result<()> {
        let text = batch_summary_text(s);
        let painted = if s.violate == 0 {
            self.p.good(&text)
        } else {
            self.p.bad(&text)
        };
        writeln!(out, "{painted}")
    }
}

/// `add 1 0x33800000` as the user wrote it (patterns where nothing was typed).
fn op_call(e: &Evaluation, typed: &Typed) -> String {
    let mut call = e.op_name.to_string();
    for (i, comps) in e.args.iter().enumerate() {
        call.push(' ');
        for (j, c) in comps.iter().enumerate() {
            if j > 0 {
                call.push(',');
            }
            match typed.component(i, j) {
                Some(text) => call.push_str(text),
                None => call.push_str(&bits_text(&c.domain, c.bits)),
            }
        }
    }
    call
}

/// A range of patterns with its values, count and width.
fn range_text(domain: &Domain, lo: u64, hi: u64) -> String {
    if lo == hi {
        return format!("{} = {}", bits_text(domain, lo), value_text(domain, lo));
    }
    let (klo, khi) = (domain.key(lo).unwrap_or(0), domain.key(hi).unwrap_or(0));
    let count = (khi - klo) as u64 + 1;
    let width = AllowedSet::ulp_width(domain, (klo, khi));
    format!(
        "{}-{} = {} to {}  ({count} patterns, {width} ULP{} wide)",
        bits_text(domain, lo),
        bits_text(domain, hi),
        value_text(domain, lo),
        value_text(domain, hi),
        if width == 1 { "" } else { "s" }
    )
}

impl Human {
    fn op_output(&self, out: &mut dyn Write, indent: &str, o: &OutputResult) -> io::Result<()> {
        let p = self.p;
        if let Some(x) = exact_text(&o.exact) {
            self.line(out, indent, "exact     ", &x)?;
        }
        let strict = if o.domain.is_nan(o.preferred) {
            "NaN".to_string()
        } else {
            format!(
                "{} = {}",
                bits_text(&o.domain, o.preferred),
                value_text(&o.domain, o.preferred)
            )
        };
        self.line(
            out,
            indent,
            "strict    ",
            &format!("{}  {}", p.value(&strict), p.label("(correctly rounded)")),
        )?;
        let ranges = o.allowed.bit_ranges(&o.domain);
        let mut lines: Vec<String> = ranges
            .iter()
            .map(|&(lo, hi)| range_text(&o.domain, lo, hi))
            .collect();
        if o.allowed.nan {
            lines.push("any NaN".to_string());
        }
        for (i, l) in lines.iter().enumerate() {
            let label = if i == 0 { "allowed   " } else { "          " };
            self.line(out, indent, label, &p.good(l))?;
        }
        Ok(())
    }

    fn verdict_text(&self, v: &OutputVerdict) -> String {
        if v.conforms {
            return self.p.good("conforms");
        }
        let how = match v.miss_ulps {
            // Only the other zero is allowed: an IEEE sign rule or a table fixes the sign.
            Some(0) => "violates: the sign of zero is fixed here".to_string(),
            Some(n) => format!(
                "violates, {n} ULP{} outside the allowed set",
                if n == 1 { "" } else { "s" }
            ),
            None => "violates".to_string(),
        };
        self.p.bad(&how)
    }

    /// The one-line form of a batch line.
    fn op_line(&mut self, out: &mut dyn Write, e: &Evaluation, typed: &Typed) -> io::Result<()> {
        let call = op_call(e, typed);
        let o = e.main_output();
        match &e.check {
            Some(c) => {
                let v = c
                    .verdicts
                    .iter()
                    .find(|v| !v.conforms)
                    .unwrap_or(&c.verdicts[0]);
                let claimed = match typed.check {
                    Some(text) => text.to_string(),
                    None => c
                        .verdicts
                        .iter()
                        .zip(&e.outputs)
                        .map(|(v, o)| bits_text(&o.domain, v.result))
                        .collect::<Vec<_>>()
                        .join(","),
                };
                let mut line = format!("{call} = {claimed}  {}", self.verdict_text(v));
                if !v.conforms {
                    let oi = c
                        .verdicts
                        .iter()
                        .position(|x| std::ptr::eq(x, v))
                        .unwrap_or(0);
                    let ob = &e.outputs[oi];
                    line.push_str(&format!(
                        ": allowed {}",
                        allowed_text(&ob.domain, &ob.allowed)
                    ));
                    if let Some(r) = v.broken {
                        line.push_str(&format!(" ({} {})", r.section(), r.text()));
                    }
                }
                writeln!(out, "{line}")
            }
            None => {
                let parts: Vec<String> = e
                    .outputs
                    .iter()
                    .map(|o| {
                        format!(
                            "{}  allowed {}",
                            bits_text(&o.domain, o.preferred),
                            allowed_text(&o.domain, &o.allowed)
                        )
                    })
                    .collect();
                let _ = o;
                writeln!(out, "{call}  -> {}", parts.join("; "))
            }
        }
    }
}
