//! Running totals over many comparisons: histogram, worst elements, NaN counts.

use super::{DiffOptions, PairDiff};
use crate::format::Format;

/// Histogram buckets: 0, 1, 2, 3-4, 5-8, ..., (2^63, 2^64].
pub const HISTOGRAM_BUCKETS: usize = 66;

/// The histogram bucket of a distance magnitude.
#[inline]
pub fn bucket(magnitude: u64) -> usize {
    if magnitude <= 1 {
        magnitude as usize
    } else {
        1 + (64 - (magnitude - 1).leading_zeros() as usize)
    }
}

/// The magnitudes bucket `bucket` holds, `(lowest, highest)`: `(0, 0)`, `(1, 1)`, `(2, 2)`,
/// `(3, 4)`, `(5, 8)`, ...
pub fn bucket_range(bucket: usize) -> (u128, u128) {
    match bucket {
        0..=2 => (bucket as u128, bucket as u128),
        _ => {
            let hi = 1u128 << (bucket - 1);
            (hi / 2 + 1, hi)
        }
    }
}

/// How many of the worst elements (and of the first NaN elements) a summary keeps.
pub const WORST_KEPT: usize = 5;

/// One remembered comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    /// Element index in a buffer, or line number on stdin.
    pub index: u64,
    /// Channel number for packed words.
    pub channel: Option<usize>,
    /// The A (expected) side's pattern; for packed words the channel's own pattern
    /// (RGB9E5: `exponent << 9 | mantissa`).
    pub a: u64,
    /// The B (actual) side's pattern, in the same form as `a`.
    pub b: u64,
    /// Signed steps from `a` to `b`; `None` when a NaN is involved.
    pub distance: Option<i128>,
    /// For an image: the pixel's column and row (`index` stays the element's), and
    /// `channel` is then the element's channel within its pixel (or a packed word's).
    pub at: Option<(u64, u64)>,
}

/// `--abs-tol A --rel-tol R`: numpy's `isclose(actual, expected, rtol=R, atol=A)`. A
/// comparison passes when `|actual - expected| <= A + R * |expected|` (so anything within
/// either tolerance passes); equal infinities pass, and a NaN never does (`equal_nan`
/// off). Computed in double precision, where every value of the formats is exact.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tolerance {
    /// The absolute tolerance, `atol`.
    pub abs: f64,
    /// The relative tolerance, `rtol`, a fraction of |expected|.
    pub rel: f64,
}

impl Tolerance {
    /// Whether `actual` is close enough to `expected`.
    pub fn passes(&self, expected: f64, actual: f64) -> bool {
        if expected == actual {
            return true; // equal infinities, where the difference is NaN
        }
        (actual - expected).abs() <= self.abs + self.rel * expected.abs()
    }
}

/// Running totals over many comparisons (channels count one each).
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// Every comparison, NaN ones included.
    pub compared: u64,
    /// Comparisons where exactly one side is NaN.
    pub nan_mismatches: u64,
    /// Comparisons where both sides are NaN.
    pub nan_both: u64,
    /// Sum of |distance| over the measured comparisons.
    pub sum_abs: u128,
    /// The largest |distance| over the measured comparisons; 0 when none was measured.
    pub max_abs: u64,
    /// Measured comparisons per |distance| bucket (see [`bucket`]); comparisons that
    /// involve a NaN are not in it.
    pub histogram: [u64; HISTOGRAM_BUCKETS],
    /// The `--max` limit, if any: a larger |distance|, or any NaN, fails the run.
    pub limit: Option<u64>,
    /// Measured comparisons whose |distance| is beyond `limit` (0 without a limit).
    pub over_limit: u64,
    /// The largest |distance| seen, largest first, earliest first among equals.
    pub worst: Vec<Sample>,
    /// The first comparisons that involved a NaN.
    pub first_nans: Vec<Sample>,
    /// `--abs-tol`/`--rel-tol`, if given: a comparison beyond it fails the run.
    pub tolerance: Option<Tolerance>,
    /// Comparisons that are not close under `tolerance` (0 without one).
    pub over_tolerance: u64,
}

