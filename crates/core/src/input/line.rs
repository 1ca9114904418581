//! `op` input: an instruction, its operands and a claimed result, from a batch line
//! (`OP ARG... [= RESULT]`, vector components written `1,2,3`) or from the command line,
//! read into an [`OpRequest`] the core evaluates, with the text kept for echoing.

use super::InputError;
use super::operands::{read_operand, read_result};
use super::words::words;
use crate::d3d::{Op, OpError, OpRequest, Operands, Pattern, PerOutput, RuleSet, Vector};
use crate::format::FloatFormat;

/// An instruction read from text.
#[derive(Clone, Debug)]
pub struct OpLine<'a> {
    /// What to evaluate.
    pub request: OpRequest,
    /// What was typed, for renderers that echo it.
    pub typed: Typed<'a>,
}

/// More words than any instruction takes (mad has three operands).
const MOST_OPERANDS: usize = 4;

/// The text of each operand and of the claimed result, as typed (trimmed).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Typed<'a> {
    /// The operand words (`1,2,3` for a vector); `count` of them are used.
    words: [&'a str; MOST_OPERANDS],
    /// Operands read.
    count: usize,
    /// The claimed result (`S,C` for sincos), if any.
    pub check: Option<&'a str>,
}

impl<'a> Typed<'a> {
    /// The text of component `j` of operand `i` (both from 0); `None` for a request that was
    /// not read from text. Split when asked: only the renderers that echo text pay for it.
    pub fn component(&self, i: usize, j: usize) -> Option<&'a str> {
        if i >= self.count {
            return None;
        }
        self.words[i].split(',').nth(j).map(str::trim)
    }
}

/// Why a line or command line is not an instruction: the instruction itself (its name,
/// format, operand count or vector width), or the text of an operand or claimed result.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    /// The instruction cannot take these operands.
    #[error(transparent)]
    Op(#[from] OpError),
    /// An operand or claimed result does not read.
    #[error(transparent)]
    Input(#[from] InputError),
}

/// Reads a batch line `OP ARG... [= RESULT] [# COMMENT]` in working format `fmt`. The
/// comment (where `--violations` notes each line's index) is not part of the line.
pub fn parse_op_line<'a>(
    line: &'a str,
    fmt: &FloatFormat,
    rules: RuleSet,
) -> Result<OpLine<'a>, LineError> {
    let line = match line.as_bytes().iter().position(|&b| b == b'#') {
        Some(i) => line[..i].trim_end(),
        None => line,
    };
    let (lhs, check) = match line.as_bytes().iter().position(|&b| b == b'=') {
        Some(i) => (&line[..i], Some(&line[i + 1..])),
        None => (line, None),
    };
    let mut words = words(lhs);
    let name = words
        .next()
        .ok_or_else(|| OpError::UnknownOp(String::new()))?;
    parse_op(name, words, check, fmt, rules)
}

/// Reads an instruction from the command line: its name, operand words (`1,2,3` for a
/// vector) and the `--check` value.
pub fn parse_op_words<'a>(
    name: &str,
    operands: &'a [String],
    check: Option<&'a str>,
    fmt: &FloatFormat,
    rules: RuleSet,
) -> Result<OpLine<'a>, LineError> {
    parse_op(name, operands.iter().map(String::as_str), check, fmt, rules)
}

