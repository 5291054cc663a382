//! The view of one model: builds every card into the report element and owns every listener
//! and piece of state they need. Dropping a `Report` removes all of its listeners.

use std::any::Any;
use std::cell::RefCell;
use std::rc::Rc;

use gloo::timers::callback::Timeout;

use crate::open::OpenedModel;
use crate::summary;
use crate::summary::LayerMap;
use crate::view::report::{Laps, LaterCard, Plan, PreviewPlan};
pub use crate::view::report::{Layout, Need};
use crate::view::tabs::{hint, Tab};
use crate::view::tensors::type_filter;
use crate::view::{checks, facts, layer_grid, memory, recipe};

use super::dom::{self, append, attr, el_class};
use super::later::Later;
use super::load::Opened;
use super::tabs::{OnSelect, TabsView};
use super::{export, fit, histogram, metadata, preview, scan_card, tables, tokenizer};
use gloo::events::EventListener;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement, HtmlInputElement, HtmlSelectElement};

/// Told what the lean module cannot do.
pub type OnNeed = Rc<dyn Fn(Need)>;

/// Everything the current model's view keeps alive.
pub struct Report {
    /// The export buttons ([`Report::export`]).
    exports: Vec<export::ExportButton>,
    /// The cards built in later tasks ([`Later`]), with the type chart and the tensor table.
    made: Rc<Makings>,
    /// The jobs that build them (dropped with the view: those not yet run never run).
    later: Later,
    /// The tensor preview card (its panel owns its own listeners), the table's row-open
    /// listeners that open it, and with the card, Escape in the Preview tab, which closes it.
    _preview: Option<Rc<preview::PreviewCard>>,
    _open: Vec<EventListener>,
    /// The doctor's run after the first view (dropped with the view, it does not run).
    _doctor: Option<Timeout>,
    /// The tab bar and its panels.
    tabs: Rc<TabsView>,
    /// Where the scan card goes, and the card once offered ([`Report::offer_scan`]).
    scan_slot: Element,
    scan: RefCell<Option<Rc<scan_card::ScanCard>>>,
    root: Element,
}

/// What the cards built after the first view are made of ([`Makings::build`]), and what they
/// keep alive once built.
struct Makings {
    /// The model shown and its name (the page's Compare card compares against them).
    model: Rc<OpenedModel>,
    name: String,
    page: bool,
    layers: LayerMap,
    hist: Rc<histogram::HistogramView>,
    tensors: Rc<tables::TensorTableView>,
    /// Filters the tensor table and shows it (a pick in the layer map).
    filter: Rc<dyn Fn(&str)>,
    fit: RefCell<Option<Rc<fit::FitCard>>>,
    /// Settings given before the Fit card was built ([`Report::set_fit_settings`]).
    fit_settings: RefCell<Option<crate::view::fit::Settings>>,
    /// The other cards' listeners and state (memory, tokenizer, layer map, metadata).
    kept: RefCell<Vec<Box<dyn Any>>>,
}

/// Puts `card` where `slot` is (or removes the slot when there is no card).
fn fill(slot: Option<&Element>, card: Option<&Element>) {
    match (slot, card) {
        (Some(s), Some(c)) => {
            let _ = s.replace_with_with_node_1(c);
        }
        (Some(s), None) => s.remove(),
        (None, _) => {}
    }
}

