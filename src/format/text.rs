//! Text forms of a pattern's value: the exact decimal expansion, the shortest decimal that
//! reads back to the same pattern, and hex-float.

use std::cmp::Ordering;
use std::sync::OnceLock;

use num_bigint::BigUint;

use super::descriptor::{Class, FloatFormat};
use crate::exact::{Number, Ratio};

/// Every digit of the value (`inf`, `-inf`, `nan` for the specials; `-0` for negative zero).
pub fn exact_decimal(fmt: &FloatFormat, bits: u64) -> String {
    match fmt.value(bits) {
        Number::Nan { .. } => "nan".into(),
        Number::Infinity { neg } => if neg { "-inf" } else { "inf" }.into(),
        Number::Finite { neg, mag } => {
            let digits = mag.decimal_expansion().expect("dyadic values expand");
            if neg { format!("-{digits}") } else { digits }
        }
    }
}

/// The shortest decimal that rounds back (to nearest even) to this pattern, and among
/// those the closest to the value. Positional between 1e-4 and 1e16, else `1e-40` style.
pub fn shortest_decimal(fmt: &FloatFormat, bits: u64) -> String {
    let mut s = String::new();
    write_shortest(&mut s, fmt, bits);
    s
}

/// [`shortest_decimal`] appended to `out`, without allocating: the hot path of
/// `decode --plain` over stdin.
pub fn write_shortest(out: &mut String, fmt: &FloatFormat, bits: u64) {
    use std::fmt::Write;
    let f = fmt.fields(bits);
    if f.sign && fmt.class(bits) != Class::Nan {
        out.push('-');
    }
    match fmt.class(bits) {
        Class::Nan => return out.push_str("nan"),
        Class::Infinity => return out.push_str("inf"),
        Class::Zero => return out.push('0'),
        _ => {}
    }
    if fmt.width() >= 32 {
        // The standard library's float formatting is shortest-round-trip for f32 and f64:
        // write its `d.ddde±x` form, lift the digits out, and lay them out again in place.
        let start = out.len();
        let _ = if fmt.width() == 64 {
            write!(out, "{:e}", f64::from_bits(bits).abs())
        } else {
            write!(out, "{:e}", f32::from_bits(bits as u32).abs())
        };
        let mut digits = [0u8; 24];
        let mut n = 0;
        let (mantissa, exp) = out[start..]
            .split_once('e')
            .expect("LowerExp writes an exponent");
        let exp: i64 = exp.parse().expect("LowerExp exponent is an integer");
        let mut frac_len = 0;
        let mut after_point = false;
        for b in mantissa.bytes() {
            if b == b'.' {
                after_point = true;
            } else {
                digits[n] = b;
                n += 1;
                frac_len += after_point as i64;
            }
        }
        out.truncate(start);
        let digits = std::str::from_utf8(&digits[..n]).expect("ASCII digits");
        layout_into(out, digits, exp - frac_len);
    } else {
        let (digits, exp10) = small_format_digits(fmt, bits & !fmt.assemble(true, 0, 0));
        layout_into(out, digits, *exp10);
    }
}

/// Shortest digits for formats of 16 bits or fewer, cached per pattern: stdin batches of
/// `decode --plain` hit the same patterns again and again.
fn small_format_digits(fmt: &FloatFormat, magnitude_bits: u64) -> &'static (String, i64) {
    type Table = Vec<OnceLock<(String, i64)>>;
    static TABLES: [OnceLock<Table>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    // One table per small format, told apart by its fraction width (10, 6 or 5 bits).
    let slot = match fmt.frac_bits {
        10 => 0,
        6 => 1,
        _ => 2,
    };
    let table = TABLES[slot].get_or_init(|| {
        (0..=fmt.mask() & !fmt.assemble(true, 0, 0))
            .map(|_| OnceLock::new())
            .collect()
    });
    table[magnitude_bits as usize].get_or_init(|| shortest_digits(fmt, magnitude_bits))
}

