//! BC6H against an independent decoder: `bcdec_rs` (a Rust port of bcdec, written apart
//! from this crate) must give the same f16 patterns, bit for bit, for blocks of every mode
//! and partition, both signednesses, and blocks made to hit the endpoint extremes. Then
//! the encoder: what it writes decodes close to what it was given, signed data included.

use d3dfloat::format::bc6h::{
    Block, MODES, Quality, RESERVED_FIELDS, analyse, decode_block, encode_block,
};

/// splitmix64: a fixed, seedable stream of random words, so a failure can be replayed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// 128 bits, each set with probability `ones / 64` (64 is fair).
    fn bits(&mut self, ones: u32) -> u128 {
        let mut word = 0u128;
        for bit in 0..128 {
            if (self.next() % 64) < ones as u64 {
                word |= 1 << bit;
            }
        }
        word
    }

    fn block(&mut self) -> u128 {
        (self.next() as u128) << 64 | self.next() as u128
    }
}

/// Every mode field (the 14 modes, then the 4 reserved), as (value, width in bits).
fn mode_fields() -> Vec<(u8, u32)> {
    let mut fields: Vec<(u8, u32)> = MODES
        .iter()
        .map(|m| (m.field, m.field_bits as u32))
        .collect();
    fields.extend(RESERVED_FIELDS.iter().map(|&f| (f, 5)));
    fields
}

fn with_mode(word: u128, (field, bits): (u8, u32)) -> [u8; 16] {
    let mask = (1u128 << bits) - 1;
    ((word & !mask) | field as u128).to_le_bytes()
}

fn reference(block: &[u8; 16], signed: bool) -> [[u16; 3]; 16] {
    let mut out = [0u16; 48];
    bcdec_rs::bc6h_half(block, &mut out, 12, signed);
    std::array::from_fn(|i| [out[3 * i], out[3 * i + 1], out[3 * i + 2]])
}

fn check(block: &[u8; 16], signed: bool) {
    let ours = decode_block(block, signed);
    let theirs = reference(block, signed);
    assert_eq!(
        ours,
        theirs,
        "block {:#034x} signed {signed}",
        u128::from_le_bytes(*block)
    );
}

/// Random blocks, each mode field (reserved ones included) equally often, both
/// signednesses: `n` blocks in all.
fn random_blocks(n: usize, seed: u64) {
    let fields = mode_fields();
    let mut rng = Rng(seed);
    for i in 0..n {
        let block = with_mode(rng.block(), fields[i % fields.len()]);
        check(&block, i / fields.len() % 2 == 1);
    }
}

/// 10^6 random blocks (issue 37), in four streams of their own seeds on as many threads
/// as the machine gives (about 17 s on one core of the 2-core machine, debug build).
#[test]
fn a_million_random_blocks_match_bcdec() {
    std::thread::scope(|scope| {
        for seed in 1..=4 {
            scope.spawn(move || random_blocks(250_000, seed));
        }
    });
}

/// Blocks whose bits are nearly all 0 or nearly all 1 put endpoints and deltas at their
/// extremes (the largest positive and negative deltas, wrapping sums, the endpoints that
/// unquantize to 0, 0xffff and ±0x7fff) and indices at 0 and at the top.
#[test]
fn endpoints_at_their_extremes_match_bcdec() {
    let mut rng = Rng(3);
    for field in mode_fields() {
        for ones in [0, 1, 3, 32, 61, 63, 64] {
            for _ in 0..400 {
                let block = with_mode(rng.bits(ones), field);
                check(&block, false);
                check(&block, true);
            }
        }
    }
}

/// Every partition of every two-region mode, with random endpoints and indices.
#[test]
fn every_partition_of_every_two_region_mode_matches_bcdec() {
    let mut rng = Rng(4);
    for m in MODES.iter().filter(|m| m.regions == 2) {
        for partition in 0..32u128 {
            for _ in 0..50 {
                let word = rng.block() & !(0x1f << 77) | partition << 77;
                let block = with_mode(word, (m.field, m.field_bits as u32));
                assert_eq!(analyse(&block, false).partition, Some(partition as u8));
                check(&block, false);
                check(&block, true);
            }
        }
    }
}

#[test]
fn reserved_modes_decode_to_zero_and_say_so() {
    let mut rng = Rng(5);
    for &field in &RESERVED_FIELDS {
        for signed in [false, true] {
            let block = with_mode(rng.block(), (field, 5));
            let b: Block = analyse(&block, signed);
            assert_eq!(b.mode, Err(field));
            assert!(b.endpoints().is_empty());
            assert_eq!(b.texels, [[0; 3]; 16]);
            check(&block, signed);
        }
    }
}

