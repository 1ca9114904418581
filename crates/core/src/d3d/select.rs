//! min, max and the comparisons: selections and verdicts, no rounding.

use std::cmp::Ordering;

use super::allowed::{AllowedSet, Domain, TRUE_MASK};
use super::arith::Ctx;
use super::rules::Rule;
use super::{ExactResult, Op, OperandReading, OutputResult};

impl Ctx {
    pub fn select(
        &mut self,
        op: Op,
        args: &[Vec<OperandReading>],
        outs: &[(&'static str, Domain)],
    ) -> Vec<OutputResult> {
        let (a, b) = (&args[0][0], &args[1][0]);
        match op {
            Op::Min | Op::Max => vec![self.min_max(op == Op::Min, a, b, outs[0].0)],
            _ => vec![self.compare(op, a, b, outs[0].0)],
        }
    }

    /// The operand as a result of min/max: itself, or its flushed zero (§3.1.3.2 lets the
    /// result be flushed or not).
    fn as_result(&mut self, r: &OperandReading) -> AllowedSet {
        let d = self.domain();
        let mut set = AllowedSet::single(&d, r.bits);
        if let Some(z) = r.flushed_to {
            self.note(Rule::MinMaxFlush);
            set.add_bits(&d, z);
        }
        set
    }

    fn min_max(
        &mut self,
        is_min: bool,
        a: &OperandReading,
        b: &OperandReading,
        name: &'static str,
    ) -> OutputResult {
        let d = self.domain();
        // Every format's values are exact in f64, so the selection is decided there.
        let (va, vb) = (self.fv(a), self.fv(b));
        let preferred_of = |r: &OperandReading| r.flushed_to.unwrap_or(r.bits);
        let (set, preferred, exact, governing) = match (va.is_nan(), vb.is_nan()) {
            (true, true) => {
                self.note(Rule::MinMaxNan);
                (
                    AllowedSet::any_nan(),
                    self.qnan(),
                    ExactResult::Nan,
                    Rule::MinMaxNan,
                )
            }
            (true, false) | (false, true) => {
                // §3.1.3.1: min(x, NaN) = min(NaN, x) = x.
                self.note(Rule::MinMaxNan);
                let (r, v) = if va.is_nan() { (b, vb) } else { (a, va) };
                (
                    self.as_result(r),
                    preferred_of(r),
                    ExactResult::Sum(v, 0.0),
                    Rule::MinMaxNan,
                )
            }
            _ => {
                self.note(Rule::MinMaxSelect);
                let order = order_of(va, vb);
                let pick_a = match order {
                    Ordering::Less => is_min,
                    Ordering::Greater => !is_min,
                    Ordering::Equal => true,
                };
                if order == Ordering::Equal && va == 0.0 && a.bits != b.bits {
                    // Two zeros (denorms flushed first): either may come back; IEEE 754R's
                    // min = -0 / max = +0 is the recommendation (§3.1.3.2).
                    let zero_sign_differs = va.is_sign_negative() != vb.is_sign_negative();
                    if zero_sign_differs {
                        self.note(Rule::MinMaxZeroSign);
                    }
                    let mut set = self.as_result(a);
                    set.union(&self.as_result(b));
                    let neg = if is_min {
                        va.is_sign_negative() || vb.is_sign_negative()
                    } else {
                        va.is_sign_negative() && vb.is_sign_negative()
                    };
                    let governing = if zero_sign_differs {
                        Rule::MinMaxZeroSign
                    } else {
                        Rule::MinMaxSelect
                    };
                    (
                        set,
                        self.f.assemble(neg, 0, 0),
                        ExactResult::Sum(if neg { -0.0 } else { 0.0 }, 0.0),
                        governing,
                    )
                } else {
                    let (r, v) = if pick_a { (a, va) } else { (b, vb) };
                    (
                        self.as_result(r),
                        preferred_of(r),
                        ExactResult::Sum(v, 0.0),
                        Rule::MinMaxSelect,
                    )
                }
            }
        };
        OutputResult {
            name,
            domain: d,
            exact,
            preferred,
            allowed: set,
            governing,
        }
    }

    fn compare(
        &mut self,
        op: Op,
        a: &OperandReading,
        b: &OperandReading,
        name: &'static str,
    ) -> OutputResult {
        let (va, vb) = (self.fv(a), self.fv(b));
        if matches!(op, Op::Gt | Op::Le) {
            self.note(Rule::CompareDerived);
        }
        let result = if va.is_nan() || vb.is_nan() {
            self.note(Rule::CompareNan);
            op == Op::Ne
        } else {
            self.note(Rule::CompareSignedZero);
            let o = order_of(va, vb);
            match op {
                Op::Eq => o == Ordering::Equal,
                Op::Ne => o != Ordering::Equal,
                Op::Lt => o == Ordering::Less,
                Op::Ge => o != Ordering::Less,
                Op::Gt => o == Ordering::Greater,
                Op::Le => o != Ordering::Greater,
                _ => unreachable!(),
            }
        };
        let bits = if result { TRUE_MASK } else { 0 };
        let governing = if va.is_nan() || vb.is_nan() {
            Rule::CompareNan
        } else {
            Rule::CompareSignedZero
        };
        OutputResult {
            name,
            domain: Domain::Bool,
            exact: ExactResult::Bool(result),
            preferred: bits,
            allowed: AllowedSet::single(&Domain::Bool, bits),
            governing,
        }
    }
}

/// Order of two non-NaN values, the zeros equal (§3.1.3.1).
fn order_of(a: f64, b: f64) -> Ordering {
    a.partial_cmp(&b).expect("NaN handled before")
}
