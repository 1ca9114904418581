//! `d3dfloat op --asm` and `op --expr` from the outside: every output style, `--check`
//! at and just past the interval's ends, exact values worked out here, the rule sets and
//! f16, buffers written here from a conforming computation, and hostile input (exit 2 with
//! one line on stderr, quickly).

use std::path::Path;
use std::time::{Duration, Instant};

use assert_cmd::Command;
use serde_json::Value;

const NORMALIZE: &str = "dp3 r0.x, v0.xyz, v0.xyz; rsq r0.x, r0.x; mul r1.xyz, r0.xxx, v0.xyz";

fn op() -> Command {
    let mut c = Command::cargo_bin("d3dfloat").unwrap();
    c.arg("op").env("NO_COLOR", "1");
    c
}

/// Runs `op ARGS`, expecting `code`, and returns stdout.
fn run(args: &[&str], code: i32) -> String {
    let a = op().args(args).assert().code(code);
    let out = a.get_output();
    assert!(
        out.stderr.is_empty(),
        "{args:?} wrote to stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn json_lines(args: &[&str]) -> Vec<Value> {
    let mut all = args.to_vec();
    all.push("--json");
    run(&all, 0)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect()
}

/// Expects exit 2 with one line on stderr holding `needle`, no stdout, within a few
/// seconds (debug build).
fn refused(args: &[&str], needle: &str) {
    let start = Instant::now();
    let a = op()
        .args(args)
        .timeout(Duration::from_secs(60))
        .assert()
        .code(2);
    let out = a.get_output();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.stdout.is_empty(), "{args:?} wrote to stdout");
    assert_eq!(err.lines().count(), 1, "{args:?}: stderr {err}");
    assert!(err.starts_with("d3dfloat: error: "), "{err}");
    assert!(err.contains(needle), "{args:?}: {err} lacks {needle}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "{:?} took {:?}",
        args.iter()
            .map(|a| a.chars().take(60).collect::<String>())
            .collect::<Vec<_>>(),
        start.elapsed()
    );
}

fn bits(v: &Value) -> u32 {
    u32::from_str_radix(v.as_str().unwrap().trim_start_matches("0x"), 16).unwrap()
}

fn hex32(b: u32) -> String {
    format!("0x{b:08x}")
}

// ---------------------------------------------------------------- output styles

#[test]
fn asm_json_has_every_field() {
    let v = json_lines(&["--asm", NORMALIZE, "--input", "v0=1,2,3"]);
    assert_eq!(v.len(), 3);
    for ((line, comp), x) in v.iter().zip(["r1.x", "r1.y", "r1.z"]).zip([1.0, 2.0, 3.0]) {
        assert_eq!(line["schema"], 1);
        assert_eq!(line["component"], comp);
        assert_eq!(line["format"], "f32");
        assert_eq!(line["rules"], "d3d11");
        assert_eq!(line["asm"], NORMALIZE);
        assert!(line.get("expr").is_none());
        assert_eq!(line["sequences"], serde_json::json!(["as written"]));
        assert_eq!(line["order"], "as-written");
        assert_eq!(line["nan"], false);
        let (lo, hi, exact) = (bits(&line["lo"]), bits(&line["hi"]), bits(&line["exact"]));
        assert!(lo <= hi && lo <= exact && exact <= hi, "{line}");
        assert_eq!(line["ulps"], u64::from(hi - lo));
        assert_eq!(
            line["lo_value"].as_str().unwrap().parse::<f32>().unwrap(),
            f32::from_bits(lo)
        );
        assert_eq!(
            line["hi_value"].as_str().unwrap().parse::<f32>().unwrap(),
            f32::from_bits(hi)
        );
        // The exact value: x / sqrt(14), computed here in f64.
        let want = x / 14f64.sqrt();
        let got: f64 = line["exact_value"].as_str().unwrap().parse().unwrap();
        assert!((got - want).abs() < 1e-15, "{got} {want}");
        assert_eq!(exact, (want as f32).to_bits());
        // The set lists every pattern between the ends here (9 or 14 of them).
        let set: Vec<u32> = line["set"].as_array().unwrap().iter().map(bits).collect();
        assert_eq!(set.first(), Some(&lo));
        assert_eq!(set.last(), Some(&hi));
        assert!(line.get("result").is_none() && line.get("conforms").is_none());
    }
}

