//! A program's answer: per output component the interval every chain of per-instruction
//! choices lands in, the correctly rounded exact value, and the reachable set where it is
//! small.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::ProgramError;
use super::ast::{COMPONENTS, Program, Reg, RegFile};
use super::interval::PointEngine;
use super::real::{self, Real};
use super::span::Span;
use super::walk::{self, Bits, Lane, Step};
use crate::d3d::{Domain, PerOutput, RuleSet, Vector};
use crate::format::FloatFormat;
use crate::input::read_operand;

/// The most chains [`reachable`] runs before it gives up on listing the set.
pub const SET_BUDGET: u64 = 20_000;

/// The most steps (instructions, over every chain) [`reachable`] runs before it gives up,
/// so that a long program costs no more than [`SET_BUDGET`] chains of 64 steps.
pub const SET_STEP_BUDGET: u64 = SET_BUDGET * 64;

/// The most distinct (step, operands) allowed sets [`reachable`] keeps at once.
const CHOICE_CACHE: usize = 1 << 16;

/// A step's allowed sets by the step and its operands' patterns.
type ChoiceCache = HashMap<(Step, Vec<Vec<u64>>), Vec<Vec<u64>>>;

/// The values of a program's inputs: a pattern per component.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Inputs {
    /// Per input register, its components (x, y, ...) given.
    pub values: BTreeMap<Reg, Vec<u64>>,
}

impl Inputs {
    /// Reads `v0=1,2,3` (values rounded to nearest even, or `0x` patterns of the format's
    /// width) for each text.
    pub fn parse(texts: &[&str], format: &FloatFormat) -> Result<Inputs, ProgramError> {
        let mut inputs = Inputs::default();
        for t in texts {
            let (name, values) = t.split_once('=').ok_or_else(|| {
                ProgramError::Input(format!("'{t}' is not REGISTER=VALUES (v0=1,2,3)"))
            })?;
            let (reg, mask) = super::asm::parse_output(name)?;
            if reg.file != RegFile::Input || mask.is_some() {
                return Err(ProgramError::Input(format!(
                    "'{name}' is not an input register (v0, v1, ...)"
                )));
            }
            let comps: Vec<&str> = values.split(',').map(str::trim).collect();
            if comps.is_empty() || comps.len() > 4 || comps.iter().any(|c| c.is_empty()) {
                return Err(ProgramError::Input(format!(
                    "'{t}' needs one to four values separated by commas"
                )));
            }
            let mut bits = Vec::new();
            for c in comps {
                bits.push(
                    read_operand(c, &Domain::Float(*format))
                        .map_err(|e| ProgramError::Input(format!("{name} value '{c}': {e}")))?
                        .bits,
                );
            }
            if inputs.values.insert(reg, bits).is_some() {
                return Err(ProgramError::Input(format!("{name} is given twice")));
            }
        }
        Ok(inputs)
    }

    /// One component, if given.
    pub fn get(&self, reg: Reg, c: usize) -> Option<u64> {
        self.values.get(&reg).and_then(|v| v.get(c).copied())
    }
}

/// The answer for one output component.
#[derive(Clone, Debug, PartialEq)]
pub struct ComponentAnswer {
    /// Its name, `r1.x` (`o0.x` for an expression).
    pub component: String,
    /// The interval (and NaN) a conforming implementation may return.
    pub span: Span,
    /// The exact expression's value rounded to nearest even in the format.
    pub exact: u64,
    /// The exact value as the nearest `f64`, for display.
    pub exact_approx: f64,
    /// Every pattern some chain of choices returns, ascending by value, when at most
    /// [`SET_BUDGET`] chains enumerate it; `None` otherwise.
    pub set: Option<Vec<u64>>,
}

/// Which components of which register a query reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutputSel {
    /// The register.
    pub reg: Reg,
    /// Its components (bit mask).
    pub mask: u8,
}

/// Chooses the output: `requested` (a register and maybe components) or the program's
/// last destination, restricted to the components written.
pub fn select_output(
    program: &Program,
    requested: Option<(Reg, Option<u8>)>,
) -> Result<OutputSel, ProgramError> {
    let (reg, mask) = match requested {
        Some(r) => r,
        None => (
            program
                .last_dest()
                .ok_or_else(|| ProgramError::Output("the program writes nothing".into()))?,
            None,
        ),
    };
    let written = program.written(reg);
    if written == 0 {
        return Err(ProgramError::Output(format!("no instruction writes {reg}")));
    }
    let mask = match mask {
        None => written,
        Some(m) if m & !written != 0 => {
            let missing: String = (0..4)
                .filter(|c| m & !written & (1 << c) != 0)
                .map(|c| COMPONENTS[c])
                .collect();
            return Err(ProgramError::Output(format!(
                "no instruction writes {reg}.{missing}"
            )));
        }
        Some(m) => m,
    };
    Ok(OutputSel { reg, mask })
}

