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
//!   (`llama_model_<arch>::load_arch_hparams` in src/models/<arch>.cpp, through
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

use serde::Serialize;

use crate::format::{Model, Value};

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

/// Which layers an architecture's loader marks as sliding-window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pattern {
    /// `load_swa_pattern(ml, n, dense_first)`: a per-layer array or a period in
    /// `{arch}.attention.sliding_window_pattern` wins over `n`.
    Period { n: u64, dense_first: bool },
    /// `ml.get_arr(LLM_KV_ATTENTION_SLIDING_WINDOW_PATTERN, hparams.is_swa_impl)`: the
    /// per-layer array is required.
    Array,
}

/// Where an architecture's window size comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Window {
    /// `{arch}.attention.sliding_window`.
    Key,
    /// The key, else this default set in the loader.
    KeyOr(u64),
    /// Set in the loader whatever the key says (the key only switches the window on or off).
    Fixed(u64),
}

/// When the loader turns the window on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Enable {
    /// Always (a missing required key makes llama.cpp refuse the file).
    Always,
    /// Only when `{arch}.attention.sliding_window` is present and above 0.
    KeyPositive,
    /// Unless `{arch}.attention.sliding_window` is present and 0 (llama4).
    UnlessKeyZero,
    /// Only for this block count (exaone4: the 32B, 64 layers).
    BlockCount(u64),
}

/// Which layers keep their own cache (`llama_hparams::n_layer_kv_from_start`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OwnCache {
    /// Every layer.
    All,
    /// The first N layers (gemma3n: 20); later layers reuse them.
    First(u64),
    /// All but the last `{arch}.attention.shared_kv_layers` (gemma4).
    SharedKey,
}

/// One architecture's sliding-window set-up in llama.cpp.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SwaRule {
    /// `general.architecture` (llama-arch.cpp `LLM_ARCH_NAMES`).
    pub arch: &'static str,
    /// Its loader, src/models/<file>.
    pub file: &'static str,
    pub pattern: Pattern,
    pub window: Window,
    pub enable: Enable,
    pub own_cache: OwnCache,
    /// Chunked attention (`LLAMA_SWA_TYPE_CHUNKED`); the cache is sized the same way.
    pub chunked: bool,
}

const fn rule(
    arch: &'static str,
    file: &'static str,
    pattern: Pattern,
    window: Window,
    enable: Enable,
) -> SwaRule {
    SwaRule {
        arch,
        file,
        pattern,
        window,
        enable,
        own_cache: OwnCache::All,
        chunked: false,
    }
}

const fn period(n: u64) -> Pattern {
    Pattern::Period {
        n,
        dense_first: false,
    }
}

const fn period_dense_first(n: u64) -> Pattern {
    Pattern::Period {
        n,
        dense_first: true,
    }
}

