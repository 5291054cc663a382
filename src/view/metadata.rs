//! Metadata table rows, and paging through large arrays on demand.
//!
//! A GGUF vocabulary is an array of 100,000+ strings; the table shows its element type, length
//! and first items, and the page decodes further items from the header bytes only when asked
//! (via [`ArrayRef::values`]), a page at a time.

use crate::format::{ArrayRef, Model, Value};
use crate::text;
use crate::view::node::{self, Node};

/// Items of an array shown in its table row.
pub const PREVIEW_ITEMS: u64 = 6;
/// Items decoded per click on "show more".
pub const PAGE_ITEMS: u64 = 200;
/// Longest string shown in a table row, in characters.
const ROW_CHARS: usize = 160;
/// Longest string shown as one item of an expanded array.
const ITEM_CHARS: usize = 400;

/// One row of the metadata table.
#[derive(Debug, Clone, PartialEq)]
pub struct MetaRow {
    /// Position in the file's metadata (index into `Model::metadata`).
    pub index: usize,
    /// The key, control characters made visible.
    pub key: String,
    /// The value type (`UINT32`, `STRING`, `ARRAY of STRING`).
    pub type_name: String,
    /// The value as text; arrays as `262,144 items: "<pad>", "<eos>", …`.
    pub value: String,
    /// For arrays: the element count (the row gets an expand control when it exceeds the preview).
    pub array_len: Option<u64>,
    /// The stored string was not valid UTF-8 (shown with replacement characters).
    pub lossy: bool,
    /// For strings cut short in the row (chat templates, licences): the full length in
    /// characters; the row gets a "show all" control that draws [`full_text`].
    pub long_chars: Option<usize>,
}

fn item_text(v: &Value, bytes: &[u8], max_chars: usize) -> String {
    text::value(v, bytes, 4, max_chars)
}

fn array_preview(a: &ArrayRef, bytes: &[u8]) -> String {
    let mut out = format!(
        "{} item{}",
        text::thousands(a.len),
        if a.len == 1 { "" } else { "s" }
    );
    if a.len == 0 {
        return out;
    }
    match a.values(bytes, 0, PREVIEW_ITEMS) {
        Ok(vals) => {
            let parts: Vec<String> = vals.iter().map(|v| item_text(v, bytes, 40)).collect();
            out.push_str(": ");
            out.push_str(&parts.join(", "));
            if a.len > PREVIEW_ITEMS {
                out.push_str(", …");
            }
        }
        Err(e) => out.push_str(&format!(" (cannot decode: {e})")),
    }
    out
}

/// The rows of the metadata table, in file order. Keys containing `filter` (case-insensitive)
/// only, when it is not empty.
pub fn metadata_rows(m: &Model, filter: &str) -> Vec<MetaRow> {
    let needle = filter.trim().to_lowercase();
    m.metadata
        .iter()
        .enumerate()
        .filter(|(_, e)| needle.is_empty() || e.key.to_lowercase().contains(&needle))
        .map(|(index, e)| {
            let (type_name, value, array_len) = match &e.value {
                Value::Array(a) => (
                    format!("ARRAY of {}", a.elem.name()),
                    array_preview(a, &m.bytes),
                    Some(a.len),
                ),
                v => (
                    v.value_type().name().to_string(),
                    item_text(v, &m.bytes, ROW_CHARS),
                    None,
                ),
            };
            MetaRow {
                index,
                key: text::escape(&e.key),
                type_name,
                value,
                array_len,
                lossy: matches!(&e.value, Value::String(t) if t.lossy),
                long_chars: match &e.value {
                    Value::String(t) => {
                        let n = t.text.chars().count();
                        (n > ROW_CHARS).then_some(n)
                    }
                    _ => None,
                },
            }
        })
        .collect()
}

/// `33 keys` / `1 key` / `4 of 33 keys`.
pub fn count_text(shown: usize, total: usize) -> String {
    let unit = if total == 1 { "key" } else { "keys" };
    if shown == total {
        format!("{} {unit}", text::thousands(total as u64))
    } else {
        format!(
            "{} of {} {unit}",
            text::thousands(shown as u64),
            text::thousands(total as u64)
        )
    }
}

