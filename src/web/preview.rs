//! The tensor preview card: opened by clicking a tensor row (or Enter on a focused row). It
//! plans the window with [`crate::preview`], reads exactly that byte range through the model's
//! source (a `Blob.slice` for a local file; any [`crate::source::boxed::DynByteSource`]), and
//! decodes and summarises it in time slices: [`crate::preview::Job::step`] runs for at most
//! [`crate::preview::SLICE_MS`] before the task yields to the event loop with `setTimeout(0)`, so the page never
//! freezes while a large window decodes. (A Web Worker would need a second wasm instance and
//! the file handle posted to it; decoding runs at hundreds of millions of values per second,
//! so slicing on the main thread keeps every task short without that machinery.)
//!
//! Test hooks: `[data-testid=preview]` (`data-state` loading|ready|error, `data-render-ms`:
//! milliseconds from the bytes arriving to the panel drawn), `preview-stats` (children
//! `[data-stat][data-value]`), `preview-histogram`, `preview-heatmap` (the canvas),
//! `preview-values`, `preview-bytes-read` (`data-value`), `preview-error`.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use gloo::events::EventListener;
use wasm_bindgen::{Clamped, JsCast};
use web_sys::{CanvasRenderingContext2d, Element, HtmlCanvasElement, HtmlInputElement, ImageData};

use crate::open::OpenedModel;
use crate::preview::{self, Heatmap, Job, Preview, PreviewError, WindowRequest};
use crate::source::boxed::{BoxedSource, SourceFactory};
use crate::view::preview as pv;
use crate::view::preview_card::{self as pc, Control, Stage};
use crate::view::spec::Front;

use super::dom::{self, attr};
use crate::view::node;

/// Told the tensor whose preview was opened (`Some(name)`) or that the preview was closed.
pub type OnChange = Rc<dyn Fn(Option<&str>)>;

/// The preview card: one open tensor at a time; its listeners are dropped with it. Every
/// opening of the card shares its handles (cheap to clone).
#[derive(Clone)]
pub struct PreviewCard {
    card: Element,
    model: Rc<OpenedModel>,
    source: SourceFactory,
    /// Bumped for every window started; a task that finds a newer one stops writing.
    generation: Rc<Cell<u64>>,
    panel: Rc<RefCell<Option<Panel>>>,
    on_change: Rc<RefCell<Option<OnChange>>>,
}

/// The listeners of the tensor shown now (shared with its running task, which adds the
/// scales toggle's once drawn); dropping the panel removes them.
struct Panel {
    _listeners: Rc<RefCell<Vec<EventListener>>>,
    /// The window's reading, held back while the card is in a hidden tab panel (a
    /// `tensor` attribute with another `tab`): it starts when the tab is shown
    /// ([`PreviewCard::shown`]), so a preview nobody sees reads nothing.
    waiting: RefCell<Option<Box<dyn FnOnce()>>>,
}

thread_local! {
    /// Preview panels alive now: a test hook, counted with the widgets (a view removed with a
    /// preview open frees it).
    pub(super) static PANELS: Cell<u32> = const { Cell::new(0) };
}

impl Drop for Panel {
    fn drop(&mut self) {
        PANELS.with(|l| l.set(l.get().saturating_sub(1)));
    }
}

/// Resolves on the next macrotask (`setTimeout(0)`), letting the browser paint and handle input.
pub async fn yield_now() {
    gloo_timers::future::TimeoutFuture::new(0).await;
}

impl PreviewCard {
    /// An empty, hidden card; [`PreviewCard::open`] fills it.
    pub fn new(model: Rc<OpenedModel>, source: SourceFactory) -> PreviewCard {
        let card = dom::render(&node::el("section", "card preview").testid("preview"));
        dom::set_hidden(&card, true);
        PreviewCard {
            card,
            model,
            source,
            generation: Rc::default(),
            panel: Rc::default(),
            on_change: Rc::default(),
        }
    }

