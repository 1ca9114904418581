//! The `f64` fast path for f32 and f16 arithmetic (batch checking of a million lines): the
//! dispatch and the step helpers shared by the fast halves of `divide.rs`, `fused.rs` and
//! `functions.rs`. Each step asks the same tolerance functions and the same
//! [`tolerance_set`](super::numeric::tolerance_set) as the exact path.
//!
//! Every f32/f16 value, every product of two, and every point of their grids and midpoints
//! is an `f64`, so a step's exact result is known as `hi + err` with `hi` the `f64` nearest
//! and the sign of `err` exact (TwoSum for sums, an exact product, an FMA remainder for
//! quotients and roots). That is all [`position_f64`] needs. Whenever an exact quantity does
//! not fit (an intermediate that would need more than two doubles, a float16 fused result
//! needing the 0.6 ULP fraction), the fast path answers `None` and the exact rational path
//! runs instead; `tests/op_differential.rs` holds the two equal, whole results compared.

use std::cmp::Ordering;

use super::allowed::{AllowedSet, Domain};
use super::arith::{Ctx, Shaped, single_output};
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

pub(super) fn sign(x: f64) -> Ordering {
    if x > 0.0 {
        Ordering::Greater
    } else if x < 0.0 {
        Ordering::Less
    } else {
        Ordering::Equal
    }
}

/// `a * b` as an ordering factor.
pub(super) fn times(s: Ordering, neg: bool) -> Ordering {
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
    pub(super) fn nearest_f64(&self, hi: f64, err: Ordering) -> u64 {
        nearest_of_position(&self.f, &position_f64(&self.f, hi, err))
    }

    /// The allowed set of one rounded step `hi + err` within `tol`, its nearest included,
    /// output-flushed; also the unflushed nearest.
    pub(super) fn step(&mut self, hi: f64, err: Ordering, tol: Ulps) -> (AllowedSet, u64) {
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
    pub(super) fn exactly_f64(&mut self, x: f64, rule: Rule) -> AllowedSet {
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
    pub(super) fn members_f64(&self, set: &AllowedSet) -> Vec<f64> {
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
    pub(super) fn close_interval(
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
}
