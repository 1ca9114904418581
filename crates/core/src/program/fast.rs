//! The fast decider for whole buffers of 32-bit results: chains of choices computed in
//! native arithmetic, each choice provably inside its instruction's allowed set, so that a
//! result between two chains' results lies inside the program's interval (which holds
//! every chain). A result outside them, or any value the decider does not handle
//! (a zero, a subnormal, an infinity, a NaN, an instruction without a fast rule), goes to
//! the exact propagation; `None` is never a verdict.
//!
//! The choices, for normal operands and results only:
//! - add and mul under D3D11's 0.5 ULP (§3.1.3.1): the correctly rounded result; under
//!   D3D10's 1 ULP, either neighbour of the exact result (two-sum and the exact `f64`
//!   product tell them);
//! - mad and the dot products: one serial order (left to right), each step rounded down,
//!   to nearest or up: every step's neighbour is within its 1 ULP (§3.1.3.2);
//! - rsq: the patterns just inside 2^-21 of the exact value (§22.10.19), from an `f64`
//!   value within 2^-50 of it and a margin of 2^-40;
//! - sqrt: either neighbour of the exact root (1 ULP, §22.10.21); rcp and div (D3D11): the
//!   correctly rounded result; min, max and the modifiers exactly.
//!
//! Which end each step takes follows, for each output component, the sign of its effect
//! on that component (a backward pass over the nearest chain): the low chain takes each
//! step's low choice where raising the step raises the output, and so on.

use super::ast::{Opcode, Program, Reg, RegFile, Source};
use crate::d3d::{Op, RuleSet};

/// Where a tape operand comes from: a slot, with its modifiers.
#[derive(Clone, Copy, Debug)]
struct Arg {
    slot: usize,
    abs: bool,
    neg: bool,
}

/// One scalar step of the tape.
#[derive(Clone, Debug)]
struct TapeOp {
    op: Option<Op>, // None: mov
    args: smallvec::SmallVec<[Arg; 8]>,
    dst: usize,
    sat: bool,
}

/// A program compiled to scalar steps over numbered slots (inputs first, then literals,
/// then each written component).
#[derive(Clone, Debug)]
pub struct Tape {
    ops: Vec<TapeOp>,
    slots: usize,
    literals: Vec<(usize, f32)>,
    /// The slots of the output components, in order.
    pub outputs: Vec<usize>,
    /// The input components, in order of their slots.
    pub inputs: Vec<(Reg, usize)>,
    d3d10: bool,
    /// Per step, how far it is from an output: 0 for a step writing one, else one more
    /// than the nearest step reading it (`usize::MAX` for a step no output reads).
    depth: Vec<usize>,
    /// The slots rsq steps write (whose roots a push may reuse).
    root_slots: Vec<usize>,
    /// Per slot, its place in `root_slots`.
    root_index: Vec<Option<usize>>,
    /// The slots whose signs [`Tape::directions`] reads (the operands of the steps
    /// whose effect's sign depends on them).
    sign_slots: Vec<usize>,
}

