//! Judging whole buffers: an instruction's operand slices and the results a device
//! returned, every element's verdict exact, at memory speed where a fast path can prove it.
//!
//! Each element goes first to its instruction's fast decider (`fast/`), which knows the
//! correctly rounded result and a part of the allowed set that it can prove with a few
//! machine operations (an exact product in `f64`, an error term, bit arithmetic). A result
//! inside that part conforms, at a known distance. Every other element, every violation
//! among them, goes to the exact engine ([`crate::d3d::evaluate`]) and is named there
//! (`class.rs`, the classes `probe` reports). So a fast decider can only ever be a shortcut
//! to the exact engine's answer; `tests/judge_slices.rs` holds the two to the same verdict
//! element by element.
//!
//! Layouts (little-endian words as a device writes them, one slice per source operand):
//! a float operand or result is its pattern in a `u16` (f16), `u32` (f32) or `u64` (f64);
//! an integer (`ftoi`'s result, `itof`'s operand) and a comparison mask a `u32`. A vector
//! operand (dp2-dp4) holds its components one after another; a result slice holds every
//! output of a line one after another (sincos: sine, then cosine).
//!
//! The files, top down: `instruction.rs` holds the [`Judge`] (an instruction ready to
//! judge slices) and its run over them, and uses all the others; `fast/` decides lines into a task's tally (`verdict.rs`), which counts them into a
//! [`Verdict`] and a map (`map.rs`) and names violations by their [`ViolationClass`]
//! (`class.rs`); `slices.rs` holds the slices they read. None of them knows the judge: what
//! they ask of it, it hands them as values or through a trait of theirs
//! ([`map::MappedOp`], the tally's `RunLines`).

mod class;
mod error;
mod fast;
pub mod findings;
mod instruction;
pub mod map;
mod run;
mod slices;
mod verdict;

pub use class::{ClassCount, ViolationClass, ViolationKind};
pub use error::JudgeError;
pub use findings::{
    DeviceInfo, Family, Findings, FloatControls, OpFindings, Source, Sweep, TranslatorInfo, Via,
};
pub use instruction::Judge;
pub use run::{Keep, Run};
pub use slices::{Buffer, Column, Elem};
pub use verdict::{Histogram, Line, Options, Verdict, Violation};
