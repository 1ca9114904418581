//! Regression tests for issue 8, one per reading, with the commands the issue gives: what
//! `op --plain` prints (the correctly rounded bits, then the allowed set).

use assert_cmd::Command;

fn plain(args: &[&str]) -> String {
    let out = Command::cargo_bin("d3dfloat")
        .unwrap()
        .arg("op")
        .args(args)
        .arg("--plain")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}: {out:?}");
    String::from_utf8(out.stdout)
        .unwrap()
        .trim_end()
        .to_string()
}

fn check(args: &[&str], result: &str) -> bool {
    let out = Command::cargo_bin("d3dfloat")
        .unwrap()
        .arg("op")
        .args(args)
        .args(["--check", result, "--plain"])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().contains("conforms")
}

/// Reading 1: a 1 ULP arithmetic tolerance is truncation's: exact results exactly, either
/// neighbour of an inexact one, ±max or ±inf past the largest finite value.
#[test]
fn issue8_one_ulp_arithmetic_is_truncation() {
    assert_eq!(
        plain(&["--rules", "d3d10", "mul", "2", "3"]),
        "0x40c00000 0x40c00000"
    );
    let over = "0x7f800000 0x7f7fffff-0x7f800000";
    assert_eq!(
        plain(&["--rules", "d3d10", "mul", "0xfc71378c", "0xfc71378b"]),
        over
    );
    assert_eq!(plain(&["--rules", "d3d10", "add", "max", "max"]), over);
    assert_eq!(plain(&["--rules", "d3d10", "div", "max", "0.5"]), over);
    assert_eq!(
        plain(&["drcp", "0x0000000000000001"]),
        "0x7ff0000000000000 0x7fefffffffffffff-0x7ff0000000000000"
    );
    assert_eq!(
        plain(&["--rules", "d3d10", "mul", "0x7effffff", "2"]),
        "0x7f7fffff 0x7f7fffff"
    );
    // Approximated functions keep 1 ULP as a distance.
    assert_eq!(plain(&["sqrt", "4"]), "0x40000000 0x3fffffff-0x40000001");
}

/// Reading 2: each fused step 1 ULP (truncation's), identities exact, float16 steps 0.6 ULP.
#[test]
fn issue8_fused_steps() {
    assert_eq!(
        plain(&["mad", "0x3f800001", "0x3f800001", "0"]),
        "0x3f800002 0x3f800002-0x3f800003"
    );
    assert_eq!(
        plain(&["--rules", "d3d10", "mad", "0x3f800001", "0x3f800001", "0"]),
        "0x3f800002 0x3f800002-0x3f800003"
    );
    assert_eq!(
        plain(&["mad", "0xc1800000", "0x419f9e7a", "0x439f9e7a"]),
        "0x00000000 0x00000000"
    );
    assert_eq!(
        plain(&["mad", "0x00566175", "0x8052f980", "0x3fbbcde8"]),
        "0x3fbbcde8 0x3fbbcde8"
    );
    // float16: (1 + 2^-10)^2 = 1 + 2^-9 + 2^-20 lies 2^-10 ULP above 1 + 2^-9, so a 0.6 ULP
    // product step may only give 0x3c02; adding 1 rounds exactly. Under 1 ULP per step it
    // could also be 0x3c03.
    assert_eq!(
        plain(&["--fmt", "f16", "mad", "0x3c01", "0x3c01", "0"]),
        "0x3c02 0x3c02"
    );
}

/// Reading 3: the D3D10 divide is 1 ULP (truncation's); D3D11 keeps the two-step rule.
#[test]
fn issue8_d3d10_divide() {
    assert_eq!(
        plain(&["--rules", "d3d10", "div", "6", "3"]),
        "0x40000000 0x40000000"
    );
    assert_eq!(
        plain(&["--rules", "d3d10", "div", "1", "3"]),
        "0x3eaaaaab 0x3eaaaaaa-0x3eaaaaab"
    );
    assert_eq!(
        plain(&["div", "1", "3"]),
        "0x3eaaaaab 0x3eaaaaaa-0x3eaaaaab"
    );
}

/// Reading 4: float16 and double round ties to even; f32's "within 0.5 ULP" keeps both.
#[test]
fn issue8_ties() {
    assert_eq!(
        plain(&["--fmt", "f16", "add", "1", "0x1000"]),
        "0x3c00 0x3c00"
    );
    assert_eq!(
        plain(&["dmul", "3", "0.1"]),
        "0x3fd3333333333334 0x3fd3333333333334"
    );
    assert_eq!(
        plain(&["add", "1", "0x33800000"]),
        "0x3f800000 0x3f800000-0x3f800001"
    );
}

/// Reading 5: IEEE zero signs; both zeros where a value bound contains zero.
#[test]
fn issue8_signed_zeros() {
    assert_eq!(plain(&["mad", "-0", "1", "-0"]), "0x80000000 0x80000000");
    assert_eq!(plain(&["dp2", "-0,-0", "1,1"]), "0x80000000 0x80000000");
    assert_eq!(
        plain(&["--fmt", "f16", "mad", "-0", "1", "-0"]),
        "0x8000 0x8000"
    );
    assert_eq!(
        plain(&["dfma", "-0", "1", "-0"]),
        "0x8000000000000000 0x8000000000000000"
    );
    assert_eq!(plain(&["sqrt", "-0"]), "0x80000000 0x80000000");
    // 2^-24 * 2^-2 = 2^-26 is a quarter of float16's smallest denorm: the 0.6 ULP bound
    // around it holds both zeros.
    assert!(check(
        &["--fmt", "f16", "mad", "0x0001", "0x3400", "0"],
        "0x8000"
    ));
    assert!(check(
        &["--fmt", "f16", "mad", "0x0001", "0x3400", "0"],
        "0x0000"
    ));
    // 1e38 / 1e38 may be 0 through a flushed reciprocal: the bound reaches zero.
    assert!(check(&["div", "1e38", "1e38"], "-0"));
}

/// Reading 6: transcendental bounds decided exactly, no margin.
#[test]
fn issue8_transcendentals_exact() {
    // 2^x for x = -4.8e-18 is just below 1, so 1 + 2^-21 is just outside the bound.
    assert_eq!(
        plain(&["exp", "0xa2b1843f"]),
        "0x3f800000 0x3f7ffff8-0x3f800003"
    );
    assert!(!check(&["exp", "0xa2b1843f"], "0x3f800004"));
    assert!(!check(&["exp", "0xa2b1843f"], "0x3f80000c"));
    assert!(check(&["exp", "0xa2b1843f"], "0x3f7ffff8"));
    // Rational cases: 2^3 = 8 and rsq 4 = 0.5 exactly, so 0.5 (1 + 2^-21) is in the bound.
    assert_eq!(plain(&["rsq", "4"]), "0x3f000000 0x3efffff8-0x3f000004");
    assert_eq!(plain(&["exp", "3"]), "0x41000000 0x40fffff8-0x41000004");
}
