//! Why slices cannot be judged.

use crate::d3d::OpError;

/// Why slices cannot be judged.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum JudgeError {
    /// The instruction takes another number of source operands.
    #[error("{op} takes {expected} operand slice{}, got {got}", if *.expected == 1 { "" } else { "s" })]
    OperandCount {
        /// The instruction's name.
        op: &'static str,
        /// Slices it takes.
        expected: usize,
        /// Slices given.
        got: usize,
    },
    /// A slice of the wrong element type.
    #[error("{what} holds {domain} patterns, {expected} each; got {got} elements")]
    Elem {
        /// `operand 2`, `results`.
        what: String,
        /// The domain it holds.
        domain: &'static str,
        /// The element type it needs.
        expected: &'static str,
        /// The element type given.
        got: &'static str,
    },
    /// Slices whose lengths do not describe the same number of lines.
    #[error("{what} has {got} elements where {lines} lines need {expected}")]
    Length {
        /// `operand 2`, `results`.
        what: String,
        /// Elements given.
        got: usize,
        /// Lines the first operand describes.
        lines: usize,
        /// Elements those lines need here.
        expected: usize,
    },
    /// The exact engine refused an element (a pattern wider than its domain cannot come from
    /// a slice of the right type, so this is an internal error).
    #[error("line {index}: {source}")]
    Engine {
        /// The element's index.
        index: u64,
        /// The engine's error.
        source: OpError,
    },
}
