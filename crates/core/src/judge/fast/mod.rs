//! The fast deciders: for each instruction, the correctly rounded result and a part of the
//! allowed set that a few machine operations prove, so that a result inside it conforms at a
//! known distance without the exact engine.
//!
//! A decider answers `Some(distance)` only when the result certainly conforms, and `None`
//! for everything else: a violation, a special case it does not handle, an answer it cannot
//! prove. `None` is never a verdict; the line goes to the exact engine. The proofs rest on
//! these facts:
//! - every f32 and f16 value, sum of two, product of two and quotient's correctly rounded
//!   `f64` is known exactly or to half an `f64` ULP, and rounding an `f64` result of +, -,
//!   *, / or sqrt of f32 or f16 operands to f32 or f16 gives the correctly rounded result
//!   (53 >= 2p + 2: the double rounding is innocuous);
//! - the sign of `e * y - x` (an FMA) is exact, which places a candidate against a quotient
//!   or a root;
//! - the library `exp2`, `log2`, `sin`, `cos` and `sqrt` of an `f64` are within a few `f64`
//!   ULPs (2^-50 relative) of the exact value, and `trig.rs`'s sin and cos of 32-bit
//!   operands within 2^-48: far inside the margin of 2^-40 kept to every tolerance here,
//!   so a result inside the shrunk bound is inside the exact one; and the
//!   nearest pattern of the exact value is known when both ends of the approximation's
//!   margin round to the same pattern.

use std::ops::Range;

use crate::d3d::{Op, RuleSet, two_sum};
use crate::format::Arithmetic;
use crate::judge::slices::Column;
use crate::judge::verdict::Tally;

mod bits; // the formats' patterns, values and roundings
mod miss; // the violations they prove and name
mod trig; // sin and cos of large 32-bit operands

use bits::{
    F16, F32, Fmt, dist, finite_nonzero, floor, is_nan, normal, ordinal, pow2, read, round_ne,
    step, trunc, written,
};
use miss::{Settled, outside_number, subnormal};

/// The margin kept to every tolerance and to every rounding boundary, relative.
const MARGIN: f64 = 1.0 / (1u64 << 40) as f64;
/// 2^-21: the relative (and log's absolute) tolerance of rcp, rsq, exp and log.
const REL_2_21: f64 = 1.0 / (1u64 << 21) as f64;
/// sin and cos: absolute tolerance on [-100π, 100π] (§22.10.20).
const SINCOS_ABS: f64 = 0.0008;

/// The same pattern, or both NaN (any NaN stands for every NaN, §3.1.3.2); computed
/// without branches.
#[inline]
fn same<F: Fmt>(r: u32, e: u32) -> bool {
    (r == e) | (is_nan::<F>(r) & is_nan::<F>(e))
}

/// A NaN operand: any NaN result conforms (§3.1.3.1); a number does not.
#[inline]
fn nan_result<F: Fmt>(r: u32) -> Option<u64> {
    is_nan::<F>(r).then_some(0)
}

/// A result the rules fix to one pattern.
#[inline]
fn exactly(r: u32, e: u32) -> Option<u64> {
    (r == e).then_some(0)
}

/// The nearest pattern of a value known as `a` to within the margin, when both ends of the
/// margin round to it.
#[inline]
fn nearest_of_approx<F: Fmt>(a: f64) -> Option<u32> {
    let lo = F::rne(a * (1.0 - MARGIN));
    let hi = F::rne(a * (1.0 + MARGIN));
    (lo == hi && normal::<F>(lo)).then_some(lo)
}

/// A normal result within `bound` (absolute, already shrunk by the margin) of `a`, with `e`
/// the correctly rounded result.
#[inline]
fn within<F: Fmt>(r: u32, e: u32, a: f64, bound: f64) -> Option<u64> {
    if r == e {
        return Some(0);
    }
    (normal::<F>(r) && (F::to_f64(r) - a).abs() <= bound).then(|| dist::<F>(r, e))
}

// ----- one operand -----

/// sqrt (§22.10.21): 1 ULP for 32-bit, correctly rounded for float16 (§3.1.5).
fn sqrt<F: Fmt>(x: u32, r: u32) -> Option<u64> {
    // IEEE's square root already gives §22.10.21's special cases: NaN for NaN and for a
    // negative number, sqrt(-0) = -0, sqrt(+inf) = +inf. One test for every case keeps
    // random data free of mispredicted branches.
    let v = read::<F>(x);
    let e = F::rne(v.sqrt());
    if same::<F>(r, e) {
        return Some(0);
    }
    if !F::RULES_32 || !normal::<F>(r) || !normal::<F>(e) {
        return None;
    }
    // e * e - v places e against the exact root: an exact root allows a step either way,
    // an inexact one the pattern on its other side.
    let ev = F::to_f64(e);
    let below = ev.mul_add(ev, -v);
    let fits = if below == 0.0 {
        r == e + 1 || r == e - 1
    } else {
        r == step::<F>(e, below < 0.0)
    };
    fits.then_some(1)
}

/// rcp (§22.10.18): 2^-21 relative, which holds the 1 ULP reading too.
fn rcp<F: Fmt>(x: u32, r: u32) -> Option<u64> {
    // IEEE's reciprocal gives the table's cases (NaN, 1/±0 = ±inf, 1/±inf = ±0), and the
    // correctly rounded reciprocal as written is always allowed: one test first.
    let v = read::<F>(x);
    let q = 1.0 / v;
    let e = F::rne(q);
    if same::<F>(r, written::<F>(e)) {
        return Some(0);
    }
    if v == 0.0 || !q.is_finite() || q == 0.0 {
        return None;
    }
    if F::RULES_32 && q.abs() < F::MIN_NORMAL / 2.0 {
        // The whole 2^-21 window lies among the denorms, each written as the signed zero.
        return None;
    }
    // The window's low end must be normal for `within` (no flushed member to miss).
    if !normal::<F>(e) || q.abs() * (1.0 - 2.0 * REL_2_21) < F::MIN_NORMAL {
        return None;
    }
    within::<F>(r, e, q, q.abs() * (REL_2_21 - MARGIN))
}

