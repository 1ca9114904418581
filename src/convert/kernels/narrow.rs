//! Narrowing f32 patterns to f16, f11 and f10 (and R11G11B10, whose channels are f11 and
//! f10): a short vector pass for blocks of ordinary values, a full vector pass for any
//! other block, and the exact branch-free lane code ([`narrow`]) they are both checked
//! against (and which the packed sources' texel loops use).

use super::{
    Lane, Ordinary, OrdinaryLane, RNE, RTP, RTZ, add_ordinary, avx2_vector, bit, flag, pick, pow2,
    with_elements,
};
use crate::convert::summary::Stats;

#[cfg(target_arch = "x86_64")]
mod x86;

/// f32 pattern to a 5-exponent-bit, bias-15 float with `F` fraction bits (f16: 10 and
/// signed; f11: 6, f10: 5, unsigned), rounded in mode `M`; `S` keeps finite values finite.
/// Branch-free: every case is computed and the right one picked, so it vectorises.
#[inline(always)]
pub(super) fn narrow<const F: u32, const SIGNED: bool, const M: u8, const S: bool>(u: u32) -> Lane {
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

    let measured = finite && !(overflow && to_infinity);
    let err = if measured {
        error_of::<F>(result, mag)
    } else {
        0.0
    };
    (bits as u64, flags, err)
}

/// |result - input| in ULPs of the result (`result` a finite magnitude pattern, `mag` the
/// input's f32 magnitude), with the core's own operations: both sides scaled by
/// 2^-ulp_exp (exact), then one subtraction.
#[inline(always)]
pub(super) fn error_of<const F: u32>(result: u32, mag: u32) -> f64 {
    let exp_out = result >> F;
    let sig = (result & ((1 << F) - 1)) | (((exp_out != 0) as u32) << F);
    let ulp_exp = exp_out.max(1) as i32 - 15 - F as i32;
    let magnitude = f32::from_bits(mag) as f64;
    (sig as f64 - magnitude * pow2(-ulp_exp)).abs()
}

