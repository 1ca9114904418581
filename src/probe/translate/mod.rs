//! The paths a shader takes to the device: SPIR-V written here (`direct`), or DXBC written
//! here ([`super::dxbc`]) and turned into SPIR-V by a real translator, the layer Direct3D
//! programs run through on Vulkan: vkd3d-shader (Wine's Direct3D 12, loaded at run time,
//! [`vkd3d`]) and dxbc-spirv (the DXBC front end of dxil-spirv, as vkd3d-proton runs it,
//! [`dxbc_spirv`], built in with the `dxbc-spirv` cargo feature).
//!
//! A translator only turns a DXBC blob into SPIR-V; the device runs what it returns
//! unchanged, with the bindings the module declares (`vulkan::Layout`).

use std::fmt;

pub mod dxbc_spirv;
pub mod vkd3d;

/// The path an instruction's shader takes to the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Via {
    /// SPIR-V written by d3dfloat, as a translator would ideally write it.
    Direct,
    /// DXBC written by d3dfloat, translated by vkd3d-shader.
    Vkd3dShader,
    /// DXBC written by d3dfloat, translated by dxbc-spirv (through dxil-spirv).
    DxbcSpirv,
}

impl Via {
    /// Every path, in report order.
    pub const ALL: [Via; 3] = [Via::Direct, Via::Vkd3dShader, Via::DxbcSpirv];

    /// The name `--via` takes and reports print.
    pub fn name(self) -> &'static str {
        match self {
            Via::Direct => "direct",
            Via::Vkd3dShader => "vkd3d-shader",
            Via::DxbcSpirv => "dxbc-spirv",
        }
    }

    /// Whether the shader goes through a translator (so it is DXBC first).
    pub fn translated(self) -> bool {
        self != Via::Direct
    }

    /// Parses one `--via` name.
    pub fn parse(s: &str) -> Result<Via, String> {
        let t = s.trim().to_ascii_lowercase();
        Via::ALL.into_iter().find(|v| v.name() == t).ok_or_else(|| {
            format!("--via: unknown path '{s}' (expected direct, vkd3d-shader or dxbc-spirv)")
        })
    }

    /// Parses a comma list (`direct,vkd3d-shader`), each path once, in report order.
    pub fn parse_list(list: &[String]) -> Result<Vec<Via>, String> {
        let mut paths = Vec::new();
        for item in list.iter().flat_map(|s| s.split(',')) {
            if item.trim().is_empty() {
                continue;
            }
            let v = Via::parse(item)?;
            if !paths.contains(&v) {
                paths.push(v);
            }
        }
        if paths.is_empty() {
            paths.push(Via::Direct);
        }
        paths.sort();
        Ok(paths)
    }
}

impl fmt::Display for Via {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a report says of a translator: which one, which build, and every option the probe
/// set on it (the float behaviour it was asked for is part of what is judged).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TranslatorInfo {
    /// The path it serves (`vkd3d-shader`, `dxbc-spirv`).
    pub via: String,
    /// Its own version text (`vkd3d-shader 1.2`).
    pub version: String,
    /// Where it came from: the library loaded, or the crate it was built from.
    pub source: String,
    /// (option, value) as set, in the order set.
    pub options: Vec<(String, String)>,
}

/// The two raw UAVs of every probe shader (`u0` operands, `u1` results) as a translator is
/// told to bind them: descriptor set 0, bindings 0 and 1, the same numbers as the direct
/// path's storage buffers.
pub const UAV_BINDINGS: [(u32, u32); 2] = [(0, 0), (1, 1)];

/// A translator: DXBC in, SPIR-V out.
pub trait Translator {
    /// What the report says of it.
    fn info(&self) -> &TranslatorInfo;
    /// Sets the options that depend on the device (its float controls), once it is open.
    fn configure(&mut self, _controls: &crate::probe::FloatControls) {}
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
