//! Bulk conversion of binary data between the formats: the per-element core
//! ([`element`]), fast slice kernels checked against it ([`kernels`]), streaming of raw
//! data ([`raw`]), containers ([`dds`], [`image_in`]) and the counts ([`summary`]).

pub mod blocks;
pub mod dds;
pub mod element;
pub mod exr_out;
pub mod image_in;
pub mod image_out;
pub mod kernels;
pub mod ktx2;
pub mod layout;
pub mod pfm;
pub mod raw;
pub mod summary;

pub use summary::Stats;

use crate::format::{F16, F32, F64, Format, RoundOptions};
use dds::{Shape, Texels};

/// One bulk conversion: what each group of source bytes becomes.
///
/// Between two binary floats a group is one element. When one side is a packed word
/// (r11g11b10, rgb9e5), a group is one texel: the word on that side and `channels` (3 or 4)
/// floats on the other; a fourth channel is alpha, dropped when packing and written as 1.0
/// when unpacking.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Conversion {
    /// The source format.
    pub from: Format,
    /// The target format.
    pub to: Format,
    /// Floats per texel on the float side when exactly one side is packed (3 or 4);
    /// 1 otherwise.
    pub channels: usize,
    /// Rounding mode and saturation applied to every value.
    pub opts: RoundOptions,
}

