//! The fused operations mad, dp2, dp3, dp4 and dfma, in one place: every serial order of
//! their separate multiplies and adds, each step within its own tolerance (§3.1.3.2 and both
//! pages: 1 ULP per step; float16 0.6 ULP, §3.1.5), written once over [`StepValue`] for the
//! exact rational path and the `f64` fast path.

use super::ExactResult;
use super::allowed::AllowedSet;
use super::arith::{Basic, Ctx, EXACT, Shaped};
use super::numeric::{self, is_zero, rne};
use super::rules::{Rule, Ulps};
use super::step::{FusedExact, StepValue};
use crate::exact::Number;
use crate::format::Arithmetic;

impl Ctx {
    /// mad (one product plus an addend) and dp2/dp3/dp4 (sums of products), §3.1.3.2:
    /// every serial order's results, every pattern at least as close to the exact result
    /// as the worst of them, and the correct rounding. `None`: the fast path cannot decide.
    pub(super) fn fused<V: StepValue>(
        &mut self,
        pairs: &[(V, V)],
        addend: Option<&V>,
    ) -> Option<(Shaped, ExactResult)> {
        let mut all = pairs.iter().flat_map(|(a, b)| [a, b]).chain(addend);
        if all.any(|v| v.is_nan()) {
            self.note(Rule::NanPropagates);
            return Some((
                Shaped {
                    set: AllowedSet::any_nan(),
                    preferred: self.qnan(),
                    governing: Rule::NanPropagates,
                },
                ExactResult::Nan,
            ));
        }
        let governing = Rule::FusedWorstOrder;
        self.note(governing);
        let (tol, tol_rule) = self.fused_step();
        let mut terms: Vec<Vec<V>> = Vec::with_capacity(pairs.len() + 1);
        for (a, b) in pairs {
            let basic = self.mul_basic(a, b)?;
            terms.push(self.step_candidates(&basic, tol, tol_rule)?);
        }
        if let Some(c) = addend {
            terms.push(vec![c.clone()]);
        }
        let serial = self.sum_orders(terms, tol, tol_rule)?;
        let exact = V::fused_exact(pairs, addend)?;
        let mut set = serial.clone();
        let (preferred, report) = match &exact {
            FusedExact::Finite(x) => {
                set.union(&self.at_least_as_close::<V>(x, &serial)?);
                let pos = V::position(&self.f, x);
                let nearest = self.flush_bits(V::nearest(&self.f, x, &pos));
                set.add_bits(&self.domain(), nearest);
                if self.f.arithmetic == Arithmetic::Float16 {
                    // §3.1.5: float16 fused operations get 0.6 ULP of the whole result.
                    self.note(Rule::F16Fused);
                    let (extra, _) = self.tolerance_around::<V>(x, Ulps::SixTenths)?;
                    set.union(&extra);
                }
                (nearest, V::exact_result(x))
            }
            FusedExact::Infinite(neg) => {
                let bits = self.f.infinity(*neg);
                set.add_bits(&self.domain(), bits);
                (bits, ExactResult::Value(Number::Infinity { neg: *neg }))
            }
            FusedExact::Nan => {
                set.nan = true;
                (self.qnan(), ExactResult::Nan)
            }
        };
        if set.nan && !matches!(exact, FusedExact::Nan) {
            self.note(Rule::FusedNan);
        }
        let set = self.finish(set);
        Some((
            Shaped {
                set,
                preferred,
                governing,
            },
            report,
        ))
    }

