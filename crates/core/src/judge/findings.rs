//! What a judged run found, whoever ran it: a device through `probe` (directly or through a
//! translator), or a harness whose buffers `op --operands` and Python's `check` judge. One
//! [`OpFindings`] per instruction, in a [`Findings`] that says where the results came from
//! ([`Source`]). Plain data: the renderers of every output style and the HTML page read
//! these, and nothing here knows how they are shown.

use std::fmt;

use super::class::{ClassCount, ViolationClass, ViolationKind};
use super::map::ErrorMap;
use super::verdict::{Histogram, Verdict, Violation};
use crate::d3d::{Op, OpCommand, RuleSet};
use crate::format::F32;

/// Which device capability an instruction needs, and which log file its lines go to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// 32-bit arithmetic and the conversions that involve only f32, f16 patterns and integers.
    F32,
    /// Needs `shaderFloat16` (16-bit arithmetic, `op --fmt f16`).
    F16,
    /// Needs `shaderFloat64` (the double instructions, `dtof`, `ftod`).
    F64,
}

impl Family {
    /// The family's name in reports (`f32`, `f16`, `f64`).
    pub fn name(self) -> &'static str {
        match self {
            Family::F32 => "f32",
            Family::F16 => "f16",
            Family::F64 => "f64",
        }
    }
}

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

    /// Parses a comma list (`direct,vkd3d-shader`), each path once, in report order.
    pub fn parse_list(list: &[String]) -> Result<Vec<Via>, String> {
        let mut paths = Vec::new();
        for item in list.iter().flat_map(|s| s.split(',')) {
            if item.trim().is_empty() {
                continue;
            }
            let v: Via = item.parse()?;
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

/// One path's name, in any case, spaces around it ignored.
impl std::str::FromStr for Via {
    type Err = String;

    fn from_str(s: &str) -> Result<Via, String> {
        let t = s.trim().to_ascii_lowercase();
        Via::ALL.into_iter().find(|v| v.name() == t).ok_or_else(|| {
            format!("unknown path '{s}' (expected direct, vkd3d-shader or dxbc-spirv)")
        })
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
    pub translators: Vec<TranslatorInfo>,
}

/// The verdict on one instruction.
#[derive(Clone, Debug, PartialEq)]
pub struct OpFindings {
    /// The name `op` reads.
    pub name: &'static str,
    /// `f32`, `f16`, `f64`, or `a->b` for a conversion.
    pub format: String,
    /// The family, for the device feature it needs.
    pub family: Family,
    /// The path its shader took to the device (`direct` for buffers judged by `op`).
    pub via: Via,
    /// Lines run.
    pub lines: u64,
    /// Lines whose result conforms.
    pub conform: u64,
    /// Lines whose result violates the rules.
    pub violate: u64,
    /// The largest distance, in ULPs of the result format, of a conforming result from the
    /// correctly rounded one.
    pub max_ulps: u64,
    /// The largest distance of any result from the correctly rounded one, violations
    /// included (a NaN against a number has none).
    pub max_distance: u64,
    /// The first violating lines by index with their classes, when a listing was asked
    /// for (`--list`); the count in [`OpFindings::violate`] is always whole.
    pub violations: Vec<Violation>,
    /// Most frequent first.
    pub classes: Vec<ClassCount>,
    /// Why the instruction did not run (a missing device feature), if it did not.
    pub skipped: Option<String>,
    /// Every line as `OP ARG... = RESULT`, when asked for.
    pub log: Vec<String>,
    /// What an exhaustive sweep adds (`probe --exhaustive`).
    pub exhaustive: Option<Sweep>,
    /// Where the error lies in the input range, with the allowed bound at each cell, when
    /// a report asked for it (`--report`).
    pub map: Option<ErrorMap>,
}

/// What an exhaustive sweep of an instruction adds to its report: where its error lies.
#[derive(Clone, Debug, PartialEq)]
pub struct Sweep {
    /// Every line's distance from the correctly rounded result.
    pub histogram: Histogram,
    /// Every line of the sweep ran (false when it was interrupted).
    pub complete: bool,
    /// Seconds the device took to compute the chunks and hand back their results.
    pub device_seconds: f64,
    /// Seconds the judge was busy (alongside the device, on the other cores).
    pub judge_seconds: f64,
}

impl OpFindings {
    /// The findings on an instruction whose lines the judge saw, its violations those the
    /// verdict kept (`exhaustive` and `log` empty; the caller adds them).
    pub fn judged(name: &'static str, format: String, family: Family, v: &Verdict) -> OpFindings {
        OpFindings {
            name,
            format,
            family,
            via: Via::Direct,
            lines: v.lines,
            conform: v.conform,
            violate: v.violate,
            max_ulps: v.max_ulps,
            max_distance: v.max_distance,
            violations: v.violations.clone(),
            classes: v.classes_by_count(),
            skipped: None,
            log: Vec::new(),
            exhaustive: None,
            map: v.map.clone(),
        }
    }

    /// The findings on an instruction that did not run, and why (a missing device
    /// feature, a translator that refused it).
    pub fn skipped(
        name: &'static str,
        format: String,
        family: Family,
        via: Via,
        reason: String,
    ) -> OpFindings {
        OpFindings {
            name,
            format,
            family,
            via,
            lines: 0,
            conform: 0,
            violate: 0,
            max_ulps: 0,
            max_distance: 0,
            violations: Vec::new(),
            classes: Vec::new(),
            skipped: Some(reason),
            log: Vec::new(),
            exhaustive: None,
            map: None,
        }
    }
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
pub struct Findings {
    /// The device probed, or the buffers judged.
    pub source: Source,
    /// The rule set results were judged by.
    pub rules: RuleSet,
    /// One report per instruction.
    pub ops: Vec<OpFindings>,
    /// Wall-clock time of the run.
    pub seconds: f64,
    /// The run was interrupted: the report holds what was judged before.
    pub partial: bool,
}

impl Findings {
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

/// A small run's findings, for the tests of what renders and compares them: one clean
/// instruction, one with a violation, one skipped.
#[doc(hidden)]
pub fn sample() -> Findings {
    // Whatever the instruction, this class reads "f32 denormal operand not flushed".
    let denorm = ViolationClass::new(
        ViolationKind::DenormOperand,
        OpCommand::new(Op::Add, F32, RuleSet::D3D11),
    );
    let op = |name: &'static str, violate: u64| OpFindings {
        name,
        format: "f32".into(),
        family: Family::F32,
        via: Via::Direct,
        lines: 10,
        conform: 10 - violate,
        violate,
        max_ulps: 1,
        max_distance: if violate > 0 { 5 } else { 1 },
        violations: if violate > 0 {
            vec![Violation {
                index: 4,
                class: Some(denorm),
            }]
        } else {
            Vec::new()
        },
        classes: if violate > 0 {
            vec![ClassCount {
                class: denorm,
                count: violate,
                example: "d3dfloat op add 0x00000001 0x00000001 --check 0x00000002".into(),
                first: 0,
                rule: "§3.1.3.2: f32 denormal operands are flushed to zero".into(),
            }]
        } else {
            Vec::new()
        },
        skipped: None,
        log: Vec::new(),
        exhaustive: None,
        map: None,
    };
    let mut skipped = op("dadd", 0);
    skipped.format = "f64".into();
    skipped.lines = 0;
    skipped.conform = 0;
    skipped.skipped = Some("device has no shaderFloat64".into());
    Findings {
        source: Source::Device(DeviceInfo {
            index: 0,
            name: "test device".into(),
            driver: "drv".into(),
            driver_version: "1.0".into(),
            api_version: "1.3.0".into(),
            device_type: "cpu".into(),
            float16: false,
            float64: false,
            float_controls: FloatControls {
                denorm_flush_f32: true,
                independence: "all".into(),
                ..FloatControls::default()
            },
            translators: Vec::new(),
        }),
        rules: RuleSet::D3D11,
        ops: vec![op("mul", 0), op("add", 3), skipped],
        seconds: 0.5,
        partial: false,
    }
}
