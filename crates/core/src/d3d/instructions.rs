//! Every instruction, written once: the [`Op`] enum and its table, with names, operands,
//! domains, spec section and where it exists (float16, double, the probe). Name parsing, `op --help`, the hints of
//! errors and the probe's catalogue all derive from [`INSTRUCTIONS`]; a test holds the
//! lists in the README and `docs/rules.md` to it.

use super::Domain;
use crate::format::{F16, F32, F64};

/// A shader instruction (format-independent; `Add` is `add` for f32/f16 and `dadd` for f64).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// `add` (f32/f16, §22.10.1), `dadd` (f64): one rounded sum.
    Add,
    /// `sub`, `dsub`: a convenience, not a D3D instruction; `add` with the second operand negated.
    Sub,
    /// `mul` (f32/f16), `dmul` (f64): one rounded product.
    Mul,
    /// `div` (f32/f16, §22.10.2, which may run as `a * (1/b)`), `ddiv` (f64, §22.14.6, correctly
    /// rounded).
    Div,
    /// `mad` (f32/f16; alias `fma`), held to the worst serial order of its multiply and add;
    /// `dfma` (f64, §22.14.7), rounded once.
    Mad,
    /// `dp2`: the dot product of two 2-component vectors, a fused operation held to its worst
    /// serial order (f32/f16).
    Dp2,
    /// `dp3`: the dot product of two 3-component vectors, as [`Op::Dp2`].
    Dp3,
    /// `dp4`: the dot product of two 4-component vectors, as [`Op::Dp2`].
    Dp4,
    /// `min` (f32/f16, §22.10.11), `dmin` (f64): the smaller operand, returned unchanged.
    Min,
    /// `max` (f32/f16, §22.10.10), `dmax` (f64): the larger operand, returned unchanged.
    Max,
    /// `sqrt` (§22.10.21): square root within 1 ULP; no double form.
    Sqrt,
    /// `rsq` (§22.10.19): reciprocal square root, relative error up to 2^-21.
    Rsq,
    /// `rcp` (f32/f16, §22.10.18; 2^-21 relative or 1 ULP), `drcp` (f64, §22.14.5; either neighbour
    /// of the exact reciprocal).
    Rcp,
    /// `exp` (§22.10.6): 2^x, relative error up to 2^-21.
    Exp,
    /// `log` (§22.10.8): log2 x, 2^-21 absolute in [0.5, 2] and relative elsewhere.
    Log,
    /// `frc` (§22.10.7): the fractional part, `x - round_ni(x)`.
    Frc,
    /// `round_ne` (§22.10.14-17): the nearest integral value, ties to even.
    RoundNe,
    /// `round_ni`: the integral value toward negative infinity (floor).
    RoundNi,
    /// `round_pi`: the integral value toward positive infinity (ceiling).
    RoundPi,
    /// `round_z`: the integral value toward zero (truncation).
    RoundZ,
    /// `sincos` (§22.10.20): sine and cosine of one operand, two outputs (`sin`, `cos`).
    Sincos,
    /// `sin`: a convenience, `sincos` with the cosine destination NULL (one output).
    Sin,
    /// `cos`: a convenience, `sincos` with the sine destination NULL (one output).
    Cos,
    /// `eq` (f32/f16, §22.6), `deq` (f64): equality, written as a full 32-bit mask.
    Eq,
    /// `ne` (§22.6), `dne` (f64): inequality; true when an operand is NaN.
    Ne,
    /// `lt` (§22.6), `dlt` (f64): less than.
    Lt,
    /// `ge` (§22.6), `dge` (f64): greater than or equal.
    Ge,
    /// `gt`, `dgt`: a convenience, not a D3D instruction; `lt` with the operands swapped.
    Gt,
    /// `le`, `dle`: a convenience, not a D3D instruction; `ge` with the operands swapped.
    Le,
    /// `ftoi` (§22.13.3): f32 to i32, truncating toward zero and saturating.
    Ftoi,
    /// `ftou` (§22.13.4): f32 to u32, truncating toward zero and saturating (negatives give 0).
    Ftou,
    /// `itof` (§22.13.5): i32 to f32.
    Itof,
    /// `utof` (§22.13.6): u32 to f32.
    Utof,
    /// `f16tof32` (§22.13.1): float16 to float32, exact.
    F16ToF32,
    /// `f32tof16` (§22.13.2): float32 to float16.
    F32ToF16,
    /// `dtof` (§22.17.1): double to float32.
    Dtof,
    /// `ftod` (§22.17.2): float32 to double, exact.
    Ftod,
}

