//! A remote file read with HTTP Range requests (`fetch`, never HEAD but to find a Hub URL's
//! CDN on WebKit) as a [`crate::source::ByteSource`]: the core's [`Reader`] decides every
//! request and judges every answer; this module is its [`Transport`] ([`Fetch`]): it sends
//! the requests with `fetch`, races each wait against the read timeout, hands the bodies'
//! chunks over and aborts them (`AbortController`). The access token goes only to the Hub
//! endpoint's exact origin ([`crate::source::http::token_allowed`]); Chromium also drops
//! `Authorization` on a redirect to another origin (the end-to-end tests prove from the mock
//! CDN's log it never arrives).
//! A request failing without an answer is diagnosed with one plain GET (answers without
//! Range: the ranged answer was refused, e.g. gzip) and one not following redirects (a loop).

use std::cell::RefCell;
use std::rc::Rc;

use gloo_timers::future::TimeoutFuture;
use js_sys::Uint8Array;
use wasm_bindgen::JsCast;
use web_sys::{
    AbortController, Headers, ReadableStreamDefaultReader, RequestRedirect, Response, ResponseType,
};

pub mod handover;
mod io;

use super::blob::js_error_text;
use crate::source::http::{
    get_all, no_answer, too_large, unanswered, worded, Abort, Chunk, Next, Problem, RangeFile,
    Reader, Session, Transport, Watchdog, Wording, CORS_CONTENT_RANGE,
};
pub use crate::source::http::{Counter, Location};
use crate::source::SourceError;
use io::{global_fetch, init, next_chunk, now_ms, race, Raced};

/// The requests of one opening (one model, all shards): its [`Session`] (endpoint, token,
/// cancellation, progress, read timeout) and who reads its failures (`W`: the page, or the
/// element and the API, each in its own words).
pub struct Fetcher<W> {
    session: Session,
    /// Who reads this opening's failures, and so their words.
    pub whose: W,
}

impl<W> std::ops::Deref for Fetcher<W> {
    type Target = Session;

    fn deref(&self) -> &Session {
        &self.session
    }
}

impl Abort for AbortController {
    fn abort(&self) {
        AbortController::abort(self);
    }
}

/// A property of the global `navigator` (in a Worker too).
fn navigator(name: &str) -> Option<wasm_bindgen::JsValue> {
    let n = js_sys::Reflect::get(&js_sys::global(), &"navigator".into()).ok()?;
    js_sys::Reflect::get(&n, &name.into()).ok()
}

/// Whether the browser reports no network (only "offline" is trusted).
fn offline() -> bool {
    navigator("onLine").and_then(|v| v.as_bool()) == Some(false)
}

impl<W: Wording> Fetcher<W> {
    /// Settings for one opening: the Hub `endpoint` (the only origin the `token` goes to),
    /// `on_progress` told of each request started and chunk received, failures worded for
    /// `whose`, each wait for an answer or a chunk cut at `timeout_ms`.
    pub fn new(
        endpoint: String,
        token: Option<String>,
        on_progress: Box<dyn Fn()>,
        whose: W,
        timeout_ms: u32,
    ) -> Self {
        let session = Session::new(endpoint, token, on_progress, timeout_ms);
        Fetcher { session, whose }
    }

    /// `problem` reading `url` as a source error, worded for this fetcher's reader.
    pub fn error(&self, problem: Problem, url: &str) -> SourceError {
        let has_token = self.token.is_some();
        worded(self.whose, problem, url, &self.endpoint, has_token)
    }

    /// As [`Fetcher::error`], for a small file read whole: one too large is the size refusal
    /// ([`too_large`]).
    pub fn whole_file_error(&self, problem: Problem, url: &str) -> SourceError {
        too_large(&problem).unwrap_or_else(|| self.error(problem, url))
    }

    /// `problem` reading `url`, the details alone of this fetcher's words
    /// ([`Wording::details`]).
    pub fn details(&self, problem: &Problem, url: &str) -> String {
        let has_token = self.token.is_some();
        self.whose.details(problem, url, &self.endpoint, has_token)
    }

    /// A fetcher of the same session with no progress display (the previews of a model),
    /// cancelled when this one is.
    pub fn child(&self) -> Rc<Fetcher<W>> {
        let session = self.session.child();
        Rc::new(Fetcher {
            session,
            whose: self.whose,
        })
    }

    /// As [`Fetcher::child`], telling this fetcher's progress display of each request
    /// started and chunk received ([`Session::child_with_progress`]).
    pub fn child_with_progress(&self) -> Rc<Fetcher<W>> {
        let session = self.session.child_with_progress();
        Rc::new(Fetcher {
            session,
            whose: self.whose,
        })
    }

