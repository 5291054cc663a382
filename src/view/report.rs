//! The view of one model as decisions, without the DOM: where it is shown ([`Layout`]), which
//! tabs it has and which is first, which cards it gets (the memory, Fit and tokenizer cards of
//! a GGUF model, the Checks card and the doctor of the full module), what the tabs say before
//! their cards and what the Preview tab holds, which cards are built after the first view, in
//! which order and into which slots ([`LaterCard`]), what the lean web module leaves to the
//! full one ([`Need`]), and the cards' build times as the `data-build-ms` text ([`Laps`]).
//! `src/web/report.rs` builds the cards where a [`Plan`] says.

use crate::format::{Format, Model};
use crate::open::OpenedModel;
use crate::summary::tokenizer::{has_tokenizer, tokenizer_info, TokenizerInfo};
use crate::view::export::Kind;
use crate::view::tabs::{self, Hint, Tab, FULL_TABS};

/// Where a model's view is shown: the page and the element draw the same tabbed view; they
/// differ in when the cards below the first view are built and where settings come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// The page, starting on this tab (the one its address asks for): cards beyond the first
    /// view are built in later tasks, the Fit card takes the address's or the remembered
    /// settings, and with `editor` an Edit tab holds the header editor.
    Page {
        /// The tab the address asks for.
        first: Tab,
        /// Whether an Edit tab holds the header editor (one local GGUF file read to the end).
        editor: bool,
    },
    /// The embedded element, starting on this tab: every card built at once, the Fit card's
    /// settings from its attributes.
    Element(Tab),
}

/// What the lean web module leaves to the full one (issue #21: a first load that loads
/// little): the element asks for the full module, whose view of the same model then does it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// A tab whose cards only the full module has ([`FULL_TABS`]) was shown.
    Tab(Tab),
    /// The preview of tensor `i` (of `Model::tensors`) was asked for from the table.
    Tensor(usize),
    /// An export button was clicked.
    Export(Kind),
}

pub use crate::view::tabs::LOADING_REST;

impl Need {
    /// Whether the status line says [`LOADING_REST`] meanwhile: for a row or a button, which
    /// have nothing else to show (a tab's panel says it itself).
    pub fn shows_status(self) -> bool {
        !matches!(self, Need::Tab(_))
    }

    /// The `weightpeek-need-full` event's detail as (key, value): `("tensor", NAME)` for a
    /// row of a model whose tensors are named `tensors` (nothing for an index out of range),
    /// `("export", KIND)` for a button, nothing for a tab (the `tab` attribute names it).
    pub fn detail(self, tensors: &[String]) -> Option<(&'static str, String)> {
        match self {
            Need::Tensor(i) => tensors.get(i).map(|n| ("tensor", n.clone())),
            Need::Export(k) => Some(("export", k.name().to_string())),
            Need::Tab(_) => None,
        }
    }
}

/// What the Preview tab holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PreviewPlan {
    /// The "pick a tensor" hint and the preview card; a row opened shows it.
    Card,
    /// Nothing of its own (the lean module's stand-in is there); a row opened asks the full
    /// module ([`Need::Tensor`]).
    AskFull,
    /// The "values cannot be read" hint (no source to read values from).
    NoValues,
}

/// Which tabs and cards one model's view gets.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The tabs, in display order.
    pub tabs: Vec<Tab>,
    /// The tab shown first: the one asked for if the model has it, else Summary.
    pub first: Tab,
    /// Shown on the page (cards beyond the first view in later tasks), not in the element.
    pub page: bool,
    /// The full module's view (else the lean module's).
    pub full: bool,
    /// The memory and Fit cards, and the doctor's run after the first view (the full module,
    /// GGUF only).
    pub memory_and_fit: bool,
    /// The tokenizer card's facts (the full module, a GGUF model with a tokenizer).
    pub tokenizer: Option<TokenizerInfo>,
    /// What the Preview tab holds.
    pub preview: PreviewPlan,
}

