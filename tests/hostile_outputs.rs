//! Regression tests for the second hardening round (issue 29, part A): outputs that cannot
//! destroy data. One test per finding, named after what broke, and a property test that
//! throws every kind of output path at every command that writes a named file. Every file,
//! FIFO, device node and link is made here in a private temporary folder; the machine's
//! /dev/null is used only by a user who cannot replace it.
#![cfg(target_os = "linux")]

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command as StdCommand, Output, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::Command;
use proptest::prelude::*;
use tempfile::TempDir;

fn d3dfloat() -> Command {
    Command::cargo_bin("d3dfloat").unwrap()
}

fn bin_path() -> PathBuf {
    assert_cmd::cargo::cargo_bin("d3dfloat")
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

const F16_OF_1_2_3_4: [u8; 8] = [0x00, 0x3c, 0x00, 0x40, 0x00, 0x42, 0x00, 0x44];

fn write_input(dir: &Path) -> PathBuf {
    let input = dir.join("in.f32");
    std::fs::write(&input, f32_bytes(&[1.0, 2.0, 3.0, 4.0])).unwrap();
    input
}

/// Files under `dir` (one level of subfolders too) whose names mark a temporary output.
fn leftovers(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        if name.ends_with(".part") || name.starts_with(".tmp") {
            found.push(name);
        } else if e.file_type().unwrap().is_dir() {
            found.extend(leftovers(&e.path()));
        }
    }
    found
}

/// The stderr of a failed run: exactly one line, prefixed as every error is.
fn one_error_line(out: &Output) -> String {
    let err = String::from_utf8(out.stderr.clone()).unwrap();
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert_eq!(err.lines().count(), 1, "one line expected: {err:?}");
    assert!(err.starts_with("d3dfloat: error: "), "{err}");
    err.trim_end().to_string()
}

fn is_root() -> bool {
    std::fs::metadata("/proc/self").unwrap().uid() == 0
}

/// The user that root's tests run as where a test needs an ordinary user.
const NOBODY: u32 = 65534;

/// Whether `nobody` may do what `test FLAG PATH` checks (`-x` run, `-w` write): asked of the
/// system itself, so that folder modes, ACLs and mounts all count. Only for root.
fn nobody_may(flag: &str, path: &Path) -> bool {
    StdCommand::new("setpriv")
        .args([
            format!("--reuid={NOBODY}"),
            format!("--regid={NOBODY}"),
            "--clear-groups".into(),
        ])
        .arg("test")
        .arg(flag)
        .arg(path)
        .status()
        .is_ok_and(|s| s.success())
}

