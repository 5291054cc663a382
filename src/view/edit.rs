//! The header editor's review, shared by the page's "Edit header" panel and `weightpeek edit`:
//! the changes made (key, before, after), the Compare card's diff of the original against the
//! new header ([`crate::view::compare`]), the checks of the result, and the sizes.
//!
//! It also lists which keys the page offers to edit and how ([`editable`]).

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

/// The selector of the editor's value elements, in the order of [`EditForm::input_order`].
pub const VALUE_SELECTOR: &str = "textarea.edit-text, input.edit-input[data-key]";

/// The selector of the editor's "remove" checkboxes, in the order of [`EditForm::input_order`].
pub const DELETE_SELECTOR: &str = "input[data-remove]";

/// A small button (`type=button`, `data-testid`, a tooltip unless `tip` is empty).
fn button(label: &str, testid: &str, tip: &str) -> Node {
    let b = node::text("button", "button small", label)
        .attr("type", "button")
        .testid(testid);
    if tip.is_empty() {
        b
    } else {
        b.attr("title", tip)
    }
}

/// The "Edit header" card before the editor is opened (`data-testid="edit-card"`): the hidden
/// "Review changes" / "Save edited file" buttons in its head, the introduction, "Open the
/// editor" (`edit-open`) and the empty `div.edit-editor` that [`editor`] fills.
pub fn card() -> Node {
    let mut card = node::card("Edit header", "edit-card").testid("edit-card");
    card.head().push(
        el("div", "exports")
            .child(button(
                "Review changes",
                "edit-review",
                "what the edits change, and the checks of the result",
            ))
            .child(button(
                "Save edited file",
                "edit-save",
                "downloads the new header followed by this file's data section, unchanged",
            ))
            .attr("hidden", ""),
    );
    card.body().push(node::text(
        "p",
        "muted edit-intro",
        "Change, add or remove metadata keys (chat template, special token ids, token types, any value) and save a new file: the new header followed by this file's data section, unchanged. Nothing is uploaded, and the data section is never copied into memory.",
    ));
    card.body().push(button("Open the editor", "edit-open", ""));
    card.body().push(el("div", "edit-editor"));
    card
}

/// A textarea (`data-testid` = `testid`, 4 to 18 rows for `value`'s lines; the page sets its
/// value) after a line-number gutter (`pre.edit-lines`, hidden from assistive technology).
pub fn numbered_area(value: &str, testid: &str) -> Node {
    el("div", "edit-area")
        .child(
            node::text("pre", "edit-lines mono", &line_numbers(value)).attr("aria-hidden", "true"),
        )
        .child(
            el("textarea", "edit-text mono")
                .attr("rows", value.split('\n').count().clamp(4, 18).to_string())
                .attr("spellcheck", "false")
                .attr("wrap", "off")
                .testid(testid),
        )
}

/// A one-line text input labelled `label` (the page sets its value).
fn text_input(label: &str) -> Node {
    el("input", "")
        .attr("type", "text")
        .attr("class", "edit-input mono")
        .attr("spellcheck", "false")
        .attr("autocomplete", "off")
        .attr("aria-label", label)
}

/// A table row's name and type cells (`tr[data-key]`).
fn key_row(k: &FormKey) -> Node {
    el("tr", "")
        .attr("data-key", &k.key)
        .child(node::text("td", "col-name mono", &escape(&k.key)))
        .child(node::text("td", "col-type mono", k.ty))
}

/// A row's "remove" cell.
fn remove_cell(key: &str) -> Node {
    el("td", "col-remove").child(
        el("input", "")
            .attr("type", "checkbox")
            .attr("aria-label", format!("remove {}", escape(key)))
            .attr("data-remove", key),
    )
}

/// "element #[index] = [value] [Set]" for array `key` of `len` elements of type `elem`.
fn element_editor(key: &str, elem: ValueType, len: u64) -> Node {
    let label = format!("{} × {} · element", elem.name(), text::thousands(len));
    el("div", "edit-element")
        .child(node::text("span", "muted", &label))
        .child(
            el("input", "")
                .attr("type", "number")
                .attr("min", "0")
                .attr("max", len.saturating_sub(1).to_string())
                .attr("class", "edit-index mono")
                .attr("aria-label", format!("element of {}", escape(key)))
                .attr("data-element-index", key),
        )
        .child(node::text("span", "muted", "="))
        .child(
            text_input(&format!("new value of the element of {}", escape(key)))
                .attr("data-element-value", key),
        )
        .child(button("Set", "edit-element-set", "").attr("data-key", key))
}

