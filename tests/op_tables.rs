//! Walks the spec's special-value tables (`spec/instruction-tables.json`, kept in the
//! repository): for every instruction with a table and every cell, operands of the
//! row/column classes are drawn and the allowed set `d3dfloat op` computes must be exactly
//! what the cell says.
//!
//! The tables assume no overflow or underflow, so finite operands are drawn from moderate
//! magnitudes. Two tables contradict §3.1.4 (docs/rules.md, "Where the spec contradicts
//! itself"): `ddiv` and `drcp` read a double denorm as zero. There the tool allows both
//! readings, so those cells are checked as "the table's result is allowed" rather than
//! "only the table's result".

mod common;
use common::Rng;

use std::path::PathBuf;

use d3dfloat::d3d::{Domain, Evaluation, Op, OpRequest, RuleSet, evaluate};
use d3dfloat::format::{Class, F32, F64, FloatFormat};
use serde_json::Value;

fn tables() -> Value {
    // Kept in the repository (spec/README.md gives its source and licence) so that a clone
    // alone runs this test.
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("spec/instruction-tables.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).expect("instruction-tables.json is valid JSON")
}

/// A pattern of a table class. Finite values have magnitudes in [2^-6, 2^6) and avoid ±1.
fn draw(f: &FloatFormat, class: &str, rng: &mut Rng) -> u64 {
    let frac_mask = (1u64 << f.frac_bits) - 1;
    let normal = |rng: &mut Rng, neg: bool| loop {
        let e = (f.bias as i64 - 6 + rng.below(12) as i64) as u32;
        let b = f.assemble(neg, e, rng.next() & frac_mask);
        if f.to_f64(b).abs() != 1.0 {
            return b;
        }
    };
    let denorm = |rng: &mut Rng, neg: bool| f.assemble(neg, 0, (rng.next() & frac_mask).max(1));
    match class {
        "-inf" => f.infinity(true),
        "+inf" => f.infinity(false),
        "NaN" => {
            // Quiet, signalling and negative NaNs are all NaN to D3D (§3.1.3.2).
            let frac = match rng.below(3) {
                0 => 1 << (f.frac_bits - 1),
                1 => 1,
                _ => rng.next() & frac_mask | 1,
            };
            f.assemble(rng.below(2) == 0, f.max_exp_field(), frac)
        }
        "-0" => f.assemble(true, 0, 0),
        "+0" => 0,
        "-1.0" => f.assemble(true, f.bias as u32, 0),
        "+1.0" => f.assemble(false, f.bias as u32, 0),
        "-denorm" => denorm(rng, true),
        "+denorm" => denorm(rng, false),
        "-F" => normal(rng, true),
        "+F" => normal(rng, false),
        // min/max use one coarse finite class: zeros, denorms and normals of either sign.
        "F" => {
            let neg = rng.below(2) == 0;
            match rng.below(4) {
                0 => f.assemble(neg, 0, 0),
                1 => denorm(rng, neg),
                _ => normal(rng, neg),
            }
        }
        other => panic!("unknown class {other}"),
    }
}

/// (input classes, cell text) for every cell of one result row or table.
type Grid = Vec<(Vec<String>, String)>;

struct Case<'a> {
    name: &'a str,
    f: FloatFormat,
    srcs: Vec<u64>,
    eval: Evaluation,
    output: usize,
}

