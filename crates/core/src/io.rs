//! Reading streams in whole buffers, for the commands that stream raw data (`convert`,
//! `ulp-diff --files`).

use std::io::{self, Read};
use std::ops::{Deref, DerefMut};

/// A regular file's length, for a size hint or a check that it did not change while read;
/// `None` for devices, FIFOs and the like, which tell theirs only at the end.
pub fn regular_len(file: &std::fs::File) -> Option<u64> {
    file.metadata()
        .ok()
        .filter(|m| m.is_file())
        .map(|m| m.len())
}

/// Where [`PageBuf`] starts its bytes: a page, so that every load a kernel makes from it
/// and every copy Linux makes into or out of it is aligned.
const PAGE: usize = 4096;

/// A zeroed byte buffer whose first byte is on a 4 KiB boundary, for the chunks that
/// `read` fills and `write` empties. A large `Vec<u8>` starts 16 bytes past a page (the
/// allocator's header in front of its own mapping), and Linux copies from the page cache
/// into such a buffer much slower than into an aligned one (docs/benchmarks.md, round 6).
pub struct PageBuf {
    store: Vec<u8>,
    start: usize,
    len: usize,
}

impl PageBuf {
    /// `len` zero bytes, starting on a page boundary.
    pub fn zeroed(len: usize) -> PageBuf {
        let store = vec![0u8; len + PAGE];
        // At run time `align_offset` on bytes always finds the offset (it is below PAGE);
        // `min` keeps the slice in bounds whatever it returns.
        let start = store.as_ptr().align_offset(PAGE).min(PAGE);
        PageBuf { store, start, len }
    }
}

impl Deref for PageBuf {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.store[self.start..self.start + self.len]
    }
}

impl DerefMut for PageBuf {
    fn deref_mut(&mut self) -> &mut [u8] {
        &mut self.store[self.start..self.start + self.len]
    }
}

