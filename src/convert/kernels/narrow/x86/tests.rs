//! The AVX2 and AVX-512 copies of the float passes against the portable passes.

use super::super::super::{RNE, RTN, RTP, RTZ, xorshift};
use super::super::{narrow_full_generic, r11g11b10_full_generic};
use super::*;
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

fn stats<const F: u32>(p: NarrowPass, n: usize) -> Stats {
    let mut s = Stats::default();
    p.into_stats::<F>(n, &mut s);
    s
}

type NarrowCopy = unsafe fn(&[u32], &mut [u16]) -> NarrowPass;
type TexelCopy = unsafe fn(&[u32], &mut [u32]) -> Option<(NarrowPass, NarrowPass)>;

/// The copies of a driver this CPU runs, as `$ty` pointers: AVX2 (the callers checked
/// for it), and AVX-512 where it was built and the CPU has it.
macro_rules! copies {
    ($ty:ty, $avx2:expr, $avx512:expr) => {{
        #[cfg_attr(not(d3dfloat_avx512), allow(unused_mut))]
        let mut v: Vec<(&'static str, $ty)> = vec![("avx2", $avx2)];
        #[cfg(d3dfloat_avx512)]
        if super::super::super::has_avx512() {
            v.push(("avx512", $avx512));
        }
        v
    }};
}

fn narrow_copies<const F: u32, const M: u8, const S: bool>() -> Vec<(&'static str, NarrowCopy)> {
    copies!(
        NarrowCopy,
        narrow_full::<F, M, S>,
        narrow_full_avx512::<F, M, S>
    )
}

fn texel_copies<const M: u8, const S: bool, const STRIDE: usize, const PLAIN: bool>()
-> Vec<(&'static str, TexelCopy)> {
    copies!(
        TexelCopy,
        r11g11b10_full::<M, S, STRIDE, PLAIN>,
        r11g11b10_full_avx512::<M, S, STRIDE, PLAIN>
    )
}

fn same<const F: u32, const M: u8, const S: bool>(values: &[u32]) {
    let mut b = vec![0u16; values.len()];
    let pb = narrow_full_generic::<F, false, M, S>(values, &mut b);
    for (name, copy) in narrow_copies::<F, M, S>() {
        let mut a = vec![0u16; values.len()];
        // SAFETY: `narrow_copies` lists only what the CPU runs.
        let pa = unsafe { copy(values, &mut a) };
        assert_eq!(a, b, "{name} bits, F {F} mode {M} saturate {S}");
        assert_eq!(
            stats::<F>(pa, values.len()),
            stats::<F>(pb, values.len()),
            "{name} counts, F {F} mode {M} saturate {S}"
        );
    }
}

fn same_texels<const STRIDE: usize, const M: u8, const S: bool>(values: &[u32]) {
    let texels = values.len() / STRIDE;
    let values = &values[..texels * STRIDE];
    let mut b = vec![0u32; texels];
    let (b11, b10) = r11g11b10_full_generic::<M, S, STRIDE>(values, &mut b);
    let both = |p11: NarrowPass, p10: NarrowPass| {
        let mut s = stats::<6>(p11, 3 * texels);
        s.merge(&stats::<5>(p10, 0));
        s
    };
    let expected = both(b11, b10);
    // The plain pass takes a block whose channels are all +0 or positive up to the
    // largest finite value of their format, and no other.
    let plain = values
        .chunks_exact(STRIDE)
        .all(|t| t[0] <= 0x477e_0000 && t[1] <= 0x477e_0000 && t[2] <= 0x477c_0000);
    let copies = texel_copies::<M, S, STRIDE, false>()
        .into_iter()
        .map(|(name, copy)| (name, false, copy))
        .chain(
            texel_copies::<M, S, STRIDE, true>()
                .into_iter()
                .map(|(name, copy)| (name, true, copy)),
        );
    for (name, plain_pass, copy) in copies {
        let mut a = vec![0u32; texels];
        // SAFETY: `texel_copies` lists only what the CPU runs.
        let got = unsafe { copy(values, &mut a) };
        let what = format!("{name} plain={plain_pass}, mode {M} saturate {S} stride {STRIDE}");
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
        $f::<$($g,)* RNE, false>($v);
        $f::<$($g,)* RNE, true>($v);
        $f::<$($g,)* RTZ, false>($v);
        $f::<$($g,)* RTZ, true>($v);
        $f::<$($g,)* RTP, false>($v);
        $f::<$($g,)* RTP, true>($v);
        $f::<$($g,)* RTN, false>($v);
        $f::<$($g,)* RTN, true>($v);
    };
}

#[test]
fn full_passes_match_the_portable_ones() {
    if !std::is_x86_feature_detected!("avx2") {
        return;
    }
    let values = patterns(60_007, 0x11_10);
    for len in [0, 1, 7, 8, 15, 16, 17, 4096, values.len()] {
        every_mode!(same, 6; &values[..len]);
        every_mode!(same, 5; &values[..len]);
    }
    // Short blocks, so each part of the error is the largest in turn.
    for chunk in values.chunks(16).step_by(11) {
        every_mode!(same, 6; chunk);
        every_mode!(same, 5; chunk);
    }
}

#[test]
fn r11g11b10_full_passes_match_the_portable_ones() {
    if !std::is_x86_feature_detected!("avx2") {
        return;
    }
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
    if !std::is_x86_feature_detected!("avx2") {
        return;
    }
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
    if !std::is_x86_feature_detected!("avx2") {
        return;
    }
    let n = (1 << 20) + 13;
    for fill in [
        0x7fc0_0000u32,
        0xbf80_0000,
        0x7f7f_ffff,
        0x0000_0001,
        0x3f80_0001,
    ] {
        let values = vec![fill; n];
        same::<6, RNE, false>(&values);
        same::<5, RTP, true>(&values);
        same_texels::<4, RNE, false>(&values);
        same_texels::<3, RTZ, false>(&values[..n / 3 * 3]);
    }
}