/// The reference shortest-decimal search on exact rationals, for any finite positive
/// pattern: the digits of the shortest decimal inside the pattern's rounding interval.
pub fn shortest_digits(fmt: &FloatFormat, bits: u64) -> (String, i64) {
    let v = match fmt.value(bits) {
        Number::Finite { mag, .. } => mag,
        _ => unreachable!("shortest_digits takes finite patterns"),
    };
    let (down, up) = fmt.neighbours(bits);
    let below = match down {
        Some(b) if fmt.ordinal(b).unwrap_or(0) > 0 => finite_mag(fmt, b),
        _ => Ratio::zero(),
    };
    let above = match up.map(|b| (b, fmt.class(b))) {
        Some((_, Class::Infinity)) => {
            // Past the largest finite value the next step is one more unit; the midpoint
            // to it is the overflow threshold.
            v.add(&fmt.ulp(bits).expect("finite"))
        }
        Some((b, _)) => finite_mag(fmt, b),
        None => unreachable!("finite patterns have a successor"),
    };
    // Midpoints to the neighbours bound the interval; they round to this pattern only when
    // its significand is even (ties to even).
    let lo = v.add(&below).mul_pow2(-1);
    let hi = v.add(&above).mul_pow2(-1);
    let inclusive = fmt.significand(bits).0.is_multiple_of(2);
    let top = v.floor_log10();
    for n in 1..=40i64 {
        let unit_exp = top - n + 1;
        let in_units = |r: &Ratio| r.mul(&Ratio::decimal(1u32, -unit_exp));
        let (lo_floor, lo_ceil) = in_units(&lo).floor_ceil();
        let (hi_floor, hi_ceil) = in_units(&hi).floor_ceil();
        // Integer multiples of the unit strictly or inclusively inside (lo, hi).
        let first = if inclusive || lo_floor != lo_ceil {
            lo_ceil.clone()
        } else {
            &lo_ceil + 1u32
        };
        let last = if inclusive || hi_floor != hi_ceil {
            hi_floor.clone()
        } else {
            hi_floor.clone() - 1u32
        };
        if first > last {
            continue;
        }
        // Pick the candidate closest to v, clamped into the interval.
        let scaled_v = in_units(&v);
        let (vf, vc) = scaled_v.floor_ceil();
        let closest = if vf == vc {
            vf
        } else {
            let (_, residue) = scaled_v.scaled_floor(0);
            match residue.vs_half {
                Ordering::Less => vf,
                Ordering::Greater => vc,
                Ordering::Equal => {
                    if &vf % 2u32 == BigUint::ZERO {
                        vf
                    } else {
                        vc
                    }
                }
            }
        };
        let chosen = closest.clamp(first, last);
        return trim_digits(chosen.to_str_radix(10), unit_exp);
    }
    unreachable!("a 40-digit decimal always lies inside the rounding interval")
}

fn finite_mag(fmt: &FloatFormat, bits: u64) -> Ratio {
    match fmt.value(bits) {
        Number::Finite { mag, .. } => mag,
        _ => unreachable!("finite neighbour"),
    }
}

fn trim_digits(digits: String, exp10: i64) -> (String, i64) {
    let trimmed = digits.trim_end_matches('0');
    let removed = (digits.len() - trimmed.len()) as i64;
    (trimmed.to_string(), exp10 + removed)
}

/// Writes `digits * 10^exp10` positionally for scientific exponents in [-4, 16), else
/// as `d.ddde±x` (`1e-40`, `3.4028235e38`).
pub fn layout_decimal(digits: &str, exp10: i64) -> String {
    let mut s = String::new();
    layout_into(&mut s, digits, exp10);
    s
}

fn layout_into(out: &mut String, digits: &str, exp10: i64) {
    use std::fmt::Write;
    let sci = exp10 + digits.len() as i64 - 1;
    if (-4..16).contains(&sci) {
        if exp10 >= 0 {
            out.push_str(digits);
            out.extend(std::iter::repeat_n('0', exp10 as usize));
        } else {
            let frac = (-exp10) as usize;
            if digits.len() > frac {
                let (i, f) = digits.split_at(digits.len() - frac);
                out.push_str(i);
                out.push('.');
                out.push_str(f);
            } else {
                out.push_str("0.");
                out.extend(std::iter::repeat_n('0', frac - digits.len()));
                out.push_str(digits);
            }
        }
    } else {
        let (first, rest) = digits.split_at(1);
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        let _ = write!(out, "e{sci}");
    }
}

