//! The tensor table: filtering, sorting and cell text, over any number of rows.
//!
//! The table keeps the row data once and works on index lists: `sorted` (all rows in the
//! current sort order) and `visible` (the sorted rows that pass the filter). Changing the filter
//! re-filters the sorted list (no re-sort); changing the sort re-sorts once. 250,000 rows stay
//! fast; the DOM only ever draws the window [`crate::view::viewport`] picks.

use std::cmp::Ordering;

use crate::summary::TensorRow;
use crate::text;

/// A column of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Column {
    /// File order.
    Index,
    /// Tensor name.
    Name,
    /// Type label.
    Type,
    /// Shape.
    Shape,
    /// Element count.
    Elements,
    /// Byte size.
    Bytes,
    /// The file holding the tensor, for a model merged from several files (hidden otherwise).
    Part,
    /// Offset of the tensor's data in its file.
    Offset,
}

impl Column {
    /// Every column, in display order.
    pub const ALL: [Column; 8] = [
        Column::Index,
        Column::Name,
        Column::Type,
        Column::Shape,
        Column::Elements,
        Column::Bytes,
        Column::Part,
        Column::Offset,
    ];

    /// Header text.
    pub fn title(self) -> &'static str {
        match self {
            Column::Index => "#",
            Column::Name => "name",
            Column::Type => "type",
            Column::Shape => "shape",
            Column::Elements => "elements",
            Column::Bytes => "bytes",
            Column::Part => "part",
            Column::Offset => "offset",
        }
    }

    /// Short class name for styling (`col-name`).
    pub fn class(self) -> &'static str {
        match self {
            Column::Index => "col-index",
            Column::Name => "col-name",
            Column::Type => "col-type",
            Column::Shape => "col-shape",
            Column::Elements => "col-elements",
            Column::Bytes => "col-bytes",
            Column::Part => "col-part",
            Column::Offset => "col-offset",
        }
    }

    /// Numbers are right-aligned.
    pub fn numeric(self) -> bool {
        matches!(
            self,
            Column::Index | Column::Elements | Column::Bytes | Column::Offset
        )
    }

    /// Direction of the first click: big things first for sizes, A→Z for text.
    fn first_ascending(self) -> bool {
        !matches!(self, Column::Elements | Column::Bytes)
    }
}

/// The current sort.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sort {
    /// The column sorted by.
    pub column: Column,
    /// Ascending (true) or descending.
    pub ascending: bool,
}

/// Compares strings with runs of digits compared as numbers: `blk.2` < `blk.10`.
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (mut x, mut y) = (a.as_bytes(), b.as_bytes());
    loop {
        match (x.first(), y.first()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(p), Some(q)) if p.is_ascii_digit() && q.is_ascii_digit() => {
                let dx = x.iter().take_while(|c| c.is_ascii_digit()).count();
                let dy = y.iter().take_while(|c| c.is_ascii_digit()).count();
                let (nx, ny) = (&x[..dx], &y[..dy]);
                let tx = trim_zeros(nx);
                let ty = trim_zeros(ny);
                let ord = tx.len().cmp(&ty.len()).then_with(|| tx.cmp(ty));
                if ord != Ordering::Equal {
                    return ord;
                }
                x = &x[dx..];
                y = &y[dy..];
            }
            (Some(p), Some(q)) => {
                if p != q {
                    return p.cmp(q);
                }
                x = &x[1..];
                y = &y[1..];
            }
        }
    }
}

fn trim_zeros(d: &[u8]) -> &[u8] {
    let z = d.iter().take_while(|&&c| c == b'0').count();
    &d[z.min(d.len().saturating_sub(1))..]
}

/// The tensor table's state.
#[derive(Debug, Clone)]
pub struct TensorTable {
    rows: Vec<TensorRow>,
    /// Lower-cased `name type` per row, for the filter.
    haystack: Vec<String>,
    sorted: Vec<u32>,
    visible: Vec<u32>,
    sort: Sort,
    filter: Vec<String>,
    /// Shapes shown (and sorted) last dimension first: GGUF's ggml order reversed to the
    /// PyTorch order people know from model code.
    reversed_shapes: bool,
    /// File names of the parts of a model merged from several files (empty for one file).
    part_names: Vec<String>,
}

