//! The short RGB9E5 pass over packed f32x3 (or RGBA f32x4) texels with AVX2, in float
//! arithmetic: the portable pass (`rgb9e5_pass_portable`) shifts and rounds 24-bit mantissas with
//! integer operations and needs about 300 instructions per eight texels; here the
//! mantissa of a channel at shared exponent E is the f32 product v * 2^(24 - E), exact
//! (a power of two built from bits), rounded in the mode by `vroundps`, and the error
//! in ULPs is |q - v * 2^(24 - E)|, exact too (but for one case, taken in integers).
//!
//! The short pass takes the texels whose channels are all ±0 or in (0, 65408] (no
//! clamping), and says when it met any other; the full pass takes any texel, clamping
//! each channel first in float arithmetic too (`vmaxps` with 0 turns NaN and negatives
//! into 0, `vminps` with 65408 caps the rest) and counting what the clamp did. Their
//! words and counts are the portable passes': the unit tests in `rgb9e5` compare them.

use std::arch::x86_64::*;

use super::{RGB9E5_MAX_F32, Rgb9e5Pass};
use crate::convert::kernels::simd::compile_for;
use crate::convert::kernels::target::Mode;
use crate::convert::kernels::x86::{channels, lanes, max, round, sum, texel_order};
use crate::format::Rounding;

/// Per-lane running state; counts go up by subtracting masks (-1).
#[derive(Clone, Copy)]
struct Acc {
    inexact: __m256i,
    flushed: __m256i,
    /// Channels more than 25 bits below the shared exponent (mantissa 0, or 1 rounding
    /// up), other than ±0.
    far: __m256i,
    /// Errors of the other channels: in 2^-26 ULPs for RTP, in ULPs as f32 patterns
    /// otherwise.
    near_units: __m256i,
    /// Largest |channel| and largest channel pattern: the texels were all plain when
    /// the first is at most 65408 and the second at most -0's pattern.
    max_mag: __m256i,
    max_raw: __m256i,
    /// The full pass's clamping: NaN channels, negative ones (not -0), those past 65408
    /// (+INF included), and the largest finite one of those.
    nan: __m256i,
    clamped: __m256i,
    saturated: __m256i,
    saturated_mag: __m256i,
}

/// Channel patterns `u` clamped to [0, 65408] (NaN and negatives to 0), with their counts
/// into `c`; clamped channels are inexact (the rounding that follows finds them exact).
#[inline]
#[target_feature(enable = "avx2")]
fn clamp(u: __m256i, c: &mut Acc) -> __m256i {
    let inf = _mm256_set1_epi32(0x7f80_0000);
    let max = _mm256_set1_epi32(RGB9E5_MAX_F32 as i32);
    let x = _mm256_castsi256_ps(u);
    // vmaxps returns its second operand when the first is NaN (and of -0 and +0).
    let kept = _mm256_min_ps(
        _mm256_max_ps(x, _mm256_setzero_ps()),
        _mm256_castsi256_ps(max),
    );
    let nan = _mm256_cmpgt_epi32(_mm256_and_si256(u, _mm256_set1_epi32(0x7fff_ffff)), inf);
    // As signed integers: -0 is i32::MIN, -INF is 0xff80_0000 and the negative NaNs
    // above it; +INF is 0x7f80_0000 and the positive NaNs above.
    let negative = _mm256_and_si256(
        _mm256_cmpgt_epi32(u, _mm256_set1_epi32(i32::MIN)),
        _mm256_cmpgt_epi32(_mm256_set1_epi32(0xff80_0001u32 as i32), u),
    );
    let past = _mm256_cmpgt_epi32(u, max);
    let finite_past = _mm256_and_si256(past, _mm256_cmpgt_epi32(inf, u));
    let over = _mm256_or_si256(finite_past, _mm256_cmpeq_epi32(u, inf));
    c.nan = _mm256_sub_epi32(c.nan, nan);
    c.clamped = _mm256_sub_epi32(c.clamped, negative);
    c.saturated = _mm256_sub_epi32(c.saturated, over);
    c.inexact = _mm256_sub_epi32(
        c.inexact,
        _mm256_or_si256(_mm256_or_si256(nan, negative), over),
    );
    c.saturated_mag = _mm256_max_epi32(c.saturated_mag, _mm256_and_si256(finite_past, u));
    _mm256_castps_si256(kept)
}

