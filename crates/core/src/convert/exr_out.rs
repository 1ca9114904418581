//! OpenEXR output through the `exr` crate: one image of f16 (HALF) or f32 (FLOAT)
//! channels, `Y` for one channel, `R G B` for three, `R G B A` for four, scan lines from
//! the top, uncompressed or with ZIP or PIZ compression (both lossless: the bits written
//! are the bits read back).

use super::ConvertError;
use crate::format::choice::{Choice, UnknownChoice, parse_choice};
use crate::format::{F16, F32, Format};

/// The compression of an EXR output; ZIP unless asked otherwise.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ExrCompression {
    /// Stored as they are.
    None,
    /// zlib over blocks of 16 scan lines (OpenEXR's ZIP).
    #[default]
    Zip,
    /// Wavelet and Huffman coding over blocks of 32 scan lines (OpenEXR's PIZ).
    Piz,
}

impl ExrCompression {
    /// The names `--compression` and `compression=` take, one per value.
    pub const NAMES: [&'static str; 3] = ["none", "zip", "piz"];
    /// Every compression, in the order of [`ExrCompression::NAMES`].
    pub const ALL: [ExrCompression; 3] = [
        ExrCompression::None,
        ExrCompression::Zip,
        ExrCompression::Piz,
    ];
}

impl Choice for ExrCompression {
    const WHAT: &'static str = "compression";
    const ALL: &'static [ExrCompression] = &ExrCompression::ALL;

    fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    fn summary(self) -> &'static str {
        match self {
            ExrCompression::None => "Stored as they are",
            ExrCompression::Zip => "zlib over blocks of 16 scan lines (lossless)",
            ExrCompression::Piz => "Wavelet and Huffman coding (lossless)",
        }
    }
}

impl std::str::FromStr for ExrCompression {
    type Err = UnknownChoice;
    fn from_str(s: &str) -> Result<ExrCompression, UnknownChoice> {
        parse_choice(s)
    }
}

impl std::fmt::Display for ExrCompression {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The channel names of an EXR image of `channels` channels, or `None` for a count EXR
/// output does not take.
pub fn channel_names(channels: usize) -> Option<&'static [&'static str]> {
    match channels {
        1 => Some(&["Y"]),
        3 => Some(&["R", "G", "B"]),
        4 => Some(&["R", "G", "B", "A"]),
        _ => None,
    }
}

/// Encodes `data` (`width * height` texels of `channels` little-endian elements of
/// `format`, f16 or f32, rows from the top) as an OpenEXR file.
pub fn encode(
    width: u32,
    height: u32,
    format: Format,
    channels: usize,
    data: &[u8],
    compression: ExrCompression,
) -> Result<Vec<u8>, ConvertError> {
    use exr::prelude::*;
    let names = channel_names(channels).ok_or_else(|| {
        ConvertError::Container(format!(
            "an .exr output takes 1 (Y), 3 (RGB) or 4 (RGBA) channels, not {channels}"
        ))
    })?;
    let element = format.element_bytes();
    let plane = |c: usize| {
        data.chunks_exact(element * channels)
            .map(move |t| &t[c * element..(c + 1) * element])
    };
    let samples = |c: usize| match format {
        Format::Float(f) if f == F16 => FlatSamples::F16(
            plane(c)
                .map(|b| f16::from_bits(u16::from_le_bytes([b[0], b[1]])))
                .collect(),
        ),
        Format::Float(f) if f == F32 => FlatSamples::F32(
            plane(c)
                .map(|b| f32::from_le_bytes(b.try_into().expect("4 bytes")))
                .collect(),
        ),
        _ => unreachable!("checked by the caller: f16 or f32"),
    };
    if !matches!(format, Format::Float(f) if f == F16 || f == F32) {
        return Err(ConvertError::Container(format!(
            "an .exr output holds f16 or f32 channels, not {}",
            format.name()
        )));
    }
    let list = names
        .iter()
        .enumerate()
        .map(|(c, name)| AnyChannel::new(*name, samples(c)))
        .collect();
    let encoding = Encoding {
        compression: match compression {
            ExrCompression::None => Compression::Uncompressed,
            ExrCompression::Zip => Compression::ZIP16,
            ExrCompression::Piz => Compression::PIZ,
        },
        blocks: Blocks::ScanLines,
        line_order: LineOrder::Increasing,
    };
    let layer = Layer::new(
        (width as usize, height as usize),
        LayerAttributes::default(),
        encoding,
        AnyChannels::sort(list),
    );
    let mut out = std::io::Cursor::new(Vec::new());
    Image::from_layer(layer)
        .write()
        .to_buffered(&mut out)
        .map_err(|e| ConvertError::Container(format!("encoding the OpenEXR image: {e}")))?;
    Ok(out.into_inner())
}
