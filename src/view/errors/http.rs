//! An HTTP problem ([`Problem`]) in words, for each front end ([`super::http_failure`] picks
//! one): a headline and details that say the likely cause and what to do. The page names its
//! Settings box and repository picker, the element and the JavaScript API their `token` option
//! and a file's download URL, the CLI its `--token`, `HF_TOKEN` and `HF_ENDPOINT`. The source
//! layer only says what went wrong (`source::http::Problem`); the words are chosen here.

use crate::source::http::{
    origin_of, range_len, Problem, MIN_PROGRESS_BYTES, RETRY_DELAYS_MS, TRIES,
};

/// Inclusive byte range `a-b` as text.
fn span(r: (u64, u64)) -> String {
    format!("bytes {}-{}", r.0, r.1)
}

/// As [`page`], for the `<weightpeek-view>` element and the JavaScript API,
/// which have no Settings box and no repository picker: the remedies name what those
/// offer instead (the API's `token` option, a file's download URL).
pub(super) fn embedded(
    problem: &Problem,
    url: &str,
    hub: &str,
    has_token: bool,
) -> (String, String) {
    let hub_origin = origin_of(hub).unwrap_or_else(|| hub.to_string());
    match problem {
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
        _ => page(problem, url, hub, has_token),
    }
}

/// As [`page`], for the command line: the remedies name its options and
/// environment (`--token` or `HF_TOKEN`, `HF_ENDPOINT`, a repo id) instead of the page's
/// controls, and a network failure gives the client's own reason.
pub(super) fn cli(problem: &Problem, url: &str, hub: &str, has_token: bool) -> (String, String) {
    let hub_origin = origin_of(hub).unwrap_or_else(|| hub.to_string());
    match problem {
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
        _ => page(problem, url, hub, has_token),
    }
}

/// (headline, details: likely cause and what to do) for the error box. `url` is what was
/// read, `hub` the configured Hub endpoint, `has_token` whether a token was set.
pub(super) fn page(problem: &Problem, url: &str, hub: &str, has_token: bool) -> (String, String) {
    let hub_origin = origin_of(hub).unwrap_or_else(|| hub.to_string());
    match problem {
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
    fn messages_name_cause_and_remedy() {
        let (h, d) = page(&Problem::Status(401), "u", "https://huggingface.co/", false);
        assert!(h.contains("401") && d.contains("token") && d.contains("https://huggingface.co"));
        let (_, d) = page(
            &Problem::Network("TypeError: Failed to fetch".into()),
            "u",
            "h",
            false,
        );
        assert!(d.contains("CORS"));
        assert!(page(&Problem::Html, "u", "h", false).1.contains("page URL"));
        let (h, d) = page(&Problem::Offline, "https://h/m.gguf", "h", false);
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
                let (h, d) = embedded(p, "u", "https://huggingface.co", token);
                for w in page_words {
                    assert!(!h.contains(w) && !d.contains(w), "{p:?}: {h} {d}");
                }
            }
        }
        let (h, d) = embedded(&Problem::Status(401), "u", "https://huggingface.co", false);
        assert!(h.contains("401") && d.contains("`token` option") && d.contains("huggingface.co"));
        // The page keeps its own wording.
        assert!(page(&Problem::Status(401), "u", "h", false)
            .1
            .contains("Settings"));
    }

    #[test]
    fn a_stalled_read_names_its_range_time_and_bytes() {
        let (h, d) = page(
            &Problem::Stalled {
                range: Some((0, 9)),
                got: 12,
                timeout_ms: 2500,
            },
            "http://x/m.gguf",
            "h",
            false,
        );
        assert!(
            h.contains("http://x/m.gguf") && h.contains("bytes 0-9"),
            "{h}"
        );
        assert!(d.contains("2.5 s") && d.contains("12 bytes"), "{d}");
    }

    #[test]
    fn a_5xx_says_it_was_tried_three_times() {
        assert!(page(&Problem::Status(503), "u", "h", false)
            .1
            .contains("Tried 3 times"));
    }

    #[test]
    fn the_cli_names_its_options() {
        let (h, d) = cli(&Problem::Status(401), "u", "https://huggingface.co", false);
        assert!(
            h.contains("401") && d.contains("--token") && d.contains("HF_TOKEN"),
            "{d}"
        );
        let (_, d) = cli(
            &Problem::Network("connection refused".into()),
            "u",
            "h",
            false,
        );
        assert!(
            d.starts_with("connection refused.") && !d.contains("CORS"),
            "{d}"
        );
        // What the CLI does not word itself reads as the page's.
        assert_eq!(
            cli(&Problem::Status(416), "u", "h", false),
            page(&Problem::Status(416), "u", "h", false)
        );
    }

    #[test]
    fn body_messages_name_url_and_range() {
        let (h, d) = page(
            &Problem::Short {
                range: (100, 199),
                got: 50,
            },
            "http://x/m",
            "h",
            false,
        );
        assert!(
            h.contains("bytes 100-199") && h.contains("http://x/m") && d.contains("50 of the 100")
        );
        let (h, d) = page(
            &Problem::Cut {
                range: (0, 9),
                got: 3,
                why: "TypeError".into(),
            },
            "http://x/m",
            "h",
            false,
        );
        assert!(h.contains("cut off") && h.contains("bytes 0-9") && d.contains("3 of the 10"));
        let (_, d) = page(
            &Problem::Excess {
                range: (0, u64::MAX),
            },
            "u",
            "h",
            false,
        );
        assert!(d.contains("bytes 0-18446744073709551615 (0 bytes)"), "{d}");
        assert!(page(
            &Problem::RedirectFailed("TypeError".into()),
            "u",
            "h",
            false
        )
        .1
        .contains("redirect loop"));
        let (h, d) = page(
            &Problem::RangeRefused {
                range: (0, 9),
                why: "TypeError".into(),
            },
            "http://x/m",
            "h",
            false,
        );
        assert!(
            h.contains("http://x/m") && d.contains("bytes 0-9") && d.contains("Content-Encoding")
        );
        let (h, _) = page(
            &Problem::Encoded {
                range: (0, 9),
                coding: "gzip".into(),
            },
            "u",
            "h",
            false,
        );
        assert!(h.contains("gzip"));
        assert_eq!(range_len((5, 4)), None);
        assert_eq!(range_len((0, u64::MAX)), None);
    }
}
