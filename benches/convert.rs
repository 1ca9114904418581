//! In-process throughput of the convert kernels, against baselines measured in the same
//! run: memcpy of the same f32 buffer, and the `half` crate's slice conversions.
//!
//! `cargo bench --bench convert [-- N] [--only TEXT] [--rounds R]`: N million f32 values (default 16),
//! only the kernels whose label contains TEXT if asked. Every kernel
//! runs on one thread and on all threads, over two data sets: texture-like values
//! (`typical`) and uniformly random bit patterns (`random`: NaN, INF, subnormals,
//! negatives and overflow everywhere, the worst case for a kernel with a slow path).
//! Each figure is the best of 5 rounds (`--rounds R`) over the whole list, of 5 runs each;
//! "x memcpy" is memcpy time / kernel time for the same number of f32 values (memcpy is
//! timed at the start of each round and at the end, the best kept), and random rows also
//! print their speed as a fraction of the typical row.

use std::hint::black_box;
use std::time::Duration;

use d3dfloat::convert::{Conversion, kernels, raw};
use d3dfloat::format::{F11, F16, F32, Format, RoundOptions, Rounding};
use half::slice::{HalfBitsSliceExt, HalfFloatSliceExt};

mod common;

/// Runs of a row in a row (the best one kept) and rounds over the whole list: a slow
/// spell of this shared machine lasts longer than one row's runs, so each row is timed
/// again in every round and keeps its best time over all of them.
const RUNS: usize = 5;
const ROUNDS: usize = 5;

fn best(mut f: impl FnMut()) -> Duration {
    f(); // Warm up: page in the buffers.
    common::best_of(RUNS, f)
}

fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// Texture-like data: values in [0, 100), one in 16 zero, one in 16 in [1e-4, 1e-2).
/// As little-endian bytes.
fn typical_f32(n: usize) -> Vec<u8> {
    let mut state = 0x1234_5678_9abc_def0u64;
    let mut out = Vec::with_capacity(n * 4);
    for _ in 0..n {
        let r = xorshift(&mut state);
        let u = (r >> 40) as f32 / (1u64 << 24) as f32;
        let x = match r % 16 {
            0 => 0.0,
            1 => 1e-4 + u * 1e-2,
            _ => u * 100.0,
        };
        out.extend_from_slice(&x.to_le_bytes());
    }
    out
}

/// `bytes` uniformly random bytes: random bit patterns of any format.
fn random_bytes(bytes: usize) -> Vec<u8> {
    let mut state = 0x0fed_cba9_8765_4321u64;
    let mut out = Vec::with_capacity(bytes + 8);
    while out.len() < bytes {
        out.extend_from_slice(&xorshift(&mut state).to_le_bytes());
    }
    out.truncate(bytes);
    out
}

struct Bench {
    n: usize,
    /// Every row timed so far, in first-timed order, with its best time over all rounds.
    rows: Vec<Row>,
    /// `--only TEXT`: time just the kernels whose label contains TEXT.
    only: String,
}

struct Row {
    /// The kernel's label (shared by its typical and random rows), the data set, and
    /// whether it ran on one thread.
    label: String,
    data: String,
    one_thread: bool,
    name: String,
    best: Duration,
}

impl Bench {
    /// Keeps the best time of the row `name` over the rounds.
    fn report(&mut self, label: &str, data: &str, threads: Option<usize>, t: Duration) {
        let name = match threads {
            None => format!("{label} [{data}] (1 thread)"),
            Some(k) => format!("{label} [{data}] ({k} threads)"),
        };
        match self.rows.iter_mut().find(|r| r.name == name) {
            Some(r) => r.best = r.best.min(t),
            None => self.rows.push(Row {
                label: label.to_string(),
                data: data.to_string(),
                one_thread: threads.is_none(),
                name,
                best: t,
            }),
        }
    }

    fn print(&self, memcpy: Duration) {
        for r in &self.rows {
            let gvals = self.n as f64 / r.best.as_secs_f64() / 1e9;
            // A random row's speed as a fraction of the same kernel's typical row.
            let typical = self.rows.iter().find(|t| {
                r.data == "random"
                    && r.one_thread
                    && t.one_thread
                    && t.data == "typical"
                    && t.label == r.label
            });
            let extra = typical
                .map(|t| {
                    format!(
                        "  {:>5.2}x typical",
                        t.best.as_secs_f64() / r.best.as_secs_f64()
                    )
                })
                .unwrap_or_default();
            println!(
                "{:<48} {:>8.2} ms {:>6.2} Gvalues/s {:>6.2}x memcpy{extra}",
                r.name,
                r.best.as_secs_f64() * 1e3,
                gvals,
                memcpy.as_secs_f64() / r.best.as_secs_f64()
            );
        }
    }