impl Makings {
    /// Builds `card` into its `slots` ([`LaterCard::slots`]). The memory, Fit and tokenizer
    /// cards are the full module's (the lean module's plan has none): behind `crate::FULL`,
    /// their code is left out of the lean module.
    fn build(&self, card: LaterCard, slots: &[Element]) {
        let (slot, model) = (slots.first(), self.model.clone());
        let put = |card: &Element, keep: Box<dyn Any>| {
            fill(slot, Some(card));
            self.kept.borrow_mut().push(keep);
        };
        match card {
            LaterCard::TypesChart => self.hist.draw(),
            LaterCard::TensorRows => self.tensors.draw_now(),
            LaterCard::LayersRecipe => {
                // A role or a cell lists its tensors: by click; a role (a tab stop) also by
                // Enter or Space.
                match layer_grid::map_card(&self.layers).map(|n| dom::render(&n)) {
                    Some(card) => {
                        let table = dom::find(&card, "table.layer-map");
                        let keys = |k: &web_sys::KeyboardEvent| layer_grid::picks(&k.key());
                        let (f, on) = (self.filter.clone(), &["data-filter"]);
                        let ls = dom::on_pick(&table, "[data-filter]", on, keys, move |v| f(v));
                        put(&card, Box::new(ls));
                    }
                    None => fill(slot, None),
                }
                let r = recipe::model_card(&model).map(|n| dom::render(&n));
                fill(slots.get(1), r.as_ref());
            }
            LaterCard::Memory if crate::FULL => {
                let (card, ls) = memory_card(model);
                put(&card, Box::new(ls));
            }
            LaterCard::Fit if crate::FULL => {
                let pending = self.fit_settings.borrow_mut().take();
                let settings = pending.unwrap_or_else(|| match self.page {
                    true => fit::page_settings(),
                    false => crate::view::fit::Settings::default(),
                });
                let c = fit::FitCard::new(model, &self.name, settings, self.page);
                fill(slot, Some(c.element()));
                *self.fit.borrow_mut() = Some(c);
            }
            LaterCard::Tokenizer(info) if crate::FULL => {
                let (card, t) = tokenizer::TokenizerCard::new(model, &info);
                fill(slot, Some(&card));
                t.draw_now();
                self.kept.borrow_mut().push(Box::new(t));
            }
            LaterCard::Metadata => {
                let (card, meta) = metadata::MetadataView::new(model);
                put(&card, Box::new(meta));
            }
            LaterCard::Memory | LaterCard::Fit | LaterCard::Tokenizer(_) => {}
        }
    }
}

/// The memory card of `model` (a GGUF) and its listeners: a context box (default the model's
/// own) and a KV type select; the weights, KV cache and total from
/// [`crate::summary::memory::estimate`] (with the sliding-window split and the full-context
/// upper bound when llama.cpp uses a window), its formula and notes, or "no estimate: …"
/// ([`crate::view::memory::Shown`]). Recomputed as the inputs change (typing debounced by
/// [`MEMORY_DELAY_MS`]).
fn memory_card(model: Rc<OpenedModel>) -> (Element, [EventListener; 2]) {
    let card = dom::render(&memory::card(memory::model_context(&model)));
    let input: HtmlInputElement = dom::find_as(&card, "[data-testid=memory-context]");
    let select: HtmlSelectElement = dom::find_as(&card, "[data-testid=memory-kv]");
    let (note, out) = (
        dom::find(&card, ".note.warn"),
        dom::find(&card, ".memory-out"),
    );
    let update = {
        let (card, input, select) = (card.clone(), input.clone(), select.clone());
        Rc::new(move || {
            let shown = memory::Shown::of(&model, &input.value(), &select.value());
            note.set_text_content(shown.note.as_deref());
            dom::set_hidden(&note, shown.note.is_none());
            attr(&input, "aria-invalid", shown.aria_invalid);
            dom::set_attrs(&card, shown.attrs);
            dom::fill(&out, &shown.output);
        })
    };
    update();
    let u = update.clone();
    let typed = dom::debounced(&input, "input", MEMORY_DELAY_MS, move || u());
    (
        card,
        [
            typed,
            EventListener::new(&select, "change", move |_| update()),
        ],
    )
}

/// Milliseconds the memory estimate waits for typing to pause.
const MEMORY_DELAY_MS: u32 = 150;

