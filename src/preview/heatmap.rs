//! The window as a heatmap: downsampled to at most [`MAX_CELLS`]×[`MAX_CELLS`] cells, coloured
//! on a diverging scale centred on 0.
//!
//! Downsampling rule: the window's `R × C` grid is cut into `r × c` cells (`r = min(R, 512)`,
//! `c = min(C, 512)`); cell `(i, j)` covers rows `floor(i·R/r) .. floor((i+1)·R/r)` and columns
//! `floor(j·C/c) .. floor((j+1)·C/c)`, and shows the value of largest magnitude in it, sign kept
//! ("signed max-abs": outliers stay visible however far the image is shrunk). A cell with no
//! finite value is NaN. A single row is wrapped into lines of `ceil(√C)` values first, so a 1-D
//! tensor is a square, not a one-pixel strip.
//!
//! Colour: `v / limit` clamped to `[−1, 1]`, interpolated linearly (sRGB) through ColorBrewer
//! RdBu stops: blue (negative) – near-white (0) – red (positive). `limit` is the 99th percentile
//! of the finite cells' magnitudes (so one outlier does not wash out the rest; cells beyond it
//! saturate), or their largest magnitude if that percentile is 0, or 1 if all cells are 0.

use serde::Serialize;

/// Most cells along either side.
pub const MAX_CELLS: usize = 512;

/// Scale stops from −limit to +limit (ColorBrewer RdBu, 5 classes, reversed: blue is negative).
pub const STOPS: [[u8; 3]; 5] = [
    [0x21, 0x66, 0xac],
    [0x67, 0xa9, 0xcf],
    [0xf7, 0xf7, 0xf7],
    [0xef, 0x8a, 0x62],
    [0xb2, 0x18, 0x2b],
];
/// Colour of a cell with no finite value (NaN / ±Inf only): bright green, outside the scale.
pub const NAN_RGB: [u8; 3] = [0x1a, 0xd1, 0x1a];

/// A downsampled grid with its colour scale.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Heatmap {
    /// Rows of the source grid (after wrapping a single row).
    pub grid_rows: u64,
    /// Columns of the source grid.
    pub grid_cols: u64,
    /// Values in the source (the last wrapped line may be short).
    pub values: u64,
    /// Whether a single row was wrapped into lines of `grid_cols` values.
    pub wrapped: bool,
    /// Cell rows.
    pub rows: usize,
    /// Cell columns.
    pub cols: usize,
    /// Colour scale limit: `±limit` are the ends of the scale.
    pub limit: f64,
    /// Largest finite magnitude among the cells.
    pub max_abs: f64,
    /// Cells, row-major (`rows × cols`): signed max-abs of each cell (exact: an `f32` value
    /// widened, or an `f64` one), NaN when none is finite.
    #[serde(skip)]
    pub cells: Vec<f64>,
    /// Whether each cell covers any value (false only past the end of a wrapped last line).
    #[serde(skip)]
    pub covered: Vec<bool>,
}

/// Incremental builder: feed source-grid rows in order.
#[derive(Debug, Clone)]
pub(crate) struct HeatmapBuilder {
    grid_rows: u64,
    grid_cols: u64,
    values: u64,
    wrapped: bool,
    rows: usize,
    cols: usize,
    /// Cell column boundaries (`cols + 1` entries) in source columns.
    col_bounds: Vec<usize>,
    cells: Vec<f64>,
    covered: Vec<bool>,
    next_row: u64,
}

impl HeatmapBuilder {
    /// A builder for a `rows × cols` window of `values = rows × cols` values (a single row is
    /// wrapped).
    pub fn new(rows: u64, cols: u64) -> Self {
        let values = rows.saturating_mul(cols);
        let (grid_rows, grid_cols, wrapped) = if rows == 1 && cols > 1 {
            let w = (cols as f64).sqrt().ceil() as u64;
            let w = w.max(1);
            (cols.div_ceil(w), w, true)
        } else {
            (rows, cols, false)
        };
        let r = (grid_rows as usize).clamp(1, MAX_CELLS);
        let c = (grid_cols as usize).clamp(1, MAX_CELLS);
        let col_bounds = (0..=c)
            .map(|j| (j as u64 * grid_cols / c as u64) as usize)
            .collect();
        HeatmapBuilder {
            grid_rows,
            grid_cols,
            values,
            wrapped,
            rows: r,
            cols: c,
            col_bounds,
            cells: vec![f64::NAN; r * c],
            covered: vec![false; r * c],
            next_row: 0,
        }
    }

