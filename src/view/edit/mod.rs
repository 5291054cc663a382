//! The header editor's review, shared by the page's "Edit header" panel and `weightpeek edit`:
//! the changes made (key, before, after), the Compare card's diff of the original against the
//! new header ([`crate::view::compare`]), the checks of the result, and the sizes.
//!
//! It also lists which keys the page offers to edit and how ([`editable`]); the editor's
//! nodes and status texts are in `nodes.rs` (re-exported here).

use crate::check::Finding;
use crate::edit::{result_model, Change, ChangeKind, Edit, NewValue, Plan};
use crate::format::{Model, Value, ValueType};
use crate::open::OpenedModel;
use crate::summary;
use crate::text::{self, escape};
use crate::view::compare::{compare, row_list, table, CompareView};
use crate::view::node::{self, el, Node};

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
    // The edited file alone: one file, nothing read beside it.
    let result = OpenedModel::from(result_model(plan));
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
        result: result.model,
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

/// What the element editor's value input shows when `typed` is typed as the index of array
/// `key`: that element's value ([`element_text`]), empty for no such element or index.
pub fn element_at(m: &Model, key: &str, typed: &str) -> String {
    let n = typed.parse::<u64>().ok();
    n.and_then(|n| element_text(m, key, n)).unwrap_or_default()
}

/// The key of the chat template, which the editor always offers (adding it when absent).
pub const TEMPLATE_KEY: &str = "tokenizer.chat_template";

/// One key's editor state: its value as the input shows it, and whether it is to be removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormKey {
    /// The key.
    pub key: String,
    /// Its type name (`–` for the chat template offered to a file without one).
    pub ty: &'static str,
    /// How it is edited.
    pub editor: Editor,
    /// The value's text as the file holds it (`None`: not in the file).
    pub original: Option<String>,
    /// The input's text now.
    pub value: String,
    /// Marked for removal.
    pub delete: bool,
}

/// The editor's whole state, from which the edits are derived ([`EditForm::edits`]): one
/// entry per key (plus the chat template when the file has none), the array elements set, and
/// the keys added.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EditForm {
    /// The file's keys in file order (arrays included, edited by element).
    pub keys: Vec<FormKey>,
    /// Array elements set: (key, index, value text), in the order set (a later one for the
    /// same element wins).
    pub elements: Vec<(String, u64, String)>,
    /// Keys added: (key, type or `None` for "from the value", value text).
    pub added: Vec<(String, Option<ValueType>, String)>,
}

impl EditForm {
    /// The form for `m`: every key with its current value; the chat template offered empty
    /// when the file has none.
    pub fn new(m: &Model) -> EditForm {
        let mut keys: Vec<FormKey> = editable(m)
            .into_iter()
            .map(|k| {
                let original = match &k.editor {
                    Editor::Line(t) | Editor::Area(t) => Some(t.clone()),
                    Editor::Elements { .. } => None,
                };
                FormKey {
                    value: original.clone().unwrap_or_default(),
                    original,
                    ty: k.ty,
                    key: k.key,
                    editor: k.editor,
                    delete: false,
                }
            })
            .collect();
        if let Some(k) = keys.iter_mut().find(|k| k.key == TEMPLATE_KEY) {
            if let Editor::Line(t) = &k.editor {
                // Always in a textarea, however short.
                k.editor = Editor::Area(t.clone());
            }
        } else {
            keys.push(FormKey {
                key: TEMPLATE_KEY.to_string(),
                ty: "–",
                editor: Editor::Area(String::new()),
                original: None,
                value: String::new(),
                delete: false,
            });
        }
        EditForm {
            keys,
            elements: Vec::new(),
            added: Vec::new(),
        }
    }

    /// The edits the form describes, in this order: removals, changed values (a STRING in a
    /// textarea taken verbatim; a chat template offered to a file without one added when it is
    /// not empty), array elements, added keys.
    pub fn edits(&self) -> Vec<Edit> {
        let mut out = Vec::new();
        for k in &self.keys {
            if k.delete && k.original.is_some() {
                out.push(Edit::Delete { key: k.key.clone() });
            }
        }
        for k in self.keys.iter().filter(|k| !k.delete) {
            let changed = match &k.original {
                Some(o) => *o != k.value,
                None => !k.value.is_empty() && !matches!(k.editor, Editor::Elements { .. }),
            };
            if !changed {
                continue;
            }
            let verbatim = matches!(k.editor, Editor::Area(_)) || k.ty == ValueType::String.name();
            out.push(Edit::Set {
                key: k.key.clone(),
                ty: None,
                value: if verbatim {
                    NewValue::Verbatim(k.value.clone())
                } else {
                    NewValue::Text(k.value.clone())
                },
            });
        }
        for (key, index, value) in &self.elements {
            out.push(Edit::SetElement {
                key: key.clone(),
                index: *index,
                value: value.clone(),
            });
        }
        for (key, ty, value) in &self.added {
            out.push(Edit::Set {
                key: key.clone(),
                ty: *ty,
                value: NewValue::Text(value.clone()),
            });
        }
        out
    }
}

