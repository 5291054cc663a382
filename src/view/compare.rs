//! The page's Compare card: the rows and texts drawn for the differences between the model
//! shown (A) and a second file read header-only (B), from [`crate::summary::diff`] — the same
//! figures as `weightpeek diff A B`, and its `--json` as the card's download.

use std::collections::HashMap;

use crate::format::ggml_type::file_type_name;
use crate::format::{Model, Value};
use crate::summary::diff::{diff, first_by_name, Diff};
use crate::text::{self, escape};
use crate::view::node::{self, el, Node};

/// Rows of a list shown before "Show all".
pub const LIST_CAP: usize = 40;

/// What a metadata or tensor row says changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Only in the second file (B).
    OnlyB,
    /// Only in the first file (A).
    OnlyA,
    /// In both, different.
    Changed,
}

impl Kind {
    /// The badge text.
    pub fn label(self) -> &'static str {
        match self {
            Kind::OnlyB => "only in B",
            Kind::OnlyA => "only in A",
            Kind::Changed => "changed",
        }
    }

    /// The `data-kind` value and CSS modifier.
    pub fn code(self) -> &'static str {
        match self {
            Kind::OnlyB => "added",
            Kind::OnlyA => "removed",
            Kind::Changed => "changed",
        }
    }
}

/// One row of the metadata or tensor list: what it names, and its A and B sides as text
/// (`–` where absent; values, type labels and names escaped).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// Kind of difference.
    pub kind: Kind,
    /// The key or tensor name, escaped for display.
    pub name: String,
    /// The name as stored (for `data-name`; attributes hold it as text).
    pub raw: String,
    /// A's side.
    pub a: String,
    /// B's side.
    pub b: String,
}

/// One row of the bits-per-weight table.
#[derive(Debug, Clone, PartialEq)]
pub struct RoleRow {
    /// The role, escaped for display.
    pub role: String,
    /// The role as stored.
    pub raw: String,
    /// Bits per weight in A and B.
    pub a: Option<f64>,
    /// B's bits per weight.
    pub b: Option<f64>,
    /// `4.500`, or `–`.
    pub a_text: String,
    /// B's, as text.
    pub b_text: String,
    /// `+2.000`, `−0.250`, `0`, or `–` when a side is missing.
    pub delta_text: String,
    /// A and B differ (including present in one only).
    pub changed: bool,
}

/// Counts for the summary line and the card's `data-*` attributes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counts {
    /// Tensors with the same name in both.
    pub in_both: usize,
    /// Tensors only in A.
    pub only_a: usize,
    /// Tensors only in B.
    pub only_b: usize,
    /// Tensors in both with another type or shape.
    pub changed: usize,
    /// Keys only in B.
    pub keys_added: usize,
    /// Keys only in A.
    pub keys_removed: usize,
    /// Keys with another value.
    pub keys_changed: usize,
}

/// Everything the card draws.
#[derive(Debug, Clone, PartialEq)]
pub struct CompareView {
    /// The short names of A and B (file type like `Q4_K_M`, else the file name).
    pub labels: (String, String),
    /// The file names, escaped.
    pub names: (String, String),
    /// The one-line summary.
    pub summary: String,
    /// Counts behind it.
    pub counts: Counts,
    /// Whole-file bits per weight.
    pub bpw: (Option<f64>, Option<f64>),
    /// Per role, in A's order then B's new roles.
    pub roles: Vec<RoleRow>,
    /// Metadata keys added, removed, changed.
    pub keys: Vec<Row>,
    /// Tensors only in one, or changed.
    pub tensors: Vec<Row>,
    /// Quantisation recipe patterns (`blk.#.ffn_down.weight`) whose types differ, or that one
    /// file lacks (GGUF against GGUF; empty otherwise): the recipes side by side.
    pub recipe: Vec<Row>,
    /// The diff as `weightpeek diff A B --json` prints it (with its final newline).
    pub json: String,
}

/// `general.file_type` as llama.cpp names it, without `MOSTLY_` / `ALL_`: `Q4_K_M`.
pub fn file_type_label(m: &Model) -> Option<String> {
    let id = m.get("general.file_type").and_then(Value::as_u64)?;
    let n = file_type_name(id)?;
    Some(
        n.trim_start_matches("MOSTLY_")
            .trim_start_matches("ALL_")
            .to_string(),
    )
}

