//! The page's "Edit header" card, for a local GGUF file: every key's value in an input (the
//! chat template and other long strings in a textarea with line numbers, arrays element by
//! element: token types, token texts), keys removed and added; "Review changes" shows what
//! [`crate::view::edit::review`] found (the changes, the diff, the checks of the result), and
//! "Save edited file" downloads `new Blob([header, file.slice(data_offset)])`, so the data
//! section is never read into memory. The form's logic is [`crate::view::edit::EditForm`];
//! this module only draws it and reads its inputs.
//!
//! `body[data-edit]` says `open`, `reviewed`, `saved` or `error` for the tests; the card's
//! `data-header-bytes` / `data-data-offset` give the sizes of the last save.

use std::cell::RefCell;
use std::rc::Rc;

use gloo::events::EventListener;
use js_sys::{Array, Uint8Array};
use wasm_bindgen::JsCast;
use web_sys::{
    Blob, BlobPropertyBag, Element, HtmlAnchorElement, HtmlInputElement, HtmlSelectElement,
    HtmlTextAreaElement, Url,
};

use super::dom::{self, append, attr, el_class, el_text, set_body_data};
use crate::edit::{plan, spec::type_named, Plan};
use crate::format::Model;
use crate::text::escape;
use crate::view::edit::{
    edited_file_name, element_text, line_numbers, review, EditForm, Editor, TEMPLATE_KEY,
};

thread_local! {
    /// The card of the model shown now; dropped (with its listeners) when the next model opens.
    static PANEL: RefCell<Option<EditCard>> = const { RefCell::new(None) };
}

/// The card and what it keeps alive.
struct EditCard {
    element: Element,
    state: Rc<State>,
    _listeners: Vec<EventListener>,
}

impl Drop for EditCard {
    fn drop(&mut self) {
        self.element.remove();
        if let Some(u) = self.state.last_url.borrow_mut().take() {
            let _ = Url::revoke_object_url(&u);
        }
    }
}

/// One key's inputs.
struct KeyInputs {
    /// The value's input or textarea (`None` for arrays).
    value: Option<Element>,
    /// The "remove" checkbox (`None` for the chat template offered to a file without one).
    delete: Option<HtmlInputElement>,
}

/// Everything the listeners share.
struct State {
    name: String,
    model: Rc<Model>,
    file: Blob,
    form: RefCell<EditForm>,
    inputs: RefCell<Vec<KeyInputs>>,
    /// Where the review is drawn, the status line, and the list of pending element edits and
    /// added keys.
    review: Element,
    status: Element,
    pending: Element,
    card: Element,
    /// The object URL of the last save (revoked by the next one or when the card goes).
    last_url: RefCell<Option<String>>,
    /// The open editor's listeners (built on "Open the editor").
    editor_listeners: RefCell<Vec<EventListener>>,
    /// The last review's "Show all" listeners (replaced by the next review).
    review_listeners: RefCell<Vec<EventListener>>,
}

/// Removes the card (a new model is being opened).
pub(super) fn forget() {
    PANEL.with(|p| p.borrow_mut().take());
    dom::body().dataset().delete("edit");
}