    /// Calls `f` whenever a tensor's preview is opened or the preview is closed (the page URL
    /// follows the selected tensor).
    pub fn set_on_change(&self, f: OnChange) {
        *self.on_change.borrow_mut() = Some(f);
    }

    /// The card element (placed by the report).
    pub fn element(&self) -> &Element {
        &self.card
    }

    /// The card's tab is shown: a preview opened while it was hidden reads its window now.
    pub fn shown(&self) {
        let start = self
            .panel
            .borrow()
            .as_ref()
            .and_then(|p| p.waiting.borrow_mut().take());
        if let Some(start) = start {
            start();
        }
    }

    /// Drops the open panel, telling no one: its listeners hold the card's handles, so a view
    /// dropped with a preview open would otherwise keep the panel and the model alive.
    pub fn release(&self) {
        self.generation.set(self.generation.get() + 1);
        let panel = self.panel.borrow_mut().take();
        drop(panel);
    }

    /// Opens tensor `index` (of `Model::tensors`) with the default window.
    pub fn open(&self, index: usize) {
        open_panel(self, index, WindowRequest::default());
        let hook = self.on_change.borrow().clone();
        if let (Some(f), Some(t)) = (hook, self.model.tensors.get(index)) {
            f(Some(&t.name));
        }
    }
}

fn open_panel(c: &PreviewCard, index: usize, req: WindowRequest) {
    // Dropping the old panel removes its listeners; a task still running for it stops at its
    // next generation check.
    c.panel.borrow_mut().take();
    let g = c.generation.get() + 1;
    c.generation.set(g);
    // A NumPy structured array previews one field at a time: the first decodable one unless
    // one was chosen.
    let Some(opening) = pc::opening(&c.model, index, req) else {
        return;
    };
    let card = &c.card;
    dom::set_hidden(card, false);
    dom::set_attrs(card, opening.card_attrs());
    dom::fill(card, &opening.nodes);
    let els = Rc::new(Els::find(card));
    let c2 = c.clone();
    let close = dom::find(card, "header button");
    let mut listeners = vec![EventListener::new(&close, "click", move |_| {
        close_panel(&c2)
    })];

    // Show / First rows / another field / Enter in a window box re-open the panel on the
    // window the control asks for.
    let req = opening.req.clone();
    let reopen = {
        let (c, els) = (c.clone(), els.clone());
        Rc::new(move |control: Control| {
            let (rows, cols) = (els.rows_in.value(), els.cols_in.value());
            let req = match opening.request(control, &rows, &cols) {
                None => return,
                Some(Ok(req)) => req,
                Some(Err(e)) => return els.show_error(&e.text_for(Front::Page)),
            };
            // Deferred: this closure is owned by the panel that re-opening drops. A panel gone
            // meanwhile (closed, another opened, its view dropped) is not opened again.
            let c = c.clone();
            wasm_bindgen_futures::spawn_local(async move {
                if c.generation.get() == g {
                    open_panel(&c, index, req)
                }
            });
        })
    };
    let controls = [
        ("[data-testid=preview-apply]", Control::Show),
        (".preview-controls > button + button", Control::FirstRows),
    ];
    for (selector, control) in controls {
        let r = reopen.clone();
        let button = dom::find(card, selector);
        listeners.push(EventListener::new(&button, "click", move |_| {
            r(control.clone())
        }));
    }
    if let Some(sel) = dom::find_testid(card, "preview-field") {
        let (r, s) = (reopen.clone(), sel.clone());
        listeners.push(EventListener::new(&sel, "change", move |_| {
            r(Control::Field(dom::value_of(&s)))
        }));
    }
    for input in [&els.rows_in, &els.cols_in] {
        let r = reopen.clone();
        listeners.push(dom::on_keydown(input, move |_, k| {
            if k.key() == "Enter" {
                r(Control::Show);
            }
            false
        }));
    }

    let slot = Rc::new(RefCell::new(listeners));
    let start = {
        let (c, els, slot) = (c.clone(), els.clone(), slot.clone());
        move || {
            wasm_bindgen_futures::spawn_local(async move {
                show_window(&c, g, index, &req, &els, &slot).await;
            });
        }
    };
    // In a hidden tab panel (the card itself was just shown): read when the tab is shown.
    let hidden = card
        .parent_element()
        .and_then(|p| p.closest("[hidden]").ok().flatten());
    let waiting: RefCell<Option<Box<dyn FnOnce()>>> = RefCell::new(None);
    if hidden.is_some() {
        els.stage(Stage::Waiting);
        *waiting.borrow_mut() = Some(Box::new(start));
    } else {
        start();
    }
    PANELS.with(|l| l.set(l.get().saturating_add(1)));
    *c.panel.borrow_mut() = Some(Panel {
        _listeners: slot,
        waiting,
    });
}

