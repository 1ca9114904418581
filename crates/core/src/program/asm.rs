//! Shader assembly text into a [`Program`]: instructions as fxc and the D3D disassemblers
//! write them (`dp3 r0.x, v0.xyzx, v0.xyzx`), separated by `;` or new lines, `//` comments
//! ignored.
//!
//! Swizzles: four letters are positional (destination component `c` reads letter `c`), one
//! letter is read by every component; two or three letters are read in order by the written
//! components when there are as many (`mul r1.yz, r0.xx, v0.yz`), else padded with their
//! last letter to four (`.xyz` is `.xyzz`). A dot product reads its first 2, 3 or 4 letters.

use super::ProgramError;
use super::ast::{COMPONENTS, Dest, Instr, Opcode, Program, Reg, RegFile, Source, Src};
use crate::d3d::{Domain, Op};
use crate::format::FloatFormat;
use crate::input::read_operand;

/// The longest program text read (a program is a few instructions; a 50 MB argument is a
/// mistake, not a shader).
pub const MAX_TEXT: usize = 64 * 1024;
/// The most instructions in a program (the interval of a long program is wide and its
/// exhaustive checks costly; straight-line shader fragments are short).
pub const MAX_INSTRUCTIONS: usize = 256;

/// Parses assembly text computing in `format` (f32, or f16 for 16-bit arithmetic).
pub fn parse_asm(text: &str, format: FloatFormat) -> Result<Program, ProgramError> {
    if text.len() > MAX_TEXT {
        return Err(ProgramError::TooLong {
            what: "program",
            limit: MAX_TEXT,
        });
    }
    let mut instrs = Vec::new();
    for line in text.split(['\n', ';']) {
        let line = match line.find("//") {
            Some(i) => &line[..i],
            None => line,
        };
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if instrs.len() == MAX_INSTRUCTIONS {
            return Err(ProgramError::TooLong {
                what: "program (instructions)",
                limit: MAX_INSTRUCTIONS,
            });
        }
        instrs.push(parse_instr(line, &format)?);
    }
    if instrs.is_empty() {
        return Err(ProgramError::Empty);
    }
    Ok(Program { instrs, format })
}

fn bad(text: &str, why: impl Into<String>) -> ProgramError {
    ProgramError::Instruction {
        text: text.to_string(),
        why: why.into(),
    }
}

/// The opcode and `_sat` of a mnemonic.
fn opcode(word: &str, text: &str, format: &FloatFormat) -> Result<(Opcode, bool), ProgramError> {
    let lower = word.to_ascii_lowercase();
    let (name, sat) = match lower.strip_suffix("_sat") {
        Some(n) => (n, true),
        None => (lower.as_str(), false),
    };
    if name == "mov" {
        return Ok((Opcode::Mov, sat));
    }
    let (op, _) = Op::parse(name, format).map_err(|e| bad(text, e.to_string()))?;
    if !supported(op) {
        return Err(bad(
            text,
            format!(
                "'{name}' is not supported in a program (arithmetic only: {})",
                SUPPORTED_NAMES
            ),
        ));
    }
    Ok((Opcode::Op(op), sat))
}

/// The instructions a program may hold, as listed in errors and docs.
pub const SUPPORTED_NAMES: &str = "mov, add, sub, mul, div, mad, dp2, dp3, dp4, min, max, sqrt, \
     rsq, rcp, exp, log, frc, round_ne, round_ni, round_pi, round_z, sincos, sin, cos";

/// Whether an instruction returns a float of the working format from floats of it: the
/// instructions a program propagates intervals through.
pub fn supported(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        Add | Sub
            | Mul
            | Div
            | Mad
            | Dp2
            | Dp3
            | Dp4
            | Min
            | Max
            | Sqrt
            | Rsq
            | Rcp
            | Exp
            | Log
            | Frc
            | RoundNe
            | RoundNi
            | RoundPi
            | RoundZ
            | Sincos
            | Sin
            | Cos
    )
}

