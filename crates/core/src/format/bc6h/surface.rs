//! Whole surfaces to and from BC6H blocks. A level of `width` x `height` texels is
//! `ceil(width / 4)` x `ceil(height / 4)` blocks, row by row; a level whose size is not a
//! multiple of 4 (its smallest mips, at least) still takes whole blocks, and the texels
//! past its edge are not part of the image: the decoder drops them, the encoder repeats
//! the edge texels there (§19.5.13: the block addressing of the other BC formats, §19.5).

use rayon::prelude::*;

use super::{BLOCK_BYTES, Quality, decode_block, encode_block};

/// Blocks across and down a level of `width` x `height` texels.
pub fn blocks(width: u32, height: u32) -> (u64, u64) {
    (width.div_ceil(4) as u64, height.div_ceil(4) as u64)
}

/// Bytes of one level's 2D slice, or `None` if that overflows.
pub fn slice_bytes(width: u32, height: u32) -> Option<u64> {
    let (x, y) = blocks(width, height);
    x.checked_mul(y)?.checked_mul(BLOCK_BYTES as u64)
}

/// The f16 pattern of 1.0, the alpha every BC6H texel decodes with (§19.5.13.3).
const ONE: u16 = 0x3c00;

/// Decodes one 2D slice into `width * height` RGBA texels of f16 patterns (alpha 1.0), row
/// by row. `blocks` holds exactly [`slice_bytes`] bytes.
pub fn decode_slice(blocks: &[u8], width: u32, height: u32, signed: bool) -> Vec<u16> {
    let (w, h) = (width as usize, height as usize);
    let across = w.div_ceil(4);
    let mut out = vec![0u16; w * h * 4];
    let row_len = w * 4;
    // Each band of four rows is one row of blocks.
    out.par_chunks_mut(row_len * 4)
        .zip(blocks.par_chunks(across * BLOCK_BYTES))
        .for_each(|(band, row)| {
            let rows = band.len() / row_len;
            for (bx, block) in row.chunks_exact(BLOCK_BYTES).enumerate() {
                let texels = decode_block(block.try_into().expect("16 bytes"), signed);
                for y in 0..rows {
                    for x in 0..4.min(w - 4 * bx) {
                        let at = y * row_len + (4 * bx + x) * 4;
                        let t = texels[4 * y + x];
                        band[at..at + 4].copy_from_slice(&[t[0], t[1], t[2], ONE]);
                    }
                }
            }
        });
    out
}

/// Encodes one 2D slice of `width * height` texels, `channels` (3 or more; R, G, B
/// first) f16 patterns each, row by row, into blocks.
pub fn encode_slice(
    texels: &[u16],
    channels: usize,
    width: u32,
    height: u32,
    signed: bool,
    quality: Quality,
) -> Vec<u8> {
    let (w, h) = (width as usize, height as usize);
    assert!(channels >= 3 && texels.len() == w * h * channels);
    let (across, down) = (w.div_ceil(4), h.div_ceil(4));
    let mut out = vec![0u8; across * down * BLOCK_BYTES];
    out.par_chunks_mut(BLOCK_BYTES)
        .enumerate()
        .for_each(|(n, dst)| {
            let (bx, by) = (n % across, n / across);
            let block: [[u16; 3]; 16] = std::array::from_fn(|i| {
                // Past the edge, the nearest texel inside.
                let x = (4 * bx + i % 4).min(w - 1);
                let y = (4 * by + i / 4).min(h - 1);
                let at = (y * w + x) * channels;
                [texels[at], texels[at + 1], texels[at + 2]]
            });
            dst.copy_from_slice(&encode_block(&block, signed, quality));
        });
    out
}