/// rsq (§22.10.19): 2^-21 relative.
fn rsq<F: Fmt>(x: u32, r: u32) -> Option<u64> {
    // The common case first (a positive finite operand, whose window is decided as below),
    // without branches ([`common_window`]).
    let v = read::<F>(x);
    let a = 1.0 / v.sqrt();
    let (fits, d) = common_window::<F>(r, a, a * (REL_2_21 - MARGIN));
    if fits & (v > 0.0) & (v < f64::INFINITY) {
        return Some(d);
    }
    rsq_rest::<F>(x, r)
}

/// [`rsq`] for what its common case leaves.
#[inline(never)]
fn rsq_rest<F: Fmt>(x: u32, r: u32) -> Option<u64> {
    if is_nan::<F>(x) {
        return nan_result::<F>(r);
    }
    let v = read::<F>(x);
    if v == 0.0 || v == f64::INFINITY {
        return exactly(r, F::rne(1.0 / v.sqrt()));
    }
    if v < 0.0 {
        return nan_result::<F>(r);
    }
    let a = 1.0 / v.sqrt();
    let e = nearest_of_approx::<F>(a)?;
    within::<F>(r, e, a, a * (REL_2_21 - MARGIN))
}

/// Whether normal result `r` is inside a relative window around `a`, a value known to
/// within the margin whose nearest pattern (`nearest_of_approx`) is normal, with that
/// nearest pattern's distance: [`nearest_of_approx`] and [`within`] for the common case,
/// as one expression without branches. The transcendental instructions' results rarely
/// equal the nearest pattern on a real device (lavapipe's exp differs in about half the
/// lines), so a branch on it is mispredicted about every other line and stops the
/// processor overlapping one line's library call with the next; here every line takes
/// the same path and the caller branches once, on an answer that is almost always yes.
/// `false` proves nothing: the caller's full decider runs.
#[inline(always)]
fn common_window<F: Fmt>(r: u32, a: f64, bound: f64) -> (bool, u64) {
    let lo = F::rne(a * (1.0 - MARGIN));
    let hi = F::rne(a * (1.0 + MARGIN));
    let near = (F::to_f64(r) - a).abs() <= bound;
    let ok = (lo == hi) & normal::<F>(lo) & ((r == lo) | (normal::<F>(r) & near));
    (ok, dist::<F>(r, lo))
}

/// exp (§22.10.6): 2^x within 2^-21 relative; `a` is the library's 2^v of the operand's
/// value `v` as read (computed a block of lines at a time: see [`with_values`]).
fn exp<F: Fmt>(x: u32, r: u32, a: f64) -> Option<u64> {
    // The common case first (a normal finite operand, a normal result): the result's window
    // well inside the normal range, where every cut-off below answers as here. An
    // operand of ±0 (or a denorm read as one) is left to the rules below: exp(0) is 1
    // exactly (§22.10.6's table).
    let v = read::<F>(x);
    let (fits, d) = common_window::<F>(r, a, a * (REL_2_21 - MARGIN));
    if fits & (v != 0.0) & (a > 4.0 * F::MIN_NORMAL) & (a < F::MAX / 4.0) {
        return Some(d);
    }
    exp_rest::<F>(x, r)
}

/// [`exp`] for what its common case leaves.
#[inline(never)]
fn exp_rest<F: Fmt>(x: u32, r: u32) -> Option<u64> {
    if is_nan::<F>(x) {
        return nan_result::<F>(r);
    }
    let v = read::<F>(x);
    if v.is_infinite() || v == 0.0 {
        return exactly(r, F::rne(v.exp2()));
    }
    let a = v.exp2();
    // The engine's own cut-offs, on the same f64 value: below a quarter of the smallest
    // denorm only +0 is in reach, beyond four times the largest value only +inf.
    let min_denorm = F::MIN_NORMAL / (1u32 << F::FRAC) as f64;
    if a < min_denorm / 4.0 {
        return exactly(r, 0);
    }
    if a > 4.0 * F::MAX {
        return exactly(r, F::EXP);
    }
    if F::RULES_32 && a < F::MIN_NORMAL / 2.0 {
        // Every value of the window is a denorm, written as +0.
        return exactly(r, 0);
    }
    if !(a > 4.0 * F::MIN_NORMAL && a < F::MAX / 4.0) {
        return None;
    }
    let e = nearest_of_approx::<F>(a)?;
    within::<F>(r, e, a, a * (REL_2_21 - MARGIN))
}

/// log (§22.10.8): log2 x within 2^-21 absolute on [0.5, 2], relative elsewhere; `a` is
/// the library's log2 of the operand's value `v` as read (see [`with_values`]).
fn log<F: Fmt>(x: u32, r: u32, a: f64) -> Option<u64> {
    // The common case first (a positive finite operand, whose window is decided as below),
    // without branches ([`common_window`]).
    let v = read::<F>(x);
    let (fits, d) = common_window::<F>(r, a, log_bound(v, a));
    if fits & (v > 0.0) & (v < f64::INFINITY) {
        return Some(d);
    }
    log_rest::<F>(x, r)
}

/// log's tolerance at operand `v` with `a` its log2, shrunk by the margin.
#[inline(always)]
fn log_bound(v: f64, a: f64) -> f64 {
    let absolute = (0.5..=2.0).contains(&v);
    (REL_2_21 - MARGIN) * if absolute { 1.0 } else { a.abs() }
}

