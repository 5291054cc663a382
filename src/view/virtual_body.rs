//! A virtualised table as [`Node`]s (the tensor table, the token and merges lists): its frame
//! (a keyboard-reachable scroll container holding the table, its `<col>`s, the header row and an
//! empty `<tbody>`) and, for a [`Window`] of the list, the body's rows: a top spacer, the rows in
//! view with their place (`aria-rowindex`), stripe and tab stop, a bottom spacer, and the empty
//! row when nothing is listed. The page keeps the scroll position and the focus; this says
//! what is drawn for them, and [`BodyState`] decides when to redraw, which row is the tab stop
//! and where the navigation keys move the focus.

use crate::view::node::{self, Node};
use crate::view::viewport::{nav_target, Viewport, Window};

/// Where a navigation key was pressed in a virtualised table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyOn {
    /// On the scroll container itself (no row focused yet).
    Container,
    /// On the drawn row at this list position.
    Row(usize),
}

impl KeyOn {
    /// Where a key was pressed: on the scroll container itself (`on_container`), else on the
    /// drawn row at list position `row`; `None` elsewhere (a key in the table that is not on a
    /// row is not the table's).
    pub fn of(on_container: bool, row: Option<usize>) -> Option<KeyOn> {
        match (on_container, row) {
            (true, _) => Some(KeyOn::Container),
            (false, Some(pos)) => Some(KeyOn::Row(pos)),
            (false, None) => None,
        }
    }
}

/// What a virtualised body remembers between draws: the window drawn last, the tab stop (the
/// list position of the row focused last, the one row with `tabindex="0"`) and whether draws
/// measure the container (from the first scroll, resize, key or programmatic scroll on; never
/// while the view is being built, when reading a height would lay out the whole page).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BodyState {
    /// The window drawn last.
    pub drawn: Option<Window>,
    /// List position of the tab stop.
    pub focus: usize,
    /// Whether draws read the container's height and scroll offset.
    pub measured: bool,
}

impl BodyState {
    /// Whether window `w` of a list of `rows` rows is to be drawn: always with `force`, else
    /// only when it is not the window drawn last. When it is, it becomes the window drawn and
    /// the tab stop is kept within the list (a shorter list moves it to its last row).
    pub fn take(&mut self, w: Window, rows: usize, force: bool) -> bool {
        if !force && self.drawn == Some(w) {
            return false;
        }
        self.drawn = Some(w);
        self.focus = self.focus.min(rows.saturating_sub(1));
        true
    }

    /// The row a navigation `key` focuses in a list of `rows` rows, pressed `on` the container
    /// or a row; `page` gives the rows PageUp / PageDown move (asked only for a key on a row).
    /// On the container, the first navigation key focuses the tab-stop row (clamped to the
    /// list) without moving; on a row, [`nav_target`]. `None`: not a navigation key, or no rows.
    pub fn key_target(
        &self,
        key: &str,
        on: KeyOn,
        rows: usize,
        page: impl FnOnce() -> usize,
    ) -> Option<usize> {
        match on {
            KeyOn::Container => {
                let stop = self.focus;
                nav_target(key, stop, rows, 1).map(|_| stop.min(rows.saturating_sub(1)))
            }
            KeyOn::Row(pos) => nav_target(key, pos, rows, page()),
        }
    }
}

/// The height (CSS px) of the view a virtualised body draws rows for: its container's `client`
/// height, or, for a container not measured or not laid out (0: drawn before its tab is
/// shown), the window's (`window_h`, read only then); never under `min_view`.
pub fn view_height(client: f64, min_view: f64, window_h: impl FnOnce() -> f64) -> f64 {
    let h = if client > 0.0 { client } else { window_h() };
    h.max(min_view)
}

/// Whether a navigation key pressed with these modifiers moves the focus in a virtualised
/// table: not with Alt, Ctrl, Meta or Shift held (the browser's and assistive technology's
/// own shortcuts).
pub fn plain_key(alt: bool, ctrl: bool, meta: bool, shift: bool) -> bool {
    !(alt || ctrl || meta || shift)
}

/// The `scrollIntoView` options for the row a navigation key focused, once its container has
/// scrolled to show it whole: the page scrolls the least that shows it (not at all when it is
/// in the window already). Without it, a container reaching below the window's bottom (the
/// tensor table under the card's head) took PageDown / End to a row out of sight.
pub const REVEAL_ROW: [(&str, &str); 2] = [("block", "nearest"), ("inline", "nearest")];

/// The list position of a drawn row from its `aria-rowindex` value (the inverse of
/// [`body_rows`]'s `pos + 2`): `None` for the header row (1) or a value that is not a number.
pub fn list_position(aria_rowindex: &str) -> Option<usize> {
    aria_rowindex.parse::<usize>().ok()?.checked_sub(2)
}

