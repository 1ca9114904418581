#![warn(missing_docs)]
//! d3dfloat-core: Direct3D floating-point formats and arithmetic rules, exactly.
//!
//! ```
//! use d3dfloat_core::d3d::RuleSet;
//! use d3dfloat_core::format::{F16, F32, RoundOptions, Rounding, round_number, text};
//! use d3dfloat_core::input::{Constants, parse_value};
//! use d3dfloat_core::judge::{Buffer, Judge, Options};
//!
//! // Decode: float16 0x3555 is exactly 0.333251953125.
//! assert_eq!(text::exact_decimal(&F16, 0x3555), "0.333251953125");
//!
//! // Encode 70000 into float16: D3D's conversion rounds toward zero and saturates to
//! // 65504 (§3.2.2) where IEEE nearest-even overflows to infinity.
//! let x = parse_value("70000", Constants::Float(&F16)).unwrap();
//! assert_eq!(round_number(&F16, &x, RoundOptions::new(Rounding::TowardZero)).bits, 0x7bff);
//! assert_eq!(round_number(&F16, &x, RoundOptions::new(Rounding::NearestEven)).bits, 0x7c00);
//!
//! // Judge a buffer of results a GPU returned for `sqrt` under D3D11's rules (1 ULP allowed
//! // for sqrt, §22.10.21): the third line is 2 ULPs off.
//! let judge = Judge::parse("sqrt", &F32, RuleSet::D3D11).unwrap();
//! let x = Buffer::U32(vec![4.0f32.to_bits(), 2.0f32.to_bits(), 9.0f32.to_bits()]);
//! let r = Buffer::U32(vec![2.0f32.to_bits(), 0x3fb504f4, 3.0f32.to_bits() + 2]);
//! let verdict = judge.run(&[x.column()], r.column(), &Options::default()).unwrap();
//! assert_eq!((verdict.conform, verdict.violate), (2, 1));
//! assert_eq!(verdict.violations[0].index, 2);
//! ```
//!
//! Every rule comes from the Direct3D 11.3 functional specification (§ numbers refer to
//! it); `docs/rules.md` in the repository lists them, with the readings where the spec and
//! Microsoft's pages disagree. This crate is the library behind the `d3dfloat` command line
//! (the `d3dfloat` package) and its Python package; `d3dfloat-probe` runs the instructions
//! on a Vulkan device and judges the results here.
//!
//! # Modules
//!
//! Nothing here knows of terminals or command lines: functions take values and return
//! result structs.
//!
//! - [`format`](mod@format): the storage formats (f64, f32, f16, f11, f10 through one
//!   descriptor, and the packed R11G11B10 and RGB9E5 words): decoding, rounding in every
//!   mode, decimal and hex-float text of a pattern; BC6H blocks.
//! - [`exact`]: the rational arithmetic everything leans on ([`exact::Ratio`],
//!   [`exact::Number`]).
//! - [`input`]: text into exact values, bit patterns and instruction operands.
//! - [`d3d`]: the shader instructions and the set of results a conforming implementation
//!   may return for each ([`d3d::evaluate`]).
//! - [`judge`]: whole buffers of results judged line by line, at memory speed.
//! - [`program`]: whole instruction sequences and HLSL expressions, the interval a
//!   conforming implementation may return for each output component.
//! - [`ulp`]: distances on the value line of a format, pairs and whole buffers.
//! - [`convert`]: bulk conversion of binary data, raw streams and DDS/EXR/HDR/KTX2/PFM
//!   containers.
//! - [`output_file`], [`io`], [`threads`], [`path_text`]: files written whole or not at
//!   all, full reads, the worker threads, file names shown safely.
//!
//! # Examples
//!
//! ## Decode a pattern
//!
//! ```
//! use d3dfloat_core::format::{Class, F11, text};
//!
//! // 0x7c0 is float11's infinity: exponent all ones, fraction zero (§3.1.6).
//! assert_eq!(F11.class(0x7c0), Class::Infinity);
//! // The largest finite float11 is 65024, its exact decimal and shortest forms agree.
//! assert_eq!(text::exact_decimal(&F11, F11.max_finite()), "65024");
//! let fields = F11.fields(0x3c0);
//! assert_eq!((fields.exponent, fields.fraction), (15, 0));
//! assert_eq!(text::shortest_decimal(&F11, 0x3c0), "1");
//! ```
//!
//! ## Encode with a rounding mode
//!
//! ```
//! use d3dfloat_core::format::{F16, RoundOptions, Rounding, round_number};
//! use d3dfloat_core::input::{Constants, parse_value};
//!
//! let x = parse_value("70000", Constants::Float(&F16)).unwrap();
//! // IEEE round-to-nearest-even overflows to infinity...
//! let rne = round_number(&F16, &x, RoundOptions::new(Rounding::NearestEven));
//! assert_eq!(rne.bits, 0x7c00);
//! assert!(rne.outcome.overflow_to_infinity);
//! // ...while D3D's float-to-float conversion rounds toward zero to 65504 (§3.2.2).
//! let rtz = round_number(&F16, &x, RoundOptions::new(Rounding::TowardZero));
//! assert_eq!(rtz.bits, 0x7bff);
//! assert!(rtz.outcome.saturated);
//! ```
//!
//! ## Evaluate an op and test a result's membership
//!
//! ```
//! use d3dfloat_core::d3d::{Op, OpRequest, RuleSet, evaluate};
//! use d3dfloat_core::format::F32;
//! use d3dfloat_core::input::parse_op_line;
//!
//! // 1 + 2^-24 is an exact tie between two f32 values: both conform (§3.1.3.1).
//! let req = OpRequest::from_bits(Op::Add, F32, RuleSet::D3D11, &[&[0x3f800000], &[0x33800000]]);
//! let eval = evaluate(&req).unwrap();
//! let out = eval.main_output();
//! assert_eq!(out.preferred, 0x3f800000);
//! assert!(out.allowed.contains(&out.domain, 0x3f800000));
//! assert!(out.allowed.contains(&out.domain, 0x3f800001));
//! assert!(!out.allowed.contains(&out.domain, 0x3f800002));
//!
//! // The same instruction as a batch line with a claimed result, read from text.
//! let line = parse_op_line("add 1 0x33800000 = 0x3f800002", &F32, RuleSet::D3D11).unwrap();
//! let eval = evaluate(&line.request).unwrap();
//! assert_eq!(eval.conforms(), Some(false));
//! ```
//!
//! ## ULP distance
//!
//! ```
//! use d3dfloat_core::format::F32;
//! use d3dfloat_core::ulp::{DiffOptions, ValueLine};
//!
//! let line = ValueLine::float(F32, DiffOptions::default());
//! assert_eq!(line.distance(0x3f800000, 0x3f800003), Some(3));
//! // Across zero: -0 and +0 are one point, so the smallest normals are 2 apart
//! // (f32 subnormals count as zero by default, §3.1.3.2).
//! assert_eq!(line.distance(0x80800000, 0x00800000), Some(2));
//! // A NaN is not on the line.
//! assert_eq!(line.distance(0x7fc00000, 0), None);
//! ```
//!
//! ## Convert a slice
//!
//! ```
//! use d3dfloat_core::convert::{Conversion, kernels::convert_slice};
//! use d3dfloat_core::format::{F16, F32, Format, RoundOptions, Rounding};
//!
//! let conv = Conversion::new(
//!     Format::Float(F32),
//!     Format::Float(F16),
//!     1,
//!     RoundOptions::new(Rounding::TowardZero),
//! )
//! .unwrap();
//! let src: Vec<u8> = [1.0f32, 0.1, 70000.0].iter().flat_map(|v| v.to_le_bytes()).collect();
//! let mut dst = vec![0u8; conv.dst_len(src.len())];
//! let stats = convert_slice(&conv, &src, &mut dst);
//! let halves: Vec<u16> = dst.chunks(2).map(|b| u16::from_le_bytes([b[0], b[1]])).collect();
//! assert_eq!(halves, [0x3c00, 0x2e66, 0x7bff]);
//! assert_eq!((stats.values, stats.saturated), (3, 1));
//! ```
//!
//! ## Parse a value, a pattern or an operand
//!
//! ```
//! use d3dfloat_core::exact::Number;
//! use d3dfloat_core::format::F32;
//! use d3dfloat_core::input::{Constants, Operand, parse_bits, parse_operand, parse_value};
//!
//! // Values are read exactly, never through f64.
//! let tenth = parse_value("0.1", Constants::Float(&F32)).unwrap();
//! assert!(matches!(tenth, Number::Finite { neg: false, .. }));
//! assert_eq!(parse_value("max", Constants::Float(&F32)).unwrap().to_f64_lossy(), f32::MAX as f64);
//! // Bit patterns: hex, binary or decimal, no wider than the format.
//! assert_eq!(parse_bits("0b11111000000", "f11", 11).unwrap(), 0x7c0);
//! assert!(parse_bits("0x800", "f11", 11).is_err());
//! // An operand of exactly the format's width in hex digits is bits, anything else a value.
//! assert_eq!(parse_operand("0x3f800000", &F32).unwrap(), Operand::Bits(0x3f800000));
//! assert!(matches!(parse_operand("0x1p0", &F32).unwrap(), Operand::Value(_)));
//! ```
//!
//! ## Every instruction name parses
//!
//! ```
//! use d3dfloat_core::d3d::{Op, op_names};
//! use d3dfloat_core::format::F32;
//!
//! for name in op_names() {
//!     assert!(Op::parse(name, &F32).is_ok(), "{name}");
//! }
//! assert!(op_names().any(|n| n == "dsub") && op_names().any(|n| n == "dle"));
//! ```

pub mod convert;
pub mod d3d;
pub mod exact;
pub mod format;
pub mod input;
pub mod io;
pub mod judge;
pub mod output_file;
pub mod path_text;
pub mod program;
pub mod threads;
pub mod ulp;
