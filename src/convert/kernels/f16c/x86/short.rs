//! The short f16 pass with F16C: blocks whose every value is in
//! [`short_range`](super::super::short_range), a normal-range loop first and the loop
//! with subnormal and flushed counts only where a block needs it (see the module
//! notes of `f16c`).

use std::arch::x86_64::*;

use super::super::super::Ordinary;
use super::super::super::x86::{halves, max, min, sum};
use super::super::{MAX_FINITE, SHORT_MIN, normal_bound, short_bound, units_pattern};
use super::{error_units, to_f16};

/// The running state of the short pass. Its range test and error are per f32 lane;
/// its counts are per f16 result, sixteen to a vector (see [`count_sixteen`]).
#[derive(Clone, Copy)]
struct Short {
    /// Unsigned minimum of |x| - 1 (±0 wraps to the top, out of the way): every lane
    /// was at least 2^-25 or zero when it is at least 2^-25 - 1. The top of the range
    /// shows in the error, as in the normal-range pass ([`ONE_ULP`]).
    min: __m256i,
    /// Errors in 2^-26 ULPs, as integer-valued f32 patterns (non-negative, so they
    /// order as integers; NaN lies above every finite one).
    max_units: __m256i,
    /// Unsigned maximum of |x|, where the errors are left out: the top of the range.
    max_mag: __m256i,
    /// Counts in 16-bit lanes: inexact results, subnormal results, and results
    /// flushed to zero (zero from a value that was not).
    inexact: __m256i,
    subnormal: __m256i,
    flushed: __m256i,
}

/// Lanes of one run of the short pass: few enough that a 16-bit count, one a step of
/// sixteen lanes, cannot wrap (4096 at most).
const SHORT_RUN: usize = 1 << 16;

/// Eight lanes converted (once); their minimum and error (with `MEASURE`, else their
/// maximum) go into `c`. Returns the f16 patterns and the mask of the inexact lanes,
/// which [`count_sixteen`] counts sixteen at a time. The range test and the counts
/// are only used when every lane was in [`super::super::short_range`] (or past its top but
/// within a ULP), so they need no masking.
#[inline]
#[target_feature(enable = "avx2,f16c")]
fn eight<const M: u8, const MEASURE: bool>(x: __m256i, c: &mut Short) -> (__m128i, __m256i) {
    // The result keeps the input's sign (±0 included), so the result and the input
    // compare and subtract as they are, without their magnitudes.
    let h = to_f16::<M>(x);
    let back = _mm256_cvtph_ps(h);
    let mag = _mm256_and_si256(x, _mm256_set1_epi32(0x7fff_ffff));
    c.min = _mm256_min_epu32(c.min, _mm256_add_epi32(mag, _mm256_set1_epi32(-1)));
    // A NaN result comes only from a NaN input, outside the range, whose counts are
    // not used: ordered or not, the compare gives the same counts.
    let inexact = _mm256_castps_si256(_mm256_cmp_ps::<_CMP_NEQ_UQ>(back, _mm256_castsi256_ps(x)));
    if !MEASURE {
        c.max_mag = _mm256_max_epu32(c.max_mag, mag);
        return (h, inexact);
    }
    // In the short range |result - x| is exact in f32 (see `full_eight`). f16's
    // subnormals share the ULP of its smallest normal, 2^-14 (the f32 exponent field
    // 113).
    let back = _mm256_castps_si256(back);
    let field = _mm256_max_epi32(
        _mm256_and_si256(back, _mm256_set1_epi32(0x7f80_0000)),
        _mm256_set1_epi32(NORMAL_MIN),
    );
    let units = _mm256_castps_si256(error_units(back, x, field));
    c.max_units = _mm256_max_epi32(c.max_units, units);
    (h, inexact)
}

