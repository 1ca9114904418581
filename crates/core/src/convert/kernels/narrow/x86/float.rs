//! The full f11/f10 pass (and R11G11B10's) with AVX2, in float arithmetic: the portable
//! full pass (`full_pass_portable`) rounds with variable integer shifts and keeps a dozen
//! running values, about a hundred instructions per eight lanes; here, as in the RGB9E5
//! pass, the value at the result's scale is the f32 product p = |x| * 2^(F - e), exact (a
//! power of two built from bits, e the input's exponent but at least -14), `vroundps`
//! rounds it in the mode, and the error in ULPs is |q - p|, exact too, scaled by a power
//! of two into a maximum kept as f32.
//!
//! Both formats are unsigned (§3.1.6): negatives become 0, so only |x| is rounded, and
//! toward -INF is toward zero for every value that keeps its magnitude. Where |q - p| is
//! not exact (a value below half the smallest subnormal rounded up to it, toward +INF
//! only), the lane is left out of the maximum and kept as the smallest such input, as the
//! portable pass does. The unit tests below compare words and counts with that pass.

use std::arch::x86_64::*;

use crate::convert::kernels::narrow::full::NarrowPass;
use crate::convert::kernels::simd::compile_for;
use crate::convert::kernels::target::{Mode, Small, ToF10, ToF11};
use crate::convert::kernels::x86::{
    channels, halves, lanes, max, max_f32, min, pair, round, sum, texel_order,
};
use crate::format::Rounding;

/// Per-lane running state; counts go up by subtracting masks (-1). Counts go in pairs,
/// one in each 16-bit half of a lane (`vpblendw` joins two masks, `vpsubw` counts both):
/// fewer running values, so that the loop keeps them and its constants in the sixteen
/// registers; [`Acc::drain`] moves them into [`Totals`] before a half can wrap.
#[derive(Clone, Copy)]
struct Acc {
    /// NaN inputs (low halves) and clamped negatives (high halves).
    nan_clamped: __m256i,
    /// Finite non-negative inputs past the largest finite value (low), in-range lanes
    /// that changed (high; inexact = these + overflowed + clamped).
    over_changed: __m256i,
    /// In-range results below the smallest normal, subnormal or zero (low), and zero
    /// results (high): subnormal = below - zero results.
    below_zero: __m256i,
    /// +0 inputs (flushed = zero results - these), whole lanes.
    zero_in: __m256i,
    /// The largest error in ULPs, as an f32 (exact for every lane counted in it).
    max_err: __m256,
}

/// The counts of [`Acc`] added up.
#[derive(Clone, Copy, Default)]
struct Totals {
    nan: u32,
    clamped: u32,
    over: u32,
    changed: u32,
    below: u32,
    zero_out: u32,
    zero_in: u32,
}

/// Lanes a pass counts before [`Acc::drain`]: 2^12 per 32-bit lane at most, three times
/// that for R11G11B10's three channels, well under 2^16.
const DRAIN_LANES: usize = 1 << 15;

/// The inputs that decide the rest of the largest error, which depends on the format:
/// R11G11B10 keeps one for f11 and one for f10, and shares [`Acc`].
#[derive(Clone, Copy)]
struct Extremes {
    max_saturated: __m256i,
    min_far_one: __m256i,
    /// The plain pass's largest input pattern (unsigned): its lanes were all plain when
    /// it is at most the largest finite value's.
    max_raw: __m256i,
}

impl Extremes {
    #[target_feature(enable = "avx2")]
    fn new() -> Extremes {
        Extremes {
            max_saturated: _mm256_setzero_si256(),
            min_far_one: _mm256_set1_epi32(-1),
            max_raw: _mm256_setzero_si256(),
        }
    }

    /// The extremes into `p`.
    fn finish(&self, p: &mut NarrowPass) {
        p.max_saturated = max(self.max_saturated);
        p.min_far_one = min(self.min_far_one);
    }
}

