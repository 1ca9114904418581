//! Every file a command writes by name (`convert -o`, `probe --emit-log`, `op --violations`,
//! reports) goes through [`OutputFile`], so one set of rules keeps a run from destroying
//! data:
//!
//! - A regular file (or a missing one) is written under a temporary name in its folder
//!   (`.d3dfloat-XXXXXX.part`) and renamed over it at the end, so an error or an interrupt
//!   never leaves half an output. The file must be writable by whoever runs the command (as
//!   `cp` and the shell ask): a write-protected file is refused, not replaced. The
//!   replacement keeps an existing file's mode (and its owner where the system lets us);
//!   a new file is created through the umask, `0666 & !umask`, as the shell creates one.
//! - A symlink is followed: the file it resolves to is the one replaced, and the link stays.
//! - A link to an open descriptor (`/dev/stdout`, `/dev/fd/N`, `/proc/self/fd/N`) is written
//!   through that descriptor, in the mode the shell opened it (`>> log` keeps appending),
//!   never renamed over.
//! - Anything else that exists (a character or block device, a FIFO, a socket, or a link to
//!   one) is opened and written in place, streaming: renaming a file over `/dev/null` would
//!   turn it into a regular file, and over a FIFO would cut off its reader.
//! - An output that is one of the inputs (same device and inode, however it is named: a
//!   regular file, or a FIFO or pipe, stdin included) is refused before anything is written.
//!   Character devices may be both (`< /dev/null -o /dev/null`).
//!
//! Everything that can be refused is refused by [`OutputFile::create`], before the command
//! does its work. Temporary files in flight are registered with [`interrupts`], which
//! removes them when a signal ends the run.

use std::fs::{File, Metadata};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::path_text;

mod identity;
pub mod interrupts;
mod reserve;

use identity::refuse_inputs;
pub use identity::{FileId, InputIdentity, refuse_same_file, refuse_stdout_is_input};
pub use reserve::{RESERVE_STEP, reserve};
use reserve::{Reserving, release_unused};

/// Capacity of the buffer in front of an output. The raw converter writes whole chunks,
/// nearly always larger than this (77 KiB to a few MiB; only f64 texels packed on one
/// core give less), which `BufWriter` passes straight to the file; headers, tails and
/// those small chunks are gathered here. A buffer as large as a one-core chunk would copy
/// every chunk once more on its way out (docs/benchmarks.md).
pub const WRITE_BUFFER: usize = 64 << 10;

/// Why an output cannot be written. Messages name the path as the user typed it, never
/// a temporary file.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// The output is one of the inputs: writing it would destroy what is being read, or
    /// (a pipe) read back what is written.
    #[error(
        "refusing to write over the input {kind} {input}: {output} is that {kind} \
         (input file is output file)"
    )]
    IsInput {
        /// The output as shown (`stdout`, or the path typed).
        output: String,
        /// The input as shown (`stdin`, or the path typed).
        input: String,
        /// `file` or `pipe`.
        kind: &'static str,
    },
    /// Two outputs of one run are the same file: one would replace (or mix with) the other.
    #[error(
        "{first} and {second} are the same file: one output would be lost; name two \
         different files"
    )]
    SameFile {
        /// The first output as shown, with its option (`--report same.out`).
        first: String,
        /// The second one.
        second: String,
    },
    /// The cause is the error's source, so a `{:#}` chain names it once.
    #[error("{context}")]
    Io {
        /// What was being done, such as `writing out.f16`.
        context: String,
        /// The operating system's error.
        source: io::Error,
    },
}

impl OutputError {
    fn writing(shown: &str, source: io::Error) -> OutputError {
        OutputError::Io {
            context: format!("writing {shown}"),
            source,
        }
    }
}

/// An output file being written. Dropping it without [`OutputFile::commit`] removes the
/// temporary file of a replaced output.
pub struct OutputFile {
    inner: Inner,
    /// The output as messages name it.
    shown: String,
}

enum Inner {
    /// A regular or missing file (or a link to one), written under a temporary name.
    Replace(Box<Replacement>),
    /// A device, FIFO, socket or open descriptor, written in place as the data comes.
    InPlace(BufWriter<File>),
}