/// The close button: the card is hidden and emptied, the owner told.
fn close_panel(c: &PreviewCard) {
    c.generation.set(c.generation.get() + 1);
    dom::set_hidden(&c.card, true);
    dom::clear(&c.card);
    let hook = c.on_change.borrow().clone();
    if let Some(f) = hook {
        f(None);
    }
    // Dropping the panel drops this very listener: defer it past the callback.
    let p = c.panel.clone();
    wasm_bindgen_futures::spawn_local(async move {
        p.borrow_mut().take();
    });
}

/// Reads, decodes and draws window `req` of tensor `index` for the panel of generation `g`
/// (nothing once a newer one started); the listeners it adds (the scales toggle) go in `slot`.
async fn show_window(
    c: &PreviewCard,
    g: u64,
    index: usize,
    req: &WindowRequest,
    els: &Els,
    slot: &RefCell<Vec<EventListener>>,
) {
    let current = || c.generation.get() == g;
    els.stage(Stage::Reading);
    let result = run(&c.model, &c.source, index, req, els, &current).await;
    if !current() {
        return;
    }
    match result {
        Ok((p, arrived)) => {
            let extra = draw(els, &p);
            slot.borrow_mut().extend(extra);
            els.stage(Stage::Ready);
            let render_ms = dom::now() - arrived;
            attr(&els.card, "data-render-ms", &format!("{render_ms:.1}"));
        }
        Err(e) => {
            els.show_error(&e.to_string());
            els.stage(Stage::Error);
        }
    }
}

/// The elements a running preview writes to.
struct Els {
    card: Element,
    window_line: Element,
    bytes_line: Element,
    status: Element,
    error: Element,
    content: Element,
    rows_in: HtmlInputElement,
    cols_in: HtmlInputElement,
    scales_label: Element,
    scales_box: HtmlInputElement,
}

impl Els {
    /// The elements of the panel just drawn in `card` ([`pc::panel`]).
    fn find(card: &Element) -> Els {
        let find = |sel: &str| dom::find(card, sel);
        let input =
            |id: &str| -> HtmlInputElement { dom::find_as(card, &format!("[data-testid={id}]")) };
        Els {
            card: card.clone(),
            window_line: find(".preview-window-line"),
            bytes_line: find("[data-testid=preview-bytes-read]"),
            status: find(".status-line"),
            error: find("[data-testid=preview-error]"),
            content: find(".preview-content"),
            rows_in: input("preview-rows"),
            cols_in: input("preview-cols"),
            scales_label: find(".scales-toggle"),
            scales_box: input("preview-scales-toggle"),
        }
    }

    /// Shows `stage`: the card's `data-state` and its status line (hidden when it has none).
    fn stage(&self, stage: Stage) {
        match stage.status() {
            Some(t) => self.status.set_text_content(Some(t)),
            None => dom::set_hidden(&self.status, true),
        }
        attr(&self.card, "data-state", stage.data_state());
    }

    /// Shows `text` in the error box.
    fn show_error(&self, text: &str) {
        self.error.set_text_content(Some(text));
        dom::set_hidden(&self.error, false);
    }
}