/// The interval of every output component over every chain (the union over the
/// alternatives).
pub fn spans(
    programs: &[Program],
    inputs: &dyn Fn(Reg, usize) -> Option<u64>,
    out: OutputSel,
    engine: &mut PointEngine,
) -> Result<Vec<Span>, ProgramError> {
    let mut acc: Vec<Span> = vec![Span::EMPTY; 4];
    for p in programs {
        let f = p.format;
        let regs = walk::run::<Span>(
            p,
            &mut |r, c| inputs(r, c).map(|b| Span::point(&f, b)),
            &mut |s, a| engine.step(s, a),
        )?;
        for c in (0..4).filter(|c| out.mask & (1 << c) != 0) {
            let v = regs.get(&out.reg).and_then(|r| r[c]).ok_or_else(|| {
                ProgramError::Output(format!("{}.{} is not written", out.reg, COMPONENTS[c]))
            })?;
            acc[c] = acc[c].union(v);
        }
    }
    Ok((0..4)
        .filter(|c| out.mask & (1 << c) != 0)
        .map(|c| acc[c])
        .collect())
}

/// The exact expression's value of each output component (the first program's; the
/// alternatives compute the same real function).
pub fn exact_values(
    program: &Program,
    inputs: &dyn Fn(Reg, usize) -> Option<u64>,
    out: OutputSel,
) -> Result<Vec<(u64, f64)>, ProgramError> {
    let f = program.format;
    let mut cc = real::consts();
    let regs = walk::run::<Real>(
        program,
        &mut |r, c| inputs(r, c).map(|b| Real::literal(&f, b)),
        &mut |s, a| real::step(s, a, &mut cc),
    )?;
    Ok((0..4)
        .filter(|c| out.mask & (1 << c) != 0)
        .map(|c| {
            let v = &regs[&out.reg][c].as_ref().expect("written").0;
            (real::nearest(&f, v), real::approx(v))
        })
        .collect())
}

/// The allowed set of one step at one point, as patterns: what a chain may pick.
pub fn step_choices(
    engine: &PointEngine,
    step: Step,
    args: &[Vector<Bits>],
) -> Result<Vec<Vec<u64>>, ProgramError> {
    let f = engine.format();
    let d = Domain::Float(f);
    match step {
        Step::Move => {
            let b = args[0][0].0;
            let mut out = vec![b];
            let v = f.to_f64(b);
            if f.arithmetic_flushes_subnormals && v != 0.0 && v.abs() < f.min_normal_value() {
                out.push(b & f.sign_bit());
            }
            Ok(vec![out])
        }
        Step::Op(op) => {
            let a: Vec<Vec<u64>> = args
                .iter()
                .map(|v| v.iter().map(|b| b.0).collect())
                .collect();
            let sets = engine.allowed(op, &a)?;
            Ok(sets
                .iter()
                .map(|s| {
                    let mut v: Vec<u64> = Vec::new();
                    for &(lo, hi) in s.key_ranges() {
                        // Wide ranges (a NaN operand's set is NaN alone; wide sets only
                        // come with large tolerances): the ends and the middle.
                        if hi - lo <= 64 {
                            v.extend((lo..=hi).map(|k| d.bits(k)));
                        } else {
                            v.extend([lo, lo + 1, (lo + hi) / 2, hi - 1, hi].map(|k| d.bits(k)));
                        }
                    }
                    if s.nan {
                        v.push(f.quiet_nan());
                    }
                    v
                })
                .collect())
        }
    }
}

/// Picks one pattern of each output's allowed set at a step.
pub type Chooser<'a> = dyn FnMut(Step, &[Vec<u64>]) -> PerOutput<u64> + 'a;

/// Runs one chain: at each step `choose(step, choices)` picks one pattern of each output's
/// allowed set.
pub fn chain(
    program: &Program,
    inputs: &dyn Fn(Reg, usize) -> Option<u64>,
    out: OutputSel,
    engine: &PointEngine,
    choose: &mut Chooser<'_>,
) -> Result<Vec<u64>, ProgramError> {
    chain_with(
        program,
        inputs,
        out,
        &mut |s, a| step_choices(engine, s, a),
        choose,
    )
}

/// Each step's allowed sets from its operands, as [`step_choices`] gives them.
type Choices<'a> = dyn FnMut(Step, &[Vector<Bits>]) -> Result<Vec<Vec<u64>>, ProgramError> + 'a;

/// [`chain`] with the allowed sets from `choices` (a cache of [`step_choices`], say).
fn chain_with(
    program: &Program,
    inputs: &dyn Fn(Reg, usize) -> Option<u64>,
    out: OutputSel,
    choices: &mut Choices<'_>,
    choose: &mut Chooser<'_>,
) -> Result<Vec<u64>, ProgramError> {
    let regs = walk::run::<Bits>(program, &mut |r, c| inputs(r, c).map(Bits), &mut |s, a| {
        let allowed = choices(s, a)?;
        Ok(choose(s, &allowed).into_iter().map(Bits).collect())
    })?;
    Ok((0..4)
        .filter(|c| out.mask & (1 << c) != 0)
        .map(|c| regs[&out.reg][c].expect("written").0)
        .collect())
}

