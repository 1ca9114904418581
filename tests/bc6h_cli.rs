//! `decode --fmt bc6h_*` in every output style, and `convert` reading BC6H DDS files
//! (every mip level, layer and cube face, sizes not a multiple of 4) and writing them,
//! checked against the independent decoder `bcdec_rs`.

mod common;

use std::path::Path;

use assert_cmd::Command;
use ddsfile::{AlphaMode, D3D10ResourceDimension, Dds, DxgiFormat, NewDxgiParams};
use predicates::prelude::*;
use tempfile::TempDir;

fn d3dfloat() -> Command {
    Command::cargo_bin("d3dfloat").unwrap()
}

/// A mode-3 SF16 block (11.555 11.444 11.444, partition 30) with negative endpoints.
const SIGNED_BLOCK: &str = "0x0123456789abcdef0123456789abcd02";

#[test]
fn decode_shows_mode_partition_endpoints_and_texels() {
    d3dfloat()
        .args(["decode", "--fmt", "bc6h_sf16", SIGNED_BLOCK])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "mode        3 (0b00010: 11.555 11.444 11.444",
        ))
        .stdout(predicate::str::contains(
            "partition   30 (anchor of region 1: texel 2)",
        ))
        .stdout(predicate::str::contains("-408 -169 964"))
        .stdout(predicate::str::contains("-13072 -5424 30864"))
        .stdout(predicate::str::contains("(3,3)"));
}

fn bcdec(block: &[u8; 16], signed: bool) -> Vec<u16> {
    let mut out = [0u16; 48];
    bcdec_rs::bc6h_half(block, &mut out, 12, signed);
    out.to_vec()
}

fn block_bytes(hex: &str) -> [u8; 16] {
    u128::from_str_radix(hex.trim_start_matches("0x"), 16)
        .unwrap()
        .to_le_bytes()
}

#[test]
fn decode_json_csv_and_plain_agree_with_bcdec() {
    let bytes = block_bytes(SIGNED_BLOCK);
    let expect = bcdec(&bytes, true);
    let out = d3dfloat()
        .args(["decode", "--fmt", "BC6H_SF16", "--json", SIGNED_BLOCK])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["schema"], 1);
    assert_eq!(v["format"], "bc6h_sf16");
    assert_eq!(v["bits"], SIGNED_BLOCK);
    assert_eq!(v["mode"], 3);
    assert_eq!(v["partition"], 30);
    assert_eq!(v["reserved"], false);
    assert_eq!(v["endpoints"].as_array().unwrap().len(), 4);
    assert_eq!(
        v["endpoints"][0]["transformed"],
        serde_json::json!([-408, -169, 964])
    );
    for i in 0..16 {
        for c in 0..3 {
            let bits = format!("0x{:04x}", expect[3 * i + c]);
            assert_eq!(v["texels"][i]["bits"][c], bits.as_str(), "texel {i}");
        }
    }
    let csv = d3dfloat()
        .args(["decode", "--fmt", "bc6h_sf16", "--csv", SIGNED_BLOCK])
        .output()
        .unwrap();
    let text = String::from_utf8(csv.stdout).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next().unwrap(),
        "format,bits,mode,mode_bits,code,partition,stored,transformed,unquantized,indices,texels,values"
    );
    let row = lines.next().unwrap();
    let texels = (0..16)
        .map(|i| {
            format!(
                "0x{:04x}/0x{:04x}/0x{:04x}",
                expect[3 * i],
                expect[3 * i + 1],
                expect[3 * i + 2]
            )
        })
        .collect::<Vec<_>>()
        .join(" ");
    assert!(row.contains(&texels), "{row}");
    let plain = d3dfloat()
        .args(["decode", "--fmt", "bc6h_sf16", "--plain", SIGNED_BLOCK])
        .output()
        .unwrap();
    let plain = String::from_utf8(plain.stdout).unwrap();
    // Shortest decimals that read back to the f16 patterns.
    let first: Vec<u16> = plain
        .split(' ')
        .next()
        .unwrap()
        .split(',')
        .map(|v| half::f16::from_f32(v.parse().unwrap()).to_bits())
        .collect();
    assert_eq!(first, expect[..3]);
    assert_eq!(plain.trim_end().split(' ').count(), 16);
}

#[test]
fn reserved_modes_say_so_and_decode_to_zero() {
    d3dfloat()
        .args([
            "decode",
            "--fmt",
            "bc6h_uf16",
            "0xffffffffffffffffffffffffffffff13",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "reserved: every texel decodes to 0",
        ));
    d3dfloat()
        .args(["decode", "--fmt", "bc6h_uf16", "--plain", "0x1f"])
        .assert()
        .success()
        .stdout(format!("{}\n", vec!["0,0,0"; 16].join(" ")));
}

