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

mod swa;
#[cfg(test)]
mod tests;

use serde::Serialize;

use crate::format::{Model, Value};
use swa::sliding_window;
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
fn per_layer(m: &Model, v: &Value, layers: u64, what: &str) -> Result<Vec<u64>, String> {
    match v {
        Value::Array(a) => {
            if a.len != layers {
                return Err(format!("{what} has {} entries for {layers} layers", a.len));
            }
            a.values(&m.bytes, 0, layers)
                .map_err(|e| e.to_string())?
                .iter()
                .map(|x| {
                    x.as_u64()
                        .ok_or_else(|| format!("{what} holds a non-integer"))
                })
                .collect()
        }
        other => other
            .as_u64()
            .map(|n| vec![n; layers as usize])
            .ok_or_else(|| format!("{what} is not an integer")),
    }
}
/// Estimates memory for `m` at `context` tokens (default: the model's own
/// `{arch}.context_length`) with a `kv` cache. `Err` says why there is no estimate.
pub fn estimate(m: &Model, context: Option<u64>, kv: KvType) -> Result<MemoryEstimate, String> {
    if m.format != crate::format::Format::Gguf {
        return Err(format!(
            "no estimate: the memory estimate reads a GGUF file's hyper-parameters; a {} file's live in its config.json",
            m.format.name()
        ));
    }
    let arch = m
        .get("general.architecture")
        .and_then(Value::as_str)
        .ok_or("no general.architecture key")?
        .to_string();
    let need = |k: &str| {
        key(m, &arch, k).ok_or_else(|| format!("no estimate: the file has no {arch}.{k} key"))
    };
    if RECURRENT_OR_HYBRID.contains(&arch.as_str())
        || key(m, &arch, "ssm.state_size").is_some()
        || key(m, &arch, "wkv.head_size").is_some()
    {
        return Err(format!(
            "no estimate: {arch} is a recurrent (state-space/RWKV) or hybrid model; its state is not a KV cache"
        ));
    }
    if NO_CACHE.contains(&arch.as_str())
        || key(m, &arch, "attention.causal") == Some(&Value::Bool(false))
    {
        return Err(format!(
            "no KV estimate: {arch} is an encoder or non-causal model, for which llama.cpp keeps no KV cache (llama_model::create_memory); it needs about its weights"
        ));
    }
    if DEDICATED_CACHE.contains(&arch.as_str()) {
        return Err(format!(
            "no estimate: llama.cpp gives {arch} a dedicated cache (llama_model::create_memory: sparse-attention indexer or a cache shared with another context) that this estimate does not model"
        ));
    }
    let layers = need("block_count")?
        .as_u64()
        .ok_or("no estimate: block_count is not an integer")?;
    if layers == 0 || layers > 100_000 {
        return Err(format!("no estimate: block_count is {layers}"));
    }
    let heads = per_layer(m, need("attention.head_count")?, layers, "head_count")?;
    let kv_heads = match key(m, &arch, "attention.head_count_kv") {
        Some(v) => per_layer(m, v, layers, "head_count_kv")?,
        None => heads.clone(),
    };
    let mut notes = vec![
        "weights as stored in the file; compute buffers, the output buffer and runtime overhead are not included"
            .to_string(),
    ];

    // Multi-head latent attention (llama_hparams::is_mla): K only.
    let mla_k = key(m, &arch, "attention.key_length_mla");
    let mla_v = key(m, &arch, "attention.value_length_mla");
    let lora = key(m, &arch, "attention.kv_lora_rank").and_then(Value::as_u64);
    let mla = match (mla_k.is_some(), mla_v.is_some()) {
        (true, true) => true,
        (false, false) if lora.is_some() => {
            return Err(format!(
                "no estimate: {arch} uses multi-head latent attention (kv_lora_rank) but the file has no {arch}.attention.key_length_mla key; llama.cpp then runs it without MLA, caching K and V per head, which this estimate does not guess"
            ))
        }
        (false, false) => false,
        (k, _) => {
            return Err(format!(
                "no estimate: the file has no {arch}.attention.{} key (llama.cpp needs both key_length_mla and value_length_mla for MLA)",
                if k { "value_length_mla" } else { "key_length_mla" }
            ))
        }
    };

    let embd = key(m, &arch, "embedding_length").and_then(Value::as_u64);
    // llama_model::load_hparams: n_embd / n_head(0).
    let default_dim = embd
        .zip(heads.first().copied().filter(|&h| h > 0))
        .map(|(e, h)| e / h);
    let dim = |k: &str, default: Option<u64>| -> Result<u64, String> {
        match key(m, &arch, k) {
            Some(v) => v
                .as_u64()
                .ok_or_else(|| format!("no estimate: {arch}.{k} is not an integer")),
            None => default.ok_or_else(|| {
                format!(
                    "no estimate: no {arch}.{k} and no embedding_length / head_count to derive it"
                )
            }),
        }
    };
    let (dk, dv) = if mla {
        let dk = need("attention.key_length")?
            .as_u64()
            .ok_or_else(|| format!("no estimate: {arch}.attention.key_length is not an integer"))?;
        (dk, 0)
    } else {
        (
            dim("attention.key_length", default_dim)?,
            dim("attention.value_length", default_dim)?,
        )
    };
    let ctx = match context {
        Some(c) => c,
        None => need("context_length")?
            .as_u64()
            .ok_or("no estimate: context_length is not an integer")?,
    };
    if ctx == 0 {
        return Err("no estimate: a context of 0 tokens (llama.cpp needs at least 1)".into());
    }
    let overflow = || "no estimate: the KV cache size overflows 64 bits".to_string();
    let cells = ctx
        .div_ceil(CELL_PAD)
        .checked_mul(CELL_PAD)
        .ok_or_else(overflow)?;
    if cells != ctx {
        notes.push(format!(
            "{ctx} tokens are {cells} cells: llama.cpp rounds the context up to a multiple of {CELL_PAD} (llama_context)"
        ));
    }

    // Layers that keep their own cache.
    let rule = SWA_RULES.iter().find(|r| r.arch == arch);
    let mut own = vec![true; layers as usize];
    let from_start = match rule.map(|r| r.own_cache) {
        Some(OwnCache::First(n)) => Some(n),
        Some(OwnCache::SharedKey) => Some(
            layers.saturating_sub(
                key(m, &arch, "attention.shared_kv_layers")
                    .and_then(Value::as_u64)
                    .unwrap_or(0),
            ),
        ),
        _ => None,
    };
    if let Some(n) = from_start.filter(|&n| n < layers) {
        own[n as usize..].iter_mut().for_each(|o| *o = false);
        notes.push(format!(
            "layers {n} to {} reuse the caches of earlier layers and keep none of their own (llama_hparams::has_kv)",
            layers - 1
        ));
    }
    let nextn = key(m, &arch, "nextn_predict_layers")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    if nextn > 0 && nextn < layers {
        own[(layers - nextn) as usize..]
            .iter_mut()
            .for_each(|o| *o = false);
        notes.push(format!(
            "the last {nextn} layer(s) predict further tokens ({arch}.nextn_predict_layers) and have no cache in the main context (llama_model::create_memory)"
        ));
    }

    // Sliding window.
    let w_key = key(m, &arch, "attention.sliding_window").and_then(Value::as_u64);
    let swa = match rule {
        Some(r) => match sliding_window(m, &arch, layers, r, &mut notes) {
            Ok(s) => s,
            Err(why) => {
                notes.push(format!(
                    "{why}; every layer is counted at the full context (an upper bound)"
                ));
                None
            }
        },
        None => {
            if let Some(w) = w_key {
                notes.push(if arch == "phi3" {
                    format!(
                        "the file has a sliding window of {w} tokens, but llama.cpp switches it off for phi3 (models/phi3.cpp), so every layer caches the full context"
                    )
                } else {
                    format!(
                        "the model has a sliding window of {w} tokens, but llama.cpp sets no per-layer window pattern for {arch}, so every layer is counted at the full context (what llama.cpp allocates; an upper bound for a runtime that uses the window)"
                    )
                });
            }
            None
        }
    };
    let swa_cells = match &swa {
        Some((w, _, _)) => {
            let want = w
                .checked_mul(N_SEQ_MAX)
                .and_then(|x| x.checked_add(N_UBATCH))
                .ok_or_else(overflow)?;
            want.min(cells)
                .div_ceil(CELL_PAD)
                .checked_mul(CELL_PAD)
                .ok_or_else(overflow)?
        }
        None => cells,
    };
    let is_swa = |il: usize| swa.as_ref().is_some_and(|(_, s, _)| s[il]);
    let (dk_swa, dv_swa) = if swa.is_some() && !mla {
        (
            dim("attention.key_length_swa", Some(dk))?,
            dim("attention.value_length_swa", Some(dv))?,
        )
    } else {
        (dk, dv)
    };

    let layer_bytes = |h: u64, k: u64, v: u64, c: u64| -> Option<u64> {
        let kb = kv.row_bytes(h.checked_mul(k)?)?;
        let vb = kv.row_bytes(h.checked_mul(v)?)?;
        c.checked_mul(kb.checked_add(vb)?)
    };
    let mut kv_per_layer = Vec::with_capacity(layers as usize);
    let mut full_per_layer = Vec::with_capacity(layers as usize);
    for (il, &h) in kv_heads.iter().enumerate() {
        if !own[il] {
            kv_per_layer.push(0);
            full_per_layer.push(0);
            continue;
        }
        let (k, v, c) = if is_swa(il) {
            (dk_swa, dv_swa, swa_cells)
        } else {
            (dk, dv, cells)
        };
        kv_per_layer.push(layer_bytes(h, k, v, c).ok_or_else(overflow)?);
        full_per_layer.push(layer_bytes(h, k, v, cells).ok_or_else(overflow)?);
    }
    let sum = |v: &[u64]| v.iter().try_fold(0u64, |a, &b| a.checked_add(b));
    let kv_bytes = sum(&kv_per_layer).ok_or_else(overflow)?;
    let kv_full_context_bytes = sum(&full_per_layer).ok_or_else(overflow)?;
    let weights_bytes = m
        .tensors
        .iter()
        .filter_map(|t| t.bytes)
        .fold(0u64, u64::saturating_add);
    if m.tensors.is_empty() {
        notes.push(
            "this file holds no tensors (a vocabulary or metadata-only file): the weights are 0 and only the KV cache is estimated"
                .into(),
        );
    }
    if let Some(set) = m
        .set
        .as_ref()
        .filter(|s| !s.kind.is_empty() && !s.complete())
    {
        notes.push(format!(
            "the weights are those of the {} of the model's {} files read, not the whole model's",
            set.files_read.len(),
            set.files_expected
        ));
    }

    let per_value = match kv {
        KvType::F16 => "2 B".to_string(),
        _ => {
            let (bb, bv) = kv.block();
            format!("{bb}/{bv} B")
        }
    };
    // One formula term per group of layers (full-attention, sliding-window).
    let term = |label: &str, pick: &dyn Fn(usize) -> bool, c: u64, k: u64, v: u64| {
        let idx: Vec<usize> = (0..layers as usize)
            .filter(|&il| own[il] && pick(il))
            .collect();
        if idx.is_empty() {
            return None;
        }
        let hs: Vec<u64> = idx.iter().map(|&il| kv_heads[il]).collect();
        let heads_text = if hs.windows(2).all(|w| w[0] == w[1]) {
            hs[0].to_string()
        } else {
            "n_head_kv[l]".to_string()
        };
        let dims = if mla {
            format!("{k} K dims (MLA: no V cache)")
        } else {
            format!("({k} + {v}) dims")
        };
        Some(format!(
            "{} {label}layers × {c} cells × {heads_text} KV heads × {dims} × {per_value}",
            idx.len()
        ))
    };
    let mut terms = Vec::new();
    if swa.is_some() {
        terms.extend(term("full-attention ", &|il| !is_swa(il), cells, dk, dv));
        terms.extend(term("sliding-window ", &is_swa, swa_cells, dk_swa, dv_swa));
    } else {
        terms.extend(term("", &|_| true, cells, dk, dv));
    }
    let formula = format!("KV = {} = {kv_bytes} bytes", terms.join(" + "));
    if mla {
        let rope = key(m, &arch, "rope.dimension_count").and_then(Value::as_u64);
        notes.push(match (lora, rope) {
            (Some(l), Some(r)) => format!(
                "multi-head latent attention: each layer caches one compressed K row of kv_lora_rank {l} + rope {r} = {} values per token (key_length {dk}), and llama.cpp keeps no V cache (V is read from K)",
                u128::from(l) + u128::from(r)
            ),
            _ => format!(
                "multi-head latent attention: each layer caches one compressed K row of key_length {dk} values per token, and llama.cpp keeps no V cache (V is read from K)"
            ),
        });
    }

    let sliding_window = match swa {
        Some((window, layers_swa, how)) => {
            let (mut full_layers, mut swa_layers, mut full_bytes, mut swa_bytes) =
                (0, 0, 0u64, 0u64);
            for (il, &b) in kv_per_layer.iter().enumerate() {
                if !own[il] {
                    continue;
                }
                if layers_swa[il] {
                    swa_layers += 1;
                    swa_bytes += b;
                } else {
                    full_layers += 1;
                    full_bytes += b;
                }
            }
            let kind = if rule.is_some_and(|r| r.chunked) {
                "chunked attention (chunk"
            } else {
                "sliding window (window"
            };
            notes.push(format!(
                "{kind} {window} tokens) on {swa_layers} of {layers} layers ({how}); those layers cache min({cells}, {window} × n_seq_max {N_SEQ_MAX} + n_ubatch {N_UBATCH}) rounded up to a multiple of {CELL_PAD} = {swa_cells} cells (llama_kv_cache_iswa, llama-cli/llama-server defaults, swa_full off); with every layer at the full context: {kv_full_context_bytes} bytes"
            ));
            Some(SlidingWindow {
                window,
                chunked: rule.is_some_and(|r| r.chunked),
                cells: swa_cells,
                n_ubatch: N_UBATCH,
                n_seq_max: N_SEQ_MAX,
                layers: layers_swa,
                full_layers,
                swa_layers,
                full_bytes,
                swa_bytes,
                pattern: how,
            })
        }
        None => None,
    };
    Ok(MemoryEstimate {
        architecture: arch,
        weights_bytes,
        context: ctx,
        cells,
        kv_type: kv,
        kv_bytes,
        total_bytes: weights_bytes.saturating_add(kv_bytes),
        kv_per_layer,
        kv_full_context_bytes,
        sliding_window,
        mla,
        formula,
        notes,
    })
}
