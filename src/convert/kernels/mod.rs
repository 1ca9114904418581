//! Fast slice kernels: the same answers as the per-element core in [`super::element`]
//! (bit for bit, counts included; the tests compare them), computed on `u32` patterns with
//! integer operations instead of exact rationals.
//!
//! Every source other than f64 is first widened exactly to f32 patterns (f16 with the F16C
//! instructions where the CPU has them, through the `half` crate); the target side then
//! works from f32 patterns only. f64 sources go through the core itself.
//!
//! Every block takes a vector pass whatever it holds: a short pass when its values are
//! ordinary for the target, a full pass (NaN, INF, overflow, saturation, negatives into
//! unsigned formats, subnormal and flushed results, every count exact) otherwise; no lane
//! falls back to per-value code.
//!
//! Dispatch and the shared lane machinery live here; `widen` holds the exact widening
//! to f32 (and the f32/f64 targets), `narrow` the f16/f11/f10 and R11G11B10 targets,
//! `rgb9e5` the shared-exponent target, and `f16c` the F16C passes of f32 <-> f16.
//! `narrow::x86` and `rgb9e5::x86` hold AVX2 passes in float arithmetic (f11/f10 and
//! R11G11B10 full passes, RGB9E5 short and full passes over packed texels), and
//! `widen::x86` unpacks R11G11B10 with F16C; each is tested against the portable pass it
//! stands in for.

use super::Conversion;
use super::element;
use super::summary::{Stats, flag};
use crate::format::pow2::pow2_normal as pow2;
use crate::format::{F16, F32, F64, Format, Rounding};

/// Groups per block: the widened f32 patterns of a block stay in the L1 cache.
const BLOCK: usize = 1024;

