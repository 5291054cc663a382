//! The per-layer quantisation map as a grid: one row per tensor role, one column per layer,
//! each cell coloured by its type, with a legend.

use crate::summary::{display, LayerMap};
use crate::view::colors::{dtype_color, text_on};

/// One cell.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// Type label (`Q6_K`).
    pub dtype: String,
    /// Fill colour.
    pub color: &'static str,
    /// Text colour on the fill.
    pub ink: &'static str,
    /// Tooltip: `layer 3 · ffn_down.weight · Q6_K`.
    pub title: String,
}

/// One role across the layers.
#[derive(Debug, Clone, PartialEq)]
pub struct GridRow {
    /// The role (`ffn_down.weight`), control characters made visible.
    pub role: String,
    /// A one-line summary: `Q6_K ×9, Q8_0 ×9` (most used first).
    pub summary: String,
    /// Cells aligned with [`Grid::layers`] (`None`: no such tensor on that layer).
    pub cells: Vec<Option<Cell>>,
}

/// One legend entry.
#[derive(Debug, Clone, PartialEq)]
pub struct LegendItem {
    pub dtype: String,
    pub color: &'static str,
    /// Cells of this type in the grid.
    pub cells: u64,
}

/// The grid.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Grid {
    /// Column headings: the layer numbers.
    pub layers: Vec<String>,
    pub rows: Vec<GridRow>,
    /// Types in the grid, most cells first.
    pub legend: Vec<LegendItem>,
}

impl Grid {
    /// No tensor has a layer number.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}

/// Builds the grid from the summary's layer map.
pub fn grid(map: &LayerMap) -> Grid {
    let mut legend: Vec<LegendItem> = Vec::new();
    let rows = map
        .roles
        .iter()
        .map(|r| {
            let role = display::escape(&r.role);
            let cells = r
                .cells
                .iter()
                .zip(&map.layers)
                .map(|(c, layer)| {
                    c.as_ref().map(|dtype| {
                        match legend.iter_mut().find(|l| &l.dtype == dtype) {
                            Some(l) => l.cells += 1,
                            None => legend.push(LegendItem {
                                dtype: dtype.clone(),
                                color: dtype_color(dtype),
                                cells: 1,
                            }),
                        }
                        let color = dtype_color(dtype);
                        Cell {
                            dtype: dtype.clone(),
                            color,
                            ink: text_on(color),
                            title: format!("layer {layer} · {role} · {dtype}"),
                        }
                    })
                })
                .collect();
            let summary = r
                .types
                .iter()
                .map(|t| format!("{} ×{}", t.dtype, t.layers.len()))
                .collect::<Vec<_>>()
                .join(", ");
            GridRow {
                role,
                summary,
                cells,
            }
        })
        .collect();
    legend.sort_by(|a, b| b.cells.cmp(&a.cells).then_with(|| a.dtype.cmp(&b.dtype)));
    Grid {
        layers: map.layers.iter().map(u64::to_string).collect(),
        rows,
        legend,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::parse_bytes;
    use crate::summary::summarize;
    use crate::view::testutil::gguf;

    #[test]
    fn grid_has_a_cell_per_role_and_layer_with_a_legend() {
        let b = gguf(
            &[],
            &[
                ("token_embd.weight", 0, vec![4], 16),
                ("blk.0.ffn_down.weight", 14, vec![256], 210),
                ("blk.0.attn_q.weight", 12, vec![256], 144),
                ("blk.1.ffn_down.weight", 12, vec![256], 144),
                ("blk.1.attn_q.weight", 12, vec![256], 144),
                ("blk.2.attn_q.weight", 12, vec![256], 144),
            ],
        );
        let m = parse_bytes(&b).unwrap();
        let g = grid(&summarize(&m).layers);
        assert_eq!(g.layers, ["0", "1", "2"]);
        assert_eq!(g.rows.len(), 2);
        assert_eq!(g.rows[0].role, "ffn_down.weight");
        assert_eq!(g.rows[0].cells[0].as_ref().unwrap().dtype, "Q6_K");
        assert_eq!(g.rows[0].cells[0].as_ref().unwrap().title, "layer 0 · ffn_down.weight · Q6_K");
        assert!(g.rows[0].cells[2].is_none());
        assert_eq!(g.rows[1].summary, "Q4_K ×3");
        assert_eq!(g.legend.iter().map(|l| (l.dtype.as_str(), l.cells)).collect::<Vec<_>>(), [("Q4_K", 4), ("Q6_K", 1)]);
        assert_eq!(g.legend[0].color, dtype_color("Q4_K"));
    }

    #[test]
    fn models_without_layers_give_an_empty_grid() {
        assert!(grid(&LayerMap::default()).is_empty());
    }
}
