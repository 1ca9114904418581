//! The `f64` fast path for f32 and f16 arithmetic (batch checking of a million lines).
//!
//! Every f32/f16 value, every product of two, and every point of their grids and midpoints
//! is an `f64`, so a step's exact result is known as `hi + err` with `hi` the `f64` nearest
//! and the sign of `err` exact (TwoSum for sums, an exact product, an FMA remainder for
//! quotients and roots). That is all [`position_f64`] needs. Whenever an exact quantity does
//! not fit (an intermediate that would need more than two doubles, a float16 fused result
//! needing the 0.6 ULP fraction), the fast path answers `None` and the exact rational path
//! runs instead; `tests/op_reference.rs` holds the two equal on random inputs.

use std::cmp::Ordering;

use super::allowed::{AllowedSet, Domain};
use super::arith::{Ctx, Shaped, reciprocal_tolerance, single_output};
use super::functions::sqrt_tolerance;
use super::numeric::value_f64;
use super::numeric::{nearest_of_position, position_f64, tolerance_set};
use super::rules::{Rule, RuleSet, Ulps};
use super::{ExactResult, Op, OperandReport, OutputReport};
use crate::format::{Arithmetic, Class};

/// Exact `a + b = s + err` (Knuth's TwoSum).
pub(super) fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let err = (a - (s - bb)) + (b - bb);
    (s, err)
}

fn sign(x: f64) -> Ordering {
    if x > 0.0 {
        Ordering::Greater
    } else if x < 0.0 {
        Ordering::Less
    } else {
        Ordering::Equal
    }
}

/// `a * b` as an ordering factor.
fn times(s: Ordering, neg: bool) -> Ordering {
    if neg { s.reverse() } else { s }
}

/// The most iterations a boundary search may take before giving up to the exact path.
const STEP_LIMIT: usize = 64;

