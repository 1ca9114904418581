//! The text of ULP results, shared by every style: an endpoint's pattern, value and class,
//! and the histogram's bucket labels. The `ulp` core hands over numbers only.

use crate::format::packed::{RGB9E5_MANTISSA_BITS, RGB9E5_MAX_MANTISSA};
use crate::format::{F32, hex_bits, text};
use crate::ulp::{ChannelDiff, Endpoint, Summary, ValueLine, bucket_range};

/// An endpoint's pattern in script form: `0x3c00`; an RGB9E5 channel as its 9-bit
/// mantissa (`0x0c8`), the shared exponent being [`Endpoint::rgb9e5_exponent`].
pub fn bits_text(c: &ChannelDiff, e: &Endpoint) -> String {
    match c.line {
        ValueLine::Float { fmt, .. } => hex_bits(e.bits, fmt.width()),
        ValueLine::Rgb9e5 => hex_bits(e.bits & RGB9E5_MAX_MANTISSA as u64, RGB9E5_MANTISSA_BITS),
    }
}

/// The shortest decimal naming an endpoint's stored value (`inf`, `nan`, `-0`, ...).
/// RGB9E5 channels use the shortest f32 decimal, which holds every one exactly.
pub fn value_text(c: &ChannelDiff, e: &Endpoint) -> String {
    match c.line {
        ValueLine::Float { fmt, .. } => text::shortest_decimal(&fmt, e.bits),
        ValueLine::Rgb9e5 => {
            let v = e.value.to_f64_lossy() as f32;
            text::shortest_decimal(&F32, v.to_bits() as u64)
        }
    }
}

/// The endpoint's class word (`zero`, `subnormal`, `normal`, `infinity`, `nan`).
pub fn class_text(c: &ChannelDiff, e: &Endpoint) -> &'static str {
    match c.line {
        ValueLine::Float { fmt, .. } => fmt.class(e.bits).as_str(),
        ValueLine::Rgb9e5 if e.bits & RGB9E5_MAX_MANTISSA as u64 == 0 => "zero",
        ValueLine::Rgb9e5 => "normal",
    }
}

/// The label of a histogram bucket: `0`, `1`, `2`, `3-4`, `5-8`, ...
pub fn bucket_label(bucket: usize) -> String {
    match bucket_range(bucket) {
        (lo, hi) if lo == hi => lo.to_string(),
        (lo, hi) => format!("{lo}-{hi}"),
    }
}

/// The non-empty stretch of a summary's histogram as `(label, count)` rows.
pub fn histogram_rows(summary: &Summary) -> Vec<(String, u64)> {
    summary
        .histogram_span()
        .iter()
        .enumerate()
        .map(|(b, &n)| (bucket_label(b), n))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_labels_double() {
        let labels: Vec<String> = (0..7).map(bucket_label).collect();
        assert_eq!(labels, ["0", "1", "2", "3-4", "5-8", "9-16", "17-32"]);
        assert_eq!(bucket_label(65), "9223372036854775809-18446744073709551616");
    }
}
