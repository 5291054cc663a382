//! The tensor table card as [`Node`]s: its frame (the count, the filter box, the shape-order
//! note with its toggle, the note on a table cut short, the sortable headers and an empty
//! virtualised body) and one row of the body for a list position, which the page draws for
//! the rows in view ([`crate::view::virtual_body::body_rows`]).

use crate::format::ggml_type::type_tooltip;
use crate::summary::TensorRow;
use crate::view::colors::{dtype_color, text_on};
use crate::view::facts::{shape_order_note, shape_toggle_label};
use crate::view::node::{self, Node};
use crate::view::tensors::{empty_text, partial_text, Column, TensorTable, FILTER_HINT};
use crate::view::virtual_body::{self, Listing};

/// Milliseconds the filter box waits for typing to pause before filtering a table of `total`
/// tensors: 120 over 20,000 (each run re-filters them all), else 0 (filters at once).
pub fn filter_delay_ms(total: usize) -> u32 {
    if total > 20_000 {
        120
    } else {
        0
    }
}

/// A column's cell class: `col-name`, plus `num` for a numeric column.
fn cell_class(c: Column) -> String {
    format!("{}{}", c.class(), if c.numeric() { " num" } else { "" })
}

/// The card (`section.card.tensors`): the head's count (`span.count`) and filter box
/// (`input.filter`, [`FILTER_HINT`] as tooltip); in the body the shape note (`p.note`: its
/// text in a `span`, and for GGUF the order toggle, a `button.link`), a warning when fewer
/// than the `announced` tensors were read, and the table (`data-testid="tensor-table"`) in
/// `div.tensor-scroll` in a `div.table-frame` with its fades ([`virtual_body::with_fades`]),
/// a header per column of `table` (`th` with `aria-sort` holding `button.sort`), its body
/// empty. Shapes as stored (not reversed).
pub fn card(table: &TensorTable, format: &str, announced: u64) -> Node {
    let columns = table.columns();
    let mut card = node::card("Tensors", "tensors");
    card.head()
        .push(node::text("span", "count muted", &table.count_text()));
    card.head().push(
        node::search_input("filter by name or type", "filter tensors by name or type")
            .attr("title", FILTER_HINT),
    );
    let mut note =
        node::el("p", "note").child(node::text("span", "", shape_order_note(format, false)));
    if let Some(label) = shape_toggle_label(format, false) {
        note.push(node::text("button", "link", label).attr("type", "button"));
    }
    let body = card.body();
    body.push(note);
    if (table.total() as u64) < announced {
        body.push(node::text(
            "p",
            "note warn",
            &partial_text(table.total(), announced),
        ));
    }
    let class = if columns.contains(&Column::Part) {
        "tensor-table with-parts"
    } else {
        "tensor-table"
    };
    let cols: Vec<&str> = columns.iter().map(|c| c.class()).collect();
    let head = columns.iter().map(|&c| {
        node::el("th", &cell_class(c))
            .attr("scope", "col")
            .attr("aria-sort", table.aria_sort(c))
            .child(node::text("button", "sort", &table.header(c)).attr("type", "button"))
    });
    body.push(virtual_body::with_fades(virtual_body::frame(
        "tensor-scroll",
        "tensor table",
        class,
        "tensor-table",
        &cols,
        head,
    )));
    card
}

