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
use super::summary::{Stats, flag, pow2};
use crate::format::{F10, F11, F16, F32, F64, Format, Rounding, round_f64};

/// Groups per block: the widened f32 patterns of a block stay in the L1 cache.
const BLOCK: usize = 1024;

/// Calls the AVX2 copy of a vector pass when the CPU has it, the portable one otherwise.
macro_rules! vector_pass {
    ($avx2:path, $generic:path, $($arg:expr),*) => {{
        #[cfg(target_arch = "x86_64")]
        let result = if has_avx2() {
            // SAFETY: the CPU has AVX2, checked just above.
            unsafe { $avx2($($arg),*) }
        } else {
            $generic($($arg),*)
        };
        #[cfg(not(target_arch = "x86_64"))]
        let result = $generic($($arg),*);
        result
    }};
}

/// Converts whole groups (`src.len()` a multiple of the source group, `dst.len()` the
/// matching output length) with the fastest kernel for the conversion.
pub fn convert_slice(conv: &Conversion, src: &[u8], dst: &mut [u8]) -> Stats {
    if conv.source_is_f64() {
        return element::convert_slice(conv, src, dst);
    }
    let (sg, dg) = (conv.src_group_bytes(), conv.dst_group_bytes());
    assert_eq!(src.len() / sg * dg, dst.len(), "output buffer size");
    let mut stats = Stats::default();
    let direct = widens_directly(conv);
    let mut scratch: Vec<u32> = Vec::with_capacity(BLOCK * 4);
    for (s, d) in src.chunks(BLOCK * sg).zip(dst.chunks_mut(BLOCK * dg)) {
        if direct {
            widen_into_f32(conv.from, s, d, &mut stats);
        } else {
            let values = widen_to_f32(conv.from, s, &mut scratch);
            encode_from_f32(conv, values, d, &mut stats);
        }
    }
    stats
}

/// Whether the output is exactly the widened f32 patterns (unpacking to f32 without alpha,
/// or f16/f11/f10 to f32), so they can be written straight into it.
fn widens_directly(conv: &Conversion) -> bool {
    let from_ok = match conv.from {
        Format::Float(f) => f != F32 && f != F64,
        Format::R11G11B10 | Format::Rgb9e5 => conv.channels == 3,
    };
    conv.to == Format::Float(F32) && from_ok
}

