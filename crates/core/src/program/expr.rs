//! HLSL-style expressions expanded into the instruction sequences compilers emit.
//!
//! An expression (`lerp(a, b, t.x) * 2`) is parsed into a small tree, then written out as
//! shader model 4 assembly, its result in `o0`. Nothing is folded: every operation the
//! compiler would leave to the GPU stays an instruction, and every literal stays the text
//! it was written as (`l(0.1)`), so that [`super::parse_asm`] rounds it once, as a
//! compiler would.
//!
//! Some intrinsics are lowered differently by different compilers (fxc, DXC); each such
//! intrinsic has several expansions, and the expression's [`Expansion`] holds every
//! combination (their union is what a conforming driver may return). Each expansion's
//! source is noted where it is generated (`Gen::call` and the functions it calls).
//!
//! Sources for the lowering rules:
//! - DXC: `lib/HLSL/HLOperationLower.cpp` of microsoft/DirectXShaderCompiler (commit
//!   9a3e225), functions `TranslateLerp`, `TranslateSmoothStep`, `TranslateNormalize`,
//!   `TranslateLength`, `TranslateDistance`, `TranslatePowImpl`,
//!   `CanUseFxcMulOnlyPatternForPow`, `TranslateExp`, `TranslateLog`, `TranslateReflect`,
//!   `TranslateRCP`, `TranslateClamp`, `TranslateDot`.
//! - fxc: the sequences its disassembly shows (dp/rsq/mul for normalize, add/mad for lerp,
//!   ...); fxc's source is not public, see the helper's notes for which were confirmed.

use super::ProgramError;
use super::asm::{MAX_INSTRUCTIONS, MAX_TEXT};

/// One way a compiler may emit an expression: assembly text and who emits it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Alternative {
    /// The compilers that emit this sequence, for output (`fxc`, `dxc`).
    pub compilers: String,
    /// The sequence as shader assembly, its result in `o0`.
    pub asm: String,
}

/// An expression's alternatives and the width of its result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expansion {
    /// Every sequence accepted (the answer is their union).
    pub alternatives: Vec<Alternative>,
    /// Components of the result (1 to 4), written to `o0`.
    pub width: usize,
}

/// The most alternatives an expression may expand to.
pub const MAX_ALTERNATIVES: usize = 64;

/// The deepest nesting of the expression tree (parentheses, calls and operator chains):
/// beyond it the program would be over [`MAX_INSTRUCTIONS`] long anyway, and the limit
/// keeps the recursive parser and generator within a small stack.
const MAX_DEPTH: usize = 200;

/// Expands `expr`; `inputs` names the variables it may use, in order: variable `k` is
/// register `v{k}`, with the given width.
pub fn expand(expr: &str, inputs: &[(&str, usize)]) -> Result<Expansion, ProgramError> {
    if expr.len() > MAX_TEXT {
        return Err(err(format!(
            "the expression is {} bytes long (at most {MAX_TEXT})",
            expr.len()
        )));
    }
    for (name, width) in inputs {
        if !(1..=4).contains(width) {
            return Err(err(format!(
                "input '{name}' has width {width} (1 to 4 components)"
            )));
        }
    }
    let tokens = lex(expr)?;
    let mut parser = Parser {
        tokens: &tokens,
        inputs,
        pos: 0,
        depth: 0,
    };
    let tree = parser.expression()?;
    if let Some(t) = parser.tokens.get(parser.pos) {
        return Err(match t.kind {
            Tok::RParen => err(format!(
                "unbalanced parentheses: ')' at column {} closes nothing",
                t.col
            )),
            _ => err(format!(
                "unexpected '{}' at column {} after a complete expression",
                t.text, t.col
            )),
        });
    }

    // A first pass records how many expansions each intrinsic call has (in the order the
    // generator meets them); the alternatives are every combination of them.
    let mut first = Gen::new(inputs, Vec::new());
    let first_out = first.finish(&tree)?;
    let radices = first.radices.clone();
    let total = radices
        .iter()
        .try_fold(1usize, |acc, &r| acc.checked_mul(r))
        .unwrap_or(usize::MAX);
    if total > MAX_ALTERNATIVES {
        return Err(err(format!(
            "the expression has {} alternative expansions (at most {MAX_ALTERNATIVES}); \
             split it into smaller expressions",
            if total == usize::MAX {
                "too many".to_string()
            } else {
                total.to_string()
            }
        )));
    }
    let width = first_out.1;
    let mut alternatives: Vec<(Alternative, u8)> = Vec::new();
    let mut picks = vec![0usize; radices.len()];
    loop {
        let mut g = Gen::new(inputs, picks.clone());
        let (asm, _) = g.finish(&tree)?;
        let (mask, label) = g.label();
        match alternatives.iter_mut().find(|(a, _)| a.asm == asm) {
            Some((a, m)) => {
                // The same sequence from two combinations: one alternative, both names.
                *m |= mask;
                if *m != 0 {
                    a.compilers = compiler_names(*m);
                }
            }
            None => alternatives.push((
                Alternative {
                    compilers: label,
                    asm,
                },
                mask,
            )),
        }
        // The next combination (mixed radix, last call fastest).
        let mut k = picks.len();
        loop {
            if k == 0 {
                return Ok(Expansion {
                    alternatives: alternatives.into_iter().map(|(a, _)| a).collect(),
                    width,
                });
            }
            k -= 1;
            picks[k] += 1;
            if picks[k] < radices[k] {
                break;
            }
            picks[k] = 0;
        }
    }
}

fn err(message: String) -> ProgramError {
    ProgramError::Expression(message)
}

// ---------------------------------------------------------------------------------------
// Tokens

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tok {
    Num,
    Ident,
    /// `.` followed by letters: a swizzle (the letters are the token's text).
    Swizzle,
    LParen,
    RParen,
    Comma,
    Plus,
    Minus,
    Star,
    Slash,
}

#[derive(Clone, Debug)]
struct Token {
    kind: Tok,
    text: String,
    /// 1-based column (in characters) of the token's start, for messages.
    col: usize,
}

