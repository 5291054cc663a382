//! Opening remote models: the URL box, the Hub settings (endpoint, token), a repository's file
//! list, progress and cancel, and the page URL (`?url=`) that reopens what is shown.
//!
//! Everything a server sends is shown as text (text nodes / attributes); the token lives in the
//! password input (memory) and in `sessionStorage` only while "remember for this tab" is ticked.
//! The Hub endpoint (not a secret) is remembered in `localStorage`.
//!
//! The page URL is `?url=<what was opened>` and, while a tensor's preview is open,
//! `&tensor=<its name>`; opening such a link loads the model and opens that preview. A local
//! file has no such URL (a link cannot reopen a file on someone's disk), so opening one removes
//! both parameters: a bare `tensor=` would reproduce nothing.

use std::cell::RefCell;
use std::rc::Rc;

use gloo::events::{EventListener, EventListenerOptions};
use wasm_bindgen::JsCast;
use web_sys::HtmlInputElement;

use super::address;
use super::dom::{self, by_id, set_body_data};
use super::load::{self, Counter, Counters, Fetcher};
use super::scan_card::ScanInput;
use super::App;
use crate::remote::hub::{endpoint_or_default, Repo};
use crate::remote::shards::Entry;
use crate::source::http::MAX_WHOLE_FILE;
use crate::view::address::Edit;
use crate::view::errors::{self, Audience, Front};
use crate::view::opening::{url_named, Named};
use crate::view::remote::{self as words, ProgressLine, Store, ENDPOINT_KEY, TOKEN_KEY};

thread_local! {
    /// The opening in progress (its cancel stops every request of it).
    static CURRENT: RefCell<Option<Rc<Fetcher>>> = const { RefCell::new(None) };
    /// The click listener of the listed repository's entries (replaced with the list).
    static ENTRY_LISTENER: RefCell<Option<EventListener>> = const { RefCell::new(None) };
    /// The listed repository's "Will it fit?" table (replaced with the list).
    static REPO_FIT: RefCell<Option<Rc<super::fit::RepoFit>>> = const { RefCell::new(None) };
    /// The `tensor=` of the link the page was opened with, until its model is shown.
    static PENDING_TENSOR: RefCell<Option<String>> = const { RefCell::new(None) };
    /// The opening the progress line shows ([`ProgressLine`]).
    static SHOWN: RefCell<ProgressLine> = RefCell::default();
}

fn input(id: &str) -> HtmlInputElement {
    by_id(id).unchecked_into()
}

/// The Hub endpoint of the settings box.
pub(super) fn endpoint() -> String {
    endpoint_or_default(Some(&input("hub-endpoint").value()))
}

/// The access token of the settings box, if one was entered.
pub(super) fn token() -> Option<String> {
    words::token_of(&input("hub-token").value())
}

fn session() -> Option<web_sys::Storage> {
    gloo::utils::window().session_storage().ok().flatten()
}

fn local() -> Option<web_sys::Storage> {
    gloo::utils::window().local_storage().ok().flatten()
}

/// Does `what` to `key` of `storage` (if the browser has it).
fn store(storage: Option<web_sys::Storage>, key: &str, what: Store) {
    let _ = storage.map(|s| match what {
        Store::Set(v) => s.set_item(key, &v),
        Store::Remove => s.remove_item(key),
    });
}

/// Keeps the endpoint for the next visit (forgets it when it is the default again).
fn remember_endpoint() {
    store(local(), ENDPOINT_KEY, words::endpoint_store(&endpoint()));
}

fn remember_token() {
    let what = words::token_store(token().as_deref(), input("hub-remember").checked());
    store(session(), TOKEN_KEY, what);
}