/// Reads until `buf` is full or the stream ends, retrying interrupted reads; returns the
/// bytes read, fewer than `buf.len()` only at the end of the stream.
pub fn read_full<R: Read + ?Sized>(r: &mut R, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match r.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// Why [`read_at_most`] or [`zeroed_vec`] gave up.
#[derive(Debug, thiserror::Error)]
pub enum MemoryReadError {
    /// The stream failed; the operating system's error.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// The system refused memory for a buffer of this many bytes.
    #[error("not enough memory for {0} bytes")]
    OutOfMemory(usize),
}

/// A vector of `len` zero bytes, or [`MemoryReadError::OutOfMemory`] where the system
/// refuses the memory: a buffer sized from a file's header must not abort the process
/// when a memory limit (`ulimit -v`) is lower than the file needs.
pub fn zeroed_vec(len: usize) -> Result<Vec<u8>, MemoryReadError> {
    let mut v = Vec::new();
    v.try_reserve_exact(len)
        .map_err(|_| MemoryReadError::OutOfMemory(len))?;
    v.resize(len, 0);
    Ok(v)
}

/// The most [`read_at_most`] asks of one read.
const READ_STEP: usize = 1 << 20;

/// Appends to `buf` what `r` holds, up to `limit` more bytes, and returns whether the
/// stream held more than that: then one byte past the limit was read to tell, and it is
/// kept at the end of `buf` (so a caller that reads on has lost nothing). Memory grows
/// with the bytes that arrive, never with the limit alone, so a header that claims
/// gigabytes costs nothing until the gigabytes come; `size_hint` (a regular file's
/// length) reserves that much at once instead of doubling towards it. Every reservation
/// is fallible ([`MemoryReadError::OutOfMemory`]).
pub fn read_at_most<R: Read + ?Sized>(
    r: &mut R,
    buf: &mut Vec<u8>,
    limit: u64,
    size_hint: Option<u64>,
) -> Result<bool, MemoryReadError> {
    let start = buf.len();
    // The most bytes this call may append: the limit and the one byte that shows excess.
    let most = limit.saturating_add(1);
    let reserve = |buf: &mut Vec<u8>, extra: u64| -> Result<(), MemoryReadError> {
        let extra = usize::try_from(extra).unwrap_or(usize::MAX);
        buf.try_reserve_exact(extra)
            .map_err(|_| MemoryReadError::OutOfMemory(buf.len().saturating_add(extra)))
    };
    if let Some(hint) = size_hint {
        reserve(buf, hint.min(most))?;
    }
    loop {
        let appended = (buf.len() - start) as u64;
        if appended >= most {
            return Ok(true);
        }
        if buf.len() == buf.capacity() {
            // Double what is there (at least 64 KiB), never past the most this may take;
            // past a size hint, only a little, to see the end of the file.
            let grow = match size_hint {
                Some(_) => 1 << 16,
                None => (buf.len() as u64).max(1 << 16),
            };
            reserve(buf, grow.min(most - appended))?;
        }
        // Each read fills at most 1 MiB, so the zeroes written ahead of it stay within
        // 1 MiB of the data: capacity never read into is never touched.
        let room = (buf.capacity() - buf.len())
            .min(usize::try_from(most - appended).unwrap_or(usize::MAX))
            .min(READ_STEP);
        let filled = buf.len();
        buf.resize(filled + room, 0);
        match r.read(&mut buf[filled..]) {
            Ok(0) => {
                buf.truncate(filled);
                return Ok(false);
            }
            Ok(n) => buf.truncate(filled + n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => buf.truncate(filled),
            Err(e) => {
                buf.truncate(filled);
                return Err(e.into());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_buffers_start_on_a_page_and_hold_their_length() {
        for len in [0, 1, 4095, 4096, 3 << 19] {
            let mut buf = PageBuf::zeroed(len);
            assert_eq!(buf.len(), len);
            assert_eq!(buf.as_ptr() as usize % PAGE, 0, "{len} bytes");
            assert!(buf.iter().all(|&b| b == 0));
            buf.iter_mut().for_each(|b| *b = 7);
            assert!(buf.iter().all(|&b| b == 7));
        }
    }

    /// Hands out at most three bytes per read, with an interruption before each.
    struct Trickle<'a> {
        data: &'a [u8],
        interrupt: bool,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.interrupt = !self.interrupt;
            if self.interrupt {
                return Err(io::ErrorKind::Interrupted.into());
            }
            let n = buf.len().min(3).min(self.data.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    #[test]
    fn fills_across_short_and_interrupted_reads() {
        let mut r = Trickle {
            data: b"0123456789",
            interrupt: false,
        };
        let mut buf = [0u8; 8];
        assert_eq!(read_full(&mut r, &mut buf).unwrap(), 8);
        assert_eq!(&buf, b"01234567");
        assert_eq!(read_full(&mut r, &mut buf).unwrap(), 2);
        assert_eq!(&buf[..2], b"89");
        assert_eq!(read_full(&mut r, &mut buf).unwrap(), 0);
    }

    #[test]
    fn reads_at_most_the_limit_and_tells_excess() {
        for (data, limit, hint) in [
            (&b"0123456789"[..], 10, None),
            (b"0123456789", 9, None),
            (b"0123456789", 0, Some(10)),
            (b"0123456789", 100, Some(3)),
            (b"", 5, None),
        ] {
            let mut r = Trickle {
                data,
                interrupt: false,
            };
            let mut buf = b"head".to_vec();
            let more = read_at_most(&mut r, &mut buf, limit, hint).unwrap();
            let kept = data.len().min(limit as usize + 1);
            assert_eq!(more, data.len() as u64 > limit, "{data:?} {limit}");
            assert_eq!(&buf[..4], b"head");
            assert_eq!(&buf[4..], &data[..kept], "{data:?} {limit}");
        }
    }

    #[test]
    fn an_endless_stream_costs_only_the_limit() {
        let mut buf = Vec::new();
        let more = read_at_most(&mut io::repeat(7), &mut buf, 100_000, None).unwrap();
        assert!(more);
        assert_eq!(buf.len(), 100_001);
        assert!(buf.capacity() <= 200_002, "{}", buf.capacity());
    }

    #[test]
    fn memory_the_system_refuses_is_an_error() {
        assert!(matches!(
            zeroed_vec(usize::MAX / 2),
            Err(MemoryReadError::OutOfMemory(_))
        ));
        let mut buf = Vec::new();
        let err = read_at_most(&mut io::empty(), &mut buf, u64::MAX, Some(u64::MAX / 2));
        assert!(matches!(err, Err(MemoryReadError::OutOfMemory(_))));
    }
}
