//! The `f64` fast path for f32 and f16 arithmetic (batch checking of a million lines): the
//! dispatch. add, sub, mul, div, mad and dp2-4 run the very rules the exact path runs
//! (`arith.rs`, `divide.rs`, `fused.rs`, generic over [`StepValue`](super::step::StepValue)) on `f64` values;
//! sqrt, rcp and frc have their fast halves beside their exact ones in `functions.rs`.
//!
//! Every f32/f16 value, every product of two, and every point of their grids and midpoints
//! is an `f64`, so a step's exact result is known as `hi + err` with `hi` the `f64` nearest
//! and the sign of `err` exact (see `step.rs`). Whenever an exact quantity does not fit (an
//! intermediate that would need more than two doubles, a float16 fused result needing the
//! 0.6 ULP fraction), the fast path answers `None` and the exact rational path runs
//! instead; `tests/op_differential.rs` holds the two equal, whole results compared.

use super::allowed::Domain;
use super::arith::{Ctx, single_output};
use super::rules::RuleSet;
use super::{Op, OperandReading, OutputResult};
use crate::format::Arithmetic;

impl Ctx {
    /// The fast path; `None` when the exact path must answer.
    pub fn run_fast(
        &mut self,
        op: Op,
        args: &[Vec<OperandReading>],
        outs: &[(&'static str, Domain)],
    ) -> Option<Vec<OutputResult>> {
        match self.f.arithmetic {
            Arithmetic::Float32 | Arithmetic::Float16 => {}
            Arithmetic::Double => return self.run_fast_double(op, args, outs),
            Arithmetic::None => return None,
        }
        self.note_operands(args);
        let v = |i: usize, c: usize| self.fv(&args[i][c]);
        let (s, exact) = match op {
            Op::Add | Op::Sub => {
                let (a, b) = (v(0, 0), v(1, 0));
                let b = if op == Op::Sub { -b } else { b };
                let basic = self.add_basic(&a, &b)?;
                self.unfused_op(basic)?
            }
            Op::Mul => {
                let basic = self.mul_basic(&v(0, 0), &v(1, 0))?;
                self.unfused_op(basic)?
            }
            Op::Div => {
                let (a, b) = (v(0, 0), v(1, 0));
                if self.f.arithmetic == Arithmetic::Float32 && self.rules == RuleSet::D3D10 {
                    self.div_d3d10(&a, &b)?
                } else {
                    self.div(&a, &b)?
                }
            }
            Op::Mad => self.fused(&[(v(0, 0), v(1, 0))], Some(&v(2, 0)))?,
            Op::Dp2 | Op::Dp3 | Op::Dp4 => {
                let mut pairs = [(0.0, 0.0); 4];
                let n = args[0].len();
                for (c, p) in pairs.iter_mut().enumerate().take(n) {
                    *p = (v(0, c), v(1, c));
                }
                self.fused(&pairs[..n], None)?
            }
            Op::Sqrt => self.fast_sqrt(v(0, 0))?,
            Op::Rcp => self.fast_rcp(v(0, 0))?,
            Op::Frc => self.frc(&v(0, 0))?,
            _ => return None,
        };
        Some(single_output(outs, s, exact))
    }
}
