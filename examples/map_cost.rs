//! How much `Options::map` costs the judge on one instruction (for profiling with
//! `perf record`): `cargo run --release --example map_cost -- add 1` (add or sqrt), the last argument
//! 1 for the map and 0 without.
use d3dfloat::d3d::RuleSet;
use d3dfloat::format::F32;
use d3dfloat::judge::{Buffer, Judge, Options};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let op = args.get(1).map_or("add", String::as_str);
    let map = args.get(2).is_some_and(|a| a == "1");
    let n = 1 << 24;
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s % 200_000) as f32 / 1000.0 - 100.0
    };
    let a: Vec<f32> = (0..n).map(|_| next()).collect();
    let b: Vec<f32> = (0..n).map(|_| next()).collect();
    let judge = Judge::parse(op, &F32, RuleSet::D3D11).unwrap();
    // Correctly rounded results: the sum of both operands, or the square root of the first
    // operand's magnitude (with the operand made positive).
    let a: Vec<f32> = if op == "sqrt" {
        a.iter().map(|x| x.abs()).collect()
    } else {
        a
    };
    let r: Vec<u32> = match op {
        "sqrt" => a.iter().map(|x| x.sqrt().to_bits()).collect(),
        _ => a.iter().zip(&b).map(|(x, y)| (x + y).to_bits()).collect(),
    };
    let bits = |v: &[f32]| Buffer::U32(v.iter().map(|x| x.to_bits()).collect());
    let (ba, bb, br) = (bits(&a), bits(&b), Buffer::U32(r));
    let all = [ba.column(), bb.column()];
    let cols = &all[..judge.arity().0];
    let opts = Options {
        map,
        ..Options::default()
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let t = std::time::Instant::now();
    for _ in 0..5 {
        let v = pool.install(|| judge.run(cols, br.column(), &opts).unwrap());
        assert_eq!(v.violate, 0);
    }
    println!(
        "{op} map={map}: {:.1} M lines/s",
        5.0 * n as f64 / t.elapsed().as_secs_f64() / 1e6
    );
}
