//! The containers `convert` writes, read by independent readers, and theirs read by it
//! (issue 37): OpenEXR's own Python binding reads our `.exr` (tests/python/
//! read_containers.py), numpy reads our `.pfm` (same script), ktx-parse (an independent
//! KTX 2.0 reader and writer, tests/js/ktx_parse.mjs) and KTX-Software (the reference
//! KTX 2.0 library: its validator ktx2check and libktx, driven by tests/ktx_software/
//! ktx_tool.c) read our `.ktx2` and write files we read; round trips DDS -> KTX2 -> EXR
//! -> DDS are bit-identical where the formats are; what a container cannot hold is a
//! one-line error. scripts/test installs the readers (pip: OpenEXR, numpy; npm: ktx-parse
//! under target/node; KTX-Software built from source under target/ktx-software); a test
//! whose reader is missing says so on stderr and passes.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command as StdCommand;

use assert_cmd::Command;
use ddsfile::{AlphaMode, D3D10ResourceDimension, Dds, DxgiFormat, NewDxgiParams};
use serde_json::Value;
use tempfile::TempDir;

fn d3dfloat() -> Command {
    Command::cargo_bin("d3dfloat").unwrap()
}

fn convert(input: &Path, to: &str, output: &Path, extra: &[&str]) {
    let out = d3dfloat()
        .args(["convert", "--no-progress", "--to", to])
        .args(extra)
        .arg(input)
        .arg("-o")
        .arg(output)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "convert {} --to {to} -o {}: {}",
        input.display(),
        output.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The one error line of a `convert` that must fail, with exit 2.
fn convert_error(args: &[&str], dir: &Path) -> String {
    let out = d3dfloat()
        .current_dir(dir)
        .arg("convert")
        .args(args)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    err
}

/// Values with every class a float texture carries, exact in f16: zeros of both signs,
/// subnormals of f16, normals, the largest f16 and infinities. NaN is left out: an EXR
/// writer may keep or quiet payloads, and bit identity is the question here.
fn interesting(i: usize) -> f32 {
    const V: [f32; 12] = [
        0.0,
        -0.0,
        5.960_464_5e-8,
        -6.097_555e-5,
        1.0,
        -2.5,
        0.333_251_95,
        65504.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        1024.5,
        -0.099_975_586,
    ];
    V[i % V.len()] * if i / V.len() % 2 == 1 { 0.5 } else { 1.0 }
}

/// A DDS texture of `format`, `width` x `height`, with the given levels and layers (six
/// per cube when `cube`), filled with `interesting` values (or bytes, for the packed
/// formats, whose every pattern is a value).
fn make_dds(
    format: DxgiFormat,
    (width, height): (u32, u32),
    mips: u32,
    layers: u32,
    cube: bool,
) -> Dds {
    let mut dds = Dds::new_dxgi(NewDxgiParams {
        height,
        width,
        depth: None,
        format,
        mipmap_levels: Some(mips),
        // ddsfile counts a cube's faces as layers.
        array_layers: Some(if cube { layers * 6 } else { layers }),
        caps2: None,
        is_cubemap: cube,
        resource_dimension: D3D10ResourceDimension::Texture2D,
        alpha_mode: AlphaMode::Unknown,
    })
    .unwrap();
    let element = match format {
        DxgiFormat::R16G16B16A16_Float | DxgiFormat::R16G16_Float | DxgiFormat::R16_Float => 2,
        DxgiFormat::R11G11B10_Float | DxgiFormat::R9G9B9E5_SharedExp => 0,
        _ => 4,
    };
    let data = &mut dds.data;
    match element {
        4 => {
            for (i, c) in data.chunks_exact_mut(4).enumerate() {
                c.copy_from_slice(&interesting(i).to_le_bytes());
            }
        }
        2 => {
            for (i, c) in data.chunks_exact_mut(2).enumerate() {
                let h = half::f16::from_f32(interesting(i));
                c.copy_from_slice(&h.to_bits().to_le_bytes());
            }
        }
        _ => {
            // Words that convert gives back unchanged: finite f11/f10 channels (exponent
            // below 31), and RGB9E5 words whose largest mantissa uses its top bit (the
            // one encoding of their value).
            for (i, c) in data.chunks_exact_mut(4).enumerate() {
                let n = (i as u32).wrapping_mul(2_654_435_761);
                let word = if format == DxgiFormat::R11G11B10_Float {
                    (n % 0x7c0) | ((n / 7 % 0x7c0) << 11) | ((n / 3 % 0x3e0) << 22)
                } else {
                    (256 | (n % 256))
                        | ((n / 5 % 512) << 9)
                        | ((n / 11 % 512) << 18)
                        | ((n % 32) << 27)
                };
                c.copy_from_slice(&word.to_le_bytes());
            }
        }
    }
    dds
}

fn write_dds(path: &Path, dds: &Dds) {
    dds.write(&mut std::fs::File::create(path).unwrap())
        .unwrap();
}

fn read_dds(path: &Path) -> Dds {
    Dds::read(std::fs::File::open(path).unwrap()).unwrap()
}

const FORMATS: [(DxgiFormat, &str, u32, &str); 9] = [
    (
        DxgiFormat::R32G32B32A32_Float,
        "f32",
        109,
        "R32G32B32A32_SFLOAT",
    ),
    (DxgiFormat::R32G32B32_Float, "f32", 106, "R32G32B32_SFLOAT"),
    (
        DxgiFormat::R16G16B16A16_Float,
        "f16",
        97,
        "R16G16B16A16_SFLOAT",
    ),
    (DxgiFormat::R32G32_Float, "f32", 103, "R32G32_SFLOAT"),
    (DxgiFormat::R16G16_Float, "f16", 83, "R16G16_SFLOAT"),
    (DxgiFormat::R32_Float, "f32", 100, "R32_SFLOAT"),
    (DxgiFormat::R16_Float, "f16", 76, "R16_SFLOAT"),
    (
        DxgiFormat::R11G11B10_Float,
        "r11g11b10",
        122,
        "B10G11R11_UFLOAT_PACK32",
    ),
    (
        DxgiFormat::R9G9B9E5_SharedExp,
        "rgb9e5",
        123,
        "E5B9G9R9_UFLOAT_PACK32",
    ),
];

/// Every DXGI format, with mip levels and array layers, and as a cube map with mips:
/// DDS -> KTX2 -> DDS gives the file DDS -> DDS gives, byte for byte.
#[test]
fn textures_with_mips_layers_and_cubes_round_trip_through_ktx2() {
    let dir = TempDir::new().unwrap();
    let p = |n: &str| dir.path().join(n);
    for (format, to, ..) in FORMATS {
        for (size, mips, layers, cube) in [((5, 6), 3, 2, false), ((4, 4), 3, 2, true)] {
            let what = format!("{format:?} {size:?} mips {mips} layers {layers} cube {cube}");
            write_dds(&p("in.dds"), &make_dds(format, size, mips, layers, cube));
            convert(&p("in.dds"), to, &p("direct.dds"), &[]);
            convert(&p("in.dds"), to, &p("via.ktx2"), &[]);
            convert(&p("via.ktx2"), to, &p("back.dds"), &[]);
            let (direct, back) = (
                std::fs::read(p("direct.dds")).unwrap(),
                std::fs::read(p("back.dds")).unwrap(),
            );
            assert!(direct == back, "{what}: DDS -> KTX2 -> DDS differs");
            assert_eq!(read_dds(&p("in.dds")).data, read_dds(&p("back.dds")).data);
        }
    }
}

/// DDS -> KTX2 -> EXR -> DDS keeps every bit, for f32 and f16 texels (EXR FLOAT and
/// HALF channels), RGBA and one channel (EXR Y), and every compression convert writes.
#[test]
fn dds_to_ktx2_to_exr_to_dds_is_bit_identical() {
    let dir = TempDir::new().unwrap();
    let p = |n: &str| dir.path().join(n);
    let cases = [
        (DxgiFormat::R32G32B32A32_Float, "f32"),
        (DxgiFormat::R16G16B16A16_Float, "f16"),
        (DxgiFormat::R32_Float, "f32"),
        (DxgiFormat::R16_Float, "f16"),
    ];
    for (format, to) in cases {
        for compression in ["none", "zip", "piz"] {
            let what = format!("{format:?} {compression}");
            let dds = make_dds(format, (13, 7), 1, 1, false);
            write_dds(&p("in.dds"), &dds);
            convert(&p("in.dds"), to, &p("a.ktx2"), &[]);
            convert(
                &p("a.ktx2"),
                to,
                &p("b.exr"),
                &["--compression", compression],
            );
            convert(&p("b.exr"), to, &p("c.dds"), &[]);
            assert!(read_dds(&p("c.dds")).data == dds.data, "{what}");
        }
    }
}

/// DDS RGB32F -> PFM -> DDS keeps every bit; PFM -> KTX2 -> PFM too.
#[test]
fn pfm_round_trips_are_bit_identical() {
    let dir = TempDir::new().unwrap();
    let p = |n: &str| dir.path().join(n);
    for format in [DxgiFormat::R32G32B32_Float, DxgiFormat::R32_Float] {
        let dds = make_dds(format, (9, 5), 1, 1, false);
        write_dds(&p("in.dds"), &dds);
        convert(&p("in.dds"), "f32", &p("a.pfm"), &[]);
        convert(&p("a.pfm"), "f32", &p("b.ktx2"), &[]);
        convert(&p("b.ktx2"), "f32", &p("c.pfm"), &[]);
        assert_eq!(
            std::fs::read(p("a.pfm")).unwrap(),
            std::fs::read(p("c.pfm")).unwrap()
        );
        convert(&p("c.pfm"), "f32", &p("d.dds"), &[]);
        assert!(read_dds(&p("d.dds")).data == dds.data, "{format:?}");
    }
}

// ---- Independent readers ----

fn python() -> String {
    std::env::var("D3DFLOAT_PYTHON").unwrap_or_else(|_| "python3".into())
}

/// Runs tests/python/read_containers.py; `None` (with a loud skip line) when the
/// package it needs is missing.
fn python_reads(mode: &str, path: &Path) -> Option<Value> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/read_containers.py");
    let out = StdCommand::new(python())
        .arg(&script)
        .arg(mode)
        .arg(path)
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", python()));
    let err = String::from_utf8_lossy(&out.stderr);
    if out.status.code() == Some(2) && err.contains("is missing") {
        eprintln!("SKIPPED ({mode} reader): {} (run scripts/test)", err.trim());
        return None;
    }
    assert!(out.status.success(), "{mode} {}: {err}", path.display());
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

fn f32_bits(data: &[u8]) -> Vec<u64> {
    data.chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()) as u64)
        .collect()
}

