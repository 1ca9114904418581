//! Type conversions: ftoi, ftou, itof, utof, f16tof32, f32tof16, dtof, ftod (§22.13, §22.17).

use super::allowed::{AllowedSet, Domain};
use super::arith::{Ctx, Shaped, single_output};
use super::numeric::value_f64;
use super::numeric::{position_exact, tolerance_set};
use super::rules::{Rule, Ulps};
use super::{ExactResult, Op, OperandReading, OutputResult};
use crate::exact::{Number, Ratio};
use crate::format::{Class, F16, F32, F64, RoundOptions, Rounding, round_number};

impl Ctx {
    pub fn convert(
        &mut self,
        op: Op,
        arg: &OperandReading,
        outs: &[(&'static str, Domain)],
    ) -> Vec<OutputResult> {
        let out = outs[0].1;
        let (s, exact) = match op {
            Op::Ftoi | Op::Ftou => self.float_to_int(op, arg, &out),
            Op::Itof | Op::Utof => self.int_to_float(op, arg),
            Op::F16ToF32 => self.widen(arg, &F16, Rule::F16ToF32),
            Op::Ftod => self.widen(arg, &F32, Rule::Ftod),
            Op::F32ToF16 => self.f32_to_f16(arg),
            Op::Dtof => self.dtof(arg),
            _ => unreachable!("not a conversion: {op:?}"),
        };
        single_output(outs, s, exact)
    }

    /// ftoi / ftou: truncate toward zero, NaN to 0, saturate at the integer range.
    fn float_to_int(
        &mut self,
        op: Op,
        arg: &OperandReading,
        out: &Domain,
    ) -> (Shaped, ExactResult) {
        let rule = if op == Op::Ftoi {
            Rule::Ftoi
        } else {
            Rule::Ftou
        };
        self.note(rule);
        let v = value_f64(&F32, arg.flushed_to.unwrap_or(arg.bits));
        let (lo, hi) = if op == Op::Ftoi {
            (i32::MIN as i64, i32::MAX as i64)
        } else {
            (0, u32::MAX as i64)
        };
        // Truncation toward zero, then saturation; f64 holds every f32 value exactly.
        let (key, exact) = if v.is_nan() {
            (0, ExactResult::Nan)
        } else {
            let t = v.trunc().clamp(lo as f64, hi as f64);
            (t as i64, ExactResult::Sum(v, 0.0))
        };
        let bits = out.bits(key);
        (
            Shaped {
                set: AllowedSet::single(out, bits),
                preferred: bits,
                governing: rule,
            },
            exact,
        )
    }

    /// itof / utof: exact when representable, otherwise either neighbour (RNE preferred).
    fn int_to_float(&mut self, op: Op, arg: &OperandReading) -> (Shaped, ExactResult) {
        let rule = if op == Op::Itof {
            Rule::Itof
        } else {
            Rule::Utof
        };
        self.note(rule);
        let n = if op == Op::Itof {
            arg.bits as u32 as i32 as i64
        } else {
            arg.bits as u32 as i64
        };
        let v = Number::finite(n < 0, Ratio::from_integer(n.unsigned_abs()));
        let pos = position_exact(&F32, &v);
        // Integers never reach float32's overflow, so this is: exact, or either neighbour.
        let set = tolerance_set(&F32, &pos, Ulps::Faithful);
        let preferred = round_number(&F32, &v, RoundOptions::new(Rounding::NearestEven)).bits;
        (
            Shaped {
                set,
                preferred,
                governing: rule,
            },
            ExactResult::Value(v),
        )
    }

    /// f16tof32 and ftod: exact widening; ftod may also flush a float32 denorm.
    fn widen(
        &mut self,
        arg: &OperandReading,
        from: &crate::format::FloatFormat,
        rule: Rule,
    ) -> (Shaped, ExactResult) {
        self.note(rule);
        let to = if rule == Rule::Ftod { F64 } else { F32 };
        let d = Domain::Float(to);
        let v = from.value(arg.bits);
        if v.is_nan() {
            self.note(Rule::NanPropagates);
            return (
                Shaped {
                    set: AllowedSet::any_nan(),
                    preferred: to.quiet_nan(),
                    governing: rule,
                },
                ExactResult::Nan,
            );
        }
        let bits = round_number(&to, &v, RoundOptions::new(Rounding::NearestEven)).bits;
        let mut set = AllowedSet::single(&d, bits);
        if rule == Rule::Ftod && from.class(arg.bits) == Class::Subnormal {
            set.add_bits(&d, to.assemble(v.is_negative(), 0, 0));
        }
        (
            Shaped {
                set,
                preferred: bits,
                governing: rule,
            },
            ExactResult::Value(v),
        )
    }

    /// f32tof16: round toward zero, overflow to ±65504 (§3.2.2); NaN stays NaN.
    fn f32_to_f16(&mut self, arg: &OperandReading) -> (Shaped, ExactResult) {
        self.note(Rule::F32ToF16);
        let d = Domain::Float(F16);
        let v = F32.value(arg.flushed_to.unwrap_or(arg.bits));
        if v.is_nan() {
            return (
                Shaped {
                    set: AllowedSet::any_nan(),
                    preferred: F16.quiet_nan(),
                    governing: Rule::F32ToF16,
                },
                ExactResult::Nan,
            );
        }
        let bits = round_number(&F16, &v, RoundOptions::new(Rounding::TowardZero)).bits;
        (
            Shaped {
                set: AllowedSet::single(&d, bits),
                preferred: bits,
                governing: Rule::F32ToF16,
            },
            ExactResult::Value(v),
        )
    }

    /// dtof: nearest-even (§22.17.1) or toward zero (§3.2.2); a denorm result may flush.
    fn dtof(&mut self, arg: &OperandReading) -> (Shaped, ExactResult) {
        self.note(Rule::Dtof);
        let d = Domain::Float(F32);
        let v = F64.value(arg.bits);
        if v.is_nan() {
            return (
                Shaped {
                    set: AllowedSet::any_nan(),
                    preferred: F32.quiet_nan(),
                    governing: Rule::Dtof,
                },
                ExactResult::Nan,
            );
        }
        let mut set = AllowedSet::empty();
        let preferred = round_number(&F32, &v, RoundOptions::new(Rounding::NearestEven)).bits;
        for mode in [Rounding::NearestEven, Rounding::TowardZero] {
            let b = round_number(&F32, &v, RoundOptions::new(mode)).bits;
            set.add_bits(&d, b);
            if F32.class(b) == Class::Subnormal {
                set.add_bits(&d, F32.assemble(v.is_negative(), 0, 0));
            }
        }
        (
            Shaped {
                set,
                preferred,
                governing: Rule::Dtof,
            },
            ExactResult::Value(v),
        )
    }
}
