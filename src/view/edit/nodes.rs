//! The editor's nodes (the card, the key rows and inputs, the pending list, the review) and
//! its status texts, drawn from an [`EditForm`] and a [`Review`].

use super::*;

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

/// The card's attributes after a save from `plan`: `data-header-bytes`, `data-data-offset`
/// and `data-file-size` (the tests read the sizes of the last save).
pub fn saved_attrs(plan: &Plan) -> [(&'static str, String); 3] {
    [
        ("data-header-bytes", plan.header.len().to_string()),
        ("data-data-offset", plan.data_offset.to_string()),
        ("data-file-size", plan.file_size().to_string()),
    ]
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
