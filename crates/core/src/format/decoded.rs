//! The result of decoding one pattern: everything any output style shows about it, worked
//! out once here so that renderers only lay it out.

use super::describe::{Note, d3d_notes, significand_binary, unbiased_exponent};
use super::encode::Channel;
use super::packed::{R11G11B10_CHANNELS, r11g11b10_split, rgb9e5_split};
use super::{Class, Fields, FloatFormat, Format, text};
use crate::exact::Ratio;

/// How much of a result a renderer shows. `--plain` prints only the answer, and its stdin
/// batches are a hot path, so the rest is not worked out for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detail {
    /// The answer alone: for a decode the shortest decimals, for an encode the bits.
    Answer,
    /// Every field.
    Full,
}

/// A neighbouring pattern (one step below or above) and its shortest decimal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Neighbour {
    /// The neighbour's pattern.
    pub bits: u64,
    /// Its shortest decimal.
    pub shortest: String,
}

/// The spacing of values at a pattern: `2^log2`, and its exact decimal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ulp {
    /// The exponent of the spacing (the pattern's significand scale).
    pub log2: i32,
    /// Every digit of `2^log2`.
    pub decimal: Option<String>,
}

/// Everything decode shows about a pattern of a binary float format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodedFloat {
    /// The pattern's format.
    pub format: FloatFormat,
    /// The pattern.
    pub bits: u64,
    /// The sign, biased exponent and fraction fields.
    pub fields: Fields,
    /// The exponent without its bias (subnormals: the subnormal scale); `None` for
    /// infinity and NaN.
    pub unbiased_exponent: Option<i32>,
    /// The significand in binary (`1.f` or `0.f`); `None` for infinity and NaN.
    pub significand_binary: Option<String>,
    /// Zero, subnormal, normal, infinity or NaN.
    pub class: Class,
    /// For a NaN, whether it is quiet (where the format has a quiet bit).
    pub quiet: Option<bool>,
    /// The exact decimal value (`inf`, `nan` for the specials).
    pub exact: String,
    /// The shortest decimal that reads back to this pattern.
    pub shortest: String,
    /// The C99 hex-float form.
    pub hex_float: String,
    /// The next pattern toward -infinity, if any.
    pub previous: Option<Neighbour>,
    /// The next pattern toward +infinity, if any.
    pub next: Option<Neighbour>,
    /// The value spacing here; `None` for infinity and NaN.
    pub ulp: Option<Ulp>,
    /// How Direct3D treats this pattern, with the spec sections.
    pub notes: Vec<Note>,
}

impl DecodedFloat {
    /// Works out every field of `bits` in `format`.
    pub fn new(format: &FloatFormat, bits: u64) -> DecodedFloat {
        let f = format;
        let (prev, next) = f.neighbours(bits);
        let neighbour = |b: Option<u64>| {
            b.map(|bits| Neighbour {
                bits,
                shortest: text::shortest_decimal(f, bits),
            })
        };
        DecodedFloat {
            format: *f,
            bits,
            fields: f.fields(bits),
            unbiased_exponent: unbiased_exponent(f, bits),
            significand_binary: significand_binary(f, bits),
            class: f.class(bits),
            quiet: f.is_quiet_nan(bits),
            exact: text::exact_decimal(f, bits),
            shortest: text::shortest_decimal(f, bits),
            hex_float: text::hex_float(f, bits),
            previous: neighbour(prev),
            next: neighbour(next),
            ulp: f.ulp(bits).map(|u| Ulp {
                log2: f.significand(bits).1,
                decimal: u.decimal_expansion(),
            }),
            notes: d3d_notes(f, bits),
        }
    }
}

/// Everything decode shows about one channel of an RGB9E5 word.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodedRgb9e5Channel {
    /// The 9-bit mantissa (no implied leading 1).
    pub mantissa: u32,
    /// The word's shared exponent field (bias 15).
    pub exponent: u32,
    /// `zero` or `normal`: the format has nothing else.
    pub class: &'static str,
    /// The exact value, `mantissa / 512 * 2^(exponent - 15)`.
    pub value: Ratio,
    /// The shortest f32 decimal of the value (which it has exactly).
    pub shortest: String,
}

/// One channel of a decoded pattern.
// At most three per result, reused across a batch: boxing the float variant would buy
// nothing but an allocation per channel.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DecodedChannel {
    /// A float pattern: the whole input, or an R11G11B10 channel.
    Float(DecodedFloat),
    /// An RGB9E5 channel.
    Rgb9e5(DecodedRgb9e5Channel),
}

