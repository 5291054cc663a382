//! The header editor's review, shared by the page's "Edit header" panel and `weightpeek edit`:
//! the changes made (key, before, after), the Compare card's diff of the original against the
//! new header ([`crate::view::compare`]), the checks of the result, and the sizes.
//!
//! It also lists which keys the page offers to edit and how ([`editable`]).

use crate::check::Finding;
use crate::edit::{result_model, Change, ChangeKind, Plan};
use crate::format::{Model, Value, ValueType};
use crate::summary;
use crate::text::{self, escape};
use crate::view::compare::{compare, CompareView};

/// Most characters of a string value shown in the editor's input before it is opened in the
/// textarea (longer strings, such as chat templates, are edited in the textarea).
pub const INLINE_CHARS: usize = 200;

/// One line of "what changed": escaped for display.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangeRow {
    /// `added`, `removed`, `changed` (the CSS class and `data-kind`).
    pub kind: &'static str,
    /// The key, with `[INDEX]` for an array element, escaped.
    pub name: String,
    /// The key as stored (for `data-key`).
    pub raw: String,
    /// Before (`–` when added), escaped.
    pub before: String,
    /// After (`–` when removed), escaped.
    pub after: String,
}

/// Everything the review shows.
#[derive(Debug, Clone)]
pub struct Review {
    /// The changes in the order they were made.
    pub changes: Vec<ChangeRow>,
    /// The diff of the original (A) against the result (B).
    pub compare: CompareView,
    /// The checks of the result.
    pub findings: Vec<Finding>,
    /// `header 6,525,120 → 6,525,184 bytes; data section 246,587,904 bytes copied unchanged`.
    pub sizes: String,
    /// What the rewrite did besides the edits (a v1 file written as v3), escaped.
    pub notes: Vec<String>,
    /// The new header, parsed.
    pub result: Model,
}

/// The change rows of a plan.
pub fn change_rows(changes: &[Change]) -> Vec<ChangeRow> {
    let dash = || "–".to_string();
    changes
        .iter()
        .map(|c| ChangeRow {
            kind: match c.kind {
                ChangeKind::Added => "added",
                ChangeKind::Removed => "removed",
                ChangeKind::Changed | ChangeKind::Element(_) => "changed",
            },
            name: match c.kind {
                ChangeKind::Element(i) => format!("{}[{i}]", escape(&c.key)),
                _ => escape(&c.key),
            },
            raw: c.key.clone(),
            before: c.before.as_deref().map_or_else(dash, escape),
            after: c.after.as_deref().map_or_else(dash, escape),
        })
        .collect()
}

/// Reviews `plan`, made from `original` (named `name_in`), as the file `name_out`.
pub fn review(name_in: &str, original: &Model, name_out: &str, plan: &Plan) -> Review {
    let result = result_model(plan);
    let compare = compare(name_in, original, name_out, &result);
    let findings = summary::summarize(&result).findings;
    let sizes = format!(
        "header {} → {} bytes; data section {} bytes copied unchanged from offset {}",
        text::thousands(original.header_size),
        text::thousands(plan.header.len() as u64),
        text::thousands(plan.data_len),
        text::thousands(plan.data_offset),
    );
    Review {
        changes: change_rows(&plan.changes),
        compare,
        findings,
        sizes,
        notes: plan.notes.iter().map(|n| escape(n)).collect(),
        result,
    }
}

/// How the page edits a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Editor {
    /// A one-line input holding the value as text (numbers, booleans, short strings).
    Line(String),
    /// A textarea with line numbers (long or multi-line strings: chat templates).
    Area(String),
    /// An array: its elements are edited one at a time by index.
    Elements {
        /// Element type.
        elem: ValueType,
        /// Element count.
        len: u64,
    },
}

/// One key of the editor's list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditableKey {
    /// The key as stored (the input's value for a rename-free edit; shown as text).
    pub key: String,
    /// Its GGUF type name.
    pub ty: &'static str,
    /// How it is edited.
    pub editor: Editor,
}

/// The value of a scalar as the editor's input holds it: the text [`crate::edit::spec`]
/// reads back to the same value (floats in their shortest round-tripping form).
pub fn input_text(v: &Value) -> Option<String> {
    Some(match v {
        Value::String(t) => t.text.clone(),
        Value::F32(x) => text::format_f32(*x),
        Value::F64(x) => text::format_float(*x),
        Value::Array(_) => return None,
        other => text::scalar(other),
    })
}

/// Every key of `m` with the editor the page gives it, in file order.
pub fn editable(m: &Model) -> Vec<EditableKey> {
    m.metadata
        .iter()
        .map(|e| EditableKey {
            key: e.key.clone(),
            ty: e.value.value_type().name(),
            editor: match &e.value {
                Value::Array(a) => Editor::Elements {
                    elem: a.elem,
                    len: a.len,
                },
                Value::String(t)
                    if t.text.contains('\n') || t.text.chars().count() > INLINE_CHARS =>
                {
                    Editor::Area(t.text.clone())
                }
                v => Editor::Line(input_text(v).unwrap_or_default()),
            },
        })
        .collect()
}

/// Line numbers for a textarea holding `text`: `1\n2\n…`, one per line split on `\n` (as the
/// tokenizer card numbers a template's lines).
pub fn line_numbers(text: &str) -> String {
    let n = text.split('\n').count();
    (1..=n)
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Element `index` of array `key` in `m` as the editor's input holds it (`None` past the end
/// or for nested arrays).
pub fn element_text(m: &Model, key: &str, index: u64) -> Option<String> {
    let Some(Value::Array(a)) = m.get(key) else {
        return None;
    };
    let v = a.values(&m.bytes, index, 1).ok()?.into_iter().next()?;
    input_text(&v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_numbers_count_newlines() {
        assert_eq!(line_numbers("a"), "1");
        assert_eq!(line_numbers("a\nb\n"), "1\n2\n3");
    }
}
