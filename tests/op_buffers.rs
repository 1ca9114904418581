//! `op OP --operands ... --results ...`: whole buffers judged from files and streams, the
//! report in each style, `--violations` re-checked by `op`, and the errors.

use assert_cmd::Command;
use std::path::Path;

fn d3dfloat() -> Command {
    let mut c = Command::cargo_bin("d3dfloat").unwrap();
    c.env_remove("NO_COLOR");
    c
}

fn write_f32(path: &Path, v: &[f32]) {
    std::fs::write(
        path,
        v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>(),
    )
    .unwrap();
}

fn write_u16(path: &Path, v: &[u16]) {
    std::fs::write(
        path,
        v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>(),
    )
    .unwrap();
}

/// 100,000 square roots as the CPU computes them (correctly rounded), `broken` of them
/// one bit off in the low mantissa bits.
fn sqrt_files(dir: &Path, broken: &[usize]) {
    let x: Vec<f32> = (0..100_000).map(|i| i as f32 * 0.37 + 0.001).collect();
    let mut r: Vec<f32> = x.iter().map(|v| v.sqrt()).collect();
    for &i in broken {
        r[i] = f32::from_bits(r[i].to_bits() ^ 4);
    }
    write_f32(&dir.join("x.f32"), &x);
    write_f32(&dir.join("r.f32"), &r);
}