impl OutputFile {
    /// Opens `path` for writing by the rules at the top of this module. `size_hint`, when
    /// known, is what will be written: a replaced file checks the free disk for it and
    /// reserves it ahead of the data ([`RESERVE_STEP`] at a time).
    pub fn create(path: &Path, size_hint: Option<u64>) -> Result<OutputFile, OutputError> {
        OutputFile::create_apart(path, size_hint, &[])
    }

    /// [`OutputFile::create`], refusing an output that is one of `inputs`.
    pub fn create_apart(
        path: &Path,
        size_hint: Option<u64>,
        inputs: &[InputIdentity],
    ) -> Result<OutputFile, OutputError> {
        let shown = path_text::display_path(path);
        let error = |e| OutputError::writing(&shown, e);
        let inner = match resolve(path).map_err(error)? {
            Resolved::Descriptor(fd) => {
                let file = dup_descriptor(fd).map_err(error)?;
                let meta = file.metadata().map_err(error)?;
                refuse_inputs(&FileId::of_metadata(&meta), &shown, inputs)?;
                Inner::InPlace(BufWriter::with_capacity(WRITE_BUFFER, file))
            }
            Resolved::Path(target) => match std::fs::metadata(&target) {
                Ok(m) if m.is_dir() => return Err(error(io::ErrorKind::IsADirectory.into())),
                Ok(m) if !m.is_file() => {
                    refuse_inputs(&FileId::of_metadata(&m), &shown, inputs)?;
                    // No truncation: it means nothing to a device or a FIFO.
                    let file = std::fs::OpenOptions::new()
                        .write(true)
                        .open(&target)
                        .map_err(error)?;
                    Inner::InPlace(BufWriter::with_capacity(WRITE_BUFFER, file))
                }
                Ok(m) => {
                    refuse_inputs(&FileId::of_metadata(&m), &shown, inputs)?;
                    // What the user may not write is refused, not replaced: opening it for
                    // writing (without truncating) asks the system exactly that, root,
                    // read-only mounts and immutable files included.
                    drop(
                        std::fs::OpenOptions::new()
                            .write(true)
                            .open(&target)
                            .map_err(error)?,
                    );
                    Inner::Replace(Box::new(
                        Replacement::create(&target, Some(m), size_hint).map_err(error)?,
                    ))
                }
                Err(_) => Inner::Replace(Box::new(
                    Replacement::create(&target, None, size_hint).map_err(error)?,
                )),
            },
        };
        Ok(OutputFile { inner, shown })
    }