impl Ctx {
    /// The fast path; `None` when the exact path must answer.
    pub fn run_fast(
        &mut self,
        op: Op,
        args: &[Vec<OperandReport>],
        outs: &[(&'static str, Domain)],
    ) -> Option<Vec<OutputReport>> {
        match self.f.arithmetic {
            Arithmetic::Float32 | Arithmetic::Float16 => {}
            Arithmetic::Double => return self.run_fast_double(op, args, outs),
            Arithmetic::None => return None,
        }
        let v = |i: usize, c: usize| self.fv(&args[i][c]);
        let (s, exact) = match op {
            Op::Add | Op::Sub | Op::Mul => {
                let (a, mut b) = (v(0, 0), v(1, 0));
                if op == Op::Sub {
                    b = -b;
                }
                self.note_operands(args);
                self.fast_add_mul(op == Op::Mul, a, b)?
            }
            Op::Div => {
                let (a, b) = (v(0, 0), v(1, 0));
                self.note_operands(args);
                if self.f.arithmetic == Arithmetic::Float32 && self.rules == RuleSet::D3D10 {
                    self.fast_div_d3d10(a, b)?
                } else {
                    self.fast_div(a, b)?
                }
            }
            Op::Mad | Op::Dp2 | Op::Dp3 | Op::Dp4 => {
                let (pairs, addend) = if op == Op::Mad {
                    (vec![(v(0, 0), v(1, 0))], Some(v(2, 0)))
                } else {
                    (
                        (0..args[0].len()).map(|c| (v(0, c), v(1, c))).collect(),
                        None,
                    )
                };
                self.note_operands(args);
                self.fast_fused(&pairs, addend)?
            }
            Op::Sqrt => {
                let a = v(0, 0);
                self.note_operands(args);
                self.fast_sqrt(a)?
            }
            Op::Rcp => {
                let a = v(0, 0);
                self.note_operands(args);
                self.fast_rcp(a)?
            }
            Op::Frc => {
                let a = v(0, 0);
                self.note_operands(args);
                self.fast_frc(a)?
            }
            _ => return None,
        };
        Some(single_output(outs, s, exact))
    }

    /// Round-to-nearest (ties to even) of `hi + err`, from its position.
    fn nearest_f64(&self, hi: f64, err: Ordering) -> u64 {
        nearest_of_position(&self.f, &position_f64(&self.f, hi, err))
    }

    /// The allowed set of one rounded step `hi + err` within `tol`, its nearest included,
    /// output-flushed; also the unflushed nearest.
    fn step(&mut self, hi: f64, err: Ordering, tol: Ulps) -> (AllowedSet, u64) {
        let pos = position_f64(&self.f, hi, err);
        let mut set = tolerance_set(&self.f, &pos, tol);
        let nearest = nearest_of_position(&self.f, &pos);
        if self.f.class(nearest) == Class::Infinity {
            self.note(Rule::Overflow);
        }
        set.add_bits(&self.domain(), nearest);
        (self.finish(set), nearest)
    }

    /// A value's pattern is exactly representable: its singleton set (flushed).
    fn exactly_f64(&mut self, x: f64, rule: Rule) -> AllowedSet {
        self.note(rule);
        let bits = self.flush_bits(self.nearest_f64(x, Ordering::Equal));
        AllowedSet::single(&self.domain(), bits)
    }

    fn fast_add_mul(&mut self, mul: bool, a: f64, b: f64) -> Option<(Shaped, ExactResult)> {
        if !(a.is_finite() && b.is_finite()) || a == 0.0 || b == 0.0 {
            return None;
        }
        if mul && (a.abs() == 1.0 || b.abs() == 1.0) {
            return None;
        }
        let (tol, rule) = self.unfused();
        let (hi, err) = if mul { (a * b, 0.0) } else { two_sum(a, b) };
        if hi == 0.0 {
            return None;
        }
        let (set, nearest) = self.step(hi, sign(err), tol);
        Some((
            Shaped {
                set,
                preferred: self.flush_bits(nearest),
                governing: rule,
            },
            ExactResult::Sum(hi, err),
        ))
    }

    /// Values of a set's lowest and highest members and its zeros (as `members`), NaN
    /// as an `f64` NaN.
    fn members_f64(&self, set: &AllowedSet) -> Vec<f64> {
        let d = self.domain();
        let mut out = Vec::new();
        if let Some((lo, hi)) = set.extremes() {
            out.push(value_f64(&self.f, d.bits(lo)));
            if hi != lo {
                out.push(value_f64(&self.f, d.bits(hi)));
            }
            for z in [-1, 0] {
                if z != lo && z != hi && set.contains_key(z) {
                    out.push(value_f64(&self.f, d.bits(z)));
                }
            }
        }
        if set.nan {
            out.push(f64::NAN);
        }
        out
    }

    /// Every pattern at least as close to the exact `x` as the farthest finite member of
    /// `set`. `cmp_x(m)` must give the exact sign of `m - x` (or `None`); `approx` is `x`
    /// to within a few ULPs of the format.
    fn close_interval(
        &mut self,
        set: &AllowedSet,
        approx: f64,
        cmp_x: &dyn Fn(f64) -> Option<Ordering>,
    ) -> Option<AllowedSet> {
        let d = self.domain();
        let Some((lo_k, hi_k)) = set.finite_extremes(&d) else {
            return Some(AllowedSet::empty());
        };
        let (ls, hs) = (
            value_f64(&self.f, d.bits(lo_k)),
            value_f64(&self.f, d.bits(hi_k)),
        );
        let mid = |y: f64, s: f64| -> Option<f64> {
            let (sum, e) = two_sum(y, s);
            (e == 0.0 && sum.is_finite()).then_some(sum / 2.0)
        };
        let mut out = AllowedSet::empty();
        match cmp_x(mid(ls, hs)?)? {
            Ordering::Equal => out.add_key_range(lo_k, hi_k),
            Ordering::Greater => {
                // hs is the farthest: every y >= 2x - hs, i.e. (y + hs)/2 >= x.
                let inside = |k: i64| -> Option<bool> {
                    let y = value_f64(&self.f, d.bits(k));
                    Some(cmp_x(mid(y, hs)?)? != Ordering::Less)
                };
                let start = crate::format::round_f64(
                    &self.f,
                    2.0 * approx - hs,
                    crate::format::RoundOptions::new(crate::format::Rounding::TowardPositive),
                )
                .bits;
                let mut k = d.key(start)?.min(hi_k);
                let bottom = d.key(self.f.infinity(true))?;
                let mut n = 0;
                while k > bottom && inside(k - 1)? {
                    k -= 1;
                    n += 1;
                    if n > STEP_LIMIT {
                        return None;
                    }
                }
                while !inside(k)? {
                    k += 1;
                    n += 1;
                    if n > STEP_LIMIT {
                        return None;
                    }
                }
                out.add_key_range(k, hi_k);
            }
            Ordering::Less => {
                // ls is the farthest: every y <= 2x - ls.
                let inside = |k: i64| -> Option<bool> {
                    let y = value_f64(&self.f, d.bits(k));
                    Some(cmp_x(mid(y, ls)?)? != Ordering::Greater)
                };
                let start = crate::format::round_f64(
                    &self.f,
                    2.0 * approx - ls,
                    crate::format::RoundOptions::new(crate::format::Rounding::TowardNegative),
                )
                .bits;
                let mut k = d.key(start)?.max(lo_k);
                let top = d.key(self.f.infinity(false))?;
                let mut n = 0;
                while k < top && inside(k + 1)? {
                    k += 1;
                    n += 1;
                    if n > STEP_LIMIT {
                        return None;
                    }
                }
                while !inside(k)? {
                    k -= 1;
                    n += 1;
                    if n > STEP_LIMIT {
                        return None;
                    }
                }
                out.add_key_range(lo_k, k);
            }
        }
        // A bound that reaches zero holds both zeros (as `numeric::interval_set`); a bound
        // that is one exact zero keeps its sign.
        let one_point = lo_k == hi_k && cmp_x(ls) == Some(Ordering::Equal);
        if !one_point && (out.contains_key(-1) || out.contains_key(0)) {
            out.add_key_range(-1, 0);
        }
        Some(self.finish(out))
    }

    /// The D3D10 divide, one step held to the unfused tolerance (see `Ctx::div_d3d10`).
    fn fast_div_d3d10(&mut self, a: f64, b: f64) -> Option<(Shaped, ExactResult)> {
        if !(a.is_finite() && b.is_finite()) || a == 0.0 || b == 0.0 || b.abs() == 1.0 {
            return None;
        }
        let (tol, _) = self.unfused();
        self.note(Rule::D3D10Divide);
        let q = a / b;
        let rem = (-q).mul_add(b, a);
        let (set, nearest) = self.step(q, times(sign(rem), b < 0.0), tol);
        Some((
            Shaped {
                set,
                preferred: self.flush_bits(nearest),
                governing: Rule::D3D10Divide,
            },
            ExactResult::Quotient(a, b),
        ))
    }

    /// Divide, direct or as a * (1/b) (§3.1.3.2).
    fn fast_div(&mut self, a: f64, b: f64) -> Option<(Shaped, ExactResult)> {
        if !(a.is_finite() && b.is_finite()) || a == 0.0 || b == 0.0 || b.abs() == 1.0 {
            return None;
        }
        let (tol, _) = self.unfused();
        let rule = match self.f.arithmetic {
            Arithmetic::Float16 => Rule::F16DivTwoStep,
            _ => Rule::DivTwoStep,
        };
        self.note(rule);
        let rcp_tol = reciprocal_tolerance(self.f.arithmetic);
        // The reciprocal step: 1/b = qr + rr/b exactly.
        let qr = 1.0 / b;
        let rr = (-qr).mul_add(b, 1.0);
        let (rset, _) = self.step(qr, times(sign(rr), b < 0.0), rcp_tol);
        let d = self.domain();
        let mut two = AllowedSet::empty();
        for r in self.members_f64(&rset) {
            // The multiply step, its cases in the order of `Ctx::mul_basic`: infinity, the
            // x * 1 identity, a zero factor, then a rounded product.
            if r == 0.0 {
                self.note(Rule::DivLargeDenominator);
            }
            if r.is_infinite() {
                let z = if (a < 0.0) != (r < 0.0) {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                };
                two.add_bits(&d, self.f.infinity(z < 0.0));
                self.note(Rule::InfinityArithmetic);
            } else if r.abs() == 1.0 || a.abs() == 1.0 {
                // x * 1.0 = x exactly (§3.1.3.2), whichever factor is the one.
                let v = if r.abs() == 1.0 {
                    a.copysign(a * r)
                } else {
                    r.copysign(a * r)
                };
                let s = self.exactly_f64(v, Rule::MulOneIdentity);
                two.union(&s);
            } else if r == 0.0 {
                let z = if (a < 0.0) != r.is_sign_negative() {
                    -0.0
                } else {
                    0.0
                };
                let s = self.exactly_f64(z, Rule::ZeroOperand);
                two.union(&s);
            } else {
                let (s, _) = self.step(a * r, Ordering::Equal, tol);
                two.union(&s);
            }
        }
        // The quotient: a/b = q + rem/b exactly.
        let q = a / b;
        let rem = (-q).mul_add(b, a);
        let err = times(sign(rem), b < 0.0);
        let cmp_x = |m: f64| -> Option<Ordering> {
            // sign(m - a/b) = sign(m*b - a) * sign(b); the FMA rounds once, keeping the sign.
            Some(times(sign(m.mul_add(b, -a)), b < 0.0))
        };
        let close = self.close_interval(&two, q, &cmp_x)?;
        let nearest = self.flush_bits(self.nearest_f64(q, err));
        let mut set = two;
        set.union(&close);
        set.add_bits(&d, nearest);
        let set = self.finish(set);
        Some((
            Shaped {
                set,
                preferred: nearest,
                governing: rule,
            },
            ExactResult::Quotient(a, b),
        ))
    }

    fn fast_sqrt(&mut self, a: f64) -> Option<(Shaped, ExactResult)> {
        if !(a.is_finite() && a > 0.0) {
            return None;
        }
        let (tol, rule) = sqrt_tolerance(self.f.arithmetic);
        self.note(rule);
        let s = a.sqrt();
        // sqrt(a) - s has the sign of a - s*s.
        let e = s.mul_add(-s, a);
        let (set, nearest) = self.step(s, sign(e), tol);
        let exact = if e == 0.0 {
            ExactResult::Sum(s, 0.0)
        } else {
            ExactResult::Approx(s)
        };
        Some((
            Shaped {
                set,
                preferred: self.flush_bits(nearest),
                governing: rule,
            },
            exact,
        ))
    }

    /// rcp: 2^-21 relative, or 1 ULP (0.5 for float16); either reading.
    fn fast_rcp(&mut self, a: f64) -> Option<(Shaped, ExactResult)> {
        if !a.is_finite() || a == 0.0 {
            return None;
        }
        let q = 1.0 / a;
        let max = value_f64(&self.f, self.f.max_finite());
        let min_normal = value_f64(&self.f, self.f.min_normal());
        if q.abs() > max / 2.0 || q.abs() < min_normal * 2.0 {
            return None;
        }
        self.note(Rule::RcpRelative);
        let one_ulp = self.reciprocal_step();
        let rem = (-q).mul_add(a, 1.0);
        let (mut set, nearest) = self.step(q, times(sign(rem), a < 0.0), one_ulp);
        self.note(Rule::RcpOneUlpReading);
        // y is within 2^-21 relative of 1/a exactly when |y*a - 1| <= 2^-21; y*a is exact
        // in f64 and near 1, so the FMA computes y*a - 1 exactly.
        let d = self.domain();
        let inside = |k: i64| {
            let y = value_f64(&self.f, d.bits(k));
            y.mul_add(a, -1.0).abs() <= 1.0 / 2_097_152.0
        };
        let k0 = d.key(nearest)?;
        if inside(k0) {
            let (mut lo, mut hi) = (k0, k0);
            while inside(lo - 1) {
                lo -= 1;
            }
            while inside(hi + 1) {
                hi += 1;
            }
            let mut rel = AllowedSet::empty();
            rel.add_key_range(lo, hi);
            set.union(&self.finish(rel));
        }
        let preferred = self.flush_bits(nearest);
        set.add_bits(&d, preferred);
        Some((
            Shaped {
                set,
                preferred,
                governing: Rule::RcpRelative,
            },
            ExactResult::Quotient(1.0, a),
        ))
    }

    /// frc: x - round_ni(x), rounded as a subtraction, kept in [+0, 1] (§22.10.7).
    fn fast_frc(&mut self, a: f64) -> Option<(Shaped, ExactResult)> {
        if !a.is_finite() {
            return None;
        }
        self.note(Rule::Frc);
        let (hi, err) = two_sum(a, -a.floor());
        if hi == 0.0 {
            return None;
        }
        let (tol, _) = self.unfused();
        let (set, nearest) = self.step(hi, sign(err), tol);
        let d = self.domain();
        let one_key = d.key(self.nearest_f64(1.0, Ordering::Equal))?;
        let mut set = set;
        if set.contains_key(one_key) {
            set.add_key(one_key - 1);
        }
        let mut kept = AllowedSet::empty();
        for &(l, h) in set.key_ranges() {
            kept.add_key_range(l.max(0), h.min(one_key));
        }
        Some((
            Shaped {
                set: kept,
                preferred: self.flush_bits(nearest),
                governing: Rule::Frc,
            },
            ExactResult::Sum(hi, err),
        ))
    }

    // ----- fused operations (f32) -----

    /// One add step on candidate values: its allowed set and what it hands on (`None`
    /// when an extra-precision intermediate does not fit an f64).
    /// `hand_on`: an intermediate step, whose out-of-range leeway applies (the last step's
    /// result is the instruction's, as in `Ctx::sum_orders`).
    fn fast_add_step(
        &mut self,
        a: f64,
        b: f64,
        tol: Ulps,
        hand_on: bool,
    ) -> Option<(AllowedSet, Vec<f64>)> {
        let d = self.domain();
        if a.is_nan() || b.is_nan() {
            self.note(Rule::NanPropagates);
            return Some((AllowedSet::any_nan(), vec![f64::NAN]));
        }
        if a.is_infinite() || b.is_infinite() {
            if a.is_infinite() && b.is_infinite() && (a < 0.0) != (b < 0.0) {
                self.note(Rule::InvalidNan);
                return Some((AllowedSet::any_nan(), vec![f64::NAN]));
            }
            let inf = if a.is_infinite() { a } else { b };
            self.note(Rule::InfinityArithmetic);
            return Some((
                AllowedSet::single(&d, self.f.infinity(inf < 0.0)),
                vec![inf],
            ));
        }
        let exactly = |ctx: &mut Ctx, x: f64, rule: Rule| {
            let s = ctx.exactly_f64(x, rule);
            let m = ctx.members_f64(&s);
            Some((s, m))
        };
        match (a == 0.0, b == 0.0) {
            (true, true) => {
                let z = if a.is_sign_negative() && b.is_sign_negative() {
                    -0.0
                } else {
                    0.0
                };
                return exactly(self, z, Rule::NegZeroPlusZero);
            }
            (true, false) => return exactly(self, b, Rule::AddZeroIdentity),
            (false, true) => return exactly(self, a, Rule::AddZeroIdentity),
            _ => {}
        }
        let (hi, err) = two_sum(a, b);
        if hi == 0.0 {
            return exactly(self, 0.0, Rule::ExactCancellation);
        }
        // 0.6 ULP needs the exact fraction, which only an exact f64 sum gives.
        if tol == Ulps::SixTenths && err != 0.0 {
            return None;
        }
        let (set, _) = self.step(hi, sign(err), tol);
        let mut out = self.members_f64(&set);
        if hand_on {
            self.leeway(hi, err, &mut out)?;
        }
        Some((set, out))
    }

    /// The intermediate leeway of §3.1.3.2: out of range, an intermediate may saturate to
    /// ±max or keep extra range; below the normal range, keep extra precision.
    fn leeway(&mut self, hi: f64, err: f64, out: &mut Vec<f64>) -> Option<()> {
        let max = value_f64(&self.f, self.f.max_finite());
        let min_normal = value_f64(&self.f, self.f.min_normal());
        let m = hi.abs();
        if m > max || (m == max && err * hi > 0.0) {
            self.note(Rule::FusedOverflowLeeway);
            if err != 0.0 {
                return None;
            }
            out.push(max.copysign(hi));
            out.push(hi);
        } else if m < min_normal || (m == min_normal && err * hi < 0.0) {
            if err != 0.0 {
                return None;
            }
            out.push(hi);
        }
        Some(())
    }

    fn fast_mul_step(&mut self, a: f64, b: f64, tol: Ulps, rule: Rule) -> Option<Vec<f64>> {
        let neg = a.is_sign_negative() != b.is_sign_negative();
        if b.abs() == 1.0 || a.abs() == 1.0 {
            let v = if b.abs() == 1.0 {
                if b < 0.0 { -a } else { a }
            } else if a < 0.0 {
                -b
            } else {
                b
            };
            let s = self.exactly_f64(v, Rule::MulOneIdentity);
            return Some(self.members_f64(&s));
        }
        if a == 0.0 || b == 0.0 {
            let s = self.exactly_f64(if neg { -0.0 } else { 0.0 }, Rule::ZeroOperand);
            return Some(self.members_f64(&s));
        }
        let _ = rule;
        let p = a * b;
        let (set, _) = self.step(p, Ordering::Equal, tol);
        let mut out = self.members_f64(&set);
        self.leeway(p, 0.0, &mut out)?;
        Some(out)
    }

    fn fast_sum_orders(&mut self, terms: Vec<Vec<f64>>, tol: Ulps) -> Option<AllowedSet> {
        let mut out = AllowedSet::empty();
        if terms.len() == 2 {
            for &a in &terms[0] {
                for &b in &terms[1] {
                    let (s, _) = self.fast_add_step(a, b, tol, false)?;
                    out.union(&s);
                }
            }
            return Some(out);
        }
        for i in 0..terms.len() {
            for j in i + 1..terms.len() {
                let mut combined = Vec::new();
                for &a in &terms[i] {
                    for &b in &terms[j] {
                        let (_, c) = self.fast_add_step(a, b, tol, true)?;
                        combined.extend(c);
                    }
                }
                let mut rest: Vec<Vec<f64>> = terms
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| *k != i && *k != j)
                    .map(|(_, t)| t.clone())
                    .collect();
                rest.push(reduce_f64(combined));
                out.union(&self.fast_sum_orders(rest, tol)?);
            }
        }
        Some(out)
    }

    fn fast_fused(
        &mut self,
        pairs: &[(f64, f64)],
        addend: Option<f64>,
    ) -> Option<(Shaped, ExactResult)> {
        if pairs.iter().any(|(a, b)| !a.is_finite() || !b.is_finite())
            || addend.is_some_and(|c| !c.is_finite())
        {
            return None;
        }
        let governing = Rule::FusedWorstOrder;
        self.note(governing);
        let (tol, tol_rule) = self.fused_step();
        let mut terms = Vec::with_capacity(pairs.len() + 1);
        for &(a, b) in pairs {
            terms.push(self.fast_mul_step(a, b, tol, tol_rule)?);
        }
        if let Some(c) = addend {
            terms.push(vec![c]);
        }
        let serial = self.fast_sum_orders(terms, tol)?;
        // The exact result as hi + lo (products are exact; the sum must fit two doubles).
        let (mut hi, mut lo) = (0.0f64, 0.0f64);
        for v in pairs.iter().map(|(a, b)| a * b).chain(addend) {
            let (s, e) = two_sum(hi, v);
            let (t, e2) = two_sum(lo, e);
            if e2 != 0.0 {
                return None;
            }
            (hi, lo) = two_sum(s, t);
        }
        if hi == 0.0 {
            return None;
        }
        let cmp_x = |m: f64| -> Option<Ordering> {
            let (t, e) = two_sum(m, -hi);
            (e == 0.0).then(|| t.partial_cmp(&lo).expect("finite"))
        };
        let close = self.close_interval(&serial, hi, &cmp_x)?;
        let nearest = self.flush_bits(self.nearest_f64(hi, sign(lo)));
        let mut set = serial;
        set.union(&close);
        set.add_bits(&self.domain(), nearest);
        if self.f.arithmetic == Arithmetic::Float16 {
            // §3.1.5: 0.6 ULP of the whole exact result, known exactly only as one f64.
            if lo != 0.0 {
                return None;
            }
            self.note(Rule::F16Fused);
            let (extra, _) = self.step(hi, Ordering::Equal, Ulps::SixTenths);
            set.union(&extra);
        }
        if set.nan {
            self.note(Rule::FusedNan);
        }
        let set = self.finish(set);
        Some((
            Shaped {
                set,
                preferred: nearest,
                governing,
            },
            ExactResult::Sum(hi, lo),
        ))
    }
}

/// As `reduce` on exact values: lowest and highest finite, zeros, infinities, NaN.
fn reduce_f64(values: Vec<f64>) -> Vec<f64> {
    let mut out: Vec<f64> = Vec::new();
    let push = |out: &mut Vec<f64>, v: f64| {
        if !out
            .iter()
            .any(|o| o.to_bits() == v.to_bits() || (o.is_nan() && v.is_nan()))
        {
            out.push(v);
        }
    };
    let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    for &v in values.iter().filter(|v| !v.is_finite()) {
        push(&mut out, v);
    }
    if let Some(lo) = finite.iter().copied().reduce(f64::min) {
        push(&mut out, lo);
    }
    if let Some(hi) = finite.iter().copied().reduce(f64::max) {
        push(&mut out, hi);
    }
    for z in [0.0f64, -0.0] {
        if finite.iter().any(|v| v.to_bits() == z.to_bits()) {
            push(&mut out, z);
        }
    }
    out
}
