//! Regression tests for the hostile-input campaign (issue 9), one per finding, named after
//! what broke. Every file, FIFO and link is made here in a private temporary folder: none of
//! these tests may touch the machine's real /dev/null or /dev/full.
#![cfg(unix)]

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command as StdCommand, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::Command;
use tempfile::TempDir;

fn d3dfloat() -> Command {
    Command::cargo_bin("d3dfloat").unwrap()
}

fn bin_path() -> std::path::PathBuf {
    assert_cmd::cargo::cargo_bin("d3dfloat")
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

const F16_OF_1_2_3_4: [u8; 8] = [0x00, 0x3c, 0x00, 0x40, 0x00, 0x42, 0x00, 0x44];

/// Files in `dir` whose names mark a temporary output.
fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".part"))
        .collect()
}

/// The stderr of a failed run: exactly one line, prefixed as every error is.
fn one_error_line(out: &std::process::Output) -> String {
    let err = String::from_utf8(out.stderr.clone()).unwrap();
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert_eq!(err.lines().count(), 1, "one line expected: {err:?}");
    assert!(err.starts_with("d3dfloat: error: "), "{err}");
    err.trim_end().to_string()
}

fn write_input(dir: &Path) -> std::path::PathBuf {
    let input = dir.join("in.f32");
    std::fs::write(&input, f32_bytes(&[1.0, 2.0, 3.0, 4.0])).unwrap();
    input
}

// ---- 1. Outputs that are not regular files are written in place ----

#[test]
fn output_to_a_fifo_streams_through_it_and_the_fifo_stays() {
    let dir = TempDir::new().unwrap();
    let input = write_input(dir.path());
    let fifo = dir.path().join("pipe");
    assert!(
        StdCommand::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    // The reader opens the FIFO first (opening it blocks until both ends are there).
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            std::fs::File::open(fifo)
                .unwrap()
                .read_to_end(&mut bytes)
                .unwrap();
            bytes
        })
    };
    d3dfloat()
        .args(["convert", "--from", "f32", "--to", "f16"])
        .arg(&input)
        .arg("-o")
        .arg(&fifo)
        .timeout(Duration::from_secs(20))
        .assert()
        .success();
    assert_eq!(reader.join().unwrap(), F16_OF_1_2_3_4);
    let kind = std::fs::symlink_metadata(&fifo).unwrap().file_type();
    assert!(
        std::os::unix::fs::FileTypeExt::is_fifo(&kind),
        "the FIFO was replaced"
    );
    assert!(leftovers(dir.path()).is_empty());
}

#[test]
fn output_to_a_link_to_proc_self_fd_1_writes_stdout_and_keeps_the_link() {
    let dir = TempDir::new().unwrap();
    let input = write_input(dir.path());
    let link = dir.path().join("stdout-link");
    std::os::unix::fs::symlink("/proc/self/fd/1", &link).unwrap();
    let out = d3dfloat()
        .args(["convert", "--from", "f32", "--to", "f16", "--no-progress"])
        .arg(&input)
        .arg("-o")
        .arg(&link)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(out.stdout, F16_OF_1_2_3_4);
    assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
    assert_eq!(
        std::fs::read_link(&link).unwrap(),
        Path::new("/proc/self/fd/1")
    );
    assert!(leftovers(dir.path()).is_empty());
}

#[test]
fn output_through_a_link_to_a_regular_file_replaces_the_target_and_keeps_the_link() {
    let dir = TempDir::new().unwrap();
    let input = write_input(dir.path());
    let sub = dir.path().join("data");
    std::fs::create_dir(&sub).unwrap();
    let target = sub.join("real.f16");
    std::fs::write(&target, b"old contents, longer than the new").unwrap();
    let link = dir.path().join("link.f16");
    std::os::unix::fs::symlink("data/real.f16", &link).unwrap();
    d3dfloat()
        .args(["convert", "--from", "f32", "--to", "f16"])
        .arg(&input)
        .arg("-o")
        .arg(&link)
        .assert()
        .success();
    assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
    assert_eq!(std::fs::read(&target).unwrap(), F16_OF_1_2_3_4);
    // The temporary file was made beside the target (a rename cannot cross folders).
    assert!(leftovers(dir.path()).is_empty() && leftovers(&sub).is_empty());
}

#[test]
fn output_to_a_directory_names_the_cause_once() {
    let dir = TempDir::new().unwrap();
    let input = write_input(dir.path());
    let out = d3dfloat()
        .args(["convert", "--from", "f32", "--to", "f16"])
        .arg(&input)
        .args(["-o", &format!("{}/", dir.path().display())])
        .output()
        .unwrap();
    let err = one_error_line(&out);
    assert_eq!(err.matches("directory").count(), 1, "{err}");
}