    /// The output as messages name it.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// Flushes the data and, for a replaced file, gives it the old file's mode (and owner)
    /// and renames it into place. No fsync: the promise is about errors and interrupts in
    /// this process (which never leave a partial output), not about power loss, and an
    /// fsync of a large output would cost more than the conversion.
    pub fn commit(self) -> Result<(), OutputError> {
        let error = |e| OutputError::writing(&self.shown, e);
        match self.inner {
            Inner::Replace(r) => (*r).commit().map_err(error),
            Inner::InPlace(mut w) => w.flush().map_err(error),
        }
    }
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.inner {
            Inner::Replace(r) => r.writer.write(buf),
            Inner::InPlace(w) => w.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match &mut self.inner {
            Inner::Replace(r) => r.writer.write_all(buf),
            Inner::InPlace(w) => w.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.inner {
            Inner::Replace(r) => r.writer.flush(),
            Inner::InPlace(w) => w.flush(),
        }
    }
}

/// Where an output path leads.
enum Resolved {
    /// An open descriptor of this process.
    Descriptor(i32),
    /// A file to replace or a device to open (the end of its links).
    Path(PathBuf),
}

/// Follows `path` through symlinks (also dangling ones, whose target is then created) to
/// the file to replace, or to the descriptor it names. At most 40 links, as the kernel
/// allows.
fn resolve(path: &Path) -> io::Result<Resolved> {
    let mut current = path.to_path_buf();
    for _ in 0..40 {
        // Before following: `/proc/self/fd/N` reads as a link to whatever the descriptor
        // holds (`pipe:[1234]`, a deleted file), which is not a path to open.
        if let Some(fd) = descriptor_named(&current) {
            return Ok(Resolved::Descriptor(fd));
        }
        match std::fs::symlink_metadata(&current) {
            Ok(m) if m.file_type().is_symlink() => {
                let target = std::fs::read_link(&current)?;
                current = match current.parent() {
                    Some(dir) if target.is_relative() => dir.join(target),
                    _ => target,
                };
            }
            _ => return Ok(Resolved::Path(current)),
        }
    }
    Err(io::Error::other("too many levels of symbolic links"))
}

/// The descriptor `path` names when it is an entry of this process's descriptor table
/// (`/proc/self/fd/N`, `/dev/fd/N`, `/proc/thread-self/fd/N`, `/proc/PID/fd/N`), however
/// its folder is reached.
#[cfg(target_os = "linux")]
fn descriptor_named(path: &Path) -> Option<i32> {
    let fd: i32 = path.file_name()?.to_str()?.parse().ok()?;
    let dir = std::fs::canonicalize(path.parent()?).ok()?;
    let own = Path::new("/proc").join(std::process::id().to_string());
    let table = dir == own.join("fd")
        || (dir.file_name()? == "fd" && dir.parent()?.parent()? == own.join("task"));
    table.then_some(fd)
}

/// Elsewhere `/dev/fd/N` is a device that the system itself makes a copy of the descriptor.
#[cfg(not(target_os = "linux"))]
fn descriptor_named(_: &Path) -> Option<i32> {
    None
}

/// The descriptors the process was started with, once [`note_inherited_descriptors`] has
/// listed them.
static INHERITED: std::sync::OnceLock<Vec<i32>> = std::sync::OnceLock::new();

/// Lists the descriptors this process was started with; `main` calls it before opening
/// anything. Only those are outputs a path such as `/dev/fd/3` may name: without the list,
/// `-o /dev/fd/3` with no descriptor 3 from the shell would reach whatever file the run
/// itself had opened as 3 by then (its input). Linux only; elsewhere it does nothing.
pub fn note_inherited_descriptors() {
    #[cfg(target_os = "linux")]
    {
        let Ok(dir) = std::fs::read_dir("/proc/self/fd") else {
            return;
        };
        let listed: Vec<i32> = dir
            .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
            .collect();
        // The listing's own descriptor was among them; it is closed now.
        let open = listed
            .into_iter()
            .filter(|fd| std::fs::symlink_metadata(format!("/proc/self/fd/{fd}")).is_ok())
            .collect();
        let _ = INHERITED.set(open);
    }
}

/// A copy of descriptor `fd` of this process: the same open file, offset and mode
/// (`O_APPEND` included). A descriptor the process was not started with is "not open"
/// (EBADF) to the user, who cannot have meant it.
#[cfg(unix)]
fn dup_descriptor(fd: i32) -> io::Result<File> {
    use std::os::fd::{AsFd, BorrowedFd};
    let ebadf = || io::Error::from_raw_os_error(9);
    if INHERITED.get().is_some_and(|fds| !fds.contains(&fd)) {
        return Err(ebadf());
    }
    let owned = match fd {
        0 => io::stdin().as_fd().try_clone_to_owned()?,
        1 => io::stdout().as_fd().try_clone_to_owned()?,
        2 => io::stderr().as_fd().try_clone_to_owned()?,
        _ => {
            if std::fs::symlink_metadata(format!("/proc/self/fd/{fd}")).is_err() {
                return Err(ebadf());
            }
            // SAFETY: the descriptor table lists `fd`, so it is open; this process closes
            // only descriptors it opened itself, and the borrow ends with the copy made
            // from it on this line.
            unsafe { BorrowedFd::borrow_raw(fd) }.try_clone_to_owned()?
        }
    };
    Ok(File::from(owned))
}

#[cfg(not(unix))]
fn dup_descriptor(_: i32) -> io::Result<File> {
    Err(io::ErrorKind::Unsupported.into())
}

/// A file being written under a temporary name in the target's directory.
struct Replacement {
    writer: BufWriter<Reserving>,
    /// The temporary file; `None` once it has been renamed into place.
    temp: Option<tempfile::TempPath>,
    /// Where the file goes (the link's target when the output is a symlink).
    target: PathBuf,
    /// The file it replaces, whose mode and owner the replacement takes.
    replaces: Option<Metadata>,
}

impl Replacement {
    fn create(
        target: &Path,
        replaces: Option<Metadata>,
        size_hint: Option<u64>,
    ) -> io::Result<Replacement> {
        interrupts::install()?;
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        // A new file is created as the shell would (0666 through the umask); one that
        // replaces a file stays private (0600) until it takes that file's mode at the end.
        let mode = if replaces.is_some() { 0o600 } else { 0o666 };
        // Creating and registering happen under the lock, so an interrupt either finds the
        // file registered or arrives before it exists.
        let (file, temp) = interrupts::with_registry(|files| {
            let mut builder = tempfile::Builder::new();
            builder.prefix(".d3dfloat-").suffix(".part");
            set_create_mode(&mut builder, mode);
            let (file, temp) = builder
                .tempfile_in(dir)
                .map_err(without_temp_path)?
                .into_parts();
            files.push(temp.to_path_buf());
            Ok((file, temp))
        })?;
        // An error from here on drops `temp`, which deletes the file.
        let mut reserving = Reserving {
            file,
            written: 0,
            reserved: 0,
            goal: size_hint.unwrap_or(0),
            step: RESERVE_STEP,
        };
        reserving.check_free_disk()?;
        reserving.reserve_for(0)?;
        Ok(Replacement {
            writer: BufWriter::with_capacity(WRITE_BUFFER, reserving),
            temp: Some(temp),
            target: target.to_path_buf(),
            replaces,
        })
    }

