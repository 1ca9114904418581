//! Whole shader expressions and instruction sequences: which results a conforming
//! implementation may return for each output component of a straight-line program, when
//! every instruction of it follows its own D3D rule (§3.1 and the instruction's section).
//!
//! A [`Program`] comes from shader assembly ([`parse_asm`]) or from an HLSL-style
//! expression expanded into the sequences compilers emit ([`expr::expand`]). The answer is
//! an interval per output component, propagated through each instruction's allowed set
//! (see `docs/rules.md`, "Sequences").

mod analyze;
mod asm;
mod ast;
mod buffers;
pub mod expr;
mod fast;
mod interval;
mod real;
mod span;
mod walk;

pub use analyze::{
    Chooser, ComponentAnswer, Inputs, OutputSel, SET_BUDGET, SET_STEP_BUDGET, analyze, chain,
    exact_values, reachable, select_output, spans, step_choices,
};
pub use buffers::{ProgramJudge, ProgramVerdict, ProgramViolation};
pub use interval::PointEngine;
pub use walk::{Bits, Lane, Registers, Step, StepFn, run};

pub use asm::{
    MAX_INSTRUCTIONS, MAX_TEXT, SUPPORTED_NAMES, component_name, parse_asm, parse_output, supported,
};
pub use ast::{COMPONENTS, Dest, Instr, Opcode, Program, Reg, RegFile, Source, Src};
pub use span::Span;

/// Whether programs run in `format`'s arithmetic: f32 and f16, whose instructions have
/// the rules a program is bounded by; the command line and the Python package both ask.
pub fn runs_in(format: &crate::format::FloatFormat) -> bool {
    use crate::format::Arithmetic;
    matches!(format.arithmetic, Arithmetic::Float32 | Arithmetic::Float16)
}

/// What is wrong with a program, its inputs or its outputs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProgramError {
    /// No instruction.
    #[error("the program holds no instruction")]
    Empty,
    /// Text or a count beyond the limit.
    #[error("the {what} is too long (at most {limit})")]
    TooLong {
        /// What is too long.
        what: &'static str,
        /// The limit.
        limit: usize,
    },
    /// An instruction that does not parse.
    #[error("instruction '{text}': {why}")]
    Instruction {
        /// The instruction as written.
        text: String,
        /// What is wrong.
        why: String,
    },
    /// An expression that does not parse or expand.
    #[error("expression: {0}")]
    Expression(String),
    /// An input that does not parse or is missing.
    #[error("input: {0}")]
    Input(String),
    /// An output that names nothing written.
    #[error("output: {0}")]
    Output(String),
}
