//! The page of a probe (sampled or `--exhaustive`) or of a buffer verdict
//! (`op --operands ... --results ... --report`).

use super::{Meta, Page, count, escape, plot};
use crate::judge::Histogram;
use crate::judge::OpFindings;
use crate::judge::map::ErrorMap;
use crate::judge::{Findings, Source};

/// The whole page.
pub fn probe_page(report: &Findings, meta: &Meta) -> std::io::Result<String> {
    let title = match &report.source {
        Source::Device(d) => format!("d3dfloat probe: {}", d.name),
        Source::Buffers { .. } => "d3dfloat op: buffers judged".to_string(),
    };
    let mut page = Page::new(&title, meta);
    source(&mut page, report);
    summary(&mut page, report);
    paths_table(&mut page, report);
    for (i, op) in report.ops.iter().enumerate() {
        instruction(&mut page, i, op)?;
    }
    Ok(page.finish())
}

fn source(page: &mut Page, report: &Findings) {
    let mut rows = Vec::new();
    match &report.source {
        Source::Device(d) => {
            rows.push(("Device", escape(&d.name)));
            rows.push(("Type", escape(&d.device_type)));
            rows.push((
                "Driver",
                format!("{} {}", escape(&d.driver), escape(&d.driver_version)),
            ));
            rows.push(("Vulkan", escape(&d.api_version)));
            rows.push((
                "16/64-bit shaders",
                format!(
                    "shaderFloat16 {}, shaderFloat64 {}",
                    yes_no(d.float16),
                    yes_no(d.float64)
                ),
            ));
            // Every float control D3D wants is requested; the device grants those it has.
            let controls: Vec<String> = d
                .float_controls
                .entries()
                .iter()
                .map(|(name, on)| {
                    format!(
                        "<code>{}</code> {}",
                        escape(name),
                        if *on {
                            "<span class=\"ok\">granted</span>"
                        } else {
                            "<span class=\"bad\">not supported</span>"
                        }
                    )
                })
                .collect();
            rows.push(("Float controls requested", controls.join("<br>")));
            for t in &d.translators {
                let options: Vec<String> = t
                    .options
                    .iter()
                    .map(|(k, v)| format!("<code>{}</code> {}", escape(k), escape(v)))
                    .collect();
                rows.push((
                    "Translator",
                    format!(
                        "<b>{}</b>: {} ({})<br>{}",
                        escape(&t.via),
                        escape(&t.version),
                        escape(&t.source),
                        options.join("<br>")
                    ),
                ));
            }
        }
        Source::Buffers { operands, results } => {
            let shown = |name: &String| crate::path_text::display_path(std::path::Path::new(name));
            rows.push((
                "Operands",
                operands
                    .iter()
                    .map(|o| format!("<code>{}</code>", escape(&shown(o))))
                    .collect::<Vec<_>>()
                    .join(", "),
            ));
            rows.push((
                "Results",
                format!("<code>{}</code>", escape(&shown(results))),
            ));
        }
    }
    rows.push(("Rules", escape(report.rules.as_str())));
    rows.push(("Seconds", format!("{:.2}", report.seconds)));
    if report.partial {
        rows.push((
            "Interrupted",
            "<span class=\"bad\">yes: the report holds what was judged before</span>".into(),
        ));
    }
    page.facts(&rows);
}

fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

