//! `probe` on a real Vulkan driver: Mesa's lavapipe, which CI installs
//! (`scripts/install-vulkan.sh`). Without a Vulkan device these tests fail, naming the
//! packages to install: a probe that silently tested nothing would prove nothing.
//!
//! The full default probe runs once (with its log) and the tests share it.

use std::path::PathBuf;
use std::sync::OnceLock;

use assert_cmd::Command;
use serde_json::Value;

const INSTALL: &str = "no Vulkan device for the probe tests: install Mesa's software driver \
with `bash scripts/install-vulkan.sh` (Debian: apt-get install mesa-vulkan-drivers libvulkan1)";

fn d3dfloat() -> Command {
    let mut c = Command::cargo_bin("d3dfloat").unwrap();
    c.env("NO_COLOR", "1")
        .env_remove("D3DFLOAT_TEST_FAKE_DEVICE")
        .env_remove("D3DFLOAT_TEST_WRONG_SHADER");
    c
}

/// Fails the test, naming the packages, when no Vulkan device can be opened.
fn require_vulkan() {
    let out = d3dfloat()
        .args(["probe", "--list-devices", "--plain"])
        .output()
        .unwrap();
    assert!(
        out.status.success() && !out.stdout.is_empty(),
        "{INSTALL}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn json_lines(out: &[u8]) -> Vec<Value> {
    String::from_utf8(out.to_vec())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

struct FullRun {
    objects: Vec<Value>,
    log: PathBuf,
    code: i32,
    _dir: tempfile::TempDir,
}

/// The default probe of every instruction, with `--json` and `--emit-log`.
fn full_run() -> &'static FullRun {
    static RUN: OnceLock<FullRun> = OnceLock::new();
    RUN.get_or_init(|| {
        require_vulkan();
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("probe.log");
        let out = d3dfloat()
            .args(["probe", "--json", "--emit-log"])
            .arg(&log)
            .output()
            .unwrap();
        FullRun {
            objects: json_lines(&out.stdout),
            log,
            code: out.status.code().unwrap(),
            _dir: dir,
        }
    })
}

fn ops(run: &FullRun) -> Vec<&Value> {
    run.objects.iter().filter(|o| o["kind"] == "op").collect()
}

const F32_OPS: &[&str] = &[
    "add", "sub", "mul", "div", "mad", "dp2", "dp3", "dp4", "min", "max", "sqrt", "rsq", "rcp",
    "exp", "log", "frc", "round_ne", "round_ni", "round_pi", "round_z", "sincos", "eq", "ne", "lt",
    "ge", "gt", "le", "ftoi", "ftou", "itof", "utof", "f16tof32", "f32tof16",
];

#[test]
fn every_f32_instruction_runs_on_the_device() {
    let run = full_run();
    assert!(run.code == 0 || run.code == 1, "exit {}", run.code);
    let device = &run.objects[0];
    assert_eq!(device["kind"], "device");
    assert!(!device["name"].as_str().unwrap().is_empty());
    for key in [
        "denorm_flush_f32",
        "denorm_preserve_f16",
        "denorm_preserve_f64",
    ] {
        assert!(device["float_controls"][key].is_boolean(), "{key}");
    }
    let ops = ops(run);
    for name in F32_OPS {
        let o = ops
            .iter()
            .find(|o| o["op"] == *name && o["format"] != "f16")
            .unwrap_or_else(|| panic!("{name} not probed"));
        assert!(o.get("skipped").is_none(), "{name}: {o}");
        let lines = o["lines"].as_u64().unwrap();
        assert!(lines >= 4096, "{name}: {lines} lines");
        assert_eq!(
            o["conform"].as_u64().unwrap() + o["violate"].as_u64().unwrap(),
            lines,
            "{name}"
        );
    }
    let f16tof32 = ops.iter().find(|o| o["op"] == "f16tof32").unwrap();
    assert_eq!(f16tof32["lines"], 65536);
    // The f16 and f64 instructions run where the device has the features, else say why.
    for o in &ops {
        let family_on = match o["format"].as_str().unwrap() {
            "f16" => device["float16"] == true,
            f if f.contains("f64") => device["float64"] == true,
            _ => true,
        };
        assert_eq!(o.get("skipped").is_none(), family_on, "{o}");
    }
    let summary = run.objects.last().unwrap();
    assert_eq!(summary["kind"], "summary");
    let violate: u64 = ops.iter().map(|o| o["violate"].as_u64().unwrap_or(0)).sum();
    assert_eq!(summary["violate"], violate);
    assert_eq!(run.code, if violate > 0 { 1 } else { 0 });
}

#[test]
fn the_log_rechecked_by_op_gives_the_probe_counts() {
    let run = full_run();
    let ops = ops(run);
    let count = |half: bool, key: &str| -> u64 {
        ops.iter()
            .filter(|o| (o["format"] == "f16") == half)
            .map(|o| o[key].as_u64().unwrap_or(0))
            .sum()
    };
    let mut half_log = run.log.as_os_str().to_owned();
    half_log.push(".f16");
    for (file, fmt, half) in [
        (run.log.clone(), "f32", false),
        (PathBuf::from(half_log), "f16", true),
    ] {
        let (lines, violate) = (count(half, "lines"), count(half, "violate"));
        if lines == 0 {
            continue;
        }
        let out = d3dfloat()
            .args(["op", "--fmt", fmt, "--plain"])
            .pipe_stdin(&file)
            .unwrap()
            .output()
            .unwrap();
        let verdicts = String::from_utf8(out.stdout).unwrap();
        let violates = verdicts.lines().filter(|l| *l == "violates").count() as u64;
        let conforms = verdicts.lines().filter(|l| *l == "conforms").count() as u64;
        assert_eq!(
            (conforms + violates, violates),
            (lines, violate),
            "{fmt} log"
        );
        assert_eq!(out.status.code(), Some(if violate > 0 { 1 } else { 0 }));
    }
}

/// Parses `OP A B = R` lines of 32-bit operands.
fn logged(run: &FullRun, op: &str) -> Vec<(Vec<f32>, u32)> {
    let text = std::fs::read_to_string(&run.log).unwrap();
    let prefix = format!("{op} ");
    text.lines()
        .filter(|l| l.starts_with(&prefix))
        .map(|l| {
            let (lhs, rhs) = l.split_once(" = ").unwrap();
            let bits = |w: &str| u32::from_str_radix(w.trim_start_matches("0x"), 16).unwrap();
            let args = lhs
                .split_whitespace()
                .skip(1)
                .map(|w| f32::from_bits(bits(w)))
                .collect();
            (args, bits(rhs))
        })
        .collect()
}

#[test]
fn add_mul_div_sqrt_on_normal_values_equal_the_cpu() {
    // lavapipe computes on this CPU, so where nothing is special (normal operands, normal
    // result) its results are the CPU's IEEE results bit for bit: the shaders really ran.
    let run = full_run();
    let normal = |x: f32| x.is_normal();
    type Cpu = fn(&[f32]) -> f32;
    let ops: [(&str, Cpu); 4] = [
        ("add", |a| a[0] + a[1]),
        ("mul", |a| a[0] * a[1]),
        ("div", |a| a[0] / a[1]),
        ("sqrt", |a| a[0].sqrt()),
    ];
    for (op, cpu) in ops {
        let mut compared = 0;
        for (args, result) in logged(run, op) {
            let expect = cpu(&args);
            if args.iter().all(|&a| normal(a)) && normal(expect) {
                assert_eq!(
                    result,
                    expect.to_bits(),
                    "{op} {args:?}: device 0x{result:08x}, CPU 0x{:08x}",
                    expect.to_bits()
                );
                compared += 1;
            }
        }
        assert!(compared > 1000, "{op}: only {compared} normal lines");
    }
}

#[test]
fn a_deliberately_wrong_shader_is_caught() {
    require_vulkan();
    let run = |wrong: &str| {
        let out = d3dfloat()
            .args(["probe", "--json", "--ops", "add,exp"])
            .env("D3DFLOAT_TEST_WRONG_SHADER", wrong)
            .output()
            .unwrap();
        let objects = json_lines(&out.stdout);
        let violate = |name: &str| {
            objects
                .iter()
                .find(|o| o["op"] == name && o["format"] == "f32")
                .unwrap()["violate"]
                .as_u64()
                .unwrap()
        };
        (out.status.code(), violate("add"), violate("exp"))
    };
    let (_, add_ok, exp_ok) = run("");
    // add subtracts, exp has the lowest bit of every result flipped.
    let (code, add_bad, exp_bad) = run("add,exp");
    assert_eq!(code, Some(1));
    assert!(
        add_bad > 2000 && add_bad > 4 * add_ok,
        "add: {add_ok} -> {add_bad}"
    );
    assert!(exp_bad > exp_ok + 500, "exp: {exp_ok} -> {exp_bad}");
}

#[test]
fn human_report_names_the_device_float_controls_and_classes() {
    require_vulkan();
    let out = d3dfloat()
        .args(["probe", "--ops", "add,f32tof16", "--count", "4096"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("device   "), "{text}");
    assert!(
        text.contains("float controls requested where D3D needs them"),
        "{text}"
    );
    for key in [
        "denorm_flush_f32",
        "denorm_preserve_f16",
        "denorm_preserve_f64",
    ] {
        assert!(text.contains(key), "{key}: {text}");
    }
    assert!(text.contains("op         format      lines conform violate max ulps"));
    assert!(text.contains("f32tof16   f32->f16     4096"), "{text}");
    assert!(text.contains("instructions probed"), "{text}");
}
