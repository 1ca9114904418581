//! The scriptable contract of the command line (docs/output-contract.md):
//! JSON keys and values parsed with serde_json, CSV header and rows, the one-line errors
//! with exit code 2, streaming and broken pipes, colour only where asked, and negative
//! values anywhere on the command line.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command as StdCommand, Stdio};

use assert_cmd::Command;
use serde_json::{Value, json};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_d3dfloat"));
    // The colour decision reads these; keep the caller's environment out of it.
    c.env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("D3DFLOAT_TEST_TERM")
        .env("TERM", "xterm");
    c
}

fn stdout_of(args: &[&str]) -> String {
    let a = bin().args(args).assert().success();
    let out = a.get_output();
    assert!(out.stderr.is_empty(), "{args:?} wrote to stderr");
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn json_lines(args: &[&str]) -> Vec<Value> {
    stdout_of(args)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect()
}

/// Reads CSV the simple way (no field in these tests holds a comma or a quote), checking
/// every row has as many fields as the header.
fn csv(args: &[&str]) -> (Vec<String>, Vec<Vec<String>>) {
    let text = stdout_of(args);
    let mut lines = text.lines();
    let header: Vec<String> = lines.next().unwrap().split(',').map(String::from).collect();
    let rows: Vec<Vec<String>> = lines
        .map(|l| {
            let r: Vec<String> = l.split(',').map(String::from).collect();
            assert_eq!(r.len(), header.len(), "row {l}");
            r
        })
        .collect();
    (header, rows)
}

// ---------------------------------------------------------------- JSON

/// Every documented key is there with the expected value (keys may be added later without a
/// schema bump, so extra keys are allowed).
fn assert_keys(got: &Value, want: Value) {
    let want = want.as_object().unwrap();
    for (k, v) in want {
        assert_eq!(got.get(k), Some(v), "key {k} in {got}");
    }
}

/// f16 patterns with their fields worked out by hand from §3.1.5 (1 sign, 5 exponent
/// bits, bias 15, 10 fraction bits).
#[test]
fn json_decode_float_keys_and_values() {
    let v = json_lines(&[
        "decode", "--fmt", "f16", "--json", "0x3c00", "0x7c00", "0x7e00", "0x7c01", "0x8000",
        "0x0001", "0xfbff",
    ]);
    assert_eq!(v.len(), 7);
    // 0x3c00: exponent 15 -> 2^0, value 1; neighbours 0x3bff and 0x3c01; ulp 2^-10.
    assert_keys(
        &v[0],
        json!({"schema": 1, "format": "f16", "bits": "0x3c00", "sign": 0, "exponent": 15,
            "unbiased_exponent": 0, "fraction": 0, "class": "normal", "quiet": null,
            "value": "1", "shortest": "1", "hex_float": "0x1p+0", "previous": "0x3bff",
            "next": "0x3c01", "ulp": "0.0009765625"}),
    );
    // +INF: no unbiased exponent, no next, no ulp.
    assert_eq!(v[1]["class"], "infinity");
    assert_eq!(v[1]["unbiased_exponent"], Value::Null);
    assert_eq!(v[1]["next"], Value::Null);
    assert_eq!(v[1]["previous"], "0x7bff");
    assert_eq!(v[1]["ulp"], Value::Null);
    assert_eq!(v[1]["value"], "inf");
    // NaN: quiet bit is the top fraction bit (512 set in 0x7e00, clear in 0x7c01).
    assert_eq!(v[2]["class"], "nan");
    assert_eq!(v[2]["quiet"], true);
    assert_eq!(v[2]["fraction"], 512);
    assert_eq!(v[3]["quiet"], false);
    assert_eq!(v[3]["previous"], Value::Null);
    assert_eq!(v[3]["value"], "nan");
    // -0: sign 1, zero, unbiased exponent emin = -14, neighbours -2^-24 and +2^-24.
    assert_eq!(v[4]["sign"], 1);
    assert_eq!(v[4]["class"], "zero");
    assert_eq!(v[4]["unbiased_exponent"], -14);
    assert_eq!(v[4]["value"], "-0");
    assert_eq!(v[4]["previous"], "0x8001");
    assert_eq!(v[4]["next"], "0x0001");
    // Smallest subnormal 2^-24 = 0.000000059604644775390625.
    assert_eq!(v[5]["class"], "subnormal");
    assert_eq!(v[5]["value"], "0.000000059604644775390625");
    assert_eq!(v[5]["hex_float"], "0x0.004p-14");
    assert_eq!(v[5]["unbiased_exponent"], -14);
    // -65504: previous is -INF, ulp 2^5.
    assert_eq!(v[6]["value"], "-65504");
    assert_eq!(v[6]["previous"], "0xfc00");
    assert_eq!(v[6]["next"], "0xfbfe");
    assert_eq!(v[6]["ulp"], "32");
    for o in &v {
        assert_eq!(o["schema"], 1);
        assert_eq!(o["format"], "f16");
    }
}

#[test]
fn json_decode_other_formats() {
    // f11 has no sign and no quiet bit: quiet is null even for NaN.
    let v = json_lines(&["decode", "--fmt", "f11", "--json", "0x7c1", "0x3c0"]);
    assert_eq!(v[0]["class"], "nan");
    assert_eq!(v[0]["quiet"], Value::Null);
    assert_eq!(v[0]["sign"], 0);
    assert_eq!(v[1]["value"], "1");
    assert_eq!(v[1]["bits"], "0x3c0");
    // f32 1.0 and f64 0.1 (exact expansion of the nearest double).
    let v = json_lines(&["decode", "--fmt", "f32", "--json", "0x3f800000"]);
    assert_eq!(v[0]["exponent"], 127);
    assert_eq!(v[0]["bits"], "0x3f800000");
    let v = json_lines(&["decode", "--fmt", "f64", "--json", "0x3fb999999999999a"]);
    assert_eq!(
        v[0]["value"],
        "0.1000000000000000055511151231257827021181583404541015625"
    );
    assert_eq!(v[0]["shortest"], "0.1");
}

/// encode 0.1 into f16: nearest is 0x2e66 = 1638 * 2^-14 = 0.0999755859375; the error
/// 0.1 - 0.0999755859375 = 0.0000244140625 is 0.4 of the ulp 2^-14 and 0.000244140625 of
/// 0.1; rounding up (rtp) gives 0x2e67, rtz and rtn agree with rne.
#[test]
fn json_encode_keys_and_values() {
    let v = json_lines(&["encode", "--fmt", "f16", "--json", "0.1"]);
    assert_keys(
        &v[0],
        json!({"schema": 1, "format": "f16", "input": "0.1", "rounding": "rne",
            "saturate": false, "bits": "0x2e66", "exact": false, "value": "0.0999755859375",
            "shortest": "0.1", "abs_error": "0.0000244140625", "rel_error": 0.000244140625,
            "ulp_error": 0.4, "overflow_to_infinity": false, "saturated": false,
            "clamped_negative": false, "nan": false, "subnormal": false,
            "underflow_to_zero": false, "other_modes": {"rtp": "0x2e67"}}),
    );
    // 70000 toward zero: 65504 (saturated), error 4496 = 140.5 ulps of 32.
    let v = json_lines(&[
        "encode",
        "--fmt",
        "f16",
        "--rounding",
        "rtz",
        "--json",
        "70000",
        "1e-9",
        "1e-7",
        "inf",
        "nan",
    ]);
    assert_eq!(v[0]["bits"], "0x7bff");
    assert_eq!(v[0]["rounding"], "rtz");
    assert_eq!(v[0]["saturated"], true);
    assert_eq!(v[0]["abs_error"], "4496");
    assert_eq!(v[0]["ulp_error"], 140.5);
    assert_eq!(
        v[0]["other_modes"],
        json!({"rne": "0x7c00", "rtp": "0x7c00"})
    );
    // 1e-9 is below 2^-24: toward zero gives 0.
    assert_eq!(v[1]["underflow_to_zero"], true);
    assert_eq!(v[1]["bits"], "0x0000");
    // 1e-7 = 1.68 * 2^-24: toward zero 1 unit, a subnormal.
    assert_eq!(v[2]["subnormal"], true);
    assert_eq!(v[2]["bits"], "0x0001");
    // INF is exact, with no finite error.
    assert_eq!(v[3]["exact"], true);
    assert_eq!(v[3]["abs_error"], Value::Null);
    assert_eq!(v[3]["ulp_error"], Value::Null);
    assert_eq!(v[4]["nan"], true);
    assert_eq!(v[4]["bits"], "0x7e00");
    // rne overflow.
    let v = json_lines(&["encode", "--fmt", "f16", "--json", "70000"]);
    assert_eq!(v[0]["overflow_to_infinity"], true);
    assert_eq!(v[0]["bits"], "0x7c00");
    assert_eq!(v[0]["abs_error"], Value::Null);
    // --saturate is reported.
    let v = json_lines(&["encode", "--fmt", "f16", "--saturate", "--json", "70000"]);
    assert_eq!(v[0]["saturate"], true);
    assert_eq!(v[0]["bits"], "0x7bff");
    // Unsigned formats clamp.
    let v = json_lines(&["encode", "--fmt", "f11", "--json", "--", "-2"]);
    assert_eq!(v[0]["clamped_negative"], true);
    assert_eq!(v[0]["bits"], "0x000");
}

#[test]
fn json_encode_packed() {
    let v = json_lines(&["encode", "--fmt", "r11g11b10", "--json", "1", "2", "3"]);
    let o = &v[0];
    for key in [
        "schema",
        "format",
        "input",
        "rounding",
        "saturate",
        "bits",
        "exact",
        "value",
        "other_modes",
        "channels",
    ] {
        assert!(o.get(key).is_some(), "missing {key}");
    }
    assert_eq!(o["bits"], "0x842003c0");
    assert_eq!(o["value"], "1 2 3");
    assert_eq!(o["input"], "1 2 3");
    let ch = o["channels"].as_array().unwrap();
    assert_eq!(ch.len(), 3);
    for (c, want) in ch.iter().zip(["1", "2", "3"]) {
        assert_eq!(c["value"], want);
        assert_eq!(c["exact"], true);
        assert_eq!(c["input"], want);
    }
}

/// One JSON object per input per line, also on stdin, with blank lines and comments
/// skipped.
#[test]
fn json_one_object_per_line_on_stdin() {
    let a = bin()
        .args(["decode", "--fmt", "f16", "--json"])
        .write_stdin("0x3c00\n\n# comment\n0x4000\n")
        .assert()
        .success();
    let text = String::from_utf8(a.get_output().stdout.clone()).unwrap();
    let v: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(v.len(), 2);
    assert_eq!(v[1]["value"], "2");
}

// ---------------------------------------------------------------- CSV

#[test]
fn csv_decode_float() {
    let (h, rows) = csv(&[
        "decode", "--fmt", "f16", "--csv", "0x3c00", "0x7c00", "0x8001",
    ]);
    assert_eq!(
        h,
        [
            "format",
            "bits",
            "sign",
            "exponent",
            "fraction",
            "class",
            "value",
            "shortest",
            "hex_float",
            "unbiased_exponent",
            "quiet",
            "previous",
            "next",
            "ulp"
        ]
    );
    assert_eq!(
        rows[0],
        [
            "f16",
            "0x3c00",
            "0",
            "15",
            "0",
            "normal",
            "1",
            "1",
            "0x1p+0",
            "0",
            "null",
            "0x3bff",
            "0x3c01",
            "0.0009765625"
        ]
    );
    assert_eq!(
        rows[1],
        [
            "f16", "0x7c00", "0", "31", "0", "infinity", "inf", "inf", "inf", "null", "null",
            "0x7bff", "null", "null"
        ]
    );
    assert_eq!(
        rows[2],
        [
            "f16",
            "0x8001",
            "1",
            "0",
            "1",
            "subnormal",
            "-0.000000059604644775390625",
            "-6e-8",
            "-0x0.004p-14",
            "-14",
            "null",
            "0x8002",
            "0x0000",
            "0.000000059604644775390625"
        ]
    );
}

#[test]
fn csv_decode_packed() {
    let (h, rows) = csv(&["decode", "--fmt", "rgb9e5", "--csv", "0x999320c8"]);
    assert_eq!(
        h,
        [
            "format",
            "bits",
            "r_bits",
            "r",
            "g_bits",
            "g",
            "b_bits",
            "b",
            "shared_exponent",
            "r_class",
            "r_value",
            "g_class",
            "g_value",
            "b_class",
            "b_value"
        ]
    );
    // R 200 = 0xc8, G 400 = 0x190, B 100 = 0x064, E 19 (§19.3.2.1).
    assert_eq!(
        rows[0],
        [
            "rgb9e5",
            "0x999320c8",
            "0x0c8",
            "6.25",
            "0x190",
            "12.5",
            "0x064",
            "3.125",
            "19",
            "normal",
            "6.25",
            "normal",
            "12.5",
            "normal",
            "3.125"
        ]
    );
    let (_, rows) = csv(&["decode", "--fmt", "r11g11b10", "--csv", "0x842003c0"]);
    assert_eq!(
        rows[0],
        [
            "r11g11b10",
            "0x842003c0",
            "0x3c0",
            "1",
            "0x400",
            "2",
            "0x210",
            "3",
            "",
            "normal",
            "1",
            "normal",
            "2",
            "normal",
            "3"
        ]
    );
}

#[test]
fn csv_encode() {
    let (h, rows) = csv(&[
        "encode", "--fmt", "f16", "--csv", "1", "0.1", "70000", "1e-9",
    ]);
    assert_eq!(
        h,
        [
            "format",
            "input",
            "rounding",
            "bits",
            "exact",
            "value",
            "shortest",
            "abs_error",
            "ulp_error",
            "flags",
            "saturate",
            "rel_error",
            "other_modes"
        ]
    );
    assert_eq!(rows.len(), 4);
    assert_eq!(rows[0][..5], ["f16", "1", "rne", "0x3c00", "true"]);
    assert_eq!(rows[0][7], "0");
    assert_eq!(rows[0][9], "");
    assert_eq!(rows[1][3], "0x2e66");
    assert_eq!(rows[1][4], "false");
    // value is the exact decimal, shortest the text decode --plain prints.
    assert_eq!(rows[1][5], "0.0999755859375");
    assert_eq!(rows[1][6], "0.1");
    assert_eq!(rows[1][7], "0.0000244140625");
    assert_eq!(rows[1][8], "0.4");
    assert_eq!(rows[2][3], "0x7c00");
    assert_eq!(rows[2][9], "overflow");
    assert_eq!(rows[3][9], "underflow");
    assert_eq!(rows[0][10..], ["false", "0", ""]);
    assert_eq!(rows[1][11], "0.000244140625");
    assert_eq!(rows[1][12], "rtp=0x2e67");
    assert_eq!(rows[2][11], "-");
    assert_eq!(rows[2][12], "rtz=0x7bff rtn=0x7bff");
    // The header is written once, also for many stdin lines.
    let a = bin()
        .args(["encode", "--fmt", "f16", "--csv"])
        .write_stdin("1\n2\n3\n")
        .assert()
        .success();
    let text = String::from_utf8(a.get_output().stdout.clone()).unwrap();
    assert_eq!(text.lines().count(), 4);
    assert_eq!(text.matches("format,input").count(), 1);
}

// ---------------------------------------------------------------- errors

/// Exit code 2, nothing on stdout, and exactly one stderr line starting `d3dfloat: error:`
/// and containing `needle`.
fn assert_error(args: &[&str], stdin: Option<&str>, needle: &str) {
    let mut c = bin();
    c.args(args);
    if let Some(s) = stdin {
        c.write_stdin(s);
    }
    let a = c.assert().code(2);
    let out = a.get_output();
    let err = String::from_utf8(out.stderr.clone()).unwrap();
    assert!(
        err.starts_with("d3dfloat: error: "),
        "{args:?}: stderr does not start with the prefix: {err:?}"
    );
    assert_eq!(
        err.lines().count(),
        1,
        "{args:?}: error is not one line: {err:?}"
    );
    assert!(err.contains(needle), "{args:?}: {err:?} lacks {needle:?}");
    if stdin.is_none() {
        assert!(out.stdout.is_empty(), "{args:?}: wrote to stdout");
    }
}

#[test]
fn errors_are_one_line_with_exit_code_2() {
    assert_error(
        &["decode", "--fmt", "f16", "0xzz"],
        None,
        "argument 1: '0xzz'",
    );
    assert_error(
        &["decode", "--fmt", "f11", "0x800"],
        None,
        "argument 1: '0x800': pattern is wider than f11's 11 bits",
    );
    assert_error(
        &["encode", "--fmt", "f16", "garbage"],
        None,
        "argument 1: 'garbage'",
    );
    assert_error(&["encode", "--fmt", "f16", ""], None, "empty input");
    assert_error(&["decode", "--fmt", "f16", ""], None, "empty input");
    assert_error(&["encode", "--fmt", "f16"], Some(""), "no input");
    assert_error(
        &["decode", "--fmt", "f16"],
        Some("\n# only a comment\n"),
        "no input",
    );
    assert_error(&["encode", "--fmt", "f16", "0x1.8"], None, "p exponent");
    assert_error(&["encode", "--fmt", "rgb9e5", "1", "2"], None, "rgb9e5");
    assert_error(
        &["encode", "--fmt", "f16", "1", "2", "x"],
        None,
        "argument 3: 'x'",
    );
    assert_error(
        &["encode", "--fmt", "rgb9e5", "1", "2", "x"],
        None,
        "argument 3: 'x'",
    );
}

/// A bad argument among good ones: nothing is written (all are read first).
#[test]
fn bad_argument_writes_nothing() {
    assert_error(
        &["decode", "--fmt", "f16", "--plain", "0x3c00", "0xzz"],
        None,
        "argument 2",
    );
}

/// A bad stdin line among good ones: the lines before it have been written, the error
/// names its line number (counting blank and comment lines), exit code 2.
#[test]
fn bad_stdin_line_names_its_line_number() {
    let a = bin()
        .args(["encode", "--fmt", "f16", "--plain"])
        .write_stdin("1\n\n# two\n2\nbad\n3\n")
        .assert()
        .code(2);
    let out = a.get_output();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "0x3c00\n0x4000\n");
    let err = String::from_utf8(out.stderr.clone()).unwrap();
    assert!(
        err.starts_with("d3dfloat: error: line 5: 'bad': "),
        "{err:?}"
    );
    assert_eq!(err.lines().count(), 1);
    assert_error(
        &["decode", "--fmt", "f11", "--json"],
        Some("0x7c0\n0x800\n"),
        "line 2: '0x800'",
    );
}

