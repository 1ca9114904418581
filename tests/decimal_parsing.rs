//! Exact reading of decimal and hex-float literals, through the command line.
//!
//! `encode --plain` on stdin takes an `f64` fast path: it must decline whenever the `f64`
//! reading lands on a value or a halfway point of the target format, or the answer can be
//! wrong (double rounding). Every vector here is run three ways: as an argument (exact
//! path), on stdin with `--plain` (fast path when it applies) and on stdin with `--json`
//! (exact path, bits from the JSON). Expected bits are derived by hand in the comments.

mod common;
use common::Rng;

use assert_cmd::Command;
use common::exact_decimal;
use num_bigint::BigUint;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_d3dfloat"))
}

/// Bits from `encode --plain VALUE` (argument), `--plain` on stdin and `--json` on stdin.
fn encode_three_ways(fmt: &str, mode: &str, value: &str) -> [String; 3] {
    let arg = bin()
        .args(["encode", "--fmt", fmt, "--rounding", mode, "--plain", value])
        .assert()
        .success();
    let arg = String::from_utf8(arg.get_output().stdout.clone()).unwrap();
    let plain = bin()
        .args(["encode", "--fmt", fmt, "--rounding", mode, "--plain"])
        .write_stdin(format!("{value}\n"))
        .assert()
        .success();
    let plain = String::from_utf8(plain.get_output().stdout.clone()).unwrap();
    let json = bin()
        .args(["encode", "--fmt", fmt, "--rounding", mode, "--json"])
        .write_stdin(format!("{value}\n"))
        .assert()
        .success();
    let json: serde_json::Value = serde_json::from_slice(&json.get_output().stdout).unwrap();
    [
        arg.trim().to_string(),
        plain.trim().to_string(),
        json["bits"].as_str().unwrap().to_string(),
    ]
}

fn check(fmt: &str, mode: &str, value: &str, want: &str) {
    let got = encode_three_ways(fmt, mode, value);
    assert_eq!(
        got,
        [want, want, want],
        "encode --fmt {fmt} --rounding {mode} {value}: [argument, stdin --plain, stdin --json]"
    );
}

/// Many values in one process per style: stdin `--plain` (fast path) against stdin `--json`
/// (exact path); returns the bits from each.
fn batch(fmt: &str, mode: &str, values: &[String]) -> (Vec<String>, Vec<String>) {
    let input: String = values.iter().map(|v| format!("{v}\n")).collect();
    let plain = bin()
        .args(["encode", "--fmt", fmt, "--rounding", mode, "--plain"])
        .write_stdin(input.clone())
        .assert()
        .success();
    let plain: Vec<String> = String::from_utf8(plain.get_output().stdout.clone())
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    let json = bin()
        .args(["encode", "--fmt", fmt, "--rounding", mode, "--json"])
        .write_stdin(input)
        .assert()
        .success();
    let json: Vec<String> = String::from_utf8(json.get_output().stdout.clone())
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["bits"].as_str().unwrap().to_string()
        })
        .collect();
    (plain, json)
}

#[test]
fn reference_decimal_writer() {
    assert_eq!(exact_decimal(2049, -11), "1.00048828125");
    assert_eq!(exact_decimal(1, -24), "0.000000059604644775390625");
    assert_eq!(exact_decimal(65504, 0), "65504");
}

// f16: 1 + 2^-11 = 2049 * 2^-11 = 1.00048828125 lies halfway between 1 (0x3c00, significand
// 1024, even) and 1 + 2^-10 (0x3c01, odd): ties to even give 0x3c00. Any non-zero digit
// after it, however far, is above the tie (0x3c01); any value below it gives 0x3c00.
#[test]
fn f16_tie_and_one_digit_either_side() {
    check("f16", "rne", "1.00048828125", "0x3c00");
    check("f16", "rne", "1.000488281250000000000000000001", "0x3c01");
    check("f16", "rne", "1.000488281249999999999999999999", "0x3c00");
    // 1 + 3 * 2^-11 = 1.00146484375 is halfway between 0x3c01 (odd) and 0x3c02 (even).
    check("f16", "rne", "1.00146484375", "0x3c02");
    check("f16", "rne", "1.001464843749999999999999999999", "0x3c01");
    check("f16", "rne", "1.001464843750000000000000000001", "0x3c02");
    // Negative ties mirror the positive ones (sign bit 0x8000).
    check("f16", "rne", "-1.00048828125", "0xbc00");
    check("f16", "rne", "-1.000488281250000000000000000001", "0xbc01");
}

