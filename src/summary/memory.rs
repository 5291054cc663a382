//! Memory to run a GGUF decoder model: its weights plus the KV cache for a context length.
//!
//! Formula (llama.cpp's KV cache, `llama_kv_cache` in src/llama-kv-cache.cpp: one K and one V
//! tensor per layer, `n_embd_k_gqa = n_head_kv × n_embd_head_k` values per token for K and
//! `n_head_kv × n_embd_head_v` for V, stored in the cache type):
//!
//! ```text
//! KV bytes = Σ over layers ( n_ctx × n_head_kv[l] × (head_dim_k + head_dim_v) ) × bytes per value
//! head_dim_k = {arch}.attention.key_length   (default: embedding_length / head_count)
//! head_dim_v = {arch}.attention.value_length (default: embedding_length / head_count)
//! bytes per value: f16 2, q8_0 34/32, q4_0 18/32 (ggml block sizes)
//! ```
//!
//! Per-layer head counts given as arrays are used per layer (a layer with 0 KV heads has no
//! cache). A sliding window (`{arch}.attention.sliding_window`) bounds the cache of the layers
//! that use it, but which layers do is not stated by the keys for most architectures (llama.cpp
//! decides it per architecture), so the estimate is for full attention on every layer and says
//! so. Compute buffers and the runtime's own overhead are not included. Recurrent and MLA models
//! (keys missing or different) get "no estimate" with the reason, never a guess.

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

