//! The per-layer quantisation map as a grid: one row per tensor role, one column per layer,
//! each cell coloured by its type, with a legend.

use crate::format::ggml_type::type_tooltip;
use crate::summary::LayerMap;
use crate::text;
use crate::view::colors::{dtype_color, text_on, with_type_tooltip};
use crate::view::node::{self, Node};

/// Most layer columns drawn (real models have up to a few hundred layers); the rest are
/// counted in [`Grid::hidden_layers`].
pub const MAX_LAYERS: usize = 400;
/// Most role rows drawn; the rest are counted in [`Grid::hidden_roles`].
pub const MAX_ROLES: usize = 300;

/// Tooltip hint: roles and cells are links to the tensor list.
pub const PICK_HINT: &str = "click to list these tensors";

/// The tensor-table filter words for a role as the layer map names it: `ffn_down.weight` →
/// `.ffn_down.weight`; with several layer stacks `v.blk.*.attn_q.weight` → `v.blk. .attn_q.weight`.
pub fn role_filter(role: &str) -> String {
    match role.split_once(".*.") {
        Some((stack, rest)) => format!("{stack}. .{rest}"),
        None => format!(".{role}"),
    }
}

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
    /// Tensor-table filter text listing this tensor (`.3. .ffn_down.weight`).
    pub filter: String,
}

/// One role across the layers.
#[derive(Debug, Clone, PartialEq)]
pub struct GridRow {
    /// The role (`ffn_down.weight`), control characters made visible.
    pub role: String,
    /// A one-line summary: `Q6_K ×9, Q8_0 ×9` (most used first).
    pub summary: String,
    /// Tensor-table filter text listing this role on every layer (`.ffn_down.weight`).
    pub filter: String,
    /// Cells aligned with [`Grid::layers`] (`None`: no such tensor on that layer).
    pub cells: Vec<Option<Cell>>,
}

/// One legend entry.
#[derive(Debug, Clone, PartialEq)]
pub struct LegendItem {
    /// The type label.
    pub dtype: String,
    /// Its colour (a CSS colour).
    pub color: &'static str,
    /// Cells of this type in the grid.
    pub cells: u64,
}

/// The grid.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Grid {
    /// Column headings: the layer numbers.
    pub layers: Vec<String>,
    /// One row per role (`attn_q`, `ffn_down`, …).
    pub rows: Vec<GridRow>,
    /// Types in the grid, most cells first (counted over the whole map).
    pub legend: Vec<LegendItem>,
    /// Layers left out past [`MAX_LAYERS`].
    pub hidden_layers: usize,
    /// Roles left out past [`MAX_ROLES`].
    pub hidden_roles: usize,
}

impl Grid {
    /// No tensor has a layer number.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// What was left out, if anything: `showing layers 0–399 (400 of 20,834) and 300 of 512 roles`.
    pub fn cut_note(&self) -> Option<String> {
        let mut parts = Vec::new();
        if self.hidden_layers > 0 {
            let shown = self.layers.len();
            parts.push(format!(
                "the first {} of {} layers",
                text::thousands(shown as u64),
                text::thousands((shown + self.hidden_layers) as u64)
            ));
        }
        if self.hidden_roles > 0 {
            let shown = self.rows.len();
            parts.push(format!(
                "the first {} of {} roles",
                text::thousands(shown as u64),
                text::thousands((shown + self.hidden_roles) as u64)
            ));
        }
        (!parts.is_empty()).then(|| format!("Showing {}.", parts.join(" and ")))
    }
}

