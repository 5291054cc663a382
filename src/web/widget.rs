//! The `<weightpeek-view>` element's Rust side: one model view, tabbed, in an element the
//! custom element (www/weightpeek.js) creates in its shadow root. The JavaScript class only
//! forwards attribute changes here; it holds one [`Widget`] while the element is connected and
//! frees it when the element is removed.
//!
//! - `src`: a file URL (Hub URL forms included, relative URLs against the page), a split set or
//!   a `*.safetensors.index.json`; changing it cancels what was loading and loads the new one.
//! - `tab`, `tensor` (opens that tensor's preview), `filter` (the tensor table's search),
//!   `endpoint` (the Hub endpoint for Hub URL forms; default huggingface.co); the Fit tab's
//!   devices `gpu` (a comma list of sizes or cards, `0` for none), `ram`, `ctx`, `kv`,
//!   `margin` (as the page's query, [`crate::view::fit::Settings::from_query`]). `height` and
//!   `theme` are CSS only (www/weightpeek.js and www/style.css).
//! - The host element gets `data-state` (`idle`, `loading`, `ready`, `error`) and a
//!   `weightpeek-state` event (bubbling, composed) whenever it changes, and its `tab` attribute
//!   follows the tab the person picks.
//! - Closing the preview (its close button, or Escape in the Preview tab) shows the Tensors tab
//!   again with the keyboard focus on the row the preview was opened from.
//! - Dropping a `Widget` cancels every request of its opening and its previews, removes its
//!   listeners and releases the model.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use wasm_bindgen::JsValue;
use web_sys::Element;

use super::dom::{self, append, attr};
use super::export;
use super::load::{self, Fetcher};
use super::report::{Layout, Need, OnNeed, Report};
use super::scan_card::ScanInput;
use crate::source::http::totals;
use crate::view::element::{
    frame, nothing_to_open, Act, Attributes, DataState, StateLine, StateOut, TensorAction,
};
use crate::view::errors::{self, Failure, Front};
use crate::view::opening::reading_status;
use crate::view::report::LOADING_REST;
use crate::view::tabs::Tab;

thread_local! {
    /// Widgets alive now (a test hook: removing every element brings it back to 0).
    static LIVE: Cell<u32> = const { Cell::new(0) };
}

/// Widgets and preview panels alive now (for tests of removal).
pub fn live_widgets() -> u32 {
    LIVE.with(Cell::get) + super::preview::PANELS.with(Cell::get)
}

/// One embedded view.
pub struct Widget {
    state: Rc<State>,
}

struct State {
    host: Element,
    status: Element,
    error: Element,
    body: Element,
    /// Bumped for every `src`; a reading that finishes after a newer one started is dropped.
    generation: Cell<u64>,
    fetcher: RefCell<Option<Rc<Fetcher>>>,
    report: RefCell<Option<Report>>,
    /// The attributes, the model shown and what waits for it ([`Attributes`]).
    attrs: Rc<RefCell<Attributes>>,
    /// Where the view's states go ([`StateLine`]): a view being made to take another's place
    /// ([`Widget::moving`]) tells them to this function when settled (`ready`, `error`), until
    /// [`Widget::wake`].
    line: RefCell<StateLine>,
    on_settled: Option<js_sys::Function>,
}

impl Widget {
    /// A widget drawing into `container` (an element in the shadow root of `host`, the
    /// `<weightpeek-view>` element), empty until [`Widget::set_src`].
    pub fn new(host: Element, container: Element) -> Widget {
        Widget::build(host, container, None)
    }

    /// A view drawing into `container` that takes the place of the element's view when it
    /// is ready (the lean module's view moving to the full module): until [`Widget::wake`],
    /// the element's `data-state` and events are left alone, and `on_settled` is called with
    /// `ready` or `error` once this view is.
    pub fn moving(host: Element, container: Element, on_settled: js_sys::Function) -> Widget {
        Widget::build(host, container, Some(on_settled))
    }

    /// The view is the element's now: its state is shown (an event only if it changed).
    pub fn wake(&self) {
        let st = &self.state;
        let shown = st.host.get_attribute("data-state");
        let out = st.line.borrow_mut().wake(shown.as_deref());
        st.emit(out);
    }

    /// Another view took this one's place: dropping it leaves the element's state as it is.
    pub fn retire(&self) {
        self.state.line.borrow_mut().retire();
    }

