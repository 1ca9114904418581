//! `d3dfloat op` from the outside: exit codes, the script contract (plain, JSON, CSV),
//! batches on stdin and error messages.

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

fn op() -> Command {
    let mut c = Command::cargo_bin("d3dfloat").unwrap();
    c.arg("op").env("NO_COLOR", "1");
    c
}

#[test]
fn plain_gives_the_rounded_bits_and_the_allowed_ranges() {
    op().args(["add", "1", "0x33800000", "--plain"])
        .assert()
        .success()
        .stdout("0x3f800000 0x3f800000-0x3f800001\n");
    op().args(["mul", "inf", "0", "--plain"])
        .assert()
        .success()
        .stdout("0x7fc00000 nan\n");
    op().args(["lt", "nan", "1", "--plain"])
        .assert()
        .success()
        .stdout("false\n");
    op().args(["ne", "nan", "1", "--plain"])
        .assert()
        .success()
        .stdout("true\n");
    op().args(["--fmt", "f16", "add", "1", "0x1400", "--plain"])
        .assert()
        .success()
        .stdout("0x3c01 0x3c01\n");
}

#[test]
fn check_exits_by_verdict() {
    op().args([
        "mad",
        "0x3f800001",
        "0x3f800001",
        "-1",
        "--check",
        "0x34800001",
        "--plain",
    ])
    .assert()
    .code(0)
    .stdout("conforms\n");
    op().args(["add", "1", "2", "--check", "0x40400001", "--plain"])
        .assert()
        .code(1)
        .stdout("violates\n");
    // A value works as well as bits, and negative values may come anywhere.
    op().args(["mul", "-2", "0.5", "--check", "-1", "--plain"])
        .assert()
        .code(0);
    op().args(["add", "1", "2", "--check", "0x40400002"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("violates, 2 ULPs outside"))
        .stdout(predicate::str::contains("breaks §3.1.3.1"));
}

#[test]
fn json_keeps_the_contract() {
    let out = op()
        .args(["div", "1", "3", "--json", "--check", "0x3eaaaaaa"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["schema"], 1);
    assert_eq!(v["op"], "div");
    assert_eq!(v["format"], "f32");
    assert_eq!(v["rules"], "d3d11");
    assert_eq!(v["args"], serde_json::json!(["0x3f800000", "0x40400000"]));
    assert_eq!(v["preferred"], "0x3eaaaaab");
    assert_eq!(
        v["allowed"],
        serde_json::json!([["0x3eaaaaaa", "0x3eaaaaab"]])
    );
    assert_eq!(v["nan_allowed"], false);
    assert_eq!(v["result"], "0x3eaaaaaa");
    assert_eq!(v["conforms"], true);
    assert!(v["rules_applied"][0].as_str().unwrap().starts_with('§'));
    let out = op()
        .args(["eq", "-0", "0", "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["preferred"], true);
}

#[test]
fn csv_has_a_header_and_a_row_per_line() {
    op().args(["--csv"])
        .write_stdin("add 1 2 = 3\nmul 3 0.1 = 0x3e99999b\n")
        .assert()
        .code(1)
        .stdout(predicate::str::starts_with(
            "op,format,rules,args,preferred,allowed,nan_allowed,count,exact,result,conforms,miss_ulps\n\
             add,f32,d3d11,0x3f800000 0x40000000,0x40400000,0x40400000,false,1,3,0x40400000,true,0\n",
        ))
        .stderr("d3dfloat: 1 conform, 1 do not\n");
}

#[test]
fn batch_reads_lines_and_ends_with_a_summary() {
    op().write_stdin(
        "# GPU log\nmul 3 0.1 = 0x3e99999a\n\nsqrt 2 = 0x3fb504f5\ndp3 1,2,3 4,5,6 = 32\n",
    )
    .assert()
    .code(1)
    .stdout(predicate::str::contains("mul 3 0.1 = 0x3e99999a  conforms"))
    .stdout(predicate::str::contains(
        "sqrt 2 = 0x3fb504f5  violates, 1 ULP outside",
    ))
    .stdout(predicate::str::ends_with("2 conform, 1 do not\n"));
    op().args(["--plain"])
        .write_stdin("add 1 2 = 3\nsub 1 2 = -1\n")
        .assert()
        .code(0)
        .stdout("conforms\nconforms\n")
        .stderr("d3dfloat: 2 conform, 0 do not\n");
}

#[test]
fn bad_inputs_are_one_line_errors_with_exit_2() {
    op().args(["add", "1", "zz"])
        .assert()
        .code(2)
        .stderr(predicate::str::starts_with(
            "d3dfloat: error: argument 3: 'zz': ",
        ));
    op().args(["frob", "1"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown instruction 'frob'"));
    op().args(["add", "1"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("add takes 2 operands, got 1"));
    op().args(["--fmt", "f64", "sqrt", "2"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("sqrt has no f64 form"));
    op().args(["--plain"])
        .write_stdin("add 1 2 = 3\nadd 1 = 3\n")
        .assert()
        .code(2)
        .stdout("conforms\n")
        .stderr(predicate::str::starts_with(
            "d3dfloat: error: line 2: 'add 1 = 3': ",
        ));
}

#[test]
fn double_names_imply_f64() {
    op().args(["ddiv", "1", "3", "--plain"])
        .assert()
        .success()
        .stdout("0x3fd5555555555555 0x3fd5555555555555\n");
    op().args(["--fmt", "f64", "div", "1", "3", "--plain"])
        .assert()
        .success()
        .stdout("0x3fd5555555555555 0x3fd5555555555555\n");
}

#[test]
fn d3d10_allows_truncation() {
    op().args(["--rules", "d3d10", "add", "1", "0x33000000", "--plain"])
        .assert()
        .success()
        .stdout("0x3f800000 0x3f800000-0x3f800001\n");
    op().args(["add", "1", "0x33000000", "--plain"])
        .assert()
        .success()
        .stdout("0x3f800000 0x3f800000\n");
}

#[test]
fn closed_pipe_is_quiet() {
    // `| head -1`: the reader goes away; the run still ends with status 0.
    let input = "add 1 2\n".repeat(100_000);
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("d3dfloat"))
        .args(["op", "--plain"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        let _ = stdin.write_all(input.as_bytes());
    });
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 10];
    use std::io::Read;
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(
        out.status.success(),
        "{:?}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stderr.is_empty());
}

/// Where each style writes a checked batch's summary: the human view on stdout after the
/// lines; the script styles one line per input on stdout and the tally on stderr (JSON
/// also ends stdout with a summary object).
#[test]
fn each_style_puts_the_batch_summary_where_scripts_expect_it() {
    let batch = "add 1 2 = 3\nmul 3 0.1 = 0x3e99999b\n";
    let run = |style: &[&str]| {
        let out = op()
            .args(style)
            .write_stdin(batch)
            .assert()
            .code(1)
            .get_output()
            .clone();
        (
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let (stdout, stderr) = run(&[]);
    assert!(stdout.ends_with("1 conform, 1 do not\n"), "{stdout}");
    assert_eq!(stderr, "");
    let (stdout, stderr) = run(&["--plain"]);
    assert_eq!(stdout, "conforms\nviolates\n");
    assert_eq!(stderr, "d3dfloat: 1 conform, 1 do not\n");
    let (stdout, stderr) = run(&["--json"]);
    let last: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(last["summary"]["violate"], 1);
    assert_eq!(stdout.lines().count(), 3);
    assert_eq!(stderr, "d3dfloat: 1 conform, 1 do not\n");
}
