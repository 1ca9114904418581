//! Values as typed: decimals, hex-floats, `inf`, `nan` and named constants, read exactly.
//! Nothing here goes through `f64`: a 200-digit decimal is read as the rational it names,
//! so the rounding that follows is the only one.

use num_bigint::BigUint;

use super::InputError;
use crate::exact::{Number, Ratio};
use crate::format::packed::rgb9e5_max;
use crate::format::{FloatFormat, Format};

/// Decimal and binary exponents beyond this are refused rather than expanded: far past
/// every format's range, and 10^20000 is still cheap to compute exactly.
pub const EXPONENT_LIMIT: i64 = 20_000;

/// Which named constants a value may use: those of a float format, or of RGB9E5.
#[derive(Clone, Copy, Debug)]
pub enum Constants<'a> {
    /// The constants of one binary float format.
    Float(&'a FloatFormat),
    /// RGB9E5's (`max`, `min-subnormal`); it has no normal/subnormal split or epsilon.
    Rgb9e5,
}

impl Constants<'_> {
    fn lookup(&self, name: &str) -> Result<Ratio, InputError> {
        let missing = |format: &'static str| InputError::NoSuchConstant {
            format,
            name: name.to_string(),
        };
        match self {
            Constants::Float(f) => {
                let bits = match name {
                    "max" => f.max_finite(),
                    "min-normal" | "min_normal" => f.min_normal(),
                    "min-subnormal" | "min_subnormal" | "min-denorm" => f.min_subnormal(),
                    "epsilon" | "eps" => return Ok(f.epsilon()),
                    _ => return Err(InputError::NotANumber),
                };
                match f.value(bits) {
                    Number::Finite { mag, .. } => Ok(mag),
                    _ => unreachable!("named constants are finite"),
                }
            }
            Constants::Rgb9e5 => match name {
                "max" => Ok(rgb9e5_max()),
                // One mantissa unit at the smallest shared exponent: 2^-24.
                "min-subnormal" | "min_subnormal" | "min-denorm" => Ok(Ratio::dyadic(1u32, -24)),
                "min-normal" | "min_normal" | "epsilon" | "eps" => Err(missing("rgb9e5")),
                _ => Err(InputError::NotANumber),
            },
        }
    }
}

impl<'a> Constants<'a> {
    /// The constants a value of channel `channel` (0 = R) of `format` may name: the
    /// format's own, f11/f11/f10 for R11G11B10, RGB9E5's for its channels.
    pub fn for_channel(format: &'a Format, channel: usize) -> Constants<'a> {
        match format {
            Format::Float(f) => Constants::Float(f),
            Format::R11G11B10 => Constants::Float(if channel == 2 {
                &crate::format::F10
            } else {
                &crate::format::F11
            }),
            Format::Rgb9e5 => Constants::Rgb9e5,
        }
    }
}

/// Reads a value exactly: decimal of any length, hex-float, `inf`, `nan`, `-0`, or a named
/// constant of the target format (`max`, `min-normal`, `min-subnormal`, `epsilon`).
pub fn parse_value(text: &str, constants: Constants) -> Result<Number, InputError> {
    let t = text.trim();
    if t.is_empty() {
        return Err(InputError::Empty);
    }
    let (neg, body) = match t.as_bytes()[0] {
        b'-' => (true, &t[1..]),
        b'+' => (false, &t[1..]),
        _ => (false, t),
    };
    let lower = body.to_ascii_lowercase();
    match lower.as_str() {
        "inf" | "infinity" => return Ok(Number::Infinity { neg }),
        "nan" => {
            return Ok(match Number::QUIET_NAN {
                Number::Nan { payload, .. } => Number::Nan { neg, payload },
                _ => unreachable!(),
            });
        }
        _ => {}
    }
    if lower.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return constants.lookup(&lower).map(|mag| Number::finite(neg, mag));
    }
    let mag = if let Some(hex) = lower.strip_prefix("0x") {
        parse_hex_float(hex)?
    } else {
        parse_decimal(&lower)?
    };
    Ok(Number::finite(neg, mag))
}