/// Counts sixteen f16 results `h` into `c`, given the 16-bit masks of the inexact
/// ones: a result below 2^-14 (exponent field 0) is subnormal unless it is zero, and a
/// zero result is flushed when it is inexact (a zero input gives an exact zero).
/// Padding lanes are zero results with clear masks: exact, counted nowhere.
#[inline]
#[target_feature(enable = "avx2")]
fn count_sixteen(h: __m256i, inexact: __m256i, c: &mut Short) {
    let mag = _mm256_and_si256(h, _mm256_set1_epi16(0x7fff));
    let below = _mm256_cmpgt_epi16(_mm256_set1_epi16(0x0400), mag);
    let zero = _mm256_cmpeq_epi16(mag, _mm256_setzero_si256());
    c.inexact = _mm256_sub_epi16(c.inexact, inexact);
    c.subnormal = _mm256_sub_epi16(c.subnormal, _mm256_andnot_si256(zero, below));
    c.flushed = _mm256_sub_epi16(c.flushed, _mm256_and_si256(zero, inexact));
}
/// The state of the normal-range pass: [`Short`] without the counts that results
/// below f16's normal range need.
#[derive(Clone, Copy)]
struct Normal {
    min: __m256i,
    exact: __m256i,
    max_units: __m256i,
    max_mag: __m256i,
}

/// 2^-14, f16's smallest normal value, as an f32 pattern.
const NORMAL_MIN: i32 = 113 << 23;

/// Lanes of one run of the normal-range pass: short enough that a block whose first
/// value below the normal range comes early wastes little, long enough that the
/// run's sums and range checks cost nothing next to it.
const NORMAL_RUN: usize = 1024;

/// The errors of the normal-range pass, in 2^-26 ULPs as f32 patterns, are below 2^26
/// (one ULP) for every lane it takes; a lane past the range reaches this or more (its
/// result is INF, or the largest finite value at least a ULP away), and NaN or INF
/// gives a NaN error, whose pattern lies above it too.
const ONE_ULP: i32 = (127 + 26) << 23;

/// [`eight`] for lanes in f16's normal range (±0 or 2^-14 <= |x|, and rounded within a
/// ULP, which is what every mode does up to 65504 and somewhat past it): the result
/// is ±0 or normal (2^-14 is exact), so nothing is subnormal or flushed and the
/// result's exponent gives the scale of its ULP directly. Only the low end is tested
/// on |x|; the high end shows in the error (see [`ONE_ULP`]), one test fewer a lane,
/// or without `MEASURE` in the maximum of |x|.
#[inline]
#[target_feature(enable = "avx2,f16c")]
fn eight_normal<const M: u8, const MEASURE: bool>(x: __m256i, c: &mut Normal) -> __m128i {
    // The result keeps the input's sign (±0 included), so the result and the input
    // compare and subtract as they are, without their magnitudes.
    let h = to_f16::<M>(x);
    let mag = _mm256_and_si256(x, _mm256_set1_epi32(0x7fff_ffff));
    c.min = _mm256_min_epu32(c.min, _mm256_add_epi32(mag, _mm256_set1_epi32(-1)));
    if !MEASURE {
        // Every lane this loop takes is ±0 or a normal f16 value with 13 more
        // fraction bits (|x| up to 65504, tested on `max_mag`): exact when those
        // bits are clear, which spares widening the result back.
        let dropped = _mm256_and_si256(x, _mm256_set1_epi32(0x1fff));
        let exact = _mm256_cmpeq_epi32(dropped, _mm256_setzero_si256());
        c.exact = _mm256_sub_epi32(c.exact, exact);
        c.max_mag = _mm256_max_epu32(c.max_mag, mag);
        return h;
    }
    let back = _mm256_castps_si256(_mm256_cvtph_ps(h));
    c.exact = _mm256_sub_epi32(c.exact, _mm256_cmpeq_epi32(back, x));
    // As in `eight`; a zero result (from ±0 only) has error 0 whatever its scale.
    let field = _mm256_and_si256(back, _mm256_set1_epi32(0x7f80_0000));
    let units = _mm256_castps_si256(error_units(back, x, field));
    c.max_units = _mm256_max_epi32(c.max_units, units);
    h
}

