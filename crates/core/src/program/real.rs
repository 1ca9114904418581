//! The exact expression: the program evaluated on real numbers (no instruction rounds),
//! with 256-bit arithmetic, then rounded to nearest even in the program's format.
//!
//! Additions, products and quotients of a few patterns are exact at 256 bits; square roots,
//! 2^x, log2, sin and cos are within 2^-250 relative (astro-float rounds its elementary
//! functions correctly at the precision asked), far below what moves a 24-bit rounding
//! except at an exact tie, which only rational results reach and those are exact.

use astro_float::{BigFloat, Consts, RoundingMode};
use num_bigint::BigUint;

use super::ProgramError;
use super::walk::{Lane, Step};
use crate::d3d::{Op, PerOutput, Vector};
use crate::exact::{Number, Ratio};
use crate::format::{FloatFormat, RoundOptions, Rounding, round_number};

const P: usize = 256;
const RM: RoundingMode = RoundingMode::ToEven;

/// A real value: a 256-bit float, or NaN and the infinities.
#[derive(Clone, Debug)]
pub struct Real(pub BigFloat);

impl Lane for Real {
    fn literal(format: &FloatFormat, bits: u64) -> Real {
        let v = format.to_f64(bits);
        if v.is_nan() {
            return Real(BigFloat::nan(None));
        }
        Real(BigFloat::from_f64(v, P))
    }
    fn neg(self, _: &FloatFormat) -> Real {
        Real(self.0.neg())
    }
    fn abs(self, _: &FloatFormat) -> Real {
        Real(self.0.abs())
    }
}

fn num(v: f64) -> BigFloat {
    BigFloat::from_f64(v, P)
}

fn is_neg(x: &BigFloat) -> bool {
    x.is_negative()
}

/// The D3D min/max on reals: a NaN operand gives the other (§22.10.10-11).
fn min_max(a: &BigFloat, b: &BigFloat, max: bool) -> BigFloat {
    if a.is_nan() {
        return b.clone();
    }
    if b.is_nan() {
        return a.clone();
    }
    let gt = a.cmp(b).unwrap_or(0) > 0;
    if gt == max { a.clone() } else { b.clone() }
}

/// One step on reals.
pub fn step(
    step: Step,
    args: &[Vector<Real>],
    cc: &mut Consts,
) -> Result<PerOutput<Real>, ProgramError> {
    let a = |i: usize| &args[i][0].0;
    let one = num(1.0);
    let r = match step {
        Step::Move => a(0).clone(),
        Step::Op(op) => match op {
            Op::Add => a(0).add(a(1), P, RM),
            Op::Sub => a(0).sub(a(1), P, RM),
            Op::Mul => a(0).mul(a(1), P, RM),
            Op::Div => a(0).div(a(1), P, RM),
            Op::Mad => a(0).mul(a(1), 2 * P, RM).add(a(2), 2 * P, RM),
            Op::Dp2 | Op::Dp3 | Op::Dp4 => {
                let mut s = num(0.0);
                for (x, y) in args[0].iter().zip(&args[1]) {
                    s = s.add(&x.0.mul(&y.0, 2 * P, RM), 4 * P, RM);
                }
                s
            }
            Op::Min => min_max(a(0), a(1), false),
            Op::Max => min_max(a(0), a(1), true),
            Op::Sqrt => special(a(0)).unwrap_or_else(|| a(0).sqrt(P, RM)),
            Op::Rsq => {
                if a(0).is_zero() {
                    signed_infinity(a(0))
                } else {
                    special(a(0)).unwrap_or_else(|| one.div(&a(0).sqrt(P + 64, RM), P, RM))
                }
            }
            Op::Rcp => {
                if a(0).is_zero() {
                    signed_infinity(a(0))
                } else {
                    one.div(a(0), P, RM)
                }
            }
            Op::Exp => {
                let x = a(0);
                if x.is_nan() {
                    x.clone()
                } else if x.is_inf() {
                    num(if is_neg(x) { 0.0 } else { f64::INFINITY })
                } else if x.cmp(&num(1.0e6)).unwrap_or(0) > 0 {
                    num(f64::INFINITY)
                } else if x.cmp(&num(-1.0e6)).unwrap_or(0) < 0 {
                    num(0.0)
                } else {
                    num(2.0).pow(x, P, RM, cc)
                }
            }
            Op::Log => {
                let x = a(0);
                if x.is_zero() {
                    num(f64::NEG_INFINITY)
                } else {
                    special(x).unwrap_or_else(|| x.log2(P, RM, cc))
                }
            }
            Op::Frc => {
                let x = a(0);
                if x.is_nan() || x.is_inf() {
                    BigFloat::nan(None)
                } else {
                    x.sub(&x.floor(), P, RM)
                }
            }
            Op::RoundNe => round_ne(a(0)),
            Op::RoundNi => a(0).floor(),
            Op::RoundPi => a(0).ceil(),
            Op::RoundZ => a(0).int(),
            Op::Sin | Op::Cos | Op::Sincos => {
                let x = a(0);
                let (s, c) = if x.is_nan() || x.is_inf() {
                    (BigFloat::nan(None), BigFloat::nan(None))
                } else {
                    (x.sin(P, RM, cc), x.cos(P, RM, cc))
                };
                let out: PerOutput<Real> = match op {
                    Op::Sin => std::iter::once(Real(s)).collect(),
                    Op::Cos => std::iter::once(Real(c)).collect(),
                    _ => [Real(s), Real(c)].into_iter().collect(),
                };
                return Ok(out);
            }
            other => {
                return Err(ProgramError::Input(format!(
                    "{other:?} has no exact form in a program"
                )));
            }
        },
    };
    Ok(std::iter::once(Real(r)).collect())
}

