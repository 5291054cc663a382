//! Memory to run a GGUF decoder model: its weights plus the KV cache llama.cpp would allocate
//! for a context length.
//!
//! Everything here follows llama.cpp's source (read from the copy vendored in
//! llama-cpp-python 0.3.36; file and function names below are llama.cpp's):
//!
//! ```text
//! KV bytes = Σ over layers with a cache ( cells[l] × (row(n_head_kv[l] × head_dim_k[l]) + row(n_head_kv[l] × head_dim_v[l])) )
//! row(n)   = bytes of n values in the cache type: f16 2 B each, q8_0 34 B / 32, q4_0 18 B / 32
//! cells    = n_ctx rounded up to a multiple of 256                      (full-attention layers)
//! cells    = pad256(min(cells_full, n_swa × 1 + n_ubatch))               (sliding-window layers)
//! ```
//!
//! - One K and one V tensor per layer, `n_embd_k_gqa(il) = n_embd_head_k(il) × n_head_kv(il)` and
//!   `n_embd_v_gqa(il)` values per cell (`llama_kv_cache::llama_kv_cache` in
//!   src/llama-kv-cache.cpp, `llama_hparams::n_embd_k_gqa` in src/llama-hparams.cpp). Head dims
//!   are `{arch}.attention.key_length` / `value_length`, default `embedding_length /
//!   head_count` of layer 0; sliding-window layers use `key_length_swa` / `value_length_swa`
//!   when present (`llama_model::load_hparams` in src/llama-model.cpp).
//! - `llama_context::llama_context` (src/llama-context.cpp) rounds `n_ctx` up to a multiple of
//!   256; with one sequence that is the size of every full-attention layer's cache.
//! - Sliding-window layers: `llama_model::create_memory` builds a `llama_kv_cache_iswa` when the
//!   architecture's loader set a window type; its constructor (src/llama-kv-cache-iswa.cpp) sizes
//!   the SWA cache `GGML_PAD(min(size_base, n_swa × (unified ? n_seq_max : 1) + n_ubatch), 256)`.
//!   The defaults assumed are llama-cli's / llama-server's (`common_params` in common/common.h):
//!   `n_ubatch` 512, one sequence (`n_parallel` 1), `swa_full` false, `kv_unified` false. (The C
//!   API's `llama_context_default_params` has `swa_full` true, which gives every layer the full
//!   cache: the upper bound reported beside.)
//! - Which layers use the window is decided per architecture in its loader
//!   (`llama_model_<arch>::load_arch_hparams` in `src/models/<arch>.cpp`, through
//!   `llama_model_base::load_swa_pattern` → `llama_hparams::set_swa_pattern(n_pattern,
//!   dense_first)`: layer `il` is SWA when `il % n_pattern < n_pattern - 1`, or with dense_first
//!   when `il % n_pattern != 0`). `load_swa_pattern` first takes a per-layer array
//!   `{arch}.attention.sliding_window_pattern`, else a period of that name, else the
//!   architecture's own period. [`SWA_RULES`] lists the architectures and their periods.
//! - Multi-head latent attention (deepseek2): the converter stores the compressed cache as one KV
//!   head (`head_count_kv` 1) of `key_length = kv_lora_rank + rope dims`; llama.cpp treats a file
//!   as MLA when it has both `key_length_mla` and `value_length_mla`
//!   (`llama_hparams::is_mla`) and then allocates no V tensor (`has_v = !is_mla` in the
//!   `llama_kv_cache` constructor): the values are read from K.
//! - Layers without their own cache: gemma3n's layers from 20 on and gemma4's last
//!   `shared_kv_layers` reuse earlier layers' caches (`llama_hparams::has_kv`,
//!   `n_layer_kv_from_start`), and the last `{arch}.nextn_predict_layers` (multi-token
//!   prediction) layers are filtered out of the main context's cache (`create_memory`).
//!
//! Compute buffers, the output buffer and the runtime's own overhead are not included.
//! Recurrent and hybrid models, models with llama.cpp's dedicated caches (DSA indexers, …) and
//! models for which llama.cpp creates no KV cache get "no estimate" with the reason, never a
//! guess.

mod error;
mod estimate;
mod swa;
#[cfg(test)]
mod tests;

use serde::Serialize;

use crate::format::{Model, Value};
pub use error::EstimateError;
pub use estimate::estimate;
pub use swa::{swa_pattern, Enable, OwnCache, Pattern, SwaRule, Window, SWA_RULES};

/// The KV cache's element type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum KvType {
    /// 2 bytes per value.
    F16,
    /// ggml Q8_0: 34 bytes per 32 values.
    Q8_0,
    /// ggml Q4_0: 18 bytes per 32 values.
    Q4_0,
}

impl KvType {
    /// (bytes, values) per block.
    fn block(self) -> (u64, u64) {
        match self {
            KvType::F16 => (2, 1),
            KvType::Q8_0 => (34, 32),
            KvType::Q4_0 => (18, 32),
        }
    }

    /// Bytes of one cache row of `values` values (ggml_row_size).
    fn row_bytes(self, values: u64) -> Option<u64> {
        let (bb, bv) = self.block();
        values.div_ceil(bv).checked_mul(bb)
    }

    /// `f16`, `q8_0`, `q4_0`.
    pub fn name(self) -> &'static str {
        match self {
            KvType::F16 => "f16",
            KvType::Q8_0 => "q8_0",
            KvType::Q4_0 => "q4_0",
        }
    }

    /// Parses `f16`, `q8_0`, `q4_0`.
    pub fn parse(s: &str) -> Option<Self> {
        match s.to_ascii_lowercase().as_str() {
            "f16" => Some(KvType::F16),
            "q8_0" => Some(KvType::Q8_0),
            "q4_0" => Some(KvType::Q4_0),
            _ => None,
        }
    }
}

