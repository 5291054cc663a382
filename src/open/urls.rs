//! Names to URLs for the openers of remote files (the CLI's `super::native::NetOpener`, the
//! page's and the element's): a name given with its URL keeps it; any other name (a split
//! set's other part, an index's shard, `config.json`) is the file beside the first URL given,
//! at the same path relative to the first name's directory.

use std::collections::{HashMap, HashSet};

use super::recognise::{dir_prefix, file_name};
use crate::remote::hub::sibling_url;

/// The URLs of the files given, and where their siblings are.
#[derive(Debug, Clone, Default)]
pub struct Urls {
    /// Name → URL of the files given.
    given: HashMap<String, String>,
    /// The first file given (name, URL): siblings are resolved against it.
    base: Option<(String, String)>,
    /// The repository's files, when a listing said which exist: other names are not there.
    listed: Option<HashSet<String>>,
}

impl Urls {
    /// The files `given` as (name, URL): the name is the path inside the repository for Hub
    /// files, else the URL's last segment.
    pub fn new(given: &[(String, String)]) -> Urls {
        Urls {
            given: given.iter().cloned().collect(),
            base: given.first().cloned(),
            listed: None,
        }
    }

    /// These files, of a repository whose listing names every file that exists (`paths` in
    /// the repository): a set member it lacks is missing, never asked for.
    pub fn with_listing(mut self, paths: impl IntoIterator<Item = String>) -> Urls {
        self.listed = Some(paths.into_iter().collect());
        self
    }

    /// Whether the file `name` may exist: any name without a listing, else the listed ones.
    pub fn available(&self, name: &str) -> bool {
        self.listed.as_ref().is_none_or(|l| l.contains(name))
    }

    /// The URL of `name`: its own if given, else beside the first URL given (query and
    /// fragment dropped); `name` itself when nothing was given.
    pub fn url_of(&self, name: &str) -> String {
        if let Some(u) = self.given.get(name) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn siblings_beside_the_first_url() {
        let u = Urls::new(&[(
            "dir/m-00001-of-00002.gguf".into(),
            "https://h/o/r/resolve/main/dir/m-00001-of-00002.gguf?download=true".into(),
        )]);
        assert_eq!(
            u.url_of("dir/m-00001-of-00002.gguf"),
            "https://h/o/r/resolve/main/dir/m-00001-of-00002.gguf?download=true"
        );
        assert_eq!(
            u.url_of("dir/m-00002-of-00002.gguf"),
            "https://h/o/r/resolve/main/dir/m-00002-of-00002.gguf"
        );
        assert_eq!(
            u.url_of("dir/config.json"),
            "https://h/o/r/resolve/main/dir/config.json"
        );
        assert_eq!(Urls::default().url_of("x.gguf"), "x.gguf");
        assert!(u.available("dir/m-00002-of-00002.gguf"));
        let listed = u.with_listing(["dir/m-00001-of-00002.gguf".to_string()]);
        assert!(listed.available("dir/m-00001-of-00002.gguf"));
        assert!(!listed.available("dir/m-00002-of-00002.gguf"));
    }
}
