//! One instruction over spans: the hull of every result its rule allows for every operand
//! inside the operands' spans.
//!
//! The method (docs/rules.md, "Sequences"): every instruction a program holds is monotone
//! in each operand once the other operands' signs are fixed (add, mul, mad, the dot
//! products, div, min, max, sqrt, rsq, rcp, exp, log, the roundings), and so are the ends of
//! its allowed set, which are set by a tolerance around the exact result (§3.1) and a
//! monotone flush (§3.1.3.2). Over a box of operands split at zero the hull is therefore the
//! union of the allowed sets at its corners, each computed by the exact engine
//! ([`crate::d3d::evaluate`]); a NaN operand is one more corner, so NaN rules come from the
//! engine too. Three exceptions get more points or a band:
//! - `frc` is a sawtooth: the integers inside a span split it into monotone pieces;
//! - `sin` and `cos` turn at their extremes: the patterns next to each extreme inside the
//!   span are added;
//! - mad and the dot products also allow every pattern at least as close to the exact
//!   result as their worst serial order (§3.1.3.2's reading in `fused.rs`), a radius that is
//!   not monotone in the operands: over a box that is not a point a band of the exact range
//!   widened by a bound on that radius is added.

use std::collections::HashMap;

use super::ProgramError;
use super::span::Span;
use super::walk::{Step, key, one_bits};
use crate::d3d::{Domain, Op, OpRequest, PerOutput, RuleSet, Vector, evaluate};
use crate::format::FloatFormat;

/// The most corners one instruction evaluates (a dot product of four components whose
/// operands all span zero and may be NaN would have 5^8).
const MAX_CORNERS: usize = 4096;

/// Points evaluated by the exact engine, remembered.
pub struct PointEngine {
    format: FloatFormat,
    rules: RuleSet,
    cache: HashMap<(Op, Vec<u64>), PerOutput<Span>>,
}

impl PointEngine {
    /// An engine for one format and rule set.
    pub fn new(format: FloatFormat, rules: RuleSet) -> PointEngine {
        PointEngine {
            format,
            rules,
            cache: HashMap::new(),
        }
    }

    /// The format.
    pub fn format(&self) -> FloatFormat {
        self.format
    }

    /// The rule set.
    pub fn rules(&self) -> RuleSet {
        self.rules
    }

    /// The allowed sets of `op` on operand patterns (vectors flattened for the dot
    /// products), as the exact engine gives them.
    pub fn allowed(
        &self,
        op: Op,
        args: &[Vec<u64>],
    ) -> Result<Vec<crate::d3d::AllowedSet>, ProgramError> {
        let refs: Vec<&[u64]> = args.iter().map(|a| a.as_slice()).collect();
        let req = OpRequest::from_bits(op, self.format, self.rules, &refs);
        let ev = evaluate(&req).map_err(|e| ProgramError::Input(e.to_string()))?;
        Ok(ev.outputs.into_iter().map(|o| o.allowed).collect())
    }

    /// The hull of each output's allowed set at one point, remembered.
    pub fn point(&mut self, op: Op, args: &[Vec<u64>]) -> Result<PerOutput<Span>, ProgramError> {
        let flat: Vec<u64> = args.iter().flatten().copied().collect();
        if let Some(s) = self.cache.get(&(op, flat.clone())) {
            return Ok(s.clone());
        }
        let sets = self.allowed(op, args)?;
        let spans: PerOutput<Span> = sets.iter().map(Span::of_set).collect();
        if self.cache.len() > 1 << 20 {
            self.cache.clear();
        }
        self.cache.insert((op, flat), spans.clone());
        Ok(spans)
    }

