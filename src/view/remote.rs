//! The page's remote box without the browser: what is remembered where (the Hub endpoint in
//! `localStorage`, the token in `sessionStorage` only while "remember for this tab" is
//! ticked), the progress line drawn from an opening's request counters, a repository's list
//! of models to pick from, which files a picked entry opens, and the words of each step
//! (listing, reading, a link naming a tensor the model lacks). `src/web/remote.rs` only reads
//! the inputs, stores, draws and fetches.

use std::rc::Rc;

use crate::format::{registry, Model};
use crate::open::recognise::{role, Role};
use crate::remote::hub::{Repo, DEFAULT_ENDPOINT};
use crate::remote::shards::{group, parse_tree_listing, Entry};
use crate::source::http::{totals, Counter, Counters};
use crate::text;
use crate::view::errors::Failure;
use crate::view::node::{self, Node};

/// `sessionStorage` key of the access token (kept for the tab only, when asked).
pub const TOKEN_KEY: &str = "weightpeek.hub-token";
/// `localStorage` key of the Hub endpoint (kept across visits; only when not the default).
pub const ENDPOINT_KEY: &str = "weightpeek.hub-endpoint";

/// What to do with one storage key: keep this value under it, or remove it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Store {
    /// Set the key to this value.
    Set(String),
    /// Remove the key.
    Remove,
}

/// What [`ENDPOINT_KEY`] keeps for the endpoint `endpoint` (as normalised by
/// [`crate::remote::hub::endpoint_or_default`]): nothing for the default one.
pub fn endpoint_store(endpoint: &str) -> Store {
    if endpoint == DEFAULT_ENDPOINT {
        Store::Remove
    } else {
        Store::Set(endpoint.to_string())
    }
}

/// The token of the token box's text `input` (trimmed); `None` when blank.
pub fn token_of(input: &str) -> Option<String> {
    text::nonblank(input)
}

/// What [`TOKEN_KEY`] keeps: the token while `remember` is ticked, else nothing.
pub fn token_store(token: Option<&str>, remember: bool) -> Store {
    match token.filter(|_| remember) {
        Some(t) => Store::Set(t.to_string()),
        None => Store::Remove,
    }
}

/// The progress display (the page's `div.remote-progress`, drawn onto it) for `counters`
/// (file name, its counter: the header's requests and bytes, then the previews' Range reads
/// of the same file, see [`crate::source::http::Counters`]), in the order files were first
/// asked for: its attributes `data-requests`, `data-bytes` (the totals, which saturate), and
/// its content, the totals line (`span.progress-total`) then, for more than one file, one
/// `li` per file in `ol.progress-files` (each with `data-file`, `data-requests`,
/// `data-bytes`). `handed_over`: the header was read without a request (handed over by the
/// page's lean start): the line says [`NOTHING_DOWNLOADED`] until a preview reads something,
/// then counts the previews' reads after it.
pub fn progress(counters: &[(String, Rc<Counter>)], handed_over: bool) -> Node {
    let (requests, bytes) = totals(counters);
    let counted = format!(
        "{requests} request{} · {} received",
        if requests == 1 { "" } else { "s" },
        text::bytes(bytes)
    );
    let line = match (handed_over, requests) {
        (true, 0) => NOTHING_DOWNLOADED.to_string(),
        (true, _) => format!("{HANDED_OVER}; previews since: {counted}"),
        (false, _) => counted,
    };
    let mut children = vec![node::text("span", "progress-total", &line)];
    if counters.len() > 1 {
        children.push(
            node::el("ol", "progress-files").children(counters.iter().map(|(name, c)| {
                let (r, b) = (c.requests.get(), c.bytes.get());
                let short = name.rsplit('/').next().unwrap_or(name);
                node::text("li", "", &format!("{short}: {r} req · {}", text::bytes(b)))
                    .attr("data-file", name.as_str())
                    .attr("data-requests", r.to_string())
                    .attr("data-bytes", b.to_string())
            })),
        );
    }
    node::el("div", "remote-progress")
        .attr("data-requests", requests.to_string())
        .attr("data-bytes", bytes.to_string())
        .children(children)
}

