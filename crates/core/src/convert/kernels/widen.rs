//! Widening: every source but f64 to exact f32 patterns (f16 through F16C where the CPU
//! has it, f11/f10 in branch-free integer code tested against the core, the packed words
//! channel by channel, R11G11B10's through F16C too: see `x86`), and the f32 and f64
//! targets, which are exact too.

use half::slice::{HalfBitsSliceExt, HalfFloatSliceExt};

use super::lanes::{Lane, bit, with_elements};
use super::simd::{Simd, compile_for, dispatch};
use super::target::{Small, SmallTarget, ToF10, ToF11};
use crate::convert::summary::{Stats, flag};
use crate::format::packed::{RGB9E5_EXPONENT_SHIFT, RGB9E5_MANTISSA_BITS, RGB9E5_MAX_MANTISSA};
use crate::format::pow2::pow2_normal as pow2;
use crate::format::{F16, F32, Format};

#[cfg(target_arch = "x86_64")]
mod x86;

/// Widens a block straight into the output, then counts (and quiets) its NaNs in place:
/// widening is exact, so NaN in = NaN out is all there is to count.
pub(super) fn widen_into_f32(
    simd: Simd,
    from: Format,
    src: &[u8],
    dst: &mut [u8],
    stats: &mut Stats,
) {
    with_elements::<u32, _>(dst, |out| {
        // f16, f11, f10 and the packed channels are all normal (or zero) in f32: no
        // subnormal comes out of them; only what `widen_into` cannot take is counted for
        // subnormals too.
        let f16c = if from == Format::Float(F16) {
            dispatch!(simd, {
                f16c => Some(x86::widen_f16_f16c(src, out)),
                portable => None,
            })
        } else {
            None
        };
        let (nan, subnormal) = match f16c.or_else(|| widen_into(simd, from, src, out)) {
            Some(nan) => (nan, 0),
            None => dispatch!(simd, {
                avx2 => avx2::quiet_nans(out),
                portable => quiet_nans_portable(out),
            }),
        };
        stats.merge(&Stats {
            values: out.len() as u64,
            nan_in: nan as u64,
            nan_out: nan as u64,
            subnormal_out: subnormal as u64,
            ..Stats::default()
        });
    })
}

// The NaN pass is branch-free: compiled for AVX2 it becomes 8-wide vector code.
compile_for!(avx2 => {
    pub(in crate::convert::kernels) fn quiet_nans(out: &mut [u32]) -> (u32, u32) {
        quiet_nans_portable(out)
    }
});

/// Sets the quiet bit of every f32 NaN (the core's NaN rule) and counts the NaNs and
/// subnormals.
#[inline(always)]
pub(super) fn quiet_nans_portable(out: &mut [u32]) -> (u32, u32) {
    let (mut nans, mut subnormals) = (0u32, 0u32);
    for o in out.iter_mut() {
        let mag = *o & 0x7fff_ffff;
        let nan = mag > 0x7f80_0000;
        *o |= bit(nan, F32_NAN_QUIET);
        nans += nan as u32;
        subnormals += (mag.wrapping_sub(1) < 0x007f_ffff) as u32;
    }
    (nans, subnormals)
}

/// The source block as f32 patterns, exactly: one per element, or three per packed word.
pub(super) fn widen_to_f32<'a>(
    simd: Simd,
    from: Format,
    src: &'a [u8],
    scratch: &'a mut Vec<u32>,
) -> &'a [u32] {
    if from == Format::Float(F32) {
        if cfg!(target_endian = "little")
            && let Ok(words) = bytemuck::try_cast_slice::<u8, u32>(src)
        {
            return words;
        }
        scratch.clear();
        scratch.extend(
            src.chunks_exact(4)
                .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes"))),
        );
        return scratch;
    }
    let per_element = match from {
        Format::Float(_) => 1,
        _ => 3,
    };
    scratch.resize(src.len() / from.element_bytes() * per_element, 0);
    widen_into(simd, from, src, scratch);
    scratch
}

