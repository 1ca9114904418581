//! `convert`: bulk conversion of raw data, DDS and KTX2 textures, and EXR, PFM and HDR
//! images.

use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, bail};
use indicatif::{ProgressBar, ProgressStyle};

use super::Exit;
use crate::convert::dds::{self, Shape, Texels};
use crate::convert::exr_out::{self, ExrCompression};
use crate::convert::layout::{self, Order};
use crate::convert::{
    Container, Conversion, ConvertError, Report, Stats, blocks, image_in, ktx2, pfm, raw,
};
use crate::format::bc6h::{Bc6h, Quality};
use crate::format::{F32, Format, RoundOptions};
use crate::io::regular_len;
use crate::output_file::{InputIdentity, OutputFile, WRITE_BUFFER, refuse_stdout_is_input};
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
    /// `--raw`: write raw data whatever the output's name.
    pub raw: bool,
    /// `--compression`: how an .exr output is compressed.
    pub exr_compression: ExrCompression,
    /// `--to bc6h_*`: BC6H blocks are encoded from the f16 texels `to` (f16) gives, with
    /// the encoder's quality; a BC6H input of the same format is copied block for block.
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
        inputs: &[InputIdentity],
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
) -> anyhow::Result<Exit> {
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
    let inputs: Vec<InputIdentity> = match input {
        Some(i) => InputIdentity::path(i),
        None => InputIdentity::stdin(),
    }
    .into_iter()
    .collect();
    if output.is_none() {
        refuse_stdout_is_input(&inputs).map_err(ConvertError::from)?;
    }
    if let Some(problem) = crate::convert::kernels::Simd::setting_problem() {
        // A mistyped cap is worth a line, not a refusal: the result is the same bits.
        let _ = writeln!(io::stderr(), "d3dfloat: warning: {problem}");
    }
    let started = Instant::now();
    let in_container = container_of(input);
    let out_container = output_container(req, output)?;
    let mut input_bc6h = None;
    let (conversion, bytes_in, bytes_out, stats) = match in_container {
        Container::Raw => {
            if out_container != Container::Raw {
                bail!(
                    "a .{} output needs a .dds, .ktx2, .exr, .pfm or .hdr input (raw data has \
                     no size)",
                    out_container.name()
                );
            }
            if req.bc6h.is_some() {
                bail!(
                    "BC6H output needs a .dds, .ktx2, .exr, .pfm or .hdr input (raw data has no \
                     size)"
                );
            }
            convert_raw(req, input, output, &inputs)?
        }
        _ => {
            let path = input.expect("a container is a named file");
            let texture = load(req, in_container, path)?;
            input_bc6h = texture.from_bc6h;
            if let Some(from) = req.from
                && from != texture.texels.format
            {
                bail!(
                    "--from {} but the {} file {} holds {}",
                    from.name(),
                    in_container.name().to_ascii_uppercase(),
                    path.display(),
                    texture.texels.format.name()
                );
            }
            convert_texture(req, texture, out_container, input, output, &inputs)?
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
    Ok(Exit::Success)
}

/// The input as errors name it.
fn input_name(p: Option<&Path>) -> String {
    p.map_or("stdin".to_string(), path_text::display_path)
}

/// The output as errors name it.
fn output_name(p: Option<&Path>) -> String {
    p.map_or("stdout".to_string(), path_text::display_path)
}

fn display(p: Option<&Path>) -> String {
    p.map_or("-".to_string(), |p| p.display().to_string())
}

/// Raw little-endian elements, streamed in constant memory.
fn convert_raw(
    req: &ConvertRequest,
    input: Option<&Path>,
    output: Option<&Path>,
    inputs: &[InputIdentity],
) -> anyhow::Result<(Conversion, u64, u64, Stats)> {
    let Some(from) = req.from else {
        bail!("--from is needed for raw input (f32, f16, f11, f10, f64, r11g11b10, rgb9e5)");
    };
    let conv = Conversion::new(from, req.to, req.channels.unwrap_or(3), req.opts)?;
    let (mut source, size): (Box<dyn Read + Send>, Option<u64>) = match input {
        Some(p) => {
            let f = File::open(p).with_context(|| format!("opening {}", input_name(input)))?;
            let size = regular_len(&f);
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

/// A texture or image read into memory from any container, its images in the order the
/// container stores them.
struct Loaded {
    shape: Shape,
    texels: Texels,
    data: Vec<u8>,
    order: Order,
    /// What the input holds, as messages name it (`DDS R16G16B16A16_FLOAT`, `EXR RGBA`).
    holds: String,
    /// The BC6H format the input held.
    from_bc6h: Option<Bc6h>,
    /// Whether `data` holds that input's blocks as stored (they are copied to a BC6H
    /// output of the same format) rather than the f16 RGBA texels they decode to.
    stored_blocks: bool,
}

/// Reads a container input. A regular file's length settles a size mismatch before
/// anything is read; a FIFO or device is read only as far as its header describes.
fn load(req: &ConvertRequest, container: Container, path: &Path) -> anyhow::Result<Loaded> {
    let mut loaded = read_container(req, container, path)?;
    if let Some(b) = loaded.from_bc6h {
        // Blocks go on as they are only into the same BC6H format; anything else is
        // converted from the texels they decode to.
        if req.bc6h.map(|(to, _)| to) == Some(b) {
            if let Some(n) = req.channels {
                bail!(
                    "{}: --channels {n} with --to {}: the input's blocks are copied as they are \
                     (BC6H holds R, G and B)",
                    input_name(Some(path)),
                    b.name()
                );
            }
            return Ok(loaded);
        }
        loaded.data = blocks::decode(&loaded.shape, loaded.order, b, &loaded.data)
            .with_context(|| input_name(Some(path)))?;
        loaded.stored_blocks = false;
    }
    select_channels(req, &mut loaded).with_context(|| input_name(Some(path)))?;
    Ok(loaded)
}

fn read_container(
    req: &ConvertRequest,
    container: Container,
    path: &Path,
) -> anyhow::Result<Loaded> {
    let name = || input_name(Some(path));
    let open = || File::open(path).with_context(|| format!("opening {}", input_name(Some(path))));
    let image = |width, height, channels, data| Loaded {
        shape: Shape::image(width, height),
        texels: Texels {
            format: Format::Float(F32),
            channels,
        },
        data,
        order: Order::LayerMajor,
        holds: String::new(),
        from_bc6h: None,
        stored_blocks: false,
    };
    Ok(match container {
        Container::Dds => {
            let mut file = open()?;
            let len = regular_len(&file);
            let t = dds::read_stored(&mut file, len).with_context(name)?;
            let holds = match t.bc6h {
                Some(b) => format!("DDS {}", dds::bc6h_name(b)),
                None => format!("DDS {}", dds::dxgi_of(t.texels).map_or("", |(_, n)| n)),
            };
            Loaded {
                shape: t.shape,
                texels: t.texels,
                data: t.data,
                order: Order::LayerMajor,
                holds,
                from_bc6h: t.bc6h,
                stored_blocks: t.bc6h.is_some(),
            }
        }
        Container::Ktx2 => {
            let mut file = open()?;
            let len = regular_len(&file);
            let t = ktx2::read_stored(&mut file, len).with_context(name)?;
            let holds = match t.bc6h {
                Some(b) => format!("KTX2 {}", ktx2::vk_of_bc6h(b).1),
                None => format!("KTX2 {}", ktx2::vk_of(t.texels).map_or("", |(_, n)| n)),
            };
            Loaded {
                shape: t.shape,
                texels: t.texels,
                data: t.data,
                order: ktx2::Texture::ORDER,
                holds,
                from_bc6h: t.bc6h,
                stored_blocks: t.bc6h.is_some(),
            }
        }
        Container::Exr | Container::Hdr => {
            let img = if container == Container::Exr {
                image_in::read_exr(path, req.limits)
            } else {
                image_in::read_hdr(path, req.limits)
            }
            .with_context(name)?;
            let mut l = image(img.width, img.height, img.channels, img.data);
            l.holds = format!(
                "{} {}, read as f32",
                container.name().to_ascii_uppercase(),
                ["Y", "", "", "RGB", "RGBA"][img.channels]
            );
            l
        }
        Container::Pfm => {
            let mut file = open()?;
            let len = regular_len(&file);
            let img = pfm::read(&mut file, len, req.limits).with_context(name)?;
            let mut l = image(img.width, img.height, img.channels, img.data);
            l.holds = format!("PFM {}", if img.channels == 3 { "RGB" } else { "grey" });
            l
        }
        Container::Raw => unreachable!("raw input is streamed"),
    })
}

/// Applies `--channels` to a container's texels: floats kept as floats keep the first N
/// channels (fewer than the input has); floats packed take the first 3 or 4; packed words
/// unpack to N (in [`dds::plan`]). A count the input cannot give, or one between two
/// packed formats, is refused: never ignored.
fn select_channels(req: &ConvertRequest, t: &mut Loaded) -> anyhow::Result<()> {
    let Some(n) = req.channels else {
        return Ok(());
    };
    let packed = |f: Format| matches!(f, Format::R11G11B10 | Format::Rgb9e5);
    match (packed(t.texels.format), packed(req.to)) {
        (true, true) => bail!(
            "--channels {n} has no meaning between two packed formats ({} holds {} and \
             --to {} packs it again)",
            t.holds,
            t.texels.format.name(),
            req.to.name()
        ),
        (true, false) => Ok(()),
        (false, to_packed) => {
            if n > t.texels.channels || (to_packed && n < 3) {
                bail!(
                    "--channels {n} but the input ({}) holds {} channel(s) per texel{}",
                    t.holds,
                    t.texels.channels,
                    if to_packed {
                        format!(", and {} packs 3 or 4", req.to.name())
                    } else {
                        String::new()
                    }
                );
            }
            if n < t.texels.channels {
                let element = t.texels.format.element_bytes();
                layout::keep_channels(&mut t.data, element, t.texels.channels, n);
                t.texels.channels = n;
            }
            Ok(())
        }
    }
}

/// The container the output is written as: `--raw`, or its extension. An image file
/// convert does not write (`.png`, `.hdr`, ...) is refused rather than filled with raw
/// data under a name that promises a picture.
fn output_container(req: &ConvertRequest, output: Option<&Path>) -> anyhow::Result<Container> {
    if req.raw {
        return Ok(Container::Raw);
    }
    let Some(path) = output else {
        return Ok(Container::Raw);
    };
    if let Some(ext) = Container::unwritable_image(path) {
        bail!(
            "{}: convert does not write .{ext} files (it writes .dds, .ktx2, .exr, .pfm and raw \
             data; --raw writes raw data whatever the name)",
            output_name(output)
        );
    }
    Ok(Container::of_path(path))
}

/// A texture or image in memory, written as a container or as raw data. Each image is
/// converted as it is written, in the output's order ([`raw::convert_stream`] over runs
/// of images that lie together), so the conversion adds a constant amount of memory (under
/// 64 MiB) to the texture's own; an .exr output is encoded in memory.
fn convert_texture(
    req: &ConvertRequest,
    mut texture: Loaded,
    out_container: Container,
    input: Option<&Path>,
    output: Option<&Path>,
    inputs: &[InputIdentity],
) -> anyhow::Result<(Conversion, u64, u64, Stats)> {
    let (conv, target) = dds::plan(texture.texels, req.to, req.channels, req.opts)
        .with_context(|| input_name(input))?;
    if let Some((b, quality)) = req.bc6h {
        return write_bc6h(
            texture,
            (conv, target),
            (b, quality),
            out_container,
            (input, output),
            inputs,
        );
    }
    if let Some(why) = out_container.cannot_hold(&texture.shape, target, &texture.holds) {
        let hint = if out_container == Container::Pfm && target.channels == 4 {
            ": --channels 3 keeps RGB"
        } else {
            ""
        };
        bail!("{}: {why}{hint}", output_name(output));
    }
    let names = (input_name(input), output_name(output));
    let writing = |e| ConvertError::io(format!("writing {}", names.1), e);
    let bytes_in = texture.data.len() as u64;
    let bytes_out = conv.dst_len(texture.data.len()) as u64;
    let images = layout::images(&texture.shape, texture.texels, texture.order);
    let shape = texture.shape;
    let context = || format!("writing {}", output_name(output));
    let stats = match out_container {
        Container::Raw | Container::Dds => {
            let header = if out_container == Container::Dds {
                dds::build(&shape, target, bytes_out)
                    .and_then(|h| dds::header_bytes(&h))
                    .with_context(context)?
            } else {
                Vec::new()
            };
            let mut sink = Sink::open(output, Some(header.len() as u64 + bytes_out), inputs)?;
            sink.writer().write_all(&header).map_err(writing)?;
            let order = layout::reorder(&images, &shape, Order::LayerMajor);
            let stats = convert_images(&conv, &texture.data, &order, sink.writer(), &names)?;
            sink.finish()?;
            stats
        }
        Container::Ktx2 => {
            let plan = ktx2::build(&shape, target).with_context(context)?;
            let mut sink = Sink::open(output, Some(plan.file_bytes), inputs)?;
            sink.writer().write_all(&plan.head).map_err(writing)?;
            let order = layout::reorder(&images, &shape, Order::SmallestLevelFirst);
            let mut stats = Stats::default();
            for (level, padding) in plan.levels {
                sink.writer()
                    .write_all(&vec![0u8; padding])
                    .map_err(writing)?;
                let level_images: Vec<_> =
                    order.iter().filter(|i| i.level == level).copied().collect();
                stats.merge(&convert_images(
                    &conv,
                    &texture.data,
                    &level_images,
                    sink.writer(),
                    &names,
                )?);
            }
            sink.finish()?;
            stats
        }
        Container::Pfm => {
            // PFM rows run from the bottom up: the source rows are turned over in place
            // before they are converted, so the output streams as for any container.
            pfm::flip_rows(
                &mut texture.data,
                shape.width as usize * texture.texels.bytes(),
            );
            let header = pfm::header(shape.width, shape.height, target.channels);
            let mut sink = Sink::open(output, Some(header.len() as u64 + bytes_out), inputs)?;
            sink.writer().write_all(&header).map_err(writing)?;
            let stats = convert_images(&conv, &texture.data, &images, sink.writer(), &names)?;
            sink.finish()?;
            stats
        }
        Container::Exr => {
            let mut converted = vec![0u8; bytes_out as usize];
            let stats = raw::convert_parallel(&conv, &texture.data, &mut converted);
            let file = exr_out::encode(
                shape.width,
                shape.height,
                target.format,
                target.channels,
                &converted,
                req.exr_compression,
            )
            .with_context(context)?;
            drop(converted);
            let mut sink = Sink::open(output, Some(file.len() as u64), inputs)?;
            sink.writer().write_all(&file).map_err(writing)?;
            sink.finish()?;
            stats
        }
        Container::Hdr => unreachable!("refused as an output"),
    };
    Ok((conv, bytes_in, bytes_out, stats))
}

/// `--to bc6h_*`: a BC6H input of the same format copied block for block; any other
/// texture converted to f16 (counted as any conversion is), then encoded into BC6H blocks
/// image by image; the blocks written as DDS, KTX2 or raw blocks (in DDS order).
fn write_bc6h(
    texture: Loaded,
    (conv, target): (Conversion, Texels),
    (b, quality): (Bc6h, Quality),
    out_container: Container,
    (input, output): (Option<&Path>, Option<&Path>),
    inputs: &[InputIdentity],
) -> anyhow::Result<(Conversion, u64, u64, Stats)> {
    if let Some(why) = out_container.cannot_hold_bc6h(b) {
        bail!("{}: --to {why}", output_name(output));
    }
    let shape = texture.shape;
    let bytes_in = texture.data.len() as u64;
    let (blocks, stats) = if texture.stored_blocks {
        (texture.data, Stats::default())
    } else {
        if target.channels < 3 {
            bail!(
                "{}: BC6H holds R, G and B; the input ({}) gives {} channel(s) per texel",
                input_name(input),
                texture.holds,
                target.channels
            );
        }
        let mut halves = vec![0u8; conv.dst_len(texture.data.len())];
        let stats = raw::convert_parallel(&conv, &texture.data, &mut halves);
        drop(texture.data);
        let blocks = blocks::encode(&shape, texture.order, target.channels, &halves, b, quality);
        (blocks, stats)
    };
    let images = layout::block_images(&shape, texture.order);
    let names = (input_name(input), output_name(output));
    let writing = |e| ConvertError::io(format!("writing {}", names.1), e);
    let context = || format!("writing {}", names.1);
    let write_images = |sink: &mut Sink, list: &[layout::Image]| -> Result<(), ConvertError> {
        for i in list {
            sink.writer()
                .write_all(&blocks[i.offset..i.offset + i.len])
                .map_err(writing)?;
        }
        Ok(())
    };
    match out_container {
        Container::Ktx2 => {
            let plan = ktx2::build_bc6h(&shape, b).with_context(context)?;
            let mut sink = Sink::open(output, Some(plan.file_bytes), inputs)?;
            sink.writer().write_all(&plan.head).map_err(writing)?;
            let order = layout::reorder(&images, &shape, Order::SmallestLevelFirst);
            for (level, padding) in plan.levels {
                sink.writer()
                    .write_all(&vec![0u8; padding])
                    .map_err(writing)?;
                let level_images: Vec<_> =
                    order.iter().filter(|i| i.level == level).copied().collect();
                write_images(&mut sink, &level_images)?;
            }
            sink.finish()?;
        }
        _ => {
            let header = if out_container == Container::Dds {
                dds::build_bc6h(&shape, b, blocks.len() as u64)
                    .and_then(|h| dds::header_bytes(&h))
                    .with_context(context)?
            } else {
                Vec::new()
            };
            let size = header.len() as u64 + blocks.len() as u64;
            let mut sink = Sink::open(output, Some(size), inputs)?;
            sink.writer().write_all(&header).map_err(writing)?;
            write_images(
                &mut sink,
                &layout::reorder(&images, &shape, Order::LayerMajor),
            )?;
            sink.finish()?;
        }
    }
    Ok((conv, bytes_in, blocks.len() as u64, stats))
}

/// Converts `images` of `data` into `out`, in the order given; images that lie one after
/// the other in `data` go through one stream.
fn convert_images(
    conv: &Conversion,
    data: &[u8],
    images: &[layout::Image],
    out: &mut (dyn Write + Send),
    names: &(String, String),
) -> Result<Stats, ConvertError> {
    let mut stats = Stats::default();
    let mut i = 0;
    while i < images.len() {
        let start = images[i].offset;
        let mut end = start + images[i].len;
        i += 1;
        while i < images.len() && images[i].offset == end {
            end += images[i].len;
            i += 1;
        }
        stats.merge(&raw::convert_stream(
            conv,
            &mut &data[start..end],
            out,
            (&names.0, &names.1),
            &|_| {},
        )?);
    }
    Ok(stats)
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
