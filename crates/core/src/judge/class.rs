//! Naming what a violating result got wrong, from its operands and its result: the classes
//! `probe`, `op --operands` and the library's [`crate::judge::Verdict`] report. The exact
//! engine's lines are named here from its evaluation; the fast deciders name theirs with the
//! same [`ViolationKind`]s (`fast/`), so a class reads the same whoever found it.

use std::fmt;

use crate::d3d::{Domain, Evaluation, Op, OpCommand, OutputResult};
use crate::format::{Arithmetic, Class};

/// A class of violations: what a violating result got wrong, for an instruction as `op`
/// reads it. It displays as reports name it (`add: outside tolerance by 1 ULP`,
/// `f32 denormal operand not flushed`), and writes the `op` command that reproduces a
/// line of it. Two classes are equal when they are the same kind for the same reading of
/// the same instruction; their texts are then the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ViolationClass {
    kind: ViolationKind,
    command: OpCommand,
}

impl ViolationClass {
    /// The class of violations of kind `kind` by the instruction `command` selects.
    pub fn new(kind: ViolationKind, command: OpCommand) -> ViolationClass {
        ViolationClass { kind, command }
    }

    /// What the results got wrong.
    pub fn kind(&self) -> ViolationKind {
        self.kind
    }

    /// The instruction, as `op` selects it.
    pub fn command(&self) -> OpCommand {
        self.command
    }

    /// The pasteable `d3dfloat op ... --check ...` command for a line of this class, from
    /// its operand patterns (every component in order) and its result patterns.
    pub fn example(&self, args: &[u64], results: &[u64]) -> String {
        self.command.check(args, results)
    }
}

impl fmt::Display for ViolationClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.command.name();
        match self.kind {
            ViolationKind::RoundsToNearest => write!(f, "f32tof16 rounds to nearest"),
            ViolationKind::NotFused => {
                write!(f, "{name}: not fused (product rounded before the add)")
            }
            ViolationKind::NanGivesNonZero => write!(f, "{name}: NaN gives non-zero"),
            ViolationKind::NotClamped => write!(f, "{name}: out-of-range value not clamped"),
            ViolationKind::NotAMask => {
                write!(f, "{name}: comparison result is not 0 or 0xffffffff")
            }
            ViolationKind::DenormOperand => write!(f, "f32 denormal operand not flushed"),
            ViolationKind::DenormResult => write!(f, "f32 denormal result not flushed"),
            ViolationKind::NanResult => write!(f, "{name}: NaN where a number is required"),
            ViolationKind::NanNotIgnored => write!(f, "{name}: NaN operand not ignored"),
            ViolationKind::NanNotPropagated => write!(f, "{name}: NaN operand not propagated"),
            ViolationKind::NumberForNan => write!(f, "{name}: a number where NaN is required"),
            ViolationKind::InfOperand => write!(f, "{name}: infinity operand mishandled"),
            ViolationKind::ZeroSign => write!(f, "{name}: wrong sign of zero"),
            ViolationKind::Miss1 => write!(f, "{name}: outside tolerance by 1 ULP"),
            ViolationKind::Miss2To15 => write!(f, "{name}: outside tolerance by 2-15 ULPs"),
            ViolationKind::Miss16 => write!(f, "{name}: outside tolerance by 16 ULPs or more"),
            ViolationKind::Wrong => write!(f, "{name}: wrong result"),
        }
    }
}

/// A kind of violation, how often it happened, and one line that shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassCount {
    /// The class (`f32 denormal operand not flushed`).
    pub class: ViolationClass,
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

/// What a violating result got wrong; a [`ViolationClass`] names it for an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViolationKind {
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

impl ViolationKind {
    /// Every kind, in [`ViolationKind::index`] order.
    pub(in crate::judge) const ALL: [ViolationKind; 17] = [
        ViolationKind::RoundsToNearest,
        ViolationKind::NotFused,
        ViolationKind::NanGivesNonZero,
        ViolationKind::NotClamped,
        ViolationKind::NotAMask,
        ViolationKind::DenormOperand,
        ViolationKind::DenormResult,
        ViolationKind::NanResult,
        ViolationKind::NanNotIgnored,
        ViolationKind::NanNotPropagated,
        ViolationKind::NumberForNan,
        ViolationKind::InfOperand,
        ViolationKind::ZeroSign,
        ViolationKind::Miss1,
        ViolationKind::Miss2To15,
        ViolationKind::Miss16,
        ViolationKind::Wrong,
    ];

