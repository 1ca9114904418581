//! `--report FILE.html` opened in a real browser: Debian's Chromium, headless, which
//! `scripts/install-chromium.sh` installs (the README's test command runs it). Each kind of
//! report (a sampled probe, an exhaustive sweep, a buffer verdict, a buffer comparison of
//! raw, DDS, EXR and HDR files) is made by the command line with `--json` in the same run;
//! the browser's DOM must hold the charts with as many data points as the page claims, the
//! screenshot must show something, no request may leave the page, and the page's numbers
//! must be the JSON's. Without Chromium these tests fail, naming the script: a browser test
//! that silently tested nothing would prove nothing.

use std::io::Read;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

use assert_cmd::cargo::CommandCargoExt;
use serde_json::Value;

const INSTALL: &str = "no Chromium for the report tests: install it with \
`bash scripts/install-chromium.sh` (Debian: apt-get install chromium), or name one in \
D3DFLOAT_CHROMIUM";

fn chromium() -> PathBuf {
    if let Some(p) = std::env::var_os("D3DFLOAT_CHROMIUM") {
        return PathBuf::from(p);
    }
    for p in ["/usr/bin/chromium", "/usr/bin/chromium-browser"] {
        if Path::new(p).exists() {
            return PathBuf::from(p);
        }
    }
    panic!("{INSTALL}");
}

fn d3dfloat() -> Command {
    let mut c = Command::cargo_bin("d3dfloat").unwrap();
    c.env("NO_COLOR", "1")
        .env_remove("D3DFLOAT_TEST_WRONG_SHADER")
        .env("D3DFLOAT_TEST_FAKE_DEVICE", "no-flush");
    c
}

/// Runs a command that writes a report and JSON; returns the JSON lines.
fn run_json(c: &mut Command, ok_codes: &[i32]) -> Vec<Value> {
    let out = c.arg("--json").output().unwrap();
    let code = out.status.code().unwrap_or(-1);
    assert!(
        ok_codes.contains(&code),
        "exit {code}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// What the browser made of a page.
struct Rendered {
    dom: String,
    screenshot: image::RgbImage,
    /// The hosts of the requests the page made (through the proxy every request is sent
    /// to), the browser's own background services left out.
    requests: Vec<String>,
}

/// Hosts Chromium itself talks to in the background whatever the page (its component
/// updater and account services, which no flag of Chromium 156 turns off): requests to
/// them are the browser's, not the page's. Every other request is counted.
const BROWSER_OWN: &[&str] = &[
    "update.googleapis.com",
    "accounts.google.com",
    "clients2.google.com",
    "optimizationguide-pa.googleapis.com",
    "redirector.gvt1.com",
];

/// The host a proxied request names (`CONNECT host:443` or `GET http://host/...`).
fn requested_host(first_line: &str) -> String {
    let target = first_line.split_whitespace().nth(1).unwrap_or("");
    let target = target
        .strip_prefix("http://")
        .or_else(|| target.strip_prefix("https://"))
        .unwrap_or(target);
    let host_port = target.split('/').next().unwrap_or("");
    host_port
        .rsplit_once(':')
        .map_or(host_port, |(h, _)| h)
        .to_string()
}

/// A local proxy that records the host of every request: Chromium sends every request
/// there, so a page that fetches anything is seen.
fn recording_proxy() -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let hosts = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&hosts);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(2)));
            let mut buf = [0u8; 512];
            let n = stream.read(&mut buf).unwrap_or(0);
            let line = String::from_utf8_lossy(&buf[..n]);
            let host = requested_host(line.lines().next().unwrap_or(""));
            seen.lock().unwrap().push(host);
            // Answer nothing; closing the connection fails the request.
        }
    });
    (addr, hosts)
}

fn browser(profile: &Path, proxy: &str) -> Command {
    let mut c = Command::new(chromium());
    c.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        "--window-size=1000,1400",
    ])
    .arg(format!("--user-data-dir={}", profile.display()))
    .arg(format!("--proxy-server=http://{proxy}"))
    // Loopback too goes through the proxy.
    .arg("--proxy-bypass-list=<-loopback>");
    c
}