/// The opened editor, the children of `div.edit-editor`: the chat template's numbered textarea
/// (`edit-template`, with a note when the file has none), the table of keys (`edit-keys`: name,
/// type, value input, textarea or element editor, remove box), the add-key form
/// (`edit-add-key`, `edit-add-type`, `edit-add-value`, `edit-add`), then the pending list
/// (`edit-pending`), the status line (`edit-status`) and the review (`edit-review-out`). The
/// values go in through the page ([`EditForm::input_order`]), never as markup.
pub fn editor(form: &EditForm) -> Vec<Node> {
    let mut out = vec![node::text(
        "h3",
        "compare-h",
        "Chat template (tokenizer.chat_template)",
    )];
    let t_index = form.keys.iter().position(|k| k.key == TEMPLATE_KEY);
    if let Some(k) = t_index.map(|i| &form.keys[i]) {
        if k.original.is_none() {
            out.push(node::text(
                "p",
                "muted edit-note",
                "This file has no chat template: one written here is added.",
            ));
        }
        out.push(numbered_area(&k.value, "edit-template"));
    }
    out.push(node::text("h3", "compare-h", "Metadata"));
    let mut rows = Vec::new();
    for (i, k) in form.keys.iter().enumerate() {
        if Some(i) == t_index {
            // Drawn above; its removal box sits in the table with the others.
            if k.original.is_some() {
                rows.push(
                    key_row(k)
                        .child(node::text("td", "muted", "(above)"))
                        .child(remove_cell(&k.key)),
                );
            }
            continue;
        }
        let value = match &k.editor {
            Editor::Line(_) => {
                text_input(&format!("value of {}", escape(&k.key))).attr("data-key", &k.key)
            }
            Editor::Area(v) => {
                let mut wrap = numbered_area(v, "edit-area");
                wrap.children[1] = wrap.children[1].clone().attr("data-key", &k.key);
                wrap
            }
            Editor::Elements { elem, len } => element_editor(&k.key, *elem, *len),
        };
        rows.push(
            key_row(k)
                .child(el("td", "col-value").child(value))
                .child(remove_cell(&k.key)),
        );
    }
    out.push(table("edit-keys", &["key", "type", "value", "remove"], rows).testid("edit-keys"));
    out.push(node::text("h3", "compare-h", "Add a key"));
    let types = ADD_TYPES
        .iter()
        .map(|t| node::text("option", "", t).attr("value", *t));
    out.push(
        el("div", "edit-add")
            .child(
                text_input("new key")
                    .attr("placeholder", "key (e.g. tokenizer.ggml.eot_token_id)")
                    .testid("edit-add-key"),
            )
            .child(
                el("select", "")
                    .attr("aria-label", "type of the new key")
                    .testid("edit-add-type")
                    .children(types),
            )
            .child(
                text_input("value of the new key")
                    .attr("placeholder", "value")
                    .testid("edit-add-value"),
            )
            .child(button("Add", "edit-add", "")),
    );
    out.push(el("ul", "edit-pending").testid("edit-pending"));
    out.push(
        el("p", &status_class(false))
            .testid("edit-status")
            .attr("role", "status"),
    );
    out.push(el("div", "edit-review-out").testid("edit-review-out"));
    out
}

/// The status line's class: `edit-status warn` for an error, else `edit-status muted`.
pub fn status_class(error: bool) -> String {
    format!("edit-status {}", if error { "warn" } else { "muted" })
}

/// The pending list's items: each element set (`key[index] = value`), then each key added
/// (`+ key:TYPE = value`, `+ key = value` for "from the value"), escaped.
pub fn pending_items(form: &EditForm) -> Vec<Node> {
    let elements = form
        .elements
        .iter()
        .map(|(k, i, v)| format!("{}[{i}] = {}", escape(k), escape(v)));
    let added = form.added.iter().map(|(k, t, v)| {
        let ty = t.map_or(String::new(), |t| format!(":{}", t.name()));
        format!("+ {}{ty} = {}", escape(k), escape(v))
    });
    elements
        .chain(added)
        .map(|line| node::text("li", "mono", &line))
        .collect()
}

