//! The quantisation recipe as the page and the CLI show it: one line per pattern
//! (`blk.#.ffn_down.weight ×18 · Q6_K in layers 0–1, 3 · Q4_K elsewhere`), the
//! `llama-quantize` command that reproduces the types, and the provenance keys. File-derived
//! text is escaped ([`crate::text::escape`]).

use crate::summary::recipe::{PatternRow, Recipe};
use crate::text::{escape, runs, thousands};
use crate::view::node::{self, Node};

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

/// The card (`data-testid="recipe"`): the title line, the table of patterns (each row with
/// `data-pattern`, mixed ones highlighted) in a keyboard-scrollable box, the command
/// (`data-testid="recipe-command"`), its note, and the provenance (`data-testid="provenance"`).
pub fn card(r: &Recipe) -> Node {
    let v = view(r);
    let mut card = node::card(TITLE, "recipe").testid("recipe");
    let body = card.body();
    body.push(node::text("p", "muted", &v.title));

    let head = node::el("tr", "").children(
        ["pattern", "tensors", "types"]
            .into_iter()
            .map(|h| node::text("th", "", h)),
    );
    let rows = v.lines.iter().map(|l| {
        node::el("tr", if l.mixed { "mixed" } else { "" })
            .attr("data-pattern", l.pattern.as_str())
            .child(node::text("td", "mono", &l.pattern))
            .child(node::text(
                "td",
                "num",
                if l.count.is_empty() { "1" } else { &l.count },
            ))
            .child(node::text("td", "mono recipe-types", &l.types))
    });
    // Scrolls when the recipe is long: reachable by keyboard (axe scrollable-region-focusable).
    body.push(node::scrolling_table(
        "table-scroll recipe-scroll",
        "quantisation recipe table",
        "type-table recipe-table",
        head,
        rows,
    ));

    body.push(node::text(
        "h3",
        "sub-head spaced",
        "Reproduce with llama-quantize",
    ));
    body.push(
        node::text(
            "pre",
            "template recipe-command",
            &v.command.join(" \\\n    "),
        )
        .testid("recipe-command"),
    );
    if let Some(n) = &v.note {
        body.push(node::text("p", "note", n));
    }

    body.push(node::text("h3", "sub-head spaced", "Provenance"));
    if v.provenance.is_empty() {
        body.push(node::text("p", "muted", NO_PROVENANCE));
    } else {
        let mut dl = node::el("dl", "facts recipe-provenance").testid("provenance");
        for (k, val) in &v.provenance {
            dl.push(node::text("dt", "mono", k));
            dl.push(node::text("dd", "mono", val));
        }
        body.push(dl);
    }
    card
}

/// The card of `model`'s recipe ([`card`]), or `None` when it has none (not a GGUF model, or
/// one without tensors).
pub fn model_card(model: &crate::format::Model) -> Option<Node> {
    crate::summary::recipe::recipe(model).map(|r| card(&r))
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

    #[test]
    fn the_card_of_the_sample() {
        let m = crate::source::parse_bytes(include_bytes!("../../www/sample.gguf")).unwrap();
        let r = crate::summary::recipe::recipe(&m).expect("the sample has a recipe");
        let v = view(&r);
        let c = card(&r);
        assert_eq!(model_card(&m), Some(c.clone()));
        assert_eq!(c.class, "card recipe");
        assert_eq!(c.get_attr("data-testid"), Some("recipe"));
        assert_eq!(c.children[0].text_content(), TITLE);
        let body = &c.children[1];
        assert_eq!(body.children[0].text, Some(v.title.clone()));
        let scroll = &body.children[1];
        assert_eq!(scroll.get_attr("tabindex"), Some("0"));
        let rows = &c.find_class("recipe-table")[0].children[1].children;
        assert_eq!(rows.len(), v.lines.len());
        assert_eq!(
            rows[0].get_attr("data-pattern"),
            Some(v.lines[0].pattern.as_str())
        );
        assert_eq!(rows[0].children[2].text, Some(v.lines[0].types.clone()));
        let cmd = c.find_testid("recipe-command").unwrap();
        assert_eq!(cmd.tag, "pre");
        assert!(cmd.text.as_deref().unwrap().starts_with("llama-quantize"));
        assert!(cmd.text.as_deref().unwrap().contains(" \\\n    "));
        let heads: Vec<_> = c
            .find_class("sub-head")
            .iter()
            .map(|h| h.text_content())
            .collect();
        assert_eq!(heads, ["Reproduce with llama-quantize", "Provenance"]);
        match c.find_testid("provenance") {
            Some(dl) => assert_eq!(dl.children.len(), 2 * v.provenance.len()),
            None => assert_eq!(
                body.children.last().unwrap().text.as_deref(),
                Some(NO_PROVENANCE)
            ),
        }
    }
}
