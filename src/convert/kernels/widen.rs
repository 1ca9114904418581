//! Widening: every source but f64 to exact f32 patterns (f16 through F16C where the CPU
//! has it, f11/f10 through tables built from the core, the packed words channel by
//! channel), and the f32 and f64 targets, which are exact too.

use std::sync::OnceLock;

use half::slice::{HalfBitsSliceExt, HalfFloatSliceExt};

use super::{Lane, avx2_vector, bit, flag, pow2, with_elements};
use crate::convert::summary::Stats;
use crate::format::packed::{RGB9E5_EXPONENT_SHIFT, RGB9E5_MANTISSA_BITS, RGB9E5_MAX_MANTISSA};
use crate::format::{F10, F11, F16, F32, Format, Rounding, round_f64};

/// Widens a block straight into the output, then counts (and quiets) its NaNs in place:
/// widening is exact, so NaN in = NaN out is all there is to count.
pub(super) fn widen_into_f32(from: Format, src: &[u8], dst: &mut [u8], stats: &mut Stats) {
    with_elements::<u32, _>(dst, |out| {
        if from == Format::Float(F16)
            && let Some(nan) = super::f16c::widen_f16(src, out)
        {
            // f16 values are all normal (or zero) in f32: no subnormal comes out.
            stats.merge(&Stats {
                values: out.len() as u64,
                nan_in: nan as u64,
                nan_out: nan as u64,
                ..Stats::default()
            });
            return;
        }
        widen_into(from, src, out);
        let (nan, subnormal) = vector_pass!(avx2_vector::quiet_nans, quiet_nans_generic, out);
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
pub(super) fn widen_into(from: Format, src: &[u8], out: &mut [u32]) {
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
        }
        Format::Float(f) => {
            let table = small_float_table(f.frac_bits);
            let mask = f.mask() as usize;
            for (b, o) in src.chunks_exact(2).zip(out.iter_mut()) {
                *o = table[u16::from_le_bytes([b[0], b[1]]) as usize & mask];
            }
        }
        Format::R11G11B10 => {
            let (t11, t10) = (small_float_table(6), small_float_table(5));
            for (b, o) in src.chunks_exact(4).zip(out.chunks_exact_mut(3)) {
                let w = u32::from_le_bytes(b.try_into().expect("4 bytes")) as usize;
                o[0] = t11[w & 0x7ff];
                o[1] = t11[(w >> 11) & 0x7ff];
                o[2] = t10[(w >> 22) & 0x3ff];
            }
        }
        Format::Rgb9e5 => {
            for (b, o) in src.chunks_exact(4).zip(out.chunks_exact_mut(3)) {
                let w = u32::from_le_bytes(b.try_into().expect("4 bytes"));
                // mantissa * 2^(E - 24), exact in f32 (§19.3.2).
                let scale = pow2((w >> RGB9E5_EXPONENT_SHIFT) as i32 - 24) as f32;
                for (i, v) in o.iter_mut().enumerate() {
                    let m = (w >> (RGB9E5_MANTISSA_BITS * i as u32)) & RGB9E5_MAX_MANTISSA;
                    *v = (m as f32 * scale).to_bits();
                }
            }
        }
    }
}

/// f11 (`frac_bits` 6) or f10 (5) patterns to f32 patterns, built once from the core.
pub(super) fn small_float_table(frac_bits: u32) -> &'static [u32] {
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
