//! The approximated one-operand instructions: rsq, exp, log, sin and cos (§22.10), held
//! to a relative or absolute bound around a mostly irrational exact result. Rational cases
//! (rsq of a perfect square, 2^n, log2 of a power of two) are decided in rationals; every
//! other bound end is compared with each candidate on enclosures from `transcendental.rs`.

use super::ExactResult;
use super::allowed::AllowedSet;
use super::arith::{Ctx, Shaped};
use super::functions::one;
use super::numeric::value_f64;
use super::numeric::{self, mag, rne};
use super::rules::Rule;
use super::step::{Kind, StepValue};
use super::transcendental::{End, Fun, Reach, Real};
use crate::exact::{Number, Ratio};
use crate::format::{RoundOptions, Rounding, round_f64};
use std::cmp::Ordering;

const REL_2_21: f64 = 1.0 / 2_097_152.0; // 2^-21

impl Ctx {
    /// Patterns within 2^-21 relative of an exact value.
    pub(super) fn relative_exact(&mut self, r: &Number) -> AllowedSet {
        let eps = Ratio::dyadic(1u32, -21);
        let m = mag(r);
        let delta = m.mul(&eps);
        let (lo, _) = m.abs_diff(&delta);
        let hi = m.add(&delta);
        let (lo, hi) = if r.is_negative() {
            (Number::finite(true, hi), Number::finite(true, lo))
        } else {
            (Number::finite(false, lo), Number::finite(false, hi))
        };
        let mut set = numeric::interval_set(&self.f, &lo, &hi);
        // Past the point where rounding to nearest overflows, infinity is in reach too.
        let top = value_f64(&self.f, self.f.max_finite());
        let half_ulp = super::numeric::pow2(self.f.emax() - self.f.frac_bits as i32 - 1);
        if m.add(&delta) >= *mag(&numeric::from_f64(top + half_ulp)) {
            self.note(Rule::Overflow);
            set.add_bits(&self.domain(), self.f.infinity(r.is_negative()));
        }
        self.finish(set)
    }

    /// Patterns between two irrational ends, decided exactly; the `f64` approximations of
    /// the ends start the search, which then steps pattern by pattern.
    pub(super) fn real_interval(
        &mut self,
        lo: &mut Real,
        lo_approx: f64,
        hi: &mut Real,
        hi_approx: f64,
    ) -> AllowedSet {
        let d = self.domain();
        let max = self.f.max_finite();
        let (kmin, kmax) = (
            d.key(max | self.f.assemble(true, 0, 0)).expect("finite"),
            d.key(max).expect("finite"),
        );
        let y = |k: i64| value_f64(&self.f, d.bits(k));
        let start = |approx: f64| {
            let b = round_f64(&self.f, approx, RoundOptions::new(Rounding::NearestEven)).bits;
            d.key(b).unwrap_or(0).clamp(kmin, kmax)
        };
        // The first pattern at or above the low end.
        let mut first = start(lo_approx);
        while first > kmin && lo.cmp_f64(y(first - 1)) != Ordering::Less {
            first -= 1;
        }
        while first <= kmax && lo.cmp_f64(y(first)) == Ordering::Less {
            first += 1;
        }
        // The last pattern at or below the high end.
        let mut last = start(hi_approx);
        while last < kmax && hi.cmp_f64(y(last + 1)) != Ordering::Greater {
            last += 1;
        }
        while last >= kmin && hi.cmp_f64(y(last)) == Ordering::Greater {
            last -= 1;
        }
        let mut set = AllowedSet::empty();
        set.add_key_range(first, last);
        // Past the point where rounding to nearest overflows, infinity is in reach too.
        let top = value_f64(&self.f, max);
        let half_ulp = super::numeric::pow2(self.f.emax() - self.f.frac_bits as i32 - 1);
        if hi.cmp_f64(top + half_ulp) != Ordering::Greater {
            self.note(Rule::Overflow);
            set.add_bits(&d, self.f.infinity(false));
        }
        if lo.cmp_f64(-(top + half_ulp)) != Ordering::Less {
            self.note(Rule::Overflow);
            set.add_bits(&d, self.f.infinity(true));
        }
        set
    }

