//! `probe --exhaustive`: every input of an instruction. The device makes each chunk's
//! operands from the invocation index ([`Device::run_indexed`]), and each chunk's results
//! are judged on the other cores while the device computes the next one; at most two
//! chunks wait in memory, so a sweep of 2^32 lines needs a few tens of MiB.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use super::catalog::Kernel;
use super::results::{engine_refused, result_buffer_from, skipped};
use super::{Device, ProbeError};
use crate::d3d::RuleSet;
use crate::judge::{
    Buffer, Elem, Findings, Judge, JudgeError, Keep, OpFindings, Run, Source, Sweep,
};
use crate::threads::{self, Stage};

/// Lines per dispatch: 2^21 lines is 32,768 workgroups of 64 (2,048 of 1024), inside the
/// 65,535 every Vulkan device allows in one dimension, and 8 or 16 MiB of results.
pub const CHUNK_LINES: u64 = 1 << 21;

/// What an exhaustive probe was asked.
#[derive(Clone, Debug)]
pub struct SweepRequest {
    /// The instructions; those without a sweep ([`Kernel::sweep`]) are reported skipped.
    pub kernels: Vec<Kernel>,
    /// The rule set results are judged by.
    pub rules: RuleSet,
    /// Only these lines of each sweep (`--first N` is `0..N`, `--range` any slice, a
    /// binade say), cut at the sweep's end; every line when `None`. A line's index is its
    /// operand pattern, or for two f16 operands `a << 16 | b`.
    pub range: Option<Range<u64>>,
    /// Count where the error lies in the input range (for `--report`).
    pub map: bool,
    /// Violating lines kept per instruction, the first by index: listed in each
    /// [`OpFindings::violations`] and handed to the caller's [`ViolationSink`] as lines
    /// `op` reads (0: none; the counts are whole either way).
    pub violation_limit: usize,
}

/// Where a sweep's violating lines go as they are judged (`probe --exhaustive --violations
/// FILE`): the instruction, the line's index in the sweep and the line as `OP ARG... =
/// RESULT`. Called in index order, from the thread that judges, so memory stays bounded
/// whatever the count; a sink that cannot write keeps its error for its owner to report.
pub type ViolationSink<'a> = dyn FnMut(&Kernel, u64, &str) + Send + 'a;

impl SweepRequest {
    /// Lines the whole request runs (for a progress bar).
    pub fn total_lines(&self, device: &dyn Device) -> u64 {
        self.kernels
            .iter()
            .filter(|k| device.unsupported(k).is_none())
            .filter_map(|k| self.lines_of(k))
            .sum()
    }

    fn lines_of(&self, k: &Kernel) -> Option<u64> {
        let r = self.range_of(k)?;
        Some(r.end - r.start)
    }

    /// The lines of `k`'s sweep to run (empty when the range starts past its end).
    fn range_of(&self, k: &Kernel) -> Option<Range<u64>> {
        let all = k.sweep()?;
        Some(match &self.range {
            Some(r) => r.start.min(all)..r.end.min(all).max(r.start.min(all)),
            None => 0..all,
        })
    }
}

/// Fills `bufs` with the operands of a chunk of a sweep, made as the shader makes them,
/// reusing their storage from the chunk before (a new vector each chunk was a page fault
/// per 4 KiB, and the per-line pattern closure a tenth of a cheap instruction's judging).
fn fill_operands(k: &Kernel, judge: &Judge, base: u64, lines: usize, bufs: &mut Vec<Buffer>) {
    let elem = Elem::of(&judge.operand_domain());
    bufs.resize_with(k.operands, || Buffer::zeroed(elem, 0));
    for (j, buf) in bufs.iter_mut().enumerate() {
        if k.operands == 1 {
            // One operand: the pattern is the line's index.
            buf.refill(elem, lines, |i| base + i as u64);
        } else {
            buf.refill(elem, lines, |i| {
                u64::from(k.sweep_words(base + i as u64)[j])
            });
        }
    }
}