/// A whole string value for reading (a chat template, a licence): line breaks and tabs kept,
/// every other control character made visible. `None` for values that are not strings.
pub fn full_text(v: &Value) -> Option<String> {
    let Value::String(t) = v else { return None };
    let mut out = String::with_capacity(t.text.len());
    for (i, line) in t.text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let parts: Vec<String> = line.split('\t').map(text::escape).collect();
        out.push_str(&parts.join("\t"));
    }
    Some(out)
}

/// Label of that control while the text is shown.
pub const HIDE_LONG_LABEL: &str = "Hide the full text";

/// Label of the control that shows a long string whole.
pub fn long_label(chars: usize) -> String {
    format!("Show all {} characters", text::thousands(chars as u64))
}

/// The long-string control of metadata entry `index` once clicked: `expand` shows the text
/// whole (`aria-expanded="true"`, labelled [`HIDE_LONG_LABEL`]), else hides it again
/// (`"false"`, labelled [`long_label`] with the string's length in characters; `None`, the
/// label kept, when the entry is not a string).
pub fn long_toggle(model: &Model, index: usize, expand: bool) -> (&'static str, Option<String>) {
    if expand {
        return ("true", Some(HIDE_LONG_LABEL.to_string()));
    }
    let chars = match model.metadata.get(index).map(|e| &e.value) {
        Some(Value::String(t)) => Some(t.text.chars().count()),
        _ => None,
    };
    ("false", chars.map(long_label))
}

/// The whole text of metadata entry `index` (`pre.long-text`, [`full_text`]; empty when it is
/// not a string), put above its control when first shown.
pub fn long_text_node(model: &Model, index: usize) -> Node {
    let text = model.metadata.get(index).and_then(|e| full_text(&e.value));
    node::text("pre", "long-text", &text.unwrap_or_default())
}

/// The list an expanded array's items go in (`ol.array-items`, numbered from 0) and its status
/// line (`div.array-status.muted`), put above its "show more" control.
pub fn array_list_nodes() -> [Node; 2] {
    [
        node::el("ol", "array-items").attr("start", "0"),
        node::el("div", "array-status muted"),
    ]
}

/// A page of decoded items, an `li` each (`value` = its index in the array).
pub fn item_nodes(items: &[ArrayItem]) -> Vec<Node> {
    items
        .iter()
        .map(|it| node::text("li", "", &it.text).attr("value", it.index.to_string()))
        .collect()
}

/// The status line when the next page does not decode (`error`: the format layer's).
pub fn page_error_text(error: &crate::format::Error) -> String {
    format!("cannot decode more items: {error}")
}

/// Whether a row's array is long enough to get an expand control.
pub fn expandable(row: &MetaRow) -> bool {
    row.array_len.is_some_and(|n| n > PREVIEW_ITEMS)
}

/// One decoded array element.
#[derive(Debug, Clone, PartialEq)]
pub struct ArrayItem {
    /// Its index in the array.
    pub index: u64,
    /// Its value as text.
    pub text: String,
}

/// Paging state of one expanded array: how many items are shown.
#[derive(Debug, Clone, PartialEq)]
pub struct ArrayPager {
    /// Element count.
    pub len: u64,
    /// Items shown so far (from index 0).
    pub shown: u64,
}

impl ArrayPager {
    /// A pager for an array of `len` items, none shown yet.
    pub fn new(len: u64) -> Self {
        ArrayPager { len, shown: 0 }
    }

    /// Decodes the next page of items and counts them as shown. Errors: the array's bytes are
    /// cut or damaged (the format layer's error, with field and byte offset).
    pub fn next_page(
        &mut self,
        a: &ArrayRef,
        bytes: &[u8],
    ) -> Result<Vec<ArrayItem>, crate::format::Error> {
        let from = self.shown;
        let vals = a.values(bytes, from, PAGE_ITEMS)?;
        self.shown = from + vals.len() as u64;
        Ok(vals
            .iter()
            .enumerate()
            .map(|(i, v)| ArrayItem {
                index: from + i as u64,
                text: item_text(v, bytes, ITEM_CHARS),
            })
            .collect())
    }

    /// Items not shown yet.
    pub fn remaining(&self) -> u64 {
        self.len.saturating_sub(self.shown)
    }

