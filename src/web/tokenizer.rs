//! The tokenizer card: facts, special tokens, a searchable virtualised token list (only the
//! rows in view are decoded, through the token index built once per model), and the chat
//! templates as numbered lines with a copy button. Text goes in as text only.

use std::cell::RefCell;
use std::rc::Rc;

use gloo::events::EventListener;
use gloo::timers::callback::Timeout;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Element, HtmlSelectElement};

use crate::format::Model;
use crate::summary::tokenizer::TokenizerInfo;
use crate::view::tokenizer::{
    fact_rows, special_rows, template_label, template_lines, TokenRows, SEARCH_HINT,
};
use crate::view::viewport::{Viewport, Window};

use super::dom::{self, append, attr, el_class, el_text};

/// Milliseconds the search waits for typing to pause.
const SEARCH_DELAY_MS: u32 = 150;
/// Columns of the token list.
const COLUMNS: [(&str, &str); 4] = [
    ("id", "col-id num"),
    ("text", "col-text"),
    ("type", "col-ttype"),
    ("score", "col-score num"),
];

fn now() -> f64 {
    gloo::utils::window().performance().map_or(0.0, |p| p.now())
}

struct ListState {
    model: Rc<Model>,
    rows: TokenRows,
    scroller: Element,
    tbody: Element,
    count: Element,
    drawn: Option<Window>,
}

/// The card and everything its listeners need.
pub struct TokenizerCard {
    _list: Rc<RefCell<ListState>>,
    _pending: Rc<RefCell<Option<Timeout>>>,
    _copied: Rc<RefCell<Option<Timeout>>>,
    _listeners: Vec<EventListener>,
}

