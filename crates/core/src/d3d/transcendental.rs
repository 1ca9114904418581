//! Exact membership in the bounds of exp, log, sin and cos (§22.10.6, §22.10.8, §22.10.20).
//!
//! Their exact results are irrational (except the cases the callers handle as exact
//! rationals: 2^n, log2 of a power of two, the table's specials), so a bound's end is never a
//! representable value, and comparing a candidate with it is always decidable at some
//! precision. Each end is known as an enclosure [lo, hi] computed with astro-float, whose
//! elementary functions are correctly rounded to nearest at the requested precision: the
//! exact value is within half an ULP of the result, and we widen by two ULPs. A comparison
//! the enclosure cannot settle is retried at twice the precision.

use std::cell::RefCell;
use std::cmp::Ordering;

use astro_float::{BigFloat, Consts, RoundingMode};

/// What a bound is around.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fun {
    /// 2^x.
    Exp2,
    /// log2 x.
    Log2,
    Sin,
    Cos,
    /// 1/sqrt(x).
    Rsq,
}

/// How far from the exact value a result may be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach {
    /// 2^-21 times the exact value's magnitude.
    Relative2m21,
    /// 2^-21 absolute (log2 on [0.5, 2]).
    Absolute2m21,
    /// 0.0008 absolute (sin and cos on [-100π, 100π]).
    Absolute0_0008,
}

/// Which end of the bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    Low,
    High,
    /// The exact value itself (for the correctly rounded result).
    Exact,
}

const START_BITS: usize = 128;
const MAX_BITS: usize = 1 << 14;

thread_local! {
    static CONSTS: RefCell<Consts> = RefCell::new(Consts::new().expect("astro-float constants"));
}

fn exact(x: f64, p: usize) -> BigFloat {
    BigFloat::from_f64(x, p.max(64))
}

/// [r - 2 ulp, r + 2 ulp] for a result `r` rounded to nearest at `p` bits, computed exactly.
fn widen(r: &BigFloat, p: usize) -> (BigFloat, BigFloat) {
    // 2 ULPs at p bits are at most |r| * 2^(2-p); an exact power-of-two multiple of |r|.
    let mut w = r.abs().mul(
        &BigFloat::from_f64(2f64.powi(2 - p as i32), 64),
        p + 64,
        RoundingMode::ToEven,
    );
    if w.is_zero() {
        w = BigFloat::from_f64(f64::MIN_POSITIVE, 64);
    }
    let q = 3 * p + 128;
    (
        r.sub(&w, q, RoundingMode::ToEven),
        r.add(&w, q, RoundingMode::ToEven),
    )
}

/// An enclosure of f(x) at `p` bits.
fn value(fun: Fun, x: f64, p: usize, cc: &mut Consts) -> (BigFloat, BigFloat) {
    let bx = exact(x, p);
    let r = match fun {
        Fun::Exp2 => exact(2.0, p).pow(&bx, p, RoundingMode::ToEven, cc),
        Fun::Log2 => bx.log2(p, RoundingMode::ToEven, cc),
        Fun::Sin => bx.sin(p, RoundingMode::ToEven, cc),
        Fun::Cos => bx.cos(p, RoundingMode::ToEven, cc),
        // Two roundings to nearest at p + 64 bits stay far inside the 2 ULPs at p bits.
        Fun::Rsq => exact(1.0, p).div(
            &bx.sqrt(p + 64, RoundingMode::ToEven),
            p + 64,
            RoundingMode::ToEven,
        ),
    };
    assert!(
        !r.is_nan() && !r.is_inf(),
        "{fun:?}({x}) out of astro-float's range"
    );
    widen(&r, p)
}

