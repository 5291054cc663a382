//! The one remote file reader, over any transport: the order of every request of a Range read
//! and what is done with each answer, written once for the browser's `fetch` (the web build's
//! `source::fetch`) and the CLI's `ureq` (`crate::source::net`). A [`Transport`] only sends
//! one request, gives an answer's status, headers and body chunks, waits and aborts; this
//! module retries 5xx answers ([`get`]), reads bodies within the read timeout ([`read_body`],
//! [`get_all`]), and drives [`RangeFile`]'s decisions for one file ([`Reader`]: the first
//! ranged GET, WebKit's lost `Range` on a cross-origin redirect, a server that ignores Range,
//! an expired CDN URL), so both clients treat every server the same way by construction.

use super::body::{accept, content_length, Body, Forward};
use super::reader::{FirstAnswer, FirstBody, Location, Plan, RangeFile};
use super::{ask_final_url_again, body_failed, head_first, retry_delay_ms, Problem, Watchdog};
use crate::source::{ByteSource, SourceError};

/// A chunk of a body as its transport received it (the browser's `Uint8Array`, a native
/// buffer): copied once into the body being read.
pub trait Chunk {
    /// Its length in bytes.
    fn len(&self) -> usize;
    /// Whether it holds no byte.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Copies its bytes into `to` (exactly [`Chunk::len`] bytes long).
    fn copy_to(&self, to: &mut [u8]);
}

impl Chunk for Vec<u8> {
    fn len(&self) -> usize {
        self.as_slice().len()
    }

    fn copy_to(&self, to: &mut [u8]) {
        to.copy_from_slice(self);
    }
}

/// How waiting for a body's next chunk ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Next<C> {
    /// A chunk arrived.
    Chunk(C),
    /// The body ended.
    End,
    /// No chunk came within the read timeout.
    TimedOut,
    /// The body failed (the connection broke, the request was aborted): the transport's words.
    Failed(String),
}

/// What a remote file's reader needs of a client: one request, an answer's parts, a body's
/// chunks, a wait, an abort, and the words of a failure. Everything else is [`Reader`]'s.
#[allow(async_fn_in_trait)] // Used single-threaded (wasm, block_on): no Send bound.
pub trait Transport {
    /// An answer whose headers arrived.
    type Answer;
    /// An answer's body, read chunk by chunk.
    type Body;
    /// A chunk of a body.
    type Chunk: Chunk;
    /// The words of a 206 whose `Content-Range` cannot be read ([`RangeFile::opened`]).
    const MISSING_CONTENT_RANGE: &'static str;

    /// Sends one GET of `url` (with `Range` for `range`, inclusive, and the token where it may
    /// go) and waits for its answer within the read timeout; counts the request. Errors: no
    /// answer came (a network failure, the timeout, …).
    async fn send(&self, url: &str, range: Option<(u64, u64)>) -> Result<Self::Answer, Problem>;
    /// The answer's HTTP status.
    fn status(&self, answer: &Self::Answer) -> u16;
    /// An answer's header (empty when absent or not exposed).
    fn header(&self, answer: &Self::Answer, name: &str) -> String;
    /// The URL the answer finally came from, after redirects (empty when unknown).
    fn final_url(&self, answer: &Self::Answer) -> String;
    /// The answer's body, if it has one.
    fn body(&self, answer: Self::Answer) -> Option<Self::Body>;
    /// The body's next chunk, within what `dog` leaves of the read timeout.
    async fn next(&self, body: &mut Self::Body, dog: &Watchdog) -> Next<Self::Chunk>;
    /// Waits `ms` milliseconds (before a retry).
    async fn sleep(&self, ms: u32);
    /// The read timeout, in milliseconds.
    fn timeout_ms(&self) -> u32;
    /// Milliseconds from any fixed origin (the read timeout's clock).
    fn now_ms(&self) -> f64;
    /// Counts `n` body bytes received (and shows progress).
    fn on_bytes(&self, n: u64);
    /// `problem` reading `url` as the person reads it.
    fn error(&self, problem: Problem, url: &str) -> SourceError;
    /// The Hub endpoint (the only origin receiving the token).
    fn hub_endpoint(&self) -> &str;
    /// Whether the reading was cancelled (no request is made, no chunk read after).
    fn cancelled(&self) -> bool {
        false
    }
    /// Whether the client reports no network at all.
    fn offline(&self) -> bool {
        false
    }
    /// Stops the requests in flight (a body that stalled or sent too much).
    fn abort(&self) {}
    /// After [`Transport::abort`]: requests made after go on (a new abort handle). Errors:
    /// cancelled.
    fn renew(&self) -> Result<(), Problem> {
        Ok(())
    }
    /// Whether the client drops `Range` on a redirect to another origin (WebKit).
    fn drops_range_on_redirect(&self) -> bool {
        false
    }
    /// The URL `url` finally answers from after its redirects (one HEAD); `None` when unknown.
    async fn head_final_url(&self, _url: &str) -> Option<String> {
        None
    }
    /// After a request got no answer: whether `url` answers a plain GET (no Range, no token;
    /// nothing of its body read).
    async fn answers_without_range(&self, _url: &str) -> bool {
        false
    }
    /// After a request got no answer: whether `url` itself answers with a redirect (a GET
    /// not following it).
    async fn redirects(&self, _url: &str) -> bool {
        false
    }
}

