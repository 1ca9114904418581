//! dxbc-spirv, the DXBC front end that vkd3d-proton (and DXVK) use today, as vkd3d-proton
//! runs it: inside dxil-spirv, which parses the DXBC with dxbc-spirv and writes SPIR-V. It
//! is compiled into d3dfloat (the `dxil-spirv` crate vendors both and builds them with
//! cmake) behind the `dxbc-spirv` cargo feature; without it `--via dxbc-spirv` says how to
//! get it.

use super::Translator;
#[cfg(feature = "dxbc-spirv")]
use super::UAV_BINDINGS;
use crate::judge::FloatControls;
#[cfg(feature = "dxbc-spirv")]
use crate::judge::TranslatorInfo;

/// The crate dxbc-spirv comes from, as the report names it.
#[cfg(feature = "dxbc-spirv")]
const CRATE: &str = "dxil-spirv crate 0.1.0+dxil-spirv.2.72.1 (vendored dxil-spirv and dxbc-spirv)";

/// Opens the built-in dxbc-spirv.
pub fn open() -> Result<Box<dyn Translator>, String> {
    #[cfg(feature = "dxbc-spirv")]
    {
        Ok(Box::new(DxbcSpirv::new()))
    }
    #[cfg(not(feature = "dxbc-spirv"))]
    {
        Err(
            "--via dxbc-spirv: this d3dfloat was built without dxbc-spirv; build it with \
             `--features dxbc-spirv` (needs cmake and libclang-dev: \
             scripts/install-translators.sh installs them)"
                .into(),
        )
    }
}

/// The float options the probe sets on dxil-spirv for a device: denorm preservation where
/// the device can preserve (D3D keeps f64 denorms, §3.1.4), `precise` honoured and
/// propagated (the DXBC marks the instruction under test precise), no relaxed precision.
/// As (name, value) for the report.
pub fn float_options(controls: &FloatControls) -> Vec<(String, String)> {
    vec![
        (
            "denorm_preserve_support".into(),
            format!(
                "f16 {}, f64 {}",
                controls.denorm_preserve_f16, controls.denorm_preserve_f64
            ),
        ),
        (
            "precise_control".into(),
            "force_precise false, propagate_precise true".into(),
        ),
        ("arithmetic_relaxed_precision".into(), "false".into()),
        (
            "uav_descriptor".into(),
            "identity (set 0, bindings 0 and 1)".into(),
        ),
    ]
}

#[cfg(feature = "dxbc-spirv")]
struct DxbcSpirv {
    info: TranslatorInfo,
    controls: FloatControls,
}

#[cfg(feature = "dxbc-spirv")]
impl DxbcSpirv {
    fn new() -> DxbcSpirv {
        let (major, minor, patch) = dxil_spirv::version();
        let controls = FloatControls::default();
        DxbcSpirv {
            info: TranslatorInfo {
                via: super::Via::DxbcSpirv.name().into(),
                version: format!("dxil-spirv API {major}.{minor}.{patch} (dxbc-spirv front end)"),
                source: CRATE.into(),
                options: float_options(&controls),
            },
            controls,
        }
    }
}

#[cfg(feature = "dxbc-spirv")]
impl Translator for DxbcSpirv {
    fn info(&self) -> &TranslatorInfo {
        &self.info
    }

    fn configure(&mut self, controls: &FloatControls) {
        self.controls = controls.clone();
        self.info.options = float_options(controls);
    }

    fn translate(&self, dxbc: &[u8]) -> Result<Vec<u32>, String> {
        use dxil_spirv::binding::{
            Bindless, UavVulkanBinding, VulkanBinding, VulkanDescriptorType,
        };
        use dxil_spirv::options::ConverterOption;

        let fail = |e: dxil_spirv::Error| format!("dxbc-spirv refused the shader: {e}");
        let parsed = dxil_spirv::ParsedBlob::parse(dxbc).map_err(fail)?;
        let mut converter = dxil_spirv::Converter::new(&parsed).map_err(fail)?;
        for option in [
            ConverterOption::DenormPreserveSupport {
                supports_float16_denorm_preserve: self.controls.denorm_preserve_f16,
                supports_float64_denorm_preserve: self.controls.denorm_preserve_f64,
            },
            ConverterOption::PreciseControl {
                force_precise: false,
                propagate_precise: true,
            },
            ConverterOption::ArithmeticRelaxedPrecision { enabled: false },
        ] {
            converter.add_option(&option).map_err(fail)?;
        }
        converter.set_uav_remapper(|d3d| {
            let index = d3d.binding.register_index;
            let &(_, binding) = UAV_BINDINGS.iter().find(|(r, _)| *r == index)?;
            let at = VulkanBinding {
                set: 0,
                binding,
                root_constant_index: 0,
                bindless: Bindless {
                    heap_root_offset: 0,
                    use_heap: false,
                },
                descriptor_type: VulkanDescriptorType::Identity,
            };
            Some(UavVulkanBinding {
                buffer_binding: at,
                counter_binding: at,
                offset_binding: at,
            })
        });
        converter.run().map_err(fail)?;
        converter.compiled_spirv().map_err(fail)
    }
}
