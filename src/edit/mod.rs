//! The GGUF header editor: set, add and delete metadata keys of a GGUF file and write the new
//! header, to be followed by the original file's data section, unchanged.
//!
//! - [`spec`]: the edits ([`Edit`]), parsed from `KEY=VALUE`, `KEY:TYPE=VALUE` and
//!   `KEY[INDEX]=VALUE`, and the typed values they carry.
//! - [`mod@write`]: [`write::plan`] builds the new header bytes from the original header bytes and
//!   the edits: unchanged pairs and the tensor directory are copied byte for byte, so a no-op
//!   edit reproduces the original header exactly; tensor offsets (relative to the data
//!   section) are kept, and the padding is recomputed for the (possibly new) alignment.
//!
//! Plain Rust over bytes: the CLI streams the data section from the original file after the
//! header, the page builds `new Blob([header, file.slice(data_offset)])`. Neither ever holds
//! the data section in memory.
#![forbid(unsafe_code)]

#[cfg(not(target_arch = "wasm32"))]
pub mod file;
pub mod spec;
pub mod write;

use std::fmt;

use crate::format::{Error, ValueType};

pub use spec::{Edit, NewValue};
pub use write::{plan, result_model, Change, ChangeKind, Plan};

/// Why an edit cannot be made. Every variant that concerns a key names it.
#[derive(Debug, Clone, PartialEq)]
pub enum EditError {
    /// The file is not a GGUF file (only GGUF headers can be edited).
    NotGguf,
    /// The original header could not be read to its end, so it cannot be rewritten.
    Unreadable(Error),
    /// An edit as written on the command line cannot be understood (`--set` without `=`, an
    /// index that is not a number).
    Spec {
        /// The text given.
        spec: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// The key to change or delete is not in the file.
    NoSuchKey {
        /// The key.
        key: String,
    },
    /// A type name that is not one of GGUF's value types.
    UnknownType {
        /// The key.
        key: String,
        /// The name given.
        name: String,
    },
    /// The value text is not a value of the key's type.
    BadValue {
        /// The key.
        key: String,
        /// The type the value must have.
        ty: ValueType,
        /// The text given (shortened).
        value: String,
        /// Why it is not one.
        why: String,
    },
    /// A whole array cannot be set from text; its elements can (`KEY[INDEX]=VALUE`).
    ArrayValue {
        /// The key.
        key: String,
    },
    /// `KEY[INDEX]=VALUE` names a key that is not an array.
    NotAnArray {
        /// The key.
        key: String,
        /// Its type.
        ty: ValueType,
    },
    /// `KEY[INDEX]=VALUE` for an array of arrays (no real file has one worth editing).
    NestedArray {
        /// The key.
        key: String,
    },
    /// The index is past the array's end.
    IndexOutOfRange {
        /// The key.
        key: String,
        /// The index given.
        index: u64,
        /// The array's length.
        len: u64,
    },
    /// `general.alignment` would not be a valid alignment (not a UINT32 power of two up to
    /// [`crate::format::gguf::MAX_ALIGNMENT`]).
    BadAlignment {
        /// The key (`general.alignment`).
        key: String,
        /// Why.
        why: String,
    },
    /// The new alignment would make a tensor's offset (relative to the data section)
    /// misaligned: the data section cannot move, so the edit is refused.
    AlignmentBreaksOffsets {
        /// The alignment the edits give.
        alignment: u64,
        /// The first tensor whose offset is not a multiple of it.
        tensor: String,
        /// Its offset relative to the data section.
        offset: u64,
    },
    /// A size computed while writing passed 64 bits (or the platform's addressable size).
    Overflow {
        /// What was being computed.
        what: &'static str,
    },
}

impl fmt::Display for EditError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use crate::text::escape;
        match self {
            EditError::NotGguf => write!(f, "only GGUF headers can be edited"),
            EditError::Unreadable(e) => {
                write!(f, "the header cannot be read to its end, so it cannot be rewritten: {e}")
            }
            EditError::Spec { spec, why } => write!(f, "\"{}\": {why}", escape(spec)),
            EditError::NoSuchKey { key } => write!(f, "{}: no such key in the file", escape(key)),
            EditError::UnknownType { key, name } => write!(
                f,
                "{}: \"{}\" is not a GGUF value type (UINT8, INT8, UINT16, INT16, UINT32, INT32, UINT64, INT64, FLOAT32, FLOAT64, BOOL, STRING)",
                escape(key),
                escape(name)
            ),
            EditError::BadValue { key, ty, value, why } => write!(
                f,
                "{}: \"{}\" is not a {}: {why}",
                escape(key),
                escape(value),
                ty.name()
            ),
            EditError::ArrayValue { key } => write!(
                f,
                "{}: an ARRAY cannot be set whole; set its elements with {}[INDEX]=VALUE",
                escape(key),
                escape(key)
            ),
            EditError::NotAnArray { key, ty } => {
                write!(f, "{}: is a {}, not an ARRAY: it has no elements", escape(key), ty.name())
            }
            EditError::NestedArray { key } => {
                write!(f, "{}: elements of an array of arrays cannot be edited", escape(key))
            }
            EditError::IndexOutOfRange { key, index, len } => write!(
                f,
                "{}[{index}]: the array has {} elements",
                escape(key),
                crate::text::thousands(*len)
            ),
            EditError::BadAlignment { key, why } => write!(f, "{}: {why}", escape(key)),
            EditError::AlignmentBreaksOffsets {
                alignment,
                tensor,
                offset,
            } => write!(
                f,
                "general.alignment {alignment} would misalign tensor \"{}\" (offset {offset} in the data section); tensor offsets cannot change without rewriting the data",
                escape(tensor)
            ),
            EditError::Overflow { what } => write!(f, "{what} overflows"),
        }
    }
}

impl std::error::Error for EditError {}