/// Adds the "Edit header" card for `model` (a local GGUF file read to the end, `file`) at the
/// end of `root`. The editor itself is built when the person opens it.
pub(super) fn show(root: &Element, name: &str, model: Rc<Model>, file: Blob) {
    forget();
    let (card, body) = dom::card("Edit header", "edit-card");
    attr(&card, "data-testid", "edit-card");
    let head = dom::card_head(&card);
    let actions = el_class("div", "exports");
    let review_btn = button(
        "Review changes",
        "edit-review",
        "what the edits change, and the checks of the result",
    );
    let save_btn = button(
        "Save edited file",
        "edit-save",
        "downloads the new header followed by this file's data section, unchanged",
    );
    append(&actions, &review_btn);
    append(&actions, &save_btn);
    append(&head, &actions);
    dom::set_hidden(&actions, true);
    append(
        &body,
        &el_text(
            "p",
            "muted edit-intro",
            "Change, add or remove metadata keys (chat template, special token ids, token types, any value) and save a new file: the new header followed by this file's data section, unchanged. Nothing is uploaded, and the data section is never copied into memory.",
        ),
    );
    let open = button("Open the editor", "edit-open", "");
    append(&body, &open);
    let editor = el_class("div", "edit-editor");
    append(&body, &editor);
    let pending = el_class("ul", "edit-pending");
    attr(&pending, "data-testid", "edit-pending");
    let status = el_class("p", "edit-status muted");
    attr(&status, "data-testid", "edit-status");
    attr(&status, "role", "status");
    let review_el = el_class("div", "edit-review-out");
    attr(&review_el, "data-testid", "edit-review-out");
    let state = Rc::new(State {
        name: name.to_string(),
        form: RefCell::new(EditForm::new(&model)),
        model,
        file,
        inputs: RefCell::new(Vec::new()),
        review: review_el.clone(),
        status: status.clone(),
        pending: pending.clone(),
        card: card.clone(),
        last_url: RefCell::new(None),
        editor_listeners: RefCell::new(Vec::new()),
        review_listeners: RefCell::new(Vec::new()),
    });
    let mut ls = Vec::new();
    {
        let s = Rc::downgrade(&state);
        let (o, a, ed) = (open.clone(), actions.clone(), editor.clone());
        let (p, st, rv) = (pending.clone(), status.clone(), review_el.clone());
        ls.push(EventListener::new(&open, "click", move |_| {
            let Some(s) = s.upgrade() else { return };
            o.remove();
            dom::set_hidden(&a, false);
            build_editor(&s, &ed);
            append(&ed, &p);
            append(&ed, &st);
            append(&ed, &rv);
            set_body_data("edit", "open");
        }));
    }
    {
        let s = Rc::downgrade(&state);
        ls.push(EventListener::new(&review_btn, "click", move |_| {
            if let Some(s) = s.upgrade() {
                if let Some(p) = make_plan(&s) {
                    draw_review(&s, &p);
                    set_body_data("edit", "reviewed");
                }
            }
        }));
    }
    {
        let s = Rc::downgrade(&state);
        ls.push(EventListener::new(&save_btn, "click", move |_| {
            if let Some(s) = s.upgrade() {
                save(&s);
            }
        }));
    }
    append(root, &card);
    PANEL.with(|p| {
        *p.borrow_mut() = Some(EditCard {
            element: card,
            state,
            _listeners: ls,
        })
    });
}

fn button(label: &str, testid: &str, tip: &str) -> Element {
    let b = el_text("button", "button small", label);
    attr(&b, "type", "button");
    attr(&b, "data-testid", testid);
    if !tip.is_empty() {
        attr(&b, "title", tip);
    }
    b
}

/// A textarea with a line-number gutter kept in step with it (as it is typed in and scrolled).
fn numbered_area(value: &str, testid: &str, ls: &mut Vec<EventListener>) -> (Element, Element) {
    let wrap = el_class("div", "edit-area");
    let gutter = el_text("pre", "edit-lines mono", &line_numbers(value));
    attr(&gutter, "aria-hidden", "true");
    let area: HtmlTextAreaElement = dom::el("textarea").unchecked_into();
    area.set_class_name("edit-text mono");
    area.set_value(value);
    area.set_rows(value.split('\n').count().clamp(4, 18) as u32);
    attr(&area, "spellcheck", "false");
    attr(&area, "wrap", "off");
    attr(&area, "data-testid", testid);
    let area: Element = area.unchecked_into();
    append(&wrap, &gutter);
    append(&wrap, &area);
    let (g, a) = (gutter.clone(), area.clone());
    ls.push(EventListener::new(&area, "input", move |_| {
        let v = a.unchecked_ref::<HtmlTextAreaElement>().value();
        g.set_text_content(Some(&line_numbers(&v)));
        g.set_scroll_top(a.scroll_top());
    }));
    let (g, a) = (gutter, area.clone());
    ls.push(EventListener::new(&area, "scroll", move |_| {
        g.set_scroll_top(a.scroll_top());
    }));
    (wrap, area)
}

fn text_input(value: &str, label: &str) -> HtmlInputElement {
    let i: HtmlInputElement = dom::el("input").unchecked_into();
    i.set_type("text");
    i.set_value(value);
    i.set_class_name("edit-input mono");
    attr(&i, "spellcheck", "false");
    attr(&i, "autocomplete", "off");
    attr(&i, "aria-label", label);
    i
}

