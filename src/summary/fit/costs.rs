//! What each placeable part of a GGUF model costs in memory: the bytes of every layer's
//! tensors (`blk.N.*`, expert tensors apart), of the input tensors llama.cpp keeps on the CPU,
//! of the output layer, and each layer's KV cache as [`crate::summary::memory::estimate`]
//! sizes it.
//!
//! The grouping is llama.cpp's (`llm_tensor_info_mapping` in src/llama-arch.cpp, read in
//! `llama_model_loader::create_tensor`, src/llama-model-loader.cpp):
//! - input layer (always on the CPU, `dev_input` in `llama_model::load_tensors`):
//!   `token_embd`, `token_types`, `position_embd`, `per_layer_token_embd` and the masked
//!   embedding tables;
//! - repeating layer N: every `blk.N.*` tensor; the repeating tensors without a layer number
//!   (`token_embd_norm`, `rope_freqs`, `rope_factors_long`/`_short`, a few hundred bytes)
//!   count in layer 0, where llama.cpp creates them first;
//! - output layer: every other tensor (`output`, `output_norm`, classifier heads, …). A model
//!   without an `output.weight` reads its logits from the token embedding, which llama.cpp
//!   then loads a second time as the output tensor (`TENSOR_DUPLICATED`): on a GPU that copy
//!   costs its bytes again; on the CPU both are views of the same mapped file.
//! - expert tensors of a MoE layer: names matching llama.cpp's `LLM_FFN_EXPS_REGEX`,
//!   `\.ffn_(up|down|gate|gate_up)_(ch|)exps` (common/common.h), which `--n-cpu-moe` moves.

use serde::Serialize;

use crate::format::Model;

/// Input-layer tensor names (before the first `.`), kept on the CPU by llama.cpp.
pub const INPUT_TENSORS: [&str; 6] = [
    "token_embd",
    "token_types",
    "position_embd",
    "per_layer_token_embd",
    "masked_embd_centroids",
    "masked_embd_ordering",
];

/// Repeating-layer tensors stored without a layer number ([`costs`] counts them in layer 0).
pub const UNNUMBERED_REPEATING: [&str; 4] = [
    "token_embd_norm",
    "rope_freqs",
    "rope_factors_long",
    "rope_factors_short",
];

/// The bytes of one repeating layer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct LayerCost {
    /// Bytes of the layer's tensors other than expert tensors.
    pub dense: u64,
    /// Bytes of the layer's expert tensors (`ffn_*_exps`), 0 for a dense layer.
    pub experts: u64,
    /// K+V cache bytes of the layer at the planned context.
    pub kv: u64,
}

impl LayerCost {
    /// dense + experts + kv.
    pub fn total(&self) -> u64 {
        self.dense
            .saturating_add(self.experts)
            .saturating_add(self.kv)
    }
}

/// The costs of a model's parts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Costs {
    /// Repeating layers `blk.0` … `blk.{n-1}`, `n` = `{arch}.block_count`.
    pub layers: Vec<LayerCost>,
    /// Bytes of the input layer's tensors (on the CPU).
    pub input: u64,
    /// Bytes of the output layer's tensors, without a tied copy of the token embedding.
    pub output: u64,
    /// Bytes of the token embedding that llama.cpp loads again as the output tensor when the
    /// file has no `output.weight` (0 when it has one).
    pub tied_output: u64,
    /// Tensors named `blk.N` with N at or past the block count (counted in the output layer).
    pub stray: Vec<String>,
}

/// The layer index of `blk.N.*`.
pub fn layer_of(name: &str) -> Option<u64> {
    let rest = name.strip_prefix("blk.")?;
    let (n, _) = rest.split_once('.')?;
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    n.parse().ok()
}

/// Whether `name` is an expert tensor that `--n-cpu-moe` moves: llama.cpp's
/// `\.ffn_(up|down|gate|gate_up)_(ch|)exps` searched in the name.
pub fn is_expert(name: &str) -> bool {
    // Each `.ffn_` in the name, followed by a projection and `_exps` or `_chexps` (no string
    // built: the fit plan asks this of every tensor at every context it tries).
    name.match_indices(".ffn_").any(|(i, m)| {
        let rest = &name[i + m.len()..];
        ["up", "down", "gate", "gate_up"].iter().any(|p| {
            rest.strip_prefix(p)
                .is_some_and(|r| r.starts_with("_exps") || r.starts_with("_chexps"))
        })
    })
}

/// Whether `name` is an input-layer tensor ([`INPUT_TENSORS`]).
pub fn is_input(name: &str) -> bool {
    let stem = name.split('.').next().unwrap_or("");
    INPUT_TENSORS.contains(&stem)
}

/// Groups `m`'s tensor bytes by llama.cpp's layers, with `kv[l]` the KV cache of layer `l`
/// (its length is the block count). A tensor whose size is unknown counts 0 bytes.
pub fn costs(m: &Model, kv: &[u64]) -> Costs {
    let n = kv.len();
    let mut layers: Vec<LayerCost> = kv
        .iter()
        .map(|&kv| LayerCost {
            kv,
            ..LayerCost::default()
        })
        .collect();
    let (mut input, mut output, mut token_embd) = (0u64, 0u64, 0u64);
    let mut has_output = false;
    let mut stray = Vec::new();
    for t in &m.tensors {
        let b = t.bytes.unwrap_or(0);
        let stem = t.name.split('.').next().unwrap_or("");
        let layer = layer_of(&t.name)
            .or_else(|| (UNNUMBERED_REPEATING.contains(&stem) && n > 0).then_some(0));
        if let Some(il) = layer {
            match usize::try_from(il).ok().and_then(|i| layers.get_mut(i)) {
                Some(l) if is_expert(&t.name) => l.experts = l.experts.saturating_add(b),
                Some(l) => l.dense = l.dense.saturating_add(b),
                None => {
                    stray.push(t.name.clone());
                    output = output.saturating_add(b);
                }
            }
        } else if is_input(&t.name) {
            input = input.saturating_add(b);
            if t.name == "token_embd.weight" {
                token_embd = b;
            }
        } else {
            has_output |= t.name == "output.weight";
            output = output.saturating_add(b);
        }
    }
    debug_assert_eq!(layers.len(), n);
    Costs {
        layers,
        input,
        output,
        tied_output: if has_output { 0 } else { token_embd },
        stray,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_group_as_llama_cpp_groups_them() {
        assert_eq!(layer_of("blk.12.ffn_down.weight"), Some(12));
        assert_eq!(layer_of("blk.x.ffn_down.weight"), None);
        assert_eq!(layer_of("v.blk.1.attn_q.weight"), None);
        assert!(is_expert("blk.3.ffn_gate_exps.weight"));
        assert!(is_expert("blk.3.ffn_gate_up_exps.weight"));
        assert!(is_expert("blk.3.ffn_down_chexps.weight"));
        assert!(!is_expert("blk.3.ffn_down_shexp.weight"));
        assert!(!is_expert("blk.3.ffn_gate_inp.weight"));
        assert!(is_input("token_embd.weight"));
        assert!(!is_input("output.weight"));
        assert!(!is_input("token_embd_norm.weight"));
    }
}
