//! Reading streams in whole buffers, for the commands that stream raw data (`convert`,
//! `ulp-diff --files`).

use std::io::{self, Read};
use std::ops::{Deref, DerefMut};

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
}
