//! One place that words a failure for the person who meets it: the page, the
//! `<weightpeek-view>` element and the JavaScript API, or the command line.
//!
//! - [`Failure`]: a failure worded for a reader, a headline and its details (the page's and the
//!   element's error box), or one line ([`Failure::joined`]: a JavaScript `Error`'s message, the
//!   CLI's line, a status line).
//! - [`Front`]: which front end reads it; [`Audience`]: a front end with the Hub it reads from
//!   and whether it holds a token, which an HTTP problem's remedy names.
//! - [`http_failure`]: a server's answer ([`Problem`]) for one URL; [`open_failure`]: nothing
//!   could be opened ([`OpenError`]); [`partial_failure`]: the header stopped early
//!   ([`crate::format::Model::error`]).
//!
//! Where the front ends word a failure differently (the CLI's one line names the file and
//! quotes the error's own text; the page's box says what kind of problem it is; the element and
//! the API name no page controls), the difference is one `match` on [`Front`] here.

mod http;

use std::fmt;

use crate::format::{Error, ErrorKind};
use crate::open::read::OpenError;
use crate::open::recognise::file_name;
use crate::source::http::{Problem, Session, Wording};
use crate::source::SourceError;
use crate::text;

/// Where an input was given or a failure is read: its words follow the front end (the CLI's
/// flag, the page's box label, the JavaScript API's property path; the remedies each offers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Front {
    /// `weightpeek` flags: `--rows`, `--gpu`, `--ram`.
    Cli,
    /// The page's boxes: `rows`, `columns`, `GPU 0`, `RAM`, `KV type`.
    Page,
    /// The JavaScript API's arguments: `window.rows`, `devices.gpus[0]`, `options.kv`. Failures
    /// to open or read a file are worded alike for the API and the `<weightpeek-view>` element:
    /// files are given, not picked or dropped, and neither has a Settings box.
    Api,
}

/// A failure worded for a reader: what went wrong (`headline`) and why, or what to do
/// (`details`, possibly empty).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// What went wrong, in one short sentence (the error box's bold line).
    pub headline: String,
    /// The likely cause and the remedy, or the error's own text.
    pub details: String,
}

impl Failure {
    /// A failure with this headline and these details.
    pub fn new(headline: impl Into<String>, details: impl Into<String>) -> Failure {
        Failure {
            headline: headline.into(),
            details: details.into(),
        }
    }

    /// One line: `headline: details`, or the headline alone when there are no details.
    pub fn joined(&self) -> String {
        if self.details.is_empty() {
            self.headline.clone()
        } else {
            format!("{}: {}", self.headline, self.details)
        }
    }

    /// The error box's contents: `strong.error-head` (the headline) then `span.error-detail`
    /// (the details), as the page and the element show them.
    pub fn nodes(&self) -> [crate::view::node::Node; 2] {
        use crate::view::node::text;
        [
            text("strong", "error-head", &self.headline),
            text("span", "error-detail", &self.details),
        ]
    }
}

/// What the page, the element and the console say when the wasm code panics (a bug): the
/// panic's own text (`info`, its location and message) after a request to report it.
pub fn crash_text(info: &dyn fmt::Display) -> String {
    format!("weightpeek crashed (a bug; please report it): {info}")
}

impl fmt::Display for Failure {
    /// As [`Failure::joined`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.joined())
    }
}

impl From<(String, String)> for Failure {
    /// A `(headline, details)` pair, as the words of an HTTP problem ([`http_failure`]) are.
    fn from((headline, details): (String, String)) -> Failure {
        Failure { headline, details }
    }
}

/// Who reads a failure, and what an HTTP problem's remedy names: the Hub endpoint a token is
/// sent to, and whether a token was set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Audience<'a> {
    /// The front end.
    pub front: Front,
    /// The Hub endpoint (`https://huggingface.co`, or the one configured).
    pub hub: &'a str,
    /// Whether an access token was set.
    pub has_token: bool,
}