/// Eight texels' channels (`rgb`: the R, G and B patterns) to their words, counted into
/// `c`. Without `FULL`, the counts mean something only when every channel was plain;
/// with it, any channel is clamped first.
#[inline]
#[target_feature(enable = "avx2")]
fn eight<M: Mode, const FULL: bool>(rgb: [__m256i; 3], c: &mut Acc) -> __m256i {
    let zero = _mm256_setzero_si256();
    let abs = _mm256_set1_epi32(0x7fff_ffff);
    // Written out rather than `rgb.map(..)`: a closure does not take this function's
    // target features, and LLVM then calls it out of line for every group of texels.
    let mags = if FULL {
        [clamp(rgb[0], c), clamp(rgb[1], c), clamp(rgb[2], c)]
    } else {
        let raw = _mm256_max_epu32(_mm256_max_epu32(rgb[0], rgb[1]), rgb[2]);
        c.max_raw = _mm256_max_epu32(c.max_raw, raw);
        [
            _mm256_and_si256(rgb[0], abs),
            _mm256_and_si256(rgb[1], abs),
            _mm256_and_si256(rgb[2], abs),
        ]
    };
    let largest = _mm256_max_epi32(_mm256_max_epi32(mags[0], mags[1]), mags[2]);
    if !FULL {
        c.max_mag = _mm256_max_epi32(c.max_mag, largest);
    }
    // The shared exponent (`shared_exponent`): the largest channel's f32 exponent field
    // - 111, at least 0. Its mantissa at that scale is m * 2^-15 in [256, 512); it rounds
    // up to 512 (one more) from 511.5 (RNE) or past 511 (RTP), by the fraction bits.
    // Below the field 111 the exponent is 0 and the mantissa under 256.
    let field = _mm256_srli_epi32::<23>(largest);
    let first = _mm256_max_epi32(_mm256_sub_epi32(field, _mm256_set1_epi32(111)), zero);
    let frac = _mm256_and_si256(largest, _mm256_set1_epi32(0x7f_ffff));
    let bump = match M::ROUNDING {
        Rounding::NearestEven => _mm256_cmpgt_epi32(frac, _mm256_set1_epi32(0x7f_bfff)),
        Rounding::TowardPositive => _mm256_cmpgt_epi32(frac, _mm256_set1_epi32(0x7f_8000)),
        Rounding::TowardZero | Rounding::TowardNegative => zero,
    };
    let bump = _mm256_and_si256(bump, _mm256_cmpgt_epi32(field, _mm256_set1_epi32(110)));
    let big_e = _mm256_sub_epi32(first, bump);
    // 2^(24 - E): the exponent field 151 - E, in [120, 151].
    let scale = _mm256_castsi256_ps(_mm256_slli_epi32::<23>(_mm256_sub_epi32(
        _mm256_set1_epi32(151),
        big_e,
    )));
    let mut word = _mm256_slli_epi32::<27>(big_e);
    for (i, &mag) in mags.iter().enumerate() {
        // p = m * 2^-shift in the portable pass's terms: exact where shift <= 25, which
        // is where p >= 1/4; below (far), p may be rounded or even 0, but the mantissa
        // is 0 there, or 1 when rounding up, and nothing else is taken from p.
        let p = _mm256_mul_ps(_mm256_castsi256_ps(mag), scale);
        let q = round::<M>(p);
        let mag_zero = _mm256_cmpeq_epi32(mag, zero);
        let below = _mm256_cmpgt_epi32(_mm256_set1_epi32(0x3e80_0000), _mm256_castps_si256(p));
        let far = _mm256_andnot_si256(mag_zero, below);
        let mut qi = _mm256_cvttps_epi32(q);
        if M::ROUNDING == Rounding::TowardPositive {
            // A far channel rounds up to 1 (p itself may have gone to 0).
            qi = _mm256_or_si256(qi, _mm256_srli_epi32::<31>(far));
        }
        word = _mm256_or_si256(word, _mm256_sllv_epi32(qi, _mm256_set1_epi32(9 * i as i32)));
        let changed = _mm256_castps_si256(_mm256_cmp_ps::<_CMP_NEQ_UQ>(q, p));
        c.inexact = _mm256_sub_epi32(c.inexact, _mm256_or_si256(changed, far));
        let flushed = _mm256_andnot_si256(mag_zero, _mm256_cmpeq_epi32(qi, zero));
        c.flushed = _mm256_sub_epi32(c.flushed, flushed);
        c.far = _mm256_sub_epi32(c.far, far);
        // |q - p| is exact (p >= 1/4 with at most 24 significant bits, q a whole number
        // within 1 of it), and so is its product by 2^26, a whole number up to 2^26;
        // except when 1/4 <= p < 1/2 rounds up to 1 (RTP only): 1 - p needs 25 bits.
        // RTP takes the units in integers, q * 2^26 - p * 2^26 where p < 1 (q at most 1);
        // the other modes keep |q - p| itself (a non-negative f32 pattern, which orders
        // as an integer) and scale the largest at the end.
        let diff = _mm256_and_si256(_mm256_castps_si256(_mm256_sub_ps(q, p)), abs);
        let units = if M::ROUNDING == Rounding::TowardPositive {
            let two26 = _mm256_set1_ps(67_108_864.0);
            let units = _mm256_cvttps_epi32(_mm256_mul_ps(_mm256_castsi256_ps(diff), two26));
            let small = _mm256_castps_si256(_mm256_cmp_ps::<_CMP_LT_OQ>(p, _mm256_set1_ps(1.0)));
            let scaled = _mm256_cvttps_epi32(_mm256_mul_ps(p, two26));
            let exact = _mm256_sub_epi32(_mm256_slli_epi32::<26>(qi), scaled);
            _mm256_blendv_epi8(units, exact, small)
        } else {
            diff
        };
        c.near_units = _mm256_max_epi32(c.near_units, _mm256_andnot_si256(far, units));
    }
    word
}