#[test]
fn expr_json_names_the_expression_and_its_compilers() {
    let v = json_lines(&["--expr", "normalize(float3(1, 2, 3))"]);
    assert_eq!(v.len(), 3);
    let asm = json_lines(&["--asm", NORMALIZE, "--input", "v0=1,2,3"]);
    for (e, a) in v.iter().zip(&asm) {
        assert_eq!(e["schema"], 1);
        assert_eq!(e["expr"], "normalize(float3(1, 2, 3))");
        assert!(e.get("asm").is_none());
        assert!(e["component"].as_str().unwrap().starts_with("o0."));
        let seq = e["sequences"].as_array().unwrap();
        assert!(!seq.is_empty());
        assert!(
            seq.iter().any(|s| s.as_str().unwrap().contains("fxc")),
            "{seq:?}"
        );
        // The compilers' sequence is the assembly above: the same answer.
        for k in ["lo", "hi", "exact", "nan", "ulps"] {
            assert_eq!(e[k], a[k], "{k}");
        }
    }
    // A variable through --input gives the same.
    let named = json_lines(&["--expr", "normalize(a)", "--input", "a=1,2,3"]);
    for (n, e) in named.iter().zip(&v) {
        assert_eq!(n["lo"], e["lo"]);
        assert_eq!(n["hi"], e["hi"]);
        assert_eq!(n["expr"], "normalize(a)");
    }
}

#[test]
fn csv_has_the_header_and_a_row_per_component() {
    for args in [
        vec!["--asm", NORMALIZE, "--input", "v0=1,2,3", "--csv"],
        vec!["--expr", "normalize(float3(1, 2, 3))", "--csv"],
    ] {
        let text = run(&args, 0);
        let mut lines = text.lines();
        assert_eq!(
            lines.next().unwrap(),
            "component,lo,hi,nan,exact,lo_value,hi_value,ulps,result,conforms"
        );
        let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
        assert_eq!(rows.len(), 3);
        for r in &rows {
            assert_eq!(r.len(), 10, "{r:?}");
            assert_eq!(r[3], "false");
            assert_eq!(r[8], "");
            assert_eq!(r[9], "");
        }
        assert_eq!(rows[0][1], "0x3e88d673");
        assert_eq!(rows[0][2], "0x3e88d67b");
        assert_eq!(rows[0][7], "8");
    }
    let checked = run(
        &[
            "--asm",
            NORMALIZE,
            "--input",
            "v0=1,2,3",
            "--csv",
            "--check",
            "0x3e88d673,0x3f08d67c,0x3f4d41b3",
        ],
        1,
    );
    let rows: Vec<Vec<&str>> = checked
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    assert_eq!(rows[0][8..], ["0x3e88d673", "true"]);
    assert_eq!(rows[1][8..], ["0x3f08d67c", "false"]);
    assert_eq!(rows[2][8..], ["0x3f4d41b3", "true"]);
}

