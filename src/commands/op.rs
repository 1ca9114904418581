//! `op`: evaluate a D3D shader instruction, or check a batch of results from stdin.

use std::io::Write;

use super::Exit;
use super::inputs::{BadInput, Origin, for_each_stdin_line, no_input};
use crate::d3d::{BatchSummary, OpError, OpRequest, RuleSet, evaluate};
use crate::format::{Arithmetic, Format};
use crate::input::{InputError, LineError, parse_op_line, parse_op_words};
use rayon::prelude::*;

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
pub fn run(req: &OpCommand, r: &mut dyn Renderer, out: &mut dyn Write) -> anyhow::Result<Exit> {
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
        Some(false) => Exit::Negative,
        _ => Exit::Success,
    })
}

fn batch(
    req: &OpCommand,
    fmt: &crate::format::FloatFormat,
    r: &mut dyn Renderer,
    out: &mut dyn Write,
) -> anyhow::Result<Exit> {
    let mut summary = BatchSummary::default();
    // `--plain` prints only the verdict of a checked line: runs of such lines of one
    // instruction go through the judge over slices (the same verdicts, settled fast where
    // provable) instead of one evaluation each.
    let mut run = (req.style == Style::Plain).then(Runs::default);
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
        Exit::Negative
    } else {
        Exit::Success
    })
}

/// Checked lines waiting to be judged together: one run per instruction (a batch mixes
/// them line by line), and the order the lines came in, for printing.
#[derive(Default)]
struct Runs {
    runs: Vec<Run>,
    /// For each waiting line, its run and its index there.
    order: Vec<(u8, u32)>,
}

/// The lines of one instruction.
struct Run {
    judge: Judge,
    /// Every component of every operand, per operand.
    operands: Vec<Vec<u64>>,
    results: Vec<u64>,
    lines: usize,
}

/// Lines judged at once: enough to pay for the setup, few enough that output keeps flowing.
const RUN_LINES: usize = 1 << 14;
/// Instructions waiting at once; a line of another one flushes them first.
const MOST_RUNS: usize = 64;

impl Runs {
    /// Takes a line the judge can take whole (every operand and every output given as
    /// patterns of the right count, width and size); `false` leaves it to a full
    /// evaluation, after what waits is flushed.
    fn take(&mut self, req: &OpRequest) -> bool {
        let Some(claims) = &req.check else {
            return false;
        };
        let at = match self.runs.iter().position(|r| {
            r.judge.op() == req.op && r.judge.format() == req.format && r.judge.rules() == req.rules
        }) {
            Some(at) => at,
            None if self.runs.len() < MOST_RUNS => {
                self.runs.push(Run {
                    judge: Judge::new(req.op, req.format, req.rules),
                    operands: vec![Vec::new(); req.args.len()],
                    results: Vec::new(),
                    lines: 0,
                });
                self.runs.len() - 1
            }
            None => return false,
        };
        let run = &mut self.runs[at];
        let judge = &run.judge;
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
        for (column, a) in run.operands.iter_mut().zip(&req.args) {
            column.extend(a.iter().map(|p| p.bits));
        }
        run.results.extend(claims.iter().map(|c| c.bits));
        self.order.push((at as u8, run.lines as u32));
        run.lines += 1;
        true
    }

    fn full(&self) -> bool {
        self.order.len() >= RUN_LINES
    }

    /// Judges every waiting line and prints each one's verdict, in the order they came.
    fn flush(&mut self, out: &mut dyn Write, summary: &mut BatchSummary) -> anyhow::Result<()> {
        if self.order.is_empty() {
            return Ok(());
        }
        // The runs are judged side by side; only the verdicts are needed, not the classes.
        let verdicts: Vec<Vec<bool>> = self
            .runs
            .par_iter()
            .map(|run| {
                let judge = &run.judge;
                let elem = Elem::of(&judge.operand_domain());
                let operands: Vec<Buffer> = run
                    .operands
                    .iter()
                    .map(|c| Buffer::from_patterns(elem, c.iter().copied()))
                    .collect();
                let results =
                    Buffer::from_patterns(judge.result_elem(), run.results.iter().copied());
                let cols: Vec<_> = operands.iter().map(Buffer::column).collect();
                let opts = Options {
                    violation_limit: usize::MAX,
                    classify: false,
                    ..Options::default()
                };
                let verdict = judge
                    .run(&cols, results.column(), &opts)
                    .map_err(|e| anyhow::anyhow!("{e}"))?;
                let mut conforms = vec![true; run.lines];
                for v in &verdict.violations {
                    conforms[v.index as usize] = false;
                }
                Ok(conforms)
            })
            .collect::<anyhow::Result<_>>()?;
        for &(at, i) in &self.order {
            let conforms = verdicts[at as usize][i as usize];
            summary.add(Some(conforms));
            out.write_all(if conforms {
                b"conforms\n"
            } else {
                b"violates\n"
            })?;
        }
        self.runs.clear();
        self.order.clear();
        Ok(())
    }
}
