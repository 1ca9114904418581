//! DXBC compute shaders (Shader Model 5.0) for the probe's instructions, for a real
//! D3D-to-Vulkan translator (vkd3d-shader, dxbc-spirv) to turn into SPIR-V.
//!
//! The layout is the SPIR-V path's ([`super::shader`]), so results are judged the same
//! way: `u0` is a raw UAV (RWByteAddressBuffer) of operand words, `u1` a raw UAV receiving
//! result words, 64x1x1 threads per group, and thread `i` (`vThreadID.x`) reads the words
//! `i * input_words ..` and writes `i * output_words ..`. Each blob holds empty `ISGN` and
//! `OSGN` chunks (as fxc writes for a compute shader), the `SHEX` program, and an `SFI0`
//! chunk when it uses doubles. `docs/dxbc.md` lists the program each kernel gets.

pub mod container;
pub mod tokens;

use super::catalog::{Kernel, Lane};
use super::shader::{SWEEP_WORKGROUP, WORKGROUP};
use crate::d3d::Op;
use crate::judge::Family;
use container::Chunk;
use tokens::{Operand, Reg, global_flags, mask, opcode, run};

/// Why a kernel has no DXBC shader.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{kernel} ({family}): {reason}")]
pub struct Unsupported {
    /// The kernel's name.
    pub kernel: &'static str,
    /// Its family (`f16`).
    pub family: &'static str,
    /// Why.
    pub reason: &'static str,
}

/// Why Shader Model 5 cannot express `k`, if it cannot.
pub fn unsupported(k: &Kernel) -> Option<&'static str> {
    if k.family == Family::F16 {
        return Some(
            "16-bit float arithmetic needs Shader Model 6.2 (DXIL native 16-bit types); \
             SM5 has only min16float, which a driver may compute in 32 bits",
        );
    }
    if k.family == Family::F64 && double_opcode(k.op).is_none() {
        return Some("Shader Model 5 has no double-precision form of this instruction");
    }
    None
}

/// The file name of a kernel's blob in a dump: `add.f32.dxbc`, `sqrt.f32.indexed.dxbc`,
/// `dadd.f64.dxbc`.
pub fn file_name(k: &Kernel, indexed: bool) -> String {
    let form = if indexed { ".indexed" } else { "" };
    format!("{}.{}{form}.dxbc", k.name, k.family.name())
}

/// The DXBC container of `k`'s shader. `wrong` builds a deliberately broken shader, as
/// [`super::shader::build`] does: `add` subtracts, anything else has the lowest bit of its
/// first result word flipped.
pub fn build(k: &Kernel, wrong: bool) -> Result<Vec<u8>, Unsupported> {
    assemble(k, wrong, None)
}

/// The shader of `k`'s exhaustive sweep: `u0` holds one word, the sweep index of the
/// dispatch's first line, and thread `i` makes its operands from `base + i` as
/// [`Kernel::sweep_words`] does; results as [`build`]'s. Kernels with no sweep
/// ([`Kernel::sweep`] is `None`) have no indexed shader. `local` threads a group
/// (`dcl_thread_group local, 1, 1`; [`SWEEP_WORKGROUP`] where the device allows it).
pub fn build_indexed(k: &Kernel, wrong: bool, local: u32) -> Result<Vec<u8>, Unsupported> {
    if k.sweep().is_none() {
        return Err(refusal(k, "has no exhaustive sweep"));
    }
    assemble(k, wrong, Some(local))
}

/// The blob of `k` in one form: the sweep's (`indexed`, [`build_indexed`], in groups of
/// [`SWEEP_WORKGROUP`]) or the one that reads uploaded operands ([`build`]).
pub fn blob(k: &Kernel, indexed: bool, wrong: bool) -> Result<Vec<u8>, Unsupported> {
    if indexed {
        build_indexed(k, wrong, SWEEP_WORKGROUP as u32)
    } else {
        build(k, wrong)
    }
}

