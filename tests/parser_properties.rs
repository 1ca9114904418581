//! Property tests for issue 9: every parser, fed arbitrary strings or bytes, answers or
//! refuses without panicking, and a refusal reads as one bounded line once it goes through
//! the same `stderr_line` the binary applies to every error. In-process, so thousands of cases
//! take seconds.

use d3dfloat::commands::inputs::{BadInput, Origin, stderr_line};
use d3dfloat::convert::dds;
use d3dfloat::convert::image_in::{ImageLimits, read_exr, read_hdr};
use d3dfloat::d3d::{RuleSet, evaluate};
use d3dfloat::format::{F16, F32, F64, Format, RoundOptions, Rounding, round_number};
use d3dfloat::input::parse_op_line;
use d3dfloat::input::{Constants, parse_bits, parse_operand, parse_value, resolve_operand};
use d3dfloat::ulp::{DiffOptions, diff_pair};
use proptest::prelude::*;

/// The message an error becomes on stderr: one line, no control characters, bounded.
fn assert_one_line(origin: Origin, input: &str, error: impl std::fmt::Display) {
    let shown = stderr_line(&BadInput::new(origin, input, error).to_string());
    assert!(!shown.chars().any(char::is_control), "{shown:?}");
    assert!(shown.len() < 2000, "{} bytes", shown.len());
}

/// Text that looks like numbers often enough to reach deep into the parsers.
fn numberish() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[-+]?[0-9_.]{0,40}([eEpP][-+]?[0-9]{0,6})?",
        "[-+]?0[xXbB][0-9a-fA-F_.]{0,20}(p[-+]?[0-9]{0,5})?",
        "[-+]?(inf|nan|max|min-normal|min-subnormal|epsilon|[a-z\\-]{1,12})",
        "[0-9]{0,3}\\.[0-9]{700,900}(e-3[0-9]{2})?",
    ]
}

