//! Batch checking with `d3dfloat op` (issue 3): 1,000,000 lines of mixed f32 instructions
//! with `= RESULT`, as a log of GPU results would be, through `op --plain` and the default
//! human output, against `cat` moving the same bytes through the same pipes. The input is
//! generated here (deterministic), with results from the CPU's f32 arithmetic and one line
//! in eight nudged by an ULP so that both verdicts occur. Then the issue-8 mix in each working
//! format (f32, f16 and f64): add, mul, mad/fma, div and sqrt (min for f64, which has no
//! sqrt), checked through `op --fmt F --plain`. Run with `cargo bench --bench op_batch`
//! (release profile); `-- N` sets the line count.

mod common;

const BIN: &str = env!("CARGO_BIN_EXE_d3dfloat");

use common::Rng;

impl Rng {
    /// A normal f32 of moderate magnitude (2^-20 to 2^20), either sign.
    fn f32(&mut self) -> f32 {
        let r = self.next();
        let exp = 107 + (r % 40) as u32;
        let bits = ((r >> 8) as u32 & 0x807f_ffff) | (exp << 23);
        f32::from_bits(bits)
    }
}

fn hex(x: f32) -> String {
    format!("0x{:08x}", x.to_bits())
}

/// One input line and whether its result was nudged.
fn line(rng: &mut Rng) -> String {
    let (a, b, c) = (rng.f32(), rng.f32(), rng.f32());
    let v: Vec<f32> = (0..8).map(|_| rng.f32()).collect();
    let nudge = rng.next().is_multiple_of(8);
    let f = |x: f32| {
        if nudge && x.is_finite() {
            f32::from_bits(x.to_bits() + 1)
        } else {
            x
        }
    };
    match rng.next() % 20 {
        0 => format!("add {} {} = {}", hex(a), hex(b), hex(f(a + b))),
        1 => format!("sub {} {} = {}", hex(a), hex(b), hex(f(a - b))),
        2 => format!("mul {} {} = {}", hex(a), hex(b), hex(f(a * b))),
        3 => format!("div {} {} = {}", hex(a), hex(b), hex(f(a / b))),
        4 => format!(
            "mad {} {} {} = {}",
            hex(a),
            hex(b),
            hex(c),
            hex(f(a.mul_add(b, c)))
        ),
        5 => {
            let d = v[0] * v[3] + v[1] * v[4] + v[2] * v[5];
            let s: Vec<String> = v[..6].iter().map(|x| hex(*x)).collect();
            format!(
                "dp3 {},{},{} {},{},{} = {}",
                s[0],
                s[1],
                s[2],
                s[3],
                s[4],
                s[5],
                hex(f(d))
            )
        }
        6 => format!("min {} {} = {}", hex(a), hex(b), hex(a.min(b))),
        7 => format!("max {} {} = {}", hex(a), hex(b), hex(a.max(b))),
        8 => format!("sqrt {} = {}", hex(a.abs()), hex(f(a.abs().sqrt()))),
        9 => format!("rcp {} = {}", hex(a), hex(f(1.0 / a))),
        10 => format!("rsq {} = {}", hex(a.abs()), hex(f(1.0 / a.abs().sqrt()))),
        11 => {
            let x = a % 60.0;
            format!("exp {} = {}", hex(x), hex(f(x.exp2())))
        }
        12 => format!("log {} = {}", hex(a.abs()), hex(f(a.abs().log2()))),
        13 => format!("eq {} {} = {}", hex(a), hex(b), a == b),
        14 => format!("lt {} {} = {}", hex(a), hex(b), a < b),
        15 => format!("ftoi {} = {}", hex(a), a as i32),
        16 => format!("frc {} = {}", hex(a), hex(f(a - a.floor()))),
        17 => format!("round_ne {} = {}", hex(a), hex(a.round_ties_even())),
        18 => format!(
            "add {} {} = {}",
            hex(a),
            hex(-a * 0.75),
            hex(f(a - a * 0.75))
        ),
        _ => format!("mul {} {} = {}", hex(a), hex(b), hex(f(a * b))),
    }
}