/// An enclosure of one end of the bound of f(x) at `p` bits.
fn end_enclosure(fun: Fun, reach: Reach, end: End, x: f64, p: usize) -> (BigFloat, BigFloat) {
    CONSTS.with(|cc| {
        let cc = &mut cc.borrow_mut();
        let (lo, hi) = value(fun, x, p, cc);
        let q = 3 * p + 128;
        let exact_rm = RoundingMode::ToEven;
        let sign = match end {
            End::Low => -1.0,
            End::High => 1.0,
            End::Exact => return (lo, hi),
        };
        match reach {
            Reach::Relative2m21 => {
                // f(x) * (1 ± 2^-21): the factor is exact, and so are the products at q bits.
                // For a negative f(x) the low end is f * (1 + 2^-21): order by sign of f.
                let neg = hi.is_negative();
                let s = if neg { -sign } else { sign };
                let c = exact(1.0 + s * 2f64.powi(-21), 64);
                let (a, b) = (lo.mul(&c, q, exact_rm), hi.mul(&c, q, exact_rm));
                (a, b)
            }
            Reach::Absolute2m21 => {
                let d = exact(sign * 2f64.powi(-21), 64);
                (lo.add(&d, q, exact_rm), hi.add(&d, q, exact_rm))
            }
            Reach::Absolute0_0008 => {
                // 0.0008 is not binary: enclose it too.
                let r = exact(8.0, p).div(&exact(10000.0, p), p, RoundingMode::ToEven);
                let (dlo, dhi) = widen(&r, p);
                if sign > 0.0 {
                    (lo.add(&dlo, q, exact_rm), hi.add(&dhi, q, exact_rm))
                } else {
                    (lo.sub(&dhi, q, exact_rm), hi.sub(&dlo, q, exact_rm))
                }
            }
        }
    })
}

/// The `f64` library functions (exp2, log2, sin, cos, sqrt) are within a few ULPs of the
/// exact value, 2^-50 relative at worst, on the platforms Rust supports (sqrt is correctly
/// rounded by IEEE 754). The first enclosure allows 2^-40, a thousand times that, and is
/// used only where it settles a comparison (all but about one candidate in 10^4); the rest
/// go to astro-float.
const F64_SLACK: f64 = 1.0 / 1_099_511_627_776.0; // 2^-40

/// A cheap enclosure of one end of the bound, from the `f64` library functions.
fn quick_enclosure(fun: Fun, reach: Reach, end: End, x: f64) -> Option<(f64, f64)> {
    let r = match fun {
        Fun::Exp2 => x.exp2(),
        Fun::Log2 => x.log2(),
        Fun::Sin => x.sin(),
        Fun::Cos => x.cos(),
        Fun::Rsq => 1.0 / x.sqrt(),
    };
    let d = match (reach, end) {
        (_, End::Exact) => 0.0,
        (Reach::Relative2m21, _) => r.abs() * 2f64.powi(-21),
        (Reach::Absolute2m21, _) => 2f64.powi(-21),
        (Reach::Absolute0_0008, _) => 0.0008,
    };
    let e = match end {
        End::Low => r - d,
        End::High => r + d,
        End::Exact => r,
    };
    let slack = (r.abs() + d) * F64_SLACK + f64::MIN_POSITIVE;
    let (lo, hi) = (e - slack, e + slack);
    (lo.is_finite() && hi.is_finite() && r.is_normal()).then_some((lo, hi))
}

/// A real number known only through enclosures of growing precision.
pub struct Real {
    fun: Fun,
    reach: Reach,
    end: End,
    x: f64,
    quick: Option<Option<(f64, f64)>>,
    cache: Vec<(BigFloat, BigFloat)>,
}

impl Real {
    pub fn new(fun: Fun, reach: Reach, end: End, x: f64) -> Real {
        Real {
            fun,
            reach,
            end,
            x,
            quick: None,
            cache: Vec::new(),
        }
    }

