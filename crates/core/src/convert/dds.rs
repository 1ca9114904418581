//! DDS textures (the `ddsfile` crate parses and writes the headers): which DXGI formats
//! convert reads and writes, the legacy D3DFMT float formats it reads (as texconv and
//! DirectXTex write them, without a DX10 header), the size check that catches a header
//! that lies, and the header of the converted texture.

use std::io::Read;

use ddsfile::{
    AlphaMode, Caps2, D3D10ResourceDimension, D3DFormat, Dds, DxgiFormat, PixelFormatFlags,
};

pub use super::layout::{Shape, Texels};
use super::{Conversion, ConvertError};
use crate::format::bc6h::{self, Bc6h};
use crate::format::{F16, F32, Format, RoundOptions};
use crate::io::{MemoryReadError, read_at_most, read_full};

/// The DXGI formats convert handles, with their texels.
const DXGI_TEXELS: [(DxgiFormat, Format, usize, &str); 9] = [
    (
        DxgiFormat::R32G32B32A32_Float,
        Format::Float(F32),
        4,
        "R32G32B32A32_FLOAT",
    ),
    (
        DxgiFormat::R32G32B32_Float,
        Format::Float(F32),
        3,
        "R32G32B32_FLOAT",
    ),
    (
        DxgiFormat::R16G16B16A16_Float,
        Format::Float(F16),
        4,
        "R16G16B16A16_FLOAT",
    ),
    (
        DxgiFormat::R32G32_Float,
        Format::Float(F32),
        2,
        "R32G32_FLOAT",
    ),
    (
        DxgiFormat::R16G16_Float,
        Format::Float(F16),
        2,
        "R16G16_FLOAT",
    ),
    (DxgiFormat::R32_Float, Format::Float(F32), 1, "R32_FLOAT"),
    (DxgiFormat::R16_Float, Format::Float(F16), 1, "R16_FLOAT"),
    (
        DxgiFormat::R11G11B10_Float,
        Format::R11G11B10,
        1,
        "R11G11B10_FLOAT",
    ),
    (
        DxgiFormat::R9G9B9E5_SharedExp,
        Format::Rgb9e5,
        1,
        "R9G9B9E5_SHAREDEXP",
    ),
];

/// The legacy D3DFMT float formats (FourCC codes 111-116) convert reads, with their texels:
/// the same bytes as the DXGI format of the same channels (`A16B16G16R16F` names its
/// channels from the high bits down, so R comes first in memory, as in
/// `R16G16B16A16_FLOAT`).
const D3D_TEXELS: [(D3DFormat, Format, usize); 6] = [
    (D3DFormat::R16F, Format::Float(F16), 1),
    (D3DFormat::G16R16F, Format::Float(F16), 2),
    (D3DFormat::A16B16G16R16F, Format::Float(F16), 4),
    (D3DFormat::R32F, Format::Float(F32), 1),
    (D3DFormat::G32R32F, Format::Float(F32), 2),
    (D3DFormat::A32B32G32R32F, Format::Float(F32), 4),
];

/// The BC6H formats (§19.5.13): read into f16 RGBA texels, written from them.
const DXGI_BC6H: [(DxgiFormat, Bc6h, &str); 2] = [
    (DxgiFormat::BC6H_UF16, Bc6h::Unsigned, "BC6H_UF16"),
    (DxgiFormat::BC6H_SF16, Bc6h::Signed, "BC6H_SF16"),
];

/// The DXGI name of a BC6H format (`BC6H_UF16`, `BC6H_SF16`), as messages give it.
pub fn bc6h_name(b: Bc6h) -> &'static str {
    DXGI_BC6H.iter().find(|d| d.1 == b).expect("listed").2
}

/// The BC6H format a DXGI format names, if it does.
fn bc6h_of(dxgi: DxgiFormat) -> Option<Bc6h> {
    DXGI_BC6H
        .iter()
        .find(|(d, ..)| *d == dxgi)
        .map(|&(_, b, _)| b)
}

