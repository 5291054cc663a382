//! The tabs of a model's view, the page's and the element's (`<weightpeek-view tab="…">`):
//! which exist for a model, their names (the `tab` attribute, the page's `?tab=` and `#tab=`)
//! and labels, keyboard movement between them (WAI-ARIA tabs pattern: Left/Right wrap around,
//! Home/End go to the ends), and the bar, buttons and panels as nodes (the tab an address asks
//! for, and its place there, is [`crate::view::address`]).

use crate::view::node::{el, text, Node};

/// What the lean module's status line says while the full module loads, and a tab's stand-in
/// meanwhile ([`Hint::Loading`]).
pub const LOADING_REST: &str = "Loading the rest of weightpeek…";

/// One tab of a model's view, in display order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tab {
    /// The summary card and the architecture card.
    Summary,
    /// The metadata table.
    Metadata,
    /// The tensor table.
    Tensors,
    /// The dtype histogram and the per-layer quantisation map.
    Histogram,
    /// A tensor's values.
    Preview,
    /// Validation findings.
    Checks,
    /// Tokenizer and chat template (GGUF with a tokenizer).
    Tokenizer,
    /// The memory estimate (GGUF).
    Memory,
    /// Will it run here: the placement plan on the person's GPUs and RAM (GGUF).
    Fit,
    /// The header editor (the page only, for one local GGUF file read to the end).
    Edit,
}

impl Tab {
    /// Every tab, in display order.
    pub const ALL: [Tab; 10] = [
        Tab::Summary,
        Tab::Metadata,
        Tab::Tensors,
        Tab::Histogram,
        Tab::Preview,
        Tab::Checks,
        Tab::Tokenizer,
        Tab::Memory,
        Tab::Fit,
        Tab::Edit,
    ];

    /// The value of the `tab` attribute that selects it (`summary`, `tensors`, …).
    pub fn name(self) -> &'static str {
        match self {
            Tab::Summary => "summary",
            Tab::Metadata => "metadata",
            Tab::Tensors => "tensors",
            Tab::Histogram => "histogram",
            Tab::Preview => "preview",
            Tab::Checks => "checks",
            Tab::Tokenizer => "tokenizer",
            Tab::Memory => "memory",
            Tab::Fit => "fit",
            Tab::Edit => "edit",
        }
    }

    /// The text on the tab.
    pub fn label(self) -> &'static str {
        match self {
            Tab::Summary => "Summary",
            Tab::Metadata => "Metadata",
            Tab::Tensors => "Tensors",
            Tab::Histogram => "Types",
            Tab::Preview => "Preview",
            Tab::Checks => "Checks",
            Tab::Tokenizer => "Tokenizer",
            Tab::Memory => "Memory",
            Tab::Fit => "Fit",
            Tab::Edit => "Edit",
        }
    }

    /// The tab named `name` (case and surrounding blanks ignored); `None` for anything else.
    pub fn parse(name: &str) -> Option<Tab> {
        let n = name.trim().to_ascii_lowercase();
        Tab::ALL.into_iter().find(|t| t.name() == n)
    }
}

/// What decides which tabs a model's view has.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Has {
    /// The model is GGUF (memory estimate and Fit).
    pub gguf: bool,
    /// Its header holds a tokenizer.
    pub tokenizer: bool,
    /// Its header can be edited here (the page, one local GGUF file read to the end).
    pub editor: bool,
}

/// The tabs shown for a model: all but the tokenizer (only when the file has one), memory and
/// fit (GGUF only) and the editor (only where it can edit).
pub fn available(has: Has) -> Vec<Tab> {
    Tab::ALL
        .into_iter()
        .filter(|t| match t {
            Tab::Tokenizer => has.tokenizer,
            Tab::Memory | Tab::Fit => has.gguf,
            Tab::Edit => has.editor,
            _ => true,
        })
        .collect()
}

