//! Fast slice kernels: the same answers as the per-element core in [`super::element`]
//! (bit for bit, counts included; the tests compare them), computed on `u32` patterns with
//! integer operations instead of exact rationals.
//!
//! Every source other than f64 is first widened exactly to f32 patterns (f16 with the F16C
//! instructions where the CPU has them, through the `half` crate); the target side then
//! works from f32 patterns only. f64 sources go through the core itself.

use std::sync::OnceLock;

use half::slice::{HalfBitsSliceExt, HalfFloatSliceExt};

use super::Conversion;
use super::element;
use super::summary::{FlagCounter, Stats, flag, pow2};
use crate::format::packed::R11G11B10_CHANNELS;
use crate::format::{F10, F11, F32, Format, Rounding, round_f64};

/// Groups per block: the widened f32 patterns of a block stay in the L1 cache.
const BLOCK: usize = 1024;

/// Converts whole groups (`src.len()` a multiple of the source group, `dst.len()` the
/// matching output length) with the fastest kernel for the conversion.
pub fn convert_slice(conv: &Conversion, src: &[u8], dst: &mut [u8]) -> Stats {
    if conv.source_is_f64() {
        return element::convert_slice(conv, src, dst);
    }
    let (sg, dg) = (conv.src_group_bytes(), conv.dst_group_bytes());
    assert_eq!(src.len() / sg * dg, dst.len(), "output buffer size");
    let mut counter = FlagCounter::new();
    let mut scratch: Vec<u32> = Vec::with_capacity(BLOCK * 4);
    for (s, d) in src.chunks(BLOCK * sg).zip(dst.chunks_mut(BLOCK * dg)) {
        let values = widen_to_f32(conv.from, s, &mut scratch);
        encode_from_f32(conv, values, d, &mut counter);
    }
    counter.finish()
}

/// The source block as f32 patterns, exactly: one per element, or three per packed word.
fn widen_to_f32<'a>(from: Format, src: &'a [u8], scratch: &'a mut Vec<u32>) -> &'a [u32] {
    scratch.clear();
    match from {
        Format::Float(f) if f == F32 => {
            if cfg!(target_endian = "little")
                && let Ok(words) = bytemuck::try_cast_slice::<u8, u32>(src)
            {
                return words;
            }
            scratch.extend(
                src.chunks_exact(4)
                    .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes"))),
            );
        }
        Format::Float(f) if f.name == "f16" => {
            let halves: Vec<u16> = src
                .chunks_exact(2)
                .map(|b| u16::from_le_bytes([b[0], b[1]]))
                .collect();
            scratch.resize(halves.len(), 0);
            let out: &mut [f32] = bytemuck::cast_slice_mut(scratch.as_mut_slice());
            halves
                .reinterpret_cast::<half::f16>()
                .convert_to_f32_slice(out);
        }
        Format::Float(f) => {
            let table = small_float_table(f.frac_bits);
            let mask = f.mask() as usize;
            scratch.extend(
                src.chunks_exact(2)
                    .map(|b| table[u16::from_le_bytes([b[0], b[1]]) as usize & mask]),
            );
        }
        Format::R11G11B10 => {
            let (t11, t10) = (small_float_table(6), small_float_table(5));
            for b in src.chunks_exact(4) {
                let w = u32::from_le_bytes(b.try_into().expect("4 bytes")) as usize;
                scratch.extend([
                    t11[w & 0x7ff],
                    t11[(w >> 11) & 0x7ff],
                    t10[(w >> 22) & 0x3ff],
                ]);
            }
        }
        Format::Rgb9e5 => {
            for b in src.chunks_exact(4) {
                let w = u32::from_le_bytes(b.try_into().expect("4 bytes"));
                // mantissa * 2^(E - 24), exact in f32 (§19.3.2).
                let scale = pow2((w >> 27) as i32 - 24) as f32;
                scratch.extend([0, 9, 18].map(|s| (((w >> s) & 0x1ff) as f32 * scale).to_bits()));
            }
        }
    }
    scratch
}

/// f11 (`frac_bits` 6) or f10 (5) patterns to f32 patterns, built once from the core.
fn small_float_table(frac_bits: u32) -> &'static [u32] {
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

const RNE: u8 = 0;
const RTZ: u8 = 1;
const RTP: u8 = 2;
const RTN: u8 = 3;

