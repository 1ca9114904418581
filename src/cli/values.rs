//! The value parsers of the options: each turns one argument's text into its value or
//! the one-line error clap shows, with the core's own parsing underneath.

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};

use crate::format::{Choice, Format};

/// `--channels`: said in words, so `-1` is not "unexpected argument".
pub(super) fn parse_channels(s: &str) -> Result<u8, String> {
    match s.trim() {
        "1" => Ok(1),
        "2" => Ok(2),
        "3" => Ok(3),
        "4" => Ok(4),
        _ => {
            Err("the channel count is 1 to 4 (3 or 4, RGB or RGBA, beside a packed format)".into())
        }
    }
}

/// `--range START..END`: a slice of a sweep, each end decimal or `0x` hex, END excluded.
pub(super) fn parse_range(s: &str) -> Result<std::ops::Range<u64>, String> {
    let number = |t: &str| {
        let t = t.trim().replace('_', "");
        match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
            Some(hex) => u64::from_str_radix(hex, 16).ok(),
            None => t.parse().ok(),
        }
    };
    let (a, b) = s
        .split_once("..")
        .ok_or("expected START..END (0x3c00..0x4000: END excluded)")?;
    match (number(a), number(b)) {
        (Some(a), Some(b)) if a < b => Ok(a..b),
        (Some(_), Some(_)) => Err("START must be below END (END is excluded)".into()),
        _ => Err("START and END are whole numbers, decimal or 0x hex".into()),
    }
}

/// `--abs-tol`, `--rel-tol`: a finite number, 0 or more.
pub(super) fn parse_tolerance(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(t) if t.is_finite() && t >= 0.0 => Ok(t),
        _ => Err("a tolerance is a finite number, 0 or more (1e-6, 0.01)".into()),
    }
}

/// `--max`: a distance magnitude, so never negative.
pub(super) fn parse_ulp_limit(s: &str) -> Result<u64, String> {
    s.trim()
        .parse()
        .map_err(|_| "N is a whole number of ULPs, 0 or more (|distance| is compared)".into())
}

/// A `--fmt` or `--to` that may also name a block-compressed format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FormatArg {
    /// One of the element formats.
    Format(Format),
    /// BC6H blocks, unsigned or signed.
    Bc6h(crate::format::bc6h::Bc6h),
}

pub(super) fn parse_format_or_block(s: &str) -> Result<FormatArg, String> {
    match crate::format::bc6h::Bc6h::from_name(s) {
        Some(b) => Ok(FormatArg::Bc6h(b)),
        None => s
            .parse::<Format>()
            .map(FormatArg::Format)
            .map_err(|e| format!("{e}, or bc6h_uf16, bc6h_sf16")),
    }
}

/// The value parser of a core [`Choice`]: its names, with their help lines and hidden
/// aliases, are clap's possible values (so `--help`, completions and man pages list them),
/// and the core's own `FromStr` makes the value.
pub(super) fn choice<T>() -> impl TypedValueParser<Value = T>
where
    T: Choice + std::str::FromStr + Send + Sync,
{
    let values = T::ALL.iter().map(|v| {
        PossibleValue::new(v.name())
            .help(v.summary())
            .aliases(v.aliases().iter().copied())
    });
    PossibleValuesParser::new(values).map(|name| match name.parse::<T>() {
        Ok(value) => value,
        Err(_) => unreachable!("clap took '{name}' as one of the possible values"),
    })
}

pub(super) fn parse_format(s: &str) -> Result<Format, String> {
    s.parse::<Format>().map_err(|e| e.to_string())
}
