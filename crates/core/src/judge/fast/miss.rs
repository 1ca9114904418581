//! Violations the fast deciders prove and name: where the allowed set of a line is one
//! pattern (or any NaN), which the engine builds for the conversions, for min and max, and
//! for 32-bit arithmetic on a flushed denorm operand, a result other than that pattern is
//! a violation, and `class.rs`'s order of questions (op-specific, denorm operand, denorm
//! result, NaN result, NaN operand, ...) names it from the operands' and the result's
//! classes alone. Elsewhere the allowed set is a tolerance around the exact result, but a
//! 32-bit arithmetic result never allows a denorm (the output flush, §3.1.3.2) or, for a
//! number, NaN: those two classes need no distance to the set.
//!
//! The distance of a violation is the engine's: from its preferred result, the correctly
//! rounded one as the format writes it, in representable values (`None` for a NaN against
//! a number).

use super::bits::{F16, F32, Fmt, dist, is_nan, read};
use crate::format::FormatType;
use crate::judge::class::ViolationKind;

/// What a decider settles about a line it does not leave to the exact engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::judge) enum Settled {
    /// The result conforms, at this distance.
    Conforms(u64),
    /// The result violates: its class, and its distance (`None`: a NaN against a number).
    Violates(ViolationKind, Option<u64>),
}

/// What the operands of a line are, as far as a violation's class asks.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Seen {
    /// A 32-bit denorm, flushed on input (§3.1.3.2).
    pub(super) denorm: bool,
    pub(super) nan: bool,
    pub(super) inf: bool,
}

impl Seen {
    /// The operands `xs` of format `F`.
    #[inline]
    pub(super) fn of<F: Fmt, const N: usize>(xs: [u32; N]) -> Seen {
        let mut s = Seen::default();
        for x in xs {
            s.denorm |= F::RULES_32 && subnormal::<F>(x);
            s.nan |= is_nan::<F>(x);
            s.inf |= x & F::MAG == F::EXP;
        }
        s
    }
}

/// A nonzero pattern with a zero exponent field.
#[inline]
pub(super) fn subnormal<F: Fmt>(x: u32) -> bool {
    x & F::EXP == 0 && x & F::MAG != 0
}

/// The engine's distance between a result and the preferred one: representable values
/// between them, the two zeros one point; two NaNs 0; a NaN against a number none.
#[inline]
pub(super) fn distance<F: Fmt>(r: u32, e: u32) -> Option<u64> {
    match (is_nan::<F>(r), is_nan::<F>(e)) {
        (false, false) => Some(dist::<F>(r, e)),
        (true, true) => Some(0),
        _ => None,
    }
}

/// The verdict on result `r` where the allowed set is the one pattern `e` (any NaN when
/// `e` is a NaN) and `e` is the preferred result: `class.rs`'s questions after the
/// op-specific ones, answered from the classes. `min_max` names a NaN operand's class.
#[inline]
pub(super) fn single<O: Fmt>(r: u32, e: u32, seen: Seen, min_max: bool) -> Settled {
    let (rn, en) = (is_nan::<O>(r), is_nan::<O>(e));
    if r == e || (rn && en) {
        return Settled::Conforms(0);
    }
    let kind = if seen.denorm {
        ViolationKind::DenormOperand
    } else if O::RULES_32 && subnormal::<O>(r) {
        ViolationKind::DenormResult
    } else if rn {
        ViolationKind::NanResult
    } else if seen.nan {
        if min_max {
            ViolationKind::NanNotIgnored
        } else {
            ViolationKind::NanNotPropagated
        }
    } else if en {
        ViolationKind::NumberForNan
    } else if seen.inf {
        ViolationKind::InfOperand
    } else if r & O::MAG == 0 && r ^ O::SIGN == e {
        ViolationKind::ZeroSign
    } else {
        ViolationKind::miss(Some(dist::<O>(r, e)))
    };
    Settled::Violates(kind, distance::<O>(r, e))
}

