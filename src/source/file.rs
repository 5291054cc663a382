//! A local file read by offset (the CLI's and the native tests' source): only the bytes asked
//! for are read, and every byte handed out is counted.

use std::fs::File;
#[cfg(not(any(unix, windows)))]
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use super::{ByteSource, SourceError};

/// A regular file opened for reading by range.
#[derive(Debug)]
pub struct FileSource {
    file: File,
    size: u64,
    /// Bytes handed out by [`ByteSource::read`] so far.
    pub bytes_read: u64,
    /// Reads made so far.
    pub reads: u32,
}

impl FileSource {
    /// Opens `path`. Errors: it cannot be opened, or is not a regular file (a FIFO or a
    /// device cannot be read by offset; a directory is not a model), in the system's words.
    pub fn open(path: &Path) -> Result<FileSource, std::io::Error> {
        // The type first, by stat: opening a FIFO would wait for a writer.
        let meta = std::fs::metadata(path)?;
        if meta.is_dir() {
            return Err(std::io::Error::other("a directory, not a model file"));
        }
        if !meta.is_file() {
            return Err(std::io::Error::other(
                "not a regular file: weightpeek reads a file by offset (only the header); save a stream to a file first",
            ));
        }
        let file = File::open(path)?;
        let meta = file.metadata()?;
        Ok(FileSource {
            file,
            size: meta.len(),
            bytes_read: 0,
            reads: 0,
        })
    }

    /// A second reader of the same open file, for another thread (reads are positioned, so
    /// the two never move each other's place); its counters start at 0.
    pub fn try_clone(&self) -> Result<FileSource, std::io::Error> {
        Ok(FileSource {
            file: self.file.try_clone()?,
            size: self.size,
            bytes_read: 0,
            reads: 0,
        })
    }
}

/// Reads `buf.len()` bytes at `offset` without using the file's shared position.
#[cfg(unix)]
fn read_at(file: &File, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

/// Reads `buf.len()` bytes at `offset` (Windows: `seek_read`, which moves the position, but a
/// read never relies on it).
#[cfg(windows)]
fn read_at(file: &File, offset: u64, mut buf: &mut [u8]) -> std::io::Result<()> {
    use std::os::windows::fs::FileExt;
    let mut at = offset;
    while !buf.is_empty() {
        match file.seek_read(buf, at)? {
            0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            n => {
                buf = &mut buf[n..];
                at += n as u64;
            }
        }
    }
    Ok(())
}

/// Elsewhere: seek then read (one reader per file handle).
#[cfg(not(any(unix, windows)))]
fn read_at(mut file: &File, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
    file.seek(SeekFrom::Start(offset))?;
    file.read_exact(buf)
}

impl ByteSource for FileSource {
    fn size(&self) -> u64 {
        self.size
    }

    async fn read(&mut self, offset: u64, len: u64) -> Result<Vec<u8>, SourceError> {
        let past = || SourceError::OutOfBounds {
            offset,
            len,
            size: self.size,
        };
        if offset.checked_add(len).is_none_or(|end| end > self.size) {
            return Err(past());
        }
        let n = usize::try_from(len).map_err(|_| past())?;
        let mut buf = Vec::new();
        buf.try_reserve_exact(n).map_err(|_| past())?;
        buf.resize(n, 0);
        read_at(&self.file, offset, &mut buf).map_err(|e| SourceError::Io {
            offset,
            len,
            cause: e.to_string(),
        })?;
        self.bytes_read = self.bytes_read.saturating_add(len);
        self.reads = self.reads.saturating_add(1);
        Ok(buf)
    }
}
