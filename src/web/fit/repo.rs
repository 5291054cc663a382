//! A Hub repo's "Will it fit?" table: every GGUF model's header read, four at a time, each
//! planned on the same devices.

use super::*;

/// One GGUF model of the repo table: its entry and, once read, its header.
struct RepoModel {
    entry: Entry,
    model: Option<Result<Rc<OpenedModel>, String>>,
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
        let card = dom::render(&nodes::repo_card(&repo.id));
        let form = Form::attach(&card, page_settings(), true);
        let status = testid(&card, "repo-fit-status");
        let tbody = dom::find(&card, "tbody");
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
                    let fetcher = Rc::new(Fetcher::new(
                        ep.clone(),
                        token.clone(),
                        Box::new(|| {}),
                        crate::view::errors::Front::Page,
                    ));
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

    /// Plans every model read so far and redraws the table ([`nodes::repo_row`]).
    fn draw(&self) {
        let s = self.form.settings();
        let inputs = inputs(&s);
        self.form.show_error(
            inputs.as_ref().err(),
            inputs.as_ref().ok().and_then(|i| i.context_note.as_deref()),
        );
        let models = self.models.borrow();
        let read = models.iter().filter(|m| m.model.is_some()).count();
        let (line, state) = nodes::repo_status(read, models.len());
        self.status.set_text_content(Some(&line));
        attr(&self.card, "data-read", &read.to_string());
        attr(&self.card, "data-models", &models.len().to_string());
        attr(&self.card, "data-state", state);
        let results: Vec<_> = models
            .iter()
            .map(|m| {
                let file = m.entry.files.first().cloned().unwrap_or_default();
                let model = m.model.as_ref().map(|r| match r {
                    Ok(m) => Ok(&**m),
                    Err(e) => Err(e.as_str()),
                });
                let plan = nodes::repo_plan(model, &inputs, &file);
                (m.entry.label.clone(), m.entry.size, plan)
            })
            .collect();
        drop(models);
        dom::clear(&self.tbody);
        let mut ls = Vec::new();
        for r in &repo_rows(results) {
            let tr = dom::render(&nodes::repo_row(r));
            append(&self.tbody, &tr);
            if let Some(c) = &r.command {
                ls.push(wire_copy(
                    &testid(&tr, "repo-fit-copy"),
                    c.clone(),
                    &self.copied,
                ));
            }
        }
        *self.row_listeners.borrow_mut() = ls;
    }
}

impl Drop for RepoFit {
    fn drop(&mut self) {
        for f in self.fetchers.borrow().iter() {
            f.cancel();
        }
    }
}