fn parse_op<'a>(
    name: &str,
    words: impl Iterator<Item = &'a str>,
    check: Option<&'a str>,
    fmt: &FloatFormat,
    rules: RuleSet,
) -> Result<OpLine<'a>, LineError> {
    let (op, format) = Op::parse(name, fmt)?;
    let (count, width) = op.arity();
    let mut typed = Typed::default();
    let mut got = 0;
    for word in words {
        if got < MOST_OPERANDS {
            typed.words[got] = word;
        }
        got += 1;
    }
    if got != count {
        return Err(OpError::OperandCount {
            op: op.name(&format).to_string(),
            expected: count,
            got,
        }
        .into());
    }
    typed.count = count;
    let (operand_domain, outputs) = op.domains(&format);
    let mut args = Operands::new();
    for (i, word) in typed.words[..count].iter().enumerate() {
        let got = 1 + word.bytes().filter(|&b| b == b',').count();
        if got != width {
            return Err(OpError::VectorWidth {
                op: op.name(&format).to_string(),
                expected: width,
                index: i + 1,
                got,
            }
            .into());
        }
        let mut read = Vector::new();
        for text in word.split(',') {
            let p = read_operand(text, &operand_domain).map_err(|source| InputError::Operand {
                index: i + 1,
                text: text.to_string(),
                source: Box::new(source),
            })?;
            read.push(p);
        }
        args.push(read);
    }
    typed.check = check.map(str::trim);
    let claims = typed
        .check
        .map(|text| read_claims(text, &outputs))
        .transpose()?;
    Ok(OpLine {
        request: OpRequest {
            op,
            format,
            rules,
            args,
            check: claims,
        },
        typed,
    })
}