// f32: 1 + 2^-24 = 1.000000059604644775390625 (2^-24 = 5^24 / 10^24) is halfway between 1
// (0x3f800000) and 1 + 2^-23 (0x3f800001, odd).
#[test]
fn f32_tie_and_one_digit_either_side() {
    check("f32", "rne", "1.000000059604644775390625", "0x3f800000");
    check(
        "f32",
        "rne",
        "1.0000000596046447753906250000000001",
        "0x3f800001",
    );
    check(
        "f32",
        "rne",
        "1.0000000596046447753906249999999999",
        "0x3f800000",
    );
    // The f16 tie read into f32 is exact: 1.00048828125 = 0x3f801000.
    check("f32", "rne", "1.00048828125", "0x3f801000");
}

// f64: 1 + 2^-53 is halfway between 1 (0x3ff0000000000000) and 1 + 2^-52 (odd). Its
// 54-significant-digit expansion is computed here.
#[test]
fn f64_tie_and_one_digit_either_side() {
    let tie = exact_decimal((1 << 53) + 1, -53);
    assert_eq!(
        tie,
        "1.00000000000000011102230246251565404236316680908203125"
    );
    check("f64", "rne", &tie, "0x3ff0000000000000");
    check("f64", "rne", &format!("{tie}0000001"), "0x3ff0000000000001");
    // One below: the last digit 5 becomes 4 followed by nines.
    let below = format!("{}4999999", &tie[..tie.len() - 1]);
    check("f64", "rne", &below, "0x3ff0000000000000");
    // 1 + 3 * 2^-53 ties up to the even 1 + 2^-51.
    let tie3 = exact_decimal((1 << 53) + 3, -53);
    check("f64", "rne", &tie3, "0x3ff0000000000002");
}

// 200-digit literals: the tie followed by zeros and a final 1 (above the tie), and the
// digit string just below the tie padded with nines to 200 digits.
#[test]
fn two_hundred_digit_literals() {
    for (fmt, m, e, even, odd) in [
        ("f16", 2049u64, -11i64, "0x3c00", "0x3c01"),
        ("f32", (1 << 24) + 1, -24, "0x3f800000", "0x3f800001"),
        (
            "f64",
            (1 << 53) + 1,
            -53,
            "0x3ff0000000000000",
            "0x3ff0000000000001",
        ),
    ] {
        let tie = exact_decimal(m, e);
        let above = format!("{tie}{}1", "0".repeat(200 - tie.len()));
        assert!(above.len() > 200);
        check(fmt, "rne", &above, odd);
        let below = format!("{}4{}", &tie[..tie.len() - 1], "9".repeat(200 - tie.len()));
        check(fmt, "rne", &below, even);
        // In every mode the long tie literal itself is exact arithmetic's answer.
        check(fmt, "rtz", &above, even);
        check(fmt, "rtp", &below, odd);
    }
    // A 200-digit integer: 10^199 is far above f32 and f16 (overflow) but fits f64.
    let big = format!("1{}", "0".repeat(199));
    check("f16", "rne", &big, "0x7c00");
    check("f32", "rtz", &big, "0x7f7fffff");
    // f64: the standard library's correctly rounded parse gives the nearest f64; it is
    // above 10^199 (checked exactly here), so toward zero gives the one below it.
    let nearest = big.parse::<f64>().unwrap().to_bits();
    assert_eq!(nearest, 0x6940_b8e0_acac_4eaf);
    let (m, e) = (
        (nearest & ((1 << 52) - 1)) | 1 << 52,
        (nearest >> 52) as i64 - 1075,
    );
    assert!(BigUint::from(m) << e as usize > BigUint::from(10u32).pow(199));
    check("f64", "rne", &big, "0x6940b8e0acac4eaf");
    check("f64", "rtz", &big, "0x6940b8e0acac4eae");
    check("f64", "rtn", &big, "0x6940b8e0acac4eae");
    check("f64", "rtp", &big, "0x6940b8e0acac4eaf");
}

