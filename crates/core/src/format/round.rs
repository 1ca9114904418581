//! Rounding a number into a format, in every mode, exactly.
//!
//! Two front ends feed one back end: [`round_number`] takes an exact [`Number`] (any decimal
//! a user types, any result of exact arithmetic), [`round_f64`] takes an `f64` (the bulk
//! conversion path). Both reduce the value to an integer significand plus a [`Residue`]
//! and hand it to `finish`, where the rounding decision and the overflow rule live once.

use std::cmp::Ordering;

use num_traits::ToPrimitive;

use super::choice::{Choice, UnknownChoice, parse_choice};
use super::descriptor::FloatFormat;
use crate::exact::{Number, Residue};

/// Rounding direction. The default is [`Rounding::NearestEven`], as `--rounding` and the
/// Python package's `rounding=` take it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Rounding {
    /// IEEE round to nearest, ties to even; overflow goes to infinity.
    #[default]
    NearestEven,
    /// Round toward zero; overflow gives the largest finite value. This is the D3D rule for
    /// float-to-float conversion (§3.2.2).
    TowardZero,
    /// Round toward +infinity.
    TowardPositive,
    /// Round toward -infinity.
    TowardNegative,
}

impl Rounding {
    /// Every mode, in the order the output lists them.
    pub const ALL: [Rounding; 4] = [
        Rounding::NearestEven,
        Rounding::TowardZero,
        Rounding::TowardPositive,
        Rounding::TowardNegative,
    ];

    /// The short name used on the command line and in script output.
    pub fn as_str(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// The names taken for each mode (the aliases come after, see [`Choice`]).
    pub const NAMES: [&'static str; 4] = ["rne", "rtz", "rtp", "rtn"];

    /// Whether the magnitude goes up one unit, given the sign, the kept significand's parity
    /// and what was discarded.
    pub(crate) fn rounds_up(self, neg: bool, odd: bool, residue: Residue) -> bool {
        if !residue.nonzero {
            return false;
        }
        match self {
            Rounding::NearestEven => match residue.vs_half {
                Ordering::Greater => true,
                Ordering::Equal => odd,
                Ordering::Less => false,
            },
            Rounding::TowardZero => false,
            Rounding::TowardPositive => !neg,
            Rounding::TowardNegative => neg,
        }
    }

    /// Whether an overflow in this direction ends at infinity (otherwise at max finite).
    fn overflows_to_infinity(self, neg: bool) -> bool {
        match self {
            Rounding::NearestEven => true,
            Rounding::TowardZero => false,
            Rounding::TowardPositive => !neg,
            Rounding::TowardNegative => neg,
        }
    }
}

/// `rtz` is also taken as `d3d`: D3D's float-to-float conversion rule (§3.2.2).
impl Choice for Rounding {
    const WHAT: &'static str = "rounding";
    const ALL: &'static [Rounding] = &Rounding::ALL;

    fn name(self) -> &'static str {
        self.as_str()
    }

    fn aliases(self) -> &'static [&'static str] {
        match self {
            Rounding::TowardZero => &["d3d"],
            _ => &[],
        }
    }

    fn summary(self) -> &'static str {
        match self {
            Rounding::NearestEven => {
                "Round to nearest, ties to even; overflow to infinity (IEEE default)"
            }
            Rounding::TowardZero => {
                "Round toward zero; overflow to the largest finite value (D3D conversion rule, 3.2.2)"
            }
            Rounding::TowardPositive => "Round toward +infinity",
            Rounding::TowardNegative => "Round toward -infinity",
        }
    }
}

impl std::str::FromStr for Rounding {
    type Err = UnknownChoice;
    fn from_str(s: &str) -> Result<Rounding, UnknownChoice> {
        parse_choice(s)
    }
}

impl std::fmt::Display for Rounding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a rounding treats values beyond the largest finite one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoundOptions {
    /// The rounding mode.
    pub mode: Rounding,
    /// Finite inputs never become infinity: overflow gives the largest finite value in
    /// every mode (what DirectXMath and Mesa do when packing R11G11B10).
    pub saturate: bool,
}

impl RoundOptions {
    /// The options of a mode, without saturation.
    pub const fn new(mode: Rounding) -> RoundOptions {
        RoundOptions {
            mode,
            saturate: false,
        }
    }
}

/// What happened to a value on its way into a format.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// The result equals the input exactly (NaN to NaN counts as exact).
    pub exact: bool,
    /// A finite input beyond the finite range gave infinity.
    pub overflow_to_infinity: bool,
    /// A finite input beyond the finite range gave the largest finite value.
    pub saturated: bool,
    /// A negative input was clamped to zero because the format has no sign (§3.1.6).
    pub clamped_negative: bool,
    /// The input was NaN.
    pub nan: bool,
    /// The result is a subnormal.
    pub subnormal: bool,
    /// A non-zero input rounded to zero.
    pub underflow_to_zero: bool,
}

/// A rounded pattern and what the rounding did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rounded {
    /// The rounded pattern.
    pub bits: u64,
    /// What the rounding did.
    pub outcome: Outcome,
}