#[test]
fn plain_is_component_lo_hi_exact() {
    assert_eq!(
        run(&["--asm", NORMALIZE, "--input", "v0=1,2,3", "--plain"], 0),
        "r1.x 0x3e88d673 0x3e88d67b 0x3e88d677\n\
         r1.y 0x3f08d673 0x3f08d67b 0x3f08d677\n\
         r1.z 0x3f4d41ac 0x3f4d41b9 0x3f4d41b3\n"
    );
    assert_eq!(
        run(&["--expr", "normalize(float3(1, 2, 3))", "--plain"], 0),
        "o0.x 0x3e88d673 0x3e88d67b 0x3e88d677\n\
         o0.y 0x3f08d673 0x3f08d67b 0x3f08d677\n\
         o0.z 0x3f4d41ac 0x3f4d41b9 0x3f4d41b3\n"
    );
    // --output picks the register and components.
    assert_eq!(
        run(
            &[
                "--asm", NORMALIZE, "--input", "v0=1,2,3", "--output", "r1.y", "--plain"
            ],
            0
        ),
        "r1.y 0x3f08d673 0x3f08d67b 0x3f08d677\n"
    );
    assert_eq!(
        run(
            &[
                "--asm", NORMALIZE, "--input", "v0=1,2,3", "--output", "r0.x", "--plain"
            ],
            0
        )
        .split(' ')
        .next(),
        Some("r0.x")
    );
}

#[test]
fn human_shows_allowed_exact_and_set() {
    let text = run(&["--asm", NORMALIZE, "--input", "v0=1,2,3"], 0);
    assert!(text.starts_with(&format!("{NORMALIZE} (f32, d3d11 rules)\n")));
    assert!(text.contains("note: each instruction is bounded as written"));
    assert!(text.contains("r1.x\n  allowed  [0x3e88d673, 0x3e88d67b]"));
    assert!(text.contains("(8 ULPs wide)"));
    assert!(text.contains("  exact    0x3e88d677"));
    assert!(text.contains("  set      9 reachable: 0x3e88d673"));
    let e = run(&["--expr", "normalize(float3(1, 2, 3))"], 0);
    assert!(e.contains("sequences: "), "{e}");
    assert!(e.contains("o0.z\n  allowed  [0x3f4d41ac, 0x3f4d41b9]"));
    let checked = run(
        &[
            "--asm",
            "mul r0.x, v0.x, v0.y",
            "--input",
            "v0=3,5",
            "--check",
            "16",
        ],
        1,
    );
    assert!(
        checked.contains("check    0x41800000  VIOLATES"),
        "{checked}"
    );
}

// ---------------------------------------------------------------- --check

/// Each component's lo and hi conform, one ULP past either end violates.
#[test]
fn check_at_the_ends_and_one_ulp_past() {
    let v = json_lines(&["--asm", NORMALIZE, "--input", "v0=1,2,3"]);
    let lo: Vec<u32> = v.iter().map(|l| bits(&l["lo"])).collect();
    let hi: Vec<u32> = v.iter().map(|l| bits(&l["hi"])).collect();
    let claim = |b: &[u32]| b.iter().map(|&x| hex32(x)).collect::<Vec<_>>().join(",");
    for ends in [&lo, &hi] {
        let out = run(
            &[
                "--asm",
                NORMALIZE,
                "--input",
                "v0=1,2,3",
                "--plain",
                "--check",
                &claim(ends),
            ],
            0,
        );
        assert_eq!(out.matches(" conforms\n").count(), 3, "{out}");
    }
    // All positive: the pattern below lo is one ULP smaller, above hi one larger.
    for k in 0..3 {
        for (ends, step) in [(&lo, -1i64), (&hi, 1)] {
            let mut c = ends.clone();
            c[k] = (c[k] as i64 + step) as u32;
            let out = run(
                &[
                    "--asm",
                    NORMALIZE,
                    "--input",
                    "v0=1,2,3",
                    "--plain",
                    "--check",
                    &claim(&c),
                ],
                1,
            );
            let verdicts: Vec<&str> = out.lines().map(|l| l.rsplit(' ').next().unwrap()).collect();
            for (i, w) in verdicts.iter().enumerate() {
                assert_eq!(*w, if i == k { "violates" } else { "conforms" }, "{out}");
            }
            // JSON says the same.
            let a = op()
                .args([
                    "--asm",
                    NORMALIZE,
                    "--input",
                    "v0=1,2,3",
                    "--json",
                    "--check",
                    &claim(&c),
                ])
                .assert()
                .code(1);
            let lines: Vec<Value> = String::from_utf8(a.get_output().stdout.clone())
                .unwrap()
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect();
            for (i, l) in lines.iter().enumerate() {
                assert_eq!(l["conforms"], i != k);
                assert_eq!(l["result"], hex32(c[i]));
            }
        }
    }
}

