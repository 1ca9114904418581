//! The paths a shader takes to the device: SPIR-V written here (`direct`), or DXBC written
//! here ([`super::dxbc`]) and turned into SPIR-V by a real translator, the layer Direct3D
//! programs run through on Vulkan: vkd3d-shader (Wine's Direct3D 12, loaded at run time,
//! [`vkd3d`]) and dxbc-spirv (the DXBC front end of dxil-spirv, as vkd3d-proton runs it,
//! [`dxbc_spirv`], built in with the `dxbc-spirv` cargo feature).
//!
//! A translator only turns a DXBC blob into SPIR-V; the device runs what it returns
//! unchanged, with the bindings the module declares (`vulkan::Layout`).

use crate::judge::{TranslatorInfo, Via};

pub mod dxbc_spirv;
pub mod vkd3d;

/// The two raw UAVs of every probe shader (`u0` operands, `u1` results) as a translator is
/// told to bind them: descriptor set 0, bindings 0 and 1, the same numbers as the direct
/// path's storage buffers.
pub const UAV_BINDINGS: [(u32, u32); 2] = [(0, 0), (1, 1)];

/// A translator: DXBC in, SPIR-V out.
pub trait Translator {
    /// What the report says of it.
    fn info(&self) -> &TranslatorInfo;
    /// Sets the options that depend on the device (its float controls), once it is open.
    fn configure(&mut self, _controls: &crate::judge::FloatControls) {}
    /// The SPIR-V words of `dxbc`, or the translator's own messages when it refuses.
    fn translate(&self, dxbc: &[u8]) -> Result<Vec<u32>, String>;
}

/// Opens the translator of a path: vkd3d-shader from `library` (the system's
/// `libvkd3d-shader.so.1` when `None`), dxbc-spirv from the build.
pub fn open(via: Via, library: Option<&std::path::Path>) -> Result<Box<dyn Translator>, String> {
    match via {
        Via::Direct => Err("the direct path has no translator".into()),
        Via::Vkd3dShader => Ok(Box::new(vkd3d::Vkd3dShader::open(library)?)),
        Via::DxbcSpirv => dxbc_spirv::open(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn via_lists_parse_in_report_order_once_each() {
        let l = |s: &[&str]| Via::parse_list(&s.iter().map(|x| x.to_string()).collect::<Vec<_>>());
        assert_eq!(l(&[]).unwrap(), vec![Via::Direct]);
        assert_eq!(
            l(&["dxbc-spirv,direct", "VKD3D-shader", "direct"]).unwrap(),
            vec![Via::Direct, Via::Vkd3dShader, Via::DxbcSpirv]
        );
        assert!(l(&["dxvk"]).unwrap_err().contains("unknown path 'dxvk'"));
    }
}
