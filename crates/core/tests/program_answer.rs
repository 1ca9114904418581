//! The worked examples of docs/rules.md ("Sequences"), checked against independent
//! arithmetic: the exact value against f64 math, the interval against the single
//! instruction's allowed set and against native f32 chains.

use d3dfloat_core::d3d::{Domain, Op, OpRequest, RuleSet, evaluate};
use d3dfloat_core::format::F32;
use d3dfloat_core::program::{ComponentAnswer, Inputs, analyze, expr, parse_asm};

fn key(bits: u64) -> i64 {
    Domain::Float(F32).key(bits).unwrap()
}

/// The answer for an expression without variables, under D3D11 rules in f32.
fn answer(text: &str) -> Vec<ComponentAnswer> {
    let (programs, _) = expr::programs(text, &[], F32).unwrap();
    analyze(&programs, &Inputs::default(), None, RuleSet::D3D11)
        .unwrap()
        .1
}

/// The interval holds `bits`.
fn holds(a: &ComponentAnswer, bits: u32) -> bool {
    a.span.contains(&F32, bits as u64)
}

/// Every end of the interval is a pattern some chain returns (the set's extremes).
fn ends_reached(a: &ComponentAnswer) {
    let set = a.set.as_ref().expect("a small set");
    let (lo, hi) = a.span.keys.unwrap();
    assert_eq!(key(*set.first().unwrap()), lo, "{}", a.component);
    assert_eq!(key(*set.last().unwrap()), hi, "{}", a.component);
}

#[test]
fn normalize_of_1_2_3() {
    let p = parse_asm(
        "dp3 r0.x, v0.xyz, v0.xyz; rsq r0.x, r0.x; mul r1.xyz, r0.xxx, v0.xyz",
        F32,
    )
    .unwrap();
    let inputs = Inputs::parse(&["v0=1,2,3"], &F32).unwrap();
    let (_, ans) = analyze(&[p], &inputs, None, RuleSet::D3D11).unwrap();
    assert_eq!(ans.len(), 3);
    // rsq(14)'s own allowed set (dp3 of 1, 2, 3 is exactly 14).
    let rsq = evaluate(&OpRequest::from_bits(
        Op::Rsq,
        F32,
        RuleSet::D3D11,
        &[&[14f32.to_bits() as u64]],
    ))
    .unwrap();
    let (rlo, rhi) = rsq.outputs[0].allowed.extremes().unwrap();
    let r = 1.0 / 14f64.sqrt();
    for (c, a) in ans.iter().enumerate() {
        let scale = (c + 1) as f64;
        assert_eq!(
            a.exact as u32,
            ((r * scale) as f32).to_bits(),
            "{}",
            a.component
        );
        assert!(holds(a, a.exact as u32));
        ends_reached(a);
        // Each rsq pattern times 1, 2 or 3, rounded to nearest, lies inside.
        let d = Domain::Float(F32);
        for k in rlo..=rhi {
            let s = f32::from_bits(d.bits(k) as u32);
            assert!(
                holds(a, (s * scale as f32).to_bits()),
                "{} at rsq {s}",
                a.component
            );
        }
    }
    // x and y inherit rsq's width exactly (the products by 1 and 2 are exact).
    assert_eq!(ans[0].span.ulps(&F32), (rhi - rlo) as u64);
    assert_eq!(ans[1].span.ulps(&F32), (rhi - rlo) as u64);
}

#[test]
fn lerp_at_one_half() {
    let ans = answer("lerp(0.1, 0.7, 0.5)");
    let (a, b, t) = (0.1f32, 0.7f32, 0.5f32);
    let exact = (a as f64 + t as f64 * (b as f64 - a as f64)) as f32;
    assert_eq!(ans[0].exact as u32, exact.to_bits());
    // fxc's add then fused mad, and DXC's add, mul, add, each rounded to nearest.
    let fxc = t.mul_add(b - a, a);
    let dxc = a + t * (b - a);
    assert!(holds(&ans[0], fxc.to_bits()) && holds(&ans[0], dxc.to_bits()));
    ends_reached(&ans[0]);
}

#[test]
fn pow_2_10() {
    let ans = answer("pow(2, 10)");
    assert_eq!(ans[0].exact as u32, 1024f32.to_bits());
    assert!(holds(&ans[0], 1024f32.to_bits()));
    // log(2) within 2^-21 absolute (§22.10.8), times 10 rounded to nearest (half an ULP
    // at 10 is 2^-21 more), then exp within 2^-21 relative (§22.10.6): the ends lie within
    // 1024 * 2^(±11 * 2^-21) * (1 ± 2^-21), and further than 1024 * 2^-21 from 1024.
    let (lo, hi) = ans[0].span.bits(&F32).unwrap();
    let (lo, hi) = (
        f32::from_bits(lo as u32) as f64,
        f32::from_bits(hi as u32) as f64,
    );
    let outer = 1024.0 * (11.0 * 2f64.powi(-21)).exp2() * (1.0 + 2f64.powi(-21));
    assert!(
        hi <= outer && lo >= 1024.0 * 1024.0 / outer * (1.0 - 2f64.powi(-19)),
        "{lo} {hi}"
    );
    assert!(hi > 1024.0 * (1.0 + 2f64.powi(-21)) && lo < 1024.0 * (1.0 - 2f64.powi(-21)));
    ends_reached(&ans[0]);
}