fn render(page: &Path) -> Rendered {
    let dir = page.parent().unwrap();
    let (proxy, hosts) = recording_proxy();
    let url = format!("file://{}", page.canonicalize().unwrap().display());
    let dom = browser(&dir.join("profile-dom"), &proxy)
        .arg("--dump-dom")
        .arg(&url)
        .output()
        .unwrap();
    assert!(dom.status.success(), "chromium --dump-dom failed");
    let shot = dir.join(format!(
        "{}.png",
        page.file_stem().unwrap().to_string_lossy()
    ));
    let status = browser(&dir.join("profile-shot"), &proxy)
        .arg(format!("--screenshot={}", shot.display()))
        .arg(&url)
        .output()
        .unwrap();
    assert!(status.status.success(), "chromium --screenshot failed");
    let screenshot = image::open(&shot).unwrap().to_rgb8();
    Rendered {
        dom: String::from_utf8(dom.stdout).unwrap(),
        screenshot,
        requests: hosts
            .lock()
            .unwrap()
            .iter()
            .filter(|h| !BROWSER_OWN.contains(&h.as_str()))
            .cloned()
            .collect(),
    }
}

/// Every `<tag ...>` opening tag in `html` (its attribute text).
fn tags<'a>(html: &'a str, tag: &str) -> Vec<&'a str> {
    let open = format!("<{tag} ");
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find(&open) {
        let t = &rest[i + open.len()..];
        let end = t.find('>').unwrap();
        out.push(&t[..end]);
        rest = &t[end..];
    }
    out
}

fn attr(tag: &str, name: &str) -> Option<String> {
    let key = format!(" {name}=\"");
    let i = format!(" {tag}").find(&key)? + key.len() - 1;
    let raw = &tag[i..i + tag[i..].find('"')?];
    Some(
        raw.replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&#39;", "'")
            .replace("&amp;", "&"),
    )
}

/// Each `<figure>` of the DOM: its class, its claimed points and its inner HTML.
fn figures(dom: &str) -> Vec<(String, usize, String)> {
    let mut out = Vec::new();
    let mut rest = dom;
    while let Some(i) = rest.find("<figure ") {
        let t = &rest[i..];
        let head_end = t.find('>').unwrap();
        let head = &t[..head_end];
        let end = t.find("</figure>").unwrap();
        out.push((
            attr(head, "class").unwrap().to_string(),
            attr(head, "data-points").unwrap().parse().unwrap(),
            t[head_end..end].to_string(),
        ));
        rest = &t[end..];
    }
    out
}

fn polyline_points(tag: &str) -> usize {
    attr(tag, "points").unwrap().split_whitespace().count()
}

fn is_color(tag: &str, key: &str, hex: &str) -> bool {
    attr(tag, key).is_some_and(|v| v.eq_ignore_ascii_case(hex))
}

fn png_of(img_tag: &str) -> image::RgbImage {
    use base64::Engine as _;
    let src = attr(img_tag, "src").unwrap();
    let data = src.strip_prefix("data:image/png;base64,").unwrap();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data)
        .unwrap();
    image::load_from_memory_with_format(&bytes, image::ImageFormat::Png)
        .unwrap()
        .to_rgb8()
}

