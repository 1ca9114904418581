//! Instruction operands and claimed results: a full-width `0x` pattern is bits, anything
//! else a value (rounded to nearest-even into the format); integers for the integer
//! conversions, `true`/`false` for comparison results.

use super::{Constants, InputError, parse_bits, parse_value};
use crate::d3d::allowed::TRUE_MASK;
use crate::d3d::{Domain, Pattern};
use crate::exact::Number;
use crate::format::{FloatFormat, RoundOptions, Rounding, round_number};

/// An instruction operand: GPU people write `0x3f800000` for bits, and anything else
/// is a value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Operand {
    /// A bit pattern of the operand's format.
    Bits(u64),
    /// A value, still to be rounded into the format.
    Value(Number),
}

/// Reads an operand of `fmt`: `0x` followed by exactly the format's width in hex digits
/// is a bit pattern; everything else goes through [`parse_value`].
pub fn parse_operand(text: &str, fmt: &FloatFormat) -> Result<Operand, InputError> {
    let t = text.trim();
    if let Some(hex) = bare_hex(t)
        && hex.len() == fmt.hex_digits()
    {
        return parse_bits(t, fmt.name, fmt.width()).map(Operand::Bits);
    }
    parse_value(t, Constants::Float(fmt))
        .map(Operand::Value)
        .map_err(|e| match e {
            // Bare hex digits of another width: a pattern of another format.
            InputError::HexFloatWithoutExponent => other_width(t, fmt).unwrap_or(e),
            e => e,
        })
}

/// The digits of `0x` (or `0X`) followed by hex digits alone, as a pattern is written.
fn bare_hex(text: &str) -> Option<&str> {
    let hex = text
        .strip_prefix("0x")
        .or_else(|| text.strip_prefix("0X"))?;
    (!hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit())).then_some(hex)
}

/// The error for `0x` and hex digits that are a whole pattern of another width than
/// `fmt`'s: that width, and the format that has it as a hint.
fn other_width(text: &str, fmt: &FloatFormat) -> Option<InputError> {
    let hex = bare_hex(text)?;
    let hint = match hex.len() {
        4 => "; for a 16-bit pattern, use --fmt f16",
        8 => "; for a 32-bit pattern, use --fmt f32",
        16 => "; for a 64-bit pattern, use --fmt f64 (or the double instruction)",
        // Another count is no format's: a slip, or a hex-float without its exponent.
        _ => return None,
    };
    Some(InputError::PatternOfAnotherWidth {
        digits: hex.len(),
        width: hex.len() * 4,
        format: fmt.name,
        expected: fmt.hex_digits(),
        hint,
    })
}

/// Reads an operand component of an instruction whose sources are in `domain`.
pub fn read_operand(text: &str, domain: &Domain) -> Result<Pattern, InputError> {
    match domain {
        Domain::Float(f) => read_float(text, f),
        Domain::I32 | Domain::U32 => read_integer(text, domain),
        Domain::Bool => read_bool(text),
    }
}

/// Reads a claimed result of an output in `domain`.
pub fn read_result(text: &str, domain: &Domain) -> Result<Pattern, InputError> {
    read_operand(text.trim(), domain)
}

/// A float: full-width `0x` hex is bits, anything else a value rounded to nearest-even.
fn read_float(text: &str, f: &FloatFormat) -> Result<Pattern, InputError> {
    // The batch hot path: `0x` and exactly the format's hex digits (a batch word has no
    // white space to trim).
    if let Some(hex) = text.strip_prefix("0x")
        && hex.len() == f.hex_digits()
        && let Some(bits) = super::bits::hex_digits(hex)
        && bits <= f.mask()
    {
        return Ok(Pattern::bits(bits));
    }
    Ok(match parse_operand(text, f)? {
        Operand::Bits(b) => Pattern::bits(b),
        Operand::Value(v) => {
            let r = round_number(f, &v, RoundOptions::new(Rounding::NearestEven));
            Pattern {
                bits: r.bits,
                inexact_literal: !r.outcome.exact,
            }
        }
    })
}

/// A 32-bit integer: decimal (signed for i32), or `0x` hex / `0b` binary bits.
fn read_integer(text: &str, domain: &Domain) -> Result<Pattern, InputError> {
    let t = text.trim();
    let kind = domain.name();
    let bits = if ["0x", "0X", "0b", "0B"].iter().any(|p| t.starts_with(p)) {
        parse_bits(t, kind, 32).ok()
    } else if *domain == Domain::I32 {
        t.parse::<i32>().ok().map(|v| v as u32 as u64)
    } else {
        t.parse::<u32>().ok().map(u64::from)
    };
    bits.map(Pattern::bits)
        .ok_or(InputError::NotAnInteger { kind })
}

/// A comparison's result: `true`/`false`, or the masks the instruction writes.
fn read_bool(text: &str) -> Result<Pattern, InputError> {
    match text.trim().to_ascii_lowercase().as_str() {
        "true" | "0xffffffff" | "-1" | "4294967295" => Ok(Pattern::bits(TRUE_MASK)),
        "false" | "0x00000000" | "0x0" | "0" => Ok(Pattern::bits(0)),
        _ => Err(InputError::NotABoolean),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::F32;

    #[test]
    fn operands_of_full_width_hex_are_bits() {
        assert_eq!(
            parse_operand("0x3f800000", &F32),
            Ok(Operand::Bits(0x3f80_0000))
        );
        assert_eq!(parse_operand("0x00000001", &F32), Ok(Operand::Bits(1)));
        assert!(matches!(
            parse_operand("0x1p0", &F32),
            Ok(Operand::Value(_))
        ));
        assert!(matches!(parse_operand("1.5", &F32), Ok(Operand::Value(_))));
        assert!(matches!(
            parse_operand("0x3f80", &F32),
            Err(InputError::PatternOfAnotherWidth {
                digits: 4,
                width: 16,
                expected: 8,
                ..
            })
        ));
        // A sign inside the digits is not a pattern, on the fast path or the slow one.
        for text in ["0x+3f80000", "0x-3f80000"] {
            assert!(read_operand(text, &Domain::Float(F32)).is_err(), "{text}");
        }
        assert_eq!(
            read_operand(" 0x3F800000 ", &Domain::Float(F32)),
            Ok(Pattern::bits(0x3f80_0000))
        );
    }
}
