//! `op OP --operands A.bin[,B.bin[,C.bin]] --results R.bin`: whole buffers a harness read
//! back, judged in blocks through the library's judge over slices, reported as `probe`
//! reports one instruction.

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, bail};

use super::Exit;
use crate::d3d::RuleSet;
use crate::format::FloatFormat;
use crate::io::read_full;
use crate::judge::{Buffer, Elem, Family, Findings, Judge, Keep, OpFindings, Run, Source};
use crate::output_file::OutputFile;
use crate::render::probe::ProbeRenderer;
use crate::threads::Stage;

/// What `op --operands` was asked.
pub struct BufferCommand {
    /// The instruction's name.
    pub op: String,
    /// `--fmt`.
    pub format: FloatFormat,
    /// `--rules`.
    pub rules: RuleSet,
    /// `--operands`: one file per source operand.
    pub operands: Vec<PathBuf>,
    /// `--results`.
    pub results: PathBuf,
    /// `--violations FILE`.
    pub violations: Option<PathBuf>,
    /// `--list` (with `--limit N`): the first N violating lines by index in the report.
    pub list: Option<usize>,
    /// `--report FILE.html`, with what the page says of the run.
    pub report: Option<(PathBuf, crate::render::report::Meta)>,
}

/// Lines judged per block: memory stays at a few MiB per file whatever the buffers' size.
const BLOCK_LINES: usize = 1 << 20;

/// One input file: its name as typed, the reader, the bytes one line takes, and what it
/// holds.
struct BufferFile {
    name: String,
    file: File,
    elem: Elem,
    per_line: usize,
    bytes: u64,
    /// A regular file's size when it was opened: a file that ends sooner or goes on
    /// longer changed during the run, and the error names it (not the file it then
    /// disagrees with).
    opened_len: Option<u64>,
}

impl BufferFile {
    fn open(path: &Path, elem: Elem, per_line: usize, what: &str) -> anyhow::Result<BufferFile> {
        let name = crate::path_text::display_path(path);
        let file = File::open(path).with_context(|| format!("{what} {name}"))?;
        let opened_len = crate::io::regular_len(&file);
        Ok(BufferFile {
            name,
            file,
            elem,
            per_line,
            bytes: 0,
            opened_len,
        })
    }

    /// The size of a regular file (devices, FIFOs and stdin tell theirs only at the end).
    fn known_len(&self) -> Option<u64> {
        self.opened_len
    }

    fn line_bytes(&self) -> u64 {
        (self.per_line * self.elem.bytes()) as u64
    }

    /// Reads up to `lines` lines into `buf` (its storage kept from block to block);
    /// returns the whole lines read and the bytes.
    fn read(&mut self, buf: &mut Buffer, lines: usize) -> anyhow::Result<(usize, usize)> {
        buf.reset(self.elem, lines * self.per_line);
        let got = read_full(&mut self.file, buf.bytes_mut())
            .with_context(|| format!("reading {}", self.name))?;
        self.bytes += got as u64;
        if let Some(len) = self.opened_len {
            let ended = got < buf.bytes_mut().len();
            if self.bytes > len || (ended && self.bytes < len) {
                bail!(
                    "{} changed while it was read: {len} bytes when it was opened, {} after {} \
                     bytes",
                    self.name,
                    if self.bytes > len {
                        "still going"
                    } else {
                        "its end"
                    },
                    self.bytes
                );
            }
        }
        buf.truncate(got / self.elem.bytes());
        buf.from_le();
        Ok((got / self.line_bytes() as usize, got))
    }
}

/// One block of lines: a slice per operand and the results, reused from block to block.
#[derive(Default)]
struct Block {
    operands: Vec<Buffer>,
    results: Buffer,
    /// The index of the block's first line in the buffers.
    base: u64,
    lines: usize,
}

