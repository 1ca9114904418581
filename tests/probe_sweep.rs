//! `probe --exhaustive`: every input of an instruction. On lavapipe (which CI installs,
//! `scripts/install-vulkan.sh`), the operands the shader makes from the invocation index
//! are held to the ones the host makes (the same results word for word, judged alike), the
//! f16 unary sweeps run whole, a 2^24-line slice of an f32 sweep runs, and a shader built
//! wrong on purpose is caught. With the in-process fake device, Ctrl-C ends a sweep with
//! the partial report and exit 130.

use std::process::Stdio;
use std::time::Duration;

use assert_cmd::Command;
use assert_cmd::cargo::CommandCargoExt;
use d3dfloat::d3d::RuleSet;
use d3dfloat::judge::Family;
use d3dfloat::judge::{Buffer, Judge, Options};
use d3dfloat::probe::Device;
use d3dfloat::probe::catalog::all_kernels;
use d3dfloat::probe::results::result_buffer;
use d3dfloat::probe::sweep::CHUNK_LINES;
use d3dfloat::probe::vulkan::Vulkan;
use serde_json::Value;

const INSTALL: &str = "no Vulkan device for the sweep tests: install Mesa's software driver \
with `bash scripts/install-vulkan.sh` (Debian: apt-get install mesa-vulkan-drivers libvulkan1)";

fn d3dfloat() -> Command {
    let mut c = Command::cargo_bin("d3dfloat").unwrap();
    c.env("NO_COLOR", "1")
        .env_remove("D3DFLOAT_TEST_FAKE_DEVICE")
        .env_remove("D3DFLOAT_TEST_WRONG_SHADER");
    c
}

