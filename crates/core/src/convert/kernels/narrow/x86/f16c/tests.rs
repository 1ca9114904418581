//! The F16C passes against the portable ones.

use super::*;
use crate::convert::kernels::lanes::{Taken, units_to_ulps, xorshift};
use crate::convert::kernels::narrow::full_pass_portable;
use crate::convert::kernels::simd::{Level, Simd, dispatch, levels_from};
use crate::convert::kernels::target::{Rne, Rtn, Rtp, Rtz, ToF16};
use crate::convert::summary::Stats;

/// The short pass (one copy, F16C's), or `None` on a CPU without F16C (which the
/// runner has named).
fn short<M: Mode>(values: &[u32], out: &mut [u16], known: u32) -> Option<Taken> {
    let simd = *levels_from(Level::F16c).first()?;
    Some(dispatch!(simd, {
        f16c => f16_short_pass::<M>(values, out, known),
        portable => unreachable!("an F16C level"),
    }))
}

/// The full pass at `simd`'s level (F16C or AVX-512).
fn full<M: Mode, const S: bool>(
    simd: Simd,
    values: &[u32],
    out: &mut [u16],
    known: u32,
) -> NarrowPass {
    dispatch!(simd, {
        avx512 => avx512::f16_full_pass::<M, S>(values, out, known),
        f16c => f16c::f16_full_pass::<M, S>(values, out, known),
        portable => unreachable!("an F16C level"),
    })
}

fn random_patterns(n: usize, mut state: u64) -> Vec<u32> {
    (0..n)
        .map(|i| {
            let r = xorshift(&mut state) as u32;
            match i % 4 {
                // Inside f16's range, both signs.
                0 | 1 => (r & 0x8000_0000) | (0x3880_0000 + r % 0x0f00_0000),
                // Just around its edges.
                2 => (r & 0x8000_0000) | (0x3000_0000 + r % 0x1800_0000),
                _ => r,
            }
        })
        .collect()
}

/// The short pass against the portable full pass: the runs it takes have the same bits
/// and counts; the run it declines, if any, has a lane outside [`short_range`] or one
/// that gives an in-range result its range test also catches ([`caught`]), so that it
/// takes every run of other lanes. Once as the first block of a stream, and once after
/// each bound of the errors ([`normal_bound`], [`short_bound`]) was reached, where the
/// largest error need only be right above it.
fn same_as_portable<M: Mode>(values: &[u32]) {
    for known in [0, normal_bound(M::ROUNDING), short_bound(M::ROUNDING)] {
        same_after::<M>(values, known);
    }
}

/// Whether the short pass's range test may catch input `v` with f16 result `h` (see
/// `count_sixteen`): ±65504, INF or NaN, or an inexact ±0 or ±2^-24.
fn caught(v: u32, h: u16) -> bool {
    let mag = h & 0x7fff;
    let inexact = half::f16::from_bits(h).to_f32().to_bits() != v;
    mag >= 0x7bff || (inexact && mag <= 1)
}

/// The most lanes the short pass declines at once: a run of either of its parts.
const LONGEST_RUN: usize = 2048;

/// [`same_as_portable`] in a stream whose largest error so far is `known` units.
fn same_after<M: Mode>(values: &[u32], known: u32) {
    let m = M::ROUNDING;
    let mut a = vec![0u16; values.len()];
    let mut b = vec![0u16; values.len()];
    let Some(taken) = short::<M>(values, &mut a, known) else {
        return;
    };
    full_pass_portable::<ToF16, M, false>(values, &mut b);
    let what = format!("mode {m:?}, {known} units known");
    let n = taken.lanes;
    assert!(n <= values.len(), "{n} lanes taken, {what}");
    if n < values.len() {
        let end = n + taken.declined;
        assert!(
            taken.declined > 0 && taken.declined <= LONGEST_RUN && end <= values.len(),
            "{} lanes declined after {n}, {what}",
            taken.declined
        );
        let declinable = values[n..end]
            .iter()
            .zip(&b[n..end])
            .any(|(&v, &h)| !short_range(v) || caught(v, h));
        assert!(
            declinable,
            "declined a run of short-range lanes at {n}, {what}"
        );
    } else {
        assert_eq!(taken.declined, 0, "declined past the end, {what}");
    }
    for (i, &v) in values[..n].iter().enumerate() {
        assert_eq!(a[i], b[i], "lane {i} ({v:#010x}), {what}");
    }
    // The counts of the lanes taken, against the portable pass over those alone.
    let head = full_pass_portable::<ToF16, M, false>(&values[..n], &mut b[..n]);
    let known_error = units_to_ulps(known);
    let (mut got, mut want) = (Stats::default(), Stats::default());
    for stats in [&mut got, &mut want] {
        stats.max_ulp_error = known_error;
    }
    taken.counts.add_to(&mut got, n as u32);
    head.into_stats::<ToF16>(n, &mut want);
    assert_eq!(got, want, "counts of {n} lanes, {what}");
}