/// Bits per weight as shown: three decimals (as elsewhere on the page), `–` for none.
pub fn bpw_text(x: Option<f64>) -> String {
    x.map_or("–".to_string(), |v| format!("{v:.3}"))
}

/// B − A with a sign (`+2.000`, `−0.250`), `0` when equal, `–` when a side is missing.
pub fn delta_text(a: Option<f64>, b: Option<f64>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if a == b => "0".into(),
        (Some(a), Some(b)) => {
            let d = b - a;
            let sign = if d > 0.0 { '+' } else { '−' };
            format!("{sign}{:.3}", d.abs())
        }
        _ => "–".into(),
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!(
        "{} {}",
        text::thousands(n as u64),
        if n == 1 { one } else { many }
    )
}

/// The diff as the CLI's `--json` prints it.
pub fn diff_json(d: &Diff) -> String {
    // Serialising plain structs of strings, numbers and options cannot fail.
    let mut s = serde_json::to_string_pretty(d).unwrap_or_default();
    s.push('\n');
    s
}

/// The download's file name: `a.gguf` vs `b.gguf` → `a.gguf-vs-b.gguf.weightpeek-diff.json`,
/// with path and control characters replaced.
pub fn diff_file_name(a: &str, b: &str) -> String {
    let clean = |s: &str| -> String {
        let base = s.rsplit(['/', '\\']).next().unwrap_or(s);
        base.chars()
            .map(|c| {
                if c.is_control()
                    || matches!(c, '/' | '\\' | ':' | '*' | '?' | '"' | '<' | '>' | '|')
                {
                    '_'
                } else {
                    c
                }
            })
            .take(80)
            .collect()
    };
    format!("{}-vs-{}.weightpeek-diff.json", clean(a), clean(b))
}

/// A shape as the CLI prints it: `[1024, 640]` (no thousands separators inside the list).
fn shape(s: &[u64]) -> String {
    let dims: Vec<String> = s.iter().map(u64::to_string).collect();
    format!("[{}]", dims.join(", "))
}

/// Compares A (`name_a`) with B and builds the card's rows and texts.
pub fn compare(name_a: &str, a: &Model, name_b: &str, b: &Model) -> CompareView {
    let d = diff(a, b);
    // A's tensors are those whose name B has, and those only in A.
    let in_both = a.tensors.len() - d.tensors_removed.len();
    let counts = Counts {
        in_both,
        only_a: d.tensors_removed.len(),
        only_b: d.tensors_added.len(),
        changed: d.tensors_changed.len(),
        keys_added: d.keys_added.len(),
        keys_removed: d.keys_removed.len(),
        keys_changed: d.keys_changed.len(),
    };
    let names = (escape(name_a), escape(name_b));
    let (la, lb) = (file_type_label(a), file_type_label(b));
    let labels = match (la, lb) {
        (Some(x), Some(y)) if x != y => (x, y),
        _ => names.clone(),
    };
    let key_changes = counts.keys_added + counts.keys_removed + counts.keys_changed;
    let summary = format!(
        "{} vs {}: {} in both, {} only in A, {} only in B, {} changed type or shape, {}, bpw {} → {}",
        labels.0,
        labels.1,
        plural(in_both, "tensor", "tensors"),
        text::thousands(counts.only_a as u64),
        text::thousands(counts.only_b as u64),
        text::thousands(counts.changed as u64),
        plural(key_changes, "metadata difference", "metadata differences"),
        bpw_text(d.bpw.0),
        bpw_text(d.bpw.1),
    );
    let roles = d
        .bpw_by_role
        .iter()
        .map(|r| RoleRow {
            role: escape(&r.role),
            raw: r.role.clone(),
            a: r.a,
            b: r.b,
            a_text: bpw_text(r.a),
            b_text: bpw_text(r.b),
            delta_text: delta_text(r.a, r.b),
            changed: r.a != r.b,
        })
        .collect();
    let dash = || "–".to_string();
    let mut keys: Vec<Row> = Vec::new();
    for k in &d.keys_changed {
        keys.push(Row {
            kind: Kind::Changed,
            name: escape(&k.key),
            raw: k.key.clone(),
            a: k.a.clone(),
            b: k.b.clone(),
        });
    }
    // By key in one step, as the tensors below (a file of many keys against one without).
    let (keys_a, keys_b) = (
        first_by_name(a.metadata.iter().map(|e| e.key.as_str())),
        first_by_name(b.metadata.iter().map(|e| e.key.as_str())),
    );
    let value_of = |m: &Model, keys: &HashMap<&str, usize>, key: &str| {
        keys.get(key)
            .map(|&i| &m.metadata[i])
            .map_or_else(dash, |e| text::value(&e.value, &m.bytes, 4, 80))
    };
    for k in &d.keys_removed {
        keys.push(Row {
            kind: Kind::OnlyA,
            name: escape(k),
            raw: k.clone(),
            a: value_of(a, &keys_a, k),
            b: dash(),
        });
    }
    for k in &d.keys_added {
        keys.push(Row {
            kind: Kind::OnlyB,
            name: escape(k),
            raw: k.clone(),
            a: dash(),
            b: value_of(b, &keys_b, k),
        });
    }
    // By name in one step: two files with few names in common (a GGUF against the
    // safetensors it was converted from) list every tensor here.
    let (names_a, names_b) = (
        first_by_name(a.tensors.iter().map(|t| t.name.as_str())),
        first_by_name(b.tensors.iter().map(|t| t.name.as_str())),
    );
    let tensor_of = |m: &Model, names: &HashMap<&str, usize>, name: &str| {
        names
            .get(name)
            .map(|&i| &m.tensors[i])
            .map_or_else(dash, |t| {
                format!("{} {}", escape(&t.dtype.label()), shape(&t.shape))
            })
    };
    let mut tensors: Vec<Row> = d
        .tensors_changed
        .iter()
        .map(|t| Row {
            kind: Kind::Changed,
            name: escape(&t.name),
            raw: t.name.clone(),
            a: format!("{} {}", escape(&t.dtype_a), shape(&t.shape_a)),
            b: format!("{} {}", escape(&t.dtype_b), shape(&t.shape_b)),
        })
        .collect();
    for n in &d.tensors_removed {
        tensors.push(Row {
            kind: Kind::OnlyA,
            name: escape(n),
            raw: n.clone(),
            a: tensor_of(a, &names_a, n),
            b: dash(),
        });
    }
    for n in &d.tensors_added {
        tensors.push(Row {
            kind: Kind::OnlyB,
            name: escape(n),
            raw: n.clone(),
            a: dash(),
            b: tensor_of(b, &names_b, n),
        });
    }
    CompareView {
        labels,
        names,
        summary,
        counts,
        bpw: d.bpw,
        roles,
        keys,
        tensors,
        recipe: recipe_rows(a, b),
        json: diff_json(&d),
    }
}

