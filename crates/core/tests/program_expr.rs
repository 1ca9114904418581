//! `program::expr::expand`: each intrinsic's expansions parse as assembly and hold the
//! instruction sequences the compilers emit; precedence, swizzles, broadcasts and errors.

use d3dfloat_core::d3d::Op;
use d3dfloat_core::format::F32;
use d3dfloat_core::program::expr::{Expansion, expand};
use d3dfloat_core::program::{Opcode, Program, ProgramError, parse_asm};

const IN: &[(&str, usize)] = &[("a", 3), ("b", 3), ("t", 1), ("s", 1), ("v", 4), ("u", 2)];

fn ex(e: &str) -> Expansion {
    expand(e, IN).unwrap_or_else(|err| panic!("{e}: {err}"))
}

fn parse(asm: &str) -> Program {
    parse_asm(asm, F32).unwrap_or_else(|err| panic!("{asm}: {err}"))
}

/// Each alternative's opcodes as names (`mov_sat`, `dp3`, ...), in order.
fn ops(e: &Expansion) -> Vec<Vec<String>> {
    e.alternatives
        .iter()
        .map(|a| {
            parse(&a.asm)
                .instrs
                .iter()
                .map(|i| {
                    let base = match i.opcode {
                        Opcode::Mov => "mov".to_string(),
                        Opcode::Op(op) => name(op).to_string(),
                    };
                    if i.sat { format!("{base}_sat") } else { base }
                })
                .collect()
        })
        .collect()
}

fn name(op: Op) -> &'static str {
    match op {
        Op::Add => "add",
        Op::Mul => "mul",
        Op::Div => "div",
        Op::Mad => "mad",
        Op::Dp2 => "dp2",
        Op::Dp3 => "dp3",
        Op::Dp4 => "dp4",
        Op::Min => "min",
        Op::Max => "max",
        Op::Sqrt => "sqrt",
        Op::Rsq => "rsq",
        Op::Rcp => "rcp",
        Op::Exp => "exp",
        Op::Log => "log",
        Op::Frc => "frc",
        Op::RoundNe => "round_ne",
        Op::RoundNi => "round_ni",
        Op::RoundPi => "round_pi",
        Op::RoundZ => "round_z",
        Op::Sincos => "sincos",
        _ => "other",
    }
}

fn seq(names: &str) -> Vec<String> {
    names.split_whitespace().map(str::to_string).collect()
}

/// The expansion of `e` has width `w` and exactly the opcode sequences `want` (in order),
/// every one writing `o0` last.
fn check(e: &str, w: usize, want: &[&str]) -> Expansion {
    let x = ex(e);
    assert_eq!(x.width, w, "{e}: width");
    let got = ops(&x);
    let want: Vec<Vec<String>> = want.iter().map(|s| seq(s)).collect();
    assert_eq!(got, want, "{e}: {:#?}", x.alternatives);
    for a in &x.alternatives {
        let p = parse(&a.asm);
        let out = p.last_dest().expect("a destination");
        assert_eq!(out.to_string(), "o0", "{e}: {}", a.asm);
        let mask = p.written(out);
        assert_eq!(mask, (1u8 << w) - 1, "{e}: o0 components in {}", a.asm);
        assert!(!a.compilers.is_empty());
    }
    x
}

fn msg(e: &str) -> String {
    match expand(e, IN) {
        Err(ProgramError::Expression(m)) => m,
        other => panic!("{e}: expected an expression error, got {other:?}"),
    }
}

#[test]
fn variables_and_literals_become_moves() {
    let x = check("a", 3, &["mov"]);
    assert_eq!(x.alternatives[0].asm.trim(), "mov o0.xyz, v0.xyzz");
    let x = check("v.wzyx", 4, &["mov"]);
    assert_eq!(x.alternatives[0].asm.trim(), "mov o0.xyzw, v4.wzyx");
    let x = check("-t", 1, &["mov"]);
    assert_eq!(x.alternatives[0].asm.trim(), "mov o0.x, -v2.xxxx");
    let x = check("0.1", 1, &["mov"]);
    assert_eq!(x.alternatives[0].asm.trim(), "mov o0.x, l(0.1)");
    let x = check("float3(1, 2.5, 1e-3)", 3, &["mov"]);
    assert_eq!(
        x.alternatives[0].asm.trim(),
        "mov o0.xyz, l(1, 2.5, 1e-3, 0)"
    );
    let x = check("0x3f800000 + t", 1, &["add"]);
    assert!(x.alternatives[0].asm.contains("l(0x3f800000)"));
    // The literal is read by parse_asm, not here: 0.1 rounds to the f32 nearest.
    let p = parse(&check("t * 0.1", 1, &["mul"]).alternatives[0].asm);
    match &p.instrs[0].srcs[1].source {
        d3dfloat_core::program::Source::Literal(bits) => {
            assert_eq!(bits[0], 0.1f32.to_bits() as u64)
        }
        s => panic!("{s:?}"),
    }
}

