//! One-operand instructions: sqrt, rcp, rsq, exp, log, sincos, frc and the round_* family.
//!
//! sqrt is positioned exactly with an integer square root. rcp's exact value is rational,
//! and so are rsq of a perfect square, 2^n and log2 of a power of two: their bounds are
//! rational and decided in rationals. Every other rsq, exp, log, sin and cos result is
//! irrational; its bound's ends are compared with each candidate exactly on enclosures of
//! growing precision (`transcendental.rs`), so no result is let in or out by a margin.

use super::allowed::{AllowedSet, Domain};
use super::arith::{Ctx, EXACT, Shaped, single_output};
use super::numeric::{self, Frac, FracClass, Position, is_zero, mag, position_exact, rne};
use super::numeric::{nearest_of_position, position_f64, value_f64};
use super::rules::{Rule, Ulps};
use super::step::{Kind, Near, StepValue, sign};
use super::transcendental::{End, Fun, Reach, Real};
use super::{ExactResult, Op, OperandReport, OutputReport};
use crate::exact::{Number, Ratio};
use crate::format::{Arithmetic, Class, RoundOptions, Rounding, round_f64};
use std::cmp::Ordering;

const REL_2_21: f64 = 1.0 / 2_097_152.0; // 2^-21

impl Ctx {
    pub fn function(
        &mut self,
        op: Op,
        arg: &OperandReport,
        outs: &[(&'static str, Domain)],
    ) -> Vec<OutputReport> {
        let v = self.fv(arg);
        if v.is_nan() {
            self.note(Rule::NanPropagates);
            return outs
                .iter()
                .map(|(name, d)| OutputReport {
                    name,
                    domain: *d,
                    exact: ExactResult::Nan,
                    preferred: self.qnan(),
                    allowed: AllowedSet::any_nan(),
                    governing: Rule::NanPropagates,
                })
                .collect();
        }
        match op {
            Op::Sqrt => {
                let (s, e) = self.sqrt(&self.value(arg));
                single_output(outs, s, e)
            }
            Op::Rcp => {
                let x = self.value(arg);
                let (s, e) = if self.f.arithmetic == Arithmetic::Double {
                    self.drcp(arg, &x)
                } else {
                    self.rcp(&x)
                };
                single_output(outs, s, e)
            }
            Op::Rsq => {
                let (s, e) = self.rsq(v);
                single_output(outs, s, e)
            }
            Op::Exp => {
                let (s, e) = self.exp(v);
                single_output(outs, s, e)
            }
            Op::Log => {
                let (s, e) = self.log(v);
                single_output(outs, s, e)
            }
            Op::Frc => {
                let (s, e) = self.frc(&self.value(arg)).expect(EXACT);
                single_output(outs, s, e)
            }
            Op::RoundNe | Op::RoundNi | Op::RoundPi | Op::RoundZ => {
                let (s, e) = self.round_integral(op, v);
                single_output(outs, s, e)
            }
            Op::Sin | Op::Cos => {
                let (s, e) = self.sin_cos(v, op == Op::Sin);
                single_output(outs, s, e)
            }
            Op::Sincos => {
                let (s, es) = self.sin_cos(v, true);
                let (c, ec) = self.sin_cos(v, false);
                vec![
                    OutputReport {
                        name: outs[0].0,
                        domain: outs[0].1,
                        exact: es,
                        preferred: s.preferred,
                        allowed: s.set,
                        governing: s.governing,
                    },
                    OutputReport {
                        name: outs[1].0,
                        domain: outs[1].1,
                        exact: ec,
                        preferred: c.preferred,
                        allowed: c.set,
                        governing: c.governing,
                    },
                ]
            }
            _ => unreachable!("not a one-operand function: {op:?}"),
        }
    }

    fn exactly<V: StepValue>(&mut self, v: &V, rule: Rule) -> (Shaped, ExactResult) {
        self.note(rule);
        let bits = self.flush_bits(v.pattern(&self.f));
        (
            Shaped {
                set: AllowedSet::single(&self.domain(), bits),
                preferred: bits,
                governing: rule,
            },
            v.value_report(),
        )
    }

    fn nan(&mut self, rule: Rule) -> (Shaped, ExactResult) {
        self.note(rule);
        (
            Shaped {
                set: AllowedSet::any_nan(),
                preferred: self.qnan(),
                governing: rule,
            },
            ExactResult::Nan,
        )
    }

    /// sqrt: 1 ULP for 32-bit (§22.10.21), 0.5 ULP for float16 (§3.1.5).
    fn sqrt(&mut self, x: &Number) -> (Shaped, ExactResult) {
        match x {
            Number::Infinity { neg: false } => self.exactly(x, Rule::SqrtSpecial),
            Number::Infinity { neg: true } => self.nan(Rule::SqrtSpecial),
            _ if is_zero(x) => self.exactly(x, Rule::SqrtSpecial),
            _ if x.is_negative() => self.nan(Rule::SqrtSpecial),
            _ => {
                let (tol, rule) = sqrt_tolerance(self.f.arithmetic);
                self.note(rule);
                let (pos, root, exact_root) = sqrt_position(&self.f, mag(x));
                let nearest = nearest_of(&self.f, &pos, &root);
                let set = self.tolerance_at(&pos, nearest, tol);
                let exact = match exact_root {
                    Some(r) => ExactResult::Value(Number::finite(false, r)),
                    None => ExactResult::Approx(root.to_f64_lossy()),
                };
                (
                    Shaped {
                        set,
                        preferred: self.flush_bits(nearest),
                        governing: rule,
                    },
                    exact,
                )
            }
        }
    }

    /// 1/±inf = ±0 and 1/±0 = ±inf, exactly (the rcp/drcp tables, §22.10.18, §22.14.5).
    fn reciprocal_special(&mut self, x: &Number) -> (Shaped, ExactResult) {
        let result = match x {
            Number::Infinity { neg } => Number::zero(*neg),
            _ => Number::Infinity {
                neg: x.is_negative(),
            },
        };
        self.exactly(&result, Rule::RcpSpecial)
    }

    /// rcp: 2^-21 relative (§22.10.18) or 1 ULP (§3.1.3.2); either reading conforms.
    fn rcp(&mut self, x: &Number) -> (Shaped, ExactResult) {
        match x {
            _ if reciprocal_is_special(x) => self.reciprocal_special(x),
            _ => {
                self.note(Rule::RcpRelative);
                let r = numeric::div(&Number::finite(false, Ratio::from_integer(1u32)), x);
                let mut set = self.relative_exact(&r);
                let one_ulp = self.reciprocal_step();
                let (other, _) = self.tolerance_around::<Number>(&r, one_ulp).expect(EXACT);
                if !other.is_empty() {
                    self.note(Rule::RcpOneUlpReading);
                }
                set.union(&other);
                let preferred = self.flush_bits(rne(&self.f, &r));
                set.add_bits(&self.domain(), preferred);
                let set = self.finish(set);
                (
                    Shaped {
                        set,
                        preferred,
                        governing: Rule::RcpRelative,
                    },
                    ExactResult::Value(r),
                )
            }
        }
    }

    /// drcp: either neighbour of the exact reciprocal, exact when representable
    /// (§22.14.5); a denorm operand also gets the table's ±inf (read as zero).
    fn drcp(&mut self, arg: &OperandReport, x: &Number) -> (Shaped, ExactResult) {
        match x {
            _ if reciprocal_is_special(x) => self.reciprocal_special(x),
            _ => {
                self.note(Rule::DrcpOneUlp);
                let r = numeric::div(&Number::finite(false, Ratio::from_integer(1u32)), x);
                let pos = position_exact(&self.f, &r);
                let mut set = numeric::tolerance_set(&self.f, &pos, Ulps::Faithful);
                let preferred = rne(&self.f, &r);
                set.add_bits(&self.domain(), preferred);
                if self.f.class(arg.bits) == Class::Subnormal {
                    self.note(Rule::DrcpDenormReadings);
                    set.add_bits(&self.domain(), self.f.infinity(x.is_negative()));
                }
                (
                    Shaped {
                        set,
                        preferred,
                        governing: Rule::DrcpOneUlp,
                    },
                    ExactResult::Value(r),
                )
            }
        }
    }

    /// Patterns within 2^-21 relative of an exact value.
    fn relative_exact(&mut self, r: &Number) -> AllowedSet {
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
    fn real_interval(
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
    fn nearest_real(&self, exact: &mut Real, approx: f64) -> u64 {
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
    fn irrational_result(
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
    fn rational_relative(&mut self, r: &Number, rule: Rule) -> (Shaped, ExactResult) {
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
    fn rsq(&mut self, v: f64) -> (Shaped, ExactResult) {
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
    fn exp(&mut self, v: f64) -> (Shaped, ExactResult) {
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
    fn log(&mut self, v: f64) -> (Shaped, ExactResult) {
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
    fn sin_cos(&mut self, v: f64, sine: bool) -> (Shaped, ExactResult) {
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
            V::report(&r),
        ))
    }

    /// round_ne/ni/pi/z: exact integral values; a zero keeps the input's sign. Every
    /// f32/f16 value and its integral roundings are exact in f64.
    fn round_integral(&mut self, op: Op, v: f64) -> (Shaped, ExactResult) {
        let r = match op {
            Op::RoundZ => v.trunc(),
            Op::RoundNi => v.floor(),
            Op::RoundPi => v.ceil(),
            _ => v.round_ties_even(),
        };
        self.note(Rule::RoundExact);
        let bits = round_f64(&self.f, r, RoundOptions::new(Rounding::NearestEven)).bits;
        (
            Shaped {
                set: AllowedSet::single(&self.domain(), bits),
                preferred: bits,
                governing: Rule::RoundExact,
            },
            ExactResult::Sum(r, 0.0),
        )
    }
}

/// sqrt: 1 ULP as a distance for 32-bit (§22.10.21), round to nearest even for float16
/// (§3.1.5).
pub fn sqrt_tolerance(a: Arithmetic) -> (Ulps, Rule) {
    match a {
        Arithmetic::Float16 => (Ulps::HalfEven, Rule::F16HalfUlp),
        _ => (Ulps::One, Rule::SqrtOneUlp),
    }
}

fn one() -> Number {
    Number::finite(false, Ratio::from_integer(1u32))
}

/// The exact position of sqrt(m) in the format, the root to a fine grid, and the root
/// itself when it is exact.
fn sqrt_position(f: &crate::format::FloatFormat, m: &Ratio) -> (Position, Ratio, Option<Ratio>) {
    // sqrt(m) * 2^k = sqrt(m * 2^2k): choose k so the root has well over precision + 2 bits.
    let e = m.floor_log2();
    let k = (f.precision() as i64 + 8) - e.div_euclid(2);
    let scaled = m.mul_pow2(2 * k);
    let (n, _) = scaled.floor_ceil();
    let exact_n = Ratio::from_integer(n.clone()) == scaled;
    let root = n.sqrt();
    let exact = exact_n && &root * &root == n;
    let lo = Ratio::dyadic(root.clone(), -k);
    // lo <= sqrt(m) < lo + 2^-k, and 2^-k is far below half the format's spacing, so the
    // position of lo, nudged when the root is inexact, is the root's position.
    let pos = position_exact(f, &Number::finite(false, lo.clone()));
    let pos = if exact { pos } else { nudge_up(pos) };
    (pos, lo.clone(), exact.then_some(lo))
}

/// The position of a value a hair above a grid point or midpoint.
fn nudge_up(pos: Position) -> Position {
    let class = match &pos.frac {
        Frac::Exact(r) => {
            let half = Ratio::dyadic(1u32, -1);
            match r.cmp(&half) {
                std::cmp::Ordering::Less => FracClass::BelowHalf,
                _ => FracClass::AboveHalf,
            }
        }
        Frac::Class(c) => *c,
        Frac::Dyadic(d) if *d < 0.5 => FracClass::BelowHalf,
        Frac::Dyadic(_) => FracClass::AboveHalf,
    };
    Position {
        neg: pos.neg,
        ord: pos.ord,
        frac: Frac::Class(class),
    }
}

/// Round-to-nearest from a position (ties to even).
fn nearest_of(f: &crate::format::FloatFormat, pos: &Position, fallback: &Ratio) -> u64 {
    let set = numeric::tolerance_set(f, pos, Ulps::Half);
    match set.extremes() {
        Some((lo, hi)) if lo == hi => Domain::Float(*f).bits(lo),
        _ => rne(f, &Number::finite(pos.neg, fallback.clone())),
    }
}

/// Whether 1/x is one of the table's exact special cases: x is ±0 or ±inf.
fn reciprocal_is_special(x: &Number) -> bool {
    matches!(x, Number::Infinity { .. }) || is_zero(x)
}

// The `f64` fast paths of sqrt, rcp and frc (batch checking).
impl Ctx {
    pub(super) fn fast_sqrt(&mut self, a: f64) -> Option<(Shaped, ExactResult)> {
        if !(a.is_finite() && a > 0.0) {
            return None;
        }
        let (tol, rule) = sqrt_tolerance(self.f.arithmetic);
        self.note(rule);
        let s = a.sqrt();
        // sqrt(a) - s has the sign of a - s*s.
        let e = s.mul_add(-s, a);
        let pos = position_f64(&self.f, s, sign(e));
        let nearest = nearest_of_position(&self.f, &pos);
        let set = self.tolerance_at(&pos, nearest, tol);
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
    pub(super) fn fast_rcp(&mut self, a: f64) -> Option<(Shaped, ExactResult)> {
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
        let (mut set, nearest) = self.tolerance_around::<f64>(&Near::reciprocal(a), one_ulp)?;
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
}
