//! The tensor table card: sortable headers, a filter box, and a virtualised body (a fixed-height
//! scroll container; only the rows `view::viewport` picks exist in the DOM, between two spacer
//! rows), so 250,000 tensors scroll as smoothly as 200.
//!
//! [`VirtualBody`] and [`virtual_listeners`] are that body and its listeners (scroll, resize,
//! keyboard focus), shared with the tokenizer card's token and merges lists.

use std::cell::RefCell;
use std::rc::Rc;

use gloo::events::EventListener;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlInputElement};

use crate::summary::TensorRow;
use crate::view::facts::{shape_order_note, shape_toggle_label};
use crate::view::node::Node;
use crate::view::tensor_card;
use crate::view::tensors::{Column, TensorTable};
use crate::view::viewport::Viewport;
use crate::view::virtual_body::{
    list_position, more_sides, plain_key, BodyPage, BodyState, KeyOn, REVEAL_ROW,
};

use super::dom::{self, attr, focus_quietly, window_height};

/// The elements of a virtualised table's body, which its [`BodyState`] reads and draws through
/// ([`BodyPage`]): the scroll container and the `<tbody>` (a top spacer, the rows in view, a
/// bottom spacer). Every drawn row carries `aria-rowindex` (the header row is 1, list position
/// `p` is `p + 2`) and a `tabindex`: 0 on the tab stop, -1 on the others.
pub(super) struct BodyElements {
    pub scroller: Element,
    pub tbody: Element,
    columns: usize,
    /// What [`BodyElements::mark_more`] wrote last (the sides, the scroll bars' sizes): it
    /// writes only a change (a write costs a style recalculation).
    marked: std::cell::Cell<Option<(Option<&'static str>, f64, f64)>>,
}

impl BodyElements {
    /// The drawn row at list position `pos`.
    fn row_element(&self, pos: usize) -> Option<Element> {
        self.tbody
            .query_selector(&format!(":scope > tr[aria-rowindex=\"{}\"]", pos + 2))
            .ok()
            .flatten()
    }
}

impl BodyElements {
    /// Marks on the frame around the scroll container (`div.table-frame`, if any) which sides
    /// hide columns (`data-more`, [`more_sides`]), and the scroll bars' sizes (`--bar-w`,
    /// `--bar-h`), which the fades stay clear of. It reads the layout: only for a measured
    /// table ([`BodyState::measured`]) or after the first paint ([`TensorTableView::draw_now`]).
    fn mark_more(&self) {
        let s = &self.scroller;
        let Some(frame) = s
            .parent_element()
            .filter(|p| p.class_list().contains("table-frame"))
        else {
            return;
        };
        let (left, width) = (f64::from(s.scroll_left()), f64::from(s.client_width()));
        let sides = more_sides(left, width, f64::from(s.scroll_width()));
        // The box holds the borders (clientLeft, clientTop) and the scroll bar.
        let bar = |outer: f64, client: i32, border: i32| {
            (outer - f64::from(client) - 2.0 * f64::from(border))
                .round()
                .max(0.0)
        };
        let b = s.get_bounding_client_rect();
        let w = bar(b.width(), s.client_width(), s.client_left());
        let h = bar(b.height(), s.client_height(), s.client_top());
        if self.marked.replace(Some((sides, w, h))) == Some((sides, w, h)) {
            return;
        }
        match sides {
            Some(side) => attr(&frame, "data-more", side),
            None => {
                let _ = frame.remove_attribute("data-more");
            }
        }
        dom::style(
            &frame,
            &[
                ("--bar-w", &format!("{w}px")),
                ("--bar-h", &format!("{h}px")),
            ],
        );
    }
}

impl BodyPage for BodyElements {
    fn columns(&self) -> usize {
        self.columns
    }

    fn scroll_top(&self) -> f64 {
        f64::from(self.scroller.scroll_top())
    }

    fn set_scroll_top(&self, top: f64) {
        self.scroller.set_scroll_top(top as i32);
    }

    fn client_height(&self) -> f64 {
        f64::from(self.scroller.client_height())
    }

    fn window_height(&self) -> f64 {
        window_height()
    }

    fn header_height(&self) -> f64 {
        self.tbody
            .previous_element_sibling()
            .map_or(0.0, |h| h.get_bounding_client_rect().height())
    }

    /// In the page, or in the shadow root of an embedded view, whose `activeElement` the
    /// document does not see.
    fn body_focused(&self) -> bool {
        let root = self.tbody.get_root_node();
        js_sys::Reflect::get(&root, &"activeElement".into())
            .ok()
            .and_then(|a| a.dyn_into::<web_sys::Node>().ok())
            .is_some_and(|a| self.tbody.contains(Some(&a)))
    }

    fn fill(&self, rows: usize, body: Vec<Node>) {
        if let Some(table) = self.tbody.parent_element() {
            attr(&table, "aria-rowcount", &(rows + 1).to_string());
        }
        dom::fill(&self.tbody, &body);
    }

