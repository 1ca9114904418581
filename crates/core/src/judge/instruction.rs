//! The judge: an instruction in a working format under a rule set, and the run that judges
//! its slices: tasks across the cores, each through the fast deciders (`fast/`) and the
//! exact engine behind them into a [`Tally`], merged into one [`Verdict`].

use rayon::prelude::*;

use crate::d3d::{
    Domain, Op, OpCommand, OpError, OpRequest, Outputs, Pattern, PerOutput, Rule, RuleSet, evaluate,
};
use crate::format::FloatFormat;
use crate::judge::class::{self, ViolationClass, ViolationKind};
use crate::judge::error::JudgeError;
use crate::judge::fast;
use crate::judge::map::{Example, MappedOp, TaskMap};
use crate::judge::slices::{Column, Elem};
use crate::judge::verdict::{Line, Options, RunLines, Tally, Verdict};

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
            m.read_examples(opts.base, lines, |i| {
                let (args, results) = self.line_patterns(operands, results, i);
                Example { args, results }
            });
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
                .then(|| TaskMap::new(self, operands, self.width, &range)),
        );
        let run = RunSlices {
            judge: self,
            operands,
            results,
        };
        let mut slow = Vec::new();
        if opts.fast {
            self.decide_fast(operands, results, range.clone(), &mut tally, &mut slow);
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
            tally.exact(&run, i, line);
        }
        // The fast deciders count as they go and hand the rest over afterwards: name their
        // violations and put every violation back in index order.
        tally.name_fast(&run);
        tally.verdict.violations.sort_by_key(|v| v.index);
        tally.verdict.lines = range.len() as u64;
        if let Some(task) = tally.map.take() {
            tally.verdict.map = Some(task.finish());
        }
        Ok(tally.verdict)
    }

    /// Lines `range` through the fast deciders; the ones they cannot decide go to `slow`.
    fn decide_fast(
        &self,
        operands: &[Column],
        results: Column,
        range: std::ops::Range<usize>,
        tally: &mut Tally,
        slow: &mut Vec<usize>,
    ) {
        let arithmetic = self.format.arithmetic;
        fast::decide(
            self.op, arithmetic, self.rules, operands, results, range, tally, slow,
        );
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
        self.decide_fast(operands, results, i..i + 1, &mut tally, &mut slow);
        if !slow.is_empty() {
            return None;
        }
        tally.name_fast(&RunSlices {
            judge: self,
            operands,
            results,
        });
        let v = &tally.verdict;
        let distance = (v.histogram.nan == 0).then_some(v.max_distance);
        Some(Line {
            conforms: v.violate == 0,
            distance,
            class: v.classes.first().map(|c| c.class),
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
    fn request(&self, args: &[u64], check: Option<PerOutput<Pattern>>) -> OpRequest {
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
                Some(self.class(class::classify(&eval, out, v.result)))
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

    /// The instruction as `op` selects it, whose words write a line back as a command.
    pub fn command(&self) -> OpCommand {
        OpCommand::new(self.op, self.format, self.rules)
    }

    /// The class of violations of kind `kind` by this instruction.
    pub fn class(&self, kind: ViolationKind) -> ViolationClass {
        ViolationClass::new(kind, self.command())
    }

    /// Line `i` as a batch line `OP ARG... = RESULT` that `op` reads back.
    pub fn batch_line(&self, operands: &[Column], results: Column, i: usize) -> String {
        let (args, res) = self.line_patterns(operands, results, i);
        self.command().batch_line(&args, &res)
    }

    /// A pasteable `d3dfloat op ... --check ...` command for line `i`.
    pub fn example(&self, operands: &[Column], results: Column, i: usize) -> String {
        let (args, res) = self.line_patterns(operands, results, i);
        self.example_of(&args, &res)
    }

    /// A pasteable command for one line's patterns.
    pub fn example_of(&self, args: &[u64], results: &[u64]) -> String {
        self.command().check(args, results)
    }

    /// The rule line `i` breaks, cited as `op --json`'s `broken_rule` (the engine's
    /// governing rule for the first output that does not conform); empty when it conforms
    /// or the engine refuses it. One evaluation: called once per class.
    pub fn broken_rule(&self, operands: &[Column], results: Column, i: usize) -> String {
        let (args, res) = self.line_patterns(operands, results, i);
        let request = self.request(&args, Some(res.iter().map(|&b| Pattern::bits(b)).collect()));
        evaluate(&request)
            .ok()
            .and_then(|eval| {
                let broken = eval.check?.verdicts.iter().find_map(|v| v.broken)?;
                // A denorm operand read as zero (§3.1.3.2) is why the rule of that zero
                // governs: both are named, the flush first.
                let flushed = eval.rules_applied.contains(&Rule::FlushInput);
                Some(if flushed && broken != Rule::FlushInput {
                    format!("{}; then {}", Rule::FlushInput.cite(), broken.cite())
                } else {
                    broken.cite()
                })
            })
            .unwrap_or_default()
    }
}

/// A judge with the slices of its run: what a tally asks when it names lines.
struct RunSlices<'a> {
    judge: &'a Judge,
    operands: &'a [Column<'a>],
    results: Column<'a>,
}

impl RunLines for RunSlices<'_> {
    fn class(&self, kind: ViolationKind) -> ViolationClass {
        self.judge.class(kind)
    }

    fn example(&self, class: &ViolationClass, i: usize) -> String {
        let (args, res) = self.judge.line_patterns(self.operands, self.results, i);
        class.example(&args, &res)
    }

    fn broken_rule(&self, i: usize) -> String {
        self.judge.broken_rule(self.operands, self.results, i)
    }
}

impl MappedOp for Judge {
    fn operand_domain(&self) -> Domain {
        self.input
    }

    fn arity(&self) -> (usize, usize) {
        (self.operands, self.width)
    }

    fn allowed_reach(&self, args: &[u64]) -> Option<u64> {
        Judge::allowed_reach(self, args)
    }

    fn preferred(&self, args: &[u64]) -> Option<Vec<u64>> {
        evaluate(&self.request(args, None))
            .ok()
            .map(|e| e.outputs.iter().map(|o| o.preferred).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::F16;
    use crate::judge::map::ErrorMap;

    #[test]
    fn exps_constant_binades_are_trivial() {
        let judge = Judge::new(Op::Exp, F16, RuleSet::D3D11);
        let mut map = ErrorMap::for_judge(&judge);
        for c in map.cells.iter_mut() {
            c.lines = 1;
        }
        map.fill_bounds(&judge);
        let axis = map.axes[0];
        let at = |bits: u64| map.trivial[axis.cell(bits)];
        // exp(2^10) and above overflow, exp(-2^10) is 0, exp(2^-14) rounds to 1.
        assert!(at(0x6400) && at(0xe400) && at(0x0400), "{:?}", map.trivial);
        // Around 1 and -1 the results vary.
        assert!(!at(0x3c00) && !at(0xbc00) && !at(0x4400));
    }
}
