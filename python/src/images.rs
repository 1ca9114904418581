//! read_image, write_image and write_dds: the DDS, KTX2, OpenEXR, PFM and Radiance HDR
//! files `d3dfloat convert` reads and writes, through the same readers, limits and writers
//! (`convert::dds`, `convert::ktx2`, `convert::pfm`, `convert::image_in`,
//! `convert::image_out`): a file written here is the file `convert -o` writes.

use std::path::Path;

use d3dfloat_core::convert::dds::{self, Shape, Texels};
use d3dfloat_core::convert::exr_out::ExrCompression;
use d3dfloat_core::convert::image_in::{self, ImageLimits};
use d3dfloat_core::convert::image_out::{self, Stored};
use d3dfloat_core::convert::layout::{self, Order};
use d3dfloat_core::convert::raw::convert_parallel;
use d3dfloat_core::convert::{Container, Conversion, ConvertError, blocks, ktx2, pfm};
use d3dfloat_core::format::bc6h::{Bc6h, Quality};
use d3dfloat_core::format::{F16, F32, Format, RoundOptions, Rounding, UnknownChoice};
use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyPermissionError, PyValueError};
use pyo3::prelude::*;

use crate::args::{self, FloatArray};
use crate::codec::{convert_values, shaped, stats_dict};

/// A conversion error as the command line words it, naming the file: an operating-system
/// failure as `OSError` (its subclass for a missing file or a refused permission), a file
/// that cannot be read or built as asked as `ValueError`.
fn file_error(path: &Path, e: ConvertError) -> PyErr {
    let msg = format!("{}: {e}", path.display());
    match &e {
        ConvertError::Io { source, .. } => io_error(source, format!("{msg}: {source}")),
        ConvertError::PixelLimit { .. } => {
            PyValueError::new_err(format!("{msg} (raise it with max_pixels=)"))
        }
        _ => PyValueError::new_err(msg),
    }
}

fn io_error(e: &std::io::Error, msg: String) -> PyErr {
    match e.kind() {
        std::io::ErrorKind::NotFound => PyFileNotFoundError::new_err(msg),
        std::io::ErrorKind::PermissionDenied => PyPermissionError::new_err(msg),
        _ => PyOSError::new_err(msg),
    }
}

/// An open file and, for a regular file, its length (a FIFO or device is read only as far
/// as its header describes, as `convert` reads).
fn open(path: &Path) -> PyResult<(std::fs::File, Option<u64>)> {
    image_in::open(path).map_err(|e| match &e {
        ConvertError::Io { source, .. } => io_error(source, format!("{e}: {source}")),
        _ => file_error(path, e),
    })
}

/// The pixels of a DDS, KTX2, EXR, PFM or HDR file as a (height, width, channels) array.
#[pyfunction]
#[pyo3(signature = (path, max_pixels = image_in::DEFAULT_MAX_PIXELS))]
pub fn read_image<'py>(
    py: Python<'py>,
    path: std::path::PathBuf,
    max_pixels: u64,
) -> PyResult<Bound<'py, PyAny>> {
    let limits = ImageLimits { max_pixels };
    let container = Container::of_path(&path);
    match container {
        Container::Exr | Container::Hdr => {
            let image = py
                .detach(|| {
                    if container == Container::Exr {
                        image_in::read_exr(&path, limits)
                    } else {
                        image_in::read_hdr(&path, limits)
                    }
                })
                .map_err(|e| file_error(&path, e))?;
            let values: Vec<f32> = bytemuck::pod_collect_to_vec(&image.data);
            let shape = vec![image.height as usize, image.width as usize, 4];
            shaped(py, values, shape)
        }
        Container::Pfm => {
            let (mut file, len) = open(&path)?;
            let image = py
                .detach(|| pfm::read(&mut file, len, limits))
                .map_err(|e| file_error(&path, e))?;
            let values: Vec<f32> = bytemuck::pod_collect_to_vec(&image.data);
            let shape = vec![image.height as usize, image.width as usize, image.channels];
            shaped(py, values, shape)
        }
        Container::Dds | Container::Ktx2 => {
            // The header first, then only the data it describes; BC6H blocks decode to
            // f16 RGBA.
            let (mut file, len) = open(&path)?;
            let (shape, texels, data, order) = py
                .detach(|| {
                    if container == Container::Dds {
                        dds::read(&mut file, len)
                            .map(|t| (t.shape, t.texels, t.data, Order::LayerMajor))
                    } else {
                        ktx2::read(&mut file, len)
                            .map(|t| (t.shape, t.texels, t.data, ktx2::Texture::ORDER))
                    }
                })
                .map_err(|e| file_error(&path, e))?;
            top_image(py, &path, shape, texels, &data, order)
        }
        Container::Raw => Err(PyValueError::new_err(format!(
            "{}: read_image reads .dds, .ktx2, .exr, .pfm and .hdr files, chosen by the \
             name's extension",
            path.display()
        ))),
    }
}