impl Tape {
    /// Compiles a 32-bit program; `None` when it holds an instruction the decider does not
    /// handle (the exact propagation judges every element then).
    pub fn compile(program: &Program, out_reg: Reg, out_mask: u8, rules: RuleSet) -> Option<Tape> {
        if program.format.width() != 32 {
            return None;
        }
        let inputs: Vec<(Reg, usize)> = program
            .inputs_read()
            .iter()
            .flat_map(|&(r, m)| {
                (0..4)
                    .filter(move |c| m & (1 << c) != 0)
                    .map(move |c| (r, c))
            })
            .collect();
        let mut slots = inputs.len();
        let mut current: std::collections::HashMap<(Reg, usize), usize> =
            inputs.iter().enumerate().map(|(i, &rc)| (rc, i)).collect();
        let mut literals = Vec::new();
        let mut ops = Vec::new();
        for ins in &program.instrs {
            let op = match ins.opcode {
                Opcode::Mov => None,
                Opcode::Op(op) => {
                    let ok = matches!(
                        op,
                        Op::Add
                            | Op::Sub
                            | Op::Mul
                            | Op::Mad
                            | Op::Dp2
                            | Op::Dp3
                            | Op::Dp4
                            | Op::Min
                            | Op::Max
                            | Op::Rsq
                            | Op::Sqrt
                            | Op::Rcp
                    ) || (op == Op::Div && rules == RuleSet::D3D11);
                    if !ok {
                        return None;
                    }
                    Some(op)
                }
            };
            let reads = ins.components_read();
            let dest = ins.dests.first().copied().flatten()?;
            let mut pending = Vec::new();
            let mut dot_slot: Option<usize> = None;
            for c in dest.components() {
                if let (Some(s), Some(_)) = (dot_slot, ins.dot_width()) {
                    pending.push(((dest.reg, c), s));
                    continue;
                }
                let mut args = smallvec::SmallVec::new();
                for (k, src) in ins.srcs.iter().enumerate() {
                    let comps: Vec<usize> = if ins.dot_width().is_some() {
                        reads[k].clone()
                    } else {
                        vec![c]
                    };
                    for pos in comps {
                        let slot = match &src.source {
                            Source::Literal(bits) => {
                                let s = slots;
                                slots += 1;
                                literals.push((s, f32::from_bits(bits[pos] as u32)));
                                s
                            }
                            Source::Reg { reg, swizzle } => {
                                *current.get(&(*reg, swizzle[pos] as usize))?
                            }
                        };
                        args.push(Arg {
                            slot,
                            abs: src.abs,
                            neg: src.neg,
                        });
                    }
                }
                let dst = slots;
                slots += 1;
                ops.push(TapeOp {
                    op,
                    args,
                    dst,
                    sat: ins.sat,
                });
                if ins.dot_width().is_some() {
                    dot_slot = Some(dst);
                }
                pending.push(((dest.reg, c), dst));
            }
            for (rc, s) in pending {
                current.insert(rc, s);
            }
        }
        let outputs = (0..4)
            .filter(|c| out_mask & (1 << c) != 0)
            .map(|c| current.get(&(out_reg, c)).copied())
            .collect::<Option<Vec<usize>>>()?;
        if out_reg.file == RegFile::Input {
            return None;
        }
        let mut depth = vec![usize::MAX; ops.len()];
        let mut slot_depth = vec![usize::MAX; slots];
        for &o in &outputs {
            slot_depth[o] = 0;
        }
        for (i, t) in ops.iter().enumerate().rev() {
            depth[i] = slot_depth[t.dst];
            if depth[i] != usize::MAX {
                for a in &t.args {
                    slot_depth[a.slot] = slot_depth[a.slot].min(depth[i] + 1);
                }
            }
        }
        let root_slots = ops
            .iter()
            .filter(|t| t.op == Some(Op::Rsq))
            .map(|t| t.dst)
            .collect::<Vec<usize>>();
        let mut root_index = vec![None; slots];
        for (i, &sl) in root_slots.iter().enumerate() {
            root_index[sl] = Some(i);
        }
        let mut sign_slots: Vec<usize> = ops
            .iter()
            .filter(|t| fixed_effect(t.op).is_none())
            .flat_map(|t| t.args.iter().map(|a| a.slot))
            .chain(
                ops.iter()
                    .flat_map(|t| t.args.iter().filter(|a| a.abs).map(|a| a.slot)),
            )
            .collect();
        sign_slots.sort_unstable();
        sign_slots.dedup();
        Some(Tape {
            ops,
            slots,
            literals,
            outputs,
            inputs,
            d3d10: rules == RuleSet::D3D10,
            root_slots,
            root_index,
            sign_slots,
            depth,
        })
    }