/// The architectures whose loader (`llama_model_<arch>::load_arch_hparams`, src/models/) sets a
/// sliding window for decoding, with the pattern, window and condition it uses. Encoders with a
/// window (modern-bert, gemma-embedding) keep no KV cache and are not listed; phi3's window is
/// switched off by its loader (see [`estimate`]).
pub const SWA_RULES: [SwaRule; 22] = [
    rule(
        "gemma2",
        "gemma2.cpp",
        period(2),
        Window::KeyOr(4096),
        Enable::Always,
    ),
    rule(
        "gemma3",
        "gemma3.cpp",
        period(6),
        Window::Key,
        Enable::KeyPositive,
    ),
    SwaRule {
        own_cache: OwnCache::First(20),
        ..rule(
            "gemma3n",
            "gemma3n.cpp",
            period(5),
            Window::Key,
            Enable::Always,
        )
    },
    SwaRule {
        own_cache: OwnCache::SharedKey,
        ..rule(
            "gemma4",
            "gemma4.cpp",
            Pattern::Array,
            Window::Key,
            Enable::Always,
        )
    },
    rule(
        "cohere2",
        "cohere2.cpp",
        period(4),
        Window::Key,
        Enable::Always,
    ),
    rule(
        "cohere2moe",
        "cohere2moe.cpp",
        period_dense_first(4),
        Window::Key,
        Enable::Always,
    ),
    SwaRule {
        chunked: true,
        ..rule(
            "llama4",
            "llama4.cpp",
            period(4),
            Window::Fixed(8192),
            Enable::UnlessKeyZero,
        )
    },
    rule(
        "gpt-oss",
        "openai-moe.cpp",
        period(2),
        Window::Key,
        Enable::Always,
    ),
    rule(
        "exaone4",
        "exaone4.cpp",
        period(4),
        Window::KeyOr(4096),
        Enable::BlockCount(64),
    ),
    rule(
        "exaone-moe",
        "exaone-moe.cpp",
        period(4),
        Window::Key,
        Enable::Always,
    ),
    rule(
        "olmo2",
        "olmo2.cpp",
        period(4),
        Window::Key,
        Enable::KeyPositive,
    ),
    rule(
        "plamo3",
        "plamo3.cpp",
        period(8),
        Window::Key,
        Enable::KeyPositive,
    ),
    rule(
        "afmoe",
        "afmoe.cpp",
        period(4),
        Window::Key,
        Enable::KeyPositive,
    ),
    rule(
        "smallthinker",
        "smallthinker.cpp",
        period_dense_first(4),
        Window::Fixed(4096),
        Enable::KeyPositive,
    ),
    rule(
        "mellum",
        "mellum.cpp",
        period(4),
        Window::Key,
        Enable::KeyPositive,
    ),
    rule(
        "muse-glimmer",
        "muse-glimmer.cpp",
        period(4),
        Window::Key,
        Enable::Always,
    ),
    rule(
        "laguna",
        "laguna.cpp",
        period_dense_first(4),
        Window::Key,
        Enable::KeyPositive,
    ),
    rule(
        "granite_swa",
        "granite-swa.cpp",
        Pattern::Array,
        Window::Key,
        Enable::Always,
    ),
    rule(
        "mimo2",
        "mimo2.cpp",
        Pattern::Array,
        Window::Key,
        Enable::Always,
    ),
    rule(
        "step35",
        "step35.cpp",
        Pattern::Array,
        Window::Key,
        Enable::Always,
    ),
    rule(
        "maple",
        "maple.cpp",
        Pattern::Array,
        Window::Key,
        Enable::Always,
    ),
    rule(
        "spark2_5",
        "spark2-5.cpp",
        Pattern::Array,
        Window::Key,
        Enable::Always,
    ),
];

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

/// `llama_hparams::set_swa_pattern`: layer `il` uses the window when `n == 0 ||
/// il % n < n - 1`, or with `dense_first` when `n == 0 || il % n != 0`.
pub fn swa_pattern(layers: u64, n: u64, dense_first: bool) -> Vec<bool> {
    (0..layers)
        .map(|il| {
            n == 0
                || if dense_first {
                    il % n != 0
                } else {
                    il % n < n - 1
                }
        })
        .collect()
}

/// `{arch}.attention.sliding_window_pattern` as a per-layer array (bool or integer entries,
/// non-zero = sliding window), if the file has one.
fn pattern_array(m: &Model, arch: &str, layers: u64) -> Option<Result<Vec<bool>, String>> {
    let k = format!("{arch}.attention.sliding_window_pattern");
    let Some(Value::Array(a)) = m.get(&k) else {
        return None;
    };
    Some((|| {
        if a.len != layers {
            return Err(format!("{k} has {} entries for {layers} layers", a.len));
        }
        a.values(&m.bytes, 0, layers)
            .map_err(|e| e.to_string())?
            .iter()
            .map(|x| match x {
                Value::Bool(b) => Ok(*b),
                other => other
                    .as_u64()
                    .map(|n| n != 0)
                    .ok_or_else(|| format!("{k} holds a value that is neither bool nor integer")),
            })
            .collect()
    })())
}

