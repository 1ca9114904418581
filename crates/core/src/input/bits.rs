//! Bit patterns as typed: hexadecimal, binary or decimal integers.

use super::InputError;

/// Reads a bit pattern: `0x7c0`, `0b111_1100_0000` or `1984`. An underscore may stand only
/// between two digits (`0b0_11110`, not `0x_1`, `1_` or `1__0`), as in Python and Java:
/// a stray one is more likely a typo than a separator. The pattern must fit in `width` bits.
pub fn parse_bits(text: &str, format: &'static str, width: u32) -> Result<u64, InputError> {
    // The common case, `0x` and plain hex digits, without the general scan below (and
    // without trimming: text made only of those has nothing to trim).
    if let Some(h) = text.strip_prefix("0x")
        && let Some(bits) = hex_digits(h)
    {
        return if width < 64 && bits >> width != 0 {
            Err(InputError::TooWide { format, width })
        } else {
            Ok(bits)
        };
    }
    let t = text.trim();
    if t.is_empty() {
        return Err(InputError::Empty);
    }
    let (digits, radix) = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        (h, 16)
    } else if let Some(b) = t.strip_prefix("0b").or_else(|| t.strip_prefix("0B")) {
        (b, 2)
    } else {
        (t, 10)
    };
    if digits.is_empty()
        || !digits.chars().all(|c| c.is_digit(radix) || c == '_')
        || digits.starts_with('_')
        || digits.ends_with('_')
        || digits.contains("__")
    {
        return Err(InputError::NotBits);
    }
    let wide = || InputError::TooWide { format, width };
    let bits = if digits.contains('_') {
        let clean: String = digits.chars().filter(|c| *c != '_').collect();
        if clean.is_empty() {
            return Err(InputError::NotBits);
        }
        u64::from_str_radix(&clean, radix)
    } else {
        u64::from_str_radix(digits, radix)
    }
    .map_err(|_| wide())?;
    if width < 64 && bits >> width != 0 {
        return Err(wide());
    }
    Ok(bits)
}

/// The value of a string made only of hexadecimal digits (no sign, no underscore, at most
/// 16 digits): the fast path for patterns typed at full width, `0x3f800000`.
#[inline]
pub fn hex_digits(digits: &str) -> Option<u64> {
    if digits.is_empty() || digits.len() > 16 {
        return None;
    }
    // Table look-ups without a branch per digit (random patterns mix digits and letters
    // unpredictably); any byte that is not a digit sets the top bit of `bad`.
    let mut bad = 0u8;
    let bits = digits.bytes().fold(0u64, |acc, b| {
        let d = HEX_VALUE[usize::from(b)];
        bad |= d;
        acc << 4 | u64::from(d & 0xf)
    });
    (bad & 0x80 == 0).then_some(bits)
}

/// The value of each byte as a hexadecimal digit, or 0xff for a byte that is none.
const HEX_VALUE: [u8; 256] = {
    let mut table = [0xff; 256];
    let mut i = 0;
    while i < 10 {
        table[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        table[b'a' as usize + i] = 10 + i as u8;
        table[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    table
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_digits_are_digits_only() {
        assert_eq!(hex_digits("3f800000"), Some(0x3f80_0000));
        assert_eq!(hex_digits("FfFf"), Some(0xffff));
        assert_eq!(hex_digits("ffffffffffffffff"), Some(u64::MAX));
        // from_str_radix would take the sign; a pattern has none.
        for bad in [
            "+3f80000",
            "-1",
            "",
            "3f_80",
            "0x1",
            "1ffffffffffffffff",
            " 1",
        ] {
            assert_eq!(hex_digits(bad), None, "{bad}");
        }
    }

    #[test]
    fn bits_in_three_radixes() {
        assert_eq!(parse_bits("0x7c0", "f11", 11), Ok(0x7c0));
        assert_eq!(parse_bits("0b11111000000", "f11", 11), Ok(0x7c0));
        assert_eq!(parse_bits("1984", "f11", 11), Ok(0x7c0));
        assert_eq!(parse_bits("0b0_11110_0000000000", "f16", 16), Ok(0x7800));
        assert_eq!(
            parse_bits("0x800", "f11", 11),
            Err(InputError::TooWide {
                format: "f11",
                width: 11
            })
        );
        assert_eq!(parse_bits("0xg", "f11", 11), Err(InputError::NotBits));
        for stray in ["0x_1", "1_", "0b1__0", "_1", "0x_"] {
            assert_eq!(
                parse_bits(stray, "f11", 11),
                Err(InputError::NotBits),
                "{stray}"
            );
        }
        assert_eq!(parse_bits("", "f11", 11), Err(InputError::Empty));
        assert_eq!(parse_bits("0xffffffffffffffff", "f64", 64), Ok(u64::MAX));
    }
}
