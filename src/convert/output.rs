//! Where `convert` writes, and the rules that keep a run from destroying data:
//!
//! - A regular file (or a missing one) is written under a temporary name in its folder and
//!   renamed over it at the end, so an error or an interrupt never leaves half an output.
//! - A symlink is followed: the file it resolves to is the one replaced, and the link stays.
//! - Anything else that exists (a character or block device, a FIFO, a socket, or a link to
//!   one, such as `/dev/stdout`) is opened and written in place, streaming: renaming a file
//!   over `/dev/null` would turn it into a regular file, and over a FIFO would cut off its
//!   reader.
//! - An output that is the input file (same device and inode, however it is named, stdin
//!   included) is refused before anything is written.
//!
//! Temporary files in flight are registered with [`interrupts`], which removes them when
//! SIGINT, SIGTERM or SIGHUP ends the run.

use std::fs::{File, Metadata};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

use super::ConvertError;

/// Fails when `output` names the same regular file as the input whose metadata is `input`
/// (also through a link or another path). Devices and FIFOs are not files that a write can
/// destroy, so `-o /dev/null < /dev/null` is fine.
pub fn refuse_same_file(input: &Metadata, output: &Path) -> Result<(), ConvertError> {
    if let Ok(out) = std::fs::metadata(output)
        && out.is_file()
        && same_file(input, &out)
    {
        return Err(ConvertError::OutputIsInput(output.display().to_string()));
    }
    Ok(())
}

/// The metadata of the file behind standard input, when it has one.
#[cfg(unix)]
pub fn stdin_metadata() -> Option<Metadata> {
    use std::os::fd::AsFd;
    let fd = std::io::stdin().as_fd().try_clone_to_owned().ok()?;
    File::from(fd).metadata().ok()
}

#[cfg(not(unix))]
pub fn stdin_metadata() -> Option<Metadata> {
    None
}

#[cfg(unix)]
fn same_file(a: &Metadata, b: &Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(_: &Metadata, _: &Metadata) -> bool {
    false
}

/// Capacity of the buffer in front of an output. The raw converter writes whole chunks,
/// nearly always larger than this (77 KiB to a few MiB; only f64 texels packed on one
/// core give less), which `BufWriter` passes straight to the file; headers, tails and
/// those small chunks are gathered here. A buffer as large as a one-core chunk would copy
/// every chunk once more on its way out (docs/benchmarks.md).
pub const WRITE_BUFFER: usize = 64 << 10;

/// An output file being written: replaced whole at the end, or written in place.
pub enum OutputFile {
    /// A regular or missing file (or a link to one), written under a temporary name and
    /// renamed over it by [`OutputFile::commit`].
    Atomic(AtomicFile),
    /// A device, FIFO or socket (or a link to one), written in place as the data comes.
    InPlace {
        /// Buffered writer on the opened file.
        writer: BufWriter<File>,
        /// The path as given, for error messages.
        path: PathBuf,
    },
}

impl OutputFile {
    /// Opens `path` for writing by the rules at the top of this module. `size`, when
    /// known, is what will be written: a replaced file reserves that much disk first
    /// ([`reserve`]).
    pub fn create(path: &Path, size: Option<u64>) -> Result<OutputFile, ConvertError> {
        let error = |e| ConvertError::io(format!("writing {}", path.display()), e);
        match std::fs::metadata(path) {
            Ok(m) if m.is_dir() => Err(error(std::io::Error::from(
                std::io::ErrorKind::IsADirectory,
            ))),
            Ok(m) if !m.is_file() => {
                // No truncation: it means nothing to a device or a FIFO.
                let file = std::fs::OpenOptions::new()
                    .write(true)
                    .open(path)
                    .map_err(error)?;
                Ok(OutputFile::InPlace {
                    writer: BufWriter::with_capacity(WRITE_BUFFER, file),
                    path: path.to_path_buf(),
                })
            }
            _ => {
                let target = resolve_links(path).map_err(error)?;
                AtomicFile::create(&target, path, size).map(OutputFile::Atomic)
            }
        }
    }

    /// Flushes the data and, for a replaced file, renames it into place.
    pub fn commit(self) -> Result<(), ConvertError> {
        match self {
            OutputFile::Atomic(f) => f.commit(),
            OutputFile::InPlace { mut writer, path } => writer
                .flush()
                .map_err(|e| ConvertError::io(format!("writing {}", path.display()), e)),
        }
    }
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            OutputFile::Atomic(f) => f.writer.write(buf),
            OutputFile::InPlace { writer, .. } => writer.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        match self {
            OutputFile::Atomic(f) => f.writer.write_all(buf),
            OutputFile::InPlace { writer, .. } => writer.write_all(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            OutputFile::Atomic(f) => f.writer.flush(),
            OutputFile::InPlace { writer, .. } => writer.flush(),
        }
    }
}

/// Follows `path` through symlinks (also dangling ones, whose target is then created) to the
/// name of the file to replace. At most 40 links, as the kernel allows.
fn resolve_links(path: &Path) -> std::io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&current) {
            Ok(m) if m.file_type().is_symlink() => {
                let target = std::fs::read_link(&current)?;
                current = match current.parent() {
                    Some(dir) if target.is_relative() => dir.join(target),
                    _ => target,
                };
            }
            _ => return Ok(current),
        }
    }
    Err(std::io::Error::other("too many levels of symbolic links"))
}