impl Acc {
    #[target_feature(enable = "avx2")]
    fn new() -> Acc {
        let zero = _mm256_setzero_si256();
        Acc {
            nan_clamped: zero,
            over_changed: zero,
            below_zero: zero,
            zero_in: zero,
            max_err: _mm256_setzero_ps(),
        }
    }

    /// Adds the counts into `t` and starts them again from 0 (the maximum stays).
    #[target_feature(enable = "avx2")]
    fn drain(&mut self, t: &mut Totals) {
        let (nan, clamped) = halves(self.nan_clamped);
        let (over, changed) = halves(self.over_changed);
        let (below, zero_out) = halves(self.below_zero);
        t.nan += nan;
        t.clamped += clamped;
        t.over += over;
        t.changed += changed;
        t.below += below;
        t.zero_out += zero_out;
        t.zero_in = t.zero_in.wrapping_add(sum(self.zero_in));
        let zero = _mm256_setzero_si256();
        self.nan_clamped = zero;
        self.over_changed = zero;
        self.below_zero = zero;
        self.zero_in = zero;
    }
}

/// Whether overflow goes to INF (else to the largest finite value) for the lanes that
/// can overflow (non-negative ones): to +INF and to nearest, unless --saturate.
const fn to_infinity<M: Mode, const S: bool>() -> bool {
    !S && matches!(
        M::ROUNDING,
        Rounding::NearestEven | Rounding::TowardPositive
    )
}