    /// dfma: correctly rounded (§22.14.7), with IEEE 754's zero signs.
    pub(super) fn dfma(&mut self, pair: &(Number, Number), c: &Number) -> (Shaped, ExactResult) {
        self.note(Rule::DfmaHalfUlp);
        let fused = Number::fused_exact(std::slice::from_ref(pair), Some(c)).expect(EXACT);
        let exact = match &fused {
            FusedExact::Finite(x) => ExactResult::Value(x.clone()),
            FusedExact::Infinite(neg) => ExactResult::Value(Number::Infinity { neg: *neg }),
            FusedExact::Nan => ExactResult::Nan,
        };
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
                    let basic = Basic::<Number>::Rounded(x.clone());
                    self.shape(&basic, Ulps::HalfEven, Rule::DfmaHalfUlp)
                        .expect(EXACT)
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
    /// exact value (extra intermediate range), §3.1.3.2. Below the normal range, the exact
    /// value too (extra precision) where the format keeps denorms (float16); a 32-bit
    /// step there is a denorm, which every serial order writes as a zero of its sign
    /// (§3.1.3.2), so the serial orders hand on that zero alone. An implementation that
    /// keeps the tiny value exactly is then judged by the bound the serial orders set (it
    /// is at least as close as the worst of them) and the correct rounding, not by a
    /// further step off by a ULP from an operand no serial order has.
    pub(super) fn step_candidates<V: StepValue>(
        &mut self,
        basic: &Basic<V>,
        tol: Ulps,
        tol_rule: Rule,
    ) -> Option<Vec<V>> {
        let s = self.shape(basic, tol, tol_rule)?;
        let mut out = self.members(&s.set);
        if let Basic::Rounded(x) = basic {
            let max = V::of_bits(&self.f, self.f.max_finite());
            let min_normal = V::of_bits(&self.f, self.f.min_normal());
            if V::cmp_mag(x, &max) == std::cmp::Ordering::Greater {
                self.note(Rule::FusedOverflowLeeway);
                let v = V::exact_value(x)?;
                out.push(if v.is_neg() { max.flip() } else { max });
                out.push(v);
            } else if V::cmp_mag(x, &min_normal) == std::cmp::Ordering::Less
                && !self.f.arithmetic_flushes_subnormals
            {
                out.push(V::exact_value(x)?);
            }
        }
        Some(out)
    }

    /// Every result of adding the terms two at a time in any order; the last addition's
    /// full allowed set is kept, earlier ones hand on their candidates.
    pub(super) fn sum_orders<V: StepValue>(
        &mut self,
        terms: Vec<Vec<V>>,
        tol: Ulps,
        tol_rule: Rule,
    ) -> Option<AllowedSet> {
        let mut out = AllowedSet::empty();
        if terms.len() == 1 {
            for v in &terms[0] {
                let s = self.shape(&Basic::Exactly(v.clone(), tol_rule), tol, tol_rule)?;
                out.union(&s.set);
            }
            return Some(out);
        }
        if terms.len() == 2 {
            for a in &terms[0] {
                for b in &terms[1] {
                    let basic = self.add_basic(a, b)?;
                    let s = self.shape(&basic, tol, tol_rule)?;
                    out.union(&s.set);
                }
            }
            return Some(out);
        }
        for i in 0..terms.len() {
            for j in i + 1..terms.len() {
                let mut combined: Vec<V> = Vec::new();
                for a in &terms[i] {
                    for b in &terms[j] {
                        let basic = self.add_basic(a, b)?;
                        combined.extend(self.step_candidates(&basic, tol, tol_rule)?);
                    }
                }
                let mut rest: Vec<Vec<V>> = terms
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| *k != i && *k != j)
                    .map(|(_, t)| t.clone())
                    .collect();
                rest.push(reduce(combined));
                out.union(&self.sum_orders(rest, tol, tol_rule)?);
            }
        }
        Some(out)
    }
}

/// Keep what later monotone steps can reach extremes from: lowest and highest finite value,
/// zeros of each sign, infinities and NaN.
fn reduce<V: StepValue>(values: Vec<V>) -> Vec<V> {
    let mut out: Vec<V> = Vec::new();
    let push = |out: &mut Vec<V>, v: &V| {
        if !out.iter().any(|o| o.same(v)) {
            out.push(v.clone());
        }
    };
    let finite = || {
        values
            .iter()
            .filter(|v| v.is_zero() || v.is_finite_nonzero())
    };
    for v in values
        .iter()
        .filter(|v| !(v.is_zero() || v.is_finite_nonzero()))
    {
        push(&mut out, v);
    }
    if let Some(lo) = finite().min_by(|a, b| a.order(b)) {
        push(&mut out, lo);
    }
    if let Some(hi) = finite().max_by(|a, b| a.order(b)) {
        push(&mut out, hi);
    }
    for neg in [false, true] {
        let z = V::zero(neg);
        if finite().any(|v| v.same(&z)) {
            push(&mut out, &z);
        }
    }
    out
}
