//! The tokenizer card's drawn parts as [`Node`]s: the facts and special-token table, one row of
//! the token and merges lists, and a chat template's numbered lines. All file text goes in as
//! text (already escaped by the rows).

use super::{
    fact_rows, special_rows, template_label, template_lines, MergeRow, MergeRows, TokenRow,
    TokenRows, MERGE_SEARCH_HINT, SEARCH_HINT,
};
use std::rc::Rc;

use crate::format::Model;
use crate::open::OpenedModel;
use crate::summary::tokenizer::TokenizerInfo;
use crate::view::node::{self, Node};
use crate::view::viewport::Viewport;
use crate::view::virtual_body::{self, Listing};

/// What one searchable list of the card (the tokens, the merges) says and how it is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListTexts {
    /// Its heading.
    pub head: &'static str,
    /// The search box's placeholder and tooltip.
    pub hint: &'static str,
    /// The search box's accessible label.
    pub label: &'static str,
    /// The search box's `data-testid`.
    pub search_id: &'static str,
    /// The table's `data-testid`.
    pub table_id: &'static str,
    /// The scroll container's class (after `table-scroll`).
    pub class: &'static str,
    /// The accessible name of the (focusable) scroll container.
    pub scroll_label: &'static str,
    /// What an empty search says.
    pub empty: &'static str,
    /// Columns: (header, class of the cells; its first word is the `<col>` class).
    pub columns: &'static [(&'static str, &'static str)],
}

/// The token list.
pub const TOKEN_LIST: ListTexts = ListTexts {
    head: "Tokens",
    hint: SEARCH_HINT,
    label: "search tokens by text or #id",
    search_id: "token-search",
    table_id: "token-list",
    class: "token-scroll",
    scroll_label: "token list",
    empty: "no matching tokens",
    columns: &[
        ("id", "col-id num"),
        ("text", "col-text"),
        ("type", "col-ttype"),
        ("score", "col-score num"),
    ],
};

/// The merges list.
pub const MERGE_LIST: ListTexts = ListTexts {
    head: "Merges",
    hint: MERGE_SEARCH_HINT,
    label: "search merges by text or #rank",
    search_id: "merge-search",
    table_id: "merge-list",
    class: "merge-scroll",
    scroll_label: "merges list",
    empty: "no matching merges",
    columns: &[
        ("rank", "col-rank num"),
        ("left", "col-left"),
        ("right", "col-right"),
        ("result", "col-result"),
    ],
};

/// A list's head (`div.sub-row`: the heading, an empty `span.count`, the search box) and its
/// virtualised table's frame (an empty body, rows drawn by `TokenRow::node` /
/// `MergeRow::node` for the rows in view).
pub fn list_nodes(t: &ListTexts) -> [Node; 2] {
    let head = node::el("div", "sub-row")
        .child(node::text("h3", "sub-head", t.head))
        .child(node::el("span", "count muted"))
        .child(
            node::search_input(t.hint, t.label)
                .attr("title", t.hint)
                .testid(t.search_id),
        );
    let cols: Vec<&str> = t
        .columns
        .iter()
        .map(|(_, c)| c.split(' ').next().unwrap_or(""))
        .collect();
    let ths = t
        .columns
        .iter()
        .map(|(h, c)| node::text("th", c, h).attr("scope", "col"));
    let frame = virtual_body::frame(
        t.class,
        t.scroll_label,
        "tensor-table token-table",
        t.table_id,
        &cols,
        ths,
    );
    [head, frame]
}

/// The chat template bar and viewer for `templates` (non-empty, in [`super::templates_in_order`]):
/// `div.sub-row` with the heading, the variant menu (`data-testid="chat-template-select"`,
/// option values the indexes; hidden for one template, whose label is then shown as text), the
/// Copy button (`chat-template-copy`) and the polite copy status (`span.copy-status`); then the
/// empty, focusable viewer `div.template` (`chat-template`) the page draws a [`template_view`]
/// onto.
pub fn template_parts(templates: &[(String, String)]) -> [Node; 2] {
    let options = templates.iter().enumerate().map(|(i, (name, text))| {
        node::text("option", "", &template_label(name, text)).attr("value", i.to_string())
    });
    let mut select = node::el("select", "select")
        .attr("aria-label", "chat template variant")
        .testid("chat-template-select");
    if templates.len() < 2 {
        select = select.attr("hidden", "");
    }
    let mut bar = node::el("div", "sub-row")
        .child(node::text("h3", "sub-head", "Chat template"))
        .child(select.children(options));
    if let [(name, text)] = templates {
        bar.push(node::text(
            "span",
            "muted count",
            &template_label(name, text),
        ));
    }
    let bar = bar
        .child(
            node::text("button", "button small", "Copy")
                .attr("type", "button")
                .testid("chat-template-copy")
                .attr("title", "copy the template text to the clipboard"),
        )
        .child(node::el("span", "muted copy-status").attr("aria-live", "polite"));
    let view = node::el("div", "template")
        .testid("chat-template")
        .attr("tabindex", "0");
    [bar, view]
}

