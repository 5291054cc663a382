//! Opening a model without any page around it: a `Blob`, one URL (a file, a split GGUF set or
//! a `*.safetensors.index.json`), or a list of shard URLs, read header-only and merged into one
//! model with a [`SourceFactory`] for previews. The page (`remote.rs`, `mod.rs`), the
//! `<weightpeek-view>` widget (`widget.rs`) and the JavaScript API (`api.rs`) all open models
//! through here; each adds only its own display (status line, progress, errors).
//!
//! Errors are `(headline, details)` pairs, as the page shows them.

use std::cell::RefCell;
use std::rc::Rc;

use web_sys::Blob;

use super::blob::BlobSource;
use super::http::{Counter, Fetcher, HttpSource, Location};
use crate::format::{Model, Warning};
use crate::open::merge::{check_split_part, merge, parse_index, shard_first_read, ShardIndex};
use crate::open::pool::{bounded, POOL_SIZE};
use crate::remote::hub::{parse_input, Target};
use crate::remote::shards::split_name;
use crate::source::boxed::{SourceFactory, Unreadable};
use crate::source::http::{Problem, MAX_WHOLE_FILE};
use crate::source::{read_model, ReadPolicy, ReadStats};
use crate::summary::quant_st;
use crate::view::facts;

/// A failure as `(headline, details)`.
pub type Failure = (String, String);

/// Per-file request and byte counters of one opening, by file name.
pub type Counters = Rc<RefCell<Vec<(String, Rc<Counter>)>>>;

/// One file to read: display name, URL, first read size (bytes).
pub type FileJob = (String, String, u64);

/// A model that was opened: its display name, the model (possibly with a parse error after
/// what was read), what reading it cost, and a reader of its data for previews.
pub struct Opened {
    /// The display name (`model.gguf`, `model.safetensors.index.json`, `x.gguf (3 parts)`).
    pub name: String,
    /// The parsed (and, for sets, merged) model.
    pub model: Model,
    /// Reads and bytes of the header reading, over every file.
    pub stats: ReadStats,
    /// A fresh reader of the file holding part `i`, for tensor previews.
    pub source: SourceFactory,
}

/// What a URL text names, after Hub URL forms are resolved against `endpoint`.
pub enum Plan {
    /// A `*.safetensors.index.json`: read it, then its shards.
    Index {
        /// The index's URL.
        url: String,
        /// Its display name (path in the repository, or last URL segment).
        name: String,
    },
    /// The files of one model (one file, or every part of a split set).
    Files {
        /// Display name.
        name: String,
        /// The files to read.
        jobs: Vec<FileJob>,
    },
}

/// `src` (trimmed) resolved against the page's base URL, so relative URLs work as in
/// `<img src>` (the element's `src`, the API's sources); unchanged when it cannot be.
pub fn resolve_url(src: &str) -> String {
    let src = src.trim();
    let base = super::dom::document().base_uri().ok().flatten();
    base.and_then(|b| web_sys::Url::new_with_base(src, &b).ok())
        .map(|u| u.href())
        .unwrap_or_else(|| src.to_string())
}

/// Resolves `text` (a Hub URL in any of its forms, or any `http(s)` file URL) to what should be
/// read. A repository id is refused here: the widget and the API need a file to show.
/// Errors: the text is not a URL of a model file.
pub fn plan_url(text: &str, endpoint: &str) -> Result<Plan, Failure> {
    match parse_input(text, endpoint) {
        Err(e) => Err(("This is not something to open".into(), e.0)),
        Ok(Target::Repo(repo)) => Err((
            format!("{} is a repository, not a file", repo.id),
            "Name one file of it: a .gguf, a .safetensors or a model.safetensors.index.json URL."
                .into(),
        )),
        Ok(Target::File { url, path, .. }) => {
            let name = path.unwrap_or_else(|| url.rsplit('/').next().unwrap_or(&url).to_string());
            Ok(plan_file(url, name))
        }
    }
}

