//! A remote file read with HTTP Range requests (`fetch` with `Range: bytes=a-b`, never HEAD), as
//! a [`ByteSource`] for the header driver and for any later read at an arbitrary offset (tensor
//! previews).
//!
//! - [`HttpSource::open`] makes the first ranged GET: its `Content-Range` gives the file size
//!   (`ByteSource::size` is synchronous), and its bytes are kept for the driver's first read.
//! - A 206 must carry the asked range in `Content-Range`; the body must have its length.
//! - A 200 (the server ignores Range) is read from its body stream only as far as needed; the
//!   stream is kept for the following reads (which continue where the last ended) and aborted
//!   with the source's `AbortController` once the source is dropped, so the rest of the file is
//!   never downloaded; [`crate::source::http::NO_RANGE_CAP`] bounds it in any case.
//! - Hostile servers (issue #5): a 206 body is read chunk by chunk and must be exactly the
//!   asked range (fewer bytes or a cut-off connection: `Short`/`Cut`; more: stopped at once,
//!   `Excess`); every wait (the answer, each chunk) is raced against the read timeout
//!   ([`crate::source::http::Watchdog`], 30 s or `?read_timeout_ms=`); a 5xx is tried
//!   [`crate::source::http::TRIES`] times with backoff; a request failing without an answer
//!   is diagnosed with one plain GET (answers without Range → the ranged answer was refused,
//!   e.g. gzip) and one GET that does not follow redirects (a redirect → likely a loop).
//! - The access token goes only to the configured Hub endpoint's exact origin
//!   ([`token_allowed`]). Chromium also drops `Authorization` when a request is redirected to
//!   another origin (Fetch standard, "CORS non-wildcard request-header name"); the end-to-end
//!   test proves from the mock CDN's log that it never arrives there. After the first answer,
//!   reads go straight to the redirect's final URL (the CDN), without a token and without the
//!   Hub's extra round trip; if that signed URL is refused later (expired), the Hub URL is used.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use gloo_timers::future::TimeoutFuture;
use wasm_bindgen::JsCast;
use web_sys::{
    AbortController, Headers, ReadableStreamDefaultReader, RequestRedirect, Response, ResponseType,
};

use super::blob::js_error_text;
use super::fetch_io::{
    get_init, global_fetch, head_init, next_chunk, now_ms, race, ChunkError, Raced,
};
use crate::source::http::{
    range_len, read_timeout_ms, retry_delay_ms, token_allowed, FirstAnswer, FirstBody, Plan,
    Problem, RangeFile, Watchdog,
};
use crate::source::{ByteSource, SourceError};
use crate::view::errors::{self, Audience, Failure, Front};

/// Settings and cancellation shared by every request of one opening (one model, all shards).
pub struct Fetcher {
    /// The configured Hub endpoint (the only origin that receives the token).
    pub endpoint: String,
    /// The access token, if one was entered.
    pub token: Option<String>,
    /// The controllers of the requests in flight (a request's is dropped when it ends, so a
    /// long-lived opening with many previews keeps none of the finished ones).
    controllers: RefCell<Vec<std::rc::Weak<AbortController>>>,
    cancelled: Cell<bool>,
    /// Called after every request start and every received chunk (progress display).
    pub on_progress: Box<dyn Fn()>,
    /// The read timeout ([`crate::source::http::READ_TIMEOUT_MS`], or the page's
    /// `read_timeout_ms=` test hook).
    pub timeout_ms: u32,
    /// Fetchers made by [`Fetcher::child`] (previews of this opening): cancelled with it.
    children: RefCell<Vec<std::rc::Weak<Fetcher>>>,
    /// Called once when this fetcher is cancelled ([`Fetcher::on_cancel`]).
    on_cancel: RefCell<Vec<Box<dyn FnOnce()>>>,
    /// Whose messages: [`Front::Page`], or [`Front::Api`] for the element and the JavaScript
    /// API, whose messages name their remedies, not the page's controls
    /// ([`errors::http_failure`]).
    pub front: Front,
}

/// Whether the browser reports no network (`navigator.onLine` false; in a Worker too). Only
/// "offline" is trusted: `true` means a network interface is up, not that a server answers.
fn offline() -> bool {
    let global = js_sys::global();
    js_sys::Reflect::get(&global, &"navigator".into())
        .ok()
        .and_then(|n| js_sys::Reflect::get(&n, &"onLine".into()).ok())
        .and_then(|v| v.as_bool())
        == Some(false)
}