/// Calls `$body` with `$m` bound to the rounding mode and `$s` to saturate as constants,
/// so each combination gets its own branch-free loop.
macro_rules! with_mode {
    ($opts:expr, |$m:ident, $s:ident| $body:expr) => {
        match ($opts.mode, $opts.saturate) {
            (Rounding::NearestEven, false) => {
                const $m: u8 = RNE;
                const $s: bool = false;
                $body
            }
            (Rounding::NearestEven, true) => {
                const $m: u8 = RNE;
                const $s: bool = true;
                $body
            }
            (Rounding::TowardZero, false) => {
                const $m: u8 = RTZ;
                const $s: bool = false;
                $body
            }
            (Rounding::TowardZero, true) => {
                const $m: u8 = RTZ;
                const $s: bool = true;
                $body
            }
            (Rounding::TowardPositive, false) => {
                const $m: u8 = RTP;
                const $s: bool = false;
                $body
            }
            (Rounding::TowardPositive, true) => {
                const $m: u8 = RTP;
                const $s: bool = true;
                $body
            }
            (Rounding::TowardNegative, false) => {
                const $m: u8 = RTN;
                const $s: bool = false;
                $body
            }
            (Rounding::TowardNegative, true) => {
                const $m: u8 = RTN;
                const $s: bool = true;
                $body
            }
        }
    };
}

fn encode_from_f32(conv: &Conversion, values: &[u32], dst: &mut [u8], c: &mut FlagCounter) {
    let from_packed = matches!(conv.from, Format::R11G11B10 | Format::Rgb9e5);
    match conv.to {
        Format::Float(f) if f == F32 => {
            float_target::<4>(values, dst, from_packed, conv.channels, c, same_f32)
        }
        Format::Float(f) if f.name == "f64" => {
            float_target::<8>(values, dst, from_packed, conv.channels, c, widen_f64)
        }
        Format::Float(f) => with_mode!(conv.opts, |M, S| match f.name {
            "f16" => float_target::<2>(values, dst, from_packed, conv.channels, c, |u| {
                narrow::<10, true, M, S>(u)
            }),
            "f11" => float_target::<2>(values, dst, from_packed, conv.channels, c, |u| {
                narrow::<6, false, M, S>(u)
            }),
            _ => float_target::<2>(values, dst, from_packed, conv.channels, c, |u| {
                narrow::<5, false, M, S>(u)
            }),
        }),
        Format::R11G11B10 => {
            let stride = if from_packed { 3 } else { conv.channels };
            with_mode!(conv.opts, |M, S| {
                for (v, o) in values.chunks_exact(stride).zip(dst.chunks_exact_mut(4)) {
                    let (r, fr, er) = narrow::<6, false, M, S>(v[0]);
                    let (g, fg, eg) = narrow::<6, false, M, S>(v[1]);
                    let (b, fb, eb) = narrow::<5, false, M, S>(v[2]);
                    c.add(fr, er);
                    c.add(fg, eg);
                    c.add(fb, eb);
                    let shifts = R11G11B10_CHANNELS.map(|(_, s)| s);
                    let w = (r << shifts[0]) | (g << shifts[1]) | (b << shifts[2]);
                    o.copy_from_slice(&(w as u32).to_le_bytes());
                }
            })
        }
        Format::Rgb9e5 => {
            let stride = if from_packed { 3 } else { conv.channels };
            with_mode!(conv.opts, |M, S| {
                let _ = S; // RGB9E5 always saturates (§19.3.2.2).
                for (v, o) in values.chunks_exact(stride).zip(dst.chunks_exact_mut(4)) {
                    let (w, flags, errs) = rgb9e5_pack::<M>([v[0], v[1], v[2]]);
                    for i in 0..3 {
                        c.add(flags[i], errs[i]);
                    }
                    o.copy_from_slice(&w.to_le_bytes());
                }
            })
        }
    }
}

