//! The report's charts, drawn by plotters into SVG strings: an instruction's error along the
//! binades of its operand, a map over two operands' exponents, and a histogram of
//! distances. Text is left to the browser (`font-family="sans-serif"`): plotters' SVG
//! backend estimates label sizes itself, so no font file is read when a page is made.
//!
//! Distances are drawn on one scale everywhere (`report::scale`).

use plotters::coord::ranged1d::{IntoSegmentedCoord, SegmentValue};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::legend;
use super::scale::{scale, scale_label};
use crate::d3d::Domain;
use crate::judge::map::{Axis, ErrorMap};

/// The label of the low edge of cell `c` of an axis: `2^e` (`-2^e` on the negative side),
/// `0` for the zero-and-subnormal field and `inf` for the top one.
pub fn cell_label(axis: &Axis, c: usize) -> String {
    let (negative, first, last) = axis.fields_of(c);
    let field = if negative { last } else { first };
    let sign = if negative { "-" } else { "" };
    match axis.domain {
        Domain::Float(f) => {
            let top = (1usize << f.exp_bits) - 1;
            if field == 0 {
                "0".into()
            } else if field == top {
                format!("{sign}inf")
            } else if field as i32 == f.bias {
                format!("{sign}1")
            } else {
                format!("{sign}2^{}", field as i32 - f.bias)
            }
        }
        _ if field == 0 => "0".into(),
        _ => format!("{sign}2^{}", field - 1),
    }
}

const MAX_COLOR: RGBColor = RGBColor(31, 119, 180);
const MEAN_COLOR: RGBColor = RGBColor(44, 160, 44);
const BOUND_COLOR: RGBColor = RGBColor(90, 90, 90);
const VIOLATION_COLOR: RGBColor = RGBColor(214, 39, 40);
/// Cells where every line had a NaN against a number.
const NAN_COLOR: RGBColor = RGBColor(0, 160, 255);

/// Runs of neighbouring cells that have lines, as separate polylines: a gap in the
/// data is a gap in the line, not a slope across it.
fn runs(points: impl Iterator<Item = Option<(f64, f64)>>) -> Vec<Vec<(f64, f64)>> {
    let mut out: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
    for p in points {
        match p {
            Some(p) => out.last_mut().expect("one run").push(p),
            None if out.last().is_some_and(|r| !r.is_empty()) => out.push(Vec::new()),
            None => {}
        }
    }
    out.retain(|r| !r.is_empty());
    out
}

/// A legend's colour sample: a short bar (a filled rectangle, so that the chart's
/// polylines are its data alone).
fn swatch(x: i32, y: i32, color: RGBColor) -> Rectangle<(i32, i32)> {
    Rectangle::new([(x, y - 2), (x + 16, y + 2)], color.filled())
}

fn chart_error(e: impl std::fmt::Display) -> std::io::Error {
    std::io::Error::other(format!("drawing a chart: {e}"))
}

/// The power of two of cell `c`'s low edge (`2^e`, or `-2^e` on the negative side), for
/// the cells that have one (not the zero, infinity or NaN fields, nor integer axes).
fn cell_exponent(axis: &Axis, c: usize) -> Option<i32> {
    let Domain::Float(f) = axis.domain else {
        return None;
    };
    let (negative, first, last) = axis.fields_of(c);
    let field = if negative { last } else { first };
    let top = (1usize << f.exp_bits) - 1;
    (field != 0 && field != top).then(|| field as i32 - f.bias)
}

/// Whether cell `c` gets a label on the binade axis: zero, infinity, ±1, and the binades
/// whose exponent is a multiple of `step` (a round power of two: 2^-16, 2^32, ...), so
/// that the ticks read as a ruler rather than wherever the drawing library put them.
fn labelled_cell(axis: &Axis, c: usize, step: i32) -> bool {
    match cell_exponent(axis, c) {
        Some(e) => e == 0 || e % step == 0,
        None => true,
    }
}

/// The labels of the binade axis over cells `first..=last`: [`labelled_cell`]'s cells
/// with their [`cell_label`], where of two neighbouring cells with the same label (the
/// zero fields of both signs, both "0") only the second is labelled, so the two do not
/// print over each other.
fn axis_labels(axis: &Axis, first: usize, last: usize, step: i32) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    for c in (first..=last).filter(|&c| labelled_cell(axis, c, step)) {
        let label = cell_label(axis, c);
        if let Some(prev) = out.last()
            && prev.0 + 1 == c
            && prev.1 == label
        {
            out.pop();
        }
        out.push((c, label));
    }
    out
}

