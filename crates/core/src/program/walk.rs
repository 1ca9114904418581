//! Running a program over any kind of lane: one pattern per register component (a chain of
//! choices) or a [`Span`] (every chain at once). The walk reads sources through swizzles and
//! modifiers, calls the step for each written component and applies `_sat`; what a step
//! returns is the caller's business.

use std::collections::HashMap;

use super::ProgramError;
use super::ast::{COMPONENTS, Instr, Opcode, Program, Reg, RegFile, Source};
use super::span::Span;
use crate::d3d::{Domain, Op, PerOutput, Vector};
use crate::format::FloatFormat;

/// What one register component may hold while a program runs.
pub trait Lane: Clone + std::fmt::Debug {
    /// A literal's pattern.
    fn literal(format: &FloatFormat, bits: u64) -> Self;
    /// `-x` (§22.18.2): the sign flipped, NaN kept NaN.
    fn neg(self, format: &FloatFormat) -> Self;
    /// `|x|` (§22.18.1): the sign cleared, NaN kept NaN.
    fn abs(self, format: &FloatFormat) -> Self;
}

impl Lane for Span {
    fn literal(format: &FloatFormat, bits: u64) -> Span {
        Span::point(format, bits)
    }
    fn neg(self, _: &FloatFormat) -> Span {
        Span::negate(self)
    }
    fn abs(self, _: &FloatFormat) -> Span {
        Span::abs(self)
    }
}

/// One pattern: a single chain's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Bits(pub u64);

impl Lane for Bits {
    fn literal(_: &FloatFormat, bits: u64) -> Bits {
        Bits(bits)
    }
    fn neg(self, format: &FloatFormat) -> Bits {
        Bits(self.0 ^ format.sign_bit())
    }
    fn abs(self, format: &FloatFormat) -> Bits {
        Bits(self.0 & !format.sign_bit())
    }
}

/// What a step computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Step {
    /// An instruction under its D3D rule; `_sat` arrives as [`Op::Max`] with +0 then
    /// [`Op::Min`] with 1.0 (§22.19.1: "min(1.0f, max(0.0f, value))" with their rules).
    Op(Op),
    /// A `mov` with a modifier: a floating-point operation, so a subnormal result may be
    /// flushed (the spec only says that a `mov` without modifiers keeps the bits, §22.9.1;
    /// both readings are allowed).
    Move,
}

/// A step function: one instruction on one component's operands.
pub type StepFn<'a, L> = dyn FnMut(Step, &[Vector<L>]) -> Result<PerOutput<L>, ProgramError> + 'a;

/// The registers after a run: each component written so far.
pub type Registers<L> = HashMap<Reg, [Option<L>; 4]>;

/// Runs `program`; `input(reg, c)` gives an input component, `step` computes one
/// instruction on one component's operands (a dot product's operands are vectors).
pub fn run<L: Lane>(
    program: &Program,
    input: &mut dyn FnMut(Reg, usize) -> Option<L>,
    step: &mut StepFn<'_, L>,
) -> Result<Registers<L>, ProgramError> {
    let f = program.format;
    let mut regs: Registers<L> = HashMap::new();
    for ins in &program.instrs {
        let mask = ins.dest_mask();
        let reads = ins.components_read();
        let mut writes: Vec<(Reg, usize, L)> = Vec::new();
        let dot = ins.dot_width().is_some();
        let mut dot_result: Option<PerOutput<L>> = None;
        for c in (0..4).filter(|c| mask & (1 << c) != 0) {
            let out = match (&dot_result, dot) {
                (Some(r), true) => r.clone(),
                _ => {
                    let mut args: Vec<Vector<L>> = Vec::with_capacity(ins.srcs.len());
                    for (k, src) in ins.srcs.iter().enumerate() {
                        let comps: Vector<usize> = if dot {
                            reads[k].iter().copied().collect()
                        } else {
                            std::iter::once(c).collect()
                        };
                        let mut v = Vector::new();
                        for pos in comps {
                            let mut lane = match &src.source {
                                Source::Literal(bits) => L::literal(&f, bits[pos]),
                                Source::Reg { reg, swizzle } => {
                                    read(&regs, input, ins, *reg, swizzle[pos] as usize)?
                                }
                            };
                            if src.abs {
                                lane = lane.abs(&f);
                            }
                            if src.neg {
                                lane = lane.neg(&f);
                            }
                            v.push(lane);
                        }
                        args.push(v);
                    }
                    let mut out = match ins.opcode {
                        Opcode::Mov => {
                            let s = &ins.srcs[0];
                            if s.abs || s.neg {
                                step(Step::Move, &args)?
                            } else {
                                std::iter::once(args[0][0].clone()).collect()
                            }
                        }
                        Opcode::Op(op) => step(Step::Op(op), &args)?,
                    };
                    if ins.sat {
                        for v in out.iter_mut() {
                            *v = saturate(v.clone(), &f, step)?;
                        }
                    }
                    if dot {
                        dot_result = Some(out.clone());
                    }
                    out
                }
            };
            for (k, d) in ins.dests.iter().enumerate() {
                if let Some(d) = d
                    && d.mask & (1 << c) != 0
                {
                    writes.push((d.reg, c, out[k.min(out.len() - 1)].clone()));
                }
            }
        }
        for (reg, c, v) in writes {
            regs.entry(reg)
                .or_insert_with(|| std::array::from_fn(|_| None))[c] = Some(v);
        }
    }
    Ok(regs)
}

/// `_sat`: `min(1.0, max(0.0, x))` through the two instructions' own rules (§22.19.1).
fn saturate<L: Lane>(v: L, f: &FloatFormat, step: &mut StepFn<'_, L>) -> Result<L, ProgramError> {
    let zero = L::literal(f, 0);
    let one = L::literal(f, one_bits(f));
    let m = step(
        Step::Op(Op::Max),
        &[
            std::iter::once(v).collect(),
            std::iter::once(zero).collect(),
        ],
    )?[0]
        .clone();
    Ok(step(
        Step::Op(Op::Min),
        &[std::iter::once(m).collect(), std::iter::once(one).collect()],
    )?[0]
        .clone())
}

/// The pattern of 1.0 in `f`.
pub fn one_bits(f: &FloatFormat) -> u64 {
    f.assemble(false, f.bias as u32, 0)
}

fn read<L: Lane>(
    regs: &Registers<L>,
    input: &mut dyn FnMut(Reg, usize) -> Option<L>,
    ins: &Instr,
    reg: Reg,
    c: usize,
) -> Result<L, ProgramError> {
    if reg.file == RegFile::Input {
        return input(reg, c).ok_or_else(|| {
            ProgramError::Input(format!(
                "'{}' reads {reg}.{}, which no input gives",
                ins.text, COMPONENTS[c]
            ))
        });
    }
    regs.get(&reg)
        .and_then(|r| r[c].clone())
        .ok_or_else(|| ProgramError::Instruction {
            text: ins.text.clone(),
            why: format!("reads {reg}.{} before anything writes it", COMPONENTS[c]),
        })
}

/// The key of a pattern of `f` (`None` for NaN).
pub fn key(f: &FloatFormat, bits: u64) -> Option<i64> {
    Domain::Float(*f).key(bits)
}
