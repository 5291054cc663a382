//! Model file formats behind one interface: sniff the bytes, parse the header, get a [`Model`].
//!
//! Each format has its own module ([`gguf`], [`safetensors`]) that parses its header from a
//! prefix of the file; this module turns either into the common [`Model`]: metadata, tensors
//! with absolute offsets, byte sizes and element counts, warnings, and the fatal error that
//! stopped parsing, if any (everything parsed before it is kept). Sets of files and what is
//! read beside a file are [`crate::open`]'s ([`crate::open::OpenedModel`]).
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

/// A parsed model header, in the terms shared by all formats: what one file says. (A model
/// stored in several files, and what was read beside it, is described by
/// [`crate::open::OpenedModel`], which holds the merged `Model`.)
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
        // check::check_one_file reports the unknown type; the note says how the size was found.
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
        detail: Detail::None,
    }
}