/// A result `r` outside a 32-bit arithmetic tolerance set around a number (no denorm or
/// NaN operand, preferred result `e`, not NaN): a denorm and a NaN are violations the
/// classes name without the set's bounds (the set holds neither: output flush, §3.1.3.2).
#[inline]
pub(super) fn outside_number<F: Fmt>(r: u32, e: u32) -> Option<Settled> {
    if F::RULES_32 && subnormal::<F>(r) {
        Some(Settled::Violates(
            ViolationKind::DenormResult,
            Some(dist::<F>(r, e)),
        ))
    } else if is_nan::<F>(r) {
        Some(Settled::Violates(ViolationKind::NanResult, None))
    } else {
        None
    }
}

// ----- the conversions: one allowed pattern for every operand -----

/// f32tof16 (§22.13.2, §3.2.2): toward zero, ±65504 beyond the range, inf and NaN kept; a
/// denorm operand read as its zero. Every line is settled: the allowed set is one pattern.
/// A violation that is the nearest float16 of the operand as given (unflushed: the `half`
/// crate's conversion, which `class.rs` asks) rounds to nearest.
#[inline]
pub(super) fn f32_to_f16(x: u32, r: u32) -> Settled {
    let seen = Seen::of::<F32, 1>([x]);
    if seen.nan {
        return single::<F16>(r, F16::EXP | F16::QUIET, seen, false);
    }
    let e = f32_to_f16_rtz(x);
    if r == e {
        return Settled::Conforms(0);
    }
    if r == f32_to_f16_nearest(x, e) {
        return Settled::Violates(ViolationKind::RoundsToNearest, distance::<F16>(r, e));
    }
    single::<F16>(r, e, seen, false)
}

/// Fraction bits an f32 has beyond a float16's (13).
const NARROWED_BITS: u32 = F32::FRAC - F16::FRAC;
/// The exponent bias f32tof16 takes off (127 to 15: 112).
const REBIAS: u32 = (F32::FORMAT.bias - F16::FORMAT.bias) as u32;
/// The f32 pattern of float16's largest finite value, 65504.
const F16_MAX_AS_F32: u32 = (F16::MAX as f32).to_bits();
/// The f32 pattern of 2^16, the power of two past float16's largest finite value.
const F16_BEYOND_AS_F32: u32 = ((F32::FORMAT.bias + F16::FORMAT.emax() + 1) as u32) << F32::FRAC;
/// The f32 fraction with its hidden bit: the significand of a normal pattern.
const F32_HIDDEN_BIT: u32 = 1 << F32::FRAC;

/// f32tof16's one answer on a non-NaN operand.
#[inline]
pub(super) fn f32_to_f16_rtz(x: u32) -> u32 {
    let m = x & F32::MAG;
    let sign = (x >> (F32::BITS - F16::BITS)) & F16::SIGN;
    let exp = m >> F32::FRAC;
    // Truncation is a shift of the f32 bits: a normal half keeps the top 10 fraction bits
    // under the rebiased exponent (127 to 15), a subnormal one counts 2^-24 steps (a
    // 32-bit denorm operand, flushed, gives its zero: the shift leaves nothing).
    sign | if m >= F32::EXP {
        F16::EXP
    } else if m >= F16_MAX_AS_F32 {
        F16::MAX_BITS // 65504 and beyond: saturated, not infinity
    } else if exp > REBIAS {
        (m >> NARROWED_BITS) - (REBIAS << F16::FRAC)
    } else {
        ((m & F32::FORMAT.frac_mask() as u32) | F32_HIDDEN_BIT)
            >> (REBIAS + NARROWED_BITS + 1 - exp).min(31)
    }
}