/// [`log`] for what its common case leaves.
#[inline(never)]
fn log_rest<F: Fmt>(x: u32, r: u32) -> Option<u64> {
    if is_nan::<F>(x) {
        return nan_result::<F>(r);
    }
    let v = read::<F>(x);
    if v == 0.0 || v == f64::INFINITY {
        return exactly(r, F::rne(v.log2()));
    }
    if v < 0.0 {
        return nan_result::<F>(r);
    }
    let a = v.log2();
    let e = nearest_of_approx::<F>(a)?;
    within::<F>(r, e, a, log_bound(v, a))
}

/// sin or cos (§22.10.20): 0.0008 absolute on [-100π, 100π], anything in [-1, 1] outside.
fn sin_cos<F: Fmt>(x: u32, r: u32, sine: bool) -> Option<u64> {
    let v = read::<F>(x);
    let (s, c) = sin_and_cos::<F>(x, v);
    let a = if sine { s } else { c };
    sin_cos_of::<F>(v, a, r, sine)
}

/// The sine and cosine of operand `x`, whose value as read is `v`, within 2^-48 relative:
/// [`trig`]'s for 32-bit operands, the library's for float16 ones (a sweep of those is
/// 2^16 lines).
#[inline(always)]
fn sin_and_cos<F: Fmt>(x: u32, v: f64) -> (f64, f64) {
    if F::RULES_32 {
        trig::sin_cos_f32(x, v)
    } else {
        (v.sin(), v.cos())
    }
}

/// [`sin_cos_of`]'s common case without branches (see [`common_window`]): a nonzero
/// finite operand, and a result that is the nearest pattern or a normal or zero one within
/// the rules below. `false` proves nothing.
#[inline(always)]
fn sin_cos_common<F: Fmt>(v: f64, a: f64, r: u32) -> (bool, u64) {
    let lo = F::rne(a * (1.0 - MARGIN));
    let hi = F::rne(a * (1.0 + MARGIN));
    let rv = F::to_f64(r);
    let inside = v.abs() <= 100.0 * std::f64::consts::PI;
    let near = (rv - a).abs() <= SINCOS_ABS - MARGIN;
    let readable = normal::<F>(r) | (r & F::MAG == 0);
    let allowed = readable & (rv.abs() <= 1.0) & (!inside | near);
    let operand = (v != 0.0) & v.is_finite();
    let ok = operand & (lo == hi) & normal::<F>(lo) & ((r == lo) | allowed);
    (ok, dist::<F>(r, lo))
}

/// [`sin_cos`] given the operand's value `v` and the library's `a` = sin or cos of it.
#[inline]
fn sin_cos_of<F: Fmt>(v: f64, a: f64, r: u32, sine: bool) -> Option<u64> {
    let (fits, d) = sin_cos_common::<F>(v, a, r);
    if fits {
        return Some(d);
    }
    sin_cos_rest::<F>(v, a, r, sine)
}

/// [`sin_cos_of`] for what its common case leaves.
#[inline(never)]
fn sin_cos_rest<F: Fmt>(v: f64, a: f64, r: u32, sine: bool) -> Option<u64> {
    if !v.is_finite() {
        return nan_result::<F>(r);
    }
    if v == 0.0 {
        return exactly(r, F::rne(if sine { v } else { 1.0 }));
    }
    let e = nearest_of_approx::<F>(a)?;
    if r == e {
        return Some(0);
    }
    let zero = r & F::MAG == 0;
    if !(normal::<F>(r) || zero) {
        return None;
    }
    let rv = F::to_f64(r);
    // The same f64 comparison the exact engine makes (100π is irrational, so no f32 or
    // f16 value is on the edge).
    let inside = v.abs() <= 100.0 * std::f64::consts::PI;
    let ok = rv.abs() <= 1.0 && (!inside || (rv - a).abs() <= SINCOS_ABS - MARGIN);
    ok.then(|| dist::<F>(r, e))
}

/// frc (§22.10.7): `x - round_ni(x)`, one rounded subtraction.
fn frc<F: Fmt>(x: u32, r: u32) -> Option<u64> {
    if x & F::EXP == F::EXP {
        return None;
    }
    // An integral value gives +0 (x - x), anything else the difference rounded and
    // written: the preferred result, always allowed.
    let v = read::<F>(x);
    let e = written::<F>(F::rne(v - floor(v)));
    (r == e).then_some(0)
}

/// round_ne/ni/pi/z (§22.10.14-17): the exact integral value, a zero keeping the sign.
fn round<F: Fmt>(x: u32, r: u32, op: Op) -> Option<u64> {
    if is_nan::<F>(x) {
        return nan_result::<F>(r);
    }
    let v = read::<F>(x);
    let i = match op {
        Op::RoundNe => round_ne(v),
        Op::RoundNi => floor(v),
        Op::RoundPi => -floor(-v),
        _ => trunc(v),
    };
    exactly(r, F::rne(i))
}

// ----- two and three operands -----

/// add and sub (§22.10.1): IEEE 754's answer exactly where an operand is zero, infinite or
/// NaN or the sum cancels exactly (x + 0 = x, -0 + 0 = +0, §3.1.3.2; inf - inf = NaN,
/// §3.1.3.1); otherwise the correctly rounded sum.
fn add<F: Fmt>(a: u32, b: u32, r: u32, negate_b: bool) -> Option<u64> {
    let y = read::<F>(b);
    let s = read::<F>(a) + if negate_b { -y } else { y };
    if !(finite_nonzero::<F>(a) && finite_nonzero::<F>(b)) || s == 0.0 {
        return fixed::<F>(r, s);
    }
    let e = written::<F>(F::rne(s));
    (r == e).then_some(0)
}

