//! The dtype histogram card: an inline SVG bar chart (bars from `view::histogram`), a toggle
//! between bytes and tensor counts, and the per-type table (tensors, elements, bytes, bits per
//! weight), as the CLI prints it. Type names carry the type's block layout as a tooltip.
//! Picking a type lists its tensors: a click on its bar or table row, or Enter / Space on the
//! row (each row is a tab stop whose accessible name holds the tooltip and the row's figures;
//! the bars are mouse-only, the table offers the same action).

use std::cell::RefCell;
use std::rc::Rc;

use gloo::events::EventListener;
use wasm_bindgen::JsCast;
use web_sys::Element;

use crate::format::ggml_type::type_tooltip;
use crate::summary::DtypeRow;
use crate::view::colors::with_type_tooltip;
use crate::view::histogram::{chart, type_lines, Measure, PICK_HINT};

use super::dom::{self, append, attr, el_class, el_text, svg};

struct State {
    rows: Vec<DtypeRow>,
    measure: Measure,
    svg: Element,
    buttons: Vec<(Measure, Element)>,
}

/// The live chart: its state and listeners.
pub struct HistogramView {
    state: Rc<RefCell<State>>,
    _listeners: Vec<EventListener>,
}

impl HistogramView {
    /// Builds the card; call [`HistogramView::draw`] once it is in the document.
    /// `pick` is called with a type label when its bar or table row is clicked.
    pub fn new(rows: &[DtypeRow], pick: Rc<dyn Fn(&str)>) -> (Element, HistogramView) {
        let (card, body) = dom::card("Tensor types", "types");
        let toggle = el_class("div", "toggle");
        attr(&toggle, "role", "group");
        attr(&toggle, "aria-label", "measure");
        let mut buttons = Vec::new();
        for m in [Measure::Bytes, Measure::Tensors] {
            let b = el_text("button", "", m.label());
            attr(&b, "type", "button");
            append(&toggle, &b);
            buttons.push((m, b));
        }
        if !rows.is_empty() {
            append(&dom::card_head(&card), &toggle);
        }

        let chart_box = el_class("div", "chart");
        attr(&chart_box, "title", PICK_HINT);
        let svg_el = svg("svg");
        attr(&svg_el, "data-testid", "dtype-histogram");
        attr(&svg_el, "role", "img");
        attr(&svg_el, "aria-label", "tensor types");
        append(&chart_box, &svg_el);
        append(&body, &chart_box);
        if !rows.is_empty() {
            let wrap = el_class("div", "type-wrap");
            append(&wrap, &type_table(rows));
            append(&body, &wrap);
        }

        let state = Rc::new(RefCell::new(State {
            rows: rows.to_vec(),
            measure: Measure::Bytes,
            svg: svg_el,
            buttons: buttons.clone(),
        }));
        let mut listeners = Vec::new();
        for (m, b) in buttons {
            let st = state.clone();
            listeners.push(EventListener::new(&b, "click", move |_| {
                st.borrow_mut().measure = m;
                draw(&st.borrow());
            }));
        }
        let pick2 = pick.clone();
        // One delegated listener: a bar (data-dtype) or a table row (data-pick) lists its tensors.
        listeners.push(EventListener::new(&body, "click", move |e| {
            let picked = e
                .target()
                .and_then(|t| t.dyn_into::<Element>().ok())
                .and_then(|t| t.closest("[data-dtype], [data-pick]").ok().flatten())
                .and_then(|el| {
                    el.get_attribute("data-dtype")
                        .or_else(|| el.get_attribute("data-pick"))
                });
            if let Some(dtype) = picked {
                pick(&dtype);
            }
        }));
        // Enter or Space on a focused type row, as a click (Space would scroll the page).
        listeners.push(EventListener::new_with_options(
            &body,
            "keydown",
            gloo::events::EventListenerOptions::enable_prevent_default(),
            move |e| {
                let Some(k) = e.dyn_ref::<web_sys::KeyboardEvent>() else {
                    return;
                };
                if !matches!(k.key().as_str(), "Enter" | " ")
                    || k.alt_key()
                    || k.ctrl_key()
                    || k.meta_key()
                    || k.repeat()
                {
                    return;
                }
                let picked = e
                    .target()
                    .and_then(|t| t.dyn_into::<Element>().ok())
                    .and_then(|t| t.get_attribute("data-pick"));
                if let Some(dtype) = picked {
                    e.prevent_default();
                    pick2(&dtype);
                }
            },
        ));
        let st = state.clone();
        listeners.push(EventListener::new(
            &gloo::utils::window(),
            "resize",
            move |_| {
                draw(&st.borrow());
            },
        ));
        (
            card,
            HistogramView {
                state,
                _listeners: listeners,
            },
        )
    }

    /// Draws the chart at its container's width.
    pub fn draw(&self) {
        draw(&self.state.borrow());
    }
}