    /// The label of the "show more" button, or `None` when everything is shown.
    pub fn more_label(&self) -> Option<String> {
        let rest = self.remaining();
        if rest == 0 {
            return None;
        }
        Some(if self.shown == 0 {
            format!(
                "Show items (first {})",
                text::thousands(rest.min(PAGE_ITEMS))
            )
        } else {
            format!(
                "Show {} more ({} left)",
                text::thousands(rest.min(PAGE_ITEMS)),
                text::thousands(rest)
            )
        })
    }

    /// "Showing 200 of 262,144".
    pub fn status(&self) -> String {
        format!(
            "showing {} of {}",
            text::thousands(self.shown),
            text::thousands(self.len)
        )
    }

    /// The next page as the expanded array shows it ([`ArrayPager::next_page`]): its items'
    /// nodes ([`item_nodes`]) to append to the list, the status line ([`ArrayPager::status`]),
    /// and the expand control's next label (`None`: the control goes, every item is shown).
    /// A page that does not decode appends nothing, says why ([`page_error_text`]) and ends
    /// the paging.
    pub fn page(&mut self, a: &ArrayRef, bytes: &[u8]) -> Paged {
        match self.next_page(a, bytes) {
            Ok(items) => Paged {
                items: item_nodes(&items),
                status: self.status(),
                more: self.more_label(),
            },
            Err(e) => Paged {
                items: Vec::new(),
                status: page_error_text(&e),
                more: None,
            },
        }
    }
}

/// One page of an expanded array as drawn ([`ArrayPager::page`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Paged {
    /// The page's items (`li`s), appended to the list.
    pub items: Vec<Node>,
    /// The status line under the list.
    pub status: String,
    /// The expand control's label for the next page; `None` when it goes.
    pub more: Option<String>,
}

/// The Metadata card's frame: the title, the count (`span.count`, filled by [`count_text`]) and
/// the key filter in its head, and the empty table (`data-testid="metadata-table"`: key, type,
/// value) that [`row_nodes`] fills.
pub fn card() -> Node {
    let mut card = node::card("Metadata", "metadata");
    card.head().push(node::el("span", "count muted"));
    card.head()
        .push(node::search_input("filter keys", "filter metadata keys"));
    let head = node::el("tr", "").children(
        [
            ("key", "col-key"),
            ("type", "col-vtype"),
            ("value", "col-value"),
        ]
        .into_iter()
        .map(|(h, c)| node::text("th", c, h)),
    );
    let table = node::el("table", "meta-table")
        .testid("metadata-table")
        .child(node::el("thead", "").child(head))
        .child(node::el("tbody", ""));
    card.body()
        .push(node::el("div", "table-scroll meta-scroll").child(table));
    card
}