fn lex(text: &str) -> Result<Vec<Token>, ProgramError> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let col = i + 1;
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let simple = match c {
            '(' => Some(Tok::LParen),
            ')' => Some(Tok::RParen),
            ',' => Some(Tok::Comma),
            '+' => Some(Tok::Plus),
            '-' => Some(Tok::Minus),
            '*' => Some(Tok::Star),
            '/' => Some(Tok::Slash),
            _ => None,
        };
        if let Some(kind) = simple {
            out.push(Token {
                kind,
                text: c.to_string(),
                col,
            });
            i += 1;
            continue;
        }
        let next_is_digit = chars.get(i + 1).is_some_and(|d| d.is_ascii_digit());
        if c.is_ascii_digit() || (c == '.' && next_is_digit) {
            let start = i;
            let (num, end) = number(&chars, i)?;
            i = end;
            if chars
                .get(i)
                .is_some_and(|d| d.is_alphanumeric() || *d == '_' || *d == '.')
            {
                let mut j = i;
                while chars
                    .get(j)
                    .is_some_and(|d| d.is_alphanumeric() || *d == '_' || *d == '.')
                {
                    j += 1;
                }
                let whole: String = chars[start..j].iter().collect();
                return Err(err(format!("'{whole}' at column {col} is not a number")));
            }
            out.push(Token {
                kind: Tok::Num,
                text: num,
                col,
            });
            continue;
        }
        if c == '.' {
            let start = i + 1;
            let mut j = start;
            while chars.get(j).is_some_and(|d| d.is_ascii_alphanumeric()) {
                j += 1;
            }
            if j == start {
                return Err(err(format!(
                    "'.' at column {col} is not followed by swizzle letters"
                )));
            }
            out.push(Token {
                kind: Tok::Swizzle,
                text: chars[start..j].iter().collect(),
                col,
            });
            i = j;
            continue;
        }
        if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while chars
                .get(i)
                .is_some_and(|d| d.is_ascii_alphanumeric() || *d == '_')
            {
                i += 1;
            }
            out.push(Token {
                kind: Tok::Ident,
                text: chars[start..i].iter().collect(),
                col,
            });
            continue;
        }
        return Err(err(format!("unexpected character '{c}' at column {col}")));
    }
    Ok(out)
}

/// A number from `chars[i]`: decimal (`1`, `2.5`, `.5`, `1e-3`, an HLSL suffix `f`, `h`
/// or `l` dropped) or `0x` and 4 or 8 hex digits (an f16 or f32 bit pattern, kept as
/// written: the program's format must have that width). Returns the text
/// for the literal and the index after it.
fn number(chars: &[char], mut i: usize) -> Result<(String, usize), ProgramError> {
    let start = i;
    if chars[i] == '0' && matches!(chars.get(i + 1), Some('x' | 'X')) {
        i += 2;
        let digits = i;
        while chars.get(i).is_some_and(|d| d.is_ascii_hexdigit()) {
            i += 1;
        }
        // A bit pattern of an f16 or f32 (4 or 8 hex digits), as parse_asm reads it.
        let ok = matches!(i - digits, 4 | 8)
            && !chars
                .get(i)
                .is_some_and(|d| d.is_alphanumeric() || *d == '_');
        if !ok {
            let mut j = i;
            while chars.get(j).is_some_and(|d| d.is_ascii_alphanumeric()) {
                j += 1;
            }
            let whole: String = chars[start..j].iter().collect();
            return Err(err(format!(
                "'{whole}' at column {} is not a bit pattern (0x and 4 or 8 hex digits)",
                start + 1
            )));
        }
        return Ok((chars[start..i].iter().collect(), i));
    }
    while chars.get(i).is_some_and(|d| d.is_ascii_digit()) {
        i += 1;
    }
    if chars.get(i) == Some(&'.') {
        i += 1;
        while chars.get(i).is_some_and(|d| d.is_ascii_digit()) {
            i += 1;
        }
    }
    if matches!(chars.get(i), Some('e' | 'E')) {
        let mut j = i + 1;
        if matches!(chars.get(j), Some('+' | '-')) {
            j += 1;
        }
        let digits = j;
        while chars.get(j).is_some_and(|d| d.is_ascii_digit()) {
            j += 1;
        }
        if j > digits {
            i = j;
        }
    }
    let text: String = chars[start..i].iter().collect();
    // HLSL's literal suffixes: float, half, double (`1.0f`, `0.5h`, `2.0l`).
    if matches!(chars.get(i), Some('f' | 'F' | 'h' | 'H' | 'l' | 'L'))
        && !chars
            .get(i + 1)
            .is_some_and(|d| d.is_alphanumeric() || *d == '_')
    {
        i += 1;
    }
    Ok((text, i))
}

// ---------------------------------------------------------------------------------------
// Tree

#[derive(Clone, Debug)]
enum Node {
    /// Input `k`.
    Var(usize),
    /// A literal as written.
    Num(String),
    Neg(Box<Node>),
    Bin(char, Box<Node>, Box<Node>),
    /// An intrinsic or constructor, its name as written, its arguments and the column.
    Call(String, Vec<Node>, usize),
    /// A swizzle: the components read, and the letters and column for messages.
    Swizzle(Box<Node>, Vec<u8>, String, usize),
}

