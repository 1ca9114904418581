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
    let class = fmt.class(bits);
    if class == Class::Nan {
        return out.push_str("nan");
    }
    if fmt.fields(bits).sign {
        out.push('-');
    }
    match class {
        Class::Infinity => return out.push_str("inf"),
        Class::Zero => return out.push('0'),
        _ => {}
    }
    if fmt.width() < 32 {
        return out.push_str(small_format_text(fmt, bits & !fmt.assemble(true, 0, 0)));
    }
    // zmij (Schubfach) prints the shortest digits that read back, the closest of them to
    // the value: the digits the standard library's formatting gives (the tests compare
    // the two on random patterns and on every f32 on demand), in a fraction of the time.
    let mut buf = zmij::Buffer::new();
    let printed = if fmt.width() == 64 {
        buf.format_finite(f64::from_bits(bits).abs())
    } else {
        buf.format_finite(f32::from_bits(bits as u32).abs())
    };
    // Where the value lies exactly halfway between two shortest candidates, zmij takes
    // the even one and the standard library the upper one. Only there (a value of so few
    // binary places that twice it, scaled to the last digit, is an odd integer: the
    // 2-adic valuation below) is the standard library asked, so the output never changes.
    let (m, e) = fmt.significand(bits & !fmt.assemble(true, 0, 0));
    let tie_at = i64::from(m.trailing_zeros() as i32 + e + 1);
    // Most values zmij already writes as we do, or nearly: positional, at least 1e-4
    // (fewer than four zeros after `0.`), below 1e16, less its `.0` on whole numbers; or
    // `d.ddde+x` / `d.ddde-x` far from one, less the `+`.
    if let Some(ours) = zmij_as_ours(printed)
        && ours.exp10 != tie_at
    {
        out.push_str(ours.head);
        if let Some(exponent) = ours.exponent {
            out.push('e');
            out.push_str(exponent);
        }
        return;
    }
    let mut digits = [0u8; 40];
    let (mut n, mut exp10) = lift_digits(printed, &mut digits);
    if exp10 == tie_at {
        use std::fmt::Write;
        let mut std = String::new();
        let _ = if fmt.width() == 64 {
            write!(std, "{:e}", f64::from_bits(bits).abs())
        } else {
            write!(std, "{:e}", f32::from_bits(bits as u32).abs())
        };
        (n, exp10) = lift_digits(&std, &mut digits);
    }
    let digits = std::str::from_utf8(&digits[..n]).expect("ASCII digits");
    layout_into(out, digits, exp10);
}

/// zmij's text of a positive number, cut into what [`layout_into`] would write for it: the
/// text before any `e` (`head`), the exponent after it less a `+` (`None` in the
/// positional form), and the power of ten of the last significant digit.
struct AsOurs<'a> {
    head: &'a str,
    exponent: Option<&'a str>,
    exp10: i64,
}

/// Reads zmij's text in one pass when it is already, or nearly, the text [`layout_into`]
/// would give: positional from 1e-4 up to below 1e16 (less the `.0` zmij puts on whole
/// numbers), `d.ddde±x` outside. `None` for any other form, which the general path reads.
fn zmij_as_ours(printed: &str) -> Option<AsOurs<'_>> {
    let bytes = printed.as_bytes();
    let mut dot = None;
    let mut e_at = None;
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'.' {
            dot = Some(i);
        } else if b == b'e' {
            e_at = Some(i);
            break;
        }
    }
    let Some(at) = e_at else {
        return positional_as_ours(printed, dot?);
    };
    let (neg, digits_at) = match bytes.get(at + 1)? {
        b'-' => (true, at + 2),
        b'+' => (false, at + 2),
        _ => return None,
    };
    let exp_digits = &bytes[digits_at..];
    // One to three digits without a leading zero, as zmij writes them.
    if exp_digits.is_empty() || exp_digits.len() > 3 || exp_digits[0] == b'0' {
        return None;
    }
    let mut magnitude = 0i64;
    for &d in exp_digits {
        if !d.is_ascii_digit() {
            return None;
        }
        magnitude = magnitude * 10 + i64::from(d - b'0');
    }
    let sci = if neg { -magnitude } else { magnitude };
    if (-4..16).contains(&sci) {
        return None;
    }
    // A non-zero digit alone, or one followed by a point and digits that end in a non-zero.
    let nonzero = |b: u8| (b'1'..=b'9').contains(&b);
    let frac_len = match dot {
        None if at == 1 && nonzero(bytes[0]) => 0,
        Some(1) if at > 2 && nonzero(bytes[0]) && nonzero(bytes[at - 1]) => at - 2,
        _ => return None,
    };
    Some(AsOurs {
        head: &printed[..at],
        exponent: Some(if neg {
            &printed[at + 1..]
        } else {
            &printed[digits_at..]
        }),
        exp10: sci - frac_len as i64,
    })
}

/// The positional half of [`zmij_as_ours`]; `dot` is where the point is.
fn positional_as_ours(printed: &str, dot: usize) -> Option<AsOurs<'_>> {
    let bytes = printed.as_bytes();
    if dot > 16 {
        return None;
    }
    let frac = &bytes[dot + 1..];
    if frac == b"0" {
        // A whole number: its trailing zeros are the power of ten.
        let int = &bytes[..dot];
        let zeros = int.iter().rev().take_while(|&&b| b == b'0').count();
        return Some(AsOurs {
            head: &printed[..dot],
            exponent: None,
            exp10: zeros as i64,
        });
    }
    if &bytes[..dot] == b"0" && frac.starts_with(b"0000") {
        return None;
    }
    Some(AsOurs {
        head: printed,
        exponent: None,
        exp10: -(frac.len() as i64),
    })
}

