//! f32 -> f16 with the F16C conversion instructions (`vcvtps2ph`, `vcvtph2ps`): the short
//! and the full pass of the f16 target (the full one in `f16c/x86/full.rs`), and the
//! f16 -> f32 widening.
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
//!
//! The largest error is the costliest count (six of the normal-range pass's thirteen
//! operations per eight lanes), and it stops changing once it reaches the most any lane
//! of the pass can have in its rounding mode ([`normal_bound`], [`short_bound`]): half a
//! ULP to nearest, just under one ULP in the directed modes. So both passes take the
//! largest error counted so far in the stream (`known`), and where it has reached the
//! bound they leave the errors out and test the range's top on |x| instead (the
//! normal-range pass then also finds exact lanes from their 13 dropped bits, without
//! widening the result back). The bound is
//! reached within a few thousand values of data whose low bits look random (a value on
//! a halfway point, or with all its dropped bits set); exact data (say, widened f16)
//! never reaches it and is measured to the end. The full pass does the same from
//! [`short_bound`] up: the lanes whose errors can pass it (past the range, or rounded
//! up from below 2^-25 to the smallest subnormal) are kept apart there anyway, and
//! leaving out the rest took random bit patterns from 6.6-7.4 to 4.7-5.6 ms per 16 M
//! values. The summary is the same either way.

use super::narrow::NarrowPass;
use super::{Ordinary, RNE};

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

/// [`normal_bound`] for the short pass, which also takes results below 2^-14: to
/// nearest still half a ULP, but in a directed mode 2^-24 - 2^-48 (just under the
/// smallest subnormal) rounds to zero 2^-48 short of a whole ULP, 2^26 - 4 units, the
/// most an f32 below 2^-24 can miss it by.
pub(super) const fn short_bound(m: u8) -> u32 {
    if m == RNE { 1 << 25 } else { (1 << 26) - 4 }
}

/// `units` as the f32 pattern the passes keep their largest error in.
const fn units_pattern(units: u32) -> u32 {
    (units as f32).to_bits()
}

/// Whether the F16C short pass takes `u`: ±0, or 2^-25 <= |u| <= 65504 (f16's normal
/// range, and its subnormal one down to where the error still fits an f32).
#[inline(always)]
pub(super) fn short_range(u: u32) -> bool {
    let mag = u & 0x7fff_ffff;
    mag == 0 || (SHORT_MIN as u32..=MAX_FINITE as u32).contains(&mag)
}

/// The short f16 pass in rounding mode `M`: returns the counts of the lanes in
/// [`short_range`] and the number of the others (the exceptions), or no exception where
/// its normal-range part took every lane (it also takes the few values past 65504 that
/// round within a ULP, as the full pass does, while it measures errors). With no
/// exception, every lane has its output and the counts are the block's; with some, the
/// caller runs the full pass over the block, and lanes may be left unwritten.
///
/// `known` is the largest error already counted, in 2^-26 ULPs: the returned largest
/// error is exact where it is above `known`, and otherwise may be anything up to it (0
/// where the pass had nothing to learn; see the module's notes).
pub(super) fn narrow_ordinary<const M: u8>(
    values: &[u32],
    out: &mut [u16],
    known: u32,
) -> (Ordinary, u32) {
    #[cfg(target_arch = "x86_64")]
    if available() {
        // SAFETY: the CPU has F16C and AVX2, checked just above.
        return unsafe { x86::narrow_ordinary::<M>(values, out, known) };
    }
    let _ = known;
    super::narrow::narrow_vector_generic::<10, true, M>(values, out)
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

    use super::super::x86::{halves, max, min, sum};
    use super::super::{Ordinary, RNE, RTN, RTP, RTZ};

    use super::{MAX_FINITE, NarrowPass, SHORT_MIN, normal_bound, short_bound, units_pattern};

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
    pub(super) use full::narrow_full;
    #[cfg(d3dfloat_avx512)]
    pub(super) use full::narrow_full_avx512;

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

    /// Eight lanes converted (once); their minimum and error (with `MEASURE`, else their
    /// maximum) go into `c`. Returns the f16 patterns and the mask of the inexact lanes,
    /// which [`count_sixteen`] counts sixteen at a time. The range test and the counts
    /// are only used when every lane was in [`super::short_range`] (or past its top but
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
        let inexact =
            _mm256_castps_si256(_mm256_cmp_ps::<_CMP_NEQ_UQ>(back, _mm256_castsi256_ps(x)));
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
        sum(nans)
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
    fn normal_run<const M: u8, const MEASURE: bool>(
        v: &[u32],
        o: &mut [u16],
        c: &mut Normal,
    ) -> u32 {
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
    pub(super) fn narrow_ordinary<const M: u8>(
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
            let exceptions = values.iter().filter(|&&v| !super::short_range(v)).count();
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
            values.iter().filter(|&&v| !super::short_range(v)).count() as u32
        };
        counts.max_units = f32::from_bits(units_all) as u32;
        (counts, exceptions)
    }
}

#[cfg(test)]
mod tests;
