//! Judging a device's results with the op engine, line by line, and sorting the violations
//! into classes a reader recognises.

use rayon::prelude::*;

use super::ProbeError;
use super::catalog::{Kernel, Lane};
use crate::d3d::{Domain, Evaluation, Op, OpRequest, Pattern, RuleSet, evaluate};
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
}

/// The verdict on one instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpReport {
    /// The name `op` reads.
    pub name: &'static str,
    /// `f32`, `f16`, `f64`, or `a->b` for a conversion.
    pub format: String,
    /// The family, for the device feature it needs.
    pub family: super::Family,
    /// Lines run.
    pub lines: u64,
    /// Lines whose result conforms.
    pub conform: u64,
    /// Lines whose result violates the rules.
    pub violate: u64,
    /// The largest distance, in ULPs of the result format, of a conforming result from the
    /// correctly rounded one.
    pub max_ulps: u64,
    /// Most frequent first.
    pub classes: Vec<ClassCount>,
    /// Why the instruction did not run (a missing device feature), if it did not.
    pub skipped: Option<String>,
    /// Every line as `OP ARG... = RESULT`, when asked for.
    pub log: Vec<String>,
}

impl OpReport {
    /// The report of an instruction the device could not run.
    pub fn skipped(k: &Kernel, reason: String) -> OpReport {
        OpReport {
            name: k.name,
            format: k.format_label(),
            family: k.family,
            lines: 0,
            conform: 0,
            violate: 0,
            max_ulps: 0,
            classes: Vec::new(),
            skipped: Some(reason),
            log: Vec::new(),
        }
    }
}

/// A pattern as `op` reads it: `0x` and the lane's full width in hex digits.
pub fn hex(lane: Lane, bits: u64) -> String {
    format!("0x{:0width$x}", bits, width = lane.hex_digits())
}

/// The result patterns of one line, one per output, from the device's words.
fn unpack_results(k: &Kernel, words: &[u32]) -> Vec<u64> {
    let mut at = 0;
    k.outputs
        .iter()
        .map(|lane| {
            let v = match lane {
                Lane::F64 => words[at] as u64 | (words[at + 1] as u64) << 32,
                Lane::F16 => (words[at] & 0xffff) as u64,
                _ => words[at] as u64,
            };
            at += lane.words();
            v
        })
        .collect()
}

struct LineVerdict {
    conforms: bool,
    ulps: u64,
    /// The class and the `op` example, for a violation.
    violation: Option<(String, String)>,
    log: Option<String>,
}

/// Judges every line of one instruction.
pub fn judge(
    k: &Kernel,
    rules: RuleSet,
    operands: &[u64],
    results: &[u32],
    keep_log: bool,
) -> Result<OpReport, ProbeError> {
    let per_in = k.input_components();
    let per_out = k.output_words();
    let lines = operands.len() / per_in;
    let verdicts: Vec<LineVerdict> = (0..lines)
        .into_par_iter()
        .with_min_len(256)
        .map(|i| {
            let args = &operands[i * per_in..(i + 1) * per_in];
            let res = unpack_results(k, &results[i * per_out..(i + 1) * per_out]);
            judge_line(k, rules, args, &res, keep_log)
        })
        .collect::<Result<_, _>>()?;
    let mut report = OpReport {
        name: k.name,
        format: k.format_label(),
        family: k.family,
        lines: lines as u64,
        conform: 0,
        violate: 0,
        max_ulps: 0,
        classes: Vec::new(),
        skipped: None,
        log: Vec::new(),
    };
    for v in verdicts {
        if v.conforms {
            report.conform += 1;
            report.max_ulps = report.max_ulps.max(v.ulps);
        } else {
            report.violate += 1;
        }
        if let Some((class, example)) = v.violation {
            match report.classes.iter_mut().find(|c| c.class == class) {
                Some(c) => c.count += 1,
                None => report.classes.push(ClassCount {
                    class,
                    count: 1,
                    example,
                }),
            }
        }
        if let Some(line) = v.log {
            report.log.push(line);
        }
    }
    // Stable: most frequent first, first seen first among equals.
    report.classes.sort_by_key(|c| std::cmp::Reverse(c.count));
    Ok(report)
}

