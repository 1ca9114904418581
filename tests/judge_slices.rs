//! The judge over slices against the exact engine, element by element: wherever a fast
//! decider proves a line conforming, `d3d::evaluate` must agree at the same distance, and a
//! whole run with the fast deciders must report exactly what the engine alone reports
//! (counts, distances, classes, examples, violations).
//!
//! Lines mix random bit patterns, specials, denorms, ties, values near overflow and
//! cancelling pairs; results are the correctly rounded one, its neighbours, the ends of the
//! allowed set and just past them, NaN, zeros and noise. `JUDGE_LINES` sets the lines per
//! instruction and format: 20,000 in the normal suite (the whole file takes about five
//! minutes of the debug test build on two cores, the longest in CI), and
//! `JUDGE_LINES=1000000 cargo test --release --test judge_slices` is the sweep of 10^6 lines
//! per instruction and format (about ten minutes on two cores; the exact engine's irrational
//! bounds are the cost). The exhaustive f16 tests and the `#[ignore]`d pair sweep do not
//! depend on it.

use d3dfloat::d3d::{Domain, INSTRUCTIONS, Op, OpRequest, RuleSet, evaluate};
use d3dfloat::format::{Arithmetic, F16, F32, FloatFormat};
use d3dfloat::judge::{Buffer, Column, Elem, Judge, Options, Verdict};
use rayon::prelude::*;

/// xorshift64*: small, seeded, reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn lines_per_instruction() -> usize {
    std::env::var("JUDGE_LINES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_000)
}

/// A float operand pattern: any bits, a special, a moderate value, or one related to the
/// previous operand (same binade, or its negation a few steps off: cancellation).
fn float_operand(rng: &mut Rng, f: &FloatFormat, op: Op, prev: Option<u64>) -> u64 {
    let w = f.width();
    let frac = f.frac_bits;
    let bias = (1i64 << (w - frac - 2)) - 1;
    let sign = f.assemble(true, 0, 0);
    let mask = f.mask();
    let pick = rng.below(100);
    let from_f64 = |v: f64| -> u64 {
        if w == 32 {
            (v as f32).to_bits() as u64
        } else {
            half::f16::from_f64(v).to_bits() as u64
        }
    };
    match pick {
        0..=24 => rng.next() & mask,
        25..=34 => {
            let specials = [
                0,
                sign,
                f.infinity(false),
                f.infinity(true),
                f.quiet_nan(),
                f.quiet_nan() | 1,
                f.min_subnormal(),
                f.min_subnormal() | sign,
                f.min_normal() - 1,
                f.min_normal(),
                f.min_normal() | sign,
                f.max_finite(),
                f.max_finite() | sign,
                f.max_finite() - 1,
                from_f64(1.0),
                from_f64(-1.0),
                from_f64(2.0),
                from_f64(0.5),
                from_f64(1.5),
                from_f64(-2.5),
            ];
            specials[rng.below(specials.len() as u64) as usize]
        }
        35..=64 => {
            let e = (bias + rng.below(41) as i64 - 20).clamp(1, 2 * bias) as u64;
            let s = if rng.below(2) == 0 { 0 } else { sign };
            s | (e << frac) | (rng.next() & ((1 << frac) - 1))
        }
        65..=79 if prev.is_some() => {
            let p = prev.unwrap();
            match rng.below(3) {
                // Its negation a few steps away: sums cancel.
                0 => (p ^ sign).wrapping_add(rng.below(5)).wrapping_sub(2) & mask,
                // The same binade.
                1 => (p & !((1 << frac) - 1)) | (rng.next() & ((1 << frac) - 1)),
                // A power of two near it: ties and exact quotients.
                _ => (p & !((1 << frac) - 1)) ^ (rng.below(2) << (w - 1)),
            }
        }
        65..=89 => {
            // The instruction's interesting range.
            let v = match op {
                Op::Exp => rng.unit() * 300.0 - 160.0,
                Op::Log | Op::Rsq | Op::Sqrt | Op::Rcp => 2f64.powf(rng.unit() * 80.0 - 40.0),
                Op::Sincos | Op::Sin | Op::Cos => rng.unit() * 800.0 - 400.0,
                Op::Ftoi => (rng.unit() * 2.0 - 1.0) * 2f64.powi(32),
                Op::Ftou => (rng.unit() * 1.2 - 0.1) * 2f64.powi(33),
                Op::F32ToF16 => (rng.unit() * 2.0 - 1.0) * 70000.0 * 2f64.powf(-rng.unit() * 30.0),
                _ => (rng.unit() * 2.0 - 1.0) * 2f64.powf(rng.unit() * 20.0 - 10.0),
            };
            from_f64(v)
        }
        _ => {
            // Small integers and halves: exact results and ties.
            let v = (rng.below(64) as f64 - 32.0) / 2.0;
            from_f64(v)
        }
    }
}

