//! DDS files as other tools write and read them: the header `convert` writes, field by
//! field against the documented layout (Microsoft's DDS_HEADER, DDS_PIXELFORMAT and
//! DDS_HEADER_DXT10), legacy D3DFMT float files (FourCC 111-116, no DX10 header, as
//! texconv and DirectXTex write them) built here from that layout, and Pillow reading what
//! `convert` writes (tests/python/pillow_reads_dds.py).

use std::path::Path;

use assert_cmd::Command;

fn d3dfloat() -> Command {
    Command::cargo_bin("d3dfloat").unwrap()
}

fn u32_at(b: &[u8], offset: usize) -> u32 {
    u32::from_le_bytes(b[offset..offset + 4].try_into().unwrap())
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Raw RGBA f32 texels of a 4x2 image with values exact in f16.
fn rgba_texels() -> Vec<f32> {
    (0..4 * 2 * 4).map(|i| i as f32 * 0.25 - 2.0).collect()
}

/// `in.f32` (raw RGBA f32, 4x2) converted to `out` through a DDS with `--to to`.
fn write_dds(dir: &Path, to: &str) -> Vec<u8> {
    let exr = dir.join("in.exr");
    let texels = rgba_texels();
    // A 4x2 OpenEXR image, so that convert knows the shape.
    let pixels: Vec<(f32, f32, f32, f32)> =
        texels.chunks(4).map(|p| (p[0], p[1], p[2], p[3])).collect();
    exr::prelude::write_rgba_file(&exr, 4, 2, |x, y| pixels[y * 4 + x]).unwrap();
    let out = dir.join("out.dds");
    d3dfloat()
        .args(["convert", "--no-progress", "--to", to, "-o"])
        .arg(&out)
        .arg(&exr)
        .assert()
        .success();
    std::fs::read(&out).unwrap()
}

#[test]
fn written_dds_header_follows_the_documented_layout() {
    let dir = tempfile::tempdir().unwrap();
    let b = write_dds(dir.path(), "f16");
    assert_eq!(&b[0..4], b"DDS ");
    assert_eq!(u32_at(&b, 4), 124, "dwSize");
    let flags = u32_at(&b, 8);
    // DDSD_CAPS | DDSD_HEIGHT | DDSD_WIDTH | DDSD_PIXELFORMAT must be set.
    assert_eq!(flags & 0x1007, 0x1007, "dwFlags {flags:#x}");
    assert_eq!((u32_at(&b, 12), u32_at(&b, 16)), (2, 4), "height, width");
    // DDS_PIXELFORMAT at 76: size 32, DDPF_FOURCC alone, "DX10", no bit count or masks.
    assert_eq!(u32_at(&b, 76), 32, "ddspf.dwSize");
    assert_eq!(u32_at(&b, 80), 0x4, "ddspf.dwFlags: DDPF_FOURCC alone");
    assert_eq!(&b[84..88], b"DX10", "ddspf.dwFourCC");
    for (offset, field) in [(88, "dwRGBBitCount"), (92, "R mask"), (96, "G mask")]
        .into_iter()
        .chain([(100, "B mask"), (104, "A mask")])
    {
        assert_eq!(u32_at(&b, offset), 0, "ddspf.{field}");
    }
    assert_ne!(u32_at(&b, 108) & 0x1000, 0, "dwCaps: DDSCAPS_TEXTURE");
    // DDS_HEADER_DXT10 at 128: R16G16B16A16_FLOAT (10), TEXTURE2D (3), one layer.
    assert_eq!(u32_at(&b, 128), 10, "dxgiFormat");
    assert_eq!(u32_at(&b, 132), 3, "resourceDimension");
    assert_eq!(u32_at(&b, 140), 1, "arraySize");
    assert_eq!(b.len(), 148 + 4 * 2 * 4 * 2, "header then the texels");
}

/// A legacy DDS file with FourCC `code` (a D3DFMT number), built from the documented
/// layout: no DX10 header, the pixel format's FourCC alone; `caps2` and `depth` as given.
fn legacy_dds(code: u32, width: u32, height: u32, depth: u32, caps2: u32, data: &[u8]) -> Vec<u8> {
    let mut h = vec![0u8; 128];
    let mut put = |offset: usize, v: u32| h[offset..offset + 4].copy_from_slice(&v.to_le_bytes());
    put(0, u32::from_le_bytes(*b"DDS "));
    put(4, 124);
    let depth_flag = if depth > 1 { 0x80_0000 } else { 0 };
    put(8, 0x1007 | depth_flag);
    put(12, height);
    put(16, width);
    put(24, depth);
    put(76, 32);
    put(80, 0x4);
    put(84, code);
    let complex = if caps2 != 0 { 0x8 } else { 0 };
    put(108, 0x1000 | complex);
    put(112, caps2);
    h.extend_from_slice(data);
    h
}

fn convert_to_f32(dir: &Path, dds: &[u8]) -> Vec<f32> {
    let input = dir.join("legacy.dds");
    std::fs::write(&input, dds).unwrap();
    let out = dir.join("out.f32");
    d3dfloat()
        .args(["convert", "--no-progress", "--to", "f32", "-o"])
        .arg(&out)
        .arg(&input)
        .assert()
        .success();
    std::fs::read(&out)
        .unwrap()
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn legacy_float_fourccs_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let values: Vec<f32> = (0..16).map(|i| i as f32 * 0.5 - 3.0).collect();
    let halves: Vec<u8> = values
        .iter()
        .flat_map(|&v| half::f16::from_f32(v).to_bits().to_le_bytes())
        .collect();
    // Each code with the channels it has, over a 2x2 image (or 4x2 for fewer channels).
    for (code, channels, half) in [
        (111, 1, true),
        (112, 2, true),
        (113, 4, true),
        (114, 1, false),
        (115, 2, false),
        (116, 4, false),
    ] {
        let texels = 16 / channels;
        let (w, h) = (texels as u32 / 2, 2);
        let data = if half {
            halves.clone()
        } else {
            f32_bytes(&values)
        };
        let got = convert_to_f32(dir.path(), &legacy_dds(code, w, h, 1, 0, &data));
        assert_eq!(got, values, "D3DFMT {code}");
    }
}

#[test]
fn legacy_cube_maps_and_volumes_are_read() {
    let dir = tempfile::tempdir().unwrap();
    // A cube map (DDSCAPS2_CUBEMAP with every face) of 1x1 R32F faces: six values.
    let faces: Vec<f32> = (1..=6).map(|i| i as f32).collect();
    let cube = legacy_dds(114, 1, 1, 1, 0x200 | 0xfc00, &f32_bytes(&faces));
    assert_eq!(convert_to_f32(dir.path(), &cube), faces);
    // A volume (DDSCAPS2_VOLUME) of 1x1x3 R32F.
    let slices = [0.5f32, 1.5, 2.5];
    let volume = legacy_dds(114, 1, 1, 3, 0x20_0000, &f32_bytes(&slices));
    assert_eq!(convert_to_f32(dir.path(), &volume), slices);
    // A legacy header whose size does not match its data is refused, naming the sizes.
    let short = legacy_dds(114, 2, 2, 1, 0, &f32_bytes(&slices));
    refused(dir.path(), &short, "16 bytes of texels");
}

/// `dds` (written to a file) is refused with one error line containing `needle`.
fn refused(dir: &Path, dds: &[u8], needle: &str) {
    let input = dir.join("refused.dds");
    std::fs::write(&input, dds).unwrap();
    d3dfloat()
        .args(["convert", "--no-progress", "--to", "f32", "-o"])
        .arg(dir.join("x.f32"))
        .arg(&input)
        .assert()
        .code(2)
        .stderr(predicates::str::contains(needle));
}

#[test]
fn legacy_formats_convert_does_not_read_are_named() {
    let dir = tempfile::tempdir().unwrap();
    // D3DFMT_A8R8G8B8 as a bit-mask format: no FourCC, RGB flags.
    let mut b = legacy_dds(0, 1, 1, 1, 0, &[0; 4]);
    b[80..84].copy_from_slice(&0x41u32.to_le_bytes());
    b[88..92].copy_from_slice(&32u32.to_le_bytes());
    refused(dir.path(), &b, "is not one convert reads");
}

/// Pillow (from PyPI: `scripts/test` installs it into `target/py`) reads what `convert`
/// writes: the right pixels, or a clear refusal, never wrong pixels.
#[test]
fn pillow_reads_a_written_dds_right_or_refuses_it() {
    let python = std::env::var("D3DFLOAT_PYTHON").unwrap_or_else(|_| "python3".into());
    let dir = tempfile::tempdir().unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/pillow_reads_dds.py");
    for to in ["f32", "f16"] {
        let bytes = write_dds(dir.path(), to);
        let path = dir.path().join(format!("{to}.dds"));
        std::fs::write(&path, bytes).unwrap();
        let expected: Vec<String> = rgba_texels().iter().map(|v| v.to_string()).collect();
        let out = std::process::Command::new(&python)
            .arg(&script)
            .arg(&path)
            .arg(expected.join(","))
            .output()
            .unwrap_or_else(|e| panic!("{python}: {e} (scripts/test installs Pillow)"));
        let said = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success(),
            "{to}: {said} (run scripts/test, which installs Pillow, or set D3DFLOAT_PYTHON)"
        );
        assert!(
            said.starts_with("right pixels") || said.starts_with("refused"),
            "{to}: {said}"
        );
        eprintln!("Pillow on a written {to} DDS: {}", said.trim());
    }
}
