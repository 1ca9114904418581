//! SPIR-V for one instruction, in the form a D3D-to-Vulkan translator emits it.
//!
//! Each shader reads the operands of one line from a storage buffer of 32-bit words
//! (binding 0), runs the instruction once, and writes the result words to a second buffer
//! (binding 1); invocation `i` handles line `i`, 64 invocations per workgroup. The float
//! controls D3D needs are requested as execution modes (SPV_KHR_float_controls) where the
//! device supports them.

use rspirv::binary::Assemble;
use rspirv::dr::{Builder, Operand};
use rspirv::spirv::{
    AddressingModel, BuiltIn, Capability, Decoration, ExecutionMode, ExecutionModel,
    FunctionControl, GlslStd450Op, MemoryModel, StorageClass, Word,
};

use super::catalog::{Kernel, Lane};
use crate::d3d::Op;
use crate::judge::Family;
use crate::judge::FloatControls;

/// Invocations per workgroup of the sampled shaders; the host pads every dispatch to a
/// multiple of this.
pub const WORKGROUP: usize = 64;

/// Invocations per workgroup of the exhaustive sweeps' shaders on a device that allows it:
/// 1024, the most a D3D11 compute shader may declare (`numthreads`, D3D11.3 §18.6.5) and
/// what desktop Vulkan devices allow (the Vulkan minimum is 128). Fewer, larger groups
/// took a fifth less of lavapipe's time than groups of 64; a device that allows fewer
/// sweeps in groups of [`WORKGROUP`].
pub const SWEEP_WORKGROUP: usize = 1024;

/// Lines each invocation of a direct sweep's shader runs, one after another (the line's
/// code written out that many times): lavapipe's cost per invocation (its index, its turn
/// in the group's loop) was most of its time on a cheap instruction. On a 2^28-line ftoi
/// slice its time went from 1.47 s (one line) to 1.34 (4), 1.09 (8) and 0.96 s (16).
/// Translated sweeps keep one line an invocation, as the DXBC a D3D program ships would.
pub const SWEEP_LINES_PER_INVOCATION: usize = 16;

/// Which float-control modes a kernel's shader carries on a device with `controls`.
pub fn float_modes(k: &Kernel, controls: &FloatControls) -> Vec<(ExecutionMode, u32, Capability)> {
    // The float widths the shader computes in (a mask or an integer is no float).
    let uses16 = k.family == Family::F16;
    let uses64 = k.family == Family::F64;
    let uses32 = k.family == Family::F32 || matches!(k.op, Op::Dtof | Op::Ftod);
    let mut modes = Vec::new();
    let mut add = |on: bool, mode: ExecutionMode, bits: u32, cap: Capability| {
        if on {
            modes.push((mode, bits, cap));
        }
    };
    add(
        uses32 && controls.denorm_flush_f32,
        ExecutionMode::DenormFlushToZero,
        32,
        Capability::DenormFlushToZero,
    );
    // With no independence every width must share one denorm mode: D3D's f32 flush wins
    // in a shader that mixes widths (dtof, ftod).
    let mixed_ok = controls.independence != "none" || !(uses32 && controls.denorm_flush_f32);
    add(
        uses64 && mixed_ok && controls.denorm_preserve_f64,
        ExecutionMode::DenormPreserve,
        64,
        Capability::DenormPreserve,
    );
    add(
        uses16 && controls.denorm_preserve_f16,
        ExecutionMode::DenormPreserve,
        16,
        Capability::DenormPreserve,
    );
    for (on, bits) in [
        (uses16 && controls.signed_zero_inf_nan_f16, 16),
        (uses32 && controls.signed_zero_inf_nan_f32, 32),
        (uses64 && controls.signed_zero_inf_nan_f64, 64),
    ] {
        add(
            on,
            ExecutionMode::SignedZeroInfNanPreserve,
            bits,
            Capability::SignedZeroInfNanPreserve,
        );
    }
    add(
        k.op == Op::F32ToF16 && controls.rounding_rtz_f16,
        ExecutionMode::RoundingModeRTZ,
        16,
        Capability::RoundingModeRTZ,
    );
    modes
}