/// Round an exact number into `fmt`.
pub fn round_number(fmt: &FloatFormat, x: &Number, opts: RoundOptions) -> Rounded {
    match x {
        Number::Nan { neg, payload } => nan_result(fmt, *neg, *payload),
        Number::Infinity { neg } => special_infinity(fmt, *neg),
        Number::Finite { neg, mag } => {
            if *neg && !fmt.signed {
                return clamped_negative(mag.is_zero());
            }
            if mag.is_zero() {
                return exact_zero(fmt, *neg);
            }
            let e = (mag.floor_log2().max(fmt.emin() as i64)).min(fmt.emax() as i64 + 1);
            let shift = fmt.frac_bits as i64 - e;
            let (q, residue) = mag.scaled_floor(shift);
            // Above the format's range the significand does not fit; the overflow rule
            // decides the result, whatever the low bits were.
            let q = q.to_u64().unwrap_or(u64::MAX);
            finish(fmt, *neg, q, e as i32, residue, opts)
        }
    }
}

/// Round an `f64` into `fmt` (narrower than f64, or f64 itself as the identity).
pub fn round_f64(fmt: &FloatFormat, x: f64, opts: RoundOptions) -> Rounded {
    let bits = x.to_bits();
    let neg = bits >> 63 != 0;
    if x.is_nan() {
        return nan_result(fmt, neg, (bits & ((1 << 52) - 1)) << 12);
    }
    if x.is_infinite() {
        return special_infinity(fmt, neg);
    }
    if neg && !fmt.signed {
        return clamped_negative(x == 0.0);
    }
    if x == 0.0 {
        return exact_zero(fmt, neg);
    }
    if fmt.width() == 64 {
        let mut outcome = Outcome {
            exact: true,
            ..Outcome::default()
        };
        outcome.subnormal = x.is_subnormal();
        return Rounded { bits, outcome };
    }
    // magnitude = m * 2^(e2 - 52), with m normalised to 53 bits even for f64 subnormals.
    let raw_exp = ((bits >> 52) & 0x7ff) as i32;
    let raw_frac = bits & ((1 << 52) - 1);
    let (m, e2) = if raw_exp == 0 {
        let lz = raw_frac.leading_zeros() as i32 - 11;
        (raw_frac << lz, -1022 - lz)
    } else {
        (raw_frac | (1 << 52), raw_exp - 1023)
    };
    let e = e2.max(fmt.emin()).min(fmt.emax() + 1);
    // Bits of m below the target's last place.
    let drop = (52 - fmt.frac_bits as i32 + (e - e2)) as u32;
    let (q, residue) = if drop == 0 {
        (m, Residue::EXACT)
    } else if drop > 54 {
        // Everything is below half a unit of the last place: m < 2^53 <= 2^(drop - 2).
        (
            0,
            Residue {
                vs_half: Ordering::Less,
                nonzero: true,
            },
        )
    } else {
        let rem = m & ((1u64 << drop) - 1);
        let half = 1u64 << (drop - 1);
        (
            m >> drop,
            Residue {
                vs_half: rem.cmp(&half),
                nonzero: rem != 0,
            },
        )
    };
    finish(fmt, neg, q, e, residue, opts)
}

/// The shared back end: `q` is the significand (hidden bit included when normal) at
/// exponent `e` (clamped to `emin` for subnormals), `residue` what lies below it.
fn finish(
    fmt: &FloatFormat,
    neg: bool,
    mut q: u64,
    mut e: i32,
    residue: Residue,
    opts: RoundOptions,
) -> Rounded {
    let p = fmt.precision();
    if e <= fmt.emax() && opts.mode.rounds_up(neg, q & 1 == 1, residue) {
        q += 1;
        if q == 1 << p {
            q >>= 1;
            e += 1;
        }
    }
    if e > fmt.emax() {
        let to_inf = opts.mode.overflows_to_infinity(neg) && !opts.saturate;
        let bits = if to_inf {
            fmt.infinity(neg)
        } else {
            fmt.max_finite() | fmt.assemble(neg, 0, 0)
        };
        let outcome = Outcome {
            overflow_to_infinity: to_inf,
            saturated: !to_inf,
            ..Outcome::default()
        };
        return Rounded { bits, outcome };
    }
    let normal = q >> fmt.frac_bits != 0;
    let exponent = if normal { (e + fmt.bias) as u32 } else { 0 };
    let bits = fmt.assemble(neg, exponent, q);
    Rounded {
        bits,
        outcome: Outcome {
            exact: !residue.nonzero,
            subnormal: !normal && q != 0,
            underflow_to_zero: q == 0,
            ..Outcome::default()
        },
    }
}

fn nan_result(fmt: &FloatFormat, neg: bool, payload: u64) -> Rounded {
    // Keep the top payload bits and set the top fraction bit, so the result is a NaN (and a
    // quiet one), as F16C and the `half` crate do. The sign is kept where there is one.
    let fraction = (payload >> (64 - fmt.frac_bits)) | (1 << (fmt.frac_bits - 1));
    Rounded {
        bits: fmt.assemble(neg && fmt.signed, fmt.max_exp_field(), fraction),
        outcome: Outcome {
            exact: true,
            nan: true,
            ..Outcome::default()
        },
    }
}