/// Writes each value through `op` as an `N`-byte element. From a packed source, values come
/// three to a texel and a fourth channel (alpha) is written as 1.0 when asked for.
#[inline(always)]
fn float_target<const N: usize>(
    values: &[u32],
    dst: &mut [u8],
    from_packed: bool,
    channels: usize,
    c: &mut FlagCounter,
    op: impl Fn(u32) -> (u64, u32, f64),
) {
    let put = |o: &mut [u8], bits: u64| o.copy_from_slice(&bits.to_le_bytes()[..N]);
    if !from_packed || channels == 3 {
        for (&v, o) in values.iter().zip(dst.chunks_exact_mut(N)) {
            let (bits, flags, err) = op(v);
            c.add(flags, err);
            put(o, bits);
        }
    } else {
        let alpha = op(1f32.to_bits()).0;
        for (v, o) in values.chunks_exact(3).zip(dst.chunks_exact_mut(4 * N)) {
            for i in 0..3 {
                let (bits, flags, err) = op(v[i]);
                c.add(flags, err);
                put(&mut o[i * N..(i + 1) * N], bits);
            }
            put(&mut o[3 * N..], alpha);
        }
    }
}

const F32_NAN_QUIET: u32 = 1 << 22;

/// f32 to f32: NaN gets the quiet bit, as the core's NaN rule does.
#[inline(always)]
fn same_f32(u: u32) -> (u64, u32, f64) {
    let mag = u & 0x7fff_ffff;
    if mag > 0x7f80_0000 {
        (
            (u | F32_NAN_QUIET) as u64,
            flag::NAN_IN | flag::NAN_OUT,
            0.0,
        )
    } else {
        let subnormal = mag != 0 && mag < 0x0080_0000;
        (u as u64, if subnormal { flag::SUBNORMAL } else { 0 }, 0.0)
    }
}

/// f32 to f64: exact; NaN keeps its payload and gets the quiet bit.
#[inline(always)]
fn widen_f64(u: u32) -> (u64, u32, f64) {
    let mag = u & 0x7fff_ffff;
    if mag > 0x7f80_0000 {
        let sign = ((u >> 31) as u64) << 63;
        let bits = sign | 0x7ff8_0000_0000_0000 | (((mag & 0x7f_ffff) as u64) << 29);
        (bits, flag::NAN_IN | flag::NAN_OUT, 0.0)
    } else {
        ((f32::from_bits(u) as f64).to_bits(), 0, 0.0)
    }
}

/// f32 pattern to a 5-exponent-bit, bias-15 float with `F` fraction bits (f16: 10 and
/// signed; f11: 6, f10: 5, unsigned), rounded in mode `M`; `S` keeps finite values finite.
/// Returns the pattern, the flags and the error in ULPs of the result.
#[inline(always)]
fn narrow<const F: u32, const SIGNED: bool, const M: u8, const S: bool>(u: u32) -> (u64, u32, f64) {
    let neg = u >> 31 != 0;
    let mag = u & 0x7fff_ffff;
    let sign_out = if SIGNED && neg { 1u32 << (F + 5) } else { 0 };
    let inf_bits = 31u32 << F;
    if mag > 0x7f80_0000 {
        // Keep the top payload bits and set the top fraction bit.
        let bits = sign_out | inf_bits | ((mag & 0x7f_ffff) >> (23 - F)) | (1 << (F - 1));
        return (bits as u64, flag::NAN_IN | flag::NAN_OUT, 0.0);
    }
    if !SIGNED && neg {
        // §3.1.6: no sign, negatives (and -INF) clamp to 0; -0 is simply 0.
        let flags = if mag == 0 {
            0
        } else {
            flag::CLAMPED | flag::INEXACT
        };
        return (0, flags, 0.0);
    }
    if mag == 0x7f80_0000 || mag == 0 {
        let bits = sign_out | if mag == 0 { 0 } else { inf_bits };
        return (bits as u64, 0, 0.0);
    }
    let exp_field = (mag >> 23) as i32;
    let e = exp_field.max(1) - 127;
    let m = (mag & 0x7f_ffff) | (((exp_field != 0) as u32) << 23);
    let magnitude = f32::from_bits(mag) as f64;
    let (mag_bits, inexact) = if e >= 16 {
        (inf_bits, true)
    } else {
        // Bits of m below the target's last place; past 25 everything is under a half.
        let s = ((23 - F as i32) + (-14 - e).max(0)).min(25) as u32;
        let q = m >> s;
        let rem = m & ((1 << s) - 1);
        let half = 1 << (s - 1);
        let up = match M {
            RNE => rem > half || (rem == half && q & 1 == 1),
            RTZ => false,
            RTP => !neg && rem != 0,
            _ => neg && rem != 0,
        };
        ((((e + 14).max(0) as u32) << F) + q + up as u32, rem != 0)
    };
    if mag_bits >= inf_bits {
        let to_infinity = !S
            && match M {
                RNE => true,
                RTZ => false,
                RTP => !neg,
                _ => neg,
            };
        if to_infinity {
            return (
                (sign_out | inf_bits) as u64,
                flag::OVERFLOW | flag::INEXACT,
                0.0,
            );
        }
        let max = inf_bits - 1;
        let err = (((1u32 << (F + 1)) - 1) as f64 - magnitude * pow2(F as i32 - 15)).abs();
        return (
            (sign_out | max) as u64,
            flag::SATURATED | flag::INEXACT,
            err,
        );
    }
    let mut flags = if inexact { flag::INEXACT } else { 0 };
    if mag_bits == 0 {
        flags |= flag::FLUSHED;
    } else if mag_bits < 1 << F {
        flags |= flag::SUBNORMAL;
    }
    let exp_out = mag_bits >> F;
    let sig = (mag_bits & ((1 << F) - 1)) | (((exp_out != 0) as u32) << F);
    let ulp_exp = exp_out.max(1) as i32 - 15 - F as i32;
    let err = (sig as f64 - magnitude * pow2(-ulp_exp)).abs();
    ((sign_out | mag_bits) as u64, flags, err)
}

