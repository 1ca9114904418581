//! A program judged over whole buffers: per element, the results a device returned for
//! each output component against the interval of that element's inputs. The fast decider
//! ([`super::fast`]) settles the results between two chains; the rest get the exact
//! propagation.

use std::sync::Mutex;

use rayon::prelude::*;

use super::ProgramError;
use super::analyze::{OutputSel, select_output, spans};
use super::asm::component_name;
use super::ast::{Program, Reg};
use super::fast::{Scratch, Tape};
use super::interval::PointEngine;
use super::span::Span;
use crate::d3d::RuleSet;

/// Elements judged per piece of work (each core takes pieces in turn).
const PIECE: usize = 1 << 14;
/// Elements whose nearest chains the decider runs step by step together.
const BLOCK: usize = 256;

/// A worker's memory, kept from piece to piece and from call to call: the decider's, one
/// per alternative (its table of chains fills once), and the exact propagation's engine.
struct Worker {
    scratch: Vec<Scratch>,
    engine: PointEngine,
}

/// A worker taken from the judge's pool for one run of pieces, given back when dropped.
struct Lease<'a> {
    pool: &'a Mutex<Vec<Worker>>,
    worker: Option<Worker>,
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        if let (Some(w), Ok(mut pool)) = (self.worker.take(), self.pool.lock()) {
            pool.push(w);
        }
    }
}

/// One output component of one element outside its interval.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramViolation {
    /// The element's index.
    pub index: u64,
    /// The component, `r1.x`.
    pub component: String,
    /// The pattern returned.
    pub result: u64,
    /// The interval allowed.
    pub span: Span,
}

/// The verdict over buffers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProgramVerdict {
    /// Elements judged.
    pub elements: u64,
    /// Elements whose every output component conforms.
    pub conform: u64,
    /// Elements with at least one component outside its interval.
    pub violate: u64,
    /// Elements the fast decider settled (the rest took the exact propagation).
    pub fast: u64,
    /// The first violating components, by index (at most the number asked for).
    pub violations: Vec<ProgramViolation>,
}

/// A program, its output and rules, ready to judge buffers.
pub struct ProgramJudge {
    programs: Vec<Program>,
    out: OutputSel,
    rules: RuleSet,
    inputs: Vec<(Reg, usize)>,
    tapes: Option<Vec<Tape>>,
    /// Workers' memory between calls (a caller judging a stream block by block keeps
    /// the decider's tables).
    pool: Mutex<Vec<Worker>>,
}

impl ProgramJudge {
    /// Prepares `programs` (alternatives whose union is the answer) with the output
    /// `requested` (default: the first program's last destination).
    pub fn new(
        programs: Vec<Program>,
        requested: Option<(Reg, Option<u8>)>,
        rules: RuleSet,
    ) -> Result<ProgramJudge, ProgramError> {
        let first = programs.first().ok_or(ProgramError::Empty)?;
        let out = select_output(first, requested)?;
        for p in &programs[1..] {
            select_output(p, Some((out.reg, Some(out.mask))))?;
        }
        let mut inputs: Vec<(Reg, usize)> = Vec::new();
        for p in &programs {
            for (r, m) in p.inputs_read() {
                for c in (0..4).filter(|c| m & (1 << c) != 0) {
                    if !inputs.contains(&(r, c)) {
                        inputs.push((r, c));
                    }
                }
            }
        }
        inputs.sort();
        // The fast decider applies when every alternative compiles and reads the inputs
        // in the same order.
        let tapes: Option<Vec<Tape>> = programs
            .iter()
            .map(|p| Tape::compile(p, out.reg, out.mask, rules).filter(|t| t.inputs == inputs))
            .collect();
        Ok(ProgramJudge {
            programs,
            out,
            rules,
            inputs,
            tapes,
            pool: Mutex::new(Vec::new()),
        })
    }

    /// The same judge without the fast decider: every element through the exact
    /// propagation (the reference the decider is tested against).
    pub fn exact_only(mut self) -> ProgramJudge {
        self.tapes = None;
        self.pool = Mutex::new(Vec::new());
        self
    }

    /// Whether the fast decider applies to this program.
    pub fn has_fast_path(&self) -> bool {
        self.tapes.is_some()
    }

    /// The input components, in the order [`ProgramJudge::judge`] takes their columns.
    pub fn input_components(&self) -> &[(Reg, usize)] {
        &self.inputs
    }

    /// The output register and components.
    pub fn output(&self) -> OutputSel {
        self.out
    }

    /// The output components' names, `r1.x`, in order.
    pub fn output_names(&self) -> Vec<String> {
        (0..4)
            .filter(|c| self.out.mask & (1 << c) != 0)
            .map(|c| component_name(self.out.reg, c))
            .collect()
    }

