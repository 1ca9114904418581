//! The D3D arithmetic rules that shape an allowed set, each with its spec section and a
//! plain explanation for a graphics programmer. Evaluations list the rules they used.

use crate::format::{Arithmetic, Choice, FloatFormat};

/// Which generation of the rules to apply; Direct3D 11's unless asked otherwise.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RuleSet {
    /// Direct3D 11 and later: 0.5 ULP for 32-bit add, subtract and multiply (§3.1.3.1).
    #[default]
    D3D11,
    /// Direct3D 10: 1 ULP for 32-bit arithmetic, multiply and divide included (the
    /// tolerance §3.1.2 describes, which D3D10.1 tightened for add/sub/mul).
    D3D10,
}

impl RuleSet {
    /// The names as typed and printed, one per rule set.
    pub const NAMES: [&'static str; 2] = ["d3d11", "d3d10"];
    /// Every rule set, in the order of [`RuleSet::NAMES`].
    pub const ALL: [RuleSet; 2] = [RuleSet::D3D11, RuleSet::D3D10];

    /// The name as typed and printed: `d3d11` or `d3d10`.
    pub fn as_str(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

/// The command line takes the names alone; [`RuleSet::from_str`](std::str::FromStr) also
/// takes `d3d12`, `11` and `10`, as the Python package's `rules=` does.
impl Choice for RuleSet {
    const WHAT: &'static str = "rule set";
    const ALL: &'static [RuleSet] = &RuleSet::ALL;

    fn name(self) -> &'static str {
        self.as_str()
    }

    fn summary(self) -> &'static str {
        match self {
            RuleSet::D3D11 => {
                "Direct3D 11 and later: 0.5 ULP for 32-bit add, subtract and multiply (3.1.3.1)"
            }
            RuleSet::D3D10 => {
                "Direct3D 10: 1 ULP for 32-bit arithmetic, multiply and divide included"
            }
        }
    }
}

impl std::fmt::Display for RuleSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for RuleSet {
    type Err = String;
    fn from_str(s: &str) -> Result<RuleSet, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "d3d11" | "d3d12" | "11" => Ok(RuleSet::D3D11),
            "d3d10" | "10" => Ok(RuleSet::D3D10),
            _ => Err(format!("unknown rule set '{s}' (expected d3d11 or d3d10)")),
        }
    }
}

/// A tolerance in ULPs, measured on the value line where one ULP is the gap between the two
/// representable neighbours at that spot (§3.1.2). Every step of every instruction names one
/// of these, and [`super::numeric::tolerance_set`] is the one place that turns it into
/// patterns, for the exact path and the fast path alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ulps {
    /// 0.5 ULP as the 32-bit rules word it ("within 0.5 ULP", §3.1.3.1): the correctly
    /// rounded result, and both neighbours of an exact tie.
    Half,
    /// Round to nearest, ties to even: float16 ("round to nearest even, per IEEE-754",
    /// §3.1.5 and the pages' 16-bit section) and double ("IEEE 754R", §3.1.4).
    HalfEven,
    /// Within 0.6 ULP of the exact value: float16 fused operations (§3.1.5). A value bound,
    /// so when it reaches zero both zeros conform.
    SixTenths,
    /// Within 1 ULP as a distance: the approximated functions (sqrt §22.10.21, rcp §3.1.3.2,
    /// the reciprocal of a two-step divide), which need not hit an exact result exactly.
    One,
    /// 1 ULP of arithmetic, the reason the D3D10 page gives for it: hardware "is allowed to
    /// truncate results ... rather than perform round-to-nearest-even" (§3.1.2, and §22.14.5
    /// for drcp). Either neighbour of an inexact result, an exact result exactly, and an
    /// exact result beyond the largest finite value gives ±max (truncated) or ±inf.
    Faithful,
}

