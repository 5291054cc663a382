//! The HTTP Range core both remote sources use (the browser's `fetch` source in `super::fetch`
//! and the native one in `super::net`), without I/O and tested natively: the reader's
//! decisions ([`reader`]: first bytes kept, ranged GETs, a server that ignores Range, an expired
//! CDN URL), the order of every request and read over any transport ([`driver`]: retries,
//! bodies within the read timeout, WebKit's lost `Range`), the answers' bodies ([`body`]), what one opening's requests share ([`session`]:
//! cancellation, counters), the `Content-Range` checks, which origin may receive the access token, retries and
//! the read timeout, and what each failure means for the person (likely cause and what to do).

use url::Url;

use crate::source::SourceError;

pub mod body;
pub mod driver;
pub mod reader;
pub mod session;
pub use body::{accept, content_length, Body, Forward};
pub use driver::{get_all, no_answer, Chunk, Next, Reader, Transport};
pub use reader::{FirstAnswer, FirstBody, Location, Plan, RangeFile};
pub use session::{counter_of, totals, Abort, Cancel, Counter, Counters, Session};

/// Who reads a remote source's failures, and so in which words a [`Problem`] is told: the
/// source layer says what went wrong, the view layer (`view::errors::Front`) says it for the
/// page, the element and API, or the CLI. A transport keeps its opening's `Wording` and words
/// every [`crate::source::SourceError::Http`] with it.
pub trait Wording: Copy + 'static {
    /// `problem` reading `url` in words, one line (`headline: details`); `hub`: the Hub
    /// endpoint (the only origin that gets the token); `has_token`: whether a token was set.
    fn words(self, problem: &Problem, url: &str, hub: &str, has_token: bool) -> String;

    /// The details alone of [`Wording::words`]: what a tensor preview that cannot be read
    /// says. The whole line unless the front end words headline and details apart.
    fn details(self, problem: &Problem, url: &str, hub: &str, has_token: bool) -> String {
        self.words(problem, url, hub, has_token)
    }
}

/// `problem` reading `url` as a [`SourceError::Http`] carrying `whose`'s words for a reader of
/// the Hub endpoint `hub` (`has_token`: whether a token was set).
pub fn worded<W: Wording>(
    whose: W,
    problem: Problem,
    url: &str,
    hub: &str,
    has_token: bool,
) -> SourceError {
    SourceError::Http {
        url: url.to_string(),
        text: whose.words(&problem, url, hub, has_token),
        problem,
    }
}

/// A small file read whole (an index, a config) larger than this tool reads of it
/// ([`Problem::TooLarge`]) as the size refusal every reader gives
/// ([`SourceError::TooLarge`], its size unknown); `None` for any other problem.
pub fn too_large(problem: &Problem) -> Option<SourceError> {
    match *problem {
        Problem::TooLarge(cap) => Some(SourceError::TooLarge { size: None, cap }),
        _ => None,
    }
}

/// Words as a plain function: (problem, url, the Hub endpoint, whether a token was set) to
/// `headline: details` (the CLI's reader is given `view::errors::cli_words`).
pub type Words = fn(&Problem, &str, &str, bool) -> String;

impl Wording for Words {
    fn words(self, problem: &Problem, url: &str, hub: &str, has_token: bool) -> String {
        self(problem, url, hub, has_token)
    }
}

/// Most bytes read from a server that ignores Range before giving up: the same cap as for any
/// header ([`crate::source::MAX_HEADER_BYTES`]); the stream is cancelled as soon as the
/// header is read, long before a model's weights arrive.
pub const NO_RANGE_CAP: u64 = crate::source::MAX_HEADER_BYTES;

/// Most bytes of a whole small file read at once (a safetensors index, a repository listing):
/// diffusers' indexes of models with hundreds of experts reach 60 MB; the cap stops a wrong
/// URL from downloading a model. The body is refused as soon as its Content-Length, or the
/// bytes received, pass it.
pub const MAX_WHOLE_FILE: u64 = 256 << 20;

/// Tries of one request when the server answers 5xx (the first and two retries).
pub const TRIES: u32 = 3;

/// Waits before the 2nd and 3rd try of a request the server failed (5xx): 250 ms, then 1 s.
pub const RETRY_DELAYS_MS: [u32; 2] = [250, 1000];