/// 65408.0 as f32: the largest RGB9E5 channel value.
const RGB9E5_MAX_F32: u32 = 0x477f_8000;

/// One channel's mantissa at shared exponent `big_e` (value * 2^(24 - E), rounded in `M`)
/// and the bits discarded; `v` is a non-negative f32 pattern no larger than 65408.
#[inline(always)]
fn rgb9e5_mantissa<const M: u8>(v: u32, big_e: i32) -> (u32, u32) {
    let exp_field = (v >> 23) as i32;
    let e = exp_field.max(1) - 127;
    let m = (v & 0x7f_ffff) | (((exp_field != 0) as u32) << 23);
    // The largest channel has e = E - 16, so s >= 15; smaller ones shift further.
    let s = (big_e - 1 - e).min(25) as u32;
    let q = m >> s;
    let rem = m & ((1 << s) - 1);
    let half = 1 << (s - 1);
    let up = match M {
        RNE => rem > half || (rem == half && q & 1 == 1),
        RTP => rem != 0,
        _ => false,
    };
    (q + up as u32, rem)
}

/// Three f32 patterns to an RGB9E5 word by §19.3.2.2, as `rgb9e5_encode` does it: clamp
/// to [0, 65408], shared exponent from the largest channel (IEEE exponent + 1 + 15), and
/// one step up when the largest mantissa rounds to 512.
#[inline(always)]
fn rgb9e5_pack<const M: u8>(rgb: [u32; 3]) -> (u32, [u32; 3], [f64; 3]) {
    let mut flags = [0u32; 3];
    let mut clamped = [0u32; 3];
    for i in 0..3 {
        let mag = rgb[i] & 0x7fff_ffff;
        (clamped[i], flags[i]) = if mag > 0x7f80_0000 {
            (0, flag::NAN_IN | flag::INEXACT)
        } else if rgb[i] >> 31 != 0 && mag != 0 {
            (0, flag::CLAMPED | flag::INEXACT)
        } else if mag > RGB9E5_MAX_F32 {
            (RGB9E5_MAX_F32, flag::SATURATED | flag::INEXACT)
        } else {
            (mag, 0)
        };
    }
    let largest = clamped[0].max(clamped[1]).max(clamped[2]);
    let mut big_e = ((largest >> 23) as i32 - 111).max(0);
    if rgb9e5_mantissa::<M>(largest, big_e).0 > 511 {
        big_e += 1;
    }
    let mut word = (big_e as u32) << 27;
    let mut errs = [0f64; 3];
    for i in 0..3 {
        let (q, rem) = rgb9e5_mantissa::<M>(clamped[i], big_e);
        word |= q << (9 * i);
        if flags[i] == 0 && rem != 0 {
            flags[i] = flag::INEXACT | if q == 0 { flag::FLUSHED } else { 0 };
        }
        let input = f32::from_bits(rgb[i]);
        if flags[i] & (flag::NAN_IN | flag::CLAMPED) == 0 && input.is_finite() {
            errs[i] = (q as f64 - input as f64 * pow2(24 - big_e)).abs();
        }
    }
    (word, flags, errs)
}