/// The infinity of a zero's sign: 1/±0 and 1/sqrt(±0) (§22.10.18-19).
fn signed_infinity(zero: &BigFloat) -> BigFloat {
    num(if is_neg(zero) {
        f64::NEG_INFINITY
    } else {
        f64::INFINITY
    })
}

/// NaN for a negative operand of a root or logarithm, the operand itself for NaN and
/// +infinity; `None` for the ordinary case.
fn special(x: &BigFloat) -> Option<BigFloat> {
    if x.is_nan() || (is_neg(x) && !x.is_zero()) {
        return Some(BigFloat::nan(None));
    }
    if x.is_inf() || x.is_zero() {
        return Some(x.clone());
    }
    None
}

fn round_ne(x: &BigFloat) -> BigFloat {
    if x.is_nan() || x.is_inf() {
        return x.clone();
    }
    let fl = x.floor();
    let frac = x.sub(&fl, P, RM);
    let c = frac.cmp(&num(0.5)).unwrap_or(0);
    let up = c > 0 || (c == 0 && !fl.div(&num(2.0), P, RM).fract().is_zero());
    if up { fl.add(&num(1.0), P, RM) } else { fl }
}

/// The pattern of `f` nearest `x` (ties to even); NaN gives the quiet NaN.
pub fn nearest(f: &FloatFormat, x: &BigFloat) -> u64 {
    if x.is_nan() {
        return f.quiet_nan();
    }
    if x.is_inf() {
        return f.infinity(is_neg(x));
    }
    let neg = is_neg(x);
    let Some((words, n, _, e, _)) = x.as_raw_parts() else {
        return f.quiet_nan();
    };
    if x.is_zero() {
        return if neg { f.sign_bit() } else { 0 };
    }
    let mut m = BigUint::from(0u32);
    for w in words.iter().rev() {
        m = (m << 64) | BigUint::from(*w);
    }
    let v = Number::finite(neg, Ratio::dyadic(m, e as i64 - n as i64));
    round_number(f, &v, RoundOptions::new(Rounding::NearestEven)).bits
}

/// The value as an `f64` (nearest), for display.
pub fn approx(x: &BigFloat) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    if x.is_inf() {
        return if is_neg(x) {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
    }
    if x.is_zero() {
        return if is_neg(x) { -0.0 } else { 0.0 };
    }
    crate::format::F64.to_f64(nearest(&crate::format::F64, x))
}

/// A fresh constants cache for the elementary functions.
pub fn consts() -> Consts {
    Consts::new().expect("astro-float's constant cache")
}
