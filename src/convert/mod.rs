//! Bulk conversion of binary data between the formats: the per-element core
//! ([`element`]), fast slice kernels checked against it ([`kernels`]), streaming of raw
//! data ([`raw`]), containers ([`dds`], [`image_in`]) and the counts ([`summary`]).

pub mod dds;
pub mod element;
pub mod image_in;
pub mod kernels;
pub mod output;
pub mod raw;
pub mod summary;

pub use summary::Stats;

use crate::format::{F64, Format, RoundOptions};

/// One bulk conversion: what each group of source bytes becomes.
///
/// Between two binary floats a group is one element. When one side is a packed word
/// (r11g11b10, rgb9e5), a group is one texel: the word on that side and `channels` (3 or 4)
/// floats on the other; a fourth channel is alpha, dropped when packing and written as 1.0
/// when unpacking.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Conversion {
    pub from: Format,
    pub to: Format,
    pub channels: usize,
    pub opts: RoundOptions,
}

/// Why a conversion cannot be set up or carried out. `Io` carries the operating system's
/// message; the others name the numbers involved so the message can stand alone.
#[derive(Debug, thiserror::Error)]
pub enum ConvertError {
    #[error("--channels must be 3 or 4 when converting to or from {0}, got {1}")]
    Channels(&'static str, usize),
    #[error("input size {size} bytes is not a multiple of the {group}-byte {what}")]
    Truncated {
        size: u64,
        group: usize,
        what: String,
    },
    #[error("refusing to write over the input file {0}")]
    OutputIsInput(String),
    #[error("{0}")]
    Container(String),
    /// The cause is the error's source, so a `{:#}` chain names it once.
    #[error("{context}")]
    Io {
        context: String,
        source: std::io::Error,
    },
}

impl ConvertError {
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

    /// Whether the source is f64, the one format the fast kernels do not widen to f32.
    fn source_is_f64(&self) -> bool {
        self.from == Format::Float(F64)
    }
}

/// Where the data came from or went: raw little-endian elements, or a container.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Container {
    Raw,
    Dds,
    Exr,
    Hdr,
}

impl Container {
    pub fn name(self) -> &'static str {
        match self {
            Container::Raw => "raw",
            Container::Dds => "dds",
            Container::Exr => "exr",
            Container::Hdr => "hdr",
        }
    }
}

/// The result of one `convert` run, for the renderers.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    pub conversion: Conversion,
    /// Input and output paths as given (`-` for stdin and stdout).
    pub input: String,
    pub output: String,
    pub input_container: Container,
    pub output_container: Container,
    /// Texel data read and written (container headers not counted).
    pub bytes_in: u64,
    pub bytes_out: u64,
    pub stats: Stats,
    pub seconds: f64,
}