    /// The correctly rounded pattern of an irrational value, decided on the midpoints
    /// around the `f64` approximation's nearest pattern.
    pub(super) fn nearest_real(&self, exact: &mut Real, approx: f64) -> u64 {
        let d = self.domain();
        let max = self.f.max_finite();
        let top = value_f64(&self.f, max);
        let half_ulp = super::numeric::pow2(self.f.emax() - self.f.frac_bits as i32 - 1);
        if exact.cmp_f64(top + half_ulp) != Ordering::Greater {
            return self.f.infinity(false);
        }
        if exact.cmp_f64(-(top + half_ulp)) != Ordering::Less {
            return self.f.infinity(true);
        }
        let kmax = d.key(max).expect("finite");
        let kmin = d.key(max | self.f.assemble(true, 0, 0)).expect("finite");
        let y = |k: i64| value_f64(&self.f, d.bits(k));
        let b = round_f64(&self.f, approx, RoundOptions::new(Rounding::NearestEven)).bits;
        let mut k = d.key(b).unwrap_or(0).clamp(kmin, kmax);
        // Grids and midpoints of f32 and f16 are f64 values; an irrational value is never
        // a midpoint, so each comparison settles.
        loop {
            // cmp_f64(m) is how the midpoint m compares with the exact value.
            if k > kmin && exact.cmp_f64((y(k - 1) + y(k)) / 2.0) == Ordering::Greater {
                k -= 1;
            } else if k < kmax && exact.cmp_f64((y(k) + y(k + 1)) / 2.0) == Ordering::Less {
                k += 1;
            } else {
                break;
            }
        }
        // A value that rounds to zero keeps its sign.
        let bits = d.bits(k);
        if y(k) == 0.0 {
            self.f.assemble(approx < 0.0, 0, 0)
        } else {
            bits
        }
    }

    /// An irrational result of `fun` at `x` within `reach`: the exactly decided set and
    /// the correctly rounded pattern.
    pub(super) fn irrational_result(
        &mut self,
        fun: Fun,
        reach: Reach,
        x: f64,
        approx: f64,
        clamp_unit: bool,
        rule: Rule,
    ) -> (Shaped, ExactResult) {
        let (lo_a, hi_a) = match reach {
            Reach::Relative2m21 => {
                let (a, b) = (approx * (1.0 - REL_2_21), approx * (1.0 + REL_2_21));
                (a.min(b), a.max(b))
            }
            Reach::Absolute2m21 => (approx - REL_2_21, approx + REL_2_21),
            Reach::Absolute0_0008 => (approx - 0.0008, approx + 0.0008),
        };
        let mut lo = Real::new(fun, reach, End::Low, x);
        let mut hi = Real::new(fun, reach, End::High, x);
        let mut set = self.real_interval(&mut lo, lo_a, &mut hi, hi_a);
        if clamp_unit {
            // sin and cos never leave [-1, 1] (the bound does not widen the range).
            let d = self.domain();
            let one = d
                .key(round_f64(&self.f, 1.0, RoundOptions::new(Rounding::NearestEven)).bits)
                .expect("1");
            let mut kept = AllowedSet::empty();
            for &(l, h) in set.key_ranges() {
                kept.add_key_range(l.max(-one - 1), h.min(one));
            }
            set = kept;
        }
        let mut set = self.finish(set);
        let mut exact = Real::new(fun, reach, End::Exact, x);
        let preferred = self.flush_bits(self.nearest_real(&mut exact, approx));
        set.add_bits(&self.domain(), preferred);
        (
            Shaped {
                set,
                preferred,
                governing: rule,
            },
            ExactResult::Approx(approx),
        )
    }