impl Summary {
    /// An empty summary, judged against the `--max` limit `limit` if one is given.
    pub fn new(limit: Option<u64>) -> Summary {
        Summary {
            compared: 0,
            nan_mismatches: 0,
            nan_both: 0,
            sum_abs: 0,
            max_abs: 0,
            histogram: [0; HISTOGRAM_BUCKETS],
            limit,
            over_limit: 0,
            worst: Vec::with_capacity(WORST_KEPT + 1),
            first_nans: Vec::with_capacity(WORST_KEPT),
            tolerance: None,
            over_tolerance: 0,
        }
    }

    /// Also judged by a tolerance (`--abs-tol`, `--rel-tol`).
    pub fn with_tolerance(mut self, tolerance: Option<Tolerance>) -> Summary {
        self.tolerance = tolerance;
        self
    }

    /// Counts a differing comparison against the tolerance, given both values; whether it
    /// is beyond it (false without a tolerance).
    #[inline]
    pub fn check_tolerance(&mut self, expected: f64, actual: f64) -> bool {
        let over = self.tolerance.is_some_and(|t| !t.passes(expected, actual));
        self.over_tolerance += over as u64;
        over
    }

    /// Whether a differing comparison is listed (`--list`): beyond `--max` or beyond the
    /// tolerance, whichever were given; every difference when neither was.
    pub fn listed(&self, sample: &Sample, over_tolerance: bool) -> bool {
        match (self.limit, self.tolerance) {
            (None, Some(_)) => over_tolerance,
            (Some(_), Some(_)) => over_tolerance || self.over_limit(sample),
            (_, None) => self.over_limit(sample),
        }
    }

    /// Comparisons within `--max` (NaN ones never are), when it was given.
    pub fn within_max(&self) -> Option<u64> {
        self.limit
            .map(|_| self.compared - self.over_limit - self.nans())
    }

    /// Comparisons within the tolerance, when one was given.
    pub fn within_tolerance(&self) -> Option<u64> {
        self.tolerance.map(|_| self.compared - self.over_tolerance)
    }

    /// Comparisons that gave a distance.
    pub fn measured(&self) -> u64 {
        self.compared - self.nan_mismatches - self.nan_both
    }

    /// Comparisons that involved a NaN, on one side or both.
    pub fn nans(&self) -> u64 {
        self.nan_mismatches + self.nan_both
    }

    /// Mean |distance| over the measured comparisons.
    pub fn mean_abs(&self) -> Option<f64> {
        let n = self.measured();
        (n > 0).then(|| self.sum_abs as f64 / n as f64)
    }

    /// The `--max` verdict over everything seen: a NaN or a distance beyond the limit fails.
    pub fn failed(&self) -> bool {
        (self.limit.is_some() && (self.over_limit > 0 || self.nans() > 0))
            || self.over_tolerance > 0
    }

    /// `n` comparisons at distance 0 (equal, non-NaN patterns).
    #[inline]
    pub fn add_equal(&mut self, n: u64) {
        self.compared += n;
        self.histogram[0] += n;
    }

    /// Whether a comparison goes over the limit (0 without one): a NaN involved, or a
    /// distance larger than it.
    pub fn over_limit(&self, sample: &Sample) -> bool {
        sample
            .distance
            .is_none_or(|d| d.unsigned_abs() > self.limit.unwrap_or(0) as u128)
    }

    /// One comparison. When `sample.distance` is `None` (a NaN is involved), `both_nan` tells
    /// NaN against NaN from NaN against a number.
    pub fn record(&mut self, sample: Sample, both_nan: bool) {
        self.compared += 1;
        let Some(d) = sample.distance else {
            if both_nan {
                self.nan_both += 1;
            } else {
                self.nan_mismatches += 1;
            }
            if self.first_nans.len() < WORST_KEPT {
                self.first_nans.push(sample);
            }
            return;
        };
        let magnitude = d.unsigned_abs() as u64;
        self.sum_abs += magnitude as u128;
        self.max_abs = self.max_abs.max(magnitude);
        self.histogram[bucket(magnitude)] += 1;
        if self.limit.is_some_and(|l| magnitude > l) {
            self.over_limit += 1;
        }
        if magnitude == 0 {
            return;
        }
        let full = self.worst.len() == WORST_KEPT;
        let least = self
            .worst
            .last()
            .map(|s| s.distance.map_or(0, i128::unsigned_abs));
        if full && least.is_some_and(|l| magnitude as u128 <= l) {
            return;
        }
        let at = self
            .worst
            .iter()
            .position(|s| s.distance.map_or(0, i128::unsigned_abs) < magnitude as u128)
            .unwrap_or(self.worst.len());
        self.worst.insert(at, sample);
        self.worst.truncate(WORST_KEPT);
    }