/// Builds the editor: the chat template, the table of keys, the element and add-key forms.
fn build_editor(s: &Rc<State>, into: &Element) {
    let mut ls = Vec::new();
    let form = s.form.borrow();
    let mut inputs = Vec::with_capacity(form.keys.len());

    // The chat template first: the reason most people open the editor.
    let t_index = form.keys.iter().position(|k| k.key == TEMPLATE_KEY);
    let head = el_text("h3", "compare-h", "Chat template (tokenizer.chat_template)");
    append(into, &head);
    if let Some(k) = t_index.map(|i| &form.keys[i]) {
        if k.original.is_none() {
            append(
                into,
                &el_text(
                    "p",
                    "muted edit-note",
                    "This file has no chat template: one written here is added.",
                ),
            );
        }
        let (wrap, _) = numbered_area(&k.value, "edit-template", &mut ls);
        append(into, &wrap);
    }

    append(into, &el_text("h3", "compare-h", "Metadata"));
    let (wrap, body) = super::compare::table("edit-keys", &["key", "type", "value", "remove"]);
    attr(&wrap, "data-testid", "edit-keys");
    append(into, &wrap);
    for (i, k) in form.keys.iter().enumerate() {
        if Some(i) == t_index {
            // Drawn above; its removal box sits in the table with the others.
            let area = into
                .query_selector("[data-testid=edit-template]")
                .ok()
                .flatten();
            let delete = k.original.is_some().then(|| checkbox(&k.key));
            if let Some(d) = &delete {
                let tr = row(&k.key, k.ty);
                append(&tr, &el_text("td", "muted", "(above)"));
                let td = el_class("td", "col-remove");
                append(&td, d);
                append(&tr, &td);
                append(&body, &tr);
            }
            inputs.push(KeyInputs {
                value: area,
                delete,
            });
            continue;
        }
        let tr = row(&k.key, k.ty);
        let td = el_class("td", "col-value");
        let value = match &k.editor {
            Editor::Line(v) => {
                let input = text_input(v, &format!("value of {}", escape(&k.key)));
                attr(&input, "data-key", &k.key);
                append(&td, &input);
                Some(input.unchecked_into::<Element>())
            }
            Editor::Area(v) => {
                let (wrap, area) = numbered_area(v, "edit-area", &mut ls);
                attr(&area, "data-key", &k.key);
                append(&td, &wrap);
                Some(area)
            }
            Editor::Elements { elem, len } => {
                element_editor(s, &td, &k.key, *elem, *len, &mut ls);
                None
            }
        };
        append(&tr, &td);
        let delete = checkbox(&k.key);
        let rm = el_class("td", "col-remove");
        append(&rm, &delete);
        append(&tr, &rm);
        append(&body, &tr);
        inputs.push(KeyInputs {
            value,
            delete: Some(delete),
        });
    }
    drop(form);
    *s.inputs.borrow_mut() = inputs;
    add_key_form(s, into, &mut ls);
    *s.editor_listeners.borrow_mut() = ls;
}

fn row(key: &str, ty: &str) -> Element {
    let tr = dom::el("tr");
    attr(&tr, "data-key", key);
    append(&tr, &el_text("td", "col-name mono", &escape(key)));
    append(&tr, &el_text("td", "col-type mono", ty));
    tr
}

fn checkbox(key: &str) -> HtmlInputElement {
    let c: HtmlInputElement = dom::el("input").unchecked_into();
    c.set_type("checkbox");
    attr(&c, "aria-label", &format!("remove {}", escape(key)));
    attr(&c, "data-remove", key);
    c
}

/// "element #[index] = [value] [Set]" for an array; the value input shows the element's
/// current value when an index is typed.
fn element_editor(
    s: &Rc<State>,
    td: &Element,
    key: &str,
    elem: crate::format::ValueType,
    len: u64,
    ls: &mut Vec<EventListener>,
) {
    let line = el_class("div", "edit-element");
    append(
        &line,
        &el_text(
            "span",
            "muted",
            &format!(
                "{} × {} · element",
                elem.name(),
                crate::text::thousands(len)
            ),
        ),
    );
    let index: HtmlInputElement = dom::el("input").unchecked_into();
    index.set_type("number");
    index.set_min("0");
    index.set_max(&len.saturating_sub(1).to_string());
    index.set_class_name("edit-index mono");
    attr(&index, "aria-label", &format!("element of {}", escape(key)));
    attr(&index, "data-element-index", key);
    let value = text_input("", &format!("new value of the element of {}", escape(key)));
    attr(&value, "data-element-value", key);
    let set = button("Set", "edit-element-set", "");
    attr(&set, "data-key", key);
    append(&line, &index);
    append(&line, &el_text("span", "muted", "="));
    append(&line, &value);
    append(&line, &set);
    append(td, &line);
    {
        let (w, i, v, k) = (
            Rc::downgrade(s),
            index.clone(),
            value.clone(),
            key.to_string(),
        );
        ls.push(EventListener::new(&index, "input", move |_| {
            let Some(s) = w.upgrade() else { return };
            let t = i
                .value()
                .parse::<u64>()
                .ok()
                .and_then(|n| element_text(&s.model, &k, n));
            v.set_value(&t.unwrap_or_default());
        }));
    }
    let (w, i, v, k) = (Rc::downgrade(s), index, value, key.to_string());
    ls.push(EventListener::new(&set, "click", move |_| {
        let Some(s) = w.upgrade() else { return };
        match i.value().parse::<u64>() {
            Ok(n) => {
                s.form.borrow_mut().elements.push((k.clone(), n, v.value()));
                draw_pending(&s);
            }
            Err(_) => say(&s, "Type the element's index (0, 1, …) first.", true),
        }
    }));
}