impl Report {
    /// Draws the model `o` opened into `root`, which must be in the document (the tables
    /// measure their containers), as a tab bar and one panel per tab, laid out as `layout`
    /// says; the tab the person picks is told to `on_select`, and the Checks tab offers the
    /// scan of every weight read from `scan` ([`Report::offer_scan`]). The lean web module
    /// tells `on_need` what it leaves to the full module (at once when the first tab is one of
    /// [`crate::view::tabs::FULL_TABS`]); nothing is ever asked of the full module's view. With `o`'s source (a
    /// fresh reader of the model's file per preview: a `Blob` for a local file, an HTTP Range
    /// reader for a remote one), clicking a tensor row or pressing Enter on it opens a preview
    /// of its values and shows the Preview tab; picking a type in the chart or a layer in the
    /// map shows the Tensors tab.
    pub fn build(
        root: &Element,
        o: &Opened,
        layout: Layout,
        scan: scan_card::ScanInput,
        on_select: OnSelect,
        on_need: Option<OnNeed>,
    ) -> Report {
        let (name, model, stats) = (o.name.as_str(), o.model.clone(), &o.stats);
        // Each card's build time, on the root as `data-build-ms` (bench/open_tasks.mjs).
        let mut lap = Laps::start(dom::now());
        // The doctor's findings scan the vocabulary: added after the first view is drawn.
        let s = summary::summarize_open(&model);
        lap.mark("summarize", dom::now());
        dom::clear(root);
        // (A model opened has a reader of its values, `o.source`.)
        let plan = Plan::new(&model, layout, crate::FULL, true);
        let ask = move |n: Need| {
            if let Some(f) = &on_need {
                f(n);
            }
        };
        let page = plan.page;
        let tabs = TabsView::new(root, plan.tabs.clone(), plan.first);
        for (t, h) in plan.hints() {
            tabs.place(t, &dom::render(&hint(h)));
        }
        let lean_tabs = plan.lean_tabs();
        if !lean_tabs.is_empty() {
            // The full module's tabs (a stand-in in each): showing one asks for the full module.
            let ask = ask.clone();
            tabs.on_show(Rc::new(move |t: Tab| {
                if lean_tabs.contains(&t) {
                    ask(Need::Tab(t));
                }
            }));
        }
        // Shows a tab when the person acts in another one.
        let go_to = |tab: Tab| -> Rc<dyn Fn()> {
            let w = Rc::downgrade(&tabs);
            Rc::new(move || {
                if let Some(t) = w.upgrade() {
                    // The control acted on (a row, a bar) is in the panel being hidden: focus
                    // follows to the panel shown.
                    let switching = t.current() != tab;
                    t.select(tab, true);
                    if switching {
                        t.focus_panel(tab);
                    }
                }
            })
        };

        let summary = dom::render(&facts::summary_card(name, &s, &model, stats));
        let exports = el_class("div", "exports");
        let export: Vec<export::ExportButton> = export::Kind::ALL
            .into_iter()
            .map(|kind| match crate::FULL {
                true => export::ExportButton::new(model.clone(), name, kind),
                false => {
                    let ask = ask.clone();
                    export::ExportButton::with_click(kind, move || ask(Need::Export(kind)))
                }
            })
            .inspect(|b| append(&exports, &b.element))
            .collect();
        append(&dom::find(&summary, ".card-head"), &exports);
        tabs.place(Tab::Summary, &summary);
        lap.mark("summary-card", dom::now());
        // Findings include the parser's warnings; the doctor's join them in a later task
        // (`setTimeout(0)`: the first view is painted and input handled before it), in a card
        // that takes the place of this one wherever it was placed.
        let card_of =
            |findings: &[_], mark| dom::render(&checks::card(findings).attr("data-doctor", mark));
        let checks_card = card_of(&s.findings, plan.doctor_mark());
        if plan.checks_card() {
            tabs.place(Tab::Checks, &checks_card);
        }
        let doctor = (crate::FULL && plan.doctor()).then(|| {
            let (model, mut findings) = (model.clone(), s.findings.clone());
            Timeout::new(0, move || {
                crate::open::findings::add_doctor(&model, &mut findings);
                let _ = checks_card.replace_with_with_node_1(&card_of(&findings, "done"));
            })
        });
        // The "Scan all weights" card goes under the Checks card, when offered.
        let scan_slot = tabs.slot(Tab::Checks);
        lap.mark("checks-card", dom::now());

        // The tensor table is built first so the type chart can filter it, and placed later.
        let part_names = model.parts.iter().map(|p| p.name.clone()).collect();
        let stopped = s.error.is_some();
        let (tensor_card, tensors) =
            tables::TensorTableView::new(s.tensors, part_names, s.format, s.tensor_count, stopped);
        lap.mark("tensor-table", dom::now());

        let row = el_class("div", "card-row");
        if let Some(card) = &s.architecture {
            append(&row, &dom::render(&facts::arch_card(card)));
        }
        let filter: Rc<dyn Fn(&str)> = {
            let set = tensors.filter_setter();
            let show = go_to(Tab::Tensors);
            Rc::new(move |text: &str| {
                set(text);
                show();
            })
        };
        let by_type = {
            let set = filter.clone();
            Rc::new(move |dtype: &str| set(&type_filter(dtype)))
        };
        let (hist_card, hist) = histogram::HistogramView::new(&s.dtypes, by_type);
        let hist = Rc::new(hist);
        tabs.place(Tab::Summary, &row);
        tabs.place(Tab::Histogram, &hist_card);
        lap.mark("types", dom::now());

        // Beyond the first view: on the page each card in a later task of its own, in slots
        // placed now (the element builds them at once).
        let later = Later::new(!page);
        let laps = Rc::new(RefCell::new(lap));
        let later_cards: Vec<(LaterCard, Vec<Element>)> = (plan.later_cards().into_iter())
            .map(|c| {
                let slots = c.slots().iter().map(|t| tabs.slot(*t)).collect();
                (c, slots)
            })
            .collect();

        tabs.place(Tab::Tensors, &tensor_card);
        let tensors = Rc::new(tensors);

        let (preview_card, open) = match plan.preview {
            // The lean module: a row opened asks the full module for its preview.
            PreviewPlan::AskFull => {
                let ask = ask.clone();
                let open = tensors.open_listeners(Rc::new(move |i| ask(Need::Tensor(i))));
                (None, open)
            }
            PreviewPlan::Card => {
                let card = Rc::new(preview::PreviewCard::new(model.clone(), o.source.clone()));
                // Until a shell asks to hear of it ([`Report::on_preview`]).
                card.set_on_change(closing_returns_to_table(
                    root,
                    Rc::new(|_: Option<&str>| {}),
                ));
                tabs.place(Tab::Preview, card.element());
                // A preview opened in a hidden tab reads its window when the tab is shown.
                let wc = Rc::downgrade(&card);
                tabs.on_show(Rc::new(move |t: Tab| {
                    if let (Tab::Preview, Some(c)) = (t, wc.upgrade()) {
                        c.shown();
                    }
                }));
                let c = card.clone();
                let show = go_to(Tab::Preview);
                let mut open = tensors.open_listeners(Rc::new(move |i| {
                    c.open(i);
                    show();
                }));
                open.push(escape_closes_preview(root));
                (Some(card), open)
            }
            PreviewPlan::NoValues => (None, Vec::new()),
        };
        laps.borrow_mut().mark("first-view", dom::now());

        let makings = Rc::new(Makings {
            model,
            name: name.to_string(),
            page,
            layers: s.layers,
            hist,
            tensors,
            filter,
            fit: RefCell::default(),
            fit_settings: RefCell::default(),
            kept: RefCell::default(),
        });
        for (card, slots) in later_cards {
            let (m, name) = (makings.clone(), card.name());
            timed(&later, &laps, root, name, move || m.build(card, &slots));
        }
        tabs.set_on_select(on_select);
        let report = Report {
            exports: export,
            made: makings,
            later,
            _preview: preview_card,
            _open: open,
            _doctor: doctor,
            tabs,
            scan_slot,
            scan: RefCell::new(None),
            root: root.clone(),
        };
        report.offer_scan(scan);
        // The first tab asks for the full module too, at once.
        let t = report.tabs.current();
        if plan.asks_full(t) {
            ask(Need::Tab(t));
        }
        report
    }

