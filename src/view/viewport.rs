//! Which rows of a virtualised table to draw for a scroll position.
//!
//! The table sits in a fixed-height scroll container. Its body holds a top spacer, the rows in
//! the window, and a bottom spacer, so the scrollbar spans every row while only a screenful
//! (plus a little overscan) exists in the DOM. Browsers cap element heights (Firefox near
//! 17.9 million px), so past [`Viewport::max_height`] the scroll range is compressed: the scroll
//! fraction picks the first row, and the spacers are sized so the rows sit in view.

/// Fixed geometry of one virtualised table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Viewport {
    /// Height of one row in CSS px (the stylesheet fixes it).
    pub row_height: f64,
    /// Rows drawn above and below the visible ones.
    pub overscan: usize,
    /// Largest total height given to the spacers and rows.
    pub max_height: f64,
}

/// The rows to draw.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    /// First row drawn (visible position).
    pub start: usize,
    /// One past the last row drawn.
    pub end: usize,
    /// Height of the spacer above the rows.
    pub top: f64,
    /// Height of the spacer below the rows.
    pub bottom: f64,
}

impl Window {
    /// Rows drawn.
    pub fn len(&self) -> usize {
        self.end - self.start
    }

    /// No row drawn.
    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }
}

impl Viewport {
    /// The geometry the page uses: 28 px rows, 8 rows of overscan, 15,000,000 px at most.
    pub const TABLE: Viewport = Viewport {
        row_height: 28.0,
        overscan: 8,
        max_height: 15_000_000.0,
    };

    /// Total scrollable height for `rows` rows.
    pub fn total_height(&self, rows: usize) -> f64 {
        (rows as f64 * self.row_height).min(self.max_height)
    }

    /// The window for `rows` rows, scrolled to `scroll_top`, in a container `view_height` px
    /// tall. Out-of-range scroll positions (elastic scrolling, a shrunk list) are clamped.
    pub fn window(&self, rows: usize, scroll_top: f64, view_height: f64) -> Window {
        if rows == 0 {
            return Window {
                start: 0,
                end: 0,
                top: 0.0,
                bottom: 0.0,
            };
        }
        let rh = self.row_height;
        let view_height = view_height.max(rh);
        let per_view = (view_height / rh).ceil() as usize + 1;
        let total = self.total_height(rows);
        let max_scroll = (total - view_height).max(0.0);
        let scroll = if scroll_top.is_finite() {
            scroll_top.clamp(0.0, max_scroll)
        } else {
            0.0
        };
        let full = rows as f64 * rh;
        let (first, offset_in_view) = if full <= self.max_height {
            let first = ((scroll / rh).floor() as usize).min(rows - 1);
            (first, first as f64 * rh)
        } else {
            // Compressed: the scroll fraction picks the first row; that row is drawn at the
            // scroll position itself.
            // The last first row is the one that puts the last row at the bottom of the view.
            let fits = ((view_height / rh).floor() as usize).max(1);
            let last_first = rows.saturating_sub(fits);
            let frac = if max_scroll > 0.0 {
                scroll / max_scroll
            } else {
                0.0
            };
            let first = ((frac * last_first as f64).round() as usize).min(rows - 1);
            (first, scroll)
        };
        let start = first.saturating_sub(self.overscan);
        let end = (first + per_view + self.overscan).min(rows);
        let top = (offset_in_view - (first - start) as f64 * rh).max(0.0);
        let drawn = (end - start) as f64 * rh;
        let bottom = (total - top - drawn).max(0.0);
        Window {
            start,
            end,
            top,
            bottom,
        }
    }
}

impl Viewport {
    /// The scroll position that shows row `row` whole, in a container `view_height` px tall
    /// whose sticky header takes `header` px: `scroll_top` itself when the row is already in
    /// view, else the nearest position with the row at the top or the bottom edge (what
    /// moving the focus by keyboard does). Follows [`Viewport::window`]'s compression.
    pub fn scroll_to_show(
        &self,
        rows: usize,
        row: usize,
        scroll_top: f64,
        view_height: f64,
        header: f64,
    ) -> f64 {
        if rows == 0 {
            return 0.0;
        }
        let rh = self.row_height;
        let row = row.min(rows - 1);
        let view_height = view_height.max(rh);
        let visible = (view_height - header.max(0.0)).max(rh);
        let scroll = if scroll_top.is_finite() {
            scroll_top.max(0.0)
        } else {
            0.0
        };
        let full = rows as f64 * rh;
        if full <= self.max_height {
            let y = row as f64 * rh;
            return if y < scroll {
                y
            } else if y + rh > scroll + visible {
                y + rh - visible
            } else {
                scroll
            };
        }
        // Compressed: the scroll fraction picks the first row shown (see `window`).
        let total = self.total_height(rows);
        let max_scroll = (total - view_height).max(0.0);
        let fits = ((view_height / rh).floor() as usize).max(1);
        let last_first = rows.saturating_sub(fits);
        if last_first == 0 || max_scroll <= 0.0 {
            return 0.0;
        }
        let to_scroll = |first: usize| first as f64 / last_first as f64 * max_scroll;
        let scroll = scroll.min(max_scroll);
        let first = ((scroll / max_scroll * last_first as f64).round() as usize).min(rows - 1);
        let shown = ((visible / rh).floor() as usize).max(1);
        if row < first {
            to_scroll(row)
        } else if row >= first + shown {
            let first = (row + 1 - shown).min(last_first);
            // The last rows sit below `max_scroll`'s view by up to the header's height: the
            // window keeps them where they are and the container scrolls on to them.
            let y = to_scroll(first) + (row - first) as f64 * rh;
            to_scroll(first).max(y + rh - visible)
        } else {
            scroll
        }
    }

