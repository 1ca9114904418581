//! Regression tests for the hostile-input campaign (issue 9), one per finding, named after
//! what broke. Every file, FIFO and link is made here in a private temporary folder: none of
//! these tests may touch the machine's real /dev/null or /dev/full.

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