/// What to read for the file at `url` named `name`: an index, or the file, or every part of
/// the split set it belongs to (`x-00001-of-00003.gguf` reads all three).
pub fn plan_file(url: String, name: String) -> Plan {
    let file = name.rsplit('/').next().unwrap_or(&name).to_string();
    if file.ends_with(".index.json") {
        return Plan::Index { url, name };
    }
    let mut jobs: Vec<FileJob> = Vec::new();
    for ext in [".gguf", ".safetensors"] {
        if let Some((prefix, _, count)) = split_name(&file, ext).filter(|s| s.2 >= 2) {
            let dir = name
                .rsplit_once('/')
                .map(|(d, _)| format!("{d}/"))
                .unwrap_or_default();
            for i in 1..=count {
                let f = format!("{prefix}-{i:05}-of-{count:05}{ext}");
                jobs.push((
                    format!("{dir}{f}"),
                    sibling(&url, &f),
                    ReadPolicy::REMOTE.first_read,
                ));
            }
        }
    }
    if jobs.is_empty() {
        jobs.push((name.clone(), url, ReadPolicy::REMOTE.first_read));
    }
    let name = if jobs.len() > 1 {
        format!("{} ({} parts)", name, jobs.len())
    } else {
        name
    };
    Plan::Files { name, jobs }
}

/// A list of shard URLs read as one model, named after the first.
pub fn plan_shards(urls: &[String]) -> Plan {
    let jobs: Vec<FileJob> = urls
        .iter()
        .map(|u| {
            let file = u.split(['?', '#']).next().unwrap_or(u);
            let file = file.rsplit('/').next().unwrap_or(file).to_string();
            (file, u.clone(), ReadPolicy::REMOTE.first_read)
        })
        .collect();
    let name = match jobs.as_slice() {
        [] => String::new(),
        [one] => one.0.clone(),
        [first, ..] => format!("{} ({} parts)", first.0, jobs.len()),
    };
    Plan::Files { name, jobs }
}

/// Replaces the last path segment of `url` by `file` (and drops the query).
pub fn sibling(url: &str, file: &str) -> String {
    let Ok(mut u) = url::Url::parse(url) else {
        return url.to_string();
    };
    if let Ok(mut p) = u.path_segments_mut() {
        p.pop().push(file);
    }
    u.set_query(None);
    u.into()
}

/// Counters for `names`, one per file, in order.
pub fn counters_for(names: impl IntoIterator<Item = String>) -> Counters {
    Rc::new(RefCell::new(
        names
            .into_iter()
            .map(|n| (n, Rc::new(Counter::default())))
            .collect(),
    ))
}

/// Reads a `*.safetensors.index.json` at `url` and plans its shards (siblings of the index).
/// `counter` counts the index request. Errors: the request failed, or the JSON is not an index.
pub async fn read_index(
    fetcher: &Fetcher,
    counter: &Counter,
    url: &str,
    name: &str,
) -> Result<(ShardIndex, Vec<FileJob>), Failure> {
    let result = fetcher.get_all(url, counter, MAX_WHOLE_FILE).await;
    let index = match result.map(|b| parse_index(&b)) {
        Ok(Ok(ix)) => ix,
        Ok(Err(e)) => return Err(("The index file cannot be read".into(), e)),
        Err(p) => {
            return Err(fetcher.describe(&p, url));
        }
    };
    let dir = name
        .rsplit_once('/')
        .map(|(d, _)| format!("{d}/"))
        .unwrap_or_default();
    let jobs = index
        .files_in_order()
        .into_iter()
        .map(|f| {
            let first = shard_first_read(index.tensors_in(&f));
            (format!("{dir}{f}"), sibling(url, &f), first)
        })
        .collect();
    Ok((index, jobs))
}

