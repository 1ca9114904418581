//! `encode`: values to bits, with explicit rounding.

use std::io::Write;

use super::Exit;
use super::inputs::{BadInput, Origin, for_each_stdin_line, no_input};
use crate::exact::Number;
use crate::format::decoded::Detail;
use crate::format::encode::{Encoding, encode};
use crate::format::encoded::Encoded;
use crate::format::{Format, RoundOptions};
use crate::input::{Constants, encode_fast, parse_value, split_word, values_per_word};
use crate::render::Renderer;

/// What `encode` was asked.
pub struct EncodeRequest {
    /// The target format.
    pub format: Format,
    /// Rounding mode and saturation.
    pub opts: RoundOptions,
    /// Values as typed; stdin when empty.
    pub inputs: Vec<String>,
}

/// Reads the values of one word; `origin(i)` names where value `i` came from.
fn read(
    req: &EncodeRequest,
    origin: impl Fn(usize) -> Origin,
    texts: &[&str],
) -> Result<Encoding, BadInput> {
    let values = texts
        .iter()
        .enumerate()
        .map(|(i, t)| {
            parse_value(t, Constants::for_channel(&req.format, i))
                .map_err(|e| BadInput::new(origin(i), t, e))
        })
        .collect::<Result<Vec<Number>, _>>()?;
    Ok(encode(
        req.format,
        texts.iter().map(|t| t.to_string()).collect(),
        values,
        req.opts,
    ))
}

/// One stdin line: a value, or three for the packed formats (space or comma separated).
fn encode_line(
    req: &EncodeRequest,
    detail: Detail,
    origin: Origin,
    line: &str,
    r: &mut dyn Renderer,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    // The answer alone needs no exact arithmetic when the f64 reading decides the bits.
    if let (Detail::Answer, Format::Float(f)) = (detail, &req.format)
        && let Some(bits) = encode_fast(f, line, req.opts)
    {
        r.encode(out, &Encoded::answer(req.format, req.opts, bits))?;
        return Ok(());
    }
    let texts = split_word(line, &req.format).map_err(|e| BadInput::new(origin, line, e))?;
    let e = read(req, |_| origin, &texts)?;
    r.encode(out, &Encoded::new(&e, detail))?;
    Ok(())
}

/// Encodes every value (three per word for the packed formats) and renders each.
pub fn run(req: &EncodeRequest, r: &mut dyn Renderer, out: &mut dyn Write) -> anyhow::Result<Exit> {
    if req.inputs.is_empty() {
        let detail = r.detail();
        let n = for_each_stdin_line(&mut *out, "values", |out, origin, line| {
            encode_line(req, detail, origin, line, r, out)
        })?;
        if n == 0 {
            return Err(no_input());
        }
        return Ok(Exit::Success);
    }
    let want = values_per_word(&req.format);
    if !req.inputs.len().is_multiple_of(want) {
        anyhow::bail!(
            "{} takes {want} values (R G B) per word; {} given",
            req.format.name(),
            req.inputs.len()
        );
    }
    // Read every argument before writing anything, so a bad one leaves no output.
    let encodings = req
        .inputs
        .chunks(want)
        .enumerate()
        .map(|(i, chunk)| {
            let texts: Vec<&str> = chunk.iter().map(String::as_str).collect();
            read(req, |j| Origin::Argument(i * want + j + 1), &texts)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let detail = r.detail();
    for e in &encodings {
        r.encode(out, &Encoded::new(e, detail))?;
    }
    Ok(Exit::Success)
}
