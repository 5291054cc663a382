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
use web_sys::{Blob, Element, HtmlInputElement};

use super::compare::Placed;
use super::dom::{self, all, append, attr, set_body_data, set_value, value_of};
use crate::edit::Plan;
use crate::open::OpenedModel;
use crate::view::edit::{self as vm, EditForm};

thread_local! {
    /// The card of the model shown now and its state; dropped (the card removed, with its
    /// listeners) when the next model opens.
    static PANEL: RefCell<Option<(Placed, Rc<State>)>> = const { RefCell::new(None) };
}

/// Everything the listeners share.
struct State {
    name: String,
    model: Rc<OpenedModel>,
    file: Blob,
    form: RefCell<EditForm>,
    /// The card (the editor's inputs are found in it, [`EditForm::input_order`]).
    card: Element,
    /// The saves (the last one's object URL revoked by the next one or when the card goes).
    download: super::export::Download,
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

/// The element of the card with `data-testid` = `id` (a literal of [`vm::card`] or
/// [`vm::editor`]); the card is broken without it.
fn part(card: &Element, id: &str) -> Element {
    dom::find(card, &format!("[data-testid={id}]"))
}

/// Adds the "Edit header" card for `model` (a local GGUF file read to the end, `file`) at the
/// end of `root`. The editor itself is built when the person opens it.
pub(super) fn show(root: &Element, name: &str, model: Rc<OpenedModel>, file: Blob) {
    forget();
    let card = dom::render(&vm::card());
    let state = Rc::new(State {
        name: name.to_string(),
        form: RefCell::new(EditForm::new(&model)),
        model,
        file,
        card: card.clone(),
        download: Default::default(),
        editor_listeners: RefCell::new(Vec::new()),
        review_listeners: RefCell::new(Vec::new()),
    });
    let (a, ed) = (
        dom::find(&card, ".card-head .exports"),
        dom::find(&card, ".edit-editor"),
    );
    let open = part(&card, "edit-open");
    let ls = vec![
        on(&card, "edit-open", &state, move |s| {
            open.remove();
            dom::set_hidden(&a, false);
            build_editor(s, &ed);
            set_body_data("edit", "open");
        }),
        on(&card, "edit-review", &state, |s| {
            if let Some(p) = make_plan(s) {
                draw_review(s, &p);
                set_body_data("edit", "reviewed");
            }
        }),
        on(&card, "edit-save", &state, |s| save(s)),
    ];
    append(root, &card);
    let placed = Placed {
        card,
        _listeners: ls,
    };
    PANEL.with(|p| *p.borrow_mut() = Some((placed, state)));
}

/// A click listener on the element `id` under `root` that calls `f` while the card lives.
fn on(root: &Element, id: &str, s: &Rc<State>, f: impl Fn(&Rc<State>) + 'static) -> EventListener {
    dom::on_click(&part(root, id), s, f)
}

/// Builds the editor ([`vm::editor`]) into `into`, puts the keys' values in its inputs and
/// wires the line numbers, the element editors and the add-key form.
fn build_editor(s: &Rc<State>, into: &Element) {
    let form = s.form.borrow();
    dom::append_nodes(into, &vm::editor(&form));
    for (v, e) in form
        .input_values()
        .iter()
        .zip(all(into, vm::VALUE_SELECTOR))
    {
        set_value(&e, v);
    }
    drop(form);
    let mut ls = Vec::new();
    // Each textarea's line-number gutter kept in step with it (as it is typed in and scrolled).
    for wrap in all(into, ".edit-area") {
        let (Some(g), Some(a)) = (wrap.first_element_child(), wrap.last_element_child()) else {
            continue;
        };
        let (g2, a2) = (g.clone(), a.clone());
        ls.push(EventListener::new(&a, "input", move |_| {
            g2.set_text_content(Some(&vm::line_numbers(&value_of(&a2))));
            g2.set_scroll_top(a2.scroll_top());
        }));
        let a2 = a.clone();
        ls.push(EventListener::new(&a, "scroll", move |_| {
            g.set_scroll_top(a2.scroll_top());
        }));
    }
    for line in all(into, ".edit-element") {
        element_editor(s, &line, &mut ls);
    }
    let [key, ty, value] =
        ["edit-add-key", "edit-add-type", "edit-add-value"].map(|id| part(into, id));
    ls.push(on(into, "edit-add", s, move |s| {
        let added = s
            .form
            .borrow_mut()
            .add_key(&value_of(&key), &value_of(&ty), &value_of(&value));
        match added {
            Ok(()) => {
                set_value(&key, "");
                set_value(&value, "");
                draw_pending(s);
            }
            Err(e) => say(s, e, true),
        }
    }));
    *s.editor_listeners.borrow_mut() = ls;
}

/// Wires an element editor (`div.edit-element` of [`vm::editor`]): typing an index shows that
/// element's current value; "Set" adds the edit to the pending list.
fn element_editor(s: &Rc<State>, line: &Element, ls: &mut Vec<EventListener>) {
    let index = dom::find(line, "input[data-element-index]");
    let value = dom::find(line, "input[data-element-value]");
    let key = index
        .get_attribute("data-element-index")
        .unwrap_or_default();
    let (w, i, v, k) = (Rc::downgrade(s), index.clone(), value.clone(), key.clone());
    ls.push(EventListener::new(&index, "input", move |_| {
        if let Some(s) = w.upgrade() {
            set_value(&v, &vm::element_at(&s.model, &k, &value_of(&i)));
        }
    }));
    ls.push(on(line, "edit-element-set", s, move |s| {
        let set = s
            .form
            .borrow_mut()
            .set_element(&key, &value_of(&index), &value_of(&value));
        match set {
            Ok(()) => draw_pending(s),
            Err(e) => say(s, e, true),
        }
    }));
}

/// The element edits and added keys waiting for the next review or save.
fn draw_pending(s: &State) {
    dom::fill(
        &part(&s.card, "edit-pending"),
        &vm::pending_items(&s.form.borrow()),
    );
}

fn say(s: &State, text: &str, error: bool) {
    let status = part(&s.card, "edit-status");
    status.set_text_content(Some(text));
    status.set_class_name(&vm::status_class(error));
    if error {
        set_body_data("edit", "error");
    }
}

/// Reads the editor's inputs into the form.
fn read_inputs(s: &State) {
    let values = all(&s.card, vm::VALUE_SELECTOR)
        .iter()
        .map(value_of)
        .collect();
    let checked = |e: &Element| e.unchecked_ref::<HtmlInputElement>().checked();
    let deletes = all(&s.card, vm::DELETE_SELECTOR)
        .iter()
        .map(checked)
        .collect();
    s.form.borrow_mut().read_inputs(values, deletes);
}

/// The plan of the form's edits ([`EditForm::plan`]), or `None` with the reason in the status
/// line.
fn make_plan(s: &State) -> Option<Plan> {
    read_inputs(s);
    let planned = s.form.borrow().plan(&s.model);
    planned
        .map_err(|e| say(s, &vm::plan_failed_text(&e), true))
        .ok()
}

/// Draws what the plan changes ([`vm::review_out`]) in the review's place, keeping the element.
fn draw_review(s: &State, p: &Plan) {
    let r = vm::review(&s.name, &s.model, &vm::edited_file_name(&s.name), p);
    let out = part(&s.card, "edit-review-out");
    dom::patch(&out, &vm::review_out(&r));
    say(s, &vm::review_status(&r), false);
    let mut ls = Vec::new();
    super::compare::show_all(&out, "edit-diff", &r.compare.keys, &mut ls);
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
            Ok(data) => parts.push(&data),
            Err(e) => {
                let e = crate::source::blob::js_error_text(&e);
                return say(s, &vm::data_unreadable_text(&e), true);
            }
        };
    }
    let (file, media) = (vm::edited_file_name(&s.name), "application/octet-stream");
    if !s.download.save_parts(&parts, media, &file) {
        return say(s, vm::NO_FILE_MADE, true);
    }
    for (k, v) in vm::saved_attrs(&p) {
        attr(&s.card, k, &v);
    }
    say(s, &vm::saved_text(&file, &p), false);
    set_body_data("edit", "saved");
}
