//! Quantised safetensors layouts: which one a file uses, and its logical parameters and
//! effective bits per weight.
//!
//! A quantised checkpoint stores each weight as packed integers plus companion tensors (scales,
//! zero points, group indexes, absmax, lookup tables, shapes). Counting the stored elements would
//! count eight 4-bit weights packed in one I32 as one parameter and every scale as a parameter;
//! here packed values are unpacked to the weight's logical element count, companions count as
//! bytes but not as parameters, and the effective bits per weight are
//! `all tensor bytes × 8 ÷ logical parameters`. Layouts are recognised by tensor names and
//! dtypes; `config.json` ([`crate::open::Sidecar`]) supplies what the header cannot (bits,
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

mod bnb;
mod compressed;
mod config;
mod ctx;
mod gptq_awq;
mod mlx;
mod mxfp4;
mod scaled;
#[cfg(test)]
mod tests;

use std::collections::HashMap;

use serde::Serialize;

use crate::check::quant::Notes;
use crate::check::{Finding, Severity};
use crate::format::Format;
use crate::open::OpenedModel;
use bnb::{bnb4, bnb8};
use compressed::compressed_tensors;
use ctx::{bpw, Ctx, Role};
use gptq_awq::gptq_awq;
use mlx::mlx;
use mxfp4::mxfp4;
use scaled::scaled8;

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
/// [`crate::open::Sidecar::tensor_data`].
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
pub fn wanted_tensor_data(m: &OpenedModel) -> Vec<DataRequest> {
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

pub use crate::open::MAX_CONFIG_BYTES;

/// Puts a config file's bytes into the model's sidecar ([`crate::open::Sidecar::attach_config`]).
pub fn attach_config(m: &mut OpenedModel, bytes: &[u8], source: &str) {
    m.sidecar.attach_config(bytes, source);
}

/// Whether a config would refine [`analyse`]: a safetensors model with a quantised layout
/// (decide this before fetching `config.json` from a server).
pub fn wants_config(m: &OpenedModel) -> bool {
    m.sidecar.config.is_none() && analyse(m).is_some()
}
/// Recognises the quantised layouts of a safetensors model (with its [`crate::open::Sidecar`]
/// config and tensor data) and counts logical parameters. `None` for GGUF and for files with no
/// quantised weight.
pub fn analyse(m: &OpenedModel) -> Option<QuantReport> {
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