fn u16_bits(data: &[u8]) -> Vec<u64> {
    data.chunks_exact(2)
        .map(|c| u16::from_le_bytes(c.try_into().unwrap()) as u64)
        .collect()
}

fn bits_of(v: &Value) -> Vec<u64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_u64().unwrap())
        .collect()
}

/// OpenEXR's own reader finds in our `.exr` the channels, types and bits of the texture
/// it came from, for each compression and channel count.
#[test]
fn openexr_reads_our_exr_with_the_same_bits() {
    let dir = TempDir::new().unwrap();
    let p = |n: &str| dir.path().join(n);
    let cases = [
        (DxgiFormat::R32G32B32A32_Float, "f32", 4, "float"),
        (DxgiFormat::R16G16B16A16_Float, "f16", 4, "half"),
        (DxgiFormat::R32G32B32_Float, "f32", 3, "float"),
        (DxgiFormat::R16_Float, "f16", 1, "half"),
    ];
    for (format, to, channels, kind) in cases {
        for compression in ["none", "zip", "piz"] {
            let what = format!("{format:?} {compression}");
            let dds = make_dds(format, (11, 6), 1, 1, false);
            write_dds(&p("in.dds"), &dds);
            convert(
                &p("in.dds"),
                to,
                &p("out.exr"),
                &["--compression", compression],
            );
            let Some(read) = python_reads("exr", &p("out.exr")) else {
                return;
            };
            assert_eq!(
                (read["width"].as_u64(), read["height"].as_u64()),
                (Some(11), Some(6))
            );
            let want =
                ["NO_COMPRESSION", "ZIP_COMPRESSION", "PIZ_COMPRESSION"][["none", "zip", "piz"]
                    .iter()
                    .position(|c| *c == compression)
                    .unwrap()];
            assert!(
                read["compression"].as_str().unwrap().contains(want),
                "{what}: {read}"
            );
            let names: &[&str] = match channels {
                1 => &["Y"],
                3 => &["R", "G", "B"],
                _ => &["R", "G", "B", "A"],
            };
            let all = if to == "f16" {
                u16_bits(&dds.data)
            } else {
                f32_bits(&dds.data)
            };
            assert_eq!(
                read["channels"].as_object().unwrap().len(),
                channels,
                "{what}"
            );
            for (c, name) in names.iter().enumerate() {
                let ch = &read["channels"][name];
                assert_eq!(ch["type"], kind, "{what} {name}");
                let expected: Vec<u64> = all.iter().skip(c).step_by(channels).copied().collect();
                assert_eq!(bits_of(&ch["bits"]), expected, "{what} {name}");
            }
        }
    }
}

