//! Shader Model 4/5 program tokens (the D3D10/D3D11 tokenized program format): opcode
//! tokens, operand tokens with their component selection, the extended operand token that
//! carries a negate, immediates, and the declarations a compute shader needs.
//!
//! An opcode token holds the opcode in bits 0..11, instruction controls in bits 11..24
//! (the global flags of `dcl_globalFlags`, the per-component `precise` mask in bits
//! 19..23) and the instruction's length in 32-bit tokens in bits 24..31. An operand token
//! holds its component count in bits 0..2, the selection mode in bits 2..4, the mask,
//! swizzle or selected component from bit 4, the register type in bits 12..20 and the
//! index dimension in bits 20..22; bit 31 says an extended operand token follows.

/// Opcode numbers (the D3D11 tokenized program format's `D3D10_SB_OPCODE_TYPE` and
/// `D3D11_SB_OPCODE_TYPE` values).
// Each constant is named after its instruction (`DCL_UAV_RAW` for `dcl_uav_raw`).
#[allow(missing_docs)]
pub mod opcode {
    pub const ADD: u32 = 0x00;
    pub const AND: u32 = 0x01;
    pub const DIV: u32 = 0x0e;
    pub const DP2: u32 = 0x0f;
    pub const DP3: u32 = 0x10;
    pub const DP4: u32 = 0x11;
    pub const EQ: u32 = 0x18;
    pub const EXP: u32 = 0x19;
    pub const FRC: u32 = 0x1a;
    pub const FTOI: u32 = 0x1b;
    pub const FTOU: u32 = 0x1c;
    pub const GE: u32 = 0x1d;
    pub const IADD: u32 = 0x1e;
    pub const IMUL: u32 = 0x26;
    pub const ISHL: u32 = 0x29;
    pub const ITOF: u32 = 0x2b;
    pub const LOG: u32 = 0x2f;
    pub const LT: u32 = 0x31;
    pub const MAD: u32 = 0x32;
    pub const MIN: u32 = 0x33;
    pub const MAX: u32 = 0x34;
    pub const CUSTOM_DATA: u32 = 0x35;
    pub const MUL: u32 = 0x38;
    pub const NE: u32 = 0x39;
    pub const RET: u32 = 0x3e;
    pub const ROUND_NE: u32 = 0x40;
    pub const ROUND_NI: u32 = 0x41;
    pub const ROUND_PI: u32 = 0x42;
    pub const ROUND_Z: u32 = 0x43;
    pub const RSQ: u32 = 0x44;
    pub const SQRT: u32 = 0x4b;
    pub const SINCOS: u32 = 0x4d;
    pub const USHR: u32 = 0x55;
    pub const UTOF: u32 = 0x56;
    pub const XOR: u32 = 0x57;
    pub const DCL_INPUT: u32 = 0x5f;
    pub const DCL_TEMPS: u32 = 0x68;
    pub const DCL_GLOBAL_FLAGS: u32 = 0x6a;
    pub const RCP: u32 = 0x81;
    pub const F32TOF16: u32 = 0x82;
    pub const F16TOF32: u32 = 0x83;
    pub const DCL_THREAD_GROUP: u32 = 0x9b;
    pub const DCL_UAV_RAW: u32 = 0x9d;
    pub const LD_RAW: u32 = 0xa5;
    pub const STORE_RAW: u32 = 0xa6;
    pub const DADD: u32 = 0xbf;
    pub const DMAX: u32 = 0xc0;
    pub const DMIN: u32 = 0xc1;
    pub const DMUL: u32 = 0xc2;
    pub const DEQ: u32 = 0xc3;
    pub const DGE: u32 = 0xc4;
    pub const DLT: u32 = 0xc5;
    pub const DNE: u32 = 0xc6;
    pub const DTOF: u32 = 0xc9;
    pub const FTOD: u32 = 0xca;
    pub const DDIV: u32 = 0xd2;
    pub const DFMA: u32 = 0xd3;
    pub const DRCP: u32 = 0xd4;
}