/// The tab a key press moves to from `current` among `tabs` (`ArrowLeft`/`ArrowRight` wrap
/// around, `Home`/`End`); `None` for other keys or a `current` not in `tabs`.
pub fn moved(tabs: &[Tab], current: Tab, key: &str) -> Option<Tab> {
    let i = tabs.iter().position(|t| *t == current)?;
    let n = tabs.len();
    let j = match key {
        "ArrowRight" => (i + 1) % n,
        "ArrowLeft" => (i + n - 1) % n,
        "Home" => 0,
        "End" => n - 1,
        _ => return None,
    };
    Some(tabs[j])
}

/// The tab to show first: the one asked for if the model has it, else `Summary`.
pub fn initial(tabs: &[Tab], asked: Option<&str>) -> Tab {
    asked
        .and_then(Tab::parse)
        .filter(|t| tabs.contains(t))
        .unwrap_or(Tab::Summary)
}

/// The tabs whose cards only the full module builds: the preview and its dequantisers, the
/// doctor's checks (and the scan), the tokenizer view, the memory estimate, the fit planner.
pub const FULL_TABS: [Tab; 5] = [
    Tab::Preview,
    Tab::Checks,
    Tab::Tokenizer,
    Tab::Memory,
    Tab::Fit,
];

/// The tab bar (`div.tab-bar`, `role="tablist"`) with the [`button`] of each of `tabs`, in
/// order.
pub fn bar(tabs: &[Tab]) -> Node {
    el("div", "tab-bar")
        .attr("role", "tablist")
        .attr("aria-label", "Model file views")
        .children(tabs.iter().map(|t| button(*t)))
}

/// The button of `tab` in the bar (`button.tab`, `role="tab"`, `id="wp-tab-NAME"`, controlling
/// its panel, `data-tab="NAME"`).
pub fn button(tab: Tab) -> Node {
    text("button", "tab", tab.label())
        .attr("type", "button")
        .attr("role", "tab")
        .attr("id", format!("wp-tab-{}", tab.name()))
        .attr("aria-controls", format!("wp-panel-{}", tab.name()))
        .attr("data-tab", tab.name())
}

/// The panel of `tab` (`div.tab-panel.report`, `role="tabpanel"`, `id="wp-panel-NAME"`,
/// labelled by its button), focusable by script (after opening a tensor from the table, focus
/// moves to the Preview panel).
pub fn panel(tab: Tab) -> Node {
    el("div", "tab-panel report")
        .attr("role", "tabpanel")
        .attr("id", format!("wp-panel-{}", tab.name()))
        .attr("aria-labelledby", format!("wp-tab-{}", tab.name()))
        .attr("data-tab", tab.name())
        .attr("tabindex", "-1")
}

/// A button's attributes when its tab is shown (`on`) or not: `aria-selected` and the roving
/// `tabindex` (only the shown tab's button is a Tab stop).
pub fn button_state(on: bool) -> [(&'static str, &'static str); 2] {
    if on {
        [("aria-selected", "true"), ("tabindex", "0")]
    } else {
        [("aria-selected", "false"), ("tabindex", "-1")]
    }
}

/// What a tab says in place of its cards (`p.tab-hint`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hint {
    /// The lean module's stand-in while the full one loads (`data-testid="lean-placeholder"`).
    Loading,
    /// The Preview tab before a tensor is picked.
    PickTensor,
    /// The Preview tab of a source whose values cannot be read.
    NoValues,
}

