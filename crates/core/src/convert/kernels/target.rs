//! What the kernels convert into, as types: the rounding mode ([`Mode`]) and the small
//! float targets ([`Small`]: f16, f11, f10), each a zero-sized type whose constants come
//! from the format's descriptor (`format::descriptor`), so that a pass is compiled once
//! per mode and target with every choice between them made at compile time.

use crate::format::{F10, F11, F16, FloatFormat, FormatType, Rounding};

/// A rounding mode as a type: its [`Rounding`] is matched exhaustively where a lane's
/// rounding differs.
pub trait Mode: Copy + 'static {
    /// The mode.
    const ROUNDING: Rounding;
}

/// Round to nearest, ties to even.
#[derive(Clone, Copy)]
pub struct Rne;
/// Round toward zero (the D3D conversion rule, §3.2.2).
#[derive(Clone, Copy)]
pub struct Rtz;
/// Round toward +INF.
#[derive(Clone, Copy)]
pub struct Rtp;
/// Round toward -INF.
#[derive(Clone, Copy)]
pub struct Rtn;

impl Mode for Rne {
    const ROUNDING: Rounding = Rounding::NearestEven;
}
impl Mode for Rtz {
    const ROUNDING: Rounding = Rounding::TowardZero;
}
impl Mode for Rtp {
    const ROUNDING: Rounding = Rounding::TowardPositive;
}
impl Mode for Rtn {
    const ROUNDING: Rounding = Rounding::TowardNegative;
}

/// Whether a mode rounds to nearest (the one with a tie rule).
pub const fn is_nearest(m: Rounding) -> bool {
    matches!(m, Rounding::NearestEven)
}

/// Whether a finite value past the target's range goes to INF in mode `m` (else to the
/// largest finite value), given its sign and without --saturate.
pub const fn overflows_to_infinity(m: Rounding, negative: bool) -> bool {
    match m {
        Rounding::NearestEven => true,
        Rounding::TowardZero => false,
        Rounding::TowardPositive => !negative,
        Rounding::TowardNegative => negative,
    }
}

/// Calls `$body` with `$m` bound to the [`Mode`] type of `$opts.mode` and `$s` to
/// `$opts.saturate` as a constant, so each combination gets its own branch-free loop.
macro_rules! with_mode {
    ($opts:expr, |$m:ident, $s:ident| $body:expr) => {{
        use $crate::convert::kernels::target::{Rne, Rtn, Rtp, Rtz};
        use $crate::format::Rounding;
        match ($opts.mode, $opts.saturate) {
            (Rounding::NearestEven, false) => {
                type $m = Rne;
                const $s: bool = false;
                $body
            }
            (Rounding::NearestEven, true) => {
                type $m = Rne;
                const $s: bool = true;
                $body
            }
            (Rounding::TowardZero, false) => {
                type $m = Rtz;
                const $s: bool = false;
                $body
            }
            (Rounding::TowardZero, true) => {
                type $m = Rtz;
                const $s: bool = true;
                $body
            }
            (Rounding::TowardPositive, false) => {
                type $m = Rtp;
                const $s: bool = false;
                $body
            }
            (Rounding::TowardPositive, true) => {
                type $m = Rtp;
                const $s: bool = true;
                $body
            }
            (Rounding::TowardNegative, false) => {
                type $m = Rtn;
                const $s: bool = false;
                $body
            }
            (Rounding::TowardNegative, true) => {
                type $m = Rtn;
                const $s: bool = true;
                $body
            }
        }
    }};
}
pub(crate) use with_mode;

/// A small float target of the f32 narrowing passes: five exponent bits with bias 15
/// (f16, f11 and f10 share them, §3.1.5 and §3.1.6), `FRAC` fraction bits, a sign bit or
/// none (f11 and f10 have none, so negatives become 0, §3.1.6). Its constants are derived
/// from its descriptor, [`FormatType::FORMAT`].
pub trait Small: FormatType {
    /// The largest finite value as an f32 pattern: the format's largest exponent and
    /// every fraction bit, placed in f32's fields.
    const MAX_F32: u32 =
        ((((Self::FORMAT.max_exp_field() - 1) as i32 - Self::FORMAT.bias + 127) as u32) << 23)
            | (((1 << Self::FRAC) - 1) << (23 - Self::FRAC));
    /// The smallest normal value as an f32 pattern.
    const MIN_NORMAL_F32: u32 = ((1 - Self::FORMAT.bias + 127) as u32) << 23;
}

/// The f16 target (sign, 5 exponent bits, 10 fraction bits).
#[derive(Clone, Copy)]
pub struct ToF16;
/// The f11 target (5 exponent bits, 6 fraction bits, no sign).
#[derive(Clone, Copy)]
pub struct ToF11;
/// The f10 target (5 exponent bits, 5 fraction bits, no sign).
#[derive(Clone, Copy)]
pub struct ToF10;

impl FormatType for ToF16 {
    const FORMAT: FloatFormat = F16;
}
impl Small for ToF16 {}
impl FormatType for ToF11 {
    const FORMAT: FloatFormat = F11;
}
impl Small for ToF11 {}
impl FormatType for ToF10 {
    const FORMAT: FloatFormat = F10;
}
impl Small for ToF10 {}

/// Which [`Small`] target a float format is, if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SmallTarget {
    F16,
    F11,
    F10,
}

impl SmallTarget {
    /// The target for `f`, or `None` for f32 and f64.
    pub fn of(f: FloatFormat) -> Option<SmallTarget> {
        [
            (F16, SmallTarget::F16),
            (F11, SmallTarget::F11),
            (F10, SmallTarget::F10),
        ]
        .into_iter()
        .find(|(g, _)| *g == f)
        .map(|(_, t)| t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{F32, RoundOptions, Rounding, round_f64};

    /// The f32 pattern of a pattern of `f`, through the exact core.
    fn as_f32(f: FloatFormat, bits: u64) -> u32 {
        round_f64(
            &F32,
            f.to_f64(bits),
            RoundOptions::new(Rounding::NearestEven),
        )
        .bits as u32
    }

    fn holds<T: Small>(target: SmallTarget) {
        let f = T::FORMAT;
        assert_eq!(T::MAX_F32, as_f32(f, f.max_finite()), "{} max", f.name);
        assert_eq!(
            T::MIN_NORMAL_F32,
            as_f32(f, f.min_normal()),
            "{} min",
            f.name
        );
        assert_eq!((f.exp_bits, f.bias), (5, 15), "{} exponent", f.name);
        assert_eq!(SmallTarget::of(f), Some(target), "{}", f.name);
    }

    #[test]
    fn target_constants_are_the_descriptors_values() {
        holds::<ToF16>(SmallTarget::F16);
        holds::<ToF11>(SmallTarget::F11);
        holds::<ToF10>(SmallTarget::F10);
        assert_eq!(ToF11::MAX_F32, 0x477e_0000);
        assert_eq!(ToF10::MAX_F32, 0x477c_0000);
        assert_eq!(SmallTarget::of(F32), None);
    }

    #[test]
    fn modes_are_their_roundings() {
        assert_eq!(
            [Rne::ROUNDING, Rtz::ROUNDING, Rtp::ROUNDING, Rtn::ROUNDING],
            Rounding::ALL
        );
    }
}