/// Why a request of `url` (with `range`, if any) got no answer, the client saying `why`:
/// cancelled, offline, a ranged answer refused (the same URL answers without Range: a
/// compressed range, say), a redirect failing (a loop, a target without CORS headers), or a
/// network failure. The transport is asked only what tells these apart, in that order.
pub async fn no_answer<T: Transport>(
    t: &T,
    url: &str,
    range: Option<(u64, u64)>,
    why: String,
) -> Problem {
    if t.cancelled() {
        return Problem::Cancelled;
    }
    if t.offline() {
        return Problem::Offline;
    }
    match range {
        Some(range) if t.answers_without_range(url).await => Problem::RangeRefused { range, why },
        _ if t.redirects(url).await => Problem::RedirectFailed(why),
        _ => Problem::Network(why),
    }
}

/// A GET of `url` with `range` (inclusive) whose answer is one to read ([`accept`]); a 5xx is
/// tried again as [`retry_delay_ms`] says. Errors: cancelled, no answer, another status, an
/// HTML page.
pub async fn get<T: Transport>(
    t: &T,
    url: &str,
    range: Option<(u64, u64)>,
) -> Result<T::Answer, Problem> {
    let mut tries = 0u32;
    loop {
        tries += 1;
        if t.cancelled() {
            return Err(Problem::Cancelled);
        }
        let p = match t.send(url, range).await {
            Ok(a) => match accept(t.status(&a), &t.header(&a, "content-type")) {
                Ok(()) => return Ok(a),
                Err(p) => p,
            },
            Err(p) => p,
        };
        let Some(ms) = retry_delay_ms(tries, &p) else {
            return Err(p);
        };
        t.sleep(ms).await;
    }
}

/// Reads `body` of `answer` chunk by chunk within the read timeout, as [`Body`] judges it
/// (aborting the request when it stalls or sends too much).
pub async fn read_body<T: Transport>(
    t: &T,
    answer: T::Answer,
    mut body: Body,
) -> Result<Vec<u8>, Problem> {
    let Some(mut stream) = t.body(answer) else {
        return body.finish();
    };
    let mut dog = Watchdog::new(t.now_ms(), t.timeout_ms());
    loop {
        let next = t.next(&mut stream, &dog).await;
        // Cancelled while the body was arriving: no more of it is read.
        if t.cancelled() {
            t.abort();
            return Err(Problem::Cancelled);
        }
        let chunk = match next {
            Next::Chunk(c) => c,
            Next::End => return body.finish(),
            Next::TimedOut => {
                t.abort();
                return Err(body.stalled(t.timeout_ms()));
            }
            Next::Failed(why) => return Err(body.cut(why, t.offline())),
        };
        let n = chunk.len();
        t.on_bytes(n as u64);
        dog.on_bytes(t.now_ms(), n as u64);
        chunk.copy_to(body.room(n).inspect_err(|_| t.abort())?);
    }
}

