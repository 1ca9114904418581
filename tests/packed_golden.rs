//! Golden vectors for the packed HDR words, through the command line (`--plain` and
//! `--json`). Every expected value is derived by hand from the spec's formulas in the comment
//! next to it:
//! - RGB9E5 (§19.3.2): R = bits 0-8, G = 9-17, B = 18-26, E = 27-31; a channel is
//!   `0.mantissa * 2^(E-15)` = `mantissa * 2^(E-24)`, no sign, INF or NaN; the largest value
//!   is `511 * 2^7` = 65408. Encoding (§19.3.2.2, "+1" reading): E = floor(log2(largest)) +
//!   1 + 15, each mantissa = value * 2^(24-E) rounded; a carry to 512 bumps E.
//! - R11G11B10 (§19.3.3): R = f11 in bits 0-10, G = f11 in 11-21, B = f10 in 22-31; f11/f10
//!   (§3.1.6): 5-bit exponent, bias 15, 6/5-bit fraction, no sign; e = 31 is INF/NaN,
//!   e = 0 is `2^-14 * 0.f`.

use assert_cmd::Command;
use serde_json::Value;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_d3dfloat"))
}

fn run_ok(args: &[&str]) -> String {
    let out = bin().args(args).assert().success();
    let out = out.get_output();
    assert!(out.stderr.is_empty(), "stderr: {:?}", out.stderr);
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn encode_plain(fmt: &str, extra: &[&str], rgb: [&str; 3]) -> String {
    let mut args = vec!["encode", "--fmt", fmt, "--plain"];
    args.extend(extra);
    args.push("--");
    args.extend(rgb);
    run_ok(&args).trim().to_string()
}

fn encode_json(fmt: &str, extra: &[&str], rgb: [&str; 3]) -> Value {
    let mut args = vec!["encode", "--fmt", fmt, "--json"];
    args.extend(extra);
    args.push("--");
    args.extend(rgb);
    serde_json::from_str(run_ok(&args).trim()).unwrap()
}

fn decode_plain(fmt: &str, word: &str) -> String {
    run_ok(&["decode", "--fmt", fmt, "--plain", word])
        .trim()
        .to_string()
}

fn decode_json(fmt: &str, word: &str) -> Value {
    serde_json::from_str(run_ok(&["decode", "--fmt", fmt, "--json", word]).trim()).unwrap()
}

/// Encodes in the given mode and checks `--plain`, `--json` bits, and that the same values
/// on stdin (one word per line) agree.
fn check_encode(fmt: &str, extra: &[&str], rgb: [&str; 3], want: &str) {
    assert_eq!(
        encode_plain(fmt, extra, rgb),
        want,
        "{fmt} {extra:?} {rgb:?}"
    );
    let j = encode_json(fmt, extra, rgb);
    assert_eq!(j["bits"], want, "{fmt} {extra:?} {rgb:?} --json");
    assert_eq!(j["format"], fmt);
    let mut args = vec!["encode", "--fmt", fmt, "--plain"];
    args.extend(extra);
    let out = bin()
        .args(&args)
        .write_stdin(format!("{} {} {}\n", rgb[0], rgb[1], rgb[2]))
        .assert()
        .success();
    assert_eq!(
        String::from_utf8_lossy(&out.get_output().stdout).trim(),
        want,
        "{fmt} {extra:?} {rgb:?} on stdin"
    );
}

// The spec's example (§19.3.2.1): 0x999320c8 = 1001 1001 1001 0011 0010 0000 1100 1000.
// E = bits 27-31 = 10011 = 19, scale 2^(19-15) = 16.
// R = bits 0-8 = 0 1100 1000 = 200 -> 200/512 * 16 = 6.25
// G = bits 9-17 = 1 1001 0000 = 400 -> 400/512 * 16 = 12.5
// B = bits 18-26 = 0 0110 0100 = 100 -> 100/512 * 16 = 3.125
// Encoding back: largest 12.5 = 1.5625 * 2^3, E = 3 + 1 + 15 = 19, mantissas = v * 2^(24-19)
// = v * 32 = 200, 400, 100.
#[test]
fn rgb9e5_spec_example() {
    assert_eq!(decode_plain("rgb9e5", "0x999320c8"), "6.25 12.5 3.125");
    let j = decode_json("rgb9e5", "0x999320c8");
    assert_eq!(j["format"], "rgb9e5");
    assert_eq!(j["bits"], "0x999320c8");
    assert_eq!(j["schema"], 1);
    let ch = j["channels"].as_array().unwrap();
    assert_eq!(ch.len(), 3);
    for (c, (m, v)) in ch
        .iter()
        .zip([(200, "6.25"), (400, "12.5"), (100, "3.125")])
    {
        assert_eq!(c["format"], "rgb9e5_channel");
        assert_eq!(c["mantissa"], m);
        assert_eq!(c["exponent"], 19);
        assert_eq!(c["value"], v);
        assert_eq!(c["shortest"], v);
        assert_eq!(c["class"], "normal");
    }
    for mode in ["rne", "rtz", "rtp", "rtn"] {
        check_encode(
            "rgb9e5",
            &["--rounding", mode],
            ["6.25", "12.5", "3.125"],
            "0x999320c8",
        );
    }
    let j = encode_json("rgb9e5", &[], ["6.25", "12.5", "3.125"]);
    assert_eq!(j["exact"], true);
    assert_eq!(j["value"], "6.25 12.5 3.125");
}

// 1 2 3: largest 3 = 1.5 * 2^1, E = 1 + 1 + 15 = 17, mantissas v * 2^7 = 128, 256, 384.
// Word = 17 << 27 | 384 << 18 | 256 << 9 | 128 = 0x88000000 | 0x06000000 | 0x20000 | 0x80.
#[test]
fn rgb9e5_small_integers() {
    check_encode("rgb9e5", &[], ["1", "2", "3"], "0x8e020080");
    assert_eq!(decode_plain("rgb9e5", "0x8e020080"), "1 2 3");
}

// Overflow: 65408 = 511 * 2^(31-24) is the largest channel value. Anything above, and +INF,
// saturates to it: E = 31, mantissa 511 in every channel -> 0xffffffff (all bits set).
// 65407 in rne: 65407 / 128 = 510.99 -> 511; in rtz -> 510 (G field 510 << 9 = 0x3fc00).
#[test]
fn rgb9e5_overflow_saturates_to_65408() {
    for mode in ["rne", "rtz", "rtp", "rtn"] {
        check_encode(
            "rgb9e5",
            &["--rounding", mode],
            ["65409", "1e30", "inf"],
            "0xffffffff",
        );
        check_encode(
            "rgb9e5",
            &["--rounding", mode],
            ["70000", "0", "0"],
            "0xf80001ff",
        );
    }
    assert_eq!(decode_plain("rgb9e5", "0xffffffff"), "65408 65408 65408");
    check_encode("rgb9e5", &[], ["65408", "65407", "0"], "0xf803ffff");
    check_encode(
        "rgb9e5",
        &["--rounding", "rtz"],
        ["65408", "65407", "0"],
        "0xf803fdff",
    );
    let j = encode_json("rgb9e5", &[], ["70000", "inf", "1"]);
    assert_eq!(j["channels"][0]["saturated"], true);
    assert_eq!(j["channels"][1]["saturated"], true);
    assert_eq!(j["channels"][0]["value"], "65408");
    assert_eq!(j["channels"][0]["exact"], false);
}

// Negatives (and -INF) clamp to 0 (§19.3.2.2, no sign bit); NaN becomes 0 (no NaN).
// 1 -1 nan: E from the largest, 1 -> E = 0 + 1 + 15 = 16, R = 1 * 2^8 = 256.
#[test]
fn rgb9e5_negatives_and_nan_give_zero() {
    check_encode("rgb9e5", &[], ["1", "-1", "nan"], "0x80000100");
    check_encode("rgb9e5", &[], ["-inf", "-0", "-65408"], "0x00000000");
    let j = encode_json("rgb9e5", &[], ["1", "-1", "nan"]);
    let ch = &j["channels"];
    assert_eq!(ch[1]["clamped_negative"], true);
    assert_eq!(ch[1]["value"], "0");
    assert_eq!(ch[2]["nan"], true);
    assert_eq!(ch[2]["value"], "0");
    assert_eq!(j["value"], "1 0 0");
}

// The smallest non-zero channel: E = 0, mantissa 1 -> 2^(0-24) = 2^-24
// = 0.000000059604644775390625. 2^-25 is halfway between 0 and 2^-24: rne gives 0 (even),
// rtp gives 1; 1.5 * 2^-25 = 0.75 units: rne 1, rtz 0.
#[test]
fn rgb9e5_smallest_values() {
    check_encode("rgb9e5", &[], ["0x1p-24", "0", "0"], "0x00000001");
    check_encode("rgb9e5", &[], ["min-subnormal", "0", "0"], "0x00000001");
    check_encode("rgb9e5", &[], ["0x1p-25", "0", "0"], "0x00000000");
    check_encode(
        "rgb9e5",
        &["--rounding", "rtp"],
        ["0x1p-25", "0", "0"],
        "0x00000001",
    );
    check_encode("rgb9e5", &[], ["0x1.8p-25", "0", "0"], "0x00000001");
    check_encode(
        "rgb9e5",
        &["--rounding", "rtz"],
        ["0x1.8p-25", "0", "0"],
        "0x00000000",
    );
    let j = decode_json("rgb9e5", "0x00000001");
    assert_eq!(j["channels"][0]["value"], "0.000000059604644775390625");
    assert_eq!(j["channels"][0]["mantissa"], 1);
    assert_eq!(j["channels"][0]["exponent"], 0);
    assert_eq!(j["channels"][1]["class"], "zero");
}

// The carry: 511.75 = 1.99902 * 2^8, E = 8 + 1 + 15 = 24, mantissa 511.75 * 2^0 rounds (rne)
// to 512, which does not fit: E becomes 25 and the mantissa is 511.75 * 2^-1 = 255.875 ->
// 256. Word = 25 << 27 | 256 = 0xc8000100, value 256 * 2^1 = 512. In rtz there is no carry:
// 511 at E = 24 -> 0xc00001ff = 511.
#[test]
fn rgb9e5_carry_when_the_largest_rounds_up() {
    check_encode("rgb9e5", &[], ["511.75", "0", "0"], "0xc8000100");
    check_encode(
        "rgb9e5",
        &["--rounding", "rtz"],
        ["511.75", "0", "0"],
        "0xc00001ff",
    );
    assert_eq!(decode_plain("rgb9e5", "0xc8000100"), "512 0 0");
    // The other channels are re-rounded at the new scale: 1.5 at E = 25 is 0.75 units -> 1
    // unit of 2 = 2 (rne), G field 1 << 9 = 0x200.
    check_encode("rgb9e5", &[], ["511.75", "1.5", "0"], "0xc8000300");
    let j = encode_json("rgb9e5", &[], ["511.75", "1.5", "0"]);
    assert_eq!(j["value"], "512 2 0");
}

// Every channel position: a mantissa of 1 at E = 0 is 2^-24 (shortest f32 5.9604645e-8);
// the top mantissa bit (256) at E = 0 is 2^-16 = 0.0000152587890625 (1.5258789e-5).
// E = 1 (bit 27) with zero mantissas is 0 0 0.
#[test]
fn rgb9e5_channel_positions() {
    for (word, want) in [
        ("0x00000001", "5.9604645e-8 0 0"), // R bit 0
        ("0x00000100", "1.5258789e-5 0 0"), // R bit 8
        ("0x00000200", "0 5.9604645e-8 0"), // G bit 9
        ("0x00020000", "0 1.5258789e-5 0"), // G bit 17
        ("0x00040000", "0 0 5.9604645e-8"), // B bit 18
        ("0x04000000", "0 0 1.5258789e-5"), // B bit 26
        ("0x08000000", "0 0 0"),            // E = 1
        ("0x80000100", "1 0 0"),            // E = 16, R = 256: 256 * 2^-8
    ] {
        assert_eq!(decode_plain("rgb9e5", word), want, "{word}");
    }
    let j = decode_json("rgb9e5", "0x04000000");
    assert_eq!(j["channels"][2]["mantissa"], 256);
    assert_eq!(j["channels"][2]["value"], "0.0000152587890625");
}

// R11G11B10: 1 2 3. f11 1 = 2^0: exponent 15 -> 15 << 6 = 0x3c0. f11 2: 16 << 6 = 0x400,
// shifted to G: 0x400 << 11 = 0x200000. f10 3 = 1.5 * 2^1: exponent 16, fraction 0.5 * 32 =
// 16 -> 16 << 5 | 16 = 0x210, shifted to B: 0x210 << 22 = 0x84000000. Word 0x842003c0.
#[test]
fn r11g11b10_small_integers() {
    check_encode("r11g11b10", &[], ["1", "2", "3"], "0x842003c0");
    assert_eq!(decode_plain("r11g11b10", "0x842003c0"), "1 2 3");
    let j = decode_json("r11g11b10", "0x842003c0");
    let ch = &j["channels"];
    assert_eq!(ch[0]["format"], "f11");
    assert_eq!(ch[0]["bits"], "0x3c0");
    assert_eq!(ch[1]["bits"], "0x400");
    assert_eq!(ch[2]["format"], "f10");
    assert_eq!(ch[2]["bits"], "0x210");
    assert_eq!(ch[2]["exponent"], 16);
    assert_eq!(ch[2]["fraction"], 16);
}

// INF: f11 e = 31, f = 0 -> 0x7c0 (in R: 0x000007c0); f10 INF 0x3e0 in B: 0x3e0 << 22 =
// 0xf8000000. Overflow: f11's largest is 2^15 * (1 + 63/64) = 65024, the next step would be
// 2^16; halfway 65280 ties to the even 2^16, past the range: INF in rne. f10's largest is
// 2^15 * (1 + 31/32) = 64512, halfway to 2^16 is 65024. rtz and --saturate give the largest
// finite value instead: f11 0x7bf, f10 0x3df.
#[test]
fn r11g11b10_infinity_and_overflow() {
    check_encode("r11g11b10", &[], ["inf", "0", "0"], "0x000007c0");
    check_encode("r11g11b10", &[], ["0", "0", "inf"], "0xf8000000");
    assert_eq!(decode_plain("r11g11b10", "0x000007c0"), "inf 0 0");
    assert_eq!(decode_plain("r11g11b10", "0xf8000000"), "0 0 inf");
    // 1e9 everywhere: rne -> INF in each channel: 0x7c0 | 0x7c0 << 11 | 0x3e0 << 22.
    check_encode("r11g11b10", &[], ["1e9", "1e9", "1e9"], "0xf83e07c0");
    // rtz / --saturate: 0x7bf | 0x7bf << 11 | 0x3df << 22 = 0x7bf | 0x3df800 | 0xf7c00000.
    check_encode(
        "r11g11b10",
        &["--rounding", "rtz"],
        ["1e9", "1e9", "1e9"],
        "0xf7fdffbf",
    );
    check_encode(
        "r11g11b10",
        &["--saturate"],
        ["1e9", "1e9", "1e9"],
        "0xf7fdffbf",
    );
    check_encode(
        "r11g11b10",
        &["--rounding", "d3d"],
        ["1e9", "1e9", "1e9"],
        "0xf7fdffbf",
    );
    // INF stays INF even with --saturate (it is not a finite overflow).
    check_encode(
        "r11g11b10",
        &["--saturate"],
        ["inf", "0", "0"],
        "0x000007c0",
    );
    // The thresholds: 65280 -> f11 INF, 65279 -> 0x7bf: 0x7c0 | 0x7bf << 11 (0x3df800) =
    // 0x3dffc0. 65024 -> f10 INF (0x3e0), f11 exact
    // max 0x7bf. Word for 65024 65024 65024: 0x7bf | 0x7bf << 11 | 0x3e0 << 22 = 0xf83dffbf.
    check_encode("r11g11b10", &[], ["65280", "65279", "0"], "0x003dffc0");
    check_encode("r11g11b10", &[], ["65024", "65024", "65024"], "0xf83dffbf");
    let j = encode_json("r11g11b10", &[], ["1e9", "1", "1"]);
    assert_eq!(j["channels"][0]["overflow_to_infinity"], true);
    let j = encode_json("r11g11b10", &["--saturate"], ["1e9", "1", "1"]);
    assert_eq!(j["channels"][0]["saturated"], true);
    assert_eq!(j["channels"][0]["value"], "65024");
}

// Negatives clamp to 0 (§3.1.6: no sign bit); NaN stays NaN: f11 quiet NaN = e 31 with the
// top fraction bit = 0x7c0 | 0x20 = 0x7e0, f10 = 0x3e0 | 0x10 = 0x3f0.
// Word: 0x7e0 | 0x7e0 << 11 | 0x3f0 << 22 = 0x7e0 | 0x3f0000 | 0xfc000000 = 0xfc3f07e0.
#[test]
fn r11g11b10_negatives_and_nan() {
    check_encode("r11g11b10", &[], ["-1", "-inf", "-0"], "0x00000000");
    check_encode("r11g11b10", &[], ["nan", "nan", "nan"], "0xfc3f07e0");
    assert_eq!(decode_plain("r11g11b10", "0xfc3f07e0"), "nan nan nan");
    assert_eq!(decode_plain("r11g11b10", "0xffffffff"), "nan nan nan");
    let j = encode_json("r11g11b10", &[], ["-1", "nan", "1"]);
    assert_eq!(j["channels"][0]["clamped_negative"], true);
    assert_eq!(j["channels"][0]["value"], "0");
    assert_eq!(j["channels"][1]["nan"], true);
    let j = decode_json("r11g11b10", "0xfc3f07e0");
    assert_eq!(j["channels"][0]["class"], "nan");
    assert_eq!(j["channels"][2]["class"], "nan");
    assert_eq!(j["channels"][0]["quiet"], Value::Null);
}

// Denormals: f11 e = 0, f = 1 is 2^-14 * 1/64 = 2^-20 = 0.00000095367431640625; f10 e = 0,
// f = 1 is 2^-14 * 1/32 = 2^-19 = 0.0000019073486328125. Word with one unit in each channel:
// 1 | 1 << 11 | 1 << 22 = 0x00400801.
#[test]
fn r11g11b10_denormals() {
    check_encode(
        "r11g11b10",
        &[],
        ["0x1p-20", "0x1p-20", "0x1p-19"],
        "0x00400801",
    );
    check_encode(
        "r11g11b10",
        &[],
        ["min-subnormal", "min-subnormal", "min-subnormal"],
        "0x00400801",
    );
    let j = decode_json("r11g11b10", "0x00400801");
    let ch = &j["channels"];
    assert_eq!(ch[0]["class"], "subnormal");
    assert_eq!(ch[0]["value"], "0.00000095367431640625");
    assert_eq!(ch[1]["value"], "0.00000095367431640625");
    assert_eq!(ch[2]["value"], "0.0000019073486328125");
    // Half the smallest f11 denormal ties to 0 (even); 1.5 of it rounds to 2 units (even).
    check_encode(
        "r11g11b10",
        &[],
        ["0x1p-21", "0x1.8p-20", "0"],
        "0x00001000",
    );
}

// Every channel position of R11G11B10: the lowest and the highest bit of each field.
// R bit 0: f11 0x001 = 2^-20 (shortest 1e-6); R bit 10: f11 0x400 = e 16 = 2.
// G bit 11: 1e-6; G bit 21: 2. B bit 22: f10 0x001 = 2^-19 (2e-6); B bit 31: f10 0x200 =
// e 16 = 2. f11 1.0 (0x3c0) in each field: R 0x3c0, G 0x3c0 << 11 = 0x1e0000; f10 1.0 =
// 15 << 5 = 0x1e0, B 0x1e0 << 22 = 0x78000000.
#[test]
fn r11g11b10_channel_positions() {
    for (word, want) in [
        ("0x00000001", "1e-6 0 0"),
        ("0x00000400", "2 0 0"),
        ("0x00000800", "0 1e-6 0"),
        ("0x00200000", "0 2 0"),
        ("0x00400000", "0 0 2e-6"),
        ("0x80000000", "0 0 2"),
        ("0x000003c0", "1 0 0"),
        ("0x001e0000", "0 1 0"),
        ("0x78000000", "0 0 1"),
    ] {
        assert_eq!(decode_plain("r11g11b10", word), want, "{word}");
    }
    check_encode("r11g11b10", &[], ["1", "0", "0"], "0x000003c0");
    check_encode("r11g11b10", &[], ["0", "1", "0"], "0x001e0000");
    check_encode("r11g11b10", &[], ["0", "0", "1"], "0x78000000");
}

// Named constants per channel: R and G are f11, B is f10 (§19.3.3), so `max` is 65024 in R
// and G (0x7bf) but 64512 in B (0x3df): 0x7bf | 0x7bf << 11 | 0x3df << 22 = 0xf7fdffbf. Read
// as f11's 65024, B would round to INF instead. min-normal: f11 0x040, f10 0x020:
// 0x040 | 0x040 << 11 | 0x020 << 22 = 0x08020040. epsilon: f11 2^-6 (exponent 9, 0x240),
// f10 2^-5 (exponent 10, 0x140): 0x240 | 0x240 << 11 | 0x140 << 22 = 0x50120240.
// RGB9E5: max = 65408 (0xffffffff for all three), min-subnormal = 2^-24 (mantissa 1, E 0).
#[test]
fn named_constants_per_channel() {
    check_encode("r11g11b10", &[], ["max", "max", "max"], "0xf7fdffbf");
    check_encode(
        "r11g11b10",
        &[],
        ["min-normal", "min-normal", "min-normal"],
        "0x08020040",
    );
    check_encode(
        "r11g11b10",
        &[],
        ["epsilon", "epsilon", "epsilon"],
        "0x50120240",
    );
    check_encode("rgb9e5", &[], ["max", "max", "max"], "0xffffffff");
    check_encode(
        "rgb9e5",
        &[],
        ["min-subnormal", "min-subnormal", "min-subnormal"],
        "0x00040201",
    );
    // RGB9E5 has no normal/subnormal split and no epsilon: an input error.
    bin()
        .args(["encode", "--fmt", "rgb9e5", "--plain", "epsilon", "0", "0"])
        .assert()
        .code(2);
}
