//! A whole program over buffers, one core (#41): normalize of float3 as fxc emits it
//! (dp3, rsq, mul), 2^20 elements of typical data (components in [-100, 100]) with the
//! results a conforming device returns (the dot product and products rounded to nearest,
//! rsq within a ULP of the nearest, as hardware's approximations are), against memcpy of
//! the same bytes (three inputs and three results per element) in the same run. Prints
//! elements per second, memcpy's bytes/s turned into elements/s, their ratio and the share
//! of elements the fast decider settled. The issue asks for at least 5 M elements/s per
//! core. Run with `cargo bench --bench program` (`PROGRAM_BENCH_ELEMENTS` changes the
//! count).

use d3dfloat::d3d::RuleSet;
use d3dfloat::format::F32;
use d3dfloat::program::{ProgramJudge, parse_asm};

mod common;

use common::{Rng, best};

fn main() {
    let n: usize = std::env::var("PROGRAM_BENCH_ELEMENTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1 << 20);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let mut rng = Rng(0x41);
    let mut v: [Vec<u64>; 3] = Default::default();
    let mut r: [Vec<u64>; 3] = Default::default();
    for _ in 0..n {
        let x: [f32; 3] = std::array::from_fn(|_| {
            let u = (rng.next() >> 40) as f32 / (1u64 << 24) as f32;
            (u * 200.0 - 100.0).clamp(-100.0, 100.0) + 0.001
        });
        let d = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
        let near = (1.0 / (d as f64).sqrt()) as f32;
        // A hardware rsq: the nearest, or a neighbour.
        let k = if std::env::var_os("PROGRAM_BENCH_NEAREST").is_some() {
            0
        } else {
            (rng.next() % 3) as i32 - 1
        };
        let s = f32::from_bits((near.to_bits() as i32 + k) as u32);
        for c in 0..3 {
            v[c].push(x[c].to_bits() as u64);
            r[c].push((s * x[c]).to_bits() as u64);
        }
    }
    let p = parse_asm(
        "dp3 r0.x, v0.xyz, v0.xyz; rsq r0.x, r0.x; mul r1.xyz, r0.xxx, v0.xyz",
        F32,
    )
    .unwrap();
    let judge = ProgramJudge::new(vec![p], None, RuleSet::D3D11).unwrap();
    let ins: Vec<&[u64]> = v.iter().map(Vec::as_slice).collect();
    let res: Vec<&[u64]> = r.iter().map(Vec::as_slice).collect();
    let mut verdict = None;
    let t = pool.install(|| best(|| verdict = Some(judge.judge(&ins, &res, 16).unwrap())));
    let verdict = verdict.unwrap();
    // memcpy of the same bytes: six f32 per element.
    let src = vec![0x5au8; n * 24];
    let mut dst = vec![0u8; n * 24];
    let copy = best(|| dst.copy_from_slice(std::hint::black_box(&src)));
    let eps = n as f64 / t.as_secs_f64();
    let copy_eps = n as f64 / copy.as_secs_f64();
    println!("one core, {n} elements of normalize(float3), f32, d3d11 rules");
    println!(
        "{:<22} {:>12} {:>14} {:>10} {:>8} {:>10}",
        "program", "M elems/s", "memcpy Melem/s", "ratio", "fast", "violate"
    );
    println!(
        "{:<22} {:>12.2} {:>14.1} {:>10.4} {:>7.1}% {:>10}",
        "normalize float3",
        eps / 1e6,
        copy_eps / 1e6,
        eps / copy_eps,
        100.0 * verdict.fast as f64 / verdict.elements as f64,
        verdict.violate
    );
    assert_eq!(
        verdict.violate, 0,
        "a conforming device's results must conform"
    );
}