#[test]
fn check_with_values_and_the_expression() {
    // Values are read as the format reads them: 15 is 0x41700000.
    run(
        &[
            "--asm",
            "mul r0.x, v0.x, v0.y",
            "--input",
            "v0=3,5",
            "--check",
            "15",
            "--plain",
        ],
        0,
    );
    run(
        &[
            "--expr", "a * b", "--input", "a=3", "--input", "b=5", "--check", "15", "--plain",
        ],
        0,
    );
    run(
        &[
            "--expr",
            "a * b",
            "--input",
            "a=3",
            "--input",
            "b=5",
            "--check",
            "15.000001",
        ],
        1,
    );
}

// ---------------------------------------------------------------- exact values

/// Sequences whose exact result is representable: lo = hi = exact = the value computed
/// here, under either rule set for products and sums that are exact.
#[test]
fn exact_sequences_give_a_single_point() {
    let cases: [(&str, &str, f32); 4] = [
        ("mul r0.x, v0.x, v0.y", "v0=3,5", 15.0),
        (
            "add r0.x, v0.x, v0.y; mul r0.x, r0.x, v0.z",
            "v0=1.5,2.25,4",
            (1.5 + 2.25) * 4.0,
        ),
        (
            "mul r0.x, v0.x, v0.x; add r1.x, r0.x, v0.y",
            "v0=0.5,-0.125",
            0.25 - 0.125,
        ),
        (
            "mad r0.x, v0.x, v0.y, v0.z; add r0.x, r0.x, r0.x",
            "v0=2,3,1",
            14.0,
        ),
    ];
    for (asm, input, want) in cases {
        let v = json_lines(&["--asm", asm, "--input", input]);
        assert_eq!(v.len(), 1, "{asm}");
        let l = &v[0];
        let w = hex32(want.to_bits());
        assert_eq!(l["lo"], w, "{asm}");
        assert_eq!(l["hi"], w, "{asm}");
        assert_eq!(l["exact"], w, "{asm}");
        assert_eq!(l["ulps"], 0);
        assert_eq!(
            l["exact_value"].as_str().unwrap().parse::<f32>().unwrap(),
            want
        );
        assert_eq!(l["set"], serde_json::json!([w]));
    }
}

/// For products and sums of small integers the exact value lies in [lo, hi] and is the
/// sum or product computed here.
#[test]
fn exact_value_lies_within_the_interval() {
    let mut rng = 0x1234_5678u64;
    for _ in 0..20 {
        rng = rng
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let a = ((rng >> 33) % 1000) as f64 / 8.0;
        let b = ((rng >> 13) % 1000) as f64 / 16.0;
        let c = ((rng >> 45) % 100) as f64 + 0.1;
        let input = format!("v0={a},{b},{c}");
        let v = json_lines(&[
            "--asm",
            "mul r0.x, v0.x, v0.y; add r0.x, r0.x, v0.z",
            "--input",
            &input,
        ]);
        let l = &v[0];
        let c32 = c as f32 as f64;
        let want = a * b + c32;
        let got: f64 = l["exact_value"].as_str().unwrap().parse().unwrap();
        assert!((got - want).abs() <= want.abs() * 1e-15, "{got} {want}");
        let (lo, hi, ex) = (bits(&l["lo"]), bits(&l["hi"]), bits(&l["exact"]));
        assert!(lo <= ex && ex <= hi, "{l}");
        assert_eq!(ex, (want as f32).to_bits(), "{input}");
    }
}

// ---------------------------------------------------------------- rules, formats, NaN

