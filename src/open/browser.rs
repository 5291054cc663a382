//! The browser's openers (wasm32 only), beside the CLI's in `open::native`: local files
//! (`File`s/`Blob`s picked or dropped together: one model, the parts of a split set, an index
//! with its shards, a `config.json` along) and remote files (one URL, a list of URLs, a Hub
//! listing's entry; the other parts of a set, an index's shards and `config.json` are the files
//! beside the first URL), read by HTTP Range requests with `fetch`
//! ([`crate::source::fetch`]). Both serve [`super::read::open`]; this module says how a name
//! becomes bytes, counts requests per file, and makes the previews' [`SourceFactory`].
//!
//! The page, the `<weightpeek-view>` element and the JavaScript API (`web::load`) word the
//! [`OpenError`]s for their readers; a remote file's own failures come worded by its fetcher
//! (`W`, [`crate::source::http::Wording`]).

use std::rc::Rc;

use js_sys::Uint8Array;
use wasm_bindgen_futures::JsFuture;
use web_sys::Blob;

use super::keyed::{Key, Watch, Watchers};
use super::read::{open, OpenError, Opener, Options};
use super::shared::{Joined, Start};
use super::urls::Urls;
use super::OpenedModel;
use crate::source::blob::{js_error_text, BlobSource};
use crate::source::boxed::{DynByteSource, SourceFactory, Unreadable};
use crate::source::fetch::{Fetcher, HttpSource, Location};
use crate::source::http::{counter_of, totals, Counters, Wording};
use crate::source::{whole_within, ReadPolicy, ReadStats, SourceError};

/// A model that was opened: its display name, the model (possibly with a parse error after
/// what was read; [`OpenedModel::set`] says how complete a set is), what reading it cost, and
/// a reader of its data for previews.
pub struct Opened {
    /// The display name (`model.gguf`, `model.safetensors.index.json`, `x.gguf (3 parts)`).
    pub name: String,
    /// The parsed (and, for sets, merged) model; shared with every consumer of the same
    /// reading ([`read_shared`]).
    pub model: Rc<OpenedModel>,
    /// Reads and bytes of the header reading, over every file.
    pub stats: ReadStats,
    /// A fresh reader of the file holding part `i`, for tensor previews.
    pub source: SourceFactory,
}

/// Local files given together, by name (a `File`'s own name). Nothing beside them can be
/// found (`available` is false): a set is what was picked.
pub struct LocalFiles {
    files: Vec<(String, Blob)>,
    /// Bytes read so far of each file opened.
    read: Counters,
    /// Told the bytes read so far over all files.
    progress: Rc<dyn Fn(u64)>,
}

impl LocalFiles {
    /// The files `files` as (name, Blob); `progress` is told the bytes read so far.
    pub fn new(files: Vec<(String, Blob)>, progress: Rc<dyn Fn(u64)>) -> LocalFiles {
        let read = Counters::default();
        LocalFiles {
            files,
            read,
            progress,
        }
    }

    /// The names given, in order.
    pub fn names(&self) -> Vec<String> {
        self.files.iter().map(|(n, _)| n.clone()).collect()
    }

    fn find(&self, name: &str) -> Result<&Blob, SourceError> {
        let file = self.files.iter().find(|(n, _)| n == name);
        let blob = file.map(|(_, b)| b);
        blob.ok_or_else(|| SourceError::Unavailable(format!("{name} was not given")))
    }
}

impl Opener for LocalFiles {
    type Source = BlobSource;

    fn policy(&self) -> ReadPolicy {
        ReadPolicy::LOCAL
    }

    fn available(&self, _name: &str) -> bool {
        false
    }

    async fn open(&self, name: &str, _first_read: u64) -> Result<BlobSource, SourceError> {
        let blob = self.find(name)?.clone();
        let (read, progress) = (self.read.clone(), self.progress.clone());
        let counter = counter_of(&read, name);
        let told = move |n| {
            counter.bytes.set(n);
            progress(totals(&read.borrow()).1);
        };
        Ok(BlobSource::new(blob, Box::new(told)))
    }

    async fn open_unread(&self, name: &str) -> Result<BlobSource, SourceError> {
        self.open(name, 0).await
    }

