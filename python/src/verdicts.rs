//! check and allowed: a device's results judged through the library's judge over slices
//! (`judge::Judge::run`, fast deciders with the exact engine behind them), and the allowed
//! results of each line from the exact engine (`d3d::evaluate`).

use d3dfloat_core::d3d::{Domain, OpRequest, evaluate};
use d3dfloat_core::judge::{Buffer, Column, Elem, Judge, JudgeError, Keep, Run, Verdict};
use numpy::PyUntypedArray;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use rayon::prelude::*;

use crate::args;
use crate::codec::shaped;
use crate::inspect::Patterns;

/// The instruction `op` in working format `fmt` under `rules`, as `d3dfloat op` reads them.
fn judge(op: &str, fmt: &str, rules: &str) -> PyResult<Judge> {
    let f = args::float_format(fmt, "an instruction")?;
    let rules = args::rules(rules)?;
    Judge::parse(op, &f, rules).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// One array for a unary instruction, or a sequence of arrays (one per source operand).
fn operand_list<'py>(operands: &Bound<'py, PyAny>) -> PyResult<Vec<Bound<'py, PyAny>>> {
    if operands.downcast::<PyUntypedArray>().is_ok() {
        return Ok(vec![operands.clone()]);
    }
    let refuse = || {
        pyo3::exceptions::PyTypeError::new_err(format!(
            "operands must be a numpy array or a sequence of them (one per source operand), \
             not {}",
            args::type_name(operands)
        ))
    };
    if operands.is_instance_of::<pyo3::types::PyString>() {
        return Err(refuse());
    }
    let seq = operands.try_iter().map_err(|_| refuse())?;
    seq.collect()
}

/// The patterns of a domain's element type: a float domain also takes the float array
/// of its width (f16, f32, f64 values as read back from a buffer).
fn patterns<'py>(obj: &Bound<'py, PyAny>, domain: &Domain, what: &str) -> PyResult<Patterns<'py>> {
    let elem = Elem::of(domain);
    let floats = matches!(domain, Domain::Float(_));
    Patterns::read(obj, elem.bytes(), domain.name(), floats, what)
}

/// The operands' patterns, read in place where contiguous.
fn operand_patterns<'py>(j: &Judge, operands: &Bound<'py, PyAny>) -> PyResult<Vec<Patterns<'py>>> {
    let domain = j.operand_domain();
    operand_list(operands)?
        .iter()
        .enumerate()
        .map(|(i, o)| patterns(o, &domain, &format!("operand {}", i + 1)))
        .collect()
}