#[test]
fn d3d10_allows_more_than_d3d11_for_add() {
    let asm = "add r0.x, v0.x, v0.y; mul r0.x, r0.x, v0.z";
    let d11 = json_lines(&["--asm", asm, "--input", "v0=1,1e-8,3"]);
    let d10 = json_lines(&["--asm", asm, "--input", "v0=1,1e-8,3", "--rules", "d3d10"]);
    assert_eq!(d11[0]["rules"], "d3d11");
    assert_eq!(d10[0]["rules"], "d3d10");
    let w11 = d11[0]["ulps"].as_u64().unwrap();
    let w10 = d10[0]["ulps"].as_u64().unwrap();
    assert!(w10 > w11, "d3d10 {w10} d3d11 {w11}");
    // d3d11 rounds 1 + 1e-8 to 1, and 3 is exact: a single point.
    assert_eq!(d11[0]["lo"], hex32(3f32.to_bits()));
    assert_eq!(d11[0]["hi"], hex32(3f32.to_bits()));
    assert!(bits(&d10[0]["lo"]) <= bits(&d11[0]["lo"]));
    assert!(bits(&d10[0]["hi"]) > bits(&d11[0]["hi"]));
}

#[test]
fn f16_works() {
    let v = json_lines(&[
        "--fmt",
        "f16",
        "--asm",
        "mul r0.x, v0.x, v0.y",
        "--input",
        "v0=3,5",
    ]);
    assert_eq!(v[0]["format"], "f16");
    assert_eq!(v[0]["lo"], "0x4b80");
    assert_eq!(v[0]["hi"], "0x4b80");
    assert_eq!(v[0]["exact"], "0x4b80");
    let e = json_lines(&["--fmt", "f16", "--expr", "normalize(float3(1, 2, 3))"]);
    assert_eq!(e.len(), 3);
    for l in &e {
        assert_eq!(l["format"], "f16");
        assert_eq!(l["lo"].as_str().unwrap().len(), 6, "{l}");
        let (lo, hi, ex) = (
            u16::from_str_radix(&l["lo"].as_str().unwrap()[2..], 16).unwrap(),
            u16::from_str_radix(&l["hi"].as_str().unwrap()[2..], 16).unwrap(),
            u16::from_str_radix(&l["exact"].as_str().unwrap()[2..], 16).unwrap(),
        );
        assert!(lo <= ex && ex <= hi, "{l}");
    }
    // 0x3b6a is about 0.8555: far from z = 0.8018.
    run(
        &[
            "--fmt",
            "f16",
            "--expr",
            "normalize(float3(1, 2, 3))",
            "--check",
            "0x3446,0x3846,0x3b6a",
            "--plain",
        ],
        1,
    );
}

#[test]
fn nan_input_allows_nan() {
    let v = json_lines(&["--asm", "mul r0.x, v0.x, v0.y", "--input", "v0=nan,5"]);
    assert_eq!(v[0]["nan"], true);
    assert_eq!(v[0]["lo"], Value::Null);
    assert_eq!(v[0]["hi"], Value::Null);
    assert_eq!(
        run(
            &[
                "--asm",
                "mul r0.x, v0.x, v0.y",
                "--input",
                "v0=nan,5",
                "--plain"
            ],
            0
        ),
        "r0.x nan nan 0x7fc00000 nan\n"
    );
    let csv = run(
        &[
            "--asm",
            "mul r0.x, v0.x, v0.y",
            "--input",
            "v0=nan,5",
            "--csv",
        ],
        0,
    );
    assert_eq!(csv.lines().nth(1), Some("r0.x,,,true,0x7fc00000,,,0,,"));
    let e = json_lines(&["--expr", "normalize(a)", "--input", "a=nan,1,2"]);
    assert!(e.iter().all(|l| l["nan"] == true), "{e:?}");
    run(
        &[
            "--asm",
            "mul r0.x, v0.x, v0.y",
            "--input",
            "v0=nan,5",
            "--check",
            "nan",
        ],
        0,
    );
}

