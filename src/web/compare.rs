//! The page's "Compare with another file…": a second model (picked with the file input, dropped
//! while "drop to compare" is ticked, or named by a URL) is read header-only through
//! [`super::load`], and the Compare card draws what [`crate::view::compare`] computed against
//! the model shown. Page only (not the embedded widget).
//!
//! `body[data-compare]` says `loading`, `ready` or `error` for the tests. Everything from a file
//! goes in as text.

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use gloo::events::{EventListener, EventListenerOptions};
use wasm_bindgen::JsCast;
use web_sys::{Blob, Element, HtmlInputElement};

use super::dom::{self, by_id};
use super::load::{self, Fetcher, Opened};
use super::App;
use crate::format::Model;
use crate::view::compare::{self as vm, CompareView, Row, Status};
use crate::view::errors::{Failure, Front};
use crate::view::facts;
use crate::view::opening::local_given;

thread_local! {
    /// The card shown now (its listeners and download URL), dropped when it is closed, replaced
    /// or the next model is opened.
    static CARD: RefCell<Option<Placed>> = const { RefCell::new(None) };
    /// Bumped for every comparison started; a read that finishes after a newer one is dropped.
    static RUN: Cell<u64> = const { Cell::new(0) };
    /// The remote reading in progress (cancelled by the next comparison or a new model).
    static FETCHER: RefCell<Option<Rc<Fetcher>>> = const { RefCell::new(None) };
}

/// A card on the page and its listeners (the Compare card's "Download JSON" listener holds its
/// [`super::export::Download`]); dropping it removes the card.
pub(super) struct Placed {
    pub card: Element,
    pub _listeners: Vec<EventListener>,
}

impl Drop for Placed {
    fn drop(&mut self) {
        self.card.remove();
    }
}

/// Removes the card and stops a comparison in progress (a new model is being opened).
pub(super) fn forget() {
    RUN.with(|r| r.set(r.get() + 1));
    if let Some(f) = FETCHER.with(|f| f.borrow_mut().take()) {
        f.cancel();
    }
    CARD.with(|c| c.borrow_mut().take());
    status(Status::Idle);
}

fn input(id: &str) -> HtmlInputElement {
    by_id(id).unchecked_into()
}

/// The status line under the compare controls, and `body[data-compare]`.
fn status(s: Status) {
    let el = by_id("compare-status");
    el.set_text_content(Some(s.text()));
    el.set_class_name(s.class());
    dom::set_attrs(
        &dom::body(),
        [("data-compare", s.state().map(str::to_string))],
    );
}

/// Wires the compare controls of index.html; the listeners go into the app's list.
pub(super) fn wire(app: &Rc<App>, ls: &mut Vec<EventListener>) {
    let file_input = input("compare-input");
    let w = Rc::downgrade(app);
    let fi = file_input.clone();
    ls.push(EventListener::new(&file_input, "change", move |_| {
        let files = fi.files().and_then(|l| load::local_files(&l.into(), None));
        fi.set_value("");
        if let (Some(app), Some(files)) = (w.upgrade(), files) {
            compare_files(&app, files);
        }
    }));
    let w = Rc::downgrade(app);
    ls.push(EventListener::new_with_options(
        &by_id("compare-url-form"),
        "submit",
        EventListenerOptions::enable_prevent_default(),
        move |e| {
            e.prevent_default();
            if let Some(app) = w.upgrade() {
                compare_url(&app, input("compare-url").value());
            }
        },
    ));
}

/// "Drop to compare" is ticked: a dropped file is compared instead of opened.
pub(super) fn drop_compares() -> bool {
    input("compare-drop").checked()
}

/// Compares the model shown with files dropped or picked together (one model, or a set).
pub(super) fn compare_files(app: &Rc<App>, files: Vec<(String, Blob)>) {
    let Some(run) = begin(app) else { return };
    let (name, size) = local_given(files.iter().map(|(n, b)| (n.as_str(), b.size() as u64)));
    status(Status::Loading(facts::loading_text(&name, size)));
    let w = Rc::downgrade(app);
    // What has been read so far, while this comparison is still the current one.
    let progress = Rc::new(move |read: u64| {
        if RUN.with(Cell::get) == run {
            status(Status::Loading(facts::progress_text(&name, size, read)));
        }
    });
    wasm_bindgen_futures::spawn_local(async move {
        let result = load::read_local(files, progress).await.map_err(Into::into);
        finish(&w, run, result, size);
    });
}