/// mul (§22.10.12): IEEE 754's answer exactly where an operand is zero, infinite or NaN
/// (§3.1.3.1); otherwise the correctly rounded product (exact in `f64`).
fn mul<F: Fmt>(a: u32, b: u32, r: u32) -> Option<u64> {
    let p = read::<F>(a) * read::<F>(b);
    if !(finite_nonzero::<F>(a) && finite_nonzero::<F>(b)) {
        return fixed::<F>(r, p);
    }
    let e = written::<F>(F::rne(p));
    (r == e).then_some(0)
}

/// A result the special cases fix: any NaN for NaN, else the one pattern (as written: a
/// 32-bit denorm as its signed zero).
#[inline]
fn fixed<F: Fmt>(r: u32, v: f64) -> Option<u64> {
    if v.is_nan() {
        nan_result::<F>(r)
    } else {
        exactly(r, written::<F>(F::rne(v)))
    }
}

/// div (§22.10.2): the correctly rounded quotient; for 32-bit arithmetic also what the
/// rules add around it (D3D11: anything at least as close as a two-step `a * (1/b)`
/// result; D3D10: the other neighbour).
fn div<F: Fmt>(a: u32, b: u32, r: u32, rules: RuleSet) -> Option<u64> {
    let (x, y) = (read::<F>(a), read::<F>(b));
    let q = x / y;
    if !(finite_nonzero::<F>(a) && finite_nonzero::<F>(b)) {
        // 0/0 and inf/inf are NaN, x/0 a signed infinity, 0/x and x/inf a signed zero,
        // inf/x an infinity (§3.1.3.1): IEEE's quotient.
        return fixed::<F>(r, q);
    }
    // The correctly rounded quotient as written is the preferred result, always allowed.
    let e = F::rne(q);
    if r == written::<F>(e) {
        return Some(0);
    }
    // Beyond 2^126 the flushed reciprocal brings its own results (§22.10.2): the
    // engine's to list.
    if !F::RULES_32 || !normal::<F>(e) || !normal::<F>(r) || y.abs() > pow2(126) {
        return None;
    }
    // e * y - x has the sign of (e - x/y) * sign(y), exactly.
    let ev = F::to_f64(e);
    let side = ev.mul_add(y, -x);
    match rules {
        RuleSet::D3D10 => {
            let e_below = (side < 0.0) == (y > 0.0);
            (side != 0.0 && r == step::<F>(e, e_below)).then_some(1)
        }
        RuleSet::D3D11 => {
            // The worst of the two-step results this decider knows: the reciprocal's two
            // neighbours (or its exact value), each product rounded to nearest. The
            // engine's worst is at least as far, so anything this close conforms.
            let rc = F::rne(1.0 / y);
            if !normal::<F>(rc) {
                return None;
            }
            let rcv = F::to_f64(rc);
            let rc_side = rcv.mul_add(y, -1.0);
            let other = if rc_side == 0.0 {
                rc
            } else {
                step::<F>(rc, (rc_side < 0.0) == (y > 0.0))
            };
            let mut worst = 0.0f64;
            for c in [rc, other] {
                if !normal::<F>(c) {
                    return None;
                }
                let t = F::rne(x * F::to_f64(c));
                if !normal::<F>(t) {
                    return None;
                }
                worst = worst.max((F::to_f64(t) - q).abs());
            }
            let gap = (F::to_f64(r) - q).abs();
            (gap <= worst - q.abs() * MARGIN).then(|| dist::<F>(r, e))
        }
    }
}

/// mad (§22.10.9): between the correctly rounded fused result and the serial one (the
/// product rounded, then the sum), both allowed, so everything between them is too (the
/// allowed set is every value at least as close as the worst serial order, §3.1.3.2).
fn mad<F: Fmt>(a: u32, b: u32, c: u32, r: u32) -> Option<u64> {
    let (x, y, z) = (read::<F>(a), read::<F>(b), read::<F>(c));
    if !(finite_nonzero::<F>(a) && finite_nonzero::<F>(b) && finite_nonzero::<F>(c)) {
        // A zero, infinite or NaN operand: the fused result is exact in f64 (a zero
        // product leaves the addend, an infinity wins or meets its opposite in a NaN),
        // and it is the preferred result.
        return fixed::<F>(r, x.mul_add(y, z));
    }
    let p = x * y;
    let (s, err) = two_sum(p, z);
    if s == 0.0 {
        return None;
    }
    let e = if err == 0.0 {
        F::rne(s)
    } else {
        // s + err lies strictly between s's f64 neighbours.
        let (lo, hi) = (F::rne(s.next_down()), F::rne(s.next_up()));
        if lo != hi {
            return None;
        }
        lo
    };
    // The correctly rounded fused result as written is the preferred result, always allowed.
    if r == written::<F>(e) {
        return Some(0);
    }
    let pr = F::rne(p);
    if !normal::<F>(e) || !normal::<F>(pr) || !normal::<F>(r) {
        return None;
    }
    let u = F::rne(F::to_f64(pr) + z);
    if !normal::<F>(u) || (u ^ e) & F::SIGN != 0 {
        return None;
    }
    let (lo, hi) = {
        let (oe, ou) = (ordinal::<F>(e), ordinal::<F>(u));
        (oe.min(ou), oe.max(ou))
    };
    let o = ordinal::<F>(r);
    (lo <= o && o <= hi).then(|| dist::<F>(r, e))
}

/// min and max (§22.10.10-11) of two normal operands: the one it names, unchanged.
fn min_max<F: Fmt>(a: u32, b: u32, r: u32, is_min: bool) -> Option<u64> {
    if !(normal::<F>(a) && normal::<F>(b)) {
        return None;
    }
    let a_first = (F::to_f64(a) < F::to_f64(b)) == is_min;
    exactly(r, if a_first { a } else { b })
}

