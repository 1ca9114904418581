//! `op` against references that are not its own code: exact rational arithmetic (the
//! `exact` core), the CPU's IEEE arithmetic and FMA (`f32`, `f64`, `mul_add`), and the
//! `half` crate for float16, over random operands of every class, the overflow and
//! underflow boundaries included. Also holds the `f64` fast path equal to the exact path.
//!
//! Pinned widths: under d3d11 an f32 add/mul of normal operands allows only the correctly
//! rounded result (both neighbours at an exact tie); under d3d10 both neighbours of any
//! inexact result and an exact one alone (truncation); float16 and double round ties to
//! even; sqrt 1 ULP either side; rcp the 2^-21 relative bound (or 1 ULP).

use std::cmp::Ordering;

use d3dfloat::d3d::{
    AllowedSet, Domain, Evaluation, Op, OpRequest, RuleSet, evaluate, evaluate_exact,
};
use d3dfloat::exact::{Number, Ratio, signed_add};
use d3dfloat::format::{F16, F32, F64, FloatFormat, RoundOptions, Rounding, round_number};
use proptest::prelude::*;

fn req(op: &str, f: FloatFormat, rules: RuleSet, args: &[Vec<u64>]) -> OpRequest {
    let (op, format) = Op::parse(op, &f).unwrap();
    let args: Vec<&[u64]> = args.iter().map(Vec::as_slice).collect();
    OpRequest::from_bits(op, format, rules, &args)
}

fn eval(op: &str, f: FloatFormat, rules: RuleSet, args: &[u64]) -> Evaluation {
    let a: Vec<Vec<u64>> = args.iter().map(|b| vec![*b]).collect();
    evaluate(&req(op, f, rules, &a)).unwrap()
}

fn allowed(e: &Evaluation) -> (&AllowedSet, Domain) {
    let o = e.main_output();
    (&o.allowed, o.domain)
}

/// Patterns of every class, weighted towards the interesting ones.
fn pattern(f: FloatFormat) -> impl Strategy<Value = u64> {
    let fb = f.frac_bits;
    let emax = f.max_exp_field();
    let frac = 0u64..(1u64 << fb);
    prop_oneof![
        6 => (any::<bool>(), (f.bias as u32 - 8)..(f.bias as u32 + 8), frac.clone())
            .prop_map(move |(s, e, m)| f.assemble(s, e, m)),
        2 => (any::<bool>(), 1u32..emax, frac.clone()).prop_map(move |(s, e, m)| f.assemble(s, e, m)),
        // Near overflow and near the bottom of the normal range.
        1 => (any::<bool>(), (emax - 3)..emax, frac.clone()).prop_map(move |(s, e, m)| f.assemble(s, e, m)),
        1 => (any::<bool>(), 1u32..4, frac.clone()).prop_map(move |(s, e, m)| f.assemble(s, e, m)),
        1 => (any::<bool>(), frac.clone()).prop_map(move |(s, m)| f.assemble(s, 0, m)),
        1 => any::<bool>().prop_map(move |s| f.assemble(s, 0, 0)),
        1 => any::<bool>().prop_map(move |s| f.assemble(s, f.bias as u32, 0)),
        1 => any::<bool>().prop_map(move |s| f.infinity(s)),
        1 => (any::<bool>(), 1u64..(1u64 << fb)).prop_map(move |(s, m)| f.assemble(s, emax, m)),
    ]
}

/// A normal pattern of moderate magnitude.
fn normal(f: FloatFormat) -> impl Strategy<Value = u64> {
    (
        any::<bool>(),
        (f.bias as u32 - 10)..(f.bias as u32 + 10),
        0u64..(1u64 << f.frac_bits),
    )
        .prop_map(move |(s, e, m)| f.assemble(s, e, m))
}

fn value(f: &FloatFormat, b: u64) -> (bool, Ratio) {
    match f.value(b) {
        Number::Finite { neg, mag } => (neg, mag),
        other => panic!("finite expected, got {other:?}"),
    }
}