/// The checks every page passes: it rendered, drew what it claims, fetched nothing.
fn check_page(page: &Path) -> Rendered {
    let html = std::fs::read_to_string(page).unwrap();
    // Nothing to fetch: every src is inline, every link an anchor in the page.
    for t in tags(&html, "img") {
        assert!(
            attr(t, "src")
                .unwrap()
                .starts_with("data:image/png;base64,")
        );
    }
    for t in tags(&html, "a") {
        assert!(attr(t, "href").unwrap().starts_with('#'), "{t}");
    }
    assert!(!html.contains("<script") && !html.contains("<link"));
    let r = render(page);
    assert!(
        r.requests.is_empty(),
        "{}: the page made requests to {:?}",
        page.display(),
        r.requests
    );
    assert!(r.dom.contains("</html>"));
    let figures = figures(&r.dom);
    assert!(!figures.is_empty(), "no chart in {}", page.display());
    for (class, points, inner) in &figures {
        match class.as_str() {
            // One polyline point of the largest distance per cell with a distance.
            "error-by-binade" => {
                let drawn: usize = tags(inner, "polyline")
                    .iter()
                    .filter(|t| is_color(t, "stroke", "#1F77B4"))
                    .map(|t| polyline_points(t))
                    .sum();
                assert_eq!(drawn, *points, "{class}");
                assert!(*points > 0);
            }
            // A cell in each of the two panels per cell with lines; the legend, pale to
            // dark, after the chart.
            "error-map" => {
                let (chart, _) = inner.split_once("<svg class=\"heat-legend\"").unwrap();
                let drawn = tags(chart, "rect")
                    .iter()
                    .filter(|t| !is_color(t, "fill", "#FFFFFF") && is_color(t, "stroke", "none"))
                    .count();
                assert_eq!(drawn, 2 * points, "{class}");
                legend(inner, Brightness::Falls);
            }
            "histogram" => {
                let drawn = tags(inner, "rect")
                    .iter()
                    .filter(|t| is_color(t, "fill", "#1F77B4"))
                    .count();
                assert_eq!(drawn, *points, "{class}");
            }
            // The heat map's non-black pixels are the pixels that differ.
            "heatmap" => {
                let img = png_of(tags(inner, "img")[0]);
                let differing = img.pixels().filter(|p| p.0 != [0, 0, 0]).count();
                assert_eq!(differing, *points, "{class}");
                legend(inner, Brightness::Rises);
            }
            "preview" => {
                let img = png_of(tags(inner, "img")[0]);
                assert_eq!((img.width() * img.height()) as usize, *points);
            }
            other => panic!("unknown figure {other}"),
        }
    }
    // The screenshot is not blank: many colours, and more than a margin of non-white.
    let s = &r.screenshot;
    let ink = s.pixels().filter(|p| p.0 != [255, 255, 255]).count();
    let colours: std::collections::HashSet<[u8; 3]> = s.pixels().map(|p| p.0).collect();
    assert!(ink * 20 > s.pixels().len(), "screenshot nearly blank");
    assert!(
        colours.len() > 32,
        "screenshot has {} colours",
        colours.len()
    );
    r
}

/// Which way a heat map's palette runs as the distance grows.
#[derive(Clone, Copy, Debug)]
enum Brightness {
    Rises,
    Falls,
}

/// Rec. 709 luma of a colour.
fn luma(c: [u8; 3]) -> f64 {
    0.2126 * c[0] as f64 + 0.7152 * c[1] as f64 + 0.0722 * c[2] as f64
}

fn parse_hex(hex: &str) -> [u8; 3] {
    let h = hex.strip_prefix('#').unwrap();
    assert_eq!(h.len(), 6, "{hex}");
    [0, 2, 4].map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap())
}

/// The heat map legend in a figure's HTML, checked: ticks at 0, 1 ULP and rising powers
/// of two, the last at the bar's top; the swatches' brightness monotone along the bar and
/// the ticks' colours strictly so, in the palette's direction. Returns the ticks as (ULPs,
/// colour).
fn legend(figure: &str, way: Brightness) -> Vec<(u128, [u8; 3])> {
    let start = figure
        .find("<svg class=\"heat-legend\"")
        .expect("a heat map without its legend");
    let svg = &figure[start..start + figure[start..].find("</svg>").unwrap()];
    let top: f64 = attr(tags(svg, "svg")[0], "data-top")
        .unwrap()
        .parse()
        .unwrap();
    let ordered = |values: &[f64], strict: bool| {
        values.windows(2).all(|w| match (way, strict) {
            (Brightness::Rises, true) => w[1] > w[0],
            (Brightness::Rises, false) => w[1] >= w[0],
            (Brightness::Falls, true) => w[1] < w[0],
            (Brightness::Falls, false) => w[1] <= w[0],
        })
    };
    let swatches: Vec<(f64, f64)> = tags(svg, "rect")
        .into_iter()
        .filter(|t| attr(t, "class").as_deref() == Some("swatch"))
        .map(|t| {
            (
                attr(t, "data-position").unwrap().parse().unwrap(),
                luma(parse_hex(&attr(t, "fill").unwrap())),
            )
        })
        .collect();
    assert!(swatches.len() >= 32, "{} swatches", swatches.len());
    assert!(swatches.windows(2).all(|w| w[1].0 > w[0].0));
    let lumas: Vec<f64> = swatches.iter().map(|s| s.1).collect();
    assert!(ordered(&lumas, false), "swatches not {way:?}: {lumas:?}");
    let ticks: Vec<(f64, u128, String)> = tags(svg, "g")
        .into_iter()
        .filter(|t| attr(t, "class").as_deref() == Some("tick"))
        .map(|t| {
            (
                attr(t, "data-position").unwrap().parse().unwrap(),
                attr(t, "data-ulps").unwrap().parse().unwrap(),
                attr(t, "data-color").unwrap(),
            )
        })
        .collect();
    // Each tick's label, as drawn.
    let labels: Vec<String> = svg
        .split("<g class=\"tick\"")
        .skip(1)
        .map(|g| {
            let text = &g[g.find("<text").unwrap()..];
            text[text.find('>').unwrap() + 1..text.find("</text>").unwrap()].to_string()
        })
        .collect();
    assert_eq!(labels.len(), ticks.len());
    assert!(ticks.len() >= 2, "{ticks:?}");
    assert_eq!((ticks[0].0, ticks[0].1), (0.0, 0));
    assert_eq!((ticks[1].0, ticks[1].1), (1.0, 1));
    assert_eq!(ticks.last().unwrap().0, top);
    for ((position, ulps, _), label) in ticks.iter().zip(&labels) {
        // Position p is 2^(p-1) ULPs: powers of two evenly spaced (log scale).
        if *position > 0.0 {
            assert_eq!(*ulps, 1u128 << (*position as u32 - 1));
            assert!(ulps.is_power_of_two());
        }
        let shown = if *ulps > 1024 {
            format!("2^{}", ulps.trailing_zeros())
        } else {
            ulps.to_string()
        };
        assert_eq!(*label, shown);
    }
    assert!(ticks.windows(2).all(|w| w[1].1 > w[0].1));
    let tick_lumas: Vec<f64> = ticks.iter().map(|t| luma(parse_hex(&t.2))).collect();
    assert!(
        ordered(&tick_lumas, true),
        "tick colours not strictly {way:?}: {tick_lumas:?}"
    );
    ticks
        .into_iter()
        .map(|(_, ulps, color)| (ulps, parse_hex(&color)))
        .collect()
}

