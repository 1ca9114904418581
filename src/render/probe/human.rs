//! The human view of a probe: the device and its float controls, a table of instructions,
//! then each violation class with a command that reproduces it.

use std::io::{self, Write};

use super::ProbeRenderer;
use crate::judge::{DeviceInfo, Findings, Source};
use crate::probe::paths::{self, PathClass};
use crate::render::Palette;

pub struct Human {
    p: Palette,
}

impl Human {
    pub fn new(p: Palette) -> Human {
        Human { p }
    }

    fn yes_no(&self, on: bool, yes: &str, no: &str) -> String {
        if on {
            self.p.good(yes)
        } else {
            self.p.warn(no)
        }
    }

    fn device(&self, out: &mut dyn Write, d: &DeviceInfo) -> io::Result<()> {
        let l = |s: &str| self.p.label(s);
        writeln!(
            out,
            "{} {} ({})",
            l("device  "),
            self.p.value(&d.name),
            d.device_type
        )?;
        writeln!(out, "{} {} {}", l("driver  "), d.driver, d.driver_version)?;
        writeln!(out, "{} Vulkan {}", l("api     "), d.api_version)?;
        writeln!(
            out,
            "{} shaderFloat16 {}, shaderFloat64 {}",
            l("features"),
            self.yes_no(d.float16, "yes", "no"),
            self.yes_no(d.float64, "yes", "no")
        )?;
        writeln!(
            out,
            "{} requested where D3D needs them, granted where supported (independence: {}):",
            l("float controls"),
            d.float_controls.independence
        )?;
        for (name, on) in d.float_controls.entries() {
            writeln!(
                out,
                "  {name:<24} {}",
                self.yes_no(on, "granted", "not supported")
            )?;
        }
        for t in &d.translators {
            writeln!(
                out,
                "{} {}: {} ({})",
                l("translator"),
                t.via,
                self.p.value(&t.version),
                t.source
            )?;
            for (k, v) in &t.options {
                writeln!(out, "  {k:<24} {v}")?;
            }
        }
        Ok(())
    }

    /// With several paths: each class's count per path, marked where a translator
    /// introduced it or works around it.
    fn compare(&self, out: &mut dyn Write, r: &Findings, rows: &[PathClass]) -> io::Result<()> {
        let paths = paths::paths(r);
        writeln!(out)?;
        writeln!(
            out,
            "{}",
            self.p
                .value("violation classes per path (-: did not run that way):")
        )?;
        let mut head = format!("  {:<10} {:<9}", "op", "format");
        for v in &paths {
            head.push_str(&format!(" {:>14}", v.name()));
        }
        writeln!(out, "{}  {}", self.p.label(&head), self.p.label("class"))?;
        for row in rows {
            let mut line = format!("  {:<10} {:<9}", row.op, row.format);
            for (_, n) in &row.counts {
                line.push_str(&match n {
                    Some(n) => format!(" {n:>14}"),
                    None => format!(" {:>14}", "-"),
                });
            }
            let marks: Vec<String> = row
                .changes
                .iter()
                .map(|(v, c)| format!("{} by {v}", c.name()))
                .collect();
            writeln!(
                out,
                "{line}  {}{}",
                self.p.bad(&row.class.to_string()),
                if marks.is_empty() {
                    String::new()
                } else {
                    format!("  [{}]", self.p.warn(&marks.join(", ")))
                }
            )?;
        }
        Ok(())
    }
}

impl ProbeRenderer for Human {
    fn devices(&mut self, out: &mut dyn Write, devices: &[DeviceInfo]) -> io::Result<()> {
        for d in devices {
            writeln!(
                out,
                "{}  {} ({}; {} {}; Vulkan {}; f16 {}, f64 {})",
                d.index,
                self.p.value(&d.name),
                d.device_type,
                d.driver,
                d.driver_version,
                d.api_version,
                if d.float16 { "yes" } else { "no" },
                if d.float64 { "yes" } else { "no" }
            )?;
        }
        Ok(())
    }