// The f64 double-rounding trap: 1.00048828125 + 10^-20 is above the f16 tie, but its
// nearest f64 is the tie itself (f64 spacing at 1 is 2.2e-16). Rounding that f64 again
// would give 0x3c00; the exact answer is 0x3c01. Below the tie by 10^-20, the f64 is again
// the tie: the answer is 0x3c00 in rne and rtz, and 0x3c01 in rtp.
#[test]
fn f64_double_rounding_trap() {
    let above = "1.00048828125000000001";
    let below = "1.00048828124999999999";
    assert_eq!(above.parse::<f64>().unwrap(), 1.0 + 2f64.powi(-11));
    assert_eq!(below.parse::<f64>().unwrap(), 1.0 + 2f64.powi(-11));
    check("f16", "rne", above, "0x3c01");
    check("f16", "rne", below, "0x3c00");
    check("f16", "rtz", above, "0x3c00");
    check("f16", "rtp", below, "0x3c01");
    // Same for f32 at 1 + 2^-24 (an f64).
    check(
        "f32",
        "rne",
        "1.000000059604644775390625000001",
        "0x3f800001",
    );
    // A decimal just below a format value whose f64 is that value: 1 - 10^-20 reads as
    // f64 1.0, but it is below 1, so toward zero and toward -inf give the value below 1
    // (f16 0x3bff, f32 0x3f7fffff; f11 and f10 below).
    let just_below_one = "0.99999999999999999999";
    assert_eq!(just_below_one.parse::<f64>().unwrap(), 1.0);
    check("f16", "rtz", just_below_one, "0x3bff");
    check("f16", "rtn", just_below_one, "0x3bff");
    check("f16", "rne", just_below_one, "0x3c00");
    check("f32", "rtz", just_below_one, "0x3f7fffff");
    // f11 below 1: exponent 14, fraction all ones = 14 << 6 | 63 = 0x3bf.
    check("f11", "rtz", just_below_one, "0x3bf");
    // f10 below 1: exponent 14, fraction all ones = 14 << 5 | 31 = 0x1df.
    check("f10", "rtz", just_below_one, "0x1df");
    // And just above 1 in rtp: the value above 1.
    check("f16", "rtp", "1.00000000000000000001", "0x3c01");
    check("f11", "rtp", "1.00000000000000000001", "0x3c1");
    check("f64", "rtp", "1.00000000000000000001", "0x3ff0000000000001");
    // f64 itself in the other modes cannot use the standard parser's nearest rounding.
    check("f64", "rtz", just_below_one, "0x3fefffffffffffff");
    check(
        "f64",
        "rtn",
        "-1.00000000000000000001",
        "0xbff0000000000001",
    );
    // The f16 overflow threshold 65520 (halfway from 65504 to 65536) ties to the even
    // 65536, which is past the range: INF. A hair below stays 65504.
    check("f16", "rne", "65520", "0x7c00");
    check("f16", "rne", "65519.99999999999999999999", "0x7bff");
    check("f16", "rne", "65520.00000000000000000001", "0x7c00");
}

// Exponents far outside every format: 1e-400 is below every positive value (even f64's
// 2^-1074 = 4.9e-324), so toward +inf gives the smallest subnormal and nearest gives 0;
// 1e400 is above every finite value, so toward zero gives the largest finite value.
#[test]
fn huge_and_tiny_exponents() {
    check("f32", "rtp", "1e-400", "0x00000001");
    check("f32", "rne", "1e-400", "0x00000000");
    check("f32", "rtn", "-1e-400", "0x80000001");
    check("f32", "rtz", "-1e-400", "0x80000000");
    check("f64", "rtp", "1e-400", "0x0000000000000001");
    check("f64", "rne", "1e-400", "0x0000000000000000");
    check("f16", "rtp", "1e-400", "0x0001");
    check("f11", "rtp", "1e-400", "0x001");
    check("f32", "rtz", "1e400", "0x7f7fffff");
    check("f32", "rne", "1e400", "0x7f800000");
    check("f32", "rtn", "1e400", "0x7f7fffff");
    check("f64", "rtz", "1e400", "0x7fefffffffffffff");
    check("f64", "rne", "1e400", "0x7ff0000000000000");
    check("f16", "rtz", "1e400", "0x7bff");
    check("f16", "rtz", "-1e400", "0xfbff");
    check("f11", "rtz", "1e400", "0x7bf");
    check("f10", "rne", "1e400", "0x3e0");
    // Exponents that cancel: 1000...0e-N with a long mantissa.
    check("f16", "rne", "100000000000000000000e-20", "0x3c00");
    check("f16", "rne", "0.0000000000000000001e19", "0x3c00");
    // The limit: |exponent| up to 20000 is read; beyond is an input error.
    check("f32", "rtp", "1e-19999", "0x00000001");
    bin()
        .args(["encode", "--fmt", "f32", "--plain", "1e30000"])
        .assert()
        .code(2);
}