/// Wires the URL form, the settings and the cancel button; the listeners go into the app's
/// list. Opens `?url=` of the page's address, if present.
pub(super) fn wire(app: &Rc<App>, ls: &mut Vec<EventListener>) {
    if let Some(ep) = local().and_then(|s| s.get_item(ENDPOINT_KEY).ok().flatten()) {
        input("hub-endpoint").set_value(&ep);
    }
    if let Some(t) = session().and_then(|s| s.get_item(TOKEN_KEY).ok().flatten()) {
        input("hub-token").set_value(&t);
        input("hub-remember").set_checked(true);
    }
    let w = Rc::downgrade(app);
    ls.push(EventListener::new_with_options(
        &by_id("url-form"),
        "submit",
        EventListenerOptions::enable_prevent_default(),
        move |e| {
            e.prevent_default();
            if let Some(app) = w.upgrade() {
                let text = input("url-input").value();
                set_page_url(&text);
                open_text(app, text);
            }
        },
    ));
    ls.push(EventListener::new(&by_id("hub-endpoint"), "change", |_| {
        remember_endpoint()
    }));
    for id in ["hub-remember", "hub-token"] {
        ls.push(EventListener::new(&by_id(id), "change", |_| {
            remember_token()
        }));
    }
    ls.push(EventListener::new(&by_id("cancel"), "click", |_| {
        CURRENT.with(|c| {
            if let Some(f) = c.borrow().as_ref() {
                f.cancel();
            }
        });
    }));
    if let Some(url) = address::param("url") {
        input("url-input").set_value(&url);
        PENDING_TENSOR.with(|p| *p.borrow_mut() = address::param("tensor"));
        open_text(app.clone(), url);
    }
}

/// Puts `?url=<text>` in the address bar (no reload), so the link reopens what is shown; a
/// tensor of what was open before is no longer selected, nor one a link asked for.
fn set_page_url(text: &str) {
    PENDING_TENSOR.with(|p| p.borrow_mut().take());
    address::follow(Edit::Opened(text));
}

/// `&tensor=<name>` while a remote model's tensor preview is open (`None`: closed). Nothing
/// for a local file: without `url=` there is no link to reproduce.
pub(super) fn set_page_tensor(name: Option<&str>) {
    address::follow(Edit::Tensor(name));
}

/// A local file is open: the address no longer names a remote model or tensor.
pub(super) fn clear_page_url() {
    PENDING_TENSOR.with(|p| p.borrow_mut().take());
    address::follow(Edit::Local);
}

fn clear_entries() {
    ENTRY_LISTENER.with(|l| l.borrow_mut().take());
    REPO_FIT.with(|t| t.borrow_mut().take());
    let list = by_id("repo-files");
    dom::clear(&list);
    dom::set_hidden(&list, true);
    let fit = by_id("repo-fit");
    dom::clear(&fit);
    dom::set_hidden(&fit, true);
}

/// Opens what `text` points at: a file, a set, or a repository to pick from.
fn open_text(app: Rc<App>, text: String) {
    remember_endpoint();
    let ep = endpoint();
    clear_entries();
    match url_named(&text, &ep) {
        Err(f) => {
            app.begin(text.trim(), "");
            app.fail(f);
        }
        Ok(Named::Repo(repo)) => wasm_bindgen_futures::spawn_local(list_repo(app, repo)),
        Ok(Named::File(name, url)) => {
            wasm_bindgen_futures::spawn_local(open_files(app, vec![(name, url)], None));
        }
    }
}

/// A fetcher for one opening, registered for the cancel button; its progress redraws from
/// `counters`.
fn new_fetcher(counters: Counters) -> Rc<Fetcher> {
    SHOWN.with(|s| s.borrow_mut().start(&counters));
    let redraw = Box::new(move || draw_progress(&counters));
    let f = load::fetcher(endpoint(), token(), redraw, Front::Page);
    CURRENT.with(|c| *c.borrow_mut() = Some(f.clone()));
    for id in ["cancel", "remote-progress"] {
        dom::set_hidden(&by_id(id), false);
    }
    f
}

/// Draws the progress of the opening of `counters`, when it is the one shown (a model opened
/// before may still read previews).
fn draw_progress(counters: &Counters) {
    if let Some(n) = SHOWN.with(|s| s.borrow().node(counters)) {
        dom::patch(&by_id("remote-progress"), &n);
    }
}

fn finish_busy() {
    CURRENT.with(|c| c.borrow_mut().take());
    dom::set_hidden(&by_id("cancel"), true);
}

