//! The page's remote reads: the source layer's `fetch` transport ([`crate::source::fetch`]),
//! its failures worded for a front end ([`Front::Page`], or [`Front::Api`] for the element and
//! the JavaScript API).

pub use crate::source::http::Counter;
use crate::view::errors::Front;

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
) -> Fetcher {
    Fetcher::new(endpoint, token, on_progress, front, read_timeout())
}

/// The read timeout: the page address's `read_timeout_ms` (for tests), else the default
/// ([`crate::source::http::read_timeout_ms`]); a Worker has no page address.
fn read_timeout() -> u32 {
    let search = web_sys::window().and_then(|w| w.location().search().ok());
    let param = search.and_then(|s| crate::view::address::param(&s, "read_timeout_ms"));
    crate::source::http::read_timeout_ms(param.as_deref())
}