    /// One step over spans: the hull over every operand inside them.
    pub fn step(
        &mut self,
        step: Step,
        args: &[Vector<Span>],
    ) -> Result<PerOutput<Span>, ProgramError> {
        let f = self.format;
        let op = match step {
            Step::Move => {
                let s = args[0][0];
                let s = if f.arithmetic_flushes_subnormals {
                    s.with_flush(&f)
                } else {
                    s
                };
                return Ok(std::iter::once(s).collect());
            }
            Step::Op(op) => op,
        };
        // Each scalar operand's candidate patterns.
        let mut cands: Vec<Vec<u64>> = Vec::new();
        for v in args {
            for s in v {
                cands.push(candidates(&f, s, op));
            }
        }
        let outputs = match op {
            Op::Sincos => 2,
            _ => 1,
        };
        let mut hull: PerOutput<Span> = std::iter::repeat_n(Span::EMPTY, outputs).collect();
        let widths: Vec<usize> = args.iter().map(|v| v.len()).collect();
        let pairs = matches!(op, Op::Mad | Op::Dp2 | Op::Dp3 | Op::Dp4);
        let reduced = if pairs {
            reduce_pairs(&f, op, &cands)
        } else {
            None
        };
        let cands = reduced.unwrap_or(cands);
        let total = cands.iter().try_fold(1usize, |n, c| n.checked_mul(c.len()));
        if total.is_none_or(|n| n > MAX_CORNERS) {
            return Err(ProgramError::Input(format!(
                "{} over these operand intervals needs more than {MAX_CORNERS} corner evaluations",
                op.name(&f)
            )));
        }
        let mut idx = vec![0usize; cands.len()];
        loop {
            let mut flat = idx.iter().zip(&cands).map(|(&i, c)| c[i]);
            let point: Vec<Vec<u64>> = widths
                .iter()
                .map(|&w| flat.by_ref().take(w).collect())
                .collect();
            let got = self.point(op, &point)?;
            for (h, g) in hull.iter_mut().zip(got) {
                *h = h.union(g);
            }
            // The next corner, odometer order.
            let mut k = 0;
            while k < idx.len() {
                idx[k] += 1;
                if idx[k] < cands[k].len() {
                    break;
                }
                idx[k] = 0;
                k += 1;
            }
            if k == idx.len() {
                break;
            }
        }
        let all_points = args.iter().flatten().all(Span::is_point);
        if !all_points {
            match op {
                Op::Frc => {
                    if let Some(extra) = frc_extra(&f, &args[0][0]) {
                        hull[0] = hull[0].union(extra);
                    }
                }
                Op::Sin | Op::Cos | Op::Sincos => {
                    for (o, h) in hull.iter_mut().enumerate() {
                        let sine = op == Op::Sin || (op == Op::Sincos && o == 0);
                        *h = h.union(self.turns(&args[0][0], sine)?);
                    }
                }
                _ if pairs => {
                    let band = fused_band(&f, op, args);
                    hull[0] = hull[0].union(band);
                }
                _ => {}
            }
        }
        Ok(hull)
    }

    /// sin or cos near every extreme inside a span: the patterns next to each turning point.
    fn turns(&mut self, s: &Span, sine: bool) -> Result<Span, ProgramError> {
        let f = self.format;
        let Some((lo, hi)) = s.keys else {
            return Ok(Span::EMPTY);
        };
        let d = Domain::Float(f);
        let (a, b) = (f.to_f64(d.bits(lo)), f.to_f64(d.bits(hi)));
        if !a.is_finite() || !b.is_finite() {
            return Ok(wide_sin(&f));
        }
        let lim = 100.0 * std::f64::consts::PI * 1.001;
        let (a, b) = (a.max(-lim), b.min(lim));
        if a > b {
            return Ok(Span::EMPTY);
        }
        // sin turns at pi/2 + k pi, cos at k pi.
        let phase = if sine {
            std::f64::consts::FRAC_PI_2
        } else {
            0.0
        };
        let pi = std::f64::consts::PI;
        let k0 = ((a - phase) / pi).floor() as i64;
        let k1 = ((b - phase) / pi).ceil() as i64;
        if k1 - k0 > 16 {
            return Ok(wide_sin(&f));
        }
        let mut out = Span::EMPTY;
        for k in k0..=k1 {
            let t = phase + k as f64 * pi;
            let near = key_at_or_below(&f, t);
            for kk in near - 2..=near + 2 {
                if kk < lo || kk > hi {
                    continue;
                }
                let op = if sine { Op::Sin } else { Op::Cos };
                out = out.union(self.point(op, &[vec![d.bits(kk)]])?[0]);
            }
        }
        Ok(out)
    }
}

