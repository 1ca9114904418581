//! `convert`: bulk conversion of raw data, DDS textures and HDR images.

use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, bail};
use indicatif::{ProgressBar, ProgressStyle};

use super::Verdict;
use crate::convert::dds::{self, Shape, Texels};
use crate::convert::{Container, Conversion, ConvertError, Report, Stats, image_in, raw};
use crate::format::bc6h::{Bc6h, Quality};
use crate::format::{F32, Format, RoundOptions};
use crate::output_file::{Input, OutputFile, WRITE_BUFFER, refuse_stdout_is_input};
use crate::path_text;
use crate::render::{Renderer, Stream, Style};

/// What `convert` was asked.
pub struct ConvertRequest {
    /// Whether stdout is a terminal: converted data is not written there unless `-o -`
    /// asks for it.
    pub stdout_is_terminal: bool,
    /// Source format; required for raw input, checked against a container's own.
    pub from: Option<Format>,
    /// Target format.
    pub to: Format,
    /// `--channels`: floats per texel beside a packed format (3 or 4); `None` for the default.
    pub channels: Option<usize>,
    /// Rounding mode and saturation.
    pub opts: RoundOptions,
    /// `None` or `-`: stdin.
    pub input: Option<PathBuf>,
    /// `None` or `-`: stdout.
    pub output: Option<PathBuf>,
    /// Show a progress bar on stderr (a terminal) for large raw inputs.
    pub progress: bool,
    /// What an `.hdr` or `.exr` header may declare.
    pub limits: image_in::ImageLimits,
    /// The output style of the summary.
    pub style: Style,
    /// `--to bc6h_*`: BC6H blocks are encoded from the f16 texels `to` (f16) gives, with
    /// the encoder's quality.
    pub bc6h: Option<(Bc6h, Quality)>,
}

/// Raw inputs larger than this get a progress bar on a terminal.
const PROGRESS_MIN_BYTES: u64 = 256 << 20;

fn named(p: &Option<PathBuf>) -> Option<&Path> {
    p.as_deref().filter(|p| p.as_os_str() != "-")
}

fn container_of(path: Option<&Path>) -> Container {
    path.map_or(Container::Raw, Container::of_path)
}

/// Where converted bytes go: a file (see [`OutputFile`] for the rules), or stdout.
enum Sink {
    File(OutputFile),
    Stdout(BufWriter<io::Stdout>),
}

impl Sink {
    /// `size`: the bytes that will be written, when known in advance. The output must not
    /// be one of `inputs`.
    fn open(
        path: Option<&Path>,
        size: Option<u64>,
        inputs: &[Input],
    ) -> Result<Sink, ConvertError> {
        Ok(match path {
            Some(p) => Sink::File(OutputFile::create_apart(p, size, inputs)?),
            None => Sink::Stdout(BufWriter::with_capacity(WRITE_BUFFER, io::stdout())),
        })
    }

    fn writer(&mut self) -> &mut (dyn Write + Send) {
        match self {
            Sink::File(f) => f,
            Sink::Stdout(s) => s,
        }
    }

    fn finish(self) -> Result<(), ConvertError> {
        match self {
            Sink::File(f) => Ok(f.commit()?),
            Sink::Stdout(mut s) => s
                .flush()
                .map_err(|e| ConvertError::io("writing to stdout", e)),
        }
    }
}