/// `dcl_globalFlags` bits, counted from bit 11 of the opcode token.
pub mod global_flags {
    /// The driver may reorder and refactor arithmetic (fxc's default; `/Gis` and
    /// `precise` drop it).
    pub const REFACTORING_ALLOWED: u32 = 1 << 0;
    /// The shader uses the double-precision instructions.
    pub const DOUBLES: u32 = 1 << 1;
    /// The shader uses `ddiv`, `drcp` or `dfma` (the D3D11.1 double extensions).
    pub const DOUBLE_EXTENSIONS: u32 = 1 << 6;
}

/// Register types (`D3D10_SB_OPERAND_TYPE`, `D3D11_SB_OPERAND_TYPE`).
mod register_type {
    pub const TEMP: u32 = 0x00;
    pub const IMMEDIATE32: u32 = 0x04;
    pub const NULL: u32 = 0x0d;
    pub const UAV: u32 = 0x1e;
    pub const THREAD_ID: u32 = 0x20;
}

/// A register an operand names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reg {
    /// `r#`.
    Temp(u32),
    /// `u#`.
    Uav(u32),
    /// `vThreadID` (SV_DispatchThreadID).
    ThreadId,
    /// `null`, a discarded destination.
    Null,
}

impl Reg {
    fn kind(self) -> u32 {
        match self {
            Reg::Temp(_) => register_type::TEMP,
            Reg::Uav(_) => register_type::UAV,
            Reg::ThreadId => register_type::THREAD_ID,
            Reg::Null => register_type::NULL,
        }
    }

    fn index(self) -> Option<u32> {
        match self {
            Reg::Temp(i) | Reg::Uav(i) => Some(i),
            Reg::ThreadId | Reg::Null => None,
        }
    }
}

/// Which components an operand reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Comps {
    /// No components (a declaration's `u0`, `null`).
    None,
    /// A destination's write mask, bit 0 for x.
    Mask(u8),
    /// A source's swizzle, a component 0..4 for each of x, y, z, w.
    Swizzle([u8; 4]),
    /// One source component (`r0.x`).
    Select(u8),
}

/// One operand: a register, or a 32-bit immediate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    /// A register with its components, negated or not.
    Reg {
        /// The register.
        reg: Reg,
        /// Its components.
        comps: Comps,
        /// The negate source modifier (an extended operand token).
        negate: bool,
    },
    /// `l(value)`, one 32-bit immediate.
    Imm(u32),
}

/// The swizzle that reads components `first`, `first + 1`, ... `first + n - 1` into x, y, ...
/// and repeats the first for the rest (fxc writes `r0.xyxx`).
pub fn run(first: u8, n: u8) -> [u8; 4] {
    std::array::from_fn(|i| {
        if (i as u8) < n {
            first + i as u8
        } else {
            first
        }
    })
}

/// The mask of components `first .. first + n`.
pub fn mask(first: u8, n: u8) -> u8 {
    ((1u8 << n) - 1) << first
}

impl Operand {
    /// `reg` with write mask `mask`.
    pub fn dst(reg: Reg, mask: u8) -> Operand {
        Operand::Reg {
            reg,
            comps: Comps::Mask(mask),
            negate: false,
        }
    }

    /// `reg.c`, one component.
    pub fn select(reg: Reg, component: u8) -> Operand {
        Operand::Reg {
            reg,
            comps: Comps::Select(component),
            negate: false,
        }
    }

    /// `reg.swizzle`.
    pub fn swizzle(reg: Reg, swizzle: [u8; 4]) -> Operand {
        Operand::Reg {
            reg,
            comps: Comps::Swizzle(swizzle),
            negate: false,
        }
    }

    /// `reg` with no components (declarations, `null`).
    pub fn bare(reg: Reg) -> Operand {
        Operand::Reg {
            reg,
            comps: Comps::None,
            negate: false,
        }
    }

