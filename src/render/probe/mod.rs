//! Renderers of `probe`: the device list and the conformance report, one file per style,
//! over the probe core's result structs.

use std::io::{self, Write};

use super::{Palette, Style};
use crate::probe::{DeviceInfo, ProbeReport};

mod csv;
mod human;
mod json;
mod plain;

/// Writes probe results in one style.
pub trait ProbeRenderer {
    /// `--list-devices`.
    fn devices(&mut self, out: &mut dyn Write, devices: &[DeviceInfo]) -> io::Result<()>;
    /// The device, one entry per instruction, and the totals.
    fn report(&mut self, out: &mut dyn Write, report: &ProbeReport) -> io::Result<()>;
}

/// The renderer for a style; `color` matters to the human style only.
pub fn probe_renderer(style: Style, color: bool) -> Box<dyn ProbeRenderer> {
    match style {
        Style::Human => Box::new(human::Human::new(Palette::new(color))),
        Style::Plain => Box::new(plain::Plain),
        Style::Json => Box::new(json::Json),
        Style::Csv => Box::new(csv::Csv),
    }
}

#[cfg(test)]
pub(crate) mod sample {
    use crate::d3d::{Op, OpCommand, RuleSet};
    use crate::format::F32;
    use crate::judge::{ViolationClass, ViolationKind};
    use crate::probe::judge::{ClassCount, OpReport};
    use crate::probe::{DeviceInfo, Family, FloatControls, ProbeReport, Source};

    /// A small report with one clean instruction, one with a violation, one skipped.
    pub fn report() -> ProbeReport {
        // Whatever the instruction, this class reads "f32 denormal operand not flushed".
        let denorm = ViolationClass::new(
            ViolationKind::DenormOperand,
            OpCommand::new(Op::Add, F32, RuleSet::D3D11),
        );
        let op = |name: &'static str, violate: u64| OpReport {
            name,
            format: "f32".into(),
            family: Family::F32,
            via: crate::probe::translate::Via::Direct,
            lines: 10,
            conform: 10 - violate,
            violate,
            max_ulps: 1,
            max_distance: if violate > 0 { 5 } else { 1 },
            violations: if violate > 0 {
                vec![crate::judge::Violation {
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
        ProbeReport {
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
}