/// Whether this is WebKit (Safari, WebKitGTK: `AppleWebKit` without Chrome's or Chromium's
/// names), which drops the `Range` header when it follows a redirect to another origin, so a
/// ranged GET of a Hub `resolve/` URL gets the whole model from the CDN
/// (tests/e2e/engines.mjs hubJourney measured 41.7 MB sent for Gemma's 6.5 MB header).
fn drops_range_on_redirect() -> bool {
    let ua = js_sys::Reflect::get(&js_sys::global(), &"navigator".into())
        .ok()
        .and_then(|n| js_sys::Reflect::get(&n, &"userAgent".into()).ok())
        .and_then(|v| v.as_string())
        .unwrap_or_default();
    ua.contains("AppleWebKit") && !ua.contains("Chrome") && !ua.contains("Chromium")
}

fn page_read_timeout() -> u32 {
    // A Worker has no page address: the default.
    let search = web_sys::window().and_then(|w| w.location().search().ok());
    let param = search
        .and_then(|s| web_sys::UrlSearchParams::new_with_str(&s).ok())
        .and_then(|p| p.get("read_timeout_ms"));
    read_timeout_ms(param.as_deref())
}

impl Fetcher {
    /// Settings for one opening.
    pub fn new(endpoint: String, token: Option<String>, on_progress: Box<dyn Fn()>) -> Self {
        Fetcher {
            endpoint,
            token,
            controllers: RefCell::new(Vec::new()),
            cancelled: Cell::new(false),
            on_progress,
            timeout_ms: page_read_timeout(),
            children: RefCell::new(Vec::new()),
            on_cancel: RefCell::new(Vec::new()),
            front: Front::Page,
        }
    }

    /// As [`Fetcher::new`], for the element and the JavaScript API.
    pub fn new_embedded(
        endpoint: String,
        token: Option<String>,
        on_progress: Box<dyn Fn()>,
    ) -> Self {
        Fetcher {
            front: Front::Api,
            ..Fetcher::new(endpoint, token, on_progress)
        }
    }

