//! Groups a repository's files into the models a person would pick: a single `.gguf` or
//! `.safetensors`, a split GGUF set (`name-00001-of-00003.gguf`, llama.cpp's gguf-split naming)
//! or a sharded safetensors set (`*.safetensors.index.json` with its shards, or
//! `model-00001-of-00002.safetensors` files without an index).

use serde::Serialize;

use crate::format::Format;

/// One file of a repository listing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RepoFile {
    /// Path inside the repository.
    pub path: String,
    /// Size in bytes (the LFS object's size for LFS files).
    pub size: u64,
}

/// What kind of model an entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    /// One GGUF file.
    Gguf,
    /// A split GGUF set.
    GgufSplit,
    /// One safetensors file.
    Safetensors,
    /// Several safetensors shards (with or without an index file).
    SafetensorsShards,
    /// One PyTorch checkpoint (`.bin`, `.pt`, `.pth`, `.ckpt`, TorchScript `.jit`, a legacy
    /// `.tar`: `format::registry`), read by its bytes: a `.bin` that is safetensors or GGUF
    /// opens as that.
    Pytorch,
    /// One ONNX model (`.onnx`).
    Onnx,
    /// One NumPy array or archive (`.npy`, `.npz`).
    Numpy,
}

/// One pickable model in a repository.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Entry {
    /// What to show: the file name, or the set's common name with its part count.
    pub label: String,
    /// The kind.
    pub kind: EntryKind,
    /// The files to read, in order (shards by number).
    pub files: Vec<String>,
    /// The index file, for safetensors sets that have one.
    pub index: Option<String>,
    /// Total bytes of the files.
    pub size: u64,
    /// Set members named by the pattern but absent from the listing (a broken set).
    pub missing: Vec<String>,
}

/// Splits `name-00001-of-00003.ext` into (`name`, 1, 3). Numbers are 5 digits in both
/// llama.cpp's gguf-split and transformers' shard names.
pub fn split_name<'a>(path: &'a str, ext: &str) -> Option<(&'a str, u32, u32)> {
    let stem = path.strip_suffix(ext)?;
    let (rest, count) = stem.rsplit_once("-of-")?;
    let (prefix, index) = rest.rsplit_once('-')?;
    let digits = |s: &str| s.len() == 5 && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(index) || !digits(count) {
        return None;
    }
    Some((prefix, index.parse().ok()?, count.parse().ok()?))
}

fn shard_name(prefix: &str, i: u32, n: u32, ext: &str) -> String {
    format!("{prefix}-{i:05}-of-{n:05}{ext}")
}