    fn build(host: Element, container: Element, quiet: Option<js_sys::Function>) -> Widget {
        LIVE.with(|l| l.set(l.get() + 1));
        dom::clear(&container);
        let [status, error, body] = frame().map(|n| dom::render(&n));
        for e in [&status, &error, &body] {
            append(&container, e);
        }
        let state = Rc::new(State {
            host,
            status,
            error,
            body,
            generation: Cell::new(0),
            fetcher: RefCell::new(None),
            report: RefCell::new(None),
            attrs: Rc::default(),
            line: RefCell::new(StateLine::new(quiet.is_some())),
            on_settled: quiet,
        });
        state.set_state(DataState::Idle);
        Widget { state }
    }

    /// Loads `src` (nothing for `None` or blank): cancels what was loading or shown first.
    pub fn set_src(&self, src: Option<String>) {
        let st = &self.state;
        let g = st.generation.get() + 1;
        st.generation.set(g);
        st.stop();
        if st.attrs.borrow_mut().new_model() {
            let _ = st.host.remove_attribute("tensor");
        }
        let Some(src) = src.filter(|s| !s.trim().is_empty()) else {
            st.set_state(DataState::Idle);
            return;
        };
        let url = load::resolve_url(&src);
        let endpoint = st.attrs.borrow().endpoint();
        let file = match load::url_file(&url, &endpoint) {
            Ok(f) => f,
            Err(e) => return st.fail(e),
        };
        st.show_status(&reading_status(src.trim(), None));
        st.set_state(DataState::Loading);
        // Told the shared reading's counters (other elements and API calls on the same file
        // may be waiting for it too).
        let progress: load::OnProgress = {
            let (w, name) = (Rc::downgrade(st), src.clone());
            Rc::new(move |counters: &load::Counters| {
                let Some(st) = w.upgrade().filter(|s| s.generation.get() == g) else {
                    return;
                };
                let counts = totals(&counters.borrow());
                st.show_status(&reading_status(name.trim(), Some(counts)));
            })
        };
        let scan = ScanInput::remote(std::slice::from_ref(&file.1), &endpoint, None);
        // This view's own fetcher: its previews' requests, and leaving the shared reading when
        // the view stops.
        let fetcher = load::fetcher(endpoint, None, Box::new(|| {}), Front::Api);
        *st.fetcher.borrow_mut() = Some(fetcher.clone());
        st.show_when_read(g, scan, load::read_shared(fetcher, vec![file], progress));
    }

    /// Shows local files given together (`files`: a `File`/`Blob`, named `name` or by its
    /// own name, a `FileList` or an array of them: one model, the parts of a set, an index
    /// with its shards) instead of `src`; only their headers are read, nothing leaves the
    /// machine. Anything else shows an error.
    pub fn open_files(&self, files: JsValue, name: Option<String>) {
        let st = &self.state;
        let g = st.generation.get() + 1;
        st.generation.set(g);
        st.stop();
        let Some(files) = load::local_files(&files, name) else {
            return st.fail(nothing_to_open());
        };
        let names: Vec<String> = files.iter().map(|(n, _)| n.clone()).collect();
        st.show_status(&reading_status(&load::display_name(&names, true), None));
        st.set_state(DataState::Loading);
        let scan = ScanInput::local(&files);
        st.show_when_read(g, scan, load::read_local(files, Rc::new(|_| {})));
    }

    /// Shows the tab named `name` (`None`: the default, Summary, or Preview with a `tensor`).
    pub fn set_tab(&self, name: Option<String>) {
        let acts = self.state.attrs.borrow_mut().set_tab(name);
        self.state.act(acts);
    }

    /// Opens the preview of the tensor named `name` once the model is shown.
    pub fn set_tensor(&self, name: Option<String>) {
        let acts = self.state.attrs.borrow_mut().set_tensor(name);
        self.state.act(acts);
    }

    /// Filters the tensor table by `text` (as typed into its search box).
    pub fn set_filter(&self, text: Option<String>) {
        let text = text.unwrap_or_default();
        self.state.attrs.borrow_mut().filter = text.clone();
        if let Some(r) = self.state.report.borrow().as_ref() {
            r.set_filter(&text);
        }
    }

