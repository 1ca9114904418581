//! The entry of the kernels: a slice of groups converted through the passes of its
//! format pair, a block at a time, at the CPU level the caller chose.

use super::lanes::{LaneCounts, float_target};
use super::narrow::{Passes, narrow, narrow_block, r11g11b10_block};
use super::rgb9e5::rgb9e5_block;
use super::simd::Simd;
use super::target::{Mode, SmallTarget, ToF10, ToF11, ToF16, with_mode};
use super::widen::{same_f32, widen_f64, widen_into_f32, widen_to_f32};
use crate::convert::summary::Stats;
use crate::convert::{Conversion, element};
use crate::format::{F16, F32, F64, Format};

/// Groups per block: the widened f32 patterns of a block stay in the L1 cache.
const BLOCK: usize = 1024;

/// Converts whole groups (`src.len()` a multiple of the source group, `dst.len()` the
/// matching output length) with the fastest kernels this CPU has ([`Simd::detect`]).
pub fn convert_slice(conv: &Conversion, src: &[u8], dst: &mut [u8]) -> Stats {
    let mut stats = Stats::default();
    convert_slice_at(Simd::detect(), conv, src, dst, &mut stats);
    stats
}

/// [`convert_slice`] with the kernels of `simd`'s level, adding its counts to `stats`: a
/// stream's counts so far, whose largest error can spare the f16 passes measuring errors
/// that cannot change it. Every level gives the same bytes and counts.
pub fn convert_slice_at(
    simd: Simd,
    conv: &Conversion,
    src: &[u8],
    dst: &mut [u8],
    stats: &mut Stats,
) {
    if conv.source_is_f64() {
        stats.merge(&element::convert_slice(conv, src, dst));
        return;
    }
    let (sg, dg) = (conv.src_group_bytes(), conv.dst_group_bytes());
    assert_eq!(src.len() / sg * dg, dst.len(), "output buffer size");
    let direct = widens_directly(conv);
    let mut scratch: Vec<u32> = Vec::with_capacity(BLOCK * 4);
    // f32 sources are read in place (no widened copy to keep in L1), so their blocks are
    // longer, which spreads the per-block work (dispatch, counts) thinner; longer still
    // for f16 with F16C, whose short pass hands the full pass a run, not the rest of the
    // block (docs/benchmarks.md, round 11).
    let f16c = simd.level() >= super::Level::F16c;
    let block = match (conv.from, conv.to) {
        (Format::Float(F32), Format::Float(F16)) if f16c => BLOCK * 32,
        (Format::Float(F32), Format::Float(_) | Format::Rgb9e5) => BLOCK * 8,
        _ => BLOCK,
    };
    for (s, d) in src.chunks(block * sg).zip(dst.chunks_mut(block * dg)) {
        if direct {
            widen_into_f32(simd, conv.from, s, d, stats);
        } else {
            let values = widen_to_f32(simd, conv.from, s, &mut scratch);
            encode_from_f32(simd, conv, values, d, stats);
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

/// A block of f32 patterns (three a texel from a packed source) into the target.
fn encode_from_f32(
    simd: Simd,
    conv: &Conversion,
    values: &[u32],
    dst: &mut [u8],
    stats: &mut Stats,
) {
    let from_packed = matches!(conv.from, Format::R11G11B10 | Format::Rgb9e5);
    let ch = conv.channels;
    let mut tally = LaneCounts::default();
    let t = &mut tally;
    match conv.to {
        Format::Float(f) if f == F32 => {
            float_target::<u32>(simd, values, dst, from_packed, ch, t, same_f32)
        }
        Format::Float(f) if f == F64 => {
            float_target::<u64>(simd, values, dst, from_packed, ch, t, widen_f64)
        }
        Format::Float(f) => {
            let target = SmallTarget::of(f).expect("f16, f11 or f10: f32 and f64 are above");
            let run = (simd, values, dst, from_packed, ch);
            with_mode!(conv.opts, |M, S| match target {
                SmallTarget::F16 => small_target::<ToF16, M, S>(run, t, stats),
                SmallTarget::F11 => small_target::<ToF11, M, S>(run, t, stats),
                SmallTarget::F10 => small_target::<ToF10, M, S>(run, t, stats),
            })
        }
        Format::R11G11B10 => {
            let stride = if from_packed { 3 } else { ch };
            with_mode!(conv.opts, |M, S| r11g11b10_block::<M, S>(
                simd, values, stride, dst, stats
            ))
        }
        Format::Rgb9e5 => {
            let stride = if from_packed { 3 } else { ch };
            // RGB9E5 always saturates (§19.3.2.2): --saturate changes nothing.
            with_mode!(conv.opts, |M, _S| rgb9e5_block::<M>(
                simd, values, stride, dst, stats
            ))
        }
    }
    tally.into_stats(stats);
}

/// A block into f16, f11 or f10: from f32 values through the narrowing passes, from a
/// packed source's texels through the lane code (`run`: the level, the values, the
/// output, whether the source is packed, and its channels).
fn small_target<T: Passes, M: Mode, const S: bool>(
    (simd, values, dst, from_packed, channels): (Simd, &[u32], &mut [u8], bool, usize),
    tally: &mut LaneCounts,
    stats: &mut Stats,
) {
    if from_packed {
        float_target::<u16>(simd, values, dst, true, channels, tally, narrow::<T, M, S>)
    } else {
        narrow_block::<T, M, S>(simd, values, dst, stats)
    }
}
