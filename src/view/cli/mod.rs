//! The command line's outputs as text, drawn from the view-models the page draws: the same
//! words, numbers and escaping as the page, laid out in columns for a terminal. Every function
//! returns the whole output as a `String` (each line ends with `\n`); the binary only writes it
//! and picks the exit status.
//!
//! - [`summary`]: the default output (the summary card's figures, quantisation, architecture,
//!   types, metadata, the tensor table with `--tensors`, checks).
//! - [`check`]: `--check`, one finding per line.
//! - [`tokenizer`]: `--tokenizer` (the tokenizer card's facts, special tokens, chat templates).
//! - [`memory`]: `--memory` (the memory card's rows, formula and notes).
//! - [`preview`]: `--tensor NAME` (the preview panel's window, statistics, histogram, values).
//! - [`recipe`]: `--recipe` (the quantisation recipe and the llama-quantize command).
//! - [`diff`]: `weightpeek diff A B` (the Compare card).
//! - [`listing`]: a Hub repository's models to pick from with `--file`.
//! - [`scan`]: `weightpeek scan MODEL` (every tensor's data: NaN, Inf, zeros, statistics).
//!
//! Text from a file (names, keys, values, type labels) goes through [`crate::text::escape`]
//! everywhere but in JSON, which stays JSON (its own escaping).

pub mod check;
pub mod diff;
pub mod edit;
pub mod fit;
pub mod listing;
pub mod memory;
pub mod preview;
pub mod recipe;
pub mod scan;
pub mod summary;
pub mod tokenizer;

use serde::Serialize;

use crate::open::OpenedModel;
use crate::summary::Summary;

/// Pretty JSON with a final newline: every `--json` output.
pub fn json<T: Serialize + ?Sized>(v: &T) -> String {
    // Serialising the crate's plain structs of strings, numbers and options cannot fail.
    let mut s = serde_json::to_string_pretty(v).unwrap_or_default();
    s.push('\n');
    s
}

/// `--query`: a case-insensitive substring match (an empty query matches everything).
pub fn matches(hay: &str, query: &str) -> bool {
    query.is_empty() || hay.to_lowercase().contains(&query.to_lowercase())
}

/// The summary the exports (`--json`, `--csv`, `--markdown`) print, its tensors filtered by
/// `--query` (name or type containing it). The text output takes the whole summary
/// ([`summary::text`]), since its figures say how many tensors were read.
pub fn summary_for(m: &OpenedModel, query: &str) -> Summary {
    let mut s = crate::summary::summarize(m);
    s.tensors
        .retain(|t| matches(&t.name, query) || matches(&t.dtype, query));
    s
}

/// Appends `  label  value` with the label padded to `width` characters.
fn field(out: &mut String, width: usize, label: &str, value: &str) {
    out.push_str(&format!("  {label:<width$} {value}\n"));
}

/// The widest of `labels` in characters, at least `min`.
fn label_width<'a>(labels: impl Iterator<Item = &'a str>, min: usize) -> usize {
    labels.map(|l| l.chars().count()).fold(min, usize::max)
}

/// `1 line`, `4 lines`.
fn plural(n: u64, one: &str, many: &str) -> String {
    format!(
        "{} {}",
        crate::text::thousands(n),
        if n == 1 { one } else { many }
    )
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Characters that must never reach a terminal raw.
    pub const HOSTILE: [char; 4] = ['\u{1b}', '\u{7}', '\u{202e}', '\r'];

    /// True when `s` holds none of [`HOSTILE`].
    pub fn clean(s: &str) -> bool {
        !s.contains(HOSTILE)
    }

    #[test]
    fn query_and_layout_helpers() {
        assert!(matches("blk.0.FFN_down", "ffn_DOWN"));
        assert!(matches("x", ""));
        assert!(!matches("x", "y"));
        let mut o = String::new();
        field(&mut o, 6, "ab", "v");
        assert_eq!(o, "  ab     v\n");
        assert_eq!(label_width(["a", "abcdef"].into_iter(), 3), 6);
        assert_eq!(label_width(["a"].into_iter(), 3), 3);
        assert_eq!(plural(1, "line", "lines"), "1 line");
        assert_eq!(plural(1234, "line", "lines"), "1,234 lines");
        assert_eq!(json(&[1, 2]), "[\n  1,\n  2\n]\n");
    }
}
