//! Every `console` example of the README and `docs/`, run as written: each `$ COMMAND`
//! through bash with the built `d3dfloat` first on the PATH, in a directory holding the
//! files the examples name (made here, the same every run), its stdout compared with the
//! lines the page shows under it (a line `...` stands for any lines). A block after the
//! marker `<!-- console: device output, not run -->` shows one device's output (the
//! probe on lavapipe) and is left out.

use std::path::{Path, PathBuf};
use std::process::Command;

const SKIP_MARKER: &str = "<!-- console: device output, not run -->";

/// One example: where it is, the command, and the stdout the page shows.
struct Example {
    place: String,
    command: String,
    expected: Vec<String>,
}

/// The examples of one page.
fn examples(path: &Path) -> Vec<Example> {
    let text = std::fs::read_to_string(path).unwrap();
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let mut out = Vec::new();
    let mut lines = text.lines().enumerate().peekable();
    let mut previous = "";
    while let Some((_, line)) = lines.next() {
        if line.trim() != "```console" {
            if !line.trim().is_empty() {
                previous = line;
            }
            continue;
        }
        let skip = previous.trim() == SKIP_MARKER;
        let mut current: Option<Example> = None;
        for (no, line) in lines.by_ref() {
            if line.trim() == "```" {
                break;
            }
            if let Some(command) = line.strip_prefix("$ ") {
                out.extend(current.take().filter(|_| !skip));
                current = Some(Example {
                    place: format!("{name}:{}", no + 1),
                    command: command.to_string(),
                    expected: Vec::new(),
                });
            } else if let Some(e) = current.as_mut() {
                e.expected.push(line.trim_end().to_string());
            }
        }
        out.extend(current.filter(|_| !skip));
        previous = "";
    }
    out
}

/// Whether `got` is what `expected` shows, `...` standing for any lines.
fn matches(expected: &[String], got: &[&str]) -> bool {
    match expected.split_first() {
        None => got.is_empty(),
        Some((e, rest)) if e.trim() == "..." => {
            (0..=got.len()).any(|skip| matches(rest, &got[skip..]))
        }
        Some((e, rest)) => got.first().is_some_and(|g| g == e) && matches(rest, &got[1..]),
    }
}

fn f32_file(dir: &Path, name: &str, values: impl IntoIterator<Item = f32>) {
    let bytes: Vec<u8> = values.into_iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(dir.join(name), bytes).unwrap();
}

/// The files the examples name: two f32 buffers a few ULPs apart, a mesh, RGB lighting, a
/// sky image with values past R11G11B10's range, and a DDS with mips and layers.
fn fixtures(dir: &Path) {
    let expected: Vec<f32> = (0..1000).map(|i| (i as f32 * 0.37).sin()).collect();
    let actual = expected.iter().enumerate().map(|(i, &v)| match i % 250 {
        7 => f32::from_bits(v.to_bits() + 1),
        8 => f32::from_bits(v.to_bits() + 3),
        _ => v,
    });
    f32_file(dir, "expected.f32", expected.iter().copied());
    f32_file(dir, "actual.f32", actual);
    f32_file(dir, "mesh.f32", (0..300).map(|i| i as f32 * 0.013 - 2.0));
    f32_file(dir, "lighting.rgb", (0..300).map(|i| i as f32 * 0.5));
    exr::prelude::write_rgba_file(dir.join("sky.exr"), 8, 4, |x, y| {
        let v = if x == 7 {
            1e5 * (y + 1) as f32
        } else {
            x as f32 * 0.25
        };
        (v, v * 0.5, 0.125, 1.0)
    })
    .unwrap();
    let mut dds = ddsfile::Dds::new_dxgi(ddsfile::NewDxgiParams {
        height: 4,
        width: 4,
        depth: None,
        format: ddsfile::DxgiFormat::R32G32B32A32_Float,
        mipmap_levels: Some(3),
        array_layers: Some(2),
        caps2: None,
        is_cubemap: false,
        resource_dimension: ddsfile::D3D10ResourceDimension::Texture2D,
        alpha_mode: ddsfile::AlphaMode::Unknown,
    })
    .unwrap();
    let n = dds.data.len() / 4;
    dds.data = (0..n)
        .flat_map(|i| (i as f32 * 0.1).to_le_bytes())
        .collect();
    let mut f = std::fs::File::create(dir.join("baked.dds")).unwrap();
    dds.write(&mut f).unwrap();
}

fn pages() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut pages = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

#[test]
fn every_console_example_prints_what_the_page_shows() {
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_d3dfloat")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let dir = tempfile::tempdir().unwrap();
    fixtures(dir.path());
    let mut ran = 0;
    let mut wrong = Vec::new();
    for page in pages() {
        for ex in examples(&page) {
            let out = Command::new("bash")
                .args(["-c", &ex.command])
                .current_dir(dir.path())
                .env("PATH", &path)
                .env("NO_COLOR", "1")
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&out.stdout);
            let got: Vec<&str> = stdout.lines().map(str::trim_end).collect();
            if !matches(&ex.expected, &got) {
                wrong.push(format!(
                    "{}: $ {}\n  shows:\n    {}\n  prints:\n    {}\n  stderr: {}",
                    ex.place,
                    ex.command,
                    ex.expected.join("\n    "),
                    got.join("\n    "),
                    String::from_utf8_lossy(&out.stderr).trim()
                ));
            }
            ran += 1;
        }
    }
    assert!(ran >= 25, "only {ran} examples found");
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}

#[test]
fn the_matcher_takes_ellipses() {
    let e = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert!(matches(&e(&["a", "  ...", "d"]), &["a", "b", "c", "d"]));
    assert!(matches(&e(&["a", "..."]), &["a"]));
    assert!(!matches(&e(&["a", "b"]), &["a", "c"]));
    assert!(!matches(&e(&["a"]), &["a", "b"]));
}