impl<'a> Audience<'a> {
    /// `front` reading the failures of `session`'s requests: its Hub endpoint, its token.
    pub fn of(front: Front, session: &'a Session) -> Audience<'a> {
        Audience {
            front,
            hub: &session.endpoint,
            has_token: session.token.is_some(),
        }
    }
}

/// A remote source's failures read by this front end ([`crate::source::http::Wording`]): one
/// line, `headline: details`, as [`http_failure`] words them ([`cli_words`] for the CLI).
impl Wording for Front {
    fn words(self, problem: &Problem, url: &str, hub: &str, has_token: bool) -> String {
        match self {
            Front::Cli => cli_words(problem, url, hub, has_token),
            Front::Page | Front::Api => self.failure(problem, url, hub, has_token).joined(),
        }
    }

    fn details(self, problem: &Problem, url: &str, hub: &str, has_token: bool) -> String {
        match self {
            Front::Cli => cli_words(problem, url, hub, has_token),
            Front::Page | Front::Api => self.failure(problem, url, hub, has_token).details,
        }
    }
}

impl Front {
    /// [`http_failure`] for this front end, reading the Hub `hub` with or without a token.
    fn failure(self, problem: &Problem, url: &str, hub: &str, has_token: bool) -> Failure {
        let to = Audience {
            front: self,
            hub,
            has_token,
        };
        http_failure(problem, url, &to)
    }
}

/// `problem` reading `url`, worded for `to`: the page names its Settings box and repository
/// picker, the element and the API their `token` option and a file's download URL, the CLI
/// its `--token`, `HF_TOKEN` and `HF_ENDPOINT` (and a network failure's own reason).
pub fn http_failure(problem: &Problem, url: &str, to: &Audience<'_>) -> Failure {
    match to.front {
        Front::Page => http::page(problem, url, to.hub, to.has_token),
        Front::Api => http::embedded(problem, url, to.hub, to.has_token),
        Front::Cli => http::cli(problem, url, to.hub, to.has_token),
    }
    .into()
}

/// `problem` reading `url` in the CLI's words, as one line (`headline: details`): what the
/// CLI's reader (`source::net::Client`) says of a failed read. `hub`: the Hub endpoint;
/// `has_token`: whether a token was set.
pub fn cli_words(problem: &Problem, url: &str, hub: &str, has_token: bool) -> String {
    let (h, d) = http::cli(problem, url, hub, has_token);
    format!("{h}: {d}")
}

/// At most this many file names are listed in one message; the rest are counted.
const LISTED_NAMES: usize = 12;

/// `a, b, c` of the file names in `names` (escaped), at most [`LISTED_NAMES`], then
/// `and N more`.
fn name_list(names: &[String]) -> String {
    let shown: Vec<String> = names
        .iter()
        .take(LISTED_NAMES)
        .map(|n| text::escape(file_name(n)))
        .collect();
    let more = names.len().saturating_sub(shown.len());
    if more > 0 {
        format!(
            "{} and {} more",
            shown.join(", "),
            text::thousands(more as u64)
        )
    } else {
        shown.join(", ")
    }
}

/// `name could not be opened.`, with the error's text as the details.
fn not_opened(name: &str, error: &str) -> Failure {
    Failure::new(
        format!("{} could not be opened.", text::escape(name)),
        error,
    )
}

/// Why nothing could be opened ([`crate::open::read::open`] failed), worded for `to`. `names`:
/// the files given. The page's and the API's words are a headline that says what to do and
/// details (names escaped; the API's and the element's files are "given", not picked or
/// dropped; an HTTP problem as [`http_failure`] words it); the CLI's are one line, the error's
/// own text (escaped by the CLI when it prints it; a remote file's HTTP problem was worded for
/// the CLI by its reader, `source::net`).
pub fn open_failure(error: &OpenError, names: &[String], to: &Audience<'_>) -> Failure {
    let add = match to.front {
        Front::Cli => return Failure::new(error.to_string(), ""),
        Front::Page => "pick or drop them together",
        Front::Api => "give them together",
    };
    match error {
        OpenError::NothingToOpen { .. } if names.is_empty() => {
            Failure::new("Nothing to open", "No file was named.")
        }
        OpenError::NothingToOpen { .. } => Failure::new(
            if names.len() == 1 {
                format!("{} is not a model file", name_list(names))
            } else {
                "None of these files is a model file".into()
            },
            format!(
                "Given: {}. Open a .gguf or .safetensors file, the parts of a split set, or a model.safetensors.index.json with its shards (a config.json only comes along with a model).",
                name_list(names)
            ),
        ),
        OpenError::Source {
            error: SourceError::Http { url, problem, .. },
            ..
        } => http_failure(problem, url, to),
        OpenError::Source { name, error } => not_opened(name, &error.to_string()),
        OpenError::NotAModel { name, error } => not_opened(name, &error.to_string()),
        OpenError::BadIndex { name, why } => Failure::new(
            "The index file cannot be read",
            format!("{}: {}", text::escape(name), text::escape(&why.to_string())),
        ),
        OpenError::IndexAlone { name, shards } => Failure::new(
            format!(
                "{} is an index: its shard files are needed with it",
                text::escape(file_name(name))
            ),
            format!(
                "It names {} shard file{}; {add} with the index: {}.",
                text::thousands(shards.len() as u64),
                if shards.len() == 1 { "" } else { "s" },
                name_list(shards)
            ),
        ),
        OpenError::NoPart { failures } => Failure::new(
            "None of the files of the set could be read",
            failures
                .iter()
                .map(|(n, why)| format!("{}: {}", text::escape(n), why))
                .collect::<Vec<_>>()
                .join("; "),
        ),
        OpenError::Cancelled => http_failure(&Problem::Cancelled, "", to),
    }
}

/// The header of `name` stopped early ([`crate::format::Model::error`]; what was read before
/// is shown), worded for `front`. The page's and the API's words are a headline that says what
/// kind of problem it is and the details (field, byte offset, why; the page shows the file's
/// name elsewhere); the CLI's are `name: the header could not be read to the end` and the
/// error's text (escaped by the CLI when it prints them).
pub fn partial_failure(error: &Error, name: &str, front: Front) -> Failure {
    if front == Front::Cli {
        return Failure::new(
            format!("{name}: the header could not be read to the end"),
            error.to_string(),
        );
    }
    let head = match &error.kind {
        ErrorKind::UnsupportedVersion(_) => {
            "This GGUF version is not supported, so its header could not be read."
        }
        ErrorKind::Truncated { .. } => {
            "This file is cut short: its header could not be read to the end."
        }
        ErrorKind::Source(_) => "Reading the file failed before its header was complete.",
        ErrorKind::TooDeep(_) | ErrorKind::Invalid(_) => {
            "This file's header holds a value this tool refuses, so it could not be read to the end."
        }
        _ => "This file is damaged or cut short: its header could not be read to the end.",
    };
    Failure::new(
        head,
        format!("{error}. Everything shown below was read before that point."),
    )
}

#[cfg(test)]
mod tests {
    //! The expected texts are those the page, the API and the CLI gave before this module
    //! existed (`view::facts::open_failure`, `partial_error_text`, the CLI's own lines), read
    //! from the code of that time run on the same values.