/// Writes the f32 patterns of a block of `from` (not f32 or f64) into `out`, exactly.
/// Returns the number of NaNs when it has counted them and set their quiet bit on the
/// way (everything but f16, which the `half` crate widens and a second pass counts).
pub(super) fn widen_into(simd: Simd, from: Format, src: &[u8], out: &mut [u32]) -> Option<u32> {
    match from {
        Format::Float(f) if f == F16 => {
            let copied: Vec<u16>;
            let halves: &[u16] = match bytemuck::try_cast_slice::<u8, u16>(src) {
                Ok(h) if cfg!(target_endian = "little") => h,
                _ => {
                    copied = src
                        .chunks_exact(2)
                        .map(|b| u16::from_le_bytes([b[0], b[1]]))
                        .collect();
                    &copied
                }
            };
            let out: &mut [f32] = bytemuck::cast_slice_mut(out);
            // F16C where the CPU has it (the half crate checks at run time).
            halves
                .reinterpret_cast::<half::f16>()
                .convert_to_f32_slice(out);
            None
        }
        Format::Float(f) => {
            let mut nans = 0u32;
            for (b, o) in src.chunks_exact(2).zip(out.iter_mut()) {
                let b = u16::from_le_bytes([b[0], b[1]]) as u32;
                *o = match SmallTarget::of(f) {
                    Some(SmallTarget::F11) => small_to_f32::<ToF11>(b),
                    Some(SmallTarget::F10) => small_to_f32::<ToF10>(b),
                    _ => unreachable!("f16 is above; f32 and f64 are not widened here"),
                };
                nans += (*o & 0x7fff_ffff > 0x7f80_0000) as u32;
            }
            Some(nans)
        }
        Format::R11G11B10 => Some(dispatch!(simd, {
            f16c => x86::widen_r11g11b10_f16c(src, out),
            portable => widen_r11g11b10_portable(src, out),
        })),
        Format::Rgb9e5 => {
            for (b, o) in src.chunks_exact(4).zip(out.chunks_exact_mut(3)) {
                let w = u32::from_le_bytes(b.try_into().expect("4 bytes"));
                // mantissa * 2^(E - 24), exact in f32 (§19.3.2).
                // 2^(E - 24) built from its bits: E + 103 is its f32 exponent field.
                let scale = f32::from_bits(((w >> RGB9E5_EXPONENT_SHIFT) + 103) << 23);
                for (i, v) in o.iter_mut().enumerate() {
                    let m = (w >> (RGB9E5_MANTISSA_BITS * i as u32)) & RGB9E5_MAX_MANTISSA;
                    *v = (m as f32 * scale).to_bits();
                }
            }
            // Every RGB9E5 value is finite.
            Some(0)
        }
    }
}

/// The f32 pattern of an unsigned, bias-15 float with 5 exponent and `F` fraction bits
/// (f11: 6, f10: 5) in the low bits of `b` (the bits above are ignored), exactly:
/// normals rebiased, subnormals converted (m * 2^(-14 - F), exact in f32), INF kept and
/// NaN given the quiet bit, as the core's NaN rule does. Branch-free, so it vectorises;
/// the tests compare it with the core on every pattern.
#[inline(always)]
pub(super) fn small_to_f32<T: Small>(b: u32) -> u32 {
    let m = b & ((1 << T::FRAC) - 1);
    let e = (b >> T::FRAC) & 31;
    let normal = ((e + 112) << 23) | (m << (23 - T::FRAC));
    let subnormal = (m as f32 * pow2(-14 - T::FRAC as i32) as f32).to_bits();
    let special = 0x7f80_0000 | (m << (23 - T::FRAC)) | (((m != 0) as u32) << 22);
    let low = (e == 0) as u32;
    let high = (e == 31) as u32;
    let pick = |c: u32, a: u32, b: u32| (a & c.wrapping_neg()) | (b & !c.wrapping_neg());
    pick(low, subnormal, pick(high, special, normal))
}