    /// The scroll offset (CSS px) that shows row `pos` with two rows of context above it (0
    /// near the top): where selecting a row from elsewhere scrolls the table.
    pub fn scroll_with_context(&self, pos: usize) -> f64 {
        (pos as f64 * self.row_height - 2.0 * self.row_height).max(0.0)
    }

    /// Whole rows a container `view_height` px tall shows under a `header` px sticky header
    /// (at least 1): how far PageUp / PageDown move.
    pub fn page_rows(&self, view_height: f64, header: f64) -> usize {
        (((view_height - header) / self.row_height).floor() as usize).max(1)
    }
}

/// Where a key moves the focus in a list of `rows` rows from position `pos`: ArrowUp/ArrowDown
/// one row, PageUp/PageDown `page` rows, Home/End the first/last row (clamped to the list).
/// `None` for any other key, or an empty list.
pub fn nav_target(key: &str, pos: usize, rows: usize, page: usize) -> Option<usize> {
    let last = rows.checked_sub(1)?;
    let pos = pos.min(last);
    let page = page.max(1);
    Some(match key {
        "ArrowDown" => (pos + 1).min(last),
        "ArrowUp" => pos.saturating_sub(1),
        "Home" => 0,
        "End" => last,
        "PageDown" => pos.saturating_add(page).min(last),
        "PageUp" => pos.saturating_sub(page),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const V: Viewport = Viewport::TABLE;

    #[test]
    fn empty_and_short_lists() {
        assert!(V.window(0, 100.0, 500.0).is_empty());
        let w = V.window(5, 0.0, 500.0);
        assert_eq!((w.start, w.end, w.top, w.bottom), (0, 5, 0.0, 0.0));
    }

    #[test]
    fn only_a_screenful_is_drawn_of_250k_rows() {
        let n = 250_000;
        let w = V.window(n, 0.0, 480.0);
        assert_eq!(w.start, 0);
        assert_eq!(w.end, 18 + 1 + 8);
        assert_eq!(w.top + w.len() as f64 * 28.0 + w.bottom, n as f64 * 28.0);

        let scroll = 123_456.0 * 28.0 + 10.0;
        let w = V.window(n, scroll, 480.0);
        assert_eq!(w.start, 123_456 - 8);
        assert!(w.len() <= 18 + 1 + 16);
        assert_eq!(w.top, w.start as f64 * 28.0);
        // The row at the top of the view is drawn exactly where the scrollbar says.
        assert_eq!(w.top + 8.0 * 28.0, 123_456.0 * 28.0);
        assert_eq!(w.top + w.len() as f64 * 28.0 + w.bottom, n as f64 * 28.0);
    }

    #[test]
    fn scrolled_to_the_end_shows_the_last_row() {
        let n = 250_000;
        let total = V.total_height(n);
        let w = V.window(n, total - 480.0, 480.0);
        assert_eq!(w.end, n);
        assert_eq!(w.bottom, 0.0);
        // Past the end (a list that just shrank under the scroll position) clamps.
        let w2 = V.window(n, total * 3.0, 480.0);
        assert_eq!(w2, w);
        let w3 = V.window(10, 1e9, 480.0);
        assert_eq!((w3.start, w3.end), (0, 10));
    }

    #[test]
    fn huge_lists_are_compressed_under_the_height_cap() {
        let n = 5_000_000; // 140 million px uncompressed
        let total = V.total_height(n);
        assert_eq!(total, V.max_height);
        let top = V.window(n, 0.0, 480.0);
        assert_eq!(top.start, 0);
        let end = V.window(n, total - 480.0, 480.0);
        assert_eq!(end.end, n);
        assert!(end.bottom < V.row_height);
        let mid = V.window(n, (total - 480.0) / 2.0, 480.0);
        let first = mid.start + V.overscan;
        assert!((first as i64 - (n as i64 / 2)).abs() < 20, "{first}");
        // The drawn rows start at the scroll position (minus overscan), inside the spacer range.
        assert_eq!(mid.top + V.overscan as f64 * 28.0, (total - 480.0) / 2.0);
        assert!(mid.top + mid.len() as f64 * 28.0 + mid.bottom <= total + 0.5);
    }

    #[test]
    fn nonsense_scroll_positions_are_safe() {
        let w = V.window(1000, f64::NAN, 0.0);
        assert_eq!(w.start, 0);
        let w = V.window(1000, -50.0, 480.0);
        assert_eq!(w.start, 0);
    }

    #[test]
    fn keys_move_the_focus_within_the_list() {
        assert_eq!(nav_target("ArrowDown", 0, 10, 5), Some(1));
        assert_eq!(nav_target("ArrowDown", 9, 10, 5), Some(9));
        assert_eq!(nav_target("ArrowUp", 0, 10, 5), Some(0));
        assert_eq!(nav_target("ArrowUp", 4, 10, 5), Some(3));
        assert_eq!(nav_target("Home", 7, 10, 5), Some(0));
        assert_eq!(nav_target("End", 0, 250_000, 5), Some(249_999));
        assert_eq!(nav_target("PageDown", 7, 10, 5), Some(9));
        assert_eq!(nav_target("PageUp", 7, 10, 5), Some(2));
        assert_eq!(nav_target("PageUp", 7, 10, 0), Some(6));
        // A position past a list that shrank is clamped first.
        assert_eq!(nav_target("ArrowUp", 50, 10, 5), Some(8));
        assert_eq!(nav_target("ArrowDown", 0, 0, 5), None);
        assert_eq!(nav_target("Enter", 0, 10, 5), None);
        assert_eq!(V.page_rows(480.0, 36.0), 15);
        assert_eq!(V.page_rows(10.0, 36.0), 1);
    }

    /// The row is drawn by the window at the new scroll position, and lies whole inside the
    /// part of the view below the header.
    fn assert_shown(rows: usize, row: usize, scroll: f64, vh: f64, header: f64) {
        let w = V.window(rows, scroll, vh);
        assert!(w.start <= row && row < w.end, "row {row} not drawn: {w:?}");
        // Row y inside the body: the top spacer, then the drawn rows.
        let y = w.top + (row - w.start) as f64 * V.row_height;
        assert!(
            y >= scroll - 0.5,
            "row {row} above the view ({y} < {scroll})"
        );
        assert!(
            y + V.row_height <= scroll + vh - header + 0.5,
            "row {row} below the view ({y} vs {scroll} + {vh} - {header})"
        );
    }

    #[test]
    fn scrolling_to_a_row_shows_it() {
        let (vh, header) = (480.0, 36.0);
        let n = 250_000;
        // Already in view: no scroll.
        assert_eq!(V.scroll_to_show(n, 3, 0.0, vh, header), 0.0);
        // One below the view: the row comes to the bottom edge.
        let s = V.scroll_to_show(n, 15, 0.0, vh, header);
        assert_eq!(s, 16.0 * 28.0 - (vh - header));
        assert_shown(n, 15, s, vh, header);
        // Above the view: the row comes to the top.
        let s = V.scroll_to_show(n, 100, 5_000.0, vh, header);
        assert_eq!(s, 2_800.0);
        assert_shown(n, 100, s, vh, header);
        // The last row of 250,000, then back to the first.
        let s = V.scroll_to_show(n, n - 1, 0.0, vh, header);
        assert_shown(n, n - 1, s, vh, header);
        assert_eq!(V.scroll_to_show(n, 0, s, vh, header), 0.0);
        for row in [0, 1, 17, 123_456, n - 2] {
            let s = V.scroll_to_show(n, row, 77_777.0, vh, header);
            assert_shown(n, row, s, vh, header);
        }
        assert_eq!(V.scroll_to_show(0, 5, 100.0, vh, header), 0.0);
    }

    #[test]
    fn scrolling_to_a_row_of_a_compressed_list_shows_it() {
        let (vh, header) = (480.0, 36.0);
        let n = 5_000_000;
        for row in [0, 1, 20, 2_500_000, 4_999_000, n - 1] {
            let s = V.scroll_to_show(n, row, 1_000_000.0, vh, header);
            assert_shown(n, row, s, vh, header);
            // Moving one row down from there keeps it shown (no jump back).
            let s2 = V.scroll_to_show(n, row, s, vh, header);
            assert_eq!(s2, s);
        }
    }

    #[test]
    fn a_selected_row_shows_two_rows_above_it() {
        assert_eq!(V.scroll_with_context(0), 0.0);
        assert_eq!(V.scroll_with_context(2), 0.0);
        // Row 10 starts at 280 px; two 28 px rows above it: 224.
        assert_eq!(V.scroll_with_context(10), 224.0);
    }
}
