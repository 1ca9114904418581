//! Where each image of a texture lies in its bytes. A DDS file stores layer after layer,
//! each with its mip levels from the largest down; a KTX2 file stores level after level,
//! the smallest first, each with every layer (and face) of that level (KTX 2.0 §4, "Mip
//! Level Array"). A texture read from either keeps its order in memory, and a writer walks
//! the images in its own order, so nothing is reordered in memory.

use ddsfile::{AlphaMode, D3D10ResourceDimension};

use crate::format::Format;

/// What one texel of a texture is: `channels` elements of `format` (1 for a packed word).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Texels {
    /// The element format; a packed word is one element that holds all three channels.
    pub format: Format,
    /// Elements per texel: 1, 3 or 4 for floats, 1 for a packed word.
    pub channels: usize,
}

impl Texels {
    /// Bytes of one texel.
    pub fn bytes(&self) -> usize {
        self.format.element_bytes() * self.channels
    }
}

/// Size and arrangement of a texture, carried over from input to output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Width in texels of the largest mip level.
    pub width: u32,
    /// Height in texels of the largest mip level.
    pub height: u32,
    /// Depth in texels of the largest mip level; 1 unless the texture is 3D.
    pub depth: u32,
    /// Mip levels per layer, at least 1.
    pub mips: u32,
    /// Array layers, cube faces counted one by one.
    pub layers: u32,
    /// Whether the layers are cube faces, six per cube.
    pub cubemap: bool,
    /// The DX10 header's resource dimension (1D, 2D or 3D texture).
    pub dimension: D3D10ResourceDimension,
    /// The DX10 header's alpha mode, written to the output unchanged.
    pub alpha_mode: AlphaMode,
}

impl Shape {
    /// A plain 2D image with one level.
    pub fn image(width: u32, height: u32) -> Shape {
        Shape {
            width,
            height,
            depth: 1,
            mips: 1,
            layers: 1,
            cubemap: false,
            dimension: D3D10ResourceDimension::Texture2D,
            alpha_mode: AlphaMode::Unknown,
        }
    }

    /// The most mip levels the largest dimension allows: floor(log2(max(w, h, d))) + 1,
    /// halving down to 1x1x1.
    pub fn most_mips(&self) -> u32 {
        let largest = self.width.max(self.height).max(self.depth).max(1);
        u32::BITS - largest.leading_zeros()
    }

    /// Texels in every level of every layer, or `None` if that overflows.
    pub fn texel_count(&self) -> Option<u64> {
        let mut per_layer: u64 = 0;
        // From level 32 on every dimension is 1, so each further level is one texel.
        for level in 0..self.mips.min(32) {
            let dim = |n: u32| (n >> level).max(1) as u64;
            let texels = dim(self.width)
                .checked_mul(dim(self.height))?
                .checked_mul(dim(self.depth))?;
            per_layer = per_layer.checked_add(texels)?;
        }
        per_layer = per_layer.checked_add(self.mips.saturating_sub(32) as u64)?;
        per_layer.checked_mul(self.layers as u64)
    }
}

/// The order of a texture's images in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Layer after layer (cube faces counted as layers), each with its levels from the
    /// largest down: DDS files, EXR, HDR and PFM images (one layer, one level).
    LayerMajor,
    /// Level after level, the smallest first, each with its layers: KTX2 files.
    SmallestLevelFirst,
}

/// One image of a texture: a 2D (or 3D, every slice) level of one layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Image {
    /// The layer (cube faces counted one by one).
    pub layer: u32,
    /// The mip level, 0 the largest.
    pub level: u32,
    /// Where its bytes start.
    pub offset: usize,
    /// How many bytes it has.
    pub len: usize,
}

/// The size of `level` of a texture of `shape`, in texels (width, height, depth).
pub fn level_size(shape: &Shape, level: u32) -> (u64, u64, u64) {
    let dim = |n: u32| (n.checked_shr(level).unwrap_or(0)).max(1) as u64;
    (dim(shape.width), dim(shape.height), dim(shape.depth))
}

/// Bytes of one image (one layer) at `level`, or `None` where that overflows.
pub fn image_bytes(shape: &Shape, texels: Texels, level: u32) -> Option<u64> {
    let (w, h, d) = level_size(shape, level);
    w.checked_mul(h)?
        .checked_mul(d)?
        .checked_mul(texels.bytes() as u64)
}

/// Every image of a texture whose bytes (`total`, checked by the reader) are in `order`,
/// in that order. The shape's sizes must have been checked not to overflow.
pub fn images(shape: &Shape, texels: Texels, order: Order) -> Vec<Image> {
    images_sized(shape, order, |level| image_bytes(shape, texels, level))
}

