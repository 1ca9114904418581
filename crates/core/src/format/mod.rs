//! The storage formats: one descriptor for the binary floats, the packed words on top.

pub mod as_type;
pub mod bc6h;
pub mod choice;
pub mod decoded;
pub mod describe;
pub mod descriptor;
pub mod encode;
pub mod encoded;
pub mod packed;
pub mod pow2;
pub mod round;
pub mod text;

pub use as_type::FormatType;
pub use choice::{Choice, UnknownChoice};
pub use descriptor::{Arithmetic, Class, F10, F11, F16, F32, F64, Fields, FloatFormat};
pub use round::{Outcome, RoundOptions, Rounded, Rounding, round_f64, round_number};

/// Any format the tool can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// A float format (f64, f32, f16, f11, f10).
    Float(FloatFormat),
    /// DXGI_FORMAT_R11G11B10_FLOAT (§19.3.3).
    R11G11B10,
    /// DXGI_FORMAT_R9G9B9E5_SHAREDEXP (§19.3.2).
    Rgb9e5,
}

/// Every accepted spelling (lower case), with the format it names. The DXGI_FORMAT_
/// prefix is stripped before lookup, so the DXGI names work too.
const NAMES: &[(&str, Format)] = &[
    ("f64", Format::Float(F64)),
    ("double", Format::Float(F64)),
    ("float64", Format::Float(F64)),
    ("f32", Format::Float(F32)),
    ("float", Format::Float(F32)),
    ("float32", Format::Float(F32)),
    ("r32_float", Format::Float(F32)),
    ("f16", Format::Float(F16)),
    ("half", Format::Float(F16)),
    ("float16", Format::Float(F16)),
    ("r16_float", Format::Float(F16)),
    ("f11", Format::Float(F11)),
    ("float11", Format::Float(F11)),
    ("f10", Format::Float(F10)),
    ("float10", Format::Float(F10)),
    ("r11g11b10", Format::R11G11B10),
    ("r11g11b10_float", Format::R11G11B10),
    ("rgb9e5", Format::Rgb9e5),
    ("r9g9b9e5", Format::Rgb9e5),
    ("r9g9b9e5_sharedexp", Format::Rgb9e5),
];

/// A format name that names no format.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown format '{0}' (expected one of f64, f32, f16, f11, f10, r11g11b10, rgb9e5)")]
pub struct UnknownFormat(pub String);

impl std::str::FromStr for Format {
    type Err = UnknownFormat;

    fn from_str(s: &str) -> Result<Format, UnknownFormat> {
        let lower = s.trim().to_ascii_lowercase();
        let key = lower.strip_prefix("dxgi_format_").unwrap_or(&lower);
        NAMES
            .iter()
            .find(|(name, _)| *name == key)
            .map(|(_, f)| *f)
            .ok_or_else(|| UnknownFormat(s.to_string()))
    }
}

impl Format {
    /// The canonical short name (`f16`, `r11g11b10`).
    pub fn name(&self) -> &'static str {
        match self {
            Format::Float(f) => f.name,
            Format::R11G11B10 => "r11g11b10",
            Format::Rgb9e5 => "rgb9e5",
        }
    }

    /// Width of one element in bits.
    pub fn width(&self) -> u32 {
        match self {
            Format::Float(f) => f.width(),
            Format::R11G11B10 | Format::Rgb9e5 => 32,
        }
    }

    /// Hex digits of the script form of a pattern: `ceil(width / 4)`.
    pub fn hex_digits(&self) -> usize {
        self.width().div_ceil(4) as usize
    }

    /// Bytes one element takes in a raw little-endian buffer or stream: f11 and f10 travel
    /// one per u16, in its low bits; the packed words take a u32.
    pub fn element_bytes(&self) -> usize {
        (self.width() as usize).next_power_of_two().max(8) / 8
    }
}

/// `0x` and exactly `ceil(width / 4)` lower-case hex digits: the script form of a pattern.
pub fn hex_bits(bits: u64, width: u32) -> String {
    HexBits { bits, width }.to_string()
}

/// [`hex_bits`] as a `Display` value, to format into any sink without allocating (the
/// batch hot paths write it straight into their output buffers).
#[derive(Clone, Copy, Debug)]
pub struct HexBits {
    /// The pattern.
    pub bits: u64,
    /// The format's width in bits, which fixes the number of hex digits.
    pub width: u32,
}

impl HexBits {
    /// Writes `0x` and the digits into `buf` and returns them: the hot path of `encode
    /// --plain` and `op --plain`, without the formatting machinery.
    pub fn to_bytes<'b>(&self, buf: &'b mut [u8; 18]) -> &'b [u8] {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let n = self.width.div_ceil(4) as usize;
        buf[0] = b'0';
        buf[1] = b'x';
        for (i, d) in buf[2..2 + n].iter_mut().enumerate() {
            let shift = 4 * (n - 1 - i);
            *d = DIGITS[(self.bits >> shift & 0xf) as usize];
        }
        &buf[..2 + n]
    }

    /// Appends `0x` and the digits to `out` (see [`HexBits::to_bytes`]).
    pub fn push_to(&self, out: &mut String) {
        let mut buf = [0u8; 18];
        out.push_str(std::str::from_utf8(self.to_bytes(&mut buf)).expect("ASCII digits"));
    }
}

impl std::fmt::Display for HexBits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "0x{:0w$x}",
            self.bits,
            w = self.width.div_ceil(4) as usize
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pushed_hex_is_the_displayed_hex() {
        for width in [10, 11, 14, 16, 32, 64] {
            let mask = if width == 64 {
                u64::MAX
            } else {
                (1 << width) - 1
            };
            for bits in [0, 1, 0x3c00, 0x7fff_ffff, 0xdead_beef_0123_4567, u64::MAX] {
                let h = HexBits {
                    bits: bits & mask,
                    width,
                };
                let mut s = String::new();
                h.push_to(&mut s);
                assert_eq!(s, h.to_string(), "{width} {bits:#x}");
            }
        }
    }

    #[test]
    fn names_are_case_insensitive_and_take_dxgi_spellings() {
        assert_eq!("HALF".parse::<Format>(), Ok(Format::Float(F16)));
        assert_eq!(
            "DXGI_FORMAT_R11G11B10_FLOAT".parse::<Format>(),
            Ok(Format::R11G11B10)
        );
        assert_eq!(
            "dxgi_format_r9g9b9e5_sharedexp".parse::<Format>(),
            Ok(Format::Rgb9e5)
        );
        assert!("f8".parse::<Format>().is_err());
    }

    #[test]
    fn hex_bits_pads_to_the_width() {
        assert_eq!(hex_bits(0x7c0, 11), "0x7c0");
        assert_eq!(hex_bits(0x3c00, 16), "0x3c00");
        assert_eq!(hex_bits(1, 32), "0x00000001");
    }
}