    /// The input registers with their component counts (`v0` and 3), in order.
    pub fn input_registers(&self) -> Vec<(Reg, usize)> {
        let mut out: Vec<(Reg, usize)> = Vec::new();
        for &(r, c) in &self.inputs {
            match out.last_mut() {
                Some((last, n)) if *last == r => *n = (*n).max(c + 1),
                _ => out.push((r, c + 1)),
            }
        }
        out
    }

    /// Judges `n` elements: `inputs[k]` is the column of input component `k`
    /// ([`ProgramJudge::input_components`]), `results[j]` of output component `j`; keeps
    /// the first `keep` violations.
    pub fn judge(
        &self,
        inputs: &[&[u64]],
        results: &[&[u64]],
        keep: usize,
    ) -> Result<ProgramVerdict, ProgramError> {
        let n = results.first().map_or(0, |r| r.len());
        let outs = self.out.mask.count_ones() as usize;
        if inputs.len() != self.inputs.len()
            || results.len() != outs
            || inputs.iter().any(|c| c.len() != n)
            || results.iter().any(|c| c.len() != n)
        {
            return Err(ProgramError::Input(format!(
                "expected {} input columns and {outs} result columns of one length",
                self.inputs.len()
            )));
        }
        let pieces: Vec<usize> = (0..n).step_by(PIECE).collect();
        // Each worker keeps its working memory from piece to piece (the decider's table
        // of chains, one per alternative, fills once).
        let tapes = self.tapes.as_ref().map_or(0, Vec::len);
        let parts: Vec<Result<ProgramVerdict, ProgramError>> = pieces
            .par_iter()
            .map_init(
                || {
                    let pooled = self.pool.lock().ok().and_then(|mut p| p.pop());
                    let worker = pooled.unwrap_or_else(|| Worker {
                        scratch: (0..tapes).map(|_| Scratch::default()).collect(),
                        engine: PointEngine::new(self.programs[0].format, self.rules),
                    });
                    Lease {
                        pool: &self.pool,
                        worker: Some(worker),
                    }
                },
                |lease, &start| {
                    let end = (start + PIECE).min(n);
                    let worker = lease.worker.as_mut().expect("a lease holds its worker");
                    self.piece(inputs, results, start..end, keep, worker)
                },
            )
            .collect();
        let mut total = ProgramVerdict::default();
        for p in parts {
            let p = p?;
            total.elements += p.elements;
            total.conform += p.conform;
            total.violate += p.violate;
            total.fast += p.fast;
            for v in p.violations {
                if total.violations.len() < keep {
                    total.violations.push(v);
                }
            }
        }
        Ok(total)
    }

    fn piece(
        &self,
        inputs: &[&[u64]],
        results: &[&[u64]],
        range: std::ops::Range<usize>,
        keep: usize,
        worker: &mut Worker,
    ) -> Result<ProgramVerdict, ProgramError> {
        let end = range.end;
        let mut v = ProgramVerdict::default();
        let names = self.output_names();
        // The fast decider over blocks of elements (an element is settled when one
        // alternative settles it); what it leaves goes to the exact path.
        let (mut decided, mut got) = (Vec::new(), Vec::new());
        for block in range.step_by(BLOCK) {
            let len = BLOCK.min(end - block);
            decided.clear();
            decided.resize(len, false);
            if let Some(tapes) = &self.tapes {
                for (t, scratch) in tapes.iter().zip(&mut worker.scratch) {
                    t.decide_block(inputs, results, block, len, scratch, &mut got);
                    for (d, g) in decided.iter_mut().zip(&got) {
                        *d |= *g;
                    }
                }
            }
            v.elements += len as u64;
            for (i, &fast) in (block..).zip(&decided) {
                if fast {
                    v.conform += 1;
                    v.fast += 1;
                    continue;
                }
                let outside = self.outside(inputs, results, i, &mut worker.engine)?;
                if outside.is_empty() {
                    v.conform += 1;
                    continue;
                }
                v.violate += 1;
                for (j, span) in outside {
                    if v.violations.len() < keep {
                        v.violations.push(ProgramViolation {
                            index: i as u64,
                            component: names[j].clone(),
                            result: results[j][i],
                            span,
                        });
                    }
                }
            }
        }
        Ok(v)
    }

    /// Element `i` through the exact propagation: its output components outside their
    /// intervals, with the intervals.
    fn outside(
        &self,
        inputs: &[&[u64]],
        results: &[&[u64]],
        i: usize,
        engine: &mut PointEngine,
    ) -> Result<Vec<(usize, Span)>, ProgramError> {
        let get = |r: Reg, c: usize| {
            self.inputs
                .iter()
                .position(|&x| x == (r, c))
                .map(|k| inputs[k][i])
        };
        let f = self.programs[0].format;
        let sp = spans(&self.programs, &get, self.out, engine)?;
        Ok(sp
            .into_iter()
            .enumerate()
            .filter(|&(j, s)| !s.contains(&f, results[j][i]))
            .collect())
    }
}
