//! The device settings form: GPUs with a preset select, add and remove, RAM, margin, context,
//! KV type; every form of the page shows the same settings.

use super::*;

/// A text box in a labelled field.
fn text_field(parent: &Element, label: &str, testid: &str, title: &str) -> HtmlInputElement {
    let l = el_class("label", "field");
    append(&l, &el_text("span", "muted", label));
    let input: HtmlInputElement = dom::el("input").unchecked_into();
    input.set_type("text");
    attr(&input, "class", "filter fit-input");
    attr(&input, "data-testid", testid);
    attr(&input, "spellcheck", "false");
    attr(&input, "title", title);
    append(&l, &input);
    append(parent, &l);
    input
}

/// The device settings: one row per GPU (its free memory, a preset select, remove), "Add
/// GPU", RAM, margin, context and KV type. The settings are the boxes' text; a change calls
/// the owner back (typing after a pause).
pub struct Form {
    /// Itself, for the listeners it makes.
    pub(super) me: Weak<Form>,
    pub(super) root: Element,
    pub(super) settings: RefCell<Settings>,
    pub(super) gpu_list: Element,
    pub(super) gpu_inputs: RefCell<Vec<HtmlInputElement>>,
    pub(super) ram: HtmlInputElement,
    pub(super) margin: HtmlInputElement,
    pub(super) ctx: HtmlInputElement,
    pub(super) kv: HtmlSelectElement,
    pub(super) error: Element,
    /// The page's form: changes are remembered, put in the address and shown in the others.
    pub(super) page: bool,
    pub(super) on_change: RefCell<Option<OnChange>>,
    pub(super) pending: RefCell<Option<Timeout>>,
    pub(super) gpu_listeners: RefCell<Vec<EventListener>>,
    pub(super) listeners: RefCell<Vec<EventListener>>,
}

