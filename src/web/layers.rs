//! The per-layer quantisation map card: roles × layers, each cell coloured by type and
//! carrying the type as text and tooltip (with the type's block layout), with a legend;
//! rendered from [`crate::view::layer_grid::card`], with its click and key listeners.

use std::rc::Rc;

use gloo::events::EventListener;
use wasm_bindgen::JsCast;
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
    let target_filter = |e: &web_sys::Event| {
        e.target()
            .and_then(|t| t.dyn_into::<Element>().ok())
            .and_then(|t| t.closest("[data-filter]").ok().flatten())
            .and_then(|el| el.get_attribute("data-filter"))
    };
    let set = set_filter.clone();
    let click = EventListener::new(&table, "click", move |e| {
        if let Some(text) = target_filter(e) {
            set(&text);
        }
    });
    let opts = gloo::events::EventListenerOptions::enable_prevent_default();
    let key = EventListener::new_with_options(&table, "keydown", opts, move |e| {
        let pressed = e
            .dyn_ref::<web_sys::KeyboardEvent>()
            .is_some_and(|k| k.key() == "Enter" || k.key() == " ");
        if let (true, Some(text)) = (pressed, target_filter(e)) {
            e.prevent_default();
            set_filter(&text);
        }
    });
    Some((card, vec![click, key]))
}
