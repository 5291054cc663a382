//! Quantised safetensors layouts: which one a file uses, and its logical parameters and
//! effective bits per weight.
//!
//! A quantised checkpoint stores each weight as packed integers plus companion tensors (scales,
//! zero points, group indexes, absmax, lookup tables, shapes). Counting the stored elements would
//! count eight 4-bit weights packed in one I32 as one parameter and every scale as a parameter;
//! here packed values are unpacked to the weight's logical element count, companions count as
//! bytes but not as parameters, and the effective bits per weight are
//! `all tensor bytes × 8 ÷ logical parameters`. Layouts are recognised by tensor names and
//! dtypes; `config.json` ([`crate::format::Sidecar`]) supplies what the header cannot (bits,
//! group size) and is checked against the shapes where they can say the same thing.
//!
//! Conventions followed (logical shapes are given as PyTorch `nn.Linear.weight`, `[out, in]`):
//!
//! | scheme | stored | companions |
//! |---|---|---|
//! | GPTQ (AutoGPTQ / GPTQModel) | `X.qweight` I32 `[in × bits / 32, out]` (packed along the input dimension) | `X.qzeros` I32 `[groups, out × bits / 32]`, `X.scales` F16 `[groups, out]`, `X.g_idx` I32 `[in]` |
//! | AWQ (AutoAWQ GEMM) | `X.qweight` I32 `[in, out × bits / 32]` (packed along the output dimension; GEMV: `[out, in × bits / 32]`) | `X.qzeros` I32 `[groups, out × bits / 32]`, `X.scales` F16 `[groups, out]` |
//! | bitsandbytes 4-bit (NF4 / FP4) | `X.weight` U8 `[⌈n / 2⌉, 1]` (two values a byte) | `X.weight.absmax`, `.quant_map`, `.nested_absmax`, `.nested_quant_map`, `.quant_state.bitsandbytes__nf4` / `__fp4` (U8 bytes of a JSON object holding the original `shape` and `blocksize`) |
//! | bitsandbytes LLM.int8() | `X.weight` I8 `[out, in]` | `X.SCB` F32 `[out]`, `X.weight_format` U8 |
//! | FP8 | `X.weight` F8_E4M3 / F8_E5M2 `[out, in]` | `X.weight_scale` (per tensor or channel) or `X.weight_scale_inv` (DeepSeek-V3 blocks, `[⌈out / 128⌉, ⌈in / 128⌉]`), `X.input_scale` |
//! | INT8 with scales (compressed-tensors int-quantized) | `X.weight` I8 | `X.weight_scale`, `X.weight_zero_point`, `X.input_scale` |
//! | MXFP4 (gpt-oss) | `X_blocks` U8 `[…, blocks, 16]`: 32 FP4 (E2M1) values a block | `X_scales` U8 (E8M0) `[…, blocks]` |
//! | MLX (mlx-lm) | `X.weight` U32 `[…, out, in × bits / 32]` | `X.scales`, `X.biases` `[…, out, in / group]`; bits and group size in config.json `quantization` (per-module overrides by module path) |
//! | compressed-tensors pack-quantized | `X.weight_packed` I32 `[out, ⌈in / (32 / bits)⌉]` (U8 `[out, in / 2]` for NVFP4) | `X.weight_shape` (I64 `[2]` holding `[out, in]` in its data), `X.weight_scale`, `X.weight_zero_point`, `X.weight_g_idx`, `X.weight_global_scale` |
//!
//! Every size is checked u64 arithmetic on untrusted input; nothing here panics. What cannot be
//! established, disagrees or had to be assumed is a [`Finding`] (codes `quant-*`).
#![forbid(unsafe_code)]

use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value as Json;

use crate::check::{Finding, Severity};
use crate::format::{DType, Format, Model, Tensor};

/// A quantisation scheme, in the terms of the tool that writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scheme {
    /// AutoGPTQ / GPTQModel `qweight` packed along the input dimension.
    Gptq,
    /// AutoAWQ `qweight` packed along the output dimension.
    Awq,
    /// bitsandbytes 4-bit NormalFloat.
    BnbNf4,
    /// bitsandbytes 4-bit float.
    BnbFp4,
    /// bitsandbytes 4-bit whose `quant_state` tensor is missing (NF4 or FP4 unknown).
    Bnb4,
    /// bitsandbytes LLM.int8() (`SCB` row scales).
    BnbInt8,
    /// FP8 weights with scales.
    Fp8,
    /// INT8 weights with `weight_scale` (compressed-tensors int-quantized).
    Int8,
    /// OCP microscaling FP4 (gpt-oss `_blocks` / `_scales`).
    Mxfp4,
    /// MLX affine quantisation (U32 packed, `scales` and `biases`).
    Mlx,
    /// compressed-tensors `pack-quantized` / `nvfp4-pack-quantized`.
    CompressedTensors,
}

impl Scheme {
    /// The name people use: `GPTQ`, `bitsandbytes NF4`, `MLX`.
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Gptq => "GPTQ",
            Scheme::Awq => "AWQ",
            Scheme::BnbNf4 => "bitsandbytes NF4",
            Scheme::BnbFp4 => "bitsandbytes FP4",
            Scheme::Bnb4 => "bitsandbytes 4-bit",
            Scheme::BnbInt8 => "bitsandbytes LLM.int8()",
            Scheme::Fp8 => "FP8",
            Scheme::Int8 => "INT8",
            Scheme::Mxfp4 => "MXFP4",
            Scheme::Mlx => "MLX",
            Scheme::CompressedTensors => "compressed-tensors",
        }
    }
}

/// A tensor stored beside a quantised weight to decode it: bytes, not parameters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Companion {
    /// Tensor name as stored.
    pub name: String,
    /// What it holds: `scales`, `zero points`, `g_idx`, `absmax`, `quant_map`, `quant_state`,
    /// `shape`, `input scale`, `biases`, …
    pub role: &'static str,
    /// Its byte size (0 when unknown).
    pub bytes: u64,
}

/// One quantised weight.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QuantWeight {
    /// The logical weight's name (`model.layers.0.self_attn.q_proj.weight`,
    /// `…experts.gate_up_proj` for MXFP4).
    pub name: String,
    /// The scheme.
    pub scheme: Scheme,
    /// The tensor holding the packed values (`….qweight`, `….weight_packed`, `…_blocks`).
    pub stored: String,
    /// Its dtype as written.
    pub stored_dtype: String,
    /// Its shape as written.
    pub stored_shape: Vec<u64>,
    /// The logical shape (`[out, in]` for linear layers; leading dimensions such as experts
    /// kept), or the derived flat count `[n]` when the header cannot say more.
    pub shape: Vec<u64>,
    /// Where the logical shape comes from: `header` (stored unpacked), `packing` (stored shape
    /// and bits), `quant_state` / `weight_shape` (those tensors' data), or `packed bytes × 2`.
    pub shape_source: &'static str,
    /// Logical element count: the parameters this weight contributes.
    pub elements: u64,
    /// Bits of one quantised value (4 for NF4, 8 for FP8).
    pub bits: u32,
    /// Values sharing one scale along the input dimension, when grouped (GPTQ/AWQ/MLX/
    /// compressed-tensors group size, bitsandbytes block size, 32 for MXFP4).
    pub group_size: Option<u64>,
    /// How the scales are laid out, in words (`group size 128`, `block 128×128`,
    /// `per-channel`, `per-tensor`).
    pub granularity: String,
    /// The companion tensors and their bytes.
    pub companions: Vec<Companion>,
    /// Packed bytes plus companion bytes.
    pub bytes: u64,
    /// bytes × 8 ÷ elements.
    pub bits_per_weight: Option<f64>,
    /// The label of this weight's scheme (`GPTQ 4-bit, group size 128`).
    pub label: String,
}

