//! Reading streams in whole buffers, for the commands that stream raw data (`convert`,
//! `ulp-diff --files`).

use std::io::{self, Read};

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
