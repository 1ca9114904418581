//! Judging a device's results: its buffers handed to the library's judge over slices
//! ([`crate::judge`]), which names each violation's class.

use super::ProbeError;
use super::catalog::{Kernel, Lane};
use crate::d3d::RuleSet;
use crate::judge::{Buffer, Column, Elem, Judge, JudgeError, Keep, OpFindings, Run};

/// The findings on an instruction that did not run on the device, and why.
pub fn skipped(k: &Kernel, reason: String) -> OpFindings {
    OpFindings::skipped(k.name, k.format_label(), k.family, k.via, reason)
}

/// The judge's refusal of a line (an internal error) as the probe reports it.
pub fn engine_refused(k: &Kernel, e: JudgeError) -> ProbeError {
    ProbeError::Device(format!("{}: the op engine refused a line: {e}", k.name))
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
) -> Result<OpFindings, ProbeError> {
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
    let keep = Keep {
        map,
        ..Keep::default()
    };
    let mut run = Run::new(&judge, keep);
    run.block(&cols, res.column(), 0, |_, _| Ok::<(), JudgeError>(()))
        .map_err(|e| engine_refused(k, e))?;
    let verdict = run.finish();
    let log = if keep_log {
        (0..lines)
            .map(|i| judge.batch_line(&cols, res.column(), i))
            .collect()
    } else {
        Vec::new()
    };
    Ok(OpFindings {
        via: k.via,
        log,
        ..OpFindings::judged(k.name, k.format_label(), k.family, &verdict)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::all_kernels;
    use crate::judge::Family;
    use crate::pack;

    fn kernel(name: &str, family: Family) -> Kernel {
        all_kernels()
            .into_iter()
            .find(|k| k.name == name && k.family == family)
            .unwrap()
    }

    /// Judges one line: operand patterns and the result words a device returned.
    fn one(k: &Kernel, operands: &[u64], results: &[u32]) -> OpFindings {
        judge(k, RuleSet::D3D11, operands, results, true, false).unwrap()
    }

    fn class(r: &OpFindings) -> String {
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
