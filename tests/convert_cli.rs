//! `d3dfloat convert` end to end: raw streams against `encode`, DDS round trips for every
//! DXGI format it handles (with mip levels and array layers), EXR and HDR fixtures made
//! here, and the safety rules (truncated input, lying headers, output over input), each
//! checked for exit code 2 and for leaving no file behind.

use std::path::Path;

use assert_cmd::Command;
use ddsfile::{AlphaMode, D3D10ResourceDimension, Dds, DxgiFormat, NewDxgiParams};
use predicates::prelude::*;
use tempfile::TempDir;

mod common;
use common::Rng;

fn d3dfloat() -> Command {
    Command::cargo_bin("d3dfloat").unwrap()
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Files in `dir`, sorted, so a test can see nothing extra (no partial output) was left.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

fn encode_plain(fmt: &str, rounding: &str, value: &str) -> String {
    let out = d3dfloat()
        .args([
            "encode",
            "--plain",
            "--fmt",
            fmt,
            "--rounding",
            rounding,
            "--",
            value,
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

#[test]
fn raw_conversion_gives_the_bits_encode_gives() {
    let values: [f32; 8] = [
        0.1,
        -65519.0,
        70000.0,
        1e-7,
        -3.0e-6,
        1.0 / 3.0,
        65520.0,
        -0.0,
    ];
    for (fmt, rounding) in [
        ("f16", "rne"),
        ("f16", "rtz"),
        ("f11", "rtp"),
        ("f10", "rtn"),
    ] {
        let out = d3dfloat()
            .args([
                "convert",
                "--from",
                "f32",
                "--to",
                fmt,
                "--rounding",
                rounding,
            ])
            .write_stdin(f32_bytes(&values))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        for (i, v) in values.iter().enumerate() {
            let bits = u16::from_le_bytes([out.stdout[2 * i], out.stdout[2 * i + 1]]);
            let hex = format!("{:x}", HexFloat(*v));
            let width = if fmt == "f16" { 4 } else { 3 };
            assert_eq!(
                format!("0x{bits:0width$x}"),
                encode_plain(fmt, rounding, &hex),
                "{fmt} {rounding} {v}"
            );
        }
    }
}

/// Formats an f32 as an exact hex-float (`0x1.99999ap-4`), which `encode` reads exactly.
struct HexFloat(f32);

impl std::fmt::LowerHex for HexFloat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let x = self.0;
        let sign = if x.is_sign_negative() { "-" } else { "" };
        if x == 0.0 {
            return write!(f, "{sign}0x0p+0");
        }
        let bits = x.to_bits();
        let exp = ((bits >> 23) & 0xff) as i32;
        let frac = bits & 0x7f_ffff;
        if exp == 0 {
            write!(f, "{sign}0x0.{:06x}p-126", frac << 1)
        } else {
            write!(f, "{sign}0x1.{:06x}p{:+}", frac << 1, exp - 127)
        }
    }
}

#[test]
fn summary_counts_in_json() {
    let dir = TempDir::new().unwrap();
    let values = [1.0f32, 0.1, f32::NAN, -1.0, 1e9, 1e-9];
    let input = dir.path().join("in.f32");
    std::fs::write(&input, f32_bytes(&values)).unwrap();
    let out = d3dfloat()
        .args(["--json", "convert", "--from", "f32", "--to", "f11"])
        .arg(&input)
        .arg("-o")
        .arg(dir.path().join("out.f11"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["schema"], 1);
    assert_eq!(v["values"], 6);
    assert_eq!(v["nan_in"], 1);
    assert_eq!(v["nan_out"], 1);
    assert_eq!(v["clamped_negative"], 1);
    assert_eq!(v["overflow_to_infinity"], 1);
    assert_eq!(v["flushed_to_zero"], 1);
    assert_eq!(v["inexact"], 4);
    assert!(v["max_ulp_error"].as_f64().unwrap() <= 0.5);
}

/// The three script styles carry the same summary: the CSV columns and the `--plain` keys
/// are the JSON members (less `schema` and `command`), with equal values.
#[test]
fn script_styles_carry_the_same_summary() {
    let input = f32_bytes(&[1.0, 0.1, f32::NAN, -1.0, 1e9, 1e-9]);
    let run = |style: &str| {
        let out = d3dfloat()
            .args([
                style,
                "convert",
                "--from",
                "f32",
                "--to",
                "f11",
                "-o",
                "/dev/null",
            ])
            .write_stdin(input.clone())
            .output()
            .unwrap();
        assert!(out.status.success(), "{style}");
        // `--plain` keeps stdout for data: its summary line is on stderr.
        let text = if style == "--plain" {
            out.stderr
        } else {
            out.stdout
        };
        String::from_utf8(text).unwrap()
    };
    let json: serde_json::Value = serde_json::from_str(&run("--json")).unwrap();
    let csv = run("--csv");
    let mut rows = csv.lines();
    let (head, row) = (rows.next().unwrap(), rows.next().unwrap());
    let csv: Vec<(&str, &str)> = head.split(',').zip(row.split(',')).collect();
    let plain = run("--plain");
    let plain: Vec<(&str, &str)> = plain
        .split_whitespace()
        .map(|kv| kv.split_once('=').unwrap())
        .collect();
    // Each style is its own run, so only the time may differ.
    let timeless = |v: &[(&str, &str)]| -> Vec<(String, String)> {
        v.iter()
            .map(|(k, t)| {
                (
                    k.to_string(),
                    if *k == "seconds" {
                        String::new()
                    } else {
                        t.to_string()
                    },
                )
            })
            .collect()
    };
    assert_eq!(timeless(&csv), timeless(&plain));
    let members = json.as_object().unwrap();
    assert_eq!(members.len(), csv.len() + 2, "{members:?}");
    for (key, text) in csv {
        let v = &members[key];
        let as_text = match v {
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Number(n) if key == "seconds" => {
                assert!(n.as_f64().unwrap() >= 0.0);
                continue;
            }
            other => other.to_string(),
        };
        assert_eq!(as_text, text, "{key}");
    }
}

#[test]
fn human_summary_goes_to_stderr() {
    d3dfloat()
        .args([
            "convert", "--from", "f32", "--to", "f16", "--color", "never",
        ])
        .write_stdin(f32_bytes(&[1.0, 1e6]))
        .assert()
        .success()
        .stdout(predicate::eq(&[0x00u8, 0x3c, 0x00, 0x7c][..]))
        .stderr(predicate::str::contains("converted 2 values f32 -> f16"))
        .stderr(predicate::str::contains("1 overflowed to infinity"));
}

/// A DDS texture of `format` with the given levels and layers, filled by `texel`.
fn make_dds(format: DxgiFormat, mips: u32, layers: u32, fill: impl Fn(usize) -> u8) -> Dds {
    let mut dds = Dds::new_dxgi(NewDxgiParams {
        height: 6,
        width: 5,
        depth: None,
        format,
        mipmap_levels: Some(mips),
        array_layers: Some(layers),
        caps2: None,
        is_cubemap: false,
        resource_dimension: D3D10ResourceDimension::Texture2D,
        alpha_mode: AlphaMode::Unknown,
    })
    .unwrap();
    for (i, b) in dds.data.iter_mut().enumerate() {
        *b = fill(i);
    }
    dds
}

fn write_dds(path: &Path, dds: &Dds) {
    let mut f = std::fs::File::create(path).unwrap();
    dds.write(&mut f).unwrap();
}

fn read_dds(path: &Path) -> Dds {
    Dds::read(std::fs::File::open(path).unwrap()).unwrap()
}

fn convert_file(input: &Path, to: &str, output: &Path, extra: &[&str]) {
    let out = d3dfloat()
        .args(["convert", "--to", to])
        .args(extra)
        .arg(input)
        .arg("-o")
        .arg(output)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "convert {} --to {to}: {}",
        input.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// f32 values every format here holds exactly (f10's 5 fraction bits, RGB9E5 with a
/// shared exponent within a texel included): small multiples of 1/4 in [0, 8).
fn exact_f32_texels(n: usize, channels: usize) -> Vec<f32> {
    (0..n * channels)
        .map(|i| {
            if channels == 4 && i % 4 == 3 {
                1.0
            } else {
                ((i * 7) % 32) as f32 / 4.0
            }
        })
        .collect()
}

#[test]
fn dds_round_trips_for_every_format_with_mips_and_arrays() {
    let dir = TempDir::new().unwrap();
    let p = |n: &str| dir.path().join(n);
    // Each float source and the format it travels through.
    let trips: [(DxgiFormat, usize, &str, &str, &[&str]); 5] = [
        (DxgiFormat::R32G32B32A32_Float, 4, "f16", "f32", &[]),
        (DxgiFormat::R32G32B32A32_Float, 4, "rgb9e5", "f32", &[]),
        (
            DxgiFormat::R32G32B32_Float,
            3,
            "r11g11b10",
            "f32",
            &["--channels", "3"],
        ),
        (DxgiFormat::R32_Float, 1, "f16", "f32", &[]),
        (DxgiFormat::R32G32B32A32_Float, 4, "r11g11b10", "f32", &[]),
    ];
    for (i, (format, channels, via, back, extra)) in trips.into_iter().enumerate() {
        let mut src = make_dds(format, 3, 2, |_| 0);
        let texels = src.data.len() / (4 * channels);
        src.data = f32_bytes(&exact_f32_texels(texels, channels));
        let (a, b, c) = (
            p(&format!("a{i}.dds")),
            p(&format!("b{i}.dds")),
            p(&format!("c{i}.dds")),
        );
        write_dds(&a, &src);
        convert_file(&a, via, &b, &[]);
        convert_file(&b, back, &c, extra);
        let (mid, end) = (read_dds(&b), read_dds(&c));
        for d in [&mid, &end] {
            assert_eq!(d.get_num_mipmap_levels(), 3);
            assert_eq!(d.get_num_array_layers(), 2);
            assert_eq!((d.get_width(), d.get_height()), (5, 6));
        }
        assert_eq!(end.get_dxgi_format(), Some(format), "{via}");
        assert_eq!(f32s(&end.data), f32s(&src.data), "through {via}");
    }
    // The 16-bit and packed formats as sources: any finite pattern survives a trip
    // through f32 and back (rgb9e5 words made canonical by a first pass).
    let sources: [(DxgiFormat, &str, &str); 4] = [
        (DxgiFormat::R16G16B16A16_Float, "f32", "f16"),
        (DxgiFormat::R16_Float, "f32", "f16"),
        (DxgiFormat::R11G11B10_Float, "f32", "r11g11b10"),
        (DxgiFormat::R9G9B9E5_SharedExp, "f16", "rgb9e5"),
    ];
    for (i, (format, via, back)) in sources.into_iter().enumerate() {
        // Bytes that never make a NaN or infinity: exponent fields stay below all-ones.
        let src = make_dds(format, 3, 2, |k| (k * 37 % 251) as u8 & 0x3b);
        let (a, b, c, d) = (
            p(&format!("s{i}.dds")),
            p(&format!("t{i}.dds")),
            p(&format!("u{i}.dds")),
            p(&format!("v{i}.dds")),
        );
        write_dds(&a, &src);
        convert_file(&a, via, &b, &[]);
        convert_file(&b, back, &c, &[]);
        convert_file(&c, via, &d, &[]);
        let (first, again) = (read_dds(&b), read_dds(&d));
        assert_eq!(read_dds(&c).get_dxgi_format(), Some(format));
        assert_eq!(first.data, again.data, "{format:?} through {via}");
        if back != "rgb9e5" {
            assert_eq!(read_dds(&c).data, src.data, "{format:?} through {via}");
        }
    }
}

/// A small OpenEXR file written with the `exr` crate: RGBA f32.
fn write_exr(
    path: &Path,
    width: usize,
    height: usize,
    px: impl Fn(usize, usize) -> [f32; 4] + Sync,
) {
    exr::prelude::write_rgba_file(path, width, height, |x, y| {
        let [r, g, b, a] = px(x, y);
        (r, g, b, a)
    })
    .unwrap();
}

fn sky(x: usize, y: usize) -> [f32; 4] {
    [
        x as f32 * 0.37 + 0.01,
        (y as f32 + 1.0) * 123.4,
        1e-3 * (x * y) as f32,
        0.5,
    ]
}

#[test]
fn exr_to_r11g11b10_dds_equals_the_raw_conversion() {
    let dir = TempDir::new().unwrap();
    let exr = dir.path().join("sky.exr");
    write_exr(&exr, 7, 5, sky);
    let dds = dir.path().join("sky.dds");
    convert_file(&exr, "r11g11b10", &dds, &[]);
    let got = read_dds(&dds);
    assert_eq!(got.get_dxgi_format(), Some(DxgiFormat::R11G11B10_Float));
    assert_eq!((got.get_width(), got.get_height()), (7, 5));
    // The same texels as raw RGBA f32, row by row from the top.
    let texels: Vec<f32> = (0..5)
        .flat_map(|y| (0..7).flat_map(move |x| sky(x, y)))
        .collect();
    let raw = d3dfloat()
        .args([
            "convert",
            "--from",
            "f32",
            "--to",
            "r11g11b10",
            "--channels",
            "4",
        ])
        .write_stdin(f32_bytes(&texels))
        .output()
        .unwrap();
    assert!(raw.status.success());
    assert_eq!(got.data, raw.stdout);
}

#[test]
fn hdr_image_reads_into_rgba_f32() {
    let dir = TempDir::new().unwrap();
    let hdr = dir.path().join("probe.hdr");
    // Values RGBE holds exactly: each channel a small multiple of a power of two shared
    // with the texel's largest.
    let px: Vec<image::Rgb<f32>> = (0..12)
        .map(|i| image::Rgb([i as f32, (i * 2) as f32 + 1.0, 0.5]))
        .collect();
    image::codecs::hdr::HdrEncoder::new(std::fs::File::create(&hdr).unwrap())
        .encode(&px, 4, 3)
        .unwrap();
    let dds = dir.path().join("probe.dds");
    convert_file(&hdr, "f32", &dds, &[]);
    let got = read_dds(&dds);
    assert_eq!(got.get_dxgi_format(), Some(DxgiFormat::R32G32B32A32_Float));
    let want: Vec<f32> = px.iter().flat_map(|p| [p[0], p[1], p[2], 1.0]).collect();
    assert_eq!(f32s(&got.data), want);
    // Raw RGB output with --channels 3.
    let raw = dir.path().join("probe.f16");
    convert_file(&hdr, "f16", &raw, &["--channels", "3"]);
    assert_eq!(std::fs::read(&raw).unwrap().len(), 12 * 3 * 2);
}

fn expect_error_and_nothing_left(dir: &Path, args: &[&str], stdin: Option<Vec<u8>>, msg: &str) {
    let before = listing(dir);
    let mut cmd = d3dfloat();
    cmd.current_dir(dir).args(args);
    if let Some(s) = stdin {
        cmd.write_stdin(s);
    }
    cmd.assert()
        .code(2)
        .stderr(predicate::str::starts_with("d3dfloat: error: "))
        .stderr(predicate::str::contains(msg));
    assert_eq!(listing(dir), before, "files left behind by {args:?}");
}

#[test]
fn truncated_raw_input_is_rejected_and_leaves_no_output() {
    let dir = TempDir::new().unwrap();
    std::fs::write(dir.path().join("odd.f32"), [0u8; 10]).unwrap();
    expect_error_and_nothing_left(
        dir.path(),
        &[
            "convert", "--from", "f32", "--to", "f16", "odd.f32", "-o", "out.f16",
        ],
        None,
        "input size 10 bytes is not a multiple of the 4-byte f32 element",
    );
    // From a pipe the size shows only at the end, after output was written to a
    // temporary file: that file must be gone too. Several MiB so chunks were written.
    let mut big = vec![0u8; (40 << 20) + 7];
    big[..4].copy_from_slice(&1f32.to_le_bytes());
    expect_error_and_nothing_left(
        dir.path(),
        &[
            "convert", "--from", "f32", "--to", "rgb9e5", "-o", "out.bin",
        ],
        Some(big),
        "is not a multiple of the 12-byte texel of 3 f32",
    );
}

/// One core takes a serial loop (read, convert, write one small chunk at a time) instead
/// of the reader/converter/writer threads: both give the same bytes and the same summary,
/// from a file and from a pipe, over many chunks and a short last one, and the serial loop
/// refuses a truncated pipe the same way.
#[test]
fn one_thread_streams_like_many() {
    let dir = TempDir::new().unwrap();
    let mut rng = Rng(0x5eed_0f0e);
    // Random patterns (every class) and texture-like values, 3 MiB and one texel more.
    let words: Vec<u32> = (0..(3 << 18) + 4)
        .map(|i| {
            let r = rng.next() as u32;
            if i % 3 == 0 { r } else { (r % 4096) << 18 }
        })
        .collect();
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let input = dir.path().join("in.f32");
    std::fs::write(&input, &bytes).unwrap();
    for to in ["f16", "f11", "r11g11b10", "rgb9e5"] {
        let mut runs = Vec::new();
        for threads in ["1", "2"] {
            for from_pipe in [false, true] {
                let out = dir.path().join(format!("out-{to}-{threads}-{from_pipe}"));
                let mut cmd = d3dfloat();
                cmd.env("RAYON_NUM_THREADS", threads)
                    .args(["--json", "convert", "--from", "f32", "--to", to])
                    .args(["--channels", "4", "-o"])
                    .arg(&out);
                if from_pipe {
                    cmd.write_stdin(bytes.clone());
                } else {
                    cmd.arg(&input);
                }
                let run = cmd.output().unwrap();
                assert!(run.status.success(), "{to} on {threads} threads");
                let mut summary: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
                // Names and timing differ between the runs; the counts must not.
                for key in ["input", "output", "seconds"] {
                    summary.as_object_mut().unwrap().remove(key);
                }
                runs.push((std::fs::read(&out).unwrap(), summary));
            }
        }
        assert!(runs[0].1["inexact"].as_u64().unwrap() > 0);
        for run in &runs[1..] {
            assert!(run.0 == runs[0].0, "{to}: outputs differ");
            assert_eq!(run.1, runs[0].1, "{to}: summaries differ");
        }
    }
    let mut cut = bytes;
    cut.truncate(cut.len() - 2);
    let mut cmd = d3dfloat();
    cmd.env("RAYON_NUM_THREADS", "1")
        .current_dir(dir.path())
        .args(["convert", "--from", "f32", "--to", "f16", "-o", "cut.f16"])
        .write_stdin(cut)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "is not a multiple of the 4-byte f32",
        ));
    assert!(!dir.path().join("cut.f16").exists());
}

#[test]
fn lying_and_broken_dds_files_are_errors() {
    let dir = TempDir::new().unwrap();
    let mut dds = make_dds(DxgiFormat::R16_Float, 1, 1, |_| 0);
    dds.header.width = 4096; // The data holds 5x6 texels.
    write_dds(&dir.path().join("liar.dds"), &dds);
    expect_error_and_nothing_left(
        dir.path(),
        &["convert", "--to", "f32", "liar.dds", "-o", "out.dds"],
        None,
        "DDS header describes 49152 bytes of texels",
    );
    let mut huge = make_dds(DxgiFormat::R32G32B32A32_Float, 1, 1, |_| 0);
    huge.header.width = u32::MAX;
    huge.header.height = u32::MAX;
    write_dds(&dir.path().join("huge.dds"), &huge);
    expect_error_and_nothing_left(
        dir.path(),
        &["convert", "--to", "f16", "huge.dds", "-o", "out.dds"],
        None,
        "DDS header describes",
    );
    std::fs::write(dir.path().join("junk.dds"), b"DDS not really").unwrap();
    expect_error_and_nothing_left(
        dir.path(),
        &["convert", "--to", "f16", "junk.dds", "-o", "out.dds"],
        None,
        "not a readable DDS file",
    );
    std::fs::write(dir.path().join("junk.exr"), b"nope").unwrap();
    expect_error_and_nothing_left(
        dir.path(),
        &["convert", "--to", "f16", "junk.exr", "-o", "out.dds"],
        None,
        "not a readable OpenEXR file",
    );
}

#[test]
fn refuses_to_write_over_its_input() {
    let dir = TempDir::new().unwrap();
    let input = dir.path().join("data.f32");
    std::fs::write(&input, f32_bytes(&[1.0, 2.0])).unwrap();
    std::fs::hard_link(&input, dir.path().join("alias.f32")).unwrap();
    for target in ["data.f32", "./data.f32", "alias.f32"] {
        expect_error_and_nothing_left(
            dir.path(),
            &[
                "convert", "--from", "f32", "--to", "f16", "data.f32", "-o", target,
            ],
            None,
            "refusing to write over the input file",
        );
    }
    assert_eq!(f32s(&std::fs::read(&input).unwrap()), [1.0, 2.0]);
}

#[test]
fn usage_errors_exit_2() {
    let dir = TempDir::new().unwrap();
    std::fs::write(dir.path().join("x.f32"), [0u8; 12]).unwrap();
    expect_error_and_nothing_left(
        dir.path(),
        &["convert", "--to", "f16", "x.f32", "-o", "y"],
        None,
        "--from is needed for raw input",
    );
    expect_error_and_nothing_left(
        dir.path(),
        &[
            "convert", "--from", "f32", "--to", "f16", "x.f32", "-o", "y.dds",
        ],
        None,
        "a .dds output needs",
    );
    expect_error_and_nothing_left(
        dir.path(),
        &["--json", "convert", "--from", "f32", "--to", "f16", "x.f32"],
        None,
        "give the output file with -o",
    );
    // DXGI has no three-channel f16 format.
    let rgb = make_dds(DxgiFormat::R32G32B32_Float, 1, 1, |_| 0);
    write_dds(&dir.path().join("rgb.dds"), &rgb);
    expect_error_and_nothing_left(
        dir.path(),
        &["convert", "--to", "f16", "rgb.dds", "-o", "half.dds"],
        None,
        "no DXGI format holds 3 channel(s) of f16",
    );
}

/// Out-of-range values packed to R11G11B10 under the default IEEE rounding become INF,
/// where real encoders saturate: the human summary says so and names the options; with
/// --saturate it does not.
#[test]
fn human_summary_warns_when_a_packed_target_got_infinities() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("big.f32");
    std::fs::write(&input, f32_bytes(&[1e9, 1.0, 2.0, 3.0, 4.0, 5.0])).unwrap();
    let run = |extra: &[&str]| {
        let out = d3dfloat()
            .args([
                "convert",
                "--no-progress",
                "--from",
                "f32",
                "--to",
                "r11g11b10",
            ])
            .args(extra)
            .arg(&input)
            .arg("-o")
            .arg(dir.path().join("out.r11"))
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stderr).unwrap()
    };
    let warned = run(&[]);
    assert!(
        warned.contains("warning: 1 value became INF") && warned.contains("--saturate"),
        "{warned}"
    );
    assert!(!run(&["--saturate"]).contains("warning"));
    assert!(!run(&["--rounding", "d3d"]).contains("warning"));
}

