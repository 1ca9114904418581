//! HDR images as conversion input: OpenEXR (the `exr` crate) and Radiance `.hdr` (the
//! `image` crate's decoder). Both come out as RGBA f32 texels, little-endian, row by row
//! from the top; `.hdr` has no alpha and gets 1.0.

use std::path::Path;

use image::ImageDecoder;

use super::ConvertError;

/// An image as RGBA f32 texels.
pub struct RgbaImage {
    pub width: u32,
    pub height: u32,
    /// `width * height * 4` f32 values, little-endian.
    pub data: Vec<u8>,
}

fn container(what: &str, e: impl std::fmt::Display) -> ConvertError {
    ConvertError::Container(format!("not a readable {what} file: {e}"))
}

/// Reads the first RGB(A) layer of an OpenEXR file at its largest resolution level.
pub fn read_exr(path: &Path) -> Result<RgbaImage, ConvertError> {
    struct Pixels {
        width: usize,
        data: Vec<u8>,
    }
    let image = exr::prelude::read_first_rgba_layer_from_file(
        path,
        |size, _| Pixels {
            width: size.width(),
            data: vec![0u8; size.width() * size.height() * 16],
        },
        |px: &mut Pixels, pos, (r, g, b, a): (f32, f32, f32, f32)| {
            let at = (pos.y() * px.width + pos.x()) * 16;
            for (i, v) in [r, g, b, a].into_iter().enumerate() {
                px.data[at + 4 * i..at + 4 * i + 4].copy_from_slice(&v.to_le_bytes());
            }
        },
    )
    .map_err(|e| container("OpenEXR", e))?;
    let size = image.layer_data.size;
    Ok(RgbaImage {
        width: size.width() as u32,
        height: size.height() as u32,
        data: image.layer_data.channel_data.pixels.data,
    })
}

/// Reads a Radiance RGBE (`.hdr`) image.
pub fn read_hdr(bytes: &[u8]) -> Result<RgbaImage, ConvertError> {
    let decoder = image::codecs::hdr::HdrDecoder::new(std::io::Cursor::new(bytes))
        .map_err(|e| container("Radiance HDR", e))?;
    let (width, height) = decoder.dimensions();
    let mut rgb = vec![0u8; decoder.total_bytes() as usize];
    decoder
        .read_image(&mut rgb)
        .map_err(|e| container("Radiance HDR", e))?;
    // The decoder writes native-endian f32 RGB; add alpha 1.0 and store little-endian.
    let mut data = Vec::with_capacity(rgb.len() / 3 * 4);
    for texel in rgb.chunks_exact(12) {
        for c in texel.chunks_exact(4) {
            let v = f32::from_ne_bytes(c.try_into().expect("4 bytes"));
            data.extend_from_slice(&v.to_le_bytes());
        }
        data.extend_from_slice(&1f32.to_le_bytes());
    }
    Ok(RgbaImage {
        width,
        height,
        data,
    })
}
