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
}
