//! Deterministic input sets: the same seed gives the same lines on every machine.
//!
//! Each instruction gets a grid of special operands first (every pair, for two-operand
//! instructions), then the cases its rules single out (ties, overflow, cancellation, large
//! sincos arguments, out-of-range conversions), then random lines drawn from a mix of
//! random bit patterns, specials, denormals and values near 1.

use super::catalog::{Kernel, Lane};
use crate::d3d::Op;

/// The default and smallest useful number of lines per instruction.
pub const DEFAULT_COUNT: usize = 4096;

/// SplitMix64: tiny, fast, and fully specified, so a seed means the same lines everywhere.
struct Rng(u64);

impl Rng {
    fn new(seed: u64, name: &str, lane: Lane) -> Rng {
        // Each instruction gets its own stream (FNV-1a of its name and lane).
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in name.bytes().chain([lane as u8]) {
            h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
        Rng(seed ^ h)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<T: Copy>(&mut self, from: &[T]) -> T {
        from[self.below(from.len() as u64) as usize]
    }
}

/// Special f32 patterns: zeros, infinities, NaNs, extremes, denormals, one and its neighbours.
const F32_SPECIALS: &[u64] = &[
    0x0000_0000,
    0x8000_0000,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0xffc0_0000,
    0x7f80_0001,
    0x7f7f_ffff,
    0xff7f_ffff,
    0x0080_0000,
    0x8080_0000,
    0x0000_0001,
    0x8000_0001,
    0x007f_ffff,
    0x807f_ffff,
    0x3f80_0000,
    0xbf80_0000,
    0x3f80_0001,
    0x3f7f_ffff,
    0x4000_0000,
    0x3f00_0000,
    0x3380_0000,
    0x4b80_0000,
];

const F16_SPECIALS: &[u64] = &[
    0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x7c01, 0x7bff, 0xfbff, 0x0400, 0x8400, 0x0001,
    0x8001, 0x03ff, 0x83ff, 0x3c00, 0xbc00, 0x3c01, 0x3bff, 0x4000, 0x3800, 0x1400,
];

const F64_SPECIALS: &[u64] = &[
    0x0000_0000_0000_0000,
    0x8000_0000_0000_0000,
    0x7ff0_0000_0000_0000,
    0xfff0_0000_0000_0000,
    0x7ff8_0000_0000_0000,
    0xfff8_0000_0000_0000,
    0x7ff0_0000_0000_0001,
    0x7fef_ffff_ffff_ffff,
    0xffef_ffff_ffff_ffff,
    0x0010_0000_0000_0000,
    0x8010_0000_0000_0000,
    0x0000_0000_0000_0001,
    0x8000_0000_0000_0001,
    0x000f_ffff_ffff_ffff,
    0x3ff0_0000_0000_0000,
    0xbff0_0000_0000_0000,
    0x3ff0_0000_0000_0001,
    0x3fef_ffff_ffff_ffff,
    0x4000_0000_0000_0000,
    0x3ca0_0000_0000_0000,
    // f32's extremes and denormals as doubles, for dtof.
    0x47ef_ffff_e000_0000,
    0x47ef_ffff_f000_0000,
    0x3810_0000_0000_0000,
    0x36a0_0000_0000_0000,
];

const INT_SPECIALS: &[u64] = &[
    0,
    1,
    0xffff_ffff,
    0x7fff_ffff,
    0x8000_0000,
    0x0100_0001,
    0x0100_0003,
    0xff00_0001,
    0x7fff_ffc0,
    0x7fff_ff80,
    0x8000_0040,
];

/// Format parameters of a float lane: (width, fraction bits, exponent bias).
fn shape(lane: Lane) -> (u32, u32, i64) {
    match lane {
        Lane::F16 => (16, 10, 15),
        Lane::F64 => (64, 52, 1023),
        _ => (32, 23, 127),
    }
}

/// The pattern of `±1.f × 2^e` in a float lane (`e` clamped to the normal range).
fn normal(lane: Lane, neg: bool, e: i64, frac: u64) -> u64 {
    let (w, fb, bias) = shape(lane);
    let biased = (e + bias).clamp(1, 2 * bias) as u64;
    let sign = (neg as u64) << (w - 1);
    sign | (biased << fb) | (frac & ((1u64 << fb) - 1))
}

fn specials(lane: Lane) -> &'static [u64] {
    match lane {
        Lane::F16 => F16_SPECIALS,
        Lane::F64 => F64_SPECIALS,
        Lane::I32 | Lane::U32 | Lane::Mask => INT_SPECIALS,
        Lane::F32 => F32_SPECIALS,
    }
}

/// One component from the general mix.
fn mixed(rng: &mut Rng, lane: Lane) -> u64 {
    let (w, fb, bias) = shape(lane);
    let width_mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
    if matches!(lane, Lane::I32 | Lane::U32 | Lane::Mask) {
        return match rng.below(4) {
            0 => rng.pick(INT_SPECIALS),
            // Small magnitudes, both signs.
            1 => (rng.below(2001) as i64 - 1000) as u64 & 0xffff_ffff,
            _ => rng.next() & 0xffff_ffff,
        };
    }
    let neg = rng.below(2) == 1;
    match rng.below(20) {
        // Random bit patterns: every class, in proportion to its patterns.
        0..=5 => rng.next() & width_mask,
        6..=8 => rng.pick(specials(lane)),
        // Denormals.
        9 | 10 => ((neg as u64) << (w - 1)) | (rng.next() & ((1u64 << fb) - 1)).max(1),
        // Near 1: a few ULPs either side.
        11 | 12 => {
            let one = normal(lane, neg, 0, 0);
            if rng.below(2) == 0 {
                one + rng.below(8)
            } else {
                one - rng.below(8)
            }
        }
        // Moderate magnitudes, where most real arithmetic happens.
        13..=16 => normal(lane, neg, rng.below(41) as i64 - 20, rng.next()),
        // Near the top and bottom of the exponent range (overflow and underflow).
        17 => normal(lane, neg, bias - rng.below(4) as i64, rng.next()),
        18 => normal(lane, neg, 1 - bias + rng.below(4) as i64, rng.next()),
        // Small integers and halves (rounding and frc).
        _ => {
            let k = rng.below(64) as f64 * 0.5 * if neg { -1.0 } else { 1.0 };
            from_f64(lane, k)
        }
    }
}

/// An f64 value as a pattern of a float lane (rounded to nearest; only used for values the
/// lane holds exactly or where any nearby pattern will do).
fn from_f64(lane: Lane, x: f64) -> u64 {
    match lane {
        Lane::F16 => half::f16::from_f64(x).to_bits() as u64,
        Lane::F64 => x.to_bits(),
        _ => (x as f32).to_bits() as u64,
    }
}

/// Lines the instruction's own rules single out, as component lists.
fn crafted(k: &Kernel, rng: &mut Rng, out: &mut Vec<Vec<u64>>) {
    let lane = k.input;
    let (_, fb, bias) = shape(lane);
    let one = normal(lane, false, 0, 0);
    let f = |x: f64| from_f64(lane, x);
    match k.op {
        Op::Add | Op::Sub => {
            // Ties: 1 + 2^-(p+1) is exactly halfway between 1 and its successor.
            let tie = normal(lane, false, -(fb as i64) - 1, 0);
            out.push(vec![one, tie]);
            out.push(vec![one + 1, tie]);
            out.push(vec![
                normal(lane, true, 0, 0),
                normal(lane, true, -(fb as i64) - 1, 0),
            ]);
            // Overflow.
            let max = normal(lane, false, bias, u64::MAX);
            out.push(vec![max, max]);
            // Cancellation to exact zero and to a denorm-sized difference.
            for _ in 0..64 {
                let a = normal(lane, false, rng.below(60) as i64 - 30, rng.next());
                let sign = normal(lane, true, 0, 0) ^ normal(lane, false, 0, 0);
                let b = (a ^ if k.op == Op::Add { sign } else { 0 }) + rng.below(3);
                out.push(vec![a, b]);
            }
            let min_normal = normal(lane, false, 1 - bias, 0);
            out.push(vec![min_normal + 1, min_normal | sign_bit(lane)]);
        }
        Op::Mul | Op::Div => {
            for _ in 0..64 {
                // Products and quotients that overflow, and ones that land among the denorms.
                let big = normal(
                    lane,
                    rng.below(2) == 1,
                    bias / 2 + rng.below(8) as i64 + 1,
                    rng.next(),
                );
                let small = normal(lane, false, -bias / 2 - rng.below(8) as i64 - 1, rng.next());
                if k.op == Op::Mul {
                    out.push(vec![big, big]);
                    out.push(vec![small, small]);
                } else {
                    out.push(vec![big, small]);
                    out.push(vec![small, big]);
                }
            }
            out.push(vec![f(1.0), f(3.0)]);
            out.push(vec![f(1.0), normal(lane, false, bias - 1, 0)]);
        }
        Op::Mad => {
            // a*b + c where c cancels the rounded product: the fused and unfused forms differ.
            for _ in 0..128 {
                let a = normal(
                    lane,
                    rng.below(2) == 1,
                    rng.below(20) as i64 - 10,
                    rng.next(),
                );
                let b = normal(lane, false, rng.below(20) as i64 - 10, rng.next());
                let c = neg_rounded_product(lane, a, b) + rng.below(2);
                out.push(vec![a, b, c]);
            }
            let max = normal(lane, false, bias, u64::MAX);
            out.push(vec![max, f(2.0), max | sign_bit(lane)]);
        }
        Op::Dp2 | Op::Dp3 | Op::Dp4 => {
            // Terms that cancel: x·y with the last product the negation of the others' sum.
            for _ in 0..128 {
                let mut a: Vec<u64> = (0..k.width)
                    .map(|_| {
                        normal(
                            lane,
                            rng.below(2) == 1,
                            rng.below(16) as i64 - 8,
                            rng.next(),
                        )
                    })
                    .collect();
                let b: Vec<u64> = (0..k.width).map(|_| one).collect();
                let last = k.width - 1;
                a[last] = a[0] ^ sign_bit(lane);
                let mut line = a;
                line.extend(b);
                out.push(line);
            }
        }
        Op::Sincos => {
            // Large arguments, where argument reduction decides the result.
            for e in [10i64, 13, 16, 20, 24, 30, 40, 60, 80, 100, 126] {
                let e = e.min(bias);
                for _ in 0..8 {
                    out.push(vec![normal(lane, rng.below(2) == 1, e, rng.next())]);
                }
            }
            for m in 1..64 {
                out.push(vec![f(m as f64 * std::f64::consts::FRAC_PI_2)]);
            }
        }
        Op::Exp => {
            for _ in 0..256 {
                out.push(vec![f((rng.below(300_000) as f64 - 150_000.0) / 1000.0)]);
            }
            for e in -150..=130 {
                out.push(vec![f(e as f64)]);
            }
        }
        Op::Log | Op::Sqrt | Op::Rsq | Op::Rcp => {
            for _ in 0..256 {
                out.push(vec![normal(
                    lane,
                    false,
                    rng.below(2 * bias as u64) as i64 - bias + 1,
                    rng.next(),
                )]);
            }
        }
        Op::Frc | Op::RoundNe | Op::RoundNi | Op::RoundPi | Op::RoundZ => {
            for i in -64..64 {
                out.push(vec![f(i as f64 * 0.5)]);
                out.push(vec![f(i as f64 * 0.5 + 0.25)]);
            }
            // Tiny negatives: frc of them rounds up toward 1.
            out.push(vec![f(-1e-10)]);
            out.push(vec![normal(lane, false, fb as i64, rng.next())]);
            out.push(vec![normal(lane, true, fb as i64 - 1, 1)]);
        }
        Op::Ftoi | Op::Ftou => {
            for x in [
                2147483648.0,
                -2147483648.0,
                2147483520.0,
                -2147483904.0,
                4294967296.0,
                4294967040.0,
                3e9,
                -3e9,
                1e20,
                -1e20,
                -1.0,
                -0.5,
                -0.0,
                0.5,
                1.5,
                2.5,
                -2.5,
            ] {
                out.push(vec![f(x)]);
            }
            for _ in 0..128 {
                out.push(vec![normal(
                    lane,
                    rng.below(2) == 1,
                    24 + rng.below(16) as i64,
                    rng.next(),
                )]);
            }
        }
        Op::Itof | Op::Utof => {
            for _ in 0..128 {
                // Integers too wide for a float's fraction, so rounding shows.
                let bits = 25 + rng.below(8);
                out.push(vec![(rng.next() | 1) & ((1u64 << bits) - 1)]);
            }
        }
        Op::F32ToF16 => {
            for x in [
                65504.0,
                65519.0,
                65520.0,
                65536.0,
                1e5,
                6.1035156e-5,
                5.9604645e-8,
                2.9802322e-8,
            ] {
                out.push(vec![f(x)]);
                out.push(vec![f(-x)]);
            }
            // Values between two halves, on and off the midpoint.
            for _ in 0..256 {
                let e = rng.below(40) as i64 - 25;
                let frac = (rng.next() & 0x7f_ffff) | if rng.below(2) == 0 { 0x1000 } else { 0 };
                out.push(vec![normal(lane, rng.below(2) == 1, e, frac)]);
            }
        }
        Op::Dtof => {
            for _ in 0..256 {
                // Around f32's range and denormals, and halfway cases.
                let e = rng.below(320) as i64 - 160;
                let frac = rng.next() & !((1u64 << 28) - 1) | (1u64 << 28);
                out.push(vec![normal(lane, rng.below(2) == 1, e, frac)]);
            }
        }
        _ => {}
    }
}

fn sign_bit(lane: Lane) -> u64 {
    1u64 << (shape(lane).0 - 1)
}

/// The negation of `a * b` rounded to the lane's precision (so `a * b + c` cancels).
fn neg_rounded_product(lane: Lane, a: u64, b: u64) -> u64 {
    match lane {
        Lane::F16 => {
            let p =
                half::f16::from_bits(a as u16).to_f32() * half::f16::from_bits(b as u16).to_f32();
            half::f16::from_f32(-p).to_bits() as u64
        }
        Lane::F64 => (-(f64::from_bits(a) * f64::from_bits(b))).to_bits(),
        _ => (-(f32::from_bits(a as u32) * f32::from_bits(b as u32))).to_bits() as u64,
    }
}

/// The operand components of `count` lines (fewer only for `f16tof32` with a small count,
/// which otherwise takes every one of the 65,536 half patterns), flattened line by line.
pub fn generate(k: &Kernel, count: usize, seed: u64) -> Vec<u64> {
    let per_line = k.input_components();
    if k.op == Op::F16ToF32 && count >= DEFAULT_COUNT {
        return (0..=0xffffu64).collect();
    }
    let mut rng = Rng::new(seed, k.name, k.input);
    let mut lines: Vec<Vec<u64>> = Vec::new();
    // Every combination of specials, component by component, for one- and two-operand
    // scalar instructions; mad takes a smaller set.
    let sp = specials(k.input);
    match (k.operands, k.width) {
        (1, 1) => lines.extend(sp.iter().map(|&s| vec![s])),
        (2, 1) => {
            for &a in sp {
                for &b in sp {
                    lines.push(vec![a, b]);
                }
            }
        }
        (3, 1) => {
            let few = &sp[..sp.len().min(12)];
            for &a in few {
                for &b in few {
                    for &c in few {
                        lines.push(vec![a, b, c]);
                    }
                }
            }
        }
        _ => {
            for &s in sp {
                lines.push(vec![s; per_line]);
            }
        }
    }
    crafted(k, &mut rng, &mut lines);
    lines.truncate(count);
    while lines.len() < count {
        lines.push((0..per_line).map(|_| mixed(&mut rng, k.input)).collect());
    }
    lines.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::all_kernels;

    #[test]
    fn same_seed_same_lines_and_the_count_is_kept() {
        for k in all_kernels() {
            let a = generate(&k, 4096, 7);
            let lines = if k.op == Op::F16ToF32 { 65536 } else { 4096 };
            assert_eq!(a.len(), lines * k.input_components(), "{}", k.name);
            assert!(a == generate(&k, 4096, 7), "{}: same seed", k.name);
            // f16tof32 takes every half pattern whatever the seed.
            let other_seed_differs = a != generate(&k, 4096, 8);
            assert_eq!(other_seed_differs, k.op != Op::F16ToF32, "{}", k.name);
            let width_mask = match k.input {
                Lane::F16 => 0xffff,
                Lane::F64 => u64::MAX,
                _ => 0xffff_ffff,
            };
            assert!(a.iter().all(|&x| x & width_mask == x), "{}", k.name);
        }
    }

    #[test]
    fn the_sets_hold_the_classes_the_issue_asks_for() {
        let k = all_kernels().into_iter().find(|k| k.name == "add").unwrap();
        let a = generate(&k, 4096, 1);
        let has = |p: &dyn Fn(u32) -> bool| a.iter().any(|&x| p(x as u32));
        assert!(has(&|x| x == 0x8000_0000));
        assert!(
            has(&|x| x & 0x7f80_0000 == 0 && x & 0x7f_ffff != 0),
            "denormals"
        );
        assert!(has(&|x| x & 0x7fff_ffff > 0x7f80_0000), "NaN");
        assert!(has(&|x| x == 0x3380_0000), "the tie 2^-24");
        let ftoi = all_kernels()
            .into_iter()
            .find(|k| k.name == "ftoi")
            .unwrap();
        let b = generate(&ftoi, 4096, 1);
        assert!(b.iter().any(|&x| f32::from_bits(x as u32) >= 2147483648.0));
    }
}