fn special_infinity(fmt: &FloatFormat, neg: bool) -> Rounded {
    // §3.2.2: INF stays INF where the format has it; the sign where it has one.
    if neg && !fmt.signed {
        return clamped_negative(false);
    }
    Rounded {
        bits: fmt.infinity(neg),
        outcome: Outcome {
            exact: true,
            ..Outcome::default()
        },
    }
}

fn clamped_negative(was_zero: bool) -> Rounded {
    Rounded {
        bits: 0,
        outcome: Outcome {
            exact: was_zero,
            clamped_negative: !was_zero,
            ..Outcome::default()
        },
    }
}

fn exact_zero(fmt: &FloatFormat, neg: bool) -> Rounded {
    Rounded {
        bits: fmt.assemble(neg, 0, 0),
        outcome: Outcome {
            exact: true,
            ..Outcome::default()
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::Ratio;
    use crate::format::descriptor::{F10, F11, F16, F32};

    fn rnd(fmt: &FloatFormat, x: f64, mode: Rounding) -> u64 {
        let exact = round_number(
            fmt,
            &Number::finite(x < 0.0, ratio_of(x.abs())),
            RoundOptions::new(mode),
        );
        let fast = round_f64(fmt, x, RoundOptions::new(mode));
        assert_eq!(exact, fast, "{x} in {}", fmt.name);
        exact.bits
    }

    fn ratio_of(x: f64) -> Ratio {
        let (m, e) = crate::format::descriptor::F64.significand(x.to_bits());
        Ratio::dyadic(m, e as i64)
    }

    #[test]
    fn halfway_ties_go_to_even() {
        // 1 + 2^-11 lies halfway between 1 and 1 + 2^-10 in f16.
        assert_eq!(
            rnd(&F16, 1.0 + 2f64.powi(-11), Rounding::NearestEven),
            0x3c00
        );
        assert_eq!(
            rnd(&F16, 1.0 + 3.0 * 2f64.powi(-11), Rounding::NearestEven),
            0x3c02
        );
        assert_eq!(
            rnd(&F16, 1.0 + 2f64.powi(-11), Rounding::TowardPositive),
            0x3c01
        );
    }

    #[test]
    fn overflow_follows_the_mode() {
        assert_eq!(rnd(&F16, 65520.0, Rounding::NearestEven), 0x7c00);
        assert_eq!(rnd(&F16, 65519.99, Rounding::NearestEven), 0x7bff);
        assert_eq!(rnd(&F16, 1e10, Rounding::TowardZero), 0x7bff);
        assert_eq!(rnd(&F16, -1e10, Rounding::TowardPositive), 0xfbff);
        assert_eq!(rnd(&F16, -1e10, Rounding::TowardNegative), 0xfc00);
        assert_eq!(rnd(&F11, 1e10, Rounding::TowardZero), 0x7bf);
        assert_eq!(rnd(&F10, 1e10, Rounding::NearestEven), 0x3e0);
    }

    #[test]
    fn subnormals_and_underflow() {
        assert_eq!(rnd(&F16, 2f64.powi(-25), Rounding::NearestEven), 0);
        assert_eq!(rnd(&F16, 2f64.powi(-25) * 1.5, Rounding::NearestEven), 1);
        assert_eq!(rnd(&F16, -2f64.powi(-30), Rounding::TowardNegative), 0x8001);
        assert_eq!(rnd(&F16, -2f64.powi(-30), Rounding::TowardZero), 0x8000);
        assert_eq!(rnd(&F32, 1e-300, Rounding::TowardPositive), 1);
    }

    #[test]
    fn unsigned_formats_clamp_negatives() {
        let r = round_f64(&F11, -1.0, RoundOptions::new(Rounding::NearestEven));
        assert_eq!(r.bits, 0);
        assert!(r.outcome.clamped_negative);
        let r = round_f64(
            &F11,
            f64::NEG_INFINITY,
            RoundOptions::new(Rounding::TowardZero),
        );
        assert_eq!(r.bits, 0);
    }

    #[test]
    fn saturate_keeps_finite_values_finite() {
        let opts = RoundOptions {
            mode: Rounding::NearestEven,
            saturate: true,
        };
        assert_eq!(round_f64(&F11, 1e9, opts).bits, 0x7bf);
        assert_eq!(round_f64(&F11, f64::INFINITY, opts).bits, 0x7c0);
    }

    #[test]
    fn nan_payload_keeps_top_bits() {
        let r = round_f64(
            &F16,
            f64::from_bits(0x7ff0_0000_0000_0001),
            RoundOptions::new(Rounding::TowardZero),
        );
        assert_eq!(r.bits, 0x7e00);
        let r = round_f64(
            &F16,
            f64::from_bits(0xfff4_0000_0000_0000),
            RoundOptions::new(Rounding::NearestEven),
        );
        assert_eq!(r.bits, 0xff00);
    }
}