/// Plans, reads, decodes in slices. Returns the preview and the time the bytes arrived.
async fn run(
    model: &OpenedModel,
    source: &SourceFactory,
    index: usize,
    req: &WindowRequest,
    els: &Els,
    current: &dyn Fn() -> bool,
) -> Result<(Preview, f64), PreviewError> {
    let mut plan = preview::plan(model, index, req)?;
    let [rows, cols] = pc::range_texts(&plan);
    els.rows_in.set_value(&rows);
    els.cols_in.set_value(&cols);
    let mut src = BoxedSource(source(model.source_of(plan.tensor_index)));
    let bytes = preview::window_bytes(model, &mut src, &mut plan).await?;
    let arrived = dom::now();
    if !current() {
        return Err(PreviewError::Read("superseded".into()));
    }
    els.stage(Stage::Decoding);
    let job = Job::new(model, plan, bytes)?;
    let job = job.run_sliced(dom::now, yield_now, current).await?;
    Ok((job.finish()?, arrived))
}

/// Draws a finished preview; returns the listeners it added (the scales toggle).
fn draw(els: &Els, p: &Preview) -> Vec<EventListener> {
    els.window_line.set_text_content(Some(&pv::window_text(p)));
    els.bytes_line
        .set_text_content(Some(&pv::bytes_read_line(p)));
    for (name, value) in pc::bytes_read_attrs(p) {
        attr(&els.bytes_line, name, &value);
    }
    let mut listeners = Vec::new();
    dom::set_hidden(&els.scales_label, true);
    dom::fill(&els.content, &pc::content(p));
    let Some(canvas) = dom::find_testid(&els.content, "preview-heatmap") else {
        return listeners;
    };
    let canvas: HtmlCanvasElement = canvas.unchecked_into();
    let title = dom::find(&els.content, ".preview-heat > figcaption");
    let labels = dom::find(&els.content, ".heat-labels");
    let note = dom::find(&els.content, ".preview-heat > p.note");
    let views = pc::HeatViews::of(p);
    let (_, values, _) = views.shown(false);
    paint_heatmap(&canvas, values, &labels, &note, None);

    dom::set_hidden(&els.scales_label, !views.has_scales());
    els.scales_box.set_checked(false);
    if views.has_scales() {
        let b = els.scales_box.clone();
        listeners.push(EventListener::new(&els.scales_box, "change", move |_| {
            let (text, h, caption) = views.shown(b.checked());
            title.set_text_content(Some(text));
            paint_heatmap(&canvas, h, &labels, &note, caption);
        }));
    }
    listeners
}

/// Paints heatmap `h` on `canvas` (one pixel per cell, shown as [`pc::heat_canvas`] says) and
/// fills the legend's `labels` and the `note` (after the scales' `caption`).
fn paint_heatmap(
    canvas: &HtmlCanvasElement,
    h: &Heatmap,
    labels: &Element,
    note: &Element,
    caption: Option<&str>,
) {
    let c = pc::heat_canvas(h);
    let (w, hgt) = (c.width, c.height);
    canvas.set_width(w);
    canvas.set_height(hgt);
    dom::style(canvas, &c.style.each_ref().map(|(k, v)| (*k, v.as_str())));
    for (name, value) in &c.attrs {
        attr(canvas, name, value);
    }
    let ctx = canvas
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok());
    let rgba = h.rgba();
    if let (Some(ctx), Ok(img)) = (
        ctx,
        ImageData::new_with_u8_clamped_array_and_sh(Clamped(&rgba), w, hgt),
    ) {
        ctx.clear_rect(0.0, 0.0, f64::from(w), f64::from(hgt));
        let _ = ctx.put_image_data(&img, 0.0, 0.0);
    }
    let (spans, text) = pc::heat_labels(h, caption);
    dom::fill(labels, &spans);
    note.set_text_content(Some(&text));
}
