//! `--recipe`: the quantisation recipe as text (the Recipe card's lines, the `llama-quantize`
//! command, the provenance keys).

use crate::summary::recipe::Recipe;
use crate::view::recipe::{view, NO_PROVENANCE, TITLE};

/// Printed for a file without a recipe (not GGUF, or no tensors).
pub const NO_RECIPE: &str = "no quantisation recipe: the file is not a GGUF file with tensors\n";

/// The whole `--recipe` output.
pub fn text(r: &Recipe) -> String {
    let v = view(r);
    let mut out = format!("{TITLE}: {}\n", v.title);
    let w = v
        .lines
        .iter()
        .map(|l| l.pattern.chars().count())
        .max()
        .unwrap_or(0);
    let c = v
        .lines
        .iter()
        .map(|l| l.count.chars().count())
        .max()
        .unwrap_or(0);
    for l in &v.lines {
        out.push_str(&format!(
            "  {}{}  {}{}  {}\n",
            l.pattern,
            " ".repeat(w - l.pattern.chars().count()),
            l.count,
            " ".repeat(c - l.count.chars().count()),
            l.types
        ));
    }
    out.push_str("\nreproduce with:\n");
    out.push_str(&v.command.join(" \\\n    "));
    out.push('\n');
    if let Some(n) = &v.note {
        out.push_str(&format!("note: {n}\n"));
    }
    out.push_str("\nprovenance:\n");
    if v.provenance.is_empty() {
        out.push_str(&format!("  {NO_PROVENANCE}\n"));
    }
    let k = v
        .provenance
        .iter()
        .map(|(k, _)| k.chars().count())
        .max()
        .unwrap_or(0);
    for (key, value) in &v.provenance {
        out.push_str(&format!(
            "  {key}{}  {value}\n",
            " ".repeat(k - key.chars().count())
        ));
    }
    out
}
