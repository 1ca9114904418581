//! f32 -> f16 with the F16C conversion instructions (`vcvtps2ph`, `vcvtph2ps`): the short
//! and the full pass of the f16 target, and the f16 -> f32 widening.
//!
//! Why `std::arch` here: the portable passes (`narrow::narrow_vector_generic` and
//! `narrow::narrow_full_generic`) need a dozen or more integer operations per lane to
//! round, and the counts as many again, which keeps f32 -> f16 below the speed of memory
//! on one core. `vcvtps2ph` rounds eight lanes in one instruction, in any of the four IEEE
//! modes (its immediate), and `vcvtph2ps` widens the result back exactly, so the error of
//! a lane is the difference of two f32 values: the short pass is a couple of dozen
//! instructions per eight lanes.
//!
//! The short pass takes ±0 and inputs from 2^-25 up to f16's largest finite value
//! ([`short_range`]): there IEEE rounding and the core's rounding agree bit for bit, and
//! the error is exact in f32. It runs in two steps: a block of values in f16's normal
//! range (and ±0) needs neither the subnormal nor the flushed count, so a shorter loop
//! takes it first; only a block with a value below 2^-14 runs the loop with those counts.
//! Each block of eight is converted once (LLVM would otherwise convert the stored
//! halves a second time, straight to memory). The caller takes the full pass (also here, with F16C) when
//! any lane is outside, exactly as it does after the portable short pass, and the unit
//! tests below check both passes against the portable ones (which the integration tests
//! hold to the per-element core). The runtime check falls back to the portable passes on
//! CPUs (and targets) without F16C.

use super::Ordinary;
use super::narrow::NarrowPass;