/// Reads the block of lines that starts at line `base`, checking that every file holds
/// them; at the first operand's end, that no other file holds more.
fn read_block(
    inputs: &mut [BufferFile],
    results: &mut BufferFile,
    mut block: Block,
    base: u64,
) -> anyhow::Result<Block> {
    let (first, rest) = inputs.split_first_mut().expect("one operand at least");
    block.operands.resize_with(rest.len() + 1, Buffer::default);
    let (lines, first_bytes) = first.read(&mut block.operands[0], BLOCK_LINES)?;
    if first_bytes % first.line_bytes() as usize != 0 {
        return Err(partial(first, first.bytes));
    }
    let seen = base + lines as u64;
    let others = rest.iter_mut().chain(std::iter::once(&mut *results));
    let buffers = block.operands[1..]
        .iter_mut()
        .chain(std::iter::once(&mut block.results));
    for (f, buf) in others.zip(buffers) {
        let (_, got) = f.read(buf, lines)?;
        if got != lines * f.line_bytes() as usize {
            return Err(mismatch(f, f.bytes, &first.name, first.bytes, seen));
        }
    }
    block.base = base;
    block.lines = lines;
    if lines < BLOCK_LINES {
        // The first operand is done: every other file must be done too.
        for f in rest.iter_mut().chain(std::iter::once(results)) {
            let mut probe = [0u8; 1];
            if f.file
                .read(&mut probe)
                .with_context(|| format!("reading {}", f.name))?
                > 0
            {
                bail!(
                    "{} holds more than the {seen} lines of {} ({} bytes) need ({} bytes)",
                    f.name,
                    first.name,
                    first.bytes,
                    seen * f.line_bytes()
                );
            }
        }
    }
    Ok(block)
}

/// The error for files whose lengths disagree: the file and its length, and what the
/// first operand's length asks of it.
fn mismatch(
    f: &BufferFile,
    bytes: u64,
    first: &str,
    first_bytes: u64,
    lines: u64,
) -> anyhow::Error {
    anyhow::anyhow!(
        "{} holds {bytes} bytes where the {lines} lines of {} ({first_bytes} bytes) need {} \
         ({} bytes a line)",
        f.name,
        first,
        lines * f.line_bytes(),
        f.line_bytes()
    )
}

/// A file that ends inside a line.
fn partial(f: &BufferFile, bytes: u64) -> anyhow::Error {
    anyhow::anyhow!(
        "{} holds {bytes} bytes, not a whole number of {}-byte lines",
        f.name,
        f.line_bytes()
    )
}

