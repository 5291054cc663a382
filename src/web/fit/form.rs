//! The device settings form ([`crate::view::fit_card::form`]): GPUs with a preset select, add
//! and remove, RAM, margin, context, KV type; every form of the page shows the same settings.

use super::*;

/// The device settings: one row per GPU (its free memory, a preset select, remove), "Add
/// GPU", RAM, margin, context and KV type. The settings are the boxes' text; a change calls
/// the owner back (typing after a pause).
pub struct Form {
    /// Itself, for the listeners it makes.
    me: Weak<Form>,
    settings: RefCell<Settings>,
    gpu_list: Element,
    gpu_inputs: RefCell<Vec<HtmlInputElement>>,
    /// The RAM, margin and context boxes and the KV select, by key ([`BOXES`]).
    boxes: [(&'static str, Element); 4],
    error: Element,
    /// The page's form: changes are remembered, put in the address and shown in the others.
    page: bool,
    on_change: RefCell<Option<OnChange>>,
    pending: RefCell<Option<Timeout>>,
    gpu_listeners: RefCell<Vec<EventListener>>,
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
            gpu_inputs: RefCell::new(Vec::new()),
            boxes: BOXES.map(|k| (k, testid(&root, &format!("fit-{k}")))),
            error: testid(&root, "fit-input-error"),
            page,
            on_change: RefCell::new(None),
            pending: RefCell::new(None),
            gpu_listeners: RefCell::new(Vec::new()),
            listeners: RefCell::new(Vec::new()),
        });
        form.show();
        // Typing applies once it pauses; the KV select at once.
        let mut ls: Vec<EventListener> = form
            .boxes
            .iter()
            .map(|(k, b)| {
                let (event, now) = if *k == "kv" {
                    ("change", true)
                } else {
                    ("input", false)
                };
                form.on(b, event, move |f| {
                    f.read_boxes();
                    f.changed(now);
                })
            })
            .collect();
        let add: Element = testid(&root, "fit-gpu-add");
        ls.push(form.on(&add, "click", |f| {
            if f.settings.borrow_mut().add_gpu() {
                f.draw_gpus();
                f.changed(true);
            }
        }));
        *form.listeners.borrow_mut() = ls;
        if page {
            PAGE_FORMS.with(|p| {
                let mut p = p.borrow_mut();
                p.retain(|w| w.strong_count() > 0);
                p.push(Rc::downgrade(&form));
            });
        }
        form
    }

    /// A listener on `target` calling `then` with the form while it lives.
    fn on(
        &self,
        target: &web_sys::EventTarget,
        event: &'static str,
        then: impl Fn(&Form) + 'static,
    ) -> EventListener {
        let w = self.me.clone();
        EventListener::new(target, event, move |_| {
            if let Some(f) = w.upgrade() {
                then(&f);
            }
        })
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
        let gpus = self.gpu_inputs.borrow();
        let ctx = self.boxes.iter().find(|(k, _)| *k == "ctx");
        let ctx = ctx.map(|(_, b)| dom::value_of(b)).unwrap_or_default();
        let m = nodes::marks(e, note, &ctx, gpus.len());
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

    /// Writes the settings into the boxes.
    fn show(&self) {
        let s = self.settings.borrow().clone();
        for (k, b) in &self.boxes {
            dom::set_value(b, s.shown(k));
        }
        self.draw_gpus();
    }

    fn read_boxes(&self) {
        let mut s = self.settings.borrow_mut();
        for (k, b) in &self.boxes {
            s.set_box(k, dom::value_of(b));
        }
    }

    /// Redraws the GPU rows ([`nodes::gpu_rows`]) from the settings (after add/remove, or new
    /// settings).
    fn draw_gpus(&self) {
        let gpus = self.settings.borrow().gpus.clone();
        let (mut ls, mut boxes) = (Vec::new(), Vec::new());
        dom::clear(&self.gpu_list);
        for (i, n) in nodes::gpu_rows(gpus.len()).iter().enumerate() {
            let row = dom::render(n);
            append(&self.gpu_list, &row);
            let Some(g) = gpus.get(i) else { continue };
            let input: HtmlInputElement = testid(&row, "fit-gpu-size");
            let select: HtmlSelectElement = testid(&row, "fit-gpu-preset");
            input.set_value(g);
            select.set_value(preset_choice(g));
            boxes.push(input.clone());
            let (inp, sel) = (input.clone(), select.clone());
            ls.push(self.on(&input, "input", move |f| {
                let choice = f.settings.borrow_mut().type_gpu(i, inp.value());
                sel.set_value(choice);
                f.changed(false);
            }));
            let (inp, sel) = (input, select.clone());
            ls.push(self.on(&select, "change", move |f| {
                let v = sel.value();
                if f.settings.borrow_mut().pick_preset(i, &v) {
                    inp.set_value(&v);
                    f.changed(true);
                }
            }));
            let remove: Element = testid(&row, "fit-gpu-remove");
            ls.push(self.on(&remove, "click", move |f| {
                f.settings.borrow_mut().remove_gpu(i);
                f.draw_gpus();
                f.changed(true);
            }));
        }
        *self.gpu_listeners.borrow_mut() = ls;
        *self.gpu_inputs.borrow_mut() = boxes;
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
