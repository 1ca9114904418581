//! The op core against hand-worked cases: the widths the rules pin, identities, NaN rules.

use d3dfloat::d3d::{Domain, OpRequest, RuleSet, evaluate, line::parse_line};
use d3dfloat::format::{F16, F32, F64, FloatFormat};

fn eval_line(line: &str, fmt: &FloatFormat, rules: RuleSet) -> d3dfloat::d3d::Evaluation {
    let req: OpRequest = parse_line(line, fmt, rules).unwrap();
    evaluate(&req).unwrap()
}

fn ranges(line: &str, fmt: &FloatFormat, rules: RuleSet) -> (Vec<(u64, u64)>, bool) {
    let e = eval_line(line, fmt, rules);
    let o = e.main_output();
    (o.allowed.bit_ranges(&o.domain), o.allowed.nan)
}

#[test]
fn smoke_print() {
    for (l, f) in [
        ("add 1 0x33800000", F32),
        ("add 1 0x33c00000", F32),
        ("mul 3 0.1", F32),
        ("div 1 3", F32),
        ("div 1e38 1e38", F32),
        ("mad 1 1 1e-8", F32),
        ("dp3 1,2,3 4,5,6", F32),
        ("sqrt 2", F32),
        ("rcp 3", F32),
        ("rsq 2", F32),
        ("exp 0.5", F32),
        ("log 3", F32),
        ("sincos 1", F32),
        ("frc -1e-10", F32),
        ("min nan 0x00000001", F32),
        ("ftoi -3.7", F32),
        ("itof 16777217", F32),
        ("dtof 0.1", F32),
        ("ddiv 1 3", F64),
        ("mad 1 1 0.001", F16),
    ] {
        let e = eval_line(l, &f, RuleSet::D3D11);
        for o in &e.outputs {
            eprintln!(
                "{l}: {} pref {:#x} allowed {:x?} nan {} {:?}",
                o.name,
                o.preferred,
                o.allowed.bit_ranges(&o.domain),
                o.allowed.nan,
                o.exact
            );
        }
        let _ = Domain::Bool;
    }
}

#[test]
fn d3d11_add_is_correctly_rounded() {
    assert_eq!(
        ranges("add 1 0x33000000", &F32, RuleSet::D3D11),
        (vec![(0x3f80_0000, 0x3f80_0000)], false)
    );
    // 1 + 2^-24 is a tie: both neighbours are within 0.5 ULP.
    assert_eq!(
        ranges("add 1 0x33800000", &F32, RuleSet::D3D11),
        (vec![(0x3f80_0000, 0x3f80_0001)], false)
    );
    assert_eq!(
        ranges("add 1 0x33000000", &F32, RuleSet::D3D10),
        (vec![(0x3f80_0000, 0x3f80_0001)], false)
    );
}
