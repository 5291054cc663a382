//! The page's "Scan all weights" card (issue #22): starts the scan in a Web Worker
//! (www/scan-worker.js, [`super::scan`]), shows its progress (bytes done, rate, time left) with
//! a Cancel button, then a table of per-tensor results that sorts and filters, and adds the
//! scan's findings to the Checks card. A remote model asks first, saying how many bytes the
//! scan downloads. Each state's body, the sort and the rows shown come from
//! [`crate::view::scan_card`], the texts and rows from [`crate::view::scan`]; this file runs the
//! Worker, reads its messages and wires the buttons.
//!
//! The card's state is on it as `data-scan`: `idle`, `confirm`, `running`, `done`,
//! `cancelled`, `error` (tests wait on it).

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use gloo::events::EventListener;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Element, HtmlInputElement, MessageEvent, Worker};

use super::dom::{self, append, attr, now};
use crate::view::scan::{self as view, FindingLine, ScanRow};
use crate::view::scan_card::{
    self as nodes, ScanEvent, Scope, Screen, Step, WorkerMessage, WorkerOptions,
};

/// What the worker opens: the source and options `scan()` of the JS API would be given.
pub struct ScanInput {
    /// An array of local `File`s/`Blob`s, or URL strings (resolved).
    pub source: JsValue,
    /// `{endpoint, token, name}` as plain strings.
    pub options: JsValue,
    /// The server a remote scan downloads from (`None`: local files, nothing leaves).
    pub host: Option<String>,
}

/// The card and what it keeps alive.
pub struct ScanCard {
    card: Element,
    body: Element,
    report_root: Element,
    /// The Worker's source and options (the host is the scope's).
    input: ScanInput,
    /// What the scan reads (and, for a remote one, from where).
    scope: Scope,
    state: RefCell<State>,
}

#[derive(Default)]
struct State {
    worker: Option<Worker>,
    listeners: Vec<EventListener>,
    results: nodes::Results,
    /// The table's body and header cells once drawn.
    table: Option<(Element, Vec<Element>)>,
    status: Option<Element>,
    bar: Option<Element>,
    /// The next rows' drawing, when the table is drawn in several tasks.
    pending: Option<gloo::timers::callback::Timeout>,
}

impl Drop for ScanCard {
    fn drop(&mut self) {
        // A newer file shown: the scan of this one stops.
        if let Some(w) = self.state.get_mut().worker.take() {
            w.terminate();
        }
    }
}

/// Starts www/scan-worker.js as a module Worker: through `globalThis.__weightpeekStartScanWorker`
/// when weightpeek.js loaded the app (the script beside that module, as a bundler built it: an
/// element on any page), else the script beside the page.
fn start_worker() -> Result<Worker, JsValue> {
    let start = js_sys::Reflect::get(&js_sys::global(), &"__weightpeekStartScanWorker".into())?;
    if let Some(f) = start.dyn_ref::<js_sys::Function>() {
        return f.call0(&JsValue::UNDEFINED)?.dyn_into::<Worker>();
    }
    let opts = web_sys::WorkerOptions::new();
    opts.set_type(web_sys::WorkerType::Module);
    Worker::new_with_options("scan-worker.js", &opts)
}

/// `o` as the plain object the Worker's `scan()` reads.
fn options(o: &WorkerOptions) -> JsValue {
    serde_wasm_bindgen::to_value(o).unwrap_or_else(|_| js_sys::Object::new().into())
}

impl ScanInput {
    /// Local files given together (`files`: name and Blob); one alone is named `name`.
    pub fn local(files: &[(String, web_sys::Blob)]) -> ScanInput {
        let source: js_sys::Array = files.iter().map(|(_, b)| b).collect();
        let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
        ScanInput {
            source: source.into(),
            options: options(&WorkerOptions::local(&names)),
            host: None,
        }
    }

    /// Remote files (`urls`: the URLs the page opened, as one model), read with the Hub
    /// `endpoint` and `token` (sent to the endpoint's origin only, as the page's reads).
    pub fn remote(urls: &[String], endpoint: &str, token: Option<&str>) -> ScanInput {
        ScanInput {
            // One URL as a string: a split part or an index opens its set, as the page did.
            source: match urls {
                [one] => one.into(),
                _ => urls
                    .iter()
                    .map(JsValue::from)
                    .collect::<js_sys::Array>()
                    .into(),
            },
            options: options(&WorkerOptions::remote(endpoint, token)),
            host: Some(nodes::host_of(urls)),
        }
    }
}

