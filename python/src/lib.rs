//! `d3dfloat._native`: the Python binding of the d3dfloat library, a thin layer over it.
//!
//! Arrays come in as numpy arrays, are read in place where they are C-contiguous (any
//! other layout or byte order in blocks gathered in C order), go through the library's
//! own functions with the interpreter released (the bulk kernels and the judge use every
//! core), and come back as new arrays made from the library's output without a copy. No rounding or rule is written here: every answer is the
//! library's, so it is the command line's.
//!
//! - [`args`]: names (format, rounding, rules) and arrays, checked at the border;
//! - [`layout`]: any array's memory read in C order, in blocks where it is not
//!   C-contiguous;
//! - [`codec`]: encode, decode, pack, unpack (the bulk conversion kernels);
//! - [`inspect`]: ulp_distance, classify (the value line and the format descriptor);
//! - [`images`]: read_image, write_dds (the `convert` containers);
//! - [`verdicts`]: check, allowed (the judge over slices, the exact engine);
//! - [`programs`]: check_program, program_interval (whole shader expressions and
//!   instruction sequences, `op --asm` / `op --expr`).

mod args;
mod codec;
mod images;
mod inspect;
mod layout;
mod programs;
mod verdicts;

use d3dfloat_core::convert::exr_out::ExrCompression;
use d3dfloat_core::d3d::RuleSet;
use d3dfloat_core::format::bc6h::Quality;
use d3dfloat_core::format::{Choice, Rounding};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The extension module; `d3dfloat/__init__.py` re-exports it with its docstrings.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // The interpreter handles its signals (Ctrl-C is KeyboardInterrupt): the library's
    // handler, which removes temporary outputs and exits, is for the command line only.
    d3dfloat_core::output_file::interrupts::leave_to_host();
    m.add_function(wrap_pyfunction!(codec::encode, m)?)?;
    m.add_function(wrap_pyfunction!(codec::decode, m)?)?;
    m.add_function(wrap_pyfunction!(codec::pack, m)?)?;
    m.add_function(wrap_pyfunction!(codec::unpack, m)?)?;
    m.add_function(wrap_pyfunction!(inspect::ulp_distance, m)?)?;
    m.add_function(wrap_pyfunction!(inspect::classify, m)?)?;
    m.add_function(wrap_pyfunction!(images::read_image, m)?)?;
    m.add_function(wrap_pyfunction!(images::write_dds, m)?)?;
    m.add_function(wrap_pyfunction!(images::write_image, m)?)?;
    m.add_function(wrap_pyfunction!(verdicts::check, m)?)?;
    m.add_function(wrap_pyfunction!(verdicts::allowed, m)?)?;
    m.add_function(wrap_pyfunction!(programs::check_program, m)?)?;
    m.add_function(wrap_pyfunction!(programs::program_interval, m)?)?;
    m.add("DEFAULT_LIMIT", programs::DEFAULT_LIMIT)?;
    m.add("CLASSES", inspect::class_names())?;
    // The user-facing enums' names and defaults as the core defines them, for the
    // wrappers' signatures (`__init__.py`) and the stub's test: written once, in Rust.
    let names = PyDict::new(m.py());
    let defaults = PyDict::new(m.py());
    add_choice::<Rounding>(&names, &defaults, "rounding")?;
    add_choice::<RuleSet>(&names, &defaults, "rules")?;
    add_choice::<ExrCompression>(&names, &defaults, "compression")?;
    add_choice::<Quality>(&names, &defaults, "quality")?;
    m.add("CHOICES", names)?;
    m.add("DEFAULTS", defaults)?;
    m.add(
        "DEFAULT_MAX_PIXELS",
        d3dfloat_core::convert::image_in::DEFAULT_MAX_PIXELS,
    )?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}

/// `T`'s accepted names (aliases after the names) under `key` in `names`, its default's
/// name under `key` in `defaults`.
fn add_choice<T: Choice + Default + Copy + 'static>(
    names: &Bound<'_, PyDict>,
    defaults: &Bound<'_, PyDict>,
    key: &str,
) -> PyResult<()> {
    let mut all: Vec<&str> = T::ALL.iter().map(|v| v.name()).collect();
    all.extend(T::ALL.iter().flat_map(|v| v.aliases().iter().copied()));
    names.set_item(key, all)?;
    defaults.set_item(key, T::default().name())
}
