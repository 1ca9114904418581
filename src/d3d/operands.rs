//! Reading operands and claimed results the way the instruction sees them.

use super::allowed::{Domain, TRUE_MASK};
use super::{CheckReport, Op, OpError, OperandReport, OutputReport, OutputVerdict};
use crate::format::{Class, FloatFormat, RoundOptions, Rounding, round_number};
use crate::input::{Operand, parse_bits, parse_operand};

/// Reads operand `index` (1-based) of `op`.
pub fn read(text: &str, domain: &Domain, op: Op, index: usize) -> Result<OperandReport, OpError> {
    let (bits, inexact_literal) = match domain {
        Domain::Float(f) => read_float(text, f).map_err(|source| OpError::Operand {
            index,
            text: text.to_string(),
            source,
        })?,
        Domain::I32 | Domain::U32 => (
            read_integer(text, *domain).ok_or_else(|| OpError::Integer {
                index,
                text: text.to_string(),
                kind: domain.name(),
            })?,
            false,
        ),
        Domain::Bool => unreachable!("no instruction takes a mask operand"),
    };
    // §3.1.3.2: 32-bit arithmetic reads a denorm as a zero of its sign. ftod may or may not
    // (§22.17.2); it handles that freedom itself.
    let flushed_to = match domain {
        Domain::Float(f)
            if f.arithmetic_flushes_subnormals
                && op != Op::Ftod
                && f.class(bits) == Class::Subnormal =>
        {
            Some(f.assemble(f.fields(bits).sign, 0, 0))
        }
        _ => None,
    };
    Ok(OperandReport {
        text: text.to_string(),
        domain: *domain,
        bits,
        inexact_literal,
        flushed_to,
    })
}

/// A float operand: full-width `0x` hex is bits, anything else a value rounded to nearest.
pub fn read_float(text: &str, f: &FloatFormat) -> Result<(u64, bool), crate::input::InputError> {
    // The batch hot path: `0x` and exactly the format's hex digits.
    let t = text.trim();
    if let Some(hex) = t.strip_prefix("0x")
        && hex.len() == f.hex_digits()
        && let Ok(bits) = u64::from_str_radix(hex, 16)
        && bits <= f.mask()
    {
        return Ok((bits, false));
    }
    Ok(match parse_operand(text, f)? {
        Operand::Bits(b) => (b, false),
        Operand::Value(v) => {
            let r = round_number(f, &v, RoundOptions::new(Rounding::NearestEven));
            (r.bits, !r.outcome.exact)
        }
    })
}

/// A 32-bit integer: decimal (signed for i32), or `0x` hex / `0b` binary bits.
fn read_integer(text: &str, domain: Domain) -> Option<u64> {
    let t = text.trim();
    if t.starts_with("0x") || t.starts_with("0X") || t.starts_with("0b") || t.starts_with("0B") {
        return parse_bits(t, domain.name(), 32).ok();
    }
    match domain {
        Domain::I32 => t.parse::<i32>().ok().map(|v| v as u32 as u64),
        _ => t.parse::<u32>().ok().map(|v| v as u64),
    }
}

/// Reads a claimed result in an output's domain.
fn read_result(text: &str, domain: &Domain) -> Result<(u64, bool), String> {
    let t = text.trim();
    match domain {
        Domain::Float(f) => read_float(t, f).map_err(|e| e.to_string()),
        Domain::Bool => match t.to_ascii_lowercase().as_str() {
            "true" | "0xffffffff" | "-1" | "4294967295" => Ok((TRUE_MASK, false)),
            "false" | "0x00000000" | "0x0" | "0" => Ok((0, false)),
            _ => Err("a comparison gives true or false (0xffffffff or 0x00000000)".into()),
        },
        Domain::I32 | Domain::U32 => read_integer(t, *domain)
            .map(|b| (b, false))
            .ok_or_else(|| format!("not {} integer", super::with_article(domain.name()))),
    }
}

/// Checks a claimed result (`S,C` for the two outputs of sincos; one value checks the first).
pub fn check(text: &str, outputs: &[OutputReport]) -> Result<CheckReport, OpError> {
    // One claimed value per output (sincos: `S,C`), read without collecting the parts.
    let multi = outputs.len() > 1;
    let parts = || text.splitn(if multi { usize::MAX } else { 1 }, ',');
    let count = if multi { parts().count() } else { 1 };
    if count > outputs.len() {
        return Err(OpError::Result {
            text: text.to_string(),
            message: format!("expected at most {} values", outputs.len()),
        });
    }
    let mut verdicts = Vec::with_capacity(count);
    for (part, out) in parts().zip(outputs) {
        let (bits, inexact_literal) =
            read_result(part, &out.domain).map_err(|message| OpError::Result {
                text: part.trim().to_string(),
                message,
            })?;
        let conforms = out.allowed.contains(&out.domain, bits);
        verdicts.push(OutputVerdict {
            result: bits,
            conforms,
            miss_ulps: if conforms {
                Some(0)
            } else {
                out.allowed.miss_ulps(&out.domain, bits)
            },
            broken: (!conforms).then_some(out.governing),
            inexact_literal,
        });
    }
    let conforms = verdicts.iter().all(|v| v.conforms);
    Ok(CheckReport {
        text: text.trim().to_string(),
        verdicts,
        conforms,
    })
}
