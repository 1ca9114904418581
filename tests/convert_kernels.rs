//! Every fast kernel against the per-element core (`convert::element`), bit for bit and
//! count for count, in every rounding mode with and without --saturate: all f16, f11 and
//! f10 patterns, every rounding boundary of f16/f11/f10/rgb9e5 seen from f32, and a large
//! random sample of f32 (NaN payloads, subnormals and negatives included).

use d3dfloat::convert::kernels::simd::for_each_level;
use d3dfloat::convert::{Conversion, Stats, element, kernels};
use d3dfloat::format::{F10, F11, F16, F32, F64, FloatFormat, Format, RoundOptions, Rounding};

mod common;

/// splitmix64: a small, fixed-seed generator so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// An f32 pattern: a third uniform bits (NaN payloads, subnormals, both signs), the rest
    /// with exponents around the small formats' range.
    fn f32_bits(&mut self) -> u32 {
        let r = self.next();
        if r.is_multiple_of(3) {
            (r >> 32) as u32
        } else {
            let exp = 127 - 40 + ((r >> 8) % 60) as u32;
            let sign = ((r >> 20) & 1) as u32;
            (sign << 31) | (exp << 23) | ((r >> 32) as u32 & 0x7f_ffff)
        }
    }
}

fn all_options() -> Vec<RoundOptions> {
    Rounding::ALL
        .iter()
        .flat_map(|&mode| [false, true].map(|saturate| RoundOptions { mode, saturate }))
        .collect()
}

/// Runs the core and the kernels at every level this CPU has (the shared runner names
/// those it lacks) over `src`, and demands identical bytes and counts.
fn check(from: Format, to: Format, channels: usize, src: &[u8]) {
    for opts in all_options() {
        let conv = Conversion::new(from, to, channels, opts).unwrap();
        let len = conv.dst_len(src.len());
        let mut want = vec![0u8; len];
        let want_stats = element::convert_slice(&conv, src, &mut want);
        for_each_level(|simd| {
            let mut got = vec![0u8; len];
            let mut got_stats = Stats::default();
            kernels::convert_slice_at(simd, &conv, src, &mut got, &mut got_stats);
            let g = conv.dst_group_bytes();
            if let Some(i) = (0..len / g).find(|&i| want[i * g..][..g] != got[i * g..][..g]) {
                let s = conv.src_group_bytes();
                panic!(
                    "{} -> {} {:?} at {:?}: group {i} src {:02x?}: core {:02x?}, fast {:02x?}",
                    from.name(),
                    to.name(),
                    opts,
                    simd.level(),
                    &src[i * s..][..s],
                    &want[i * g..][..g],
                    &got[i * g..][..g]
                );
            }
            assert_eq!(
                want_stats,
                got_stats,
                "{} -> {} {:?} at {:?}: counts",
                from.name(),
                to.name(),
                opts,
                simd.level()
            );
        });
    }
}