impl Form {
    /// A form showing `settings`; `page`: the page's (see [`Form`]).
    pub fn new(settings: Settings, page: bool) -> Rc<Form> {
        let root = el_class("div", "fit-form");
        attr(&root, "data-testid", "fit-form");
        let gpu_box = el_class("div", "fit-gpus");
        let gpu_list = el_class("div", "fit-gpu-list");
        append(&gpu_box, &gpu_list);
        let add = el_text("button", "button small", "Add GPU");
        attr(&add, "type", "button");
        attr(&add, "data-testid", "fit-gpu-add");
        append(&gpu_box, &add);
        append(&root, &gpu_box);
        let others = el_class("div", "fit-fields");
        let ram = text_field(
            &others,
            "system RAM",
            "fit-ram",
            "system memory, e.g. 16GiB, 64 GB",
        );
        let margin = text_field(
            &others,
            "kept free per GPU",
            "fit-margin",
            "memory left free on every GPU (llama.cpp's --fit keeps 1 GiB)",
        );
        let ctx = text_field(
            &others,
            "context (tokens)",
            "fit-ctx",
            "tokens of context; blank: the model's own; 8k = 8192",
        );
        attr(&ctx, "inputmode", "numeric");
        attr(&ctx, "placeholder", "model's own");
        let kv_label = el_class("label", "field");
        append(&kv_label, &el_text("span", "muted", "KV cache type"));
        let kv: HtmlSelectElement = dom::el("select").unchecked_into();
        attr(&kv, "class", "select");
        attr(&kv, "data-testid", "fit-kv");
        for (v, label) in KV_CHOICES {
            let o = el_text("option", "", label);
            attr(&o, "value", v);
            append(&kv, &o);
        }
        append(&kv_label, &kv);
        append(&others, &kv_label);
        append(&root, &others);
        let error = el_class("p", "note warn");
        attr(&error, "data-testid", "fit-input-error");
        attr(&error, "role", "alert");
        dom::set_hidden(&error, true);
        append(&root, &error);

        let form = Rc::new_cyclic(|me| Form {
            me: me.clone(),
            root,
            settings: RefCell::new(settings),
            gpu_list,
            gpu_inputs: RefCell::new(Vec::new()),
            ram,
            margin,
            ctx,
            kv,
            error,
            page,
            on_change: RefCell::new(None),
            pending: RefCell::new(None),
            gpu_listeners: RefCell::new(Vec::new()),
            listeners: RefCell::new(Vec::new()),
        });
        form.show();
        let mut ls = Vec::new();
        for input in [&form.ram, &form.margin, &form.ctx] {
            let w = Rc::downgrade(&form);
            ls.push(EventListener::new(input, "input", move |_| {
                if let Some(f) = w.upgrade() {
                    f.read_boxes();
                    f.changed(false);
                }
            }));
        }
        let w = Rc::downgrade(&form);
        ls.push(EventListener::new(&form.kv, "change", move |_| {
            if let Some(f) = w.upgrade() {
                f.read_boxes();
                f.changed(true);
            }
        }));
        let w = Rc::downgrade(&form);
        ls.push(EventListener::new(&add, "click", move |_| {
            if let Some(f) = w.upgrade() {
                let n = f.settings.borrow().gpus.len();
                if n < fit_view::MAX_GPUS {
                    f.settings.borrow_mut().gpus.push("8GiB".into());
                    f.draw_gpus();
                    f.changed(true);
                }
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

    /// The form's element.
    pub fn element(&self) -> &Element {
        &self.root
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
    /// box clamped or not read as typed).
    pub fn show_error(&self, e: Option<&FieldError>, note: Option<&str>) {
        let text = e.map(|e| e.message.as_str()).or(note);
        self.error.set_text_content(text);
        dom::set_hidden(&self.error, text.is_none());
        attr(
            &self.ctx,
            "aria-invalid",
            if e.is_none()
                && note.is_some()
                && crate::view::memory::parse_context(&self.ctx.value()).invalid
            {
                "true"
            } else {
                "false"
            },
        );
        let mark =
            |el: &Element, on: bool| attr(el, "aria-invalid", if on { "true" } else { "false" });
        mark(&self.ram, e.is_some_and(|e| e.field == "ram"));
        mark(&self.margin, e.is_some_and(|e| e.field == "margin"));
        mark(&self.kv, e.is_some_and(|e| e.field == "kv"));
        for (i, el) in self.gpu_inputs.borrow().iter().enumerate() {
            mark(
                el,
                e.is_some_and(|e| e.field == "gpu" && e.index == Some(i)),
            );
        }
    }

    /// Writes the settings into the boxes.
    fn show(&self) {
        let s = self.settings.borrow().clone();
        self.ram.set_value(&s.ram);
        self.margin.set_value(&s.margin);
        self.ctx.set_value(&s.ctx);
        let kv = KV_CHOICES
            .iter()
            .find(|(v, _)| *v == s.kv.trim().to_ascii_lowercase())
            .map_or("f16", |(v, _)| *v);
        self.kv.set_value(kv);
        self.draw_gpus();
    }

    fn read_boxes(&self) {
        let mut s = self.settings.borrow_mut();
        s.ram = self.ram.value();
        s.margin = self.margin.value();
        s.ctx = self.ctx.value();
        s.kv = self.kv.value();
    }

    /// Redraws the GPU rows from the settings (after add/remove, or new settings).
    fn draw_gpus(&self) {
        let gpus = self.settings.borrow().gpus.clone();
        let mut ls = Vec::new();
        let mut boxes = Vec::new();
        dom::clear(&self.gpu_list);
        if gpus.is_empty() {
            append(
                &self.gpu_list,
                &el_text(
                    "p",
                    "muted fit-no-gpu",
                    "No GPU: everything runs in system RAM.",
                ),
            );
        }
        let me = self.weak();
        for (i, g) in gpus.iter().enumerate() {
            let row = el_class("div", "fit-gpu");
            attr(&row, "data-testid", "fit-gpu");
            attr(&row, "data-index", &i.to_string());
            let l = el_class("label", "field");
            append(
                &l,
                &el_text("span", "muted", &format!("GPU {i} free memory")),
            );
            let input: HtmlInputElement = dom::el("input").unchecked_into();
            input.set_type("text");
            attr(&input, "class", "filter fit-input");
            attr(&input, "data-testid", "fit-gpu-size");
            attr(&input, "spellcheck", "false");
            attr(
                &input,
                "title",
                "free memory, e.g. 24GiB, 12 GB, 8192MiB, or a card",
            );
            input.set_value(g);
            boxes.push(input.clone());
            append(&l, &input);
            append(&row, &l);
            let pl = el_class("label", "field");
            append(&pl, &el_text("span", "muted", "card"));
            let select: HtmlSelectElement = dom::el("select").unchecked_into();
            attr(&select, "class", "select");
            attr(&select, "data-testid", "fit-gpu-preset");
            attr(&select, "aria-label", &format!("GPU {i} card"));
            let custom = el_text("option", "", "custom size");
            attr(&custom, "value", "");
            append(&select, &custom);
            for (v, label, _) in PRESETS {
                let o = el_text("option", "", label);
                attr(&o, "value", v);
                append(&select, &o);
            }
            select.set_value(preset_of(g).unwrap_or(""));
            append(&pl, &select);
            append(&row, &pl);
            let remove = el_text("button", "button small fit-gpu-remove", "Remove");
            attr(&remove, "type", "button");
            attr(&remove, "data-testid", "fit-gpu-remove");
            attr(&remove, "aria-label", &format!("remove GPU {i}"));
            append(&row, &remove);
            append(&self.gpu_list, &row);

            let (w, inp, sel) = (me.clone(), input.clone(), select.clone());
            ls.push(EventListener::new(&input, "input", move |_| {
                if let Some(f) = w.upgrade() {
                    if let Some(g) = f.settings.borrow_mut().gpus.get_mut(i) {
                        *g = inp.value();
                    }
                    sel.set_value(preset_of(&inp.value()).unwrap_or(""));
                    f.changed(false);
                }
            }));
            let (w, inp, sel) = (me.clone(), input.clone(), select.clone());
            ls.push(EventListener::new(&select, "change", move |_| {
                let v = sel.value();
                if v.is_empty() {
                    return;
                }
                if let Some(f) = w.upgrade() {
                    inp.set_value(&v);
                    if let Some(g) = f.settings.borrow_mut().gpus.get_mut(i) {
                        *g = v;
                    }
                    f.changed(true);
                }
            }));
            let w = me.clone();
            ls.push(EventListener::new(&remove, "click", move |_| {
                if let Some(f) = w.upgrade() {
                    {
                        let mut s = f.settings.borrow_mut();
                        if i < s.gpus.len() {
                            s.gpus.remove(i);
                        }
                    }
                    f.draw_gpus();
                    f.changed(true);
                }
            }));
        }
        *self.gpu_listeners.borrow_mut() = ls;
        *self.gpu_inputs.borrow_mut() = boxes;
    }

    fn weak(&self) -> Weak<Form> {
        self.me.clone()
    }

    /// The settings changed by the person: now (`immediate`) or after typing pauses.
    fn changed(&self, immediate: bool) {
        if immediate {
            self.pending.borrow_mut().take();
            self.commit();
        } else {
            let w = self.weak();
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