/// [`same_as_portable`] in all four rounding modes.
fn in_every_mode(values: &[u32]) {
    same_as_portable::<Rne>(values);
    same_as_portable::<Rtz>(values);
    same_as_portable::<Rtp>(values);
    same_as_portable::<Rtn>(values);
}

/// Both copies of the full pass (AVX2, and the dispatched one: AVX-512 where built and
/// present) against the portable pass: as the first block of a stream, one unit short
/// of [`short_bound`] (where a lane that reaches it must still be measured), and once
/// the stream's largest error has reached it (where the pass leaves errors out).
fn full_same_as_portable<M: Mode, const S: bool>(values: &[u32]) {
    full_same_after::<M, S>(
        values,
        &[0, short_bound(M::ROUNDING) - 1, short_bound(M::ROUNDING)],
    );
}

/// [`full_same_as_portable`] in streams whose largest errors so far are each of `knowns`.
fn full_same_after<M: Mode, const S: bool>(values: &[u32], knowns: &[u32]) {
    let m = M::ROUNDING;
    let mut b = vec![0u16; values.len()];
    let pb = full_pass_portable::<ToF16, M, S>(values, &mut b);
    for &known in knowns {
        let seeded = || Stats {
            max_ulp_error: units_to_ulps(known),
            ..Stats::default()
        };
        let mut sb = seeded();
        pb.into_stats::<ToF16>(values.len(), &mut sb);
        for simd in levels_from(Level::F16c) {
            let what = format!("{simd:?}, mode {m:?} saturate {S}, {known} units known");
            let mut a = vec![0u16; values.len()];
            let pa = full::<M, S>(simd, values, &mut a, known);
            assert_eq!(a, b, "bits, {what}");
            let mut sa = seeded();
            pa.into_stats::<ToF16>(values.len(), &mut sa);
            assert_eq!(sa, sb, "counts, {what}");
        }
    }
}

#[test]
fn f16c_full_pass_matches_the_portable_one() {
    let mut values = random_patterns(50_003, 0xf00d);
    // Every f16 boundary region from below 2^-26 to past 2^16, finely.
    values.extend((0..200_000u32).map(|i| 0x3000_0000 + i * 0x97));
    values.extend((0..2_000u32).map(|i| 0x4770_0000 + i * 0x100));
    // Each edge of the range exactly and one f32 step either side, both signs: 65504
    // (the largest finite), 65520 (halfway past it), 2^16, the largest f32, INF.
    for edge in [
        0x477f_e000u32,
        0x477f_f000,
        0x4780_0000,
        0x7f7f_ffff,
        0x7f80_0000,
    ] {
        for pattern in [edge - 1, edge, edge + 1] {
            values.extend([pattern, pattern | 0x8000_0000]);
        }
    }
    // A lane reaching each mode's bound (see `f16c_error_bounds_are_reached_and_never_passed`).
    values.extend([0x3f80_1000, 0x337f_ffff, 0xb37f_ffff]);
    for len in [1, 7, 9, 1000, values.len()] {
        let v = &values[..len];
        full_same_as_portable::<Rne, false>(v);
        full_same_as_portable::<Rne, true>(v);
        full_same_as_portable::<Rtz, false>(v);
        full_same_as_portable::<Rtz, true>(v);
        full_same_as_portable::<Rtp, false>(v);
        full_same_as_portable::<Rtp, true>(v);
        full_same_as_portable::<Rtn, false>(v);
        full_same_as_portable::<Rtn, true>(v);
    }
    // Values below 2^-25 (rounded up to the smallest subnormal toward one INF) and at
    // its edge, both signs, alone and beside a value with a smaller error, so that each
    // is the largest error once.
    let far = [
        1u32,
        0x0040_0000,
        0x0080_0000,
        0x2000_0000,
        0x3280_0000,
        0x32c0_0000,
    ];
    // 0x32ff_fffd: 2^-24 - |x| rounds up in f32, above the error itself.
    for edge in far
        .into_iter()
        .chain([0x32ff_fffd, 0x32ff_ffff, 0x3300_0000, 0x3300_0001])
    {
        for v in [edge, edge | 0x8000_0000] {
            for block in [vec![v], vec![v, 0x3f80_0001], vec![0x3f80_0001, v, 0]] {
                full_same_as_portable::<Rtp, false>(&block);
                full_same_as_portable::<Rtp, true>(&block);
                full_same_as_portable::<Rtn, false>(&block);
                full_same_as_portable::<Rtn, true>(&block);
            }
        }
    }
    // One value at a time, so each lane's error is the maximum.
    for &v in values.iter().step_by(97) {
        full_same_as_portable::<Rne, false>(&[v]);
        full_same_as_portable::<Rtp, true>(&[v]);
        full_same_as_portable::<Rtn, false>(&[v]);
    }
}