#[test]
fn stdin_blocks_stream_and_bad_blocks_are_one_line_errors() {
    d3dfloat()
        .args(["decode", "--fmt", "bc6h_uf16", "--plain"])
        .write_stdin("0x3\n0x1f\n")
        .assert()
        .success()
        .stdout(predicate::function(|s: &str| s.lines().count() == 2));
    for bad in ["0x1234567890abcdef1234567890abcdef1", "12", "0xg"] {
        d3dfloat()
            .args(["decode", "--fmt", "bc6h_uf16", bad])
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::starts_with("d3dfloat: error:"))
            .stderr(predicate::str::contains("BC6H block").or(predicate::str::contains("hex")))
            .stderr(predicate::function(|s: &str| s.lines().count() == 1));
    }
}

fn dds(format: DxgiFormat, (w, h): (u32, u32), mips: u32, layers: u32, cube: bool) -> Dds {
    Dds::new_dxgi(NewDxgiParams {
        height: h,
        width: w,
        depth: None,
        format,
        mipmap_levels: Some(mips),
        array_layers: Some(layers),
        caps2: None,
        is_cubemap: cube,
        resource_dimension: D3D10ResourceDimension::Texture2D,
        alpha_mode: AlphaMode::Unknown,
    })
    .unwrap()
}

fn write(path: &Path, dds: &Dds) {
    dds.write(&mut std::fs::File::create(path).unwrap())
        .unwrap();
}

/// The texels of every slice, decoded by bcdec: RGBA f16 (alpha 1.0), slice after slice
/// in file order, cropped to each level's size.
fn bcdec_texels(data: &[u8], (w, h): (u32, u32), mips: u32, layers: u32, signed: bool) -> Vec<u16> {
    let mut out = Vec::new();
    let mut at = 0;
    for _ in 0..layers {
        for level in 0..mips {
            let (lw, lh) = ((w >> level).max(1) as usize, (h >> level).max(1) as usize);
            let across = lw.div_ceil(4);
            let mut level_texels = vec![0u16; lw * lh * 4];
            for by in 0..lh.div_ceil(4) {
                for bx in 0..across {
                    let block: [u8; 16] = data[at..at + 16].try_into().unwrap();
                    at += 16;
                    let t = bcdec(&block, signed);
                    for i in 0..16 {
                        let (x, y) = (4 * bx + i % 4, 4 * by + i / 4);
                        if x < lw && y < lh {
                            let o = (y * lw + x) * 4;
                            level_texels[o..o + 4].copy_from_slice(&[
                                t[3 * i],
                                t[3 * i + 1],
                                t[3 * i + 2],
                                0x3c00,
                            ]);
                        }
                    }
                }
            }
            out.extend(level_texels);
        }
    }
    assert_eq!(at, data.len());
    out
}

fn halves(bytes: &[u8]) -> Vec<u16> {
    bytes
        .chunks_exact(2)
        .map(|p| u16::from_le_bytes([p[0], p[1]]))
        .collect()
}

/// Random blocks of both signednesses, with mips, layers and cube faces, at sizes that
/// are not multiples of 4: every texel `convert --to f16` writes is bcdec's.
#[test]
fn convert_reads_bc6h_dds_every_level_layer_and_face_bit_for_bit() {
    let dir = TempDir::new().unwrap();
    let cases = [
        (DxgiFormat::BC6H_UF16, false, (13, 6), 4, 2, false),
        (DxgiFormat::BC6H_SF16, true, (13, 6), 4, 2, false),
        (DxgiFormat::BC6H_SF16, true, (8, 8), 4, 6, true),
        (DxgiFormat::BC6H_UF16, false, (3, 1), 2, 1, false),
    ];
    for (n, &(format, signed, size, mips, layers, cube)) in cases.iter().enumerate() {
        let mut input = dds(format, size, mips, layers, cube);
        let len = input.data.len();
        input.data = common::random_bytes(len, n as u64);
        let src = dir.path().join(format!("in{n}.dds"));
        let dst = dir.path().join(format!("out{n}.dds"));
        write(&src, &input);
        d3dfloat()
            .args(["convert", "--to", "f16", "--json"])
            .arg(&src)
            .arg("-o")
            .arg(&dst)
            .assert()
            .success()
            .stdout(predicate::str::contains(if signed {
                "\"from\":\"bc6h_sf16\""
            } else {
                "\"from\":\"bc6h_uf16\""
            }));
        let out = Dds::read(std::fs::File::open(&dst).unwrap()).unwrap();
        let h10 = out.header10.as_ref().unwrap();
        assert_eq!(h10.dxgi_format, DxgiFormat::R16G16B16A16_Float);
        assert_eq!(out.get_num_mipmap_levels(), mips);
        let expect = bcdec_texels(&input.data, size, mips, layers, signed);
        assert_eq!(halves(&out.data), expect, "case {n}");
    }
}