/// The shape of the per-line outputs, after checking the operands' shapes: every operand
/// has the first one's shape; a vector instruction's (dp2-dp4) is `(..., width)` (one line
/// per row) or flat `(lines * width,)` (components one after another, as a buffer holds
/// them). A `(width, n)` stack of components is refused, not read as rows.
fn line_shape(j: &Judge, ops: &[Patterns<'_>]) -> PyResult<Vec<usize>> {
    let width = j.arity().1;
    let Some(first) = ops.first() else {
        return Ok(vec![0]);
    };
    let shape = first.shape();
    for (i, o) in ops.iter().enumerate().skip(1) {
        if o.shape() != shape {
            return Err(PyValueError::new_err(format!(
                "{}'s operands differ in shape: operand 1 is {}, operand {} is {}",
                j.name(),
                shape_text(&shape),
                i + 1,
                shape_text(&o.shape())
            )));
        }
    }
    if width == 1 {
        return Ok(shape);
    }
    match shape[..] {
        [.., last] if last == width => Ok(shape[..shape.len() - 1].to_vec()),
        [n] => Ok(vec![n / width]),
        _ => Err(PyValueError::new_err(format!(
            "{} takes vector operands of {width} components: shape (..., {width}) (one line a \
             row) or ({width}n,) (components one after another), not {}",
            j.name(),
            shape_text(&shape)
        ))),
    }
}

/// Checks the result's shape against the lines': the lines' shape, with a trailing axis
/// of the outputs for an instruction of several (sincos: `(..., 2)`), or flat `(lines *
/// outputs,)` (every output of a line one after another, as a buffer holds them). A
/// `(2, n)` stack of sines and cosines is refused, not read as pairs.
fn check_result_shape(j: &Judge, lines: &[usize], result: &Patterns<'_>) -> PyResult<()> {
    let outputs = j.outputs();
    let mut want = lines.to_vec();
    if outputs > 1 {
        want.push(outputs);
    }
    let got = result.shape();
    let total: usize = want.iter().product();
    if got == want || got[..] == [total] {
        return Ok(());
    }
    Err(PyValueError::new_err(format!(
        "{}'s result must have shape {} or ({total},), not {}",
        j.name(),
        shape_text(&want),
        shape_text(&got)
    )))
}

/// A shape as Python writes it: `(3,)`, `(4, 2)`.
pub(crate) fn shape_text(shape: &[usize]) -> String {
    match shape {
        [n] => format!("({n},)"),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// How many lines a call handles between two looks for a signal (Ctrl-C): sized as it
/// goes so that a block takes about 50 ms whatever the instruction costs (memory speed
/// where the fast deciders settle every line, microseconds a line in the exact engine)
/// and whatever the machine, so that KeyboardInterrupt comes well within a second.
pub(crate) struct Pace {
    pub(crate) lines: usize,
}

impl Pace {
    /// The first block: small, until the cost of a line is seen.
    pub(crate) fn new() -> Pace {
        Pace { lines: 1 << 12 }
    }

    /// The next block's size after one of `self.lines` lines that took `took`.
    pub(crate) fn after(&mut self, took: std::time::Duration) {
        let ms = took.as_millis();
        if ms < 25 {
            self.lines = (self.lines * 2).min(1 << 24);
        } else if ms > 100 {
            self.lines = (self.lines / 2).max(64);
        }
    }
}

/// A judge error (counts, element types, lengths) as a `ValueError`.
fn judge_error(e: d3dfloat_core::judge::JudgeError) -> PyErr {
    match e {
        d3dfloat_core::judge::JudgeError::Engine { .. } => PyRuntimeError::new_err(e.to_string()),
        _ => PyValueError::new_err(e.to_string()),
    }
}

/// The summary of a verdict as a dict.
fn summary<'py>(py: Python<'py>, v: &Verdict) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("lines", v.lines)?;
    d.set_item("conform", v.conform)?;
    d.set_item("violate", v.violate)?;
    d.set_item("max_ulps", v.max_ulps)?;
    d.set_item("max_distance", v.max_distance)?;
    d.set_item("nan_mismatches", v.histogram.nan)?;
    d.set_item("histogram", v.histogram.buckets.to_vec())?;
    let classes = PyList::empty(py);
    for c in v.classes_by_count() {
        let k = PyDict::new(py);
        k.set_item("class", c.class.to_string())?;
        k.set_item("count", c.count)?;
        k.set_item("first", c.first)?;
        k.set_item("example", &c.example)?;
        classes.append(k)?;
    }
    d.set_item("classes", classes)?;
    d.set_item("exact_engine", v.exact_engine)?;
    Ok(d)
}

/// Judges every line's result: a boolean array (conforms) and a summary.
#[pyfunction]
#[pyo3(signature = (op, operands, result, fmt, rules))]
pub fn check<'py>(
    py: Python<'py>,
    op: &str,
    operands: &Bound<'py, PyAny>,
    result: &Bound<'py, PyAny>,
    fmt: &str,
    rules: &str,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyDict>)> {
    let j = judge(op, fmt, rules)?;
    let ops = operand_patterns(&j, operands)?;
    let out_domain = j
        .output_domains()
        .next()
        .expect("every instruction has an output");
    let res = patterns(result, &out_domain, "result")?;
    let op_slices: Vec<_> = ops.iter().map(|p| p.slice()).collect();
    let columns: Vec<Column> = op_slices.iter().map(|s| s.column()).collect();
    let res_slice = res.slice();
    let results = res_slice.column();
    let lines = j.lines(&columns, results).map_err(judge_error)?;
    let shape = line_shape(&j, &ops)?;
    check_result_shape(&j, &shape, &res)?;
    // Block by block, the interpreter released during each and asked between them
    // whether a signal came (Ctrl-C raises KeyboardInterrupt within a block's time).
    // Every violating line is marked in `conforms` as it is judged; none is kept.
    let (width, outputs) = (j.arity().1, j.outputs());
    let keep = Keep {
        stream: true,
        ..Keep::default()
    };
    let mut run = Run::new(&j, keep);
    let mut pace = Pace::new();
    let mut conforms = vec![true; lines];
    let mut start = 0;
    while start < lines {
        let began = std::time::Instant::now();
        let end = (start + pace.lines).min(lines);
        let cols: Vec<Column> = columns
            .iter()
            .map(|c| c.range(start * width..end * width))
            .collect();
        let res = results.range(start * outputs..end * outputs);
        py.detach(|| {
            run.block(&cols, res, start as u64, |v, _| {
                conforms[v.index as usize] = false;
                Ok::<(), JudgeError>(())
            })
        })
        .map_err(judge_error)?;
        py.check_signals()?;
        pace.after(began.elapsed());
        start = end;
    }
    let verdict = run.finish();
    Ok((shaped(py, conforms, shape)?, summary(py, &verdict)?))
}