    /// Columns per source-grid row (the caller feeds rows of this many values; the last
    /// wrapped line may be shorter).
    pub fn grid_cols(&self) -> u64 {
        self.grid_cols
    }

    /// Source-grid rows.
    pub fn grid_rows(&self) -> u64 {
        self.grid_rows
    }

    /// Adds the next source-grid row (`f32` or `f64` values).
    pub fn add_row<T: Copy + Into<f64>>(&mut self, xs: &[T]) {
        let r = self.next_row;
        self.next_row += 1;
        // Cell row i covers floor(i·R/r) ..; the cell of row `r` is the largest i with
        // floor(i·R/rows) <= r, i.e. floor(((r + 1)·rows − 1) / R).
        let i = (((r + 1) * self.rows as u64 - 1) / self.grid_rows) as usize;
        let i = i.min(self.rows - 1);
        let base = i * self.cols;
        for j in 0..self.cols {
            let (a, b) = (self.col_bounds[j], self.col_bounds[j + 1].min(xs.len()));
            if a >= b {
                continue;
            }
            let cell = &mut self.cells[base + j];
            self.covered[base + j] = true;
            let mut best = *cell;
            for &x in &xs[a..b] {
                let x: f64 = x.into();
                // `best` starts as NaN (no value yet): any finite value replaces it.
                if x.is_finite() && (best.is_nan() || x.abs() > best.abs()) {
                    best = x;
                }
            }
            *cell = best;
        }
    }

    /// Adds source-grid rows `rows` of `values` (the window, row-major: grid row `r` is
    /// `values[r·grid_cols ..]`, `grid_cols` long or cut at the end of `values`).
    pub fn add_rows<T: Copy + Into<f64>>(&mut self, values: &[T], rows: std::ops::Range<usize>) {
        let w = self.grid_cols as usize;
        for r in rows {
            let a = r.saturating_mul(w).min(values.len());
            let b = a.saturating_add(w).min(values.len());
            self.add_row(&values[a..b]);
        }
    }

    /// Finishes: picks the scale limit.
    pub fn finish(self) -> Heatmap {
        let mut mags: Vec<f64> = self
            .cells
            .iter()
            .filter(|v| v.is_finite())
            .map(|v| v.abs())
            .collect();
        let max_abs = mags.iter().copied().fold(0f64, f64::max);
        let limit = if mags.is_empty() {
            1.0
        } else {
            let k = ((mags.len() - 1) as f64 * 0.99).round() as usize;
            let (_, p, _) = mags.select_nth_unstable_by(k, f64::total_cmp);
            let p = *p;
            if p > 0.0 {
                p
            } else if max_abs > 0.0 {
                max_abs
            } else {
                1.0
            }
        };
        Heatmap {
            grid_rows: self.grid_rows,
            grid_cols: self.grid_cols,
            values: self.values,
            wrapped: self.wrapped,
            rows: self.rows,
            cols: self.cols,
            limit,
            max_abs,
            cells: self.cells,
            covered: self.covered,
        }
    }
}

/// Builds a heatmap of a whole `rows × cols` grid held in memory (row-major, `f32` or `f64`).
pub fn heatmap_of<T: Copy + Into<f64>>(values: &[T], rows: u64, cols: u64) -> Heatmap {
    let mut b = HeatmapBuilder::new(rows, cols);
    b.add_rows(values, 0..b.grid_rows() as usize);
    b.finish()
}