struct Parser<'t> {
    tokens: &'t [Token],
    inputs: &'t [(&'t str, usize)],
    pos: usize,
    depth: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }

    fn enter(&mut self) -> Result<(), ProgramError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            let col = self.peek().map_or(0, |t| t.col);
            return Err(err(format!(
                "the expression is nested too deeply at column {col} (at most {MAX_DEPTH} levels)"
            )));
        }
        Ok(())
    }

    /// `term (('+' | '-') term)*`
    fn expression(&mut self) -> Result<Node, ProgramError> {
        self.enter()?;
        let mut left = self.term()?;
        let mut chain = 0;
        while let Some(t) = self.peek() {
            let op = match t.kind {
                Tok::Plus => '+',
                Tok::Minus => '-',
                _ => break,
            };
            self.pos += 1;
            chain += 1;
            self.chain(chain)?;
            let right = self.term()?;
            left = Node::Bin(op, Box::new(left), Box::new(right));
        }
        self.depth -= 1;
        Ok(left)
    }

    /// A left-leaning chain (`a+a+a+...`) deepens the tree as nesting does.
    fn chain(&self, chain: usize) -> Result<(), ProgramError> {
        if self.depth + chain > MAX_DEPTH {
            let col = self.tokens.get(self.pos - 1).map_or(0, |t| t.col);
            return Err(err(format!(
                "the expression is too long at column {col} (more than {MAX_DEPTH} operations in a chain)"
            )));
        }
        Ok(())
    }

    /// `unary (('*' | '/') unary)*`
    fn term(&mut self) -> Result<Node, ProgramError> {
        let mut left = self.unary()?;
        let mut chain = 0;
        while let Some(t) = self.peek() {
            let op = match t.kind {
                Tok::Star => '*',
                Tok::Slash => '/',
                _ => break,
            };
            self.pos += 1;
            chain += 1;
            self.chain(chain)?;
            let right = self.unary()?;
            left = Node::Bin(op, Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    /// `'-' unary | '+' unary | postfix`
    fn unary(&mut self) -> Result<Node, ProgramError> {
        match self.peek().map(|t| t.kind) {
            Some(Tok::Minus) => {
                self.pos += 1;
                self.enter()?;
                let inner = self.unary()?;
                self.depth -= 1;
                Ok(Node::Neg(Box::new(inner)))
            }
            Some(Tok::Plus) => {
                self.pos += 1;
                self.enter()?;
                let inner = self.unary()?;
                self.depth -= 1;
                Ok(inner)
            }
            _ => self.postfix(),
        }
    }

    /// `primary ('.' swizzle)*`
    fn postfix(&mut self) -> Result<Node, ProgramError> {
        let mut node = self.primary()?;
        let mut chain = 0;
        while let Some(t) = self.peek() {
            if t.kind != Tok::Swizzle {
                break;
            }
            let (letters, col) = (t.text.clone(), t.col);
            self.pos += 1;
            chain += 1;
            self.chain(chain)?;
            let comps = swizzle_letters(&letters, col)?;
            node = Node::Swizzle(Box::new(node), comps, letters, col);
        }
        Ok(node)
    }

    fn primary(&mut self) -> Result<Node, ProgramError> {
        let Some(t) = self.peek().cloned() else {
            let col = self.tokens.last().map_or(1, |t| t.col + t.text.len());
            return Err(err(if self.tokens.is_empty() {
                "the expression is empty".to_string()
            } else {
                format!("the expression ends early at column {col} (an operand is missing)")
            }));
        };
        self.pos += 1;
        match t.kind {
            Tok::Num => Ok(Node::Num(t.text)),
            Tok::LParen => {
                let inner = self.expression()?;
                match self.peek() {
                    Some(c) if c.kind == Tok::RParen => {
                        self.pos += 1;
                        Ok(inner)
                    }
                    Some(c) => Err(err(format!(
                        "expected ')' for the '(' at column {}, found '{}' at column {}",
                        t.col, c.text, c.col
                    ))),
                    None => Err(err(format!(
                        "unbalanced parentheses: the '(' at column {} is never closed",
                        t.col
                    ))),
                }
            }
            Tok::Ident => {
                if self.peek().is_some_and(|n| n.kind == Tok::LParen) {
                    let open = self.peek().map_or(0, |n| n.col);
                    self.pos += 1;
                    self.enter()?;
                    let mut args = Vec::new();
                    if self.peek().is_some_and(|n| n.kind == Tok::RParen) {
                        self.pos += 1;
                    } else {
                        loop {
                            args.push(self.expression()?);
                            match self.peek() {
                                Some(n) if n.kind == Tok::Comma => self.pos += 1,
                                Some(n) if n.kind == Tok::RParen => {
                                    self.pos += 1;
                                    break;
                                }
                                Some(n) => {
                                    return Err(err(format!(
                                        "expected ',' or ')' in the arguments of '{}', found '{}' at column {}",
                                        t.text, n.text, n.col
                                    )));
                                }
                                None => {
                                    return Err(err(format!(
                                        "unbalanced parentheses: the '(' of '{}' at column {open} is never closed",
                                        t.text
                                    )));
                                }
                            }
                        }
                    }
                    self.depth -= 1;
                    Ok(Node::Call(t.text, args, t.col))
                } else if let Some(k) = self.inputs.iter().position(|(n, _)| *n == t.text) {
                    Ok(Node::Var(k))
                } else {
                    Err(err(format!(
                        "unknown identifier '{}' at column {}",
                        t.text, t.col
                    )))
                }
            }
            Tok::RParen => Err(err(format!(
                "unbalanced parentheses: ')' at column {} closes nothing or follows an operator",
                t.col
            ))),
            _ => Err(err(format!(
                "unexpected '{}' at column {} (an operand is missing)",
                t.text, t.col
            ))),
        }
    }
}

fn swizzle_letters(letters: &str, col: usize) -> Result<Vec<u8>, ProgramError> {
    let bad = || {
        err(format!(
            "'.{letters}' at column {col} is not a swizzle (1 to 4 of x, y, z, w or r, g, b, a)"
        ))
    };
    if letters.is_empty() || letters.len() > 4 {
        return Err(bad());
    }
    let xyzw = letters.chars().all(|c| "xyzw".contains(c));
    let rgba = letters.chars().all(|c| "rgba".contains(c));
    if !xyzw && !rgba {
        return Err(bad());
    }
    Ok(letters
        .chars()
        .map(|c| match c {
            'x' | 'r' => 0,
            'y' | 'g' => 1,
            'z' | 'b' => 2,
            _ => 3,
        })
        .collect())
}

// ---------------------------------------------------------------------------------------
// Operands and instructions

/// Where an operand's components come from.
#[derive(Clone, Debug, PartialEq)]
enum Val {
    /// Input `v{k}` or temporary `r{k}`, the components read in order.
    Input(usize, Vec<u8>),
    Temp(u32, Vec<u8>),
    /// Literal texts, one per component.
    Lit(Vec<String>),
}

/// A value of the expression: its components and the source modifiers that apply to it
/// (a negation costs no instruction: it is folded into the instruction that reads it, as
/// compilers do).
#[derive(Clone, Debug, PartialEq)]
struct Operand {
    val: Val,
    neg: bool,
    abs: bool,
}

impl Operand {
    fn plain(val: Val) -> Operand {
        Operand {
            val,
            neg: false,
            abs: false,
        }
    }

    fn width(&self) -> usize {
        match &self.val {
            Val::Input(_, c) | Val::Temp(_, c) => c.len(),
            Val::Lit(v) => v.len(),
        }
    }

    fn negated(&self) -> Operand {
        Operand {
            neg: !self.neg,
            ..self.clone()
        }
    }

    /// The components `pick` of this operand, modifiers kept.
    fn pick(&self, pick: &[u8]) -> Operand {
        let val = match &self.val {
            Val::Input(k, c) => Val::Input(*k, pick.iter().map(|&p| c[p as usize]).collect()),
            Val::Temp(k, c) => Val::Temp(*k, pick.iter().map(|&p| c[p as usize]).collect()),
            Val::Lit(v) => Val::Lit(pick.iter().map(|&p| v[p as usize].clone()).collect()),
        };
        Operand {
            val,
            ..self.clone()
        }
    }

    /// As an instruction's source writing components `at..at + n`: a scalar is read by
    /// every component (`.xxxx`), a vector's component `i` by destination `at + i`; the
    /// swizzle is always written with four letters (positional).
    fn render(&self, at: usize, n: usize) -> String {
        let w = self.width();
        let index = |c: usize| -> usize {
            if w == 1 {
                0
            } else {
                c.clamp(at, at + n - 1) - at
            }
        };
        let body = match &self.val {
            Val::Input(_, comps) | Val::Temp(_, comps) => {
                let reg = match &self.val {
                    Val::Input(k, _) => format!("v{k}"),
                    Val::Temp(k, _) => format!("r{k}"),
                    Val::Lit(_) => unreachable!(),
                };
                let sw: String = (0..4)
                    .map(|c| super::ast::COMPONENTS[comps[index(c)] as usize])
                    .collect();
                format!("{reg}.{sw}")
            }
            Val::Lit(v) => {
                if w == 1 {
                    format!("l({})", v[0])
                } else {
                    let vals: Vec<&str> = (0..4)
                        .map(|c| {
                            if c >= at && c < at + n {
                                v[c - at].as_str()
                            } else {
                                "0"
                            }
                        })
                        .collect();
                    format!("l({})", vals.join(", "))
                }
            }
        };
        let body = if self.abs { format!("|{body}|") } else { body };
        if self.neg { format!("-{body}") } else { body }
    }
}

#[derive(Clone, Copy, Debug)]
enum Dst {
    /// Temporary `r{k}`, components `at..at + n`.
    Temp(u32, usize, usize),
    Null,
}

#[derive(Clone, Debug)]
struct Ins {
    op: &'static str,
    dests: Vec<Dst>,
    srcs: Vec<String>,
}

fn mask(at: usize, n: usize) -> String {
    super::ast::COMPONENTS[at..at + n].iter().collect()
}

// Compilers, as bits of a label.
const FXC: u8 = 1;
const DXC: u8 = 2;
/// DXC with `-Gec` (fxc compatibility mode), which changes only `pow` of a literal.
const DXC_GEC: u8 = 4;
const ALL: u8 = FXC | DXC | DXC_GEC;

fn compiler_names(mask: u8) -> String {
    let mut names = Vec::new();
    if mask & FXC != 0 {
        names.push("fxc");
    }
    if mask & DXC != 0 {
        names.push("dxc");
    }
    if mask & DXC_GEC != 0 {
        names.push("dxc -Gec");
    }
    names.join(", ")
}

/// One generation of the expression's assembly, for one combination of expansions.
struct Gen<'a> {
    inputs: &'a [(&'a str, usize)],
    instrs: Vec<Ins>,
    next_temp: u32,
    /// Temporaries some instruction reads.
    read: Vec<u32>,
    /// The expansion to take at each intrinsic call with several (in the order met);
    /// beyond its end, the first.
    picks: Vec<usize>,
    /// How many expansions each call met had.
    radices: Vec<usize>,
    /// The intrinsic and compilers of each expansion taken among several.
    chosen: Vec<(String, u8)>,
}

