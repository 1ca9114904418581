//! The full pass of the f16/f11/f10 and R11G11B10 targets, portable: every lane whatever
//! it holds, counted exactly ([`NarrowPass`]), with integer operations only, so that it
//! vectorises. The AVX2 and F16C passes stand in for it where the CPU has them, and are
//! tested against it.

use crate::convert::kernels::lanes::units_to_ulps;
use crate::convert::kernels::target::{Mode, Small, ToF10, ToF11};
use crate::convert::summary::Stats;
use crate::format::Rounding;
use crate::format::pow2::pow2_normal as pow2;

/// What the full pass counted over a block: every counter of [`Stats`], and for
/// the largest error the parts that whole 2^-26 ULPs cannot hold, each kept as the one
/// input that decides it (the error is monotonic in the input within each part).
#[derive(Clone, Copy)]
pub(in crate::convert::kernels) struct NarrowPass {
    pub(in crate::convert::kernels) inexact: u32,
    pub(in crate::convert::kernels) saturated: u32,
    pub(in crate::convert::kernels) overflow: u32,
    pub(in crate::convert::kernels) nan: u32,
    pub(in crate::convert::kernels) clamped: u32,
    pub(in crate::convert::kernels) subnormal: u32,
    pub(in crate::convert::kernels) flushed: u32,
    /// The largest error of the lanes rounded within 25 bits of their result's last
    /// place, in units of 2^-26 ULPs (exact there).
    pub(in crate::convert::kernels) max_units: u32,
    /// The largest input magnitude (f32 bits) that saturated to the largest finite value:
    /// the error there is input - max, growing with the input.
    pub(in crate::convert::kernels) max_saturated: u32,
    /// The largest input magnitude more than 25 bits below the smallest subnormal's place
    /// that rounded to 0 (error: the input itself) ...
    pub(in crate::convert::kernels) max_far_zero: u32,
    /// ... and the smallest one that rounded up to the smallest subnormal (error: 1 - input
    /// in ULPs, shrinking as the input grows). `u32::MAX` when there is none.
    pub(in crate::convert::kernels) min_far_one: u32,
    /// The largest error in ULPs of the lanes a pass measured exactly in floating point
    /// (the F16C pass: whole 2^-26 ULPs, and the flushed lanes' fractions of them).
    pub(in crate::convert::kernels) max_error: f64,
}

impl Default for NarrowPass {
    fn default() -> Self {
        NarrowPass {
            inexact: 0,
            saturated: 0,
            overflow: 0,
            nan: 0,
            clamped: 0,
            subnormal: 0,
            flushed: 0,
            max_units: 0,
            max_saturated: 0,
            max_far_zero: 0,
            min_far_one: u32::MAX,
            max_error: 0.0,
        }
    }
}

impl NarrowPass {
    /// Adds another part of the same block: its counts, and its extremes by their order.
    pub(in crate::convert::kernels) fn merge(&mut self, o: &NarrowPass) {
        self.inexact += o.inexact;
        self.saturated += o.saturated;
        self.overflow += o.overflow;
        self.nan += o.nan;
        self.clamped += o.clamped;
        self.subnormal += o.subnormal;
        self.flushed += o.flushed;
        self.max_units = self.max_units.max(o.max_units);
        self.max_saturated = self.max_saturated.max(o.max_saturated);
        self.max_far_zero = self.max_far_zero.max(o.max_far_zero);
        self.min_far_one = self.min_far_one.min(o.min_far_one);
        self.max_error = self.max_error.max(o.max_error);
    }

    /// Adds the block's counts for `n` values, the largest error computed as the core does.
    pub(in crate::convert::kernels) fn into_stats<T: Small>(self, n: usize, stats: &mut Stats) {
        let mut err = units_to_ulps(self.max_units).max(self.max_error);
        err = err.max(error_of::<T>(0, self.max_far_zero));
        if self.min_far_one != u32::MAX {
            err = err.max(error_of::<T>(1, self.min_far_one));
        }
        stats.merge(&Stats {
            values: n as u64,
            inexact: self.inexact as u64,
            saturated: self.saturated as u64,
            overflow_to_infinity: self.overflow as u64,
            nan_in: self.nan as u64,
            nan_out: self.nan as u64,
            clamped_negative: self.clamped as u64,
            subnormal_out: self.subnormal as u64,
            flushed_to_zero: self.flushed as u64,
            max_ulp_error: err,
        });
    }
}