/// The float16 nearest a non-NaN f32 pattern `x` as given (unflushed), ties to even,
/// from [`f32_to_f16_rtz`]'s truncated `e` and the bits it drops: one step up in magnitude
/// when they are past half a step, or exactly half with `e` odd. Integer operations only,
/// no branch (the `f64` route, [`f16_nearest`](super::bits::f16_nearest), was most of
/// judging a device that rounds to nearest). A 32-bit denorm operand is below every
/// float16 step: its zero.
#[inline(always)]
pub(super) fn f32_to_f16_nearest(x: u32, e: u32) -> u32 {
    let m = x & F32::MAG;
    let exp = m >> F32::FRAC;
    // Bits dropped below a float16 step: 13 for a normal half (and the saturated range,
    // where 65520 and up round to infinity), more for a subnormal one (at most 31 here:
    // below 2^-25 everything is dropped and under half a step).
    let shift = (REBIAS + NARROWED_BITS + 1)
        .saturating_sub(exp)
        .clamp(NARROWED_BITS, 31);
    let mantissa = if exp == 0 {
        0
    } else {
        (m & F32::FORMAT.frac_mask() as u32) | F32_HIDDEN_BIT
    };
    let dropped = mantissa & ((1 << shift) - 1);
    let half = 1 << (shift - 1);
    let up = (dropped > half) | ((dropped == half) & (e & 1 == 1));
    // From 65536 (exponent 143) up, the truncation saturated at 65504 and the nearest is
    // infinity; infinity itself stays.
    let up = (up & (m < F16_BEYOND_AS_F32)) | (F16_BEYOND_AS_F32..F32::EXP).contains(&m);
    e + u32::from(up)
}

/// ftoi and ftou (§22.13.3-4): truncation, NaN gives 0, saturation, a denorm read as 0;
/// the float-to-integer casts of Rust do exactly this. Every line is settled.
#[inline]
pub(super) fn to_int(x: u32, r: u32, signed: bool) -> Settled {
    let v = read::<F32>(x);
    let e = if signed { v as i32 as u32 } else { v as u32 };
    if r == e {
        return Settled::Conforms(0);
    }
    let d = if signed {
        (r as i32 as i64).abs_diff(e as i32 as i64)
    } else {
        (r as i64).abs_diff(e as i64)
    };
    // `class.rs` reads the operand as given (a denorm's tiny value is inside the range,
    // a negative one outside ftou's).
    let raw = F32::to_f64(x);
    let inside = if signed {
        (-2147483648.0..=2147483647.0).contains(&raw)
    } else {
        (0.0..=4294967295.0).contains(&raw)
    };
    let kind = if is_nan::<F32>(x) {
        ViolationKind::NanGivesNonZero
    } else if !inside {
        ViolationKind::NotClamped
    } else if subnormal::<F32>(x) {
        ViolationKind::DenormOperand
    } else {
        // An integer result has no NaN, denorm or zero sign: the distance is the miss.
        ViolationKind::miss(Some(d))
    };
    Settled::Violates(kind, Some(d))
}

/// f16tof32 (§22.13.1): exact; NaN stays NaN. Every line is settled.
#[inline]
pub(super) fn f16_to_f32(x: u32, r: u32) -> Settled {
    let seen = Seen::of::<F16, 1>([x]);
    let e = if seen.nan {
        0x7fc0_0000
    } else {
        F32::rne(F16::to_f64(x))
    };
    single::<F32>(r, e, seen, false)
}

// ----- min and max -----

/// min and max (§22.10.10-11, §3.1.3.1): the operand named by the flushed values (the
/// number beside a NaN, NaN for two), returned as it is or flushed (§3.1.3.2); either of
/// two zeros that compare equal. Every line is settled. The preferred result is the
/// flushed one (for two zeros, IEEE 754R's -0 for min and +0 for max); a result the set
/// allows may lie some distance from it (an unflushed denorm).
#[inline]
pub(super) fn min_max<F: Fmt>(a: u32, b: u32, r: u32, is_min: bool) -> Settled {
    let seen = Seen::of::<F, 2>([a, b]);
    let flush = |x: u32| {
        if F::RULES_32 && subnormal::<F>(x) {
            x & F::SIGN
        } else {
            x
        }
    };
    let (allowed, preferred) = match (is_nan::<F>(a), is_nan::<F>(b)) {
        (true, true) => return single::<F>(r, a, seen, true),
        (true, false) => ([b, flush(b), b, flush(b)], flush(b)),
        (false, true) => ([a, flush(a), a, flush(a)], flush(a)),
        (false, false) => {
            let (x, y) = (read::<F>(a), read::<F>(b));
            if x == y && x == 0.0 && a != b {
                let signs = if is_min { a | b } else { a & b };
                ([a, flush(a), b, flush(b)], signs & F::SIGN)
            } else {
                let s = if (x < y) == is_min || x == y { a } else { b };
                ([s, flush(s), s, flush(s)], flush(s))
            }
        }
    };
    if allowed.contains(&r) {
        return Settled::Conforms(dist::<F>(r, preferred));
    }
    let kind = if seen.denorm {
        ViolationKind::DenormOperand
    } else if F::RULES_32 && subnormal::<F>(r) {
        ViolationKind::DenormResult
    } else if is_nan::<F>(r) {
        ViolationKind::NanResult
    } else if seen.nan {
        ViolationKind::NanNotIgnored
    } else if seen.inf {
        ViolationKind::InfOperand
    } else if r & F::MAG == 0 && allowed.contains(&(r ^ F::SIGN)) {
        ViolationKind::ZeroSign
    } else {
        ViolationKind::miss(allowed.iter().map(|&k| dist::<F>(r, k)).min())
    };
    let d = (!is_nan::<F>(r)).then(|| dist::<F>(r, preferred));
    Settled::Violates(kind, d)
}