/// R11G11B10 words (little-endian bytes) to three f32 patterns each; returns the number
/// of NaN channels.
#[inline(always)]
pub(super) fn widen_r11g11b10_portable(src: &[u8], out: &mut [u32]) -> u32 {
    let mut nans = 0u32;
    let nan = |x: u32| (x & 0x7fff_ffff > 0x7f80_0000) as u32;
    for (b, o) in src.chunks_exact(4).zip(out.chunks_exact_mut(3)) {
        let w = u32::from_le_bytes(b.try_into().expect("4 bytes"));
        o[0] = small_to_f32::<ToF11>(w);
        o[1] = small_to_f32::<ToF11>(w >> 11);
        o[2] = small_to_f32::<ToF10>(w >> 22);
        nans += nan(o[0]) + nan(o[1]) + nan(o[2]);
    }
    nans
}

/// f11 (`frac_bits` 6) or f10 (5) patterns to f32 patterns, built from the core: the
/// reference [`small_to_f32`] is tested against.
#[cfg(test)]
fn small_float_table(frac_bits: u32) -> &'static [u32] {
    use crate::format::{F10, F11, Rounding, round_f64};
    use std::sync::OnceLock;
    static F11_TABLE: OnceLock<Vec<u32>> = OnceLock::new();
    static F10_TABLE: OnceLock<Vec<u32>> = OnceLock::new();
    let (cell, fmt) = if frac_bits == 6 {
        (&F11_TABLE, F11)
    } else {
        (&F10_TABLE, F10)
    };
    cell.get_or_init(|| {
        let opts = crate::format::RoundOptions::new(Rounding::NearestEven);
        (0..=fmt.mask())
            .map(|b| round_f64(&F32, fmt.to_f64(b), opts).bits as u32)
            .collect()
    })
}

pub(super) const F32_NAN_QUIET: u32 = 1 << 22;

/// f32 to f32: NaN gets the quiet bit, as the core's NaN rule does.
#[inline(always)]
pub(super) fn same_f32(u: u32) -> Lane {
    let mag = u & 0x7fff_ffff;
    let nan = mag > 0x7f80_0000;
    let subnormal = mag != 0 && mag < 0x0080_0000;
    let bits = u | bit(nan, F32_NAN_QUIET);
    let flags = bit(nan, flag::NAN_IN | flag::NAN_OUT) | bit(subnormal, flag::SUBNORMAL);
    (bits as u64, flags, 0.0)
}