/// sin or cos over a span holding many turns: every value the rule allows anywhere,
/// [-1 - 0.0008, 1 + 0.0008] (§22.10.20), widened outward to patterns.
fn wide_sin(f: &FloatFormat) -> Span {
    let t = 1.0 + 0.0008;
    Span {
        keys: Some((key_at_or_below(f, -t) - 1, key_at_or_below(f, t) + 1)),
        nan: false,
    }
}

/// The corners of one scalar operand: its ends, both zeros when it spans zero (where the
/// monotone direction of a product flips), and a NaN when it may be NaN.
fn candidates(f: &FloatFormat, s: &Span, op: Op) -> Vec<u64> {
    let d = Domain::Float(*f);
    let mut out = Vec::with_capacity(5);
    if let Some((lo, hi)) = s.keys {
        out.push(d.bits(lo));
        if lo < 0 && hi >= 0 {
            out.push(d.bits(-1));
            out.push(d.bits(0));
        }
        if hi != lo {
            out.push(d.bits(hi));
        }
        if op == Op::Frc {
            out.extend(frc_points(f, lo, hi));
        }
        if lo != hi && near_zero_matters(op) {
            out.extend(near_zero(f, lo, hi));
        }
        out.dedup();
    }
    if s.nan {
        out.push(f.quiet_nan());
    }
    out
}

/// The instructions whose rule is exact at a zero operand and a tolerance next to it
/// (`exp(±0) = 1`, `sin(±0) = ±0`, `cos(±0) = 1`, §22.10.6 and §22.10.20's tables), frc,
/// whose piece below zero ends at the negative operand nearest it (-0 is zero, so
/// `frc(-0) = 0` while `frc(-tiny)` rounds to 1), and, to be safe, the other one-operand
/// functions: the ends of their allowed sets are not monotone across zero, so the hull
/// needs the operands nearest zero.
fn near_zero_matters(op: Op) -> bool {
    matches!(
        op,
        Op::Exp | Op::Log | Op::Sin | Op::Cos | Op::Sincos | Op::Rsq | Op::Rcp | Op::Sqrt | Op::Frc
    )
}

/// The nonzero patterns nearest zero on each side that lie in the span: the smallest
/// subnormals and, because 32-bit arithmetic reads subnormals as zero (§3.1.3.2), the
/// smallest normals, with their next neighbours.
fn near_zero(f: &FloatFormat, lo: i64, hi: i64) -> Vec<u64> {
    let d = Domain::Float(*f);
    let normal = d.key(f.min_normal()).expect("a number");
    let mut out = Vec::new();
    for k in [1, 2, normal, normal + 1] {
        for key in [k, -k - 1] {
            if lo <= key && key <= hi {
                out.push(d.bits(key));
            }
        }
    }
    out
}

/// frc's monotone pieces: each integer inside the span and the pattern just below it (at
/// most 16 of them; [`frc_extra`] covers more).
fn frc_points(f: &FloatFormat, lo: i64, hi: i64) -> Vec<u64> {
    let d = Domain::Float(*f);
    let (a, b) = (f.to_f64(d.bits(lo)), f.to_f64(d.bits(hi)));
    let mut out = Vec::new();
    if !a.is_finite() || !b.is_finite() || b.floor() - a.floor() > 16.0 {
        return out;
    }
    let mut n = a.floor() + 1.0;
    while n <= b {
        let k = key_at_or_below(f, n);
        for kk in [k - 1, k] {
            if kk >= lo && kk <= hi {
                out.push(d.bits(kk));
            }
        }
        // From 2^53 up, n + 1 rounds back to n in f64: every value there is an integer,
        // and the loop would never end.
        if n + 1.0 == n {
            break;
        }
        n += 1.0;
    }
    out
}

