//! The tensor table card: sortable headers, a filter box, and a virtualised body (a fixed-height
//! scroll container; only the rows `view::viewport` picks exist in the DOM, between two spacer
//! rows), so 250,000 tensors scroll as smoothly as 200.

use std::cell::RefCell;
use std::rc::Rc;

use gloo::events::EventListener;
use gloo::timers::callback::Timeout;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlInputElement};

use crate::summary::TensorRow;
use crate::view::colors::{dtype_color, text_on};
use crate::view::facts::{shape_order_note, shape_toggle_label};
use crate::view::tensors::{Column, TensorTable, FILTER_HINT};
use crate::view::viewport::{Viewport, Window};

use super::dom::{self, append, attr, el_class, el_text};

/// Milliseconds the filter waits for typing to pause before filtering a big table.
const FILTER_DELAY_MS: u32 = 120;

struct State {
    table: TensorTable,
    card: Element,
    input: HtmlInputElement,
    scroller: Element,
    tbody: Element,
    headers: Vec<(Column, Element)>,
    count: Element,
    /// The window drawn last, to skip redraws when a scroll does not change it.
    drawn: Option<Window>,
    /// Rows open a preview (focusable, with their file index) once a listener is attached.
    openable: bool,
    /// The columns shown (no part column for a single file).
    columns: Vec<Column>,
}

/// The live tensor table.
pub struct TensorTableView {
    state: Rc<RefCell<State>>,
    _listeners: Vec<EventListener>,
}

impl TensorTableView {
    /// The card for `rows`; `part_names` are the files of a model merged from several (empty
    /// for one file: then there is no part column).
    pub fn new(
        rows: Vec<TensorRow>,
        part_names: Vec<String>,
        format: &str,
        announced: u64,
    ) -> (Element, TensorTableView) {
        let tensor_table = TensorTable::with_parts(rows, part_names);
        let columns = tensor_table.columns();
        let (card, body) = dom::card("Tensors", "tensors");
        let head = dom::card_head(&card);
        let count = el_class("span", "count muted");
        append(&head, &count);
        let filter = dom::search_input("filter by name or type", "filter tensors by name or type");
        attr(&filter, "title", FILTER_HINT);
        append(&head, &filter);
        let note = el_class("p", "note");
        let note_text = el_text("span", "", shape_order_note(format, false));
        append(&note, &note_text);
        let shape_button = shape_toggle_label(format, false).map(|label| {
            let b = el_text("button", "link", label);
            attr(&b, "type", "button");
            append(&note, &b);
            b
        });
        append(&body, &note);
        if (tensor_table.total() as u64) < announced {
            append(
                &body,
                &el_text(
                    "p",
                    "note warn",
                    &crate::view::tensors::partial_text(tensor_table.total(), announced),
                ),
            );
        }

        let scroller = el_class("div", "table-scroll tensor-scroll");
        attr(&scroller, "tabindex", "0");
        let table = el_class("table", "tensor-table");
        attr(&table, "data-testid", "tensor-table");
        let colgroup = dom::el("colgroup");
        for &c in &columns {
            append(&colgroup, &el_class("col", c.class()));
        }
        append(&table, &colgroup);
        let thead = dom::el("thead");
        let tr = dom::el("tr");
        attr(&tr, "aria-rowindex", "1");
        let mut headers = Vec::new();
        for &c in &columns {
            let th = el_class(
                "th",
                &format!("{}{}", c.class(), if c.numeric() { " num" } else { "" }),
            );
            attr(&th, "scope", "col");
            let b = el_class("button", "sort");
            attr(&b, "type", "button");
            append(&th, &b);
            append(&tr, &th);
            headers.push((c, th));
        }
        append(&thead, &tr);
        append(&table, &thead);
        let tbody = dom::el("tbody");
        append(&table, &tbody);
        append(&scroller, &table);
        append(&body, &scroller);

        let state = Rc::new(RefCell::new(State {
            table: tensor_table,
            card: card.clone(),
            input: filter.clone(),
            scroller: scroller.clone(),
            tbody,
            headers: headers.clone(),
            count,
            drawn: None,
            openable: false,
            columns,
        }));
        state.borrow().update_headers();

        let mut listeners = Vec::new();
        let st = state.clone();
        listeners.push(EventListener::new(&scroller, "scroll", move |_| {
            st.borrow_mut().draw(false);
        }));
        let st = state.clone();
        listeners.push(EventListener::new(
            &gloo::utils::window(),
            "resize",
            move |_| {
                st.borrow_mut().draw(true);
            },
        ));
        for (c, th) in headers {
            let st = state.clone();
            listeners.push(EventListener::new(&th, "click", move |_| {
                let mut s = st.borrow_mut();
                s.table.click(c);
                s.update_headers();
                s.draw(true);
            }));
        }
        if let Some(b) = shape_button {
            let st = state.clone();
            let format = format.to_string();
            let button = b.clone();
            listeners.push(EventListener::new(&b, "click", move |_| {
                let mut s = st.borrow_mut();
                let on = !s.table.reversed_shapes();
                s.table.set_reversed_shapes(on);
                note_text.set_text_content(Some(shape_order_note(&format, on)));
                button.set_text_content(shape_toggle_label(&format, on));
                s.draw(true);
            }));
        }
        // The pending filter run: replaced (and so cancelled) by each keystroke, dropped with
        // the listener that owns it.
        let pending: Rc<RefCell<Option<Timeout>>> = Rc::new(RefCell::new(None));
        let st = state.clone();
        let input = filter.clone();
        listeners.push(EventListener::new(&filter, "input", move |_| {
            let st = st.clone();
            let input = input.clone();
            let delay = if st.borrow().table.total() > 20_000 {
                FILTER_DELAY_MS
            } else {
                0
            };
            *pending.borrow_mut() = Some(Timeout::new(delay, move || {
                let mut s = st.borrow_mut();
                if s.table.set_filter(&input.value()) {
                    s.scroller.set_scroll_top(0);
                    s.draw(true);
                }
            }));
        }));
        (
            card,
            TensorTableView {
                state,
                _listeners: listeners,
            },
        )
    }