/// Types and ids the body needs.
struct Ids {
    glsl: Word,
    uint: Word,
    int: Word,
    boolean: Word,
    f32: Word,
    /// The float type of the kernel's working width.
    float: Word,
    uint_ptr: Word,
    input: Word,
}

type Built = Result<Word, rspirv::dr::Error>;

/// The SPIR-V words of `k`'s shader. `wrong` builds a deliberately broken shader (the test
/// hook behind `D3DFLOAT_TEST_WRONG_SHADER`): `add` subtracts, anything else has the
/// lowest bit of its first result word flipped.
pub fn build(k: &Kernel, controls: &FloatControls, wrong: bool) -> Vec<u32> {
    build_module(k, controls, wrong, None).expect("the shader builder is used in order")
}

/// The shader of `k`'s exhaustive sweep: binding 0 holds one word, the sweep index of the
/// dispatch's first line, and invocation `i` makes its operands from index `base + i` as
/// [`Kernel::sweep_words`] does (nothing else is uploaded); results as [`build`]'s.
/// `local` invocations a workgroup ([`SWEEP_WORKGROUP`] where the device allows it).
pub fn build_indexed(k: &Kernel, controls: &FloatControls, wrong: bool, local: u32) -> Vec<u32> {
    build_module(k, controls, wrong, Some(local)).expect("the shader builder is used in order")
}

