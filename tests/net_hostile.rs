//! The CLI's HTTP source against a misbehaving server (promise 3: every byte from a server is
//! untrusted): the same refusals and messages as the page — a 206 for other bytes, a body cut
//! short, more bytes than asked, a compressed range, an HTML page, a failing server (tried
//! exactly 3 times), a redirect loop — each exits 2 with the likely cause; a server without
//! Range support still serves a small file's header.

mod common;

use std::path::Path;

use common::range_server::Server;

fn cli(url: &str) -> (i32, String, String) {
    common::run_cli(&[url, "--json"], None, None)
}

#[test]
fn hostile_servers_are_refused_with_the_likely_cause() {
    let www = Path::new(env!("CARGO_MANIFEST_DIR")).join("www");
    let server = Server::hostile(&www);
    for (mode, words) in [
        ("wrong-range", "The server sent other bytes than asked"),
        ("short", "was cut off"),
        ("long", "The server sent more bytes than asked"),
        ("gzip", "compressed a byte range"),
        ("html", "This is a web page, not a model file"),
        ("fail", "The server failed (HTTP 503)"),
        ("loop", "Following the redirects"),
    ] {
        let url = format!("{}/{mode}/sample.gguf", server.url);
        let before = server.requests().len();
        let (code, out, err) = cli(&url);
        assert_eq!(code, 2, "{mode}: {out}{err}");
        assert!(err.contains(words), "{mode}: {err}");
        assert!(
            out.is_empty(),
            "{mode}: nothing printed as if it were a model"
        );
        if mode == "fail" {
            let tries = server.requests().len() - before;
            assert_eq!(tries, 3, "a 5xx is tried 3 times");
        }
    }
    // No Range support: a file smaller than the first read is read whole, once.
    let url = format!("{}/norange/sample.gguf", server.url);
    let before = server.requests().len();
    let (code, out, err) = cli(&url);
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    let local =
        weightpeek::source::parse_bytes(&std::fs::read(www.join("sample.gguf")).unwrap()).unwrap();
    assert_eq!(j["tensor_count"].as_u64(), Some(local.tensor_count));
    assert_eq!(server.requests().len() - before, 1);
    // Warned of, in the page's words.
    let warning = weightpeek::open::set::NO_RANGE_WARNING;
    assert!(out.contains(warning), "{out}");
}

#[test]
fn a_whole_file_past_the_cap_is_refused_as_too_large_before_its_body() {
    let www = Path::new(env!("CARGO_MANIFEST_DIR")).join("www");
    let server = Server::hostile(&www);
    let url = format!("{}/huge/model.safetensors.index.json", server.url);
    let (code, out, err) = cli(&url);
    assert_eq!(code, 2, "{out}{err}");
    assert!(out.is_empty(), "{out}");
    // The size refusal, as the page says it (not a failed request).
    let cap = weightpeek::source::http::MAX_WHOLE_FILE;
    let refused = weightpeek::source::SourceError::TooLarge { size: None, cap };
    assert!(err.contains(&refused.to_string()), "{err}");
    assert_eq!(
        server.requests().len(),
        1,
        "one request, refused by its Content-Length"
    );
}