// ---------------------------------------------------------------- buffers

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// `n` vectors in [-10, 10) and their normalized results as a conforming GPU computes
/// them: dp3 as sequential f32 products and sums, rsq as the f32 of 1/sqrt in f64, f32
/// products.
fn normalize_buffers(n: usize) -> (Vec<f32>, Vec<f32>) {
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        ((rng >> 11) as f64 / (1u64 << 53) as f64 * 20.0 - 10.0) as f32
    };
    let mut v = Vec::with_capacity(n * 3);
    let mut r = Vec::with_capacity(n * 3);
    for _ in 0..n {
        let x = [next(), next(), next()];
        let d = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
        let s = (1.0 / f64::from(d).sqrt()) as f32;
        v.extend(x);
        r.extend(x.map(|c| s * c));
    }
    (v, r)
}

/// `--asm NORMALIZE --operands OPERANDS --results RESULTS`, then `more`.
fn normalize_args<'a>(operands: &'a str, results: &'a str, more: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "--asm",
        NORMALIZE,
        "--operands",
        operands,
        "--results",
        results,
    ];
    args.extend_from_slice(more);
    args
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p.to_string_lossy().into_owned()
}

#[test]
fn buffers_conform_and_one_moved_element_violates() {
    let dir = tempfile::tempdir().unwrap();
    let n = 1000;
    let (v, r) = normalize_buffers(n);
    let vf = write(dir.path(), "v.f32", &f32s(&v));
    let rf = write(dir.path(), "r.f32", &f32s(&r));
    let operands = format!("v0={vf}");
    let out = run(&normalize_args(&operands, &rf, &["--json"]), 0);
    let j: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(j["schema"], 1);
    assert_eq!(j["asm"], NORMALIZE);
    assert_eq!(j["format"], "f32");
    assert_eq!(j["rules"], "d3d11");
    assert_eq!(j["elements"], n);
    assert_eq!(j["conform"], n);
    assert_eq!(j["violate"], 0);
    assert_eq!(j["violations"], serde_json::json!([]));
    // The expression over the same files.
    let named = format!("a.xyz={vf}");
    let e = run(
        &[
            "--expr",
            "normalize(a)",
            "--operands",
            &named,
            "--results",
            &rf,
            "--json",
        ],
        0,
    );
    let e: Value = serde_json::from_str(e.trim()).unwrap();
    assert_eq!(e["expr"], "normalize(a)");
    assert_eq!(e["conform"], n);

    // Element 417's z moved 100 ULPs.
    let mut bad = r.clone();
    let k = 417 * 3 + 2;
    bad[k] = f32::from_bits(bad[k].to_bits() + 100);
    let bf = write(dir.path(), "bad.f32", &f32s(&bad));
    let a = op()
        .args(normalize_args(&operands, &bf, &["--json"]))
        .assert()
        .code(1);
    let j: Value = serde_json::from_slice(&a.get_output().stdout).unwrap();
    assert_eq!(j["elements"], n);
    assert_eq!(j["conform"], n - 1);
    assert_eq!(j["violate"], 1);
    let x = &j["violations"][0];
    assert_eq!(x["index"], 417);
    assert_eq!(x["component"], "r1.z");
    assert_eq!(x["result"], hex32(bad[k].to_bits()));
    assert!(bits(&x["hi"]) < bad[k].to_bits() && bits(&x["lo"]) <= r[k].to_bits());
    assert_eq!(x["nan"], false);
    // The other styles name it too.
    let plain = run(&normalize_args(&operands, &bf, &["--plain"]), 1);
    assert_eq!(
        plain.lines().next(),
        Some("elements 1000 conform 999 violate 1")
    );
    assert!(
        plain.lines().nth(1).unwrap().starts_with("417 r1.z "),
        "{plain}"
    );
    let csv = run(&normalize_args(&operands, &bf, &["--csv"]), 1);
    assert_eq!(csv.lines().next(), Some("index,component,result,lo,hi,nan"));
    assert!(
        csv.lines().nth(1).unwrap().starts_with("417,r1.z,"),
        "{csv}"
    );
    let human = run(&normalize_args(&operands, &bf, &[]), 1);
    assert!(
        human.contains("1000 elements: 999 conform, 1 violate"),
        "{human}"
    );
    assert!(human.contains("element 417 r1.z"), "{human}");
}