/// Why a conversion cannot be set up or carried out. `Io` carries the operating system's
/// message; the others name the numbers involved so the message can stand alone.
#[derive(Debug, thiserror::Error)]
pub enum ConvertError {
    /// The float side of a packed format has neither 3 nor 4 channels: the packed
    /// format's name and the count.
    #[error("{0} texels go with 3 or 4 float channels (RGB or RGBA), not {1}")]
    Channels(&'static str, usize),
    #[error("input size {size} bytes is not a multiple of the {group}-byte {what}")]
    /// The input does not divide into whole source groups.
    Truncated {
        /// Input bytes: the file's size, or when streaming the bytes read up to the short
        /// group.
        size: u64,
        /// Bytes per source group ([`Conversion::src_group_bytes`]).
        group: usize,
        /// The group as the message names it ([`Conversion::src_group_name`]).
        what: String,
    },
    /// The output cannot be written, or is the input.
    #[error(transparent)]
    Output(#[from] crate::output_file::OutputError),
    /// A DDS, OpenEXR or Radiance HDR file that cannot be read, or a DDS file that cannot
    /// be built, as asked; the whole message.
    #[error("{0}")]
    Container(String),
    /// A picture whose header declares more pixels than the reader's limit
    /// ([`image_in::ImageLimits`]): refused before anything is allocated. The caller
    /// says how its user raises the limit (`--max-pixels`, `max_pixels=`).
    #[error("{what} file declares {width}x{height} pixels: more than the limit of {limit}")]
    PixelLimit {
        /// The container (`Radiance HDR`, `OpenEXR`).
        what: String,
        /// The declared width.
        width: u64,
        /// The declared height.
        height: u64,
        /// The limit it passes.
        limit: u64,
    },
    /// The cause is the error's source, so a `{:#}` chain names it once.
    #[error("{context}")]
    Io {
        /// What was being done, such as `writing out.raw`.
        context: String,
        /// The operating system's error.
        source: std::io::Error,
    },
}

impl ConvertError {
    /// A [`ConvertError::Io`] for an operating-system error met while doing `context`.
    pub fn io(context: impl Into<String>, source: std::io::Error) -> ConvertError {
        ConvertError::Io {
            context: context.into(),
            source,
        }
    }
}

fn is_packed(f: Format) -> bool {
    matches!(f, Format::R11G11B10 | Format::Rgb9e5)
}

impl Conversion {
    /// Checks the channel count: 3 or 4 when exactly one side is packed; ignored (1)
    /// otherwise.
    pub fn new(
        from: Format,
        to: Format,
        channels: usize,
        opts: RoundOptions,
    ) -> Result<Conversion, ConvertError> {
        let channels = match (is_packed(from), is_packed(to)) {
            (false, false) | (true, true) => 1,
            (true, false) | (false, true) => {
                if channels != 3 && channels != 4 {
                    let packed = if is_packed(from) { from } else { to };
                    return Err(ConvertError::Channels(packed.name(), channels));
                }
                channels
            }
        };
        Ok(Conversion {
            from,
            to,
            channels,
            opts,
        })
    }

    fn side_bytes(&self, f: Format, other: Format) -> usize {
        if !is_packed(f) && is_packed(other) {
            f.element_bytes() * self.channels
        } else {
            f.element_bytes()
        }
    }

    /// Bytes of one source group.
    pub fn src_group_bytes(&self) -> usize {
        self.side_bytes(self.from, self.to)
    }

    /// Bytes of one output group.
    pub fn dst_group_bytes(&self) -> usize {
        self.side_bytes(self.to, self.from)
    }

    /// Describes a source group for error messages ("f32 element", "texel of 3 f32").
    pub fn src_group_name(&self) -> String {
        if !is_packed(self.from) && is_packed(self.to) {
            format!("texel of {} {}", self.channels, self.from.name())
        } else {
            format!("{} element", self.from.name())
        }
    }

    /// Output bytes for `src_len` input bytes (a whole number of groups).
    pub fn dst_len(&self, src_len: usize) -> usize {
        src_len / self.src_group_bytes() * self.dst_group_bytes()
    }

    /// [`Self::dst_len`] for a file or stream of `src_len` bytes, which may be larger than
    /// memory: `None` where the output's length would not fit a `u64`.
    pub fn dst_len_checked(&self, src_len: u64) -> Option<u64> {
        (src_len / self.src_group_bytes() as u64).checked_mul(self.dst_group_bytes() as u64)
    }

    /// Whether the source is f64, the one format the fast kernels do not widen to f32.
    fn source_is_f64(&self) -> bool {
        self.from == Format::Float(F64)
    }
}

/// Where the data came from or went: raw little-endian elements, or a container.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Container {
    /// Raw little-endian elements without a header: stdin, stdout, or a path without a
    /// known extension.
    Raw,
    /// A `.dds` texture with a DX10 header ([`dds`]); read and written.
    Dds,
    /// A `.ktx2` texture ([`ktx2`]); read and written.
    Ktx2,
    /// An OpenEXR `.exr` image: read ([`image_in`]) and written ([`exr_out`]).
    Exr,
    /// A Portable Float Map `.pfm` image ([`pfm`]); read and written.
    Pfm,
    /// A Radiance `.hdr` image ([`image_in`]); input only.
    Hdr,
}

/// Extensions of image files convert does not write: an output named so is refused
/// rather than filled with raw data (`--raw` writes raw data under any name).
const IMAGE_EXTENSIONS: [&str; 24] = [
    "png", "jpg", "jpeg", "tif", "tiff", "webp", "gif", "bmp", "tga", "psd", "avif", "jxl", "heic",
    "heif", "ppm", "pgm", "pnm", "pbm", "pam", "ico", "qoi", "jp2", "ktx", "hdr",
];

impl Container {
    /// The container a path names by its extension (any case); `Raw` for any other.
    pub fn of_path(path: &std::path::Path) -> Container {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("dds") => Container::Dds,
            Some("ktx2") => Container::Ktx2,
            Some("exr") => Container::Exr,
            Some("pfm") => Container::Pfm,
            Some("hdr") => Container::Hdr,
            _ => Container::Raw,
        }
    }