/// The table the terminal shows, one row per instruction, each number in a `data-` field
/// as well (what the browser test compares with `--json`).
fn summary(page: &mut Page, report: &Findings) {
    let mut html = String::from(
        "<table class=\"summary\"><tr><th>instruction</th><th>format</th><th>via</th>\
         <th>lines</th><th>conform</th><th>violate</th><th>max ULPs</th><th>conforming max</th>\
         <th>verdict</th></tr>",
    );
    for (i, op) in report.ops.iter().enumerate() {
        let verdict = match (&op.skipped, op.violate) {
            (Some(why), _) => format!("skipped: {}", escape(why)),
            (None, 0) => "<span class=\"ok\">conforms</span>".into(),
            (None, _) => "<span class=\"bad\">violates</span>".into(),
        };
        html.push_str(&format!(
            "<tr class=\"op\" data-op=\"{name}\" data-format=\"{fmt}\" data-via=\"{via}\" \
             data-lines=\"{}\" data-conform=\"{}\" data-violate=\"{}\" data-max-ulps=\"{}\" \
             data-max-distance=\"{}\">\
             <td><a href=\"#op-{i}\">{name}</a></td><td>{fmt}</td><td>{via}</td><td class=\"n\">{}</td>\
             <td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
             <td class=\"n\">{}</td><td>{verdict}</td></tr>",
            op.lines,
            op.conform,
            op.violate,
            op.max_ulps,
            op.max_distance,
            count(op.lines),
            count(op.conform),
            count(op.violate),
            count(op.max_distance),
            count(op.max_ulps),
            name = escape(op.name),
            fmt = escape(&op.format),
            via = op.via.name(),
        ));
    }
    html.push_str(&format!(
        "<tr><th>all</th><th></th><th></th><th class=\"n\">{}</th><th></th><th class=\"n\">{}</th>\
         <th></th><th></th><th></th></tr></table>\n",
        count(report.lines()),
        count(report.violate())
    ));
    page.raw(&html);
}

/// With several paths: each class's count per path, with the translators' changes.
fn paths_table(page: &mut Page, report: &Findings) {
    let rows = crate::probe::paths::compare(report);
    if rows.is_empty() {
        return;
    }
    let paths = crate::probe::paths::paths(report);
    let mut html = String::from(
        "<h2 id=\"paths\">Violation classes per path</h2>\n<table class=\"paths\"><tr>\
         <th>instruction</th><th>format</th>",
    );
    for v in &paths {
        html.push_str(&format!("<th>{}</th>", v.name()));
    }
    html.push_str("<th>class</th><th>translation</th></tr>");
    for row in &rows {
        html.push_str(&format!(
            "<tr class=\"path-class\"><td>{}</td><td>{}</td>",
            escape(row.op),
            escape(&row.format)
        ));
        for (v, n) in &row.counts {
            html.push_str(&match n {
                Some(n) => format!(
                    "<td class=\"n\" data-via=\"{v}\" data-count=\"{n}\">{}</td>",
                    count(*n)
                ),
                None => format!("<td class=\"n\" data-via=\"{v}\">-</td>"),
            });
        }
        let marks: Vec<String> = row
            .changes
            .iter()
            .map(|(v, c)| format!("{} by {v}", c.name()))
            .collect();
        html.push_str(&format!(
            "<td>{}</td><td class=\"bad\">{}</td></tr>",
            escape(&row.class.to_string()),
            escape(&marks.join(", "))
        ));
    }
    html.push_str(
        "</table>\n<p>-: the instruction did not run that way (see its row above).</p>\n",
    );
    page.raw(&html);
}

/// Instruction `i` of the report: its facts, classes and charts.
fn instruction(page: &mut Page, i: usize, op: &OpFindings) -> std::io::Result<()> {
    let via = if op.via.translated() {
        format!(" through {}", op.via)
    } else {
        String::new()
    };
    page.heading(
        2,
        &format!("op-{i}"),
        &format!("{} ({}){via}", op.name, op.format),
    );
    if let Some(why) = &op.skipped {
        page.text(&format!("Not run: {why}."));
        return Ok(());
    }
    let mut rows = vec![
        ("Lines", count(op.lines)),
        ("Conform", count(op.conform)),
        ("Violate", count(op.violate)),
        ("Max ULPs (every line)", count(op.max_distance)),
        ("Max ULPs (conforming lines)", count(op.max_ulps)),
    ];
    if let Some(s) = &op.exhaustive {
        rows.push((
            "Every input",
            if s.complete {
                "yes".into()
            } else {
                "<span class=\"bad\">no: interrupted</span>".into()
            },
        ));
        rows.push((
            "Device / judge seconds",
            format!("{:.1} / {:.1}", s.device_seconds, s.judge_seconds),
        ));
    }
    page.facts(&rows);
    if !op.classes.is_empty() {
        let mut html = String::from(
            "<table class=\"classes\"><tr><th>violation</th><th>count</th><th>first line</th>\
             <th>the rule it breaks</th><th>example (paste it)</th></tr>",
        );
        for c in &op.classes {
            html.push_str(&format!(
                "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
                 <td class=\"rule\">{}</td><td><code>{}</code></td></tr>",
                escape(&c.class.to_string()),
                count(c.count),
                c.first,
                escape(&c.rule),
                escape(&c.example)
            ));
        }
        html.push_str("</table>\n");
        page.raw(&html);
    }
    if let Some(map) = &op.map {
        error_chart(page, &i.to_string(), op, map)?;
    }
    if let Some(s) = &op.exhaustive {
        distance_histogram(page, op, &s.histogram)?;
    }
    Ok(())
}

