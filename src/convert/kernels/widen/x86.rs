//! R11G11B10 to f32 with F16C. The portable loop (`widen_r11g11b10_generic`), which LLVM
//! vectorises, picks each channel's result among three candidates built whole (normal,
//! subnormal through an integer-to-float conversion, INF or NaN) and scatters three
//! channels to interleaved words: R11G11B10 unpacked at 1.05-1.26x memcpy where RGB9E5,
//! with the same bytes in and out, ran at 1.48-1.67x. Here each channel becomes an f16
//! pattern: f11 and f10 have f16's exponent (five bits, bias 15, the same subnormals,
//! INF and NaN; §3.1.6, §19.3.3), so a channel's bits with its fraction moved to the top of
//! f16's ten are the f16 of the same value, which f16's own widening
//! (`f16c::widen_eight`: one `vcvtph2ps` for eight, NaNs quieted and counted) takes
//! exactly. (Putting the bits where an f32's go and multiplying by
//! 2^112 is exact too, but a subnormal channel is then an f32 subnormal operand, which
//! cost random data 12% on Zen 4.)

use std::arch::x86_64::*;

use super::super::f16c::widen_eight;
use super::super::x86::sum;

/// The R and G channels of eight words as sixteen f16 patterns (R0-R7, then G0-G7), and
/// B's eight in the low half of a second vector (the high half zero). R (bits 0-10) and
/// G (11-21) are f11, six fraction bits; B (22-31) is f10, five.
#[inline]
#[target_feature(enable = "avx2")]
fn as_f16(w: __m256i) -> (__m256i, __m256i) {
    let f11 = _mm256_set1_epi32(0x7ff << 4);
    let r = _mm256_and_si256(_mm256_slli_epi32::<4>(w), f11);
    let g = _mm256_and_si256(_mm256_srli_epi32::<7>(w), f11);
    let b = _mm256_srli_epi32::<22>(w);
    let b = _mm256_slli_epi32::<5>(b);
    // The pack goes by 128-bit halves (R0-3 G0-3 | R4-7 G4-7); the permute puts the
    // 64-bit quarters in order.
    let order = |v: __m256i| _mm256_permute4x64_epi64::<0b11_01_10_00>(v);
    (
        order(_mm256_packus_epi32(r, g)),
        order(_mm256_packus_epi32(b, _mm256_setzero_si256())),
    )
}

/// Three vectors of eight channels (R, G and B of the same texels, in texel order) as
/// the 24 words r0 g0 b0 r1 ... b7: each channel permuted to the lanes where its words
/// fall in each of the three output vectors, then two blends an output vector. The
/// inverse of `kernels::x86::channels::<3>`, which blends first and permutes after.
#[inline]
#[target_feature(enable = "avx2")]
fn interleave([r, g, b]: [__m256i; 3]) -> [__m256i; 3] {
    // r0 r3 r6 r1 r4 r7 r2 r5; g5 g0 g3 g6 g1 g4 g7 g2; b2 b5 b0 b3 b6 b1 b4 b7: lane
    // j of output vector k holds word 8k + j, which is channel (8k + j) % 3 of texel
    // (8k + j) / 3.
    let r = _mm256_permutevar8x32_epi32(r, _mm256_setr_epi32(0, 3, 6, 1, 4, 7, 2, 5));
    let g = _mm256_permutevar8x32_epi32(g, _mm256_setr_epi32(5, 0, 3, 6, 1, 4, 7, 2));
    let b = _mm256_permutevar8x32_epi32(b, _mm256_setr_epi32(2, 5, 0, 3, 6, 1, 4, 7));
    // Blend masks name the lanes taken from the second operand.
    [
        _mm256_blend_epi32::<0b0010_0100>(_mm256_blend_epi32::<0b1001_0010>(r, g), b),
        _mm256_blend_epi32::<0b0100_1001>(_mm256_blend_epi32::<0b0010_0100>(r, g), b),
        _mm256_blend_epi32::<0b1001_0010>(_mm256_blend_epi32::<0b0100_1001>(r, g), b),
    ]
}

