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
//! the error is exact in f32. The caller takes the full pass (also here, with F16C) when
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

    /// Eight lanes: the f16 patterns, the mask of lanes the short pass takes, and the
    /// exact, subnormal and flushed masks and each lane's error in units of 2^-26 ULPs
    /// (meaningful where the lane is taken).
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    fn eight<const M: u8>(x: __m256i) -> (__m128i, __m256i, [__m256i; 4]) {
        let zero = _mm256_setzero_si256();
        let mag = _mm256_and_si256(x, _mm256_set1_epi32(0x7fff_ffff));
        let h = to_f16::<M>(x);
        let hm = _mm256_and_si256(_mm256_cvtepu16_epi32(h), _mm256_set1_epi32(0x7fff));
        let back = _mm256_castps_si256(_mm256_cvtph_ps(h));
        let back_mag = _mm256_and_si256(back, _mm256_set1_epi32(0x7fff_ffff));
        // The short pass takes ±0 and |x| in [2^-25, MAX_FINITE] (one unsigned
        // comparison): no NaN, INF or overflow, and the error exact in f32, as in the full
        // pass below (|result - x| is exact, and scaling it by 2^(26 - ulp exponent) too).
        let t = _mm256_sub_epi32(mag, _mm256_set1_epi32(SHORT_MIN));
        let span = _mm256_set1_epi32(MAX_FINITE - SHORT_MIN);
        let in_range = _mm256_cmpeq_epi32(_mm256_min_epu32(t, span), t);
        let mag_zero = _mm256_cmpeq_epi32(mag, zero);
        let ok = _mm256_or_si256(in_range, mag_zero);
        // The counts are only used when every lane was taken, so they need no masking.
        let exact = _mm256_cmpeq_epi32(back_mag, mag);
        let h_zero = _mm256_cmpeq_epi32(hm, zero);
        let below_normal = _mm256_cmpgt_epi32(_mm256_set1_epi32(0x400), hm);
        let subnormal = _mm256_andnot_si256(h_zero, below_normal);
        let flushed = _mm256_andnot_si256(mag_zero, h_zero);
        let diff = _mm256_and_si256(
            _mm256_castps_si256(_mm256_sub_ps(
                _mm256_castsi256_ps(back_mag),
                _mm256_castsi256_ps(mag),
            )),
            _mm256_set1_epi32(0x7fff_ffff),
        );
        let e_h = _mm256_max_epi32(_mm256_srli_epi32::<10>(hm), _mm256_set1_epi32(1));
        let scale = _mm256_slli_epi32::<23>(_mm256_sub_epi32(_mm256_set1_epi32(178), e_h));
        let units = _mm256_castps_si256(_mm256_mul_ps(
            _mm256_castsi256_ps(diff),
            _mm256_castsi256_ps(scale),
        ));
        (h, ok, [exact, subnormal, flushed, units])
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
    /// up by subtracting its mask.
    #[derive(Clone, Copy)]
    struct Full {
        inexact: __m256i,
        saturated: __m256i,
        overflow: __m256i,
        nan: __m256i,
        subnormal: __m256i,
        flushed: __m256i,
        /// Errors in 2^-26 ULPs, as integer-valued f32 patterns (non-negative, so they
        /// order as integers).
        max_units: __m256i,
        max_saturated: __m256i,
        max_far_zero: __m256i,
        min_far_one: __m256i,
    }

    /// Eight lanes of any f32 patterns to f16, counted into `c`.
    ///
    /// IEEE rounding by `vcvtps2ph` is the core's rounding for f16 in every case: NaN
    /// keeps its top payload bits with the quiet bit set, INF stays INF, overflow gives
    /// INF or the largest finite value by the mode's direction (--saturate then turns INF
    /// from a finite input into the largest finite), subnormal results are exact. The
    /// counts come from the input and the result widened back (`vcvtph2ps`, exact).
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    fn full_eight<const M: u8, const S: bool>(x: __m256i, c: &mut Full) -> __m128i {
        let zero = _mm256_setzero_si256();
        let ones = _mm256_set1_epi32(-1);
        let mag = _mm256_and_si256(x, _mm256_set1_epi32(0x7fff_ffff));
        let mut h16 = to_f16::<M>(x);
        let hm = _mm256_and_si256(_mm256_cvtepu16_epi32(h16), _mm256_set1_epi32(0x7fff));
        let nan = _mm256_cmpgt_epi32(mag, _mm256_set1_epi32(0x7f80_0000));
        let inf = _mm256_cmpeq_epi32(mag, _mm256_set1_epi32(0x7f80_0000));
        let finite = _mm256_andnot_si256(_mm256_or_si256(nan, inf), ones);
        // Past the largest finite value: rounded to INF, or at least 2^16 (where the
        // modes rounding down give the largest finite value instead).
        let past = _mm256_or_si256(
            _mm256_cmpeq_epi32(hm, _mm256_set1_epi32(0x7c00)),
            _mm256_cmpgt_epi32(mag, _mm256_set1_epi32(0x477f_ffff)),
        );
        let over = _mm256_and_si256(finite, past);
        let neg = _mm256_srai_epi32::<31>(x);
        let to_infinity = if S {
            zero
        } else {
            match M {
                RNE => ones,
                RTZ => zero,
                RTP => _mm256_andnot_si256(neg, ones),
                _ => neg,
            }
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
        let back = _mm256_castps_si256(_mm256_cvtph_ps(h16));
        let back_mag = _mm256_and_si256(back, _mm256_set1_epi32(0x7fff_ffff));
        let in_range = _mm256_andnot_si256(over, finite);
        let sat = _mm256_andnot_si256(to_infinity, over);
        let changed = _mm256_andnot_si256(_mm256_cmpeq_epi32(back_mag, mag), ones);
        let inexact = _mm256_and_si256(finite, _mm256_or_si256(over, changed));
        let h_zero = _mm256_cmpeq_epi32(hm, zero);
        let subnormal =
            _mm256_andnot_si256(h_zero, _mm256_cmpgt_epi32(_mm256_set1_epi32(0x400), hm));
        let mag_zero = _mm256_cmpeq_epi32(mag, zero);
        let flushed = _mm256_andnot_si256(mag_zero, h_zero);
        c.inexact = _mm256_sub_epi32(c.inexact, inexact);
        c.saturated = _mm256_sub_epi32(c.saturated, sat);
        c.overflow = _mm256_sub_epi32(c.overflow, _mm256_and_si256(over, to_infinity));
        c.nan = _mm256_sub_epi32(c.nan, nan);
        c.subnormal = _mm256_sub_epi32(c.subnormal, _mm256_and_si256(in_range, subnormal));
        c.flushed = _mm256_sub_epi32(c.flushed, _mm256_and_si256(in_range, flushed));

        // Far: below 2^-25, where the result is 0 or the smallest subnormal and the
        // error needs more bits than an f32 holds; kept through the extremes as in the
        // portable pass. Elsewhere |result - input| is exact in f32 (within a factor of
        // two of each other, or both multiples of 2^-49 less than 2^-24 apart), and
        // scaling it by 2^(26 - ulp exponent) is exact: whole 2^-26 ULPs.
        let far = _mm256_cmpgt_epi32(_mm256_set1_epi32(102 << 23), mag);
        let near = _mm256_andnot_si256(far, in_range);
        let far = _mm256_and_si256(far, in_range);
        let diff = _mm256_and_si256(
            _mm256_castps_si256(_mm256_sub_ps(
                _mm256_castsi256_ps(back_mag),
                _mm256_castsi256_ps(mag),
            )),
            _mm256_set1_epi32(0x7fff_ffff),
        );
        let e_h = _mm256_max_epi32(_mm256_srli_epi32::<10>(hm), _mm256_set1_epi32(1));
        let scale = _mm256_slli_epi32::<23>(_mm256_sub_epi32(_mm256_set1_epi32(178), e_h));
        let units = _mm256_castps_si256(_mm256_mul_ps(
            _mm256_castsi256_ps(diff),
            _mm256_castsi256_ps(scale),
        ));
        c.max_units = _mm256_max_epi32(c.max_units, _mm256_and_si256(near, units));
        c.max_saturated = _mm256_max_epi32(c.max_saturated, _mm256_and_si256(sat, mag));
        let far_zero = _mm256_and_si256(far, h_zero);
        c.max_far_zero = _mm256_max_epi32(c.max_far_zero, _mm256_and_si256(far_zero, mag));
        let far_one = _mm256_andnot_si256(h_zero, far);
        let candidate = _mm256_or_si256(
            _mm256_and_si256(far_one, mag),
            _mm256_andnot_si256(far_one, ones),
        );
        c.min_far_one = _mm256_min_epu32(c.min_far_one, candidate);
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
        let (values, out) = (&values[..n], &mut out[..n]);
        let zero = _mm256_setzero_si256();
        let mut c = Full {
            inexact: zero,
            saturated: zero,
            overflow: zero,
            nan: zero,
            subnormal: zero,
            flushed: zero,
            max_units: zero,
            max_saturated: zero,
            max_far_zero: zero,
            min_far_one: _mm256_set1_epi32(-1),
        };
        let mut vs = values.chunks_exact(8);
        let mut os = out.chunks_exact_mut(8);
        for (v, o) in (&mut vs).zip(&mut os) {
            let words: [u32; 8] = v.try_into().expect("eight lanes");
            let h = full_eight::<M, S>(bytemuck::cast(words), &mut c);
            o.copy_from_slice(&bytemuck::cast::<__m128i, [u16; 8]>(h));
        }
        let rest = vs.remainder();
        if !rest.is_empty() {
            // Padded with +0: exact, not flushed, error 0; it counts nowhere.
            let mut words = [0u32; 8];
            words[..rest.len()].copy_from_slice(rest);
            let h = full_eight::<M, S>(bytemuck::cast(words), &mut c);
            let halves = bytemuck::cast::<__m128i, [u16; 8]>(h);
            os.into_remainder().copy_from_slice(&halves[..rest.len()]);
        }
        let units = f32::from_bits(lanes_max(c.max_units));
        NarrowPass {
            inexact: lanes_sum(c.inexact),
            saturated: lanes_sum(c.saturated),
            overflow: lanes_sum(c.overflow),
            nan: lanes_sum(c.nan),
            clamped: 0,
            subnormal: lanes_sum(c.subnormal),
            flushed: lanes_sum(c.flushed),
            max_units: units as u32,
            max_saturated: lanes_max(c.max_saturated),
            max_far_zero: lanes_max(c.max_far_zero),
            min_far_one: lanes_min(c.min_far_one),
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

    #[target_feature(enable = "avx2,f16c")]
    pub(super) fn narrow_ordinary<const M: u8>(values: &[u32], out: &mut [u16]) -> (Ordinary, u32) {
        let n = values.len().min(out.len());
        let (values, out) = (&values[..n], &mut out[..n]);
        // Counts go down by one per lane (the masks are -1), so they are negated sums.
        let mut oks = _mm256_setzero_si256();
        let mut counts = [_mm256_setzero_si256(); 3];
        let mut max_units = _mm256_setzero_si256();
        let mut add = |ok: __m256i, lanes: [__m256i; 4]| {
            oks = _mm256_sub_epi32(oks, ok);
            for (c, m) in counts.iter_mut().zip(&lanes[..3]) {
                *c = _mm256_sub_epi32(*c, *m);
            }
            // Non-negative f32 patterns order as integers.
            max_units = _mm256_max_epi32(max_units, lanes[3]);
        };
        let mut vs = values.chunks_exact(8);
        let mut os = out.chunks_exact_mut(8);
        for (v, o) in (&mut vs).zip(&mut os) {
            let words: [u32; 8] = v.try_into().expect("eight lanes");
            let (h, ok, lanes) = eight::<M>(bytemuck::cast(words));
            o.copy_from_slice(&bytemuck::cast::<__m128i, [u16; 8]>(h));
            add(ok, lanes);
        }
        // The tail, padded with zeros (taken, exact, not subnormal or flushed).
        let rest = vs.remainder();
        let mut padding = 0;
        if !rest.is_empty() {
            let mut words = [0u32; 8];
            words[..rest.len()].copy_from_slice(rest);
            let (h, ok, lanes) = eight::<M>(bytemuck::cast(words));
            let halves = bytemuck::cast::<__m128i, [u16; 8]>(h);
            os.into_remainder().copy_from_slice(&halves[..rest.len()]);
            add(ok, lanes);
            padding = 8 - rest.len() as u32;
        }
        let ordinary = lanes_sum(oks) - padding;
        // Padding lanes are exact zeros: inexact = every lane run - the exact ones.
        let lanes_run = n as u32 + padding;
        let o = Ordinary {
            inexact: lanes_run - lanes_sum(counts[0]),
            subnormal: lanes_sum(counts[1]),
            flushed: lanes_sum(counts[2]),
            max_units: f32::from_bits(lanes_max(max_units)) as u32,
        };
        (o, n as u32 - ordinary)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{RNE, RTN, RTP, RTZ};
    use super::*;
    use crate::convert::summary::Stats;

    fn random_patterns(n: usize, mut state: u64) -> Vec<u32> {
        (0..n)
            .map(|i| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let r = state as u32;
                match i % 4 {
                    // Inside f16's range, both signs.
                    0 | 1 => (r & 0x8000_0000) | (0x3880_0000 + r % 0x0f00_0000),
                    // Just around its edges.
                    2 => (r & 0x8000_0000) | (0x3000_0000 + r % 0x1800_0000),
                    _ => r,
                }
            })
            .collect()
    }

    /// The short pass against the portable full pass: the same bits on every lane it
    /// takes, and the same counts when it takes them all.
    fn same_as_portable<const M: u8>(values: &[u32]) {
        let mut a = vec![0u16; values.len()];
        let mut b = vec![0u16; values.len()];
        let (o, exceptions) = narrow_ordinary::<M>(values, &mut a);
        let full = super::super::narrow::narrow_full_generic::<10, true, M, false>(values, &mut b);
        let outside = values.iter().filter(|&&v| !short_range(v)).count();
        assert_eq!(exceptions as usize, outside, "exceptions, mode {M}");
        for (i, &v) in values.iter().enumerate() {
            if short_range(v) {
                assert_eq!(a[i], b[i], "lane {i} ({v:#010x}), mode {M}");
            }
        }
        if exceptions == 0 {
            let (mut got, mut want) = (Stats::default(), Stats::default());
            super::super::add_ordinary(&mut got, values.len() as u32, o);
            full.into_stats::<10>(values.len(), &mut want);
            assert_eq!(got, want, "counts, mode {M}");
        }
    }

    fn full_same_as_portable<const M: u8, const S: bool>(values: &[u32]) {
        let mut a = vec![0u16; values.len()];
        let mut b = vec![0u16; values.len()];
        let pa = narrow_full::<M, S>(values, &mut a).expect("F16C");
        let pb = super::super::narrow::narrow_full_generic::<10, true, M, S>(values, &mut b);
        assert_eq!(a, b, "bits, mode {M} saturate {S}");
        let (mut sa, mut sb) = (Default::default(), Default::default());
        pa.into_stats::<10>(values.len(), &mut sa);
        pb.into_stats::<10>(values.len(), &mut sb);
        assert_eq!(sa, sb, "counts, mode {M} saturate {S}");
    }

    #[test]
    fn f16c_full_pass_matches_the_portable_one() {
        if !available() {
            return;
        }
        let mut values = random_patterns(50_003, 0xf00d);
        // Every f16 boundary region from below 2^-26 to past 2^16, finely.
        values.extend((0..200_000u32).map(|i| 0x3000_0000 + i * 0x97));
        values.extend((0..2_000u32).map(|i| 0x4770_0000 + i * 0x100));
        for len in [1, 7, 9, 1000, values.len()] {
            let v = &values[..len];
            full_same_as_portable::<RNE, false>(v);
            full_same_as_portable::<RNE, true>(v);
            full_same_as_portable::<RTZ, false>(v);
            full_same_as_portable::<RTZ, true>(v);
            full_same_as_portable::<RTP, false>(v);
            full_same_as_portable::<RTP, true>(v);
            full_same_as_portable::<RTN, false>(v);
            full_same_as_portable::<RTN, true>(v);
        }
        // One value at a time, so each lane's error is the maximum.
        for &v in values.iter().step_by(97) {
            full_same_as_portable::<RNE, false>(&[v]);
            full_same_as_portable::<RTP, true>(&[v]);
            full_same_as_portable::<RTN, false>(&[v]);
        }
    }

    #[test]
    fn f16c_widening_matches_the_portable_one() {
        if !available() {
            return;
        }
        let all: Vec<u8> = (0..=u16::MAX).flat_map(|h| h.to_le_bytes()).collect();
        for len in [0, 1, 7, 8, 9, 65_535, 65_536] {
            let src = &all[..2 * len];
            let mut fast = vec![0u32; len];
            let nans = widen_f16(src, &mut fast).expect("F16C");
            let mut portable = vec![0u32; len];
            super::super::widen::widen_into(
                crate::format::Format::Float(crate::format::F16),
                src,
                &mut portable,
            );
            let (want_nans, _) = super::super::widen::quiet_nans_generic(&mut portable);
            assert_eq!(fast, portable, "{len} halves");
            assert_eq!(nans, want_nans, "{len} halves");
        }
    }

    #[test]
    fn f16c_short_pass_matches_the_portable_one() {
        if !available() {
            return;
        }
        let values = random_patterns(100_003, 0x5eed);
        for len in [0, 1, 7, 8, 9, 1023, 1024, 100_003] {
            let v = &values[..len];
            same_as_portable::<RNE>(v);
            same_as_portable::<RTZ>(v);
            same_as_portable::<RTP>(v);
            same_as_portable::<RTN>(v);
        }
        // Only lanes the short pass takes: the counts then cover every lane. Blocks of
        // a few values too, so each lane's error is the maximum once.
        let ordinary: Vec<u32> = values.iter().copied().filter(|&v| short_range(v)).collect();
        for chunk in ordinary.chunks(3).step_by(101) {
            same_as_portable::<RNE>(chunk);
            same_as_portable::<RTP>(chunk);
            same_as_portable::<RTN>(chunk);
        }
        same_as_portable::<RNE>(&ordinary);
        same_as_portable::<RTZ>(&ordinary);
        same_as_portable::<RTP>(&ordinary);
        same_as_portable::<RTN>(&ordinary);
    }
}