// ----- comparisons -----

/// A comparison's result `r` where the full mask `e` is the one answer (§22.6): the
/// domain orders a word by whether it is zero, so every distance is 0 or 1.
#[inline]
pub(super) fn mask<F: Fmt>(a: u32, b: u32, r: u32, e: u32) -> Settled {
    if r == e {
        return Settled::Conforms(0);
    }
    let seen = Seen::of::<F, 2>([a, b]);
    let d = u64::from((r != 0) != (e != 0));
    let kind = if r != 0 && r != u32::MAX {
        ViolationKind::NotAMask
    } else if seen.denorm {
        ViolationKind::DenormOperand
    } else if seen.nan {
        // class.rs asks about a NaN operand before the mask's value.
        ViolationKind::NanNotPropagated
    } else if seen.inf {
        ViolationKind::InfOperand
    } else {
        ViolationKind::miss(Some(d))
    };
    Settled::Violates(kind, Some(d))
}

// ----- 32-bit arithmetic on a flushed denorm operand -----

/// A line of 32-bit arithmetic with a denorm operand, where the instruction on the flushed
/// operands has one allowed pattern `e` (an exact zero, infinity or number, or NaN):
/// anything else is the unflushed denorm's violation. `None` without a denorm operand.
#[inline]
pub(super) fn flushed<F: Fmt, const N: usize>(xs: [u32; N], r: u32, e: u32) -> Option<Settled> {
    let seen = Seen::of::<F, N>(xs);
    seen.denorm.then(|| single::<F>(r, e, seen, false))
}

#[cfg(test)]
mod tests {
    use super::super::bits::f16_nearest;
    use super::*;

    #[test]
    fn f16_nearest_is_the_half_crates_conversion() {
        // class.rs names "rounds to nearest" by `half`'s f32 -> f16; the fast decider by
        // its own rounding. Every 257th pattern and the edges of the f16 range.
        let edges = [
            0x477f_e000u32, // 65504
            0x477f_efff,    // just below 65520
            0x477f_f000,    // 65520: the tie, to infinity
            0x477f_f001,
            0x3880_0000, // 2^-14
            0x387f_ffff,
            0x3380_0000, // 2^-24
            0x3300_0000, // 2^-25: the tie, to zero
            0x3300_0001,
            0x337f_ffff,
            0x7f80_0000,
            0x0000_0001,
        ];
        for x in (0..u32::MAX)
            .step_by(257)
            .chain(edges)
            .chain(edges.map(|e| e | 0x8000_0000))
        {
            if is_nan::<F32>(x) {
                continue;
            }
            let want = half::f16::from_f32(f32::from_bits(x)).to_bits() as u32;
            assert_eq!(f16_nearest(F32::to_f64(x)), want, "{x:#010x}");
            assert_eq!(
                f32_to_f16_nearest(x, f32_to_f16_rtz(x)),
                want,
                "{x:#010x} from the truncation"
            );
        }
    }