fn bytes_u32(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn bytes_u16(words: &[u16]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Every pattern of `fmt`, its value, the midpoints to its neighbours, and the f32 values
/// one ULP either side of each: every place a rounding decision can change. Negated too.
fn boundaries_f32(fmt: &FloatFormat) -> Vec<u32> {
    let mut out = Vec::new();
    let top = fmt.infinity(false);
    for b in 0..=top {
        let v = fmt.to_f64(b);
        let next = if b < top { fmt.to_f64(b + 1) } else { v * 2.0 };
        for x in [v, (v + next) / 2.0] {
            let x = x as f32;
            for bits in [x.to_bits().wrapping_sub(1), x.to_bits(), x.to_bits() + 1] {
                out.extend([bits, bits | 0x8000_0000]);
            }
        }
    }
    out
}

fn specials_f32() -> Vec<u32> {
    let mut out = common::F32_SPECIALS.to_vec();
    out.extend([
        0x3f80_0000,
        0x4780_0000,
        0x477f_f000,
        0x477f_e000,
        0x477f_8000,
        0x477f_c000,
        0x3380_0000,
        0x3300_0000,
    ]);
    out
}

fn random_f32(n: usize, seed: u64) -> Vec<u32> {
    let mut rng = Rng(seed);
    (0..n).map(|_| rng.f32_bits()).collect()
}

#[test]
fn f32_to_f16_f11_f10_on_every_boundary_and_special() {
    for fmt in [F16, F11, F10] {
        let mut src = boundaries_f32(&fmt);
        src.extend(specials_f32());
        check(Format::Float(F32), Format::Float(fmt), 1, &bytes_u32(&src));
    }
}

#[test]
fn f32_to_f16_f11_f10_on_random_patterns() {
    let src = bytes_u32(&random_f32(200_000, 1));
    for fmt in [F16, F11, F10, F32, F64] {
        check(Format::Float(F32), Format::Float(fmt), 1, &src);
    }
}

#[test]
fn every_f16_f11_f10_pattern_widens_and_narrows() {
    let all16: Vec<u16> = (0..=u16::MAX).collect();
    let all11: Vec<u16> = (0..0x800).collect();
    let all10: Vec<u16> = (0..0x400).collect();
    for (fmt, src) in [(F16, &all16), (F11, &all11), (F10, &all10)] {
        for to in [F32, F64, F16, F11, F10] {
            check(Format::Float(fmt), Format::Float(to), 1, &bytes_u16(src));
        }
    }
}

#[test]
fn f64_source_goes_through_the_core() {
    let mut rng = Rng(7);
    let src: Vec<u8> = (0..20_000).flat_map(|_| rng.next().to_le_bytes()).collect();
    check(Format::Float(F64), Format::Float(F32), 1, &src);
}

#[test]
fn packing_r11g11b10_on_boundaries_and_random_texels() {
    // Each channel in turn runs over every f11 (f10 for blue) boundary; then random texels.
    let b11 = boundaries_f32(&F11);
    let b10 = boundaries_f32(&F10);
    let mut texels = Vec::new();
    for (i, &x) in b11.iter().enumerate() {
        texels.extend([x, b11[(i * 7) % b11.len()], b10[i % b10.len()]]);
    }
    for (i, &x) in b10.iter().enumerate() {
        texels.extend([b11[i % b11.len()], x, x]);
    }
    texels.extend(random_f32(90_000, 2));
    let src = bytes_u32(&texels);
    check(Format::Float(F32), Format::R11G11B10, 3, &src);
    let four: Vec<u32> = texels
        .chunks_exact(3)
        .flat_map(|t| [t[0], t[1], t[2], 0xdead_beef])
        .collect();
    check(Format::Float(F32), Format::R11G11B10, 4, &bytes_u32(&four));
}

/// Values on every RGB9E5 rounding boundary: for each shared exponent, the mantissa steps,
/// their midpoints, the f32 neighbours of both, and the carry from 511 to 512.
fn rgb9e5_boundaries() -> Vec<u32> {
    let mut out = Vec::new();
    for big_e in 0..32 {
        let scale = 2f64.powi(big_e - 24);
        for m in [0u32, 1, 2, 3, 255, 256, 257, 300, 509, 510, 511] {
            for x in [m as f64 * scale, (m as f64 + 0.5) * scale] {
                let bits = (x as f32).to_bits();
                out.extend([bits.saturating_sub(1), bits, bits + 1]);
            }
        }
    }
    out
}

#[test]
fn packing_rgb9e5_on_boundaries_and_random_texels() {
    let edges = rgb9e5_boundaries();
    let specials = specials_f32();
    let mut rng = Rng(3);
    let mut texels = Vec::new();
    for &x in &edges {
        // The boundary value as the largest channel, and beside a larger one.
        let other = edges[(rng.next() % edges.len() as u64) as usize];
        texels.extend([x, other, 0]);
        texels.extend([other, x, specials[(rng.next() % 24) as usize]]);
    }
    for &s in &specials {
        texels.extend([s, 0x3f80_0000, s]);
    }
    texels.extend(random_f32(30_000, 4));
    check(Format::Float(F32), Format::Rgb9e5, 3, &bytes_u32(&texels));
}

#[test]
fn unpacking_matches_the_core() {
    let mut rng = Rng(5);
    let mut words: Vec<u32> = (0..60_000).map(|_| rng.next() as u32).collect();
    // Every f11 pattern in each channel of R11G11B10, every exponent and edge of RGB9E5.
    words.extend((0..0x800u32).flat_map(|b| [b, b << 11, (b & 0x3ff) << 22]));
    words.extend((0..32u32).flat_map(|e| [0, 1, 0x1ff, 0x7fff_ffff].map(|m| (e << 27) | m)));
    let src = bytes_u32(&words);
    for from in [Format::R11G11B10, Format::Rgb9e5] {
        for to in [F32, F16, F64] {
            for ch in [3, 4] {
                check(from, Format::Float(to), ch, &src);
            }
        }
    }
    check(Format::R11G11B10, Format::Rgb9e5, 1, &src);
    check(Format::Rgb9e5, Format::R11G11B10, 1, &src);
}

#[test]
fn f16_texels_pack_through_f32_exactly() {
    let mut rng = Rng(6);
    let halves: Vec<u16> = (0..30_000).map(|_| rng.next() as u16).collect();
    for to in [Format::R11G11B10, Format::Rgb9e5] {
        check(Format::Float(F16), to, 3, &bytes_u16(&halves[..29_997]));
        check(Format::Float(F16), to, 4, &bytes_u16(&halves[..29_996]));
    }
}

#[test]
#[ignore = "minutes in a debug build: cargo test --release --test convert_kernels -- --ignored"]
fn large_random_sample_of_f32() {
    let src = bytes_u32(&random_f32(20_000_000, 11));
    for fmt in [F16, F11, F10] {
        check(Format::Float(F32), Format::Float(fmt), 1, &src);
    }
    let src = bytes_u32(&random_f32(3_000_000, 12));
    check(Format::Float(F32), Format::R11G11B10, 3, &src);
    check(Format::Float(F32), Format::Rgb9e5, 3, &src);
}

/// Whether `bits` (an f32) lies where the kernels' ordinary path takes it: ±0, or from the
/// smallest normal to the largest finite value of `fmt`, non-negative for f11/f10.
fn ordinary_for(fmt: &FloatFormat, bits: u32) -> bool {
    let x = f32::from_bits(bits) as f64;
    let a = x.abs();
    a == 0.0
        || (a >= fmt.to_f64(fmt.min_normal())
            && a <= fmt.to_f64(fmt.max_finite())
            && (fmt.signed || x > 0.0))
}

#[test]
fn ordinary_blocks_match_the_core() {
    // Whole blocks with nothing but ordinary values, so the short path runs: every
    // boundary in range, then random values in range.
    let mut rng = Rng(9);
    for fmt in [F16, F11, F10] {
        let mut src: Vec<u32> = boundaries_f32(&fmt)
            .into_iter()
            .filter(|&b| ordinary_for(&fmt, b))
            .collect();
        while src.len() < 300_000 {
            let b = rng.f32_bits();
            if ordinary_for(&fmt, b) {
                src.push(b);
            }
        }
        check(Format::Float(F32), Format::Float(fmt), 1, &bytes_u32(&src));
    }
    let mut texels = Vec::new();
    while texels.len() < 3 * 60_000 {
        let b = rng.f32_bits();
        if ordinary_for(&F10, b) {
            texels.push(b);
        }
    }
    check(
        Format::Float(F32),
        Format::R11G11B10,
        3,
        &bytes_u32(&texels),
    );
    let four: Vec<u32> = texels
        .chunks_exact(3)
        .flat_map(|t| [t[0], t[1], t[2], 0x7fc0_0000])
        .collect();
    check(Format::Float(F32), Format::R11G11B10, 4, &bytes_u32(&four));
}

#[test]
fn blocks_with_sparse_exceptions_match_the_core() {
    // Ordinary values (normal-range results first, then with subnormal results mixed
    // in) with a value the short pass cannot take here and there: at the edges of its
    // runs (256, 1024 and 2048 lanes), of the blocks (32768 values), in clusters, and
    // in the first lanes of a block. The short pass takes the runs around each, so
    // every run boundary of a block with a few exceptions is crossed.
    let mut rng = Rng(14);
    let mut src: Vec<u32> = std::iter::from_fn(|| Some(rng.f32_bits()))
        .filter(|&b| ordinary_for(&F16, b))
        .take(3 * 32_768 + 777)
        .collect();
    for (i, v) in src.iter_mut().enumerate().skip(36_000).step_by(37) {
        // Results below 2^-14, either sign.
        *v = 0x3400_0000 | (i as u32 * 0x9e37) & 0x007f_ffff | (i as u32 & 1) << 31;
    }
    let odd = [
        0x7fc0_1234u32, // NaN with a payload
        0xff80_0000,    // -INF
        0x4e6e_6b28,    // 1e9
        0x477f_f100,    // past 65504, rounds within a ULP to nearest
        0x3280_0000,    // 2^-26: flushed or rounded up to 2^-24
        0xb080_0000,    // -2^-30
        0x477f_e000,    // 65504 exactly
        0x3380_0001,    // just above 2^-24: an inexact 2^-24
        0x0000_0001,    // the smallest f32 subnormal
    ];
    let at = [
        255,
        256,
        1023,
        1024,
        1279,
        1280,
        2047,
        2048,
        2049,
        4095,
        20_000,
        32_767,
        32_768,
        32_770,
        36_100,
        40_000,
        40_001,
        45_000,
        45_002,
        45_004,
        65_536 + 3,
        70_000,
        98_000,
    ];
    for (k, &i) in at.iter().enumerate() {
        src[i] = odd[k % odd.len()];
    }
    check(Format::Float(F32), Format::Float(F16), 1, &bytes_u32(&src));
    // f11 and f10 (runs of 1024, blocks of 8192): a run with an exception alone, two
    // runs in a row with one, and a block's first run with one.
    for fmt in [F11, F10] {
        let mut src: Vec<u32> = std::iter::from_fn(|| Some(rng.f32_bits()))
            .filter(|&b| ordinary_for(&fmt, b))
            .take(4 * 8192 + 333)
            .collect();
        let at = [
            1023,
            1024,
            3000,
            4100,
            5200,
            8191,
            8192 + 2000,
            16_384 + 700,
            16_384 + 1500,
            24_576 + 8000,
            32_768 + 100,
        ];
        for (k, &i) in at.iter().enumerate() {
            src[i] = odd[k % odd.len()];
        }
        check(Format::Float(F32), Format::Float(fmt), 1, &bytes_u32(&src));
    }
}

#[test]
fn single_values_report_their_own_error() {
    // A block's maximum hides any one value's error, so values that round across a binade
    // edge (where the result's ULP doubles), into the subnormals and to zero are checked
    // one at a time.
    for fmt in [F16, F11, F10] {
        let mut values = Vec::new();
        for k in -30..17 {
            let p = 2f64.powi(k);
            for x in [
                p * (1.0 - 2f64.powi(-24)),
                p * (1.0 - 2f64.powi(-12)),
                p * (1.0 - 2f64.powi(-(fmt.frac_bits as i32) - 2)),
                p * (1.0 - 2f64.powi(-(fmt.frac_bits as i32) - 1)),
                p * (1.0 + 2f64.powi(-(fmt.frac_bits as i32) - 1)),
                p * 1.3,
            ] {
                let bits = (x as f32).to_bits();
                values.extend([bits, bits | 0x8000_0000]);
            }
        }
        for v in values {
            check(Format::Float(F32), Format::Float(fmt), 1, &v.to_le_bytes());
        }
    }
}

#[test]
fn rgb9e5_texels_report_their_own_error() {
    // One texel at a time, so a block's maximum cannot hide a channel's error: a large
    // channel held exactly beside small ones far below the shared exponent (mantissa 0, or
    // 1 when rounding up), and beside ones just within reach.
    let big = [1.0f32, 3.0, 256.0, 65408.0, 0.5];
    let small = [
        1e-7f32,
        3e-5,
        1.5 * 2f32.powi(-20),
        2f32.powi(-126),
        1e-40,
        0.01,
        0.75,
    ];
    for &b in &big {
        for &s in &small {
            for texel in [[b, s, 0.0], [s, b, s], [0.0, s, b]] {
                let words: Vec<u32> = texel.iter().map(|x| x.to_bits()).collect();
                check(Format::Float(F32), Format::Rgb9e5, 3, &bytes_u32(&words));
            }
        }
    }
}

/// A stream converted a slice at a time into one set of counts, as `convert` does: once
/// its largest error has reached the most the f16 passes can give, they stop measuring
/// it, and the counts of the whole stream must still be the core's, larger errors later
/// on (a value just under 2^-24 toward zero, past 65504, far past it) included.
#[test]
fn f16_stream_counts_stay_exact_once_the_largest_error_is_reached() {
    // Slice 1: values in f16's normal range with every 13-bit tail below its ULP, so
    // that every mode meets its largest normal-range error (a tie, or 8191 f32 steps).
    let tails: Vec<u32> = (0..1u32 << 13).map(|t| 0x3f80_0000 | t).collect();
    // Slice 2: ordinary values only. Slice 3: the same with subnormal results, then the
    // larger errors.
    let mut rng = Rng(12);
    let ordinary: Vec<u32> = std::iter::from_fn(|| Some(rng.f32_bits()))
        .filter(|&b| ordinary_for(&F16, b))
        .take(40_000)
        .collect();
    let mut late = ordinary.clone();
    for (i, v) in late.iter_mut().enumerate().step_by(29) {
        *v = 0x3400_0000 | (i as u32 * 0x9e37) & 0x007f_ffff | (i as u32 & 1) << 31;
    }
    // Then slices with one larger error each, so that each is the stream's largest when
    // it comes: 2^-24 - 2^-48 toward zero (either sign), 65504 + 15.99 and 1.0e30.
    let mut slices = vec![bytes_u32(&tails), bytes_u32(&ordinary), bytes_u32(&late)];
    for v in [0x337f_ffffu32, 0xb37f_ffff, 0x477f_efff, 0x7149_f2ca] {
        let mut one = late.clone();
        one[20_000] = v;
        slices.push(bytes_u32(&one));
    }
    for_each_level(|simd| streams_at(simd, &slices));
}

/// The slices of [`f16_stream_counts_stay_exact_once_the_largest_error_is_reached`] as one stream at `simd`'s
/// level.
fn streams_at(simd: kernels::Simd, slices: &[Vec<u8>]) {
    for opts in all_options() {
        let conv = Conversion::new(Format::Float(F32), Format::Float(F16), 1, opts).unwrap();
        let (mut got, mut whole_src, mut whole_out) = (Default::default(), Vec::new(), Vec::new());
        for (k, src) in slices.iter().enumerate() {
            let mut out = vec![0u8; conv.dst_len(src.len())];
            kernels::convert_slice_at(simd, &conv, src, &mut out, &mut got);
            whole_src.extend_from_slice(src);
            whole_out.extend_from_slice(&out);
            let mut want = vec![0u8; conv.dst_len(whole_src.len())];
            let want_stats = element::convert_slice(&conv, &whole_src, &mut want);
            assert!(want == whole_out, "{opts:?}: bits, slices 1-{}", k + 1);
            assert_eq!(got, want_stats, "{opts:?}: counts, slices 1-{}", k + 1);
        }
    }
}