/// The chart of where the error lies: along the binades for one operand, a map over two.
fn error_chart(
    page: &mut Page,
    anchor: &str,
    op: &OpFindings,
    map: &ErrorMap,
) -> std::io::Result<()> {
    // What the browser test finds drawn: a point of the largest distance for each cell
    // with a distance (one operand), a cell of each panel for each cell with lines (two).
    let points = if map.axes.len() == 1 {
        map.cells.iter().filter(|c| c.lines > c.nan).count()
    } else {
        map.cells.iter().filter(|c| c.lines > 0).count()
    };
    let title = format!("{} ({}): distance by operand binade", op.name, op.format);
    if map.axes.len() == 1 {
        let caption = "Blue: the largest distance of a result from the correctly rounded one \
             in each binade of the operand; green: the mean; grey: how far the rules allow a \
             result to lie at the binade's worst input (from the exact engine; drawn just \
             above the axis where that is 0); red crosses: binades with violations. \
             Distances in ULPs of the result, linear to 1 and logarithmic above.";
        // Where the results are not trivial first, when that is a small part of the line;
        // the whole line follows, one link away.
        if let Some((lo, hi)) = plot::zoom_range(map) {
            let zoomed = map.cells[lo..=hi]
                .iter()
                .filter(|c| c.lines > c.nan)
                .count();
            let svg = plot::binade_chart(&format!("{title}, zoomed"), map, Some((lo, hi)))?;
            page.figure("error-by-binade", &svg, zoomed, caption);
            page.raw(&format!(
                "<p class=\"note\">Zoomed to the binades where results are not trivial (not \
                 one result over the whole binade, as exp's 0, 1 and infinity are, or some \
                 distance, a violation or a NaN there). <a href=\"#op-{i}-full\">The \
                 whole operand range</a> is below.</p>\n<div id=\"op-{i}-full\"></div>\n",
                i = escape(anchor)
            ));
        }
        let svg = plot::binade_chart(&title, map, None)?;
        page.figure("error-by-binade", &svg, points, caption);
    } else {
        let svg = plot::exponent_map(&title, map)?;
        let reach = map.bounds.iter().flatten().max().copied().unwrap_or(0);
        page.figure(
            "error-map",
            &svg,
            points,
            &format!(
                "Each cell: the largest distance from the correctly rounded result over the \
                 operand pairs whose magnitudes lie in those binades (signs folded). Cells \
                 outlined in red hold violations. The grey line on the scale is the largest \
                 reach the rules allow at the cells' worst inputs ({reach} ULPs)."
            ),
        );
    }
    Ok(())
}

/// Buckets with a label each: `0`, `1`, `2-3`, `4-7`, ... up to the last non-empty one,
/// then `NaN` when a NaN stood against a number.
pub fn histogram_buckets(h: &Histogram) -> Vec<(String, u64)> {
    let last = h.buckets.iter().rposition(|&c| c > 0).unwrap_or(0);
    let mut out: Vec<(String, u64)> = (0..=last)
        .map(|k| {
            let (lo, hi) = Histogram::range(k);
            let label = if lo == hi {
                lo.to_string()
            } else if k <= 11 {
                format!("{lo}-{hi}")
            } else {
                format!("2^{}", k - 1)
            };
            (label, h.buckets[k])
        })
        .collect();
    if h.nan > 0 {
        out.push(("NaN".into(), h.nan));
    }
    out
}