/// Groups a listing into entries, largest first. Files that are not model files are ignored.
pub fn group(files: &[RepoFile]) -> Vec<Entry> {
    let size_of = |p: &str| files.iter().find(|f| f.path == p).map(|f| f.size);
    let mut used: Vec<&str> = Vec::new();
    let mut out = Vec::new();
    for f in files {
        if let Some(base) = f.path.strip_suffix(".safetensors.index.json") {
            let dir = base
                .rsplit_once('/')
                .map(|(d, _)| format!("{d}/"))
                .unwrap_or_default();
            let shards: Vec<&RepoFile> = files
                .iter()
                .filter(|s| {
                    s.path.ends_with(".safetensors")
                        && s.path.starts_with(&dir)
                        && !s.path[dir.len()..].contains('/')
                        && split_name(&s.path, ".safetensors").is_some_and(|(p, _, _)| {
                            base.ends_with(p.rsplit('/').next().unwrap_or(p))
                                || p.ends_with(base.rsplit('/').next().unwrap_or(base))
                        })
                })
                .collect();
            used.push(&f.path);
            used.extend(shards.iter().map(|s| s.path.as_str()));
            out.push(Entry {
                label: f.path.clone(),
                kind: EntryKind::SafetensorsShards,
                files: shards.iter().map(|s| s.path.clone()).collect(),
                index: Some(f.path.clone()),
                size: shards.iter().map(|s| s.size).sum(),
                missing: Vec::new(),
            });
        }
    }
    for ext in [".gguf", ".safetensors"] {
        for f in files {
            if used.contains(&f.path.as_str()) || !f.path.ends_with(ext) {
                continue;
            }
            let Some((prefix, _, count)) = split_name(&f.path, ext) else {
                continue;
            };
            if count < 2 {
                continue;
            }
            let names: Vec<String> = (1..=count)
                .map(|i| shard_name(prefix, i, count, ext))
                .collect();
            let (present, missing): (Vec<String>, Vec<String>) =
                names.into_iter().partition(|n| size_of(n).is_some());
            used.extend(
                files
                    .iter()
                    .filter(|x| present.contains(&x.path))
                    .map(|x| x.path.as_str()),
            );
            out.push(Entry {
                label: format!("{prefix}{ext} ({count} parts)"),
                kind: if ext == ".gguf" {
                    EntryKind::GgufSplit
                } else {
                    EntryKind::SafetensorsShards
                },
                size: present.iter().filter_map(|p| size_of(p)).sum(),
                files: present,
                index: None,
                missing,
            });
        }
    }
    for f in files {
        if used.contains(&f.path.as_str()) {
            continue;
        }
        // One model file, by its ending (the format registry's list).
        let kind = match crate::format::registry::format_of_name(&f.path) {
            Some(Format::Gguf) => EntryKind::Gguf,
            Some(Format::Safetensors) => EntryKind::Safetensors,
            Some(Format::Pytorch | Format::PytorchLegacy) => EntryKind::Pytorch,
            Some(Format::Onnx) => EntryKind::Onnx,
            Some(Format::Numpy) => EntryKind::Numpy,
            None => continue,
        };
        out.push(Entry {
            label: f.path.clone(),
            kind,
            files: vec![f.path.clone()],
            index: None,
            size: f.size,
            missing: Vec::new(),
        });
    }
    out.sort_by(|a, b| a.label.cmp(&b.label));
    out
}

/// The entry `name` picks: its label, its label without the part count (`x.gguf` for
/// `x.gguf (3 parts)`), its index, or any of its files (by path or by file name).
pub fn find_entry<'a>(entries: &'a [Entry], name: &str) -> Option<&'a Entry> {
    let file = |p: &str| p.rsplit('/').next().unwrap_or(p).to_string();
    entries.iter().find(|e| {
        e.label == name
            || e.label
                .rsplit_once(" (")
                .is_some_and(|(l, n)| l == name && n.ends_with(" parts)"))
            || e.index.as_deref() == Some(name)
            || e.files.iter().any(|x| x == name || file(x) == name)
    })
}

/// The Hub's file listing is not the JSON its API documents (serde_json's words: what and where).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListingError(pub String);

impl std::fmt::Display for ListingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the Hub's file listing is not the expected JSON: {}",
            self.0
        )
    }
}

impl std::error::Error for ListingError {}

/// Reads the Hub API tree listing (`[{"type": "file", "path", "size", "lfs": {"size"}}, ...]`)
/// into files; directories are skipped. Errors: [`ListingError`].
pub fn parse_tree_listing(json: &str) -> Result<Vec<RepoFile>, ListingError> {
    #[derive(serde::Deserialize)]
    struct Lfs {
        size: u64,
    }
    #[derive(serde::Deserialize)]
    struct Item {
        #[serde(rename = "type")]
        kind: String,
        path: String,
        #[serde(default)]
        size: u64,
        lfs: Option<Lfs>,
    }
    let items: Vec<Item> = serde_json::from_str(json).map_err(|e| ListingError(e.to_string()))?;
    Ok(items
        .into_iter()
        .filter(|i| i.kind == "file")
        .map(|i| RepoFile {
            size: i.lfs.map_or(i.size, |l| l.size),
            path: i.path,
        })
        .collect())
}