    use super::*;
    use crate::open::native::LocalOpener;

    #[test]
    fn the_error_box_holds_the_headline_then_the_details_as_text() {
        let [head, detail] = Failure::new("No such tensor", "<b>x</b> is missing").nodes();
        assert_eq!((head.tag, head.class.as_str()), ("strong", "error-head"));
        assert_eq!(head.text.as_deref(), Some("No such tensor"));
        assert_eq!(
            (detail.tag, detail.class.as_str()),
            ("span", "error-detail")
        );
        assert_eq!(detail.text.as_deref(), Some("<b>x</b> is missing"));
        assert_eq!(
            crash_text(&"panicked at src/x.rs:1:2"),
            "weightpeek crashed (a bug; please report it): panicked at src/x.rs:1:2"
        );
    }
    use crate::open::read::{open, Options};
    use crate::source::net::Client;
    use crate::source::test_sources::Failing;
    use crate::source::{block_on, block_on_ready, parse_bytes, read_model};
    use crate::source::{ReadPolicy, SourceError};

    const SAMPLE: &[u8] = include_bytes!("../../../www/sample.gguf");
    const HUB: &str = "https://huggingface.co";
    const URL: &str = "https://huggingface.co/o/r/resolve/main/x.gguf";

    fn page() -> Audience<'static> {
        Audience {
            front: Front::Page,
            hub: HUB,
            has_token: false,
        }
    }