async fn list_repo(app: Rc<App>, repo: Repo) {
    let g = app.begin(&repo.id, &words::listing_status(&repo.id));
    let counters = Rc::new(RefCell::new(vec![(
        "listing".to_string(),
        Rc::new(Counter::default()),
    )]));
    let fetcher = new_fetcher(counters.clone());
    let ep = endpoint();
    let url = repo.tree_api_url(&ep);
    let counter = counters.borrow()[0].1.clone();
    let result = fetcher.get_all(&url, &counter, MAX_WHOLE_FILE).await;
    if !app.current(g) {
        return;
    }
    finish_busy();
    let entries = match result {
        Ok(bytes) => words::listing_entries(&bytes, &repo.id),
        Err(p) => Err(errors::http_failure(
            &p,
            &url,
            &Audience::of(fetcher.whose, &fetcher),
        )),
    };
    let entries = match entries {
        Ok(entries) => entries,
        Err(f) => return app.fail(f),
    };
    dom::set_hidden(&app.status, true);
    show_entries(&app, &repo, &entries);
    // Every GGUF model's header, planned on the page's devices.
    let table = super::fit::RepoFit::start(&by_id("repo-fit"), &repo, &entries, ep, token());
    REPO_FIT.with(|t| *t.borrow_mut() = table);
    set_body_data("state", "listed");
}

/// Lists `repo`'s `entries` ([`words::entry_list`]); one listener on the list opens the
/// entry whose button is clicked (the `i`-th button, `entries[i]`).
fn show_entries(app: &Rc<App>, repo: &Repo, entries: &[Entry]) {
    const BUTTON: &str = "button.repo-file-button";
    let list = by_id("repo-files");
    dom::fill(&list, &words::entry_list(repo, entries));
    let (w, repo, entries, l) = (
        Rc::downgrade(app),
        repo.clone(),
        entries.to_vec(),
        list.clone(),
    );
    let picked = EventListener::new(&list, "click", move |e| {
        let button = dom::target(e).and_then(|t| t.closest(BUTTON).ok().flatten());
        let i = button.and_then(|b| dom::all(&l, BUTTON).iter().position(|x| *x == b));
        let (Some(app), Some(entry)) = (w.upgrade(), i.and_then(|i| entries.get(i))) else {
            return;
        };
        let url = repo.resolve_url(&endpoint(), &words::entry_path(entry));
        input("url-input").set_value(&url);
        set_page_url(&url);
        let (given, listed) = words::entry_files(&repo, &endpoint(), entry);
        wasm_bindgen_futures::spawn_local(async move {
            open_files(app, given, listed.as_deref()).await
        });
    });
    dom::set_hidden(&list, false);
    ENTRY_LISTENER.with(|l| *l.borrow_mut() = Some(picked));
}

/// Reads the remote files `given` (name, URL) as one model (one file, the whole set of a
/// part, an index and its shards) with the page's progress display and cancel button, and
/// shows it. `listed`: the repository's files, when they come from its listing.
async fn open_files(app: Rc<App>, given: Vec<(String, String)>, listed: Option<&[String]>) {
    let names: Vec<String> = given.iter().map(|(n, _)| n.clone()).collect();
    let name = load::display_name(&names, false);
    let g = app.begin(&name, &words::reading_status(&name));
    let counters = Counters::default();
    let fetcher = new_fetcher(counters.clone());
    draw_progress(&counters);
    let result = load::read_remote(fetcher, counters.clone(), &given, listed).await;
    if !app.current(g) {
        return;
    }
    finish_busy();
    // No request for the header: the page's lean start handed it over (www/page.js); the
    // previews' reads are counted after it.
    if result.is_ok() {
        SHOWN.with(|s| s.borrow_mut().read(&counters));
        draw_progress(&counters);
    }
    let o = match result {
        Ok(o) => o,
        Err(e) => return app.fail(e.into()),
    };
    let urls: Vec<String> = given.iter().map(|(_, u)| u.clone()).collect();
    let scan = ScanInput::remote(&urls, &endpoint(), token().as_deref());
    let view = app.show(&o, false, scan, Some(Rc::new(set_page_tensor)));
    // A link's `tensor=`: open that tensor's preview now that its model is shown.
    if let Some(t) = PENDING_TENSOR.with(|p| p.borrow_mut().take()) {
        match words::linked_tensor(&o.model, &o.name, &t) {
            Ok(i) => {
                view.open_tensor(i);
                // A link naming a tensor and no tab shows its preview.
                if address::asked_tab().is_none() {
                    view.tabs().select(crate::view::tabs::Tab::Preview, true);
                }
            }
            Err(f) => app.show_error(Some(f)),
        }
    }
    app.shown(view, o.model.error.is_some());
}
