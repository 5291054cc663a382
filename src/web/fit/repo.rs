//! A Hub repo's "Will it fit?" table: every GGUF model's header read, four at a time, each
//! planned on the same devices.

use super::*;

/// A Hub repo's "Will it fit?" table: every GGUF model (a split set is one) planned on the
/// page's devices, largest first, the pick marked. Dropping it cancels its reads.
pub struct RepoFit {
    me: Weak<RepoFit>,
    card: Element,
    form: Rc<Form>,
    status: Element,
    tbody: Element,
    models: RefCell<RepoModels>,
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
        let models = RepoModels::of(entries)?;
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
            models: RefCell::new(models),
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
                    let Some(read) = t.models.borrow_mut().take_next(&repo, &ep) else {
                        return;
                    };
                    let fetcher = load::fetcher(
                        ep.clone(),
                        token.clone(),
                        Box::new(|| {}),
                        crate::view::errors::Front::Page,
                    );
                    t.fetchers.borrow_mut().push(fetcher.clone());
                    drop(t);
                    let (given, files) = (&read.given, Some(&read.files[..]));
                    let result =
                        load::read_remote(fetcher, load::Counters::default(), given, files).await;
                    let Some(t) = w.upgrade() else { return };
                    let m = result
                        .map(|o| o.model)
                        .map_err(crate::view::errors::Failure::from);
                    t.models.borrow_mut().set_read(read.index, m);
                    t.draw();
                }
            });
        }
        Some(t)
    }

    /// Plans every model read so far and redraws the table ([`RepoModels::table`],
    /// [`nodes::repo_row`]).
    fn draw(&self) {
        let t = self.models.borrow().table(&self.form.settings());
        self.form.show_error(t.error.as_ref(), t.note.as_deref());
        self.status.set_text_content(Some(&t.status));
        for (k, v) in &t.attrs {
            attr(&self.card, k, v);
        }
        dom::clear(&self.tbody);
        let mut ls = Vec::new();
        for r in &t.rows {
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