/// The texels of a DXGI format, or `None` for a format convert does not handle.
pub fn texels_of(dxgi: DxgiFormat) -> Option<Texels> {
    DXGI_TEXELS
        .iter()
        .find(|(d, ..)| *d == dxgi)
        .map(|&(_, format, channels, _)| Texels { format, channels })
}

/// The DXGI format that holds `t`, with its name as DXGI spells it, or `None` when no
/// handled format does (two f16 channels, for one).
pub fn dxgi_of(t: Texels) -> Option<(DxgiFormat, &'static str)> {
    DXGI_TEXELS
        .iter()
        .find(|(_, f, c, _)| *f == t.format && *c == t.channels)
        .map(|&(d, _, _, name)| (d, name))
}

fn supported_names() -> String {
    let mut names = DXGI_TEXELS.map(|(.., n)| n).to_vec();
    names.extend(DXGI_BC6H.map(|(.., n)| n));
    names.join(", ")
}

/// A DDS texture read into memory: its shape, texels and data (every layer's levels).
pub struct Texture {
    /// Size and arrangement, from the header.
    pub shape: Shape,
    /// What one texel is, from the header's DXGI format.
    pub texels: Texels,
    /// The texel data, little-endian: layer after layer, each with its mip levels from
    /// the largest down; exactly the size the header describes. For BC6H, the decoded
    /// texels ([`read`]) or the blocks as stored ([`read_stored`]).
    pub data: Vec<u8>,
    /// The BC6H format the file held (then `texels` is what its blocks decode to); `None`
    /// for texels stored as they are.
    pub bc6h: Option<Bc6h>,
}

fn container(msg: String) -> ConvertError {
    ConvertError::Container(msg)
}

/// Bytes of the DDS magic number and header, and of the DX10 header that may follow.
const HEADER_BYTES: usize = 4 + 124;
const HEADER10_BYTES: usize = 20;

/// Reads a DDS file from `r` and checks that its data is exactly what the header
/// describes. The header is read first (at most 148 bytes) and checked; then only the
/// bytes it describes are read, plus one to tell a longer file, so a stream that never
/// ends (`/dev/zero`) or a header that claims gigabytes costs no more memory than the
/// texture the header describes and the file really holds. `file_len`, a regular file's
/// size, lets a size mismatch be refused before any data is read.
///
/// A BC6H texture's blocks are decoded into f16 RGBA texels ([`read_stored`] keeps them).
pub fn read(r: &mut dyn Read, file_len: Option<u64>) -> Result<Texture, ConvertError> {
    let mut t = read_stored(r, file_len)?;
    if let Some(b) = t.bc6h {
        t.data = super::blocks::decode(&t.shape, super::layout::Order::LayerMajor, b, &t.data)?;
    }
    Ok(t)
}

/// [`read`], with a BC6H texture's blocks kept as they are in [`Texture::data`].
pub fn read_stored(r: &mut dyn Read, file_len: Option<u64>) -> Result<Texture, ConvertError> {
    let mut head = [0u8; HEADER_BYTES + HEADER10_BYTES];
    let got = read_full(r, &mut head)
        .map_err(|e| reading_error(MemoryReadError::Io(e), "the DDS header"))?;
    let dds =
        Dds::read(&head[..got]).map_err(|e| container(format!("not a readable DDS file: {e}")))?;
    let header_len = if dds.header10.is_some() {
        HEADER_BYTES + HEADER10_BYTES
    } else {
        HEADER_BYTES
    };
    let (shape, texels) = shape_of(&dds)?;
    let blocks = dds.header10.as_ref().and_then(|h| bc6h_of(h.dxgi_format));
    let expected = match blocks {
        Some(b) => checked_block_size(&shape, b)?,
        None => checked_size(&shape, texels)?,
    };
    let describe = match blocks {
        Some(b) => describe_blocks(&shape, b),
        None => describe(&shape, texels),
    };
    let holds = |n: String| {
        container(format!(
            "DDS header describes {expected} bytes of texels ({describe}) but the file holds {n}"
        ))
    };
    if let Some(len) = file_len {
        let data_len = len.saturating_sub(header_len as u64);
        if data_len != expected {
            return Err(holds(data_len.to_string()));
        }
    }
    // The header's read took up to 20 bytes of data with it (a file without the DX10
    // header); they are the data's first bytes.
    let mut data = dds.data;
    let rest = expected.saturating_sub(data.len() as u64);
    if data.len() as u64 > expected {
        return Err(holds(format!("more ({} bytes at least)", data.len())));
    }
    let hint = file_len.map(|_| rest);
    let longer =
        read_at_most(r, &mut data, rest, hint).map_err(|e| reading_error(e, "the DDS texels"))?;
    if longer {
        let shown = match file_len {
            Some(len) => len.saturating_sub(header_len as u64).to_string(),
            None => format!("more ({} bytes at least)", expected + 1),
        };
        return Err(holds(shown));
    }
    if data.len() as u64 != expected {
        return Err(holds(data.len().to_string()));
    }
    Ok(Texture {
        shape,
        texels,
        data,
        bc6h: blocks,
    })
}

