//! The full f16 pass with F16C: any f32 patterns, every count of the summary exact.

use std::arch::x86_64::*;

use super::{MAX_FINITE, NarrowPass, error_units, round_trip, short_bound};
use crate::convert::kernels::lanes::ulps_to_units;
use crate::convert::kernels::simd::compile_for;
use crate::convert::kernels::target::{Mode, Small, ToF16};
use crate::convert::kernels::x86::{halves, max, max_f32, min, pair, sum};
use crate::format::Rounding;

/// The running counts of the full pass, one per lane: masks are -1, so a count goes
/// up by subtracting its mask. Each is the simplest mask that gives the count; the
/// summary's counts are worked out from them at the end (`f16_full_pass`). Counts go in
/// pairs, one in each 16-bit half of a lane (`pair`, then `vpsubw`), so the loop keeps
/// fewer running values; a pass takes at most [`FULL_LANES`], which no half can wrap.
#[derive(Clone, Copy)]
struct Full {
    /// Lanes whose result equals the input, or NaN (inexact = the rest; low halves),
    /// and NaN (high).
    exact_nan: __m256i,
    /// Finite inputs past f16's range (low), and those of them that saturated (went to
    /// the largest finite value rather than INF) where the mode makes that depend on
    /// the sign (high).
    over_saturated: __m256i,
    /// Results below 2^-14, subnormal or zero (low), and results zero (high); inputs
    /// zero, whole lanes: subnormal = below - zero results, flushed = zero results -
    /// zero inputs.
    below_zero: __m256i,
    zero_in: __m256i,
    /// The largest error in 2^-26 ULPs, as an f32: exact for every lane counted in it.
    max_units: __m256,
    max_saturated: __m256i,
    /// The smallest |x| of the lanes below 2^-25 rounded up to the smallest subnormal,
    /// or of any lane of at least 2^-25 with a non-zero result (which no such lane is
    /// below, so a minimum from them means "none").
    min_far_one: __m256i,
}

/// Lanes one full pass counts: 2^12 per 32-bit lane, within a 16-bit half.
const FULL_LANES: usize = 1 << 15;

/// `if_neg` in the lanes where `x` is negative (its sign bit set), `if_pos` elsewhere:
/// `vblendvps` reads the sign bit of each lane itself, so no mask is built from `x`.
#[inline]
#[target_feature(enable = "avx2")]
fn by_sign(x: __m256i, if_pos: __m256i, if_neg: __m256i) -> __m256i {
    _mm256_castps_si256(_mm256_blendv_ps(
        _mm256_castsi256_ps(if_pos),
        _mm256_castsi256_ps(if_neg),
        _mm256_castsi256_ps(x),
    ))
}

/// Lanes past f16's range in mode `M` (for the modes other than to nearest): finite
/// inputs that round to INF, or of at least 2^16 (where the modes rounding toward zero
/// give the largest finite value instead; the core calls both overflow). `twice` is
/// |x| + 2^23 as patterns (2|x| for normal |x|): the addition takes INF and NaN past the
/// top of the positive range (to negative numbers) and keeps every finite magnitude in
/// order below them, so one signed compare decides.
#[inline]
#[target_feature(enable = "avx2")]
fn past_range<M: Mode>(twice: __m256i, x: __m256i) -> __m256i {
    // The largest magnitude within the range, shifted alike: 65504 where the mode rounds
    // away from zero, just below 2^16 where it rounds toward zero.
    let away = _mm256_set1_epi32(MAX_FINITE + (1 << 23));
    let below_2_16 = (ToF16::MAX_F32 | 0x1fff) as i32;
    let toward = _mm256_set1_epi32(below_2_16 + (1 << 23));
    let within = match M::ROUNDING {
        Rounding::TowardZero => toward,
        Rounding::TowardPositive => by_sign(x, away, toward),
        Rounding::NearestEven | Rounding::TowardNegative => by_sign(x, toward, away),
    };
    _mm256_cmpgt_epi32(twice, within)
}