/// The recipes of `a` and `b` pattern by pattern (A's order, then B's new patterns): the
/// patterns whose types differ or that only one file has.
fn recipe_rows(a: &Model, b: &Model) -> Vec<Row> {
    use crate::summary::recipe::recipe;
    use crate::view::recipe::types_text;
    let (Some(ra), Some(rb)) = (recipe(a), recipe(b)) else {
        return Vec::new();
    };
    let of = |r: &crate::summary::recipe::Recipe| -> HashMap<String, String> {
        r.rows
            .iter()
            .map(|row| (row.pattern.clone(), types_text(row)))
            .collect()
    };
    let (ta, tb) = (of(&ra), of(&rb));
    let mut out = Vec::new();
    for row in &ra.rows {
        let a_text = &ta[&row.pattern];
        let (kind, b_text) = match tb.get(&row.pattern) {
            Some(t) if t == a_text => continue,
            Some(t) => (Kind::Changed, t.clone()),
            None => (Kind::OnlyA, "–".to_string()),
        };
        out.push(Row {
            kind,
            name: escape(&row.pattern),
            raw: row.pattern.clone(),
            a: a_text.clone(),
            b: b_text,
        });
    }
    for row in rb.rows.iter().filter(|row| !ta.contains_key(&row.pattern)) {
        out.push(Row {
            kind: Kind::OnlyB,
            name: escape(&row.pattern),
            raw: row.pattern.clone(),
            a: "–".to_string(),
            b: tb[&row.pattern].clone(),
        });
    }
    out
}

/// The rows of a list to draw: all, or the first [`LIST_CAP`] with the "Show all" label.
pub fn capped<T>(rows: &[T], show_all: bool) -> (&[T], Option<String>) {
    if show_all || rows.len() <= LIST_CAP {
        (rows, None)
    } else {
        (
            &rows[..LIST_CAP],
            Some(format!("Show all {}", text::thousands(rows.len() as u64))),
        )
    }
}