/// The log2(e) and ln(2) constants of exp and log: DXC uses `M_LOG2E` and `M_LN2` as
/// float constants (TranslateExp, TranslateLog); these decimals round to those floats
/// (0x3fb8aa3b and 0x3f317218). fxc's disassembly prints them as 1.442695 and 0.693147.
const LOG2E: &str = "1.44269502";
const LN2: &str = "0.693147182";

impl<'a> Gen<'a> {
    fn new(inputs: &'a [(&'a str, usize)], picks: Vec<usize>) -> Gen<'a> {
        Gen {
            inputs,
            instrs: Vec::new(),
            next_temp: 0,
            read: Vec::new(),
            picks,
            radices: Vec::new(),
            chosen: Vec::new(),
        }
    }

    /// The combination's compilers: those that emit every expansion taken; when none
    /// does, the expansions are named one by one.
    fn label(&self) -> (u8, String) {
        let mask = self.chosen.iter().fold(ALL, |m, (_, c)| m & c);
        if mask != 0 {
            (mask, compiler_names(mask))
        } else {
            let parts: Vec<String> = self
                .chosen
                .iter()
                .map(|(name, c)| format!("{name}: {}", compiler_names(*c)))
                .collect();
            (0, format!("mixed ({})", parts.join("; ")))
        }
    }

    /// Which of `options` (compilers of each expansion) to take at this call.
    fn choose(&mut self, name: &str, options: &[u8]) -> usize {
        if options.len() == 1 {
            self.chosen.push((name.to_string(), options[0]));
            return 0;
        }
        let k = self.radices.len();
        self.radices.push(options.len());
        let pick = self
            .picks
            .get(k)
            .copied()
            .unwrap_or(0)
            .min(options.len() - 1);
        self.chosen.push((name.to_string(), options[pick]));
        pick
    }

    /// The assembly text with the result in `o0`, and the result's width.
    fn finish(&mut self, tree: &Node) -> Result<(String, usize), ProgramError> {
        let result = self.node(tree)?;
        let width = result.width();
        let mut out_temp = None;
        if let Val::Temp(k, comps) = &result.val
            && !result.neg
            && !result.abs
            && comps.iter().enumerate().all(|(i, &c)| c as usize == i)
            && !self.read.contains(k)
            && self.instrs.iter().all(|ins| {
                ins.dests.iter().all(|d| match d {
                    Dst::Temp(t, at, n) => t != k || at + n <= width,
                    Dst::Null => true,
                })
            })
        {
            // The last value is a temporary nothing reads: write it to o0 directly.
            out_temp = Some(*k);
        } else {
            let src = result.render(0, width);
            self.check_len()?;
            self.instrs.push(Ins {
                op: "mov",
                dests: vec![Dst::Temp(u32::MAX, 0, width)],
                srcs: vec![src],
            });
            out_temp = out_temp.or(Some(u32::MAX));
        }
        let mut text = String::new();
        for ins in &self.instrs {
            let dests: Vec<String> = ins
                .dests
                .iter()
                .map(|d| match *d {
                    Dst::Null => "null".to_string(),
                    Dst::Temp(k, at, n) if Some(k) == out_temp => format!("o0.{}", mask(at, n)),
                    Dst::Temp(k, at, n) => format!("r{k}.{}", mask(at, n)),
                })
                .collect();
            text.push_str(ins.op);
            text.push(' ');
            text.push_str(&dests.join(", "));
            for s in &ins.srcs {
                text.push_str(", ");
                text.push_str(s);
            }
            text.push('\n');
        }
        Ok((text, width))
    }

    fn check_len(&self) -> Result<(), ProgramError> {
        if self.instrs.len() >= MAX_INSTRUCTIONS {
            return Err(err(format!(
                "the expression expands to more than {MAX_INSTRUCTIONS} instructions"
            )));
        }
        Ok(())
    }

    fn note_reads(&mut self, srcs: &[&Operand]) {
        for s in srcs {
            if let Val::Temp(k, _) = s.val
                && !self.read.contains(&k)
            {
                self.read.push(k);
            }
        }
    }

    /// Emits `op` of width `n` over `srcs` into a fresh temporary; its value.
    fn emit(
        &mut self,
        op: &'static str,
        n: usize,
        srcs: &[&Operand],
    ) -> Result<Operand, ProgramError> {
        self.check_len()?;
        self.note_reads(srcs);
        let k = self.next_temp;
        self.next_temp += 1;
        self.instrs.push(Ins {
            op,
            dests: vec![Dst::Temp(k, 0, n)],
            srcs: srcs.iter().map(|s| s.render(0, n)).collect(),
        });
        Ok(Operand::plain(Val::Temp(k, (0..n as u8).collect())))
    }

    /// A dot product of width `n` (`dp2`..`dp4`; `mul` for scalars): a scalar.
    fn dot(&mut self, a: &Operand, b: &Operand, n: usize) -> Result<Operand, ProgramError> {
        let op = match n {
            1 => return self.emit("mul", 1, &[a, b]),
            2 => "dp2",
            3 => "dp3",
            _ => "dp4",
        };
        self.check_len()?;
        self.note_reads(&[a, b]);
        let k = self.next_temp;
        self.next_temp += 1;
        self.instrs.push(Ins {
            op,
            dests: vec![Dst::Temp(k, 0, 1)],
            srcs: vec![a.render(0, n), b.render(0, n)],
        });
        Ok(Operand::plain(Val::Temp(k, vec![0])))
    }

    /// A scalar operand read as `n` components (or a vector of `n` as it is).
    fn widen(a: &Operand, n: usize) -> Operand {
        if a.width() == n {
            a.clone()
        } else {
            a.pick(&vec![0; n])
        }
    }

    fn node(&mut self, node: &Node) -> Result<Operand, ProgramError> {
        match node {
            Node::Var(k) => Ok(Operand::plain(Val::Input(
                *k,
                (0..self.inputs[*k].1 as u8).collect(),
            ))),
            Node::Num(t) => Ok(Operand::plain(Val::Lit(vec![t.clone()]))),
            Node::Neg(inner) => Ok(self.node(inner)?.negated()),
            Node::Swizzle(inner, comps, letters, col) => {
                let v = self.node(inner)?;
                let w = v.width();
                if let Some(&c) = comps.iter().find(|&&c| c as usize >= w) {
                    return Err(err(format!(
                        "'.{letters}' at column {col} reads component '{}' of a value of {w} component{}",
                        letters
                            .chars()
                            .nth(comps.iter().position(|&d| d == c).unwrap_or(0))
                            .unwrap_or('?'),
                        if w == 1 { "" } else { "s" }
                    )));
                }
                Ok(v.pick(comps))
            }
            Node::Bin(op, a, b) => {
                let a = self.node(a)?;
                let b = self.node(b)?;
                let n = common_width(&format!("'{op}'"), &[&a, &b])?;
                match op {
                    '+' => self.emit("add", n, &[&a, &b]),
                    '-' => self.emit("add", n, &[&a, &b.negated()]),
                    '*' => self.emit("mul", n, &[&a, &b]),
                    _ => self.emit("div", n, &[&a, &b]),
                }
            }
            Node::Call(name, args, col) => self.call(name, args, *col),
        }
    }

    fn call(&mut self, name: &str, args: &[Node], col: usize) -> Result<Operand, ProgramError> {
        if let Some(n) = constructor_width(name) {
            return self.construct(name, n, args, col);
        }
        let Some(arity) = intrinsic_arity(name) else {
            return Err(err(format!("unknown intrinsic '{name}' at column {col}")));
        };
        if args.len() != arity {
            return Err(err(format!(
                "'{name}' at column {col} takes {arity} argument{}, got {}",
                if arity == 1 { "" } else { "s" },
                args.len()
            )));
        }
        let mut vals = Vec::new();
        for a in args {
            vals.push(self.node(a)?);
        }
        let refs: Vec<&Operand> = vals.iter().collect();
        let what = format!("'{name}' at column {col}");
        let n = common_width(&what, &refs)?;
        let a = &vals[0];
        match name {
            // One instruction each, the same in fxc and DXC (DXC: the DXIL operation of the
            // same name, HLOperationLower.cpp's table; fxc: its disassembly).
            "rsqrt" => self.one(name, "rsq", n, &refs),
            "sqrt" => self.one(name, "sqrt", n, &refs),
            "frac" => self.one(name, "frc", n, &refs),
            "floor" => self.one(name, "round_ni", n, &refs),
            "ceil" => self.one(name, "round_pi", n, &refs),
            "round" => self.one(name, "round_ne", n, &refs),
            "min" => self.one(name, "min", n, &refs),
            "max" => self.one(name, "max", n, &refs),
            "mad" => self.one(name, "mad", n, &refs),
            "exp2" => self.one(name, "exp", n, &refs),
            "log2" => self.one(name, "log", n, &refs),
            "saturate" => self.one(name, "mov_sat", n, &refs),
            "abs" => {
                self.choose(name, &[ALL]);
                let mut x = a.clone();
                x.neg = false;
                x.abs = true;
                self.emit("mov", n, &[&x])
            }
            "sin" | "cos" => {
                // sincos with the other half null (fxc); DXC's dx.op.Sin/Cos have the same
                // rule in this crate (d3d::functions, Op::Sin/Cos/Sincos share sin_cos).
                self.choose(name, &[ALL]);
                self.check_len()?;
                self.note_reads(&[a]);
                let k = self.next_temp;
                self.next_temp += 1;
                let d = Dst::Temp(k, 0, n);
                let dests = if name == "sin" {
                    vec![d, Dst::Null]
                } else {
                    vec![Dst::Null, d]
                };
                self.instrs.push(Ins {
                    op: "sincos",
                    dests,
                    srcs: vec![Self::widen(a, n).render(0, n)],
                });
                Ok(Operand::plain(Val::Temp(k, (0..n as u8).collect())))
            }
            "clamp" => {
                // min(max(x, lo), hi): TranslateClamp; fxc the same.
                self.choose(name, &[ALL]);
                let m = self.emit("max", n, &[&vals[0], &vals[1]])?;
                self.emit("min", n, &[&m, &vals[2]])
            }
            "rcp" => {
                // fxc (SM5): rcp. DXC: TranslateRCP lowers to fdiv 1.0 / x.
                let pick = self.choose(name, &[FXC, DXC | DXC_GEC]);
                if pick == 0 {
                    self.emit("rcp", n, &[a])
                } else {
                    let one = Operand::plain(Val::Lit(vec!["1.0".into()]));
                    self.emit("div", n, &[&one, a])
                }
            }
            "dot" => {
                // dp2/dp3/dp4, a scalar product for scalars: TranslateFDot; fxc the same.
                self.choose(name, &[ALL]);
                let (x, y) = (Self::widen(&vals[0], n), Self::widen(&vals[1], n));
                self.dot(&x, &y, n)
            }
            "normalize" => {
                // v * rsq(dot(v, v)): TranslateNormalize (dot, Rsqrt, fmul); fxc the same.
                self.choose(name, &[ALL]);
                let d = self.dot(a, a, n)?;
                let r = self.emit("rsq", 1, &[&d])?;
                self.emit("mul", n, &[&r, a])
            }
            "length" => self.length(name, a, n),
            "distance" => {
                // TranslateDistance: fsub then length; fxc the same.
                let d = self.emit("add", n, &[&vals[0], &vals[1].negated()])?;
                self.length(name, &d, n)
            }
            "lerp" => {
                // fxc: add d, b, -a; mad r, t, d, a. DXC (TranslateLerp): x + s*(y - x),
                // three separate operations.
                let pick = self.choose(name, &[FXC, DXC | DXC_GEC]);
                let (x, y, s) = (&vals[0], &vals[1], &vals[2]);
                let d = self.emit("add", n, &[y, &x.negated()])?;
                if pick == 0 {
                    self.emit("mad", n, &[s, &d, x])
                } else {
                    let m = self.emit("mul", n, &[s, &d])?;
                    self.emit("add", n, &[x, &m])
                }
            }
            "smoothstep" => self.smoothstep(&vals, n),
            "pow" => self.pow(&vals, &args[1], n),
            "exp" => {
                // exp2(x * log2(e)): TranslateExp; fxc the same.
                self.choose(name, &[ALL]);
                let c = Operand::plain(Val::Lit(vec![LOG2E.into()]));
                let m = self.emit("mul", n, &[a, &c])?;
                self.emit("exp", n, &[&m])
            }
            "log" => {
                // log2(x) * ln(2): TranslateLog; fxc the same.
                self.choose(name, &[ALL]);
                let l = self.emit("log", n, &[a])?;
                let c = Operand::plain(Val::Lit(vec![LN2.into()]));
                self.emit("mul", n, &[&l, &c])
            }
            "reflect" => {
                // i - 2 * dot(n, i) * n. fxc: dp, add d, d, d; mad r, -d, n, i.
                // DXC (TranslateReflect): dot, fmul 2.0, fmul by n, fsub.
                let pick = self.choose(name, &[FXC, DXC | DXC_GEC]);
                let (i, nn) = (Self::widen(&vals[0], n), Self::widen(&vals[1], n));
                if pick == 0 {
                    let d = self.dot(&nn, &i, n)?;
                    let d2 = self.emit("add", 1, &[&d, &d])?;
                    self.emit("mad", n, &[&d2.negated(), &nn, &i])
                } else {
                    let d = self.dot(&i, &nn, n)?;
                    let two = Operand::plain(Val::Lit(vec!["2.0".into()]));
                    let d2 = self.emit("mul", 1, &[&two, &d])?;
                    let m = self.emit("mul", n, &[&d2, &nn])?;
                    self.emit("add", n, &[&i, &m.negated()])
                }
            }
            _ => Err(err(format!("unknown intrinsic '{name}' at column {col}"))),
        }
    }

    /// An intrinsic that is one instruction in every compiler.
    fn one(
        &mut self,
        name: &str,
        op: &'static str,
        n: usize,
        srcs: &[&Operand],
    ) -> Result<Operand, ProgramError> {
        self.choose(name, &[ALL]);
        self.emit(op, n, srcs)
    }

    fn length(&mut self, name: &str, a: &Operand, n: usize) -> Result<Operand, ProgramError> {
        // fxc: dp{n} then sqrt (a scalar: mul then sqrt). DXC (TranslateLength): the sum
        // of the squares as separate fmul and fadd in component order, then sqrt; a scalar
        // is fabs.
        let pick = self.choose(name, &[FXC, DXC | DXC_GEC]);
        if pick == 0 {
            let d = self.dot(a, a, n)?;
            return self.emit("sqrt", 1, &[&d]);
        }
        if n == 1 {
            let mut x = a.clone();
            x.neg = false;
            x.abs = true;
            return self.emit("mov", 1, &[&x]);
        }
        let c0 = a.pick(&[0]);
        let mut sum = self.emit("mul", 1, &[&c0, &c0])?;
        for i in 1..n {
            let ci = a.pick(&[i as u8]);
            let sq = self.emit("mul", 1, &[&ci, &ci])?;
            sum = self.emit("add", 1, &[&sum, &sq])?;
        }
        self.emit("sqrt", 1, &[&sum])
    }

    fn smoothstep(&mut self, vals: &[Operand], n: usize) -> Result<Operand, ProgramError> {
        // fxc: (x - e0) / (e1 - e0) saturated, then t*t*(3 - 2t) as mad(t, -2, 3), t*t,
        // and their product; the division either a div or a reciprocal and a mul (fxc's
        // choice is not confirmed, both are accepted). DXC (TranslateSmoothStep): fsub,
        // fsub, fdiv, dx.op.saturate, then s * (s * (3 - 2*s)) as fmul, fsub, fmul, fmul.
        let pick = self.choose("smoothstep", &[FXC, FXC, DXC | DXC_GEC]);
        let (e0, e1, x) = (&vals[0], &vals[1], &vals[2]);
        let lit = |t: &str| Operand::plain(Val::Lit(vec![t.to_string()]));
        if pick == 2 {
            let range = self.emit("add", n, &[e1, &e0.negated()])?;
            let off = self.emit("add", n, &[x, &e0.negated()])?;
            let q = self.emit("div", n, &[&off, &range])?;
            let s = self.emit("mov_sat", n, &[&q])?;
            let s2 = self.emit("mul", n, &[&s, &lit("2.0")])?;
            let t = self.emit("add", n, &[&lit("3.0"), &s2.negated()])?;
            let u = self.emit("mul", n, &[&s, &t])?;
            return self.emit("mul", n, &[&s, &u]);
        }
        let off = self.emit("add", n, &[x, &e0.negated()])?;
        let range = self.emit("add", n, &[e1, &e0.negated()])?;
        let s = if pick == 0 {
            self.emit("div_sat", n, &[&off, &range])?
        } else {
            let r = self.emit("rcp", n, &[&range])?;
            self.emit("mul_sat", n, &[&off, &r])?
        };
        let m = self.emit("mad", n, &[&s, &lit("-2.0"), &lit("3.0")])?;
        let sq = self.emit("mul", n, &[&s, &s])?;
        self.emit("mul", n, &[&sq, &m])
    }

    fn pow(&mut self, vals: &[Operand], y_node: &Node, n: usize) -> Result<Operand, ProgramError> {
        let (x, y) = (Self::widen(&vals[0], n), &vals[1]);
        // A literal integer exponent small enough: fxc multiplies (DXC reproduces this
        // with -Gec, CanUseFxcMulOnlyPatternForPow / TranslatePowUsingFxcMulOnlyPattern);
        // DXC without -Gec multiplies only for 2 and otherwise uses log, mul, exp
        // (TranslatePowImpl).
        let int = literal_integer(y_node).filter(|&p| mul_only_applies(p, n));
        let Some(p) = int else {
            self.choose("pow", &[ALL]);
            return self.log_mul_exp(&x, y, n);
        };
        let options: Vec<u8> = if p == 2 {
            vec![ALL]
        } else {
            vec![FXC | DXC_GEC, DXC]
        };
        let pick = self.choose("pow", &options);
        if pick == 1 {
            return self.log_mul_exp(&x, y, n);
        }
        let abs = p.unsigned_abs();
        if abs == 0 {
            return Ok(Operand::plain(Val::Lit(vec!["1.0".into(); n])));
        }
        let mut last: i32 = -1;
        let mut mul: Option<Operand> = None;
        let mut result: Option<Operand> = None;
        for i in 0..32 {
            if (abs >> i) & 1 == 1 {
                for _ in (last + 1)..=i {
                    mul = Some(match mul {
                        None => x.clone(),
                        Some(m) => self.emit("mul", n, &[&m, &m])?,
                    });
                }
                let m = mul.clone().unwrap_or_else(|| x.clone());
                result = Some(match result {
                    None => m,
                    Some(r) => self.emit("mul", n, &[&r, &m])?,
                });
                last = i;
            }
        }
        let mut r = result.unwrap_or_else(|| x.clone());
        if p < 0 {
            let one = Operand::plain(Val::Lit(vec!["1.0".into()]));
            r = self.emit("div", n, &[&one, &r])?;
        }
        Ok(r)
    }

    fn log_mul_exp(&mut self, x: &Operand, y: &Operand, n: usize) -> Result<Operand, ProgramError> {
        let l = self.emit("log", n, &[x])?;
        let m = self.emit("mul", n, &[&l, y])?;
        self.emit("exp", n, &[&m])
    }

    /// `float3(a.xy, 1)`: the components of the arguments in order. Literals alone stay
    /// one literal; otherwise each argument is moved into place in a fresh temporary.
    fn construct(
        &mut self,
        name: &str,
        n: usize,
        args: &[Node],
        col: usize,
    ) -> Result<Operand, ProgramError> {
        if args.is_empty() {
            return Err(err(format!("'{name}' at column {col} takes arguments")));
        }
        let mut parts = Vec::new();
        for a in args {
            parts.push(self.node(a)?);
        }
        let total: usize = parts.iter().map(Operand::width).sum();
        if total != n && !(parts.len() == 1 && parts[0].width() == 1) {
            return Err(err(format!(
                "'{name}' at column {col} needs {n} component{}, its arguments give {total}",
                if n == 1 { "" } else { "s" }
            )));
        }
        if parts.len() == 1 {
            // float3(x): a scalar broadcast, or the value itself.
            return Ok(Self::widen(&parts[0], n));
        }
        if parts
            .iter()
            .all(|p| matches!(p.val, Val::Lit(_)) && !p.neg && !p.abs)
        {
            let texts = parts
                .iter()
                .flat_map(|p| match &p.val {
                    Val::Lit(v) => v.clone(),
                    _ => Vec::new(),
                })
                .collect();
            return Ok(Operand::plain(Val::Lit(texts)));
        }
        let k = self.next_temp;
        self.next_temp += 1;
        let mut at = 0;
        for p in &parts {
            let w = p.width();
            self.check_len()?;
            self.note_reads(&[p]);
            self.instrs.push(Ins {
                op: "mov",
                dests: vec![Dst::Temp(k, at, w)],
                srcs: vec![p.render(at, w)],
            });
            at += w;
        }
        Ok(Operand::plain(Val::Temp(k, (0..n as u8).collect())))
    }
}