/// [`super::widen_r11g11b10_generic`] with F16C: the same words and NaN count.
#[target_feature(enable = "avx2,f16c")]
pub(super) fn widen_r11g11b10(src: &[u8], out: &mut [u32]) -> u32 {
    let texels = (src.len() / 4).min(out.len() / 3);
    let whole = texels / 8 * 8;
    let mut nans = _mm256_setzero_si256();
    for (s, o) in src[..whole * 4]
        .chunks_exact(32)
        .zip(out[..whole * 3].chunks_exact_mut(24))
    {
        // x86 is little-endian: the bytes are the lanes.
        let w = bytemuck::cast::<[u8; 32], __m256i>(s.try_into().expect("32 bytes"));
        let (rg, b) = as_f16(w);
        // f16's widening (NaNs quieted as the core's NaN rule has it), NaNs counted.
        let mut widen = |h: __m128i| {
            let (x, nan) = widen_eight(h);
            nans = _mm256_sub_epi32(nans, nan);
            x
        };
        let channels = [
            widen(_mm256_castsi256_si128(rg)),
            widen(_mm256_extracti128_si256::<1>(rg)),
            widen(_mm256_castsi256_si128(b)),
        ];
        let v: [[u32; 8]; 3] = bytemuck::cast(interleave(channels));
        o.copy_from_slice(bytemuck::cast_slice(&v));
    }
    // A lane counts three NaNs per eight texels at most: the wrapping sum is the count
    // wherever the portable loop's u32 is.
    sum(nans) + super::widen_r11g11b10_generic(&src[whole * 4..texels * 4], &mut out[whole * 3..])
}

#[cfg(test)]
mod tests {
    use super::super::widen_r11g11b10_generic;
    use super::*;

    /// Words and NaN counts of both loops over `words`, every length's tail included.
    fn same(words: &[u32]) {
        let src: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let mut want = vec![0u32; words.len() * 3];
        let nans = widen_r11g11b10_generic(&src, &mut want);
        let mut got = vec![0u32; words.len() * 3];
        // SAFETY: F16C and AVX2 checked by the caller.
        let got_nans = unsafe { widen_r11g11b10(&src, &mut got) };
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(g, w, "word {:#010x}, channel {}", words[i / 3], i % 3);
        }
        assert_eq!(got_nans, nans, "{} words", words.len());
    }

    #[test]
    fn f16c_widening_matches_the_portable_loop() {
        if !crate::convert::kernels::f16c::available() {
            return;
        }
        // Every f11 pattern in R and in G against every f10 pattern in B, G rotated so
        // that the three channels of a word differ.
        let words: Vec<u32> = (0..1u32 << 21)
            .map(|i| {
                let (r, b) = (i & 0x7ff, i >> 11);
                let g = (r * 1097 + b * 7) & 0x7ff;
                r | g << 11 | b << 22
            })
            .collect();
        same(&words);
        // Lengths around the eight-texel step, with specials in the tail.
        let edge = [0x7c0, 0x7c1, 0x7ff, 0x040, 0x03f, 0x001, 0];
        for n in 0..=17 {
            let w: Vec<u32> = (0..n)
                .map(|i| {
                    let c = edge[i % edge.len()];
                    c | edge[(i + 2) % edge.len()] << 11 | (c >> 1) << 22
                })
                .collect();
            same(&w);
        }
    }

    #[test]
    fn f16c_widening_counts_every_nan_of_a_long_slice() {
        if !crate::convert::kernels::f16c::available() {
            return;
        }
        // Every channel NaN (a different payload in each) for 2^19 texels, more than a
        // 16-bit count could hold.
        let words: Vec<u32> = (0..(1u32 << 19) + 5)
            .map(|i| 0x7c1 | ((i & 0x3f) | 0x7c0) << 11 | (0x3e0 | (i & 0x1f).max(1)) << 22)
            .collect();
        same(&words);
    }
}