/// The bits of f32 pattern `u` in a 5-exponent-bit, bias-15 format with `F` fraction bits,
/// when `u` is ±0 or in the target's normal range up to its largest finite value (so no
/// NaN, INF, subnormal, clamping or overflow can happen): a rebias, a fixed shift and a
/// rounding increment, a dozen integer operations that vectorise well. The error is then a
/// whole number of 2^-26 ULPs of the result: the discarded part over 2^s, halved when
/// rounding carried into the next binade (whose ULP is twice as large).
#[inline(always)]
pub(super) fn narrow_ordinary_lane<const F: u32, const SIGNED: bool, const M: u8>(
    u: u32,
) -> OrdinaryLane {
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
pub(super) fn is_ordinary<const F: u32, const SIGNED: bool>(u: u32) -> bool {
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
pub(super) fn narrow_vector_generic<const F: u32, const SIGNED: bool, const M: u8>(
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

/// f32 values to f16/f11/f10. Blocks of ordinary values (the usual case) take the short
/// vector pass (F16C for f16 where the CPU has it); a block with anything else in it takes
/// the full vector pass, which handles every lane itself. The first lanes decide which to
/// try first, so data full of exceptions does not pay for both.
pub(super) fn narrow_block<const F: u32, const SIGNED: bool, const M: u8, const S: bool>(
    values: &[u32],
    dst: &mut [u8],
    stats: &mut Stats,
) {
    with_elements::<u16, _>(dst, |out| {
        let f16c = F == 10 && super::f16c::available();
        let looks_ordinary = values.iter().take(16).all(|&u| {
            if f16c {
                super::f16c::short_range(u)
            } else {
                is_ordinary::<F, SIGNED>(u)
            }
        });
        if looks_ordinary {
            let (o, exceptions) = if f16c {
                super::f16c::narrow_ordinary::<M>(values, out)
            } else {
                vector_pass!(
                    avx2_vector::narrow::<F, SIGNED, M>,
                    narrow_vector_generic::<F, SIGNED, M>,
                    values,
                    out
                )
            };
            if exceptions == 0 {
                add_ordinary(stats, values.len() as u32, o);
                return;
            }
        }
        if F == 10
            && let Some(pass) = super::f16c::narrow_full::<M, S>(values, out)
        {
            pass.into_stats::<F>(values.len(), stats);
            return;
        }
        #[cfg(target_arch = "x86_64")]
        if !SIGNED && super::has_avx2() {
            // SAFETY: the CPU has AVX2, checked just above.
            let pass = unsafe { x86::narrow_full::<F, M, S>(values, out) };
            pass.into_stats::<F>(values.len(), stats);
            return;
        }
        let pass = vector_pass!(
            avx2_vector::narrow_full::<F, SIGNED, M, S>,
            narrow_full_generic::<F, SIGNED, M, S>,
            values,
            out
        );
        pass.into_stats::<F>(values.len(), stats);
    })
}

/// The short R11G11B10 pass: each texel's channels through the ordinary lane code of
/// f11, f11 and f10, joined into the word. Counts (the errors of both formats are in
/// 2^-26 ULPs of their own results, so one maximum serves) are right when no texel was
/// an exception; returns them and the number of exceptions.
#[inline(always)]
pub(super) fn r11g11b10_short_generic<const M: u8, const STRIDE: usize>(
    values: &[u32],
    out: &mut [u32],
) -> (Ordinary, u32) {
    let (mut inexact, mut max_units, mut exceptions) = (0u32, 0u32, 0u32);
    for (v, o) in values.chunks_exact(STRIDE).zip(out.iter_mut()) {
        let r = narrow_ordinary_lane::<6, false, M>(v[0]);
        let g = narrow_ordinary_lane::<6, false, M>(v[1]);
        let b = narrow_ordinary_lane::<5, false, M>(v[2]);
        *o = r.bits | g.bits << 11 | b.bits << 22;
        let ok = is_ordinary::<6, false>(v[0])
            & is_ordinary::<6, false>(v[1])
            & is_ordinary::<5, false>(v[2]);
        exceptions += !ok as u32;
        inexact += r.inexact + g.inexact + b.inexact;
        max_units = max_units.max(r.units).max(g.units).max(b.units);
    }
    let o = Ordinary {
        inexact,
        max_units,
        ..Ordinary::default()
    };
    (o, exceptions)
}

/// The full R11G11B10 pass: any texel, each channel through the full lane code of its
/// format, counted per format (their largest errors are worked out differently).
#[inline(always)]
pub(super) fn r11g11b10_full_generic<const M: u8, const S: bool, const STRIDE: usize>(
    values: &[u32],
    out: &mut [u32],
) -> (NarrowPass, NarrowPass) {
    // Every count (and the whole-unit error) in `p11`, f10's extremes alone in `p10`:
    // fewer running values than two whole passes, which the vector loop keeps in registers.
    let (mut p11, mut p10) = (NarrowPass::default(), NarrowPass::default());
    for (v, o) in values.chunks_exact(STRIDE).zip(out.iter_mut()) {
        let (r, lr) = full_lane_masks::<6, false, M, S>(v[0]);
        let (g, lg) = full_lane_masks::<6, false, M, S>(v[1]);
        let (b, lb) = full_lane_masks::<5, false, M, S>(v[2]);
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

pub(super) fn r11g11b10_block<const M: u8, const S: bool>(
    values: &[u32],
    stride: usize,
    dst: &mut [u8],
    stats: &mut Stats,
) {
    // Texel by texel when the first texels are ordinary (the usual case): one vector
    // loop, no copies. A block where that meets anything else is done again below.
    let looks_ordinary = values.chunks_exact(stride).take(16).all(|v| {
        is_ordinary::<6, false>(v[0])
            && is_ordinary::<6, false>(v[1])
            && is_ordinary::<5, false>(v[2])
    });
    if looks_ordinary {
        let done = with_elements::<u32, _>(dst, |out| {
            let (o, exceptions) = if stride == 3 {
                vector_pass!(
                    avx2_vector::r11g11b10::<M, 3>,
                    r11g11b10_short_generic::<M, 3>,
                    values,
                    out
                )
            } else {
                vector_pass!(
                    avx2_vector::r11g11b10::<M, 4>,
                    r11g11b10_short_generic::<M, 4>,
                    values,
                    out
                )
            };
            if exceptions == 0 {
                add_ordinary(stats, out.len() as u32 * 3, o);
            }
            exceptions == 0
        });
        if done {
            return;
        }
    }
    // Otherwise every texel through the full pass (the channels round independently,
    // §19.3.3).
    let texels = values.len() / stride;
    let (p11, p10) = with_elements::<u32, _>(dst, |out| {
        #[cfg(target_arch = "x86_64")]
        if super::has_avx2() {
            // SAFETY: the CPU has AVX2, checked just above.
            return unsafe {
                if stride == 3 {
                    x86::r11g11b10_full::<M, S, 3>(values, out)
                } else {
                    x86::r11g11b10_full::<M, S, 4>(values, out)
                }
            };
        }
        if stride == 3 {
            vector_pass!(
                avx2_vector::r11g11b10_full::<M, S, 3>,
                r11g11b10_full_generic::<M, S, 3>,
                values,
                out
            )
        } else {
            vector_pass!(
                avx2_vector::r11g11b10_full::<M, S, 4>,
                r11g11b10_full_generic::<M, S, 4>,
                values,
                out
            )
        }
    });
    p11.into_stats::<6>(3 * texels, stats);
    p10.into_stats::<5>(0, stats);
}

/// What the full vector pass counted over a block: every counter of [`Stats`], and for
/// the largest error the parts that whole 2^-26 ULPs cannot hold, each kept as the one
/// input that decides it (the error is monotonic in the input within each part).
#[derive(Clone, Copy)]
pub(super) struct NarrowPass {
    pub(super) inexact: u32,
    pub(super) saturated: u32,
    pub(super) overflow: u32,
    pub(super) nan: u32,
    pub(super) clamped: u32,
    pub(super) subnormal: u32,
    pub(super) flushed: u32,
    /// The largest error of the lanes rounded within 25 bits of their result's last
    /// place, in units of 2^-26 ULPs (exact there).
    pub(super) max_units: u32,
    /// The largest input magnitude (f32 bits) that saturated to the largest finite value:
    /// the error there is input - max, growing with the input.
    pub(super) max_saturated: u32,
    /// The largest input magnitude more than 25 bits below the smallest subnormal's place
    /// that rounded to 0 (error: the input itself) ...
    pub(super) max_far_zero: u32,
    /// ... and the smallest one that rounded up to the smallest subnormal (error: 1 - input
    /// in ULPs, shrinking as the input grows). `u32::MAX` when there is none.
    pub(super) min_far_one: u32,
    /// The largest error in ULPs of the lanes a pass measured exactly in floating point
    /// (the F16C pass: whole 2^-26 ULPs, and the flushed lanes' fractions of them).
    pub(super) max_error: f64,
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
    pub(super) fn merge(&mut self, o: &NarrowPass) {
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
    pub(super) fn into_stats<const F: u32>(self, n: usize, stats: &mut Stats) {
        let mut err = (self.max_units as f64 * pow2(-26)).max(self.max_error);
        let inf_bits = 31u32 << F;
        if self.max_saturated != 0 {
            err = err.max(error_of::<F>(inf_bits - 1, self.max_saturated));
        }
        err = err.max(error_of::<F>(0, self.max_far_zero));
        if self.min_far_one != u32::MAX {
            err = err.max(error_of::<F>(1, self.min_far_one));
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

/// Every lane of a block, whatever it holds (NaN, INF, overflow, saturation, negatives
/// into unsigned formats, subnormal and flushed results): the same answers and counts as
/// [`narrow`] lane by lane, with integer operations only, so it vectorises. The error is
/// kept as whole 2^-26 ULPs where it is one, and through [`NarrowPass`]'s extremes where
/// it is not.
#[inline(always)]
pub(super) fn narrow_full_generic<const F: u32, const SIGNED: bool, const M: u8, const S: bool>(
    values: &[u32],
    out: &mut [u16],
) -> NarrowPass {
    let mut p = NarrowPass::default();
    for (&u, d) in values.iter().zip(out.iter_mut()) {
        *d = full_lane::<F, SIGNED, M, S>(u, &mut p) as u16;
    }
    p
}

/// One lane of the full pass: its bits, counted into `p`.
#[inline(always)]
fn full_lane<const F: u32, const SIGNED: bool, const M: u8, const S: bool>(
    u: u32,
    p: &mut NarrowPass,
) -> u32 {
    let (bits, lane) = full_lane_masks::<F, SIGNED, M, S>(u);
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
fn full_lane_masks<const F: u32, const SIGNED: bool, const M: u8, const S: bool>(
    u: u32,
) -> (u32, FullLane) {
    // Conditions are all-ones/all-zero masks (a count goes up by subtracting one), and
    // comparisons are signed where both sides are below 2^31 (one instruction each), never
    // `bool`s and branches: that is what keeps this loop a short vector loop.
    let inf_bits = 31u32 << F;
    let bits;
    let lane;
    {
        let neg = mask(u >> 31 != 0);
        let mag = u & 0x7fff_ffff;
        let frac = mag & 0x7f_ffff;
        let exp_field = mag >> 23;
        let is_nan = gt(mag, 0x7f80_0000);
        let is_inf = mask(mag == 0x7f80_0000);
        let to_zero = if SIGNED { 0 } else { neg & !is_nan };
        let is_clamped = to_zero & mask(mag != 0);

        // As in `narrow`: the significand m shifted right by s to the result's last place.
        let m = frac | (mask(exp_field != 0) & (1 << 23));
        let biased = exp_field.max(1);
        // How many binades the input lies below the smallest normal, and above it.
        let below = 113 - biased.min(113);
        let above = biased - biased.min(113);
        let s_full = (23 - F) + below;
        let far = gt(s_full, 25);
        let s = s_full.min(25);
        // Rounded in one addition: q + up = (m + bias) >> s, the bias being what lifts a
        // remainder that rounds up past the next multiple of 2^s (m < 2^24 and bias < 2^25,
        // so the sum cannot wrap). Past 25 places every input is under a half.
        let one = 1u32 << s;
        let bias = match M {
            RNE => (one >> 1) - 1 + ((m >> s) & 1),
            RTZ => 0,
            RTP => !neg & (one - 1),
            _ => neg & (one - 1),
        };
        let qu = (m + bias) >> s;
        // |result - input| in the input's last places at this scale (below 2^25).
        let diff = ((qu << s) as i32 - m as i32).unsigned_abs();
        let inexact_rem = mask(diff != 0);
        let up = gt(qu << s, m);
        let mag_bits = (above << F) + qu;
        let finite = !is_nan & !is_inf & !to_zero;
        let over = finite & gt(mag_bits, inf_bits - 1);
        let to_infinity = if S {
            0
        } else {
            match M {
                RNE => u32::MAX,
                RTZ => 0,
                RTP => !neg,
                _ => neg,
            }
        };
        let result = sel(over, sel(to_infinity, inf_bits, inf_bits - 1), mag_bits);
        let nan_bits = inf_bits | (frac >> (23 - F)) | (1 << (F - 1));
        let sign_out = if SIGNED { (u >> 31) << (F + 5) } else { 0 };
        let special = sel(is_nan, nan_bits, sel(is_inf, inf_bits, result));
        bits = !to_zero & (sign_out | special);

        let in_range = finite & !over;
        let sat = over & !to_infinity;

        // The error in ULPs of the result is diff / 2^s, where the result's ULP is 2^s of
        // the input's last places, or 2^(s+1) when rounding carried into the next binade
        // of normals (a carry out of the subnormals keeps the ULP).
        // (q < 2^(F+1), so reaching 2^(F+1) means rounding carried.)
        let carried = mask(qu == 2 << F) & 1;
        let units = diff << (26 - s - carried);
        lane = FullLane {
            inexact: is_clamped | (finite & (inexact_rem | over)),
            saturated: sat,
            overflow: over & to_infinity,
            nan: is_nan,
            clamped: is_clamped,
            subnormal: in_range & !gt(mag_bits, (1 << F) - 1) & gt(mag_bits, 0),
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
