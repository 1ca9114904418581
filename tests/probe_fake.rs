//! `probe` without Vulkan: the in-process fake device (exact IEEE arithmetic, with or
//! without D3D's f32 denorm flush) drives the report, the log and the exit codes.

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

fn probe(device: &str) -> Command {
    let mut c = Command::cargo_bin("d3dfloat").unwrap();
    c.arg("probe")
        .env("NO_COLOR", "1")
        .env("D3DFLOAT_TEST_FAKE_DEVICE", device);
    c
}

fn json_lines(out: &[u8]) -> Vec<Value> {
    String::from_utf8(out.to_vec())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Small instruction set that still covers every result kind: float, mask, integer, half,
/// double, two results.
const OPS: &str = "add,mad,dp3,min,sincos,eq,ftoi,ftou,itof,f32tof16,f16tof32,dtof,dadd,dfma";

#[test]
fn an_exact_ieee_device_with_flush_conforms_and_exits_0() {
    let out = probe("ieee")
        .args(["--json", "--ops", OPS])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let objects = json_lines(&out);
    assert_eq!(objects[0]["kind"], "device");
    assert_eq!(objects[0]["float_controls"]["denorm_flush_f32"], true);
    let ops: Vec<&Value> = objects.iter().filter(|o| o["kind"] == "op").collect();
    // Every name once per format it exists in (add, mad, dp3, min and eq also in f16).
    assert_eq!(ops.len(), 19);
    for o in &ops {
        assert_eq!(o["violate"], 0, "{o}");
        assert_eq!(o["conform"], o["lines"], "{o}");
        assert!(o["lines"].as_u64().unwrap() >= 4096, "{o}");
    }
    let f16tof32 = ops.iter().find(|o| o["op"] == "f16tof32").unwrap();
    assert_eq!(f16tof32["lines"], 65536, "every half pattern");
    let summary = objects.last().unwrap();
    assert_eq!(summary["kind"], "summary");
    assert_eq!(summary["ops"], 19);
    assert_eq!(summary["violate"], 0);
}

#[test]
fn a_device_that_keeps_denorms_is_caught_and_exits_1() {
    let assert = probe("no-flush")
        .args(["--ops", "add,mul,ftoi"])
        .assert()
        .code(1);
    let text = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    assert!(
        text.contains("denorm_flush_f32         not supported"),
        "{text}"
    );
    assert!(text.contains("f32 denormal operand not flushed"), "{text}");
    assert!(text.contains("results violate the D3D rules"), "{text}");
    // ftoi reads no denorm differently enough to matter: it stays clean.
    let ftoi = text.lines().find(|l| l.starts_with("ftoi ")).unwrap();
    assert!(ftoi.split_whitespace().nth(4) == Some("0"), "{ftoi}");
}

#[test]
fn each_class_example_is_an_op_command_that_violates() {
    let out = probe("no-flush")
        .args(["--json", "--ops", "add,mul,div,sqrt,dp2"])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let mut examples = 0;
    for o in json_lines(&out).iter().filter(|o| o["kind"] == "op") {
        for c in o["classes"].as_array().unwrap() {
            let example = c["example"].as_str().unwrap();
            let words: Vec<&str> = example.split_whitespace().collect();
            assert_eq!(&words[..2], ["d3dfloat", "op"], "{example}");
            Command::cargo_bin("d3dfloat")
                .unwrap()
                .args(&words[1..])
                .assert()
                .code(1)
                .stdout(predicate::str::contains("violates"));
            examples += 1;
        }
    }
    assert!(examples >= 5, "{examples} examples");
}

#[test]
fn the_log_rechecked_by_op_gives_the_same_counts() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("probe.log");
    let out = probe("no-flush")
        .args([
            "--plain",
            "--ops",
            "add,mul,rsq,f16:add,ftoi,dfma",
            "--count",
            "600",
        ])
        .arg("--emit-log")
        .arg(&log)
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    let mut main = (0u64, 0u64);
    let mut halves = (0u64, 0u64);
    for line in text.lines().filter(|l| !l.starts_with("total")) {
        let f: Vec<&str> = line.split_whitespace().collect();
        let (lines, violate): (u64, u64) = (f[2].parse().unwrap(), f[4].parse().unwrap());
        let t = if f[1] == "f16" {
            &mut halves
        } else {
            &mut main
        };
        t.0 += lines;
        t.1 += violate;
    }
    assert!(main.1 > 0);
    for (file, fmt, (lines, violate)) in [
        (log.clone(), "f32", main),
        (dir.path().join("probe.log.f16"), "f16", halves),
    ] {
        let logged = std::fs::read_to_string(&file).unwrap();
        assert_eq!(logged.lines().count() as u64, lines);
        let summary = format!("d3dfloat: {} conform, {violate} do not", lines - violate);
        Command::cargo_bin("d3dfloat")
            .unwrap()
            .args(["op", "--fmt", fmt, "--plain"])
            .pipe_stdin(&file)
            .unwrap()
            .assert()
            .code(if violate > 0 { 1 } else { 0 })
            .stderr(predicate::str::contains(summary));
    }
}

