//! Narrowing f32 patterns to f16, f11 and f10 (and R11G11B10, whose channels are f11 and
//! f10): a short pass for runs of values in the target's normal range, a full pass for
//! any other run, and the exact branch-free lane code ([`narrow`]) they are both checked
//! against (and which the packed sources' texel loops use).

use super::lanes::{Lane, ShortCounts, ShortLane, Taken, bit, pick, ulps_to_units, with_elements};
use super::simd::{Simd, compile_for, dispatch};
use super::target::{Mode, Small, ToF10, ToF11, ToF16, overflows_to_infinity};
use crate::convert::summary::{Stats, flag};
use crate::format::Rounding;

mod full;
#[cfg(target_arch = "x86_64")]
mod x86;

pub(super) use full::{NarrowPass, error_of, full_pass_portable, r11g11b10_full_portable};

/// f32 pattern to a 5-exponent-bit, bias-15 float with `F` fraction bits (f16: 10 and
/// signed; f11: 6, f10: 5, unsigned), rounded in mode `M`; `S` keeps finite values finite.
/// Branch-free: every case is computed and the right one picked, so it vectorises.
#[inline(always)]
pub(super) fn narrow<T: Small, M: Mode, const S: bool>(u: u32) -> Lane {
    let neg = u >> 31 != 0;
    let mag = u & 0x7fff_ffff;
    let frac = mag & 0x7f_ffff;
    let exp_field = mag >> 23;
    let nan = mag > 0x7f80_0000;
    let inf = mag == 0x7f80_0000;
    // §3.1.6: no sign, so negatives (and -INF) become 0; -0 is simply 0. NaN stays NaN.
    let negative_to_zero = !T::SIGNED && neg && !nan;
    let clamped = negative_to_zero && mag != 0;
    let inf_bits = 31u32 << T::FRAC;

    // Finite: the significand m at exponent e, shifted right by s to the target's last
    // place (past 25 everything is under a half), rounded, and the exponent added back.
    let m = frac | ((exp_field != 0) as u32) << 23;
    let e = exp_field.max(1) as i32 - 127;
    let s = ((23 - T::FRAC as i32) + (-14 - e).max(0)).min(25) as u32;
    let q = m >> s;
    let rem = m & ((1u32 << s) - 1);
    let half = (1u32 << s) >> 1;
    let up = match M::ROUNDING {
        Rounding::NearestEven => (rem > half) | ((rem == half) & (q & 1 == 1)),
        Rounding::TowardZero => false,
        Rounding::TowardPositive => !neg & (rem != 0),
        Rounding::TowardNegative => neg & (rem != 0),
    };
    // A carry out of the significand moves into the exponent by itself.
    let mag_bits = ((((e + 14).max(0)) as u32) << T::FRAC) + q + up as u32;
    let finite = !nan && !inf && !negative_to_zero;
    let overflow = finite && mag_bits >= inf_bits;
    let to_infinity = !S && overflows_to_infinity(M::ROUNDING, neg);
    let result = pick(
        overflow,
        pick(to_infinity, inf_bits, inf_bits - 1),
        mag_bits,
    );
    let nan_bits = inf_bits | (frac >> (23 - T::FRAC)) | (1 << (T::FRAC - 1));
    let sign_out = if T::SIGNED {
        (u >> 31) << (T::FRAC + 5)
    } else {
        0
    };
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
            in_range && mag_bits != 0 && mag_bits < 1 << T::FRAC,
            flag::SUBNORMAL,
        )
        | bit(in_range && mag != 0 && mag_bits == 0, flag::FLUSHED);

    // Saturated and overflowed values are counted apart, not measured (issue 37).
    let measured = finite && !overflow;
    let err = if measured {
        error_of::<T>(result, mag)
    } else {
        0.0
    };
    (bits as u64, flags, err)
}

