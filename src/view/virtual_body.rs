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

/// What a virtualised body reads from the page and does to it: the web layer's scroll
/// container and `<tbody>`. [`BodyState`] decides, this reads and acts. Reads that lay the
/// page out (heights, the scroll offset) are asked for only when the draws measure.
pub trait BodyPage {
    /// Columns of the table (the spacer and empty rows span them).
    fn columns(&self) -> usize;
    /// The container's scroll offset, CSS px.
    fn scroll_top(&self) -> f64;
    /// Scrolls the container to `top` CSS px (a whole number).
    fn set_scroll_top(&self, top: f64);
    /// The container's inner height, CSS px (0 when it is not laid out).
    fn client_height(&self) -> f64;
    /// The window's inner height, CSS px.
    fn window_height(&self) -> f64;
    /// The sticky header row's height, CSS px (rows under it are hidden).
    fn header_height(&self) -> f64;
    /// Whether the focus is in the body (on a row).
    fn body_focused(&self) -> bool;
    /// Replaces the body's rows by `body`, drawn for a list of `rows` rows (screen readers
    /// learn the table's full size: `aria-rowcount` is `rows + 1`, the header row counted).
    fn fill(&self, rows: usize, body: Vec<Node>);
    /// Focuses the drawn row at list position `pos` without scrolling, and when `reveal`,
    /// scrolls the page the least that shows it ([`REVEAL_ROW`]); `false` when it is not drawn.
    fn focus_row(&self, pos: usize, reveal: bool) -> bool;
    /// Focuses the container without scrolling.
    fn focus_container(&self);
    /// Sets the drawn row at `pos` (if drawn) as the tab stop (`tabindex` 0) or not (-1).
    fn set_tab_stop(&self, pos: usize, on: bool);
}

/// What a virtualised table lists, as its body draws it (the tensor table's rows, the
/// tokenizer's tokens and merges): the rows listed now and one of them, the count line over
/// the table, what the body says with no row, its search and the least height its view is
/// drawn for.
pub trait Listing {
    /// Whether its table says how long each draw and search took (`data-draw-ms`,
    /// `data-search-ms`) and how many rows are listed (`data-rows`): tests and benchmarks
    /// read them.
    const TIMED: bool = false;
    /// Rows listed now.
    fn listed(&self) -> usize;
    /// The row at list position `pos` (the body adds its place, stripe and tab stop).
    fn row(&self, pos: usize) -> Option<Node>;
    /// The count line over the table.
    fn count_line(&self) -> String;
    /// What the body says when no row is listed.
    fn empty(&self) -> &str;
    /// Lists the rows matching the search box's `text`; returns whether the rows listed may
    /// have changed (then the table is drawn again from its top).
    fn search(&mut self, text: &str) -> bool;
    /// The least height (CSS px) of the view its rows are drawn for ([`BodyState::draw`]'s
    /// `min_view`); `window_h` reads the window's inner height.
    fn min_view(&self, window_h: impl FnOnce() -> f64) -> f64;
}

impl BodyState {
    /// Draws on `page` the rows in view of a list of `rows` rows (unless the window is the one
    /// drawn last and `force` is off), each built by `row(pos)`; `min_view` bounds the view's
    /// height from below. Before its first rows the container is only as tall as its header:
    /// when the rows drawn make it taller, the rows for that height are drawn at once. A
    /// container not laid out (height 0: drawn before it is shown) is taken to be as tall as
    /// the window. `empty` is said when there are no rows. Returns whether it drew.
    pub fn draw(
        &mut self,
        page: &impl BodyPage,
        rows: usize,
        force: bool,
        min_view: f64,
        empty: &str,
        mut row: impl FnMut(usize) -> Option<Node>,
    ) -> bool {
        // Until the reader scrolls the table, resizes the window or shows its tab, its draws
        // happen while the view of a model is being built: reading a height or a scroll
        // offset then would lay out the whole page each time (a forced layout per draw, the
        // most of a large model's open). Such a table is at its top; it draws the rows of a
        // window-tall view, which fills any container up to the window's height.
        let (top, client) = match self.measured {
            true => (page.scroll_top(), page.client_height()),
            false => (0.0, 0.0),
        };
        let view_h = view_height(client, min_view, || page.window_height());
        let drew = self.draw_at(page, rows, force, (top, view_h), empty, &mut row);
        if drew && self.measured {
            if let Some(grown) = grown_height(client, view_h, || page.client_height()) {
                self.draw_at(page, rows, true, (top, grown), empty, &mut row);
            }
        }
        drew
    }

