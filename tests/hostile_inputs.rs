//! Regression tests for issue 29, part B: inputs that could exhaust memory or hang. One
//! test per finding, named after what broke; every hostile file is made here, in a private
//! temporary folder (a few are links to `/dev/zero` or `/dev/urandom`, only ever read).
#![cfg(unix)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command as StdCommand, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::Command;
use tempfile::TempDir;

fn d3dfloat() -> Command {
    Command::cargo_bin("d3dfloat").unwrap()
}

fn bin_path() -> PathBuf {
    assert_cmd::cargo::cargo_bin("d3dfloat")
}

/// The stderr of a failed run: exactly one line, prefixed as every error is, exit 2.
fn one_error_line(out: &std::process::Output) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert_eq!(err.lines().count(), 1, "one line expected: {err:?}");
    assert!(err.starts_with("d3dfloat: error: "), "{err}");
    err.trim_end().to_string()
}

/// Runs `convert` on `input` (to raw f16 on stdout unless `extra` says otherwise), with a
/// time limit: a run that hangs fails the test instead of the suite.
fn convert(input: &Path, extra: &[&str]) -> std::process::Output {
    d3dfloat()
        .arg("convert")
        .arg(input)
        .args(extra)
        .timeout(Duration::from_secs(20))
        .output()
        .unwrap()
}

fn convert_error(input: &Path, extra: &[&str]) -> String {
    let out = convert(input, extra);
    one_error_line(&out)
}

// ---- DDS headers, written field by field so any count can be extreme ----

const R32G32B32A32_FLOAT: u32 = 2;
const R32_FLOAT: u32 = 41;
const R16_FLOAT: u32 = 54;
const TEXTURE2D: u32 = 3;
const MISC_TEXTURECUBE: u32 = 4;

/// What a hand-made DDS header declares.
#[derive(Clone, Copy, Debug)]
struct DdsHeader {
    width: u32,
    height: u32,
    depth: u32,
    mips: u32,
    array_size: u32,
    pitch: u32,
    dxgi: u32,
    cube: bool,
}

impl DdsHeader {
    fn new(width: u32, height: u32, dxgi: u32) -> DdsHeader {
        DdsHeader {
            width,
            height,
            depth: 1,
            mips: 1,
            array_size: 1,
            pitch: 0,
            dxgi,
            cube: false,
        }
    }

    /// Magic, the 124-byte header and the DX10 header: 148 bytes.
    fn bytes(&self) -> Vec<u8> {
        let mut b = Vec::new();
        let u32s = |b: &mut Vec<u8>, v: &[u32]| {
            for x in v {
                b.extend_from_slice(&x.to_le_bytes());
            }
        };
        b.extend_from_slice(b"DDS ");
        // CAPS | HEIGHT | WIDTH | PITCH | PIXELFORMAT | MIPMAPCOUNT | DEPTH
        let flags = 0x1 | 0x2 | 0x4 | 0x8 | 0x1000 | 0x20000 | 0x800000;
        u32s(
            &mut b,
            &[
                124,
                flags,
                self.height,
                self.width,
                self.pitch,
                self.depth,
                self.mips,
            ],
        );
        u32s(&mut b, &[0; 11]);
        // The pixel format: the DX10 FourCC alone.
        u32s(&mut b, &[32, 0x4]);
        b.extend_from_slice(b"DX10");
        u32s(&mut b, &[0; 5]);
        // caps (TEXTURE), caps2, caps3, caps4, reserved2
        u32s(&mut b, &[0x1000, 0, 0, 0, 0]);
        let misc = if self.cube { MISC_TEXTURECUBE } else { 0 };
        u32s(&mut b, &[self.dxgi, TEXTURE2D, misc, self.array_size, 0]);
        assert_eq!(b.len(), 148);
        b
    }

