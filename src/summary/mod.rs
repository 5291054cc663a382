//! What a person wants to know first about a model file, computed from its parsed header:
//! counts, parameters, bytes, bits per weight, the dtype histogram, the per-layer quantisation
//! map and (GGUF) the architecture card. Serialisable: it is the CLI's `--json` and the data the
//! page draws.
#![forbid(unsafe_code)]

pub mod arch;
pub mod diff;
pub mod fit;
pub mod layers;
pub mod memory;
pub mod quant_st;
pub mod recipe;
pub mod tokenizer;

use serde::Serialize;

use crate::check::Finding;
use crate::format::Warning;
use crate::open::OpenedModel;

pub use arch::{arch_card, ArchCard};
pub use layers::{layer_map, LayerMap};

/// One row of the dtype histogram.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DtypeRow {
    /// Type label (`Q4_K`, `F32`, `type 99 (unknown)`).
    pub dtype: String,
    /// Tensors of this type.
    pub tensors: u64,
    /// Elements (weights) of this type.
    pub elements: u64,
    /// Bytes of this type's tensors.
    pub bytes: u64,
    /// bytes × 8 / elements (`None` with no elements, and for a type whose values are not
    /// weights: [`counts_as_weights`]).
    pub bits_per_weight: Option<f64>,
}

/// One row of the tensor table, as exported.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TensorRow {
    /// Tensor name.
    pub name: String,
    /// Type label.
    pub dtype: String,
    /// Shape (GGUF: ggml order ne0 first; safetensors: row-major).
    pub shape: Vec<u64>,
    /// Elements, if the shape's product fits 64 bits.
    pub elements: Option<u64>,
    /// Absolute offset of the first data byte.
    pub offset: u64,
    /// Byte size, if known.
    pub bytes: Option<u64>,
    /// What is wrong or estimated about this tensor.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// 1-based part (file) holding the tensor, for a model merged from several files.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub part: Option<u32>,
}

/// The summary of one model file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// `"gguf"` or `"safetensors"`.
    pub format: &'static str,
    /// GGUF version.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<u32>,
    /// `"little"` or `"big"`.
    pub endianness: crate::format::Endian,
    /// File size in bytes.
    pub file_size: u64,
    /// Bytes before the data section.
    pub header_size: u64,
    /// GGUF data alignment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alignment: Option<u64>,
    /// Metadata pairs.
    pub metadata_count: u64,
    /// Tensors.
    pub tensor_count: u64,
    /// Sum of element counts of the tensors parsed (a training checkpoint's optimizer state
    /// apart: [`Summary::optimizer_state`]); for a quantised safetensors layout
    /// ([`quant_st`]) the logical parameters: packed weights unpacked, scales, zero points and
    /// other companions not counted.
    pub parameter_count: u64,
    /// Sum of the byte sizes of the tensors parsed (the optimizer state's apart).
    pub tensor_bytes: u64,
    /// A PyTorch training checkpoint's optimizer state (`optimizer.state…`, Lightning's
    /// `optimizer_states…`, see [`crate::format::torch::is_optimizer_state`]): counted here,
    /// not in the parameters, bytes or bits per weight.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub optimizer_state: Option<OptimizerState>,
    /// Bytes × 8 / elements over the tensors whose byte size is known and whose values are
    /// weights ([`counts_as_weights`]: not a NumPy structured, text or object array), as numpy
    /// counts them (`arr.itemsize * 8` bits for each of `arr.size` elements); `None` with no
    /// such tensor. For a quantised safetensors layout the effective bits per logical weight,
    /// companions' bytes included.
    pub bits_per_weight: Option<f64>,
    /// The quantised safetensors layout ([`quant_st::analyse`]), when one was recognised.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quantization: Option<quant_st::QuantReport>,
    /// The set of files the model was opened from, when it is more than one file or one part
    /// of several ([`crate::open::SetInfo`]): the totals above are then those of the files
    /// read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub set: Option<crate::open::SetInfo>,
    /// The dtype histogram, largest share of bytes first.
    pub dtypes: Vec<DtypeRow>,
    /// GGUF architecture card.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub architecture: Option<ArchCard>,
    /// Per-layer quantisation map.
    pub layers: LayerMap,
    /// Every tensor.
    pub tensors: Vec<TensorRow>,
    /// Non-fatal findings of the parser.
    pub warnings: Vec<Warning>,
    /// Validation findings ([`crate::check`]): errors first.
    pub findings: Vec<Finding>,
    /// PyTorch files: each pickle read, with every import, the calls made through it and its
    /// safety verdict.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pickles: Option<Vec<crate::format::torch::PickleInfo>>,
    /// The error that stopped parsing early, if any (what is above was parsed before it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The tensors of a checkpoint's optimizer state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct OptimizerState {
    /// Tensors.
    pub tensors: u64,
    /// Their elements.
    pub values: u64,
    /// Their bytes (when known).
    pub bytes: u64,
}