/// One run of the normal-range pass over `v` into `o`, counted into `c`; returns the
/// number of padding lanes run. A function of its own so that each loop has the
/// vector registers to itself: inlined into [`narrow_normal`] beside the other one,
/// the unmeasured loop kept its exact count in a stack slot (a load and a store every
/// sixteen lanes), which cost it a sixth of its speed.
#[inline(never)]
#[target_feature(enable = "avx2,f16c")]
fn normal_run<const M: u8, const MEASURE: bool>(v: &[u32], o: &mut [u16], c: &mut Normal) -> u32 {
    let mut s = *c;
    let padding = sixteen_at_a_time!(v, o, |x| eight_normal::<M, MEASURE>(x, &mut s));
    *c = s;
    padding
}

/// Where the normal-range pass stopped: at the first run with a lane outside f16's
/// normal range.
struct Stopped {
    /// The lanes before that run, and their counts.
    done: usize,
    counts: Ordinary,
    /// The unsigned minimum of |x| - 1 up to the end of that run, and whether a lane
    /// up to there was past the range's top (an error of a ULP or more, or where errors
    /// were left out, |x| past 65504).
    min: u32,
    above: bool,
}

/// The counts of the normal-range pass's state over `lanes` lanes.
fn normal_counts(c: &Normal, lanes: usize) -> Ordinary {
    Ordinary {
        inexact: lanes as u32 - sum(c.exact),
        subnormal: 0,
        flushed: 0,
        max_units: f32::from_bits(max(c.max_units)) as u32,
    }
}

/// The normal-range pass, a run of [`NORMAL_RUN`] lanes at a time: the counts when
/// every lane was ±0 or in f16's normal range, or where it stopped (a block with a
/// few subnormal results, a dark texture's, goes through this pass only up to the
/// first run with one). The outputs of the runs it took are written. Errors are
/// measured until they reach [`normal_bound`], counting those already `known`.
#[target_feature(enable = "avx2,f16c")]
fn narrow_normal<const M: u8>(
    values: &[u32],
    out: &mut [u16],
    known: u32,
) -> Result<Ordinary, Stopped> {
    let zero = _mm256_setzero_si256();
    let mut c = Normal {
        min: _mm256_set1_epi32(-1),
        exact: zero,
        max_units: zero,
        max_mag: zero,
    };
    let (low, one_ulp, top) = (
        _mm256_set1_epi32(NORMAL_MIN - 1),
        _mm256_set1_epi32(ONE_ULP),
        _mm256_set1_epi32(MAX_FINITE),
    );
    let bound = units_pattern(normal_bound(M));
    let mut measure = known < normal_bound(M);
    let mut done = 0;
    for (v, o) in values.chunks(NORMAL_RUN).zip(out.chunks_mut(NORMAL_RUN)) {
        let before = c;
        // The tail's padding lanes (in the last run only) are zeros: taken, exact,
        // error 0.
        let padding = if measure {
            normal_run::<M, true>(v, o, &mut c)
        } else {
            normal_run::<M, false>(v, o, &mut c)
        };
        // Unmeasured lanes keep the errors at 0 and measured ones |x| at 0: each
        // test of the top passes where the other does the work.
        let below = _mm256_cmpeq_epi32(_mm256_max_epu32(c.min, low), c.min);
        let within = _mm256_and_si256(
            _mm256_cmpgt_epi32(one_ulp, c.max_units),
            _mm256_cmpeq_epi32(_mm256_max_epu32(c.max_mag, top), top),
        );
        if _mm256_movemask_epi8(_mm256_and_si256(below, within)) != -1 {
            return Err(Stopped {
                done,
                counts: normal_counts(&before, done),
                min: min(c.min),
                above: _mm256_movemask_epi8(within) != -1,
            });
        }
        done += v.len() + padding as usize;
        measure = measure && max(c.max_units) < bound;
    }
    Ok(normal_counts(&c, done))
}