    /// Who reads this fetcher's failures: its front end, its Hub endpoint and whether it
    /// has a token.
    pub fn audience(&self) -> Audience<'_> {
        Audience {
            front: self.front,
            hub: &self.endpoint,
            has_token: self.token.is_some(),
        }
    }

    /// `problem` reading `url`, worded for the page or, for an embedded fetcher, for the
    /// element and the API ([`errors::http_failure`]).
    pub fn describe(&self, problem: &Problem, url: &str) -> Failure {
        errors::http_failure(problem, url, &self.audience())
    }

    /// A fetcher with the same endpoint and token and no progress display (the previews of a
    /// model), cancelled when this one is.
    pub fn child(&self) -> std::rc::Rc<Fetcher> {
        let c = std::rc::Rc::new(Fetcher {
            front: self.front,
            ..Fetcher::new(self.endpoint.clone(), self.token.clone(), Box::new(|| {}))
        });
        if self.cancelled.get() {
            c.cancel();
        }
        let mut children = self.children.borrow_mut();
        children.retain(|w| w.strong_count() > 0);
        children.push(std::rc::Rc::downgrade(&c));
        c
    }

    /// Stops every request of this opening (and of its children), in flight or to come.
    pub fn cancel(&self) {
        self.cancelled.set(true);
        let controllers: Vec<_> = self.controllers.borrow_mut().drain(..).collect();
        for c in controllers.iter().filter_map(std::rc::Weak::upgrade) {
            c.abort();
        }
        let children: Vec<_> = self.children.borrow_mut().drain(..).collect();
        for child in children.iter().filter_map(std::rc::Weak::upgrade) {
            child.cancel();
        }
        let hooks: Vec<_> = self.on_cancel.borrow_mut().drain(..).collect();
        for f in hooks {
            f();
        }
    }

    /// Calls `f` once when this fetcher is cancelled (at once if it is already): a consumer
    /// of a shared reading leaves it ([`super::load::read_shared`]).
    pub fn on_cancel(&self, f: Box<dyn FnOnce()>) {
        if self.cancelled.get() {
            f();
        } else {
            self.on_cancel.borrow_mut().push(f);
        }
    }

    /// Whether [`Fetcher::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.cancelled.get()
    }

    /// A new request's controller, aborted by [`Fetcher::cancel`] while the request holds it.
    fn controller(&self) -> Result<Rc<AbortController>, Problem> {
        if self.cancelled.get() {
            return Err(Problem::Cancelled);
        }
        let c = Rc::new(AbortController::new().map_err(|e| Problem::Network(js_error_text(&e)))?);
        let mut kept = self.controllers.borrow_mut();
        kept.retain(|w| w.strong_count() > 0);
        kept.push(Rc::downgrade(&c));
        Ok(c)
    }

    /// A GET of `url` with the given Range (inclusive end), aborted by `controller`.
    /// Checks the status and that the answer is not an HTML page. A 5xx answer is tried
    /// again after [`crate::source::http::RETRY_DELAYS_MS`], [`crate::source::http::TRIES`]
    /// times in all.
    pub async fn get(
        &self,
        url: &str,
        range: Option<(u64, u64)>,
        controller: &AbortController,
        counter: &Counter,
    ) -> Result<Response, Problem> {
        let mut tries = 0u32;
        loop {
            tries += 1;
            match self.get_once(url, range, controller, counter).await {
                Err(p) => match retry_delay_ms(tries, &p) {
                    Some(ms) => {
                        TimeoutFuture::new(ms).await;
                        if self.cancelled.get() {
                            return Err(Problem::Cancelled);
                        }
                    }
                    None => return Err(p),
                },
                ok => return ok,
            }
        }
    }

    async fn get_once(
        &self,
        url: &str,
        range: Option<(u64, u64)>,
        controller: &AbortController,
        counter: &Counter,
    ) -> Result<Response, Problem> {
        if self.cancelled.get() {
            return Err(Problem::Cancelled);
        }
        let headers = Headers::new().map_err(|e| Problem::Network(js_error_text(&e)))?;
        if let Some((a, b)) = range {
            let _ = headers.set("Range", &format!("bytes={a}-{b}"));
        }
        if let Some(t) = self
            .token
            .as_deref()
            .filter(|_| token_allowed(url, &self.endpoint))
        {
            let _ = headers.set("Authorization", &format!("Bearer {t}"));
        }
        let init = get_init(RequestRedirect::Follow, controller);
        init.set_headers_headers(&headers);
        counter.requests.set(counter.requests.get() + 1);
        (self.on_progress)();
        let fut = global_fetch(url, &init);
        let resp: Response = match race(fut, self.timeout_ms).await {
            Raced::TimedOut => {
                controller.abort();
                return Err(Problem::Stalled {
                    range,
                    got: 0,
                    timeout_ms: self.timeout_ms,
                });
            }
            Raced::Done(Ok(r)) => r.unchecked_into(),
            Raced::Done(Err(_)) if self.cancelled.get() => return Err(Problem::Cancelled),
            Raced::Done(Err(_)) if offline() => return Err(Problem::Offline),
            Raced::Done(Err(e)) => {
                let why = js_error_text(&e);
                return Err(match range {
                    Some(r) if self.answers_without_range(url, controller).await => {
                        Problem::RangeRefused { range: r, why }
                    }
                    _ if self.redirects(url, controller).await => Problem::RedirectFailed(why),
                    _ => Problem::Network(why),
                });
            }
        };
        let status = resp.status();
        if status != 200 && status != 206 {
            return Err(Problem::Status(status));
        }
        let ctype = resp
            .headers()
            .get("content-type")
            .ok()
            .flatten()
            .unwrap_or_default();
        if ctype.to_ascii_lowercase().starts_with("text/html") {
            return Err(Problem::Html);
        }
        Ok(resp)
    }

    /// The URL `url` finally answers from, after its redirects: one HEAD (the token as for a
    /// GET; no body is sent). `None` when the HEAD fails or the browser does not say.
    async fn final_url(&self, url: &str, controller: &AbortController) -> Option<String> {
        let headers = Headers::new().ok()?;
        if let Some(t) = self
            .token
            .as_deref()
            .filter(|_| token_allowed(url, &self.endpoint))
        {
            let _ = headers.set("Authorization", &format!("Bearer {t}"));
        }
        let init = head_init(controller);
        init.set_headers_headers(&headers);
        match race(global_fetch(url, &init), self.timeout_ms).await {
            Raced::Done(Ok(r)) => {
                let r: Response = r.unchecked_into();
                let u = r.url();
                (r.ok() && !u.is_empty()).then_some(u)
            }
            _ => None,
        }
    }

    /// After a failed ranged request: whether `url` answers a plain GET (no Range, no token;
    /// its body is cancelled as soon as the headers arrive).
    async fn answers_without_range(&self, url: &str, controller: &AbortController) -> bool {
        let Ok(probe) = AbortController::new() else {
            return false;
        };
        if controller.signal().aborted() {
            return false;
        }
        let init = get_init(RequestRedirect::Follow, &probe);
        let fut = global_fetch(url, &init);
        let ok = match race(fut, self.timeout_ms).await {
            Raced::Done(Ok(r)) => r.unchecked_into::<Response>().ok(),
            _ => false,
        };
        probe.abort();
        ok
    }

    /// After a failed request: whether `url` itself answers with a redirect (one plain GET
    /// that does not follow it; its answer is opaque, nothing of it is read).
    async fn redirects(&self, url: &str, controller: &AbortController) -> bool {
        let init = get_init(RequestRedirect::Manual, controller);
        let fut = global_fetch(url, &init);
        match race(fut, self.timeout_ms).await {
            Raced::Done(Ok(r)) => {
                r.unchecked_into::<Response>().type_() == ResponseType::Opaqueredirect
            }
            _ => false,
        }
    }

    /// The whole body of `url` (a small file such as an index or a listing), with the token
    /// when the URL is on the Hub; at most `cap` bytes
    /// ([`crate::source::http::MAX_WHOLE_FILE`] for listings and indexes; less for a config).
    ///
    /// The bytes are held once, in wasm memory: the body stream is copied chunk by chunk into
    /// one buffer sized from Content-Length (when given and under the cap), so a 60 MB index
    /// is never also a whole `ArrayBuffer` on the JavaScript side, nor copied again.
    pub async fn get_all(
        &self,
        url: &str,
        counter: &Counter,
        cap: u64,
    ) -> Result<Vec<u8>, Problem> {
        let c = self.controller()?;
        let resp = self.get(url, None, &c, counter).await?;
        let declared = content_length(&resp);
        if declared.is_some_and(|n| n > cap) {
            c.abort();
            return Err(Problem::TooLarge(cap));
        }
        let mut out: Vec<u8> = Vec::new();
        if let Some(n) = declared.and_then(|n| usize::try_from(n).ok()) {
            out.try_reserve_exact(n)
                .map_err(|_| Problem::TooLarge(cap))?;
        }
        let Some(body) = resp.body() else {
            return Ok(out);
        };
        let reader: ReadableStreamDefaultReader = body.get_reader().unchecked_into();
        let mut dog = Watchdog::new(now_ms(), self.timeout_ms);
        loop {
            let value = match next_chunk(&reader, &dog).await {
                Ok(Some(v)) => v,
                Ok(None) => break,
                Err(ChunkError::TimedOut) => {
                    c.abort();
                    return Err(Problem::Stalled {
                        range: None,
                        got: out.len() as u64,
                        timeout_ms: self.timeout_ms,
                    });
                }
                Err(ChunkError::Failed(e)) => return Err(self.body_error(&e)),
            };
            let n = value.length() as usize;
            dog.on_bytes(now_ms(), n as u64);
            let start = out.len();
            let end = start.checked_add(n).filter(|&e| e as u64 <= cap);
            let Some(end) = end else {
                c.abort();
                return Err(Problem::TooLarge(cap));
            };
            out.try_reserve(n).map_err(|_| Problem::TooLarge(cap))?;
            out.resize(end, 0);
            value.copy_to(&mut out[start..end]);
            counter.add_bytes(n as u64);
            (self.on_progress)();
        }
        Ok(out)
    }

    fn body_error(&self, e: &wasm_bindgen::JsValue) -> Problem {
        if self.cancelled.get() {
            Problem::Cancelled
        } else if offline() {
            Problem::Offline
        } else {
            Problem::Network(js_error_text(e))
        }
    }
}

