//! The fast kernels on data that is not texture-like: uniformly random bit patterns and
//! adversarial blocks (NaN payloads, ±INF, ±0, subnormals, the largest finite values,
//! halfway points, overflow, negatives into the unsigned formats), so that whole blocks
//! take the full vector pass, blocks that start ordinary fall back to it, and the largest
//! error of a block comes from each of its parts in turn. Bit for bit and count for count
//! against the per-element core, in every rounding mode with and without --saturate, on
//! one thread and through the parallel driver, with odd lengths.

use d3dfloat::convert::kernels::simd::for_each_level;
use d3dfloat::convert::{Conversion, Stats, element, kernels, raw};
use d3dfloat::format::{F10, F11, F16, F32, FloatFormat, Format, RoundOptions, Rounding};

mod common;

use common::Rng;

fn all_options() -> Vec<RoundOptions> {
    Rounding::ALL
        .iter()
        .flat_map(|&mode| [false, true].map(|saturate| RoundOptions { mode, saturate }))
        .collect()
}

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// The kernels against the core, identical bytes and counts: on one thread at every
/// level this CPU has (the shared runner names those it lacks), and through the
/// parallel driver at the detected one.
fn check(to: Format, channels: usize, words: &[u32]) {
    let src = bytes(words);
    let mut levels = Vec::new();
    for_each_level(|simd| levels.push(Some(simd)));
    levels.push(None);
    for opts in all_options() {
        let conv = Conversion::new(Format::Float(F32), to, channels, opts).unwrap();
        let len = conv.dst_len(src.len());
        let mut want = vec![0u8; len];
        let want_stats = element::convert_slice(&conv, &src, &mut want);
        for &level in &levels {
            let parallel = level.map_or("parallel", |simd| simd.level().name());
            let mut got = vec![0u8; len];
            let got_stats = match level {
                None => raw::convert_parallel(&conv, &src, &mut got),
                Some(simd) => {
                    let mut stats = Stats::default();
                    kernels::convert_slice_at(simd, &conv, &src, &mut got, &mut stats);
                    stats
                }
            };
            let g = conv.dst_group_bytes();
            if let Some(i) = (0..len / g).find(|&i| want[i * g..][..g] != got[i * g..][..g]) {
                let s = conv.src_group_bytes() / 4;
                panic!(
                    "f32 -> {} {opts:?} {parallel}: group {i} src {:08x?}: core \
                     {:02x?}, fast {:02x?}",
                    to.name(),
                    &words[i * s..][..s],
                    &want[i * g..][..g],
                    &got[i * g..][..g]
                );
            }
            assert_eq!(
                want_stats,
                got_stats,
                "f32 -> {} {opts:?} {parallel}: counts",
                to.name()
            );
        }
    }
}

/// Values where something happens for `fmt`, as f32 patterns: the specials, and each
/// edge of the format (smallest subnormal, smallest normal, largest finite, the overflow
/// threshold) with its halfway points and f32 neighbours, both signs.
fn adversarial(fmt: &FloatFormat) -> Vec<u32> {
    let mut out = common::F32_SPECIALS.to_vec();
    // float16's overflow threshold and its neighbours.
    out.extend([0x477f_8000, 0x477f_8001, 0x4780_0000]);
    let edges = [
        fmt.to_f64(1),
        fmt.to_f64(fmt.min_normal()),
        fmt.to_f64(fmt.max_finite()),
    ];
    for e in edges {
        for x in [e, e / 2.0, e * 1.5, e * 2.0, e * 0.75, e / 4.0, e / 1024.0] {
            let b = (x as f32).to_bits();
            for bits in [b.wrapping_sub(1), b, b + 1] {
                out.extend([bits, bits | 0x8000_0000]);
            }
        }
    }
    // The overflow threshold: the largest finite plus half a ULP, and one ULP.
    let max = fmt.to_f64(fmt.max_finite());
    let ulp = max - fmt.to_f64(fmt.max_finite() - 1);
    for x in [max + ulp / 2.0, max + ulp, 65408.0 + 64.0, 65408.0 + 128.0] {
        let b = (x as f32).to_bits();
        for bits in [b - 1, b, b + 1] {
            out.extend([bits, bits | 0x8000_0000]);
        }
    }
    out
}

fn uniform(n: usize, seed: u64) -> Vec<u32> {
    let mut rng = Rng(seed);
    (0..n).map(|_| rng.next() as u32).collect()
}

/// Texture-like values with one adversarial value every `every` lanes; the first lanes
/// of each block are ordinary, so the short pass runs first and hands the block over.
fn sprinkled(n: usize, every: usize, specials: &[u32], seed: u64) -> Vec<u32> {
    let mut rng = Rng(seed);
    (0..n)
        .map(|i| {
            if i % every == every - 1 {
                pick(&mut rng, specials)
            } else {
                let u = (rng.next() >> 40) as f32 / (1u64 << 24) as f32;
                (u * 100.0 + 0.01).to_bits()
            }
        })
        .collect()
}