/// The first layer's largest level (its first depth slice) of a texture, as an array:
/// float32 or float16 texels as stored, R11G11B10 and RGB9E5 unpacked exactly to float32
/// RGB.
fn top_image<'py>(
    py: Python<'py>,
    path: &Path,
    shape: Shape,
    texels: Texels,
    data: &[u8],
    order: Order,
) -> PyResult<Bound<'py, PyAny>> {
    let Shape { width, height, .. } = shape;
    let (w, h) = (width as usize, height as usize);
    let first = layout::images(&shape, texels, order)
        .into_iter()
        .find(|i| i.layer == 0 && i.level == 0)
        .expect("a texture has a first layer's largest level");
    let top = &data[first.offset..first.offset + w * h * texels.bytes()];
    match texels.format {
        Format::Float(f) if f == F32 => {
            let v: Vec<f32> = bytemuck::pod_collect_to_vec(top);
            shaped(py, v, vec![h, w, texels.channels])
        }
        Format::Float(f) if f == F16 => {
            let v: Vec<u16> = bytemuck::pod_collect_to_vec(top);
            let a = shaped(py, v, vec![h, w, texels.channels])?;
            a.call_method1("view", ("float16",))
        }
        packed => {
            // Packed words unpack exactly to RGB float32, as `convert --channels 3`.
            let opts = RoundOptions::new(Rounding::NearestEven);
            let conv = Conversion::new(packed, Format::Float(F32), 3, opts)
                .map_err(|e| file_error(path, e))?;
            let mut v = vec![0f32; w * h * 3];
            py.detach(|| convert_parallel(&conv, top, bytemuck::cast_slice_mut(&mut v)));
            shaped(py, v, vec![h, w, 3])
        }
    }
}

/// The height, width and channels of an image array, for `what` (the function's name).
fn image_shape(values: &FloatArray<'_>, what: &str) -> PyResult<(usize, usize, usize)> {
    let shape = values.shape();
    let (h, w, channels) = match shape[..] {
        [h, w] => (h, w, 1),
        [h, w, c] => (h, w, c),
        _ => {
            return Err(PyValueError::new_err(format!(
                "{what} takes a (height, width) or (height, width, channels) array, not \
                 shape {shape:?}"
            )));
        }
    };
    let too_big = |n: usize| u32::try_from(n).is_err();
    if h == 0 || w == 0 || too_big(h) || too_big(w) {
        return Err(PyValueError::new_err(format!(
            "{what}: an image is 1 to 4294967295 pixels wide and high, not {w}x{h}"
        )));
    }
    Ok((h, w, channels))
}

/// `compression=`: the EXR compression, as `convert --compression`.
fn exr_compression(name: &str) -> PyResult<ExrCompression> {
    name.parse()
        .map_err(|e: UnknownChoice| PyValueError::new_err(e.to_string()))
}

/// `quality=`: the BC6H encoder's effort, as `convert --quality`.
fn bc6h_quality(name: &str) -> PyResult<Quality> {
    name.parse()
        .map_err(|e: UnknownChoice| PyValueError::new_err(e.to_string()))
}

/// Writes a (height, width, channels) or (height, width) array of float32 or float64
/// values into the container its name's extension names (.dds, .ktx2, .exr, .pfm).
#[allow(clippy::too_many_arguments)]
#[pyfunction]
#[pyo3(signature = (path, array, fmt, rounding, saturate, counts, compression, quality))]
pub fn write_image<'py>(
    py: Python<'py>,
    path: std::path::PathBuf,
    array: &Bound<'py, PyAny>,
    fmt: &str,
    rounding: &str,
    saturate: bool,
    counts: bool,
    compression: &str,
    quality: &str,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let container = Container::of_path(&path);
    if matches!(container, Container::Raw | Container::Hdr) {
        return Err(PyValueError::new_err(format!(
            "{}: write_image writes .dds, .ktx2, .exr and .pfm files, chosen by the name's \
             extension",
            path.display()
        )));
    }
    let target = match Bc6h::from_name(fmt) {
        Some(b) => Target::Bc6h(b, bc6h_quality(quality)?),
        None => Target::Format(args::format(fmt)?),
    };
    let compression = exr_compression(compression)?;
    write(
        py,
        &path,
        container,
        array,
        target,
        rounding,
        saturate,
        counts,
        compression,
        "write_image",
    )
}