    /// A small file read whole (an index, a config); one larger than `cap` is refused before
    /// any of it is read.
    async fn read_all(&self, name: &str, cap: u64) -> Result<Vec<u8>, SourceError> {
        let blob = self.find(name)?;
        // A browser's sizes are integers below 2^53.
        let size = whole_within(blob.size() as u64, cap)?;
        JsFuture::from(blob.array_buffer())
            .await
            .map(|b| Uint8Array::new(&b).to_vec())
            .map_err(|e| SourceError::Io {
                offset: 0,
                len: size,
                cause: js_error_text(&e),
            })
    }
}

/// Opens the local files `files` (given together) as one model: its header(s) only, and what
/// `options` add (a `config.json` among them when the layout uses one). `progress` is told
/// the bytes read so far. The model may carry a parse error after what was read (shown as a partial model).
/// Errors: nothing could be opened (not a model, an index without its shards, …).
pub async fn read_local(
    files: Vec<(String, Blob)>,
    progress: Rc<dyn Fn(u64)>,
    options: Options,
) -> Result<Opened, OpenError> {
    let opener = LocalFiles::new(files, progress);
    let o = open(&opener, &opener.names(), options).await?;
    let blobs: Vec<Blob> = o.sources.iter().map(|s| s.blob().clone()).collect();
    let source: SourceFactory = Rc::new(move |part| match blobs.get(part) {
        Some(b) => Box::new(BlobSource::new(b.clone(), Box::new(|_| {}))),
        None => unreadable(0, "the file holding this tensor was not read"),
    });
    Ok(Opened {
        name: o.name,
        model: Rc::new(o.model),
        stats: o.stats,
        source,
    })
}

/// Remote files by name: the URLs given, and any other file of the set beside the first URL
/// given (assumed to exist until the server says otherwise, unless a Hub listing says which
/// files there are). Every request is counted per file in `counters`; failures are worded by
/// the fetcher (`W`).
pub struct RemoteFiles<W> {
    fetcher: Rc<Fetcher<W>>,
    counters: Counters,
    /// Where each file is, and which exist when a Hub listing named them.
    urls: Urls,
}

impl<W: Wording> RemoteFiles<W> {
    /// An opener for the files `given` as (name, URL); `listed`: the paths a Hub listing
    /// holds, if the files come from one.
    pub fn new(
        fetcher: Rc<Fetcher<W>>,
        counters: Counters,
        given: &[(String, String)],
        listed: Option<&[String]>,
    ) -> RemoteFiles<W> {
        RemoteFiles {
            fetcher,
            counters,
            urls: match listed {
                Some(l) => Urls::new(given).with_listing(l.iter().cloned()),
                None => Urls::new(given),
            },
        }
    }
}

impl<W: Wording> Opener for RemoteFiles<W> {
    type Source = HttpSource<W>;

    fn policy(&self) -> ReadPolicy {
        ReadPolicy::REMOTE
    }

    fn available(&self, name: &str) -> bool {
        self.urls.available(name)
    }

    async fn open(&self, name: &str, first_read: u64) -> Result<HttpSource<W>, SourceError> {
        let url = self.urls.url_of(name);
        let counter = counter_of(&self.counters, name);
        let error = |p| self.fetcher.whole_file_error(p, &url);
        // The full module on a page whose lean module read this header: no request.
        if crate::FULL {
            if let Some((at, first)) = crate::source::fetch::handover::preloaded(&url).await {
                return (self.fetcher.with_first(counter, &at, first)).map_err(error);
            }
        }
        let opened = self.fetcher.open(counter, &url, first_read).await;
        opened.map_err(error)
    }

    async fn read_all(&self, name: &str, cap: u64) -> Result<Vec<u8>, SourceError> {
        let url = self.urls.url_of(name);
        let counter = counter_of(&self.counters, name);
        let all = self.fetcher.get_all(&url, &counter, cap).await;
        all.map_err(|p| self.fetcher.whole_file_error(p, &url))
    }

    fn cancelled(&self) -> bool {
        self.fetcher.is_cancelled()
    }

    /// No request: the first preview's ranged GET is the first one (its size unknown until
    /// then).
    async fn open_unread(&self, name: &str) -> Result<HttpSource<W>, SourceError> {
        let url = self.urls.url_of(name);
        (self.fetcher.reopen(&Location::unread(&url), Rc::default()))
            .map_err(|p| self.fetcher.whole_file_error(p, &url))
    }
}