/// numpy, reading the PFM layout itself, finds our floats (rows top side up again).
#[test]
fn numpy_reads_our_pfm_with_the_same_bits() {
    let dir = TempDir::new().unwrap();
    let p = |n: &str| dir.path().join(n);
    for (format, channels) in [(DxgiFormat::R32G32B32_Float, 3), (DxgiFormat::R32_Float, 1)] {
        let dds = make_dds(format, (7, 3), 1, 1, false);
        write_dds(&p("in.dds"), &dds);
        convert(&p("in.dds"), "f32", &p("out.pfm"), &[]);
        let Some(read) = python_reads("pfm", &p("out.pfm")) else {
            return;
        };
        assert_eq!(read["channels"].as_u64(), Some(channels));
        assert_eq!(
            (read["width"].as_u64(), read["height"].as_u64()),
            (Some(7), Some(3))
        );
        assert_eq!(bits_of(&read["bits"]), f32_bits(&dds.data), "{format:?}");
    }
}

/// node and the folder holding ktx-parse, or `None` with a loud skip line.
fn ktx_parse() -> Option<(String, PathBuf)> {
    let modules = std::env::var("D3DFLOAT_NODE_PATH").map_or_else(
        |_| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/node/node_modules"),
        PathBuf::from,
    );
    let node = std::env::var("D3DFLOAT_NODE").unwrap_or_else(|_| "node".into());
    let has_node = StdCommand::new(&node).arg("--version").output().is_ok();
    if !has_node || !modules.join("ktx-parse").exists() {
        eprintln!(
            "SKIPPED (ktx-parse): {} not found (run scripts/test, which installs it with npm)",
            if has_node {
                modules.join("ktx-parse").display().to_string()
            } else {
                node
            }
        );
        return None;
    }
    Some((node, modules))
}

