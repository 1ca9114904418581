//! The fused operations mad, dp2, dp3, dp4 and dfma, in one place: every serial order of
//! their separate multiplies and adds, each step within its own tolerance (§3.1.3.2 and both
//! pages: 1 ULP per step; float16 0.6 ULP, §3.1.5), on the exact rational path and on the
//! `f64` fast path.

use std::cmp::Ordering;

use super::ExactResult;
use super::allowed::AllowedSet;
use super::arith::{Basic, Ctx, Shaped};
use super::fast::{sign, two_sum};
use super::numeric::{self, is_zero, mag, position_exact, rne, value_f64};
use super::rules::{Rule, Ulps};
use crate::exact::Number;
use crate::format::Arithmetic;

impl Ctx {
    /// mad (one product plus an addend) and dp2/dp3/dp4 (sums of products), §3.1.3.2.
    pub(super) fn fused(
        &mut self,
        pairs: Vec<(Number, Number)>,
        addend: Option<Number>,
    ) -> (Shaped, ExactResult) {
        let all: Vec<&Number> = pairs
            .iter()
            .flat_map(|(a, b)| [a, b])
            .chain(addend.iter())
            .collect();
        if all.iter().any(|v| v.is_nan()) {
            self.note(Rule::NanPropagates);
            return (
                Shaped {
                    set: AllowedSet::any_nan(),
                    preferred: self.qnan(),
                    governing: Rule::NanPropagates,
                },
                ExactResult::Nan,
            );
        }
        if self.f.arithmetic == Arithmetic::Double {
            return self.dfma(&pairs[0], addend.as_ref().expect("dfma has an addend"));
        }
        let governing = Rule::FusedWorstOrder;
        self.note(governing);
        let (tol, tol_rule) = self.fused_step();
        let mut terms: Vec<Vec<Number>> = Vec::new();
        for (a, b) in &pairs {
            let basic = self.mul_basic(a, b);
            terms.push(self.step_candidates(&basic, tol, tol_rule));
        }
        if let Some(c) = &addend {
            terms.push(vec![c.clone()]);
        }
        let serial = self.sum_orders(terms, tol, tol_rule);
        let exact = fused_exact(&pairs, addend.as_ref());
        let mut set = serial.clone();
        let preferred;
        match &exact {
            ExactResult::Value(x @ Number::Finite { .. }) => {
                set.union(&self.at_least_as_close(x, &serial));
                let nearest = self.flush_bits(rne(&self.f, x));
                set.add_bits(&self.domain(), nearest);
                preferred = nearest;
                if self.f.arithmetic == Arithmetic::Float16 {
                    // §3.1.5: float16 fused operations get 0.6 ULP.
                    self.note(Rule::F16Fused);
                    let pos = position_exact(&self.f, x);
                    let extra = self.tolerance_around(x, &pos, Ulps::SixTenths);
                    set.union(&extra);
                }
            }
            ExactResult::Value(inf) => {
                let bits = rne(&self.f, inf);
                set.add_bits(&self.domain(), bits);
                preferred = bits;
            }
            _ => {
                set.nan = true;
                preferred = self.qnan();
            }
        }
        if set.nan && !matches!(exact, ExactResult::Nan) {
            self.note(Rule::FusedNan);
        }
        let set = self.finish(set);
        (
            Shaped {
                set,
                preferred,
                governing,
            },
            exact,
        )
    }

    pub(super) fn dfma(&mut self, pair: &(Number, Number), c: &Number) -> (Shaped, ExactResult) {
        self.note(Rule::DfmaHalfUlp);
        let exact = fused_exact(std::slice::from_ref(pair), Some(c));
        let s = match &exact {
            ExactResult::Value(x @ Number::Finite { .. }) => {
                if is_zero(x) {
                    // IEEE 754: an exact zero sum is +0 unless both parts are -0.
                    let p = numeric::mul(&pair.0, &pair.1);
                    let neg = is_zero(&p) && p.is_negative() && c.is_negative() && is_zero(c);
                    let bits = rne(&self.f, &Number::zero(neg));
                    Shaped {
                        set: AllowedSet::single(&self.domain(), bits),
                        preferred: bits,
                        governing: Rule::DfmaHalfUlp,
                    }
                } else {
                    let basic = Basic::Rounded(x.clone());
                    self.shape(&basic, Ulps::HalfEven, Rule::DfmaHalfUlp)
                }
            }
            ExactResult::Value(inf) => {
                let bits = rne(&self.f, inf);
                Shaped {
                    set: AllowedSet::single(&self.domain(), bits),
                    preferred: bits,
                    governing: Rule::InfinityArithmetic,
                }
            }
            _ => {
                self.note(Rule::InvalidNan);
                Shaped {
                    set: AllowedSet::any_nan(),
                    preferred: self.qnan(),
                    governing: Rule::InvalidNan,
                }
            }
        };
        (s, exact)
    }

    /// The values an intermediate step may hand on: its allowed extremes and zeros, and,
    /// when the exact step result leaves the format's range, ±max (saturation) and the
    /// exact value (extra intermediate range), §3.1.3.2.
    pub(super) fn step_candidates(
        &mut self,
        basic: &Basic,
        tol: Ulps,
        tol_rule: Rule,
    ) -> Vec<Number> {
        let s = self.shape(basic, tol, tol_rule);
        let mut out = self.members(&s.set);
        if let Basic::Rounded(x) = basic {
            let m = mag(x);
            let max = mag(&self.f.value(self.f.max_finite())).clone();
            let min_normal = mag(&self.f.value(self.f.min_normal())).clone();
            if *m > max {
                self.note(Rule::FusedOverflowLeeway);
                out.push(Number::finite(x.is_negative(), max));
                out.push(x.clone());
            } else if *m < min_normal {
                out.push(x.clone());
            }
        }
        out
    }