#[test]
fn operators_and_precedence() {
    let x = check("a + b * t", 3, &["mul add"]);
    let asm = &x.alternatives[0].asm;
    assert!(asm.contains("mul r0.xyz, v1.xyzz, v2.xxxx"), "{asm}");
    assert!(asm.contains("add o0.xyz, v0.xyzz, r0.xyzz"), "{asm}");
    check("(a + b) * t", 3, &["add mul"]);
    check("a - b / t - a", 3, &["div add add"]);
    let x = check("a - b", 3, &["add"]);
    assert_eq!(
        x.alternatives[0].asm.trim(),
        "add o0.xyz, v0.xyzz, -v1.xyzz"
    );
    let x = check("a - -b", 3, &["add"]);
    assert_eq!(x.alternatives[0].asm.trim(), "add o0.xyz, v0.xyzz, v1.xyzz");
    check("-(a * b)", 3, &["mul mov"]);
    check("t * s + s / t", 1, &["mul div add"]);
    // Left to right within a level: (a - b) - a.
    let x = check("t - s - t", 1, &["add add"]);
    assert!(
        x.alternatives[0]
            .asm
            .starts_with("add r0.x, v2.xxxx, -v3.xxxx")
    );
}

#[test]
fn swizzles_and_broadcasts() {
    let x = check("a.zyx * t", 3, &["mul"]);
    assert_eq!(x.alternatives[0].asm.trim(), "mul o0.xyz, v0.zyxx, v2.xxxx");
    let x = check("(a + b).yx", 2, &["add mov"]);
    assert!(x.alternatives[0].asm.contains("mov o0.xy, r0.yxxx"));
    let x = check("t.xxxx + v", 4, &["add"]);
    assert_eq!(
        x.alternatives[0].asm.trim(),
        "add o0.xyzw, v2.xxxx, v4.xyzw"
    );
    check("v.rgb - a", 3, &["add"]);
    let x = check("float4(a.xy, t, 1)", 4, &["mov mov mov"]);
    let asm = &x.alternatives[0].asm;
    assert!(asm.contains("mov o0.xy, v0.xyyy"), "{asm}");
    assert!(asm.contains("mov o0.z, v2.xxxx"), "{asm}");
    assert!(
        asm.contains("mov o0.w, l(0, 0, 0, 1)") || asm.contains("mov o0.w, l(1)"),
        "{asm}"
    );
    check("float3(t)", 3, &["mov"]);
    check("half2(u.y, s) * min16float2(1, 2)", 2, &["mov mov mul"]);
    let x = check("dot(a, b) * a", 3, &["dp3 mul"]);
    assert!(
        x.alternatives[0]
            .asm
            .contains("mul o0.xyz, r0.xxxx, v0.xyzz")
    );
}

#[test]
fn one_instruction_intrinsics() {
    for (e, op) in [
        ("rsqrt(a)", "rsq"),
        ("sqrt(a)", "sqrt"),
        ("frac(a)", "frc"),
        ("floor(a)", "round_ni"),
        ("ceil(a)", "round_pi"),
        ("round(a)", "round_ne"),
        ("exp2(a)", "exp"),
        ("log2(a)", "log"),
        ("saturate(a)", "mov_sat"),
        ("abs(a)", "mov"),
        ("min(a, b)", "min"),
        ("max(a, t)", "max"),
        ("mad(a, t, b)", "mad"),
        ("sin(a)", "sincos"),
        ("cos(a)", "sincos"),
    ] {
        let x = check(e, 3, &[op]);
        assert_eq!(x.alternatives[0].compilers, "fxc, dxc, dxc -Gec", "{e}");
    }
    assert_eq!(
        ex("abs(-a)").alternatives[0].asm.trim(),
        "mov o0.xyz, |v0.xyzz|"
    );
    let x = check("-abs(a)", 3, &["mov mov"]);
    assert_eq!(
        x.alternatives[0].asm,
        "mov r0.xyz, |v0.xyzz|\nmov o0.xyz, -r0.xyzz\n"
    );
    let p = parse(&ex("sin(t)").alternatives[0].asm);
    assert!(p.instrs[0].dests[0].is_some() && p.instrs[0].dests[1].is_none());
    let p = parse(&ex("cos(t)").alternatives[0].asm);
    assert!(p.instrs[0].dests[0].is_none() && p.instrs[0].dests[1].is_some());
    check("clamp(a, t, 1)", 3, &["max min"]);
    check("saturate(t + s)", 1, &["add mov_sat"]);
}