/// The weights sharing one label, for the layout line and the per-scheme table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SchemeRow {
    /// The scheme.
    pub scheme: Scheme,
    /// `GPTQ 4-bit, group size 128`.
    pub label: String,
    /// Quantised weights with this label.
    pub weights: u64,
    /// Their logical elements.
    pub elements: u64,
    /// Their bytes, companions included.
    pub bytes: u64,
    /// bytes × 8 ÷ elements.
    pub bits_per_weight: Option<f64>,
}

/// What [`analyse`] found: the layout, every quantised weight, and the logical totals.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QuantReport {
    /// The layout in words: the labels of [`Self::schemes`], most elements first, joined by
    /// ` + ` (`GPTQ 4-bit, group size 128`); when tensors of a layout were found but none could
    /// be unpacked, `quantised tensors not understood (see the findings)`.
    pub layout: String,
    /// One row per label, most elements first.
    pub schemes: Vec<SchemeRow>,
    /// Where the config used came from, if one was given.
    pub config_source: Option<String>,
    /// Parameters with packed weights unpacked and companions not counted.
    pub logical_parameters: u64,
    /// The stored element count (what a layout-blind count gives).
    pub stored_elements: u64,
    /// All tensor bytes (as the summary's `tensor_bytes`).
    pub tensor_bytes: u64,
    /// tensor bytes × 8 ÷ logical parameters, over the tensors whose byte size is known.
    pub bits_per_weight: Option<f64>,
    /// Every quantised weight, in file order.
    pub weights: Vec<QuantWeight>,
    /// Tensors counted as bytes only although no quantised weight beside them was found
    /// (a companion whose weight is in another shard, for example).
    pub orphan_companions: Vec<String>,
    /// What could not be established, disagrees or was assumed (codes `quant-*`); the summary
    /// adds these to its findings.
    #[serde(skip)]
    pub findings: Vec<Finding>,
}

/// A small tensor whose data refines [`analyse`]: the caller may read it and put the bytes in
/// [`crate::format::Sidecar::tensor_data`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataRequest {
    /// Tensor name.
    pub name: String,
    /// Absolute file offset of its data.
    pub offset: u64,
    /// Its byte length.
    pub len: u64,
}

/// Largest tensor [`wanted_tensor_data`] asks for (a `quant_state` JSON is ~200 bytes).
pub const MAX_DATA_TENSOR: u64 = 64 << 10;
/// Largest total [`wanted_tensor_data`] asks for.
pub const MAX_DATA_TOTAL: u64 = 16 << 20;

/// The small tensors whose data holds logical shapes (bitsandbytes `quant_state.*` JSON,
/// compressed-tensors `weight_shape`), at most [`MAX_DATA_TENSOR`] bytes each and
/// [`MAX_DATA_TOTAL`] in all. Empty for GGUF and for models merged from several files (their
/// offsets are per part).
pub fn wanted_tensor_data(m: &Model) -> Vec<DataRequest> {
    if m.format != Format::Safetensors || !m.parts.is_empty() {
        return Vec::new();
    }
    let mut total = 0u64;
    let mut out = Vec::new();
    for t in &m.tensors {
        let wanted =
            t.name.contains(".quant_state.bitsandbytes__") || t.name.ends_with(".weight_shape");
        let Some(len) = t.bytes.filter(|&b| wanted && b <= MAX_DATA_TENSOR) else {
            continue;
        };
        let end = t.offset.checked_add(len);
        if end.is_none_or(|e| e > m.file_size) || total.saturating_add(len) > MAX_DATA_TOTAL {
            continue;
        }
        total += len;
        out.push(DataRequest {
            name: t.name.clone(),
            offset: t.offset,
            len,
        });
    }
    out
}

/// Largest config file [`attach_config`] parses (real ones are a few KiB).
pub const MAX_CONFIG_BYTES: u64 = 16 << 20;

/// Puts a config file's bytes (`config.json`, or AutoGPTQ's `quantize_config.json`) into the
/// model's [`crate::format::Sidecar`]: parsed, or with the reason it cannot be used (too large,
/// not JSON), which [`analyse`] reports as a `quant-config-unreadable` finding. `source` names
/// it in messages (a path or URL).
pub fn attach_config(m: &mut Model, bytes: &[u8], source: &str) {
    m.sidecar.config_source = Some(source.to_string());
    m.sidecar.config = None;
    m.sidecar.config_error = None;
    if bytes.len() as u64 > MAX_CONFIG_BYTES {
        m.sidecar.config_error = Some(format!(
            "{source}: {} bytes; the limit is {MAX_CONFIG_BYTES}",
            bytes.len()
        ));
        return;
    }
    match serde_json::from_slice::<Json>(bytes) {
        Ok(v) => m.sidecar.config = Some(v),
        Err(e) => m.sidecar.config_error = Some(format!("{source}: not JSON: {e}")),
    }
}

/// Whether a config would refine [`analyse`]: a safetensors model with a quantised layout
/// (decide this before fetching `config.json` from a server).
pub fn wants_config(m: &Model) -> bool {
    m.sidecar.config.is_none() && analyse(m).is_some()
}

/// Of files picked or dropped together (their names), which is the model and which its
/// config: the model is the first `.gguf` or `.safetensors` (any case), else the first that is
/// not `.json`; the config is `config.json`, else AutoGPTQ's `quantize_config.json`. `None`
/// when no name can be the model. Indexes into `names`.
pub fn pick_local(names: &[String]) -> Option<(usize, Option<usize>)> {
    let lower: Vec<String> = names.iter().map(|n| n.to_ascii_lowercase()).collect();
    let model = lower
        .iter()
        .position(|n| n.ends_with(".gguf") || n.ends_with(".safetensors"))
        .or_else(|| lower.iter().position(|n| !n.ends_with(".json")))?;
    let config = ["config.json", "quantize_config.json"]
        .iter()
        .find_map(|c| lower.iter().position(|n| n == c));
    Some((model, config))
}

/// The URL of `config.json` in the same folder as a model file's URL (`…/resolve/main/
/// model.safetensors` → `…/resolve/main/config.json`); the query and fragment are dropped.
/// `None` when the URL has no path segment to replace.
pub fn config_url(file_url: &str) -> Option<String> {
    let end = file_url.find(['?', '#']).unwrap_or(file_url.len());
    let base = &file_url[..end];
    let path_start = match base.find("://") {
        Some(i) => i + 3 + base[i + 3..].find('/')?,
        None => 0,
    };
    let slash = base.rfind('/').filter(|&i| i >= path_start)?;
    (slash + 1 < base.len()).then(|| format!("{}config.json", &base[..=slash]))
}

/// What a tensor counts as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Plain,
    /// Packed values of quantised weight `n` of the report.
    Packed(usize),
    Companion,
}