/// What an instruction's operands and results are, besides the working format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Operands and the result in the working format.
    Arithmetic,
    /// Operands in the working format, the result a 32-bit mask.
    Compare,
    /// A conversion between the domains it names, whatever the working format.
    Convert(Domain, Domain),
    /// One operand, two results (`sin`, `cos`) in the working format.
    SinCos,
}

/// The instruction's double-precision instruction (§22.14, §22.15).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Double {
    /// Its name (`dadd`), which implies f64.
    pub name: &'static str,
    /// Its section, or `None` for a convenience (`dsub`, `dgt`, `dle`).
    pub section: Option<&'static str>,
}

/// Which device families the probe runs an instruction on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probed {
    /// As 32-bit arithmetic or a conversion of f32, f16 patterns and integers.
    pub f32: bool,
    /// As 16-bit arithmetic (needs `shaderFloat16`).
    pub f16: bool,
    /// As its double instruction, or a conversion to or from f64 (needs `shaderFloat64`).
    pub f64: bool,
}

/// One instruction: one row of [`INSTRUCTIONS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Instruction {
    /// The instruction.
    pub op: Op,
    /// Its name for f32 and f16 (`add`).
    pub name: &'static str,
    /// Another name it answers to (`fma` for `mad`).
    pub alias: Option<&'static str>,
    /// Its double instruction, if it has one.
    pub double: Option<Double>,
    /// Source operands.
    pub operands: usize,
    /// Components per operand (dp2, dp3 and dp4 take vectors).
    pub width: usize,
    /// Its operand and result domains.
    pub shape: Shape,
    /// The spec section that defines it, or `None` for a convenience.
    pub section: Option<&'static str>,
    /// For a convenience (not a D3D instruction), what it stands for.
    pub stands_for: Option<&'static str>,
    /// Where the probe runs it.
    pub probed: Probed,
}

const fn row(op: Op, name: &'static str, section: &'static str) -> Instruction {
    Instruction {
        op,
        name,
        alias: None,
        double: None,
        operands: 1,
        width: 1,
        shape: Shape::Arithmetic,
        section: Some(section),
        stands_for: None,
        probed: Probed {
            f32: true,
            f16: true,
            f64: false,
        },
    }
}

impl Instruction {
    const fn binary(mut self) -> Self {
        self.operands = 2;
        self
    }

    const fn double(mut self, name: &'static str, section: Option<&'static str>) -> Self {
        self.double = Some(Double { name, section });
        self.probed.f64 = section.is_some();
        self
    }

    const fn convenience(mut self, stands_for: &'static str) -> Self {
        self.section = None;
        self.stands_for = Some(stands_for);
        self.probed.f16 = false;
        self
    }

    const fn compare(mut self) -> Self {
        self.shape = Shape::Compare;
        self.operands = 2;
        self
    }

    const fn vectors(mut self, width: usize) -> Self {
        self.operands = 2;
        self.width = width;
        self
    }

    const fn convert(mut self, from: Domain, to: Domain) -> Self {
        self.shape = Shape::Convert(from, to);
        self.probed.f16 = false;
        self
    }

    const fn probed(mut self, f32: bool, f16: bool, f64: bool) -> Self {
        self.probed = Probed { f32, f16, f64 };
        self
    }

