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
mod fast;
pub mod map;

use rayon::prelude::*;

use crate::d3d::{Domain, Op, OpError, OpRequest, Outputs, Pattern, RuleSet, evaluate};
use crate::format::FloatFormat;

pub use class::ClassCount;

/// The element type of a slice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elem {
    /// 16-bit words: f16 patterns.
    U16,
    /// 32-bit words: f32 patterns, i32 and u32 values, comparison masks.
    U32,
    /// 64-bit words: f64 patterns.
    U64,
}

impl Elem {
    /// The element type that holds a domain's patterns.
    pub fn of(domain: &Domain) -> Elem {
        match domain.width() {
            16 => Elem::U16,
            64 => Elem::U64,
            _ => Elem::U32,
        }
    }

    /// Bytes per element.
    pub fn bytes(self) -> usize {
        match self {
            Elem::U16 => 2,
            Elem::U32 => 4,
            Elem::U64 => 8,
        }
    }

    /// The name used in messages: `u16`, `u32`, `u64`.
    pub fn name(self) -> &'static str {
        match self {
            Elem::U16 => "u16",
            Elem::U32 => "u32",
            Elem::U64 => "u64",
        }
    }
}

/// One operand's or the results' slice.
#[derive(Clone, Copy, Debug)]
pub enum Column<'a> {
    /// f16 patterns.
    U16(&'a [u16]),
    /// f32 patterns, i32/u32 values or comparison masks.
    U32(&'a [u32]),
    /// f64 patterns.
    U64(&'a [u64]),
}

impl Column<'_> {
    /// Elements in the slice.
    pub fn len(&self) -> usize {
        match self {
            Column::U16(s) => s.len(),
            Column::U32(s) => s.len(),
            Column::U64(s) => s.len(),
        }
    }

    /// No elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The element type.
    pub fn elem(&self) -> Elem {
        match self {
            Column::U16(_) => Elem::U16,
            Column::U32(_) => Elem::U32,
            Column::U64(_) => Elem::U64,
        }
    }

    /// Element `i`, widened.
    #[inline]
    pub fn get(&self, i: usize) -> u64 {
        match self {
            Column::U16(s) => s[i] as u64,
            Column::U32(s) => s[i] as u64,
            Column::U64(s) => s[i],
        }
    }
}

/// Patterns held in a slice of the element type their domain needs (what a reader of
/// files or device buffers fills, and [`Buffer::column`] lends to the judge).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Buffer {
    /// f16 patterns.
    U16(Vec<u16>),
    /// 32-bit words.
    U32(Vec<u32>),
    /// f64 patterns.
    U64(Vec<u64>),
}

impl Default for Buffer {
    fn default() -> Buffer {
        Buffer::U32(Vec::new())
    }
}

impl Buffer {
    /// Patterns of any width, narrowed to `elem`'s.
    pub fn from_patterns(elem: Elem, patterns: impl Iterator<Item = u64>) -> Buffer {
        match elem {
            Elem::U16 => Buffer::U16(patterns.map(|b| b as u16).collect()),
            Elem::U32 => Buffer::U32(patterns.map(|b| b as u32).collect()),
            Elem::U64 => Buffer::U64(patterns.collect()),
        }
    }

    /// `n` zero elements, to be filled through [`Buffer::bytes_mut`].
    pub fn zeroed(elem: Elem, n: usize) -> Buffer {
        match elem {
            Elem::U16 => Buffer::U16(vec![0; n]),
            Elem::U32 => Buffer::U32(vec![0; n]),
            Elem::U64 => Buffer::U64(vec![0; n]),
        }
    }

    /// The elements' bytes, for a reader to fill with little-endian data; call
    /// [`Buffer::from_le`] after.
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        match self {
            Buffer::U16(v) => bytemuck::cast_slice_mut(v),
            Buffer::U32(v) => bytemuck::cast_slice_mut(v),
            Buffer::U64(v) => bytemuck::cast_slice_mut(v),
        }
    }

    /// `n` elements of type `elem`, reusing the storage when the type is the same (the
    /// contents are the caller's to fill).
    pub fn reset(&mut self, elem: Elem, n: usize) {
        match (self, elem) {
            (Buffer::U16(v), Elem::U16) => v.resize(n, 0),
            (Buffer::U32(v), Elem::U32) => v.resize(n, 0),
            (Buffer::U64(v), Elem::U64) => v.resize(n, 0),
            (b, _) => *b = Buffer::zeroed(elem, n),
        }
    }

    /// Keeps the first `n` elements.
    pub fn truncate(&mut self, n: usize) {
        match self {
            Buffer::U16(v) => v.truncate(n),
            Buffer::U32(v) => v.truncate(n),
            Buffer::U64(v) => v.truncate(n),
        }
    }

    /// Reads the elements filled as little-endian bytes in the machine's order (nothing to
    /// do on a little-endian machine).
    pub fn from_le(&mut self) {
        match self {
            Buffer::U16(v) => v.iter_mut().for_each(|x| *x = u16::from_le(*x)),
            Buffer::U32(v) => v.iter_mut().for_each(|x| *x = u32::from_le(*x)),
            Buffer::U64(v) => v.iter_mut().for_each(|x| *x = u64::from_le(*x)),
        }
    }

    /// The slice as the judge reads it.
    pub fn column(&self) -> Column<'_> {
        match self {
            Buffer::U16(v) => Column::U16(v),
            Buffer::U32(v) => Column::U32(v),
            Buffer::U64(v) => Column::U64(v),
        }
    }
}

