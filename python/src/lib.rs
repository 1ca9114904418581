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
//! - [`verdicts`]: check, allowed (the judge over slices, the exact engine).

mod args;
mod codec;
mod images;
mod inspect;
mod layout;
mod verdicts;

use pyo3::prelude::*;

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
    m.add("CLASSES", inspect::class_names())?;
    m.add(
        "DEFAULT_MAX_PIXELS",
        d3dfloat_core::convert::image_in::DEFAULT_MAX_PIXELS,
    )?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