fn judge_line(
    k: &Kernel,
    rules: RuleSet,
    args: &[u64],
    results: &[u64],
    keep_log: bool,
) -> Result<LineVerdict, ProbeError> {
    let texts: Vec<String> = args.iter().map(|&a| hex(k.input, a)).collect();
    let request = OpRequest {
        op: k.op,
        format: k.format,
        rules,
        args: args
            .chunks(k.width)
            .map(|c| c.iter().map(|&b| Pattern::bits(b)).collect())
            .collect(),
        check: None,
    };
    let eval = evaluate(&request).map_err(|e| {
        ProbeError::Device(format!("{}: the op engine refused a line: {e}", k.name))
    })?;
    let mut conforms = true;
    let mut ulps = 0;
    let mut class = None;
    for ((out, &bits), lane) in eval.outputs.iter().zip(results).zip(&k.outputs) {
        // §22.6: a comparison writes a full mask; the engine's boolean domain reads any
        // non-zero word as true, so the mask itself is checked here.
        let full_mask = *lane != Lane::Mask || bits == 0 || bits == 0xffff_ffff;
        if full_mask && out.allowed.contains(&out.domain, bits) {
            ulps = ulps.max(distance(&out.domain, out.preferred, bits));
        } else {
            conforms = false;
            if class.is_none() {
                class = Some(classify(k, &eval, out, *lane, bits));
            }
        }
    }
    let result_text = k
        .outputs
        .iter()
        .zip(results)
        .map(|(&lane, &r)| hex(lane, r))
        .collect::<Vec<_>>()
        .join(",");
    let operand_text = texts
        .chunks(k.width)
        .map(|c| c.join(","))
        .collect::<Vec<_>>()
        .join(" ");
    let violation = class.map(|c| {
        let rules_opt = match rules {
            RuleSet::D3D10 => "--rules d3d10 ",
            _ => "",
        };
        let example = format!(
            "d3dfloat op {}{rules_opt}{} {operand_text} --check {result_text}",
            k.op_options(),
            k.name
        );
        (c, example)
    });
    Ok(LineVerdict {
        conforms,
        ulps,
        violation,
        log: keep_log.then(|| format!("{} {operand_text} = {result_text}", k.name)),
    })
}

/// ULPs between the preferred result and a conforming one (0 when either is NaN).
fn distance(domain: &Domain, preferred: u64, bits: u64) -> u64 {
    match (domain.key(preferred), domain.key(bits)) {
        (Some(a), Some(b)) => domain.ordinal_of_key(a).abs_diff(domain.ordinal_of_key(b)),
        _ => 0,
    }
}

