//! encode, decode, pack and unpack: numpy arrays through the library's bulk conversion
//! (`convert::raw::convert_parallel`, the SIMD kernels on every core), so every element
//! gets exactly the bits `d3dfloat encode` and `d3dfloat convert` give it.

use d3dfloat_core::convert::{Conversion, Stats};
use d3dfloat_core::format::{F32, F64, Format, RoundOptions, Rounding};
use numpy::{Element, PyArray1, PyArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::args::{self, FloatArray, array_of, check_width};
use crate::layout::{Elem, Strided};

/// A conversion error (only a channel count can go wrong here) as a `ValueError`.
fn conversion(
    from: Format,
    to: Format,
    channels: usize,
    opts: RoundOptions,
) -> PyResult<Conversion> {
    Conversion::new(from, to, channels, opts).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// Runs `conv` over the elements of `src` (whole source groups, in C order) into a new
/// vector of `O`, with the interpreter released, on every core: in place where the array
/// is C-contiguous, else gathered block by block ([`Strided::convert`]).
fn convert_into<O: bytemuck::Pod + Send, T: Elem>(
    py: Python<'_>,
    conv: &Conversion,
    src: &Strided<'_, T>,
) -> (Vec<O>, Stats) {
    let out_bytes = conv.dst_len(src.len() * std::mem::size_of::<T>());
    let mut out: Vec<O> = vec![O::zeroed(); out_bytes / std::mem::size_of::<O>()];
    let stats = py.detach(|| src.convert(conv, bytemuck::cast_slice_mut(&mut out)));
    (out, stats)
}

/// [`convert_into`] of float32 or float64 values.
pub fn convert_values<O: bytemuck::Pod + Send>(
    py: Python<'_>,
    conv: &Conversion,
    values: &FloatArray<'_>,
) -> (Vec<O>, Stats) {
    match values {
        FloatArray::F32(a) => convert_into(py, conv, &a.strided()),
        FloatArray::F64(a) => convert_into(py, conv, &a.strided()),
    }
}

/// A new array of `shape` from `v`'s storage (no copy).
pub fn shaped<'py, T: Element>(
    py: Python<'py>,
    v: Vec<T>,
    shape: Vec<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    Ok(PyArray1::from_vec(py, v).reshape(shape)?.into_any())
}

/// The counts of a conversion as a dict (the fields of `convert --json`).
pub fn stats_dict<'py>(py: Python<'py>, s: &Stats) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("values", s.values)?;
    d.set_item("inexact", s.inexact)?;
    d.set_item("saturated", s.saturated)?;
    d.set_item("overflow_to_infinity", s.overflow_to_infinity)?;
    d.set_item("nan_in", s.nan_in)?;
    d.set_item("nan_out", s.nan_out)?;
    d.set_item("clamped_negative", s.clamped_negative)?;
    d.set_item("subnormal_out", s.subnormal_out)?;
    d.set_item("flushed_to_zero", s.flushed_to_zero)?;
    d.set_item("max_ulp_error", s.max_ulp_error)?;
    Ok(d)
}

/// The array, and with `counts` the pair (array, counts).
fn with_counts<'py>(
    py: Python<'py>,
    array: Bound<'py, PyAny>,
    stats: &Stats,
    counts: bool,
) -> PyResult<Bound<'py, PyAny>> {
    if counts {
        Ok((array, stats_dict(py, stats)?)
            .into_pyobject(py)?
            .into_any())
    } else {
        Ok(array)
    }
}

/// Converts float values into float format `to`, one output element per value.
fn encode_floats<'py>(
    py: Python<'py>,
    values: &FloatArray<'_>,
    to: Format,
    opts: RoundOptions,
) -> PyResult<(Bound<'py, PyAny>, Stats)> {
    let shape = values.shape();
    let conv = conversion(values.format(), to, 1, opts)?;
    Ok(match to.element_bytes() {
        2 => {
            let (v, s) = convert_values::<u16>(py, &conv, values);
            (shaped(py, v, shape)?, s)
        }
        4 => {
            let (v, s) = convert_values::<u32>(py, &conv, values);
            (shaped(py, v, shape)?, s)
        }
        _ => {
            let (v, s) = convert_values::<u64>(py, &conv, values);
            (shaped(py, v, shape)?, s)
        }
    })
}

/// Rounds float32 or float64 values into a float format's bit patterns.
#[pyfunction]
#[pyo3(signature = (values, fmt, rounding, saturate, counts))]
pub fn encode<'py>(
    py: Python<'py>,
    values: &Bound<'py, PyAny>,
    fmt: &str,
    rounding: &str,
    saturate: bool,
    counts: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let f = args::float_format(fmt, "encode")?;
    let opts = args::round_options(rounding, saturate)?;
    let values = FloatArray::extract(values, "encode's values")?;
    let (array, stats) = encode_floats(py, &values, Format::Float(f), opts)?;
    with_counts(py, array, &stats, counts)
}

/// The output float format of decode/unpack: float32 unless asked for float64.
fn value_format(dtype: Option<&str>, default_f64: bool) -> PyResult<Format> {
    match dtype {
        None if default_f64 => Ok(Format::Float(F64)),
        None => Ok(Format::Float(F32)),
        Some("float32" | "f4") if default_f64 => Err(PyValueError::new_err(
            "f64 values do not all fit float32: decode f64 patterns as float64",
        )),
        Some("float32" | "f4") => Ok(Format::Float(F32)),
        Some("float64" | "f8") => Ok(Format::Float(F64)),
        Some(other) => Err(PyValueError::new_err(format!(
            "dtype must be 'float32' or 'float64', not '{other}'"
        ))),
    }
}

