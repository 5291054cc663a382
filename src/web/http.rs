//! The page's remote reads: the source layer's `fetch` transport ([`crate::source::fetch`]),
//! its failures worded for a front end ([`Front::Page`], or [`Front::Api`] for the element and
//! the JavaScript API).

pub use crate::source::http::{Counter, Location};
use crate::view::errors::Front;

/// The requests of one opening (endpoint, token, cancellation, progress, counters), worded
/// for a front end.
pub type Fetcher = crate::source::fetch::Fetcher<Front>;

/// A remote file read by HTTP Range requests with `fetch`.
pub type HttpSource = crate::source::fetch::HttpSource<Front>;
