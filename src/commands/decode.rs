//! `decode`: bit patterns to fields, class and exact value.

use std::io::Write;

use super::Exit;
use super::inputs::{BadInput, Origin, for_each_stdin_line, no_input};
use crate::format::Format;
use crate::format::decoded::{Decoded, Detail};
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
    parse_bits(text, format.name(), format.width()).map_err(|e| {
        // A value typed where a pattern was expected (not an integer, whose error is its
        // width): point at encode.
        if !is_decimal(text) && is_value(text) {
            BadInput::new(
                origin,
                text,
                "a value, not a bit pattern: did you mean `d3dfloat encode`?",
            )
        } else {
            BadInput::new(origin, text, e)
        }
    })
}

/// Whether `text` reads as a value (a decimal with a point, an exponent or a sign, a
/// hex-float, inf or nan) rather than a pattern.
fn is_value(text: &str) -> bool {
    crate::input::parse_value(text, crate::input::Constants::Float(&crate::format::F64)).is_ok()
}

/// Whether a pattern was typed as a decimal integer (`1984`), not `0x` or `0b` digits.
fn is_decimal(text: &str) -> bool {
    let t = text.trim();
    !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit() || b == b'_')
}

/// Decodes every pattern (arguments first, all checked before anything is written; or
/// stdin, streamed) and renders each.
pub fn run(req: &DecodeRequest, r: &mut dyn Renderer, out: &mut dyn Write) -> anyhow::Result<Exit> {
    let detail = r.detail();
    // One result, refilled per input: stdin batches are a hot path.
    let mut decoded = Decoded::empty(req.format);
    if req.inputs.is_empty() {
        let n = for_each_stdin_line(&mut *out, "bit patterns", |out, origin, text| {
            let bits = read(&req.format, origin, text)?;
            decoded.fill(bits, detail);
            // Only the full views show it; the `--plain` batch path skips the scan.
            decoded.typed_decimal = detail == Detail::Full && is_decimal(text);
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
            .map(|(i, t)| {
                Ok((
                    read(&req.format, Origin::Argument(i + 1), t)?,
                    is_decimal(t),
                ))
            })
            .collect::<Result<Vec<_>, BadInput>>()?;
        for (bits, typed_decimal) in patterns {
            decoded.fill(bits, detail);
            decoded.typed_decimal = typed_decimal;
            r.decode(out, &decoded)?;
        }
    }
    Ok(Exit::Success)
}

/// What `decode --fmt bc6h_uf16|bc6h_sf16` was asked: blocks, or stdin when `inputs` is
/// empty.
pub struct DecodeBlocksRequest {
    /// Unsigned or signed BC6H.
    pub format: crate::format::bc6h::Bc6h,
    /// Blocks as typed; stdin lines when empty.
    pub inputs: Vec<String>,
}

/// A block as typed: `0x` and 1 to 32 hex digits (underscores between digits allowed),
/// the 16 bytes as one little-endian 128-bit number.
fn read_block(origin: Origin, text: &str) -> Result<[u8; 16], BadInput> {
    let bad = |why: &str| BadInput::new(origin, text, why);
    let t = text.trim();
    let digits = t
        .strip_prefix("0x")
        .or_else(|| t.strip_prefix("0X"))
        .ok_or_else(|| {
            bad("a BC6H block is 0x and up to 32 hex digits (its 16 bytes, little-endian)")
        })?;
    let clean: String = digits.chars().filter(|&c| c != '_').collect();
    if clean.is_empty() || clean.len() > 32 || digits.starts_with('_') || digits.ends_with('_') {
        return Err(bad(
            "a BC6H block is 0x and 1 to 32 hex digits (128 bits, its 16 bytes little-endian)",
        ));
    }
    u128::from_str_radix(&clean, 16)
        .map(u128::to_le_bytes)
        .map_err(|_| bad("not a hex number"))
}

/// Decodes every block (arguments first, all checked before anything is written; or
/// stdin, streamed) and renders each.
pub fn run_blocks(
    req: &DecodeBlocksRequest,
    r: &mut dyn Renderer,
    out: &mut dyn Write,
) -> anyhow::Result<Exit> {
    let signed = req.format.signed();
    if req.inputs.is_empty() {
        let n = for_each_stdin_line(&mut *out, "BC6H blocks", |out, origin, text| {
            let block = read_block(origin, text)?;
            r.bc6h(out, &crate::format::bc6h::analyse(&block, signed))?;
            Ok(())
        })?;
        if n == 0 {
            return Err(no_input());
        }
    } else {
        let blocks = req
            .inputs
            .iter()
            .enumerate()
            .map(|(i, t)| read_block(Origin::Argument(i + 1), t))
            .collect::<Result<Vec<_>, BadInput>>()?;
        for block in blocks {
            r.bc6h(out, &crate::format::bc6h::analyse(&block, signed))?;
        }
    }
    Ok(Exit::Success)
}
