#![warn(missing_docs)]
//! d3dfloat: the command line over the d3dfloat libraries.
//!
//! The workspace has three crates:
//!
//! - `d3dfloat-core` (`crates/core`): formats, exact arithmetic, the D3D rules engine, the
//!   judge of whole buffers, the conversion kernels and containers. No command line, no
//!   Vulkan, no plotting; the Python package is built on it alone. Its modules are
//!   re-exported here under the same names ([`format`](mod@format), [`d3d`], [`judge`], ...).
//! - `d3dfloat-probe` (`crates/probe`): the instructions run on a Vulkan device, directly or
//!   through the DXBC translators, and judged by the core ([`probe`]).
//! - `d3dfloat` (this package): [`cli`] (the clap definition, the only place flag spellings
//!   are parsed), [`commands`] (one module per subcommand), [`render`] (one renderer per
//!   output style, the HTML report), [`docs`] (completions and man pages) and [`app`] (the
//!   run, the colour decision and exit codes); `main.rs` calls [`app::main_entry`].

pub use d3dfloat_core::{
    convert, d3d, exact, format, input, io, judge, output_file, path_text, program, threads, ulp,
};
pub use d3dfloat_probe as probe;

pub mod app;
pub mod cli;
pub mod commands;
pub mod docs;
pub mod render;