/// Where the conversion kernels made a signalling NaN quiet, makes it signalling again.
///
/// The kernels quiet every NaN, as the core's conversions do (IEEE 754-2019 §6.2: an
/// operation never delivers a signalling NaN); decode and unpack instead answer which
/// value a pattern stands for, and a numpy array keeps whatever bits it is given, so the
/// pattern is kept: the same payload (widened as the kernels widen it, which keeps it
/// non-zero, so the result is still a NaN) with the quiet bit clear. Only the IEEE formats
/// (f16, f32, f64) mark signalling NaNs; `clear` takes the quiet bit off element `i`.
fn keep_signalling<T: Copy + Into<u64> + Sync>(
    from: Format,
    src: &[T],
    stats: &Stats,
    mut clear: impl FnMut(usize),
) {
    let Format::Float(f) = from else { return };
    if stats.nan_in == 0 {
        return;
    }
    for (i, &b) in src.iter().enumerate() {
        if f.is_quiet_nan(b.into()) == Some(false) {
            clear(i);
        }
    }
}

/// Bit patterns of `T` (uint16 for f16/f11/f10, uint32 for f32 and the packed words,
/// uint64 for f64), checked against the format's width and widened through `conv` into
/// float32 or float64 values, read in place where the array is C-contiguous and in blocks
/// otherwise. `extra` is a trailing axis of the output (the three channels of a packed
/// word).
fn widen_patterns<'py, T>(
    py: Python<'py>,
    bits: &Bound<'py, PyAny>,
    conv: &Conversion,
    (fmt, width): (&str, u32),
    what: &str,
    extra: Option<usize>,
) -> PyResult<Bound<'py, PyAny>>
where
    T: Element + Elem + args::DtypeName + Into<u64>,
{
    let a = array_of::<T>(bits, &format!("{what} ({fmt} patterns)"))?;
    let s = a.strided();
    check_width(&s, width, fmt, what)?;
    let mut shape = a.shape();
    shape.extend(extra);
    // The patterns again, where NaNs came in (rare): those that were signalling.
    let patterns = |stats: &Stats| (stats.nan_in > 0).then(|| s.elements());
    if conv.to == Format::Float(F64) {
        let (mut v, stats) = convert_into::<f64, T>(py, conv, &s);
        if let Some(e) = patterns(&stats) {
            keep_signalling(conv.from, &e, &stats, |i| {
                v[i] = f64::from_bits(v[i].to_bits() & !(1 << 51));
            });
        }
        shaped(py, v, shape)
    } else {
        let (mut v, stats) = convert_into::<f32, T>(py, conv, &s);
        if let Some(e) = patterns(&stats) {
            keep_signalling(conv.from, &e, &stats, |i| {
                v[i] = f32::from_bits(v[i].to_bits() & !(1 << 22));
            });
        }
        shaped(py, v, shape)
    }
}

/// Bit patterns of a float format back to values, exactly.
#[pyfunction]
#[pyo3(signature = (bits, fmt, dtype = None))]
pub fn decode<'py>(
    py: Python<'py>,
    bits: &Bound<'py, PyAny>,
    fmt: &str,
    dtype: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    let f = args::float_format(fmt, "decode")?;
    let to = value_format(dtype, f == F64)?;
    let conv = conversion(
        Format::Float(f),
        to,
        1,
        RoundOptions::new(Rounding::NearestEven),
    )?;
    let named = (f.name, f.width());
    match Format::Float(f).element_bytes() {
        2 => widen_patterns::<u16>(py, bits, &conv, named, "decode's bits", None),
        4 => widen_patterns::<u32>(py, bits, &conv, named, "decode's bits", None),
        _ => widen_patterns::<u64>(py, bits, &conv, named, "decode's bits", None),
    }
}

/// (..., 3) RGB values (or (..., 4) RGBA, alpha dropped) into packed words.
#[pyfunction]
#[pyo3(signature = (rgb, fmt, rounding, saturate, counts))]
pub fn pack<'py>(
    py: Python<'py>,
    rgb: &Bound<'py, PyAny>,
    fmt: &str,
    rounding: &str,
    saturate: bool,
    counts: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let to = args::packed_format(fmt, "pack")?;
    let opts = args::round_options(rounding, saturate)?;
    let values = FloatArray::extract(rgb, "pack's rgb")?;
    let mut shape = values.shape();
    let channels = match shape.last() {
        Some(&c @ (3 | 4)) => c,
        _ => {
            return Err(PyValueError::new_err(format!(
                "pack takes an array of shape (..., 3) (RGB) or (..., 4) (RGBA, alpha dropped), \
                 not {shape:?}"
            )));
        }
    };
    shape.pop();
    let conv = conversion(values.format(), to, channels, opts)?;
    let (words, stats) = convert_values::<u32>(py, &conv, &values);
    with_counts(py, shaped(py, words, shape)?, &stats, counts)
}

/// Packed words back to (..., 3) RGB values, exactly.
#[pyfunction]
#[pyo3(signature = (words, fmt, dtype = None))]
pub fn unpack<'py>(
    py: Python<'py>,
    words: &Bound<'py, PyAny>,
    fmt: &str,
    dtype: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    let from = args::packed_format(fmt, "unpack")?;
    let to = value_format(dtype, false)?;
    let conv = conversion(from, to, 3, RoundOptions::new(Rounding::NearestEven))?;
    let named = (from.name(), 32);
    widen_patterns::<u32>(py, words, &conv, named, "unpack's words", Some(3))
}
