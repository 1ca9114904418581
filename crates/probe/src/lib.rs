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
pub mod layout;
pub mod paths;
pub mod results;
pub mod shader;
pub mod sweep;
pub mod translate;
pub mod vulkan;

pub use catalog::{Kernel, Lane};

// The core's modules by their names, as the probe's own modules use them.
use d3dfloat_core::{d3d, format, judge, threads};

use crate::d3d::RuleSet;
use crate::judge::{DeviceInfo, Family, Findings, Source};

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
pub fn run(device: &mut dyn Device, req: &ProbeRequest) -> Result<Findings, ProbeError> {
    let start = std::time::Instant::now();
    let mut ops = Vec::with_capacity(req.kernels.len());
    for k in &req.kernels {
        if let Some(reason) = device.unsupported(k) {
            ops.push(results::skipped(k, reason));
            continue;
        }
        let operands = inputs::generate(k, req.count, req.seed);
        let lines = operands.len() / k.input_components();
        let words = pack(k.input, &operands);
        let results = match device.run(k, &words, lines) {
            // A translator that cannot take the instruction is a finding about that path,
            // not the end of the run.
            Err(ProbeError::Translator(why)) => {
                ops.push(results::skipped(k, why));
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
        ops.push(results::judge(
            k,
            req.rules,
            &operands,
            &results,
            req.keep_log,
            req.map,
        )?);
    }
    Ok(Findings {
        source: Source::Device(device.info().clone()),
        rules: req.rules,
        ops,
        seconds: start.elapsed().as_secs_f64(),
        partial: false,
    })
}
