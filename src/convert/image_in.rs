//! HDR images as conversion input: OpenEXR (the `exr` crate) and Radiance `.hdr` (the
//! `image` crate's decoder). Both come out as RGBA f32 texels, little-endian, row by row
//! from the top; `.hdr` has no alpha and gets 1.0.

use std::path::Path;

use image::ImageDecoder;

use super::ConvertError;

/// The most pixels an `.hdr` or `.exr` input may declare unless the user raises it:
/// 8192 x 8192, which takes 1 GiB as RGBA f32 (and about twice that during the conversion).
/// A header is a few bytes that can claim any size, so this is what keeps a 160-byte file
/// from asking for gigabytes.
pub const DEFAULT_MAX_PIXELS: u64 = 1 << 26;

/// What an image's header may declare before anything is allocated for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageLimits {
    /// The most pixels (width × height) a header may declare: `--max-pixels`, by default
    /// [`DEFAULT_MAX_PIXELS`].
    pub max_pixels: u64,
}

impl Default for ImageLimits {
    fn default() -> ImageLimits {
        ImageLimits {
            max_pixels: DEFAULT_MAX_PIXELS,
        }
    }
}

/// Checks declared dimensions: not empty and within the pixel limit. Whether the file is
/// large enough to carry them is checked by each reader, which knows its own encoding.
fn check_declared(
    what: &str,
    width: u64,
    height: u64,
    limits: ImageLimits,
) -> Result<(), ConvertError> {
    let refuse = |why: String| {
        ConvertError::Container(format!(
            "{what} file declares {width}x{height} pixels: {why}"
        ))
    };
    if width == 0 || height == 0 {
        return Err(refuse("an empty image".into()));
    }
    let pixels = width.saturating_mul(height);
    if pixels > limits.max_pixels {
        return Err(refuse(format!(
            "more than the limit of {} (raise it with --max-pixels)",
            limits.max_pixels
        )));
    }
    Ok(())
}

/// An image as RGBA f32 texels.
pub struct RgbaImage {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height * 4` f32 values, little-endian.
    pub data: Vec<u8>,
}

fn container(what: &str, e: impl std::fmt::Display) -> ConvertError {
    ConvertError::Container(format!("not a readable {what} file: {e}"))
}

/// Reads the first RGB(A) layer of an OpenEXR file at its largest resolution level, once
/// its headers are checked against `limits` and the file's size.
pub fn read_exr(path: &Path, limits: ImageLimits) -> Result<RgbaImage, ConvertError> {
    let file_size = std::fs::metadata(path)
        .map_err(|e| ConvertError::io(format!("reading {}", crate::path_text::one_line(path)), e))?
        .len();
    let meta =
        exr::meta::MetaData::read_from_file(path, false).map_err(|e| container("OpenEXR", e))?;
    for header in &meta.headers {
        let size = header.layer_size;
        check_declared("OpenEXR", size.width() as u64, size.height() as u64, limits)?;
        // Every chunk (a block of scanlines or a tile) has an 8-byte entry in the offset
        // table and at least a 4-byte position in front of its data.
        let least = (header.chunk_count as u64).saturating_mul(12);
        if least > file_size {
            return Err(ConvertError::Container(format!(
                "OpenEXR file declares {}x{} pixels in {} chunks, which need at least {least} bytes; the file has {file_size}",
                size.width(),
                size.height(),
                header.chunk_count
            )));
        }
    }
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

/// Reads a Radiance RGBE (`.hdr`) image, once its declared size is checked against
/// `limits` and the file's size.
pub fn read_hdr(bytes: &[u8], limits: ImageLimits) -> Result<RgbaImage, ConvertError> {
    // The decoder reads the header only; where it stops is where the pixel data starts.
    let mut cursor = std::io::Cursor::new(bytes);
    let (width, height) = image::codecs::hdr::HdrDecoder::new(&mut cursor)
        .map_err(|e| container("Radiance HDR", e))?
        .dimensions();
    check_declared("Radiance HDR", width as u64, height as u64, limits)?;
    // Each scanline takes at least one 4-byte RGBE pixel or run-length header, whatever
    // its encoding. (Within a line, old-style run lengths can repeat one pixel billions of
    // times, so the width has only the pixel limit.)
    let data_bytes = bytes.len() as u64 - cursor.position();
    if height as u64 > data_bytes / 4 {
        return Err(ConvertError::Container(format!(
            "Radiance HDR file declares {width}x{height} pixels, but its {data_bytes} bytes of pixel data hold at most {} scanlines",
            data_bytes / 4
        )));
    }
    let decoder = image::codecs::hdr::HdrDecoder::new(std::io::Cursor::new(bytes))
        .map_err(|e| container("Radiance HDR", e))?;
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
