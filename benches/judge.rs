//! The judge over slices in process, one core (#27): 2^24-line slices of each instruction
//! with the results a conforming device returns, on typical data (moderate values) and on
//! random bit patterns, against memcpy of the same bytes (operands and results) in the same
//! run. Prints results per second, the ratio to memcpy's bytes/s turned into lines/s, and the
//! share of lines the fast deciders settled. Then devices that get an instruction wrong
//! ("careless": f32tof16 rounded to nearest, sqrt of unflushed denorms), where most lines
//! violate and the deciders must name them. Run with `cargo bench --bench judge`
//! (`JUDGE_BENCH_LINES` changes the slice length, `JUDGE_BENCH_ONLY=f32tof16,sqrt` picks
//! instructions).

use d3dfloat::d3d::RuleSet;
use d3dfloat::format::{F16, F32, FloatFormat};
use d3dfloat::judge::{Buffer, Judge, Options};

mod common;

use common::{Rng, best};

impl Rng {
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// A D3D device's reading of an f32: denorms as signed zeros.
fn ftz(x: f32) -> f32 {
    if x.is_subnormal() {
        0.0f32.copysign(x)
    } else {
        x
    }
}

struct Case {
    name: &'static str,
    format: FloatFormat,
    operands: Vec<Buffer>,
    results: Buffer,
}

fn f32s(v: Vec<f32>) -> Buffer {
    Buffer::U32(v.into_iter().map(f32::to_bits).collect())
}

/// Operands: typical values in [-100, 100] (positive where the function needs it), or any
/// bit pattern; results as a conforming device computes them (denorms flushed).
fn cases(n: usize, random_bits: bool) -> Vec<Case> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut x = |positive: bool| -> Vec<f32> {
        (0..n)
            .map(|_| {
                if random_bits {
                    ftz(f32::from_bits(rng.next() as u32))
                } else {
                    let v = rng.unit() * 100.0 + 1e-3;
                    if positive || rng.next() & 1 == 0 {
                        v
                    } else {
                        -v
                    }
                }
            })
            .collect()
    };
    let (a, b, c, p) = (x(false), x(false), x(false), x(true));
    let un = |v: &[f32], f: &dyn Fn(f32) -> f32| f32s(v.iter().map(|&x| ftz(f(x))).collect());
    let bin =
        |f: &dyn Fn(f32, f32) -> f32| f32s(a.iter().zip(&b).map(|(&x, &y)| ftz(f(x, y))).collect());
    let one = |name, v: &[f32], r| Case {
        name,
        format: F32,
        operands: vec![f32s(v.to_vec())],
        results: r,
    };
    let two = |name, r| Case {
        name,
        format: F32,
        operands: vec![f32s(a.clone()), f32s(b.clone())],
        results: r,
    };
    let halves: Vec<u16> = p
        .iter()
        .map(|&v| half::f16::from_f32(v).to_bits())
        .collect();
    let half_un = |f: &dyn Fn(f32) -> f32| {
        Buffer::U16(
            halves
                .iter()
                .map(|&h| half::f16::from_f32(f(half::f16::from_bits(h).to_f32())).to_bits())
                .collect(),
        )
    };
    // f32tof16 rounds toward zero: truncate the mantissa of values in float16's normal range.
    let in_f16: Vec<f32> = p.iter().map(|v| v.clamp(1e-4, 6e4)).collect();
    let rtz = Buffer::U16(
        in_f16
            .iter()
            .map(|v| {
                let b = v.to_bits();
                let e = (b >> 23) as i32 - 127;
                if v.is_nan() {
                    0x7e00
                } else if e < -14 {
                    half::f16::from_f64((*v as f64 / 2f64.powi(-24)).trunc() * 2f64.powi(-24))
                        .to_bits()
                } else {
                    (((e + 15) as u32) << 10 | (b >> 13) & 0x3ff) as u16
                }
            })
            .collect(),
    );
    let ints: Vec<u32> = a.iter().map(|&v| (v * 1e6) as i32 as u32).collect();
    vec![
        two("add", bin(&|x, y| x + y)),
        two("mul", bin(&|x, y| x * y)),
        one("sqrt", &p, un(&p, &|x| x.sqrt())),
        one("rcp", &a, un(&a, &|x| 1.0 / x)),
        one("frc", &a, un(&a, &|x| x - x.floor())),
        one("round_ne", &a, un(&a, &|x| x.round_ties_even())),
        one("round_ni", &a, un(&a, &|x| x.floor())),
        Case {
            name: "ftoi",
            format: F32,
            operands: vec![f32s(a.clone())],
            results: Buffer::U32(a.iter().map(|&v| ftz(v) as i32 as u32).collect()),
        },
        Case {
            name: "itof",
            format: F32,
            operands: vec![Buffer::U32(ints.clone())],
            results: f32s(ints.iter().map(|&i| i as i32 as f32).collect()),
        },
        Case {
            name: "f32tof16",
            format: F32,
            operands: vec![f32s(in_f16.clone())],
            results: rtz,
        },
        Case {
            name: "sqrt",
            format: F16,
            operands: vec![Buffer::U16(halves.clone())],
            results: half_un(&|x| x.sqrt()),
        },
        Case {
            name: "mad",
            format: F32,
            operands: vec![f32s(a.clone()), f32s(b.clone()), f32s(c.clone())],
            results: f32s((0..n).map(|i| ftz(ftz(a[i] * b[i]) + c[i])).collect()),
        },
        two("div", bin(&|x, y| x / y)),
        one("rsq", &p, un(&p, &|x| (1.0 / (x as f64).sqrt()) as f32)),
        one("exp", &a, un(&a, &|x| (x as f64).exp2() as f32)),
        one("log", &p, un(&p, &|x| (x as f64).log2() as f32)),
        Case {
            name: "sincos",
            format: F32,
            operands: vec![f32s(a.clone())],
            results: f32s(
                a.iter()
                    .flat_map(|&x| [ftz(x.sin()), ftz(x.cos())])
                    .collect(),
            ),
        },
    ]
}

