//! The fast path of double arithmetic (dadd, dmul, ddiv, dfma).
//!
//! The double instructions round to nearest, ties to even (§3.1.4, §22.14), which is exactly
//! what the CPU's IEEE 754 operations return, denorm results and overflow to infinity
//! included. So on operands where no special rule speaks (finite, normal, nonzero, not ±1:
//! denorms bring the ddiv table's second reading, zeros and ones the identities), the
//! allowed set is the hardware result alone, with the rules the exact path notes for the
//! same step. Anything else answers `None` and the exact path runs;
//! `tests/op_differential.rs` holds the two equal.

use super::allowed::{AllowedSet, Domain};
use super::arith::{Ctx, Shaped, single_output, unfused_tolerance};
use super::rules::Rule;
use super::step::two_sum;
use super::{ExactResult, Op, OperandReading, OutputResult};

/// No special rule applies to this operand.
fn plain(x: f64) -> bool {
    x.is_normal() && x.abs() != 1.0
}

impl Ctx {
    pub(super) fn run_fast_double(
        &mut self,
        op: Op,
        args: &[Vec<OperandReading>],
        outs: &[(&'static str, Domain)],
    ) -> Option<Vec<OutputResult>> {
        let v = |i: usize| self.fv(&args[i][0]);
        let (result, rule, exact) = match op {
            Op::Add | Op::Sub => {
                let (a, mut b) = (v(0), v(1));
                if op == Op::Sub {
                    b = -b;
                }
                if !(plain(a) && plain(b)) {
                    return None;
                }
                let (hi, err) = two_sum(a, b);
                // An exact cancellation has its own zero rule; an overflowed sum has no
                // two-double form.
                if hi == 0.0 || !hi.is_finite() {
                    return None;
                }
                let (_, rule) = unfused_tolerance(self.f.arithmetic, self.rules);
                (hi, rule, ExactResult::Sum(hi, err))
            }
            Op::Mul => {
                let (a, b) = (v(0), v(1));
                if !(plain(a) && plain(b)) {
                    return None;
                }
                let p = a * b;
                // The FMA remainder is the exact error only while the product stays well
                // inside the normal range.
                if !p.is_finite() || p.abs() < f64::MIN_POSITIVE * 2f64.powi(54) {
                    return None;
                }
                let err = a.mul_add(b, -p);
                let (_, rule) = unfused_tolerance(self.f.arithmetic, self.rules);
                (p, rule, ExactResult::Sum(p, err))
            }
            Op::Div => {
                let (a, b) = (v(0), v(1));
                if !(plain(a) && plain(b)) {
                    return None;
                }
                let q = a / b;
                if !q.is_normal() {
                    return None;
                }
                (q, Rule::DDivHalfUlp, ExactResult::Quotient(a, b))
            }
            Op::Mad => {
                let (a, b, c) = (v(0), v(1), v(2));
                if !(plain(a) && plain(b) && plain(c)) {
                    return None;
                }
                let r = a.mul_add(b, c);
                if !r.is_normal() {
                    return None;
                }
                (r, Rule::DfmaHalfUlp, ExactResult::FusedSum(a, b, c))
            }
            _ => return None,
        };
        self.note(rule);
        let bits = result.to_bits();
        let s = Shaped {
            set: AllowedSet::single(&self.domain(), bits),
            preferred: bits,
            governing: rule,
        };
        Some(single_output(outs, s, exact))
    }
}