/// The forms `k` has, as [`blob`] takes them: uploaded operands, then the sweep's where it
/// has one.
pub fn forms(k: &Kernel) -> impl Iterator<Item = bool> + '_ {
    [false, true]
        .into_iter()
        .filter(|&indexed| !indexed || k.sweep().is_some())
}

fn refusal(k: &Kernel, reason: &'static str) -> Unsupported {
    Unsupported {
        kernel: k.name,
        family: k.family.name(),
        reason,
    }
}

/// The flags a kernel's shader declares ([`global_flags`]) and its `SFI0` bits.
///
/// Not `refactoringAllowed`: fxc sets it unless compiled with `/Gis`, and it lets a driver
/// reassociate or fuse arithmetic; the probe measures the instruction as written, so the
/// shader asks for none of that (and marks the instruction `precise` besides).
pub fn flags(k: &Kernel) -> (u32, u64) {
    if k.family != Family::F64 {
        return (0, 0);
    }
    // D3D11.1 made ddiv, drcp and dfma optional extensions of the doubles (§22.14.5-7):
    // a shader that uses them says so in its global flags and SFI0.
    let extended = matches!(k.op, Op::Div | Op::Rcp | Op::Mad);
    let mut declared = global_flags::DOUBLES;
    // SFI0 bits (D3D_SHADER_REQUIRES_DOUBLES, D3D_SHADER_REQUIRES_11_1_DOUBLE_EXTENSIONS).
    let mut requires = 0x1;
    if extended {
        declared |= global_flags::DOUBLE_EXTENSIONS;
        requires |= 0x20;
    }
    (declared, requires)
}

/// The SM5 double instruction of an op (§22.14, §22.15, §22.17).
fn double_opcode(op: Op) -> Option<u32> {
    Some(match op {
        Op::Add | Op::Sub => opcode::DADD,
        Op::Mul => opcode::DMUL,
        Op::Div => opcode::DDIV,
        Op::Mad => opcode::DFMA,
        Op::Min => opcode::DMIN,
        Op::Max => opcode::DMAX,
        Op::Rcp => opcode::DRCP,
        Op::Eq => opcode::DEQ,
        Op::Ne => opcode::DNE,
        Op::Lt | Op::Gt => opcode::DLT,
        Op::Ge | Op::Le => opcode::DGE,
        Op::Dtof => opcode::DTOF,
        Op::Ftod => opcode::FTOD,
        _ => return None,
    })
}

/// The SM5 32-bit instruction of an op (§22.10, §22.6, §22.13).
fn float_opcode(op: Op) -> u32 {
    match op {
        Op::Add | Op::Sub => opcode::ADD,
        Op::Mul => opcode::MUL,
        Op::Div => opcode::DIV,
        Op::Mad => opcode::MAD,
        Op::Dp2 => opcode::DP2,
        Op::Dp3 => opcode::DP3,
        Op::Dp4 => opcode::DP4,
        Op::Min => opcode::MIN,
        Op::Max => opcode::MAX,
        Op::Sqrt => opcode::SQRT,
        Op::Rsq => opcode::RSQ,
        Op::Rcp => opcode::RCP,
        Op::Exp => opcode::EXP,
        Op::Log => opcode::LOG,
        Op::Frc => opcode::FRC,
        Op::RoundNe => opcode::ROUND_NE,
        Op::RoundNi => opcode::ROUND_NI,
        Op::RoundPi => opcode::ROUND_PI,
        Op::RoundZ => opcode::ROUND_Z,
        Op::Sincos | Op::Sin | Op::Cos => opcode::SINCOS,
        Op::Eq => opcode::EQ,
        Op::Ne => opcode::NE,
        Op::Lt | Op::Gt => opcode::LT,
        Op::Ge | Op::Le => opcode::GE,
        Op::Ftoi => opcode::FTOI,
        Op::Ftou => opcode::FTOU,
        Op::Itof => opcode::ITOF,
        Op::Utof => opcode::UTOF,
        Op::F16ToF32 => opcode::F16TOF32,
        Op::F32ToF16 => opcode::F32TOF16,
        // Only reached through the f64 family, which uses double_opcode.
        Op::Dtof => opcode::DTOF,
        Op::Ftod => opcode::FTOD,
    }
}