/// Builds the grid from the summary's layer map.
pub fn grid(map: &LayerMap) -> Grid {
    let mut legend: Vec<LegendItem> = Vec::new();
    for r in &map.roles {
        for dtype in r.cells.iter().flatten() {
            match legend.iter_mut().find(|l| &l.dtype == dtype) {
                Some(l) => l.cells += 1,
                None => legend.push(LegendItem {
                    dtype: dtype.clone(),
                    color: dtype_color(dtype),
                    cells: 1,
                }),
            }
        }
    }
    let rows = map
        .roles
        .iter()
        .take(MAX_ROLES)
        .map(|r| {
            let role = text::escape(&r.role);
            let filter = role_filter(&r.role);
            let cells = r
                .cells
                .iter()
                .zip(&map.layers)
                .take(MAX_LAYERS)
                .map(|(c, layer)| {
                    c.as_ref().map(|dtype| {
                        let color = dtype_color(dtype);
                        Cell {
                            dtype: dtype.clone(),
                            color,
                            ink: text_on(color),
                            title: format!("layer {layer} · {role} · {dtype}"),
                            filter: format!(".{layer}. {filter}"),
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
                filter,
                cells,
            }
        })
        .collect();
    legend.sort_by(|a, b| b.cells.cmp(&a.cells).then_with(|| a.dtype.cmp(&b.dtype)));
    Grid {
        layers: map
            .layers
            .iter()
            .take(MAX_LAYERS)
            .map(u64::to_string)
            .collect(),
        rows,
        legend,
        hidden_layers: map.layers.len().saturating_sub(MAX_LAYERS),
        hidden_roles: map.roles.len().saturating_sub(MAX_ROLES),
    }
}

/// The card of `g` (`data-testid="layer-map"`): the legend (a swatch, the type with its block
/// layout as tooltip, the cell count), the note when the map is cut, and the map in a
/// keyboard-scrollable box: a row per role (a tab stop with `data-filter`), a cell per layer
/// coloured by type (with `data-filter`), `cell empty` where the layer has no such tensor.
pub fn card(g: &Grid) -> Node {
    let mut card = node::card("Quantisation by layer", "layers").testid("layer-map");
    let body = card.body();
    let legend = node::el("ul", "legend").children(g.legend.iter().map(|l| {
        let mut li = node::el("li", "")
            .child(node::el("span", "swatch").style("background", l.color))
            .child(node::text("span", "mono", &l.dtype));
        if let Some(t) = type_tooltip(&l.dtype) {
            li = li.attr("title", t);
        }
        li.child(node::text("span", "muted", &format!(" ×{}", l.cells)))
    }));
    body.push(legend);
    if let Some(note) = g.cut_note() {
        body.push(node::text("p", "note", &note));
    }

    let head = node::el("tr", "")
        .child(node::text("th", "role-head", "role \\ layer"))
        .children(g.layers.iter().map(|l| node::text("th", "layer-num", l)));
    let rows = g.rows.iter().map(|r| {
        // Keyboard: each role is a tab stop; Enter or Space lists its tensors.
        let th = node::text("th", "role mono", &r.role)
            .attr("title", format!("{} · {}", r.summary, PICK_HINT))
            .attr("data-filter", r.filter.as_str())
            .attr("scope", "row")
            .attr("tabindex", "0")
            .attr(
                "aria-label",
                format!("{}: {}. Enter lists its tensors", r.role, r.summary),
            );
        node::el("tr", "")
            .child(th)
            .children(r.cells.iter().map(|c| {
                match c {
                    Some(c) => node::text("td", "cell", &c.dtype)
                        .attr("title", with_type_tooltip(&c.title, &c.dtype))
                        .attr("data-filter", c.filter.as_str())
                        .style("background", c.color)
                        .style("color", c.ink),
                    None => {
                        node::el("td", "cell empty").attr("title", "no such tensor on this layer")
                    }
                }
            }))
    });
    // Focusable, so the keyboard can scroll a map wider than the screen.
    body.push(node::scrolling_table(
        "layer-scroll",
        "per-layer quantisation map",
        "layer-map",
        head,
        rows,
    ));
    card
}

/// The card of `map`'s grid ([`card`]), or `None` when no tensor name has a layer number
/// (the Histogram tab then has no map).
pub fn map_card(map: &LayerMap) -> Option<Node> {
    let g = grid(map);
    (!g.is_empty()).then(|| card(&g))
}

/// Whether `key` pressed on a focused role (or cell) of the map lists its tensors: Enter or
/// Space, as on a button.
pub fn picks(key: &str) -> bool {
    matches!(key, "Enter" | " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enter_and_space_pick_a_role() {
        assert!(picks("Enter"));
        assert!(picks(" "));
        assert!(!picks("Tab"));
        assert!(!picks("ArrowDown"));
        assert!(!picks("Spacebar"));
    }
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
        let m = crate::open::OpenedModel::from(parse_bytes(&b).unwrap());
        let g = grid(&summarize(&m).layers);
        assert_eq!(g.layers, ["0", "1", "2"]);
        assert_eq!(g.rows.len(), 2);
        assert_eq!(g.rows[0].role, "ffn_down.weight");
        assert_eq!(g.rows[0].cells[0].as_ref().unwrap().dtype, "Q6_K");
        assert_eq!(
            g.rows[0].cells[0].as_ref().unwrap().title,
            "layer 0 · ffn_down.weight · Q6_K"
        );
        assert!(g.rows[0].cells[2].is_none());
        assert_eq!(g.rows[0].filter, ".ffn_down.weight");
        assert_eq!(
            g.rows[0].cells[1].as_ref().unwrap().filter,
            ".1. .ffn_down.weight"
        );
        // The filter lists exactly that tensor.
        let mut t = crate::view::tensors::TensorTable::new(summarize(&m).tensors);
        t.set_filter(&g.rows[1].cells[2].as_ref().unwrap().filter);
        assert_eq!(t.len(), 1);
        assert_eq!(t.row(0).unwrap().name, "blk.2.attn_q.weight");
        t.set_filter(&g.rows[1].filter);
        assert_eq!(t.len(), 3);
        assert_eq!(g.cut_note(), None);
        assert_eq!(g.rows[1].summary, "Q4_K ×3");
        assert_eq!(
            g.legend
                .iter()
                .map(|l| (l.dtype.as_str(), l.cells))
                .collect::<Vec<_>>(),
            [("Q4_K", 4), ("Q6_K", 1)]
        );
        assert_eq!(g.legend[0].color, dtype_color("Q4_K"));
    }

    #[test]
    fn huge_maps_are_cut_with_a_note() {
        use crate::summary::layers::RoleRow;
        let layers: Vec<u64> = (0..20_834).collect();
        let roles: Vec<RoleRow> = (0..12)
            .map(|i| RoleRow {
                role: format!("t{i}.weight"),
                cells: vec![Some("F32".to_string()); layers.len()],
                types: Vec::new(),
            })
            .collect();
        let g = grid(&LayerMap { layers, roles });
        assert_eq!(g.layers.len(), MAX_LAYERS);
        assert!(g.rows.iter().all(|r| r.cells.len() == MAX_LAYERS));
        assert_eq!(g.legend[0].cells, 12 * 20_834);
        assert_eq!(
            g.cut_note().as_deref(),
            Some("Showing the first 400 of 20,834 layers.")
        );
    }

    #[test]
    fn role_filters_name_the_stack_when_there_are_several() {
        assert_eq!(role_filter("attn_q.weight"), ".attn_q.weight");
        assert_eq!(
            role_filter("v.blk.*.attn_q.weight"),
            "v.blk. .attn_q.weight"
        );
    }

    #[test]
    fn models_without_layers_give_an_empty_grid() {
        assert!(grid(&LayerMap::default()).is_empty());
        assert_eq!(map_card(&LayerMap::default()), None);
    }

    #[test]
    fn the_card_of_the_sample() {
        let m = crate::open::OpenedModel::from(
            parse_bytes(include_bytes!("../../www/sample.gguf")).unwrap(),
        );
        let g = grid(&summarize(&m).layers);
        let c = card(&g);
        assert_eq!(map_card(&summarize(&m).layers), Some(c.clone()));
        assert_eq!(c.class, "card layers");
        assert_eq!(c.get_attr("data-testid"), Some("layer-map"));
        let legend = &c.find_class("legend")[0];
        assert_eq!(legend.children.len(), g.legend.len());
        let first = &legend.children[0];
        assert_eq!(
            first.children[0].styles,
            [("background", g.legend[0].color.to_string())]
        );
        assert_eq!(first.children[1].text, Some(g.legend[0].dtype.clone()));
        assert_eq!(
            first.children[2].text,
            Some(format!(" ×{}", g.legend[0].cells))
        );
        let table = &c.find_class("layer-map")[0];
        assert_eq!(table.tag, "table");
        let head = &table.children[0].children[0];
        assert_eq!(head.children.len(), g.layers.len() + 1);
        assert_eq!(head.children[0].text.as_deref(), Some("role \\ layer"));
        let rows = &table.children[1].children;
        assert_eq!(rows.len(), g.rows.len());
        let role = &rows[0].children[0];
        assert_eq!(role.text, Some(g.rows[0].role.clone()));
        assert_eq!(
            role.get_attr("data-filter"),
            Some(g.rows[0].filter.as_str())
        );
        assert_eq!(role.get_attr("tabindex"), Some("0"));
        assert_eq!(rows[0].children.len(), g.layers.len() + 1);
        for (cell, want) in rows[0].children[1..].iter().zip(&g.rows[0].cells) {
            match want {
                Some(w) => {
                    assert_eq!(cell.class, "cell");
                    assert_eq!(cell.text, Some(w.dtype.clone()));
                    assert_eq!(cell.get_attr("data-filter"), Some(w.filter.as_str()));
                    assert_eq!(cell.styles[1], ("color", w.ink.to_string()));
                }
                None => assert_eq!(cell.class, "cell empty"),
            }
        }
    }
}