    /// A new request's controller, aborted by [`Session::cancel`] while the request holds it.
    fn controller(&self) -> Result<Rc<AbortController>, Problem> {
        let c = AbortController::new().map_err(|e| Problem::Network(js_error_text(&e)))?;
        let c = Rc::new(c);
        self.hold(&c)?;
        Ok(c)
    }

    /// Request headers for `url`: `range` (inclusive) if any, the token where it may go.
    fn headers(&self, url: &str, range: Option<(u64, u64)>) -> Result<Headers, Problem> {
        let headers = Headers::new().map_err(|e| Problem::Network(js_error_text(&e)))?;
        for (name, value) in self.session.headers(url, range) {
            let _ = headers.set(name, &value);
        }
        Ok(headers)
    }

    /// The requests of one file (or one whole small file) with `counter`: a new abort handle,
    /// aborted by [`Fetcher::cancel`] and when they end. Errors: cancelled.
    fn requests(self: &Rc<Self>, counter: Rc<Counter>) -> Result<Fetch<W>, Problem> {
        let controller = RefCell::new(self.controller()?);
        let fetcher = self.clone();
        Ok(Fetch {
            fetcher,
            counter,
            controller,
        })
    }

    /// The whole body of `url` (an index, a listing, a config), with the token when the URL is
    /// on the Hub; at most `cap` bytes ([`crate::source::http::MAX_WHOLE_FILE`] for listings
    /// and indexes), held once in wasm memory (copied chunk by chunk into one buffer).
    pub async fn get_all(
        self: &Rc<Self>,
        url: &str,
        counter: &Rc<Counter>,
        cap: u64,
    ) -> Result<Vec<u8>, Problem> {
        get_all(&self.requests(counter.clone())?, url, cap).await
    }

    /// Opens `url` with the first ranged GET (`first_len` bytes from offset 0) and keeps its
    /// bytes ([`Reader::open`]).
    pub async fn open(
        self: &Rc<Self>,
        counter: Rc<Counter>,
        url: &str,
        first_len: u64,
    ) -> Result<HttpSource<W>, Problem> {
        Reader::open(self.requests(counter)?, url, first_len).await
    }

    /// A reader of the file at `at` whose first bytes `first` another reader already holds
    /// (the lean web module hands its header over to the full one): no request for them.
    pub fn with_first(
        self: &Rc<Self>,
        counter: Rc<Counter>,
        at: &Location,
        first: Vec<u8>,
    ) -> Result<HttpSource<W>, Problem> {
        let file = RangeFile::with_first(&at.url, &at.direct, at.size, first);
        Ok(Reader::at(self.requests(counter)?, file))
    }

    /// A reader of a file opened before (its size and redirect target known): every read is
    /// one ranged GET of exactly the bytes asked ([`RangeFile::at`]), counted in `counter`.
    pub fn reopen(
        self: &Rc<Self>,
        at: &Location,
        counter: Rc<Counter>,
    ) -> Result<HttpSource<W>, Problem> {
        Ok(Reader::at(self.requests(counter)?, RangeFile::at(at)))
    }
}

/// The requests of one file, as the core's [`Transport`]: sent with `fetch`, counted in
/// `counter`, aborted with `controller` (when they stall, the opening is cancelled, or this
/// is dropped: a no-Range download still streaming ends).
pub struct Fetch<W> {
    fetcher: Rc<Fetcher<W>>,
    counter: Rc<Counter>,
    controller: RefCell<Rc<AbortController>>,
}

impl<W> Drop for Fetch<W> {
    fn drop(&mut self) {
        // Harmless after completed requests.
        self.controller.borrow().abort();
    }
}

/// A remote file read by range: the core's [`Reader`] decides every read; [`Fetch`] sends its
/// requests.
pub type HttpSource<W> = Reader<Fetch<W>>;

impl<W> Fetch<W> {
    fn signal(&self) -> Rc<AbortController> {
        self.controller.borrow().clone()
    }
}

impl Chunk for Uint8Array {
    fn len(&self) -> usize {
        self.length() as usize
    }

    fn copy_to(&self, to: &mut [u8]) {
        Uint8Array::copy_to(self, to);
    }
}

impl<W: Wording> Transport for Fetch<W> {
    type Answer = Response;
    type Body = ReadableStreamDefaultReader;
    type Chunk = Uint8Array;
    const MISSING_CONTENT_RANGE: &'static str = CORS_CONTENT_RANGE;

