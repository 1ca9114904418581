//! DDS textures (the `ddsfile` crate parses and writes the headers): which DXGI formats
//! convert reads and writes, the legacy D3DFMT float formats it reads (as texconv and
//! DirectXTex write them, without a DX10 header), the size check that catches a header
//! that lies, and the header of the converted texture.

use ddsfile::{
    AlphaMode, Caps2, D3D10ResourceDimension, D3DFormat, Dds, DxgiFormat, NewDxgiParams,
    PixelFormatFlags,
};

use super::{Conversion, ConvertError};
use crate::format::{F16, F32, Format, RoundOptions};

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
    DXGI_TEXELS.map(|(.., n)| n).join(", ")
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

    /// Texels in every level of every layer, or `None` if that overflows.
    pub fn texel_count(&self) -> Option<u64> {
        let mut per_layer: u64 = 0;
        for level in 0..self.mips.min(64) {
            let dim = |n: u32| (n as u64 >> level).max(1);
            let texels = dim(self.width)
                .checked_mul(dim(self.height))?
                .checked_mul(dim(self.depth))?;
            per_layer = per_layer.checked_add(texels)?;
        }
        per_layer.checked_mul(self.layers as u64)
    }
}

/// A DDS texture read into memory: its shape, texels and data (every layer's levels).
pub struct Texture {
    /// Size and arrangement, from the header.
    pub shape: Shape,
    /// What one texel is, from the header's DXGI format.
    pub texels: Texels,
    /// The texel data as stored, little-endian: layer after layer, each with its mip
    /// levels from the largest down; exactly the size the header describes.
    pub data: Vec<u8>,
}

fn container(msg: String) -> ConvertError {
    ConvertError::Container(msg)
}

/// Parses a DDS file and checks that its data is exactly what the header describes.
pub fn read(bytes: &[u8]) -> Result<Texture, ConvertError> {
    let dds = Dds::read(bytes).map_err(|e| container(format!("not a readable DDS file: {e}")))?;
    let depth = dds.header.depth.unwrap_or(1).max(1);
    let (texels, cubemap, dimension, alpha_mode) = match dds.header10.as_ref() {
        Some(h10) => {
            let texels = texels_of(h10.dxgi_format).ok_or_else(|| {
                container(format!(
                    "DDS format {:?} is not one convert reads ({})",
                    h10.dxgi_format,
                    supported_names()
                ))
            })?;
            let cube = h10.misc_flag.contains(ddsfile::MiscFlag::TEXTURECUBE);
            (texels, cube, h10.resource_dimension, h10.alpha_mode)
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
            (
                texels,
                caps2.contains(Caps2::CUBEMAP),
                dimension,
                AlphaMode::Unknown,
            )
        }
    };
    let shape = Shape {
        width: dds.header.width,
        height: dds.header.height,
        depth,
        mips: dds.get_num_mipmap_levels().max(1),
        layers: dds.get_num_array_layers(),
        cubemap,
        dimension,
        alpha_mode,
    };
    let describe = format!(
        "{}x{}x{}, {} mip levels, {} layers of {}",
        shape.width,
        shape.height,
        shape.depth,
        shape.mips,
        shape.layers,
        dxgi_of(texels).expect("listed").1
    );
    let expected = shape
        .texel_count()
        .and_then(|n| n.checked_mul(texels.bytes() as u64))
        .ok_or_else(|| {
            container(format!(
                "DDS header describes an impossible size ({describe})"
            ))
        })?;
    if shape.width == 0 || shape.height == 0 || shape.layers == 0 {
        return Err(container(format!(
            "DDS header describes an empty texture ({describe})"
        )));
    }
    if expected != dds.data.len() as u64 {
        return Err(container(format!(
            "DDS header describes {expected} bytes of texels ({describe}) but the file holds {}",
            dds.data.len()
        )));
    }
    Ok(Texture {
        shape,
        texels,
        data: dds.data,
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

/// A DDS file (headers and data) for converted texels of the given shape.
pub fn build(shape: &Shape, texels: Texels, data: Vec<u8>) -> Result<Dds, ConvertError> {
    let (format, _) = dxgi_of(texels).ok_or_else(|| {
        container(format!(
            "no DXGI format holds {} channel(s) of {} (DDS output takes {})",
            texels.channels,
            texels.format.name(),
            supported_names()
        ))
    })?;
    let mut dds = Dds::new_dxgi(NewDxgiParams {
        height: shape.height,
        width: shape.width,
        depth: (shape.depth > 1).then_some(shape.depth),
        format,
        mipmap_levels: (shape.mips > 1).then_some(shape.mips),
        array_layers: (shape.layers > 1).then_some(shape.layers),
        caps2: None,
        is_cubemap: shape.cubemap,
        resource_dimension: shape.dimension,
        alpha_mode: shape.alpha_mode,
    })
    .map_err(|e| container(format!("building the DDS header: {e}")))?;
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
    if dds.data.len() != data.len() {
        return Err(container(format!(
            "converted data is {} bytes where the DDS layout needs {}",
            data.len(),
            dds.data.len()
        )));
    }
    dds.data = data;
    Ok(dds)
}

/// The bytes of a DDS file.
pub fn to_bytes(dds: &Dds) -> Result<Vec<u8>, ConvertError> {
    let mut out = Vec::with_capacity(dds.data.len() + 148);
    dds.write(&mut out)
        .map_err(|e| container(format!("writing the DDS file: {e}")))?;
    Ok(out)
}
