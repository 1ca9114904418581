//! d3dfloat: Direct3D floating-point formats and arithmetic rules, exactly.
//!
//! The core knows nothing of terminals: [`format`] decodes and rounds every storage format,
//! [`exact`] is the rational arithmetic it leans on, [`input`] turns text into exact values
//! and bit patterns. On top: [`cli`] (the clap definition), [`commands`] (one module per
//! subcommand), [`render`] (one renderer per output style) and [`app`] (exit codes).

pub mod app;
pub mod cli;
pub mod commands;
pub mod convert;
pub mod d3d;
pub mod docs;
pub mod exact;
pub mod format;
pub mod input;
pub mod io;
pub mod probe;
pub mod render;
pub mod ulp;