impl TokenizerCard {
    /// Builds the card for `model` (whose tokenizer keys gave `info`).
    pub fn new(model: Rc<Model>, info: &TokenizerInfo) -> (Element, TokenizerCard) {
        let (card, body) = dom::card("Tokenizer", "tokenizer");
        attr(&card, "data-testid", "tokenizer");
        let mut listeners = Vec::new();

        let facts = el_class("dl", "kv");
        for (k, v) in fact_rows(info) {
            append(&facts, &el_text("dt", "", &k));
            append(&facts, &el_text("dd", "", &v));
        }
        append(&body, &facts);

        let specials = special_rows(info);
        if !specials.is_empty() {
            append(&body, &el_text("h3", "sub-head spaced", "Special tokens"));
            let table = el_class("table", "type-table special-table");
            attr(&table, "data-testid", "special-tokens");
            let thead = dom::el("thead");
            let tr = dom::el("tr");
            for h in ["role", "id", "text"] {
                let th = el_text("th", "", h);
                attr(&th, "scope", "col");
                append(&tr, &th);
            }
            append(&thead, &tr);
            append(&table, &thead);
            let tbody = dom::el("tbody");
            for (role, id, text) in specials {
                let tr = dom::el("tr");
                attr(&tr, "data-role", &role);
                attr(&tr, "data-id", &id.to_string());
                append(&tr, &el_text("td", "", &role));
                append(&tr, &el_text("td", "num", &id.to_string()));
                append(&tr, &el_text("td", "mono tok-text", &text));
                append(&tbody, &tr);
            }
            append(&table, &tbody);
            append(&body, &table);
        }

        // The token list.
        let head = el_class("div", "sub-row");
        append(&head, &el_text("h3", "sub-head", "Tokens"));
        let count = el_class("span", "count muted");
        append(&head, &count);
        let search = dom::search_input(SEARCH_HINT, "search tokens by text or #id");
        attr(&search, "title", SEARCH_HINT);
        attr(&search, "data-testid", "token-search");
        append(&head, &search);
        append(&body, &head);

        let scroller = el_class("div", "table-scroll token-scroll");
        attr(&scroller, "tabindex", "0");
        let table = el_class("table", "tensor-table token-table");
        attr(&table, "data-testid", "token-list");
        let colgroup = dom::el("colgroup");
        for (_, class) in COLUMNS {
            append(
                &colgroup,
                &el_class("col", class.split(' ').next().unwrap_or("")),
            );
        }
        append(&table, &colgroup);
        let thead = dom::el("thead");
        let tr = dom::el("tr");
        for (h, class) in COLUMNS {
            let th = el_text("th", class, h);
            attr(&th, "scope", "col");
            append(&tr, &th);
        }
        append(&thead, &tr);
        append(&table, &thead);
        let tbody = dom::el("tbody");
        append(&table, &tbody);
        append(&scroller, &table);
        append(&body, &scroller);

        let t0 = now();
        let rows = TokenRows::new(&model);
        attr(&table, "data-index-ms", &format!("{:.2}", now() - t0));
        let list = Rc::new(RefCell::new(ListState {
            model,
            rows,
            scroller: scroller.clone(),
            tbody,
            count,
            drawn: None,
        }));

        let st = list.clone();
        listeners.push(EventListener::new(&scroller, "scroll", move |_| {
            st.borrow_mut().draw(false);
        }));
        let st = list.clone();
        listeners.push(EventListener::new(
            &gloo::utils::window(),
            "resize",
            move |_| st.borrow_mut().draw(true),
        ));
        let pending: Rc<RefCell<Option<Timeout>>> = Rc::new(RefCell::new(None));
        {
            let st = list.clone();
            let input = search.clone();
            let pending2 = pending.clone();
            listeners.push(EventListener::new(&search, "input", move |_| {
                let st = st.clone();
                let input = input.clone();
                *pending2.borrow_mut() = Some(Timeout::new(SEARCH_DELAY_MS, move || {
                    let mut s = st.borrow_mut();
                    let m = s.model.clone();
                    let t0 = now();
                    s.rows.set_query(&m, &input.value());
                    if let Some(table) = s.tbody.parent_element() {
                        attr(&table, "data-search-ms", &format!("{:.2}", now() - t0));
                    }
                    s.scroller.set_scroll_top(0);
                    s.draw(true);
                }));
            }));
        }

        // Chat templates.
        let copied: Rc<RefCell<Option<Timeout>>> = Rc::new(RefCell::new(None));
        if !info.chat_templates.is_empty() {
            let templates: Rc<Vec<(String, String)>> = Rc::new(info.chat_templates.clone());
            let bar = el_class("div", "sub-row");
            append(&bar, &el_text("h3", "sub-head", "Chat template"));
            let select: HtmlSelectElement = dom::el("select").unchecked_into();
            attr(&select, "class", "select");
            attr(&select, "aria-label", "chat template variant");
            attr(&select, "data-testid", "chat-template-select");
            for (i, (name, text)) in templates.iter().enumerate() {
                let o = el_text("option", "", &template_label(name, text));
                attr(&o, "value", &i.to_string());
                append(&select, &o);
            }
            dom::set_hidden(&select, templates.len() < 2);
            append(&bar, &select);
            if templates.len() == 1 {
                let (name, text) = &templates[0];
                append(
                    &bar,
                    &el_text("span", "muted count", &template_label(name, text)),
                );
            }
            let copy = el_text("button", "button small", "Copy");
            attr(&copy, "type", "button");
            attr(&copy, "data-testid", "chat-template-copy");
            attr(&copy, "title", "copy the template text to the clipboard");
            append(&bar, &copy);
            let status = el_class("span", "muted copy-status");
            attr(&status, "aria-live", "polite");
            append(&bar, &status);
            append(&body, &bar);
            let view = el_class("div", "template");
            attr(&view, "data-testid", "chat-template");
            attr(&view, "tabindex", "0");
            append(&body, &view);
            draw_template(&view, &templates[0]);

            let (t2, v2, sel2) = (templates.clone(), view.clone(), select.clone());
            listeners.push(EventListener::new(&select, "change", move |_| {
                let i = sel2.value().parse::<usize>().unwrap_or(0);
                if let Some(t) = t2.get(i) {
                    draw_template(&v2, t);
                }
            }));
            let c2 = copied.clone();
            listeners.push(EventListener::new(&copy, "click", move |_| {
                let i = select.value().parse::<usize>().unwrap_or(0);
                let Some((_, text)) = templates.get(i) else {
                    return;
                };
                let promise = write_clipboard(text);
                let status = status.clone();
                let c3 = c2.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    let said = match promise {
                        Ok(p) => JsFuture::from(p).await,
                        Err(e) => Err(e),
                    };
                    let said = match said {
                        Ok(_) => "copied".to_string(),
                        Err(e) => format!("not copied: {}", super::blob::js_error_text(&e)),
                    };
                    status.set_text_content(Some(&said));
                    let s2 = status.clone();
                    // Clears the note after a while; dropped (cancelled) with the card.
                    *c3.borrow_mut() = Some(Timeout::new(4000, move || {
                        s2.set_text_content(None);
                    }));
                });
            }));
        }

        (
            card,
            TokenizerCard {
                _list: list,
                _pending: pending,
                _copied: copied,
                _listeners: listeners,
            },
        )
    }

    /// Draws the rows in view; call once the card is in the document.
    pub fn draw_now(&self) {
        self._list.borrow_mut().draw(true);
    }
}