/// The card (`section.card.tokenizer`, `data-testid="tokenizer"`) with its first parts
/// ([`info_nodes`]) in its body, where the page then appends the lists and the chat templates.
pub fn card(info: &TokenizerInfo) -> Node {
    let mut c = node::card("Tokenizer", "tokenizer").testid("tokenizer");
    c.body().children.extend(info_nodes(info));
    c
}

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

/// A searchable list of the card (the token list, the merges list) as its virtualised table
/// draws it: its texts, the rows listed now, their count line, the search, and one row.
pub trait SearchList {
    /// Its texts and columns.
    const TEXTS: ListTexts;
    /// Rows listed now (those matching the search).
    fn listed(&self) -> usize;
    /// The count line over the list (`262,144 tokens`, `3 of 262,144 tokens`).
    fn count_line(&self) -> String;
    /// Lists the rows matching `q` in model `m`.
    fn search(&mut self, m: &Model, q: &str);
    /// The row at list position `pos`, decoded now (the body adds its place and tabindex).
    fn row_node(&self, m: &Model, pos: usize) -> Option<Node>;
}

macro_rules! search_list {
    ($rows:ident, $texts:ident) => {
        impl SearchList for $rows {
            const TEXTS: ListTexts = $texts;
            fn listed(&self) -> usize {
                self.len()
            }
            fn count_line(&self) -> String {
                self.count_text()
            }
            fn search(&mut self, m: &Model, q: &str) {
                self.set_query(m, q);
            }
            fn row_node(&self, m: &Model, pos: usize) -> Option<Node> {
                self.row(m, pos).map(|r| r.node())
            }
        }
    };
}
search_list!(TokenRows, TOKEN_LIST);
search_list!(MergeRows, MERGE_LIST);

/// A list of the card with the model it lists from, as its virtualised table draws it
/// ([`Listing`]: timed, at least four rows tall).
pub struct ModelList<R> {
    /// The model whose tokenizer keys are listed.
    pub model: Rc<OpenedModel>,
    /// The rows listed.
    pub rows: R,
}

impl<R: SearchList> Listing for ModelList<R> {
    const TIMED: bool = true;

    fn listed(&self) -> usize {
        self.rows.listed()
    }

    fn row(&self, pos: usize) -> Option<Node> {
        self.rows.row_node(&self.model, pos)
    }

    fn count_line(&self) -> String {
        self.rows.count_line()
    }

    fn empty(&self) -> &str {
        R::TEXTS.empty
    }

    /// Every search draws the list again.
    fn search(&mut self, text: &str) -> bool {
        self.rows.search(&self.model, text);
        true
    }

    fn min_view(&self, _window_h: impl FnOnce() -> f64) -> f64 {
        Viewport::TABLE.row_height * 4.0
    }
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

/// The chat template `(name, text)` in the viewer (`div.template`): its `data-name` and
/// `data-lines` (the line count), and a `div.tl` per line holding its number (`span.ln`) and
/// its text (`span.tx`), from [`template_lines`].
pub fn template_view((name, text): &(String, String)) -> Node {
    let lines: Vec<Node> = template_lines(text)
        .into_iter()
        .map(|(n, line)| {
            node::el("div", "tl")
                .child(node::text("span", "ln", &n))
                .child(node::text("span", "tx", &line))
        })
        .collect();
    node::el("div", "template")
        .attr("data-name", name.as_str())
        .attr("data-lines", lines.len().to_string())
        .children(lines)
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
        let c = card(&info);
        assert_eq!(
            (c.class.as_str(), c.get_attr("data-testid")),
            ("card tokenizer", Some("tokenizer"))
        );
        assert_eq!(c.find_class("card-body")[0].children, parts);
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

        let mut tokens = TokenRows::new(&m);
        let row = tokens.row(&m, 0).unwrap();
        let tr = row.node();
        // The list as the card draws it: the same rows, texts and search.
        assert_eq!(
            (tokens.listed(), tokens.count_line()),
            (tokens.len(), tokens.count_text())
        );
        assert_eq!(tokens.row_node(&m, 0), Some(tr.clone()));
        assert_eq!(<TokenRows as SearchList>::TEXTS, TOKEN_LIST);
        assert_eq!(<MergeRows as SearchList>::TEXTS, MERGE_LIST);
        tokens.search(&m, &row.text);
        assert!(tokens.listed() >= 1 && (tokens.listed() as u64) < tokens.vocab());
        assert_eq!(tokens.row(&m, 0).unwrap().text, row.text);
        assert_eq!(tr.get_attr("data-id"), Some(row.id.to_string().as_str()));
        let classes: Vec<_> = tr.children.iter().map(|c| c.class.as_str()).collect();
        assert_eq!(
            classes,
            ["col-id num", "col-text", "col-ttype", "col-score num"]
        );
        assert_eq!(tr.children[1].get_attr("title"), Some(row.text.as_str()));
    }

