//! The view of one model: builds every card into the report element and owns every listener
//! and piece of state they need. Dropping a `Report` removes all of its listeners.

use std::cell::RefCell;
use std::rc::Rc;

use crate::open::OpenedModel;
use crate::source::ReadStats;
use crate::summary;
use crate::view::report::{Laps, Plan, PreviewPlan};
pub use crate::view::report::{Layout, Need};
use crate::view::tabs::{hint, Hint, Tab};
use crate::view::tensors::type_filter;

use super::dom::{self, append, attr, el_class};
use super::later::Later;
use super::tabs::TabsView;
use super::{
    checks, export, fit, histogram, layers, memory, metadata, preview, recipe, scan_card,
    summary as summary_card, tables, tokenizer,
};
use crate::source::boxed::SourceFactory;
use wasm_bindgen::JsCast;
use web_sys::Element;

/// Told what the lean module cannot do.
pub type OnNeed = Rc<dyn Fn(Need)>;

/// Everything the current model's view keeps alive.
pub struct Report {
    /// The export buttons ([`Report::export`]).
    exports: Vec<export::ExportButton>,
    _histogram: Rc<histogram::HistogramView>,
    _tensors: Rc<tables::TensorTableView>,
    /// The cards built in later tasks ([`Later`]), once built.
    later_cards: Rc<RefCell<LaterCards>>,
    /// The jobs that build them (dropped with the view: those not yet run never run).
    later: Later,
    /// The tensor preview card (its panel owns its own listeners) and the table's row-open
    /// listeners that open it.
    _preview: Option<Rc<preview::PreviewCard>>,
    _open: Vec<gloo::events::EventListener>,
    /// Escape in the Preview tab closes the preview.
    _escape: gloo::events::EventListener,
    /// The doctor's run after the first view (dropped with the view, it does not run).
    _doctor: Option<gloo::timers::callback::Timeout>,
    /// The tab bar and its panels.
    tabs: Rc<TabsView>,
    /// Where the scan card goes, and the card once offered ([`Report::offer_scan`]).
    scan_slot: Element,
    scan: RefCell<Option<Rc<scan_card::ScanCard>>>,
    root: Element,
    /// The name and model shown (the page's Compare card compares against them).
    shown: (String, Rc<OpenedModel>),
    /// The lean module's listener for what it leaves to the full one, and the tabs that ask
    /// for it ([`Plan::lean_tabs`]).
    need: Rc<RefCell<Option<OnNeed>>>,
    lean_tabs: &'static [Tab],
}

/// The cards the page builds after its first view, and what they keep alive.
#[derive(Default)]
struct LaterCards {
    memory: Option<memory::MemoryCard>,
    fit: Option<Rc<fit::FitCard>>,
    /// Settings given before the Fit card was built ([`Report::set_fit_settings`]).
    fit_settings: Option<crate::view::fit::Settings>,
    tokenizer: Option<tokenizer::TokenizerCard>,
    layers: Option<Vec<gloo::events::EventListener>>,
    metadata: Option<metadata::MetadataView>,
}

/// Puts `card` where `slot` is (or removes the slot when there is no card).
fn fill(slot: &Element, card: Option<&Element>) {
    match card {
        Some(c) => {
            let _ = slot.replace_with_with_node_1(c);
        }
        None => slot.remove(),
    }
}

