//! One-operand instructions: sqrt, rcp, rsq, exp, log, sincos, frc and the round_* family.
//!
//! sqrt is positioned exactly with an integer square root. rcp's exact value is rational.
//! rsq, exp, log, sin and cos are evaluated in `f64` (relative error around 2^-52, far
//! inside the 2^-21 and 0.0008 bounds); their bounds are widened by 2^-48 relative so that
//! a result within the f64 evaluation's own error of the boundary is given the benefit of
//! the doubt (stated in the output as the `d3dfloat` note).

use super::allowed::{AllowedSet, Domain};
use super::arith::{Ctx, Shaped, single_output};
use super::numeric::value_f64;
use super::numeric::{
    self, Frac, FracClass, Position, interval_set_f64, is_zero, mag, position_exact, rne,
};
use super::rules::{Rule, Ulps};
use super::{ExactResult, Op, OperandReport, OutputReport};
use crate::exact::{Number, Ratio};
use crate::format::{Arithmetic, Class, RoundOptions, Rounding, round_f64};

const REL_2_21: f64 = 1.0 / 2_097_152.0; // 2^-21
const MARGIN: f64 = 1.0 / 281_474_976_710_656.0; // 2^-48

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
                let (s, e) = self.frc(&self.value(arg));
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

    fn exactly(&mut self, v: &Number, rule: Rule) -> (Shaped, ExactResult) {
        self.note(rule);
        let bits = self.flush_bits(rne(&self.f, v));
        (
            Shaped {
                set: AllowedSet::single(&self.domain(), bits),
                preferred: bits,
                governing: rule,
            },
            ExactResult::Value(v.clone()),
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
                let mut set = numeric::tolerance_set(&self.f, &pos, tol);
                set.add_bits(&self.domain(), nearest);
                let set = self.finish(set);
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
                let pos = position_exact(&self.f, &r);
                let other = self.tolerance_around(&r, &pos, one_ulp);
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
        self.overflow_reach(
            &mut set,
            hi.to_f64_lossy().max(lo.to_f64_lossy().abs()),
            r.is_negative(),
        );
        self.finish(set)
    }

    /// Patterns within `rel` relative of an `f64` approximation, widened by the margin.
    fn relative_f64(&mut self, approx: f64, rel: f64) -> AllowedSet {
        self.note(Rule::TranscendentalMargin);
        let a = approx.abs();
        let lo = a * (1.0 - rel) * (1.0 - MARGIN);
        let hi = a * (1.0 + rel) * (1.0 + MARGIN);
        let (lo, hi) = if approx < 0.0 { (-hi, -lo) } else { (lo, hi) };
        let mut set = interval_set_f64(&self.f, lo, hi);
        self.overflow_reach(&mut set, hi.abs().max(lo.abs()), approx < 0.0);
        self.finish(set)
    }

    /// When a tolerance interval reaches past the point where rounding to nearest gives
    /// infinity, infinity is among the results an in-tolerance evaluation rounds to.
    fn overflow_reach(&mut self, set: &mut AllowedSet, reach: f64, neg: bool) {
        let top = value_f64(&self.f, self.f.max_finite());
        let half_ulp = super::numeric::pow2(self.f.emax() - self.f.frac_bits as i32 - 1);
        if reach >= top + half_ulp {
            self.note(Rule::Overflow);
            set.add_bits(&self.domain(), self.f.infinity(neg));
        }
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
            self.approx_result(1.0 / v.sqrt(), REL_2_21, Rule::RsqRelative, None)
        }
    }

    /// A result known through an f64 approximation, within a relative bound.
    fn approx_result(
        &mut self,
        approx: f64,
        rel: f64,
        rule: Rule,
        exact: Option<Number>,
    ) -> (Shaped, ExactResult) {
        let mut set = self.relative_f64(approx, rel);
        let nearest = match &exact {
            Some(v) => rne(&self.f, v),
            None => round_f64(&self.f, approx, RoundOptions::new(Rounding::NearestEven)).bits,
        };
        let preferred = self.flush_bits(nearest);
        set.add_bits(&self.domain(), preferred);
        (
            Shaped {
                set,
                preferred,
                governing: rule,
            },
            match exact {
                Some(v) => ExactResult::Value(v),
                None => ExactResult::Approx(approx),
            },
        )
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
        // An integral exponent gives an exact power of two.
        let exact = (v.fract() == 0.0 && v.abs() < 4096.0)
            .then(|| Number::finite(false, Ratio::dyadic(1u32, v as i64)));
        if approx == 0.0 {
            // Far below the smallest denorm: the result is +0.
            let (s, _) = self.exactly(&Number::zero(false), Rule::ExpRelative);
            return (s, ExactResult::Approx(approx));
        }
        if approx.is_infinite() {
            let (s, _) = self.exactly(&Number::Infinity { neg: false }, Rule::Overflow);
            return (s, ExactResult::Approx(approx));
        }
        self.approx_result(approx, REL_2_21, Rule::ExpRelative, exact)
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
        // A power of two has an exact integral logarithm (its significand bits are zero).
        let exact = (v.to_bits() & ((1u64 << 52) - 1) == 0 && v.is_normal())
            .then(|| Number::finite(approx < 0.0, Ratio::from_integer(approx.abs() as u64)));
        if (0.5..=2.0).contains(&v) {
            self.note(Rule::TranscendentalMargin);
            let reach = REL_2_21 + MARGIN;
            let set = interval_set_f64(&self.f, approx - reach, approx + reach);
            let mut set = self.finish(set);
            let nearest = match &exact {
                Some(x) => rne(&self.f, x),
                None => round_f64(&self.f, approx, RoundOptions::new(Rounding::NearestEven)).bits,
            };
            let preferred = self.flush_bits(nearest);
            set.add_bits(&self.domain(), preferred);
            (
                Shaped {
                    set,
                    preferred,
                    governing: Rule::LogTolerance,
                },
                match exact {
                    Some(x) => ExactResult::Value(x),
                    None => ExactResult::Approx(approx),
                },
            )
        } else {
            self.approx_result(approx, REL_2_21, Rule::LogTolerance, exact)
        }
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
            _ => {
                let approx = if sine { v.sin() } else { v.cos() };
                let (lo, hi, rule) = if v.abs() <= 100.0 * std::f64::consts::PI {
                    self.note(Rule::Sincos);
                    self.note(Rule::TranscendentalMargin);
                    let reach = 0.0008 * (1.0 + MARGIN) + MARGIN;
                    (
                        (approx - reach).max(-1.0),
                        (approx + reach).min(1.0),
                        Rule::Sincos,
                    )
                } else {
                    self.note(Rule::SincosOutside);
                    (-1.0, 1.0, Rule::SincosOutside)
                };
                let set = interval_set_f64(&self.f, lo, hi);
                let mut set = self.finish(set);
                let preferred = self.flush_bits(
                    round_f64(&self.f, approx, RoundOptions::new(Rounding::NearestEven)).bits,
                );
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
        }
    }

    /// frc: x - round_ni(x) (§22.10.7), a subtraction rounded as add is; results kept in
    /// [+0, 1], with the largest value below 1 allowed whenever 1.0 is (the table's [+0, 1)).
    fn frc(&mut self, x: &Number) -> (Shaped, ExactResult) {
        match x {
            Number::Infinity { .. } => self.nan(Rule::Frc),
            _ => {
                self.note(Rule::Frc);
                let m = mag(x);
                let (fl, ce) = m.floor_ceil();
                // floor(x) for negative x is -ceil(|x|).
                let floor = if x.is_negative() {
                    Number::finite(true, Ratio::from_integer(ce))
                } else {
                    Number::finite(false, Ratio::from_integer(fl))
                };
                let r = numeric::add(x, &floor.negate());
                if is_zero(&r) {
                    return self.exactly(&Number::zero(false), Rule::Frc);
                }
                let (tol, _) = self.unfused();
                let pos = position_exact(&self.f, &r);
                let mut set = self.tolerance_around(&r, &pos, tol);
                let d = self.domain();
                let one_bits = rne(&self.f, &Number::finite(false, Ratio::from_integer(1u32)));
                let one_key = d.key(one_bits).expect("1.0");
                if set.contains_key(one_key) {
                    set.add_key(one_key - 1);
                }
                // Keep [+0, 1].
                let mut kept = AllowedSet::empty();
                for &(l, h) in set.key_ranges() {
                    kept.add_key_range(l.max(0), h.min(one_key));
                }
                let preferred = self.flush_bits(rne(&self.f, &r));
                (
                    Shaped {
                        set: kept,
                        preferred,
                        governing: Rule::Frc,
                    },
                    ExactResult::Value(r),
                )
            }
        }
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
