//! The AVX2 and AVX-512 copies of the float passes against the portable passes.

use super::*;
use crate::convert::kernels::lanes::xorshift;
use crate::convert::kernels::narrow::{full_pass_portable, r11g11b10_full_portable};
use crate::convert::kernels::simd::{Level, Simd, dispatch, levels_from};
use crate::convert::kernels::target::{Rne, Rtn, Rtp, Rtz};
use crate::convert::summary::Stats;

/// Patterns from every region: f11/f10's normal range and its edges, subnormal and
/// far results, halfway points, overflow, NaN payloads, ±INF, ±0, negatives.
fn patterns(n: usize, mut state: u64) -> Vec<u32> {
    let specials = [
        0u32,
        0x8000_0000,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0001,
        0xffbf_ffff,
        0x7f80_0001,
        0x477e_0000,
        0x477f_0000,
        0x477f_ffff,
        0x4780_0000,
        0x7f7f_ffff,
        0x3880_0000,
        0x387f_ffff,
        0x3400_0000,
        0x3380_0000,
        0x0000_0001,
        0xbf80_0000,
    ];
    (0..n)
        .map(|i| {
            let r = xorshift(&mut state) as u32;
            match i % 6 {
                0 => specials[(r % specials.len() as u32) as usize],
                1 => r,
                // Around f11/f10's range, halfway points included.
                2 => (((r >> 23) % 50 + 95) << 23) | (r & 0x7f_c000) | (r & 0x4000),
                _ => ((r >> 23) % 45 + 100) << 23 | (r & 0x7f_ffff),
            }
        })
        .collect()
}

fn stats<T: Small>(p: NarrowPass, n: usize) -> Stats {
    let mut s = Stats::default();
    p.into_stats::<T>(n, &mut s);
    s
}

/// The full f11/f10 pass's copy at `simd`'s level.
fn narrow_copy<T: Small, M: Mode, const S: bool>(
    simd: Simd,
    values: &[u32],
    out: &mut [u16],
) -> NarrowPass {
    dispatch!(simd, {
        avx512 => avx512::float_full_pass::<T, M, S>(values, out),
        avx2 => avx2::float_full_pass::<T, M, S>(values, out),
        portable => unreachable!("an AVX2 level"),
    })
}

/// The R11G11B10 pass's copy at `simd`'s level.
fn texel_copy<M: Mode, const S: bool, const STRIDE: usize, const PLAIN: bool>(
    simd: Simd,
    values: &[u32],
    out: &mut [u32],
) -> Option<(NarrowPass, NarrowPass)> {
    dispatch!(simd, {
        avx512 => avx512::r11g11b10_float_pass::<M, S, STRIDE, PLAIN>(values, out),
        avx2 => avx2::r11g11b10_float_pass::<M, S, STRIDE, PLAIN>(values, out),
        portable => unreachable!("an AVX2 level"),
    })
}

fn same<T: Small, M: Mode, const S: bool>(values: &[u32]) {
    let m = M::ROUNDING;
    let frac = T::FRAC;
    let mut b = vec![0u16; values.len()];
    let pb = full_pass_portable::<T, M, S>(values, &mut b);
    for simd in levels_from(Level::Avx2) {
        let name = simd.level().name();
        let mut a = vec![0u16; values.len()];
        let pa = narrow_copy::<T, M, S>(simd, values, &mut a);
        assert_eq!(a, b, "{name} bits, F {frac} mode {m:?} saturate {S}");
        assert_eq!(
            stats::<T>(pa, values.len()),
            stats::<T>(pb, values.len()),
            "{name} counts, F {frac} mode {m:?} saturate {S}"
        );
    }
}