/// Requests made and bytes received for one file.
#[derive(Default)]
pub struct Counter {
    /// Requests started.
    pub requests: Cell<u32>,
    /// Body bytes received.
    pub bytes: Cell<u64>,
}

impl Counter {
    fn add_bytes(&self, n: u64) {
        self.bytes.set(self.bytes.get().saturating_add(n));
    }
}

/// A server without Range support: its one body stream, read forward only.
struct Stream {
    reader: ReadableStreamDefaultReader,
    /// File offset of `pending[0]`.
    pos: u64,
    pending: Vec<u8>,
}

/// A remote file read by range: the core's [`RangeFile`] decides every read; this only sends
/// its requests with `fetch` and reads their bodies.
pub struct HttpSource {
    fetcher: Rc<Fetcher>,
    counter: Rc<Counter>,
    file: RangeFile,
    stream: Option<Stream>,
    controller: Rc<AbortController>,
}

impl Drop for HttpSource {
    fn drop(&mut self) {
        // Ends a no-Range download still streaming; harmless after completed requests.
        self.controller.abort();
    }
}

/// Where an opened remote file lives, to read more of it later (tensor previews) without
/// asking for its size again.
#[derive(Debug, Clone)]
pub struct Location {
    /// The URL as opened (a Hub `resolve/` URL, or any URL).
    pub url: String,
    /// The final URL after the first answer's redirects (the CDN), where reads go.
    pub direct: String,
    /// The file's size, from the first answer.
    pub size: u64,
    /// The server ignored Range (answered 200 with the whole body).
    pub no_range: bool,
}

