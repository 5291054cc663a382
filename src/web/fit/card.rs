//! The Fit card of a GGUF model ([`crate::view::fit_card::card`]): the plan's verdict,
//! figures, one bar per device, the command line with a copy button, notes.

use super::*;

/// Copies `text` when `button` (a [`nodes::copy_button`]) is clicked and says so in the
/// status line after it ([`crate::web::tokenizer::copy_and_say`], the timer kept in `cleared`).
pub(super) fn wire_copy(
    button: &Element,
    text: String,
    cleared: &Rc<RefCell<Option<Timeout>>>,
) -> EventListener {
    let status = button
        .next_element_sibling()
        .expect("a copy button has its status line after it");
    let cleared = cleared.clone();
    EventListener::new(button, "click", move |_| {
        crate::web::tokenizer::copy_and_say(&text, &status, &cleared);
    })
}

/// The Fit card of one GGUF model.
pub struct FitCard {
    model: Rc<OpenedModel>,
    /// The file named in the command lines.
    file: String,
    card: Element,
    form: Rc<Form>,
    out: Element,
    copied: Rc<RefCell<Option<Timeout>>>,
    out_listeners: RefCell<Vec<EventListener>>,
}

impl FitCard {
    /// The card for `model` opened as `name`, showing `settings`; `page`: the page's card
    /// (its settings are remembered and in the address).
    pub fn new(model: Rc<OpenedModel>, name: &str, settings: Settings, page: bool) -> Rc<FitCard> {
        let card = dom::render(&nodes::card());
        let c = Rc::new(FitCard {
            model,
            file: file_name(name).to_string(),
            form: Form::attach(&card, settings, page),
            out: dom::find(&card, ".fit-out"),
            card,
            copied: Rc::new(RefCell::new(None)),
            out_listeners: RefCell::new(Vec::new()),
        });
        let w = Rc::downgrade(&c);
        c.form.set_on_change(Rc::new(move || {
            if let Some(c) = w.upgrade() {
                c.update();
            }
        }));
        c.update();
        c
    }

    /// The card's element.
    pub fn element(&self) -> &Element {
        &self.card
    }

    /// Shows `s` (the element's attributes) and recomputes.
    pub fn apply(&self, s: Settings) {
        self.form.apply(s);
    }

    /// Plans the model on the settings and draws the plan ([`nodes::card_out`]).
    fn update(&self) {
        let out = nodes::card_out(&self.model, &self.file, &self.form.settings());
        dom::clear(&self.out);
        self.out_listeners.borrow_mut().clear();
        self.form
            .show_error(out.error.as_ref(), out.note.as_deref());
        attr(&self.card, "data-state", out.state);
        for (k, v) in &out.attrs {
            attr(&self.card, k, v);
        }
        dom::append_nodes(&self.out, &out.nodes);
        if let Some(command) = out.command {
            let copy = wire_copy(&testid(&self.out, "fit-copy"), command, &self.copied);
            self.out_listeners.borrow_mut().push(copy);
        }
    }
}
