//! The page's "Scan all weights" card (issue #22): starts the scan in a Web Worker
//! (www/scan-worker.js, [`super::scan`]), shows its progress (bytes done, rate, time left) with
//! a Cancel button, then a table of per-tensor results that sorts and filters, and adds the
//! scan's findings to the Checks card. A remote model asks first, saying how many bytes the
//! scan downloads. Texts and rows come from [`crate::view::scan`]; nothing is computed here.
//!
//! The card's state is on it as `data-scan`: `idle`, `confirm`, `running`, `done`,
//! `cancelled`, `error` (tests wait on it).

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use gloo::events::EventListener;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Element, HtmlInputElement, MessageEvent, Worker};

use super::dom::{self, append, attr, el_class, el_text};
use crate::text;
use crate::view::scan::{self as view, progress, FindingLine, ScanRow, COLUMNS, MAX_ROWS};
/// Rows drawn per task.
const CHUNK_ROWS: usize = 60;

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
    input: ScanInput,
    /// Tensor data the scan reads, and the headers a remote scan reads again.
    bytes: u64,
    headers: u64,
    tensors: usize,
    state: RefCell<State>,
}

#[derive(Default)]
struct State {
    worker: Option<Worker>,
    listeners: Vec<EventListener>,
    rows: Vec<ScanRow>,
    done: u64,
    started: f64,
    sort: Option<(usize, bool)>,
    filter: String,
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

fn now() -> f64 {
    js_sys::Date::now()
}

impl ScanInput {
    /// Local files given together (`files`: name and Blob); one alone is named `name`.
    pub fn local(files: &[(String, web_sys::Blob)]) -> ScanInput {
        let source = js_sys::Array::new();
        for (_, b) in files {
            source.push(b);
        }
        let options = js_sys::Object::new();
        if let [(name, _)] = files {
            let _ = js_sys::Reflect::set(&options, &"name".into(), &name.into());
        }
        ScanInput {
            source: source.into(),
            options: options.into(),
            host: None,
        }
    }

    /// Remote files (`urls`: the URLs the page opened, as one model), read with the Hub
    /// `endpoint` and `token` (sent to the endpoint's origin only, as the page's reads).
    pub fn remote(urls: &[String], endpoint: &str, token: Option<&str>) -> ScanInput {
        let source = js_sys::Array::new();
        for u in urls {
            source.push(&u.into());
        }
        let options = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&options, &"endpoint".into(), &endpoint.into());
        if let Some(t) = token {
            let _ = js_sys::Reflect::set(&options, &"token".into(), &t.into());
        }
        let host = urls
            .first()
            .and_then(|u| web_sys::Url::new(u).ok())
            .map(|u| u.host())
            .unwrap_or_else(|| "the server".into());
        ScanInput {
            // One URL as a string: a split part or an index opens its set, as the page did.
            source: match urls {
                [one] => one.into(),
                _ => source.into(),
            },
            options: options.into(),
            host: Some(host),
        }
    }
}

impl ScanCard {
    /// The card for a model whose data is `bytes` long over `tensors` tensors, with headers of
    /// `headers` bytes (read again by a remote scan).
    pub fn new(
        input: ScanInput,
        bytes: u64,
        headers: u64,
        tensors: usize,
        report_root: Element,
    ) -> Rc<ScanCard> {
        let (card, body) = dom::card("Scan all weights", "scan-card");
        attr(&card, "data-testid", "scan");
        let c = Rc::new(ScanCard {
            card,
            body,
            report_root,
            input,
            bytes,
            headers,
            tensors,
            state: RefCell::default(),
        });
        c.idle();
        c
    }

    /// The card element.
    pub fn element(&self) -> &Element {
        &self.card
    }

    fn set(&self, state: &str) {
        attr(&self.card, "data-scan", state);
    }

    fn button(
        self: &Rc<Self>,
        parent: &Element,
        label: &str,
        testid: &str,
        primary: bool,
        then: fn(&Rc<ScanCard>),
    ) {
        let b = el_text(
            "button",
            if primary { "button primary" } else { "button" },
            label,
        );
        attr(&b, "type", "button");
        attr(&b, "data-testid", testid);
        append(parent, &b);
        let w = Rc::downgrade(self);
        let l = EventListener::new(&b, "click", move |_| {
            if let Some(c) = w.upgrade() {
                then(&c);
            }
        });
        self.state.borrow_mut().listeners.push(l);
    }

