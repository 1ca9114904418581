//! Names and arrays as Python hands them over, checked once at the border: a format, a
//! rounding mode, a rule set; float arrays and bit-pattern arrays read as slices.
//!
//! Every refusal is a `TypeError` (a wrong type or dtype) or a `ValueError` (a wrong name,
//! shape, length or value) with one line that says what was expected.

use d3dfloat_core::d3d::RuleSet;
use d3dfloat_core::format::{F32, F64, FloatFormat, Format, RoundOptions, Rounding};
use numpy::{
    Element, PyArrayDescrMethods, PyArrayDyn, PyArrayMethods, PyReadonlyArrayDyn, PyUntypedArray,
    PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

use crate::layout::{Elem, Strided};

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
    let mode = rounding
        .parse::<Rounding>()
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
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

/// An array the package reads: numpy's array of `T`, and whether its bytes are in the
/// other order (a `>f4` array on this machine, read through a view as `<f4`).
pub struct ArrayIn<'py, T: Element> {
    array: PyReadonlyArrayDyn<'py, T>,
    swapped: bool,
}

impl<'py, T: Element + Elem> ArrayIn<'py, T> {
    /// `obj` as an array of exactly `T` once its byte order is seen to ([`native_view`]).
    pub fn downcast((obj, swapped): &(Bound<'py, PyAny>, bool)) -> Option<ArrayIn<'py, T>> {
        let a = obj.downcast::<PyArrayDyn<T>>().ok()?;
        Some(ArrayIn {
            array: a.readonly(),
            swapped: *swapped,
        })
    }

    /// The array's shape.
    pub fn shape(&self) -> Vec<usize> {
        self.array.shape().to_vec()
    }

    /// The array's memory as numpy describes it, to be read in C order.
    pub fn strided(&self) -> Strided<'_, T> {
        let a = &self.array;
        // SAFETY: numpy's own data pointer, shape and byte strides of the array, which the
        // read-only borrow (`PyReadonlyArray`, held as long as `self`) keeps alive and
        // unwritten by Rust code; `Strided` reads them at any alignment.
        unsafe { Strided::new(a.data().cast::<u8>(), a.shape(), a.strides(), self.swapped) }
    }
}

/// An array of exactly element type `T`, or a `TypeError` naming what `what` takes.
pub fn array_of<'py, T: Element + Elem + DtypeName>(
    obj: &Bound<'py, PyAny>,
    what: &str,
) -> PyResult<ArrayIn<'py, T>> {
    let native = native_view(obj)?;
    ArrayIn::downcast(&native).ok_or_else(|| {
        PyTypeError::new_err(format!(
            "{what} must be a numpy array of {}, not {}",
            T::NAME,
            type_name(&native.0)
        ))
    })
}

/// An array whose byte order is not the machine's (`>f4` here) as a view of the same
/// memory in the machine's order (`<f4`: the values' bytes reversed), and `true`, which
/// says that every element read from it is to be byte-swapped (a swap keeps every bit);
/// anything else as it is, and `false`. Every array the package reads passes here first
/// and is then read through [`ArrayIn::strided`]: together the one place where an
/// array's layout and byte order are dealt with, so that no function reads bytes in an
/// order the array does not mean. The swap is made in the block copy
/// ([`crate::layout`]), not in a whole copy of the array.
pub fn native_view<'py>(obj: &Bound<'py, PyAny>) -> PyResult<(Bound<'py, PyAny>, bool)> {
    let Ok(a) = obj.downcast::<PyUntypedArray>() else {
        return Ok((obj.clone(), false));
    };
    let dtype = a.dtype();
    if dtype.is_native_byteorder() != Some(false) {
        return Ok((obj.clone(), false));
    }
    let native = dtype.call_method1("newbyteorder", ("=",))?;
    Ok((obj.call_method1("view", (native,))?, true))
}

/// Float values for the encoders: float32 or float64 arrays.
pub enum FloatArray<'py> {
    /// float32 values.
    F32(ArrayIn<'py, f32>),
    /// float64 values.
    F64(ArrayIn<'py, f64>),
}

impl<'py> FloatArray<'py> {
    /// A float32 or float64 array; anything else is a `TypeError`.
    pub fn extract(obj: &Bound<'py, PyAny>, what: &str) -> PyResult<FloatArray<'py>> {
        let native = native_view(obj)?;
        if let Some(a) = ArrayIn::downcast(&native) {
            return Ok(FloatArray::F32(a));
        }
        if let Some(a) = ArrayIn::downcast(&native) {
            return Ok(FloatArray::F64(a));
        }
        Err(PyTypeError::new_err(format!(
            "{what} must be a numpy array of float32 or float64 values, not {}",
            type_name(&native.0)
        )))
    }

    /// The array's shape.
    pub fn shape(&self) -> Vec<usize> {
        match self {
            FloatArray::F32(a) => a.shape(),
            FloatArray::F64(a) => a.shape(),
        }
    }

    /// The source format of the conversion: f32 or f64.
    pub fn format(&self) -> Format {
        match self {
            FloatArray::F32(_) => Format::Float(F32),
            FloatArray::F64(_) => Format::Float(F64),
        }
    }
}

/// Refuses patterns with bits set above the format's width (an f11 or f10 in a uint16):
/// they name no pattern, and truncating them would answer for another one. Read in
/// blocks: no copy of the array is made.
pub fn check_width<T: Elem + Into<u64>>(
    bits: &Strided<'_, T>,
    width: u32,
    fmt: &str,
    what: &str,
) -> PyResult<()> {
    if width >= 8 * std::mem::size_of::<T>() as u32 {
        return Ok(());
    }
    let mask = (1u64 << width) - 1;
    match bits.position(|b| b.into() & !mask != 0) {
        None => Ok(()),
        Some((i, b)) => Err(PyValueError::new_err(format!(
            "{what}: element {i} is {:#x}, wider than {fmt}'s {width} bits",
            b.into()
        ))),
    }
}
