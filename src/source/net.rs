//! Remote files over HTTP(S) for the native CLI: the same Range rules as the browser's source
//! (`web/http.rs`), with a blocking client (ureq, rustls). Each read is one ranged GET; the
//! first answer's `Content-Range` gives the file size, its final URL (after redirects) is
//! where later reads go, and the access token goes only to the Hub endpoint's exact origin
//! ([`token_allowed`](super::http::token_allowed); ureq drops `Authorization` on every redirect, so a CDN never sees it).
//!
//! What is refused, as in the page: a 206 without the asked `Content-Range`, a body of another
//! length, a compressed range (`Content-Encoding`), an HTML page, a 5xx after [`super::http::TRIES`] tries.
//! A server that ignores Range (200) is read from the start of its body only as far as needed,
//! at most [`super::http::NO_RANGE_CAP`] bytes, and the connection is dropped after. Every
//! decision is the core's ([`RangeFile`]); this module only sends requests and reads bodies.

use std::io::Read;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use ureq::{Agent, Body as Body_, ResponseExt};

use super::http::{
    accept, content_length, request_headers, retry_delay_ms, Body, FirstAnswer, FirstBody, Forward,
    Plan, Problem, RangeFile, MAX_WHOLE_FILE, READ_TIMEOUT_MS,
};
use super::{ByteSource, SourceError};

/// A problem reading a URL in words, `headline: details`: (problem, url, the Hub endpoint,
/// whether a token was set).
pub type Words = fn(&Problem, &str, &str, bool) -> String;

/// Settings shared by every request of one run: the Hub endpoint (the only origin that gets
/// the token), the token, and counters of requests made and body bytes received.
pub struct Client {
    agent: Agent,
    /// How a problem reads for the person running it (the CLI's words,
    /// `view::errors::cli_words`): the source layer says what went wrong, not in which words.
    words: Words,
    /// The Hub endpoint (`https://huggingface.co`, or `HF_ENDPOINT`).
    pub endpoint: String,
    token: Option<String>,
    timeout_ms: u32,
    /// Requests started.
    pub requests: AtomicU32,
    /// Body bytes received.
    pub bytes: AtomicU64,
}

impl Client {
    /// A client for `endpoint` with an optional access token, whose failures read as `words`
    /// words them.
    pub fn new(endpoint: String, token: Option<String>, words: Words) -> Arc<Client> {
        let timeout = Duration::from_millis(u64::from(READ_TIMEOUT_MS));
        let agent: Agent = Agent::config_builder()
            .http_status_as_error(false)
            .user_agent(concat!("weightpeek/", env!("CARGO_PKG_VERSION")))
            // No Accept-Encoding: a compressed range cannot be trusted (see Problem::Encoded).
            .accept_encoding("")
            .max_redirects(10)
            .timeout_connect(Some(timeout))
            .timeout_recv_response(Some(timeout))
            .timeout_per_read(Some(timeout))
            .build()
            .into();
        Arc::new(Client {
            agent,
            words,
            endpoint,
            token: token.filter(|t| !t.is_empty()),
            timeout_ms: READ_TIMEOUT_MS,
            requests: AtomicU32::new(0),
            bytes: AtomicU64::new(0),
        })
    }

    /// `problem` reading `url`, as one sentence (headline: likely cause and remedy).
    pub fn describe(&self, problem: &Problem, url: &str) -> String {
        (self.words)(problem, url, &self.endpoint, self.token.is_some())
    }

    fn error(&self, problem: Problem, url: &str) -> SourceError {
        SourceError::Http {
            url: url.to_string(),
            text: self.describe(&problem, url),
            problem,
        }
    }

    /// A GET of `url` with an optional Range (inclusive end); 5xx answers are tried
    ///  [`super::http::TRIES`] times with the page's backoff. Only 200 and 206 are answers.
    fn get(
        &self,
        url: &str,
        range: Option<(u64, u64)>,
    ) -> Result<ureq::http::Response<Body_>, Problem> {
        let mut tries = 0u32;
        loop {
            tries += 1;
            match self.get_once(url, range) {
                Err(p) => match retry_delay_ms(tries, &p) {
                    Some(ms) => std::thread::sleep(Duration::from_millis(u64::from(ms))),
                    None => return Err(p),
                },
                ok => return ok,
            }
        }
    }