/// |result - input| in ULPs of the result (`result` a finite magnitude pattern, `mag` the
/// input's f32 magnitude), with the core's own operations: both sides scaled by
/// 2^-ulp_exp (exact), then one subtraction.
#[inline(always)]
pub(in crate::convert::kernels) fn error_of<T: Small>(result: u32, mag: u32) -> f64 {
    let exp_out = result >> T::FRAC;
    let sig = (result & ((1 << T::FRAC) - 1)) | (((exp_out != 0) as u32) << T::FRAC);
    let ulp_exp = exp_out.max(1) as i32 - 15 - T::FRAC as i32;
    let magnitude = f32::from_bits(mag) as f64;
    (sig as f64 - magnitude * pow2(-ulp_exp)).abs()
}

/// Every lane of a block, whatever it holds (NaN, INF, overflow, saturation, negatives
/// into unsigned formats, subnormal and flushed results): the same answers and counts as
/// [`narrow`](super::narrow) lane by lane, with integer operations only, so it vectorises. The error is
/// kept as whole 2^-26 ULPs where it is one, and through [`NarrowPass`]'s extremes where
/// it is not.
#[inline(always)]
pub(in crate::convert::kernels) fn full_pass_portable<T: Small, M: Mode, const S: bool>(
    values: &[u32],
    out: &mut [u16],
) -> NarrowPass {
    let mut p = NarrowPass::default();
    for (&u, d) in values.iter().zip(out.iter_mut()) {
        *d = full_lane::<T, M, S>(u, &mut p) as u16;
    }
    p
}

/// One lane of the full pass: its bits, counted into `p`.
#[inline(always)]
fn full_lane<T: Small, M: Mode, const S: bool>(u: u32, p: &mut NarrowPass) -> u32 {
    let (bits, lane) = full_lane_masks::<T, M, S>(u);
    p.count(&lane);
    p.keep_extremes(&lane);
    bits
}

/// What one lane of the full pass adds to a [`NarrowPass`]: masks (all ones or 0) for
/// the counts, the error in 2^-26 ULPs where that holds it (else 0), and |x| where the lane
/// decides an extreme (else 0, or `u32::MAX` for the minimum).
#[derive(Clone, Copy)]
struct FullLane {
    inexact: u32,
    saturated: u32,
    overflow: u32,
    nan: u32,
    clamped: u32,
    subnormal: u32,
    flushed: u32,
    units: u32,
    saturated_mag: u32,
    far_zero_mag: u32,
    far_one_mag: u32,
}

impl NarrowPass {
    #[inline(always)]
    fn count(&mut self, l: &FullLane) {
        self.inexact = self.inexact.wrapping_sub(l.inexact);
        self.saturated = self.saturated.wrapping_sub(l.saturated);
        self.overflow = self.overflow.wrapping_sub(l.overflow);
        self.nan = self.nan.wrapping_sub(l.nan);
        self.clamped = self.clamped.wrapping_sub(l.clamped);
        self.subnormal = self.subnormal.wrapping_sub(l.subnormal);
        self.flushed = self.flushed.wrapping_sub(l.flushed);
        self.max_units = self.max_units.max(l.units);
    }

    /// The extremes depend on the format (through the error of the input that decides
    /// them), the counts and `max_units` do not: R11G11B10 counts its three channels into
    /// one pass and keeps f10's extremes in a second.
    #[inline(always)]
    fn keep_extremes(&mut self, l: &FullLane) {
        self.max_saturated = self.max_saturated.max(l.saturated_mag);
        self.max_far_zero = self.max_far_zero.max(l.far_zero_mag);
        self.min_far_one = self.min_far_one.min(l.far_one_mag);
    }
}