fn json_lines(out: &[u8]) -> Vec<Value> {
    String::from_utf8(out.to_vec())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn operands_made_on_the_device_are_the_ones_the_host_makes() {
    let vulkan = Vulkan::open().expect(INSTALL);
    let mut device = vulkan
        .open_device(None, Vec::new(), Vec::new())
        .expect(INSTALL);
    let kernels: Vec<_> = all_kernels()
        .into_iter()
        .filter(|k| k.sweep().is_some())
        .filter(|k| device.unsupported(k).is_none())
        .collect();
    assert!(
        kernels.iter().any(|k| k.family == Family::F16),
        "lavapipe has f16"
    );
    for k in &kernels {
        // Two chunks of each sweep, the second from the middle (for 2^32 sweeps, where the
        // high half of a pair's index changes).
        let sweep = k.sweep().unwrap();
        for base in [0, (sweep / 2).min(sweep - sweep.min(CHUNK_LINES))] {
            let n = CHUNK_LINES.min(sweep - base) as usize;
            let indexed = device.run_indexed(k, base, n).unwrap();
            let words: Vec<u32> = (0..n as u64)
                .flat_map(|i| k.sweep_words(base + i).into_iter().take(k.operands))
                .collect();
            let uploaded = device.run(k, &words, n).unwrap();
            assert!(indexed == uploaded, "{} {:?} at {base}", k.name, k.family);
        }
    }
}

#[test]
fn f16_unary_sweeps_run_whole_and_agree_with_the_judge_on_the_cpu() {
    let vulkan = Vulkan::open().expect(INSTALL);
    let mut device = vulkan
        .open_device(None, Vec::new(), Vec::new())
        .expect(INSTALL);
    let out = d3dfloat()
        .args(["probe", "--exhaustive", "--json", "--ops"])
        .arg("f16:sqrt,f16:rsq,f16:rcp,f16:exp,f16:log,f16:frc,f16:round_ne,f16tof32")
        .assert()
        .get_output()
        .clone();
    let objects = json_lines(&out.stdout);
    let ops: Vec<&Value> = objects.iter().filter(|o| o["kind"] == "op").collect();
    assert_eq!(ops.len(), 8);
    for op in ops {
        assert_eq!(op["lines"], 65536, "{op}");
        assert_eq!(op["exhaustive"], true);
        let name = op["op"].as_str().unwrap();
        let k = all_kernels()
            .into_iter()
            .find(|k| {
                k.name == name
                    && (k.family == Family::F16) == (op["format"] == "f16")
                    && k.sweep().is_some()
            })
            .unwrap();
        // The same sweep through the buffer path and the library's judge, on this CPU.
        let words: Vec<u32> = (0..65536u32).collect();
        let results = device.run(&k, &words, 65536).unwrap();
        let judge = Judge::new(k.op, k.format, RuleSet::D3D11);
        let operands = Buffer::from_patterns(
            d3dfloat::judge::Elem::of(&judge.operand_domain()),
            (0..65536u64).map(|i| k.sweep_words(i)[0] as u64),
        );
        let res = result_buffer(&k, &judge, &results);
        let v = judge
            .run(&[operands.column()], res.column(), &Options::default())
            .unwrap();
        assert_eq!(op["conform"], v.conform, "{name}");
        assert_eq!(op["violate"], v.violate, "{name}");
        assert_eq!(op["max_ulps"], v.max_ulps, "{name}");
        let counted: u64 = op["histogram"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["count"].as_u64().or(b["nan"].as_u64()).unwrap())
            .sum();
        assert_eq!(counted, 65536, "{name}: the histogram counts every line");
    }
}

#[test]
fn a_slice_of_an_f32_sweep_and_a_wrong_shader() {
    let first = 1u64 << 24;
    let out = d3dfloat()
        .args(["probe", "--exhaustive", "--ops", "f32:sqrt", "--first"])
        .arg(first.to_string())
        .arg("--json")
        .assert()
        .get_output()
        .clone();
    let objects = json_lines(&out.stdout);
    let op = &objects[1];
    assert_eq!(op["lines"], first, "{op}");
    // The same inputs uploaded (the buffer shader), judged here through the library: the
    // same counts and the same distances.
    let vulkan = Vulkan::open().expect(INSTALL);
    let mut device = vulkan
        .open_device(None, Vec::new(), Vec::new())
        .expect(INSTALL);
    let k = all_kernels()
        .into_iter()
        .find(|k| k.name == "sqrt" && k.family == Family::F32)
        .unwrap();
    let judge = Judge::new(k.op, k.format, RuleSet::D3D11);
    let mut total = d3dfloat::judge::Verdict::default();
    for base in (0..first).step_by(CHUNK_LINES as usize) {
        let n = CHUNK_LINES as usize;
        let words: Vec<u32> = (base..base + n as u64).map(|i| i as u32).collect();
        let results = device.run(&k, &words, n).unwrap();
        let operands = Buffer::U32(words);
        let res = result_buffer(&k, &judge, &results);
        let v = judge
            .run(&[operands.column()], res.column(), &Options::default())
            .unwrap();
        total.merge(v, 0);
    }
    assert_eq!(op["conform"], total.conform);
    assert_eq!(op["violate"], total.violate);
    assert_eq!(op["max_distance"], total.max_distance);
    assert!(
        total.violate > 0,
        "lavapipe does not flush the denorm inputs"
    );
    // A shader built wrong on purpose: every result has its lowest bit flipped.
    let out = d3dfloat()
        .env("D3DFLOAT_TEST_WRONG_SHADER", "round_z")
        .args([
            "probe",
            "--exhaustive",
            "--ops",
            "round_z",
            "--first",
            "65536",
            "--json",
        ])
        .assert()
        .code(1)
        .get_output()
        .clone();
    let objects = json_lines(&out.stdout);
    assert_eq!(objects[1]["violate"], 65536, "{}", objects[1]);
}

#[test]
fn ctrl_c_ends_a_sweep_with_the_partial_report() {
    // The fake device computes on this CPU: a 2^32 sweep takes far longer than the wait.
    let child = std::process::Command::cargo_bin("d3dfloat")
        .unwrap()
        .env("D3DFLOAT_TEST_FAKE_DEVICE", "ieee")
        .args(["probe", "--exhaustive", "--ops", "round_ne", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(3));
    let killed = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let objects = json_lines(&out.stdout);
    let op = &objects[1];
    assert_eq!(op["exhaustive"], true);
    assert_eq!(op["complete"], false);
    let lines = op["lines"].as_u64().unwrap();
    assert!(lines > 0 && lines < 1 << 32, "{op}");
    assert_eq!(lines % CHUNK_LINES, 0, "whole chunks are judged: {op}");
    // round_ne's f16 sweep comes after: it never ran.
    assert_eq!(objects[2]["skipped"], "interrupted before it ran");
    let summary = objects.last().unwrap();
    assert_eq!(summary["partial"], true);
}