    fn api() -> Audience<'static> {
        Audience {
            front: Front::Api,
            ..page()
        }
    }

    fn cli() -> Audience<'static> {
        Audience {
            front: Front::Cli,
            ..page()
        }
    }

    fn n(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    /// The sample cut inside its tensor infos: a truncated file's error.
    fn cut_short() -> Error {
        let whole = parse_bytes(SAMPLE).unwrap();
        let part = parse_bytes(&SAMPLE[..(whole.header_size as usize) - 200]).unwrap();
        part.error.unwrap()
    }

    /// A 404 as the CLI's reader (`source::net`) makes it.
    fn http_404() -> SourceError {
        let client = Client::new(HUB.into(), None, cli_words);
        SourceError::Http {
            url: URL.into(),
            problem: Problem::Status(404),
            text: client.describe(&Problem::Status(404), URL),
        }
    }

    #[test]
    fn a_failure_joins_into_one_line() {
        let f = Failure::new("Nothing to open", "No file was named.");
        assert_eq!(f.joined(), "Nothing to open: No file was named.");
        assert_eq!(f.to_string(), f.joined());
        assert_eq!(Failure::new("Cancelled", "").joined(), "Cancelled");
        assert_eq!(
            Failure::from(("a".to_string(), "b".to_string())),
            Failure::new("a", "b")
        );
    }

    #[test]
    fn a_truncated_file_for_the_page_the_api_and_the_cli() {
        let e = cut_short();
        let why = "tensor[33] \"blk.1.ffn_down.weight\" dims at byte 23373: the file ends at byte 23416 but this field needs bytes up to 23422 (truncated or damaged file)";
        assert_eq!(e.to_string(), why);
        let page = partial_failure(&e, "cut.gguf", Front::Page);
        assert_eq!(
            page,
            Failure::new(
                "This file is cut short: its header could not be read to the end.",
                format!("{why}. Everything shown below was read before that point."),
            )
        );
        assert_eq!(partial_failure(&e, "cut.gguf", Front::Api), page);
        // `weightpeek cut.gguf` warns `weightpeek: ` and this line; `weightpeek scan` puts
        // the details in brackets.
        let cli = partial_failure(&e, "cut.gguf", Front::Cli);
        assert_eq!(
            cli.joined(),
            format!("cut.gguf: the header could not be read to the end: {why}")
        );
        assert_eq!(cli.details, why);
        // The other kinds of a header that stopped early.
        let v = Error::new("version", 4, ErrorKind::UnsupportedVersion(4));
        assert_eq!(
            partial_failure(&v, "v.gguf", Front::Page).headline,
            "This GGUF version is not supported, so its header could not be read."
        );
        let o = Error::new("x", 5, ErrorKind::Overflow("y"));
        assert!(partial_failure(&o, "", Front::Page)
            .details
            .contains("at byte 5"));
    }

    #[test]
    fn a_file_that_cannot_be_opened_for_the_page_and_the_cli() {
        // An empty file, opened as the CLI opens it: the error's own line.
        let dir = std::env::temp_dir().join(format!("weightpeek-errors-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let empty = dir.join("empty.gguf").display().to_string();
        std::fs::write(&empty, b"").unwrap();
        let names = vec![empty.clone()];
        let no = Options {
            wants_config: None,
            tensor_data: None,
        };
        let e = block_on(open(&LocalOpener, &names, no)).err().unwrap();
        assert_eq!(
            open_failure(&e, &names, &cli()).joined(),
            format!("{empty}: file start at byte 0: the file is empty (0 bytes)")
        );
        let _ = std::fs::remove_dir_all(&dir);
        // A read that failed before the format was known.
        let policy = ReadPolicy {
            first_read: 64,
            ..ReadPolicy::LOCAL
        };
        let error = block_on_ready(read_model(&mut Failing(1000), &policy)).unwrap_err();
        let e = OpenError::NotAModel {
            name: "f.gguf".into(),
            error,
        };
        let why = "read at byte 0: reading the file failed: reading 64 bytes at byte 0 failed: Input/output error (os error 5)";
        assert_eq!(
            open_failure(&e, &n(&["f.gguf"]), &page()),
            Failure::new("f.gguf could not be opened.", why)
        );
        assert_eq!(
            open_failure(&e, &n(&["f.gguf"]), &cli()).joined(),
            format!("f.gguf: {why}")
        );
    }

    #[test]
    fn an_http_failure_for_the_page_the_api_and_the_cli() {
        let e = OpenError::Source {
            name: "x.gguf".into(),
            error: http_404(),
        };
        let names = n(&["x.gguf"]);
        let head = format!("Not found (HTTP 404): {URL}");
        assert_eq!(
            open_failure(&e, &names, &page()),
            Failure::new(
                &head,
                "The file path or the revision is probably wrong: check the name and branch, or paste just the repo id (owner/name) to pick from its files."
            )
        );
        assert_eq!(
            open_failure(&e, &names, &api()),
            Failure::new(
                &head,
                "The file path or the revision is probably wrong: check the file name and branch in the URL (a Hugging Face file URL looks like https://huggingface.co/owner/repo/resolve/main/model.gguf)."
            )
        );
        let cli_why = "The file path or the revision is probably wrong: check the name and branch, or give just the repo id (owner/name) to list its model files.";
        assert_eq!(
            open_failure(&e, &names, &cli()).joined(),
            format!("x.gguf: {head}: {cli_why}")
        );
        // The CLI's reader words the problem as `http_failure` does for the CLI.
        assert_eq!(
            http_failure(&Problem::Status(404), URL, &cli()).joined(),
            http_404().to_string()
        );
    }

    #[test]
    fn a_source_error_in_a_format_error_reads_as_before() {
        let e = Error::new("read", 4096, http_404().into());
        let why = format!("Not found (HTTP 404): {URL}: The file path or the revision is probably wrong: check the name and branch, or give just the repo id (owner/name) to list its model files.");
        assert_eq!(
            e.to_string(),
            format!("read at byte 4096: reading the file failed: {why}")
        );
        // Kept typed: the status and the URL are still there.
        let source = SourceError::of(&e).unwrap();
        assert_eq!(source.status(), Some(404));
        assert_eq!(*source, http_404());
        assert_eq!(e, e.clone());
        assert_eq!(
            partial_failure(&e, "x.gguf", Front::Page),
            Failure::new(
                "Reading the file failed before its header was complete.",
                format!("read at byte 4096: reading the file failed: {why}. Everything shown below was read before that point.")
            )
        );
    }

    #[test]
    fn open_failures_say_what_to_do() {
        let shards = n(&[
            "model-00001-of-00002.safetensors",
            "model-00002-of-00002.safetensors",
        ]);
        let f = open_failure(
            &OpenError::IndexAlone {
                name: "d/model.safetensors.index.json".into(),
                shards: shards.clone(),
            },
            &n(&["d/model.safetensors.index.json"]),
            &page(),
        );
        assert_eq!(
            f.headline,
            "model.safetensors.index.json is an index: its shard files are needed with it"
        );
        assert_eq!(f.details, "It names 2 shard files; pick or drop them together with the index: model-00001-of-00002.safetensors, model-00002-of-00002.safetensors.");
        // Long lists are cut; the element's and the API's wording names no page controls.
        let many: Vec<String> = (1..=163)
            .map(|i| format!("m-{i:05}-of-00163.safetensors"))
            .collect();
        let d = open_failure(
            &OpenError::IndexAlone {
                name: "i.index.json".into(),
                shards: many,
            },
            &[],
            &api(),
        )
        .details;
        assert!(d.starts_with("It names 163 shard files; give them together with the index: m-00001-of-00163.safetensors, "));
        assert!(
            d.ends_with("m-00012-of-00163.safetensors and 151 more."),
            "{d}"
        );
        assert_eq!(
            open_failure(&OpenError::Cancelled, &[], &page()).headline,
            "Cancelled"
        );
        let f = open_failure(
            &OpenError::NothingToOpen {
                ignored: n(&["small.json"]),
            },
            &n(&["small.json"]),
            &page(),
        );
        assert_eq!(f.headline, "small.json is not a model file");
        assert!(f.details.starts_with("Given: small.json. Open a .gguf"));
        assert_eq!(
            open_failure(&OpenError::NothingToOpen { ignored: vec![] }, &[], &page()).headline,
            "Nothing to open"
        );
        let e = Error::new("magic", 0, ErrorKind::Overflow("m"));
        let f = open_failure(
            &OpenError::NotAModel {
                name: "a\u{202e}.bin".into(),
                error: e,
            },
            &[],
            &page(),
        );
        assert_eq!(f.headline, "a\\u{202e}.bin could not be opened.");
        let f = open_failure(
            &OpenError::NoPart {
                failures: vec![("a.gguf".into(), "gone".into())],
            },
            &[],
            &page(),
        );
        assert_eq!(
            f,
            Failure::new("None of the files of the set could be read", "a.gguf: gone")
        );
    }

    #[test]
    fn a_remote_source_words_its_failures_for_its_front_end() {
        use crate::source::http::Session;
        let session = Session::new(HUB.into(), Some("t".into()), Box::new(|| {}), 3000);
        let to = Audience::of(Front::Api, &session);
        assert_eq!(
            to,
            Audience {
                front: Front::Api,
                hub: HUB,
                has_token: true
            }
        );
        let refused = Problem::Status(401);
        assert_eq!(
            Front::Page.words(&refused, URL, HUB, false),
            format!(
                "Access refused (HTTP 401) for {URL}: The repository is probably gated or \
                 private: accept its licence on the Hub, create an access token with read \
                 access, and enter it under Settings. The token is sent only to \
                 https://huggingface.co."
            )
        );
        // The element and the API name no Settings box; the CLI its own line.
        let api = Front::Api.words(&refused, URL, HUB, false);
        assert_eq!(
            api,
            http_failure(
                &refused,
                URL,
                &Audience {
                    has_token: false,
                    ..to
                }
            )
            .joined()
        );
        assert!(!api.contains("Settings"), "{api}");
        assert_eq!(
            Front::Cli.words(&refused, URL, HUB, true),
            cli_words(&refused, URL, HUB, true)
        );
        // A preview that cannot be read says the details alone (the CLI its one line).
        let page_to = Audience {
            front: Front::Page,
            hub: HUB,
            has_token: false,
        };
        let page = http_failure(&refused, URL, &page_to);
        assert_eq!(Front::Page.details(&refused, URL, HUB, false), page.details);
        assert_ne!(page.details, page.joined());
        assert_eq!(
            Front::Cli.details(&refused, URL, HUB, true),
            cli_words(&refused, URL, HUB, true)
        );
    }

    #[test]
    fn http_problems_become_source_errors_with_their_words() {
        use crate::source::http::{too_large, worded};
        use crate::source::SourceError;
        let to = Audience {
            front: Front::Page,
            hub: HUB,
            has_token: false,
        };
        let p = Problem::Network("reset".into());
        let e = worded(Front::Page, p.clone(), URL, HUB, false);
        let text = http_failure(&p, URL, &to).joined();
        let http = SourceError::Http {
            url: URL.into(),
            problem: p.clone(),
            text,
        };
        assert_eq!(e, http);
        assert_eq!(too_large(&p), None);
        // Too large is a size refusal for a file read whole, an HTTP failure otherwise.
        let big = Problem::TooLarge(10);
        let refused = SourceError::TooLarge {
            size: None,
            cap: 10,
        };
        assert_eq!(too_large(&big), Some(refused));
        assert!(matches!(
            worded(Front::Page, big, URL, HUB, false),
            SourceError::Http {
                problem: Problem::TooLarge(10),
                ..
            }
        ));
    }
}