/// Summarises a parsed model, every finding included (the doctor's too).
pub fn summarize(m: &OpenedModel) -> Summary {
    let mut s = summarize_open(m);
    s.add_doctor(m);
    s
}

impl Summary {
    /// Adds the doctor's findings of `m` (the model this summary is of, by
    /// [`summarize_open`]) to [`Summary::findings`], ordered as [`summarize`] orders them: the
    /// summary then equals `summarize(m)`.
    pub fn add_doctor(&mut self, m: &OpenedModel) {
        crate::open::findings::add_doctor(m, &mut self.findings);
        if self.quantization.is_some() {
            sort_findings(&mut self.findings);
        }
    }
}

/// Findings by severity, then offset (a quantised layout's findings joined to the checks').
fn sort_findings(f: &mut [Finding]) {
    f.sort_by(|a, b| a.severity.cmp(&b.severity).then(a.offset.cmp(&b.offset)));
}

/// Summarises a parsed model for the first view of it: as [`summarize`] but without the
/// doctor's findings (tokenizer, chat template, structure), which scan the vocabulary; what a
/// model's open costs is then the header's parse and this. [`Summary::add_doctor`] adds them.
pub fn summarize_open(m: &OpenedModel) -> Summary {
    let mut dtypes: Vec<DtypeRow> = Vec::new();
    let mut params = 0u64;
    let mut bytes = 0u64;
    // Elements and bytes of the tensors of weights whose size is known: bits per weight, so a
    // tensor of unknown size does not drag the figure towards 0, and a structured array's
    // records (one element of many values) do not count as weights.
    let mut sized_params = 0u64;
    let mut weight_bytes = 0u64;
    // Labels of the types whose values are not weights (their rows get no bits per weight).
    let mut not_weights: Vec<String> = Vec::new();
    let mut warnings = m.warnings.clone();
    let mut overflow = false;
    let mut optimizer = OptimizerState::default();
    for t in &m.tensors {
        let label = t.dtype.label();
        let el = t.elements.unwrap_or(0);
        let by = t.bytes.unwrap_or(0);
        if m.archive().is_some() && crate::format::torch::is_optimizer_state(&t.name) {
            optimizer.tensors += 1;
            optimizer.values = optimizer.values.saturating_add(el);
            optimizer.bytes = optimizer.bytes.saturating_add(by);
            continue;
        }
        match params.checked_add(el).zip(bytes.checked_add(by)) {
            Some((p, b)) => (params, bytes) = (p, b),
            None => overflow = true,
        }
        let weights = counts_as_weights(m, t);
        if !weights && !not_weights.contains(&label) {
            not_weights.push(label.clone());
        }
        if t.bytes.is_some() && weights {
            sized_params = sized_params.saturating_add(el);
            weight_bytes = weight_bytes.saturating_add(by);
        }
        match dtypes.iter_mut().find(|r| r.dtype == label) {
            Some(r) => {
                r.tensors += 1;
                r.elements = r.elements.saturating_add(el);
                r.bytes = r.bytes.saturating_add(by);
            }
            None => dtypes.push(DtypeRow {
                dtype: label,
                tensors: 1,
                elements: el,
                bytes: by,
                bits_per_weight: None,
            }),
        }
    }
    if overflow {
        warnings.push(Warning {
            field: "tensors".into(),
            offset: m.data_offset,
            message: "the total of element counts or byte sizes overflows 64 bits".into(),
        });
    }
    for r in &mut dtypes {
        if !not_weights.contains(&r.dtype) {
            r.bits_per_weight = bpw(r.bytes, r.elements);
        }
    }
    dtypes.sort_by(|a, b| b.bytes.cmp(&a.bytes).then_with(|| a.dtype.cmp(&b.dtype)));
    let quantization = quant_st::analyse(m);
    let mut findings = crate::open::findings::container_findings(m);
    let mut bits_per_weight = bpw(weight_bytes, sized_params);
    if let Some(q) = &quantization {
        params = q.logical_parameters;
        bits_per_weight = q.bits_per_weight;
        findings.extend(q.findings.iter().cloned());
        sort_findings(&mut findings);
    }
    Summary {
        format: m.format.name(),
        version: m.version,
        endianness: m.endian,
        file_size: m.file_size,
        header_size: m.header_size,
        alignment: m.alignment,
        metadata_count: m.metadata_count,
        tensor_count: m.tensor_count,
        parameter_count: params,
        tensor_bytes: bytes,
        optimizer_state: (optimizer.tensors > 0).then_some(optimizer),
        bits_per_weight,
        quantization,
        dtypes,
        architecture: arch_card(m),
        layers: layer_map(m),
        tensors: m
            .tensors
            .iter()
            .enumerate()
            .map(|(i, t)| TensorRow {
                name: t.name.clone(),
                dtype: t.dtype.label(),
                shape: t.shape.clone(),
                elements: t.elements,
                offset: t.offset,
                bytes: t.bytes,
                note: t.note.clone(),
                part: m.part_of(i).map(|p| p as u32 + 1),
            })
            .collect(),
        warnings,
        findings,
        pickles: m.archive().map(|a| a.pickles.clone()),
        set: m.set.clone(),
        error: m.error.as_ref().map(|e| e.to_string()),
    }
}