    /// Whether the results of the elements `start .. start + len` of columns (inputs in
    /// [`Tape::inputs`] order, results per output component) lie between chains'
    /// results: `decided[e]` is true for an element whose every component does (it
    /// conforms for certain); false sends it to the exact propagation. The nearest chains
    /// run step by step over the whole block (slot after slot, each slot's values for the
    /// block side by side, so that the common steps run as vector loops), then each
    /// element off its nearest chain is settled alone.
    pub fn decide_block(
        &self,
        inputs: &[&[u64]],
        results: &[&[u64]],
        start: usize,
        len: usize,
        scratch: &mut Scratch,
        decided: &mut Vec<bool>,
    ) {
        scratch.prepare(self);
        decided.clear();
        decided.resize(len, true);
        scratch.block_near.resize(self.slots * len, 0.0);
        scratch.block_root_x.resize(self.root_slots.len() * len, 0);
        scratch.block_root.resize(self.root_slots.len() * len, 0.0);
        for (k, col) in inputs.iter().enumerate() {
            let dst = &mut scratch.block_near[k * len..(k + 1) * len];
            for ((d, &c), ok) in dst
                .iter_mut()
                .zip(&col[start..start + len])
                .zip(&mut *decided)
            {
                let v = f32::from_bits(c as u32);
                *d = v;
                *ok &= normal(v);
            }
        }
        for &(sl, v) in &self.literals {
            scratch.block_near[sl * len..(sl + 1) * len].fill(v);
            if !normal(v) {
                decided.fill(false);
            }
        }
        for t in &self.ops {
            if self.near_block(t, len, scratch, decided) {
                continue;
            }
            let root_at = self.root_index[t.dst];
            for e in 0..len {
                if !decided[e] {
                    continue;
                }
                let near = &scratch.block_near;
                let mut root = match root_at {
                    Some(i) => (
                        scratch.block_root_x[i * len + e],
                        scratch.block_root[i * len + e],
                    ),
                    None => (0, 0.0),
                };
                let v = self.choose(t, |sl| near[sl * len + e], Dir::Near, &mut root);
                if let Some(i) = root_at {
                    (
                        scratch.block_root_x[i * len + e],
                        scratch.block_root[i * len + e],
                    ) = root;
                }
                match v {
                    Some(v) => scratch.block_near[t.dst * len + e] = v,
                    None => decided[e] = false,
                }
            }
        }
        // Results on the nearest chain conform at once (the common case).
        scratch.on_near.clear();
        scratch.on_near.resize(len, true);
        for (k, col) in results.iter().enumerate() {
            let near = &scratch.block_near[self.outputs[k] * len..][..len];
            for ((on, &r), v) in scratch
                .on_near
                .iter_mut()
                .zip(&col[start..start + len])
                .zip(near)
            {
                *on &= r as u32 == v.to_bits();
            }
        }
        let mut res = [0u32; 4];
        for (e, ok) in decided.iter_mut().enumerate() {
            if !*ok || scratch.on_near[e] {
                continue;
            }
            for (k, col) in results.iter().enumerate() {
                res[k] = col[start + e] as u32;
            }
            for sl in 0..self.slots {
                let v = scratch.block_near[sl * len + e];
                scratch.chain.near[sl] = v;
                scratch.chain.val[sl] = v;
            }
            for (i, &sl) in self.root_slots.iter().enumerate() {
                scratch.chain.roots[sl] = (
                    scratch.block_root_x[i * len + e],
                    scratch.block_root[i * len + e],
                );
            }
            *ok = self.settle(&res[..results.len()], scratch) == Some(true);
        }
    }

