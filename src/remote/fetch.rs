//! HTTP facts the web layer's Range source needs, kept here so they are tested natively: the
//! `Content-Range` check, which origin may receive the access token, what each failure means
//! for the person (likely cause and what to do), and a bounded pool for reading many shards.

use std::future::Future;
use std::pin::Pin;
use std::task::Poll;

use url::Url;

/// Shard headers read at once for a sharded model: the browser's own per-host limit is 6
/// HTTP/1.1 connections, and more in flight would only queue inside it.
pub const POOL_SIZE: usize = 6;

/// Most bytes read from a server that ignores Range before giving up: the same cap as for any
/// header ([`crate::source::MAX_HEADER_BYTES`]); the stream is cancelled as soon as the
/// header is read, long before a model's weights arrive.
pub const NO_RANGE_CAP: u64 = crate::source::MAX_HEADER_BYTES;

/// Most bytes of a whole small file read at once (a safetensors index, a repository listing):
/// diffusers' indexes of models with hundreds of experts reach 60 MB; the cap stops a wrong
/// URL from downloading a model. The body is refused as soon as its Content-Length, or the
/// bytes received, pass it.
pub const MAX_WHOLE_FILE: u64 = 256 << 20;

/// `Content-Range: bytes a-b/total` → (a, b, total). `total` is `None` for `*`.
pub fn parse_content_range(value: &str) -> Option<(u64, u64, Option<u64>)> {
    let rest = value.trim().strip_prefix("bytes")?.trim_start();
    let (range, total) = rest.split_once('/')?;
    let (a, b) = range.trim().split_once('-')?;
    let a: u64 = a.trim().parse().ok()?;
    let b: u64 = b.trim().parse().ok()?;
    let total = match total.trim() {
        "*" => None,
        t => Some(t.parse().ok()?),
    };
    if b < a || total.is_some_and(|t| b >= t) {
        return None;
    }
    Some((a, b, total))
}

/// The origin (`scheme://host:port`) of a URL, as the browser compares them.
pub fn origin_of(url: &str) -> Option<String> {
    let u = Url::parse(url).ok()?;
    match u.origin() {
        o @ url::Origin::Tuple(..) => Some(o.ascii_serialization()),
        url::Origin::Opaque(_) => None,
    }
}

/// Whether a request to `url` may carry the access token: only when its origin is exactly
/// the configured Hub endpoint's (scheme, host and port), never a CDN it redirects to or any
/// other server.
pub fn token_allowed(url: &str, endpoint: &str) -> bool {
    match (origin_of(url), origin_of(endpoint)) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

/// Why reading from a server failed, in the person's terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// An HTTP status that is not 200/206.
    Status(u16),
    /// The answer is an HTML page, not a model file.
    Html,
    /// The request failed without an answer the page may see (network, CORS, DNS).
    Network(String),
    /// The person cancelled.
    Cancelled,
    /// A 206 for another range than asked.
    RangeMismatch {
        /// What was asked.
        asked: (u64, u64),
        /// The Content-Range header as received.
        got: String,
    },
    /// A 206 without a usable Content-Range, or a body of the wrong length.
    BadAnswer(String),
    /// The header would need more bytes than this tool reads.
    TooLarge(u64),
}

impl Problem {
    /// (headline, details: likely cause and what to do) for the error box. `url` is what was
    /// read, `hub` the configured Hub endpoint, `has_token` whether a token was set.
    pub fn describe(&self, url: &str, hub: &str, has_token: bool) -> (String, String) {
        let hub_origin = origin_of(hub).unwrap_or_else(|| hub.to_string());
        match self {
            Problem::Status(s @ (401 | 403)) => (
                format!("Access refused (HTTP {s}) for {url}"),
                if has_token {
                    format!("The repository is gated or private and the token was not accepted: check that it is valid, has read access, and that you accepted the model's licence on its page. The token is sent only to {hub_origin}.")
                } else {
                    format!("The repository is probably gated or private: accept its licence on the Hub, create an access token with read access, and enter it under Settings. The token is sent only to {hub_origin}.")
                },
            ),
            Problem::Status(404) => (
                format!("Not found (HTTP 404): {url}"),
                "The file path or the revision is probably wrong: check the name and branch, or paste just the repo id (owner/name) to pick from its files.".into(),
            ),
            Problem::Status(416) => (
                format!("The server refused the byte range (HTTP 416) for {url}"),
                "The file is probably empty or shorter than it should be; check that the URL points at the model file itself.".into(),
            ),
            Problem::Status(s) if *s >= 500 => (
                format!("The server failed (HTTP {s}) for {url}"),
                "A problem on the server's side: try again in a moment.".into(),
            ),
            Problem::Status(s) => (
                format!("The server answered HTTP {s} for {url}"),
                "This is not a model file answer; check the URL.".into(),
            ),
            Problem::Html => (
                "This is a web page, not a model file".into(),
                format!("{url} answered with HTML: a page URL was probably pasted. Use the file's download link (…/resolve/…), or paste the repo id to pick a file."),
            ),
            Problem::Network(why) => (
                format!("The request to {url} failed without an answer"),
                format!("The browser does not tell the page why ({why}). Usually: the server does not allow other sites to read it (no CORS headers such as Access-Control-Allow-Origin), the address or port is wrong, the server or network is down, or an extension or firewall blocked it."),
            ),
            Problem::Cancelled => ("Cancelled".into(), "Loading was stopped; nothing more is read.".into()),
            Problem::RangeMismatch { asked, got } => (
                format!("The server sent other bytes than asked for {url}"),
                format!("Asked for bytes {}-{}, got Content-Range \"{got}\". The server or a proxy on the way mishandles Range requests.", asked.0, asked.1),
            ),
            Problem::BadAnswer(why) => (
                format!("The server's answer for {url} cannot be used"),
                why.clone(),
            ),
            Problem::TooLarge(n) => (
                "The header (or index) is too large to read".into(),
                format!("It would take more than {n} bytes; this tool stops there so a model is never downloaded by accident."),
            ),
        }
    }
}