#[test]
fn random_bit_patterns_to_f16_f11_f10() {
    let words = uniform(40_001, 21);
    for fmt in [F16, F11, F10] {
        check(Format::Float(fmt), 1, &words);
    }
}

#[test]
fn adversarial_values_to_f16_f11_f10() {
    for fmt in [F16, F11, F10] {
        let specials = adversarial(&fmt);
        // On their own (every lane exceptional), one at a time (each its own block, so
        // its error is the block's largest), and sprinkled among ordinary values.
        check(Format::Float(fmt), 1, &specials);
        for &s in &specials {
            check(Format::Float(fmt), 1, &[s]);
        }
        for every in [2, 7, 1000, 5000] {
            check(
                Format::Float(fmt),
                1,
                &sprinkled(20_011, every, &specials, 22),
            );
        }
    }
}

#[test]
fn random_and_adversarial_texels_pack() {
    let words = uniform(3 * 9_001, 23);
    for to in [Format::R11G11B10, Format::Rgb9e5] {
        check(to, 3, &words);
        check(to, 4, &words[..4 * 6_000]);
    }
    let mut specials = adversarial(&F11);
    specials.extend(adversarial(&F10));
    let mut rng = Rng(24);
    let texels: Vec<u32> = (0..3 * 4_000).map(|_| pick(&mut rng, &specials)).collect();
    let sprinkled = sprinkled(3 * 7_000, 13, &specials, 25);
    for to in [Format::R11G11B10, Format::Rgb9e5] {
        check(to, 3, &texels);
        check(to, 3, &sprinkled);
        for t in texels.chunks_exact(3).take(300) {
            check(to, 3, t);
        }
    }
}

#[test]
#[ignore = "minutes in a debug build: cargo test --release --test convert_any_data -- --ignored"]
fn many_random_bit_patterns() {
    let words = uniform(6_000_000, 26);
    for fmt in [F16, F11, F10] {
        check(Format::Float(fmt), 1, &words);
    }
    for to in [Format::R11G11B10, Format::Rgb9e5] {
        check(to, 3, &words);
    }
}

#[test]
fn blocks_reaching_into_the_subnormals() {
    // Texture-like values scaled down so that many land among f16's subnormals (and
    // some round to zero), with no NaN, INF or overflow: whole blocks the short passes
    // can take, their subnormal and flushed counts and errors included.
    let mut rng = Rng(27);
    let words: Vec<u32> = (0..30_011)
        .map(|i| {
            let u = (rng.next() >> 40) as f32 / (1u64 << 24) as f32;
            // From 2^-25 (which f16 flushes to zero or rounds to its smallest
            // subnormal) up to 2: what the short passes take, subnormals included.
            let x = (1.0 + u) * 2f32.powi(-((rng.next() % 26) as i32));
            let x = if i % 97 == 0 { 0.0 } else { x };
            let x = if i % 5 == 0 { -x } else { x };
            x.to_bits()
        })
        .collect();
    check(Format::Float(F16), 1, &words);
    let positive: Vec<u32> = words.iter().map(|w| w & 0x7fff_ffff).collect();
    check(Format::Float(F11), 1, &positive);
    check(Format::R11G11B10, 3, &positive[..30_000]);
    for w in words.chunks(2).step_by(37) {
        check(Format::Float(F16), 1, w);
    }
}

#[test]
fn one_exception_late_in_a_block() {
    // Texture-like values with a single exception (a subnormal result, NaN, a negative,
    // overflow) at a lane where the short passes' runs meet it late: first or last in a
    // run, in the last run of a block, in the block after. The runs before it keep the
    // short pass's answers and counts, the rest goes through the full pass.
    // No adversarial value in it: `every` is never reached.
    let ordinary = sprinkled(3 * 9_000, usize::MAX, &[], 28);
    let exceptions = [
        (1e-5f32).to_bits(),
        0x7fc0_1234,
        (-2.5f32).to_bits(),
        (1e9f32).to_bits(),
    ];
    for (k, &x) in exceptions.iter().enumerate() {
        for lane in [0, 255, 256, 767, 1023, 1024, 4095, 8191, 8192, 8447] {
            let mut words = ordinary.clone();
            words[lane + k] = x;
            check(Format::Float(F11), 1, &words[..9_000]);
        }
        // Blocks of R11G11B10 are 1024 texels: the same places in texels, in a texel's
        // first (f11) and last (f10) channel.
        for texel in [0, 255, 256, 767, 1023, 1024, 2047, 2303] {
            for channel in [0, 2] {
                let mut texels = ordinary.clone();
                texels[3 * (texel + k) + channel] = x;
                check(Format::R11G11B10, 3, &texels[..3 * 2_400]);
            }
        }
    }
}

/// One element of `from`, chosen by `rng`.
fn pick<T: Copy>(rng: &mut Rng, from: &[T]) -> T {
    from[rng.below(from.len() as u64) as usize]
}