/// Runs every sweep of the request; `progress(lines done, lines in all)` after each chunk.
/// When `stop` turns true (Ctrl-C), the chunk in hand is judged, the run ends and the
/// report, marked partial, holds what was judged.
pub fn run_exhaustive(
    device: &mut dyn Device,
    req: &SweepRequest,
    progress: &mut dyn FnMut(u64, u64),
    stop: &AtomicBool,
    sink: Option<&mut ViolationSink>,
) -> Result<Findings, ProbeError> {
    // Locked by whichever thread judges (one at a time: the judge thread, or this one).
    let mut sink = sink;
    let start = Instant::now();
    let total = req.total_lines(device);
    let mut done = 0u64;
    let mut ops = Vec::new();
    let mut partial = false;
    // The judges' pool, made once for every instruction of the run (see below).
    let judge_pool = threads::side_threads_allowed()
        .then(threads::side_pool)
        .flatten();
    let judge_pool = judge_pool.as_ref();
    for k in &req.kernels {
        if let Some(reason) = device.unsupported(k) {
            ops.push(skipped(k, reason));
            continue;
        }
        let Some(range) = req.range_of(k) else {
            ops.push(skipped(
                k,
                "no exhaustive sweep (only one-operand instructions and pairs of f16 operands)"
                    .into(),
            ));
            continue;
        };
        if partial {
            ops.push(skipped(k, "interrupted before it ran".into()));
            continue;
        }
        if range.is_empty() {
            ops.push(skipped(
                k,
                format!(
                    "--range starts past the end of its sweep ({} inputs)",
                    k.sweep().unwrap_or(0)
                ),
            ));
            continue;
        }
        let judge = Judge::new(k.op, k.format, req.rules);
        let keep = Keep {
            list: req.violation_limit,
            stream: false,
            map: req.map,
        };
        let mut run = Run::new(&judge, keep);
        // The operand buffers, filled anew for each chunk by the thread that judges it.
        let mut operands = Vec::new();
        let mut judge_seconds = 0.0;
        // Judges one chunk of results; hands back the words' vector when it can hold the
        // next chunk (a new vector each chunk was a sixth of the device's time on lavapipe:
        // the system zeroes its pages).
        let mut judge_chunk =
            |(base, words): (u64, Vec<u32>)| -> Result<Option<Vec<u32>>, ProbeError> {
                let t = Instant::now();
                let n = words.len() / k.output_words();
                fill_operands(k, &judge, base, n, &mut operands);
                let cols: Vec<_> = operands.iter().map(Buffer::column).collect();
                let results = result_buffer_from(k, &judge, words);
                // The violations kept go to the sink, as lines `op` reads.
                let judged = run.block(&cols, results.column(), base, |v, line| {
                    if let Some(sink) = &mut sink {
                        sink(k, v.index, &line());
                    }
                    Ok::<(), JudgeError>(())
                });
                judged.map_err(|e| engine_refused(k, e))?;
                judge_seconds += t.elapsed().as_secs_f64();
                Ok(match results {
                    Buffer::U32(words) => Some(words),
                    _ => None,
                })
            };
        // On the judges' pool when there is one: the device loop below waits on each
        // dispatch on a thread of the run's pool, which the judge's loops would then not
        // get (the judge had one core of two on lavapipe).
        let judge_in_pool = move |item| match judge_pool {
            Some(pool) => pool.install(|| judge_chunk(item)),
            None => threads::install(|| judge_chunk(item)),
        };
        let swept = std::thread::scope(|s| {
            // Each chunk is judged beside the device when the system allows a thread, or
            // here between dispatches.
            let mut judging = Stage::start(
                s,
                "probe-judge",
                1,
                threads::side_threads_allowed(),
                judge_in_pool,
            );
            let mut base = range.start;
            let mut failed = None;
            let mut device_time = 0.0;
            while base < range.end && !stop.load(Ordering::Relaxed) {
                let n = CHUNK_LINES.min(range.end - base) as usize;
                let t = Instant::now();
                let mut words = judging.try_recv().flatten().unwrap_or_default();
                let ran = device.run_indexed_into(k, base, n, &mut words);
                device_time += t.elapsed().as_secs_f64();
                if let Err(e) = ran {
                    failed = Some(e);
                    break;
                }
                if words.len() != n * k.output_words() {
                    failed = Some(ProbeError::Device(format!(
                        "{}: the device returned {} words for {n} lines",
                        k.name,
                        words.len()
                    )));
                    break;
                }
                if !judging.send((base, words)) {
                    break; // the judge stopped on an error it reports
                }
                base += n as u64;
                progress(done + base - range.start, total);
            }
            // The judge's error comes first: it is about an earlier chunk.
            judging.finish()?;
            match failed {
                Some(e) => Err(e),
                None => Ok((base - range.start, device_time)),
            }
        });
        let (ran, device_seconds) = match swept {
            Err(ProbeError::Translator(why)) => {
                ops.push(skipped(k, why));
                continue;
            }
            r => r?,
        };
        done += ran;
        partial = ran < range.end - range.start;
        let verdict = run.finish();
        ops.push(OpFindings {
            via: k.via,
            exhaustive: Some(Sweep {
                histogram: verdict.histogram.clone(),
                complete: !partial,
                device_seconds,
                judge_seconds,
            }),
            ..OpFindings::judged(k.name, k.format_label(), k.family, &verdict)
        });
    }
    Ok(Findings {
        source: Source::Device(device.info().clone()),
        rules: req.rules,
        ops,
        seconds: start.elapsed().as_secs_f64(),
        partial,
    })
}
