//! Buffers that are pictures, for `ulp-diff --files --report`: DDS, EXR and HDR files read
//! as their pixels, or raw buffers given a width; and the pictures a report shows of them
//! (the distance per pixel, and both buffers tone-mapped).

use std::path::Path;

use super::Sample;
use crate::convert::image_in::{ImageLimits, read_exr, read_hdr};
use crate::convert::{Container, ConvertError, dds, ktx2, layout, pfm};
use crate::format::packed::{r11g11b10_split, rgb9e5_split};
use crate::format::{F10, F11, F32, Format};

/// A buffer laid out as an image.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImageBuffer {
    /// The element format compared.
    pub format: Format,
    /// Elements per pixel (1 for a packed word, which holds the three channels).
    pub per_pixel: usize,
    /// Pixels across.
    pub width: u64,
    /// Pixels down (the last row may be short for a raw buffer).
    pub height: u64,
    /// The elements, little-endian, row after row.
    pub data: Vec<u8>,
    /// What the file holds, in words (`DDS R16G16B16A16_FLOAT 64x64`, ...).
    pub holds: String,
}

impl ImageBuffer {
    /// A raw buffer of `format` elements, `width` pixels of `channels` elements a row.
    pub fn raw(format: Format, width: u64, channels: usize, data: Vec<u8>) -> ImageBuffer {
        let elements = (data.len() / format.element_bytes()) as u64;
        let row = width.max(1) * channels as u64;
        ImageBuffer {
            format,
            per_pixel: channels,
            width,
            height: elements.div_ceil(row),
            holds: format!(
                "raw {}, {width} pixels of {channels} element{} a row",
                format.name(),
                if channels == 1 { "" } else { "s" }
            ),
            data,
        }
    }

    /// Reads an image container: a DDS file's first layer at its largest level, in its
    /// own element format; an EXR or HDR file's pixels as the RGBA f32 that `convert`
    /// reads (so their distances are in f32 ULPs).
    pub fn read(path: &Path, container: Container) -> Result<ImageBuffer, ConvertError> {
        let rgba = |img: crate::convert::image_in::RgbaImage, what: &str| ImageBuffer {
            format: Format::Float(F32),
            per_pixel: img.channels,
            width: img.width as u64,
            height: img.height as u64,
            holds: format!(
                "{what} {}x{}, read as {} f32",
                img.width,
                img.height,
                if img.channels == 1 { "Y" } else { "RGBA" }
            ),
            data: img.data,
        };
        let open = || {
            std::fs::File::open(path).map_err(|e| {
                ConvertError::io(
                    format!("opening {}", crate::path_text::display_path(path)),
                    e,
                )
            })
        };
        match container {
            Container::Dds => {
                // The header first, then only the data it describes (convert's reader).
                let mut file = std::fs::File::open(path).map_err(|e| {
                    ConvertError::io(
                        format!("opening {}", crate::path_text::display_path(path)),
                        e,
                    )
                })?;
                let len = crate::io::regular_len(&file);
                let t = dds::read(&mut file, len)?;
                let (w, h) = (t.shape.width as u64, t.shape.height as u64);
                let len = (w * h) as usize * t.texels.bytes();
                let mut data = t.data;
                data.truncate(len);
                let name = dds::dxgi_of(t.texels).map_or("?", |(_, n)| n);
                Ok(ImageBuffer {
                    format: t.texels.format,
                    per_pixel: t.texels.channels,
                    width: w,
                    height: h,
                    holds: format!("DDS {name} {w}x{h} (first layer, largest level)"),
                    data,
                })
            }
            Container::Ktx2 => {
                let mut file = open()?;
                let len = crate::io::regular_len(&file);
                let t = ktx2::read(&mut file, len)?;
                let images = layout::images(&t.shape, t.texels, ktx2::Texture::ORDER);
                let top = images
                    .iter()
                    .find(|i| i.layer == 0 && i.level == 0)
                    .expect("every texture has its first image");
                let (w, h) = (t.shape.width as u64, t.shape.height as u64);
                let name = ktx2::vk_of(t.texels).map_or("?", |(_, n)| n);
                Ok(ImageBuffer {
                    format: t.texels.format,
                    per_pixel: t.texels.channels,
                    width: w,
                    height: h,
                    holds: format!("KTX2 {name} {w}x{h} (first layer, largest level)"),
                    // The largest level's first slice (a 3D texture's others follow it).
                    data: t.data[top.offset..top.offset + (w * h) as usize * t.texels.bytes()]
                        .to_vec(),
                })
            }
            Container::Pfm => {
                let mut file = open()?;
                let len = crate::io::regular_len(&file);
                let img = pfm::read(&mut file, len, ImageLimits::default())?;
                Ok(ImageBuffer {
                    format: Format::Float(F32),
                    per_pixel: img.channels,
                    width: img.width as u64,
                    height: img.height as u64,
                    holds: format!("PFM {}x{}", img.width, img.height),
                    data: img.data,
                })
            }
            Container::Exr => Ok(rgba(read_exr(path, ImageLimits::default())?, "EXR")),
            Container::Hdr => Ok(rgba(read_hdr(path, ImageLimits::default())?, "HDR")),
            Container::Raw => unreachable!("raw buffers have no header to read"),
        }
    }