/// The summary rows of a probe page as (op, format, lines, conform, violate, max ULPs).
fn page_rows(dom: &str) -> Vec<(String, String, u64, u64, u64, u64)> {
    tags(dom, "tr")
        .into_iter()
        .filter(|t| attr(t, "class").as_deref() == Some("op"))
        .map(|t| {
            let n = |k| attr(t, k).unwrap().parse::<u64>().unwrap();
            (
                attr(t, "data-op").unwrap().to_string(),
                attr(t, "data-format").unwrap().to_string(),
                n("data-lines"),
                n("data-conform"),
                n("data-violate"),
                n("data-max-ulps"),
            )
        })
        .collect()
}

fn json_rows(json: &[Value]) -> Vec<(String, String, u64, u64, u64, u64)> {
    json.iter()
        .filter(|v| v["kind"] == "op")
        .map(|v| {
            let n = |k: &str| v[k].as_u64().unwrap_or(0);
            (
                v["op"].as_str().unwrap().to_string(),
                v["format"].as_str().unwrap().to_string(),
                n("lines"),
                n("conform"),
                n("violate"),
                n("max_ulps"),
            )
        })
        .collect()
}

#[test]
fn hosts_are_read_from_proxied_requests() {
    assert_eq!(
        requested_host("CONNECT accounts.google.com:443 HTTP/1.1"),
        "accounts.google.com"
    );
    assert_eq!(
        requested_host("GET http://d3dfloat.invalid/x.png HTTP/1.1"),
        "d3dfloat.invalid"
    );
    assert_eq!(
        requested_host("GET http://127.0.0.1:8000/ HTTP/1.1"),
        "127.0.0.1"
    );
}

fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

#[test]
fn a_sampled_probe_report_renders_with_the_json_numbers() {
    let dir = tempdir();
    let page = dir.path().join("probe.html");
    // The fake device that keeps f32 denormals: violations to mark.
    let json = run_json(
        d3dfloat()
            .args(["probe", "--ops", "rcp,mul,f16:add,itof", "--count", "20000"])
            .arg("--report")
            .arg(&page),
        &[1],
    );
    let r = check_page(&page);
    assert_eq!(page_rows(&r.dom), json_rows(&json));
    let figures = figures(&r.dom);
    let classes: Vec<&str> = figures.iter().map(|f| f.0.as_str()).collect();
    // In the catalog's order (a bare name selects both widths): the one-operand
    // instructions along binades, the two-operand ones as maps.
    let ops: Vec<_> = json_rows(&json).into_iter().map(|r| (r.0, r.1)).collect();
    assert_eq!(ops.len(), 6, "{ops:?}");
    for ((op, _), class) in ops.iter().zip(&classes) {
        let expected = if matches!(op.as_str(), "rcp" | "itof") {
            "error-by-binade"
        } else {
            "error-map"
        };
        assert_eq!(*class, expected, "{op}");
    }
    // rcp's violations are marked, with pasteable examples.
    assert!(r.dom.contains("f32 denormal operand not flushed"));
    assert!(r.dom.contains("d3dfloat op rcp 0x"));
    assert!(r.dom.contains("D3DFLOAT_TEST_FAKE_DEVICE") || r.dom.contains("fake IEEE device"));
}