#[test]
fn output_in_a_missing_folder_names_the_path_typed_not_the_temporary_file() {
    let dir = TempDir::new().unwrap();
    let input = write_input(dir.path());
    let out = d3dfloat()
        .current_dir(dir.path())
        .args(["convert", "--from", "f32", "--to", "f16"])
        .arg(&input)
        .args(["-o", "missing/out.f16"])
        .output()
        .unwrap();
    let err = one_error_line(&out);
    assert!(err.contains("writing missing/out.f16: "), "{err}");
    assert!(!err.contains(".part") && !err.contains("at path"), "{err}");
    assert_eq!(err.matches("os error 2").count(), 1, "{err}");
}

// ---- 2. Stdin that is the output file ----

#[test]
fn stdin_that_is_the_output_file_is_refused_and_left_whole() {
    let dir = TempDir::new().unwrap();
    let input = write_input(dir.path());
    let before = std::fs::read(&input).unwrap();
    let out = StdCommand::new(bin_path())
        .args(["convert", "--from", "f32", "--to", "f16", "-", "-o"])
        .arg(&input)
        .stdin(std::fs::File::open(&input).unwrap())
        .output()
        .unwrap();
    let err = one_error_line(&out);
    assert!(err.contains("refusing to write over the input"), "{err}");
    assert_eq!(std::fs::read(&input).unwrap(), before);
    assert!(leftovers(dir.path()).is_empty());
}

// ---- 3. Signals during a conversion ----

