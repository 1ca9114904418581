//! Divide, in one place: the exact rational path and the `f64` fast path of 32-bit and
//! float16 `div` (§3.1.3.2: direct, or as `a * (1/b)` with a 1 ULP reciprocal; under the
//! D3D10 rules 1 ULP of arithmetic, from the D3D10 page), and the exact path of `ddiv`
//! (§22.14.6). The double fast path is in `fast_double.rs`.

use std::cmp::Ordering;

use super::allowed::AllowedSet;
use super::arith::{
    Basic, Ctx, Shaped, exact_of, is_one, is_zero_num, reciprocal_tolerance, signed,
};
use super::fast::{sign, times};
use super::numeric::{self, is_zero, position_exact, rne};
use super::rules::{Rule, Ulps};
use super::{ExactResult, OperandReport};
use crate::exact::{Number, Ratio};
use crate::format::{Arithmetic, Class};

impl Ctx {
    pub(super) fn div_basic(&self, a: &Number, b: &Number) -> Basic {
        use Number::*;
        let neg = a.is_negative() != b.is_negative();
        match (a, b) {
            (Nan { .. }, _) | (_, Nan { .. }) => Basic::Nan(Rule::NanPropagates),
            (Infinity { .. }, Infinity { .. }) => Basic::Nan(Rule::InvalidNan),
            _ if is_zero_num(a) && is_zero_num(b) => Basic::Nan(Rule::DivideByZero),
            _ if is_one(b) => Basic::Exactly(signed(a, b.is_negative()), Rule::DivOneIdentity),
            (Infinity { .. }, _) => Basic::Exactly(Infinity { neg }, Rule::InfinityArithmetic),
            (_, Infinity { .. }) => Basic::Exactly(Number::zero(neg), Rule::InfinityArithmetic),
            _ if is_zero(b) => Basic::Exactly(Infinity { neg }, Rule::DivideByZero),
            _ if is_zero(a) => Basic::Exactly(Number::zero(neg), Rule::ZeroOperand),
            _ => Basic::Rounded(numeric::div(a, b)),
        }
    }

    /// The D3D10 divide: 1 ULP in the sense of the D3D10 page ("Multiply and divide each
    /// operate at ... accuracy to 1 ULP"); the two-step a * (1/b) came with D3D10.1.
    pub(super) fn div_d3d10(&mut self, a: &Number, b: &Number) -> (Shaped, ExactResult) {
        let basic = self.div_basic(a, b);
        let exact = exact_of(&basic);
        let (tol, _) = self.unfused();
        self.note(Rule::D3D10Divide);
        let mut s = self.shape(&basic, tol, Rule::D3D10Divide);
        if matches!(basic, Basic::Rounded(_)) {
            s.governing = Rule::D3D10Divide;
        }
        (s, exact)
    }

    /// 32-bit and float16 divide: direct, or a * (1/b) (§3.1.3.2).
    pub(super) fn div(&mut self, a: &Number, b: &Number) -> (Shaped, ExactResult) {
        let basic = self.div_basic(a, b);
        let exact = exact_of(&basic);
        let (tol, tol_rule) = self.unfused();
        let b_finite_nonzero = matches!(b, Number::Finite { .. }) && !is_zero(b);
        match &basic {
            Basic::Rounded(x) => {
                let two = self.two_step_divide(a, b);
                let mut set = self.at_least_as_close(x, &two);
                set.union(&two);
                let nearest = self.flush_bits(rne(&self.f, x));
                set.add_bits(&self.domain(), nearest);
                let _ = tol;
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
            Basic::Exactly(_, Rule::InfinityArithmetic | Rule::ZeroOperand) if b_finite_nonzero => {
                let mut s = self.shape(&basic, tol, tol_rule);
                let two = self.two_step_divide(a, b);
                if !two.is_empty() && two != s.set {
                    self.note(Rule::DivLargeDenominator);
                }
                s.set.union(&two);
                (s, exact)
            }
            _ => (self.shape(&basic, tol, tol_rule), exact),
        }
    }

    pub(super) fn div_rule(&mut self) -> Rule {
        let rule = match self.f.arithmetic {
            Arithmetic::Float16 => Rule::F16DivTwoStep,
            _ => Rule::DivTwoStep,
        };
        self.note(rule);
        rule
    }

    /// Every result of a * r for r an allowed reciprocal of b (b finite and nonzero).
    pub(super) fn two_step_divide(&mut self, a: &Number, b: &Number) -> AllowedSet {
        let rule = self.div_rule();
        let rcp_tol = reciprocal_tolerance(self.f.arithmetic);
        let x = numeric::div(&Number::finite(false, Ratio::from_integer(1u32)), b);
        let pos = position_exact(&self.f, &x);
        let rset = self.tolerance_around(&x, &pos, rcp_tol);
        let (tol, tol_rule) = self.unfused();
        let mut out = AllowedSet::empty();
        for r in self.members(&rset) {
            if matches!(&r, Number::Finite { .. }) && is_zero(&r) {
                self.note(Rule::DivLargeDenominator);
            }
            let basic = self.mul_basic(a, &r);
            let s = self.shape(&basic, tol, tol_rule);
            out.union(&s.set);
        }
        let _ = rule;
        out
    }

    /// ddiv: correctly rounded (§22.14.6), with denorms honoured (§3.1.4) or read as zero
    /// (the ddiv table); both readings conform.
    pub(super) fn ddiv(&mut self, a: &OperandReport, b: &OperandReport) -> (Shaped, ExactResult) {
        let (va, vb) = (self.value(a), self.value(b));
        let basic = self.div_basic(&va, &vb);
        let exact = exact_of(&basic);
        self.note(Rule::DDivHalfUlp);
        let mut s = self.shape(&basic, Ulps::HalfEven, Rule::DDivHalfUlp);
        let denorm = |r: &OperandReport| self.f.class(r.bits) == Class::Subnormal;
        if denorm(a) || denorm(b) {
            let zero_of = |v: &Number, r: &OperandReport| {
                if denorm(r) {
                    Number::zero(v.is_negative())
                } else {
                    v.clone()
                }
            };
            let table = self.div_basic(&zero_of(&va, a), &zero_of(&vb, b));
            let t = self.shape(&table, Ulps::HalfEven, Rule::DDivDenormReadings);
            if t.set != s.set {
                self.note(Rule::DDivDenormReadings);
                s.set.union(&t.set);
            }
        }
        (s, exact)
    }

    /// The D3D10 divide, one step held to the unfused tolerance (see `Ctx::div_d3d10`).
    pub(super) fn fast_div_d3d10(&mut self, a: f64, b: f64) -> Option<(Shaped, ExactResult)> {
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
    pub(super) fn fast_div(&mut self, a: f64, b: f64) -> Option<(Shaped, ExactResult)> {
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
}
