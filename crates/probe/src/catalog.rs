//! The instructions a probe runs: each `op` instruction with the buffer layout of its
//! operands and results.

use crate::d3d::{Domain, INSTRUCTIONS, Op};
use crate::format::{Arithmetic, F16, F32, F64, FloatFormat};
use crate::judge::{Family, Via};

/// How one component travels through the device's buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lane {
    /// A half in the low 16 bits of a 32-bit word.
    F16,
    /// A 32-bit float.
    F32,
    /// A double in two consecutive words, low word first.
    F64,
    /// A 32-bit signed integer.
    I32,
    /// A 32-bit unsigned integer.
    U32,
    /// A comparison result: `0xffffffff` or `0`.
    Mask,
}

impl Lane {
    /// 32-bit words a value of this lane takes.
    pub fn words(self) -> usize {
        match self {
            Lane::F64 => 2,
            _ => 1,
        }
    }

    fn of(domain: &Domain) -> Lane {
        match domain {
            Domain::Float(f) => match f.arithmetic {
                Arithmetic::Float16 => Lane::F16,
                Arithmetic::Double => Lane::F64,
                // Storage-only formats are no instruction's operand.
                Arithmetic::Float32 | Arithmetic::None => Lane::F32,
            },
            Domain::I32 => Lane::I32,
            Domain::U32 => Lane::U32,
            Domain::Bool => Lane::Mask,
        }
    }
}

/// One instruction as the probe runs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kernel {
    /// The name `op` reads (`dadd` for the double add).
    pub name: &'static str,
    /// The instruction.
    pub op: Op,
    /// The working format of the `op` request (`--fmt`).
    pub format: FloatFormat,
    /// Which device feature the kernel needs (f16 and f64 may be missing).
    pub family: Family,
    /// Source operands and components per operand.
    pub operands: usize,
    /// Components per operand (dp2/dp3/dp4 take vectors).
    pub width: usize,
    /// How each operand component travels in the input buffer.
    pub input: Lane,
    /// One lane per result (sincos has two).
    pub outputs: Vec<Lane>,
    /// The path its shader takes to the device: SPIR-V written here, or DXBC through a
    /// translator (`probe --via`).
    pub via: Via,
}

impl Kernel {
    fn new(name: &'static str, working: FloatFormat, family: Family) -> Kernel {
        let (op, format) = Op::parse(name, &working).expect("catalog names are op names");
        let (operands, width) = op.arity();
        let (input, outputs) = op.domains(&format);
        Kernel {
            name,
            op,
            format,
            family,
            operands,
            width,
            input: Lane::of(&input),
            outputs: outputs.iter().map(|(_, d)| Lane::of(d)).collect(),
            via: Via::Direct,
        }
    }

    /// The same instruction with its shader taking `via` to the device.
    pub fn through(&self, via: Via) -> Kernel {
        Kernel {
            via,
            ..self.clone()
        }
    }

    /// The format label of reports: the working format, or `a->b` for a conversion.
    pub fn format_label(&self) -> String {
        format_label(self.op, &self.format)
    }

    /// Components read per line.
    pub fn input_components(&self) -> usize {
        self.operands * self.width
    }

    /// 32-bit words of input per line.
    pub fn input_words(&self) -> usize {
        self.input_components() * self.input.words()
    }

    /// 32-bit words of output per line.
    pub fn output_words(&self) -> usize {
        self.outputs.iter().map(|l| l.words()).sum()
    }

    /// Lines of the exhaustive sweep (`probe --exhaustive`): every input pattern of a
    /// one-operand instruction of a 32-bit or 16-bit input (2^32 or 2^16), or every pair of
    /// float16 operands of a two-operand one (2^32); `None` where the inputs are too many
    /// (two f32 operands, three operands, vectors, doubles).
    pub fn sweep(&self) -> Option<u64> {
        match (self.operands, self.width, self.input) {
            (1, 1, Lane::F16) => Some(1 << 16),
            (1, 1, Lane::F32 | Lane::I32 | Lane::U32) => Some(1 << 32),
            (2, 1, Lane::F16) => Some(1 << 32),
            _ => None,
        }
    }

    /// The operand words of line `index` of the exhaustive sweep, one per operand: the
    /// index itself, or for two float16 operands its high and low halves. The shaders make
    /// the same words from the invocation index (`shader::build_indexed`).
    pub fn sweep_words(&self, index: u64) -> [u32; 2] {
        if self.operands == 2 {
            [(index >> 16) as u32 & 0xffff, index as u32 & 0xffff]
        } else {
            [index as u32, 0]
        }
    }
}