/// HDR data from an f32 DDS, with mips and a negative half, through BC6H and back: SF16
/// keeps the signs and the values within a few percent, the header says what it holds,
/// and the blocks are bcdec's to read.
#[test]
fn convert_writes_bc6h_dds_that_reads_back_close() {
    let dir = TempDir::new().unwrap();
    let size = (10u32, 7u32);
    let mut input = dds(DxgiFormat::R32G32B32A32_Float, size, 3, 1, false);
    let texels = input.data.len() / 16;
    let values: Vec<f32> = (0..texels)
        .flat_map(|i| {
            // Level 0's texel (x, y) (the levels below get the same formula on their
            // own positions in the data, which is fine for the encoder).
            let (x, y) = ((i % 10) as f32, (i / 10 % 7) as f32);
            let v = 2f32.powf((x + y) / 3.0 - 2.0);
            // R is negative on the right half, G and B positive.
            let s = if x < 5.0 { 1.0 } else { -1.0 };
            [s * v, v * 0.5, 1.0 + y / 4.0, 1.0]
        })
        .collect();
    input.data = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    let src = dir.path().join("hdr.dds");
    write(&src, &input);
    for (to, signed) in [("bc6h_sf16", true), ("bc6h_uf16", false)] {
        for quality in ["fast", "normal", "slow"] {
            let dst = dir.path().join(format!("{to}-{quality}.dds"));
            d3dfloat()
                .args(["convert", "--to", to, "--quality", quality, "--json"])
                .arg(&src)
                .arg("-o")
                .arg(&dst)
                .assert()
                .success()
                .stdout(predicate::str::contains(format!("\"to\":\"{to}\"")));
            let out = Dds::read(std::fs::File::open(&dst).unwrap()).unwrap();
            let format = out.header10.as_ref().unwrap().dxgi_format;
            assert_eq!(
                format,
                if signed {
                    DxgiFormat::BC6H_SF16
                } else {
                    DxgiFormat::BC6H_UF16
                }
            );
            assert_eq!(out.get_num_mipmap_levels(), 3);
            let decoded = bcdec_texels(&out.data, size, 3, 1, signed);
            // The fast quality tries 4 modes of 14 and one partition, which cannot follow
            // these blocks (R and G vary with x + y, B with y alone) as closely; and SF16
            // endpoints have a bit less than UF16's (a third of a stop per texel is steep).
            // Level 0 only; G and B (and R where it is positive) by their mean log2 error,
            // and no texel off by more than half; R keeps its sign in SF16.
            let (mut total, mut n) = (0f64, 0f64);
            for i in 0..(size.0 * size.1) as usize {
                for c in 0..3 {
                    let x = values[4 * i + c];
                    let y = half::f16::from_bits(decoded[4 * i + c]).to_f32();
                    if signed || x > 0.0 {
                        assert!(x * y > 0.0, "{to} {quality} texel {i}.{c}: {x} -> {y}");
                        assert!(
                            (x - y).abs() <= 0.5 * x.abs(),
                            "{to} {quality} {i}.{c}: {x} -> {y}"
                        );
                        total += (x.abs().log2() - y.abs().log2()).abs() as f64;
                        n += 1.0;
                    } else {
                        assert_eq!(y, 0.0, "{to} {quality} texel {i}.{c}: {x} -> {y}");
                    }
                }
            }
            let mean = total / n;
            let bound = if quality == "fast" { 0.2 } else { 0.1 };
            assert!(mean <= bound, "{to} {quality}: mean |log2 error| {mean}");
            // And back through our own reader.
            let back = dir.path().join(format!("{to}-{quality}-back.dds"));
            d3dfloat()
                .args(["convert", "--to", "f16"])
                .arg(&dst)
                .arg("-o")
                .arg(&back)
                .assert()
                .success();
            let back = Dds::read(std::fs::File::open(&back).unwrap()).unwrap();
            assert_eq!(halves(&back.data), decoded);
        }
    }
}

#[test]
fn bc6h_output_needs_a_sized_input_and_rgb() {
    d3dfloat()
        .args(["convert", "--from", "f32", "--to", "bc6h_uf16", "-o", "-"])
        .write_stdin(vec![0u8; 64])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "BC6H output needs a .dds, .ktx2, .exr, .pfm or .hdr input",
        ));
    let dir = TempDir::new().unwrap();
    let mut input = dds(DxgiFormat::R32_Float, (4, 4), 1, 1, false);
    input.data = vec![0; 64];
    let src = dir.path().join("r.dds");
    write(&src, &input);
    d3dfloat()
        .args(["convert", "--to", "bc6h_uf16"])
        .arg(&src)
        .arg("-o")
        .arg(dir.path().join("o.dds"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "BC6H holds R, G and B; the input (DDS R32_FLOAT) gives 1 channel",
        ));
}
