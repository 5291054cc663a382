//! The per-layer quantisation map card: roles × layers, each cell coloured by type and
//! carrying the type as text and tooltip (with the type's block layout), with a legend;
//! rendered from [`crate::view::layer_grid::card`], with its click and key listeners.

use std::rc::Rc;

use gloo::events::EventListener;
use web_sys::Element;

use crate::summary::LayerMap;
use crate::view::layer_grid::{self, grid};

use super::dom;

/// The card and its listeners (a role or a cell lists its tensors through `set_filter`, by
/// click; a role also by Enter or Space, each role being a tab stop), or `None` when no
/// tensor name has a layer number.
pub fn layer_card(
    map: &LayerMap,
    set_filter: Rc<dyn Fn(&str)>,
) -> Option<(Element, Vec<EventListener>)> {
    let g = grid(map);
    if g.is_empty() {
        return None;
    }
    let card = dom::render(&layer_grid::card(&g));
    let table = dom::find(&card, "table.layer-map");
    let keys = |k: &web_sys::KeyboardEvent| layer_grid::picks(&k.key());
    let ls = dom::on_pick(&table, "[data-filter]", &["data-filter"], keys, move |f| {
        set_filter(f)
    });
    Some((card, ls.into()))
}
