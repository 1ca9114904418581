//! The command-line surface (clap derive). Clap types stop here: each subcommand's
//! arguments become a plain request for the command modules.

use clap::{ArgGroup, Args, Parser, Subcommand, ValueEnum};

use crate::convert::exr_out::ExrCompression;
use crate::format::bc6h::Quality;
use crate::format::{Format, Rounding};

mod argv;
mod op;
mod probe;
mod values;

pub use argv::normalize_args;
pub use op::OpArgs;
pub use probe::ProbeArgs;
pub use values::FormatArg;
use values::{
    choice, parse_channels, parse_format, parse_format_or_block, parse_tolerance, parse_ulp_limit,
};

const AFTER_HELP: &str = "\
Inputs come from the arguments or, when there are none, from stdin, one per line (blank
lines and lines starting with # are skipped).

Exit status: 0 success, 1 a negative verdict (op --check, ulp-diff --max), 2 a usage or
input error.";

/// The whole command line, as clap parses it; [`crate::app::run`] turns it into requests.
#[derive(Debug, Parser)]
#[command(
    name = "d3dfloat",
    version,
    about = "Inspect, convert and check Direct3D floating-point formats and arithmetic, exactly",
    long_about = "Inspect, convert and check Direct3D floating-point formats and arithmetic, \
exactly.\n\nFormats: f64 (double), f32 (float), f16 (half), f11, f10, r11g11b10 \
(DXGI_FORMAT_R11G11B10_FLOAT) and rgb9e5 (DXGI_FORMAT_R9G9B9E5_SHAREDEXP); names are \
case-insensitive. Rules follow the Direct3D 11.3 functional specification.",
    after_help = AFTER_HELP,
    propagate_version = true
)]
pub struct Cli {
    /// The output style and colour, shared by every subcommand.
    #[command(flatten)]
    pub output: OutputArgs,
    /// The subcommand and its own arguments.
    #[command(subcommand)]
    pub command: Command,
}

/// Output options shared by every subcommand.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("style").multiple(false)))]
pub struct OutputArgs {
    /// Just the answer, one line per input (stable, for scripts)
    #[arg(long, global = true, group = "style")]
    pub plain: bool,
    /// One JSON object per input, per line, with a "schema" field (stable, for scripts)
    #[arg(long, global = true, group = "style")]
    pub json: bool,
    /// CSV: a header, then one row per input (stable, for scripts)
    #[arg(long, global = true, group = "style")]
    pub csv: bool,
    /// When to colour the human output (auto: only on a terminal, and not with NO_COLOR)
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,
}

/// `--color`: when the human output is coloured: `auto` (a terminal, without `NO_COLOR` or
/// `TERM=dumb`; see [`crate::app::use_color`]), `always` (also into a pipe) or `never`. The
/// variants carry no doc comments on purpose: clap would print them in `--help`.
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Bits to fields, class and exact value
    #[command(after_help = DECODE_HELP)]
    Decode(DecodeArgs),
    /// A value to bits, with explicit rounding
    #[command(after_help = ENCODE_HELP)]
    Encode(EncodeArgs),
    /// Bulk-convert binary data: raw little-endian streams, DDS textures, EXR and HDR images
    #[command(after_help = CONVERT_HELP)]
    Convert(ConvertArgs),
    /// Evaluate a D3D shader instruction: every result a conforming GPU may return
    #[command(after_help = op::op_help())]
    Op(OpArgs),
    /// Distance in ULPs between two values, stdin pairs, or two raw buffers
    #[command(name = "ulp-diff", after_help = ULP_DIFF_HELP)]
    UlpDiff(UlpDiffArgs),
    /// Run the instructions on a Vulkan device and judge every result by the D3D rules
    #[command(after_help = probe::PROBE_HELP)]
    Probe(ProbeArgs),
    /// Write shell completions or man pages (for packaging and the checked-in copies)
    #[command(hide = true)]
    Generate(GenerateArgs),
}

