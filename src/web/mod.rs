//! The web page (wasm32 only): wires the static page (index.html) to the core, and draws what
//! the core and the view-models computed. Nothing here computes figures or text of its own.
//!
//! - `mod.rs`: start-up, the app state, opening a file (drop, pick, bundled sample).
//! - [`remote`]: the URL box, Hub settings, repository file list, progress and cancel.
//! - [`dom`]: element-building helpers (text nodes only, never HTML) and `render`, which turns
//!   a [`crate::view::node::Node`] (a card built and tested natively) into elements.
//! - [`report`]: the view of one model (tabbed, [`tabs`]; the page and the element draw the
//!   same view), owning every listener of that view; [`address`]: the page's address as
//!   [`crate::view::address`] says (`?url=`, `&tensor=`, `?tab=`, `#tab=`).
//! - [`metadata`], [`tables`], [`histogram`]: the cards with listeners (the summary, Checks,
//!   layer-map, recipe and memory cards are drawn from their view-models by [`report`]);
//!   [`preview`]: a tensor's values (opened from the tensor table);
//!   [`export`]: the "Download JSON / CSV / Markdown" buttons;
//!   [`tokenizer`]: the tokenizer card (token list, chat templates); [`fit`]: the device
//!   settings, the Fit card and a repo's "Will it fit?" table.
//! - [`load`]: opening a model (local files or URLs given together: one file, a set, an
//!   index and its shards) through the browser's openers ([`crate::open::browser`]; a
//!   remote one's requests by a [`load::Fetcher`], the source layer's `fetch` transport worded
//!   for the page or the element and the API), each
//!   front end's words for a failure, and the remote headers one page's views share;
//!   [`compare`]: "Compare with another file…" and the Compare card (page only);
//!   [`edit`]: the "Edit header" card of a local GGUF file (the page's Edit tab);
//!   [`widget`]: the `<weightpeek-view>` element's view; [`api`]: the
//!   JavaScript API (`inspect`, `preview`, `fit`). www/weightpeek.js is the module around both.

#![allow(rustdoc::private_intra_doc_links)]

mod address;
pub mod api;
mod compare;
mod dom;
mod edit;
mod export;
mod fit;
mod histogram;
mod later;
mod load;
mod metadata;
mod preview;
mod remote;
mod report;
pub mod scan;
mod scan_card;
mod tables;
mod tabs;
mod tokenizer;
pub mod widget;

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use gloo::events::{EventListener, EventListenerOptions};
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, DragEvent, Element, Event, HtmlInputElement, Response};

use crate::source::blob::js_error_text;
use crate::view::element::DataState;
use crate::view::errors::{self, Failure, Front};
use crate::view::facts;
use crate::view::js::JsData;
use crate::view::opening::{local_given, sample_failure, server_answered, Early, EarlyOpen};
use crate::view::opening::{SAMPLE_STATUS, SAMPLE_URL};
use crate::view::report::Carried;
use dom::{by_id, set_body_data};

/// The page: its static elements, the listeners that live as long as it, and the view of the
/// model shown now (replaced, with all its listeners, when the next file is opened).
struct App {
    report_root: Element,
    error: Element,
    status: Element,
    /// Bumped for every file opened; a read that finishes after a newer one started is dropped.
    generation: Cell<u64>,
    view: RefCell<Option<report::Report>>,
    listeners: RefCell<Vec<EventListener>>,
}

thread_local! {
    /// The app lives for the page's lifetime; listeners hold only weak references to it.
    static APP: RefCell<Option<Rc<App>>> = const { RefCell::new(None) };
    /// What the reader did in the page's lean view (www/page.js) before the app ran, given
    /// with the early input (`window.__wpEarly.view`): used by the first model the app draws
    /// ([`apply_carried`]), or dropped when that opening fails.
    static CARRIED: RefCell<Option<Carried>> = const { RefCell::new(None) };
}

/// The carried state done again in `view` of `model` (once: it is gone after).
fn apply_carried(view: &report::Report, model: &crate::format::Model) {
    let Some(c) = CARRIED.with(|c| c.borrow_mut().take()) else {
        return;
    };
    if let Some(i) = c.tensor_index(model) {
        view.open_tensor(i);
        view.tabs().select(crate::view::tabs::Tab::Preview, false);
    }
    if let Some(k) = c.export {
        view.export(k);
    }
}

