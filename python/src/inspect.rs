//! ulp_distance and classify: the library's value line (`ulp::Layout`, the `ulp-diff`
//! rules) and format descriptor applied element by element, on every core.

use std::borrow::Cow;

use d3dfloat_core::format::{Class, FloatFormat, Format};
use d3dfloat_core::judge::Column;
use d3dfloat_core::ulp::{DiffOptions, Layout};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rayon::prelude::*;

use crate::args::{self, ArrayIn, check_width, type_name};
use crate::codec::shaped;

/// Elements per parallel task.
const TASK: usize = 1 << 16;

/// Bit patterns of a format as u64, whatever array type holds them: the format's unsigned
/// type, or for f16, f32 and f64 the float type of the same width (its patterns, as
/// stored, NaN payloads included).
pub enum Patterns<'py> {
    /// uint16 or float16.
    U16(ArrayIn<'py, u16>),
    /// uint32 or float32.
    U32(ArrayIn<'py, u32>),
    /// uint64 or float64.
    U64(ArrayIn<'py, u64>),
}

impl<'py> Patterns<'py> {
    /// Reads `obj` as `fmt`'s patterns (`what` names it in errors).
    pub fn extract(obj: &Bound<'py, PyAny>, fmt: Format, what: &str) -> PyResult<Patterns<'py>> {
        let bytes = fmt.element_bytes();
        let floats = matches!(fmt, Format::Float(f) if f.width() == 8 * bytes as u32);
        let out = Patterns::read(obj, bytes, fmt.name(), floats, what)?;
        out.check_width(fmt, what)?;
        Ok(out)
    }

    /// Reads `obj` as `bytes`-wide patterns of `label` (a format or domain name): an
    /// unsigned array of that width, or a signed one, or with `floats` a float array of
    /// that width (viewed as its patterns, as stored, NaN payloads included).
    pub fn read(
        obj: &Bound<'py, PyAny>,
        bytes: usize,
        label: &str,
        floats: bool,
        what: &str,
    ) -> PyResult<Patterns<'py>> {
        let (wanted, float) = match bytes {
            2 => ("uint16", "float16"),
            4 => ("uint32", "float32"),
            _ => ("uint64", "float64"),
        };
        let refuse = || {
            let also = if floats {
                format!(" (or {float})")
            } else {
                String::new()
            };
            PyTypeError::new_err(format!(
                "{what} must be a numpy array of {label} patterns: {wanted}{also}, not {}",
                type_name(obj)
            ))
        };
        // Another byte order is read through a view in this machine's, its elements
        // byte-swapped as they are read (args::native_view), not misread.
        let (native, swapped) = args::native_view(obj)?;
        let obj = &native;
        let dtype = obj.getattr("dtype").map_err(|_| refuse())?;
        let kind: String = dtype.getattr("kind")?.extract()?;
        let itemsize: usize = dtype.getattr("itemsize")?.extract()?;
        // A float array of the width is its patterns, a signed integer array its two's
        // complement patterns (itof's i32 operands): view them as such.
        let obj = if itemsize == bytes && ((kind == "f" && floats) || kind == "i") {
            obj.call_method1("view", (wanted,)).map_err(|_| refuse())?
        } else {
            obj.clone()
        };
        let viewed = (obj, swapped);
        match bytes {
            2 => ArrayIn::downcast(&viewed).map(Patterns::U16),
            4 => ArrayIn::downcast(&viewed).map(Patterns::U32),
            _ => ArrayIn::downcast(&viewed).map(Patterns::U64),
        }
        .ok_or_else(refuse)
    }

    /// The patterns, read in place where the array is contiguous.
    pub fn slice(&self) -> CowSlice<'_> {
        match self {
            Patterns::U16(a) => CowSlice::U16(a.strided().elements()),
            Patterns::U32(a) => CowSlice::U32(a.strided().elements()),
            Patterns::U64(a) => CowSlice::U64(a.strided().elements()),
        }
    }

    /// The array's shape.
    pub fn shape(&self) -> Vec<usize> {
        match self {
            Patterns::U16(a) => a.shape(),
            Patterns::U32(a) => a.shape(),
            Patterns::U64(a) => a.shape(),
        }
    }

    fn check_width(&self, fmt: Format, what: &str) -> PyResult<()> {
        let (name, width) = (fmt.name(), fmt.width());
        match self {
            Patterns::U16(a) => check_width(&a.strided(), width, name, what),
            Patterns::U32(a) => check_width(&a.strided(), width, name, what),
            Patterns::U64(a) => check_width(&a.strided(), width, name, what),
        }
    }
}

/// Patterns borrowed from their array, or gathered in C order where it is not
/// C-contiguous in this machine's byte order (one whole copy, made on every core).
pub enum CowSlice<'a> {
    /// uint16 patterns.
    U16(Cow<'a, [u16]>),
    /// uint32 patterns.
    U32(Cow<'a, [u32]>),
    /// uint64 patterns.
    U64(Cow<'a, [u64]>),
}

impl CowSlice<'_> {
    /// The slice as the judge reads it.
    pub fn column(&self) -> Column<'_> {
        match self {
            CowSlice::U16(s) => Column::U16(s),
            CowSlice::U32(s) => Column::U32(s),
            CowSlice::U64(s) => Column::U64(s),
        }
    }
}

/// The distance from `a` to `b` in steps of the format's value line, element by element:
/// its magnitude (uint64), or with `signed` the signed distance `ulp-diff` prints (int64;
/// negative when `b` lies below `a`).
#[pyfunction]
#[pyo3(signature = (a, b, fmt, flush_subnormals = true, signed = false))]
pub fn ulp_distance<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
    fmt: &str,
    flush_subnormals: bool,
    signed: bool,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
    let format = args::format(fmt)?;
    let pa = Patterns::extract(a, format, "ulp_distance's a")?;
    let pb = Patterns::extract(b, format, "ulp_distance's b")?;
    let shape = pa.shape();
    if shape != pb.shape() {
        return Err(PyValueError::new_err(format!(
            "ulp_distance's a and b differ in shape: {shape:?} and {:?}",
            pb.shape()
        )));
    }
    let layout = Layout::new(format, DiffOptions { flush_subnormals });
    let (ca, cb) = (pa.slice(), pb.slice());
    let (sa, sb) = (ca.column(), cb.column());
    if signed {
        return signed_distances(py, &layout, sa, sb, shape);
    }
    let (distance, nan) = py.detach(|| {
        let n = sa.len();
        let mut distance = vec![0u64; n];
        let mut nan = vec![false; n];
        distance
            .par_chunks_mut(TASK)
            .zip(nan.par_chunks_mut(TASK))
            .enumerate()
            .for_each(|(t, (d, m))| {
                for (k, (d, m)) in d.iter_mut().zip(m.iter_mut()).enumerate() {
                    let i = t * TASK + k;
                    match element_distance(&layout, sa.get(i), sb.get(i)) {
                        Some(x) => *d = x,
                        None => *m = true,
                    }
                }
            });
        (distance, nan)
    });
    Ok((
        shaped(py, distance, shape.clone())?,
        shaped(py, nan, shape)?,
    ))
}