/// The module of [`build`], or with `sweep` (its workgroup size) of [`build_indexed`].
fn build_module(
    k: &Kernel,
    controls: &FloatControls,
    wrong: bool,
    sweep: Option<u32>,
) -> Result<Vec<u32>, rspirv::dr::Error> {
    let indexed = sweep.is_some();
    let mut b = Builder::new();
    b.set_version(1, 3);
    b.capability(Capability::Shader);
    let modes = float_modes(k, controls);
    let width = match k.family {
        Family::F16 => 16,
        Family::F64 => 64,
        Family::F32 => 32,
    };
    if k.family == Family::F16 {
        b.capability(Capability::Float16);
    }
    if k.family == Family::F64 {
        b.capability(Capability::Float64);
    }
    for (_, _, cap) in &modes {
        b.capability(*cap);
    }
    if !modes.is_empty() {
        b.extension("SPV_KHR_float_controls");
    }
    let glsl = b.ext_inst_import("GLSL.std.450");
    b.memory_model(AddressingModel::Logical, MemoryModel::GLSL450);

    let void = b.type_void();
    let uint = b.type_int(32, 0);
    let int = b.type_int(32, 1);
    let boolean = b.type_bool();
    let f32 = b.type_float(32, None);
    let float = if width == 32 {
        f32
    } else {
        b.type_float(width, None)
    };
    let uvec3 = b.type_vector(uint, 3);
    let words = b.type_runtime_array(uint);
    b.decorate(words, Decoration::ArrayStride, [Operand::LiteralBit32(4)]);
    let block = b.type_struct([words]);
    b.decorate(block, Decoration::Block, []);
    b.member_decorate(block, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
    let block_ptr = b.type_pointer(None, StorageClass::StorageBuffer, block);
    let uint_ptr = b.type_pointer(None, StorageClass::StorageBuffer, uint);
    let input = b.variable(block_ptr, None, StorageClass::StorageBuffer, None);
    let output = b.variable(block_ptr, None, StorageClass::StorageBuffer, None);
    for (var, binding) in [(input, 0), (output, 1)] {
        b.decorate(var, Decoration::DescriptorSet, [Operand::LiteralBit32(0)]);
        b.decorate(var, Decoration::Binding, [Operand::LiteralBit32(binding)]);
    }
    let gid_ptr = b.type_pointer(None, StorageClass::Input, uvec3);
    let gid_var = b.variable(gid_ptr, None, StorageClass::Input, None);
    b.decorate(
        gid_var,
        Decoration::BuiltIn,
        [Operand::BuiltIn(BuiltIn::GlobalInvocationId)],
    );

    let fn_type = b.type_function(void, []);
    let main = b.begin_function(void, None, FunctionControl::NONE, fn_type)?;
    b.begin_block(None)?;
    let ids = Ids {
        glsl,
        uint,
        int,
        boolean,
        f32,
        float,
        uint_ptr,
        input,
    };
    let gid = b.load(uvec3, None, gid_var, None, [])?;
    let invocation = b.composite_extract(uint, None, gid, [0])?;
    let per = if indexed {
        SWEEP_LINES_PER_INVOCATION
    } else {
        1
    };
    let per_word = indexed.then(|| b.constant_bit32(uint, per as u32));
    for j in 0..per {
        let line = if let Some(per_word) = per_word {
            let first = b.i_mul(uint, None, invocation, per_word)?;
            let jth = b.constant_bit32(uint, j as u32);
            b.i_add(uint, None, first, jth)?
        } else {
            invocation
        };
        emit_line(&mut b, &ids, k, line, indexed, wrong, output)?;
    }
    b.ret()?;
    b.end_function()?;
    b.entry_point(ExecutionModel::GLCompute, main, "main", [gid_var]);
    let local = sweep.unwrap_or(WORKGROUP as u32);
    b.execution_mode(main, ExecutionMode::LocalSize, [local, 1, 1]);
    for (mode, bits, _) in &modes {
        b.execution_mode(main, *mode, [*bits]);
    }
    Ok(b.module().assemble())
}

/// One line of the shader: line `line`'s operands (from the thread index in a sweep, else
/// loaded), the instruction under test, and its result words stored at the line's place.
fn emit_line(
    b: &mut Builder,
    ids: &Ids,
    k: &Kernel,
    line: Word,
    indexed: bool,
    wrong: bool,
    output: Word,
) -> Result<(), rspirv::dr::Error> {
    let uint = ids.uint;
    let uint_ptr = ids.uint_ptr;
    let float = ids.float;
    let in_words = b.constant_bit32(uint, k.input_words() as u32);
    let in_base = b.i_mul(uint, None, line, in_words)?;
    let out_words = b.constant_bit32(uint, k.output_words() as u32);
    let out_base = b.i_mul(uint, None, line, out_words)?;

    // Operands, component by component, then gathered into vectors for dp2/dp3/dp4.
    let mut comps = Vec::new();
    if indexed {
        let zero = b.constant_bit32(uint, 0);
        let base = load_word(b, ids, zero, 0)?;
        let index = b.i_add(uint, None, base, line)?;
        for c in 0..k.input_components() {
            let word = match (k.operands, c) {
                (2, _) => {
                    let low = b.constant_bit32(uint, 0xffff);
                    let part = if c == 0 {
                        let sixteen = b.constant_bit32(uint, 16);
                        b.shift_right_logical(uint, None, index, sixteen)?
                    } else {
                        index
                    };
                    b.bitwise_and(uint, None, part, low)?
                }
                _ => index,
            };
            comps.push(component_of_word(b, ids, k, word)?);
        }
    } else {
        for c in 0..k.input_components() {
            comps.push(load_component(b, ids, k, in_base, c)?);
        }
    }
    let operands: Vec<Word> = if k.width > 1 {
        let vec = b.type_vector(float, k.width as u32);
        comps
            .chunks(k.width)
            .map(|c| b.composite_construct(vec, None, c.iter().copied()))
            .collect::<Result<_, _>>()?
    } else {
        comps
    };

    let results = instruction(b, ids, k, &operands, wrong)?;
    let mut at = 0;
    for (i, (value, lane)) in results.iter().zip(&k.outputs).enumerate() {
        let mut words = if k.op == Op::F32ToF16 {
            // PackHalf2x16 already gives the half in the low bits of a word.
            vec![*value]
        } else {
            result_words(b, ids, *lane, *value)?
        };
        if wrong && i == 0 && k.op != Op::Add {
            let one = b.constant_bit32(uint, 1);
            words[0] = b.bitwise_xor(uint, None, words[0], one)?;
        }
        for w in words {
            let offset = b.constant_bit32(uint, at as u32);
            let index = b.i_add(uint, None, out_base, offset)?;
            let zero = b.constant_bit32(uint, 0);
            let ptr = b.access_chain(uint_ptr, None, output, [zero, index])?;
            b.store(ptr, w, None, [])?;
            at += 1;
        }
    }
    Ok(())
}

fn load_word(b: &mut Builder, ids: &Ids, base: Word, offset: usize) -> Built {
    let off = b.constant_bit32(ids.uint, offset as u32);
    let index = b.i_add(ids.uint, None, base, off)?;
    let zero = b.constant_bit32(ids.uint, 0);
    let ptr = b.access_chain(ids.uint_ptr, None, ids.input, [zero, index])?;
    b.load(ids.uint, None, ptr, None, [])
}

/// Component `c` of a line as the instruction's operand type.
fn load_component(b: &mut Builder, ids: &Ids, k: &Kernel, base: Word, c: usize) -> Built {
    let offset = c * k.input.words();
    let word = load_word(b, ids, base, offset)?;
    if k.input == Lane::F64 {
        let high = load_word(b, ids, base, offset + 1)?;
        let uvec2 = b.type_vector(ids.uint, 2);
        let pair = b.composite_construct(uvec2, None, [word, high])?;
        let f64 = b.type_float(64, None);
        return b.bitcast(f64, None, pair);
    }
    component_of_word(b, ids, k, word)
}

/// A 32-bit word as the instruction's operand type (every lane but f64's).
fn component_of_word(b: &mut Builder, ids: &Ids, k: &Kernel, word: Word) -> Built {
    match k.input {
        Lane::F32 => b.bitcast(ids.f32, None, word),
        Lane::I32 => b.bitcast(ids.int, None, word),
        Lane::U32 | Lane::Mask => Ok(word),
        // f16tof32 takes the raw word (UnpackHalf2x16 reads its low half).
        Lane::F16 if k.op == Op::F16ToF32 => Ok(word),
        Lane::F16 => {
            let h2 = b.type_vector(ids.float, 2);
            let pair = b.bitcast(h2, None, word)?;
            b.composite_extract(ids.float, None, pair, [0])
        }
        Lane::F64 => unreachable!("doubles take two words: load_component"),
    }
}

/// A result value as the 32-bit words the buffer holds.
fn result_words(
    b: &mut Builder,
    ids: &Ids,
    lane: Lane,
    value: Word,
) -> Result<Vec<Word>, rspirv::dr::Error> {
    Ok(match lane {
        Lane::F32 | Lane::I32 => vec![b.bitcast(ids.uint, None, value)?],
        Lane::U32 | Lane::Mask => vec![value],
        Lane::F16 => {
            // Half in the low 16 bits, zero above.
            let h2 = b.type_vector(ids.float, 2);
            let zero = b.constant_bit32(ids.float, 0);
            let pair = b.composite_construct(h2, None, [value, zero])?;
            vec![b.bitcast(ids.uint, None, pair)?]
        }
        Lane::F64 => {
            let uvec2 = b.type_vector(ids.uint, 2);
            let pair = b.bitcast(uvec2, None, value)?;
            vec![
                b.composite_extract(ids.uint, None, pair, [0])?,
                b.composite_extract(ids.uint, None, pair, [1])?,
            ]
        }
    })
}

fn glsl(b: &mut Builder, ids: &Ids, ty: Word, op: GlslStd450Op, args: &[Word]) -> Built {
    b.ext_inst(
        ty,
        None,
        ids.glsl,
        op as u32,
        args.iter().map(|&a| Operand::IdRef(a)),
    )
}

/// A float constant of the working width.
fn float_const(b: &mut Builder, ids: &Ids, k: &Kernel, x: f64) -> Word {
    match k.family {
        Family::F16 => b.constant_bit32(ids.float, half::f16::from_f64(x).to_bits() as u32),
        Family::F64 if k.input == Lane::F64 => b.constant_bit64(ids.float, x.to_bits()),
        _ => b.constant_bit32(ids.f32, (x as f32).to_bits()),
    }
}

/// The instruction itself, as a translator writes it; one value per result.
fn instruction(
    b: &mut Builder,
    ids: &Ids,
    k: &Kernel,
    x: &[Word],
    wrong: bool,
) -> Result<Vec<Word>, rspirv::dr::Error> {
    let t = if k.input == Lane::F64 || k.family != Family::F64 {
        ids.float
    } else {
        ids.f32
    };
    let mask = |b: &mut Builder, cond: Word| -> Built {
        let all = b.constant_bit32(ids.uint, 0xffff_ffff);
        let none = b.constant_bit32(ids.uint, 0);
        b.select(ids.uint, None, cond, all, none)
    };
    let v = match k.op {
        Op::Add if wrong => b.f_sub(t, None, x[0], x[1])?,
        Op::Add => b.f_add(t, None, x[0], x[1])?,
        // D3D has no subtract: a translator negates the operand of an add.
        Op::Sub => {
            let neg = b.f_negate(t, None, x[1])?;
            b.f_add(t, None, x[0], neg)?
        }
        Op::Mul => b.f_mul(t, None, x[0], x[1])?,
        Op::Div => b.f_div(t, None, x[0], x[1])?,
        Op::Mad => glsl(b, ids, t, GlslStd450Op::Fma, &[x[0], x[1], x[2]])?,
        Op::Dp2 | Op::Dp3 | Op::Dp4 => b.dot(t, None, x[0], x[1])?,
        // D3D min/max return the other operand when one is NaN: NMin/NMax.
        Op::Min => glsl(b, ids, t, GlslStd450Op::NMin, &[x[0], x[1]])?,
        Op::Max => glsl(b, ids, t, GlslStd450Op::NMax, &[x[0], x[1]])?,
        Op::Sqrt => glsl(b, ids, t, GlslStd450Op::Sqrt, &[x[0]])?,
        Op::Rsq => glsl(b, ids, t, GlslStd450Op::InverseSqrt, &[x[0]])?,
        Op::Rcp => {
            let one = float_const(b, ids, k, 1.0);
            b.f_div(t, None, one, x[0])?
        }
        Op::Exp => glsl(b, ids, t, GlslStd450Op::Exp2, &[x[0]])?,
        Op::Log => glsl(b, ids, t, GlslStd450Op::Log2, &[x[0]])?,
        Op::Frc => glsl(b, ids, t, GlslStd450Op::Fract, &[x[0]])?,
        Op::RoundNe => glsl(b, ids, t, GlslStd450Op::RoundEven, &[x[0]])?,
        Op::RoundNi => glsl(b, ids, t, GlslStd450Op::Floor, &[x[0]])?,
        Op::RoundPi => glsl(b, ids, t, GlslStd450Op::Ceil, &[x[0]])?,
        Op::RoundZ => glsl(b, ids, t, GlslStd450Op::Trunc, &[x[0]])?,
        Op::Sincos | Op::Sin | Op::Cos => {
            let s = glsl(b, ids, t, GlslStd450Op::Sin, &[x[0]])?;
            let c = glsl(b, ids, t, GlslStd450Op::Cos, &[x[0]])?;
            return Ok(vec![s, c]);
        }
        // Comparisons are ordered except ne, which is true for NaN (§22.6).
        Op::Eq => {
            let c = b.f_ord_equal(ids.boolean, None, x[0], x[1])?;
            mask(b, c)?
        }
        Op::Ne => {
            let c = b.f_unord_not_equal(ids.boolean, None, x[0], x[1])?;
            mask(b, c)?
        }
        Op::Lt => {
            let c = b.f_ord_less_than(ids.boolean, None, x[0], x[1])?;
            mask(b, c)?
        }
        Op::Ge => {
            let c = b.f_ord_greater_than_equal(ids.boolean, None, x[0], x[1])?;
            mask(b, c)?
        }
        Op::Gt => {
            let c = b.f_ord_greater_than(ids.boolean, None, x[0], x[1])?;
            mask(b, c)?
        }
        Op::Le => {
            let c = b.f_ord_less_than_equal(ids.boolean, None, x[0], x[1])?;
            mask(b, c)?
        }
        // §22.13.3/4: NaN gives 0 and out-of-range values clamp to the integer range.
        // SPIR-V's conversions are undefined out of range, so a translator clamps to the
        // floats inside the range first, then selects the range's top for values at or
        // above 2^31 (2^32) and 0 for NaN (which NClamp would send to the low bound).
        Op::Ftoi | Op::Ftou => {
            let signed = k.op == Op::Ftoi;
            let (lo, hi, limit, top) = if signed {
                (
                    -2147483648.0f32,
                    2147483520.0f32,
                    2147483648.0f32,
                    0x7fff_ffffu32,
                )
            } else {
                (0.0, 4294967040.0, 4294967296.0, 0xffff_ffff)
            };
            let lo = b.constant_bit32(ids.f32, lo.to_bits());
            let hi = b.constant_bit32(ids.f32, hi.to_bits());
            let clamped = glsl(b, ids, ids.f32, GlslStd450Op::NClamp, &[x[0], lo, hi])?;
            let (ty, converted) = if signed {
                (ids.int, b.convert_f_to_s(ids.int, None, clamped)?)
            } else {
                (ids.uint, b.convert_f_to_u(ids.uint, None, clamped)?)
            };
            let limit = b.constant_bit32(ids.f32, limit.to_bits());
            let above = b.f_ord_greater_than_equal(ids.boolean, None, x[0], limit)?;
            let top = b.constant_bit32(ty, top);
            let in_range = b.select(ty, None, above, top, converted)?;
            let nan = b.is_nan(ids.boolean, None, x[0])?;
            let zero = b.constant_bit32(ty, 0);
            b.select(ty, None, nan, zero, in_range)?
        }
        Op::Itof => b.convert_s_to_f(ids.f32, None, x[0])?,
        Op::Utof => b.convert_u_to_f(ids.f32, None, x[0])?,
        Op::F16ToF32 => {
            let v2 = b.type_vector(ids.f32, 2);
            let pair = glsl(b, ids, v2, GlslStd450Op::UnpackHalf2x16, &[x[0]])?;
            b.composite_extract(ids.f32, None, pair, [0])?
        }
        // The float-to-half conversion; round toward zero comes from RoundingModeRTZ 16
        // where the device grants it.
        Op::F32ToF16 => {
            let v2 = b.type_vector(ids.f32, 2);
            let zero = b.constant_bit32(ids.f32, 0);
            let pair = b.composite_construct(v2, None, [x[0], zero])?;
            glsl(b, ids, ids.uint, GlslStd450Op::PackHalf2x16, &[pair])?
        }
        Op::Dtof => b.f_convert(ids.f32, None, x[0])?,
        Op::Ftod => b.f_convert(ids.float, None, x[0])?,
    };
    Ok(vec![v])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::all_kernels;

    #[test]
    fn every_kernel_assembles_to_a_spirv_module() {
        let controls = FloatControls {
            denorm_flush_f32: true,
            denorm_preserve_f64: true,
            rounding_rtz_f16: true,
            independence: "all".into(),
            ..FloatControls::default()
        };
        for k in all_kernels() {
            let words = build(&k, &controls, false);
            assert_eq!(words[0], 0x0723_0203, "{}: SPIR-V magic", k.name);
            assert_eq!(words[1], 0x0001_0300, "{}: version 1.3", k.name);
            assert_ne!(
                words,
                build(&k, &controls, true),
                "{}: the wrong shader differs",
                k.name
            );
            if k.sweep().is_some() {
                let indexed = build_indexed(&k, &controls, false, SWEEP_WORKGROUP as u32);
                assert_eq!(indexed[0], 0x0723_0203, "{}: SPIR-V magic", k.name);
                assert_ne!(indexed, words, "{}", k.name);
            }
        }
    }

    #[test]
    fn float_modes_follow_the_kernel_width_and_the_device() {
        let all = all_kernels();
        let add = all.iter().find(|k| k.name == "add").unwrap();
        let dtof = all.iter().find(|k| k.name == "dtof").unwrap();
        let mut c = FloatControls {
            denorm_flush_f32: true,
            denorm_preserve_f64: true,
            independence: "none".into(),
            ..FloatControls::default()
        };
        assert_eq!(float_modes(add, &c).len(), 1);
        // With no independence, the f32 flush wins in a shader that mixes widths.
        assert_eq!(float_modes(dtof, &c).len(), 1);
        c.independence = "all".into();
        assert_eq!(float_modes(dtof, &c).len(), 2);
        assert!(float_modes(add, &FloatControls::default()).is_empty());
    }
}