    fn focus_row(&self, pos: usize, reveal: bool) -> bool {
        let Some(tr) = self.row_element(pos) else {
            return false;
        };
        focus_quietly(&tr);
        if reveal {
            let options = REVEAL_ROW.map(|(k, v)| (k, v.into()));
            dom::call_with_options(&tr, "scrollIntoView", &options);
        }
        true
    }

    fn focus_container(&self) {
        focus_quietly(&self.scroller);
    }

    fn set_tab_stop(&self, pos: usize, on: bool) {
        if let Some(tr) = self.row_element(pos) {
            attr(&tr, "tabindex", if on { "0" } else { "-1" });
        }
    }
}

/// The body of a virtualised table: its elements and its [`BodyState`] (the window drawn, the
/// tab stop, whether draws measure).
pub(super) struct VirtualBody {
    pub page: BodyElements,
    pub state: BodyState,
}

impl VirtualBody {
    /// The body of a table with `columns` columns inside `scroller`.
    pub fn new(scroller: Element, tbody: Element, columns: usize) -> VirtualBody {
        VirtualBody {
            page: BodyElements {
                scroller,
                tbody,
                columns,
                marked: Default::default(),
            },
            state: BodyState::default(),
        }
    }

    /// Draws the rows in view ([`BodyState::draw`]); returns whether it drew.
    pub fn draw(
        &mut self,
        rows: usize,
        force: bool,
        min_view: f64,
        empty: &str,
        row: impl FnMut(usize) -> Option<Node>,
    ) -> bool {
        let drew = self
            .state
            .draw(&self.page, rows, force, min_view, empty, row);
        if self.state.measured {
            self.page.mark_more();
        }
        drew
    }
}

/// A table drawn through a [`VirtualBody`].
pub(super) trait Virtual {
    /// Its body.
    fn body(&mut self) -> &mut VirtualBody;
    /// Rows listed now.
    fn rows(&self) -> usize;
    /// Draws the rows in view (see [`VirtualBody::draw`]).
    fn draw(&mut self, force: bool);
}

/// The listeners of a virtualised table: scrolling and resizing redraw it; on a focused row,
/// ArrowUp/ArrowDown move the focus one row, PageUp/PageDown a screenful, Home/End to the
/// first/last row, scrolling so that row is drawn (on the container itself, the first such key
/// focuses the tab-stop row); focusing a row makes it the tab stop.
pub(super) fn virtual_listeners<S: Virtual + 'static>(st: &Rc<RefCell<S>>) -> Vec<EventListener> {
    let (scroller, tbody) = {
        let mut s = st.borrow_mut();
        let b = &s.body().page;
        (b.scroller.clone(), b.tbody.clone())
    };
    let mut ls = Vec::new();
    let s2 = st.clone();
    ls.push(EventListener::new(&scroller, "scroll", move |_| {
        let mut s = s2.borrow_mut();
        s.body().state.measured = true;
        s.draw(false);
    }));
    let s2 = st.clone();
    ls.push(EventListener::new(
        &gloo::utils::window(),
        "resize",
        move |_| {
            let mut s = s2.borrow_mut();
            s.body().state.measured = true;
            s.draw(true);
        },
    ));
    let pos_of = |e: &web_sys::Event| {
        list_position(&dom::closest_attr(
            e,
            "tr[aria-rowindex]",
            &["aria-rowindex"],
        )?)
    };
    let s2 = st.clone();
    ls.push(EventListener::new(&tbody, "focusin", move |e| {
        if let Some(pos) = pos_of(e) {
            // Never redraws here: the focused element stays the one focused.
            if let Ok(mut s) = s2.try_borrow_mut() {
                let b = s.body();
                b.state.set_tab_stop(&b.page, pos);
            }
        }
    }));
    let s2 = st.clone();
    ls.push(dom::on_keydown(&scroller.clone(), move |e, k| {
        if !plain_key(k.alt_key(), k.ctrl_key(), k.meta_key(), k.shift_key()) {
            return false;
        }
        let on_scroller = dom::target(e).is_some_and(|t| t == scroller);
        let Ok(mut s) = s2.try_borrow_mut() else {
            return false;
        };
        let rows = s.rows();
        let Some(on) = KeyOn::of(on_scroller, pos_of(e)) else {
            return false;
        };
        let b = s.body();
        let Some(target) = b.state.key(&b.page, &k.key(), on, rows) else {
            return false;
        };
        s.draw(true);
        let b = s.body();
        b.state.focus_row(&b.page, target);
        true
    }));
    ls
}

struct State {
    table: TensorTable,
    card: Element,
    input: HtmlInputElement,
    body: VirtualBody,
    headers: Vec<(Column, Element)>,
    count: Element,
    /// Rows open a preview (with their file index) once a listener is attached.
    openable: bool,
    /// The columns shown (no part column for a single file).
    columns: Vec<Column>,
    /// The file index of the tensor whose preview is open (its row is marked selected).
    selected: Option<usize>,
    /// What the body says with no row ([`crate::view::tensors::empty_text`]).
    empty: String,
}