/// An integer operand (itof, utof): any word, or one near 2^24 and 2^31 where rounding starts
/// and the sign turns.
fn int_operand(rng: &mut Rng) -> u64 {
    match rng.below(4) {
        0 => rng.next() & 0xffff_ffff,
        1 => ((1u64 << 24) + rng.below(64)).wrapping_sub(32) & 0xffff_ffff,
        2 => (rng.below(1 << 8) << rng.below(24)) ^ (rng.below(2) * 0xffff_ffff) & 0xffff_ffff,
        _ => (0x8000_0000u64 + rng.below(512)).wrapping_sub(256) & 0xffff_ffff,
    }
}

/// A result for an output whose correctly rounded pattern and allowed set the engine gave:
/// that pattern, a neighbour, the set's ends and just past them, NaN, a zero, noise.
fn result_for(rng: &mut Rng, out: &d3dfloat::d3d::OutputResult) -> u64 {
    let d = out.domain;
    let mask = if d.width() == 64 {
        u64::MAX
    } else {
        (1u64 << d.width()) - 1
    };
    if d == Domain::Bool {
        return [0, 0xffff_ffff, out.preferred, 1][rng.below(4) as usize];
    }
    let nan = match d {
        Domain::Float(f) => f.quiet_nan(),
        _ => rng.next() & mask,
    };
    let key = d.key(out.preferred);
    let at = |k: i64| d.bits(k) & mask;
    let pick = rng.below(100);
    match (pick, key) {
        (0..=44, _) => out.preferred,
        (45..=59, Some(k)) => at(if rng.below(2) == 0 { k - 1 } else { k + 1 }),
        (60..=69, Some(k)) => at(k + rng.below(31) as i64 - 15),
        (70..=84, _) if !out.allowed.key_ranges().is_empty() => {
            let ranges = out.allowed.key_ranges();
            let (l, h) = ranges[rng.below(ranges.len() as u64) as usize];
            at([l, h, l - 1, h + 1][rng.below(4) as usize])
        }
        (85..=89, _) => nan,
        (90..=94, _) => match d {
            Domain::Float(f) => out.preferred ^ f.assemble(true, 0, 0),
            _ => 0,
        },
        _ => rng.next() & mask,
    }
}

/// Lines of one instruction: operand patterns (one vector per operand, components in
/// order) and result patterns (every output in order).
struct Lines {
    operands: Vec<Vec<u64>>,
    results: Vec<u64>,
}

/// Random operands for line generation.
fn random_operand(
    judge: &Judge,
) -> impl Fn(&mut Rng, usize, usize, Option<u64>) -> u64 + Sync + '_ {
    move |rng, _, _, prev| match judge.operand_domain() {
        Domain::Float(f) => float_operand(rng, &f, judge.op(), prev),
        _ => int_operand(rng),
    }
}

fn make_lines(judge: &Judge, n: usize, seed: u64) -> Lines {
    make_lines_of(judge, n, seed, random_operand(judge))
}