    async fn send(&self, url: &str, range: Option<(u64, u64)>) -> Result<Response, Problem> {
        let controller = self.signal();
        let init = init("GET", RequestRedirect::Follow, &controller);
        init.set_headers_headers(&self.fetcher.headers(url, range)?);
        self.counter.add_request();
        (self.fetcher.on_progress)();
        let timeout_ms = self.fetcher.timeout_ms;
        match race(global_fetch(url, &init), timeout_ms).await {
            Raced::TimedOut => {
                controller.abort();
                Err(unanswered(range, timeout_ms))
            }
            Raced::Done(Ok(r)) => Ok(r.unchecked_into()),
            Raced::Done(Err(e)) => Err(no_answer(self, url, range, js_error_text(&e)).await),
        }
    }

    fn status(&self, answer: &Response) -> u16 {
        answer.status()
    }

    fn header(&self, answer: &Response, name: &str) -> String {
        answer
            .headers()
            .get(name)
            .ok()
            .flatten()
            .unwrap_or_default()
    }

    fn final_url(&self, answer: &Response) -> String {
        answer.url()
    }

    fn body(&self, answer: Response) -> Option<ReadableStreamDefaultReader> {
        Some(answer.body()?.get_reader().unchecked_into())
    }

    async fn next(
        &self,
        body: &mut ReadableStreamDefaultReader,
        dog: &Watchdog,
    ) -> Next<Uint8Array> {
        next_chunk(body, dog).await
    }

    async fn sleep(&self, ms: u32) {
        TimeoutFuture::new(ms).await;
    }

    fn timeout_ms(&self) -> u32 {
        self.fetcher.timeout_ms
    }

    fn now_ms(&self) -> f64 {
        now_ms()
    }

    fn on_bytes(&self, n: u64) {
        self.counter.add_bytes(n);
        (self.fetcher.on_progress)();
    }

    fn error(&self, problem: Problem, url: &str) -> SourceError {
        self.fetcher.error(problem, url)
    }

    fn hub_endpoint(&self) -> &str {
        &self.fetcher.endpoint
    }

    fn cancelled(&self) -> bool {
        self.fetcher.is_cancelled()
    }

    fn offline(&self) -> bool {
        offline()
    }

    fn abort(&self) {
        self.signal().abort();
    }

    fn renew(&self) -> Result<(), Problem> {
        *self.controller.borrow_mut() = self.fetcher.controller()?;
        Ok(())
    }

    /// After a failed ranged request: whether `url` answers a plain GET (no Range, no token;
    /// its body is cancelled as soon as the headers arrive).
    async fn answers_without_range(&self, url: &str) -> bool {
        let Ok(probe) = AbortController::new() else {
            return false;
        };
        if self.signal().signal().aborted() {
            return false;
        }
        let init = init("GET", RequestRedirect::Follow, &probe);
        let ok = match race(global_fetch(url, &init), self.fetcher.timeout_ms).await {
            Raced::Done(Ok(r)) => r.unchecked_into::<Response>().ok(),
            _ => false,
        };
        probe.abort();
        ok
    }

    /// After a failed request: whether `url` itself answers with a redirect (one plain GET
    /// that does not follow it; its answer is opaque, nothing of it is read).
    async fn redirects(&self, url: &str) -> bool {
        let init = init("GET", RequestRedirect::Manual, &self.signal());
        match race(global_fetch(url, &init), self.fetcher.timeout_ms).await {
            Raced::Done(Ok(r)) => {
                r.unchecked_into::<Response>().type_() == ResponseType::Opaqueredirect
            }
            _ => false,
        }
    }

    /// Whether this is WebKit ([`crate::source::http::drops_range_on_redirect`]).
    fn drops_range_on_redirect(&self) -> bool {
        let ua = navigator("userAgent").and_then(|v| v.as_string());
        crate::source::http::drops_range_on_redirect(&ua.unwrap_or_default())
    }

    /// One HEAD (the token as for a GET), counted; `None` when it fails or the browser does
    /// not say.
    async fn head_final_url(&self, url: &str) -> Option<String> {
        self.counter.add_request();
        let init = init("HEAD", RequestRedirect::Follow, &self.signal());
        init.set_headers_headers(&self.fetcher.headers(url, None).ok()?);
        match race(global_fetch(url, &init), self.fetcher.timeout_ms).await {
            Raced::Done(Ok(r)) => {
                let r: Response = r.unchecked_into();
                let u = r.url();
                (r.ok() && !u.is_empty()).then_some(u)
            }
            _ => None,
        }
    }
}