impl Virtual for State {
    fn body(&mut self) -> &mut VirtualBody {
        &mut self.body
    }

    fn rows(&self) -> usize {
        self.table.len()
    }

    fn draw(&mut self, force: bool) {
        State::draw(self, force);
    }
}

/// The live tensor table.
pub struct TensorTableView {
    state: Rc<RefCell<State>>,
    _listeners: Vec<EventListener>,
}

impl TensorTableView {
    /// The card for `rows`; `part_names` are the files of a model merged from several (empty
    /// for one file: then there is no part column); `announced`: the tensors the header
    /// announces; `stopped`: parsing stopped before the header's end.
    pub fn new(
        rows: Vec<TensorRow>,
        part_names: Vec<String>,
        format: &str,
        announced: u64,
        stopped: bool,
    ) -> (Element, TensorTableView) {
        let empty = crate::view::tensors::empty_text(rows.len(), announced, stopped);
        let tensor_table = TensorTable::with_parts(rows, part_names);
        let columns = tensor_table.columns();
        let card = dom::render(&tensor_card::card(&tensor_table, format, announced));
        let filter: HtmlInputElement = dom::find(&card, "input.filter").unchecked_into();
        let note_text = dom::find(&card, "p.note > span");
        let shape_button = card.query_selector("p.note > button").ok().flatten();
        let scroller = dom::find(&card, ".tensor-scroll");
        let ths = dom::all(&card, "thead th");
        let headers: Vec<(Column, Element)> = columns.iter().copied().zip(ths).collect();
        let state = Rc::new(RefCell::new(State {
            table: tensor_table,
            card: card.clone(),
            input: filter.clone(),
            body: VirtualBody::new(scroller.clone(), dom::find(&card, "tbody"), columns.len()),
            headers,
            count: dom::find(&card, ".count"),
            openable: false,
            selected: None,
            columns,
            empty,
        }));

        let mut listeners = virtual_listeners(&state);
        for &(c, ref th) in &state.borrow().headers {
            let st = state.clone();
            listeners.push(EventListener::new(th, "click", move |_| {
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
        let (st, input) = (state.clone(), filter.clone());
        let delay = tensor_card::filter_delay_ms(state.borrow().table.total());
        listeners.push(dom::debounced(&filter, "input", delay, move || {
            let mut s = st.borrow_mut();
            if s.table.set_filter(&input.value()) {
                s.body.page.scroller.set_scroll_top(0);
                s.draw(true);
            }
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
            s.body.page.scroller.set_scroll_top(0);
            s.draw(true);
            // Not in an embedded view: scrolling would move the host page.
            if !dom::in_shadow_root(&s.card) {
                s.card.scroll_into_view();
            }
        })
    }

    /// Marks the row of tensor `file_index` as the one previewed (`aria-selected`), and
    /// scrolls the table so it is in view (the `?tensor=` of a link, the `tensor` attribute).
    pub fn select(&self, file_index: Option<usize>) {
        let mut s = self.state.borrow_mut();
        s.selected = file_index;
        if let Some(pos) = file_index.and_then(|i| s.table.position_of(i)) {
            let top = Viewport::TABLE.scroll_with_context(pos);
            s.body.page.scroller.set_scroll_top(top as i32);
            s.body.state.measured = true;
        }
        s.draw(true);
    }

    /// Listeners that call `open(file_index)` when a tensor row is clicked or Enter is pressed
    /// on a focused row (delegated to the table body, so the virtualised rows need none).
    pub fn open_listeners(&self, open: Rc<dyn Fn(usize)>) -> Vec<EventListener> {
        let tbody = self.state.borrow().body.page.tbody.clone();
        let st = self.state.clone();
        st.borrow_mut().openable = true;
        st.borrow_mut().draw(true);
        // Opening a row also marks it selected.
        let pick = move |i: &str| {
            let Ok(i) = i.parse::<usize>() else { return };
            {
                let mut s = st.borrow_mut();
                s.selected = Some(i);
                s.draw(true);
            }
            open(i);
        };
        let enter = |k: &web_sys::KeyboardEvent| k.key() == "Enter";
        dom::on_pick(
            &tbody,
            "tr[data-file-index]",
            &["data-file-index"],
            enter,
            pick,
        )
        .into()
    }

    /// Draws the rows in view; call once the card is in the document.
    pub fn draw_now(&self) {
        let mut s = self.state.borrow_mut();
        s.draw(true);
        // After the first paint: the sides that hide columns, once.
        s.body.page.mark_more();
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
        // Before the first draw the container is only as tall as its header; the window's
        // height bounds it (CSS caps the container at 70vh).
        let window_h = window_height();
        let State {
            table,
            body,
            count,
            openable,
            columns,
            selected,
            empty,
            ..
        } = self;
        let drew = body.draw(table.len(), force, window_h, empty, |pos| {
            tensor_card::row(table, *openable, columns, *selected, pos)
        });
        if drew {
            count.set_text_content(Some(&table.count_text()));
        }
    }
}