/// The exponent step between labelled binades for cells `first..=last`: the smallest
/// power of two that leaves at most about six labels a side.
fn label_step(axis: &Axis, first: usize, last: usize) -> i32 {
    let spread = (first..=last)
        .filter_map(|c| cell_exponent(axis, c))
        .fold((0i32, 0i32), |(lo, hi), e| (lo.min(e), hi.max(e)));
    let widest = spread.0.unsigned_abs().max(spread.1.unsigned_abs()) as i32;
    let mut step = 1;
    while widest / step > 6 {
        step *= 2;
    }
    step
}

/// The cells where an instruction's results are not trivial: not one constant result
/// over the whole binade ([`ErrorMap::trivial`]: exp's 0, 1 and infinity), or with some
/// distance, a violation or a NaN against a number there. With a margin of one cell, the
/// binade chart's zoom, when it is under two thirds of the cells with lines (exp's
/// useful operands fill a few percent of the f32 line); `None` when the whole range is
/// the interesting one.
pub fn zoom_range(map: &ErrorMap) -> Option<(usize, usize)> {
    let cells = &map.cells;
    let used: Vec<usize> = (0..cells.len()).filter(|&c| cells[c].lines > 0).collect();
    let (&first, &last) = (used.first()?, used.last()?);
    let busy = |c: &usize| {
        let cell = &cells[*c];
        !map.trivial.get(*c).copied().unwrap_or(false)
            || cell.max > 0
            || cell.violate > 0
            || cell.nan > 0
    };
    let lo = used
        .iter()
        .copied()
        .find(busy)?
        .saturating_sub(1)
        .max(first);
    let hi = (used.iter().copied().rev().find(busy)? + 1).min(last);
    (3 * (hi - lo + 1) < 2 * (last - first + 1)).then_some((lo, hi))
}