/// Unknown formats are a usage error: exit code 2 and one line with the tool's prefix.
#[test]
fn unknown_format_is_a_one_line_error() {
    assert_error(&["decode", "--fmt", "f99", "0x1"], None, "f99");
}

/// The exit code is 2 even for clap's own usage errors (this part holds today).
#[test]
fn unknown_format_exits_2() {
    bin()
        .args(["decode", "--fmt", "f99", "0x1"])
        .assert()
        .code(2);
    bin()
        .args(["encode", "--fmt", "nope", "1"])
        .assert()
        .code(2);
}

// ---------------------------------------------------------------- pipes

/// `d3dfloat ... | head -1`: the reader goes away after one line; the run ends quietly
/// with success (no panic message, no error).
fn head_one(args: &[&str], line: &str) {
    let mut child = StdCommand::new(env!("CARGO_BIN_EXE_d3dfloat"))
        .args(args)
        .env_remove("NO_COLOR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = format!("{line}\n").repeat(200_000);
    let writer = std::thread::spawn(move || {
        // The child may exit before reading everything; a broken pipe here is expected.
        let _ = stdin.write_all(input.as_bytes());
    });
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    reader.read_line(&mut first).unwrap();
    assert!(!first.is_empty());
    drop(reader);
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: exit status {:?}, stderr {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "{args:?}: stderr {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn closed_pipe_ends_quietly() {
    head_one(&["decode", "--fmt", "f16", "--plain"], "0x3c00");
    head_one(&["encode", "--fmt", "f16", "--plain"], "0.1");
    head_one(&["encode", "--fmt", "f16", "--json"], "0.1");
    head_one(&["decode", "--fmt", "rgb9e5"], "0x999320c8");
}

// ---------------------------------------------------------------- colour

const ESC: &str = "\x1b[";

fn human(args: &[&str], env: &[(&str, &str)]) -> String {
    let mut c = bin();
    c.args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    let a = c.assert().success();
    String::from_utf8(a.get_output().stdout.clone()).unwrap()
}

#[test]
fn colour_only_where_asked() {
    let dec = ["decode", "--fmt", "f16", "0x3c00"];
    let enc = ["encode", "--fmt", "f16", "0.1"];
    for args in [&dec[..], &enc[..]] {
        // A pipe, by default: no escapes.
        assert!(
            !human(args, &[]).contains(ESC),
            "{args:?} default in a pipe"
        );
        // Looking like a terminal: escapes.
        assert!(
            human(args, &[("D3DFLOAT_TEST_TERM", "1")]).contains(ESC),
            "{args:?} on a terminal"
        );
        // NO_COLOR wins over the terminal.
        assert!(
            !human(args, &[("D3DFLOAT_TEST_TERM", "1"), ("NO_COLOR", "1")]).contains(ESC),
            "{args:?} NO_COLOR"
        );
        // Any non-empty NO_COLOR, even "0" (no-color.org); an empty one is unset.
        assert!(
            !human(args, &[("D3DFLOAT_TEST_TERM", "1"), ("NO_COLOR", "0")]).contains(ESC),
            "{args:?} NO_COLOR=0"
        );
        assert!(
            human(args, &[("D3DFLOAT_TEST_TERM", "1"), ("NO_COLOR", "")]).contains(ESC),
            "{args:?} NO_COLOR empty"
        );
        // TERM=dumb too.
        assert!(
            !human(args, &[("D3DFLOAT_TEST_TERM", "1"), ("TERM", "dumb")]).contains(ESC),
            "{args:?} TERM=dumb"
        );
        // --color always forces escapes into a pipe; --color never removes them on a
        // terminal.
        let mut always = args.to_vec();
        always.extend(["--color", "always"]);
        assert!(human(&always, &[]).contains(ESC), "{args:?} --color always");
        let mut never = args.to_vec();
        never.extend(["--color", "never"]);
        assert!(
            !human(&never, &[("D3DFLOAT_TEST_TERM", "1")]).contains(ESC),
            "{args:?} --color never"
        );
        // CLICOLOR_FORCE forces them into a pipe.
        assert!(
            human(args, &[("CLICOLOR_FORCE", "1")]).contains(ESC),
            "{args:?} CLICOLOR_FORCE"
        );
    }
    // Script styles never carry escapes, even when colour is forced.
    for style in ["--plain", "--json", "--csv"] {
        let out = human(
            &[
                "decode", "--fmt", "f16", "0x3c00", style, "--color", "always",
            ],
            &[],
        );
        assert!(!out.contains(ESC), "{style} with --color always");
    }
}

// ---------------------------------------------------------------- negative values

#[test]
fn negative_values_anywhere_on_the_command_line() {
    let plain = |args: &[&str]| stdout_of(args).trim().to_string();
    assert_eq!(
        plain(&["encode", "--fmt", "f16", "-inf", "--plain"]),
        "0xfc00"
    );
    assert_eq!(
        plain(&["encode", "-max", "--plain", "--fmt", "f16"]),
        "0xfbff"
    );
    assert_eq!(
        plain(&["encode", "--plain", "-1", "--fmt", "f16"]),
        "0xbc00"
    );
    assert_eq!(plain(&["--plain", "encode", "-2", "--fmt=f16"]), "0xc000");
    assert_eq!(
        plain(&["encode", "-f", "f16", "-r", "rtz", "-1e9", "--plain"]),
        "0xfbff"
    );
    assert_eq!(
        plain(&[
            "encode",
            "--fmt",
            "f16",
            "-1e9",
            "--rounding",
            "rtz",
            "--plain"
        ]),
        "0xfbff"
    );
    // -.5 = -2^-1: sign, exponent 14 -> 0xb800; -epsilon = -2^-10: exponent 5 -> 0x9400;
    // -min-normal = -2^-14 -> 0x8400; -0 -> 0x8000.
    assert_eq!(
        stdout_of(&[
            "encode",
            "--fmt",
            "f16",
            "-.5",
            "-epsilon",
            "-min-normal",
            "-0",
            "--plain"
        ]),
        "0xb800\n0x9400\n0x8400\n0x8000\n"
    );
    // After --, everything is a value.
    assert_eq!(
        plain(&["encode", "--fmt", "f16", "--plain", "--", "-3"]),
        "0xc200"
    );
    // Unsigned formats clamp negative arguments to 0.
    assert_eq!(plain(&["encode", "--fmt", "f11", "-1", "--plain"]), "0x000");
    // Packed words take negative channels too.
    assert_eq!(
        plain(&["encode", "--fmt", "rgb9e5", "-1", "1", "-inf", "--plain"]),
        "0x80020000"
    );
}

// ---------------------------------------------------------------- names and bit syntax

/// Format names are case-insensitive and the DXGI spellings work (README "Formats").
#[test]
fn format_names_and_aliases() {
    for (name, bits, want) in [
        ("half", "0x3c00", "1"),
        ("F16", "0x3c00", "1"),
        ("DXGI_FORMAT_R16_FLOAT", "0x3c00", "1"),
        ("float", "0x3f800000", "1"),
        ("double", "0x3ff0000000000000", "1"),
        ("f11", "0x3c0", "1"),
        ("f10", "0x1e0", "1"),
        ("DXGI_FORMAT_R11G11B10_FLOAT", "0x842003c0", "1 2 3"),
        ("r9g9b9e5_sharedexp", "0x999320c8", "6.25 12.5 3.125"),
        (
            "DXGI_FORMAT_R9G9B9E5_SHAREDEXP",
            "0x999320c8",
            "6.25 12.5 3.125",
        ),
    ] {
        assert_eq!(
            stdout_of(&["decode", "--fmt", name, "--plain", bits]).trim(),
            want,
            "{name}"
        );
    }
}

/// Bits in hex, binary and decimal, with underscores; the width is checked in each radix.
#[test]
fn bit_pattern_syntax() {
    let out = stdout_of(&[
        "decode",
        "--fmt",
        "f11",
        "--plain",
        "0x7c0",
        "0X7C0",
        "0b11111000000",
        "1984",
        "0x7_c0",
        "0b111_1100_0000",
        "0x0003c0",
    ]);
    assert_eq!(out, "inf\ninf\ninf\ninf\ninf\ninf\n1\n");
    assert_error(&["decode", "--fmt", "f11", "2048"], None, "wider than f11");
    assert_error(
        &["decode", "--fmt", "f11", "0b100000000000"],
        None,
        "wider than f11",
    );
    assert_error(
        &["decode", "--fmt", "f64", "0x10000000000000000"],
        None,
        "wider than f64",
    );
    assert_error(&["decode", "--fmt", "f16", "0x"], None, "not a bit pattern");
    assert_error(
        &["decode", "--fmt", "r11g11b10", "0x100000000"],
        None,
        "wider than r11g11b10's 32 bits",
    );
    assert_error(
        &["decode", "--fmt", "rgb9e5", "4294967296"],
        None,
        "wider than rgb9e5's 32 bits",
    );
    assert_error(
        &["decode", "--fmt", "f16", "--", "-1"],
        None,
        "not a bit pattern",
    );
    // The full 64-bit range is readable.
    assert_eq!(
        stdout_of(&["decode", "--fmt", "f64", "--plain", "0xffffffffffffffff"]).trim(),
        "nan"
    );
}

/// The styles agree with each other on every f11 and f10 pattern and on a stride of f16:
/// `--plain` is JSON's `shortest`, CSV's columns match JSON's keys.
#[test]
fn styles_agree_on_every_small_pattern() {
    for (fmt, count, step) in [
        ("f11", 2048u32, 1usize),
        ("f10", 1024, 1),
        ("f16", 65536, 7),
    ] {
        let input: String = (0..count)
            .step_by(step)
            .map(|b| format!("{b:#x}\n"))
            .collect();
        let run = |style: &str| {
            let a = bin()
                .args(["decode", "--fmt", fmt, style])
                .write_stdin(input.clone())
                .assert()
                .success();
            String::from_utf8(a.get_output().stdout.clone()).unwrap()
        };
        let plain = run("--plain");
        let json = run("--json");
        let csv = run("--csv");
        let mut csv_lines = csv.lines();
        let header: Vec<&str> = csv_lines.next().unwrap().split(',').collect();
        let mut n = 0;
        for ((p, j), c) in plain.lines().zip(json.lines()).zip(csv_lines) {
            let j: Value = serde_json::from_str(j).unwrap();
            assert_eq!(j["shortest"], p, "{fmt} {}", j["bits"]);
            for (key, cell) in header.iter().zip(c.split(',')) {
                let want = match &j[*key] {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                assert_eq!(cell, want, "{fmt} {} column {key}", j["bits"]);
            }
            n += 1;
        }
        assert_eq!(n, (count as usize).div_ceil(step));
    }
}

/// A stdin line that is not UTF-8 is a bad line like any other: the error names it.
#[test]
fn non_utf8_stdin_line_names_its_line_number() {
    let a = bin()
        .args(["encode", "--fmt", "f16", "--plain"])
        .write_stdin(&b"1\n\xff\xfe\n2\n"[..])
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).to_string();
    assert!(err.starts_with("d3dfloat: error: line 2"), "{err:?}");
}

/// Today's behaviour for a non-UTF-8 stdin line: exit code 2, the good lines before it
/// written, one line on stderr with the prefix.
#[test]
fn non_utf8_stdin_line_is_an_error() {
    let a = bin()
        .args(["encode", "--fmt", "f16", "--plain"])
        .write_stdin(&b"1\n\xff\xfe\n2\n"[..])
        .assert()
        .code(2);
    let out = a.get_output();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "0x3c00\n");
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(err.starts_with("d3dfloat: error: "), "{err:?}");
    assert_eq!(err.lines().count(), 1);
}

/// Usage errors found by the argument parser (an unknown option, a missing value, bad
/// UTF-8 in an argument) get the same one-line form as every other error.
#[test]
fn parser_errors_are_one_line() {
    assert_error(&["encode", "--fmt", "f16", "--bogus", "1"], None, "--bogus");
    assert_error(&["encode", "--fmt"], None, "--fmt");
    assert_error(&["encode", "--rounding", "sideways", "1"], None, "sideways");
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let bad = std::ffi::OsStr::from_bytes(b"\xff");
        let a = bin()
            .args(["encode", "--fmt", "f16", "--plain"])
            .arg(bad)
            .assert()
            .code(2);
        let err = String::from_utf8_lossy(&a.get_output().stderr).to_string();
        assert!(err.starts_with("d3dfloat: error: "), "{err:?}");
        assert_eq!(err.lines().count(), 1, "{err:?}");
    }
}