/// Judges the buffers and renders the report; negative when any line violates.
pub fn run(
    req: &BufferCommand,
    r: &mut dyn ProbeRenderer,
    out: &mut dyn Write,
) -> anyhow::Result<Exit> {
    let start = Instant::now();
    let judge = Judge::parse(&req.op, &req.format, req.rules)
        .map_err(|e| anyhow::anyhow!("{e} (see `d3dfloat op --help` for the list)"))?;
    let (count, width) = judge.arity();
    if req.operands.len() != count {
        bail!(
            "{} takes {count} operand{}, --operands names {} file{}",
            judge.name(),
            if count == 1 { "" } else { "s" },
            req.operands.len(),
            if req.operands.len() == 1 { "" } else { "s" }
        );
    }
    let in_elem = Elem::of(&judge.operand_domain());
    let mut inputs = req
        .operands
        .iter()
        .map(|p| BufferFile::open(p, in_elem, width, "--operands"))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut results = BufferFile::open(
        &req.results,
        judge.result_elem(),
        judge.outputs(),
        "--results",
    )?;
    // Regular files say their lengths now: refuse a mismatch before judging anything.
    if let Some(first_len) = inputs[0].known_len() {
        if first_len % inputs[0].line_bytes() != 0 {
            return Err(partial(&inputs[0], first_len));
        }
        let lines = first_len / inputs[0].line_bytes();
        for f in inputs.iter().skip(1).chain(std::iter::once(&results)) {
            if let Some(len) = f.known_len()
                && len != lines * f.line_bytes()
            {
                return Err(mismatch(f, len, &inputs[0].name, first_len, lines));
            }
        }
    }
    // No output may be a buffer being judged (stdout included), nor two outputs one file.
    let named: Vec<_> = req
        .operands
        .iter()
        .chain(std::iter::once(&req.results))
        .filter_map(|p| crate::output_file::InputIdentity::path(p))
        .collect();
    crate::output_file::refuse_stdout_is_input(&named)?;
    let shown = |flag: &str, p: &Path| format!("{flag} {}", crate::path_text::display_path(p));
    let outputs: Vec<(String, &Path)> = req
        .violations
        .iter()
        .map(|p| (shown("--violations", p), p.as_path()))
        .chain(
            req.report
                .iter()
                .map(|(p, _)| (shown("--report", p), p.as_path())),
        )
        .collect();
    crate::output_file::refuse_same_file(&outputs)?;
    let mut log = match &req.violations {
        Some(path) => Some(ViolationLog::create(path, &named)?),
        None => None,
    };
    let report_file = super::report::ReportFile::create_if(&req.report, &named)?;
    let map = report_file.is_some();
    // As named, for JSON; the human output and the page show them through path_text.
    let as_named = |p: &PathBuf| p.to_string_lossy().into_owned();
    let operand_names: Vec<String> = req.operands.iter().map(as_named).collect();
    let results_name = as_named(&req.results);
    let keep = Keep {
        list: req.list.unwrap_or(0),
        // With --violations every violating line is written as it is judged.
        stream: log.is_some(),
        map,
    };
    let mut run = Run::new(&judge, keep);
    let mut judge_block = |block: &Block| -> anyhow::Result<()> {
        let cols: Vec<_> = block.operands.iter().map(Buffer::column).collect();
        run.block(
            &cols,
            block.results.column(),
            block.base,
            |v, line| match &mut log {
                Some(log) => log.line(&format!("{}  # index {}", line(), v.index)),
                None => Ok(()),
            },
        )
    };
    // A reader stage fills the next block while this thread judges the last; judged
    // blocks go back to it to be filled again, so memory is two blocks whatever the
    // buffers' size.
    let mut next = 0u64;
    let read = |block: Block| -> anyhow::Result<Block> {
        let block = read_block(&mut inputs, &mut results, block, next)?;
        next += block.lines as u64;
        Ok(block)
    };
    std::thread::scope(|s| -> anyhow::Result<()> {
        let mut reader = Stage::start(s, "op-reader", 1, true, read);
        reader.send(Block::default());
        let mut spare = Block::default();
        let judged = (|| -> anyhow::Result<()> {
            while let Some(block) = reader.recv() {
                let last = block.lines < BLOCK_LINES;
                if !last {
                    reader.send(std::mem::take(&mut spare));
                }
                judge_block(&block)?;
                spare = block;
                if last {
                    break;
                }
            }
            Ok(())
        })();
        // A judging error is about an earlier block than the one being read.
        judged?;
        reader.finish()
    })?;
    if let Some(log) = log {
        log.finish()?;
    }
    let family = match judge.format().arithmetic {
        crate::format::Arithmetic::Float16 => Family::F16,
        crate::format::Arithmetic::Double => Family::F64,
        _ => Family::F32,
    };
    let verdict = run.finish();
    let findings = Findings {
        source: Source::Buffers {
            operands: operand_names,
            results: results_name,
        },
        rules: req.rules,
        ops: vec![OpFindings::judged(
            judge.name(),
            crate::probe::catalog::format_label(judge.op(), &judge.format()),
            family,
            &verdict,
        )],
        seconds: start.elapsed().as_secs_f64(),
        partial: false,
    };
    if let Some(f) = report_file {
        f.probe(&findings)?;
    }
    r.findings(out, &findings)?;
    Ok(if verdict.violate > 0 {
        Exit::Negative
    } else {
        Exit::Success
    })
}

/// `--violations FILE`: an output file ([`OutputFile`]), opened (and refused) before
/// anything is judged and replaced whole when the run completes.
struct ViolationLog {
    file: OutputFile,
}

impl ViolationLog {
    fn create(
        path: &Path,
        inputs: &[crate::output_file::InputIdentity],
    ) -> anyhow::Result<ViolationLog> {
        let file = OutputFile::create_apart(path, None, inputs).context("--violations")?;
        Ok(ViolationLog { file })
    }

    fn line(&mut self, line: &str) -> anyhow::Result<()> {
        writeln!(self.file, "{line}")
            .with_context(|| format!("--violations: writing {}", self.file.shown()))
    }

    fn finish(self) -> anyhow::Result<()> {
        self.file.commit().context("--violations")?;
        Ok(())
    }
}
