//! Helpers the `std::arch` passes share (`f16c`, `narrow::x86`, `rgb9e5::x86`).

use std::arch::x86_64::*;

use super::target::Mode;
use crate::format::Rounding;

/// `vroundps` in mode `M`. The passes round magnitudes only, where toward -INF is toward
/// zero, but each mode keeps its own instruction.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn round<M: Mode>(p: __m256) -> __m256 {
    match M::ROUNDING {
        Rounding::NearestEven => {
            _mm256_round_ps::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(p)
        }
        Rounding::TowardPositive => {
            _mm256_round_ps::<{ _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC }>(p)
        }
        Rounding::TowardZero => _mm256_round_ps::<{ _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC }>(p),
        Rounding::TowardNegative => {
            _mm256_round_ps::<{ _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC }>(p)
        }
    }
}

/// The eight lanes of a vector.
pub(super) fn lanes(v: __m256i) -> [u32; 8] {
    bytemuck::cast(v)
}

/// The sum of the lanes of a vector (running counts), wrapping.
pub(super) fn sum(v: __m256i) -> u32 {
    lanes(v).iter().fold(0u32, |a, &b| a.wrapping_add(b))
}

/// The largest lane of a vector (running maxima of patterns that order as integers).
pub(super) fn max(v: __m256i) -> u32 {
    lanes(v).into_iter().max().unwrap_or(0)
}

/// The smallest lane of a vector.
pub(super) fn min(v: __m256i) -> u32 {
    lanes(v).into_iter().min().unwrap_or(u32::MAX)
}

/// The largest lane of a float vector (a running maximum of errors, never NaN).
pub(super) fn max_f32(v: __m256) -> f32 {
    bytemuck::cast::<__m256, [f32; 8]>(v)
        .into_iter()
        .fold(0f32, f32::max)
}

/// Two masks in one lane: `lo`'s low 16-bit half and `hi`'s high half, so that one
/// `vpsubw` counts both (a pass keeps fewer running values that way).
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn pair(lo: __m256i, hi: __m256i) -> __m256i {
    _mm256_blend_epi16::<0b1010_1010>(lo, hi)
}

/// The sums of the low and of the high 16-bit halves of the lanes (counts kept by
/// [`pair`]).
pub(super) fn halves(v: __m256i) -> (u32, u32) {
    lanes(v)
        .iter()
        .fold((0, 0), |(lo, hi), &w| (lo + (w & 0xffff), hi + (w >> 16)))
}

/// The R, G and B patterns of eight texels `STRIDE` words apart (`v` holds 8 * STRIDE),
/// each in the same lane order: the texels' own for three channels, 0 2 4 6 1 3 5 7 for
/// four. A pass computes its words in that order and puts them back with
/// [`texel_order`], one permutation where three would be needed before.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn channels<const STRIDE: usize>(v: &[u32]) -> [__m256i; 3] {
    let load = |i: usize| -> __m256i {
        let w: [u32; 8] = v[8 * i..8 * i + 8].try_into().expect("8");
        bytemuck::cast(w)
    };
    if STRIDE == 3 {
        // r0 g0 b0 r1 g1 b1 r2 g2 | b2 r3 ... | ... g7 b7: blends pick each channel's
        // words, a permutation each puts them in texel order (the three blends leave
        // three different orders).
        let (a, b, d) = (load(0), load(1), load(2));
        let r = _mm256_blend_epi32::<0b0010_0100>(_mm256_blend_epi32::<0b1001_0010>(a, b), d);
        let g = _mm256_blend_epi32::<0b0100_1001>(_mm256_blend_epi32::<0b0010_0100>(a, b), d);
        let bl = _mm256_blend_epi32::<0b1001_0010>(_mm256_blend_epi32::<0b0100_1001>(a, b), d);
        [
            _mm256_permutevar8x32_epi32(r, _mm256_setr_epi32(0, 3, 6, 1, 4, 7, 2, 5)),
            _mm256_permutevar8x32_epi32(g, _mm256_setr_epi32(1, 4, 7, 2, 5, 0, 3, 6)),
            _mm256_permutevar8x32_epi32(bl, _mm256_setr_epi32(2, 5, 0, 3, 6, 1, 4, 7)),
        ]
    } else {
        // Texels 0-1, 2-3, 4-5, 6-7: a 4x4 transpose within each 128-bit half gives
        // R = r0 r2 r4 r6 | r1 r3 r5 r7 (and G, B alike); alpha is left out.
        let (t0, t1, t2, t3) = (load(0), load(1), load(2), load(3));
        let lo01 = _mm256_unpacklo_epi32(t0, t1); // r0 r2 g0 g2 | r1 r3 g1 g3
        let hi01 = _mm256_unpackhi_epi32(t0, t1); // b0 b2 a0 a2 | b1 b3 a1 a3
        let lo23 = _mm256_unpacklo_epi32(t2, t3); // r4 r6 g4 g6 | r5 r7 g5 g7
        let hi23 = _mm256_unpackhi_epi32(t2, t3); // b4 b6 a4 a6 | b5 b7 a5 a7
        [
            _mm256_unpacklo_epi64(lo01, lo23),
            _mm256_unpackhi_epi64(lo01, lo23),
            _mm256_unpacklo_epi64(hi01, hi23),
        ]
    }
}

/// Words computed from [`channels`] put in texel order.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn texel_order<const STRIDE: usize>(words: __m256i) -> __m256i {
    if STRIDE == 3 {
        words
    } else {
        _mm256_permutevar8x32_epi32(words, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7))
    }
}