/// Writes a (height, width, channels) or (height, width) array of float32 or float64
/// values as a DDS texture of format `fmt`.
#[pyfunction]
#[pyo3(signature = (path, array, fmt, rounding, saturate, counts))]
pub fn write_dds<'py>(
    py: Python<'py>,
    path: std::path::PathBuf,
    array: &Bound<'py, PyAny>,
    fmt: &str,
    rounding: &str,
    saturate: bool,
    counts: bool,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    // A name that promises another kind of file is refused, not filled with a DDS.
    let other = match Container::of_path(&path) {
        Container::Dds | Container::Raw => Container::unwritable_image(&path),
        c => Some(c.name().to_string()),
    };
    if let Some(ext) = other {
        return Err(PyValueError::new_err(format!(
            "{}: write_dds writes a DDS texture, and the name says .{ext} (write_image \
             chooses the container by the extension)",
            path.display()
        )));
    }
    let target = Target::Format(args::format(fmt)?);
    write(
        py,
        &path,
        Container::Dds,
        array,
        target,
        rounding,
        saturate,
        counts,
        ExrCompression::Zip,
        "write_dds",
    )
}

/// What an array is written as: texels of a format, or BC6H blocks at a quality.
#[derive(Clone, Copy)]
enum Target {
    Format(Format),
    Bc6h(Bc6h, Quality),
}

/// Converts the array and writes it as `container`, by `convert -o`'s rules: a temporary
/// file renamed into place, modes kept, a device or FIFO written in place
/// (`d3dfloat_core::output_file`).
#[allow(clippy::too_many_arguments)]
fn write<'py>(
    py: Python<'py>,
    path: &Path,
    container: Container,
    array: &Bound<'py, PyAny>,
    target: Target,
    rounding: &str,
    saturate: bool,
    counts: bool,
    compression: ExrCompression,
    what: &str,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let opts = args::round_options(rounding, saturate)?;
    let values = FloatArray::extract(array, &format!("{what}'s array"))?;
    let (h, w, channels) = image_shape(&values, what)?;
    let src_texels = Texels {
        format: values.format(),
        channels,
    };
    let holds = format!("a {h}x{w} array of {channels} channel(s)");
    let to = match target {
        Target::Format(f) => f,
        Target::Bc6h(..) => Format::Float(F16),
    };
    let (conv, texels) = dds::plan(src_texels, to, None, opts).map_err(|e| file_error(path, e))?;
    // What the container cannot hold is refused before anything is converted or encoded.
    let shape = Shape::image(w as u32, h as u32);
    let refusal = match target {
        Target::Format(_) => container.cannot_hold(&shape, texels, &holds),
        Target::Bc6h(b, _) => container.cannot_hold_bc6h(b),
    };
    if let Some(why) = refusal {
        return Err(file_error(path, ConvertError::Container(why)));
    }
    if matches!(target, Target::Bc6h(..)) && channels < 3 {
        return Err(PyValueError::new_err(format!(
            "{}: BC6H holds R, G and B, and {what}'s array gives {channels} channel(s) per \
             pixel",
            path.display()
        )));
    }
    let (data, stats) = convert_values::<u8>(py, &conv, &values);
    let (stored, data) = match target {
        Target::Format(_) => (Stored::Texels(texels), data),
        Target::Bc6h(b, quality) => {
            let blocks = py
                .detach(|| blocks::encode(&shape, Order::LayerMajor, channels, &data, b, quality));
            (Stored::Bc6h(b), blocks)
        }
    };
    let file = py
        .detach(|| {
            image_out::file_bytes(
                container,
                (w as u32, h as u32),
                stored,
                data,
                &holds,
                compression,
            )
        })
        .map_err(|e| file_error(path, e))?;
    let write = || -> Result<(), d3dfloat_core::output_file::OutputError> {
        use std::io::Write;
        let mut f = d3dfloat_core::output_file::OutputFile::create(path, Some(file.len() as u64))?;
        f.write_all(&file)
            .map_err(|source| d3dfloat_core::output_file::OutputError::Io {
                context: format!("writing {}", path.display()),
                source,
            })?;
        f.commit()
    };
    write().map_err(|e| PyOSError::new_err(e.to_string()))?;
    if counts {
        Ok(Some(stats_dict(py, &stats)?.into_any()))
    } else {
        Ok(None)
    }
}