impl Case<'_> {
    fn domain(&self) -> Domain {
        self.eval.outputs[self.output].domain
    }
    fn set(&self) -> &d3dfloat::d3d::AllowedSet {
        &self.eval.outputs[self.output].allowed
    }
    /// Every allowed non-NaN pattern (the sets here are small unless a cell allows a range).
    fn members(&self) -> Vec<u64> {
        let d = self.domain();
        let mut out = Vec::new();
        for &(lo, hi) in self.set().key_ranges() {
            let mut k = lo;
            while k <= hi && out.len() < 1_000_000 {
                out.push(d.bits(k));
                k += 1;
            }
        }
        out
    }
    fn flushed(&self, bits: u64) -> u64 {
        if self.f.arithmetic_flushes_subnormals && self.f.class(bits) == Class::Subnormal {
            self.f.assemble(self.f.fields(bits).sign, 0, 0)
        } else {
            bits
        }
    }
    fn exactly(&self, want: &[u64]) -> Result<(), String> {
        let mut got = self.members();
        got.sort_unstable();
        let mut want = want.to_vec();
        want.sort_unstable();
        want.dedup();
        if self.set().nan || got != want {
            return Err(format!(
                "allowed {:x?} nan={} but the cell allows exactly {want:x?}",
                self.set().bit_ranges(&self.domain()),
                self.set().nan
            ));
        }
        Ok(())
    }
    fn includes(&self, want: &[u64]) -> Result<(), String> {
        for &w in want {
            if !self.set().contains(&self.domain(), w) {
                return Err(format!("the table's result {w:#x} is not allowed"));
            }
        }
        Ok(())
    }
    fn all(&self, what: &str, ok: impl Fn(f64, u64) -> bool) -> Result<(), String> {
        let m = self.members();
        if self.set().nan || m.is_empty() {
            return Err(format!(
                "expected {what}, got {:x?} nan={}",
                self.set().bit_ranges(&self.domain()),
                self.set().nan
            ));
        }
        for b in m {
            if !ok(self.f.to_f64(b), b) {
                return Err(format!("{b:#x} is not {what}"));
            }
        }
        Ok(())
    }
}

fn neg(f: &FloatFormat, b: u64) -> u64 {
    b ^ f.assemble(true, 0, 0)
}

/// Checks one cell; `lenient` marks the contradicted double-denorm cells.
fn check_cell(case: &Case, cell: &str, lenient: bool) -> Result<(), String> {
    let f = case.f;
    let is_minmax = matches!(case.name, "min" | "max");
    let src = |i: usize| case.srcs[i];
    // A named operand as a result: after the flush, and for min/max also unflushed.
    let operand = |b: u64| -> Vec<u64> {
        let fl = case.flushed(b);
        if is_minmax { vec![b, fl] } else { vec![fl] }
    };
    let exact_or_include = |want: Vec<u64>| {
        if lenient {
            case.includes(&want)
        } else {
            case.exactly(&want)
        }
    };
    let is_round = case.name.starts_with("round_");
    match cell {
        "NaN" => {
            if lenient {
                return if case.set().nan {
                    Ok(())
                } else {
                    Err("NaN not allowed".into())
                };
            }
            if case.set().nan && case.set().key_ranges().is_empty() {
                Ok(())
            } else {
                Err(format!(
                    "expected only NaN, got {:x?} nan={}",
                    case.set().bit_ranges(&case.domain()),
                    case.set().nan
                ))
            }
        }
        "-inf" => exact_or_include(vec![f.infinity(true)]),
        "+inf" => exact_or_include(vec![f.infinity(false)]),
        "-0" => exact_or_include(vec![f.assemble(true, 0, 0)]),
        "+0" => exact_or_include(vec![0]),
        "0" => exact_or_include(vec![0]),
        "1" | "+1" | "+1.0" => exact_or_include(vec![f.assemble(false, f.bias as u32, 0)]),
        "-1.0" => exact_or_include(vec![f.assemble(true, f.bias as u32, 0)]),
        "src0" => exact_or_include(operand(src(0))),
        "src1" => exact_or_include(operand(src(1))),
        "-src0" => exact_or_include(vec![neg(&f, case.flushed(src(0)))]),
        "-src1" => exact_or_include(vec![neg(&f, case.flushed(src(1)))]),
        // The selected operand (which one depends on the values): a subset of the two.
        "src0 or src1" => {
            let mut w = operand(src(0));
            w.extend(operand(src(1)));
            case.all("one of the operands", |_, b| w.contains(&b))
        }
        // round_*: the spec's F classes include a zero result of that sign (oddity 7).
        "-F" => case.all("a negative finite number", |v, b| {
            v.is_finite() && (v < 0.0 || (is_round && b == f.assemble(true, 0, 0)))
        }),
        "+F" => case.all("a positive finite number", |v, _| {
            v.is_finite() && (v > 0.0 || (is_round && v == 0.0))
        }),
        "F" | "+-F or +-0" => case.all("a finite number", |v, _| v.is_finite()),
        "[+0 to 1)" => case.all("in [+0, 1)", |v, b| {
            (0.0..1.0).contains(&v) && b != f.assemble(true, 0, 0)
        }),
        "[-1 to +1]" => case.all("in [-1, 1]", |v, _| (-1.0..=1.0).contains(&v)),
        other => Err(format!("unhandled cell text '{other}'")),
    }
}

