//! Structure findings: the layers and tensors a GGUF file holds against what its architecture
//! needs, by llama.cpp's model loader (`llama-model.cpp`, which refuses a file with a required
//! tensor missing or with tensors it did not expect).
//!
//! - `layers-missing` / `layers-extra`: `{arch}.block_count` against the `blk.N` indices
//!   present.
//! - `layer-tensor-missing`: a per-layer tensor the architecture needs absent from some
//!   layers, and `tensor-missing` for the whole-model ones (`token_embd.weight`, ...). Known
//!   architectures: [`KNOWN`] (`llama` dense and mixture-of-experts, `qwen2`, `gemma3`, `bert`);
//!   a fused `attn_qkv` stands for `attn_q`/`attn_k`/`attn_v`. Biases and optional tensors are
//!   not required.
//!
//! Reserved bytes (a tensor's type and shape needing more than the distance to the next
//! tensor's offset, or than the file holds) are the container checks' `overlap` and
//! `data-beyond-eof`; `split.*` keys across parts are `split-no-mismatch`,
//! `split-count-mismatch` and `split-tensors-count` (`check/set.rs`). A vocabulary-only file
//! (no tensors), a set with parts missing, a file whose `general.type` is not `model` (an
//! adapter, a projector) and one without `token_embd.weight` (a fragment) are not judged here.

use std::collections::{BTreeMap, BTreeSet};

use super::{about_key, architecture, Finding, Severity};
use crate::format::Model;
use crate::text::runs;

/// Per-layer tensors (after `blk.N.`, before `.weight`) each known architecture needs.
const LLAMA: &[&str] = &[
    "attn_norm",
    "attn_q",
    "attn_k",
    "attn_v",
    "attn_output",
    "ffn_norm",
    "ffn_gate",
    "ffn_down",
    "ffn_up",
];
const LLAMA_MOE: &[&str] = &[
    "attn_norm",
    "attn_q",
    "attn_k",
    "attn_v",
    "attn_output",
    "ffn_norm",
    "ffn_gate_inp",
    "ffn_gate_exps",
    "ffn_down_exps",
    "ffn_up_exps",
];
const GEMMA3: &[&str] = &[
    "attn_norm",
    "attn_q",
    "attn_k",
    "attn_v",
    "attn_output",
    "attn_q_norm",
    "attn_k_norm",
    "post_attention_norm",
    "ffn_norm",
    "ffn_gate",
    "ffn_up",
    "ffn_down",
    "post_ffw_norm",
];
const BERT: &[&str] = &[
    "attn_q",
    "attn_k",
    "attn_v",
    "attn_output",
    "attn_output_norm",
    "ffn_up",
    "ffn_down",
    "layer_output_norm",
];

/// The architectures whose tensors are known here.
pub const KNOWN: [&str; 4] = ["llama", "qwen2", "gemma3", "bert"];

/// (per-layer, whole-model) tensors `arch` needs; `None` for an architecture not known here.
fn expected(m: &Model, arch: &str) -> Option<(&'static [&'static str], &'static [&'static str])> {
    let experts = m
        .get(&format!("{arch}.expert_count"))
        .and_then(crate::format::Value::as_u64)
        .unwrap_or(0);
    Some(match arch {
        "llama" if experts > 0 => (LLAMA_MOE, &["token_embd", "output_norm"]),
        "llama" | "qwen2" => (LLAMA, &["token_embd", "output_norm"]),
        "gemma3" => (GEMMA3, &["token_embd", "output_norm"]),
        "bert" => (BERT, &["token_embd", "token_embd_norm"]),
        _ => return None,
    })
}

/// `blk.N.rest` -> (N, rest).
fn layer_of(name: &str) -> Option<(u64, &str)> {
    let rest = name.strip_prefix("blk.")?;
    let (n, rest) = rest.split_once('.')?;
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((n.parse().ok()?, rest))
}

/// The structure findings of `m`; none when `incomplete_set` (the model is a set of files not
/// all read: its tensors are not the whole model's).
pub fn findings(m: &Model, incomplete_set: bool, out: &mut Vec<Finding>) {
    if m.tensors.is_empty() || incomplete_set {
        return;
    }
    let Some(arch) = architecture(m) else { return };
    // An adapter (LoRA), a projector or a fragment without the token embedding is not a
    // whole model: it is not judged against one.
    let kind = m.get("general.type").and_then(crate::format::Value::as_str);
    if kind.is_some_and(|k| k != "model")
        || !m.tensors.iter().any(|t| t.name == "token_embd.weight")
    {
        return;
    }
    // Per layer: the tensor kinds present (`attn_q.weight` -> `attn_q`, weights only).
    let mut layers: BTreeMap<u64, BTreeSet<&str>> = BTreeMap::new();
    let mut whole: BTreeSet<&str> = BTreeSet::new();
    for t in &m.tensors {
        match layer_of(&t.name) {
            Some((n, rest)) => {
                let kinds = layers.entry(n).or_default();
                if let Some(k) = rest.strip_suffix(".weight") {
                    kinds.insert(k);
                }
            }
            None => {
                if let Some(k) = t.name.strip_suffix(".weight") {
                    whole.insert(k);
                }
            }
        }
    }
    let key = format!("{arch}.block_count");
    let blocks = m.get(&key).and_then(crate::format::Value::as_u64);
    if let Some(blocks) = blocks {
        let missing: Vec<u64> = (0..blocks.min(1 << 20))
            .filter(|n| !layers.contains_key(n))
            .collect();
        if !missing.is_empty() {
            out.push(about_key(
                m,
                Severity::Error,
                "layers-missing",
                &key,
                format!(
                    "\"{key}\" is {blocks}, but no tensor of layer {} is present; llama.cpp refuses the file (missing tensor)",
                    runs(&missing)
                ),
            ));
        }
        let extra: Vec<u64> = layers.range(blocks..).map(|(&n, _)| n).collect();
        if !extra.is_empty() {
            out.push(about_key(
                m,
                Severity::Error,
                "layers-extra",
                &key,
                format!(
                    "layer {} has tensors, but \"{key}\" is {blocks}; llama.cpp refuses the file (wrong number of tensors)",
                    runs(&extra)
                ),
            ));
        }
    }
    let Some((per_layer, model_wide)) = expected(m, arch) else {
        return;
    };
    for &k in model_wide {
        if !whole.contains(k) {
            out.push(about_key(
                m,
                Severity::Error,
                "tensor-missing",
                "general.architecture",
                format!("{k}.weight is missing; {arch} needs it and llama.cpp refuses the file without it"),
            ));
        }
    }
    let within = |n: u64| blocks.is_none_or(|b| n < b);
    for &k in per_layer {
        let fused = matches!(k, "attn_q" | "attn_k" | "attn_v");
        let missing: Vec<u64> = layers
            .iter()
            .filter(|(&n, kinds)| {
                within(n) && !kinds.contains(k) && !(fused && kinds.contains("attn_qkv"))
            })
            .map(|(&n, _)| n)
            .collect();
        if !missing.is_empty() {
            out.push(about_key(
                m,
                Severity::Error,
                "layer-tensor-missing",
                "general.architecture",
                format!(
                    "blk.#.{k}.weight is missing in layer {} ({arch} needs it in every layer); llama.cpp refuses the file",
                    runs(&missing)
                ),
            ));
        }
    }
}