    fn get_once(
        &self,
        url: &str,
        range: Option<(u64, u64)>,
    ) -> Result<ureq::http::Response<Body_>, Problem> {
        let mut req = self.agent.get(url);
        for (name, value) in request_headers(url, range, self.token.as_deref(), &self.endpoint) {
            req = req.header(name, &value);
        }
        self.requests.fetch_add(1, Ordering::Relaxed);
        let resp = req.call().map_err(|e| self.call_problem(e, range))?;
        accept(resp.status().as_u16(), &header(&resp, "content-type"))?;
        Ok(resp)
    }

    fn call_problem(&self, e: ureq::Error, range: Option<(u64, u64)>) -> Problem {
        match e {
            ureq::Error::Timeout(_) => Problem::Stalled {
                range,
                got: 0,
                timeout_ms: self.timeout_ms,
            },
            ureq::Error::TooManyRedirects => {
                Problem::RedirectFailed("more than 10 redirects".into())
            }
            ureq::Error::HostNotFound => Problem::Network("the host name was not found".into()),
            other => Problem::Network(other.to_string()),
        }
    }

    /// The whole body of `url` (an index, a listing, a config), at most `cap` bytes
    /// ([`MAX_WHOLE_FILE`] for listings and indexes). Errors: the request failed, or the
    /// body is larger than `cap` (refused from its Content-Length, or as soon as it passes).
    pub fn get_all(&self, url: &str, cap: u64) -> Result<Vec<u8>, SourceError> {
        let cap = cap.min(MAX_WHOLE_FILE);
        let resp = self.get(url, None).map_err(|p| self.error(p, url))?;
        let body = Body::whole(content_length(&header(&resp, "content-length")), cap)
            .map_err(|p| self.error(p, url))?;
        self.read_body(resp, body, None)
            .map_err(|p| self.error(p, url))
    }

    /// Reads `body` from `resp` chunk by chunk as the core's [`Body`] judges it (`range`: the
    /// range it answers, for a timeout's words).
    fn read_body(
        &self,
        resp: ureq::http::Response<Body_>,
        mut body: Body,
        range: Option<(u64, u64)>,
    ) -> Result<Vec<u8>, Problem> {
        let mut reader = resp.into_body().into_reader();
        let mut chunk = vec![0u8; CHUNK];
        loop {
            let n = match reader.read(&mut chunk) {
                Ok(0) => return body.finish(),
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) if is_timeout(&e) && range.is_some() => {
                    return Err(body.stalled(self.timeout_ms))
                }
                Err(e) => return Err(body.cut(e.to_string(), false)),
            };
            self.bytes.fetch_add(n as u64, Ordering::Relaxed);
            body.push(&chunk[..n])?;
        }
    }

    /// Opens `url` with a first ranged GET of `first_len` bytes from offset 0, whose answer
    /// gives the file size; its bytes are kept for the first read.
    pub fn open(self: &Arc<Self>, url: &str, first_len: u64) -> Result<NetSource, SourceError> {
        self.open_inner(url, first_len)
            .map_err(|p| self.error(p, url))
    }

    /// A reader of `url` that has asked nothing yet (an ONNX side file): its size is unknown
    /// (`u64::MAX`), and every read is one ranged GET of exactly the bytes asked, which the
    /// server refuses past the file's end.
    pub fn unopened(self: &Arc<Self>, url: &str) -> NetSource {
        NetSource {
            client: self.clone(),
            file: RangeFile::unopened(url),
            stream: None,
        }
    }

    fn open_inner(self: &Arc<Self>, url: &str, first_len: u64) -> Result<NetSource, Problem> {
        let resp = self.get(url, Some(RangeFile::first_range(first_len)))?;
        let final_url = resp.get_uri().to_string();
        let content_range = header(&resp, "content-range");
        let answer = FirstAnswer {
            status: resp.status().as_u16(),
            content_range: &content_range,
            content_length: content_length(&header(&resp, "content-length")),
            final_url: &final_url,
        };
        let (file, body) = RangeFile::opened(
            url,
            first_len,
            &answer,
            "a 206 answer without a Content-Range header",
        )?;
        let mut src = NetSource {
            client: self.clone(),
            file,
            stream: None,
        };
        let first = match body {
            FirstBody::Range(range) => self.body(resp, range)?,
            FirstBody::Stream { len } => {
                let mut stream = Stream {
                    reader: resp.into_body().into_reader(),
                    forward: Forward::new(),
                };
                let first = stream_read(self, &mut stream, 0, len)?;
                src.stream = Some(stream);
                first
            }
        };
        src.file.keep_first(first);
        Ok(src)
    }

    /// The body of a 206 for `range` (inclusive): exactly its length, or an error (fewer:
    /// short or cut off; more: refused at the first byte past it).
    fn body(
        &self,
        resp: ureq::http::Response<Body_>,
        range: (u64, u64),
    ) -> Result<Vec<u8>, Problem> {
        let body = Body::range(range, &header(&resp, "content-encoding"))?;
        self.read_body(resp, body, Some(range))
    }
}