/// `ulp-diff`'s headline distance of one pair, unsigned: the channel distance of largest
/// magnitude; `None` when a channel involves a NaN.
#[inline]
fn element_distance(layout: &Layout, a: u64, b: u64) -> Option<u64> {
    // Two points of one line are less than 2^64 steps apart (f64 has 2^64 - 2^53 + 1).
    element_signed_distance(layout, a, b)
        .map(|d| u64::try_from(d.unsigned_abs()).unwrap_or(u64::MAX))
}

/// [`ulp_distance`] with `signed`: int64 distances and the NaN mask. A distance beyond
/// int64 (two f64 values most of the line apart) is a `ValueError` naming the element.
fn signed_distances<'py>(
    py: Python<'py>,
    layout: &Layout,
    sa: Column<'_>,
    sb: Column<'_>,
    shape: Vec<usize>,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
    let (distance, nan, too_far) = py.detach(|| {
        let n = sa.len();
        let mut distance = vec![0i64; n];
        let mut nan = vec![false; n];
        let too_far = distance
            .par_chunks_mut(TASK)
            .zip(nan.par_chunks_mut(TASK))
            .enumerate()
            .filter_map(|(t, (d, m))| {
                let mut first_too_far = None;
                for (k, (d, m)) in d.iter_mut().zip(m.iter_mut()).enumerate() {
                    let i = t * TASK + k;
                    match element_signed_distance(layout, sa.get(i), sb.get(i)) {
                        None => *m = true,
                        Some(x) => match i64::try_from(x) {
                            Ok(x) => *d = x,
                            Err(_) => first_too_far = first_too_far.or(Some(i)),
                        },
                    }
                }
                first_too_far
            })
            .min();
        (distance, nan, too_far)
    });
    if let Some(i) = too_far {
        return Err(PyValueError::new_err(format!(
            "ulp_distance: element {i} is more than 2^63 steps away, beyond int64; \
             call with signed=False for the magnitude"
        )));
    }
    Ok((
        shaped(py, distance, shape.clone())?,
        shaped(py, nan, shape)?,
    ))
}