/// `n` lines whose operand components `operand(rng, line, component, previous one)` makes,
/// with
/// results drawn around what the engine allows.
fn make_lines_of(
    judge: &Judge,
    n: usize,
    seed: u64,
    operand: impl Fn(&mut Rng, usize, usize, Option<u64>) -> u64 + Sync,
) -> Lines {
    let (count, width) = judge.arity();
    let per_task = 4096;
    let parts: Vec<(Vec<Vec<u64>>, Vec<u64>)> = (0..n.div_ceil(per_task))
        .into_par_iter()
        .map(|t| {
            let mut rng = Rng(seed ^ (t as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15));
            let mut ops = vec![Vec::new(); count];
            let mut res = Vec::new();
            for line in t * per_task..((t + 1) * per_task).min(n) {
                let mut args: Vec<Vec<u64>> = Vec::new();
                let mut prev = None;
                for j in 0..count {
                    let comps: Vec<u64> = (0..width)
                        .map(|c| {
                            let p = operand(&mut rng, line, j * width + c, prev);
                            prev = Some(p);
                            p
                        })
                        .collect();
                    args.push(comps);
                }
                let refs: Vec<&[u64]> = args.iter().map(|a| a.as_slice()).collect();
                let req = OpRequest::from_bits(judge.op(), judge.format(), judge.rules(), &refs);
                let eval = evaluate(&req).expect("the engine takes every generated line");
                for (j, a) in args.iter().enumerate() {
                    ops[j].extend(a);
                }
                for out in &eval.outputs {
                    res.push(result_for(&mut rng, out));
                }
            }
            (ops, res)
        })
        .collect();
    let mut lines = Lines {
        operands: vec![Vec::new(); count],
        results: Vec::new(),
    };
    for (ops, res) in parts {
        for (j, o) in ops.into_iter().enumerate() {
            lines.operands[j].extend(o);
        }
        lines.results.extend(res);
    }
    lines
}

/// The lines as the judge's slices: one per operand, and the results.
fn buffers(judge: &Judge, lines: &Lines) -> (Vec<Buffer>, Buffer) {
    let elem = Elem::of(&judge.operand_domain());
    let operands = lines
        .operands
        .iter()
        .map(|o| Buffer::from_patterns(elem, o.iter().copied()))
        .collect();
    let res = Buffer::from_patterns(judge.result_elem(), lines.results.iter().copied());
    (operands, res)
}

/// Holds the judge to the engine on `lines`, line by line (the fast deciders' verdicts,
/// conforming or violating, against the engine's) and whole runs with and without them
/// (counts, distances, histogram, classes with their examples, violations, the map);
/// returns the share the fast deciders settled.
fn agree_verdicts(judge: &Judge, lines: &Lines, both: bool) -> f64 {
    let (owned, res) = buffers(judge, lines);
    let cols: Vec<Column> = owned.iter().map(Buffer::column).collect();
    let n = lines.results.len() / judge.outputs();
    let what = format!(
        "{} {} {:?}",
        judge.name(),
        judge.format().name,
        judge.rules()
    );
    (0..n).into_par_iter().for_each(|i| {
        if let Some(fast) = judge.fast_verdict(&cols, res.column(), i) {
            let exact = judge.exact_line(&cols, res.column(), i).unwrap();
            assert_eq!(
                fast,
                exact,
                "{what}: the fast decider and the engine differ: {}",
                judge.example(&cols, res.column(), i)
            );
            assert_eq!(
                judge.fast_line(&cols, res.column(), i),
                fast.conforms.then(|| fast.distance.unwrap())
            );
        }
    });
    let all = |fast| {
        let opts = Options {
            violation_limit: usize::MAX,
            fast,
            map: true,
            ..Options::default()
        };
        judge.run(&cols, res.column(), &opts).unwrap()
    };
    let (fast, slow): (Verdict, Verdict) = (all(true), all(false));
    assert_eq!(slow.exact_engine, n as u64);
    // The map (the report's chart) counts every line once, in the cell of its operands,
    // with the verdict's own numbers; each cell's example is its worst line.
    let map = slow.map.as_ref().expect("asked for a map");
    let cells = &map.cells;
    assert_eq!(
        cells.iter().map(|c| c.lines).sum::<u64>(),
        n as u64,
        "{what}"
    );
    assert_eq!(
        cells.iter().map(|c| c.violate).sum::<u64>(),
        slow.violate,
        "{what}"
    );
    assert_eq!(
        cells.iter().map(|c| c.nan).sum::<u64>(),
        slow.histogram.nan,
        "{what}"
    );
    assert_eq!(
        cells.iter().map(|c| c.max).max(),
        Some(slow.max_distance),
        "{what}"
    );
    for (c, cell) in cells.iter().enumerate() {
        let has_distance = cell.lines > cell.nan;
        let e = map.example(c);
        assert_eq!(e.is_some(), has_distance, "{what}: cell {c}");
        if let Some(e) = e {
            let line = judge.judge_patterns(&e.args, &e.results).unwrap();
            assert_eq!(line.distance, Some(cell.max), "{what}: cell {c}");
        }
    }
    let settled = n as u64 - fast.exact_engine;
    let fast = Verdict {
        exact_engine: slow.exact_engine,
        ..fast
    };
    assert_eq!(fast, slow, "{what}: a run with the fast deciders differs");
    // Without a map (a sweep's and `op`'s usual run, where a decider may count a block of
    // lines whole), the same verdict again.
    let unmapped = judge
        .run(
            &cols,
            res.column(),
            &Options {
                violation_limit: usize::MAX,
                ..Options::default()
            },
        )
        .unwrap();
    let unmapped = Verdict {
        exact_engine: slow.exact_engine,
        map: slow.map.clone(),
        ..unmapped
    };
    assert_eq!(unmapped, slow, "{what}: a run without a map differs");
    if both {
        assert!(slow.violate > 0 && slow.conform > 0, "{what}: {slow:?}");
    }
    // Without classes (`op --plain`), the same violations by index, unnamed; a short list
    // keeps the first violations by index, whoever found them. (The engine's own runs
    // list the same indexes either way: the fast runs are held to `slow`.)
    let fast_run = |classify, violation_limit| {
        let opts = Options {
            violation_limit,
            classify,
            ..Options::default()
        };
        judge.run(&cols, res.column(), &opts).unwrap()
    };
    let unnamed = fast_run(false, usize::MAX).violations;
    let indexes = |v: &[d3dfloat::judge::Violation]| v.iter().map(|v| v.index).collect::<Vec<_>>();
    assert_eq!(
        indexes(&unnamed),
        indexes(&slow.violations),
        "{what}: unnamed"
    );
    assert!(unnamed.iter().all(|v| v.class.is_none()), "{what}");
    let short = fast_run(true, 7).violations;
    assert_eq!(
        short[..],
        slow.violations[..slow.violations.len().min(7)],
        "{what}: short"
    );
    settled as f64 / n as f64
}