impl Plan {
    /// The plan for `model` shown as `layout`, by the full module or (`full` false) the lean
    /// one, with (`has_source`) or without a reader of its tensor values. The lean module's
    /// tab list is the full module's: it has no tokenizer view, but a GGUF model's header
    /// with `tokenizer.*` keys still gets the tab.
    pub fn new(model: &Model, layout: Layout, full: bool, has_source: bool) -> Plan {
        let gguf = model.format == Format::Gguf;
        let tokenizer = (full && gguf).then(|| tokenizer_info(model)).flatten();
        let has = tabs::Has {
            gguf,
            tokenizer: if full {
                tokenizer.is_some()
            } else {
                gguf && has_tokenizer(model)
            },
            editor: matches!(layout, Layout::Page { editor: true, .. }),
        };
        let (asked, page) = match layout {
            Layout::Page { first, .. } => (first, true),
            Layout::Element(first) => (first, false),
        };
        let list = tabs::available(has);
        let first = tabs::initial(&list, Some(asked.name()));
        let preview = match (has_source, full) {
            (false, _) => PreviewPlan::NoValues,
            (true, true) => PreviewPlan::Card,
            (true, false) => PreviewPlan::AskFull,
        };
        Plan {
            tabs: list,
            first,
            page,
            full,
            memory_and_fit: full && gguf,
            tokenizer,
            preview,
        }
    }

    /// The tabs that hold the lean module's stand-in ([`crate::view::tabs::Hint::Loading`])
    /// and ask for the full module when shown: [`FULL_TABS`] in the lean module, none in the
    /// full one.
    pub fn lean_tabs(&self) -> &'static [Tab] {
        if self.full {
            &[]
        } else {
            &FULL_TABS
        }
    }

    /// What the tabs say before (or in place of) their cards, in the order placed: the lean
    /// module's stand-in in each of its [`Plan::lean_tabs`], then the Preview tab's hint
    /// ([`PreviewPlan`]: none when a row asks the full module).
    pub fn hints(&self) -> Vec<(Tab, Hint)> {
        let lean = self.lean_tabs().iter().map(|t| (*t, Hint::Loading));
        let preview = match self.preview {
            PreviewPlan::Card => Some(Hint::PickTensor),
            PreviewPlan::NoValues => Some(Hint::NoValues),
            PreviewPlan::AskFull => None,
        };
        lean.chain(preview.map(|h| (Tab::Preview, h))).collect()
    }

    /// Whether showing `tab` asks for the full module ([`Need::Tab`]).
    pub fn asks_full(&self, tab: Tab) -> bool {
        self.lean_tabs().contains(&tab)
    }

    /// Whether the Checks tab gets the header's findings card and the doctor's run: the full
    /// module only (the lean module's card would say "no problems" before the doctor ran; its
    /// Checks tab waits for the full module, marked `data-doctor="pending"`).
    pub fn checks_card(&self) -> bool {
        self.full
    }

    /// Whether the doctor runs after the first view, in a task of its own (the first view is
    /// painted and input handled before it), its findings joining the header's in a new
    /// Checks card: the full module's view of a GGUF model (the doctor reads nothing else).
    pub fn doctor(&self) -> bool {
        self.memory_and_fit
    }

    /// The Checks card's `data-doctor` in the first view: `done` when the doctor has nothing
    /// to read (the full module, not a GGUF file), else `pending` (until the card of its
    /// findings, marked `done`, takes its place; in the lean module, the full module's view).
    pub fn doctor_mark(&self) -> &'static str {
        if self.full && !self.doctor() {
            "done"
        } else {
            "pending"
        }
    }

    /// What is built after the first view, in order: on the page each in a later task of its
    /// own, in the element at once.
    pub fn later_cards(&self) -> Vec<LaterCard> {
        let mut cards = vec![
            LaterCard::TypesChart,
            LaterCard::TensorRows,
            LaterCard::LayersRecipe,
        ];
        if self.memory_and_fit {
            cards.extend([LaterCard::Memory, LaterCard::Fit]);
        }
        cards.extend(self.tokenizer.clone().map(LaterCard::Tokenizer));
        cards.push(LaterCard::Metadata);
        cards
    }
}

/// What a view builds after its first view ([`Plan::later_cards`]): a drawing that needs the
/// laid-out page, or a card that goes into the slots placed for it with the first view (so
/// that cards built later keep their order in a panel).
#[derive(Debug, Clone, PartialEq)]
pub enum LaterCard {
    /// The type chart (it reads its width from the laid-out page).
    TypesChart,
    /// The tensor table's rows.
    TensorRows,
    /// The layer map and the quantisation recipe, each in a slot of the Histogram tab.
    LayersRecipe,
    /// The memory estimate card (GGUF only, as the Fit card).
    Memory,
    /// The Fit card: the page's settings are its address's or the remembered ones, the
    /// element's come from its attributes.
    Fit,
    /// The tokenizer card of these facts (a GGUF model with a tokenizer).
    Tokenizer(TokenizerInfo),
    /// The Metadata card, built last.
    Metadata,
}