/// The colour of `v` on the scale `±limit`.
pub fn color(v: f64, limit: f64) -> [u8; 3] {
    if !v.is_finite() {
        return NAN_RGB;
    }
    let t = (v / limit).clamp(-1.0, 1.0);
    // t in [−1, 1] → position along the 5 stops.
    let pos = (t + 1.0) * 2.0;
    let k = (pos.floor() as usize).min(3);
    let f = pos - k as f64;
    let (a, b) = (STOPS[k], STOPS[k + 1]);
    let mix = |i: usize| (f64::from(a[i]) + (f64::from(b[i]) - f64::from(a[i])) * f).round() as u8;
    [mix(0), mix(1), mix(2)]
}

impl Heatmap {
    /// RGBA pixels, one per cell, row-major (`rows × cols × 4` bytes) for a canvas
    /// `ImageData`; cells that cover no value are transparent.
    pub fn rgba(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.cells.len() * 4);
        for (v, &c) in self.cells.iter().zip(&self.covered) {
            if c {
                let [r, g, b] = color(*v, self.limit);
                out.extend_from_slice(&[r, g, b, 255]);
            } else {
                out.extend_from_slice(&[0, 0, 0, 0]);
            }
        }
        out
    }

    /// The scale as CSS `linear-gradient` stops from −limit (left) to +limit (right).
    pub fn css_gradient() -> String {
        let stops: Vec<String> = STOPS
            .iter()
            .enumerate()
            .map(|(i, [r, g, b])| format!("rgb({r},{g},{b}) {}%", i * 25))
            .collect();
        format!("linear-gradient(to right, {})", stops.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_keep_the_signed_largest_magnitude() {
        // 4×4 → 4×4 cells (no shrinking), then 1024×1024 → 512×512 with 2×2 cells.
        let v: Vec<f32> = (0..16).map(|i| i as f32 - 8.0).collect();
        let h = heatmap_of(&v, 4, 4);
        assert_eq!((h.rows, h.cols), (4, 4));
        assert_eq!(h.cells, v.iter().map(|&x| f64::from(x)).collect::<Vec<_>>());
        let n = 1024usize;
        let mut big = vec![0.5f32; n * n];
        big[3 * n + 5] = -7.0; // row 3, col 5 → cell (1, 2)
        big[1000 * n + 1000] = f32::NAN;
        let h = heatmap_of(&big, n as u64, n as u64);
        assert_eq!((h.rows, h.cols), (512, 512));
        assert_eq!(h.cells[512 + 2], -7.0);
        assert_eq!(h.cells[0], 0.5);
        assert_eq!(h.cells[500 * 512 + 500], 0.5); // NaN ignored next to finite values
        assert_eq!(h.limit, 0.5); // p99 of magnitudes; the one outlier saturates
        assert_eq!(h.max_abs, 7.0);
        assert!(h.covered.iter().all(|&c| c));
    }

    #[test]
    fn a_single_row_wraps_and_uneven_grids_cover_every_value() {
        let v: Vec<f32> = (0..640).map(|i| i as f32).collect();
        let h = heatmap_of(&v, 1, 640);
        assert!(h.wrapped);
        assert_eq!((h.grid_rows, h.grid_cols, h.rows, h.cols), (25, 26, 25, 26));
        assert_eq!(h.cells[639], 639.0);
        assert!(!h.covered[640] && !h.covered[649]);
        // 1000 rows into 512 cell rows: every row lands in exactly one cell row, in order.
        let v: Vec<f32> = (0..1000).map(|i| i as f32).collect();
        let h = heatmap_of(&v, 1000, 1);
        assert_eq!(h.rows, 512);
        assert_eq!(h.cells[511], 999.0);
        let mut prev = -1.0;
        for c in &h.cells {
            assert!(*c > prev);
            prev = *c;
        }
    }

    #[test]
    fn colours_are_centred_on_zero() {
        assert_eq!(color(0.0, 1.0), STOPS[2]);
        assert_eq!(color(-1.0, 1.0), STOPS[0]);
        assert_eq!(color(5.0, 1.0), STOPS[4]);
        assert_eq!(color(0.5, 1.0), STOPS[3]);
        assert_eq!(color(f64::NAN, 1.0), NAN_RGB);
        let h = heatmap_of(&[0f32; 4], 2, 2);
        assert_eq!(h.limit, 1.0);
        assert_eq!(h.rgba().len(), 16);
    }
}
