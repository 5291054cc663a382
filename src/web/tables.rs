//! The tensor table card: sortable headers, a filter box, and a virtualised body (a fixed-height
//! scroll container; only the rows `view::viewport` picks exist in the DOM, between two spacer
//! rows), so 250,000 tensors scroll as smoothly as 200.
//!
//! [`VirtualBody`], [`virtual_listeners`] and [`search_listener`] are that table and its
//! listeners (scroll, resize, keyboard focus, search), shared with the tokenizer card's token
//! and merges lists.

use std::cell::RefCell;
use std::rc::Rc;

use gloo::events::EventListener;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlInputElement};

use crate::summary::TensorRow;
use crate::view::facts::{shape_order_note, shape_toggle_label};
use crate::view::node::Node;
use crate::view::tensor_card::{self, TableBody};
use crate::view::tensors::Column;
use crate::view::viewport::Viewport;
use crate::view::virtual_body::{
    list_position, plain_key, BodyPage, BodyState, FrameMarks, KeyOn, Listing, ScrollBox,
    REVEAL_ROW,
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
    /// What [`BodyElements::mark_more`] wrote last: it writes only a change (a write costs a
    /// style recalculation).
    marked: std::cell::Cell<Option<FrameMarks>>,
}

impl BodyElements {
    /// The drawn row at list position `pos`.
    fn row_element(&self, pos: usize) -> Option<Element> {
        self.tbody
            .query_selector(&format!(":scope > tr[aria-rowindex=\"{}\"]", pos + 2))
            .ok()
            .flatten()
    }

    /// Sets `name` to `value` on the table.
    fn table_attr(&self, name: &str, value: &str) {
        if let Some(table) = self.tbody.parent_element() {
            attr(&table, name, value);
        }
    }

    /// Says on the table, as `name`, the milliseconds since `t0` ([`dom::now`]).
    pub fn time(&self, name: &str, t0: f64) {
        self.table_attr(name, &format!("{:.2}", dom::now() - t0));
    }