    /// Draws the window of rows at scroll offset `top` in a view `view_h` tall (CSS px).
    fn draw_at(
        &mut self,
        page: &impl BodyPage,
        rows: usize,
        force: bool,
        (top, view_h): (f64, f64),
        empty: &str,
        row: &mut impl FnMut(usize) -> Option<Node>,
    ) -> bool {
        let w = Viewport::TABLE.window(rows, top, view_h);
        if !self.take(w, rows, force) {
            return false;
        }
        // Redrawing replaces the focused row: the focus moves to its new element.
        let had_focus = page.body_focused();
        let body = body_rows(&w, rows, page.columns(), self.focus, empty, row);
        page.fill(rows, body);
        if had_focus && !page.focus_row(self.focus, false) {
            page.focus_container();
        }
        true
    }

    /// A navigation `key` pressed `on` the container or a row of a list of `rows` rows
    /// ([`BodyState::key_target`]): the row it goes to becomes the tab stop and the container
    /// scrolls so that row is shown whole. Returns that row (the caller redraws, then calls
    /// [`BodyState::focus_row`]); `None`: not a navigation key, or no rows.
    pub fn key(
        &mut self,
        page: &impl BodyPage,
        key: &str,
        on: KeyOn,
        rows: usize,
    ) -> Option<usize> {
        let page_rows = || Viewport::TABLE.page_rows(page.client_height(), page.header_height());
        let pos = self.key_target(key, on, rows, page_rows)?;
        self.focus = pos;
        self.measured = true;
        let (top, view_h) = (page.scroll_top(), page.client_height());
        let to = Viewport::TABLE.scroll_to_show(rows, pos, top, view_h, page.header_height());
        if to != top {
            page.set_scroll_top(to.round());
        }
        Some(pos)
    }

    /// Focuses the drawn row at `pos`, now the tab stop, and scrolls the page the least that
    /// shows it ([`REVEAL_ROW`]).
    pub fn focus_row(&mut self, page: &impl BodyPage, pos: usize) {
        self.set_tab_stop(page, pos);
        page.focus_row(pos, true);
    }

    /// `pos` becomes the one row with tabindex 0.
    pub fn set_tab_stop(&mut self, page: &impl BodyPage, pos: usize) {
        page.set_tab_stop(self.focus, false);
        self.focus = pos;
        page.set_tab_stop(pos, true);
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

/// Slack for fractional scroll positions (CSS px): a table within a pixel of its box fits.
pub const FIT_SLACK: f64 = 1.0;

/// The sides of a scroll container that hide columns: `"left"` when it is scrolled from the
/// start, `"right"` when more lies to the right, `"both"`, or `None` when the table fits
/// (within [`FIT_SLACK`]). From its `scrollLeft`, `clientWidth` and `scrollWidth` (CSS px);
/// the page writes it as the frame's `data-more`, which the stylesheet draws as a fade.
pub fn more_sides(scroll_left: f64, client_width: f64, scroll_width: f64) -> Option<&'static str> {
    let left = scroll_left > FIT_SLACK;
    let right = scroll_left + client_width < scroll_width - FIT_SLACK;
    match (left, right) {
        (true, true) => Some("both"),
        (true, false) => Some("left"),
        (false, true) => Some("right"),
        (false, false) => None,
    }
}

/// A scroll container as the page measures it, CSS px.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScrollBox {
    /// `scrollLeft`.
    pub scroll_left: f64,
    /// `scrollWidth`.
    pub scroll_width: f64,
    /// The border box's width and height (`getBoundingClientRect`).
    pub outer: [f64; 2],
    /// The inner size: `clientWidth`, `clientHeight`.
    pub client: [f64; 2],
    /// One border of each axis: `clientLeft`, `clientTop`.
    pub border: [f64; 2],
}