/// f32 to f64: exact; NaN keeps its payload and gets the quiet bit.
#[inline(always)]
pub(super) fn widen_f64(u: u32) -> Lane {
    let mag = u & 0x7fff_ffff;
    let nan = mag > 0x7f80_0000;
    let sign = ((u >> 31) as u64) << 63;
    let nan_bits = sign | 0x7ff8_0000_0000_0000 | (((mag & 0x7f_ffff) as u64) << 29);
    let bits = if nan {
        nan_bits
    } else {
        (f32::from_bits(u) as f64).to_bits()
    };
    (bits, bit(nan, flag::NAN_IN | flag::NAN_OUT), 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::kernels::simd::for_each_level;

    #[test]
    fn small_floats_widen_as_the_core_does() {
        let (t11, t10) = (small_float_table(6), small_float_table(5));
        for b in 0..0x800u32 {
            assert_eq!(small_to_f32::<ToF11>(b), t11[b as usize], "f11 {b:#x}");
            // Bits above the pattern are ignored.
            assert_eq!(
                small_to_f32::<ToF11>(b | 0xf800),
                t11[b as usize],
                "f11 {b:#x}"
            );
        }
        for b in 0..0x400u32 {
            assert_eq!(small_to_f32::<ToF10>(b), t10[b as usize], "f10 {b:#x}");
            assert_eq!(
                small_to_f32::<ToF10>(b | 0xfc00),
                t10[b as usize],
                "f10 {b:#x}"
            );
        }
    }

    /// Words and NaN counts of `widen_into` at every level over R11G11B10 `words`
    /// against the portable loop, every length's tail included.
    fn r11g11b10_same(words: &[u32]) {
        let src: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let mut want = vec![0u32; words.len() * 3];
        let nans = widen_r11g11b10_portable(&src, &mut want);
        for_each_level(|simd| {
            let mut got = vec![0u32; words.len() * 3];
            let got_nans = widen_into(simd, Format::R11G11B10, &src, &mut got);
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                let (word, channel) = (words[i / 3], i % 3);
                assert_eq!(g, w, "word {word:#010x}, channel {channel}, {simd:?}");
            }
            assert_eq!(got_nans, Some(nans), "{} words, {simd:?}", words.len());
        });
    }

    #[test]
    fn r11g11b10_widening_matches_the_portable_loop_at_every_level() {
        // Every f11 pattern in R and in G against every f10 pattern in B, G rotated so
        // that the three channels of a word differ.
        let words: Vec<u32> = (0..1u32 << 21)
            .map(|i| {
                let (r, b) = (i & 0x7ff, i >> 11);
                let g = (r * 1097 + b * 7) & 0x7ff;
                r | g << 11 | b << 22
            })
            .collect();
        r11g11b10_same(&words);
        // Lengths around the eight-texel step, with specials in the tail.
        let edge = [0x7c0, 0x7c1, 0x7ff, 0x040, 0x03f, 0x001, 0];
        for n in 0..=17 {
            let w: Vec<u32> = (0..n)
                .map(|i| {
                    let c = edge[i % edge.len()];
                    c | edge[(i + 2) % edge.len()] << 11 | (c >> 1) << 22
                })
                .collect();
            r11g11b10_same(&w);
        }
    }

    #[test]
    fn r11g11b10_widening_counts_every_nan_of_a_long_slice() {
        // Every channel NaN (a different payload in each) for 2^19 texels, more than a
        // 16-bit count could hold.
        let words: Vec<u32> = (0..(1u32 << 19) + 5)
            .map(|i| 0x7c1 | ((i & 0x3f) | 0x7c0) << 11 | (0x3e0 | (i & 0x1f).max(1)) << 22)
            .collect();
        r11g11b10_same(&words);
    }

    #[test]
    fn f16_widening_matches_the_portable_one_at_every_level() {
        let all: Vec<u8> = (0..=u16::MAX).flat_map(|h| h.to_le_bytes()).collect();
        for len in [0, 1, 7, 8, 9, 65_535, 65_536] {
            let src = &all[..2 * len];
            let mut portable = vec![0u32; len];
            let mut stats = Stats::default();
            widen_into_f32(
                Simd::portable(),
                Format::Float(F16),
                src,
                bytemuck::cast_slice_mut(&mut portable),
                &mut stats,
            );
            // The portable path: the `half` crate's conversion, then the NaN pass.
            let mut reference = vec![0u32; len];
            assert_eq!(
                widen_into(Simd::portable(), Format::Float(F16), src, &mut reference),
                None
            );
            let (nans, _) = quiet_nans_portable(&mut reference);
            assert_eq!(portable, reference, "{len} halves");
            assert_eq!(stats.nan_in, nans as u64, "{len} halves");
            for_each_level(|simd| {
                let mut got = vec![0u32; len];
                let mut got_stats = Stats::default();
                widen_into_f32(
                    simd,
                    Format::Float(F16),
                    src,
                    bytemuck::cast_slice_mut(&mut got),
                    &mut got_stats,
                );
                assert_eq!(got, reference, "{len} halves, {simd:?}");
                assert_eq!(got_stats, stats, "{len} halves, {simd:?}");
            });
        }
    }
}