/// Opens the remote files `given` (name, URL) as one model with `fetcher` (its endpoint,
/// token, cancellation, progress), counting requests per file in `counters`: one file, the
/// whole split set of a part, an index and its shards; `listed`: the paths of the Hub
/// listing the files were picked from (parts it lacks are reported missing, never asked
/// for); `options`: what the engine may add. Errors: as [`read_header`].
pub async fn read_remote<W: Wording>(
    fetcher: Rc<Fetcher<W>>,
    counters: Counters,
    given: &[(String, String)],
    listed: Option<&[String]>,
    options: Options,
) -> Result<Opened, OpenError> {
    let h = read_header(&fetcher, counters.clone(), given, listed, options).await?;
    // The previews' reads count in each file's counter and redraw the opening's progress.
    let files = h.model.files(&h.name);
    Ok(Opened {
        source: preview_source(&fetcher, h.located, Some((counters, files))),
        name: h.name,
        model: h.model,
        stats: h.stats,
    })
}

/// A remote model's header as read, without a reader of its data: what a shared reading
/// keeps ([`read_shared`]); each consumer reads previews with its own fetcher
/// ([`preview_source`]).
pub struct RemoteHeader {
    /// The display name.
    pub name: String,
    /// The model, with a warning on each file whose server ignored Range.
    pub model: Rc<OpenedModel>,
    /// Reads and bytes of the header reading, over every file.
    pub stats: ReadStats,
    /// Where each file read lives, in the merged model's part order.
    pub located: Vec<Location>,
}

/// [`read_remote`] up to the previews' reader. Errors: nothing could be opened, with each
/// file's failure worded by `fetcher`; [`OpenError::Cancelled`] once `fetcher` is cancelled,
/// whatever failed.
pub async fn read_header<W: Wording>(
    fetcher: &Rc<Fetcher<W>>,
    counters: Counters,
    given: &[(String, String)],
    listed: Option<&[String]>,
    options: Options,
) -> Result<RemoteHeader, OpenError> {
    let opener = RemoteFiles::new(fetcher.clone(), counters, given, listed);
    let names: Vec<String> = given.iter().map(|(n, _)| n.clone()).collect();
    let opened = open(&opener, &names, options).await;
    let mut o = opened.map_err(|e| match fetcher.is_cancelled() {
        true => OpenError::Cancelled,
        false => e,
    })?;
    let located: Vec<Location> = o.sources.iter().map(HttpSource::location).collect();
    let no_range: Vec<bool> = located.iter().map(|at| at.no_range).collect();
    o.model.warn_no_range(&o.name, &no_range);
    // The header reads' sources end here (a no-Range download is aborted when its source is
    // dropped); previews reopen the files by location.
    drop(o.sources);
    Ok(RemoteHeader {
        name: o.name,
        model: Rc::new(o.model),
        stats: o.stats,
        located,
    })
}

fn unreadable(size: u64, why: &str) -> Box<dyn DynByteSource> {
    Box::new(Unreadable {
        size,
        why: why.to_string(),
    })
}

/// Previews of a remote model: a Range reader of the part holding the tensor (`located`:
/// where each file read lives, in the merged model's part order), at the URL its header was
/// read from (after redirects), with the file size already known, so a preview is one request
/// for exactly its window's bytes. Uses the opening's endpoint and token (the token still goes
/// only to the endpoint's origin). Requests of previews are cancelled with the opening's
/// fetcher ([`Fetcher::child`]).
/// `counted`: the opening's counters and its files' names in part order, when its previews'
/// requests are counted there and told to its progress display.
pub fn preview_source<W: Wording>(
    opening: &Rc<Fetcher<W>>,
    located: Vec<Location>,
    counted: Option<(Counters, Vec<String>)>,
) -> SourceFactory {
    let fetcher = match &counted {
        Some(_) => opening.child_with_progress(),
        None => opening.child(),
    };
    Rc::new(move |part| {
        let l = match Location::of_part(&located, part) {
            Ok(l) => l,
            Err((size, why)) => return unreadable(size, why),
        };
        let counter = counted
            .as_ref()
            .and_then(|(c, files)| Some(counter_of(c, files.get(part)?)));
        match fetcher.reopen(l, counter.unwrap_or_default()) {
            Ok(src) => Box::new(src),
            Err(p) => unreadable(l.size, &fetcher.details(&p, &l.url)),
        }
    })
}