    fn commit(mut self) -> io::Result<()> {
        self.writer.flush()?;
        let file = &self.writer.get_ref().file;
        release_unused(file, self.writer.get_ref().reserved);
        if let Some(old) = &self.replaces {
            take_mode_and_owner(file, old);
        }
        let temp = self.temp.take().expect("committed once");
        interrupts::with_registry(|files| {
            let renamed = std::fs::rename(&temp, &self.target);
            files.retain(|p| p.as_path() != &*temp);
            // Once renamed, the name belongs to the output: nothing is left to delete.
            // Otherwise dropping `temp` deletes the temporary file.
            renamed.map(|()| drop(temp.keep()))
        })
    }
}

impl Drop for Replacement {
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

#[cfg(unix)]
fn set_create_mode(builder: &mut tempfile::Builder, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    builder.permissions(std::fs::Permissions::from_mode(mode));
}

#[cfg(not(unix))]
fn set_create_mode(_: &mut tempfile::Builder, _: u32) {}

/// The replaced file's owner (where the system lets us: root, or a group we are in) and
/// its mode. Set-user-ID and set-group-ID bits are kept only with the owner they came
/// with, as `cp -p` does. Best effort: the data is written either way.
#[cfg(unix)]
fn take_mode_and_owner(file: &File, old: &Metadata) {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let owned = std::os::unix::fs::fchown(file, Some(old.uid()), Some(old.gid())).is_ok()
        || std::os::unix::fs::fchown(file, None, Some(old.gid())).is_ok() && {
            file.metadata().is_ok_and(|m| m.uid() == old.uid())
        };
    let mut mode = old.mode() & 0o7777;
    if !owned {
        mode &= !0o6000;
    }
    let _ = file.set_permissions(std::fs::Permissions::from_mode(mode));
}

#[cfg(not(unix))]
fn take_mode_and_owner(file: &File, old: &Metadata) {
    let _ = file.set_permissions(old.permissions());
}

/// `tempfile` adds the temporary file's name to its errors; the user never typed that name,
/// so keep the operating system's error alone.
fn without_temp_path(e: io::Error) -> io::Error {
    let text = e.to_string();
    match text.rsplit_once(" at path ") {
        Some((cause, _)) => io::Error::new(e.kind(), cause.to_string()),
        None => e,
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::os::unix::fs::{MetadataExt, PermissionsExt};

    /// Bytes of disk a file holds.
    fn allocated(path: &Path) -> u64 {
        std::fs::metadata(path).unwrap().blocks() * 512
    }

    fn replacement(out: &mut OutputFile) -> &mut Replacement {
        match &mut out.inner {
            Inner::Replace(r) => r,
            Inner::InPlace(_) => panic!("a missing or regular file is replaced"),
        }
    }

    #[test]
    fn disk_is_reserved_a_step_ahead_of_the_data_and_the_rest_given_back() {
        const STEP: u64 = 1 << 20;
        let dir = tempfile::TempDir::new().unwrap();
        let path = dir.path().join("out.bin");
        let mut out = OutputFile::create(&path, Some(8 * STEP)).unwrap();
        let r = replacement(&mut out);
        let temp = r.temp.as_ref().unwrap().to_path_buf();
        // Every file system a test folder lives on here (ext4, tmpfs, xfs, btrfs) takes
        // fallocate. The first step (64 MiB) covers the whole 8 MiB at once.
        assert_eq!(r.writer.get_ref().reserved, 8 * STEP);
        drop(out);
        assert!(!temp.exists(), "dropped without commit: removed");

        // With a small step, the reservation follows the data.
        let mut out = OutputFile::create(&path, Some(8 * STEP)).unwrap();
        let r = replacement(&mut out);
        let temp = r.temp.as_ref().unwrap().to_path_buf();
        let reserving = r.writer.get_mut();
        reserving.step = STEP;
        reserving.reserved = 0;
        reserving.file.set_len(0).unwrap(); // give back the first 64 MiB step
        let data = vec![7u8; (STEP + STEP / 2) as usize];
        reserving.write_all(&data).unwrap();
        assert_eq!(reserving.reserved, STEP + STEP / 2 + STEP);
        let held = allocated(&temp);
        assert!((2 * STEP..4 * STEP).contains(&held), "{held} bytes");
        // Less comes than was announced (an input that shrank): the rest is given back.
        out.commit().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), data);
        assert!(allocated(&path) < 2 * STEP, "{} bytes", allocated(&path));
    }