/// The line under the summary: the two files and what reading B cost.
pub fn files_line(view: &CompareView, b_read: u64, b_size: u64) -> String {
    format!(
        "A: {} · B: {} (read {} of {}: the header only)",
        view.names.0,
        view.names.1,
        text::bytes(b_read),
        text::bytes(b_size)
    )
}

/// The status line's message when "Compare with another file…" is used with no model shown.
pub const NO_MODEL: &str = "Open a model first, then compare another file with it.";

/// The status line's message when the model shown was closed while B was being read.
pub const MODEL_GONE: &str = "The model to compare with is no longer shown.";

/// The status line while the header of the file at `url` (as typed) is read.
pub fn reading_text(url: &str) -> String {
    format!("Reading the header of {}…", escape(url.trim()))
}

/// Where a comparison is, as the compare controls' status line and `body[data-compare]` (for
/// the tests) say it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// None started, or its card was closed: an empty line, no `data-compare`.
    Idle,
    /// B is being read; the line says how far ([`reading_text`], the loading texts).
    Loading(String),
    /// The card is shown: an empty line.
    Ready,
    /// No card; the line says why ([`NO_MODEL`], [`MODEL_GONE`], a failure's joined text).
    Failed(String),
}

impl Status {
    /// The status line's text.
    pub fn text(&self) -> &str {
        match self {
            Status::Loading(t) | Status::Failed(t) => t,
            Status::Idle | Status::Ready => "",
        }
    }

    /// The status line's class: `compare-status warn` for a failure, else
    /// `compare-status muted`.
    pub fn class(&self) -> &'static str {
        match self {
            Status::Failed(_) => "compare-status warn",
            _ => "compare-status muted",
        }
    }

    /// `body[data-compare]`: `loading`, `ready` or `error`; `None` (no attribute) when idle.
    pub fn state(&self) -> Option<&'static str> {
        match self {
            Status::Idle => None,
            Status::Loading(_) => Some("loading"),
            Status::Ready => Some("ready"),
            Status::Failed(_) => Some("error"),
        }
    }
}

/// A table of the Compare card (or the editor): `div.table-scroll.compare-scroll.<class>-scroll`
/// holding `table.compare-table.<class>` with one `th[scope=col]` per heading and `rows` in its
/// `tbody`.
pub fn table(class: &str, heads: &[&str], rows: impl IntoIterator<Item = Node>) -> Node {
    let head = el("tr", "").children(
        heads
            .iter()
            .map(|h| node::text("th", "", h).attr("scope", "col")),
    );
    el(
        "div",
        &format!("table-scroll compare-scroll {class}-scroll"),
    )
    .child(
        el("table", &format!("compare-table {class}"))
            .child(el("thead", "").child(head))
            .child(el("tbody", "").children(rows)),
    )
}

/// A `tr` of a difference list (`data-kind` = [`Kind::code`], `data-name` = the name as
/// stored): the kind's badge, the name, A's side and B's side, as text.
pub fn row_node(r: &Row) -> Node {
    el("tr", "")
        .attr("data-kind", r.kind.code())
        .attr("data-name", &r.raw)
        .child(el("td", "col-kind").child(node::text(
            "span",
            &format!("kind kind-{}", r.kind.code()),
            r.kind.label(),
        )))
        .child(node::text("td", "col-name mono", &r.name))
        .child(node::text("td", "col-a mono", &r.a))
        .child(node::text("td", "col-b mono", &r.b))
}

/// A list section (metadata, tensors, recipe patterns): the `h3` heading, then `p` "none", or
/// the table (`data-testid` = `testid`, `data-total` = every row) of the first [`LIST_CAP`]
/// rows followed by a "Show all N" button (`button.more.compare-more`) when there are more;
/// the page appends the rest ([`hidden_rows`]) on its click.
pub fn row_list(title: &str, testid: &str, rows: &[Row]) -> Vec<Node> {
    let mut out = vec![node::text("h3", "compare-h", title)];
    if rows.is_empty() {
        out.push(node::text("p", "muted compare-none", "none"));
        return out;
    }
    let (shown, more) = capped(rows, false);
    out.push(
        table(
            "compare-rows",
            &["", "name", "A", "B"],
            shown.iter().map(row_node),
        )
        .testid(testid)
        .attr("data-total", rows.len().to_string()),
    );
    if let Some(label) = more {
        out.push(node::text("button", "more compare-more", &label).attr("type", "button"));
    }
    out
}