    /// Its position in [`ViolationKind::ALL`].
    #[inline]
    pub(in crate::judge) fn index(self) -> usize {
        self as usize
    }

    /// The class of a result `miss` ULPs from the nearest allowed one (`None`: no number is
    /// allowed, or the result is NaN).
    #[inline]
    pub(in crate::judge) fn miss(miss: Option<u64>) -> ViolationKind {
        match miss {
            Some(1) => ViolationKind::Miss1,
            Some(n) if n < 16 => ViolationKind::Miss2To15,
            Some(_) => ViolationKind::Miss16,
            None => ViolationKind::Wrong,
        }
    }
}

/// Names what a violating result got wrong, from the operands and the result's class.
pub(in crate::judge) fn classify(
    eval: &Evaluation,
    out: &OutputResult,
    bits: u64,
) -> ViolationKind {
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
    match eval.op {
        Op::F32ToF16 => {
            let x = f32::from_bits(operands[0].bits as u32);
            if half::f16::from_f32(x).to_bits() as u64 == bits {
                return ViolationKind::RoundsToNearest;
            }
        }
        // §22.14.7: dfma is fused. A result that is exactly the unfused one (the product
        // rounded to double before the add) names the cause, whatever it did to the value.
        Op::Mad if eval.format.arithmetic == Arithmetic::Double => {
            let v: Vec<f64> = operands.iter().map(|o| f64::from_bits(o.bits)).collect();
            let unfused = v[0] * v[1] + v[2];
            let got = f64::from_bits(bits);
            if unfused.to_bits() == bits || (unfused.is_nan() && got.is_nan()) {
                return ViolationKind::NotFused;
            }
        }
        Op::Ftoi | Op::Ftou => {
            let x = f32::from_bits(operands[0].bits as u32);
            if x.is_nan() {
                return ViolationKind::NanGivesNonZero;
            }
            let (lo, hi) = if eval.op == Op::Ftoi {
                (-2147483648.0, 2147483647.0)
            } else {
                (0.0, 4294967295.0)
            };
            if !(lo..=hi).contains(&(x as f64)) {
                return ViolationKind::NotClamped;
            }
        }
        _ => {}
    }
    if out.domain == Domain::Bool && bits != 0 && bits != 0xffff_ffff {
        return ViolationKind::NotAMask;
    }
    if operands.iter().any(|o| o.flushed_to.is_some()) {
        return ViolationKind::DenormOperand;
    }
    if result_class == Some(Class::Subnormal)
        && matches!(out.domain, Domain::Float(f) if f.arithmetic_flushes_subnormals)
    {
        return ViolationKind::DenormResult;
    }
    if result_class == Some(Class::Nan) {
        return ViolationKind::NanResult;
    }
    if any_operand(Class::Nan) {
        return match eval.op {
            Op::Min | Op::Max => ViolationKind::NanNotIgnored,
            _ => ViolationKind::NanNotPropagated,
        };
    }
    if out.allowed.nan {
        return ViolationKind::NumberForNan;
    }
    if any_operand(Class::Infinity) {
        return ViolationKind::InfOperand;
    }
    if result_class == Some(Class::Zero) {
        // The other zero would have conformed: only the sign is wrong.
        if let Domain::Float(f) = out.domain {
            let other = bits ^ f.assemble(true, 0, 0);
            if out.allowed.contains(&out.domain, other) {
                return ViolationKind::ZeroSign;
            }
        }
    }
    ViolationKind::miss(out.allowed.miss_ulps(&out.domain, bits))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::d3d::RuleSet;
    use crate::format::F32;

    #[test]
    fn kinds_are_listed_in_order_with_distinct_names() {
        let mut names = std::collections::HashSet::new();
        for (k, kind) in ViolationKind::ALL.iter().enumerate() {
            assert_eq!(kind.index(), k, "{kind:?}");
            let class = ViolationClass::new(*kind, OpCommand::new(Op::Add, F32, RuleSet::D3D11));
            assert!(names.insert(class.to_string()), "{kind:?}");
        }
        assert_eq!(ViolationKind::miss(Some(0)), ViolationKind::Miss2To15);
        assert_eq!(ViolationKind::miss(Some(1)), ViolationKind::Miss1);
        assert_eq!(ViolationKind::miss(Some(15)), ViolationKind::Miss2To15);
        assert_eq!(ViolationKind::miss(Some(16)), ViolationKind::Miss16);
        assert_eq!(ViolationKind::miss(None), ViolationKind::Wrong);
    }
}