/// A file being written under a temporary name in the target's directory.
pub struct AtomicFile {
    writer: BufWriter<File>,
    /// The temporary file; `None` once it has been renamed into place.
    temp: Option<tempfile::TempPath>,
    /// Where the file goes (the link's target when the output is a symlink).
    target: PathBuf,
    /// The output as the user named it, for messages.
    shown: PathBuf,
    /// Bytes of disk reserved at the start (0 when none were).
    reserved: u64,
}

impl AtomicFile {
    fn create(target: &Path, shown: &Path, size: Option<u64>) -> Result<AtomicFile, ConvertError> {
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let error = |e| ConvertError::io(format!("writing {}", shown.display()), e);
        // Creating and registering happen under the lock, so an interrupt either finds the
        // file registered or arrives before it exists.
        let (file, temp) = interrupts::with_registry(|files| {
            let tmp: NamedTempFile = tempfile::Builder::new()
                .prefix(".d3dfloat-")
                .suffix(".part")
                .tempfile_in(dir)
                .map_err(without_temp_path)?;
            let (file, temp) = tmp.into_parts();
            files.push(temp.to_path_buf());
            Ok((file, temp))
        })
        .map_err(error)?;
        // An error here drops `temp`, which deletes the file.
        let reserved = match size {
            Some(len) if reserve(&file, len).map_err(error)? => len,
            _ => 0,
        };
        Ok(AtomicFile {
            writer: BufWriter::with_capacity(WRITE_BUFFER, file),
            temp: Some(temp),
            target: target.to_path_buf(),
            shown: shown.to_path_buf(),
            reserved,
        })
    }

    /// Flushes and renames the file into place. Dropping an `AtomicFile` without
    /// committing it deletes the temporary file. No fsync: the promise is about errors and
    /// interrupts in this process (which never leave a partial output), not about power
    /// loss, and an fsync of a large output would cost more than the conversion.
    pub fn commit(mut self) -> Result<(), ConvertError> {
        let error = |e| ConvertError::io(format!("writing {}", self.shown.display()), e);
        self.writer.flush().map_err(error)?;
        release_unused(self.writer.get_ref(), self.reserved);
        set_default_permissions(self.writer.get_ref());
        let temp = self.temp.take().expect("committed once");
        interrupts::with_registry(|files| {
            let renamed = std::fs::rename(&temp, &self.target);
            files.retain(|p| p.as_path() != &*temp);
            // Once renamed, the name belongs to the output: nothing is left to delete.
            // Otherwise dropping `temp` deletes the temporary file.
            renamed.map(|()| drop(temp.keep()))
        })
        .map_err(error)
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if let Some(temp) = self.temp.take() {
            let _ = interrupts::with_registry(|files| {
                files.retain(|p| p.as_path() != &*temp);
                drop(temp);
                Ok(())
            });
        }
    }
}

/// `tempfile` adds the temporary file's name to its errors; the user never typed that name,
/// so keep the operating system's error alone.
fn without_temp_path(e: std::io::Error) -> std::io::Error {
    let text = e.to_string();
    match text.rsplit_once(" at path ") {
        Some((cause, _)) => std::io::Error::new(e.kind(), cause.to_string()),
        None => e,
    }
}

/// Reserves `len` bytes of disk for a new, empty file (`fallocate` with `KEEP_SIZE`: the
/// blocks are allocated, the size stays 0 until the data comes). Returns whether it did.
///
/// Two gains. A disk or quota too small for the output fails here, before the conversion
/// runs, rather than after most of it. And ext4 need not reserve and map blocks one page at
/// a time as the writes come (docs/benchmarks.md, round 7).
///
/// A file system that cannot (`EOPNOTSUPP`), or any other refusal but a full disk or
/// quota, leaves the file as it was: the reservation is only a hint.
#[cfg(target_os = "linux")]
pub fn reserve(file: &File, len: u64) -> std::io::Result<bool> {
    use rustix::fs::{FallocateFlags, fallocate};
    use rustix::io::Errno;
    if len == 0 {
        return Ok(false);
    }
    match fallocate(file, FallocateFlags::KEEP_SIZE, 0, len) {
        Ok(()) => Ok(true),
        Err(e) if e == Errno::NOSPC || e == Errno::DQUOT => Err(e.into()),
        Err(_) => Ok(false),
    }
}

