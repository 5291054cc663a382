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
    // Focusable, so the keyboard can scroll a map wider than the screen.
    attr(&scroller, "tabindex", "0");
    attr(&scroller, "aria-label", "per-layer quantisation map");
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
        // Keyboard: each role is a tab stop; Enter or Space lists its tensors.
        attr(&th, "tabindex", "0");
        attr(
            &th,
            "aria-label",
            &format!("{}: {}. Enter lists its tensors", r.role, r.summary),
        );
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