// The pass driver, for AVX2 and again for AVX-512 (32 registers).
compile_for!(avx2, avx512 => {
    /// The short (`FULL` false) or full pass over whole groups of eight texels of
    /// `STRIDE` (3 or 4) channels (`values.len()` a multiple of 8 * `STRIDE`); `None`
    /// when the short pass met a channel that needed clamping (the outputs are written
    /// either way). The full pass takes any texel.
    pub(in crate::convert::kernels) fn rgb9e5_float_pass<
        M: Mode,
        const FULL: bool,
        const STRIDE: usize,
    >(
        values: &[u32],
        out: &mut [u32],
    ) -> Option<Rgb9e5Pass> {
        let zero = _mm256_setzero_si256();
        let mut c = Acc {
            inexact: zero,
            flushed: zero,
            far: zero,
            near_units: zero,
            max_mag: zero,
            max_raw: zero,
            nan: zero,
            clamped: zero,
            saturated: zero,
            saturated_mag: zero,
        };
        for (v, o) in values.chunks_exact(8 * STRIDE).zip(out.chunks_exact_mut(8)) {
            let word = texel_order::<STRIDE>(eight::<M, FULL>(channels::<STRIDE>(v), &mut c));
            o.copy_from_slice(&lanes(word));
        }
        let max_mag = max(c.max_mag);
        let max_raw = max(c.max_raw);
        if max_mag > RGB9E5_MAX_F32 || max_raw > 0x8000_0000 {
            return None;
        }
        let far = sum(c.far);
        let mut units = max(c.near_units);
        if M::ROUNDING != Rounding::TowardPositive {
            // |q - p| as an f32 pattern: 2^26 times it is a whole number (see `eight`).
            units = (f32::from_bits(units) * 67_108_864.0) as u32;
        }
        Some(Rgb9e5Pass {
            inexact: sum(c.inexact),
            saturated: sum(c.saturated),
            nan: sum(c.nan),
            clamped: sum(c.clamped),
            flushed: sum(c.flushed),
            saturated_mag: max(c.saturated_mag),
            near_units: units,
            far_zero: if M::ROUNDING == Rounding::TowardPositive { 0 } else { far },
            far_one: if M::ROUNDING == Rounding::TowardPositive { far } else { 0 },
            exceptions: 0,
        })
    }
});