#[test]
fn an_exhaustive_sweep_report_renders_with_the_json_numbers() {
    let dir = tempdir();
    let page = dir.path().join("sweep.html");
    let json = run_json(
        d3dfloat()
            .env("D3DFLOAT_TEST_FAKE_DEVICE", "ieee")
            .args([
                "probe",
                "--exhaustive",
                "--ops",
                "f16:sqrt,f16:add",
                "--first",
                "300000",
            ])
            .arg("--report")
            .arg(&page),
        &[0],
    );
    let r = check_page(&page);
    assert_eq!(page_rows(&r.dom), json_rows(&json));
    let classes: Vec<String> = figures(&r.dom).into_iter().map(|f| f.0).collect();
    // add comes first in the catalog; sqrt's chart is zoomed to the non-negative operands
    // (the negative ones all give NaN), then drawn whole.
    assert_eq!(
        classes,
        [
            "error-map",
            "histogram",
            "error-by-binade",
            "error-by-binade",
            "histogram"
        ]
    );
    // Every f16 input of sqrt: the zoom holds the 32 non-negative binades (+0 to +inf
    // and NaN) with the two below them (-0 and one margin); the whole chart all 64.
    assert_eq!(figures(&r.dom)[2].1, 34);
    assert_eq!(figures(&r.dom)[3].1, 64);
}

#[test]
fn a_buffer_verdict_report_renders_with_the_json_numbers() {
    let dir = tempdir();
    let xs: Vec<f32> = (0..50_000u32)
        .map(|i| f32::from_bits(i.wrapping_mul(0x9e37_79b9) & 0x7fff_ffff))
        .collect();
    let mut rs: Vec<f32> = xs.iter().map(|x| x.sqrt()).collect();
    for r in rs.iter_mut().step_by(997) {
        *r = f32::from_bits(r.to_bits() ^ 0x10);
    }
    let bytes = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let (x, r) = (dir.path().join("x.f32"), dir.path().join("r.f32"));
    std::fs::write(&x, bytes(&xs)).unwrap();
    std::fs::write(&r, bytes(&rs)).unwrap();
    let page = dir.path().join("buffers.html");
    let json = run_json(
        d3dfloat()
            .args(["op", "sqrt", "--operands"])
            .arg(&x)
            .arg("--results")
            .arg(&r)
            .arg("--report")
            .arg(&page),
        &[1],
    );
    let rendered = check_page(&page);
    assert_eq!(page_rows(&rendered.dom), json_rows(&json));
    assert!(rendered.dom.contains("x.f32") && rendered.dom.contains("r.f32"));
}

/// The ulp-diff page's summary numbers against the JSON summary.
fn check_ulp_numbers(dom: &str, json: &[Value]) {
    let summary = json.iter().find(|v| v["kind"] == "summary").unwrap();
    let table = tags(dom, "table")
        .into_iter()
        .find(|t| attr(t, "class").as_deref() == Some("summary"))
        .unwrap();
    let n = |k| attr(table, k).unwrap().parse::<u64>().unwrap();
    assert_eq!(n("data-elements"), summary["elements"].as_u64().unwrap());
    assert_eq!(n("data-compared"), summary["count"].as_u64().unwrap());
    assert_eq!(n("data-max"), summary["max_abs"].as_u64().unwrap());
    let nans = summary["nan_mismatches"].as_u64().unwrap() + summary["nan_both"].as_u64().unwrap();
    assert_eq!(n("data-nan"), nans);
    assert_eq!(n("data-over-limit"), summary["over_max"].as_u64().unwrap());
}

/// The page's heat map figure: (class, points, inner HTML).
fn heatmap(dom: &str) -> (String, usize, String) {
    figures(dom)
        .into_iter()
        .find(|f| f.0 == "heatmap")
        .expect("no heat map on the page")
}