/// Bytes of one image (one layer) at `level` of a texture stored in BC6H blocks: every
/// depth slice in whole 4x4 blocks of 16 bytes (§19.5.13), or `None` where that overflows.
pub fn block_image_bytes(shape: &Shape, level: u32) -> Option<u64> {
    let (w, h, d) = level_size(shape, level);
    w.div_ceil(4)
        .checked_mul(h.div_ceil(4))?
        .checked_mul(d)?
        .checked_mul(crate::format::bc6h::BLOCK_BYTES as u64)
}

/// [`images`] for a texture stored in BC6H blocks ([`block_image_bytes`]).
pub fn block_images(shape: &Shape, order: Order) -> Vec<Image> {
    images_sized(shape, order, |level| block_image_bytes(shape, level))
}

fn images_sized(shape: &Shape, order: Order, size: impl Fn(u32) -> Option<u64>) -> Vec<Image> {
    let bytes = |level: u32| size(level).expect("checked size") as usize;
    let mut out = Vec::with_capacity((shape.layers as usize).saturating_mul(shape.mips as usize));
    let mut offset = 0;
    match order {
        Order::LayerMajor => {
            for layer in 0..shape.layers {
                for level in 0..shape.mips {
                    let len = bytes(level);
                    out.push(Image {
                        layer,
                        level,
                        offset,
                        len,
                    });
                    offset += len;
                }
            }
        }
        Order::SmallestLevelFirst => {
            for level in (0..shape.mips).rev() {
                for layer in 0..shape.layers {
                    let len = bytes(level);
                    out.push(Image {
                        layer,
                        level,
                        offset,
                        len,
                    });
                    offset += len;
                }
            }
        }
    }
    out
}

/// The images of a list made by [`images`] (in any order), in `order`.
pub fn reorder(images: &[Image], shape: &Shape, order: Order) -> Vec<Image> {
    let mut by_layer = images.to_vec();
    by_layer.sort_by_key(|i| (i.layer, i.level));
    match order {
        Order::LayerMajor => by_layer,
        Order::SmallestLevelFirst => (0..shape.mips)
            .rev()
            .flat_map(|level| (0..shape.layers).map(move |layer| (layer, level)))
            .map(|(layer, level)| by_layer[(layer * shape.mips + level) as usize])
            .collect(),
    }
}

/// Keeps the first `keep` of each texel's `channels` elements of `element` bytes, in
/// place: texel i moves down to `keep * element * i`, never past one not yet moved.
pub fn keep_channels(data: &mut Vec<u8>, element: usize, channels: usize, keep: usize) {
    debug_assert!(keep <= channels);
    let (from, to) = (element * channels, element * keep);
    let count = data.len() / from;
    for i in 0..count {
        data.copy_within(from * i..from * i + to, to * i);
    }
    data.truncate(to * count);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{F32, Format};

    fn cube_with_mips() -> (Shape, Texels) {
        let mut shape = Shape::image(4, 4);
        shape.mips = 3;
        shape.layers = 6;
        shape.cubemap = true;
        let texels = Texels {
            format: Format::Float(F32),
            channels: 4,
        };
        (shape, texels)
    }

    #[test]
    fn both_orders_cover_the_same_bytes_once() {
        let (shape, texels) = cube_with_mips();
        let total = shape.texel_count().unwrap() as usize * 16;
        for order in [Order::LayerMajor, Order::SmallestLevelFirst] {
            let list = images(&shape, texels, order);
            assert_eq!(list.len(), 18);
            let mut end = 0;
            for i in &list {
                assert_eq!(i.offset, end, "{order:?}: contiguous");
                assert_eq!(i.len, (4 >> i.level) * (4 >> i.level) * 16);
                end += i.len;
            }
            assert_eq!(end, total);
        }
        let ktx = images(&shape, texels, Order::SmallestLevelFirst);
        // The 1x1 level of the six faces first, then the 2x2, then the 4x4.
        assert_eq!((ktx[0].level, ktx[0].layer, ktx[5].layer), (2, 0, 5));
        assert_eq!((ktx[17].level, ktx[17].layer), (0, 5));
        let dds = reorder(&ktx, &shape, Order::LayerMajor);
        assert_eq!(
            dds.iter().map(|i| (i.layer, i.level)).collect::<Vec<_>>(),
            images(&shape, texels, Order::LayerMajor)
                .iter()
                .map(|i| (i.layer, i.level))
                .collect::<Vec<_>>()
        );
        assert_eq!(reorder(&dds, &shape, Order::SmallestLevelFirst), ktx);
    }

    #[test]
    fn dropping_channels_keeps_the_first_ones_of_each_texel() {
        let mut data: Vec<u8> = (0..24).collect();
        keep_channels(&mut data, 2, 4, 3);
        assert_eq!(
            data,
            [
                0, 1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 13, 16, 17, 18, 19, 20, 21
            ]
        );
    }
}