    /// Single thread through the kernel, then all cores through the parallel driver.
    fn kernel(&mut self, conv: &Conversion, src: &[u8], label: &str, data: &str) -> Vec<u8> {
        let mut dst = vec![0u8; conv.dst_len(src.len())];
        if !self.only.is_empty() && !label.contains(&self.only) {
            // Not asked for: converted once, for the rows that unpack its output.
            kernels::convert_slice(conv, src, &mut dst);
            return dst;
        }
        let t1 = best(|| {
            black_box(kernels::convert_slice(conv, black_box(src), &mut dst));
        });
        let tn = best(|| {
            black_box(raw::convert_parallel(conv, black_box(src), &mut dst));
        });
        self.report(label, data, None, t1);
        self.report(label, data, Some(rayon::current_num_threads()), tn);
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
    let chunk = typical_f32(1 << 20);
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

fn memcpy_time(src: &[u8]) -> Duration {
    let mut copy = vec![0u8; src.len()];
    best(|| {
        copy.copy_from_slice(black_box(src));
        black_box(&copy);
    })
}

/// The packed sources of a data set: the typical ones are packed by the kernels from the
/// typical f32 values, the random ones are random words.
fn run_set(b: &mut Bench, data: &str, src: &[u8]) {
    let n = b.n;
    let f32f = Format::Float(F32);
    let f16f = Format::Float(F16);
    let rne = Rounding::NearestEven;

    let floats: &[f32] = bytemuck::cast_slice(src);
    let mut halves = vec![half::f16::ZERO; n];
    let t = best(|| {
        halves.convert_from_f32_slice(black_box(floats));
        black_box(&halves);
    });
    b.report("half crate f32 -> f16 slice", data, None, t);

    for (mode, name) in [
        (Rounding::NearestEven, "rne"),
        (Rounding::TowardZero, "rtz"),
        (Rounding::TowardPositive, "rtp"),
        (Rounding::TowardNegative, "rtn"),
    ] {
        b.kernel(
            &conv(f32f, f16f, 1, mode),
            src,
            &format!("f32 -> f16 {name}"),
            data,
        );
    }
    let mut sat = conv(f32f, f16f, 1, rne);
    sat.opts.saturate = true;
    b.kernel(&sat, src, "f32 -> f16 rne --saturate", data);
    b.kernel(
        &conv(f32f, Format::Float(F11), 1, rne),
        src,
        "f32 -> f11 rne",
        data,
    );
    let rg = b.kernel(
        &conv(f32f, Format::R11G11B10, 3, rne),
        src,
        "f32x3 -> r11g11b10 rne",
        data,
    );
    let e5 = b.kernel(
        &conv(f32f, Format::Rgb9e5, 3, rne),
        src,
        "f32x3 -> rgb9e5 rne",
        data,
    );
    // RGBA texels (what `convert --channels 4` and textures with alpha give): the alpha
    // channel is read past.
    for to in [Format::R11G11B10, Format::Rgb9e5] {
        b.kernel(
            &conv(f32f, to, 4, rne),
            src,
            &format!("f32x4 -> {} rne", to.name()),
            data,
        );
    }

    let (h, rg, e5) = if data == "typical" {
        let h: Vec<u8> = halves
            .iter()
            .flat_map(|x| x.to_bits().to_le_bytes())
            .collect();
        (h, rg, e5)
    } else {
        (
            random_bytes(n * 2),
            random_bytes(rg.len()),
            random_bytes(e5.len()),
        )
    };
    let bits: &[u16] = bytemuck::cast_slice(&h);
    let mut widened = vec![0f32; n];
    let t = best(|| {
        bits.reinterpret_cast::<half::f16>()
            .convert_to_f32_slice(&mut widened);
        black_box(&widened);
    });
    b.report("half crate f16 -> f32 slice", data, None, t);
    b.kernel(&conv(f16f, f32f, 1, rne), &h, "f16 -> f32", data);
    b.kernel(
        &conv(Format::R11G11B10, f32f, 3, rne),
        &rg,
        "r11g11b10 -> f32x3",
        data,
    );
    b.kernel(
        &conv(Format::Rgb9e5, f32f, 3, rne),
        &e5,
        "rgb9e5 -> f32x3",
        data,
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if write_sample(&args) {
        return;
    }
    // The first number that is not the value of a flag.
    let millions: usize = (1..args.len())
        .filter(|&i| !matches!(args[i - 1].as_str(), "--only" | "--rounds"))
        .find_map(|i| args[i].parse().ok())
        .unwrap_or(16);
    let n = millions * 1_000_000 / 12 * 12;
    let typical = typical_f32(n);
    let random = random_bytes(n * 4);
    let arg_after = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .map(|i| args[i + 1].clone())
    };
    let rounds: usize = arg_after("--rounds").map_or(ROUNDS, |r| r.parse().expect("--rounds N"));
    let mut b = Bench {
        n,
        rows: Vec::new(),
        only: arg_after("--only").unwrap_or_default(),
    };
    println!(
        "{n} f32 values ({} MiB); f16c: {}; {} threads; best of {rounds} rounds of {RUNS} runs",
        typical.len() >> 20,
        cfg!(target_arch = "x86_64") && std::is_x86_feature_detected!("f16c"),
        rayon::current_num_threads()
    );
    let mut memcpy = Vec::new();
    for _ in 0..rounds {
        memcpy.push(memcpy_time(&typical));
        run_set(&mut b, "typical", &typical);
        run_set(&mut b, "random", &random);
    }
    memcpy.push(memcpy_time(&typical));
    let fastest = *memcpy.iter().min().expect("timed");
    b.print(fastest);
    let ms: Vec<String> = memcpy
        .iter()
        .map(|t| format!("{:.2}", t.as_secs_f64() * 1e3))
        .collect();
    println!(
        "memcpy of the f32 buffer at the start of each round and at the end: {} ms; ratios use {:.2} ms",
        ms.join(" "),
        fastest.as_secs_f64() * 1e3
    );
}
