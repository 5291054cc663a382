//! Will it run here? The device settings form (GPUs with a preset select, add/remove, RAM,
//! margin, context, KV type), the Fit card of a GGUF model (the plan of
//! [`crate::summary::fit::plan`]: verdict, figures, one bar per device, the command line with a
//! copy button, notes) and a Hub repo's "Will it fit?" table (every GGUF model's header read,
//! four at a time, each planned on the same devices; [`crate::view::fit_repo::RepoModels`]).
//!
//! The page keeps the settings in `localStorage` and in its address (`?gpu=24GiB&gpu=12GiB&
//! ram=64GiB&ctx=32768&kv=q8_0&margin=1GiB`, [`crate::view::fit::QUERY_KEYS`]); every form of
//! the page shows the same settings. The element's card takes them from its attributes and
//! writes nothing. Recomputing reads nothing: the models are in memory.
//!
//! Files: this one (the page's settings: storage and address), `form` (the settings form),
//! `card` (the Fit card), `repo` (the repo table). The form, the cards and their rows are
//! built by [`crate::view::fit_card`]; these files render them and wire the listeners.

mod card;
mod form;
mod repo;

pub use card::FitCard;
use card::*;
pub use form::Form;
pub use repo::RepoFit;

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use gloo::events::EventListener;
use gloo::timers::callback::Timeout;
use wasm_bindgen::JsCast;
use web_sys::Element;

use super::dom::{self, append, attr};
use super::load::{self, Fetcher};
use crate::open::recognise::file_name;
use crate::open::OpenedModel;
use crate::remote::hub::Repo;
use crate::remote::shards::Entry;
use crate::view::fit::{preset_choice, FieldError, Settings, BOXES};
use crate::view::fit_card::{self as nodes, bool_text};
use crate::view::fit_repo::RepoModels;

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

/// The element with `data-testid` = `id` under `root` (one of the view's literals) as a `T`.
fn testid<T: JsCast>(root: &Element, id: &str) -> T {
    dom::find_testid(root, id)
        .unwrap_or_else(|| panic!("no {id} in the card"))
        .unchecked_into()
}

fn local() -> Option<web_sys::Storage> {
    gloo::utils::window().local_storage().ok().flatten()
}

/// The page's settings: the address's (a shared link), else the remembered ones, else the
/// defaults.
pub fn page_settings() -> Settings {
    let search = gloo::utils::window()
        .location()
        .search()
        .unwrap_or_default();
    Settings::from_query_string(&search)
        .or_else(|| {
            local()
                .and_then(|s| s.get_item(STORAGE_KEY).ok().flatten())
                .and_then(|q| Settings::from_query_string(&q))
        })
        .unwrap_or_default()
}

/// Remembers `s` and puts it in the page's address (no reload, no history entry).
fn save_page(s: &Settings) {
    if let Some(st) = local() {
        let _ = st.set_item(STORAGE_KEY, &s.to_query_string());
    }
    super::address::follow(crate::view::address::Edit::Fit(s));
}
