//! A Hub repo's "Will it fit?" table: every GGUF model's header read, four at a time, each
//! planned on the same devices.

use super::*;

/// One GGUF model of the repo table: its entry and, once read, its header.
pub(super) struct RepoModel {
    pub(super) entry: Entry,
    pub(super) model: Option<Result<Rc<Model>, String>>,
}

/// A Hub repo's "Will it fit?" table: every GGUF model (a split set is one) planned on the
/// page's devices, largest first, the pick marked. Dropping it cancels its reads.
pub struct RepoFit {
    pub(super) me: Weak<RepoFit>,
    pub(super) card: Element,
    pub(super) form: Rc<Form>,
    pub(super) status: Element,
    pub(super) tbody: Element,
    pub(super) models: RefCell<Vec<RepoModel>>,
    pub(super) next: Cell<usize>,
    pub(super) fetchers: RefCell<Vec<Rc<Fetcher>>>,
    pub(super) copied: Rc<RefCell<Option<Timeout>>>,
    pub(super) row_listeners: RefCell<Vec<EventListener>>,
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
                    let m = result
                        .map(|o| o.model)
                        .map_err(|e| crate::view::errors::Failure::from(e).joined());
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
pub(super) const PENDING: &str = "reading the header…";

impl Drop for RepoFit {
    fn drop(&mut self) {
        for f in self.fetchers.borrow().iter() {
            f.cancel();
        }
    }
}
