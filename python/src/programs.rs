//! check_program and program_interval: whole shader expressions and instruction sequences
//! (`d3dfloat_core::program`), as `d3dfloat op --asm` / `op --expr` bound and judge them.
//!
//! Inputs come as a dict: register names (`v0`) for assembly, variable names for an
//! expression (the first one given is `v0`, the next `v1`, ..., as the command line's
//! `--input`s and `--operands` are numbered); an expression's result is `o0`.

use d3dfloat_core::d3d::Domain;
use d3dfloat_core::format::{FloatFormat, RoundOptions, Rounding, round_f64};
use d3dfloat_core::input::operands::read_operand;
use d3dfloat_core::judge::Column;
use d3dfloat_core::program::{
    Inputs, Program, ProgramError, ProgramJudge, ProgramVerdict, Reg, RegFile, Span, analyze, expr,
    parse_asm, parse_output, runs_in,
};
use numpy::PyUntypedArray;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use rayon::prelude::*;

use crate::args::{self, type_name};
use crate::codec::shaped;
use crate::inspect::Patterns;
use crate::verdicts::{Pace, shape_text};

/// The violations `check_program` lists by default: `op --limit`'s default.
pub const DEFAULT_LIMIT: usize = 100_000;

/// A program error (text, inputs, output) as a `ValueError` with the core's message.
fn program_error(e: ProgramError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// `fmt=`: programs run in f32 or f16 arithmetic, as `op --asm/--expr` do.
fn working_format(fmt: &str) -> PyResult<FloatFormat> {
    let f = args::float_format(fmt, "a program")?;
    if !runs_in(&f) {
        return Err(PyValueError::new_err(format!(
            "programs work in f32 or f16 (not {})",
            f.name
        )));
    }
    Ok(f)
}

/// The program(s) of `text` (assembly, or an expression's alternatives over the variables
/// of `widths`) and the output asked for (`output=` for assembly, `o0` for an expression).
type Requested = Option<(Reg, Option<u8>)>;

fn programs(
    text: &str,
    format: FloatFormat,
    is_expr: bool,
    output: Option<&str>,
    widths: &[(String, usize)],
) -> PyResult<(Vec<Program>, Requested)> {
    if !is_expr {
        let p = parse_asm(text, format).map_err(program_error)?;
        let requested = match output {
            None => None,
            Some(o) => {
                Some(parse_output(o).map_err(|e| PyValueError::new_err(format!("output: {e}")))?)
            }
        };
        return Ok((vec![p], requested));
    }
    if output.is_some() {
        return Err(PyValueError::new_err(
            "output= goes with assembly; an expression's result is its value (o0)",
        ));
    }
    let vars: Vec<(&str, usize)> = widths.iter().map(|(n, w)| (n.as_str(), *w)).collect();
    let (out, _) = expr::programs(text, &vars, format).map_err(program_error)?;
    Ok((out, Some((expr::RESULT, None))))
}

/// A dict key: an input register (`v0`) for assembly; for an expression the variable's
/// name, numbered `v0`, `v1`, ... in the dict's order.
fn input_register(key: &Bound<'_, PyAny>, k: usize, is_expr: bool) -> PyResult<(String, Reg)> {
    let name: String = key.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "inputs' keys must be str (register or variable names), not {}",
            type_name(key)
        ))
    })?;
    if is_expr {
        let reg = Reg {
            file: RegFile::Input,
            index: k as u32,
        };
        return Ok((name, reg));
    }
    match parse_output(&name) {
        Ok((reg, None)) if reg.file == RegFile::Input => Ok((name, reg)),
        _ => Err(PyValueError::new_err(format!(
            "input: '{name}' is not an input register (v0, v1, ...)"
        ))),
    }
}

/// Elements gathered per task of [`gather`].
const GATHER: usize = 1 << 14;

