//! The CLI's openers (native only): local files by path, and remote files by URL over
//! HTTP(S) Range requests ([`crate::source::net`]). Both serve [`super::read::open`].

use std::collections::HashMap;
use std::path::Path;
use std::rc::Rc;

use super::read::Opener;
use super::recognise::{dir_prefix, file_name};
use crate::remote::hub::sibling_url;
use crate::source::file::FileSource;
use crate::source::net::{Client, NetSource};
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
        FileSource::open(Path::new(name)).map_err(|e| SourceError::Io {
            offset: 0,
            len: 0,
            cause: e.to_string(),
        })
    }

    async fn read_all(&self, name: &str, cap: u64) -> Result<Vec<u8>, SourceError> {
        let io = |e: std::io::Error| SourceError::Io {
            offset: 0,
            len: 0,
            cause: e.to_string(),
        };
        let meta = std::fs::metadata(name).map_err(io)?;
        if !meta.is_file() {
            return Err(SourceError::Unavailable("not a regular file".into()));
        }
        if meta.len() > cap {
            return Err(SourceError::TooLarge {
                size: Some(meta.len()),
                cap,
            });
        }
        std::fs::read(name).map_err(io)
    }
}

/// Remote files: each name is a URL given, or a file beside the first URL (a split set's
/// other parts, an index's shards, `config.json`), which is assumed to exist until the
/// server says otherwise.
pub struct NetOpener {
    /// The client (endpoint, token, counters).
    pub client: Rc<Client>,
    /// Name → URL of the files given.
    urls: HashMap<String, String>,
    /// The first URL given and its name: siblings are resolved against it.
    base: Option<(String, String)>,
}

impl NetOpener {
    /// An opener for the files `given` as (name, URL): the name is the path inside the
    /// repository for Hub files, else the URL's last segment.
    pub fn new(client: Rc<Client>, given: &[(String, String)]) -> NetOpener {
        NetOpener {
            client,
            urls: given.iter().cloned().collect(),
            base: given.first().cloned(),
        }
    }

    /// The URL of `name`: its own if given, else beside the first URL given.
    pub fn url_of(&self, name: &str) -> String {
        if let Some(u) = self.urls.get(name) {
            return u.clone();
        }
        match &self.base {
            Some((base_name, base_url)) => {
                let rel = name
                    .strip_prefix(dir_prefix(base_name))
                    .unwrap_or_else(|| file_name(name));
                sibling_url(base_url, rel)
            }
            None => name.to_string(),
        }
    }
}

impl Opener for NetOpener {
    type Source = NetSource;

    fn policy(&self) -> ReadPolicy {
        ReadPolicy::REMOTE
    }

    fn available(&self, _name: &str) -> bool {
        true
    }

    async fn open(&self, name: &str, first_read: u64) -> Result<NetSource, SourceError> {
        self.client.open(&self.url_of(name), first_read)
    }

    async fn read_all(&self, name: &str, cap: u64) -> Result<Vec<u8>, SourceError> {
        self.client.get_all(&self.url_of(name), cap)
    }
}