    /// Before a scan: what it reads, and the button.
    fn idle(self: &Rc<Self>) {
        self.set("idle");
        dom::clear(&self.body);
        self.state.borrow_mut().listeners.clear();
        let remote = self.input.host.is_some();
        append(
            &self.body,
            &el_text("p", "muted", &view::intro_text(self.bytes, remote)),
        );
        let actions = el_class("div", "scan-actions");
        append(&self.body, &actions);
        let label = if remote {
            format!(
                "Scan all weights (downloads {})",
                text::bytes(self.bytes.saturating_add(self.headers))
            )
        } else {
            "Scan all weights".to_string()
        };
        self.button(&actions, &label, "scan-start", true, |c| {
            if c.input.host.is_some() {
                c.confirm();
            } else {
                c.start();
            }
        });
    }

    /// A remote scan asks first.
    fn confirm(self: &Rc<Self>) {
        self.set("confirm");
        dom::clear(&self.body);
        self.state.borrow_mut().listeners.clear();
        let host = self.input.host.as_deref().unwrap_or("the server");
        let p = el_text(
            "p",
            "scan-question",
            &view::confirm_text(self.bytes, self.headers, host),
        );
        attr(&p, "data-testid", "scan-question");
        append(&self.body, &p);
        let actions = el_class("div", "scan-actions");
        append(&self.body, &actions);
        self.button(&actions, "Download and scan", "scan-go", true, |c| {
            c.start()
        });
        self.button(&actions, "Not now", "scan-not-now", false, |c| c.idle());
    }