#[test]
fn the_seed_decides_the_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let run = |seed: &str, name: &str| {
        let path = dir.path().join(name);
        probe("ieee")
            .args(["--plain", "--ops", "mul", "--count", "2000", "--seed", seed])
            .arg("--emit-log")
            .arg(&path)
            .assert()
            .success();
        std::fs::read_to_string(path).unwrap()
    };
    let a = run("5", "a");
    assert!(a == run("5", "b"), "the same seed gives the same lines");
    assert!(a != run("6", "c"), "another seed gives other lines");
    assert_eq!(a.lines().count(), 2000);
    assert!(
        a.lines()
            .all(|l| l.starts_with("mul 0x") && l.contains(" = 0x"))
    );
}

#[test]
fn csv_plain_and_device_list() {
    probe("ieee")
        .args(["--csv", "--ops", "add", "--count", "64"])
        .assert()
        .success()
        .stdout(predicate::str::starts_with(
            "op,format,lines,conform,violate,max_ulps,classes,top_class,top_count,example,skipped,max_distance,via\nadd,f32,64,64,0,",
        ));
    probe("ieee")
        .args(["--list-devices", "--plain"])
        .assert()
        .success()
        .stdout("0 fake IEEE device (flushes f32 denorms)\n");
}

#[test]
fn usage_errors_are_one_line_and_exit_2() {
    for args in [
        vec!["--ops", "fdiv"],
        vec!["--count", "0"],
        vec!["--rules", "d3d9"],
    ] {
        let assert = probe("ieee").args(&args).assert().code(2);
        let err = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
        assert!(err.starts_with("d3dfloat: error: "), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    }
}

#[test]
fn no_vulkan_device_is_one_line_naming_the_packages_and_exit_2() {
    // An ICD list that names nothing: the loader finds no driver (or, on a machine with no
    // loader at all, loading fails); either way the answer is the same.
    let mut c = Command::cargo_bin("d3dfloat").unwrap();
    let assert = c
        .args(["probe", "--ops", "add"])
        .env("VK_ICD_FILENAMES", "/nonexistent/icd.json")
        .env("VK_DRIVER_FILES", "/nonexistent/icd.json")
        .env_remove("D3DFLOAT_TEST_FAKE_DEVICE")
        .assert()
        .code(2)
        .stdout("");
    let err = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
    let ours: Vec<&str> = err.lines().filter(|l| l.starts_with("d3dfloat:")).collect();
    assert_eq!(ours.len(), 1, "{err}");
    assert!(
        ours[0].starts_with("d3dfloat: error: probe: no Vulkan"),
        "{err}"
    );
    assert!(ours[0].contains("mesa-vulkan-drivers libvulkan1"), "{err}");
}

#[test]
fn an_emit_log_onto_a_device_refuses_the_f16_companion_file() {
    // A link to /dev/null: the f32 log may go there, but FILE.f16 beside it cannot.
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("null");
    std::os::unix::fs::symlink("/dev/null", &link).unwrap();
    let out = probe("ieee")
        .args(["--plain", "--ops", "f16:add", "--emit-log"])
        .arg(&link)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not a regular file"), "{err}");
    assert!(out.stdout.is_empty(), "the probe ran");
    assert!(!dir.path().join("null.f16").exists());
    // Without f16 instructions the same target takes the log.
    let ok = probe("ieee")
        .args(["--plain", "--ops", "ftoi", "--emit-log"])
        .arg(&link)
        .output()
        .unwrap();
    assert_eq!(
        ok.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    assert!(!dir.path().join("null.f16").exists());
}

/// Issue 38: `--ops f16:...` alone left an empty FILE beside the FILE.f16 that holds the
/// lines.
#[test]
fn an_emit_log_of_f16_instructions_alone_writes_no_empty_main_log() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("run.log");
    probe("ieee")
        .args(["--plain", "--ops", "f16:add", "--count", "10", "--emit-log"])
        .arg(&log)
        .assert()
        .success();
    assert!(!log.exists(), "an empty main log was written");
    let halves = std::fs::read_to_string(dir.path().join("run.log.f16")).unwrap();
    assert_eq!(halves.lines().count(), 10, "{halves}");
    // Both kinds: both files.
    probe("ieee")
        .args([
            "--plain",
            "--ops",
            "add,f16:add",
            "--count",
            "10",
            "--emit-log",
        ])
        .arg(&log)
        .assert()
        .success();
    assert_eq!(std::fs::read_to_string(&log).unwrap().lines().count(), 10);
}

/// Runs `op --plain` over a violations file: one verdict a line.
fn recheck(file: &std::path::Path, fmt: &str) -> Vec<String> {
    let out = Command::cargo_bin("d3dfloat")
        .unwrap()
        .args(["op", "--plain", "--fmt", fmt])
        .pipe_stdin(file)
        .unwrap()
        .output()
        .unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// Issue 38: an exhaustive sweep names every failing input, in a file `op` re-checks, with
/// each line's index in the sweep; `--range` runs any slice; `--limit` bounds the file.
#[test]
fn an_exhaustive_sweep_writes_every_violating_input_with_its_index() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.txt");
    // f32 sqrt over [0x7ffff0, 0x800010): the device that keeps denorms gets the 16
    // subnormal inputs below 0x800000 wrong (D3D reads them as zero, §3.1.3.2); the
    // normal ones above conform.
    let out = probe("no-flush")
        .args([
            "--json",
            "--exhaustive",
            "--ops",
            "sqrt",
            "--range",
            "0x7ffff0..0x800010",
        ])
        .arg("--violations")
        .arg(&file)
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let objects = json_lines(&out);
    let op = objects.iter().find(|o| o["kind"] == "op").unwrap();
    assert_eq!(
        (op["lines"].as_u64(), op["violate"].as_u64()),
        (Some(32), Some(16))
    );
    assert!(op["max_distance"].as_u64().unwrap() > op["max_ulps"].as_u64().unwrap());
    assert!(op.get("violations").is_none(), "listed only with --list");
    let text = std::fs::read_to_string(&file).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 16, "{text}");
    for (i, line) in lines.iter().enumerate() {
        let index = 0x7ffff0 + i as u64;
        assert!(
            line.starts_with(&format!("sqrt 0x{index:08x} = 0x"))
                && line.ends_with(&format!("  # index {index}")),
            "{line}"
        );
    }
    // Every line still violates when `op` reads it back.
    let verdicts = recheck(&file, "f32");
    assert_eq!(verdicts, vec!["violates"; 16]);
    // `--limit 5`: the first five by index, and a comment line saying how many more.
    probe("no-flush")
        .args([
            "--plain",
            "--exhaustive",
            "--ops",
            "sqrt",
            "--range",
            "8388592..8388624",
        ])
        .args(["--limit", "5", "--violations"])
        .arg(&file)
        .assert()
        .code(1);
    let text = std::fs::read_to_string(&file).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 6, "{text}");
    assert!(lines[4].ends_with("# index 8388596"), "{text}");
    assert_eq!(
        lines[5],
        "# sqrt f32: 11 more violating lines not written (--limit 5)"
    );
    assert_eq!(recheck(&file, "f32"), vec!["violates"; 5]);
}

