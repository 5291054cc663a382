//! The HTTP Range core both remote sources use (the browser's `fetch` source in `web/http.rs`
//! and the native one in [`super::net`]), without I/O and tested natively: the reader's
//! decisions ([`reader`]: first bytes kept, ranged GETs, a server that ignores Range, an expired
//! CDN URL), the answers' bodies ([`body`]), what one opening's requests share ([`session`]:
//! cancellation, counters), the `Content-Range` checks, which origin may receive the access token, retries and
//! the read timeout, and what each failure means for the person (likely cause and what to do).

use url::Url;

pub mod body;
pub mod reader;
pub mod session;
pub use body::{accept, content_length, Body, Forward};
pub use reader::{FirstAnswer, FirstBody, Location, Plan, RangeFile};
pub use session::{counter_of, totals, Abort, Cancel, Counter, Counters};

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

/// Inclusive byte range `a-b` as text.
fn span(r: (u64, u64)) -> String {
    format!("bytes {}-{}", r.0, r.1)
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

impl Problem {
    /// As [`Problem::describe`], for the `<weightpeek-view>` element and the JavaScript API,
    /// which have no Settings box and no repository picker: the remedies name what those
    /// offer instead (the API's `token` option, a file's download URL).
    pub fn describe_embedded(&self, url: &str, hub: &str, has_token: bool) -> (String, String) {
        let hub_origin = origin_of(hub).unwrap_or_else(|| hub.to_string());
        match self {
            Problem::Status(s @ (401 | 403)) if !has_token => (
                format!("Access refused (HTTP {s}) for {url}"),
                format!("The file is probably in a gated or private repository: the JavaScript API reads it with an access token (the `token` option, sent only to {hub_origin}); the element reads public files only."),
            ),
            Problem::Status(404) => (
                format!("Not found (HTTP 404): {url}"),
                "The file path or the revision is probably wrong: check the file name and branch in the URL (a Hugging Face file URL looks like https://huggingface.co/owner/repo/resolve/main/model.gguf).".into(),
            ),
            Problem::Html => (
                "This is a web page, not a model file".into(),
                format!("{url} answered with HTML: probably a page URL. Use the file's download link (…/resolve/…)."),
            ),
            Problem::Offline => (
                format!("You are offline: {url} cannot be read"),
                "The browser reports no network connection; the model file is read from its server, so it shows once the network is back.".into(),
            ),
            _ => self.describe(url, hub, has_token),
        }
    }

    /// As [`Problem::describe`], for the command line: the remedies name its options and
    /// environment (`--token` or `HF_TOKEN`, `HF_ENDPOINT`, a repo id) instead of the page's
    /// controls, and a network failure gives the client's own reason.
    pub fn describe_cli(&self, url: &str, hub: &str, has_token: bool) -> (String, String) {
        let hub_origin = origin_of(hub).unwrap_or_else(|| hub.to_string());
        match self {
            Problem::Status(s @ (401 | 403)) if !has_token => (
                format!("Access refused (HTTP {s}) for {url}"),
                format!("The repository is probably gated or private: accept its licence on the Hub, create an access token with read access, and pass it with --token or HF_TOKEN (it is sent only to {hub_origin}; HF_ENDPOINT sets the Hub)."),
            ),
            Problem::Status(s @ (401 | 403)) => (
                format!("Access refused (HTTP {s}) for {url}"),
                format!("The token was not accepted: check that it is valid, has read access, and that you accepted the model's licence on its page. It is sent only to {hub_origin}."),
            ),
            Problem::Status(404) => (
                format!("Not found (HTTP 404): {url}"),
                "The file path or the revision is probably wrong: check the name and branch, or give just the repo id (owner/name) to list its model files.".into(),
            ),
            Problem::Html => (
                "This is a web page, not a model file".into(),
                format!("{url} answered with HTML: probably a page URL. Use the file's download link (…/resolve/…), or the repo id to list its files."),
            ),
            Problem::Network(why) => (
                format!("The request to {url} failed without an answer"),
                format!("{why}. The address or port may be wrong, or the server or network is down."),
            ),
            Problem::RedirectFailed(why) => (
                format!("Following the redirects of {url} failed"),
                format!("{why}: most likely a redirect loop."),
            ),
            _ => self.describe(url, hub, has_token),
        }
    }

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
                format!("Tried {TRIES} times (waiting {} ms, then {} ms); the server kept failing. A problem on the server's side: try again later.", RETRY_DELAYS_MS[0], RETRY_DELAYS_MS[1]),
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
            Problem::Offline => (
                format!("You are offline: {url} cannot be read"),
                "The browser reports no network connection. Remote models need the network; local files still open (drop them or choose them), since the page works offline after its first visit.".into(),
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
            Problem::Short { range, got } => (
                format!("The download of {} of {url} ended early", span(*range)),
                format!("Received {got} of the {} bytes asked: the server sent fewer bytes than announced, or the connection was closed. Try again; if it persists, the server or a proxy mishandles Range requests.", range_len(*range).unwrap_or(0)),
            ),
            Problem::Cut { range, got, why } => (
                format!("The download of {} of {url} was cut off", span(*range)),
                format!("The connection failed after {got} of the {} bytes asked ({why}): the server closed it mid-transfer or sent fewer bytes than announced. Try again.", range_len(*range).unwrap_or(0)),
            ),
            Problem::Excess { range } => (
                format!("The server sent more bytes than asked for {url}"),
                format!("Asked for {} ({} bytes); the answer carried more, so it was stopped and not used. The server or a proxy mishandles Range requests.", span(*range), range_len(*range).unwrap_or(0)),
            ),
            Problem::Stalled { range, got, timeout_ms } => (
                format!("Timed out reading {url}{}", range.map(|r| format!(" ({})", span(r))).unwrap_or_default()),
                format!("No progress for {} s (less than {MIN_PROGRESS_BYTES} bytes arrived in that time; {got} bytes received): the server is stalled or extremely slow. Stopped; try again later.", fmt_secs(*timeout_ms)),
            ),
            Problem::RedirectFailed(why) => (
                format!("Following the redirects of {url} failed"),
                format!("The address answers with a redirect, and the browser gave up following it ({why}). Most likely a redirect loop (browsers stop after 20 redirects), or the redirect leads to a server that does not allow other sites to read it (no CORS headers)."),
            ),
            Problem::RangeRefused { range, why } => (
                format!("The browser refused the server's answer to a byte range of {url}"),
                format!("Asked for {}; the request failed ({why}), while the same URL without a Range header answers. Most likely the server compressed the byte range (Content-Encoding: gzip; the browser refuses to decode a compressed range), or a proxy breaks ranged answers. Nothing of it was used; the server should not compress Range answers.", span(*range)),
            ),
            Problem::Encoded { range, coding } => (
                format!("The server compressed a byte range of {url} (Content-Encoding: {coding})"),
                format!("Asked for {}; with a content coding, Content-Range counts compressed bytes while the browser hands over decompressed ones, so no offset can be trusted and nothing was used. The server should not compress Range answers (model files do not compress anyway).", span(*range)),
            ),
            Problem::TooLarge(n) => (
                "The header (or index) is too large to read".into(),
                format!("It would take more than {n} bytes; this tool stops there so a model is never downloaded by accident."),
            ),
        }
    }
}