/// Component `c` of the elements `range` of `column` (`w` components per element) into
/// `out`, whose memory is reused; in parallel.
fn gather(out: &mut Vec<u64>, column: Column, w: usize, c: usize, range: std::ops::Range<usize>) {
    out.clear();
    out.resize(range.len(), 0);
    out.par_chunks_mut(GATHER)
        .enumerate()
        .for_each(|(k, chunk)| {
            let first = range.start + k * GATHER;
            // One loop per element type, the type matched once per chunk.
            match column {
                Column::U16(s) => gather_from(chunk, s, first, w, c),
                Column::U32(s) => gather_from(chunk, s, first, w, c),
                Column::U64(s) => gather_from(chunk, s, first, w, c),
            }
        });
}

fn gather_from<T: Copy + Into<u64>>(out: &mut [u64], s: &[T], first: usize, w: usize, c: usize) {
    for (j, o) in out.iter_mut().enumerate() {
        *o = s[(first + j) * w + c].into();
    }
}

/// One input array: its name, register, patterns and components per element.
struct InputArray<'py> {
    name: String,
    reg: Reg,
    patterns: Patterns<'py>,
    width: usize,
}

/// The elements and components of an `(N, width)` or `(N,)` array.
fn rows(shape: &[usize], what: &str) -> PyResult<(usize, usize)> {
    match shape {
        [n] => Ok((*n, 1)),
        [n, w] if (1..=4).contains(w) => Ok((*n, *w)),
        _ => Err(PyValueError::new_err(format!(
            "{what} must have shape (N, components) with one to four components, or (N,), \
             not {}",
            shape_text(shape)
        ))),
    }
}