/// What llama.cpp does with this file's window: `Ok(Some(..))` the layers and window,
/// `Ok(None)` full attention on every layer (said in `notes`), `Err` the split is unknown
/// (why).
fn sliding_window(
    m: &Model,
    arch: &str,
    layers: u64,
    rule: &SwaRule,
    notes: &mut Vec<String>,
) -> Result<Option<(u64, Vec<bool>, String)>, String> {
    let wkey = format!("{arch}.attention.sliding_window");
    let w = key(m, arch, "attention.sliding_window").and_then(Value::as_u64);
    let file = format!("models/{}", rule.file);
    let on = match rule.enable {
        Enable::Always => true,
        Enable::KeyPositive => w.is_some_and(|w| w > 0),
        Enable::UnlessKeyZero => w != Some(0),
        Enable::BlockCount(n) => layers == n,
    };
    if !on {
        notes.push(match rule.enable {
            Enable::BlockCount(n) => format!(
                "{arch} with {layers} layers: llama.cpp ({file}) uses a sliding window only for {n} layers, so every layer caches the full context"
            ),
            _ => format!(
                "{wkey} is {}: llama.cpp ({file}) then uses full attention on every layer",
                w.map_or("absent".to_string(), |w| w.to_string())
            ),
        });
        return Ok(None);
    }
    let window = match rule.window {
        Window::Key => w.ok_or_else(|| {
            format!("llama.cpp ({file}) needs {wkey} for {arch} and the file has none")
        })?,
        Window::KeyOr(d) => w.unwrap_or(d),
        Window::Fixed(n) => n,
    };
    if let (Window::KeyOr(d), None) = (rule.window, w) {
        notes.push(format!(
            "no {wkey}: llama.cpp's default window for {arch}, {d} tokens ({file})"
        ));
    }
    if let (Window::Fixed(n), Some(w)) = (rule.window, w) {
        if w != n {
            notes.push(format!(
                "{wkey} is {w}, but llama.cpp ({file}) sets the window of {arch} to {n} tokens"
            ));
        }
    }
    let pkey = format!("{arch}.attention.sliding_window_pattern");
    let (swa, how) = match (rule.pattern, pattern_array(m, arch, layers)) {
        (_, Some(Err(why))) => return Err(why),
        (_, Some(Ok(a))) => (a, format!("{file}: the per-layer {pkey}")),
        (Pattern::Array, None) => {
            return Err(format!(
                "llama.cpp ({file}) reads which layers use the window from the array {pkey}, which the file lacks"
            ))
        }
        (Pattern::Period { n, dense_first }, None) => {
            let (n, from_key) = match key(m, arch, "attention.sliding_window_pattern")
                .and_then(Value::as_u64)
            {
                Some(p) => (p, true),
                None => (n, false),
            };
            let phase = if dense_first {
                "every layer il with il % n = 0 full, the rest sliding-window"
            } else {
                "layers il % n < n − 1 sliding-window, the rest full"
            };
            (
                swa_pattern(layers, n, dense_first),
                format!(
                    "{file}: period n = {n}{}, {phase}",
                    if from_key { format!(" from {pkey}") } else { String::new() }
                ),
            )
        }
    };
    Ok(Some((window, swa, how)))
}

