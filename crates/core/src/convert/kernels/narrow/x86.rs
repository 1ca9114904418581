//! The `std::arch` passes of the narrowing targets: `float`, the f11/f10 and R11G11B10
//! full passes in float arithmetic (AVX2, and AVX-512 where built), and `f16c`, the
//! f16 short and full passes with F16C.

pub(super) mod f16c;
pub(super) mod float;