/// The rows of a list that [`row_list`] leaves for "Show all" (empty when it shows them all).
pub fn hidden_rows(rows: &[Row]) -> &[Row] {
    rows.get(LIST_CAP..).unwrap_or_default()
}

/// A bits-per-weight value for a `data-*` attribute: the number as Rust prints it, empty for
/// none.
fn num(x: Option<f64>) -> String {
    x.map_or(String::new(), |v| v.to_string())
}

/// The note under the files line when B could not be read to the end (`None` when it was).
pub fn partial_note(b: &Model) -> Option<String> {
    b.error.as_ref().map(|e| {
        format!(
            "B could not be read to the end ({}); what was read is compared.",
            escape(&e.to_string())
        )
    })
}

/// The Compare card (`data-testid="compare-card"`) for `view` against B (`b`, of which
/// `b_read` of `b_size` bytes were read): the counts, whole-file bits per weight, B's bytes
/// read and header size as `data-*`; "Download JSON" (`compare-json`) and "Close"
/// (`compare-close`) in its head; the summary line, the files line, [`partial_note`], the
/// bits-per-weight table by role (`compare-roles`) and the three difference lists
/// (`compare-keys`, `compare-tensors`, `compare-recipe`).
pub fn card(view: &CompareView, b: &Model, b_read: u64, b_size: u64) -> Node {
    let c = &view.counts;
    let mut card = node::card("Compare", "compare-card").testid("compare-card");
    for (k, v) in [
        ("data-in-both", c.in_both),
        ("data-only-a", c.only_a),
        ("data-only-b", c.only_b),
        ("data-changed", c.changed),
        ("data-keys-added", c.keys_added),
        ("data-keys-removed", c.keys_removed),
        ("data-keys-changed", c.keys_changed),
    ] {
        card = card.attr(k, v.to_string());
    }
    card = card
        .attr("data-bpw-a", num(view.bpw.0))
        .attr("data-bpw-b", num(view.bpw.1))
        .attr("data-b-bytes-read", b_read.to_string())
        .attr("data-b-header", b.header_size.to_string());
    card.head().push(
        el("div", "exports")
            .child(
                node::text("button", "button small", "Download JSON")
                    .attr("type", "button")
                    .testid("compare-json")
                    .attr(
                        "title",
                        "the differences as `weightpeek diff A B --json` prints them",
                    ),
            )
            .child(
                node::text("button", "button small compare-close", "Close")
                    .attr("type", "button")
                    .testid("compare-close")
                    .attr("aria-label", "Close the comparison"),
            ),
    );
    let body = card.body();
    body.push(node::text("p", "compare-summary", &view.summary).testid("compare-summary"));
    body.push(node::text(
        "p",
        "muted compare-files",
        &files_line(view, b_read, b_size),
    ));
    if let Some(n) = partial_note(b) {
        body.push(node::text("p", "note warn", &n));
    }
    body.push(node::text("h3", "compare-h", "Bits per weight by role"));
    let roles = view.roles.iter().map(|r| {
        el("tr", if r.changed { "changed" } else { "" })
            .attr("data-role", &r.raw)
            .attr("data-a", num(r.a))
            .attr("data-b", num(r.b))
            .child(node::text("td", "col-name mono", &r.role))
            .child(node::text("td", "num", &r.a_text))
            .child(node::text("td", "num", &r.b_text))
            .child(node::text("td", "num delta", &r.delta_text))
    });
    body.push(table("compare-roles", &["role", "A", "B", "B − A"], roles).testid("compare-roles"));
    for (title, id, rows) in [
        ("Metadata differences", "compare-keys", &view.keys),
        ("Tensor differences", "compare-tensors", &view.tensors),
        (
            "Quantisation recipe differences",
            "compare-recipe",
            &view.recipe,
        ),
    ] {
        body.children.extend(row_list(title, id, rows));
    }
    card
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::parse_bytes;
    use crate::view::testutil::{gguf, Kv};

    fn pair() -> (Model, Model) {
        let a = gguf(
            &[
                ("general.name", Kv::Str("m")),
                ("general.file_type", Kv::U32(15)),
                ("only.a", Kv::Str("1")),
            ],
            &[
                ("blk.0.ffn_down.weight", 12, vec![256, 2], 288),
                ("blk.1.ffn_down.weight", 12, vec![256, 2], 288),
                ("gone", 0, vec![4], 16),
            ],
        );
        let b = gguf(
            &[
                ("general.name", Kv::Str("m\u{202e}x")),
                ("general.file_type", Kv::U32(7)),
                ("only.b", Kv::Str("<b>2</b>")),
            ],
            &[
                ("blk.0.ffn_down.weight", 8, vec![256, 2], 544),
                ("blk.1.ffn_down.weight", 8, vec![256, 2], 544),
                ("new\u{7}", 0, vec![4], 16),
            ],
        );
        (parse_bytes(&a).unwrap(), parse_bytes(&b).unwrap())
    }

    #[test]
    fn summary_line_and_counts() {
        let (a, b) = pair();
        let v = compare("a.gguf", &a, "b.gguf", &b);
        assert_eq!(v.labels, ("Q4_K_M".to_string(), "Q8_0".to_string()));
        assert_eq!(
            v.counts,
            Counts {
                in_both: 2,
                only_a: 1,
                only_b: 1,
                changed: 2,
                keys_added: 1,
                keys_removed: 1,
                keys_changed: 2,
            }
        );
        assert_eq!(
            v.summary,
            "Q4_K_M vs Q8_0: 2 tensors in both, 1 only in A, 1 only in B, 2 changed type or shape, 4 metadata differences, bpw 4.607 → 8.591"
        );
    }

    #[test]
    fn rows_and_escaping() {
        let (a, b) = pair();
        let v = compare("a.gguf", &a, "b\nx.gguf", &b);
        assert_eq!(v.names.1, "b\\nx.gguf");
        let down = v.roles.iter().find(|r| r.raw == "ffn_down.weight").unwrap();
        assert_eq!((down.a, down.b), (Some(4.5), Some(8.5)));
        assert_eq!(
            (
                down.a_text.as_str(),
                down.b_text.as_str(),
                down.delta_text.as_str()
            ),
            ("4.500", "8.500", "+4.000")
        );
        assert!(down.changed);
        let gone = v.roles.iter().find(|r| r.raw == "gone").unwrap();
        assert_eq!((gone.b, gone.delta_text.as_str()), (None, "–"));
        // Changed first, then only in A, then only in B; values as the CLI shows them.
        let kinds: Vec<Kind> = v.keys.iter().map(|r| r.kind).collect();
        assert_eq!(
            kinds,
            [Kind::Changed, Kind::Changed, Kind::OnlyA, Kind::OnlyB]
        );
        let name = &v.keys[0];
        assert_eq!(name.raw, "general.name");
        assert!(
            !name.b.contains('\u{202e}'),
            "bidi override escaped: {}",
            name.b
        );
        let added = v.keys.iter().find(|r| r.kind == Kind::OnlyB).unwrap();
        assert_eq!((added.a.as_str(), added.b.as_str()), ("–", "\"<b>2</b>\""));
        let t: Vec<(&str, &str, &str)> = v
            .tensors
            .iter()
            .map(|r| (r.name.as_str(), r.a.as_str(), r.b.as_str()))
            .collect();
        assert_eq!(
            t,
            [
                ("blk.0.ffn_down.weight", "Q4_K [256, 2]", "Q8_0 [256, 2]"),
                ("blk.1.ffn_down.weight", "Q4_K [256, 2]", "Q8_0 [256, 2]"),
                ("gone", "F32 [4]", "–"),
                ("new\\u{7}", "–", "F32 [4]"),
            ]
        );
        assert_eq!(v.tensors[3].raw, "new\u{7}");
    }

    #[test]
    fn json_is_the_cli_schema() {
        let (a, b) = pair();
        let v = compare("a", &a, "b", &b);
        let j: serde_json::Value = serde_json::from_str(&v.json).unwrap();
        for k in [
            "keys_added",
            "keys_removed",
            "keys_changed",
            "tensors_added",
            "tensors_removed",
            "tensors_changed",
            "bpw_by_role",
            "bpw",
        ] {
            assert!(j.get(k).is_some(), "{k}");
        }
        assert_eq!(j["tensors_added"][0], "new\u{7}");
        assert!(v.json.ends_with("}\n"));
        assert_eq!(
            diff_file_name("dir/a.gguf", "b:c\n.gguf"),
            "a.gguf-vs-b_c_.gguf.weightpeek-diff.json"
        );
    }

    #[test]
    fn same_file_and_labels_fall_back_to_names() {
        let (a, _) = pair();
        let v = compare("x.gguf", &a, "y.gguf", &a);
        assert_eq!(v.labels, ("x.gguf".to_string(), "y.gguf".to_string()));
        assert!(v.keys.is_empty() && v.tensors.is_empty());
        assert!(v.roles.iter().all(|r| !r.changed && r.delta_text == "0"));
    }

    #[test]
    fn deltas_and_caps() {
        assert_eq!(delta_text(Some(5.0), Some(4.75)), "−0.250");
        assert_eq!(delta_text(Some(5.0), Some(5.001)), "+0.001");
        assert_eq!(delta_text(Some(5.0), Some(5.0001)), "+0.000");
        assert_eq!(bpw_text(Some(4.5)), "4.500");
        assert_eq!(delta_text(None, Some(5.0)), "–");
        let rows: Vec<u32> = (0..100).collect();
        let (shown, more) = capped(&rows, false);
        assert_eq!(
            (shown.len(), more.as_deref()),
            (LIST_CAP, Some("Show all 100"))
        );
        assert_eq!(capped(&rows, true).0.len(), 100);
        assert_eq!(capped(&rows[..3], false), (&rows[..3], None));
    }

    #[test]
    fn the_card_and_its_lists() {
        let (a, b) = pair();
        let v = compare("a.gguf", &a, "b.gguf", &b);
        let c = card(&v, &b, 1000, 2048);
        assert_eq!(c.get_attr("data-testid"), Some("compare-card"));
        assert_eq!(c.get_attr("data-keys-changed"), Some("2"));
        assert_eq!(c.get_attr("data-only-b"), Some("1"));
        assert_eq!(c.get_attr("data-b-bytes-read"), Some("1000"));
        assert_eq!(
            c.get_attr("data-b-header"),
            Some(b.header_size.to_string().as_str())
        );
        assert_eq!(
            c.find_testid("compare-summary").unwrap().text_content(),
            v.summary
        );
        let roles = c.find_testid("compare-roles").unwrap();
        let down = roles
            .descendants()
            .into_iter()
            .find(|n| n.get_attr("data-role") == Some("ffn_down.weight"))
            .unwrap();
        assert_eq!(down.class, "changed");
        assert_eq!(down.get_attr("data-a"), Some("4.5"));
        assert_eq!(down.text_content(), "ffn_down.weight4.5008.500+4.000");
        let tensors = c.find_testid("compare-tensors").unwrap();
        assert_eq!(tensors.get_attr("data-total"), Some("4"));
        assert_eq!(tensors.find_class("kind").len(), 4);
        assert!(c.find_class("compare-more").is_empty());
        assert!(c.find_class("note").is_empty(), "B was read to the end");
        // Lists longer than the cap show LIST_CAP rows and "Show all".
        let rows: Vec<Row> = (0..LIST_CAP + 5)
            .map(|i| Row {
                kind: Kind::OnlyA,
                name: format!("t{i}"),
                raw: format!("t{i}"),
                a: "F32 [4]".into(),
                b: "–".into(),
            })
            .collect();
        let list = row_list("T", "x", &rows);
        assert_eq!(list.len(), 3);
        assert_eq!(list[1].find_class("col-name").len(), LIST_CAP);
        assert_eq!(list[2].text_content(), format!("Show all {}", LIST_CAP + 5));
        assert_eq!(hidden_rows(&rows).len(), 5);
        assert_eq!(hidden_rows(&rows[..3]).len(), 0);
        let none = row_list("T", "x", &[]);
        assert_eq!(none[1].text_content(), "none");
        assert_eq!(
            reading_text(" https://x/a\u{7} "),
            "Reading the header of https://x/a\\u{7}…"
        );
    }

    #[test]
    fn the_status_line_says_where_a_comparison_is() {
        let said = |s: &Status| (s.text().to_string(), s.class(), s.state());
        let muted = "compare-status muted";
        assert_eq!(said(&Status::Idle), (String::new(), muted, None));
        let reading = Status::Loading(reading_text("https://x/b.gguf"));
        assert_eq!(
            said(&reading),
            (
                "Reading the header of https://x/b.gguf…".into(),
                muted,
                Some("loading")
            )
        );
        assert_eq!(said(&Status::Ready), (String::new(), muted, Some("ready")));
        assert_eq!(
            said(&Status::Failed(NO_MODEL.into())),
            (NO_MODEL.into(), "compare-status warn", Some("error"))
        );
    }
}
