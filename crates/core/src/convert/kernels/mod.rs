//! Fast slice kernels: the same answers as the per-element core in [`super::element`]
//! (bit for bit, counts included; the tests compare them), computed on `u32` patterns with
//! integer and float operations instead of exact rationals.
//!
//! Every source other than f64 is first widened exactly to f32 patterns; the target side
//! then works from f32 patterns only. f64 sources go through the core itself. Every block
//! takes a vector pass whatever it holds: a *short pass* where its values lie in the
//! target's plain range (no NaN, INF, overflow, clamping, and for most targets no
//! subnormal result), a *full pass* (every lane, every count exact) otherwise; no lane
//! falls back to per-value code.
//!
//! - [`slice`](mod@slice): the entry, [`convert_slice`], choosing the passes of a format pair.
//! - [`simd`]: the CPU level ([`Simd`], [`Level`], `D3DFLOAT_SIMD`), the one place the
//!   CPU is asked, and the two macros that compile and choose the copies of a pass.
//! - `target`: rounding modes and the f16/f11/f10 targets as types.
//! - `lanes`: what the passes share (counts, output elements, the float-target loops).
//! - `widen`: every source to f32 (and the f32/f64 targets); `widen/x86` with F16C.
//! - `narrow`: f32 to f16, f11, f10 and R11G11B10; `narrow/full` the portable full pass,
//!   `narrow/x86/float` the f11/f10/R11G11B10 full passes in float arithmetic,
//!   `narrow/x86/f16c` the f16 short and full passes with F16C.
//! - `rgb9e5`: f32 to the shared-exponent format; `rgb9e5/x86` in float arithmetic.
//! - `x86`: the `std::arch` helpers the x86 passes share.

mod lanes;
mod narrow;
mod rgb9e5;
pub mod simd;
pub mod slice;
mod target;
mod widen;
#[cfg(target_arch = "x86_64")]
mod x86;

pub use simd::{Level, Simd};
pub use slice::{convert_slice, convert_slice_at};