/// Entry point, called once by the wasm binary's `main`. On a page other than index.html (one
/// that loads www/weightpeek.js for the widget or the API), and in the scan's Worker, there
/// is no app to start.
pub fn start() {
    // A Web Worker (www/scan-worker.js) has no document: nothing to start, only exports.
    let page = web_sys::window().and_then(|w| w.document());
    // The lean module (no `full` feature) serves the element and `inspect()` only.
    if !crate::FULL || page.is_none_or(|d| d.get_element_by_id("report").is_none()) {
        std::panic::set_hook(Box::new(|info| {
            web_sys::console::error_1(&errors::crash_text(info).into());
        }));
        return;
    }
    std::panic::set_hook(Box::new(|info| {
        let msg = errors::crash_text(info);
        web_sys::console::error_1(&msg.as_str().into());
        if let Some(e) = dom::document().get_element_by_id("error") {
            e.set_text_content(Some(&msg));
            dom::set_hidden(&e, false);
        }
        set_body_data("state", "error");
    }));
    let app = Rc::new(App {
        report_root: by_id("report"),
        error: by_id("error"),
        status: by_id("status"),
        generation: Cell::new(0),
        view: RefCell::new(None),
        listeners: RefCell::new(Vec::new()),
    });
    // Something given while the modules loaded (or a `?url=` address) opens now: the state
    // goes from "loading" to that opening's, with no "idle" between (www/page.js and tests wait
    // for the opening's state).
    let (early, files) = take_early();
    let pending = early.pending() || address::param("url").is_some();
    wire(&app);
    APP.with(|a| *a.borrow_mut() = Some(app.clone()));
    if !pending {
        set_body_data("state", "idle");
    }
    open_early(app, early, files);
}

/// Takes what was given while the module loaded (`www/early.js` keeps it in
/// `window.__wpEarly`, emptied here): the files picked or dropped, the URL submitted, the
/// sample asked for; the reader's lean view's state goes to [`CARRIED`].
fn take_early() -> (Early, Vec<(String, Blob)>) {
    let window = gloo::utils::window();
    let early = js_sys::Reflect::get(&window, &"__wpEarly".into()).unwrap_or_default();
    if !early.is_object() {
        return (Early::default(), Vec::new());
    }
    let (given, carried) = Early::of(&early);
    if carried.is_some() {
        CARRIED.with(|c| *c.borrow_mut() = carried);
    }
    // An array of the `File`s picked or dropped (www/early.js).
    let files = load::local_files(&early.get("files"), None).unwrap_or_default();
    for (k, v) in Early::TAKEN {
        let v = v.map_or(wasm_bindgen::JsValue::NULL, Into::into);
        let _ = js_sys::Reflect::set(&early, &k.into(), &v);
    }
    (given, files)
}

/// Opens what was given while the module loaded ([`take_early`]): the files, the URL (the
/// form is submitted again, now to the app's own listener) or the sample.
fn open_early(app: Rc<App>, early: Early, files: Vec<(String, Blob)>) {
    match early.open() {
        EarlyOpen::Files if !files.is_empty() => open(app, files),
        EarlyOpen::Url(url) => {
            // The URL given, not what the address's `url=` put in the box meanwhile.
            dom::set_value(&by_id("url-input"), &url);
            let form: web_sys::HtmlFormElement = by_id("url-form").unchecked_into();
            let _ = form.request_submit();
        }
        EarlyOpen::Sample => wasm_bindgen_futures::spawn_local(open_sample(app)),
        EarlyOpen::Files | EarlyOpen::Nothing => {}
    }
}

fn on_drop(app: &Weak<App>, e: &Event) {
    e.prevent_default();
    e.stop_propagation();
    dom::body().class_list().remove_1("dragging").ok();
    let list = e.dyn_ref::<DragEvent>().and_then(DragEvent::data_transfer);
    let files = list.and_then(|dt| load::local_files(&dt.files()?.into(), None));
    let (Some(app), Some(files)) = (app.upgrade(), files) else {
        return;
    };
    if compare::drop_compares() && app.view.borrow().is_some() {
        compare::compare_files(&app, files);
        return;
    }
    open(app, files);
}