/// A header of `resp` (empty when absent or not exposed to the page).
fn header(resp: &Response, name: &str) -> String {
    resp.headers().get(name).ok().flatten().unwrap_or_default()
}

fn content_length(resp: &Response) -> Option<u64> {
    header(resp, "content-length").trim().parse().ok()
}

impl HttpSource {
    /// Makes the first ranged GET (`first_len` bytes from offset 0) and keeps its bytes.
    pub async fn open(
        fetcher: Rc<Fetcher>,
        counter: Rc<Counter>,
        url: &str,
        first_len: u64,
    ) -> Result<HttpSource, Problem> {
        let mut controller = fetcher.controller()?;
        let range = RangeFile::first_range(first_len);
        // WebKit on a Hub URL: find the CDN first (a HEAD), so the ranged GET goes straight
        // there with its Range (WebKit would drop it on the cross-origin redirect).
        let mut asked = url.to_string();
        if crate::source::http::head_first(drops_range_on_redirect(), url, &fetcher.endpoint) {
            counter.requests.set(counter.requests.get() + 1);
            if let Some(f) = fetcher.final_url(url, &controller).await {
                asked = f;
            }
        }
        let mut resp = fetcher
            .get(&asked, Some(range), &controller, &counter)
            .await?;
        let mut final_url = resp.url();
        // WebKit drops Range on a cross-origin redirect (of a URL not known to be on the Hub):
        // the whole file would follow. Stop it at once and ask the final URL directly, where the
        // header is kept. (Other engines keep Range: their 200 means no Range support, and a
        // signed CDN URL may not answer twice.)
        if drops_range_on_redirect()
            && crate::source::http::ask_final_url_again(resp.status(), &asked, &final_url)
        {
            controller.abort();
            controller = fetcher.controller()?;
            resp = fetcher
                .get(&final_url, Some(range), &controller, &counter)
                .await?;
            let again = resp.url();
            if !again.is_empty() {
                final_url = again;
            }
        }
        let content_range = header(&resp, "content-range");
        let answer = FirstAnswer {
            status: resp.status(),
            content_range: &content_range,
            content_length: content_length(&resp),
            final_url: &final_url,
        };
        let (file, body) = RangeFile::opened(
            url,
            first_len,
            &answer,
            "a 206 answer without a readable Content-Range header: the server must expose it to other sites (Access-Control-Expose-Headers: Content-Range)",
        )?;
        let mut src = HttpSource {
            fetcher,
            counter,
            file,
            stream: None,
            controller,
        };
        let first = match body {
            FirstBody::Range(range) => src.body(resp, range).await?,
            FirstBody::Stream { len } => {
                let body = resp
                    .body()
                    .ok_or_else(|| Problem::BadAnswer("an answer without a body".into()))?;
                let reader: ReadableStreamDefaultReader = body.get_reader().unchecked_into();
                src.stream = Some(Stream {
                    reader,
                    pos: 0,
                    pending: Vec::new(),
                });
                src.stream_read(0, len).await?
            }
        };
        src.file.keep_first(first);
        Ok(src)
    }

