//! `decode`: bit patterns to fields, class and exact value.

use std::io::Write;

use super::Verdict;
use super::inputs::{BadInput, Origin, for_each_stdin_line, no_input};
use crate::format::Format;
use crate::format::decoded::Decoded;
use crate::input::parse_bits;
use crate::render::Renderer;

/// What `decode` was asked: patterns of one format, or stdin when `inputs` is empty.
pub struct DecodeRequest {
    /// The format of the patterns.
    pub format: Format,
    /// Patterns as typed; stdin lines when empty.
    pub inputs: Vec<String>,
}

fn read(format: &Format, origin: Origin, text: &str) -> Result<u64, BadInput> {
    parse_bits(text, format.name(), format.width()).map_err(|e| BadInput::new(origin, text, e))
}

/// Decodes every pattern (arguments first, all checked before anything is written; or
/// stdin, streamed) and renders each.
pub fn run(
    req: &DecodeRequest,
    r: &mut dyn Renderer,
    out: &mut dyn Write,
) -> anyhow::Result<Verdict> {
    let detail = r.detail();
    // One result, refilled per input: stdin batches are a hot path.
    let mut decoded = Decoded::empty(req.format);
    if req.inputs.is_empty() {
        let n = for_each_stdin_line(&mut *out, "bit patterns", |out, origin, text| {
            let bits = read(&req.format, origin, text)?;
            decoded.fill(bits, detail);
            r.decode(out, &decoded)?;
            Ok(())
        })?;
        if n == 0 {
            return Err(no_input());
        }
    } else {
        // Read every argument before writing anything, so a bad one leaves no output.
        let patterns = req
            .inputs
            .iter()
            .enumerate()
            .map(|(i, t)| read(&req.format, Origin::Argument(i + 1), t))
            .collect::<Result<Vec<_>, _>>()?;
        for bits in patterns {
            decoded.fill(bits, detail);
            r.decode(out, &decoded)?;
        }
    }
    Ok(Verdict::Success)
}