fn wire(app: &Rc<App>) {
    let mut ls = Vec::new();
    let zone = by_id("drop-zone");
    let input: HtmlInputElement = by_id("file-input").unchecked_into();
    let sample = by_id("open-sample");
    let window = gloo::utils::window();
    let body = dom::body();
    let prevent = EventListenerOptions::enable_prevent_default();

    // Dropping anywhere on the page opens the file; the browser must not navigate to it.
    for target in [zone.as_ref(), window.as_ref()] {
        let w = Rc::downgrade(app);
        ls.push(EventListener::new_with_options(
            target,
            "drop",
            prevent,
            move |e| on_drop(&w, e),
        ));
        ls.push(EventListener::new_with_options(
            target,
            "dragover",
            prevent,
            |e| {
                e.prevent_default();
                dom::body().class_list().add_1("dragging").ok();
            },
        ));
    }
    ls.push(EventListener::new(&body, "dragleave", |e| {
        // Leaving the window (no related target) ends the highlight.
        let left = e
            .dyn_ref::<web_sys::MouseEvent>()
            .is_some_and(|m| m.related_target().is_none());
        if left {
            dom::body().class_list().remove_1("dragging").ok();
        }
    }));

    let w = Rc::downgrade(app);
    let input2 = input.clone();
    ls.push(EventListener::new(&input, "change", move |_| {
        let files = input2
            .files()
            .and_then(|l| load::local_files(&l.into(), None));
        if let (Some(app), Some(files)) = (w.upgrade(), files) {
            // Let the same files be picked again later.
            input2.set_value("");
            open(app, files);
        }
    }));

    ls.push(dom::on_click(&sample, app, |app| {
        wasm_bindgen_futures::spawn_local(open_sample(app.clone()))
    }));
    // A fragment changed by hand or by a link on the page (`#tab=fit`) shows that tab.
    let w = Rc::downgrade(app);
    ls.push(EventListener::new(&window, "hashchange", move |_| {
        let Some(app) = w.upgrade() else { return };
        let tab = address::asked_tab();
        let view = app.view.borrow();
        if let (Some(v), Some(t)) = (view.as_ref(), tab) {
            v.tabs().select(t, false);
        }
    }));
    remote::wire(app, &mut ls);
    compare::wire(app, &mut ls);
    *app.listeners.borrow_mut() = ls;
}

impl App {
    /// Starts a new file: forgets the old view (dropping its listeners) and says "loading".
    fn begin(&self, name: &str, what: &str) -> u64 {
        let g = self.generation.get() + 1;
        self.generation.set(g);
        compare::forget();
        edit::forget();
        self.view.borrow_mut().take();
        dom::clear(&self.report_root);
        self.show_error(None);
        self.name_shown(name);
        dom::body().class_list().add_1("has-file").ok();
        set_body_data("state", "loading");
        self.status.set_text_content(Some(what));
        dom::set_hidden(&self.status, false);
        g
    }

    /// The file shown is called `name` (`body[data-file]`, the document title): what was
    /// given while it loads, then the name of what was opened.
    fn name_shown(&self, name: &str) {
        set_body_data("file", name);
        dom::document().set_title(&facts::page_title(Some(name)));
    }

    fn current(&self, g: u64) -> bool {
        self.generation.get() == g
    }

    /// Shows a failure (headline, details) in the error box, or hides and empties it.
    fn show_error(&self, text: Option<Failure>) {
        dom::show_failure(&self.error, text);
    }

    fn fail(&self, text: Failure) {
        // The reader's lean view's state was for this opening.
        CARRIED.with(|c| c.borrow_mut().take());
        dom::set_hidden(&self.status, true);
        self.show_error(Some(text));
        set_body_data("state", "error");
    }