/// `navigator.clipboard.writeText(text)` (looked up by name, so no web-sys feature is needed).
fn write_clipboard(text: &str) -> Result<js_sys::Promise, wasm_bindgen::JsValue> {
    use js_sys::{Function, Reflect};
    let nav = Reflect::get(&gloo::utils::window(), &"navigator".into())?;
    let clip = Reflect::get(&nav, &"clipboard".into())?;
    if clip.is_undefined() {
        return Err("the clipboard is not available here (it needs https or localhost)".into());
    }
    let write: Function = Reflect::get(&clip, &"writeText".into())?.dyn_into()?;
    write.call1(&clip, &text.into())?.dyn_into()
}

fn draw_template(view: &Element, (name, text): &(String, String)) {
    dom::clear(view);
    let lines = template_lines(text);
    attr(view, "data-name", name);
    attr(view, "data-lines", &lines.len().to_string());
    for (n, line) in lines {
        let row = el_class("div", "tl");
        append(&row, &el_text("span", "ln", &n));
        append(&row, &el_text("span", "tx", &line));
        append(view, &row);
    }
}

impl ListState {
    fn draw(&mut self, force: bool) {
        let t0 = now();
        let v = Viewport::TABLE;
        let view_h = f64::from(self.scroller.client_height()).max(v.row_height * 4.0);
        let w = v.window(
            self.rows.len(),
            f64::from(self.scroller.scroll_top()),
            view_h,
        );
        if !force && self.drawn == Some(w) {
            return;
        }
        self.drawn = Some(w);
        self.count.set_text_content(Some(&self.rows.count_text()));
        dom::clear(&self.tbody);
        append(&self.tbody, &dom::spacer_row(w.top, COLUMNS.len()));
        for pos in w.start..w.end {
            let Some(r) = self.rows.row(&self.model, pos) else {
                continue;
            };
            let tr = el_class("tr", if pos % 2 == 1 { "odd" } else { "" });
            attr(&tr, "data-id", &r.id.to_string());
            append(&tr, &el_text("td", "col-id num", &r.id_text));
            let text = el_text("td", "col-text", &r.text);
            attr(&text, "title", &r.text);
            append(&tr, &text);
            let kind = el_text("td", "col-ttype", &r.kind);
            attr(&kind, "title", &r.kind);
            append(&tr, &kind);
            append(&tr, &el_text("td", "col-score num", &r.score));
            append(&self.tbody, &tr);
        }
        append(&self.tbody, &dom::spacer_row(w.bottom, COLUMNS.len()));
        if self.rows.is_empty() {
            let tr = dom::el("tr");
            let td = el_text("td", "muted empty-row", "no matching tokens");
            attr(&td, "colspan", &COLUMNS.len().to_string());
            append(&tr, &td);
            append(&self.tbody, &tr);
        }
        if let Some(table) = self.tbody.parent_element() {
            attr(&table, "data-draw-ms", &format!("{:.2}", now() - t0));
            attr(&table, "data-rows", &self.rows.len().to_string());
        }
    }
}