fn distance_histogram(page: &mut Page, op: &OpFindings, h: &Histogram) -> std::io::Result<()> {
    let buckets = histogram_buckets(h);
    let svg = plot::histogram(
        &format!("{} ({}): every input by distance", op.name, op.format),
        &buckets,
        "ULPs from the correctly rounded result",
    )?;
    let points = buckets.iter().filter(|b| b.1 > 0).count();
    page.figure(
        "histogram",
        &svg,
        points,
        "Inputs by the distance of their result from the correctly rounded one, in powers \
         of two (NaN: a NaN against a number).",
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::d3d::RuleSet;
    use crate::judge::Family;
    use crate::judge::Judge;
    use crate::judge::Sweep;
    use crate::judge::map::Cell;
    use crate::probe::catalog::all_kernels;

    /// A sweep's report with every cell of its map filled, violations in every other
    /// cell, every histogram bucket used: the largest page a sweep can make.
    fn full_sweep(k: &crate::probe::catalog::Kernel) -> OpFindings {
        let judge = Judge::new(k.op, k.format, RuleSet::D3D11);
        let mut map = ErrorMap::for_judge(&judge);
        for (i, c) in map.cells.iter_mut().enumerate() {
            *c = Cell {
                lines: 1 << 23,
                violate: (i % 2) as u64 * 12345,
                nan: 0,
                sum: (i as u128 * 7919) % 100_000,
                max: (i as u64 * 104_729) % (1 << 30),
                worst: i as u64,
            };
        }
        map.bounds = (0..map.cells.len()).map(|i| Some(i as u64 % 5)).collect();
        let histogram = Histogram {
            buckets: [1 << 20; 65],
            nan: 3,
        };
        OpFindings {
            name: k.name,
            format: k.format_label(),
            family: k.family,
            via: k.via,
            lines: 1 << 32,
            conform: (1 << 32) - 12345,
            violate: 12345,
            max_ulps: 2,
            max_distance: 1 << 30,
            violations: Vec::new(),
            classes: vec![crate::judge::ClassCount {
                class: judge.class(crate::judge::ViolationKind::DenormOperand),
                count: 12345,
                example: format!("d3dfloat op {} 0x00000001 --check 0x3f800000", k.name),
                first: 1,
                rule: "§3.1.3.2: f32 denormal operands are flushed to zero".into(),
            }],
            skipped: None,
            log: Vec::new(),
            exhaustive: Some(Sweep {
                histogram,
                complete: true,
                device_seconds: 20.0,
                judge_seconds: 30.0,
            }),
            map: Some(map),
        }
    }

    #[test]
    fn a_sweep_of_every_f32_unary_instruction_fits_in_two_megabytes() {
        let ops: Vec<OpFindings> = all_kernels()
            .iter()
            .filter(|k| k.family == Family::F32 && k.operands == 1 && k.sweep().is_some())
            .map(full_sweep)
            .collect();
        assert!(ops.len() >= 16, "{} f32 sweeps", ops.len());
        let report = Findings {
            source: Source::Device(Default::default()),
            rules: RuleSet::D3D11,
            ops,
            seconds: 1140.0,
            partial: false,
        };
        let meta = Meta {
            command: "d3dfloat probe --exhaustive --report r.html".into(),
            date: "2026-11-26T00:00:00Z".into(),
        };
        let html = probe_page(&report, &meta).unwrap();
        eprintln!("{} f32 sweeps: {} bytes", report.ops.len(), html.len());
        assert!(html.len() < 2 << 20, "{} bytes", html.len());
        // Every instruction has its chart and its histogram.
        assert_eq!(
            html.matches("class=\"error-by-binade\"").count(),
            report.ops.len()
        );
        assert_eq!(
            html.matches("class=\"histogram\"").count(),
            report.ops.len()
        );
    }

    #[test]
    fn every_f16_pair_sweep_fits_too() {
        let ops: Vec<OpFindings> = all_kernels()
            .iter()
            .filter(|k| k.family == Family::F16 && k.operands == 2 && k.sweep().is_some())
            .map(full_sweep)
            .collect();
        let report = Findings {
            source: Source::Device(Default::default()),
            rules: RuleSet::D3D11,
            ops,
            seconds: 1.0,
            partial: false,
        };
        let meta = Meta {
            command: String::new(),
            date: String::new(),
        };
        let html = probe_page(&report, &meta).unwrap();
        eprintln!("{} f16 pair sweeps: {} bytes", report.ops.len(), html.len());
        assert!(
            html.len() < 4 << 20,
            "{} bytes for {} maps",
            html.len(),
            report.ops.len()
        );
        assert_eq!(
            html.matches("class=\"error-map\"").count(),
            report.ops.len()
        );
    }
}
