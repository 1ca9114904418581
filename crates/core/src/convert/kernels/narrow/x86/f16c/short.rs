//! The short f16 pass with F16C: runs whose every value is in
//! [`short_range`](super::short_range), a normal-range loop first and the loop
//! with the subnormal count (and the range read off the results) only from the first
//! run that needs it (see the module notes of `f16c`).

use std::arch::x86_64::*;

use super::{MAX_FINITE, SHORT_MIN, error_units, normal_bound, short_bound, to_f16, units_pattern};
use crate::convert::kernels::lanes::{ShortCounts, Taken};
use crate::convert::kernels::target::Mode;
use crate::convert::kernels::x86::{halves, max, min, sum};

/// The running state of the short pass, in 16-bit lanes, one per f16 result (sixteen to
/// a vector; see [`count_sixteen`]), but for the largest error, per f32 lane.
#[derive(Clone, Copy)]
struct Short {
    /// The largest error, as the f32 pattern of the error less the result's exponent
    /// field (raised to 113; see [`ERR_TO_UNITS`]), a signed maximum: a zero error
    /// (pattern 0, so at most -113 << 23) lies below every other (at least 2^-48, the
    /// pattern 79 << 23, against a field of at most 142: above -64 << 23).
    max_err: __m256i,
    /// Counts of inexact and of subnormal results.
    inexact: __m256i,
    subnormal: __m256i,
    /// Unsigned maximum of |result|: 0x7bff (65504) or more wherever a lane was past
    /// 65504 or NaN (see [`count_sixteen`]).
    top: __m256i,
    /// Unsigned maximum of !|result| over the inexact lanes (0 over the exact ones):
    /// 0xfffe or more wherever an inexact result was ±0 or ±2^-24.
    low: __m256i,
}

/// Lanes of one run of the short pass. A run with a lane the pass cannot take goes to
/// the full pass whole, so runs are short, and long enough that clean data does not pay
/// for their edges (the lengths tried: docs/benchmarks.md, round 11). Its 16-bit
/// counts, one a step of sixteen lanes, would wrap only past 2^20 lanes.
const SHORT_RUN: usize = 1 << 11;

/// The largest error's pattern in [`Short::max_err`] plus this is the f32 pattern of the
/// error in 2^-26 ULPs: a lane's error in those units is its f32 error times
/// 2^(163 - f), where f is the result's exponent field, at least 113 (its ULP is
/// 2^(f - 137), and f16's subnormals share the ULP of 2^-14), and scaling by a power of
/// two adds to the exponent field, here of a normal f32 (an error in the short range is
/// at least 2^-48, and the scaled error at most 2^26).
const ERR_TO_UNITS: i32 = 163 << 23;

/// Eight lanes converted (once); with `MEASURE` their error goes into `c`. Returns the
/// f16 patterns and the mask of the inexact lanes, which [`count_sixteen`] counts
/// sixteen at a time with the range test. The error is only used when every lane was
/// in [`short_range`](super::short_range), so it needs no masking.
#[inline]
#[target_feature(enable = "avx2,f16c")]
fn eight<M: Mode, const MEASURE: bool>(x: __m256i, c: &mut Short) -> (__m128i, __m256i) {
    // The result keeps the input's sign (±0 included), so the result and the input
    // compare and subtract as they are, without their magnitudes.
    let h = to_f16::<M>(x);
    let back = _mm256_cvtph_ps(h);
    // NaN compares unequal: inexact, and caught by the range test anyway.
    let inexact = _mm256_castps_si256(_mm256_cmp_ps::<_CMP_NEQ_UQ>(back, _mm256_castsi256_ps(x)));
    if MEASURE {
        // In the short range |result - x| is exact in f32 (see `full_eight`). f16's
        // subnormals share the ULP of its smallest normal, 2^-14 (the f32 exponent
        // field 113).
        let field = _mm256_max_epi32(
            _mm256_and_si256(_mm256_castps_si256(back), _mm256_set1_epi32(0x7f80_0000)),
            _mm256_set1_epi32(NORMAL_MIN),
        );
        let diff = _mm256_and_si256(
            _mm256_castps_si256(_mm256_sub_ps(back, _mm256_castsi256_ps(x))),
            _mm256_set1_epi32(0x7fff_ffff),
        );
        c.max_err = _mm256_max_epi32(c.max_err, _mm256_sub_epi32(diff, field));
    }
    (h, inexact)
}

