//! Remote files over HTTP(S) for the native CLI: the same Range rules as the browser's source
//! (`source::fetch`), with a blocking client (ureq, rustls). Each read is one ranged GET; the
//! first answer's `Content-Range` gives the file size, its final URL (after redirects) is
//! where later reads go, and the access token goes only to the Hub endpoint's exact origin
//! ([`token_allowed`](super::http::token_allowed); ureq drops `Authorization` on every redirect, so a CDN never sees it).
//!
//! What is refused, as in the page: a 206 without the asked `Content-Range`, a body of another
//! length, a compressed range (`Content-Encoding`), an HTML page, a 5xx after [`super::http::TRIES`] tries.
//! A server that ignores Range (200) is read from the start of its body only as far as needed,
//! at most [`super::http::NO_RANGE_CAP`] bytes, and the connection is dropped after. Every
//! decision is the core's ([`Reader`], [`RangeFile`]); this module only sends requests and reads
//! bodies.

use std::io::{ErrorKind, Read};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use ureq::{Agent, Body as Body_, ResponseExt};

use super::http::{
    get_all, request_headers, too_large, unanswered, worded, Next, Problem, RangeFile, Reader,
    Transport, Watchdog, Wording, Words, MAX_WHOLE_FILE, READ_TIMEOUT_MS,
};
use super::{block_on_ready, SourceError};

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
        self.words
            .words(problem, url, &self.endpoint, self.token.is_some())
    }

    fn error(&self, problem: Problem, url: &str) -> SourceError {
        let has_token = self.token.is_some();
        worded(self.words, problem, url, &self.endpoint, has_token)
    }

    fn call_problem(&self, e: ureq::Error, range: Option<(u64, u64)>) -> Problem {
        match e {
            ureq::Error::Timeout(_) => unanswered(range, self.timeout_ms),
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
    pub fn get_all(self: &Arc<Self>, url: &str, cap: u64) -> Result<Vec<u8>, SourceError> {
        let cap = cap.min(MAX_WHOLE_FILE);
        let all = block_on_ready(get_all(self, url, cap));
        all.map_err(|p| too_large(&p).unwrap_or_else(|| self.error(p, url)))
    }

    /// Opens `url` with a first ranged GET of `first_len` bytes from offset 0, whose answer
    /// gives the file size; its bytes are kept for the first read.
    pub fn open(self: &Arc<Self>, url: &str, first_len: u64) -> Result<NetSource, SourceError> {
        block_on_ready(Reader::open(self.clone(), url, first_len)).map_err(|p| self.error(p, url))
    }

    /// A reader of `url` that has asked nothing yet (an ONNX side file): its size is unknown
    /// (`u64::MAX`), and every read is one ranged GET of exactly the bytes asked, which the
    /// server refuses past the file's end.
    pub fn unopened(self: &Arc<Self>, url: &str) -> NetSource {
        Reader::at(self.clone(), RangeFile::unopened(url))
    }
}

/// Bytes read from a body at once.
const CHUNK: usize = 64 << 10;

/// A body being read, and the buffer it is read into.
pub struct NetBody {
    reader: ureq::BodyReader<'static>,
    buf: Vec<u8>,
}

/// The blocking client as the core's transport: every wait is over when it returns (the
/// reads run on worker threads, [`crate::source::on_thread`]), so the core's futures are
/// driven with [`block_on_ready`].
impl Transport for Arc<Client> {
    type Answer = ureq::http::Response<Body_>;
    type Body = NetBody;
    type Chunk = Vec<u8>;
    const MISSING_CONTENT_RANGE: &'static str = "a 206 answer without a Content-Range header";

    async fn send(&self, url: &str, range: Option<(u64, u64)>) -> Result<Self::Answer, Problem> {
        let mut req = self.agent.get(url);
        for (name, value) in request_headers(url, range, self.token.as_deref(), &self.endpoint) {
            req = req.header(name, &value);
        }
        self.requests.fetch_add(1, Ordering::Relaxed);
        req.call().map_err(|e| self.call_problem(e, range))
    }

    fn status(&self, answer: &Self::Answer) -> u16 {
        answer.status().as_u16()
    }

    fn header(&self, answer: &Self::Answer, name: &str) -> String {
        let value = answer.headers().get(name).and_then(|v| v.to_str().ok());
        value.unwrap_or_default().to_string()
    }

    fn final_url(&self, answer: &Self::Answer) -> String {
        answer.get_uri().to_string()
    }

    fn body(&self, answer: Self::Answer) -> Option<NetBody> {
        let reader = answer.into_body().into_reader();
        Some(NetBody {
            reader,
            buf: vec![0; CHUNK],
        })
    }

    async fn next(&self, body: &mut NetBody, _: &Watchdog) -> Next<Vec<u8>> {
        loop {
            match body.reader.read(&mut body.buf) {
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Ok(0) => return Next::End,
                Ok(n) => return Next::Chunk(body.buf[..n].to_vec()),
                Err(e) if matches!(e.kind(), ErrorKind::TimedOut | ErrorKind::WouldBlock) => {
                    return Next::TimedOut
                }
                Err(e) => return Next::Failed(e.to_string()),
            }
        }
    }

    async fn sleep(&self, ms: u32) {
        std::thread::sleep(Duration::from_millis(u64::from(ms)));
    }

    fn timeout_ms(&self) -> u32 {
        self.timeout_ms
    }

    fn now_ms(&self) -> f64 {
        // ureq's own per-read timeout is the read timeout: the core's clock is not used.
        0.0
    }

    fn on_bytes(&self, n: u64) {
        self.bytes.fetch_add(n, Ordering::Relaxed);
    }

    fn error(&self, problem: Problem, url: &str) -> SourceError {
        Client::error(self, problem, url)
    }

    fn hub_endpoint(&self) -> &str {
        &self.endpoint
    }
}

/// A remote file read by range (see the module documentation): the core's [`Reader`] over
/// this client.
pub type NetSource = Reader<Arc<Client>>;