/// Each kernel once per path, the paths of one instruction side by side (`--via`).
pub fn through_each(kernels: &[Kernel], paths: &[Via]) -> Vec<Kernel> {
    kernels
        .iter()
        .flat_map(|k| paths.iter().map(|&via| k.through(via)))
        .collect()
}

/// The format label of reports for an instruction in a working format: the format, or
/// `a->b` for a conversion (`f32->i32`).
pub fn format_label(op: Op, format: &FloatFormat) -> String {
    let (input, outputs) = op.domains(format);
    let out = outputs[0].1;
    if input == out || matches!(out, Domain::Bool) {
        input.name().to_string()
    } else {
        format!("{}->{}", input.name(), out.name())
    }
}

/// Every kernel the probe knows, from the table of instructions: the 32-bit ones, then
/// the 16-bit ones, then those that need doubles (the double instructions, `dtof` and
/// `ftod`), each in the table's order.
pub fn all_kernels() -> Vec<Kernel> {
    let rows = || INSTRUCTIONS.iter();
    let mut v: Vec<Kernel> = rows()
        .filter(|i| i.probed.f32)
        .map(|i| Kernel::new(i.name, F32, Family::F32))
        .collect();
    v.extend(
        rows()
            .filter(|i| i.probed.f16)
            .map(|i| Kernel::new(i.name, F16, Family::F16)),
    );
    // dtof/ftod are f32-format conversions to `op`, but they need doubles on the device.
    v.extend(rows().filter(|i| i.probed.f64).map(|i| {
        let name = i.double.map_or(i.name, |d| d.name);
        Kernel::new(name, F64, Family::F64)
    }));
    v
}

/// The kernels named by `--ops` (each name selects every format's instruction of that name;
/// `f16:add` selects one format's).
pub fn select(names: &[String]) -> Result<Vec<Kernel>, String> {
    let all = all_kernels();
    if names.is_empty() {
        return Ok(all);
    }
    let mut chosen = Vec::new();
    for raw in names {
        let name = raw.trim().to_ascii_lowercase();
        let (family, bare) = match name.split_once(':') {
            Some((f, n)) => (Some(f.to_string()), n.to_string()),
            None => (None, name.clone()),
        };
        let hits: Vec<&Kernel> = all
            .iter()
            .filter(|k| k.name == bare && family.as_deref().is_none_or(|f| f == k.family.name()))
            .collect();
        if hits.is_empty() {
            let mut probed: Vec<&str> = Vec::new();
            for k in &all {
                if !probed.contains(&k.name) {
                    probed.push(k.name);
                }
            }
            return Err(format!(
                "--ops: unknown instruction '{raw}' (probed: {})",
                probed.join(" ")
            ));
        }
        for k in hits {
            if !chosen.contains(k) {
                chosen.push(k.clone());
            }
        }
    }
    // Keep the catalog's order whatever the order of the list.
    Ok(all.into_iter().filter(|k| chosen.contains(k)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_follow_the_op_domains() {
        let all = all_kernels();
        let find = |n: &str, f: Family| all.iter().find(|k| k.name == n && k.family == f).unwrap();
        let dp3 = find("dp3", Family::F32);
        assert_eq!((dp3.input_words(), dp3.output_words()), (6, 1));
        let sincos = find("sincos", Family::F32);
        assert_eq!(sincos.outputs, vec![Lane::F32, Lane::F32]);
        let dfma = find("dfma", Family::F64);
        assert_eq!((dfma.input_words(), dfma.output_words()), (6, 2));
        assert_eq!(find("ftoi", Family::F32).outputs, vec![Lane::I32]);
        assert_eq!(find("eq", Family::F16).outputs, vec![Lane::Mask]);
        assert_eq!(find("f16tof32", Family::F32).input, Lane::F16);
        assert_eq!(find("dtof", Family::F64).format_label(), "f64->f32");
    }

    #[test]
    fn ops_list_selects_by_name_and_family() {
        let add: Vec<_> = select(&["add".into()]).unwrap();
        assert_eq!(add.len(), 2);
        let f16 = select(&["f16:add".into()]).unwrap();
        assert_eq!(f16.len(), 1);
        assert_eq!(f16[0].family, Family::F16);
        assert!(select(&["fdiv".into()]).is_err());
    }
}