/// Two RGBA pictures as f32 values: a gradient, and the same with a disc of pixels a few
/// ULPs off and one NaN pixel.
fn pictures(w: usize, h: usize) -> (Vec<f32>, Vec<f32>) {
    let mut a = Vec::new();
    let mut b = Vec::new();
    for y in 0..h {
        for x in 0..w {
            for c in 0..4 {
                let v = (x as f32 / w as f32) * (c as f32 + 1.0) * 0.5 + y as f32 / h as f32;
                a.push(v);
                let dx = x as i64 - w as i64 / 2;
                let dy = y as i64 - h as i64 / 2;
                b.push(if x == 3 && y == 3 && c == 0 {
                    f32::NAN
                } else if dx * dx + dy * dy < 64 && c < 3 {
                    f32::from_bits(v.to_bits() + 5)
                } else {
                    v
                });
            }
        }
    }
    (a, b)
}

#[test]
fn a_raw_buffer_comparison_report_shows_where_pixels_differ() {
    let dir = tempdir();
    let (a, b) = pictures(64, 48);
    let bytes = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let (pa, pb) = (dir.path().join("a.f32"), dir.path().join("b.f32"));
    std::fs::write(&pa, bytes(&a)).unwrap();
    std::fs::write(&pb, bytes(&b)).unwrap();
    let page = dir.path().join("raw.html");
    let json = run_json(
        d3dfloat()
            .args(["ulp-diff", "--files"])
            .arg(&pa)
            .arg(&pb)
            .args(["--width", "64", "--channels", "4", "--report"])
            .arg(&page),
        &[0],
    );
    let r = check_page(&page);
    check_ulp_numbers(&r.dom, &json);
    let heat = heatmap(&r.dom);
    // The disc and the NaN pixel outside it.
    let disc = (0..48i64)
        .flat_map(|y| (0..64i64).map(move |x| (x - 32) * (x - 32) + (y - 24) * (y - 24)))
        .filter(|&d| d < 64)
        .count();
    assert_eq!(heat.1, disc + 1);
}

#[test]
fn the_render_in_tests_data_differs_where_rounding_does() {
    // The two roundings of one render (tests/data/README.md): every pixel with a channel
    // that rounds differently shows in the heat map, and at most 1 ULP apart.
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let (a, b) = (
        data.join("render-nearest.f16"),
        data.join("render-toward-zero.f16"),
    );
    let (ba, bb) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let differing = ba
        .chunks(8)
        .zip(bb.chunks(8))
        .filter(|(x, y)| x != y)
        .count();
    let dir = tempdir();
    let page = dir.path().join("render.html");
    let json = run_json(
        d3dfloat()
            .args(["ulp-diff", "--fmt", "f16", "--max", "1", "--files"])
            .arg(&a)
            .arg(&b)
            .args(["--width", "96", "--channels", "4", "--report"])
            .arg(&page),
        &[0],
    );
    let r = check_page(&page);
    check_ulp_numbers(&r.dom, &json);
    let heat = heatmap(&r.dom);
    assert!(differing > 1000, "{differing}");
    assert_eq!(heat.1, differing);
}

