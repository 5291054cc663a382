//! What a pasted text points at: a Hugging Face file, a Hugging Face repository, or any URL.
//!
//! Hub URL shapes (as the Hub serves them): `{endpoint}/{owner}/{repo}/blob/{revision}/{path}`,
//! `/resolve/` (the file itself) and `/raw/`, the same under `datasets/` and `spaces/`, on
//! `huggingface.co`, `hf.co` or a configured mirror; model pages with `?show_file_info=PATH` or
//! `?show_tensors=PATH`; `/tree/{revision}` for folders. A revision containing slashes
//! (`refs/pr/1`) is written with `%2F` in URLs. Files are opened through their `/resolve/` URL;
//! repositories are listed through `{endpoint}/api/{models|datasets|spaces}/{id}/tree/{revision}`.

use url::Url;

/// The public Hub; mirrors are configured by replacing it.
pub const DEFAULT_ENDPOINT: &str = "https://huggingface.co";

/// The Hub endpoint a person typed (settings box, `endpoint` attribute or option): trimmed,
/// without trailing slashes; [`DEFAULT_ENDPOINT`] when blank or absent.
pub fn endpoint_or_default(text: Option<&str>) -> String {
    match text.map(|t| t.trim().trim_end_matches('/')) {
        Some(t) if !t.is_empty() => t.to_string(),
        _ => DEFAULT_ENDPOINT.to_string(),
    }
}

/// Hosts that always mean the public Hub, whatever endpoint is configured.
const HUB_HOSTS: [&str; 3] = ["huggingface.co", "hf.co", "www.huggingface.co"];

/// The kind of a Hub repository (the URL prefix it lives under).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RepoKind {
    /// `/{owner}/{repo}`
    Model,
    /// `/datasets/{owner}/{repo}`
    Dataset,
    /// `/spaces/{owner}/{repo}`
    Space,
}

impl RepoKind {
    fn url_prefix(self) -> Option<&'static str> {
        match self {
            RepoKind::Model => None,
            RepoKind::Dataset => Some("datasets"),
            RepoKind::Space => Some("spaces"),
        }
    }

    fn api_name(self) -> &'static str {
        match self {
            RepoKind::Model => "models",
            RepoKind::Dataset => "datasets",
            RepoKind::Space => "spaces",
        }
    }
}

/// A repository at a revision.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Repo {
    /// Model, dataset or space.
    pub kind: RepoKind,
    /// `owner/name`.
    pub id: String,
    /// Branch, tag, commit or ref, decoded (`main`, `refs/pr/1`).
    pub revision: String,
}

impl Repo {
    fn base(&self, endpoint: &str) -> Option<Url> {
        let mut u = Url::parse(endpoint).ok()?;
        {
            let mut p = u.path_segments_mut().ok()?;
            p.pop_if_empty();
            if let Some(prefix) = self.kind.url_prefix() {
                p.push(prefix);
            }
            for part in self.id.split('/') {
                p.push(part);
            }
        }
        Some(u)
    }

    /// The `/resolve/` URL of `path` in this repository (each path segment percent-encoded,
    /// the revision as one segment).
    pub fn resolve_url(&self, endpoint: &str, path: &str) -> String {
        let Some(mut u) = self.base(endpoint) else {
            return String::new();
        };
        if let Ok(mut p) = u.path_segments_mut() {
            p.push("resolve").push(&self.revision);
            for seg in path.split('/') {
                p.push(seg);
            }
        }
        u.into()
    }

    /// The Hub API URL listing every file of the repository at its revision.
    pub fn tree_api_url(&self, endpoint: &str) -> String {
        let Ok(mut u) = Url::parse(endpoint) else {
            return String::new();
        };
        if let Ok(mut p) = u.path_segments_mut() {
            p.pop_if_empty().push("api").push(self.kind.api_name());
            for part in self.id.split('/') {
                p.push(part);
            }
            p.push("tree").push(&self.revision);
        }
        u.set_query(Some("recursive=true"));
        u.into()
    }
}

/// `url` with its last path segment replaced by `file` (a path relative to that directory,
/// `/`-separated; each segment percent-encoded) and its query dropped: the URL of a file beside
/// another. Unchanged when `url` is not a URL.
pub fn sibling_url(url: &str, file: &str) -> String {
    let Ok(mut u) = Url::parse(url) else {
        return url.to_string();
    };
    if let Ok(mut p) = u.path_segments_mut() {
        p.pop();
        for seg in file.split('/') {
            p.push(seg);
        }
    }
    u.set_query(None);
    u.set_fragment(None);
    u.into()
}

/// What a pasted text points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// One file, opened at `url`; `repo` and `path` are set for Hub files.
    File {
        /// The URL to read with Range requests.
        url: String,
        /// The repository, for Hub files.
        repo: Option<Repo>,
        /// The file's path inside the repository, for Hub files.
        path: Option<String>,
    },
    /// A repository whose files are listed for the person to pick from.
    Repo(Repo),
}

/// Why a pasted text is not something to open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError(pub String);

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Percent-decodes a URL path component (invalid UTF-8 is replaced).
fn decode(s: &str) -> String {
    percent_encoding::percent_decode_str(s)
        .decode_utf8_lossy()
        .into_owned()
}