// Hex-floats: 0x1.0000000001p0 = 1 + 2^-40, above 1 and far below 1 + 2^-11: rtp gives
// 0x3c01, rne and rtz 0x3c00. 0x1.002p0 = 1 + 2^-11 is the tie again.
#[test]
fn hex_floats() {
    check("f16", "rtp", "0x1.0000000001p0", "0x3c01");
    check("f16", "rne", "0x1.0000000001p0", "0x3c00");
    check("f16", "rtz", "0x1.0000000001p0", "0x3c00");
    check("f16", "rne", "0x1.002p0", "0x3c00");
    check("f16", "rne", "0x1.0020000000001p0", "0x3c01");
    check("f16", "rne", "0x1p-24", "0x0001");
    check("f16", "rne", "0x1p-25", "0x0000"); // tie between 0 (even) and 2^-24
    check("f16", "rne", "0x1.8p-25", "0x0001");
    check("f32", "rne", "0x1.8p+3", "0x41400000"); // 12 = 1.5 * 2^3
    check("f32", "rne", "-0x1p0", "0xbf800000");
    check("f64", "rne", "0x1.fffffffffffff8p0", "0x4000000000000000"); // tie, to even 2
    check("f11", "rne", "0X1P0", "0x3c0");
}

// Named constants and -0 in every format, derived from the layouts:
// f64: max = exponent 0x7fe, fraction all ones; min-subnormal = 1; epsilon = 2^-52 has
//      biased exponent 1023 - 52 = 971 = 0x3cb; min-normal exponent 1.
// f32: epsilon 2^-23, biased 127 - 23 = 104 = 0x68 -> 0x68 << 23 = 0x34000000.
// f16: epsilon 2^-10, biased 15 - 10 = 5 -> 5 << 10 = 0x1400; max 0x7bff; min-normal 0x0400.
// f11: epsilon 2^-6, biased 9 -> 9 << 6 = 0x240; max = 30 << 6 | 63 = 0x7bf; min-normal
//      1 << 6 = 0x040; -0 has no sign bit: 0x000.
// f10: epsilon 2^-5, biased 10 -> 10 << 5 = 0x140; max = 30 << 5 | 31 = 0x3df;
//      min-normal 1 << 5 = 0x020.
#[test]
fn named_constants_in_every_format() {
    let table = [
        (
            "f64",
            [
                "0x8000000000000000",
                "0x7fefffffffffffff",
                "0x0000000000000001",
                "0x3cb0000000000000",
                "0x0010000000000000",
                "0xffefffffffffffff",
            ],
        ),
        (
            "f32",
            [
                "0x80000000",
                "0x7f7fffff",
                "0x00000001",
                "0x34000000",
                "0x00800000",
                "0xff7fffff",
            ],
        ),
        (
            "f16",
            ["0x8000", "0x7bff", "0x0001", "0x1400", "0x0400", "0xfbff"],
        ),
        (
            "f11",
            ["0x000", "0x7bf", "0x001", "0x240", "0x040", "0x000"],
        ),
        (
            "f10",
            ["0x000", "0x3df", "0x001", "0x140", "0x020", "0x000"],
        ),
    ];
    for (fmt, want) in table {
        for (name, bits) in [
            "-0",
            "max",
            "min-subnormal",
            "epsilon",
            "min-normal",
            "-max",
        ]
        .iter()
        .zip(want)
        {
            for mode in ["rne", "rtz", "rtp", "rtn"] {
                check(fmt, mode, name, bits);
            }
        }
    }
}