/// The bits of f32 pattern `u` in a 5-exponent-bit, bias-15 format with `F` fraction bits,
/// when `u` is ±0 or in the target's normal range up to its largest finite value (so no
/// NaN, INF, subnormal, clamping or overflow can happen): a rebias, a fixed shift and a
/// rounding increment, a dozen integer operations that vectorise well. The error is then a
/// whole number of 2^-26 ULPs of the result: the discarded part over 2^s, halved when
/// rounding carried into the next binade (whose ULP is twice as large).
#[inline(always)]
pub(super) fn short_lane<T: Small, M: Mode>(u: u32) -> ShortLane {
    let s = 23 - T::FRAC;
    let neg = u >> 31 != 0;
    let mag = u & 0x7fff_ffff;
    let q = mag.wrapping_sub((127 - 15) << 23) >> s;
    let rem = mag & ((1 << s) - 1);
    let half = 1 << (s - 1);
    let up = match M::ROUNDING {
        Rounding::NearestEven => (rem > half) | ((rem == half) & (q & 1 == 1)),
        Rounding::TowardZero => false,
        Rounding::TowardPositive => !neg & (rem != 0),
        Rounding::TowardNegative => neg & (rem != 0),
    };
    let carried = up & ((q + 1) & ((1 << T::FRAC) - 1) == 0);
    let diff = if up { (1 << s) - rem } else { rem };
    let units = if carried {
        diff << (25 - s)
    } else {
        diff << (26 - s)
    };
    let sign_out = if T::SIGNED {
        (u >> 31) << (T::FRAC + 5)
    } else {
        0
    };
    let nonzero = (mag != 0) as u32;
    ShortLane {
        bits: sign_out | (q + up as u32) & nonzero.wrapping_neg(),
        inexact: (rem != 0) as u32,
        subnormal: 0,
        flushed: 0,
        units,
    }
}

/// Whether the short pass of `T` can take `u`: ±0, or in the normal range up to the
/// largest finite value (so no NaN, INF, subnormal, clamping or overflow can happen).
#[inline(always)]
pub(super) fn in_short_range<T: Small>(u: u32) -> bool {
    let (min_normal, max_finite) = (T::MIN_NORMAL_F32, T::MAX_F32);
    // Unsigned formats: the sign bit makes a negative fail the range test.
    let v = if T::SIGNED { u & 0x7fff_ffff } else { u };
    (v.wrapping_sub(min_normal) <= max_finite - min_normal) | (u & 0x7fff_ffff == 0)
}

/// One run of the portable short pass over f16/f11/f10 output: every lane gets the short
/// lane answer, and the counts take only the lanes in its range. Returns those counts
/// and the number of lanes left for [`narrow`].
#[inline(always)]
pub(super) fn short_run_portable<T: Small, M: Mode>(
    values: &[u32],
    out: &mut [u16],
) -> (ShortCounts, u32) {
    let mut o = ShortCounts::default();
    let mut exceptions = 0u32;
    for (&u, d) in values.iter().zip(out.iter_mut()) {
        let ok = in_short_range::<T>(u);
        let lane = short_lane::<T, M>(u);
        *d = lane.bits as u16;
        o.add(ok, lane);
        exceptions += !ok as u32;
    }
    (o, exceptions)
}

/// Values per call of the portable short pass: a block whose first exception comes late
/// keeps the runs before it, and only the rest goes through the full pass. Each call's
/// sums and loop tails cost more at shorter runs (docs/benchmarks.md).
const SHORT_RUN: usize = 1024;

// The portable passes are branch-free: compiled for AVX2 they become 8-wide vector code.
compile_for!(avx2 => {
    pub(in crate::convert::kernels) fn short_run<T: Small, M: Mode>(
        values: &[u32],
        out: &mut [u16],
    ) -> (ShortCounts, u32) {
        short_run_portable::<T, M>(values, out)
    }

    pub(in crate::convert::kernels) fn full_pass_vectorised<T: Small, M: Mode, const S: bool>(
        values: &[u32],
        out: &mut [u16],
    ) -> NarrowPass {
        full_pass_portable::<T, M, S>(values, out)
    }

});

/// The portable short pass over `values`, a run of [`SHORT_RUN`] at a time, up to the
/// first run with a value it cannot take ([`in_short_range`]), which it declines.
pub(super) fn short_pass_portable<T: Small, M: Mode>(
    simd: Simd,
    values: &[u32],
    out: &mut [u16],
) -> Taken {
    let mut taken = Taken::default();
    for (v, o) in values.chunks(SHORT_RUN).zip(out.chunks_mut(SHORT_RUN)) {
        let (counts, exceptions) = dispatch!(simd, {
            avx2 => avx2::short_run::<T, M>(v, o),
            portable => short_run_portable::<T, M>(v, o),
        });
        if exceptions != 0 {
            taken.declined = v.len();
            break;
        }
        taken.lanes += v.len();
        taken.counts = taken.counts.merge(counts);
    }
    taken
}