/// [`agree_verdicts`], asking for both verdicts to occur.
fn agree(judge: &Judge, lines: &Lines) -> f64 {
    agree_verdicts(judge, lines, true)
}

fn instruction(name: &str, f: &FloatFormat, rules: RuleSet) -> Judge {
    Judge::parse(name, f, rules).unwrap()
}

/// Every instruction row of a format (conversions in f32), with its share settled fast.
fn sweep(f: &FloatFormat, rules: RuleSet, n: usize, only_rule_dependent: bool) {
    let mut report = Vec::new();
    for row in INSTRUCTIONS.iter() {
        if f.arithmetic == Arithmetic::Float16 && !row.has_f16_form() {
            continue;
        }
        if *f != F32 && row.is_conversion() {
            continue;
        }
        if row.converts_doubles() {
            continue;
        }
        let rule_dependent = matches!(
            row.op,
            Op::Add | Op::Sub | Op::Mul | Op::Div | Op::Mad | Op::Dp2 | Op::Dp3 | Op::Dp4 | Op::Frc
        );
        if only_rule_dependent && !rule_dependent {
            continue;
        }
        let judge = instruction(row.name, f, rules);
        let lines = make_lines(&judge, n, 0x5eed ^ row.name.len() as u64);
        let share = agree(&judge, &lines);
        report.push(format!("{} {:.2}", row.name, share));
    }
    eprintln!(
        "settled fast ({} {:?}): {}",
        f.name,
        rules,
        report.join(", ")
    );
}

#[test]
fn f32_instructions_agree_with_the_engine() {
    sweep(&F32, RuleSet::D3D11, lines_per_instruction(), false);
}

#[test]
fn f32_d3d10_arithmetic_agrees_with_the_engine() {
    sweep(&F32, RuleSet::D3D10, lines_per_instruction() / 4, true);
}

#[test]
fn f16_instructions_agree_with_the_engine() {
    sweep(&F16, RuleSet::D3D11, lines_per_instruction(), false);
}

