//! A shader program as the rules see it: a straight line of instructions over registers of
//! four components, each instruction one of the D3D instructions [`crate::d3d`] judges,
//! with the source modifiers (`-`, `_abs`, §22.18) and the result modifier (`_sat`,
//! §22.19.1) of shader assembly.

use crate::d3d::Op;
use crate::format::FloatFormat;

/// A register file of shader model 4/5 assembly that a straight-line program uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegFile {
    /// `v#`: an input, given per component (`--input v0=1,2,3`).
    Input,
    /// `r#`: a temporary.
    Temp,
    /// `o#`: an output.
    Output,
}

impl RegFile {
    /// The register's letter in assembly: `v`, `r` or `o`.
    pub fn letter(self) -> char {
        match self {
            RegFile::Input => 'v',
            RegFile::Temp => 'r',
            RegFile::Output => 'o',
        }
    }
}

/// One register: `v0`, `r1`, `o0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reg {
    /// Its file.
    pub file: RegFile,
    /// Its index in the file.
    pub index: u32,
}

impl std::fmt::Display for Reg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{}", self.file.letter(), self.index)
    }
}

/// The component letters, in order.
pub const COMPONENTS: [char; 4] = ['x', 'y', 'z', 'w'];

/// Where a source operand's values come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// A register read through a swizzle: destination component `c` reads component
    /// `swizzle[c]` (`v0.xxyz`).
    Reg {
        /// The register.
        reg: Reg,
        /// For each destination component (x, y, z, w), the register component read.
        swizzle: [u8; 4],
    },
    /// An immediate, `l(1.0, 2.0, 3.0, 4.0)`: the patterns of the program's format, one per
    /// destination component.
    Literal([u64; 4]),
}

/// A source operand with its modifiers: `-r0.x`, `|v0.xyz|` or `v0.xyz_abs`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Src {
    /// Where the values come from.
    pub source: Source,
    /// `_abs` (§22.18.1): the sign forced positive, applied before the negation.
    pub abs: bool,
    /// `-` (§22.18.2): the sign flipped.
    pub neg: bool,
}

/// A destination: a register and the components written (`r0.xyz`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dest {
    /// The register written.
    pub reg: Reg,
    /// Bit `c` set when component `c` is written.
    pub mask: u8,
}

impl Dest {
    /// The components written, in order.
    pub fn components(&self) -> impl Iterator<Item = usize> + '_ {
        (0..4).filter(|c| self.mask & (1 << c) != 0)
    }
}

/// What an instruction does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opcode {
    /// An instruction the D3D rules bound ([`crate::d3d::evaluate`]): add, mul, mad, dp3,
    /// rsq, ... `sincos` writes two destinations.
    Op(Op),
    /// `mov`: moves the bits (§22.9.1); with a modifier it is a floating-point operation.
    Mov,
}

/// One instruction: `mad_sat r0.xyz, -r1.xyzx, r2.xxxx, l(1.0, 1.0, 1.0, 0)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instr {
    /// What it does.
    pub opcode: Opcode,
    /// `_sat`: the result clamped, `min(1, max(0, x))` with min and max's own rules
    /// (§22.19.1).
    pub sat: bool,
    /// Destinations: one, or two for `sincos` (`None` for a `null` one).
    pub dests: Vec<Option<Dest>>,
    /// Source operands.
    pub srcs: Vec<Src>,
    /// The instruction as written, for messages and output.
    pub text: String,
}

/// A straight-line program: instructions run in order over registers of four components.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    /// The instructions, in order.
    pub instrs: Vec<Instr>,
    /// The format every instruction computes in (f32, or f16 for 16-bit arithmetic).
    pub format: FloatFormat,
}

impl Program {
    /// The input registers the program reads, each with the components it reads (bit mask).
    pub fn inputs_read(&self) -> Vec<(Reg, u8)> {
        let mut out: Vec<(Reg, u8)> = Vec::new();
        for ins in &self.instrs {
            let comps = ins.components_read();
            for (k, src) in ins.srcs.iter().enumerate() {
                if let Source::Reg { reg, swizzle } = &src.source
                    && reg.file == RegFile::Input
                {
                    let mut mask = 0u8;
                    for &c in &comps[k] {
                        mask |= 1 << swizzle[c];
                    }
                    match out.iter_mut().find(|(r, _)| r == reg) {
                        Some((_, m)) => *m |= mask,
                        None => out.push((*reg, mask)),
                    }
                }
            }
        }
        out.sort();
        out
    }

    /// The last destination written, the default output.
    pub fn last_dest(&self) -> Option<Reg> {
        self.instrs
            .iter()
            .rev()
            .flat_map(|i| i.dests.iter().rev())
            .find_map(|d| d.map(|d| d.reg))
    }

    /// The components of `reg` some instruction writes (bit mask).
    pub fn written(&self, reg: Reg) -> u8 {
        self.instrs
            .iter()
            .flat_map(|i| i.dests.iter().flatten())
            .filter(|d| d.reg == reg)
            .fold(0, |m, d| m | d.mask)
    }
}

impl Instr {
    /// The vector width of a dot product's sources (2, 3 or 4); `None` for the
    /// component-wise instructions.
    pub fn dot_width(&self) -> Option<usize> {
        match self.opcode {
            Opcode::Op(Op::Dp2) => Some(2),
            Opcode::Op(Op::Dp3) => Some(3),
            Opcode::Op(Op::Dp4) => Some(4),
            _ => None,
        }
    }

    /// The mask of every destination, together.
    pub fn dest_mask(&self) -> u8 {
        self.dests.iter().flatten().fold(0, |m, d| m | d.mask)
    }

    /// For each source, the swizzle positions it reads: the written components for the
    /// component-wise instructions, the first 2, 3 or 4 for the dot products.
    pub fn components_read(&self) -> Vec<Vec<usize>> {
        let comps: Vec<usize> = match self.dot_width() {
            Some(n) => (0..n).collect(),
            None => (0..4)
                .filter(|c| self.dest_mask() & (1 << c) != 0)
                .collect(),
        };
        vec![comps; self.srcs.len()]
    }
}
