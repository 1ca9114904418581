//! What the passes share: a lane's answer and the counts of a block ([`LaneCounts`],
//! [`ShortCounts`], [`Taken`]), output elements viewed in place ([`with_elements`]), the
//! lane-by-lane loops of the float targets, and the 2^-26-ULP unit the passes keep their
//! errors in.

use super::simd::{Simd, compile_for, dispatch};
use crate::convert::summary::Stats;
use crate::format::pow2::pow2_normal as pow2;

/// One lane's answer: the output pattern, its flags (`summary::flag`) and its error in
/// ULPs of the result (0 where none is measured).
pub(super) type Lane = (u64, u32, f64);

/// Counts of one block, kept in plain locals so the loops around them vectorise.
#[derive(Default)]
pub(super) struct LaneCounts {
    counts: [u32; 8],
    max_err_bits: i64,
    values: u32,
}

impl LaneCounts {
    #[inline(always)]
    fn add(&mut self, flags: u32, err: f64) {
        for (i, c) in self.counts.iter_mut().enumerate() {
            *c += (flags >> i) & 1;
        }
        // Errors are never negative, so their bit patterns order like the values.
        self.max_err_bits = self.max_err_bits.max(err.to_bits() as i64);
        self.values += 1;
    }

    pub(super) fn into_stats(self, stats: &mut Stats) {
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
pub(super) fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// An output element type: u16 (f16, f11, f10), u32 (f32, packed words), u64 (f64).
pub(super) trait Element: bytemuck::Pod {
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
pub(super) fn with_elements<T: Element, R>(dst: &mut [u8], write: impl FnOnce(&mut [T]) -> R) -> R {
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

/// `op` on every value.
#[inline(always)]
fn each_lane_portable<T: Element, Op: Fn(u32) -> Lane>(
    values: &[u32],
    out: &mut [T],
    tally: &mut LaneCounts,
    op: Op,
) {
    for (&v, o) in values.iter().zip(out.iter_mut()) {
        let (bits, flags, err) = op(v);
        *o = T::from_bits(bits);
        tally.add(flags, err);
    }
}

/// From a packed source: `op` on the three values of each texel, and alpha 1.0 after
/// them.
#[inline(always)]
fn each_texel_portable<T: Element, Op: Fn(u32) -> Lane>(
    values: &[u32],
    out: &mut [T],
    tally: &mut LaneCounts,
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

// The lane loops are branch-free: compiled for AVX2 they become 8-wide vector code.
compile_for!(avx2 => {
    pub(in crate::convert::kernels) fn each_lane<T: Element, Op: Fn(u32) -> Lane>(
        values: &[u32],
        out: &mut [T],
        tally: &mut LaneCounts,
        op: Op,
    ) {
        each_lane_portable(values, out, tally, op)
    }

    pub(in crate::convert::kernels) fn each_texel<T: Element, Op: Fn(u32) -> Lane>(
        values: &[u32],
        out: &mut [T],
        tally: &mut LaneCounts,
        op: Op,
    ) {
        each_texel_portable(values, out, tally, op)
    }
});

/// Elementwise to a float target, or from a packed source's texels (`channels` 4 adds
/// alpha), `op` giving each lane.
#[inline(always)]
pub(super) fn float_target<T: Element>(
    simd: Simd,
    values: &[u32],
    dst: &mut [u8],
    from_packed: bool,
    channels: usize,
    tally: &mut LaneCounts,
    op: impl Fn(u32) -> Lane,
) {
    with_elements::<T, _>(dst, |out| {
        if !from_packed || channels == 3 {
            dispatch!(simd, {
                avx2 => avx2::each_lane(values, out, tally, op),
                portable => each_lane_portable(values, out, tally, op),
            })
        } else {
            dispatch!(simd, {
                avx2 => avx2::each_texel(values, out, tally, op),
                portable => each_texel_portable(values, out, tally, op),
            })
        }
    })
}

/// `a` where `c`, else `b`, written so that both sides are computed (no branch).
#[inline(always)]
pub(super) fn pick(c: bool, a: u32, b: u32) -> u32 {
    let mask = (c as u32).wrapping_neg();
    (a & mask) | (b & !mask)
}

/// `f` where `c`, else 0.
#[inline(always)]
pub(super) fn bit(c: bool, f: u32) -> u32 {
    (c as u32) * f
}

/// What a short pass counted over the lanes it took.
#[derive(Clone, Copy, Default)]
pub(super) struct ShortCounts {
    pub(super) inexact: u32,
    pub(super) flushed: u32,
    pub(super) subnormal: u32,
    /// The largest error in units of 2^-26 ULPs (f16, f11, f10 and R11G11B10).
    pub(super) max_units: u32,
}

impl ShortCounts {
    /// Counts a lane when the short pass can take it (`ok`); branch-free.
    #[inline(always)]
    pub(super) fn add(&mut self, ok: bool, lane: ShortLane) {
        let ok = ok as u32;
        self.inexact += ok & lane.inexact;
        self.flushed += ok & lane.flushed;
        self.subnormal += ok & lane.subnormal;
        self.max_units = self.max_units.max(ok.wrapping_neg() & lane.units);
    }

    /// The counts of two runs of lanes together.
    pub(super) fn merge(self, other: ShortCounts) -> ShortCounts {
        ShortCounts {
            inexact: self.inexact + other.inexact,
            flushed: self.flushed + other.flushed,
            subnormal: self.subnormal + other.subnormal,
            max_units: self.max_units.max(other.max_units),
        }
    }

    /// Adds these counts, over `n` values, to `stats`.
    pub(super) fn add_to(self, stats: &mut Stats, n: u32) {
        stats.merge(&Stats {
            values: n as u64,
            inexact: self.inexact as u64,
            flushed_to_zero: self.flushed as u64,
            subnormal_out: self.subnormal as u64,
            max_ulp_error: units_to_ulps(self.max_units),
            ..Stats::default()
        });
    }
}

/// What a short pass took of a slice: its first `lanes`, with their counts, and then
/// the run of `declined` lanes it stopped at (one with a value it cannot take), which
/// the caller takes through the full pass before it calls the short pass again on the
/// rest. `declined` is 0 only where `lanes` is the whole slice.
#[derive(Clone, Copy, Default)]
pub(super) struct Taken {
    pub(super) lanes: usize,
    pub(super) counts: ShortCounts,
    pub(super) declined: usize,
}

/// What a short pass computes for one lane it can take.
#[derive(Clone, Copy)]
pub(super) struct ShortLane {
    pub(super) bits: u32,
    /// 1 or 0 (plain integers rather than bools keep the loops vectorised).
    pub(super) inexact: u32,
    pub(super) subnormal: u32,
    pub(super) flushed: u32,
    /// The error in ULPs of the result, in units of 2^-26.
    pub(super) units: u32,
}

/// An error the passes keep in whole units of 2^-26 ULP, in ULPs.
pub(super) fn units_to_ulps(units: u32) -> f64 {
    units as f64 * pow2(-26)
}

/// An error in ULPs as whole units of 2^-26 ULP, rounded down (never more than it).
pub(super) fn ulps_to_units(ulps: f64) -> u32 {
    (ulps * pow2(26)) as u32
}