    /// Shows the model `o` opened as the page's tabbed view, on the tab the address asks for
    /// (Summary when it asks for none, or for one this model lacks), a partial model's failure
    /// above it; the tab the person picks is written into the address ([`address`]). With
    /// `editor`, an Edit tab is made for the header editor ([`report::Report::edit_panel`]);
    /// `on_preview` is told the tensor previewed. [`App::shown`] ends it.
    fn show(
        &self,
        o: &load::Opened,
        editor: bool,
        scan: scan_card::ScanInput,
        on_preview: Option<preview::OnChange>,
    ) -> report::Report {
        dom::set_hidden(&self.status, true);
        self.name_shown(&o.name);
        if let Some(e) = &o.model.error {
            self.show_error(Some(errors::partial_failure(e, &o.name, Front::Page)));
        }
        let carried = CARRIED.with(|c| c.borrow().as_ref().and_then(|c| c.tab));
        let first = carried
            .or_else(address::asked_tab)
            .unwrap_or(crate::view::tabs::Tab::Summary);
        let layout = report::Layout::Page { first, editor };
        let on_select = Rc::new(address::set_tab);
        let view = report::Report::build(&self.report_root, o, layout, scan, on_select, None);
        address::set_tab(view.tabs().current());
        if let Some(f) = on_preview {
            view.on_preview(f);
        }
        apply_carried(&view, &o.model);
        view
    }

    /// The page is ready once the cards built after the first view are there too (`failed`:
    /// the model was read only in part).
    fn shown(&self, view: report::Report, failed: bool) {
        view.when_built(move || set_body_data("state", DataState::shown(failed).name()));
        *self.view.borrow_mut() = Some(view);
    }
}

/// Opens local files picked or dropped together as one model (one file, the parts of a
/// split set, an index with its shards, a `config.json` along): reads their headers,
/// summarises, draws. Files that do not belong are reported in the set fact, not merged.
fn open(app: Rc<App>, files: Vec<(String, Blob)>) {
    // A local file has no link that reopens it: the address stops naming a remote model.
    remote::clear_page_url();
    let (name, size) = local_given(files.iter().map(|(n, b)| (n.as_str(), b.size() as u64)));
    // One file alone can have its header edited (never a set of parts merged into one).
    let alone = match files.as_slice() {
        [(_, blob)] => Some(blob.clone()),
        _ => None,
    };
    let g = app.begin(&name, &facts::loading_text(&name, size));
    wasm_bindgen_futures::spawn_local(async move {
        let weak = Rc::downgrade(&app);
        let shown_name = name.clone();
        let progress = Rc::new(move |read: u64| {
            // A newer file may have started meanwhile: its status line is not ours to write.
            if let Some(app) = weak.upgrade().filter(|a| a.current(g)) {
                let text = facts::progress_text(&shown_name, size, read);
                app.status.set_text_content(Some(&text));
            }
        });
        let scan_input = scan_card::ScanInput::local(&files);
        let result = load::read_local(files, progress).await;
        if !app.current(g) {
            return;
        }
        match result {
            Err(e) => app.fail(e.into()),
            Ok(o) => {
                let editable = crate::view::report::editable(&o.model, alone.is_some());
                let view = app.show(&o, editable, scan_input, None);
                if let (Some(panel), Some(blob)) = (view.edit_panel(), alone) {
                    edit::show(&panel, &o.name, o.model.clone(), blob);
                }
                app.shown(view, o.model.error.is_some());
            }
        }
    });
}

/// Fetches the bundled sample and opens it like a dropped file.
async fn open_sample(app: Rc<App>) {
    let g = app.begin(SAMPLE_URL, SAMPLE_STATUS);
    let bytes = async {
        let resp: Response = JsFuture::from(gloo::utils::window().fetch_with_str(SAMPLE_URL))
            .await?
            .unchecked_into();
        if !resp.ok() {
            return Err(server_answered(resp.status(), &resp.status_text()).into());
        }
        Ok(JsFuture::from(resp.blob()?).await?.unchecked_into::<Blob>())
    }
    .await;
    if !app.current(g) {
        return;
    }
    match bytes {
        Ok(blob) => open(app, vec![(SAMPLE_URL.to_string(), blob)]),
        Err(e) => app.fail(sample_failure(&js_error_text(&e))),
    }
}

/// The lean module's bytes of a header it read, for the full module's reading of the same URL
/// (`weightpeek-web`'s `header_prefix`): its shared reading of `url` ([`crate::open::browser::header_prefix`])
/// as a [`crate::source::fetch::handover::prefix_object`], or `null`.
pub async fn header_prefix(url: &str) -> wasm_bindgen::JsValue {
    match crate::open::browser::header_prefix(url).await {
        Some((at, model)) => crate::source::fetch::handover::prefix_object(&at, &model.bytes),
        None => wasm_bindgen::JsValue::NULL,
    }
}