/// The error of a one-operand instruction along its operand's binades: the largest and
/// the mean distance of each cell, the allowed reach at each cell's worst line, and a
/// cross on each cell with violations; over the cells `range` (first, last) when given,
/// else over every cell with lines.
pub fn binade_chart(
    title: &str,
    map: &ErrorMap,
    range: Option<(usize, usize)>,
) -> std::io::Result<String> {
    let axis = map.axes[0];
    let cells = &map.cells;
    let used: Vec<usize> = (0..cells.len())
        .filter(|&c| cells[c].lines > 0)
        .filter(|&c| range.is_none_or(|(lo, hi)| (lo..=hi).contains(&c)))
        .collect();
    let (Some(&first), Some(&last)) = (used.first(), used.last()) else {
        return Ok(String::new());
    };
    let step = label_step(&axis, first, last);
    let bound = |c: usize| map.bounds.get(c).copied().flatten();
    let top = used
        .iter()
        .map(|&c| cells[c].max.max(bound(c).unwrap_or(0)))
        .max()
        .unwrap_or(0);
    let y_max = (scale(top as f64) + 1.0).ceil().max(3.0);
    let x_range = first as f64 - 0.5..last as f64 + 0.5;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (900, 360)).into_drawing_area();
        root.fill(&WHITE).map_err(chart_error)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(42)
            .y_label_area_size(56)
            .build_cartesian_2d(x_range, 0f64..y_max)
            .map_err(chart_error)?;
        let y_step = (y_max / 10.0).ceil().max(1.0);
        chart
            .configure_mesh()
            .label_style(("sans-serif", 12))
            .axis_desc_style(("sans-serif", 13))
            .disable_x_mesh()
            .y_labels((y_max / y_step) as usize + 1)
            .y_label_formatter(&|y| scale_label(*y))
            .x_labels(0)
            .x_desc("operand binade")
            .y_desc("ULPs from correctly rounded")
            .light_line_style(WHITE)
            .draw()
            .map_err(chart_error)?;
        let series = |f: &dyn Fn(usize) -> Option<f64>| {
            runs((first..=last).map(|c| f(c).map(|y| (c as f64, scale(y)))))
        };
        // The binade labels, drawn here at the round cells only (the mesh would put them
        // wherever its own key points fall), each under a short tick.
        for (c, label) in axis_labels(&axis, first, last, step) {
            let (px, py) = chart.backend_coord(&(c as f64, 0.0));
            root.draw(&PathElement::new(vec![(px, py), (px, py + 4)], BLACK))
                .map_err(chart_error)?;
            root.draw(&Text::new(
                label,
                (px, py + 7),
                ("sans-serif", 12)
                    .into_font()
                    .color(&BLACK)
                    .pos(Pos::new(HPos::Center, VPos::Top)),
            ))
            .map_err(chart_error)?;
        }
        let with_distance = |c: usize| cells[c].lines > cells[c].nan;
        // Light guide lines at zero and at ±1, where the eye looks first.
        let guides: Vec<f64> = (first..=last)
            .filter(|&c| {
                cell_exponent(&axis, c) == Some(0)
                    || (cell_exponent(&axis, c).is_none() && cell_label(&axis, c) == "0")
            })
            .map(|c| c as f64)
            .collect();
        chart
            .draw_series(guides.iter().map(|&x| {
                PathElement::new(vec![(x, 0.0), (x, y_max)], BLACK.mix(0.15).stroke_width(1))
            }))
            .map_err(chart_error)?;
        // The allowed line sits a little above the axis where the rules allow 0 ULPs, so
        // that it shows instead of hiding under the axis.
        let lift = y_max / 80.0;
        for run in series(&|c| bound(c).map(|b| b as f64)) {
            let run: Vec<(f64, f64)> = run.into_iter().map(|(x, y)| (x, y.max(lift))).collect();
            chart
                .draw_series(LineSeries::new(run, BOUND_COLOR.stroke_width(2)))
                .map_err(chart_error)?;
        }
        for (i, run) in series(&|c| cells[c].mean().filter(|_| with_distance(c)))
            .into_iter()
            .enumerate()
        {
            let s = chart
                .draw_series(LineSeries::new(run, MEAN_COLOR.stroke_width(1)))
                .map_err(chart_error)?;
            if i == 0 {
                s.label("mean").legend(|(x, y)| swatch(x, y, MEAN_COLOR));
            }
        }
        for (i, run) in series(&|c| with_distance(c).then_some(cells[c].max as f64))
            .into_iter()
            .enumerate()
        {
            let s = chart
                .draw_series(LineSeries::new(run, MAX_COLOR.stroke_width(2)))
                .map_err(chart_error)?;
            if i == 0 {
                s.label("largest").legend(|(x, y)| swatch(x, y, MAX_COLOR));
            }
        }
        let crosses: Vec<(f64, f64)> = (first..=last)
            .filter(|&c| cells[c].violate > 0)
            .map(|c| (c as f64, scale(cells[c].max as f64)))
            .collect();
        let marked = chart
            .draw_series(
                crosses
                    .iter()
                    .map(|&p| Cross::new(p, 5, VIOLATION_COLOR.stroke_width(2))),
            )
            .map_err(chart_error)?;
        if !crosses.is_empty() {
            marked
                .label("violations")
                .legend(|(x, y)| Cross::new((x + 8, y), 4, VIOLATION_COLOR.stroke_width(2)));
        }
        // The bound's legend entry goes last, so that the series above keep their colours
        // in the order drawn.
        chart
            .draw_series(std::iter::empty::<PathElement<(f64, f64)>>())
            .map_err(chart_error)?
            .label("allowed")
            .legend(|(x, y)| swatch(x, y, BOUND_COLOR));
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.3))
            .label_font(("sans-serif", 13))
            .draw()
            .map_err(chart_error)?;
        root.present().map_err(chart_error)?;
    }
    Ok(svg)
}

/// A colour for a distance on the scale, from pale (0) to dark (the chart's top).
fn heat(y: f64, top: f64) -> RGBColor {
    let t = if top > 0.0 {
        (y / top).clamp(0.0, 1.0)
    } else {
        0.0
    };
    // From a pale yellow through orange to a dark purple (a sequential scale that stays
    // readable for the common colour-vision deficiencies).
    let stops = [
        (255.0, 255.0, 204.0),
        (253.0, 141.0, 60.0),
        (189.0, 0.0, 38.0),
        (63.0, 0.0, 90.0),
    ];
    let x = t * (stops.len() - 1) as f64;
    let i = (x.floor() as usize).min(stops.len() - 2);
    let f = x - i as f64;
    let lerp = |a: f64, b: f64| (a + (b - a) * f).round() as u8;
    let (a, b) = (stops[i], stops[i + 1]);
    RGBColor(lerp(a.0, b.0), lerp(a.1, b.1), lerp(a.2, b.2))
}