    /// Starts the worker and shows the progress.
    fn start(self: &Rc<Self>) {
        dom::clear(&self.body);
        self.state.borrow_mut().listeners.clear();
        let worker = match start_worker() {
            Ok(w) => w,
            Err(e) => return self.fail(&super::blob::js_error_text(&e)),
        };
        self.set("running");
        let bar = el_class("progress", "scan-bar");
        attr(&bar, "data-testid", "scan-progress");
        attr(&bar, "max", &self.bytes.max(1).to_string());
        attr(&bar, "value", "0");
        attr(&bar, "aria-label", "Scan progress");
        let status = el_text("p", "scan-status", &progress(0, self.bytes, 0.0));
        attr(&status, "data-testid", "scan-status");
        append(&self.body, &bar);
        append(&self.body, &status);
        let actions = el_class("div", "scan-actions");
        append(&self.body, &actions);
        self.button(&actions, "Cancel", "scan-cancel", false, |c| c.cancel());
        let w: Weak<ScanCard> = Rc::downgrade(self);
        let on_message = EventListener::new(&worker, "message", move |e| {
            let Some(c) = w.upgrade() else { return };
            if let Some(m) = e.dyn_ref::<MessageEvent>() {
                c.message(&m.data());
            }
        });
        let w: Weak<ScanCard> = Rc::downgrade(self);
        let on_error = EventListener::new(&worker, "error", move |e| {
            let Some(c) = w.upgrade() else { return };
            let msg = js_sys::Reflect::get(e, &"message".into())
                .ok()
                .and_then(|m| m.as_string())
                .filter(|m| !m.is_empty())
                .unwrap_or_else(|| "scan-worker.js did not load".into());
            c.fail(&format!("the scan's worker could not start: {msg}"));
        });
        let msg = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&msg, &"source".into(), &self.input.source);
        let _ = js_sys::Reflect::set(&msg, &"options".into(), &self.input.options);
        if let Err(e) = worker.post_message(&msg) {
            worker.terminate();
            return self.fail(&super::blob::js_error_text(&e));
        }
        let mut s = self.state.borrow_mut();
        s.listeners.push(on_message);
        s.listeners.push(on_error);
        s.worker = Some(worker);
        s.rows.clear();
        // A new scan starts unsorted and unfiltered (the new filter box is empty).
        s.filter.clear();
        s.sort = None;
        s.pending = None;
        s.done = 0;
        s.started = now();
        s.status = Some(status);
        s.bar = Some(bar);
    }

    fn message(self: &Rc<Self>, data: &JsValue) {
        let get = |k: &str| js_sys::Reflect::get(data, &k.into()).unwrap_or(JsValue::UNDEFINED);
        match get("type").as_string().as_deref() {
            Some("progress") => {
                let done = get("done").as_f64().unwrap_or(0.0) as u64;
                let mut s = self.state.borrow_mut();
                s.done = done;
                let secs = (now() - s.started) / 1e3;
                if let Some(b) = &s.bar {
                    attr(b, "value", &done.to_string());
                }
                if let Some(t) = &s.status {
                    t.set_text_content(Some(&progress(done, self.bytes, secs)));
                }
            }
            Some("tensor") => {
                let row = get("row")
                    .as_string()
                    .and_then(|r| serde_json::from_str(&r).ok());
                if let Some(r) = row {
                    self.state.borrow_mut().rows.push(r);
                }
            }
            Some("done") => {
                let lines: Vec<FindingLine> = get("lines")
                    .as_string()
                    .and_then(|l| serde_json::from_str(&l).ok())
                    .unwrap_or_default();
                self.finish(Some(&lines));
            }
            Some("error") => {
                let m = get("message").as_string().unwrap_or_default();
                self.fail(&m);
            }
            _ => {}
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
        self.set("error");
        dom::clear(&self.body);
        let p = el_text(
            "p",
            "scan-error",
            &format!("The scan could not run: {}", text::escape(message)),
        );
        attr(&p, "data-testid", "scan-status");
        append(&self.body, &p);
        let actions = el_class("div", "scan-actions");
        append(&self.body, &actions);
        self.button(&actions, "Try again", "scan-start", false, |c| c.start());
    }

    /// The scan ended (`lines`: its findings) or was cancelled (`None`): the summary line, the
    /// table, and (when it ended) the findings in the Checks card.
    fn finish(self: &Rc<Self>, lines: Option<&[FindingLine]>) {
        let t0 = now();
        self.stop_worker();
        let (scanned, done, secs) = {
            let s = self.state.borrow();
            let scanned = s.rows.iter().filter(|r| r.status != "skipped").count();
            (scanned, s.done, (now() - s.started) / 1e3)
        };
        let bytes: u64 = done;
        dom::clear(&self.body);
        let line = match lines {
            Some(_) => view::done_text(scanned, self.tensors, bytes, secs),
            None => view::cancelled_text(scanned, self.tensors, bytes),
        };
        self.set(if lines.is_some() { "done" } else { "cancelled" });
        let p = el_text("p", "scan-status", &line);
        attr(&p, "data-testid", "scan-status");
        // Said once the scan ends (the running line is not a live region: it changes 10×/s).
        attr(&p, "role", "status");
        append(&self.body, &p);
        if let Some(lines) = lines {
            self.add_findings(lines);
            let n = lines.iter().filter(|l| l.severity != "note").count();
            let words = match n {
                0 => "No problems found: see the Checks card.".to_string(),
                1 => "1 finding, listed in the Checks card.".to_string(),
                n => format!("{n} findings, listed in the Checks card."),
            };
            append(&self.body, &el_text("p", "muted", &words));
        }
        let actions = el_class("div", "scan-actions");
        let filter = dom::search_input(
            "Filter: name, type, nan, inf, error",
            "Filter the scan's rows",
        );
        attr(&filter, "data-testid", "scan-filter");
        append(&actions, &filter);
        append(&self.body, &actions);
        self.button(&actions, "Scan again", "scan-start", false, |c| {
            if c.input.host.is_some() {
                c.confirm();
            } else {
                c.start();
            }
        });
        let w = Rc::downgrade(self);
        let input: HtmlInputElement = filter.clone();
        let l = EventListener::new(&filter, "input", move |_| {
            if let Some(c) = w.upgrade() {
                c.state.borrow_mut().filter = input.value();
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
        let section = dom::render(&view::findings_node(lines));
        append(&checks, &section);
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
        let worst = match counts {
            [e, ..] if e > 0 => "checks-error",
            [_, w, _] if w > 0 => "checks-warning",
            _ => "checks-clean",
        };
        let _ = classes.add_1(worst);
    }

    /// The results table: sortable headers (buttons, `aria-sort`), body drawn by
    /// [`ScanCard::draw_rows`].
    fn table(self: &Rc<Self>) {
        let scroller = el_class("div", "table-scroll scan-scroll");
        let table = el_class("table", "scan-table");
        attr(&table, "data-testid", "scan-table");
        let thead = dom::el("thead");
        let tr = dom::el("tr");
        let mut heads = Vec::new();
        for (i, (name, numeric)) in COLUMNS.iter().enumerate() {
            let th = el_class("th", if *numeric { "num" } else { "" });
            attr(&th, "scope", "col");
            let b = el_text("button", "sort", name);
            attr(&b, "type", "button");
            append(&th, &b);
            append(&tr, &th);
            heads.push(th);
            let w = Rc::downgrade(self);
            let l = EventListener::new(&b, "click", move |_| {
                if let Some(c) = w.upgrade() {
                    {
                        let mut s = c.state.borrow_mut();
                        // Numbers start from the largest, names from A.
                        let first_desc = COLUMNS[i].1;
                        s.sort = match s.sort {
                            Some((col, d)) if col == i => Some((i, !d)),
                            _ => Some((i, first_desc)),
                        };
                    }
                    c.draw_rows();
                }
            });
            self.state.borrow_mut().listeners.push(l);
        }
        append(&thead, &tr);
        append(&table, &thead);
        let tbody = dom::el("tbody");
        append(&table, &tbody);
        append(&scroller, &table);
        append(&self.body, &scroller);
        self.state.borrow_mut().table = Some((tbody, heads));
        self.draw_rows();
    }

    /// Sorts and filters the rows and draws them: [`CHUNK_ROWS`] now, the rest in later tasks
    /// of as many (the page stays responsive: drawing and laying out every row of a large
    /// model at once took over 50 ms). The table says `data-drawn="N"` once all N are there.
    fn draw_rows(self: &Rc<Self>) {
        let shown: Vec<ScanRow> = {
            let mut s = self.state.borrow_mut();
            s.pending = None;
            let (col, desc) = s.sort.unwrap_or((usize::MAX, false));
            view::sort(&mut s.rows, col, desc);
            let Some((tbody, heads)) = &s.table else {
                return;
            };
            for (i, th) in heads.iter().enumerate() {
                let sort = match s.sort {
                    Some((c, true)) if c == i => "descending",
                    Some((c, false)) if c == i => "ascending",
                    _ => "none",
                };
                attr(th, "aria-sort", sort);
            }
            dom::clear(tbody);
            if let Some(t) = tbody.parent_element() {
                let _ = t.remove_attribute("data-drawn");
            }
            s.rows
                .iter()
                .filter(|r| view::matches(r, &s.filter))
                .cloned()
                .collect()
        };
        self.draw_from(Rc::new(shown), 0);
    }

    /// Draws rows `from..from + CHUNK_ROWS` of `shown`, and schedules the next ones.
    fn draw_from(self: &Rc<Self>, shown: Rc<Vec<ScanRow>>, from: usize) {
        let Some(tbody) = self.state.borrow().table.as_ref().map(|(t, _)| t.clone()) else {
            return;
        };
        let end = (from + CHUNK_ROWS).min(shown.len()).min(MAX_ROWS);
        for r in &shown[from.min(end)..end] {
            for n in view::row_nodes(r) {
                append(&tbody, &dom::render(&n));
            }
        }
        if end < shown.len().min(MAX_ROWS) {
            let w = Rc::downgrade(self);
            let next = gloo::timers::callback::Timeout::new(0, move || {
                if let Some(c) = w.upgrade() {
                    c.draw_from(shown, end);
                }
            });
            self.state.borrow_mut().pending = Some(next);
            return;
        }
        if shown.len() > MAX_ROWS {
            append(
                &tbody,
                &dom::render(&view::more_rows_node(shown.len() - MAX_ROWS)),
            );
        }
        if let Some(t) = tbody.parent_element() {
            attr(&t, "data-drawn", &end.to_string());
        }
    }
}