#[test]
fn correct_buffers_conform_and_broken_lines_are_listed_for_op() {
    let dir = tempfile::tempdir().unwrap();
    sqrt_files(dir.path(), &[]);
    d3dfloat()
        .current_dir(dir.path())
        .args([
            "op",
            "sqrt",
            "--operands",
            "x.f32",
            "--results",
            "r.f32",
            "--plain",
        ])
        .assert()
        .success()
        .stdout("sqrt f32 100000 100000 0 0 0\ntotal 100000 0\n");

    sqrt_files(dir.path(), &[5, 777, 99_999]);
    let out = d3dfloat()
        .current_dir(dir.path())
        .args(["op", "sqrt", "--operands", "x.f32", "--results", "r.f32"])
        .args(["--violations", "bad.txt", "--json"])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let objects: Vec<serde_json::Value> = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(objects[0]["kind"], "buffers");
    assert_eq!(objects[0]["operands"][0], "x.f32");
    assert_eq!(objects[1]["violate"], 3);
    assert_eq!(objects[1]["conform"], 99_997);
    let example = objects[1]["classes"][0]["example"].as_str().unwrap();
    assert!(example.starts_with("d3dfloat op sqrt 0x"), "{example}");
    // The example is pasteable: it violates on its own.
    let words: Vec<&str> = example.split(' ').skip(1).collect();
    d3dfloat().args(&words).assert().code(1);
    // Every violating line, in index order, and op agrees with each.
    let log = std::fs::read_to_string(dir.path().join("bad.txt")).unwrap();
    assert_eq!(log.lines().count(), 3);
    assert!(
        log.lines()
            .all(|l| l.starts_with("sqrt 0x") && l.contains(" = 0x"))
    );
    // Each line names its element (issue 38), after a comment mark `op` skips.
    for (line, index) in log.lines().zip([5, 777, 99_999]) {
        let x = (index as f32 * 0.37 + 0.001).to_bits();
        assert!(line.starts_with(&format!("sqrt 0x{x:08x} = ")), "{line}");
        assert!(line.ends_with(&format!("  # index {index}")), "{line}");
    }
    // Every line's largest distance is the broken results' (4 ULPs), the conforming
    // lines' 0.
    assert_eq!(
        (
            objects[1]["max_ulps"].as_u64(),
            objects[1]["max_distance"].as_u64()
        ),
        (Some(0), Some(4))
    );
    // `--list`: the violating indexes in JSON (up to --limit) and CSV.
    let out = d3dfloat()
        .current_dir(dir.path())
        .args(["op", "sqrt", "--operands", "x.f32", "--results", "r.f32"])
        .args(["--list", "--limit", "2", "--json"])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    let op: serde_json::Value = serde_json::from_str(text.lines().nth(1).unwrap()).unwrap();
    let listed: Vec<u64> = op["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["index"].as_u64().unwrap())
        .collect();
    assert_eq!(listed, [5, 777]);
    assert_eq!(op["violate"], 3);
    let out = d3dfloat()
        .current_dir(dir.path())
        .args([
            "op",
            "sqrt",
            "--operands",
            "x.f32",
            "--results",
            "r.f32",
            "--list",
            "--csv",
        ])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    let listed: Vec<&str> = text.split("\n\n").nth(1).unwrap().lines().collect();
    assert_eq!(listed.len(), 4, "{text}");
    assert_eq!(listed[0], "op,format,index,class");
    assert!(listed[3].starts_with("sqrt,f32,99999,"), "{text}");
    d3dfloat()
        .args(["op", "--plain"])
        .write_stdin(log)
        .assert()
        .code(1)
        .stdout("violates\nviolates\nviolates\n");
}

#[test]
fn two_operand_f16_buffers_and_the_human_view() {
    let dir = tempfile::tempdir().unwrap();
    // Every f16 pattern against 1.0, summed as f32 and rounded by the half crate.
    let a: Vec<u16> = (0..=u16::MAX).collect();
    let b = vec![0x3c00u16; a.len()];
    let r: Vec<u16> = a
        .iter()
        .map(|&x| half::f16::from_f32(half::f16::from_bits(x).to_f32() + 1.0).to_bits())
        .collect();
    write_u16(&dir.path().join("a.f16"), &a);
    write_u16(&dir.path().join("b.f16"), &b);
    write_u16(&dir.path().join("r.f16"), &r);
    let out = d3dfloat()
        .current_dir(dir.path())
        .args(["op", "--fmt", "f16", "add", "--operands", "a.f16,b.f16"])
        .args(["--results", "r.f16"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("operands a.f16, b.f16"), "{text}");
    assert!(
        text.contains("add        f16         65536   65536       0"),
        "{text}"
    );
    assert!(text.contains("1 instruction judged, 65536 lines"), "{text}");
}

#[test]
fn lengths_that_disagree_name_the_file_and_both_lengths() {
    let dir = tempfile::tempdir().unwrap();
    sqrt_files(dir.path(), &[]);
    let x = std::fs::read(dir.path().join("x.f32")).unwrap();
    std::fs::write(dir.path().join("short.f32"), &x[..x.len() - 4]).unwrap();
    std::fs::write(dir.path().join("odd.f32"), &x[..x.len() - 1]).unwrap();
    let err = |args: &[&str], stdin: Option<Vec<u8>>| {
        let mut c = d3dfloat();
        c.current_dir(dir.path()).arg("op").args(args);
        if let Some(s) = stdin {
            c.write_stdin(s);
        }
        let out = c.assert().code(2).get_output().clone();
        assert!(out.stdout.is_empty());
        let e = String::from_utf8(out.stderr).unwrap();
        assert_eq!(e.lines().count(), 1, "{e}");
        e
    };
    let e = err(
        &[
            "sqrt",
            "--operands",
            "x.f32",
            "--results",
            "short.f32",
            "--violations",
            "v.txt",
        ],
        None,
    );
    assert!(
        e.contains("short.f32 holds 399996 bytes where the 100000 lines of x.f32 (400000 bytes) need 400000"),
        "{e}"
    );
    assert!(!dir.path().join("v.txt").exists(), "no log after an error");
    // A stream tells its length only as it ends.
    let e = err(
        &["sqrt", "--operands", "/dev/stdin", "--results", "short.f32"],
        Some(x.clone()),
    );
    assert!(e.contains("short.f32 holds 399996 bytes"), "{e}");
    let e = err(
        &["sqrt", "--operands", "short.f32", "--results", "/dev/stdin"],
        Some(x.clone()),
    );
    assert!(
        e.contains("/dev/stdin holds more than the 99999 lines of short.f32"),
        "{e}"
    );
    let e = err(
        &["sqrt", "--operands", "odd.f32", "--results", "x.f32"],
        None,
    );
    assert!(
        e.contains("odd.f32 holds 399999 bytes, not a whole number of 4-byte lines"),
        "{e}"
    );
    let e = err(&["add", "--operands", "x.f32", "--results", "x.f32"], None);
    assert!(
        e.contains("add takes 2 operands, --operands names 1 file"),
        "{e}"
    );
    let e = err(&["sqrt", "--operands", "x.f32"], None);
    assert!(e.contains("--operands and --results go together"), "{e}");
    let e = err(
        &["sqrt", "1", "--operands", "x.f32", "--results", "x.f32"],
        None,
    );
    assert!(e.contains("remove '1'"), "{e}");
    let e = err(
        &["sqrtt", "--operands", "x.f32", "--results", "x.f32"],
        None,
    );
    assert!(e.contains("unknown instruction 'sqrtt'"), "{e}");
    let e = err(
        &["sqrt", "--operands", "nope.f32", "--results", "x.f32"],
        None,
    );
    assert!(e.contains("nope.f32"), "{e}");
}

#[test]
fn three_operands_and_d3d10_rules() {
    let dir = tempfile::tempdir().unwrap();
    let n = 50_000;
    let a: Vec<f32> = (0..n).map(|i| 1.0 + i as f32 * 1e-3).collect();
    let b: Vec<f32> = (0..n).map(|i| 3.0 - i as f32 * 1e-5).collect();
    let c: Vec<f32> = (0..n).map(|i| -(i as f32) * 0.5).collect();
    // Fused (one rounding) and unfused (two) results both conform.
    let fused: Vec<f32> = (0..n).map(|i| a[i].mul_add(b[i], c[i])).collect();
    let unfused: Vec<f32> = (0..n).map(|i| a[i] * b[i] + c[i]).collect();
    for (name, v) in [
        ("a", &a),
        ("b", &b),
        ("c", &c),
        ("f", &fused),
        ("u", &unfused),
    ] {
        write_f32(&dir.path().join(name), v);
    }
    for (results, rules) in [("f", "d3d11"), ("u", "d3d11"), ("u", "d3d10")] {
        let out = d3dfloat()
            .current_dir(dir.path())
            .args([
                "op",
                "--rules",
                rules,
                "mad",
                "--operands",
                "a,b,c",
                "--results",
                results,
            ])
            .arg("--plain")
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with(&format!("mad f32 {n} {n} 0 ")), "{text}");
        assert!(text.ends_with(&format!("\ntotal {n} 0\n")), "{text}");
    }
}

/// `op --plain` judges runs of checked lines through the judge over slices; every verdict
/// must be the one a full evaluation gives (`--json` evaluates every line).
#[test]
fn plain_batches_through_the_judge_give_the_evaluations_verdicts() {
    let mut state = 0x1234_5678_9abc_def0u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut text = String::new();
    for i in 0..6000 {
        let mut f = || {
            let r = next();
            let exp = 100 + (r % 56) as u32;
            f32::from_bits(((r >> 8) as u32 & 0x807f_ffff) | (exp << 23))
        };
        let (a, b, c) = (f(), f(), f());
        let h = |x: f32| format!("0x{:08x}", x.to_bits());
        let nudge = |x: f32, k: u64| f32::from_bits(x.to_bits() ^ (k % 3) as u32);
        let k = next();
        // Runs of one instruction, then another, some lines unchecked or with values.
        let line = match (i / 7) % 9 {
            0 => format!("add {} {} = {}", h(a), h(b), h(nudge(a + b, k))),
            1 => format!("mul {} {} = {}", h(a), h(b), h(nudge(a * b, k))),
            2 => format!("sqrt {} = {}", h(a.abs()), h(nudge(a.abs().sqrt(), k))),
            3 => format!(
                "mad {} {} {} = {}",
                h(a),
                h(b),
                h(c),
                h(nudge(a.mul_add(b, c), k))
            ),
            4 => format!("div {} {} = {}", h(a), h(b), h(nudge(a / b, k))),
            5 => format!(
                "eq {} {} = {}",
                h(a),
                h(a),
                ["true", "false", "0xffffffff"][k as usize % 3]
            ),
            6 => format!(
                "sincos 1.5 = {},{}",
                h(1.5f32.sin()),
                h(nudge(1.5f32.cos(), k))
            ),
            7 if k % 2 == 0 => format!("sincos {} = {}", h(a), h(a.sin())),
            7 => format!("add {} {}", h(a), h(b)),
            _ => format!(
                "dp3 1,2,{} 0.5,{},1 = {}",
                h(a),
                h(b),
                h(nudge(1.0 + 2.0 * b + a, k))
            ),
        };
        text.push_str(&line);
        text.push('\n');
    }
    let run = |style: &str| {
        d3dfloat()
            .args(["op", style])
            .write_stdin(text.clone())
            .assert()
            .code(1)
            .get_output()
            .stdout
            .clone()
    };
    let plain = String::from_utf8(run("--plain")).unwrap();
    let json = String::from_utf8(run("--json")).unwrap();
    let plain: Vec<&str> = plain.lines().collect();
    let json: Vec<serde_json::Value> = json
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|v: &serde_json::Value| v.get("summary").is_none())
        .collect();
    assert_eq!(plain.len(), 6000);
    assert_eq!(json.len(), 6000);
    let (mut conform, mut violate) = (0, 0);
    for (i, (p, j)) in plain.iter().zip(&json).enumerate() {
        match j.get("conforms").and_then(|c| c.as_bool()) {
            Some(true) => {
                conform += 1;
                assert_eq!(
                    *p,
                    "conforms",
                    "line {}: {}",
                    i + 1,
                    text.lines().nth(i).unwrap()
                )
            }
            Some(false) => {
                violate += 1;
                assert_eq!(
                    *p,
                    "violates",
                    "line {}: {}",
                    i + 1,
                    text.lines().nth(i).unwrap()
                )
            }
            None => assert!(p.starts_with("0x"), "line {}: {p}", i + 1),
        }
    }
    assert!(conform > 1000 && violate > 1000, "{conform} {violate}");
}
