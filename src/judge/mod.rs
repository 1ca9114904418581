//! Judging whole buffers: an instruction's operand slices and the results a device
//! returned, every element's verdict exact, at memory speed where a fast path can prove it.
//!
//! Each element goes first to its instruction's fast decider (`fast/`), which knows the
//! correctly rounded result and a part of the allowed set that it can prove with a few
//! machine operations (an exact product in `f64`, an error term, bit arithmetic). A result
//! inside that part conforms, at a known distance. Every other element, every violation
//! among them, goes to the exact engine ([`crate::d3d::evaluate`]) and is named there
//! (`class.rs`, the classes `probe` reports). So a fast decider can only ever be a shortcut
//! to the exact engine's answer; `tests/judge_slices.rs` holds the two to the same verdict
//! element by element.
//!
//! Layouts (little-endian words as a device writes them, one slice per source operand):
//! a float operand or result is its pattern in a `u16` (f16), `u32` (f32) or `u64` (f64);
//! an integer (`ftoi`'s result, `itof`'s operand) and a comparison mask a `u32`. A vector
//! operand (dp2-dp4) holds its components one after another; a result slice holds every
//! output of a line one after another (sincos: sine, then cosine).

mod class;
mod error;
mod fast;
pub mod map;
mod slices;
mod verdict;

use rayon::prelude::*;

use crate::d3d::{Domain, Op, OpError, OpRequest, Outputs, Pattern, RuleSet, evaluate};
use crate::format::FloatFormat;

pub use class::ClassCount;
pub use error::JudgeError;
pub use slices::{Buffer, Column, Elem};
use verdict::Tally;
pub use verdict::{Histogram, Line, Options, Verdict, Violation};

/// An instruction in a format under a rule set, ready to judge slices.
#[derive(Clone, Debug)]
pub struct Judge {
    op: Op,
    format: FloatFormat,
    rules: RuleSet,
    operands: usize,
    width: usize,
    input: Domain,
    outputs: Outputs,
}

/// Lines per parallel task: large enough that a task costs far more than its scheduling,
/// small enough that two cores share a 2^20-line block evenly.
const TASK_LINES: usize = 1 << 14;

impl Judge {
    /// The instruction `op` in working format `format` (as [`Op::parse`] returns them).
    pub fn new(op: Op, format: FloatFormat, rules: RuleSet) -> Judge {
        let (operands, width) = op.arity();
        let (input, outputs) = op.domains(&format);
        Judge {
            op,
            format,
            rules,
            operands,
            width,
            input,
            outputs,
        }
    }

    /// The instruction named `name` (an `op` name: `sqrt`, `dadd`, ...) in a working format.
    pub fn parse(name: &str, format: &FloatFormat, rules: RuleSet) -> Result<Judge, OpError> {
        let (op, format) = Op::parse(name, format)?;
        Ok(Judge::new(op, format, rules))
    }

    /// The instruction.
    pub fn op(&self) -> Op {
        self.op
    }

    /// The working format.
    pub fn format(&self) -> FloatFormat {
        self.format
    }

    /// The rule set.
    pub fn rules(&self) -> RuleSet {
        self.rules
    }