/// A normal pattern of moderate magnitude (about 2^-10 to 2^10) in a format of `width` bits
/// with `frac` fraction bits and exponent bias `bias`.
fn moderate(rng: &mut Rng, width: u32, frac: u32, bias: u64) -> u64 {
    let r = rng.next();
    let exp = bias - 10 + r % 20;
    let sign = (r >> 7) & 1;
    let mask = (1u64 << frac) - 1;
    (sign << (width - 1)) | (exp << frac) | ((r >> 13) & mask)
}

/// One line of the per-format mix; the claimed result is the first operand, so most lines
/// do not conform (which costs the same to decide).
fn mixed_line(rng: &mut Rng, fmt: &str) -> String {
    let (width, frac, bias) = match fmt {
        "f16" => (16, 10, 15),
        "f64" => (64, 52, 1023),
        _ => (32, 23, 127),
    };
    let digits = (width / 4) as usize;
    let arg = |rng: &mut Rng| format!("0x{:0digits$x}", moderate(rng, width, frac, bias));
    let ops = if fmt == "f64" {
        ["add", "mul", "fma", "div", "min"]
    } else {
        ["add", "mul", "mad", "div", "sqrt"]
    };
    let op = ops[(rng.next() % 5) as usize];
    let n = match op {
        "mad" | "fma" => 3,
        "sqrt" => 1,
        _ => 2,
    };
    let mut args: Vec<String> = (0..n).map(|_| arg(rng)).collect();
    if op == "sqrt" {
        // A positive operand: clear the sign digit.
        let v = u64::from_str_radix(&args[0][2..], 16).unwrap() & !(1u64 << (width - 1));
        args[0] = format!("0x{v:0digits$x}");
    }
    format!("{op} {} = {}", args.join(" "), args[0])
}

fn per_format(n: usize) {
    println!("op batch checking per format: add, mul, mad/fma, div, sqrt (min for f64), --plain");
    for fmt in ["f32", "f16", "f64"] {
        let mut rng = Rng(0x51_7cc1_b727_220a);
        let mut input = String::with_capacity(n * 48);
        for _ in 0..n {
            input.push_str(&mixed_line(&mut rng, fmt));
            input.push('\n');
        }
        let input = input.into_bytes();
        let cat = common::piped("cat", &[], &input, 3, |c| c == Some(0));
        let t = common::piped(BIN, &["op", "--fmt", fmt, "--plain"], &input, 3, |c| {
            matches!(c, Some(0 | 1))
        });
        println!(
            "  {fmt}  cat {:>7.3} s   op --plain {:>7.3} s  {:>6.2} M lines/s  ({:.0}x cat)",
            cat.as_secs_f64(),
            t.as_secs_f64(),
            n as f64 / t.as_secs_f64() / 1e6,
            t.as_secs_f64() / cat.as_secs_f64()
        );
    }
}

fn main() {
    let n: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut input = String::with_capacity(n * 48);
    for _ in 0..n {
        input.push_str(&line(&mut rng));
        input.push('\n');
    }
    let input = input.into_bytes();
    println!(
        "op batch checking, {n} mixed f32 lines with = RESULT ({:.1} MB), best of 3",
        input.len() as f64 / 1e6
    );
    let cat = common::piped("cat", &[], &input, 3, |c| c == Some(0));
    println!("  cat (baseline)            {:>7.3} s", cat.as_secs_f64());
    for (name, args) in [
        ("op --plain", vec!["op", "--plain"]),
        ("op (human)", vec!["op", "--color", "never"]),
    ] {
        // Exit 1 = some line does not conform (expected: one in eight is nudged).
        let t = common::piped(BIN, &args, &input, 3, |c| matches!(c, Some(0 | 1)));
        println!(
            "  {name:<25} {:>7.3} s  {:>6.2} M lines/s  ({:.0}x cat)",
            t.as_secs_f64(),
            n as f64 / t.as_secs_f64() / 1e6,
            t.as_secs_f64() / cat.as_secs_f64()
        );
    }
    per_format(n);
}
