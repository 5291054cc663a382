//! The device settings form ([`crate::view::fit_card::form`]): GPUs with a preset select, add
//! and remove, RAM, margin, context, KV type; every form of the page shows the same settings.

use super::*;

/// The device settings: one row per GPU (its free memory, a preset select, remove), "Add
/// GPU", RAM, margin, context and KV type. The settings are the boxes' text; a change calls
/// the owner back (typing after a pause).
pub struct Form {
    /// Itself, for its listeners and the timer of a pause in typing.
    me: Weak<Form>,
    settings: RefCell<Settings>,
    gpu_list: Element,
    /// The RAM, margin and context boxes and the KV select, by key ([`BOXES`]).
    boxes: [(&'static str, Element); 4],
    error: Element,
    /// The page's form: changes are remembered, put in the address and shown in the others.
    page: bool,
    on_change: RefCell<Option<OnChange>>,
    pending: RefCell<Option<Timeout>>,
    /// The form's three delegated listeners (`input`, `change`, `click`: [`Form::edited`]).
    listeners: RefCell<Vec<EventListener>>,
}

impl Form {
    /// The form rendered in `card` (from [`nodes::form`]) showing `settings`; `page`: the
    /// page's (see [`Form`]).
    pub fn attach(card: &Element, settings: Settings, page: bool) -> Rc<Form> {
        let root: Element = testid(card, "fit-form");
        let form = Rc::new_cyclic(|me| Form {
            me: me.clone(),
            settings: RefCell::new(settings),
            gpu_list: dom::find(&root, ".fit-gpu-list"),
            boxes: BOXES.map(|k| (k, testid(&root, &format!("fit-{k}")))),
            error: testid(&root, "fit-input-error"),
            page,
            on_change: RefCell::new(None),
            pending: RefCell::new(None),
            listeners: RefCell::new(Vec::new()),
        });
        form.show();
        let ls = ["input", "change", "click"].map(|event| {
            let w = form.me.clone();
            EventListener::new(&root, event, move |e| {
                if let Some(f) = w.upgrade() {
                    f.edited(e);
                }
            })
        });
        *form.listeners.borrow_mut() = ls.into();
        if page {
            PAGE_FORMS.with(|p| {
                let mut p = p.borrow_mut();
                p.retain(|w| w.strong_count() > 0);
                p.push(Rc::downgrade(&form));
            });
        }
        form
    }

    /// Carries out the step the view-model gives for event `e` on a control of the form
    /// ([`nodes::form_edit`]): the GPU row's other control, the rows redrawn, the change told.
    fn edited(&self, e: &web_sys::Event) {
        let Some(target) = dom::target(e) else { return };
        let id = target.get_attribute("data-testid").unwrap_or_default();
        let row = target.closest("[data-index]").ok().flatten();
        let index = row.as_ref().and_then(|r| r.get_attribute("data-index"));
        let index = index.and_then(|i| i.parse().ok());
        let shown = |k: &str| self.shown(k);
        let mut s = self.settings.borrow_mut();
        let step = nodes::form_edit(
            &mut s,
            &e.type_(),
            &id,
            index,
            dom::value_of(&target),
            &shown,
        );
        drop(s);
        if let (Some((other, v)), Some(row)) = (&step.row_value, &row) {
            dom::set_value(&testid(row, other), v);
        }
        if step.redraw {
            self.draw_gpus();
        }
        if let Some(now) = step.apply {
            self.changed(now);
        }
    }

    /// The settings as typed now.
    pub fn settings(&self) -> Settings {
        self.settings.borrow().clone()
    }

    /// Calls `f` after every change.
    pub fn set_on_change(&self, f: OnChange) {
        *self.on_change.borrow_mut() = Some(f);
    }

    /// Shows `s` (as if typed) and tells the owner.
    pub fn apply(&self, s: Settings) {
        if *self.settings.borrow() == s {
            return;
        }
        *self.settings.borrow_mut() = s;
        self.show();
        self.notify();
    }

    /// Marks the box `e` names (or none) and says what is wrong, or else `note` (the context
    /// box clamped or not read as typed): [`nodes::marks`].
    pub fn show_error(&self, e: Option<&FieldError>, note: Option<&str>) {
        let gpus = dom::all(&self.gpu_list, "[data-testid=fit-gpu-size]");
        let m = nodes::marks(e, note, &self.shown("ctx"), gpus.len());
        self.error.set_text_content(m.text.as_deref());
        dom::set_hidden(&self.error, m.text.is_none());
        let mark = |el: &Element, on: bool| attr(el, "aria-invalid", bool_text(on));
        for (k, b) in &self.boxes {
            mark(b, m.marked(k));
        }
        for (el, on) in gpus.iter().zip(m.gpus) {
            mark(el, on);
        }
    }

    /// What box `key` of [`BOXES`] shows now (`""` for another key).
    fn shown(&self, key: &str) -> String {
        let b = self.boxes.iter().find(|(k, _)| *k == key);
        b.map(|(_, b)| dom::value_of(b)).unwrap_or_default()
    }

    /// Writes the settings into the boxes.
    fn show(&self) {
        let s = self.settings.borrow().clone();
        for (k, b) in &self.boxes {
            dom::set_value(b, s.shown(k));
        }
        self.draw_gpus();
    }

    /// Redraws the GPU rows ([`nodes::gpu_rows`]) from the settings (after add/remove, or new
    /// settings).
    fn draw_gpus(&self) {
        let gpus = self.settings.borrow().gpus.clone();
        dom::fill(&self.gpu_list, &nodes::gpu_rows(gpus.len()));
        for (row, g) in dom::all(&self.gpu_list, "[data-index]").iter().zip(&gpus) {
            dom::set_value(&testid(row, "fit-gpu-size"), g);
            dom::set_value(&testid(row, "fit-gpu-preset"), preset_choice(g));
        }
    }

    /// The settings changed by the person: now (`immediate`) or after typing pauses.
    fn changed(&self, immediate: bool) {
        if immediate {
            self.pending.borrow_mut().take();
            self.commit();
        } else {
            let w = self.me.clone();
            *self.pending.borrow_mut() = Some(Timeout::new(DELAY_MS, move || {
                if let Some(f) = w.upgrade() {
                    f.commit();
                }
            }));
        }
    }

    /// Remembers the page's settings and shows them in its other forms; tells the owner.
    fn commit(&self) {
        let s = self.settings();
        if self.page {
            save_page(&s);
            let others: Vec<Rc<Form>> = PAGE_FORMS.with(|p| {
                p.borrow()
                    .iter()
                    .filter_map(Weak::upgrade)
                    .filter(|f| !std::ptr::eq(Rc::as_ptr(f), self))
                    .collect()
            });
            for f in others {
                f.apply(s.clone());
            }
        }
        self.notify();
    }

    fn notify(&self) {
        let f = self.on_change.borrow().clone();
        if let Some(f) = f {
            f();
        }
    }
}
