//! Widening: every source but f64 to exact f32 patterns (f16 through F16C where the CPU
//! has it, f11/f10 in branch-free integer code tested against the core, the packed words
//! channel by channel, R11G11B10's through F16C too: see `x86`), and the f32 and f64
//! targets, which are exact too.

use half::slice::{HalfBitsSliceExt, HalfFloatSliceExt};

use super::{Lane, avx2_vector, bit, flag, pow2, with_elements};
use crate::convert::summary::Stats;
use crate::format::packed::{RGB9E5_EXPONENT_SHIFT, RGB9E5_MANTISSA_BITS, RGB9E5_MAX_MANTISSA};
use crate::format::{F16, F32, Format};

#[cfg(target_arch = "x86_64")]
mod x86;

/// Widens a block straight into the output, then counts (and quiets) its NaNs in place:
/// widening is exact, so NaN in = NaN out is all there is to count.
pub(super) fn widen_into_f32(from: Format, src: &[u8], dst: &mut [u8], stats: &mut Stats) {
    with_elements::<u32, _>(dst, |out| {
        // f16, f11, f10 and the packed channels are all normal (or zero) in f32: no
        // subnormal comes out of them; only what `widen_into` cannot take is counted for
        // subnormals too.
        let f16c = if from == Format::Float(F16) {
            super::f16c::widen_f16(src, out)
        } else {
            None
        };
        let (nan, subnormal) = match f16c.or_else(|| widen_into(from, src, out)) {
            Some(nan) => (nan, 0),
            None => vector_pass!(avx2_vector::quiet_nans, quiet_nans_generic, out),
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

/// Sets the quiet bit of every f32 NaN (the core's NaN rule) and counts the NaNs and
/// subnormals.
#[inline(always)]
pub(super) fn quiet_nans_generic(out: &mut [u32]) -> (u32, u32) {
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
    widen_into(from, src, scratch);
    scratch
}

/// Writes the f32 patterns of a block of `from` (not f32 or f64) into `out`, exactly.
/// Returns the number of NaNs when it has counted them and set their quiet bit on the
/// way (everything but f16, which the `half` crate widens and a second pass counts).
pub(super) fn widen_into(from: Format, src: &[u8], out: &mut [u32]) -> Option<u32> {
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
                *o = if f.frac_bits == 6 {
                    small_to_f32::<6>(b)
                } else {
                    small_to_f32::<5>(b)
                };
                nans += (*o & 0x7fff_ffff > 0x7f80_0000) as u32;
            }
            Some(nans)
        }
        Format::R11G11B10 => {
            #[cfg(target_arch = "x86_64")]
            if super::f16c::available() {
                // SAFETY: the CPU has F16C and AVX2, checked just above.
                return Some(unsafe { x86::widen_r11g11b10(src, out) });
            }
            Some(widen_r11g11b10_generic(src, out))
        }
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
pub(super) fn small_to_f32<const F: u32>(b: u32) -> u32 {
    let m = b & ((1 << F) - 1);
    let e = (b >> F) & 31;
    let normal = ((e + 112) << 23) | (m << (23 - F));
    let subnormal = (m as f32 * pow2(-14 - F as i32) as f32).to_bits();
    let special = 0x7f80_0000 | (m << (23 - F)) | (((m != 0) as u32) << 22);
    let low = (e == 0) as u32;
    let high = (e == 31) as u32;
    let pick = |c: u32, a: u32, b: u32| (a & c.wrapping_neg()) | (b & !c.wrapping_neg());
    pick(low, subnormal, pick(high, special, normal))
}

/// R11G11B10 words (little-endian bytes) to three f32 patterns each; returns the number
/// of NaN channels.
#[inline(always)]
pub(super) fn widen_r11g11b10_generic(src: &[u8], out: &mut [u32]) -> u32 {
    let mut nans = 0u32;
    let nan = |x: u32| (x & 0x7fff_ffff > 0x7f80_0000) as u32;
    for (b, o) in src.chunks_exact(4).zip(out.chunks_exact_mut(3)) {
        let w = u32::from_le_bytes(b.try_into().expect("4 bytes"));
        o[0] = small_to_f32::<6>(w);
        o[1] = small_to_f32::<6>(w >> 11);
        o[2] = small_to_f32::<5>(w >> 22);
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

    #[test]
    fn small_floats_widen_as_the_core_does() {
        let (t11, t10) = (small_float_table(6), small_float_table(5));
        for b in 0..0x800u32 {
            assert_eq!(small_to_f32::<6>(b), t11[b as usize], "f11 {b:#x}");
            // Bits above the pattern are ignored.
            assert_eq!(small_to_f32::<6>(b | 0xf800), t11[b as usize], "f11 {b:#x}");
        }
        for b in 0..0x400u32 {
            assert_eq!(small_to_f32::<5>(b), t10[b as usize], "f10 {b:#x}");
            assert_eq!(small_to_f32::<5>(b | 0xfc00), t10[b as usize], "f10 {b:#x}");
        }
    }
}
