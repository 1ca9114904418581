//! The descriptors a compute shader declares, read from its SPIR-V, so that a module a
//! translator wrote runs unchanged: the device builds its descriptor set layout from this
//! instead of assuming its own (`vulkan.rs`).
//!
//! Every probe shader has two buffers of 32-bit words, the operands at binding 0 and the
//! results at binding 1 of set 0; how each is declared is the translator's choice: a
//! storage buffer (the direct path, dxil-spirv's SSBOs), or a storage texel buffer of
//! `R32ui` (vkd3d-shader's default for UAVs).

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Decoration, Dim, Op, StorageClass, Word};

/// How a shader declares one of its buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binding {
    /// A storage buffer (`StorageBuffer` block, or `Uniform` with `BufferBlock`).
    StorageBuffer,
    /// A storage texel buffer (an image of dimension `Buffer`, sampled 2).
    StorageTexelBuffer,
    /// A uniform texel buffer (an image of dimension `Buffer`, sampled 1): read only.
    UniformTexelBuffer,
}

impl Binding {
    /// Whether the binding is a texel buffer (needs a buffer view of `R32_UINT`).
    pub fn texel(self) -> bool {
        self != Binding::StorageBuffer
    }
}

/// The operands' and the results' bindings (set 0, bindings 0 and 1); `None` where the
/// shader does not use that buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Binding 0: the operand words.
    pub input: Option<Binding>,
    /// Binding 1: the result words.
    pub output: Binding,
}

fn literal(op: &Operand) -> Option<u32> {
    match op {
        Operand::LiteralBit32(v) => Some(*v),
        _ => None,
    }
}

fn id(op: &Operand) -> Option<Word> {
    match op {
        Operand::IdRef(v) => Some(*v),
        _ => None,
    }
}

/// Reads the layout of `words`. A module that declares anything else (another set, another
/// binding, a uniform buffer, a push constant block) is refused with the reason: the probe
/// binds exactly two buffers.
pub fn reflect(words: &[u32]) -> Result<Layout, String> {
    let module = rspirv::dr::load_words(words).map_err(|e| format!("unreadable SPIR-V: {e}"))?;
    let decorated = |target: Word, what: Decoration| -> Option<u32> {
        module.annotations.iter().find_map(|a| {
            let is = a.class.opcode == Op::Decorate
                && a.operands.first().and_then(id) == Some(target)
                && a.operands.get(1) == Some(&Operand::Decoration(what));
            if is {
                Some(a.operands.get(2).and_then(literal).unwrap_or(1))
            } else {
                None
            }
        })
    };
    let def = |target: Word| -> Option<&Instruction> {
        module
            .types_global_values
            .iter()
            .find(|i| i.result_id == Some(target))
    };
    let (mut input, mut output) = (None, None);
    for var in module
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::Variable)
    {
        let Some(var_id) = var.result_id else {
            continue;
        };
        let Some(Operand::StorageClass(class)) = var.operands.first() else {
            continue;
        };
        let class = *class;
        if class == StorageClass::PushConstant {
            return Err("the shader has a push constant block; the probe binds two buffers".into());
        }
        if !matches!(
            class,
            StorageClass::StorageBuffer | StorageClass::Uniform | StorageClass::UniformConstant
        ) {
            continue;
        }
        let set = decorated(var_id, Decoration::DescriptorSet);
        let binding = decorated(var_id, Decoration::Binding);
        let (Some(set), Some(binding)) = (set, binding) else {
            return Err(format!(
                "variable %{var_id} has no descriptor set or binding"
            ));
        };
        // The pointee: a block struct (buffer) or an image of dimension Buffer.
        let pointee = var
            .result_type
            .and_then(def)
            .filter(|p| p.class.opcode == Op::TypePointer)
            .and_then(|p| p.operands.get(1).and_then(id))
            .and_then(def)
            .ok_or_else(|| format!("variable %{var_id}: type not found"))?;
        let kind = match (pointee.class.opcode, class) {
            (Op::TypeStruct, StorageClass::StorageBuffer) => Binding::StorageBuffer,
            (Op::TypeStruct, StorageClass::Uniform)
                if decorated(pointee.result_id.unwrap_or(0), Decoration::BufferBlock).is_some() =>
            {
                Binding::StorageBuffer
            }
            (Op::TypeImage, StorageClass::UniformConstant) => {
                let dim = pointee.operands.get(1);
                let sampled = pointee.operands.get(5).and_then(literal);
                match (dim, sampled) {
                    (Some(Operand::Dim(Dim::DimBuffer)), Some(2)) => Binding::StorageTexelBuffer,
                    (Some(Operand::Dim(Dim::DimBuffer)), Some(1)) => Binding::UniformTexelBuffer,
                    _ => return Err(format!("binding {set}.{binding} is an image, not a buffer")),
                }
            }
            _ => {
                return Err(format!(
                    "binding {set}.{binding} is neither a storage buffer nor a texel buffer"
                ));
            }
        };
        let slot = match (set, binding) {
            (0, 0) => &mut input,
            (0, 1) => &mut output,
            _ => {
                return Err(format!(
                    "the shader binds set {set} binding {binding}; the probe binds set 0, \
                     bindings 0 and 1"
                ));
            }
        };
        if slot.replace(kind).is_some() {
            return Err(format!("binding {set}.{binding} is declared twice"));
        }
    }
    let output = output.ok_or("the shader declares no result buffer (set 0, binding 1)")?;
    if output == Binding::UniformTexelBuffer {
        return Err("the result buffer is read only (a uniform texel buffer)".into());
    }
    Ok(Layout { input, output })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::all_kernels;
    use crate::judge::FloatControls;
    use crate::shader;

    #[test]
    fn the_direct_shaders_bind_two_storage_buffers() {
        for k in all_kernels() {
            let words = shader::build(&k, &FloatControls::default(), false);
            assert_eq!(
                reflect(&words),
                Ok(Layout {
                    input: Some(Binding::StorageBuffer),
                    output: Binding::StorageBuffer
                }),
                "{}",
                k.name
            );
        }
    }

    #[test]
    fn a_module_without_buffers_is_refused() {
        let mut b = rspirv::dr::Builder::new();
        b.capability(rspirv::spirv::Capability::Shader);
        b.memory_model(
            rspirv::spirv::AddressingModel::Logical,
            rspirv::spirv::MemoryModel::GLSL450,
        );
        use rspirv::binary::Assemble;
        let words = b.module().assemble();
        assert!(reflect(&words).unwrap_err().contains("no result buffer"));
        assert!(reflect(&[1, 2, 3]).unwrap_err().contains("unreadable"));
    }
}
