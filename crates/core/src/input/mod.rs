//! One home for text: every value, bit pattern, operand and pair a user types is read here,
//! and the cores (`format`, `ulp`, `convert`) take what these functions return. Each reader
//! answers with a value or an [`InputError`] that says precisely what is wrong.
//!
//! - [`value`]: decimals and hex-floats read exactly, named constants, the values of a word;
//! - [`bits`]: bit patterns in hexadecimal, binary or decimal;
//! - [`operands`]: an instruction's operand or claimed result (full-width `0x` bits, a
//!   value, an integer, `true`/`false`);
//! - [`line`](mod@line): an `op` instruction with its operands and claimed result, from a
//!   batch line or the command line, as a [`crate::d3d::OpRequest`];
//! - [`pairs`]: the `A B` operands of `ulp-diff` (words or `R,G,B` for the packed formats);
//! - [`words`]: the words of a line, split the same way for every command;
//! - [`f64_shortcut`]: the `f64` shortcut `encode --plain` takes when it provably decides the bits;
//! - [`short_decimal`]: the quick `f64` reading of a short decimal that [`f64_shortcut`] tries first.

pub mod bits;
pub mod f64_shortcut;
pub mod line;
pub mod operands;
pub mod pairs;
pub mod short_decimal;
pub mod value;
pub mod words;

pub use bits::parse_bits;
pub use f64_shortcut::encode_fast;
pub use line::{LineError, OpLine, Typed, parse_op_line, parse_op_words};
pub use operands::{Operand, parse_operand, read_operand, read_result};
pub use pairs::{resolve_operand, split_pair};
pub use value::{
    Constants, EXPONENT_LIMIT, SIGNIFICANT_DIGITS, parse_value, split_word, values_per_word,
};

/// Why a piece of text is not a value, a pattern, an operand or a pair.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    /// Nothing but white space.
    #[error("empty input")]
    Empty,
    /// Not an integer in any of the radixes a pattern may be written in.
    #[error("not a bit pattern (expected 0x..., 0b... or an unsigned decimal integer)")]
    NotBits,
    /// A pattern with bits set above the format's width.
    #[error("pattern is wider than {format}'s {width} bits")]
    TooWide {
        /// The format's name.
        format: &'static str,
        /// Its width in bits.
        width: u32,
    },
    /// Neither a decimal, a hex-float, a special value nor a known name.
    #[error(
        "not a number (expected a decimal like 0.1 or 1e-40, a hex-float like 0x1.8p+3, inf, nan, or max, min-normal, min-subnormal, epsilon)"
    )]
    NotANumber,
    /// `0x` digits without a `p` exponent: a pattern typed where a value was expected.
    #[error("a hex-float needs its p exponent (0x1.8p+3); to read bits, use decode")]
    HexFloatWithoutExponent,
    /// `0x` and hex digits of another width than the operand's format: a pattern of
    /// another format (`0x3c00`, an f16, where an f32 is read).
    #[error(
        "{digits} hex digits are a {width}-bit pattern, not an {format} one ({format} bits take \
         {expected} hex digits){hint}"
    )]
    PatternOfAnotherWidth {
        /// Hex digits given.
        digits: usize,
        /// Their width in bits.
        width: usize,
        /// The operand's format.
        format: &'static str,
        /// Hex digits its patterns take.
        expected: usize,
        /// What to do instead, with a leading separator, or empty.
        hint: &'static str,
    },
    /// A value whose magnitude lies beyond 10^±[`EXPONENT_LIMIT`].
    #[error(
        "exponent out of range (the value must lie between 1e-{EXPONENT_LIMIT} and 1e{EXPONENT_LIMIT})"
    )]
    ExponentOutOfRange,
    /// A named constant the format does not have (RGB9E5 has no `epsilon`).
    #[error("{format} has no '{name}'")]
    NoSuchConstant {
        /// The format's name.
        format: &'static str,
        /// The name as typed (lower case).
        name: String,
    },
    /// A packed-word operand that is neither a full-width word nor three values.
    #[error("a {format} operand is a word (0x and 8 hex digits) or three values R,G,B")]
    NotAPackedOperand {
        /// The packed format's name.
        format: &'static str,
    },
    /// A `ulp-diff` line without exactly two operands.
    #[error("expected two operands A B, found {found}")]
    NotAPair {
        /// How many operands the line holds.
        found: usize,
    },
    /// An integer operand (itof, utof) that does not read as one.
    #[error("not {} integer", with_article(kind))]
    NotAnInteger {
        /// `i32` or `u32`.
        kind: &'static str,
    },
    /// A comparison's claimed result that is not a boolean.
    #[error("a comparison gives true or false (0xffffffff or 0x00000000)")]
    NotABoolean,
    /// More claimed values than the instruction has outputs.
    #[error("expected at most {expected} values")]
    TooManyValues {
        /// The instruction's outputs.
        expected: usize,
    },
    /// An instruction operand that does not read.
    #[error("operand {index} '{text}': {source}")]
    Operand {
        /// The operand, counted from 1.
        index: usize,
        /// The component as typed.
        text: String,
        /// What is wrong with it.
        source: Box<InputError>,
    },
    /// A claimed result that does not read.
    #[error("result '{text}': {source}")]
    Result {
        /// The claimed value as typed.
        text: String,
        /// What is wrong with it.
        source: Box<InputError>,
    },
    /// An `encode` line without the values of exactly one word.
    #[error("expected {want} value{} for {format}, found {found}", if *want == 1 { "" } else { "s" })]
    WrongValueCount {
        /// The format's name.
        format: &'static str,
        /// Values per word: 1, or 3 for the packed formats.
        want: usize,
        /// Values the line holds.
        found: usize,
    },
}

/// "an i32", "a u32": the article as the name is read aloud.
fn with_article(kind: &str) -> String {
    let article = if kind.starts_with(['a', 'e', 'i', 'o']) {
        "an"
    } else {
        "a"
    };
    format!("{article} {kind}")
}