// Registers: r0 holds addresses (x: input, y: output, z/w: the second and third operand's
// input) or the sweep index, r1..r3 one operand each, r4 the results.
const ADDRESS: Reg = Reg::Temp(0);
const RESULT: Reg = Reg::Temp(4);
const TEMPS: u32 = 5;
const INPUT: Reg = Reg::Uav(0);
const OUTPUT: Reg = Reg::Uav(1);

fn operand_reg(o: usize) -> Reg {
    Reg::Temp(1 + o as u32)
}

/// The blob of [`build`], or with `sweep` (its group size) of [`build_indexed`].
fn assemble(k: &Kernel, wrong: bool, sweep: Option<u32>) -> Result<Vec<u8>, Unsupported> {
    let indexed = sweep.is_some();
    if let Some(reason) = unsupported(k) {
        return Err(refusal(k, reason));
    }
    let (declared, requires) = flags(k);
    let mut body = Vec::new();
    if declared != 0 {
        body.extend(tokens::dcl_global_flags(declared));
    }
    body.extend(tokens::dcl_uav_raw(0));
    body.extend(tokens::dcl_uav_raw(1));
    body.extend(tokens::dcl_input_thread_id(1));
    body.extend(tokens::dcl_temps(TEMPS));
    body.extend(tokens::dcl_thread_group(
        sweep.unwrap_or(WORKGROUP as u32),
        1,
        1,
    ));

    let thread = Operand::select(Reg::ThreadId, 0);
    scale(&mut body, 1, thread, 4 * k.output_words() as u32);
    if indexed {
        sweep_operands(&mut body, k, thread);
    } else {
        load_operands(&mut body, k, thread);
    }
    body.extend(instruction_under_test(k, wrong));
    if wrong && k.op != Op::Add {
        body.extend(tokens::instruction(
            opcode::XOR,
            0,
            &[
                Operand::dst(RESULT, 1),
                Operand::select(RESULT, 0),
                Operand::Imm(1),
            ],
        ));
    }
    let out = k.output_words() as u8;
    body.extend(tokens::instruction(
        opcode::STORE_RAW,
        0,
        &[
            Operand::dst(OUTPUT, mask(0, out)),
            Operand::select(ADDRESS, 1),
            Operand::swizzle(RESULT, run(0, out)),
        ],
    ));
    body.extend(tokens::instruction(opcode::RET, 0, &[]));

    let program: Vec<u8> = tokens::program(tokens::COMPUTE, 5, 0, &body)
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    // An empty signature: no elements, the element table at byte 8.
    let empty_signature = [0u8, 0, 0, 0, 8, 0, 0, 0];
    let sfi0 = requires.to_le_bytes();
    let mut chunks = vec![
        Chunk {
            tag: *b"ISGN",
            data: &empty_signature,
        },
        Chunk {
            tag: *b"OSGN",
            data: &empty_signature,
        },
        Chunk {
            tag: *b"SHEX",
            data: &program,
        },
    ];
    if requires != 0 {
        chunks.push(Chunk {
            tag: *b"SFI0",
            data: &sfi0,
        });
    }
    Ok(container::write(&chunks))
}

/// `r0.<component> = thread * bytes`, as fxc writes it: a shift for a power of two, else
/// `imul` with a null high half.
fn scale(body: &mut Vec<u32>, component: u8, thread: Operand, bytes: u32) {
    let dst = Operand::dst(ADDRESS, 1 << component);
    body.extend(if bytes.is_power_of_two() {
        tokens::instruction(
            opcode::ISHL,
            0,
            &[dst, thread, Operand::Imm(bytes.trailing_zeros())],
        )
    } else {
        tokens::instruction(
            opcode::IMUL,
            0,
            &[Operand::bare(Reg::Null), dst, thread, Operand::Imm(bytes)],
        )
    });
}