#[test]
fn dds_exr_and_hdr_comparisons_render_as_pictures() {
    let dir = tempdir();
    let (a, b) = pictures(40, 24);
    // DDS: R32G32B32A32_FLOAT, compared in its own f32 elements.
    let dds = |path: &Path, v: &[f32]| {
        use ddsfile::{AlphaMode, D3D10ResourceDimension, Dds, DxgiFormat, NewDxgiParams};
        let mut d = Dds::new_dxgi(NewDxgiParams {
            height: 24,
            width: 40,
            depth: None,
            format: DxgiFormat::R32G32B32A32_Float,
            mipmap_levels: Some(1),
            array_layers: None,
            caps2: None,
            is_cubemap: false,
            resource_dimension: D3D10ResourceDimension::Texture2D,
            alpha_mode: AlphaMode::Unknown,
        })
        .unwrap();
        d.data = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        d.write(&mut std::fs::File::create(path).unwrap()).unwrap();
    };
    let exr = |path: &Path, v: &[f32]| {
        let v = v.to_vec();
        exr::prelude::write_rgba_file(path, 40, 24, move |x, y| {
            let i = (y * 40 + x) * 4;
            (v[i], v[i + 1], v[i + 2], v[i + 3])
        })
        .unwrap();
    };
    let hdr = |path: &Path, v: &[f32]| {
        let pixels: Vec<image::Rgb<f32>> = v
            .chunks(4)
            .map(|p| {
                // RGBE has no NaN and no negative values.
                image::Rgb(
                    [p[0], p[1], p[2]].map(|c| if c.is_nan() { 0.0 } else { c.clamp(0.0, 1e4) }),
                )
            })
            .collect();
        image::codecs::hdr::HdrEncoder::new(std::fs::File::create(path).unwrap())
            .encode(&pixels, 40, 24)
            .unwrap();
    };
    type Writer<'a> = &'a dyn Fn(&Path, &[f32]);
    let kinds: [(&str, Writer, &[i32]); 3] = [
        ("dds", &dds, &[0]),
        ("exr", &exr, &[0]),
        ("hdr", &hdr, &[0]),
    ];
    for (ext, write, codes) in kinds {
        let (pa, pb) = (
            dir.path().join(format!("a.{ext}")),
            dir.path().join(format!("b.{ext}")),
        );
        write(&pa, &a);
        write(&pb, &b);
        let page = dir.path().join(format!("{ext}.html"));
        let json = run_json(
            d3dfloat()
                .args(["ulp-diff", "--files"])
                .arg(&pa)
                .arg(&pb)
                .arg("--report")
                .arg(&page),
            codes,
        );
        let r = check_page(&page);
        check_ulp_numbers(&r.dom, &json);
        let summary = json.iter().find(|v| v["kind"] == "summary").unwrap();
        // Every channel of every pixel compared.
        assert_eq!(summary["count"].as_u64().unwrap(), 40 * 24 * 4, "{ext}");
        let heat = heatmap(&r.dom);
        assert!(heat.1 > 0, "{ext}: no differing pixel shown");
    }
}

/// Distances 0, 1, 2, 4, ... 2^(n-2) ULPs, one per planted line.
fn planted(n: u32) -> Vec<u32> {
    std::iter::once(0)
        .chain((0..n - 1).map(|k| 1 << k))
        .collect()
}

#[test]
fn the_pixel_heat_map_colours_by_log_distance_as_its_legend_says() {
    // One row of pixels, each 0, 1, 2, 4, ... 2^20 ULPs off 1.0: each pixel's colour is
    // its tick's where it has one, and brightness rises from each power of two to the next.
    let dir = tempdir();
    let ds = planted(22);
    let a: Vec<u8> = ds.iter().flat_map(|_| 1f32.to_le_bytes()).collect();
    let b: Vec<u8> = ds
        .iter()
        .flat_map(|d| (1f32.to_bits() + d).to_le_bytes())
        .collect();
    let (pa, pb) = (dir.path().join("a.f32"), dir.path().join("b.f32"));
    std::fs::write(&pa, a).unwrap();
    std::fs::write(&pb, b).unwrap();
    let page = dir.path().join("log.html");
    let json = run_json(
        d3dfloat()
            .args(["ulp-diff", "--files"])
            .arg(&pa)
            .arg(&pb)
            .args(["--width", &ds.len().to_string(), "--report"])
            .arg(&page),
        &[0],
    );
    let r = check_page(&page);
    check_ulp_numbers(&r.dom, &json);
    let heat = heatmap(&r.dom);
    let ticks = legend(&heat.2, Brightness::Rises);
    let shown: Vec<u128> = ticks.iter().map(|t| t.0).collect();
    assert!(heat.2.contains("data-key=\"equal\" data-color=\"#000000\""));
    assert!(heat.2.contains("data-key=\"NaN\" data-color=\"#00A0FF\""));
    // The narrow legend under the picture has room for every eighth power.
    assert_eq!(shown, [0, 1, 256, 1 << 16, 1 << 20]);
    let img = png_of(tags(&heat.2, "img")[0]);
    assert_eq!((img.width(), img.height()), (ds.len() as u32, 1));
    let pixel = |d: u32| {
        img.get_pixel(ds.iter().position(|&x| x == d).unwrap() as u32, 0)
            .0
    };
    for (ulps, color) in &ticks {
        assert_eq!(pixel(*ulps as u32), *color, "{ulps} ULPs");
    }
    let lumas: Vec<f64> = ds.iter().map(|&d| luma(pixel(d))).collect();
    assert!(lumas.windows(2).all(|w| w[1] > w[0]), "{lumas:?}");
}

