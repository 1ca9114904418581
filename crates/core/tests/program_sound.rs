//! An independent check of the program intervals (`spans`) against the chains they bound:
//! every result a chain of per-instruction choices reaches, enumerated exhaustively
//! (`reachable`) or sampled (`chain`), must lie inside the span; for monotone sequences the
//! span's ends must be reached; special values (NaN, infinities, signed zeros, subnormals)
//! must come out as the rules say.

use std::collections::BTreeSet;
use std::time::Instant;

use d3dfloat_core::d3d::{Domain, RuleSet};
use d3dfloat_core::format::descriptor::FloatFormat;
use d3dfloat_core::format::{F16, F32};
use d3dfloat_core::program::{
    OutputSel, PointEngine, Program, Reg, RegFile, Span, chain, parse_asm, reachable,
    select_output, spans,
};

// ---------------------------------------------------------------------------------------
// A small deterministic PRNG (xorshift64*), no dependency.

struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn chance(&mut self, num: u64, den: u64) -> bool {
        self.next() % den < num
    }
}

/// A count, overridden by the environment variable `PROGRAM_SOUND_<name>`.
fn scale(name: &str, default: usize) -> usize {
    std::env::var(format!("PROGRAM_SOUND_{name}"))
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

// ---------------------------------------------------------------------------------------
// Values.

const CONFIGS: [(RuleSet, FloatFormat, &str); 4] = [
    (RuleSet::D3D11, F32, "d3d11/f32"),
    (RuleSet::D3D11, F16, "d3d11/f16"),
    (RuleSet::D3D10, F32, "d3d10/f32"),
    (RuleSet::D3D10, F16, "d3d10/f16"),
];

/// The pattern of `f` nearest `v`.
fn bits_of(f: &FloatFormat, v: f64) -> u64 {
    if f.width() == 16 {
        half::f16::from_f64(v).to_bits() as u64
    } else {
        (v as f32).to_bits() as u64
    }
}

fn show(f: &FloatFormat, b: u64) -> String {
    format!("{:#x} ({:e})", b, f.to_f64(b))
}

fn key(f: &FloatFormat, b: u64) -> Option<i64> {
    Domain::Float(*f).key(b)
}

/// A value of moderate range, `2^[-6, 6)` times a random significand.
fn moderate(r: &mut Rng, f: &FloatFormat, positive: bool) -> u64 {
    let e = r.unit() * 12.0 - 6.0;
    let v = 2f64.powf(e);
    let neg = !positive && r.chance(1, 2);
    bits_of(f, if neg { -v } else { v })
}

/// An edge value: zeros, subnormals, values next to 1, near overflow, infinities, NaN.
fn edge(r: &mut Rng, f: &FloatFormat) -> u64 {
    let one = bits_of(f, 1.0);
    let pool = [
        0,
        f.min_subnormal(),
        f.min_normal() - 1,
        f.min_normal(),
        one - 1,
        one,
        one + 1,
        f.max_finite(),
        f.max_finite() - 1,
        bits_of(f, f.max_finite_value() / 3.0),
        f.infinity(false),
        f.quiet_nan(),
        bits_of(f, 0.5),
        bits_of(f, 2.0),
        bits_of(f, std::f64::consts::PI),
    ];
    let b = pool[r.below(pool.len())];
    if r.chance(1, 2) { b ^ f.sign_bit() } else { b }
}

/// Inputs v0..v2, four components each.
type Vals = [[u64; 4]; 3];

/// Random inputs: mostly moderate, a quarter edge values, sometimes v1 a few ULPs from v0
/// (so that `v1 - v0` cancels).
fn random_inputs(r: &mut Rng, f: &FloatFormat, edges: bool) -> Vals {
    let mut v = [[0u64; 4]; 3];
    for reg in v.iter_mut() {
        for c in reg.iter_mut() {
            *c = if edges && r.chance(1, 4) {
                edge(r, f)
            } else {
                moderate(r, f, false)
            };
        }
    }
    if r.chance(1, 3) {
        let v0 = v[0];
        for (c, &b) in v0.iter().enumerate() {
            let d = r.below(4) as u64;
            let m = b & f.magnitude_mask();
            if m > 8 && m < f.max_finite() - 8 {
                v[1][c] = if r.chance(1, 2) { b + d } else { b - d };
            }
        }
    }
    v
}

fn getter(v: &Vals) -> impl Fn(Reg, usize) -> Option<u64> + '_ {
    move |reg: Reg, c: usize| {
        (reg.file == RegFile::Input && (reg.index as usize) < v.len())
            .then(|| v[reg.index as usize][c])
    }
}

