//! A model as opened: one file's [`Model`] (or several files' merged into one), with what only
//! opening knows: the files of a set ([`Part`]), how complete the set is ([`SetInfo`]), and what
//! was read beside the header ([`Sidecar`]). Filled in by [`super::read`] and
//! [`super::merge`]; the set's own findings are [`super::findings`].

use std::ops::{Deref, DerefMut};

use crate::format::{Format, Model, Value};

/// A model as opened: the [`Model`] (for a set, merged from its parts by [`super::merge`]) and
/// what describes the set of files and the reading rather than one file. Dereferences to the
/// [`Model`], so code that reads one file's description takes `&Model` and is given this.
#[derive(Debug, Clone)]
pub struct OpenedModel {
    /// The model's description: one file's header, or the parts' merged (the first part's
    /// metadata, every part's tensors in part order).
    pub model: Model,
    /// For a model stored in several files (a GGUF split set, safetensors shards) merged into
    /// one by [`super::merge`]: the files, in order; empty for a single file. Tensor offsets
    /// are then relative to their own part's file.
    pub parts: Vec<Part>,
    /// What was read besides the header to describe the model: `config.json` beside the file
    /// and the data of a few small descriptive tensors (quantised safetensors layouts, see
    /// [`crate::summary::quant_st`]). Empty unless the caller read them.
    pub sidecar: Sidecar,
    /// The set of files this model was opened from, when it is (or should be) more than one
    /// file: which were read, which are missing, which given files do not belong. `None` for
    /// a single file that is the whole model.
    pub set: Option<SetInfo>,
}

impl From<Model> for OpenedModel {
    /// A single file that is the whole model, with nothing read beside it.
    fn from(model: Model) -> Self {
        OpenedModel {
            model,
            parts: Vec::new(),
            sidecar: Sidecar::default(),
            set: None,
        }
    }
}

impl Deref for OpenedModel {
    type Target = Model;
    fn deref(&self) -> &Model {
        &self.model
    }
}

impl DerefMut for OpenedModel {
    fn deref_mut(&mut self) -> &mut Model {
        &mut self.model
    }
}

/// The warning on a file whose server ignores Range.
pub const NO_RANGE_WARNING: &str = "this server ignores Range requests: the header was read from the start of a full download, which was then cancelled";

impl OpenedModel {
    /// The file of each source of this model read as `name`: the merged model's parts, or
    /// the one file.
    pub fn files(&self, name: &str) -> Vec<String> {
        if self.parts.is_empty() {
            vec![name.to_string()]
        } else {
            self.parts.iter().map(|p| p.name.clone()).collect()
        }
    }

    /// Warns on each file of this model read as `name` ([`OpenedModel::files`]) that was
    /// read from the start of a full download ([`NO_RANGE_WARNING`]): `no_range[i]` says
    /// whether file `i`'s server ignored Range.
    pub fn warn_no_range(&mut self, name: &str, no_range: &[bool]) {
        for (file, &no_range) in self.files(name).iter().zip(no_range) {
            if no_range {
                self.model.warnings.push(crate::format::Warning {
                    field: file.to_string(),
                    offset: 0,
                    message: NO_RANGE_WARNING.into(),
                });
            }
        }
    }

    /// The 0-based part holding tensor `index`, for a merged model.
    pub fn part_of(&self, index: usize) -> Option<usize> {
        self.parts.iter().position(|p| p.tensors.contains(&index))
    }

    /// The byte source holding tensor `index`'s data, among the opened files' sources
    /// ([`crate::open::read::Opened::sources`]): its part of a merged model, the ONNX side file
    /// opened for it, else 0 (the one file).
    pub fn source_of(&self, index: usize) -> usize {
        if let Some(f) = self.onnx().and_then(|o| o.side_file_of(index)) {
            return f.source;
        }
        self.part_of(index).unwrap_or(0)
    }