/// SF16's most negative 16-bit endpoint (mode 14) scales to -0x7c00, which is -infinity:
/// the "unintentional" infinity §19.5.13 says is baked into the format.
#[test]
fn signed_mode_14_reaches_minus_infinity() {
    // Mode 01111; rw = gw = bw = 0x8000: bits 0..9 of each are 0, bit 15 is the first
    // of the reversed rw[10:15] run (bits 39, 49, 59); deltas 0.
    let word: u128 = 0b01111 | 1 << 39 | 1 << 49 | 1 << 59;
    let block = word.to_le_bytes();
    assert_eq!(decode_block(&block, true)[0], [0xfc00; 3]);
    // Unsigned, the same bits are 0x8000 = 32768, which scales to 0x3e00 (1.5).
    assert_eq!(decode_block(&block, false)[0], [0x3e00; 3]);
    check(&block, true);
    check(&block, false);
}

fn f16_value(bits: u16) -> f32 {
    half::f16::from_bits(bits).to_f32()
}

/// Smooth HDR blocks (a gradient between two random colours over a wide range, even in
/// log2 as light falls off) encode and decode back within a few percent: the mean log2
/// error stays small at every quality, and a slower quality is never worse in total.
#[test]
fn encoded_blocks_decode_close_to_their_texels() {
    const BLOCKS: usize = 60;
    let mut rng = Rng(6);
    for signed in [false, true] {
        let mut totals = [0f64; 3];
        for _ in 0..BLOCKS {
            let mut colour = || -> [f32; 3] {
                std::array::from_fn(|_| {
                    let magnitude = 2f32.powf((rng.next() % 2000) as f32 / 100.0 - 10.0);
                    let negative = signed && rng.next().is_multiple_of(2);
                    if negative { -magnitude } else { magnitude }
                })
            };
            let (a, b) = (colour(), colour());
            let texels: [[u16; 3]; 16] = std::array::from_fn(|i| {
                let t = i as f32 / 15.0;
                std::array::from_fn(|c| {
                    let log = a[c].abs().log2() * (1.0 - t) + b[c].abs().log2() * t;
                    let v = 2f32.powf(log) * if a[c] < 0.0 { -1.0 } else { 1.0 };
                    half::f16::from_f32(v).to_bits()
                })
            });
            for (q, quality) in [Quality::Fast, Quality::Normal, Quality::Slow]
                .into_iter()
                .enumerate()
            {
                let block = encode_block(&texels, signed, quality);
                let out = decode_block(&block, signed);
                for i in 0..16 {
                    for c in 0..3 {
                        let (x, y) = (f16_value(texels[i][c]), f16_value(out[i][c]));
                        assert!(x * y >= 0.0, "sign flipped: {x} -> {y} ({quality:?})");
                        let e = (x.abs().max(1e-3).log2() - y.abs().max(1e-3).log2()).abs();
                        totals[q] += e as f64 / (BLOCKS as f64 * 48.0);
                    }
                }
            }
        }
        eprintln!("signed {signed}: mean |log2 error| fast/normal/slow {totals:?}");
        assert!(totals[0] < 0.05, "{totals:?}");
        assert!(
            totals[2] <= totals[1] * 1.001 && totals[1] <= totals[0] * 1.001,
            "{totals:?}"
        );
    }
}

/// A block of one colour comes back exactly: the 16-bit mode (14) holds any f16, and the
/// final scaling can land on every pattern.
#[test]
fn a_flat_block_round_trips_exactly() {
    let mut rng = Rng(7);
    for signed in [false, true] {
        for _ in 0..500 {
            let colour: [u16; 3] = std::array::from_fn(|_| {
                let magnitude = (rng.next() % 0x7c00) as u16;
                if signed && rng.next().is_multiple_of(2) && magnitude != 0 {
                    magnitude | 0x8000
                } else {
                    magnitude
                }
            });
            let block = encode_block(&[colour; 16], signed, Quality::Fast);
            assert_eq!(
                decode_block(&block, signed),
                [colour; 16],
                "signed {signed}"
            );
        }
    }
}

/// Signed data through SF16 keeps its signs and its values within 5% (the 10-bit
/// endpoints of SF16 are 9 bits and a sign: steps of about 6% near 1.0); through
/// UF16 the negatives become 0, never garbage.
#[test]
fn negative_texels_survive_sf16_and_clamp_in_uf16() {
    let texels: [[u16; 3]; 16] = std::array::from_fn(|i| {
        let ramp = 2f32.powf(i as f32 / 4.0);
        [-ramp, 0.5 * ramp, -1.0].map(|v| half::f16::from_f32(v).to_bits())
    });
    for quality in [Quality::Fast, Quality::Normal, Quality::Slow] {
        let signed = decode_block(&encode_block(&texels, true, quality), true);
        let unsigned = decode_block(&encode_block(&texels, false, quality), false);
        for i in 0..16 {
            for c in 0..3 {
                let x = f16_value(texels[i][c]);
                let (s, u) = (f16_value(signed[i][c]), f16_value(unsigned[i][c]));
                assert!(
                    (x - s).abs() <= 0.05 * x.abs(),
                    "{quality:?} sf16 {x} -> {s}"
                );
                if x < 0.0 {
                    assert_eq!(unsigned[i][c], 0, "{quality:?} uf16 {x} -> {u}");
                } else {
                    assert!((x - u).abs() <= 0.05 * x, "{quality:?} uf16 {x} -> {u}");
                }
            }
        }
    }
}
