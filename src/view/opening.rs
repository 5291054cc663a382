//! Opening a model, as the page, the element and the API say it, without the browser: which
//! file or repository a pasted or attribute URL names ([`url_named`], [`url_file`]), the name shown while files are read
//! ([`display_name`]), names of unnamed Blobs ([`blob_name`]), the status line of a header
//! being read ([`reading_status`]), and why an
//! opening gave nothing ([`LoadError`]). `open::browser` turns names into bytes.

use crate::format::registry;
use crate::open::read::OpenError;
use crate::open::recognise::{self, file_name, Target};
use crate::remote::hub::{endpoint_or_default, parse_input, Repo, Target as Input};
use crate::text;
use crate::view::errors::{open_failure, Audience, Failure};
use crate::view::js::{is_object, text_of, truthy, JsData, JsKind};
use crate::view::report::Carried;

/// Why a model could not be opened: left to the full web module (the lean module only), or
/// a failure worded for the reader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadError {
    /// A format the lean web module leaves to the full one
    /// ([`crate::open::read::OpenError::is_lean`]): the element then loads the full module.
    Lean,
    /// The failure, as [`crate::view::errors::open_failure`] words it.
    Failed(Failure),
}

impl LoadError {
    /// Whether the model is left to the full module.
    pub fn is_lean(&self) -> bool {
        matches!(self, LoadError::Lean)
    }
}

impl LoadError {
    /// Why opening the files `names` failed with `error`, worded for `to` (an opening that was
    /// cancelled is [`OpenError::Cancelled`] by then: `open::browser` says so whatever failed);
    /// a lean module's refusal is [`LoadError::Lean`].
    pub fn of(error: &OpenError, names: &[String], to: &Audience<'_>) -> LoadError {
        if error.is_lean() {
            return LoadError::Lean;
        }
        LoadError::Failed(open_failure(error, names, to))
    }
}

impl From<Failure> for LoadError {
    fn from(f: Failure) -> LoadError {
        LoadError::Failed(f)
    }
}

impl From<LoadError> for Failure {
    /// The words for the reader (a lean module's refusal says who reads the file).
    fn from(e: LoadError) -> Failure {
        match e {
            LoadError::Lean => Failure::new(
                "Read by the full module",
                format!(
                    "{} files are read by weightpeek's full module.",
                    registry::full_only_labels_text("and")
                ),
            ),
            LoadError::Failed(f) => f,
        }
    }
}

/// The name to show while files named `names` are being opened, before anything is read,
/// as [`crate::open::read::open`] will name the result: the model file, the index,
/// `first part (N parts)`, or the part itself when it is the only one to be read (`alone`:
/// local files, where nothing beside the files given is found).
pub fn display_name(names: &[String], alone: bool) -> String {
    match recognise::plan(names).target {
        Target::Single(n) | Target::Index(n) => n,
        Target::Parts { names: parts, .. } => {
            let given: Vec<&String> = names
                .iter()
                .filter(|n| parts.iter().any(|p| file_name(p) == file_name(n)))
                .collect();
            match given.as_slice() {
                [one] if alone => one.to_string(),
                _ => format!(
                    "{} ({} parts)",
                    parts.first().map(String::as_str).unwrap_or(""),
                    parts.len()
                ),
            }
        }
        Target::Nothing => names.first().cloned().unwrap_or_default(),
    }
}

/// Local files picked or dropped together, given as (name, size in bytes): the name to show
/// while they are read ([`display_name`], `alone`) and their total size (saturating), which the
/// loading and progress texts count against ([`crate::view::facts::loading_text`]).
pub fn local_given<'a>(files: impl IntoIterator<Item = (&'a str, u64)>) -> (String, u64) {
    let (mut names, mut size) = (Vec::new(), 0u64);
    for (name, bytes) in files {
        names.push(name.to_string());
        size = size.saturating_add(bytes);
    }
    (display_name(&names, true), size)
}

/// What a pasted text names: a repository (the page lists its files), or one file as
/// (name, URL), the name being its path in the repository, or the URL's last segment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Named {
    /// A Hub repository (`owner/name`, its page, a revision of it).
    Repo(Repo),
    /// One file: (name, URL).
    File(String, String),
}

/// What `text` (the page's URL box, a Hub URL in any of its forms, any `http(s)` file URL, or
/// a repository id) names, with this Hub `endpoint`. Errors: it is not something to open.
pub fn url_named(text: &str, endpoint: &str) -> Result<Named, Failure> {
    match parse_input(text, endpoint) {
        Err(e) => Err(Failure::new("This is not something to open", e.0)),
        Ok(Input::Repo(repo)) => Ok(Named::Repo(repo)),
        Ok(Input::File { url, path, .. }) => {
            let name = path.unwrap_or_else(|| file_name(&url).to_string());
            Ok(Named::File(name, url))
        }
    }
}