/// Bytes of BC6H blocks the shape holds; an error where that overflows a `u64`.
fn checked_block_size(shape: &Shape, b: Bc6h) -> Result<u64, ConvertError> {
    super::blocks::checked_size(shape).ok_or_else(|| impossible(shape, b))
}

fn impossible(shape: &Shape, b: Bc6h) -> ConvertError {
    container(format!(
        "DDS header describes an impossible size ({})",
        describe_blocks(shape, b)
    ))
}

/// The shape of a BC6H texture as messages describe it.
fn describe_blocks(shape: &Shape, b: Bc6h) -> String {
    describe_as(shape, bc6h_name(b))
}

/// The headers of a DDS file of BC6H blocks of the given shape, as [`build`] makes them.
pub fn build_bc6h(shape: &Shape, b: Bc6h, data_len: u64) -> Result<Dds, ConvertError> {
    let &(format, ..) = DXGI_BC6H.iter().find(|d| d.1 == b).expect("listed");
    let needed = checked_block_size(shape, b)?;
    if data_len != needed {
        return Err(container(format!(
            "encoded data is {data_len} bytes where the DDS layout ({}) needs {needed}",
            describe_blocks(shape, b)
        )));
    }
    // The pitch (one row of blocks) is a u32 that ddsfile computes without a check.
    if (shape.width as u64).div_ceil(4) * bc6h::BLOCK_BYTES as u64 > u32::MAX as u64 {
        return Err(container(format!(
            "a row of {} texels of BC6H blocks is more bytes than a DDS header's pitch can hold",
            shape.width
        )));
    }
    headers(shape, format)
}

fn reading_error(e: MemoryReadError, what: &str) -> ConvertError {
    match e {
        MemoryReadError::Io(source) => ConvertError::io(format!("reading {what}"), source),
        MemoryReadError::OutOfMemory(n) => {
            container(format!("not enough memory for {what} ({n} bytes)"))
        }
    }
}