/// frc over a span with more than 16 integers inside: the whole range its rule keeps
/// results in, [+0, 1] (§22.10.7 and `irrational.rs`).
fn frc_extra(f: &FloatFormat, s: &Span) -> Option<Span> {
    let d = Domain::Float(*f);
    let (lo, hi) = s.keys?;
    let (a, b) = (f.to_f64(d.bits(lo)), f.to_f64(d.bits(hi)));
    (!a.is_finite() || !b.is_finite() || b.floor() - a.floor() > 16.0).then(|| Span {
        keys: Some((0, key(f, one_bits(f)).expect("1.0"))),
        nan: false,
    })
}

/// For mad and the dot products, each pair's corners reduced to the two that give the
/// smallest and the largest product when every corner is a finite number: the hull is
/// monotone in each exact product (the band covers the rest). `None` keeps every corner.
fn reduce_pairs(f: &FloatFormat, op: Op, cands: &[Vec<u64>]) -> Option<Vec<Vec<u64>>> {
    let n = cands.len();
    let npairs = if op == Op::Mad { 1 } else { n / 2 };
    let finite = |b: u64| f.to_f64(b).is_finite();
    if cands.iter().flatten().any(|&b| !finite(b)) {
        return None;
    }
    // Operand layout: mad (a, b, c); dp (x0..xn, y0..yn).
    let pair_of = |i: usize| -> (usize, usize) {
        if op == Op::Mad {
            (0, 1)
        } else {
            (i, i + npairs)
        }
    };
    let mut choice: Vec<Vec<u64>> = cands.to_vec();
    for i in 0..npairs {
        let (ia, ib) = pair_of(i);
        let mut best: Vec<(f64, bool, u64, u64)> = Vec::new();
        for &x in &cands[ia] {
            for &y in &cands[ib] {
                let p = f.to_f64(x) * f.to_f64(y);
                best.push((p, p == 0.0 && p.is_sign_negative(), x, y));
            }
        }
        // The smallest product (-0 below +0) and the largest.
        let order = |p: &(f64, bool, u64, u64)| (p.0, !p.1);
        let min = best
            .iter()
            .min_by(|a, b| order(a).partial_cmp(&order(b)).expect("finite"))?;
        let max = best
            .iter()
            .max_by(|a, b| order(a).partial_cmp(&order(b)).expect("finite"))?;
        // Subnormal operands are read as zero by the engine; keep every corner then.
        let tiny = |b: u64| {
            let v = f.to_f64(b).abs();
            v != 0.0 && v < f.min_normal_value()
        };
        if cands[ia].iter().chain(&cands[ib]).any(|&b| tiny(b)) {
            return None;
        }
        // The odometer runs through the four combinations, which hold the two wanted.
        choice[ia] = dedup(vec![min.2, max.2]);
        choice[ib] = dedup(vec![min.3, max.3]);
    }
    Some(choice)
}

fn dedup(mut v: Vec<u64>) -> Vec<u64> {
    v.dedup();
    v
}

/// The key of the largest pattern of `f` at or below `v` (the most negative finite value's
/// key less one, -inf, when `v` is below it).
pub(crate) fn key_at_or_below(f: &FloatFormat, v: f64) -> i64 {
    let near = match f.width() {
        16 => half::f16::from_f64(v).to_bits() as u64,
        _ => (v as f32).to_bits() as u64,
    };
    let d = Domain::Float(*f);
    let mut k = d.key(near).unwrap_or(0);
    while f.to_f64(d.bits(k)) > v {
        k -= 1;
    }
    while k < key_inf(f) && f.to_f64(d.bits(k + 1)) <= v {
        k += 1;
    }
    k
}

fn key_inf(f: &FloatFormat) -> i64 {
    key(f, f.infinity(false)).expect("infinity")
}