    /// Marks on the frame around the scroll container (`div.table-frame`, if any) which sides
    /// hide columns (`data-more`), and the scroll bars' sizes (`--bar-w`, `--bar-h`), which
    /// the fades stay clear of ([`FrameMarks`]). It reads the layout: only for a measured
    /// table ([`BodyState::measured`]) or after the first paint ([`TensorTableView::draw_now`]).
    fn mark_more(&self) {
        let s = &self.scroller;
        let Some(frame) = s
            .parent_element()
            .filter(|p| p.class_list().contains("table-frame"))
        else {
            return;
        };
        let (px, b) = (|n: i32| f64::from(n), s.get_bounding_client_rect());
        let marks = FrameMarks::of(&ScrollBox {
            scroll_left: px(s.scroll_left()),
            scroll_width: px(s.scroll_width()),
            outer: [b.width(), b.height()],
            client: [px(s.client_width()), px(s.client_height())],
            border: [px(s.client_left()), px(s.client_top())],
        });
        if self.marked.replace(Some(marks)) == Some(marks) {
            return;
        }
        match marks.sides {
            Some(side) => attr(&frame, "data-more", side),
            None => {
                let _ = frame.remove_attribute("data-more");
            }
        }
        let [(w, bar_w), (h, bar_h)] = marks.style();
        dom::style(&frame, &[(w, &bar_w), (h, &bar_h)]);
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
        self.table_attr("aria-rowcount", &(rows + 1).to_string());
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

/// A virtualised table: what it lists ([`Listing`]), its body's elements and their
/// [`BodyState`] (the window drawn, the tab stop, whether draws measure), and its count line.
pub(super) struct VirtualBody<L> {
    pub list: L,
    pub page: BodyElements,
    pub state: BodyState,
    count: Element,
}

impl<L: Listing> VirtualBody<L> {
    /// The table listing `list` in `columns` columns inside `scroller` (its `<tbody>` the one
    /// in it), counted in `count`.
    pub fn new(list: L, scroller: Element, columns: usize, count: Element) -> VirtualBody<L> {
        VirtualBody {
            list,
            page: BodyElements {
                tbody: dom::find(&scroller, "tbody"),
                scroller,
                columns,
                marked: Default::default(),
            },
            state: BodyState::default(),
            count,
        }
    }

    /// Draws the rows in view ([`BodyState::draw`]) and, when it drew, the count line (and
    /// for a [`Listing::TIMED`] list the table's `data-draw-ms` and `data-rows`); returns
    /// whether it drew.
    pub fn draw(&mut self, force: bool) -> bool {
        let t0 = L::TIMED.then(dom::now);
        let VirtualBody {
            list,
            page,
            state,
            count,
        } = self;
        let min_view = list.min_view(window_height);
        let (rows, empty) = (list.listed(), list.empty());
        let drew = state.draw(page, rows, force, min_view, empty, |pos| list.row(pos));
        if state.measured {
            page.mark_more();
        }
        if drew {
            count.set_text_content(Some(&list.count_line()));
            if let Some(t0) = t0 {
                page.time("data-draw-ms", t0);
                page.table_attr("data-rows", &rows.to_string());
            }
        }
        drew
    }

    /// Scrolls to the top and draws.
    pub fn draw_from_top(&mut self) {
        self.page.scroller.set_scroll_top(0);
        self.draw(true);
    }
}

/// The listeners of a virtualised table: scrolling and resizing redraw it; on a focused row,
/// ArrowUp/ArrowDown move the focus one row, PageUp/PageDown a screenful, Home/End to the
/// first/last row, scrolling so that row is drawn (on the container itself, the first such key
/// focuses the tab-stop row); focusing a row makes it the tab stop.
pub(super) fn virtual_listeners<L: Listing + 'static>(
    st: &Rc<RefCell<VirtualBody<L>>>,
) -> Vec<EventListener> {
    let (scroller, tbody) = {
        let b = &st.borrow().page;
        (b.scroller.clone(), b.tbody.clone())
    };
    // Scrolling draws a window not drawn yet; resizing draws again.
    let redraw = |force: bool| {
        let s2 = st.clone();
        move |_: &web_sys::Event| {
            let mut s = s2.borrow_mut();
            s.state.measured = true;
            s.draw(force);
        }
    };
    let window = gloo::utils::window();
    let mut ls = vec![
        EventListener::new(&scroller, "scroll", redraw(false)),
        EventListener::new(&window, "resize", redraw(true)),
    ];
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
                let VirtualBody { page, state, .. } = &mut *s;
                state.set_tab_stop(page, pos);
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
        let rows = s.list.listed();
        let Some(on) = KeyOn::of(on_scroller, pos_of(e)) else {
            return false;
        };
        let VirtualBody { page, state, .. } = &mut *s;
        let Some(target) = state.key(page, &k.key(), on, rows) else {
            return false;
        };
        s.draw(true);
        let VirtualBody { page, state, .. } = &mut *s;
        state.focus_row(page, target);
        true
    }));
    ls
}

/// The listener of a virtualised table's search box `input`: once typing pauses for
/// `delay_ms`, the rows matching its text are listed and, when that may have changed them,
/// drawn from the top (a [`Listing::TIMED`] list's table says `data-search-ms`).
pub(super) fn search_listener<L: Listing + 'static>(
    st: &Rc<RefCell<VirtualBody<L>>>,
    input: &HtmlInputElement,
    delay_ms: u32,
) -> EventListener {
    let (st, i) = (st.clone(), input.clone());
    dom::debounced(input, "input", delay_ms, move || {
        let mut s = st.borrow_mut();
        let t0 = L::TIMED.then(dom::now);
        if s.list.search(&i.value()) {
            if let Some(t0) = t0 {
                s.page.time("data-search-ms", t0);
            }
            s.draw_from_top();
        }
    })
}