    /// Every result of adding the terms two at a time in any order; the last addition's
    /// full allowed set is kept, earlier ones hand on their candidates.
    pub(super) fn sum_orders(
        &mut self,
        terms: Vec<Vec<Number>>,
        tol: Ulps,
        tol_rule: Rule,
    ) -> AllowedSet {
        let mut out = AllowedSet::empty();
        if terms.len() == 1 {
            for v in &terms[0] {
                let s = self.shape(&Basic::Exactly(v.clone(), tol_rule), tol, tol_rule);
                out.union(&s.set);
            }
            return out;
        }
        if terms.len() == 2 {
            for a in &terms[0] {
                for b in &terms[1] {
                    let basic = self.add_basic(a, b);
                    let s = self.shape(&basic, tol, tol_rule);
                    out.union(&s.set);
                }
            }
            return out;
        }
        for i in 0..terms.len() {
            for j in i + 1..terms.len() {
                let mut combined: Vec<Number> = Vec::new();
                for a in &terms[i] {
                    for b in &terms[j] {
                        let basic = self.add_basic(a, b);
                        combined.extend(self.step_candidates(&basic, tol, tol_rule));
                    }
                }
                let mut rest: Vec<Vec<Number>> = terms
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| *k != i && *k != j)
                    .map(|(_, t)| t.clone())
                    .collect();
                rest.push(reduce(combined));
                out.union(&self.sum_orders(rest, tol, tol_rule));
            }
        }
        out
    }

    /// One add step on candidate values: its allowed set and what it hands on (`None`
    /// when an extra-precision intermediate does not fit an f64).
    /// `hand_on`: an intermediate step, whose out-of-range leeway applies (the last step's
    /// result is the instruction's, as in `Ctx::sum_orders`).
    pub(super) fn fast_add_step(
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
    pub(super) fn leeway(&mut self, hi: f64, err: f64, out: &mut Vec<f64>) -> Option<()> {
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

    pub(super) fn fast_mul_step(
        &mut self,
        a: f64,
        b: f64,
        tol: Ulps,
        rule: Rule,
    ) -> Option<Vec<f64>> {
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

    pub(super) fn fast_sum_orders(
        &mut self,
        terms: Vec<Vec<f64>>,
        tol: Ulps,
    ) -> Option<AllowedSet> {
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

    pub(super) fn fast_fused(
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

/// Keep what later monotone steps can reach extremes from: lowest and highest finite value,
/// zeros of each sign, infinities and NaN.
fn reduce(values: Vec<Number>) -> Vec<Number> {
    let mut finite: Vec<Number> = Vec::new();
    let mut other: Vec<Number> = Vec::new();
    for v in values {
        match &v {
            Number::Finite { .. } => finite.push(v),
            _ => {
                let nan_known = v.is_nan() && other.iter().any(|o| o.is_nan());
                if !nan_known && !other.contains(&v) {
                    other.push(v)
                }
            }
        }
    }
    let mut out = other;
    if let Some(lo) = finite.iter().min_by(|a, b| numeric::cmp(a, b)) {
        out.push(lo.clone());
    }
    if let Some(hi) = finite.iter().max_by(|a, b| numeric::cmp(a, b))
        && !out.contains(hi)
    {
        out.push(hi.clone());
    }
    for neg in [false, true] {
        let z = Number::zero(neg);
        if finite.contains(&z) && !out.contains(&z) {
            out.push(z);
        }
    }
    out
}

/// The exact value of a sum of products plus an addend, following IEEE 754 for infinities.
fn fused_exact(pairs: &[(Number, Number)], addend: Option<&Number>) -> ExactResult {
    let finite = pairs
        .iter()
        .flat_map(|(a, b)| [a, b])
        .chain(addend)
        .all(|v| matches!(v, Number::Finite { .. }));
    if finite {
        let mut sum = Number::zero(false);
        let mut all_negative_zeros = true;
        let terms = pairs
            .iter()
            .map(|(a, b)| numeric::mul(a, b))
            .chain(addend.cloned());
        for t in terms {
            all_negative_zeros &= is_zero(&t) && t.is_negative();
            sum = numeric::add(&sum, &t);
        }
        // IEEE 754 (§6.3): an exact zero sum is -0 only when every term is -0.
        if is_zero(&sum) {
            sum = Number::zero(all_negative_zeros);
        }
        return ExactResult::Value(sum);
    }
    // Some operand is infinite: only signs and zero-ness matter, which f64 keeps.
    let mut sum = 0.0f64;
    for (a, b) in pairs {
        sum += sign_class(a) * sign_class(b);
    }
    if let Some(c) = addend {
        sum += sign_class(c);
    }
    if sum.is_nan() {
        ExactResult::Nan
    } else if sum.is_infinite() {
        ExactResult::Value(Number::Infinity { neg: sum < 0.0 })
    } else {
        ExactResult::Nan
    }
}

/// ±1 for nonzero finite values, ±inf for infinities, 0 for zero: sums of products of
/// these follow IEEE 754's infinity rules (inf * 0 = NaN, inf - inf = NaN).
fn sign_class(x: &Number) -> f64 {
    let v = x.to_f64_lossy();
    if v.is_infinite() || v == 0.0 {
        v
    } else {
        v.signum()
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