/// Devices that get an instruction systematically wrong (#36): f32tof16 rounded to nearest
/// (the `half` crate's conversion, as lavapipe does) on any bit pattern, most lines
/// violating; sqrt of 32-bit denorms not flushed (the CPU's root of the denorm's value,
/// NaN for a negative one), every line violating.
fn careless(n: usize) -> Vec<Case> {
    let mut rng = Rng(0x5eed_1e55);
    let x: Vec<u32> = (0..n).map(|_| rng.next() as u32).collect();
    let nearest = Buffer::U16(
        x.iter()
            .map(|&b| half::f16::from_f32(f32::from_bits(b)).to_bits())
            .collect(),
    );
    let denorms: Vec<u32> = (0..n)
        .map(|_| {
            let b = rng.next() as u32;
            (b & 0x8000_0000) | (b & 0x7f_ffff).max(1)
        })
        .collect();
    let roots = Buffer::U32(
        denorms
            .iter()
            .map(|&b| f32::from_bits(b).sqrt().to_bits())
            .collect(),
    );
    vec![
        Case {
            name: "f32tof16",
            format: F32,
            operands: vec![Buffer::U32(x)],
            results: nearest,
        },
        Case {
            name: "sqrt",
            format: F32,
            operands: vec![Buffer::U32(denorms)],
            results: roots,
        },
    ]
}

fn bytes(b: &Buffer) -> usize {
    match b {
        Buffer::U16(v) => v.len() * 2,
        Buffer::U32(v) => v.len() * 4,
        Buffer::U64(v) => v.len() * 8,
    }
}

fn main() {
    let n: usize = std::env::var("JUDGE_BENCH_LINES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1 << 24);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    println!("one core, {n} lines per slice; memcpy baseline of the same bytes in this run");
    println!(
        "{:<10} {:<4} {:<8} {:>10} {:>10} {:>8} {:>7} {:>9}",
        "op", "fmt", "data", "Mlines/s", "memcpy", "ratio", "fast", "with map"
    );
    // JUDGE_BENCH_ONLY=f32tof16,sqrt: only those instructions (every one when unset).
    let only = std::env::var("JUDGE_BENCH_ONLY").ok();
    let wanted = |name: &str| {
        only.as_deref()
            .is_none_or(|o| o.split(',').any(|w| w == name))
    };
    let runs = [("typical", false), ("random", true), ("careless", true)];
    for (data, random) in runs {
        let cases = if data == "careless" {
            careless(n)
        } else {
            cases(n, random)
        };
        for case in cases.into_iter().filter(|c| wanted(c.name)) {
            let judge = Judge::parse(case.name, &case.format, RuleSet::D3D11).unwrap();
            let cols: Vec<_> = case.operands.iter().map(Buffer::column).collect();
            let total: usize =
                case.operands.iter().map(bytes).sum::<usize>() + bytes(&case.results);
            let src = vec![1u8; total];
            let mut dst = vec![0u8; total];
            let copy = best(|| dst.copy_from_slice(std::hint::black_box(&src)));
            let mut verdict = None;
            let t = pool.install(|| {
                best(|| {
                    verdict = Some(
                        judge
                            .run(&cols, case.results.column(), &Options::default())
                            .unwrap(),
                    )
                })
            });
            let v = verdict.unwrap();
            // The same run counting where the error lies (`--report`'s chart).
            let mapped = Options {
                map: true,
                ..Options::default()
            };
            let t_map = pool.install(|| {
                best(|| {
                    judge.run(&cols, case.results.column(), &mapped).unwrap();
                })
            });
            let rate = n as f64 / t.as_secs_f64() / 1e6;
            let copy_rate = n as f64 / copy.as_secs_f64() / 1e6;
            println!(
                "{:<10} {:<4} {:<8} {:>10.1} {:>10.1} {:>8.3} {:>6.1}% {:>8.2}x{}",
                case.name,
                case.format.name,
                data,
                rate,
                copy_rate,
                rate / copy_rate,
                100.0 * (v.lines - v.exact_engine) as f64 / v.lines as f64,
                t.as_secs_f64() / t_map.as_secs_f64(),
                if v.violate > 0 {
                    format!("  ({} violate)", v.violate)
                } else {
                    String::new()
                }
            );
        }
    }
}