/// The storages holding the tensors counted in [`Summary::tensor_bytes`] (a checkpoint's
/// optimizer state apart), each counted once however many tensors view it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StorageTotals {
    /// Distinct storages (a tensor without a known storage is one of its own).
    pub storages: u64,
    /// Their bytes: what of the file the weights take.
    pub bytes: u64,
}

/// The storages of `m`'s tensors, each once (a PyTorch file's tied weights and views share
/// one storage: the per-tensor sum counts it again for each); `None` for a file without
/// storages (not a PyTorch or NumPy archive, or tensors not mapped to storages).
pub fn storage_totals(m: &OpenedModel) -> Option<StorageTotals> {
    let a = m.archive()?;
    if a.storages.is_empty() || a.tensor_storage.len() != m.tensors.len() {
        return None;
    }
    let mut seen = vec![false; a.storages.len()];
    let mut totals = StorageTotals {
        storages: 0,
        bytes: 0,
    };
    for (t, s) in m.tensors.iter().zip(&a.tensor_storage) {
        if crate::format::torch::is_optimizer_state(&t.name) {
            continue;
        }
        let bytes = match s.and_then(|i| seen.get_mut(i).map(|seen| (i, seen))) {
            Some((_, true)) => continue,
            Some((i, seen)) => {
                *seen = true;
                a.storages[i].bytes
            }
            None => t.bytes.unwrap_or(0),
        };
        totals.storages += 1;
        totals.bytes = totals.bytes.saturating_add(bytes);
    }
    Some(totals)
}

/// Whether tensor `t` of `m` holds weights that bits per weight counts: every tensor but a
/// NumPy array that does not hold numbers ([`crate::format::numpy::holds_numbers`]: a
/// structured array's element is a record of several values, a text array's a string).
pub fn counts_as_weights(m: &crate::format::Model, t: &crate::format::Tensor) -> bool {
    m.format != crate::format::Format::Numpy || crate::format::numpy::holds_numbers(&t.dtype)
}

fn bpw(bytes: u64, elements: u64) -> Option<f64> {
    (elements > 0).then(|| bytes as f64 * 8.0 / elements as f64)
}
