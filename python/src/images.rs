//! read_image and write_dds: the DDS, OpenEXR and Radiance HDR files `d3dfloat convert`
//! reads and writes, through the same readers, limits and DDS writer
//! (`convert::dds`, `convert::image_in`).

use std::path::Path;

use d3dfloat::convert::dds::{self, Shape, Texels};
use d3dfloat::convert::image_in::{self, ImageLimits};
use d3dfloat::convert::raw::convert_parallel;
use d3dfloat::convert::{Conversion, ConvertError};
use d3dfloat::format::{F16, F32, Format, RoundOptions, Rounding};
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

/// Where an image's layout is decided: its extension, as `convert` decides it.
fn extension(path: &Path) -> String {
    path.extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase()
}

/// The pixels of a DDS, EXR or HDR file as a (height, width, channels) array.
#[pyfunction]
#[pyo3(signature = (path, max_pixels = image_in::DEFAULT_MAX_PIXELS))]
pub fn read_image<'py>(
    py: Python<'py>,
    path: std::path::PathBuf,
    max_pixels: u64,
) -> PyResult<Bound<'py, PyAny>> {
    let limits = ImageLimits { max_pixels };
    let open = |p: &Path| {
        std::fs::File::open(p).map_err(|e| io_error(&e, format!("opening {}: {e}", p.display())))
    };
    match extension(&path).as_str() {
        "exr" | "hdr" => {
            let image = py
                .detach(|| {
                    if extension(&path) == "exr" {
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
        "dds" => {
            // The header first, then only the data it describes (as `convert` reads).
            let mut file = open(&path)?;
            let len = file
                .metadata()
                .ok()
                .filter(|m| m.is_file())
                .map(|m| m.len());
            let texture = dds::read(&mut file, len).map_err(|e| file_error(&path, e))?;
            let Shape { width, height, .. } = texture.shape;
            let (w, h) = (width as usize, height as usize);
            let texels = texture.texels;
            // The first layer's largest level comes first in the data.
            let top = &texture.data[..w * h * texels.bytes()];
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
                        .map_err(|e| file_error(&path, e))?;
                    let mut v = vec![0f32; w * h * 3];
                    py.detach(|| convert_parallel(&conv, top, bytemuck::cast_slice_mut(&mut v)));
                    shaped(py, v, vec![h, w, 3])
                }
            }
        }
        other => Err(PyValueError::new_err(format!(
            "{}: read_image reads .dds, .exr and .hdr files, not '.{other}'",
            path.display()
        ))),
    }
}

/// Writes a (height, width, channels) or (height, width) array of float32 or float64
/// values as a DDS texture of format `fmt`.
#[pyfunction]
#[pyo3(signature = (path, array, fmt, rounding = "rne", saturate = false, counts = false))]
pub fn write_dds<'py>(
    py: Python<'py>,
    path: std::path::PathBuf,
    array: &Bound<'py, PyAny>,
    fmt: &str,
    rounding: &str,
    saturate: bool,
    counts: bool,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let to = args::format(fmt)?;
    let opts = args::round_options(rounding, saturate)?;
    let values = FloatArray::extract(array, "write_dds's array")?;
    let shape = values.shape();
    let (h, w, channels) = match shape[..] {
        [h, w] => (h, w, 1),
        [h, w, c] => (h, w, c),
        _ => {
            return Err(PyValueError::new_err(format!(
                "write_dds takes a (height, width) or (height, width, channels) array, not \
                 shape {shape:?}"
            )));
        }
    };
    let too_big = |n: usize| u32::try_from(n).is_err();
    if h == 0 || w == 0 || too_big(h) || too_big(w) {
        return Err(PyValueError::new_err(format!(
            "write_dds: a DDS texture is 1 to 4294967295 texels wide and high, not {w}x{h}"
        )));
    }
    let src_texels = Texels {
        format: values.format(),
        channels,
    };
    let (conv, target) = dds::plan(src_texels, to, None, opts).map_err(|e| file_error(&path, e))?;
    let (data, stats) = convert_values::<u8>(py, &conv, &values);
    let shape = Shape::image(w as u32, h as u32);
    let header = dds::build(&shape, target, data.len() as u64)
        .and_then(|d| dds::header_bytes(&d))
        .map_err(|e| file_error(&path, e))?;
    // By `convert -o`'s rules: a temporary file renamed into place, modes kept, a device or
    // FIFO written in place (d3dfloat::output_file).
    let write = || -> Result<(), d3dfloat::output_file::OutputError> {
        use std::io::Write;
        let mut f = d3dfloat::output_file::OutputFile::create(
            &path,
            Some((header.len() + data.len()) as u64),
        )?;
        let context = || format!("writing {}", path.display());
        f.write_all(&header)
            .and_then(|()| f.write_all(&data))
            .map_err(|source| d3dfloat::output_file::OutputError::Io {
                context: context(),
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