/// Significant decimal digits of a literal read exactly; past them, the digits only count
/// as "something non-zero follows", which is all rounding needs. Why 800 is enough:
///
/// Every point where a rounding decision changes, in any format here and any mode, is a
/// representable value or a midpoint between two neighbours. All of them are of the form
/// `m * 2^e` with `m < 2^54` and `e >= -1075` (the f64 subnormal midpoints are the finest),
/// so their exact decimal expansions have at most 767 significant digits
/// (`log10(2^54 * 5^1075)` < 767). Cut a literal `x` after its first `N >= 767`
/// significant digits into `t`, and let `u` be the place value of the last kept digit, so
/// `t <= x < t + u`. A boundary `b` in `[t, t + u]` starts at the same decimal place as
/// `x` or one higher, and ends at most 766 places lower, so it is a whole multiple of `u`:
/// only `t` and `t + u` can be boundaries. When the cut-off digits are all zero, `x = t`
/// exactly. Otherwise `t < x < t + u`, and `t + u/10` (the kept digits followed by a `1`)
/// lies strictly inside the same gap between boundaries as `x`: every mode rounds both the
/// same way, and both are inexact. The cost of reading a literal is then linear in its
/// length, with big-integer work on at most 801 digits.
pub const SIGNIFICANT_DIGITS: usize = 800;

/// The same for hex-floats: boundaries have at most 54 significant bits, and 32 hex digits
/// keep at least 125.
const SIGNIFICANT_HEX_DIGITS: usize = 32;

/// `ddd.ddde±x` (either side of the point may be empty, not both).
fn parse_decimal(s: &str) -> Result<Ratio, InputError> {
    let (mantissa, exp) = match s.find('e') {
        Some(i) => (&s[..i], parse_exponent(&s[i + 1..])?),
        None => (s, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = Digits::new(int, frac, 10)?;
    let Some(kept) = digits.kept(SIGNIFICANT_DIGITS) else {
        return Ok(Ratio::zero());
    };
    // The value's magnitude, not the written exponent, must stay in range: it is known
    // from the digit count alone, before any big-integer work.
    let magnitude = exp - frac.len() as i64 + digits.significant as i64;
    if magnitude.abs() > EXPONENT_LIMIT {
        return Err(InputError::ExponentOutOfRange);
    }
    let m = BigUint::parse_bytes(kept.text.as_bytes(), 10).ok_or(InputError::NotANumber)?;
    Ok(Ratio::decimal(m, exp - frac.len() as i64 + kept.shift))
}

/// `h.hhhp±x` after the `0x` prefix.
fn parse_hex_float(s: &str) -> Result<Ratio, InputError> {
    let Some(p) = s.find('p') else {
        return Err(InputError::HexFloatWithoutExponent);
    };
    let exp = parse_exponent(&s[p + 1..])?;
    let mantissa = &s[..p];
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = Digits::new(int, frac, 16)?;
    let Some(kept) = digits.kept(SIGNIFICANT_HEX_DIGITS) else {
        return Ok(Ratio::zero());
    };
    let m = BigUint::parse_bytes(kept.text.as_bytes(), 16).ok_or(InputError::NotANumber)?;
    let exp2 = exp - 4 * frac.len() as i64 + 4 * kept.shift;
    if (exp2 + m.bits() as i64).abs() > EXPONENT_LIMIT {
        return Err(InputError::ExponentOutOfRange);
    }
    Ok(Ratio::dyadic(m, exp2))
}

/// The digits of a mantissa written `int.frac`, checked, with leading zeros counted out.
struct Digits<'a> {
    int: &'a str,
    frac: &'a str,
    /// Digits from the first non-zero one on.
    significant: usize,
}

/// The digits to read exactly, and the power of the radix to scale them by (the digits cut
/// off, less one when a sticky `1` stands for a non-zero tail).
struct Kept {
    text: String,
    shift: i64,
}

impl<'a> Digits<'a> {
    fn new(int: &'a str, frac: &'a str, radix: u32) -> Result<Digits<'a>, InputError> {
        let all = || int.bytes().chain(frac.bytes());
        if int.is_empty() && frac.is_empty() || !all().all(|b| (b as char).is_digit(radix)) {
            return Err(InputError::NotANumber);
        }
        let leading_zeros = all().take_while(|&b| b == b'0').count();
        Ok(Digits {
            int,
            frac,
            significant: int.len() + frac.len() - leading_zeros,
        })
    }

    /// The first `limit` significant digits (and a sticky `1` when non-zero digits follow
    /// them); `None` for a zero.
    fn kept(&self, limit: usize) -> Option<Kept> {
        if self.significant == 0 {
            return None;
        }
        let skip = self.int.len() + self.frac.len() - self.significant;
        let mut rest = self.int.bytes().chain(self.frac.bytes()).skip(skip);
        let mut text: String = rest.by_ref().take(limit).map(char::from).collect();
        let cut = self.significant.saturating_sub(limit) as i64;
        let mut shift = cut;
        if rest.any(|b| b != b'0') {
            text.push('1');
            shift -= 1;
        }
        Some(Kept { text, shift })
    }
}