    /// The nearest choice of the common steps over a whole block, the instruction matched
    /// once: the same values as [`Tape::choose`] with [`Dir::Near`] (tested through
    /// `tests/program_buffers.rs`). False for a step it leaves to `choose`.
    fn near_block(&self, t: &TapeOp, len: usize, s: &mut Scratch, ok: &mut [bool]) -> bool {
        if t.sat {
            return false;
        }
        // Every operand's slot precedes the slot a step writes (slots are numbered as the
        // tape is built).
        let (before, after) = s.block_near.split_at_mut(t.dst * len);
        let dst = &mut after[..len];
        let ok = &mut ok[..len];
        let arg = |i: usize| {
            let a = &t.args[i];
            debug_assert!(a.slot < t.dst);
            (&before[a.slot * len..][..len], masks(a))
        };
        match t.op {
            Some(Op::Mul) => {
                let ((a, ma), (b, mb)) = (arg(0), arg(1));
                for e in 0..len {
                    let v = apply(a[e], ma) * apply(b[e], mb);
                    dst[e] = v;
                    ok[e] &= normal(v);
                }
            }
            Some(Op::Add) => {
                let ((a, ma), (b, mb)) = (arg(0), arg(1));
                for e in 0..len {
                    let v = apply(a[e], ma) + apply(b[e], mb);
                    dst[e] = v;
                    ok[e] &= normal(v);
                }
            }
            Some(Op::Dp2 | Op::Dp3 | Op::Dp4) => {
                let w = t.args.len() / 2;
                let ((a, ma), (b, mb)) = (arg(0), arg(w));
                for e in 0..len {
                    dst[e] = apply(a[e], ma) * apply(b[e], mb);
                }
                for i in 1..w {
                    let ((a, ma), (b, mb)) = (arg(i), arg(i + w));
                    for e in 0..len {
                        let p = apply(a[e], ma) * apply(b[e], mb);
                        ok[e] &= normal(dst[e]) & normal(p);
                        dst[e] += p;
                    }
                }
                for e in 0..len {
                    ok[e] &= normal(dst[e]);
                }
            }
            Some(Op::Rsq) => {
                let (a, ma) = arg(0);
                let Some(i) = self.root_index[t.dst] else {
                    return false;
                };
                let xs = &mut s.block_root_x[i * len..][..len];
                let roots = &mut s.block_root[i * len..][..len];
                for e in 0..len {
                    let x = apply(a[e], ma);
                    let r = 1.0 / (x as f64).sqrt();
                    xs[e] = x.to_bits();
                    roots[e] = r;
                    let v = r as f32;
                    dst[e] = v;
                    ok[e] &= (x > 0.0) & normal(v);
                }
            }
            _ => return false,
        }
        true
    }

    /// One element, with its nearest chain in `scratch.near`: whether every result lies
    /// between it and a pushed chain (`None`: the exact path decides).
    fn settle(&self, results: &[u32], scratch: &mut Scratch) -> Option<bool> {
        // Which components lie off the nearest chain, and on which side.
        let (mut need, mut up) = (0u8, 0u8);
        for (k, &slot) in self.outputs.iter().enumerate() {
            let r = f32::from_bits(results[k]);
            let n = scratch.chain.near[slot];
            if r.to_bits() == n.to_bits() {
                continue;
            }
            if !r.is_finite() {
                return None;
            }
            need |= 1 << k;
            up |= ((r > n) as u8) << k;
        }
        if need == 0 {
            return Some(true);
        }
        // The signs of the nearest chain's values fix every step's direction: the cones
        // of a sign pattern are worked out once and kept.
        let mut signs = 0u64;
        if self.slots <= 64 {
            for &i in &self.sign_slots {
                signs |= ((scratch.chain.near[i] < 0.0) as u64) << i;
            }
        }
        let entry = self.runs(signs, need, up, scratch)?;
        let Scratch { table, chain, .. } = scratch;
        for run in &table[entry].runs {
            // The steps nearest the outputs first (a device's error is mostly its last
            // approximations'): a chain that pushes only them is as valid as the whole
            // one, and cheaper; the whole push when it does not reach.
            let inside = (run.short.len() < run.steps.len()
                && self.push(&run.short, run.outs, up, results, chain))
                || self.push(&run.steps, run.outs, up, results, chain);
            if !inside {
                return None;
            }
        }
        Some(true)
    }