/// The row at list position `pos` (the body adds its place, stripe and tab stop): a cell per
/// column of `columns` (the type as a coloured chip with its block layout as tooltip; the name
/// cell `has-note` when the tensor has a note). `openable` rows carry `data-file-index` and
/// class `openable`; the row of the tensor `selected` (a file index) is `aria-selected`.
pub fn row(
    table: &TensorTable,
    openable: bool,
    columns: &[Column],
    selected: Option<usize>,
    pos: usize,
) -> Option<Node> {
    let cells = table.cells(pos)?;
    let r = table.row(pos)?;
    let file_index = table.file_index(pos);
    let mut tr = node::el("tr", "");
    let mut classes = Vec::new();
    if let (true, Some(i)) = (openable, file_index) {
        tr = tr
            .attr("data-file-index", i.to_string())
            .attr("title", "click or press Enter to preview the values");
        classes.push("openable");
    }
    if selected.is_some() && file_index == selected {
        tr = tr.attr("aria-selected", "true");
        classes.push("selected");
    }
    tr.class = classes.join(" ");
    for (&c, text) in Column::ALL.iter().zip(cells) {
        if !columns.contains(&c) {
            continue;
        }
        let mut class = cell_class(c);
        if c == Column::Name && r.note.is_some() {
            class.push_str(" has-note");
        }
        let mut td = node::el("td", &class);
        if c == Column::Type {
            let bg = dtype_color(&r.dtype);
            td.push(
                node::text("span", "chip", &text)
                    .style("background", bg)
                    .style("color", text_on(bg)),
            );
        } else {
            td = td.text(text);
        }
        // Else the type's block size, bytes per block and bits per weight.
        let title = table.title(pos, c).or_else(|| {
            (c == Column::Type)
                .then(|| type_tooltip(&r.dtype))
                .flatten()
        });
        if let Some(t) = title {
            td = td.attr("title", t);
        }
        tr.push(td);
    }
    Some(tr)
}

/// What the tensor table's body draws ([`Listing`]): the table (its sort and filter), the
/// columns shown, whether rows open a preview and which tensor's preview is open.
pub struct TableBody {
    /// The rows, sorted and filtered.
    pub table: TensorTable,
    /// The columns shown (no part column for a single file).
    pub columns: Vec<Column>,
    /// Rows open a preview (with their file index) once a listener is attached.
    pub openable: bool,
    /// The file index of the tensor whose preview is open (its row is marked selected).
    pub selected: Option<usize>,
    /// What the body says with no row ([`empty_text`]).
    empty: String,
}

impl TableBody {
    /// The body for `rows`; `part_names` are the files of a model merged from several (empty
    /// for one file: then there is no part column); `announced`: the tensors the header
    /// announces; `stopped`: parsing stopped before the header's end.
    pub fn new(
        rows: Vec<TensorRow>,
        part_names: Vec<String>,
        announced: u64,
        stopped: bool,
    ) -> TableBody {
        let empty = empty_text(rows.len(), announced, stopped);
        let table = TensorTable::with_parts(rows, part_names);
        TableBody {
            columns: table.columns(),
            table,
            openable: false,
            selected: None,
            empty,
        }
    }
}

impl Listing for TableBody {
    fn listed(&self) -> usize {
        self.table.len()
    }

    fn row(&self, pos: usize) -> Option<Node> {
        row(
            &self.table,
            self.openable,
            &self.columns,
            self.selected,
            pos,
        )
    }

    fn count_line(&self) -> String {
        self.table.count_text()
    }

    fn empty(&self) -> &str {
        &self.empty
    }

    fn search(&mut self, text: &str) -> bool {
        self.table.set_filter(text)
    }