/// A claimed result: one value per output, comma separated (sincos: `S,C`, or `S` alone);
/// a single-output instruction reads the whole text as its one value.
fn read_claims(
    text: &str,
    outputs: &[(&'static str, crate::d3d::Domain)],
) -> Result<PerOutput<Pattern>, InputError> {
    let read = |part: &str, domain| {
        read_result(part, domain).map_err(|source| InputError::Result {
            text: part.trim().to_string(),
            source: Box::new(source),
        })
    };
    if let [(_, domain)] = outputs {
        return Ok(smallvec::smallvec![read(text, domain)?]);
    }
    if text.split(',').count() > outputs.len() {
        return Err(InputError::Result {
            text: text.to_string(),
            source: Box::new(InputError::TooManyValues {
                expected: outputs.len(),
            }),
        });
    }
    text.split(',')
        .zip(outputs)
        .map(|(part, (_, domain))| read(part, domain))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::d3d::evaluate;
    use crate::format::{F16, F32};

    #[test]
    fn a_trailing_comment_is_not_part_of_the_line() {
        let with = parse_op_line(
            "sqrt 0x40800000 = 0x40000001  # index 17",
            &F32,
            RuleSet::D3D11,
        )
        .unwrap();
        let without = parse_op_line("sqrt 0x40800000 = 0x40000001", &F32, RuleSet::D3D11).unwrap();
        assert_eq!(with.request.check, without.request.check);
        assert_eq!(with.typed, without.typed);
        // Without a result too.
        let l = parse_op_line("sqrt 4 # four", &F32, RuleSet::D3D11).unwrap();
        assert_eq!(l.request.check, None);
    }

    #[test]
    fn a_line_becomes_patterns_and_keeps_its_text() {
        let l = parse_op_line(
            "dp2 1,0x40000000  0.1,-0 = 0x3e4ccccd",
            &F32,
            RuleSet::D3D11,
        )
        .unwrap();
        let r = &l.request;
        assert_eq!(r.op, Op::Dp2);
        let bits: Vec<Vec<u64>> = r
            .args
            .iter()
            .map(|c| c.iter().map(|p| p.bits).collect())
            .collect();
        assert_eq!(
            bits,
            [[0x3f80_0000, 0x4000_0000], [0x3dcc_cccd, 0x8000_0000]]
        );
        // 0.1 is not an f32: the literal was rounded, and says so.
        assert!(r.args[1][0].inexact_literal && !r.args[0][0].inexact_literal);
        assert_eq!(
            r.check,
            Some(smallvec::smallvec![Pattern::bits(0x3e4c_cccd)])
        );
        assert_eq!(l.typed.component(1, 0), Some("0.1"));
        assert_eq!(l.typed.component(0, 1), Some("0x40000000"));
        assert_eq!(l.typed.component(2, 0), None);
        assert_eq!(l.typed.check, Some("0x3e4ccccd"));
    }

    #[test]
    fn each_part_of_a_line_has_its_own_error() {
        let err = |line: &str| parse_op_line(line, &F16, RuleSet::D3D10).unwrap_err();
        assert!(matches!(err("nop 1"), LineError::Op(OpError::UnknownOp(_))));
        assert!(matches!(
            err("add 1"),
            LineError::Op(OpError::OperandCount {
                expected: 2,
                got: 1,
                ..
            })
        ));
        assert!(matches!(
            err("dp3 1,2,3 1,2"),
            LineError::Op(OpError::VectorWidth {
                index: 2,
                got: 2,
                ..
            })
        ));
        assert_eq!(
            err("add 1 x").to_string(),
            "operand 2 'x': not a number (expected a decimal like 0.1 or 1e-40, a hex-float like 0x1.8p+3, inf, nan, or max, min-normal, min-subnormal, epsilon)"
        );
        assert_eq!(
            err("add 1 2 = 3,4").to_string(),
            "result '3,4': not a number (expected a decimal like 0.1 or 1e-40, a hex-float like 0x1.8p+3, inf, nan, or max, min-normal, min-subnormal, epsilon)"
        );
        assert_eq!(
            err("sincos 1 = 1,2,3").to_string(),
            "result '1,2,3': expected at most 2 values"
        );
        assert_eq!(
            err("eq 1 1 = yes").to_string(),
            "result 'yes': a comparison gives true or false (0xffffffff or 0x00000000)"
        );
        // Conversions name their own formats: utof takes no f16 working format.
        assert!(matches!(
            err("utof 1"),
            LineError::Op(OpError::ConversionFormat { .. })
        ));
        assert_eq!(
            parse_op_line("utof -1", &F32, RuleSet::D3D10)
                .unwrap_err()
                .to_string(),
            "operand 1 '-1': not a u32 integer"
        );
    }

    #[test]
    fn integers_and_masks_read_in_their_domains() {
        let l = parse_op_line("itof -2 = -2", &F32, RuleSet::D3D11).unwrap();
        assert_eq!(l.request.args[0][0], Pattern::bits(0xffff_fffe));
        assert_eq!(
            l.request.check,
            Some(smallvec::smallvec![Pattern::bits(0xc000_0000)])
        );
        let l = parse_op_line("lt 1 2 = -1", &F32, RuleSet::D3D11).unwrap();
        assert_eq!(
            l.request.check,
            Some(smallvec::smallvec![Pattern::bits(0xffff_ffff)])
        );
        assert_eq!(evaluate(&l.request).unwrap().conforms(), Some(true));
    }

    #[test]
    fn the_core_refuses_patterns_wider_than_their_domain() {
        let mut r = OpRequest::from_bits(Op::Add, F16, RuleSet::D3D11, &[&[0x1_0000], &[0]]);
        assert!(matches!(
            evaluate(&r),
            Err(OpError::PatternTooWide {
                index: 1,
                width: 16,
                ..
            })
        ));
        r.args[0][0] = Pattern::bits(0x3c00);
        r.check = Some(smallvec::smallvec![Pattern::bits(0x1_3c00)]);
        assert!(matches!(evaluate(&r), Err(OpError::ClaimTooWide { .. })));
        r.check = Some(smallvec::smallvec![]);
        assert!(matches!(
            evaluate(&r),
            Err(OpError::ClaimCount { got: 0, .. })
        ));
        r.check = Some(smallvec::smallvec![Pattern::bits(0x3c00)]);
        assert_eq!(evaluate(&r).unwrap().conforms(), Some(true));
        // A comparison answers with a full mask: 1 is not "true".
        let mut lt = OpRequest::from_bits(Op::Lt, F16, RuleSet::D3D11, &[&[0], &[0x3c00]]);
        for (claim, conforms) in [(0xffff_ffff, true), (1, false), (0, false)] {
            lt.check = Some(smallvec::smallvec![Pattern::bits(claim)]);
            assert_eq!(
                evaluate(&lt).unwrap().conforms(),
                Some(conforms),
                "{claim:#x}"
            );
        }
    }
}