fn show_inputs(f: &FloatFormat, v: &Vals) -> String {
    v.iter()
        .enumerate()
        .map(|(i, r)| {
            let comps: Vec<String> = r.iter().map(|&b| show(f, b)).collect();
            format!("v{i}=[{}]", comps.join(", "))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

// ---------------------------------------------------------------------------------------
// The intrinsic sequences, as fxc (or DXC) emits them.

/// How a sequence's inputs are drawn for the tightness check.
#[derive(Clone, Copy, PartialEq)]
enum Tight {
    /// Not monotone on positive inputs: ratios only.
    No,
    /// Monotone with positive moderate inputs.
    Positive,
    /// Positive, with v2 (lerp's t) in (0, 1).
    Lerp,
    /// Positive, v0 above 1 (log).
    AboveOne,
}

struct Seq {
    name: &'static str,
    asm: &'static str,
    tight: Tight,
}

const fn seq(name: &'static str, asm: &'static str, tight: Tight) -> Seq {
    Seq { name, asm, tight }
}

const SEQS: &[Seq] = &[
    seq(
        "normalize",
        "dp3 r0.x, v0.xyz, v0.xyz; rsq r0.x, r0.x; mul r1.xyz, r0.xxx, v0.xyz",
        Tight::Positive,
    ),
    seq(
        "length",
        "dp3 r0.x, v0.xyz, v0.xyz; sqrt r0.x, r0.x",
        Tight::Positive,
    ),
    seq(
        "distance",
        "add r0.xyz, v0.xyz, -v1.xyz; dp3 r0.x, r0.xyz, r0.xyz; sqrt r0.x, r0.x",
        Tight::No,
    ),
    seq("dot", "dp3 r0.x, v0.xyz, v1.xyz", Tight::Positive),
    seq(
        "lerp",
        "add r0.xyz, v1.xyz, -v0.xyz; mad r1.xyz, v2.xyz, r0.xyz, v0.xyz",
        Tight::Lerp,
    ),
    seq(
        "lerp_dxc",
        "add r0.xy, v1.xy, -v0.xy; mul r0.xy, r0.xy, v2.xy; add r1.xy, r0.xy, v0.xy",
        Tight::Lerp,
    ),
    seq("saturate", "mov_sat r0.xy, v0.xy", Tight::No),
    seq(
        "smoothstep",
        "add r0.x, -v0.x, v2.x; add r0.y, -v0.x, v1.x; div_sat r0.x, r0.x, r0.y; \
         mad r0.y, r0.x, l(-2.0), l(3.0); mul r0.x, r0.x, r0.x; mul r0.x, r0.x, r0.y",
        Tight::No,
    ),
    seq(
        "pow",
        "log r0.x, v0.x; mul r0.x, r0.x, v1.x; exp r0.x, r0.x",
        Tight::No,
    ),
    seq(
        "exp",
        "mul r0.x, v0.x, l(1.442695); exp r0.x, r0.x",
        Tight::Positive,
    ),
    seq(
        "log",
        "log r0.x, v0.x; mul r0.x, r0.x, l(0.693147)",
        Tight::AboveOne,
    ),
    seq("exp2", "exp r0.xy, v0.xy", Tight::Positive),
    seq("log2", "log r0.xy, v0.xy", Tight::AboveOne),
    seq(
        "reflect",
        "dp3 r0.x, v1.xyz, v0.xyz; add r0.x, r0.x, r0.x; mad r1.xyz, -r0.xxx, v1.xyz, v0.xyz",
        Tight::No,
    ),
    seq("rcp", "rcp r0.xy, v0.xy", Tight::Positive),
    seq("rsqrt", "rsq r0.xy, v0.xy", Tight::Positive),
    seq("sqrt", "sqrt r0.xy, v0.xy", Tight::Positive),
    seq("frac", "frc r0.xy, v0.xy", Tight::No),
    seq("floor", "round_ni r0.xy, v0.xy", Tight::Positive),
    seq("ceil", "round_pi r0.xy, v0.xy", Tight::Positive),
    seq("round", "round_ne r0.xy, v0.xy", Tight::Positive),
    seq("min", "min r0.xy, v0.xy, v1.xy", Tight::Positive),
    seq("max", "max r0.xy, v0.xy, v1.xy", Tight::Positive),
    seq(
        "clamp",
        "max r0.xy, v0.xy, v1.xy; min r0.xy, r0.xy, v2.xy",
        Tight::Positive,
    ),
    seq("mad", "mad r0.xy, v0.xy, v1.xy, v2.xy", Tight::Positive),
    seq("sin", "sincos r0.x, null, v0.x", Tight::No),
    seq("cos", "sincos null, r0.x, v0.x", Tight::No),
    seq("add", "add r0.xy, v0.xy, v1.xy", Tight::Positive),
    seq("sub", "add r0.xy, v0.xy, -v1.xy", Tight::No),
    seq("mul", "mul r0.xy, v0.xy, v1.xy", Tight::Positive),
    seq("div", "div r0.xy, v0.xy, v1.xy", Tight::No),
    seq("negate", "mov r0.xy, -v0.xy", Tight::Positive),
    seq(
        "add_chain",
        "add r0.x, v0.x, v1.x; add r0.x, r0.x, v2.x; add r0.x, r0.x, v0.y",
        Tight::Positive,
    ),
];

// ---------------------------------------------------------------------------------------
// The checks.

struct Case<'a> {
    program: &'a Program,
    text: &'a str,
    rules: RuleSet,
    format: FloatFormat,
    inputs: Vals,
    out: OutputSel,
}

impl Case<'_> {
    fn describe(&self) -> String {
        format!(
            "program '{}', rules {:?}, format f{}, inputs {}",
            self.text,
            self.rules,
            self.format.width(),
            show_inputs(&self.format, &self.inputs)
        )
    }

    /// The span of each output component, or `None` when the interval method declines
    /// (too many corners).
    fn spans(&self, engine: &mut PointEngine) -> Option<Vec<Span>> {
        let get = getter(&self.inputs);
        spans(std::slice::from_ref(self.program), &get, self.out, engine).ok()
    }

    fn show_span(&self, s: &Span) -> String {
        let f = &self.format;
        match s.bits(f) {
            Some((lo, hi)) => format!("[{}, {}] nan {}", show(f, lo), show(f, hi), s.nan),
            None => format!("[] nan {}", s.nan),
        }
    }

    /// Panics when a result lies outside its span.
    fn assert_inside(&self, spans: &[Span], got: &[u64], how: &str) {
        for (i, (&b, s)) in got.iter().zip(spans).enumerate() {
            assert!(
                s.contains(&self.format, b),
                "UNSOUND ({how}): output {i} = {} outside span {}; {}",
                show(&self.format, b),
                self.show_span(s),
                self.describe()
            );
        }
    }
}

/// How a sampled chain picks at each step.
#[derive(Clone, Copy)]
enum Pick {
    Smallest,
    Largest,
    Random,
    Mixed,
}

fn pick(r: &mut Rng, f: &FloatFormat, mode: Pick, c: &[u64]) -> u64 {
    let mode = match mode {
        Pick::Mixed => [Pick::Smallest, Pick::Largest, Pick::Random][r.below(3)],
        m => m,
    };
    let by_key = |b: &&u64| key(f, **b);
    match mode {
        Pick::Smallest => *c
            .iter()
            .filter(|b| key(f, **b).is_some())
            .min_by_key(by_key)
            .unwrap_or(&c[0]),
        Pick::Largest => *c
            .iter()
            .filter(|b| key(f, **b).is_some())
            .max_by_key(by_key)
            .unwrap_or(&c[0]),
        _ => c[r.below(c.len())],
    }
}

/// Runs `n` sampled chains of one case and checks each against the span.
fn sample_chains(case: &Case, engine: &PointEngine, spans: &[Span], r: &mut Rng, n: usize) {
    let get = getter(&case.inputs);
    let f = case.format;
    for k in 0..n {
        let mode = [Pick::Smallest, Pick::Largest, Pick::Random, Pick::Mixed][k % 4];
        let got = chain(case.program, &get, case.out, engine, &mut |_, choices| {
            choices.iter().map(|c| pick(r, &f, mode, c)).collect()
        })
        .unwrap_or_else(|e| panic!("chain failed: {e}; {}", case.describe()));
        case.assert_inside(spans, &got, "sampled chain");
    }
}

/// The exhaustive check of one case: `Some(sets)` when enumerated, after asserting that
/// every reachable pattern lies inside the span.
fn exhaustive(
    case: &Case,
    engine: &PointEngine,
    spans: &[Span],
    budget: u64,
) -> Option<Vec<BTreeSet<u64>>> {
    let get = getter(&case.inputs);
    let sets = reachable(case.program, &get, case.out, engine, budget)
        .unwrap_or_else(|e| panic!("reachable failed: {e}; {}", case.describe()))?;
    for (i, (set, s)) in sets.iter().zip(spans).enumerate() {
        for &b in set {
            assert!(
                s.contains(&case.format, b),
                "UNSOUND (exhaustive): output {i} = {} reachable but outside span {}; {}",
                show(&case.format, b),
                case.show_span(s),
                case.describe()
            );
        }
    }
    Some(sets)
}

/// The hull of a set of patterns as a span.
fn hull(f: &FloatFormat, set: &BTreeSet<u64>) -> Span {
    set.iter()
        .fold(Span::EMPTY, |a, &b| a.union(Span::point(f, b)))
}

#[derive(Default)]
struct Tally {
    cases: usize,
    enumerated: usize,
    over_budget: usize,
    declined: usize,
    chains: usize,
}

/// Part 1: every reachable pattern of every sequence, for `per` random inputs per
/// configuration, lies inside the span.
fn exhaustive_sequences(per: usize, budget: u64, seed: u64) -> Tally {
    let mut t = Tally::default();
    let mut r = Rng::new(seed);
    for (rules, f, _) in CONFIGS {
        let mut engine = PointEngine::new(f, rules);
        for s in SEQS {
            let p = parse_asm(s.asm, f).unwrap();
            let out = select_output(&p, None).unwrap();
            for _ in 0..per {
                let case = Case {
                    program: &p,
                    text: s.asm,
                    rules,
                    format: f,
                    inputs: random_inputs(&mut r, &f, true),
                    out,
                };
                t.cases += 1;
                let Some(sp) = case.spans(&mut engine) else {
                    t.declined += 1;
                    continue;
                };
                match exhaustive(&case, &engine, &sp, budget) {
                    Some(_) => t.enumerated += 1,
                    None => t.over_budget += 1,
                }
            }
        }
    }
    t
}

#[test]
fn exhaustive_sequences_inside_spans() {
    let start = Instant::now();
    let t = exhaustive_sequences(scale("EXH", 40), 20_000, 1);
    eprintln!(
        "exhaustive: {} cases, {} enumerated, {} over budget, {} declined, {:?}",
        t.cases,
        t.enumerated,
        t.over_budget,
        t.declined,
        start.elapsed()
    );
    assert!(t.enumerated * 10 >= t.cases * 8, "too few cases enumerated");
    assert_eq!(t.declined, 0, "the interval method declined a sequence");
}

// ---------------------------------------------------------------------------------------
// Random programs.

const RANDOM_OPS: &[(&str, usize)] = &[
    ("add", 2),
    ("mul", 2),
    ("mad", 3),
    ("div", 2),
    ("dp2", 2),
    ("dp3", 2),
    ("dp4", 2),
    ("min", 2),
    ("max", 2),
    ("sqrt", 1),
    ("rsq", 1),
    ("rcp", 1),
    ("exp", 1),
    ("log", 1),
    ("frc", 1),
    ("round_ne", 1),
    ("round_ni", 1),
    ("round_pi", 1),
    ("round_z", 1),
    ("sincos", 1),
    ("mov", 1),
];

fn mask_text(m: u8) -> String {
    (0..4)
        .filter(|c| m & (1 << c) != 0)
        .map(|c| ['x', 'y', 'z', 'w'][c])
        .collect()
}

/// A random straight-line program of 2 to 6 instructions over v0, v1 and r0..r3.
fn random_program(r: &mut Rng) -> String {
    let mut written = [0u8; 4];
    let n = 2 + r.below(5);
    let mut lines = Vec::new();
    for _ in 0..n {
        let (name, arity) = RANDOM_OPS[r.below(RANDOM_OPS.len())];
        let mut dest = || {
            let reg = r.below(4);
            let mask = 1 + r.below(15) as u8;
            (reg, mask)
        };
        let (d0, m0) = dest();
        let sat = name != "sincos" && r.chance(1, 5);
        let mut srcs = Vec::new();
        for _ in 0..arity {
            if r.chance(1, 8) {
                let lits = ["0.5", "2.0", "-1.0", "3.0", "0.0"];
                srcs.push(format!("l({})", lits[r.below(lits.len())]));
                continue;
            }
            let temps: Vec<usize> = (0..4).filter(|&i| written[i] != 0).collect();
            let (name, avail) = if temps.is_empty() || r.chance(1, 3) {
                (format!("v{}", r.below(2)), 0b1111u8)
            } else {
                let t = temps[r.below(temps.len())];
                (format!("r{t}"), written[t])
            };
            let comps: Vec<usize> = (0..4).filter(|c| avail & (1 << c) != 0).collect();
            let sw: String = (0..4)
                .map(|_| ['x', 'y', 'z', 'w'][comps[r.below(comps.len())]])
                .collect();
            let mut s = format!("{name}.{sw}");
            if r.chance(1, 6) {
                s = format!("|{s}|");
            }
            if r.chance(1, 4) {
                s = format!("-{s}");
            }
            srcs.push(s);
        }
        if name == "mov" && !srcs[0].starts_with('-') && !srcs[0].starts_with('|') && r.chance(1, 2)
        {
            srcs[0] = format!("-{}", srcs[0]);
        }
        let sat_text = if sat { "_sat" } else { "" };
        let line = if name == "sincos" {
            let (d1, m1) = (r.below(4), 1 + r.below(15) as u8);
            match r.below(3) {
                0 => {
                    written[d0] |= m0;
                    format!("sincos r{d0}.{}, null, {}", mask_text(m0), srcs[0])
                }
                1 => {
                    written[d1] |= m1;
                    format!("sincos null, r{d1}.{}, {}", mask_text(m1), srcs[0])
                }
                _ => {
                    written[d0] |= m0;
                    written[d1] |= m1;
                    format!(
                        "sincos r{d0}.{}, r{d1}.{}, {}",
                        mask_text(m0),
                        mask_text(m1),
                        srcs[0]
                    )
                }
            }
        } else {
            written[d0] |= m0;
            format!(
                "{name}{sat_text} r{d0}.{}, {}",
                mask_text(m0),
                srcs.join(", ")
            )
        };
        lines.push(line);
    }
    lines.join("; ")
}

/// Part 2: sampled chains of random programs and of the sequences, `per` chains on each
/// of `cases` random cases per configuration (half random programs, half sequences).
fn sampled(cases: usize, per: usize, seed: u64) -> Tally {
    let mut t = Tally::default();
    let mut r = Rng::new(seed);
    for (rules, f, _) in CONFIGS {
        let mut engine = PointEngine::new(f, rules);
        for k in 0..cases {
            let text: String = if k % 2 == 0 {
                random_program(&mut r)
            } else {
                SEQS[r.below(SEQS.len())].asm.to_string()
            };
            let p = parse_asm(&text, f).unwrap_or_else(|e| panic!("'{text}': {e}"));
            let out = select_output(&p, None).unwrap();
            let case = Case {
                program: &p,
                text: &text,
                rules,
                format: f,
                inputs: random_inputs(&mut r, &f, true),
                out,
            };
            t.cases += 1;
            let t0 = Instant::now();
            let Some(sp) = case.spans(&mut engine) else {
                t.declined += 1;
                continue;
            };
            let t1 = t0.elapsed();
            sample_chains(&case, &engine, &sp, &mut r, per);
            if t0.elapsed().as_secs_f64() > 0.5 {
                eprintln!(
                    "SLOW span {t1:?} total {:?}: {}",
                    t0.elapsed(),
                    case.describe()
                );
            }
            t.chains += per;
        }
    }
    t
}

#[test]
fn sampled_chains_inside_spans() {
    let start = Instant::now();
    let t = sampled(scale("SAMP", 250), 20, 2);
    eprintln!(
        "sampled: {} cases, {} chains, {} declined, {:?}",
        t.cases,
        t.chains,
        t.declined,
        start.elapsed()
    );
    assert!(
        t.declined * 10 <= t.cases,
        "the interval method declined too many programs"
    );
}

#[test]
#[ignore = "10^6 chains: run with --release -- --ignored"]
fn sampled_chains_inside_spans_million() {
    let start = Instant::now();
    let threads = 2;
    let tallies: Vec<Tally> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..threads)
            .map(|i| s.spawn(move || sampled(6250, 20, 100 + i as u64)))
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let chains: usize = tallies.iter().map(|t| t.chains).sum();
    let cases: usize = tallies.iter().map(|t| t.cases).sum();
    let declined: usize = tallies.iter().map(|t| t.declined).sum();
    eprintln!(
        "sampled (large): {cases} cases, {chains} chains, {declined} declined, {:?}",
        start.elapsed()
    );
    assert!(chains >= 900_000);
}

