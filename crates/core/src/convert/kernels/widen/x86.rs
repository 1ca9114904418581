//! f16 and R11G11B10 to f32 with F16C. The portable R11G11B10 loop
//! (`widen_r11g11b10_portable`), which LLVM vectorises, picks each channel's result among
//! three candidates built whole (normal, subnormal through an integer-to-float
//! conversion, INF or NaN) and scatters three channels to interleaved words, slower than
//! RGB9E5 with the same bytes in and out (docs/benchmarks.md, round 11). Here each
//! channel becomes an f16 pattern: f11 and f10 have f16's exponent (five bits, bias 15,
//! the same subnormals, INF and NaN; §3.1.6, §19.3.3), so a channel's bits with its fraction moved to the top of
//! f16's ten are the f16 of the same value, which f16's own widening
//! ([`widen_eight`]: one `vcvtph2ps` for eight, NaNs quieted and counted) takes
//! exactly. (Putting the bits where an f32's go and multiplying by 2^112 is exact too,
//! but a subnormal channel is then an f32 subnormal operand, slow on some CPUs.)

use std::arch::x86_64::*;

use crate::convert::kernels::x86::sum;

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

/// f16 patterns (little-endian bytes) widened into f32 patterns, with the quiet bit set
/// on every NaN (the core's NaN rule): one pass with `vcvtph2ps`, where the portable path
/// takes two (the `half` crate's conversion, then the NaN pass). Returns the number of
/// NaNs.
#[target_feature(enable = "avx2,f16c")]
pub(super) fn widen_f16_f16c(src: &[u8], out: &mut [u32]) -> u32 {
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

/// [`super::widen_r11g11b10_portable`] with F16C: the same words and NaN count.
#[target_feature(enable = "avx2,f16c")]
pub(super) fn widen_r11g11b10_f16c(src: &[u8], out: &mut [u32]) -> u32 {
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
    sum(nans) + super::widen_r11g11b10_portable(&src[whole * 4..texels * 4], &mut out[whole * 3..])
}