    /// Records every channel of a measured pair, under `index`.
    pub fn record_pair(&mut self, index: u64, pair: &PairDiff) {
        for (i, c) in pair.channels.iter().enumerate() {
            let both_nan = c.a.value.is_nan() && c.b.value.is_nan();
            if c.a.bits != c.b.bits || both_nan {
                self.check_tolerance(c.line.value_f64(c.a.bits), c.line.value_f64(c.b.bits));
            }
            self.record(
                Sample {
                    index,
                    channel: (pair.channels.len() > 1).then_some(i),
                    a: c.a.bits,
                    b: c.b.bits,
                    distance: c.distance,
                    at: None,
                },
                both_nan,
            );
        }
    }

    /// The non-empty stretch of the histogram: the counts from bucket 0 to the last bucket
    /// with a count (bucket 0 alone when nothing was compared).
    pub fn histogram_span(&self) -> &[u64] {
        let last = self.histogram.iter().rposition(|&n| n > 0).unwrap_or(0);
        &self.histogram[..=last]
    }
}

/// What a summary was taken over, for its heading.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Compared {
    /// `A B` lines on stdin; indices are line numbers.
    Pairs,
    /// Two raw buffers; indices are element numbers from 0.
    Files {
        /// Path of the expected (A) file, as given.
        expected: String,
        /// Path of the actual (B) file, as given.
        actual: String,
        /// Elements compared; a packed word is one element but three comparisons.
        elements: u64,
    },
}

/// A finished summary with its context, as the renderers take it.
#[derive(Clone, Debug)]
pub struct SummaryReport<'a> {
    /// The format the elements were read in.
    pub format: Format,
    /// The options the distances were measured under.
    pub opts: DiffOptions,
    /// What was compared: stdin pairs or two files.
    pub compared: Compared,
    /// The totals to render.
    pub summary: &'a Summary,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_double() {
        let ranges: Vec<(u128, u128)> = (0..7).map(bucket_range).collect();
        assert_eq!(
            ranges,
            [(0, 0), (1, 1), (2, 2), (3, 4), (5, 8), (9, 16), (17, 32)]
        );
        for (m, b) in [
            (0, 0),
            (1, 1),
            (2, 2),
            (3, 3),
            (4, 3),
            (5, 4),
            (8, 4),
            (9, 5),
        ] {
            assert_eq!(bucket(m), b, "{m}");
        }
        assert_eq!(bucket(u64::MAX), 65);
    }

    #[test]
    fn summary_keeps_the_worst_and_counts_nans() {
        let mut s = Summary::new(Some(2));
        let sample = |index, distance| Sample {
            at: None,
            index,
            channel: None,
            a: 0,
            b: 0,
            distance,
        };
        for (i, dist) in [1, -7, 3, 7, 0, 2, 100, 1].into_iter().enumerate() {
            s.record(sample(i as u64, Some(dist)), false);
        }
        s.record(sample(8, None), false);
        s.record(sample(9, None), true);
        let worst: Vec<u64> = s.worst.iter().map(|w| w.index).collect();
        assert_eq!(worst, [6, 1, 3, 2, 5]);
        assert_eq!((s.compared, s.measured(), s.nans()), (10, 8, 2));
        assert_eq!((s.max_abs, s.sum_abs, s.over_limit), (100, 121, 4));
        assert!(s.failed());
        assert_eq!(s.histogram_span().len(), 9); // up to 65-128
    }
}
