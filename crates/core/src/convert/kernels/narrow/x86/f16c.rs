//! f32 -> f16 with the F16C conversion instructions (`vcvtps2ph`, `vcvtph2ps`): the short
//! and the full pass of the f16 target (in `f16c/short.rs` and `f16c/full.rs`, sharing
//! the loop and the lane helpers here).
//!
//! Why `std::arch` here: the portable passes (`narrow::short_run_portable` and
//! `narrow::full_pass_portable`) need a dozen or more integer operations per lane to
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
//! tests hold to the per-element core); `narrow` takes the portable passes below the
//! F16C level.
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
//! up from below 2^-25 to the smallest subnormal) are kept apart there anyway,, so
//! it leaves out the rest (docs/benchmarks.md, round 9). The summary is the same either
//! way.

use std::arch::x86_64::*;

use crate::convert::kernels::narrow::full::NarrowPass;
use crate::convert::kernels::target::{Mode, Small, ToF16, is_nearest};
use crate::format::Rounding;

/// 2^-25 (the short pass's smallest input) and f16's largest finite value as f32
/// patterns.
const SHORT_MIN: i32 = 102 << 23;
const MAX_FINITE: i32 = ToF16::MAX_F32 as i32;

/// The largest error, in 2^-26 ULPs of the result, of any lane the normal-range pass
/// takes in rounding mode `m` (±0, and 2^-14 <= |x| with a result within a ULP): 13
/// bits are dropped, so to nearest the most is a tie, half a ULP (2^25), and in a
/// directed mode 8191 f32 steps of 2^13 units (2^26 - 2^13; a result carried into the
/// next binade, and one past 65504, has less). Each is reached: 1 + 2^-11 (a tie), and
/// 1 + 8191 * 2^-23 toward zero or 1 + 2^-23 away from it.
pub(super) const fn normal_bound(m: Rounding) -> u32 {
    if is_nearest(m) {
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
pub(super) const fn short_bound(m: Rounding) -> u32 {
    if is_nearest(m) {
        1 << 25
    } else {
        (1 << 26) - 4
    }
}

/// `units` as the f32 pattern the passes keep their largest error in.
const fn units_pattern(units: u32) -> u32 {
    (units as f32).to_bits()
}

/// Whether `u` is an input the F16C short pass is for: ±0, or 2^-25 <= |u| <= 65504
/// (f16's normal range, and its subnormal one down to where the error still fits an
/// f32). The pass takes a block of them, but for the few its range test also catches
/// (see [`f16_short_pass`]).
#[inline(always)]
pub(in crate::convert::kernels) fn short_range(u: u32) -> bool {
    let mag = u & 0x7fff_ffff;
    mag == 0 || (SHORT_MIN as u32..=MAX_FINITE as u32).contains(&mag)
}

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
pub(in crate::convert::kernels) use full::avx512;
pub(in crate::convert::kernels) use full::f16c;
pub(in crate::convert::kernels) use short::f16_short_pass;

/// Eight lanes rounded to f16 in mode `M` and widened back exactly: |x|, the f16
/// patterns and the magnitude of the result as f32 patterns.
#[inline]
#[target_feature(enable = "avx2,f16c")]
fn round_trip<M: Mode>(x: __m256i) -> (__m256i, __m128i, __m256i) {
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
fn to_f16<M: Mode>(x: __m256i) -> __m128i {
    let xf = _mm256_castsi256_ps(x);
    match M::ROUNDING {
        Rounding::NearestEven => _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(xf),
        Rounding::TowardZero => _mm256_cvtps_ph::<_MM_FROUND_TO_ZERO>(xf),
        Rounding::TowardPositive => _mm256_cvtps_ph::<_MM_FROUND_TO_POS_INF>(xf),
        Rounding::TowardNegative => _mm256_cvtps_ph::<_MM_FROUND_TO_NEG_INF>(xf),
    }
}

#[cfg(test)]
mod tests;
