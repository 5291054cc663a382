//! The Fit card of a GGUF model: the plan's verdict, figures, one bar per device, the command
//! line with a copy button, notes.

use super::*;

/// The plan's verdict as a data attribute value.
pub(super) fn set_plan_attrs(el: &Element, p: &FitPlan) {
    attr(el, "data-fits", fits_name(p.fits));
    attr(el, "data-gpu-layers", &p.gpu_layers.to_string());
    attr(el, "data-cpu-moe", &p.cpu_moe.to_string());
    attr(el, "data-context", &p.context.to_string());
    let opt = |n: Option<u64>| n.map_or_else(String::new, |n| n.to_string());
    attr(el, "data-max-context-gpu", &opt(p.max_context_gpu));
    attr(el, "data-max-context", &opt(p.max_context));
}

/// A copy button for `text` with its status line; the listener goes into `ls`.
pub(super) fn copy_button(
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
        let promise = crate::web::tokenizer::write_clipboard(&text);
        let (status, cleared) = (status.clone(), cleared.clone());
        wasm_bindgen_futures::spawn_local(async move {
            let said = match promise {
                Ok(p) => JsFuture::from(p).await,
                Err(e) => Err(e),
            };
            let said = match said {
                Ok(_) => "copied".to_string(),
                Err(e) => format!("not copied: {}", crate::web::blob::js_error_text(&e)),
            };
            status.set_text_content(Some(&said));
            let s2 = status.clone();
            *cleared.borrow_mut() = Some(Timeout::new(4000, move || s2.set_text_content(None)));
        });
    }));
}

/// The Fit card of one GGUF model.
pub struct FitCard {
    pub(super) me: Weak<FitCard>,
    pub(super) model: Rc<Model>,
    /// The file named in the command lines.
    pub(super) file: String,
    pub(super) card: Element,
    pub(super) form: Rc<Form>,
    pub(super) out: Element,
    pub(super) copied: Rc<RefCell<Option<Timeout>>>,
    pub(super) out_listeners: RefCell<Vec<EventListener>>,
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