/// Splits at top-level commas (not those inside `l(...)`).
fn split_operands(rest: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    for (i, ch) in rest.char_indices() {
        match ch {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(rest[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(rest[start..].trim());
    out
}

fn parse_instr(text: &str, format: &FloatFormat) -> Result<Instr, ProgramError> {
    let (word, rest) = match text.find(char::is_whitespace) {
        Some(i) => (&text[..i], text[i..].trim()),
        None => (text, ""),
    };
    let (opcode, sat) = opcode(word, text, format)?;
    let (ndest, nsrc) = match opcode {
        Opcode::Mov => (1, 1),
        Opcode::Op(Op::Sincos) => (2, 1),
        Opcode::Op(op) => (1, op.arity().0),
    };
    let parts = split_operands(rest);
    if rest.is_empty() || parts.len() != ndest + nsrc {
        return Err(bad(
            text,
            format!(
                "'{word}' takes {ndest} destination{} and {nsrc} source{}, got {}",
                if ndest == 1 { "" } else { "s" },
                if nsrc == 1 { "" } else { "s" },
                if rest.is_empty() { 0 } else { parts.len() }
            ),
        ));
    }
    let mut dests = Vec::new();
    for p in &parts[..ndest] {
        dests.push(parse_dest(p, text, ndest == 2)?);
    }
    if dests.iter().all(Option::is_none) {
        return Err(bad(text, "every destination is null"));
    }
    let mut ins = Instr {
        opcode,
        sat,
        dests,
        srcs: Vec::new(),
        text: text.split_whitespace().collect::<Vec<_>>().join(" "),
    };
    let mask = ins.dest_mask();
    let dot = ins.dot_width();
    for p in &parts[ndest..] {
        ins.srcs.push(parse_src(p, text, mask, dot, format)?);
    }
    Ok(ins)
}

fn parse_reg(word: &str, text: &str) -> Result<Reg, ProgramError> {
    let mut chars = word.chars();
    let file = match chars.next().map(|c| c.to_ascii_lowercase()) {
        Some('v') => RegFile::Input,
        Some('r') => RegFile::Temp,
        Some('o') => RegFile::Output,
        _ => {
            return Err(bad(
                text,
                format!("'{word}' is not a register (v#, r# or o#)"),
            ));
        }
    };
    let digits = chars.as_str();
    let index =
        (!digits.is_empty() && digits.len() <= 4 && digits.bytes().all(|b| b.is_ascii_digit()))
            .then(|| digits.parse::<u32>().ok())
            .flatten()
            .ok_or_else(|| bad(text, format!("'{word}' is not a register (v#, r# or o#)")))?;
    Ok(Reg { file, index })
}

fn letters(s: &str, text: &str) -> Result<Vec<u8>, ProgramError> {
    if s.is_empty() || s.len() > 4 {
        return Err(bad(text, format!("'.{s}' is not a swizzle or mask")));
    }
    s.chars()
        .map(|c| match c.to_ascii_lowercase() {
            'x' | 'r' => Ok(0),
            'y' | 'g' => Ok(1),
            'z' | 'b' => Ok(2),
            'w' | 'a' => Ok(3),
            _ => Err(bad(text, format!("'.{s}' is not a swizzle or mask"))),
        })
        .collect()
}

fn parse_dest(p: &str, text: &str, may_be_null: bool) -> Result<Option<Dest>, ProgramError> {
    if p.eq_ignore_ascii_case("null") {
        return if may_be_null {
            Ok(None)
        } else {
            Err(bad(text, "only sincos takes a null destination"))
        };
    }
    let (reg, mask) = match p.split_once('.') {
        Some((r, m)) => (r, m),
        None => (p, "xyzw"),
    };
    let reg = parse_reg(reg.trim(), text)?;
    if reg.file == RegFile::Input {
        return Err(bad(
            text,
            format!("'{reg}' is an input; it cannot be written"),
        ));
    }
    let comps = letters(mask.trim(), text)?;
    if comps.windows(2).any(|w| w[0] >= w[1]) {
        return Err(bad(
            text,
            format!("'.{mask}' is not a mask (components in order x, y, z, w, each once)"),
        ));
    }
    Ok(Some(Dest {
        reg,
        mask: comps.iter().fold(0, |m, &c| m | (1 << c)),
    }))
}

/// The positional swizzle of the letters (see the module's rules).
fn positional(l: &[u8], mask: u8, dot: Option<usize>) -> [u8; 4] {
    let mut sw = [l[l.len() - 1]; 4];
    let written: Vec<usize> = (0..4).filter(|c| mask & (1 << c) != 0).collect();
    if dot.is_none() && l.len() > 1 && l.len() < 4 && l.len() == written.len() {
        for (k, &c) in written.iter().enumerate() {
            sw[c] = l[k];
        }
    } else {
        sw[..l.len()].copy_from_slice(l);
    }
    sw
}

fn parse_src(
    p: &str,
    text: &str,
    mask: u8,
    dot: Option<usize>,
    format: &FloatFormat,
) -> Result<Src, ProgramError> {
    let mut s = p.trim();
    let mut neg = false;
    if let Some(r) = s.strip_prefix('-') {
        neg = true;
        s = r.trim();
    }
    let mut abs = false;
    if let Some(inner) = s.strip_prefix('|').and_then(|r| r.strip_suffix('|')) {
        abs = true;
        s = inner.trim();
    }
    if let Some(r) = s.strip_suffix("_abs") {
        abs = true;
        s = r;
    }
    let lower = s.to_ascii_lowercase();
    if let Some(inner) = lower.strip_prefix("l(").and_then(|r| r.strip_suffix(')')) {
        let values: Vec<&str> = inner.split(',').map(str::trim).collect();
        if values.is_empty() || values.len() > 4 || values.iter().any(|v| v.is_empty()) {
            return Err(bad(
                text,
                format!("'{s}' is not a literal of one to four values"),
            ));
        }
        let mut bits = [0u64; 4];
        for (i, v) in values.iter().enumerate() {
            bits[i] = read_operand(v, &Domain::Float(*format))
                .map_err(|e| bad(text, format!("literal '{v}': {e}")))?
                .bits;
        }
        // One value stands for every component; otherwise each component its own, and a
        // dot product or a narrower write reads the first ones.
        if values.len() == 1 {
            bits = [bits[0]; 4];
        } else if dot.is_none() {
            let l: Vec<u8> = (0..values.len() as u8).collect();
            let sw = positional(&l, mask, dot);
            let mut placed = [0u64; 4];
            for c in 0..4 {
                placed[c] = bits[sw[c] as usize];
            }
            bits = placed;
        }
        return Ok(Src {
            source: Source::Literal(bits),
            abs,
            neg,
        });
    }
    let (reg, sw) = match s.split_once('.') {
        Some((r, w)) => (r.trim(), Some(w.trim())),
        None => (s, None),
    };
    let reg = parse_reg(reg, text)?;
    let swizzle = match sw {
        None => [0, 1, 2, 3],
        Some(w) => positional(&letters(w, text)?, mask, dot),
    };
    Ok(Src {
        source: Source::Reg { reg, swizzle },
        abs,
        neg,
    })
}

/// A register and optional components as `--output` names it (`r1`, `r1.xy`, `o0`).
pub fn parse_output(text: &str) -> Result<(Reg, Option<u8>), ProgramError> {
    let t = text.trim();
    let (reg, mask) = match t.split_once('.') {
        Some((r, m)) => (r, Some(m)),
        None => (t, None),
    };
    let reg = parse_reg(reg.trim(), t)?;
    let mask = match mask {
        None => None,
        Some(m) => Some(
            letters(m.trim(), t)?
                .iter()
                .fold(0u8, |acc, &c| acc | (1 << c)),
        ),
    };
    Ok((reg, mask))
}

/// The name of a component of a register, `r1.x`.
pub fn component_name(reg: Reg, c: usize) -> String {
    format!("{reg}.{}", COMPONENTS[c])
}
