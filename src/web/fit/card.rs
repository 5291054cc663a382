//! The Fit card of a GGUF model ([`crate::view::fit_card::card`]): the plan's verdict,
//! figures, one bar per device, the command line with a copy button, notes.

use super::*;

/// Copies `text` when `button` (a [`nodes::copy_button`]) is clicked and says so in the
/// status line after it (cleared after 4 s by the timer kept in `cleared`).
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
        let promise = crate::web::tokenizer::write_clipboard(&text);
        let (status, cleared) = (status.clone(), cleared.clone());
        wasm_bindgen_futures::spawn_local(async move {
            let said = match promise {
                Ok(p) => JsFuture::from(p).await,
                Err(e) => Err(e),
            };
            let said = match said {
                Ok(_) => "copied".to_string(),
                Err(e) => format!("not copied: {}", crate::source::blob::js_error_text(&e)),
            };
            status.set_text_content(Some(&said));
            let s2 = status.clone();
            *cleared.borrow_mut() = Some(Timeout::new(4000, move || s2.set_text_content(None)));
        });
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

    /// Plans the model on the settings and draws the plan ([`nodes::plan_nodes`]).
    fn update(&self) {
        let s = self.form.settings();
        dom::clear(&self.out);
        self.out_listeners.borrow_mut().clear();
        let i = match inputs(&s) {
            Ok(i) => i,
            Err(e) => {
                self.form.show_error(Some(&e), None);
                return attr(&self.card, "data-state", "input-error");
            }
        };
        self.form.show_error(None, i.context_note.as_deref());
        let p = match plan(&self.model, &self.file, &i.devices, &i.options) {
            Ok(p) => p,
            Err(e) => {
                attr(&self.card, "data-state", "no-plan");
                return append(&self.out, &dom::render(&nodes::no_plan(&e.to_string())));
            }
        };
        attr(&self.card, "data-state", "ready");
        for (k, v) in nodes::plan_attrs(&p) {
            attr(&self.card, k, &v);
        }
        for n in nodes::plan_nodes(&p, &self.file, &s) {
            append(&self.out, &dom::render(&n));
        }
        let copy = wire_copy(&testid(&self.out, "fit-copy"), p.command, &self.copied);
        self.out_listeners.borrow_mut().push(copy);
    }
}