/// Widens a block straight into the output, then counts (and quiets) its NaNs in place:
/// widening is exact, so NaN in = NaN out is all there is to count.
fn widen_into_f32(from: Format, src: &[u8], dst: &mut [u8], stats: &mut Stats) {
    with_elements::<u32>(dst, |out| {
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
fn quiet_nans_generic(out: &mut [u32]) -> (u32, u32) {
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
fn widen_to_f32<'a>(from: Format, src: &'a [u8], scratch: &'a mut Vec<u32>) -> &'a [u32] {
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
fn widen_into(from: Format, src: &[u8], out: &mut [u32]) {
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
                let scale = pow2((w >> 27) as i32 - 24) as f32;
                for (i, v) in o.iter_mut().enumerate() {
                    *v = (((w >> (9 * i)) & 0x1ff) as f32 * scale).to_bits();
                }
            }
        }
    }
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

/// One lane's answer: the output pattern, its flags ([`flag`]) and its error in ULPs of
/// the result (0 where none is measured).
type Lane = (u64, u32, f64);

/// Counts of one block, kept in plain locals so the loops around them vectorise.
#[derive(Default)]
struct Tally {
    counts: [u32; 8],
    max_err_bits: i64,
    values: u32,
}

impl Tally {
    #[inline(always)]
    fn add(&mut self, flags: u32, err: f64) {
        for (i, c) in self.counts.iter_mut().enumerate() {
            *c += (flags >> i) & 1;
        }
        // Errors are never negative, so their bit patterns order like the values.
        self.max_err_bits = self.max_err_bits.max(err.to_bits() as i64);
        self.values += 1;
    }

    fn into_stats(self, stats: &mut Stats) {
        let c = self.counts.map(u64::from);
        stats.merge(&Stats {
            values: self.values as u64,
            inexact: c[0],
            saturated: c[1],
            overflow_to_infinity: c[2],
            nan_in: c[3],
            nan_out: c[4],
            clamped_negative: c[5],
            subnormal_out: c[6],
            flushed_to_zero: c[7],
            max_ulp_error: f64::from_bits(self.max_err_bits as u64),
        });
    }
}

/// Whether the CPU has AVX2; the lane loops are compiled twice, with and without it.
#[inline(always)]
fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Defines `$name` (same signature as `$generic`) that runs `$generic` compiled for AVX2
/// when the CPU has it, so the branch-free lane code becomes 8-wide vector code.
macro_rules! multiversion {
    (fn $name:ident<$($g:ident: $b:path),*>($($a:ident: $t:ty),*) => $generic:ident) => {
        fn $name<$($g: $b),*>($($a: $t),*) {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx2")]
                fn with_avx2<$($g: $b),*>($($a: $t),*) {
                    $generic($($a),*)
                }
                if has_avx2() {
                    // SAFETY: the CPU has AVX2, checked just above.
                    return unsafe { with_avx2($($a),*) };
                }
            }
            $generic($($a),*)
        }
    };
}

/// An output element type: u16 (f16, f11, f10), u32 (f32, packed words), u64 (f64).
trait Element: bytemuck::Pod {
    fn from_bits(bits: u64) -> Self;
}

impl Element for u16 {
    #[inline(always)]
    fn from_bits(bits: u64) -> u16 {
        bits as u16
    }
}

impl Element for u32 {
    #[inline(always)]
    fn from_bits(bits: u64) -> u32 {
        bits as u32
    }
}

impl Element for u64 {
    #[inline(always)]
    fn from_bits(bits: u64) -> u64 {
        bits
    }
}

/// Runs `write` on `dst` viewed as `T` elements (little-endian), through a scratch copy
/// when the bytes are not aligned for `T`.
#[inline(always)]
fn with_elements<T: Element>(dst: &mut [u8], write: impl FnOnce(&mut [T])) {
    if cfg!(target_endian = "little")
        && let Ok(out) = bytemuck::try_cast_slice_mut::<u8, T>(dst)
    {
        return write(out);
    }
    let mut tmp = vec![T::zeroed(); dst.len() / std::mem::size_of::<T>()];
    write(&mut tmp);
    for (chunk, v) in dst.chunks_exact_mut(std::mem::size_of::<T>()).zip(&tmp) {
        let bytes = bytemuck::bytes_of(v);
        if cfg!(target_endian = "little") {
            chunk.copy_from_slice(bytes);
        } else {
            chunk
                .iter_mut()
                .zip(bytes.iter().rev())
                .for_each(|(d, s)| *d = *s);
        }
    }
}

#[inline(always)]
fn lanes_generic<T: Element, Op: Fn(u32) -> Lane>(
    values: &[u32],
    out: &mut [T],
    tally: &mut Tally,
    op: Op,
) {
    for (&v, o) in values.iter().zip(out.iter_mut()) {
        let (bits, flags, err) = op(v);
        *o = T::from_bits(bits);
        tally.add(flags, err);
    }
}

multiversion!(fn lanes<T: Element, Op: Fn(u32) -> Lane>(values: &[u32], out: &mut [T], tally: &mut Tally, op: Op) => lanes_generic);

/// From a packed source: three values per texel, and alpha 1.0 after them when asked.
#[inline(always)]
fn texels_generic<T: Element, Op: Fn(u32) -> Lane>(
    values: &[u32],
    out: &mut [T],
    tally: &mut Tally,
    op: Op,
) {
    let alpha = T::from_bits(op(1f32.to_bits()).0);
    for (v, o) in values.chunks_exact(3).zip(out.chunks_exact_mut(4)) {
        for i in 0..3 {
            let (bits, flags, err) = op(v[i]);
            o[i] = T::from_bits(bits);
            tally.add(flags, err);
        }
        o[3] = alpha;
    }
}

multiversion!(fn texels<T: Element, Op: Fn(u32) -> Lane>(values: &[u32], out: &mut [T], tally: &mut Tally, op: Op) => texels_generic);

/// Elementwise to a float target, or from a packed source's texels.
#[inline(always)]
fn float_target<T: Element>(
    values: &[u32],
    dst: &mut [u8],
    from_packed: bool,
    channels: usize,
    tally: &mut Tally,
    op: impl Fn(u32) -> Lane,
) {
    with_elements::<T>(dst, |out| {
        if !from_packed || channels == 3 {
            lanes(values, out, tally, op)
        } else {
            texels(values, out, tally, op)
        }
    })
}

#[inline(always)]
fn rgb9e5_generic<const M: u8>(values: &[u32], stride: usize, out: &mut [u32], tally: &mut Tally) {
    for (v, o) in values.chunks_exact(stride).zip(out.iter_mut()) {
        let (w, flags, errs) = rgb9e5_pack::<M>([v[0], v[1], v[2]]);
        for i in 0..3 {
            tally.add(flags[i], errs[i]);
        }
        *o = w;
    }
}

fn encode_from_f32(conv: &Conversion, values: &[u32], dst: &mut [u8], stats: &mut Stats) {
    let from_packed = matches!(conv.from, Format::R11G11B10 | Format::Rgb9e5);
    let ch = conv.channels;
    let mut tally = Tally::default();
    let t = &mut tally;
    match conv.to {
        Format::Float(f) if f == F32 => {
            float_target::<u32>(values, dst, from_packed, ch, t, same_f32)
        }
        Format::Float(f) if f == F64 => {
            float_target::<u64>(values, dst, from_packed, ch, t, widen_f64)
        }
        Format::Float(f) if !from_packed => with_mode!(conv.opts, |M, S| match f.frac_bits {
            10 => narrow_block::<10, true, M, S>(values, dst, stats),
            6 => narrow_block::<6, false, M, S>(values, dst, stats),
            _ => narrow_block::<5, false, M, S>(values, dst, stats),
        }),
        Format::Float(f) => with_mode!(conv.opts, |M, S| match f.frac_bits {
            10 => float_target::<u16>(values, dst, from_packed, ch, t, narrow::<10, true, M, S>),
            6 => float_target::<u16>(values, dst, from_packed, ch, t, narrow::<6, false, M, S>),
            _ => float_target::<u16>(values, dst, from_packed, ch, t, narrow::<5, false, M, S>),
        }),
        Format::R11G11B10 => {
            let stride = if from_packed { 3 } else { ch };
            with_mode!(conv.opts, |M, S| r11g11b10_block::<M, S>(
                values, stride, dst, stats
            ))
        }
        Format::Rgb9e5 => {
            let stride = if from_packed { 3 } else { ch };
            // RGB9E5 always saturates (§19.3.2.2): --saturate changes nothing.
            with_mode!(conv.opts, |M, _S| rgb9e5_block::<M>(
                values, stride, dst, stats
            ))
        }
    }
    tally.into_stats(stats);
}

/// `a` where `c`, else `b`, written so that both sides are computed (no branch).
#[inline(always)]
fn pick(c: bool, a: u32, b: u32) -> u32 {
    let mask = (c as u32).wrapping_neg();
    (a & mask) | (b & !mask)
}

#[inline(always)]
fn bit(c: bool, f: u32) -> u32 {
    (c as u32) * f
}

const F32_NAN_QUIET: u32 = 1 << 22;

/// f32 to f32: NaN gets the quiet bit, as the core's NaN rule does.
#[inline(always)]
fn same_f32(u: u32) -> Lane {
    let mag = u & 0x7fff_ffff;
    let nan = mag > 0x7f80_0000;
    let subnormal = mag != 0 && mag < 0x0080_0000;
    let bits = u | bit(nan, F32_NAN_QUIET);
    let flags = bit(nan, flag::NAN_IN | flag::NAN_OUT) | bit(subnormal, flag::SUBNORMAL);
    (bits as u64, flags, 0.0)
}

/// f32 to f64: exact; NaN keeps its payload and gets the quiet bit.
#[inline(always)]
fn widen_f64(u: u32) -> Lane {
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

/// f32 pattern to a 5-exponent-bit, bias-15 float with `F` fraction bits (f16: 10 and
/// signed; f11: 6, f10: 5, unsigned), rounded in mode `M`; `S` keeps finite values finite.
/// Branch-free: every case is computed and the right one picked, so it vectorises.
#[inline(always)]
fn narrow<const F: u32, const SIGNED: bool, const M: u8, const S: bool>(u: u32) -> Lane {
    let neg = u >> 31 != 0;
    let mag = u & 0x7fff_ffff;
    let frac = mag & 0x7f_ffff;
    let exp_field = mag >> 23;
    let nan = mag > 0x7f80_0000;
    let inf = mag == 0x7f80_0000;
    // §3.1.6: no sign, so negatives (and -INF) become 0; -0 is simply 0. NaN stays NaN.
    let negative_to_zero = !SIGNED && neg && !nan;
    let clamped = negative_to_zero && mag != 0;
    let inf_bits = 31u32 << F;

    // Finite: the significand m at exponent e, shifted right by s to the target's last
    // place (past 25 everything is under a half), rounded, and the exponent added back.
    let m = frac | ((exp_field != 0) as u32) << 23;
    let e = exp_field.max(1) as i32 - 127;
    let s = ((23 - F as i32) + (-14 - e).max(0)).min(25) as u32;
    let q = m >> s;
    let rem = m & ((1u32 << s) - 1);
    let half = (1u32 << s) >> 1;
    let up = match M {
        RNE => (rem > half) | ((rem == half) & (q & 1 == 1)),
        RTZ => false,
        RTP => !neg & (rem != 0),
        _ => neg & (rem != 0),
    };
    // A carry out of the significand moves into the exponent by itself.
    let mag_bits = ((((e + 14).max(0)) as u32) << F) + q + up as u32;
    let finite = !nan && !inf && !negative_to_zero;
    let overflow = finite && mag_bits >= inf_bits;
    let to_infinity = !S
        && match M {
            RNE => true,
            RTZ => false,
            RTP => !neg,
            _ => neg,
        };
    let result = pick(
        overflow,
        pick(to_infinity, inf_bits, inf_bits - 1),
        mag_bits,
    );
    let nan_bits = inf_bits | (frac >> (23 - F)) | (1 << (F - 1));
    let sign_out = if SIGNED { (u >> 31) << (F + 5) } else { 0 };
    let bits = pick(
        negative_to_zero,
        0,
        sign_out | pick(nan, nan_bits, pick(inf, inf_bits, result)),
    );

    let in_range = finite && !overflow;
    let flags = bit(clamped || (finite && (rem != 0 || overflow)), flag::INEXACT)
        | bit(overflow && !to_infinity, flag::SATURATED)
        | bit(overflow && to_infinity, flag::OVERFLOW)
        | bit(nan, flag::NAN_IN | flag::NAN_OUT)
        | bit(clamped, flag::CLAMPED)
        | bit(
            in_range && mag_bits != 0 && mag_bits < 1 << F,
            flag::SUBNORMAL,
        )
        | bit(in_range && mag != 0 && mag_bits == 0, flag::FLUSHED);

    // |result - input| in ULPs of the result, with the core's own operations: both sides
    // scaled by 2^-ulp_exp (exact), then one subtraction.
    let exp_out = result >> F;
    let sig = (result & ((1 << F) - 1)) | (((exp_out != 0) as u32) << F);
    let ulp_exp = exp_out.max(1) as i32 - 15 - F as i32;
    let magnitude = f32::from_bits(mag) as f64;
    let err = (sig as f64 - magnitude * pow2(-ulp_exp)).abs();
    let measured = finite && !(overflow && to_infinity);
    (bits as u64, flags, if measured { err } else { 0.0 })
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
        RNE => (rem > half) | ((rem == half) & (q & 1 == 1)),
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
        let nan = mag > 0x7f80_0000;
        let negative = !nan && rgb[i] >> 31 != 0 && mag != 0;
        let over = !nan && !negative && mag > RGB9E5_MAX_F32;
        clamped[i] = pick(nan || negative, 0, pick(over, RGB9E5_MAX_F32, mag));
        flags[i] = bit(nan, flag::NAN_IN | flag::INEXACT)
            | bit(negative, flag::CLAMPED | flag::INEXACT)
            | bit(over, flag::SATURATED | flag::INEXACT);
    }
    let largest = clamped[0].max(clamped[1]).max(clamped[2]);
    let first_e = ((largest >> 23) as i32 - 111).max(0);
    let big_e = first_e + (rgb9e5_mantissa::<M>(largest, first_e).0 > 511) as i32;
    let mut word = (big_e as u32) << 27;
    let mut errs = [0f64; 3];
    for i in 0..3 {
        let (q, rem) = rgb9e5_mantissa::<M>(clamped[i], big_e);
        word |= q << (9 * i);
        let plain = flags[i] == 0;
        flags[i] |=
            bit(plain && rem != 0, flag::INEXACT) | bit(plain && rem != 0 && q == 0, flag::FLUSHED);
        let input = f32::from_bits(rgb[i]);
        let measured = flags[i] & (flag::NAN_IN | flag::CLAMPED) == 0 && input.is_finite();
        let err = (q as f64 - input as f64 * pow2(24 - big_e)).abs();
        errs[i] = if measured { err } else { 0.0 };
    }
    (word, flags, errs)
}

/// What the vector pass counted over the ordinary lanes of a block.
#[derive(Clone, Copy, Default)]
struct Ordinary {
    inexact: u32,
    flushed: u32,
    subnormal: u32,
    /// The largest error in units of 2^-26 ULPs (f16, f11, f10 and R11G11B10).
    max_units: u32,
    /// For RGB9E5: the largest error itself, as the bits of a non-negative f64.
    max_err_bits: i64,
}

impl Ordinary {
    /// Counts a lane when it was ordinary (`ok`); branch-free.
    #[inline(always)]
    fn add(&mut self, ok: bool, lane: OrdinaryLane) {
        let ok = ok as u32;
        self.inexact += ok & lane.inexact;
        self.flushed += ok & lane.flushed;
        self.subnormal += ok & lane.subnormal;
        self.max_units = self.max_units.max(ok.wrapping_neg() & lane.units);
    }
}

/// What the vector pass computes for one ordinary lane.
#[derive(Clone, Copy)]
struct OrdinaryLane {
    bits: u32,
    /// 1 or 0 (plain integers rather than bools keep the loops vectorised).
    inexact: u32,
    subnormal: u32,
    flushed: u32,
    /// The error in ULPs of the result, in units of 2^-26.
    units: u32,
}

/// The bits of f32 pattern `u` in a 5-exponent-bit, bias-15 format with `F` fraction bits,
/// when `u` is ±0 or in the target's normal range up to its largest finite value (so no
/// NaN, INF, subnormal, clamping or overflow can happen): a rebias, a fixed shift and a
/// rounding increment, a dozen integer operations that vectorise well. The error is then a
/// whole number of 2^-26 ULPs of the result: the discarded part over 2^s, halved when
/// rounding carried into the next binade (whose ULP is twice as large).
#[inline(always)]
fn narrow_ordinary_lane<const F: u32, const SIGNED: bool, const M: u8>(u: u32) -> OrdinaryLane {
    let s = 23 - F;
    let neg = u >> 31 != 0;
    let mag = u & 0x7fff_ffff;
    let q = mag.wrapping_sub((127 - 15) << 23) >> s;
    let rem = mag & ((1 << s) - 1);
    let half = 1 << (s - 1);
    let up = match M {
        RNE => (rem > half) | ((rem == half) & (q & 1 == 1)),
        RTZ => false,
        RTP => !neg & (rem != 0),
        _ => neg & (rem != 0),
    };
    let carried = up & ((q + 1) & ((1 << F) - 1) == 0);
    let diff = if up { (1 << s) - rem } else { rem };
    let units = if carried {
        diff << (25 - s)
    } else {
        diff << (26 - s)
    };
    let sign_out = if SIGNED { (u >> 31) << (F + 5) } else { 0 };
    let nonzero = (mag != 0) as u32;
    OrdinaryLane {
        bits: sign_out | (q + up as u32) & nonzero.wrapping_neg(),
        inexact: (rem != 0) as u32,
        subnormal: 0,
        flushed: 0,
        units,
    }
}

/// Whether `u` can take the ordinary path into the format with `F` fraction bits.
#[inline(always)]
fn is_ordinary<const F: u32, const SIGNED: bool>(u: u32) -> bool {
    let min_normal = (127 - 14) << 23;
    let max_finite = ((15 + 127) << 23) | (((1 << F) - 1) << (23 - F));
    // Unsigned formats: the sign bit makes a negative fail the range test.
    let v = if SIGNED { u & 0x7fff_ffff } else { u };
    (v.wrapping_sub(min_normal) <= max_finite - min_normal) | (u & 0x7fff_ffff == 0)
}

/// The vector pass over a block of f16/f11/f10 output: every lane gets the ordinary
/// answer, and the counts take only the ordinary lanes. Returns those counts and the number
/// of lanes left for [`narrow`].
#[inline(always)]
fn narrow_vector_generic<const F: u32, const SIGNED: bool, const M: u8>(
    values: &[u32],
    out: &mut [u16],
) -> (Ordinary, u32) {
    let mut o = Ordinary::default();
    let mut exceptions = 0u32;
    for (&u, d) in values.iter().zip(out.iter_mut()) {
        let ok = is_ordinary::<F, SIGNED>(u);
        let lane = narrow_ordinary_lane::<F, SIGNED, M>(u);
        *d = lane.bits as u16;
        o.add(ok, lane);
        exceptions += !ok as u32;
    }
    (o, exceptions)
}

/// What the RGB9E5 vector pass found in one texel.
#[derive(Clone, Copy)]
struct Rgb9e5Texel {
    word: u32,
    ok: bool,
    inexact: u32,
    flushed: u32,
    /// The largest error of the channels within 25 bits of the shared exponent, in units
    /// of 2^-26 ULPs (exact: the discarded part over 2^shift).
    near_units: u32,
    /// Channels further below the shared exponent (mantissa 0 or 1), whose errors are
    /// m * 2^-shift or 1 - m * 2^-shift and need an f64; only counted here.
    far_zero: u32,
    far_one: u32,
}

/// An RGB9E5 texel on the vector path: every channel ±0 or in (0, 65408] (no NaN,
/// negative or saturated channel) makes it ordinary. Integer operations only.
#[inline(always)]
fn rgb9e5_ordinary_texel<const M: u8>(rgb: [u32; 3]) -> Rgb9e5Texel {
    let mut ok = true;
    let mut mags = [0u32; 3];
    for i in 0..3 {
        let mag = rgb[i] & 0x7fff_ffff;
        ok &= (mag <= RGB9E5_MAX_F32) & ((rgb[i] >> 31 == 0) | (mag == 0));
        mags[i] = mag;
    }
    let largest = mags[0].max(mags[1]).max(mags[2]);
    let first_e = ((largest >> 23) as i32 - 111).max(0);
    let big_e = first_e + (rgb9e5_mantissa::<M>(largest, first_e).0 > 511) as i32;
    let mut t = Rgb9e5Texel {
        word: (big_e as u32) << 27,
        ok,
        inexact: 0,
        flushed: 0,
        near_units: 0,
        far_zero: 0,
        far_one: 0,
    };
    for (i, &mag) in mags.iter().enumerate() {
        let exp_field = (mag >> 23) as i32;
        // The channel's value is m * 2^-shift ULPs of the shared exponent.
        let shift = big_e - 1 - (exp_field.max(1) - 127);
        let (q, rem) = rgb9e5_mantissa::<M>(mag, big_e);
        t.word |= q << (9 * i);
        let m = (mag & 0x7f_ffff) | (((exp_field != 0) as u32) << 23);
        let s = shift.clamp(0, 25) as u32;
        // q << s <= m + 2^s <= 2^26: no overflow.
        let units = (q << s).abs_diff(m) << (26 - s);
        let near = (shift <= 25) | (mag == 0);
        t.near_units = t.near_units.max(if near { units } else { 0 });
        t.far_zero += (!near & (q == 0)) as u32;
        t.far_one += (!near & (q != 0)) as u32;
        t.inexact += (rem != 0) as u32;
        t.flushed += ((q == 0) & (rem != 0)) as u32;
    }
    t
}

/// The exact largest error of an ordinary texel's far channels, as the core computes it
/// (one rounding of the exact difference, scaled by powers of two).
fn rgb9e5_far_error<const M: u8>(rgb: [u32; 3]) -> f64 {
    let mags = rgb.map(|u| u & 0x7fff_ffff);
    let largest = mags[0].max(mags[1]).max(mags[2]);
    let first_e = ((largest >> 23) as i32 - 111).max(0);
    let big_e = first_e + (rgb9e5_mantissa::<M>(largest, first_e).0 > 511) as i32;
    let mut max_err = 0f64;
    for mag in mags {
        let exp_field = (mag >> 23) as i32;
        let shift = big_e - 1 - (exp_field.max(1) - 127);
        if shift > 25 && mag != 0 {
            let (q, _) = rgb9e5_mantissa::<M>(mag, big_e);
            let m = (mag & 0x7f_ffff) | (((exp_field != 0) as u32) << 23);
            let err = (q as f64 * pow2(shift) - m as f64).abs() * pow2(-shift);
            max_err = max_err.max(err);
        }
    }
    max_err
}

/// Counts of the RGB9E5 vector pass over a block.
#[derive(Clone, Copy, Default)]
struct Rgb9e5Pass {
    ordinary: Ordinary,
    exceptions: u32,
    far_zero: u32,
    far_one: u32,
}

#[inline(always)]
fn rgb9e5_vector_generic<const M: u8, const STRIDE: usize>(
    values: &[u32],
    out: &mut [u32],
) -> Rgb9e5Pass {
    let mut p = Rgb9e5Pass::default();
    for (v, d) in values.chunks_exact(STRIDE).zip(out.iter_mut()) {
        let t = rgb9e5_ordinary_texel::<M>([v[0], v[1], v[2]]);
        *d = t.word;
        let keep = |x: u32| if t.ok { x } else { 0 };
        p.ordinary.inexact += keep(t.inexact);
        p.ordinary.flushed += keep(t.flushed);
        p.ordinary.max_units = p.ordinary.max_units.max(keep(t.near_units));
        p.far_zero += keep(t.far_zero);
        p.far_one += keep(t.far_one);
        p.exceptions += !t.ok as u32;
    }
    p
}

#[cfg(target_arch = "x86_64")]
mod avx2_vector {
    use super::Ordinary;

    #[target_feature(enable = "avx2")]
    pub fn quiet_nans(out: &mut [u32]) -> (u32, u32) {
        super::quiet_nans_generic(out)
    }

    #[target_feature(enable = "avx2")]
    pub fn narrow<const F: u32, const SIGNED: bool, const M: u8>(
        values: &[u32],
        out: &mut [u16],
    ) -> (Ordinary, u32) {
        super::narrow_vector_generic::<F, SIGNED, M>(values, out)
    }

    #[target_feature(enable = "avx2")]
    pub fn rgb9e5<const M: u8, const STRIDE: usize>(
        values: &[u32],
        out: &mut [u32],
    ) -> super::Rgb9e5Pass {
        super::rgb9e5_vector_generic::<M, STRIDE>(values, out)
    }
}

/// Adds the ordinary lanes' counts for `n` values.
fn add_ordinary(stats: &mut Stats, n: u32, o: Ordinary) {
    stats.merge(&Stats {
        values: n as u64,
        inexact: o.inexact as u64,
        flushed_to_zero: o.flushed as u64,
        subnormal_out: o.subnormal as u64,
        max_ulp_error: (o.max_units as f64 * pow2(-26)).max(f64::from_bits(o.max_err_bits as u64)),
        ..Stats::default()
    });
}

/// f32 values to f16/f11/f10: the vector pass, then the exact lane code for what it left.
fn narrow_block<const F: u32, const SIGNED: bool, const M: u8, const S: bool>(
    values: &[u32],
    dst: &mut [u8],
    stats: &mut Stats,
) {
    with_elements::<u16>(dst, |out| {
        let (o, exceptions) = vector_pass!(
            avx2_vector::narrow::<F, SIGNED, M>,
            narrow_vector_generic::<F, SIGNED, M>,
            values,
            out
        );
        add_ordinary(stats, values.len() as u32 - exceptions, o);
        if exceptions > 0 {
            let mut tally = Tally::default();
            for (&u, d) in values.iter().zip(out.iter_mut()) {
                if !is_ordinary::<F, SIGNED>(u) {
                    let (bits, flags, err) = narrow::<F, SIGNED, M, S>(u);
                    *d = bits as u16;
                    tally.add(flags, err);
                }
            }
            tally.into_stats(stats);
        }
    })
}

fn r11g11b10_block<const M: u8, const S: bool>(
    values: &[u32],
    stride: usize,
    dst: &mut [u8],
    stats: &mut Stats,
) {
    // The channels round independently (§19.3.3), so each is taken out into its own
    // array and narrowed there by the elementwise kernel, then the words are joined.
    let texels = values.len() / stride;
    debug_assert!(texels <= BLOCK);
    let mut planes = [[0u32; BLOCK]; 3];
    for (t, v) in values.chunks_exact(stride).enumerate() {
        for c in 0..3 {
            planes[c][t] = v[c];
        }
    }
    let mut bits = [[0u16; BLOCK]; 3];
    narrow_block::<6, false, M, S>(
        &planes[0][..texels],
        bytemuck::cast_slice_mut(&mut bits[0][..texels]),
        stats,
    );
    narrow_block::<6, false, M, S>(
        &planes[1][..texels],
        bytemuck::cast_slice_mut(&mut bits[1][..texels]),
        stats,
    );
    narrow_block::<5, false, M, S>(
        &planes[2][..texels],
        bytemuck::cast_slice_mut(&mut bits[2][..texels]),
        stats,
    );
    with_elements::<u32>(dst, |out| {
        for (t, o) in out.iter_mut().enumerate() {
            *o = bits[0][t] as u32 | (bits[1][t] as u32) << 11 | (bits[2][t] as u32) << 22;
        }
    })
}

fn rgb9e5_block<const M: u8>(values: &[u32], stride: usize, dst: &mut [u8], stats: &mut Stats) {
    with_elements::<u32>(dst, |out| {
        let pass = if stride == 3 {
            vector_pass!(
                avx2_vector::rgb9e5::<M, 3>,
                rgb9e5_vector_generic::<M, 3>,
                values,
                out
            )
        } else {
            vector_pass!(
                avx2_vector::rgb9e5::<M, 4>,
                rgb9e5_vector_generic::<M, 4>,
                values,
                out
            )
        };
        let mut o = pass.ordinary;
        // A far channel's error is below 1/4 ULP when its mantissa is 0 and above 3/4 when
        // it is 1: it can only be the block's largest if nothing near reached that far.
        let quarter = 1 << 24;
        if pass.far_one > 0 || (pass.far_zero > 0 && o.max_units < quarter) {
            let far = values
                .chunks_exact(stride)
                .filter(|v| v[..3].iter().all(|&u| rgb9e5_plain(u)))
                .map(|v| rgb9e5_far_error::<M>([v[0], v[1], v[2]]))
                .fold(0f64, f64::max);
            o.max_err_bits = far.to_bits() as i64;
        }
        let ordinary = (values.len() / stride) as u32 - pass.exceptions;
        add_ordinary(stats, 3 * ordinary, o);
        if pass.exceptions > 0 {
            let mut tally = Tally::default();
            for (v, d) in values.chunks_exact(stride).zip(out.iter_mut()) {
                if !v[..3].iter().all(|&u| rgb9e5_plain(u)) {
                    rgb9e5_generic::<M>(v, stride, std::slice::from_mut(d), &mut tally);
                }
            }
            tally.into_stats(stats);
        }
    })
}

/// Whether an RGB9E5 channel can take the vector pass: ±0 or in (0, 65408].
#[inline(always)]
fn rgb9e5_plain(u: u32) -> bool {
    let mag = u & 0x7fff_ffff;
    (mag <= RGB9E5_MAX_F32) & ((u >> 31 == 0) | (mag == 0))
}