/// Loads operand `o` of the line into `r(1 + o)`: its words in x, y, z, w order (a
/// double's low word in x, high word in y; a vector's components in order).
fn load_operands(body: &mut Vec<u32>, k: &Kernel, thread: Operand) {
    let words = (k.width * k.input.words()) as u8;
    scale(body, 0, thread, 4 * k.input_words() as u32);
    for o in 0..k.operands {
        let address = if o == 0 {
            Operand::select(ADDRESS, 0)
        } else {
            // Operands 1 and 2 start at r0.z and r0.w.
            let slot = 1 + o as u8;
            body.extend(tokens::instruction(
                opcode::IADD,
                0,
                &[
                    Operand::dst(ADDRESS, 1 << slot),
                    Operand::select(ADDRESS, 0),
                    Operand::Imm(4 * (o as u32) * words as u32),
                ],
            ));
            Operand::select(ADDRESS, slot)
        };
        body.extend(tokens::instruction(
            opcode::LD_RAW,
            0,
            &[
                Operand::dst(operand_reg(o), mask(0, words)),
                address,
                Operand::swizzle(INPUT, run(0, words)),
            ],
        ));
    }
}

/// Makes the operands of sweep line `base + thread` in `r(1 + o).x` as
/// [`Kernel::sweep_words`] does: the index itself, or for two operands its high and low
/// 16 bits.
fn sweep_operands(body: &mut Vec<u32>, k: &Kernel, thread: Operand) {
    let base = Operand::select(ADDRESS, 0);
    body.extend(tokens::instruction(
        opcode::LD_RAW,
        0,
        &[
            Operand::dst(ADDRESS, 1),
            Operand::Imm(0),
            Operand::swizzle(INPUT, [0; 4]),
        ],
    ));
    let first = Operand::dst(operand_reg(0), 1);
    if k.operands == 1 {
        body.extend(tokens::instruction(opcode::IADD, 0, &[first, base, thread]));
        return;
    }
    let index = base;
    body.extend(tokens::instruction(
        opcode::IADD,
        0,
        &[Operand::dst(ADDRESS, 1), base, thread],
    ));
    body.extend(tokens::instruction(
        opcode::USHR,
        0,
        &[first, index, Operand::Imm(16)],
    ));
    body.extend(tokens::instruction(
        opcode::AND,
        0,
        &[Operand::dst(operand_reg(1), 1), index, Operand::Imm(0xffff)],
    ));
}

/// Operand `o` as the instruction reads it.
fn source(k: &Kernel, o: usize) -> Operand {
    let reg = operand_reg(o);
    if k.input == Lane::F64 {
        // A double is the pair .xy; the spec lists .xyxy among the valid swizzles.
        Operand::swizzle(reg, [0, 1, 0, 1])
    } else if k.width > 1 {
        Operand::swizzle(reg, run(0, k.width as u8))
    } else if k.op == Op::Ftod {
        // ftod converts the first two floats post swizzle; only the first is used.
        Operand::swizzle(reg, [0; 4])
    } else {
        Operand::select(reg, 0)
    }
}

