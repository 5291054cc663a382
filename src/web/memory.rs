//! The memory card: a context box (default the model's own) and a KV type select; the weights,
//! KV cache and total from [`crate::summary::memory::estimate`] (with the sliding-window split
//! and the full-context upper bound when llama.cpp uses a window), its formula and notes, or
//! "no estimate: …". Recomputed as the inputs change (typing debounced).

use std::rc::Rc;

use gloo::events::EventListener;
use web_sys::{Element, HtmlInputElement, HtmlSelectElement};

use crate::open::OpenedModel;
use crate::summary::memory::{estimate, KvType};
use crate::view::memory::{self, model_context, parse_context};

use super::dom::{self, attr};

/// Milliseconds the estimate waits for typing to pause.
const DELAY_MS: u32 = 150;

/// The card and its listeners.
pub struct MemoryCard {
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
        let input: HtmlInputElement = dom::find_as(&card, "[data-testid=memory-context]");
        if let Some(c) = context {
            input.set_value(&c.to_string());
        }
        let select: HtmlSelectElement = dom::find_as(&card, "[data-testid=memory-kv]");
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

        let p = parts.clone();
        let typed = dom::debounced(&input, "input", DELAY_MS, move || p.update());
        let changed = EventListener::new(&select, "change", move |_| parts.update());
        let _listeners = vec![typed, changed];
        (card, MemoryCard { _listeners })
    }
}

impl Parts {
    fn update(&self) {
        let ctx = parse_context(&self.input.value());
        self.note.set_text_content(ctx.note.as_deref());
        dom::set_hidden(&self.note, ctx.note.is_none());
        attr(&self.input, "aria-invalid", ctx.aria_invalid());
        let kv = KvType::parse(&self.select.value()).unwrap_or(KvType::F16);
        let e = estimate(&self.model, ctx.tokens, kv);
        dom::set_attrs(&self.card, memory::estimate_attrs(&e));
        dom::fill(&self.out, &memory::output(&e));
    }
}