/// C99-style hex-float: `0x1.8p+3`, subnormals as `0x0.004p-14`, zero as `0x0p+0`.
pub fn hex_float(fmt: &FloatFormat, bits: u64) -> String {
    let f = fmt.fields(bits);
    let sign = if f.sign { "-" } else { "" };
    let (lead, exp) = match fmt.class(bits) {
        Class::Nan => return "nan".into(),
        Class::Infinity => return format!("{sign}inf"),
        Class::Zero => return format!("{sign}0x0p+0"),
        Class::Subnormal => (0, fmt.emin()),
        Class::Normal => (1, f.exponent as i32 - fmt.bias),
    };
    // Left-align the fraction to whole hex digits, then drop trailing zero digits.
    let digits = fmt.frac_bits.div_ceil(4);
    let aligned = f.fraction << (digits * 4 - fmt.frac_bits);
    let hex = format!("{:0width$x}", aligned, width = digits as usize);
    let hex = hex.trim_end_matches('0');
    let dot = if hex.is_empty() { "" } else { "." };
    format!("{sign}0x{lead}{dot}{hex}p{exp:+}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Splits `d.ddde±x` into the digit string and the exponent of its last digit.
    fn std_digits(s: &str) -> (String, i64) {
        let (mantissa, exp) = s.split_once('e').unwrap();
        let exp: i64 = exp.parse().unwrap();
        let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
        let frac_len = mantissa.split_once('.').map_or(0, |(_, f)| f.len()) as i64;
        (digits, exp - frac_len)
    }
    use crate::format::descriptor::{F10, F11, F16, F32, F64};

    #[test]
    fn shortest_small_formats() {
        assert_eq!(shortest_decimal(&F16, 0x3c00), "1");
        assert_eq!(shortest_decimal(&F16, 0x7bff), "65500");
        assert_eq!(shortest_decimal(&F16, 0x3555), "0.3333");
        assert_eq!(shortest_decimal(&F16, 0x0001), "6e-8");
        assert_eq!(shortest_decimal(&F16, 0x8000), "-0");
        assert_eq!(shortest_decimal(&F11, 0x7c0), "inf");
        assert_eq!(shortest_decimal(&F11, 0x7bf), "65000");
        assert_eq!(shortest_decimal(&F10, 0x3df), "65000");
    }

    #[test]
    fn shortest_reference_agrees_with_std_on_f32_samples() {
        for bits in [
            1u64,
            0x0080_0000,
            0x3f80_0001,
            0x7f7f_ffff,
            0x3dcc_cccd,
            0x4b80_0000,
            0x0000_0f00,
        ] {
            let std = std_digits(&format!("{:e}", f32::from_bits(bits as u32)));
            assert_eq!(shortest_digits(&F32, bits), std, "{bits:#x}");
        }
    }

    #[test]
    fn layout_switches_to_exponent_far_from_one() {
        assert_eq!(layout_decimal("1", -40), "1e-40");
        assert_eq!(layout_decimal("34028235", 31), "3.4028235e38");
        assert_eq!(layout_decimal("1", -4), "0.0001");
        assert_eq!(layout_decimal("1", -5), "1e-5");
        assert_eq!(layout_decimal("15", -1), "1.5");
        assert_eq!(shortest_decimal(&F64, 0.1f64.to_bits()), "0.1");
    }

    #[test]
    fn hex_float_forms() {
        assert_eq!(hex_float(&F32, 0x4140_0000), "0x1.8p+3");
        assert_eq!(hex_float(&F16, 0x0001), "0x0.004p-14");
        assert_eq!(hex_float(&F11, 0x3c0), "0x1p+0");
        assert_eq!(hex_float(&F11, 0x3c1), "0x1.04p+0");
        assert_eq!(hex_float(&F32, 0x8000_0000), "-0x0p+0");
    }
}