fn format_of(entry: &Value) -> FloatFormat {
    if entry["precision"] == "fp64" {
        F64
    } else {
        F32
    }
}

fn request(name: &str, f: FloatFormat, srcs: &[u64]) -> (OpRequest, FloatFormat) {
    let (op, format) = Op::parse(name, &f).expect("table instruction is known");
    let args: Vec<&[u64]> = srcs.iter().map(std::slice::from_ref).collect();
    (OpRequest::from_bits(op, format, RuleSet::D3D11, &args), f)
}

#[test]
fn every_cell_of_every_table_matches() {
    let t = tables();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut failures: Vec<String> = Vec::new();
    let mut cells = 0;
    let mut instructions = 0;
    for (name, entry) in t.as_object().unwrap() {
        if name.starts_with('_') || entry["has_table"] != Value::Bool(true) {
            continue;
        }
        instructions += 1;
        // (output index, row label or None, column classes, cell lookup)
        let mut grids: Vec<(usize, Grid)> = Vec::new();
        let classes: Vec<String> = entry["classes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap().to_string())
            .collect();
        if let Some(rows) = entry.get("rows") {
            let row_classes: Vec<String> = entry["row_classes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_str().unwrap().to_string())
                .collect();
            let mut grid = Vec::new();
            for r in &row_classes {
                for c in &classes {
                    grid.push((
                        vec![r.clone(), c.clone()],
                        rows[r][c].as_str().unwrap().to_string(),
                    ));
                }
            }
            grids.push((0, grid));
        } else if let Some(results) = entry.get("results") {
            for (i, label) in ["DestSin", "DestCos"].iter().enumerate() {
                let grid = classes
                    .iter()
                    .map(|c| {
                        (
                            vec![c.clone()],
                            results[*label][c].as_str().unwrap().to_string(),
                        )
                    })
                    .collect();
                grids.push((i, grid));
            }
        } else {
            let grid = classes
                .iter()
                .map(|c| {
                    (
                        vec![c.clone()],
                        entry["result"][c].as_str().unwrap().to_string(),
                    )
                })
                .collect();
            grids.push((0, grid));
        }
        for (output, grid) in grids {
            for (inputs, cell) in grid {
                cells += 1;
                let lenient = matches!(name.as_str(), "ddiv" | "drcp")
                    && inputs.iter().any(|c| c.ends_with("denorm"));
                for _ in 0..12 {
                    let f = format_of(entry);
                    let srcs: Vec<u64> = inputs.iter().map(|c| draw(&f, c, &mut rng)).collect();
                    let (req, f) = request(name, f, &srcs);
                    let eval = evaluate(&req).expect("evaluates");
                    let case = Case {
                        name,
                        f,
                        srcs: srcs.clone(),
                        eval,
                        output,
                    };
                    if let Err(e) = check_cell(&case, &cell, lenient) {
                        failures.push(format!("{name} {inputs:?} = '{cell}' with {srcs:x?}: {e}"));
                        break;
                    }
                }
            }
        }
    }
    assert!(instructions >= 20, "only {instructions} tables found");
    assert!(
        failures.is_empty(),
        "{} of {cells} cells disagree:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
