//! Regression tests for the third hardening round (issue 39, the command line's items):
//! no report or log written over what a run reads, no two outputs of one run on one file,
//! the partial page of an interrupted sweep, and errors that name the right thing. One
//! test per finding, named after what broke. Every file, FIFO and link is made here in a
//! private temporary folder.
#![cfg(target_os = "linux")]

use std::fs::File;
use std::io::Write;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::process::{Command as StdCommand, Output, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::Command;
use tempfile::TempDir;

fn d3dfloat() -> Command {
    let mut c = Command::cargo_bin("d3dfloat").unwrap();
    c.env("NO_COLOR", "1")
        .env_remove("D3DFLOAT_TEST_FAKE_DEVICE")
        .env_remove("D3DFLOAT_TEST_WRONG_SHADER");
    c
}

fn bin_path() -> PathBuf {
    assert_cmd::cargo::cargo_bin("d3dfloat")
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The stderr of a failed run: exactly one line, prefixed as every error is.
fn one_error_line(out: &Output) -> String {
    let err = String::from_utf8(out.stderr.clone()).unwrap();
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert_eq!(err.lines().count(), 1, "one line expected: {err:?}");
    assert!(err.starts_with("d3dfloat: error: "), "{err}");
    err.trim_end().to_string()
}

/// Temporary outputs left behind.
fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".part") || n.starts_with(".tmp"))
        .collect()
}

fn mkfifo(path: &Path) {
    let ok = StdCommand::new("mkfifo")
        .arg(path)
        .status()
        .unwrap()
        .success();
    assert!(ok, "mkfifo");
}

/// `op add` buffers: x + y = r on every line.
fn add_buffers(dir: &Path) {
    std::fs::write(dir.join("x.f32"), f32_bytes(&[1.0, 2.0, 3.0, 4.0])).unwrap();
    std::fs::write(dir.join("y.f32"), f32_bytes(&[1.0, 1.0, 1.0, 1.0])).unwrap();
    std::fs::write(dir.join("r.f32"), f32_bytes(&[2.0, 3.0, 4.0, 5.0])).unwrap();
    std::fs::copy(dir.join("x.f32"), dir.join("x2.f32")).unwrap();
}

/// Every file of `dir` and its bytes (links as links), to tell that nothing changed.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            let t = e.file_type().unwrap();
            let bytes = if t.is_symlink() {
                std::fs::read_link(e.path())
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
                    .into_bytes()
            } else if t.is_file() {
                std::fs::read(e.path()).unwrap()
            } else {
                b"(special)".to_vec()
            };
            (name, bytes)
        })
        .collect();
    files.sort();
    files
}

/// `op add` over the buffers of [`add_buffers`].
const OP_ADD: [&str; 6] = [
    "op",
    "add",
    "--operands",
    "x.f32,y.f32",
    "--results",
    "r.f32",
];

fn op_add(dir: &Path) -> Command {
    let mut c = d3dfloat();
    c.current_dir(dir).args(OP_ADD);
    c
}

// ---- 6. --report is checked against the inputs, as every output is ----

#[test]
fn a_report_over_an_operand_or_the_results_is_refused_and_they_are_kept() {
    let dir = TempDir::new().unwrap();
    add_buffers(dir.path());
    std::os::unix::fs::symlink("x.f32", dir.path().join("link-to-x")).unwrap();
    let before = snapshot(dir.path());
    for target in ["x.f32", "r.f32", "y.f32", "link-to-x", "./x.f32"] {
        let out = op_add(dir.path())
            .args(["--report", target])
            .output()
            .unwrap();
        let err = one_error_line(&out);
        assert!(err.contains("input file is output file"), "{target}: {err}");
        assert!(err.contains("--report"), "{target}: {err}");
        assert_eq!(snapshot(dir.path()), before, "--report {target}");
    }
    let out = d3dfloat()
        .current_dir(dir.path())
        .args([
            "ulp-diff", "--files", "x.f32", "x2.f32", "--report", "x.f32",
        ])
        .output()
        .unwrap();
    assert!(one_error_line(&out).contains("input file is output file"));
    let out = d3dfloat()
        .current_dir(dir.path())
        .args([
            "ulp-diff",
            "--files",
            "x.f32",
            "x2.f32",
            "--report",
            "link-to-x",
        ])
        .output()
        .unwrap();
    assert!(one_error_line(&out).contains("input file is output file"));
    assert_eq!(snapshot(dir.path()), before);
    assert!(leftovers(dir.path()).is_empty());
}