/// Counts sixteen f16 results `h` into `c`, given the 16-bit masks of the inexact ones,
/// and keeps the two maxima that find, from the results alone, every lane outside the
/// short range:
/// - past 65504 (INF and NaN included), the result is INF, NaN, or 65504 in every mode
///   (rounding is monotonic, and 65504 is a value): [`Short::top`];
/// - below 2^-25 (f32 subnormals included), a nonzero input gives an inexact ±0, or
///   rounded away from zero, an inexact ±2^-24: [`Short::low`].
///
/// Both also catch a few lanes inside the range: results of 65504, inexact results of
/// 2^-24, and flushes from [2^-25, 2^-24) toward zero. Their runs go to the full
/// pass, as runs with a lane outside do. (Letting an exact 65504 through would cost
/// the loop an operation, 4%, for runs that are rare: with subnormal results too.)
/// With neither, every lane was in range and no result was flushed, so a result below
/// 2^-14 is subnormal unless it is a zero from ±0. Padding lanes are zero results with
/// clear masks: exact, counted nowhere.
#[inline]
#[target_feature(enable = "avx2")]
fn count_sixteen(h: __m256i, inexact: __m256i, c: &mut Short) {
    let mag = _mm256_and_si256(h, _mm256_set1_epi16(0x7fff));
    // 1..=0x3ff moved to the bottom of the signed order (0 to the top), so that one
    // signed compare finds them.
    let moved = _mm256_add_epi16(mag, _mm256_set1_epi16(0x7fff));
    let subnormal = _mm256_cmpgt_epi16(_mm256_set1_epi16(0x83ffu16 as i16), moved);
    c.inexact = _mm256_sub_epi16(c.inexact, inexact);
    c.subnormal = _mm256_sub_epi16(c.subnormal, subnormal);
    c.top = _mm256_max_epu16(c.top, mag);
    c.low = _mm256_max_epu16(c.low, _mm256_andnot_si256(mag, inexact));
}

/// Whether a run's maxima show every lane inside the short range, none flushed (see
/// [`count_sixteen`]).
#[target_feature(enable = "avx2")]
fn within(c: &Short) -> bool {
    let under = |v: __m256i, limit: u16| {
        let limit = _mm256_set1_epi16(limit as i16);
        _mm256_movemask_epi8(_mm256_cmpeq_epi16(_mm256_max_epu16(v, limit), limit)) == -1
    };
    // Below 65504; no inexact ±0 or ±2^-24 (complements 0xffff, 0xfffe).
    under(c.top, 0x7bfe) && under(c.low, 0xfffd)
}

/// The state of the normal-range pass, per f32 lane: the unsigned minimum of |x| - 1
/// (±0 wraps to the top), the count of exact results, the largest error (see
/// [`ONE_ULP`]) and, where errors are left out, the unsigned maximum of |x|.
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

/// Lanes of the normal-range pass's first run. Where results below 2^-14 are spread
/// through the data (the process sample has one in 98% of runs of 1024), the pass
/// stops in its first run, whose lanes the short pass then takes again: a shorter first
/// run wastes less (docs/benchmarks.md, round 10), and data without them does not
/// notice one run boundary more.
const FIRST_RUN: usize = 256;

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
fn eight_normal<M: Mode, const MEASURE: bool>(x: __m256i, c: &mut Normal) -> __m128i {
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
/// sixteen lanes; docs/benchmarks.md, round 9).
#[inline(never)]
#[target_feature(enable = "avx2,f16c")]
fn normal_run<M: Mode, const MEASURE: bool>(v: &[u32], o: &mut [u16], c: &mut Normal) -> u32 {
    let mut s = *c;
    let padding = sixteen_at_a_time!(v, o, |x| eight_normal::<M, MEASURE>(x, &mut s));
    *c = s;
    padding
}

/// Where the normal-range pass stopped: at the first run with a lane outside f16's
/// normal range.
struct Stopped {
    /// The lanes before that run, their counts, and the run's own lanes.
    done: usize,
    counts: ShortCounts,
    run: usize,
    /// The unsigned minimum of |x| - 1 up to the end of that run, and whether a lane
    /// up to there was past the range's top (an error of a ULP or more, or where errors
    /// were left out, |x| past 65504).
    min: u32,
    above: bool,
}

/// The counts of the normal-range pass's state over `lanes` lanes.
fn normal_counts(c: &Normal, lanes: usize) -> ShortCounts {
    ShortCounts {
        inexact: lanes as u32 - sum(c.exact),
        subnormal: 0,
        flushed: 0,
        max_units: f32::from_bits(max(c.max_units)) as u32,
    }
}

/// The normal-range pass, a run of [`NORMAL_RUN`] lanes at a time (the first
/// [`FIRST_RUN`]): the counts when every lane was ±0 or in f16's normal range, or where
/// it stopped (a block with a few subnormal results, a dark texture's, goes through
/// this pass only up to the first run with one). The outputs of the runs it took are
/// written. Errors are measured until they reach [`normal_bound`], counting those already `known`.
#[target_feature(enable = "avx2,f16c")]
fn narrow_normal<M: Mode>(
    values: &[u32],
    out: &mut [u16],
    known: u32,
) -> Result<ShortCounts, Stopped> {
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
    let bound = units_pattern(normal_bound(M::ROUNDING));
    let mut measure = known < normal_bound(M::ROUNDING);
    let mut done = 0;
    let (v_first, v_rest) = values.split_at(values.len().min(FIRST_RUN));
    let (o_first, o_rest) = out.split_at_mut(v_first.len());
    let rest = v_rest.chunks(NORMAL_RUN).zip(o_rest.chunks_mut(NORMAL_RUN));
    for (v, o) in std::iter::once((v_first, o_first)).chain(rest) {
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
                run: v.len(),
                min: min(c.min),
                above: _mm256_movemask_epi8(within) != -1,
            });
        }
        done += v.len() + padding as usize;
        measure = measure && max(c.max_units) < bound;
    }
    Ok(normal_counts(&c, done))
}

