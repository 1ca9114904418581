//! Textures stored in BC6H blocks (§19.5.13) inside a DDS or KTX2 file: their size, and
//! every image (each depth slice of each level of each layer) decoded into f16 RGBA texels
//! or encoded from f16 texels. Images keep the order their container stores them in
//! ([`Order`]), so the block data and the texel data of one texture list the same images
//! in the same order ([`layout::block_images`], [`layout::images`]).

use super::ConvertError;
use super::layout::{self, Order, Shape, Texels};
use crate::format::bc6h::{self, Bc6h, Quality};
use crate::format::{F16, Format};

/// What BC6H blocks decode into: f16 RGBA, alpha 1.0 (§19.5.13.3).
pub const TEXELS: Texels = Texels {
    format: Format::Float(F16),
    channels: 4,
};

/// Bytes of BC6H blocks a texture of `shape` takes: every slice of every level of every
/// layer in whole 4x4 blocks; `None` where that overflows a `u64`.
pub fn checked_size(shape: &Shape) -> Option<u64> {
    // A level's slices are counted by multiplying, not one by one: a 3D texture may
    // declare billions of them.
    let mut per_layer: u64 = 0;
    for level in 0..shape.mips {
        per_layer = per_layer.checked_add(layout::block_image_bytes(shape, level)?)?;
    }
    per_layer.checked_mul(shape.layers as u64)
}

/// Decodes every block of a BC6H texture (`blocks`, its images in `order`) into f16 RGBA
/// texels, the images in the same order; refuses a decoded size that does not fit memory.
pub fn decode(
    shape: &Shape,
    order: Order,
    b: Bc6h,
    blocks: &[u8],
) -> Result<Vec<u8>, ConvertError> {
    let texels = shape
        .texel_count()
        .and_then(|n| n.checked_mul(TEXELS.bytes() as u64))
        .and_then(|n| usize::try_from(n).ok());
    let mut out: Vec<u8> = Vec::new();
    texels
        .and_then(|n| out.try_reserve_exact(n).ok())
        .ok_or_else(|| {
            ConvertError::Container(format!(
                "not enough memory for the decoded BC6H texels ({} texels of 8 bytes)",
                shape.texel_count().unwrap_or(u64::MAX)
            ))
        })?;
    for image in layout::block_images(shape, order) {
        let (w, h, d) = layout::level_size(shape, image.level);
        let slice = image.len / d as usize;
        for z in 0..d as usize {
            let at = image.offset + z * slice;
            let rgba = bc6h::surface::decode_slice(
                &blocks[at..at + slice],
                w as u32,
                h as u32,
                b.signed(),
            );
            out.extend(rgba.iter().flat_map(|t| t.to_le_bytes()));
        }
    }
    Ok(out)
}

/// Encodes f16 texels (`channels` per texel, 3 or more, R G B first; its images in
/// `order`, as [`layout::images`] lists them) into BC6H blocks, the images in the same
/// order.
pub fn encode(
    shape: &Shape,
    order: Order,
    channels: usize,
    texels: &[u8],
    b: Bc6h,
    quality: Quality,
) -> Vec<u8> {
    let halves: Vec<u16> = texels
        .chunks_exact(2)
        .map(|p| u16::from_le_bytes([p[0], p[1]]))
        .collect();
    let layout_texels = Texels {
        format: Format::Float(F16),
        channels,
    };
    let mut out = Vec::new();
    for image in layout::images(shape, layout_texels, order) {
        let (w, h, d) = layout::level_size(shape, image.level);
        let slice = image.len / 2 / d as usize;
        for z in 0..d as usize {
            let at = image.offset / 2 + z * slice;
            out.extend(bc6h::surface::encode_slice(
                &halves[at..at + slice],
                channels,
                w as u32,
                h as u32,
                b.signed(),
                quality,
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_image_round_trips_in_either_order() {
        // A 6x5 texture with 3 levels and 2 layers: levels of 6x5, 3x2 and 1x1 texels,
        // each in whole blocks. Texels of one value per image encode exactly (mode 11,
        // both endpoints equal), so the decoded texture is the encoded one.
        let mut shape = Shape::image(6, 5);
        shape.mips = 3;
        shape.layers = 2;
        assert_eq!(checked_size(&shape), Some(2 * (4 + 1 + 1) * 16));
        for order in [Order::LayerMajor, Order::SmallestLevelFirst] {
            let images = layout::images(&shape, TEXELS, order);
            let mut texels = Vec::new();
            for (n, i) in images.iter().enumerate() {
                let v: u16 = 0x3c00 + 0x100 * n as u16;
                for _ in 0..i.len / 8 {
                    for c in [v, v, v, 0x3c00] {
                        texels.extend(c.to_le_bytes());
                    }
                }
            }
            let blocks = encode(&shape, order, 4, &texels, Bc6h::Unsigned, Quality::Fast);
            assert_eq!(blocks.len() as u64, checked_size(&shape).unwrap());
            let back = decode(&shape, order, Bc6h::Unsigned, &blocks).unwrap();
            assert_eq!(back, texels, "{order:?}");
        }
    }
}