/// Findings gathered while reading, the same message for many tensors reported once (with the
/// first tensor and the count; a hash index keeps a hostile file of many distinct messages
/// linear).
#[derive(Default)]
struct Notes {
    list: Vec<(Severity, &'static str, String, String, u64)>,
    index: HashMap<(u8, &'static str, String), usize>,
}

impl Notes {
    fn add(&mut self, sev: Severity, code: &'static str, msg: String, tensor: &str) {
        let key = (sev as u8, code, msg);
        match self.index.get(&key) {
            Some(&i) => self.list[i].4 += 1,
            None => {
                self.list
                    .push((sev, code, key.2.clone(), tensor.to_string(), 1));
                self.index.insert(key, self.list.len() - 1);
            }
        }
    }

    fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    fn into_findings(self) -> Vec<Finding> {
        self.list
            .into_iter()
            .map(|(severity, code, message, first, n)| {
                let tensor = (!first.is_empty()).then_some(first);
                let (message, tensor) = match (n, tensor) {
                    (1, t) | (_, t @ None) => (message, t),
                    (n, Some(t)) => (
                        format!(
                            "{message} ({n} tensors, the first \"{}\")",
                            crate::summary::display::escape(&t)
                        ),
                        None,
                    ),
                };
                Finding {
                    severity,
                    code,
                    message,
                    offset: None,
                    tensor,
                }
            })
            .collect()
    }
}

/// The quantisation section of a config: `(object, its key path for messages)`.
fn quant_section(config: Option<&Json>, mlx: bool) -> Option<(&Json, &'static str)> {
    let c = config?;
    let keys: &[&'static str] = if mlx {
        &["quantization", "quantization_config"]
    } else {
        &["quantization_config", "compression_config", "quantization"]
    };
    for k in keys {
        if let Some(v) = c.get(*k).filter(|v| v.is_object()) {
            return Some((v, k));
        }
    }
    // AutoGPTQ's quantize_config.json holds the keys at the top level.
    (c.get("bits").is_some() || c.get("w_bit").is_some()).then_some((c, "quantize_config"))
}

/// A config integer: `Ok(None)` when absent or null, `Err` with a message when present but not
/// an integer.
fn int(section: &Json, key: &str, path: &str) -> Result<Option<i64>, String> {
    match section.get(key) {
        None | Some(Json::Null) => Ok(None),
        Some(v) => v
            .as_i64()
            .map(Some)
            .ok_or_else(|| format!("{path}.{key} is {}, not an integer", short_json(v))),
    }
}

fn short_json(v: &Json) -> String {
    let s = v.to_string();
    let cut: String = s.chars().take(40).collect();
    let cut = crate::summary::display::escape(&cut);
    if s.chars().count() > 40 {
        format!("{cut}…")
    } else {
        cut
    }
}

fn text<'a>(section: &'a Json, key: &str) -> Option<&'a str> {
    section.get(key).and_then(Json::as_str)
}

fn elements(shape: &[u64]) -> Option<u64> {
    shape.iter().try_fold(1u64, |n, &d| n.checked_mul(d))
}

fn shape_text(shape: &[u64]) -> String {
    let dims: Vec<String> = shape.iter().map(u64::to_string).collect();
    format!("[{}]", dims.join(", "))
}

fn bpw(bytes: u64, elements: u64) -> Option<f64> {
    (elements > 0).then(|| bytes as f64 * 8.0 / elements as f64)
}

/// Reading state over one model.
struct Ctx<'a> {
    m: &'a Model,
    index: HashMap<&'a str, usize>,
    roles: Vec<Role>,
    weights: Vec<QuantWeight>,
    notes: Notes,
    config: Option<&'a Json>,
}

impl<'a> Ctx<'a> {
    fn get(&self, name: &str) -> Option<(usize, &'a Tensor)> {
        let m: &'a Model = self.m;
        self.index.get(name).map(|&i| (i, &m.tensors[i]))
    }

    fn dtype(t: &Tensor) -> &str {
        match &t.dtype {
            DType::St(d) => d.name,
            DType::StUnknown(s) => s,
            DType::Ggml(_) => "",
        }
    }