#[test]
fn f16c_short_pass_matches_the_portable_one() {
    let values = random_patterns(100_003, 0x5eed);
    for len in [0, 1, 7, 8, 9, 1023, 1024, 100_003] {
        let v = &values[..len];
        in_every_mode(v);
    }
    // Only lanes the short pass takes: the counts then cover every lane. Blocks of
    // a few values too, so each lane's error is the maximum once.
    let in_range: Vec<u32> = values.iter().copied().filter(|&v| short_range(v)).collect();
    for chunk in in_range.chunks(3).step_by(101) {
        same_as_portable::<Rne>(chunk);
        same_as_portable::<Rtp>(chunk);
        same_as_portable::<Rtn>(chunk);
    }
    // Only f16's normal range (the shorter pass alone), and with one value below it
    // (2^-20, the short pass after it) or past the short range (the full pass) at the
    // end.
    let mut normal: Vec<u32> = in_range
        .iter()
        .copied()
        .filter(|&v| v & 0x7fff_ffff == 0 || v & 0x7fff_ffff >= 113 << 23)
        .collect();
    for tail in [
        None,
        Some(0x3580_0123),
        Some(0x3000_0000),
        Some(0x7fc0_0000),
    ] {
        normal.extend(tail);
        for chunk in normal.chunks(1001).step_by(7) {
            in_every_mode(chunk);
        }
        let last = normal.len().saturating_sub(2000);
        same_as_portable::<Rne>(&normal[last..]);
        same_as_portable::<Rtn>(&normal[last..]);
        normal.pop();
    }
    // The normal-range pass runs over runs of lanes, then the short pass from the first
    // run with a value below the range: one such value (or one for the full pass) at
    // either end of a run and between runs (the first run is 256 lanes, the others
    // 1024). Then each edge of the normal and short ranges and one f32 step past it,
    // both signs.
    let runs: Vec<u32> = normal.iter().copied().cycle().take(5000).collect();
    for at in [0, 255, 256, 1279, 1280, 1281, 3000, 4999] {
        for odd in [0x3580_0123u32, 0xb000_0001, 0x7fc0_0000] {
            let mut v = runs.clone();
            v[at] = odd;
            same_as_portable::<Rne>(&v);
            same_as_portable::<Rtp>(&v);
        }
    }
    for edge in [
        0x3880_0000u32,
        0x387f_ffff,
        0x3300_0000,
        0x32ff_ffff,
        // Around 2^-24, where results of 2^-24 and flushes are caught by the short
        // pass's range test (f32 subnormals too), and just under 65504.
        0x3300_0001,
        0x3380_0000,
        0x3380_0001,
        0x337f_ffff,
        0x3400_0001,
        0x0000_0001,
        0x007f_ffff,
        0x0080_0000,
        0x477f_c001,
        0x477f_dfff,
        0x477f_e000,
        0x477f_e001,
        // Past 65504: within a ULP up to 65520 (to nearest), 65536 (toward zero); then
        // INF or the largest finite value a ULP or more away.
        0x477f_efff,
        0x477f_f000,
        0x477f_ffff,
        0x4780_0000,
        0x7f80_0000,
    ] {
        for odd in [edge, edge | 0x8000_0000] {
            let mut v = runs.clone();
            v[1500] = odd;
            in_every_mode(&v);
            // A value below the normal range before it sends the rest of the block to
            // the short pass, which sees the range's top only in the error.
            v[20] = 0x3580_0123;
            in_every_mode(&v);
        }
    }
    in_every_mode(&in_range);
}