impl DecodedChannel {
    /// The shortest decimal of the channel's value.
    pub fn shortest(&self) -> &str {
        match self {
            DecodedChannel::Float(f) => &f.shortest,
            DecodedChannel::Rgb9e5(c) => &c.shortest,
        }
    }

    /// The channel's class name (`normal`, `zero`, ...).
    pub fn class(&self) -> &'static str {
        match self {
            DecodedChannel::Float(f) => f.class.as_str(),
            DecodedChannel::Rgb9e5(c) => c.class,
        }
    }

    /// The channel's exact decimal value.
    pub fn exact(&self) -> String {
        match self {
            DecodedChannel::Float(f) => f.exact.clone(),
            DecodedChannel::Rgb9e5(c) => c.value.decimal_expansion().unwrap_or_default(),
        }
    }
}

/// The result of decoding one pattern: a float pattern, or a packed word and its channels.
///
/// One value is reused across the lines of a stdin batch, so the `--plain` hot path
/// allocates nothing per line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded {
    /// The format decoded.
    pub format: Format,
    /// The pattern or packed word.
    pub bits: u64,
    /// The answer `--plain` prints: the shortest decimal, or for a packed word the
    /// channels' shortest decimals separated by spaces. Always filled.
    pub shortest: String,
    /// The float pattern itself, or R, G and B of a packed word. Empty at
    /// [`Detail::Answer`].
    pub channels: Vec<DecodedChannel>,
    /// The shared exponent of an RGB9E5 word.
    pub shared_exponent: Option<u32>,
    /// Whether the pattern was typed as a decimal integer (`1`): the human view says
    /// that `decode` read it as bits, not as a value.
    pub typed_decimal: bool,
}

impl Decoded {
    /// An empty result for `format`, to be filled by [`Decoded::fill`].
    pub fn empty(format: Format) -> Decoded {
        Decoded {
            format,
            bits: 0,
            shortest: String::new(),
            channels: Vec::new(),
            shared_exponent: None,
            typed_decimal: false,
        }
    }

    /// Decodes `bits` of `format` with the given detail.
    pub fn new(format: Format, bits: u64, detail: Detail) -> Decoded {
        let mut d = Decoded::empty(format);
        d.fill(bits, detail);
        d
    }

    /// Decodes `bits` (of this result's format) into this result, reusing its buffers.
    pub fn fill(&mut self, bits: u64, detail: Detail) {
        self.bits = bits;
        self.shortest.clear();
        self.channels.clear();
        self.shared_exponent = None;
        match (self.format, detail) {
            (Format::Float(f), Detail::Answer) => {
                text::write_shortest(&mut self.shortest, &f, bits)
            }
            (Format::Float(f), Detail::Full) => {
                let d = DecodedFloat::new(&f, bits);
                self.shortest.push_str(&d.shortest);
                self.channels.push(DecodedChannel::Float(d));
            }
            (Format::R11G11B10, _) => {
                let parts = r11g11b10_split(bits as u32);
                for (i, (&b, (f, _))) in parts.iter().zip(R11G11B10_CHANNELS).enumerate() {
                    if i > 0 {
                        self.shortest.push(' ');
                    }
                    if detail == Detail::Full {
                        let d = DecodedFloat::new(&f, b);
                        self.shortest.push_str(&d.shortest);
                        self.channels.push(DecodedChannel::Float(d));
                    } else {
                        text::write_shortest(&mut self.shortest, &f, b);
                    }
                }
            }
            (Format::Rgb9e5, _) => {
                let parts = rgb9e5_split(bits as u32);
                self.shared_exponent = Some(parts[0].exponent);
                for (i, c) in parts.into_iter().enumerate() {
                    let shortest = Channel::Rgb9e5(c).shortest();
                    if i > 0 {
                        self.shortest.push(' ');
                    }
                    self.shortest.push_str(&shortest);
                    if detail == Detail::Full {
                        self.channels
                            .push(DecodedChannel::Rgb9e5(DecodedRgb9e5Channel {
                                mantissa: c.mantissa,
                                exponent: c.exponent,
                                class: if c.mantissa == 0 { "zero" } else { "normal" },
                                value: c.value(),
                                shortest,
                            }));
                    }
                }
            }
        }
    }
}
