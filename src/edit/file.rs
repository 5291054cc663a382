//! Editing a GGUF file on disk (native only): read its header (only the header), write the new
//! header to a temporary file beside the output, stream the data section after it with
//! `std::io::copy` from the original's data offset (never the whole file in memory), then
//! rename the temporary file to the output.

use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::write::Plan;
use crate::format::{Format, Model};
use crate::source::file::FileSource;
use crate::source::{block_on_ready, read_model, ReadPolicy};

/// Why the edited file could not be written.
#[derive(Debug)]
pub enum FileError {
    /// The output is the input (the same path, or another name of the same file): writing it
    /// would destroy the data being copied.
    SameFile {
        /// The output as given.
        output: PathBuf,
    },
    /// Reading the input or writing the output failed.
    Io {
        /// What was being done (`reading`, `writing`, `renaming to`).
        what: &'static str,
        /// The file concerned.
        path: PathBuf,
        /// The system's error.
        error: std::io::Error,
    },
    /// The input changed size while it was copied (another program writing it).
    Changed {
        /// The input.
        path: PathBuf,
    },
}

impl std::fmt::Display for FileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FileError::SameFile { output } => write!(
                f,
                "{}: the output is the input file; write to another file",
                output.display()
            ),
            FileError::Io { what, path, error } => {
                write!(f, "{what} {}: {error}", path.display())
            }
            FileError::Changed { path } => write!(
                f,
                "{}: the file changed while its data section was copied",
                path.display()
            ),
        }
    }
}

impl std::error::Error for FileError {}

/// Why the header of a file to edit could not be read.
#[derive(Debug)]
pub enum HeaderError {
    /// The file could not be opened: the system's error.
    Open(std::io::Error),
    /// The header could not be read or parsed (the format layer's error, with field and offset).
    Read(crate::format::Error),
    /// The file is a model of another format: only GGUF headers are edited.
    NotGguf(Format),
}

impl std::fmt::Display for HeaderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HeaderError::Open(e) => write!(f, "{e}"),
            HeaderError::Read(e) => write!(f, "{e}"),
            HeaderError::NotGguf(format) => write!(
                f,
                "a {} file, not GGUF: only GGUF headers can be edited",
                format.name()
            ),
        }
    }
}

impl std::error::Error for HeaderError {}

/// Reads the header of the GGUF file at `path` (only as many bytes as the header needs), as
/// one file (never merged with the other parts of a split set).
///
/// Errors: the file cannot be opened, its header is damaged, or it is not a GGUF file
/// ([`HeaderError`]).
pub fn read_header(path: &Path) -> Result<Model, HeaderError> {
    let mut src = FileSource::open(path).map_err(HeaderError::Open)?;
    let (m, _) =
        block_on_ready(read_model(&mut src, &ReadPolicy::LOCAL)).map_err(HeaderError::Read)?;
    if m.format != Format::Gguf {
        return Err(HeaderError::NotGguf(m.format));
    }
    Ok(m)
}

/// Whether `a` and `b` name the same file: the same canonical path, or (on Unix) the same
/// device and inode (a hard link). A `b` that does not exist yet is compared by its parent's
/// canonical path and its name.
pub fn same_file(a: &Path, b: &Path) -> bool {
    let canon = |p: &Path| -> Option<PathBuf> {
        p.canonicalize().ok().or_else(|| {
            let parent = p
                .parent()
                .filter(|q| !q.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            Some(parent.canonicalize().ok()?.join(p.file_name()?))
        })
    };
    if canon(a).is_some_and(|x| Some(x) == canon(b)) {
        return true;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
            return x.dev() == y.dev() && x.ino() == y.ino();
        }
    }
    false
}

/// Writes `plan.header` and then the input's bytes from `plan.data_offset` to its end to
/// `output` (through a temporary file beside it, renamed at the end, so a failure leaves no
/// half-written output). Returns the bytes written.
pub fn write_edited(input: &Path, output: &Path, plan: &Plan) -> Result<u64, FileError> {
    if same_file(input, output) {
        return Err(FileError::SameFile {
            output: output.to_path_buf(),
        });
    }
    let io = |what, path: &Path| {
        let path = path.to_path_buf();
        move |error| FileError::Io { what, path, error }
    };
    let mut src = File::open(input).map_err(io("reading", input))?;
    let size = src.metadata().map_err(io("reading", input))?.len();
    if size != plan.data_offset.saturating_add(plan.data_len) && plan.data_len > 0 {
        return Err(FileError::Changed {
            path: input.to_path_buf(),
        });
    }
    let mut tmp_name = output.file_name().unwrap_or_default().to_os_string();
    tmp_name.push(".weightpeek-partial");
    let tmp = output.with_file_name(tmp_name);
    let written = (|| -> Result<u64, FileError> {
        let file = File::create(&tmp).map_err(io("writing", &tmp))?;
        let mut out = BufWriter::with_capacity(1 << 20, file);
        out.write_all(&plan.header).map_err(io("writing", &tmp))?;
        src.seek(SeekFrom::Start(plan.data_offset))
            .map_err(io("reading", input))?;
        let copied = std::io::copy(&mut (&mut src).take(plan.data_len), &mut out)
            .map_err(io("writing", &tmp))?;
        if copied != plan.data_len {
            return Err(FileError::Changed {
                path: input.to_path_buf(),
            });
        }
        let file = out.into_inner().map_err(|e| FileError::Io {
            what: "writing",
            path: tmp.clone(),
            error: e.into_error(),
        })?;
        file.sync_all().map_err(io("writing", &tmp))?;
        Ok(plan.header.len() as u64 + copied)
    })();
    match written {
        Ok(n) => {
            std::fs::rename(&tmp, output).map_err(io("renaming to", output))?;
            Ok(n)
        }
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e)
        }
    }
}