    /// The window's height: before the first draw the container is only as tall as its
    /// header; the window's height bounds it (CSS caps the container at 70vh).
    fn min_view(&self, window_h: impl FnOnce() -> f64) -> f64 {
        window_h()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows() -> Vec<TensorRow> {
        let t = |name: &str, dtype: &str, note: Option<&str>| TensorRow {
            name: name.into(),
            dtype: dtype.into(),
            shape: vec![4, 2],
            elements: Some(8),
            offset: 32,
            bytes: Some(32),
            note: note.map(str::to_string),
            part: None,
        };
        vec![
            t("a.weight", "Q4_K", None),
            t("b.weight", "F32", Some("out of the file")),
        ]
    }

    #[test]
    fn the_card_frame() {
        let table = TensorTable::new(rows());
        let c = card(&table, "gguf", 3);
        assert_eq!(c.class, "card tensors");
        assert_eq!(c.find_class("count")[0].text.as_deref(), Some("2 tensors"));
        let filter = c.descendants().into_iter().find(|n| n.tag == "input");
        assert_eq!(filter.unwrap().get_attr("title"), Some(FILTER_HINT));
        let note = &c.find_class("note")[0];
        assert_eq!(note.children[1].text.as_deref(), Some("show PyTorch order"));
        assert_eq!(
            c.find_class("warn")[0].text.as_deref(),
            Some("The header announces 3 tensors; 2 were read before the error.")
        );
        let t = c.find_testid("tensor-table").unwrap();
        assert_eq!(t.class, "tensor-table");
        let ths = &t.children[1].children[0].children;
        assert_eq!(ths.len(), 7);
        assert_eq!(ths[0].get_attr("aria-sort"), Some("ascending"));
        assert_eq!(ths[0].children[0].text.as_deref(), Some("# ▲"));
        assert_eq!(ths[4].class, "col-elements num");
        assert_eq!(ths[4].get_attr("aria-sort"), Some("none"));
        let st = card(&table, "safetensors", 2);
        assert_eq!(st.find_class("note")[0].children.len(), 1);
        assert!(st.find_class("warn").is_empty());
    }

    #[test]
    fn rows_are_chips_titles_and_marks() {
        let table = TensorTable::new(rows());
        let cols = table.columns();
        let plain = row(&table, false, &cols, None, 0).unwrap();
        assert_eq!(plain.class, "");
        assert_eq!(plain.get_attr("data-file-index"), None);
        assert_eq!(plain.children.len(), 7);
        let chip = &plain.children[2].children[0];
        assert_eq!(chip.class, "chip");
        assert_eq!(chip.text.as_deref(), Some("Q4_K"));
        assert_eq!(
            chip.styles[0],
            ("background", dtype_color("Q4_K").to_string())
        );
        assert_eq!(
            plain.children[2].get_attr("title"),
            type_tooltip("Q4_K").as_deref()
        );
        assert_eq!(plain.children[5].get_attr("title"), Some("32 bytes"));
        let open = row(&table, true, &cols, Some(1), 1).unwrap();
        assert_eq!(open.class, "openable selected");
        assert_eq!(open.get_attr("data-file-index"), Some("1"));
        assert_eq!(open.get_attr("aria-selected"), Some("true"));
        assert_eq!(open.children[1].class, "col-name has-note");
        assert_eq!(
            open.children[1].get_attr("title"),
            Some("b.weight\nout of the file")
        );
        assert!(row(&table, true, &cols, None, 2).is_none());
    }

    #[test]
    fn the_body_lists_searches_and_marks_the_rows() {
        let mut body = TableBody::new(rows(), Vec::new(), 2, false);
        assert_eq!(body.columns.len(), 7);
        assert_eq!(
            (body.listed(), body.count_line().as_str()),
            (2, "2 tensors")
        );
        assert_eq!(body.min_view(|| 640.0), 640.0);
        let plain = body.row(1).unwrap();
        assert_eq!(plain.class, "");
        body.openable = true;
        body.selected = Some(1);
        let open = body.row(1).unwrap();
        assert_eq!(open.class, "openable selected");
        assert_eq!(open.get_attr("data-file-index"), Some("1"));
        assert!(body.search("type:F32"));
        assert!(!body.search("type:F32"));
        assert_eq!(body.count_line(), "1 of 2 tensors");
        assert_eq!(
            body.row(0).unwrap().children[1].text.as_deref(),
            Some("b.weight")
        );
        assert!(body.search("nothing"));
        assert_eq!((body.listed(), body.empty()), (0, "no matching tensors"));
        let none = TableBody::new(Vec::new(), Vec::new(), 0, false);
        assert_eq!(none.empty(), "This file holds no tensors.");
    }

    #[test]
    fn only_a_big_table_waits_for_typing_to_pause() {
        assert_eq!(filter_delay_ms(200), 0);
        assert_eq!(filter_delay_ms(20_000), 0);
        assert_eq!(filter_delay_ms(250_000), 120);
    }
}
