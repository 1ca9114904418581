//! Instruction operands of one float format: a full-width `0x` pattern is bits, anything
//! else a value.

use super::{Constants, InputError, parse_bits, parse_value};
use crate::exact::Number;
use crate::format::FloatFormat;

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
    if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X"))
        && hex.len() == fmt.hex_digits()
        && hex.bytes().all(|b| b.is_ascii_hexdigit())
    {
        return parse_bits(t, fmt.name, fmt.width()).map(Operand::Bits);
    }
    parse_value(t, Constants::Float(fmt)).map(Operand::Value)
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
        assert_eq!(
            parse_operand("0x3f80", &F32),
            Err(InputError::HexFloatWithoutExponent)
        );
    }
}