/// Every spelling the value reader accepts works negated without `--`, like `-inf` does.
/// `-infinity` and `-min-denorm` are read fine after `--`, but without it the argument
/// parser takes them for short options (`-i`, `-m`): src/cli/argv.rs `is_negative_value` lists
/// `inf` but not `infinity`, and not the `min-denorm` alias that src/input.rs accepts.
#[test]
fn every_negative_spelling_without_double_dash() {
    let plain = |args: &[&str]| stdout_of(args).trim().to_string();
    assert_eq!(
        plain(&["encode", "--fmt", "f16", "-infinity", "--plain"]),
        "0xfc00"
    );
    assert_eq!(
        plain(&["encode", "--fmt", "f16", "-Infinity", "--plain"]),
        "0xfc00"
    );
    assert_eq!(
        plain(&["encode", "--fmt", "f16", "-min-denorm", "--plain"]),
        "0x8001"
    );
}

/// The same spellings after `--` (works today), and the case-insensitive ones that are
/// recognised.
#[test]
fn negative_spellings() {
    let plain = |args: &[&str]| stdout_of(args).trim().to_string();
    assert_eq!(
        plain(&[
            "encode",
            "--fmt",
            "f16",
            "--plain",
            "--",
            "-infinity",
            "-min-denorm"
        ]),
        "0xfc00\n0x8001"
    );
    assert_eq!(
        plain(&[
            "encode",
            "--fmt",
            "f16",
            "-MAX",
            "-EPS",
            "-Min-Normal",
            "-NaN",
            "-INF",
            "--plain"
        ]),
        "0xfbff\n0x9400\n0x8400\n0xfe00\n0xfc00"
    );
    assert_eq!(
        plain(&["encode", "--fmt", "f16", "+inf", "+1", "--plain"]),
        "0x7c00\n0x3c00"
    );
}

