//! `probe --exhaustive`: every input of an instruction. The device makes each chunk's
//! operands from the invocation index ([`Device::run_indexed`]), and each chunk's results
//! are judged on the other cores while the device computes the next one; at most two
//! chunks wait in memory, so a sweep of 2^32 lines needs a few tens of MiB.

use std::ops::Range;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::sync_channel;
use std::time::Instant;

use super::catalog::Kernel;
use super::judge::{OpReport, result_buffer_from};
use super::{Device, ProbeError, ProbeReport, Source};
use crate::d3d::RuleSet;
use crate::judge::{Buffer, Elem, Judge, Options, Verdict};
use crate::threads;

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
    /// [`OpReport::violations`] and handed to the caller's [`ViolationSink`] as lines
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

/// A judged chunk: its verdict, the seconds judging took, and the results' vector when it
/// can be used again.
type Judged = (Verdict, f64, Option<Vec<u32>>);

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
) -> Result<ProbeReport, ProbeError> {
    // Locked by whichever thread judges (one at a time: the judge thread, or this one).
    let sink = sink.map(Mutex::new);
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
            ops.push(OpReport::skipped(k, reason));
            continue;
        }
        let Some(range) = req.range_of(k) else {
            ops.push(OpReport::skipped(
                k,
                "no exhaustive sweep (only one-operand instructions and pairs of f16 operands)"
                    .into(),
            ));
            continue;
        };
        if partial {
            ops.push(OpReport::skipped(k, "interrupted before it ran".into()));
            continue;
        }
        if range.is_empty() {
            ops.push(OpReport::skipped(
                k,
                format!(
                    "--range starts past the end of its sweep ({} inputs)",
                    k.sweep().unwrap_or(0)
                ),
            ));
            continue;
        }
        let judge = Judge::new(k.op, k.format, req.rules);
        // Violating lines still to keep for this instruction.
        let room = Mutex::new(req.violation_limit);
        // The operand buffers, filled anew for each chunk by the thread that judges it.
        let operand_store = Mutex::new(Vec::new());
        // Judges one chunk of results: its verdict, the seconds it took, and the words'
        // vector when it can hold the next chunk (see `spare` below).
        let judge_chunk = |base: u64, words: Vec<u32>| -> Result<Judged, ProbeError> {
            let t = Instant::now();
            let n = words.len() / k.output_words();
            let mut operands = operand_store.lock().unwrap_or_else(|e| e.into_inner());
            fill_operands(k, &judge, base, n, &mut operands);
            let cols: Vec<_> = operands.iter().map(Buffer::column).collect();
            let results = result_buffer_from(k, &judge, words);
            let mut room = room.lock().unwrap_or_else(|e| e.into_inner());
            let opts = Options {
                base,
                violation_limit: *room,
                map: req.map,
                ..Options::default()
            };
            let v = judge.run(&cols, results.column(), &opts).map_err(|e| {
                ProbeError::Device(format!("{}: the op engine refused a line: {e}", k.name))
            })?;
            *room -= v.violations.len();
            if let Some(sink) = &sink {
                let mut sink = sink.lock().unwrap_or_else(|e| e.into_inner());
                for viol in &v.violations {
                    let line =
                        judge.batch_line(&cols, results.column(), (viol.index - base) as usize);
                    sink(k, viol.index, &line);
                }
            }
            let spare = match results {
                Buffer::U32(words) => Some(words),
                _ => None,
            };
            Ok((v, t.elapsed().as_secs_f64(), spare))
        };
        let (tx, rx) = sync_channel::<(u64, Vec<u32>)>(1);
        // Judged chunks' vectors go back to the device loop, which copies the next results
        // into one rather than into a new vector the system must zero (a sixth of the
        // device's time on lavapipe).
        let (spare_tx, spare_rx) = std::sync::mpsc::channel::<Vec<u32>>();
        let swept = std::thread::scope(|s| {
            // A judge thread beside the device when the system allows one; otherwise each
            // chunk is judged here, between dispatches. It judges in a pool of its own: this
            // thread is one of the run's pool, and while it waits on the device no judging
            // loop could use it (the judge had one core of two on lavapipe).
            let judging = threads::side_threads_allowed()
                .then(|| {
                    threads::spawn_scoped(s, "probe-judge", move || {
                        let judge_all = || -> Result<(Verdict, f64), ProbeError> {
                            let mut total = Verdict::default();
                            let mut busy = 0.0;
                            for (base, words) in rx {
                                let (v, seconds, spare) = judge_chunk(base, words)?;
                                total.merge(v, usize::MAX);
                                busy += seconds;
                                if let Some(words) = spare {
                                    // The device loop may have ended: the vector is freed.
                                    let _ = spare_tx.send(words);
                                }
                            }
                            Ok((total, busy))
                        };
                        match judge_pool {
                            Some(pool) => pool.install(judge_all),
                            None => threads::install(judge_all),
                        }
                    })
                })
                .flatten();
            let mut inline = (Verdict::default(), 0.0);
            let mut base = range.start;
            let mut failed = None;
            let mut device_time = 0.0;
            while base < range.end && !stop.load(Ordering::Relaxed) {
                let n = CHUNK_LINES.min(range.end - base) as usize;
                let t = Instant::now();
                let mut words = spare_rx.try_recv().unwrap_or_default();
                let ran = device
                    .run_indexed_into(k, base, n, &mut words)
                    .map(|()| words);
                device_time += t.elapsed().as_secs_f64();
                match ran {
                    Ok(words) if words.len() == n * k.output_words() => {
                        if judging.is_none() {
                            match judge_chunk(base, words) {
                                Ok((v, seconds, _)) => {
                                    inline.0.merge(v, usize::MAX);
                                    inline.1 += seconds;
                                }
                                Err(e) => {
                                    failed = Some(e);
                                    break;
                                }
                            }
                        } else if tx.send((base, words)).is_err() {
                            break; // the judge stopped on an error it will report
                        }
                    }
                    Ok(words) => {
                        failed = Some(ProbeError::Device(format!(
                            "{}: the device returned {} words for {n} lines",
                            k.name,
                            words.len()
                        )));
                        break;
                    }
                    Err(e) => {
                        failed = Some(e);
                        break;
                    }
                }
                base += n as u64;
                progress(done + base - range.start, total);
            }
            drop(tx);
            let judged = match judging {
                Some(thread) => thread.join().expect("the judging thread does not panic"),
                None => Ok(inline),
            };
            match failed {
                Some(e) => Err(e),
                None => {
                    judged.map(|(v, judge_time)| (v, base - range.start, device_time, judge_time))
                }
            }
        });
        let (verdict, ran, device_seconds, judge_seconds) = match swept {
            Err(ProbeError::Translator(why)) => {
                ops.push(OpReport::skipped(k, why));
                continue;
            }
            r => r?,
        };
        done += ran;
        partial = ran < range.end - range.start;
        let mut verdict = verdict;
        if let Some(m) = &mut verdict.map {
            m.fill_bounds(&judge);
        }
        let report = OpReport {
            via: k.via,
            violations: std::mem::take(&mut verdict.violations),
            exhaustive: Some(super::judge::Sweep {
                histogram: verdict.histogram.clone(),
                complete: !partial,
                device_seconds,
                judge_seconds,
            }),
            ..OpReport::judged(k.name, k.format_label(), k.family, &verdict)
        };
        ops.push(report);
    }
    Ok(ProbeReport {
        source: Source::Device(device.info().clone()),
        rules: req.rules,
        ops,
        seconds: start.elapsed().as_secs_f64(),
        partial,
    })
}