/// Converts the input into the output and renders the summary; a failure leaves no partial
/// output file.
pub fn run(
    req: &ConvertRequest,
    r: &mut dyn Renderer,
    out: &mut dyn Write,
) -> anyhow::Result<Verdict> {
    let input = named(&req.input);
    let output = named(&req.output);
    let summary_on_stdout = r.convert_stream() == Stream::Stdout;
    if summary_on_stdout && output.is_none() {
        bail!("--json and --csv print the summary on stdout: give the output file with -o");
    }
    if req.output.is_none() && req.stdout_is_terminal {
        bail!(
            "refusing to write binary data to a terminal: give an output file with -o FILE, \
             or -o - to write to stdout anyway"
        );
    }
    // `convert - -o in.f32 < in.f32` would destroy its own input, as `-o` naming it would;
    // `convert in.f32 >> in.f32` would read its own output back without end. The output
    // file is checked when it is opened (before any conversion), stdout here.
    let inputs: Vec<Input> = match input {
        Some(i) => Input::path(i),
        None => Input::stdin(),
    }
    .into_iter()
    .collect();
    if output.is_none() {
        refuse_stdout_is_input(&inputs).map_err(ConvertError::from)?;
    }
    let started = Instant::now();
    let in_container = container_of(input);
    let out_container = match container_of(output) {
        Container::Dds => Container::Dds,
        Container::Raw => Container::Raw,
        c => bail!("convert writes raw data or .dds, not .{}", c.name()),
    };
    let mut input_bc6h = None;
    if req.bc6h.is_some() && in_container == Container::Raw {
        bail!("BC6H output needs a .dds, .exr or .hdr input (raw data has no size)");
    }
    let (conversion, bytes_in, bytes_out, stats) = match in_container {
        Container::Raw => {
            if out_container == Container::Dds {
                bail!("a .dds output needs a .dds, .exr or .hdr input (raw data has no size)");
            }
            convert_raw(req, input, output, &inputs)?
        }
        Container::Dds => {
            let path = input.expect("a container is a named file");
            let mut file =
                File::open(path).with_context(|| format!("opening {}", input_name(input)))?;
            // A regular file's length settles a size mismatch before anything is read;
            // a FIFO or device is read only as far as its header describes.
            let len = file
                .metadata()
                .ok()
                .filter(|m| m.is_file())
                .map(|m| m.len());
            let texture = dds::read(&mut file, len).with_context(|| input_name(input))?;
            input_bc6h = texture.bc6h;
            if let Some(from) = req.from
                && from != texture.texels.format
            {
                bail!(
                    "--from {} but the DDS file {} holds {}",
                    from.name(),
                    path.display(),
                    texture.texels.format.name()
                );
            }
            convert_texture(
                req,
                texture.shape,
                texture.texels,
                texture.data,
                input,
                output,
                &inputs,
            )?
        }
        Container::Exr | Container::Hdr => {
            let path = input.expect("a container is a named file");
            let image = if in_container == Container::Exr {
                image_in::read_exr(path, req.limits)
            } else {
                image_in::read_hdr(path, req.limits)
            }
            .with_context(|| input_name(input))?;
            let mut texels = Texels {
                format: Format::Float(F32),
                channels: 4,
            };
            let mut data = image.data;
            let packs = matches!(req.to, Format::R11G11B10 | Format::Rgb9e5);
            if req.channels == Some(3) && !packs {
                // RGBA to RGB in place: texel i moves down to 12 * i, never past a texel
                // not yet moved.
                let count = data.len() / 16;
                for i in 0..count {
                    data.copy_within(16 * i..16 * i + 12, 12 * i);
                }
                data.truncate(12 * count);
                texels.channels = 3;
            }
            let shape = Shape::image(image.width, image.height);
            convert_texture(req, shape, texels, data, input, output, &inputs)?
        }
    };
    let report = Report {
        conversion,
        input: display(input),
        output: display(output),
        input_container: in_container,
        output_container: out_container,
        bytes_in,
        bytes_out,
        stats,
        seconds: started.elapsed().as_secs_f64(),
        input_bc6h,
        output_bc6h: req.bc6h.map(|(b, _)| b),
    };
    if summary_on_stdout {
        r.convert(out, &report)?;
    } else {
        // The data is written: a stderr that cannot take the summary (a closed pipe)
        // does not make the run a failure.
        let _ = r.convert(&mut io::stderr().lock(), &report);
    }
    Ok(Verdict::Success)
}

/// The input as errors name it.
fn input_name(p: Option<&Path>) -> String {
    p.map_or("stdin".to_string(), path_text::one_line)
}