/// The status line after a review: "No changes: …" or `N change(s); <sizes>`.
pub fn review_status(r: &Review) -> String {
    if r.changes.is_empty() {
        "No changes: the saved file would be this file, byte for byte.".to_string()
    } else {
        format!("{} change(s); {}", r.changes.len(), r.sizes)
    }
}

/// The review (`div.edit-review-out`, `data-testid="edit-review-out"`, with `data-changes`,
/// `data-keys-added`, `-removed`, `-changed` and `data-tensors-changed` counts): the rewrite's
/// notes, the changes table (`edit-changes`), the diff's summary line, the metadata
/// differences (`edit-diff`, a [`row_list`]) and the checks of the result (`edit-checks`).
pub fn review_out(r: &Review) -> Node {
    let c = &r.compare.counts;
    let changes = r.changes.iter().map(|ch| {
        el("tr", "")
            .attr("data-kind", ch.kind)
            .attr("data-name", &ch.raw)
            .child(el("td", "col-kind").child(node::text(
                "span",
                &format!("kind kind-{}", ch.kind),
                ch.kind,
            )))
            .child(node::text("td", "col-name mono", &ch.name))
            .child(node::text("td", "col-a mono", &ch.before))
            .child(node::text("td", "col-b mono", &ch.after))
    });
    let mut checks = crate::view::checks::card(&r.findings);
    for (k, v) in &mut checks.attrs {
        if *k == "data-testid" {
            *v = "edit-checks".to_string();
        }
    }
    el("div", "edit-review-out")
        .testid("edit-review-out")
        .attr("data-changes", r.changes.len().to_string())
        .attr("data-keys-added", c.keys_added.to_string())
        .attr("data-keys-removed", c.keys_removed.to_string())
        .attr("data-keys-changed", c.keys_changed.to_string())
        .attr(
            "data-tensors-changed",
            (c.changed + c.only_a + c.only_b).to_string(),
        )
        .children(r.notes.iter().map(|n| node::text("p", "note warn", n)))
        .child(node::text("h3", "compare-h", "Changes"))
        .child(
            table("edit-changes", &["", "key", "before", "after"], changes).testid("edit-changes"),
        )
        .child(node::text("p", "compare-summary", &r.compare.summary))
        .children(row_list(
            "Metadata differences (this file → the edited file)",
            "edit-diff",
            &r.compare.keys,
        ))
        .child(checks)
}

/// The status line after a save of `file` from `plan`.
pub fn saved_text(file: &str, plan: &Plan) -> String {
    format!(
        "Saved {} ({} bytes): the new header ({} bytes) and this file's data section.",
        escape(file),
        text::thousands(plan.file_size()),
        text::thousands(plan.header.len() as u64)
    )
}

/// The status line when the form's edits make no header (`e`: why, from the planner).
pub fn plan_failed_text(e: &impl std::fmt::Display) -> String {
    format!("Cannot make this edit: {e}")
}

/// The status line when the browser cannot slice the data section off the file (`e`: its
/// message).
pub fn data_unreadable_text(e: &str) -> String {
    format!("Cannot read the data section: {e}")
}

