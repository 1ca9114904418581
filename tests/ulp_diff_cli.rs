//! `d3dfloat ulp-diff` end to end: the script contract, exit codes, stdin pairs and buffers.

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::{Value, json};

fn cmd() -> Command {
    let mut c = Command::cargo_bin("d3dfloat").unwrap();
    c.env_remove("CLICOLOR_FORCE").env("NO_COLOR", "1");
    c
}

fn plain(args: &[&str]) -> String {
    let out = cmd()
        .arg("ulp-diff")
        .args(args)
        .arg("--plain")
        .output()
        .unwrap();
    assert!(out.status.code().is_some_and(|c| c <= 1), "{out:?}");
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

fn json_lines(out: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn plain_is_the_signed_distance() {
    assert_eq!(plain(&["1.0", "0x3f800003"]), "3");
    assert_eq!(plain(&["0x3f800003", "1"]), "-3");
    // Across zero: -1 to 1 is twice the steps from 0 to 1 (subnormals flushed).
    let one_steps = 0x3f80_0000u64 - 0x7f_ffff;
    assert_eq!(plain(&["-1", "1"]), (2 * one_steps).to_string());
    assert_eq!(plain(&["-0", "0"]), "0");
}

#[test]
fn f32_subnormals_count_as_zero_unless_no_flush() {
    assert_eq!(plain(&["0x00000001", "0x00800000"]), "1");
    assert_eq!(plain(&["0x00000001", "0x80000005"]), "0");
    assert_eq!(
        plain(&["--no-flush", "0x00000001", "0x00800000"]),
        (0x80_0000 - 1).to_string()
    );
    cmd()
        .args(["ulp-diff", "0x00000001", "0"])
        .assert()
        .success()
        .stdout(predicate::str::contains("counted as +0"));
}

#[test]
fn small_formats_and_infinity() {
    assert_eq!(plain(&["--fmt", "f11", "0x7bf", "inf"]), "1");
    assert_eq!(plain(&["--fmt", "f10", "max", "inf"]), "1");
    assert_eq!(
        plain(&["--fmt", "f16", "-inf", "inf"]),
        (2 * 0x7c00).to_string()
    );
    assert_eq!(plain(&["--fmt", "f16", "0x8001", "0x0001"]), "2");
    assert_eq!(plain(&["--fmt", "f64", "1", "0x3ff0000000000002"]), "2");
}

#[test]
fn nan_is_reported_and_fails_max() {
    assert_eq!(plain(&["nan", "1"]), "nan");
    assert_eq!(plain(&["--fmt", "f11", "0x7c1", "0x7c1"]), "nan");
    cmd()
        .args(["ulp-diff", "nan", "1", "--max", "1000", "--plain"])
        .assert()
        .code(1)
        .stdout("nan\n");
    let out = cmd()
        .args(["ulp-diff", "--json", "1", "nan"])
        .output()
        .unwrap();
    let v = &json_lines(&out.stdout)[0];
    assert_eq!(v["distance"], Value::Null);
    assert_eq!(v["nan"], true);
}

#[test]
fn max_gates_the_exit_code() {
    cmd()
        .args(["ulp-diff", "--fmt", "f16", "--max", "2", "0x3c00", "0x3c02"])
        .assert()
        .success()
        .stdout(predicate::str::contains("within --max 2"));
    cmd()
        .args(["ulp-diff", "--fmt", "f16", "--max", "1", "0x3c00", "0x3c02"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("exceeds --max 1"));
    // Negative distances count by magnitude.
    cmd()
        .args(["ulp-diff", "--fmt", "f16", "--max", "1", "0x3c02", "0x3c00"])
        .assert()
        .code(1);
}

#[test]
fn json_contract() {
    let out = cmd()
        .args(["ulp-diff", "--json", "--fmt", "f16", "0.1", "0x2e68"])
        .output()
        .unwrap();
    let v = &json_lines(&out.stdout)[0];
    assert_eq!(v["schema"], 1);
    assert_eq!(v["format"], "f16");
    assert_eq!(v["a"], "0x2e66");
    assert_eq!(v["b"], "0x2e68");
    assert_eq!(v["distance"], 2);
    assert_eq!(v["a_inexact"], true);
    assert_eq!(v["b_inexact"], false);
    assert_eq!(v["abs_error"], "0.0001220703125");
}

#[test]
fn inexact_value_rounding_is_said() {
    cmd()
        .args(["ulp-diff", "--fmt", "f16", "0.1", "0x2e66"])
        .assert()
        .success()
        .stdout(predicate::str::contains("inexact"));
}

#[test]
fn packed_words_give_one_distance_per_channel() {
    // R 1 -> 1.02 (+1), G 2 -> 1 (-64), B inf -> max (-1).
    assert_eq!(
        plain(&["--fmt", "r11g11b10", "1,2,inf", "1.02,1,max"]),
        "1 -64 -1"
    );
    let out = cmd()
        .args([
            "ulp-diff",
            "--json",
            "--fmt",
            "r11g11b10",
            "1,2,inf",
            "1.02,1,max",
        ])
        .output()
        .unwrap();
    let v = &json_lines(&out.stdout)[0];
    assert_eq!(v["distance"], -64);
    assert_eq!(v["channels"][2]["channel_format"], "f10");
    // RGB9E5: equal values under different shared exponents are 0 apart.
    let e20 = format!("{:#010x}", 100u32 | 200 << 9 | 50 << 18 | 20 << 27);
    assert_eq!(plain(&["--fmt", "rgb9e5", "0x999320c8", &e20]), "0 0 0");
}

#[test]
fn stdin_pairs_stream_then_summarise() {
    let input = "1 1.0000001\n# comment\n\n0x00000001 0\nnan 2\n1 1.0000005\n";
    cmd()
        .args(["ulp-diff", "--plain"])
        .write_stdin(input)
        .assert()
        .success()
        .stdout("1\n0\nnan\n4\n");
    let out = cmd()
        .args(["ulp-diff", "--json", "--max", "3"])
        .write_stdin(input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let lines = json_lines(&out.stdout);
    assert_eq!(lines.len(), 5);
    let s = &lines[4];
    assert_eq!(s["kind"], "summary");
    assert_eq!(s["count"], 4);
    assert_eq!(s["max_abs"], 4);
    assert_eq!(s["nan_mismatches"], 1);
    assert_eq!(s["over_max"], 1);
    assert_eq!(s["mean_abs"], 5.0 / 3.0);
    let hist: Vec<(String, u64)> = s["histogram"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["range"].as_str().unwrap().into(),
                h["count"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        hist,
        [
            ("0".into(), 1),
            ("1".into(), 1),
            ("2".into(), 0),
            ("3-4".into(), 1)
        ]
    );
    assert_eq!(s["worst"][0]["index"], 6);
    assert_eq!(s["first_nans"][0]["index"], 5);
    cmd()
        .args(["ulp-diff"])
        .write_stdin(input)
        .assert()
        .success()
        .stdout(predicate::str::contains("3-4").and(predicate::str::contains("worst")));
}

#[test]
fn bad_stdin_line_names_its_number() {
    cmd()
        .args(["ulp-diff", "--plain"])
        .write_stdin("1 2\n3\n")
        .assert()
        .code(2)
        .stdout("8388608\n")
        .stderr(predicate::str::contains("line 2: '3'"));
    cmd()
        .args(["ulp-diff", "1", "bogus"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("argument 2: 'bogus'"));
    cmd().args(["ulp-diff", "1"]).assert().code(2);
}

fn files(e: &[u8], a: &[u8]) -> (tempdir::Dir, String, String) {
    let dir = tempdir::Dir::new();
    let (pe, pa) = (dir.path("expected.bin"), dir.path("actual.bin"));
    std::fs::write(&pe, e).unwrap();
    std::fs::write(&pa, a).unwrap();
    (dir, pe, pa)
}

/// A scratch directory under the target dir, removed on drop (no extra dependency).
mod tempdir {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    pub struct Dir(std::path::PathBuf);
    impl Dir {
        pub fn new() -> Dir {
            let p = std::env::temp_dir().join(format!(
                "d3dfloat-ulp-{}-{}",
                std::process::id(),
                N.fetch_add(1, Ordering::SeqCst)
            ));
            std::fs::create_dir_all(&p).unwrap();
            Dir(p)
        }
        pub fn path(&self, name: &str) -> String {
            self.0.join(name).to_string_lossy().into_owned()
        }
    }
    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

fn le32(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

#[test]
fn files_compare_element_by_element() {
    let e = le32(&[0x3f80_0000, 0x4000_0000, 0x7fc0_0000, 5]);
    let a = le32(&[0x3f80_0002, 0x4000_0000, 0x7fc0_0000, 0]);
    let (_d, pe, pa) = files(&e, &a);
    let out = cmd()
        .args(["ulp-diff", "--json", "--max", "2", "--files", &pe, &pa])
        .output()
        .unwrap();
    // The NaN pair fails --max even though both sides are NaN.
    assert_eq!(out.status.code(), Some(1));
    let s = &json_lines(&out.stdout)[0];
    assert_eq!(s["elements"], 4);
    assert_eq!(s["max_abs"], 2);
    assert_eq!(s["nan_both"], 1);
    assert_eq!(s["over_max"], 0);
    assert_eq!(s["worst"][0]["index"], 0);
    cmd()
        .args(["ulp-diff", "--plain", "--files", &pe, &pa])
        .assert()
        .success()
        .stdout("count=4 max=2 mean=0.6666666666666666 nan=1 over_max=0\n");
}

#[test]
fn packed_files_compare_channel_by_channel() {
    let e = le32(&[0x3c0 | 0x400 << 11, 0]);
    let a = le32(&[0x3c0 | 0x401 << 11, 0]);
    let (_d, pe, pa) = files(&e, &a);
    let out = cmd()
        .args([
            "ulp-diff",
            "--json",
            "--fmt",
            "r11g11b10",
            "--files",
            &pe,
            &pa,
        ])
        .output()
        .unwrap();
    let s = &json_lines(&out.stdout)[0];
    assert_eq!(s["count"], 6);
    assert_eq!(s["worst"][0]["channel"], "g");
    assert_eq!(s["worst"][0]["a"], "0x400");
}

#[test]
fn file_sizes_must_match() {
    let (_d, pe, pa) = files(&[0; 8], &[0; 12]);
    cmd()
        .args(["ulp-diff", "--files", &pe, &pa])
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("is 8 bytes").and(predicate::str::contains("is 12 bytes")),
        );
    let (_d, pe, pa) = files(&[0; 6], &[0; 6]);
    cmd()
        .args(["ulp-diff", "--files", &pe, &pa])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("6 bytes").and(predicate::str::contains("4-byte f32")));
    let (_d, pe, pa) = files(&[], &[0; 2]);
    cmd()
        .args(["ulp-diff", "--fmt", "f16", "--files", &pe, &pa])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is 0 bytes"));
}

#[test]
fn empty_files_compare_as_nothing() {
    let (_d, pe, pa) = files(&[], &[]);
    cmd()
        .args(["ulp-diff", "--max", "0", "--plain", "--files", &pe, &pa])
        .assert()
        .success()
        .stdout("count=0 max=0 mean=nan nan=0 over_max=0\n");
}

/// `--files --list` streams every element over `--max` (every difference without it),
/// NaN involved included, in each script style, before the summary.
#[test]
fn files_list_streams_every_element_over_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, v: &[f32]| {
        let p = dir.path().join(name);
        std::fs::write(
            &p,
            v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<_>>(),
        )
        .unwrap();
        p
    };
    // Index 1 is 1 ULP off, 3 NaN against 4, 4 two ULPs off, and 70000 more elements
    // past the five the summary keeps, each 3 ULPs off.
    let mut a = vec![1.0f32, 2.0, 3.0, f32::NAN, 5.0];
    let mut b = vec![1.0f32, f32::from_bits(2f32.to_bits() + 1), 3.0, 4.0];
    b.push(f32::from_bits(5f32.to_bits() + 2));
    for i in 0..70_000u32 {
        let x = 1.0 + i as f32;
        a.push(x);
        b.push(f32::from_bits(x.to_bits() + 3));
    }
    let (pa, pb) = (write("a.f32", &a), write("b.f32", &b));
    let run = |extra: &[&str]| {
        let out = Command::cargo_bin("d3dfloat")
            .unwrap()
            .args(["ulp-diff", "--files"])
            .args([&pa, &pb])
            .args(["--list"])
            .args(extra)
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let plain = run(&["--plain", "--max", "1"]);
    let lines: Vec<&str> = plain.lines().collect();
    assert_eq!(lines.len(), 2 + 70_000 + 1, "listed, then the summary");
    assert_eq!(lines[0], "3 - 0x7fc00000 0x40800000 nan");
    assert_eq!(lines[1], "4 - 0x40a00000 0x40a00002 2");
    assert_eq!(lines[70_001], "70004 - 0x4788b800 0x4788b803 3");
    assert!(
        lines[70_002].starts_with("count=70005 "),
        "{}",
        lines[70_002]
    );
    // Without --max: every difference (index 1 too).
    let plain = run(&["--plain"]);
    assert!(
        plain.starts_with("1 - 0x40000000 0x40000001 1\n"),
        "{plain:.80}"
    );
    let csv = run(&["--csv", "--max", "2"]);
    assert!(csv.starts_with("index,channel,a,b,distance\n3,-,0x7fc00000,0x40800000,nan\n5,-,"));
    assert!(csv.contains("\n\nstatistic,value\n"));
    let json = run(&["--json", "--max", "2"]);
    let first: serde_json::Value = serde_json::from_str(json.lines().next().unwrap()).unwrap();
    assert_eq!(first["listed"]["index"], 3);
    assert_eq!(first["listed"]["distance"], serde_json::Value::Null);
    assert_eq!(
        json.lines().filter(|l| l.contains("\"listed\"")).count(),
        1 + 70_000
    );
}

fn le16(halves: &[u16]) -> Vec<u8> {
    halves.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Issue 38: an image's elements are named as image people name them: the pixel's x and
/// y and the channel, in the worst list and in `--list`.
#[test]
fn image_elements_are_named_by_pixel_and_channel() {
    // A 3x2 RGBA f16 image; pixel (2, 1) channel B (element 22) is 4 ULPs off, pixel
    // (0, 1) channel A (element 15) 1 ULP.
    let e = vec![0x3c00u16; 24];
    let mut a = e.clone();
    a[22] = 0x3c04;
    a[15] = 0x3c01;
    let (_d, pe, pa) = files(&le16(&e), &le16(&a));
    let image = ["--fmt", "f16", "--width", "3", "--channels", "4"];
    let out = cmd()
        .args(["ulp-diff", "--json", "--files", &pe, &pa])
        .args(image)
        .output()
        .unwrap();
    let s = &json_lines(&out.stdout)[0];
    let worst = &s["worst"][0];
    assert_eq!(
        (
            worst["index"].clone(),
            worst["x"].clone(),
            worst["y"].clone(),
            worst["channel"].clone()
        ),
        (json!(22), json!(2), json!(1), json!("b"))
    );
    assert_eq!(
        (s["worst"][1]["x"].clone(), s["worst"][1]["channel"].clone()),
        (json!(0), json!("a"))
    );
    // --list names the pixel too, in every style.
    let plain = cmd()
        .args(["ulp-diff", "--plain", "--list", "--files", &pe, &pa])
        .args(image)
        .output()
        .unwrap();
    let text = String::from_utf8(plain.stdout).unwrap();
    assert_eq!(
        text.lines().take(2).collect::<Vec<_>>(),
        ["15 a 0x3c00 0x3c01 1 0 1", "22 b 0x3c00 0x3c04 4 2 1"]
    );
    let csv = cmd()
        .args([
            "ulp-diff", "--csv", "--list", "--max", "1", "--files", &pe, &pa,
        ])
        .args(image)
        .output()
        .unwrap();
    let text = String::from_utf8(csv.stdout).unwrap();
    assert!(
        text.starts_with("index,channel,a,b,distance,x,y\n22,b,0x3c00,0x3c04,4,2,1\n\n"),
        "{text}"
    );
    let human = cmd()
        .args(["ulp-diff", "--files", &pe, &pa])
        .args(image)
        .output()
        .unwrap();
    let text = String::from_utf8(human.stdout).unwrap();
    assert!(text.contains("pixel (2, 1) B: 0x3c00 vs 0x3c04"), "{text}");
}

/// numpy's isclose(actual, expected, rtol, atol), written out: the reference the
/// tolerance is held to (python/tests holds it to numpy itself).
fn isclose(actual: f64, expected: f64, rtol: f64, atol: f64) -> bool {
    if actual == expected {
        return true;
    }
    (actual - expected).abs() <= atol + rtol * expected.abs()
}

/// Issue 38: `--abs-tol`/`--rel-tol` count the elements not close (numpy's isclose), beside
/// `--max`, and fail the run; one pixel at 0 against 9.6e-11 no longer needs a ULP limit
/// of 777 million to pass.
#[test]
fn tolerances_count_beside_max_with_numpy_isclose_semantics() {
    let expected = [0.0f32, 1.0, 100.0, 1e-3, 5.0, f32::NAN, f32::INFINITY];
    let actual = [
        9.6e-11f32,
        1.0001,
        100.5,
        1.2e-3,
        5.0,
        f32::NAN,
        f32::INFINITY,
    ];
    let to_bytes = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let (_d, pe, pa) = files(&to_bytes(&expected), &to_bytes(&actual));
    for (atol, rtol) in [
        (1e-9, 0.0),
        (1e-9, 1e-3),
        (0.0, 1e-2),
        (1e-3, 0.0),
        (0.5, 0.5),
    ] {
        let want_over = expected
            .iter()
            .zip(&actual)
            .filter(|&(&e, &a)| !isclose(a as f64, e as f64, rtol, atol))
            .count() as u64;
        let out = cmd()
            .args(["ulp-diff", "--json", "--files", &pe, &pa])
            .args([
                "--abs-tol",
                &atol.to_string(),
                "--rel-tol",
                &rtol.to_string(),
            ])
            .output()
            .unwrap();
        let s = &json_lines(&out.stdout)[0];
        assert_eq!(
            s["over_tolerance"],
            json!(want_over),
            "atol {atol} rtol {rtol}: {s}"
        );
        assert_eq!(s["within_tolerance"], json!(7 - want_over));
        assert_eq!(s["within_max"], Value::Null, "no --max");
        assert_eq!(
            out.status.code(),
            Some(if want_over > 0 { 1 } else { 0 }),
            "{s}"
        );
    }
    // The NaN pair is never close; beside --max both counts are given.
    let out = cmd()
        .args([
            "ulp-diff",
            "--plain",
            "--files",
            &pe,
            &pa,
            "--abs-tol",
            "1",
            "--max",
            "0",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.ends_with(" over_tolerance=1\n"), "{text}");
    let out = cmd()
        .args([
            "ulp-diff",
            "--json",
            "--files",
            &pe,
            &pa,
            "--abs-tol",
            "1",
            "--max",
            "1000",
        ])
        .output()
        .unwrap();
    let s = &json_lines(&out.stdout)[0];
    assert_eq!(
        (s["within_max"].clone(), s["within_tolerance"].clone()),
        (json!(3), json!(6))
    );
    // --list lists what is beyond either.
    let out = cmd()
        .args([
            "ulp-diff",
            "--plain",
            "--list",
            "--files",
            &pe,
            &pa,
            "--rel-tol",
            "1e-3",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let listed: Vec<&str> = text.lines().map(|l| l.split(' ').next().unwrap()).collect();
    assert_eq!(listed, ["0", "2", "3", "5", "count=7"]);
    // A pair on the command line, and bad tolerances.
    cmd()
        .args(["ulp-diff", "--abs-tol", "0.01", "1", "1.005"])
        .assert()
        .success();
    cmd()
        .args(["ulp-diff", "--rel-tol", "0.001", "1", "1.005"])
        .assert()
        .code(1);
    for bad in ["-1", "nan", "inf", "x"] {
        cmd()
            .args(["ulp-diff", "--abs-tol", bad, "1", "1"])
            .assert()
            .code(2);
    }
}
