//! Regression tests named after the wrong verdicts they pin.

use assert_cmd::Command;
use d3dfloat::d3d::{OpRequest, RuleSet, evaluate};
use d3dfloat::format::{F16, F32, FloatFormat};
use d3dfloat::input::parse_op_line;

mod common;

/// The allowed patterns of `line` as ranges, and whether NaN is allowed.
fn allowed(line: &str, fmt: &FloatFormat, rules: RuleSet) -> (Vec<(u64, u64)>, bool) {
    let req: OpRequest = parse_op_line(line, fmt, rules).unwrap().request;
    let e = evaluate(&req).unwrap();
    let o = e.main_output();
    (o.allowed.bit_ranges(&o.domain), o.allowed.nan)
}

fn d3dfloat() -> Command {
    Command::cargo_bin("d3dfloat").unwrap()
}

/// Float16 divide is unfused, so it is correctly rounded (§3.1.5 and both pages' 16-bit
/// rules); the 32-bit two-step a * (1/b) does not carry over. 1/0x0001 overflows f16,
/// so the two-step reading used to let 0x0001 / 0x0001 be INF.
#[test]
fn f16_div_of_equal_denorms_is_one_not_inf() {
    d3dfloat()
        .args([
            "op", "--fmt", "f16", "div", "0x0001", "0x0001", "--check", "inf",
        ])
        .args(["--plain"])
        .assert()
        .code(1)
        .stdout("violates\n");
    d3dfloat()
        .args([
            "op", "--fmt", "f16", "div", "0x0001", "0x0001", "--check", "0x3c00",
        ])
        .args(["--plain"])
        .assert()
        .code(0);
    for rules in [RuleSet::D3D10, RuleSet::D3D11] {
        assert_eq!(
            allowed("div 0x0001 0x0001", &F16, rules),
            (vec![(0x3c00, 0x3c00)], false)
        );
    }
}

/// Every f16 divide allows exactly the nearest-even quotient: against the `half` crate's
/// rounding of the f64 quotient (which is exact enough: a quotient of two 11-bit
/// significands is never within 2^-53 of an f16 tie without being one), over pairs
/// drawn from every exponent, denorms, zeros, infinities and NaN included.
#[test]
fn f16_div_allows_only_the_nearest_quotient() {
    let mut rng = common::Rng(0x5eed_f16d);
    let edges = [
        0x0000u16, 0x8000, 0x0001, 0x03ff, 0x0400, 0x3c00, 0xbc00, 0x7bff, 0x7c00,
    ];
    for i in 0..20_000 {
        let r = rng.next();
        let pick = |k: u64| -> u16 {
            if k.is_multiple_of(7) {
                edges[(k >> 8) as usize % edges.len()]
            } else {
                (k >> 16) as u16
            }
        };
        let (a, b) = (pick(r), pick(r.rotate_left(29) ^ i));
        let q = half::f16::from_bits(a).to_f64() / half::f16::from_bits(b).to_f64();
        let want = half::f16::from_f64(q);
        let (ranges, nan) = allowed(&format!("div {a:#06x} {b:#06x}"), &F16, RuleSet::D3D11);
        if want.is_nan() {
            assert!(nan && ranges.is_empty(), "{a:#06x} / {b:#06x}: {ranges:x?}");
        } else {
            let w = want.to_bits() as u64;
            assert_eq!(ranges, vec![(w, w)], "{a:#06x} / {b:#06x}");
            assert!(!nan, "{a:#06x} / {b:#06x}: NaN allowed");
        }
    }
}

/// mad 0x37582fd1 * 0x829d5b08 + 0x491dff79: the product is an f32 denorm, so every
/// serial order writes it as -0 and the add is the identity c + -0 = c (§3.1.3.2). The
/// worst serial order is exact, so only c conforms; keeping the tiny product exactly and
/// then rounding the add a ULP down is no serial order's result.
#[test]
fn mad_with_a_denorm_product_returns_the_addend() {
    let line = "mad 0x37582fd1 0x829d5b08 0x491dff79";
    for rules in [RuleSet::D3D10, RuleSet::D3D11] {
        assert_eq!(
            allowed(line, &F32, rules),
            (vec![(0x491d_ff79, 0x491d_ff79)], false)
        );
    }
    d3dfloat()
        .args(["op", "mad", "0x37582fd1", "0x829d5b08", "0x491dff79"])
        .args(["--check", "0x491dff78", "--plain"])
        .assert()
        .code(1)
        .stdout("violates\n");
    // The same with the product positive.
    assert_eq!(
        allowed("mad 0x37582fd1 0x029d5b08 0x491dff79", &F32, RuleSet::D3D11),
        (vec![(0x491d_ff79, 0x491d_ff79)], false)
    );
}

/// Issue 37: one value saturated from 1e38 made the summary's max error 2.3e36 ULP; the
/// error is measured over the values that stayed finite and in range, the saturated,
/// overflowed and clamped ones counted apart. Every kernel level (the CI runs this file
/// again with D3DFLOAT_SIMD=portable) and packed target agrees.
#[test]
fn a_saturated_value_does_not_make_the_max_error_huge() {
    let dir = tempfile::TempDir::new().unwrap();
    // 4096 texels, so the vector passes run: 1e38 saturates, -3 clamps (unsigned
    // targets), 1.0001 rounds with an error under one ULP.
    let texels: Vec<u8> = (0..4096)
        .flat_map(|i| match i % 3 {
            0 => [1e38f32, 1.0001, -3.0],
            1 => [1.0001, 1e38, 0.5],
            _ => [0.25, 1.0001, 2.0],
        })
        .flat_map(f32::to_le_bytes)
        .collect();
    let input = dir.path().join("in.f32");
    std::fs::write(&input, &texels).unwrap();
    for (to, extra) in [
        ("f16", &["--saturate"][..]),
        ("f16", &["--rounding", "rtz"][..]),
        ("f11", &["--saturate"][..]),
        ("r11g11b10", &["--saturate"][..]),
        ("rgb9e5", &[][..]),
    ] {
        let out = d3dfloat()
            .args(["--json", "convert", "--from", "f32", "--to", to])
            .args(extra)
            .arg(&input)
            .arg("-o")
            .arg(dir.path().join("out.bin"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(v["saturated"].as_u64().unwrap() > 0, "{to}: {v}");
        let err = v["max_ulp_error"].as_f64().unwrap();
        assert!(err > 0.0 && err < 1.0, "{to} {extra:?}: max error {err}");
    }
}
