//! Text pieces every style uses for `op` results: patterns, allowed ranges, values.

use crate::d3d::{AllowedSet, Domain, ExactResult};
use crate::format::{HexBits, text};

/// A pattern as scripts write it: `0x3f800000`; comparisons `true`/`false`.
pub fn bits_text(domain: &Domain, bits: u64) -> String {
    let mut s = String::new();
    push_bits(&mut s, domain, bits);
    s
}

/// Appends `bits_text` to a buffer without allocating (the batch hot path).
pub fn push_bits(buf: &mut String, domain: &Domain, bits: u64) {
    match domain {
        Domain::Bool => buf.push_str(if bits != 0 { "true" } else { "false" }),
        _ => HexBits {
            bits,
            width: domain.width(),
        }
        .push_to(buf),
    }
}

/// The allowed set as `0xLO-0xHI,0xB,nan` (a single pattern once; `nan` when NaN is allowed).
pub fn push_allowed(buf: &mut String, domain: &Domain, set: &AllowedSet) {
    let mut first = true;
    for (lo, hi) in set.ascending_bit_ranges(domain) {
        if !first {
            buf.push(',');
        }
        first = false;
        push_bits(buf, domain, lo);
        if hi != lo {
            buf.push('-');
            push_bits(buf, domain, hi);
        }
    }
    if set.nan {
        if !first {
            buf.push(',');
        }
        buf.push_str("nan");
    }
}

/// [`push_allowed`] into a new string.
pub fn allowed_text(domain: &Domain, set: &AllowedSet) -> String {
    let mut s = String::new();
    push_allowed(&mut s, domain, set);
    s
}

/// A pattern's value for people: the shortest decimal, an integer, or true/false.
pub fn value_text(domain: &Domain, bits: u64) -> String {
    match domain {
        Domain::Float(f) => text::shortest_decimal(f, bits),
        Domain::I32 => (bits as u32 as i32).to_string(),
        Domain::U32 => (bits as u32).to_string(),
        Domain::Bool => (bits != 0).to_string(),
    }
}

/// The exact result: every digit when it is short enough to read, else an approximation.
pub fn exact_text(e: &ExactResult) -> Option<String> {
    use crate::exact::Number;
    let resolved;
    let e = match e {
        ExactResult::Sum(..) | ExactResult::Quotient(..) | ExactResult::FusedSum(..) => {
            resolved = ExactResult::Value(e.number().expect("exact"));
            &resolved
        }
        other => other,
    };
    Some(match e {
        ExactResult::Value(Number::Finite { neg, mag }) => {
            let sign = if *neg { "-" } else { "" };
            let mag = lowest_terms(mag);
            match mag.decimal_expansion() {
                Some(d) if d.len() <= 80 => format!("{sign}{d}"),
                _ => format!("≈ {sign}{}", approx_text(&mag)),
            }
        }
        ExactResult::Value(Number::Infinity { neg }) => {
            if *neg { "-inf" } else { "inf" }.to_string()
        }
        ExactResult::Value(Number::Nan { .. }) | ExactResult::Nan => "nan".to_string(),
        ExactResult::Approx(x) => format!("≈ {}", f64_text(*x)),
        ExactResult::Bool(b) => b.to_string(),
        ExactResult::Sum(..) | ExactResult::Quotient(..) | ExactResult::FusedSum(..) => {
            unreachable!("resolved above")
        }
    })
}

/// The exact result for scripts: the exact decimal, or null for irrational results.
pub fn exact_script(e: &ExactResult) -> Option<String> {
    match e {
        ExactResult::Approx(_) => None,
        other => exact_text(other).filter(|t| !t.starts_with('≈')),
    }
}

/// The same rational with numerator and denominator divided by their gcd, so that a
/// terminating decimal is recognised (1e38 / 1e38 is 1).
fn lowest_terms(r: &crate::exact::Ratio) -> crate::exact::Ratio {
    use num_integer::Integer;
    let g = r.numer().gcd(r.denom());
    crate::exact::Ratio::new(r.numer() / &g, r.denom() / &g)
}

/// A readable approximation: 17 significant digits, scientific outside [1e-5, 1e16).
fn f64_text(x: f64) -> String {
    let a = x.abs();
    if a == 0.0 || (1e-5..1e16).contains(&a) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

/// An approximation of a positive rational of any size (beyond f64's range too).
fn approx_text(r: &crate::exact::Ratio) -> String {
    let x = r.to_f64_lossy();
    if x != 0.0 && x.is_finite() && x.abs() >= f64::MIN_POSITIVE {
        return f64_text(x);
    }
    // Scale by a power of ten first: m * 10^e with m in [1, 10).
    let e = r.floor_log10();
    let m = r.div(&crate::exact::Ratio::decimal(1u32, e)).to_f64_lossy();
    format!("{m}e{e}")
}

/// A batch's tally: `N conform, M do not`, and how many lines had nothing to check.
pub fn batch_summary_text(s: &crate::d3d::BatchSummary) -> String {
    let mut text = format!("{} conform, {} do not", s.conform, s.violate);
    let unchecked = s.lines - s.checked;
    if unchecked > 0 {
        text.push_str(&format!(
            " ({unchecked} evaluated without a result to check)"
        ));
    }
    text
}