/// What the frame around a scroll container says ([`with_fades`]): the sides that hide columns
/// and the scroll bars' sizes, which the fades stay clear of.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrameMarks {
    /// The sides that hide columns ([`more_sides`]): the frame's `data-more` (`None`: none).
    pub sides: Option<&'static str>,
    /// The vertical scroll bar's width and the horizontal one's height, CSS px: what the box
    /// holds beside its inner size and two borders (rounded, never negative; 0 without a bar).
    pub bars: [f64; 2],
}

impl FrameMarks {
    /// The marks of a container measured as `b`.
    pub fn of(b: &ScrollBox) -> FrameMarks {
        let bar =
            |outer: f64, client: f64, border: f64| (outer - client - 2.0 * border).round().max(0.0);
        let ([outer_w, outer_h], [client_w, client_h], [left, top]) = (b.outer, b.client, b.border);
        FrameMarks {
            sides: more_sides(b.scroll_left, client_w, b.scroll_width),
            bars: [bar(outer_w, client_w, left), bar(outer_h, client_h, top)],
        }
    }

    /// The frame's style properties: the bars' sizes as `--bar-w` and `--bar-h` (`"15px"`).
    pub fn style(&self) -> [(&'static str, String); 2] {
        let [w, h] = self.bars;
        [("--bar-w", format!("{w}px")), ("--bar-h", format!("{h}px"))]
    }
}

/// `scroller` (a [`frame`]) in `div.table-frame` with the fades that say a side hides columns
/// (`div.more-fade.left`, `div.more-fade.right`, hidden from screen readers, shown by the
/// frame's `data-more`, [`more_sides`]): on a narrow page the wide tensor table's horizontal
/// scroll bar is at the bottom of a tall box, often out of sight.
pub fn with_fades(scroller: Node) -> Node {
    let fade =
        |side: &str| node::el("div", &format!("more-fade {side}")).attr("aria-hidden", "true");
    node::el("div", "table-frame")
        .child(scroller)
        .child(fade("left"))
        .child(fade("right"))
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

    use std::cell::{Cell, RefCell};

    /// A page of fixed heights that records what is done to it.
    #[derive(Default)]
    struct FakePage {
        top: Cell<f64>,
        client: Cell<f64>,
        /// The container's height once rows are in (`None`: unchanged).
        grows_to: Option<f64>,
        /// Layout reads (heights, scroll offset).
        reads: Cell<usize>,
        focused: Cell<Option<&'static str>>,
        /// Each fill: the rows told and the list positions drawn.
        fills: RefCell<Vec<(usize, Vec<usize>)>>,
        focus_calls: RefCell<Vec<(usize, bool)>>,
        tab_stops: RefCell<Vec<(usize, bool)>>,
    }

    impl FakePage {
        fn drawn(&self) -> Vec<usize> {
            self.fills
                .borrow()
                .last()
                .map(|f| f.1.clone())
                .unwrap_or_default()
        }
    }

    impl BodyPage for FakePage {
        fn columns(&self) -> usize {
            2
        }
        fn scroll_top(&self) -> f64 {
            self.reads.set(self.reads.get() + 1);
            self.top.get()
        }
        fn set_scroll_top(&self, top: f64) {
            self.top.set(top);
        }
        fn client_height(&self) -> f64 {
            self.reads.set(self.reads.get() + 1);
            self.client.get()
        }
        fn window_height(&self) -> f64 {
            600.0
        }
        fn header_height(&self) -> f64 {
            self.reads.set(self.reads.get() + 1);
            28.0
        }
        fn body_focused(&self) -> bool {
            self.focused.get() == Some("row")
        }
        fn fill(&self, rows: usize, body: Vec<Node>) {
            let drawn = body
                .iter()
                .filter_map(|n| list_position(n.get_attr("aria-rowindex")?))
                .collect();
            self.fills.borrow_mut().push((rows, drawn));
            if let Some(h) = self.grows_to {
                self.client.set(h);
            }
        }
        fn focus_row(&self, pos: usize, reveal: bool) -> bool {
            self.focus_calls.borrow_mut().push((pos, reveal));
            let drawn = self.drawn().contains(&pos);
            if drawn {
                self.focused.set(Some("row"));
            }
            drawn
        }
        fn focus_container(&self) {
            self.focused.set(Some("container"));
        }
        fn set_tab_stop(&self, pos: usize, on: bool) {
            self.tab_stops.borrow_mut().push((pos, on));
        }
    }

    fn tr(_: usize) -> Option<Node> {
        Some(node::el("tr", ""))
    }

    #[test]
    fn a_table_not_measured_draws_a_window_tall_view_without_reading_the_layout() {
        let page = FakePage::default();
        let mut st = BodyState::default();
        assert!(st.draw(&page, 1000, false, 0.0, "none", tr));
        assert_eq!(page.reads.get(), 0);
        let want = Viewport::TABLE.window(1000, 0.0, 600.0);
        assert_eq!(page.drawn(), (want.start..want.end).collect::<Vec<_>>());
        assert_eq!(page.fills.borrow()[0].0, 1000);
        // The same window again: nothing drawn unless forced.
        assert!(!st.draw(&page, 1000, false, 0.0, "none", tr));
        assert!(st.draw(&page, 1000, true, 0.0, "none", tr));
        assert_eq!(page.fills.borrow().len(), 2);
    }

    #[test]
    fn a_measured_container_still_growing_is_drawn_again_for_its_height() {
        let page = FakePage {
            grows_to: Some(900.0),
            ..FakePage::default()
        };
        page.client.set(50.0);
        page.top.set(280.0);
        let mut st = BodyState {
            measured: true,
            ..BodyState::default()
        };
        assert!(st.draw(&page, 1000, false, 0.0, "none", tr));
        let fills = page.fills.borrow();
        assert_eq!(fills.len(), 2);
        let first = Viewport::TABLE.window(1000, 280.0, 50.0);
        let grown = Viewport::TABLE.window(1000, 280.0, 900.0);
        assert_eq!(fills[0].1, (first.start..first.end).collect::<Vec<_>>());
        assert_eq!(fills[1].1, (grown.start..grown.end).collect::<Vec<_>>());
        assert_eq!(st.drawn, Some(grown));
    }

    #[test]
    fn a_redraw_keeps_the_focus_on_the_tab_stop_or_the_container() {
        let page = FakePage::default();
        let mut st = BodyState {
            focus: 3,
            ..BodyState::default()
        };
        page.focused.set(Some("row"));
        st.draw(&page, 1000, true, 0.0, "none", tr);
        assert_eq!(page.focus_calls.borrow().as_slice(), [(3, false)]);
        assert_eq!(page.focused.get(), Some("row"));
        // The tab stop is not drawn now (scrolled far away): the container takes the focus.
        st.focus = 900;
        st.draw(&page, 1000, true, 0.0, "none", tr);
        assert_eq!(page.focused.get(), Some("container"));
        // Not focused before: the focus is left alone.
        page.focused.set(None);
        st.draw(&page, 1000, true, 0.0, "none", tr);
        assert_eq!(page.focused.get(), None);
        assert_eq!(page.focus_calls.borrow().len(), 2);
    }

    #[test]
    fn keys_move_the_tab_stop_and_scroll_it_into_view() {
        let page = FakePage::default();
        page.client.set(280.0);
        let mut st = BodyState {
            focus: 3,
            ..BodyState::default()
        };
        assert_eq!(st.key(&page, "a", KeyOn::Row(3), 1000), None);
        assert!(!st.measured);
        assert_eq!(st.key(&page, "End", KeyOn::Row(3), 1000), Some(999));
        assert!(st.measured);
        assert_eq!(st.focus, 999);
        let to = Viewport::TABLE.scroll_to_show(1000, 999, 0.0, 280.0, 28.0);
        assert_eq!(page.top.get(), to.round());
        st.draw(&page, 1000, true, 0.0, "none", tr);
        assert!(page.drawn().contains(&999));
        st.focus_row(&page, 999);
        assert_eq!(
            page.tab_stops.borrow().as_slice(),
            [(999, false), (999, true)]
        );
        assert_eq!(page.focus_calls.borrow().last(), Some(&(999, true)));
        // PageUp: a screenful of rows under the header.
        let up = st.key(&page, "PageUp", KeyOn::Row(999), 1000);
        assert_eq!(up, Some(999 - Viewport::TABLE.page_rows(280.0, 28.0)));
        // On the container, the first key focuses the tab stop without moving it.
        st.focus = 10;
        assert_eq!(st.key(&page, "ArrowDown", KeyOn::Container, 1000), Some(10));
        st.set_tab_stop(&page, 12);
        assert_eq!(st.focus, 12);
        assert_eq!(page.tab_stops.borrow()[2..], [(10, false), (12, true)]);
    }

    #[test]
    fn the_frame_marks_the_hidden_sides_and_the_scroll_bars() {
        // 300 px inside, a 15 px vertical bar, 1 px borders; scrolled 10 px of 900.
        let b = ScrollBox {
            scroll_left: 10.0,
            scroll_width: 900.0,
            outer: [317.0, 202.2],
            client: [300.0, 200.0],
            border: [1.0, 1.0],
        };
        let m = FrameMarks::of(&b);
        assert_eq!(
            m,
            FrameMarks {
                sides: Some("both"),
                bars: [15.0, 0.0]
            }
        );
        assert_eq!(
            m.style(),
            [("--bar-w", "15px".into()), ("--bar-h", "0px".into())]
        );
        // A table that fits, and a box measured a fraction under its inner size: no bar.
        let fits = ScrollBox {
            scroll_width: 300.5,
            scroll_left: 0.0,
            outer: [301.6, 180.0],
            ..b
        };
        assert_eq!(
            FrameMarks::of(&fits),
            FrameMarks {
                sides: None,
                bars: [0.0, 0.0]
            }
        );
    }

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
    fn the_sides_that_hide_columns_are_marked() {
        // A 1,120 px table in a 390 px box: more to the right, then both, then the left only.
        assert_eq!(more_sides(0.0, 390.0, 1120.0), Some("right"));
        assert_eq!(more_sides(200.0, 390.0, 1120.0), Some("both"));
        assert_eq!(more_sides(730.0, 390.0, 1120.0), Some("left"));
        // Fractional positions at the end, and a table that fits, mark nothing more.
        assert_eq!(more_sides(729.5, 390.0, 1120.0), Some("left"));
        assert_eq!(more_sides(0.0, 900.0, 900.0), None);
        assert_eq!(more_sides(0.0, 899.5, 900.0), None);
        let f = with_fades(node::el("div", "table-scroll tensor-scroll"));
        assert_eq!(f.class, "table-frame");
        let classes: Vec<&str> = f.children.iter().map(|c| c.class.as_str()).collect();
        assert_eq!(
            classes,
            [
                "table-scroll tensor-scroll",
                "more-fade left",
                "more-fade right"
            ]
        );
        assert_eq!(f.children[2].get_attr("aria-hidden"), Some("true"));
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