/// Elsewhere nothing is reserved; the output is written as it comes.
#[cfg(not(target_os = "linux"))]
pub fn reserve(_: &File, _: u64) -> std::io::Result<bool> {
    Ok(false)
}

/// Gives back the reserved blocks past the end of a file that came out shorter than its
/// reservation (an input that shrank while it was read), so that it takes no more disk
/// than its size: a truncation to the size it already has, which ext4 and tmpfs take as
/// the cue to free what lies past the end (ext4 ignores a hole punched there). Best
/// effort, as the reservation was.
#[cfg(target_os = "linux")]
fn release_unused(file: &File, reserved: u64) {
    if let Ok(m) = file.metadata()
        && m.len() < reserved
    {
        let _ = file.set_len(m.len());
    }
}

#[cfg(not(target_os = "linux"))]
fn release_unused(_: &File, _: u64) {}

/// Temporary files are private (0600); an output is an ordinary file (0644).
#[cfg(unix)]
fn set_default_permissions(f: &File) {
    use std::os::unix::fs::PermissionsExt;
    let _ = f.set_permissions(std::fs::Permissions::from_mode(0o644));
}

#[cfg(not(unix))]
fn set_default_permissions(_: &File) {}

/// SIGINT, SIGTERM and SIGHUP during a conversion: remove the temporary files in flight and
/// exit with 128 + the signal number, as a shell reports a process killed by it.
pub mod interrupts {
    use std::path::PathBuf;
    use std::sync::{Mutex, MutexGuard};

    static TEMP_FILES: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

    fn registry() -> MutexGuard<'static, Vec<PathBuf>> {
        TEMP_FILES.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Runs `f` on the list of temporary files in flight while holding it, so the signal
    /// thread sees a temporary file either before it exists or after it is listed, and
    /// never one renamed into place.
    pub(super) fn with_registry<T>(
        f: impl FnOnce(&mut Vec<PathBuf>) -> std::io::Result<T>,
    ) -> std::io::Result<T> {
        f(&mut registry())
    }

    /// Installs the handler once per process. Until then, and without a temporary file in
    /// flight, these signals end the process as they always do.
    #[cfg(unix)]
    pub fn install() -> std::io::Result<()> {
        use std::sync::Once;
        static ONCE: Once = Once::new();
        let mut result = Ok(());
        ONCE.call_once(|| {
            use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
            match signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) {
                Ok(mut signals) => {
                    std::thread::spawn(move || {
                        if let Some(signal) = signals.forever().next() {
                            // Held until exit: no new temporary file can appear meanwhile.
                            let files = registry();
                            for f in files.iter() {
                                let _ = std::fs::remove_file(f);
                            }
                            std::process::exit(128 + signal);
                        }
                    });
                }
                Err(e) => result = Err(e),
            }
        });
        result
    }

    /// Elsewhere the temporary file is left to the operating system's own cleanup.
    #[cfg(not(unix))]
    pub fn install() -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;

    /// Bytes of disk a file holds.
    fn allocated(path: &Path) -> u64 {
        std::fs::metadata(path).unwrap().blocks() * 512
    }

    #[test]
    fn reserved_disk_is_held_while_writing_and_what_was_not_written_is_given_back() {
        const RESERVED: u64 = 4 << 20;
        let dir = tempfile::TempDir::new().unwrap();
        let path = dir.path().join("out.bin");
        let OutputFile::Atomic(mut file) = OutputFile::create(&path, Some(RESERVED)).unwrap()
        else {
            panic!("a missing file is replaced atomically");
        };
        // Every file system a test folder lives on here (ext4, tmpfs, xfs, btrfs) takes
        // fallocate; the reservation is held at once and the size stays 0.
        assert_eq!(file.reserved, RESERVED);
        let temp = file.temp.as_ref().unwrap().to_path_buf();
        assert!(allocated(&temp) >= RESERVED, "{} bytes", allocated(&temp));
        assert_eq!(std::fs::metadata(&temp).unwrap().len(), 0);
        // Less comes than was announced (an input that shrank): the rest is given back.
        file.writer.write_all(&[7u8; 64 << 10]).unwrap();
        OutputFile::Atomic(file).commit().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), vec![7u8; 64 << 10]);
        assert!(
            allocated(&path) < RESERVED / 2,
            "{} bytes",
            allocated(&path)
        );
    }

    #[test]
    fn nothing_is_reserved_for_an_empty_or_unknown_size() {
        let dir = tempfile::TempDir::new().unwrap();
        for size in [None, Some(0)] {
            let path = dir.path().join("out.bin");
            let OutputFile::Atomic(file) = OutputFile::create(&path, size).unwrap() else {
                panic!("a missing file is replaced atomically");
            };
            assert_eq!(file.reserved, 0);
            OutputFile::Atomic(file).commit().unwrap();
            assert_eq!(std::fs::metadata(&path).unwrap().len(), 0);
        }
    }
}