/// eq, ne, lt, ge and the conveniences gt, le (§22.6): a full mask, decided completely.
fn compare<F: Fmt>(a: u32, b: u32, r: u32, op: Op) -> Option<u64> {
    exactly(r, mask::<F>(a, b, op))
}

/// The full mask a comparison writes.
#[inline]
fn mask<F: Fmt>(a: u32, b: u32, op: Op) -> u32 {
    let (x, y) = (read::<F>(a), read::<F>(b));
    let t = match op {
        Op::Eq => x == y,
        Op::Ne => x != y,
        Op::Lt => x < y,
        Op::Ge => x >= y,
        Op::Gt => x > y,
        _ => x <= y,
    };
    if t { u32::MAX } else { 0 }
}

// ----- conversions -----

/// itof and utof (§22.13.5-6): exact within 24 bits, else either neighbour.
fn to_float(x: u32, r: u32, signed: bool) -> Option<u64> {
    let exact = if signed { x as i32 as i64 } else { x as i64 };
    let e = (exact as f32).to_bits();
    if r == e {
        return Some(0);
    }
    let ev = f32::from_bits(e) as i64;
    (ev != exact && r == step::<F32>(e, ev < exact)).then_some(1)
}

// ----- second passes: the violations the deciders prove -----

/// The quiet NaN pattern of a format (any NaN stands for every NaN, §3.1.3.2).
#[inline]
fn qnan<F: Fmt>() -> u32 {
    F::EXP | 1 << (F::FRAC - 1)
}

/// sqrt beyond the first pass: a denorm operand (its zero's root, that zero, §22.10.21),
/// or a positive number's root (a tolerance set: neither NaN nor, for 32 bits, a denorm).
#[inline]
fn sqrt_then<F: Fmt>(x: u32, r: u32) -> Option<Settled> {
    if let Some(s) = denorm_unary::<F>(x, r, |v| F::rne(v.sqrt())) {
        return Some(s);
    }
    if finite_nonzero::<F>(x) && x & F::SIGN == 0 {
        return outside_number::<F>(r, F::rne(read::<F>(x).sqrt()));
    }
    None
}

/// rcp beyond the first pass: a denorm operand (the one answer at its zero), or a
/// number's reciprocal (a tolerance set: neither NaN nor, for 32 bits, a denorm, which is
/// what a device that does not flush returns for |x| beyond 2^126, §3.1.3.2), as div's.
#[inline]
fn rcp_then<F: Fmt>(x: u32, r: u32) -> Option<Settled> {
    if let Some(s) = denorm_unary::<F>(x, r, |v| written::<F>(F::rne(1.0 / v))) {
        return Some(s);
    }
    if finite_nonzero::<F>(x) {
        return outside_number::<F>(r, written::<F>(F::rne(1.0 / read::<F>(x))));
    }
    None
}

/// add and sub beyond the first pass: where an operand is zero (a flushed denorm
/// included), infinite or NaN, or the sum cancels, the one IEEE answer (`add_basic`);
/// otherwise a tolerance set around the sum.
#[inline]
fn add_then<F: Fmt>(a: u32, b: u32, r: u32, negate_b: bool) -> Option<Settled> {
    let y = read::<F>(b);
    let s = read::<F>(a) + if negate_b { -y } else { y };
    if !(finite_nonzero::<F>(a) && finite_nonzero::<F>(b)) || s == 0.0 {
        return Some(one_answer::<F, 2>([a, b], r, s));
    }
    outside_number::<F>(r, written::<F>(F::rne(s)))
}

/// mul beyond the first pass, as [`add_then`] (`mul_basic`).
#[inline]
fn mul_then<F: Fmt>(a: u32, b: u32, r: u32) -> Option<Settled> {
    let p = read::<F>(a) * read::<F>(b);
    if !(finite_nonzero::<F>(a) && finite_nonzero::<F>(b)) {
        return Some(one_answer::<F, 2>([a, b], r, p));
    }
    outside_number::<F>(r, written::<F>(F::rne(p)))
}

/// div beyond the first pass, as [`add_then`] (`div_basic`), except where the 32-bit
/// two-step divide adds its own results to a zero or infinite quotient (1/b within
/// its tolerance of the flushed denorms, |b| > 2^126 and a little below; kept clear from 2^125,
/// §22.10.2): those are the engine's.
#[inline]
fn div_then<F: Fmt>(a: u32, b: u32, r: u32) -> Option<Settled> {
    let (x, y) = (read::<F>(a), read::<F>(b));
    let q = x / y;
    if !(finite_nonzero::<F>(a) && finite_nonzero::<F>(b)) {
        if F::RULES_32 && y.abs() >= pow2(125) && y.is_finite() {
            return None;
        }
        return Some(one_answer::<F, 2>([a, b], r, q));
    }
    outside_number::<F>(r, written::<F>(F::rne(q)))
}

/// The verdict where IEEE's answer `v` on the operands as read (32-bit denorms as zeros)
/// is the one allowed result (any NaN for NaN).
#[inline]
fn one_answer<F: Fmt, const N: usize>(xs: [u32; N], r: u32, v: f64) -> Settled {
    let e = if v.is_nan() {
        qnan::<F>()
    } else {
        written::<F>(F::rne(v))
    };
    miss::single::<F>(r, e, miss::Seen::of::<F, N>(xs), false)
}

// ----- the loops -----

/// A 16- or 32-bit slice element as the deciders read it.
#[inline(always)]
fn word<T: Into<u32>>(x: T) -> u32 {
    x.into()
}