    /// Runs `steps` (each pushed its way) from the nearest chain and says whether every
    /// component of `outs` lies between the nearest chain and the pushed one. `c.val`
    /// holds the nearest chain before and after.
    fn push(
        &self,
        steps: &[(usize, bool)],
        outs: u8,
        up: u8,
        results: &[u32],
        c: &mut Chain,
    ) -> bool {
        // No early exit: a step outside the decider's ground gives NaN, which fails the
        // step's check and the comparisons after it.
        let mut ok = true;
        for &(i, dir_up) in steps {
            let t = &self.ops[i];
            let dir = if dir_up { Dir::Up } else { Dir::Down };
            let val = &c.val;
            let v = self
                .choose(t, |sl| val[sl], dir, &mut c.roots[t.dst])
                .unwrap_or(f32::NAN);
            ok &= normal(v);
            c.val[t.dst] = v;
        }
        // Every component of `outs` on its side of the pushed chain (no branch per
        // component: which ones are off the nearest chain, and where, is data).
        for (k, &slot) in self.outputs.iter().enumerate() {
            let r = f32::from_bits(results[k]);
            let e = c.val[slot];
            let side = if up & (1 << k) != 0 { r <= e } else { r >= e };
            ok &= side | (outs & (1 << k) == 0);
        }
        for &(i, _) in steps {
            let d = self.ops[i].dst;
            c.val[d] = c.near[d];
        }
        ok
    }

    /// The chains that push the components in `need` toward their sides (`up`), for the
    /// sign pattern `signs` of the nearest chain: components whose pushes agree on every
    /// shared step share one chain. Worked out once per pattern and kept in a small
    /// table; the index of its entry.
    fn runs(&self, signs: u64, need: u8, up: u8, s: &mut Scratch) -> Option<usize> {
        let key = (signs, need, up);
        let h = (signs
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .wrapping_add((((need as u64) << 8) | up as u64).wrapping_mul(0xff51_afd7_ed55_8ccd))
            >> 52) as usize
            % TABLE;
        if self.slots <= 64 && s.table[h].key == Some(key) {
            return Some(h);
        }
        let mut merged: Vec<(Vec<i8>, u8)> = Vec::new();
        for k in 0..self.outputs.len() {
            if need & (1 << k) == 0 {
                continue;
            }
            self.directions(self.outputs[k], up & (1 << k) != 0, s)?;
            let fits = merged.iter_mut().find(|(d, _)| {
                d.iter()
                    .zip(&s.dir)
                    .all(|(&a, &b)| a == 0 || b == 0 || a == b)
            });
            match fits {
                Some((d, outs)) => {
                    for (a, &b) in d.iter_mut().zip(&s.dir) {
                        if *a == 0 {
                            *a = b;
                        }
                    }
                    *outs |= 1 << k;
                }
                None => merged.push((s.dir.clone(), 1 << k)),
            }
        }
        let runs = merged
            .into_iter()
            .map(|(d, outs)| {
                let steps: Vec<(usize, bool)> = self
                    .ops
                    .iter()
                    .enumerate()
                    .filter(|(_, t)| d[t.dst] != 0)
                    .map(|(i, t)| (i, d[t.dst] > 0))
                    .collect();
                let short = steps
                    .iter()
                    .copied()
                    .filter(|&(i, _)| self.depth[i] <= SHORT)
                    .collect();
                Run { steps, outs, short }
            })
            .collect();
        // Without a key that tells patterns apart (more than 64 slots), the entry is
        // used once.
        s.table[h] = Entry {
            key: (self.slots <= 64).then_some(key),
            runs,
        };
        Some(h)
    }