/// Bytes read from a body at once.
const CHUNK: usize = 64 << 10;

fn is_timeout(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
    )
}

fn header(resp: &ureq::http::Response<Body_>, name: &str) -> String {
    resp.headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string()
}

/// A server without Range support: its one body, read forward only ([`Forward`]).
struct Stream {
    reader: ureq::BodyReader<'static>,
    forward: Forward,
}

/// `len` bytes at `offset` from a forward-only body (the core has checked `offset` is not
/// behind it and the cap, [`RangeFile::plan`]): the bytes before `offset` are dropped.
fn stream_read(client: &Client, s: &mut Stream, offset: u64, len: u64) -> Result<Vec<u8>, Problem> {
    s.forward.ask(offset, len)?;
    let mut chunk = vec![0u8; CHUNK];
    while s.forward.wants_more() {
        let n = match s.reader.read(&mut chunk) {
            Ok(0) => return Err(s.forward.ended()),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Problem::Network(e.to_string())),
        };
        client.bytes.fetch_add(n as u64, Ordering::Relaxed);
        s.forward.push(&chunk[..n]);
    }
    Ok(s.forward.take())
}

/// A remote file read by range (see the module documentation): the core's [`RangeFile`]
/// decides every read; this only sends its requests.
pub struct NetSource {
    client: Arc<Client>,
    file: RangeFile,
    stream: Option<Stream>,
}

impl NetSource {
    /// The URL as opened (a Hub `resolve/` URL, or any URL).
    pub fn url(&self) -> &str {
        self.file.url()
    }

    /// Whether the server ignores Range requests (it answered 200 with the whole file).
    pub fn no_range(&self) -> bool {
        self.file.no_range()
    }

    /// Drops the body of a server that ignores Range (closing its connection), once the
    /// header is read: later reads are then refused rather than downloading the file up to
    /// them, as in the page.
    pub fn end_stream(&mut self) {
        self.stream = None;
        self.file.end_stream();
    }

    /// A reader of a file opened before (size and redirect target known), for tensor
    /// previews: each read is one ranged GET of exactly the bytes asked.
    pub fn reopen(&self) -> NetSource {
        NetSource {
            client: self.client.clone(),
            file: RangeFile::reopened(
                self.file.url(),
                self.file.direct(),
                self.file.size(),
                self.file.no_range(),
            ),
            stream: None,
        }
    }

    fn range(&mut self, offset: u64, len: u64) -> Result<Vec<u8>, Problem> {
        match self.file.plan(offset, len)? {
            Plan::Held(r) => Ok(self.file.first()[r].to_vec()),
            Plan::Stream { offset, len } => match self.stream.as_mut() {
                Some(s) => stream_read(&self.client, s, offset, len),
                None => Err(Problem::BadAnswer(
                    "the download was already stopped".into(),
                )),
            },
            Plan::Get { url, range } => {
                let resp = match self.client.get(&url, Some(range)) {
                    Err(p) => match self.file.retry_at(&p, &url) {
                        Some(again) => {
                            let resp = self.client.get(&again, Some(range))?;
                            self.file.redirected(&resp.get_uri().to_string());
                            resp
                        }
                        None => return Err(p),
                    },
                    Ok(r) => r,
                };
                let cr = header(&resp, "content-range");
                self.file.check_answer(resp.status().as_u16(), &cr, range)?;
                self.client.body(resp, range)
            }
        }
    }
}

impl ByteSource for NetSource {
    fn size(&self) -> u64 {
        self.file.size()
    }

    async fn read(&mut self, offset: u64, len: u64) -> Result<Vec<u8>, SourceError> {
        let url = self.file.url().to_string();
        self.range(offset, len)
            .map_err(|p| self.client.error(p, &url))
    }
}