/// Runs `f` over lines `range` of typed slices, counting what it proves; a line it cannot
/// prove conforming goes to `then`, which may settle it (a violation it proves and names,
/// or a conforming line the first pass leaves), and the rest to the exact engine. The
/// first pass stays the whole cost of conforming data.
#[inline]
fn lines(
    range: Range<usize>,
    t: &mut Tally,
    slow: &mut Vec<usize>,
    mut f: impl FnMut(usize) -> Option<u64>,
    mut then: impl FnMut(usize) -> Option<Settled>,
) {
    for i in range {
        match f(i) {
            Some(d) => t.conform(i, d),
            None => match then(i) {
                Some(Settled::Conforms(d)) => t.conform(i, d),
                Some(Settled::Violates(k, d)) => t.violate(i, k, d),
                None => slow.push(i),
            },
        }
    }
}

/// Lines per block where a decider computes something for a block of lines before
/// deciding them.
const BLOCK: usize = 64;

/// `range` in consecutive blocks of at most [`BLOCK`] lines.
fn blocks(range: Range<usize>) -> impl Iterator<Item = Range<usize>> {
    range
        .clone()
        .step_by(BLOCK)
        .map(move |s| s..(s + BLOCK).min(range.end))
}

/// [`lines`] with a value per line computed first, a block of lines at a time in a loop of
/// its own (`value(i)`: a library function of the operand, or sin and cos by [`trig`]),
/// and handed to the first pass (`f(i, value)`): a library call, or a chain of dependent
/// multiplies and adds, between two lines' deciding kept the processor from overlapping
/// either with the next line's.
#[inline]
fn with_values<T: Copy + Default>(
    range: Range<usize>,
    t: &mut Tally,
    slow: &mut Vec<usize>,
    value: impl Fn(usize) -> T,
    f: impl Fn(usize, T) -> Option<u64>,
    then: impl FnMut(usize) -> Option<Settled>,
) {
    let mut then = then;
    for block in blocks(range) {
        let mut values = [T::default(); BLOCK];
        for (k, i) in block.clone().enumerate() {
            values[k] = value(i);
        }
        let start = block.start;
        lines(block, t, slow, |i| f(i, values[i - start]), &mut then);
    }
}

/// f32tof16 (§22.13.2), a block of lines at a time: each line is marked, without a
/// branch, as conforming (the truncated answer, or a NaN for a NaN) or as one step past
/// the truncation where that is the nearest float16, rounded to nearest (the common
/// violation: §3.2.2's toward-zero rule broken). Where no heat map places each line, a
/// block of only these two is counted whole (and its violations listed, while the list
/// has room); any other goes line by line ([`miss::f32_to_f16`]). A
/// device that rounds to nearest violates on about half the lines, at random: a branch per
/// line on the outcome was mispredicted half the time. After a block where every line
/// conformed, the next is first checked for that alone, which is cheaper.
#[inline]
fn f32_to_f16_blocks(range: Range<usize>, t: &mut Tally, line: impl Fn(usize) -> (u32, u32)) {
    let by_line = |block: Range<usize>, t: &mut Tally| {
        settled(block, t, |i| {
            let (x, r) = line(i);
            miss::f32_to_f16(x, r)
        })
    };
    if t.map.is_some() {
        return by_line(range, t);
    }
    let conforms = |x: u32, r: u32, e: u32| {
        let nan = is_nan::<F32>(x);
        (nan & is_nan::<F16>(r)) | (!nan & (r == e))
    };
    let mut all_conformed = true;
    for block in blocks(range) {
        let all = u64::MAX >> (BLOCK - block.len());
        if all_conformed {
            let mut conform = 0u64;
            for (k, i) in block.clone().enumerate() {
                let (x, r) = line(i);
                conform |= u64::from(conforms(x, r, miss::f32_to_f16_rtz(x))) << k;
            }
            if conform == all {
                t.conform_many(0, u64::from(conform.count_ones()));
                continue;
            }
        }
        let (mut conform, mut near) = (0u64, 0u64);
        for (k, i) in block.clone().enumerate() {
            let (x, r) = line(i);
            let e = miss::f32_to_f16_rtz(x);
            // One step up in magnitude (never onto a NaN: the truncation of an infinity
            // has no step up that is nearer).
            let up = !is_nan::<F32>(x) & (r == e + 1) & (miss::f32_to_f16_nearest(x, e) == r);
            conform |= u64::from(conforms(x, r, e)) << k;
            near |= u64::from(up) << k;
        }
        all_conformed = conform == all;
        if conform | near == all {
            t.conform_many(0, u64::from(conform.count_ones()));
            t.violate_mask(
                crate::judge::class::ViolationKind::RoundsToNearest,
                1,
                near,
                block.start,
            );
        } else {
            by_line(block, t);
        }
    }
}

/// Runs `f`, which settles every line, over lines `range`.
#[inline]
fn settled(range: Range<usize>, t: &mut Tally, mut f: impl FnMut(usize) -> Settled) {
    for i in range {
        match f(i) {
            Settled::Conforms(d) => t.conform(i, d),
            Settled::Violates(k, d) => t.violate(i, k, d),
        }
    }
}

/// The second pass of a one-operand 32-bit decider: a denorm operand, read as the zero
/// `v` of its sign, where the instruction at `v` has the one allowed pattern `at(v)`.
#[inline]
fn denorm_unary<F: Fmt>(x: u32, r: u32, at: impl Fn(f64) -> u32) -> Option<Settled> {
    if !(F::RULES_32 && subnormal::<F>(x)) {
        return None;
    }
    miss::flushed::<F, 1>([x], r, at(read::<F>(x)))
}

/// Binds `$s` to the typed slice of a 16- or 32-bit column (no decider reads doubles).
macro_rules! typed {
    ($c:expr, $s:ident => $body:expr) => {
        match $c {
            Column::U16($s) => $body,
            Column::U32($s) => $body,
            Column::U64(_) => unreachable!("no fast decider reads 64-bit slices"),
        }
    };
}