/// The shape and texels a parsed header declares, once the counts are consistent: at
/// least one texel, cube faces that fit a `u32` when counted one by one, and no more mip
/// levels than the largest dimension has halvings (floor(log2(max(w, h, d))) + 1), so a
/// 1x1 texture cannot declare 2^32 - 1 levels of one texel each.
fn shape_of(dds: &Dds) -> Result<(Shape, Texels), ConvertError> {
    let depth = dds.header.depth.unwrap_or(1).max(1);
    let (texels, cubemap, dimension, alpha_mode, layers) = match dds.header10.as_ref() {
        Some(h10) => {
            let texels = texels_of(h10.dxgi_format)
                .or_else(|| bc6h_of(h10.dxgi_format).map(|_| super::blocks::TEXELS))
                .ok_or_else(|| {
                    container(format!(
                        "DDS format {:?} is not one convert reads ({})",
                        h10.dxgi_format,
                        supported_names()
                    ))
                })?;
            let cube = h10.misc_flag.contains(ddsfile::MiscFlag::TEXTURECUBE);
            // ddsfile's own count multiplies by six in a u32 and wraps: 0x2AAAAAAB cubes
            // would read as 2 faces.
            let layers = if cube {
                h10.array_size.checked_mul(6).ok_or_else(|| {
                    container(format!(
                        "DDS header declares {} cube maps, more faces than a DDS file can count",
                        h10.array_size
                    ))
                })?
            } else {
                h10.array_size
            };
            (texels, cube, h10.resource_dimension, h10.alpha_mode, layers)
        }
        None => {
            let legacy = dds.get_d3d_format();
            let texels = legacy
                .and_then(|d| D3D_TEXELS.iter().find(|(f, ..)| *f == d))
                .map(|&(_, format, channels)| Texels { format, channels })
                .ok_or_else(|| {
                    container(format!(
                        "DDS format {} is not one convert reads (DXGI: {}; legacy: \
                         D3DFMT_R16F, G16R16F, A16B16G16R16F, R32F, G32R32F, A32B32G32R32F)",
                        legacy.map_or("without a DX10 header or float FourCC".to_string(), |d| {
                            format!("D3DFMT_{d:?}")
                        }),
                        supported_names()
                    ))
                })?;
            // The legacy header says cube maps and volumes in its caps2 flags.
            let caps2 = dds.header.caps2;
            let volume = caps2.contains(Caps2::VOLUME) || depth > 1;
            let dimension = if volume {
                D3D10ResourceDimension::Texture3D
            } else {
                D3D10ResourceDimension::Texture2D
            };
            let cube = caps2.contains(Caps2::CUBEMAP);
            (
                texels,
                cube,
                dimension,
                AlphaMode::Unknown,
                if cube { 6 } else { 1 },
            )
        }
    };
    let shape = Shape {
        width: dds.header.width,
        height: dds.header.height,
        depth,
        mips: dds.get_num_mipmap_levels().max(1),
        layers,
        cubemap,
        dimension,
        alpha_mode,
    };
    if shape.width == 0 || shape.height == 0 || shape.layers == 0 {
        return Err(container(format!(
            "DDS header describes an empty texture ({})",
            describe(&shape, texels)
        )));
    }
    let most = shape.most_mips();
    if shape.mips > most {
        return Err(container(format!(
            "DDS header declares {} mip levels, but a {}x{}x{} texture has at most {most}",
            shape.mips, shape.width, shape.height, shape.depth
        )));
    }
    Ok((shape, texels))
}

/// The shape as messages describe it.
fn describe(shape: &Shape, texels: Texels) -> String {
    describe_as(shape, dxgi_of(texels).expect("listed").1)
}

/// A shape of elements named `format`, as messages describe it.
fn describe_as(shape: &Shape, format: &str) -> String {
    format!(
        "{}x{}x{}, {} mip levels, {} layers of {}",
        shape.width, shape.height, shape.depth, shape.mips, shape.layers, format
    )
}

/// Bytes of texels the shape holds, every level and layer, or an error where that
/// overflows a `u64`.
fn checked_size(shape: &Shape, texels: Texels) -> Result<u64, ConvertError> {
    shape
        .texel_count()
        .and_then(|n| n.checked_mul(texels.bytes() as u64))
        .ok_or_else(|| {
            container(format!(
                "DDS header describes an impossible size ({})",
                describe(shape, texels)
            ))
        })
}

/// The conversion that turns `src` texels into format `to`, and the texels that result.
/// Floats keep their channel count; packed words unpack to `channels` (default 4: RGBA,
/// alpha 1.0); floats pack from 3 or 4 channels (alpha dropped).
pub fn plan(
    src: Texels,
    to: Format,
    channels: Option<usize>,
    opts: RoundOptions,
) -> Result<(Conversion, Texels), ConvertError> {
    let packed = |f: Format| matches!(f, Format::R11G11B10 | Format::Rgb9e5);
    let (conv, target) = match (packed(src.format), packed(to)) {
        // The channels come from the input, so a wrong count is the input's, whatever
        // `--channels` says.
        (false, true) if src.channels != 3 && src.channels != 4 => {
            return Err(container(format!(
                "the input holds {} channel(s) of {} per texel ({}), and {} packs 3 or 4 \
                 (RGB or RGBA)",
                src.channels,
                src.format.name(),
                dxgi_of(src).map_or("", |(_, name)| name),
                to.name()
            )));
        }
        (false, true) => (
            Conversion::new(src.format, to, src.channels, opts)?,
            Texels {
                format: to,
                channels: 1,
            },
        ),
        (false, false) => (
            Conversion::new(src.format, to, 1, opts)?,
            Texels {
                format: to,
                channels: src.channels,
            },
        ),
        (true, false) => {
            let ch = channels.unwrap_or(4);
            (
                Conversion::new(src.format, to, ch, opts)?,
                Texels {
                    format: to,
                    channels: ch,
                },
            )
        }
        (true, true) => (
            Conversion::new(src.format, to, 1, opts)?,
            Texels {
                format: to,
                channels: 1,
            },
        ),
    };
    Ok((conv, target))
}