    /// Every f32 pattern, both roundings from the truncation against `half`'s: run with
    /// `cargo test --release --lib every_f32_nearest -- --ignored`.
    #[test]
    #[ignore]
    fn every_f32_nearest_from_the_truncation_is_the_half_crates() {
        for x in (0..=u32::MAX).filter(|&x| !is_nan::<F32>(x)) {
            let want = half::f16::from_f32(f32::from_bits(x)).to_bits() as u32;
            assert_eq!(f32_to_f16_nearest(x, f32_to_f16_rtz(x)), want, "{x:#010x}");
        }
    }

    #[test]
    fn f32tof16_classes_at_the_edges() {
        use Settled::*;
        // 65504 conforms; 65504 + half a step rounds to nearest to 65504 too (the same both
        // ways), 65520 and beyond to infinity: rounds to nearest, 1 step from 65504.
        assert_eq!(f32_to_f16(0x477f_e000, 0x7bff), Conforms(0));
        assert_eq!(f32_to_f16(0x477f_efff, 0x7bff), Conforms(0));
        assert_eq!(
            f32_to_f16(0x477f_f000, 0x7c00),
            Violates(ViolationKind::RoundsToNearest, Some(1))
        );
        assert_eq!(
            f32_to_f16(0xc77f_f000, 0xfc00),
            Violates(ViolationKind::RoundsToNearest, Some(1))
        );
        // Infinity short of the tie is not the nearest: 1 ULP outside.
        assert_eq!(
            f32_to_f16(0x477f_efff, 0x7c00),
            Violates(ViolationKind::Miss1, Some(1))
        );
        // The last value below a half step truncates and rounds alike; the half step
        // itself (1 + 2^-11) ties to the even 1.0, 1 + 3 * 2^-12 rounds up.
        assert_eq!(f32_to_f16(0x3f80_0fff, 0x3c00), Conforms(0));
        assert_eq!(f32_to_f16(0x3f80_1000, 0x3c00), Conforms(0));
        assert_eq!(
            f32_to_f16(0x3f80_1800, 0x3c01),
            Violates(ViolationKind::RoundsToNearest, Some(1))
        );
        assert_eq!(f32_to_f16(0x3f80_1800, 0x3c00), Conforms(0));
        // 1 + 3 * 2^-11 ties to the even 1 + 2^-9 (0x3c02) where truncation gives 0x3c01.
        assert_eq!(
            f32_to_f16(0x3f80_3000, 0x3c02),
            Violates(ViolationKind::RoundsToNearest, Some(1))
        );
        // The subnormal edge: 2^-25 ties to zero (the same both ways), 1.5 * 2^-25 rounds
        // to the smallest subnormal.
        assert_eq!(f32_to_f16(0x3300_0000, 0), Conforms(0));
        assert_eq!(
            f32_to_f16(0x3340_0000, 1),
            Violates(ViolationKind::RoundsToNearest, Some(1))
        );
        // A denorm operand: its zero; the other zero is the denorm's violation.
        assert_eq!(f32_to_f16(0x8000_0001, 0x8000), Conforms(0));
        assert_eq!(
            f32_to_f16(0x8000_0001, 0x0000),
            Violates(ViolationKind::DenormOperand, Some(0))
        );
        // NaN: any NaN; a number is a NaN not propagated.
        assert_eq!(f32_to_f16(0x7fc0_0001, 0x7d00), Conforms(0));
        assert_eq!(
            f32_to_f16(0x7fc0_0000, 0x7bff),
            Violates(ViolationKind::NanNotPropagated, None)
        );
        // A number where one is required, NaN given.
        assert_eq!(
            f32_to_f16(0x3f80_0000, 0x7e00),
            Violates(ViolationKind::NanResult, None)
        );
        assert_eq!(
            f32_to_f16(0x7f80_0000, 0x7bff),
            Violates(ViolationKind::InfOperand, Some(1))
        );
        assert_eq!(
            f32_to_f16(0, 0x8000),
            Violates(ViolationKind::ZeroSign, Some(0))
        );
    }

