//! HDR images as conversion input: OpenEXR (the `exr` crate) and Radiance `.hdr` (the
//! `image` crate's decoder). Both come out as RGBA f32 texels, little-endian, row by row
//! from the top; `.hdr` has no alpha and gets 1.0.

use std::fs::File;
use std::path::Path;

use image::ImageDecoder;

use super::ConvertError;
use crate::io::{MemoryReadError, read_at_most, zeroed_vec};

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
pub(crate) fn check_declared(
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
        return Err(ConvertError::PixelLimit {
            what: what.to_string(),
            width,
            height,
            limit: limits.max_pixels,
        });
    }
    Ok(())
}

/// An image as RGBA f32 texels (or, for an OpenEXR file of luminance alone, Y).
pub struct RgbaImage {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// 4 (RGBA), or 1 for an OpenEXR file whose only colour channel is `Y`.
    pub channels: usize,
    /// `width * height * channels` f32 values, little-endian.
    pub data: Vec<u8>,
}

fn container(what: &str, e: impl std::fmt::Display) -> ConvertError {
    ConvertError::Container(format!("not a readable {what} file: {e}"))
}

fn reading(e: MemoryReadError, what: &str) -> ConvertError {
    match e {
        MemoryReadError::Io(source) => ConvertError::io(format!("reading the {what} file"), source),
        MemoryReadError::OutOfMemory(n) => ConvertError::Container(format!(
            "not enough memory to read the {what} file ({n} bytes)"
        )),
    }
}

/// Bytes of a `width` x `height` RGBA f32 image, or an error where that is more than
/// this machine can address (a `--max-pixels` raised past memory).
fn rgba_bytes(width: u64, height: u64, what: &str) -> Result<usize, ConvertError> {
    width
        .checked_mul(height)
        .and_then(|p| p.checked_mul(16))
        .and_then(|b| usize::try_from(b).ok())
        .filter(|&b| b <= isize::MAX as usize)
        .ok_or_else(|| {
            ConvertError::Container(format!(
                "{what} file declares {width}x{height} pixels, more than memory can address \
                 as RGBA f32"
            ))
        })
}

fn out_of_memory(what: &str, bytes: usize) -> ConvertError {
    ConvertError::Container(format!(
        "not enough memory for the {what} image ({bytes} bytes as RGBA f32)"
    ))
}

/// Opens an input and tells its size when it is a regular file; FIFOs, devices and
/// stdin have none that can be trusted (a FIFO's metadata says 0 bytes).
pub fn open(path: &Path) -> Result<(File, Option<u64>), ConvertError> {
    let file =
        File::open(path).map_err(|e| ConvertError::io(format!("opening {}", path.display()), e))?;
    let len = crate::io::regular_len(&file);
    Ok((file, len))
}

/// The most bytes of headers an OpenEXR stream may take before its first offset table:
/// real headers are kilobytes; a stream of attributes that never ends stops here.
const EXR_HEADERS_LIMIT: u64 = 64 << 20;

/// Memory the `exr` crate may need for its own buffers while it decodes, beyond the image:
/// blocks in flight on each thread, measured at well under this for 4096 x 4096 ZIP files.
const EXR_DECODER_HEADROOM: usize = 64 << 20;

/// A reader that keeps a copy of what it hands out, up to a limit past which it fails:
/// the `exr` crate parses a stream's headers through it, and the copy is the start of the
/// file read into memory.
struct KeepCopy<'r> {
    inner: &'r mut File,
    copy: Vec<u8>,
}

impl std::io::Read for KeepCopy<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let room = EXR_HEADERS_LIMIT.saturating_sub(self.copy.len() as u64) as usize;
        if room == 0 {
            return Err(std::io::Error::other(format!(
                "headers longer than {EXR_HEADERS_LIMIT} bytes"
            )));
        }
        let n = buf.len().min(room);
        let n = self.inner.read(&mut buf[..n])?;
        self.copy.extend_from_slice(&buf[..n]);
        Ok(n)
    }
}