/// The passes of a narrowing target at a CPU level. f11 and f10 take the defaults (the
/// portable short pass, the float-arithmetic full pass); f16 has its F16C passes.
pub(super) trait Passes: Small {
    /// Whether the first lanes of `values` are ones [`Passes::short_pass`] takes.
    fn looks_short(_simd: Simd, values: &[u32]) -> bool {
        values.iter().take(16).all(|&u| in_short_range::<Self>(u))
    }

    /// The short pass over `values`. `known` is the stream's largest error so far, in
    /// 2^-26 ULPs, which a pass need not measure again.
    fn short_pass<M: Mode>(simd: Simd, values: &[u32], out: &mut [u16], _known: u32) -> Taken {
        short_pass_portable::<Self, M>(simd, values, out)
    }

    /// The full pass over any lanes of `values`.
    fn full_pass<M: Mode, const S: bool>(
        simd: Simd,
        values: &[u32],
        out: &mut [u16],
        _known: u32,
    ) -> NarrowPass {
        dispatch!(simd, {
            avx512 => x86::float::avx512::float_full_pass::<Self, M, S>(values, out),
            avx2 => x86::float::avx2::float_full_pass::<Self, M, S>(values, out),
            portable => full_pass_portable::<Self, M, S>(values, out),
        })
    }
}

impl Passes for ToF11 {}
impl Passes for ToF10 {}

impl Passes for ToF16 {
    fn looks_short(simd: Simd, values: &[u32]) -> bool {
        let first = values.iter().take(16);
        dispatch!(simd, {
            f16c => first.clone().all(|&u| x86::f16c::short_range(u)),
            portable => first.clone().all(|&u| in_short_range::<Self>(u)),
        })
    }

    fn short_pass<M: Mode>(simd: Simd, values: &[u32], out: &mut [u16], known: u32) -> Taken {
        dispatch!(simd, {
            f16c => x86::f16c::f16_short_pass::<M>(values, out, known),
            portable => short_pass_portable::<Self, M>(simd, values, out),
        })
    }

    fn full_pass<M: Mode, const S: bool>(
        simd: Simd,
        values: &[u32],
        out: &mut [u16],
        known: u32,
    ) -> NarrowPass {
        dispatch!(simd, {
            avx512 => x86::f16c::avx512::f16_full_pass::<M, S>(values, out, known),
            f16c => x86::f16c::f16c::f16_full_pass::<M, S>(values, out, known),
            avx2 => avx2::full_pass_vectorised::<Self, M, S>(values, out),
            portable => full_pass_portable::<Self, M, S>(values, out),
        })
    }
}

/// f32 values to f16/f11/f10. Blocks of values in the short range (the usual case) take
/// the short pass ([`Passes::short_pass`]), a run at a time; the full pass, which handles every
/// lane itself, takes each run the short pass declines, and the short pass goes on
/// after it. Where it declines the first run it is given (a block's first, or the one
/// right after a declined run), values it cannot take are dense there, and the full
/// pass takes the rest of the block. The first lanes decide which pass to try first, so
/// data full of exceptions does not pay for both.
pub(super) fn narrow_block<T: Passes, M: Mode, const S: bool>(
    simd: Simd,
    values: &[u32],
    dst: &mut [u8],
    stats: &mut Stats,
) {
    with_elements::<u16, _>(dst, |out| {
        let looks_short = T::looks_short(simd, values);
        let mut at = 0;
        while looks_short && at < values.len() {
            let (v, o) = (&values[at..], &mut out[at..]);
            let taken = T::short_pass::<M>(simd, v, o, ulps_to_units(stats.max_ulp_error));
            taken.counts.add_to(stats, taken.lanes as u32);
            if taken.lanes == 0 {
                break;
            }
            let (start, end) = (at + taken.lanes, at + taken.lanes + taken.declined);
            full_pass::<T, M, S>(simd, &values[start..end], &mut out[start..end], stats);
            at = end;
        }
        full_pass::<T, M, S>(simd, &values[at..], &mut out[at..], stats);
    })
}