    /// The extension of `path` (lower case) when it names an image file convert does not
    /// write: `.hdr` (read only), `.png`, `.jpg`, `.tif`, `.webp`, `.ktx` (KTX 1), ...
    pub fn unwritable_image(path: &std::path::Path) -> Option<String> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        IMAGE_EXTENSIONS.contains(&ext.as_str()).then_some(ext)
    }

    /// Why this container cannot hold a texture of `shape` converted to `target`, naming
    /// the input's property (`holds` says what the input is: `DDS R16G16B16A16_FLOAT`), or
    /// `None` when it can. `.exr` and `.pfm` hold one 2D image; `.exr` f16 or f32 in 1, 3
    /// or 4 channels, `.pfm` f32 in 1 or 3; `.dds`, `.ktx2` and raw data hold any.
    pub fn cannot_hold(self, shape: &Shape, target: Texels, holds: &str) -> Option<String> {
        let what = self.name();
        let one_image = |s: &Shape| {
            if s.mips > 1 {
                Some(format!("{} mip levels", s.mips))
            } else if s.layers > 1 {
                Some(format!(
                    "{} {}",
                    s.layers,
                    if s.cubemap {
                        "cube faces"
                    } else {
                        "array layers"
                    }
                ))
            } else if s.depth > 1 {
                Some(format!("a depth of {} (a 3D texture)", s.depth))
            } else {
                None
            }
        };
        match self {
            Container::Exr | Container::Pfm => {
                if let Some(p) = one_image(shape) {
                    return Some(format!(
                        "the input ({holds}) has {p}, and a .{what} holds one 2D image"
                    ));
                }
                let f16_f32 = matches!(target.format, Format::Float(f) if f == F16 || f == F32);
                if self == Container::Exr && !f16_f32 {
                    return Some(format!(
                        "the target format {} gives {} texels, and an .exr holds f16 or f32 \
                         channels",
                        target.format.name(),
                        target.format.name().to_ascii_uppercase()
                    ));
                }
                if self == Container::Pfm && target.format != Format::Float(F32) {
                    return Some(format!(
                        "the target format is {}, and a .pfm holds f32 values only",
                        target.format.name()
                    ));
                }
                let counts: &[usize] = if self == Container::Exr {
                    &[1, 3, 4]
                } else {
                    &[1, 3]
                };
                if !counts.contains(&target.channels) {
                    return Some(format!(
                        "the input ({holds}) gives {} channel(s) per texel, and a .{what} holds {}",
                        target.channels,
                        if self == Container::Exr {
                            "1 (Y), 3 (RGB) or 4 (RGBA)"
                        } else {
                            "1 (grey) or 3 (RGB)"
                        },
                    ));
                }
                None
            }
            _ => None,
        }
    }

    /// Why this container cannot hold BC6H blocks of format `b`, or `None` when it can:
    /// `.exr` and `.pfm` hold values one by one (and `.hdr` is not written at all).
    pub fn cannot_hold_bc6h(self, b: crate::format::bc6h::Bc6h) -> Option<String> {
        let holds = match self {
            Container::Exr => "f16 or f32",
            Container::Pfm => "f32",
            _ => return None,
        };
        Some(format!(
            "{} gives BC6H blocks, and a .{} holds {holds} values one by one",
            b.name(),
            self.name()
        ))
    }

    /// The name in the summary's `input_container` and `output_container` fields (`raw`,
    /// `dds`, `ktx2`, `exr`, `pfm`, `hdr`), also the file extension it stands for.
    pub fn name(self) -> &'static str {
        match self {
            Container::Raw => "raw",
            Container::Dds => "dds",
            Container::Ktx2 => "ktx2",
            Container::Exr => "exr",
            Container::Pfm => "pfm",
            Container::Hdr => "hdr",
        }
    }
}

/// The result of one `convert` run, for the renderers.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// What was converted into what: formats, channels and rounding.
    pub conversion: Conversion,
    /// The input path as given (`-` for stdin).
    pub input: String,
    /// The output path as given (`-` for stdout).
    pub output: String,
    /// What the input was read as, chosen by its extension.
    pub input_container: Container,
    /// What the output was written as: raw data or a container.
    pub output_container: Container,
    /// Texel bytes read (container headers not counted).
    pub bytes_in: u64,
    /// Texel bytes written (container headers not counted).
    pub bytes_out: u64,
    /// The per-value counts.
    pub stats: Stats,
    /// Wall-clock seconds of the conversion, reading and writing included.
    pub seconds: f64,
    /// The BC6H format the input held (decoded to f16 RGBA before the conversion).
    pub input_bc6h: Option<crate::format::bc6h::Bc6h>,
    /// The BC6H format written (encoded from the conversion's f16 texels).
    pub output_bc6h: Option<crate::format::bc6h::Bc6h>,
}