#[test]
fn buffer_size_mismatches_name_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let (v, r) = normalize_buffers(50);
    let vf = write(dir.path(), "v.f32", &f32s(&v));
    let rf = write(dir.path(), "r.f32", &f32s(&r));
    let short_v = write(dir.path(), "short_v.f32", &f32s(&v[..v.len() - 3]));
    let odd_r = write(dir.path(), "odd_r.f32", &f32s(&r[..r.len() - 1]));
    let ragged = write(dir.path(), "ragged.f32", &f32s(&v)[..v.len() * 4 - 1]);
    let operands = format!("v0={vf}");
    refused(
        &normalize_args(&format!("v0={short_v}"), &rf, &[]),
        "short_v.f32",
    );
    refused(&normalize_args(&operands, &odd_r, &[]), "odd_r.f32");
    refused(
        &normalize_args(&format!("v0={ragged}"), &rf, &[]),
        "ragged.f32",
    );
    refused(&normalize_args("v0=/dev/null", &rf, &[]), "/dev/null");
    refused(
        &normalize_args(&format!("v0={}", dir.path().display()), &rf, &[]),
        "--operands",
    );
    refused(
        &normalize_args(&operands, &dir.path().to_string_lossy(), &[]),
        "--results",
    );
    refused(
        &normalize_args(&operands, "/nonexistent/r.f32", &[]),
        "r.f32",
    );
    // Each without the other.
    refused(&["--asm", NORMALIZE, "--operands", &operands], "--results");
    refused(&["--asm", NORMALIZE, "--results", &rf], "--operands");
    // A register the program does not read from, and no name at all.
    refused(&normalize_args(&format!("v1={vf}"), &rf, &[]), "v0");
    refused(
        &["--asm", NORMALIZE, "--operands", &vf, "--results", &rf],
        "--operands",
    );
    refused(
        &[
            "--expr",
            "normalize(a)",
            "--operands",
            &format!("a.xqz={vf}"),
            "--results",
            &rf,
        ],
        "--operands",
    );
    // Inputs come from the files.
    refused(
        &[
            "--asm",
            NORMALIZE,
            "--operands",
            &operands,
            "--results",
            &rf,
            "--input",
            "v0=1",
        ],
        "--input",
    );
    refused(
        &[
            "--asm",
            NORMALIZE,
            "--operands",
            &operands,
            "--results",
            &rf,
            "--check",
            "1,2,3",
        ],
        "--check",
    );
}

// ---------------------------------------------------------------- hostile input

#[test]
fn hostile_assembly_is_refused_quickly() {
    let long = "add r0.x, v0.x, v0.x; ".repeat(70 * 1024 / 22 + 1);
    assert!(long.len() > 70_000);
    refused(&["--asm", &long, "--input", "v0=1"], "too long");
    refused(
        &[
            "--asm",
            "add r0.x, v0.x\u{1}\u{1b}[31m<b>&amp;</b>, v0.x",
            "--input",
            "v0=1",
        ],
        "instruction",
    );
    refused(
        &["--asm", "<script>alert(1)</script>", "--input", "v0=1"],
        "instruction",
    );
    refused(
        &["--asm", "foo r0.x, v0.x", "--input", "v0=1"],
        "unknown instruction 'foo'",
    );
    refused(
        &["--asm", "add r0.x, r1.x, v0.x", "--input", "v0=1"],
        "reads r1.x before anything writes it",
    );
    refused(
        &["--asm", "add r0.x, v0.x, v0.y", "--input", "v0=1"],
        "v0.y",
    );
    refused(&["--asm", "", "--input", "v0=1"], "no instruction");
    refused(&["--asm", ";;;", "--input", "v0=1"], "no instruction");
    refused(
        &[
            "--asm",
            "add r0.x, v0.x, v0.x",
            "--input",
            "v0=1",
            "--output",
            "r9",
        ],
        "r9",
    );
    refused(
        &[
            "--fmt",
            "f64",
            "--asm",
            "add r0.x, v0.x, v0.x",
            "--input",
            "v0=1",
        ],
        "f64",
    );
    // Too many instructions.
    let many = "mov r0.x, v0.x; ".repeat(1000);
    refused(&["--asm", &many, "--input", "v0=1"], "too long");
}