/// Names what a violating result got wrong, from the operands and the result's class.
fn classify(
    k: &Kernel,
    eval: &Evaluation,
    out: &crate::d3d::OutputReport,
    lane: Lane,
    bits: u64,
) -> String {
    let name = k.name;
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
    match k.op {
        Op::F32ToF16 => {
            let x = f32::from_bits(operands[0].bits as u32);
            if half::f16::from_f32(x).to_bits() as u64 == bits {
                return "f32tof16 rounds to nearest".into();
            }
        }
        // §22.14.7: dfma is fused. A result that is exactly the unfused one (the product
        // rounded to double before the add) names the cause, whatever it did to the value.
        Op::Mad if k.format.arithmetic == Arithmetic::Double => {
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
            let (lo, hi) = if k.op == Op::Ftoi {
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
    if lane == Lane::Mask && bits != 0 && bits != 0xffff_ffff {
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
        return match k.op {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::catalog::{Family, all_kernels};
    use crate::probe::pack;

    fn kernel(name: &str, family: Family) -> Kernel {
        all_kernels()
            .into_iter()
            .find(|k| k.name == name && k.family == family)
            .unwrap()
    }

    /// Judges one line: operand patterns and the result words a device returned.
    fn one(k: &Kernel, operands: &[u64], results: &[u32]) -> OpReport {
        judge(k, RuleSet::D3D11, operands, results, true).unwrap()
    }

    fn class(r: &OpReport) -> &str {
        assert_eq!(r.violate, 1, "{r:?}");
        &r.classes[0].class
    }

    #[test]
    fn a_correct_line_conforms_and_is_logged_for_op() {
        let add = kernel("add", Family::F32);
        let r = one(&add, &[0x3f80_0000, 0x3f80_0000], &[0x4000_0000]);
        assert_eq!((r.conform, r.violate, r.max_ulps), (1, 0, 0));
        assert_eq!(r.log, vec!["add 0x3f800000 0x3f800000 = 0x40000000"]);
        // A 1-ULP answer where D3D11 allows only the correctly rounded one violates.
        let r = one(&add, &[0x3f80_0000, 0x3f80_0000], &[0x4000_0001]);
        assert_eq!(class(&r), "add: outside tolerance by 1 ULP");
        assert_eq!(
            r.classes[0].example,
            "d3dfloat op add 0x3f800000 0x3f800000 --check 0x40000001"
        );
    }

    #[test]
    fn classes_name_the_cause() {
        let add = kernel("add", Family::F32);
        let r = one(&add, &[0x0000_0001, 0x0000_0001], &[0x0000_0002]);
        assert_eq!(class(&r), "f32 denormal operand not flushed");
        let mul = kernel("mul", Family::F32);
        let r = one(&mul, &[0x0080_0000, 0x3f00_0000], &[0x0040_0000]);
        assert_eq!(class(&r), "f32 denormal result not flushed");
        let ftoi = kernel("ftoi", Family::F32);
        assert_eq!(
            class(&one(&ftoi, &[0x7fc0_0000], &[0x8000_0000])),
            "ftoi: NaN gives non-zero"
        );
        assert_eq!(
            class(&one(&ftoi, &[0x7f80_0000], &[0x7fff_ff80])),
            "ftoi: out-of-range value not clamped"
        );
        // 1 + 2^-11 + 2^-12 lies above the midpoint: nearest gives 0x3c01, toward zero 0x3c00.
        let f32tof16 = kernel("f32tof16", Family::F32);
        let r = one(&f32tof16, &[0x3f80_1800], &[0x3c01]);
        assert_eq!(class(&r), "f32tof16 rounds to nearest");
        let min = kernel("min", Family::F32);
        let r = one(&min, &[0x7fc0_0000, 0x3f80_0000], &[0x7fc0_0000]);
        assert_eq!(class(&r), "min: NaN where a number is required");
        let eq = kernel("eq", Family::F32);
        let r = one(&eq, &[0x3f80_0000, 0x3f80_0000], &[1]);
        assert_eq!(class(&r), "eq: comparison result is not 0 or 0xffffffff");
    }

    #[test]
    fn examples_carry_the_rule_set_and_the_format() {
        let add = kernel("add", Family::F32);
        let r = judge(
            &add,
            RuleSet::D3D10,
            &[0x3f80_0000, 0x3f80_0000],
            &[0x4000_0002],
            false,
        )
        .unwrap();
        assert_eq!(
            r.classes[0].example,
            "d3dfloat op --rules d3d10 add 0x3f800000 0x3f800000 --check 0x40000002"
        );
        assert!(r.log.is_empty());
        let half = kernel("add", Family::F16);
        let r = one(&half, &[0x3c00, 0x3c00], &[0x4001]);
        assert_eq!(
            r.classes[0].example,
            "d3dfloat op --fmt f16 add 0x3c00 0x3c00 --check 0x4001"
        );
    }

    #[test]
    fn an_unfused_dfma_is_named() {
        let dfma = kernel("dfma", Family::F64);
        let max = f64::MAX.to_bits();
        let operands = [max, max, f64::NEG_INFINITY.to_bits()];
        let nan = f64::NAN.to_bits();
        let r = one(&dfma, &operands, &pack(Lane::F64, &[nan]));
        assert_eq!(
            class(&r),
            "dfma: not fused (product rounded before the add)"
        );
        let fused = pack(Lane::F64, &[f64::NEG_INFINITY.to_bits()]);
        assert_eq!(one(&dfma, &operands, &fused).violate, 0);
    }
}
