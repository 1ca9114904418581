//! f32 -> f16 with the F16C conversion instructions (`vcvtps2ph`, `vcvtph2ps`): the short
//! and the full pass of the f16 target (in `f16c/x86/short.rs` and `f16c/x86/full.rs`,
//! sharing the loop and the lane helpers here), and the f16 -> f32 widening.
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
//! the error is exact in f32. It goes a run of values at a time, in two steps: values in
//! f16's normal range (and ±0) need no subnormal count, so a shorter loop takes them
//! first; only from the first run with a value below 2^-14 does the loop with that
//! count take over. That loop tests the
//! range on the results rather than the inputs (a lane outside gives INF, NaN, 65504,
//! or an inexact ±0 or ±2^-24), which spares it the input's magnitude and its minimum
//! and maximum, a sixth of the loop; the same test also catches the few lanes inside
//! the range that would need a flushed count, so it needs none. Each block of eight is
//! converted once (LLVM would otherwise convert the stored halves a second time,
//! straight to memory). The short pass stops at the first run it cannot take; the
//! caller takes that run through the full pass (also here, with F16C) and goes on with
//! the short pass after it, so a NaN or an overflow here and there costs the full pass
//! a run, not the rest of the block (the portable short pass hands it the rest). The
//! unit tests below check both passes against the portable ones (which the integration
//! tests hold to the per-element core). The runtime check falls back to the portable
//! passes on CPUs (and targets) without F16C.
//!
//! The largest error is the costliest count (six of the normal-range pass's thirteen
//! operations per eight lanes), and it stops changing once it reaches the most any lane
//! of the pass can have in its rounding mode ([`normal_bound`], [`short_bound`]): half a
//! ULP to nearest, just under one ULP in the directed modes. So both passes take the
//! largest error counted so far in the stream (`known`), and where it has reached the
//! bound they leave the errors out (the normal-range pass, which sees the range's top
//! in the error, then tests it on |x|, and finds exact lanes from their 13 dropped bits
//! without widening the result back). The bound is
//! reached within a few thousand values of data whose low bits look random (a value on
//! a halfway point, or with all its dropped bits set); exact data (say, widened f16)
//! never reaches it and is measured to the end. The full pass does the same from
//! [`short_bound`] up: the lanes whose errors can pass it (past the range, or rounded
//! up from below 2^-25 to the smallest subnormal) are kept apart there anyway, and
//! leaving out the rest took random bit patterns from 6.6-7.4 to 4.7-5.6 ms per 16 M
//! values. The summary is the same either way.

use super::narrow::NarrowPass;
use super::{RNE, Taken};

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

/// 2^-25 (the short pass's smallest input) and f16's largest finite value as f32
/// patterns.
const SHORT_MIN: i32 = 102 << 23;
const MAX_FINITE: i32 = (142 << 23) | (0x3ff << 13);

/// The largest error, in 2^-26 ULPs of the result, of any lane the normal-range pass
/// takes in rounding mode `m` (±0, and 2^-14 <= |x| with a result within a ULP): 13
/// bits are dropped, so to nearest the most is a tie, half a ULP (2^25), and in a
/// directed mode 8191 f32 steps of 2^13 units (2^26 - 2^13; a result carried into the
/// next binade, and one past 65504, has less). Each is reached: 1 + 2^-11 (a tie), and
/// 1 + 8191 * 2^-23 toward zero or 1 + 2^-23 away from it.
pub(super) const fn normal_bound(m: u8) -> u32 {
    if m == RNE {
        1 << 25
    } else {
        (1 << 26) - (1 << 13)
    }
}

/// [`normal_bound`] for the whole of [`short_range`], results below 2^-14 included: to
/// nearest still half a ULP, but in a directed mode 2^-24 - 2^-48 (just under the
/// smallest subnormal) rounds to zero 2^-48 short of a whole ULP, 2^26 - 4 units, the
/// most an f32 below 2^-24 can miss it by. That lane is a flush, which the short pass
/// leaves to the full pass: the short pass's own lanes stay a little below (the unit
/// tests find 2^26 - 16 units toward zero, 2^26 - 8 away from it), so it settles at
/// this bound only once the full pass has measured such a lane, a bound it never
/// passes either way.
pub(super) const fn short_bound(m: u8) -> u32 {
    if m == RNE { 1 << 25 } else { (1 << 26) - 4 }
}