    #[test]
    fn conversions_at_the_integer_edges() {
        use Settled::*;
        let ftoi = |x: f32, r: u32| to_int(x.to_bits(), r, true);
        let ftou = |x: f32, r: u32| to_int(x.to_bits(), r, false);
        // 2^31 saturates ftoi; SPIR-V's unclamped 0x80000000 is 2^32 - 1 away.
        assert_eq!(ftoi(2147483648.0, 0x7fff_ffff), Conforms(0));
        assert_eq!(
            ftoi(2147483648.0, 0x8000_0000),
            Violates(ViolationKind::NotClamped, Some(u32::MAX as u64))
        );
        // -2^31 is in range, the largest f32 below 2^31 too.
        assert_eq!(ftoi(-2147483648.0, 0x8000_0000), Conforms(0));
        assert_eq!(
            ftoi(2147483520.0, 0x8000_0000),
            Violates(ViolationKind::Miss16, Some(u32::MAX as u64 - 127))
        );
        assert_eq!(ftou(4294967296.0, u32::MAX), Conforms(0));
        assert_eq!(
            ftou(4294967296.0, 0),
            Violates(ViolationKind::NotClamped, Some(u32::MAX as u64))
        );
        assert_eq!(ftou(4294967040.0, 0xffff_ff00), Conforms(0));
        // ftou of a negative number clamps to 0; -0 is in range.
        assert_eq!(
            ftou(-1.5, 0xffff_ffff),
            Violates(ViolationKind::NotClamped, Some(u32::MAX as u64))
        );
        assert_eq!(ftou(-0.0, 0), Conforms(0));
        assert_eq!(
            to_int(0x8000_0001, 1, false),
            Violates(ViolationKind::NotClamped, Some(1))
        );
        assert_eq!(
            to_int(0x0000_0001, 1, true),
            Violates(ViolationKind::DenormOperand, Some(1))
        );
        assert_eq!(
            ftoi(f32::NAN, 0x8000_0000),
            Violates(ViolationKind::NanGivesNonZero, Some(1 << 31))
        );
        assert_eq!(ftoi(2.5, 3), Violates(ViolationKind::Miss1, Some(1)));
    }

    #[test]
    fn min_max_of_nan_and_zeros() {
        use Settled::*;
        let one = 0x3f80_0000;
        let nan = 0x7fc0_0000;
        assert_eq!(
            min_max::<F32>(nan, one, nan, true),
            Violates(ViolationKind::NanResult, None)
        );
        assert_eq!(min_max::<F32>(one, nan, one, false), Conforms(0));
        assert_eq!(
            min_max::<F32>(one, nan, 0x4000_0000, false),
            Violates(ViolationKind::NanNotIgnored, Some(1 << 23))
        );
        assert_eq!(min_max::<F32>(nan, nan, nan | 5, true), Conforms(0));
        assert_eq!(
            min_max::<F32>(nan, nan, one, true),
            Violates(ViolationKind::NanNotIgnored, None)
        );
        // A denorm comes back as itself or flushed, 1 from the flushed preferred result;
        // beside NaN too, where NaN is its violation.
        assert_eq!(min_max::<F32>(1, one, 1, true), Conforms(1));
        assert_eq!(min_max::<F32>(1, one, 0, true), Conforms(0));
        assert_eq!(
            min_max::<F32>(1, one, 0x8000_0000, true),
            Violates(ViolationKind::DenormOperand, Some(0))
        );
        assert_eq!(
            min_max::<F32>(1, nan, nan, false),
            Violates(ViolationKind::DenormOperand, None)
        );
        // Two zeros: either; min prefers -0, max +0. A denorm equals a zero.
        assert_eq!(min_max::<F32>(0, 0x8000_0000, 0, true), Conforms(0));
        assert_eq!(
            min_max::<F32>(0x8000_0002, 0, 0x8000_0002, false),
            Conforms(2)
        );
        assert_eq!(
            min_max::<F32>(0, 0x8000_0000, 1, true),
            Violates(ViolationKind::DenormResult, Some(1))
        );
        // A float16 subnormal is an ordinary operand.
        assert_eq!(min_max::<F16>(1, 0x3c00, 1, true), Conforms(0));
        assert_eq!(
            min_max::<F16>(1, 0x3c00, 0, true),
            Violates(ViolationKind::Miss1, Some(1))
        );
    }
}