    /// The size of the file holding tensor `index`'s data (see [`OpenedModel::source_of`]);
    /// `u64::MAX` for a remote side file whose size is not known yet.
    pub fn data_file_size(&self, index: usize) -> u64 {
        if let Some(f) = self.onnx().and_then(|o| o.side_file_of(index)) {
            return f.size.unwrap_or(u64::MAX);
        }
        self.part_of(index)
            .and_then(|p| self.parts.get(p))
            .map_or(self.file_size, |p| p.file_size)
    }
}

/// A given file that is not part of the model opened, and why.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Stray {
    /// The file's name as given.
    pub name: String,
    /// Why it was not merged (`part 2 of another set, x-…`, `a second copy of part 1`, …).
    pub why: String,
}

/// How a model stored in several files was opened (filled in by [`crate::open`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct SetInfo {
    /// `"gguf-split"` (llama.cpp's gguf-split parts) or `"safetensors-shards"`.
    pub kind: &'static str,
    /// Files the whole model has (`split.count`, the index's shards, the `-of-N` of the
    /// names).
    pub files_expected: u32,
    /// Files of the set that were read, in part order.
    pub files_read: Vec<String>,
    /// Files of the set that were not given or not found.
    pub missing: Vec<String>,
    /// Tensors the whole model has, when a file says (`split.tensors.count`, the index's
    /// `weight_map`).
    pub model_tensors: Option<u64>,
    /// The safetensors index read, if any.
    pub index: Option<String>,
    /// Files given that were not merged, and why (another set's part, a second copy, …).
    pub strays: Vec<Stray>,
    /// The 1-based number of the one part read alone (from its place in the set's names, or
    /// a renamed part's `split.no`); `None` for a whole set or several parts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub part: Option<u64>,
    /// Files of the set that were given or found but could not be read, and why.
    pub unreadable: Vec<Stray>,
    /// The index's contents, for the checks of the shards against it (not exported).
    #[serde(skip)]
    pub shard_index: Option<ShardIndex>,
}

impl SetInfo {
    /// Whether every file of the set was read.
    pub fn complete(&self) -> bool {
        self.missing.is_empty()
            && self.unreadable.is_empty()
            && self.files_read.len() as u64 >= u64::from(self.files_expected)
    }
}

/// Facts read besides a model's header that some layouts need (the quantised safetensors
/// layouts of [`crate::summary::quant_st`]). Every field is untrusted input, like the file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sidecar {
    /// The model's `config.json` (Hugging Face layout: `quantization_config`, MLX's
    /// `quantization`), or an AutoGPTQ `quantize_config.json`, parsed.
    pub config: Option<serde_json::Value>,
    /// Where the config came from (a path or URL), for messages.
    pub config_source: Option<String>,
    /// Why a config that was found could not be used (unreadable, not JSON, too large).
    pub config_error: Option<String>,
    /// The data bytes of small tensors, by tensor name: the bitsandbytes `quant_state` JSON
    /// and the compressed-tensors `weight_shape`, which hold logical shapes in tensor data
    /// rather than in the header (see [`crate::summary::quant_st::wanted_tensor_data`]).
    pub tensor_data: std::collections::BTreeMap<String, Vec<u8>>,
}

/// Largest config file [`Sidecar::attach_config`] parses: 16 MiB (real ones are a few KiB; a
/// multimodal one with long lists is under 100 KB).
pub const MAX_CONFIG_BYTES: u64 = 16 << 20;

impl Sidecar {
    /// Puts a config file's bytes (`config.json`, or AutoGPTQ's `quantize_config.json`) here:
    /// parsed, or with the reason it cannot be used (too large, not JSON), which
    /// `summary::quant_st::analyse` reports as a `quant-config-unreadable` finding. `source`
    /// names it in messages (a path or URL).
    pub fn attach_config(&mut self, bytes: &[u8], source: &str) {
        self.config_source = Some(source.to_string());
        self.config = None;
        self.config_error = None;
        if bytes.len() as u64 > MAX_CONFIG_BYTES {
            self.config_error = Some(format!(
                "{source}: {} bytes; the limit is {MAX_CONFIG_BYTES}",
                bytes.len()
            ));
            return;
        }
        match serde_json::from_slice::<serde_json::Value>(bytes) {
            Ok(v) => self.config = Some(v),
            Err(e) => self.config_error = Some(format!("{source}: not JSON: {e}")),
        }
    }
}