/// The output as errors name it.
fn output_name(p: Option<&Path>) -> String {
    p.map_or("stdout".to_string(), path_text::one_line)
}

fn display(p: Option<&Path>) -> String {
    p.map_or("-".to_string(), |p| p.display().to_string())
}

/// Raw little-endian elements, streamed in constant memory.
fn convert_raw(
    req: &ConvertRequest,
    input: Option<&Path>,
    output: Option<&Path>,
    inputs: &[Input],
) -> anyhow::Result<(Conversion, u64, u64, Stats)> {
    let Some(from) = req.from else {
        bail!("--from is needed for raw input (f32, f16, f11, f10, f64, r11g11b10, rgb9e5)");
    };
    let conv = Conversion::new(from, req.to, req.channels.unwrap_or(3), req.opts)?;
    let (mut source, size): (Box<dyn Read + Send>, Option<u64>) = match input {
        Some(p) => {
            let f = File::open(p).with_context(|| format!("opening {}", input_name(input)))?;
            let size = f.metadata().ok().filter(|m| m.is_file()).map(|m| m.len());
            (Box::new(f), size)
        }
        None => (Box::new(io::stdin()), None),
    };
    let group = conv.src_group_bytes();
    if let Some(size) = size
        && size % group as u64 != 0
    {
        return Err(anyhow::Error::new(ConvertError::Truncated {
            size,
            group,
            what: conv.src_group_name(),
        })
        .context(input_name(input)));
    }
    let bar = progress_bar(req.progress, size);
    let out_size = size
        .map(|s| output_size(&conv, s))
        .transpose()
        .with_context(|| input_name(input))?;
    let mut sink = Sink::open(output, out_size, inputs)?;
    let names = (input_name(input), output_name(output));
    let names = (names.0.as_str(), names.1.as_str());
    let stats = raw::convert_stream(&conv, source.as_mut(), sink.writer(), names, &|done| {
        if let Some(b) = &bar {
            b.set_position(done)
        }
    })
    .map_err(|e| match e {
        // The other errors name their file already (`reading X`, `writing Y`).
        ConvertError::Truncated { .. } => anyhow::Error::new(e).context(names.0.to_string()),
        e => e.into(),
    })?;
    sink.finish()?;
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let groups = stats_groups(&conv, &stats);
    Ok((
        conv,
        groups * group as u64,
        groups * conv.dst_group_bytes() as u64,
        stats,
    ))
}

/// The bytes `size` bytes of input convert to. An output no file can hold (a sparse
/// input near 2^63 bytes, widened 4x from f16 to f64) is refused before it is begun.
fn output_size(conv: &Conversion, size: u64) -> anyhow::Result<u64> {
    conv.dst_len_checked(size)
        .filter(|&n| n <= i64::MAX as u64)
        .with_context(|| {
            format!(
                "{size} bytes of {} input would convert to more than 2^63 bytes, \
                 more than a file can hold",
                conv.from.name()
            )
        })
}

/// Groups converted, from the values counted.
fn stats_groups(conv: &Conversion, stats: &Stats) -> u64 {
    let per_group = match (conv.from, conv.to) {
        (Format::Float(_), Format::Float(_)) => 1,
        _ => 3,
    };
    stats.values / per_group
}

fn progress_bar(enabled: bool, size: Option<u64>) -> Option<ProgressBar> {
    let size = size.filter(|&s| enabled && s > PROGRESS_MIN_BYTES)?;
    let bar = ProgressBar::new(size);
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:40} {binary_bytes}/{binary_total_bytes} {binary_bytes_per_sec} eta {eta}",
        )
        .expect("valid template"),
    );
    Some(bar)
}