const FORMATS: [Format; 5] = [
    Format::Float(F64),
    Format::Float(F32),
    Format::Float(F16),
    Format::R11G11B10,
    Format::Rgb9e5,
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn values_and_bits_parse_or_refuse_cleanly(text in numberish()) {
        for format in FORMATS {
            match parse_value(&text, Constants::for_channel(&format, 0)) {
                Ok(n) => {
                    if let Format::Float(f) = format {
                        for mode in Rounding::ALL {
                            round_number(&f, &n, RoundOptions::new(mode));
                        }
                    }
                }
                Err(e) => assert_one_line(Origin::Argument(1), &text, e),
            }
            if let Err(e) = parse_bits(&text, format.name(), format.width()) {
                assert_one_line(Origin::Line(1), &text, e);
            }
        }
        for f in [F64, F32, F16] {
            if let Err(e) = parse_operand(&text, &f) {
                assert_one_line(Origin::Argument(2), &text, e);
            }
        }
    }

    #[test]
    fn op_lines_parse_evaluate_or_refuse_cleanly(
        op in "(add|sub|mul|div|mad|dp2|dp3|dp4|min|max|sqrt|rsq|rcp|exp|log|frc|round_ne|sincos|eq|lt|ftoi|ftou|itof|utof|f16tof32|f32tof16|dtof|ftod|dadd|dfma|[a-z]{1,6})",
        args in prop::collection::vec(numberish(), 0..5),
        check in prop::option::of(numberish()),
        junk in any::<String>(),
    ) {
        let mut line = std::iter::once(op).chain(args).collect::<Vec<_>>().join(" ");
        if let Some(c) = check {
            line.push_str(" = ");
            line.push_str(&c);
        }
        for text in [line.as_str(), junk.as_str()] {
            for (fmt, rules) in [(F32, RuleSet::D3D11), (F16, RuleSet::D3D10), (F64, RuleSet::D3D11)] {
                match parse_op_line(text, &fmt, rules) {
                    Err(e) => assert_one_line(Origin::Line(7), text, e),
                    Ok(l) => {
                        if let Err(e) = evaluate(&l.request) {
                            assert_one_line(Origin::Line(7), text, e);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn ulp_diff_pairs_measure_or_refuse_cleanly(a in numberish(), b in numberish()) {
        for format in FORMATS {
            match (resolve_operand(&a, format), resolve_operand(&b, format)) {
                (Ok(x), Ok(y)) => {
                    diff_pair(format, x, y, DiffOptions { flush_subnormals: true });
                }
                (Err(e), _) => assert_one_line(Origin::Line(1), &a, e),
                (_, Err(e)) => assert_one_line(Origin::Line(1), &b, e),
            }
        }
    }
}

/// A DDS header with plausible fields, so mutations reach the size checks.
fn dds_bytes() -> impl Strategy<Value = Vec<u8>> {
    let header = (
        any::<u32>(),
        any::<u32>(),
        0u32..16,
        0u32..120,
        any::<u32>(),
        prop::collection::vec(any::<u8>(), 0..400),
    )
        .prop_map(|(h, w, mips, dxgi, array, tail)| {
            let mut b = b"DDS ".to_vec();
            let mut head = [0u8; 124];
            head[..4].copy_from_slice(&124u32.to_le_bytes());
            head[4..8].copy_from_slice(&0x100fu32.to_le_bytes());
            head[8..12].copy_from_slice(&(h % 70_000).to_le_bytes());
            head[12..16].copy_from_slice(&(w % 70_000).to_le_bytes());
            head[24..28].copy_from_slice(&mips.to_le_bytes());
            head[72..76].copy_from_slice(&32u32.to_le_bytes());
            head[76..80].copy_from_slice(&4u32.to_le_bytes());
            head[80..84].copy_from_slice(b"DX10");
            b.extend_from_slice(&head);
            b.extend_from_slice(&dxgi.to_le_bytes());
            b.extend_from_slice(&3u32.to_le_bytes());
            b.extend_from_slice(&0u32.to_le_bytes());
            b.extend_from_slice(&(array % 70_000).to_le_bytes());
            b.extend_from_slice(&0u32.to_le_bytes());
            b.extend_from_slice(&tail);
            b
        });
    prop_oneof![prop::collection::vec(any::<u8>(), 0..600), header]
}

/// A Radiance header with arbitrary (often huge or odd) dimensions and a short body.
fn hdr_bytes() -> impl Strategy<Value = Vec<u8>> {
    let header = (
        "[-+][XY] [0-9]{1,11} [-+][XY] [0-9]{1,11}",
        prop::collection::vec(any::<u8>(), 0..300),
    )
        .prop_map(|(dims, body)| {
            let mut b = format!("#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n{dims}\n").into_bytes();
            b.extend(body);
            b
        });
    prop_oneof![prop::collection::vec(any::<u8>(), 0..400), header]
}

fn small_exr() -> Vec<u8> {
    let dir = tempfile::TempDir::new().unwrap();
    let path = dir.path().join("seed.exr");
    exr::prelude::write_rgba_file(&path, 2, 2, |x, y| (x as f32, y as f32, 0.5f32, 1.0f32))
        .unwrap();
    std::fs::read(path).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn dds_files_read_or_refuse_cleanly(bytes in dds_bytes()) {
        if let Err(e) = dds::read(&mut bytes.as_slice(), None) {
            assert_one_line(Origin::Argument(1), "in.dds", e);
        }
    }

    #[test]
    fn hdr_files_read_or_refuse_cleanly(bytes in hdr_bytes()) {
        let dir = tempfile::TempDir::new().unwrap();
        let path = dir.path().join("in.hdr");
        std::fs::write(&path, &bytes).unwrap();
        if let Err(e) = read_hdr(&path, ImageLimits::default()) {
            assert_one_line(Origin::Argument(1), "in.hdr", e);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

    /// A valid file with a few of its header bytes overwritten: the mutations that once
    /// made the reader allocate tens of gigabytes.
    #[test]
    fn mutated_exr_headers_read_or_refuse_cleanly(
        edits in prop::collection::vec((0usize..400, any::<u8>()), 1..6),
    ) {
        let mut bytes = small_exr();
        let header_end = bytes.len().min(400);
        for (at, v) in edits {
            bytes[at % header_end] = v;
        }
        let dir = tempfile::TempDir::new().unwrap();
        let path = dir.path().join("mutated.exr");
        std::fs::write(&path, &bytes).unwrap();
        if let Err(e) = read_exr(&path, ImageLimits::default()) {
            assert_one_line(Origin::Argument(1), "mutated.exr", e);
        }
    }
}
