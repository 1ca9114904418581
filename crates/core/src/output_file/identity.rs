//! Which file a path or descriptor is, so that an output that is one of the inputs is
//! refused before anything is written.

use std::fs::{File, Metadata};
use std::io;
use std::path::Path;

use super::OutputError;
use crate::path_text;

/// Which file a descriptor or path is, for telling whether an output is an input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileId {
    dev: u64,
    ino: u64,
    kind: FileKind,
}

/// The kinds of file for which being both input and output is an error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FileKind {
    /// Writing it destroys what is read.
    Regular,
    /// A FIFO or pipe: what is written would be read back, or the run waits on itself.
    Pipe,
    /// Devices and sockets: reading and writing are independent.
    Other,
}

impl FileId {
    /// The file whose metadata this is.
    #[cfg(unix)]
    pub fn of_metadata(m: &Metadata) -> FileId {
        use std::os::unix::fs::{FileTypeExt, MetadataExt};
        let t = m.file_type();
        let kind = if t.is_file() {
            FileKind::Regular
        } else if t.is_fifo() {
            FileKind::Pipe
        } else {
            FileKind::Other
        };
        FileId {
            dev: m.dev(),
            ino: m.ino(),
            kind,
        }
    }

    /// Without device and inode numbers nothing is known to be the same file.
    #[cfg(not(unix))]
    pub fn of_metadata(_: &Metadata) -> FileId {
        FileId {
            dev: 0,
            ino: 0,
            kind: FileKind::Other,
        }
    }

    /// The file `path` names (through links), when it exists.
    pub fn of_path(path: &Path) -> Option<FileId> {
        std::fs::metadata(path)
            .ok()
            .map(|m| FileId::of_metadata(&m))
    }

    /// The file behind standard input, when it is open.
    pub fn of_stdin() -> Option<FileId> {
        of_handle(&io::stdin())
    }

    /// The file behind standard output, when it is open.
    pub fn of_stdout() -> Option<FileId> {
        of_handle(&io::stdout())
    }

    /// Whether writing to `self` would destroy or feed back into the input `other`.
    pub fn clashes(&self, other: &FileId) -> bool {
        self.dev == other.dev && self.ino == other.ino && self.kind != FileKind::Other
    }

    fn kind_name(&self) -> &'static str {
        match self.kind {
            FileKind::Pipe => "pipe",
            _ => "file",
        }
    }
}

#[cfg(unix)]
fn of_handle(handle: &impl std::os::fd::AsFd) -> Option<FileId> {
    let fd = handle.as_fd().try_clone_to_owned().ok()?;
    File::from(fd)
        .metadata()
        .ok()
        .map(|m| FileId::of_metadata(&m))
}

#[cfg(not(unix))]
fn of_handle<T>(_: &T) -> Option<FileId> {
    None
}

/// An input an output must not be: its identity and its name for messages.
#[derive(Clone, Debug)]
pub struct InputIdentity {
    /// Which file it is.
    pub id: FileId,
    /// As messages name it (`stdin` or the path typed).
    pub shown: String,
}

impl InputIdentity {
    /// The input file at `path` (`None` when it cannot be looked at: opening it will say why).
    pub fn path(path: &Path) -> Option<InputIdentity> {
        Some(InputIdentity {
            id: FileId::of_path(path)?,
            shown: path_text::display_path(path),
        })
    }

    /// Standard input, when it is open.
    pub fn stdin() -> Option<InputIdentity> {
        Some(InputIdentity {
            id: FileId::of_stdin()?,
            shown: "stdin".to_string(),
        })
    }
}

/// Fails when writing to `output` (named `shown`) would write into one of `inputs`.
pub(super) fn refuse_inputs(
    output: &FileId,
    shown: &str,
    inputs: &[InputIdentity],
) -> Result<(), OutputError> {
    match inputs.iter().find(|i| output.clashes(&i.id)) {
        Some(i) => Err(OutputError::IsInput {
            output: shown.to_string(),
            input: i.shown.clone(),
            kind: output.kind_name(),
        }),
        None => Ok(()),
    }
}

/// Fails when standard output is one of `inputs` (`convert in.f32 >> in.f32` would read
/// its own output back and grow without end; `1<> in.f32` would overwrite what it has yet
/// to read), as `cat` refuses: "input file is output file".
pub fn refuse_stdout_is_input(inputs: &[InputIdentity]) -> Result<(), OutputError> {
    match FileId::of_stdout() {
        Some(out) => refuse_inputs(&out, "stdout", inputs),
        None => Ok(()),
    }
}

/// Which file an output path will write: an existing file (through links, descriptors
/// included), or the place a new one will be created (its folder, through links, and its
/// name). `None` when the folder cannot be looked at (creating the output says why).
fn output_place(path: &Path) -> Option<Place> {
    if let Some(id) = FileId::of_path(path) {
        return Some(Place::Existing(id));
    }
    let target = match super::resolve(path).ok()? {
        super::Resolved::Path(p) => p,
        super::Resolved::Descriptor(_) => return None,
    };
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    Some(Place::New(
        std::fs::canonicalize(dir).ok()?.join(target.file_name()?),
    ))
}

/// Where an output goes, for telling two outputs of one run apart.
#[derive(Debug, PartialEq, Eq)]
enum Place {
    Existing(FileId),
    New(std::path::PathBuf),
}

/// Fails when two of one run's outputs (each named for messages with its option, such as
/// `--report same.out`) are the same file, however they are named (a link, `./`, a hard
/// link): the one renamed into place last would replace the other, or the two would mix.
/// A character device (`/dev/null`, a terminal) may take several.
pub fn refuse_same_file(outputs: &[(String, &Path)]) -> Result<(), OutputError> {
    let places: Vec<Option<Place>> = outputs.iter().map(|(_, p)| output_place(p)).collect();
    for (i, a) in places.iter().enumerate() {
        for (j, b) in places.iter().enumerate().skip(i + 1) {
            let same = match (a, b) {
                (Some(Place::Existing(x)), Some(Place::Existing(y))) => x.clashes(y),
                (Some(Place::New(x)), Some(Place::New(y))) => x == y,
                _ => false,
            };
            if same {
                return Err(OutputError::SameFile {
                    first: outputs[i].0.clone(),
                    second: outputs[j].0.clone(),
                });
            }
        }
    }
    Ok(())
}