/// `units` as the f32 pattern the passes keep their largest error in.
const fn units_pattern(units: u32) -> u32 {
    (units as f32).to_bits()
}

/// Whether `u` is an input the F16C short pass is for: ±0, or 2^-25 <= |u| <= 65504
/// (f16's normal range, and its subnormal one down to where the error still fits an
/// f32). The pass takes a block of them, but for the few its range test also catches
/// (see [`narrow_ordinary`]).
#[inline(always)]
pub(super) fn short_range(u: u32) -> bool {
    let mag = u & 0x7fff_ffff;
    mag == 0 || (SHORT_MIN as u32..=MAX_FINITE as u32).contains(&mag)
}

/// The short f16 pass in rounding mode `M`, a run at a time: the runs whose every lane
/// is in [`short_range`] (or is one of a few values past 65504 that round within a ULP,
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
pub(super) fn narrow_ordinary<const M: u8>(values: &[u32], out: &mut [u16], known: u32) -> Taken {
    #[cfg(target_arch = "x86_64")]
    if available() {
        // SAFETY: the CPU has F16C and AVX2, checked just above.
        return unsafe { x86::narrow_ordinary::<M>(values, out, known) };
    }
    // Without F16C, the portable short pass, which measures every error.
    let _ = known;
    super::narrow::short_runs::<10, true, M>(values, out)
}

/// The full f16 pass in rounding mode `M` (`S`: --saturate): any lane, the same bits and
/// counts as `narrow::narrow_full_generic::<10, true, M, S>`, or `None` without F16C.
/// As in [`narrow_ordinary`], `known` is the stream's largest error so far: once it
/// has reached [`short_bound`] (which no lane of this pass measures past: the lanes
/// whose errors can be larger, past the range or rounded up from below 2^-25, are
/// kept apart), the pass leaves the errors out and its largest error is 0.
pub(super) fn narrow_full<const M: u8, const S: bool>(
    values: &[u32],
    out: &mut [u16],
    known: u32,
) -> Option<NarrowPass> {
    #[cfg(all(target_arch = "x86_64", d3dfloat_avx512))]
    if available() && super::has_avx512() {
        // SAFETY: the CPU has F16C, AVX2 and AVX-512 F, VL, BW, DQ, checked just above.
        return Some(unsafe { x86::narrow_full_avx512::<M, S>(values, out, known) });
    }
    narrow_full_avx2::<M, S>(values, out, known)
}

/// [`narrow_full`] without AVX-512 (the tests hold both copies to the portable pass).
pub(super) fn narrow_full_avx2<const M: u8, const S: bool>(
    values: &[u32],
    out: &mut [u16],
    known: u32,
) -> Option<NarrowPass> {
    #[cfg(target_arch = "x86_64")]
    if available() {
        // SAFETY: the CPU has F16C and AVX2, checked just above.
        return Some(unsafe { x86::narrow_full::<M, S>(values, out, known) });
    }
    let _ = (values, out, known);
    None
}