/// The width of operands combined component-wise: equal widths, or scalars broadcast.
fn common_width(what: &str, vals: &[&Operand]) -> Result<usize, ProgramError> {
    let n = vals.iter().map(|v| v.width()).max().unwrap_or(1);
    if let Some(v) = vals.iter().find(|v| v.width() != 1 && v.width() != n) {
        let widths: Vec<String> = vals.iter().map(|v| format!("float{}", v.width())).collect();
        return Err(err(format!(
            "width mismatch in {what}: {} (a float{} cannot combine with a float{n})",
            widths.join(" and "),
            v.width()
        )));
    }
    Ok(n)
}

/// `float3`, `half2`, `min16float4`, `float` ...: the width of a constructor.
fn constructor_width(name: &str) -> Option<usize> {
    let rest = ["min16float", "float", "half"]
        .iter()
        .find_map(|p| name.strip_prefix(p))?;
    match rest {
        "" | "1" => Some(1),
        "2" => Some(2),
        "3" => Some(3),
        "4" => Some(4),
        _ => None,
    }
}

fn intrinsic_arity(name: &str) -> Option<usize> {
    Some(match name {
        "normalize" | "length" | "saturate" | "exp" | "log" | "exp2" | "log2" | "rcp" | "rsqrt"
        | "sqrt" | "frac" | "floor" | "ceil" | "round" | "sin" | "cos" | "abs" => 1,
        "distance" | "dot" | "pow" | "reflect" | "min" | "max" => 2,
        "lerp" | "smoothstep" | "clamp" | "mad" => 3,
        _ => return None,
    })
}