/// The table's rows: key, type and value (`div.value-text`, a tooltip when the string was not
/// valid UTF-8), then the "show all" control of a long string (`data-long`) and the "more items"
/// control of a long array (`data-index`); or "no matching keys".
pub fn row_nodes(rows: &[MetaRow]) -> Vec<Node> {
    if rows.is_empty() {
        return vec![node::el("tr", "")
            .child(node::text("td", "muted", "no matching keys").attr("colspan", "3"))];
    }
    rows.iter()
        .map(|r| {
            let mut preview = node::text("div", "value-text", &r.value);
            if r.lossy {
                preview = preview.attr("title", "not valid UTF-8: invalid bytes shown as \u{fffd}");
            }
            let mut value = node::el("td", "col-value mono").child(preview);
            if let Some(n) = r.long_chars {
                value.push(
                    node::text("button", "more", &long_label(n))
                        .attr("type", "button")
                        .attr("data-long", r.index.to_string())
                        .attr("aria-expanded", "false"),
                );
            }
            if expandable(r) {
                let label = ArrayPager::new(r.array_len.unwrap_or(0))
                    .more_label()
                    .unwrap_or_default();
                value.push(
                    node::text("button", "more", &label)
                        .attr("type", "button")
                        .attr("data-index", r.index.to_string()),
                );
            }
            node::el("tr", "")
                .child(node::text("td", "col-key mono", &r.key))
                .child(node::text("td", "col-vtype", &r.type_name))
                .child(value)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::parse_bytes;
    use crate::view::testutil::{gguf, Kv};

    fn model() -> Model {
        let tokens: Vec<String> = (0..1000).map(|i| format!("tok{i}")).collect();
        let b = gguf(
            &[
                ("general.architecture", Kv::Str("llama")),
                (
                    "general.evil\u{1b}key",
                    Kv::Str("<script>alert(1)</script>"),
                ),
                ("llama.rope.freq_base", Kv::F32(10000.0)),
                ("tokenizer.ggml.tokens", Kv::StrArray(tokens)),
                ("tokenizer.ggml.token_type", Kv::I32Array(vec![1, 2, 3])),
            ],
            &[],
        );
        parse_bytes(&b).unwrap()
    }

    #[test]
    fn rows_show_types_and_array_previews() {
        let m = model();
        let rows = metadata_rows(&m, "");
        assert_eq!(rows.len(), 5);
        assert_eq!(rows[0].type_name, "STRING");
        assert_eq!(rows[0].value, "\"llama\"");
        assert_eq!(rows[1].key, "general.evil\\u{1b}key");
        assert_eq!(rows[1].value, "\"<script>alert(1)</script>\"");
        assert_eq!(rows[2].value, "10000");
        assert_eq!(rows[3].type_name, "ARRAY of STRING");
        assert_eq!(
            rows[3].value,
            "1,000 items: \"tok0\", \"tok1\", \"tok2\", \"tok3\", \"tok4\", \"tok5\", …"
        );
        assert!(expandable(&rows[3]));
        assert_eq!(rows[4].value, "3 items: 1, 2, 3");
        assert!(!expandable(&rows[4]));
    }

    #[test]
    fn filter_matches_keys_case_insensitively() {
        let m = model();
        let rows = metadata_rows(&m, " TOKENIZER ");
        assert_eq!(rows.iter().map(|r| r.index).collect::<Vec<_>>(), vec![3, 4]);
    }

    #[test]
    fn long_strings_are_cut_in_the_row_and_shown_whole_on_demand() {
        let template = format!(
            "{{% for m in messages %}}\n\t{}\u{1b}\r{{% endfor %}}",
            "x".repeat(300)
        );
        let b = gguf(&[("tokenizer.chat_template", Kv::Str(&template))], &[]);
        let m = parse_bytes(&b).unwrap();
        let rows = metadata_rows(&m, "");
        let n = template.chars().count();
        assert_eq!(rows[0].long_chars, Some(n));
        assert!(rows[0].value.ends_with(&format!("…\" ({n} chars)")));
        let full = full_text(&m.metadata[0].value).unwrap();
        assert!(full.starts_with("{% for m in messages %}\n\tx"));
        assert!(full.ends_with("x\\u{1b}\\r{% endfor %}"));
        assert_eq!(long_label(12345), "Show all 12,345 characters");
        assert_eq!(metadata_rows(&model(), "")[0].long_chars, None);
        assert_eq!(full_text(&Value::U32(1)), None);
    }

    #[test]
    fn key_counts_read_naturally() {
        assert_eq!(count_text(1, 1), "1 key");
        assert_eq!(count_text(33, 33), "33 keys");
        assert_eq!(count_text(0, 1200), "0 of 1,200 keys");
    }

    #[test]
    fn arrays_page_on_demand_to_the_end() {
        let m = model();
        let Value::Array(a) = &m.metadata[3].value else {
            panic!()
        };
        let mut p = ArrayPager::new(a.len);
        assert_eq!(p.more_label().as_deref(), Some("Show items (first 200)"));
        let first = p.next_page(a, &m.bytes).unwrap();
        assert_eq!(first.len(), 200);
        assert_eq!(
            first[199],
            ArrayItem {
                index: 199,
                text: "\"tok199\"".into()
            }
        );
        assert_eq!(p.more_label().as_deref(), Some("Show 200 more (800 left)"));
        for _ in 0..4 {
            p.next_page(a, &m.bytes).unwrap();
        }
        assert_eq!(p.remaining(), 0);
        assert_eq!(p.more_label(), None);
        assert_eq!(p.status(), "showing 1,000 of 1,000");
        assert!(p.next_page(a, &m.bytes).unwrap().is_empty());
    }

    #[test]
    fn the_card_and_rows_of_the_sample() {
        let c = card();
        assert_eq!(c.class, "card metadata");
        let head = &c.children[0];
        assert_eq!(head.children[1].class, "count muted");
        let input = &head.children[2];
        assert_eq!(input.get_attr("type"), Some("search"));
        assert_eq!(input.get_attr("aria-label"), Some("filter metadata keys"));
        let table = c.find_testid("metadata-table").unwrap();
        assert_eq!(table.children[0].text_content(), "keytypevalue");
        assert!(table.children[1].children.is_empty());

        let m = parse_bytes(include_bytes!("../../www/sample.gguf")).unwrap();
        let rows = metadata_rows(&m, "");
        let nodes = row_nodes(&rows);
        assert_eq!(nodes.len(), m.metadata.len());
        assert_eq!(nodes[0].children[0].text, Some(rows[0].key.clone()));
        assert_eq!(nodes[0].children[1].text, Some(rows[0].type_name.clone()));
        assert_eq!(
            nodes[0].children[2].children[0].text,
            Some(rows[0].value.clone())
        );
        let i = rows
            .iter()
            .position(expandable)
            .expect("the sample has a long array");
        let more = nodes[i].find_class("more");
        assert_eq!(
            more.last().unwrap().get_attr("data-index"),
            Some(rows[i].index.to_string().as_str())
        );
        let none = row_nodes(&[]);
        assert_eq!(none[0].text_content(), "no matching keys");
        assert_eq!(none[0].children[0].get_attr("colspan"), Some("3"));

        let mut long = rows[0].clone();
        long.long_chars = Some(5000);
        long.lossy = true;
        let n = &row_nodes(&[long])[0];
        let b = &n.find_class("more")[0];
        assert_eq!(b.get_attr("aria-expanded"), Some("false"));
        assert_eq!(b.text, Some(long_label(5000)));
        assert!(n.find_class("value-text")[0].get_attr("title").is_some());
    }

    #[test]
    fn the_long_text_control_toggles() {
        let text = format!("{}é", "x".repeat(1999));
        let b = gguf(
            &[
                ("general.license", Kv::Str(&text)),
                ("llama.rope.freq_base", Kv::F32(10000.0)),
            ],
            &[],
        );
        let m = parse_bytes(&b).unwrap();
        // 2,000 characters (2,001 bytes).
        assert_eq!(
            long_toggle(&m, 0, false),
            ("false", Some("Show all 2,000 characters".into()))
        );
        assert_eq!(
            long_toggle(&m, 0, true),
            ("true", Some(HIDE_LONG_LABEL.into()))
        );
        assert_eq!(long_toggle(&m, 1, false), ("false", None));
        let pre = long_text_node(&m, 0);
        assert_eq!((pre.tag, pre.class.as_str()), ("pre", "long-text"));
        assert_eq!(pre.text.as_deref(), Some(text.as_str()));
        assert_eq!(long_text_node(&m, 1).text.as_deref(), Some(""));
    }

    #[test]
    fn array_pages_are_numbered_items() {
        let m = model();
        let Value::Array(a) = &m.metadata[3].value else {
            panic!("tokens are an array")
        };
        let mut pager = ArrayPager::new(a.len);
        pager.next_page(a, &m.bytes).unwrap();
        let items = pager.next_page(a, &m.bytes).unwrap();
        let lis = item_nodes(&items);
        assert_eq!(lis.len(), PAGE_ITEMS as usize);
        // The third page as drawn: its items, the count so far, the next control's label.
        let third = pager.page(a, &m.bytes);
        assert_eq!(third.items.len(), PAGE_ITEMS as usize);
        assert_eq!(third.items[0].get_attr("value"), Some("400"));
        assert_eq!(third.status, "showing 600 of 1,000");
        assert_eq!(third.more.as_deref(), Some("Show 200 more (400 left)"));
        // A page that does not decode says why and ends the paging.
        let broken = pager.page(a, &m.bytes[..64]);
        assert!(broken.items.is_empty());
        assert!(
            broken.status.starts_with("cannot decode more items: "),
            "{}",
            broken.status
        );
        assert_eq!(broken.more, None);
        assert_eq!(lis[0].get_attr("value"), Some("200"));
        assert_eq!(lis[0].text.as_deref(), Some("\"tok200\""));
        let [ol, status] = array_list_nodes();
        assert_eq!(
            (ol.class.as_str(), ol.get_attr("start")),
            ("array-items", Some("0"))
        );
        assert_eq!(status.class, "array-status muted");
    }
}
