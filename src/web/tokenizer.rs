//! The tokenizer card: facts, special tokens, a searchable virtualised token list and merges
//! list (only the rows in view are decoded, through an index of the strings built once per
//! model; the lists share the tensor table's virtualised body and keyboard navigation), and the
//! chat templates as numbered lines with a copy button. Text goes in as text only.

use std::cell::RefCell;
use std::rc::Rc;

use gloo::events::EventListener;
use gloo::timers::callback::Timeout;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Element, HtmlInputElement, HtmlSelectElement};

use crate::format::Model;
use crate::open::OpenedModel;
use crate::summary::tokenizer::TokenizerInfo;
use crate::view::tokenizer::{
    self, copy_status, has_merge_list, list_nodes, template_at, template_parts, template_view,
    templates_in_order, MergeRows, ModelList, SearchList, TokenRows, COPY_NOTE_MS, NO_CLIPBOARD,
};

use super::dom::{self, append, attr};
use super::tables::{search_listener, virtual_listeners, VirtualBody};

/// Milliseconds the search waits for typing to pause.
const SEARCH_DELAY_MS: u32 = 150;

/// One searchable list and what keeps it alive.
struct List<R> {
    state: Rc<RefCell<VirtualBody<ModelList<R>>>>,
    _listeners: Vec<EventListener>,
}

impl<R: SearchList + 'static> List<R> {
    /// Appends the list's head (title, count, search box) and its virtualised table to `body`.
    fn new(body: &Element, model: Rc<OpenedModel>, make: impl FnOnce(&Model) -> R) -> List<R> {
        let [head, scroller] = list_nodes(&R::TEXTS).map(|n| dom::render(&n));
        append(body, &head);
        append(body, &scroller);
        let search: HtmlInputElement = dom::find_as(&head, "input");
        let table = dom::find(&scroller, "table");

        let t0 = dom::now();
        let rows = make(&model);
        attr(&table, "data-index-ms", &format!("{:.2}", dom::now() - t0));
        let count = dom::find(&head, ".count");
        let columns = R::TEXTS.columns.len();
        let list = ModelList { model, rows };
        let state = Rc::new(RefCell::new(VirtualBody::new(
            list, scroller, columns, count,
        )));
        let mut listeners = virtual_listeners(&state);
        listeners.push(search_listener(&state, &search, SEARCH_DELAY_MS));
        List {
            state,
            _listeners: listeners,
        }
    }

    fn draw_now(&self) {
        self.state.borrow_mut().draw(true);
    }
}

/// The card and everything its listeners need.
pub struct TokenizerCard {
    tokens: List<TokenRows>,
    merges: Option<List<MergeRows>>,
    _copied: Rc<RefCell<Option<Timeout>>>,
    _listeners: Vec<EventListener>,
}

impl TokenizerCard {
    /// Builds the card for `model` (whose tokenizer keys gave `info`).
    pub fn new(model: Rc<OpenedModel>, info: &TokenizerInfo) -> (Element, TokenizerCard) {
        let card = dom::render(&tokenizer::card(info));
        let body = dom::find(&card, ".card-body");
        let mut listeners = Vec::new();

        // The token list, then the merges list (BPE vocabularies).
        let tokens = List::new(&body, model.clone(), TokenRows::new);
        let merges =
            has_merge_list(&model).then(|| List::new(&body, model.clone(), MergeRows::new));

        // Chat templates.
        let copied: Rc<RefCell<Option<Timeout>>> = Rc::new(RefCell::new(None));
        if !info.chat_templates.is_empty() {
            // The default first (shown, selected), then the named variants in file order.
            let templates: Rc<Vec<(String, String)>> =
                Rc::new(templates_in_order(&info.chat_templates));
            let [bar, view] = template_parts(&templates).map(|n| dom::render(&n));
            append(&body, &bar);
            append(&body, &view);
            let select: HtmlSelectElement = dom::find(&bar, "select").unchecked_into();
            let copy = dom::find(&bar, "button");
            let status = dom::find(&bar, ".copy-status");
            dom::patch(&view, &template_view(&templates[0]));

            let (t2, sel2) = (templates.clone(), select.clone());
            listeners.push(EventListener::new(&select, "change", move |_| {
                if let Some(t) = template_at(&t2, &sel2.value()) {
                    dom::patch(&view, &template_view(t));
                }
            }));
            let c2 = copied.clone();
            listeners.push(EventListener::new(&copy, "click", move |_| {
                if let Some((_, text)) = template_at(&templates, &select.value()) {
                    copy_and_say(text, &status, &c2);
                }
            }));
        }

        (
            card,
            TokenizerCard {
                tokens,
                merges,
                _copied: copied,
                _listeners: listeners,
            },
        )
    }

    /// Draws the rows in view; call once the card is in the document.
    pub fn draw_now(&self) {
        self.tokens.draw_now();
        if let Some(m) = &self.merges {
            m.draw_now();
        }
    }
}

/// `navigator.clipboard.writeText(text)` (looked up by name, so no web-sys feature is needed).
fn write_clipboard(text: &str) -> Result<js_sys::Promise, wasm_bindgen::JsValue> {
    use js_sys::{Function, Reflect};
    let nav = Reflect::get(&gloo::utils::window(), &"navigator".into())?;
    let clip = Reflect::get(&nav, &"clipboard".into())?;
    if clip.is_undefined() {
        return Err(NO_CLIPBOARD.into());
    }
    let write: Function = Reflect::get(&clip, &"writeText".into())?.dyn_into()?;
    write.call1(&clip, &text.into())?.dyn_into()
}

/// Copies `text` to the clipboard and says how that went in `status` ([`copy_status`]); the
/// note is cleared after [`COPY_NOTE_MS`] by the timer kept in `cleared` (dropped, so
/// cancelled, with the card).
pub(super) fn copy_and_say(text: &str, status: &Element, cleared: &Rc<RefCell<Option<Timeout>>>) {
    let promise = write_clipboard(text);
    let (status, cleared) = (status.clone(), cleared.clone());
    wasm_bindgen_futures::spawn_local(async move {
        let said = match promise {
            Ok(p) => JsFuture::from(p).await.map(drop),
            Err(e) => Err(e),
        };
        let refused = said.err().map(|e| crate::source::blob::js_error_text(&e));
        status.set_text_content(Some(&copy_status(refused.as_deref())));
        let s2 = status.clone();
        *cleared.borrow_mut() = Some(Timeout::new(COPY_NOTE_MS, move || {
            s2.set_text_content(None);
        }));
    });
}