/// The height a measured container grew to once its first rows went in, when it is to be
/// drawn again for it: a container under four rows tall (`client` CSS px before the draw) can
/// still be growing; `grown()` reads its height after the draw (a layout, so only then), and a
/// height over the `view_h` drawn for (by more than half a pixel) is returned.
pub fn grown_height(client: f64, view_h: f64, grown: impl FnOnce() -> f64) -> Option<f64> {
    if client >= Viewport::TABLE.row_height * 4.0 {
        return None;
    }
    let grown = grown();
    (grown > view_h + 0.5).then_some(grown)
}

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
    fn a_key_is_on_the_container_or_a_row() {
        assert_eq!(KeyOn::of(true, None), Some(KeyOn::Container));
        assert_eq!(KeyOn::of(true, Some(3)), Some(KeyOn::Container));
        assert_eq!(KeyOn::of(false, Some(3)), Some(KeyOn::Row(3)));
        assert_eq!(KeyOn::of(false, None), None);
    }

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

    #[test]
    fn a_window_is_drawn_once_unless_forced() {
        let v = Viewport::TABLE;
        let mut st = BodyState {
            focus: 40,
            ..BodyState::default()
        };
        let w = v.window(100, 0.0, 280.0);
        assert!(st.take(w, 100, false));
        assert_eq!(st.focus, 40);
        assert!(!st.take(w, 100, false));
        assert!(st.take(w, 100, true));
        // Scrolled on: another window.
        assert!(st.take(v.window(100, 560.0, 280.0), 100, false));
        // The list shrank to 10 rows: the tab stop is its last row; an empty list, row 0.
        assert!(st.take(v.window(10, 0.0, 280.0), 10, false));
        assert_eq!(st.focus, 9);
        assert!(st.take(v.window(0, 0.0, 280.0), 0, false));
        assert_eq!(st.focus, 0);
    }

    #[test]
    fn keys_move_the_focus_from_the_container_or_a_row() {
        let st = BodyState {
            focus: 7,
            ..BodyState::default()
        };
        let page = || 10;
        // On the container: any navigation key brings the tab stop in, without moving.
        assert_eq!(st.key_target("End", KeyOn::Container, 50, page), Some(7));
        assert_eq!(
            st.key_target("ArrowDown", KeyOn::Container, 5, page),
            Some(4)
        );
        assert_eq!(st.key_target("a", KeyOn::Container, 50, page), None);
        assert_eq!(st.key_target("Home", KeyOn::Container, 0, page), None);
        // On row 20 of 50: one row, a page of 10, the ends.
        assert_eq!(st.key_target("ArrowUp", KeyOn::Row(20), 50, page), Some(19));
        assert_eq!(
            st.key_target("PageDown", KeyOn::Row(20), 50, page),
            Some(30)
        );
        assert_eq!(
            st.key_target("PageDown", KeyOn::Row(45), 50, page),
            Some(49)
        );
        assert_eq!(st.key_target("End", KeyOn::Row(20), 50, page), Some(49));
        assert_eq!(st.key_target("Enter", KeyOn::Row(20), 50, page), None);
        // The page size is only asked for a key on a row.
        let asked = std::cell::Cell::new(false);
        st.key_target("PageDown", KeyOn::Container, 50, || {
            asked.set(true);
            10
        });
        assert!(!asked.get());
    }

    #[test]
    fn the_view_is_the_container_or_else_the_window() {
        assert_eq!(view_height(420.0, 112.0, || panic!("not read")), 420.0);
        assert_eq!(view_height(56.0, 112.0, || panic!("not read")), 112.0);
        assert_eq!(view_height(0.0, 112.0, || 800.0), 800.0);
        assert_eq!(view_height(0.0, 900.0, || 800.0), 900.0);
    }

    #[test]
    fn modified_keys_are_left_to_the_browser() {
        assert!(plain_key(false, false, false, false));
        assert!(!plain_key(false, false, false, true));
        assert!(!plain_key(true, false, false, false));
        assert!(!plain_key(false, true, false, false));
        assert!(!plain_key(false, false, true, false));
        // The row is shown with the least scrolling of the page, on both axes.
        assert_eq!(REVEAL_ROW, [("block", "nearest"), ("inline", "nearest")]);
    }

    #[test]
    fn a_short_container_is_drawn_again_once_grown() {
        // 3 rows tall (84 px) drawn for 84 px, then 400 px tall: drawn again for 400.
        assert_eq!(grown_height(84.0, 84.0, || 400.0), Some(400.0));
        assert_eq!(grown_height(84.0, 84.0, || 84.4), None);
        // 4 rows (112 px) or more: not read again.
        let read = std::cell::Cell::new(false);
        let tall = grown_height(112.0, 112.0, || {
            read.set(true);
            900.0
        });
        assert_eq!((tall, read.get()), (None, false));
    }

    #[test]
    fn a_drawn_row_gives_back_its_list_position() {
        let w = Viewport::TABLE.window(50, 280.0, 140.0);
        let out = body_rows(&w, 50, 2, 0, "", |_| Some(node::el("tr", "")));
        for (i, tr) in out[1..out.len() - 1].iter().enumerate() {
            let idx = tr.get_attr("aria-rowindex").unwrap();
            assert_eq!(list_position(idx), Some(w.start + i));
        }
        assert_eq!(list_position("1"), None);
        assert_eq!(list_position("x"), None);
    }
}
