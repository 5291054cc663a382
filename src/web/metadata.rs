//! The metadata table card: key, type, value; a key filter; arrays show their type, length and
//! first items, and an expand control decodes further items from the header bytes on demand.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use gloo::events::EventListener;
use web_sys::{Element, HtmlInputElement};

use crate::format::Value;
use crate::open::OpenedModel;
use crate::view::metadata::{self, count_text, metadata_rows, ArrayPager};

use super::dom::{self, attr};

struct Expanded {
    pager: ArrayPager,
    list: Element,
    status: Element,
}

struct State {
    model: Rc<OpenedModel>,
    tbody: Element,
    count: Element,
    expanded: HashMap<usize, Expanded>,
}

/// The live metadata table.
pub struct MetadataView {
    _state: Rc<RefCell<State>>,
    _listeners: Vec<EventListener>,
}

impl MetadataView {
    pub fn new(model: Rc<OpenedModel>) -> (Element, MetadataView) {
        let card = dom::render(&metadata::card());
        let count = dom::find(&card, ".card-head .count");
        let filter: HtmlInputElement = dom::find_as(&card, ".card-head input");
        let tbody = dom::find(&card, "tbody");

        let state = Rc::new(RefCell::new(State {
            model,
            tbody: tbody.clone(),
            count,
            expanded: HashMap::new(),
        }));
        render(&mut state.borrow_mut(), "");

        let mut listeners = Vec::new();
        let st = state.clone();
        let input = filter.clone();
        listeners.push(EventListener::new(&filter, "input", move |_| {
            render(&mut st.borrow_mut(), &input.value());
        }));
        let st = state.clone();
        listeners.push(EventListener::new(&tbody, "click", move |e| {
            let sel = "button[data-index], button[data-long]";
            let Some(b) = dom::target(e).and_then(|t| t.closest(sel).ok().flatten()) else {
                return;
            };
            let index = |name: &str| b.get_attribute(name).and_then(|v| v.parse().ok());
            if let Some(i) = index("data-index") {
                more(&mut st.borrow_mut(), i, &b);
            } else if let Some(i) = index("data-long") {
                toggle_long(&st.borrow(), i, &b);
            }
        }));
        (
            card,
            MetadataView {
                _state: state,
                _listeners: listeners,
            },
        )
    }
}

fn render(st: &mut State, filter: &str) {
    st.expanded.clear();
    let rows = metadata_rows(&st.model, filter);
    let total = st.model.metadata.len();
    st.count
        .set_text_content(Some(&count_text(rows.len(), total)));
    dom::fill(&st.tbody, &metadata::row_nodes(&rows));
}

/// Shows a long string whole under its row text, or hides it again.
fn toggle_long(st: &State, index: usize, button: &Element) {
    let open = button.get_attribute("aria-expanded").as_deref() == Some("true");
    let cell = button.parent_element().expect("button is in a cell");
    let pre = match (open, cell.query_selector("pre.long-text").ok().flatten()) {
        (true, None) => return,
        (_, Some(pre)) => pre,
        (false, None) => {
            let pre = dom::render(&metadata::long_text_node(&st.model, index));
            let _ = cell.insert_before(&pre, Some(button));
            pre
        }
    };
    dom::set_hidden(&pre, open);
    let (expanded, label) = metadata::long_toggle(&st.model, index, !open);
    attr(button, "aria-expanded", expanded);
    if let Some(l) = label {
        button.set_text_content(Some(&l));
    }
}

fn more(st: &mut State, index: usize, button: &Element) {
    let model = st.model.clone();
    let Some(Value::Array(a)) = model.metadata.get(index).map(|e| &e.value) else {
        return;
    };
    let ex = st.expanded.entry(index).or_insert_with(|| {
        let cell = button.parent_element().expect("button is in a cell");
        let [list, status] = metadata::array_list_nodes().map(|n| dom::render(&n));
        let _ = cell.insert_before(&list, Some(button));
        let _ = cell.insert_before(&status, Some(button));
        Expanded {
            pager: ArrayPager::new(a.len),
            list,
            status,
        }
    });
    let page = ex.pager.page(a, &model.bytes);
    dom::append_nodes(&ex.list, &page.items);
    ex.status.set_text_content(Some(&page.status));
    match page.more {
        Some(l) => button.set_text_content(Some(&l)),
        None => button.remove(),
    }
}
