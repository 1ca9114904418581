//! `probe`: runs the D3D shader instructions on a device and judges every result with the
//! op engine.
//!
//! A [`Device`] runs one [`Kernel`] over a buffer of operands and hands back the raw result
//! words; [`run`] generates the inputs, asks the device, and judges each line through
//! [`crate::d3d::evaluate`]. The Vulkan device lives in [`vulkan`], an in-process IEEE
//! device for tests in [`fake`]; [`dxbc`] writes the same kernels as DXBC for a real
//! translator. Pure apart from the device: no printing.

pub mod catalog;
pub mod dxbc;
pub mod fake;
pub mod inputs;
pub mod judge;
pub mod layout;
pub mod paths;
pub mod shader;
pub mod sweep;
pub mod translate;
pub mod vulkan;

pub use catalog::{Family, Kernel, Lane};
pub use judge::{ClassCount, OpReport};

use crate::d3d::RuleSet;

/// Why a probe could not run.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// No loader, no device, or the device asked for does not exist (exit 2).
    #[error("{0}")]
    NoDevice(String),
    /// A Vulkan call failed while running an instruction.
    #[error("{0}")]
    Device(String),
    /// A translator refused an instruction's DXBC, or wrote SPIR-V the probe cannot bind:
    /// that instruction is reported skipped through that path, with the translator's words.
    #[error("{0}")]
    Translator(String),
}

/// The float controls D3D asks of a device, each as the device reports it; a control the
/// device supports is requested in every shader that works in that width.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FloatControls {
    /// §3.1.3.2: 32-bit arithmetic flushes denorms (`DenormFlushToZero 32`).
    pub denorm_flush_f32: bool,
    /// §3.1.5: float16 keeps denorms (`DenormPreserve 16`).
    pub denorm_preserve_f16: bool,
    /// §3.1.4: double keeps denorms (`DenormPreserve 64`).
    pub denorm_preserve_f64: bool,
    /// `SignedZeroInfNanPreserve` for 16, 32 and 64 bits: no fast-math on zeros, inf, NaN.
    pub signed_zero_inf_nan_f16: bool,
    /// `SignedZeroInfNanPreserve 32`.
    pub signed_zero_inf_nan_f32: bool,
    /// `SignedZeroInfNanPreserve 64`.
    pub signed_zero_inf_nan_f64: bool,
    /// `RoundingModeRTZ 16`: the float-to-half conversion of f32tof16 rounds toward zero.
    pub rounding_rtz_f16: bool,
    /// How far the denorm modes of different widths may differ (`all`, `32-bit-only`,
    /// `none`); with `none`, a shader mixing widths gets only its 32-bit modes.
    pub independence: String,
}

impl FloatControls {
    /// (name, supported) in report order.
    pub fn entries(&self) -> Vec<(&'static str, bool)> {
        vec![
            ("denorm_flush_f32", self.denorm_flush_f32),
            ("denorm_preserve_f16", self.denorm_preserve_f16),
            ("denorm_preserve_f64", self.denorm_preserve_f64),
            ("signed_zero_inf_nan_f16", self.signed_zero_inf_nan_f16),
            ("signed_zero_inf_nan_f32", self.signed_zero_inf_nan_f32),
            ("signed_zero_inf_nan_f64", self.signed_zero_inf_nan_f64),
            ("rounding_rtz_f16", self.rounding_rtz_f16),
        ]
    }
}

/// What is known of a device before anything runs on it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeviceInfo {
    /// The device's index in `--list-devices`.
    pub index: usize,
    /// The device's name.
    pub name: String,
    /// The driver's name and its own version text (`llvmpipe`, `Mesa 22.3.6 (LLVM 15.0.6)`).
    pub driver: String,
    /// The driver's own version text.
    pub driver_version: String,
    /// The Vulkan API version the device supports.
    pub api_version: String,
    /// `cpu`, `integrated-gpu`, `discrete-gpu`, `virtual-gpu` or `other`.
    pub device_type: String,
    /// Whether the device has `shaderFloat16`.
    pub float16: bool,
    /// Whether the device has `shaderFloat64`.
    pub float64: bool,
    /// Every float control D3D wants, as supported; all supported ones are requested.
    pub float_controls: FloatControls,
    /// The translators the device runs DXBC through (`--via`), each with its version and
    /// the options set on it; empty for the direct path alone.
    pub translators: Vec<translate::TranslatorInfo>,
}