    /// A rational result within 2^-21 relative: decided in rationals.
    pub(super) fn rational_relative(&mut self, r: &Number, rule: Rule) -> (Shaped, ExactResult) {
        let mut set = self.relative_exact(r);
        let preferred = self.flush_bits(rne(&self.f, r));
        set.add_bits(&self.domain(), preferred);
        (
            Shaped {
                set,
                preferred,
                governing: rule,
            },
            ExactResult::Value(r.clone()),
        )
    }

    /// rsq: 2^-21 relative (§22.10.19).
    pub(super) fn rsq(&mut self, v: f64) -> (Shaped, ExactResult) {
        if v == f64::INFINITY {
            self.exactly(&Number::zero(false), Rule::RsqSpecial)
        } else if v == 0.0 {
            self.exactly(
                &Number::Infinity {
                    neg: v.is_sign_negative(),
                },
                Rule::RsqSpecial,
            )
        } else if v < 0.0 {
            self.nan(Rule::RsqSpecial)
        } else {
            self.note(Rule::RsqRelative);
            let s = v.sqrt();
            if s.mul_add(-s, v) == 0.0 {
                // A perfect square (f32 and f16 roots are exact in f64): 1/s is rational.
                let r = numeric::div(&one(), &numeric::from_f64(s));
                return self.rational_relative(&r, Rule::RsqRelative);
            }
            self.irrational_result(
                Fun::Rsq,
                Reach::Relative2m21,
                v,
                1.0 / s,
                false,
                Rule::RsqRelative,
            )
        }
    }

    /// exp: 2^x with 2^-21 relative error (§22.10.6).
    pub(super) fn exp(&mut self, v: f64) -> (Shaped, ExactResult) {
        if v == f64::NEG_INFINITY {
            return self.exactly(&Number::zero(false), Rule::ExpSpecial);
        }
        if v == f64::INFINITY {
            return self.exactly(&Number::Infinity { neg: false }, Rule::ExpSpecial);
        }
        if v == 0.0 {
            return self.exactly(&one(), Rule::ExpSpecial);
        }
        self.note(Rule::ExpRelative);
        let approx = v.exp2();
        if approx < value_f64(&self.f, 1) / 4.0 {
            // 2^x (1 + 2^-21) is below half the smallest denorm: only +0 rounds from it.
            let (s, _) = self.exactly(&Number::zero(false), Rule::ExpRelative);
            return (s, ExactResult::Approx(approx));
        }
        if approx > 4.0 * value_f64(&self.f, self.f.max_finite()) {
            let (s, _) = self.exactly(&Number::Infinity { neg: false }, Rule::Overflow);
            return (s, ExactResult::Approx(approx));
        }
        if v.fract() == 0.0 {
            // An integral exponent (small, after the checks above) gives an exact power of two.
            let r = Number::finite(false, Ratio::dyadic(1u32, v as i64));
            return self.rational_relative(&r, Rule::ExpRelative);
        }
        self.irrational_result(
            Fun::Exp2,
            Reach::Relative2m21,
            v,
            approx,
            false,
            Rule::ExpRelative,
        )
    }

