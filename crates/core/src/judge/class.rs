//! Naming what a violating result got wrong, from its operands and its result: the classes
//! `probe`, `op --operands` and the library's [`super::Verdict`] report. The exact engine's
//! lines are named here from its evaluation; the fast deciders name theirs with the same
//! [`Kind`]s and texts (`fast/`), so a class reads the same whoever found it.

use super::Judge;
use crate::d3d::{Domain, Evaluation, Op, OutputReport, Rule};
use crate::format::{Arithmetic, Class};

/// A kind of violation, how often it happened, and one line that shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassCount {
    /// The class's name (`f32 denormal operand not flushed`).
    pub class: String,
    /// How many lines fell in it.
    pub count: u64,
    /// An `op` command line that reproduces the verdict (`d3dfloat op ... --check R`).
    pub example: String,
    /// The index of the line the example shows, the first of its class.
    pub first: u64,
    /// The rule the example breaks, as `op --check` cites it (`§22.10.21: ...`); empty
    /// when the engine names none.
    pub rule: String,
}

impl Judge {
    /// The rule line `i` breaks, cited as `op --json`'s `broken_rule` (the engine's
    /// governing rule for the first output that does not conform); empty when it conforms
    /// or the engine refuses it. One evaluation: called once per class.
    pub fn broken_rule(
        &self,
        operands: &[super::Column],
        results: super::Column,
        i: usize,
    ) -> String {
        let (args, res) = self.line_patterns(operands, results, i);
        let request = self.request(
            &args,
            Some(res.iter().map(|&b| crate::d3d::Pattern::bits(b)).collect()),
        );
        crate::d3d::evaluate(&request)
            .ok()
            .and_then(|eval| {
                let broken = eval.check?.verdicts.iter().find_map(|v| v.broken)?;
                // A denorm operand read as zero (§3.1.3.2) is why the rule of that zero
                // governs: both are named, the flush first.
                let flushed = eval.rules_applied.contains(&Rule::FlushInput);
                Some(if flushed && broken != Rule::FlushInput {
                    format!("{}; then {}", Rule::FlushInput.cite(), broken.cite())
                } else {
                    broken.cite()
                })
            })
            .unwrap_or_default()
    }
}

/// What a violating result got wrong; [`Kind::text`] names it for an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// f32tof16 gave the nearest float16 where §3.2.2 truncates.
    RoundsToNearest,
    /// dfma's result is the unfused one (§22.14.7).
    NotFused,
    /// ftoi/ftou of NaN gave something other than 0.
    NanGivesNonZero,
    /// ftoi/ftou of a value beyond the integer range gave something other than the end.
    NotClamped,
    /// A comparison wrote neither 0 nor 0xffffffff.
    NotAMask,
    /// A 32-bit denorm operand was read as its value, not as a zero (§3.1.3.2).
    DenormOperand,
    /// A 32-bit result was left a denorm (§3.1.3.2).
    DenormResult,
    /// NaN where the rules require a number.
    NanResult,
    /// min/max returned something other than the number beside a NaN operand.
    NanNotIgnored,
    /// A NaN operand did not give NaN.
    NanNotPropagated,
    /// A number where NaN is required.
    NumberForNan,
    /// An infinite operand and a wrong result.
    InfOperand,
    /// The other zero would have conformed.
    ZeroSign,
    /// The nearest allowed result is 1 ULP away.
    Miss1,
    /// 2 to 15 ULPs away (0 counts here too, as `miss_ulps` can give it).
    Miss2To15,
    /// 16 or more ULPs away.
    Miss16,
    /// Nothing to measure against (a number where only NaN is allowed).
    Wrong,
}

impl Kind {
    /// Every kind, in [`Kind::index`] order.
    pub(super) const ALL: [Kind; 17] = [
        Kind::RoundsToNearest,
        Kind::NotFused,
        Kind::NanGivesNonZero,
        Kind::NotClamped,
        Kind::NotAMask,
        Kind::DenormOperand,
        Kind::DenormResult,
        Kind::NanResult,
        Kind::NanNotIgnored,
        Kind::NanNotPropagated,
        Kind::NumberForNan,
        Kind::InfOperand,
        Kind::ZeroSign,
        Kind::Miss1,
        Kind::Miss2To15,
        Kind::Miss16,
        Kind::Wrong,
    ];

    /// Its position in [`Kind::ALL`].
    #[inline]
    pub(super) fn index(self) -> usize {
        self as usize
    }

    /// The class of a result `miss` ULPs from the nearest allowed one (`None`: no number is
    /// allowed, or the result is NaN).
    #[inline]
    pub(super) fn miss(miss: Option<u64>) -> Kind {
        match miss {
            Some(1) => Kind::Miss1,
            Some(n) if n < 16 => Kind::Miss2To15,
            Some(_) => Kind::Miss16,
            None => Kind::Wrong,
        }
    }