/// Errors that say what to do: clap's suggestion kept in the one line, no literal `\n`, the
/// closest instruction, a pattern of another width, a value given to decode, and a
/// working format a conversion does not take.
#[test]
fn errors_suggest_what_was_meant() {
    assert_error(&["op", "madd", "1", "2", "3"], None, "did you mean 'mad'?");
    assert_error(&["decdoe", "1"], None, "'decode'");
    assert_error(
        &["decode", "--fmat", "f16", "1"],
        None,
        "a similar argument exists: '--fmt'",
    );
    for args in [
        &["encode", "--rounding", "nearest", "1"][..],
        &["decode", "--color", "sometimes", "1"][..],
    ] {
        assert_error(args, None, "[possible values: ");
        let out = bin().args(args).output().unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(!err.contains("\\n"), "{args:?}: a literal \\n in {err:?}");
    }
    assert_error(
        &["op", "add", "1", "0x3c00"],
        None,
        "4 hex digits are a 16-bit pattern, not an f32 one",
    );
    assert_error(&["op", "add", "1", "0x3c00"], None, "use --fmt f16");
    assert_error(
        &["decode", "0.1"],
        None,
        "a value, not a bit pattern: did you mean `d3dfloat encode`?",
    );
    assert_error(
        &["op", "--fmt", "f16", "ftoi", "1"],
        None,
        "ftoi converts f32 to i32; it has no f16 form",
    );
    // A pattern typed in decimal is decoded, and the human view says it read bits.
    let out = bin().args(["decode", "1"]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("1 in decimal, read as the bit pattern 0x00000001"),
        "{text}"
    );
    let plain = bin().args(["decode", "1", "--plain"]).output().unwrap();
    assert_eq!(plain.stdout, b"1e-45\n");
}