/// mad and the dot products over a box that is not a point: the exact range widened on
/// both sides by a bound on any serial order's error. Each product errs by at most one
/// ULP (0.6 for float16) at its own largest magnitude, each of the n - 1 (or n with mad's
/// addend) additions by one ULP at most at `m`, the largest sum of absolute products in the
/// box; one more ULP at `m` covers float16's 0.6 ULP of the whole result.
fn fused_band(f: &FloatFormat, op: Op, args: &[Vector<Span>]) -> Span {
    let d = Domain::Float(*f);
    let range = |s: &Span| -> Option<(f64, f64)> {
        let (lo, hi) = s.keys?;
        Some((f.to_f64(d.bits(lo)), f.to_f64(d.bits(hi))))
    };
    let full = Span {
        keys: Some((-key_inf(f) - 1, key_inf(f))),
        nan: false,
    };
    let (pairs, addend): (Vec<(Span, Span)>, Option<Span>) = if op == Op::Mad {
        (vec![(args[0][0], args[1][0])], Some(args[2][0]))
    } else {
        (
            args[0]
                .iter()
                .copied()
                .zip(args[1].iter().copied())
                .collect(),
            None,
        )
    };
    let (mut lo, mut hi, mut m) = (0.0f64, 0.0f64, 0.0f64);
    let mut product_ulps = 0.0f64;
    for (x, y) in &pairs {
        let (Some((x0, x1)), Some((y0, y1))) = (range(x), range(y)) else {
            return Span::EMPTY;
        };
        let ps = [x0 * y0, x0 * y1, x1 * y0, x1 * y1];
        if ps.iter().any(|p| !p.is_finite()) {
            return full;
        }
        lo += ps.iter().copied().fold(f64::INFINITY, f64::min);
        hi += ps.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let pm = ps.iter().fold(0.0f64, |a, p| a.max(p.abs()));
        m += pm;
        // The product step's error: one ULP at its largest magnitude.
        product_ulps += ulp_at(f, pm * GROWTH);
    }
    if let Some(c) = addend {
        let Some((c0, c1)) = range(&c) else {
            return Span::EMPTY;
        };
        if !c0.is_finite() || !c1.is_finite() {
            return full;
        }
        lo += c0;
        hi += c1;
        m += c0.abs().max(c1.abs());
    }
    // Each addition errs by one ULP at most at the largest partial sum (at most `m`, grown
    // by the errors before it), and one more ULP covers float16's 0.6 ULP of the whole
    // result; the f64 sums here are within 2^-50 of `m`.
    let adds = pairs.len() - 1 + addend.is_some() as usize;
    let r = product_ulps + (adds + 1) as f64 * ulp_at(f, m * GROWTH) + m * MARGIN_F64;
    // A side that may pass the largest finite value reaches its infinity.
    let max = f.max_finite_value();
    let lo_key = if (lo - r).is_nan() || lo - r <= -max {
        -key_inf(f) - 1
    } else {
        key_at_or_below(f, lo - r) - 1
    };
    let hi_key = if (hi + r).is_nan() || hi + r >= max {
        key_inf(f)
    } else {
        key_at_or_below(f, hi + r) + 1
    };
    Span {
        keys: Some((lo_key, hi_key)),
        nan: false,
    }
    .with_flush(f)
}

/// Room for a partial sum to exceed the largest exact magnitude by the errors before it.
const GROWTH: f64 = 1.0 + 1.0 / 1024.0;
/// The `f64` arithmetic's error on the band's ends, relative to `m`.
const MARGIN_F64: f64 = 1.0 / (1u64 << 50) as f64;

/// One ULP of `f` at magnitude `v` (at least the subnormal step).
fn ulp_at(f: &FloatFormat, v: f64) -> f64 {
    let e = v.abs().log2().floor() as i32;
    let e = e.max(f.emin());
    2f64.powi(e - f.frac_bits as i32)
}