/// The exponent of `pow` when it is a decimal literal (possibly negated, possibly a
/// constructor of one value) that is exactly an integer: what DXC checks with
/// `convertToInteger(..., &isExact)`.
fn literal_integer(node: &Node) -> Option<i32> {
    match node {
        Node::Num(t) if !t.starts_with("0x") && !t.starts_with("0X") => {
            let v: f64 = t.parse().ok()?;
            // The literal as the float the compiler holds.
            let v = v as f32 as f64;
            (v.fract() == 0.0 && v.abs() < 2147483648.0).then_some(v as i32)
        }
        Node::Neg(inner) => literal_integer(inner).and_then(|p| p.checked_neg()),
        Node::Call(name, args, _) if constructor_width(name).is_some() && !args.is_empty() => {
            let first = literal_integer(&args[0])?;
            args.iter()
                .all(|a| literal_integer(a) == Some(first))
                .then_some(first)
        }
        _ => None,
    }
}

/// DXC's `CanUseFxcMulOnlyPatternForPow`: multiplications needed (highest set bit plus
/// set bits, less one) at most `2 * elements + 1`, or `elements + 1` for a negative power.
fn mul_only_applies(p: i32, elements: usize) -> bool {
    let u = p.unsigned_abs();
    if u > (1 << 30) {
        return false;
    }
    let set = u.count_ones() as i64;
    let max_bit = if u == 0 {
        -1
    } else {
        31 - u.leading_zeros() as i64
    };
    let threshold = if p < 0 {
        elements as i64 + 1
    } else {
        2 * elements as i64 + 1
    };
    max_bit + set - 1 <= threshold
}

/// The register an expression's result is written to, `o0`.
pub const RESULT: super::Reg = super::Reg {
    file: super::RegFile::Output,
    index: 0,
};

/// Expands `expr` and parses every alternative in `format`: the programs whose union is
/// the answer, and who emits each (what the command line and the Python package both
/// need).
pub fn programs(
    expr: &str,
    inputs: &[(&str, usize)],
    format: crate::format::FloatFormat,
) -> Result<(Vec<super::Program>, Vec<String>), ProgramError> {
    let e = expand(expr, inputs)?;
    let mut programs = Vec::with_capacity(e.alternatives.len());
    let mut sources = Vec::with_capacity(e.alternatives.len());
    for alt in e.alternatives {
        programs.push(super::parse_asm(&alt.asm, format).map_err(|err| {
            ProgramError::Expression(format!("the expansion '{}' does not parse: {err}", alt.asm))
        })?);
        sources.push(alt.compilers);
    }
    Ok((programs, sources))
}