impl ScanCard {
    /// The card for a model whose data is `bytes` long over `tensors` tensors, with headers of
    /// `headers` bytes (read again by a remote scan).
    pub fn new(
        mut input: ScanInput,
        bytes: u64,
        headers: u64,
        tensors: usize,
        report_root: Element,
    ) -> Rc<ScanCard> {
        let card = dom::render(&nodes::card());
        let c = Rc::new(ScanCard {
            body: dom::find(&card, ".card-body"),
            card,
            report_root,
            scope: Scope {
                bytes,
                headers,
                tensors,
                host: input.host.take(),
            },
            input,
            state: RefCell::default(),
        });
        c.show(c.scope.idle());
        c
    }

    /// The card element.
    pub fn element(&self) -> &Element {
        &self.card
    }

    /// Shows `screen`: its state (`data-scan`) and body, each button doing its [`Step`].
    fn show(self: &Rc<Self>, screen: Screen) {
        attr(&self.card, "data-scan", screen.state);
        dom::fill(&self.body, &screen.nodes);
        let mut s = self.state.borrow_mut();
        s.listeners.clear();
        for &(id, step) in screen.buttons {
            let b = dom::find_testid(&self.body, id).expect("the state has its button");
            s.listeners
                .push(dom::on_click(&b, self, move |c| c.go(step)));
        }
    }

    /// What a button does.
    fn go(self: &Rc<Self>, step: Step) {
        match step {
            Step::Confirm => self.show(self.scope.confirm()),
            Step::Start => self.start(),
            Step::Idle => self.show(self.scope.idle()),
            Step::Cancel => self.cancel(),
        }
    }