    /// The RGB values of pixel `p` (a one-channel format is grey).
    fn rgb(&self, p: u64) -> [f64; 3] {
        let eb = self.format.element_bytes();
        let at = p as usize * self.per_pixel * eb;
        let load = |i: usize| {
            let s = &self.data[at + i * eb..at + (i + 1) * eb];
            let mut w = [0u8; 8];
            w[..eb].copy_from_slice(s);
            u64::from_le_bytes(w)
        };
        match self.format {
            Format::Float(f) => {
                let v = |i: usize| f.to_f64(load(i));
                if self.per_pixel >= 3 {
                    [v(0), v(1), v(2)]
                } else {
                    [v(0); 3]
                }
            }
            Format::R11G11B10 => {
                let c = r11g11b10_split(load(0) as u32);
                [F11.to_f64(c[0]), F11.to_f64(c[1]), F10.to_f64(c[2])]
            }
            Format::Rgb9e5 => {
                let c = rgb9e5_split(load(0) as u32);
                [c[0].to_f64(), c[1].to_f64(), c[2].to_f64()]
            }
        }
    }

    /// A comparison of this image's elements placed in the picture: its pixel's column
    /// and row, and for pixels of several elements, the element's channel in its pixel
    /// (a packed word keeps its own channel).
    pub fn locate(&self, s: &Sample) -> Sample {
        let per_pixel = self.per_pixel.max(1) as u64;
        let pixel = s.index / per_pixel;
        let width = self.width.max(1);
        Sample {
            at: Some((pixel % width, pixel / width)),
            channel: if per_pixel > 1 {
                Some((s.index % per_pixel) as usize)
            } else {
                s.channel
            },
            ..*s
        }
    }

    fn pixels(&self) -> u64 {
        (self.data.len() / (self.per_pixel * self.format.element_bytes())) as u64
    }
}

/// A value tone-mapped for a screen (Reinhard's `v / (1 + v)`, then the sRGB curve);
/// NaN is magenta's channel value, negative values black.
fn tone(v: f64) -> u8 {
    if v.is_nan() {
        return 255;
    }
    let v = v.max(0.0);
    let m = if v.is_infinite() { 1.0 } else { v / (1.0 + v) };
    let s = if m <= 0.003_130_8 {
        12.92 * m
    } else {
        1.055 * m.powf(1.0 / 2.4) - 0.055
    };
    (s * 255.0).round().clamp(0.0, 255.0) as u8
}

/// Pictures of two image buffers and of their differences, at most
/// [`Picture::MAX_SIDE`] pixels a side (a larger image is shown a block of pixels per
/// picture pixel: the block's largest distance, its first pixel's colour).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Picture {
    /// Pixels across, as shown.
    pub width: usize,
    /// Pixels down, as shown.
    pub height: usize,
    /// Source pixels per shown pixel, along each side.
    pub block: usize,
    /// The image's own size.
    pub source: (u64, u64),
    /// The largest |distance| in each shown pixel; `None` where a NaN was involved.
    pub heat: Vec<Option<u64>>,
    /// The expected buffer's pixels, tone-mapped to sRGB.
    pub expected: Vec<[u8; 3]>,
    /// The actual buffer's pixels, tone-mapped to sRGB.
    pub actual: Vec<[u8; 3]>,
}

