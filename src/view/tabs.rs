//! The tabs of the embedded view (`<weightpeek-view tab="…">`): which exist for a model, their
//! attribute names and labels, and keyboard movement between them (WAI-ARIA tabs pattern:
//! Left/Right wrap around, Home/End go to the ends).

/// One tab of the embedded view, in display order.
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
}

impl Tab {
    /// Every tab, in display order.
    pub const ALL: [Tab; 9] = [
        Tab::Summary,
        Tab::Metadata,
        Tab::Tensors,
        Tab::Histogram,
        Tab::Preview,
        Tab::Checks,
        Tab::Tokenizer,
        Tab::Memory,
        Tab::Fit,
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
        }
    }

    /// The tab named `name` (case and surrounding blanks ignored); `None` for anything else.
    pub fn parse(name: &str) -> Option<Tab> {
        let n = name.trim().to_ascii_lowercase();
        Tab::ALL.into_iter().find(|t| t.name() == n)
    }
}

/// The tabs shown for a model: all but the tokenizer (only when the file has one), memory and
/// fit (GGUF only).
pub fn available(is_gguf: bool, has_tokenizer: bool) -> Vec<Tab> {
    Tab::ALL
        .into_iter()
        .filter(|t| match t {
            Tab::Tokenizer => has_tokenizer,
            Tab::Memory | Tab::Fit => is_gguf,
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
    fn safetensors_have_no_tokenizer_memory_or_fit_tab() {
        let st = available(false, false);
        assert_eq!(st.len(), 6);
        assert!(!st.contains(&Tab::Tokenizer) && !st.contains(&Tab::Memory));
        assert!(!st.contains(&Tab::Fit));
        assert_eq!(Tab::parse("Fit"), Some(Tab::Fit));
        let gguf = available(true, true);
        assert_eq!(gguf, Tab::ALL.to_vec());
        assert!(!available(true, false).contains(&Tab::Tokenizer));
    }

    #[test]
    fn keys_wrap_and_jump() {
        let tabs = available(false, false);
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
        let st = available(false, false);
        assert_eq!(initial(&st, Some("tensors")), Tab::Tensors);
        assert_eq!(initial(&st, Some("memory")), Tab::Summary);
        assert_eq!(initial(&st, Some("nonsense")), Tab::Summary);
        assert_eq!(initial(&st, None), Tab::Summary);
    }
}