/// Issue 38: a mistyped `D3DFLOAT_SIMD` is one warning line naming the variable and the
/// values it takes, and the conversion runs as without it.
#[test]
fn a_bad_simd_setting_is_one_warning_line() {
    let dir = TempDir::new().unwrap();
    let input = dir.path().join("in.f32");
    std::fs::write(&input, f32_bytes(&[1.0, 2.0])).unwrap();
    let out = d3dfloat()
        .env("D3DFLOAT_SIMD", "sse9")
        .args([
            "convert", "--from", "f32", "--to", "f16", "--plain", "-o", "-",
        ])
        .arg(&input)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(out.stdout, [0x00, 0x3c, 0x00, 0x40]);
    let err = String::from_utf8(out.stderr).unwrap();
    let warnings: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("D3DFLOAT_SIMD"))
        .collect();
    assert_eq!(warnings.len(), 1, "{err}");
    assert!(
        warnings[0].starts_with("d3dfloat: warning: D3DFLOAT_SIMD=sse9: ")
            && warnings[0].contains("portable, avx2, f16c, avx512"),
        "{err}"
    );
    // A level's name (any case) warns of nothing.
    let out = d3dfloat()
        .env("D3DFLOAT_SIMD", "Portable")
        .args(["convert", "--from", "f32", "--to", "f16", "-o", "-"])
        .arg(&input)
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stderr).contains("warning"));
}