#[test]
fn an_exhaustive_sweep_lists_violating_indexes_in_json_and_csv() {
    let args = [
        "--exhaustive",
        "--ops",
        "rsq",
        "--range",
        "0x7ffffe..0x800002",
        "--list",
    ];
    let out = probe("no-flush")
        .arg("--json")
        .args(args)
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let objects = json_lines(&out);
    let op = objects.iter().find(|o| o["kind"] == "op").unwrap();
    let listed: Vec<u64> = op["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["index"].as_u64().unwrap())
        .collect();
    assert_eq!(listed, [0x7ffffe, 0x7fffff]);
    assert!(
        op["violations"][0]["class"]
            .as_str()
            .unwrap()
            .contains("denorm")
    );
    let out = probe("no-flush")
        .arg("--csv")
        .args(args)
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    let tables: Vec<&str> = text.split("\n\n").collect();
    assert_eq!(tables.len(), 2, "{text}");
    assert!(tables[0].starts_with("op,format,lines,conform,violate,max_ulps,"));
    assert!(
        tables[0]
            .lines()
            .next()
            .unwrap()
            .ends_with(",max_distance,via")
    );
    let rows: Vec<&str> = tables[1].lines().collect();
    assert_eq!(rows[0], "op,format,index,class");
    assert!(rows[1].starts_with("rsq,f32,8388606,") && rows[2].starts_with("rsq,f32,8388607,"));
    assert_eq!(rows.len(), 3);
}

#[test]
fn a_range_runs_one_binade_of_an_f16_sweep() {
    // f16 [1, 2): 0x3c00..0x4000, 1024 inputs.
    let out = probe("ieee")
        .args([
            "--plain",
            "--exhaustive",
            "--ops",
            "f16:sqrt",
            "--range",
            "0x3c00..0x4000",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(text.starts_with("sqrt f16 1024 1024 0 "), "{text}");
    // A range past the end of a sweep runs what is there.
    let out = probe("ieee")
        .args([
            "--plain",
            "--exhaustive",
            "--ops",
            "f16:sqrt",
            "--range",
            "0xfff0..0x20000",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert!(
        String::from_utf8(out)
            .unwrap()
            .starts_with("sqrt f16 16 16 0 ")
    );
    for bad in ["5..5", "9..3", "0x10", "a..b"] {
        let out = probe("ieee")
            .args(["--exhaustive", "--ops", "f16:sqrt", "--range", bad])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad}");
    }
}