// ---------------------------------------------------------------------------------------
// Part 3: tightness.

fn tight_inputs(r: &mut Rng, f: &FloatFormat, how: Tight) -> Vals {
    let mut v = [[0u64; 4]; 3];
    for reg in v.iter_mut() {
        for c in reg.iter_mut() {
            *c = moderate(r, f, true);
        }
    }
    match how {
        Tight::Lerp => {
            for c in v[2].iter_mut() {
                *c = bits_of(f, 0.05 + 0.9 * r.unit());
            }
        }
        Tight::AboveOne => {
            for c in v[0].iter_mut() {
                *c = bits_of(f, 1.0 + 8.0 * r.unit() + 0.01);
            }
        }
        _ => {}
    }
    v
}

/// Per sequence and configuration: the span's width over the reachable hull's width, in
/// ULPs, `(span, hull)` pairs.
fn tightness(
    per: usize,
    seed: u64,
    assert_monotone: bool,
    print: bool,
) -> Vec<(String, Vec<(u64, u64)>)> {
    let mut r = Rng::new(seed);
    let mut rows = Vec::new();
    for (rules, f, cname) in CONFIGS {
        let mut engine = PointEngine::new(f, rules);
        for s in SEQS {
            let p = parse_asm(s.asm, f).unwrap();
            let out = select_output(&p, None).unwrap();
            let mut widths = Vec::new();
            for _ in 0..per {
                let inputs = if s.tight == Tight::No {
                    random_inputs(&mut r, &f, false)
                } else {
                    tight_inputs(&mut r, &f, s.tight)
                };
                let case = Case {
                    program: &p,
                    text: s.asm,
                    rules,
                    format: f,
                    inputs,
                    out,
                };
                let sp = case.spans(&mut engine).expect("span");
                let sets = match exhaustive(&case, &engine, &sp, 20_000) {
                    Some(sets) => sets,
                    None => {
                        // Beyond the budget: the hull of sampled chains.
                        let get = getter(&case.inputs);
                        let mut sets = vec![BTreeSet::new(); sp.len()];
                        for k in 0..200 {
                            let mode =
                                [Pick::Smallest, Pick::Largest, Pick::Random, Pick::Mixed][k % 4];
                            let got = chain(&p, &get, out, &engine, &mut |_, c| {
                                c.iter().map(|c| pick(&mut r, &f, mode, c)).collect()
                            })
                            .unwrap();
                            case.assert_inside(&sp, &got, "sampled chain");
                            for (s, g) in sets.iter_mut().zip(got) {
                                s.insert(g);
                            }
                        }
                        sets
                    }
                };
                for (i, (set, span)) in sets.iter().zip(&sp).enumerate() {
                    let h = hull(&f, set);
                    // fxc's lerp ends in a mad over an interval operand, where the span
                    // adds the fused band (any serial order's error): not attained under
                    // D3D10, so only its ratio is reported.
                    if assert_monotone && s.tight != Tight::No && s.name != "lerp" {
                        assert_eq!(
                            span.keys,
                            h.keys,
                            "NOT TIGHT: {} output {i}: span {} hull {}; {}",
                            s.name,
                            case.show_span(span),
                            case.show_span(&h),
                            case.describe()
                        );
                    }
                    widths.push((span.ulps(&f), h.ulps(&f)));
                }
            }
            if print {
                let (sw, hw) = widths
                    .iter()
                    .fold((0u64, 0u64), |a, w| (a.0 + w.0, a.1 + w.1));
                let worst = widths
                    .iter()
                    .map(|&(s, h)| (s + 1) as f64 / (h + 1) as f64)
                    .fold(1.0f64, f64::max);
                eprintln!(
                    "tightness {cname:10} {:11} span/hull ULPs {:>8}/{:<8} mean ratio {:7.3} worst (w+1) ratio {:7.3}",
                    s.name,
                    sw,
                    hw,
                    if hw == 0 {
                        f64::NAN
                    } else {
                        sw as f64 / hw as f64
                    },
                    worst
                );
            }
            rows.push((format!("{cname} {}", s.name), widths));
        }
    }
    rows
}

