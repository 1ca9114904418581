//! The fast `f64` path against the exact rational path, whole results compared: preferred
//! bits, allowed set, exact value, the rules applied, the governing rule and the verdict
//! `--check` gives on a result just outside the set. 10^5 evaluations for each of f32 under
//! both rule sets, f16 and f64, drawn from random patterns, edge classes, ties, values near
//! overflow and denormals.

mod common;
use common::Rng;

use d3dfloat::d3d::{Evaluation, OpRequest, Pattern, RuleSet, evaluate, evaluate_exact};
use d3dfloat::format::{F16, F32, F64, FloatFormat};
use d3dfloat::input::parse_op_line;

const PER_FORMAT: usize = 100_000;

/// An operand pattern: random bits, an edge class, a value near 1 (ties and cancellation),
/// near overflow, or a denormal.
fn operand(f: &FloatFormat, rng: &mut Rng) -> u64 {
    let frac_mask = (1u64 << f.frac_bits) - 1;
    let sign = f.assemble(rng.below(2) == 1, 0, 0);
    let max_e = (1u64 << f.exp_bits) - 2;
    let bias = f.bias as u64;
    match rng.below(10) {
        0 => {
            let edges = [
                0,
                f.max_finite(),
                f.min_normal(),
                1,
                f.infinity(false),
                f.quiet_nan(),
                f.assemble(false, bias as u32, 0),
                f.assemble(false, bias as u32 + 1, 0),
            ];
            sign | edges[rng.below(edges.len() as u64) as usize]
        }
        // A few bits set just above or below 1: sums and products land on ties.
        1 | 2 => {
            let e = bias - 1 + rng.below(3);
            let frac = if rng.below(2) == 0 {
                rng.below(4)
            } else {
                frac_mask - rng.below(4)
            };
            sign | f.assemble(false, e as u32, frac)
        }
        3 => sign | f.assemble(false, (max_e - rng.below(2)) as u32, rng.next() & frac_mask),
        4 => sign | (rng.next() & frac_mask),
        // Moderate magnitudes, where most arithmetic lands.
        5..=7 => {
            let e = bias - 8 + rng.below(16);
            sign | f.assemble(false, e as u32, rng.next() & frac_mask)
        }
        _ => rng.next() & f.mask(),
    }
}

fn hex(f: &FloatFormat, b: u64) -> String {
    format!("0x{:0w$x}", b, w = f.width().div_ceil(4) as usize)
}

fn compare(fast: &Evaluation, exact: &Evaluation, line: &str) {
    assert_eq!(fast.outputs.len(), exact.outputs.len(), "{line}");
    for (a, b) in fast.outputs.iter().zip(&exact.outputs) {
        assert_eq!(a.preferred, b.preferred, "preferred: {line}");
        assert_eq!(a.allowed, b.allowed, "allowed: {line}");
        assert_eq!(a.exact.number(), b.exact.number(), "exact: {line}");
        assert_eq!(a.governing, b.governing, "governing rule: {line}");
    }
    let mut ra = fast.rules_applied.clone();
    let mut rb = exact.rules_applied.clone();
    ra.sort_by_key(|r| format!("{r:?}"));
    rb.sort_by_key(|r| format!("{r:?}"));
    assert_eq!(ra, rb, "rules applied: {line}");
    assert_eq!(fast.check, exact.check, "check: {line}");
}

fn run(f: FloatFormat, rules: RuleSet, ops: &[&str], seed: u64) {
    let mut rng = Rng(seed);
    for _ in 0..PER_FORMAT {
        let op = ops[rng.below(ops.len() as u64) as usize];
        let (count, width) = match op {
            "mad" | "fma" => (3, 1),
            "dp2" => (2, 2),
            "dp3" => (2, 3),
            "dp4" => (2, 4),
            "sqrt" | "rcp" | "frc" => (1, 1),
            _ => (2, 1),
        };
        let args: Vec<String> = (0..count)
            .map(|_| {
                (0..width)
                    .map(|_| hex(&f, operand(&f, &mut rng)))
                    .collect::<Vec<_>>()
                    .join(",")
            })
            .collect();
        let line = format!("{op} {}", args.join(" "));
        let mut req: OpRequest = parse_op_line(&line, &f, rules).unwrap().request;
        // Check a result beside the preferred one, so that the verdict and the rule it
        // reports are compared too.
        let probe = evaluate_exact(&req).unwrap();
        let p = probe.main_output().preferred;
        let claim = if rng.below(2) == 0 {
            p.wrapping_add(1)
        } else {
            p.wrapping_sub(1)
        } & f.mask();
        if probe.outputs.len() == 1 {
            req.check = Some(vec![Pattern::bits(claim)].into());
        }
        let fast = evaluate(&req).unwrap();
        let exact = evaluate_exact(&req).unwrap();
        compare(&fast, &exact, &line);
    }
}

const ARITH: &[&str] = &[
    "add", "sub", "mul", "div", "mad", "dp2", "dp3", "dp4", "sqrt", "rcp", "frc",
];

#[test]
fn f32_d3d11_fast_equals_exact() {
    run(F32, RuleSet::D3D11, ARITH, 0x1111);
}

#[test]
fn f32_d3d10_fast_equals_exact() {
    run(F32, RuleSet::D3D10, ARITH, 0x2222);
}

#[test]
fn f16_fast_equals_exact() {
    run(F16, RuleSet::D3D11, ARITH, 0x3333);
}

#[test]
fn f64_fast_equals_exact() {
    run(
        F64,
        RuleSet::D3D11,
        &["add", "mul", "div", "rcp", "fma", "min", "max"],
        0x4444,
    );
}