impl Report {
    /// Draws `model` (opened as `name`) into `root`, which must be in the document (the tables
    /// measure their containers), as a tab bar and one panel per tab, laid out as `layout`
    /// says. With a `source` (a fresh reader of the model's file per preview: a `Blob` for a
    /// local file, an HTTP Range reader for a remote one), clicking a tensor row or pressing
    /// Enter on it opens a preview of its values and shows the Preview tab; picking a type in
    /// the chart or a layer in the map shows the Tensors tab.
    pub fn build(
        root: &web_sys::Element,
        name: &str,
        model: Rc<OpenedModel>,
        stats: &ReadStats,
        source: Option<SourceFactory>,
        layout: Layout,
    ) -> Report {
        // Each card's build time, on the root as `data-build-ms` (bench/open_tasks.mjs).
        let mut lap = Laps::start(dom::now());
        // The doctor's findings scan the vocabulary: added after the first view is drawn.
        let s = summary::summarize_open(&model);
        lap.mark("summarize", dom::now());
        dom::clear(root);
        let plan = Plan::new(&model, layout, crate::FULL, source.is_some());
        let need: Rc<RefCell<Option<OnNeed>>> = Rc::default();
        let ask = {
            let need = need.clone();
            move |n: Need| {
                let f = need.borrow().clone();
                if let Some(f) = f {
                    f(n);
                }
            }
        };
        let page = plan.page;
        let tabs = TabsView::new(root, plan.tabs.clone(), plan.first);
        let lean_tabs = plan.lean_tabs();
        if !lean_tabs.is_empty() {
            // The full module's tabs: a stand-in, and showing one asks for the full module.
            for t in lean_tabs {
                tabs.place(*t, &dom::render(&hint(Hint::Loading)));
            }
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

        let summary = summary_card::summary_card(name, &s, &model, stats);
        let exports = el_class("div", "exports");
        let export: Vec<export::ExportButton> = export::Kind::ALL
            .into_iter()
            .map(|kind| match crate::FULL {
                true => export::ExportButton::new(model.clone(), name, kind),
                false => {
                    let ask = ask.clone();
                    export::ExportButton::asking(kind, move || ask(Need::Export(kind)))
                }
            })
            .inspect(|b| append(&exports, &b.element))
            .collect();
        append(&dom::find(&summary, ".card-head"), &exports);
        tabs.place(Tab::Summary, &summary);
        lap.mark("summary-card", dom::now());
        // Findings include the parser's warnings; the doctor's join them in a later task.
        let checks_card = checks::checks_card(&s.findings);
        let doctor = if plan.checks_card() {
            tabs.place(Tab::Checks, &checks_card);
            checks::later_doctor(checks_card, model.clone(), s.findings.clone())
        } else {
            // The doctor is the full module's (the Checks tab asks for it).
            attr(&checks_card, "data-doctor", "pending");
            None
        };
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
            append(&row, &summary_card::arch_card(card));
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

        // Beyond the first view: on the page each card in a later task of its own, in a slot
        // placed now (the element builds them at once).
        let later = Later::new(!page);
        let cards: Rc<RefCell<LaterCards>> = Rc::default();
        let laps = Rc::new(RefCell::new(lap));
        let layers_slot = tabs.slot(Tab::Histogram);
        let recipe_slot = tabs.slot(Tab::Histogram);
        let memory_slot = plan.memory_and_fit.then(|| tabs.slot(Tab::Memory));
        let fit_slot = plan.memory_and_fit.then(|| tabs.slot(Tab::Fit));
        let tokenizer_slot = plan.tokenizer.map(|info| (tabs.slot(Tab::Tokenizer), info));
        let meta_slot = tabs.slot(Tab::Metadata);

        tabs.place(Tab::Tensors, &tensor_card);
        let tensors = Rc::new(tensors);

        let (preview_card, open) = match (plan.preview, source) {
            // The lean module: a row opened asks the full module for its preview.
            (PreviewPlan::AskFull, _) => {
                let ask = ask.clone();
                let open = tensors.open_listeners(Rc::new(move |i| ask(Need::Tensor(i))));
                (None, open)
            }
            (PreviewPlan::Card, Some(src)) => {
                let card = Rc::new(preview::PreviewCard::new(model.clone(), src));
                // Until a shell asks to hear of it ([`Report::on_preview`]).
                card.set_on_change(closing_returns_to_table(
                    root,
                    Rc::new(|_: Option<&str>| {}),
                ));
                tabs.place(Tab::Preview, &dom::render(&hint(Hint::PickTensor)));
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
                let open = tensors.open_listeners(Rc::new(move |i| {
                    c.open(i);
                    show();
                }));
                (Some(card), open)
            }
            _ => {
                tabs.place(Tab::Preview, &dom::render(&hint(Hint::NoValues)));
                (None, Vec::new())
            }
        };
        laps.borrow_mut().mark("first-view", dom::now());

        // The type chart reads its width from the laid-out page.
        let h = hist.clone();
        timed(&later, &laps, root, "types-chart", move || h.draw());
        let t = tensors.clone();
        timed(&later, &laps, root, "tensor-rows", move || t.draw_now());
        {
            let (model, cards) = (model.clone(), cards.clone());
            let layers = s.layers;
            timed(&later, &laps, root, "layers-recipe", move || {
                let made = layers::layer_card(&layers, filter);
                fill(&layers_slot, made.as_ref().map(|(card, _)| card));
                cards.borrow_mut().layers = made.map(|(_, l)| l);
                let r = summary::recipe::recipe(&model);
                fill(&recipe_slot, r.map(|r| recipe::recipe_card(&r)).as_ref());
            });
        }
        // GGUF only: the memory estimate and the tokenizer (safetensors carry neither).
        if let Some(slot) = memory_slot {
            let (model, cards) = (model.clone(), cards.clone());
            timed(&later, &laps, root, "memory-card", move || {
                let (card, m) = memory::MemoryCard::new(model);
                fill(&slot, Some(&card));
                cards.borrow_mut().memory = Some(m);
            });
        }
        // The page's settings are its address's or the remembered ones; the element's come
        // from its attributes ([`Report::set_fit_settings`]).
        if let Some(slot) = fit_slot {
            let (model, cards) = (model.clone(), cards.clone());
            let name = name.to_string();
            timed(&later, &laps, root, "fit-card", move || {
                let pending = cards.borrow_mut().fit_settings.take();
                let settings = pending.unwrap_or_else(|| match page {
                    true => fit::page_settings(),
                    false => crate::view::fit::Settings::default(),
                });
                let c = fit::FitCard::new(model, &name, settings, page);
                fill(&slot, Some(c.element()));
                cards.borrow_mut().fit = Some(c);
            });
        }
        if let Some((slot, info)) = tokenizer_slot {
            let (model, cards) = (model.clone(), cards.clone());
            timed(&later, &laps, root, "tokenizer-card", move || {
                let (card, t) = tokenizer::TokenizerCard::new(model, &info);
                fill(&slot, Some(&card));
                t.draw_now();
                cards.borrow_mut().tokenizer = Some(t);
            });
        }
        {
            let (model, cards) = (model.clone(), cards.clone());
            timed(&later, &laps, root, "metadata-card", move || {
                let (card, meta) = metadata::MetadataView::new(model);
                fill(&meta_slot, Some(&card));
                cards.borrow_mut().metadata = Some(meta);
            });
        }
        Report {
            exports: export,
            _histogram: hist,
            _tensors: tensors,
            later_cards: cards,
            later,
            _preview: preview_card,
            _open: open,
            _escape: escape_closes_preview(root),
            _doctor: doctor,
            tabs,
            scan_slot,
            scan: RefCell::new(None),
            root: root.clone(),
            shown: (name.to_string(), model),
            need,
            lean_tabs,
        }
    }

    /// The lean web module tells `f` what it leaves to the full module (at once when the tab
    /// shown now is one of [`crate::view::tabs::FULL_TABS`]). Nothing is ever asked of the full
    /// module's view.
    pub fn on_need_full(&self, f: OnNeed) {
        *self.need.borrow_mut() = Some(f.clone());
        let t = self.tabs.current();
        if self.lean_tabs.contains(&t) {
            f(Need::Tab(t));
        }
    }

    /// Downloads the `kind` export, as its button does (the full module's view finishing what
    /// the lean module's button asked).
    pub fn export(&self, kind: export::Kind) {
        let button = self.exports.iter().find(|b| b.kind == kind);
        if let Some(b) = button.and_then(|b| b.element.dyn_ref::<web_sys::HtmlElement>()) {
            b.click();
        }
    }

    /// Offers the scan of every weight of the model shown, read from `input` (the page: a
    /// local model, or a remote one after asking). A model without tensor data offers none.
    pub fn offer_scan(&self, input: scan_card::ScanInput) {
        if !crate::FULL {
            return;
        }
        let model = &self.shown.1;
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
        fill(&self.scan_slot, Some(card.element()));
        *self.scan.borrow_mut() = Some(card);
    }

    /// Runs `f` once every card is built (at once in the embedded view; after the page's
    /// later tasks, see [`Later`]): the page says it is ready then.
    pub fn when_built(&self, f: impl FnOnce() + 'static) {
        self.later.then(f);
    }

    /// The name and the model this view shows.
    pub fn shown(&self) -> (&str, &Rc<OpenedModel>) {
        (&self.shown.0, &self.shown.1)
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
        let mut cards = self.later_cards.borrow_mut();
        match &cards.fit {
            Some(c) => {
                let c = c.clone();
                drop(cards);
                c.apply(s);
            }
            None => cards.fit_settings = Some(s),
        }
    }

    /// Filters the tensor table as if `text` were typed into its search box.
    pub fn set_filter(&self, text: &str) {
        self._tensors.filter_setter()(text);
    }

    /// Opens the preview of tensor `index` (as a click on its row would); nothing without a
    /// source to read values from.
    pub fn open_tensor(&self, index: usize) {
        if !crate::FULL {
            // The lean module: the row is marked; the Preview tab asks for the full module.
            self._tensors.select(Some(index));
            return;
        }
        if let Some(card) = &self._preview {
            self._tensors.select(Some(index));
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
    let find = |s: &str| root.query_selector(s).ok().flatten();
    if let Some(t) = find("[role=tab][data-tab=tensors]") {
        if let Some(t) = t.dyn_ref::<web_sys::HtmlElement>() {
            t.click();
        }
    }
    if let Some(row) = find("[data-testid=tensor-table] tr[aria-selected=true]") {
        if let Some(r) = row.dyn_ref::<web_sys::HtmlElement>() {
            let _ = r.focus();
        }
    }
}

/// Escape pressed in a tab panel showing the preview closes it (as its close button does).
fn escape_closes_preview(root: &Element) -> gloo::events::EventListener {
    // Not passive (gloo's default): it prevents the key's default when it closes the preview.
    dom::on_keydown(root, |e, k| {
        if k.key() != "Escape" || k.is_composing() {
            return false;
        }
        let panel = dom::target(e).and_then(|t| t.closest("[role=tabpanel]").ok().flatten());
        let close = panel.and_then(|p| p.query_selector(CLOSE_PREVIEW).ok().flatten());
        let Some(b) = close
            .as_ref()
            .and_then(|c| c.dyn_ref::<web_sys::HtmlElement>())
        else {
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