/// Reads an OpenEXR file or stream into memory: its headers first (at most
/// [`EXR_HEADERS_LIMIT`] bytes), each declared image checked against `limits`; then no
/// more than those images can take: 28 bytes per chunk (offset-table entry and position
/// header) and 8 bytes per byte of samples (all rip-map levels, and compression that
/// expands). Bytes past that are never read, so an endless stream, or a sparse file of a
/// terabyte, costs a bounded amount; a file that ends sooner is left to the decoder to
/// refuse. `len`, a regular file's size, is reserved at once where it is smaller.
fn read_exr_bytes(
    file: &mut File,
    len: Option<u64>,
    limits: ImageLimits,
) -> Result<Vec<u8>, ConvertError> {
    let mut keep = KeepCopy {
        inner: file,
        copy: Vec::new(),
    };
    let meta = exr::meta::MetaData::read_from_buffered(&mut keep, false)
        .map_err(|e| container("OpenEXR", e))?;
    let mut bytes = keep.copy;
    let mut most: u64 = 0;
    for h in &meta.headers {
        let (w, h_px) = (h.layer_size.width() as u64, h.layer_size.height() as u64);
        check_declared("OpenEXR", w, h_px, limits)?;
        // Every chunk holds at least one pixel; all levels of a rip-mapped image take
        // less than four times the largest, and no compression more than doubles it.
        let pixels = w * h_px;
        let chunks = (h.chunk_count as u64).min(pixels);
        let samples = pixels.saturating_mul(h.channels.bytes_per_pixel as u64);
        most = most
            .saturating_add(chunks * 28)
            .saturating_add(samples.saturating_mul(8));
    }
    // A regular file's size, where it is smaller, is reserved at once.
    let hint = len.map(|l| l.saturating_sub(bytes.len() as u64).min(most));
    read_at_most(file, &mut bytes, most, hint).map_err(|e| reading(e, "OpenEXR"))?;
    Ok(bytes)
}

/// Reads an OpenEXR file at its largest resolution level: the channels `R`, `G`, `B` (and
/// `A`, else alpha 1.0) without a layer name, or else those of the first layer, in the
/// file's channel order, that has `R`, `G` and `B` (`diffuse.R`, `diffuse.G`, ...). The
/// file (a FIFO or device too) is read into memory (`read_exr_bytes`), its headers
/// checked against `limits` and the file's size, and every DWAA/DWAB block header
/// checked against the block it belongs to (`check_dwa_blocks`) before the `exr` crate
/// decodes anything.
pub fn read_exr(path: &Path, limits: ImageLimits) -> Result<RgbaImage, ConvertError> {
    let (mut file, len) = open(path)?;
    let bytes = read_exr_bytes(&mut file, len, limits)?;
    let file_size = bytes.len() as u64;
    let meta = exr::meta::MetaData::read_from_buffered(bytes.as_slice(), false)
        .map_err(|e| container("OpenEXR", e))?;
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
    let Some((part, names)) = rgb_channels(&meta.headers) else {
        if let Some(part) = luminance_part(&meta.headers) {
            check_dwa_blocks(&bytes)?;
            return read_exr_luminance(&bytes, &meta.headers[part]);
        }
        return Err(ConvertError::Container(
            "OpenEXR file has no layer with R, G and B channels (as R, G, B or as \
             LAYER.R, LAYER.G, LAYER.B), nor a Y channel"
                .into(),
        ));
    };
    check_dwa_blocks(&bytes)?;
    let size = meta.headers[part].layer_size;
    // Within --max-pixels, which a user may raise past what memory can address.
    let image_bytes = rgba_bytes(size.width() as u64, size.height() as u64, "OpenEXR")?;
    // The image's memory is reserved here, where a refusal can be an error; the `exr`
    // crate's callback that asks for it cannot fail.
    let reserved = std::sync::Mutex::new(Some(
        zeroed_vec(image_bytes).map_err(|_| out_of_memory("OpenEXR", image_bytes))?,
    ));
    // The `exr` crate's own buffers (compressed and decompressed blocks in flight) are
    // allocated where a refusal aborts. Under an address-space limit (`ulimit -v`), ask
    // for room for them first and give it back at once: a limit that leaves too little
    // is then this error rather than an abort inside the decoder. (Without a limit,
    // reserving address space costs nothing.)
    let mut headroom = Vec::<u8>::new();
    headroom
        .try_reserve_exact(EXR_DECODER_HEADROOM)
        .map_err(|_| {
            ConvertError::Container(format!(
                "not enough memory to decode the OpenEXR image ({image_bytes} bytes as RGBA \
                 f32, and {EXR_DECODER_HEADROOM} for the decoder's buffers)"
            ))
        })?;
    drop(headroom);
    struct Pixels {
        width: usize,
        data: Vec<u8>,
    }
    let text =
        |name: &str| exr::meta::attribute::Text::new_or_none(name).expect("read from the file");
    use exr::prelude::Vec2;
    use exr::prelude::traits::*;
    let image = exr::prelude::read()
        .no_deep_data()
        .largest_resolution_level()
        .specific_channels()
        .required(text(&names[0]))
        .required(text(&names[1]))
        .required(text(&names[2]))
        .optional(text(&names[3]), 1.0f32)
        .collect_pixels(
            |size: Vec2<usize>, _: &_| {
                // The size checked above (the callback is only called for that layer).
                let bytes = size.width() * size.height() * 16;
                let data = match reserved.lock().expect("not poisoned").take() {
                    Some(v) if v.len() == bytes => v,
                    _ => vec![0u8; bytes],
                };
                Pixels {
                    width: size.width(),
                    data,
                }
            },
            |px: &mut Pixels, pos: Vec2<usize>, (r, g, b, a): (f32, f32, f32, f32)| {
                let at = (pos.y() * px.width + pos.x()) * 16;
                for (i, v) in [r, g, b, a].into_iter().enumerate() {
                    px.data[at + 4 * i..at + 4 * i + 4].copy_from_slice(&v.to_le_bytes());
                }
            },
        )
        .first_valid_layer()
        .all_attributes()
        .from_buffered(std::io::Cursor::new(bytes.as_slice()))
        .map_err(|e| container("OpenEXR", e))?;
    let size = image.layer_data.size;
    Ok(RgbaImage {
        width: size.width() as u32,
        height: size.height() as u32,
        channels: 4,
        data: image.layer_data.channel_data.pixels.data,
    })
}