/// Eight lanes of any f32 patterns to f16, counted into `c`; also the lanes that
/// --saturate takes from INF to the largest finite value (all clear without it).
///
/// IEEE rounding by `vcvtps2ph` is the core's rounding for f16 in every case: NaN
/// keeps its top payload bits with the quiet bit set, INF stays INF, overflow gives
/// INF or the largest finite value by the mode's direction (--saturate then turns INF
/// from a finite input into the largest finite), subnormal results are exact. The
/// counts come from the input and the result widened back (`vcvtph2ps`, exact).
///
/// The error of a lane is |result - input| scaled to 2^-26 ULPs of the result, in f32:
/// exact wherever the result is not past the range (the two are within a factor of two
/// of each other, or the result is 0 and the difference is the input itself, or both
/// are multiples of 2^-49 less than 2^-24 apart; the scale is a power of two), except
/// for an input below 2^-25 rounded up to the smallest subnormal (toward ±INF only),
/// which is kept apart as the smallest such input. NaN and INF inputs give a NaN
/// difference, which `vmaxps` passes over (it returns its second operand).
///
/// Without `MEASURE` the error is left out (the stream's largest error has reached
/// [`short_bound`], which no lane measured here passes), but the smallest input rounded
/// up to the smallest subnormal is still kept.
#[inline]
#[target_feature(enable = "avx2,f16c")]
fn full_eight<M: Mode, const S: bool, const MEASURE: bool>(
    x: __m256i,
    c: &mut Full,
) -> (__m128i, __m256i) {
    let zero = _mm256_setzero_si256();
    let (mag, h16, back_mag) = round_trip::<M>(x);
    let inf = _mm256_set1_epi32(0x7f80_0000);
    let nan = _mm256_cmpgt_epi32(mag, inf);
    // Exact or NaN in one compare: as floats, NaN is unordered, and two magnitudes
    // (denormals included: nothing here sets DAZ) are equal exactly when their patterns
    // are.
    let exact_or_nan = _mm256_castps_si256(_mm256_cmp_ps::<_CMP_EQ_UQ>(
        _mm256_castsi256_ps(back_mag),
        _mm256_castsi256_ps(mag),
    ));
    let twice = _mm256_add_epi32(mag, _mm256_set1_epi32(1 << 23));
    let over = if M::ROUNDING == Rounding::NearestEven {
        // Exactly the finite inputs rounded to INF (INF itself comes back equal; NaN
        // does not come back as INF).
        _mm256_andnot_si256(exact_or_nan, _mm256_cmpeq_epi32(back_mag, inf))
    } else {
        past_range::<M>(twice, x)
    };
    // With --saturate, INF from a finite input (a lane past the range rounding away from
    // zero; toward zero gives the largest finite value already) becomes the largest
    // finite value, sign kept: the pattern just below INF's, so the driver adds the
    // lane's mask (-1) to it, sixteen lanes at a time.
    let to_inf = match (S, M::ROUNDING) {
        (false, _) | (_, Rounding::TowardZero) => zero,
        (_, Rounding::NearestEven) => over,
        (_, Rounding::TowardPositive) => by_sign(x, over, zero),
        _ => by_sign(x, zero, over),
    };
    let zero_out = _mm256_cmpeq_epi32(back_mag, zero);
    c.exact_nan = _mm256_sub_epi16(c.exact_nan, pair(exact_or_nan, nan));
    // 2^-14 (f16's smallest normal) is the f32 exponent field 113.
    let normal_min = _mm256_set1_epi32(113 << 23);
    let below = _mm256_cmpgt_epi32(normal_min, back_mag);
    c.below_zero = _mm256_sub_epi16(c.below_zero, pair(below, zero_out));
    c.zero_in = _mm256_sub_epi32(c.zero_in, _mm256_cmpeq_epi32(mag, zero));

    if matches!(
        M::ROUNDING,
        Rounding::TowardPositive | Rounding::TowardNegative
    ) {
        // Below 2^-25 and rounded up to the smallest subnormal, |result - x| is not
        // exact in f32: such a lane is measured from `twice` instead (below), and its
        // error comes from the smallest such |x|.
        c.min_far_one = _mm256_min_epu32(c.min_far_one, _mm256_or_si256(mag, zero_out));
    }
    if MEASURE {
        let mut diff_from = back_mag;
        if matches!(
            M::ROUNDING,
            Rounding::TowardPositive | Rounding::TowardNegative
        ) {
            // `twice` is 2|x|, or 2^-126 + |x| for an f32 subnormal: |x| or 2^-126 from
            // it, exact and less than the error of a lane kept apart above. Every other
            // finite result is at most 2|x| (from 2^-25 up, rounding moves |x| by at
            // most itself), so the unsigned minimum keeps it; lanes past the range are
            // left out below, and NaN and INF still give NaN (their `twice` has the sign
            // bit set, so as unsigned numbers it lies above every f32 magnitude).
            diff_from = _mm256_min_epu32(diff_from, twice);
        }
        let field = _mm256_and_si256(_mm256_max_epi32(back_mag, normal_min), inf);
        let units = error_units(diff_from, mag, field);
        let units = _mm256_andnot_ps(_mm256_castsi256_ps(over), units);
        c.max_units = _mm256_max_ps(units, c.max_units);
    }
    // Saturated lanes (past the range, not to INF): the error grows with |x|.
    let sat = match (S, M::ROUNDING) {
        (true, _) | (_, Rounding::TowardZero) => over,
        (_, Rounding::NearestEven) => zero,
        (_, Rounding::TowardPositive) => by_sign(x, zero, over),
        _ => by_sign(x, over, zero),
    };
    // Only the modes where it depends on the sign count saturation apart.
    let sat_count = if matches!(
        M::ROUNDING,
        Rounding::TowardPositive | Rounding::TowardNegative
    ) && !S
    {
        sat
    } else {
        zero
    };
    c.over_saturated = _mm256_sub_epi16(c.over_saturated, pair(over, sat_count));
    if S || M::ROUNDING != Rounding::NearestEven {
        c.max_saturated = _mm256_max_epi32(c.max_saturated, _mm256_and_si256(sat, mag));
    }
    (h16, to_inf)
}