impl TensorTable {
    /// A table over `rows`, in file order, unfiltered.
    pub fn new(rows: Vec<TensorRow>) -> Self {
        let haystack = rows
            .iter()
            .map(|r| format!("{} {}", r.name, r.dtype).to_lowercase())
            .collect();
        let sorted: Vec<u32> = (0..rows.len() as u32).collect();
        TensorTable {
            visible: sorted.clone(),
            sorted,
            rows,
            haystack,
            sort: Sort {
                column: Column::Index,
                ascending: true,
            },
            filter: Vec::new(),
            reversed_shapes: false,
            part_names: Vec::new(),
        }
    }

    /// A table over the rows of a model merged from several files, whose parts (1-based in
    /// [`TensorRow::part`]) are the files `part_names`, in order. The part column shows a
    /// tensor's file name and sorts by part number.
    pub fn with_parts(rows: Vec<TensorRow>, part_names: Vec<String>) -> Self {
        TensorTable {
            part_names,
            ..TensorTable::new(rows)
        }
    }

    /// The columns shown: all of them, without the part column for a single file.
    pub fn columns(&self) -> Vec<Column> {
        let merged = !self.part_names.is_empty() || self.rows.iter().any(|r| r.part.is_some());
        Column::ALL
            .into_iter()
            .filter(|&c| merged || c != Column::Part)
            .collect()
    }

    /// Tooltip of a cell of the row at visible position `pos` (see [`cell_title`]); the part
    /// column's names the part's number and its full path.
    pub fn title(&self, pos: usize, c: Column) -> Option<String> {
        let r = self.row(pos)?;
        match (c, r.part) {
            (Column::Part, Some(p)) => Some(format!(
                "part {p} of {}: {}",
                self.part_names.len().max(p as usize),
                self.part_name(p).map_or(String::new(), |n| text::escape(n))
            )),
            _ => cell_title(r, c),
        }
    }

    /// The file name of 1-based part `p` (`None` for 0 or past the names).
    fn part_name(&self, p: u32) -> Option<&String> {
        self.part_names.get((p as usize).checked_sub(1)?)
    }

    /// Shows shapes reversed (or as stored); re-sorts when sorted by shape.
    pub fn set_reversed_shapes(&mut self, on: bool) {
        self.reversed_shapes = on;
        if self.sort.column == Column::Shape {
            self.set_sort(self.sort);
        }
    }

    /// Whether shapes are shown reversed.
    pub fn reversed_shapes(&self) -> bool {
        self.reversed_shapes
    }

    /// All rows (file order).
    pub fn total(&self) -> usize {
        self.rows.len()
    }

    /// Rows passing the filter.
    pub fn len(&self) -> usize {
        self.visible.len()
    }

    /// No row passes the filter.
    pub fn is_empty(&self) -> bool {
        self.visible.is_empty()
    }

    /// The row at visible position `pos`.
    pub fn row(&self, pos: usize) -> Option<&TensorRow> {
        self.visible.get(pos).map(|&i| &self.rows[i as usize])
    }

    /// File index of the row at visible position `pos`.
    pub fn file_index(&self, pos: usize) -> Option<usize> {
        self.visible.get(pos).map(|&i| i as usize)
    }

    /// Visible position of the tensor with file index `file_index` (`None`: filtered out or
    /// no such tensor).
    pub fn position_of(&self, file_index: usize) -> Option<usize> {
        let i = u32::try_from(file_index).ok()?;
        self.visible.iter().position(|&v| v == i)
    }

    /// The current sort.
    pub fn sort(&self) -> Sort {
        self.sort
    }

    /// Sets the filter: whitespace-separated words that must all occur in the name or the
    /// type (case-insensitive); a word `type:Q4_K` matches that type exactly (so `type:F16`
    /// leaves out BF16; spaces in a type label are written `_`). Returns whether the visible
    /// rows may have changed.
    pub fn set_filter(&mut self, text: &str) -> bool {
        let words: Vec<String> = text.split_whitespace().map(str::to_lowercase).collect();
        if words == self.filter {
            return false;
        }
        self.filter = words;
        self.refilter();
        true
    }

    fn refilter(&mut self) {
        if self.filter.is_empty() {
            self.visible.clone_from(&self.sorted);
            return;
        }
        let hay = &self.haystack;
        let rows = &self.rows;
        let words = &self.filter;
        let matches = |i: usize, w: &str| match w.strip_prefix(TYPE_PREFIX) {
            Some(t) if !t.is_empty() => type_key(&rows[i].dtype) == t,
            _ => hay[i].contains(w),
        };
        self.visible = self
            .sorted
            .iter()
            .copied()
            .filter(|&i| words.iter().all(|w| matches(i as usize, w)))
            .collect();
    }