/// Decides lines `range` of instruction `op` in a working format of arithmetic
/// `arithmetic` under `rules`, pushing the ones it cannot to `slow`.
#[allow(clippy::too_many_arguments)] // the instruction's three parts, then the run's
pub(super) fn decide(
    op: Op,
    arithmetic: Arithmetic,
    rules: RuleSet,
    ops: &[Column],
    res: Column,
    range: Range<usize>,
    t: &mut Tally,
    slow: &mut Vec<usize>,
) {
    match arithmetic {
        Arithmetic::Float32 => by_format::<F32>(op, rules, ops, res, range, t, slow),
        Arithmetic::Float16 => by_format::<F16>(op, rules, ops, res, range, t, slow),
        Arithmetic::Double | Arithmetic::None => slow.extend(range),
    }
}

fn by_format<F: Fmt>(
    op: Op,
    rules: RuleSet,
    ops: &[Column],
    res: Column,
    range: Range<usize>,
    t: &mut Tally,
    slow: &mut Vec<usize>,
) {
    // Each with a first pass (conforms at a distance, or not proved) and optionally a
    // second on the lines the first leaves.
    macro_rules! unary {
        ($f:expr) => {
            unary!($f, |_: u32, _: u32| None)
        };
        ($f:expr, $then:expr) => {
            typed!(ops[0], x => typed!(res, r => {
                lines(
                    range,
                    t,
                    slow,
                    |i| $f(word(x[i]), word(r[i])),
                    |i| $then(word(x[i]), word(r[i])),
                )
            }))
        };
    }
    macro_rules! binary {
        ($f:expr) => {
            binary!($f, |_: u32, _: u32, _: u32| None)
        };
        ($f:expr, $then:expr) => {
            typed!(ops[0], a => typed!(ops[1], b => typed!(res, r => {
                lines(
                    range,
                    t,
                    slow,
                    |i| $f(word(a[i]), word(b[i]), word(r[i])),
                    |i| $then(word(a[i]), word(b[i]), word(r[i])),
                )
            })))
        };
    }
    macro_rules! settle {
        ($f:expr) => {
            typed!(ops[0], x => typed!(res, r => {
                settled(range, t, |i| $f(word(x[i]), word(r[i])))
            }))
        };
    }
    match op {
        // A 32-bit denorm operand reads as the zero of its sign (§3.1.3.2); at a zero each
        // of these has one allowed result, the table's (§22.10).
        Op::Sqrt => unary!(sqrt::<F>, sqrt_then::<F>),
        Op::Rcp => unary!(rcp::<F>, rcp_then::<F>),
        Op::Rsq => unary!(rsq::<F>, |x, r| denorm_unary::<F>(x, r, |v| {
            F::rne(1.0 / v.sqrt())
        })),
        Op::Exp => typed!(ops[0], x => typed!(res, r => {
            with_values(range, t, slow, |i| read::<F>(word(x[i])).exp2(), |i, a| {
                exp::<F>(word(x[i]), word(r[i]), a)
            }, |i| denorm_unary::<F>(word(x[i]), word(r[i]), |_| F::rne(1.0)))
        })),
        Op::Log => typed!(ops[0], x => typed!(res, r => {
            with_values(range, t, slow, |i| read::<F>(word(x[i])).log2(), |i, a| {
                log::<F>(word(x[i]), word(r[i]), a)
            }, |i| denorm_unary::<F>(word(x[i]), word(r[i]), |_| F::SIGN | F::EXP))
        })),
        Op::Frc => unary!(frc::<F>, |x, r| denorm_unary::<F>(x, r, |_| 0)),
        Op::RoundNe | Op::RoundNi | Op::RoundPi | Op::RoundZ => unary!(
            |x, r| round::<F>(x, r, op),
            |x, r| denorm_unary::<F>(x, r, F::rne)
        ),
        Op::Sin | Op::Cos => unary!(|x, r| sin_cos::<F>(x, r, op == Op::Sin), |x, r| {
            denorm_unary::<F>(x, r, |v| F::rne(if op == Op::Sin { v } else { 1.0 }))
        }),
        Op::Sincos => typed!(ops[0], x => typed!(res, r => {
            let sin_cos = |i: usize| sin_and_cos::<F>(word(x[i]), read::<F>(word(x[i])));
            with_values(range, t, slow, sin_cos, |i, (sine, cosine)| {
                let v = read::<F>(word(x[i]));
                let (rs, rc) = (word(r[2 * i]), word(r[2 * i + 1]));
                // Both common cases at once, one branch for the two.
                let (s_fits, s) = sin_cos_common::<F>(v, sine, rs);
                let (c_fits, c) = sin_cos_common::<F>(v, cosine, rc);
                if s_fits & c_fits {
                    return Some(s.max(c));
                }
                let s = sin_cos_rest::<F>(v, sine, rs, true)?;
                let c = sin_cos_rest::<F>(v, cosine, rc, false)?;
                Some(s.max(c))
            }, |i| {
                // A denorm: sin(±0) = ±0 and cos(±0) = 1, each the one allowed result.
                let x = word(x[i]);
                let s = denorm_unary::<F>(x, word(r[2 * i]), |v| F::rne(v))?;
                let c = denorm_unary::<F>(x, word(r[2 * i + 1]), |_| F::rne(1.0))?;
                Some(match (s, c) {
                    (Settled::Conforms(a), Settled::Conforms(b)) => Settled::Conforms(a.max(b)),
                    (Settled::Violates(k, a), Settled::Conforms(b))
                    | (Settled::Conforms(b), Settled::Violates(k, a)) => {
                        Settled::Violates(k, a.map(|a| a.max(b)))
                    }
                    (Settled::Violates(k, a), Settled::Violates(_, b)) => {
                        Settled::Violates(k, a.zip(b).map(|(a, b)| a.max(b)))
                    }
                })
            })
        })),
        Op::Ftoi | Op::Ftou => settle!(|x, r| miss::to_int(x, r, op == Op::Ftoi)),
        Op::Itof | Op::Utof => unary!(|x, r| to_float(x, r, op == Op::Itof)),
        Op::F16ToF32 => settle!(miss::f16_to_f32),
        Op::F32ToF16 => typed!(ops[0], x => typed!(res, r => {
            f32_to_f16_blocks(range, t, |i| (word(x[i]), word(r[i])))
        })),
        Op::Add | Op::Sub => binary!(|a, b, r| add::<F>(a, b, r, op == Op::Sub), |a, b, r| {
            add_then::<F>(a, b, r, op == Op::Sub)
        }),
        Op::Mul => binary!(mul::<F>, mul_then::<F>),
        Op::Div => binary!(|a, b, r| div::<F>(a, b, r, rules), div_then::<F>),
        Op::Min | Op::Max => binary!(|a, b, r| min_max::<F>(a, b, r, op == Op::Min), |a, b, r| {
            Some(miss::min_max::<F>(a, b, r, op == Op::Min))
        }),
        Op::Eq | Op::Ne | Op::Lt | Op::Ge | Op::Gt | Op::Le => {
            binary!(|a, b, r| compare::<F>(a, b, r, op), |a, b, r| Some(
                miss::mask::<F>(a, b, r, mask::<F>(a, b, op))
            ))
        }
        Op::Mad => typed!(ops[0], a => typed!(ops[1], b => typed!(ops[2], c => typed!(res, r => {
            lines(
                range,
                t,
                slow,
                |i| mad::<F>(word(a[i]), word(b[i]), word(c[i]), word(r[i])),
                |_| None,
            )
        })))),
        Op::Dp2 | Op::Dp3 | Op::Dp4 | Op::Dtof | Op::Ftod => slow.extend(range),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{F16 as F16_FORMAT, RoundOptions, Rounding, round_f64};

    #[test]
    fn f32tof16_truncates_as_the_exact_rounding_does() {
        // Every 1021st f32 pattern (and the edges), against the exact library rounding
        // toward zero with saturation (§3.2.2).
        let opts = RoundOptions {
            mode: Rounding::TowardZero,
            saturate: true,
        };
        let edges = [
            0x477f_e000u32,
            0x477f_dfff,
            0x477f_f000,
            0x3880_0000,
            0x387f_ffff,
            0x3380_0000,
            0x337f_ffff,
            0x7f80_0000,
        ];
        for x in (0..u32::MAX)
            .step_by(1021)
            .chain(edges)
            .chain(edges.map(|e| e | 0x8000_0000))
        {
            if F32::is_denorm_or_nan(x) {
                continue;
            }
            let want = round_f64(&F16_FORMAT, F32::to_f64(x), opts).bits as u32;
            let got = miss::f32_to_f16(x, want);
            assert_eq!(got, Settled::Conforms(0), "{x:#010x} -> {want:#06x}");
            let off = miss::f32_to_f16(x, want ^ 1);
            assert!(matches!(off, Settled::Violates(..)), "{x:#010x}");
        }
    }

    #[test]
    fn arithmetic_violations_at_the_denorm_boundary() {
        use crate::judge::class::ViolationKind;
        let v = |k, d| Some(Settled::Violates(k, d));
        // 2^-126 * 0.5: a denorm, which D3D flushes; unflushed, 2^22 steps from +0.
        assert_eq!(mul::<F32>(0x0080_0000, 0x3f00_0000, 0), Some(0));
        assert_eq!(
            mul_then::<F32>(0x0080_0000, 0x3f00_0000, 0x0040_0000),
            v(ViolationKind::DenormResult, Some(1 << 22))
        );
        // The last normal product stays: 2^-126 * 1.0.
        assert_eq!(mul::<F32>(0x0080_0000, 0x3f80_0000, 0x0080_0000), Some(0));
        // (2^-126 + 1 step) - 2^-126: the smallest denorm, flushed to +0.
        assert_eq!(add::<F32>(0x0080_0001, 0x8080_0000, 0, false), Some(0));
        assert_eq!(
            add_then::<F32>(0x0080_0001, 0x8080_0000, 1, false),
            v(ViolationKind::DenormResult, Some(1))
        );
        // A denorm operand reads as zero: 2^-126 - denorm is 2^-126 exactly.
        assert_eq!(
            add_then::<F32>(0x0080_0000, 0x8000_0001, 0x007f_ffff, false),
            v(ViolationKind::DenormOperand, Some(1))
        );
        assert_eq!(
            add::<F32>(0x0080_0000, 0x0000_0001, 0x0080_0000, true),
            Some(0)
        );
        // sqrt of a denorm: the zero of its sign; the unflushed root is far from it, and a
        // negative denorm's NaN has no distance.
        let root = (f32::from_bits(1).sqrt()).to_bits();
        assert_eq!(
            sqrt_then::<F32>(1, root),
            v(ViolationKind::DenormOperand, Some(root as u64))
        );
        assert_eq!(
            sqrt_then::<F32>(0x8000_0001, 0x7fc0_0000),
            v(ViolationKind::DenormOperand, None)
        );
        assert_eq!(
            sqrt_then::<F32>(0x3f80_0000, 0x7fc0_0000),
            v(ViolationKind::NanResult, None)
        );
        // A 1-step miss of a tolerance is the engine's to measure.
        assert_eq!(sqrt_then::<F32>(0x4000_0000, 0x3fb5_04f5), None);
        // Near 2^126 the two-step divide's zero is the engine's.
        assert_eq!(div_then::<F32>(0, 0x7e80_0000, 0x8000_0000), None);
        assert_eq!(
            div_then::<F32>(0, 0x4000_0000, 0x8000_0000),
            v(ViolationKind::ZeroSign, Some(0))
        );
    }
}