/// Reads a bare repo id: `owner/repo`, `owner/repo@revision`, `datasets/owner/repo`.
fn bare_repo(input: &str) -> Option<Repo> {
    let (path, revision) = match input.split_once('@') {
        Some((p, r)) if !r.is_empty() => (p, r.to_string()),
        Some(_) => return None,
        None => (input, "main".to_string()),
    };
    let parts: Vec<&str> = path.split('/').collect();
    let (kind, owner, name) = match parts[..] {
        [o, n] => (RepoKind::Model, o, n),
        ["datasets", o, n] => (RepoKind::Dataset, o, n),
        ["spaces", o, n] => (RepoKind::Space, o, n),
        ["models", o, n] => (RepoKind::Model, o, n),
        _ => return None,
    };
    let ok = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
    };
    (ok(owner) && ok(name)).then(|| Repo {
        kind,
        id: format!("{owner}/{name}"),
        revision,
    })
}

/// Works out what `input` (a URL or a repo id, as pasted) points at. `endpoint` is the
/// configured Hub endpoint (its host counts as a Hub host, as do huggingface.co and hf.co).
/// Hub file URLs are normalised to `{endpoint}/…/resolve/{revision}/{path}`.
pub fn parse_input(input: &str, endpoint: &str) -> Result<Target, InputError> {
    let input = input.trim();
    if input.is_empty() {
        return Err(InputError(
            "paste a URL or a Hugging Face repo id (owner/name)".into(),
        ));
    }
    let lower = input.to_ascii_lowercase();
    let with_scheme = if lower.starts_with("http://") || lower.starts_with("https://") {
        input.to_string()
    } else if HUB_HOSTS
        .iter()
        .any(|h| lower.starts_with(&format!("{h}/")))
    {
        format!("https://{input}")
    } else if let Some(repo) = bare_repo(input) {
        return Ok(Target::Repo(repo));
    } else {
        return Err(InputError(format!(
            "\"{input}\" is neither an http(s) URL nor a repo id like owner/name"
        )));
    };
    let url = Url::parse(&with_scheme)
        .map_err(|e| InputError(format!("\"{input}\" is not a valid URL ({e})")))?;
    // The configured endpoint counts by host and port: a mirror (or a test server) on another
    // port of the same host is another server.
    let endpoint_origin = Url::parse(endpoint).ok().map(|u| u.origin());
    let host = url.host_str().unwrap_or("").to_ascii_lowercase();
    let is_hub = HUB_HOSTS.contains(&host.as_str()) || endpoint_origin == Some(url.origin());
    if !is_hub {
        return Ok(Target::File {
            url: url.into(),
            repo: None,
            path: None,
        });
    }
    hub_target(&url, endpoint)
}

fn hub_target(url: &Url, endpoint: &str) -> Result<Target, InputError> {
    let segs: Vec<&str> = url
        .path_segments()
        .map(|s| s.filter(|x| !x.is_empty()).collect())
        .unwrap_or_default();
    let (kind, rest) = match segs.first() {
        Some(&"datasets") => (RepoKind::Dataset, &segs[1..]),
        Some(&"spaces") => (RepoKind::Space, &segs[1..]),
        _ => (RepoKind::Model, &segs[..]),
    };
    let [owner, name, tail @ ..] = rest else {
        return Err(InputError(format!(
            "{url} is a Hugging Face page, not a repository or file"
        )));
    };
    let mut repo = Repo {
        kind,
        id: format!("{}/{}", decode(owner), decode(name)),
        revision: "main".into(),
    };
    let query_file = url
        .query_pairs()
        .find(|(k, _)| k == "show_file_info" || k == "show_tensors")
        .map(|(_, v)| v.into_owned());
    match tail {
        [] => match query_file {
            Some(path) => Ok(file(repo, path, endpoint)),
            None => Ok(Target::Repo(repo)),
        },
        [action, rev, more @ ..] if matches!(*action, "blob" | "resolve" | "raw" | "tree") => {
            // An unencoded `refs/pr/N` or `refs/convert/x` revision spans three segments.
            let (revision, path) = match (*rev, more) {
                ("refs", [a, b, p @ ..]) => (format!("refs/{}/{}", decode(a), decode(b)), p),
                _ => (decode(rev), more),
            };
            repo.revision = revision;
            let path: Vec<String> = path.iter().map(|s| decode(s)).collect();
            if *action == "tree" || path.is_empty() {
                return match query_file {
                    Some(p) => Ok(file(repo, p, endpoint)),
                    None => Ok(Target::Repo(repo)),
                };
            }
            Ok(file(repo, path.join("/"), endpoint))
        }
        _ => match query_file {
            Some(p) => Ok(file(repo, p, endpoint)),
            None => Ok(Target::Repo(repo)),
        },
    }
}

fn file(repo: Repo, path: String, endpoint: &str) -> Target {
    Target::File {
        url: repo.resolve_url(endpoint, &path),
        repo: Some(repo),
        path: Some(path),
    }
}