/// The instruction under test, marked `precise` on every component it writes.
fn instruction_under_test(k: &Kernel, wrong: bool) -> Vec<u32> {
    let doubles = k.family == Family::F64;
    let code = if doubles {
        double_opcode(k.op).expect("unsupported() refuses the rest")
    } else {
        float_opcode(k.op)
    };
    let writes = if k.outputs.contains(&Lane::F64) {
        mask(0, 2)
    } else {
        1
    };
    let a = || source(k, 0);
    let b = || source(k, 1);
    let mut operands = match k.op {
        // D3D has no subtract: fxc negates the second operand of an add.
        Op::Sub => vec![a(), b().negated()],
        Op::Add if wrong => vec![a(), b().negated()],
        // gt and le are lt and ge with the operands swapped.
        Op::Gt | Op::Le => vec![b(), a()],
        _ => (0..k.operands).map(|o| source(k, o)).collect(),
    };
    let precise_mask;
    match k.op {
        Op::Sincos | Op::Sin | Op::Cos => {
            // sincos writes the sine to its first destination and the cosine to its second;
            // sin and cos leave the other destination null.
            let sine = Operand::dst(RESULT, 1);
            let cosine = Operand::dst(RESULT, if k.op == Op::Cos { 1 } else { 2 });
            let null = Operand::bare(Reg::Null);
            let dests = match k.op {
                Op::Sin => [sine, null],
                Op::Cos => [null, cosine],
                _ => [sine, cosine],
            };
            precise_mask = if k.op == Op::Sincos { 3 } else { 1 };
            operands.splice(0..0, dests);
        }
        _ => {
            precise_mask = writes;
            operands.insert(0, Operand::dst(RESULT, writes));
        }
    }
    tokens::instruction(code, tokens::precise(precise_mask), &operands)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::all_kernels;

    fn kernel(name: &str, family: Family) -> Kernel {
        all_kernels()
            .into_iter()
            .find(|k| k.name == name && k.family == family)
            .unwrap()
    }

    fn program_words(blob: &[u8]) -> Vec<u32> {
        let shex = container::find(blob, b"SHEX").unwrap().unwrap();
        shex.chunks_exact(4)
            .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
            .collect()
    }

    #[test]
    fn f16_arithmetic_is_refused_with_the_reason() {
        let add16 = kernel("add", Family::F16);
        let why = unsupported(&add16).unwrap();
        assert!(why.contains("6.2"), "{why}");
        let err = build(&add16, false).unwrap_err();
        assert_eq!(err.family, "f16");
        assert!(unsupported(&kernel("f32tof16", Family::F32)).is_none());
    }

    #[test]
    fn file_names_name_kernel_family_and_form() {
        assert_eq!(
            file_name(&kernel("add", Family::F32), false),
            "add.f32.dxbc"
        );
        assert_eq!(
            file_name(&kernel("sqrt", Family::F32), true),
            "sqrt.f32.indexed.dxbc"
        );
        assert_eq!(
            file_name(&kernel("dadd", Family::F64), false),
            "dadd.f64.dxbc"
        );
    }

    #[test]
    fn sub_is_an_add_with_a_negated_operand() {
        let words = program_words(&build(&kernel("sub", Family::F32), false).unwrap());
        // add [precise(x)] r4.x, r1.x, -r2.x
        let add = [
            0x0808_0000,
            0x0010_0012,
            4,
            0x0010_000a,
            1,
            0x8010_000a,
            0x41,
            2,
        ];
        assert!(words.windows(8).any(|w| w == add), "{words:08x?}");
    }

    #[test]
    fn doubles_declare_their_flags_and_sfi0() {
        let ddiv = build(&kernel("ddiv", Family::F64), false).unwrap();
        let words = program_words(&ddiv);
        assert_eq!(words[2], 0x0100_0000 | 0x6a | (0x42 << 11));
        let sfi0 = container::find(&ddiv, b"SFI0").unwrap().unwrap();
        assert_eq!(sfi0, 0x21u64.to_le_bytes());
        let dadd = build(&kernel("dadd", Family::F64), false).unwrap();
        assert_eq!(program_words(&dadd)[2], 0x0100_0000 | 0x6a | (0x2 << 11));
        let add = build(&kernel("add", Family::F32), false).unwrap();
        assert_eq!(container::find(&add, b"SFI0").unwrap(), None);
        // No dcl_globalFlags at all: the first declaration is dcl_uav_raw.
        assert_eq!(program_words(&add)[2] & 0x7ff, opcode::DCL_UAV_RAW);
    }

    #[test]
    fn every_instruction_under_test_is_precise() {
        for k in all_kernels().iter().filter(|k| unsupported(k).is_none()) {
            let words = program_words(&build(k, false).unwrap());
            let shex: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            let list = tokens::instructions(&shex).unwrap();
            let mut at = 2;
            let mut precise = 0;
            for (_, len) in &list {
                if words[at] >> 19 & 0xf != 0 {
                    precise += 1;
                }
                at += len;
            }
            assert_eq!(precise, 1, "{}: one precise instruction", k.name);
        }
    }
}