/// Eight f32 patterns to a 5-exponent-bit, bias-15 unsigned float with `F` fraction bits
/// (f11: 6, f10: 5), rounded in mode `M` (`S`: --saturate), as 32-bit lanes; counted into
/// `c` and `e`. Every case is the portable pass's (`narrow::full_lane`).
///
/// `PLAIN` leaves out what only NaN, INF, negatives and values past the largest finite
/// one need (about half the work): the lanes' largest pattern goes into `e.max_raw`
/// instead, and the counts are the block's only when it is at most that value's.
#[inline]
#[target_feature(enable = "avx2")]
fn eight<T: Small, M: Mode, const S: bool, const PLAIN: bool>(
    u: __m256i,
    c: &mut Acc,
    e: &mut Extremes,
) -> __m256i {
    let f = T::FRAC as i32;
    let ones = _mm256_set1_epi32(-1);
    let zero = _mm256_setzero_si256();
    let inf = _mm256_set1_epi32(0x7f80_0000);
    let inf_bits = 31 << f;
    let mag = if PLAIN {
        e.max_raw = _mm256_max_epu32(e.max_raw, u);
        u
    } else {
        _mm256_and_si256(u, _mm256_set1_epi32(0x7fff_ffff))
    };
    let (nan, inf_in, to_zero, clamped) = if PLAIN {
        (zero, zero, zero, zero)
    } else {
        let nan = _mm256_cmpgt_epi32(mag, inf);
        // Negatives (-0 and -INF included, NaN not) become 0; all but -0 are clamped.
        let to_zero = _mm256_andnot_si256(nan, _mm256_srai_epi32::<31>(u));
        let zero_in = _mm256_cmpeq_epi32(mag, zero);
        let clamped = _mm256_andnot_si256(zero_in, to_zero);
        (nan, _mm256_cmpeq_epi32(mag, inf), to_zero, clamped)
    };

    // p = |x| * 2^(F - max(e, -14)): the scale's exponent field is 254 + F - max(field,
    // 113), at least F - 1 (NaN, INF), so it is a normal number and the product exact.
    let field = _mm256_max_epi32(_mm256_srli_epi32::<23>(mag), _mm256_set1_epi32(113));
    let scale = _mm256_slli_epi32::<23>(_mm256_sub_epi32(_mm256_set1_epi32(254 + f), field));
    let p = _mm256_mul_ps(_mm256_castsi256_ps(mag), _mm256_castsi256_ps(scale));
    let q = round::<M>(p);
    let qi = _mm256_cvttps_epi32(q);
    // q is in [2^F, 2^(F+1)] for normals (2^(F+1): rounding carried into the next
    // binade, which the addition takes into the exponent) and [0, 2^F] below.
    let mag_bits = _mm256_add_epi32(shl(_mm256_sub_epi32(field, _mm256_set1_epi32(113)), f), qi);
    // A plain value rounds to at most the largest finite one (which it does not pass).
    let (bits, over, out_of_range) = if PLAIN {
        (mag_bits, zero, zero)
    } else {
        let special = _mm256_or_si256(_mm256_or_si256(nan, inf_in), to_zero);
        let past = _mm256_cmpgt_epi32(mag_bits, _mm256_set1_epi32(inf_bits - 1));
        let over = _mm256_andnot_si256(special, past);
        let over_bits = if to_infinity::<M, S>() {
            inf_bits
        } else {
            inf_bits - 1
        };
        let result = _mm256_blendv_epi8(mag_bits, _mm256_set1_epi32(over_bits), over);
        // NaN keeps its top payload bits, quiet bit set; +INF stays INF.
        let nan_bits = _mm256_or_si256(
            shr(_mm256_and_si256(mag, _mm256_set1_epi32(0x7f_ffff)), 23 - f),
            _mm256_set1_epi32(inf_bits | 1 << (f - 1)),
        );
        let result = _mm256_blendv_epi8(result, _mm256_set1_epi32(inf_bits), inf_in);
        let result = _mm256_blendv_epi8(result, nan_bits, nan);
        // Lanes that are not special nor over are in range.
        (
            _mm256_andnot_si256(to_zero, result),
            over,
            _mm256_or_si256(special, over),
        )
    };

    // Counts.
    let changed = _mm256_castps_si256(_mm256_cmp_ps::<_CMP_NEQ_UQ>(q, p));
    if !PLAIN {
        c.nan_clamped = _mm256_sub_epi16(c.nan_clamped, pair(nan, clamped));
    }
    let changed = _mm256_andnot_si256(out_of_range, changed);
    c.over_changed = _mm256_sub_epi16(c.over_changed, pair(over, changed));
    let below = _mm256_cmpgt_epi32(_mm256_set1_epi32(1 << f), mag_bits);
    let zero_out = _mm256_cmpeq_epi32(mag_bits, zero);
    let below_zero = _mm256_andnot_si256(out_of_range, pair(below, zero_out));
    c.below_zero = _mm256_sub_epi16(c.below_zero, below_zero);
    // +0 only: -0 is special, so its zero result was not counted either.
    c.zero_in = _mm256_sub_epi32(c.zero_in, _mm256_cmpeq_epi32(u, zero));

    // |q - p| in ULPs of the result: exact where p >= 1/2 (both within 1, p's last place
    // at least 2^-24) or q = 0 (it is p). A carry into the next binade doubles the ULP.
    let diff = _mm256_and_ps(
        _mm256_sub_ps(q, p),
        _mm256_castsi256_ps(_mm256_set1_epi32(0x7fff_ffff)),
    );
    let carried = _mm256_cmpeq_epi32(qi, _mm256_set1_epi32(2 << f));
    // Halved by its exponent field: a carried lane's |q - p| is at least 2^-18, normal.
    let err = _mm256_castsi256_ps(_mm256_sub_epi32(
        _mm256_castps_si256(diff),
        _mm256_and_si256(carried, _mm256_set1_epi32(1 << 23)),
    ));
    let mut skip = out_of_range;
    if M::ROUNDING == Rounding::TowardPositive {
        // Below 1/2 and rounded up to the smallest subnormal: 1 - p may not be exact.
        let far_one = _mm256_andnot_si256(
            out_of_range,
            _mm256_and_si256(
                _mm256_castps_si256(_mm256_cmp_ps::<_CMP_LT_OQ>(p, _mm256_set1_ps(0.5))),
                _mm256_cmpeq_epi32(qi, _mm256_set1_epi32(1)),
            ),
        );
        skip = _mm256_or_si256(skip, far_one);
        let candidate = _mm256_or_si256(mag, _mm256_xor_si256(far_one, ones));
        e.min_far_one = _mm256_min_epu32(e.min_far_one, candidate);
    }
    c.max_err = _mm256_max_ps(_mm256_andnot_ps(_mm256_castsi256_ps(skip), err), c.max_err);
    if !to_infinity::<M, S>() && !PLAIN {
        e.max_saturated = _mm256_max_epi32(e.max_saturated, _mm256_and_si256(over, mag));
    }
    bits
}

