//! The doctor: findings about a GGUF file beyond its container, the things that make a model
//! misbehave once loaded although every byte is in place: the tokenizer ([`tokenizer`]: special
//! tokens typed as text, ids outside the vocabulary, the pre-tokenizer, duplicate tokens, array
//! lengths, end-of-turn markers llama.cpp would not stop at), the chat template's Jinja source
//! ([`template`]: a static scan for access to Python internals, never rendering it) and the
//! tensor structure ([`structure`]: layers against `{arch}.block_count`, per-layer tensors the
//! architecture needs).
//!
//! The rules follow llama.cpp's loader (`src/llama-vocab.cpp`, `src/llama-model.cpp`): what it
//! refuses is an error, what it repairs or warns about is a warning. Everything reads the header
//! bytes already held ([`Model::bytes`]); a 262,144-token vocabulary is scanned once per check.

use super::{finding, Finding, Severity};
use crate::format::{Format, Model, Value};

mod repeats;
pub mod special;
pub mod structure;
pub mod template;
pub mod tokenizer;

/// At most this many examples (tokens, layers, names) are named in one finding; the rest are
/// counted, so a hostile vocabulary of a million bad tokens gives one short line.
pub const EXAMPLES: usize = 8;

/// Every code the doctor's findings have.
pub const CODES: &[&str] = &[
    "token-array-length",
    "token-array-type",
    "special-id-out-of-vocab",
    "pre-tokenizer-missing",
    "pre-tokenizer-unknown",
    "duplicate-token",
    "special-token-type",
    "template-end-not-eog",
    "template-token-missing",
    "eot-not-in-template",
    "template-unsafe",
    "template-obfuscated",
    "template-dynamic-attr",
    "layers-missing",
    "layers-extra",
    "layer-tensor-missing",
    "tensor-missing",
];

/// Whether `code` is one of the doctor's (not a container check's).
pub fn is_doctor_code(code: &str) -> bool {
    CODES.contains(&code)
}

/// The doctor's findings of a GGUF model that is one whole file (nothing for other formats),
/// appended to `out`.
pub fn doctor_findings(m: &Model, out: &mut Vec<Finding>) {
    doctor_findings_of_set(m, false, out);
}

/// The doctor's findings of a GGUF model (nothing for other formats), appended to `out`;
/// `incomplete_set` when it is a set of files not all read, whose structure is then not judged
/// (see [`crate::open::findings`]).
pub fn doctor_findings_of_set(m: &Model, incomplete_set: bool, out: &mut Vec<Finding>) {
    if m.format != Format::Gguf {
        return;
    }
    tokenizer::findings(m, out);
    template::findings(m, out);
    structure::findings(m, incomplete_set, out);
}

/// The metadata entry `key`'s byte offset, for a finding about it.
fn key_offset(m: &Model, key: &str) -> Option<u64> {
    m.metadata.iter().find(|e| e.key == key).map(|e| e.offset)
}

/// A finding about metadata key `key` (its offset named).
fn about_key(
    m: &Model,
    severity: Severity,
    code: &'static str,
    key: &str,
    message: String,
) -> Finding {
    finding(severity, code, message, key_offset(m, key), None)
}

/// `general.architecture`, when it is a string.
fn architecture(m: &Model) -> Option<&str> {
    m.get("general.architecture").and_then(Value::as_str)
}

/// `items` joined with `, `, at most [`EXAMPLES`] of them and "and N more".
fn examples(items: &[String]) -> String {
    let mut s = items
        .iter()
        .take(EXAMPLES)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > EXAMPLES {
        s.push_str(&format!(" and {} more", items.len() - EXAMPLES));
    }
    s
}