/// [`full_lane`]'s work, returned rather than counted.
#[inline(always)]
fn full_lane_masks<T: Small, M: Mode, const S: bool>(u: u32) -> (u32, FullLane) {
    // Conditions are all-ones/all-zero masks (a count goes up by subtracting one), and
    // comparisons are signed where both sides are below 2^31 (one instruction each), never
    // `bool`s and branches: that is what keeps this loop a short vector loop.
    let inf_bits = 31u32 << T::FRAC;
    let bits;
    let lane;
    {
        let neg = mask(u >> 31 != 0);
        let mag = u & 0x7fff_ffff;
        let frac = mag & 0x7f_ffff;
        let exp_field = mag >> 23;
        let is_nan = gt(mag, 0x7f80_0000);
        let is_inf = mask(mag == 0x7f80_0000);
        let to_zero = if T::SIGNED { 0 } else { neg & !is_nan };
        let is_clamped = to_zero & mask(mag != 0);

        // As in `narrow`: the significand m shifted right by s to the result's last place.
        let m = frac | (mask(exp_field != 0) & (1 << 23));
        let biased = exp_field.max(1);
        // How many binades the input lies below the smallest normal, and above it.
        let below = 113 - biased.min(113);
        let above = biased - biased.min(113);
        let s_full = (23 - T::FRAC) + below;
        let far = gt(s_full, 25);
        let s = s_full.min(25);
        // Rounded in one addition: q + up = (m + bias) >> s, the bias being what lifts a
        // remainder that rounds up past the next multiple of 2^s (m < 2^24 and bias < 2^25,
        // so the sum cannot wrap). Past 25 places every input is under a half.
        let one = 1u32 << s;
        let bias = match M::ROUNDING {
            Rounding::NearestEven => (one >> 1) - 1 + ((m >> s) & 1),
            Rounding::TowardZero => 0,
            Rounding::TowardPositive => !neg & (one - 1),
            Rounding::TowardNegative => neg & (one - 1),
        };
        let qu = (m + bias) >> s;
        // |result - input| in the input's last places at this scale (below 2^25).
        let diff = ((qu << s) as i32 - m as i32).unsigned_abs();
        let inexact_rem = mask(diff != 0);
        let up = gt(qu << s, m);
        let mag_bits = (above << T::FRAC) + qu;
        let finite = !is_nan & !is_inf & !to_zero;
        let over = finite & gt(mag_bits, inf_bits - 1);
        let to_infinity = if S {
            0
        } else {
            match M::ROUNDING {
                Rounding::NearestEven => u32::MAX,
                Rounding::TowardZero => 0,
                Rounding::TowardPositive => !neg,
                Rounding::TowardNegative => neg,
            }
        };
        let result = sel(over, sel(to_infinity, inf_bits, inf_bits - 1), mag_bits);
        let nan_bits = inf_bits | (frac >> (23 - T::FRAC)) | (1 << (T::FRAC - 1));
        let sign_out = if T::SIGNED {
            (u >> 31) << (T::FRAC + 5)
        } else {
            0
        };
        let special = sel(is_nan, nan_bits, sel(is_inf, inf_bits, result));
        bits = !to_zero & (sign_out | special);

        let in_range = finite & !over;
        let sat = over & !to_infinity;

        // The error in ULPs of the result is diff / 2^s, where the result's ULP is 2^s of
        // the input's last places, or 2^(s+1) when rounding carried into the next binade
        // of normals (a carry out of the subnormals keeps the ULP).
        // (q < 2^(F+1), so reaching 2^(F+1) means rounding carried.)
        let carried = mask(qu == 2 << T::FRAC) & 1;
        let units = diff << (26 - s - carried);
        lane = FullLane {
            inexact: is_clamped | (finite & (inexact_rem | over)),
            saturated: sat,
            overflow: over & to_infinity,
            nan: is_nan,
            clamped: is_clamped,
            subnormal: in_range & !gt(mag_bits, (1 << T::FRAC) - 1) & gt(mag_bits, 0),
            flushed: in_range & mask(mag != 0) & mask(mag_bits == 0),
            units: in_range & !far & units,
            saturated_mag: sat & mag,
            far_zero_mag: in_range & far & !up & mag,
            far_one_mag: sel(in_range & far & up, mag, u32::MAX),
        };
    }
    (bits, lane)
}

/// All ones when `c`, else 0.
#[inline(always)]
fn mask(c: bool) -> u32 {
    (c as u32).wrapping_neg()
}

/// All ones when `a > b`, for values below 2^31 (a signed comparison: one vector
/// instruction, where an unsigned one takes three).
#[inline(always)]
fn gt(a: u32, b: u32) -> u32 {
    mask((a as i32) > (b as i32))
}

/// `a` where the mask `m` is set, else `b`.
#[inline(always)]
fn sel(m: u32, a: u32, b: u32) -> u32 {
    (a & m) | (b & !m)
}

/// The full R11G11B10 pass: any texel, each channel through the full lane code of its
/// format, counted per format (their largest errors are worked out differently).
#[inline(always)]
pub(in crate::convert::kernels) fn r11g11b10_full_portable<
    M: Mode,
    const S: bool,
    const STRIDE: usize,
>(
    values: &[u32],
    out: &mut [u32],
) -> (NarrowPass, NarrowPass) {
    // Every count (and the whole-unit error) in `p11`, f10's extremes alone in `p10`:
    // fewer running values than two whole passes, which the vector loop keeps in registers.
    let (mut p11, mut p10) = (NarrowPass::default(), NarrowPass::default());
    for (v, o) in values.chunks_exact(STRIDE).zip(out.iter_mut()) {
        let (r, lr) = full_lane_masks::<ToF11, M, S>(v[0]);
        let (g, lg) = full_lane_masks::<ToF11, M, S>(v[1]);
        let (b, lb) = full_lane_masks::<ToF10, M, S>(v[2]);
        *o = r | g << 11 | b << 22;
        for l in [&lr, &lg, &lb] {
            p11.count(l);
        }
        p11.keep_extremes(&lr);
        p11.keep_extremes(&lg);
        p10.keep_extremes(&lb);
    }
    (p11, p10)
}