/// Decimal strings that stress the fast path: exact values and exact halfway points of the
/// format written in full, the same with a far digit added or the last digit lowered,
/// and random decimals of 1 to 30 digits with random exponents.
fn stress_values(frac_bits: u32, emin: i64, emax: i64, count: usize, seed: u64) -> Vec<String> {
    let mut rng = Rng(seed);
    let mut out = Vec::new();
    while out.len() < count {
        // A random point on the format's grid or halfway between two grid points:
        // (2k+1) * 2^(e-1) with k on frac_bits + 1 bits.
        let e = emin - frac_bits as i64 + rng.below((emax - emin + 2) as u64) as i64;
        let k = rng.below(1 << (frac_bits + 1));
        let (m, e) = if rng.below(2) == 0 {
            (2 * k + 1, e - 1)
        } else {
            (k.max(1), e)
        };
        let exact = exact_decimal(m, e);
        let neg = if rng.below(4) == 0 { "-" } else { "" };
        let v = match rng.below(5) {
            0 => exact,
            1 => {
                // A non-zero digit far beyond the last one.
                let sep = if exact.contains('.') { "" } else { "." };
                format!("{exact}{sep}{}1", "0".repeat(rng.below(30) as usize))
            }
            2 if exact.contains('.') => {
                // Just below: the last digit lowered, then nines.
                let (head, last) = exact.split_at(exact.len() - 1);
                let d = last.parse::<u8>().unwrap();
                if d == 0 {
                    continue;
                }
                format!("{head}{}{}", d - 1, "9".repeat(1 + rng.below(30) as usize))
            }
            _ => {
                let digits: String = (0..1 + rng.below(30))
                    .map(|_| char::from(b'0' + rng.below(10) as u8))
                    .collect();
                let x = rng.below((2 * (emax - emin) + 40) as u64) as i64 + 2 * emin / 3 - 20;
                format!("{digits}e{}", x * 3 / 10)
            }
        };
        out.push(format!("{neg}{v}"));
    }
    out
}

/// The fast path (`--plain` on stdin) and the exact path (`--json`) agree on every stress
/// value, in every format and mode.
#[test]
fn fast_path_agrees_with_exact_path() {
    for (fmt, frac_bits, emin, emax) in [
        ("f16", 10u32, -14i64, 15i64),
        ("f11", 6, -14, 15),
        ("f10", 5, -14, 15),
        ("f32", 23, -126, 127),
        ("f64", 52, -1022, 1023),
    ] {
        let values = stress_values(
            frac_bits,
            emin,
            emax,
            400,
            0x9e37_79b9_7f4a_7c15 ^ frac_bits as u64,
        );
        for mode in ["rne", "rtz", "rtp", "rtn"] {
            let (plain, json) = batch(fmt, mode, &values);
            assert_eq!(plain.len(), values.len());
            assert_eq!(json.len(), values.len());
            for ((v, p), j) in values.iter().zip(&plain).zip(&json) {
                assert_eq!(
                    p, j,
                    "{fmt} {mode} {v}: --plain (fast) {p}, --json (exact) {j}"
                );
            }
        }
    }
}

/// Whatever the path, the same text is either read (same bits) or refused (exit code 2).
fn same_verdict_on_every_path(fmt: &str, value: &str) {
    let code = |args: &[&str], stdin: Option<&str>| {
        let mut c = bin();
        c.args(args);
        if let Some(s) = stdin {
            c.write_stdin(s.to_string());
        }
        let out = c.output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).trim().to_string(),
        )
    };
    let line = format!("{value}\n");
    let (arg_code, arg_out) = code(&["encode", "--fmt", fmt, "--plain", value], None);
    let (plain_code, plain_out) = code(&["encode", "--fmt", fmt, "--plain"], Some(&line));
    let (json_code, _) = code(&["encode", "--fmt", fmt, "--json"], Some(&line));
    assert_eq!(
        (arg_code, plain_code, json_code),
        (arg_code, arg_code, arg_code),
        "{value}: exit codes of [argument, stdin --plain, stdin --json] differ"
    );
    assert_eq!(arg_out, plain_out, "{value}");
}

/// Texts the standard library's f64 parser and the exact parser might judge differently.
#[test]
fn fast_path_accepts_exactly_what_the_exact_parser_accepts() {
    for v in [
        "1.",
        ".5",
        "-.5",
        "+1",
        "1.e3",
        "1E3",
        "1e+3",
        "e3",
        ".",
        "-",
        "1e",
        "1e+",
        "--1",
        "+-1",
        "1e5.5",
        "0e99999999999",
        "1e-19999",
        "1e20001",
        "1e-20002",
    ] {
        same_verdict_on_every_path("f16", v);
    }
}

/// An exponent written with more than 12 digits is refused by the exact parser even when its
/// value is small (`1e0000000000005` is 1e5), but the fast path on stdin `--plain` reads it
/// through `f64` and answers: `echo 1e0000000000005 | d3dfloat encode --fmt f16 --plain`
/// prints 0x7c00 with exit code 0, while the same text as an argument or with `--json` is an
/// error with exit code 2 (src/input.rs `parse_exponent` counts leading zeros).
#[test]
fn long_exponent_with_leading_zeros() {
    same_verdict_on_every_path("f16", "1e0000000000005");
    same_verdict_on_every_path("f16", "1e-0000000000005");
}