/// Why slices cannot be judged.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum JudgeError {
    /// The instruction takes another number of source operands.
    #[error("{op} takes {expected} operand slice{}, got {got}", if *.expected == 1 { "" } else { "s" })]
    OperandCount {
        /// The instruction's name.
        op: &'static str,
        /// Slices it takes.
        expected: usize,
        /// Slices given.
        got: usize,
    },
    /// A slice of the wrong element type.
    #[error("{what} holds {domain} patterns, {expected} each; got {got} elements")]
    Elem {
        /// `operand 2`, `results`.
        what: String,
        /// The domain it holds.
        domain: &'static str,
        /// The element type it needs.
        expected: &'static str,
        /// The element type given.
        got: &'static str,
    },
    /// Slices whose lengths do not describe the same number of lines.
    #[error("{what} has {got} elements where {lines} lines need {expected}")]
    Length {
        /// `operand 2`, `results`.
        what: String,
        /// Elements given.
        got: usize,
        /// Lines the first operand describes.
        lines: usize,
        /// Elements those lines need here.
        expected: usize,
    },
    /// The exact engine refused an element (a pattern wider than its domain cannot come from
    /// a slice of the right type, so this is an internal error).
    #[error("line {index}: {source}")]
    Engine {
        /// The element's index.
        index: u64,
        /// The engine's error.
        source: OpError,
    },
}

/// How a run reports.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// The index of the slices' first line in the whole buffer (for streams judged in
    /// blocks: violations and examples carry whole-buffer indexes).
    pub base: u64,
    /// Violations listed by index (every one is counted).
    pub violation_limit: usize,
    /// Use the fast deciders (off: every element through the exact engine, the reference
    /// the tests and benchmarks compare with).
    pub fast: bool,
    /// Name each violation's class and keep an example of each (off: violations are
    /// counted and listed with an empty class, for a caller that needs only the verdicts).
    pub classify: bool,
    /// Count every line by where its operands lie ([`Verdict::map`], for reports).
    pub map: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            base: 0,
            violation_limit: 1000,
            fast: true,
            classify: true,
            map: false,
        }
    }
}

/// Distances from the correctly rounded result in representable values, in powers of two:
/// bucket 0 counts distance 0, bucket `k` (1 to 64) distances in `[2^(k-1), 2^k)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Histogram {
    /// The counts.
    pub buckets: [u64; 65],
    /// Lines where a NaN stands against a number (no distance).
    pub nan: u64,
}

impl Default for Histogram {
    fn default() -> Histogram {
        Histogram {
            buckets: [0; 65],
            nan: 0,
        }
    }
}

impl Histogram {
    /// The bucket of a distance.
    #[inline]
    pub fn bucket(d: u64) -> usize {
        (64 - d.leading_zeros()) as usize
    }

    /// The smallest and largest distance of bucket `k`.
    pub fn range(k: usize) -> (u64, u64) {
        match k {
            0 => (0, 0),
            64 => (1 << 63, u64::MAX),
            _ => (1 << (k - 1), (1 << k) - 1),
        }
    }

    #[inline]
    fn add(&mut self, d: Option<u64>) {
        match d {
            Some(d) => self.buckets[Self::bucket(d)] += 1,
            None => self.nan += 1,
        }
    }

    fn merge(&mut self, other: &Histogram) {
        for (a, b) in self.buckets.iter_mut().zip(other.buckets.iter()) {
            *a += b;
        }
        self.nan += other.nan;
    }
}

/// One violating line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// Its index in the whole buffer.
    pub index: u64,
    /// What it got wrong (one of [`Verdict::classes`]).
    pub class: String,
}

/// The verdict on a run of lines.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Verdict {
    /// Lines judged.
    pub lines: u64,
    /// Lines whose results conform.
    pub conform: u64,
    /// Lines whose results break the rules.
    pub violate: u64,
    /// The largest distance, in representable values of the result, of a conforming result
    /// from the correctly rounded one.
    pub max_ulps: u64,
    /// The largest distance of any result from the correctly rounded one (violations
    /// included; a NaN against a number has none).
    pub max_distance: u64,
    /// Every line's distance from the correctly rounded result.
    pub histogram: Histogram,
    /// Each kind of violation with its count and first line, in the order first seen.
    pub classes: Vec<ClassCount>,
    /// The first violations by index, up to [`Options::violation_limit`].
    pub violations: Vec<Violation>,
    /// Lines the fast deciders handed to the exact engine.
    pub exact_engine: u64,
    /// Where the error lies in the input range, when [`Options::map`] asked for it.
    pub map: Option<map::ErrorMap>,
}