    /// Downloads the `kind` export, as its button does (the full module's view finishing what
    /// the lean module's button asked).
    pub fn export(&self, kind: export::Kind) {
        let button = self.exports.iter().find(|b| b.kind == kind);
        if let Some(b) = button.and_then(|b| b.element.dyn_ref::<HtmlElement>()) {
            b.click();
        }
    }

    /// Offers the scan of every weight of the model shown, read from `input` (the page: a
    /// local model, or a remote one after asking). A model without tensor data offers none.
    fn offer_scan(&self, input: scan_card::ScanInput) {
        if !crate::FULL {
            return;
        }
        let model = &self.made.model;
        let bytes = crate::scan::bytes_to_scan(model);
        if bytes == 0 || self.scan.borrow().is_some() {
            return;
        }
        // A remote scan reads the headers again (the worker opens the model itself); a set's
        // header_size is its parts' sum.
        let card = scan_card::ScanCard::new(
            input,
            bytes,
            model.header_size,
            model.tensors.len(),
            self.root.clone(),
        );
        fill(Some(&self.scan_slot), Some(card.element()));
        *self.scan.borrow_mut() = Some(card);
    }

    /// Runs `f` once every card is built (at once in the embedded view; after the page's
    /// later tasks, see [`Later`]): the page says it is ready then.
    pub fn when_built(&self, f: impl FnOnce() + 'static) {
        self.later.then(f);
    }

    /// The name and the model this view shows.
    pub fn shown(&self) -> (&str, &Rc<OpenedModel>) {
        (&self.made.name, &self.made.model)
    }

    /// The tab bar.
    pub fn tabs(&self) -> &Rc<TabsView> {
        &self.tabs
    }

