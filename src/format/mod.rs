//! Model file formats behind one interface: sniff the bytes, parse the header, get a [`Model`].
//!
//! Each format has its own module ([`gguf`], [`safetensors`]) that parses its header from a
//! prefix of the file; this module turns either into the common [`Model`]: metadata, tensors
//! with absolute offsets, byte sizes and element counts, warnings, and the fatal error that
//! stopped parsing, if any (everything parsed before it is kept).
#![forbid(unsafe_code)]

pub mod archive;
pub mod container;
pub mod cursor;
pub mod dtype;
pub mod error;
pub mod ggml_type;
pub mod gguf;
pub mod held;
pub mod numpy;
pub mod onnx;
pub mod pickle;
pub mod reader;
pub mod registry;
pub mod safetensors;
pub mod sniff;
pub mod token_index;
pub mod torch;
pub mod value;
pub mod zip;

pub use cursor::{Endian, Stop};
pub use error::{Error, ErrorKind, ReadFailure, SourceFailure, Warning};
pub use ggml_type::GgmlType;
pub use sniff::{sniff, Format};
pub use value::{ArrayRef, MetadataEntry, Text, Value, ValueType};

/// A tensor's element type, in either format's terms.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    /// A ggml type id (GGUF), known or not.
    Ggml(GgmlType),
    /// A safetensors dtype from [`safetensors::ST_DTYPES`].
    St(safetensors::StDtype),
    /// A safetensors dtype string this tool does not know, kept as written.
    StUnknown(String),
}

impl DType {
    /// Display label: the ggml or safetensors name (`Q4_K`, `BF16`), or a description of an
    /// unknown type.
    pub fn label(&self) -> String {
        match self {
            DType::Ggml(t) => t.label(),
            DType::St(d) => d.name.to_string(),
            DType::StUnknown(s) => format!("{s} (unknown)"),
        }
    }

    /// Bits per weight of the type itself (block overhead included), when defined.
    pub fn bits_per_weight(&self) -> Option<f64> {
        match self {
            DType::Ggml(t) => t.info().and_then(|i| i.bits_per_weight()),
            DType::St(d) => Some(f64::from(d.bits)),
            DType::StUnknown(_) => None,
        }
    }
}

/// One tensor of a model.
#[derive(Debug, Clone, PartialEq)]
pub struct Tensor {
    /// Name as stored.
    pub name: String,
    /// Element type.
    pub dtype: DType,
    /// Shape: ggml order (ne0 first) for GGUF, row-major as written for safetensors.
    pub shape: Vec<u64>,
    /// Absolute file offset of the tensor's first data byte.
    pub offset: u64,
    /// Number of elements; `None` when the product of the dimensions overflows 64 bits.
    pub elements: Option<u64>,
    /// Byte size of the data; for unknown types the distance to the next tensor (or the end of
    /// the file). `None` when it cannot be established.
    pub bytes: Option<u64>,
    /// Why something about this tensor is wrong or estimated, if it is.
    pub note: Option<String>,
}

/// A parsed model header, in the terms shared by all formats.
#[derive(Debug, Clone)]
pub struct Model {
    /// Detected format.
    pub format: Format,
    /// GGUF version (`None` for safetensors).
    pub version: Option<u32>,
    /// Byte order of the file's numbers.
    pub endian: Endian,
    /// Total file size in bytes.
    pub file_size: u64,
    /// Bytes before the data section (GGUF: the aligned data offset, at most the file size;
    /// safetensors: 8 + N).
    pub header_size: u64,
    /// Absolute offset of the data section.
    pub data_offset: u64,
    /// GGUF data alignment (`None` for safetensors).
    pub alignment: Option<u64>,
    /// Metadata in file order.
    pub metadata: Vec<MetadataEntry>,
    /// Number of metadata pairs the header announces (GGUF) or holds (safetensors).
    pub metadata_count: u64,
    /// Number of tensors the header announces (GGUF) or holds (safetensors).
    pub tensor_count: u64,
    /// Tensors in file order (fewer than `tensor_count` if parsing stopped early).
    pub tensors: Vec<Tensor>,
    /// Non-fatal findings.
    pub warnings: Vec<Warning>,
    /// The error that stopped parsing, if it did not finish.
    pub error: Option<Error>,
    /// The bytes read from the start of the file (at least the parsed header); lazily decoded
    /// metadata arrays point into them.
    pub bytes: Vec<u8>,
    /// For a model stored in several files (a GGUF split set, safetensors shards) merged into
    /// one by [`crate::open::merge`]: the files, in order; empty for a single file. Tensor
    /// offsets are then relative to their own part's file.
    pub parts: Vec<Part>,
    /// What was read besides the header to describe the model: `config.json` beside the file
    /// and the data of a few small descriptive tensors (quantised safetensors layouts, see
    /// [`crate::summary::quant_st`]). Empty unless the caller read them.
    pub sidecar: Sidecar,
    /// The set of files this model was opened from, when it is (or should be) more than one
    /// file: which were read, which are missing, which given files do not belong. `None` for
    /// a single file that is the whole model.
    pub set: Option<SetInfo>,
    /// What only this file's format knows (a pickle archive, an ONNX graph's facts); see
    /// [`Detail`] and the accessors [`Model::archive`] and [`Model::onnx`].
    pub detail: Detail,
}

