//! `op --asm` and `op --expr`: the interval a conforming implementation may return for each
//! output component of an instruction sequence, for one set of inputs or over buffers.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;

use super::Exit;
use crate::d3d::RuleSet;
use crate::format::{FloatFormat, Format};
use crate::program::{Inputs, Program, ProgramJudge, Reg, analyze, expr, parse_asm, parse_output};
use crate::render::Style;
use crate::render::program as render;

/// The most elements a buffer run reads: the files are read whole and held as columns
/// (2^26 elements of four f32 components are 1 GiB of files, 2 GiB of columns).
const MAX_ELEMENTS: u64 = 1 << 26;

/// What `op --asm` / `op --expr` was asked.
pub struct ProgramCommand {
    /// `--asm`.
    pub asm: Option<String>,
    /// `--expr`.
    pub expr: Option<String>,
    /// `--fmt`: f32, or f16 for 16-bit arithmetic.
    pub format: Format,
    /// `--rules`.
    pub rules: RuleSet,
    /// `--input REG=VALUES` (or NAME=VALUES for an expression).
    pub inputs: Vec<String>,
    /// `--output REG`.
    pub output: Option<String>,
    /// `--check R1,R2,...`.
    pub check: Option<String>,
    /// `--operands REG=FILE,...`.
    pub operands: Vec<PathBuf>,
    /// `--results FILE`.
    pub results: Option<PathBuf>,
    /// `--limit`: violations listed.
    pub limit: usize,
    /// The output style.
    pub style: Style,
}

/// The programs to bound, what the output register is and how inputs are named.
pub struct Prepared {
    /// The alternatives (one for `--asm`).
    pub programs: Vec<Program>,
    /// Who emits each alternative (`--expr`), or "as written".
    pub sources: Vec<String>,
    /// The text asked about.
    pub title: String,
    /// Variable names of `--expr` in register order (`v0` is the first).
    pub names: Vec<String>,
}

fn working_format(f: Format) -> anyhow::Result<FloatFormat> {
    match f {
        Format::Float(f) if crate::program::runs_in(&f) => Ok(f),
        other => anyhow::bail!("--asm and --expr work in f32 or f16 (not {})", other.name()),
    }
}

/// Splits `NAME=REST`.
fn named(text: &str, what: &str) -> anyhow::Result<(String, String)> {
    let (n, v) = text
        .split_once('=')
        .with_context(|| format!("{what} '{text}' is not NAME=VALUE"))?;
    Ok((n.trim().to_string(), v.to_string()))
}

/// Parses the program(s); `widths` gives each `--expr` variable's component count.
pub fn prepare(
    req: &ProgramCommand,
    format: FloatFormat,
    widths: &[(String, usize)],
) -> anyhow::Result<Prepared> {
    if let Some(text) = &req.asm {
        let p = parse_asm(text, format)?;
        return Ok(Prepared {
            programs: vec![p],
            sources: vec!["as written".into()],
            title: text.clone(),
            names: Vec::new(),
        });
    }
    let text = req.expr.as_deref().unwrap_or_default();
    let vars: Vec<(&str, usize)> = widths.iter().map(|(n, w)| (n.as_str(), *w)).collect();
    let (programs, sources) = expr::programs(text, &vars, format)?;
    Ok(Prepared {
        programs,
        sources,
        title: text.to_string(),
        names: widths.iter().map(|(n, _)| n.clone()).collect(),
    })
}

/// What the renderers say the answer is about.
fn query<'a>(req: &ProgramCommand, p: &'a Prepared, format: FloatFormat) -> render::Query<'a> {
    render::Query {
        title: &p.title,
        kind: if req.asm.is_some() { "asm" } else { "expr" },
        sources: &p.sources,
        format,
        rules: req.rules,
    }
}

/// Runs the command.
pub fn run(req: &ProgramCommand, out: &mut dyn Write) -> anyhow::Result<Exit> {
    let format = working_format(req.format)?;
    if !req.operands.is_empty() || req.results.is_some() {
        return run_buffers(req, format, out);
    }
    // Inputs: `v0=...` for assembly; for an expression, each NAME=... becomes v0, v1, ...
    let mut texts = Vec::new();
    let mut widths = Vec::new();
    for (k, t) in req.inputs.iter().enumerate() {
        let (name, values) = named(t, "--input")?;
        if req.expr.is_some() {
            widths.push((name, values.split(',').count()));
            texts.push(format!("v{k}={values}"));
        } else {
            texts.push(t.clone());
        }
    }
    let inputs = Inputs::parse(
        &texts.iter().map(String::as_str).collect::<Vec<_>>(),
        &format,
    )
    .map_err(|e| anyhow::anyhow!("--input: {e}"))?;
    let prepared = prepare(req, format, &widths)?;
    let requested = output_request(req)?;
    let (_, answers) = analyze(&prepared.programs, &inputs, requested, req.rules)?;
    let claims = match &req.check {
        None => None,
        Some(text) => Some(render::parse_claims(text, &format, answers.len())?),
    };
    let exit = render::answer(
        out,
        req.style,
        &query(req, &prepared, format),
        &answers,
        claims.as_deref(),
    )?;
    Ok(exit)
}

fn output_request(req: &ProgramCommand) -> anyhow::Result<Option<(Reg, Option<u8>)>> {
    match (&req.output, req.expr.is_some()) {
        (Some(_), true) => {
            anyhow::bail!("--output goes with --asm; an expression's result is its value")
        }
        (Some(o), false) => Ok(Some(
            parse_output(o).map_err(|e| anyhow::anyhow!("--output: {e}"))?,
        )),
        (None, true) => Ok(Some((expr::RESULT, None))),
        (None, false) => Ok(None),
    }
}