    /// How `y` compares with the real number, exactly. `Equal` only if no precision up to
    /// 2^14 bits separates them, which cannot happen for the irrational ends this is used on.
    pub fn cmp_f64(&mut self, y: f64) -> Ordering {
        let (fun, reach, end, x) = (self.fun, self.reach, self.end, self.x);
        if let Some((lo, hi)) = *self
            .quick
            .get_or_insert_with(|| quick_enclosure(fun, reach, end, x))
        {
            if y < lo {
                return Ordering::Less;
            }
            if y > hi {
                return Ordering::Greater;
            }
        }
        let by = exact(y, 64);
        for level in 0.. {
            let p = START_BITS << level;
            if p > MAX_BITS {
                break;
            }
            if self.cache.len() <= level {
                let e = end_enclosure(self.fun, self.reach, self.end, self.x, p);
                self.cache.push(e);
            }
            let (lo, hi) = &self.cache[level];
            // astro-float's cmp gives a signed word whose sign is the answer.
            if by.cmp(lo).is_some_and(|c| c < 0) {
                return Ordering::Less;
            }
            if by.cmp(hi).is_some_and(|c| c > 0) {
                return Ordering::Greater;
            }
        }
        Ordering::Equal
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The f64 first enclosure never disagrees with astro-float alone, on candidates one
    /// f32 step either side of each end (where a wrong slack would show first).
    #[test]
    fn quick_enclosure_agrees_with_arbitrary_precision() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let cases = [
            (Fun::Exp2, Reach::Relative2m21),
            (Fun::Log2, Reach::Absolute2m21),
            (Fun::Log2, Reach::Relative2m21),
            (Fun::Sin, Reach::Absolute0_0008),
            (Fun::Cos, Reach::Absolute0_0008),
            (Fun::Rsq, Reach::Relative2m21),
        ];
        for i in 0..600 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let (fun, reach) = cases[i % cases.len()];
            let u = (seed >> 11) as f64 / (1u64 << 53) as f64;
            let x = f32::from_bits(
                match fun {
                    Fun::Exp2 => (-20.0 + 40.0 * u) as f32,
                    Fun::Sin | Fun::Cos => (-300.0 + 600.0 * u) as f32,
                    _ if reach == Reach::Absolute2m21 => (0.5 + 1.5 * u) as f32,
                    _ => (3.0 + 1000.0 * u) as f32,
                }
                .to_bits(),
            ) as f64;
            for end in [End::Low, End::High, End::Exact] {
                let (lo, hi) = quick_enclosure(fun, reach, end, x).unwrap();
                let mid = (lo + hi) / 2.0;
                let f = mid as f32;
                for y in [
                    f32::from_bits(f.to_bits() - 1),
                    f,
                    f32::from_bits(f.to_bits() + 1),
                ] {
                    let mut quick = Real::new(fun, reach, end, x);
                    let mut slow = Real::new(fun, reach, end, x);
                    slow.quick = Some(None);
                    assert_eq!(
                        quick.cmp_f64(y as f64),
                        slow.cmp_f64(y as f64),
                        "{fun:?} {reach:?} {end:?} x={x} y={y}"
                    );
                }
            }
        }
    }

    #[test]
    fn enclosures_contain_known_values() {
        // 2^0.5 = sqrt 2, whose f64 value is correctly rounded by the CPU.
        let mut r = Real::new(Fun::Exp2, Reach::Relative2m21, End::Exact, 0.5);
        let s = std::f64::consts::SQRT_2;
        let below = f64::from_bits(s.to_bits() - 1);
        let above = f64::from_bits(s.to_bits() + 1);
        assert_eq!(r.cmp_f64(below), Ordering::Less);
        assert_eq!(r.cmp_f64(above), Ordering::Greater);
        // The f64 sqrt 2, 1.41421356237309514547..., is above the root 1.41421356237309504880...
        assert_eq!(r.cmp_f64(s), Ordering::Greater);
        // log2 3 > 1.584962500721156 (f64 of log2 3 is 1.5849625007211563, above the root).
        let mut l = Real::new(Fun::Log2, Reach::Absolute2m21, End::Exact, 3.0);
        assert_eq!(l.cmp_f64(1.584_962_500_721_156), Ordering::Less);
        assert_eq!(l.cmp_f64(1.584_962_500_721_157), Ordering::Greater);
    }
}