const DECODE_HELP: &str = "\
BITS are 0x7c0, 0b11111000000 or 1984 (an underscore may stand between two digits); a pattern wider
than the format is an error. Packed formats (r11g11b10, rgb9e5) take one 32-bit word.
--fmt bc6h_uf16 or bc6h_sf16 takes a BC6H block: 0x and up to 32 hex digits, the 16 bytes
as one little-endian 128-bit number (the file's first byte is the last two digits); it
shows the mode, partition, endpoints (stored, transformed, unquantized), indices and the
16 texels.

Examples:
  d3dfloat decode --fmt f11 0x7c0
  d3dfloat decode --fmt rgb9e5 0x999320c8
  d3dfloat decode --fmt bc6h_uf16 0xffffffffffffffff000000000000ffe3
  printf '0x3c00\\n0x7bff\\n' | d3dfloat decode --fmt f16 --plain";

const ENCODE_HELP: &str = "\
VALUEs are read exactly: decimals of any length (0.1, 1e-40, a 200-digit literal),
hex-floats with their p exponent (0x1.8p+3), inf, -inf, nan, -0, and the format's named
constants max, min-normal, min-subnormal and epsilon. Packed formats take three values
(R G B) per word; on stdin, three per line.

Rounding: rne is IEEE nearest-even with overflow to infinity (HLSL compilers, DirectXMath's
half path, F16C, the half crate). rtz (alias d3d) rounds toward zero with overflow to the
largest finite value: the D3D rule for float-to-float conversion (spec 3.2.2).

Examples:
  d3dfloat encode --fmt f16 0.1
  d3dfloat encode --fmt f16 --rounding d3d 70000
  d3dfloat encode --fmt r11g11b10 --saturate 1.0 0.5 1e9";

const CONVERT_HELP: &str = "\
Raw input is little-endian elements with no header: f64, f32, f16, f11 and f10 (f11/f10
one per u16, in its low bits), r11g11b10 and rgb9e5 (one u32 per texel). Packing takes 3
floats per texel (4 with --channels 4: alpha is dropped); unpacking writes 3 (or 4, alpha
1.0). Every value gets exactly the bits `encode` would give it.

Containers go by file extension (--raw writes raw data whatever the name):
  .dds   in and out: DXGI R32G32B32A32_FLOAT, R32G32B32_FLOAT, R16G16B16A16_FLOAT,
         R32G32_FLOAT, R16G16_FLOAT, R32_FLOAT, R16_FLOAT, R11G11B10_FLOAT,
         R9G9B9E5_SHAREDEXP, BC6H_UF16, BC6H_SF16; in also the legacy D3DFMT R16F,
         G16R16F, A16B16G16R16F, R32F, G32R32F, A32B32G32R32F. Every mip level, array
         layer and cube face.
  .ktx2  in and out: VkFormat R16_SFLOAT, R16G16_SFLOAT, R16G16B16_SFLOAT,
         R16G16B16A16_SFLOAT, R32_SFLOAT, R32G32_SFLOAT, R32G32B32_SFLOAT,
         R32G32B32A32_SFLOAT, B10G11R11_UFLOAT_PACK32, E5B9G9R9_UFLOAT_PACK32,
         BC6H_UFLOAT_BLOCK, BC6H_SFLOAT_BLOCK; no supercompression. Every mip level,
         array layer and cube face.
  .exr   in (RGBA, or Y) and out: one image of f16 or f32 channels, Y, RGB or RGBA,
         --compression none, zip (default) or piz.
  .pfm   in and out: one image of f32, grey or RGB (in: either byte order).
  .hdr   in only (Radiance RGBE, read as RGBA f32).
What a container cannot hold (mip levels or layers in .exr or .pfm, packed texels in .exr)
is an error. An output named as an image convert does not write (.png, .jpg, .tif, .webp,
.hdr, ...) is refused; anything else, and stdin/stdout (-), is raw. --channels N keeps the
first N channels of a container's floats, or unpacks packed texels to N (3 or 4).
BC6H inputs decode to f16 RGBA (alpha 1.0) and convert from there; --to bc6h_uf16 or
bc6h_sf16 encodes blocks (--quality) into .dds, .ktx2 or raw blocks, and copies a BC6H
input of the same format block for block.

A file output is written under a temporary name beside it (.d3dfloat-XXXXXX.part) and
renamed at the end (through a symlink, its target is replaced): an error or a signal
(SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, ...) never leaves a partial file. A
write-protected file is refused; a replaced file keeps its mode, a new one follows the
umask. Devices, FIFOs and links to open descriptors (/dev/stdout) are written in place,
through the descriptor (>> log keeps appending). Writing over the input (stdin or stdout
included) is refused. Image headers declaring more than --max-pixels pixels, or more than
the file can hold, are refused before reading. A summary goes to stderr (to stdout with
--json or --csv).

Examples:
  d3dfloat convert --from f32 --to f16 mesh.f32 -o mesh.f16
  d3dfloat convert sky.exr --to r11g11b10 -o sky.dds
  d3dfloat convert baked.dds --to f16 -o baked.ktx2
  d3dfloat convert --from f32 --to rgb9e5 --channels 4 --rounding rtz < rgba.bin > out.bin";

