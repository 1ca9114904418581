//! Naming what a violating result got wrong, from its operands and its result: the classes
//! `probe`, `op --operands` and the library's [`super::Verdict`] report.

use super::Judge;
use crate::d3d::{Domain, Evaluation, Op, OutputReport};
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
                eval.check?
                    .verdicts
                    .iter()
                    .find_map(|v| v.broken.map(|r| r.cite()))
            })
            .unwrap_or_default()
    }
}

/// Names what a violating result got wrong, from the operands and the result's class.
pub(super) fn classify(judge: &Judge, eval: &Evaluation, out: &OutputReport, bits: u64) -> String {
    let name = judge.name();
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
                return "f32tof16 rounds to nearest".into();
            }
        }
        // §22.14.7: dfma is fused. A result that is exactly the unfused one (the product
        // rounded to double before the add) names the cause, whatever it did to the value.
        Op::Mad if judge.format().arithmetic == Arithmetic::Double => {
            let v: Vec<f64> = operands.iter().map(|o| f64::from_bits(o.bits)).collect();
            let unfused = v[0] * v[1] + v[2];
            let got = f64::from_bits(bits);
            if unfused.to_bits() == bits || (unfused.is_nan() && got.is_nan()) {
                return format!("{name}: not fused (product rounded before the add)");
            }
        }
        Op::Ftoi | Op::Ftou => {
            let x = f32::from_bits(operands[0].bits as u32);
            if x.is_nan() {
                return format!("{name}: NaN gives non-zero");
            }
            let (lo, hi) = if judge.op() == Op::Ftoi {
                (-2147483648.0, 2147483647.0)
            } else {
                (0.0, 4294967295.0)
            };
            if !(lo..=hi).contains(&(x as f64)) {
                return format!("{name}: out-of-range value not clamped");
            }
        }
        _ => {}
    }
    if out.domain == Domain::Bool && bits != 0 && bits != 0xffff_ffff {
        return format!("{name}: comparison result is not 0 or 0xffffffff");
    }
    if operands.iter().any(|o| o.flushed_to.is_some()) {
        return "f32 denormal operand not flushed".into();
    }
    if result_class == Some(Class::Subnormal)
        && matches!(out.domain, Domain::Float(f) if f.arithmetic_flushes_subnormals)
    {
        return "f32 denormal result not flushed".into();
    }
    if result_class == Some(Class::Nan) {
        return format!("{name}: NaN where a number is required");
    }
    if any_operand(Class::Nan) {
        return match judge.op() {
            Op::Min | Op::Max => format!("{name}: NaN operand not ignored"),
            _ => format!("{name}: NaN operand not propagated"),
        };
    }
    if out.allowed.nan {
        return format!("{name}: a number where NaN is required");
    }
    if any_operand(Class::Infinity) {
        return format!("{name}: infinity operand mishandled");
    }
    if result_class == Some(Class::Zero) {
        // The other zero would have conformed: only the sign is wrong.
        if let Domain::Float(f) = out.domain {
            let other = bits ^ f.assemble(true, 0, 0);
            if out.allowed.contains(&out.domain, other) {
                return format!("{name}: wrong sign of zero");
            }
        }
    }
    match out.allowed.miss_ulps(&out.domain, bits) {
        Some(1) => format!("{name}: outside tolerance by 1 ULP"),
        Some(n) if n < 16 => format!("{name}: outside tolerance by 2-15 ULPs"),
        Some(_) => format!("{name}: outside tolerance by 16 ULPs or more"),
        None => format!("{name}: wrong result"),
    }
}