/// Which opening the page's progress line shows, and whether its header was handed over (read
/// without a request by the page's lean start: [`progress`]'s `handed_over`). The opening
/// started last has the line; one started before may still read previews, which then draw
/// nothing.
#[derive(Debug, Default)]
pub struct ProgressLine {
    shown: Option<(Counters, bool)>,
}

impl ProgressLine {
    /// The line now shows the opening counted by `counters` (its header not read yet).
    pub fn start(&mut self, counters: &Counters) {
        self.shown = Some((counters.clone(), false));
    }

    /// The opening of `counters` read its model: its header was handed over when no request
    /// was made for it. Nothing when the line shows another opening.
    pub fn read(&mut self, counters: &Counters) {
        if let Some((c, handed_over)) = &mut self.shown {
            if Rc::ptr_eq(c, counters) {
                *handed_over = totals(&c.borrow()).0 == 0;
            }
        }
    }

    /// The progress display ([`progress`]) of the opening of `counters`; `None` when the line
    /// shows another opening (or none).
    pub fn node(&self, counters: &Counters) -> Option<Node> {
        let (c, handed_over) = self
            .shown
            .as_ref()
            .filter(|(c, _)| Rc::ptr_eq(c, counters))?;
        Some(progress(&c.borrow(), *handed_over))
    }
}

/// The start of the progress line of a header read while the page loaded, once previews read.
const HANDED_OVER: &str = "Header read while the page loaded";

/// The progress line once a model was read without any request: the lean module read the
/// header while the page loaded (`www/page.js`) and handed it over.
pub const NOTHING_DOWNLOADED: &str =
    "Nothing more downloaded: the header was read while the page loaded.";

/// The status line while `repo_id`'s files are listed.
pub fn listing_status(repo_id: &str) -> String {
    format!("Listing the files of {repo_id}…")
}

/// The status line while the files named `name` (see
/// [`crate::view::opening::display_name`]) are read: an index with its shards, or a header.
pub fn reading_status(name: &str) -> String {
    match role(name) {
        Role::Index => format!("Reading the index {} and its shards…", text::escape(name)),
        _ => format!("Reading the header of {}…", text::escape(name)),
    }
}

/// The failure of a Hub listing that came but could not be read (`why`: the parser's words).
pub fn listing_unreadable(why: impl Into<String>) -> Failure {
    Failure::new("The Hub's file listing could not be read", why)
}

/// The failure of a repository listing without any model file the registry reads.
pub fn no_model_files(repo_id: &str) -> Failure {
    Failure::new(
        format!("{repo_id} has no {} files", registry::labels_text("or")),
        "Check the revision, or pick another repository.",
    )
}

/// The models a repository's listing (`body`, the Hub API's tree listing of `repo_id`) lists
/// to pick from. Errors: the listing cannot be read ([`listing_unreadable`]), or it holds no
/// model file ([`no_model_files`]).
pub fn listing_entries(body: &[u8], repo_id: &str) -> Result<Vec<Entry>, Failure> {
    let files = parse_tree_listing(&String::from_utf8_lossy(body))
        .map_err(|e| listing_unreadable(e.to_string()))?;
    let entries = group(&files);
    if entries.is_empty() {
        return Err(no_model_files(repo_id));
    }
    Ok(entries)
}

/// The path a listed entry's button names (`data-path`; its URL goes in the address bar):
/// the index of a set that has one, else its first file (empty if it has none).
pub fn entry_path(entry: &Entry) -> String {
    entry
        .index
        .clone()
        .or_else(|| entry.files.first().cloned())
        .unwrap_or_default()
}

/// The list of `repo`'s models to pick from: a head line (`li.repo-files-head`), then one
/// `li.repo-file` per entry, in order, holding its button (`button.repo-file-button`, with
/// `data-path` and `data-kind`), its size and, for a broken set, how many parts are missing.
/// The page wires the `i`-th entry's button to `entries[i]`.
pub fn entry_list(repo: &Repo, entries: &[Entry]) -> Vec<Node> {
    let head = node::text(
        "li",
        "repo-files-head",
        &format!("{} @ {}: pick a model", repo.id, repo.revision),
    );
    let rows = entries.iter().map(|entry| {
        let button = node::text("button", "button repo-file-button", &entry.label)
            .attr("type", "button")
            .attr("data-path", entry_path(entry))
            .attr("data-kind", format!("{:?}", entry.kind));
        let mut li = node::el("li", "repo-file").child(button).child(node::text(
            "span",
            "muted repo-file-size",
            &text::bytes(entry.size),
        ));
        if !entry.missing.is_empty() {
            li.push(node::text(
                "span",
                "warn",
                &format!("{} parts missing", entry.missing.len()),
            ));
        }
        li
    });
    std::iter::once(head).chain(rows).collect()
}

