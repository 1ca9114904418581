//! The op core against hand-worked cases: the widths the rules pin, identities, NaN rules.

use d3dfloat::d3d::{OpRequest, RuleSet, evaluate};
use d3dfloat::format::{F16, F32, F64, FloatFormat};
use d3dfloat::input::parse_op_line;

fn eval_line(line: &str, fmt: &FloatFormat, rules: RuleSet) -> d3dfloat::d3d::Evaluation {
    let req: OpRequest = parse_op_line(line, fmt, rules).unwrap().request;
    evaluate(&req).unwrap()
}

fn ranges(line: &str, fmt: &FloatFormat, rules: RuleSet) -> (Vec<(u64, u64)>, bool) {
    let e = eval_line(line, fmt, rules);
    let o = e.main_output();
    (o.allowed.bit_ranges(&o.domain), o.allowed.nan)
}

/// Cases worked by hand (the reasoning beside each), pinned bit for bit.
#[test]
fn hand_worked_cases() {
    let f32 = |line: &str| ranges(line, &F32, RuleSet::D3D11);
    // 1/3 lies between 0x3eaaaaaa and 0x3eaaaaab; the two-step divide can give either.
    assert_eq!(f32("div 1 3"), (vec![(0x3eaa_aaaa, 0x3eaa_aaab)], false));
    // 1e38 / 1e38: 1/b is a denorm that flushes, so a * (1/b) may be 0, and a direct
    // divide may then return anything at least as close to 1 as 0 is (§22.10.2 note); that
    // value bound reaches zero, so both zeros conform.
    assert_eq!(
        f32("div 1e38 1e38"),
        (vec![(0x8000_0000, 0), (0x0080_0000, 0x4000_0000)], false)
    );
    // sqrt 2 = 1.41421356..., between 0x3fb504f3 and 0x3fb504f4: 1 ULP allows both.
    assert_eq!(f32("sqrt 2"), (vec![(0x3fb5_04f3, 0x3fb5_04f4)], false));
    // rcp 3: 2^-21 relative of 1/3 is 16/3 ULPs at this binade: five patterns each way.
    assert_eq!(f32("rcp 3"), (vec![(0x3eaa_aaa6, 0x3eaa_aab0)], false));
    // frc(-1e-10) = 1 - 1e-10 rounds to 1.0; the table's [+0, 1) adds the value below.
    assert_eq!(f32("frc -1e-10"), (vec![(0x3f7f_ffff, 0x3f80_0000)], false));
    // min(NaN, denorm) returns the denorm, flushed or not.
    assert_eq!(f32("min nan 0x00000001"), (vec![(0, 1)], false));
    // ftoi truncates toward zero: -3.
    assert_eq!(f32("ftoi -3.7"), (vec![(0xffff_fffd, 0xffff_fffd)], false));
    // 2^24 + 1 needs 25 bits: either neighbour (nearest-even only recommended).
    assert_eq!(
        f32("itof 16777217"),
        (vec![(0x4b80_0000, 0x4b80_0001)], false)
    );
    // dtof: nearest-even 0x3dcccccd or toward zero 0x3dcccccc.
    assert_eq!(f32("dtof 0.1"), (vec![(0x3dcc_cccc, 0x3dcc_cccd)], false));
    // inf * 0 and inf - inf: any NaN, nothing else.
    assert_eq!(f32("mul inf 0"), (vec![], true));
    assert_eq!(f32("add inf -inf"), (vec![], true));
    // -0 + 0 = +0; -0 + -0 = -0 (§3.1.3.2).
    assert_eq!(f32("add -0 0"), (vec![(0, 0)], false));
    assert_eq!(f32("add -0 -0"), (vec![(0x8000_0000, 0x8000_0000)], false));
    // ddiv is correctly rounded.
    assert_eq!(
        ranges("ddiv 1 3", &F64, RuleSet::D3D11),
        (vec![(0x3fd5_5555_5555_5555, 0x3fd5_5555_5555_5555)], false)
    );
    // float16 mad: (1 + 2^-10)^2 - 1 = 2^-9 + 2^-20 is a tie in f16: both neighbours.
    assert_eq!(
        ranges("mad 0x3c01 0x3c01 -1", &F16, RuleSet::D3D11),
        (vec![(0x1800, 0x1801)], false)
    );
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