    /// For each slot, which way to push it (+1 up, -1 down, 0 untouched) to move `slot`
    /// up (`up`) or down.
    fn directions(&self, slot: usize, up: bool, s: &mut Scratch) -> Option<()> {
        s.dir.iter_mut().for_each(|d| *d = 0);
        s.dir[slot] = if up { 1 } else { -1 };
        for t in self.ops.iter().rev() {
            let d = s.dir[t.dst];
            if d == 0 {
                continue;
            }
            let x = |a: &Arg| s.chain.near[a.slot];
            let sign = |v: f32| if v > 0.0 { 1i8 } else { -1 };
            for (i, a) in t.args.iter().enumerate() {
                // The sign of d(result)/d(slot value) through the modifiers.
                let mut g: i8 = match (fixed_effect(t.op), t.op) {
                    (Some(g), _) => g,
                    (_, Some(Op::Mul)) => sign(eff(&t.args[1 - i], x(&t.args[1 - i]))),
                    (_, Some(Op::Mad)) => match i {
                        0 => sign(eff(&t.args[1], x(&t.args[1]))),
                        1 => sign(eff(&t.args[0], x(&t.args[0]))),
                        _ => 1,
                    },
                    (_, Some(Op::Dp2 | Op::Dp3 | Op::Dp4)) => {
                        let n = t.args.len() / 2;
                        let j = if i < n { i + n } else { i - n };
                        sign(eff(&t.args[j], x(&t.args[j])))
                    }
                    (_, Some(Op::Div)) => {
                        if i == 0 {
                            sign(eff(&t.args[1], x(&t.args[1])))
                        } else {
                            -sign(eff(&t.args[0], x(&t.args[0])))
                        }
                    }
                    _ => return None,
                };
                if t.op == Some(Op::Sub) && i == 1 {
                    g = -g;
                }
                if a.abs {
                    g *= sign(x(a));
                }
                if a.neg {
                    g = -g;
                }
                if s.dir[a.slot] == 0 {
                    s.dir[a.slot] = d * g;
                }
            }
        }
        // Inputs and literals take no choice: chains that differ only in how they would
        // move one are the same chain (and merge).
        for &(_, sl) in &self.inputs {
            s.dir[sl] = 0;
        }
        for &(sl, _) in &self.literals {
            s.dir[sl] = 0;
        }
        Some(())
    }

    /// One step's choice in a direction, from the slots' values (`val`); `None` outside
    /// the decider's ground. `root` keeps an rsq step's operand and root.
    #[inline]
    fn choose(
        &self,
        t: &TapeOp,
        val: impl Fn(usize) -> f32,
        dir: Dir,
        root: &mut (u32, f64),
    ) -> Option<f32> {
        let a = |i: usize| eff(&t.args[i], val(t.args[i].slot));
        let v = match t.op {
            None => a(0),
            Some(Op::Add) => add(a(0), a(1), dir, self.d3d10),
            Some(Op::Sub) => add(a(0), -a(1), dir, self.d3d10),
            Some(Op::Mul) => mul(a(0), a(1), dir, self.d3d10),
            Some(Op::Mad) => {
                let p = mul(a(0), a(1), dir, true);
                if !normal(p) {
                    return None;
                }
                add(p, a(2), dir, true)
            }
            Some(Op::Dp2 | Op::Dp3 | Op::Dp4) => {
                let n = t.args.len() / 2;
                let mut s = mul(a(0), a(n), dir, true);
                for i in 1..n {
                    if !normal(s) {
                        return None;
                    }
                    let p = mul(a(i), a(i + n), dir, true);
                    if !normal(p) {
                        return None;
                    }
                    s = add(s, p, dir, true);
                }
                s
            }
            Some(Op::Min) => a(0).min(a(1)),
            Some(Op::Max) => a(0).max(a(1)),
            Some(Op::Rsq) => rsq(a(0), dir, root)?,
            Some(Op::Sqrt) => sqrt(a(0), dir)?,
            Some(Op::Rcp) => (1.0 / a(0) as f64) as f32,
            Some(Op::Div) => (a(0) as f64 / a(1) as f64) as f32,
            _ => return None,
        };
        let v = if t.sat {
            if v >= 1.0 {
                1.0
            } else if v > 0.0 {
                v
            } else {
                return None;
            }
        } else {
            v
        };
        normal(v).then_some(v)
    }
}