/// Judges every element's results: a boolean array (conforms) and a summary.
#[pyfunction]
#[pyo3(signature = (program, inputs, results, fmt, rules, expr, output, limit))]
#[allow(clippy::too_many_arguments)]
pub fn check_program<'py>(
    py: Python<'py>,
    program: &str,
    inputs: &Bound<'py, PyDict>,
    results: &Bound<'py, PyAny>,
    fmt: &str,
    rules: &str,
    expr: bool,
    output: Option<&str>,
    limit: usize,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyDict>)> {
    let format = working_format(fmt)?;
    let rules = args::rules(rules)?;
    let bytes = (format.width() / 8) as usize;
    let mut arrays: Vec<InputArray<'py>> = Vec::new();
    for (k, (key, value)) in inputs.iter().enumerate() {
        let (name, reg) = input_register(&key, k, expr)?;
        let what = format!("inputs['{name}']");
        let patterns = Patterns::read(&value, bytes, format.name, true, &what)?;
        let (_, width) = rows(&patterns.shape(), &what)?;
        if arrays.iter().any(|a| a.reg == reg) {
            return Err(PyValueError::new_err(format!(
                "input: {reg} is given twice"
            )));
        }
        arrays.push(InputArray {
            name,
            reg,
            patterns,
            width,
        });
    }
    let widths: Vec<(String, usize)> = arrays.iter().map(|a| (a.name.clone(), a.width)).collect();
    let (progs, requested) = programs(program, format, expr, output, &widths)?;
    let judge = ProgramJudge::new(progs, requested, rules).map_err(program_error)?;
    let outs = judge.output_names().len();
    let res = Patterns::read(results, bytes, format.name, true, "results")?;
    let n = match (&res.shape()[..], outs) {
        ([n], 1) => *n,
        ([n, w], _) if *w == outs => *n,
        (got, _) => {
            let want = if outs == 1 {
                "(N,) or (N, 1)".to_string()
            } else {
                format!("(N, {outs})")
            };
            return Err(PyValueError::new_err(format!(
                "results must have shape {want} (one column per output component: {}), \
                 not {}",
                judge.output_names().join(", "),
                shape_text(got)
            )));
        }
    };
    // Each register the program reads must be given, as wide as the highest component
    // read, with one row per result; nothing else may be given.
    for a in &arrays {
        let (rows_given, _) = rows(&a.patterns.shape(), "")?;
        if rows_given != n {
            return Err(PyValueError::new_err(format!(
                "inputs['{}'] has {rows_given} elements where results has {n}",
                a.name
            )));
        }
        if !expr && !judge.input_registers().iter().any(|(r, _)| *r == a.reg) {
            return Err(PyValueError::new_err(format!(
                "input: the program does not read {}",
                a.name
            )));
        }
    }
    let mut map: Vec<(usize, usize, usize)> = Vec::new();
    for &(reg, c) in judge.input_components() {
        let a = arrays.iter().position(|a| a.reg == reg).ok_or_else(|| {
            PyValueError::new_err(format!(
                "input: the program reads {reg}, which inputs lacks"
            ))
        })?;
        if c >= arrays[a].width {
            return Err(PyValueError::new_err(format!(
                "inputs['{}'] has {} component{} where the program reads {} of {reg}",
                arrays[a].name,
                arrays[a].width,
                if arrays[a].width == 1 { "" } else { "s" },
                c + 1
            )));
        }
        map.push((a, arrays[a].width, c));
    }
    let slices: Vec<_> = arrays.iter().map(|a| a.patterns.slice()).collect();
    let columns: Vec<Column> = slices.iter().map(|s| s.column()).collect();
    let res_slice = res.slice();
    let res_column = res_slice.column();
    // Block by block, the interpreter released during each and asked between them
    // whether a signal came (Ctrl-C raises KeyboardInterrupt within a block's time), as
    // in check. Every violating element is marked as it is judged.
    let mut conforms = vec![true; n];
    let mut total = ProgramVerdict::default();
    let mut pace = Pace::new();
    let mut start = 0;
    // The block's columns, one per input and result component; their memory is kept
    // from block to block.
    let mut ins: Vec<Vec<u64>> = vec![Vec::new(); map.len()];
    let mut res: Vec<Vec<u64>> = vec![Vec::new(); outs];
    while start < n {
        let began = std::time::Instant::now();
        let end = (start + pace.lines).min(n);
        let part = py.detach(|| {
            for (col, &(a, w, c)) in ins.iter_mut().zip(&map) {
                gather(col, columns[a], w, c, start..end);
            }
            for (j, col) in res.iter_mut().enumerate() {
                gather(col, res_column, outs, j, start..end);
            }
            let ins: Vec<&[u64]> = ins.iter().map(Vec::as_slice).collect();
            let res: Vec<&[u64]> = res.iter().map(Vec::as_slice).collect();
            judge.judge(&ins, &res, usize::MAX)
        });
        let part = part.map_err(program_error)?;
        total.elements += part.elements;
        total.conform += part.conform;
        total.violate += part.violate;
        total.fast += part.fast;
        for mut v in part.violations {
            v.index += start as u64;
            conforms[v.index as usize] = false;
            if total.violations.len() < limit {
                total.violations.push(v);
            }
        }
        py.check_signals()?;
        pace.after(began.elapsed());
        start = end;
    }
    let d = PyDict::new(py);
    d.set_item("elements", total.elements)?;
    d.set_item("conform", total.conform)?;
    d.set_item("violate", total.violate)?;
    d.set_item("fast", total.fast)?;
    d.set_item("outputs", judge.output_names())?;
    let list = PyList::empty(py);
    for v in &total.violations {
        let x = span_dict(py, &format, &v.span)?;
        x.set_item("index", v.index)?;
        x.set_item("component", &v.component)?;
        x.set_item("result", v.result)?;
        list.append(x)?;
    }
    d.set_item("violations", list)?;
    Ok((shaped(py, conforms, vec![n])?, d))
}

/// `lo`, `hi` (patterns; None when only NaN is allowed) and `nan` of a span.
fn span_dict<'py>(py: Python<'py>, f: &FloatFormat, s: &Span) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let (lo, hi) = s.bits(f).unzip();
    d.set_item("lo", lo)?;
    d.set_item("hi", hi)?;
    d.set_item("nan", s.nan)?;
    Ok(d)
}