/// Runs `f` on every item with at most `limit` futures in flight at once; results in item
/// order. Single-threaded (wasm): in-flight futures are polled whenever any of them wakes.
pub async fn bounded<T, Fut: Future>(
    items: Vec<T>,
    limit: usize,
    mut f: impl FnMut(usize, T) -> Fut,
) -> Vec<Fut::Output> {
    let total = items.len();
    let mut pending = items.into_iter().enumerate();
    let mut running: Vec<(usize, Pin<Box<Fut>>)> = Vec::new();
    let mut out: Vec<Option<Fut::Output>> = (0..total).map(|_| None).collect();
    let mut exhausted = false;
    std::future::poll_fn(move |cx| loop {
        while !exhausted && running.len() < limit.max(1) {
            match pending.next() {
                Some((i, t)) => running.push((i, Box::pin(f(i, t)))),
                None => exhausted = true,
            }
        }
        let mut progressed = false;
        let mut k = 0;
        while k < running.len() {
            if let Poll::Ready(v) = running[k].1.as_mut().poll(cx) {
                out[running[k].0] = Some(v);
                running.swap_remove(k);
                progressed = true;
            } else {
                k += 1;
            }
        }
        if exhausted && running.is_empty() {
            return Poll::Ready(std::mem::take(&mut out).into_iter().flatten().collect());
        }
        if !progressed {
            return Poll::Pending;
        }
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    #[test]
    fn content_range() {
        assert_eq!(
            parse_content_range("bytes 0-99/1000"),
            Some((0, 99, Some(1000)))
        );
        assert_eq!(parse_content_range("bytes 5-5/*"), Some((5, 5, None)));
        assert_eq!(parse_content_range("bytes 10-5/100"), None);
        assert_eq!(parse_content_range("bytes 0-100/100"), None);
        assert_eq!(parse_content_range("items 0-1/2"), None);
        assert_eq!(parse_content_range("bytes */100"), None);
    }

    #[test]
    fn token_goes_only_to_the_hub_origin() {
        let hub = "http://127.0.0.1:8000";
        assert!(token_allowed(
            "http://127.0.0.1:8000/a/b/resolve/main/x.gguf",
            hub
        ));
        assert!(!token_allowed("http://127.0.0.1:8001/blobs/x", hub));
        assert!(!token_allowed("https://127.0.0.1:8000/x", hub));
        assert!(token_allowed(
            "https://huggingface.co/x",
            "https://huggingface.co"
        ));
        assert!(!token_allowed(
            "https://cdn-lfs.huggingface.co/x",
            "https://huggingface.co"
        ));
        assert!(!token_allowed("https://hf.co/x", "https://huggingface.co"));
        assert!(!token_allowed("not a url", hub));
    }

    #[test]
    fn messages_name_cause_and_remedy() {
        let (h, d) = Problem::Status(401).describe("u", "https://huggingface.co/", false);
        assert!(h.contains("401") && d.contains("token") && d.contains("https://huggingface.co"));
        let (_, d) =
            Problem::Network("TypeError: Failed to fetch".into()).describe("u", "h", false);
        assert!(d.contains("CORS"));
        assert!(Problem::Html
            .describe("u", "h", false)
            .1
            .contains("page URL"));
    }

    struct YieldOnce(bool);
    impl Future for YieldOnce {
        type Output = ();
        fn poll(mut self: Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> Poll<()> {
            if self.0 {
                Poll::Ready(())
            } else {
                self.0 = true;
                cx.waker().wake_by_ref();
                Poll::Pending
            }
        }
    }

    #[test]
    fn pool_never_runs_more_than_its_limit() {
        let live = Cell::new(0);
        let peak = Cell::new(0);
        let out =
            crate::source::block_on_ready(bounded((0..163).collect(), POOL_SIZE, |i, x: u32| {
                let (live, peak) = (&live, &peak);
                async move {
                    live.set(live.get() + 1);
                    peak.set(peak.get().max(live.get()));
                    for _ in 0..(i % 4) {
                        YieldOnce(false).await;
                    }
                    live.set(live.get() - 1);
                    x * 2
                }
            }));
        assert_eq!(out, (0..163).map(|x| x * 2).collect::<Vec<_>>());
        assert!(
            peak.get() <= POOL_SIZE && peak.get() >= POOL_SIZE - 1,
            "{}",
            peak.get()
        );
    }
}
