//! Per-instruction cost of reading and evaluating a checked batch line (profiling aid:
//! `cargo run --release --example op_profile [OP]`).

use d3dfloat::d3d::{RuleSet, evaluate};
use d3dfloat::format::F32;
use d3dfloat::input::parse_op_line;
use std::time::Instant;
fn main() {
    let lines = [
        "add 0x3f812345 0x40812345 = 0x41000000",
        "mul 0x3f812345 0x40812345 = 0x41000000",
        "div 0x3f812345 0x40812345 = 0x41000000",
        "mad 0x3f812345 0x40812345 0x3e812345 = 0x41000000",
        "dp3 0x3f812345,0x40812345,0x3e812345 0x3f812345,0x40812345,0x3e812345 = 0x41000000",
        "min 0x3f812345 0x40812345 = 0x41000000",
        "sqrt 0x3f812345 = 0x41000000",
        "rcp 0x3f812345 = 0x41000000",
        "rsq 0x3f812345 = 0x41000000",
        "exp 0x3f812345 = 0x41000000",
        "log 0x3f812345 = 0x41000000",
        "eq 0x3f812345 0x40812345 = true",
        "ftoi 0x3f812345 = 1",
        "frc 0x3f812345 = 0x41000000",
        "round_ne 0x3f812345 = 0x41000000",
    ];
    let only: Option<String> = std::env::args().nth(1);
    for l in lines {
        if let Some(o) = &only
            && !l.starts_with(o.as_str())
        {
            continue;
        }
        let n = if only.is_some() { 2_000_000 } else { 20000 };
        let t = Instant::now();
        for _ in 0..n {
            let r = parse_op_line(l, &F32, RuleSet::D3D11).unwrap().request;
            std::hint::black_box(evaluate(&r).unwrap());
        }
        println!(
            "{:>8.2} us  {}",
            t.elapsed().as_secs_f64() * 1e6 / n as f64,
            l.split(' ').next().unwrap()
        );
    }
}