#[test]
fn every_f16_pattern_of_every_unary_f16_instruction() {
    let mut report = Vec::new();
    for row in INSTRUCTIONS
        .iter()
        .filter(|r| r.has_f16_form() && r.operands == 1)
    {
        let judge = instruction(row.name, &F16, RuleSet::D3D11);
        let lines = make_lines_of(&judge, 1 << 16, 0xf16, |_, line, _, _| line as u64);
        assert_eq!(lines.operands[0][0x3c00], 0x3c00);
        report.push(format!("{} {:.2}", row.name, agree(&judge, &lines)));
    }
    assert_eq!(report.len(), 13, "{report:?}");
    eprintln!("settled fast (every f16 pattern): {}", report.join(", "));
}

/// Every pair of f16 operands of add and mul (2^32 lines each), against a reference
/// the judge shares nothing with: the f32 sum or product (correctly rounded by the CPU)
/// rounded to f16 by the `half` crate (F16C where present). Rounding twice is exact here
/// (24 >= 2 * 11 + 2). Every such result conforms at distance 0, and no result one
/// pattern off is settled as conforming. Run with
/// `cargo test --release --test judge_slices -- --ignored`.
#[test]
#[ignore = "2^33 lines: minutes in a release build"]
fn every_f16_pair_of_add_and_mul() {
    for name in ["add", "mul"] {
        let judge = instruction(name, &F16, RuleSet::D3D11);
        let block = 1usize << 24;
        let mut total = Verdict::default();
        for hi in 0..(1usize << 32) / block {
            let idx = |k: usize| hi * block + k;
            let a: Vec<u16> = (0..block).map(|k| (idx(k) >> 16) as u16).collect();
            let b: Vec<u16> = (0..block).map(|k| idx(k) as u16).collect();
            let r: Vec<u16> = a
                .par_iter()
                .zip(&b)
                .map(|(&x, &y)| {
                    let (x, y) = (
                        half::f16::from_bits(x).to_f32(),
                        half::f16::from_bits(y).to_f32(),
                    );
                    let v = if name == "add" { x + y } else { x * y };
                    half::f16::from_f32(v).to_bits()
                })
                .collect();
            let cols = [Column::U16(&a), Column::U16(&b)];
            let opts = Options {
                base: (hi * block) as u64,
                ..Options::default()
            };
            let v = judge.run(&cols, Column::U16(&r), &opts).unwrap();
            assert_eq!(v.violate, 0, "{name}: {:?}", v.classes);
            assert_eq!(v.max_distance, 0, "{name}");
            // A finite result one pattern off is never settled fast.
            let off: Vec<u16> = r.iter().map(|&x| x ^ 1).collect();
            let wrongly = (0..block)
                .into_par_iter()
                .filter(|&k| {
                    let finite = off[k] & 0x7c00 != 0x7c00 && r[k] & 0x7c00 != 0x7c00;
                    finite && judge.fast_line(&cols, Column::U16(&off), k).is_some()
                })
                .count();
            assert_eq!(wrongly, 0, "{name}: results one off settled as conforming");
            total.merge(v, 0);
        }
        assert_eq!(total.lines, 1 << 32);
        eprintln!(
            "{name}: {} lines, {} through the exact engine",
            total.lines, total.exact_engine
        );
    }
}