/// D3D's output flush of a hardware f32 result (§3.1.3.2).
fn ftz32(x: f32) -> u64 {
    if x.is_subnormal() {
        (x.to_bits() & 0x8000_0000) as u64
    } else {
        x.to_bits() as u64
    }
}

fn ftz_in(x: f32) -> f32 {
    if x.is_subnormal() {
        0.0f32.copysign(x)
    } else {
        x
    }
}

/// Whether an exact value lies exactly half-way between two neighbours of the format.
fn is_tie(f: &FloatFormat, neg: bool, mag: &Ratio) -> bool {
    let _ = neg;
    if mag.is_zero() {
        return false;
    }
    let e = mag.floor_log2().max(f.emin() as i64);
    // Half a unit in the last place at this binade is 2^(e - frac_bits - 1).
    let (_, r) = mag.scaled_floor(f.frac_bits as i64 - e);
    r.vs_half == Ordering::Equal
}

fn exact_sum(f: &FloatFormat, a: u64, b: u64) -> (bool, Ratio) {
    let (na, ma) = value(f, a);
    let (nb, mb) = value(f, b);
    signed_add(na, &ma, nb, &mb)
}

fn members(set: &AllowedSet, d: &Domain) -> Vec<u64> {
    set.bit_ranges(d)
        .into_iter()
        .flat_map(|(lo, hi)| {
            let (kl, kh) = (d.key(lo).unwrap(), d.key(hi).unwrap());
            (kl..=kh).map(|k| d.bits(k)).collect::<Vec<_>>()
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// The f64 fast path gives exactly what exact rational arithmetic gives.
    #[test]
    fn fast_path_equals_exact_path(
        op in prop::sample::select(vec!["add", "sub", "mul", "div", "mad", "dp2", "dp3", "dp4", "sqrt", "rcp", "frc"]),
        use_f16 in any::<bool>(),
        d3d10 in any::<bool>(),
        xs in prop::collection::vec(pattern(F32), 8),
        hs in prop::collection::vec(pattern(F16), 8),
    ) {
        let f = if use_f16 { F16 } else { F32 };
        let v = if use_f16 { &hs } else { &xs };
        let rules = if d3d10 { RuleSet::D3D10 } else { RuleSet::D3D11 };
        let args: Vec<Vec<u64>> = match op {
            "mad" => vec![vec![v[0]], vec![v[1]], vec![v[2]]],
            "dp2" => vec![v[0..2].to_vec(), v[2..4].to_vec()],
            "dp3" => vec![v[0..3].to_vec(), v[3..6].to_vec()],
            "dp4" => vec![v[0..4].to_vec(), v[4..8].to_vec()],
            "sqrt" | "rcp" | "frc" => vec![vec![v[0]]],
            _ => vec![vec![v[0]], vec![v[1]]],
        };
        let r = req(op, f, rules, &args);
        let fast = evaluate(&r).unwrap();
        let exact = evaluate_exact(&r).unwrap();
        for (a, b) in fast.outputs.iter().zip(&exact.outputs) {
            prop_assert_eq!(&a.allowed, &b.allowed, "{} {:x?}", op, args);
            prop_assert_eq!(a.preferred, b.preferred, "{} {:x?}", op, args);
        }
    }

    /// f32 add and sub: the CPU's result (flushed) is allowed; under d3d11 it is the only
    /// one unless the exact sum is a tie; under d3d10 both neighbours of an inexact sum.
    #[test]
    fn f32_add_against_cpu_and_rationals(a in pattern(F32), b in pattern(F32), sub in any::<bool>()) {
        let (fa, fb) = (ftz_in(f32::from_bits(a as u32)), ftz_in(f32::from_bits(b as u32)));
        let hw = if sub { fa - fb } else { fa + fb };
        let op = if sub { "sub" } else { "add" };
        let e11 = eval(op, F32, RuleSet::D3D11, &[a, b]);
        let (set, d) = allowed(&e11);
        prop_assert!(set.contains(&d, ftz32(hw)) || (hw.is_nan() && set.nan), "{hw} not in {:x?}", set.bit_ranges(&d));
        let normal_ops = [fa, fb].iter().all(|x| x.is_normal());
        if normal_ops && hw.is_finite() && hw != 0.0 && !hw.is_subnormal() {
            let b2 = if sub { b ^ 0x8000_0000 } else { b };
            let (neg, mag) = exact_sum(&F32, a, b2);
            let got = members(set, &d);
            if is_tie(&F32, neg, &mag) {
                prop_assert_eq!(got.len(), 2);
            } else {
                prop_assert_eq!(got, vec![hw.to_bits() as u64]);
            }
            // D3D10's 1 ULP is truncation's: an exact sum alone, else both neighbours.
            let e10 = eval(op, F32, RuleSet::D3D10, &[a, b]);
            let (set10, _) = allowed(&e10);
            let exact = F32.value(hw.to_bits() as u64) == Number::finite(neg, mag.clone());
            let n = members(set10, &d).len();
            prop_assert_eq!(n, if exact { 1 } else { 2 }, "d3d10 {:x?}", set10.bit_ranges(&d));
        }
    }

    /// f32 mul: the CPU's product (flushed) is allowed, alone unless a tie.
    #[test]
    fn f32_mul_against_cpu(a in pattern(F32), b in pattern(F32)) {
        let (fa, fb) = (ftz_in(f32::from_bits(a as u32)), ftz_in(f32::from_bits(b as u32)));
        let hw = fa * fb;
        let e = eval("mul", F32, RuleSet::D3D11, &[a, b]);
        let (set, d) = allowed(&e);
        prop_assert!(set.contains(&d, ftz32(hw)) || (hw.is_nan() && set.nan));
        if fa.is_normal() && fb.is_normal() && hw.is_normal() {
            let (na, ma) = value(&F32, a);
            let (nb, mb) = value(&F32, b);
            let tie = is_tie(&F32, na != nb, &ma.mul(&mb));
            prop_assert_eq!(members(set, &d).len(), if tie { 2 } else { 1 });
        }
    }

    /// f32 div: the CPU's correctly rounded quotient is allowed; nothing allowed is farther
    /// from the exact quotient than 2.5 ULPs (0.5 ULP of a 1 ULP reciprocal, plus the
    /// multiply's 0.5 ULP, plus a binade edge), unless 1/b is a flushed denorm.
    #[test]
    fn f32_div_against_cpu(a in normal(F32), b in normal(F32)) {
        let (fa, fb) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
        let hw = fa / fb;
        let e = eval("div", F32, RuleSet::D3D11, &[a, b]);
        let (set, d) = allowed(&e);
        prop_assert!(set.contains(&d, ftz32(hw)));
        if hw.is_normal() {
            let o = F32.ordinal(hw.to_bits() as u64).unwrap();
            for m in members(set, &d) {
                prop_assert!((F32.ordinal(m).unwrap() - o).abs() <= 3, "{m:#x} vs {hw}");
            }
        }
    }

    /// mad: the CPU's FMA (rounded once) and its separate multiply-add are both allowed,
    /// and every allowed value is at least as close to the exact result as the worse of them.
    #[test]
    fn f32_mad_against_fma(a in normal(F32), b in normal(F32), c in normal(F32)) {
        let (fa, fb, fc) = (f32::from_bits(a as u32), f32::from_bits(b as u32), f32::from_bits(c as u32));
        let fused = fa.mul_add(fb, fc);
        let serial = ftz_in(ftz_in(fa * fb) + fc);
        let e = eval("mad", F32, RuleSet::D3D11, &[a, b, c]);
        let (set, d) = allowed(&e);
        prop_assert!(set.contains(&d, ftz32(fused)), "fma {fused}");
        prop_assert!(set.contains(&d, ftz32(serial)), "serial {serial}");
        // Exact a*b + c in rationals, and the serial error.
        let (na, ma) = value(&F32, a);
        let (nb, mb) = value(&F32, b);
        let (nc, mc) = value(&F32, c);
        let (nx, mx) = signed_add(na != nb, &ma.mul(&mb), nc, &mc);
        let dist = |bits: u64| {
            let (ny, my) = value(&F32, bits);
            signed_add(ny, &my, !nx, &mx).1
        };
        // Each step may give either neighbour of its exact result (1 ULP per step, both
        // pages), so the worst serial result is the farthest of those chains.
        let both = |neg: bool, mag: &Ratio| -> Vec<u64> {
            let x = Number::finite(neg, mag.clone());
            let mut v: Vec<u64> = [Rounding::TowardNegative, Rounding::TowardPositive]
                .iter()
                .map(|&r| round_number(&F32, &x, RoundOptions::new(r)).bits)
                .collect();
            v.dedup();
            v
        };
        let normal_bits = |b: u64| F32.class(b) == d3dfloat::format::Class::Normal;
        if serial.is_finite() && fused.is_finite() && ftz32(serial) != 0 {
            let mut worst = dist(ftz32(fused));
            let mut chains_normal = true;
            for p in both(na != nb, &ma.mul(&mb)) {
                chains_normal &= normal_bits(p);
                let (np, mp) = value(&F32, p);
                let (ns, ms) = signed_add(np, &mp, nc, &mc);
                for s in both(ns, &ms) {
                    chains_normal &= normal_bits(s) || ms.is_zero();
                    worst = worst.max(dist(s));
                }
            }
            if chains_normal {
                for m in members(set, &d) {
                    if F32.class(m) != d3dfloat::format::Class::Infinity {
                        prop_assert!(dist(m) <= worst, "{m:#x} farther than the worst serial result");
                    }
                }
            }
        }
    }

    /// dp2, dp3, dp4: every serial order on the CPU (f32 multiplies, then f32 adds in
    /// any order and grouping) is allowed, and so is the exact dot product rounded once.
    #[test]
    fn f32_dot_products_against_cpu(n in 2usize..5, v in prop::collection::vec(normal(F32), 8)) {
        let x: Vec<f32> = v.iter().map(|b| f32::from_bits(*b as u32)).collect();
        let op = ["", "", "dp2", "dp3", "dp4"][n];
        let e = evaluate(&req(op, F32, RuleSet::D3D11, &[v[0..n].to_vec(), v[4..4 + n].to_vec()])).unwrap();
        let (set, d) = allowed(&e);
        let p: Vec<f32> = (0..n).map(|i| ftz_in(x[i] * x[i + 4])).collect();
        // Left-to-right sums of every permutation, and the pairwise grouping for dp4.
        let mut perm: Vec<usize> = (0..n).collect();
        let mut results = Vec::new();
        permute(&mut perm, 0, &mut |order| {
            let mut s = p[order[0]];
            for &k in &order[1..] {
                s = ftz_in(s + p[k]);
            }
            results.push(s);
        });
        if n == 4 {
            results.push(ftz_in(ftz_in(p[0] + p[1]) + ftz_in(p[2] + p[3])));
            results.push(ftz_in(ftz_in(p[0] + p[2]) + ftz_in(p[1] + p[3])));
            results.push(ftz_in(ftz_in(p[0] + p[3]) + ftz_in(p[1] + p[2])));
        }
        for s in results {
            prop_assert!(set.contains(&d, ftz32(s)), "{op}: serial result {s} not allowed");
        }
        // The exact sum of the (exact, f64) products, rounded once: exact rationals.
        let mut exact = (false, Ratio::zero());
        for i in 0..n {
            let (na, ma) = value(&F32, v[i]);
            let (nb, mb) = value(&F32, v[i + 4]);
            exact = signed_add(exact.0, &exact.1, na != nb, &ma.mul(&mb));
        }
        let once = d3dfloat::format::round_number(
            &F32,
            &Number::finite(exact.0, exact.1),
            d3dfloat::format::RoundOptions::new(d3dfloat::format::Rounding::NearestEven),
        );
        prop_assert!(set.contains(&d, ftz32(f32::from_bits(once.bits as u32))));
    }

    /// f16 sqrt against the CPU's f32 sqrt rounded to f16 (double rounding is harmless for
    /// sqrt from 24 to 11 bits): correctly rounded, alone.
    #[test]
    fn f16_sqrt_against_cpu(a in normal(F16)) {
        let x = half::f16::from_bits(a as u16 & 0x7fff);
        let want = half::f16::from_f32(x.to_f32().sqrt());
        let e = eval("sqrt", F16, RuleSet::D3D11, &[x.to_bits() as u64]);
        let (set, d) = allowed(&e);
        prop_assert!(set.contains(&d, want.to_bits() as u64));
        prop_assert_eq!(members(set, &d).len(), 1);
    }

    /// Comparisons against the CPU's, after the denorm flush; NaN: false, ne true.
    #[test]
    fn comparisons_against_cpu(a in pattern(F32), b in pattern(F32)) {
        let (x, y) = (ftz_in(f32::from_bits(a as u32)), ftz_in(f32::from_bits(b as u32)));
        for (op, want) in [("eq", x == y), ("ne", x != y), ("lt", x < y), ("ge", x >= y), ("gt", x > y), ("le", x <= y)] {
            let e = eval(op, F32, RuleSet::D3D11, &[a, b]);
            prop_assert_eq!(e.main_output().preferred != 0, want, "{} {} {}", op, x, y);
        }
    }

    /// min/max against IEEE 754-2019 minimumNumber/maximumNumber on flushed values (Rust's
    /// f32::min/max): the CPU's choice is allowed, up to the sign of zero and the flush.
    #[test]
    fn min_max_against_cpu(a in pattern(F32), b in pattern(F32)) {
        let (x, y) = (ftz_in(f32::from_bits(a as u32)), ftz_in(f32::from_bits(b as u32)));
        for (op, want) in [("min", x.min(y)), ("max", x.max(y))] {
            let e = eval(op, F32, RuleSet::D3D11, &[a, b]);
            let (set, d) = allowed(&e);
            if want.is_nan() {
                prop_assert!(set.nan);
            } else {
                prop_assert!(set.contains(&d, ftz32(want)) || set.contains(&d, ftz32(-want)),
                    "{op} {x} {y}: {want} not in {:x?}", set.bit_ranges(&d));
            }
        }
    }

    /// sin and cos: within 0.0008 of the CPU's value on [-100π, 100π].
    #[test]
    fn sincos_against_cpu(a in normal(F32)) {
        let x = f32::from_bits(a as u32);
        prop_assume!((x as f64).abs() <= 314.0);
        let e = eval("sincos", F32, RuleSet::D3D11, &[a]);
        for (o, want) in e.outputs.iter().zip([(x as f64).sin(), (x as f64).cos()]) {
            for (lo, hi) in o.allowed.bit_ranges(&o.domain) {
                for b in [lo, hi] {
                    let y = f32::from_bits(b as u32) as f64;
                    prop_assert!((y - want).abs() <= 0.0008 + 1e-12, "{} {x}: {y} vs {want}", o.name);
                }
            }
            prop_assert!(o.allowed.contains(&o.domain, (want as f32).to_bits() as u64));
        }
    }

    /// f16 arithmetic against the `half` crate: its result is allowed, and for add, sub and
    /// mul it is the only one (float16 rounds ties to even, §3.1.5).
    #[test]
    fn f16_against_half_crate(a in pattern(F16), b in pattern(F16), which in 0u8..4) {
        let (ha, hb) = (half::f16::from_bits(a as u16), half::f16::from_bits(b as u16));
        let (op, hw) = match which {
            0 => ("add", ha + hb),
            1 => ("sub", ha - hb),
            2 => ("mul", ha * hb),
            _ => ("div", ha / hb),
        };
        let e = eval(op, F16, RuleSet::D3D11, &[a, b]);
        let (set, d) = allowed(&e);
        prop_assert!(set.contains(&d, hw.to_bits() as u64) || (hw.is_nan() && set.nan),
            "{op} {a:#x} {b:#x}: half gives {:#x}, allowed {:x?}", hw.to_bits(), set.bit_ranges(&d));
        if which < 3 && ha.is_normal() && hb.is_normal() && hw.is_normal() && !ha.is_nan() {
            prop_assert_eq!(members(set, &d), vec![hw.to_bits() as u64]);
        }
    }

    /// f16 mad: the correctly rounded fused result (from the exact f32 FMA, rounded by
    /// `half`) is allowed.
    #[test]
    fn f16_mad_against_half(a in normal(F16), b in normal(F16), c in normal(F16)) {
        let f = |x: u64| half::f16::from_bits(x as u16).to_f64();
        // a*b + c of float16 values is exact in f64 (22-bit products, small exponent range).
        let exact = f(a) * f(b) + f(c);
        let fused = half::f16::from_f64(exact);
        let e = eval("mad", F16, RuleSet::D3D11, &[a, b, c]);
        let (set, d) = allowed(&e);
        prop_assert!(set.contains(&d, fused.to_bits() as u64));
    }

    /// f64: IEEE results of the CPU are the only ones allowed (ties aside); dfma is the
    /// CPU's fused multiply-add.
    #[test]
    fn f64_against_cpu(a in pattern(F64), b in pattern(F64), c in pattern(F64), which in 0u8..4) {
        let (fa, fb, fc) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
        let (e, hw) = match which {
            0 => (eval("dadd", F64, RuleSet::D3D11, &[a, b]), fa + fb),
            1 => (eval("dmul", F64, RuleSet::D3D11, &[a, b]), fa * fb),
            2 => (eval("ddiv", F64, RuleSet::D3D11, &[a, b]), fa / fb),
            _ => (eval("dfma", F64, RuleSet::D3D11, &[a, b, c]), fa.mul_add(fb, fc)),
        };
        let (set, d) = allowed(&e);
        prop_assert!(set.contains(&d, hw.to_bits()) || (hw.is_nan() && set.nan),
            "{which} {fa:e} {fb:e} {fc:e}: {hw:e} not in {:x?}", set.bit_ranges(&d));
        let denorm_div = which == 2 && (fa.is_subnormal() || fb.is_subnormal());
        if hw.is_finite() && !denorm_div && !hw.is_nan() {
            let n = members(set, &d).len();
            prop_assert!(n <= 2, "{n} allowed");
            if n == 2 && which != 2 {
                let ex = match which {
                    0 => exact_sum(&F64, a, b),
                    1 => {
                        let (na, ma) = value(&F64, a);
                        let (nb, mb) = value(&F64, b);
                        (na != nb, ma.mul(&mb))
                    }
                    _ => {
                        let (na, ma) = value(&F64, a);
                        let (nb, mb) = value(&F64, b);
                        let (nc, mc) = value(&F64, c);
                        signed_add(na != nb, &ma.mul(&mb), nc, &mc)
                    }
                };
                prop_assert!(is_tie(&F64, ex.0, &ex.1), "two allowed without a tie");
            }
        }
    }

    /// sqrt: 1 ULP either side of the exact root: both neighbours of an inexact root, the
    /// root and its neighbours when exact. The CPU's sqrt is allowed.
    #[test]
    fn f32_sqrt_one_ulp(a in normal(F32)) {
        let x = f32::from_bits(a as u32).abs();
        let e = eval("sqrt", F32, RuleSet::D3D11, &[x.to_bits() as u64]);
        let (set, d) = allowed(&e);
        let s = x.sqrt();
        prop_assert!(set.contains(&d, s.to_bits() as u64));
        let exact = (s as f64) * (s as f64) == x as f64;
        let got = members(set, &d);
        if exact {
            prop_assert_eq!(got.len(), 3);
        } else {
            prop_assert_eq!(got.len(), 2);
            // The two neighbours bracket the root.
            let (lo, hi) = (f32::from_bits(got[0] as u32) as f64, f32::from_bits(got[1] as u32) as f64);
            prop_assert!(lo * lo < x as f64 && hi * hi > x as f64);
        }
    }

    /// rcp: every allowed value is within 2^-21 relative or 1 ULP of 1/a, and the first
    /// value outside each end is neither.
    #[test]
    fn f32_rcp_relative_bound(a in normal(F32)) {
        let x = f32::from_bits(a as u32);
        let e = eval("rcp", F32, RuleSet::D3D11, &[a]);
        let (set, d) = allowed(&e);
        let q = 1.0 / x as f64;
        // The 1 ULP reading: ordinals of the f32 values bracketing q (q itself and its two
        // neighbours when q is an f32).
        let qf = q as f32;
        let oq = F32.ordinal(qf.to_bits() as u64).unwrap();
        let one_ulp: Vec<i64> = if qf as f64 == q {
            vec![oq - 1, oq, oq + 1]
        } else if (qf as f64) < q {
            vec![oq, oq + 1]
        } else {
            vec![oq - 1, oq]
        };
        let ok = |y: f32| {
            let rel = ((y as f64) * (x as f64) - 1.0).abs() <= 2f64.powi(-21);
            rel || one_ulp.contains(&F32.ordinal(y.to_bits() as u64).unwrap())
        };
        let got = members(set, &d);
        for &m in &got {
            prop_assert!(ok(f32::from_bits(m as u32)), "{m:#x} outside both readings");
        }
        let (first, last) = (got[0], got[got.len() - 1]);
        let below = d.bits(d.key(first).unwrap() - 1);
        let above = d.bits(d.key(last).unwrap() + 1);
        prop_assert!(!ok(f32::from_bits(below as u32)), "{below:#x} also conforms");
        prop_assert!(!ok(f32::from_bits(above as u32)), "{above:#x} also conforms");
    }
}

/// The ends of an allowed set (enumerating can be huge: log near 1 allows every tiny value).
fn ends(set: &AllowedSet, d: &Domain) -> Vec<f64> {
    set.bit_ranges(d)
        .into_iter()
        .flat_map(|(lo, hi)| [lo, hi])
        .map(|b| f32::from_bits(b as u32) as f64)
        .collect()
}

#[test]
fn exp_and_log_follow_the_2_21_bound() {
    for &v in &[0.5f32, 1.25, -3.7, 10.1, -100.3, 127.5] {
        let e = eval("exp", F32, RuleSet::D3D11, &[v.to_bits() as u64]);
        let (set, d) = allowed(&e);
        let x = (v as f64).exp2();
        for y in ends(set, &d) {
            assert!(
                ((y - x) / x).abs() <= 2f64.powi(-21) * (1.0 + 1e-12),
                "exp {v}: {y}"
            );
        }
    }
    for &v in &[0.7f32, 1.0, 1.9, 3.0, 1e-3, 12345.0] {
        let e = eval("log", F32, RuleSet::D3D11, &[v.to_bits() as u64]);
        let (set, d) = allowed(&e);
        let x = (v as f64).log2();
        let bound = if (0.5..=2.0).contains(&v) {
            2f64.powi(-21)
        } else {
            2f64.powi(-21) * x.abs()
        };
        for y in ends(set, &d) {
            assert!(
                (y - x).abs() <= bound * (1.0 + 1e-12) + 1e-300,
                "log {v}: {y}"
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

    /// Every instruction, every class of operand, every format it has: the correctly
    /// rounded (preferred) result is always allowed, and the set is never empty.
    #[test]
    fn preferred_result_is_always_allowed(
        op in prop::sample::select(vec![
            "add", "sub", "mul", "div", "mad", "dp2", "dp3", "dp4", "min", "max", "sqrt", "rsq",
            "rcp", "exp", "log", "frc", "round_ne", "round_ni", "round_pi", "round_z", "sincos",
            "eq", "ne", "lt", "ge", "gt", "le", "ftoi", "ftou", "f32tof16", "ftod",
        ]),
        fmt in 0u8..3,
        d3d10 in any::<bool>(),
        xs in prop::collection::vec(pattern(F32), 8),
        hs in prop::collection::vec(pattern(F16), 8),
        ds in prop::collection::vec(pattern(F64), 8),
    ) {
        let f = [F32, F16, F64][fmt as usize];
        let Ok((parsed, format)) = Op::parse(op, &f) else {
            // No such form (sqrt has no f64 instruction, for one).
            return Ok(());
        };
        let v = match format.name {
            "f16" => &hs,
            "f64" => &ds,
            _ => &xs,
        };
        let (n, w) = parsed.arity();
        let args: Vec<Vec<u64>> = (0..n).map(|i| v[i * w..(i + 1) * w].to_vec()).collect();
        let rules = if d3d10 { RuleSet::D3D10 } else { RuleSet::D3D11 };
        let r = req(op, format, rules, &args);
        let e = evaluate(&r).unwrap();
        for o in &e.outputs {
            prop_assert!(!o.allowed.is_empty(), "{op} {args:x?}: empty set");
            let ok = o.allowed.contains(&o.domain, o.preferred)
                || (o.domain.is_nan(o.preferred) && o.allowed.nan);
            prop_assert!(ok, "{op} {args:x?}: preferred {:#x} not in {:x?}", o.preferred,
                o.allowed.bit_ranges(&o.domain));
        }
    }

    /// itof/utof: the CPU's conversion (round to nearest even) is allowed, and so is the
    /// truncated one; exact conversions allow only themselves.
    #[test]
    fn int_to_float_against_cpu(n in any::<i32>(), u in any::<u32>()) {
        let e = evaluate(&OpRequest::from_bits(Op::Itof, F32, RuleSet::D3D11, &[&[n as u32 as u64]]))
            .unwrap();
        let (set, d) = allowed(&e);
        prop_assert!(set.contains(&d, (n as f32).to_bits() as u64));
        let count = members(set, &d).len();
        prop_assert_eq!(count, if (n as f32) as i64 == n as i64 { 1 } else { 2 });
        let e = evaluate(&OpRequest::from_bits(Op::Utof, F32, RuleSet::D3D11, &[&[u as u64]]))
            .unwrap();
        let (set, d) = allowed(&e);
        prop_assert!(set.contains(&d, (u as f32).to_bits() as u64));
    }

    /// ftoi/ftou: Rust's saturating casts truncate toward zero and map NaN to 0, the rule of
    /// §22.13.3-4 as the tool reads it.
    #[test]
    fn float_to_int_against_cpu(a in pattern(F32)) {
        let x = ftz_in(f32::from_bits(a as u32));
        let e = eval("ftoi", F32, RuleSet::D3D11, &[a]);
        prop_assert_eq!(e.main_output().preferred, (x as i32) as u32 as u64);
        let e = eval("ftou", F32, RuleSet::D3D11, &[a]);
        prop_assert_eq!(e.main_output().preferred, (x as u32) as u64);
    }

    /// f32tof16 rounds toward zero with overflow to 65504 (§3.2.2): compare with `half`'s
    /// round-to-nearest result, which is never farther from zero.
    #[test]
    fn f32_to_f16_toward_zero(a in pattern(F32)) {
        let x = f32::from_bits(a as u32);
        let e = eval("f32tof16", F32, RuleSet::D3D11, &[a]);
        let got = half::f16::from_bits(e.main_output().preferred as u16);
        if x.is_nan() {
            prop_assert!(got.is_nan());
        } else if x.is_infinite() {
            prop_assert_eq!(got.to_f32(), x);
        } else {
            let g = got.to_f32();
            prop_assert!(g.abs() <= x.abs() && g.is_finite());
            // Nothing representable lies strictly between the result and x.
            let next = half::f16::from_bits(got.to_bits() + 1).to_f32();
            prop_assert!(next.abs() > x.abs() || got.to_bits() & 0x7fff == 0x7bff);
        }
    }
}

/// Calls `each` with every permutation of `v[k..]` (Heap's algorithm, recursively).
fn permute(v: &mut Vec<usize>, k: usize, each: &mut dyn FnMut(&[usize])) {
    if k == v.len() {
        each(v);
        return;
    }
    for i in k..v.len() {
        v.swap(k, i);
        permute(v, k + 1, each);
        v.swap(k, i);
    }
}
