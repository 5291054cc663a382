//! The tokenizer card's drawn parts as [`Node`]s: the facts and special-token table, one row of
//! the token and merges lists, and a chat template's numbered lines. All file text goes in as
//! text (already escaped by the rows).

use super::{fact_rows, special_rows, template_lines, MergeRow, TokenRow};
use crate::summary::tokenizer::TokenizerInfo;
use crate::view::node::{self, Node};

/// The card's first parts: the facts (`dl.kv`), then, when the file names special tokens, their
/// heading and table (`data-testid="special-tokens"`, each row with `data-role` and `data-id`).
pub fn info_nodes(info: &TokenizerInfo) -> Vec<Node> {
    let mut facts = node::el("dl", "kv");
    for (k, v) in fact_rows(info) {
        facts.push(node::text("dt", "", &k));
        facts.push(node::text("dd", "", &v));
    }
    let mut out = vec![facts];
    let specials = special_rows(info);
    if specials.is_empty() {
        return out;
    }
    out.push(node::text("h3", "sub-head spaced", "Special tokens"));
    let head = node::el("tr", "").children(
        ["role", "id", "text"]
            .into_iter()
            .map(|h| node::text("th", "", h).attr("scope", "col")),
    );
    let rows = specials.into_iter().map(|r| {
        node::el("tr", "")
            .attr("data-role", r.role.as_str())
            .attr("data-id", r.id.to_string())
            .child(node::text("td", "", &r.role))
            .child(node::text("td", "num", &r.id_text))
            .child(node::text("td", "mono tok-text", &r.text))
    });
    out.push(
        node::el("table", "type-table special-table")
            .testid("special-tokens")
            .child(node::el("thead", "").child(head))
            .child(node::el("tbody", "").children(rows)),
    );
    out
}

impl TokenRow {
    /// The token list's row (`data-id`; the text and type also as tooltips, for cut cells).
    pub fn node(&self) -> Node {
        node::el("tr", "")
            .attr("data-id", self.id.to_string())
            .child(node::text("td", "col-id num", &self.id_text))
            .child(node::text("td", "col-text", &self.text).attr("title", self.text.as_str()))
            .child(node::text("td", "col-ttype", &self.kind).attr("title", self.kind.as_str()))
            .child(node::text("td", "col-score num", &self.score))
    }
}

impl MergeRow {
    /// The merges list's row (`data-rank`; the parts also as tooltips, for cut cells).
    pub fn node(&self) -> Node {
        let parts = [
            ("col-left", &self.left),
            ("col-right", &self.right),
            ("col-result", &self.result),
        ];
        node::el("tr", "")
            .attr("data-rank", self.rank.to_string())
            .child(node::text("td", "col-rank num", &self.rank_text))
            .children(
                parts.into_iter().map(|(class, text)| {
                    node::text("td", class, text).attr("title", text.as_str())
                }),
            )
    }
}

/// A chat template as the viewer's lines: a `div.tl` per line holding its number (`span.ln`)
/// and its text (`span.tx`), from [`template_lines`].
pub fn template_nodes(text: &str) -> Vec<Node> {
    template_lines(text)
        .into_iter()
        .map(|(n, line)| {
            node::el("div", "tl")
                .child(node::text("span", "ln", &n))
                .child(node::text("span", "tx", &line))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::parse_bytes;
    use crate::summary::tokenizer::tokenizer_info;
    use crate::view::tokenizer::TokenRows;

    #[test]
    fn the_card_parts_of_the_sample() {
        let m = parse_bytes(include_bytes!("../../../www/sample.gguf")).unwrap();
        let info = tokenizer_info(&m).expect("the sample has a tokenizer");
        let parts = info_nodes(&info);
        let facts = fact_rows(&info);
        assert_eq!(parts[0].class, "kv");
        assert_eq!(parts[0].children.len(), 2 * facts.len());
        assert_eq!(parts[0].children[0].text, Some(facts[0].0.clone()));
        assert_eq!(parts[0].children[1].text, Some(facts[0].1.clone()));
        let specials = special_rows(&info);
        if specials.is_empty() {
            assert_eq!(parts.len(), 1);
        } else {
            assert_eq!(parts[1].text.as_deref(), Some("Special tokens"));
            let rows = &parts[2].children[1].children;
            assert_eq!(parts[2].get_attr("data-testid"), Some("special-tokens"));
            assert_eq!(rows.len(), specials.len());
            assert_eq!(
                rows[0].get_attr("data-role"),
                Some(specials[0].role.as_str())
            );
            assert_eq!(rows[0].children[2].text, Some(specials[0].text.clone()));
        }

        let tokens = TokenRows::new(&m);
        let row = tokens.row(&m, 0).unwrap();
        let tr = row.node();
        assert_eq!(tr.get_attr("data-id"), Some(row.id.to_string().as_str()));
        let classes: Vec<_> = tr.children.iter().map(|c| c.class.as_str()).collect();
        assert_eq!(
            classes,
            ["col-id num", "col-text", "col-ttype", "col-score num"]
        );
        assert_eq!(tr.children[1].get_attr("title"), Some(row.text.as_str()));
    }

    #[test]
    fn merge_rows_and_template_lines() {
        let row = MergeRow {
            rank: 1234,
            rank_text: "1,234".into(),
            left: "a\\n".into(),
            right: "b".into(),
            result: "a\\nb".into(),
        };
        let tr = row.node();
        assert_eq!(tr.get_attr("data-rank"), Some("1234"));
        assert_eq!(tr.text_content(), "1,234a\\nba\\nb");
        assert_eq!(tr.children[3].class, "col-result");
        assert_eq!(tr.children[3].get_attr("title"), Some("a\\nb"));

        let lines = template_nodes("{{ a }}\n\t<b>");
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[1].class, "tl");
        assert_eq!(lines[1].children[0].text.as_deref(), Some("2"));
        assert_eq!(lines[1].children[1].text.as_deref(), Some("\t<b>"));
    }
}
