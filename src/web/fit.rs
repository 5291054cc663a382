//! Will it run here? The device settings form (GPUs with a preset select, add/remove, RAM,
//! margin, context, KV type), the Fit card of a GGUF model (the plan of
//! [`crate::summary::fit::plan`]: verdict, figures, one bar per device, the command line with a
//! copy button, notes) and a Hub repo's "Will it fit?" table (every GGUF model's header read,
//! four at a time, each planned on the same devices; [`crate::view::fit::repo_rows`]).
//!
//! The page keeps the settings in `localStorage` and in its address (`?gpu=24GiB&gpu=12GiB&
//! ram=64GiB&ctx=32768&kv=q8_0&margin=1GiB`, [`crate::view::fit::QUERY_KEYS`]); every form of
//! the page shows the same settings. The element's card takes them from its attributes and
//! writes nothing. Recomputing reads nothing: the models are in memory.

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use gloo::events::EventListener;
use gloo::timers::callback::Timeout;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Element, HtmlInputElement, HtmlSelectElement};

use super::dom::{self, append, attr, el_class, el_text};
use super::http::Fetcher;
use super::load;
use crate::format::Model;
use crate::open::recognise::file_name;
use crate::remote::hub::Repo;
use crate::remote::shards::{Entry, EntryKind};
use crate::summary::fit::{plan, FitPlan, Fits, PRESETS};
use crate::view::fit::{
    self as fit_view, cli_args, device_rows, fits_name, inputs, preset_of, repo_cells, repo_rows,
    rows, FieldError, Settings, QUERY_KEYS, REPO_COLUMNS,
};
use crate::view::memory::KV_CHOICES;

/// Milliseconds a recomputation waits for typing to pause.
const DELAY_MS: u32 = 150;
/// Most GGUF models of a repo whose headers are read at once.
const CONCURRENT_OPENS: usize = 4;
/// `localStorage` key of the page's device settings (their query string).
const STORAGE_KEY: &str = "weightpeek.fit";

type OnChange = Rc<dyn Fn()>;

thread_local! {
    /// The page's forms (the Fit card's, the repo table's): a change in one shows in the others.
    static PAGE_FORMS: RefCell<Vec<Weak<Form>>> = const { RefCell::new(Vec::new()) };
}

fn local() -> Option<web_sys::Storage> {
    gloo::utils::window().local_storage().ok().flatten()
}

fn query_pairs(search: &str) -> Vec<(String, String)> {
    web_sys::UrlSearchParams::new_with_str(search)
        .ok()
        .map(|p| {
            let mut out = Vec::new();
            for k in QUERY_KEYS {
                for v in p.get_all(k).iter().filter_map(|v| v.as_string()) {
                    out.push((k.to_string(), v));
                }
            }
            out
        })
        .unwrap_or_default()
}