/// Runs `args` in `dir` with stdout appending to `dir/file`, as `>> file` does.
fn appending_to(dir: &Path, file: &str, args: &[&str], stdin: Option<&str>) -> Output {
    let out = std::fs::OpenOptions::new()
        .append(true)
        .open(dir.join(file))
        .unwrap();
    let stdin = match stdin {
        Some(f) => Stdio::from(File::open(dir.join(f)).unwrap()),
        None => Stdio::null(),
    };
    StdCommand::new(bin_path())
        .current_dir(dir)
        .args(args)
        .stdin(stdin)
        .stdout(out)
        .output()
        .unwrap()
}

#[test]
fn stdout_or_a_report_through_dev_stdout_appending_to_an_operand_is_refused() {
    let dir = TempDir::new().unwrap();
    add_buffers(dir.path());
    let before = snapshot(dir.path());
    let op = OP_ADD;
    let with_report = [&op[..], &["--report", "/dev/stdout"]].concat();
    let ulp = ["ulp-diff", "--files", "x.f32", "x2.f32"];
    let ulp_report = [&ulp[..], &["--report", "/dev/stdout"]].concat();
    for args in [&op[..], &with_report, &ulp, &ulp_report] {
        for file in ["x.f32", "r.f32", "x2.f32"] {
            if args[0] == "op" && file == "x2.f32" || args[0] == "ulp-diff" && file == "r.f32" {
                continue;
            }
            let err = one_error_line(&appending_to(dir.path(), file, args, None));
            assert!(
                err.contains("input file is output file"),
                "{args:?} >> {file}: {err}"
            );
            assert_eq!(snapshot(dir.path()), before, "{args:?} >> {file}");
        }
    }
    // Stdin read line by line and stdout the same file: the run would read its own
    // answers back without end (as `cat f >> f`).
    std::fs::write(dir.path().join("patterns.txt"), "0x3c00\n").unwrap();
    std::fs::write(dir.path().join("values.txt"), "1.5\n").unwrap();
    std::fs::write(dir.path().join("lines.txt"), "add 1 2\n").unwrap();
    std::fs::write(dir.path().join("pairs.txt"), "1 2\n").unwrap();
    let before = snapshot(dir.path());
    for (args, file) in [
        (&["decode", "--fmt", "f16"][..], "patterns.txt"),
        (&["encode", "--fmt", "f16"][..], "values.txt"),
        (&["op"][..], "lines.txt"),
        (&["ulp-diff"][..], "pairs.txt"),
    ] {
        let err = one_error_line(&appending_to(dir.path(), file, args, Some(file)));
        assert!(err.contains("input file is output file"), "{args:?}: {err}");
    }
    assert_eq!(snapshot(dir.path()), before);
}

// ---- 7. A report onto the FIFO an operand comes from ----

