//! Programs judged over buffers: the fast decider never changes a verdict (it is compared
//! with the exact propagation alone, element by element), violations are found and named.

use d3dfloat_core::d3d::{Domain, RuleSet};
use d3dfloat_core::format::F32;
use d3dfloat_core::program::{ProgramJudge, ProgramViolation, parse_asm};

/// xorshift64*, deterministic.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn value(&mut self) -> f32 {
        let m = (self.next() >> 40) as f32 / (1u64 << 24) as f32;
        let e = (self.next() % 16) as i32 - 8;
        let s = if self.next() & 1 == 0 { 1.0 } else { -1.0 };
        s * (0.5 + m) * 2f32.powi(e)
    }
}

/// Moves a pattern by `k` steps on the value line (a device's error).
fn nudge(b: u32, k: i32) -> u32 {
    let v = f32::from_bits(b);
    if !v.is_finite() || v == 0.0 {
        return b;
    }
    let step = if v > 0.0 { k } else { -k };
    (b as i64 + step as i64) as u32
}

/// Element by element, the verdict with the decider equals the verdict without it.
fn same_verdicts(asm: &str, inputs: usize, rules: RuleSet, n: usize, seed: u64, positive: bool) {
    let p = parse_asm(asm, F32).unwrap();
    let judge = ProgramJudge::new(vec![p.clone()], None, rules).unwrap();
    // D3D10's two-step divide has no fast rule: the exact path judges every element.
    let decided = !(asm.contains("div") && rules == RuleSet::D3D10);
    assert_eq!(
        judge.has_fast_path(),
        decided,
        "{asm}: the decider should apply"
    );
    let exact = ProgramJudge::new(vec![p], None, rules)
        .unwrap()
        .exact_only();
    let outs = judge.output_names().len();
    assert_eq!(judge.input_components().len(), inputs);
    let mut rng = Rng(seed);
    let mut cols: Vec<Vec<u64>> = vec![Vec::new(); inputs];
    let mut res: Vec<Vec<u64>> = vec![Vec::new(); outs];
    for _ in 0..n {
        for c in cols.iter_mut() {
            let v = rng.value();
            c.push((if positive { v.abs() } else { v }).to_bits() as u64);
        }
    }
    // Results: the exact path's interval ends, their neighbours outside, and the middle.
    let ins: Vec<&[u64]> = cols.iter().map(Vec::as_slice).collect();
    let probe_inputs: Vec<Vec<u64>> = cols.clone();
    for i in 0..n {
        let one: Vec<Vec<u64>> = probe_inputs.iter().map(|c| vec![c[i]]).collect();
        let one_refs: Vec<&[u64]> = one.iter().map(Vec::as_slice).collect();
        // The exact judge's verdict on a zero result names the interval of this element.
        let zeros: Vec<Vec<u64>> = vec![vec![0]; outs];
        let zero_refs: Vec<&[u64]> = zeros.iter().map(Vec::as_slice).collect();
        let v = exact.judge(&one_refs, &zero_refs, outs).unwrap();
        // A third of the elements conform in the middle of every component's interval, as
        // a good device's results do; the rest try the edges.
        let typical = rng.next().is_multiple_of(3);
        for (j, column) in res.iter_mut().enumerate() {
            let span = v
                .violations
                .iter()
                .find(|x| x.component == judge.output_names()[j]);
            let r = match span.and_then(|x| x.span.bits(&F32)) {
                Some((lo, hi)) => match if typical { 4 } else { rng.next() % 6 } {
                    0 | 5 => lo as u32,
                    1 => hi as u32,
                    2 => nudge(lo as u32, -1),
                    3 => nudge(hi as u32, 1),
                    // The middle of the interval, on the value line.
                    _ => {
                        let d = Domain::Float(F32);
                        let (a, b) = (d.key(lo).unwrap(), d.key(hi).unwrap());
                        d.bits(a + (b - a) / 2) as u32
                    }
                },
                None => 0,
            };
            column.push(r as u64);
        }
    }
    let res_refs: Vec<&[u64]> = res.iter().map(Vec::as_slice).collect();
    let fast = judge.judge(&ins, &res_refs, n * outs).unwrap();
    let slow = exact.judge(&ins, &res_refs, n * outs).unwrap();
    assert_eq!(
        (fast.conform, fast.violate),
        (slow.conform, slow.violate),
        "{asm} under {rules}"
    );
    assert_eq!(fast.violations, slow.violations, "{asm} under {rules}");
    assert!(
        slow.violate > 0 && slow.conform > 0,
        "{asm}: both verdicts exercised"
    );
    assert_eq!(
        fast.fast > 0,
        decided,
        "{asm}: the decider settled some elements"
    );
}

const PROGRAMS: &[(&str, usize, bool)] = &[
    (
        "dp3 r0.x, v0.xyz, v0.xyz; rsq r0.x, r0.x; mul r1.xyz, r0.xxx, v0.xyz",
        3,
        false,
    ),
    (
        "add r0.xyz, v1.xyz, -v0.xyz; mad r1.xyz, v2.xxx, r0.xyz, v0.xyz",
        7,
        false,
    ),
    (
        "add r0.x, v0.x, -v0.y; mul r0.y, v0.z, v0.w; add r1.x, r0.x, r0.y",
        4,
        false,
    ),
    ("dp4 r0.x, v0, v1; sqrt r1.x, |r0.x|", 8, false),
    (
        "div r0.x, v0.x, v0.y; max r0.y, v0.x, v0.y; min r1.x, r0.x, r0.y",
        2,
        false,
    ),
    ("mul_sat r0.x, v0.x, v0.y; rcp r1.x, r0.x", 2, true),
    // A step the block loops leave to the one-element path (rsq with _sat keeps its root
    // there), and a literal operand.
    (
        "dp3 r0.x, v0.xyz, v0.xyz; rsq_sat r0.x, r0.x; mul r1.xyz, r0.xxx, v0.xyz; add r1.xyz, r1.xyz, l(0.25, -0.5, 3, 1)",
        3,
        false,
    ),
    (
        "dp2 r0.x, v0.xy, v0.xy; rsq r0.x, r0.x; mad r1.xy, -r0.xx, v0.xy, v0.yx",
        2,
        false,
    ),
];