/// `convert`'s arguments.
#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// Source format (needed for raw input; a container knows its own)
    #[arg(long, value_name = "F", value_parser = parse_format)]
    pub from: Option<Format>,
    /// Target format (or bc6h_uf16, bc6h_sf16: BC6H blocks, from a container input)
    #[arg(long, value_name = "F", value_parser = parse_format_or_block)]
    pub to: FormatArg,
    /// BC6H output: how hard the encoder looks (fast: 1 partition, the finest mode precision
    /// that fits; normal: 4 partitions, one precision finer too; slow: 12 partitions, more
    /// precisions, more refinement)
    #[arg(long, value_parser = choice::<Quality>(), default_value_t = Quality::default(), value_name = "Q")]
    pub quality: Quality,
    /// Rounding direction
    #[arg(long, short = 'r', value_parser = choice::<Rounding>(), default_value_t = Rounding::default(), value_name = "R")]
    pub rounding: Rounding,
    /// Keep finite values finite: overflow gives the largest finite value in every mode
    #[arg(long)]
    pub saturate: bool,
    /// Float channels per texel beside a packed format: 3 (RGB) or 4 (RGBA) [default: 3 raw, 4 DDS]; from a container's floats, the first N (1 to 4)
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = parse_channels)]
    pub channels: Option<u8>,
    /// Write raw data whatever the output's name
    #[arg(long)]
    pub raw: bool,
    /// Compression of an .exr output
    #[arg(long, value_parser = choice::<ExrCompression>(), default_value_t = ExrCompression::default(), value_name = "C")]
    pub compression: ExrCompression,
    /// Output file, or - for stdout [default: stdout]
    #[arg(long, short = 'o', value_name = "OUTPUT")]
    pub output: Option<std::path::PathBuf>,
    /// Never show a progress bar
    #[arg(long)]
    pub no_progress: bool,
    /// Largest image an .hdr or .exr header may declare, in pixels (width x height)
    #[arg(long, value_name = "N", default_value_t = crate::convert::image_in::DEFAULT_MAX_PIXELS,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub max_pixels: u64,
    /// Input file, or - for stdin [default: stdin]
    #[arg(value_name = "INPUT")]
    pub input: Option<std::path::PathBuf>,
}

const ULP_DIFF_HELP: &str = "\
The distance is the signed number of representable values from A to B, so it is exact
across binades and across zero: +0 and -0 are one point, infinity is one step past the
largest finite value, and NaN against anything is reported as NaN (not a number of ULPs;
with --max it fails). f32 subnormals count as zero, as D3D arithmetic reads them (spec
3.1.3.2); --no-flush counts them. f16, f11 and f10 keep their subnormals.

A and B are values or bit patterns, as in op: 0x followed by exactly the format's width in
hex digits (0x3f800000, 0x3c00, 0x7c0) is a pattern; anything else is a value (0.1, 1e-40,
0x1.8p+3, inf, max), rounded into the format to nearest even first (the output says when
that rounding was inexact). Packed words (r11g11b10, rgb9e5) take a 32-bit word or three
values R,G,B, and are measured channel by channel. An RGB9E5 channel's step is its word's
(2^(E-24)), so two RGB9E5 channels are measured in steps of the finer of the two words'
grids: one mantissa unit within one shared exponent, and 0 for equal values under different
exponents.

With no A B, lines 'A B' are read from stdin and a summary follows (count, max and mean
|distance|, a histogram, NaN pairs, count over --max). --files EXPECTED ACTUAL compares two
raw little-endian buffers element by element (f11/f10 one per u16), streaming, with the
same summary and the worst elements by index.

Exit status: 0, or 1 when --max is given and a distance exceeds it or a NaN is involved.

Examples:
  d3dfloat ulp-diff 1.0 0x3f800003
  d3dfloat ulp-diff --fmt f16 --max 1 0x3c00 0x3c02
  d3dfloat ulp-diff --fmt f11 0x7bf inf --plain
  printf '1 1.0000001\\n0x00000001 0\\n' | d3dfloat ulp-diff --json
  d3dfloat ulp-diff --files expected.bin actual.bin --max 2";

