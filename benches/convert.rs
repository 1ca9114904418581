//! In-process throughput of the convert kernels, against baselines measured in the same
//! run: memcpy of the same f32 buffer, and the `half` crate's slice conversion.
//!
//! `cargo bench --bench convert [-- N] [-- mixed]`: N million f32 values (default 32),
//! texture-like data unless `mixed` asks for the adversarial set.
//! Each figure is the best of several runs; ratios are memcpy time / kernel time for the
//! same number of f32 values, so 1.0x means "as fast as copying the f32 data".

use std::hint::black_box;
use std::time::{Duration, Instant};

use d3dfloat::convert::{Conversion, kernels, raw};
use d3dfloat::format::{F16, F32, Format, RoundOptions, Rounding};
use half::slice::HalfFloatSliceExt;

const RUNS: usize = 5;

fn best(mut f: impl FnMut()) -> Duration {
    f(); // Warm up: page in the buffers.
    (0..RUNS)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap()
}

/// Texture-like data (`typical`): values in [0, 100), one in 16 zero, one in 16 in
/// [1e-4, 1e-2); or an adversarial `mixed` set where one value in 8 is out of the small
/// formats' normal range (1e-6-scale, up to 1e5) or negative, so those lanes take the
/// exact lane code. As little-endian bytes.
fn sample_f32(n: usize, mixed: bool) -> Vec<u8> {
    let mut state = 0x1234_5678_9abc_def0u64;
    let mut out = Vec::with_capacity(n * 4);
    for _ in 0..n {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let u = (state >> 40) as f32 / (1u64 << 24) as f32;
        let x = match (mixed, state % 16) {
            (false, 0) => 0.0,
            (false, 1) => 1e-4 + u * 1e-2,
            (true, 0) => u * 1e-6,
            (true, 1) => u * 1e5,
            (true, 2) => -u,
            _ => u * 100.0,
        };
        out.extend_from_slice(&x.to_le_bytes());
    }
    out
}

struct Bench {
    n: usize,
    memcpy: Duration,
}

impl Bench {
    fn report(&self, name: &str, t: Duration) {
        let gvals = self.n as f64 / t.as_secs_f64() / 1e9;
        println!(
            "{name:<44} {:>8.2} ms {:>6.2} Gvalues/s {:>6.2}x memcpy",
            t.as_secs_f64() * 1e3,
            gvals,
            self.memcpy.as_secs_f64() / t.as_secs_f64()
        );
    }

    /// Single thread through the kernel, then all cores through the parallel driver.
    fn kernel(&self, conv: &Conversion, src: &[u8], label: &str) -> Vec<u8> {
        let mut dst = vec![0u8; conv.dst_len(src.len())];
        let t = best(|| {
            black_box(kernels::convert_slice(conv, black_box(src), &mut dst));
        });
        self.report(&format!("{label} (1 thread)"), t);
        let t = best(|| {
            black_box(raw::convert_parallel(conv, black_box(src), &mut dst));
        });
        self.report(
            &format!("{label} ({} threads)", rayon::current_num_threads()),
            t,
        );
        dst
    }
}

fn conv(from: Format, to: Format, channels: usize, mode: Rounding) -> Conversion {
    Conversion::new(from, to, channels, RoundOptions::new(mode)).unwrap()
}

/// `--write-sample PATH MIB`: writes MIB MiB of the typical data to PATH (for
/// `convert_process.sh`) and exits.
fn write_sample(args: &[String]) -> bool {
    let Some(i) = args.iter().position(|a| a == "--write-sample") else {
        return false;
    };
    let path = &args[i + 1];
    let mib: usize = args[i + 2].parse().expect("MiB");
    let chunk = sample_f32(1 << 20, false);
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).expect("create"));
    for k in 0..mib / 4 {
        // Vary the chunks a little so no two MiB are the same.
        let shift = (k % 7) as u32;
        for v in chunk.chunks_exact(4) {
            let x = f32::from_le_bytes(v.try_into().unwrap()) * (1 << shift) as f32 / 64.0;
            std::io::Write::write_all(&mut f, &x.to_le_bytes()).expect("write");
        }
    }
    true
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if write_sample(&args) {
        return;
    }
    let millions: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(32);
    let n = millions * 1_000_000 / 12 * 12;
    let mixed = std::env::args().any(|a| a == "mixed");
    let src = sample_f32(n, mixed);
    let mut copy = vec![0u8; src.len()];
    let memcpy = best(|| {
        copy.copy_from_slice(black_box(&src));
        black_box(&copy);
    });
    let b = Bench { n, memcpy };
    println!(
        "{n} f32 values ({} MiB, {} data); f16c: {}",
        src.len() >> 20,
        if mixed { "mixed" } else { "typical" },
        cfg!(target_arch = "x86_64") && std::is_x86_feature_detected!("f16c")
    );
    b.report("memcpy of the f32 buffer (baseline)", memcpy);

    let floats: &[f32] = bytemuck::cast_slice(&src);
    let mut halves = vec![half::f16::ZERO; n];
    let t = best(|| {
        halves.convert_from_f32_slice(black_box(floats));
        black_box(&halves);
    });
    b.report("half crate f32 -> f16 slice (1 thread)", t);

    let f32f = Format::Float(F32);
    let f16f = Format::Float(F16);
    let h = b.kernel(
        &conv(f32f, f16f, 1, Rounding::NearestEven),
        &src,
        "f32 -> f16 rne",
    );
    b.kernel(
        &conv(f32f, f16f, 1, Rounding::TowardZero),
        &src,
        "f32 -> f16 rtz",
    );
    let f11 = Format::Float(d3dfloat::format::F11);
    b.kernel(
        &conv(f32f, f11, 1, Rounding::NearestEven),
        &src,
        "f32 -> f11 rne",
    );
    let rg = b.kernel(
        &conv(f32f, Format::R11G11B10, 3, Rounding::NearestEven),
        &src,
        "f32x3 -> r11g11b10 rne",
    );
    let e5 = b.kernel(
        &conv(f32f, Format::Rgb9e5, 3, Rounding::NearestEven),
        &src,
        "f32x3 -> rgb9e5 rne",
    );
    let rne = Rounding::NearestEven;
    b.kernel(&conv(f16f, f32f, 1, rne), &h, "f16 -> f32");
    b.kernel(
        &conv(Format::R11G11B10, f32f, 3, rne),
        &rg,
        "r11g11b10 -> f32x3",
    );
    b.kernel(&conv(Format::Rgb9e5, f32f, 3, rne), &e5, "rgb9e5 -> f32x3");
}