#[test]
fn hostile_inputs_and_checks_are_refused() {
    let asm = ["--asm", "add r0.x, v0.x, v0.y"];
    for bad in [
        "v0=abc",
        "v0=",
        "v0",
        "v0=1,2,3,4,5",
        "v0=1,,2",
        "x=1,2",
        "v0.x=1,2",
        "=1",
    ] {
        let mut args = asm.to_vec();
        args.extend(["--input", bad]);
        refused(&args, "input");
    }
    refused(
        &[
            "--asm",
            "add r0.x, v0.x, v0.y",
            "--input",
            "v0=1,2",
            "--input",
            "v0=3,4",
        ],
        "twice",
    );
    refused(
        &[asm[0], asm[1], "--input", "v0=1,2", "--check", "1,2"],
        "2 results for 1",
    );
    refused(
        &["--asm", NORMALIZE, "--input", "v0=1,2,3", "--check", "1"],
        "1 result for 3",
    );
    refused(
        &[asm[0], asm[1], "--input", "v0=1,2", "--check", "abc"],
        "--check",
    );
    refused(
        &[asm[0], asm[1], "--input", "v0=1,2", "--check", "0x3f80"],
        "--check",
    );
}

#[test]
fn hostile_expressions_are_refused_quickly() {
    for garbage in [
        ")))(((",
        "normalize(",
        "1 +",
        "float3(1, 2",
        "@#$",
        "a b c",
        "",
    ] {
        refused(&["--expr", garbage], "expression");
    }
    refused(&["--expr", "normalize(x)"], "x");
    let deep = format!("{}1{}", "(".repeat(5000), ")".repeat(5000));
    refused(&["--expr", &deep], "expression");
    // Every length and normalize multiplies the alternatives.
    let many = vec!["length(float3(1,2,3))"; 60].join("+");
    refused(&["--expr", &many], "alternative");
    refused(&["--expr", "1", "--output", "r0"], "--output");
}

/// A long program of instructions whose allowed sets have several patterns: the answer
/// comes in bounded time (the reachable set gives up), not after minutes.
#[test]
fn long_programs_answer_in_bounded_time() {
    let asm = format!("mov r0.x, v0.x; {}", "rsq r0.x, r0.x; ".repeat(250));
    let start = Instant::now();
    let out = run(&["--asm", &asm, "--input", "v0=0.1", "--plain"], 0);
    assert!(out.starts_with("r0.x 0x3f7"), "{out}");
    assert!(
        start.elapsed() < Duration::from_secs(60),
        "{:?}",
        start.elapsed()
    );
}

/// An endless operand (a device) is read no further than the results need, and named.
#[test]
fn an_endless_operand_is_read_only_as_far_as_the_results() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("r.bin");
    std::fs::write(&results, [0u8; 16]).unwrap();
    let started = Instant::now();
    refused(
        &[
            "--asm",
            "mul r0.x, v0.x, v0.x",
            "--operands",
            "v0=/dev/zero",
            "--results",
            results.to_str().unwrap(),
        ],
        "/dev/zero",
    );
    assert!(started.elapsed() < Duration::from_secs(10));
}