/// The significant digits of a positive number printed as `123.45`, `0.001`, `100.0` or
/// `1.5e+20`, without leading or trailing zeros, and the power of ten of the last one.
fn lift_digits(printed: &str, digits: &mut [u8; 40]) -> (usize, i64) {
    let bytes = printed.as_bytes();
    let (mantissa, exp) = match bytes.iter().position(|&b| b == b'e') {
        Some(i) => {
            let (neg, digits) = match bytes[i + 1] {
                b'-' => (true, &bytes[i + 2..]),
                b'+' => (false, &bytes[i + 2..]),
                _ => (false, &bytes[i + 1..]),
            };
            let e = digits
                .iter()
                .fold(0i64, |acc, &d| acc * 10 + i64::from(d - b'0'));
            (&bytes[..i], if neg { -e } else { e })
        }
        None => (bytes, 0),
    };
    let (int, frac) = match mantissa.iter().position(|&b| b == b'.') {
        Some(dot) => (&mantissa[..dot], &mantissa[dot + 1..]),
        None => (mantissa, &[][..]),
    };
    digits[..int.len()].copy_from_slice(int);
    digits[int.len()..int.len() + frac.len()].copy_from_slice(frac);
    let all = int.len() + frac.len();
    let frac_len = frac.len() as i64;
    // Leading zeros (`0.001`) carry no digit.
    let lead = digits[..all].iter().take_while(|&&b| b == b'0').count();
    digits.copy_within(lead..all, 0);
    let mut n = all - lead;
    let mut exp10 = exp - frac_len;
    while n > 1 && digits[n - 1] == b'0' {
        n -= 1;
        exp10 += 1;
    }
    (n, exp10)
}

/// The shortest decimal of a positive finite pattern of a format of 16 bits or fewer, laid
/// out as [`write_shortest`] writes it, cached per pattern: stdin batches of `decode
/// --plain` hit the same patterns again and again.
fn small_format_text(fmt: &FloatFormat, magnitude_bits: u64) -> &'static str {
    type Table = Vec<OnceLock<String>>;
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
    table[magnitude_bits as usize].get_or_init(|| {
        let (digits, exp10) = small_shortest_digits(fmt, magnitude_bits)
            .unwrap_or_else(|| shortest_digits(fmt, magnitude_bits));
        layout_decimal(&digits, exp10)
    })
}

/// [`shortest_digits`] for a positive finite pattern of a format of 16 bits or fewer, in
/// integers: every value and every midpoint of such a format is a whole number of
/// `2^-(bias + frac_bits)` (2^-25 for float16), small enough that the interval, the value
/// and a power of ten fit in a `u128`. The same search as the exact one (tested equal on
/// every pattern), a hundred times cheaper; `None` if a product would not fit.
fn small_shortest_digits(fmt: &FloatFormat, bits: u64) -> Option<(String, i64)> {
    let s = fmt.bias + fmt.frac_bits as i32;
    // A value in units of 2^-s (even: the smallest exponent is 1 - s).
    let units = |b: u64| -> u128 {
        let (m, e) = fmt.significand(b);
        u128::from(m) << (e + s)
    };
    let v = units(bits);
    let below = if bits > 1 { units(bits - 1) } else { 0 };
    let above = if bits == fmt.max_finite() {
        // Past the largest finite value the next step is one more unit of its exponent.
        v + (1u128 << (fmt.significand(bits).1 + s))
    } else {
        units(bits + 1)
    };
    let (lo, hi) = ((v + below) / 2, (v + above) / 2);
    let inclusive = fmt.significand(bits).0.is_multiple_of(2);
    let two_s = 1u128 << s;
    // x * 10^k compared with y * 2^s, exactly, for k of either sign.
    let pow10 = |k: u32| 10u128.checked_pow(k);
    // top = floor(log10(value)): the largest t with 10^t <= v / 2^s.
    let at_most = |t: i64| -> Option<bool> {
        Some(if t >= 0 {
            pow10(t as u32)?.checked_mul(two_s)? <= v
        } else {
            two_s <= v.checked_mul(pow10((-t) as u32)?)?
        })
    };
    // Every value of these formats is above 10^-12.
    let mut top = -12;
    while at_most(top + 1)? {
        top += 1;
    }
    for n in 1..=12i64 {
        let u = top - n + 1;
        // Scale so that one unit of the n-th digit is `unit`, all in integers.
        let (scale, unit) = if u >= 0 {
            (1, pow10(u as u32)?.checked_mul(two_s)?)
        } else {
            (pow10((-u) as u32)?, two_s)
        };
        let (lo, hi, v) = (
            lo.checked_mul(scale)?,
            hi.checked_mul(scale)?,
            v.checked_mul(scale)?,
        );
        let first = lo.div_ceil(unit) + u128::from(!inclusive && lo % unit == 0);
        let last = (hi / unit).checked_sub(u128::from(!inclusive && hi % unit == 0))?;
        if first > last {
            continue;
        }
        let (q, r) = (v / unit, v % unit);
        let closest = match (2 * r).cmp(&unit) {
            Ordering::Less => q,
            Ordering::Greater => q + 1,
            Ordering::Equal => q + q % 2,
        };
        return Some(trim_digits(closest.clamp(first, last).to_string(), u));
    }
    None
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
        out.push('e');
        if sci < 0 {
            out.push('-');
        }
        // At most four digits (f64's exponents reach 10^-324).
        let mut digits = [0u8; 4];
        let mut n = sci.unsigned_abs();
        let mut at = digits.len();
        loop {
            at -= 1;
            digits[at] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        out.push_str(std::str::from_utf8(&digits[at..]).expect("ASCII digits"));
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
mod tests;
