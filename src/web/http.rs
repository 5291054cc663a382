//! A remote file read with HTTP Range requests (`fetch`, never HEAD but to find a Hub URL's
//! CDN on WebKit) as a [`ByteSource`]: the core decides every read and judges every answer
//! ([`RangeFile`], [`crate::source::http::body`]); this module only sends the requests with
//! `fetch`, races each wait against the read timeout ([`Watchdog`]), hands the bodies' chunks
//! over and aborts them (`AbortController`). The access token goes only to the Hub endpoint's
//! exact origin ([`token_allowed`]); Chromium also drops `Authorization` on a redirect to
//! another origin (the end-to-end tests prove from the mock CDN's log it never arrives).
//! A request failing without an answer is diagnosed with one plain GET (answers without
//! Range: the ranged answer was refused, e.g. gzip) and one not following redirects (a loop).

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
    accept, body_failed, content_length, read_timeout_ms, request_headers, retry_delay_ms, Abort,
    Body, Cancel, FirstAnswer, FirstBody, Forward, Plan, Problem, RangeFile, Watchdog,
    CORS_CONTENT_RANGE,
};
pub use crate::source::http::{Counter, Location};
use crate::source::{ByteSource, SourceError};
use crate::view::errors::{self, Audience, Failure, Front};
use crate::view::opening::http_error;