/// Milliseconds as seconds for messages: "30", "2.5".
fn fmt_secs(ms: u32) -> String {
    if ms % 1000 == 0 {
        (ms / 1000).to_string()
    } else {
        format!("{}", f64::from(ms) / 1000.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let (h, d) = Problem::Offline.describe("https://h/m.gguf", "h", false);
        assert!(h.contains("offline") && h.contains("https://h/m.gguf"));
        assert!(d.contains("local files still open"), "{d}");
    }

    #[test]
    fn embedded_messages_do_not_point_at_the_page_controls() {
        let page_words = ["Settings", "paste", "pick"];
        let problems = [
            Problem::Status(401),
            Problem::Status(403),
            Problem::Status(404),
            Problem::Status(416),
            Problem::Status(503),
            Problem::Html,
            Problem::Network("TypeError: Failed to fetch".into()),
            Problem::Offline,
        ];
        for p in &problems {
            for token in [false, true] {
                let (h, d) = p.describe_embedded("u", "https://huggingface.co", token);
                for w in page_words {
                    assert!(!h.contains(w) && !d.contains(w), "{p:?}: {h} {d}");
                }
            }
        }
        let (h, d) = Problem::Status(401).describe_embedded("u", "https://huggingface.co", false);
        assert!(h.contains("401") && d.contains("`token` option") && d.contains("huggingface.co"));
        // The page keeps its own wording.
        assert!(Problem::Status(401)
            .describe("u", "h", false)
            .1
            .contains("Settings"));
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
        assert!(p.describe("u", "h", false).1.contains("Tried 3 times"));
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
        let (h, d) = Problem::Stalled {
            range: Some((0, 9)),
            got: 12,
            timeout_ms: 2500,
        }
        .describe("http://x/m.gguf", "h", false);
        assert!(
            h.contains("http://x/m.gguf") && h.contains("bytes 0-9"),
            "{h}"
        );
        assert!(d.contains("2.5 s") && d.contains("12 bytes"), "{d}");
    }

    #[test]
    fn body_messages_name_url_and_range() {
        let (h, d) = Problem::Short {
            range: (100, 199),
            got: 50,
        }
        .describe("http://x/m", "h", false);
        assert!(
            h.contains("bytes 100-199") && h.contains("http://x/m") && d.contains("50 of the 100")
        );
        let (h, d) = Problem::Cut {
            range: (0, 9),
            got: 3,
            why: "TypeError".into(),
        }
        .describe("http://x/m", "h", false);
        assert!(h.contains("cut off") && h.contains("bytes 0-9") && d.contains("3 of the 10"));
        let (_, d) = Problem::Excess {
            range: (0, u64::MAX),
        }
        .describe("u", "h", false);
        assert!(d.contains("bytes 0-18446744073709551615 (0 bytes)"), "{d}");
        assert!(Problem::RedirectFailed("TypeError".into())
            .describe("u", "h", false)
            .1
            .contains("redirect loop"));
        let (h, d) = Problem::RangeRefused {
            range: (0, 9),
            why: "TypeError".into(),
        }
        .describe("http://x/m", "h", false);
        assert!(
            h.contains("http://x/m") && d.contains("bytes 0-9") && d.contains("Content-Encoding")
        );
        let (h, _) = Problem::Encoded {
            range: (0, 9),
            coding: "gzip".into(),
        }
        .describe("u", "h", false);
        assert!(h.contains("gzip"));
        assert_eq!(range_len((5, 4)), None);
        assert_eq!(range_len((0, u64::MAX)), None);
    }
}
