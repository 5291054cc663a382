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

use crate::format::Model;
use crate::summary::memory::{estimate, KvType};
use crate::view::memory::{model_context, no_estimate_text, parse_context, rows, KV_CHOICES};

use super::dom::{self, append, attr, el_class, el_text};

/// Milliseconds the estimate waits for typing to pause.
const DELAY_MS: u32 = 150;

/// The card and its listeners.
pub struct MemoryCard {
    _pending: Rc<RefCell<Option<Timeout>>>,
    _listeners: Vec<EventListener>,
}

struct Parts {
    model: Rc<Model>,
    card: Element,
    input: HtmlInputElement,
    select: HtmlSelectElement,
    note: Element,
    out: Element,
}

impl MemoryCard {
    /// The card for `model` (a GGUF).
    pub fn new(model: Rc<Model>) -> (Element, MemoryCard) {
        let (card, body) = dom::card("Memory to run", "memory");
        attr(&card, "data-testid", "memory");
        let form = el_class("div", "memory-form");
        let ctx_label = el_class("label", "field");
        append(&ctx_label, &el_text("span", "muted", "context (tokens)"));
        let input: HtmlInputElement = dom::el("input").unchecked_into();
        input.set_type("text");
        attr(&input, "inputmode", "numeric");
        attr(&input, "class", "filter ctx-input");
        attr(&input, "data-testid", "memory-context");
        attr(&input, "aria-label", "context length in tokens");
        attr(
            &input,
            "title",
            "tokens of context; blank: the model's own; 8k = 8192",
        );
        if let Some(c) = model_context(&model) {
            input.set_value(&c.to_string());
            attr(&input, "placeholder", &c.to_string());
        }
        append(&ctx_label, &input);
        append(&form, &ctx_label);
        let kv_label = el_class("label", "field");
        append(&kv_label, &el_text("span", "muted", "KV cache type"));
        let select: HtmlSelectElement = dom::el("select").unchecked_into();
        attr(&select, "class", "select");
        attr(&select, "data-testid", "memory-kv");
        for (v, label) in KV_CHOICES {
            let o = el_text("option", "", label);
            attr(&o, "value", v);
            append(&select, &o);
        }
        append(&kv_label, &select);
        append(&form, &kv_label);
        append(&body, &form);
        let note = el_class("p", "note warn");
        dom::set_hidden(&note, true);
        append(&body, &note);
        let out = el_class("div", "memory-out");
        append(&body, &out);

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
        match estimate(&self.model, ctx.tokens, kv) {
            Ok(e) => {
                attr(&self.card, "data-kv-bytes", &e.kv_bytes.to_string());
                attr(&self.card, "data-total-bytes", &e.total_bytes.to_string());
                attr(
                    &self.card,
                    "data-weights-bytes",
                    &e.weights_bytes.to_string(),
                );
                attr(&self.card, "data-context", &e.context.to_string());
                attr(
                    &self.card,
                    "data-kv-full-bytes",
                    &e.kv_full_context_bytes.to_string(),
                );
                let _ = self.card.remove_attribute("data-no-estimate");
                let dl = el_class("dl", "kv memory-figures");
                for (k, v) in rows(&e) {
                    append(&dl, &el_text("dt", "", &k));
                    let dd = el_text("dd", if k == "total" { "total" } else { "" }, &v);
                    append(&dl, &dd);
                }
                append(&self.out, &dl);
                append(&self.out, &el_text("p", "mono formula", &e.formula));
                let ul = el_class("ul", "notes");
                for n in &e.notes {
                    append(&ul, &el_text("li", "note", n));
                }
                append(&self.out, &ul);
            }
            Err(why) => {
                for a in [
                    "data-kv-bytes",
                    "data-total-bytes",
                    "data-weights-bytes",
                    "data-context",
                    "data-kv-full-bytes",
                ] {
                    let _ = self.card.remove_attribute(a);
                }
                attr(&self.card, "data-no-estimate", "");
                append(
                    &self.out,
                    &el_text("p", "no-estimate", &no_estimate_text(&why.to_string())),
                );
            }
        }
    }
}