/// Reads a whole raw file of `bytes_per`-byte patterns, at most `limit` bytes, and says
/// whether it goes on past them (devices and FIFOs that never end, or a file longer than
/// the other buffers, cost no more than the limit).
fn read_patterns(
    path: &PathBuf,
    what: &str,
    bytes_per: usize,
    limit: u64,
) -> anyhow::Result<(Vec<u64>, bool)> {
    let name = crate::path_text::display_path(path);
    let mut file = std::fs::File::open(path).with_context(|| format!("{what} {name}"))?;
    let size = crate::io::regular_len(&file);
    let mut data = Vec::new();
    let longer = crate::io::read_at_most(&mut file, &mut data, limit, size)
        .with_context(|| format!("{what} {name}"))?;
    data.truncate(limit as usize);
    if !longer && data.len() % bytes_per != 0 {
        anyhow::bail!(
            "{what} {name}: {} bytes is not a whole number of {}-byte patterns",
            data.len(),
            bytes_per
        );
    }
    let patterns = data
        .chunks_exact(bytes_per)
        .map(|c| match bytes_per {
            2 => u16::from_le_bytes([c[0], c[1]]) as u64,
            _ => u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as u64,
        })
        .collect();
    Ok((patterns, longer))
}

fn run_buffers(
    req: &ProgramCommand,
    format: FloatFormat,
    out: &mut dyn Write,
) -> anyhow::Result<Exit> {
    let (Some(results), false) = (&req.results, req.operands.is_empty()) else {
        anyhow::bail!("--operands and --results go together: name both");
    };
    if req.check.is_some() || !req.inputs.is_empty() {
        anyhow::bail!(
            "with --operands the inputs and results come from the files; remove --input and --check"
        );
    }
    let bytes_per = (format.width() / 8) as usize;
    // REG=FILE for assembly; NAME.xyz=FILE for an expression (the letters give the
    // variable's width, one component without them). Each file is read whole, the
    // results first: an operand file is read no further than the results need.
    let mut files: Vec<(String, String)> = Vec::new();
    let mut names: Vec<(String, usize)> = Vec::new();
    for p in &req.operands {
        let text = p.to_string_lossy().to_string();
        let (name, path) = named(&text, "--operands")?;
        let (name, width) = match name.split_once('.') {
            Some((n, letters)) if req.expr.is_some() => {
                if letters.is_empty() || letters.len() > 4 || !"xyzw".starts_with(letters) {
                    anyhow::bail!(
                        "--operands '{text}': write the width as NAME.x, NAME.xy, NAME.xyz or NAME.xyzw"
                    );
                }
                (n.to_string(), letters.len())
            }
            _ => (name, 1),
        };
        names.push((name.clone(), width));
        files.push((name, path));
    }
    let prepared = prepare(req, format, &names)?;
    let judge = ProgramJudge::new(prepared.programs.clone(), output_request(req)?, req.rules)?;
    let outs = judge.output_names().len();
    let (result_data, longer) = read_patterns(
        results,
        "--results",
        bytes_per,
        MAX_ELEMENTS * outs as u64 * bytes_per as u64,
    )?;
    if longer {
        anyhow::bail!(
            "--results {}: more than {MAX_ELEMENTS} elements, the most one run judges",
            crate::path_text::display_path(results)
        );
    }
    if result_data.len() % outs != 0 {
        anyhow::bail!(
            "--results {}: {} patterns is not a whole number of elements of {outs} components",
            crate::path_text::display_path(results),
            result_data.len()
        );
    }
    let n = result_data.len() / outs;
    // Each input register's file holds its components interleaved, as many as the
    // program reads (x up to the highest one read).
    let mut columns: Vec<Vec<u64>> = Vec::new();
    let mut read: std::collections::HashMap<String, Vec<u64>> = std::collections::HashMap::new();
    for &(reg, c) in judge.input_components() {
        let width = judge
            .input_registers()
            .iter()
            .find(|(r, _)| *r == reg)
            .map(|&(_, w)| w)
            .unwrap_or(1);
        let key = if req.expr.is_some() {
            prepared
                .names
                .get(reg.index as usize)
                .cloned()
                .unwrap_or_default()
        } else {
            reg.to_string()
        };
        let (_, path) = files
            .iter()
            .find(|(name, _)| *name == key)
            .with_context(|| format!("--operands names no file for {key}"))?;
        if !read.contains_key(&key) {
            let expected = (n * width) as u64;
            let (data, longer) = read_patterns(
                &PathBuf::from(path),
                "--operands",
                bytes_per,
                expected * bytes_per as u64,
            )?;
            if longer || data.len() as u64 != expected {
                anyhow::bail!(
                    "--operands {path}: {} patterns where {n} elements of {width} components ({expected} patterns) go with --results",
                    if longer {
                        format!("more than {expected}")
                    } else {
                        data.len().to_string()
                    },
                );
            }
            read.insert(key.clone(), data);
        }
        let data = &read[&key];
        columns.push(data.iter().skip(c).step_by(width).copied().collect());
    }
    let res_cols: Vec<Vec<u64>> = (0..outs)
        .map(|j| result_data.iter().skip(j).step_by(outs).copied().collect())
        .collect();
    let ins: Vec<&[u64]> = columns.iter().map(Vec::as_slice).collect();
    let res: Vec<&[u64]> = res_cols.iter().map(Vec::as_slice).collect();
    let verdict = judge.judge(&ins, &res, req.limit)?;
    render::verdict(out, req.style, &query(req, &prepared, format), &verdict)?;
    Ok(if verdict.violate > 0 {
        Exit::Negative
    } else {
        Exit::Success
    })
}