// The drivers (the loops; the lane code inlines into them), for F16C and again for
// AVX-512, where the same code gets 32 registers and fused mask operations.
compile_for!(f16c, avx512 => {
    /// The full f16 pass in rounding mode `M` (`S`: --saturate): any lane, the same bits and
    /// counts as `narrow::full_pass_portable::<ToF16, M, S>`.
    /// As in [`f16_short_pass`][short], `known` is the stream's largest error so far: once it
    /// has reached [`short_bound`] (which no lane of this pass measures past: the lanes
    /// whose errors can be larger, past the range or rounded up from below 2^-25, are
    /// kept apart), the pass leaves the errors out and its largest error is 0.
    ///
    /// [short]: crate::convert::kernels::narrow::x86::f16c::f16_short_pass
    pub(in crate::convert::kernels) fn f16_full_pass<M: Mode, const S: bool>(
        values: &[u32],
        out: &mut [u16],
        known: u32,
    ) -> NarrowPass {
        let n = values.len().min(out.len());
        let mut pass = NarrowPass::default();
        for (v, o) in values[..n]
            .chunks(FULL_LANES)
            .zip(out[..n].chunks_mut(FULL_LANES))
        {
            let part = if known.max(ulps_to_units(pass.max_error)) < short_bound(M::ROUNDING) {
                full_part::<M, S, true>(v, o)
            } else {
                full_part::<M, S, false>(v, o)
            };
            pass.merge(&part);
        }
        pass
    }

    /// The pass on at most [`FULL_LANES`] lanes.
            fn full_part<M: Mode, const S: bool, const MEASURE: bool>(
        values: &[u32],
        out: &mut [u16],
    ) -> NarrowPass {
        let n = values.len();
        let zero = _mm256_setzero_si256();
        let mut c = Full {
            exact_nan: zero,
            over_saturated: zero,
            below_zero: zero,
            zero_in: zero,
            max_units: _mm256_setzero_ps(),
            max_saturated: zero,
            min_far_one: _mm256_set1_epi32(-1),
        };
        // The tail's padding lanes are +0: exact, a zero result from a zero input (so neither
        // subnormal nor flushed), error 0.
        let padding = if S && M::ROUNDING != Rounding::TowardZero {
            sixteen_at_a_time!(values, out, |x| full_eight::<M, S, MEASURE>(x, &mut c), fix(h, to_inf) {
                _mm256_add_epi16(h, to_inf)
            })
        } else {
            sixteen_at_a_time!(values, out, |x| full_eight::<M, S, MEASURE>(x, &mut c).0)
        };
        let lanes_run = n as u32 + padding;
        let (exact_or_nan, nan) = halves(c.exact_nan);
        let (over, sat_count) = halves(c.over_saturated);
        let (below, zero_out) = halves(c.below_zero);
        // Which of the lanes past the range saturated, by the mode's direction.
        let saturated = match (S, M::ROUNDING) {
            (true, _) | (_, Rounding::TowardZero) => over,
            (_, Rounding::NearestEven) => 0,
            _ => sat_count,
        };
        let min_far_one = min(c.min_far_one);
        let units = max_f32(c.max_units);
        NarrowPass {
            inexact: lanes_run - exact_or_nan,
            saturated,
            overflow: over - saturated,
            nan,
            clamped: 0,
            subnormal: below.wrapping_sub(zero_out),
            flushed: zero_out.wrapping_sub(sum(c.zero_in)),
            max_units: 0,
            max_saturated: max(c.max_saturated),
            max_far_zero: 0,
            min_far_one: if min_far_one < 102 << 23 {
                min_far_one
            } else {
                u32::MAX
            },
            max_error: units as f64 * crate::format::pow2::pow2_normal(-26),
        }
    }
});