#[test]
fn the_exponent_map_colours_by_log_distance_as_its_legend_says() {
    // f16 add of 2^k + 2^k, k = 0..10, answered 0, 1, 2, 4, ... 512 ULPs above the exact
    // 2^(k+1): one line in each diagonal cell, so its largest and mean distance are both
    // that; both panels' cells take their ticks' colours, and darken along the diagonal.
    let dir = tempdir();
    let ds = planted(11);
    let f16_pow2 = |k: u32| ((k + 15) << 10) as u16;
    let ops: Vec<u8> = (0..ds.len() as u32)
        .flat_map(|k| f16_pow2(k).to_le_bytes())
        .collect();
    let results: Vec<u8> = ds
        .iter()
        .enumerate()
        .flat_map(|(k, d)| (f16_pow2(k as u32 + 1) + *d as u16).to_le_bytes())
        .collect();
    let (a, r) = (dir.path().join("a.f16"), dir.path().join("r.f16"));
    std::fs::write(&a, &ops).unwrap();
    std::fs::write(&r, &results).unwrap();
    let page = dir.path().join("map.html");
    let json = run_json(
        d3dfloat()
            .args(["op", "--fmt", "f16", "add", "--operands"])
            .arg(format!("{},{}", a.display(), a.display()))
            .arg("--results")
            .arg(&r)
            .arg("--report")
            .arg(&page),
        &[1],
    );
    let rendered = check_page(&page);
    assert_eq!(page_rows(&rendered.dom), json_rows(&json));
    let map = figures(&rendered.dom)
        .into_iter()
        .find(|f| f.0 == "error-map")
        .unwrap();
    assert_eq!(map.1, ds.len());
    let ticks = legend(&map.2, Brightness::Falls);
    let (chart, _) = map.2.split_once("<svg class=\"heat-legend\"").unwrap();
    let cells: Vec<(f64, [u8; 3])> = tags(chart, "rect")
        .into_iter()
        .filter(|t| is_color(t, "stroke", "none") && !is_color(t, "fill", "#FFFFFF"))
        .map(|t| {
            (
                attr(t, "x").unwrap().parse().unwrap(),
                parse_hex(&attr(t, "fill").unwrap()),
            )
        })
        .collect();
    assert_eq!(cells.len(), 2 * ds.len());
    for (ulps, color) in &ticks {
        if ds.contains(&(*ulps as u32)) {
            let n = cells.iter().filter(|c| c.1 == *color).count();
            assert_eq!(n, 2, "{ulps} ULPs: {n} cells of its colour {color:?}");
        }
    }
    // The left panel's cells, left to right: k = 0, 1, ... 10, so 0, 1, 2, ... 512 ULPs.
    let mut left: Vec<(f64, [u8; 3])> = cells.iter().copied().filter(|c| c.0 < 450.0).collect();
    left.sort_by(|p, q| p.0.total_cmp(&q.0));
    let lumas: Vec<f64> = left.iter().map(|c| luma(c.1)).collect();
    assert_eq!(lumas.len(), ds.len());
    assert!(lumas.windows(2).all(|w| w[1] < w[0]), "{lumas:?}");
}

#[test]
fn the_request_counter_sees_a_page_that_fetches() {
    // The control for every `requests == 0` above: a page with a remote image is seen.
    let dir = tempdir();
    let page = dir.path().join("fetches.html");
    std::fs::write(
        &page,
        "<!DOCTYPE html><html><body><img src=\"http://d3dfloat.invalid/x.png\"></body></html>",
    )
    .unwrap();
    let r = render(&page);
    // Once for the DOM, once for the screenshot.
    assert!(
        !r.requests.is_empty(),
        "the proxy did not see the page's request"
    );
    assert!(
        r.requests.iter().all(|h| h == "d3dfloat.invalid"),
        "{:?}",
        r.requests
    );
}

#[test]
fn a_report_that_cannot_be_written_fails_before_the_run() {
    let out = d3dfloat()
        .args([
            "probe",
            "--ops",
            "sqrt",
            "--report",
            "/nonexistent-dir/r.html",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--report /nonexistent-dir/r.html"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    // Nothing of the run was printed before the error.
    assert!(out.stdout.is_empty());
}
