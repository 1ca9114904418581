//! Narrowing f32 patterns to f16, f11 and f10 (and R11G11B10, whose channels are f11 and
//! f10): a short vector pass for blocks of ordinary values, a full vector pass for any
//! other block, and the exact branch-free lane code ([`narrow`]) they are both checked
//! against (and which the packed sources' texel loops use).

use super::{
    Lane, Ordinary, OrdinaryLane, RNE, RTP, RTZ, Taken, add_ordinary, avx2_vector, bit, flag, pick,
    pow2, ulps_to_units, with_elements,
};
use crate::convert::summary::Stats;

mod full;
#[cfg(target_arch = "x86_64")]
mod x86;

pub(super) use full::{NarrowPass, narrow_full_generic, r11g11b10_full_generic};

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

/// The largest finite f11 and f10 values as f32 patterns: the plain R11G11B10 pass
/// takes channels from +0 up to these.
pub(super) const F11_MAX_F32: u32 = 0x477e_0000;
pub(super) const F10_MAX_F32: u32 = 0x477c_0000;

/// Values per call of the short f11/f10 pass: a block whose first exception comes late
/// keeps the runs before it, and only the rest goes through the full pass. Each call's
/// sums and loop tails cost typical data 4-5% at runs of 256 values; at 1024 (blocks
/// are 8192 values) they cost nothing measurable.
const SHORT_RUN: usize = 1024;

/// The portable short pass over `values`, a run of [`SHORT_RUN`] at a time, up to the
/// first run with a value it cannot take ([`is_ordinary`]), which it declines.
pub(super) fn short_runs<const F: u32, const SIGNED: bool, const M: u8>(
    values: &[u32],
    out: &mut [u16],
) -> Taken {
    let mut taken = Taken::default();
    for (v, o) in values.chunks(SHORT_RUN).zip(out.chunks_mut(SHORT_RUN)) {
        let (counts, exceptions) = vector_pass!(
            avx2_vector::narrow::<F, SIGNED, M>,
            narrow_vector_generic::<F, SIGNED, M>,
            v,
            o
        );
        if exceptions != 0 {
            taken.declined = v.len();
            break;
        }
        taken.lanes += v.len();
        taken.counts = taken.counts.merge(counts);
    }
    taken
}

/// f32 values to f16/f11/f10. Blocks of ordinary values (the usual case) take the short
/// vector pass (F16C for f16 where the CPU has it), a run at a time; the full vector
/// pass, which handles every lane itself, takes each run the short pass declines, and
/// the short pass goes on after it. Where it declines the first run it is given (a
/// block's first, or the one right after a declined run), values it cannot take are
/// dense there, and the full pass takes the rest of the block. The first lanes decide
/// which pass to try first, so data full of exceptions does not pay for both.
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
        let mut at = 0;
        while looks_ordinary && at < values.len() {
            let (v, o) = (&values[at..], &mut out[at..]);
            let taken = if f16c {
                // The stream's largest error so far: the F16C passes need not measure
                // errors it already covers.
                super::f16c::narrow_ordinary::<M>(v, o, ulps_to_units(stats.max_ulp_error))
            } else {
                short_runs::<F, SIGNED, M>(v, o)
            };
            add_ordinary(stats, taken.lanes as u32, taken.counts);
            if taken.lanes == 0 {
                break;
            }
            let (start, end) = (at + taken.lanes, at + taken.lanes + taken.declined);
            narrow_full_any::<F, SIGNED, M, S>(&values[start..end], &mut out[start..end], stats);
            at = end;
        }
        narrow_full_any::<F, SIGNED, M, S>(&values[at..], &mut out[at..], stats);
    })
}