fn parse_exponent(s: &str) -> Result<i64, InputError> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(InputError::NotANumber);
    }
    // Anything longer than this is out of range whatever the mantissa (leading zeros do
    // not count: `1e0000000000005` is 1e5).
    if digits.trim_start_matches('0').len() > 12 {
        return Err(InputError::ExponentOutOfRange);
    }
    let v: i64 = digits.parse().map_err(|_| InputError::NotANumber)?;
    Ok(if s.starts_with('-') { -v } else { v })
}

/// Values that make one word of `format`: one for the float formats, three (R, G, B)
/// for the packed words.
pub fn values_per_word(format: &Format) -> usize {
    match format {
        Format::Float(_) => 1,
        Format::R11G11B10 | Format::Rgb9e5 => 3,
    }
}

/// Splits a line into the values of one word of `format` (space or comma separated).
pub fn split_word<'a>(line: &'a str, format: &Format) -> Result<Vec<&'a str>, InputError> {
    let texts: Vec<&str> = line
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty())
        .collect();
    let want = values_per_word(format);
    if texts.len() != want {
        return Err(InputError::WrongValueCount {
            format: format.name(),
            want,
            found: texts.len(),
        });
    }
    Ok(texts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{F11, F16, F32};

    fn val(s: &str) -> Number {
        parse_value(s, Constants::Float(&F16)).unwrap()
    }

    #[test]
    fn decimals_are_exact() {
        assert_eq!(
            val("0.1"),
            Number::finite(false, Ratio::new(1u32.into(), 10u32.into()))
        );
        assert_eq!(val("-0"), Number::zero(true));
        assert_eq!(
            val("1e-40"),
            Number::finite(false, Ratio::decimal(1u32, -40))
        );
        assert_eq!(val(".5"), Number::finite(false, Ratio::dyadic(1u32, -1)));
        assert_eq!(val("5."), Number::finite(false, Ratio::from_integer(5u32)));
        let long = format!("1.{}1", "0".repeat(198));
        assert_eq!(
            val(&long),
            Number::finite(
                false,
                Ratio::from_integer(1u32).add(&Ratio::decimal(1u32, -199))
            )
        );
    }

    #[test]
    fn hex_floats_and_specials() {
        assert_eq!(
            val("0x1.8p+3"),
            Number::finite(false, Ratio::from_integer(12u32))
        );
        assert_eq!(
            val("-0x1p-24"),
            Number::finite(true, Ratio::dyadic(1u32, -24))
        );
        assert_eq!(val("-inf"), Number::Infinity { neg: true });
        assert!(val("NaN").is_nan());
        assert_eq!(
            parse_value("0x3c00", Constants::Float(&F16)),
            Err(InputError::HexFloatWithoutExponent)
        );
    }

    #[test]
    fn named_constants_follow_the_format() {
        assert_eq!(
            val("max"),
            Number::finite(false, Ratio::from_integer(65504u32))
        );
        assert_eq!(
            val("-min-subnormal"),
            Number::finite(true, Ratio::dyadic(1u32, -24))
        );
        assert_eq!(
            val("epsilon"),
            Number::finite(false, Ratio::dyadic(1u32, -10))
        );
        assert_eq!(
            parse_value("max", Constants::Float(&F11)),
            Ok(Number::finite(false, Ratio::from_integer(65024u32)))
        );
        assert!(matches!(
            parse_value("epsilon", Constants::Rgb9e5),
            Err(InputError::NoSuchConstant { .. })
        ));
    }

    #[test]
    fn garbage_is_refused() {
        for bad in [
            "abc",
            "1.2.3",
            "1e",
            "--1",
            "0x1.8",
            "1e999999999999999",
            "1e30000",
            ".",
        ] {
            assert!(
                parse_value(bad, Constants::Float(&F32)).is_err(),
                "{bad} should be refused"
            );
        }
    }
}