    fn findings(&mut self, out: &mut dyn Write, r: &Findings) -> io::Result<()> {
        match &r.source {
            Source::Device(d) => self.device(out, d)?,
            Source::Buffers { operands, results } => {
                let shown =
                    |name: &String| crate::path_text::display_path(std::path::Path::new(name));
                let operands: Vec<String> = operands.iter().map(shown).collect();
                writeln!(out, "{} {}", self.p.label("operands"), operands.join(", "))?;
                writeln!(out, "{} {}", self.p.label("results "), shown(results))?;
            }
        }
        writeln!(out, "{} {}", self.p.label("rules   "), r.rules.as_str())?;
        writeln!(out)?;
        // Counts of a sweep run to ten digits: the columns widen to the widest.
        let w = r
            .ops
            .iter()
            .map(|o| o.lines.to_string().len())
            .max()
            .unwrap_or(0)
            .max(7);
        // The path column only when a translator ran: a direct probe reads as it always has.
        let named = paths::translated(r);
        let via = |v: &str| {
            if named {
                format!("{v:<13}")
            } else {
                String::new()
            }
        };
        writeln!(
            out,
            "{}",
            self.p.label(&format!(
                "{:<10} {:<9} {}{:>w$} {:>w$} {:>w$} {:>8} {:>9}",
                "op",
                "format",
                via("via"),
                "lines",
                "conform",
                "violate",
                "max ulps",
                "conform."
            ))
        )?;
        for op in &r.ops {
            if let Some(reason) = &op.skipped {
                writeln!(
                    out,
                    "{:<10} {:<9} {}{}",
                    op.name,
                    op.format,
                    via(op.via.name()),
                    self.p.warn(&format!("skipped: {reason}"))
                )?;
                continue;
            }
            let violate = format!("{:>w$}", op.violate);
            writeln!(
                out,
                "{:<10} {:<9} {}{:>w$} {:>w$} {} {:>8} {:>9}",
                op.name,
                op.format,
                via(op.via.name()),
                op.lines,
                op.conform,
                if op.violate > 0 {
                    self.p.bad(&violate)
                } else {
                    self.p.good(&violate)
                },
                // Every line's largest distance, then the conforming lines' (issue 38: the
                // conforming one alone read 0 beside thousands of violations).
                op.max_distance,
                op.max_ulps
            )?;
        }
        let classes: Vec<_> = r
            .ops
            .iter()
            .flat_map(|op| op.classes.iter().map(move |c| (op, c)))
            .collect();
        if !classes.is_empty() {
            writeln!(out)?;
            writeln!(
                out,
                "{}",
                self.p.value("violations (class, count, one example):")
            )?;
            for (op, c) in classes {
                writeln!(
                    out,
                    "  {} {}{} {}",
                    self.p.label(&format!("{:<10}", op.name)),
                    if named {
                        format!("[{}] ", op.via)
                    } else {
                        String::new()
                    },
                    self.p.bad(&c.class.to_string()),
                    c.count
                )?;
                writeln!(out, "    {}", c.example)?;
            }
        }
        let rows = paths::compare(r);
        if !rows.is_empty() {
            self.compare(out, r, &rows)?;
        }
        let sweeps: Vec<_> = r
            .ops
            .iter()
            .filter_map(|op| op.exhaustive.as_ref().map(|s| (op, s)))
            .collect();
        if !sweeps.is_empty() {
            writeln!(out)?;
            writeln!(
                out,
                "{}",
                self.p
                    .value("distance from the correctly rounded result (values: lines):")
            )?;
            for (op, sweep) in sweeps {
                let h = &sweep.histogram;
                let mut parts: Vec<String> = h
                    .buckets
                    .iter()
                    .enumerate()
                    .filter(|&(_, &c)| c > 0)
                    .map(|(k, &c)| match crate::judge::Histogram::range(k) {
                        (a, b) if a == b => format!("{a}: {c}"),
                        (a, b) => format!("{a}-{b}: {c}"),
                    })
                    .collect();
                if h.nan > 0 {
                    parts.push(format!("NaN against a number: {}", h.nan));
                }
                writeln!(
                    out,
                    "  {} {}{}  [device {:.1} s, judge {:.1} s]",
                    self.p.label(&format!("{:<10}", op.name)),
                    parts.join("  "),
                    if sweep.complete {
                        ""
                    } else {
                        "  (interrupted)"
                    },
                    sweep.device_seconds,
                    sweep.judge_seconds
                )?;
            }
        }
        writeln!(out)?;
        let verdict = if r.violate() == 0 {
            self.p.good("every result conforms")
        } else {
            self.p
                .bad(&format!("{} results violate the D3D rules", r.violate()))
        };
        let skipped = r.ops.len() - r.ops_run();
        let done = match (&r.source, r.ops_run()) {
            (Source::Buffers { .. }, _) => "1 instruction judged".to_string(),
            (Source::Device(_), 1) => "1 instruction probed".to_string(),
            (Source::Device(_), n) => format!("{n} instructions probed"),
        };
        writeln!(
            out,
            "{done}{}, {} lines: {verdict} ({:.1} s)",
            if skipped > 0 {
                format!(" ({skipped} skipped)")
            } else {
                String::new()
            },
            r.lines(),
            r.seconds
        )?;
        if r.partial {
            writeln!(
                out,
                "{}",
                self.p
                    .warn("interrupted: a partial report of the lines judged before Ctrl-C")
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_classes_and_verdict() {
        let mut buf = Vec::new();
        Human::new(Palette::new(false))
            .findings(&mut buf, &crate::judge::findings::sample())
            .unwrap();
        let text = String::from_utf8(buf).unwrap();
        assert!(text.contains("denorm_flush_f32         granted"));
        assert!(text.contains("denorm_preserve_f64      not supported"));
        // Every line's largest distance (a violation's), then the conforming lines'.
        assert!(
            text.contains("add        f32            10       7       3        5         1"),
            "{text}"
        );
        assert!(text.contains("dadd       f64       skipped: device has no shaderFloat64"));
        assert!(text.contains("f32 denormal operand not flushed 3"));
        assert!(text.contains("    d3dfloat op add 0x00000001 0x00000001 --check 0x00000002"));
        assert!(text.contains("2 instructions probed (1 skipped), 20 lines: 3 results violate"));
    }
}
