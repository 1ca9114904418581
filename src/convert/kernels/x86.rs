//! Helpers the `std::arch` passes share (`narrow::x86`, `rgb9e5::x86`).

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