    /// Starts the worker and shows the progress.
    fn start(self: &Rc<Self>) {
        let worker = match start_worker() {
            Ok(w) => w,
            Err(e) => return self.fail(&crate::source::blob::js_error_text(&e)),
        };
        self.show(self.scope.running());
        let w: Weak<ScanCard> = Rc::downgrade(self);
        let on_message = EventListener::new(&worker, "message", move |e| {
            let Some(c) = w.upgrade() else { return };
            if let Some(m) = e.dyn_ref::<MessageEvent>() {
                c.message(m.data());
            }
        });
        let w: Weak<ScanCard> = Rc::downgrade(self);
        let on_error = EventListener::new(&worker, "error", move |e| {
            let Some(c) = w.upgrade() else { return };
            let msg = js_sys::Reflect::get(e, &"message".into()).ok();
            c.fail(&nodes::worker_failed_text(
                msg.and_then(|m| m.as_string()).as_deref(),
            ));
        });
        let msg = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&msg, &"source".into(), &self.input.source);
        let _ = js_sys::Reflect::set(&msg, &"options".into(), &self.input.options);
        if let Err(e) = worker.post_message(&msg) {
            worker.terminate();
            return self.fail(&crate::source::blob::js_error_text(&e));
        }
        let mut s = self.state.borrow_mut();
        s.listeners.push(on_message);
        s.listeners.push(on_error);
        s.worker = Some(worker);
        s.results.restart(now());
        s.pending = None;
        s.status = dom::find_testid(&self.body, "scan-status");
        s.bar = dom::find_testid(&self.body, "scan-progress");
    }

    fn message(self: &Rc<Self>, data: JsValue) {
        let message = serde_wasm_bindgen::from_value::<WorkerMessage>(data).ok();
        match message.and_then(WorkerMessage::event) {
            Some(ScanEvent::Progress(done)) => {
                let mut s = self.state.borrow_mut();
                let line = s.results.progress(done, self.scope.bytes, now());
                if let Some(b) = &s.bar {
                    attr(b, "value", &done.to_string());
                }
                if let Some(t) = &s.status {
                    t.set_text_content(Some(&line));
                }
            }
            Some(ScanEvent::Tensor(r)) => self.state.borrow_mut().results.rows.push(*r),
            Some(ScanEvent::Done(lines)) => self.finish(Some(&lines)),
            Some(ScanEvent::Error(m)) => self.fail(&m),
            None => {}
        }
    }

    fn stop_worker(&self) {
        let mut s = self.state.borrow_mut();
        if let Some(w) = s.worker.take() {
            w.terminate();
        }
        s.listeners.clear();
    }

    fn cancel(self: &Rc<Self>) {
        self.stop_worker();
        self.finish(None);
    }

    fn fail(self: &Rc<Self>, message: &str) {
        self.stop_worker();
        self.show(self.scope.failed(message));
    }

    /// The scan ended (`lines`: its findings) or was cancelled (`None`): the summary line, the
    /// table, and (when it ended) the findings in the Checks card.
    fn finish(self: &Rc<Self>, lines: Option<&[FindingLine]>) {
        let t0 = now();
        self.stop_worker();
        let screen = self
            .scope
            .finished(&self.state.borrow().results, lines, now());
        self.show(screen);
        if let Some(lines) = lines {
            self.add_findings(lines);
        }
        let filter: HtmlInputElement = dom::find_as(&self.body, "[data-testid=scan-filter]");
        let (w, input) = (Rc::downgrade(self), filter.clone());
        let l = EventListener::new(&filter, "input", move |_| {
            if let Some(c) = w.upgrade() {
                c.state.borrow_mut().results.filter = input.value();
                c.draw_rows();
            }
        });
        self.state.borrow_mut().listeners.push(l);
        self.table();
        // How long drawing the results took (tests and benchmarks read it).
        attr(&self.card, "data-draw-ms", &format!("{:.0}", now() - t0));
    }

    /// The scan's findings, appended to the Checks card (wherever the doctor put it).
    fn add_findings(&self, lines: &[FindingLine]) {
        let Ok(Some(card)) = self.report_root.query_selector("[data-testid=checks]") else {
            return;
        };
        let Ok(Some(checks)) = card.query_selector(".card-body") else {
            return;
        };
        if let Ok(Some(old)) = checks.query_selector("[data-source=scan]") {
            old.remove();
        }
        append(&checks, &dom::render(&view::findings_node(lines)));
        // The title and colour count the header's findings and the scan's together.
        let count = |sev: &str| {
            card.query_selector_all(&format!("li[data-severity={sev}]"))
                .map_or(0, |l| l.length() as usize)
        };
        let counts = [count("error"), count("warning"), count("note")];
        if let Ok(Some(h)) = card.query_selector(".card-head h2") {
            h.set_text_content(Some(&crate::view::checks::title_of_counts(counts)));
        }
        let classes = card.class_list();
        let _ = classes.remove_3("checks-clean", "checks-warning", "checks-error");
        let _ = classes.add_1(nodes::checks_class(counts));
    }

    /// The results table's sortable headers (buttons, `aria-sort`); its body is drawn by
    /// [`ScanCard::draw_rows`].
    fn table(self: &Rc<Self>) {
        let table = dom::find(&self.body, "table");
        let heads = dom::all(&table, "th");
        for (i, th) in heads.iter().enumerate() {
            let l = dom::on_click(&dom::find(th, "button"), self, move |c| {
                c.state.borrow_mut().results.click(i);
                c.draw_rows();
            });
            self.state.borrow_mut().listeners.push(l);
        }
        self.state.borrow_mut().table = Some((dom::find(&table, "tbody"), heads));
        self.draw_rows();
    }

    /// Sorts and filters the rows ([`nodes::Results::visible`]) and draws them in chunks
    /// ([`nodes::chunk_nodes`]): [`nodes::CHUNK_ROWS`] now, the rest in later tasks of as many
    /// (the page stays responsive: drawing and laying out every row of a large model at once
    /// took over 50 ms). The table says `data-drawn="N"` once all
    /// N are there.
    fn draw_rows(self: &Rc<Self>) {
        let shown: Vec<ScanRow> = {
            let mut s = self.state.borrow_mut();
            s.pending = None;
            let shown = s.results.visible();
            let Some((tbody, heads)) = &s.table else {
                return;
            };
            for (i, th) in heads.iter().enumerate() {
                attr(th, "aria-sort", nodes::aria_sort(s.results.sort, i));
            }
            dom::clear(tbody);
            if let Some(t) = tbody.parent_element() {
                let _ = t.remove_attribute("data-drawn");
            }
            shown
        };
        self.draw_from(Rc::new(shown), 0);
    }

    /// Draws the chunk of `shown` starting at `from`, and schedules the next one.
    fn draw_from(self: &Rc<Self>, shown: Rc<Vec<ScanRow>>, from: usize) {
        let Some(tbody) = self.state.borrow().table.as_ref().map(|(t, _)| t.clone()) else {
            return;
        };
        let chunk = nodes::chunk_nodes(&shown, from);
        dom::append_nodes(&tbody, &chunk.nodes);
        if let Some(next) = chunk.next {
            let w = Rc::downgrade(self);
            let next = gloo::timers::callback::Timeout::new(0, move || {
                if let Some(c) = w.upgrade() {
                    c.draw_from(shown, next);
                }
            });
            self.state.borrow_mut().pending = Some(next);
        } else if let (Some(t), Some(n)) = (tbody.parent_element(), chunk.drawn) {
            attr(&t, "data-drawn", &n.to_string());
        }
    }
}