/// Operands at the edges the deciders treat apart: products and quotients that underflow
/// into the flushed denorms or overflow, zero and infinite operands, exp's cut-offs, rcp of
/// the largest values; each with results drawn around the allowed set.
#[test]
fn edge_operands_agree_with_the_engine() {
    let edges: &[(&str, &[&[u32]])] = &[
        (
            "mad",
            &[
                &[0x0080_0000, 0x3f00_0000, 0],
                &[0x0080_0000, 0x3f00_0000, 0x8000_0000],
                &[0x0080_0000, 0xbf7f_ffff, 0x0000_0001],
                &[0x7f00_0000, 0x7f00_0000, 0],
                &[0x7f00_0000, 0x7f00_0000, 0xff80_0000],
                &[0, 0x7f80_0000, 0x3f80_0000],
                &[0x2000_0000, 0x2000_0000, 0x0080_0000],
                &[0x3f80_0001, 0x3f80_0001, 0xbf80_0002],
            ],
        ),
        (
            "div",
            &[
                &[0x0080_0000, 0x4000_0000],
                &[0x0080_0000, 0x4040_0000],
                &[0x7f00_0000, 0x3e80_0000],
                &[0x7f7f_ffff, 0x3f7f_ffff],
                &[0, 0],
                &[0x3f80_0000, 0],
                &[0x7f80_0000, 0x7f80_0000],
                &[0x3f80_0000, 0x7f80_0000],
                &[0x7f80_0000, 0x7f00_0000],
            ],
        ),
        (
            "mul",
            &[
                &[0x0080_0000, 0x3f00_0000],
                &[0x0080_0000, 0x3f7f_ffff],
                &[0x7f00_0000, 0x4000_0000],
                &[0x7f7f_ffff, 0x3f80_0001],
                &[0x2000_0000, 0x2000_0000],
            ],
        ),
        (
            "add",
            &[
                &[0x0080_0001, 0x8080_0000],
                &[0x7f7f_ffff, 0x7380_0000],
                &[0x7f7f_ffff, 0x7400_0000],
            ],
        ),
        (
            "rcp",
            &[
                &[0x7e80_0001],
                &[0x7f00_0000],
                &[0xfe7f_ffff],
                &[0x7e00_0001],
            ],
        ),
        (
            "exp",
            &[
                &[0xc300_0000],
                &[0xc316_0000],
                &[0xc2fe_0000],
                &[0x4300_0000],
                &[0x42fe_0000],
                &[0xc315_0000],
            ],
        ),
    ];
    let mut settled = 0;
    for rules in [RuleSet::D3D11, RuleSet::D3D10] {
        for (name, tuples) in edges {
            let judge = instruction(name, &F32, rules);
            let n = tuples.len() * 64;
            let lines = make_lines_of(&judge, n, 0xed9e, |_, line, k, _| {
                tuples[line % tuples.len()][k] as u64
            });
            settled += agree_loosely(&judge, &lines);
        }
    }
    // The edges are the deciders' to settle, not the engine's alone.
    assert!(settled > 1000, "{settled}");
}

/// As `agree`, without asking for both verdicts to occur (an edge may allow everything);
/// returns the lines the fast deciders settled.
fn agree_loosely(judge: &Judge, lines: &Lines) -> usize {
    let (owned, res) = buffers(judge, lines);
    let cols: Vec<Column> = owned.iter().map(Buffer::column).collect();
    let mut settled = 0;
    for i in 0..lines.results.len() / judge.outputs() {
        if let Some(d) = judge.fast_line(&cols, res.column(), i) {
            settled += 1;
            let exact = judge.exact_line(&cols, res.column(), i).unwrap();
            assert!(
                exact.conforms && exact.distance == Some(d),
                "{} {:?}: fast says conforms at {d}, the engine {exact:?}: {}",
                judge.name(),
                judge.rules(),
                judge.example(&cols, res.column(), i)
            );
        }
    }
    settled
}

/// An operand that makes devices go wrong: 32-bit denorms, NaNs, infinities and zeros,
/// values at float16's top (65504, 65520) and at the integer conversions' ends (2^31,
/// 2^32), half-way cases of float16, and otherwise the random mix.
fn troublesome_operand(rng: &mut Rng, f: &FloatFormat, op: Op, prev: Option<u64>) -> u64 {
    let sign = if rng.below(2) == 0 { 0 } else { 0x8000_0000 };
    if *f != F32 {
        return float_operand(rng, f, op, prev);
    }
    match rng.below(20) {
        0..=5 => sign | (rng.next() & 0x7f_ffff).max(1),
        6 => [0x7fc0_0000, 0xffc0_0001, 0x7f80_0001][rng.below(3) as usize],
        7 => sign | [0, 0x7f80_0000][rng.below(2) as usize],
        8 => {
            // Around 65504, 65520 and float16's smallest subnormal.
            let base = [
                0x477f_e000u64,
                0x477f_f000,
                0x3380_0000,
                0x3300_0000,
                0x3880_0000,
            ];
            let b = base[rng.below(base.len() as u64) as usize];
            sign | (b + rng.below(64)).wrapping_sub(32) & 0x7fff_ffff
        }
        9 => {
            // Around 2^31 and 2^32.
            let b = [0x4f00_0000u64, 0x4f80_0000][rng.below(2) as usize];
            sign | (b + rng.below(16)).wrapping_sub(8)
        }
        10 => {
            // float16 half-way cases: 12 or more low bits of an f32 in float16's range.
            let e = 103 + rng.below(40);
            sign | e << 23
                | (rng.next() & 0x7f_e000)
                | [0x1000, 0x0fff, 0x1001][rng.below(3) as usize]
        }
        11 => {
            // From 2^126 up: reciprocals (and quotients) among the denorms, which a device
            // that does not flush returns as they are.
            sign | (0x7e80_0000 + (rng.next() & 0xff_ffff)).min(0x7f7f_ffff)
        }
        _ => float_operand(rng, f, op, prev),
    }
}