/// How long to wait before trying again after `tries` tries ended in `problem`: only 5xx
/// answers are retried (a 4xx, a network or CORS failure, a bad answer would fail again), and
/// at most [`TRIES`] tries in all.
pub fn retry_delay_ms(tries: u32, problem: &Problem) -> Option<u32> {
    match problem {
        Problem::Status(s) if *s >= 500 => RETRY_DELAYS_MS
            .get(usize::try_from(tries.checked_sub(1)?).ok()?)
            .copied(),
        _ => None,
    }
}

/// The read timeout: a request is given up when, for this long, it did not make
/// [`MIN_PROGRESS_BYTES`] of progress (its answer did not arrive, or its body stalled or
/// dripped). 30 s: a slow but working connection moves far more than 4 KiB in that time.
pub const READ_TIMEOUT_MS: u32 = 30_000;

/// Bytes a body must deliver within each [`READ_TIMEOUT_MS`] window to count as progress; a
/// server dripping a byte a second never reaches it.
pub const MIN_PROGRESS_BYTES: u64 = 4096;

/// The read timeout from the page's `read_timeout_ms=` parameter (a test hook), clamped to
/// 200 ms ..= 10 min; [`READ_TIMEOUT_MS`] when absent or unreadable.
pub fn read_timeout_ms(param: Option<&str>) -> u32 {
    param
        .and_then(|v| v.trim().parse::<u32>().ok())
        .map_or(READ_TIMEOUT_MS, |v| v.clamp(200, 600_000))
}

/// The read timeout's clock for one request: a window of `timeout_ms` that restarts each time
/// [`MIN_PROGRESS_BYTES`] arrived within it. Times are milliseconds from any fixed origin.
#[derive(Debug, Clone)]
pub struct Watchdog {
    timeout_ms: u32,
    window_start: f64,
    bytes_in_window: u64,
}

impl Watchdog {
    /// Starts the clock at `now`.
    pub fn new(now: f64, timeout_ms: u32) -> Self {
        Watchdog {
            timeout_ms,
            window_start: now,
            bytes_in_window: 0,
        }
    }

    /// Counts `n` bytes received at `now`.
    pub fn on_bytes(&mut self, now: f64, n: u64) {
        self.bytes_in_window = self.bytes_in_window.saturating_add(n);
        if self.bytes_in_window >= MIN_PROGRESS_BYTES {
            self.window_start = now;
            self.bytes_in_window = 0;
        }
    }

    /// Milliseconds left before the timeout at `now` (0 once it has passed).
    pub fn remaining_ms(&self, now: f64) -> u32 {
        let left = self.window_start + f64::from(self.timeout_ms) - now;
        if left.is_finite() && left > 0.0 {
            left.ceil().min(f64::from(u32::MAX)) as u32
        } else {
            0
        }
    }

    /// The timeout, for messages.
    pub fn timeout_ms(&self) -> u32 {
        self.timeout_ms
    }
}

/// Length of the inclusive range `a-b` (None when b < a or it overflows).
pub fn range_len(r: (u64, u64)) -> Option<u64> {
    r.1.checked_sub(r.0)?.checked_add(1)
}

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

/// Whether a whole-file answer (200) to the first ranged request should be asked again, once,
/// of the URL it finally came from: when the request was redirected to another origin
/// (`asked` and `final_url` differ in origin), the browser may have dropped the Range header on
/// the way (WebKit does on a cross-origin redirect, so the Hub's CDN sends the whole model),
/// and a request made straight to the final URL keeps it. A 200 from the URL asked directly
/// means the server ignores Range, and is read as such.
pub fn ask_final_url_again(status: u16, asked: &str, final_url: &str) -> bool {
    status == 200
        && !final_url.is_empty()
        && origin_of(final_url).is_some()
        && origin_of(final_url) != origin_of(asked)
}

/// Whether the first read of `url` should learn its final URL with one HEAD and send the
/// ranged GET there: only for a client that drops `Range` on a cross-origin redirect (WebKit)
/// and only for a URL on the Hub endpoint, whose `resolve/` answers redirect to its CDN.
pub fn head_first(drops_range_on_redirect: bool, url: &str, hub_endpoint: &str) -> bool {
    drops_range_on_redirect && token_allowed(url, hub_endpoint)
}

/// The origin (`scheme://host:port`) of a URL, as the browser compares them.
pub fn origin_of(url: &str) -> Option<String> {
    let u = Url::parse(url).ok()?;
    match u.origin() {
        o @ url::Origin::Tuple(..) => Some(o.ascii_serialization()),
        url::Origin::Opaque(_) => None,
    }
}

