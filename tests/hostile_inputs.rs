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
        for ext in ["dds", "hdr", "exr"] {
            let name = format!("endless-{}.{ext}", &target[5..]);
            let input = link(dir.path(), &name, target);
            let started = Instant::now();
            let err = convert_error(&input, &["--to", "f16", "-o", "x.f16"]);
            assert!(started.elapsed() < Duration::from_secs(3), "{name}: {err}");
            assert!(err.contains(&name), "{err}");
        }
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