impl Verdict {
    /// Adds the verdict on the lines that follow these.
    pub fn merge(&mut self, later: Verdict, violation_limit: usize) {
        self.lines += later.lines;
        self.conform += later.conform;
        self.violate += later.violate;
        self.max_ulps = self.max_ulps.max(later.max_ulps);
        self.max_distance = self.max_distance.max(later.max_distance);
        self.histogram.merge(&later.histogram);
        self.exact_engine += later.exact_engine;
        for c in later.classes {
            match self.classes.iter_mut().find(|k| k.class == c.class) {
                Some(k) => k.count += c.count,
                None => self.classes.push(c),
            }
        }
        match (&mut self.map, later.map) {
            (Some(m), Some(l)) => m.merge(l),
            (m @ None, l) => *m = l,
            _ => {}
        }
        let room = violation_limit.saturating_sub(self.violations.len());
        self.violations
            .extend(later.violations.into_iter().take(room));
    }

    /// The classes, most frequent first (first seen first among equals).
    pub fn classes_by_count(&self) -> Vec<ClassCount> {
        let mut v = self.classes.clone();
        v.sort_by_key(|c| std::cmp::Reverse(c.count));
        v
    }
}

/// The verdict on one line from the exact engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// Every result conforms.
    pub conforms: bool,
    /// The largest distance of a result from the correctly rounded one (`None`: a NaN
    /// against a number).
    pub distance: Option<u64>,
    /// What a violating line got wrong.
    pub class: Option<String>,
}

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
        let mut tally = Tally {
            verdict: Verdict::default(),
            limit: opts.violation_limit,
            base: opts.base,
            classify: opts.classify,
            map: opts
                .map
                .then(|| map::TaskMap::new(self, operands, self.width, &range)),
        };
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
        // The fast deciders count as they go and hand the rest over afterwards: put the
        // violations back in index order.
        tally.verdict.violations.sort_by_key(|v| v.index);
        tally.verdict.lines = range.len() as u64;
        if let Some(task) = tally.map.take() {
            tally.verdict.map = Some(task.finish());
        }
        Ok(tally.verdict)
    }

    /// The fast decider's answer on line `i`: `Some(distance)` when it proves the line
    /// conforms, `None` when it leaves the line to the exact engine (every violation, and
    /// whatever it cannot prove). For tests and diagnostics; [`Judge::run`] does this in bulk.
    pub fn fast_line(&self, operands: &[Column], results: Column, i: usize) -> Option<u64> {
        let mut tally = Tally {
            verdict: Verdict::default(),
            limit: 0,
            base: 0,
            classify: false,
            map: None,
        };
        let mut slow = Vec::new();
        fast::decide(self, operands, results, i..i + 1, &mut tally, &mut slow);
        slow.is_empty().then_some(tally.verdict.max_ulps)
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
                Some(class::classify(self, &eval, out, v.result))
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

/// What one task has seen.
struct Tally {
    verdict: Verdict,
    limit: usize,
    base: u64,
    classify: bool,
    map: Option<map::TaskMap>,
}

impl Tally {
    /// Line `i`, which the fast decider proved conforming, at distance `d`.
    #[inline]
    fn conform(&mut self, i: usize, d: u64) {
        if let Some(m) = &mut self.map {
            m.add(i, self.base + i as u64, Some(d), false);
        }
        let v = &mut self.verdict;
        v.conform += 1;
        v.max_ulps = v.max_ulps.max(d);
        v.max_distance = v.max_distance.max(d);
        v.histogram.buckets[Histogram::bucket(d)] += 1;
    }

    /// A line the exact engine judged.
    fn exact(&mut self, judge: &Judge, operands: &[Column], results: Column, i: usize, l: Line) {
        if let Some(m) = &mut self.map {
            m.add(i, self.base + i as u64, l.distance, !l.conforms);
        }
        let v = &mut self.verdict;
        v.exact_engine += 1;
        v.histogram.add(l.distance);
        if let Some(d) = l.distance {
            v.max_distance = v.max_distance.max(d);
        }
        if l.conforms {
            v.conform += 1;
            v.max_ulps = v.max_ulps.max(l.distance.unwrap_or(0));
            return;
        }
        v.violate += 1;
        let class = l.class.unwrap_or_default();
        let index = self.base + i as u64;
        if !self.classify {
            if v.violations.len() < self.limit {
                v.violations.push(Violation { index, class });
            }
            return;
        }
        match v.classes.iter_mut().find(|c| c.class == class) {
            // A task hands its lines over in index order: the first one keeps the example.
            Some(c) => c.count += 1,
            None => v.classes.push(ClassCount {
                class: class.clone(),
                count: 1,
                example: judge.example(operands, results, i),
                first: index,
            }),
        }
        if v.violations.len() < self.limit {
            v.violations.push(Violation { index, class });
        }
    }
}