/// The first part with a `Y` channel (luminance, as `convert -o X.exr` writes one
/// channel), for a file without R, G and B.
fn luminance_part(headers: &[exr::meta::header::Header]) -> Option<usize> {
    headers
        .iter()
        .position(|h| h.channels.list.iter().any(|c| c.name.to_string() == "Y"))
}

/// Reads the `Y` channel of an OpenEXR file's largest level as one f32 channel. The
/// sizes were checked by [`read_exr`]; the image is a quarter of the RGBA one.
fn read_exr_luminance(
    bytes: &[u8],
    header: &exr::meta::header::Header,
) -> Result<RgbaImage, ConvertError> {
    use exr::prelude::traits::*;
    let size = header.layer_size;
    let image_bytes = rgba_bytes(size.width() as u64, size.height() as u64, "OpenEXR")? / 4;
    let reserved = std::sync::Mutex::new(Some(
        zeroed_vec(image_bytes).map_err(|_| out_of_memory("OpenEXR", image_bytes))?,
    ));
    let text = exr::meta::attribute::Text::new_or_none("Y").expect("a short name");
    let image = exr::prelude::read()
        .no_deep_data()
        .largest_resolution_level()
        .specific_channels()
        .required(text)
        .collect_pixels(
            |size: exr::prelude::Vec2<usize>, _: &_| {
                let bytes = size.width() * size.height() * 4;
                let data = match reserved.lock().expect("not poisoned").take() {
                    Some(v) if v.len() == bytes => v,
                    _ => vec![0u8; bytes],
                };
                (size.width(), data)
            },
            |px: &mut (usize, Vec<u8>), pos: exr::prelude::Vec2<usize>, (y,): (f32,)| {
                let at = (pos.y() * px.0 + pos.x()) * 4;
                px.1[at..at + 4].copy_from_slice(&y.to_le_bytes());
            },
        )
        .first_valid_layer()
        .all_attributes()
        .from_buffered(std::io::Cursor::new(bytes))
        .map_err(|e| container("OpenEXR", e))?;
    let size = image.layer_data.size;
    Ok(RgbaImage {
        width: size.width() as u32,
        height: size.height() as u32,
        channels: 1,
        data: image.layer_data.channel_data.pixels.1,
    })
}

/// The part (header) to read and the names of its R, G, B and A channels: the channels
/// without a layer name where a part has R, G and B, else the first layer prefix
/// (`diffuse.` of `diffuse.R`), in the order the file lists its channels, that has all
/// three. The A name is returned whether or not the channel exists (it is optional).
fn rgb_channels(headers: &[exr::meta::header::Header]) -> Option<(usize, [String; 4])> {
    let with_prefix = |prefix: &str| ["R", "G", "B", "A"].map(|c| format!("{prefix}{c}"));
    let has = |header: &exr::meta::header::Header, name: &str| {
        header
            .channels
            .list
            .iter()
            .any(|c| c.name.to_string() == name)
    };
    let complete = |header: &exr::meta::header::Header, names: &[String; 4]| {
        names[..3].iter().all(|n| has(header, n))
    };
    for (part, header) in headers.iter().enumerate() {
        let names = with_prefix("");
        if complete(header, &names) {
            return Some((part, names));
        }
    }
    for (part, header) in headers.iter().enumerate() {
        for channel in &header.channels.list {
            let name = channel.name.to_string();
            if let Some((prefix, _)) = name.rsplit_once('.') {
                let names = with_prefix(&format!("{prefix}."));
                if complete(header, &names) {
                    return Some((part, names));
                }
            }
        }
    }
    None
}