/// Whether the CPU has F16C (and AVX2, for the integer half of the pass).
#[inline(always)]
pub(super) fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("f16c") && std::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Whether the F16C short pass takes `u`: ±0, or 2^-25 <= |u| <= 65504 (f16's normal
/// range, and its subnormal one down to where the error still fits an f32).
#[inline(always)]
pub(super) fn short_range(u: u32) -> bool {
    let mag = u & 0x7fff_ffff;
    mag == 0 || (102 << 23..=(142 << 23) | (0x3ff << 13)).contains(&mag)
}

/// The short f16 pass in rounding mode `M`: every lane gets an output; returns the counts
/// of the lanes in [`short_range`] and the number of the others (the exceptions). With no
/// exception, the counts are the block's.
pub(super) fn narrow_ordinary<const M: u8>(values: &[u32], out: &mut [u16]) -> (Ordinary, u32) {
    #[cfg(target_arch = "x86_64")]
    if available() {
        // SAFETY: the CPU has F16C and AVX2, checked just above.
        return unsafe { x86::narrow_ordinary::<M>(values, out) };
    }
    super::narrow::narrow_vector_generic::<10, true, M>(values, out)
}

/// The full f16 pass in rounding mode `M` (`S`: --saturate): any lane, the same bits and
/// counts as `narrow::narrow_full_generic::<10, true, M, S>`, or `None` without F16C.
pub(super) fn narrow_full<const M: u8, const S: bool>(
    values: &[u32],
    out: &mut [u16],
) -> Option<NarrowPass> {
    #[cfg(target_arch = "x86_64")]
    if available() {
        // SAFETY: the CPU has F16C and AVX2, checked just above.
        return Some(unsafe { x86::narrow_full::<M, S>(values, out) });
    }
    let _ = (values, out);
    None
}

/// f16 patterns (little-endian bytes) widened into f32 patterns, with the quiet bit set
/// on every NaN (the core's NaN rule): one pass with `vcvtph2ps`, where the portable path
/// takes two (the `half` crate's conversion, then the NaN pass). Returns the number of
/// NaNs, or `None` when the CPU lacks F16C and nothing was written.
pub(super) fn widen_f16(src: &[u8], out: &mut [u32]) -> Option<u32> {
    #[cfg(target_arch = "x86_64")]
    if available() {
        // SAFETY: the CPU has F16C and AVX2, checked just above.
        return Some(unsafe { x86::widen_f16(src, out) });
    }
    let _ = (src, out);
    None
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    use super::super::{Ordinary, RNE, RTN, RTP, RTZ};
    use super::NarrowPass;

    /// 2^-25 (the short pass's smallest input) and f16's largest finite value as f32
    /// patterns.
    const SHORT_MIN: i32 = 102 << 23;
    const MAX_FINITE: i32 = (142 << 23) | (0x3ff << 13);

    /// The running state of the short pass, one per lane. Counts go up by subtracting
    /// masks (-1).
    #[derive(Clone, Copy)]
    struct Short {
        /// Unsigned minimum of |x| - 1 (±0 wraps to the top, out of the way) and maximum
        /// of |x|: every lane was taken when they lie within the short range.
        min: __m256i,
        max: __m256i,
        exact: __m256i,
        /// Results below f16's normal range (subnormal or zero), results zero, inputs zero:
        /// subnormal = below - zero results, flushed = zero results - zero inputs.
        below: __m256i,
        zero_out: __m256i,
        zero_in: __m256i,
        /// Errors in 2^-26 ULPs, as integer-valued f32 patterns (non-negative, so they
        /// order as integers).
        max_units: __m256i,
    }

    /// Eight lanes converted (once) and counted into `c`; returns the f16 patterns.
    /// The counts are only used when every lane was in [`super::short_range`], so they
    /// need no masking; they are all computed from |x| and the result widened back.
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    fn eight<const M: u8>(x: __m256i, c: &mut Short) -> __m128i {
        let abs = _mm256_set1_epi32(0x7fff_ffff);
        let zero = _mm256_setzero_si256();
        let mag = _mm256_and_si256(x, abs);
        let h = to_f16::<M>(x);
        let back_mag = _mm256_and_si256(_mm256_castps_si256(_mm256_cvtph_ps(h)), abs);
        c.min = _mm256_min_epu32(c.min, _mm256_add_epi32(mag, _mm256_set1_epi32(-1)));
        c.max = _mm256_max_epu32(c.max, mag);
        c.exact = _mm256_sub_epi32(c.exact, _mm256_cmpeq_epi32(back_mag, mag));
        // 2^-14 (f16's smallest normal) is the f32 exponent field 113.
        let below = _mm256_cmpgt_epi32(_mm256_set1_epi32(113 << 23), back_mag);
        c.below = _mm256_sub_epi32(c.below, below);
        c.zero_out = _mm256_sub_epi32(c.zero_out, _mm256_cmpeq_epi32(back_mag, zero));
        c.zero_in = _mm256_sub_epi32(c.zero_in, _mm256_cmpeq_epi32(mag, zero));
        // In the short range |result - x| is exact in f32 (see `full_eight`), and so is
        // scaling it by 2^(26 - ulp exponent): the result's f16 exponent is its f32
        // exponent field - 112 (at least 1, subnormals and zero included), so the scale's
        // field is 178 - that = 290 - max(field, 113).
        let diff = _mm256_and_si256(
            _mm256_castps_si256(_mm256_sub_ps(
                _mm256_castsi256_ps(back_mag),
                _mm256_castsi256_ps(mag),
            )),
            abs,
        );
        let field = _mm256_and_si256(
            _mm256_max_epi32(back_mag, _mm256_set1_epi32(113 << 23)),
            _mm256_set1_epi32(0x7f80_0000),
        );
        let scale = _mm256_sub_epi32(_mm256_set1_epi32(290 << 23), field);
        let units = _mm256_castps_si256(_mm256_mul_ps(
            _mm256_castsi256_ps(diff),
            _mm256_castsi256_ps(scale),
        ));
        c.max_units = _mm256_max_epi32(c.max_units, units);
        h
    }

    fn lanes_sum(v: __m256i) -> u32 {
        bytemuck::cast::<__m256i, [u32; 8]>(v)
            .iter()
            .fold(0u32, |a, &b| a.wrapping_add(b))
    }

    fn lanes_max(v: __m256i) -> u32 {
        bytemuck::cast::<__m256i, [u32; 8]>(v)
            .into_iter()
            .max()
            .unwrap_or(0)
    }

    /// `vcvtps2ph` in rounding mode `M`.
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    fn to_f16<const M: u8>(x: __m256i) -> __m128i {
        let xf = _mm256_castsi256_ps(x);
        match M {
            RNE => _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(xf),
            RTZ => _mm256_cvtps_ph::<_MM_FROUND_TO_ZERO>(xf),
            RTP => _mm256_cvtps_ph::<_MM_FROUND_TO_POS_INF>(xf),
            RTN => _mm256_cvtps_ph::<_MM_FROUND_TO_NEG_INF>(xf),
            _ => unreachable!("rounding mode"),
        }
    }

    /// The running counts of the full pass, one per lane: masks are -1, so a count goes
    /// up by subtracting its mask. Each is the simplest mask that gives the count; the
    /// summary's counts are worked out from them at the end (`narrow_full`). Counts go in
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

    /// Two masks in one lane: `lo`'s low half and `hi`'s high half.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn pair(lo: __m256i, hi: __m256i) -> __m256i {
        _mm256_blend_epi16::<0b1010_1010>(lo, hi)
    }

    /// The sums of the low and of the high halves of the lanes.
    fn halves(v: __m256i) -> (u32, u32) {
        bytemuck::cast::<__m256i, [u32; 8]>(v)
            .iter()
            .fold((0, 0), |(lo, hi), &w| (lo + (w & 0xffff), hi + (w >> 16)))
    }

    /// The smallest f32 magnitude (as a pattern) past f16's range in mode `M` for a lane of
    /// sign `neg`: one that rounds to INF, or is at least 2^16 (where the modes rounding
    /// toward zero give the largest finite value instead; the core calls both overflow).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn over_from<const M: u8>(neg: __m256i) -> __m256i {
        // 65520 (halfway past the largest finite value), just above 65504, and 2^16.
        let (half, above, two16) = (0x477f_f000, MAX_FINITE + 1, 0x4780_0000);
        match M {
            RNE => _mm256_set1_epi32(half),
            RTZ => _mm256_set1_epi32(two16),
            RTP => _mm256_blendv_epi8(_mm256_set1_epi32(above), _mm256_set1_epi32(two16), neg),
            _ => _mm256_blendv_epi8(_mm256_set1_epi32(two16), _mm256_set1_epi32(above), neg),
        }
    }

    /// Eight lanes of any f32 patterns to f16, counted into `c`.
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
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    fn full_eight<const M: u8, const S: bool>(x: __m256i, c: &mut Full) -> __m128i {
        let abs = _mm256_set1_epi32(0x7fff_ffff);
        let zero = _mm256_setzero_si256();
        let mag = _mm256_and_si256(x, abs);
        let mut h16 = to_f16::<M>(x);
        let back_mag = _mm256_and_si256(_mm256_castps_si256(_mm256_cvtph_ps(h16)), abs);
        let neg = _mm256_srai_epi32::<31>(x);
        let inf = _mm256_set1_epi32(0x7f80_0000);
        let nan = _mm256_cmpgt_epi32(mag, inf);
        let eq = _mm256_cmpeq_epi32(back_mag, mag);
        let over = if M == RNE {
            // Exactly the finite inputs rounded to INF (INF itself comes back equal).
            _mm256_andnot_si256(eq, _mm256_cmpeq_epi32(back_mag, inf))
        } else {
            // over_from <= |x| < INF.
            _mm256_andnot_si256(
                _mm256_cmpgt_epi32(over_from::<M>(neg), mag),
                _mm256_cmpgt_epi32(inf, mag),
            )
        };
        if S {
            // INF from a finite input becomes the largest finite value, sign kept.
            let over16 = _mm256_castsi256_si128(_mm256_permute4x64_epi64::<0b1000>(
                _mm256_packs_epi32(over, over),
            ));
            let max = _mm_or_si128(
                _mm_and_si128(h16, _mm_set1_epi16(0x8000u16 as i16)),
                _mm_set1_epi16(0x7bff),
            );
            h16 = _mm_blendv_epi8(h16, max, over16);
        }
        let zero_out = _mm256_cmpeq_epi32(back_mag, zero);
        c.exact_nan = _mm256_sub_epi16(c.exact_nan, pair(_mm256_or_si256(eq, nan), nan));
        // 2^-14 (f16's smallest normal) is the f32 exponent field 113.
        let normal_min = _mm256_set1_epi32(113 << 23);
        let below = _mm256_cmpgt_epi32(normal_min, back_mag);
        c.below_zero = _mm256_sub_epi16(c.below_zero, pair(below, zero_out));
        c.zero_in = _mm256_sub_epi32(c.zero_in, _mm256_cmpeq_epi32(mag, zero));

        let mut diff_from = back_mag;
        if matches!(M, RTP | RTN) {
            // Below 2^-25 and rounded up to the smallest subnormal, |result - x| is not
            // exact in f32: such a lane is measured from 0 instead (|x|, less than its
            // error), and its error comes from the smallest such |x|.
            let far = _mm256_cmpgt_epi32(_mm256_set1_epi32(102 << 23), mag);
            diff_from = _mm256_andnot_si256(far, diff_from);
            c.min_far_one = _mm256_min_epu32(c.min_far_one, _mm256_or_si256(mag, zero_out));
        }
        // The scale 2^(26 - ulp exponent) has the field 290 - max(result field, 113).
        let diff = _mm256_and_ps(
            _mm256_sub_ps(_mm256_castsi256_ps(diff_from), _mm256_castsi256_ps(mag)),
            _mm256_castsi256_ps(abs),
        );
        let field = _mm256_and_si256(_mm256_max_epi32(back_mag, normal_min), inf);
        let scale = _mm256_sub_epi32(_mm256_set1_epi32(290 << 23), field);
        let units = _mm256_mul_ps(diff, _mm256_castsi256_ps(scale));
        let units = _mm256_andnot_ps(_mm256_castsi256_ps(over), units);
        c.max_units = _mm256_max_ps(units, c.max_units);
        // Saturated lanes (past the range, not to INF): the error grows with |x|.
        let sat = match (S, M) {
            (true, _) | (_, RTZ) => over,
            (_, RNE) => zero,
            (_, RTP) => _mm256_and_si256(over, neg),
            _ => _mm256_andnot_si256(neg, over),
        };
        // Only the modes where it depends on the sign count saturation apart.
        let sat_count = if matches!(M, RTP | RTN) && !S {
            sat
        } else {
            zero
        };
        c.over_saturated = _mm256_sub_epi16(c.over_saturated, pair(over, sat_count));
        if S || M != RNE {
            c.max_saturated = _mm256_max_epi32(c.max_saturated, _mm256_and_si256(sat, mag));
        }
        h16
    }

    fn lanes_min(v: __m256i) -> u32 {
        bytemuck::cast::<__m256i, [u32; 8]>(v)
            .into_iter()
            .min()
            .unwrap_or(u32::MAX)
    }

    #[target_feature(enable = "avx2,f16c")]
    pub(super) fn narrow_full<const M: u8, const S: bool>(
        values: &[u32],
        out: &mut [u16],
    ) -> NarrowPass {
        let n = values.len().min(out.len());
        let mut pass = NarrowPass::default();
        for (v, o) in values[..n]
            .chunks(FULL_LANES)
            .zip(out[..n].chunks_mut(FULL_LANES))
        {
            pass.merge(&full_part::<M, S>(v, o));
        }
        pass
    }

    /// [`narrow_full`] on at most [`FULL_LANES`] lanes.
    #[target_feature(enable = "avx2,f16c")]
    fn full_part<const M: u8, const S: bool>(values: &[u32], out: &mut [u16]) -> NarrowPass {
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
        // Sixteen lanes a step, stored through the opaque zero (see `narrow_normal`).
        let opaque = std::hint::black_box(zero);
        let mut vs = values.chunks_exact(16);
        let mut os = out.chunks_exact_mut(16);
        for (v, o) in (&mut vs).zip(&mut os) {
            let words: [[u32; 8]; 2] = bytemuck::cast::<[u32; 16], _>(v.try_into().expect("16"));
            let lo = full_eight::<M, S>(bytemuck::cast(words[0]), &mut c);
            let hi = full_eight::<M, S>(bytemuck::cast(words[1]), &mut c);
            let both = _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(lo), hi);
            let both = _mm256_xor_si256(both, opaque);
            o.copy_from_slice(&bytemuck::cast::<__m256i, [u16; 16]>(both));
        }
        // The tail, eight lanes at a time, padded with +0: exact, a zero result from a
        // zero input (so neither subnormal nor flushed), error 0.
        let mut lanes_run = n as u32;
        for (v, o) in vs
            .remainder()
            .chunks(8)
            .zip(os.into_remainder().chunks_mut(8))
        {
            let mut words = [0u32; 8];
            words[..v.len()].copy_from_slice(v);
            let h = full_eight::<M, S>(bytemuck::cast(words), &mut c);
            o.copy_from_slice(&bytemuck::cast::<__m128i, [u16; 8]>(h)[..v.len()]);
            lanes_run += 8 - v.len() as u32;
        }
        let (exact_or_nan, nan) = halves(c.exact_nan);
        let (over, sat_count) = halves(c.over_saturated);
        let (below, zero_out) = halves(c.below_zero);
        // Which of the lanes past the range saturated, by the mode's direction.
        let saturated = match (S, M) {
            (true, _) | (_, RTZ) => over,
            (_, RNE) => 0,
            _ => sat_count,
        };
        let min_far_one = lanes_min(c.min_far_one);
        let units = bytemuck::cast::<__m256, [f32; 8]>(c.max_units)
            .into_iter()
            .fold(0f32, f32::max);
        NarrowPass {
            inexact: lanes_run - exact_or_nan,
            saturated,
            overflow: over - saturated,
            nan,
            clamped: 0,
            subnormal: below.wrapping_sub(zero_out),
            flushed: zero_out.wrapping_sub(lanes_sum(c.zero_in)),
            max_units: 0,
            max_saturated: lanes_max(c.max_saturated),
            max_far_zero: 0,
            min_far_one: if min_far_one < 102 << 23 {
                min_far_one
            } else {
                u32::MAX
            },
            max_error: units as f64 * crate::format::pow2::pow2_normal(-26),
        }
    }

    /// Eight f16 patterns to f32 patterns, NaNs quieted, and the NaN mask.
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    fn widen_eight(h: __m128i) -> (__m256i, __m256i) {
        let x = _mm256_castps_si256(_mm256_cvtph_ps(h));
        let mag = _mm256_and_si256(x, _mm256_set1_epi32(0x7fff_ffff));
        let nan = _mm256_cmpgt_epi32(mag, _mm256_set1_epi32(0x7f80_0000));
        let quiet = _mm256_and_si256(nan, _mm256_set1_epi32(1 << 22));
        (_mm256_or_si256(x, quiet), nan)
    }

    #[target_feature(enable = "avx2,f16c")]
    pub(super) fn widen_f16(src: &[u8], out: &mut [u32]) -> u32 {
        let n = (src.len() / 2).min(out.len());
        let (src, out) = (&src[..2 * n], &mut out[..n]);
        let mut nans = _mm256_setzero_si256();
        let mut ss = src.chunks_exact(16);
        let mut os = out.chunks_exact_mut(8);
        for (s, o) in (&mut ss).zip(&mut os) {
            let bytes: [u8; 16] = s.try_into().expect("eight halves");
            let (x, nan) = widen_eight(bytemuck::cast(bytes));
            o.copy_from_slice(&bytemuck::cast::<__m256i, [u32; 8]>(x));
            nans = _mm256_sub_epi32(nans, nan);
        }
        let rest = ss.remainder();
        if !rest.is_empty() {
            // Padded with zeros, which are not NaN.
            let mut bytes = [0u8; 16];
            bytes[..rest.len()].copy_from_slice(rest);
            let (x, nan) = widen_eight(bytemuck::cast(bytes));
            let words = bytemuck::cast::<__m256i, [u32; 8]>(x);
            os.into_remainder()
                .copy_from_slice(&words[..rest.len() / 2]);
            nans = _mm256_sub_epi32(nans, nan);
        }
        lanes_sum(nans)
    }

    /// The state of the normal-range pass: [`Short`] without the counts that results
    /// below f16's normal range need.
    #[derive(Clone, Copy)]
    struct Normal {
        min: __m256i,
        max: __m256i,
        exact: __m256i,
        max_units: __m256i,
    }

    /// 2^-14, f16's smallest normal value, as an f32 pattern.
    const NORMAL_MIN: i32 = 113 << 23;

    /// [`eight`] for lanes in f16's normal range (±0 or 2^-14 <= |x| <= MAX_FINITE): the
    /// result is ±0 or normal in every mode (2^-14 is exact), so nothing is subnormal or
    /// flushed and the result's exponent gives the scale of its ULP directly.
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    fn eight_normal<const M: u8>(x: __m256i, c: &mut Normal) -> __m128i {
        let abs = _mm256_set1_epi32(0x7fff_ffff);
        let mag = _mm256_and_si256(x, abs);
        let h = to_f16::<M>(x);
        let back_mag = _mm256_and_si256(_mm256_castps_si256(_mm256_cvtph_ps(h)), abs);
        c.min = _mm256_min_epu32(c.min, _mm256_add_epi32(mag, _mm256_set1_epi32(-1)));
        c.max = _mm256_max_epu32(c.max, mag);
        c.exact = _mm256_sub_epi32(c.exact, _mm256_cmpeq_epi32(back_mag, mag));
        let diff = _mm256_and_si256(
            _mm256_castps_si256(_mm256_sub_ps(
                _mm256_castsi256_ps(back_mag),
                _mm256_castsi256_ps(mag),
            )),
            abs,
        );
        // As in `eight`; a zero result (from ±0 only) has error 0 whatever its scale.
        let field = _mm256_and_si256(back_mag, _mm256_set1_epi32(0x7f80_0000));
        let scale = _mm256_sub_epi32(_mm256_set1_epi32(290 << 23), field);
        let units = _mm256_castps_si256(_mm256_mul_ps(
            _mm256_castsi256_ps(diff),
            _mm256_castsi256_ps(scale),
        ));
        c.max_units = _mm256_max_epi32(c.max_units, units);
        h
    }

    /// The normal-range pass: the counts when every lane was ±0 or in f16's normal range,
    /// otherwise the unsigned minimum of |x| - 1 and maximum of |x| over the lanes (the
    /// outputs are written either way).
    #[target_feature(enable = "avx2,f16c")]
    fn narrow_normal<const M: u8>(values: &[u32], out: &mut [u16]) -> Result<Ordinary, (u32, u32)> {
        let zero = _mm256_setzero_si256();
        let mut c = Normal {
            min: _mm256_set1_epi32(-1),
            max: zero,
            exact: zero,
            max_units: zero,
        };
        // A zero LLVM cannot see through: without it the stored halves are converted a
        // second time, straight into memory (`vcvtps2ph` to memory), for each block.
        let opaque = std::hint::black_box(zero);
        let mut vs = values.chunks_exact(16);
        let mut os = out.chunks_exact_mut(16);
        for (v, o) in (&mut vs).zip(&mut os) {
            let words: [[u32; 8]; 2] = bytemuck::cast::<[u32; 16], _>(v.try_into().expect("16"));
            let lo = eight_normal::<M>(bytemuck::cast(words[0]), &mut c);
            let hi = eight_normal::<M>(bytemuck::cast(words[1]), &mut c);
            let both = _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(lo), hi);
            let both = _mm256_xor_si256(both, opaque);
            o.copy_from_slice(&bytemuck::cast::<__m256i, [u16; 16]>(both));
        }
        // The tail, padded with zeros (taken, exact, error 0).
        let mut padding = 0;
        for (v, o) in vs
            .remainder()
            .chunks(8)
            .zip(os.into_remainder().chunks_mut(8))
        {
            let mut words = [0u32; 8];
            words[..v.len()].copy_from_slice(v);
            let h = eight_normal::<M>(bytemuck::cast(words), &mut c);
            o.copy_from_slice(&bytemuck::cast::<__m128i, [u16; 8]>(h)[..v.len()]);
            padding += 8 - v.len() as u32;
        }
        let min = lanes_min(c.min);
        let max = lanes_max(c.max);
        if min < (NORMAL_MIN - 1) as u32 || max > MAX_FINITE as u32 {
            return Err((min, max));
        }
        Ok(Ordinary {
            inexact: values.len() as u32 + padding - lanes_sum(c.exact),
            subnormal: 0,
            flushed: 0,
            max_units: f32::from_bits(lanes_max(c.max_units)) as u32,
        })
    }

    #[target_feature(enable = "avx2,f16c")]
    pub(super) fn narrow_ordinary<const M: u8>(values: &[u32], out: &mut [u16]) -> (Ordinary, u32) {
        let n = values.len().min(out.len());
        let (values, out) = (&values[..n], &mut out[..n]);
        // Most blocks have no value below f16's normal range: the shorter pass first.
        let (min, max) = match narrow_normal::<M>(values, out) {
            Ok(o) => return (o, 0),
            Err(range) => range,
        };
        if min < (SHORT_MIN - 1) as u32 || max > MAX_FINITE as u32 {
            // The full pass follows: only the number of exceptions matters.
            let exceptions = values.iter().filter(|&&v| !super::short_range(v)).count();
            return (Ordinary::default(), exceptions as u32);
        }
        narrow_short::<M>(values, out)
    }

    /// The short pass for blocks with results below f16's normal range.
    #[target_feature(enable = "avx2,f16c")]
    fn narrow_short<const M: u8>(values: &[u32], out: &mut [u16]) -> (Ordinary, u32) {
        let n = values.len();
        let zero = _mm256_setzero_si256();
        let mut c = Short {
            min: _mm256_set1_epi32(-1),
            max: zero,
            exact: zero,
            below: zero,
            zero_out: zero,
            zero_in: zero,
            max_units: zero,
        };
        // Sixteen lanes a step, their halves stored as one 32-byte word (through the
        // opaque zero, as in `narrow_normal`).
        let opaque = std::hint::black_box(zero);
        let mut vs = values.chunks_exact(16);
        let mut os = out.chunks_exact_mut(16);
        for (v, o) in (&mut vs).zip(&mut os) {
            let words: [[u32; 8]; 2] = bytemuck::cast::<[u32; 16], _>(v.try_into().expect("16"));
            let lo = eight::<M>(bytemuck::cast(words[0]), &mut c);
            let hi = eight::<M>(bytemuck::cast(words[1]), &mut c);
            let both = _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(lo), hi);
            let both = _mm256_xor_si256(both, opaque);
            o.copy_from_slice(&bytemuck::cast::<__m256i, [u16; 16]>(both));
        }
        // The tail, eight lanes at a time, padded with zeros (taken, exact, zero in and
        // out: they cancel in subnormal and flushed).
        let rest = vs.remainder();
        let mut padding = 0;
        for (v, o) in rest.chunks(8).zip(os.into_remainder().chunks_mut(8)) {
            let mut words = [0u32; 8];
            words[..v.len()].copy_from_slice(v);
            let h = eight::<M>(bytemuck::cast(words), &mut c);
            let halves = bytemuck::cast::<__m128i, [u16; 8]>(h);
            o.copy_from_slice(&halves[..v.len()]);
            padding += 8 - v.len() as u32;
        }
        let taken =
            lanes_min(c.min) >= (SHORT_MIN - 1) as u32 && lanes_max(c.max) <= MAX_FINITE as u32;
        let exceptions = if taken {
            0
        } else {
            values.iter().filter(|&&v| !super::short_range(v)).count() as u32
        };
        let zero_out = lanes_sum(c.zero_out);
        // Padding lanes are exact zeros: inexact = every lane run - the exact ones.
        let lanes_run = n as u32 + padding;
        let o = Ordinary {
            inexact: lanes_run - lanes_sum(c.exact),
            subnormal: lanes_sum(c.below).wrapping_sub(zero_out),
            flushed: zero_out.wrapping_sub(lanes_sum(c.zero_in)),
            max_units: f32::from_bits(lanes_max(c.max_units)) as u32,
        };
        (o, exceptions)
    }
}

#[cfg(test)]
mod tests;