/// The files a picked entry opens, as (name, URL) on `endpoint`, and the repository's paths
/// the opening may read (`listed`): an index alone (it names its shards, read beside it), or
/// every file of the entry, with the members of the set the listing lacks reported missing,
/// never asked for.
pub fn entry_files(
    repo: &Repo,
    endpoint: &str,
    entry: &Entry,
) -> (Vec<(String, String)>, Option<Vec<String>>) {
    let url = |p: &String| (p.clone(), repo.resolve_url(endpoint, p));
    match &entry.index {
        Some(index) => (vec![url(index)], None),
        None => (
            entry.files.iter().map(url).collect(),
            Some(entry.files.clone()),
        ),
    }
}

/// The tensor a link's `tensor=` names in `model` (shown as `name`): its index, or the failure
/// shown when the model has no such tensor.
pub fn linked_tensor(model: &Model, name: &str, tensor: &str) -> Result<usize, Failure> {
    model.tensor_index(tensor).ok_or_else(|| {
        Failure::new(
            "The link names a tensor this model does not have",
            format!(
                "There is no tensor \"{}\" in {name}; pick one in the tensor table.",
                text::escape(tensor)
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::remote::hub::{parse_input, Target};
    use crate::remote::shards::EntryKind;

    #[test]
    fn the_endpoint_is_kept_unless_default_and_the_token_only_when_remembered() {
        assert_eq!(endpoint_store(DEFAULT_ENDPOINT), Store::Remove);
        assert_eq!(
            endpoint_store("https://hub.example"),
            Store::Set("https://hub.example".into())
        );
        assert_eq!(token_of("  hf_x \n"), Some("hf_x".into()));
        assert_eq!(token_of(" \t"), None);
        assert_eq!(token_store(Some("hf_x"), true), Store::Set("hf_x".into()));
        assert_eq!(token_store(Some("hf_x"), false), Store::Remove);
        assert_eq!(token_store(None, true), Store::Remove);
        assert_eq!(TOKEN_KEY, "weightpeek.hub-token");
        assert_eq!(ENDPOINT_KEY, "weightpeek.hub-endpoint");
    }

    fn counter(requests: u32, bytes: u64) -> Rc<Counter> {
        let c = Counter::default();
        c.requests.set(requests);
        c.bytes.set(bytes);
        Rc::new(c)
    }

    #[test]
    fn progress_shows_totals_and_each_file_of_a_set() {
        let one = progress(&[("listing".into(), counter(1, 2048))], false);
        assert_eq!(
            one.attrs,
            [
                ("data-requests", "1".to_string()),
                ("data-bytes", "2048".to_string())
            ]
        );
        assert_eq!(one.children.len(), 1);
        assert_eq!(one.children[0].class, "progress-total");
        assert_eq!(
            one.children[0].text_content(),
            format!("1 request · {} received", text::bytes(2048))
        );
        assert_eq!(
            progress(&[], false).children[0].text_content(),
            format!("0 requests · {} received", text::bytes(0))
        );
        let two = progress(
            &[
                ("sub/a.gguf".into(), counter(2, 100)),
                ("b.gguf".into(), counter(u32::MAX, u64::MAX)),
            ],
            false,
        );
        // Totals saturate.
        assert_eq!(two.attrs[0].1, u32::MAX.to_string());
        assert_eq!(two.attrs[1].1, u64::MAX.to_string());
        let list = &two.children[1];
        assert_eq!((list.tag, list.class.as_str()), ("ol", "progress-files"));
        let a = &list.children[0];
        assert_eq!(
            a.text_content(),
            format!("a.gguf: 2 req · {}", text::bytes(100))
        );
        assert_eq!(a.get_attr("data-file"), Some("sub/a.gguf"));
        assert_eq!(a.get_attr("data-requests"), Some("2"));
        assert_eq!(a.get_attr("data-bytes"), Some("100"));
        assert_eq!(a.class, "");
    }

    /// A header handed over by the page's lean start: nothing downloaded until a preview
    /// reads, then the previews' Range reads are counted (requests and bytes, in the line and
    /// the attributes); a header that took requests counts them and the previews' together.
    #[test]
    fn progress_counts_the_previews_reads() {
        let c = counter(0, 0);
        let files = [("m.gguf".to_string(), c.clone())];
        let handed = progress(&files, true);
        assert_eq!(handed.children[0].text_content(), NOTHING_DOWNLOADED);
        assert_eq!(handed.attrs[0], ("data-requests", "0".to_string()));
        // Two previews' Range reads of 64 KiB and 4 KiB.
        c.requests.set(2);
        c.bytes.set(68 << 10);
        let after = progress(&files, true);
        assert_eq!(
            after.children[0].text_content(),
            "Header read while the page loaded; previews since: 2 requests · 68.0 KiB received"
        );
        assert_eq!(
            after.attrs,
            [
                ("data-requests", "2".to_string()),
                ("data-bytes", (68u64 << 10).to_string())
            ]
        );
        // A header of 1 request and 2 MiB, then one preview of 1 KiB.
        let c = counter(2, (2 << 20) + 1024);
        let read = progress(&[("m.gguf".to_string(), c)], false);
        assert_eq!(
            read.children[0].text_content(),
            format!("2 requests · {} received", text::bytes((2 << 20) + 1024))
        );
    }

    /// The line follows the opening started last; an older one's previews draw nothing, and
    /// its reading does not change how the shown one counts.
    #[test]
    fn the_progress_line_shows_the_last_opening() {
        let line_of =
            |l: &ProgressLine, c: &Counters| l.node(c).map(|n| n.children[0].text_content());
        let (a, b) = (Counters::default(), Counters::default());
        let mut line = ProgressLine::default();
        assert_eq!(line.node(&a), None);
        line.start(&a);
        a.borrow_mut().push(("a.gguf".into(), counter(1, 4096)));
        assert_eq!(
            line_of(&line, &a),
            Some(format!("1 request · {} received", text::bytes(4096)))
        );
        line.start(&b);
        assert_eq!(line.node(&a), None);
        // B's header was handed over: no request was made for it.
        b.borrow_mut().push(("b.gguf".into(), counter(0, 0)));
        line.read(&a);
        assert_eq!(
            line_of(&line, &b),
            Some(format!("0 requests · {} received", text::bytes(0)))
        );
        line.read(&b);
        assert_eq!(line_of(&line, &b).as_deref(), Some(NOTHING_DOWNLOADED));
        // A header that took a request is counted, previews with it.
        let c = Counters::default();
        c.borrow_mut().push(("c.gguf".into(), counter(1, 1024)));
        line.start(&c);
        line.read(&c);
        let n = line.node(&c).expect("shown");
        assert_eq!(n.get_attr("data-requests"), Some("1"));
        assert_eq!(n.get_attr("data-bytes"), Some("1024"));
    }

    #[test]
    fn statuses_and_failures_have_their_words() {
        assert_eq!(listing_status("o/m"), "Listing the files of o/m…");
        assert_eq!(
            reading_status("model.safetensors.index.json"),
            "Reading the index model.safetensors.index.json and its shards…"
        );
        assert_eq!(
            reading_status("m\n.gguf"),
            "Reading the header of m\\n.gguf…"
        );
        let f = no_model_files("o/m");
        assert_eq!(
            f.headline,
            format!("o/m has no {} files", registry::labels_text("or"))
        );
        assert_eq!(f.details, "Check the revision, or pick another repository.");
        assert_eq!(
            listing_unreadable("bad json").joined(),
            "The Hub's file listing could not be read: bad json"
        );
        // A listing: its model files, or why there are none to pick.
        let body = br#"[{"type": "directory", "path": "d"}, {"type": "file", "path": "README.md", "size": 5},
            {"type": "file", "path": "m.gguf", "size": 10, "lfs": {"size": 4000}}]"#;
        let entries = listing_entries(body, "o/m").unwrap();
        assert_eq!(entries.len(), 1);
        assert_eq!(entry_path(&entries[0]), "m.gguf");
        assert_eq!(
            listing_entries(b"[]", "o/m").unwrap_err(),
            no_model_files("o/m")
        );
        let e = listing_entries(b"{}", "o/m").unwrap_err();
        assert_eq!(e.headline, "The Hub's file listing could not be read");
    }

    fn repo() -> Repo {
        match parse_input("o/m", DEFAULT_ENDPOINT) {
            Ok(Target::Repo(r)) => r,
            _ => panic!("o/m is a repository"),
        }
    }

    fn entry(files: &[&str], index: Option<&str>, missing: &[&str]) -> Entry {
        Entry {
            label: "label".into(),
            kind: EntryKind::SafetensorsShards,
            files: files.iter().map(|f| f.to_string()).collect(),
            index: index.map(str::to_string),
            size: 3000,
            missing: missing.iter().map(|f| f.to_string()).collect(),
        }
    }

    #[test]
    fn entries_list_their_paths_kinds_sizes_and_missing_parts() {
        let r = repo();
        let es = [
            entry(&["a/x-1.st", "a/x-2.st"], Some("a/x.index.json"), &[]),
            entry(&["y-00001-of-00003.st"], None, &["y-2", "y-3"]),
            entry(&[], None, &[]),
        ];
        let list = entry_list(&r, &es);
        assert_eq!(list.len(), 4);
        assert_eq!(list[0].text_content(), "o/m @ main: pick a model");
        assert_eq!(list[0].class, "repo-files-head");
        let b = &list[1].children[0];
        assert_eq!(b.class, "button repo-file-button");
        assert_eq!(b.get_attr("type"), Some("button"));
        assert_eq!(b.get_attr("data-path"), Some("a/x.index.json"));
        assert_eq!(b.get_attr("data-kind"), Some("SafetensorsShards"));
        assert_eq!(list[1].children.len(), 2);
        assert_eq!(list[1].children[1].text_content(), text::bytes(3000));
        assert_eq!(
            list[2].children[0].get_attr("data-path"),
            Some("y-00001-of-00003.st")
        );
        assert_eq!(list[2].children[2].text_content(), "2 parts missing");
        assert_eq!(list[2].children[2].class, "warn");
        // An entry without files names nothing (no panic).
        assert_eq!(list[3].children[0].get_attr("data-path"), Some(""));
    }

    #[test]
    fn an_index_opens_alone_a_set_opens_its_listed_files() {
        let r = repo();
        let (given, listed) =
            entry_files(&r, DEFAULT_ENDPOINT, &entry(&["a.st"], Some("i.json"), &[]));
        assert_eq!(
            given,
            [(
                "i.json".to_string(),
                "https://huggingface.co/o/m/resolve/main/i.json".to_string()
            )]
        );
        assert_eq!(listed, None);
        let (given, listed) = entry_files(
            &r,
            "https://hub.example",
            &entry(&["d/a.st", "d/b.st"], None, &[]),
        );
        assert_eq!(given.len(), 2);
        assert_eq!(given[1].0, "d/b.st");
        assert_eq!(given[1].1, "https://hub.example/o/m/resolve/main/d/b.st");
        assert_eq!(
            listed,
            Some(vec!["d/a.st".to_string(), "d/b.st".to_string()])
        );
    }

    #[test]
    fn a_linked_tensor_is_found_or_named_missing() {
        let b = crate::view::testutil::tiny_llama();
        let m = crate::source::parse_bytes(&b).unwrap();
        let first = m.tensors[0].name.clone();
        assert_eq!(linked_tensor(&m, "m.gguf", &first), Ok(0));
        let last = m.tensors.len() - 1;
        assert_eq!(linked_tensor(&m, "m.gguf", &m.tensors[last].name), Ok(last));
        let f = linked_tensor(&m, "m.gguf", "no\nsuch").unwrap_err();
        assert_eq!(
            f.headline,
            "The link names a tensor this model does not have"
        );
        assert_eq!(
            f.details,
            "There is no tensor \"no\\nsuch\" in m.gguf; pick one in the tensor table."
        );
    }
}