/// Counters at the start of a DWAA/DWAB block (OpenEXR's `DwaCompressor`): version, then
/// the sizes and counts listed in [`check_dwa_header`], then the AC compression mode.
const DWA_COUNTERS: usize = 11;

/// Checks the header of every DWAA and DWAB block against what the block can hold.
///
/// The `exr` crate (1.74) trusts these counters as allocation sizes: its zlib decoder
/// reserves the declared uncompressed size up front, and its Huffman decoder reserves
/// the declared AC count, so a 429-byte file that claims 2^62 bytes aborts the process
/// ("memory allocation of 4611686018427387904 bytes failed"). A block of W x H pixels
/// with C channels and B bytes uncompressed cannot need more than B bytes of raw or
/// RLE data, about 2B of RLE tokens, or one DCT coefficient per sample of the 8x8
/// blocks covering it ((W + 7) x (H + 7) x C), so anything larger is refused here.
fn check_dwa_blocks(bytes: &[u8]) -> Result<(), ConvertError> {
    use exr::block::chunk::CompressedBlock;
    use exr::compression::Compression;
    let reader = exr::block::read(std::io::Cursor::new(bytes), false)
        .map_err(|e| container("OpenEXR", e))?;
    let headers = reader.headers().to_vec();
    if !headers
        .iter()
        .any(|h| matches!(h.compression, Compression::DWAA(_) | Compression::DWAB(_)))
    {
        return Ok(());
    }
    for chunk in reader
        .all_chunks(false)
        .map_err(|e| container("OpenEXR", e))?
    {
        let chunk = chunk.map_err(|e| container("OpenEXR", e))?;
        let Some(header) = headers.get(chunk.layer_index) else {
            continue;
        };
        if !matches!(
            header.compression,
            Compression::DWAA(_) | Compression::DWAB(_)
        ) {
            continue;
        }
        let (tile, data) = match &chunk.compressed_block {
            CompressedBlock::ScanLine(b) => (
                header
                    .get_scan_line_block_tile_coordinates(b.y_coordinate)
                    .map_err(|e| container("OpenEXR", e))?,
                &b.compressed_pixels_le,
            ),
            CompressedBlock::Tile(b) => (b.coordinates, &b.compressed_pixels_le),
            // Deep data is not read (the reader asks for flat samples only).
            _ => continue,
        };
        let bounds = header
            .get_absolute_block_pixel_coordinates(tile)
            .map_err(|e| container("OpenEXR", e))?;
        let (w, h) = (bounds.size.width() as u64, bounds.size.height() as u64);
        let channels = header.channels.list.len() as u64;
        let block_bytes = w
            .saturating_mul(h)
            .saturating_mul(header.channels.bytes_per_pixel as u64);
        check_dwa_header(data, w, h, channels, block_bytes)?;
    }
    Ok(())
}

/// [`check_dwa_blocks`] for one block's compressed data. An empty block or one stored
/// raw (its length is the uncompressed size) has no counters; one too short for them is
/// left to the `exr` crate, which refuses it without allocating.
fn check_dwa_header(
    data: &[u8],
    width: u64,
    height: u64,
    channels: u64,
    block_bytes: u64,
) -> Result<(), ConvertError> {
    if data.is_empty() || data.len() as u64 == block_bytes || data.len() < DWA_COUNTERS * 8 {
        return Ok(());
    }
    let counter =
        |i: usize| u64::from_le_bytes(data[8 * i..8 * i + 8].try_into().expect("8 bytes"));
    let coefficients = (width.saturating_add(7))
        .saturating_mul(height.saturating_add(7))
        .saturating_mul(channels);
    let rle_tokens = block_bytes.saturating_mul(2).saturating_add(64);
    let bounds = [
        (1, "unknownUncompressedSize", block_bytes),
        (2, "unknownCompressedSize", data.len() as u64),
        (3, "acCompressedSize", data.len() as u64),
        (4, "dcCompressedSize", data.len() as u64),
        (5, "rleCompressedSize", data.len() as u64),
        (6, "rleUncompressedSize", rle_tokens),
        (7, "rleRawSize", block_bytes),
        (8, "totalAcUncompressedCount", coefficients),
        (9, "totalDcUncompressedCount", coefficients),
    ];
    for (i, name, most) in bounds {
        let value = counter(i);
        if value > most {
            return Err(ConvertError::Container(format!(
                "OpenEXR DWA block of {width}x{height} pixels declares {name} {value}, more \
                 than the {most} such a block can need"
            )));
        }
    }
    Ok(())
}