    /// The Edit tab's panel, where the page puts the header editor (`None` without an Edit
    /// tab: [`Layout::Page`] without `editor`, or the element).
    pub fn edit_panel(&self) -> Option<Element> {
        self.tabs.panel(Tab::Edit).cloned()
    }

    /// Shows `s` in the Fit card (GGUF only) and plans again.
    pub fn set_fit_settings(&self, s: crate::view::fit::Settings) {
        let card = self.made.fit.borrow().clone();
        match card {
            Some(c) => c.apply(s),
            None => *self.made.fit_settings.borrow_mut() = Some(s),
        }
    }

    /// Filters the tensor table as if `text` were typed into its search box.
    pub fn set_filter(&self, text: &str) {
        self.made.tensors.filter_setter()(text);
    }

    /// Opens the preview of tensor `index` (as a click on its row would); nothing without a
    /// source to read values from.
    pub fn open_tensor(&self, index: usize) {
        if !crate::FULL {
            // The lean module: the row is marked; the Preview tab asks for the full module.
            self.made.tensors.select(Some(index));
            return;
        }
        if let Some(card) = &self._preview {
            self.made.tensors.select(Some(index));
            card.open(index);
        }
    }

    /// Calls `f` with the tensor whose preview opens, or `None` when the preview is closed
    /// (then, on the page and in the element alike, the Tensors tab is shown with the focus on
    /// the row the preview was opened from).
    pub fn on_preview(&self, f: preview::OnChange) {
        if let Some(card) = &self._preview {
            card.set_on_change(closing_returns_to_table(&self.root, f));
        }
    }
}

impl Drop for Report {
    /// The preview's panel goes with the view ([`preview::PreviewCard::release`]).
    fn drop(&mut self) {
        if let Some(card) = &self._preview {
            card.release();
        }
    }
}

/// `f`, then, when the preview closes (its button, or Escape), the Tensors tab with the focus
/// on the selected row: after the close button's own listener, which drops the preview's panel.
fn closing_returns_to_table(root: &Element, f: preview::OnChange) -> preview::OnChange {
    let root = root.clone();
    Rc::new(move |name: Option<&str>| {
        f(name);
        if name.is_none() {
            let root = root.clone();
            wasm_bindgen_futures::spawn_local(async move { back_to_table(&root) });
        }
    })
}

/// Shows the Tensors tab and focuses the table's selected row.
fn back_to_table(root: &Element) {
    let find = |s: &str| -> Option<HtmlElement> { root.query_selector(s).ok()??.dyn_into().ok() };
    if let Some(t) = find("[role=tab][data-tab=tensors]") {
        t.click();
    }
    if let Some(r) = find("[data-testid=tensor-table] tr[aria-selected=true]") {
        let _ = r.focus();
    }
}

/// Escape pressed in a tab panel showing the preview closes it (as its close button does).
fn escape_closes_preview(root: &Element) -> EventListener {
    // Not passive (gloo's default): it prevents the key's default when it closes the preview.
    dom::on_keydown(root, |e, k| {
        if k.key() != "Escape" || k.is_composing() {
            return false;
        }
        let panel = dom::target(e).and_then(|t| t.closest("[role=tabpanel]").ok().flatten());
        let close = panel.and_then(|p| p.query_selector(CLOSE_PREVIEW).ok()?);
        let Some(b) = close.and_then(|c| c.dyn_into::<HtmlElement>().ok()) else {
            return false;
        };
        // Handled: a host page's own Escape (a dialog around the element) is not also run.
        e.stop_propagation();
        b.click();
        true
    })
}

/// The close button of a preview shown.
const CLOSE_PREVIEW: &str =
    "[data-testid=preview]:not([hidden]) button[aria-label='close the preview']";

/// Runs `job` in a later task of `later`, timed as the stage `name` in `laps`, whose text then
/// goes on `root` as `data-build-ms` (bench/open_tasks.mjs reads it once the view is built:
/// after the last stage, the Metadata card).
fn timed(
    later: &Later,
    laps: &Rc<RefCell<Laps>>,
    root: &Element,
    name: &'static str,
    job: impl FnOnce() + 'static,
) {
    let (laps, root) = (laps.clone(), root.clone());
    later.then(move || {
        laps.borrow_mut().restart(dom::now());
        job();
        let mut laps = laps.borrow_mut();
        laps.mark(name, dom::now());
        attr(&root, "data-build-ms", &laps.text());
    });
}