/// Reads every file's header (at most [`POOL_SIZE`] at once) and merges them into one model
/// (`index` cross-checked when given; `missing` lists parts known to be absent). `counters`
/// holds one counter per job, in order. One file that cannot be read fails the whole opening;
/// in a set, an unreadable part is reported in the merged model and the rest is shown.
pub async fn read_jobs(
    fetcher: Rc<Fetcher>,
    counters: Counters,
    jobs: Vec<FileJob>,
    index: Option<ShardIndex>,
    missing: &[String],
) -> Result<(Model, ReadStats, SourceFactory), Failure> {
    let single = jobs.len() == 1 && index.is_none();
    let first_url = jobs.first().map(|j| j.1.clone());
    let results = bounded(jobs, POOL_SIZE, |i, (file, url, first)| {
        let fetcher = fetcher.clone();
        let counter = counters.borrow()[i].1.clone();
        async move {
            let r = read_one(fetcher, counter, &url, first).await;
            (file, url, r)
        }
    })
    .await;
    if fetcher.is_cancelled() {
        return Err(Problem::Cancelled.describe("", "", false));
    }
    let mut stats = ReadStats::default();
    let count = results.len();
    let mut parts = Vec::new();
    let mut extra = Vec::new();
    // Where each file that was read lives, for the previews' Range reads.
    let mut locations: Vec<(String, Location)> = Vec::new();
    for (i, (file, url, r)) in results.into_iter().enumerate() {
        match r {
            Ok((model, s, at)) => {
                let no_range = at.no_range;
                locations.push((file.clone(), at));
                stats.reads += s.reads;
                stats.bytes += s.bytes;
                if no_range {
                    extra.push(Warning {
                        field: file.clone(),
                        offset: 0,
                        message: "this server ignores Range requests: the header was read from the start of a full download, which was then cancelled".into(),
                    });
                }
                if count > 1 && model.format == crate::format::Format::Gguf {
                    extra.extend(check_split_part(&file, i, count, &model));
                }
                parts.push((file, Ok(model)));
            }
            Err(p) if single => return Err(fetcher.describe(&p, &url)),
            Err(p) => {
                let (h, d) = fetcher.describe(&p, &url);
                parts.push((file, Err(format!("{h}. {d}"))));
            }
        }
    }
    let model = if single {
        match parts.pop() {
            Some((_, Ok(m))) => Ok(m),
            _ => Err("nothing was read".to_string()),
        }
    } else {
        merge(parts, index.as_ref(), missing)
    };
    match model {
        Ok(mut m) => {
            m.warnings.extend(extra);
            if let Some(url) = first_url.filter(|_| quant_st::wants_config(&m)) {
                read_config(&fetcher, &counters, &mut m, &url).await;
            }
            let source = preview_source(&fetcher, &m, locations);
            Ok((m, stats, source))
        }
        Err(e) => Err(("The model could not be read".into(), e)),
    }
}

/// A quantised safetensors layout needs its `config.json` (bits, group size): reads the one
/// beside `url` (one request, counted in `counters` as `config.json`) and attaches it. A
/// missing or unreadable config leaves the model as it is; the analysis then says which
/// figures were derived or defaulted.
async fn read_config(fetcher: &Fetcher, counters: &Counters, m: &mut Model, url: &str) {
    let Some(config) = quant_st::config_url(url) else {
        return;
    };
    let counter = Rc::new(Counter::default());
    counters
        .borrow_mut()
        .push(("config.json".to_string(), counter.clone()));
    // Never more than a config may have; a larger one is reported, not read.
    match fetcher
        .get_all(&config, &counter, quant_st::MAX_CONFIG_BYTES)
        .await
    {
        Ok(bytes) => quant_st::attach_config(m, &bytes, &config),
        Err(Problem::TooLarge(cap)) => {
            quant_st::attach_config(m, &[], &config);
            m.sidecar.config_error = Some(format!(
                "{config}: larger than the {cap} bytes a config may have"
            ));
        }
        Err(_) => {}
    }
}

/// Reads what `plan` names with `fetcher`: the index first if it is one, then the files.
/// `on_counters` is called with the counters once the files are known (progress display).
pub async fn read_plan(
    fetcher: Rc<Fetcher>,
    plan: Plan,
    on_counters: &dyn Fn(&Counters),
) -> Result<Opened, Failure> {
    let (name, jobs, index) = match plan {
        Plan::Files { name, jobs } => (name, jobs, None),
        Plan::Index { url, name } => {
            let counters = counters_for([name.clone()]);
            on_counters(&counters);
            let counter = counters.borrow()[0].1.clone();
            let (index, jobs) = read_index(&fetcher, &counter, &url, &name).await?;
            (name, jobs, Some(index))
        }
    };
    if jobs.is_empty() {
        return Err(("Nothing to open".into(), "No file was named.".into()));
    }
    let counters = counters_for(jobs.iter().map(|j| j.0.clone()));
    on_counters(&counters);
    let (model, stats, source) = read_jobs(fetcher, counters, jobs, index, &[]).await?;
    Ok(Opened {
        name,
        model,
        stats,
        source,
    })
}