/// What a device that flushes nothing, rounds f32tof16 to nearest, converts to integers
/// unclamped (x86's 0x80000000 for whatever does not fit) and lets a NaN through min and
/// max returns: the CPU's f32 arithmetic on the operands as given.
fn careless_device(op: Op, args: &[u64], _outputs: usize) -> Vec<u64> {
    let x: Vec<f32> = args.iter().map(|&b| f32::from_bits(b as u32)).collect();
    let f = |v: f32| v.to_bits() as u64;
    let g = |v: f64| f(v as f32);
    let nan_min_max = |is_min: bool| {
        if x[0].is_nan() || x[1].is_nan() {
            f(f32::NAN)
        } else if (x[0] < x[1]) == is_min {
            f(x[0])
        } else {
            f(x[1])
        }
    };
    let r = match op {
        Op::Add => f(x[0] + x[1]),
        Op::Sub => f(x[0] - x[1]),
        Op::Mul => f(x[0] * x[1]),
        Op::Div => f(x[0] / x[1]),
        Op::Mad => f(x[0] * x[1] + x[2]),
        Op::Min => nan_min_max(true),
        Op::Max => nan_min_max(false),
        Op::Sqrt => f(x[0].sqrt()),
        Op::Rsq => g(1.0 / (x[0] as f64).sqrt()),
        Op::Rcp => f(1.0 / x[0]),
        Op::Exp => g((x[0] as f64).exp2()),
        Op::Log => g((x[0] as f64).log2()),
        Op::Frc => f(x[0] - x[0].floor()),
        Op::RoundNe => f(x[0].round_ties_even()),
        Op::RoundNi => f(x[0].floor()),
        Op::RoundPi => f(x[0].ceil()),
        Op::RoundZ => f(x[0].trunc()),
        Op::Sin => g((x[0] as f64).sin()),
        Op::Cos => g((x[0] as f64).cos()),
        Op::Sincos => return vec![g((x[0] as f64).sin()), g((x[0] as f64).cos())],
        Op::Ftoi | Op::Ftou => {
            let v = x[0] as f64;
            let fits = if op == Op::Ftoi {
                v > -2147483649.0 && v < 2147483648.0
            } else {
                v > -1.0 && v < 4294967296.0
            };
            if fits {
                v as i64 as u32 as u64
            } else {
                0x8000_0000
            }
        }
        Op::F32ToF16 => half::f16::from_f32(x[0]).to_bits() as u64,
        _ => return Vec::new(),
    };
    vec![r]
}

/// Lines of `judge` whose results a device model gives (where it has no model, results
/// drawn around the allowed set).
fn device_lines(
    judge: &Judge,
    n: usize,
    seed: u64,
    device: impl Fn(Op, &[u64], usize) -> Vec<u64> + Sync,
) -> Lines {
    let mut lines = make_lines_of(judge, n, seed, |rng, _, _, prev| {
        match judge.operand_domain() {
            Domain::Float(f) => troublesome_operand(rng, &f, judge.op(), prev),
            _ => int_operand(rng),
        }
    });
    let (count, width) = judge.arity();
    let outputs = judge.outputs();
    for i in 0..n {
        let args: Vec<u64> = (0..count)
            .flat_map(|j| (0..width).map(move |c| (j, c)))
            .map(|(j, c)| lines.operands[j][i * width + c])
            .collect();
        let r = device(judge.op(), &args, outputs);
        if r.len() == outputs {
            lines.results[i * outputs..(i + 1) * outputs].copy_from_slice(&r);
        }
    }
    lines
}