/// The headers of a DDS file for `data_len` bytes of converted texels of the given
/// shape: a [`Dds`] whose `data` is empty, for [`header_bytes`]. The data is not copied
/// into it, so a texture is in memory once, not twice, while it is written.
pub fn build(shape: &Shape, texels: Texels, data_len: u64) -> Result<Dds, ConvertError> {
    let (format, _) = dxgi_of(texels).ok_or_else(|| {
        container(format!(
            "no DXGI format holds {} channel(s) of {} (DDS output takes {})",
            texels.channels,
            texels.format.name(),
            supported_names()
        ))
    })?;
    let needed = checked_size(shape, texels)?;
    if data_len != needed {
        return Err(container(format!(
            "converted data is {data_len} bytes where the DDS layout ({}) needs {needed}",
            describe(shape, texels)
        )));
    }
    // The header's pitch is a u32 that ddsfile computes without a check.
    if shape.width as u64 * texels.bytes() as u64 > u32::MAX as u64 {
        return Err(container(format!(
            "a row of {} texels of {} is more bytes than a DDS header's pitch can hold",
            shape.width,
            dxgi_of(texels).expect("listed").1
        )));
    }
    headers(shape, format)
}

/// The DDS headers (with a DX10 header) for a texture of `shape` in `format`.
fn headers(shape: &Shape, format: DxgiFormat) -> Result<Dds, ConvertError> {
    let header = ddsfile::Header::new_dxgi(
        shape.height,
        shape.width,
        (shape.depth > 1).then_some(shape.depth),
        format,
        (shape.mips > 1).then_some(shape.mips),
        (shape.layers > 1).then_some(shape.layers),
        None,
    )
    .map_err(|e| container(format!("building the DDS header: {e}")))?;
    let array_size = if shape.cubemap {
        shape.layers / 6
    } else {
        shape.layers
    };
    let header10 = ddsfile::Header10::new(
        format,
        shape.cubemap,
        shape.dimension,
        array_size,
        shape.alpha_mode,
    );
    let mut dds = Dds {
        header,
        header10: Some(header10),
        data: Vec::new(),
    };
    // With the DX10 FourCC the pixel format is the FourCC alone: no RGB flag, bit count or
    // masks (Microsoft's DDS_PIXELFORMAT documentation). A reader that trusts the RGB
    // fields over the FourCC (Pillow) would otherwise take the floats for 8-bit pixels.
    let spf = &mut dds.header.spf;
    spf.flags = PixelFormatFlags::FOURCC;
    spf.rgb_bit_count = None;
    spf.r_bit_mask = None;
    spf.g_bit_mask = None;
    spf.b_bit_mask = None;
    spf.a_bit_mask = None;
    Ok(dds)
}

/// The bytes of a DDS file's headers (magic, header, DX10 header), for headers from
/// [`build`]: the texels follow them in the file.
pub fn header_bytes(dds: &Dds) -> Result<Vec<u8>, ConvertError> {
    debug_assert!(dds.data.is_empty());
    let mut out = Vec::with_capacity(HEADER_BYTES + HEADER10_BYTES);
    dds.write(&mut out)
        .map_err(|e| container(format!("writing the DDS header: {e}")))?;
    Ok(out)
}