fn has_setpriv() -> bool {
    StdCommand::new("setpriv")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// What a test needs to run the binary as an ordinary user: a folder that user owns, and
/// the binary where that user can run it. As root the user is `nobody`, who cannot enter a
/// clone kept in a folder only its owner may enter (root's home, a `mktemp -d` folder): the
/// binary is then copied into the folder, which is made under the temporary folder, or
/// under /tmp when the temporary folder is private too.
struct Ordinary {
    dir: TempDir,
    bin: PathBuf,
}

impl Ordinary {
    /// `None`, with one line on stderr saying why, when it cannot be arranged.
    fn new() -> Option<Ordinary> {
        if !is_root() {
            return Some(Ordinary {
                dir: TempDir::new().unwrap(),
                bin: bin_path(),
            });
        }
        if !has_setpriv() {
            eprintln!("note: running as root without setpriv: the ordinary-user check is skipped");
            return None;
        }
        let dir = [std::env::temp_dir(), PathBuf::from("/tmp")]
            .into_iter()
            .find_map(|base| {
                let dir = TempDir::new_in(base).ok()?;
                std::os::unix::fs::chown(dir.path(), Some(NOBODY), Some(NOBODY)).unwrap();
                nobody_may("-w", dir.path()).then_some(dir)
            });
        let Some(dir) = dir else {
            eprintln!(
                "note: `nobody` can reach neither {} nor /tmp: the ordinary-user check is skipped",
                std::env::temp_dir().display()
            );
            return None;
        };
        let mut bin = bin_path();
        if !nobody_may("-x", &bin) {
            let copy = dir.path().join("d3dfloat");
            std::fs::copy(&bin, &copy).unwrap();
            std::fs::set_permissions(&copy, std::fs::Permissions::from_mode(0o755)).unwrap();
            bin = copy;
        }
        Some(Ordinary { dir, bin })
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// A command that runs `args` as the ordinary user: the tests' own user when it is not
    /// root, `nobody` through `setpriv` when it is.
    fn command(&self, args: &[&std::ffi::OsStr]) -> StdCommand {
        if !is_root() {
            let mut c = StdCommand::new(args[0]);
            c.args(&args[1..]);
            return c;
        }
        let mut c = StdCommand::new("setpriv");
        c.args([
            format!("--reuid={NOBODY}"),
            format!("--regid={NOBODY}"),
            "--clear-groups".into(),
        ]);
        c.args(args);
        c
    }
}

fn give_to_ordinary_user(path: &Path) {
    if is_root() {
        std::os::unix::fs::lchown(path, Some(NOBODY), Some(NOBODY)).unwrap();
    }
}

// ---- 1. stdout that is the input file ----

#[test]
fn stdout_appending_to_the_input_file_is_refused_and_the_input_kept() {
    let dir = TempDir::new().unwrap();
    let input = write_input(dir.path());
    let before = std::fs::read(&input).unwrap();
    // `>> in.f32` and `1<> in.f32`.
    let appending = OpenOptions::new().append(true).open(&input).unwrap();
    let read_write = OpenOptions::new()
        .read(true)
        .write(true)
        .open(&input)
        .unwrap();
    for stdout in [appending, read_write] {
        let out = StdCommand::new(bin_path())
            .args(["convert", "--from", "f32", "--to", "f16"])
            .arg(&input)
            .stdout(stdout)
            .output()
            .unwrap();
        let err = one_error_line(&out);
        assert!(err.contains("input file is output file"), "{err}");
        assert!(err.contains("stdout"), "{err}");
        assert_eq!(std::fs::read(&input).unwrap(), before);
    }
}

#[test]
fn stdout_into_another_file_or_dev_null_is_fine() {
    let dir = TempDir::new().unwrap();
    let input = write_input(dir.path());
    let other = dir.path().join("other.f16");
    let out = StdCommand::new(bin_path())
        .args(["convert", "--from", "f32", "--to", "f16"])
        .arg(&input)
        .stdout(File::create(&other).unwrap())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(std::fs::read(&other).unwrap(), F16_OF_1_2_3_4);
    let out = StdCommand::new(bin_path())
        .args(["convert", "--from", "f32", "--to", "f16"])
        .arg(&input)
        .stdout(Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
}

// ---- 2. A link to an open descriptor is written through it ----

#[test]
fn output_dev_stdout_appends_to_a_log_opened_for_appending() {
    for link in ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"] {
        let dir = TempDir::new().unwrap();
        let input = write_input(dir.path());
        let log = dir.path().join("log");
        std::fs::write(&log, b"hello\n").unwrap();
        let inode = std::fs::metadata(&log).unwrap().ino();
        let out = StdCommand::new(bin_path())
            .args(["convert", "--from", "f32", "--to", "f16", "--no-progress"])
            .arg(&input)
            .args(["-o", link])
            .stdout(OpenOptions::new().append(true).open(&log).unwrap())
            .output()
            .unwrap();
        assert!(out.status.success(), "{link}: {out:?}");
        let mut want = b"hello\n".to_vec();
        want.extend_from_slice(&F16_OF_1_2_3_4);
        assert_eq!(std::fs::read(&log).unwrap(), want, "{link}");
        assert_eq!(
            std::fs::metadata(&log).unwrap().ino(),
            inode,
            "{link}: replaced"
        );
        assert!(leftovers(dir.path()).is_empty());
    }
}

/// A descriptor past stderr (`3>> log`), reached through `/dev/fd/3` and a link of the
/// user's own to it.
#[test]
fn output_dev_fd_3_appends_to_the_file_the_shell_opened() {
    let dir = TempDir::new().unwrap();
    let input = write_input(dir.path());
    let log = dir.path().join("log");
    let link = dir.path().join("fd3-link");
    std::os::unix::fs::symlink("/dev/fd/3", &link).unwrap();
    for target in [Path::new("/dev/fd/3"), &link] {
        std::fs::write(&log, b"hello\n").unwrap();
        let out = StdCommand::new("sh")
            .arg("-c")
            .arg("exec \"$0\" \"$@\" 3>> \"$LOG\"")
            .arg(bin_path())
            .args(["convert", "--from", "f32", "--to", "f16", "--no-progress"])
            .arg(&input)
            .arg("-o")
            .arg(target)
            .env("LOG", &log)
            .output()
            .unwrap();
        assert!(out.status.success(), "{target:?}: {out:?}");
        let mut want = b"hello\n".to_vec();
        want.extend_from_slice(&F16_OF_1_2_3_4);
        assert_eq!(std::fs::read(&log).unwrap(), want, "{target:?}");
        assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
    }
    // No descriptor 3 open: an error naming the path, not a file made in its place.
    let out = d3dfloat()
        .args(["convert", "--from", "f32", "--to", "f16"])
        .arg(&input)
        .arg("-o")
        .arg(&link)
        .output()
        .unwrap();
    let err = one_error_line(&out);
    assert!(
        err.contains("fd3-link") && err.contains("Bad file descriptor"),
        "{err}"
    );
    assert!(leftovers(dir.path()).is_empty());
}

// ---- 3. Modes: write protection, kept modes, the umask ----

#[test]
fn a_write_protected_output_is_refused_and_kept() {
    let Some(user) = Ordinary::new() else {
        return;
    };
    let dir = user.path();
    let input = write_input(dir);
    let output = dir.join("out.f16");
    std::fs::write(&output, b"precious").unwrap();
    give_to_ordinary_user(&output);
    std::fs::set_permissions(&output, std::fs::Permissions::from_mode(0o444)).unwrap();
    let out = user
        .command(&[
            user.bin.as_os_str(),
            "convert".as_ref(),
            "--from=f32".as_ref(),
            "--to=f16".as_ref(),
            input.as_os_str(),
            "-o".as_ref(),
            output.as_os_str(),
        ])
        .output()
        .unwrap();
    let err = one_error_line(&out);
    assert!(
        err.contains("Permission denied") && err.contains("out.f16"),
        "{err}"
    );
    assert_eq!(std::fs::read(&output).unwrap(), b"precious");
    let mode = std::fs::metadata(&output).unwrap().mode() & 0o7777;
    assert_eq!(mode, 0o444);
    assert!(leftovers(dir).is_empty());
}

/// Root may write a 0444 file (as `cp` does), and the replacement stays 0444.
#[test]
fn root_replaces_a_write_protected_file_and_keeps_its_mode() {
    if !is_root() {
        eprintln!("note: not root: the root half of the write-protection check is skipped");
        return;
    }
    let dir = TempDir::new().unwrap();
    let input = write_input(dir.path());
    let output = dir.path().join("out.f16");
    std::fs::write(&output, b"old").unwrap();
    std::fs::set_permissions(&output, std::fs::Permissions::from_mode(0o444)).unwrap();
    std::os::unix::fs::chown(&output, Some(NOBODY), Some(NOBODY)).unwrap();
    d3dfloat()
        .args(["convert", "--from", "f32", "--to", "f16"])
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .assert()
        .success();
    let m = std::fs::metadata(&output).unwrap();
    assert_eq!(std::fs::read(&output).unwrap(), F16_OF_1_2_3_4);
    assert_eq!(m.mode() & 0o7777, 0o444);
    assert_eq!((m.uid(), m.gid()), (NOBODY, NOBODY), "root keeps the owner");
}

/// Runs `convert in.f32 -o OUTPUT` under `umask`.
fn convert_under_umask(umask: &str, input: &Path, output: &Path) -> Output {
    StdCommand::new("sh")
        .arg("-c")
        .arg(format!("umask {umask}; exec \"$0\" \"$@\""))
        .arg(bin_path())
        .args(["convert", "--from", "f32", "--to", "f16"])
        .arg(input)
        .arg("-o")
        .arg(output)
        .output()
        .unwrap()
}

#[test]
fn an_existing_output_keeps_its_mode_and_a_new_one_follows_the_umask() {
    let dir = TempDir::new().unwrap();
    let input = write_input(dir.path());
    for mode in [0o600, 0o640, 0o604, 0o755] {
        let output = dir.path().join(format!("kept-{mode:o}.f16"));
        std::fs::write(&output, b"old").unwrap();
        std::fs::set_permissions(&output, std::fs::Permissions::from_mode(mode)).unwrap();
        let out = convert_under_umask("022", &input, &output);
        assert!(out.status.success(), "{out:?}");
        assert_eq!(std::fs::read(&output).unwrap(), F16_OF_1_2_3_4);
        let got = std::fs::metadata(&output).unwrap().mode() & 0o7777;
        assert_eq!(got, mode, "{got:o}, was {mode:o}");
    }
    for (umask, want) in [
        ("077", 0o600),
        ("022", 0o644),
        ("002", 0o664),
        ("027", 0o640),
    ] {
        let output = dir.path().join(format!("new-{umask}.f16"));
        let out = convert_under_umask(umask, &input, &output);
        assert!(out.status.success(), "{out:?}");
        let got = std::fs::metadata(&output).unwrap().mode() & 0o7777;
        assert_eq!(got, want, "umask {umask}: {got:o}");
    }
    assert!(leftovers(dir.path()).is_empty());
}

// ---- 4. probe --emit-log and op --violations follow the same rules ----

fn probe_fake() -> Command {
    let mut c = d3dfloat();
    c.env("D3DFLOAT_TEST_FAKE_DEVICE", "no-flush").args([
        "probe",
        "--plain",
        "--ops",
        "f32:add,f32:mul",
        "--count",
        "200",
    ]);
    c
}

#[test]
fn an_unwritable_emit_log_fails_before_the_device_is_opened() {
    let dir = TempDir::new().unwrap();
    for log in ["missing/probe.log", "."] {
        // A device that cannot be opened: the log's error must come first.
        let out = d3dfloat()
            .current_dir(dir.path())
            .env("D3DFLOAT_TEST_FAKE_DEVICE", "no-such-device")
            .args(["probe", "--emit-log", log])
            .output()
            .unwrap();
        let err = one_error_line(&out);
        assert!(err.contains(&format!("writing {log}")), "{err}");
        assert!(err.contains("--emit-log"), "{err}");
        assert!(!err.contains(".part") && !err.contains(".tmp"), "{err}");
        assert!(!err.contains("D3DFLOAT_TEST_FAKE_DEVICE"), "{err}");
    }
    assert!(leftovers(dir.path()).is_empty());
}

#[test]
fn emit_log_onto_a_fifo_or_a_device_is_written_in_place() {
    let dir = TempDir::new().unwrap();
    let reference = dir.path().join("reference.log");
    probe_fake()
        .arg("--emit-log")
        .arg(&reference)
        .assert()
        .code(1);
    let want = std::fs::read(&reference).unwrap();
    assert!(!want.is_empty());

    let fifo = dir.path().join("fifo");
    mkfifo(&fifo);
    let reader = read_fifo_in_background(&fifo);
    probe_fake().arg("--emit-log").arg(&fifo).assert().code(1);
    assert_eq!(reader.join().unwrap(), want);
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());

    let null = null_device(dir.path());
    let link = dir.path().join("null-link");
    std::os::unix::fs::symlink(&null, &link).unwrap();
    for target in [&null, &link] {
        probe_fake().arg("--emit-log").arg(target).assert().code(1);
        assert!(
            std::fs::metadata(target)
                .unwrap()
                .file_type()
                .is_char_device(),
            "{target:?} was replaced"
        );
    }
    assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
    assert!(leftovers(dir.path()).is_empty());
}

/// `op sqrt` buffers with one violating line (the square root of 9 given as 4).
fn sqrt_buffers(dir: &Path) {
    std::fs::write(dir.join("x.f32"), f32_bytes(&[4.0, 9.0, 16.0])).unwrap();
    std::fs::write(dir.join("r.f32"), f32_bytes(&[2.0, 4.0, 4.0])).unwrap();
}

fn op_violations(dir: &Path, target: &Path) -> Output {
    d3dfloat()
        .current_dir(dir)
        .args(["op", "sqrt", "--operands", "x.f32", "--results", "r.f32"])
        .arg("--violations")
        .arg(target)
        .output()
        .unwrap()
}

#[test]
fn violations_refuse_an_operand_a_missing_folder_and_keep_a_fifo() {
    let dir = TempDir::new().unwrap();
    sqrt_buffers(dir.path());
    let before = std::fs::read(dir.path().join("r.f32")).unwrap();
    let err = one_error_line(&op_violations(dir.path(), Path::new("r.f32")));
    assert!(err.contains("input file is output file"), "{err}");
    assert_eq!(std::fs::read(dir.path().join("r.f32")).unwrap(), before);
    let err = one_error_line(&op_violations(dir.path(), Path::new("no/bad.txt")));
    assert!(err.contains("--violations: writing no/bad.txt"), "{err}");
    let fifo = dir.path().join("fifo");
    mkfifo(&fifo);
    let reader = read_fifo_in_background(&fifo);
    assert_eq!(op_violations(dir.path(), &fifo).status.code(), Some(1));
    let got = String::from_utf8(reader.join().unwrap()).unwrap();
    assert!(got.starts_with("sqrt "), "{got}");
    assert!(leftovers(dir.path()).is_empty());
}

// ---- 7. A closed stderr ----

#[test]
fn a_closed_stderr_does_not_turn_an_error_into_a_panic() {
    let runs: [&[&str]; 3] = [
        &["decode", "--fmt", "f16", "zz"],
        &["decode", "--no-such-flag"],
        &[
            "convert",
            "--from",
            "f32",
            "--to",
            "f16",
            "missing.f32",
            "-o",
            "x",
        ],
    ];
    for args in runs {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let status = StdCommand::new(bin_path())
            .args(args)
            .stdout(Stdio::null())
            .stderr(writer)
            .status()
            .unwrap();
        assert_eq!(status.code(), Some(2), "{args:?}");
    }
}

#[test]
fn a_reader_that_goes_away_still_ends_the_run_quietly() {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = StdCommand::new(bin_path())
        .args(["encode", "--fmt", "f16", "1", "2", "3"])
        .stdout(writer)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(out.stderr.is_empty(), "{out:?}");
}

// ---- 8. Few threads allowed ----

/// Runs `args` with no new thread or process allowed (`RLIMIT_NPROC` of 1 for an ordinary
/// user, who has one process already: the run itself), in the user's folder.
fn without_threads(user: &Ordinary, args: &[&str]) -> Output {
    let mut all: Vec<&std::ffi::OsStr> = vec![
        "prlimit".as_ref(),
        "--nproc=1".as_ref(),
        user.bin.as_os_str(),
    ];
    all.extend(args.iter().map(|a| std::ffi::OsStr::new(*a)));
    // As root, `setpriv` first, then the limit for the ordinary user it becomes.
    let mut c = user.command(&all);
    c.current_dir(user.path());
    c.output().unwrap()
}

#[test]
fn with_no_thread_allowed_every_command_runs_on_one_thread() {
    let Some(user) = Ordinary::new() else {
        return;
    };
    let dir = user.path();
    let input = write_input(dir);
    give_to_ordinary_user(&input);
    sqrt_buffers(dir);
    let out = without_threads(
        &user,
        &[
            "convert", "--from", "f32", "--to", "f16", "in.f32", "-o", "out.f16",
        ],
    );
    assert!(out.status.success(), "{out:?}");
    assert_eq!(std::fs::read(dir.join("out.f16")).unwrap(), F16_OF_1_2_3_4);
    // Stdout, through the streaming path.
    let out = without_threads(
        &user,
        &[
            "convert", "--from", "f32", "--to", "f16", "in.f32", "-o", "-",
        ],
    );
    assert_eq!(out.stdout, F16_OF_1_2_3_4, "{out:?}");
    let out = without_threads(
        &user,
        &[
            "op",
            "sqrt",
            "--operands",
            "x.f32",
            "--results",
            "r.f32",
            "--plain",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "sqrt f32 3 2 1 0 4194304\ntotal 3 1\n"
    );
    let out = without_threads(&user, &["op", "add", "1", "2", "--fmt", "f32", "--plain"]);
    assert!(out.status.success(), "{out:?}");
    assert!(leftovers(dir).is_empty());
}

#[test]
fn with_no_thread_allowed_an_exhaustive_probe_judges_inline() {
    let Some(user) = Ordinary::new() else {
        return;
    };
    let args = [
        "env",
        "D3DFLOAT_TEST_FAKE_DEVICE=ieee",
        user.bin.to_str().unwrap(),
        "probe",
        "--exhaustive",
        "--ops",
        "f16:add",
        "--first",
        "3000000",
        "--plain",
    ];
    let mut all: Vec<&std::ffi::OsStr> = vec!["prlimit".as_ref(), "--nproc=1".as_ref()];
    all.extend(args.iter().map(|a| std::ffi::OsStr::new(*a)));
    let out = user
        .command(&all)
        .current_dir(user.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("3000000"), "{text}");
}

// ---- 14. RAYON_NUM_THREADS past the cores ----

#[test]
fn a_huge_rayon_num_threads_is_capped_and_finishes_promptly() {
    let dir = TempDir::new().unwrap();
    let values: Vec<f32> = (0..256).map(|i| i as f32).collect();
    let input = dir.path().join("in.f32");
    std::fs::write(&input, f32_bytes(&values)).unwrap();
    let out = d3dfloat()
        .env("RAYON_NUM_THREADS", "100000")
        .args(["convert", "--from", "f32", "--to", "f16", "-o", "-"])
        .arg(&input)
        .timeout(Duration::from_secs(30))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let want: Vec<u8> = values
        .iter()
        .flat_map(|&v| half::f16::from_f32(v).to_bits().to_le_bytes())
        .collect();
    assert_eq!(out.stdout, want);
}

// ---- 11. The output is the input pipe ----

#[test]
fn an_output_that_is_the_input_pipe_is_refused() {
    let mut child = StdCommand::new(bin_path())
        .args([
            "convert",
            "--from",
            "f32",
            "--to",
            "f16",
            "-",
            "-o",
            "/dev/stdin",
        ])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let _ = stdin.write_all(&f32_bytes(&[1.0; 64]));
    let started = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if started.elapsed() > Duration::from_secs(20) {
            child.kill().unwrap();
            panic!("deadlocked on its own pipe");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    drop(stdin);
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(status.code(), Some(2), "{err}");
    assert!(
        err.contains("pipe") && err.contains("input file is output file"),
        "{err}"
    );
}

// ---- 15. Signals and file size limits ----

/// Starts `convert - -o out.f16` (behind the program and arguments of `prefix`, when
/// given) with stdin open, and waits for its temporary file.
fn convert_in_flight(
    dir: &Path,
    prefix: &[&str],
) -> (std::process::Child, std::process::ChildStdin) {
    let bin = bin_path();
    let mut program: Vec<&std::ffi::OsStr> = prefix.iter().map(|a| a.as_ref()).collect();
    program.push(bin.as_os_str());
    let mut child = StdCommand::new(program[0])
        .args(&program[1..])
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
        .arg(dir.join("out.f16"))
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(&f32_bytes(&[1.0; 4096])).unwrap();
    let started = Instant::now();
    while leftovers(dir).is_empty() {
        assert!(started.elapsed() < Duration::from_secs(20), "no .part file");
        std::thread::sleep(Duration::from_millis(5));
    }
    (child, stdin)
}

#[test]
fn quit_usr1_usr2_and_alrm_remove_the_temporary_file_and_exit_128_plus_signo() {
    for (name, number) in [("QUIT", 3), ("USR1", 10), ("USR2", 12), ("ALRM", 14)] {
        let dir = TempDir::new().unwrap();
        let (mut child, stdin) = convert_in_flight(dir.path(), &[]);
        let killed = StdCommand::new("kill")
            .args([format!("-{name}"), child.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        let status = child.wait().unwrap();
        drop(stdin);
        assert_eq!(status.code(), Some(128 + number), "SIG{name}: {status:?}");
        assert!(leftovers(dir.path()).is_empty(), "SIG{name} left a .part");
        assert!(
            !dir.path().join("out.f16").exists(),
            "SIG{name} left an output"
        );
    }
}

#[test]
fn a_file_size_limit_is_a_clean_error_that_leaves_nothing() {
    let dir = TempDir::new().unwrap();
    // 8 KiB allowed; the output will be 64 KiB.
    let (mut child, mut stdin) = convert_in_flight(dir.path(), &["prlimit", "--fsize=8192"]);
    stdin.write_all(&f32_bytes(&[1.0; 28 * 1024])).unwrap();
    drop(stdin);
    let status = child.wait().unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(status.code(), Some(2), "{err}");
    assert!(
        err.contains("File too large") && err.contains("out.f16"),
        "{err}"
    );
    assert!(!err.contains(".part"), "{err}");
    assert!(leftovers(dir.path()).is_empty());
}

/// SIGKILL cannot be caught: the run leaves its temporary file, but holding at most one
/// reservation step (64 MiB) past its data, not the whole output's size.
#[test]
fn a_killed_run_leaves_a_small_findable_temporary_file() {
    let dir = TempDir::new().unwrap();
    let input = dir.path().join("big.f32");
    // 1 GiB of zeros, holding no disk: a 512 MiB output.
    File::create(&input).unwrap().set_len(1 << 30).unwrap();
    let mut child = StdCommand::new(bin_path())
        .args(["convert", "--from", "f32", "--to", "f16", "--no-progress"])
        .arg(&input)
        .arg("-o")
        .arg(dir.path().join("out.f16"))
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while leftovers(dir.path()).is_empty() {
        assert!(started.elapsed() < Duration::from_secs(20), "no .part file");
        if let Some(status) = child.try_wait().unwrap() {
            // A disk with less than 512 MiB free refuses the output at once.
            eprintln!("note: the run ended ({status}) before it could be killed: skipped");
            return;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    child.kill().unwrap();
    let status = child.wait().unwrap();
    let left = leftovers(dir.path());
    if status.code().is_some() {
        eprintln!("note: the run ended ({status}) before it was killed: skipped");
        return;
    }
    assert_eq!(left.len(), 1, "{left:?}");
    assert!(
        left[0].starts_with(".d3dfloat-") && left[0].ends_with(".part"),
        "{left:?}"
    );
    let m = std::fs::metadata(dir.path().join(&left[0])).unwrap();
    let held = m.blocks() * 512;
    assert!(
        held <= m.len() + (64 << 20) + (1 << 20),
        "{held} bytes held for {} written",
        m.len()
    );
}

// ---- 20. File names on one line ----

#[test]
fn a_newline_in_an_output_name_stays_on_one_summary_line() {
    let dir = TempDir::new().unwrap();
    let input = write_input(dir.path());
    let out = d3dfloat()
        .current_dir(dir.path())
        .args(["convert", "--from", "f32", "--to", "f16", "--plain"])
        .arg(&input)
        .args(["-o", "two\nlines.f16"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err:?}");
    assert!(err.contains("output='two\\nlines.f16'"), "{err}");
    assert_eq!(
        std::fs::read(dir.path().join("two\nlines.f16")).unwrap(),
        F16_OF_1_2_3_4
    );
}

#[test]
fn a_long_output_name_in_an_error_is_cut_with_balanced_quotes() {
    let dir = TempDir::new().unwrap();
    let input = write_input(dir.path());
    for name in [
        format!("missing/{}\n.f16", "x".repeat(300)),
        format!("missing/{}.f16", "y".repeat(300)),
        format!("missing/{}", "a b ".repeat(100)),
    ] {
        let out = d3dfloat()
            .current_dir(dir.path())
            .args(["convert", "--from", "f32", "--to", "f16"])
            .arg(&input)
            .args(["-o", &name])
            .output()
            .unwrap();
        let err = one_error_line(&out);
        let quotes = err.matches('\'').count() - err.matches("\\'").count();
        assert_eq!(quotes % 2, 0, "unbalanced quotes: {err}");
        assert!(err.contains("bytes in all"), "{err}");
        assert!(err.len() < 400, "{err}");
    }
}

// ---- Every kind of output path, for every command that writes one ----

/// What an output path is before the run.
#[derive(Clone, Copy, Debug)]
enum Target {
    New,
    Existing(u32),
    LinkToRegular,
    DanglingLink,
    LinkToNullDevice,
    FifoWithReader,
    NullDevice,
    /// `/dev/stderr` with stderr a file opened for appending.
    StderrAppending,
    Directory,
    InMissingFolder,
}

const TARGETS: [Target; 12] = [
    Target::New,
    Target::Existing(0o600),
    Target::Existing(0o644),
    Target::Existing(0o444),
    Target::LinkToRegular,
    Target::DanglingLink,
    Target::LinkToNullDevice,
    Target::FifoWithReader,
    Target::NullDevice,
    Target::StderrAppending,
    Target::Directory,
    Target::InMissingFolder,
];

/// The commands that write a named file.
#[derive(Clone, Copy, Debug)]
enum Writer {
    Convert,
    EmitLog,
    Violations,
}

fn mkfifo(path: &Path) {
    let ok = StdCommand::new("mkfifo")
        .arg(path)
        .status()
        .unwrap()
        .success();
    assert!(ok, "mkfifo");
}

fn read_fifo_in_background(path: &Path) -> std::thread::JoinHandle<Vec<u8>> {
    let path = path.to_path_buf();
    std::thread::spawn(move || {
        let mut got = Vec::new();
        File::open(&path).unwrap().read_to_end(&mut got).unwrap();
        got
    })
}

/// A null device of our own (root makes one in `dir`, so no test can replace the
/// machine's); an ordinary user cannot replace /dev/null, and uses it.
fn null_device(dir: &Path) -> PathBuf {
    if is_root() {
        let node = dir.join("null");
        let ok = StdCommand::new("mknod")
            .arg(&node)
            .args(["c", "1", "3"])
            .status()
            .unwrap()
            .success();
        assert!(ok, "mknod");
        std::fs::set_permissions(&node, std::fs::Permissions::from_mode(0o666)).unwrap();
        node
    } else {
        PathBuf::from("/dev/null")
    }
}

/// The command line of `writer` with its output at `target`, run in `dir`, whose inputs
/// [`prepare_inputs`] made.
fn writer_command(writer: Writer, dir: &Path, target: &Path) -> StdCommand {
    let mut c = StdCommand::new(bin_path());
    c.current_dir(dir);
    match writer {
        Writer::Convert => {
            // The summary on stdout, so stderr holds nothing but errors.
            c.args([
                "convert", "--from", "f32", "--to", "f16", "--json", "in.f32", "-o",
            ])
            .arg(target);
        }
        Writer::EmitLog => {
            c.env("D3DFLOAT_TEST_FAKE_DEVICE", "no-flush")
                .args([
                    "probe",
                    "--plain",
                    "--ops",
                    "f32:add,f32:mul",
                    "--count",
                    "100",
                ])
                .arg("--emit-log")
                .arg(target);
        }
        Writer::Violations => {
            c.args([
                "op",
                "sqrt",
                "--operands",
                "x.f32",
                "--results",
                "r.f32",
                "--plain",
            ])
            .arg("--violations")
            .arg(target);
        }
    }
    c
}

fn prepare_inputs(dir: &Path) {
    write_input(dir);
    sqrt_buffers(dir);
}

/// The exit code of a successful run and what it writes, from a run into a new file.
fn reference(writer: Writer) -> (i32, Vec<u8>) {
    let dir = TempDir::new().unwrap();
    prepare_inputs(dir.path());
    let out = writer_command(writer, dir.path(), Path::new("ref.out"))
        .output()
        .unwrap();
    let code = out.status.code().unwrap();
    assert!(code == 0 || code == 1, "{out:?}");
    (code, std::fs::read(dir.path().join("ref.out")).unwrap())
}

fn check_target(writer: Writer, target: Target, references: &[(i32, Vec<u8>); 3]) {
    let (ok_code, want) = &references[writer as usize];
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    prepare_inputs(d);
    let mut path = d.join("out");
    let mut stderr_file = None;
    let mut reader = None;
    let mut link = None;
    match target {
        Target::New => {}
        Target::Existing(mode) => {
            std::fs::write(&path, b"old contents").unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        }
        Target::LinkToRegular => {
            std::fs::create_dir(d.join("sub")).unwrap();
            std::fs::write(d.join("sub/real"), b"old").unwrap();
            std::os::unix::fs::symlink("sub/real", &path).unwrap();
            link = Some(d.join("sub/real"));
        }
        Target::DanglingLink => {
            std::os::unix::fs::symlink("created", &path).unwrap();
            link = Some(d.join("created"));
        }
        Target::LinkToNullDevice => {
            std::os::unix::fs::symlink(null_device(d), &path).unwrap();
        }
        Target::FifoWithReader => {
            mkfifo(&path);
            reader = Some(read_fifo_in_background(&path));
        }
        Target::NullDevice => path = null_device(d),
        Target::StderrAppending => {
            let log = d.join("stderr.log");
            std::fs::write(&log, b"before\n").unwrap();
            stderr_file = Some(log);
            path = PathBuf::from("/dev/stderr");
        }
        Target::Directory => std::fs::create_dir(&path).unwrap(),
        Target::InMissingFolder => path = d.join("missing/out"),
    }
    let mut cmd = writer_command(writer, d, &path);
    if let Some(log) = &stderr_file {
        cmd.stderr(OpenOptions::new().append(true).open(log).unwrap());
    }
    let out = cmd.output().unwrap();
    let code = out.status.code();
    let context = format!("{writer:?} into {target:?}: {out:?}");
    match target {
        Target::Directory | Target::InMissingFolder => {
            let err = one_error_line(&out);
            assert!(!err.contains(".part"), "{context}");
        }
        Target::Existing(0o444) if !is_root() => {
            let err = one_error_line(&out);
            assert!(err.contains("Permission denied"), "{context}");
            assert_eq!(std::fs::read(&path).unwrap(), b"old contents");
        }
        _ => assert_eq!(code, Some(*ok_code), "{context}"),
    }
    let meta = |p: &Path| std::fs::symlink_metadata(p).unwrap();
    match target {
        Target::New => {
            assert_eq!(std::fs::read(&path).unwrap(), *want, "{context}");
            assert!(meta(&path).is_file());
        }
        Target::Existing(mode) => {
            if mode != 0o444 || is_root() {
                assert_eq!(std::fs::read(&path).unwrap(), *want, "{context}");
            }
            assert_eq!(meta(&path).mode() & 0o7777, mode, "{context}");
        }
        Target::LinkToRegular | Target::DanglingLink => {
            assert!(meta(&path).is_symlink(), "{context}");
            assert_eq!(std::fs::read(link.unwrap()).unwrap(), *want, "{context}");
        }
        Target::LinkToNullDevice => {
            assert!(meta(&path).is_symlink(), "{context}");
            assert!(
                std::fs::metadata(&path)
                    .unwrap()
                    .file_type()
                    .is_char_device()
            );
        }
        Target::FifoWithReader => {
            assert_eq!(reader.unwrap().join().unwrap(), *want, "{context}");
            assert!(meta(&path).file_type().is_fifo(), "{context}");
        }
        Target::NullDevice => {
            assert!(meta(&path).file_type().is_char_device(), "{context}");
        }
        Target::StderrAppending => {
            let mut expected = b"before\n".to_vec();
            expected.extend_from_slice(want);
            let log = stderr_file.unwrap();
            assert_eq!(std::fs::read(&log).unwrap(), expected, "{context}");
        }
        Target::Directory => assert!(meta(&path).is_dir()),
        Target::InMissingFolder => assert!(!d.join("missing").exists()),
    }
    assert!(leftovers(d).is_empty(), "{context}: {:?}", leftovers(d));
}

fn references() -> &'static [(i32, Vec<u8>); 3] {
    static REFS: std::sync::OnceLock<[(i32, Vec<u8>); 3]> = std::sync::OnceLock::new();
    REFS.get_or_init(|| {
        [
            reference(Writer::Convert),
            reference(Writer::EmitLog),
            reference(Writer::Violations),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Any output path kind, any command: the exit code, no temporary file left, the
    /// target's kind and mode afterwards, and the content written.
    #[test]
    fn every_output_path_kind_is_handled_by_every_writer(
        target in prop::sample::select(TARGETS.to_vec()),
        writer in prop::sample::select(vec![Writer::Convert, Writer::EmitLog, Writer::Violations]),
    ) {
        check_target(writer, target, references());
    }
}

/// The property above samples; this walks every pair once, so none is left to chance.
#[test]
fn every_output_path_kind_and_writer_pair() {
    for writer in [Writer::Convert, Writer::EmitLog, Writer::Violations] {
        for target in TARGETS {
            check_target(writer, target, references());
        }
    }
}