    /// A Fit attribute (`gpu`, `ram`, `ctx`, `kv`, `margin`; others are ignored) set to
    /// `value` (`None`: removed, its default again); the Fit tab plans again.
    pub fn set_fit(&self, name: &str, value: Option<String>) {
        let acts = self
            .state
            .attrs
            .borrow_mut()
            .set_fit(name, value, crate::FULL);
        self.state.act(acts);
    }

    /// The Hub endpoint for Hub URL forms of later `src` values (default huggingface.co).
    pub fn set_endpoint(&self, endpoint: Option<String>) {
        self.state.attrs.borrow_mut().endpoint = endpoint;
    }

    /// Opens the preview of tensor `name` as the reader's own choice (as a click on its row:
    /// the Preview tab is shown, the `tensor` and `tab` attributes follow), once the model is
    /// shown: the full module finishing a row the reader opened in the lean module's view.
    pub fn open_as_reader(&self, name: String) {
        self.state.attrs.borrow_mut().reader_tensor = Some(name);
        if self.state.report.borrow().is_some() {
            let i = self.state.attrs.borrow_mut().reader_tensor();
            self.state
                .act(i.map(Act::ReaderTensor).into_iter().collect());
        }
    }

    /// Downloads the `kind` export (`json`, `csv`, `markdown`) as its button does, once the
    /// model is shown: the full module finishing a click the lean module passed on.
    pub fn export(&self, kind: &str) {
        let Some(k) = export::Kind::parse(kind) else {
            return;
        };
        match self.state.report.borrow().as_ref() {
            Some(r) => r.export(k),
            None => self.state.attrs.borrow_mut().export = Some(k),
        }
    }
}

/// The lean web module asks the page's script for the full module: a `weightpeek-need-full`
/// event on the element (not bubbling: the element's own script listens), its `detail` what
/// for — `{tensor: NAME}` (a row opened), `{export: KIND}` (a button), or `{}` (a tab of the
/// full module, whose name the `tab` attribute says, or a file it reads).
fn ask_full(host: &Element, detail: Option<(&str, &str)>) {
    let d = js_sys::Object::new();
    if let Some((k, v)) = detail {
        let _ = js_sys::Reflect::set(&d, &k.into(), &v.into());
    }
    dom::dispatch(host, "weightpeek-need-full", &d, false);
}

impl Drop for Widget {
    fn drop(&mut self) {
        LIVE.with(|l| l.set(l.get().saturating_sub(1)));
        let st = &self.state;
        st.generation.set(st.generation.get() + 1);
        st.stop();
        dom::clear(&st.body);
        // Nothing is loading any more (the element was removed), unless another view took
        // this one's place.
        let out = st.line.borrow_mut().dropped();
        st.emit(out);
    }
}

impl State {
    /// Shows what `reading` opens once read, unless a newer `src` or files (generation past
    /// `g`) came meanwhile or the view went; what the lean module cannot read asks for the
    /// full one.
    fn show_when_read(
        self: &Rc<Self>,
        g: u64,
        scan: ScanInput,
        reading: impl std::future::Future<Output = Result<load::Opened, load::LoadError>> + 'static,
    ) {
        let w = Rc::downgrade(self);
        wasm_bindgen_futures::spawn_local(async move {
            let result = reading.await;
            if let Some(st) = w.upgrade().filter(|s| s.generation.get() == g) {
                match result {
                    Ok(opened) => st.show(opened, scan),
                    Err(e) if e.is_lean() => ask_full(&st.host, None),
                    Err(e) => st.fail(e.into()),
                }
            }
        });
    }

    /// Cancels the opening (and its previews) and forgets the view.
    fn stop(&self) {
        self.attrs.borrow_mut().stopped();
        if let Some(f) = self.fetcher.borrow_mut().take() {
            f.cancel();
        }
        self.report.borrow_mut().take();
        dom::clear(&self.body);
        self.show_error(None);
        dom::set_hidden(&self.status, true);
    }

    fn set_state(&self, state: DataState) {
        let out = self.line.borrow_mut().set(state);
        self.emit(out);
    }

    /// Carries out where a state goes ([`StateLine`]).
    fn emit(&self, out: StateOut) {
        let state = match out {
            StateOut::Show(s) => s.name(),
            StateOut::Tell(s) => {
                if let Some(f) = &self.on_settled {
                    let _ = f.call1(&JsValue::NULL, &s.name().into());
                }
                return;
            }
            StateOut::Keep => return,
        };
        attr(&self.host, "data-state", state);
        dom::dispatch(&self.host, "weightpeek-state", &state.into(), true);
    }