/// More lanes than a 16-bit half of the full pass's counters can count, all of one kind:
/// the pass splits its input, so the totals stay whole.
#[test]
fn f16c_full_pass_counts_past_sixteen_bits() {
    let n = (1 << 20) + 5;
    for fill in [
        0x7fc0_0000u32,
        0xc780_0000,
        0x7f7f_ffff,
        0x0000_0001,
        0x3f80_0001,
    ] {
        let values = vec![fill; n];
        // Measuring errors, and leaving them out.
        full_same_after::<Rne, false>(&values, &[0]);
        full_same_after::<Rtp, false>(&values, &[0]);
        full_same_after::<Rtn, true>(&values, &[short_bound(Rounding::TowardNegative)]);
    }
}

/// More lanes than the short pass's 16-bit counts can count in one run, every one a
/// subnormal inexact result: the pass counts a run at a time, so the totals stay whole.
/// (And as many flushes, or inexact results of 2^-24, which the short pass leaves to
/// the full pass.)
#[test]
fn f16c_short_pass_counts_past_sixteen_bits() {
    let n = (1 << 20) + 21;
    // 2^-20 and a bit (subnormal), just above 2^-25 (flushed toward zero), 2^-24 - 1
    // ULP of f32 (to nearest: the smallest subnormal).
    for fill in [0x3580_0123u32, 0xb300_0001, 0x337f_ffff] {
        let values = vec![fill; n];
        same_as_portable::<Rne>(&values);
        same_as_portable::<Rtz>(&values);
    }
}

/// A sweep of [`short_range`] (`normal`: f16's normal range only): each f32 exponent
/// from 2^-25 (2^-14) to 2^15, every one of the 13 bits below an f16 ULP there, the bits
/// above them all clear or all set, both signs.
fn sweep(normal: bool) -> Vec<u32> {
    let low = if normal { 113 } else { 102 };
    (low..=142u32)
        .flat_map(|e| {
            [0u32, 0x3ff].into_iter().flat_map(move |hi| {
                (0..1u32 << 13).flat_map(move |lo| {
                    let u = e << 23 | hi << 13 | lo;
                    [u, u | 0x8000_0000]
                })
            })
        })
        .filter(|&u| short_range(u))
        .collect()
}

/// The largest error of `values` in mode `M`, in 2^-26 ULPs, measured by the portable
/// pass, and that pass's f16 results (for [`caught`]).
fn portable_largest<M: Mode>(values: &[u32]) -> (u32, Vec<u16>) {
    let m = M::ROUNDING;
    let mut out = vec![0u16; values.len()];
    let pass = full_pass_portable::<ToF16, M, false>(values, &mut out);
    let mut stats = Stats::default();
    pass.into_stats::<ToF16>(values.len(), &mut stats);
    let units = crate::convert::kernels::lanes::ulps_to_units(stats.max_ulp_error);
    assert_eq!(
        units_to_ulps(units),
        stats.max_ulp_error,
        "whole units, mode {m:?}"
    );
    (units, out)
}

/// The largest error of every lane the passes take in mode `M`, over [`sweep`].
fn largest_error_over_sweep<M: Mode>(normal: bool) -> u32 {
    portable_largest::<M>(&sweep(normal)).0
}

/// The bounds past which the passes stop measuring errors: no lane they take has a larger
/// error (the sweep), and a lane of each reaches it (so a stream of such data stops
/// measuring early), which the passes find when they have not reached it yet.
fn bounds_hold<M: Mode>(normal_witness: u32, short_witness: u32) {
    let m = M::ROUNDING;
    assert_eq!(
        largest_error_over_sweep::<M>(true),
        normal_bound(M::ROUNDING),
        "normal, mode {m:?}"
    );
    assert_eq!(
        largest_error_over_sweep::<M>(false),
        short_bound(M::ROUNDING),
        "short, mode {m:?}"
    );
    let filler: Vec<u32> = (0..3000u32).map(|i| 0x3f80_0000 + (i << 13)).collect();
    for (witness, bound) in [
        (normal_witness, normal_bound(M::ROUNDING)),
        (short_witness, short_bound(M::ROUNDING)),
    ] {
        let mut block = filler.clone();
        block[2500] = witness;
        let mut out = vec![0u16; block.len()];
        let Some(taken) = short::<M>(&block, &mut out, bound - 1) else {
            return;
        };
        let got = (taken.declined == 0).then_some(taken.counts.max_units);
        // In a directed mode the short witness rounds to zero from [2^-25, 2^-24), a
        // flush, which the short pass leaves to the full pass.
        let want = (M::ROUNDING == Rounding::NearestEven || bound == normal_bound(M::ROUNDING))
            .then_some(bound);
        assert_eq!(got, want, "{witness:#010x}, mode {m:?}");
        same_after::<M>(&block, bound - 1);
        same_after::<M>(&block, bound);
    }
}

