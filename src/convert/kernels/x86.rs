//! Helpers the `std::arch` passes share (`f16c`, `narrow::x86`, `rgb9e5::x86`).

use std::arch::x86_64::*;

use super::{RNE, RTP, RTZ};

/// `vroundps` in mode `M`. The passes round magnitudes only, where toward -INF is toward
/// zero, but each mode keeps its own instruction.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn round<const M: u8>(p: __m256) -> __m256 {
    match M {
        RNE => _mm256_round_ps::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(p),
        RTP => _mm256_round_ps::<{ _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC }>(p),
        RTZ => _mm256_round_ps::<{ _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC }>(p),
        _ => _mm256_round_ps::<{ _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC }>(p),
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