/// The live tensor table.
pub struct TensorTableView {
    body: Rc<RefCell<VirtualBody<TableBody>>>,
    card: Element,
    input: HtmlInputElement,
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
        let list = TableBody::new(rows, part_names, announced, stopped);
        let card = dom::render(&tensor_card::card(&list.table, format, announced));
        let input: HtmlInputElement = dom::find_as(&card, "input.filter");
        let note_text = dom::find(&card, "p.note > span");
        let shape_button = card.query_selector("p.note > button").ok().flatten();
        let thead = dom::find(&card, "thead");
        let ths = dom::all(&thead, "th");
        let headers: Vec<(Column, Element)> = list.columns.iter().copied().zip(ths).collect();
        let (scroller, columns) = (dom::find(&card, ".tensor-scroll"), list.columns.len());
        let count = dom::find(&card, ".count");
        let delay = tensor_card::filter_delay_ms(list.table.total());
        let body = Rc::new(RefCell::new(VirtualBody::new(
            list, scroller, columns, count,
        )));

        let mut listeners = virtual_listeners(&body);
        for (c, th) in headers {
            let (st, thead) = (body.clone(), thead.clone());
            listeners.push(EventListener::new(&th, "click", move |_| {
                let mut s = st.borrow_mut();
                s.list.table.click(c);
                for (&c, th) in s.list.columns.iter().zip(dom::all(&thead, "th")) {
                    attr(&th, "aria-sort", s.list.table.aria_sort(c));
                    if let Some(b) = th.first_element_child() {
                        b.set_text_content(Some(&s.list.table.header(c)));
                    }
                }
                s.draw(true);
            }));
        }
        if let Some(b) = shape_button {
            let st = body.clone();
            let format = format.to_string();
            let button = b.clone();
            listeners.push(EventListener::new(&b, "click", move |_| {
                let mut s = st.borrow_mut();
                let on = !s.list.table.reversed_shapes();
                s.list.table.set_reversed_shapes(on);
                note_text.set_text_content(Some(shape_order_note(&format, on)));
                button.set_text_content(shape_toggle_label(&format, on));
                s.draw(true);
            }));
        }
        listeners.push(search_listener(&body, &input, delay));
        let view = TensorTableView {
            body,
            card: card.clone(),
            input,
            _listeners: listeners,
        };
        (card, view)
    }

    /// A handle other cards use to list some tensors (one type, one role): puts `text` in
    /// the filter box, filters, and brings the table into view.
    pub fn filter_setter(&self) -> Rc<dyn Fn(&str)> {
        let (st, input, card) = (self.body.clone(), self.input.clone(), self.card.clone());
        Rc::new(move |text: &str| {
            let mut s = st.borrow_mut();
            input.set_value(text);
            s.list.search(text);
            s.draw_from_top();
            // Not in an embedded view: scrolling would move the host page.
            if !dom::in_shadow_root(&card) {
                card.scroll_into_view();
            }
        })
    }

    /// Marks the row of tensor `file_index` as the one previewed (`aria-selected`), and
    /// scrolls the table so it is in view (the `?tensor=` of a link, the `tensor` attribute).
    pub fn select(&self, file_index: Option<usize>) {
        let mut s = self.body.borrow_mut();
        s.list.selected = file_index;
        if let Some(pos) = file_index.and_then(|i| s.list.table.position_of(i)) {
            let top = Viewport::TABLE.scroll_with_context(pos);
            s.page.scroller.set_scroll_top(top as i32);
            s.state.measured = true;
        }
        s.draw(true);
    }

    /// Listeners that call `open(file_index)` when a tensor row is clicked or Enter is pressed
    /// on a focused row (delegated to the table body, so the virtualised rows need none).
    pub fn open_listeners(&self, open: Rc<dyn Fn(usize)>) -> Vec<EventListener> {
        let tbody = self.body.borrow().page.tbody.clone();
        let st = self.body.clone();
        st.borrow_mut().list.openable = true;
        st.borrow_mut().draw(true);
        // Opening a row also marks it selected.
        let pick = move |i: &str| {
            let Ok(i) = i.parse::<usize>() else { return };
            {
                let mut s = st.borrow_mut();
                s.list.selected = Some(i);
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
        let mut s = self.body.borrow_mut();
        s.draw(true);
        // After the first paint: the sides that hide columns, once.
        s.page.mark_more();
    }
}