/// Compares the model shown with the file a URL names (Hub forms resolved as the URL box does).
fn compare_url(app: &Rc<App>, text: String) {
    let ep = super::remote::endpoint();
    let file = match load::url_file(&text, &ep) {
        Ok(f) => f,
        Err(f) => {
            status(Status::Failed(f.joined()));
            return;
        }
    };
    let Some(run) = begin(app) else { return };
    status(Status::Loading(vm::reading_text(&text)));
    let fetcher = load::fetcher(ep, super::remote::token(), Box::new(|| {}), Front::Page);
    FETCHER.with(|f| *f.borrow_mut() = Some(fetcher.clone()));
    let w = Rc::downgrade(app);
    wasm_bindgen_futures::spawn_local(async move {
        let result = load::read_remote(fetcher, load::Counters::default(), &[file], None)
            .await
            .map_err(Into::into);
        // The size of B (of a set: its parts' sizes, summed by the merge); a remote file's size
        // is what the server said.
        let size = result.as_ref().map_or(0, |o| o.model.file_size);
        finish(&w, run, result, size);
    });
}

/// Starts a comparison: `None` (and a message) when no model is shown.
fn begin(app: &Rc<App>) -> Option<u64> {
    if app.view.borrow().is_none() {
        status(Status::Failed(vm::NO_MODEL.into()));
        return None;
    }
    if let Some(f) = FETCHER.with(|f| f.borrow_mut().take()) {
        f.cancel();
    }
    Some(RUN.with(|r| {
        r.set(r.get() + 1);
        r.get()
    }))
}

fn finish(app: &Weak<App>, run: u64, result: Result<Opened, Failure>, size: u64) {
    if RUN.with(Cell::get) != run {
        return;
    }
    FETCHER.with(|f| f.borrow_mut().take());
    let Some(app) = app.upgrade() else { return };
    let opened = match result {
        Ok(o) => o,
        Err(f) => {
            status(Status::Failed(f.joined()));
            return;
        }
    };
    let shown = app
        .view
        .borrow()
        .as_ref()
        .map(|v| (v.shown().0.to_string(), v.shown().1.clone()));
    let Some((name_a, model_a)) = shown else {
        status(Status::Failed(vm::MODEL_GONE.into()));
        return;
    };
    let view = vm::compare(&name_a, &model_a, &opened.name, &opened.model);
    let card = draw(
        &app.report_root,
        &view,
        &opened.model,
        opened.stats.bytes,
        size,
    );
    status(Status::Ready);
    card.card.scroll_into_view();
    CARD.with(|c| *c.borrow_mut() = Some(card));
}

/// Wires the "Show all" button that [`vm::row_list`] put after the list `testid` under `root`
/// (if any): a click appends the rows it left out and removes the button.
pub(super) fn show_all(root: &Element, testid: &str, rows: &[Row], ls: &mut Vec<EventListener>) {
    let rest = vm::hidden_rows(rows).to_vec();
    let Some(wrap) = dom::find_testid(root, testid).filter(|_| !rest.is_empty()) else {
        return;
    };
    let (body, more) = (dom::find(&wrap, "tbody"), wrap.next_element_sibling());
    let Some(more) = more else { return };
    let m = more.clone();
    ls.push(EventListener::new(&more, "click", move |_| {
        dom::append_nodes(&body, &rest.iter().map(vm::row_node).collect::<Vec<_>>());
        m.remove();
    }));
}

fn draw(root: &Element, view: &CompareView, b: &Model, b_read: u64, b_size: u64) -> Placed {
    // A card replaced by this one goes first (its Drop removes its element).
    CARD.with(|c| c.borrow_mut().take());
    let card = dom::render(&vm::card(view, b, b_read, b_size));
    let mut ls = Vec::new();
    show_all(&card, "compare-keys", &view.keys, &mut ls);
    show_all(&card, "compare-tensors", &view.tensors, &mut ls);
    show_all(&card, "compare-recipe", &view.recipe, &mut ls);
    let saver = super::export::Download::default();
    let json = view.json.clone();
    let file = vm::diff_file_name(&view.names.0, &view.names.1);
    let download = dom::find(&card, "[data-testid=compare-json]");
    ls.push(EventListener::new(&download, "click", move |_| {
        saver.save(&json, "application/json", &file);
    }));
    let close = dom::find(&card, "[data-testid=compare-close]");
    ls.push(EventListener::new(&close, "click", |_| {
        CARD.with(|c| c.borrow_mut().take());
        status(Status::Idle);
    }));

    // At the top of the report, above the model's own cards.
    let _ = root.insert_before(&card, root.first_child().as_ref());
    Placed {
        card,
        _listeners: ls,
    }
}