/// Checks the `Content-Range` of the 206 answering a first ranged GET of bytes `0..=asked_end`:
/// it must start at 0, end at or before `asked_end` (a shorter file ends sooner) and give the
/// file's size. Returns (last byte sent, file size). Errors: no header (`missing` says why,
/// e.g. that the server must expose it to other sites), or another range.
pub fn check_first_range(
    content_range: &str,
    asked_end: u64,
    missing: &str,
) -> Result<(u64, u64), Problem> {
    let mismatch = || Problem::RangeMismatch {
        asked: (0, asked_end),
        got: content_range.to_string(),
    };
    match parse_content_range(content_range) {
        Some((0, b, Some(total))) if b <= asked_end => Ok((b, total)),
        _ if content_range.is_empty() => Err(Problem::BadAnswer(missing.to_string())),
        _ => Err(mismatch()),
    }
}

/// Checks the answer to a later ranged GET of bytes `range` (inclusive): a 206 whose
/// `Content-Range` is exactly that range. Errors: a 200 (the server stopped honouring Range),
/// or another range.
pub fn check_later_range(
    status: u16,
    content_range: &str,
    range: (u64, u64),
) -> Result<(), Problem> {
    if status != 206 {
        return Err(Problem::BadAnswer(
            "the server stopped honouring Range requests (answered 200 to a ranged request)".into(),
        ));
    }
    match parse_content_range(content_range) {
        Some((a, b, _)) if (a, b) == range => Ok(()),
        _ => Err(Problem::RangeMismatch {
            asked: range,
            got: content_range.to_string(),
        }),
    }
}

