//! `op sqrt --operands x --results r` over 2^26 f32 lines (two 256 MiB files) by the
//! release binary on one core (`RAYON_NUM_THREADS=1`) and on every core, against `cat` of
//! the same two files to /dev/null in the same run (#27: at least 0.15x cat on one core).
//! The results are the CPU's square roots (correctly rounded, so they conform) with one in
//! 4096 nudged by a bit. Run with `cargo bench --bench op_files` (`-- N` sets the lines).
//! The files go to the temp directory and are removed at the end.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_d3dfloat");

struct Scratch(Vec<PathBuf>);
impl Drop for Scratch {
    fn drop(&mut self) {
        for p in &self.0 {
            let _ = std::fs::remove_file(p);
        }
    }
}

fn best_of_three(cmd: &str, args: &[&str], env: &[(&str, &str)]) -> Duration {
    (0..3)
        .map(|_| {
            let t = Instant::now();
            let status = Command::new(cmd)
                .args(args)
                .envs(env.iter().copied())
                .stdout(Stdio::null())
                .status()
                .expect("spawn");
            assert!(
                matches!(status.code(), Some(0 | 1)),
                "{cmd} {args:?}: {status}"
            );
            t.elapsed()
        })
        .min()
        .expect("three runs")
}

fn main() {
    let lines: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(1 << 26);
    let dir = std::env::temp_dir();
    let pid = std::process::id();
    let x = dir.join(format!("d3dfloat-bench-{pid}-x.f32"));
    let r = dir.join(format!("d3dfloat-bench-{pid}-r.f32"));
    let _scratch = Scratch(vec![x.clone(), r.clone()]);
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut xs = Vec::with_capacity(lines * 4);
    let mut rs = Vec::with_capacity(lines * 4);
    for i in 0..lines {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let v = f32::from_bits(
            ((state >> 40) as u32 & 0x7f_ffff) | ((100 + (state % 50) as u32) << 23),
        );
        let mut root = v.sqrt().to_bits();
        if i % 4096 == 0 {
            root ^= 1 << 3;
        }
        xs.extend_from_slice(&v.to_le_bytes());
        rs.extend_from_slice(&root.to_le_bytes());
    }
    std::fs::write(&x, &xs).unwrap();
    std::fs::write(&r, &rs).unwrap();
    drop((xs, rs));
    let (xa, ra) = (x.to_str().unwrap(), r.to_str().unwrap());
    let cat = best_of_three("cat", &[xa, ra], &[]);
    let args = ["op", "sqrt", "--operands", xa, "--results", ra, "--plain"];
    let one = best_of_three(BIN, &args, &[("RAYON_NUM_THREADS", "1")]);
    let all = best_of_three(BIN, &args, &[]);
    let bytes = (lines * 8) as f64;
    let show = |name: &str, d: Duration| {
        println!(
            "{name:<28} {:>7.3} s  {:>7.1} M lines/s  {:>6.2} GB/s  {:.2}x cat",
            d.as_secs_f64(),
            lines as f64 / d.as_secs_f64() / 1e6,
            bytes / d.as_secs_f64() / 1e9,
            cat.as_secs_f64() / d.as_secs_f64()
        );
    };
    println!("{lines} sqrt lines, best of three each");
    show("cat x r > /dev/null", cat);
    show("op --operands, one core", one);
    show("op --operands, every core", all);
}