/// The status line when the browser makes no file (or no URL for it) to save.
pub const NO_FILE_MADE: &str = "The browser could not make the file.";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn save_failures_say_why() {
        assert_eq!(
            plan_failed_text(&crate::edit::EditError::NotGguf),
            "Cannot make this edit: only GGUF headers can be edited"
        );
        assert_eq!(
            data_unreadable_text("NotReadableError"),
            "Cannot read the data section: NotReadableError"
        );
        assert_eq!(NO_FILE_MADE, "The browser could not make the file.");
    }

    #[test]
    fn line_numbers_count_newlines() {
        assert_eq!(line_numbers("a"), "1");
        assert_eq!(line_numbers("a\nb\n"), "1\n2\n3");
    }

    #[test]
    fn the_form_gives_edits_only_for_what_changed() {
        use crate::view::testutil::{gguf, Kv};
        let bytes = gguf(
            &[
                ("general.architecture", Kv::Str("llama")),
                ("llama.block_count", Kv::U32(2)),
                ("tokenizer.ggml.token_type", Kv::I32Array(vec![3, 1])),
            ],
            &[("a", 0, vec![4], 16)],
        );
        let m = crate::source::parse_bytes(&bytes).unwrap();
        let mut f = EditForm::new(&m);
        assert!(f.edits().is_empty(), "an untouched form edits nothing");
        let t = f.keys.iter().position(|k| k.key == TEMPLATE_KEY).unwrap();
        f.keys[t].value = "{{ x }}".into();
        f.keys[0].delete = true;
        f.added.push(("new.k".into(), None, "3".into()));
        let e = f.edits();
        assert_eq!(e.len(), 3, "{e:?}");
        assert!(matches!(&e[0], Edit::Delete { key } if *key == f.keys[0].key));
        assert!(
            matches!(&e[1], Edit::Set { key, value: NewValue::Verbatim(v), .. } if key == TEMPLATE_KEY && v == "{{ x }}")
        );
        assert!(
            matches!(&e[2], Edit::Set { key, ty: None, value: NewValue::Text(v) } if key == "new.k" && v == "3")
        );
        f.keys[1].value = "4".into();
        f.elements
            .push(("tokenizer.ggml.token_type".into(), 1, "3".into()));
        let p = crate::edit::plan(&m.bytes, m.file_size, &f.edits()).unwrap();
        let r = review("m.gguf", &m, "m.edited.gguf", &p);
        let kinds: Vec<&str> = r.changes.iter().map(|c| c.kind).collect();
        assert_eq!(kinds, ["removed", "changed", "added", "changed", "added"]);
        assert_eq!(r.changes[3].name, "tokenizer.ggml.token_type[1]");
        assert_eq!(r.compare.counts.keys_removed, 1);
        assert_eq!(r.compare.counts.keys_added, 2);
        assert_eq!(r.compare.counts.keys_changed, 2);
        assert_eq!(edited_file_name("dir/m.gguf"), "m.edited.gguf");
    }

    #[test]
    fn the_editor_tree_matches_the_input_order_of_the_sample() {
        let m = crate::source::parse_bytes(include_bytes!("../../www/sample.gguf")).unwrap();
        let form = EditForm::new(&m);
        let nodes = editor(&form);
        let root = el("div", "").children(nodes);
        let (values, deletes) = form.input_order();
        // Value elements: the template textarea, every textarea and line input of the table.
        let value_nodes: Vec<&Node> = root
            .descendants()
            .into_iter()
            .filter(|n| {
                (n.tag == "textarea" && n.has_class("edit-text"))
                    || (n.tag == "input"
                        && n.get_attr("class") == Some("edit-input mono")
                        && n.get_attr("data-key").is_some())
            })
            .collect();
        assert_eq!(value_nodes.len(), values.len());
        assert_eq!(
            value_nodes[0].get_attr("data-testid"),
            Some("edit-template")
        );
        for (n, &i) in value_nodes.iter().zip(&values).skip(1) {
            assert_eq!(n.get_attr("data-key"), Some(form.keys[i].key.as_str()));
        }
        let boxes: Vec<&Node> = root
            .descendants()
            .into_iter()
            .filter(|n| n.get_attr("data-remove").is_some())
            .collect();
        assert_eq!(boxes.len(), deletes.len());
        for (n, &i) in boxes.iter().zip(&deletes) {
            assert_eq!(n.get_attr("data-remove"), Some(form.keys[i].key.as_str()));
        }
        // One table row per key but the template offered to a file without one.
        let rows = root
            .find_testid("edit-keys")
            .unwrap()
            .find_class("col-type")
            .len();
        assert_eq!(rows, deletes.len());
        let arrays = form
            .keys
            .iter()
            .filter(|k| matches!(k.editor, Editor::Elements { .. }))
            .count();
        assert_eq!(root.find_class("edit-element").len(), arrays);
        for id in [
            "edit-add-key",
            "edit-add-type",
            "edit-add-value",
            "edit-add",
            "edit-pending",
            "edit-status",
            "edit-review-out",
        ] {
            assert!(root.find_testid(id).is_some(), "{id}");
        }
        assert_eq!(
            root.find_testid("edit-add-type").unwrap().children.len(),
            ADD_TYPES.len()
        );
        assert_eq!(
            root.find_testid("edit-status").unwrap().class,
            "edit-status muted"
        );
    }

    #[test]
    fn card_pending_and_review_nodes() {
        use crate::view::testutil::{gguf, Kv};
        let c = card();
        let actions = &c.children[0].children[1];
        assert_eq!(actions.get_attr("hidden"), Some(""));
        assert_eq!(
            c.find_testid("edit-save").unwrap().text.as_deref(),
            Some("Save edited file")
        );
        assert!(c
            .find_testid("edit-open")
            .unwrap()
            .get_attr("title")
            .is_none());
        let bytes = gguf(
            &[
                ("general.architecture", Kv::Str("llama")),
                ("tokenizer.ggml.token_type", Kv::I32Array(vec![3, 1])),
            ],
            &[("a", 0, vec![4], 16)],
        );
        let m = crate::source::parse_bytes(&bytes).unwrap();
        assert_eq!(element_at(&m, "tokenizer.ggml.token_type", "1"), "1");
        assert_eq!(element_at(&m, "tokenizer.ggml.token_type", "2"), "");
        assert_eq!(element_at(&m, "tokenizer.ggml.token_type", "x"), "");
        let mut f = EditForm::new(&m);
        // The template is offered with a note, and has no remove box.
        let nodes = editor(&f);
        assert!(nodes.iter().any(|n| n.has_class("edit-note")));
        assert_eq!(f.input_order().1, vec![0, 1]);
        assert_eq!(
            f.set_element("tokenizer.ggml.token_type", "x", "1"),
            Err("Type the element's index (0, 1, …) first.")
        );
        f.set_element("tokenizer.ggml.token_type", "1", "<3>")
            .unwrap();
        assert_eq!(
            f.add_key("", "UINT32", "1"),
            Err("Type the new key's name first.")
        );
        f.add_key("a\nb", "UINT32", "7").unwrap();
        f.add_key("c", "from the value", "x").unwrap();
        let items: Vec<String> = pending_items(&f).iter().map(Node::text_content).collect();
        assert_eq!(
            items,
            [
                "tokenizer.ggml.token_type[1] = <3>",
                "+ a\\nb:UINT32 = 7",
                "+ c = x"
            ]
        );
        f.elements[0].2 = "3".into();
        f.keys[0].delete = true;
        let p = crate::edit::plan(&m.bytes, m.file_size, &f.edits()).unwrap();
        let r = review("m.gguf", &m, "m.edited.gguf", &p);
        let out = review_out(&r);
        assert_eq!(out.get_attr("data-changes"), Some("4"));
        assert_eq!(out.get_attr("data-keys-removed"), Some("1"));
        assert_eq!(out.get_attr("data-keys-added"), Some("2"));
        assert_eq!(out.get_attr("data-tensors-changed"), Some("0"));
        let rows = out
            .find_testid("edit-changes")
            .unwrap()
            .find_class("col-name");
        let names: Vec<String> = rows.iter().map(|n| n.text_content()).collect();
        assert_eq!(
            names,
            [
                "general.architecture",
                "tokenizer.ggml.token_type[1]",
                "a\\nb",
                "c"
            ]
        );
        assert!(out.find_testid("edit-diff").is_some());
        let checks = out.find_testid("edit-checks").unwrap();
        assert!(checks.has_class("checks"));
        assert_eq!(
            checks
                .attrs
                .iter()
                .filter(|(k, _)| *k == "data-testid")
                .count(),
            1
        );
        assert_eq!(review_status(&r), format!("4 change(s); {}", r.sizes));
        assert!(saved_text("m.edited.gguf", &p).starts_with("Saved m.edited.gguf ("));
        assert_eq!(status_class(true), "edit-status warn");
    }

    #[test]
    fn the_editor_is_filled_and_read_back_in_document_order() {
        let m = crate::source::parse_bytes(include_bytes!("../../www/sample.gguf")).unwrap();
        let mut form = EditForm::new(&m);
        let (values, deletes) = form.input_order();
        let shown = form.input_values();
        assert_eq!(shown.len(), values.len());
        assert_eq!(shown[0], form.keys[values[0]].value);
        assert_eq!(
            shown.last().copied(),
            Some(form.keys[*values.last().unwrap()].value.as_str())
        );
        // Typed: a new first value; the second "remove" box ticked.
        let mut typed: Vec<String> = shown.iter().map(|v| v.to_string()).collect();
        typed[0] = "edited".into();
        let mut ticks = vec![false; deletes.len()];
        ticks[1] = true;
        form.keys[deletes[0]].delete = true;
        form.read_inputs(typed, ticks);
        assert_eq!(form.keys[values[0]].value, "edited");
        let removed: Vec<usize> = (0..form.keys.len())
            .filter(|&i| form.keys[i].delete)
            .collect();
        assert_eq!(removed, [deletes[1]]);
    }
}
