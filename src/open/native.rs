//! The CLI's openers (native only): local files by path, and remote files by URL over
//! HTTP(S) Range requests ([`crate::source::net`]). Both serve [`super::read::open`].

use std::path::Path;
use std::sync::Arc;

use super::read::{OpenError, Opener};
use super::urls::Urls;
use crate::format::Model;
use crate::source::file::FileSource;
use crate::source::net::{Client, NetSource};
use crate::source::{block_on_ready, on_thread, read_model, ReadStats};
use crate::source::{ReadPolicy, SourceError};

/// Local files, named by their paths; a file beside another (`dir/` + name) is available when
/// it exists.
#[derive(Debug, Default, Clone, Copy)]
pub struct LocalOpener;

impl Opener for LocalOpener {
    type Source = FileSource;

    fn policy(&self) -> ReadPolicy {
        ReadPolicy::LOCAL
    }

    fn available(&self, name: &str) -> bool {
        Path::new(name).is_file()
    }

    async fn open(&self, name: &str, _first_read: u64) -> Result<FileSource, SourceError> {
        FileSource::open(Path::new(name)).map_err(|e| SourceError::Unavailable(e.to_string()))
    }

    async fn open_unread(&self, name: &str) -> Result<FileSource, SourceError> {
        FileSource::open(Path::new(name)).map_err(|e| SourceError::Unavailable(e.to_string()))
    }

    async fn read_all(&self, name: &str, cap: u64) -> Result<Vec<u8>, SourceError> {
        let meta = std::fs::metadata(name).map_err(|e| SourceError::Unavailable(e.to_string()))?;
        if !meta.is_file() {
            return Err(SourceError::Unavailable("not a regular file".into()));
        }
        crate::source::whole_within(meta.len(), cap)?;
        std::fs::read(name).map_err(|e| SourceError::Io {
            offset: 0,
            len: meta.len(),
            cause: e.to_string(),
        })
    }
}

/// Remote files: each name is a URL given, or a file beside the first URL (a split set's
/// other parts, an index's shards, `config.json`), which is assumed to exist until the
/// server says otherwise.
pub struct NetOpener {
    /// The client (endpoint, token, counters).
    pub client: Arc<Client>,
    /// The files given, where their siblings are, and which exist when a listing says.
    urls: Urls,
}

impl NetOpener {
    /// An opener for the files `given` as (name, URL): the name is the path inside the
    /// repository for Hub files, else the URL's last segment.
    pub fn new(client: Arc<Client>, given: &[(String, String)]) -> NetOpener {
        NetOpener {
            client,
            urls: Urls::new(given),
        }
    }

    /// As [`NetOpener::new`], for files of a repository whose listing names every file that
    /// exists (paths in the repository): a set member it lacks is missing, not asked for.
    pub fn with_listing(mut self, paths: impl IntoIterator<Item = String>) -> NetOpener {
        self.urls = self.urls.with_listing(paths);
        self
    }

    /// The URL of `name`: its own if given, else beside the first URL given.
    pub fn url_of(&self, name: &str) -> String {
        self.urls.url_of(name)
    }
}

impl Opener for NetOpener {
    type Source = NetSource;

    fn policy(&self) -> ReadPolicy {
        ReadPolicy::REMOTE
    }

    fn available(&self, name: &str) -> bool {
        self.urls.available(name)
    }

    async fn open(&self, name: &str, first_read: u64) -> Result<NetSource, SourceError> {
        self.client.open(&self.url_of(name), first_read)
    }

    async fn read_all(&self, name: &str, cap: u64) -> Result<Vec<u8>, SourceError> {
        self.client.get_all(&self.url_of(name), cap)
    }

    /// No request: the first preview's ranged GET is the first one.
    async fn open_unread(&self, name: &str) -> Result<NetSource, SourceError> {
        Ok(self.client.unopened(&self.url_of(name)))
    }

    /// On a worker thread: the requests block, and a set's files are read
    /// [`super::pool::POOL_SIZE`] at a time.
    async fn read_header(
        &self,
        name: &str,
        first_read: u64,
    ) -> Result<(Model, ReadStats, NetSource), OpenError> {
        let client = self.client.clone();
        let url = self.url_of(name);
        let owned = name.to_string();
        let policy = ReadPolicy {
            first_read,
            ..ReadPolicy::REMOTE
        };
        let work = move || -> Result<(Model, ReadStats, NetSource), OpenError> {
            let mut src = client
                .open(&url, first_read)
                .map_err(|error| OpenError::Source {
                    name: owned.clone(),
                    error,
                })?;
            let read = block_on_ready(read_model(&mut src, &policy));
            // A server without Range support: stop its download now that the header is read.
            src.end_stream();
            let (m, s) = read.map_err(|error| OpenError::NotAModel { name: owned, error })?;
            Ok((m, s, src))
        };
        match on_thread(work).await {
            Ok(r) => r,
            Err(_) => Err(OpenError::Source {
                name: name.to_string(),
                error: SourceError::Unavailable("reading it failed unexpectedly".into()),
            }),
        }
    }
}
