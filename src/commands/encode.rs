//! `encode`: values to bits, with explicit rounding.

use std::io::Write;

use super::Verdict;
use super::inputs::{BadInput, Origin, for_each_stdin_line, no_input};
use crate::exact::Number;
use crate::format::encode::{Encoding, encode};
use crate::format::{Format, HexBits, RoundOptions};
use crate::input::{Constants, encode_fast, parse_value, split_word, values_per_word};
use crate::render::{Renderer, Style};

/// What `encode` was asked.
pub struct EncodeRequest {
    pub format: Format,
    pub opts: RoundOptions,
    /// Values as typed; stdin when empty.
    pub inputs: Vec<String>,
    pub style: Style,
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
    origin: Origin,
    line: &str,
    r: &mut dyn Renderer,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    if let (Style::Plain, Format::Float(f)) = (req.style, &req.format)
        && let Some(bits) = encode_fast(f, line, req.opts)
    {
        let width = f.width();
        writeln!(out, "{}", HexBits { bits, width })?;
        return Ok(());
    }
    let texts = split_word(line, &req.format).map_err(|e| BadInput::new(origin, line, e))?;
    let e = read(req, |_| origin, &texts)?;
    r.encode(out, &e)?;
    Ok(())
}

pub fn run(
    req: &EncodeRequest,
    r: &mut dyn Renderer,
    out: &mut dyn Write,
) -> anyhow::Result<Verdict> {
    if req.inputs.is_empty() {
        let n = for_each_stdin_line(&mut *out, |out, origin, line| {
            encode_line(req, origin, line, r, out)
        })?;
        if n == 0 {
            return Err(no_input());
        }
        return Ok(Verdict::Success);
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
    for e in &encodings {
        r.encode(out, e)?;
    }
    Ok(Verdict::Success)
}
