//! Helpers the benchmarks share; each bench uses the ones it needs.
#![allow(dead_code)]

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Best wall time of `runs` runs pushing `input` through `cmd args` (stdout and stderr
/// discarded). `accept` judges the exit code, so a run ending in a negative verdict
/// (exit 1) can still count.
pub fn piped(
    cmd: &str,
    args: &[&str],
    input: &[u8],
    runs: usize,
    accept: impl Fn(Option<i32>) -> bool,
) -> Duration {
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            let mut child = Command::new(cmd)
                .args(args)
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("spawn");
            let mut stdin = child.stdin.take().expect("stdin");
            let data = input.to_vec();
            let writer = std::thread::spawn(move || stdin.write_all(&data));
            let status = child.wait().expect("wait");
            writer.join().expect("writer").expect("write stdin");
            assert!(accept(status.code()), "{cmd} {args:?} failed: {status}");
            t.elapsed()
        })
        .min()
        .expect("at least one run")
}

/// xorshift64: the benchmarks' deterministic data.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// The best wall time of three runs of `f`, in process.
pub fn best(f: impl FnMut()) -> Duration {
    best_of(3, f)
}

/// The best wall time of `runs` runs of `f`, in process.
pub fn best_of(runs: usize, mut f: impl FnMut()) -> Duration {
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap()
}
