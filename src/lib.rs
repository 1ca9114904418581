//! d3dfloat: Direct3D floating-point formats and arithmetic rules, exactly.
//!
//! The library core knows nothing of terminals: [`format`] decodes and rounds every storage
//! format, [`exact`] is the rational arithmetic it leans on, [`input`] turns text into exact
//! values and bit patterns. The binary's `cli` and `render` modules sit on top.

pub mod exact;
pub mod format;
pub mod input;
pub mod ulp;