#[target_feature(enable = "avx2,f16c")]
pub(in super::super) fn narrow_ordinary<const M: u8>(
    values: &[u32],
    out: &mut [u16],
    known: u32,
) -> (Ordinary, u32) {
    let n = values.len().min(out.len());
    let (values, out) = (&values[..n], &mut out[..n]);
    // Most blocks have no value below f16's normal range: the shorter pass first.
    let stop = match narrow_normal::<M>(values, out, known) {
        Ok(o) => return (o, 0),
        Err(stop) => stop,
    };
    // A lane below 2^-14 has an error scaled as if its result were normal, which can
    // pass a ULP: `above` means a lane past the top only where none was below.
    let past_top = stop.above && stop.min >= (NORMAL_MIN - 1) as u32;
    if stop.min < (SHORT_MIN - 1) as u32 || past_top {
        // The full pass follows: only the number of exceptions matters.
        let exceptions = values
            .iter()
            .filter(|&&v| !super::super::short_range(v))
            .count();
        return (Ordinary::default(), exceptions as u32);
    }
    let known = known.max(stop.counts.max_units);
    let (rest, exceptions) = if known < short_bound(M) {
        narrow_short::<M, true>(&values[stop.done..], &mut out[stop.done..])
    } else {
        narrow_short::<M, false>(&values[stop.done..], &mut out[stop.done..])
    };
    (stop.counts.merge(rest), exceptions)
}

/// One run of the short pass (at most [`SHORT_RUN`] lanes) over `v` into `o`: its
/// state. A function of its own, as [`normal_run`] is, for the registers (the
/// measuring loop still keeps its minimum in memory, but no longer the constants
/// too: a few percent).
#[inline(never)]
#[target_feature(enable = "avx2,f16c")]
fn short_run<const M: u8, const MEASURE: bool>(v: &[u32], o: &mut [u16]) -> Short {
    let zero = _mm256_setzero_si256();
    let mut c = Short {
        min: _mm256_set1_epi32(-1),
        max_units: zero,
        max_mag: zero,
        inexact: zero,
        subnormal: zero,
        flushed: zero,
    };
    sixteen_at_a_time!(v, o, |x| eight::<M, MEASURE>(x, &mut c), fix(h, m) {
        count_sixteen(h, m, &mut c);
        h
    });
    c
}

/// The short pass for blocks with results below f16's normal range, a run of
/// [`SHORT_RUN`] lanes at a time, measuring errors with `MEASURE` (else its largest
/// error is 0).
#[target_feature(enable = "avx2,f16c")]
fn narrow_short<const M: u8, const MEASURE: bool>(
    values: &[u32],
    out: &mut [u16],
) -> (Ordinary, u32) {
    let (mut min_all, mut units_all, mut mag_all) = (u32::MAX, 0u32, 0u32);
    let mut counts = Ordinary::default();
    // The sum of a vector's sixteen 16-bit counts.
    let total = |v: __m256i| {
        let (lo, hi) = halves(v);
        lo + hi
    };
    for (v, o) in values.chunks(SHORT_RUN).zip(out.chunks_mut(SHORT_RUN)) {
        let c = short_run::<M, MEASURE>(v, o);
        min_all = min_all.min(min(c.min));
        units_all = units_all.max(max(c.max_units));
        mag_all = mag_all.max(max(c.max_mag));
        counts = counts.merge(Ordinary {
            inexact: total(c.inexact),
            subnormal: total(c.subnormal),
            flushed: total(c.flushed),
            max_units: 0,
        });
    }
    // Errors past a ULP (or NaN) come from lanes past the range's top; unmeasured
    // lanes show it in |x|.
    let taken = min_all >= (SHORT_MIN - 1) as u32
        && units_all < ONE_ULP as u32
        && mag_all <= MAX_FINITE as u32;
    let exceptions = if taken {
        0
    } else {
        values
            .iter()
            .filter(|&&v| !super::super::short_range(v))
            .count() as u32
    };
    counts.max_units = f32::from_bits(units_all) as u32;
    (counts, exceptions)
}