/// Every output pattern any chain of choices returns, per output component, by running
/// every chain (an odometer over each step's choices); `None` beyond `budget` chains or
/// [`SET_STEP_BUDGET`] steps.
pub fn reachable(
    program: &Program,
    inputs: &dyn Fn(Reg, usize) -> Option<u64>,
    out: OutputSel,
    engine: &PointEngine,
    budget: u64,
) -> Result<Option<Vec<BTreeSet<u64>>>, ProgramError> {
    let mut digits: Vec<usize> = Vec::new();
    let mut sizes: Vec<usize> = Vec::new();
    let mut sets: Vec<BTreeSet<u64>> = Vec::new();
    let mut runs = 0u64;
    let mut steps = 0u64;
    // Chains share their prefixes, so most steps meet operands an earlier chain met: their
    // allowed sets are looked up rather than computed again.
    let mut cache = ChoiceCache::new();
    loop {
        runs += 1;
        if runs > budget || steps > SET_STEP_BUDGET {
            return Ok(None);
        }
        let mut pos = 0usize;
        let mut cached = |s: Step, a: &[Vector<Bits>]| {
            steps += 1;
            let key = (
                s,
                a.iter().map(|v| v.iter().map(|b| b.0).collect()).collect(),
            );
            if let Some(c) = cache.get(&key) {
                return Ok(c.clone());
            }
            let c = step_choices(engine, s, a)?;
            if cache.len() >= CHOICE_CACHE {
                cache.clear();
            }
            cache.insert(key, c.clone());
            Ok(c)
        };
        let got = chain_with(program, inputs, out, &mut cached, &mut |_, choices| {
            choices
                .iter()
                .map(|c| {
                    if pos == digits.len() {
                        digits.push(0);
                        sizes.push(c.len());
                    }
                    sizes[pos] = c.len();
                    let pick = c[digits[pos].min(c.len() - 1)];
                    pos += 1;
                    pick
                })
                .collect()
        })?;
        digits.truncate(pos);
        sizes.truncate(pos);
        if sets.is_empty() {
            sets = vec![BTreeSet::new(); got.len()];
        }
        for (s, g) in sets.iter_mut().zip(got) {
            s.insert(g);
        }
        // Advance the last digit that has room; later digits restart (their sets may
        // differ under the new prefix, which the next run measures).
        let mut k = digits.len();
        loop {
            if k == 0 {
                return Ok(Some(sets));
            }
            k -= 1;
            if digits[k] + 1 < sizes[k] {
                digits[k] += 1;
                digits.truncate(k + 1);
                sizes.truncate(k + 1);
                break;
            }
        }
    }
}

/// The whole answer for one set of inputs: interval, exact value and small set per output
/// component.
pub fn analyze(
    programs: &[Program],
    inputs: &Inputs,
    requested: Option<(Reg, Option<u8>)>,
    rules: RuleSet,
) -> Result<(OutputSel, Vec<ComponentAnswer>), ProgramError> {
    let first = programs.first().ok_or(ProgramError::Empty)?;
    let out = select_output(first, requested)?;
    for p in &programs[1..] {
        select_output(p, Some((out.reg, Some(out.mask))))?;
    }
    let get = |r: Reg, c: usize| inputs.get(r, c);
    let mut engine = PointEngine::new(first.format, rules);
    let spans = spans(programs, &get, out, &mut engine)?;
    let exact = exact_values(first, &get, out)?;
    let mut sets: Option<Vec<BTreeSet<u64>>> = Some(vec![BTreeSet::new(); spans.len()]);
    for p in programs {
        // Once one alternative's set is too large to list, the union is too.
        if sets.is_none() {
            break;
        }
        let got = reachable(p, &get, out, &engine, SET_BUDGET)?;
        sets = match (sets, got) {
            (Some(mut a), Some(b)) => {
                for (x, y) in a.iter_mut().zip(b) {
                    x.extend(y);
                }
                Some(a)
            }
            _ => None,
        };
    }
    let d = Domain::Float(first.format);
    let comps: Vec<usize> = (0..4).filter(|c| out.mask & (1 << c) != 0).collect();
    Ok((
        out,
        comps
            .iter()
            .enumerate()
            .map(|(i, &c)| ComponentAnswer {
                component: super::asm::component_name(out.reg, c),
                span: spans[i],
                exact: exact[i].0,
                exact_approx: exact[i].1,
                set: sets.as_ref().map(|s| {
                    let mut v: Vec<u64> = s[i].iter().copied().collect();
                    v.sort_by_key(|&b| d.key(b).unwrap_or(i64::MAX));
                    v
                }),
            })
            .collect(),
    ))
}