fn ktx_parse_run(args: &[&std::ffi::OsStr]) -> Option<Vec<u8>> {
    let (node, modules) = ktx_parse()?;
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/js/ktx_parse.mjs");
    let out = StdCommand::new(node)
        .arg(script)
        .args(args)
        .env("NODE_PATH", &modules)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "ktx_parse.mjs {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(out.stdout)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The bytes of each level of a DDS texture's data (layer-major in the DDS file), every
/// layer of the level together, as a KTX2 file stores them: level 0 first.
fn levels_of(dds: &Dds, texel: usize, (w, h): (u32, u32), mips: u32, layers: u32) -> Vec<Vec<u8>> {
    let size = |l: u32| ((w >> l).max(1) * (h >> l).max(1)) as usize * texel;
    levels_sized(dds, size, mips, layers)
}

/// [`levels_of`] with each level's bytes per layer given by `size`.
fn levels_sized(dds: &Dds, size: impl Fn(u32) -> usize, mips: u32, layers: u32) -> Vec<Vec<u8>> {
    let per_layer: usize = (0..mips).map(&size).sum();
    (0..mips)
        .map(|level| {
            let start: usize = (0..level).map(&size).sum();
            (0..layers as usize)
                .flat_map(|layer| {
                    let at = layer * per_layer + start;
                    dds.data[at..at + size(level)].to_vec()
                })
                .collect()
        })
        .collect()
}

/// ktx-parse reads every KTX2 file we write: the header, the descriptor (as KTX-Software
/// makes it for the format), our writer's key and each level's bytes.
#[test]
fn ktx_parse_reads_our_ktx2() {
    let dir = TempDir::new().unwrap();
    let p = |n: &str| dir.path().join(n);
    for (format, to, vk, _) in FORMATS {
        for (size, mips, layers, cube) in [((6, 5), 3, 2, false), ((4, 4), 2, 1, true)] {
            let what = format!("{format:?} cube {cube}");
            let dds = make_dds(format, size, mips, layers, cube);
            write_dds(&p("in.dds"), &dds);
            convert(&p("in.dds"), to, &p("out.ktx2"), &[]);
            let Some(out) = ktx_parse_run(&["read".as_ref(), p("out.ktx2").as_os_str()]) else {
                return;
            };
            let c: Value = serde_json::from_slice(&out).unwrap();
            let texel = dds.get_bits_per_pixel().unwrap() as usize / 8;
            assert_eq!(c["vkFormat"], vk, "{what}");
            assert_eq!(c["pixelWidth"], size.0, "{what}");
            assert_eq!(c["pixelHeight"], size.1, "{what}");
            assert_eq!(c["pixelDepth"], 0, "{what}");
            assert_eq!(c["faceCount"], if cube { 6 } else { 1 }, "{what}");
            assert_eq!(
                c["layerCount"],
                if layers > 1 { layers } else { 0 },
                "{what}"
            );
            assert_eq!(c["supercompressionScheme"], 0, "{what}");
            assert_eq!(c["dfd"]["bytesPlane"][0], texel, "{what}");
            assert_eq!(c["dfd"]["transferFunction"], 1, "{what}: linear");
            assert!(
                c["keyValue"]["KTXwriter"]
                    .as_str()
                    .unwrap()
                    .starts_with("d3dfloat")
            );
            let samples = c["dfd"]["samples"].as_array().unwrap();
            match format {
                DxgiFormat::R9G9B9E5_SharedExp => assert_eq!(samples.len(), 6),
                DxgiFormat::R11G11B10_Float => {
                    let bits: Vec<_> = samples.iter().map(|s| s["bitLength"].clone()).collect();
                    assert_eq!(bits, [10, 10, 9], "{what}: 11, 11 and 10 bits, less one");
                }
                _ => {
                    assert_eq!(samples.len() * (texel / samples.len()), texel, "{what}");
                    // FLOAT | SIGNED, and the last of four channels is alpha (15).
                    assert!(
                        samples
                            .iter()
                            .all(|s| s["channelType"].as_u64().unwrap() & 0xC0 == 0xC0)
                    );
                }
            }
            let faces = if cube { 6 } else { 1 };
            let want = levels_of(&dds, texel, size, mips, layers * faces);
            let got = c["levels"].as_array().unwrap();
            assert_eq!(got.len(), mips as usize, "{what}");
            for (level, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(g["data"].as_str().unwrap(), hex(w), "{what} level {level}");
            }
        }
    }
}

/// KTX2 files ktx-parse writes (with descriptors made here from the Khronos Data Format
/// specification) convert to the DDS texture holding the same texels.
#[test]
fn we_read_ktx2_written_by_ktx_parse() {
    let dir = TempDir::new().unwrap();
    let p = |n: &str| dir.path().join(n);
    let one = 1f32.to_bits() as i64;
    let minus_one = (-1f32).to_bits() as i32 as i64;
    let float_samples = |channels: u32, bits: u32| -> Vec<Value> {
        (0..channels)
            .map(|i| {
                let id = if i == 3 { 15 } else { i };
                serde_json::json!({
                    "bitOffset": i * bits, "bitLength": bits - 1, "channelType": id | 0xC0,
                    "samplePosition": [0, 0, 0, 0], "sampleLower": minus_one, "sampleUpper": one
                })
            })
            .collect()
    };
    let packed = [(0, 11, 0), (11, 11, 1), (22, 10, 2)]
        .map(|(o, l, c)| {
            serde_json::json!({
                "bitOffset": o, "bitLength": l - 1, "channelType": c | 0x80,
                "samplePosition": [0, 0, 0, 0], "sampleLower": 0, "sampleUpper": one
            })
        })
        .to_vec();
    let cases = [
        (
            DxgiFormat::R16G16B16A16_Float,
            "f16",
            97,
            2,
            float_samples(4, 16),
            (6, 5),
            3,
            2,
        ),
        (
            DxgiFormat::R32_Float,
            "f32",
            100,
            4,
            float_samples(1, 32),
            (7, 3),
            2,
            1,
        ),
        (
            DxgiFormat::R32G32_Float,
            "f32",
            103,
            4,
            float_samples(2, 32),
            (4, 4),
            3,
            3,
        ),
        (
            DxgiFormat::R11G11B10_Float,
            "r11g11b10",
            122,
            4,
            packed,
            (5, 5),
            3,
            1,
        ),
    ];
    for (format, to, vk, type_size, samples, size, mips, layers) in cases {
        let dds = make_dds(format, size, mips, layers, false);
        let texel = dds.get_bits_per_pixel().unwrap() as usize / 8;
        let spec = serde_json::json!({
            "vkFormat": vk, "typeSize": type_size, "pixelWidth": size.0,
            "pixelHeight": size.1, "pixelDepth": 0,
            "layerCount": if layers > 1 { layers } else { 0 }, "faceCount": 1,
            "bytesPlane0": texel, "samples": samples,
            "levels": levels_of(&dds, texel, size, mips, layers).iter().map(|l| hex(l)).collect::<Vec<_>>(),
        });
        std::fs::write(p("spec.json"), spec.to_string()).unwrap();
        let (theirs, spec) = (p("theirs.ktx2"), p("spec.json"));
        let args = ["write".as_ref(), theirs.as_os_str(), spec.as_os_str()];
        if ktx_parse_run(&args).is_none() {
            return;
        }
        convert(&p("theirs.ktx2"), to, &p("ours.dds"), &[]);
        let ours = read_dds(&p("ours.dds"));
        assert!(ours.data == dds.data, "{format:?}");
        assert_eq!(ours.get_num_mipmap_levels(), mips, "{format:?}");
        assert_eq!(ours.get_num_array_layers(), layers, "{format:?}");
    }
}

// ---- What a container cannot hold ----

#[test]
fn what_a_container_cannot_hold_is_one_line_naming_the_property() {
    let dir = TempDir::new().unwrap();
    let p = |n: &str| dir.path().join(n);
    write_dds(
        &p("mips.dds"),
        &make_dds(DxgiFormat::R32G32B32A32_Float, (4, 4), 3, 1, false),
    );
    write_dds(
        &p("cube.dds"),
        &make_dds(DxgiFormat::R16G16B16A16_Float, (4, 4), 1, 1, true),
    );
    write_dds(
        &p("rgba.dds"),
        &make_dds(DxgiFormat::R32G32B32A32_Float, (4, 4), 1, 1, false),
    );
    write_dds(
        &p("rg.dds"),
        &make_dds(DxgiFormat::R32G32_Float, (4, 4), 1, 1, false),
    );
    write_dds(
        &p("r11.dds"),
        &make_dds(DxgiFormat::R11G11B10_Float, (4, 4), 1, 1, false),
    );
    let cases: [(&[&str], &str); 12] = [
        (&["mips.dds", "--to", "f32", "-o", "x.exr"], "3 mip levels"),
        (&["mips.dds", "--to", "f32", "-o", "x.pfm"], "3 mip levels"),
        (&["cube.dds", "--to", "f16", "-o", "x.exr"], "6 cube faces"),
        (
            &["rgba.dds", "--to", "r11g11b10", "-o", "x.exr"],
            "R11G11B10",
        ),
        (
            &["r11.dds", "--to", "r11g11b10", "-o", "x.exr"],
            "R11G11B10",
        ),
        (&["rgba.dds", "--to", "f32", "-o", "x.pfm"], "--channels 3"),
        (
            &["rgba.dds", "--to", "f16", "-o", "x.pfm"],
            "f32 values only",
        ),
        (&["rg.dds", "--to", "f32", "-o", "x.exr"], "2 channel(s)"),
        (
            &["rgba.dds", "--to", "f32", "-o", "x.png"],
            "does not write .png",
        ),
        (
            &["rgba.dds", "--to", "f32", "-o", "x.JPG"],
            "does not write .jpg",
        ),
        (
            &["rgba.dds", "--to", "f32", "-o", "x.hdr"],
            "does not write .hdr",
        ),
        (
            &["rg.dds", "--to", "f32", "--channels", "3", "-o", "x.dds"],
            "holds 2 channel(s)",
        ),
    ];
    for (args, want) in cases {
        let err = convert_error(args, dir.path());
        assert!(err.contains(want), "{args:?}: {err}");
    }
    let err = convert_error(
        &[
            "r11.dds",
            "--to",
            "rgb9e5",
            "--channels",
            "3",
            "-o",
            "y.dds",
        ],
        dir.path(),
    );
    assert!(err.contains("two packed formats"), "{err}");
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with('x') || n.starts_with('y') || n.contains(".part"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    // --raw writes raw bytes under any name; --channels keeps the first channels.
    let out = d3dfloat()
        .current_dir(dir.path())
        .args([
            "convert",
            "rgba.dds",
            "--to",
            "f16",
            "--channels",
            "2",
            "--raw",
            "-o",
            "x.png",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rgba = read_dds(&p("rgba.dds")).data;
    let want: Vec<u8> = rgba
        .chunks_exact(16)
        .flat_map(|t| {
            t[..8].chunks(4).flat_map(|v| {
                let f = f32::from_le_bytes(v.try_into().unwrap());
                half::f16::from_f32(f).to_bits().to_le_bytes()
            })
        })
        .collect();
    assert_eq!(std::fs::read(p("x.png")).unwrap(), want);
}

// ---- BC6H in KTX2 ----

const BC6H: [(DxgiFormat, &str, u32); 2] = [
    (DxgiFormat::BC6H_UF16, "bc6h_uf16", 143),
    (DxgiFormat::BC6H_SF16, "bc6h_sf16", 144),
];

/// Sizes not a multiple of 4 (whole blocks all the same), mips, layers and a cube.
const BC6H_SHAPES: [((u32, u32), u32, u32, bool); 3] = [
    ((13, 6), 4, 2, false),
    ((8, 8), 4, 1, true),
    ((3, 1), 2, 1, false),
];

/// A DDS texture of BC6H blocks of random bytes.
fn bc6h_dds(format: DxgiFormat, size: (u32, u32), mips: u32, layers: u32, cube: bool) -> Dds {
    let mut dds = make_dds(format, size, mips, layers, cube);
    let len = dds.data.len();
    dds.data = common::random_bytes(len, len as u64 ^ format as u64);
    dds
}

/// Bytes of one layer's level `l` of a BC6H texture: whole 4x4 blocks of 16 bytes.
fn block_level_bytes((w, h): (u32, u32)) -> impl Fn(u32) -> usize {
    move |l| ((w >> l).max(1).div_ceil(4) * (h >> l).max(1).div_ceil(4) * 16) as usize
}

/// BC6H blocks go DDS -> KTX2 -> DDS unchanged (every level, layer and face), and the
/// KTX2 decodes to the texels the DDS does.
#[test]
fn bc6h_dds_to_ktx2_to_dds_is_bit_identical() {
    let dir = TempDir::new().unwrap();
    let p = |n: &str| dir.path().join(n);
    for (format, to, _) in BC6H {
        for (size, mips, layers, cube) in BC6H_SHAPES {
            let what = format!("{format:?} {size:?} cube {cube}");
            let dds = bc6h_dds(format, size, mips, layers, cube);
            write_dds(&p("in.dds"), &dds);
            convert(&p("in.dds"), to, &p("mid.ktx2"), &[]);
            let copied = d3dfloat()
                .args(["convert", "--no-progress", "--to", to])
                .arg(p("mid.ktx2"))
                .arg("-o")
                .arg(p("back.dds"))
                .output()
                .unwrap();
            let summary = String::from_utf8_lossy(&copied.stderr);
            assert!(
                summary.contains(&format!("converted 0 values {to} -> {to}")),
                "{what}: {summary}"
            );
            let back = read_dds(&p("back.dds"));
            assert_eq!(back.get_dxgi_format(), Some(format), "{what}");
            assert_eq!(back.get_num_mipmap_levels(), mips, "{what}");
            assert_eq!(back.get_num_array_layers(), dds.get_num_array_layers());
            assert!(back.data == dds.data, "{what}: blocks changed");
            convert(&p("in.dds"), "f16", &p("a.dds"), &[]);
            convert(&p("mid.ktx2"), "f16", &p("b.dds"), &[]);
            assert!(
                read_dds(&p("a.dds")).data == read_dds(&p("b.dds")).data,
                "{what}"
            );
        }
    }
}

/// ktx-parse reads our BC6H KTX2: the VkFormat, typeSize 1, the descriptor KTX-Software
/// makes for BC6H (model 133, 4x4 texel blocks, 16 bytes, one 128-bit colour sample,
/// FLOAT and for SFLOAT SIGNED) and each level's blocks.
#[test]
fn ktx_parse_reads_our_bc6h_ktx2() {
    let dir = TempDir::new().unwrap();
    let p = |n: &str| dir.path().join(n);
    for (format, to, vk) in BC6H {
        for (size, mips, layers, cube) in BC6H_SHAPES {
            let what = format!("{format:?} {size:?} cube {cube}");
            let dds = bc6h_dds(format, size, mips, layers, cube);
            write_dds(&p("in.dds"), &dds);
            convert(&p("in.dds"), to, &p("out.ktx2"), &[]);
            let Some(out) = ktx_parse_run(&["read".as_ref(), p("out.ktx2").as_os_str()]) else {
                return;
            };
            let c: Value = serde_json::from_slice(&out).unwrap();
            assert_eq!(c["vkFormat"], vk, "{what}");
            assert_eq!(c["typeSize"], 1, "{what}");
            assert_eq!(c["pixelWidth"], size.0, "{what}");
            assert_eq!(c["faceCount"], if cube { 6 } else { 1 }, "{what}");
            let dfd = &c["dfd"];
            assert_eq!(dfd["colorModel"], 133, "{what}");
            assert_eq!(dfd["texelBlockDimension"], serde_json::json!([3, 3, 0, 0]));
            assert_eq!(dfd["bytesPlane"][0], 16, "{what}");
            assert_eq!(dfd["transferFunction"], 1, "{what}");
            let samples = dfd["samples"].as_array().unwrap();
            assert_eq!(samples.len(), 1, "{what}");
            assert_eq!(samples[0]["bitOffset"], 0, "{what}");
            assert_eq!(samples[0]["bitLength"], 127, "{what}");
            let signed = format == DxgiFormat::BC6H_SF16;
            assert_eq!(
                samples[0]["channelType"],
                if signed { 0xC0 } else { 0x80 },
                "{what}: channel 0 (colour), FLOAT, SIGNED for SF16"
            );
            let faces = if cube { 6 } else { 1 };
            let want = levels_sized(&dds, block_level_bytes(size), mips, layers * faces);
            let got = c["levels"].as_array().unwrap();
            assert_eq!(got.len(), mips as usize, "{what}");
            for (level, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(g["data"].as_str().unwrap(), hex(w), "{what} level {level}");
            }
        }
    }
}

/// BC6H KTX2 files ktx-parse writes (the descriptor made here from the Khronos Data Format
/// specification) hold the blocks of the DDS file made from them, and decode as it does.
#[test]
fn we_read_bc6h_ktx2_written_by_ktx_parse() {
    let dir = TempDir::new().unwrap();
    let p = |n: &str| dir.path().join(n);
    for (format, to, vk) in BC6H {
        let (size, mips, layers) = ((13, 6), 3, 2);
        let dds = bc6h_dds(format, size, mips, layers, false);
        let signed = format == DxgiFormat::BC6H_SF16;
        let lower = if signed { (-1f32).to_bits() as i32 } else { 0 };
        let spec = serde_json::json!({
            "vkFormat": vk, "typeSize": 1, "pixelWidth": size.0, "pixelHeight": size.1,
            "pixelDepth": 0, "layerCount": layers, "faceCount": 1,
            "colorModel": 133, "texelBlockDimension": [3, 3, 0, 0], "bytesPlane0": 16,
            "samples": [{
                "bitOffset": 0, "bitLength": 127, "channelType": if signed { 0xC0 } else { 0x80 },
                "samplePosition": [0, 0, 0, 0], "sampleLower": lower,
                "sampleUpper": 1f32.to_bits() as i64
            }],
            "levels": levels_sized(&dds, block_level_bytes(size), mips, layers)
                .iter().map(|l| hex(l)).collect::<Vec<_>>(),
        });
        std::fs::write(p("spec.json"), spec.to_string()).unwrap();
        let (theirs, spec) = (p("theirs.ktx2"), p("spec.json"));
        let args = ["write".as_ref(), theirs.as_os_str(), spec.as_os_str()];
        if ktx_parse_run(&args).is_none() {
            return;
        }
        convert(&p("theirs.ktx2"), to, &p("ours.dds"), &[]);
        assert!(read_dds(&p("ours.dds")).data == dds.data, "{format:?}");
        write_dds(&p("in.dds"), &dds);
        convert(&p("in.dds"), "f32", &p("a.dds"), &[]);
        convert(&p("theirs.ktx2"), "f32", &p("b.dds"), &[]);
        assert!(read_dds(&p("a.dds")).data == read_dds(&p("b.dds")).data);
    }
}

/// EXR and PFM hold values, not blocks: `--to bc6h_*` into them is refused naming it; a
/// BC6H input of one image converts into them decoded; an EXR encodes into a BC6H KTX2.
#[test]
fn bc6h_into_and_out_of_exr_and_pfm() {
    let dir = TempDir::new().unwrap();
    let p = |n: &str| dir.path().join(n);
    let one = bc6h_dds(DxgiFormat::BC6H_SF16, (8, 4), 1, 1, false);
    write_dds(&p("one.dds"), &one);
    for out in ["x.exr", "x.pfm"] {
        let err = convert_error(&["one.dds", "--to", "bc6h_sf16", "-o", out], dir.path());
        assert!(err.contains("BC6H blocks"), "{out}: {err}");
    }
    let mips = bc6h_dds(DxgiFormat::BC6H_UF16, (8, 8), 3, 1, false);
    write_dds(&p("mips.dds"), &mips);
    let err = convert_error(&["mips.dds", "--to", "f32", "-o", "x.exr"], dir.path());
    assert!(
        err.contains("DDS BC6H_UF16") && err.contains("3 mip levels"),
        "{err}"
    );
    let err = convert_error(&["one.dds", "--to", "f32", "-o", "x.pfm"], dir.path());
    assert!(err.contains("--channels 3"), "{err}");
    convert(&p("one.dds"), "f16", &p("one.exr"), &[]);
    convert(&p("one.dds"), "f32", &p("one.pfm"), &["--channels", "3"]);
    // Smooth HDR values with negative reds: EXR -> BC6H SF16 KTX2 -> f32 keeps the signs
    // and the values within 15% (of 1 at least: the second block's reds span 0.4 to 9,
    // and a block's error follows its range).
    let mut src = make_dds(DxgiFormat::R32G32B32A32_Float, (8, 4), 1, 1, false);
    let values: Vec<f32> = (0..32)
        .flat_map(|i| {
            let v = 2f32.powf(i as f32 / 6.0 - 2.0);
            [if i % 8 < 4 { v } else { -v }, v * 0.5, 1.0 + v / 8.0, 1.0]
        })
        .collect();
    src.data = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    write_dds(&p("smooth.dds"), &src);
    convert(&p("smooth.dds"), "f32", &p("smooth.exr"), &[]);
    convert(&p("smooth.exr"), "bc6h_sf16", &p("smooth.ktx2"), &[]);
    convert(&p("smooth.ktx2"), "f32", &p("back.dds"), &[]);
    let back: Vec<f32> = read_dds(&p("back.dds"))
        .data
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(back.len(), values.len());
    for (i, (x, y)) in values.iter().zip(&back).enumerate() {
        assert!(
            (x - y).abs() <= x.abs().max(1.0) * 0.15,
            "value {i}: {x} became {y}"
        );
    }
}

// ---- KTX-Software, the reference implementation of KTX 2.0 ----

/// The folder holding KTX-Software's `ktx2check` and `ktx_tool` (a libktx driver,
/// tests/ktx_software/ktx_tool.c), as scripts/install-ktx-software.sh builds them, or
/// `None` with a loud skip line.
fn ktx_software() -> Option<PathBuf> {
    let dir = std::env::var("D3DFLOAT_KTX_SOFTWARE").map_or_else(
        |_| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/ktx-software/bin"),
        PathBuf::from,
    );
    if !dir.join("ktx2check").exists() || !dir.join("ktx_tool").exists() {
        eprintln!(
            "SKIPPED (KTX-Software): no ktx2check and ktx_tool in {} (run scripts/test, which \
             builds them with scripts/install-ktx-software.sh)",
            dir.display()
        );
        return None;
    }
    Some(dir)
}

/// A texture of `format` for the KTX-Software tests: `interesting` texels, or random
/// BC6H blocks.
fn texture(format: DxgiFormat, size: (u32, u32), mips: u32, layers: u32, cube: bool) -> Dds {
    if matches!(format, DxgiFormat::BC6H_UF16 | DxgiFormat::BC6H_SF16) {
        bc6h_dds(format, size, mips, layers, cube)
    } else {
        make_dds(format, size, mips, layers, cube)
    }
}

type Shaped = (DxgiFormat, &'static str, u32, ((u32, u32), u32, u32, bool));

/// Both BC6H formats in each of [`BC6H_SHAPES`].
fn bc6h_cases() -> impl Iterator<Item = Shaped> {
    BC6H.into_iter()
        .flat_map(|(f, to, vk)| BC6H_SHAPES.map(|s| (f, to, vk, s)))
}

/// ktx2check's verdict on a file: it exits 0 for a valid file and lists the issues
/// otherwise. One issue is KTX-Software 4.0's own: its ktx2check expects the last level
/// (level 0, last in the file) padded to the level alignment, which KTX 2.0 does not ask
/// (padding comes before each level, §4 "mipPadding") and its own libktx writer does not
/// write either (a 1x1 R16 file from `ktxTexture_WriteToNamedFile` gets the same
/// message). That message alone is accepted where the file ends exactly at the end of
/// level 0 and that end is not aligned, which is checked here from the level index.
fn assert_valid_ktx2(tools: &Path, file: &Path, what: &str) {
    let out = StdCommand::new(tools.join("ktx2check"))
        .arg(file)
        .output()
        .unwrap();
    if out.status.success() {
        return;
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let issues: Vec<&str> = text
        .lines()
        .filter(|l| l.trim_start().starts_with("ERROR") || l.trim_start().starts_with("FATAL"))
        .collect();
    let bytes = std::fs::read(file).unwrap();
    let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
    // Level 0's entry is the first of the level index, at byte 80.
    let level0_end = word(80) + word(88);
    let unpadded_end = level0_end == bytes.len() as u64 && level0_end % 4 != 0;
    let only_padding = issues.len() == 1
        && issues[0].contains("Size of image data in file does not match size calculated");
    assert!(
        only_padding && unpadded_end,
        "{what}: ktx2check finds issues:\n{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The header line and the images libktx reads from `file`, in a DDS file's order
/// (layer, face, level from the largest).
fn libktx_reads(tools: &Path, file: &Path) -> (String, Vec<u8>) {
    let out = StdCommand::new(tools.join("ktx_tool"))
        .arg("read")
        .arg(file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "libktx cannot read {}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let end = out.stdout.iter().position(|&b| b == b'\n').unwrap();
    let header = String::from_utf8(out.stdout[..end].to_vec()).unwrap();
    (header, out.stdout[end + 1..].to_vec())
}

/// Every KTX2 file convert writes (each float and packed format, BC6H of both
/// signednesses; mip levels, array layers, cube faces, sizes not a multiple of 4) passes
/// KTX-Software's validator, and libktx reads from it the texels or blocks of the DDS
/// texture it was made from.
#[test]
fn ktx_software_validates_and_reads_our_ktx2() {
    let Some(tools) = ktx_software() else {
        return;
    };
    let dir = TempDir::new().unwrap();
    let p = |n: &str| dir.path().join(n);
    let texel_shapes = [
        ((6, 5), 3, 2, false),
        ((4, 4), 2, 1, true),
        ((1, 1), 1, 1, false),
    ];
    let cases = FORMATS
        .iter()
        .flat_map(|&(f, to, vk, _)| texel_shapes.map(|s| (f, to, vk, s)))
        .chain(bc6h_cases());
    for (format, to, vk, (size, mips, layers, cube)) in cases {
        let what = format!("{format:?} {size:?} mips {mips} layers {layers} cube {cube}");
        let dds = texture(format, size, mips, layers, cube);
        write_dds(&p("in.dds"), &dds);
        convert(&p("in.dds"), to, &p("ours.ktx2"), &[]);
        assert_valid_ktx2(&tools, &p("ours.ktx2"), &what);
        let (header, images) = libktx_reads(&tools, &p("ours.ktx2"));
        let faces = if cube { 6 } else { 1 };
        let want = format!("{vk} {} {} {mips} {layers} {faces}", size.0, size.1);
        assert_eq!(
            header, want,
            "{what}: vkFormat, size, levels, layers, faces"
        );
        assert!(images == dds.data, "{what}: libktx reads other texels");
    }
}

/// KTX2 files libktx writes from a DDS texture's texels or blocks (each format, with
/// mips, layers and cube faces) convert back to that DDS texture, byte for byte.
#[test]
fn we_read_ktx2_written_by_ktx_software() {
    let Some(tools) = ktx_software() else {
        return;
    };
    let dir = TempDir::new().unwrap();
    let p = |n: &str| dir.path().join(n);
    let cases = FORMATS
        .iter()
        .map(|&(f, to, vk, _)| (f, to, vk, ((5, 7), 3, 2, false)))
        .chain(
            FORMATS
                .iter()
                .map(|&(f, to, vk, _)| (f, to, vk, ((4, 4), 3, 1, true))),
        )
        .chain(bc6h_cases());
    for (format, to, vk, (size, mips, layers, cube)) in cases {
        let what = format!("{format:?} {size:?} mips {mips} layers {layers} cube {cube}");
        let dds = texture(format, size, mips, layers, cube);
        let faces = if cube { 6 } else { 1 };
        let mut child = StdCommand::new(tools.join("ktx_tool"))
            .arg("write")
            .args([vk, size.0, size.1, mips, layers, faces].map(|n| n.to_string()))
            .arg(p("theirs.ktx2"))
            .stdin(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(&dds.data).unwrap();
        }
        assert!(child.wait().unwrap().success(), "{what}: libktx writes");
        assert_valid_ktx2(&tools, &p("theirs.ktx2"), &what);
        convert(&p("theirs.ktx2"), to, &p("ours.dds"), &[]);
        let ours = read_dds(&p("ours.dds"));
        assert!(ours.data == dds.data, "{what}: other texels");
        assert_eq!(ours.get_num_mipmap_levels(), mips, "{what}");
        assert_eq!(ours.get_num_array_layers(), layers * faces, "{what}");
    }
}