    /// A click on a column header: sort by it, or flip the direction if it is already the sort.
    pub fn click(&mut self, column: Column) {
        let ascending = if self.sort.column == column {
            !self.sort.ascending
        } else {
            column.first_ascending()
        };
        self.set_sort(Sort { column, ascending });
    }

    /// Sorts by `sort`; ties keep file order.
    pub fn set_sort(&mut self, sort: Sort) {
        self.sort = sort;
        let rows = &self.rows;
        let rev = self.reversed_shapes;
        let key = |a: &TensorRow, b: &TensorRow| -> Ordering {
            match sort.column {
                Column::Index => Ordering::Equal,
                Column::Name => natural_cmp(&a.name, &b.name),
                Column::Type => natural_cmp(&a.dtype, &b.dtype),
                Column::Shape => a.shape.len().cmp(&b.shape.len()).then_with(|| {
                    if rev {
                        a.shape.iter().rev().cmp(b.shape.iter().rev())
                    } else {
                        a.shape.cmp(&b.shape)
                    }
                }),
                Column::Elements => a.elements.cmp(&b.elements),
                Column::Bytes => a.bytes.cmp(&b.bytes),
                Column::Part => a.part.cmp(&b.part),
                // Offsets are per file: in a set, by file first.
                Column::Offset => a.part.cmp(&b.part).then(a.offset.cmp(&b.offset)),
            }
        };
        let mut order: Vec<u32> = (0..rows.len() as u32).collect();
        order.sort_by(|&i, &j| {
            let o = key(&rows[i as usize], &rows[j as usize]);
            let o = if sort.column == Column::Index {
                i.cmp(&j)
            } else {
                o
            };
            let o = if sort.ascending { o } else { o.reverse() };
            o.then(i.cmp(&j))
        });
        self.sorted = order;
        self.refilter();
    }

    /// Header text of a column, with an arrow on the sorted one.
    pub fn header(&self, column: Column) -> String {
        if self.sort.column == column {
            format!(
                "{} {}",
                column.title(),
                if self.sort.ascending { "▲" } else { "▼" }
            )
        } else {
            column.title().to_string()
        }
    }

    /// `aria-sort` value of a column header.
    pub fn aria_sort(&self, column: Column) -> &'static str {
        match (self.sort.column == column, self.sort.ascending) {
            (false, _) => "none",
            (true, true) => "ascending",
            (true, false) => "descending",
        }
    }

    /// The text of every cell of the row at visible position `pos`.
    pub fn cells(&self, pos: usize) -> Option<[String; 8]> {
        let i = *self.visible.get(pos)?;
        let r = &self.rows[i as usize];
        Some(Column::ALL.map(|c| match (c, r.part) {
            // The part's file name (its last path segment; the tooltip has the whole path).
            (Column::Part, Some(p)) => match self.part_name(p) {
                Some(n) => text::escape(n.rsplit('/').next().unwrap_or(n)),
                None => cell_text(r, i as usize, c, self.reversed_shapes),
            },
            _ => cell_text(r, i as usize, c, self.reversed_shapes),
        }))
    }

    /// "236 tensors" / "12 of 236 tensors".
    pub fn count_text(&self) -> String {
        if self.filter.is_empty() {
            format!("{} tensors", text::thousands(self.total() as u64))
        } else {
            format!(
                "{} of {} tensors",
                text::thousands(self.len() as u64),
                text::thousands(self.total() as u64)
            )
        }
    }
}

/// What the tensor table's body says when it shows no row: `no matching tensors` when the
/// filter hides every row of a table that has some; for a table without rows, why there are
/// none: the header announces `announced` tensors, and `stopped` says parsing stopped before
/// the end of the header (so before or inside its tensor list).
pub fn empty_text(rows: usize, announced: u64, stopped: bool) -> String {
    match (rows, announced, stopped) {
        (1.., _, _) => "no matching tensors".into(),
        (0, 0, false) => "This file holds no tensors.".into(),
        (0, 0, true) => {
            "No tensors: the header announces none, and parsing stopped before its tensor list."
                .into()
        }
        (0, n, _) => format!(
            "No tensors could be read: the header announces {}, but parsing stopped before its \
             tensor list.",
            text::thousands(n)
        ),
    }
}

