//! The memory card: a context box (default the model's own) and a KV type select; the weights,
//! KV cache and total from [`crate::summary::memory::estimate`] (with the sliding-window split
//! and the full-context upper bound when llama.cpp uses a window), its formula and notes, or
//! "no estimate: …" ([`crate::view::memory::Shown`]). Recomputed as the inputs change (typing
//! debounced).

use std::rc::Rc;

use gloo::events::EventListener;
use web_sys::{Element, HtmlInputElement, HtmlSelectElement};

use crate::open::OpenedModel;
use crate::view::memory::{self, model_context, Shown};

use super::dom::{self, attr};

/// Milliseconds the estimate waits for typing to pause.
const DELAY_MS: u32 = 150;

/// The card and its listeners.
pub struct MemoryCard {
    _listeners: Vec<EventListener>,
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
        let (note, out) = (
            dom::find(&card, ".note.warn"),
            dom::find(&card, ".memory-out"),
        );
        let update = {
            let (card, input, select) = (card.clone(), input.clone(), select.clone());
            Rc::new(move || {
                let shown = Shown::of(&model, &input.value(), &select.value());
                note.set_text_content(shown.note.as_deref());
                dom::set_hidden(&note, shown.note.is_none());
                attr(&input, "aria-invalid", shown.aria_invalid);
                dom::set_attrs(&card, shown.attrs);
                dom::fill(&out, &shown.output);
            })
        };
        update();
        let u = update.clone();
        let typed = dom::debounced(&input, "input", DELAY_MS, move || u());
        let changed = EventListener::new(&select, "change", move |_| update());
        let _listeners = vec![typed, changed];
        (card, MemoryCard { _listeners })
    }
}
