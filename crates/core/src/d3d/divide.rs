//! Divide, in one place: 32-bit `div` (§3.1.3.2: direct, or as `a * (1/b)` with a 1 ULP
//! reciprocal; under the D3D10 rules 1 ULP of arithmetic, from the D3D10 page), float16
//! `div` (an unfused operation, so correctly rounded: §3.1.5), written once over [`StepValue`] for the exact rational path and the `f64` fast
//! path, and the exact path of `ddiv` (§22.14.6). The double fast path is in
//! `f64_path_double.rs`.

use super::allowed::AllowedSet;
use super::arith::{Basic, Ctx, EXACT, Shaped, exact_of, reciprocal_tolerance, signed};
use super::rules::{Rule, Ulps};
use super::step::{Kind, StepValue};
use super::{ExactResult, OperandReading};
use crate::exact::Number;
use crate::format::{Arithmetic, Class};

impl Ctx {
    /// div (§3.1.3.2, IEEE 754 §7.2, §7.3): NaN in, NaN out; inf / inf and 0 / 0 are
    /// invalid; x / ±1 = ±x exactly; inf / x is inf, x / inf is zero, x / 0 is inf and
    /// 0 / x is zero, each with the quotient's sign; anything else is rounded.
    pub(super) fn div_basic<V: StepValue>(&self, a: &V, b: &V) -> Option<Basic<V>> {
        use Kind::*;
        let neg = a.is_neg() != b.is_neg();
        Some(match (a.kind(), b.kind()) {
            (Nan, _) | (_, Nan) => Basic::Nan(Rule::NanPropagates),
            (Infinite { .. }, Infinite { .. }) => Basic::Nan(Rule::InvalidNan),
            (Zero { .. }, Zero { .. }) => Basic::Nan(Rule::DivideByZero),
            _ if b.unit() => Basic::Exactly(signed(a, b.is_neg()), Rule::DivOneIdentity),
            (Infinite { .. }, _) => Basic::Exactly(V::infinity(neg), Rule::InfinityArithmetic),
            (_, Infinite { .. }) => Basic::Exactly(V::zero(neg), Rule::InfinityArithmetic),
            (_, Zero { .. }) => Basic::Exactly(V::infinity(neg), Rule::DivideByZero),
            (Zero { .. }, _) => Basic::Exactly(V::zero(neg), Rule::ZeroOperand),
            _ => Basic::Rounded(V::quotient(a, b)?),
        })
    }

    /// The D3D10 divide: 1 ULP in the sense of the D3D10 page ("Multiply and divide each
    /// operate at ... accuracy to 1 ULP"); the two-step a * (1/b) came with D3D10.1.
    pub(super) fn div_d3d10<V: StepValue>(
        &mut self,
        a: &V,
        b: &V,
    ) -> Option<(Shaped, ExactResult)> {
        let basic = self.div_basic(a, b)?;
        let exact = exact_of(&basic);
        let (tol, _) = self.unfused();
        self.note(Rule::D3D10Divide);
        let mut s = self.shape(&basic, tol, Rule::D3D10Divide)?;
        if matches!(basic, Basic::Rounded(_)) {
            s.governing = Rule::D3D10Divide;
        }
        Some((s, exact))
    }

    /// 32-bit divide: direct, or a * (1/b) (§3.1.3.2): every result of the two steps,
    /// every pattern at least as close to a/b as the worst of them, and the correct
    /// rounding. Float16 divide is an unfused operation like any other (§3.1.5 and both
    /// pages' 16-bit rules: the nearest representable value), so the 32-bit permission
    /// to divide in two steps does not carry over: only the correctly rounded quotient.
    pub(super) fn div<V: StepValue>(&mut self, a: &V, b: &V) -> Option<(Shaped, ExactResult)> {
        let basic = self.div_basic(a, b)?;
        let exact = exact_of(&basic);
        let (tol, tol_rule) = self.unfused();
        if self.f.arithmetic == Arithmetic::Float16 {
            self.note(Rule::F16DivRounded);
            return Some((self.shape(&basic, tol, tol_rule)?, exact));
        }
        Some(match &basic {
            Basic::Rounded(x) => {
                let two = self.two_step_divide(a, b)?;
                let mut set = self.at_least_as_close::<V>(x, &two)?;
                set.union(&two);
                let pos = V::position(&self.f, x);
                let nearest = self.flush_bits(V::nearest(&self.f, x, &pos));
                set.add_bits(&self.domain(), nearest);
                let set = self.finish(set);
                (
                    Shaped {
                        set,
                        preferred: nearest,
                        governing: self.div_rule(),
                    },
                    exact,
                )
            }
            Basic::Exactly(_, Rule::InfinityArithmetic | Rule::ZeroOperand)
                if b.is_finite_nonzero() =>
            {
                let mut s = self.shape(&basic, tol, tol_rule)?;
                let two = self.two_step_divide(a, b)?;
                if !two.is_empty() && two != s.set {
                    self.note(Rule::DivLargeDenominator);
                }
                s.set.union(&two);
                (s, exact)
            }
            _ => (self.shape(&basic, tol, tol_rule)?, exact),
        })
    }

    pub(super) fn div_rule(&mut self) -> Rule {
        self.note(Rule::DivTwoStep);
        Rule::DivTwoStep
    }

    /// Every result of a * r for r an allowed reciprocal of b (b finite and nonzero): the
    /// reciprocal within its own tolerance, the multiply within the unfused one.
    pub(super) fn two_step_divide<V: StepValue>(&mut self, a: &V, b: &V) -> Option<AllowedSet> {
        self.div_rule();
        let rcp_tol = reciprocal_tolerance(self.f.arithmetic);
        let x = V::quotient(&V::one(), b)?;
        let (rset, _) = self.tolerance_around::<V>(&x, rcp_tol)?;
        let (tol, tol_rule) = self.unfused();
        let mut out = AllowedSet::empty();
        for r in self.members::<V>(&rset) {
            if r.is_zero() {
                self.note(Rule::DivLargeDenominator);
            }
            let basic = self.mul_basic(a, &r)?;
            let s = self.shape(&basic, tol, tol_rule)?;
            out.union(&s.set);
        }
        Some(out)
    }

    /// ddiv: correctly rounded (§22.14.6), with denorms honoured (§3.1.4) or read as zero
    /// (the ddiv table); both readings conform.
    pub(super) fn ddiv(&mut self, a: &OperandReading, b: &OperandReading) -> (Shaped, ExactResult) {
        let (va, vb) = (self.value(a), self.value(b));
        let basic = self.div_basic(&va, &vb).expect(EXACT);
        let exact = exact_of(&basic);
        self.note(Rule::DDivHalfUlp);
        let mut s = self
            .shape(&basic, Ulps::HalfEven, Rule::DDivHalfUlp)
            .expect(EXACT);
        let denorm = |r: &OperandReading| self.f.class(r.bits) == Class::Subnormal;
        if denorm(a) || denorm(b) {
            let zero_of = |v: &Number, r: &OperandReading| {
                if denorm(r) {
                    Number::zero(v.is_negative())
                } else {
                    v.clone()
                }
            };
            let table = self
                .div_basic(&zero_of(&va, a), &zero_of(&vb, b))
                .expect(EXACT);
            let t = self
                .shape(&table, Ulps::HalfEven, Rule::DDivDenormReadings)
                .expect(EXACT);
            if t.set != s.set {
                self.note(Rule::DDivDenormReadings);
                s.set.union(&t.set);
            }
        }
        (s, exact)
    }
}