/// `ulp-diff`'s arguments.
#[derive(Debug, Args)]
pub struct UlpDiffArgs {
    /// Format of A and B (or of the buffers' elements)
    #[arg(long, short = 'f', default_value = "f32", value_name = "F", value_parser = parse_format)]
    pub fmt: Format,
    /// Exit 1 when |distance| exceeds N or a NaN is involved
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = parse_ulp_limit)]
    pub max: Option<u64>,
    /// Exit 1 when an element is not within A of the expected value (with --rel-tol: within
    /// A + R x |expected|, numpy's isclose); counted beside --max
    #[arg(long, value_name = "A", value_parser = parse_tolerance)]
    pub abs_tol: Option<f64>,
    /// Exit 1 when an element is not within R x |expected| of the expected value (plus
    /// --abs-tol), as numpy's isclose(actual, expected, rtol=R, atol=A)
    #[arg(long, value_name = "R", value_parser = parse_tolerance)]
    pub rel_tol: Option<f64>,
    /// Count f32 subnormals as values instead of as zero (D3D arithmetic flushes them)
    #[arg(long)]
    pub no_flush: bool,
    /// Compare two raw little-endian buffers element by element
    #[arg(long, num_args = 2, value_names = ["EXPECTED", "ACTUAL"], conflicts_with = "values")]
    pub files: Option<Vec<std::path::PathBuf>>,
    /// With --files: list every element over --max or the tolerance (every difference
    /// without them), NaN involved included: index, channel, both patterns, the distance,
    /// and for images the pixel's x and y, before the summary
    #[arg(long)]
    pub list: bool,
    /// With --files: also write the comparison as one self-contained HTML page (the
    /// histogram of distances, and a heat map per pixel with --width)
    #[arg(long, value_name = "FILE.html", requires = "files")]
    pub report: Option<std::path::PathBuf>,
    /// With --files: the raw buffers are images W pixels wide (for the report's heat map,
    /// and the x and y of the elements named)
    #[arg(long, value_name = "W", requires = "files", value_parser = clap::value_parser!(u32).range(1..))]
    pub width: Option<u32>,
    /// With --width: elements per pixel (RGB from the first three; a packed word is one)
    #[arg(long, value_name = "N", requires = "width", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=16))]
    pub channels: u32,
    /// A and B: values or bit patterns (stdin lines 'A B' when none are given)
    #[arg(value_name = "A B")]
    pub values: Vec<String>,
}

/// `decode`'s arguments.
#[derive(Debug, Args)]
pub struct DecodeArgs {
    /// Format of the patterns (or bc6h_uf16, bc6h_sf16: one BC6H block)
    #[arg(long, short = 'f', default_value = "f32", value_name = "F", value_parser = parse_format_or_block)]
    pub fmt: FormatArg,
    /// Bit patterns to decode (stdin, one per line, when none are given)
    #[arg(value_name = "BITS")]
    pub bits: Vec<String>,
}

/// `encode`'s arguments.
#[derive(Debug, Args)]
pub struct EncodeArgs {
    /// Target format
    #[arg(long, short = 'f', default_value = "f32", value_name = "F", value_parser = parse_format)]
    pub fmt: Format,
    /// Rounding direction
    #[arg(long, short = 'r', value_parser = choice::<Rounding>(), default_value_t = Rounding::default(), value_name = "R")]
    pub rounding: Rounding,
    /// Keep finite values finite: overflow gives the largest finite value in every mode
    #[arg(long)]
    pub saturate: bool,
    /// Values to encode (stdin, one per line, when none are given)
    #[arg(value_name = "VALUE")]
    pub values: Vec<String>,
}

/// The hidden `generate` subcommand's arguments (completions and man pages).
#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// What to write
    #[arg(value_enum)]
    pub what: GenerateWhat,
    /// Directory to write into
    pub dir: std::path::PathBuf,
}

/// What `generate` writes: shell `completions` (bash, zsh, fish, elvish, PowerShell) or
/// `man` pages (one per subcommand). No doc comments on the variants, so `--help` stays as
/// it is.
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GenerateWhat {
    Completions,
    Man,
}

/// Violating lines a sweep writes or lists per instruction unless `--limit` says: every
/// one of most real failures (lavapipe's 8,402 f16 rsq inputs), a bounded file (a few MiB)
/// for an instruction that fails everywhere.
const DEFAULT_VIOLATION_LIMIT: usize = 100_000;

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(line: &str) -> Vec<String> {
        normalize_args(line.split(' ').map(Into::into).collect())
            .into_iter()
            .map(|s| s.into_string().unwrap())
            .collect()
    }

    #[test]
    fn negative_values_move_behind_a_separator() {
        assert_eq!(
            norm("d3dfloat encode --fmt f16 -inf --plain 2 -max"),
            [
                "d3dfloat", "encode", "--fmt", "f16", "--plain", "--", "-inf", "2", "-max"
            ]
        );
        assert_eq!(
            norm("d3dfloat --json encode -0x1p3 -r rtz"),
            ["d3dfloat", "--json", "encode", "-r", "rtz", "--", "-0x1p3"]
        );
    }

    #[test]
    fn untouched_without_negative_values() {
        assert_eq!(
            norm("d3dfloat decode 0x7c0 --plain"),
            ["d3dfloat", "decode", "0x7c0", "--plain"]
        );
    }

    #[test]
    fn verify_cli() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