    /// The name `op` reads.
    pub fn name(&self) -> &'static str {
        self.op.name(&self.format)
    }

    /// Source operand slices, and components per line in each.
    pub fn arity(&self) -> (usize, usize) {
        (self.operands, self.width)
    }

    /// The operands' domain and element type.
    pub fn operand_domain(&self) -> Domain {
        self.input
    }

    /// The outputs' domains, in the order a result slice holds them.
    pub fn output_domains(&self) -> impl Iterator<Item = Domain> + '_ {
        self.outputs.iter().map(|(_, d)| *d)
    }

    /// Results per line (2 for sincos).
    pub fn outputs(&self) -> usize {
        self.outputs.len()
    }

    /// The element type of the result slice.
    pub fn result_elem(&self) -> Elem {
        Elem::of(&self.outputs[0].1)
    }

    /// The lines the slices describe, after checking their number, types and lengths.
    pub fn lines(&self, operands: &[Column], results: Column) -> Result<usize, JudgeError> {
        if operands.len() != self.operands {
            return Err(JudgeError::OperandCount {
                op: self.name(),
                expected: self.operands,
                got: operands.len(),
            });
        }
        let want = Elem::of(&self.input);
        for (i, c) in operands.iter().enumerate() {
            if c.elem() != want {
                return Err(JudgeError::Elem {
                    what: format!("operand {}", i + 1),
                    domain: self.input.name(),
                    expected: want.name(),
                    got: c.elem().name(),
                });
            }
        }
        if results.elem() != self.result_elem() {
            return Err(JudgeError::Elem {
                what: "results".into(),
                domain: self.outputs[0].1.name(),
                expected: self.result_elem().name(),
                got: results.elem().name(),
            });
        }
        let lines = operands[0].len() / self.width;
        let check = |what: String, got: usize, per: usize| {
            if got != lines * per || !operands[0].len().is_multiple_of(self.width) {
                Err(JudgeError::Length {
                    what,
                    got,
                    lines,
                    expected: lines * per,
                })
            } else {
                Ok(())
            }
        };
        for (i, c) in operands.iter().enumerate() {
            check(format!("operand {}", i + 1), c.len(), self.width)?;
        }
        check("results".into(), results.len(), self.outputs.len())?;
        Ok(lines)
    }

    /// Judges every line, on every core.
    pub fn run(
        &self,
        operands: &[Column],
        results: Column,
        opts: &Options,
    ) -> Result<Verdict, JudgeError> {
        let lines = self.lines(operands, results)?;
        // Tasks merge as they finish, in index order (rayon's reduce keeps the order of
        // its items; a merge is associative), so that at most a few tasks' verdicts and
        // maps are alive at once.
        let mut verdict = (0..lines.div_ceil(TASK_LINES))
            .into_par_iter()
            .map(|t| {
                let range = t * TASK_LINES..((t + 1) * TASK_LINES).min(lines);
                self.run_range(operands, results, range, opts)
            })
            .try_reduce(Verdict::default, |mut a, b| {
                a.merge(b, opts.violation_limit);
                Ok(a)
            })?;
        if let Some(m) = &mut verdict.map {
            m.read_examples(self, operands, results, opts.base, lines);
        }
        Ok(verdict)
    }

    /// Judges lines `range` on this thread.
    fn run_range(
        &self,
        operands: &[Column],
        results: Column,
        range: std::ops::Range<usize>,
        opts: &Options,
    ) -> Result<Verdict, JudgeError> {
        let mut tally = Tally::new(
            opts.violation_limit,
            opts.base,
            opts.classify,
            opts.map
                .then(|| map::TaskMap::new(self, operands, self.width, &range)),
        );
        let mut slow = Vec::new();
        if opts.fast {
            fast::decide(
                self,
                operands,
                results,
                range.clone(),
                &mut tally,
                &mut slow,
            );
        } else {
            slow.extend(range.clone());
        }
        for i in slow {
            let (args, res) = self.line_patterns(operands, results, i);
            let line = self
                .judge_line(&args, &res, opts.classify)
                .map_err(|source| JudgeError::Engine {
                    index: i as u64,
                    source,
                })?;
            tally.exact(self, operands, results, i, line);
        }
        // The fast deciders count as they go and hand the rest over afterwards: name their
        // violations and put every violation back in index order.
        tally.name_fast(self, operands, results);
        tally.verdict.violations.sort_by_key(|v| v.index);
        tally.verdict.lines = range.len() as u64;
        if let Some(task) = tally.map.take() {
            tally.verdict.map = Some(task.finish());
        }
        Ok(tally.verdict)
    }

    /// The fast decider's answer on line `i`: `Some(distance)` when it proves the line
    /// conforms, `None` when it leaves the line to the exact engine or proves a violation.
    /// For tests and diagnostics; [`Judge::run`] does this in bulk.
    pub fn fast_line(&self, operands: &[Column], results: Column, i: usize) -> Option<u64> {
        self.fast_verdict(operands, results, i)
            .filter(|l| l.conforms)
            .and_then(|l| l.distance)
    }

    /// The fast decider's whole verdict on line `i`, as [`Judge::exact_line`] would give
    /// it (conforms or not, the distance, a violation's class), when it can prove one;
    /// `None` when it leaves the line to the exact engine. For tests and diagnostics.
    pub fn fast_verdict(&self, operands: &[Column], results: Column, i: usize) -> Option<Line> {
        let mut tally = Tally::new(1, 0, true, None);
        let mut slow = Vec::new();
        fast::decide(self, operands, results, i..i + 1, &mut tally, &mut slow);
        if !slow.is_empty() {
            return None;
        }
        tally.name_fast(self, operands, results);
        let v = &tally.verdict;
        let distance = (v.histogram.nan == 0).then_some(v.max_distance);
        Some(Line {
            conforms: v.violate == 0,
            distance,
            class: v.classes.first().map(|c| c.class.clone()),
        })
    }

    /// The operand patterns of line `i` (every component of every operand, in order) and
    /// its result patterns.
    pub fn line_patterns(
        &self,
        operands: &[Column],
        results: Column,
        i: usize,
    ) -> (Vec<u64>, Vec<u64>) {
        let args = operands
            .iter()
            .flat_map(|c| (0..self.width).map(move |k| c.get(i * self.width + k)))
            .collect();
        let n = self.outputs.len();
        let res = (0..n).map(|k| results.get(i * n + k)).collect();
        (args, res)
    }

    /// Line `i` through the exact engine.
    pub fn exact_line(
        &self,
        operands: &[Column],
        results: Column,
        i: usize,
    ) -> Result<Line, JudgeError> {
        let (args, res) = self.line_patterns(operands, results, i);
        self.judge_patterns(&args, &res)
            .map_err(|source| JudgeError::Engine {
                index: i as u64,
                source,
            })
    }

    /// One line's operand patterns (every component in order) and result patterns through
    /// the exact engine.
    pub fn judge_patterns(&self, args: &[u64], results: &[u64]) -> Result<Line, OpError> {
        self.judge_line(args, results, true)
    }

    /// The engine's request for a line's operand patterns (every component in order),
    /// claiming `check` when given.
    fn request(&self, args: &[u64], check: Option<crate::d3d::PerOutput<Pattern>>) -> OpRequest {
        OpRequest {
            op: self.op,
            format: self.format,
            rules: self.rules,
            args: args
                .chunks(self.width)
                .map(|c| c.iter().map(|&b| Pattern::bits(b)).collect())
                .collect(),
            check,
        }
    }

    /// [`Judge::judge_patterns`], naming the class of a violation only when asked.
    fn judge_line(&self, args: &[u64], results: &[u64], classify: bool) -> Result<Line, OpError> {
        let request = self.request(
            args,
            Some(results.iter().map(|&b| Pattern::bits(b)).collect()),
        );
        // The engine checks the results itself (the full-mask rule of §22.6 included).
        let eval = evaluate(&request)?;
        let verdicts = &eval.check.as_ref().expect("results were claimed").verdicts;
        let conforms = verdicts.iter().all(|v| v.conforms);
        let mut distance = Some(0u64);
        let class = classify
            .then(|| {
                let (out, v) = eval
                    .outputs
                    .iter()
                    .zip(verdicts)
                    .find(|(_, v)| !v.conforms)?;
                Some(class::classify(self, &eval, out, v.result).text(self.name()))
            })
            .flatten();
        for (out, &bits) in eval.outputs.iter().zip(results) {
            let d = match (out.domain.key(out.preferred), out.domain.key(bits)) {
                (Some(a), Some(b)) => Some(
                    out.domain
                        .ordinal_of_key(a)
                        .abs_diff(out.domain.ordinal_of_key(b)),
                ),
                (None, None) => Some(0),
                _ => None,
            };
            distance = match (distance, d) {
                (Some(a), Some(b)) => Some(a.max(b)),
                _ => None,
            };
        }
        Ok(Line {
            conforms,
            distance,
            class,
        })
    }

    /// How far the allowed set of a line with these operand patterns reaches from the
    /// correctly rounded result, in representable values (the largest over the outputs;
    /// infinities are not counted as a reach): 0 where only that result is allowed. `None`
    /// when the engine refuses the line or the result must be NaN.
    pub fn allowed_reach(&self, args: &[u64]) -> Option<u64> {
        let eval = evaluate(&self.request(args, None)).ok()?;
        let mut reach = None;
        for out in &eval.outputs {
            let Some(p) = out.domain.key(out.preferred) else {
                continue;
            };
            let Some((lo, hi)) = out.allowed.finite_extremes(&out.domain) else {
                continue;
            };
            let ord = |k| out.domain.ordinal_of_key(k);
            let r = ord(hi).abs_diff(ord(p)).max(ord(p).abs_diff(ord(lo)));
            reach = Some(reach.map_or(r, |x: u64| x.max(r)));
        }
        reach
    }

    /// The `op` options before the name that select this reading (`--fmt f16 `,
    /// `--rules d3d10 `).
    fn options_text(&self) -> String {
        let mut s = String::new();
        if self.format.arithmetic == crate::format::Arithmetic::Float16 {
            s.push_str("--fmt f16 ");
        }
        if self.rules == RuleSet::D3D10 {
            s.push_str("--rules d3d10 ");
        }
        s
    }

    /// Line `i` as a batch line `OP ARG... = RESULT` that `op` reads back (with `--fmt f16`
    /// and `--rules d3d10` where the judge has them).
    pub fn batch_line(&self, operands: &[Column], results: Column, i: usize) -> String {
        let (args, res) = self.line_patterns(operands, results, i);
        format!("{} {}", self.name(), self.line_body(&args, &res))
    }

    /// A pasteable `d3dfloat op ... --check ...` command for line `i`.
    pub fn example(&self, operands: &[Column], results: Column, i: usize) -> String {
        let (args, res) = self.line_patterns(operands, results, i);
        self.example_of(&args, &res)
    }

    /// A pasteable command for one line's patterns.
    pub fn example_of(&self, args: &[u64], results: &[u64]) -> String {
        let body = self
            .line_body(args, results)
            .replacen(" = ", " --check ", 1);
        format!("d3dfloat op {}{} {body}", self.options_text(), self.name())
    }

    /// `ARG... = RESULT`: vector components joined by commas, outputs too.
    fn line_body(&self, args: &[u64], results: &[u64]) -> String {
        let hex = |d: &Domain, b: u64| format!("0x{:0w$x}", b, w = d.width() as usize / 4);
        let operands: Vec<String> = args
            .chunks(self.width)
            .map(|c| {
                c.iter()
                    .map(|&b| hex(&self.input, b))
                    .collect::<Vec<_>>()
                    .join(",")
            })
            .collect();
        let res: Vec<String> = self
            .outputs
            .iter()
            .zip(results)
            .map(|((_, d), &b)| hex(d, b))
            .collect();
        format!("{} = {}", operands.join(" "), res.join(","))
    }
}