/// The note above a table cut short by a parse error.
pub fn partial_text(read: usize, announced: u64) -> String {
    format!(
        "The header announces {} tensors; {} were read before the error.",
        text::thousands(announced),
        text::thousands(read as u64)
    )
}

const TYPE_PREFIX: &str = "type:";

/// Tooltip of the filter box.
pub const FILTER_HINT: &str =
    "Words that must all appear in the name or type, e.g. \"ffn_down q4\"; type:Q4_K lists one type exactly";

/// A type label as written after `type:` in the filter: lower case, spaces as `_`.
fn type_key(dtype: &str) -> String {
    dtype.to_lowercase().replace(' ', "_")
}

/// The filter text that lists exactly the tensors of one type (`type:Q4_K`).
pub fn type_filter(dtype: &str) -> String {
    format!("{TYPE_PREFIX}{}", dtype.replace(' ', "_"))
}

/// The text of one cell (`reversed`: shapes last dimension first).
pub fn cell_text(r: &TensorRow, file_index: usize, c: Column, reversed: bool) -> String {
    match c {
        Column::Index => file_index.to_string(),
        Column::Name => text::escape(&r.name),
        Column::Type => text::escape(&r.dtype),
        Column::Shape => {
            let mut dims: Vec<String> = r.shape.iter().map(u64::to_string).collect();
            if reversed {
                dims.reverse();
            }
            format!("[{}]", dims.join(", "))
        }
        Column::Elements => r.elements.map_or("overflow".into(), text::thousands),
        Column::Bytes => r.bytes.map_or("?".into(), text::bytes),
        // In a model merged from several files, the offset is within the tensor's part.
        Column::Offset => text::thousands(r.offset),
        Column::Part => r.part.map_or(String::new(), |p| format!("part {p}")),
    }
}