/// The short pass takes every lane of [`sweep`] that its range test does not catch, and
/// measures their largest error as the portable pass does: [`short_bound`] to nearest
/// (a tie), and in the directed modes less, since the lanes that reach it there are
/// flushes, which the full pass takes: 2^26 - 16 units toward zero (4 * 2^-24 - 2^-46
/// to 3 * 2^-24), 2^26 - 8 away from it (2^-24 + 2^-47 to 2 * 2^-24).
fn short_pass_measures_its_lanes<M: Mode>(want: u32) {
    let m = M::ROUNDING;
    let all = sweep(false);
    let (_, results) = portable_largest::<M>(&all);
    let taken: Vec<u32> = all
        .iter()
        .zip(&results)
        .filter(|&(&v, &h)| !caught(v, h))
        .map(|(&v, _)| v)
        .collect();
    assert_eq!(
        portable_largest::<M>(&taken).0,
        want,
        "portable, mode {m:?}"
    );
    let mut out = vec![0u16; taken.len()];
    let Some(got) = short::<M>(&taken, &mut out, 0) else {
        return;
    };
    assert_eq!(got.lanes, taken.len(), "lanes taken, mode {m:?}");
    assert_eq!(got.counts.max_units, want, "F16C, mode {m:?}");
}

#[test]
fn f16c_short_pass_measures_every_lane_it_takes() {
    short_pass_measures_its_lanes::<Rne>(short_bound(Rounding::NearestEven));
    short_pass_measures_its_lanes::<Rtz>((1 << 26) - 16);
    short_pass_measures_its_lanes::<Rtp>((1 << 26) - 8);
    short_pass_measures_its_lanes::<Rtn>((1 << 26) - 8);
}

#[test]
fn f16c_error_bounds_are_reached_and_never_passed() {
    // 1 + 2^-11 is a tie; 1 + 8191 * 2^-23 loses 8191 f32 steps toward zero, 1 + 2^-23
    // gains 8191 rounding up; 2^-24 - 2^-48 rounds to zero, losing all but 2^-48 of a ULP.
    bounds_hold::<Rne>(0x3f80_1000, 0x3f80_1000);
    bounds_hold::<Rtz>(0x3f80_1fff, 0x337f_ffff);
    bounds_hold::<Rtp>(0x3f80_0001, 0xb37f_ffff);
    bounds_hold::<Rtn>(0x3f80_1fff, 0x337f_ffff);
}

/// The largest error the F16C full pass measures (the one it leaves out once a stream has
/// reached [`short_bound`]) is within that bound, in both copies. (--saturate changes
/// no measured lane: the lanes past the range are left out of the errors either way.
/// The lanes whose errors can be larger, past the range or rounded up from below
/// 2^-25, are counted apart, and the tests above hold those counts to the portable
/// pass.)
fn full_measures_within_bound<M: Mode>(sweep: &[u32]) {
    let m = M::ROUNDING;
    let mut out = vec![0u16; sweep.len()];
    let bound = units_to_ulps(short_bound(M::ROUNDING));
    for simd in levels_from(Level::F16c) {
        let pass = full::<M, false>(simd, sweep, &mut out, 0);
        assert!(
            pass.max_error <= bound,
            "mode {m:?}: {} ULP measured, bound {bound}",
            pass.max_error
        );
    }
}

/// Over a sweep of f32 patterns: the f32 subnormals' exponent and the two above it, each
/// from 2^-31 to 2^23 (past the range), and INF's; every one of the 13 bits below an f16
/// ULP there, the bits above them all clear or all set; both signs.
#[test]
fn f16c_full_pass_measures_no_error_past_the_bound() {
    let sweep: Vec<u32> = [0, 1, 2]
        .into_iter()
        .chain(96..=150)
        .chain([255])
        .flat_map(|e: u32| {
            [0u32, 0x3ff].into_iter().flat_map(move |hi| {
                (0..1u32 << 13).flat_map(move |lo| {
                    let u = e << 23 | hi << 13 | lo;
                    [u, u | 0x8000_0000]
                })
            })
        })
        .collect();
    full_measures_within_bound::<Rne>(&sweep);
    full_measures_within_bound::<Rtz>(&sweep);
    full_measures_within_bound::<Rtp>(&sweep);
    full_measures_within_bound::<Rtn>(&sweep);
}