#[test]
fn dot_length_normalize_distance() {
    check("dot(a, b)", 1, &["dp3"]);
    check("dot(u, u)", 1, &["dp2"]);
    check("dot(v, v)", 1, &["dp4"]);
    check("dot(t, s)", 1, &["mul"]);
    check("normalize(a)", 3, &["dp3 rsq mul"]);
    check("normalize(v)", 4, &["dp4 rsq mul"]);
    let x = check("length(a)", 1, &["dp3 sqrt", "mul mul add mul add sqrt"]);
    assert_eq!(x.alternatives[0].compilers, "fxc");
    assert_eq!(x.alternatives[1].compilers, "dxc, dxc -Gec");
    check("length(u)", 1, &["dp2 sqrt", "mul mul add sqrt"]);
    check("length(t)", 1, &["mul sqrt", "mov"]);
    check(
        "distance(a, b)",
        1,
        &["add dp3 sqrt", "add mul mul add mul add sqrt"],
    );
}

#[test]
fn lerp_has_fxc_mad_and_dxc_separate_operations() {
    let x = check("lerp(a, b, t)", 3, &["add mad", "add mul add"]);
    assert_eq!(x.alternatives[0].compilers, "fxc");
    assert_eq!(x.alternatives[1].compilers, "dxc, dxc -Gec");
    let asm = &x.alternatives[0].asm;
    assert!(asm.contains("add r0.xyz, v1.xyzz, -v0.xyzz"), "{asm}");
    assert!(
        asm.contains("mad o0.xyz, v2.xxxx, r0.xyzz, v0.xyzz"),
        "{asm}"
    );
}

#[test]
fn smoothstep_pow_exp_log_reflect_rcp() {
    let x = check(
        "smoothstep(t, s, a)",
        3,
        &[
            "add add div_sat mad mul mul",
            "add add rcp mul_sat mad mul mul",
            "add add div mov_sat mul add mul mul",
        ],
    );
    assert_eq!(x.alternatives[2].compilers, "dxc, dxc -Gec");
    check("pow(a, t)", 3, &["log mul exp"]);
    check("pow(a, 2.5)", 3, &["log mul exp"]);
    let x = check("pow(a, 2)", 3, &["mul"]);
    assert_eq!(x.alternatives[0].compilers, "fxc, dxc, dxc -Gec");
    let x = check("pow(t, 3)", 1, &["mul mul", "log mul exp"]);
    assert_eq!(x.alternatives[0].compilers, "fxc, dxc -Gec");
    assert_eq!(x.alternatives[1].compilers, "dxc");
    check("pow(t, -2)", 1, &["mul div", "log mul exp"]);
    // x^5 = x * (x^2)^2: three multiplications, within a scalar's threshold of 3.
    check("pow(t, 5.0)", 1, &["mul mul mul", "log mul exp"]);
    // x^7 needs 2 + 3 - 1 = 4 > 3 for a scalar: log, mul, exp in every compiler.
    check("pow(t, 7)", 1, &["log mul exp"]);
    check("pow(a, 7)", 3, &["mul mul mul mul", "log mul exp"]);
    let x = check("exp(a)", 3, &["mul exp"]);
    assert!(x.alternatives[0].asm.contains("l(1.44269502)"));
    let x = check("log(a)", 3, &["log mul"]);
    assert!(x.alternatives[0].asm.contains("l(0.693147182)"));
    let p = parse(&x.alternatives[0].asm);
    match &p.instrs[1].srcs[1].source {
        d3dfloat_core::program::Source::Literal(bits) => {
            assert_eq!(bits[0], std::f32::consts::LN_2.to_bits() as u64)
        }
        s => panic!("{s:?}"),
    }
    let x = check("reflect(a, b)", 3, &["dp3 add mad", "dp3 mul mul add"]);
    assert_eq!(x.alternatives[0].compilers, "fxc");
    assert!(
        x.alternatives[0]
            .asm
            .contains("mad o0.xyz, -r1.xxxx, v1.xyzz, v0.xyzz")
    );
    check("rcp(a)", 3, &["rcp", "div"]);
}