/// For a source whose size was not known before this answer (an ONNX side file opened
/// without a request): the file's size from the answer's `Content-Range`, or an error when the
/// range asked (`range`, inclusive) runs past it — the bytes the server sent of it are
/// dropped, never used as the tensor's.
pub fn size_from_answer(content_range: &str, range: (u64, u64)) -> Result<Option<u64>, Problem> {
    match parse_content_range(content_range) {
        Some((_, _, Some(total))) if range.1 >= total => Err(Problem::BadAnswer(format!(
            "bytes {}..{} are past the end of the {total}-byte file",
            range.0,
            range.1.saturating_add(1)
        ))),
        Some((_, _, total)) => Ok(total),
        None => Ok(None),
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

/// Whether the browser whose `User-Agent` is `ua` drops `Range` on a redirect to another
/// origin (WebKit: Safari and the like, not Chrome or Chromium, whose strings also name
/// AppleWebKit): see [`head_first`] and [`ask_final_url_again`].
pub fn drops_range_on_redirect(ua: &str) -> bool {
    ua.contains("AppleWebKit") && !ua.contains("Chrome") && !ua.contains("Chromium")
}

/// The headers of a request of `url`: `Range` for `range` (inclusive) if any, then
/// `Authorization: Bearer` with `token` where it may go ([`token_allowed`] for the Hub
/// `endpoint`), as (name, value) in that order.
pub fn request_headers(
    url: &str,
    range: Option<(u64, u64)>,
    token: Option<&str>,
    endpoint: &str,
) -> Vec<(&'static str, String)> {
    let mut out = Vec::with_capacity(2);
    if let Some((a, b)) = range {
        out.push(("Range", format!("bytes={a}-{b}")));
    }
    if let Some(t) = token.filter(|_| token_allowed(url, endpoint)) {
        out.push(("Authorization", format!("Bearer {t}")));
    }
    out
}

/// In a browser, the words for a 206 whose `Content-Range` the page cannot read
/// ([`RangeFile::opened`]'s `cors_missing`).
pub const CORS_CONTENT_RANGE: &str = "a 206 answer without a readable Content-Range header: the server must expose it to other sites (Access-Control-Expose-Headers: Content-Range)";

/// No answer to a request of `range` (inclusive, if any) within the read timeout of
/// `timeout_ms`: nothing of its body received.
pub fn unanswered(range: Option<(u64, u64)>, timeout_ms: u32) -> Problem {
    Problem::Stalled {
        range,
        got: 0,
        timeout_ms,
    }
}

/// Why a body stopped arriving (the stream failed, `why`: the browser's words): cancelled
/// when the opening was (`cancelled`), offline when the browser says so (`offline`), else a
/// network failure.
pub fn body_failed(cancelled: bool, offline: bool, why: String) -> Problem {
    if cancelled {
        Problem::Cancelled
    } else if offline {
        Problem::Offline
    } else {
        Problem::Network(why)
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
    /// The request failed while the browser reports no network at all (`navigator.onLine` is
    /// false): the page itself may be open from its offline cache, but remote models need the
    /// network.
    Offline,
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
    /// The body of a ranged answer ended before all asked bytes arrived.
    Short {
        /// The asked range (inclusive).
        range: (u64, u64),
        /// Body bytes received.
        got: u64,
    },
    /// The body was cut off mid-transfer (the connection failed while reading it).
    Cut {
        /// The asked range (inclusive).
        range: (u64, u64),
        /// Body bytes received before it failed.
        got: u64,
        /// The browser's error text.
        why: String,
    },
    /// The body carried more bytes than asked (the rest is refused, the download stopped).
    Excess {
        /// The asked range (inclusive).
        range: (u64, u64),
    },
    /// No progress within the read timeout (no answer, or a stalled or dripping body).
    Stalled {
        /// The asked range (inclusive), if any.
        range: Option<(u64, u64)>,
        /// Body bytes received before giving up.
        got: u64,
        /// The timeout, in milliseconds.
        timeout_ms: u32,
    },
    /// The request failed without an answer and the URL answers with a redirect: most likely
    /// a redirect loop (the browser stops after 20) or a target without CORS headers.
    RedirectFailed(String),
    /// Ranged requests fail without an answer while the same URL without Range answers: the
    /// browser refused the ranged answer (Chromium: a compressed byte range is
    /// ERR_CONTENT_DECODING_FAILED).
    RangeRefused {
        /// The asked range (inclusive).
        range: (u64, u64),
        /// The browser's error text.
        why: String,
    },
    /// A ranged answer with a content coding (gzip…): its Content-Range counts encoded bytes,
    /// which the page never sees, so no offset in it can be trusted.
    Encoded {
        /// The asked range (inclusive).
        range: (u64, u64),
        /// The Content-Encoding header.
        coding: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn webkit_drops_range_chrome_does_not() {
        let safari = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15";
        let chrome = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36";
        let firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0";
        assert!(drops_range_on_redirect(safari));
        assert!(!drops_range_on_redirect(chrome));
        assert!(!drops_range_on_redirect(firefox));
        assert!(!drops_range_on_redirect("AppleWebKit Chromium"));
        assert!(!drops_range_on_redirect(""));
    }

    #[test]
    fn requests_carry_their_range_and_the_token_only_to_the_hub() {
        let hub = "https://huggingface.co";
        assert_eq!(
            request_headers(
                "https://huggingface.co/o/m/resolve/main/a",
                Some((0, 99)),
                Some("t"),
                hub
            ),
            [
                ("Range", "bytes=0-99".to_string()),
                ("Authorization", "Bearer t".to_string())
            ]
        );
        assert_eq!(
            request_headers("https://cdn.example/a", Some((5, 5)), Some("t"), hub),
            [("Range", "bytes=5-5".to_string())]
        );
        assert_eq!(
            request_headers("https://huggingface.co/x", None, Some("t"), hub),
            [("Authorization", "Bearer t".to_string())]
        );
        assert!(request_headers("https://huggingface.co/x", None, None, hub).is_empty());
    }

    #[test]
    fn a_request_unanswered_in_time_is_stalled_with_nothing_received() {
        assert_eq!(
            unanswered(Some((0, 99)), 3000),
            Problem::Stalled {
                range: Some((0, 99)),
                got: 0,
                timeout_ms: 3000
            }
        );
    }

    #[test]
    fn a_failed_body_is_cancelled_offline_or_the_network() {
        assert_eq!(body_failed(true, true, "x".into()), Problem::Cancelled);
        assert_eq!(body_failed(false, true, "x".into()), Problem::Offline);
        assert_eq!(
            body_failed(false, false, "reset".into()),
            Problem::Network("reset".into())
        );
        assert!(CORS_CONTENT_RANGE.contains("Access-Control-Expose-Headers: Content-Range"));
    }

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
        // The first answer: from 0, within what was asked, with the size.
        assert_eq!(
            check_first_range("bytes 0-99/1000", 99, "m"),
            Ok((99, 1000))
        );
        assert_eq!(check_first_range("bytes 0-9/10", 99, "m"), Ok((9, 10)));
        assert_eq!(
            check_first_range("", 99, "no header"),
            Err(Problem::BadAnswer("no header".into()))
        );
        assert_eq!(check_later_range(206, "bytes 5-9/100", (5, 9)), Ok(()));
        assert!(matches!(
            check_later_range(200, "", (5, 9)),
            Err(Problem::BadAnswer(_))
        ));
        assert!(matches!(
            check_later_range(206, "bytes 5-10/100", (5, 9)),
            Err(Problem::RangeMismatch { .. })
        ));
        for bad in ["bytes 1-99/1000", "bytes 0-100/1000", "bytes 0-99/*"] {
            assert!(
                matches!(
                    check_first_range(bad, 99, "m"),
                    Err(Problem::RangeMismatch { .. })
                ),
                "{bad}"
            );
        }
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
    fn a_whole_file_after_a_cross_origin_redirect_is_asked_again_at_its_final_url() {
        let hub = "https://huggingface.co/o/r/resolve/main/m.gguf";
        let cdn = "https://cdn-lfs.hf.co/blobs/x?sig=1";
        assert!(ask_final_url_again(200, hub, cdn));
        // A 206 kept its range; a 200 without a redirect, or one within the origin, is a
        // server that ignores Range.
        assert!(!ask_final_url_again(206, hub, cdn));
        assert!(!ask_final_url_again(200, hub, hub));
        assert!(!ask_final_url_again(
            200,
            hub,
            "https://huggingface.co/other"
        ));
        assert!(!ask_final_url_again(200, hub, ""));
        assert!(!ask_final_url_again(200, hub, "not a url"));
    }

    #[test]
    fn only_a_client_dropping_range_asks_a_hub_url_for_its_final_url_first() {
        let hub = "https://huggingface.co";
        let url = "https://huggingface.co/o/r/resolve/main/m.gguf";
        assert!(head_first(true, url, hub));
        assert!(!head_first(false, url, hub));
        assert!(!head_first(true, "https://example.com/m.gguf", hub));
    }

    #[test]
    fn retries_only_5xx_three_tries_with_backoff() {
        let p = Problem::Status(503);
        assert_eq!(retry_delay_ms(1, &p), Some(250));
        assert_eq!(retry_delay_ms(2, &p), Some(1000));
        assert_eq!(retry_delay_ms(3, &p), None);
        assert_eq!(retry_delay_ms(0, &p), None);
        assert_eq!(retry_delay_ms(u32::MAX, &p), None);
        assert_eq!(retry_delay_ms(1, &Problem::Status(404)), None);
        assert_eq!(retry_delay_ms(1, &Problem::Network("x".into())), None);
        let tries = (1..)
            .take_while(|&t| retry_delay_ms(t, &p).is_some())
            .count() as u32
            + 1;
        assert_eq!(tries, TRIES);
    }

    #[test]
    fn read_timeout_param_and_watchdog() {
        assert_eq!(read_timeout_ms(None), 30_000);
        assert_eq!(read_timeout_ms(Some("3000")), 3000);
        assert_eq!(read_timeout_ms(Some("1")), 200);
        assert_eq!(read_timeout_ms(Some("-5")), 30_000);
        assert_eq!(read_timeout_ms(Some("99999999999")), 30_000);
        let mut w = Watchdog::new(1000.0, 3000);
        assert_eq!(w.remaining_ms(1000.0), 3000);
        // A drip (a byte every 250 ms) never restarts the window.
        for i in 1..12 {
            w.on_bytes(1000.0 + 250.0 * f64::from(i), 1);
        }
        assert_eq!(w.remaining_ms(3750.0), 250);
        assert_eq!(w.remaining_ms(4000.0), 0);
        assert_eq!(w.remaining_ms(f64::NAN), 0);
        // Real progress does.
        w.on_bytes(3900.0, MIN_PROGRESS_BYTES);
        assert_eq!(w.remaining_ms(4000.0), 2900);
        w.on_bytes(4000.0, u64::MAX);
        w.on_bytes(4000.0, u64::MAX);
    }

    #[test]
    fn range_lengths() {
        assert_eq!(range_len((0, 9)), Some(10));
        assert_eq!(range_len((5, 4)), None);
        assert_eq!(range_len((0, u64::MAX)), None);
    }
}