/// [`Passes::full_pass`] over `values` (any lanes; none is nothing to do), counted
/// into `stats`.
fn full_pass<T: Passes, M: Mode, const S: bool>(
    simd: Simd,
    values: &[u32],
    out: &mut [u16],
    stats: &mut Stats,
) {
    if values.is_empty() {
        return;
    }
    // The F16C passes need not measure errors the stream's largest already covers.
    let known = ulps_to_units(stats.max_ulp_error);
    T::full_pass::<M, S>(simd, values, out, known).into_stats::<T>(values.len(), stats);
}

/// The short R11G11B10 pass: each texel's channels through the short lane code of
/// f11, f11 and f10, joined into the word. Counts (the errors of both formats are in
/// 2^-26 ULPs of their own results, so one maximum serves) are right when no texel was
/// an exception; returns them and the number of exceptions.
#[inline(always)]
pub(super) fn r11g11b10_short_portable<M: Mode, const STRIDE: usize>(
    values: &[u32],
    out: &mut [u32],
) -> (ShortCounts, u32) {
    let (mut inexact, mut max_units, mut exceptions) = (0u32, 0u32, 0u32);
    for (v, o) in values.chunks_exact(STRIDE).zip(out.iter_mut()) {
        let r = short_lane::<ToF11, M>(v[0]);
        let g = short_lane::<ToF11, M>(v[1]);
        let b = short_lane::<ToF10, M>(v[2]);
        *o = r.bits | g.bits << 11 | b.bits << 22;
        let ok = in_short_range::<ToF11>(v[0])
            & in_short_range::<ToF11>(v[1])
            & in_short_range::<ToF10>(v[2]);
        exceptions += !ok as u32;
        inexact += r.inexact + g.inexact + b.inexact;
        max_units = max_units.max(r.units).max(g.units).max(b.units);
    }
    let o = ShortCounts {
        inexact,
        max_units,
        ..ShortCounts::default()
    };
    (o, exceptions)
}

/// f32 texels (`stride` 3, or 4 with alpha ignored) to R11G11B10 words.
pub(super) fn r11g11b10_block<M: Mode, const S: bool>(
    simd: Simd,
    values: &[u32],
    stride: usize,
    dst: &mut [u8],
    stats: &mut Stats,
) {
    with_elements::<u32, _>(dst, |out| {
        // With AVX2 the float pass's plain copy takes short-range blocks and dark ones
        // alike, faster than the short pass (docs/benchmarks.md): `r11g11b10_rest` tries
        // it first.
        if simd.level() >= super::Level::Avx2 {
            r11g11b10_rest::<M, S>(simd, values, stride, out, stats);
            return;
        }
        // Otherwise texel by texel through the short pass when the first texels are in
        // its range (the usual case), and the whole block again through the full pass
        // when it meets anything else.
        let looks_short = values.chunks_exact(stride).take(16).all(|v| {
            in_short_range::<ToF11>(v[0])
                && in_short_range::<ToF11>(v[1])
                && in_short_range::<ToF10>(v[2])
        });
        if looks_short {
            let (o, exceptions) = if stride == 3 {
                r11g11b10_short_portable::<M, 3>(values, out)
            } else {
                r11g11b10_short_portable::<M, 4>(values, out)
            };
            if exceptions == 0 {
                o.add_to(stats, out.len() as u32 * 3);
                return;
            }
        }
        r11g11b10_rest::<M, S>(simd, values, stride, out, stats);
    });
}

/// The full pass over texels of a block (the channels round independently, §19.3.3),
/// counted into `stats`: its plain copy first where the CPU has one and the texels'
/// first channels are plain (a dark texture's), the whole pass where they are not or it
/// meets a channel that is not.
fn r11g11b10_rest<M: Mode, const S: bool>(
    simd: Simd,
    values: &[u32],
    stride: usize,
    out: &mut [u32],
    stats: &mut Stats,
) {
    let plain = values
        .chunks_exact(stride)
        .take(16)
        .all(|v| v[0] <= ToF11::MAX_F32 && v[1] <= ToF11::MAX_F32 && v[2] <= ToF10::MAX_F32);
    let passes = if plain {
        r11g11b10_full_pass::<M, S, true>(simd, values, stride, out)
    } else {
        None
    };
    let (p11, p10) = passes.unwrap_or_else(|| {
        r11g11b10_full_pass::<M, S, false>(simd, values, stride, out)
            .expect("the full pass takes any texel")
    });
    p11.into_stats::<ToF11>(3 * out.len(), stats);
    p10.into_stats::<ToF10>(0, stats);
}