/// The error of a two-operand instruction over its operands' exponents: two panels, each
/// cell coloured by its largest and by its mean distance (by `scale`, so by log2 of the
/// distance above 1 ULP), cells with violations outlined, and under them the colour legend
/// (`legend.rs`) with the largest allowed reach drawn across it. The chart and the legend
/// are two sibling SVGs.
pub fn exponent_map(title: &str, map: &ErrorMap) -> std::io::Result<String> {
    let (rows, cols) = (map.axes[0], map.axes[1]);
    let cells = &map.cells;
    let top_d = cells.iter().map(|c| c.max).max().unwrap_or(0);
    let reach = map.bounds.iter().flatten().copied().max();
    let top = legend::heat_top(top_d.max(reach.unwrap_or(0)) as f64);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (900, 450)).into_drawing_area();
        root.fill(&WHITE).map_err(chart_error)?;
        let (head, body) = root.split_vertically(30);
        head.titled(title, ("sans-serif", 18))
            .map_err(chart_error)?;
        let (left, right) = body.split_horizontally(450);
        let label = |axis: Axis| {
            move |v: &SegmentValue<u32>| match v {
                SegmentValue::CenterOf(c) | SegmentValue::Exact(c)
                    if (*c as usize) < axis.cells =>
                {
                    cell_label(&axis, *c as usize)
                }
                _ => String::new(),
            }
        };
        let (xl, yl) = (label(cols), label(rows));
        let panel = |area: &DrawingArea<SVGBackend, plotters::coord::Shift>,
                     name: &str,
                     value: &dyn Fn(&crate::judge::map::Cell) -> Option<f64>|
         -> std::io::Result<()> {
            let mut chart = ChartBuilder::on(area)
                .caption(name, ("sans-serif", 14))
                .margin(6)
                .x_label_area_size(40)
                .y_label_area_size(52)
                .build_cartesian_2d(
                    (0..cols.cells as u32).into_segmented(),
                    (0..rows.cells as u32).into_segmented(),
                )
                .map_err(chart_error)?;
            chart
                .configure_mesh()
                .label_style(("sans-serif", 12))
                .axis_desc_style(("sans-serif", 13))
                .disable_mesh()
                .x_labels(6)
                .y_labels(8)
                .x_label_formatter(&xl)
                .y_label_formatter(&yl)
                .x_desc("|second operand| binade")
                .y_desc("|first operand| binade")
                .draw()
                .map_err(chart_error)?;
            let mut rects = Vec::new();
            let mut marks = Vec::new();
            for r in 0..rows.cells {
                for c in 0..cols.cells {
                    let cell = &cells[r * cols.cells + c];
                    if cell.lines == 0 {
                        continue;
                    }
                    let corners = [
                        (SegmentValue::Exact(c as u32), SegmentValue::Exact(r as u32)),
                        (
                            SegmentValue::Exact(c as u32 + 1),
                            SegmentValue::Exact(r as u32 + 1),
                        ),
                    ];
                    let color = match value(cell) {
                        Some(v) => heat(scale(v), top),
                        None => NAN_COLOR,
                    };
                    rects.push(Rectangle::new(corners.clone(), color.filled()));
                    if cell.violate > 0 {
                        marks.push(Rectangle::new(corners, VIOLATION_COLOR.stroke_width(2)));
                    }
                }
            }
            chart.draw_series(rects).map_err(chart_error)?;
            chart.draw_series(marks).map_err(chart_error)?;
            Ok(())
        };
        let has_distance = |c: &crate::judge::map::Cell| c.lines > c.nan;
        panel(&left, "largest", &|c| {
            has_distance(c).then_some(c.max as f64)
        })?;
        panel(&right, "mean", &|c| c.mean())?;
        root.present().map_err(chart_error)?;
    }
    let color = |y: f64| {
        let c = heat(y, top);
        [c.0, c.1, c.2]
    };
    svg.push_str(&legend::heat_legend(&legend::Legend {
        title: "Colour: ULPs from the correctly rounded result (log scale above 1; \
                grey bar: the largest allowed reach)",
        width: 900,
        top,
        color: &color,
        keys: &[("NaN", [NAN_COLOR.0, NAN_COLOR.1, NAN_COLOR.2])],
        reach,
    }));
    Ok(svg)
}

