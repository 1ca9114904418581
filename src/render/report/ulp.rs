//! The page of `ulp-diff --files A B --report`: the summary, the histogram of distances,
//! and, when the buffers are pictures (DDS, EXR, HDR, or raw with `--width`), a heat map of
//! the distance per pixel beside both pictures tone-mapped.

use base64::Engine as _;

use super::{Meta, Page, count, escape, legend, plot};
use crate::format::Format;
use crate::ulp::images::Picture;
use crate::ulp::summary::{HISTOGRAM_BUCKETS, bucket_range};
use crate::ulp::{DiffOptions, Summary};

/// What the ulp-diff page shows.
pub struct UlpPage<'a> {
    /// The expected file, as named.
    pub expected: &'a str,
    /// The actual file, as named.
    pub actual: &'a str,
    /// What the files hold (`f32`, `DDS R16G16B16A16_FLOAT`, ...).
    pub holds: String,
    /// The element format compared.
    pub format: Format,
    /// Whether f32 subnormals counted as zero.
    pub opts: DiffOptions,
    /// Elements compared (a packed word counts one).
    pub elements: u64,
    /// The totals.
    pub summary: &'a Summary,
    /// The pictures, when the buffers are images.
    pub picture: Option<Picture>,
}

/// The whole page.
pub fn ulp_page(u: &UlpPage, meta: &Meta) -> std::io::Result<String> {
    let mut page = Page::new("d3dfloat ulp-diff: buffers compared", meta);
    let s = u.summary;
    let mean = s.mean_abs().map_or("-".into(), |m| format!("{m:.4}"));
    let verdict = match s.limit {
        None => "no --max given".to_string(),
        Some(l) if s.failed() => format!(
            "<span class=\"bad\">fails --max {l}</span> ({} over it, {} NaN)",
            count(s.over_limit),
            count(s.nans())
        ),
        Some(l) => format!("<span class=\"ok\">within --max {l}</span>"),
    };
    let mut facts = vec![
        ("Expected", format!("<code>{}</code>", escape(u.expected))),
        ("Actual", format!("<code>{}</code>", escape(u.actual))),
        ("Holding", escape(&u.holds)),
    ];
    if u.format == Format::Float(crate::format::F32) {
        facts.push((
            "f32 subnormals",
            if u.opts.flush_subnormals {
                "count as zero (D3D arithmetic flushes them)".into()
            } else {
                "count as values (--no-flush)".into()
            },
        ));
    }
    page.facts(&facts);
    page.raw(&format!(
        "<table class=\"summary\" data-elements=\"{}\" data-compared=\"{}\" data-max=\"{}\" \
         data-nan=\"{}\" data-over-limit=\"{}\"><tr><th>elements</th><th>comparisons</th>\
         <th>max |ULPs|</th><th>mean |ULPs|</th><th>NaN involved</th><th>verdict</th></tr>\
         <tr><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
         <td class=\"n\">{mean}</td><td class=\"n\">{}</td><td>{verdict}</td></tr></table>\n",
        u.elements,
        s.compared,
        s.max_abs,
        s.nans(),
        s.over_limit,
        count(u.elements),
        count(s.compared),
        count(s.max_abs),
        count(s.nans()),
    ));
    if !s.worst.is_empty() {
        let mut html = String::from(
            "<table class=\"worst\"><tr><th>element</th><th>channel</th><th>expected</th>\
             <th>actual</th><th>ULPs</th></tr>",
        );
        for w in &s.worst {
            html.push_str(&format!(
                "<tr><td class=\"n\">{}</td><td>{}</td><td><code>0x{:x}</code></td>\
                 <td><code>0x{:x}</code></td><td class=\"n\">{}</td></tr>",
                w.index,
                w.channel.map_or("-".into(), |c| c.to_string()),
                w.a,
                w.b,
                w.distance.map_or("NaN".into(), |d| d.to_string())
            ));
        }
        html.push_str("</table>\n");
        page.raw(&html);
    }
    let buckets = histogram_buckets(s);
    let svg = plot::histogram(
        "comparisons by |distance|",
        &buckets,
        &format!("|ULPs| of {}", u.format.name()),
    )?;
    page.figure(
        "histogram",
        &svg,
        buckets.iter().filter(|b| b.1 > 0).count(),
        "Comparisons by their distance in ULPs (a packed word's channels one by one), in \
         powers of two; NaN: a NaN on one side or both.",
    );
    if let Some(p) = &u.picture {
        pictures(&mut page, p)?;
    }
    Ok(page.finish())
}

/// The summary's buckets with labels: `0`, `1`, `2`, `3-4`, ... up to the last non-empty,
/// then `NaN`.
fn histogram_buckets(s: &Summary) -> Vec<(String, u64)> {
    let last = s.histogram.iter().rposition(|&c| c > 0).unwrap_or(0);
    let mut out: Vec<(String, u64)> = (0..=last.min(HISTOGRAM_BUCKETS - 1))
        .map(|k| {
            let (lo, hi) = bucket_range(k);
            let label = if lo == hi {
                lo.to_string()
            } else if hi < 1 << 12 {
                format!("{lo}-{hi}")
            } else {
                format!("≤2^{}", 127 - hi.leading_zeros())
            };
            (label, s.histogram[k])
        })
        .collect();
    if s.nans() > 0 {
        out.push(("NaN".into(), s.nans()));
    }
    out
}