/// Shifts by a count known at compile time once inlined (`F` cannot be an immediate's
/// expression in stable Rust).
#[inline]
#[target_feature(enable = "avx2")]
fn shl(x: __m256i, n: i32) -> __m256i {
    _mm256_sll_epi32(x, _mm_cvtsi32_si128(n))
}

#[inline]
#[target_feature(enable = "avx2")]
fn shr(x: __m256i, n: i32) -> __m256i {
    _mm256_srl_epi32(x, _mm_cvtsi32_si128(n))
}

/// The counts of `c` (zero-padded lanes included: +0 converts exactly to +0, so it counts
/// nowhere once subnormal and flushed are worked out), without the extremes.
#[target_feature(enable = "avx2")]
fn finish<M: Mode, const S: bool>(c: &mut Acc, mut t: Totals) -> NarrowPass {
    c.drain(&mut t);
    let (over, clamped, zero_out) = (t.over, t.clamped, t.zero_out);
    let max_err = max_f32(c.max_err);
    let inf = to_infinity::<M, S>();
    NarrowPass {
        inexact: t.changed + over + clamped,
        saturated: if inf { 0 } else { over },
        overflow: if inf { over } else { 0 },
        nan: t.nan,
        clamped,
        subnormal: t.below.wrapping_sub(zero_out),
        flushed: zero_out.wrapping_sub(t.zero_in),
        max_error: max_err as f64,
        ..NarrowPass::default()
    }
}