/// Key, type ("from the value" or one of GGUF's), value, "Add".
fn add_key_form(s: &Rc<State>, into: &Element, ls: &mut Vec<EventListener>) {
    append(into, &el_text("h3", "compare-h", "Add a key"));
    let line = el_class("div", "edit-add");
    let key = text_input("", "new key");
    key.set_placeholder("key (e.g. tokenizer.ggml.eot_token_id)");
    attr(&key, "data-testid", "edit-add-key");
    let ty: HtmlSelectElement = dom::el("select").unchecked_into();
    attr(&ty, "aria-label", "type of the new key");
    attr(&ty, "data-testid", "edit-add-type");
    for t in [
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
    ] {
        let o = el_text("option", "", t);
        attr(&o, "value", t);
        append(&ty, &o);
    }
    let value = text_input("", "value of the new key");
    value.set_placeholder("value");
    attr(&value, "data-testid", "edit-add-value");
    let add = button("Add", "edit-add", "");
    append(&line, &key);
    append(&line, &ty);
    append(&line, &value);
    append(&line, &add);
    append(into, &line);
    let w = Rc::downgrade(s);
    ls.push(EventListener::new(&add, "click", move |_| {
        let Some(s) = w.upgrade() else { return };
        let k = key.value();
        if k.is_empty() {
            say(&s, "Type the new key's name first.", true);
            return;
        }
        let t = type_named(&ty.value());
        s.form.borrow_mut().added.push((k, t, value.value()));
        key.set_value("");
        value.set_value("");
        draw_pending(&s);
    }));
}

/// The element edits and added keys waiting for the next review or save.
fn draw_pending(s: &State) {
    dom::clear(&s.pending);
    let form = s.form.borrow();
    for (k, i, v) in &form.elements {
        append(
            &s.pending,
            &el_text("li", "mono", &format!("{}[{i}] = {}", escape(k), escape(v))),
        );
    }
    for (k, t, v) in &form.added {
        let ty = t.map_or("", |t| t.name());
        append(
            &s.pending,
            &el_text(
                "li",
                "mono",
                &format!(
                    "+ {}{}{ty} = {}",
                    escape(k),
                    if ty.is_empty() { "" } else { ":" },
                    escape(v)
                ),
            ),
        );
    }
}

fn say(s: &State, text: &str, error: bool) {
    s.status.set_text_content(Some(text));
    s.status.set_class_name(if error {
        "edit-status warn"
    } else {
        "edit-status muted"
    });
    if error {
        set_body_data("edit", "error");
    }
}

/// Reads the inputs into the form.
fn read_inputs(s: &State) {
    let inputs = s.inputs.borrow();
    let mut form = s.form.borrow_mut();
    for (k, i) in form.keys.iter_mut().zip(inputs.iter()) {
        if let Some(v) = &i.value {
            k.value = if let Some(a) = v.dyn_ref::<HtmlTextAreaElement>() {
                a.value()
            } else if let Some(t) = v.dyn_ref::<HtmlInputElement>() {
                t.value()
            } else {
                k.value.clone()
            };
        }
        k.delete = i.delete.as_ref().is_some_and(HtmlInputElement::checked);
    }
}

/// The plan of the form's edits, or `None` with the reason in the status line.
fn make_plan(s: &State) -> Option<Plan> {
    read_inputs(s);
    let edits = s.form.borrow().edits();
    match plan(&s.model.bytes, s.model.file_size, &edits) {
        Ok(p) => Some(p),
        Err(e) => {
            say(s, &format!("Cannot make this edit: {e}"), true);
            None
        }
    }
}