/// Runs kernels. `run` gets `lines` lines of operands (the kernel's input words per line)
/// and returns `lines` lines of result words.
pub trait Device {
    /// What is known of the device.
    fn info(&self) -> &DeviceInfo;
    /// Why this device cannot run the kernel, if it cannot (a missing feature).
    fn unsupported(&self, k: &Kernel) -> Option<String> {
        let info = self.info();
        if k.via.translated()
            && let Some(why) = dxbc::unsupported(k)
        {
            return Some(format!("not through {}: {why}", k.via));
        }
        match k.family {
            Family::F16 if !info.float16 => Some("device has no shaderFloat16".into()),
            Family::F64 if !info.float64 => Some("device has no shaderFloat64".into()),
            _ => None,
        }
    }
    /// Runs `lines` lines of the kernel and returns their result words.
    fn run(&mut self, k: &Kernel, words: &[u32], lines: usize) -> Result<Vec<u32>, ProbeError>;
    /// Runs lines `base .. base + lines` of the kernel's exhaustive sweep (operands from
    /// [`Kernel::sweep_words`]) and returns their result words. This default makes the
    /// operands here and calls [`Device::run`]; the Vulkan device makes them in the shader.
    fn run_indexed(&mut self, k: &Kernel, base: u64, lines: usize) -> Result<Vec<u32>, ProbeError> {
        let words: Vec<u32> = (0..lines as u64)
            .flat_map(|i| k.sweep_words(base + i).into_iter().take(k.operands))
            .collect();
        self.run(k, &words, lines)
    }
    /// [`Device::run_indexed`] into `out` (replacing what it held): a sweep hands back
    /// the vector of a chunk it has judged, so that no chunk needs a new one.
    fn run_indexed_into(
        &mut self,
        k: &Kernel,
        base: u64,
        lines: usize,
        out: &mut Vec<u32>,
    ) -> Result<(), ProbeError> {
        *out = self.run_indexed(k, base, lines)?;
        Ok(())
    }
}

/// What a probe was asked.
#[derive(Clone, Debug)]
pub struct ProbeRequest {
    /// The instructions to run.
    pub kernels: Vec<Kernel>,
    /// At least this many lines per instruction.
    pub count: usize,
    /// The rule set results are judged by.
    pub rules: RuleSet,
    /// The seed of the random inputs.
    pub seed: u64,
    /// Keep every `OP ARG... = RESULT` line for `--emit-log`.
    pub keep_log: bool,
    /// Count where the error lies in the input range (for `--report`).
    pub map: bool,
}

/// Where the results came from.
#[derive(Clone, Debug)]
pub enum Source {
    /// A device the probe ran the instructions on.
    Device(DeviceInfo),
    /// Buffers a harness wrote (`op --operands ... --results ...`): the files as named
    /// (not quoted or escaped: each renderer shows them its way).
    Buffers {
        /// One file per source operand.
        operands: Vec<String>,
        /// The results file.
        results: String,
    },
}

/// The whole run: where the results came from, then one report per instruction.
#[derive(Clone, Debug)]
pub struct ProbeReport {
    /// The device probed, or the buffers judged.
    pub source: Source,
    /// The rule set results were judged by.
    pub rules: RuleSet,
    /// One report per instruction.
    pub ops: Vec<OpReport>,
    /// Wall-clock time of the run.
    pub seconds: f64,
    /// The run was interrupted: the report holds what was judged before.
    pub partial: bool,
}

impl ProbeReport {
    /// Lines run over every instruction.
    pub fn lines(&self) -> u64 {
        self.ops.iter().map(|o| o.lines).sum()
    }

    /// Violating lines over every instruction.
    pub fn violate(&self) -> u64 {
        self.ops.iter().map(|o| o.violate).sum()
    }

    /// Instructions that ran (not skipped).
    pub fn ops_run(&self) -> usize {
        self.ops.iter().filter(|o| o.skipped.is_none()).count()
    }
}

/// Packs operand patterns into the device's 32-bit words (a double as two words, low first).
pub fn pack(lane: Lane, components: &[u64]) -> Vec<u32> {
    let mut words = Vec::with_capacity(components.len() * lane.words());
    for &c in components {
        words.push(c as u32);
        if lane == Lane::F64 {
            words.push((c >> 32) as u32);
        }
    }
    words
}

/// Runs every requested kernel on `device` and judges the results.
pub fn run(device: &mut dyn Device, req: &ProbeRequest) -> Result<ProbeReport, ProbeError> {
    let start = std::time::Instant::now();
    let mut ops = Vec::with_capacity(req.kernels.len());
    for k in &req.kernels {
        if let Some(reason) = device.unsupported(k) {
            ops.push(OpReport::skipped(k, reason));
            continue;
        }
        let operands = inputs::generate(k, req.count, req.seed);
        let lines = operands.len() / k.input_components();
        let words = pack(k.input, &operands);
        let results = match device.run(k, &words, lines) {
            // A translator that cannot take the instruction is a finding about that path,
            // not the end of the run.
            Err(ProbeError::Translator(why)) => {
                ops.push(OpReport::skipped(k, why));
                continue;
            }
            r => r?,
        };
        if results.len() != lines * k.output_words() {
            return Err(ProbeError::Device(format!(
                "{}: the device returned {} words for {lines} lines",
                k.name,
                results.len()
            )));
        }
        ops.push(judge::judge(
            k,
            req.rules,
            &operands,
            &results,
            req.keep_log,
            req.map,
        )?);
    }
    Ok(ProbeReport {
        source: Source::Device(device.info().clone()),
        rules: req.rules,
        ops,
        seconds: start.elapsed().as_secs_f64(),
        partial: false,
    })
}