/// One file of a model stored in several.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// File name (path inside the repository, or URL).
    pub name: String,
    /// Size of this file.
    pub file_size: u64,
    /// Header bytes of this file.
    pub header_size: u64,
    /// Indexes into [`Model::tensors`] of this file's tensors (contiguous, in part order).
    pub tensors: std::ops::Range<usize>,
    /// This file's format (a set should have one).
    pub format: Format,
    /// 0-based place of this file in its set: the number in its name (`-00002-of-` is 1),
    /// else its place among the files given.
    pub position: u64,
    /// This file's own `split.*` keys (GGUF; only the first part's metadata is kept).
    pub split: SplitKeys,
}

/// A GGUF file's `split.no`, `split.count` and `split.tensors.count` (llama.cpp's
/// gguf-split), each when present and a non-negative integer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SplitKeys {
    /// `split.no`: 0-based part number.
    pub no: Option<u64>,
    /// `split.count`: parts in the set.
    pub count: Option<u64>,
    /// `split.tensors.count`: tensors in the whole set.
    pub tensors: Option<u64>,
}

impl SplitKeys {
    /// The keys of `m`'s metadata (one file's).
    pub fn of(m: &Model) -> SplitKeys {
        let get = |k: &str| m.get(k).and_then(Value::as_u64);
        SplitKeys {
            no: get("split.no"),
            count: get("split.count"),
            tensors: get("split.tensors.count"),
        }
    }
}

/// A safetensors shard index (`model.safetensors.index.json`), without its JSON tree: shard
/// file names once each, and (tensor, shard) pairs in file order. Parsed by
/// `open::merge::parse_index`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShardIndex {
    /// `metadata.total_size`, when present and a non-negative integer.
    pub total_size: Option<u64>,
    /// Distinct shard file names, in order of first appearance in `weight_map`.
    pub files: Vec<String>,
    /// (tensor name, index into `files`), in file order.
    pub weight_map: Vec<(String, u32)>,
}

impl ShardIndex {
    /// The shard file names sorted as the files are numbered (`-00001-of-` first).
    pub fn files_in_order(&self) -> Vec<String> {
        let mut f = self.files.clone();
        f.sort();
        f
    }

    /// Tensor names the index places in `file`.
    pub fn tensors_in(&self, file: &str) -> impl Iterator<Item = &str> {
        let id = self.files.iter().position(|f| f == file);
        self.weight_map
            .iter()
            .filter(move |(_, f)| Some(*f as usize) == id)
            .map(|(n, _)| n.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_file_read_without_range_is_warned_by_name() {
        // An empty safetensors file: 8 bytes of header length, then `{}`.
        let mut bytes = 2u64.to_le_bytes().to_vec();
        bytes.extend_from_slice(b"{}");
        let mut m = OpenedModel::from(crate::source::parse_bytes(&bytes).unwrap());
        let before = m.warnings.len();
        m.warn_no_range("one.safetensors", &[false]);
        assert_eq!(m.warnings.len(), before);
        assert_eq!(m.files("one.safetensors"), ["one.safetensors"]);
        let part = |name: &str, position| Part {
            name: name.into(),
            file_size: 10,
            header_size: 5,
            tensors: 0..0,
            format: Format::Gguf,
            position,
            split: SplitKeys::default(),
        };
        m.parts = vec![part("a-1.gguf", 0), part("a-2.gguf", 1)];
        assert_eq!(m.files("a-1.gguf (2 parts)"), ["a-1.gguf", "a-2.gguf"]);
        // Each part's own warning, named by the part.
        m.warn_no_range("a-1.gguf (2 parts)", &[false, true]);
        assert_eq!(m.warnings.len(), before + 1);
        let w = &m.warnings[before];
        let said = (w.field.as_str(), w.message.as_str(), w.offset);
        assert_eq!(said, ("a-2.gguf", NO_RANGE_WARNING, 0));
    }
}
