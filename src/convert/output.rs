//! Output files that appear whole or not at all: written to a temporary file beside the
//! target and renamed over it at the end, so an error (or an interrupt) never leaves a
//! half-written output behind.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

use super::ConvertError;

/// Fails when `output` is the same file as `input` (also through a link or another path).
pub fn refuse_same_file(input: &Path, output: &Path) -> Result<(), ConvertError> {
    let same = match (std::fs::metadata(input), std::fs::metadata(output)) {
        (Ok(a), Ok(b)) => same_file(&a, &b),
        _ => false,
    };
    if same {
        return Err(ConvertError::OutputIsInput(output.display().to_string()));
    }
    Ok(())
}

#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(_: &std::fs::Metadata, _: &std::fs::Metadata) -> bool {
    false
}

/// A file being written under a temporary name in the target's directory.
pub struct AtomicFile {
    writer: BufWriter<NamedTempFile>,
    path: PathBuf,
}

impl AtomicFile {
    pub fn create(path: &Path) -> Result<AtomicFile, ConvertError> {
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let tmp = tempfile::Builder::new()
            .prefix(".d3dfloat-")
            .suffix(".part")
            .tempfile_in(dir)
            .map_err(|e| ConvertError::io(format!("creating a file in {}", dir.display()), e))?;
        Ok(AtomicFile {
            writer: BufWriter::with_capacity(1 << 20, tmp),
            path: path.to_path_buf(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Flushes and renames the file into place. Dropping an `AtomicFile` without
    /// committing it deletes the temporary file. No fsync: the promise is about errors in
    /// this process (which never leave a partial output), not about power loss, and an
    /// fsync of a large output would cost more than the conversion.
    pub fn commit(self) -> Result<(), ConvertError> {
        let context = || format!("writing {}", self.path.display());
        let tmp = self
            .writer
            .into_inner()
            .map_err(|e| ConvertError::io(context(), e.into_error()))?;
        set_default_permissions(tmp.as_file());
        tmp.persist(&self.path)
            .map_err(|e| ConvertError::io(context(), e.error))?;
        Ok(())
    }
}

/// Temporary files are private (0600); an output is an ordinary file (0644).
#[cfg(unix)]
fn set_default_permissions(f: &File) {
    use std::os::unix::fs::PermissionsExt;
    let _ = f.set_permissions(std::fs::Permissions::from_mode(0o644));
}

#[cfg(not(unix))]
fn set_default_permissions(_: &File) {}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.writer.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.writer.write_all(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.writer.flush()
    }
}