/// `n_ubatch` assumed: llama-cli's and llama-server's default (`common_params::n_ubatch`,
/// common/common.h).
pub const N_UBATCH: u64 = 512;
/// Sequences assumed: one (`common_params::n_parallel` 1, so `n_seq_max` 1, and `kv_unified`
/// false, which makes the SWA cache `n_swa × 1 + n_ubatch`).
pub const N_SEQ_MAX: u64 = 1;
/// Cache sizes are multiples of this many cells: `n_ctx` is padded to it in
/// `llama_context::llama_context`, the SWA cache in `llama_kv_cache_iswa::llama_kv_cache_iswa`.
pub const CELL_PAD: u64 = 256;
/// Architectures for which `llama_model::create_memory` makes no KV cache (encoders,
/// diffusion models, a vocoder).
const NO_CACHE: [&str; 14] = [
    "bert",
    "jina-bert-v2",
    "jina-bert-v3",
    "nomic-bert",
    "nomic-bert-moe",
    "neo-bert",
    "eurobert",
    "wavtokenizer-dec",
    "modern-bert",
    "gemma-embedding",
    "dream",
    "llada",
    "llada-moe",
    "rnd1",
];

/// `llm_arch_is_recurrent` and `llm_arch_is_hybrid` (src/llama-arch.cpp): a recurrent state,
/// alone or beside attention layers, which this estimate does not model.
const RECURRENT_OR_HYBRID: [&str; 24] = [
    "mamba",
    "mamba2",
    "rwkv6",
    "rwkv6qwen2",
    "rwkv7",
    "arwkv7",
    "jamba",
    "falcon-h1",
    "plamo2",
    "granitehybrid",
    "lfm2",
    "lfm2moe",
    "nemotron_h",
    "nemotron_h_moe",
    "qwen3next",
    "kimi-linear",
    "bailingmoe3",
    "kimi-k3",
    "glm5-next",
    "qwen35",
    "qwen35moe",
    "qwen4exp",
    "deepseek4",
    "minimax-01",
];

/// Architectures with a dedicated cache in `llama_model::create_memory` (sparse-attention
/// indexer caches, caches shared with another context).
const DEDICATED_CACHE: [&str; 6] = [
    "minimax-m3",
    "glm-dsa",
    "deepseek32",
    "hy_v4",
    "dots3note",
    "gemma4-assistant",
];

/// The sliding-window split of the estimate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SlidingWindow {
    /// Window (or chunk) size in tokens, `n_swa`.
    pub window: u64,
    /// Chunked attention (llama4) rather than a sliding window.
    pub chunked: bool,
    /// Cells of each sliding-window layer's cache.
    pub cells: u64,
    /// `n_ubatch` assumed.
    pub n_ubatch: u64,
    /// `n_seq_max` assumed.
    pub n_seq_max: u64,
    /// Per layer: whether it uses the window.
    pub layers: Vec<bool>,
    /// Full-attention layers that keep a cache.
    pub full_layers: u64,
    /// Sliding-window layers that keep a cache.
    pub swa_layers: u64,
    /// K+V bytes of the full-attention layers.
    pub full_bytes: u64,
    /// K+V bytes of the sliding-window layers.
    pub swa_bytes: u64,
    /// Where the pattern came from, e.g. `models/gemma3.cpp: period 6`.
    pub pattern: String,
}

/// The estimate and its parts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MemoryEstimate {
    /// Architecture (`general.architecture`).
    pub architecture: String,
    /// Bytes of all tensors (the weights as stored).
    pub weights_bytes: u64,
    /// Context length asked for (tokens).
    pub context: u64,
    /// Cells of a full-attention layer's cache: the context rounded up to a multiple of 256.
    pub cells: u64,
    /// Cache type.
    pub kv_type: KvType,
    /// Bytes of the K and V caches over all layers, as llama.cpp sizes them.
    pub kv_bytes: u64,
    /// weights + KV.
    pub total_bytes: u64,
    /// K+V bytes per layer, layer 0 first (0 for a layer without its own cache).
    pub kv_per_layer: Vec<u64>,
    /// KV bytes with every layer at the full context (full attention everywhere, as with
    /// `swa_full`): an upper bound; equal to `kv_bytes` without a sliding window.
    pub kv_full_context_bytes: u64,
    /// The sliding-window split, when llama.cpp uses one for this file.
    pub sliding_window: Option<SlidingWindow>,
    /// Multi-head latent attention: K only, no V cache.
    pub mla: bool,
    /// The formula with this model's numbers.
    pub formula: String,
    /// What the estimate leaves out or assumes.
    pub notes: Vec<String>,
}

fn key<'a>(m: &'a Model, arch: &str, k: &str) -> Option<&'a Value> {
    m.get(&format!("{arch}.{k}"))
}

/// A per-layer value: a scalar for every layer, or an array of one per layer.
fn per_layer(
    m: &Model,
    v: &Value,
    layers: u64,
    what: &'static str,
) -> Result<Vec<u64>, EstimateError> {
    match v {
        Value::Array(a) => {
            if a.len != layers {
                return Err(EstimateError::LayerEntries {
                    what,
                    len: a.len,
                    layers,
                });
            }
            a.values(&m.bytes, 0, layers)
                .map_err(EstimateError::Array)?
                .iter()
                .map(|x| x.as_u64().ok_or(EstimateError::NonIntegerEntry { what }))
                .collect()
        }
        other => other
            .as_u64()
            .map(|n| vec![n; layers as usize])
            .ok_or(EstimateError::NotPerLayer { what }),
    }
}