/// The format-specific part of a [`Model`]: what one format adds to the common description
/// (format, metadata, tensors) that the other formats have no use for.
#[derive(Debug, Clone, Default)]
pub enum Detail {
    /// Nothing beyond the common description (GGUF, safetensors).
    #[default]
    None,
    /// PyTorch checkpoints and NumPy files: the pickles with their imports (the safety report)
    /// and where each tensor's storage is.
    Archive(archive::Archive),
    /// ONNX models: opsets, where each tensor was found, and which tensors' values are not one
    /// byte range of the file (varint-encoded, external, sparse).
    Onnx(onnx::OnnxInfo),
}

impl Detail {
    /// Takes the ONNX facts out, leaving [`Detail::None`] (none when this is not ONNX, which
    /// is then left as it was).
    pub fn take_onnx(&mut self) -> Option<onnx::OnnxInfo> {
        match std::mem::take(self) {
            Detail::Onnx(info) => Some(info),
            other => {
                *self = other;
                None
            }
        }
    }

    /// Takes the pickle archive out, leaving [`Detail::None`] (none when there is no archive,
    /// which is then left as it was).
    pub fn take_archive(&mut self) -> Option<archive::Archive> {
        match std::mem::take(self) {
            Detail::Archive(a) => Some(a),
            other => {
                *self = other;
                None
            }
        }
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
    /// The keys of `m`'s metadata.
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

impl Model {
    /// The index in [`Model::tensors`] of the first tensor named `name`; `None` when the
    /// model has none of that name (or stopped reading before it).
    pub fn tensor_index(&self, name: &str) -> Option<usize> {
        self.tensors.iter().position(|t| t.name == name)
    }

    /// The pickle archive of a PyTorch checkpoint or NumPy file; `None` for other formats.
    pub fn archive(&self) -> Option<&archive::Archive> {
        match &self.detail {
            Detail::Archive(a) => Some(a),
            _ => None,
        }
    }

    /// The pickle archive, to fill in while reading (see [`Model::archive`]).
    pub fn archive_mut(&mut self) -> Option<&mut archive::Archive> {
        match &mut self.detail {
            Detail::Archive(a) => Some(a),
            _ => None,
        }
    }

    /// The ONNX model's facts; `None` for other formats.
    pub fn onnx(&self) -> Option<&onnx::OnnxInfo> {
        match &self.detail {
            Detail::Onnx(o) => Some(o),
            _ => None,
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

    /// The size of the file holding tensor `index`'s data (see [`Model::source_of`]);
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

impl Model {
    /// Looks a metadata key up.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.metadata
            .iter()
            .find(|e| e.key == key)
            .map(|e| &e.value)
    }
}

/// The product of the dimensions (elements of a shape, rows over leading dimensions); `None`
/// past 64 bits.
pub(crate) fn element_count(shape: &[u64]) -> Option<u64> {
    shape.iter().try_fold(1u64, |n, &d| n.checked_mul(d))
}

/// Builds a [`Model`] from a (possibly partial) GGUF header.
pub fn model_from_gguf(
    h: gguf::GgufHeader,
    bytes: Vec<u8>,
    file_size: u64,
    error: Option<Error>,
) -> Model {
    let complete = h.directory_end != 0;
    let data_offset = if complete { h.data_offset } else { 0 };
    let warnings = h.warnings;
    let mut tensors: Vec<Tensor> = h
        .tensors
        .into_iter()
        .map(|t| {
            let elements = element_count(&t.shape);
            let (bytes, note) = match t.ggml_type.byte_size(&t.shape) {
                Ok(b) => (Some(b), None),
                Err(ggml_type::SizeError::UnknownType) => (None, None),
                Err(e) => (None, Some(e.to_string())),
            };
            let offset = data_offset.checked_add(t.rel_offset);
            let note = match (offset, note) {
                (None, _) => Some("offset overflows 64 bits".to_string()),
                (_, n) => n,
            };
            Tensor {
                name: t.name,
                dtype: DType::Ggml(t.ggml_type),
                shape: t.shape,
                offset: offset.unwrap_or(u64::MAX),
                elements,
                bytes,
                note,
            }
        })
        .collect();
    if complete {
        size_unknown_types(&mut tensors, file_size);
    }
    Model {
        format: Format::Gguf,
        // 0 until the preamble parsed (an unsupported version is not shown as "v0").
        version: (h.version != 0).then_some(h.version),
        endian: if h.big_endian {
            Endian::Big
        } else {
            Endian::Little
        },
        file_size,
        header_size: if complete {
            data_offset.min(file_size)
        } else {
            bytes.len() as u64
        },
        data_offset,
        alignment: Some(h.alignment),
        metadata: h.metadata,
        metadata_count: h.kv_count,
        tensor_count: h.tensor_count,
        tensors,
        warnings,
        error,
        bytes,
        parts: Vec::new(),
        sidecar: Sidecar::default(),
        set: None,
        detail: Detail::None,
    }
}

/// Unknown and removed ggml types have no block size: their byte size is taken as the distance
/// to the next tensor's offset (or to the end of the file for the last one), and said so.
fn size_unknown_types(tensors: &mut [Tensor], file_size: u64) {
    let mut offsets: Vec<u64> = tensors.iter().map(|t| t.offset).collect();
    offsets.sort_unstable();
    offsets.dedup();
    for t in tensors.iter_mut() {
        let DType::Ggml(g) = t.dtype else { continue };
        if g.info().is_some() {
            continue;
        }
        // The next tensor's offset (a binary search of the sorted offsets, so a file of many
        // unknown-type tensors is not quadratic), or the end of the file, whichever comes
        // first: an estimate never reaches past the file.
        let next = offsets
            .get(offsets.partition_point(|&o| o <= t.offset))
            .copied()
            .unwrap_or(file_size)
            .min(file_size);
        t.bytes = next.checked_sub(t.offset);
        t.note = Some(match t.bytes {
            Some(_) => format!(
                "{}: size estimated from the distance to the next tensor",
                g.label()
            ),
            None => format!(
                "{}: size unknown (data starts past the end of the file)",
                g.label()
            ),
        });
        // check::check reports the unknown type; the note says how the size was found.
    }
}

/// Builds a [`Model`] from a parsed safetensors header.
pub fn model_from_safetensors(h: safetensors::StHeader, bytes: Vec<u8>, file_size: u64) -> Model {
    let data_offset = h.data_offset();
    let mut warnings = h.warnings;
    let tensors = h
        .tensors
        .into_iter()
        .map(|e| {
            let dtype = match safetensors::st_dtype(&e.dtype) {
                Some(d) => DType::St(d),
                None => DType::StUnknown(e.dtype.clone()),
            };
            let elements = element_count(&e.shape);
            let (begin, end) = e.data_offsets;
            let mut note = None;
            let bytes = end.checked_sub(begin);
            if bytes.is_none() {
                note = Some(format!("data_offsets [{begin}, {end}] are reversed"));
            }
            if let (DType::St(d), Some(n), Some(b)) = (&dtype, elements, bytes) {
                let bits = n.checked_mul(u64::from(d.bits));
                if bits != b.checked_mul(8) {
                    note = Some(format!(
                        "data_offsets span {b} bytes but {n} elements of {} need {}",
                        d.name,
                        bits.map_or("more than 2^64 bits".to_string(), |x| format!("{} bits", x))
                    ));
                }
            }
            if let Some(n) = &note {
                warnings.push(Warning {
                    field: format!("tensor \"{}\"", e.name),
                    offset: 8,
                    message: n.clone(),
                });
            }
            Tensor {
                name: e.name,
                dtype,
                shape: e.shape,
                offset: data_offset.saturating_add(begin),
                elements,
                bytes,
                note,
            }
        })
        .collect::<Vec<_>>();
    Model {
        format: Format::Safetensors,
        version: None,
        endian: Endian::Little,
        file_size,
        header_size: data_offset,
        data_offset,
        alignment: None,
        metadata_count: h.metadata.len() as u64,
        metadata: h.metadata,
        tensor_count: tensors.len() as u64,
        tensors,
        warnings,
        error: None,
        bytes,
        parts: Vec::new(),
        sidecar: Sidecar::default(),
        set: None,
        detail: Detail::None,
    }
}