/// The file `text` names ([`url_named`]) as (name, URL). A repository id is refused here:
/// the element, the API and Compare need a file. Errors: the text is not a URL of a file.
pub fn url_file(text: &str, endpoint: &str) -> Result<(String, String), Failure> {
    match url_named(text, endpoint)? {
        Named::Repo(repo) => Err(Failure::new(
            format!("{} is a repository, not a file", repo.id),
            format!(
                "Name one file of it: a {} file, or a model.safetensors.index.json URL.",
                registry::labels_text("or")
            ),
        )),
        Named::File(name, url) => Ok((name, url)),
    }
}

/// Whether `text` (what the page's URL box or its address's `url=` holds) names one remote
/// file an element can show as its `src` with this `endpoint` (blank: huggingface.co): a Hub
/// file URL in any of its forms or an `http(s)` file URL ([`url_file`]); not a repository (the
/// page lists those) or something that is no URL. The page's start-up (www/page.js) shows
/// such a file in the lean module while the full one loads.
pub fn names_file(text: &str, endpoint: &str) -> bool {
    url_file(text, &endpoint_or_default(Some(endpoint))).is_ok()
}

/// URLs given together (the API's array) as (name, URL), each named by its last segment.
pub fn url_files(urls: &[String]) -> Vec<(String, String)> {
    urls.iter()
        .map(|u| (file_name(u).to_string(), u.clone()))
        .collect()
}

/// The name of the `i`-th (from 0) of Blobs given together: its own (a `File`'s), else
/// `blob`, `blob 2`, …
pub fn blob_name(own: Option<String>, i: usize) -> String {
    match (own, i) {
        (Some(n), _) => n,
        (None, 0) => "blob".to_string(),
        (None, i) => format!("blob {}", i.saturating_add(1)),
    }
}

/// The status line while the header of `name` (control characters made visible) is read; with `counts` (requests, bytes
/// received) once requests were made.
pub fn reading_status(name: &str, counts: Option<(u32, u64)>) -> String {
    let name = text::escape(name);
    match counts {
        None => format!("Reading the header of {name}…"),
        Some((requests, bytes)) => format!(
            "Reading the header of {name}… {requests} request{}, {} received",
            if requests == 1 { "" } else { "s" },
            text::bytes(bytes)
        ),
    }
}

/// Where the page's bundled sample is served (copied into dist by Trunk), and its name.
pub const SAMPLE_URL: &str = "sample.gguf";

/// The page's status line while it fetches the bundled sample.
pub const SAMPLE_STATUS: &str = "Fetching the bundled sample…";

/// Why a fetch gave no body: `the server answered STATUS TEXT` (`404 Not Found`).
pub fn server_answered(status: u16, status_text: &str) -> String {
    format!("the server answered {status} {status_text}")
}

/// The page's failure when the bundled sample could not be fetched, `details` saying why (the
/// browser's error text, or [`server_answered`]).
pub fn sample_failure(details: &str) -> Failure {
    Failure::new("The bundled sample could not be fetched.", details)
}

/// What the page's early script (www/early.js, `window.__wpEarly`) kept while the modules
/// loaded, as the app finds it at start-up.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Early {
    /// `files`: how many files were picked or dropped, when it is an array (`None` when not).
    pub files: Option<usize>,
    /// `url`: the URL submitted (empty for none).
    pub url: String,
    /// `sample`: the bundled sample was asked for.
    pub sample: bool,
}

/// What the app opens of an [`Early`] input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EarlyOpen {
    /// The files given.
    Files,
    /// The URL given (submitted again, now to the app's own listener).
    Url(String),
    /// The bundled sample.
    Sample,
    /// Nothing (also for an empty array of files, which hides a URL given with it).
    Nothing,
}

impl Early {
    /// What `window.__wpEarly` (`early`, an object) holds: the input given (`files`, an array;
    /// `url`; `sample`), and the reader's lean view's state (`view`: `{tab, tensor, export}`)
    /// when it is an object.
    pub fn of(early: &impl JsData) -> (Early, Option<Carried>) {
        let files = early.get("files");
        let given = Early {
            files: matches!(files.kind(), JsKind::Array).then(|| files.items().len()),
            url: text_of(early, "url").unwrap_or_default(),
            sample: truthy(&early.get("sample")),
        };
        let view = early.get("view");
        let text = |k| text_of(&view, k);
        let carried = is_object(&view)
            .then(|| Carried::from_texts(text("tab"), text("tensor"), text("export")));
        (given, carried)
    }

