//! The dtype histogram card: an inline SVG bar chart (bars from `view::histogram`), a toggle
//! between bytes and tensor counts, and the per-type table (tensors, elements, bytes, bits per
//! weight), as the CLI prints it. Type names carry the type's block layout as a tooltip.
//! Picking a type lists its tensors: a click on its bar or table row, or Enter / Space on the
//! row (each row is a tab stop whose accessible name holds the tooltip and the row's figures;
//! the bars are mouse-only, the table offers the same action).

use std::cell::RefCell;
use std::rc::Rc;

use gloo::events::EventListener;
use web_sys::Element;

use crate::summary::DtypeRow;
use crate::view::histogram::{self, chart, Measure};

use super::dom::{self, attr};

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
        let card = dom::render(&histogram::card(rows));
        let body = dom::find(&card, ".card-body");
        let svg_el = dom::find_testid(&card, "dtype-histogram").expect("the chart");
        let found = dom::all(&card, ".toggle button");
        let buttons: Vec<(Measure, Element)> = [Measure::Bytes, Measure::Tensors]
            .into_iter()
            .zip(found)
            .collect();

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
        // A bar (data-dtype) or a table row (data-pick) lists its tensors: by click; a row (a
        // tab stop) also by Enter or Space, as a click (Space would scroll the page).
        let keys = |k: &web_sys::KeyboardEvent| {
            let (alt, ctrl, meta) = (k.alt_key(), k.ctrl_key(), k.meta_key());
            histogram::picks(&k.key(), alt, ctrl, meta, k.repeat())
        };
        let (on, names) = ("[data-dtype], [data-pick]", &["data-dtype", "data-pick"]);
        listeners.extend(dom::on_pick(&body, on, names, keys, move |t| pick(t)));
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
        attr(b, "aria-pressed", m.pressed(st.measure));
    }
    let svg_el = &st.svg;
    dom::clear(svg_el);
    let client = svg_el.parent_element().map_or(0, |p| p.client_width());
    let c = chart(&st.rows, st.measure, histogram::chart_width(client));
    for (name, value) in c.svg_attrs() {
        attr(svg_el, name, &value);
    }
    dom::append_nodes(svg_el, &histogram::chart_nodes(&c));
}
