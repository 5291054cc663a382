//! The one error type of the format parsers: what failed, where (byte offset) and why.

use std::fmt;
use std::sync::Arc;

/// A parse failure. `field` names what was being read (for example
/// `metadata[4] "tokenizer.ggml.merges" value`), `offset` is the absolute byte offset in the
/// file where that field starts, and `kind` says why it failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// What was being read, in the format's own terms.
    pub field: String,
    /// Absolute byte offset in the file where the failing field starts.
    pub offset: u64,
    /// Why it failed.
    pub kind: ErrorKind,
}

/// Why a parse failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorKind {
    /// The field runs past the end of the file: it needs bytes up to `needed_end`, the file has
    /// `file_size` bytes.
    Truncated {
        /// The end offset the field needs.
        needed_end: u64,
        /// The file's size.
        file_size: u64,
    },
    /// The bytes are not a model file this tool reads; the text names what they look like.
    NotAModel(String),
    /// A GGUF version this parser does not know (it reads 1, 2 and 3).
    UnsupportedVersion(u32),
    /// A GGUF metadata value type id outside 0..=12.
    UnknownValueType(u32),
    /// A count or length from the file that cannot fit in the bytes that remain.
    CountTooLarge {
        /// The count as read.
        count: u64,
        /// What is counted (`tensors`, `metadata pairs`, `array elements`).
        what: &'static str,
        /// The most the remaining bytes could hold.
        max: u64,
    },
    /// Arithmetic on values from the file overflowed 64 bits.
    Overflow(&'static str),
    /// Metadata arrays nested deeper than [`crate::format::value::MAX_ARRAY_DEPTH`], or a pickle's
    /// values deeper than its limit.
    TooDeep(u32),
    /// A value is present but not allowed (for example a BOOL byte of 7, or `n_dims` of 9).
    Invalid(String),
    /// The safetensors header is not the JSON the format requires.
    Json(String),
    /// The byte source failed (I/O error, network error, a short read), kept typed.
    Source(ReadFailure),
    /// A format this build does not read: the lean web module reads GGUF and safetensors
    /// headers and leaves the others to the full module ([`crate::FULL`]).
    Lean(super::Format),
}

/// Why reading the bytes a reader asked for failed ([`ErrorKind::Source`]): the source gave
/// fewer bytes than asked, or failed with its own error. `format` names no byte source type
/// (imports point from `source` to `format`), so the source's error is held as a
/// [`SourceFailure`], which gives it back typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadFailure {
    /// A read of the ranges a reader asked for (a zip's directory, its pickles, an ONNX
    /// field) returned `got` of the `asked` bytes.
    Short {
        /// Bytes asked.
        asked: u64,
        /// Bytes returned.
        got: u64,
    },
    /// A read that grows the header's prefix returned `got` of the `asked` bytes: the file
    /// probably changed while it was read.
    ShortPrefix {
        /// Bytes asked.
        asked: u64,
        /// Bytes returned.
        got: u64,
    },
    /// The byte source's own error ([`crate::source::SourceError`] in this crate, converted
    /// with `From`).
    Source(SourceFailure),
}

impl fmt::Display for ReadFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadFailure::Short { asked, got } => write!(f, "asked for {asked} bytes, got {got}"),
            ReadFailure::ShortPrefix { asked, got } => write!(
                f,
                "asked for {asked} bytes, got {got} (did the file change while it was read?)"
            ),
            ReadFailure::Source(e) => write!(f, "{e}"),
        }
    }
}

/// A byte source's error held without naming its type: any `std::error::Error`, shared
/// (cloning is cheap), compared by its text (what a person reads), given back typed by
/// [`SourceFailure::downcast_ref`] (`downcast_ref::<crate::source::SourceError>()`).
#[derive(Clone)]
pub struct SourceFailure(Arc<dyn std::error::Error + Send + Sync>);

impl SourceFailure {
    /// Holds `error`.
    pub fn new(error: impl std::error::Error + Send + Sync + 'static) -> Self {
        SourceFailure(Arc::new(error))
    }

    /// The error as held, if it is an `E`.
    pub fn downcast_ref<E: std::error::Error + 'static>(&self) -> Option<&E> {
        self.0.downcast_ref::<E>()
    }
}

impl fmt::Debug for SourceFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl fmt::Display for SourceFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl PartialEq for SourceFailure {
    /// The same text: two failures read the same to the person.
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0.to_string() == other.0.to_string()
    }
}

impl Eq for SourceFailure {}

impl std::error::Error for SourceFailure {
    /// Transparent: the held error's own cause.
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

impl Error {
    /// Builds an error for `field` at `offset`.
    pub fn new(field: impl Into<String>, offset: u64, kind: ErrorKind) -> Self {
        Error {
            field: field.into(),
            offset,
            kind,
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::Truncated {
                needed_end,
                file_size,
            } => write!(
                f,
                "the file ends at byte {file_size} but this field needs bytes up to {needed_end} (truncated or damaged file)"
            ),
            ErrorKind::NotAModel(what) => write!(f, "{what}"),
            ErrorKind::UnsupportedVersion(v) => {
                write!(f, "GGUF version {v} is not supported (known: 1, 2, 3)")
            }
            ErrorKind::UnknownValueType(t) => {
                write!(f, "unknown metadata value type {t} (known: 0..=12)")
            }
            ErrorKind::CountTooLarge { count, what, max } => write!(
                f,
                "{what} is {count}, but at most {max} fit in the bytes that remain (damaged file?)"
            ),
            ErrorKind::Overflow(what) => write!(f, "{what} overflows 64 bits"),
            ErrorKind::TooDeep(d) => write!(f, "values nested more than {d} deep"),
            ErrorKind::Invalid(why) => write!(f, "{why}"),
            ErrorKind::Json(why) => write!(f, "header JSON: {why}"),
            ErrorKind::Source(why) => write!(f, "reading the file failed: {why}"),
            ErrorKind::Lean(format) => {
                write!(f, "a {format:?} file, read by weightpeek's full module")
            }
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}: {}", self.field, self.offset, self.kind)
    }
}

impl std::error::Error for Error {}

/// A non-fatal finding made while parsing (for example a string that is not valid UTF-8).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Warning {
    /// What the warning is about.
    pub field: String,
    /// Absolute byte offset of that field.
    pub offset: u64,
    /// Plain-words description.
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at byte {}: {}",
            self.field, self.offset, self.message
        )
    }
}