/// Settings and cancellation shared by every request of one opening (one model, all shards).
pub struct Fetcher {
    /// The configured Hub endpoint (the only origin that receives the token).
    pub endpoint: String,
    /// The access token, if one was entered.
    pub token: Option<String>,
    /// Aborts the requests in flight, the child fetchers, and tells who asked.
    cancel: Rc<Cancel>,
    /// Called after every request start and every received chunk (progress display).
    pub on_progress: Box<dyn Fn()>,
    /// The read timeout ([`crate::source::http::READ_TIMEOUT_MS`], or the page's
    /// `read_timeout_ms=` test hook).
    pub timeout_ms: u32,
    /// Whose messages: [`Front::Page`], or [`Front::Api`] for the element and the API.
    pub front: Front,
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

/// Whether this is WebKit, which drops `Range` on a redirect to another origin
/// ([`crate::source::http::head_first`], [`crate::source::http::ask_final_url_again`]).
fn drops_range_on_redirect() -> bool {
    let ua = navigator("userAgent").and_then(|v| v.as_string());
    crate::source::http::drops_range_on_redirect(&ua.unwrap_or_default())
}

fn page_read_timeout() -> u32 {
    // A Worker has no page address: the default.
    let search = web_sys::window().and_then(|w| w.location().search().ok());
    let param = search
        .and_then(|s| web_sys::UrlSearchParams::new_with_str(&s).ok())
        .and_then(|p| p.get("read_timeout_ms"));
    read_timeout_ms(param.as_deref())
}

/// A header of `resp` (empty when absent or not exposed to the page).
fn header(resp: &Response, name: &str) -> String {
    resp.headers().get(name).ok().flatten().unwrap_or_default()
}

impl Fetcher {
    /// Settings for one opening.
    pub fn new(endpoint: String, token: Option<String>, on_progress: Box<dyn Fn()>) -> Self {
        Fetcher {
            endpoint,
            token,
            cancel: Rc::default(),
            on_progress,
            timeout_ms: page_read_timeout(),
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

    /// Who reads this fetcher's failures: its front end, its Hub endpoint, whether it has a
    /// token.
    pub fn audience(&self) -> Audience<'_> {
        Audience {
            front: self.front,
            hub: &self.endpoint,
            has_token: self.token.is_some(),
        }
    }

    /// `problem` reading `url`, worded for this fetcher's front end ([`errors::http_failure`]).
    pub fn describe(&self, problem: &Problem, url: &str) -> Failure {
        errors::http_failure(problem, url, &self.audience())
    }

    /// A fetcher with the same endpoint and token and no progress display (the previews of a
    /// model), cancelled when this one is.
    pub fn child(&self) -> Rc<Fetcher> {
        self.child_telling(Box::new(|| {}))
    }

    /// As [`Fetcher::child`], telling `on_progress` of each request started and chunk
    /// received (the page's progress line counts its previews' reads).
    pub fn child_telling(&self, on_progress: Box<dyn Fn()>) -> Rc<Fetcher> {
        let c = Rc::new(Fetcher {
            front: self.front,
            ..Fetcher::new(self.endpoint.clone(), self.token.clone(), on_progress)
        });
        self.cancel.hold(&c.cancel);
        c
    }

    /// Stops every request of this opening (and of its children), in flight or to come.
    pub fn cancel(&self) {
        self.cancel.cancel();
    }

    /// Calls `f` once when this fetcher is cancelled (at once if it is already): a consumer
    /// of a shared reading leaves it ([`super::load::read_shared`]).
    pub fn on_cancel(&self, f: Box<dyn FnOnce()>) {
        self.cancel.on_cancel(f);
    }

    /// Whether [`Fetcher::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// A new request's controller, aborted by [`Fetcher::cancel`] while the request holds it.
    fn controller(&self) -> Result<Rc<AbortController>, Problem> {
        if self.is_cancelled() {
            return Err(Problem::Cancelled);
        }
        let c = Rc::new(AbortController::new().map_err(|e| Problem::Network(js_error_text(&e)))?);
        self.cancel.hold(&c);
        Ok(c)
    }

    /// Request headers for `url`: `range` (inclusive) if any, the token where it may go.
    fn headers(&self, url: &str, range: Option<(u64, u64)>) -> Result<Headers, Problem> {
        let headers = Headers::new().map_err(|e| Problem::Network(js_error_text(&e)))?;
        for (name, value) in request_headers(url, range, self.token.as_deref(), &self.endpoint) {
            let _ = headers.set(name, &value);
        }
        Ok(headers)
    }

    /// A GET of `url` with the given Range (inclusive end), aborted by `controller`, whose
    /// answer is one to read ([`accept`]); a 5xx is tried again as [`retry_delay_ms`] says.
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
            let p = match self.get_once(url, range, controller, counter).await {
                Err(p) => p,
                ok => return ok,
            };
            let Some(ms) = retry_delay_ms(tries, &p) else {
                return Err(p);
            };
            TimeoutFuture::new(ms).await;
            if self.is_cancelled() {
                return Err(Problem::Cancelled);
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
        if self.is_cancelled() {
            return Err(Problem::Cancelled);
        }
        let init = get_init(RequestRedirect::Follow, controller);
        init.set_headers_headers(&self.headers(url, range)?);
        counter.add_request();
        (self.on_progress)();
        let resp: Response = match race(global_fetch(url, &init), self.timeout_ms).await {
            Raced::TimedOut => {
                controller.abort();
                let (got, timeout_ms) = (0, self.timeout_ms);
                return Err(Problem::Stalled {
                    range,
                    got,
                    timeout_ms,
                });
            }
            Raced::Done(Ok(r)) => r.unchecked_into(),
            Raced::Done(Err(e)) => return Err(self.failed(url, range, controller, &e).await),
        };
        accept(resp.status(), &header(&resp, "content-type"))?;
        Ok(resp)
    }

    /// Why a request of `url` got no answer (`e`): cancelled, offline, a refused ranged
    /// answer, a redirect failing, or the browser's words.
    async fn failed(
        &self,
        url: &str,
        range: Option<(u64, u64)>,
        controller: &AbortController,
        e: &wasm_bindgen::JsValue,
    ) -> Problem {
        if self.is_cancelled() {
            return Problem::Cancelled;
        }
        if offline() {
            return Problem::Offline;
        }
        let why = js_error_text(e);
        match range {
            Some(range) if self.answers_without_range(url, controller).await => {
                Problem::RangeRefused { range, why }
            }
            _ if self.redirects(url, controller).await => Problem::RedirectFailed(why),
            _ => Problem::Network(why),
        }
    }

    /// The URL `url` finally answers from, after its redirects: one HEAD (the token as for a
    /// GET). `None` when the HEAD fails or the browser does not say.
    async fn final_url(&self, url: &str, controller: &AbortController) -> Option<String> {
        let init = head_init(controller);
        init.set_headers_headers(&self.headers(url, None).ok()?);
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
        let ok = match race(global_fetch(url, &init), self.timeout_ms).await {
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
        match race(global_fetch(url, &init), self.timeout_ms).await {
            Raced::Done(Ok(r)) => {
                r.unchecked_into::<Response>().type_() == ResponseType::Opaqueredirect
            }
            _ => false,
        }
    }

    /// The whole body of `url` (an index, a listing, a config), with the token when the URL is
    /// on the Hub; at most `cap` bytes ([`crate::source::http::MAX_WHOLE_FILE`] for listings
    /// and indexes), held once in wasm memory (copied chunk by chunk into one buffer).
    pub async fn get_all(
        &self,
        url: &str,
        counter: &Counter,
        cap: u64,
    ) -> Result<Vec<u8>, Problem> {
        let c = self.controller()?;
        let resp = self.get(url, None, &c, counter).await?;
        let declared = content_length(&header(&resp, "content-length"));
        let body = Body::whole(declared, cap).inspect_err(|_| c.abort())?;
        self.read_body(resp, body, &c, counter).await
    }

    /// Reads `body` of `resp` chunk by chunk within the read timeout (aborting `controller`
    /// when it stalls or says to stop), counting the bytes in `counter`.
    async fn read_body(
        &self,
        resp: Response,
        mut body: Body,
        controller: &AbortController,
        counter: &Counter,
    ) -> Result<Vec<u8>, Problem> {
        let Some(stream) = resp.body() else {
            return body.finish();
        };
        let reader: ReadableStreamDefaultReader = stream.get_reader().unchecked_into();
        let mut dog = Watchdog::new(now_ms(), self.timeout_ms);
        loop {
            let next = next_chunk(&reader, &dog).await;
            // Cancelled while the body was arriving: no more of it is read.
            if self.is_cancelled() {
                controller.abort();
                return Err(Problem::Cancelled);
            }
            let value = match next {
                Ok(Some(v)) => v,
                Ok(None) => return body.finish(),
                Err(ChunkError::TimedOut) => {
                    controller.abort();
                    return Err(body.stalled(self.timeout_ms));
                }
                Err(ChunkError::Failed(e)) => return Err(body.cut(js_error_text(&e), offline())),
            };
            let n = value.length() as usize;
            counter.add_bytes(n as u64);
            dog.on_bytes(now_ms(), n as u64);
            (self.on_progress)();
            let room = body.room(n).inspect_err(|_| controller.abort())?;
            value.copy_to(room);
        }
    }
}

/// A remote file read by range: the core's [`RangeFile`] decides every read; this only sends
/// its requests with `fetch` and reads their bodies.
pub struct HttpSource {
    fetcher: Rc<Fetcher>,
    counter: Rc<Counter>,
    file: RangeFile,
    /// The one body of a server that ignores Range, read forward only.
    stream: Option<(ReadableStreamDefaultReader, Forward)>,
    controller: Rc<AbortController>,
}

impl Drop for HttpSource {
    fn drop(&mut self) {
        // Ends a no-Range download still streaming; harmless after completed requests.
        self.controller.abort();
    }
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
        // there with its Range.
        let mut asked = url.to_string();
        if crate::source::http::head_first(drops_range_on_redirect(), url, &fetcher.endpoint) {
            counter.add_request();
            if let Some(f) = fetcher.final_url(url, &controller).await {
                asked = f;
            }
        }
        let mut resp = fetcher
            .get(&asked, Some(range), &controller, &counter)
            .await?;
        let mut final_url = resp.url();
        // WebKit on another cross-origin redirect: stop the whole file at once and ask the
        // final URL directly, where the header is kept.
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
            content_length: content_length(&header(&resp, "content-length")),
            final_url: &final_url,
        };
        let (file, body) = RangeFile::opened(url, first_len, &answer, CORS_CONTENT_RANGE)?;
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
                src.stream = Some((body.get_reader().unchecked_into(), Forward::new()));
                src.stream_read(0, len).await?
            }
        };
        src.file.keep_first(first);
        Ok(src)
    }

    /// A reader of a file whose first bytes `first` another reader already holds (the lean
    /// web module hands its header over: `super::handover`): no request for them.
    pub fn with_first(
        fetcher: Rc<Fetcher>,
        counter: Rc<Counter>,
        at: &Location,
        first: Vec<u8>,
    ) -> Result<HttpSource, Problem> {
        let file = RangeFile::with_first(&at.url, &at.direct, at.size, first);
        HttpSource::with_file(fetcher, counter, file)
    }

    fn with_file(
        fetcher: Rc<Fetcher>,
        counter: Rc<Counter>,
        file: RangeFile,
    ) -> Result<HttpSource, Problem> {
        // The fetcher's: cancelling it (a view removed, an aborted call) aborts the read.
        let controller = fetcher.controller()?;
        Ok(HttpSource {
            fetcher,
            counter,
            file,
            stream: None,
            controller,
        })
    }

    /// Where this file lives (for [`HttpSource::reopen`]).
    pub fn location(&self) -> Location {
        self.file.location()
    }

    /// A reader of a file opened before (its size and redirect target known): every read is
    /// one ranged GET of exactly the bytes asked ([`RangeFile::at`]), counted in `counter`.
    pub fn reopen(
        fetcher: Rc<Fetcher>,
        at: &Location,
        counter: Rc<Counter>,
    ) -> Result<HttpSource, Problem> {
        HttpSource::with_file(fetcher, counter, RangeFile::at(at))
    }

    /// The body of a 206 for `range` (inclusive): exactly the range's length, or an error.
    async fn body(&self, resp: Response, range: (u64, u64)) -> Result<Vec<u8>, Problem> {
        let body = Body::range(range, &header(&resp, "content-encoding"))
            .inspect_err(|_| self.controller.abort())?;
        let f = &self.fetcher;
        f.read_body(resp, body, &self.controller, &self.counter)
            .await
    }

    /// Reads `len` bytes at `offset` from the no-Range stream, which only goes forward.
    async fn stream_read(&mut self, offset: u64, len: u64) -> Result<Vec<u8>, Problem> {
        let Some((reader, s)) = self.stream.as_mut() else {
            return Err(Problem::BadAnswer(
                "the download was already stopped".into(),
            ));
        };
        s.ask(offset, len)?;
        let mut dog = Watchdog::new(now_ms(), self.fetcher.timeout_ms);
        while s.wants_more() {
            if self.fetcher.is_cancelled() {
                return Err(Problem::Cancelled);
            }
            let value = match next_chunk(reader, &dog).await {
                Ok(Some(v)) => v,
                Ok(None) => return Err(s.ended()),
                Err(ChunkError::TimedOut) => {
                    self.controller.abort();
                    return Err(s.stalled(dog.timeout_ms()));
                }
                Err(ChunkError::Failed(e)) => {
                    let why = js_error_text(&e);
                    return Err(body_failed(self.fetcher.is_cancelled(), offline(), why));
                }
            };
            dog.on_bytes(now_ms(), u64::from(value.length()));
            self.counter.add_bytes(u64::from(value.length()));
            (self.fetcher.on_progress)();
            s.push(&value.to_vec());
        }
        Ok(s.take())
    }

    async fn range(&mut self, offset: u64, len: u64) -> Result<Vec<u8>, Problem> {
        let (url, range) = match self.file.plan(offset, len)? {
            Plan::Held(r) => return Ok(self.file.first()[r].to_vec()),
            Plan::Stream { offset, len } => return self.stream_read(offset, len).await,
            Plan::Get { url, range } => (url, range),
        };
        let (f, c, n) = (&self.fetcher, &self.controller, &self.counter);
        let resp = match f.get(&url, Some(range), c, n).await {
            Ok(r) => r,
            Err(p) => {
                let Some(again) = self.file.retry_at(&p, &url) else {
                    return Err(p);
                };
                let resp = f.get(&again, Some(range), c, n).await?;
                self.file.redirected(&resp.url());
                resp
            }
        };
        let cr = header(&resp, "content-range");
        self.file.check_answer(resp.status(), &cr, range)?;
        self.body(resp, range).await
    }
}

impl ByteSource for HttpSource {
    fn size(&self) -> u64 {
        self.file.size()
    }

    async fn read(&mut self, offset: u64, len: u64) -> Result<Vec<u8>, SourceError> {
        let result = self.range(offset, len).await;
        result.map_err(|p| http_error(p, self.file.url(), &self.fetcher.audience()))
    }
}
