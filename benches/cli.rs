//! Whole-process benchmarks of the CLI (issue 2): one-shot start-up against a process that
//! does nothing, and stdin throughput of `decode --plain` / `encode --plain` against `cat`
//! moving the same bytes through the same pipes. Run with `cargo bench --bench cli`.
//!
//! Figures are printed as absolute numbers and as ratios to the baselines measured in the
//! same run, since the machines this runs on are noisy; the text cases also print the
//! in-process anchors (zmij's shortest decimal of the same f32 patterns, the standard
//! parser on the same decimals). `D3DFLOAT=path` times another build against them.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;

/// The binary under test: this build's, or `$D3DFLOAT` (to time another build, such as
/// the one before a change, against the same anchors).
fn bin() -> String {
    std::env::var("D3DFLOAT").unwrap_or_else(|_| env!("CARGO_BIN_EXE_d3dfloat").to_string())
}

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
    let bin = bin();
    let bin = bin.as_str();
    let bare = one_shot("true", &[], runs);
    let decode = one_shot(bin, &["decode", "--fmt", "f11", "0x7c0"], runs);
    let decode_plain = one_shot(
        bin,
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
    // Same-run anchors, in-process (no pipes, no process): the f32 lines of the first
    // and third cases as the best single-purpose code handles them, shortest decimal out
    // of hex in (zmij, ryu's successor) and hex out of decimal in (the standard library's
    // Eisel-Lemire parser).
    let anchor_decode = best_of(3, || {
        let mut out = Vec::with_capacity(n * 16);
        let mut buf = zmij::Buffer::new();
        for line in cases[0].2.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            let text = std::str::from_utf8(&line[2..]).expect("ascii");
            let bits = u32::from_str_radix(text, 16).expect("hex");
            out.extend_from_slice(buf.format(f32::from_bits(bits)).as_bytes());
            out.push(b'\n');
        }
        std::hint::black_box(out);
    });
    let anchor_encode = best_of(3, || {
        let mut out = Vec::with_capacity(n * 11);
        for line in cases[2].2.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            let x: f32 = std::str::from_utf8(line)
                .expect("ascii")
                .parse()
                .expect("decimal");
            std::io::Write::write_fmt(&mut out, format_args!("{:#010x}\n", x.to_bits()))
                .expect("write");
        }
        std::hint::black_box(out);
    });
    println!("\nsame-run anchors, in-process, {n} f32 lines (best of 3)");
    println!(
        "  zmij shortest decimal of hex f32   {:>6.2} M lines/s",
        n as f64 / anchor_decode.as_secs_f64() / 1e6
    );
    println!(
        "  std parse of decimal f32 to hex    {:>6.2} M lines/s",
        n as f64 / anchor_encode.as_secs_f64() / 1e6
    );
    println!("\nstdin throughput, {n} lines (best of 3)");
    for (name, args, input) in &cases {
        let cat = common::piped("cat", &[], input, 3, |c| c == Some(0));
        let t = common::piped(bin, args, input, 3, |c| c == Some(0));
        let anchor = if name.starts_with("decode") {
            anchor_decode
        } else {
            anchor_encode
        };
        println!(
            "  {name:<40} {:>6.2} M lines/s  {:>5.2}x the anchor  ({:.3} s; cat moves the \
             same input in {:.3} s)",
            n as f64 / t.as_secs_f64() / 1e6,
            anchor.as_secs_f64() / t.as_secs_f64(),
            t.as_secs_f64(),
            cat.as_secs_f64()
        );
    }
}

/// Best wall time of `runs` calls of `f`.
fn best_of(runs: usize, mut f: impl FnMut()) -> Duration {
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .expect("at least one run")
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
