//! The operands of `ulp-diff`: `A B` as arguments or one pair per stdin line, each a
//! pattern or a value of the format (three values `R,G,B` for the packed words).

use super::words::words;
use super::{Constants, InputError, Operand, parse_operand, parse_value};
use crate::format::packed::{r11g11b10_encode, rgb9e5_encode};
use crate::format::{Format, RoundOptions, Rounding, round_number};
use crate::ulp::Resolved;

/// Splits a stdin line into its two operands `A B` (white space separated).
pub fn split_pair(line: &str) -> Result<[&str; 2], InputError> {
    let mut texts = words(line);
    match (texts.next(), texts.next(), texts.next()) {
        (Some(a), Some(b), None) => Ok([a, b]),
        _ => Err(InputError::NotAPair {
            found: words(line).count(),
        }),
    }
}

/// Reads an operand of `format` the way `op` does: `0x` followed by exactly the format's
/// width in hex digits is a pattern, anything else a value rounded into the format to
/// nearest even. Packed words take a pattern or three values `R,G,B`.
pub fn resolve_operand(text: &str, format: Format) -> Result<Resolved, InputError> {
    let from_value = |bits, exact| Resolved {
        bits,
        from_value: true,
        exact,
    };
    match format {
        Format::Float(f) => match parse_operand(text, &f)? {
            Operand::Bits(bits) => Ok(Resolved::bits(bits)),
            Operand::Value(v) => {
                let r = round_number(&f, &v, RoundOptions::new(Rounding::NearestEven));
                Ok(from_value(r.bits, r.outcome.exact))
            }
        },
        Format::R11G11B10 | Format::Rgb9e5 => {
            let t = text.trim();
            if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X"))
                && hex.len() == 8
                && hex.bytes().all(|b| b.is_ascii_hexdigit())
            {
                let bits = u64::from_str_radix(hex, 16).expect("checked hex digits");
                return Ok(Resolved::bits(bits));
            }
            let parts: Vec<&str> = t.split(',').collect();
            let [r, g, b] = parts[..] else {
                return Err(InputError::NotAPackedOperand {
                    format: format.name(),
                });
            };
            // Named constants (`max`, ...) are the channel's own: f11, f11, f10 or RGB9E5.
            let values = [
                parse_value(r, Constants::for_channel(&format, 0))?,
                parse_value(g, Constants::for_channel(&format, 1))?,
                parse_value(b, Constants::for_channel(&format, 2))?,
            ];
            let (word, outcomes) = if format == Format::R11G11B10 {
                r11g11b10_encode(&values, RoundOptions::new(Rounding::NearestEven))
            } else {
                rgb9e5_encode(&values, Rounding::NearestEven)
            };
            Ok(from_value(word as u64, outcomes.iter().all(|o| o.exact)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pair_is_two_operands() {
        assert_eq!(split_pair(" 1  0x3c00 "), Ok(["1", "0x3c00"]));
        assert_eq!(split_pair("1"), Err(InputError::NotAPair { found: 1 }));
        assert_eq!(split_pair("1 2 3"), Err(InputError::NotAPair { found: 3 }));
    }

    #[test]
    fn packed_operands_are_words_or_three_values() {
        assert_eq!(
            resolve_operand("1,2", Format::Rgb9e5),
            Err(InputError::NotAPackedOperand { format: "rgb9e5" })
        );
        assert_eq!(
            resolve_operand("0x3c003c00", Format::R11G11B10),
            Ok(Resolved::bits(0x3c00_3c00))
        );
    }
}