    /// A handle other cards use to list some tensors (one type, one role): puts `text` in
    /// the filter box, filters, and brings the table into view.
    pub fn filter_setter(&self) -> Rc<dyn Fn(&str)> {
        let st = self.state.clone();
        Rc::new(move |text: &str| {
            let mut s = st.borrow_mut();
            s.input.set_value(text);
            s.table.set_filter(text);
            s.scroller.set_scroll_top(0);
            s.draw(true);
            s.card.scroll_into_view();
        })
    }

    /// Listeners that call `open(file_index)` when a tensor row is clicked or Enter is pressed
    /// on a focused row (delegated to the table body, so the virtualised rows need none).
    pub fn open_listeners(&self, open: Rc<dyn Fn(usize)>) -> Vec<EventListener> {
        let tbody = self.state.borrow().tbody.clone();
        let index_of = |e: &web_sys::Event| {
            e.target()
                .and_then(|t| t.dyn_into::<Element>().ok())
                .and_then(|el| el.closest("tr[data-file-index]").ok().flatten())
                .and_then(|tr| tr.get_attribute("data-file-index"))
                .and_then(|i| i.parse::<usize>().ok())
        };
        {
            let st = self.state.clone();
            st.borrow_mut().openable = true;
            st.borrow_mut().draw(true);
        }
        let o = open.clone();
        let click = EventListener::new(&tbody, "click", move |e| {
            if let Some(i) = index_of(e) {
                o(i);
            }
        });
        let opts = gloo::events::EventListenerOptions::enable_prevent_default();
        let key = EventListener::new_with_options(&tbody, "keydown", opts, move |e| {
            let enter = e
                .dyn_ref::<web_sys::KeyboardEvent>()
                .is_some_and(|k| k.key() == "Enter");
            if let (true, Some(i)) = (enter, index_of(e)) {
                e.prevent_default();
                open(i);
            }
        });
        vec![click, key]
    }

    /// Draws the rows in view; call once the card is in the document.
    pub fn draw_now(&self) {
        self.state.borrow_mut().draw(true);
    }
}

impl State {
    fn update_headers(&self) {
        for (c, th) in &self.headers {
            attr(th, "aria-sort", self.table.aria_sort(*c));
            if let Some(b) = th.first_element_child() {
                b.set_text_content(Some(&self.table.header(*c)));
            }
        }
        self.count.set_text_content(Some(&self.table.count_text()));
    }

    fn draw(&mut self, force: bool) {
        let v = Viewport::TABLE;
        // Before the first draw the container is only as tall as its header; the window's
        // height bounds it (CSS caps the container at 70vh).
        let window_h = gloo::utils::window()
            .inner_height()
            .ok()
            .and_then(|h| h.as_f64())
            .unwrap_or(800.0);
        let view_h = f64::from(self.scroller.client_height()).max(window_h);
        let w = v.window(
            self.table.len(),
            f64::from(self.scroller.scroll_top()),
            view_h,
        );
        if !force && self.drawn == Some(w) {
            return;
        }
        self.drawn = Some(w);
        self.count.set_text_content(Some(&self.table.count_text()));
        // Screen readers learn the full size of the virtualised table, and each row's place.
        if let Some(table) = self.tbody.parent_element() {
            attr(&table, "aria-rowcount", &(self.table.len() + 1).to_string());
        }
        dom::clear(&self.tbody);
        append(&self.tbody, &dom::spacer_row(w.top, self.columns.len()));
        for pos in w.start..w.end {
            if let Some(tr) = self.row(pos) {
                append(&self.tbody, &tr);
            }
        }
        append(&self.tbody, &dom::spacer_row(w.bottom, self.columns.len()));
        if self.table.is_empty() {
            let tr = dom::el("tr");
            let td = el_text("td", "muted empty-row", "no matching tensors");
            attr(&td, "colspan", &self.columns.len().to_string());
            append(&tr, &td);
            append(&self.tbody, &tr);
        }
    }

    fn row(&self, pos: usize) -> Option<Element> {
        let cells = self.table.cells(pos)?;
        let r = self.table.row(pos)?;
        let tr = el_class("tr", if pos % 2 == 1 { "odd" } else { "" });
        attr(&tr, "aria-rowindex", &(pos + 2).to_string());
        if self.openable {
            if let Some(i) = self.table.file_index(pos) {
                attr(&tr, "data-file-index", &i.to_string());
                attr(&tr, "tabindex", "0");
                attr(&tr, "title", "click or press Enter to preview the values");
                tr.class_list().add_1("openable").ok();
            }
        }
        for (c, text) in Column::ALL.iter().zip(cells) {
            if !self.columns.contains(c) {
                continue;
            }
            let td = el_class(
                "td",
                &format!("{}{}", c.class(), if c.numeric() { " num" } else { "" }),
            );
            if *c == Column::Type {
                let chip = el_text("span", "chip", &text);
                let bg = dtype_color(&r.dtype);
                attr(
                    &chip,
                    "style",
                    &format!("background:{bg};color:{}", text_on(bg)),
                );
                append(&td, &chip);
            } else {
                td.set_text_content(Some(&text));
            }
            if let Some(t) = self.table.title(pos, *c) {
                attr(&td, "title", &t);
            }
            if *c == Column::Name && r.note.is_some() {
                td.class_list().add_1("has-note").ok();
            }
            append(&tr, &td);
        }
        Some(tr)
    }
}