/// Draws what the plan changes: the changes, the sizes, the metadata differences and the
/// checks of the result.
fn draw_review(s: &State, p: &Plan) {
    let out = edited_file_name(&s.name);
    let r = review(&s.name, &s.model, &out, p);
    dom::clear(&s.review);
    let c = &r.compare.counts;
    attr(&s.review, "data-changes", &r.changes.len().to_string());
    attr(&s.review, "data-keys-added", &c.keys_added.to_string());
    attr(&s.review, "data-keys-removed", &c.keys_removed.to_string());
    attr(&s.review, "data-keys-changed", &c.keys_changed.to_string());
    attr(
        &s.review,
        "data-tensors-changed",
        &(c.changed + c.only_a + c.only_b).to_string(),
    );
    say(
        s,
        &if r.changes.is_empty() {
            "No changes: the saved file would be this file, byte for byte.".to_string()
        } else {
            format!("{} change(s); {}", r.changes.len(), r.sizes)
        },
        false,
    );
    for n in &r.notes {
        append(&s.review, &el_text("p", "note warn", n));
    }
    append(&s.review, &el_text("h3", "compare-h", "Changes"));
    let (wrap, body) = super::compare::table("edit-changes", &["", "key", "before", "after"]);
    attr(&wrap, "data-testid", "edit-changes");
    for ch in &r.changes {
        let tr = dom::el("tr");
        attr(&tr, "data-kind", ch.kind);
        attr(&tr, "data-name", &ch.raw);
        let td = el_class("td", "col-kind");
        append(
            &td,
            &el_text("span", &format!("kind kind-{}", ch.kind), ch.kind),
        );
        append(&tr, &td);
        append(&tr, &el_text("td", "col-name mono", &ch.name));
        append(&tr, &el_text("td", "col-a mono", &ch.before));
        append(&tr, &el_text("td", "col-b mono", &ch.after));
        append(&body, &tr);
    }
    append(&s.review, &wrap);
    append(
        &s.review,
        &el_text("p", "compare-summary", &r.compare.summary),
    );
    let mut ls = Vec::new();
    super::compare::row_list(
        &s.review,
        "Metadata differences (this file → the edited file)",
        "edit-diff",
        Rc::new(r.compare.keys.clone()),
        &mut ls,
    );
    let checks = super::checks::checks_card(&r.findings);
    attr(&checks, "data-testid", "edit-checks");
    append(&s.review, &checks);
    // The "Show all" listeners live until the next review (or the card goes).
    *s.review_listeners.borrow_mut() = ls;
}

/// Saves `new Blob([header, file.slice(data_offset)])` as `<name>.edited.gguf`.
fn save(s: &State) {
    let Some(p) = make_plan(s) else { return };
    draw_review(s, &p);
    let header = Uint8Array::from(p.header.as_slice());
    let parts = Array::of1(&header);
    if p.data_len > 0 {
        // Blob sizes are integers below 2^53.
        match s.file.slice_with_f64(p.data_offset as f64) {
            Ok(data) => {
                parts.push(&data);
            }
            Err(e) => {
                say(
                    s,
                    &format!(
                        "Cannot read the data section: {}",
                        super::blob::js_error_text(&e)
                    ),
                    true,
                );
                return;
            }
        }
    }
    let opts = BlobPropertyBag::new();
    opts.set_type("application/octet-stream");
    let Ok(blob) = Blob::new_with_blob_sequence_and_options(&parts, &opts) else {
        say(s, "The browser could not make the file.", true);
        return;
    };
    drop(parts);
    drop(header);
    let Ok(href) = Url::create_object_url_with_blob(&blob) else {
        say(s, "The browser could not make the file.", true);
        return;
    };
    if let Some(old) = s.last_url.borrow_mut().replace(href.clone()) {
        let _ = Url::revoke_object_url(&old);
    }
    let file = edited_file_name(&s.name);
    let a: HtmlAnchorElement = dom::el("a").unchecked_into();
    a.set_href(&href);
    a.set_download(&file);
    a.click();
    attr(&s.card, "data-header-bytes", &p.header.len().to_string());
    attr(&s.card, "data-data-offset", &p.data_offset.to_string());
    attr(&s.card, "data-file-size", &p.file_size().to_string());
    say(
        s,
        &format!(
            "Saved {} ({} bytes): the new header ({} bytes) and this file's data section.",
            escape(&file),
            crate::text::thousands(p.file_size()),
            crate::text::thousands(p.header.len() as u64)
        ),
        false,
    );
    set_body_data("edit", "saved");
}