#[test]
fn the_decider_agrees_with_the_exact_propagation() {
    for (k, &(asm, inputs, positive)) in PROGRAMS.iter().enumerate() {
        for rules in [RuleSet::D3D11, RuleSet::D3D10] {
            same_verdicts(asm, inputs, rules, 60, 7 + k as u64, positive);
        }
    }
}

/// Blocks of the decider hold 256 elements: a buffer of several, the last one partial,
/// judged the same as element by element.
#[test]
fn the_decider_agrees_across_blocks() {
    let (asm, inputs, positive) = PROGRAMS[0];
    same_verdicts(asm, inputs, RuleSet::D3D11, 700, 99, positive);
}

#[test]
fn a_violation_names_its_element_and_component() {
    let p = parse_asm("mul r0.xy, v0.xy, v0.yx", F32).unwrap();
    let judge = ProgramJudge::new(vec![p], None, RuleSet::D3D11).unwrap();
    let x: Vec<u64> = vec![2f32.to_bits() as u64, 3f32.to_bits() as u64];
    let y: Vec<u64> = vec![5f32.to_bits() as u64, 7f32.to_bits() as u64];
    // Element 1's y component is one ULP off a correctly rounded product (D3D11: 0.5 ULP).
    let rx: Vec<u64> = vec![10f32.to_bits() as u64, 21f32.to_bits() as u64];
    let ry: Vec<u64> = vec![10f32.to_bits() as u64, 21f32.to_bits() as u64 + 1];
    let v = judge.judge(&[&x, &y], &[&rx, &ry], 10).unwrap();
    assert_eq!((v.elements, v.conform, v.violate), (2, 1, 1));
    assert_eq!(v.violations.len(), 1);
    assert_eq!(v.violations[0].index, 1);
    assert_eq!(v.violations[0].component, "r0.y");
    assert_eq!(
        v.violations[0].span.bits(&F32),
        Some((21f32.to_bits() as u64, 21f32.to_bits() as u64))
    );
}

/// lerp's two expansions (fxc's mad, DXC's mul then add) judged together over more than
/// one piece of work (16,384 elements), each alternative with its own decider state kept
/// from piece to piece and from call to call: the same verdicts as the exact propagation
/// alone.
#[test]
fn alternatives_over_several_pieces() {
    let (programs, _) = d3dfloat_core::program::expr::programs(
        "lerp(a, b, t)",
        &[("a", 1), ("b", 1), ("t", 1)],
        F32,
    )
    .unwrap();
    assert_eq!(programs.len(), 2, "fxc's and DXC's lerp");
    let judge = ProgramJudge::new(programs.clone(), None, RuleSet::D3D11).unwrap();
    assert!(judge.has_fast_path());
    let exact = ProgramJudge::new(programs, None, RuleSet::D3D11)
        .unwrap()
        .exact_only();
    let n = (1 << 14) * 2 + 300;
    let mut rng = Rng(0x1e4);
    let mut cols: Vec<Vec<u64>> = vec![Vec::new(); 3];
    let mut res = Vec::with_capacity(n);
    for _ in 0..n {
        let v: Vec<f32> = (0..3).map(|_| rng.value()).collect();
        for (c, x) in cols.iter_mut().zip(&v) {
            c.push(x.to_bits() as u64);
        }
        // fxc's chain to nearest, moved by up to two steps: inside, at the edges and
        // (two steps off a D3D11 mad's 1 ULP) outside.
        let near = v[0] + v[2] * (v[1] - v[0]);
        let k = (rng.next() % 5) as i32 - 2;
        res.push(nudge(near.to_bits(), k) as u64);
    }
    let ins: Vec<&[u64]> = cols.iter().map(Vec::as_slice).collect();
    let fast = judge.judge(&ins, &[&res], n).unwrap();
    let slow = exact.judge(&ins, &[&res], n).unwrap();
    assert_eq!((fast.conform, fast.violate), (slow.conform, slow.violate));
    assert_eq!(fast.violations, slow.violations);
    // Again, with the workers' memory the first call left in the judge, over another
    // range (as the Python package judges a stream block by block).
    let tail: Vec<&[u64]> = ins.iter().map(|c| &c[1000..]).collect();
    let again = judge.judge(&tail, &[&res[1000..]], n).unwrap();
    let expected: Vec<_> = slow
        .violations
        .iter()
        .filter(|v| v.index >= 1000)
        .map(|v| ProgramViolation {
            index: v.index - 1000,
            ..v.clone()
        })
        .collect();
    assert_eq!(again.violations, expected);
    assert_eq!(again.violate, expected.len() as u64);
    assert!(slow.violate > 0 && slow.conform > 0);
    assert!(
        fast.fast > n as u64 / 2,
        "the decider settled {} of {n}",
        fast.fast
    );
}