fn same_texels<const STRIDE: usize, M: Mode, const S: bool>(values: &[u32]) {
    let m = M::ROUNDING;
    let texels = values.len() / STRIDE;
    let values = &values[..texels * STRIDE];
    let mut b = vec![0u32; texels];
    let (b11, b10) = r11g11b10_full_portable::<M, S, STRIDE>(values, &mut b);
    let both = |p11: NarrowPass, p10: NarrowPass| {
        let mut s = stats::<ToF11>(p11, 3 * texels);
        s.merge(&stats::<ToF10>(p10, 0));
        s
    };
    let expected = both(b11, b10);
    // The plain pass takes a block whose channels are all +0 or positive up to the
    // largest finite value of their format, and no other.
    let plain = values
        .chunks_exact(STRIDE)
        .all(|t| t[0] <= ToF11::MAX_F32 && t[1] <= ToF11::MAX_F32 && t[2] <= ToF10::MAX_F32);
    let copies = levels_from(Level::Avx2)
        .into_iter()
        .flat_map(|simd| [(simd, false), (simd, true)]);
    for (simd, plain_pass) in copies {
        let name = simd.level().name();
        let mut a = vec![0u32; texels];
        let got = if plain_pass {
            texel_copy::<M, S, STRIDE, true>(simd, values, &mut a)
        } else {
            texel_copy::<M, S, STRIDE, false>(simd, values, &mut a)
        };
        let what = format!("{name} plain={plain_pass}, mode {m:?} saturate {S} stride {STRIDE}");
        if plain_pass && !plain {
            assert!(got.is_none(), "{what}: took a block that is not plain");
            continue;
        }
        let (a11, a10) = got.unwrap_or_else(|| panic!("{what}: refused the block"));
        assert_eq!(a, b, "{what}: words");
        assert_eq!(both(a11, a10), expected, "{what}: counts");
    }
}

macro_rules! every_mode {
    ($f:ident, $($g:tt),*; $v:expr) => {
        $f::<$($g,)* Rne, false>($v);
        $f::<$($g,)* Rne, true>($v);
        $f::<$($g,)* Rtz, false>($v);
        $f::<$($g,)* Rtz, true>($v);
        $f::<$($g,)* Rtp, false>($v);
        $f::<$($g,)* Rtp, true>($v);
        $f::<$($g,)* Rtn, false>($v);
        $f::<$($g,)* Rtn, true>($v);
    };
}

#[test]
fn full_passes_match_the_portable_ones() {
    let values = patterns(60_007, 0x11_10);
    for len in [0, 1, 7, 8, 15, 16, 17, 4096, values.len()] {
        every_mode!(same, ToF11; &values[..len]);
        every_mode!(same, ToF10; &values[..len]);
    }
    // Short blocks, so each part of the error is the largest in turn.
    for chunk in values.chunks(16).step_by(11) {
        every_mode!(same, ToF11; chunk);
        every_mode!(same, ToF10; chunk);
    }
}

#[test]
fn r11g11b10_full_passes_match_the_portable_ones() {
    texel_cases(&patterns(48_012, 0xb10));
}

/// `same_texels` in every mode, both strides, over prefixes of `values` (partial groups
/// of eight texels included) and short blocks, so each part of the error is the largest
/// in turn.
fn texel_cases(values: &[u32]) {
    for len in [0, 3, 4, 24, 27, 32, 36, 4096, values.len()] {
        every_mode!(same_texels, 3; &values[..len]);
        every_mode!(same_texels, 4; &values[..len]);
    }
    for chunk in values.chunks(24).step_by(11) {
        every_mode!(same_texels, 3; chunk);
        every_mode!(same_texels, 4; chunk);
    }
}

#[test]
fn plain_r11g11b10_pass_matches_the_portable_one() {
    // Every pattern made plain: +0 up to f10's largest finite value (a dark texture's
    // channels, subnormal and far results among them), then one channel that is not.
    let values: Vec<u32> = patterns(48_012, 0x9a1)
        .iter()
        .map(|&v| (v & 0x7fff_ffff).min(0x477c_0000))
        .collect();
    texel_cases(&values);
    for odd in [
        0x8000_0000u32,
        0x477e_0001,
        0x7f80_0000,
        0x7fc0_0000,
        0xbf80_0000,
    ] {
        let mut v = values[..4800].to_vec();
        v[3000] = odd;
        every_mode!(same_texels, 3; &v);
        every_mode!(same_texels, 4; &v);
    }
}

/// More lanes than a 16-bit half can count, all of one kind in every pair of counts:
/// the drains keep the totals whole.
#[test]
fn counts_past_sixteen_bits() {
    let n = (1 << 20) + 13;
    for fill in [
        0x7fc0_0000u32,
        0xbf80_0000,
        0x7f7f_ffff,
        0x0000_0001,
        0x3f80_0001,
    ] {
        let values = vec![fill; n];
        same::<ToF11, Rne, false>(&values);
        same::<ToF10, Rtp, true>(&values);
        same_texels::<4, Rne, false>(&values);
        same_texels::<3, Rtz, false>(&values[..n / 3 * 3]);
    }
}