/// Calls the AVX2 copy of a vector pass when the CPU has it, the portable one otherwise.
macro_rules! vector_pass {
    ($avx2:path, $generic:path, $($arg:expr),*) => {{
        #[cfg(target_arch = "x86_64")]
        let result = if $crate::convert::kernels::has_avx2() {
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

mod f16c;
mod narrow;
mod rgb9e5;
mod widen;
#[cfg(target_arch = "x86_64")]
mod x86;

use narrow::{narrow, narrow_block, r11g11b10_block};
use rgb9e5::rgb9e5_block;
use widen::{same_f32, widen_f64, widen_into_f32, widen_to_f32};

/// Converts whole groups (`src.len()` a multiple of the source group, `dst.len()` the
/// matching output length) with the fastest kernel for the conversion.
pub fn convert_slice(conv: &Conversion, src: &[u8], dst: &mut [u8]) -> Stats {
    let mut stats = Stats::default();
    convert_slice_into(conv, src, dst, &mut stats);
    stats
}

/// [`convert_slice`], adding its counts to `stats`: a stream's counts so far, whose
/// largest error can spare the f16 passes measuring errors that cannot change it.
pub fn convert_slice_into(conv: &Conversion, src: &[u8], dst: &mut [u8], stats: &mut Stats) {
    if conv.source_is_f64() {
        stats.merge(&element::convert_slice(conv, src, dst));
        return;
    }
    let (sg, dg) = (conv.src_group_bytes(), conv.dst_group_bytes());
    assert_eq!(src.len() / sg * dg, dst.len(), "output buffer size");
    let direct = widens_directly(conv);
    let mut scratch: Vec<u32> = Vec::with_capacity(BLOCK * 4);
    // f32 sources are read in place (no widened copy to keep in L1), so their blocks can
    // be longer, which spreads the per-block work (dispatch, counts) thinner; for the
    // float targets and RGB9E5 (one word a texel, little per-block work to spare). Longer
    // still for f16, whose F16C short pass hands the full pass only the run with a value
    // it cannot take, not the rest of the block: 8192 -> 32768 values took 2 MiB of the
    // process sample in cache from 78.2 to 75.7 us, and 64 MiB from 3.71-3.92 to
    // 3.50-3.61 ms, level with the `half` crate's loop (`half` 3.41-3.64 ms).
    let block = match (conv.from, conv.to) {
        (Format::Float(F32), Format::Float(F16)) if f16c::available() => BLOCK * 32,
        (Format::Float(F32), Format::Float(_) | Format::Rgb9e5) => BLOCK * 8,
        _ => BLOCK,
    };
    for (s, d) in src.chunks(block * sg).zip(dst.chunks_mut(block * dg)) {
        if direct {
            widen_into_f32(conv.from, s, d, stats);
        } else {
            let values = widen_to_f32(conv.from, s, &mut scratch);
            encode_from_f32(conv, values, d, stats);
        }
    }
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

/// The next state of a xorshift64 generator: the kernels' unit tests draw their random
/// patterns from it, so that a failure reproduces.
#[cfg(test)]
fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
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

/// Whether the passes' AVX-512 copies can run: built by a compiler that takes the
/// target features (`build.rs`), on a CPU with AVX-512 F, VL, BW and DQ (x86-64-v4). They
/// run the same lane code on 256-bit vectors with 32 registers instead of 16.
#[inline(always)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))] // Only the x86 passes ask.
fn has_avx512() -> bool {
    #[cfg(all(target_arch = "x86_64", d3dfloat_avx512))]
    {
        std::is_x86_feature_detected!("avx512f")
            && std::is_x86_feature_detected!("avx512vl")
            && std::is_x86_feature_detected!("avx512bw")
            && std::is_x86_feature_detected!("avx512dq")
            && has_avx2()
    }
    #[cfg(not(all(target_arch = "x86_64", d3dfloat_avx512)))]
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
fn with_elements<T: Element, R>(dst: &mut [u8], write: impl FnOnce(&mut [T]) -> R) -> R {
    if cfg!(target_endian = "little")
        && let Ok(out) = bytemuck::try_cast_slice_mut::<u8, T>(dst)
    {
        return write(out);
    }
    let mut tmp = vec![T::zeroed(); dst.len() / std::mem::size_of::<T>()];
    let result = write(&mut tmp);
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
    result
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
    with_elements::<T, _>(dst, |out| {
        if !from_packed || channels == 3 {
            lanes(values, out, tally, op)
        } else {
            texels(values, out, tally, op)
        }
    })
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

/// What the vector pass counted over the ordinary lanes of a block.
#[derive(Clone, Copy, Default)]
struct Ordinary {
    inexact: u32,
    flushed: u32,
    subnormal: u32,
    /// The largest error in units of 2^-26 ULPs (f16, f11, f10 and R11G11B10).
    max_units: u32,
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

    /// The counts of two runs of lanes together.
    fn merge(self, other: Ordinary) -> Ordinary {
        Ordinary {
            inexact: self.inexact + other.inexact,
            flushed: self.flushed + other.flushed,
            subnormal: self.subnormal + other.subnormal,
            max_units: self.max_units.max(other.max_units),
        }
    }
}

/// What a short pass took of a slice: its first `lanes`, with their counts, and then
/// the run of `declined` lanes it stopped at (one with a value it cannot take), which
/// the caller takes through the full pass before it calls the short pass again on the
/// rest. `declined` is 0 only where `lanes` is the whole slice.
#[derive(Clone, Copy, Default)]
struct Taken {
    lanes: usize,
    counts: Ordinary,
    declined: usize,
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

#[cfg(target_arch = "x86_64")]
mod avx2_vector {
    use super::Ordinary;

    #[target_feature(enable = "avx2")]
    pub fn quiet_nans(out: &mut [u32]) -> (u32, u32) {
        super::widen::quiet_nans_generic(out)
    }

    #[target_feature(enable = "avx2")]
    pub fn narrow<const F: u32, const SIGNED: bool, const M: u8>(
        values: &[u32],
        out: &mut [u16],
    ) -> (Ordinary, u32) {
        super::narrow::narrow_vector_generic::<F, SIGNED, M>(values, out)
    }

    #[target_feature(enable = "avx2")]
    pub fn r11g11b10<const M: u8, const STRIDE: usize>(
        values: &[u32],
        out: &mut [u32],
    ) -> (Ordinary, u32) {
        super::narrow::r11g11b10_short_generic::<M, STRIDE>(values, out)
    }

    #[target_feature(enable = "avx2")]
    pub fn r11g11b10_full<const M: u8, const S: bool, const STRIDE: usize>(
        values: &[u32],
        out: &mut [u32],
    ) -> (super::narrow::NarrowPass, super::narrow::NarrowPass) {
        super::narrow::r11g11b10_full_generic::<M, S, STRIDE>(values, out)
    }

    #[target_feature(enable = "avx2")]
    pub fn narrow_full<const F: u32, const SIGNED: bool, const M: u8, const S: bool>(
        values: &[u32],
        out: &mut [u16],
    ) -> super::narrow::NarrowPass {
        super::narrow::narrow_full_generic::<F, SIGNED, M, S>(values, out)
    }

    #[target_feature(enable = "avx2")]
    pub fn rgb9e5<const M: u8, const STRIDE: usize, const FULL: bool>(
        values: &[u32],
        out: &mut [u32],
    ) -> super::rgb9e5::Rgb9e5Pass {
        super::rgb9e5::rgb9e5_vector_generic::<M, STRIDE, FULL>(values, out)
    }
}

/// An error the passes keep in whole units of 2^-26 ULP, in ULPs.
fn units_to_ulps(units: u32) -> f64 {
    units as f64 * pow2(-26)
}

/// An error in ULPs as whole units of 2^-26 ULP, rounded down (never more than it).
fn ulps_to_units(ulps: f64) -> u32 {
    (ulps * pow2(26)) as u32
}

/// Adds the ordinary lanes' counts for `n` values.
fn add_ordinary(stats: &mut Stats, n: u32, o: Ordinary) {
    stats.merge(&Stats {
        values: n as u64,
        inexact: o.inexact as u64,
        flushed_to_zero: o.flushed as u64,
        subnormal_out: o.subnormal as u64,
        max_ulp_error: units_to_ulps(o.max_units),
        ..Stats::default()
    });
}