impl EditForm {
    /// The plan of the form's edits on `model` (a GGUF file read to the end). Errors: why
    /// they make no header (the status line says it with [`plan_failed_text`]).
    pub fn plan(&self, model: &Model) -> Result<Plan, crate::edit::EditError> {
        crate::edit::plan(&model.bytes, model.file_size, &self.edits())
    }
}

/// The saved file's name: `model.gguf` → `model.edited.gguf`.
pub fn edited_file_name(name: &str) -> String {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    match base.strip_suffix(".gguf") {
        Some(stem) => format!("{stem}.edited.gguf"),
        None => format!("{base}.edited.gguf"),
    }
}

/// The types offered for a key added by hand: "from the value" (the type is guessed from the
/// text, [`crate::edit::spec`]), then GGUF's scalar types by name.
pub const ADD_TYPES: [&str; 13] = [
    "from the value",
    "UINT32",
    "INT32",
    "UINT64",
    "INT64",
    "FLOAT32",
    "FLOAT64",
    "BOOL",
    "STRING",
    "UINT8",
    "INT8",
    "UINT16",
    "INT16",
];

impl EditForm {
    /// Sets element `index` (as typed) of array `key` to `value`, to be applied with the next
    /// review or save. Errors (the status line's words) when the index is not a number.
    pub fn set_element(&mut self, key: &str, index: &str, value: &str) -> Result<(), &'static str> {
        let n = index
            .parse::<u64>()
            .map_err(|_| "Type the element's index (0, 1, …) first.")?;
        self.elements.push((key.to_string(), n, value.to_string()));
        Ok(())
    }

    /// Adds key `key` of the type named `ty` (one of [`ADD_TYPES`]) with `value`. Errors (the
    /// status line's words) when the key is empty.
    pub fn add_key(&mut self, key: &str, ty: &str, value: &str) -> Result<(), &'static str> {
        if key.is_empty() {
            return Err("Type the new key's name first.");
        }
        let t = crate::edit::spec::type_named(ty);
        self.added.push((key.to_string(), t, value.to_string()));
        Ok(())
    }

    /// Where the editor ([`editor`]) puts each key's inputs, as indexes into [`EditForm::keys`]
    /// in document order: the value elements (the chat template's textarea first, then the
    /// table's inputs and textareas, arrays having none), and the "remove" checkboxes (one a
    /// row of the table: the chat template offered to a file without one has none).
    pub fn input_order(&self) -> (Vec<usize>, Vec<usize>) {
        let template = self.keys.iter().position(|k| k.key == TEMPLATE_KEY);
        let mut values: Vec<usize> = template.into_iter().collect();
        let mut deletes = Vec::new();
        for (i, k) in self.keys.iter().enumerate() {
            if Some(i) != template && !matches!(k.editor, Editor::Elements { .. }) {
                values.push(i);
            }
            if Some(i) != template || k.original.is_some() {
                deletes.push(i);
            }
        }
        (values, deletes)
    }

    /// The keys' values for the editor's value elements, in their document order
    /// ([`EditForm::input_order`]).
    pub fn input_values(&self) -> Vec<&str> {
        let values = self.input_order().0;
        values
            .iter()
            .map(|&i| self.keys[i].value.as_str())
            .collect()
    }

    /// Reads the editor back: `values`, the value elements' texts, and `deletes`, the
    /// "remove" checkboxes' states, each in document order ([`EditForm::input_order`]). A key
    /// without a ticked checkbox is kept; inputs past the keys are ignored.
    pub fn read_inputs(&mut self, values: Vec<String>, deletes: Vec<bool>) {
        let (value_keys, delete_keys) = self.input_order();
        for (&i, v) in value_keys.iter().zip(values) {
            self.keys[i].value = v;
        }
        self.keys.iter_mut().for_each(|k| k.delete = false);
        for (&i, d) in delete_keys.iter().zip(deletes) {
            self.keys[i].delete = d;
        }
    }
}

mod nodes;
pub use nodes::*;

#[cfg(test)]
mod tests;