/// Estimates memory for `m` at `context` tokens (default: the model's own
/// `{arch}.context_length`) with a `kv` cache. `Err` says why there is no estimate.
pub fn estimate(m: &Model, context: Option<u64>, kv: KvType) -> Result<MemoryEstimate, String> {
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
                l + r
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::parse_bytes;
    use crate::view::testutil::{gguf, Kv};

    /// A model from metadata only (one 8-element f32 tensor, 32 bytes).
    fn model(kvs: &[(&str, Kv<'_>)]) -> Model {
        parse_bytes(&gguf(kvs, &[("t", 0, vec![8], 0)])).unwrap()
    }

    /// f16 bytes of `layers` layers at `cells` cells with `h` KV heads of (k + v) dims.
    fn f16(layers: u64, cells: u64, h: u64, k: u64, v: u64) -> u64 {
        layers * cells * h * (k + v) * 2
    }

    #[test]
    fn llama_style_keys_give_the_formula() {
        let m = model(&[
            ("general.architecture", Kv::Str("llama")),
            ("llama.block_count", Kv::U32(2)),
            ("llama.embedding_length", Kv::U32(64)),
            ("llama.attention.head_count", Kv::U32(4)),
            ("llama.attention.head_count_kv", Kv::I32Array(vec![2, 0])),
            ("llama.context_length", Kv::U32(100)),
        ]);
        let e = estimate(&m, None, KvType::F16).unwrap();
        // head dim 64 / 4 = 16; 100 tokens are 256 cells; layer 1 has no KV heads.
        assert_eq!(e.context, 100);
        assert_eq!(e.cells, 256);
        assert_eq!(e.kv_per_layer, [f16(1, 256, 2, 16, 16), 0]);
        assert_eq!(e.weights_bytes, 32);
        assert_eq!(e.total_bytes, 32 + e.kv_bytes);
        assert_eq!(e.kv_full_context_bytes, e.kv_bytes);
        assert!(e.sliding_window.is_none() && !e.mla);
        assert!(e
            .notes
            .iter()
            .any(|n| n.contains("100 tokens are 256 cells")));
        let q8 = estimate(&m, Some(512), KvType::Q8_0).unwrap();
        // per row: 2 heads × 16 dims = 32 values = one 34-byte block, for K and for V.
        assert_eq!(q8.kv_bytes, 512 * (34 + 34));
        assert!(
            e.formula.starts_with(
                "KV = 2 layers × 256 cells × n_head_kv[l] KV heads × (16 + 16) dims × 2 B"
            ),
            "{}",
            e.formula
        );
    }

    #[test]
    fn missing_keys_say_no_estimate() {
        let m = model(&[
            ("general.architecture", Kv::Str("mamba")),
            ("mamba.ssm.state_size", Kv::U32(16)),
        ]);
        assert!(estimate(&m, None, KvType::F16)
            .unwrap_err()
            .contains("recurrent"));
        let m = model(&[("general.architecture", Kv::Str("llama"))]);
        assert_eq!(
            estimate(&m, None, KvType::F16).unwrap_err(),
            "no estimate: the file has no llama.block_count key"
        );
        for (arch, says) in [
            ("qwen3next", "hybrid"),
            ("bert", "no KV cache"),
            ("gemma-embedding", "no KV cache"),
            ("deepseek32", "dedicated cache"),
        ] {
            let m = model(&[
                ("general.architecture", Kv::Str(arch)),
                (&format!("{arch}.block_count"), Kv::U32(2)),
            ]);
            let why = estimate(&m, Some(4096), KvType::F16).unwrap_err();
            assert!(why.contains(says), "{arch}: {why}");
        }
    }

    /// The common decoder architectures of issue #6, from the keys their converters write:
    /// every layer at the full context.
    #[test]
    fn common_architectures_estimate_from_their_keys() {
        // (arch, layers, embd, heads, kv heads, key/value length if written)
        type Case = (&'static str, u32, u32, u32, u32, Option<u32>);
        let cases: [Case; 6] = [
            ("llama", 32, 4096, 32, 8, None),         // Llama 3 8B
            ("qwen2", 28, 3584, 28, 4, None),         // Qwen2.5 7B
            ("qwen3", 36, 4096, 32, 8, Some(128)),    // Qwen3 8B
            ("qwen3moe", 48, 2048, 32, 4, Some(128)), // Qwen3 30B-A3B
            ("phi3", 32, 3072, 32, 32, None),         // Phi-3 mini
            ("llama", 40, 5120, 32, 8, Some(128)),    // Mistral Nemo (llama arch)
        ];
        for (arch, layers, embd, heads, kv_heads, len) in cases {
            let k = |s: &str| format!("{arch}.{s}");
            let mut kvs = vec![
                ("general.architecture".to_string(), Kv::Str(arch)),
                (k("block_count"), Kv::U32(layers)),
                (k("embedding_length"), Kv::U32(embd)),
                (k("attention.head_count"), Kv::U32(heads)),
                (k("attention.head_count_kv"), Kv::U32(kv_heads)),
                (k("context_length"), Kv::U32(32768)),
            ];
            if let Some(l) = len {
                kvs.push((k("attention.key_length"), Kv::U32(l)));
                kvs.push((k("attention.value_length"), Kv::U32(l)));
            }
            if arch == "phi3" || embd == 5120 {
                kvs.push((k("attention.sliding_window"), Kv::U32(2047)));
            }
            let refs: Vec<(&str, Kv<'_>)> = kvs
                .iter()
                .map(|(a, b)| {
                    (
                        a.as_str(),
                        match b {
                            Kv::Str(s) => Kv::Str(s),
                            Kv::U32(x) => Kv::U32(*x),
                            _ => unreachable!(),
                        },
                    )
                })
                .collect();
            let m = model(&refs);
            let e = estimate(&m, Some(8192), KvType::F16).unwrap();
            let dim = u64::from(len.unwrap_or(embd / heads));
            let want = f16(layers.into(), 8192, kv_heads.into(), dim, dim);
            assert_eq!(e.kv_bytes, want, "{arch}");
            assert_eq!(e.kv_full_context_bytes, want, "{arch}");
            assert!(e.sliding_window.is_none(), "{arch}");
            if arch == "phi3" {
                assert!(e
                    .notes
                    .iter()
                    .any(|n| n.contains("switches it off for phi3")));
            } else if embd == 5120 {
                assert!(e
                    .notes
                    .iter()
                    .any(|n| n.contains("no per-layer window pattern for llama")));
            }
        }
    }

    fn gemma(arch: &str, layers: u32, window: Option<u32>, extra: &[(&str, Kv<'_>)]) -> Model {
        let k = |s: &str| format!("{arch}.{s}");
        let names = [
            k("block_count"),
            k("embedding_length"),
            k("attention.head_count"),
            k("attention.head_count_kv"),
            k("attention.key_length"),
            k("attention.value_length"),
            k("context_length"),
            k("attention.sliding_window"),
        ];
        let mut kvs: Vec<(&str, Kv<'_>)> = vec![
            ("general.architecture", Kv::Str(arch)),
            (&names[0], Kv::U32(layers)),
            (&names[1], Kv::U32(640)),
            (&names[2], Kv::U32(4)),
            (&names[3], Kv::U32(1)),
            (&names[4], Kv::U32(256)),
            (&names[5], Kv::U32(256)),
            (&names[6], Kv::U32(32768)),
        ];
        if let Some(w) = window {
            kvs.push((&names[7], Kv::U32(w)));
        }
        for (a, b) in extra {
            kvs.push((
                a,
                match b {
                    Kv::U32(x) => Kv::U32(*x),
                    Kv::I32Array(v) => Kv::I32Array(v.clone()),
                    _ => unreachable!(),
                },
            ));
        }
        model(&kvs)
    }

    #[test]
    fn gemma3_uses_every_sixth_layer_for_full_attention() {
        let m = gemma("gemma3", 26, Some(512), &[]);
        let e = estimate(&m, Some(32768), KvType::F16).unwrap();
        let s = e.sliding_window.as_ref().unwrap();
        let full: Vec<usize> = (0..26).filter(|&il| !s.layers[il]).collect();
        assert_eq!(full, [5, 11, 17, 23]);
        // min(32768, 512 + 512) = 1024, a multiple of 256.
        assert_eq!(s.cells, 1024);
        assert_eq!((s.full_layers, s.swa_layers), (4, 22));
        assert_eq!(s.full_bytes, f16(4, 32768, 1, 256, 256));
        assert_eq!(s.swa_bytes, f16(22, 1024, 1, 256, 256));
        assert_eq!(e.kv_bytes, s.full_bytes + s.swa_bytes);
        assert_eq!(e.kv_full_context_bytes, f16(26, 32768, 1, 256, 256));
        assert!(
            e.formula.contains("4 full-attention layers × 32768 cells"),
            "{}",
            e.formula
        );
        assert!(
            e.formula.contains("22 sliding-window layers × 1024 cells"),
            "{}",
            e.formula
        );
        // A short context: the SWA cache is capped by the full one.
        let short = estimate(&m, Some(600), KvType::F16).unwrap();
        assert_eq!(short.cells, 768);
        assert_eq!(short.sliding_window.unwrap().cells, 768);
        assert_eq!(short.kv_bytes, short.kv_full_context_bytes);
        // No window key: llama.cpp uses full attention everywhere (models/gemma3.cpp).
        let none = estimate(&gemma("gemma3", 26, None, &[]), Some(4096), KvType::F16).unwrap();
        assert!(none.sliding_window.is_none());
        assert_eq!(none.kv_bytes, f16(26, 4096, 1, 256, 256));
        assert!(none
            .notes
            .iter()
            .any(|n| n.contains("full attention on every layer")));
    }

    #[test]
    fn gemma2_alternates_and_defaults_the_window() {
        // models/gemma2.cpp: period 2, window 4096 unless the key says otherwise.
        let e = estimate(&gemma("gemma2", 26, None, &[]), Some(8192), KvType::F16).unwrap();
        let s = e.sliding_window.as_ref().unwrap();
        assert_eq!(s.window, 4096);
        assert_eq!(
            (0..4).map(|il| s.layers[il]).collect::<Vec<_>>(),
            [true, false, true, false]
        );
        // 4096 + 512 = 4608, a multiple of 256.
        assert_eq!(s.cells, 4608);
        assert_eq!(
            e.kv_bytes,
            f16(13, 8192, 1, 256, 256) + f16(13, 4608, 1, 256, 256)
        );
        assert!(e
            .notes
            .iter()
            .any(|n| n.contains("default window for gemma2, 4096")));
        // A period in the file's sliding_window_pattern overrides the loader's.
        let p = gemma(
            "gemma2",
            6,
            Some(1000),
            &[("gemma2.attention.sliding_window_pattern", Kv::U32(3))],
        );
        let s = estimate(&p, Some(8192), KvType::F16)
            .unwrap()
            .sliding_window
            .unwrap();
        assert_eq!(s.layers, [true, true, false, true, true, false]);
        // 1000 + 512 = 1512 → 1536.
        assert_eq!(s.cells, 1536);
    }

    #[test]
    fn per_layer_pattern_arrays_and_shared_caches() {
        // gemma4: the pattern is a per-layer array; the last shared_kv_layers reuse caches.
        let m = gemma(
            "gemma4",
            6,
            Some(512),
            &[
                (
                    "gemma4.attention.sliding_window_pattern",
                    Kv::I32Array(vec![1, 1, 0, 1, 1, 0]),
                ),
                ("gemma4.attention.shared_kv_layers", Kv::U32(2)),
                ("gemma4.attention.key_length_swa", Kv::U32(128)),
                ("gemma4.attention.value_length_swa", Kv::U32(128)),
            ],
        );
        let e = estimate(&m, Some(4096), KvType::F16).unwrap();
        assert_eq!(
            e.kv_per_layer,
            [
                f16(1, 1024, 1, 128, 128),
                f16(1, 1024, 1, 128, 128),
                f16(1, 4096, 1, 256, 256),
                f16(1, 1024, 1, 128, 128),
                0,
                0
            ]
        );
        // Without the array llama.cpp refuses the file: the upper bound, said so.
        let bare = gemma("gemma4", 6, Some(512), &[]);
        let e = estimate(&bare, Some(4096), KvType::F16).unwrap();
        assert!(e.sliding_window.is_none());
        assert!(e
            .notes
            .iter()
            .any(|n| n.contains("sliding_window_pattern, which the file lacks")));
        // gemma3n: period 5, only the first 20 layers keep a cache.
        let n = gemma("gemma3n", 30, Some(512), &[]);
        let e = estimate(&n, Some(4096), KvType::F16).unwrap();
        let s = e.sliding_window.as_ref().unwrap();
        assert_eq!((s.full_layers, s.swa_layers), (4, 16));
        assert!(e.kv_per_layer[20..].iter().all(|&b| b == 0));
        assert_eq!(
            e.kv_bytes,
            f16(4, 4096, 1, 256, 256) + f16(16, 1024, 1, 256, 256)
        );
    }

    #[test]
    fn llama4_chunks_and_gpt_oss_alternates() {
        // llama4: chunk 8192 set in the loader, 3 chunked layers then 1 full.
        let m = gemma("llama4", 8, None, &[]);
        let e = estimate(&m, Some(65536), KvType::F16).unwrap();
        let s = e.sliding_window.as_ref().unwrap();
        assert!(s.chunked);
        assert_eq!(s.cells, 8192 + 512);
        assert_eq!((s.full_layers, s.swa_layers), (2, 6));
        // gpt-oss needs the key; without it the upper bound, said so.
        let g = gemma("gpt-oss", 4, Some(128), &[]);
        let s = estimate(&g, Some(4096), KvType::F16)
            .unwrap()
            .sliding_window
            .unwrap();
        assert_eq!(s.layers, [true, false, true, false]);
        assert_eq!(s.cells, 768);
        let bare = estimate(&gemma("gpt-oss", 4, None, &[]), Some(4096), KvType::F16).unwrap();
        assert!(bare.sliding_window.is_none());
        assert!(bare
            .notes
            .iter()
            .any(|n| n.contains("needs gpt-oss.attention.sliding_window")));
        // cohere2moe: dense first.
        let c = gemma("cohere2moe", 5, Some(4096), &[]);
        let s = estimate(&c, Some(32768), KvType::F16)
            .unwrap()
            .sliding_window
            .unwrap();
        assert_eq!(s.layers, [false, true, true, true, false]);
    }

    #[test]
    fn mla_caches_k_only() {
        // DeepSeek-V3 keys as convert_hf_to_gguf writes them (head_count_kv 1,
        // key_length = kv_lora_rank + rope, value_length = kv_lora_rank).
        let full = [
            ("general.architecture", Kv::Str("deepseek2")),
            ("deepseek2.block_count", Kv::U32(61)),
            ("deepseek2.embedding_length", Kv::U32(7168)),
            ("deepseek2.attention.head_count", Kv::U32(128)),
            ("deepseek2.attention.head_count_kv", Kv::U32(1)),
            ("deepseek2.attention.key_length", Kv::U32(576)),
            ("deepseek2.attention.value_length", Kv::U32(512)),
            ("deepseek2.attention.key_length_mla", Kv::U32(192)),
            ("deepseek2.attention.value_length_mla", Kv::U32(128)),
            ("deepseek2.attention.kv_lora_rank", Kv::U32(512)),
            ("deepseek2.rope.dimension_count", Kv::U32(64)),
            ("deepseek2.context_length", Kv::U32(163840)),
        ];
        let copy = |skip: &str| -> Vec<(&str, Kv<'_>)> {
            full.iter()
                .filter(|(k, _)| !k.ends_with(skip))
                .map(|(k, v)| {
                    (
                        *k,
                        match v {
                            Kv::Str(s) => Kv::Str(s),
                            Kv::U32(x) => Kv::U32(*x),
                            _ => unreachable!(),
                        },
                    )
                })
                .collect()
        };
        let e = estimate(&model(&copy("-none-")), Some(4096), KvType::F16).unwrap();
        assert!(e.mla);
        assert_eq!(e.kv_bytes, 61 * 4096 * 576 * 2);
        assert!(
            e.formula.contains("576 K dims (MLA: no V cache)"),
            "{}",
            e.formula
        );
        assert!(e
            .notes
            .iter()
            .any(|n| n.contains("kv_lora_rank 512 + rope 64 = 576")));
        let q8 = estimate(&model(&copy("-none-")), Some(4096), KvType::Q8_0).unwrap();
        assert_eq!(q8.kv_bytes, 61 * 4096 * (576 / 32 * 34));
        for (skip, named) in [
            (".key_length_mla", "deepseek2.attention.key_length_mla"),
            (".value_length_mla", "deepseek2.attention.value_length_mla"),
            (
                ".attention.key_length",
                "deepseek2.attention.key_length key",
            ),
        ] {
            let why = estimate(&model(&copy(skip)), Some(4096), KvType::F16).unwrap_err();
            assert!(
                why.starts_with("no estimate") && why.contains(named),
                "{skip}: {why}"
            );
        }
        // Both MLA lengths missing: an older conversion, no guess.
        let kvs: Vec<(&str, Kv<'_>)> = copy("_mla");
        let why = estimate(&model(&kvs), Some(4096), KvType::F16).unwrap_err();
        assert!(
            why.contains("no deepseek2.attention.key_length_mla key"),
            "{why}"
        );
    }

    #[test]
    fn nextn_layers_have_no_cache() {
        let m = gemma(
            "glm4moe",
            4,
            None,
            &[("glm4moe.nextn_predict_layers", Kv::U32(1))],
        );
        let e = estimate(&m, Some(256), KvType::F16).unwrap();
        assert_eq!(e.kv_per_layer[3], 0);
        assert_eq!(e.kv_bytes, f16(3, 256, 1, 256, 256));
    }

    #[test]
    fn swa_pattern_matches_set_swa_pattern() {
        assert_eq!(swa_pattern(4, 0, false), [true; 4]);
        assert_eq!(swa_pattern(4, 1, false), [false; 4]);
        assert_eq!(swa_pattern(4, 2, true), [false, true, false, true]);
        assert_eq!(
            swa_pattern(7, 6, false),
            [true, true, true, true, true, false, true]
        );
    }
}