/// Tooltip of a cell: the full name and any note on the tensor, exact byte counts, hex offsets.
pub fn cell_title(r: &TensorRow, c: Column) -> Option<String> {
    match c {
        // The full name (the cell may cut it off), and what is wrong or estimated, if anything.
        Column::Name => Some(match &r.note {
            Some(n) => format!("{}\n{n}", text::escape(&r.name)),
            None => text::escape(&r.name),
        }),
        Column::Bytes => r.bytes.map(|b| format!("{} bytes", text::thousands(b))),
        Column::Offset => Some(match r.part {
            Some(p) => format!("0x{:x} in part {p}", r.offset),
            None => format!("0x{:x}", r.offset),
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An empty table says why: the filter (rows hidden), a file without tensors, or a header
    /// that stopped before its tensor list (the damaged vocabulary file announces none and
    /// stops in its metadata), never "no matching tensors" when nothing was filtered.
    #[test]
    fn an_empty_table_says_why() {
        assert_eq!(empty_text(3, 3, false), "no matching tensors");
        assert_eq!(empty_text(3, 9, true), "no matching tensors");
        assert_eq!(empty_text(0, 0, false), "This file holds no tensors.");
        assert_eq!(
            empty_text(0, 0, true),
            "No tensors: the header announces none, and parsing stopped before its tensor list."
        );
        assert_eq!(
            empty_text(0, 1200, true),
            "No tensors could be read: the header announces 1,200, but parsing stopped before \
             its tensor list."
        );
    }

    fn row(i: usize, dtype: &str) -> TensorRow {
        TensorRow {
            name: format!("blk.{}.ffn_{}.weight", i / 3, ["up", "down", "gate"][i % 3]),
            dtype: dtype.into(),
            shape: vec![64, (i as u64 % 7) + 1],
            elements: Some(64 * ((i as u64 % 7) + 1)),
            offset: 1000 + i as u64 * 4096,
            bytes: Some(((i * 7919) % 10007) as u64),
            note: None,
            part: None,
        }
    }

    fn synthetic(n: usize) -> Vec<TensorRow> {
        (0..n)
            .map(|i| row(i, ["Q4_K", "F32", "Q6_K", "Q8_0"][i % 4]))
            .collect()
    }

    #[test]
    fn natural_order_compares_numbers_as_numbers() {
        let mut v = vec!["blk.10.a", "blk.2.a", "blk.1.b", "blk.1.a", "blk.02.c", "a"];
        v.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(
            v,
            ["a", "blk.1.a", "blk.1.b", "blk.2.a", "blk.02.c", "blk.10.a"]
        );
        assert_eq!(natural_cmp("x00", "x0"), Ordering::Equal);
    }

    #[test]
    fn clicks_sort_and_flip() {
        let mut t = TensorTable::new(synthetic(30));
        t.click(Column::Bytes);
        assert_eq!(
            t.sort(),
            Sort {
                column: Column::Bytes,
                ascending: false
            }
        );
        let b: Vec<u64> = (0..t.len())
            .map(|p| t.row(p).unwrap().bytes.unwrap())
            .collect();
        assert!(b.windows(2).all(|w| w[0] >= w[1]));
        assert_eq!(t.header(Column::Bytes), "bytes ▼");
        assert_eq!(t.aria_sort(Column::Bytes), "descending");
        t.click(Column::Bytes);
        let b: Vec<u64> = (0..t.len())
            .map(|p| t.row(p).unwrap().bytes.unwrap())
            .collect();
        assert!(b.windows(2).all(|w| w[0] <= w[1]));
        t.click(Column::Name);
        assert_eq!(t.row(0).unwrap().name, "blk.0.ffn_down.weight");
        assert_eq!(t.row(29).unwrap().name, "blk.9.ffn_up.weight");
        t.click(Column::Index);
        assert_eq!(t.file_index(0), Some(0));
        t.click(Column::Index);
        assert_eq!(t.file_index(0), Some(29));
    }

    #[test]
    fn filter_words_all_match_name_or_type() {
        let mut t = TensorTable::new(synthetic(40));
        assert!(t.set_filter("blk.1. q4_k"));
        let names: Vec<&str> = (0..t.len())
            .map(|p| t.row(p).unwrap().name.as_str())
            .collect();
        assert!(names.iter().all(|n| n.starts_with("blk.1")));
        assert!((0..t.len()).all(|p| t.row(p).unwrap().dtype == "Q4_K"));
        assert!(!t.set_filter("  blk.1.   Q4_K "));
        assert_eq!(t.count_text(), format!("{} of 40 tensors", t.len()));
        t.click(Column::Offset);
        assert!(t.set_filter(""));
        assert_eq!(t.len(), 40);
        assert_eq!(t.count_text(), "40 tensors");
    }

    #[test]
    fn position_of_follows_sort_and_filter() {
        let mut t = TensorTable::new(synthetic(40));
        assert_eq!(t.position_of(7), Some(7));
        t.click(Column::Index);
        if t.position_of(39) != Some(0) {
            t.click(Column::Index);
        }
        assert_eq!(t.aria_sort(Column::Index), "descending");
        assert_eq!(t.position_of(39), Some(0));
        assert_eq!(t.position_of(0), Some(39));
        assert!(t.set_filter("blk.1."));
        let kept = t.file_index(0).unwrap();
        assert_eq!(t.position_of(kept), Some(0));
        assert!((0..40).filter(|&i| t.position_of(i).is_some()).count() == t.len());
        assert_eq!(t.position_of(40), None);
        assert_eq!(t.position_of(usize::MAX), None);
    }

    #[test]
    fn shapes_can_be_shown_in_pytorch_order() {
        let mut rows = synthetic(3);
        rows[0].shape = vec![640, 262144];
        rows[1].shape = vec![2048, 640];
        rows[2].shape = vec![640, 2048];
        let mut t = TensorTable::new(rows);
        assert_eq!(t.cells(0).unwrap()[3], "[640, 262144]");
        t.click(Column::Shape);
        assert_eq!(t.file_index(0), Some(2)); // [640, 2048] < [640, 262144] < [2048, 640]
        t.set_reversed_shapes(true);
        assert!(t.reversed_shapes());
        assert_eq!(t.cells(0).unwrap()[3], "[640, 2048]"); // row 1 reversed sorts first now
        assert_eq!(t.file_index(0), Some(1));
        assert_eq!(t.file_index(2), Some(0));
    }

    #[test]
    fn type_words_match_one_type_exactly() {
        let mut rows = synthetic(8);
        rows[0].dtype = "BF16".into();
        rows[1].dtype = "F16".into();
        rows[2].dtype = "type 99 (unknown)".into();
        let mut t = TensorTable::new(rows);
        t.set_filter(&type_filter("F16"));
        assert_eq!((t.len(), t.file_index(0)), (1, Some(1)));
        t.set_filter("f16");
        assert_eq!(t.len(), 2);
        t.set_filter(&type_filter("type 99 (unknown)"));
        assert_eq!((t.len(), t.file_index(0)), (1, Some(2)));
        t.set_filter(&format!("{} blk.2", type_filter("Q4_K")));
        assert!((0..t.len()).all(|p| t.row(p).unwrap().dtype == "Q4_K"));
        t.set_filter("type:");
        assert_eq!(t.len(), 0, "a bare type: is a plain word no name contains");
    }

    #[test]
    fn cells_are_plain_text() {
        let mut r = row(4, "Q4_K");
        r.name = "evil\n<b>".into();
        r.elements = None;
        r.bytes = Some(2560);
        let t = TensorTable::new(vec![r.clone()]);
        let c = t.cells(0).unwrap();
        assert_eq!(c[0], "0");
        assert_eq!(c[1], "evil\\n<b>");
        assert_eq!(c[3], "[64, 5]");
        assert_eq!(c[4], "overflow");
        assert_eq!(c[5], "2.5 KiB");
        assert_eq!(c[6], "");
        assert_eq!(c[7], "17,384");
        assert_eq!(t.columns().len(), 7, "no part column for a single file");
        assert_eq!(cell_title(&r, Column::Offset).as_deref(), Some("0x43e8"));
        assert_eq!(cell_title(&r, Column::Name).as_deref(), Some("evil\\n<b>"));
        r.note = Some("size estimated".into());
        assert_eq!(
            cell_title(&r, Column::Name).as_deref(),
            Some("evil\\n<b>\nsize estimated")
        );
        assert!(t.cells(1).is_none());
    }

    #[test]
    fn merged_models_have_a_sortable_part_column() {
        let mut rows = synthetic(6);
        for (i, r) in rows.iter_mut().enumerate() {
            r.part = Some([2, 1, 3, 1, 2, 3][i]);
        }
        let names: Vec<String> = (1..=3)
            .map(|p| format!("sub/model-{p:05}-of-00003.safetensors"))
            .collect();
        let mut t = TensorTable::with_parts(rows, names);
        assert_eq!(t.columns(), Column::ALL.to_vec());
        assert_eq!(t.cells(0).unwrap()[6], "model-00002-of-00003.safetensors");
        assert_eq!(
            t.cells(0).unwrap()[7],
            "1,000",
            "the offset stays a plain number"
        );
        assert_eq!(
            t.title(0, Column::Part).as_deref(),
            Some("part 2 of 3: sub/model-00002-of-00003.safetensors")
        );
        assert_eq!(
            t.title(0, Column::Offset).as_deref(),
            Some("0x3e8 in part 2")
        );
        t.click(Column::Part);
        let order: Vec<usize> = (0..t.len()).map(|p| t.file_index(p).unwrap()).collect();
        assert_eq!(
            order,
            [1, 3, 0, 4, 2, 5],
            "by part, file order within a part"
        );
        t.click(Column::Part);
        let order: Vec<usize> = (0..t.len()).map(|p| t.file_index(p).unwrap()).collect();
        assert_eq!(order, [2, 5, 0, 4, 1, 3]);
    }

    #[test]
    fn a_quarter_million_rows_sort_and_filter() {
        let n = 250_000;
        let mut t = TensorTable::new(synthetic(n));
        assert_eq!(t.len(), n);
        t.click(Column::Name);
        assert_eq!(t.len(), n);
        let first = t.row(0).unwrap().name.clone();
        let last = t.row(n - 1).unwrap().name.clone();
        assert_eq!(first, "blk.0.ffn_down.weight");
        assert_eq!(last, format!("blk.{}.ffn_up.weight", (n - 1) / 3));
        for p in (1..n).step_by(997) {
            let a = &t.row(p - 1).unwrap().name;
            let b = &t.row(p).unwrap().name;
            assert_ne!(natural_cmp(a, b), Ordering::Greater, "{a} > {b}");
        }
        t.set_filter("blk.8333");
        // blk.8333.* (3 rows), blk.83330..83332 (9) and blk.83333 (row 249,999 only)
        assert_eq!(t.len(), 3 + 9 + 1);
        t.set_filter("f32");
        assert_eq!(t.len(), n / 4);
        t.click(Column::Bytes);
        assert_eq!(t.len(), n / 4);
    }
}