    #[test]
    fn a_model_list_draws_and_searches_the_rows_of_its_model() {
        let b = include_bytes!("../../../www/sample.gguf");
        let model = Rc::new(OpenedModel::from(parse_bytes(b).unwrap()));
        let rows = TokenRows::new(&model);
        let (first, all) = (rows.row(&model, 0).unwrap(), rows.len());
        let mut list = ModelList { model, rows };
        assert_eq!(list.listed(), all);
        assert_eq!(list.count_line(), list.rows.count_text());
        assert_eq!(list.row(0), Some(first.node()));
        assert_eq!(list.empty(), "no matching tokens");
        assert_eq!(list.min_view(|| 640.0), Viewport::TABLE.row_height * 4.0);
        assert!(list.search(&format!("#{}", first.id)));
        assert_eq!(list.listed(), 1);
        assert!(list.search("no such token text, surely"));
        assert_eq!(list.listed(), 0);
    }

    #[test]
    fn list_frames_and_the_template_bar() {
        let [head, frame] = list_nodes(&MERGE_LIST);
        assert_eq!(head.children[0].text.as_deref(), Some("Merges"));
        let search = &head.children[2];
        assert_eq!(search.get_attr("data-testid"), Some("merge-search"));
        assert_eq!(search.get_attr("placeholder"), Some(MERGE_SEARCH_HINT));
        assert_eq!(search.get_attr("title"), Some(MERGE_SEARCH_HINT));
        assert_eq!(frame.class, "table-scroll merge-scroll");
        let table = frame.find_testid("merge-list").unwrap();
        assert_eq!(table.class, "tensor-table token-table");
        assert_eq!(table.children[0].children[0].class, "col-rank");
        let th = &table.children[1].children[0].children[0];
        assert_eq!(
            (th.class.as_str(), th.text.as_deref()),
            ("col-rank num", Some("rank"))
        );

        let one = [("default".to_string(), "a\nb".to_string())];
        let [bar, view] = template_parts(&one);
        let select = bar.find_testid("chat-template-select").unwrap();
        assert_eq!(select.get_attr("hidden"), Some(""));
        assert_eq!(select.children[0].get_attr("value"), Some("0"));
        assert_eq!(
            bar.find_class("count")[0].text_content(),
            "default (2 lines)"
        );
        assert_eq!(view.get_attr("data-testid"), Some("chat-template"));
        let two = [one[0].clone(), ("tool_use".to_string(), "x".to_string())];
        let [bar, _] = template_parts(&two);
        let select = bar.find_testid("chat-template-select").unwrap();
        assert_eq!(select.get_attr("hidden"), None);
        assert_eq!(select.children[1].text_content(), "tool_use (1 line)");
        assert!(bar.find_class("count").is_empty());
        assert_eq!(
            bar.find_class("copy-status")[0].get_attr("aria-live"),
            Some("polite")
        );
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

        let view = template_view(&("default".into(), "{{ a }}\n\t<b>".into()));
        assert_eq!(view.get_attr("data-name"), Some("default"));
        assert_eq!(view.get_attr("data-lines"), Some("2"));
        let lines = &view.children;
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[1].class, "tl");
        assert_eq!(lines[1].children[0].text.as_deref(), Some("2"));
        assert_eq!(lines[1].children[1].text.as_deref(), Some("\t<b>"));
    }
}
