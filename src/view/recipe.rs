//! The quantisation recipe as the page and the CLI show it: one line per pattern
//! (`blk.#.ffn_down.weight ×18 · Q6_K in layers 0–1, 3 · Q4_K elsewhere`), the
//! `llama-quantize` command that reproduces the types, and the provenance keys. File-derived
//! text is escaped ([`crate::text::escape`]).

use crate::summary::recipe::{PatternRow, Recipe};
use crate::text::{escape, runs, thousands};

/// One line of the recipe table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecipeLine {
    /// The pattern (`blk.#.attn_v.weight`, or a tensor's name), escaped.
    pub pattern: String,
    /// `×18` for a layer pattern, empty for one tensor.
    pub count: String,
    /// The types: `Q4_K`, or `Q6_K in layers 0–1, 3 · Q4_K elsewhere`.
    pub types: String,
    /// Whether the pattern mixes types (drawn highlighted).
    pub mixed: bool,
}

/// What the card and `--recipe` draw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecipeView {
    /// `15 patterns, 7 types rules for 236 tensors`.
    pub title: String,
    /// One line per pattern.
    pub lines: Vec<RecipeLine>,
    /// The command's words: `llama-quantize`, each `--tensor-type '…'`, then
    /// `IN.gguf OUT.gguf BASE`, escaped.
    pub command: Vec<String>,
    /// Said when llama-quantize cannot take every rule (a name with capitals).
    pub note: Option<String>,
    /// Provenance keys and values, escaped.
    pub provenance: Vec<(String, String)>,
}

/// The card's heading.
pub const TITLE: &str = "Quantisation recipe";

/// Shown when a file has no provenance key at all.
pub const NO_PROVENANCE: &str =
    "no quantisation or conversion keys (general.quantization_version, quantize.imatrix.*, general.source.*)";

/// The types of one pattern as text: `Q4_K`, or `Q6_K in layers 0–1, 3 · Q4_K elsewhere`
/// (escaped).
pub fn types_text(row: &PatternRow) -> String {
    match row.rules.as_slice() {
        [one] => escape(&one.dtype),
        [most, rest @ ..] => {
            let mut parts: Vec<String> = rest
                .iter()
                .map(|r| match &r.layers {
                    Some(l) => format!(
                        "{} in layer{} {}",
                        escape(&r.dtype),
                        if l.len() == 1 { "" } else { "s" },
                        runs(l)
                    ),
                    None => format!("{} ×{}", escape(&r.dtype), r.tensors),
                })
                .collect();
            parts.push(format!("{} elsewhere", escape(&most.dtype)));
            parts.join(" · ")
        }
        [] => String::new(),
    }
}

/// Builds the view of a recipe.
pub fn view(r: &Recipe) -> RecipeView {
    let tensors: u64 = r.rows.iter().map(|row| row.tensors).sum();
    let rules: usize = r.rows.iter().map(|row| row.rules.len()).sum();
    let lines = r
        .rows
        .iter()
        .map(|row| RecipeLine {
            pattern: escape(&row.pattern),
            count: if row.pattern.contains(".#.") {
                format!("×{}", thousands(row.tensors))
            } else {
                String::new()
            },
            types: types_text(row),
            mixed: row.rules.len() > 1,
        })
        .collect();
    let mut command = vec!["llama-quantize".to_string()];
    command.extend(r.arguments.iter().map(|a| escape(a)));
    command.push(format!("IN.gguf OUT.gguf {}", escape(&r.base_type)));
    RecipeView {
        title: format!(
            "{} patterns, {} rules for {} tensors",
            thousands(r.rows.len() as u64),
            thousands(rules as u64),
            thousands(tensors)
        ),
        lines,
        command,
        note: (!r.complete).then(|| {
            "some tensor names have capitals, which llama-quantize's --tensor-type lower-cases: those rules will not match".to_string()
        }),
        provenance: r
            .provenance
            .iter()
            .map(|p| (escape(&p.key), escape(&p.value)))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::summary::recipe::Rule;

    fn rule(dtype: &str, layers: &[u64]) -> Rule {
        Rule {
            dtype: dtype.into(),
            layers: Some(layers.to_vec()),
            all_layers: false,
            tensors: layers.len() as u64,
            regex: String::new(),
        }
    }

    #[test]
    fn mixed_rows_name_the_minority_layers() {
        let row = PatternRow {
            pattern: "blk.#.ffn_down.weight".into(),
            tensors: 6,
            rules: vec![rule("Q4_K", &[2, 4, 5]), rule("Q6_K", &[0, 1, 3])],
        };
        assert_eq!(types_text(&row), "Q6_K in layers 0–1, 3 · Q4_K elsewhere");
    }
}