/// Reads the header of a local `Blob` named `name`; `progress` is told the bytes read so far.
/// Previews read the same Blob later, each through its own handle. The model may carry a parse
/// error after what was read (shown as a partial model). Errors: nothing could be parsed.
pub async fn read_blob(
    blob: Blob,
    name: String,
    progress: Box<dyn Fn(u64)>,
) -> Result<Opened, Failure> {
    let preview_blob = blob.clone();
    let mut src = BlobSource::new(blob, progress);
    let (model, stats) = read_model(&mut src, &ReadPolicy::LOCAL)
        .await
        .map_err(|e| facts::open_error_text(&name, &e.to_string()))?;
    let source: SourceFactory =
        Rc::new(move |_part| Box::new(BlobSource::new(preview_blob.clone(), Box::new(|_| {}))));
    Ok(Opened {
        name,
        model,
        stats,
        source,
    })
}

/// A `config.json` the person picked with a local quantised safetensors model: read (whole;
/// refused past [`quant_st::MAX_CONFIG_BYTES`]) and attached when the layout uses one. A config
/// that cannot be read is attached as unreadable, so the analysis says why.
pub async fn attach_local_config(m: &mut Model, config: &web_sys::File) {
    if !quant_st::wants_config(m) {
        return;
    }
    let name = format!("{} (picked with the model)", config.name());
    if config.size() as u64 > quant_st::MAX_CONFIG_BYTES {
        quant_st::attach_config(m, &[], &name);
        m.sidecar.config_error = Some(format!(
            "{name}: {} bytes, more than the {} a config may have",
            config.size() as u64,
            quant_st::MAX_CONFIG_BYTES
        ));
        return;
    }
    let bytes: Result<Vec<u8>, _> = wasm_bindgen_futures::JsFuture::from(config.array_buffer())
        .await
        .map(|b| js_sys::Uint8Array::new(&b).to_vec());
    match bytes {
        Ok(b) => quant_st::attach_config(m, &b, &name),
        Err(_) => {
            quant_st::attach_config(m, &[], &name);
            m.sidecar.config_error = Some(format!("{name}: the browser could not read it"));
        }
    }
}

/// Opens one file and reads its header. `Err` when nothing could be parsed.
async fn read_one(
    fetcher: Rc<Fetcher>,
    counter: Rc<Counter>,
    url: &str,
    first: u64,
) -> Result<(Model, ReadStats, Location), Problem> {
    let mut src = HttpSource::open(fetcher.clone(), counter, url, first).await?;
    let policy = ReadPolicy {
        first_read: first,
        ..ReadPolicy::REMOTE
    };
    let result = read_model(&mut src, &policy).await;
    if fetcher.is_cancelled() {
        return Err(Problem::Cancelled);
    }
    match result {
        Ok((m, s)) => Ok((m, s, src.location())),
        Err(e) => Err(src
            .problem
            .take()
            .unwrap_or(Problem::BadAnswer(e.to_string()))),
    }
}

/// Previews of a remote model: a Range reader of the part holding the tensor, at the URL its
/// header was read from (after redirects), with the file size already known, so a preview is
/// one request for exactly its window's bytes. Uses the opening's endpoint and token (the
/// token still goes only to the endpoint's origin). Requests of previews are cancelled with
/// the opening's fetcher ([`Fetcher::child`]).
fn preview_source(
    opening: &Rc<Fetcher>,
    model: &Model,
    located: Vec<(String, Location)>,
) -> SourceFactory {
    let fetcher = opening.child();
    // In the merged model's part order (the parts that could be read); one file: its own.
    let at: Vec<Option<Location>> = if model.parts.is_empty() {
        located.into_iter().map(|(_, l)| Some(l)).take(1).collect()
    } else {
        model
            .parts
            .iter()
            .map(|p| {
                located
                    .iter()
                    .find(|(f, _)| *f == p.name)
                    .map(|(_, l)| l.clone())
            })
            .collect()
    };
    Rc::new(move |part| {
        let unreadable = |size, why: &str| -> Box<dyn crate::source::boxed::DynByteSource> {
            Box::new(Unreadable {
                size,
                why: why.to_string(),
            })
        };
        match at.get(part).cloned().flatten() {
            None => unreadable(0, "the file holding this tensor was not read"),
            Some(l) if l.no_range => unreadable(
                l.size,
                "this server ignores Range requests: previewing a tensor would download the file up to it",
            ),
            Some(l) => match HttpSource::reopen(fetcher.clone(), &l) {
                Ok(src) => Box::new(src),
                Err(p) => unreadable(l.size, &fetcher.describe(&p, &l.url).1),
            },
        }
    })
}
