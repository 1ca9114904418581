//! Judging a device's results: its buffers handed to the library's judge over slices
//! ([`crate::judge`]), which names each violation's class.

use super::ProbeError;
use super::catalog::{Kernel, Lane};
use crate::d3d::RuleSet;
pub use crate::judge::ClassCount;
use crate::judge::map::ErrorMap;
use crate::judge::{Buffer, Column, Elem, Histogram, Judge, Options, Verdict};

/// The verdict on one instruction.
#[derive(Clone, Debug, PartialEq)]
pub struct OpReport {
    /// The name `op` reads.
    pub name: &'static str,
    /// `f32`, `f16`, `f64`, or `a->b` for a conversion.
    pub format: String,
    /// The family, for the device feature it needs.
    pub family: super::Family,
    /// The path its shader took to the device (`direct` for buffers judged by `op`).
    pub via: super::translate::Via,
    /// Lines run.
    pub lines: u64,
    /// Lines whose result conforms.
    pub conform: u64,
    /// Lines whose result violates the rules.
    pub violate: u64,
    /// The largest distance, in ULPs of the result format, of a conforming result from the
    /// correctly rounded one.
    pub max_ulps: u64,
    /// The largest distance of any result from the correctly rounded one, violations
    /// included (a NaN against a number has none).
    pub max_distance: u64,
    /// The first violating lines by index with their classes, when a listing was asked
    /// for (`--list`); the count in [`OpReport::violate`] is always whole.
    pub violations: Vec<crate::judge::Violation>,
    /// Most frequent first.
    pub classes: Vec<ClassCount>,
    /// Why the instruction did not run (a missing device feature), if it did not.
    pub skipped: Option<String>,
    /// Every line as `OP ARG... = RESULT`, when asked for.
    pub log: Vec<String>,
    /// What an exhaustive sweep adds (`probe --exhaustive`).
    pub exhaustive: Option<Sweep>,
    /// Where the error lies in the input range, with the allowed bound at each cell, when
    /// a report asked for it (`--report`).
    pub map: Option<ErrorMap>,
}

/// What an exhaustive sweep of an instruction adds to its report: where its error lies.
#[derive(Clone, Debug, PartialEq)]
pub struct Sweep {
    /// Every line's distance from the correctly rounded result.
    pub histogram: Histogram,
    /// Every line of the sweep ran (false when it was interrupted).
    pub complete: bool,
    /// Seconds the device took to compute the chunks and hand back their results.
    pub device_seconds: f64,
    /// Seconds the judge was busy (alongside the device, on the other cores).
    pub judge_seconds: f64,
}

impl OpReport {
    /// The report of an instruction whose lines the judge saw (`exhaustive` and `log`
    /// empty; the caller adds them).
    pub fn judged(
        name: &'static str,
        format: String,
        family: super::Family,
        v: &Verdict,
    ) -> OpReport {
        OpReport {
            name,
            format,
            family,
            via: super::translate::Via::Direct,
            lines: v.lines,
            conform: v.conform,
            violate: v.violate,
            max_ulps: v.max_ulps,
            max_distance: v.max_distance,
            violations: Vec::new(),
            classes: v.classes_by_count(),
            skipped: None,
            log: Vec::new(),
            exhaustive: None,
            map: v.map.clone(),
        }
    }

    /// The report of an instruction the device could not run.
    pub fn skipped(k: &Kernel, reason: String) -> OpReport {
        OpReport {
            name: k.name,
            format: k.format_label(),
            family: k.family,
            via: k.via,
            lines: 0,
            conform: 0,
            violate: 0,
            max_ulps: 0,
            max_distance: 0,
            violations: Vec::new(),
            classes: Vec::new(),
            skipped: Some(reason),
            log: Vec::new(),
            exhaustive: None,
            map: None,
        }
    }
}

/// [`result_buffer`], keeping the words' vector itself when it is already the buffer (one
/// 32-bit word a result).
pub fn result_buffer_from(k: &Kernel, judge: &Judge, words: Vec<u32>) -> Buffer {
    match (judge.result_elem(), k.outputs[0]) {
        (Elem::U32, lane) if lane != Lane::F64 => Buffer::U32(words),
        _ => result_buffer(k, judge, &words),
    }
}

/// The result slice of `lines` lines from the device's words: a float16 in the low half of
/// its word, a double in two words (low first), everything else a word.
pub fn result_buffer(k: &Kernel, judge: &Judge, words: &[u32]) -> Buffer {
    let elem = judge.result_elem();
    match k.outputs[0] {
        Lane::F64 => Buffer::from_patterns(
            elem,
            words
                .chunks_exact(2)
                .map(|p| p[0] as u64 | (p[1] as u64) << 32),
        ),
        _ => Buffer::from_patterns(elem, words.iter().map(|&w| w as u64)),
    }
}

/// Judges every line of one instruction: the device's buffers laid out as the library's
/// judge reads them (one slice per operand), then judged there.
pub fn judge(
    k: &Kernel,
    rules: RuleSet,
    operands: &[u64],
    results: &[u32],
    keep_log: bool,
    map: bool,
) -> Result<OpReport, ProbeError> {
    let judge = Judge::new(k.op, k.format, rules);
    let per_in = k.input_components();
    let per_out = k.output_words();
    let lines = operands.len() / per_in;
    let elem = Elem::of(&judge.operand_domain());
    let columns: Vec<Buffer> = (0..k.operands)
        .map(|j| {
            let comps = (0..lines).flat_map(|i| {
                let at = i * per_in + j * k.width;
                operands[at..at + k.width].iter().copied()
            });
            Buffer::from_patterns(elem, comps)
        })
        .collect();
    let res = result_buffer(k, &judge, &results[..lines * per_out]);
    let cols: Vec<Column> = columns.iter().map(Buffer::column).collect();
    let opts = Options {
        violation_limit: 0,
        map,
        ..Options::default()
    };
    let mut verdict = judge.run(&cols, res.column(), &opts).map_err(|e| {
        ProbeError::Device(format!("{}: the op engine refused a line: {e}", k.name))
    })?;
    if let Some(m) = &mut verdict.map {
        m.fill_bounds(&judge);
    }
    let log = if keep_log {
        (0..lines)
            .map(|i| judge.batch_line(&cols, res.column(), i))
            .collect()
    } else {
        Vec::new()
    };
    Ok(OpReport {
        via: k.via,
        log,
        ..OpReport::judged(k.name, k.format_label(), k.family, &verdict)
    })
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
        judge(k, RuleSet::D3D11, operands, results, true, false).unwrap()
    }

    fn class(r: &OpReport) -> String {
        assert_eq!(r.violate, 1, "{r:?}");
        r.classes[0].class.to_string()
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
    fn a_denormal_operand_class_cites_the_flush_then_the_rule_of_zero() {
        // lavapipe's rsq of the smallest denorm: finite, where the operand reads as +0
        // (§3.1.3.2) and rsq(+0) is +infinity (§22.10.19).
        let rsq = kernel("rsq", Family::F32);
        let r = one(&rsq, &[0x0000_0001], &[0x64b5_04f3]);
        assert_eq!(class(&r), "f32 denormal operand not flushed");
        let rule = &r.classes[0].rule;
        assert!(rule.starts_with("§3.1.3.2: "), "{rule}");
        assert!(rule.contains("; then §22.10.19: "), "{rule}");
        // Without a denorm operand, only the instruction's rule.
        let r = one(&rsq, &[0x0000_0000], &[0x3f80_0000]);
        assert!(r.classes[0].rule.starts_with("§22.10.19: "), "{r:?}");
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