/// Reads a Radiance RGBE (`.hdr`) image, once its declared size is checked against
/// `limits` and the file's size. The header is read first (at most 64 KiB) and checked;
/// then only as many bytes as the declared image can take in any encoding, so
/// `/dev/zero` or `/dev/urandom` is refused after its first bytes. The image is decoded
/// in place into its RGBA buffer: the peak memory is the file's bytes and the image.
pub fn read_hdr(path: &Path, limits: ImageLimits) -> Result<RgbaImage, ConvertError> {
    const HEADER_LIMIT: u64 = 64 << 10;
    let (mut file, len) = open(path)?;
    let mut bytes = Vec::new();
    read_at_most(
        &mut file,
        &mut bytes,
        HEADER_LIMIT,
        len.map(|l| l.min(HEADER_LIMIT)),
    )
    .map_err(|e| reading(e, "Radiance HDR"))?;
    // The decoder reads the header only; where it stops is where the pixel data starts.
    let mut cursor = std::io::Cursor::new(bytes.as_slice());
    let (width, height) = image::codecs::hdr::HdrDecoder::new(&mut cursor)
        .map_err(|e| container("Radiance HDR", e))?
        .dimensions();
    let header_len = cursor.position();
    check_declared("Radiance HDR", width as u64, height as u64, limits)?;
    // The most pixel data any encoding of the image takes: per scanline a 4-byte
    // run-length header and each of the 4 components as literal runs of one byte (two
    // bytes per byte); flat pixels take less. Bytes past that are never read.
    let bytes_rgba = rgba_bytes(width as u64, height as u64, "Radiance HDR")?;
    let most_data = (height as u64).saturating_mul(8 * width as u64 + 4);
    let have = bytes.len() as u64 - header_len;
    if have < most_data {
        read_at_most(
            &mut file,
            &mut bytes,
            most_data - have,
            len.map(|l| l.saturating_sub(have + header_len)),
        )
        .map_err(|e| reading(e, "Radiance HDR"))?;
    }
    // Each scanline takes at least one 4-byte RGBE pixel or run-length header, whatever
    // its encoding. (Within a line, old-style run lengths can repeat one pixel billions of
    // times, so the width has only the pixel limit.)
    let data_bytes = bytes.len() as u64 - header_len;
    if height as u64 > data_bytes / 4 {
        return Err(ConvertError::Container(format!(
            "Radiance HDR file declares {width}x{height} pixels, but its {data_bytes} bytes of pixel data hold at most {} scanlines",
            data_bytes / 4
        )));
    }
    let decoder = image::codecs::hdr::HdrDecoder::new(std::io::Cursor::new(bytes.as_slice()))
        .map_err(|e| container("Radiance HDR", e))?;
    let pixels = bytes_rgba / 16;
    let mut data = zeroed_vec(bytes_rgba).map_err(|_| out_of_memory("Radiance HDR", bytes_rgba))?;
    let rgb_len = decoder.total_bytes() as usize;
    debug_assert_eq!(rgb_len, pixels * 12);
    decoder
        .read_image(&mut data[..rgb_len])
        .map_err(|e| container("Radiance HDR", e))?;
    // The decoder wrote native-endian f32 RGB in the first 12 bytes per pixel; spread it
    // to RGBA from the last pixel down (pixel i moves up to 16 * i, past nothing unread),
    // store little-endian and add alpha 1.0.
    for i in (0..pixels).rev() {
        let mut texel = [0u8; 16];
        for c in 0..3 {
            let at = 12 * i + 4 * c;
            let v = f32::from_ne_bytes(data[at..at + 4].try_into().expect("4 bytes"));
            texel[4 * c..4 * c + 4].copy_from_slice(&v.to_le_bytes());
        }
        texel[12..].copy_from_slice(&1f32.to_le_bytes());
        data[16 * i..16 * i + 16].copy_from_slice(&texel);
    }
    Ok(RgbaImage {
        width,
        height,
        channels: 4,
        data,
    })
}