    /// Whether `op --fmt f16` evaluates it under the float16 rules (§3.1.5): every
    /// instruction but the conversions, which name their own formats.
    pub fn has_f16_form(&self) -> bool {
        !self.is_conversion()
    }

    /// Whether it is a conversion (its domains do not follow the working format).
    pub fn is_conversion(&self) -> bool {
        matches!(self.shape, Shape::Convert(..))
    }

    /// Whether the conversion reads or writes doubles (`dtof`, `ftod`).
    pub fn converts_doubles(&self) -> bool {
        matches!(self.shape, Shape::Convert(a, b)
            if a == Domain::Float(F64) || b == Domain::Float(F64))
    }
}

/// Every instruction `op` evaluates, in the order [`Op`] declares them.
pub static INSTRUCTIONS: [Instruction; 37] = {
    use Domain::{I32, U32};
    let (f16, f32, f64) = (Domain::Float(F16), Domain::Float(F32), Domain::Float(F64));
    [
        row(Op::Add, "add", "§22.10.1")
            .binary()
            .double("dadd", Some("§22.14.1")),
        row(Op::Sub, "sub", "")
            .binary()
            .convenience("add with a negated operand")
            .double("dsub", None),
        row(Op::Mul, "mul", "§22.10.12")
            .binary()
            .double("dmul", Some("§22.14.4")),
        row(Op::Div, "div", "§22.10.2")
            .binary()
            .double("ddiv", Some("§22.14.6")),
        Instruction {
            operands: 3,
            alias: Some("fma"),
            ..row(Op::Mad, "mad", "§22.10.9").double("dfma", Some("§22.14.7"))
        },
        row(Op::Dp2, "dp2", "§22.10.3").vectors(2),
        row(Op::Dp3, "dp3", "§22.10.4").vectors(3),
        row(Op::Dp4, "dp4", "§22.10.5").vectors(4),
        row(Op::Min, "min", "§22.10.11")
            .binary()
            .double("dmin", Some("§22.14.3")),
        row(Op::Max, "max", "§22.10.10")
            .binary()
            .double("dmax", Some("§22.14.2")),
        row(Op::Sqrt, "sqrt", "§22.10.21"),
        row(Op::Rsq, "rsq", "§22.10.19"),
        row(Op::Rcp, "rcp", "§22.10.18").double("drcp", Some("§22.14.5")),
        row(Op::Exp, "exp", "§22.10.6"),
        row(Op::Log, "log", "§22.10.8"),
        row(Op::Frc, "frc", "§22.10.7"),
        row(Op::RoundNe, "round_ne", "§22.10.14"),
        row(Op::RoundNi, "round_ni", "§22.10.15"),
        row(Op::RoundPi, "round_pi", "§22.10.16"),
        row(Op::RoundZ, "round_z", "§22.10.17"),
        Instruction {
            shape: Shape::SinCos,
            ..row(Op::Sincos, "sincos", "§22.10.20").probed(true, false, false)
        },
        row(Op::Sin, "sin", "")
            .convenience("sincos with the cosine destination NULL")
            .probed(false, false, false),
        row(Op::Cos, "cos", "")
            .convenience("sincos with the sine destination NULL")
            .probed(false, false, false),
        row(Op::Eq, "eq", "§22.6.1")
            .compare()
            .double("deq", Some("§22.15.1")),
        row(Op::Ne, "ne", "§22.6.8")
            .compare()
            .double("dne", Some("§22.15.4")),
        row(Op::Lt, "lt", "§22.6.7")
            .compare()
            .double("dlt", Some("§22.15.3")),
        row(Op::Ge, "ge", "§22.6.2")
            .compare()
            .double("dge", Some("§22.15.2")),
        row(Op::Gt, "gt", "")
            .compare()
            .convenience("lt with swapped operands")
            .double("dgt", None),
        row(Op::Le, "le", "")
            .compare()
            .convenience("ge with swapped operands")
            .double("dle", None),
        row(Op::Ftoi, "ftoi", "§22.13.3").convert(f32, I32),
        row(Op::Ftou, "ftou", "§22.13.4").convert(f32, U32),
        row(Op::Itof, "itof", "§22.13.5").convert(I32, f32),
        row(Op::Utof, "utof", "§22.13.6").convert(U32, f32),
        row(Op::F16ToF32, "f16tof32", "§22.13.1").convert(f16, f32),
        row(Op::F32ToF16, "f32tof16", "§22.13.2").convert(f32, f16),
        row(Op::Dtof, "dtof", "§22.17.1")
            .convert(f64, f32)
            .probed(false, false, true),
        row(Op::Ftod, "ftod", "§22.17.2")
            .convert(f32, f64)
            .probed(false, false, true),
    ]
};