impl LaterCard {
    /// Its stage in the view's build times ([`Laps`], `data-build-ms`).
    pub fn name(&self) -> &'static str {
        match self {
            LaterCard::TypesChart => "types-chart",
            LaterCard::TensorRows => "tensor-rows",
            LaterCard::LayersRecipe => "layers-recipe",
            LaterCard::Memory => "memory-card",
            LaterCard::Fit => "fit-card",
            LaterCard::Tokenizer(_) => "tokenizer-card",
            LaterCard::Metadata => "metadata-card",
        }
    }

    /// The tab of each slot it fills, in order (none for a drawing of a card already there).
    pub fn slots(&self) -> &'static [Tab] {
        match self {
            LaterCard::TypesChart | LaterCard::TensorRows => &[],
            LaterCard::LayersRecipe => &[Tab::Histogram, Tab::Histogram],
            LaterCard::Memory => &[Tab::Memory],
            LaterCard::Fit => &[Tab::Fit],
            LaterCard::Tokenizer(_) => &[Tab::Tokenizer],
            LaterCard::Metadata => &[Tab::Metadata],
        }
    }
}

/// Whether the page's Edit tab edits `model`'s header: a GGUF model read whole and without
/// error from one local file alone (`alone`), never a set of parts merged into one.
pub fn editable(model: &OpenedModel, alone: bool) -> bool {
    model.format == Format::Gguf && model.error.is_none() && model.parts.is_empty() && alone
}

/// What the reader did in the page's lean view (www/page.js) before the app ran, to be done
/// again in the app's view of the same model: the tab shown, the tensor whose row was opened,
/// the export clicked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Carried {
    /// The tab shown (the app's first view starts on it).
    pub tab: Option<Tab>,
    /// The name of the tensor whose row was opened.
    pub tensor: Option<String>,
    /// The export clicked.
    pub export: Option<Kind>,
}

impl Carried {
    /// From page.js's `{tab, tensor, export}` strings (each optional; an unknown tab or
    /// export kind is none).
    pub fn from_texts(
        tab: Option<String>,
        tensor: Option<String>,
        export: Option<String>,
    ) -> Carried {
        Carried {
            tab: tab.and_then(|t| Tab::parse(&t)),
            tensor,
            export: export.and_then(|k| Kind::parse(&k)),
        }
    }

    /// The index (in `Model::tensors`) of the tensor opened, if `model` has it.
    pub fn tensor_index(&self, model: &Model) -> Option<usize> {
        model.tensor_index(self.tensor.as_deref()?)
    }
}

/// Build times of a view's stages, as `name:ms` pairs (the root's `data-build-ms`, read by
/// bench/open_tasks.mjs). Times are given in milliseconds from any one clock
/// (`performance.now()` on the page).
#[derive(Debug, Clone, PartialEq)]
pub struct Laps {
    last: f64,
    marks: Vec<(&'static str, f64)>,
}

impl Laps {
    /// Begins the first stage at `now` (ms).
    pub fn start(now: f64) -> Laps {
        Laps {
            last: now,
            marks: Vec::new(),
        }
    }

    /// Begins a stage at `now` (a later task's: the time between tasks is no stage's).
    pub fn restart(&mut self, now: f64) {
        self.last = now;
    }

    /// Ends the stage `name` (begun at the last mark or restart) at `now`.
    pub fn mark(&mut self, name: &'static str, now: f64) {
        self.marks.push((name, now - self.last));
        self.last = now;
    }