    fn file(&self, data_bytes: usize) -> Vec<u8> {
        let mut b = self.bytes();
        b.extend((0..data_bytes).map(|i| (i % 7) as u8 * 16));
        b
    }
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

// ---- 5. Header arithmetic that wraps, and mip counts past the dimensions ----

#[test]
fn a_cube_array_whose_face_count_wraps_is_refused() {
    let dir = TempDir::new().unwrap();
    for array_size in [0x2AAA_AAABu32, 0x2AAA_AAAC] {
        let mut h = DdsHeader::new(1, 1, R32_FLOAT);
        h.cube = true;
        h.array_size = array_size;
        // array_size * 6 wraps a u32 to 2 or 8: give the data that would then match.
        let wrapped = array_size.wrapping_mul(6) as usize;
        let input = write(dir.path(), "cube.dds", &h.file(4 * wrapped));
        for out in ["out.f16", "out.dds"] {
            let err = convert_error(&input, &["--to", "f16", "-o", out]);
            assert!(err.contains("cube.dds"), "{err}");
            assert!(err.contains(&array_size.to_string()), "{err}");
            assert!(!dir.path().join(out).exists());
        }
    }
}

#[test]
fn more_mip_levels_than_the_dimensions_allow_are_refused() {
    let dir = TempDir::new().unwrap();
    // 100 levels declared, with the data of 64 one-texel levels (what a 64-level cap saw).
    let mut h = DdsHeader::new(1, 1, R32_FLOAT);
    h.mips = 100;
    let input = write(dir.path(), "mips.dds", &h.file(64 * 4));
    let err = convert_error(&input, &["--to", "f16", "-o", "x.f16"]);
    assert!(err.contains("mips.dds"), "{err}");
    assert!(err.contains("100 mip levels"), "{err}");
    assert!(err.contains("at most 1"), "{err}");
    // 5x6 has levels 5x6, 2x3, 1x1: three, not four.
    let mut h = DdsHeader::new(5, 6, R32_FLOAT);
    h.mips = 4;
    let input = write(dir.path(), "four.dds", &h.file(4 * (30 + 6 + 1 + 1)));
    let err = convert_error(&input, &["--to", "f16", "-o", "x.f16"]);
    assert!(err.contains("at most 3"), "{err}");
    h.mips = 3;
    let input = write(dir.path(), "three.dds", &h.file(4 * (30 + 6 + 1)));
    let out = convert(&input, &["--to", "f16", "-o", "-"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.stdout.len(), 2 * 37);
}

#[test]
fn a_cube_array_with_mips_written_as_dds_reads_back() {
    let dir = TempDir::new().unwrap();
    // Two cubes of 2x2 with two levels: 12 faces of 4 + 1 texels.
    let mut h = DdsHeader::new(2, 2, R32_FLOAT);
    h.cube = true;
    h.array_size = 2;
    h.mips = 2;
    let values: Vec<u8> = (0..60u32).flat_map(|i| (i as f32).to_le_bytes()).collect();
    let mut file = h.bytes();
    file.extend_from_slice(&values);
    let input = write(dir.path(), "cubes.dds", &file);
    let half = dir.path().join("half.dds");
    let out = convert(&input, &["--to", "f16", "-o", half.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let back = convert(&half, &["--to", "f32", "-o", "-"]);
    assert!(
        back.status.success(),
        "{}",
        String::from_utf8_lossy(&back.stderr)
    );
    assert_eq!(back.stdout, values);
}

// ---- 10. A 1x1 texture declaring 2^32 - 1 mip levels ----

#[test]
fn billions_of_declared_mip_levels_are_refused_at_once() {
    let dir = TempDir::new().unwrap();
    for mips in [u32::MAX, 1 << 28] {
        let mut h = DdsHeader::new(1, 1, R32G32B32A32_FLOAT);
        h.mips = mips;
        let input = write(dir.path(), "many.dds", &h.file(256));
        let started = Instant::now();
        let err = convert_error(&input, &["--to", "f16", "-o", "x.dds"]);
        assert!(started.elapsed() < Duration::from_secs(5), "{err}");
        assert!(err.contains(&format!("{mips} mip levels")), "{err}");
    }
}

// ---- 12. Endless inputs: the header first, then only what it describes ----

fn link(dir: &Path, name: &str, target: &str) -> PathBuf {
    let path = dir.join(name);
    std::os::unix::fs::symlink(target, &path).unwrap();
    path
}

#[test]
fn dds_hdr_and_exr_inputs_that_never_end_are_refused_after_their_header() {
    let dir = TempDir::new().unwrap();
    for target in ["/dev/zero", "/dev/urandom"] {
        for ext in ["dds", "hdr", "exr", "ktx2", "pfm"] {
            let name = format!("endless-{}.{ext}", &target[5..]);
            let input = link(dir.path(), &name, target);
            let started = Instant::now();
            let err = convert_error(&input, &["--to", "f16", "-o", "x.f16"]);
            assert!(started.elapsed() < Duration::from_secs(3), "{name}: {err}");
            assert!(err.contains(&name), "{err}");
        }
    }
}

#[test]
fn a_sparse_terabyte_container_is_refused_after_its_header() {
    let dir = TempDir::new().unwrap();
    for ext in ["dds", "hdr", "exr", "ktx2", "pfm"] {
        let name = format!("sparse.{ext}");
        let path = dir.path().join(&name);
        let f = std::fs::File::create(&path).unwrap();
        if f.set_len(1 << 40).is_err() {
            return; // a file system without sparse files: nothing to check
        }
        let started = Instant::now();
        let err = convert_error(&path, &["--to", "f16", "-o", "x.f16"]);
        assert!(started.elapsed() < Duration::from_secs(3), "{name}: {err}");
        assert!(err.contains(&name), "{err}");
    }
}

/// A FIFO at `dir/name` fed by a thread: `head`, then zeros until the reader goes.
fn endless_fifo(dir: &Path, name: &str, head: Vec<u8>) -> (PathBuf, std::thread::JoinHandle<()>) {
    let fifo = dir.join(name);
    assert!(
        StdCommand::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let path = fifo.clone();
    let feeder = std::thread::spawn(move || {
        let Ok(mut f) = std::fs::OpenOptions::new().write(true).open(&path) else {
            return;
        };
        if f.write_all(&head).is_err() {
            return;
        }
        let zeros = vec![0u8; 1 << 16];
        while f.write_all(&zeros).is_ok() {}
    });
    (fifo, feeder)
}

#[test]
fn a_dds_header_followed_by_endless_data_is_refused_after_the_data_it_describes() {
    let dir = TempDir::new().unwrap();
    let (fifo, feeder) = endless_fifo(
        dir.path(),
        "endless.dds",
        DdsHeader::new(4, 4, R32_FLOAT).bytes(),
    );
    let err = convert_error(&fifo, &["--to", "f16", "-o", "x.f16"]);
    feeder.join().unwrap();
    assert!(err.contains("endless.dds"), "{err}");
    assert!(err.contains("describes 64 bytes"), "{err}");
    assert!(err.contains("holds more"), "{err}");
}

#[test]
fn a_dds_through_a_fifo_converts_like_the_file() {
    let dir = TempDir::new().unwrap();
    let h = DdsHeader::new(4, 4, R32_FLOAT);
    let fifo = dir.path().join("tex.dds");
    assert!(
        StdCommand::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let path = fifo.clone();
    let bytes = h.file(64);
    let feeder = std::thread::spawn(move || {
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .write_all(&bytes)
            .unwrap();
    });
    let out = convert(&fifo, &["--to", "f32", "-o", "-"]);
    feeder.join().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.stdout, h.file(64)[148..]);
}

// ---- 8. Memory limits: refused memory is a one-line error, never an abort ----

#[test]
fn a_64_mib_dds_under_tight_memory_limits_succeeds_or_says_so() {
    let dir = TempDir::new().unwrap();
    let h = DdsHeader::new(2048, 2048, R32G32B32A32_FLOAT);
    let input = write(dir.path(), "big.dds", &h.file(2048 * 2048 * 16));
    let output = dir.path().join("out.dds");
    for mib in [150u64, 200, 250, 300, 375] {
        // One thread: the thread pool's own start-up under a memory limit is a separate
        // matter (issue 29, part A); this pins the buffers the conversion allocates.
        let out = StdCommand::new("prlimit")
            .arg(format!("--as={}", mib << 20))
            .arg(bin_path())
            .args(["convert", "--to", "f16"])
            .arg(&input)
            .arg("-o")
            .arg(&output)
            .env("RAYON_NUM_THREADS", "1")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        match out.status.code() {
            Some(0) => {}
            Some(2) => {
                assert_eq!(err.lines().count(), 1, "{mib} MiB: {err}");
                assert!(err.starts_with("d3dfloat: error: "), "{mib} MiB: {err}");
            }
            other => panic!("{mib} MiB: exit {other:?} (a crash): {err}"),
        }
    }
}

// ---- 16. Container errors name the file typed ----

#[test]
fn container_and_raw_size_errors_name_the_file() {
    let dir = TempDir::new().unwrap();
    let short = write(
        dir.path(),
        "short.dds",
        &DdsHeader::new(4, 4, R32_FLOAT).file(60),
    );
    let err = convert_error(&short, &["--to", "f16", "-o", "x.f16"]);
    assert!(
        err.contains("short.dds: DDS header describes 64 bytes"),
        "{err}"
    );
    assert!(err.contains("the file holds 60"), "{err}");
    let bad_hdr = write(dir.path(), "bad.hdr", b"#?RADIANCE\nnonsense");
    let err = convert_error(&bad_hdr, &["--to", "f16", "-o", "x.f16"]);
    assert!(err.contains("bad.hdr: "), "{err}");
    let bad_exr = write(dir.path(), "bad.exr", b"v/1\x01\x02\x00\x00\x00garbage");
    let err = convert_error(&bad_exr, &["--to", "f16", "-o", "x.f16"]);
    assert!(err.contains("bad.exr: "), "{err}");
    let odd = write(dir.path(), "odd.f32", &[0u8; 6]);
    let err = convert_error(&odd, &["--from", "f32", "--to", "f16", "-o", "x.f16"]);
    assert!(err.contains("odd.f32: input size 6 bytes"), "{err}");
}

// ---- 17. A one-channel texture asked to pack into three channels ----

#[test]
fn packing_a_one_channel_texture_says_the_input_has_one_channel() {
    let dir = TempDir::new().unwrap();
    for (dxgi, name, bytes) in [(R32_FLOAT, "R32_FLOAT", 4), (R16_FLOAT, "R16_FLOAT", 2)] {
        let input = write(
            dir.path(),
            "gray.dds",
            &DdsHeader::new(2, 2, dxgi).file(4 * bytes),
        );
        let err = convert_error(
            &input,
            &["--to", "r11g11b10", "--channels", "3", "-o", "x.r"],
        );
        assert!(err.contains("gray.dds"), "{err}");
        assert!(err.contains("1 channel"), "{err}");
        assert!(err.contains(name), "{err}");
        assert!(!err.contains("--channels must"), "{err}");
    }
}

// ---- 9. A stdin line that never ends ----

/// Runs `cmd` with `bytes` on stdin; its one-line error, within a time limit.
fn endless_line(cmd: &[&str], bytes: Vec<u8>) -> String {
    let started = Instant::now();
    let out = d3dfloat()
        .args(cmd)
        .write_stdin(bytes)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let err = one_error_line(&out);
    assert!(started.elapsed() < Duration::from_secs(30), "{err}");
    err
}

#[test]
fn a_line_longer_than_the_limit_is_refused_with_its_number() {
    // 64 MiB and one byte without a newline, after a good line and a comment: the third
    // line is refused once it passes the limit, whichever command reads it.
    for (cmd, first) in [
        (&["decode", "--fmt", "f16"][..], "0x3c00"),
        (&["encode", "--fmt", "f16"], "1.5"),
        (&["op", "--fmt", "f32"], "add 1 2"),
        (&["ulp-diff", "--fmt", "f32"], "1 2"),
    ] {
        let mut input = format!("{first}\n# a comment\n").into_bytes();
        input.resize(input.len() + (64 << 20) + 1, b'7');
        let err = endless_line(cmd, input);
        assert!(
            err.contains("line 3: longer than 67108864 bytes"),
            "{cmd:?}: {err}"
        );
    }
}

#[test]
fn decode_and_op_from_dev_zero_end_with_an_error() {
    for cmd in [&["decode", "--fmt", "f16"][..], &["op", "--fmt", "f32"]] {
        let started = Instant::now();
        // Handed over as the file itself (assert_cmd's pipe_stdin would read it whole).
        let zero = std::fs::File::open("/dev/zero").unwrap();
        let out = StdCommand::new(bin_path())
            .args(cmd)
            .stdin(Stdio::from(zero))
            .output()
            .unwrap();
        let err = one_error_line(&out);
        assert!(err.contains("line 1: longer than"), "{cmd:?}: {err}");
        assert!(started.elapsed() < Duration::from_secs(30), "{err}");
    }
}

// ---- 12. ulp-diff --files with an endless stream against a file ----

#[test]
fn ulp_diff_of_dev_zero_against_a_file_ends_at_the_files_end() {
    let dir = TempDir::new().unwrap();
    let finite = write(dir.path(), "in.f32", &[0u8; 64]);
    for (a, b) in [
        (Path::new("/dev/zero"), finite.as_path()),
        (&finite, Path::new("/dev/zero")),
    ] {
        let started = Instant::now();
        let out = d3dfloat()
            .args(["ulp-diff", "--files"])
            .arg(a)
            .arg(b)
            .timeout(Duration::from_secs(20))
            .output()
            .unwrap();
        let err = one_error_line(&out);
        assert!(started.elapsed() < Duration::from_secs(10), "{err}");
        assert!(err.contains("64 bytes"), "{err}");
        assert!(err.contains("at least"), "{err}");
    }
}

// ---- 6. DWAA/DWAB blocks whose counters claim terabytes ----

/// A `w`x`h` RGBA f32 OpenEXR with a smooth gradient (which DWA really compresses, rather
/// than storing raw), compressed as `compression`, in scanline blocks.
fn exr_bytes(w: usize, h: usize, compression: exr::compression::Compression) -> Vec<u8> {
    use exr::prelude::*;
    let channels = SpecificChannels::rgba(|Vec2(x, y)| {
        let (x, y) = (x as f32 / 8.0, y as f32 / 8.0);
        (x.sin() + 1.0, y.cos() + 1.0, (x + y) * 0.25, 1.0f32)
    });
    let encoding = Encoding {
        compression,
        blocks: Blocks::ScanLines,
        line_order: LineOrder::Increasing,
    };
    let mut out = std::io::Cursor::new(Vec::new());
    Image::from_encoded_channels((w, h), encoding, channels)
        .write()
        .to_buffered(&mut out)
        .unwrap();
    out.into_inner()
}

/// A `side`x`side` RGBA f32 OpenEXR of one colour, ZIP-compressed: a few hundred KB that
/// decode to `16 * side * side` bytes.
fn exr_bomb(side: usize) -> Vec<u8> {
    use exr::prelude::*;
    let channels = SpecificChannels::rgba(|_| (0.5f32, 0.25f32, 0.125f32, 1.0f32));
    let encoding = Encoding {
        compression: Compression::ZIP16,
        blocks: Blocks::ScanLines,
        line_order: LineOrder::Increasing,
    };
    let mut out = std::io::Cursor::new(Vec::new());
    Image::from_encoded_channels((side, side), encoding, channels)
        .write()
        .to_buffered(&mut out)
        .unwrap();
    out.into_inner()
}

/// Where the first chunk's compressed data starts in a single-part scanline file that the
/// `exr` crate wrote: its offset table is followed at once by the first chunk (y, size,
/// data), so the table is where a u64 points just past `chunks` entries.
fn first_chunk_data(bytes: &[u8], chunks: usize) -> usize {
    let at = |p: usize| u64::from_le_bytes(bytes[p..p + 8].try_into().unwrap()) as usize;
    let table = (8..bytes.len() - 8 * chunks)
        .find(|&p| at(p) == p + 8 * chunks)
        .expect("an offset table");
    at(table) + 8
}

/// The DWA counters of the first chunk of a 64-line file: byte offset of counter `i`
/// (0 = version). DWAA blocks hold 32 lines, DWAB blocks 256.
fn dwa_counter(bytes: &[u8], dwab: bool, i: usize) -> usize {
    let chunks = if dwab { 1 } else { 2 };
    let data = first_chunk_data(bytes, chunks);
    assert_eq!(
        bytes[data..data + 8],
        2u64.to_le_bytes(),
        "a DWA version 2 header"
    );
    data + 8 * i
}

fn dwaa_sample() -> Vec<u8> {
    exr_bytes(64, 64, exr::compression::Compression::DWAA(None))
}

/// Runs convert on `bytes` as an .exr under an address-space cap; exit 0 or 2 with one
/// line is fine, a crash (101, an abort, a signal) is not.
fn convert_exr_capped(dir: &Path, bytes: &[u8], cap_mib: u64) -> std::process::Output {
    let input = write(dir, "in.exr", bytes);
    let out = StdCommand::new("prlimit")
        .arg(format!("--as={}", cap_mib << 20))
        .arg(bin_path())
        .args(["convert", "--to", "f16", "-o", "-"])
        .arg(&input)
        .env("RAYON_NUM_THREADS", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    match out.status.code() {
        Some(0) => {}
        Some(2) => {
            assert_eq!(err.lines().count(), 1, "{err}");
            assert!(err.starts_with("d3dfloat: error: "), "{err}");
            assert!(err.contains("in.exr: "), "{err}");
        }
        other => panic!("exit {other:?} (a crash): {err}"),
    }
    out
}

#[test]
fn a_sample_dwaa_file_converts() {
    let dir = TempDir::new().unwrap();
    let out = convert_exr_capped(dir.path(), &dwaa_sample(), 2048);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout.len(), 64 * 64 * 4 * 2);
}

#[test]
fn dwa_counters_claiming_huge_sizes_are_refused_without_allocating() {
    let dir = TempDir::new().unwrap();
    let sample = dwaa_sample();
    for counter in 1..=9 {
        for value in [1u64 << 62, 1 << 40, 3 << 30, u64::MAX] {
            let mut bytes = sample.clone();
            let at = dwa_counter(&bytes, false, counter);
            bytes[at..at + 8].copy_from_slice(&value.to_le_bytes());
            let out = convert_exr_capped(dir.path(), &bytes, 2048);
            assert_eq!(
                out.status.code(),
                Some(2),
                "counter {counter} = {value}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

// ---- Property tests: mutated compressed EXRs never crash the reader ----

mod mutated {
    use super::*;
    use exr::compression::Compression;
    use proptest::prelude::*;

    fn samples() -> &'static [Vec<u8>; 3] {
        static SAMPLES: std::sync::OnceLock<[Vec<u8>; 3]> = std::sync::OnceLock::new();
        SAMPLES.get_or_init(|| {
            [
                exr_bytes(64, 64, Compression::DWAA(None)),
                exr_bytes(64, 64, Compression::DWAB(None)),
                exr_bytes(64, 64, Compression::PIZ),
            ]
        })
    }

    /// Values that break size arithmetic: 0, 1, powers of two near the type limits.
    fn extreme() -> impl Strategy<Value = u64> {
        prop_oneof![
            Just(0u64),
            Just(1),
            Just(1 << 31),
            Just(u32::MAX as u64),
            Just(1 << 40),
            Just(1 << 62),
            Just(u64::MAX),
            any::<u64>(),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

        /// Bytes anywhere in the file replaced, and one 8-byte word (a DWA counter when it
        /// lands in a block header) overwritten with an extreme value.
        #[test]
        fn mutated_compressed_exrs_convert_or_fail_in_one_line(
            which in 0usize..3,
            edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..8),
            word in any::<prop::sample::Index>(),
            value in extreme(),
        ) {
            let mut bytes = samples()[which].clone();
            let len = bytes.len();
            for (at, v) in edits {
                bytes[at.index(len)] = v;
            }
            let at = word.index(len - 8);
            bytes[at..at + 8].copy_from_slice(&value.to_le_bytes());
            let dir = TempDir::new().unwrap();
            let started = Instant::now();
            convert_exr_capped(dir.path(), &bytes, 1024);
            prop_assert!(started.elapsed() < Duration::from_secs(10));
        }

        /// A DWA block's counters overwritten one by one with extreme values.
        #[test]
        fn dwa_counters_of_any_value_convert_or_fail_in_one_line(
            dwab in any::<bool>(),
            counter in 0usize..11,
            value in extreme(),
        ) {
            let mut bytes = samples()[dwab as usize].clone();
            let at = dwa_counter(&bytes, dwab, counter);
            bytes[at..at + 8].copy_from_slice(&value.to_le_bytes());
            let dir = TempDir::new().unwrap();
            convert_exr_capped(dir.path(), &bytes, 1024);
        }
    }
}

// ---- DDS headers with extreme counts, every combination, read in process ----

mod extreme_dds {
    use super::*;
    use d3dfloat::convert::dds;
    use proptest::prelude::*;

    const EXTREMES: [u32; 4] = [0, 1, 1 << 31, u32::MAX];

    /// Reads `h` with `data` bytes after it, as a stream and as a file of known length:
    /// an error, or a texture whose data is exactly what its shape describes (and whose
    /// DDS header can be built again); quickly either way.
    fn read_cleanly(h: DdsHeader, data: usize) {
        let file = h.file(data);
        for len in [None, Some(file.len() as u64)] {
            let started = Instant::now();
            match dds::read(&mut file.as_slice(), len) {
                Err(e) => assert!(!e.to_string().contains('\n'), "{e}"),
                Ok(t) => {
                    let size = t.shape.texel_count().unwrap() * t.texels.bytes() as u64;
                    assert_eq!(size, t.data.len() as u64, "{h:?}");
                    assert!(t.shape.mips <= t.shape.most_mips(), "{h:?}");
                    let _ = dds::build(&t.shape, t.texels, size);
                }
            }
            assert!(started.elapsed() < Duration::from_secs(1), "{h:?}");
        }
    }

    #[test]
    fn every_combination_of_extreme_counts_reads_or_refuses() {
        for &width in &EXTREMES {
            for &height in &EXTREMES {
                for &depth in &EXTREMES {
                    for &mips in &EXTREMES {
                        for &array_size in &EXTREMES {
                            for cube in [false, true] {
                                let h = DdsHeader {
                                    width,
                                    height,
                                    depth,
                                    mips,
                                    array_size,
                                    pitch: width,
                                    dxgi: R32_FLOAT,
                                    cube,
                                };
                                read_cleanly(h, 64);
                            }
                        }
                    }
                }
            }
        }
    }

    fn count() -> impl Strategy<Value = u32> {
        prop_oneof![
            prop::sample::select(EXTREMES.to_vec()),
            0u32..70,
            any::<u32>()
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

        #[test]
        fn random_counts_read_or_refuse(
            width in count(), height in count(), depth in count(), mips in count(),
            array_size in count(), pitch in count(), cube in any::<bool>(),
            dxgi in prop::sample::select(vec![R32G32B32A32_FLOAT, R32_FLOAT, R16_FLOAT]),
            data in 0usize..4096,
        ) {
            read_cleanly(
                DdsHeader { width, height, depth, mips, array_size, pitch, dxgi, cube },
                data,
            );
        }
    }
}

// ---- 18. An .exr through a FIFO; 19. RGB channels in a layer ----

#[test]
fn an_exr_through_a_fifo_converts_like_the_file() {
    let dir = TempDir::new().unwrap();
    let bytes = exr_bytes(16, 8, exr::compression::Compression::ZIP16);
    let file = write(dir.path(), "file.exr", &bytes);
    let from_file = convert(&file, &["--to", "f16", "-o", "-"]);
    assert!(from_file.status.success());
    let fifo = dir.path().join("pipe.exr");
    assert!(
        StdCommand::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let path = fifo.clone();
    let feeder = std::thread::spawn(move || {
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .write_all(&bytes)
            .unwrap();
    });
    let from_fifo = convert(&fifo, &["--to", "f16", "-o", "-"]);
    feeder.join().unwrap();
    assert!(
        from_fifo.status.success(),
        "{}",
        String::from_utf8_lossy(&from_fifo.stderr)
    );
    assert_eq!(from_fifo.stdout, from_file.stdout);
    assert_eq!(from_fifo.stdout.len(), 16 * 8 * 4 * 2);
}

/// A 2x1 OpenEXR whose f32 channels are the given names, channel i of pixel x holding
/// `10 * i + x`.
fn exr_with_channels(path: &Path, names: &[&str]) {
    use exr::prelude::*;
    let list = names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let samples = vec![10.0 * i as f32, 10.0 * i as f32 + 1.0];
            AnyChannel::new(*n, FlatSamples::F32(samples))
        })
        .collect();
    Image::from_channels((2, 1), AnyChannels::sort(list))
        .write()
        .to_file(path)
        .unwrap();
}

fn f32s(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn rgb_channels_in_a_layer_are_read() {
    let dir = TempDir::new().unwrap();
    let path = dir.path().join("layered.exr");
    // Sorted by name in the file: diffuse.B (0), diffuse.G (1), diffuse.R (2), then
    // specular's B, G, R (3, 4, 5): the first layer with R, G and B is diffuse.
    exr_with_channels(
        &path,
        &[
            "diffuse.B",
            "diffuse.G",
            "diffuse.R",
            "specular.B",
            "specular.G",
            "specular.R",
        ],
    );
    let out = convert(&path, &["--to", "f32", "-o", "-"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // RGBA of pixel 0 then pixel 1; no A channel, so alpha 1.0.
    assert_eq!(
        f32s(&out.stdout),
        [20.0, 10.0, 0.0, 1.0, 21.0, 11.0, 1.0, 1.0]
    );
    // Channels without a layer name win over a layer, and a layer's A is its alpha.
    exr_with_channels(&path, &["A", "B", "G", "R", "a.A", "a.B", "a.G", "a.R"]);
    let out = convert(&path, &["--to", "f32", "-o", "-"]);
    assert_eq!(f32s(&out.stdout)[..4], [30.0, 20.0, 10.0, 0.0]);
    exr_with_channels(&path, &["a.A", "a.B", "a.G", "a.R", "z"]);
    let out = convert(&path, &["--to", "f32", "-o", "-"]);
    assert_eq!(f32s(&out.stdout)[..4], [30.0, 20.0, 10.0, 0.0]);
    // Without R, G and B anywhere, a Y channel is read as one channel (issue 37: what
    // `convert -o X.exr` writes for one channel); without it, a one-line error naming the
    // file.
    exr_with_channels(&path, &["diffuse.R", "diffuse.G", "Y"]);
    let out = convert(&path, &["--to", "f32", "-o", "-"]);
    assert_eq!(f32s(&out.stdout).len(), 2, "one value a pixel");
    exr_with_channels(&path, &["diffuse.R", "diffuse.G", "Z"]);
    let err = convert_error(&path, &["--to", "f32", "-o", "-"]);
    assert!(
        err.contains("layered.exr: ") && err.contains("no layer with R, G and B"),
        "{err}"
    );
}

// ---- 13. Decompression bombs within --max-pixels: peak memory stays bounded ----

/// A Radiance HDR file of `side`x`side` pixels of one colour, run-length encoded by hand
/// (each scanline: the 4-byte new-RLE header, then per component runs of up to 127).
fn hdr_bomb(side: usize) -> Vec<u8> {
    let mut b = format!("#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y {side} +X {side}\n").into_bytes();
    for _ in 0..side {
        b.extend_from_slice(&[2, 2, (side >> 8) as u8, side as u8]);
        for value in [128u8, 64, 32, 129] {
            let mut left = side;
            while left > 0 {
                let run = left.min(127);
                b.extend_from_slice(&[128 + run as u8, value]);
                left -= run;
            }
        }
    }
    b
}

/// Runs `d3dfloat args` and returns its peak resident memory in MiB (VmHWM, read from
/// /proc while it runs; the high-water mark only grows, so the last reading is the peak
/// up to the last few milliseconds, when buffers are being freed).
fn peak_mib(args: &[&std::ffi::OsStr]) -> (u64, std::process::ExitStatus) {
    let mut child = StdCommand::new(bin_path())
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let status_path = format!("/proc/{}/status", child.id());
    let mut peak_kib = 0u64;
    let started = Instant::now();
    loop {
        if let Ok(status) = std::fs::read_to_string(&status_path)
            && let Some(line) = status.lines().find(|l| l.starts_with("VmHWM:"))
        {
            let kib: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
            peak_kib = peak_kib.max(kib);
        }
        if let Some(status) = child.try_wait().unwrap() {
            return (peak_kib >> 10, status);
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "still running"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[test]
fn a_4096_square_bomb_stays_within_the_stated_memory_bound() {
    let dir = TempDir::new().unwrap();
    let hdr = write(dir.path(), "bomb.hdr", &hdr_bomb(4096));
    let exr_file = exr_bomb(4096);
    assert!(exr_file.len() < 1 << 20, "{} bytes", exr_file.len());
    let exr = write(dir.path(), "bomb.exr", &exr_file);
    // docs/convert.md: the decoded image (16 bytes a pixel, 256 MiB here) and 128 MiB
    // more (the file, conversion chunks and the decoder's working buffers).
    let bound = 256 + 128;
    // One run each (about 10 s in a debug build): the DDS output, whose header is written
    // before the texels stream out.
    for input in [&hdr, &exr] {
        let out = "x.dds";
        let output = dir.path().join(out);
        let args = [
            "convert".as_ref(),
            input.as_os_str(),
            "--to".as_ref(),
            "f16".as_ref(),
            "-o".as_ref(),
            output.as_os_str(),
        ];
        let (peak, status) = peak_mib(&args);
        assert!(status.success(), "{input:?} -> {out}");
        eprintln!("{} -> {out}: peak {peak} MiB", input.display());
        assert!(peak <= bound, "{input:?} -> {out}: {peak} MiB");
    }
}

#[test]
fn hdr_and_exr_images_under_tight_memory_limits_succeed_or_say_so() {
    let dir = TempDir::new().unwrap();
    // 2048 x 2048: 64 MiB as RGBA f32.
    let hdr = write(dir.path(), "big.hdr", &hdr_bomb(2048));
    let exr = write(dir.path(), "big.exr", &exr_bomb(2048));
    let output = dir.path().join("out.dds");
    for input in [&hdr, &exr] {
        for mib in [120u64, 150, 200, 250] {
            let out = StdCommand::new("prlimit")
                .arg(format!("--as={}", mib << 20))
                .arg(bin_path())
                .args(["convert", "--to", "f16"])
                .arg(input)
                .arg("-o")
                .arg(&output)
                .env("RAYON_NUM_THREADS", "1")
                .stdin(Stdio::null())
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            match out.status.code() {
                Some(0) => {}
                Some(2) => {
                    assert_eq!(err.lines().count(), 1, "{input:?} {mib} MiB: {err}");
                    assert!(err.contains("big."), "{input:?} {mib} MiB: {err}");
                }
                other => panic!("{input:?} {mib} MiB: exit {other:?} (a crash): {err}"),
            }
        }
    }
}

#[test]
fn a_raised_pixel_limit_still_refuses_sizes_past_memory() {
    let dir = TempDir::new().unwrap();
    let side = u32::MAX;
    let hdr = write(
        dir.path(),
        "huge.hdr",
        format!("#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y {side} +X {side}\n\0\0\0\0").as_bytes(),
    );
    let max = u64::MAX.to_string();
    let err = convert_error(&hdr, &["--to", "f16", "--max-pixels", &max, "-o", "x.f16"]);
    assert!(err.contains("huge.hdr: "), "{err}");
}

// ---- Issue 37: KTX2 and PFM headers that lie ----

/// A valid KTX2 file of a `width` x `height` R32_SFLOAT texture with `mips` levels,
/// made by the library's writer, with its texels.
fn ktx2_file(width: u32, height: u32, mips: u32) -> Vec<u8> {
    use d3dfloat::convert::dds::{Shape, Texels};
    use d3dfloat::convert::ktx2;
    use d3dfloat::format::{F32, Format};
    let mut shape = Shape::image(width, height);
    shape.mips = mips;
    let texels = Texels {
        format: Format::Float(F32),
        channels: 1,
    };
    let layout = ktx2::build(&shape, texels).unwrap();
    let mut file = layout.head.clone();
    for (level, pad) in &layout.levels {
        file.extend(std::iter::repeat_n(0u8, *pad));
        let (w, h) = ((width >> level).max(1), (height >> level).max(1));
        file.extend((0..w * h).flat_map(|i| (i as f32).to_le_bytes()));
    }
    assert_eq!(file.len() as u64, layout.file_bytes);
    file
}

/// `file` with the little-endian u32 at `at` replaced.
fn patched(file: &[u8], at: usize, value: u32) -> Vec<u8> {
    let mut f = file.to_vec();
    f[at..at + 4].copy_from_slice(&value.to_le_bytes());
    f
}

#[test]
fn lying_ktx2_headers_are_refused_in_one_line_before_any_allocation() {
    let dir = TempDir::new().unwrap();
    let good = ktx2_file(8, 4, 2);
    // Header fields: 20 width, 24 height, 32 layers, 36 faces, 40 levels, 44
    // supercompression, 48/52 DFD offset/length, 56/60 KVD; the level index at 80.
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "huge.ktx2",
            patched(&patched(&good, 20, 1 << 30), 24, 1 << 30),
            "level index puts level",
        ),
        ("levels.ktx2", patched(&good, 40, u32::MAX), "mip levels"),
        ("faces.ktx2", patched(&good, 36, 6), "cube map"),
        (
            "layers.ktx2",
            patched(&patched(&good, 32, u32::MAX), 36, 6),
            "cube map",
        ),
        ("zstd.ktx2", patched(&good, 44, 2), "supercompression"),
        (
            "dfd-len.ktx2",
            patched(&good, 52, u32::MAX),
            "data format descriptor",
        ),
        (
            "dfd-at.ktx2",
            patched(&good, 48, 1 << 30),
            "data format descriptor",
        ),
        (
            "kvd-len.ktx2",
            patched(&good, 60, u32::MAX),
            "key/value data",
        ),
        (
            "offset.ktx2",
            patched(&good, 80, u32::MAX),
            "level index puts level 0",
        ),
        (
            "length.ktx2",
            patched(&good, 88, u32::MAX),
            "level index puts level 0",
        ),
        (
            "dfd-size.ktx2",
            patched(&good, 80 + 48, 1 << 20),
            "Basic descriptor",
        ),
        (
            "dfd-block.ktx2",
            patched(&good, 80 + 48 + 8, 2 | 0xFFF8 << 16),
            "Basic",
        ),
        ("short.ktx2", good[..good.len() - 1].to_vec(), "holds"),
        ("long.ktx2", [good.clone(), vec![0]].concat(), "holds"),
    ];
    for (name, bytes, want) in cases {
        let input = write(dir.path(), name, &bytes);
        let started = Instant::now();
        let err = convert_error(&input, &["--to", "f16", "-o", "x.f16"]);
        assert!(started.elapsed() < Duration::from_secs(3), "{name}: {err}");
        assert!(err.contains(name) && err.contains(want), "{name}: {err}");
    }
    assert!(!dir.path().join("x.f16").exists());
}

#[test]
fn ktx2_and_pfm_headers_followed_by_endless_data_stop_after_what_they_describe() {
    let dir = TempDir::new().unwrap();
    let good = ktx2_file(4, 4, 1);
    let (fifo, feeder) = endless_fifo(dir.path(), "endless.ktx2", good);
    let err = convert_error(&fifo, &["--to", "f16", "-o", "x.f16"]);
    feeder.join().unwrap();
    assert!(
        err.contains("endless.ktx2") && err.contains("holds more"),
        "{err}"
    );
    // A KTX2 header claiming a 2^15-square texture, then zeros: the level index does not
    // describe it, refused before the texels are read.
    let huge = patched(&patched(&ktx2_file(4, 4, 1), 20, 1 << 15), 24, 1 << 15);
    let (fifo, feeder) = endless_fifo(dir.path(), "huge.ktx2", huge);
    let err = convert_error(&fifo, &["--to", "f16", "-o", "x.f16"]);
    feeder.join().unwrap();
    assert!(err.contains("level index puts level 0"), "{err}");
    let (fifo, feeder) = endless_fifo(dir.path(), "endless.pfm", b"Pf\n4 4\n-1\n".to_vec());
    let err = convert_error(&fifo, &["--to", "f16", "-o", "x.f16"]);
    feeder.join().unwrap();
    assert!(
        err.contains("endless.pfm") && err.contains("describes 64 bytes"),
        "{err}"
    );
}

#[test]
fn lying_pfm_headers_are_refused_in_one_line() {
    let dir = TempDir::new().unwrap();
    let cases: [(&str, &[u8], &str); 5] = [
        (
            "huge.pfm",
            b"PF\n4000000000 4000000000\n-1\n\0\0\0\0",
            "more than the limit",
        ),
        ("wide.pfm", b"PF\n99999999999 1\n-1\n", "not a whole number"),
        ("short.pfm", b"Pf\n2 2\n-1\n\0\0\0\0", "holds 4"),
        ("scale.pfm", b"Pf\n1 1\nnan\n\0\0\0\0", "scale"),
        ("spaces.pfm", &[b' '; 300], "not a PFM"),
    ];
    for (name, bytes, want) in cases {
        let input = write(dir.path(), name, bytes);
        let err = convert_error(&input, &["--to", "f16", "-o", "x.f16"]);
        assert!(err.contains(name) && err.contains(want), "{name}: {err}");
    }
}

mod ktx2_mutations {
    use super::*;
    use d3dfloat::convert::ktx2;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

        /// Any u32 of the header, index and descriptor replaced by any value: the file
        /// reads (its data exactly the size its shape describes) or is refused in one
        /// line, at once, as a file and as a stream.
        #[test]
        fn a_ktx2_with_any_word_changed_reads_or_refuses(
            word in 3usize..60,
            value in prop_oneof![Just(0u32), Just(1), Just(6), Just(u32::MAX), Just(1 << 31), any::<u32>()],
        ) {
            let file = patched(&ktx2_file(8, 4, 3), word * 4, value);
            for len in [None, Some(file.len() as u64)] {
                let started = Instant::now();
                match ktx2::read(&mut file.as_slice(), len) {
                    Err(e) => prop_assert!(!e.to_string().contains('\n'), "{e}"),
                    Ok(t) => {
                        let size = t.shape.texel_count().unwrap() * t.texels.bytes() as u64;
                        prop_assert_eq!(size, t.data.len() as u64);
                    }
                }
                prop_assert!(started.elapsed() < Duration::from_secs(1));
            }
        }
    }
}
