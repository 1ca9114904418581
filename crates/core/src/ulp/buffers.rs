//! Two raw buffers compared element by element, streaming in constant memory.

use std::io::{self, Read};

use super::{Layout, Sample, Summary, ValueLine};
use crate::format::Format;
use crate::format::packed::R11G11B10_CHANNELS;
use crate::io::{PageBuf, read_full};

/// Why two buffers could not be compared.
#[derive(Debug, thiserror::Error)]
pub enum BufferError {
    /// The two buffers have different lengths, so their elements cannot be paired.
    #[error("the files differ in size: expected has {expected}, actual has {actual}")]
    SizeMismatch {
        /// Length of the expected (A) buffer, read to its end or [`DRAIN_LIMIT`] past
        /// the other's end.
        expected: Size,
        /// Length of the actual (B) buffer, likewise.
        actual: Size,
    },
    #[error(
        "size is not a whole number of {element}-byte {format} elements: expected has {expected} bytes, actual has {actual} bytes"
    )]
    /// The buffers are the same length, but it is not a whole number of elements.
    PartialElement {
        /// Name of the element format (`f16`, `r11g11b10`, ...).
        format: &'static str,
        /// Bytes per element of that format.
        element: usize,
        /// Length of the expected buffer in bytes; equal to `actual`, since a length
        /// mismatch is reported first as [`BufferError::SizeMismatch`].
        expected: u64,
        /// Length of the actual buffer in bytes.
        actual: u64,
    },
    #[error(
        "element {index} of the {which} file has bits set above {format}'s {width} (0x{element:04x})"
    )]
    /// An element of a format narrower than its storage slot (f11 or f10 in 16 bits) has
    /// bits set above the format's width, so it is no pattern of that format.
    StrayBits {
        /// The buffer it is in: `expected` or `actual`.
        which: &'static str,
        /// Element number, counting from 0 at the start of the buffer.
        index: u64,
        /// The whole slot as read (little-endian), stray bits included.
        element: u64,
        /// Name of the element format.
        format: &'static str,
        /// The format's width in bits; every bit above it must be zero.
        width: u32,
    },
    /// Writing the list of elements over the limit failed (`--list`).
    #[error("writing the list: {0}")]
    List(#[source] io::Error),
    #[error("reading the {which} file: {source}")]
    /// Reading one of the buffers failed.
    Read {
        /// The buffer being read: `expected` or `actual`.
        which: &'static str,
        /// The operating system's error.
        source: io::Error,
    },
}

/// A stream's length as far as it was read: exact when it ended, a lower bound when it
/// was still going (`at least N bytes`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Size {
    /// Bytes read.
    pub bytes: u64,
    /// Whether the stream ended there.
    pub exact: bool,
}

impl std::fmt::Display for Size {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.exact {
            write!(f, "{} bytes", self.bytes)
        } else {
            write!(f, "at least {} bytes (still going)", self.bytes)
        }
    }
}

/// Bytes read from each stream per step. Small enough that both buffers stay in the L2
/// cache, so neither the kernel's copy into them nor the comparison goes out to main
/// memory: 64 KiB measured about twice as fast as 1 MiB for two 256 MiB files.
pub const CHUNK_BYTES: usize = 1 << 16;
/// Elements compared as one block by the equal-bytes fast path.
const BLOCK_ELEMENTS: usize = 64;

/// Compares two raw little-endian buffers element by element (packed words channel by
/// channel), streaming in [`CHUNK_BYTES`] steps with constant memory, into `summary`.
/// Returns the number of elements compared.
pub fn compare_streams(
    layout: &Layout,
    expected: impl Read,
    actual: impl Read,
    summary: &mut Summary,
) -> Result<u64, BufferError> {
    compare_streams_listing(layout, expected, actual, summary, &mut |_, _| Ok(()))
}

/// [`compare_streams`], handing `list` every comparison that differs (NaN against
/// anything included), in buffer order as it comes, with whether it goes over the
/// summary's limit (0 without one: every difference).
pub fn compare_streams_listing(
    layout: &Layout,
    mut expected: impl Read,
    mut actual: impl Read,
    summary: &mut Summary,
    list: &mut dyn FnMut(&Sample, bool) -> io::Result<()>,
) -> Result<u64, BufferError> {
    let element = layout.format.element_bytes();
    let mut buf_e = PageBuf::zeroed(CHUNK_BYTES);
    let mut buf_a = PageBuf::zeroed(CHUNK_BYTES);
    let mut total: u64 = 0;
    loop {
        let n_e = read_full(&mut expected, &mut buf_e).map_err(|source| BufferError::Read {
            which: "expected",
            source,
        })?;
        let n_a = read_full(&mut actual, &mut buf_a).map_err(|source| BufferError::Read {
            which: "actual",
            source,
        })?;
        if n_e != n_a {
            // The shorter stream has ended; the longer is read on only so far, so an
            // endless one (/dev/zero) against a file is an error at the file's end.
            let (more_e, ended_e) = drain(&mut expected, &mut buf_e, "expected")?;
            let (more_a, ended_a) = drain(&mut actual, &mut buf_a, "actual")?;
            let size = |n: usize, more: u64, ended: bool| Size {
                bytes: total + n as u64 + more,
                exact: ended,
            };
            return Err(BufferError::SizeMismatch {
                expected: size(n_e, more_e, ended_e),
                actual: size(n_a, more_a, ended_a),
            });
        }
        if n_e % element != 0 {
            let size = total + n_e as u64;
            return Err(BufferError::PartialElement {
                format: layout.format.name(),
                element,
                expected: size,
                actual: size,
            });
        }
        let first_index = total / element as u64;
        compare_chunk(
            layout,
            &buf_e[..n_e],
            &buf_a[..n_a],
            first_index,
            summary,
            list,
        )?;
        total += n_e as u64;
        if n_e < CHUNK_BYTES {
            return Ok(total / element as u64);
        }
    }
}

