//! An in-process device with exact IEEE arithmetic, for testing the report and the exit
//! codes on machines without Vulkan. `Fake::ieee()` flushes f32 denorms as D3D requires;
//! `Fake::no_flush()` does not, and so gets caught.

use super::catalog::{Kernel, Lane};
use super::{Device, ProbeError};
use crate::d3d::Op;
use crate::format::F16;
use crate::judge::{DeviceInfo, FloatControls};
use half::f16;

/// The in-process device: exact IEEE results, with or without f32 flushing.
pub struct Fake {
    info: DeviceInfo,
    flush: bool,
}

impl Fake {
    fn new(name: &str, flush: bool) -> Fake {
        Fake {
            info: DeviceInfo {
                index: 0,
                name: name.to_string(),
                driver: "d3dfloat".to_string(),
                driver_version: env!("CARGO_PKG_VERSION").to_string(),
                api_version: "1.3.0".to_string(),
                device_type: "cpu".to_string(),
                float16: true,
                float64: true,
                float_controls: FloatControls {
                    denorm_flush_f32: flush,
                    denorm_preserve_f16: true,
                    denorm_preserve_f64: true,
                    signed_zero_inf_nan_f16: true,
                    signed_zero_inf_nan_f32: true,
                    signed_zero_inf_nan_f64: true,
                    rounding_rtz_f16: true,
                    independence: "all".to_string(),
                },
                translators: Vec::new(),
            },
            flush,
        }
    }

    /// Exact IEEE arithmetic with D3D's f32 denorm flush.
    pub fn ieee() -> Fake {
        Fake::new("fake IEEE device (flushes f32 denorms)", true)
    }

    /// Exact IEEE arithmetic that keeps f32 denorms (a D3D violation).
    pub fn no_flush() -> Fake {
        Fake::new("fake IEEE device (keeps f32 denorms)", false)
    }

    fn f32_in(&self, bits: u64) -> f32 {
        let x = f32::from_bits(bits as u32);
        if self.flush && x.is_subnormal() {
            0.0f32.copysign(x)
        } else {
            x
        }
    }

    fn f32_out(&self, x: f32) -> u64 {
        let x = if self.flush && x.is_subnormal() {
            0.0f32.copysign(x)
        } else {
            x
        };
        x.to_bits() as u64
    }

    /// One line: operand patterns to result patterns.
    fn line(&self, k: &Kernel, a: &[u64]) -> Vec<u64> {
        let mask = |b: bool| if b { 0xffff_ffffu64 } else { 0 };
        match k.input {
            Lane::F64 => {
                let x: Vec<f64> = a.iter().map(|&b| f64::from_bits(b)).collect();
                let b = |v: f64| v.to_bits();
                vec![match k.op {
                    Op::Add => b(x[0] + x[1]),
                    Op::Mul => b(x[0] * x[1]),
                    Op::Div => b(x[0] / x[1]),
                    Op::Rcp => b(1.0 / x[0]),
                    Op::Mad => b(x[0].mul_add(x[1], x[2])),
                    Op::Min => b(x[0].min(x[1])),
                    Op::Max => b(x[0].max(x[1])),
                    Op::Eq => mask(x[0] == x[1]),
                    Op::Ne => mask(x[0] != x[1]),
                    Op::Lt => mask(x[0] < x[1]),
                    Op::Ge => mask(x[0] >= x[1]),
                    Op::Dtof => self.f32_out(x[0] as f32),
                    other => unreachable!("no double kernel {other:?}"),
                }]
            }
            Lane::F16 => {
                let x: Vec<f32> = a
                    .iter()
                    .map(|&b| f16::from_bits(b as u16).to_f32())
                    .collect();
                match k.op {
                    Op::F16ToF32 => vec![x[0].to_bits() as u64],
                    // Every other half kernel computes in f32 (exact enough for one rounding
                    // of +, -, *, /, sqrt into half) and rounds to nearest.
                    op => self
                        .f32_line(op, &x)
                        .into_iter()
                        .map(|r| match k.outputs[0] {
                            Lane::Mask => r,
                            _ => f16::from_f32(f32::from_bits(r as u32)).to_bits() as u64,
                        })
                        .collect(),
                }
            }
            Lane::I32 => vec![self.f32_out(a[0] as u32 as i32 as f32)],
            Lane::U32 => vec![self.f32_out(a[0] as u32 as f32)],
            _ => {
                if k.op == Op::Ftod {
                    return vec![(f32::from_bits(a[0] as u32) as f64).to_bits()];
                }
                let x: Vec<f32> = a.iter().map(|&b| self.f32_in(b)).collect();
                self.f32_line(k.op, &x)
            }
        }
    }