/// Working memory of [`Tape::decide_block`], one per thread.
#[derive(Default)]
pub struct Scratch {
    /// The element being settled.
    chain: Chain,
    /// A block's nearest chains, slot after slot ([`Tape::decide_block`]): the value of
    /// slot `s` for element `e` of a block of `len` at `s * len + e`.
    block_near: Vec<f32>,
    /// A block's rsq operands and roots, as `roots`, rsq step after rsq step.
    block_root_x: Vec<u32>,
    block_root: Vec<f64>,
    /// Per element of the block, whether its results are the nearest chain's.
    on_near: Vec<bool>,
    dir: Vec<i8>,
    /// The chains of the sign patterns seen, direct-mapped.
    table: Vec<Entry>,
    /// The tape the table belongs to (its address and slot count).
    owner: (usize, usize),
}

/// One element's chains, slot by slot.
#[derive(Default)]
struct Chain {
    /// The nearest chain.
    near: Vec<f32>,
    /// The chain a push moves (the nearest between pushes).
    val: Vec<f32>,
    /// Per rsq step, its last operand and 1/sqrt of it in `f64` (the nearest chain's,
    /// reused by a push that leaves the operand as it was).
    roots: Vec<(u32, f64)>,
}

/// The depth of the steps the first, short push takes: those writing an output (depth
/// 0) and those they read (depth 1).
const SHORT: usize = 1;

/// Entries of the table of chains.
const TABLE: usize = 4096;

/// One chain of an [`Entry`].
#[derive(Clone)]
struct Run {
    /// Its steps (index, pushed up), in tape order.
    steps: Vec<(usize, bool)>,
    /// The output components it decides.
    outs: u8,
    /// The steps of its short push (depth at most [`SHORT`]).
    short: Vec<(usize, bool)>,
}

/// The chains for one (sign pattern, components off the nearest chain, their sides): each
/// chain's steps with their directions, and the components it decides.
#[derive(Clone, Default)]
struct Entry {
    key: Option<(u64, u8, u8)>,
    runs: Vec<Run>,
}