/// One value of one set of inputs: a str as the command line reads it (`1.5`, `0x3fc00000`),
/// a number rounded to nearest even into the format.
fn one_value(obj: &Bound<'_, PyAny>, format: &FloatFormat, what: &str) -> PyResult<u64> {
    if let Ok(s) = obj.downcast::<PyString>() {
        let text: String = s.extract()?;
        return read_operand(text.trim(), &Domain::Float(*format))
            .map(|p| p.bits)
            .map_err(|e| PyValueError::new_err(format!("input: {what} value '{text}': {e}")));
    }
    if obj.is_instance_of::<pyo3::types::PyBool>() {
        return Err(PyTypeError::new_err(format!(
            "{what}: a value is a number or a str, not bool"
        )));
    }
    let x: f64 = obj.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "{what}: a value is a number or a str, not {}",
            type_name(obj)
        ))
    })?;
    let opts = RoundOptions {
        mode: Rounding::NearestEven,
        saturate: false,
    };
    Ok(round_f64(format, x, opts).bits)
}

/// The components of one input: a numpy array of the format's patterns (its unsigned
/// type, or the float type of its width), any other numpy array or a sequence of values
/// ([`one_value`]), or a single value.
fn input_values(obj: &Bound<'_, PyAny>, format: &FloatFormat, what: &str) -> PyResult<Vec<u64>> {
    let bytes = (format.width() / 8) as usize;
    if let Ok(a) = obj.downcast::<PyUntypedArray>() {
        let dtype = a.getattr("dtype")?;
        let kind: String = dtype.getattr("kind")?.extract()?;
        let itemsize: usize = dtype.getattr("itemsize")?.extract()?;
        if (kind == "u" || kind == "f") && itemsize == bytes {
            let p = Patterns::read(obj, bytes, format.name, true, what)?;
            let s = p.slice();
            let c = s.column();
            return Ok((0..c.len()).map(|i| c.get(i)).collect());
        }
        if kind == "u" {
            return Err(PyTypeError::new_err(format!(
                "{what}: patterns of {} are {}, not {}",
                format.name,
                if bytes == 2 { "uint16" } else { "uint32" },
                type_name(obj)
            )));
        }
        let items = obj.call_method0("ravel")?.call_method0("tolist")?;
        return input_values(&items, format, what);
    }
    if obj.downcast::<PyString>().is_err()
        && let Ok(it) = obj.try_iter()
    {
        return it.map(|x| one_value(&x?, format, what)).collect();
    }
    Ok(vec![one_value(obj, format, what)?])
}

/// The interval, exact value and small set of every output component for one set of
/// inputs.
#[pyfunction]
#[pyo3(signature = (program, inputs, fmt, rules, expr, output))]
pub fn program_interval<'py>(
    py: Python<'py>,
    program: &str,
    inputs: &Bound<'py, PyDict>,
    fmt: &str,
    rules: &str,
    expr: bool,
    output: Option<&str>,
) -> PyResult<Bound<'py, PyList>> {
    let format = working_format(fmt)?;
    let rules = args::rules(rules)?;
    let mut given = Inputs::default();
    let mut widths: Vec<(String, usize)> = Vec::new();
    for (k, (key, value)) in inputs.iter().enumerate() {
        let (name, reg) = input_register(&key, k, expr)?;
        let what = format!("inputs['{name}']");
        let bits = input_values(&value, &format, &what)?;
        if bits.is_empty() || bits.len() > 4 {
            return Err(PyValueError::new_err(format!(
                "input: {what} needs one to four values, not {}",
                bits.len()
            )));
        }
        widths.push((name, bits.len()));
        if given.values.insert(reg, bits).is_some() {
            return Err(PyValueError::new_err(format!(
                "input: {reg} is given twice"
            )));
        }
    }
    let (progs, requested) = programs(program, format, expr, output, &widths)?;
    let (_, answers) = py
        .detach(|| analyze(&progs, &given, requested, rules))
        .map_err(program_error)?;
    let list = PyList::empty(py);
    for a in &answers {
        let d = span_dict(py, &format, &a.span)?;
        d.set_item("component", &a.component)?;
        d.set_item("ulps", a.span.ulps(&format))?;
        d.set_item("exact", a.exact)?;
        d.set_item("exact_value", a.exact_approx)?;
        d.set_item("set", a.set.clone())?;
        list.append(d)?;
    }
    Ok(list)
}