    #[test]
    fn nothing_is_reserved_for_an_empty_or_unknown_size() {
        let dir = tempfile::TempDir::new().unwrap();
        for size in [None, Some(0)] {
            let path = dir.path().join("out.bin");
            let mut out = OutputFile::create(&path, size).unwrap();
            assert_eq!(replacement(&mut out).writer.get_ref().reserved, 0);
            out.commit().unwrap();
            assert_eq!(std::fs::metadata(&path).unwrap().len(), 0);
        }
    }

    #[test]
    fn a_replaced_file_keeps_its_mode() {
        let dir = tempfile::TempDir::new().unwrap();
        let path = dir.path().join("out.bin");
        for mode in [0o600, 0o640, 0o755] {
            std::fs::write(&path, b"old").unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
            let mut out = OutputFile::create(&path, None).unwrap();
            out.write_all(b"new").unwrap();
            out.commit().unwrap();
            assert_eq!(std::fs::read(&path).unwrap(), b"new");
            let got = std::fs::metadata(&path).unwrap().mode() & 0o7777;
            assert_eq!(got, mode, "{got:o} for {mode:o}");
        }
    }

    #[test]
    fn descriptor_tables_are_recognised_however_they_are_reached() {
        assert_eq!(descriptor_named(Path::new("/proc/self/fd/1")), Some(1));
        assert_eq!(descriptor_named(Path::new("/dev/fd/2")), Some(2));
        assert_eq!(
            descriptor_named(Path::new("/proc/thread-self/fd/0")),
            Some(0)
        );
        let own = format!("/proc/{}/fd/1", std::process::id());
        assert_eq!(descriptor_named(Path::new(&own)), Some(1));
        assert_eq!(descriptor_named(Path::new("/proc/1/fd/1")), None);
        assert_eq!(descriptor_named(Path::new("/tmp/1")), None);
        assert!(matches!(
            resolve(Path::new("/dev/stdout")).unwrap(),
            Resolved::Descriptor(1)
        ));
    }
}
