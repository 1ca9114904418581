//! `op`: evaluate a D3D shader instruction, or check a batch of results from stdin.

use std::io::Write;

use super::Verdict;
use super::inputs::{BadInput, Origin, for_each_stdin_line, no_input};
use crate::d3d::{BatchSummary, OpError, OpRequest, RuleSet, evaluate};
use crate::format::{Arithmetic, Format};
use crate::input::{InputError, LineError, parse_op_line, parse_op_words};
use crate::judge::{Buffer, Elem, Judge, Options};

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
    // `--plain` prints only the verdict of a checked line: runs of such lines of one
    // instruction go through the judge over slices (the same verdicts, settled fast where
    // provable) instead of one evaluation each.
    let mut run = (req.style == Style::Plain).then(Run::default);
    let n = for_each_stdin_line(
        &mut *out,
        "lines 'OP ARG... [= RESULT]'",
        |out, origin, line| {
            let parsed = match parse_op_line(line, fmt, req.rules) {
                Ok(p) => p,
                Err(e) => {
                    // The verdicts of the lines before go out before the error.
                    if let Some(run) = &mut run {
                        run.flush(out, &mut summary)?;
                    }
                    return Err(BadInput::new(origin, line, explained(e)).into());
                }
            };
            if let Some(run) = &mut run {
                // A line of another instruction ends the run; it may start the next one.
                let mut taken = run.take(&parsed.request);
                if !taken {
                    run.flush(out, &mut summary)?;
                    taken = run.take(&parsed.request);
                }
                if taken {
                    if run.full() {
                        run.flush(out, &mut summary)?;
                    }
                    return Ok(());
                }
            }
            let eval = evaluate(&parsed.request).map_err(|e| BadInput::new(origin, line, e))?;
            summary.add(eval.conforms());
            r.op(out, &eval, &parsed.typed, true)?;
            Ok(())
        },
    )?;
    if let Some(run) = &mut run {
        run.flush(out, &mut summary)?;
    }
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

/// Consecutive checked lines of one instruction, waiting to be judged together.
#[derive(Default)]
struct Run {
    judge: Option<Judge>,
    /// Every component of every operand, per operand.
    operands: Vec<Vec<u64>>,
    results: Vec<u64>,
    lines: usize,
}

/// Lines judged at once: enough to pay for the setup, few enough that output keeps flowing.
const RUN_LINES: usize = 4096;

impl Run {
    /// Takes a line the judge can take whole (every operand and every output given as
    /// patterns of the right count, width and size, the same instruction as the run's);
    /// `false` leaves it to a full evaluation.
    fn take(&mut self, req: &OpRequest) -> bool {
        let Some(claims) = &req.check else {
            return false;
        };
        let same = self.judge.as_ref().is_some_and(|j| {
            j.op() == req.op && j.format() == req.format && j.rules() == req.rules
        });
        if !same {
            if self.lines > 0 {
                return false;
            }
            self.judge = Some(Judge::new(req.op, req.format, req.rules));
            self.operands = vec![Vec::new(); req.args.len()];
        }
        let judge = self.judge.as_ref().expect("set above");
        let (count, width) = judge.arity();
        let in_width = judge.operand_domain().width();
        let fits = |bits: u64, w: u32| w >= 64 || bits >> w == 0;
        let ok = req.args.len() == count
            && req
                .args
                .iter()
                .all(|a| a.len() == width && a.iter().all(|p| fits(p.bits, in_width)))
            && claims.len() == judge.outputs()
            && judge
                .output_domains()
                .zip(claims.iter())
                .all(|(d, c)| fits(c.bits, d.width()));
        if !ok {
            return false;
        }
        for (column, a) in self.operands.iter_mut().zip(&req.args) {
            column.extend(a.iter().map(|p| p.bits));
        }
        self.results.extend(claims.iter().map(|c| c.bits));
        self.lines += 1;
        true
    }

    fn full(&self) -> bool {
        self.lines >= RUN_LINES
    }

    /// Judges the waiting lines and prints each one's verdict, in order.
    fn flush(&mut self, out: &mut dyn Write, summary: &mut BatchSummary) -> anyhow::Result<()> {
        if self.lines == 0 {
            return Ok(());
        }
        let judge = self.judge.as_ref().expect("a run has its instruction");
        let elem = Elem::of(&judge.operand_domain());
        let operands: Vec<Buffer> = self
            .operands
            .iter()
            .map(|c| Buffer::from_patterns(elem, c.iter().copied()))
            .collect();
        let results = Buffer::from_patterns(judge.result_elem(), self.results.iter().copied());
        let cols: Vec<_> = operands.iter().map(Buffer::column).collect();
        let opts = Options {
            violation_limit: usize::MAX,
            ..Options::default()
        };
        let verdict = judge
            .run(&cols, results.column(), &opts)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        let mut bad = verdict
            .violations
            .iter()
            .map(|v| v.index as usize)
            .peekable();
        for i in 0..self.lines {
            let conforms = bad.next_if_eq(&i).is_none();
            summary.add(Some(conforms));
            out.write_all(if conforms {
                b"conforms\n"
            } else {
                b"violates\n"
            })?;
        }
        for c in &mut self.operands {
            c.clear();
        }
        self.results.clear();
        self.lines = 0;
        Ok(())
    }
}
