//! Whole-process benchmarks of the CLI (issue 2): one-shot start-up against a process that
//! does nothing, and stdin throughput of `decode --plain` / `encode --plain` against `cat`
//! moving the same bytes through the same pipes. Run with `cargo bench --bench cli`.
//!
//! Figures are printed as absolute numbers and as ratios to the baselines measured in the
//! same run, since the machines this runs on are noisy.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;

const BIN: &str = env!("CARGO_BIN_EXE_d3dfloat");

/// Median wall time of `runs` spawns of `cmd args`, stdout discarded.
fn one_shot(cmd: &str, args: &[&str], runs: usize) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            let status = Command::new(cmd)
                .args(args)
                .stdout(Stdio::null())
                .status()
                .expect("spawn");
            assert!(status.success(), "{cmd} {args:?} failed");
            t.elapsed()
        })
        .collect();
    times.sort();
    times[runs / 2]
}

/// A deterministic xorshift stream, so every run sees the same inputs.
fn lines(n: usize, mut make: impl FnMut(u64) -> String) -> Vec<u8> {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut out = String::with_capacity(n * 12);
    for _ in 0..n {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        out.push_str(&make(state));
        out.push('\n');
    }
    out.into_bytes()
}

fn main() {
    // Cargo passes --bench; nothing else to parse.
    let runs = 200;
    let bare = one_shot("true", &[], runs);
    let decode = one_shot(BIN, &["decode", "--fmt", "f11", "0x7c0"], runs);
    let decode_plain = one_shot(
        BIN,
        &["decode", "--fmt", "f32", "--plain", "0x3f800001"],
        runs,
    );
    println!("one-shot start-up (median of {runs} spawns)");
    println!("  true (does nothing)           {:>8.3} ms", ms(bare));
    println!(
        "  decode --fmt f11 0x7c0        {:>8.3} ms  (+{:.3} ms over the bare process)",
        ms(decode),
        ms(decode) - ms(bare)
    );
    println!(
        "  decode --plain 0x3f800001     {:>8.3} ms  (+{:.3} ms over the bare process)",
        ms(decode_plain),
        ms(decode_plain) - ms(bare)
    );

    let n = 1_000_000;
    let cases: Vec<(&str, Vec<&str>, Vec<u8>)> = vec![
        (
            "decode --fmt f32 --plain",
            vec!["decode", "--fmt", "f32", "--plain"],
            lines(n, |r| format!("0x{:08x}", r as u32)),
        ),
        (
            "decode --fmt f16 --plain",
            vec!["decode", "--fmt", "f16", "--plain"],
            lines(n, |r| format!("0x{:04x}", r as u16)),
        ),
        (
            "encode --fmt f32 --plain",
            vec!["encode", "--fmt", "f32", "--plain"],
            lines(n, |r| {
                format!("{}", (r >> 11) as f64 / (1u64 << 40) as f64 - 2048.0)
            }),
        ),
        (
            "encode --fmt f16 --plain",
            vec!["encode", "--fmt", "f16", "--plain"],
            lines(n, |r| {
                format!("{:.6}", (r >> 11) as f64 / (1u64 << 40) as f64)
            }),
        ),
        (
            "encode --fmt f16 --rounding d3d --plain",
            vec!["encode", "--fmt", "f16", "--rounding", "d3d", "--plain"],
            lines(n, |r| {
                format!("{:.6}", (r >> 11) as f64 / (1u64 << 40) as f64)
            }),
        ),
    ];
    println!("\nstdin throughput, {n} lines (best of 3)");
    for (name, args, input) in &cases {
        let cat = common::piped("cat", &[], input, 3, |c| c == Some(0));
        let t = common::piped(BIN, args, input, 3, |c| c == Some(0));
        println!(
            "  {name:<40} {:>6.2} M lines/s  ({:.3} s; cat moves the same input in {:.3} s)",
            n as f64 / t.as_secs_f64() / 1e6,
            t.as_secs_f64(),
            cat.as_secs_f64()
        );
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