    /// A reader of a file whose first bytes `first` another reader already holds (the lean
    /// web module hands its header over: `super::handover`): no request for them; later reads
    /// as [`HttpSource::reopen`]'s.
    pub fn with_first(
        fetcher: Rc<Fetcher>,
        counter: Rc<Counter>,
        at: &Location,
        first: Vec<u8>,
    ) -> Result<HttpSource, Problem> {
        let controller = fetcher.controller()?;
        Ok(HttpSource {
            fetcher,
            counter,
            file: RangeFile::with_first(&at.url, &at.direct, at.size, first),
            stream: None,
            controller,
        })
    }

    /// Where this file lives (for [`HttpSource::reopen`]).
    pub fn location(&self) -> Location {
        Location {
            url: self.file.url().to_string(),
            direct: self.file.direct().to_string(),
            size: self.file.size(),
            no_range: self.file.no_range(),
        }
    }

    /// A reader of a file opened before (its size and redirect target known): every read is
    /// one ranged GET of exactly the bytes asked, sent to the redirect's final URL (no token;
    /// the opened URL again, with the token if it is on the Hub, should that one expire), or
    /// refused when the server ignores Range.
    pub fn reopen(fetcher: Rc<Fetcher>, at: &Location) -> Result<HttpSource, Problem> {
        // The fetcher's: cancelling it (a view removed, an aborted call) aborts the read.
        let controller = fetcher.controller()?;
        Ok(HttpSource {
            fetcher,
            counter: Rc::new(Counter::default()),
            file: RangeFile::reopened(&at.url, &at.direct, at.size, at.no_range),
            stream: None,
            controller,
        })
    }

    /// The body of a 206 for `range` (inclusive): read chunk by chunk within the read timeout,
    /// exactly the range's length or an error (fewer: cut off or short; more: stopped at the
    /// first byte past it, never kept).
    async fn body(&self, resp: Response, range: (u64, u64)) -> Result<Vec<u8>, Problem> {
        let expect = range_len(range).ok_or(Problem::TooLarge(u64::MAX))?;
        let coding = header(&resp, "content-encoding");
        if !coding.trim().is_empty() && !coding.trim().eq_ignore_ascii_case("identity") {
            self.controller.abort();
            return Err(Problem::Encoded { range, coding });
        }
        let cap = usize::try_from(expect).map_err(|_| Problem::TooLarge(expect))?;
        let mut out: Vec<u8> = Vec::new();
        out.try_reserve_exact(cap)
            .map_err(|_| Problem::TooLarge(expect))?;
        let Some(body) = resp.body() else {
            return Err(Problem::Short { range, got: 0 });
        };
        let reader: ReadableStreamDefaultReader = body.get_reader().unchecked_into();
        let mut dog = Watchdog::new(now_ms(), self.fetcher.timeout_ms);
        loop {
            let next = next_chunk(&reader, &dog).await;
            // Cancelled while the body was arriving: no more of it is read.
            if self.fetcher.is_cancelled() {
                self.controller.abort();
                return Err(Problem::Cancelled);
            }
            let value = match next {
                Ok(Some(v)) => v,
                Ok(None) => break,
                Err(ChunkError::TimedOut) => {
                    self.controller.abort();
                    return Err(Problem::Stalled {
                        range: Some(range),
                        got: out.len() as u64,
                        timeout_ms: self.fetcher.timeout_ms,
                    });
                }
                Err(ChunkError::Failed(_)) if self.fetcher.is_cancelled() => {
                    return Err(Problem::Cancelled)
                }
                Err(ChunkError::Failed(e)) => {
                    return Err(Problem::Cut {
                        range,
                        got: out.len() as u64,
                        why: js_error_text(&e),
                    })
                }
            };
            let n = value.length() as usize;
            self.counter.add_bytes(n as u64);
            dog.on_bytes(now_ms(), n as u64);
            (self.fetcher.on_progress)();
            let start = out.len();
            match start.checked_add(n).filter(|&e| e <= cap) {
                Some(end) => {
                    out.resize(end, 0);
                    value.copy_to(&mut out[start..end]);
                }
                None => {
                    self.controller.abort();
                    return Err(Problem::Excess { range });
                }
            }
        }
        if out.len() != cap {
            return Err(Problem::Short {
                range,
                got: out.len() as u64,
            });
        }
        Ok(out)
    }

