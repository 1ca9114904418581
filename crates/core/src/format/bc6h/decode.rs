//! The BC6H decoder, step by step as §19.5.13.2 lays it out: the mode and the header
//! (§19.5.13.3, §19.5.13.5), sign extension (§19.5.13.6), the inverse transform
//! (§19.5.13.7), unquantization (§19.5.13.9), the palette (§19.5.13.8) and the final
//! scaling (§19.5.13.10). Every intermediate value is kept for `decode`'s view.

use super::modes::{HeaderBit, Mode, mode_of};
use super::partitions;

/// One endpoint (one end of a region's line), in the three stages `decode` shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Endpoint {
    /// The R, G, B fields as stored in the header (a delta, for a transformed mode's
    /// endpoints other than the first).
    pub stored: [u32; 3],
    /// After sign extension and the inverse transform: the quantized endpoint, of the
    /// mode's precision (signed for SF16).
    pub transformed: [i32; 3],
    /// After `unquantize` (§19.5.13.9): the 17-bit signed value the palette interpolates.
    pub unquantized: [i32; 3],
}

/// Everything about one decoded block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// The 16 bytes, as stored.
    pub bytes: [u8; 16],
    /// Whether the block was read as `BC6H_SF16` (signed) rather than `BC6H_UF16`.
    pub signed: bool,
    /// The mode; `Err` with the 5-bit mode field for a reserved mode, whose texels are 0.
    pub mode: Result<&'static Mode, u8>,
    /// The partition (shape) index, for two-region modes.
    pub partition: Option<u8>,
    /// The endpoints in the order w, x, y, z (region 0's A and B, then region 1's); only
    /// the first `2 * regions` are meaningful ([`Block::endpoints`]).
    endpoints: [Endpoint; 4],
    /// The region of each texel (texel 0 top left, row by row).
    pub regions: [u8; 16],
    /// The palette index of each texel.
    pub indices: [u8; 16],
    /// The texels' R, G, B as f16 patterns (unsigned: never negative; signed: may be
    /// -0x7bff..0x7bff and, from the extreme endpoint, ±infinity).
    pub texels: [[u16; 3]; 16],
}

impl Block {
    /// The endpoints in use: 4 (two regions), 2 (one region) or none (reserved mode).
    pub fn endpoints(&self) -> &[Endpoint] {
        match self.mode {
            Ok(m) => &self.endpoints[..2 * m.regions as usize],
            Err(_) => &[],
        }
    }

    /// Whether texel `i`'s index is stored with one bit less (an anchor, §19.5.13.4).
    pub fn is_anchor(&self, i: usize) -> bool {
        i == 0 || matches!(self.partition, Some(p) if partitions::anchor(p) == i)
    }
}

/// The interpolation weights of 3-bit and 4-bit indices (§19.5.13.8).
pub(crate) const WEIGHTS3: [i32; 8] = [0, 9, 18, 27, 37, 46, 55, 64];
pub(crate) const WEIGHTS4: [i32; 16] =
    [0, 4, 9, 13, 17, 21, 26, 30, 34, 38, 43, 47, 51, 55, 60, 64];

/// The weights of a mode's indices.
pub(crate) fn weights(mode: &Mode) -> &'static [i32] {
    if mode.regions == 2 {
        &WEIGHTS3
    } else {
        &WEIGHTS4
    }
}

/// `SIGN_EXTEND` of §19.5.13.6: the low `bits` bits of `v` as a two's complement number.
pub(crate) fn sign_extend(v: u32, bits: u8) -> i32 {
    let shift = 32 - bits as u32;
    ((v << shift) as i32) >> shift
}

/// `unquantize` (§19.5.13.9): a quantized endpoint of `bits` bits into the 17-bit signed
/// range the palette interpolates in.
pub(crate) fn unquantize(comp: i32, bits: u8, signed: bool) -> i32 {
    let bits = bits as i32;
    if !signed {
        if bits >= 15 {
            comp
        } else if comp == 0 {
            0
        } else if comp == (1 << bits) - 1 {
            0xffff
        } else {
            ((comp << 16) + 0x8000) >> bits
        }
    } else if bits >= 16 {
        comp
    } else {
        let magnitude = comp.abs();
        let unq = if magnitude == 0 {
            0
        } else if magnitude >= (1 << (bits - 1)) - 1 {
            0x7fff
        } else {
            ((magnitude << 15) + 0x4000) >> (bits - 1)
        };
        if comp < 0 { -unq } else { unq }
    }
}

/// One palette entry between two unquantized endpoints (§19.5.13.8), before the final
/// scaling.
pub(crate) fn interpolate(a: i32, b: i32, weight: i32) -> i32 {
    (a * (64 - weight) + b * weight + 32) >> 6
}

