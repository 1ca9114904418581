//! A judged run: one instruction's lines handed over in blocks, in order, by whoever has
//! them (a device's chunks in `probe`, a harness's files in `op --operands`, numpy arrays
//! in Python's `check`), merged into one verdict, its map finished, ready for the
//! [`OpFindings`](crate::judge::OpFindings) every caller reports.

use crate::judge::error::JudgeError;
use crate::judge::instruction::Judge;
use crate::judge::slices::Column;
use crate::judge::verdict::{Options, Verdict, Violation};

/// Lines judged at once while every violation is passed on: a piece's violations (about
/// 100 bytes each, with their class) are all that is held, a few MiB even when every line
/// violates.
const STREAM_PIECE_LINES: usize = 1 << 14;

/// What a run keeps of its violations, and what it passes on as it goes.
#[derive(Clone, Copy, Debug, Default)]
pub struct Keep {
    /// The first violating lines by index kept in the verdict [`Run::finish`] returns
    /// (the counts are whole either way).
    pub list: usize,
    /// Pass every violating line to the block's sink (a log, a mask), not only the kept
    /// ones.
    pub stream: bool,
    /// Count where the error lies in the input range ([`crate::judge::map::ErrorMap`]).
    pub map: bool,
}

/// One instruction's run over blocks of lines: [`Run::block`] for each block in order,
/// then [`Run::finish`].
pub struct Run<'j> {
    judge: &'j Judge,
    keep: Keep,
    total: Verdict,
    listed: Vec<Violation>,
}

impl<'j> Run<'j> {
    /// A run of `judge` that keeps what `keep` says.
    pub fn new(judge: &'j Judge, keep: Keep) -> Run<'j> {
        Run {
            judge,
            keep,
            total: Verdict::default(),
            listed: Vec::new(),
        }
    }

    /// Judges a block whose first line is line `base` of the run. `sink` gets each
    /// violating line passed on (every one with [`Keep::stream`], else those kept), in
    /// index order, with a maker of its batch line (`OP ARG... = RESULT`, as `op` reads
    /// it); an error from `sink` ends the block.
    pub fn block<E: From<JudgeError>>(
        &mut self,
        operands: &[Column],
        results: Column,
        base: u64,
        mut sink: impl FnMut(&Violation, &dyn Fn() -> String) -> Result<(), E>,
    ) -> Result<(), E> {
        let (width, outputs) = (self.judge.arity().1, self.judge.outputs());
        let lines = self.judge.lines(operands, results)?;
        let piece = if self.keep.stream {
            rayon::current_num_threads().max(1) * STREAM_PIECE_LINES
        } else {
            lines.max(1)
        };
        for start in (0..lines).step_by(piece) {
            let end = (start + piece).min(lines);
            let cols: Vec<Column> = operands
                .iter()
                .map(|c| c.range(start * width..end * width))
                .collect();
            let res = results.range(start * outputs..end * outputs);
            let first = base + start as u64;
            let room = self.keep.list.saturating_sub(self.listed.len());
            let opts = Options {
                base: first,
                violation_limit: if self.keep.stream { usize::MAX } else { room },
                map: self.keep.map,
                ..Options::default()
            };
            let mut verdict = self.judge.run(&cols, res, &opts)?;
            let violations = std::mem::take(&mut verdict.violations);
            for v in &violations {
                let line = || {
                    self.judge
                        .batch_line(&cols, res, (v.index - first) as usize)
                };
                sink(v, &line)?;
            }
            self.listed.extend(violations.into_iter().take(room));
            self.total.merge(verdict, 0);
        }
        Ok(())
    }

    /// The whole run's verdict: the kept violations, and the map (when counted) with the
    /// allowed bound at each cell.
    pub fn finish(self) -> Verdict {
        let mut total = self.total;
        if let Some(m) = &mut total.map {
            m.fill_bounds(self.judge);
        }
        total.violations = self.listed;
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::d3d::RuleSet;
    use crate::format::F32;
    use crate::judge::slices::Buffer;

    /// `mul` of 3000 lines, every seventh result a few ULPs off and one a denormal: the
    /// run's verdict whatever the blocks it is handed in.
    fn run_in_blocks(block: usize, keep: Keep) -> (Verdict, Vec<(u64, String)>) {
        let judge = Judge::parse("mul", &F32, RuleSet::D3D11).unwrap();
        let n = 3000u32;
        let a: Vec<u32> = (0..n)
            .map(|i| (1.0f32 + i as f32 / 7.0).to_bits())
            .collect();
        let b: Vec<u32> = (0..n)
            .map(|i| (3.0f32 - i as f32 / 5000.0).to_bits())
            .collect();
        let mut r: Vec<u32> = a
            .iter()
            .zip(&b)
            .map(|(&x, &y)| (f32::from_bits(x) * f32::from_bits(y)).to_bits())
            .collect();
        for (i, w) in r.iter_mut().enumerate() {
            if i % 7 == 3 {
                *w += (i % 5) as u32;
            }
        }
        r[10] = 1; // a denormal result
        let mut run = Run::new(&judge, keep);
        let mut streamed = Vec::new();
        for start in (0..n as usize).step_by(block) {
            let end = (start + block).min(n as usize);
            let a = Buffer::U32(a[start..end].to_vec());
            let b = Buffer::U32(b[start..end].to_vec());
            let r = Buffer::U32(r[start..end].to_vec());
            run.block(
                &[a.column(), b.column()],
                r.column(),
                start as u64,
                |v, line| {
                    streamed.push((v.index, line()));
                    Ok::<(), JudgeError>(())
                },
            )
            .unwrap();
        }
        (run.finish(), streamed)
    }

    #[test]
    fn a_run_gives_one_verdict_whatever_its_blocks() {
        for keep in [
            Keep {
                list: 5,
                stream: false,
                map: true,
            },
            Keep {
                list: 0,
                stream: true,
                map: false,
            },
            Keep {
                list: 10_000,
                stream: true,
                map: true,
            },
        ] {
            let (whole, whole_streamed) = run_in_blocks(3000, keep);
            assert!(whole.violate > 300, "{whole:?}");
            assert_eq!(
                whole.violations.len(),
                keep.list.min(whole.violate as usize)
            );
            if keep.stream {
                assert_eq!(whole_streamed.len() as u64, whole.violate);
            } else {
                assert_eq!(whole_streamed.len(), whole.violations.len());
            }
            for block in [1, 64, 999, 1024] {
                let (parts, streamed) = run_in_blocks(block, keep);
                assert_eq!(parts, whole, "blocks of {block}");
                assert_eq!(streamed, whole_streamed, "blocks of {block}");
            }
        }
        // The streamed lines are what `op` reads back, with the line's own index.
        let (v, streamed) = run_in_blocks(
            100,
            Keep {
                list: 1,
                stream: true,
                map: false,
            },
        );
        assert_eq!(streamed[0].0, v.violations[0].index);
        assert!(streamed[0].1.starts_with("mul 0x"), "{}", streamed[0].1);
    }
}