#[test]
fn alternatives_are_the_cartesian_product() {
    let x = ex("lerp(a, b, t) + reflect(a, b)");
    assert_eq!(x.alternatives.len(), 4);
    assert!(x.alternatives.iter().any(|a| a.compilers == "fxc"));
    assert!(
        x.alternatives
            .iter()
            .any(|a| a.compilers.starts_with("mixed"))
    );
    let x = ex("smoothstep(t, s, a) * lerp(a, b, s) + length(a)");
    assert_eq!(x.alternatives.len(), 3 * 2 * 2);
    for a in &x.alternatives {
        parse(&a.asm);
    }
    let m =
        msg("lerp(a,b,t)+lerp(a,b,t)+lerp(a,b,t)+lerp(a,b,t)+lerp(a,b,t)+lerp(a,b,t)+lerp(a,b,t)");
    assert!(m.contains("128 alternative"), "{m}");
}

#[test]
fn errors_name_the_offending_token() {
    assert!(msg("foo + a").contains("'foo'"));
    assert!(msg("frobnicate(a)").contains("'frobnicate'"));
    assert!(msg("lerp(a, b)").contains("3 arguments, got 2"));
    assert!(msg("a + u").contains("width mismatch"));
    assert!(msg("dot(a, v)").contains("width mismatch"));
    assert!(msg("(a + b").contains("never closed"));
    assert!(msg("a + b)").contains("')'"));
    assert!(msg("a.q").contains("'.q'"));
    assert!(msg("u.z").contains("'.z'"));
    assert!(msg("float3(a, t)").contains("'float3'"));
    assert!(msg("a #").contains("'#'"));
    assert!(msg("").contains("empty"));
    assert!(msg("a +").contains("ends early"));
    assert!(msg("1e5x").contains("'1e5x'"));
    assert!(msg("0x3f800000f").contains("'0x3f800000f'"));
    assert!(msg("0x3f8").contains("'0x3f8'"));
    // An f16 pattern passes through as written (parse_asm of an f16 program reads it).
    assert!(ex("0x3c00 * t").alternatives[0].asm.contains("l(0x3c00)"));
    let long = "t".repeat(70 * 1024);
    assert!(msg(&long).contains("at most 65536"));
    let many = vec!["sqrt(t)"; 300].join(" + ");
    let m = msg(&many);
    assert!(m.contains("256") || m.contains("too long"), "{m}");
    let deep = format!("{}t{}", "(".repeat(5000), ")".repeat(5000));
    assert!(msg(&deep).contains("nested too deeply"));
    let chain = vec!["t"; 3000].join("*");
    assert!(msg(&chain).contains("too long"));
    let negs = format!("{}t", "-".repeat(5000));
    assert!(msg(&negs).contains("nested too deeply"));
    // 130 multiplications fit in the chain limit and expand to over 256 instructions.
    let wide = vec!["sqrt(t) * sqrt(s)"; 90].join(" + ");
    assert!(msg(&wide).contains("256"));
}

#[test]
fn garbage_never_panics() {
    // A fixed-seed generator over the expression alphabet (no dependency needed).
    let alphabet: Vec<char> = "abtsuvxyzw().,+-*/ 0123456789e lerpdotsqrtpowfloat3#_"
        .chars()
        .collect();
    let words = [
        "lerp(",
        "dot(",
        "normalize(",
        "float4(",
        "pow(",
        "smoothstep(",
        "reflect(",
        ".xyz",
        ".w",
        "0x3f800000",
        "1e-3",
        ")",
        ",",
        "-",
        "a",
        "t",
        "v",
        "u",
    ];
    let mut state: u64 = 0x9e3779b97f4a7c15;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..3000 {
        let len = (next() % 40) as usize;
        let mut s = String::new();
        for _ in 0..len {
            if next() % 3 == 0 {
                s.push_str(words[(next() % words.len() as u64) as usize]);
            } else {
                s.push(alphabet[(next() % alphabet.len() as u64) as usize]);
            }
        }
        if let Ok(x) = expand(&s, IN) {
            assert!((1..=4).contains(&x.width), "{s}");
            for a in &x.alternatives {
                // A 16-bit pattern (0x3c00) is accepted here and refused by an f32 parse.
                if parse_asm(&a.asm, F32).is_err() {
                    assert!(a.asm.contains("l(0x"), "{s}: {}", a.asm);
                }
            }
        }
    }
    for s in [
        "\u{0}",
        "é",
        "(((",
        ")))",
        ".",
        "..",
        "0x",
        "1.2.3",
        "a..x",
        "float5(1)",
    ] {
        let _ = expand(s, IN);
    }
}