fn png(width: usize, height: usize, rgb: &[[u8; 3]]) -> std::io::Result<String> {
    let mut bytes = Vec::new();
    let flat: Vec<u8> = rgb.iter().flatten().copied().collect();
    use image::ImageEncoder as _;
    image::codecs::png::PngEncoder::new(&mut bytes)
        .write_image(
            &flat,
            width as u32,
            height as u32,
            image::ExtendedColorType::Rgb8,
        )
        .map_err(|e| std::io::Error::other(format!("encoding a picture: {e}")))?;
    Ok(base64::engine::general_purpose::STANDARD.encode(bytes))
}

/// The heat map's colour of a distance, `top` the legend's top ([`legend::heat_top`] of
/// the largest distance in the picture): by its position on [`scale`](super::scale::scale), so by log2 of
/// the distance above 1 ULP.
fn heat_color(d: Option<u64>, top: f64) -> [u8; 3] {
    match d {
        None => NAN_COLOR,
        Some(d) => ramp(super::scale::scale(d as f64), top),
    }
}

/// Where a NaN is involved.
const NAN_COLOR: [u8; 3] = [0, 160, 255];

/// The colour of a position on the scale: black for equal (0), then dark red through
/// orange to white at `top`. Every channel rises with the position, so brightness does.
fn ramp(y: f64, top: f64) -> [u8; 3] {
    if y <= 0.0 {
        return [0, 0, 0];
    }
    let t = (y / top).clamp(0.0, 1.0);
    let r = (80.0 + 175.0 * (t * 2.0).min(1.0)) as u8;
    let g = (255.0 * (t * 2.0 - 0.6).clamp(0.0, 1.0)) as u8;
    let b = (255.0 * (t * 2.5 - 1.5).clamp(0.0, 1.0)) as u8;
    [r, g, b]
}

fn pictures(page: &mut Page, p: &Picture) -> std::io::Result<()> {
    let largest = p.heat.iter().flatten().copied().max().unwrap_or(0);
    let top = legend::heat_top(largest as f64);
    let heat: Vec<[u8; 3]> = p.heat.iter().map(|&d| heat_color(d, top)).collect();
    let differing = p.heat.iter().filter(|d| **d != Some(0)).count();
    let figure = |class: &str, rgb: &[[u8; 3]], caption: &str, points: usize, legend: &str| {
        png(p.width, p.height, rgb).map(|data| {
            format!(
                "<figure class=\"{class}\" data-points=\"{points}\"><img alt=\"{}\" width=\"{}\" \
                 height=\"{}\" src=\"data:image/png;base64,{data}\">{legend}<figcaption>{}\
                 </figcaption></figure>",
                escape(caption),
                p.width,
                p.height,
                escape(caption)
            )
        })
    };
    let color = |y: f64| ramp(y, top);
    let key = legend::heat_legend(&legend::Legend {
        title: "|ULPs| per pixel, log scale",
        width: 380,
        top,
        color: &color,
        keys: &[("equal", [0, 0, 0]), ("NaN", NAN_COLOR)],
        reach: None,
    });
    let scale = if p.block > 1 {
        format!(
            " ({}x{} pixels, each shown pixel a block of {}x{})",
            p.source.0, p.source.1, p.block, p.block
        )
    } else {
        format!(" ({}x{} pixels)", p.source.0, p.source.1)
    };
    page.heading(2, "pictures", "Where the differences are");
    page.raw("<div class=\"pictures\">");
    page.raw(&figure(
        "heatmap",
        &heat,
        &format!(
            "Distance per pixel{scale}: black equal, dark red to white up to {largest} \
             ULPs (colour by log2 of the distance), blue NaN"
        ),
        differing,
        &key,
    )?);
    page.raw(&figure(
        "preview",
        &p.expected,
        "Expected, tone-mapped",
        p.expected.len(),
        "",
    )?);
    page.raw(&figure(
        "preview",
        &p.actual,
        "Actual, tone-mapped",
        p.actual.len(),
        "",
    )?);
    page.raw("</div>\n");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heat_colours_tell_equal_different_and_nan_apart() {
        let top = legend::heat_top(10.0);
        assert_eq!(top, 5.0);
        assert_eq!(heat_color(Some(0), top), [0, 0, 0]);
        assert_eq!(heat_color(None, top), [0, 160, 255]);
        assert_eq!(heat_color(Some(16), top), [255, 255, 255]);
        assert_ne!(heat_color(Some(1), top), [0, 0, 0]);
    }

    #[test]
    fn brightness_rises_with_log_distance() {
        // Every power of two up to 2^20 brighter than the one before (Rec. 709 weights).
        let top = legend::heat_top((1u64 << 20) as f64);
        let luma = |c: [u8; 3]| 0.2126 * c[0] as f64 + 0.7152 * c[1] as f64 + 0.0722 * c[2] as f64;
        let mut last = -1.0;
        for d in std::iter::once(0).chain((0..=20).map(|k| 1u64 << k)) {
            let l = luma(heat_color(Some(d), top));
            assert!(l > last, "{d} ULPs: {l} after {last}");
            last = l;
        }
    }
}
