//! Names and arrays as Python hands them over, checked once at the border: a format, a
//! rounding mode, a rule set; float arrays and bit-pattern arrays read as slices.
//!
//! Every refusal is a `TypeError` (a wrong type or dtype) or a `ValueError` (a wrong name,
//! shape, length or value) with one line that says what was expected.

use std::borrow::Cow;

use d3dfloat::d3d::RuleSet;
use d3dfloat::format::{F64, FloatFormat, Format, RoundOptions, Rounding};
use numpy::{
    Element, PyArrayDescrMethods, PyArrayDyn, PyArrayMethods, PyReadonlyArrayDyn, PyUntypedArray,
    PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

/// A format by any name the command line takes (`f16`, `half`, `DXGI_FORMAT_R11G11B10_FLOAT`).
pub fn format(name: &str) -> PyResult<Format> {
    name.parse::<Format>()
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// A float format (f64, f32, f16, f11, f10): the packed words are refused with `what` named.
pub fn float_format(name: &str, what: &str) -> PyResult<FloatFormat> {
    match format(name)? {
        Format::Float(f) => Ok(f),
        packed => Err(PyValueError::new_err(format!(
            "{what} takes a float format (f64, f32, f16, f11, f10), not {}; \
             use pack/unpack for the packed words",
            packed.name()
        ))),
    }
}

/// A packed format (r11g11b10, rgb9e5).
pub fn packed_format(name: &str, what: &str) -> PyResult<Format> {
    match format(name)? {
        f @ (Format::R11G11B10 | Format::Rgb9e5) => Ok(f),
        Format::Float(f) => Err(PyValueError::new_err(format!(
            "{what} takes a packed format (r11g11b10, rgb9e5), not {}; \
             use encode/decode for the float formats",
            f.name
        ))),
    }
}

/// `rounding=` and `saturate=` as the command line's `--rounding` and `--saturate`
/// (`d3d` is `rtz`, D3D's float-to-float conversion rule, §3.2.2).
pub fn round_options(rounding: &str, saturate: bool) -> PyResult<RoundOptions> {
    let mode = match rounding.trim().to_ascii_lowercase().as_str() {
        "rne" => Rounding::NearestEven,
        "rtz" | "d3d" => Rounding::TowardZero,
        "rtp" => Rounding::TowardPositive,
        "rtn" => Rounding::TowardNegative,
        _ => {
            return Err(PyValueError::new_err(format!(
                "unknown rounding '{rounding}' (expected one of rne, rtz, rtp, rtn, d3d)"
            )));
        }
    };
    Ok(RoundOptions { mode, saturate })
}

/// `rules=`: d3d11 or d3d10, as `op --rules`.
pub fn rules(name: &str) -> PyResult<RuleSet> {
    name.parse::<RuleSet>().map_err(PyValueError::new_err)
}

/// The dtype's name of an array, or the Python type's name of anything else.
pub fn type_name(obj: &Bound<'_, PyAny>) -> String {
    match obj.downcast::<PyUntypedArray>() {
        Ok(a) => a
            .dtype()
            .str()
            .map(|s| s.to_string())
            .unwrap_or_else(|_| "?".into()),
        Err(_) => obj
            .get_type()
            .name()
            .map(|s| s.to_string())
            .unwrap_or_else(|_| "?".into()),
    }
}

/// The numpy dtype name of `T` as messages spell it.
pub trait DtypeName {
    /// `uint16`, `float32`, ...
    const NAME: &'static str;
}

macro_rules! dtype_names {
    ($($t:ty => $n:literal),*) => {
        $(impl DtypeName for $t { const NAME: &'static str = $n; })*
    };
}
dtype_names!(u16 => "uint16", u32 => "uint32", u64 => "uint64", f32 => "float32", f64 => "float64");

/// An array of exactly element type `T`, or a `TypeError` naming what `what` takes.
pub fn array_of<'py, T: Element + DtypeName>(
    obj: &Bound<'py, PyAny>,
    what: &str,
) -> PyResult<PyReadonlyArrayDyn<'py, T>> {
    let obj = &native_order(obj)?;
    if obj.downcast::<PyUntypedArray>().is_err() {
        return Err(PyTypeError::new_err(format!(
            "{what} must be a numpy array of {}, not {}",
            T::NAME,
            type_name(obj)
        )));
    }
    match obj.downcast::<PyArrayDyn<T>>() {
        Ok(a) => Ok(a.readonly()),
        Err(_) => Err(PyTypeError::new_err(format!(
            "{what} must be a numpy array of {}, not {}",
            T::NAME,
            type_name(obj)
        ))),
    }
}

/// An array whose byte order is not the machine's (`>f4` here), copied into the machine's
/// order, the values' bits unchanged (a byte swap); anything else as it is. Every array
/// the package reads passes here first, and is then read by [`elements`]: together the
/// one place where an array's layout and byte order are dealt with, so that no function
/// reads bytes in an order the array does not mean.
pub fn native_order<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let Ok(a) = obj.downcast::<PyUntypedArray>() else {
        return Ok(obj.clone());
    };
    let dtype = a.dtype();
    if dtype.is_native_byteorder() != Some(false) {
        return Ok(obj.clone());
    }
    let native = dtype.call_method1("newbyteorder", ("=",))?;
    let kwargs = pyo3::types::PyDict::new(obj.py());
    kwargs.set_item("order", "C")?;
    obj.call_method("astype", (native,), Some(&kwargs))
}

/// The elements in C order, the array's logical order whatever its memory layout: the
/// array's own memory where it is C-contiguous (no copy), a copy in logical order
/// otherwise. (numpy's `as_slice` also lends a Fortran-ordered array's memory, which holds
/// the elements in another order: never used here.)
pub fn elements<'a, T: Element + Copy>(a: &'a PyReadonlyArrayDyn<'_, T>) -> Cow<'a, [T]> {
    if a.is_c_contiguous()
        && let Ok(s) = a.as_slice()
    {
        return Cow::Borrowed(s);
    }
    Cow::Owned(a.as_array().iter().copied().collect())
}

/// Float values for the encoders: float32 or float64 arrays.
pub enum FloatArray<'py> {
    /// float32 values.
    F32(PyReadonlyArrayDyn<'py, f32>),
    /// float64 values.
    F64(PyReadonlyArrayDyn<'py, f64>),
}

impl<'py> FloatArray<'py> {
    /// A float32 or float64 array; anything else is a `TypeError`.
    pub fn extract(obj: &Bound<'py, PyAny>, what: &str) -> PyResult<FloatArray<'py>> {
        let obj = &native_order(obj)?;
        if let Ok(a) = obj.downcast::<PyArrayDyn<f32>>() {
            return Ok(FloatArray::F32(a.readonly()));
        }
        if let Ok(a) = obj.downcast::<PyArrayDyn<f64>>() {
            return Ok(FloatArray::F64(a.readonly()));
        }
        Err(PyTypeError::new_err(format!(
            "{what} must be a numpy array of float32 or float64 values, not {}",
            type_name(obj)
        )))
    }

    /// The array's shape.
    pub fn shape(&self) -> Vec<usize> {
        match self {
            FloatArray::F32(a) => a.shape().to_vec(),
            FloatArray::F64(a) => a.shape().to_vec(),
        }
    }

    /// The source format of the conversion (f32 or f64) and the values in C order,
    /// borrowed where the array is C-contiguous ([`elements`]).
    pub fn bytes(&self) -> (Format, Values<'_>) {
        match self {
            FloatArray::F32(a) => (
                Format::Float(d3dfloat::format::F32),
                Values::F32(elements(a)),
            ),
            FloatArray::F64(a) => (Format::Float(F64), Values::F64(elements(a))),
        }
    }
}

/// Float values in C order, read as the bytes the bulk kernels take.
pub enum Values<'a> {
    /// float32 values.
    F32(Cow<'a, [f32]>),
    /// float64 values.
    F64(Cow<'a, [f64]>),
}

impl std::ops::Deref for Values<'_> {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Values::F32(v) => bytemuck::cast_slice(v),
            Values::F64(v) => bytemuck::cast_slice(v),
        }
    }
}

/// Refuses patterns with bits set above the format's width (an f11 or f10 in a uint16):
/// they name no pattern, and truncating them would answer for another one.
pub fn check_width<T: Copy + Into<u64> + Sync>(
    bits: &[T],
    width: u32,
    fmt: &str,
    what: &str,
) -> PyResult<()> {
    if width >= 8 * std::mem::size_of::<T>() as u32 {
        return Ok(());
    }
    let mask = (1u64 << width) - 1;
    match bits.iter().position(|&b| b.into() & !mask != 0) {
        None => Ok(()),
        Some(i) => Err(PyValueError::new_err(format!(
            "{what}: element {i} is {:#x}, wider than {fmt}'s {width} bits",
            bits[i].into()
        ))),
    }
}