/// Per line and output: the correctly rounded result, the lowest and highest allowed
/// pattern, whether NaN is allowed.
struct Bounds {
    correct: u64,
    lo: u64,
    hi: u64,
    nan: bool,
}

/// Line `i`'s bounds, one per output, from the exact engine.
fn line_bounds(j: &Judge, columns: &[Column], i: usize) -> Vec<Result<Bounds, String>> {
    let width = j.arity().1;
    let args: Vec<Vec<u64>> = columns
        .iter()
        .map(|c| (0..width).map(|k| c.get(i * width + k)).collect())
        .collect();
    let refs: Vec<&[u64]> = args.iter().map(|a| a.as_slice()).collect();
    let req = OpRequest::from_bits(j.op(), j.format(), j.rules(), &refs);
    match evaluate(&req) {
        Ok(eval) => eval
            .outputs
            .iter()
            .map(|out| {
                let (lo, hi) = match out.allowed.extremes() {
                    Some((l, h)) => (out.domain.bits(l), out.domain.bits(h)),
                    None => (out.preferred, out.preferred),
                };
                Ok(Bounds {
                    correct: out.preferred,
                    lo,
                    hi,
                    nan: out.allowed.nan,
                })
            })
            .collect(),
        Err(e) => vec![Err(format!("line {i}: {e}"))],
    }
}

/// The correctly rounded result and the bounds of the allowed set of every line.
#[pyfunction]
#[pyo3(signature = (op, operands, fmt, rules))]
pub fn allowed<'py>(
    py: Python<'py>,
    op: &str,
    operands: &Bound<'py, PyAny>,
    fmt: &str,
    rules: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let j = judge(op, fmt, rules)?;
    let ops = operand_patterns(&j, operands)?;
    let op_slices: Vec<_> = ops.iter().map(|p| p.slice()).collect();
    let columns: Vec<Column> = op_slices.iter().map(|s| s.column()).collect();
    let width = j.arity().1;
    let outputs = j.outputs();
    // The judge checks the operands' count, types and lengths against a result slice;
    // hand it one of the right size to learn the number of lines.
    let first_len = columns.first().map_or(0, |c| c.len());
    let dummy = Buffer::zeroed(j.result_elem(), first_len / width.max(1) * outputs);
    let lines = j.lines(&columns, dummy.column()).map_err(judge_error)?;
    let shape = line_shape(&j, &ops)?;
    // Block by block, a signal (Ctrl-C) raised between blocks, as in check.
    let mut pace = Pace::new();
    let mut bounds: Vec<Bounds> = Vec::with_capacity(lines * outputs);
    let mut start = 0;
    while start < lines {
        let began = std::time::Instant::now();
        let end = (start + pace.lines).min(lines);
        let part: Result<Vec<Bounds>, String> = py.detach(|| {
            (start..end)
                .into_par_iter()
                .flat_map_iter(|i| line_bounds(&j, &columns, i))
                .collect()
        });
        bounds.extend(part.map_err(PyRuntimeError::new_err)?);
        py.check_signals()?;
        pace.after(began.elapsed());
        start = end;
    }
    let mut shape = shape;
    if outputs > 1 {
        shape.push(outputs);
    }
    let elem = j.result_elem();
    let column = |f: &dyn Fn(&Bounds) -> u64| -> PyResult<Bound<'py, PyAny>> {
        let b = Buffer::from_patterns(elem, bounds.iter().map(f));
        match b {
            Buffer::U16(v) => shaped(py, v, shape.clone()),
            Buffer::U32(v) => shaped(py, v, shape.clone()),
            Buffer::U64(v) => shaped(py, v, shape.clone()),
        }
    };
    let d = PyDict::new(py);
    d.set_item("correct", column(&|b| b.correct)?)?;
    d.set_item("lo", column(&|b| b.lo)?)?;
    d.set_item("hi", column(&|b| b.hi)?)?;
    let nan: Vec<bool> = bounds.iter().map(|b| b.nan).collect();
    d.set_item("nan", shaped(py, nan, shape.clone())?)?;
    Ok(d)
}
