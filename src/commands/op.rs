//! `op`: evaluate a D3D shader instruction, or check a batch of results from stdin.

use std::io::Write;

use super::Verdict;
use super::inputs::{BadInput, Origin, for_each_stdin_line, no_input};
use crate::d3d::{BatchSummary, OpError, RuleSet, evaluate};
use crate::format::{Arithmetic, Format};
use crate::input::{InputError, LineError, parse_op_line, parse_op_words};

use crate::render::{Renderer, Style};

/// What `op` was asked.
pub struct OpCommand {
    /// The working format (`--fmt`).
    pub format: Format,
    /// `--rules`: the D3D version's rule set.
    pub rules: RuleSet,
    /// `--check RESULT`: a claimed result to judge.
    pub check: Option<String>,
    /// `OP ARG...`; stdin lines when empty.
    pub words: Vec<String>,
    /// The output style.
    pub style: Style,
}

/// An operand error names its command-line argument (the instruction is argument 1).
fn argument_error(e: LineError, words: &[String]) -> anyhow::Error {
    match e {
        // The argument is echoed once: the message is only what is wrong with it.
        LineError::Input(InputError::Operand {
            index,
            text,
            source,
        }) => BadInput::new(Origin::Argument(index + 1), &text, source).into(),
        LineError::Op(e @ OpError::UnknownOp(_)) => {
            BadInput::new(Origin::Argument(1), &words[0], explained(e.into())).into()
        }
        other => anyhow::anyhow!("{other}"),
    }
}

/// A line's error in the command line's words: an unknown instruction gets the closest
/// name, if one is close, and points at the list in `op --help` (the core names no flag).
fn explained(e: LineError) -> String {
    match e {
        LineError::Op(OpError::UnknownOp(ref name)) => match closest_instruction(name) {
            Some(near) => format!("{e} (did you mean '{near}'? `d3dfloat op --help` lists them)"),
            None => format!("{e} (see `d3dfloat op --help` for the list)"),
        },
        other => other.to_string(),
    }
}

/// The instruction name most like `typed`, when it is alike enough to be a slip
/// (Jaro-Winkler similarity of at least 0.8, as close as clap asks of a subcommand).
fn closest_instruction(typed: &str) -> Option<&'static str> {
    let typed = typed.trim().to_ascii_lowercase();
    crate::d3d::op_names()
        .map(|n| (strsim::jaro_winkler(&typed, n), n))
        .filter(|&(score, _)| score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, n)| n)
}

/// Evaluates one instruction, or every `OP ARG... [= RESULT]` line of stdin, and renders
/// each; negative when a checked result does not conform.
pub fn run(req: &OpCommand, r: &mut dyn Renderer, out: &mut dyn Write) -> anyhow::Result<Verdict> {
    let fmt = match req.format {
        Format::Float(f) if f.arithmetic != Arithmetic::None => f,
        Format::Float(_) | Format::R11G11B10 | Format::Rgb9e5 => {
            anyhow::bail!(
                "op works in f32, f16 or f64 (D3D has no {} arithmetic)",
                req.format.name()
            )
        }
    };
    if req.words.is_empty() {
        if req.check.is_some() {
            anyhow::bail!("--check needs an instruction; on stdin, write 'OP ARG... = RESULT'");
        }
        return batch(req, &fmt, r, out);
    }
    let line = parse_op_words(
        &req.words[0],
        &req.words[1..],
        req.check.as_deref(),
        &fmt,
        req.rules,
    )
    .map_err(|e| argument_error(e, &req.words))?;
    let eval = evaluate(&line.request).map_err(|e| argument_error(e.into(), &req.words))?;
    r.op(out, &eval, &line.typed, false)?;
    Ok(match eval.conforms() {
        Some(false) => Verdict::Negative,
        _ => Verdict::Success,
    })
}

fn batch(
    req: &OpCommand,
    fmt: &crate::format::FloatFormat,
    r: &mut dyn Renderer,
    out: &mut dyn Write,
) -> anyhow::Result<Verdict> {
    let mut summary = BatchSummary::default();
    let n = for_each_stdin_line(
        &mut *out,
        "lines 'OP ARG... [= RESULT]'",
        |out, origin, line| {
            let parsed = parse_op_line(line, fmt, req.rules)
                .map_err(|e| BadInput::new(origin, line, explained(e)))?;
            let eval = evaluate(&parsed.request).map_err(|e| BadInput::new(origin, line, e))?;
            summary.add(eval.conforms());
            r.op(out, &eval, &parsed.typed, true)?;
            Ok(())
        },
    )?;
    if n == 0 {
        return Err(no_input());
    }
    if summary.checked > 0 {
        // Each style decides what goes to stdout and what to stderr.
        r.op_summary(out, &mut std::io::stderr().lock(), &summary)?;
    }
    Ok(if summary.violate > 0 {
        Verdict::Negative
    } else {
        Verdict::Success
    })
}
