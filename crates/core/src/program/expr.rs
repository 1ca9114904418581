//! HLSL-style expressions expanded into the instruction sequences compilers emit.

use super::ProgramError;

/// One way a compiler may emit an expression: assembly text and who emits it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Alternative {
    /// The compilers that emit this sequence, for output (`fxc`, `dxc`).
    pub compilers: String,
    /// The sequence as shader assembly, its result in `o0`.
    pub asm: String,
}

/// An expression's alternatives and the width of its result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expansion {
    /// Every sequence accepted (the answer is their union).
    pub alternatives: Vec<Alternative>,
    /// Components of the result (1 to 4), written to `o0`.
    pub width: usize,
}

/// Expands `expr`; `inputs` names the variables it may use, in order: variable `k` is
/// register `v{k}`, with the given width.
pub fn expand(expr: &str, inputs: &[(&str, usize)]) -> Result<Expansion, ProgramError> {
    let _ = (expr, inputs);
    Err(ProgramError::Expression("not yet".into()))
}