// The two pass drivers (the loops; the lane code they call inlines into them), for
// AVX2 and again for AVX-512, where the same code keeps all its running values in the
// 32 registers (R11G11B10's three formats spill from sixteen).
compile_for!(avx2, avx512 => {
    /// The full f11 or f10 pass over a block.
    pub(in crate::convert::kernels) fn float_full_pass<T: Small, M: Mode, const S: bool>(
        values: &[u32],
        out: &mut [u16],
    ) -> NarrowPass {
        let n = values.len().min(out.len());
        let (values, out) = (&values[..n], &mut out[..n]);
        let mut c = Acc::new();
        let mut e = Extremes::new();
        let mut t = Totals::default();
        let whole = n / 16 * 16;
        let (body, tail) = values.split_at(whole);
        let (out_body, out_tail) = out.split_at_mut(whole);
        for (vs, os) in body
            .chunks(DRAIN_LANES)
            .zip(out_body.chunks_mut(DRAIN_LANES))
        {
            for (v, o) in vs.chunks_exact(16).zip(os.chunks_exact_mut(16)) {
                let words: [[u32; 8]; 2] =
                    bytemuck::cast::<[u32; 16], _>(v.try_into().expect("16"));
                let lo = eight::<T, M, S, false>(bytemuck::cast(words[0]), &mut c, &mut e);
                let hi = eight::<T, M, S, false>(bytemuck::cast(words[1]), &mut c, &mut e);
                // Packed to 16 bits within each 128-bit half, then the halves put in order.
                let packed =
                    _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packus_epi32(lo, hi));
                o.copy_from_slice(&bytemuck::cast::<__m256i, [u16; 16]>(packed));
            }
            c.drain(&mut t);
        }
        for (v, o) in tail.chunks(8).zip(out_tail.chunks_mut(8)) {
            let mut words = [0u32; 8];
            words[..v.len()].copy_from_slice(v);
            let bits = lanes(eight::<T, M, S, false>(
                bytemuck::cast(words),
                &mut c,
                &mut e,
            ));
            for (d, &b) in o.iter_mut().zip(&bits) {
                *d = b as u16;
            }
        }
        let mut p = finish::<M, S>(&mut c, t);
        e.finish(&mut p);
        p
    }

    /// The full R11G11B10 pass over a block of texels `STRIDE` words apart (3: packed RGB,
    /// 4: RGBA, alpha ignored): every count in the first pass returned, f10's extremes (the
    /// blue channel's) in the second, as `narrow::r11g11b10_full_portable` returns them.
    /// With `PLAIN`, for blocks whose channels are all +0 or positive up to the largest
    /// finite value (a dark texture's, with subnormal results), at about half the cost:
    /// `None` when a channel was anything else (the words are written either way).
    pub(in crate::convert::kernels) fn r11g11b10_float_pass<
        M: Mode,
        const S: bool,
        const STRIDE: usize,
        const PLAIN: bool,
    >(
        values: &[u32],
        out: &mut [u32],
    ) -> Option<(NarrowPass, NarrowPass)> {
        let texels = (values.len() / STRIDE).min(out.len());
        let (values, out) = (&values[..texels * STRIDE], &mut out[..texels]);
        let mut c = Acc::new();
        let (mut e11, mut e10) = (Extremes::new(), Extremes::new());
        // Eight texels' words from their R, G and B patterns; a macro rather than a function,
        // which LLVM would not inline (it is three `eight`s long) and would then pass the
        // running state through memory.
        macro_rules! texels_eight {
            ($r:expr, $g:expr, $b:expr) => {{
                let r = eight::<ToF11, M, S, PLAIN>($r, &mut c, &mut e11);
                let g = eight::<ToF11, M, S, PLAIN>($g, &mut c, &mut e11);
                let b = eight::<ToF10, M, S, PLAIN>($b, &mut c, &mut e10);
                _mm256_or_si256(
                    _mm256_or_si256(r, _mm256_slli_epi32::<11>(g)),
                    _mm256_slli_epi32::<22>(b),
                )
            }};
        }
        let mut t = Totals::default();
        let whole = texels / 8 * 8;
        let (body, rest) = values.split_at(whole * STRIDE);
        let (out_body, out_rest) = out.split_at_mut(whole);
        // Three channels a texel: a third as many texels between drains.
        let per_drain = DRAIN_LANES / 3 / 8 * 8;
        for (vs, os) in body
            .chunks(per_drain * STRIDE)
            .zip(out_body.chunks_mut(per_drain))
        {
            for (v, o) in vs.chunks_exact(8 * STRIDE).zip(os.chunks_exact_mut(8)) {
                let [r, g, b] = channels::<STRIDE>(v);
                let word = texel_order::<STRIDE>(texels_eight!(r, g, b));
                o.copy_from_slice(&lanes(word));
            }
            c.drain(&mut t);
        }
        // The rest, padded with +0 texels (exact, counted nowhere).
        if !rest.is_empty() {
            let mut padded = [0u32; 32];
            padded[..rest.len()].copy_from_slice(rest);
            let [r, g, b] = channels::<STRIDE>(&padded[..8 * STRIDE]);
            let word = lanes(texel_order::<STRIDE>(texels_eight!(r, g, b)));
            out_rest.copy_from_slice(&word[..out_rest.len()]);
        }
        if PLAIN && (max(e11.max_raw) > ToF11::MAX_F32 || max(e10.max_raw) > ToF10::MAX_F32) {
            return None;
        }
        let mut p11 = finish::<M, S>(&mut c, t);
        e11.finish(&mut p11);
        let mut p10 = NarrowPass::default();
        e10.finish(&mut p10);
        Some((p11, p10))
    }
});

#[cfg(test)]
mod tests;
