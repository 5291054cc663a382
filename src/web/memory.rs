//! The memory card: a context box (default the model's own) and a KV type select; the weights,
//! KV cache and total from [`crate::summary::memory::estimate`] (with the sliding-window split
//! and the full-context upper bound when llama.cpp uses a window), its formula and notes, or
//! "no estimate: …". Recomputed as the inputs change (typing debounced).

use std::cell::RefCell;
use std::rc::Rc;

use gloo::events::EventListener;
use gloo::timers::callback::Timeout;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlInputElement, HtmlSelectElement};

use crate::open::OpenedModel;
use crate::summary::memory::{estimate, KvType};
use crate::view::memory::{self, model_context, parse_context};

use super::dom::{self, append, attr};

/// Milliseconds the estimate waits for typing to pause.
const DELAY_MS: u32 = 150;

/// The card and its listeners.
pub struct MemoryCard {
    _pending: Rc<RefCell<Option<Timeout>>>,
    _listeners: Vec<EventListener>,
}

struct Parts {
    model: Rc<OpenedModel>,
    card: Element,
    input: HtmlInputElement,
    select: HtmlSelectElement,
    note: Element,
    out: Element,
}

impl MemoryCard {
    /// The card for `model` (a GGUF).
    pub fn new(model: Rc<OpenedModel>) -> (Element, MemoryCard) {
        let context = model_context(&model);
        let card = dom::render(&memory::card(context));
        let input: HtmlInputElement = dom::find_testid(&card, "memory-context")
            .expect("the memory card has a context box")
            .unchecked_into();
        if let Some(c) = context {
            input.set_value(&c.to_string());
        }
        let select: HtmlSelectElement = dom::find_testid(&card, "memory-kv")
            .expect("the memory card has a KV select")
            .unchecked_into();
        let note = dom::find(&card, ".note.warn");
        let out = dom::find(&card, ".memory-out");

        let parts = Rc::new(Parts {
            model,
            card: card.clone(),
            input: input.clone(),
            select: select.clone(),
            note,
            out,
        });
        parts.update();

        let pending: Rc<RefCell<Option<Timeout>>> = Rc::new(RefCell::new(None));
        let mut listeners = Vec::new();
        let (p, pend) = (parts.clone(), pending.clone());
        listeners.push(EventListener::new(&input, "input", move |_| {
            let p = p.clone();
            *pend.borrow_mut() = Some(Timeout::new(DELAY_MS, move || p.update()));
        }));
        let p = parts.clone();
        listeners.push(EventListener::new(&select, "change", move |_| p.update()));
        (
            card,
            MemoryCard {
                _pending: pending,
                _listeners: listeners,
            },
        )
    }
}

impl Parts {
    fn update(&self) {
        let ctx = parse_context(&self.input.value());
        self.note.set_text_content(ctx.note.as_deref());
        dom::set_hidden(&self.note, ctx.note.is_none());
        attr(
            &self.input,
            "aria-invalid",
            if ctx.invalid { "true" } else { "false" },
        );
        let kv = KvType::parse(&self.select.value()).unwrap_or(KvType::F16);
        dom::clear(&self.out);
        let e = estimate(&self.model, ctx.tokens, kv);
        for (name, value) in memory::estimate_attrs(&e) {
            match value {
                Some(v) => attr(&self.card, name, &v),
                None => {
                    let _ = self.card.remove_attribute(name);
                }
            }
        }
        for n in memory::output(&e) {
            append(&self.out, &dom::render(&n));
        }
    }
}