/// The whole body of `url` (an index, a listing, a config), at most `cap` bytes: refused from
/// its `Content-Length`, or as soon as the bytes received pass it.
pub async fn get_all<T: Transport>(t: &T, url: &str, cap: u64) -> Result<Vec<u8>, Problem> {
    let answer = get(t, url, None).await?;
    let declared = content_length(&t.header(&answer, "content-length"));
    let body = Body::whole(declared, cap).inspect_err(|_| t.abort())?;
    read_body(t, answer, body).await
}

/// A remote file read by range over the transport `T`: [`RangeFile`] decides every read, this
/// sends its requests and reads their bodies.
pub struct Reader<T: Transport> {
    t: T,
    file: RangeFile,
    /// The one body of a server that ignores Range, read forward only.
    stream: Option<(T::Body, Forward)>,
}

impl<T: Transport> Reader<T> {
    /// Makes the first ranged GET of `url` (`first_len` bytes from offset 0) and keeps its
    /// bytes. On a client that drops `Range` on a cross-origin redirect, a Hub URL's final URL
    /// is found first (one HEAD) and a whole file answered after another redirect is asked
    /// again at its final URL. Errors: as [`get`], [`RangeFile::opened`] and the body's.
    pub async fn open(t: T, url: &str, first_len: u64) -> Result<Reader<T>, Problem> {
        let range = RangeFile::first_range(first_len);
        let mut asked = url.to_string();
        if head_first(t.drops_range_on_redirect(), url, t.hub_endpoint()) {
            if let Some(f) = t.head_final_url(url).await {
                asked = f;
            }
        }
        let mut answer = get(&t, &asked, Some(range)).await?;
        let mut final_url = t.final_url(&answer);
        // Stop the whole file at once and ask the final URL directly, where Range is kept.
        if t.drops_range_on_redirect() && ask_final_url_again(t.status(&answer), &asked, &final_url)
        {
            t.abort();
            t.renew()?;
            answer = get(&t, &final_url, Some(range)).await?;
            let again = t.final_url(&answer);
            if !again.is_empty() {
                final_url = again;
            }
        }
        let content_range = t.header(&answer, "content-range");
        let first = FirstAnswer {
            status: t.status(&answer),
            content_range: &content_range,
            content_length: content_length(&t.header(&answer, "content-length")),
            final_url: &final_url,
        };
        let (file, body) = RangeFile::opened(url, first_len, &first, T::MISSING_CONTENT_RANGE)?;
        let mut src = Reader {
            t,
            file,
            stream: None,
        };
        let first = match body {
            FirstBody::Range(range) => src.body(answer, range).await?,
            FirstBody::Stream { len } => {
                let body = src.t.body(answer);
                let body =
                    body.ok_or_else(|| Problem::BadAnswer("an answer without a body".into()))?;
                src.stream = Some((body, Forward::new()));
                src.stream_read(0, len).await?
            }
        };
        src.file.keep_first(first);
        Ok(src)
    }

    /// A reader of `file` (opened before, or holding bytes another reader read) over `t`.
    pub fn at(t: T, file: RangeFile) -> Reader<T> {
        Reader {
            t,
            file,
            stream: None,
        }
    }

    /// Where this file lives.
    pub fn location(&self) -> Location {
        self.file.location()
    }

    /// The file's reader state (its URL, size, whether its server ignores Range).
    pub fn file(&self) -> &RangeFile {
        &self.file
    }

    /// The transport.
    pub fn transport(&self) -> &T {
        &self.t
    }

    /// Drops the body of a server that ignores Range (once the header is read): later reads
    /// past the first bytes are refused rather than downloading the file up to them.
    pub fn end_stream(&mut self) {
        self.stream = None;
        self.file.end_stream();
    }

    /// The body of a 206 for `range` (inclusive): exactly the range's length, or an error.
    async fn body(&self, answer: T::Answer, range: (u64, u64)) -> Result<Vec<u8>, Problem> {
        let coding = self.t.header(&answer, "content-encoding");
        let body = Body::range(range, &coding).inspect_err(|_| self.t.abort())?;
        read_body(&self.t, answer, body).await
    }