fn draw(st: &State) {
    for (m, b) in &st.buttons {
        attr(
            b,
            "aria-pressed",
            if *m == st.measure { "true" } else { "false" },
        );
    }
    let svg_el = &st.svg;
    dom::clear(svg_el);
    let width = svg_el
        .parent_element()
        .map(|p| p.client_width())
        .filter(|&w| w > 0)
        .unwrap_or(560);
    let c = chart(&st.rows, st.measure, f64::from(width).max(320.0));
    attr(svg_el, "viewBox", &format!("0 0 {} {}", c.width, c.height));
    attr(svg_el, "width", &c.width.to_string());
    attr(svg_el, "height", &c.height.to_string());
    if c.bars.is_empty() {
        let t = svg("text");
        attr(&t, "x", "0");
        attr(&t, "y", "20");
        attr(&t, "class", "chart-empty");
        t.set_text_content(Some("no tensors"));
        append(svg_el, &t);
        return;
    }
    let mid = c.bar_height / 2.0;
    for b in &c.bars {
        let g = svg("g");
        attr(&g, "data-dtype", &b.dtype);
        attr(&g, "data-count", &b.tensors.to_string());
        attr(&g, "data-bytes", &b.bytes.to_string());
        let title = svg("title");
        title.set_text_content(Some(&with_type_tooltip(&b.title, &b.dtype)));
        append(&g, &title);

        let label = svg("text");
        attr(&label, "x", &(c.bar_x - 10.0).to_string());
        attr(&label, "y", &(b.y + 5.0 + mid).to_string());
        attr(&label, "dominant-baseline", "central");
        attr(&label, "text-anchor", "end");
        attr(&label, "class", "bar-label");
        label.set_text_content(Some(&b.dtype));
        append(&g, &label);

        let rect = svg("rect");
        attr(&rect, "x", &c.bar_x.to_string());
        attr(&rect, "y", &(b.y + 5.0).to_string());
        attr(&rect, "width", &b.width.to_string());
        attr(&rect, "height", &c.bar_height.to_string());
        attr(&rect, "rx", "3");
        attr(&rect, "fill", b.color);
        append(&g, &rect);

        let value = svg("text");
        attr(&value, "x", &(c.bar_x + b.width + 8.0).to_string());
        attr(&value, "y", &(b.y + 5.0 + mid).to_string());
        attr(&value, "dominant-baseline", "central");
        attr(&value, "class", "bar-value");
        value.set_text_content(Some(&b.value_text));
        append(&g, &value);
        append(svg_el, &g);
    }
}

/// The per-type figures as a table (the CLI's "types" section).
fn type_table(rows: &[DtypeRow]) -> Element {
    let table = el_class("table", "type-table");
    let thead = dom::el("thead");
    let tr = dom::el("tr");
    for (h, num) in [
        ("type", false),
        ("tensors", true),
        ("elements", true),
        ("bytes", true),
        ("bits / weight", true),
    ] {
        append(&tr, &el_text("th", if num { "num" } else { "" }, h));
    }
    append(&thead, &tr);
    append(&table, &thead);
    let tbody = dom::el("tbody");
    for l in type_lines(rows) {
        let tr = dom::el("tr");
        attr(&tr, "data-pick", &l.dtype);
        attr(&tr, "title", PICK_HINT);
        attr(&tr, "tabindex", "0");
        attr(&tr, "aria-label", &row_label(&l));
        let td = dom::el("td");
        let swatch = el_class("span", "swatch");
        dom::style(&swatch, &[("background", l.color)]);
        append(&td, &swatch);
        append(&td, &el_text("span", "mono", &l.dtype));
        let tip =
            type_tooltip(&l.dtype).map_or(PICK_HINT.to_string(), |t| format!("{t}\n{PICK_HINT}"));
        attr(&td, "title", &tip);
        attr(&td, "data-testid", "type-name");
        append(&tr, &td);
        append(&tr, &el_text("td", "num", &l.tensors));
        append(&tr, &el_text("td", "num", &l.elements));
        let bytes = el_text("td", "num", &l.bytes);
        attr(&bytes, "title", &l.bytes_exact);
        append(&tr, &bytes);
        append(&tr, &el_text("td", "num", &l.bits_per_weight));
        append(&tbody, &tr);
    }
    append(&table, &tbody);
    table
}

/// The accessible name of a type row: the type's tooltip (its block layout), the row's figures
/// and what Enter does, e.g. `Q6_K: 256 weights per block, 210 bytes per block, 6.5625 bits per
/// weight; 9 tensors, 11,796,480 elements, 9.3 MiB, 6.562 bits per weight; Enter lists its
/// tensors`.
fn row_label(l: &crate::view::histogram::TypeLine) -> String {
    format!(
        "{}; {} tensor{}, {} elements, {}, {} bits per weight; Enter lists its tensors",
        type_tooltip(&l.dtype).unwrap_or_else(|| l.dtype.clone()),
        l.tensors,
        if l.tensors == "1" { "" } else { "s" },
        l.elements,
        l.bytes,
        l.bits_per_weight,
    )
}