/// A histogram of counts by labelled bucket, the counts on a logarithmic axis.
pub fn histogram(title: &str, buckets: &[(String, u64)], x_desc: &str) -> std::io::Result<String> {
    let top = buckets.iter().map(|b| b.1).max().unwrap_or(1).max(1);
    let y_max = (top as f64).log10().ceil().max(1.0) + 0.2;
    // At least eight slots, so that one or two buckets do not fill the chart.
    let n = buckets.len().max(8) as u32;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (900, 320)).into_drawing_area();
        root.fill(&WHITE).map_err(chart_error)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(46)
            .y_label_area_size(56)
            .build_cartesian_2d((0..n).into_segmented(), 0f64..y_max)
            .map_err(chart_error)?;
        chart
            .configure_mesh()
            .label_style(("sans-serif", 12))
            .axis_desc_style(("sans-serif", 13))
            .disable_x_mesh()
            .light_line_style(WHITE)
            // Every bucket labelled while they fit; every other one beyond.
            .x_labels(if n > 20 { n as usize / 2 } else { n as usize })
            .x_label_formatter(&|v| match v {
                SegmentValue::CenterOf(i) => buckets
                    .get(*i as usize)
                    .map(|b| b.0.clone())
                    .unwrap_or_default(),
                _ => String::new(),
            })
            .y_label_formatter(&|y| {
                if (y - y.round()).abs() < 1e-6 {
                    format!("10^{}", y.round() as i64)
                } else {
                    String::new()
                }
            })
            .x_desc(x_desc)
            .y_desc("count (log scale)")
            .draw()
            .map_err(chart_error)?;
        chart
            .draw_series(
                buckets
                    .iter()
                    .enumerate()
                    .filter(|(_, b)| b.1 > 0)
                    .map(|(i, b)| {
                        // A count of one still shows: the bar starts below 10^0.
                        let h = (b.1 as f64).log10() + 0.15;
                        Rectangle::new(
                            [
                                (SegmentValue::Exact(i as u32), 0.0),
                                (SegmentValue::Exact(i as u32 + 1), h),
                            ],
                            MAX_COLOR.mix(0.85).filled(),
                        )
                    }),
            )
            .map_err(chart_error)?;
        root.present().map_err(chart_error)?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_is_labelled_once_where_both_signs_meet() {
        use crate::d3d::{Op, RuleSet};
        use crate::format::F32;
        let judge = crate::judge::Judge::new(Op::Rsq, F32, RuleSet::D3D11);
        let map = ErrorMap::for_judge(&judge);
        let axis = map.axes[0];
        let all = axis_labels(&axis, 0, axis.cells - 1, 32);
        let zeros: Vec<_> = all.iter().filter(|(_, l)| l == "0").collect();
        assert_eq!(zeros.len(), 1, "{all:?}");
        // The positive side's zero cell carries it; -1, 1, -inf and inf are there too.
        assert_eq!(axis.fields_of(zeros[0].0), (false, 0, 0));
        for want in ["-inf", "-1", "1", "inf"] {
            assert!(all.iter().any(|(_, l)| l == want), "{want}: {all:?}");
        }
        // No two neighbouring cells share a label anywhere on the axis.
        assert!(
            all.windows(2)
                .all(|w| w[0].0 + 1 < w[1].0 || w[0].1 != w[1].1)
        );
    }

    #[test]
    fn heat_runs_from_pale_to_dark() {
        assert_eq!(heat(0.0, 4.0), RGBColor(255, 255, 204));
        assert_eq!(heat(4.0, 4.0), RGBColor(63, 0, 90));
    }

    #[test]
    fn gaps_split_the_lines() {
        let r = runs(
            [
                Some((0.0, 1.0)),
                None,
                None,
                Some((3.0, 1.0)),
                Some((4.0, 2.0)),
            ]
            .into_iter(),
        );
        assert_eq!(r.len(), 2);
        assert_eq!(r[1].len(), 2);
    }
}