impl Op {
    /// The instruction's row.
    pub fn instruction(self) -> &'static Instruction {
        &INSTRUCTIONS[self as usize]
    }
}

/// The names of the D3D instructions of f32 (conveniences apart), in table order.
pub fn f32_instruction_names() -> impl Iterator<Item = &'static str> {
    INSTRUCTIONS
        .iter()
        .filter(|i| i.stands_for.is_none())
        .map(|i| i.name)
}

/// The conveniences, each with what it stands for, in table order.
pub fn conveniences() -> impl Iterator<Item = (&'static str, &'static str)> {
    INSTRUCTIONS
        .iter()
        .filter_map(|i| Some((i.name, i.stands_for?)))
}

/// The names `--fmt f16` evaluates, in table order.
pub fn f16_names() -> impl Iterator<Item = &'static str> {
    INSTRUCTIONS
        .iter()
        .filter(|i| i.has_f16_form())
        .map(|i| i.name)
}

/// The double instructions' names (conveniences last), in table order.
pub fn double_names() -> impl Iterator<Item = &'static str> {
    let with = |spec: bool| {
        INSTRUCTIONS
            .iter()
            .filter_map(move |i| i.double.filter(|d| d.section.is_some() == spec))
            .map(|d| d.name)
    };
    with(true).chain(with(false))
}

/// Every name `op` accepts: the f32 names and aliases, then the double names.
pub fn op_names() -> impl Iterator<Item = &'static str> {
    INSTRUCTIONS
        .iter()
        .flat_map(|i| std::iter::once(i.name).chain(i.alias))
        .chain(double_names())
}

/// The instructions with an f64 form, as the hint of an error lists them: the f32 names
/// that take `--fmt f64` (`fma/mad` for the alias), then the double conversions.
pub fn f64_form_names() -> String {
    let arithmetic: Vec<String> = INSTRUCTIONS
        .iter()
        .filter(|i| i.double.is_some())
        .map(|i| match i.alias {
            Some(a) => format!("{a}/{}", i.name),
            None => i.name.to_string(),
        })
        .collect();
    let conversions: Vec<&str> = INSTRUCTIONS
        .iter()
        .filter(|i| i.converts_doubles())
        .map(|i| i.name)
        .collect();
    format!("{}, {}", arithmetic.join(" "), conversions.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_follow_the_declaration_order() {
        for (i, row) in INSTRUCTIONS.iter().enumerate() {
            assert_eq!(row.op as usize, i, "{}", row.name);
            assert_eq!(row.op.instruction().name, row.name);
        }
    }

    #[test]
    fn every_instruction_is_a_d3d_one_or_a_convenience() {
        for i in &INSTRUCTIONS {
            assert!(
                i.section.is_some() != i.stands_for.is_some(),
                "{}: a section or what it stands for, not both",
                i.name
            );
            if let Some(d) = i.double {
                assert!(d.name.starts_with('d'), "{}", d.name);
            }
        }
        assert_eq!(
            f64_form_names(),
            "add sub mul div fma/mad min max rcp eq ne lt ge gt le, dtof, ftod"
        );
    }
}
