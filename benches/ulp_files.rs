//! `ulp-diff --files` throughput (issue 4): two 256 MiB f32 buffers with a few scattered
//! differences, compared by the release binary, against `cat` reading the same two files
//! (to /dev/null) in the same run. (`cmp -l` is no baseline: GNU cmp stops at the first
//! difference when its output is /dev/null.) Run with
//! `cargo bench --bench ulp_files`. The files go to the temp directory and are removed at
//! the end (also when a step fails).
//!
//! Figures: wall time (best of three), throughput in bytes of both files per second, and the
//! same per buffer (one buffer's bytes per second: the figure the 1 GB/s target refers to).

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_d3dfloat");
const BYTES: usize = 256 << 20;

/// Removes the files when dropped.
struct Scratch(Vec<PathBuf>);
impl Drop for Scratch {
    fn drop(&mut self) {
        for p in &self.0 {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// Best-of-three wall time of `cmd args` with stdout discarded; `ok` checks the exit code.
fn best_of_three(cmd: &str, args: &[&str], ok: impl Fn(Option<i32>) -> bool) -> Duration {
    (0..3)
        .map(|_| {
            let t = Instant::now();
            let status = Command::new(cmd)
                .args(args)
                .stdout(Stdio::null())
                .status()
                .expect("spawn");
            assert!(ok(status.code()), "{cmd} {args:?}: {status}");
            t.elapsed()
        })
        .min()
        .expect("three runs")
}

fn main() {
    let dir = std::env::temp_dir();
    let pid = std::process::id();
    let expected = dir.join(format!("d3dfloat-bench-{pid}-expected.f32"));
    let actual = dir.join(format!("d3dfloat-bench-{pid}-actual.f32"));
    let _scratch = Scratch(vec![expected.clone(), actual.clone()]);

    // Plausible shader output: values in [0, 1024) with 16 random low bits, no NaN; the
    // actual buffer differs from the expected one in 1000 places by 1 to 8 ULPs.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut e = Vec::with_capacity(BYTES);
    for _ in 0..BYTES / 4 {
        let v = (next() >> 40) as f32 / 16384.0;
        e.extend_from_slice(&v.to_le_bytes());
    }
    let mut a = e.clone();
    for _ in 0..1000 {
        let i = (next() as usize % (BYTES / 4)) * 4;
        let w = u32::from_le_bytes(a[i..i + 4].try_into().unwrap());
        let w = w.wrapping_add(1 + (next() % 8) as u32);
        a[i..i + 4].copy_from_slice(&w.to_le_bytes());
    }
    for (path, bytes) in [(&expected, &e), (&actual, &a)] {
        let mut f = std::fs::File::create(path).expect("create");
        f.write_all(bytes).expect("write");
    }
    drop((e, a));
    let (pe, pa) = (expected.to_str().unwrap(), actual.to_str().unwrap());

    let ulp = best_of_three(
        BIN,
        &["ulp-diff", "--plain", "--max", "16", "--files", pe, pa],
        |c| c == Some(0),
    );
    let cat = best_of_three("cat", &[pe, pa], |c| c == Some(0));

    let gbs = |t: Duration, bytes: usize| bytes as f64 / t.as_secs_f64() / 1e9;
    println!("ulp-diff --files on two {} MiB f32 buffers", BYTES >> 20);
    for (name, t) in [("d3dfloat ulp-diff", ulp), ("cat (read both)", cat)] {
        println!(
            "  {name:<18} {:>8.1} ms  {:>6.2} GB/s both files  {:>6.2} GB/s per buffer",
            t.as_secs_f64() * 1e3,
            gbs(t, 2 * BYTES),
            gbs(t, BYTES)
        );
    }
    println!(
        "  ratio: ulp-diff takes {:.2}x the time of cat",
        ulp.as_secs_f64() / cat.as_secs_f64()
    );
}
