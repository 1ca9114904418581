//! The colour legend of a heat map: a horizontal bar of swatches from distance 0 to the
//! map's top, ticks at powers of two, and keys for the colours that are not distances (a
//! NaN, an equal pixel). Written as plain SVG, not through plotters, so that every tick and
//! swatch carries its value in a `data-` field: the browser test reads them back and holds
//! the cells' colours to them. No script and no gradient reference (`url(#...)`): the
//! swatches are plain filled rectangles, which any viewer draws the same.
//!
//! Colour is a function of the distance's position on [`scale`]: linear from 0 to
//! 1 ULP, `1 + log2(d)` above, so that 1, 2, 4, ... 2^k ULPs fall evenly along the bar and
//! a map of distances from 1 to 2^20 uses its whole palette instead of one dark corner.

use std::fmt::Write as _;

use super::escape;
use super::scale::scale;

/// The top of a heat map's scale for distances up to `largest` ULPs: the position of the
/// first power of two at or above it (at least 1 ULP), so that the bar ends on a tick.
pub fn heat_top(largest: f64) -> f64 {
    scale(largest).ceil().max(1.0)
}

/// The positions on the scale that a legend of `0..=top` labels: 0, 1 ULP, then every
/// power of two while at most `room` of them fit, else every 2nd, 4th, ... one, and
/// always the top.
pub fn tick_positions(top: f64, room: usize) -> Vec<f64> {
    let top = top.round().max(1.0) as i64;
    let room = room.max(1) as i64;
    let mut step = 1;
    while (top - 1) / step > room {
        step *= 2;
    }
    let mut out: Vec<i64> = (1..=top).step_by(step as usize).collect();
    out.insert(0, 0);
    if *out.last().expect("1 is there") != top {
        // The top replaces a tick too close below it to keep both labels apart.
        if top - out[out.len() - 1] < (step + 1) / 2 && out.len() > 2 {
            out.pop();
        }
        out.push(top);
    }
    out.into_iter().map(|y| y as f64).collect()
}

/// The distance in ULPs at a whole position of the scale (0, 1, 2, 4, ...).
pub fn ulps_at(position: f64) -> u128 {
    match position.round() as u32 {
        0 => 0,
        k => 1u128 << (k - 1).min(127),
    }
}

/// A tick's label: the distance as digits up to 1024, as a power of two above.
fn tick_label(position: f64) -> String {
    match position.round() as u32 {
        0 => "0".into(),
        k if k <= 11 => (1u32 << (k - 1)).to_string(),
        k => format!("2^{}", k - 1),
    }
}

/// `#RRGGBB`, as plotters writes its fills.
pub fn hex(c: [u8; 3]) -> String {
    format!("#{:02X}{:02X}{:02X}", c[0], c[1], c[2])
}

/// What a legend shows.
pub struct Legend<'a> {
    /// The line above the bar.
    pub title: &'a str,
    /// Width in pixels (the SVG scales down with the page).
    pub width: u32,
    /// The scale position of the bar's right end ([`heat_top`]).
    pub top: f64,
    /// The colour of a position on the scale.
    pub color: &'a dyn Fn(f64) -> [u8; 3],
    /// Colours that are not distances, with their names, as swatches after the bar.
    pub keys: &'a [(&'a str, [u8; 3])],
    /// The largest distance the rules allow, drawn across the bar.
    pub reach: Option<u64>,
}

/// Swatches along the bar: enough that neighbours differ by less than the eye tells apart.
const SWATCHES: usize = 64;

