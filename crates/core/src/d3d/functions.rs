//! One-operand instructions: dispatch, sqrt, rcp, frc and the round_* family (rsq, exp, log
//! and sincos are in `irrational.rs`).
//!
//! sqrt is positioned exactly with an integer square root; rcp's exact value is rational, so
//! its bounds are decided in rationals.

use super::allowed::{AllowedSet, Domain};
use super::arith::{Ctx, EXACT, Shaped, single_output};
use super::numeric::{self, Frac, FracClass, Position, is_zero, mag, position_exact, rne};
use super::numeric::{nearest_of_position, position_f64, value_f64};
use super::rules::{Rule, Ulps};
use super::step::{Near, StepValue, sign};
use super::{ExactResult, Op, OperandReading, OutputResult};
use crate::exact::{Number, Ratio};
use crate::format::{Arithmetic, Class, RoundOptions, Rounding, round_f64};

impl Ctx {
    pub fn function(
        &mut self,
        op: Op,
        arg: &OperandReading,
        outs: &[(&'static str, Domain)],
    ) -> Vec<OutputResult> {
        let v = self.fv(arg);
        if v.is_nan() {
            self.note(Rule::NanPropagates);
            return outs
                .iter()
                .map(|(name, d)| OutputResult {
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
                    OutputResult {
                        name: outs[0].0,
                        domain: outs[0].1,
                        exact: es,
                        preferred: s.preferred,
                        allowed: s.set,
                        governing: s.governing,
                    },
                    OutputResult {
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

    pub(super) fn exactly<V: StepValue>(&mut self, v: &V, rule: Rule) -> (Shaped, ExactResult) {
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

    pub(super) fn nan(&mut self, rule: Rule) -> (Shaped, ExactResult) {
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
    fn drcp(&mut self, arg: &OperandReading, x: &Number) -> (Shaped, ExactResult) {
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

pub(super) fn one() -> Number {
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