#[test]
fn signals_during_a_conversion_remove_the_temporary_file_and_exit_128_plus_signo() {
    for (name, number) in [("INT", 2), ("TERM", 15), ("HUP", 1)] {
        let dir = TempDir::new().unwrap();
        let output = dir.path().join("out.f16");
        let mut child = StdCommand::new(bin_path())
            .args([
                "convert",
                "--from",
                "f32",
                "--to",
                "f16",
                "--no-progress",
                "-",
            ])
            .arg("-o")
            .arg(&output)
            .stdin(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Some data, then an open pipe: the conversion is under way and waiting for more.
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(&f32_bytes(&[1.0; 4096])).unwrap();
        let started = Instant::now();
        while leftovers(dir.path()).is_empty() {
            assert!(started.elapsed() < Duration::from_secs(20), "no .part file");
            std::thread::sleep(Duration::from_millis(10));
        }
        let killed = StdCommand::new("kill")
            .args([format!("-{name}"), child.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        let status = child.wait().unwrap();
        drop(stdin);
        assert_eq!(status.code(), Some(128 + number), "SIG{name}: {status:?}");
        assert!(leftovers(dir.path()).is_empty(), "SIG{name} left a .part");
        assert!(!output.exists(), "SIG{name} left an output");
    }
}

/// A sparse input as large as a disk array (8 TiB of zeros, holding no disk) asks for an
/// output far larger than any test machine's free space: the run fails at once, naming
/// the output, without converting (and writing) until the disk is full.
#[cfg(target_os = "linux")]
#[test]
fn an_output_larger_than_the_free_disk_fails_before_the_conversion() {
    let dir = TempDir::new().unwrap();
    let input = dir.path().join("huge.f32");
    std::fs::File::create(&input)
        .unwrap()
        .set_len(8 << 40)
        .unwrap();
    let output = dir.path().join("out.f16");
    // Converting 8 TiB would run far past the timeout, which then fails the run.
    let out = d3dfloat()
        .args(["convert", "--from", "f32", "--to", "f16", "--no-progress"])
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .timeout(Duration::from_secs(20))
        .output()
        .unwrap();
    let err = one_error_line(&out);
    assert!(err.contains("writing") && err.contains("out.f16"), "{err}");
    assert!(
        err.contains("No space left") || err.contains("too large"),
        "{err}"
    );
    assert!(leftovers(dir.path()).is_empty());
    assert!(!output.exists());
}

// ---- 4. Image headers that lie about their size ----

fn hdr_with_dimensions(dims: &str, pixel_bytes: usize) -> Vec<u8> {
    let mut bytes = format!("#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n{dims}\n").into_bytes();
    bytes.extend(std::iter::repeat_n(0x80u8, pixel_bytes));
    bytes
}

/// Runs `convert` on an image file and returns its one error line.
fn convert_image_error(path: &Path, extra: &[&str]) -> String {
    let out = d3dfloat()
        .current_dir(path.parent().unwrap())
        .args(["convert", "--to", "f16", "--no-progress"])
        .args(extra)
        .arg(path.file_name().unwrap())
        .args(["-o", "out.f16"])
        .timeout(Duration::from_secs(20))
        .output()
        .unwrap();
    let err = one_error_line(&out);
    assert!(!path.with_file_name("out.f16").exists());
    assert!(leftovers(path.parent().unwrap()).is_empty());
    err
}

#[test]
fn hdr_headers_declaring_huge_or_empty_images_are_refused_before_allocating() {
    let dir = TempDir::new().unwrap();
    let hdr = dir.path().join("lying.hdr");
    for (dims, expect) in [
        ("-Y 2000000000 +X 2000000000", "2000000000x2000000000"),
        ("-Y 65536 +X 65536", "65536x65536"),
        ("-Y 1 +X 1000000000", "1000000000x1"),
    ] {
        std::fs::write(&hdr, hdr_with_dimensions(dims, 100)).unwrap();
        let err = convert_image_error(&hdr, &[]);
        assert!(
            err.contains(expect) && err.contains("--max-pixels"),
            "{err}"
        );
    }
    // Raising the limit does not let a 100-byte body claim 65536 scanlines.
    std::fs::write(&hdr, hdr_with_dimensions("-Y 65536 +X 65536", 100)).unwrap();
    let err = convert_image_error(&hdr, &["--max-pixels", "100000000000"]);
    assert!(
        err.contains("65536x65536") && err.contains("scanlines"),
        "{err}"
    );
    std::fs::write(&hdr, hdr_with_dimensions("-Y 0 +X 0", 100)).unwrap();
    let err = convert_image_error(&hdr, &[]);
    assert!(err.contains("0x0") && err.contains("empty"), "{err}");
}

/// A valid 1x1 OpenEXR file whose data window is then rewritten to (0,0)-(xmax,ymax).
fn exr_declaring(path: &Path, xmax: i32, ymax: i32) {
    exr::prelude::write_rgba_file(path, 1, 1, |_, _| (1.0f32, 2.0f32, 3.0f32, 1.0f32)).unwrap();
    let mut bytes = std::fs::read(path).unwrap();
    let key = b"dataWindow\0box2i\0";
    let at = bytes
        .windows(key.len())
        .position(|w| w == key)
        .expect("a data window")
        + key.len()
        + 4;
    bytes[at + 8..at + 12].copy_from_slice(&xmax.to_le_bytes());
    bytes[at + 12..at + 16].copy_from_slice(&ymax.to_le_bytes());
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn exr_headers_declaring_huge_images_are_refused_before_allocating() {
    let dir = TempDir::new().unwrap();
    let exr = dir.path().join("lying.exr");
    exr_declaring(&exr, 65535, 65535);
    assert!(std::fs::metadata(&exr).unwrap().len() < 2000);
    let err = convert_image_error(&exr, &[]);
    assert!(
        err.contains("65536x65536") && err.contains("--max-pixels"),
        "{err}"
    );
    // Past the limit, the file's size still bounds what it can hold.
    let err = convert_image_error(&exr, &["--max-pixels", "100000000000"]);
    assert!(
        err.contains("65536x65536") && err.contains("chunks"),
        "{err}"
    );
    // The untouched file still converts.
    exr_declaring(&exr, 0, 0);
    d3dfloat()
        .current_dir(dir.path())
        .args(["convert", "--to", "f16", "lying.exr", "-o", "ok.f16"])
        .assert()
        .success();
    assert_eq!(std::fs::read(dir.path().join("ok.f16")).unwrap().len(), 8);
}

// ---- 5. Long decimal literals: linear time, exact rounding ----

#[test]
fn a_50_mb_literal_is_answered_in_linear_time() {
    let mut fraction = String::from("0.");
    fraction.push_str(&"1".repeat(50_000_000));
    fraction.push('\n');
    let started = Instant::now();
    let out = d3dfloat()
        .args(["encode", "--plain"])
        .write_stdin(fraction.into_bytes())
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    // 0.111... = 1/9 to f32: 0x3de38e39. Quadratic parsing took minutes; this is loose
    // enough for a debug build on a busy machine.
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "0x3de38e39\n");
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    // A 50 MB integer is far out of range: refused as fast, with a short message.
    let started = Instant::now();
    let out = d3dfloat()
        .args(["encode", "--plain"])
        .write_stdin(format!("{}\n", "1".repeat(50_000_000)).into_bytes())
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let err = one_error_line(&out);
    assert!(err.contains("out of range") && err.len() < 300, "{err}");
    assert!(started.elapsed() < Duration::from_secs(30));
}

#[test]
fn long_literals_at_rounding_boundaries_still_round_exactly() {
    use d3dfloat::exact::{Number, Ratio};
    use d3dfloat::format::{F32, F64, RoundOptions, Rounding, round_number};
    use d3dfloat::input::{Constants, parse_value};
    // The midpoint between the two smallest f64 subnormals, 3 * 2^-1075: 751 significant
    // digits, the hardest tie there is. Then the same tie with a tail far past 800 digits.
    let mid = Ratio::dyadic(3u32, -1075).decimal_expansion().unwrap();
    let far = "0".repeat(5000);
    let rne = RoundOptions::new(Rounding::NearestEven);
    let bits = |text: &str, fmt| match parse_value(text, Constants::Float(fmt)).unwrap() {
        n @ Number::Finite { .. } => round_number(fmt, &n, rne).bits,
        other => panic!("{other:?}"),
    };
    assert_eq!(bits(&mid, &F64), 2, "a tie goes to even");
    assert_eq!(bits(&format!("{mid}{far}"), &F64), 2, "zeros are no tail");
    assert_eq!(bits(&format!("{mid}{far}1"), &F64), 2, "just above the tie");
    // Just below: the tie's last digit (5) less one, then nines for ever.
    let below = format!("{}4{}", &mid[..mid.len() - 1], "9".repeat(5000));
    assert_eq!(bits(&below, &F64), 1, "just below the tie");
    // 1 + 2^-24 is the f32 tie above 1: the same story at 17 digits and at 5000.
    let tie = "1.000000059604644775390625";
    assert_eq!(bits(tie, &F32), 0x3f80_0000);
    assert_eq!(bits(&format!("{tie}{far}1"), &F32), 0x3f80_0001);
    assert_eq!(bits(&format!("0.{}1e1", "0".repeat(900)), &F64), 0);
    let x = parse_value(&format!("{tie}{far}1"), Constants::Float(&F32)).unwrap();
    assert!(!round_number(&F32, &x, rne).outcome.exact);
}

// ---- 6. Echoed input: one escaped, shortened line ----

#[test]
fn echoed_input_is_escaped_and_shortened_to_one_line() {
    let out = d3dfloat().args(["encode", "1\n2"]).output().unwrap();
    let err = one_error_line(&out);
    assert!(err.contains(r"'1\n2'"), "{err}");
    let out = d3dfloat()
        .args(["encode", "\u{1b}[31mred"])
        .output()
        .unwrap();
    let err = one_error_line(&out);
    assert!(
        !err.contains('\u{1b}') && err.contains(r"\u{1b}[31mred"),
        "{err}"
    );
    let long = format!("{}x", "7".repeat(5000));
    let out = d3dfloat()
        .arg("op")
        .write_stdin(format!("add 1 {long}\n"))
        .output()
        .unwrap();
    let err = one_error_line(&out);
    assert!(err.len() < 500 && err.contains("bytes in all"), "{err}");
}

// ---- 7. is covered above (directory, missing folder) ----

// ---- 8. Command-line messages that misled ----

fn usage_error(args: &[&str]) -> String {
    let out = d3dfloat().args(args).output().unwrap();
    one_error_line(&out)
}

#[test]
fn negative_counts_and_missing_arguments_get_true_messages() {
    let dir = TempDir::new().unwrap();
    let a = dir.path().join("a.f32");
    std::fs::write(&a, f32_bytes(&[1.0])).unwrap();
    let a = a.to_str().unwrap();
    let err = usage_error(&["ulp-diff", "--files", a, a, "--max", "-1"]);
    assert!(
        err.contains("'-1' for '--max") && err.contains("0 or more"),
        "{err}"
    );
    let err = usage_error(&["ulp-diff", "--max", "-5", "1", "2"]);
    assert!(err.contains("'-5' for '--max"), "{err}");
    let err = usage_error(&[
        "convert",
        "--from",
        "f32",
        "--to",
        "rgb9e5",
        "--channels",
        "-1",
    ]);
    assert!(
        err.contains("'-1' for '--channels") && err.contains("1 to 4"),
        "{err}"
    );
    let err = usage_error(&["generate", "man"]);
    assert!(err.contains("not provided: <DIR>"), "{err}");
    // Negative values as positionals still work beside a --max.
    d3dfloat()
        .args(["ulp-diff", "--max", "1", "-1", "-1.0000001", "--plain"])
        .assert()
        .success()
        .stdout("-1\n");
}

#[test]
fn op_messages_say_each_thing_once_in_plain_words() {
    let err = usage_error(&["op", "itof", "1.5"]);
    assert!(
        err.ends_with("argument 2: '1.5': not an i32 integer"),
        "{err}"
    );
    let err = usage_error(&["op", "utof", "x"]);
    assert!(err.ends_with("not a u32 integer"), "{err}");
    let err = usage_error(&["op", "add", "1,2", "3"]);
    assert!(
        err.contains("single values, not vectors") && !err.contains("1 components"),
        "{err}"
    );
    let err = usage_error(&["op", "dp2", "1", "2"]);
    assert!(err.contains("(written 1,2)"), "{err}");
}

#[test]
fn a_byte_order_mark_on_line_1_is_skipped() {
    d3dfloat()
        .args(["encode", "--plain"])
        .write_stdin(b"\xef\xbb\xbf1.5\n2\n".to_vec())
        .assert()
        .success()
        .stdout("0x3fc00000\n0x40000000\n");
}

#[test]
fn an_underscore_stands_only_between_two_digits() {
    d3dfloat()
        .args(["decode", "--fmt", "f16", "--plain", "0b0_01111_0000000000"])
        .assert()
        .success()
        .stdout("1\n");
    for stray in ["0x_1", "1_", "0b1__0"] {
        let err = usage_error(&["decode", "--plain", stray]);
        assert!(err.contains("not a bit pattern"), "{stray}: {err}");
    }
    // Values take no underscores at all.
    let err = usage_error(&["encode", "1_000"]);
    assert!(err.contains("not a number"), "{err}");
}

// ---- 9. Live feeds get each answer as its line arrives ----

#[test]
fn a_live_feed_is_answered_line_by_line() {
    let mut child = StdCommand::new(bin_path())
        .args(["op", "--plain"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    for (line, answer) in [
        ("add 1 2\n", "0x40400000 0x40400000\n"),
        ("mul 2 3\n", "0x40c00000 0x40c00000\n"),
    ] {
        // The pipe stays open: the answer must come before any more input does.
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.flush().unwrap();
        let mut got = String::new();
        std::io::BufRead::read_line(&mut stdout, &mut got).unwrap();
        assert_eq!(got, answer);
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

// ---- Found by the property tests ----

#[test]
fn f64_check_far_outside_the_allowed_set_does_not_overflow() {
    // Allowed: -inf only; the claim: max. The distance between them needs all of u64.
    d3dfloat()
        .args([
            "op", "--fmt", "f64", "add", "-inf", "0", "--check", "max", "--plain",
        ])
        .assert()
        .code(1)
        .stdout("violates\n");
}

/// Stdin is read in 64 KiB blocks with whole lines handled in place: lines that straddle a
/// block, a line longer than a block, CRLF endings, a last line without a newline and a BOM
/// all read as they would one by one, and an invalid line is named by its number even deep
/// inside a block.
#[test]
fn stdin_lines_across_block_boundaries_read_as_lines() {
    let mut input = String::from("\u{feff}0x3c00\r\n");
    let mut want = vec!["1".to_string()];
    for i in 0..30_000u32 {
        if i == 12_345 {
            // A comment longer than a whole block.
            input.push('#');
            input.push_str(&"x".repeat(100_000));
            input.push('\n');
        }
        let bits = 0x3c00 + (i % 1024);
        input.push_str(&format!("{bits:#06x}\n"));
        want.push(d3dfloat_decode(bits));
    }
    input.push_str("0xc000");
    want.push("-2".into());
    let out = d3dfloat()
        .args(["decode", "--fmt", "f16", "--plain"])
        .write_stdin(input.clone())
        .output()
        .unwrap();
    assert!(out.status.success());
    let got: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(got.len(), want.len());
    assert_eq!(got, want);

    // Not UTF-8 on line 20,000 (the BOM line is 1, the long comment one more).
    let mut bytes = input.into_bytes();
    let pos = bytes
        .split(|&b| b == b'\n')
        .take(19_999)
        .map(|l| l.len() + 1)
        .sum::<usize>();
    bytes[pos] = 0xff;
    let out = d3dfloat()
        .args(["decode", "--fmt", "f16", "--plain"])
        .write_stdin(bytes)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("line 20000:"), "{err}");
    assert!(err.contains("not valid UTF-8"), "{err}");
}

/// `decode --plain` of a float16 pattern, through the library.
fn d3dfloat_decode(bits: u32) -> String {
    d3dfloat::format::text::shortest_decimal(&d3dfloat::format::F16, u64::from(bits))
}