    /// Reads `len` bytes at `offset` from the no-Range stream, which only goes forward (the
    /// core has checked `offset` is not behind it and the cap: [`RangeFile::plan`]).
    async fn stream_read(&mut self, offset: u64, len: u64) -> Result<Vec<u8>, Problem> {
        let end = offset.saturating_add(len);
        let cancelled = self.fetcher.is_cancelled();
        let Some(s) = self.stream.as_mut() else {
            return Err(Problem::BadAnswer(
                "the download was already stopped".into(),
            ));
        };
        if offset < s.pos {
            return Err(Problem::BadAnswer("this server ignores Range requests, so bytes before the ones already read cannot be read again without downloading the file anew".into()));
        }
        let mut out = Vec::new();
        let mut dog = Watchdog::new(now_ms(), self.fetcher.timeout_ms);
        while s.pos.saturating_add(s.pending.len() as u64) < end {
            if cancelled {
                return Err(Problem::Cancelled);
            }
            let have = s.pos.saturating_add(s.pending.len() as u64);
            let value = match next_chunk(&s.reader, &dog).await {
                Ok(Some(v)) => v,
                Ok(None) => {
                    return Err(Problem::BadAnswer(format!(
                        "the download ended at byte {have}, before byte {end}"
                    )))
                }
                Err(ChunkError::TimedOut) => {
                    self.controller.abort();
                    return Err(Problem::Stalled {
                        range: Some((offset, end - 1)),
                        got: have,
                        timeout_ms: dog.timeout_ms(),
                    });
                }
                Err(ChunkError::Failed(e)) => return Err(self.fetcher.body_error(&e)),
            };
            dog.on_bytes(now_ms(), u64::from(value.length()));
            self.counter.add_bytes(u64::from(value.length()));
            (self.fetcher.on_progress)();
            // Drop what lies before `offset` as it arrives, so memory holds only what is asked.
            let chunk = value.to_vec();
            let have_end = s.pos + s.pending.len() as u64;
            let skip = offset.saturating_sub(have_end).min(chunk.len() as u64) as usize;
            if s.pending.is_empty() {
                s.pos = have_end + skip as u64;
                s.pending.extend_from_slice(&chunk[skip..]);
            } else {
                s.pending.extend_from_slice(&chunk);
            }
        }
        let from = (offset - s.pos) as usize;
        let to = (end - s.pos) as usize;
        out.extend_from_slice(&s.pending[from..to]);
        s.pending.drain(..to);
        s.pos = end;
        Ok(out)
    }

    async fn range(&mut self, offset: u64, len: u64) -> Result<Vec<u8>, Problem> {
        match self.file.plan(offset, len)? {
            Plan::Held(r) => Ok(self.file.first()[r].to_vec()),
            Plan::Stream { offset, len } => self.stream_read(offset, len).await,
            Plan::Get { url, range } => {
                let resp = match self
                    .fetcher
                    .get(&url, Some(range), &self.controller, &self.counter)
                    .await
                {
                    Err(p) => match self.file.retry_at(&p, &url) {
                        Some(again) => {
                            let resp = self
                                .fetcher
                                .get(&again, Some(range), &self.controller, &self.counter)
                                .await?;
                            self.file.redirected(&resp.url());
                            resp
                        }
                        None => return Err(p),
                    },
                    Ok(r) => r,
                };
                let cr = header(&resp, "content-range");
                self.file.check_answer(resp.status(), &cr, range)?;
                self.body(resp, range).await
            }
        }
    }
}

impl ByteSource for HttpSource {
    fn size(&self) -> u64 {
        self.file.size()
    }

    async fn read(&mut self, offset: u64, len: u64) -> Result<Vec<u8>, SourceError> {
        match self.range(offset, len).await {
            Ok(b) => Ok(b),
            Err(p) => {
                let url = self.file.url().to_string();
                let text = self.fetcher.describe(&p, &url).joined();
                Err(SourceError::Http {
                    url,
                    problem: p,
                    text,
                })
            }
        }
    }
}
