//! The one error type of the format parsers: what failed, where (byte offset) and why.

use std::fmt;

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
    /// The byte source failed (I/O error, network error).
    Source(String),
    /// A format this build does not read: the lean web module reads GGUF and safetensors
    /// headers and leaves the others to the full module ([`crate::FULL`]).
    Lean(super::Format),
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