impl Picture {
    /// The longest side of a picture in the page.
    pub const MAX_SIDE: usize = 512;

    /// An all-equal picture of an image `width` x `height` pixels.
    pub fn new(width: u64, height: u64) -> Picture {
        let side = width.max(height).max(1);
        let block = side.div_ceil(Self::MAX_SIDE as u64).max(1) as usize;
        let (w, h) = (
            width.div_ceil(block as u64) as usize,
            height.div_ceil(block as u64) as usize,
        );
        Picture {
            width: w,
            height: h,
            block,
            source: (width, height),
            heat: vec![Some(0); w * h],
            expected: Vec::new(),
            actual: Vec::new(),
        }
    }

    /// Counts a differing comparison of `image`'s layout.
    pub fn record(&mut self, image: &ImageBuffer, s: &Sample) {
        let pixel = s.index / image.per_pixel as u64;
        let (x, y) = (pixel % image.width, pixel / image.width);
        let at = (y as usize / self.block) * self.width + x as usize / self.block;
        let Some(cell) = self.heat.get_mut(at) else {
            return;
        };
        *cell = match (*cell, s.distance) {
            (None, _) | (_, None) => None,
            (Some(a), Some(d)) => Some(a.max(d.unsigned_abs().min(u64::MAX as u128) as u64)),
        };
    }

    /// Fills in both buffers' tone-mapped pixels.
    pub fn previews(&mut self, expected: &ImageBuffer, actual: &ImageBuffer) {
        let shown = |image: &ImageBuffer| -> Vec<[u8; 3]> {
            let mut out = Vec::with_capacity(self.width * self.height);
            for y in 0..self.height as u64 {
                for x in 0..self.width as u64 {
                    let p = y * self.block as u64 * image.width + x * self.block as u64;
                    out.push(if p < image.pixels() {
                        image.rgb(p).map(tone)
                    } else {
                        [255, 255, 255]
                    });
                }
            }
            out
        };
        self.expected = shown(expected);
        self.actual = shown(actual);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::F16;

    #[test]
    fn tone_mapping_is_monotone_and_bounded() {
        assert_eq!(tone(0.0), 0);
        assert_eq!(tone(-5.0), 0);
        assert_eq!(tone(f64::INFINITY), 255);
        assert!(tone(0.25) < tone(1.0) && tone(1.0) < tone(100.0));
    }

    #[test]
    fn an_element_is_located_by_column_row_and_channel() {
        // 3 pixels a row of RGBA f16: element 22 is pixel 5 = (2, 1), channel B.
        let image = ImageBuffer::raw(Format::Float(F16), 3, 4, vec![0; 6 * 4 * 2]);
        let s = Sample {
            at: None,
            index: 22,
            channel: None,
            a: 0,
            b: 1,
            distance: Some(1),
        };
        let l = image.locate(&s);
        assert_eq!((l.at, l.channel, l.index), (Some((2, 1)), Some(2), 22));
        // A packed word is one element a pixel and keeps its own channel.
        let packed = ImageBuffer::raw(Format::R11G11B10, 4, 1, vec![0; 8 * 4]);
        let l = packed.locate(&Sample {
            channel: Some(1),
            index: 6,
            ..s
        });
        assert_eq!((l.at, l.channel), (Some((2, 1)), Some(1)));
    }

    #[test]
    fn large_images_are_shown_in_blocks_keeping_the_worst_distance() {
        let image = ImageBuffer::raw(Format::Float(F16), 2048, 1, vec![0; 2048 * 4 * 2]);
        let mut p = Picture::new(image.width, image.height);
        assert_eq!((p.width, p.height, p.block), (512, 1, 4));
        let sample = |index, distance| Sample {
            at: None,
            index,
            channel: None,
            a: 0,
            b: 0,
            distance,
        };
        p.record(&image, &sample(5, Some(-3)));
        p.record(&image, &sample(6, Some(2)));
        p.record(&image, &sample(2047, None));
        assert_eq!(p.heat[1], Some(3));
        assert_eq!(p.heat[511], None);
        assert_eq!(p.heat[0], Some(0));
    }
}