/// How far a stream is read past the point where the other one ended, to tell its size.
pub const DRAIN_LIMIT: u64 = 1 << 20;

/// Reads a stream on, to its end or [`DRAIN_LIMIT`] bytes: the bytes read and whether it
/// ended.
fn drain(
    r: &mut impl Read,
    buf: &mut [u8],
    which: &'static str,
) -> Result<(u64, bool), BufferError> {
    let mut n = 0u64;
    loop {
        let got = read_full(r, buf).map_err(|source| BufferError::Read { which, source })?;
        n += got as u64;
        if got < buf.len() {
            return Ok((n, true));
        }
        if n >= DRAIN_LIMIT {
            return Ok((n, false));
        }
    }
}

fn compare_chunk(
    layout: &Layout,
    expected: &[u8],
    actual: &[u8],
    first_index: u64,
    summary: &mut Summary,
    list: &mut dyn FnMut(&Sample, bool) -> io::Result<()>,
) -> Result<(), BufferError> {
    match layout.format.element_bytes() {
        2 => compare_chunk_of::<2>(layout, expected, actual, first_index, summary, list),
        4 => compare_chunk_of::<4>(layout, expected, actual, first_index, summary, list),
        _ => compare_chunk_of::<8>(layout, expected, actual, first_index, summary, list),
    }
}

#[inline(always)]
fn load<const N: usize>(bytes: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    word[..N].copy_from_slice(&bytes[..N]);
    u64::from_le_bytes(word)
}

/// Whether a block holds only NaN-free, in-range elements, so that equal bytes mean
/// distance 0 for every element. Written without early exits so that it vectorises.
#[inline(always)]
fn block_is_plain<const N: usize>(layout: &Layout, block: &[u8]) -> bool {
    match layout.format {
        Format::Float(_) => {
            let ValueLine::Float {
                sign_bit, infinity, ..
            } = *layout.line(0)
            else {
                unreachable!("float formats have float lines")
            };
            let valid = layout.element_mask();
            block.chunks_exact(N).fold(true, |ok, c| {
                let w = load::<N>(c);
                ok & (w & !valid == 0) & (w & !sign_bit & valid <= infinity)
            })
        }
        Format::R11G11B10 => block.chunks_exact(N).fold(true, |ok, c| {
            let w = load::<N>(c);
            ok & R11G11B10_CHANNELS
                .iter()
                .all(|(f, shift)| (w >> shift) & f.mask() <= f.infinity(false))
        }),
        Format::Rgb9e5 => true,
    }
}

fn compare_chunk_of<const N: usize>(
    layout: &Layout,
    expected: &[u8],
    actual: &[u8],
    first_index: u64,
    summary: &mut Summary,
    list: &mut dyn FnMut(&Sample, bool) -> io::Result<()>,
) -> Result<(), BufferError> {
    let channels = layout.channels();
    let valid = layout.element_mask();
    let block_bytes = N * BLOCK_ELEMENTS;
    let blocks = expected.chunks(block_bytes).zip(actual.chunks(block_bytes));
    for (block_no, (be, ba)) in blocks.enumerate() {
        if be == ba && block_is_plain::<N>(layout, be) {
            summary.add_equal((be.len() / N * channels) as u64);
            continue;
        }
        let base = first_index + (block_no * BLOCK_ELEMENTS) as u64;
        for (i, (ce, ca)) in be.chunks_exact(N).zip(ba.chunks_exact(N)).enumerate() {
            let index = base + i as u64;
            let (we, wa) = (load::<N>(ce), load::<N>(ca));
            for (which, w) in [("expected", we), ("actual", wa)] {
                if w & !valid != 0 {
                    let Format::Float(f) = layout.format else {
                        unreachable!("packed words fill their slot")
                    };
                    return Err(BufferError::StrayBits {
                        which,
                        index,
                        element: w,
                        format: f.name,
                        width: f.width(),
                    });
                }
            }
            for ch in 0..channels {
                let line = layout.line(ch);
                let (e, a) = (layout.channel_bits(we, ch), layout.channel_bits(wa, ch));
                if e == a && !line.is_nan(e) {
                    summary.add_equal(1);
                    continue;
                }
                let sample = Sample {
                    index,
                    channel: (channels > 1).then_some(ch),
                    a: e,
                    b: a,
                    distance: line.distance(e, a),
                    at: None,
                };
                let over_tolerance = summary.tolerance.is_some()
                    && summary.check_tolerance(line.value_f64(e), line.value_f64(a));
                list(&sample, summary.listed(&sample, over_tolerance))
                    .map_err(BufferError::List)?;
                summary.record(sample, line.is_nan(e) && line.is_nan(a));
            }
        }
    }
    Ok(())
}
