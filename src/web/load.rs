//! Opening a model for the page, the `<weightpeek-view>` element and the JavaScript API: the
//! browser's openers ([`crate::open::browser`]: Blobs, HTTP Range with `fetch`) with each
//! front end's words for what failed ([`LoadError`], by
//! [`crate::view::errors::open_failure`]), the JavaScript values that give files, and the
//! shared readings of remote headers ([`read_shared`]) that the elements and API calls on one
//! page join, and the [`Fetcher`] of a remote opening's requests. The page (`mod.rs`,
//! `remote.rs`, `compare.rs`), the element (`widget.rs`) and the API (`api.rs`) all open models
//! through here; each adds only its own display (status line, progress, errors).

use std::rc::Rc;

use js_sys::Array;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Blob, File, FileList};

use crate::open::browser;
use crate::open::keyed::Watch;
use crate::open::read::{OpenError, Options};
use crate::view::errors::{Audience, Front};
use crate::view::opening::blob_name;

pub use crate::open::browser::Opened;
pub use crate::source::http::{Counter, Counters};
pub use crate::view::opening::{display_name, url_file, LoadError};

/// What the engine may add: the config a quantised safetensors layout needs. (No tensor
/// data: the page reads headers only.)
const OPTIONS: Options = Options {
    wants_config: Some(crate::summary::quant_st::wants_config),
    tensor_data: None,
};

/// `src` (trimmed) resolved against the page's base URL, so relative URLs work as in
/// `<img src>` (the element's `src`, the API's sources); unchanged when it cannot be.
pub fn resolve_url(src: &str) -> String {
    let src = src.trim();
    // A Worker has no document: its sources come resolved by the page.
    let base = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.base_uri().ok().flatten());
    base.and_then(|b| web_sys::Url::new_with_base(src, &b).ok())
        .map(|u| u.href())
        .unwrap_or_else(|| src.to_string())
}

/// Local files given as a JavaScript value: a `File`/`Blob` (named `name`, else its own
/// name, else `blob`), a `FileList`, or an array of `File`s/`Blob`s (a Blob without a name is
/// `blob`, `blob 2`, …). `None` for anything else, or an empty list.
pub fn local_files(value: &JsValue, name: Option<String>) -> Option<Vec<(String, Blob)>> {
    let own = |v: &JsValue| v.dyn_ref::<File>().map(File::name);
    if let Some(b) = value.dyn_ref::<Blob>() {
        return Some(vec![(blob_name(name.or_else(|| own(value)), 0), b.clone())]);
    }
    // A FileList or an array: every item a Blob.
    let list = Array::is_array(value) || value.is_instance_of::<FileList>();
    let list = list.then(|| Array::from(value))?;
    let named = |(i, v): (usize, JsValue)| Some((blob_name(own(&v), i), v.dyn_into().ok()?));
    let list: Vec<(String, Blob)> = list.iter().enumerate().map(named).collect::<Option<_>>()?;
    (!list.is_empty()).then_some(list)
}

/// Opens the local files `files` (given together) as one model ([`browser::read_local`]):
/// `progress` is told the bytes read so far. Errors in the page's words (a Blob has no Hub:
/// the default one is named).
pub async fn read_local(
    files: Vec<(String, Blob)>,
    progress: Rc<dyn Fn(u64)>,
) -> Result<Opened, LoadError> {
    let names: Vec<String> = files.iter().map(|(n, _)| n.clone()).collect();
    let page = Audience {
        front: Front::Page,
        hub: crate::remote::hub::DEFAULT_ENDPOINT,
        has_token: false,
    };
    let opened = browser::read_local(files, progress, OPTIONS).await;
    opened.map_err(|e| LoadError::of(&e, &names, &page))
}

/// Opens the remote files `given` (name, URL) as one model with `fetcher`
/// ([`browser::read_remote`]), counting requests per file in `counters`; `listed`: the paths
/// of the Hub listing the files were picked from. Errors as the fetcher words them (the
/// page's or the element's remedies).
pub async fn read_remote(
    fetcher: Rc<Fetcher>,
    counters: Counters,
    given: &[(String, String)],
    listed: Option<&[String]>,
) -> Result<Opened, LoadError> {
    let opened = browser::read_remote(fetcher.clone(), counters, given, listed, OPTIONS).await;
    opened.map_err(|e| failed(&e, given, &fetcher))
}

/// `error` opening `given`, in the words of `fetcher`'s reader.
fn failed(error: &OpenError, given: &[(String, String)], fetcher: &Fetcher) -> LoadError {
    let names: Vec<String> = given.iter().map(|(n, _)| n.clone()).collect();
    LoadError::of(error, &names, &Audience::of(fetcher.whose, fetcher))
}

/// Told the request counters of a shared reading after every request start and received
/// chunk (a status line: "N requests, X received").
pub type OnProgress = Watch<Counters>;

/// Opens the remote files `given` as [`read_remote`] does, sharing one reading with every
/// other element and API call on the same files, endpoint and token
/// ([`browser::read_shared`]); `own` is this consumer's fetcher, `on_progress` told the
/// shared reading's counters. Errors: as [`read_remote`]; cancelled when `own` is.
pub async fn read_shared(
    own: Rc<Fetcher>,
    given: Vec<(String, String)>,
    on_progress: OnProgress,
) -> Result<Opened, LoadError> {
    let names = given.clone();
    let opened = browser::read_shared(own.clone(), given, on_progress, OPTIONS).await;
    opened.map_err(|e| failed(&e, &names, &own))
}

/// The requests of one opening (endpoint, token, cancellation, progress, counters), worded
/// for a front end.
pub type Fetcher = crate::source::fetch::Fetcher<Front>;

/// An opening's fetcher: the Hub `endpoint` and `token`, `on_progress` told of each request
/// and chunk, failures worded for `front`, the read timeout the page's address may set
/// ([`read_timeout`]).
pub fn fetcher(
    endpoint: String,
    token: Option<String>,
    on_progress: Box<dyn Fn()>,
    front: Front,
) -> Rc<Fetcher> {
    Rc::new(Fetcher::new(
        endpoint,
        token,
        on_progress,
        front,
        read_timeout(),
    ))
}

/// The read timeout: the page address's `read_timeout_ms` (for tests), else the default
/// ([`crate::source::http::read_timeout_ms`]); a Worker has no page address.
fn read_timeout() -> u32 {
    let search = web_sys::window().and_then(|w| w.location().search().ok());
    let param = search.and_then(|s| crate::view::address::param(&s, "read_timeout_ms"));
    crate::source::http::read_timeout_ms(param.as_deref())
}
