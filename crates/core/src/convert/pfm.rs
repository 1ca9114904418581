//! Portable Float Map (`.pfm`) images: `PF` (RGB) or `Pf` (grey), the width and height,
//! and a scale whose sign gives the byte order (negative: little-endian), each followed by
//! white space, then 32-bit floats row by row from the bottom of the image up (the format
//! as Paul Debevec's HDRShop defined it, and as Netpbm, OpenImageIO and numpy users read
//! it). In memory rows run from the top, little-endian, as every other container here.

use std::io::Read;

use super::ConvertError;
use super::image_in::{ImageLimits, check_declared};
use crate::io::{MemoryReadError, read_at_most, read_full};

/// The most bytes a header may take: `PF`, two numbers and a scale need a few dozen.
const HEADER_LIMIT: usize = 256;

/// A PFM image: one (grey) or three (RGB) f32 channels a pixel.
pub struct PfmImage {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// 1 or 3.
    pub channels: usize,
    /// `width * height * channels` f32 values, little-endian, rows from the top.
    pub data: Vec<u8>,
}

fn container(msg: String) -> ConvertError {
    ConvertError::Container(msg)
}

/// Reverses the order of the rows of `row_bytes` bytes each, in place.
pub fn flip_rows(data: &mut [u8], row_bytes: usize) {
    let rows = data.len() / row_bytes.max(1);
    for i in 0..rows / 2 {
        let (top, bottom) = data.split_at_mut((rows - 1 - i) * row_bytes);
        top[i * row_bytes..(i + 1) * row_bytes].swap_with_slice(&mut bottom[..row_bytes]);
    }
}

/// The header of a little-endian PFM image.
pub fn header(width: u32, height: u32, channels: usize) -> Vec<u8> {
    let kind = if channels == 3 { "PF" } else { "Pf" };
    format!("{kind}\n{width} {height}\n-1.0\n").into_bytes()
}

/// Reads the header's four fields, one byte at a time (so nothing past the header is
/// taken from the stream), at most [`HEADER_LIMIT`] bytes.
fn read_fields(r: &mut dyn Read) -> Result<([String; 4], usize), ConvertError> {
    let mut fields: [String; 4] = Default::default();
    let mut taken = 0usize;
    let mut byte = [0u8; 1];
    for (i, field) in fields.iter_mut().enumerate() {
        loop {
            if taken >= HEADER_LIMIT {
                return Err(container(format!(
                    "not a readable PFM file: no header within its first {HEADER_LIMIT} bytes"
                )));
            }
            let n = read_full(r, &mut byte)
                .map_err(|e| ConvertError::io("reading the PFM header", e))?;
            if n == 0 {
                return Err(container(
                    "not a readable PFM file: it ends inside its header".into(),
                ));
            }
            taken += 1;
            let c = byte[0];
            if c.is_ascii_whitespace() {
                // The first field is the magic, at the very start; after the scale exactly
                // one white-space byte comes before the data.
                if !field.is_empty() {
                    break;
                }
                if i == 0 {
                    return Err(container(
                        "not a PFM file (it does not start with PF or Pf)".into(),
                    ));
                }
                continue;
            }
            if !c.is_ascii_graphic() {
                return Err(container(format!(
                    "not a readable PFM file: byte {c:#04x} in its header"
                )));
            }
            field.push(c as char);
        }
        if i == 0 && field != "PF" && field != "Pf" {
            return Err(container(
                "not a PFM file (it does not start with PF or Pf)".into(),
            ));
        }
    }
    Ok((fields, taken))
}

/// Reads a PFM image from `r`: the header (at most 256 bytes), its size checked against
/// `limits` and `file_len` (a regular file's size), then exactly the floats it declares
/// and one byte more to tell a longer stream, so a header that lies costs no more than the
/// file holds. Big-endian data is swapped and the rows are turned top side up.
pub fn read(
    r: &mut dyn Read,
    file_len: Option<u64>,
    limits: ImageLimits,
) -> Result<PfmImage, ConvertError> {
    let ([kind, w, h, scale], header_len) = read_fields(r)?;
    let number = |s: &str, what: &str| {
        s.parse::<u32>()
            .map_err(|_| container(format!("PFM header gives {what} '{s}', not a whole number")))
    };
    let (width, height) = (number(&w, "the width")?, number(&h, "the height")?);
    let scale: f64 = scale
        .parse()
        .ok()
        .filter(|s: &f64| s.is_finite() && *s != 0.0)
        .ok_or_else(|| {
            container(format!(
                "PFM header gives the scale '{scale}', not a non-zero number (its sign is the byte order)"
            ))
        })?;
    check_declared("PFM", width as u64, height as u64, limits)?;
    let channels = if kind == "PF" { 3 } else { 1 };
    let expected = width as u64 * height as u64 * channels as u64 * 4;
    let holds = |n: String| {
        container(format!(
            "PFM header describes {expected} bytes of floats ({width}x{height}, {channels} \
             channel(s)) but the file holds {n}"
        ))
    };
    if let Some(len) = file_len {
        let data_len = len.saturating_sub(header_len as u64);
        if data_len != expected {
            return Err(holds(data_len.to_string()));
        }
    }
    let mut data = Vec::new();
    let longer =
        read_at_most(r, &mut data, expected, file_len.map(|_| expected)).map_err(|e| match e {
            MemoryReadError::Io(source) => ConvertError::io("reading the PFM floats", source),
            MemoryReadError::OutOfMemory(n) => {
                container(format!("not enough memory for the PFM floats ({n} bytes)"))
            }
        })?;
    if longer {
        return Err(holds(format!("more ({} bytes at least)", expected + 1)));
    }
    if (data.len() as u64) < expected {
        return Err(holds(data.len().to_string()));
    }
    if scale > 0.0 {
        for v in data.chunks_exact_mut(4) {
            v.reverse();
        }
    }
    flip_rows(&mut data, width as usize * channels * 4);
    Ok(PfmImage {
        width,
        height,
        channels,
        data,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn floats(b: &[u8]) -> Vec<f32> {
        b.chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }

    #[test]
    fn rows_come_top_side_up_in_either_byte_order() {
        // A 2x2 grey image stored bottom row first: 3 4 / 1 2 from the top.
        let mut be = b"Pf\n2 2\n1.0\n".to_vec();
        let mut le = b"Pf 2\t2\n-0.5\n".to_vec();
        for v in [3f32, 4.0, 1.0, 2.0] {
            be.extend(v.to_be_bytes());
            le.extend(v.to_le_bytes());
        }
        for file in [be, le] {
            let img = read(&mut file.as_slice(), None, ImageLimits::default()).unwrap();
            assert_eq!((img.width, img.height, img.channels), (2, 2, 1));
            assert_eq!(floats(&img.data), [1.0, 2.0, 3.0, 4.0]);
        }
    }

    #[test]
    fn a_header_that_lies_is_refused() {
        let limits = ImageLimits::default();
        let cases: [(&[u8], &str); 5] = [
            (b"P6\n1 1\n255\n", "does not start"),
            (b"PF\n1 1\n0\n", "scale"),
            (b"PF\n100000 100000\n-1\n", "limit"),
            (b"PF\n2 2\n-1\n\0\0\0\0", "holds 4"),
            (b"PF\n-2 2\n-1\n", "whole number"),
        ];
        for (file, want) in cases {
            let err = read(&mut &file[..], None, limits)
                .err()
                .unwrap()
                .to_string();
            assert!(err.contains(want), "{err}");
        }
    }
}