    /// Reads `len` bytes at `offset` from the no-Range body, which only goes forward.
    async fn stream_read(&mut self, offset: u64, len: u64) -> Result<Vec<u8>, Problem> {
        let t = &self.t;
        let Some((body, s)) = self.stream.as_mut() else {
            return Err(Problem::BadAnswer(
                "the download was already stopped".into(),
            ));
        };
        s.ask(offset, len)?;
        let mut dog = Watchdog::new(t.now_ms(), t.timeout_ms());
        while s.wants_more() {
            if t.cancelled() {
                return Err(Problem::Cancelled);
            }
            let chunk = match t.next(body, &dog).await {
                Next::Chunk(c) => c,
                Next::End => return Err(s.ended()),
                Next::TimedOut => {
                    t.abort();
                    return Err(s.stalled(dog.timeout_ms()));
                }
                Next::Failed(why) => return Err(body_failed(t.cancelled(), t.offline(), why)),
            };
            let n = chunk.len();
            dog.on_bytes(t.now_ms(), n as u64);
            t.on_bytes(n as u64);
            let mut bytes = vec![0; n];
            chunk.copy_to(&mut bytes);
            s.push(&bytes);
        }
        Ok(s.take())
    }

    async fn range(&mut self, offset: u64, len: u64) -> Result<Vec<u8>, Problem> {
        let (url, range) = match self.file.plan(offset, len)? {
            Plan::Held(r) => return Ok(self.file.first()[r].to_vec()),
            Plan::Stream { offset, len } => return self.stream_read(offset, len).await,
            Plan::Get { url, range } => (url, range),
        };
        let answer = match get(&self.t, &url, Some(range)).await {
            Ok(a) => a,
            Err(p) => {
                let Some(again) = self.file.retry_at(&p, &url) else {
                    return Err(p);
                };
                let answer = get(&self.t, &again, Some(range)).await?;
                self.file.redirected(&self.t.final_url(&answer));
                answer
            }
        };
        let cr = self.t.header(&answer, "content-range");
        self.file.check_answer(self.t.status(&answer), &cr, range)?;
        self.body(answer, range).await
    }
}

impl<T: Transport + Clone> Reader<T> {
    /// A reader of the same file (size and redirect target known), for tensor previews: each
    /// read is one ranged GET of exactly the bytes asked, or refused when its server ignores
    /// Range.
    pub fn reopen(&self) -> Reader<T> {
        Reader::at(self.t.clone(), RangeFile::at(&self.location()))
    }
}

impl<T: Transport> ByteSource for Reader<T> {
    fn size(&self) -> u64 {
        self.file.size()
    }