/// Declares [`Rule`] one row per rule: its variant and doc, its section and its text
/// together, so that no rule can have one without the others.
macro_rules! rules {
    ($($(#[doc = $doc:literal])* $name:ident => $section:literal, $text:literal;)*) => {
        /// One rule, as cited in output.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Rule {
            $($(#[doc = $doc])* $name,)*
        }

        impl Rule {
            /// Where the rule comes from: a D3D 11.3 functional spec section (`§3.1.3.2`),
            /// or a D3D10/D3D11 "Floating-point rules" page, or two sources when they
            /// disagree (`§22.14.6 vs §3.1.4`).
            pub fn section(self) -> &'static str {
                match self {
                    $(Rule::$name => $section,)*
                }
            }

            /// The rule in plain words, for a graphics programmer, as every output style
            /// cites it.
            pub fn text(self) -> &'static str {
                match self {
                    $(Rule::$name => $text,)*
                }
            }
        }
    };
}

rules! {
    /// 32-bit arithmetic reads a denorm operand as a zero of its sign (§3.1.3.2).
    FlushInput => "§3.1.3.2",
        "32-bit float arithmetic reads a denorm operand as a zero of the same sign";
    /// A 32-bit denorm result is written as a zero of its sign (§3.1.3.2).
    FlushOutput => "§3.1.3.2",
        "a 32-bit denorm result is written as a zero of the same sign";
    /// float16 arithmetic keeps denorms on input and output (§3.1.5).
    DenormsKeptF16 => "§3.1.5",
        "float16 arithmetic keeps denorms on input and output";
    /// Double arithmetic keeps denorms on input and output (§3.1.4).
    DenormsKeptF64 => "§3.1.4",
        "double arithmetic keeps denorms on input and output";
    /// A NaN operand gives NaN, and any NaN pattern conforms (§3.1.3.1).
    NanPropagates => "§3.1.3.1",
        "a NaN operand gives NaN; D3D does not preserve NaN bits (§3.1.3.2), so any NaN pattern conforms";
    /// inf - inf, 0 * inf, 0/0 and inf/inf give NaN (§3.1.3.1).
    InvalidNan => "§3.1.3.1",
        "this combination has no numeric answer (inf - inf, 0 * inf, 0/0, inf/inf), so the result is NaN";
    /// Infinities combine as in IEEE 754 (§3.1.3.1).
    InfinityArithmetic => "§3.1.3.1",
        "infinities behave as in IEEE 754: inf + finite = inf, inf * nonzero = inf, finite / inf = 0";
    /// Zero times or over a finite number is an exact zero with the product's sign (§3.1.3.1).
    ZeroOperand => "§3.1.3.1",
        "a zero times or divided by a finite number is an exact zero with the sign of the product (IEEE 754, which §3.1 follows)";
    /// Nonzero / 0 is a signed infinity, 0/0 is NaN (§3.1.3.1).
    DivideByZero => "§3.1.3.1",
        "a nonzero number divided by 0 gives a signed infinity; 0/0 gives NaN";
    /// D3D11: 32-bit add, subtract and multiply are correctly rounded, 0.5 ULP with both neighbours
    /// of a tie (§3.1.3.1).
    HalfUlp => "§3.1.3.1",
        "32-bit add, subtract and multiply must be correctly rounded (within 0.5 ULP of the exact result; both neighbours conform when it lies exactly half-way)";
    /// D3D10: 32-bit arithmetic, multiply and divide included, within 1 ULP as truncation is
    /// (§3.1.2 and the D3D10 Floating-point rules page).
    D3D10OneUlp => "§3.1.2 and D3D10 page, Floating-point rules",
        "Direct3D 10 rules: 32-bit arithmetic (multiply and divide included) may be off by 1 ULP because hardware may truncate: either neighbour of an inexact result, an exact result exactly, and ±max or ±inf beyond the largest finite value";
    /// float16 unfused arithmetic rounds to nearest even, which tightens every 1 ULP allowance of
    /// the 32-bit rules (§3.1.5). The text names the looser min-precision reading
    /// (§7.20.2.2.1), which `op --fmt f16` does not judge by.
    F16HalfUlp => "§3.1.5",
        "float16 unfused arithmetic rounds to nearest, ties to even (0.5 ULP, per IEEE 754); every 1 ULP allowance of the 32-bit rules is tightened to that. These are native float16 rules: min-precision float16 (min16float, §7.20.2.2.1) may also truncate and flush denorms";
    /// float16 fused operations within 0.6 ULP of the exact result (§3.1.5).
    F16Fused => "§3.1.5",
        "float16 fused operations may also be off by up to 0.6 ULP of the exact result";
    /// Double instructions round to nearest even, as IEEE 754R (§3.1.4).
    F64Ieee => "§3.1.4",
        "double instructions follow IEEE 754R: round to nearest, ties to even (0.5 ULP)";
    /// `x + 0` and `x - 0` return `x` exactly, after the denorm flush (§3.1.3.2).
    AddZeroIdentity => "§3.1.3.2",
        "x + 0 and x - 0 must return x exactly (after the denorm flush)";
    /// `-0 + 0 = +0`; only `-0 + -0` gives -0 (§3.1.3.2).
    NegZeroPlusZero => "§3.1.3.2",
        "-0 + 0 = +0: only -0 + -0 gives -0";
    /// An exact zero sum of nonzero operands is +0 (§3.1.3.1).
    ExactCancellation => "§3.1.3.1",
        "an exact zero sum of nonzero operands is +0 (round-to-nearest, as IEEE 754)";
    /// `x * 1.0` returns `x` and `x * -1.0` returns `-x` exactly (§3.1.3.2).
    MulOneIdentity => "§3.1.3.2",
        "x * 1.0 must return x exactly, and x * -1.0 returns -x (after the denorm flush)";
    /// `x / 1.0` returns `x` exactly (§3.1.3.2).
    DivOneIdentity => "§3.1.3.2",
        "x / 1.0 must return x exactly (after the denorm flush)";
    /// Divide may run as `a * (1/b)` (1 ULP reciprocal, 0.5 ULP multiply); anything at least as
    /// close as the worst such result conforms (§3.1.3.2).
    DivTwoStep => "§3.1.3.2",
        "divide may be done as a * (1/b) with a 1 ULP reciprocal and a 0.5 ULP multiply; a direct divide must be at least as accurate, so every value at least as close to the exact quotient as the worst two-step result conforms";
    /// For |b| > 2^126 the flushed reciprocal lets `a / b` give 0, or NaN for `inf / b` (§22.10.2).
    DivLargeDenominator => "§22.10.2",
        "for |b| > 2^126, 1/b is a denorm that flushes to 0, so a * (1/b) may give 0 (or NaN for inf / b); the spec lists this as an exception to its table";
    /// float16 divide is unfused, so correctly rounded; the 32-bit two-step permission does
    /// not carry over (§3.1.5).
    F16DivRounded => "§3.1.5",
        "float16 divide is an unfused operation, so it gives the nearest representable quotient; the 32-bit permission to divide as a * (1/b) does not carry over";
    /// `ddiv` is correctly rounded, ties to even (§22.14.6).
    DDivHalfUlp => "§22.14.6",
        "ddiv must be correctly rounded (round to nearest, ties to even)";
    /// `ddiv`'s table reads a double denorm as zero, §3.1.4 keeps it: either reading's result
    /// conforms (§22.14.6 vs §3.1.4).
    DDivDenormReadings => "§22.14.6 vs §3.1.4",
        "the spec contradicts itself: the ddiv table reads a double denorm as zero, §3.1.4 says doubles honour denorms; results of either reading conform";
    /// `drcp` gives either neighbour of the exact reciprocal, an exact one exactly (§22.14.5).
    DrcpOneUlp => "§22.14.5",
        "drcp may return either representable neighbour of the exact reciprocal, and must return it exactly when it is representable; beyond the largest finite double, ±max or ±inf";
    /// `drcp`'s table maps a denorm to inf as if zero, §3.1.4 keeps denorms: either reading's
    /// result conforms (§22.14.5 vs §3.1.4).
    DrcpDenormReadings => "§22.14.5 vs §3.1.4",
        "the spec contradicts itself: the drcp table maps a denorm to inf as if it were zero, §3.1.4 and drcp's own text honour denorms; results of either reading conform";
    /// mad and dp2-dp4 are held to the worst serial order of their multiplies and adds, each step
    /// within its tolerance (§3.1.3.2).
    FusedWorstOrder => "§3.1.3.2",
        "fused operations (mad, dp2, dp3, dp4) must be at least as accurate as the worst serial order of their separate multiplies and adds, each step within its own tolerance; every value at least that close to the exact result conforms";
    /// Each step of that serial expansion within 1 ULP as truncation is, per the D3D10 and D3D11
    /// pages, beside §3.1.3.2's 0.5 ULP; either reading conforms.
    FusedStepOneUlp => "§3.1.3.2 vs the D3D10 and D3D11 pages, Floating-point rules",
        "each step of the serial expansion may be off by 1 ULP as truncation is (either neighbour of an inexact step, an exact step exactly, ±max or ±inf beyond the largest finite value); both pages give each step 1 ULP where §3.1.3.2 says 0.5 ULP, and results of either reading conform";
    /// float16 fused steps within 0.6 ULP instead of 1 ULP (§3.1.5 with the pages' 16-bit rules).
    F16FusedStep => "§3.1.5 with the pages' 16-bit floating-point rules",
        "float16 replaces the fused steps' 1 ULP with 0.6 ULP: each step of the serial expansion may give any value within 0.6 ULP of that step's exact result";
    /// D3D10: divide within 1 ULP like multiply, with no two-step permission (D3D10 Floating-point
    /// rules page).
    D3D10Divide => "D3D10 page, Floating-point rules (multiply and divide 1 ULP)",
        "Direct3D 10 divide is held to 1 ULP like multiply (truncation conforms); the two-step a * (1/b) permission arrived with Direct3D 10.1";
    /// A fused operation's intermediate step beyond the format's range may go to inf, saturate or
    /// keep extra range; every choice conforms (§3.1.3.2).
    FusedOverflowLeeway => "§3.1.3.2",
        "an intermediate step of a fused operation that leaves the format's range may go to inf, saturate to the largest finite value, or keep extra range; results of every choice conform";
    /// NaN conforms when some serial evaluation of the fused operation gives NaN (§3.1.3.2).
    FusedNan => "§3.1.3.2",
        "NaN conforms when some serial evaluation of the fused operation gives NaN";
    /// `dfma` rounds once, correctly, ties to even (§22.14.7).
    DfmaHalfUlp => "§22.14.7",
        "dfma rounds once: the fused result must be correctly rounded (ties to even)";
    /// min/max with one NaN operand return the other; with two, any NaN (§3.1.3.1).
    MinMaxNan => "§3.1.3.1",
        "min and max with one NaN operand return the other operand; with two NaNs, any NaN";
    /// min/max compare flushed values but may return a denorm operand flushed or not (§3.1.3.2).
    MinMaxFlush => "§3.1.3.2",
        "min and max compare flushed values, but the result may or may not be flushed, so a denorm operand may come back as itself or as a signed zero";
    /// min/max of +0 and -0 may return either zero (§3.1.3.2).
    MinMaxZeroSign => "§3.1.3.2",
        "min and max of +0 and -0 may return either zero (IEEE 754R's min = -0, max = +0 is recommended, not enforced)";
    /// min/max return one of their operands unchanged (§22.10.10-11).
    MinMaxSelect => "§22.10.10-11",
        "min and max return one of their operands unchanged";
    /// Comparisons with a NaN operand are false, except `ne`, which is true (§3.1.3.1).
    CompareNan => "§3.1.3.1",
        "eq, lt, ge, gt and le are false when an operand is NaN; ne is true";
    /// Comparisons treat +0 and -0 as equal and flush 32-bit denorms first (§3.1.3.1).
    CompareSignedZero => "§3.1.3.1",
        "comparisons ignore the sign of zero (+0 equals -0) and flush 32-bit denorms first";
    /// `gt` and `le` are `lt` and `ge` with the operands swapped, not D3D instructions (§22.6).
    CompareDerived => "§22.6",
        "gt and le are conveniences, not D3D instructions: gt a b is lt b a, le a b is ge b a";
    /// `sqrt` within 1 ULP of the exact root (§22.10.21).
    SqrtOneUlp => "§22.10.21",
        "sqrt may be off by 1 ULP either side of the exact root";
    /// `sqrt`'s special cases: negative gives NaN, `sqrt(-0) = -0`, `sqrt(+inf) = +inf`
    /// (§22.10.21).
    SqrtSpecial => "§22.10.21",
        "sqrt of a negative number is NaN; sqrt(-0) = -0, sqrt(+inf) = +inf";
    /// `rcp` within 2^-21 relative error (§22.10.18).
    RcpRelative => "§22.10.18",
        "rcp may have a relative error of up to 2^-21";
    /// `rcp`'s two tolerances, 1 ULP (§3.1.3.2) and 2^-21 relative (§22.10.18): either reading
    /// conforms.
    RcpOneUlpReading => "§3.1.3.2 vs §22.10.18",
        "the spec gives rcp's tolerance two ways (1 ULP in §3.1.3.2, 2^-21 relative in §22.10.18); results allowed by either reading conform";
    /// `rcp(±0) = ±inf`, `rcp(±inf) = ±0` (§22.10.18).
    RcpSpecial => "§22.10.18",
        "rcp(±0) = ±inf, rcp(±inf) = ±0";
    /// `rsq` within 2^-21 relative error (§22.10.19).
    RsqRelative => "§22.10.19",
        "rsq may have a relative error of up to 2^-21";
    /// `rsq`'s special cases: negative gives NaN, `rsq(±0) = ±inf`, `rsq(+inf) = +0` (§22.10.19).
    RsqSpecial => "§22.10.19",
        "rsq of a negative number is NaN; rsq(±0) = ±inf, rsq(+inf) = +0";
    /// `exp` (2^x) within 2^-21 relative error (§22.10.6).
    ExpRelative => "§22.10.6",
        "exp (2^x) may have a relative error of up to 2^-21";
    /// `exp(-inf) = 0`, `exp(±0) = 1`, `exp(+inf) = +inf` (§22.10.6).
    ExpSpecial => "§22.10.6",
        "exp(-inf) = 0, exp(±0) = 1, exp(+inf) = +inf";
    /// `log` (log2) within 2^-21 absolute in [0.5, 2], 2^-21 relative elsewhere (§22.10.8).
    LogTolerance => "§22.10.8",
        "log (log2 x) may be off by 2^-21 absolute for x in [0.5, 2] and by 2^-21 relative elsewhere";
    /// `log`'s special cases: ±0 gives -inf, negative gives NaN, +inf gives +inf (§22.10.8).
    LogSpecial => "§22.10.8",
        "log(±0) = -inf, log of a negative number is NaN, log(+inf) = +inf";
    /// `sin`/`cos` within 0.0008 absolute for inputs in [-100π, 100π] (§22.10.20).
    Sincos => "§22.10.20",
        "sin and cos may be off by 0.0008 absolute for inputs in [-100π, 100π]";
    /// Outside [-100π, 100π], any `sin`/`cos` value in [-1, 1] conforms (§22.10.20).
    SincosOutside => "§22.10.20",
        "outside [-100π, 100π] no accuracy is required: any value in [-1, 1] conforms";
    /// `frc` is one rounded subtraction `x - round_ni(x)`, which can reach 1.0 despite the table's
    /// [+0, 1); both readings conform (§22.10.7).
    Frc => "§22.10.7",
        "frc = x - round_ni(x), one subtraction; the table promises [+0, 1), but the rounded subtraction reaches 1.0 for tiny negative x, so both readings conform";
    /// `round_ne/ni/pi/z` give the exact integral value, a zero keeping the input's sign
    /// (§22.10.14-17).
    RoundExact => "§22.10.14-17",
        "round_ne/ni/pi/z give the exact integral value; a zero result keeps the input's sign";
    /// `ftoi` truncates, NaN gives 0, out-of-range values saturate (§22.13.3).
    Ftoi => "§22.13.3",
        "ftoi truncates toward zero; NaN gives 0; values beyond the int32 range saturate (the spec's clamp bounds are not float32 values and are read as saturation)";
    /// `ftou` truncates, NaN and negatives give 0, out-of-range values saturate (§22.13.4).
    Ftou => "§22.13.4",
        "ftou truncates toward zero; NaN and negatives give 0; values beyond the uint32 range saturate";
    /// `itof` is exact within 24 bits, else either neighbour (§22.13.5).
    Itof => "§22.13.5",
        "itof is exact when the integer fits in 24 bits; otherwise round-to-nearest-even is recommended but not required, so either neighbour conforms";
    /// `utof` is exact within 24 bits, else either neighbour (§22.13.6).
    Utof => "§22.13.6",
        "utof is exact when the integer fits in 24 bits; otherwise round-to-nearest-even is recommended but not required, so either neighbour conforms";
    /// `f16tof32` is exact; NaN stays NaN (§22.13.1).
    F16ToF32 => "§22.13.1",
        "float16 to float32 is exact (float16 denorms are normal float32 values); NaN stays NaN";
    /// `f32tof16` rounds toward zero and gives ±65504, not inf, beyond float16's range (§22.13.2,
    /// §3.2.2).
    F32ToF16 => "§22.13.2, §3.2.2",
        "float conversion rounds toward zero, and a value beyond float16's range gives ±65504, not inf; inf stays inf, NaN stays NaN";
    /// `dtof`: round to nearest even (its own text) or toward zero (§3.2.2) both conform, and a
    /// float32 denorm result may be flushed (§22.17.1 vs §3.2.2).
    Dtof => "§22.17.1 vs §3.2.2",
        "the spec contradicts itself: dtof says round-to-nearest-even, §3.2.2 says round toward zero for float conversions; both results conform, and a float32 denorm result may be flushed";
    /// `ftod` is exact; a float32 denorm operand may be honoured or flushed (§22.17.2).
    Ftod => "§22.17.2",
        "float32 to double is exact; a float32 denorm may be honoured or flushed";
    /// A result beyond the largest finite value rounds to infinity (§3.1.3.1).
    Overflow => "§3.1.3.1",
        "a result beyond the largest finite value rounds to infinity (round-to-nearest, as IEEE 754)";
}

impl Rule {
    /// `§3.1.3.2: text`, the form used in every output style.
    pub fn cite(self) -> String {
        format!("{}: {}", self.section(), self.text())
    }
}

/// The rule describing how the format treats denorms in arithmetic.
pub fn denorm_rule(f: &FloatFormat) -> Option<Rule> {
    match f.arithmetic {
        Arithmetic::Float16 => Some(Rule::DenormsKeptF16),
        Arithmetic::Double => Some(Rule::DenormsKeptF64),
        Arithmetic::Float32 | Arithmetic::None => None,
    }
}
