//! The per-layer quantisation map card: roles × layers, each cell coloured by type and
//! carrying the type as text and tooltip (with the type's block layout), with a legend.

use std::rc::Rc;

use gloo::events::EventListener;
use wasm_bindgen::JsCast;
use web_sys::Element;

use crate::format::ggml_type::type_tooltip;
use crate::summary::LayerMap;
use crate::view::layer_grid::{grid, PICK_HINT};

use super::dom::{self, append, attr, el_class, el_text};
use super::histogram::with_type_tooltip;

/// The card and its click listener (a role or a cell lists its tensors through
/// `set_filter`), or `None` when no tensor name has a layer number.
pub fn layer_card(
    map: &LayerMap,
    set_filter: Rc<dyn Fn(&str)>,
) -> Option<(Element, EventListener)> {
    let g = grid(map);
    if g.is_empty() {
        return None;
    }
    let (card, body) = dom::card("Quantisation by layer", "layers");
    attr(&card, "data-testid", "layer-map");

    let legend = el_class("ul", "legend");
    for l in &g.legend {
        let li = dom::el("li");
        let sw = el_class("span", "swatch");
        dom::style(&sw, &[("background", l.color)]);
        append(&li, &sw);
        append(&li, &el_text("span", "mono", &l.dtype));
        if let Some(t) = type_tooltip(&l.dtype) {
            attr(&li, "title", &t);
        }
        append(&li, &el_text("span", "muted", &format!(" ×{}", l.cells)));
        append(&legend, &li);
    }
    append(&body, &legend);
    if let Some(note) = g.cut_note() {
        append(&body, &el_text("p", "note", &note));
    }

    let scroller = el_class("div", "layer-scroll");
    let table = el_class("table", "layer-map");
    let thead = dom::el("thead");
    let tr = dom::el("tr");
    append(&tr, &el_text("th", "role-head", "role \\ layer"));
    for l in &g.layers {
        append(&tr, &el_text("th", "layer-num", l));
    }
    append(&thead, &tr);
    append(&table, &thead);
    let tbody = dom::el("tbody");
    for r in &g.rows {
        let tr = dom::el("tr");
        let th = el_text("th", "role mono", &r.role);
        attr(&th, "title", &format!("{} · {}", r.summary, PICK_HINT));
        attr(&th, "data-filter", &r.filter);
        attr(&th, "scope", "row");
        append(&tr, &th);
        for c in &r.cells {
            match c {
                Some(c) => {
                    let td = el_text("td", "cell", &c.dtype);
                    attr(&td, "title", &with_type_tooltip(&c.title, &c.dtype));
                    attr(&td, "data-filter", &c.filter);
                    dom::style(&td, &[("background", c.color), ("color", c.ink)]);
                    append(&tr, &td);
                }
                None => {
                    let td = el_class("td", "cell empty");
                    attr(&td, "title", "no such tensor on this layer");
                    append(&tr, &td);
                }
            }
        }
        append(&tbody, &tr);
    }
    append(&table, &tbody);
    append(&scroller, &table);
    append(&body, &scroller);
    let listener = EventListener::new(&table, "click", move |e| {
        let text = e
            .target()
            .and_then(|t| t.dyn_into::<Element>().ok())
            .and_then(|t| t.closest("[data-filter]").ok().flatten())
            .and_then(|el| el.get_attribute("data-filter"));
        if let Some(text) = text {
            set_filter(&text);
        }
    });
    Some((card, listener))
}
