//! Text pieces every style uses for `op` results: patterns, allowed ranges, values.

use std::fmt::Write as _;

use crate::d3d::{AllowedSet, Domain, ExactResult};
use crate::format::text;

/// A pattern as scripts write it: `0x3f800000`; comparisons `true`/`false`.
pub fn bits_text(domain: &Domain, bits: u64) -> String {
    match domain {
        Domain::Bool => (bits != 0).to_string(),
        _ => format!("0x{:0w$x}", bits, w = domain.width().div_ceil(4) as usize),
    }
}

/// Appends `bits_text` to a buffer without allocating (the batch hot path).
pub fn push_bits(buf: &mut String, domain: &Domain, bits: u64) {
    match domain {
        Domain::Bool => buf.push_str(if bits != 0 { "true" } else { "false" }),
        _ => {
            let _ = write!(
                buf,
                "0x{:0w$x}",
                bits,
                w = domain.width().div_ceil(4) as usize
            );
        }
    }
}

/// The allowed set as `0xLO-0xHI,0xB,nan` (a single pattern once; `nan` when NaN is allowed).
pub fn push_allowed(buf: &mut String, domain: &Domain, set: &AllowedSet) {
    let mut first = true;
    for (lo, hi) in set.bit_ranges(domain) {
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
        ExactResult::Sum(..) | ExactResult::Quotient(..) => {
            resolved = ExactResult::Value(e.number().expect("exact"));
            &resolved
        }
        other => other,
    };
    Some(match e {
        ExactResult::Value(Number::Finite { neg, mag }) => {
            let sign = if *neg { "-" } else { "" };
            match mag.decimal_expansion() {
                Some(d) if d.len() <= 80 => format!("{sign}{d}"),
                _ => format!("≈ {sign}{:e}", mag.to_f64_lossy()),
            }
        }
        ExactResult::Value(Number::Infinity { neg }) => {
            if *neg { "-inf" } else { "inf" }.to_string()
        }
        ExactResult::Value(Number::Nan { .. }) | ExactResult::Nan => "nan".to_string(),
        ExactResult::Approx(x) => format!("≈ {x:e}"),
        ExactResult::Bool(b) => b.to_string(),
        ExactResult::Sum(..) | ExactResult::Quotient(..) => unreachable!("resolved above"),
    })
}

/// The exact result for scripts: the exact decimal, or null for irrational results.
pub fn exact_script(e: &ExactResult) -> Option<String> {
    match e {
        ExactResult::Approx(_) => None,
        other => exact_text(other).filter(|t| !t.starts_with('≈')),
    }
}