    /// log: log2 x, 2^-21 absolute on [0.5, 2], 2^-21 relative elsewhere (§22.10.8).
    pub(super) fn log(&mut self, v: f64) -> (Shaped, ExactResult) {
        if v == f64::INFINITY {
            return self.exactly(&Number::Infinity { neg: false }, Rule::LogSpecial);
        }
        if v == 0.0 {
            return self.exactly(&Number::Infinity { neg: true }, Rule::LogSpecial);
        }
        if v < 0.0 {
            return self.nan(Rule::LogSpecial);
        }
        self.note(Rule::LogTolerance);
        let approx = v.log2();
        let absolute = (0.5..=2.0).contains(&v);
        // A power of two has an exact integral logarithm: a rational bound.
        if v.to_bits() & ((1u64 << 52) - 1) == 0 && v.is_normal() {
            let r = Number::finite(approx < 0.0, Ratio::from_integer(approx.abs() as u64));
            if !absolute {
                return self.rational_relative(&r, Rule::LogTolerance);
            }
            let d = Number::finite(false, Ratio::dyadic(1u32, -21));
            let lo = numeric::add(&r, &d.negate());
            let hi = numeric::add(&r, &d);
            let mut set = self.finish(numeric::interval_set(&self.f, &lo, &hi));
            let preferred = self.flush_bits(rne(&self.f, &r));
            set.add_bits(&self.domain(), preferred);
            return (
                Shaped {
                    set,
                    preferred,
                    governing: Rule::LogTolerance,
                },
                ExactResult::Value(r),
            );
        }
        let reach = if absolute {
            Reach::Absolute2m21
        } else {
            Reach::Relative2m21
        };
        self.irrational_result(Fun::Log2, reach, v, approx, false, Rule::LogTolerance)
    }

    /// sin or cos: 0.0008 absolute on [-100π, 100π]; anything in [-1, 1] outside (§22.10.20).
    pub(super) fn sin_cos(&mut self, v: f64, sine: bool) -> (Shaped, ExactResult) {
        match v {
            _ if v.is_infinite() => self.nan(Rule::Sincos),
            _ if v == 0.0 => {
                if sine {
                    self.exactly(&Number::zero(v.is_sign_negative()), Rule::Sincos)
                } else {
                    self.exactly(&one(), Rule::Sincos)
                }
            }
            // 100π is irrational, so no f32 or f16 value sits on the edge: f64 settles it.
            _ if v.abs() <= 100.0 * std::f64::consts::PI => {
                self.note(Rule::Sincos);
                let (fun, approx) = if sine {
                    (Fun::Sin, v.sin())
                } else {
                    (Fun::Cos, v.cos())
                };
                self.irrational_result(fun, Reach::Absolute0_0008, v, approx, true, Rule::Sincos)
            }
            _ => {
                self.note(Rule::SincosOutside);
                let approx = if sine { v.sin() } else { v.cos() };
                let one = Number::finite(false, Ratio::from_integer(1u32));
                let set = self.finish(numeric::interval_set(&self.f, &one.negate(), &one));
                let fun = if sine { Fun::Sin } else { Fun::Cos };
                let mut exact = Real::new(fun, Reach::Absolute0_0008, End::Exact, v);
                let preferred = self.flush_bits(self.nearest_real(&mut exact, approx));
                (
                    Shaped {
                        set,
                        preferred,
                        governing: Rule::SincosOutside,
                    },
                    ExactResult::Approx(approx),
                )
            }
        }
    }

    /// frc: x - round_ni(x) (§22.10.7), a subtraction rounded as add is; results kept in
    /// [+0, 1], with the largest value below 1 allowed whenever 1.0 is (the table's
    /// [+0, 1)). Written once for both paths (`None`: the fast path cannot decide).
    pub(super) fn frc<V: StepValue>(&mut self, x: &V) -> Option<(Shaped, ExactResult)> {
        match x.kind() {
            Kind::Nan => return None,
            Kind::Infinite { .. } => return Some(self.nan(Rule::Frc)),
            _ => {}
        }
        self.note(Rule::Frc);
        let r = V::sum(x, &x.floor_of().flip())?;
        if V::exact_is_zero(&r) {
            return Some(self.exactly(&V::zero(false), Rule::Frc));
        }
        let (tol, _) = self.unfused();
        let (set, nearest) = self.tolerance_around::<V>(&r, tol)?;
        let d = self.domain();
        let one_key = d.key(self.one_bits()).expect("1.0");
        let mut set = set;
        if set.contains_key(one_key) {
            set.add_key(one_key - 1);
        }
        // Keep [+0, 1].
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
            V::exact_result(&r),
        ))
    }
}