fn settings_of(pairs: &[(String, String)]) -> Option<Settings> {
    Settings::from_query(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
}

/// The page's settings: the address's (a shared link), else the remembered ones, else the
/// defaults.
pub fn page_settings() -> Settings {
    let search = gloo::utils::window()
        .location()
        .search()
        .unwrap_or_default();
    settings_of(&query_pairs(&search))
        .or_else(|| {
            local()
                .and_then(|s| s.get_item(STORAGE_KEY).ok().flatten())
                .and_then(|q| settings_of(&query_pairs(&q)))
        })
        .unwrap_or_default()
}

/// Remembers `s` and puts it in the page's address (no reload, no history entry).
fn save_page(s: &Settings) {
    let q = s.to_query();
    if let Ok(p) = web_sys::UrlSearchParams::new() {
        for (k, v) in &q {
            p.append(k, v);
        }
        if let Some(st) = local() {
            let _ = st.set_item(STORAGE_KEY, &String::from(p.to_string()));
        }
    }
    super::dom::edit_page_url(|u| {
        for k in QUERY_KEYS {
            u.delete(k);
        }
        for (k, v) in &q {
            u.append(k, v);
        }
    });
}

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
    me: Weak<Form>,
    root: Element,
    settings: RefCell<Settings>,
    gpu_list: Element,
    gpu_inputs: RefCell<Vec<HtmlInputElement>>,
    ram: HtmlInputElement,
    margin: HtmlInputElement,
    ctx: HtmlInputElement,
    kv: HtmlSelectElement,
    error: Element,
    /// The page's form: changes are remembered, put in the address and shown in the others.
    page: bool,
    on_change: RefCell<Option<OnChange>>,
    pending: RefCell<Option<Timeout>>,
    gpu_listeners: RefCell<Vec<EventListener>>,
    listeners: RefCell<Vec<EventListener>>,
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

/// The plan's verdict as a data attribute value.
fn set_plan_attrs(el: &Element, p: &FitPlan) {
    attr(el, "data-fits", fits_name(p.fits));
    attr(el, "data-gpu-layers", &p.gpu_layers.to_string());
    attr(el, "data-cpu-moe", &p.cpu_moe.to_string());
    attr(el, "data-context", &p.context.to_string());
    let opt = |n: Option<u64>| n.map_or_else(String::new, |n| n.to_string());
    attr(el, "data-max-context-gpu", &opt(p.max_context_gpu));
    attr(el, "data-max-context", &opt(p.max_context));
}

/// A copy button for `text` with its status line; the listener goes into `ls`.
fn copy_button(
    parent: &Element,
    text: String,
    testid: &str,
    cleared: &Rc<RefCell<Option<Timeout>>>,
    ls: &mut Vec<EventListener>,
) {
    let copy = el_text("button", "button small", "Copy");
    attr(&copy, "type", "button");
    attr(&copy, "data-testid", testid);
    attr(&copy, "title", "copy the command line to the clipboard");
    append(parent, &copy);
    // Not `.copy-status`: the tokenizer card's status is found by that class.
    let status = el_class("span", "muted fit-copy-status");
    attr(&status, "aria-live", "polite");
    attr(&status, "data-testid", &format!("{testid}-status"));
    append(parent, &status);
    let cleared = cleared.clone();
    ls.push(EventListener::new(&copy, "click", move |_| {
        let promise = super::tokenizer::write_clipboard(&text);
        let (status, cleared) = (status.clone(), cleared.clone());
        wasm_bindgen_futures::spawn_local(async move {
            let said = match promise {
                Ok(p) => JsFuture::from(p).await,
                Err(e) => Err(e),
            };
            let said = match said {
                Ok(_) => "copied".to_string(),
                Err(e) => format!("not copied: {}", super::blob::js_error_text(&e)),
            };
            status.set_text_content(Some(&said));
            let s2 = status.clone();
            *cleared.borrow_mut() = Some(Timeout::new(4000, move || s2.set_text_content(None)));
        });
    }));
}

/// The Fit card of one GGUF model.
pub struct FitCard {
    me: Weak<FitCard>,
    model: Rc<Model>,
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
    pub fn new(model: Rc<Model>, name: &str, settings: Settings, page: bool) -> Rc<FitCard> {
        let (card, body) = dom::card("Will it run here?", "fit");
        attr(&card, "data-testid", "fit");
        let form = Form::new(settings, page);
        append(&body, form.element());
        let out = el_class("div", "fit-out");
        attr(&out, "aria-live", "polite");
        append(&body, &out);
        let c = Rc::new_cyclic(|me| FitCard {
            me: me.clone(),
            model,
            file: file_name(name).to_string(),
            card,
            form,
            out,
            copied: Rc::new(RefCell::new(None)),
            out_listeners: RefCell::new(Vec::new()),
        });
        let w = c.me.clone();
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

    /// Plans the model on the settings and draws the plan.
    fn update(&self) {
        let s = self.form.settings();
        dom::clear(&self.out);
        let mut ls = Vec::new();
        let i = match inputs(&s) {
            Ok(i) => i,
            Err(e) => {
                self.form.show_error(Some(&e), None);
                attr(&self.card, "data-state", "input-error");
                *self.out_listeners.borrow_mut() = ls;
                return;
            }
        };
        self.form.show_error(None, i.context_note.as_deref());
        let p = match plan(&self.model, &self.file, &i.devices, &i.options) {
            Ok(p) => p,
            Err(e) => {
                attr(&self.card, "data-state", "no-plan");
                append(&self.out, &el_text("p", "no-estimate", &e.to_string()));
                *self.out_listeners.borrow_mut() = ls;
                return;
            }
        };
        attr(&self.card, "data-state", "ready");
        set_plan_attrs(&self.card, &p);
        let verdict = el_text(
            "p",
            &format!("fit-verdict fits-{}", fits_name(p.fits)),
            &fit_view::verdict_line(&p),
        );
        attr(&verdict, "data-testid", "fit-verdict");
        append(&self.out, &verdict);

        let dl = el_class("dl", "kv fit-figures");
        // The verdict is the headline above; the command has its own box below.
        for r in rows(&p)
            .iter()
            .filter(|r| r.label != "command" && r.label != "verdict")
        {
            append(&dl, &el_text("dt", "", &r.label));
            append(&dl, &el_text("dd", "", &r.value));
        }
        append(&self.out, &dl);

        let devices = el_class("div", "fit-devices");
        attr(&devices, "data-testid", "fit-devices");
        for (d, u) in device_rows(&p).iter().zip(&p.devices) {
            let row = el_class(
                "div",
                if d.over {
                    "fit-device over"
                } else {
                    "fit-device"
                },
            );
            attr(&row, "data-testid", "fit-device");
            attr(&row, "data-name", &d.name);
            attr(&row, "data-bytes", &u.bytes.to_string());
            attr(&row, "data-budget", &u.budget_bytes.to_string());
            attr(&row, "data-permille", &d.permille.to_string());
            attr(&row, "data-over", if d.over { "true" } else { "false" });
            let head = el_class("div", "fit-device-head");
            append(&head, &el_text("strong", "fit-device-name", &d.name));
            append(&head, &el_text("span", "fit-device-used", &d.used));
            append(&row, &head);
            let bar = el_class("div", "fit-bar");
            attr(&bar, "role", "meter");
            attr(&bar, "aria-label", &format!("{} used", d.name));
            attr(&bar, "aria-valuemin", "0");
            attr(&bar, "aria-valuemax", "1000");
            attr(&bar, "aria-valuenow", &d.permille.to_string());
            let fill = el_class("div", "fit-bar-fill");
            dom::style(
                &fill,
                &[("width", &format!("{}%", d.permille as f64 / 10.0))],
            );
            append(&bar, &fill);
            append(&row, &bar);
            append(
                &row,
                &el_text(
                    "p",
                    "muted fit-device-holds",
                    &format!("{}; {}", d.holds, d.parts),
                ),
            );
            append(&devices, &row);
        }
        append(&self.out, &devices);

        let cmd = el_class("div", "fit-command-box");
        let bar = el_class("div", "fit-command-bar");
        append(&bar, &el_text("span", "muted", "llama.cpp command"));
        copy_button(&bar, p.command.clone(), "fit-copy", &self.copied, &mut ls);
        append(&cmd, &bar);
        let pre = el_text("pre", "mono fit-command", &p.command);
        attr(&pre, "data-testid", "fit-command");
        append(&cmd, &pre);
        let same = el_text(
            "p",
            "muted fit-cli",
            &format!(
                "the same plan in a terminal: weightpeek fit {} {}",
                self.file,
                cli_args(&s)
            ),
        );
        attr(&same, "data-testid", "fit-cli");
        append(&cmd, &same);
        append(&self.out, &cmd);

        let ul = el_class("ul", "notes");
        for n in &p.notes {
            append(&ul, &el_text("li", "note", n));
        }
        append(&self.out, &ul);
        *self.out_listeners.borrow_mut() = ls;
    }
}

/// One GGUF model of the repo table: its entry and, once read, its header.
struct RepoModel {
    entry: Entry,
    model: Option<Result<Rc<Model>, String>>,
}

/// A Hub repo's "Will it fit?" table: every GGUF model (a split set is one) planned on the
/// page's devices, largest first, the pick marked. Dropping it cancels its reads.
pub struct RepoFit {
    me: Weak<RepoFit>,
    card: Element,
    form: Rc<Form>,
    status: Element,
    tbody: Element,
    models: RefCell<Vec<RepoModel>>,
    next: Cell<usize>,
    fetchers: RefCell<Vec<Rc<Fetcher>>>,
    copied: Rc<RefCell<Option<Timeout>>>,
    row_listeners: RefCell<Vec<EventListener>>,
}

impl RepoFit {
    /// The table for the GGUF entries of `repo` (none: `None`), drawn into `container`; reads
    /// their headers, [`CONCURRENT_OPENS`] at a time, from `endpoint` with `token`.
    pub fn start(
        container: &Element,
        repo: &Repo,
        entries: &[Entry],
        endpoint: String,
        token: Option<String>,
    ) -> Option<Rc<RepoFit>> {
        let ggufs: Vec<Entry> = entries
            .iter()
            .filter(|e| matches!(e.kind, EntryKind::Gguf | EntryKind::GgufSplit))
            .cloned()
            .collect();
        if ggufs.is_empty() {
            return None;
        }
        dom::clear(container);
        let (card, body) = dom::card("Will it fit?", "fit repo-fit-card");
        attr(&card, "data-testid", "repo-fit");
        append(
            &body,
            &el_text(
                "p",
                "muted",
                &format!(
                    "Every GGUF model of {} on these devices, from its header alone (largest first; ★ the largest that fits).",
                    repo.id
                ),
            ),
        );
        let form = Form::new(page_settings(), true);
        append(&body, form.element());
        let status = el_class("p", "muted fit-repo-status");
        attr(&status, "role", "status");
        attr(&status, "data-testid", "repo-fit-status");
        append(&body, &status);
        let scroll = el_class("div", "table-scroll");
        let table = el_class("table", "table repo-fit-table");
        let thead = dom::el("thead");
        let tr = dom::el("tr");
        for c in REPO_COLUMNS {
            append(&tr, &el_text("th", "", c));
        }
        append(&thead, &tr);
        append(&table, &thead);
        let tbody = dom::el("tbody");
        append(&table, &tbody);
        append(&scroll, &table);
        append(&body, &scroll);
        append(container, &card);
        dom::set_hidden(container, false);

        let t = Rc::new_cyclic(|me| RepoFit {
            me: me.clone(),
            card,
            form,
            status,
            tbody,
            models: RefCell::new(
                ggufs
                    .into_iter()
                    .map(|entry| RepoModel { entry, model: None })
                    .collect(),
            ),
            next: Cell::new(0),
            fetchers: RefCell::new(Vec::new()),
            copied: Rc::new(RefCell::new(None)),
            row_listeners: RefCell::new(Vec::new()),
        });
        let w = t.me.clone();
        t.form.set_on_change(Rc::new(move || {
            if let Some(t) = w.upgrade() {
                t.draw();
            }
        }));
        t.draw();
        for _ in 0..CONCURRENT_OPENS {
            let (w, repo, ep, token) =
                (t.me.clone(), repo.clone(), endpoint.clone(), token.clone());
            wasm_bindgen_futures::spawn_local(async move {
                // Each worker takes the next model not yet started until none is left.
                loop {
                    let Some(t) = w.upgrade() else { return };
                    let i = t.next.get();
                    let Some(entry) = t.models.borrow().get(i).map(|m| m.entry.clone()) else {
                        return;
                    };
                    t.next.set(i + 1);
                    let fetcher = Rc::new(Fetcher::new(ep.clone(), token.clone(), Box::new(|| {})));
                    t.fetchers.borrow_mut().push(fetcher.clone());
                    drop(t);
                    let given: Vec<(String, String)> = entry
                        .files
                        .iter()
                        .map(|p| (p.clone(), repo.resolve_url(&ep, p)))
                        .collect();
                    let result =
                        load::read_remote(fetcher, load::counters(), &given, Some(&entry.files))
                            .await;
                    let Some(t) = w.upgrade() else { return };
                    let m = result.map(|o| o.model).map_err(|e| {
                        let (h, d) = load::Failure::from(e);
                        if d.is_empty() {
                            h
                        } else {
                            format!("{h}: {d}")
                        }
                    });
                    if let Some(slot) = t.models.borrow_mut().get_mut(i) {
                        slot.model = Some(m);
                    }
                    t.draw();
                }
            });
        }
        Some(t)
    }

    /// Plans every model read so far and redraws the table.
    fn draw(&self) {
        let s = self.form.settings();
        let inputs = inputs(&s);
        self.form.show_error(
            inputs.as_ref().err(),
            inputs.as_ref().ok().and_then(|i| i.context_note.as_deref()),
        );
        let models = self.models.borrow();
        let read = models.iter().filter(|m| m.model.is_some()).count();
        self.status
            .set_text_content(Some(&format!("{read} of {} headers read", models.len())));
        attr(&self.card, "data-read", &read.to_string());
        attr(&self.card, "data-models", &models.len().to_string());
        attr(
            &self.card,
            "data-state",
            if read == models.len() {
                "ready"
            } else {
                "loading"
            },
        );
        let results: Vec<(String, u64, Result<FitPlan, String>)> = models
            .iter()
            .map(|m| {
                let file = m.entry.files.first().cloned().unwrap_or_default();
                let plan = match (&m.model, &inputs) {
                    (None, _) => Err(PENDING.to_string()),
                    (Some(Err(e)), _) => Err(e.clone()),
                    (Some(Ok(_)), Err(e)) => Err(e.message.clone()),
                    (Some(Ok(model)), Ok(i)) => {
                        plan(model, &file, &i.devices, &i.options).map_err(|e| e.to_string())
                    }
                };
                (m.entry.label.clone(), m.entry.size, plan)
            })
            .collect();
        drop(models);
        let rows = repo_rows(results);
        dom::clear(&self.tbody);
        let mut ls = Vec::new();
        for r in &rows {
            let tr = el_class(
                "tr",
                if r.pick {
                    "repo-fit-row pick"
                } else {
                    "repo-fit-row"
                },
            );
            attr(&tr, "data-testid", "repo-fit-row");
            attr(&tr, "data-label", &r.label);
            attr(&tr, "data-size", &r.size.to_string());
            attr(&tr, "data-fits", r.fits.map_or("", fits_name));
            attr(&tr, "data-pick", if r.pick { "true" } else { "false" });
            let pending = r.error.as_deref() == Some(PENDING);
            attr(
                &tr,
                "data-state",
                if pending {
                    "loading"
                } else if r.error.is_some() {
                    "error"
                } else {
                    "ready"
                },
            );
            if let Some(n) = r.gpu_layers {
                attr(&tr, "data-gpu-layers", &n.to_string());
            }
            if let Some(c) = r.max_context_gpu {
                attr(&tr, "data-max-context-gpu", &c.to_string());
            }
            for (k, cell) in repo_cells(r).into_iter().enumerate() {
                let class = match k {
                    0 => "col-name",
                    1 | 3 | 4 => "num",
                    2 => match r.fits {
                        Some(Fits::Gpu) => "fits-gpu",
                        Some(Fits::Offload) => "fits-offload",
                        Some(Fits::No) => "fits-no",
                        None => "muted",
                    },
                    _ => "mono fit-row-command",
                };
                let td = el_class("td", class);
                if k == 0 && r.pick {
                    let star = el_text("span", "pick-mark", "★ ");
                    attr(&star, "title", "the largest that fits");
                    append(&td, &star);
                    append(&td, &el_text("span", "", &cell));
                } else if k == 5 && r.command.is_some() {
                    append(&td, &el_text("code", "", &cell));
                    copy_button(&td, cell, "repo-fit-copy", &self.copied, &mut ls);
                } else {
                    td.set_text_content(Some(&cell));
                }
                append(&tr, &td);
            }
            append(&self.tbody, &tr);
        }
        *self.row_listeners.borrow_mut() = ls;
    }
}

/// The verdict of a model whose header is being read.
const PENDING: &str = "reading the header…";

impl Drop for RepoFit {
    fn drop(&mut self) {
        for f in self.fetchers.borrow().iter() {
            f.cancel();
        }
    }
}