    fn show_status(&self, text: &str) {
        self.status.set_text_content(Some(text));
        dom::set_hidden(&self.status, false);
    }

    fn show_error(&self, text: Option<Failure>) {
        dom::show_failure(&self.error, text);
    }

    fn fail(&self, e: Failure) {
        dom::set_hidden(&self.status, true);
        self.show_error(Some(e));
        self.set_state(DataState::Error);
    }

    fn show(self: &Rc<Self>, opened: load::Opened, scan: ScanInput) {
        dom::set_hidden(&self.status, true);
        if let Some(e) = &opened.model.error {
            self.show_error(Some(errors::partial_failure(e, &opened.name, Front::Api)));
        }
        let failed = opened.model.error.is_some();
        let names = opened.model.tensors.iter().map(|t| t.name.clone());
        self.attrs.borrow_mut().model_shown(names.collect());
        // The Checks tab offers the scan of every weight (a remote model asks first); the `tab`
        // attribute follows the tab the person picks.
        let host = self.host.clone();
        let on_select = Rc::new(move |t: Tab| attr(&host, "tab", t.name()));
        // What the lean module cannot do, the full module's view of this model will; the
        // status line says so meanwhile for a row or a button (which have nothing else to show;
        // a tab's panel says it itself).
        let on_need = (!crate::FULL).then(|| {
            let (host, w) = (self.host.clone(), Rc::downgrade(self));
            Rc::new(move |need: Need| {
                let Some(st) = w.upgrade() else { return };
                if need.shows_status() {
                    st.show_status(LOADING_REST);
                }
                let detail = st.attrs.borrow().need_detail(need);
                ask_full(&host, detail.as_ref().map(|(k, v)| (*k, v.as_str())));
            }) as OnNeed
        });
        let first = Layout::Element(self.attrs.borrow().first_tab());
        let report = Report::build(&self.body, &opened, first, scan, on_select, on_need);
        // The tensor attribute follows the preview the reader opens or closes (so it can be
        // read back, and a re-created view shows the same tensor); setting it to the tensor
        // already shown reads nothing again.
        let (host, attrs) = (self.host.clone(), self.attrs.clone());
        report.on_preview(Rc::new(move |name: Option<&str>| {
            attrs.borrow_mut().previewed(name);
            match name {
                Some(n) => attr(&host, "tensor", n),
                // The report then shows the table, on the row ([`Report::on_preview`]).
                None => {
                    let _ = host.remove_attribute("tensor");
                }
            }
        }));
        let filter = self.attrs.borrow().filter.clone();
        if !filter.is_empty() {
            report.set_filter(&filter);
        }
        *self.report.borrow_mut() = Some(report);
        let acts = self.attrs.borrow_mut().shown_acts(crate::FULL, failed);
        self.act(acts);
    }

    /// Carries out `acts` ([`Act`]) in order; but for a state, on the model shown (none
    /// while no model is).
    fn act(&self, acts: Vec<Act>) {
        for a in acts {
            if let Act::State(s) = a {
                self.set_state(s);
                continue;
            }
            let report = self.report.borrow();
            let Some(r) = report.as_ref() else { return };
            match a {
                // (No Fit card in the lean module: the full one reads the attributes again.)
                Act::Fit if crate::FULL => {
                    let s = self.attrs.borrow().fit_settings();
                    r.set_fit_settings(s);
                }
                Act::Fit | Act::Tensor(TensorAction::Keep) | Act::State(_) => {}
                Act::Tensor(TensorAction::Open(i)) => {
                    // A message about an earlier, missing tensor no longer applies.
                    self.show_error(None);
                    self.attrs.borrow_mut().applying = true;
                    r.open_tensor(i);
                    self.attrs.borrow_mut().applying = false;
                }
                Act::Tensor(TensorAction::Missing(f)) => self.show_error(Some(f)),
                Act::Tab(t) => r.tabs().select(t, false),
                Act::ReaderTensor(i) => {
                    r.open_tensor(i);
                    r.tabs().select(Tab::Preview, true);
                    // As a row's Enter or click in this view: the focus goes to the preview.
                    r.tabs().focus_panel(Tab::Preview);
                }
                Act::Export(k) => r.export(k),
            }
        }
    }
}