/// The estimate and its parts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MemoryEstimate {
    /// Architecture (`general.architecture`).
    pub architecture: String,
    /// Bytes of all tensors (the weights as stored).
    pub weights_bytes: u64,
    /// Context length used (tokens).
    pub context: u64,
    /// Cache type.
    pub kv_type: KvType,
    /// Bytes of the K and V caches over all layers.
    pub kv_bytes: u64,
    /// weights + KV.
    pub total_bytes: u64,
    /// K+V bytes per layer, layer 0 first.
    pub kv_per_layer: Vec<u64>,
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
    let arch = m
        .get("general.architecture")
        .and_then(Value::as_str)
        .ok_or("no general.architecture key")?
        .to_string();
    let need = |k: &str| {
        key(m, &arch, k).ok_or_else(|| format!("no estimate: the file has no {arch}.{k} key"))
    };
    if key(m, &arch, "ssm.state_size").is_some() || key(m, &arch, "wkv.head_size").is_some() {
        return Err(format!(
            "no estimate: {arch} is a recurrent (state-space/RWKV) model; its state is not a KV cache"
        ));
    }
    if key(m, &arch, "attention.causal") == Some(&Value::Bool(false)) {
        return Err(format!(
            "no KV estimate: {arch} is an encoder ({arch}.attention.causal = false), which keeps no KV cache; it needs about its weights"
        ));
    }
    if key(m, &arch, "attention.kv_lora_rank").is_some() {
        return Err(format!(
            "no estimate: {arch} uses multi-head latent attention (kv_lora_rank); its cache layout differs from the K/V formula used here"
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
    let embd = key(m, &arch, "embedding_length").and_then(Value::as_u64);
    let max_heads = heads.iter().copied().max().unwrap_or(0);
    let default_dim = embd
        .zip((max_heads > 0).then_some(max_heads))
        .map(|(e, h)| e / h);
    let dim = |k: &str| -> Result<u64, String> {
        match key(m, &arch, k) {
            Some(v) => v
                .as_u64()
                .ok_or_else(|| format!("no estimate: {arch}.{k} is not an integer")),
            None => default_dim.ok_or_else(|| {
                format!(
                    "no estimate: no {arch}.{k} and no embedding_length / head_count to derive it"
                )
            }),
        }
    };
    let (dk, dv) = (dim("attention.key_length")?, dim("attention.value_length")?);
    let ctx = match context {
        Some(c) => c,
        None => need("context_length")?
            .as_u64()
            .ok_or("no estimate: context_length is not an integer")?,
    };
    let (bb, bv) = kv.block();
    let overflow = || "no estimate: the KV cache size overflows 64 bits".to_string();
    let mut kv_per_layer = Vec::with_capacity(layers as usize);
    for &h in &kv_heads {
        let values = ctx
            .checked_mul(h)
            .and_then(|x| x.checked_mul(dk.checked_add(dv)?))
            .ok_or_else(overflow)?;
        kv_per_layer.push(values.div_ceil(bv).checked_mul(bb).ok_or_else(overflow)?);
    }
    let kv_bytes = kv_per_layer
        .iter()
        .try_fold(0u64, |a, &b| a.checked_add(b))
        .ok_or_else(overflow)?;
    let weights_bytes = m
        .tensors
        .iter()
        .filter_map(|t| t.bytes)
        .fold(0u64, u64::saturating_add);
    let mut notes = vec![
        "weights as stored in the file; compute buffers and runtime overhead are not included"
            .to_string(),
    ];
    if let Some(w) = key(m, &arch, "attention.sliding_window").and_then(Value::as_u64) {
        notes.push(format!(
            "the model has a sliding window of {w} tokens; layers that use it need only that much cache, but the keys do not say which layers do, so every layer is counted at the full context (an upper bound)"
        ));
    }
    let uniform = kv_heads.windows(2).all(|w| w[0] == w[1]);
    let heads_text = if uniform {
        kv_heads.first().copied().unwrap_or(0).to_string()
    } else {
        "n_head_kv[l]".to_string()
    };
    let per_value = match kv {
        KvType::F16 => "2 B".to_string(),
        _ => format!("{bb}/{bv} B"),
    };
    let formula = format!(
        "KV = {layers} layers × {ctx} tokens × {heads_text} KV heads × ({dk} + {dv}) dims × {per_value} = {kv_bytes} bytes"
    );
    Ok(MemoryEstimate {
        architecture: arch,
        weights_bytes,
        context: ctx,
        kv_type: kv,
        kv_bytes,
        total_bytes: weights_bytes.saturating_add(kv_bytes),
        kv_per_layer,
        formula,
        notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::parse_bytes;
    use crate::view::testutil::{gguf, Kv};

    #[test]
    fn llama_style_keys_give_the_formula() {
        let b = gguf(
            &[
                ("general.architecture", Kv::Str("llama")),
                ("llama.block_count", Kv::U32(2)),
                ("llama.embedding_length", Kv::U32(64)),
                ("llama.attention.head_count", Kv::U32(4)),
                ("llama.attention.head_count_kv", Kv::I32Array(vec![2, 0])),
                ("llama.context_length", Kv::U32(100)),
            ],
            &[("t", 0, vec![8], 0)],
        );
        let m = parse_bytes(&b).unwrap();
        let e = estimate(&m, None, KvType::F16).unwrap();
        // head dim 64 / 4 = 16; layer 0: 100 × 2 × (16 + 16) × 2 B; layer 1 has no KV heads.
        assert_eq!(e.kv_per_layer, [100 * 2 * 32 * 2, 0]);
        assert_eq!(e.weights_bytes, 32);
        assert_eq!(e.total_bytes, 32 + 12_800);
        let q8 = estimate(&m, Some(64), KvType::Q8_0).unwrap();
        assert_eq!(q8.kv_bytes, (64 * 2 * 32) / 32 * 34);
        assert!(
            e.formula
                .starts_with("KV = 2 layers × 100 tokens × n_head_kv[l] KV heads"),
            "{}",
            e.formula
        );
    }

    #[test]
    fn missing_keys_say_no_estimate() {
        let b = gguf(
            &[
                ("general.architecture", Kv::Str("mamba")),
                ("mamba.ssm.state_size", Kv::U32(16)),
            ],
            &[],
        );
        let m = parse_bytes(&b).unwrap();
        assert!(estimate(&m, None, KvType::F16)
            .unwrap_err()
            .contains("recurrent"));
        let b = gguf(&[("general.architecture", Kv::Str("llama"))], &[]);
        let m = parse_bytes(&b).unwrap();
        assert_eq!(
            estimate(&m, None, KvType::F16).unwrap_err(),
            "no estimate: the file has no llama.block_count key"
        );
    }
}