/// The legend as one `<svg class="heat-legend">`: each swatch `<rect class="swatch"
/// data-position>`, each tick `<g class="tick" data-position data-ulps data-color>` (the
/// colour a distance of exactly that many ULPs gets), each key `<g class="key"
/// data-key data-color>`, and the allowed reach `<g class="reach" data-ulps>`.
pub fn heat_legend(l: &Legend) -> String {
    const HEIGHT: u32 = 64;
    const BAR_Y: u32 = 22;
    const BAR_H: u32 = 16;
    let keys_w = 74 * l.keys.len() as u32;
    let (x0, x1) = (16.0, (l.width.saturating_sub(24 + keys_w)).max(64) as f64);
    let x_of = |y: f64| x0 + (x1 - x0) * (y / l.top).clamp(0.0, 1.0);
    // A label ("2^12") every 48 pixels at least.
    let room = ((x1 - x0) / 48.0) as usize;
    let mut s = String::new();
    let _ = write!(
        s,
        "<svg class=\"heat-legend\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" \
         height=\"{HEIGHT}\" viewBox=\"0 0 {w} {HEIGHT}\" font-family=\"sans-serif\" \
         font-size=\"12\" data-top=\"{top}\"><text x=\"{x0}\" y=\"14\" font-size=\"13\">{t}\
         </text>",
        w = l.width,
        top = l.top,
        t = escape(l.title)
    );
    let width = (x1 - x0) / SWATCHES as f64;
    for i in 0..SWATCHES {
        let (a, b) = (
            l.top * i as f64 / SWATCHES as f64,
            l.top * (i + 1) as f64 / SWATCHES as f64,
        );
        let mid = (a + b) / 2.0;
        // A pixel wider than the step, under the next one: the edges fall between pixels,
        // and without the overlap the page's white shows through the blended edge.
        let _ = write!(
            s,
            "<rect class=\"swatch\" data-position=\"{mid}\" x=\"{:.2}\" y=\"{BAR_Y}\" \
             width=\"{:.2}\" height=\"{BAR_H}\" fill=\"{}\" stroke=\"none\" \
             shape-rendering=\"crispEdges\"/>",
            x_of(a),
            width + if i + 1 < SWATCHES { 1.0 } else { 0.0 },
            hex((l.color)(mid))
        );
    }
    let _ = write!(
        s,
        "<rect x=\"{x0}\" y=\"{BAR_Y}\" width=\"{:.2}\" height=\"{BAR_H}\" fill=\"none\" \
         stroke=\"#777777\"/>",
        x1 - x0
    );
    let below = BAR_Y + BAR_H;
    for y in tick_positions(l.top, room) {
        let x = x_of(y);
        let _ = write!(
            s,
            "<g class=\"tick\" data-position=\"{y}\" data-ulps=\"{}\" data-color=\"{}\">\
             <line x1=\"{x:.2}\" y1=\"{below}\" x2=\"{x:.2}\" y2=\"{}\" stroke=\"#000000\"/>\
             <text x=\"{x:.2}\" y=\"{}\" text-anchor=\"middle\">{}</text></g>",
            ulps_at(y),
            hex((l.color)(y)),
            below + 5,
            below + 18,
            tick_label(y)
        );
    }
    if let Some(reach) = l.reach {
        let x = x_of(scale(reach as f64));
        let _ = write!(
            s,
            "<g class=\"reach\" data-ulps=\"{reach}\"><line x1=\"{x:.2}\" y1=\"{}\" \
             x2=\"{x:.2}\" y2=\"{}\" stroke=\"#5A5A5A\" stroke-width=\"3\"/></g>",
            BAR_Y - 4,
            below + 4
        );
    }
    let mut kx = x1 + 24.0;
    for (name, color) in l.keys {
        let _ = write!(
            s,
            "<g class=\"key\" data-key=\"{k}\" data-color=\"{c}\"><rect x=\"{kx:.2}\" \
             y=\"{BAR_Y}\" width=\"{BAR_H}\" height=\"{BAR_H}\" fill=\"{c}\" \
             stroke=\"#777777\"/><text x=\"{:.2}\" y=\"{}\">{k}</text></g>",
            kx + BAR_H as f64 + 5.0,
            BAR_Y + 12,
            k = escape(name),
            c = hex(*color)
        );
        kx += 74.0;
    }
    s.push_str("</svg>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_top_is_the_power_of_two_at_or_above_the_largest() {
        assert_eq!(heat_top(0.0), 1.0);
        assert_eq!(heat_top(1.0), 1.0);
        assert_eq!(heat_top(2.0), 2.0);
        assert_eq!(heat_top(3.0), 3.0);
        assert_eq!(heat_top(512.0), 10.0);
        assert_eq!(heat_top(513.0), 11.0);
        assert_eq!(ulps_at(heat_top(513.0)), 1024);
    }

    #[test]
    fn ticks_fall_on_powers_of_two_and_end_at_the_top() {
        let labels = |top: f64, room: usize| -> Vec<u128> {
            tick_positions(top, room).into_iter().map(ulps_at).collect()
        };
        assert_eq!(labels(1.0, 8), [0, 1]);
        assert_eq!(labels(4.0, 8), [0, 1, 2, 4, 8]);
        assert_eq!(labels(9.0, 8), [0, 1, 2, 4, 8, 16, 32, 64, 128, 256]);
        // One more than fits: every other power, and the top.
        assert_eq!(labels(10.0, 8), [0, 1, 4, 16, 64, 256, 512]);
        // 2^20 in room for five: every fourth power.
        assert_eq!(labels(21.0, 5), [0, 1, 16, 256, 1 << 12, 1 << 16, 1 << 20]);
        // 2^30 in room for eight: every fourth power up to 2^28, then the top, two
        // positions on.
        assert_eq!(
            labels(31.0, 8),
            [
                0,
                1,
                16,
                256,
                1 << 12,
                1 << 16,
                1 << 20,
                1 << 24,
                1 << 28,
                1 << 30
            ]
        );
        // 2^29 is one position past 2^28: too close, so the top takes its place.
        assert_eq!(
            labels(30.0, 8),
            [0, 1, 16, 256, 1 << 12, 1 << 16, 1 << 20, 1 << 24, 1 << 29]
        );
        // No room at all still labels 0, 1 and the top.
        assert_eq!(labels(21.0, 0), [0, 1, 1 << 20]);
        assert_eq!(tick_label(11.0), "1024");
        assert_eq!(tick_label(12.0), "2^11");
    }

    #[test]
    fn the_legend_carries_its_ticks_and_colours() {
        let color = |y: f64| [(y * 20.0) as u8, 0, 0];
        let svg = heat_legend(&Legend {
            title: "ULPs <log>",
            width: 600,
            top: 4.0,
            color: &color,
            keys: &[("NaN", [0, 160, 255])],
            reach: Some(2),
        });
        assert!(svg.starts_with("<svg class=\"heat-legend\""));
        assert!(svg.contains("ULPs &lt;log&gt;"));
        assert_eq!(svg.matches("class=\"swatch\"").count(), SWATCHES);
        assert_eq!(svg.matches("class=\"tick\"").count(), 5);
        assert!(svg.contains("data-ulps=\"8\" data-color=\"#500000\""));
        assert!(svg.contains("data-key=\"NaN\" data-color=\"#00A0FF\""));
        assert!(svg.contains("<g class=\"reach\" data-ulps=\"2\">"));
        assert!(!svg.contains("<script") && !svg.contains("url("));
    }
}