/// The fastest full pass the CPU has over `values` (any lanes; none is nothing to do),
/// counted into `stats`.
fn narrow_full_any<const F: u32, const SIGNED: bool, const M: u8, const S: bool>(
    values: &[u32],
    out: &mut [u16],
    stats: &mut Stats,
) {
    if values.is_empty() {
        return;
    }
    if F == 10
        && let Some(pass) =
            super::f16c::narrow_full::<M, S>(values, out, ulps_to_units(stats.max_ulp_error))
    {
        pass.into_stats::<F>(values.len(), stats);
        return;
    }
    #[cfg(all(target_arch = "x86_64", d3dfloat_avx512))]
    if !SIGNED && super::has_avx512() {
        // SAFETY: the CPU has AVX-512 F, VL, BW, DQ and AVX2, checked just above.
        let pass = unsafe { x86::narrow_full_avx512::<F, M, S>(values, out) };
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

pub(super) fn r11g11b10_block<const M: u8, const S: bool>(
    values: &[u32],
    stride: usize,
    dst: &mut [u8],
    stats: &mut Stats,
) {
    with_elements::<u32, _>(dst, |out| {
        // With AVX2 the float pass's plain copy takes ordinary blocks and dark ones alike,
        // faster than the short pass (typical RGB 6.24 -> 5.95 ms, RGBA 5.82 -> 5.05 ms in
        // process): `r11g11b10_rest` tries it first.
        #[cfg(target_arch = "x86_64")]
        if super::has_avx2() {
            r11g11b10_rest::<M, S>(values, stride, out, stats);
            return;
        }
        // Otherwise texel by texel through the short pass when the first texels are
        // ordinary (the usual case), and the whole block again through the full pass
        // when it meets anything else.
        let looks_ordinary = values.chunks_exact(stride).take(16).all(|v| {
            is_ordinary::<6, false>(v[0])
                && is_ordinary::<6, false>(v[1])
                && is_ordinary::<5, false>(v[2])
        });
        if looks_ordinary {
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
                return;
            }
        }
        r11g11b10_rest::<M, S>(values, stride, out, stats);
    });
}

/// The full pass over texels of a block (the channels round independently, §19.3.3),
/// counted into `stats`: its plain copy first where the CPU has one and the texels'
/// first channels are plain (a dark texture's), the whole pass where they are not or it
/// meets a channel that is not.
fn r11g11b10_rest<const M: u8, const S: bool>(
    values: &[u32],
    stride: usize,
    out: &mut [u32],
    stats: &mut Stats,
) {
    let plain = values
        .chunks_exact(stride)
        .take(16)
        .all(|v| v[0] <= F11_MAX_F32 && v[1] <= F11_MAX_F32 && v[2] <= F10_MAX_F32);
    let passes = if plain {
        r11g11b10_full::<M, S, true>(values, stride, out)
    } else {
        None
    };
    let (p11, p10) = passes.unwrap_or_else(|| {
        r11g11b10_full::<M, S, false>(values, stride, out).expect("the full pass takes any texel")
    });
    p11.into_stats::<6>(3 * out.len(), stats);
    p10.into_stats::<5>(0, stats);
}

/// The fastest full R11G11B10 pass the CPU has: f11's counts and extremes, and f10's
/// extremes. With `PLAIN`, the plain copy (see `x86`), `None` where the CPU has none or
/// a channel was not plain.
fn r11g11b10_full<const M: u8, const S: bool, const PLAIN: bool>(
    values: &[u32],
    stride: usize,
    out: &mut [u32],
) -> Option<(NarrowPass, NarrowPass)> {
    #[cfg(all(target_arch = "x86_64", d3dfloat_avx512))]
    if super::has_avx512() {
        // SAFETY: the CPU has AVX-512 F, VL, BW, DQ and AVX2, checked just above.
        return unsafe {
            if stride == 3 {
                x86::r11g11b10_full_avx512::<M, S, 3, PLAIN>(values, out)
            } else {
                x86::r11g11b10_full_avx512::<M, S, 4, PLAIN>(values, out)
            }
        };
    }
    #[cfg(target_arch = "x86_64")]
    if super::has_avx2() {
        // SAFETY: the CPU has AVX2, checked just above.
        return unsafe {
            if stride == 3 {
                x86::r11g11b10_full::<M, S, 3, PLAIN>(values, out)
            } else {
                x86::r11g11b10_full::<M, S, 4, PLAIN>(values, out)
            }
        };
    }
    if PLAIN {
        return None;
    }
    Some(if stride == 3 {
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
    })
}

#[cfg(test)]
mod tests {
    use super::super::{RNE, RTN, RTP, RTZ, xorshift};
    use super::*;

    /// The short R11G11B10 pass (which CPUs without AVX2 take) against the full portable
    /// pass, on texels it takes (every channel ordinary for its format) and with one that
    /// it must refuse.
    fn short_same_as_full<const M: u8, const STRIDE: usize>(values: &[u32]) {
        let texels = values.len() / STRIDE;
        let (mut a, mut b) = (vec![0u32; texels], vec![0u32; texels]);
        let (o, exceptions) = r11g11b10_short_generic::<M, STRIDE>(values, &mut a);
        let (p11, p10) = r11g11b10_full_generic::<M, false, STRIDE>(values, &mut b);
        let ordinary = values.chunks_exact(STRIDE).all(|v| {
            is_ordinary::<6, false>(v[0])
                && is_ordinary::<6, false>(v[1])
                && is_ordinary::<5, false>(v[2])
        });
        assert_eq!(exceptions == 0, ordinary, "exceptions, mode {M}");
        if !ordinary {
            return;
        }
        assert_eq!(a, b, "words, mode {M}");
        let (mut got, mut want) = (Stats::default(), Stats::default());
        add_ordinary(&mut got, 3 * texels as u32, o);
        p11.into_stats::<6>(3 * texels, &mut want);
        p10.into_stats::<5>(0, &mut want);
        assert_eq!(got, want, "counts, mode {M}");
    }

    #[test]
    fn short_runs_stop_at_the_run_with_an_exception() {
        let mut state = 0x5108;
        // f11's normal range, then one NaN, or none.
        let values: Vec<u32> = (0..5000)
            .map(|_| ((xorshift(&mut state) as u32 >> 23) % 29 + 113) << 23 | 0x1234)
            .collect();
        for (nan_at, lanes, declined) in [
            (None, 5000, 0),
            (Some(0), 0, 1024),
            (Some(1500), 1024, 1024),
            (Some(4500), 4096, 904),
        ] {
            let mut v = values.clone();
            if let Some(i) = nan_at {
                v[i] = 0x7fc0_0000;
            }
            let mut out = vec![0u16; v.len()];
            let taken = short_runs::<6, false, RNE>(&v, &mut out);
            assert_eq!(
                (taken.lanes, taken.declined),
                (lanes, declined),
                "NaN at {nan_at:?}"
            );
            let mut want = vec![0u16; lanes];
            let full = narrow_full_generic::<6, false, RNE, false>(&v[..lanes], &mut want);
            assert_eq!(out[..lanes], want[..], "NaN at {nan_at:?}");
            let (mut got, mut expected) = (Stats::default(), Stats::default());
            add_ordinary(&mut got, lanes as u32, taken.counts);
            full.into_stats::<6>(lanes, &mut expected);
            assert_eq!(got, expected, "counts, NaN at {nan_at:?}");
        }
    }

    #[test]
    fn short_r11g11b10_pass_matches_the_full_one() {
        let mut state = 0x5107;
        // +0 and the normal range of f10 (and so of f11), halfway points included.
        let values: Vec<u32> = (0..4 * 3_000)
            .map(|i| {
                let r = xorshift(&mut state) as u32;
                let exp = ((r >> 23) % 29 + 113) << 23;
                match i % 29 {
                    0 => 0,
                    // Halfway between two f11 values, and between two f10 values.
                    1 => exp | (r & 0x7e_0000) | 0x1_0000,
                    2 => exp | (r & 0x7c_0000) | 0x2_0000,
                    _ => exp | (r & 0x7f_ffff),
                }
            })
            .collect();
        let mut odd = values.clone();
        odd[777] = 0x3400_0000;
        for v in [&values, &odd] {
            short_same_as_full::<RNE, 3>(v);
            short_same_as_full::<RTZ, 3>(v);
            short_same_as_full::<RTP, 4>(v);
            short_same_as_full::<RTN, 4>(v);
        }
        for chunk in values.chunks(12).step_by(17) {
            short_same_as_full::<RNE, 4>(chunk);
            short_same_as_full::<RTP, 3>(chunk);
        }
    }
}
