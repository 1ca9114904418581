//! What a bulk conversion did, counted: the numbers behind the summary line and `--json`.

use crate::format::Outcome;
use crate::format::pow2::pow2_normal;

/// Counts over every channel value converted. Alpha filled in (`--channels 4` when
/// unpacking) and alpha dropped (when packing) are not values converted.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Stats {
    /// Channel values converted.
    pub values: u64,
    /// Results that differ from their input (NaN to NaN counts as exact; NaN to 0 does not).
    pub inexact: u64,
    /// Finite inputs beyond the target's range that became its largest finite value
    /// (or, for rgb9e5, any input above 65408, +INF included).
    pub saturated: u64,
    /// Finite inputs beyond the target's range that became infinity.
    pub overflow_to_infinity: u64,
    /// NaN inputs.
    pub nan_in: u64,
    /// NaN results. RGB9E5 has no NaN, so packing into it never gives one: a NaN input
    /// becomes 0 there (§3.2.2), counted in `nan_in` and `inexact` but not here.
    pub nan_out: u64,
    /// Negative inputs (and -INF) clamped to zero by an unsigned target (§3.1.6, §19.3.2.2).
    pub clamped_negative: u64,
    /// Results that are subnormals of the target format.
    pub subnormal_out: u64,
    /// Non-zero inputs that rounded to zero.
    pub flushed_to_zero: u64,
    /// The largest |result - input| in units of the target's last place at the result,
    /// over the values that stayed finite and in range: saturated, overflowed and clamped
    /// values, and NaN, are counted apart and not measured.
    pub max_ulp_error: f64,
}

impl Stats {
    /// Adds another part's counts (the parts of a stream, the chunks of a parallel run).
    pub fn merge(&mut self, other: &Stats) {
        self.values += other.values;
        self.inexact += other.inexact;
        self.saturated += other.saturated;
        self.overflow_to_infinity += other.overflow_to_infinity;
        self.nan_in += other.nan_in;
        self.nan_out += other.nan_out;
        self.clamped_negative += other.clamped_negative;
        self.subnormal_out += other.subnormal_out;
        self.flushed_to_zero += other.flushed_to_zero;
        self.max_ulp_error = self.max_ulp_error.max(other.max_ulp_error);
    }

    /// Counts one value from the core's outcome. `ulp_error` is `None` where no error is
    /// measured (see [`Stats::max_ulp_error`]).
    pub fn record(&mut self, outcome: &Outcome, nan_out: bool, ulp_error: Option<f64>) {
        self.values += 1;
        self.inexact += !outcome.exact as u64;
        self.saturated += outcome.saturated as u64;
        self.overflow_to_infinity += outcome.overflow_to_infinity as u64;
        self.nan_in += outcome.nan as u64;
        self.nan_out += nan_out as u64;
        self.clamped_negative += outcome.clamped_negative as u64;
        self.subnormal_out += outcome.subnormal as u64;
        self.flushed_to_zero += outcome.underflow_to_zero as u64;
        if let Some(e) = ulp_error {
            self.max_ulp_error = self.max_ulp_error.max(e);
        }
    }
}

/// The error of `result` against `input` in units of `2^ulp_exp`. Written once so the core
/// and the fast kernels measure with the same operations (scaling by a power of two is
/// exact, so `|result - input| * 2^-u` and `|result * 2^-u - input * 2^-u|` agree).
#[inline(always)]
pub(crate) fn ulp_error(result: f64, input: f64, ulp_exp: i32) -> f64 {
    ((result - input) * pow2_normal(-ulp_exp)).abs()
}

/// Flags as the fast kernels carry them, one bit each.
pub(crate) mod flag {
    pub const INEXACT: u32 = 1 << 0;
    pub const SATURATED: u32 = 1 << 1;
    pub const OVERFLOW: u32 = 1 << 2;
    pub const NAN_IN: u32 = 1 << 3;
    pub const NAN_OUT: u32 = 1 << 4;
    pub const CLAMPED: u32 = 1 << 5;
    pub const SUBNORMAL: u32 = 1 << 6;
    pub const FLUSHED: u32 = 1 << 7;
}