/// Devices that get instructions systematically wrong: every f32 instruction and both rule
/// sets, on operands chosen to provoke each class (denorms not flushed, f32tof16 to
/// nearest, unclamped conversions, NaN through min and max, inf for 65504). The fast
/// deciders must name every violation as the engine does, and settle most of them.
#[test]
fn careless_devices_agree_with_the_engine() {
    let n = lines_per_instruction() / 4;
    let mut report = Vec::new();
    for rules in [RuleSet::D3D11, RuleSet::D3D10] {
        for row in INSTRUCTIONS.iter() {
            if row.converts_doubles() || matches!(row.op, Op::Dp2 | Op::Dp3 | Op::Dp4) {
                continue;
            }
            let judge = instruction(row.name, &F32, rules);
            let lines = device_lines(&judge, n, 0xca7e ^ row.name.len() as u64, careless_device);
            let share = agree_verdicts(&judge, &lines, false);
            report.push(format!("{} {:.2}", row.name, share));
            let must = match row.op {
                Op::F32ToF16 | Op::Ftoi | Op::Ftou | Op::F16ToF32 | Op::Min | Op::Max => 1.0,
                Op::Eq | Op::Ne | Op::Lt | Op::Ge | Op::Gt | Op::Le => 1.0,
                Op::Sqrt | Op::Add | Op::Sub | Op::Mul | Op::Div | Op::RoundNe => 0.95,
                Op::Log | Op::Exp | Op::Rsq | Op::Rcp | Op::Sincos => 0.95,
                _ => 0.0,
            };
            assert!(share >= must, "{} {rules:?}: settled {share}", row.name);
        }
        eprintln!(
            "settled fast (careless device, {rules:?}): {}",
            report.join(", ")
        );
        report.clear();
    }
}

/// f32tof16 lines of a careless device (seed `seed`) where every `step`th line is a random
/// bit pattern and its float16 rounded to nearest (`half`'s conversion).
fn rounded_to_nearest(judge: &Judge, seed: u64, step: usize) -> Lines {
    let n = lines_per_instruction();
    let mut lines = device_lines(judge, n, seed, careless_device);
    let mut rng = Rng(seed * 0x101);
    for i in (0..n).step_by(step) {
        let x = rng.next() & 0xffff_ffff;
        lines.operands[0][i] = x;
        lines.results[i] = half::f16::from_f32(f32::from_bits(x as u32)).to_bits() as u64;
    }
    lines
}

/// f32tof16 on a device that rounds to nearest, every line a random bit pattern (NaNs,
/// denorms and values beyond 65504 among them), so that most blocks of lines hold only
/// conforming and rounded-to-nearest lines and are counted whole: the same verdict as the
/// engine's, the same first violations listed, and every line settled fast.
#[test]
fn f32tof16_to_nearest_counted_a_block_at_a_time() {
    let judge = instruction("f32tof16", &F32, RuleSet::D3D11);
    let lines = rounded_to_nearest(&judge, 0x17, 1);
    assert_eq!(agree_verdicts(&judge, &lines, true), 1.0);
}

/// f32tof16 on a device that rounds to nearest, over random bit patterns and the edges:
/// most lines violate, every one is named fast, as the engine names it.
#[test]
fn f32tof16_to_nearest_is_named_fast() {
    let judge = instruction("f32tof16", &F32, RuleSet::D3D11);
    // Half the lines any bit pattern at all.
    let lines = rounded_to_nearest(&judge, 0x16, 2);
    assert_eq!(agree_verdicts(&judge, &lines, true), 1.0);
    let (owned, res) = buffers(&judge, &lines);
    let cols: Vec<Column> = owned.iter().map(Buffer::column).collect();
    let v = judge.run(&cols, res.column(), &Options::default()).unwrap();
    let nearest = v
        .classes
        .iter()
        .find(|c| c.class.to_string() == "f32tof16 rounds to nearest")
        .expect("the class");
    assert!(
        nearest.count > lines.results.len() as u64 / 4,
        "{:?}",
        v.classes
    );
    assert_eq!(v.exact_engine, 0);
}