#[test]
fn monotone_sequences_spans_are_attained() {
    let start = Instant::now();
    let rows = tightness(scale("TIGHT", 10), 3, true, true);
    eprintln!("tightness: {} rows, {:?}", rows.len(), start.elapsed());
}

#[test]
#[ignore = "a table of span/hull width ratios per sequence"]
fn tightness_table() {
    tightness(20, 4, false, true);
}

// ---------------------------------------------------------------------------------------
// Part 4: special values.

/// A program, its v0 and v1, and the spans wanted.
type Expect = (&'static str, Vec<u64>, Vec<u64>, Vec<Span>);

/// The span of the last destination's components for `asm` on inputs given as patterns.
fn span_of(asm: &str, rules: RuleSet, f: FloatFormat, v0: &[u64], v1: &[u64]) -> Vec<Span> {
    let p = parse_asm(asm, f).unwrap();
    let out = select_output(&p, None).unwrap();
    let mut inputs = [[0u64; 4]; 3];
    inputs[0][..v0.len()].copy_from_slice(v0);
    inputs[1][..v1.len()].copy_from_slice(v1);
    let case = Case {
        program: &p,
        text: asm,
        rules,
        format: f,
        inputs,
        out,
    };
    let mut engine = PointEngine::new(f, rules);
    let sp = case.spans(&mut engine).expect("span");
    // Every such case is also checked exhaustively.
    exhaustive(&case, &engine, &sp, 20_000).expect("enumerated");
    sp
}

fn rules_formats() -> impl Iterator<Item = (RuleSet, FloatFormat)> {
    CONFIGS.iter().map(|&(r, f, _)| (r, f))
}

#[test]
fn nan_inputs_give_nan_spans() {
    for (rules, f) in rules_formats() {
        let nan = f.quiet_nan();
        let two = bits_of(&f, 2.0);
        for asm in [
            "add r0.x, v0.x, v1.x",
            "mul r0.x, v0.x, v1.x",
            "mad r0.x, v0.x, v1.x, v1.x",
            "div r0.x, v0.x, v1.x",
            "dp3 r0.x, v0.xyz, v1.xyz",
            "sqrt r0.x, v0.x",
            "rsq r0.x, v0.x",
            "rcp r0.x, v0.x",
            "exp r0.x, v0.x",
            "log r0.x, v0.x",
            "frc r0.x, v0.x",
            "round_ne r0.x, v0.x",
            "sincos r0.x, null, v0.x",
            "sincos null, r0.x, v0.x",
            "dp3 r0.x, v0.xyz, v0.xyz; rsq r0.x, r0.x; mul r1.xyz, r0.xxx, v0.xyz",
        ] {
            let sp = span_of(asm, rules, f, &[nan, two, two], &[two, two, two]);
            assert!(
                sp.iter().all(|s| s.nan),
                "{asm} {rules:?} f{}: {sp:?}",
                f.width()
            );
        }
        // min and max return the other operand, _sat gives 0.
        let two_span = Span::point(&f, two);
        for asm in ["min r0.x, v0.x, v1.x", "max r0.x, v0.x, v1.x"] {
            assert_eq!(span_of(asm, rules, f, &[nan], &[two]), [two_span], "{asm}");
            assert_eq!(span_of(asm, rules, f, &[two], &[nan]), [two_span], "{asm}");
        }
        assert_eq!(
            span_of("mov_sat r0.x, v0.x", rules, f, &[nan], &[]),
            [Span::point(&f, 0)],
            "mov_sat NaN {rules:?} f{}",
            f.width()
        );
        assert_eq!(
            span_of("add_sat r0.x, v0.x, v1.x", rules, f, &[nan], &[two]),
            [Span::point(&f, 0)],
            "add_sat NaN"
        );
    }
}

#[test]
fn infinities_propagate() {
    for (rules, f) in rules_formats() {
        let inf = f.infinity(false);
        let ninf = f.infinity(true);
        let one = bits_of(&f, 1.0);
        let two = bits_of(&f, 2.0);
        let nz = f.sign_bit();
        let pt = |b| vec![Span::point(&f, b)];
        let nan_only = vec![Span {
            keys: None,
            nan: true,
        }];
        let cases: Vec<Expect> = vec![
            ("add r0.x, v0.x, v1.x", vec![inf], vec![one], pt(inf)),
            ("add r0.x, v0.x, v1.x", vec![ninf], vec![one], pt(ninf)),
            (
                "add r0.x, v0.x, v1.x",
                vec![inf],
                vec![ninf],
                nan_only.clone(),
            ),
            ("mul r0.x, v0.x, v1.x", vec![ninf], vec![two], pt(ninf)),
            ("mul r0.x, v0.x, v1.x", vec![inf], vec![0], nan_only.clone()),
            ("rcp r0.x, v0.x", vec![0], vec![], pt(inf)),
            ("rcp r0.x, v0.x", vec![nz], vec![], pt(ninf)),
            ("rcp r0.x, v0.x", vec![inf], vec![], pt(0)),
            ("exp r0.x, v0.x", vec![inf], vec![], pt(inf)),
            ("exp r0.x, v0.x", vec![ninf], vec![], pt(0)),
            ("log r0.x, v0.x", vec![0], vec![], pt(ninf)),
            ("log r0.x, v0.x", vec![inf], vec![], pt(inf)),
            ("sqrt r0.x, v0.x", vec![inf], vec![], pt(inf)),
            ("rsq r0.x, v0.x", vec![inf], vec![], pt(0)),
            (
                "sqrt r0.x, v0.x",
                vec![bits_of(&f, -1.0)],
                vec![],
                nan_only.clone(),
            ),
            ("mov_sat r0.x, v0.x", vec![inf], vec![], pt(one)),
            ("mov_sat r0.x, v0.x", vec![ninf], vec![], pt(0)),
            (
                "mul r0.x, v0.x, v1.x; add r0.x, r0.x, v1.x",
                vec![ninf],
                vec![two],
                pt(ninf),
            ),
        ];
        for (asm, a, b, want) in cases {
            let got = span_of(asm, rules, f, &a, &b);
            assert_eq!(
                got,
                want,
                "{asm} on {a:x?} {b:x?}, {rules:?} f{}",
                f.width()
            );
        }
        // Overflow: the largest finite value doubled may only be +inf.
        let got = span_of("add r0.x, v0.x, v0.x", rules, f, &[f.max_finite()], &[]);
        assert!(
            got[0].contains(&f, inf),
            "{rules:?} f{}: {got:?}",
            f.width()
        );
    }
}

#[test]
fn signed_zeros() {
    for (rules, f) in rules_formats() {
        let nz = f.sign_bit();
        let two = bits_of(&f, 2.0);
        let ntwo = two | nz;
        let pt = |b| vec![Span::point(&f, b)];
        let cases: Vec<Expect> = vec![
            ("add r0.x, v0.x, v1.x", vec![nz], vec![nz], pt(nz)),
            ("add r0.x, v0.x, v1.x", vec![0], vec![0], pt(0)),
            ("mul r0.x, v0.x, v1.x", vec![nz], vec![two], pt(nz)),
            ("mul r0.x, v0.x, v1.x", vec![nz], vec![ntwo], pt(0)),
            ("mul r0.x, v0.x, v1.x", vec![0], vec![ntwo], pt(nz)),
            ("mov r0.x, -v0.x", vec![0], vec![], pt(nz)),
            ("mov r0.x, |v0.x|", vec![nz], vec![], pt(0)),
            ("sqrt r0.x, v0.x", vec![nz], vec![], pt(nz)),
            ("rcp r0.x, v0.x", vec![nz], vec![], pt(f.infinity(true))),
            ("mad r0.x, v0.x, v1.x, v1.x", vec![nz], vec![nz], pt(0)),
        ];
        for (asm, a, b, want) in cases {
            let got = span_of(asm, rules, f, &a, &b);
            assert_eq!(
                got,
                want,
                "{asm} on {a:x?} {b:x?}, {rules:?} f{}",
                f.width()
            );
        }
        // x - x is a zero (+0 under round to nearest); the span holds +0.
        let got = span_of("add r0.x, v0.x, -v0.x", rules, f, &[two], &[]);
        assert!(got[0].contains(&f, 0), "{got:?}");
    }
}

#[test]
fn subnormal_inputs_flush_under_f32() {
    let f = F32;
    for rules in [RuleSet::D3D11, RuleSet::D3D10] {
        let d = f.min_normal() - 1;
        let tiny = f.min_subnormal();
        let one = bits_of(&f, 1.0);
        let nz = f.sign_bit();
        for (asm, a, b, flushed) in [
            ("add r0.x, v0.x, v1.x", d, 0, 0),
            ("add r0.x, v0.x, v1.x", d | nz, nz, nz),
            ("mul r0.x, v0.x, v1.x", d, one, 0),
            ("mul r0.x, v0.x, v1.x", tiny | nz, one, nz),
            ("mov r0.x, -v0.x", d, 0, nz),
            ("max r0.x, v0.x, v1.x", d, 0, 0),
            ("mad r0.x, v0.x, v1.x, v0.x", d, one, 0),
        ] {
            let got = span_of(asm, rules, f, &[a], &[b]);
            assert!(
                got[0].contains(&f, flushed),
                "{asm} on {a:#x} {b:#x} {rules:?}: {got:?} lacks the flushed {flushed:#x}"
            );
        }
        // A subnormal result of normal operands may be flushed too.
        let half_min = bits_of(&f, 0.5);
        let got = span_of(
            "mul r0.x, v0.x, v1.x",
            rules,
            f,
            &[f.min_normal()],
            &[half_min],
        );
        assert!(got[0].contains(&f, 0), "{got:?}");
    }
}

/// Found by the 10^6-chain run (D3D11, f32): exp's allowed set at a tiny positive input
/// (0x00800000, 0x1ac00000, which log(1) may return) reaches lower than at the span's
/// corners (exp(+0) = 1 exactly, exp(4.77e-7)): the chain reaches 0x3f7ffff9 while the span
/// was [0x3f7ffffe, 0x3f800006]. interval.rs now adds the operands nearest zero for the
/// functions exact at zero.
#[test]
fn exp_after_log_sat_of_one() {
    let f = F32;
    let asm = "log_sat r0.x, v0.x; exp r0.x, r0.x";
    let p = parse_asm(asm, f).unwrap();
    let out = select_output(&p, None).unwrap();
    let mut inputs = [[0u64; 4]; 3];
    inputs[0] = [bits_of(&f, 1.0); 4];
    let case = Case {
        program: &p,
        text: asm,
        rules: RuleSet::D3D11,
        format: f,
        inputs,
        out,
    };
    let mut engine = PointEngine::new(f, RuleSet::D3D11);
    let sp = case.spans(&mut engine).unwrap();
    exhaustive(&case, &engine, &sp, 20_000).expect("enumerated");
}