/// `finish_unquantize` (§19.5.13.10): the final scaling by 31/64 (unsigned) or 31/32 of
/// the magnitude (signed), giving the f16 pattern.
pub(crate) fn finish_unquantize(comp: i32, signed: bool) -> u16 {
    if !signed {
        ((comp * 31) >> 6) as u16
    } else {
        // The sign goes on after the scaling, so a magnitude that scales to 0 gives +0,
        // never -0.
        let magnitude = ((comp.abs() * 31) >> 5) as u16;
        if comp < 0 && magnitude != 0 {
            0x8000 | magnitude
        } else {
            magnitude
        }
    }
}

/// Reads the texel indices that follow the header: `index_bits` each, one less at an
/// anchor (texel 0, and region 1's anchor for two-region modes).
fn read_indices(word: u128, mode: &Mode, anchor: Option<usize>) -> [u8; 16] {
    let mut pos = mode.header_bits();
    let mut indices = [0u8; 16];
    for (i, index) in indices.iter_mut().enumerate() {
        let bits = mode.index_bits() - u32::from(i == 0 || Some(i) == anchor);
        *index = ((word >> pos) as u32 & ((1 << bits) - 1)) as u8;
        pos += bits;
    }
    indices
}

/// Decodes one 16-byte block, keeping every step.
pub fn analyse(bytes: &[u8; 16], signed: bool) -> Block {
    let word = u128::from_le_bytes(*bytes);
    let mut block = Block {
        bytes: *bytes,
        signed,
        mode: mode_of(bytes[0]),
        partition: None,
        endpoints: [Endpoint::default(); 4],
        regions: [0; 16],
        indices: [0; 16],
        texels: [[0; 3]; 16],
    };
    // A reserved mode decodes to zero in every channel (§19.5.13.3).
    let Ok(mode) = block.mode else {
        return block;
    };
    let mut partition = 0u8;
    let mut stored = [[0u32; 3]; 4];
    for (pos, field) in mode.header().iter().enumerate() {
        let bit = (word >> pos) as u32 & 1;
        match *field {
            HeaderBit::Mode(_) => {}
            HeaderBit::Partition(n) => partition |= (bit as u8) << n,
            HeaderBit::Endpoint {
                endpoint,
                channel,
                bit: n,
            } => stored[endpoint as usize][channel as usize] |= bit << n,
        }
    }
    let count = 2 * mode.regions as usize;
    let mut anchor = None;
    if mode.regions == 2 {
        block.partition = Some(partition);
        block.regions = *partitions::regions(partition);
        anchor = Some(partitions::anchor(partition));
    }
    let p = mode.precision;
    let mask = ((1u32 << p) - 1) as i32;
    for c in 0..3 {
        let base = stored[0][c];
        // §19.5.13.6: the first endpoint is signed only in a signed format, the others
        // when they are deltas or the format is signed.
        let w = if signed {
            sign_extend(base, p)
        } else {
            base as i32
        };
        block.endpoints[0].transformed[c] = w;
        for (e, s) in stored.iter().enumerate().take(count).skip(1) {
            let v = s[c];
            let extended = if mode.transformed || signed {
                sign_extend(v, mode.delta_bits[c])
            } else {
                v as i32
            };
            // §19.5.13.7: a delta is added to the first endpoint, wrapping within its
            // precision, then sign-extended again for a signed format.
            block.endpoints[e].transformed[c] = if mode.transformed {
                let sum = (extended + w) & mask;
                if signed {
                    sign_extend(sum as u32, p)
                } else {
                    sum
                }
            } else {
                extended
            };
        }
        for (e, s) in stored.iter().enumerate().take(count) {
            let ep = &mut block.endpoints[e];
            ep.stored[c] = s[c];
            ep.unquantized[c] = unquantize(ep.transformed[c], p, signed);
        }
    }
    block.indices = read_indices(word, mode, anchor);
    let weights = weights(mode);
    for i in 0..16 {
        let r = block.regions[i] as usize;
        let (a, b) = (&block.endpoints[2 * r], &block.endpoints[2 * r + 1]);
        let w = weights[block.indices[i] as usize];
        for c in 0..3 {
            let v = interpolate(a.unquantized[c], b.unquantized[c], w);
            block.texels[i][c] = finish_unquantize(v, signed);
        }
    }
    block
}

/// Decodes one block to its 16 texels (texel 0 top left, row by row) as R, G, B f16
/// patterns; alpha is 1.0 for every texel and is not returned.
pub fn decode_block(bytes: &[u8; 16], signed: bool) -> [[u16; 3]; 16] {
    analyse(bytes, signed).texels
}