    /// What `window.__wpEarly` holds once the app took its input, key by key (`None`:
    /// `null`): no files, no URL, no sample, no lean view's state.
    pub const TAKEN: [(&'static str, Option<bool>); 4] = [
        ("files", None),
        ("url", None),
        ("sample", Some(false)),
        ("view", None),
    ];

    /// Whether something was given: the page's state goes from "loading" to that opening's
    /// with no "idle" between.
    pub fn pending(&self) -> bool {
        self.files.is_some_and(|n| n > 0) || !self.url.is_empty() || self.sample
    }

    /// What to open: the files when `files` is an array, else the URL, else the sample.
    pub fn open(&self) -> EarlyOpen {
        match self.files {
            Some(0) => EarlyOpen::Nothing,
            Some(_) => EarlyOpen::Files,
            None if !self.url.is_empty() => EarlyOpen::Url(self.url.clone()),
            None if self.sample => EarlyOpen::Sample,
            None => EarlyOpen::Nothing,
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_early_input_and_the_lean_views_state_are_read_from_wp_early() {
        use crate::view::testutil::js;
        let (e, c) = Early::of(&js(
            r#"{"files": [{}, {}], "url": "https://h/a.gguf", "sample": true,
            "view": {"tab": "tensors", "tensor": "t", "export": 5}}"#,
        ));
        assert_eq!(
            (e.files, e.url.as_str(), e.sample),
            (Some(2), "https://h/a.gguf", true)
        );
        assert_eq!(
            c,
            Some(Carried::from_texts(
                Some("tensors".into()),
                Some("t".into()),
                None
            ))
        );
        let (e, c) = Early::of(&js(
            r#"{"files": null, "url": 7, "sample": 0, "view": "x"}"#,
        ));
        assert_eq!((e, c), (Early::default(), None));
        // What the app leaves there reads as nothing given.
        let taken = Early::TAKEN.map(|(k, v)| match v {
            Some(b) => format!("\"{k}\": {b}"),
            None => format!("\"{k}\": null"),
        });
        assert_eq!(
            taken.join(", "),
            r#""files": null, "url": null, "sample": false, "view": null"#
        );
        let (e, c) = Early::of(&js(&format!("{{{}}}", taken.join(", "))));
        assert_eq!((e, c), (Early::default(), None));
    }

    use super::*;
    use crate::view::errors::Front;

    #[test]
    fn the_sample_failure_says_what_the_server_answered() {
        let f = sample_failure(&server_answered(404, "Not Found"));
        assert_eq!(f.headline, "The bundled sample could not be fetched.");
        assert_eq!(f.details, "the server answered 404 Not Found");
    }

    #[test]
    fn early_input_opens_files_then_a_url_then_the_sample() {
        let none = Early::default();
        assert!(!none.pending());
        assert_eq!(none.open(), EarlyOpen::Nothing);
        let all = Early {
            files: Some(2),
            url: "https://x/a.gguf".into(),
            sample: true,
        };
        assert!(all.pending());
        assert_eq!(all.open(), EarlyOpen::Files);
        let url = Early {
            files: None,
            ..all.clone()
        };
        assert_eq!(url.open(), EarlyOpen::Url("https://x/a.gguf".into()));
        let sample = Early {
            url: String::new(),
            ..url.clone()
        };
        assert!(sample.pending());
        assert_eq!(sample.open(), EarlyOpen::Sample);
        // An empty array of files hides the URL (as www/early.js never gives both).
        let empty = Early {
            files: Some(0),
            ..all
        };
        assert!(empty.pending());
        assert_eq!(empty.open(), EarlyOpen::Nothing);
    }

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn display_names_say_the_model_the_index_or_the_set() {
        assert_eq!(display_name(&s(&["m.gguf"]), true), "m.gguf");
        let part = "m-00001-of-00003.gguf";
        assert_eq!(
            display_name(&s(&[part]), false),
            format!("{part} (3 parts)")
        );
        assert_eq!(display_name(&s(&[part]), true), part);
        assert_eq!(
            display_name(&s(&["model.safetensors.index.json", "config.json"]), true),
            "model.safetensors.index.json"
        );
        assert_eq!(display_name(&s(&["notes.txt"]), true), "notes.txt");
        assert_eq!(display_name(&[], true), "");
    }

    #[test]
    fn local_files_are_named_and_sized_together() {
        assert_eq!(
            local_given([("m-00002-of-00002.gguf", 7), ("m-00001-of-00002.gguf", 5)]),
            ("m-00001-of-00002.gguf (2 parts)".to_string(), 12)
        );
        assert_eq!(
            local_given([("config.json", 2), ("m.safetensors", u64::MAX)]),
            ("m.safetensors".to_string(), u64::MAX)
        );
        assert_eq!(local_given([]), (String::new(), 0));
    }

    #[test]
    fn the_url_box_opens_a_repository_or_a_file() {
        let hub = "https://huggingface.co";
        match url_named(" o/m ", hub) {
            Ok(Named::Repo(r)) => assert_eq!(r.id, "o/m"),
            other => panic!("not a repository: {other:?}"),
        }
        assert_eq!(
            url_named("https://huggingface.co/o/m/blob/main/sub/m.gguf", hub),
            Ok(Named::File(
                "sub/m.gguf".into(),
                "https://huggingface.co/o/m/resolve/main/sub/m.gguf".into()
            ))
        );
        assert_eq!(
            url_named("https://example.com/d/m.gguf", hub),
            Ok(Named::File(
                "m.gguf".into(),
                "https://example.com/d/m.gguf".into()
            ))
        );
        let not = url_named("not a url", hub).unwrap_err();
        assert_eq!(not.headline, "This is not something to open");
        assert!(!not.details.is_empty());
    }

    #[test]
    fn a_url_names_a_file_a_repository_does_not() {
        let hub = "https://huggingface.co";
        assert_eq!(
            url_file("https://example.com/d/m.gguf?x=1", hub).unwrap(),
            ("m.gguf".into(), "https://example.com/d/m.gguf?x=1".into())
        );
        let (name, url) = url_file("https://huggingface.co/o/m/blob/main/sub/m.gguf", hub).unwrap();
        assert_eq!(name, "sub/m.gguf");
        assert_eq!(url, "https://huggingface.co/o/m/resolve/main/sub/m.gguf");
        let repo = url_file("o/m", hub).unwrap_err();
        assert_eq!(repo.headline, "o/m is a repository, not a file");
        // Every format the registry lists is named.
        for label in registry::labels() {
            assert!(repo.details.contains(label), "{label}: {}", repo.details);
        }
        assert_eq!(
            url_file("  ", hub).unwrap_err().headline,
            "This is not something to open"
        );
        // What the page's start-up may show in an element: a file, with any endpoint.
        assert!(names_file(
            "https://huggingface.co/o/m/blob/main/m.gguf",
            ""
        ));
        assert!(names_file(
            "https://mirror.example/o/m/resolve/main/m.gguf",
            " "
        ));
        assert!(names_file(
            "https://example.com/d/m.safetensors",
            "https://mirror.example/"
        ));
        assert!(!names_file("o/m", ""));
        assert!(!names_file("https://huggingface.co/o/m", ""));
        assert!(!names_file("not a url", "https://mirror.example"));
        assert_eq!(
            url_files(&s(&["https://h/a/x.gguf", "https://h/b/y.gguf"])),
            [
                ("x.gguf".to_string(), "https://h/a/x.gguf".to_string()),
                ("y.gguf".to_string(), "https://h/b/y.gguf".to_string())
            ]
        );
    }

    #[test]
    fn blobs_statuses_and_refusals_have_their_words() {
        assert_eq!(blob_name(Some("a.gguf".into()), 3), "a.gguf");
        assert_eq!(blob_name(None, 0), "blob");
        assert_eq!(blob_name(None, 1), "blob 2");
        assert_eq!(
            reading_status("m\n.gguf", None),
            "Reading the header of m\\n.gguf…"
        );
        assert_eq!(
            reading_status("m", Some((1, 2048))),
            format!(
                "Reading the header of m… 1 request, {} received",
                text::bytes(2048)
            )
        );
        assert!(reading_status("m", Some((2, 0))).contains("2 requests"));
        let lean: Failure = LoadError::Lean.into();
        assert_eq!(lean.headline, "Read by the full module");
        assert_eq!(
            lean.details,
            format!(
                "{} files are read by weightpeek's full module.",
                registry::full_only_labels_text("and")
            )
        );
        assert!(lean.details.starts_with("PyTorch, NumPy and ONNX files"));
        assert!(LoadError::Lean.is_lean());
        let to = Audience {
            front: Front::Api,
            hub: "https://huggingface.co",
            has_token: false,
        };
        let names = s(&["m.gguf"]);
        let e = OpenError::NothingToOpen { ignored: vec![] };
        let cancelled = OpenError::Cancelled;
        assert_eq!(
            LoadError::of(&cancelled, &names, &to),
            LoadError::Failed(open_failure(&cancelled, &names, &to))
        );
        assert_eq!(
            LoadError::of(&e, &names, &to),
            LoadError::Failed(open_failure(&e, &names, &to))
        );
        assert_ne!(
            open_failure(&cancelled, &names, &to),
            open_failure(&e, &names, &to)
        );
        let f = Failure::new("a", "b");
        assert_eq!(Failure::from(LoadError::from(f.clone())), f);
    }
}