/// A texture or image in memory, written as DDS or as raw data. The converted texels
/// stream from the texture to the output in chunks ([`raw::convert_stream`]), so the
/// conversion adds a constant amount of memory (under 64 MiB) to the texture's own.
fn convert_texture(
    req: &ConvertRequest,
    shape: Shape,
    texels: Texels,
    data: Vec<u8>,
    input: Option<&Path>,
    output: Option<&Path>,
    inputs: &[Input],
) -> anyhow::Result<(Conversion, u64, u64, Stats)> {
    let (conv, target) =
        dds::plan(texels, req.to, req.channels, req.opts).with_context(|| input_name(input))?;
    if let Some((b, quality)) = req.bc6h {
        return write_bc6h(
            &shape,
            (conv, target),
            data,
            (b, quality),
            input,
            output,
            inputs,
        );
    }
    let bytes_out = conv.dst_len(data.len()) as u64;
    let header = if container_of(output) == Container::Dds {
        dds::build(&shape, target, bytes_out)
            .and_then(|h| dds::header_bytes(&h))
            .with_context(|| format!("writing {}", output_name(output)))?
    } else {
        Vec::new()
    };
    let mut sink = Sink::open(output, Some(header.len() as u64 + bytes_out), inputs)?;
    sink.writer()
        .write_all(&header)
        .map_err(|e| ConvertError::io(format!("writing {}", output_name(output)), e))?;
    let names = (input_name(input), output_name(output));
    let stats = raw::convert_stream(
        &conv,
        &mut data.as_slice(),
        sink.writer(),
        (&names.0, &names.1),
        &|_| {},
    )?;
    sink.finish()?;
    Ok((conv, data.len() as u64, bytes_out, stats))
}

/// `--to bc6h_*`: the texels converted to f16 (counted as any conversion is), then
/// encoded into BC6H blocks, slice by slice, and written as DDS or raw blocks.
#[allow(clippy::too_many_arguments)]
fn write_bc6h(
    shape: &Shape,
    (conv, target): (Conversion, Texels),
    data: Vec<u8>,
    (b, quality): (Bc6h, Quality),
    input: Option<&Path>,
    output: Option<&Path>,
    inputs: &[Input],
) -> anyhow::Result<(Conversion, u64, u64, Stats)> {
    if target.channels < 3 {
        bail!(
            "{}: BC6H holds R, G and B; the input has {} channel(s) per texel",
            input_name(input),
            target.channels
        );
    }
    let names = (input_name(input), output_name(output));
    let mut halves = Vec::with_capacity(conv.dst_len(data.len()));
    let stats = raw::convert_stream(
        &conv,
        &mut data.as_slice(),
        &mut halves,
        (&names.0, &names.1),
        &|_| {},
    )?;
    let blocks = dds::encode_bc6h(shape, target.channels, &halves, b, quality);
    let header = if container_of(output) == Container::Dds {
        dds::build_bc6h(shape, b, blocks.len() as u64)
            .and_then(|h| dds::header_bytes(&h))
            .with_context(|| format!("writing {}", names.1))?
    } else {
        Vec::new()
    };
    let mut sink = Sink::open(output, Some((header.len() + blocks.len()) as u64), inputs)?;
    for part in [&header, &blocks] {
        sink.writer()
            .write_all(part)
            .map_err(|e| ConvertError::io(format!("writing {}", names.1), e))?;
    }
    sink.finish()?;
    Ok((conv, data.len() as u64, blocks.len() as u64, stats))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{F16, F64, Rounding};

    #[test]
    fn an_output_past_the_largest_file_is_refused_by_its_size() {
        let opts = RoundOptions::new(Rounding::NearestEven);
        let widen = Conversion::new(Format::Float(F16), Format::Float(F64), 3, opts).unwrap();
        assert_eq!(output_size(&widen, 6).unwrap(), 24);
        // 2^60 f16 values are 2^63 bytes of f64: one byte past the largest file.
        assert_eq!(output_size(&widen, (1 << 61) - 2).unwrap(), (1 << 63) - 8);
        let err = output_size(&widen, 1 << 61).unwrap_err().to_string();
        assert!(err.contains("more than 2^63 bytes"), "{err}");
        assert!(output_size(&widen, u64::MAX).is_err());
    }
}