/// Headers kept after their reading for later elements and API calls on the same files: a
/// docs page shows a handful of models, and each kept one holds its header in memory
/// (Gemma 3 270M's: 6.8 MB parsed into its metadata and tensor table).
pub const KEPT_HEADERS: usize = 4;

// The error is shared as it is (`Rc`): every consumer words the same one.
type Readings =
    super::shared::Readings<Key, Rc<RemoteHeader>, Rc<OpenError>, Rc<Watchers<Counters>>>;

thread_local! {
    /// The page's shared readings of remote headers (its elements' and API calls').
    static READINGS: Readings = Readings::new(
        KEPT_HEADERS,
        // A header cut short by an error is read again by whoever asks next.
        Box::new(|h: &Rc<RemoteHeader>| h.model.error.is_none()),
    );
}

/// Opens the remote files `given` as [`read_remote`] does, sharing one reading with every
/// other consumer (element, API call) on the same files, endpoint and token: a reading in
/// flight is joined (its requests are not made again), a header read before is used as it
/// is. `own` is this consumer's fetcher (its endpoint, token, read timeout and words; the
/// previews' requests are its children): cancelling it makes this consumer leave, and the
/// reading is cancelled only when its last consumer leaves. `on_progress` is told the
/// shared reading's counters. Errors: as [`read_header`] (worded by the fetcher of the
/// consumer that started the reading, shared by every consumer); [`OpenError::Cancelled`]
/// when `own` is cancelled.
pub async fn read_shared<W: Wording>(
    own: Rc<Fetcher<W>>,
    given: Vec<(String, String)>,
    on_progress: Watch<Counters>,
    options: Options,
) -> Result<Opened, Rc<OpenError>> {
    let key = Key::new(&given, &own.endpoint, own.token.as_deref());
    let (endpoint, token) = (own.endpoint.clone(), own.token.clone());
    let (whose, timeout_ms) = (own.whose, own.timeout_ms);
    let join = READINGS.with(|r| {
        r.join(key, move || {
            let watchers = Rc::new(Watchers::new(Counters::default()));
            let w = watchers.clone();
            let tell = Box::new(move || w.notify());
            let fetcher = Rc::new(Fetcher::new(endpoint, token, tell, whose, timeout_ms));
            let (f, c) = (fetcher.clone(), watchers.state.clone());
            Start {
                context: watchers,
                reading: Box::pin(async move {
                    let header = read_header(&f, c, &given, None, options).await;
                    header.map(Rc::new).map_err(Rc::new)
                }),
                cancel: Box::new(move || fetcher.cancel()),
            }
        })
    });
    let mut ticket = join.ticket;
    ticket.context().watch(&on_progress);
    if let Some(driver) = join.driver {
        wasm_bindgen_futures::spawn_local(driver);
    }
    let leave = ticket.leaver();
    own.on_cancel(Box::new(move || leave.leave()));
    let header = match (&mut ticket).await {
        Ok(h) => h,
        Err(Joined::Failed(e)) => return Err(e),
        Err(Joined::Left) => return Err(Rc::new(OpenError::Cancelled)),
    };
    drop(on_progress);
    Ok(Opened {
        name: header.name.clone(),
        model: header.model.clone(),
        stats: header.stats.clone(),
        source: preview_source(&own, header.located.clone(), None),
    })
}

/// The shared reading of the remote file at `url` alone (joined while in flight, or kept),
/// for the full module to read the same header without a request: `(where it lives, the
/// model, whose `bytes` are those read from offset 0)`. `None` when there is no such
/// reading, it failed, or its server ignores Range (its stream is gone).
pub async fn header_prefix(url: &str) -> Option<(Location, Rc<OpenedModel>)> {
    let ticket = READINGS.with(|r| r.join_existing(|k| k.is_only(url)))?;
    let header = ticket.await.ok()?;
    let one = Location::handover(&header.located, header.model.parts.len())?;
    Some((one.clone(), header.model.clone()))
}