    async fn read(&mut self, offset: u64, len: u64) -> Result<Vec<u8>, SourceError> {
        let result = self.range(offset, len).await;
        result.map_err(|p| self.t.error(p, self.file.url()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::block_on_ready;
    use std::cell::{Cell, RefCell};

    const HUB: &str = "https://huggingface.co";
    const URL: &str = "https://huggingface.co/o/m/resolve/main/m.gguf";
    /// Not on the Hub, and redirected to the CDN too.
    const OTHER: &str = "https://example.com/m.gguf";

    /// A request made: its URL (`HEAD url` for a HEAD) and range.
    type Request = (String, Option<(u64, u64)>);

    /// A server of one file, as a transport: the opened URL redirects to a CDN URL signed
    /// anew on each request (`…?sig=N`); statuses queued in `fail` answer the next requests
    /// whose URL starts with their prefix.
    struct Server {
        file: Vec<u8>,
        ignores_range: bool,
        /// The client drops Range on a cross-origin redirect (WebKit).
        webkit: bool,
        chunk: usize,
        /// The body fails after this many bytes.
        cut_after: Option<usize>,
        fail: RefCell<Vec<(&'static str, u16)>>,
        signed: Cell<u32>,
        log: RefCell<Vec<Request>>,
        slept: RefCell<Vec<u32>>,
        bytes: Cell<u64>,
        aborts: Cell<u32>,
        cancelled: Cell<bool>,
        /// What the probes after a request without an answer find: (plain GET answers,
        /// redirects).
        probes: (bool, bool),
        offline: bool,
    }

    fn server(len: usize) -> Server {
        Server {
            file: (0..len).map(|i| (i % 251) as u8).collect(),
            ignores_range: false,
            webkit: false,
            chunk: 64,
            cut_after: None,
            fail: RefCell::default(),
            signed: Cell::new(0),
            log: RefCell::default(),
            slept: RefCell::default(),
            bytes: Cell::new(0),
            aborts: Cell::new(0),
            cancelled: Cell::new(false),
            probes: (false, false),
            offline: false,
        }
    }

    struct Answer {
        status: u16,
        headers: Vec<(&'static str, String)>,
        url: String,
        body: Vec<u8>,
    }

    impl Server {
        fn cdn(&self) -> String {
            self.signed.set(self.signed.get() + 1);
            format!("https://cdn.example/blob?sig={}", self.signed.get())
        }
        fn requests(&self) -> Vec<Request> {
            self.log.borrow().clone()
        }
    }

    impl Transport for &Server {
        type Answer = Answer;
        type Body = (Vec<u8>, usize);
        type Chunk = Vec<u8>;
        const MISSING_CONTENT_RANGE: &'static str = "no Content-Range";

        async fn send(&self, url: &str, range: Option<(u64, u64)>) -> Result<Answer, Problem> {
            self.log.borrow_mut().push((url.to_string(), range));
            let final_url = if url == URL || url == OTHER {
                self.cdn()
            } else {
                url.to_string()
            };
            let queued = self
                .fail
                .borrow()
                .iter()
                .position(|(p, _)| url.starts_with(p));
            if let Some(i) = queued {
                let (_, status) = self.fail.borrow_mut().remove(i);
                return Ok(Answer {
                    status,
                    headers: vec![],
                    url: final_url,
                    body: vec![],
                });
            }
            let size = self.file.len() as u64;
            let dropped =
                self.webkit && super::super::origin_of(&final_url) != super::super::origin_of(url);
            let (status, headers, body) = match range.filter(|_| !self.ignores_range && !dropped) {
                Some((a, b)) => {
                    let b = b.min(size - 1);
                    let cr = format!("bytes {a}-{b}/{size}");
                    (
                        206,
                        vec![("content-range", cr)],
                        self.file[a as usize..=b as usize].to_vec(),
                    )
                }
                None => (
                    200,
                    vec![("content-length", size.to_string())],
                    self.file.clone(),
                ),
            };
            Ok(Answer {
                status,
                headers,
                url: final_url,
                body,
            })
        }
        fn status(&self, a: &Answer) -> u16 {
            a.status
        }
        fn header(&self, a: &Answer, name: &str) -> String {
            let h = a.headers.iter().find(|(n, _)| *n == name);
            h.map(|(_, v)| v.clone()).unwrap_or_default()
        }
        fn final_url(&self, a: &Answer) -> String {
            a.url.clone()
        }
        fn body(&self, a: Answer) -> Option<(Vec<u8>, usize)> {
            Some((a.body, 0))
        }
        async fn next(&self, (body, at): &mut (Vec<u8>, usize), _: &Watchdog) -> Next<Vec<u8>> {
            if self.cut_after.is_some_and(|c| *at >= c) {
                return Next::Failed("connection reset".into());
            }
            if *at == body.len() {
                return Next::End;
            }
            let end = (*at + self.chunk).min(body.len());
            let c = body[*at..end].to_vec();
            *at = end;
            Next::Chunk(c)
        }
        async fn sleep(&self, ms: u32) {
            self.slept.borrow_mut().push(ms);
        }
        fn timeout_ms(&self) -> u32 {
            1000
        }
        fn now_ms(&self) -> f64 {
            0.0
        }
        fn on_bytes(&self, n: u64) {
            self.bytes.set(self.bytes.get() + n);
        }
        fn error(&self, problem: Problem, url: &str) -> SourceError {
            SourceError::Http {
                url: url.into(),
                text: format!("{problem:?}"),
                problem,
            }
        }
        fn hub_endpoint(&self) -> &str {
            HUB
        }
        fn cancelled(&self) -> bool {
            self.cancelled.get()
        }
        fn abort(&self) {
            self.aborts.set(self.aborts.get() + 1);
        }
        fn drops_range_on_redirect(&self) -> bool {
            self.webkit
        }
        fn offline(&self) -> bool {
            self.offline
        }
        async fn answers_without_range(&self, url: &str) -> bool {
            self.log.borrow_mut().push((format!("GET {url}"), None));
            self.probes.0
        }
        async fn redirects(&self, url: &str) -> bool {
            self.log.borrow_mut().push((format!("MANUAL {url}"), None));
            self.probes.1
        }
        async fn head_final_url(&self, url: &str) -> Option<String> {
            self.log.borrow_mut().push((format!("HEAD {url}"), None));
            Some(self.cdn())
        }
    }

    fn read(r: &mut Reader<&Server>, offset: u64, len: u64) -> Result<Vec<u8>, Problem> {
        block_on_ready(r.range(offset, len))
    }

    #[test]
    fn first_bytes_are_kept_and_later_reads_go_to_the_cdn() {
        let s = server(1000);
        let mut r = block_on_ready(Reader::open(&s, URL, 100)).unwrap();
        assert_eq!(
            (r.file().size(), r.file().direct()),
            (1000, "https://cdn.example/blob?sig=1")
        );
        assert_eq!(read(&mut r, 10, 3).unwrap(), [10, 11, 12]);
        assert_eq!(
            read(&mut r, 500, 2).unwrap(),
            [500 % 251, 501 % 251].map(|b| b as u8)
        );
        assert_eq!(
            s.requests(),
            [
                (URL.to_string(), Some((0, 99))),
                (
                    "https://cdn.example/blob?sig=1".to_string(),
                    Some((500, 501))
                )
            ]
        );
        assert_eq!(s.bytes.get(), 102);
    }

    #[test]
    fn a_5xx_is_tried_three_times_with_backoff() {
        let s = server(10);
        s.fail.borrow_mut().extend([(URL, 503), (URL, 502)]);
        let r = block_on_ready(Reader::open(&s, URL, 4)).unwrap();
        assert_eq!(r.file().first(), [0, 1, 2, 3]);
        assert_eq!(
            (s.requests().len(), s.slept.borrow().clone()),
            (3, vec![250, 1000])
        );
        let s = server(10);
        s.fail
            .borrow_mut()
            .extend([(URL, 503), (URL, 503), (URL, 503), (URL, 503)]);
        assert_eq!(
            block_on_ready(get(&&s, URL, None)).err(),
            Some(Problem::Status(503))
        );
        assert_eq!(s.requests().len(), 3);
        // A 404 is final at once.
        let s = server(10);
        s.fail.borrow_mut().push((URL, 404));
        assert_eq!(
            block_on_ready(get(&&s, URL, None)).err(),
            Some(Problem::Status(404))
        );
        assert!(s.slept.borrow().is_empty());
    }

    #[test]
    fn a_server_ignoring_range_is_read_forward_then_closed() {
        let mut s = server(1000);
        s.ignores_range = true;
        let mut r = block_on_ready(Reader::open(&s, URL, 100)).unwrap();
        assert!(r.file().no_range());
        // The first answer's body was read in 64-byte chunks up to 100 bytes: two of them.
        assert_eq!(s.bytes.get(), 128);
        assert_eq!(
            read(&mut r, 300, 2).unwrap(),
            [300 % 251, 301 % 251].map(|b| b as u8)
        );
        assert!(matches!(read(&mut r, 200, 1), Err(Problem::BadAnswer(_))));
        r.end_stream();
        assert!(
            matches!(read(&mut r, 400, 1), Err(Problem::BadAnswer(w)) if w.contains("ignores Range"))
        );
        assert_eq!(read(&mut r, 5, 1).unwrap(), [5]);
        // One request in all: the whole file's.
        assert_eq!(s.requests().len(), 1);
        assert!(r.location().previewable().is_err());
    }

    #[test]
    fn an_expired_cdn_url_is_asked_of_the_hub_again() {
        let s = server(1000);
        let mut r = block_on_ready(Reader::open(&s, URL, 100)).unwrap();
        s.fail
            .borrow_mut()
            .push(("https://cdn.example/blob?sig=1", 403));
        assert_eq!(read(&mut r, 200, 1).unwrap(), [200]);
        assert_eq!(r.file().direct(), "https://cdn.example/blob?sig=2");
        let asked: Vec<String> = s.requests().into_iter().map(|(u, _)| u).collect();
        assert_eq!(asked, [URL, "https://cdn.example/blob?sig=1", URL]);
        // A reopened reader goes straight to the newly signed URL.
        let mut again = Reader::at(&s, RangeFile::at(&r.location()));
        assert_eq!(
            block_on_ready(again.range(999, 1)).unwrap(),
            [(999 % 251) as u8]
        );
        assert_eq!(
            s.requests().last().unwrap().0,
            "https://cdn.example/blob?sig=2"
        );
    }

    #[test]
    fn webkit_finds_the_cdn_first_or_asks_a_whole_answer_again_at_its_final_url() {
        let mut s = server(1000);
        s.webkit = true;
        let r = block_on_ready(Reader::open(&s, URL, 100)).unwrap();
        assert!(!r.file().no_range());
        assert_eq!(
            s.requests(),
            [
                (format!("HEAD {URL}"), None),
                ("https://cdn.example/blob?sig=1".to_string(), Some((0, 99)))
            ]
        );
        // Not a Hub URL: the redirect drops Range (a 200), so the final URL is asked again.
        let mut s = server(1000);
        s.webkit = true;
        let r = block_on_ready(Reader::open(&s, OTHER, 100)).unwrap();
        assert_eq!((r.file().first().len(), r.file().no_range()), (100, false));
        assert_eq!(s.aborts.get(), 1);
        assert_eq!(
            s.requests(),
            [
                (OTHER.to_string(), Some((0, 99))),
                ("https://cdn.example/blob?sig=1".to_string(), Some((0, 99)))
            ]
        );
    }

    #[test]
    fn bodies_fail_as_the_core_names_them() {
        let mut s = server(1000);
        s.cut_after = Some(64);
        assert_eq!(
            block_on_ready(Reader::open(&s, URL, 100)).err(),
            Some(Problem::Cut {
                range: (0, 99),
                got: 64,
                why: "connection reset".into()
            })
        );
        let s = server(1000);
        assert_eq!(
            block_on_ready(get_all(&&s, URL, 500)).err(),
            Some(Problem::TooLarge(500))
        );
        assert_eq!(block_on_ready(get_all(&&s, URL, 1000)).unwrap().len(), 1000);
        s.cancelled.set(true);
        let before = s.requests().len();
        assert_eq!(
            block_on_ready(get_all(&&s, URL, 1000)).err(),
            Some(Problem::Cancelled)
        );
        assert_eq!(s.requests().len(), before);
    }

    #[test]
    fn a_request_without_an_answer_is_told_apart_by_probes() {
        let why = || "TypeError: Failed to fetch".to_string();
        let diagnose = |s: &Server, range| block_on_ready(no_answer(&s, URL, range, why()));
        let mut s = server(10);
        assert_eq!(diagnose(&s, Some((0, 9))), Problem::Network(why()));
        // Both probes were made, in order: the plain GET first.
        let asked: Vec<String> = s.requests().into_iter().map(|(u, _)| u).collect();
        assert_eq!(asked, [format!("GET {URL}"), format!("MANUAL {URL}")]);
        s.probes = (true, true);
        assert_eq!(
            diagnose(&s, Some((0, 9))),
            Problem::RangeRefused {
                range: (0, 9),
                why: why()
            }
        );
        // Without a range, no plain GET is tried.
        assert_eq!(diagnose(&s, None), Problem::RedirectFailed(why()));
        s.offline = true;
        assert_eq!(diagnose(&s, None), Problem::Offline);
        s.cancelled.set(true);
        assert_eq!(diagnose(&s, None), Problem::Cancelled);
    }

    #[test]
    fn a_read_error_names_the_url_as_opened() {
        let s = server(1000);
        let mut r = block_on_ready(Reader::open(&s, URL, 100)).unwrap();
        s.fail.borrow_mut().push(("https://cdn.example", 404));
        let e = block_on_ready(r.read(500, 1)).unwrap_err();
        assert_eq!(e.status(), Some(404));
        assert!(matches!(e, SourceError::Http { url, .. } if url == URL));
    }
}