/// The short f16 pass in rounding mode `M`, a run at a time: the runs whose every lane
/// is in [`short_range`](super::short_range) (or is one of a few values past 65504 that round within a ULP,
/// which its normal-range part takes as the full pass does while it measures errors),
/// up to the first run that has another, which it declines (its lanes may then be left
/// unwritten). Its range test looks at the results alone, and also declines a few runs
/// in range: with a result of 65504 or an inexact one of 2^-24, or a flush from [2^-25,
/// 2^-24) toward zero, where the run also has a result below 2^-14. So a value the
/// short pass cannot take costs the full pass one run, not the rest of the block.
///
/// `known` is the largest error already counted, in 2^-26 ULPs: the returned largest
/// error is exact where it is above `known`, and otherwise may be anything up to it (0
/// where the pass had nothing to learn; see the module's notes).
#[target_feature(enable = "avx2,f16c")]
pub(in crate::convert::kernels) fn f16_short_pass<M: Mode>(
    values: &[u32],
    out: &mut [u16],
    known: u32,
) -> Taken {
    let n = values.len().min(out.len());
    let (values, out) = (&values[..n], &mut out[..n]);
    // Most blocks have no value below f16's normal range: the shorter pass first.
    let stop = match narrow_normal::<M>(values, out, known) {
        Ok(counts) => {
            return Taken {
                lanes: n,
                counts,
                declined: 0,
            };
        }
        Err(stop) => stop,
    };
    // A lane below 2^-14 has an error scaled as if its result were normal, which can
    // pass a ULP: `above` means a lane past the top only where none was below.
    let past_top = stop.above && stop.min >= (NORMAL_MIN - 1) as u32;
    if stop.min < (SHORT_MIN - 1) as u32 || past_top {
        // The lane outside the short range is in the run where the pass stopped.
        return Taken {
            lanes: stop.done,
            counts: stop.counts,
            declined: stop.run,
        };
    }
    let known = known.max(stop.counts.max_units);
    let (values, out) = (&values[stop.done..], &mut out[stop.done..]);
    let rest = if known < short_bound(M::ROUNDING) {
        narrow_short::<M, true>(values, out)
    } else {
        narrow_short::<M, false>(values, out)
    };
    Taken {
        lanes: stop.done + rest.lanes,
        counts: stop.counts.merge(rest.counts),
        declined: rest.declined,
    }
}

/// One run of the short pass (at most [`SHORT_RUN`] lanes) over `v` into `o`: its
/// state. A function of its own, as [`normal_run`] is, for the registers.
#[inline(never)]
#[target_feature(enable = "avx2,f16c")]
fn short_run<M: Mode, const MEASURE: bool>(v: &[u32], o: &mut [u16]) -> Short {
    let zero = _mm256_setzero_si256();
    let mut c = Short {
        max_err: _mm256_set1_epi32(i32::MIN),
        inexact: zero,
        subnormal: zero,
        top: zero,
        low: zero,
    };
    sixteen_at_a_time!(v, o, |x| eight::<M, MEASURE>(x, &mut c), fix(h, m) {
        count_sixteen(h, m, &mut c);
        h
    });
    c
}

/// The short pass for values with results below f16's normal range, a run of
/// [`SHORT_RUN`] lanes at a time, measuring errors with `MEASURE` (else its largest
/// error is 0): the runs it took up to the first whose range test caught a lane (see
/// [`count_sixteen`]), which it declines. No flushed result is counted, since the
/// range test catches them all.
#[target_feature(enable = "avx2,f16c")]
fn narrow_short<M: Mode, const MEASURE: bool>(values: &[u32], out: &mut [u16]) -> Taken {
    let mut max_err = i32::MIN;
    let mut taken = Taken::default();
    // The sum of a vector's sixteen 16-bit counts.
    let total = |v: __m256i| {
        let (lo, hi) = halves(v);
        lo + hi
    };
    for (v, o) in values.chunks(SHORT_RUN).zip(out.chunks_mut(SHORT_RUN)) {
        let c = short_run::<M, MEASURE>(v, o);
        if !within(&c) {
            taken.declined = v.len();
            break;
        }
        let lanes = bytemuck::cast::<__m256i, [i32; 8]>(c.max_err);
        max_err = lanes.into_iter().fold(max_err, i32::max);
        taken.lanes += v.len();
        taken.counts = taken.counts.merge(ShortCounts {
            inexact: total(c.inexact),
            subnormal: total(c.subnormal),
            flushed: 0,
            max_units: 0,
        });
    }
    // A zero error decodes to a tiny value, and none measured (i32::MIN) to a negative
    // one: both truncate to 0.
    taken.counts.max_units = f32::from_bits(max_err.wrapping_add(ERR_TO_UNITS) as u32) as u32;
    taken
}