/// The hint's paragraph.
pub fn hint(h: Hint) -> Node {
    let text = |t: &str| text("p", "muted tab-hint", t);
    match h {
        Hint::Loading => text(LOADING_REST).testid("lean-placeholder"),
        Hint::PickTensor => text(
            "Pick a tensor in the Tensors tab (click its row, or press Enter on it) to see its values.",
        ),
        Hint::NoValues => text("Tensor values cannot be read from this source."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_parse_loosely() {
        for t in Tab::ALL {
            assert_eq!(Tab::parse(t.name()), Some(t));
        }
        assert_eq!(Tab::parse(" Tensors "), Some(Tab::Tensors));
        assert_eq!(Tab::parse("HISTOGRAM"), Some(Tab::Histogram));
        assert_eq!(Tab::parse("weights"), None);
        assert_eq!(Tab::parse(""), None);
    }

    #[test]
    fn safetensors_have_no_tokenizer_memory_fit_or_edit_tab() {
        let st = available(Has::default());
        assert_eq!(st.len(), 6);
        assert!(!st.contains(&Tab::Tokenizer) && !st.contains(&Tab::Memory));
        assert!(!st.contains(&Tab::Fit) && !st.contains(&Tab::Edit));
        assert_eq!(Tab::parse("Fit"), Some(Tab::Fit));
        let all = Has {
            gguf: true,
            tokenizer: true,
            editor: true,
        };
        assert_eq!(available(all), Tab::ALL.to_vec());
        let element = Has {
            editor: false,
            ..all
        };
        assert_eq!(available(element).last(), Some(&Tab::Fit));
        let no_tokenizer = Has {
            tokenizer: false,
            ..all
        };
        assert!(!available(no_tokenizer).contains(&Tab::Tokenizer));
    }

    #[test]
    fn keys_wrap_and_jump() {
        let tabs = available(Has::default());
        assert_eq!(moved(&tabs, Tab::Summary, "ArrowLeft"), Some(Tab::Checks));
        assert_eq!(moved(&tabs, Tab::Checks, "ArrowRight"), Some(Tab::Summary));
        assert_eq!(
            moved(&tabs, Tab::Metadata, "ArrowRight"),
            Some(Tab::Tensors)
        );
        assert_eq!(moved(&tabs, Tab::Tensors, "Home"), Some(Tab::Summary));
        assert_eq!(moved(&tabs, Tab::Tensors, "End"), Some(Tab::Checks));
        assert_eq!(moved(&tabs, Tab::Tensors, "Enter"), None);
        assert_eq!(moved(&tabs, Tab::Memory, "ArrowRight"), None);
    }

    #[test]
    fn initial_falls_back_to_summary() {
        let st = available(Has::default());
        assert_eq!(initial(&st, Some("tensors")), Tab::Tensors);
        assert_eq!(initial(&st, Some("memory")), Tab::Summary);
        assert_eq!(initial(&st, Some("nonsense")), Tab::Summary);
        assert_eq!(initial(&st, None), Tab::Summary);
    }

    #[test]
    fn buttons_control_their_panels_and_only_the_shown_one_is_a_tab_stop() {
        let tabs = [Tab::Summary, Tab::Histogram];
        let b = bar(&tabs);
        assert_eq!(b.get_attr("role"), Some("tablist"));
        assert_eq!(b.children, [button(Tab::Summary), button(Tab::Histogram)]);
        let b = button(Tab::Histogram);
        assert_eq!((b.tag, b.class.as_str()), ("button", "tab"));
        assert_eq!(b.text.as_deref(), Some("Types"));
        assert_eq!(b.get_attr("id"), Some("wp-tab-histogram"));
        assert_eq!(b.get_attr("aria-controls"), Some("wp-panel-histogram"));
        let p = panel(Tab::Histogram);
        assert_eq!(p.get_attr("id"), Some("wp-panel-histogram"));
        assert_eq!(p.get_attr("aria-labelledby"), Some("wp-tab-histogram"));
        assert_eq!(
            (p.get_attr("data-tab"), p.get_attr("tabindex")),
            (Some("histogram"), Some("-1"))
        );
        assert!(p.has_class("tab-panel") && p.has_class("report"));
        assert_eq!(button_state(true)[1], ("tabindex", "0"));
        assert_eq!(button_state(false)[0], ("aria-selected", "false"));
    }

    #[test]
    fn hints_are_muted_paragraphs() {
        let l = hint(Hint::Loading);
        assert_eq!((l.tag, l.class.as_str()), ("p", "muted tab-hint"));
        assert_eq!(l.get_attr("data-testid"), Some("lean-placeholder"));
        assert_eq!(l.text.as_deref(), Some("Loading the rest of weightpeek…"));
        assert!(hint(Hint::PickTensor)
            .text_content()
            .starts_with("Pick a tensor"));
        assert!(hint(Hint::NoValues).attrs.is_empty());
    }
}