impl Scratch {
    fn prepare(&mut self, t: &Tape) {
        let owner = (t as *const Tape as usize, t.slots);
        if self.owner != owner {
            self.owner = owner;
            self.table = vec![Entry::default(); TABLE];
        }
        if self.chain.near.len() != t.slots {
            self.chain = Chain {
                near: vec![0.0; t.slots],
                val: vec![0.0; t.slots],
                roots: vec![(0, 0.0); t.slots],
            };
            self.dir = vec![0; t.slots];
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Dir {
    Down,
    Near,
    Up,
}

/// The sign of a step's effect on its result through its operands where no operand's
/// value changes it (before `sub`'s second operand and the modifiers turn it): +1 for
/// mov, add, sub, min, max and sqrt, -1 for rsq and rcp; `None` where the other
/// operands' signs decide (mul, mad, the dot products, div).
fn fixed_effect(op: Option<Op>) -> Option<i8> {
    match op {
        None | Some(Op::Add | Op::Sub | Op::Min | Op::Max | Op::Sqrt) => Some(1),
        Some(Op::Rsq | Op::Rcp) => Some(-1),
        _ => None,
    }
}

/// The operand after its modifiers.
#[inline]
fn eff(a: &Arg, v: f32) -> f32 {
    apply(v, masks(a))
}

/// An operand's modifiers as bit masks: the bits kept, then the bits flipped (clear the
/// sign for _abs, flip it for -), so that they apply without a branch.
#[inline]
fn masks(a: &Arg) -> (u32, u32) {
    (!((a.abs as u32) << 31), (a.neg as u32) << 31)
}

#[inline]
fn apply(v: f32, (keep, flip): (u32, u32)) -> f32 {
    f32::from_bits((v.to_bits() & keep) ^ flip)
}

#[inline]
fn normal(v: f32) -> bool {
    v.is_normal()
}

/// The neighbour of a normal `v` toward +infinity (`up`) or -infinity.
#[inline]
fn next(v: f32, up: bool) -> f32 {
    let b = v.to_bits();
    let away = (v > 0.0) == up;
    f32::from_bits(if away { b + 1 } else { b - 1 })
}

/// The sum in a direction: nearest (D3D11's 0.5 ULP) or, where 1 ULP is allowed
/// (`faithful`), the neighbour of the exact sum below or above (two-sum's error is exact).
#[inline]
fn add(a: f32, b: f32, dir: Dir, faithful: bool) -> f32 {
    let s = a + b;
    if dir == Dir::Near || !faithful || !s.is_finite() {
        return s;
    }
    let bb = s - a;
    let err = (a - (s - bb)) + (b - bb);
    directed(s, err as f64, dir)
}

/// The product in a direction, as [`add`]; the `f64` product of two f32 is exact.
#[inline]
fn mul(a: f32, b: f32, dir: Dir, faithful: bool) -> f32 {
    if dir == Dir::Near || !faithful {
        // The f32 product is the correctly rounded one.
        return a * b;
    }
    let p = a as f64 * b as f64;
    let s = p as f32;
    if !s.is_finite() {
        return s;
    }
    directed(s, p - s as f64, dir)
}

/// `s` moved to the neighbour on `dir`'s side of the exact value `s + err` when it is not
/// already there.
#[inline]
fn directed(s: f32, err: f64, dir: Dir) -> f32 {
    match dir {
        Dir::Down if err < 0.0 => next(s, false),
        Dir::Up if err > 0.0 => next(s, true),
        _ => s,
    }
}

/// 2^-21 and the margin of 2^-40 kept to it.
const REL: f64 = 1.0 / (1u64 << 21) as f64;
const MARGIN: f64 = 1.0 / (1u64 << 40) as f64;

/// rsq's choice: the patterns just inside the 2^-21 bound, or the nearest.
#[inline]
fn rsq(x: f32, dir: Dir, root: &mut (u32, f64)) -> Option<f32> {
    if x <= 0.0 {
        return None;
    }
    let e = if root.0 == x.to_bits() && root.1 != 0.0 {
        root.1
    } else {
        let e = 1.0 / (x as f64).sqrt();
        *root = (x.to_bits(), e);
        e
    };
    let t = match dir {
        Dir::Near => return Some(e as f32),
        Dir::Down => e * (1.0 - REL + MARGIN),
        Dir::Up => e * (1.0 + REL - MARGIN),
    };
    Some(round_toward(t, dir == Dir::Up))
}

/// The f32 at or inward of `t`: the smallest at or above it for the low end, the largest
/// at or below it for the high end (`high`).
#[inline]
fn round_toward(t: f64, high: bool) -> f32 {
    let r = t as f32;
    if high {
        if r as f64 > t { next(r, false) } else { r }
    } else if (r as f64) < t {
        next(r, true)
    } else {
        r
    }
}

/// sqrt's choice: the neighbour of the exact root below or above (1 ULP), or the nearest.
#[inline]
fn sqrt(x: f32, dir: Dir) -> Option<f32> {
    if x <= 0.0 {
        return None;
    }
    let s = (x as f64).sqrt();
    let r = s as f32;
    Some(match dir {
        Dir::Near => r,
        // An f32 root is exact in f64; otherwise no f32 lies between the f64 root and
        // the exact one, so the f64 root's neighbours are the exact root's.
        Dir::Down => {
            if r as f64 > s {
                next(r, false)
            } else {
                r
            }
        }
        Dir::Up => {
            if (r as f64) < s {
                next(r, true)
            } else {
                r
            }
        }
    })
}