#[cfg(target_arch = "x86_64")]
pub(super) use x86::widen_eight;

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

    use super::super::x86::sum;
    use super::super::{RNE, RTN, RTP, RTZ};

    use super::NarrowPass;

    /// Runs `$eight` (eight f16 patterns from the f32 patterns `$x`) over `$values` into
    /// `$out`: sixteen lanes a step, the two halves stored as one 32-byte word through an
    /// opaque zero (without it LLVM converts the stored halves a second time, straight into
    /// memory), then the tail eight lanes at a time, padded with +0. Evaluates to the
    /// number of padding lanes run.
    ///
    /// With `fix`, `$eight` also gives a 32-bit mask per lane, and `$fix` rewrites the
    /// sixteen patterns `$h` before the store, given those masks as 16-bit masks `$m` in
    /// the same order: one mask conversion per sixteen lanes rather than per eight.
    macro_rules! sixteen_at_a_time {
        ($values:expr, $out:expr, |$x:ident| $eight:expr) => {
            sixteen_at_a_time!($values, $out, |$x| ($eight, _mm256_setzero_si256()), fix(h, _m) { h })
        };
        ($values:expr, $out:expr, |$x:ident| $eight:expr, fix($h:ident, $m:ident) $fix:block) => {{
            // 32-bit masks of two groups of eight lanes to 16-bit masks in lane order:
            // the pack interleaves the groups by 64-bit quarters, the permute restores them.
            let masks16 = |lo: __m256i, hi: __m256i| {
                _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packs_epi32(lo, hi))
            };
            let opaque = std::hint::black_box(_mm256_setzero_si256());
            let mut vs = $values.chunks_exact(16);
            let mut os = $out.chunks_exact_mut(16);
            for (v, o) in (&mut vs).zip(&mut os) {
                let words: [[u32; 8]; 2] =
                    bytemuck::cast::<[u32; 16], _>(v.try_into().expect("16"));
                let (lo, m_lo) = {
                    let $x: __m256i = bytemuck::cast(words[0]);
                    $eight
                };
                let (hi, m_hi) = {
                    let $x: __m256i = bytemuck::cast(words[1]);
                    $eight
                };
                let $h = _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(lo), hi);
                let $m = masks16(m_lo, m_hi);
                let both = _mm256_xor_si256($fix, opaque);
                o.copy_from_slice(&bytemuck::cast::<__m256i, [u16; 16]>(both));
            }
            let mut padding = 0u32;
            for (v, o) in vs
                .remainder()
                .chunks(8)
                .zip(os.into_remainder().chunks_mut(8))
            {
                let mut words = [0u32; 8];
                words[..v.len()].copy_from_slice(v);
                let (h, m) = {
                    let $x: __m256i = bytemuck::cast(words);
                    $eight
                };
                // The eight lanes in the low half; the high half (zeros, with zero masks)
                // is not stored.
                let $h = _mm256_zextsi128_si256(h);
                let $m = masks16(m, _mm256_setzero_si256());
                let fixed = _mm256_castsi256_si128($fix);
                o.copy_from_slice(&bytemuck::cast::<__m128i, [u16; 8]>(fixed)[..v.len()]);
                padding += 8 - v.len() as u32;
            }
            padding
        }};
    }

    mod full;
    mod short;
    pub(super) use full::narrow_full;
    #[cfg(d3dfloat_avx512)]
    pub(super) use full::narrow_full_avx512;
    pub(super) use short::narrow_ordinary;

    /// Eight lanes rounded to f16 in mode `M` and widened back exactly: |x|, the f16
    /// patterns and the magnitude of the result as f32 patterns.
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    fn round_trip<const M: u8>(x: __m256i) -> (__m256i, __m128i, __m256i) {
        let abs = _mm256_set1_epi32(0x7fff_ffff);
        let h = to_f16::<M>(x);
        let back_mag = _mm256_and_si256(_mm256_castps_si256(_mm256_cvtph_ps(h)), abs);
        (_mm256_and_si256(x, abs), h, back_mag)
    }

    /// |`result` - `mag`| (f32 patterns of the same sign: magnitudes, or a result and its
    /// input) in units of 2^-26 ULPs, as an f32: the scale
    /// 2^(26 - ulp exponent) has the exponent field 290 - `field`, where `field` is the
    /// result's f32 exponent field (its ULP's, at least 113 for 2^-14: f16's subnormals
    /// share the smallest normal's ULP). Exact wherever the difference is (see
    /// `full::full_eight`), the scale being a power of two.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn error_units(result: __m256i, mag: __m256i, field: __m256i) -> __m256 {
        let diff = _mm256_and_ps(
            _mm256_sub_ps(_mm256_castsi256_ps(result), _mm256_castsi256_ps(mag)),
            _mm256_castsi256_ps(_mm256_set1_epi32(0x7fff_ffff)),
        );
        let scale = _mm256_sub_epi32(_mm256_set1_epi32(290 << 23), field);
        _mm256_mul_ps(diff, _mm256_castsi256_ps(scale))
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

    /// Eight f16 patterns to f32 patterns, NaNs quieted, and the NaN mask.
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    pub(in super::super) fn widen_eight(h: __m128i) -> (__m256i, __m256i) {
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
        sum(nans)
    }
}

#[cfg(test)]
mod tests;