#[test]
fn a_report_onto_the_operand_fifo_is_refused_not_a_hang() {
    let dir = TempDir::new().unwrap();
    add_buffers(dir.path());
    let fifo = dir.path().join("fifo1");
    mkfifo(&fifo);
    // The operand's writer: the run opens the FIFO to read it first.
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut f = std::fs::OpenOptions::new().write(true).open(fifo).unwrap();
            let _ = f.write_all(&f32_bytes(&[4.0, 9.0, 16.0, 25.0]));
        })
    };
    let mut child = StdCommand::new(bin_path())
        .current_dir(dir.path())
        .args(["op", "sqrt", "--operands", "fifo1", "--results", "r.f32"])
        .args(["--report", "fifo1"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(20) {
            child.kill().unwrap();
            let _ = child.wait();
            // Let a writer still waiting to open go (O_NONBLOCK: a reader that never waits).
            use std::os::unix::fs::OpenOptionsExt;
            let _ = std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(0o4000)
                .open(&fifo);
            panic!("op waited on the FIFO it was to write its report to");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    let err = one_error_line(&out);
    assert!(err.contains("--report fifo1"), "{err}");
    assert!(err.contains("input pipe fifo1"), "{err}");
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
}

// ---- 8. Two outputs of one run on one file ----

fn probe_fake(dir: &Path, ops: &str) -> Command {
    let mut c = d3dfloat();
    c.current_dir(dir)
        .env("D3DFLOAT_TEST_FAKE_DEVICE", "ieee")
        .args(["probe", "--plain", "--ops", ops, "--count", "64"]);
    c
}

#[test]
fn two_outputs_on_one_file_are_refused_before_anything_is_written() {
    let dir = TempDir::new().unwrap();
    add_buffers(dir.path());
    std::fs::write(dir.path().join("old.out"), "kept").unwrap();
    std::os::unix::fs::symlink("old.out", dir.path().join("link.out")).unwrap();
    std::os::unix::fs::symlink("new.out", dir.path().join("dangling.out")).unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let before = snapshot(dir.path());
    for (violations, report) in [
        ("same.out", "same.out"),
        ("same.out", "./same.out"),
        ("same.out", "sub/../same.out"),
        ("old.out", "link.out"),
        ("dangling.out", "new.out"),
    ] {
        let out = op_add(dir.path())
            .args(["--violations", violations, "--report", report])
            .output()
            .unwrap();
        let err = one_error_line(&out);
        assert!(
            err.contains("the same file"),
            "{violations} {report}: {err}"
        );
        assert!(err.contains(&format!("--violations {violations}")), "{err}");
        assert!(err.contains(&format!("--report {report}")), "{err}");
        assert_eq!(snapshot(dir.path()), before, "{violations} {report}");
    }
    for (log, report, ops) in [
        ("s.log", "s.log", "f32:add"),
        ("t.log", "t.log.f16", "f16:add,f32:add"),
        ("link.out", "old.out", "f32:add"),
    ] {
        let out = probe_fake(dir.path(), ops)
            .args(["--emit-log", log, "--report", report])
            .output()
            .unwrap();
        let err = one_error_line(&out);
        assert!(err.contains("the same file"), "{log} {report}: {err}");
        assert_eq!(snapshot(dir.path()), before, "{log} {report}");
    }
    // A sweep's --violations file and its .f16 beside it, against the report.
    for (log, report, ops) in [
        ("v.log", "v.log", "f32:sqrt"),
        ("w.log", "w.log.f16", "f16:sqrt,f32:sqrt"),
    ] {
        let out = d3dfloat()
            .current_dir(dir.path())
            .env("D3DFLOAT_TEST_FAKE_DEVICE", "ieee")
            .args([
                "probe",
                "--plain",
                "--ops",
                ops,
                "--exhaustive",
                "--first",
                "64",
            ])
            .args(["--violations", log, "--report", report])
            .output()
            .unwrap();
        let err = one_error_line(&out);
        assert!(err.contains("the same file"), "{log} {report}: {err}");
        assert!(err.contains("--violations"), "{err}");
        assert_eq!(snapshot(dir.path()), before, "{log} {report}");
    }
    // Without an f16 instruction there is no t.log.f16: the two are apart.
    probe_fake(dir.path(), "f32:add")
        .args(["--emit-log", "t.log", "--report", "t.log.f16"])
        .assert()
        .success();
    assert!(
        std::fs::read_to_string(dir.path().join("t.log.f16"))
            .unwrap()
            .contains("<html")
    );
    // Two outputs to a character device are fine.
    op_add(dir.path())
        .args(["--violations", "/dev/null", "--report", "/dev/null"])
        .assert()
        .success();
    assert!(leftovers(dir.path()).is_empty());
}

// ---- 9. Ctrl-C in an exhaustive sweep with --report ----

#[test]
fn ctrl_c_in_a_sweep_with_a_report_gives_the_partial_report_and_page() {
    let dir = TempDir::new().unwrap();
    let child = StdCommand::new(bin_path())
        .current_dir(dir.path())
        .env("D3DFLOAT_TEST_FAKE_DEVICE", "ieee")
        .args(["probe", "--exhaustive", "--ops", "round_ne", "--json"])
        .args(["--report", "p.html"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(3));
    let killed = StdCommand::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    let text = String::from_utf8(out.stdout).unwrap();
    let last: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(last["partial"], true, "{text}");
    let page = std::fs::read_to_string(dir.path().join("p.html")).unwrap();
    assert!(page.contains("Interrupted"), "the page says it is partial");
    assert!(page.trim_end().ends_with("</html>"));
    assert!(leftovers(dir.path()).is_empty());
}

// ---- 10. ulp-diff errors that name the sizes, and empty buffers with --width ----

#[test]
fn raw_buffers_of_one_width_and_two_sizes_are_named_by_their_sizes() {
    let dir = TempDir::new().unwrap();
    std::fs::write(dir.path().join("a.raw"), vec![0u8; 1536]).unwrap();
    std::fs::write(dir.path().join("half.raw"), vec![0u8; 768]).unwrap();
    let out = d3dfloat()
        .current_dir(dir.path())
        .args(["ulp-diff", "--files", "a.raw", "half.raw", "--width", "12"])
        .args(["--report", "q.html"])
        .output()
        .unwrap();
    let err = one_error_line(&out);
    assert!(
        err.contains("1536 bytes") && err.contains("768 bytes"),
        "{err}"
    );
}

#[test]
fn empty_buffers_with_a_width_compare_as_without_one() {
    let dir = TempDir::new().unwrap();
    std::fs::write(dir.path().join("e1.raw"), b"").unwrap();
    std::fs::write(dir.path().join("e2.raw"), b"").unwrap();
    let summary = |extra: &[&str]| -> serde_json::Value {
        let out = d3dfloat()
            .current_dir(dir.path())
            .args(["ulp-diff", "--json", "--files", "e1.raw", "e2.raw"])
            .args(extra)
            .output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{extra:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_str(text.lines().last().unwrap()).unwrap()
    };
    let plain = summary(&[]);
    let wide = summary(&["--width", "4", "--report", "e.html"]);
    assert_eq!(plain["count"], 0);
    assert_eq!(wide["count"], plain["count"]);
    assert_eq!(wide["elements"], plain["elements"]);
    let page = std::fs::read_to_string(dir.path().join("e.html")).unwrap();
    assert!(page.contains("</html>"));
}

// ---- 11. Names in JSON as they are; control bytes escaped on the page ----

#[test]
fn json_names_operand_files_as_they_are_and_the_page_shows_no_control_byte() {
    let dir = TempDir::new().unwrap();
    add_buffers(dir.path());
    std::fs::rename(dir.path().join("x.f32"), dir.path().join("a b.f32")).unwrap();
    let odd = "c\u{1}\u{1b}[31md.f32";
    std::fs::rename(dir.path().join("y.f32"), dir.path().join(odd)).unwrap();
    let out = d3dfloat()
        .current_dir(dir.path())
        .args([
            "op",
            "add",
            "--json",
            "--results",
            "r.f32",
            "--report",
            "p.html",
        ])
        .arg("--operands")
        .arg(format!("a b.f32,{odd}"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    let head: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(head["operands"], serde_json::json!(["a b.f32", odd]));
    assert_eq!(head["results"], "r.f32");
    let page = std::fs::read(dir.path().join("p.html")).unwrap();
    for byte in [0x01u8, 0x1b] {
        assert!(!page.contains(&byte), "raw byte {byte:#04x} on the page");
    }
    let page = String::from_utf8(page).unwrap();
    assert!(
        page.contains(r"\x01\x1b[31m"),
        "the command row escapes them"
    );
    // The human output shows the names on one line each, escaped.
    let out = d3dfloat()
        .current_dir(dir.path())
        .args(["op", "add", "--results", "r.f32"])
        .arg("--operands")
        .arg(format!("a b.f32,{odd}"))
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains('\u{1b}'), "{text:?}");
    assert!(text.contains("'a b.f32'"), "{text}");
}

// ---- 12. An operand that shrinks during the run is named ----

#[test]
fn an_operand_that_shrinks_mid_run_is_the_file_the_error_names() {
    // Two blocks of lines (op reads 2^20 lines a block); the results come through a FIFO
    // this test feeds, so the operand is cut while the run waits for the first block's
    // results, before it reads the second block.
    const LINES: usize = 2 << 20;
    let dir = TempDir::new().unwrap();
    let ones = f32_bytes(&vec![1.0f32; LINES]);
    std::fs::write(dir.path().join("x.f32"), &ones).unwrap();
    mkfifo(&dir.path().join("r.fifo"));
    let child = StdCommand::new(bin_path())
        .current_dir(dir.path())
        .args(["op", "sqrt", "--operands", "x.f32", "--results", "r.fifo"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut results = std::fs::OpenOptions::new()
        .write(true)
        .open(dir.path().join("r.fifo"))
        .unwrap();
    let block = ones.len() / 2;
    results.write_all(&ones[..block - 1]).unwrap();
    let x = std::fs::OpenOptions::new()
        .write(true)
        .open(dir.path().join("x.f32"))
        .unwrap();
    x.set_len((block + block / 2) as u64).unwrap();
    // The rest of the results, as many as there were operands: the run may stop reading
    // once it has found the change.
    let _ = results.write_all(&ones[block - 1..]);
    drop(results);
    let out = child.wait_with_output().unwrap();
    let err = one_error_line(&out);
    assert!(err.contains("x.f32 changed while it was read"), "{err}");
    assert!(
        err.contains(&format!("{} bytes when it was opened", ones.len())),
        "{err}"
    );
    assert!(!err.contains("r.fifo"), "the results did not change: {err}");
}

// ---- 13. --violations stays at a few MiB when every line violates ----

/// The peak resident size of a run, in bytes (VmHWM, read until the process ends).
fn peak_rss(mut child: std::process::Child) -> (u64, Output) {
    let status = format!("/proc/{}/status", child.id());
    let mut peak = 0u64;
    while child.try_wait().unwrap().is_none() {
        if let Ok(text) = std::fs::read_to_string(&status)
            && let Some(line) = text.lines().find(|l| l.starts_with("VmHWM:"))
        {
            let kib: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
            peak = peak.max(kib * 1024);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    (peak, child.wait_with_output().unwrap())
}

#[test]
fn violations_of_every_line_keep_memory_at_a_few_mib() {
    // 2^19 lines, every result wrong (sqrt of 4 given as 3): every line is listed. The
    // list once held a whole block's violations, about 100 bytes each (103 MiB resident
    // here, against 18 MiB without --violations); judged 2^14 lines a thread at a time,
    // it holds 3 MiB on these 2 threads.
    const LINES: usize = 1 << 19;
    let dir = TempDir::new().unwrap();
    std::fs::write(dir.path().join("x.f32"), f32_bytes(&vec![4.0; LINES])).unwrap();
    std::fs::write(dir.path().join("r.f32"), f32_bytes(&vec![3.0; LINES])).unwrap();
    let child = StdCommand::new(bin_path())
        .current_dir(dir.path())
        .env("RAYON_NUM_THREADS", "2")
        .args([
            "op",
            "sqrt",
            "--operands",
            "x.f32",
            "--results",
            "r.f32",
            "--plain",
        ])
        .args(["--violations", "bad.txt"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (peak, out) = peak_rss(child);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let log = std::fs::read_to_string(dir.path().join("bad.txt")).unwrap();
    assert_eq!(log.lines().count(), LINES);
    assert!(peak < 48 << 20, "with --violations {} MiB", peak >> 20);
}
