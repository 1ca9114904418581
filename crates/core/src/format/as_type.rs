//! A float format as a Rust type, for code generic over the format whose facts must be
//! compile-time constants: the bulk conversion kernels (`convert::kernels`, one copy of a
//! loop per target) and the judge's fast deciders (`judge::fast`, one per working format).
//! An implementor names its descriptor and nothing else; every constant here follows from
//! it, so a kernel and the descriptor cannot disagree about a format.

use super::descriptor::{Arithmetic, FloatFormat};

/// A float format whose patterns fit a `u32` (f32, f16, f11, f10), as a type. Each
/// constant is the descriptor's value, placed for a pattern in the low bits of a `u32`.
pub trait FormatType: Copy + 'static {
    /// The format's descriptor.
    const FORMAT: FloatFormat;
    /// Pattern width in bits.
    const BITS: u32 = Self::FORMAT.width();
    /// Fraction bits.
    const FRAC: u32 = Self::FORMAT.frac_bits;
    /// Whether the format has a sign bit (f11 and f10 have none, §3.1.6).
    const SIGNED: bool = Self::FORMAT.signed;
    /// The sign bit (0 without one).
    const SIGN: u32 = Self::FORMAT.sign_bit() as u32;
    /// Every bit but the sign.
    const MAG: u32 = Self::FORMAT.magnitude_mask() as u32;
    /// The exponent field, every bit set: the pattern of +infinity.
    const EXP: u32 = Self::FORMAT.exp_mask() as u32;
    /// The quiet bit (the top fraction bit); with [`FormatType::EXP`], the canonical NaN.
    const QUIET: u32 = Self::FORMAT.quiet_bit() as u32;
    /// The pattern of the largest finite value.
    const MAX_BITS: u32 = Self::FORMAT.max_finite() as u32;
    /// The largest finite value.
    const MAX: f64 = Self::FORMAT.max_finite_value();
    /// The smallest positive normal value.
    const MIN_NORMAL: f64 = Self::FORMAT.min_normal_value();
    /// Whether the 32-bit arithmetic rules hold (§3.1.3): denorms flushed on input and
    /// output (§3.1.3.2), sqrt within 1 ULP.
    const RULES_32: bool = matches!(Self::FORMAT.arithmetic, Arithmetic::Float32);
}