    /// Marks the tensors named `prefix + suffix` that exist as companions.
    fn companions(&mut self, prefix: &str, suffixes: &[(&str, &'static str)]) -> Vec<Companion> {
        let mut out = Vec::new();
        for (suffix, role) in suffixes {
            let name = format!("{prefix}{suffix}");
            if let Some((i, t)) = self.get(&name) {
                if self.roles[i] == Role::Plain {
                    self.roles[i] = Role::Companion;
                    out.push(Companion {
                        name,
                        role,
                        bytes: t.bytes.unwrap_or(0),
                    });
                }
            }
        }
        out
    }

    fn warn(&mut self, code: &'static str, msg: String, tensor: &str) {
        self.notes.add(Severity::Warning, code, msg, tensor);
    }

    fn info(&mut self, code: &'static str, msg: String, tensor: &str) {
        self.notes.add(Severity::Info, code, msg, tensor);
    }

    /// Records a quantised weight stored in tensor `packed`.
    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        packed: usize,
        name: String,
        scheme: Scheme,
        shape: Vec<u64>,
        shape_source: &'static str,
        bits: u32,
        group_size: Option<u64>,
        granularity: String,
        companions: Vec<Companion>,
    ) {
        let t = &self.m.tensors[packed];
        let Some(n) = elements(&shape) else {
            self.warn(
                "quant-overflow",
                format!(
                    "the logical shape {} overflows 64 bits; counted as stored",
                    shape_text(&shape)
                ),
                &t.name,
            );
            return;
        };
        let bytes = companions
            .iter()
            .try_fold(t.bytes.unwrap_or(0), |b, c| b.checked_add(c.bytes))
            .unwrap_or(u64::MAX);
        let label = label(scheme, bits, &granularity);
        self.roles[packed] = Role::Packed(self.weights.len());
        self.weights.push(QuantWeight {
            name,
            scheme,
            stored: t.name.clone(),
            stored_dtype: Self::dtype(t).to_string(),
            stored_shape: t.shape.clone(),
            shape,
            shape_source,
            elements: n,
            bits,
            group_size,
            granularity,
            companions,
            bytes,
            bits_per_weight: bpw(bytes, n),
            label,
        });
    }
}

fn label(scheme: Scheme, bits: u32, granularity: &str) -> String {
    let g = if granularity.is_empty() {
        String::new()
    } else {
        format!(", {granularity}")
    };
    match scheme {
        Scheme::Gptq | Scheme::Awq | Scheme::Mlx | Scheme::CompressedTensors | Scheme::Int8 => {
            format!("{} {bits}-bit{g}", scheme.name())
        }
        _ => format!("{}{g}", scheme.name()),
    }
}

fn group_words(group: Option<u64>, logical_in: u64) -> String {
    match group {
        Some(g) if g == logical_in => "per-channel".into(),
        Some(g) => format!("group size {g}"),
        None => String::new(),
    }
}

/// Recognises the quantised layouts of a safetensors model (with its [`crate::format::Sidecar`]
/// config and tensor data) and counts logical parameters. `None` for GGUF and for files with no
/// quantised weight.
pub fn analyse(m: &Model) -> Option<QuantReport> {
    if m.format != Format::Safetensors {
        return None;
    }
    let mut index = HashMap::with_capacity(m.tensors.len());
    for (i, t) in m.tensors.iter().enumerate() {
        index.entry(t.name.as_str()).or_insert(i);
    }
    let mut cx = Ctx {
        m,
        index,
        roles: vec![Role::Plain; m.tensors.len()],
        weights: Vec::new(),
        notes: Notes::default(),
        config: m.sidecar.config.as_ref(),
    };
    for i in 0..m.tensors.len() {
        if cx.roles[i] != Role::Plain {
            continue;
        }
        let t = &m.tensors[i];
        let name = t.name.as_str();
        let dt = Ctx::dtype(t);
        if let Some(prefix) = name.strip_suffix(".qweight") {
            gptq_awq(&mut cx, i, prefix);
        } else if let Some(prefix) = name.strip_suffix(".weight_packed") {
            compressed_tensors(&mut cx, i, prefix);
        } else if let Some(base) = name.strip_suffix("_blocks") {
            if dt == "U8" && cx.get(&format!("{base}_scales")).is_some() {
                mxfp4(&mut cx, i, base);
            }
        } else if let Some(prefix) = name.strip_suffix(".weight") {
            let has = |s: &str| cx.get(&format!("{prefix}{s}")).is_some();
            if has(".weight.absmax")
                || has(".weight.quant_state.bitsandbytes__nf4")
                || has(".weight.quant_state.bitsandbytes__fp4")
            {
                bnb4(&mut cx, i, prefix);
            } else if dt == "I8" && has(".SCB") {
                bnb8(&mut cx, i, prefix);
            } else if (dt.starts_with("F8_") || dt == "I8")
                && (has(".weight_scale") || has(".weight_scale_inv"))
            {
                scaled8(&mut cx, i, prefix);
            } else if dt == "U32" && has(".scales") {
                mlx(&mut cx, i, prefix);
            }
        }
    }
    // A file whose quantised tensors could not be read still gets a report: its findings.
    if cx.weights.is_empty() && cx.notes.is_empty() {
        return None;
    }
    orphans_and_totals(cx)
}

/// Suffixes that only a quantised layout writes: counted as bytes even when their weight is not
/// in this file.
const COMPANION_SUFFIXES: [&str; 17] = [
    ".qzeros",
    ".g_idx",
    ".weight.absmax",
    ".weight.quant_map",
    ".weight.nested_absmax",
    ".weight.nested_quant_map",
    ".weight.quant_state.bitsandbytes__nf4",
    ".weight.quant_state.bitsandbytes__fp4",
    ".SCB",
    ".weight_format",
    ".weight_scale",
    ".weight_scale_inv",
    ".weight_zero_point",
    ".weight_g_idx",
    ".weight_shape",
    ".weight_global_scale",
    ".input_scale",
];

fn orphans_and_totals(mut cx: Ctx) -> Option<QuantReport> {
    let m = cx.m;
    let mut orphan_companions = Vec::new();
    for (i, t) in m.tensors.iter().enumerate() {
        if cx.roles[i] == Role::Plain
            && (COMPANION_SUFFIXES.iter().any(|s| t.name.ends_with(s))
                || t.name.ends_with(".input_global_scale")
                || t.name.ends_with(".k_scale")
                || t.name.ends_with(".v_scale"))
        {
            cx.roles[i] = Role::Companion;
            orphan_companions.push(t.name.clone());
        }
    }
    for name in &orphan_companions {
        let activation = [
            ".input_scale",
            ".input_global_scale",
            ".k_scale",
            ".v_scale",
        ]
        .iter()
        .any(|s| name.ends_with(s));
        if !activation {
            cx.info(
                "quant-orphan",
                "a quantisation companion without its weight in this file (another shard?); counted as bytes, not parameters".into(),
                name,
            );
        }
    }
    let mut logical = 0u64;
    let mut sized_logical = 0u64;
    let mut stored = 0u64;
    let mut bytes = 0u64;
    let mut overflow = false;
    for (i, t) in m.tensors.iter().enumerate() {
        let el = match cx.roles[i] {
            Role::Plain => t.elements.unwrap_or(0),
            Role::Packed(w) => cx.weights[w].elements,
            Role::Companion => 0,
        };
        let step = (
            logical.checked_add(el),
            stored.checked_add(t.elements.unwrap_or(0)),
            bytes.checked_add(t.bytes.unwrap_or(0)),
        );
        match step {
            (Some(l), Some(s), Some(b)) => (logical, stored, bytes) = (l, s, b),
            _ => overflow = true,
        }
        if t.bytes.is_some() {
            sized_logical = sized_logical.saturating_add(el);
        }
    }
    if overflow {
        cx.notes.add(
            Severity::Warning,
            "quant-overflow",
            "the total of logical parameters or bytes overflows 64 bits".into(),
            "",
        );
    }
    let mut schemes: Vec<SchemeRow> = Vec::new();
    for w in &cx.weights {
        match schemes.iter_mut().find(|r| r.label == w.label) {
            Some(r) => {
                r.weights += 1;
                r.elements = r.elements.saturating_add(w.elements);
                r.bytes = r.bytes.saturating_add(w.bytes);
            }
            None => schemes.push(SchemeRow {
                scheme: w.scheme,
                label: w.label.clone(),
                weights: 1,
                elements: w.elements,
                bytes: w.bytes,
                bits_per_weight: None,
            }),
        }
    }
    for r in &mut schemes {
        r.bits_per_weight = bpw(r.bytes, r.elements);
    }
    schemes.sort_by(|a, b| b.elements.cmp(&a.elements).then(a.label.cmp(&b.label)));
    let mut layout: Vec<String> = schemes.iter().take(3).map(|r| r.label.clone()).collect();
    if schemes.len() > 3 {
        layout.push(format!("{} more", schemes.len() - 3));
    }
    if let Some(e) = &m.sidecar.config_error {
        cx.notes.add(
            Severity::Warning,
            "quant-config-unreadable",
            format!("the config could not be used: {e}"),
            "",
        );
    }
    let findings = cx.notes.into_findings();
    if layout.is_empty() {
        layout.push("quantised tensors not understood (see the findings)".into());
    }
    Some(QuantReport {
        layout: layout.join(" + "),
        schemes,
        config_source: m
            .sidecar
            .config
            .as_ref()
            .map(|_| m.sidecar.config_source.clone().unwrap_or_default()),
        logical_parameters: logical,
        stored_elements: stored,
        tensor_bytes: bytes,
        bits_per_weight: bpw(bytes, sized_logical),
        weights: cx.weights,
        orphan_companions,
        findings,
    })
}

/// A configured bit width: `Some(bits)` when the config gives a valid one (a finding when it
/// gives an invalid one).
fn config_bits(
    cx: &mut Ctx,
    section: Option<(&Json, &'static str)>,
    keys: &[&str],
    valid: &[u32],
    tensor: &str,
) -> Option<u32> {
    let (s, path) = section?;
    for key in keys {
        match int(s, key, path) {
            Ok(None) => continue,
            Ok(Some(b)) => {
                let ok = u32::try_from(b).ok().filter(|b| valid.contains(b));
                if ok.is_none() {
                    let list: Vec<String> = valid.iter().map(u32::to_string).collect();
                    cx.warn(
                        "quant-config-invalid",
                        format!(
                            "{path}.{key} is {b}; this layout packs {} bits; the bits were taken from the shapes instead",
                            list.join(", ")
                        ),
                        tensor,
                    );
                }
                return ok;
            }
            Err(e) => {
                cx.warn(
                    "quant-config-invalid",
                    format!("{e}; the bits were taken from the shapes instead"),
                    tensor,
                );
                return None;
            }
        }
    }
    None
}

/// A configured group size along the input dimension: `Ok(Some(g))`, `Ok(None)` when absent,
/// with −1 (one group per input row, "per-channel") as `logical_in`.
fn config_group(
    cx: &mut Ctx,
    section: Option<(&Json, &'static str)>,
    keys: &[&str],
    logical_in: u64,
    tensor: &str,
) -> Option<u64> {
    let (s, path) = section?;
    for key in keys {
        match int(s, key, path) {
            Ok(None) => continue,
            Ok(Some(-1)) => return Some(logical_in),
            Ok(Some(g)) if g > 0 => return Some(g as u64),
            Ok(Some(g)) => {
                cx.warn(
                    "quant-config-invalid",
                    format!("{path}.{key} is {g}; a group size is positive or −1"),
                    tensor,
                );
                return None;
            }
            Err(e) => {
                cx.warn("quant-config-invalid", e, tensor);
                return None;
            }
        }
    }
    None
}

fn two_d(t: &Tensor) -> Option<(u64, u64)> {
    match t.shape[..] {
        [a, b] => Some((a, b)),
        _ => None,
    }
}

/// GPTQ (AutoGPTQ) or AWQ (AutoAWQ) `prefix.qweight`.
fn gptq_awq(cx: &mut Ctx, qi: usize, prefix: &str) {
    let q = &cx.m.tensors[qi];
    let qname = q.name.clone();
    let section = quant_section(cx.config, false);
    let companions = cx.companions(
        prefix,
        &[
            (".qzeros", "zero points"),
            (".scales", "scales"),
            (".g_idx", "g_idx"),
        ],
    );
    let find = |role: &str| {
        companions
            .iter()
            .find(|c| c.role == role)
            .and_then(|c| cx.get(&c.name))
            .map(|(_, t)| t)
    };
    let (scales, qzeros, g_idx) = (find("scales"), find("zero points"), find("g_idx"));
    let dt = Ctx::dtype(q);
    let Some((rows, cols)) = two_d(q).filter(|_| dt == "I32" || dt == "U32") else {
        cx.warn(
            "quant-shape-mismatch",
            format!(
                "qweight is {dt} {}; GPTQ and AWQ store a 2-D I32 tensor; counted as stored",
                shape_text(&q.shape)
            ),
            &qname,
        );
        return;
    };
    let method = section
        .and_then(|(s, _)| text(s, "quant_method"))
        .map(str::to_ascii_lowercase);
    let scheme = match method.as_deref() {
        Some("gptq") => Scheme::Gptq,
        Some("awq") => Scheme::Awq,
        _ => match scales.and_then(two_d) {
            _ if g_idx.is_some() => Scheme::Gptq,
            Some((_, sc)) if sc == cols => Scheme::Gptq,
            Some((_, sc)) if sc > cols && cols > 0 && sc % cols == 0 => Scheme::Awq,
            _ => {
                cx.info(
                    "quant-assumed",
                    "neither config.json nor the companions tell GPTQ from AWQ; read as GPTQ (packed along the input dimension; the parameter count is the same either way)".into(),
                    &qname,
                );
                Scheme::Gptq
            }
        },
    };
    let gemv = scheme == Scheme::Awq
        && section
            .and_then(|(s, _)| text(s, "version"))
            .is_some_and(|v| v.eq_ignore_ascii_case("gemv"));
    let valid: &[u32] = &[2, 3, 4, 8];
    // The bits the companions imply: GPTQ qzeros [groups, out × bits / 32]; AWQ scales
    // [groups, out] against qweight [in, out × bits / 32].
    let derived = match scheme {
        Scheme::Gptq => qzeros
            .and_then(two_d)
            .and_then(|(_, zc)| zc.checked_mul(32))
            .filter(|&z| cols > 0 && z % cols == 0)
            .map(|z| z / cols),
        _ if gemv => None,
        _ => scales
            .and_then(two_d)
            .filter(|&(_, sc)| cols > 0 && sc % cols == 0 && sc > 0)
            .map(|(_, sc)| sc / cols)
            .filter(|&pack| pack > 0 && 32 % pack == 0)
            .map(|pack| 32 / pack),
    }
    .and_then(|b| u32::try_from(b).ok())
    .filter(|b| valid.contains(b));
    let bits = match config_bits(cx, section, &["bits", "w_bit"], valid, &qname) {
        Some(b) => {
            if let Some(d) = derived.filter(|&d| d != b) {
                cx.warn(
                    "quant-shape-mismatch",
                    format!("config.json says {b} bits but the companions' shapes say {d}; counted with {b}"),
                    &qname,
                );
            }
            b
        }
        None => match derived {
            Some(d) => {
                cx.info(
                    "quant-config-missing",
                    format!("bits not in config.json; {d} taken from the companions' shapes"),
                    &qname,
                );
                d
            }
            None => {
                cx.info(
                    "quant-config-missing",
                    "bits neither in config.json nor derivable from the companions; assumed 4 (the AutoGPTQ / AutoAWQ default)".into(),
                    &qname,
                );
                4
            }
        },
    };
    if scheme == Scheme::Awq && 32 % bits != 0 {
        cx.warn(
            "quant-shape-mismatch",
            format!("AWQ packs 32 / bits values an I32; {bits} bits do not divide 32; counted as stored"),
            &qname,
        );
        return;
    }
    // Logical [out, in].
    let unpack = |packed: u64| {
        packed
            .checked_mul(32)
            .filter(|p| p % u64::from(bits) == 0)
            .map(|p| p / u64::from(bits))
    };
    let (out, inn, packed_dim) = match scheme {
        Scheme::Gptq => (Some(cols), unpack(rows), "rows"),
        _ if gemv => (Some(rows), unpack(cols), "columns"),
        _ => (unpack(cols), Some(rows), "columns"),
    };
    let (Some(out), Some(inn)) = (out, inn) else {
        cx.warn(
            "quant-shape-mismatch",
            format!(
                "qweight {}: {packed_dim} × 32 is not a whole number of {bits}-bit values; counted as stored",
                shape_text(&q.shape)
            ),
            &qname,
        );
        return;
    };
    if scales.is_none() {
        cx.warn(
            "quant-companion-missing",
            format!("no {prefix}.scales beside the qweight: it cannot be dequantised"),
            &qname,
        );
    }
    let group = config_group(cx, section, &["group_size", "q_group_size"], inn, &qname);
    let scale_groups = scales
        .and_then(two_d)
        .map(|(r, c)| if gemv { c } else { r });
    let group = match (group, scale_groups) {
        (Some(g), _) => Some(g),
        (None, Some(n)) if n > 0 && inn % n == 0 => {
            cx.info(
                "quant-config-missing",
                "group size not in config.json; taken from the scales' shape".into(),
                &qname,
            );
            Some(inn / n)
        }
        _ => None,
    };
    // Companion shapes against the packing.
    if let (Some(g), Some(s)) = (group, scales) {
        let groups = inn.div_ceil(g.max(1));
        let want = if gemv {
            vec![out, groups]
        } else {
            vec![groups, out]
        };
        if s.shape != want && !gemv {
            cx.warn(
                "quant-shape-mismatch",
                format!(
                    "scales are {} but {bits}-bit qweight {} with group size {g} needs {}",
                    shape_text(&s.shape),
                    shape_text(&q.shape),
                    shape_text(&want)
                ),
                &qname,
            );
        }
    }
    if let Some(gi) = g_idx {
        if gi.shape != [inn] {
            cx.warn(
                "quant-shape-mismatch",
                format!(
                    "g_idx is {} but the weight has {inn} input features",
                    shape_text(&gi.shape)
                ),
                &qname,
            );
        }
    }
    let granularity = group_words(group, inn);
    cx.push(
        qi,
        format!("{prefix}.weight"),
        scheme,
        vec![out, inn],
        "packing",
        bits,
        group,
        granularity,
        companions,
    );
}

/// What a bitsandbytes `quant_state` JSON says (bitsandbytes `QuantState.as_dict`).
#[derive(Debug, PartialEq)]
struct BnbState {
    /// The original weight's shape.
    shape: Vec<u64>,
    /// Values per absmax block.
    blocksize: Option<u64>,
    /// `nf4` or `fp4`.
    quant_type: Option<String>,
}

/// Parses a bitsandbytes `quant_state` JSON.
fn bnb_state(bytes: &[u8]) -> Result<BnbState, String> {
    let v: Json = serde_json::from_slice(bytes).map_err(|e| format!("not JSON: {e}"))?;
    let shape = v
        .get("shape")
        .and_then(Json::as_array)
        .ok_or("no \"shape\" array")?
        .iter()
        .map(|d| {
            d.as_u64()
                .ok_or("a dimension is not a non-negative integer")
        })
        .collect::<Result<Vec<u64>, _>>()?;
    let block = v.get("blocksize").and_then(Json::as_u64);
    let qt = v
        .get("quant_type")
        .and_then(Json::as_str)
        .map(str::to_string);
    Ok(BnbState {
        shape,
        blocksize: block,
        quant_type: qt,
    })
}

/// bitsandbytes 4-bit `prefix.weight` (U8, two values a byte).
fn bnb4(cx: &mut Ctx, wi: usize, prefix: &str) {
    let w = &cx.m.tensors[wi];
    let wname = w.name.clone();
    let companions = cx.companions(
        prefix,
        &[
            (".weight.absmax", "absmax"),
            (".weight.quant_map", "quant_map"),
            (".weight.nested_absmax", "nested absmax"),
            (".weight.nested_quant_map", "nested quant_map"),
            (".weight.quant_state.bitsandbytes__nf4", "quant_state"),
            (".weight.quant_state.bitsandbytes__fp4", "quant_state"),
        ],
    );
    let state = companions.iter().find(|c| c.role == "quant_state");
    let scheme = match state.map(|c| c.name.as_str()) {
        Some(n) if n.ends_with("nf4") => Scheme::BnbNf4,
        Some(_) => Scheme::BnbFp4,
        None => {
            cx.warn(
                "quant-companion-missing",
                "no weight.quant_state.bitsandbytes__nf4 / __fp4 beside a bitsandbytes 4-bit weight".into(),
                &wname,
            );
            Scheme::Bnb4
        }
    };
    let nested = companions.iter().any(|c| c.role == "nested absmax");
    let Some(packed) = w.elements.filter(|_| Ctx::dtype(w) == "U8") else {
        cx.warn(
            "quant-shape-mismatch",
            format!(
                "a bitsandbytes 4-bit weight is U8; this one is {} {}; counted as stored",
                Ctx::dtype(w),
                shape_text(&w.shape)
            ),
            &wname,
        );
        return;
    };
    let from_state = state.and_then(|c| {
        cx.m.sidecar
            .tensor_data
            .get(&c.name)
            .map(|b| (c.name.clone(), bnb_state(b)))
    });
    let (shape, source, mut block) = match from_state {
        Some((
            _,
            Ok(BnbState {
                shape,
                blocksize: block,
                ..
            }),
        )) if elements(&shape).is_some_and(|n| n.div_ceil(2) == packed) => {
            (shape, "quant_state", block)
        }
        other => {
            match other {
                Some((name, Ok(BnbState { shape, .. }))) => cx.warn(
                    "quant-shape-mismatch",
                    format!(
                        "{name} says shape {} but the weight holds {packed} bytes; counted from the bytes",
                        shape_text(&shape)
                    ),
                    &wname,
                ),
                Some((name, Err(e))) => cx.warn(
                    "quant-state-unreadable",
                    format!("{name}: {e}; counted from the bytes"),
                    &wname,
                ),
                None => cx.info(
                    "quant-derived",
                    "logical size taken as packed bytes × 2 (the exact shape is in the quant_state tensor's data, which was not read)".into(),
                    &wname,
                ),
            }
            let Some(n) = packed.checked_mul(2) else {
                return;
            };
            (vec![n], "packed bytes × 2", None)
        }
    };
    let n = elements(&shape).unwrap_or(0);
    if block.is_none() {
        let absmax = companions
            .iter()
            .find(|c| c.role == "absmax")
            .and_then(|c| cx.get(&c.name))
            .and_then(|(_, t)| t.elements);
        block = absmax.filter(|&a| a > 0 && n % a == 0).map(|a| n / a);
    }
    let mut granularity = block.map_or(String::new(), |b| format!("block size {b}"));
    if nested {
        granularity.push_str(if granularity.is_empty() {
            "nested absmax"
        } else {
            ", nested absmax"
        });
    }
    cx.push(
        wi,
        wname,
        scheme,
        shape,
        source,
        4,
        block,
        granularity,
        companions,
    );
}

/// bitsandbytes LLM.int8() `prefix.weight` (I8) with `prefix.SCB`.
fn bnb8(cx: &mut Ctx, wi: usize, prefix: &str) {
    let w = &cx.m.tensors[wi];
    let companions = cx.companions(
        prefix,
        &[
            (".SCB", "row scales (SCB)"),
            (".weight_format", "weight_format"),
        ],
    );
    cx.push(
        wi,
        w.name.clone(),
        Scheme::BnbInt8,
        w.shape.clone(),
        "header",
        8,
        None,
        "per-row scales".into(),
        companions,
    );
}

/// FP8 or INT8 `prefix.weight` with `weight_scale` / `weight_scale_inv`.
fn scaled8(cx: &mut Ctx, wi: usize, prefix: &str) {
    let w = &cx.m.tensors[wi];
    let wname = w.name.clone();
    let dt = Ctx::dtype(w).to_string();
    let companions = cx.companions(
        prefix,
        &[
            (".weight_scale", "scales"),
            (".weight_scale_inv", "inverse scales"),
            (".weight_zero_point", "zero points"),
            (".input_scale", "input scale"),
        ],
    );
    let scale = companions
        .iter()
        .find(|c| c.role.contains("scales"))
        .and_then(|c| cx.get(&c.name))
        .map(|(_, t)| t);
    let (out, inn) = match w.shape[..] {
        [o, i] => (o, i),
        _ => (0, 0),
    };
    let section = quant_section(cx.config, false);
    let block = section.and_then(|(s, _)| s.get("weight_block_size")?.as_array().cloned());
    let granularity = match scale {
        Some(s) if s.elements == Some(1) => "per-tensor scale".to_string(),
        Some(s) if s.elements == Some(out) && out > 0 => "per-channel scales".to_string(),
        Some(s) => match (two_d(s), block.as_deref()) {
            (Some((sr, sc)), Some([a, b])) => match (a.as_u64(), b.as_u64()) {
                (Some(a), Some(b)) if a > 0 && b > 0 => {
                    if (sr, sc) != (out.div_ceil(a), inn.div_ceil(b)) {
                        cx.warn(
                            "quant-shape-mismatch",
                            format!(
                                "block scales are {} but weight {} in {a}×{b} blocks needs [{}, {}]",
                                shape_text(&s.shape),
                                shape_text(&w.shape),
                                out.div_ceil(a),
                                inn.div_ceil(b)
                            ),
                            &wname,
                        );
                    }
                    format!("block {a}×{b} scales")
                }
                _ => {
                    cx.warn(
                        "quant-config-invalid",
                        "weight_block_size is not two positive integers".into(),
                        &wname,
                    );
                    format!("block scales {}", shape_text(&s.shape))
                }
            },
            (Some((sr, sc)), _) if sr > 0 && sc > 0 && out % sr == 0 && inn % sc == 0 => {
                cx.info(
                    "quant-config-missing",
                    "weight_block_size not in config.json; the block taken from the scales' shape"
                        .into(),
                    &wname,
                );
                format!("block {}×{} scales", out / sr, inn / sc)
            }
            _ => format!("scales {}", shape_text(&s.shape)),
        },
        None => String::new(),
    };
    let (scheme, bits) = if dt == "I8" {
        (Scheme::Int8, 8)
    } else {
        (Scheme::Fp8, 8)
    };
    let granularity = if scheme == Scheme::Fp8 {
        format!("{dt}, {granularity}")
    } else {
        granularity
    };
    cx.push(
        wi,
        wname,
        scheme,
        w.shape.clone(),
        "header",
        bits,
        None,
        granularity,
        companions,
    );
}

/// MXFP4 `base_blocks` (U8 `[…, blocks, 16]`) with `base_scales` (U8 E8M0 `[…, blocks]`).
fn mxfp4(cx: &mut Ctx, bi: usize, base: &str) {
    let b = &cx.m.tensors[bi];
    let bname = b.name.clone();
    let companions = cx.companions(base, &[("_scales", "E8M0 scales")]);
    let scales = companions
        .first()
        .and_then(|c| cx.get(&c.name))
        .map(|(_, t)| t);
    let n = b.shape.len();
    let shape = match b.shape.split_last() {
        Some((&16, lead)) if !lead.is_empty() => {
            let mut s = lead.to_vec();
            match s.last_mut().and_then(|d| d.checked_mul(32)) {
                Some(v) => {
                    if let Some(d) = s.last_mut() {
                        *d = v;
                    }
                    Some(s)
                }
                None => None,
            }
        }
        _ => None,
    };
    let Some(shape) = shape else {
        cx.warn(
            "quant-shape-mismatch",
            format!(
                "MXFP4 blocks are [..., blocks, 16] (16 bytes = 32 FP4 values); this one is {}; counted as stored",
                shape_text(&b.shape)
            ),
            &bname,
        );
        return;
    };
    if let Some(s) = scales {
        if s.shape[..] != b.shape[..n - 1] {
            cx.warn(
                "quant-shape-mismatch",
                format!(
                    "MXFP4 scales are {} but blocks {} need {}",
                    shape_text(&s.shape),
                    shape_text(&b.shape),
                    shape_text(&b.shape[..n - 1])
                ),
                &bname,
            );
        }
    }
    cx.push(
        bi,
        base.to_string(),
        Scheme::Mxfp4,
        shape,
        "packing",
        4,
        Some(32),
        "32-value blocks, E8M0 scales".into(),
        companions,
    );
}

/// MLX `prefix.weight` (U32 packed along the last dimension) with `scales` and `biases`.
fn mlx(cx: &mut Ctx, wi: usize, prefix: &str) {
    let w = &cx.m.tensors[wi];
    let wname = w.name.clone();
    let companions = cx.companions(prefix, &[(".scales", "scales"), (".biases", "biases")]);
    let scales = companions
        .iter()
        .find(|c| c.role == "scales")
        .and_then(|c| cx.get(&c.name))
        .map(|(_, t)| t);
    let section = quant_section(cx.config, true);
    // mlx-lm writes per-module overrides under the module's path.
    let module = section
        .and_then(|(s, _)| s.get(prefix))
        .filter(|v| v.is_object());
    let section = match module {
        Some(v) => Some((v, "quantization.<module>")),
        None => section,
    };
    let valid: &[u32] = &[1, 2, 3, 4, 5, 6, 8];
    let bits = config_bits(cx, section, &["bits"], valid, &wname);
    let bits = match bits {
        Some(b) => b,
        None => {
            cx.info(
                "quant-config-missing",
                "MLX bits not in config.json (\"quantization\": {\"bits\", \"group_size\"}); assumed MLX's default 4".into(),
                &wname,
            );
            4
        }
    };
    let Some((&packed, lead)) = w.shape.split_last() else {
        cx.warn(
            "quant-shape-mismatch",
            "an MLX packed weight is at least 1-D; counted as stored".into(),
            &wname,
        );
        return;
    };
    let Some(inn) = packed
        .checked_mul(32)
        .filter(|p| p % u64::from(bits) == 0)
        .map(|p| p / u64::from(bits))
    else {
        cx.warn(
            "quant-shape-mismatch",
            format!(
                "U32 weight {}: the last dimension × 32 is not a whole number of {bits}-bit values; counted as stored",
                shape_text(&w.shape)
            ),
            &wname,
        );
        return;
    };
    let group = config_group(cx, section, &["group_size"], inn, &wname);
    let group = match group {
        Some(g) => g,
        None => {
            if section.is_none_or(|(s, _)| s.get("group_size").is_none()) {
                cx.info(
                    "quant-config-missing",
                    "MLX group_size not in config.json; assumed MLX's default 64".into(),
                    &wname,
                );
            }
            64
        }
    };
    if let Some(s) = scales {
        let mut want = lead.to_vec();
        want.push(inn.div_ceil(group.max(1)));
        if s.shape != want {
            cx.warn(
                "quant-shape-mismatch",
                format!(
                    "scales are {} but {bits}-bit weight {} with group size {group} needs {}",
                    shape_text(&s.shape),
                    shape_text(&w.shape),
                    shape_text(&want)
                ),
                &wname,
            );
        }
    }
    let mut shape = lead.to_vec();
    shape.push(inn);
    cx.push(
        wi,
        wname,
        Scheme::Mlx,
        shape,
        "packing",
        bits,
        Some(group),
        group_words(Some(group), inn),
        companions,
    );
}

/// Reads a compressed-tensors `weight_shape` tensor's data: little-endian I64 or I32 values.
fn weight_shape_data(t: &Tensor, data: &[u8]) -> Option<Vec<u64>> {
    let width = match Ctx::dtype(t) {
        "I64" | "U64" => 8,
        "I32" | "U32" => 4,
        _ => return None,
    };
    if data.is_empty() || data.len() % width != 0 || data.len() / width > 8 {
        return None;
    }
    data.chunks_exact(width)
        .map(|c| {
            let v = if width == 8 {
                i64::from_le_bytes(c.try_into().ok()?)
            } else {
                i64::from(i32::from_le_bytes(c.try_into().ok()?))
            };
            u64::try_from(v).ok()
        })
        .collect()
}

/// compressed-tensors `prefix.weight_packed`.
fn compressed_tensors(cx: &mut Ctx, pi: usize, prefix: &str) {
    let p = &cx.m.tensors[pi];
    let pname = p.name.clone();
    let companions = cx.companions(
        prefix,
        &[
            (".weight_scale", "scales"),
            (".weight_zero_point", "zero points"),
            (".weight_g_idx", "g_idx"),
            (".weight_shape", "shape"),
            (".weight_global_scale", "global scale"),
            (".input_global_scale", "input global scale"),
            (".input_scale", "input scale"),
        ],
    );
    let dt = Ctx::dtype(p).to_string();
    let Some((rows, cols)) = two_d(p).filter(|_| dt == "I32" || dt == "U8") else {
        cx.warn(
            "quant-shape-mismatch",
            format!(
                "weight_packed is {dt} {}; compressed-tensors packs a 2-D I32 (or U8 for NVFP4) tensor; counted as stored",
                shape_text(&p.shape)
            ),
            &pname,
        );
        return;
    };
    let shape_t = companions
        .iter()
        .find(|c| c.role == "shape")
        .and_then(|c| cx.get(&c.name))
        .map(|(_, t)| t);
    let read_shape = shape_t.and_then(|t| {
        let data = cx.m.sidecar.tensor_data.get(&t.name)?;
        Some(weight_shape_data(t, data))
    });
    let read_shape = match read_shape {
        Some(Some(s)) if s.len() == 2 => Some((s[0], s[1])),
        Some(_) => {
            cx.warn(
                "quant-shape-mismatch",
                "weight_shape's data is not two non-negative integers; the shape was derived from the packing".into(),
                &pname,
            );
            None
        }
        None => None,
    };
    let section = quant_section(cx.config, false);
    let scale_cols = companions
        .iter()
        .find(|c| c.role == "scales")
        .and_then(|c| cx.get(&c.name))
        .and_then(|(_, t)| two_d(t))
        .map(|(_, c)| c);
    // The weights' quantisation arguments: config_groups.<name>.weights.
    let groups: Vec<(&Json, &str)> = section
        .and_then(|(s, _)| s.get("config_groups")?.as_object())
        .map(|g| {
            g.values()
                .filter_map(|v| v.get("weights").filter(|w| w.is_object()))
                .map(|w| (w, "config_groups.<group>.weights"))
                .collect()
        })
        .unwrap_or_default();
    let nvfp4 = dt == "U8";
    let (bits, pack) = if nvfp4 {
        (4u32, 2u64)
    } else {
        let mut configured = None;
        let mut distinct = Vec::new();
        for g in &groups {
            if let Some(b) = config_bits(
                cx,
                Some(*g),
                &["num_bits"],
                &[1, 2, 3, 4, 5, 6, 7, 8],
                &pname,
            ) {
                if !distinct.contains(&b) {
                    distinct.push(b);
                }
                configured.get_or_insert(b);
            }
        }
        // Bits the stored shape allows given the logical input size (weight_shape's data).
        let fits = |b: u32| {
            let pk = u64::from(32 / b);
            read_shape.is_some_and(|(_, i)| i.div_ceil(pk) == cols)
        };
        let bits = match (configured, distinct.len()) {
            (Some(b), 1) => b,
            (Some(_), _) => match distinct.iter().copied().find(|&b| fits(b)) {
                Some(b) => b,
                None => {
                    cx.warn(
                        "quant-config-missing",
                        "config groups give different num_bits and weight_shape was not read; the first group's bits used".into(),
                        &pname,
                    );
                    distinct[0]
                }
            },
            (None, _) => {
                let from_shape = [4u32, 8, 2].into_iter().find(|&b| fits(b));
                match from_shape {
                    Some(b) => {
                        cx.info(
                            "quant-config-missing",
                            format!("num_bits not in config.json; {b} taken from weight_shape and the packing"),
                            &pname,
                        );
                        b
                    }
                    None => {
                        cx.warn(
                            "quant-config-missing",
                            "num_bits neither in config.json nor derivable; assumed 4 (W4A16, the common pack-quantized scheme)".into(),
                            &pname,
                        );
                        4
                    }
                }
            }
        };
        (bits, u64::from(32 / bits))
    };
    let capacity = cols.checked_mul(pack);
    let (out, inn, source) = match (read_shape, capacity) {
        (Some((o, i)), Some(cap)) if o == rows && i <= cap && i.div_ceil(pack) == cols => {
            (o, i, "weight_shape")
        }
        (_, None) => {
            cx.warn(
                "quant-overflow",
                "the unpacked size overflows 64 bits; counted as stored".into(),
                &pname,
            );
            return;
        }
        (rs, Some(cap)) => {
            match rs {
                Some((o, i)) => cx.warn(
                    "quant-shape-mismatch",
                    format!(
                        "weight_shape says [{o}, {i}] but {bits}-bit weight_packed {} holds [{rows}, {cap}]; derived from the packing",
                        shape_text(&p.shape)
                    ),
                    &pname,
                ),
                None => cx.info(
                    "quant-derived",
                    "logical shape derived from the packing (the exact input size is in weight_shape's data, which was not read; it may be up to 32 / bits − 1 smaller)".into(),
                    &pname,
                ),
            }
            (rows, cap, "packing")
        }
    };
    let group = if nvfp4 {
        None
    } else {
        let g = groups
            .iter()
            .find_map(|(w, _)| w.get("group_size").and_then(Json::as_u64));
        let strategy = groups
            .iter()
            .find_map(|(w, _)| w.get("strategy").and_then(Json::as_str));
        match (g, strategy) {
            (Some(g), _) if g > 0 => Some(g),
            (_, Some("channel")) => Some(inn),
            _ => None,
        }
    };
    let group = group.or_else(|| {
        scale_cols
            .filter(|&c| c > 0 && inn % c == 0)
            .map(|c| inn / c)
    });
    let granularity = group_words(group, inn);
    let mut label_extra = granularity;
    if nvfp4 {
        label_extra = format!(
            "NVFP4{}",
            group.map_or(String::new(), |g| format!(", group size {g}"))
        );
    }
    cx.push(
        pi,
        format!("{prefix}.weight"),
        Scheme::CompressedTensors,
        vec![out, inn],
        source,
        bits,
        group,
        label_extra,
        companions,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pick_local_finds_the_model_and_its_config() {
        let n = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            pick_local(&n(&["config.json", "model.safetensors"])),
            Some((1, Some(0)))
        );
        assert_eq!(pick_local(&n(&["Model.SafeTensors"])), Some((0, None)));
        assert_eq!(
            pick_local(&n(&["quantize_config.json", "x.gguf", "config.json"])),
            Some((1, Some(2)))
        );
        assert_eq!(
            pick_local(&n(&["quantize_config.json", "w.bin"])),
            Some((1, Some(0)))
        );
        assert_eq!(pick_local(&n(&["config.json"])), None);
        assert_eq!(pick_local(&[]), None);
    }

    #[test]
    fn group_words_say_per_channel_for_a_whole_row() {
        assert_eq!(group_words(Some(128), 4096), "group size 128");
        assert_eq!(group_words(Some(4096), 4096), "per-channel");
        assert_eq!(group_words(None, 4096), "");
    }

    #[test]
    fn config_url_is_the_sibling_config_json() {
        assert_eq!(
            config_url("https://huggingface.co/o/r/resolve/main/model.safetensors?download=1")
                .as_deref(),
            Some("https://huggingface.co/o/r/resolve/main/config.json")
        );
        assert_eq!(
            config_url("http://127.0.0.1:8080/a/b/x.safetensors").as_deref(),
            Some("http://127.0.0.1:8080/a/b/config.json")
        );
        assert_eq!(config_url("https://host"), None);
        assert_eq!(config_url("https://host/"), None);
        assert_eq!(config_url("https://host/dir/"), None);
    }

    #[test]
    fn attach_config_keeps_the_reason_it_failed() {
        let mut m = crate::format::model_from_safetensors(Default::default(), Vec::new(), 0);
        attach_config(&mut m, b"{\"quantization\": {\"bits\": 4}}", "c.json");
        assert!(m.sidecar.config.is_some());
        attach_config(&mut m, b"{ nope", "c.json");
        assert!(m.sidecar.config.is_none());
        assert!(m
            .sidecar
            .config_error
            .as_deref()
            .unwrap()
            .starts_with("c.json: not JSON"));
    }

    #[test]
    fn bnb_state_reads_the_shape() {
        let st = bnb_state(br#"{"quant_type":"nf4","blocksize":64,"shape":[7,9]}"#).unwrap();
        assert_eq!(
            st,
            BnbState {
                shape: vec![7, 9],
                blocksize: Some(64),
                quant_type: Some("nf4".into())
            }
        );
        assert!(bnb_state(b"{\"shape\":[-1]}").is_err());
        assert!(bnb_state(b"\xff").is_err());
    }
}