/// The full R11G11B10 pass at `simd`'s level: f11's counts and extremes, and f10's
/// extremes. With `PLAIN`, the plain copy (see `x86::float`), `None` where the CPU has
/// none or a channel was not plain.
fn r11g11b10_full_pass<M: Mode, const S: bool, const PLAIN: bool>(
    simd: Simd,
    values: &[u32],
    stride: usize,
    out: &mut [u32],
) -> Option<(NarrowPass, NarrowPass)> {
    macro_rules! at_stride {
        ($stride:literal) => {
            dispatch!(simd, {
                avx512 => x86::float::avx512::r11g11b10_float_pass::<M, S, $stride, PLAIN>(
                    values, out,
                ),
                avx2 => x86::float::avx2::r11g11b10_float_pass::<M, S, $stride, PLAIN>(
                    values, out,
                ),
                portable => (!PLAIN).then(|| r11g11b10_full_portable::<M, S, $stride>(values, out)),
            })
        };
    }
    if stride == 3 {
        at_stride!(3)
    } else {
        at_stride!(4)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::kernels::lanes::xorshift;
    use crate::convert::kernels::target::{Rne, Rtn, Rtp, Rtz};

    /// The short R11G11B10 pass (which CPUs without AVX2 take) against the full portable
    /// pass, on texels it takes (every channel in its short range) and with one that
    /// it must refuse.
    fn short_same_as_full<M: Mode, const STRIDE: usize>(values: &[u32]) {
        let m = M::ROUNDING;
        let texels = values.len() / STRIDE;
        let (mut a, mut b) = (vec![0u32; texels], vec![0u32; texels]);
        let (o, exceptions) = r11g11b10_short_portable::<M, STRIDE>(values, &mut a);
        let (p11, p10) = r11g11b10_full_portable::<M, false, STRIDE>(values, &mut b);
        let in_range = values.chunks_exact(STRIDE).all(|v| {
            in_short_range::<ToF11>(v[0])
                && in_short_range::<ToF11>(v[1])
                && in_short_range::<ToF10>(v[2])
        });
        assert_eq!(exceptions == 0, in_range, "exceptions, mode {m:?}");
        if !in_range {
            return;
        }
        assert_eq!(a, b, "words, mode {m:?}");
        let (mut got, mut want) = (Stats::default(), Stats::default());
        o.add_to(&mut got, 3 * texels as u32);
        p11.into_stats::<ToF11>(3 * texels, &mut want);
        p10.into_stats::<ToF10>(0, &mut want);
        assert_eq!(got, want, "counts, mode {m:?}");
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
            let taken = short_pass_portable::<ToF11, Rne>(Simd::portable(), &v, &mut out);
            assert_eq!(
                (taken.lanes, taken.declined),
                (lanes, declined),
                "NaN at {nan_at:?}"
            );
            let mut want = vec![0u16; lanes];
            let full = full_pass_portable::<ToF11, Rne, false>(&v[..lanes], &mut want);
            assert_eq!(out[..lanes], want[..], "NaN at {nan_at:?}");
            let (mut got, mut expected) = (Stats::default(), Stats::default());
            taken.counts.add_to(&mut got, lanes as u32);
            full.into_stats::<ToF11>(lanes, &mut expected);
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
            short_same_as_full::<Rne, 3>(v);
            short_same_as_full::<Rtz, 3>(v);
            short_same_as_full::<Rtp, 4>(v);
            short_same_as_full::<Rtn, 4>(v);
        }
        for chunk in values.chunks(12).step_by(17) {
            short_same_as_full::<Rne, 4>(chunk);
            short_same_as_full::<Rtp, 3>(chunk);
        }
    }
}