    fn f32_line(&self, op: Op, x: &[f32]) -> Vec<u64> {
        let mask = |b: bool| if b { 0xffff_ffffu64 } else { 0 };
        let o = |v: f32| self.f32_out(v);
        let dot = |n: usize| {
            let mut s = x[0] * x[n];
            for i in 1..n {
                s += x[i] * x[n + i];
            }
            s
        };
        let v = match op {
            Op::Add => o(x[0] + x[1]),
            Op::Sub => o(x[0] - x[1]),
            Op::Mul => o(x[0] * x[1]),
            Op::Div => o(x[0] / x[1]),
            Op::Mad => o(x[0].mul_add(x[1], x[2])),
            Op::Dp2 => o(dot(2)),
            Op::Dp3 => o(dot(3)),
            Op::Dp4 => o(dot(4)),
            Op::Min => o(x[0].min(x[1])),
            Op::Max => o(x[0].max(x[1])),
            Op::Sqrt => o(x[0].sqrt()),
            Op::Rsq => o((1.0 / (x[0] as f64).sqrt()) as f32),
            Op::Rcp => o(1.0 / x[0]),
            Op::Exp => o((x[0] as f64).exp2() as f32),
            Op::Log => o((x[0] as f64).log2() as f32),
            Op::Frc => o(x[0] - x[0].floor()),
            Op::RoundNe => o(x[0].round_ties_even()),
            Op::RoundNi => o(x[0].floor()),
            Op::RoundPi => o(x[0].ceil()),
            Op::RoundZ => o(x[0].trunc()),
            Op::Sincos => {
                return vec![o((x[0] as f64).sin() as f32), o((x[0] as f64).cos() as f32)];
            }
            Op::Eq => mask(x[0] == x[1]),
            Op::Ne => mask(x[0] != x[1]),
            Op::Lt => mask(x[0] < x[1]),
            Op::Ge => mask(x[0] >= x[1]),
            Op::Gt => mask(x[0] > x[1]),
            Op::Le => mask(x[0] <= x[1]),
            // Rust's float-to-int casts saturate and send NaN to 0, as D3D's clamps do.
            Op::Ftoi => x[0] as i32 as u32 as u64,
            Op::Ftou => x[0] as u32 as u64,
            Op::F32ToF16 => f32_to_f16_rtz(x[0]),
            other => unreachable!("no f32 kernel {other:?}"),
        };
        vec![v]
    }
}

/// Float to half rounding toward zero, overflow to the largest finite half (§22.13.2).
fn f32_to_f16_rtz(x: f32) -> u64 {
    if x.is_nan() {
        return F16.quiet_nan();
    }
    let h = f16::from_f32(x);
    let bits = h.to_bits();
    if h.is_infinite() && x.is_finite() {
        return bits as u64 & F16.sign_bit() | F16.max_finite();
    }
    // Nearest rounded away from zero: step back one pattern toward zero.
    if h.to_f32().abs() > x.abs() {
        (bits - 1) as u64
    } else {
        bits as u64
    }
}

impl Device for Fake {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn run(&mut self, k: &Kernel, words: &[u32], lines: usize) -> Result<Vec<u32>, ProbeError> {
        let per_line = k.input_words();
        let mut out = Vec::with_capacity(lines * k.output_words());
        for i in 0..lines {
            let w = &words[i * per_line..(i + 1) * per_line];
            let operands: Vec<u64> = match k.input {
                Lane::F64 => w
                    .chunks(2)
                    .map(|p| p[0] as u64 | (p[1] as u64) << 32)
                    .collect(),
                _ => w.iter().map(|&x| x as u64).collect(),
            };
            let results = self.line(k, &operands);
            for (r, lane) in results.iter().zip(&k.outputs) {
                out.push(*r as u32);
                if *lane == Lane::F64 {
                    out.push((*r >> 32) as u32);
                }
            }
        }
        Ok(out)
    }
}