    /// The class's name for the instruction `name`.
    pub(super) fn text(self, name: &str) -> String {
        match self {
            Kind::RoundsToNearest => "f32tof16 rounds to nearest".into(),
            Kind::NotFused => format!("{name}: not fused (product rounded before the add)"),
            Kind::NanGivesNonZero => format!("{name}: NaN gives non-zero"),
            Kind::NotClamped => format!("{name}: out-of-range value not clamped"),
            Kind::NotAMask => format!("{name}: comparison result is not 0 or 0xffffffff"),
            Kind::DenormOperand => "f32 denormal operand not flushed".into(),
            Kind::DenormResult => "f32 denormal result not flushed".into(),
            Kind::NanResult => format!("{name}: NaN where a number is required"),
            Kind::NanNotIgnored => format!("{name}: NaN operand not ignored"),
            Kind::NanNotPropagated => format!("{name}: NaN operand not propagated"),
            Kind::NumberForNan => format!("{name}: a number where NaN is required"),
            Kind::InfOperand => format!("{name}: infinity operand mishandled"),
            Kind::ZeroSign => format!("{name}: wrong sign of zero"),
            Kind::Miss1 => format!("{name}: outside tolerance by 1 ULP"),
            Kind::Miss2To15 => format!("{name}: outside tolerance by 2-15 ULPs"),
            Kind::Miss16 => format!("{name}: outside tolerance by 16 ULPs or more"),
            Kind::Wrong => format!("{name}: wrong result"),
        }
    }
}

/// Names what a violating result got wrong, from the operands and the result's class.
pub(super) fn classify(judge: &Judge, eval: &Evaluation, out: &OutputReport, bits: u64) -> Kind {
    let operands: Vec<_> = eval.args.iter().flatten().collect();
    let float_class = |bits: u64| match operands.first().map(|o| o.domain) {
        Some(Domain::Float(f)) => Some(f.class(bits)),
        _ => None,
    };
    let any_operand = |c: Class| operands.iter().any(|o| float_class(o.bits) == Some(c));
    let result_class = match out.domain {
        Domain::Float(f) => Some(f.class(bits)),
        _ => None,
    };
    match judge.op() {
        Op::F32ToF16 => {
            let x = f32::from_bits(operands[0].bits as u32);
            if half::f16::from_f32(x).to_bits() as u64 == bits {
                return Kind::RoundsToNearest;
            }
        }
        // §22.14.7: dfma is fused. A result that is exactly the unfused one (the product
        // rounded to double before the add) names the cause, whatever it did to the value.
        Op::Mad if judge.format().arithmetic == Arithmetic::Double => {
            let v: Vec<f64> = operands.iter().map(|o| f64::from_bits(o.bits)).collect();
            let unfused = v[0] * v[1] + v[2];
            let got = f64::from_bits(bits);
            if unfused.to_bits() == bits || (unfused.is_nan() && got.is_nan()) {
                return Kind::NotFused;
            }
        }
        Op::Ftoi | Op::Ftou => {
            let x = f32::from_bits(operands[0].bits as u32);
            if x.is_nan() {
                return Kind::NanGivesNonZero;
            }
            let (lo, hi) = if judge.op() == Op::Ftoi {
                (-2147483648.0, 2147483647.0)
            } else {
                (0.0, 4294967295.0)
            };
            if !(lo..=hi).contains(&(x as f64)) {
                return Kind::NotClamped;
            }
        }
        _ => {}
    }
    if out.domain == Domain::Bool && bits != 0 && bits != 0xffff_ffff {
        return Kind::NotAMask;
    }
    if operands.iter().any(|o| o.flushed_to.is_some()) {
        return Kind::DenormOperand;
    }
    if result_class == Some(Class::Subnormal)
        && matches!(out.domain, Domain::Float(f) if f.arithmetic_flushes_subnormals)
    {
        return Kind::DenormResult;
    }
    if result_class == Some(Class::Nan) {
        return Kind::NanResult;
    }
    if any_operand(Class::Nan) {
        return match judge.op() {
            Op::Min | Op::Max => Kind::NanNotIgnored,
            _ => Kind::NanNotPropagated,
        };
    }
    if out.allowed.nan {
        return Kind::NumberForNan;
    }
    if any_operand(Class::Infinity) {
        return Kind::InfOperand;
    }
    if result_class == Some(Class::Zero) {
        // The other zero would have conformed: only the sign is wrong.
        if let Domain::Float(f) = out.domain {
            let other = bits ^ f.assemble(true, 0, 0);
            if out.allowed.contains(&out.domain, other) {
                return Kind::ZeroSign;
            }
        }
    }
    Kind::miss(out.allowed.miss_ulps(&out.domain, bits))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_listed_in_order_with_distinct_names() {
        let mut names = std::collections::HashSet::new();
        for (k, kind) in Kind::ALL.iter().enumerate() {
            assert_eq!(kind.index(), k, "{kind:?}");
            assert!(names.insert(kind.text("op")), "{kind:?}");
        }
        assert_eq!(Kind::miss(Some(0)), Kind::Miss2To15);
        assert_eq!(Kind::miss(Some(1)), Kind::Miss1);
        assert_eq!(Kind::miss(Some(15)), Kind::Miss2To15);
        assert_eq!(Kind::miss(Some(16)), Kind::Miss16);
        assert_eq!(Kind::miss(None), Kind::Wrong);
    }
}
