//! A virtualised table as [`Node`]s (the tensor table, the token and merges lists): its frame
//! (a keyboard-reachable scroll container holding the table, its `<col>`s, the header row and an
//! empty `<tbody>`) and, for a [`Window`] of the list, the body's rows: a top spacer, the rows in
//! view with their place (`aria-rowindex`), stripe and tab stop, a bottom spacer, and the empty
//! row when nothing is listed. The page keeps the scroll position and the focus; this says
//! what is drawn for them.

use crate::view::node::{self, Node};
use crate::view::viewport::Window;

/// The scroll container (`div.table-scroll.<scroller>`, `tabindex="0"`, named `label`) holding
/// `table.<class>` (`data-testid` = `testid`) with a `<col>` per class of `cols`, a `thead`
/// whose one row (`aria-rowindex="1"`) holds `head`, and an empty `tbody` for [`body_rows`].
pub fn frame(
    scroller: &str,
    label: &str,
    class: &str,
    testid: &str,
    cols: &[&str],
    head: impl IntoIterator<Item = Node>,
) -> Node {
    node::el("div", &format!("table-scroll {scroller}"))
        .attr("tabindex", "0")
        .attr("aria-label", label)
        .child(
            node::el("table", class)
                .testid(testid)
                .child(node::el("colgroup", "").children(cols.iter().map(|c| node::el("col", c))))
                .child(
                    node::el("thead", "")
                        .child(node::el("tr", "").attr("aria-rowindex", "1").children(head)),
                )
                .child(node::el("tbody", "")),
        )
}

/// A spacer row standing in for the rows not drawn: `height` CSS px across `columns` columns,
/// hidden from screen readers.
pub fn spacer(height: f64, columns: usize) -> Node {
    node::el("tr", "spacer").attr("aria-hidden", "true").child(
        node::el("td", "")
            .attr("colspan", columns.to_string())
            .style("height", format!("{height}px")),
    )
}

/// The `<tbody>` children for window `w` of a list of `rows` rows across `columns` columns:
/// the top spacer, each row `row(pos)` builds (list position `pos`; odd positions get class
/// `odd`, every row `aria-rowindex` = `pos + 2` (the header row is 1) and `tabindex` 0 on
/// `focus`, -1 on the others), the bottom spacer, then, when `rows` is 0, a row saying `empty`.
pub fn body_rows(
    w: &Window,
    rows: usize,
    columns: usize,
    focus: usize,
    empty: &str,
    mut row: impl FnMut(usize) -> Option<Node>,
) -> Vec<Node> {
    let mut out = vec![spacer(w.top, columns)];
    for pos in w.start..w.end {
        let Some(mut tr) = row(pos) else { continue };
        if pos % 2 == 1 {
            tr.class = if tr.class.is_empty() {
                "odd".into()
            } else {
                format!("{} odd", tr.class)
            };
        }
        out.push(
            tr.attr("aria-rowindex", (pos + 2).to_string())
                .attr("tabindex", if pos == focus { "0" } else { "-1" }),
        );
    }
    out.push(spacer(w.bottom, columns));
    if rows == 0 {
        out.push(node::el("tr", "").child(
            node::text("td", "muted empty-row", empty).attr("colspan", columns.to_string()),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::viewport::Viewport;

    #[test]
    fn rows_carry_their_place_stripe_and_tab_stop() {
        let w = Viewport::TABLE.window(100, 0.0, 5.0 * 28.0);
        let out = body_rows(&w, 100, 3, 1, "none", |pos| {
            Some(node::text(
                "tr",
                if pos == 2 { "selected" } else { "" },
                "r",
            ))
        });
        assert_eq!(out.len(), w.len() + 2);
        assert_eq!(out[0].class, "spacer");
        assert_eq!(out[0].children[0].get_attr("colspan"), Some("3"));
        assert_eq!(
            out[0].children[0].styles,
            [("height", format!("{}px", w.top))]
        );
        let (r0, r1, r2) = (&out[1], &out[2], &out[3]);
        assert_eq!((r0.class.as_str(), r1.class.as_str()), ("", "odd"));
        assert_eq!(r2.class, "selected");
        assert_eq!(r0.get_attr("aria-rowindex"), Some("2"));
        assert_eq!(r1.get_attr("tabindex"), Some("0"));
        assert_eq!(r0.get_attr("tabindex"), Some("-1"));
        let last = out.last().unwrap();
        assert_eq!(last.get_attr("aria-hidden"), Some("true"));
        assert_eq!(last.children[0].styles[0].1, format!("{}px", w.bottom));
        let odd_selected = body_rows(&w, 100, 3, 0, "", |pos| {
            (pos == 3).then(|| node::el("tr", "selected"))
        });
        assert_eq!(odd_selected.len(), 3);
        assert_eq!(odd_selected[1].class, "selected odd");
        assert_eq!(odd_selected[1].get_attr("aria-rowindex"), Some("5"));
    }

    #[test]
    fn an_empty_list_says_so() {
        let w = Viewport::TABLE.window(0, 0.0, 600.0);
        let out = body_rows(&w, 0, 4, 0, "no matching tokens", |_| None);
        assert_eq!(out.len(), 3);
        let td = &out[2].children[0];
        assert_eq!(td.class, "muted empty-row");
        assert_eq!(td.get_attr("colspan"), Some("4"));
        assert_eq!(td.text.as_deref(), Some("no matching tokens"));
    }

    #[test]
    fn the_frame_holds_an_empty_body() {
        let f = frame(
            "token-scroll",
            "token list",
            "tensor-table token-table",
            "token-list",
            &["col-id", "col-text"],
            [node::text("th", "col-id num", "id")],
        );
        assert_eq!(f.class, "table-scroll token-scroll");
        assert_eq!(f.get_attr("tabindex"), Some("0"));
        assert_eq!(f.get_attr("aria-label"), Some("token list"));
        let table = f.find_testid("token-list").unwrap();
        let tags: Vec<_> = table.children.iter().map(|c| c.tag).collect();
        assert_eq!(tags, ["colgroup", "thead", "tbody"]);
        assert_eq!(table.children[0].children[1].class, "col-text");
        assert_eq!(
            table.children[1].children[0].get_attr("aria-rowindex"),
            Some("1")
        );
        assert!(table.children[2].children.is_empty());
    }
}