    /// The same operand negated (`-r0.x`).
    pub fn negated(self) -> Operand {
        match self {
            Operand::Reg { reg, comps, .. } => Operand::Reg {
                reg,
                comps,
                negate: true,
            },
            Operand::Imm(v) => Operand::Imm(v),
        }
    }

    /// Appends the operand's tokens.
    pub fn encode(&self, out: &mut Vec<u32>) {
        match *self {
            Operand::Imm(value) => {
                // One component, type IMMEDIATE32, no index.
                out.push(1 | register_type::IMMEDIATE32 << 12);
                out.push(value);
            }
            Operand::Reg { reg, comps, negate } => {
                let selection = match comps {
                    Comps::None => 0,
                    Comps::Mask(m) => 2 | (m as u32 & 0xf) << 4,
                    Comps::Swizzle(s) => {
                        let packed = s
                            .iter()
                            .enumerate()
                            .fold(0, |acc, (i, &c)| acc | (c as u32 & 3) << (2 * i));
                        2 | 1 << 2 | packed << 4
                    }
                    Comps::Select(c) => 2 | 2 << 2 | (c as u32 & 3) << 4,
                };
                // Index dimension 1D with an immediate index, or 0D.
                let dimension = if reg.index().is_some() { 1 << 20 } else { 0 };
                let extended = if negate { 1 << 31 } else { 0 };
                out.push(selection | reg.kind() << 12 | dimension | extended);
                if negate {
                    // Extended operand type MODIFIER (1), modifier NEG (1) in bits 6..14.
                    out.push(1 | 1 << 6);
                }
                out.extend(reg.index());
            }
        }
    }
}

/// The per-component `precise` bits of an SM5 opcode token for a write mask.
pub fn precise(mask: u8) -> u32 {
    (mask as u32 & 0xf) << 19
}

/// An instruction: the opcode token (with `controls`, already in place) and its operands.
pub fn instruction(opcode: u32, controls: u32, operands: &[Operand]) -> Vec<u32> {
    let mut out = vec![0];
    for o in operands {
        o.encode(&mut out);
    }
    out[0] = opcode | controls | (out.len() as u32) << 24;
    out
}

/// `dcl_globalFlags` with `flags` ([`global_flags`]).
pub fn dcl_global_flags(flags: u32) -> Vec<u32> {
    instruction(opcode::DCL_GLOBAL_FLAGS, flags << 11, &[])
}

/// `dcl_uav_raw u#` (no flags: not globally coherent).
pub fn dcl_uav_raw(slot: u32) -> Vec<u32> {
    instruction(opcode::DCL_UAV_RAW, 0, &[Operand::bare(Reg::Uav(slot))])
}

/// `dcl_input vThreadID` with a mask.
pub fn dcl_input_thread_id(mask: u8) -> Vec<u32> {
    instruction(opcode::DCL_INPUT, 0, &[Operand::dst(Reg::ThreadId, mask)])
}

/// `dcl_temps n`.
pub fn dcl_temps(n: u32) -> Vec<u32> {
    let mut v = instruction(opcode::DCL_TEMPS, 0, &[]);
    v.push(n);
    v[0] += 1 << 24;
    v
}

/// `dcl_thread_group x, y, z`.
pub fn dcl_thread_group(x: u32, y: u32, z: u32) -> Vec<u32> {
    let mut v = instruction(opcode::DCL_THREAD_GROUP, 0, &[]);
    v.extend([x, y, z]);
    v[0] += 3 << 24;
    v
}

/// The program type of a compute shader in the version token.
pub const COMPUTE: u32 = 5;

/// A program (the contents of a `SHEX` chunk): the version token, the length token, then
/// `body`.
pub fn program(program_type: u32, major: u32, minor: u32, body: &[u32]) -> Vec<u32> {
    let mut words = Vec::with_capacity(body.len() + 2);
    words.push(program_type << 16 | major << 4 | minor);
    words.push(body.len() as u32 + 2);
    words.extend_from_slice(body);
    words
}

