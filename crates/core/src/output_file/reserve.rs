//! Disk reserved ahead of a replaced file's data, a step at a time, so that a full disk
//! shows early and a killed run leaves a small temporary file.

use std::fs::File;
use std::io::{self, Write};

/// Disk reserved ahead of the data, at most, in a replaced file: a run killed by SIGKILL
/// (which no handler sees) leaves its temporary file holding at most this much more than
/// it had written.
pub const RESERVE_STEP: u64 = 64 << 20;

/// The temporary file under its buffer, reserving disk ahead of the data as it comes.
pub(super) struct Reserving {
    pub(super) file: File,
    /// Bytes written so far.
    pub(super) written: u64,
    /// Bytes of disk reserved from the start of the file.
    pub(super) reserved: u64,
    /// The size announced; nothing is reserved past it.
    pub(super) goal: u64,
    /// How far ahead of the data the reservation runs.
    pub(super) step: u64,
}

impl Reserving {
    /// Fails with "No space left on device" when the file system has less free space than
    /// the whole output needs, so a disk too small fails at once rather than after most of
    /// the work. A quota is met by the first reservation, or by a write.
    #[cfg(target_os = "linux")]
    pub(super) fn check_free_disk(&self) -> io::Result<()> {
        if let Ok(fs) = rustix::fs::fstatvfs(&self.file)
            && (fs.f_bavail as u128) * (fs.f_frsize as u128) < self.goal as u128
        {
            return Err(rustix::io::Errno::NOSPC.into());
        }
        Ok(())
    }

    #[cfg(not(target_os = "linux"))]
    pub(super) fn check_free_disk(&self) -> io::Result<()> {
        Ok(())
    }

    /// Before `len` more bytes are written: when they would pass the reservation, reserves
    /// up to [`Reserving::step`] bytes past them (never past the goal). Two gains over
    /// writing as it comes: a quota or disk that fills up fails at once rather than after
    /// a page at a time, and ext4 allocates in large extents (docs/benchmarks.md, round 7).
    /// A file system that cannot (`EOPNOTSUPP`), or any refusal but a full disk or quota,
    /// stops the reservations: they are only a hint.
    pub(super) fn reserve_for(&mut self, len: usize) -> io::Result<()> {
        let end = self.written + len as u64;
        if self.reserved >= self.goal || (end <= self.reserved && self.reserved > 0) {
            return Ok(());
        }
        let upto = (end.max(self.reserved) + self.step).min(self.goal);
        match reserve(&self.file, self.reserved, upto - self.reserved) {
            Ok(true) => self.reserved = upto,
            Ok(false) => self.goal = self.reserved,
            Err(e) => return Err(e),
        }
        Ok(())
    }
}

impl Write for Reserving {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.reserve_for(buf.len())?;
        let n = self.file.write(buf)?;
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

/// Reserves `len` bytes of disk at `offset` (`fallocate` with `KEEP_SIZE`: the blocks are
/// allocated, the size stays where the data is). Returns whether it did.
#[cfg(target_os = "linux")]
pub fn reserve(file: &File, offset: u64, len: u64) -> io::Result<bool> {
    use rustix::fs::{FallocateFlags, fallocate};
    use rustix::io::Errno;
    if len == 0 {
        return Ok(false);
    }
    match fallocate(file, FallocateFlags::KEEP_SIZE, offset, len) {
        Ok(()) => Ok(true),
        Err(e) if e == Errno::NOSPC || e == Errno::DQUOT => Err(e.into()),
        Err(_) => Ok(false),
    }
}

/// Elsewhere nothing is reserved; the output is written as it comes.
#[cfg(not(target_os = "linux"))]
pub fn reserve(_: &File, _: u64, _: u64) -> io::Result<bool> {
    Ok(false)
}

/// Gives back the reserved blocks past the end of a file that came out shorter than its
/// reservation (an input that shrank while it was read), so that it takes no more disk
/// than its size: a truncation to the size it already has, which ext4 and tmpfs take as
/// the cue to free what lies past the end (ext4 ignores a hole punched there). Best
/// effort, as the reservation was.
#[cfg(target_os = "linux")]
pub(super) fn release_unused(file: &File, reserved: u64) {
    if let Ok(m) = file.metadata()
        && m.len() < reserved
    {
        let _ = file.set_len(m.len());
    }
}

#[cfg(not(target_os = "linux"))]
pub(super) fn release_unused(_: &File, _: u64) {}