/// `ulp-diff`'s headline distance of one pair, signed: the channel distance of largest
/// magnitude (the first such channel); `None` when a channel involves a NaN.
#[inline]
fn element_signed_distance(layout: &Layout, a: u64, b: u64) -> Option<i128> {
    let mut worst = 0i128;
    for c in 0..layout.channels() {
        let line = layout.line(c);
        let d = line.distance(layout.channel_bits(a, c), layout.channel_bits(b, c))?;
        if d.unsigned_abs() > worst.unsigned_abs() {
            worst = d;
        }
    }
    Some(worst)
}

/// Class codes, in the order of `d3dfloat.CLASSES`.
const CLASSES: [Class; 6] = [
    Class::Zero,
    Class::Subnormal,
    Class::Normal,
    Class::Infinity,
    Class::Nan,
    Class::Nan,
];

fn class_code(f: &FloatFormat, bits: u64) -> u8 {
    let c = f.class(bits);
    match c {
        Class::Nan => {
            // Quiet and signalling NaNs apart, where the format marks the difference.
            if f.is_quiet_nan(bits) == Some(false) {
                5
            } else {
                4
            }
        }
        _ => CLASSES.iter().position(|&k| k == c).unwrap_or(0) as u8,
    }
}

/// The class names of [`class_code`]'s codes.
pub fn class_names() -> Vec<&'static str> {
    vec!["zero", "subnormal", "normal", "infinity", "nan", "snan"]
}

/// Sign, exponent and fraction fields and the class of every pattern.
#[pyfunction]
pub fn classify<'py>(
    py: Python<'py>,
    bits: &Bound<'py, PyAny>,
    fmt: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let f = args::float_format(fmt, "classify")?;
    let p = Patterns::extract(bits, Format::Float(f), "classify's bits")?;
    let shape = p.shape();
    let cs = p.slice();
    let s = cs.column();
    let (sign, exponent, fraction, class) = py.detach(|| {
        let n = s.len();
        let mut sign = vec![false; n];
        let mut exponent = vec![0u16; n];
        let mut fraction = vec![0u64; n];
        let mut class = vec![0u8; n];
        sign.par_chunks_mut(TASK)
            .zip(exponent.par_chunks_mut(TASK))
            .zip(fraction.par_chunks_mut(TASK))
            .zip(class.par_chunks_mut(TASK))
            .enumerate()
            .for_each(|(t, (((sg, ex), fr), cl))| {
                for k in 0..sg.len() {
                    let bits = s.get(t * TASK + k);
                    let fields = f.fields(bits);
                    sg[k] = fields.sign;
                    ex[k] = fields.exponent as u16;
                    fr[k] = fields.fraction;
                    cl[k] = class_code(&f, bits);
                }
            });
        (sign, exponent, fraction, class)
    });
    let d = PyDict::new(py);
    d.set_item("sign", shaped(py, sign, shape.clone())?)?;
    d.set_item("exponent", shaped(py, exponent, shape.clone())?)?;
    d.set_item("fraction", shaped(py, fraction, shape.clone())?)?;
    d.set_item("class", shaped(py, class, shape)?)?;
    Ok(d)
}