    /// `summarize:1.2 summary-card:0.4 …` (ms, one decimal), in the order marked.
    pub fn text(&self) -> String {
        self.marks
            .iter()
            .map(|(n, ms)| format!("{n}:{ms:.1}"))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::parse_bytes;
    use crate::view::testutil::{gguf, tiny_llama, Kv};

    fn safetensors() -> Model {
        let json = br#"{"t":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}"#;
        let mut b = (json.len() as u64).to_le_bytes().to_vec();
        b.extend(json);
        b.extend([0u8; 8]);
        parse_bytes(&b).unwrap()
    }

    fn with_tokenizer() -> Model {
        let tokens = vec!["<s>".to_string(), "a".to_string()];
        let bytes = gguf(
            &[
                ("general.architecture", Kv::Str("llama")),
                ("tokenizer.ggml.model", Kv::Str("llama")),
                ("tokenizer.ggml.tokens", Kv::StrArray(tokens)),
            ],
            &[("t", 0, vec![8], 0)],
        );
        parse_bytes(&bytes).unwrap()
    }

    const PAGE: Layout = Layout::Page {
        first: Tab::Fit,
        editor: true,
    };

    #[test]
    fn a_gguf_model_gets_memory_fit_and_its_tokenizer_in_the_full_module() {
        let m = with_tokenizer();
        let p = Plan::new(&m, PAGE, true, true);
        assert_eq!(p.tabs, Tab::ALL.to_vec());
        assert_eq!((p.first, p.page), (Tab::Fit, true));
        assert!(p.memory_and_fit && p.checks_card());
        assert_eq!(p.tokenizer.as_ref().map(|t| t.vocab_size), Some(2));
        assert_eq!(p.preview, PreviewPlan::Card);
        assert_eq!(p.lean_tabs(), &[] as &[Tab]);
        assert!(!p.asks_full(Tab::Preview));
        // The element has no Edit tab.
        let e = Plan::new(&m, Layout::Element(Tab::Edit), true, true);
        assert!(!e.tabs.contains(&Tab::Edit) && !e.page);
        assert_eq!(e.first, Tab::Summary);
    }

    #[test]
    fn the_lean_module_keeps_the_tabs_but_builds_none_of_the_full_cards() {
        let m = with_tokenizer();
        let p = Plan::new(&m, Layout::Element(Tab::Tokenizer), false, true);
        assert!(p.tabs.contains(&Tab::Tokenizer) && p.tabs.contains(&Tab::Fit));
        assert_eq!(p.first, Tab::Tokenizer);
        assert!(p.tokenizer.is_none() && !p.memory_and_fit && !p.checks_card());
        assert_eq!(p.preview, PreviewPlan::AskFull);
        assert_eq!(p.lean_tabs(), &FULL_TABS);
        assert!(p.asks_full(Tab::Checks) && !p.asks_full(Tab::Tensors));
        assert_eq!(
            Plan::new(&m, Layout::Element(Tab::Summary), false, false).preview,
            PreviewPlan::NoValues
        );
    }

    #[test]
    fn safetensors_and_a_gguf_without_tokenizer_get_fewer_tabs() {
        // (The page asks for an editor of one local GGUF file only.)
        let page = Layout::Page {
            first: Tab::Fit,
            editor: false,
        };
        let st = Plan::new(&safetensors(), page, true, false);
        assert_eq!(
            st.tabs,
            [
                Tab::Summary,
                Tab::Metadata,
                Tab::Tensors,
                Tab::Histogram,
                Tab::Preview,
                Tab::Checks
            ]
        );
        // Fit was asked for; safetensors have none.
        assert_eq!(st.first, Tab::Summary);
        assert!(!st.memory_and_fit && st.tokenizer.is_none());
        assert_eq!(st.preview, PreviewPlan::NoValues);
        let llama = parse_bytes(&tiny_llama()).unwrap();
        let p = Plan::new(&llama, PAGE, true, true);
        assert!(p.memory_and_fit && p.tokenizer.is_none());
        assert!(!p.tabs.contains(&Tab::Tokenizer) && p.tabs.contains(&Tab::Edit));
        assert_eq!(p.first, Tab::Fit);
    }

    #[test]
    fn later_cards_come_in_order_with_their_stage_names_and_slots() {
        let m = with_tokenizer();
        let full = Plan::new(&m, PAGE, true, true);
        let names: Vec<_> = full.later_cards().iter().map(LaterCard::name).collect();
        assert_eq!(
            names,
            [
                "types-chart",
                "tensor-rows",
                "layers-recipe",
                "memory-card",
                "fit-card",
                "tokenizer-card",
                "metadata-card"
            ]
        );
        let slots: Vec<_> = full.later_cards().iter().map(LaterCard::slots).collect();
        assert_eq!(
            slots,
            [
                &[] as &[Tab],
                &[],
                &[Tab::Histogram, Tab::Histogram],
                &[Tab::Memory],
                &[Tab::Fit],
                &[Tab::Tokenizer],
                &[Tab::Metadata]
            ]
        );
        let Some(LaterCard::Tokenizer(info)) = full.later_cards().get(5).cloned() else {
            panic!("the sixth card is the tokenizer's")
        };
        assert_eq!(info.vocab_size, 2);
        // Safetensors, and the lean module's view: no memory, Fit or tokenizer card.
        let st = Plan::new(&safetensors(), PAGE, true, false);
        let lean = Plan::new(&m, Layout::Element(Tab::Summary), false, true);
        for p in [st, lean] {
            let names: Vec<_> = p.later_cards().iter().map(LaterCard::name).collect();
            assert_eq!(
                names,
                [
                    "types-chart",
                    "tensor-rows",
                    "layers-recipe",
                    "metadata-card"
                ]
            );
        }
    }

    #[test]
    fn the_lean_tabs_wait_and_the_preview_tab_says_what_it_holds() {
        let m = with_tokenizer();
        let full = Plan::new(&m, PAGE, true, true);
        assert_eq!(full.hints(), [(Tab::Preview, Hint::PickTensor)]);
        let no_values = Plan::new(&m, PAGE, true, false);
        assert_eq!(no_values.hints(), [(Tab::Preview, Hint::NoValues)]);
        let lean = Plan::new(&m, Layout::Element(Tab::Summary), false, true);
        let loading: Vec<_> = FULL_TABS.iter().map(|t| (*t, Hint::Loading)).collect();
        assert_eq!(lean.hints(), loading);
        // Without a source, the lean module's Preview tab says both.
        let lean_no_values = Plan::new(&m, Layout::Element(Tab::Summary), false, false);
        let mut both = loading.clone();
        both.push((Tab::Preview, Hint::NoValues));
        assert_eq!(lean_no_values.hints(), both);
    }

    #[test]
    fn the_doctor_runs_in_the_full_module_on_gguf_and_marks_the_checks_card() {
        let full = Plan::new(&with_tokenizer(), PAGE, true, true);
        assert!(full.doctor());
        assert_eq!(full.doctor_mark(), "pending");
        // Nothing for it to read in safetensors: done at once.
        let st = Plan::new(&safetensors(), PAGE, true, true);
        assert!(!st.doctor());
        assert_eq!(st.doctor_mark(), "done");
        // The lean module's card waits for the full module's view.
        for m in [with_tokenizer(), safetensors()] {
            let lean = Plan::new(&m, Layout::Element(Tab::Checks), false, true);
            assert!(!lean.doctor());
            assert_eq!(lean.doctor_mark(), "pending");
        }
    }

    #[test]
    fn needs_say_what_they_ask_and_whether_the_status_line_waits() {
        let names = vec!["a.weight".to_string(), "b.weight".to_string()];
        assert_eq!(
            Need::Tensor(1).detail(&names),
            Some(("tensor", "b.weight".to_string()))
        );
        assert_eq!(Need::Tensor(2).detail(&names), None);
        assert_eq!(
            Need::Export(Kind::Csv).detail(&names),
            Some(("export", "csv".to_string()))
        );
        assert_eq!(Need::Tab(Tab::Fit).detail(&names), None);
        assert!(Need::Tensor(0).shows_status() && Need::Export(Kind::Json).shows_status());
        assert!(!Need::Tab(Tab::Checks).shows_status());
    }

    #[test]
    fn only_one_local_gguf_alone_is_editable() {
        let llama = OpenedModel::from(parse_bytes(&tiny_llama()).unwrap());
        assert!(editable(&llama, true));
        assert!(!editable(&llama, false));
        assert!(!editable(&safetensors().into(), true));
    }

    #[test]
    fn carried_state_names_a_tab_a_tensor_and_an_export() {
        let llama = parse_bytes(&tiny_llama()).unwrap();
        let c = Carried::from_texts(Some("Fit".into()), Some("t".into()), Some("csv".into()));
        assert_eq!((c.tab, c.export), (Some(Tab::Fit), Some(Kind::Csv)));
        assert_eq!(c.tensor_index(&llama), Some(0));
        let odd = Carried::from_texts(Some("x".into()), Some("u".into()), Some("pdf".into()));
        assert_eq!((odd.tab, odd.export), (None, None));
        assert_eq!(odd.tensor_index(&llama), None);
        assert_eq!(Carried::default().tensor_index(&llama), None);
    }

    #[test]
    fn laps_time_each_stage_from_the_last_mark_or_restart() {
        let mut l = Laps::start(100.0);
        l.mark("summarize", 101.3);
        l.mark("summary-card", 101.5);
        // The time between tasks is no stage's.
        l.restart(200.0);
        l.mark("types-chart", 212.34);
        assert_eq!(l.text(), "summarize:1.3 summary-card:0.2 types-chart:12.3");
        assert_eq!(Laps::start(0.0).text(), "");
    }
}
