//! Operands and claimed results as the instruction sees them: the input flush of §3.1.3.2,
//! and the verdict on a claimed result.

use super::allowed::{Domain, TRUE_MASK};
use super::{
    ClaimVerdict, Op, OpError, OperandReading, OutputResult, OutputVerdict, Pattern, PerOutput,
};
use crate::format::Class;

/// Reads operand `index` (1-based) of `op`.
pub fn read(p: Pattern, domain: &Domain, op: Op, index: usize) -> Result<OperandReading, OpError> {
    let width = domain.width();
    if width < 64 && p.bits >> width != 0 {
        return Err(OpError::PatternTooWide {
            index,
            bits: p.bits,
            domain: domain.name(),
            width,
        });
    }
    // §3.1.3.2: 32-bit arithmetic reads a denorm as a zero of its sign. ftod may or may not
    // (§22.17.2); it handles that freedom itself.
    let flushed_to = match domain {
        Domain::Float(f)
            if f.arithmetic_flushes_subnormals
                && op != Op::Ftod
                && f.class(p.bits) == Class::Subnormal =>
        {
            Some(f.assemble(f.fields(p.bits).sign, 0, 0))
        }
        _ => None,
    };
    Ok(OperandReading {
        domain: *domain,
        bits: p.bits,
        inexact_literal: p.inexact_literal,
        flushed_to,
    })
}

/// Judges claimed results, one per output in order (sincos: one value checks the sine).
pub fn check(claims: &[Pattern], outputs: &[OutputResult]) -> Result<ClaimVerdict, OpError> {
    if claims.is_empty() || claims.len() > outputs.len() {
        return Err(OpError::ClaimCount {
            expected: outputs.len(),
            got: claims.len(),
        });
    }
    for (claim, out) in claims.iter().zip(outputs) {
        let width = out.domain.width();
        if width < 64 && claim.bits >> width != 0 {
            return Err(OpError::ClaimTooWide {
                bits: claim.bits,
                domain: out.domain.name(),
                width,
            });
        }
    }
    let verdicts: PerOutput<OutputVerdict> = claims
        .iter()
        .zip(outputs)
        .map(|(claim, out)| {
            // §22.6: a comparison writes a full mask, so only 0 and 0xffffffff are answers
            // (the set itself reads any non-zero word as true).
            let mask = out.domain != Domain::Bool || claim.bits == 0 || claim.bits == TRUE_MASK;
            let conforms = mask && out.allowed.contains(&out.domain, claim.bits);
            OutputVerdict {
                result: claim.bits,
                conforms,
                miss_ulps: if conforms {
                    Some(0)
                } else if !mask {
                    None
                } else {
                    out.allowed.miss_ulps(&out.domain, claim.bits)
                },
                broken: (!conforms).then_some(out.governing),
                inexact_literal: claim.inexact_literal,
            }
        })
        .collect();
    let conforms = verdicts.iter().all(|v| v.conforms);
    Ok(ClaimVerdict { verdicts, conforms })
}