/// Why a program's tokens do not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProgramError {
    /// The chunk is not a whole number of tokens, or has no version and length tokens.
    #[error("a program of {0} bytes has no version and length tokens")]
    Short(usize),
    /// The length token does not count the chunk's tokens.
    #[error("the length token says {said} tokens, the chunk has {actual}")]
    Length {
        /// The length token.
        said: u32,
        /// Tokens in the chunk.
        actual: usize,
    },
    /// An instruction's length is 0 or runs past the end.
    #[error("the instruction at token {at} has length {len}, past the program's end")]
    Instruction {
        /// Where it starts.
        at: usize,
        /// Its length.
        len: usize,
    },
}

/// A program's instructions, each as (opcode, tokens), after checking that the lengths
/// add up to the program's length.
pub fn instructions(program: &[u8]) -> Result<Vec<(u32, usize)>, ProgramError> {
    if !program.len().is_multiple_of(4) || program.len() < 8 {
        return Err(ProgramError::Short(program.len()));
    }
    let words: Vec<u32> = program
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    if words[1] as usize != words.len() {
        return Err(ProgramError::Length {
            said: words[1],
            actual: words.len(),
        });
    }
    let mut found = Vec::new();
    let mut at = 2;
    while at < words.len() {
        let token = words[at];
        let code = token & 0x7ff;
        let mut len = (token >> 24 & 0x7f) as usize;
        if code == opcode::CUSTOM_DATA {
            // Custom data (an immediate constant buffer) keeps its length in the next token.
            len = words.get(at + 1).copied().unwrap_or(0) as usize;
        }
        if len == 0 || at + len > words.len() {
            return Err(ProgramError::Instruction { at, len });
        }
        found.push((code, len));
        at += len;
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operands_encode_as_the_format_lays_them_out() {
        let enc = |o: Operand| {
            let mut v = Vec::new();
            o.encode(&mut v);
            v
        };
        assert_eq!(enc(Operand::dst(Reg::Temp(0), 1)), [0x0010_0012, 0]);
        assert_eq!(enc(Operand::select(Reg::Temp(2), 1)), [0x0010_001a, 2]);
        assert_eq!(enc(Operand::select(Reg::ThreadId, 0)), [0x0002_000a]);
        assert_eq!(
            enc(Operand::swizzle(Reg::Temp(1), run(0, 2))),
            [0x0010_0046, 1]
        );
        assert_eq!(enc(Operand::bare(Reg::Uav(1))), [0x0011_e000, 1]);
        assert_eq!(enc(Operand::bare(Reg::Null)), [0x0000_d000]);
        assert_eq!(enc(Operand::Imm(7)), [0x0000_4001, 7]);
        assert_eq!(
            enc(Operand::select(Reg::Temp(0), 1).negated()),
            [0x8010_001a, 0x41, 0]
        );
        assert_eq!(mask(2, 2), 0b1100);
        assert_eq!(run(2, 2), [2, 3, 2, 2]);
    }

    #[test]
    fn instruction_lengths_count_every_token() {
        let add = instruction(
            opcode::ADD,
            precise(1),
            &[
                Operand::dst(Reg::Temp(0), 1),
                Operand::select(Reg::Temp(1), 0),
                Operand::select(Reg::Temp(1), 1).negated(),
            ],
        );
        assert_eq!(add.len(), 8);
        assert_eq!(add[0], 0x0808_0000);
        assert_eq!(dcl_temps(3), [0x0200_0068, 3]);
        assert_eq!(dcl_thread_group(64, 1, 1), [0x0400_009b, 64, 1, 1]);
        let body: Vec<u32> = [add, dcl_temps(3)].concat();
        let words = program(COMPUTE, 5, 0, &body);
        assert_eq!(words[0], 0x0005_0050);
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        assert_eq!(
            instructions(&bytes).unwrap(),
            [(opcode::ADD, 8), (opcode::DCL_TEMPS, 2)]
        );
        assert!(instructions(&bytes[..bytes.len() - 4]).is_err());
    }
}
