//! safetensors models: the weights from the file's real tensor bytes, the KV cache from the
//! model's `config.json`, placed as vLLM places them.
//!
//! KV cache per layer and token (vLLM's `FullAttentionSpec.page_size_bytes`,
//! vllm/v1/kv_cache_interface.py; transformers' `DynamicCache` holds the same K and V
//! tensors): `2 × num_key_value_heads × head_dim × bytes`, with `head_dim` the config's or
//! `hidden_size / num_attention_heads`, `num_key_value_heads` defaulting to
//! `num_attention_heads`, and a multimodal config's `text_config` read instead. The cache type is
//! the model's dtype (bf16/fp16: 2 bytes) or fp8 (1 byte, `--kv-cache-dtype fp8`).
//! - Sliding-window layers (`layer_types` entries `sliding_attention`, or every layer with
//!   `sliding_window` set and no `layer_types`, unless `use_sliding_window` is false) keep
//!   `min(context, sliding_window)` tokens (transformers' `SlidingWindowLayer`; vLLM's
//!   `SlidingWindowSpec` keeps up to one batch more, not counted).
//! - Multi-head latent attention (`kv_lora_rank`): vLLM caches one latent row of
//!   `kv_lora_rank + qk_rope_head_dim` values per token and layer (`MLAAttentionSpec`, no V);
//!   transformers caches the decompressed K and V, which is larger (not this estimate).
//! - Layers without a KV cache: `layer_types` entries other than full or sliding attention
//!   (`linear_attention`, `mamba`, `conv`, …) count 0; their recurrent state is small and not
//!   counted.
//!
//! Placement (vLLM): tensor parallelism over the N GPUs splits every layer evenly, so each GPU
//! holds (weights + KV) / N and the smallest budget decides; what does not fit is offloaded to
//! system memory with `--cpu-offload-gb` (weights only, per GPU). vLLM's own activation memory
//! is profiled at start-up and is left to the margin.

use std::fmt;

use serde_json::Value as Json;

use crate::format::Format;
use crate::open::OpenedModel;
use crate::summary::memory::KvType;

/// Why a safetensors model's `config.json` gives no KV sizing for vLLM.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigError {
    /// No `config.json` was found beside the model.
    NotFound,
    /// The `config.json` could not be read or parsed: the reason as the opening layer worded it
    /// (`Sidecar::config_error`, already a sentence from another layer, so kept as text).
    Unreadable(String),
    /// A required key is missing (`num_hidden_layers`, `num_attention_heads`).
    MissingKey(&'static str),
    /// `num_hidden_layers` is 0 or above 100,000.
    LayerCount(u64),
    /// Neither `head_dim` nor `hidden_size` / `num_attention_heads` gives the head dimension.
    NoHeadDim,
    /// A 4-bit KV cache was asked for; vLLM has none.
    NoFourBitKv,
    /// No context was given and the config has no `max_position_embeddings`.
    NoContext,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::NotFound => f.write_str("no config.json was found beside the model"),
            ConfigError::Unreadable(why) => f.write_str(why),
            ConfigError::MissingKey(key) => write!(f, "config.json has no {key}"),
            ConfigError::LayerCount(n) => write!(f, "config.json's num_hidden_layers is {n}"),
            ConfigError::NoHeadDim => {
                f.write_str("config.json has no head_dim and no hidden_size / num_attention_heads")
            }
            ConfigError::NoFourBitKv => {
                f.write_str("vLLM has no 4-bit KV cache; use f16 (the model's dtype) or q8_0 (fp8)")
            }
            ConfigError::NoContext => {
                f.write_str("it has no max_position_embeddings; give a context")
            }
        }
    }
}

impl std::error::Error for ConfigError {}

/// `model_type`s of encoder-only models, which keep no KV cache.
pub const ENCODERS: [&str; 12] = [
    "bert",
    "roberta",
    "xlm-roberta",
    "distilbert",
    "albert",
    "electra",
    "deberta",
    "deberta-v2",
    "mpnet",
    "camembert",
    "modernbert",
    "nomic_bert",
];

/// Whether the fit planner wants this model's `config.json`: a safetensors model without one.
pub fn wants_config(m: &OpenedModel) -> bool {
    m.format == Format::Safetensors && m.sidecar.config.is_none()
}

/// The KV sizing read from a config.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HfKv {
    /// `num_hidden_layers`.
    pub layers: u64,
    /// Bytes per token of each layer's cache (0 for a layer without one).
    pub per_token: Vec<u64>,
    /// Per layer: the window in tokens of a sliding-window layer.
    pub window: Vec<Option<u64>>,
    /// `max_position_embeddings`.
    pub context: Option<u64>,
    /// How the figures were read, for the notes.
    pub notes: Vec<String>,
}

impl HfKv {
    /// KV bytes of every layer at `ctx` tokens.
    pub fn at(&self, ctx: u64) -> Vec<u64> {
        self.per_token
            .iter()
            .zip(&self.window)
            .map(|(&b, w)| b.saturating_mul(w.map_or(ctx, |w| w.min(ctx))))
            .collect()
    }
}

fn int(c: &Json, k: &str) -> Option<u64> {
    c.get(k).and_then(Json::as_u64)
}

/// Reads the KV sizing from `config` (the `text_config` of a multimodal one) for a cache of
/// `kv`. `Err` says which key is missing.
pub fn kv_from_config(config: &Json, kv: KvType) -> Result<HfKv, ConfigError> {
    let c = config
        .get("text_config")
        .filter(|t| t.is_object())
        .unwrap_or(config);
    let layers = int(c, "num_hidden_layers").ok_or(ConfigError::MissingKey("num_hidden_layers"))?;
    if layers == 0 || layers > 100_000 {
        return Err(ConfigError::LayerCount(layers));
    }
    let heads =
        int(c, "num_attention_heads").ok_or(ConfigError::MissingKey("num_attention_heads"))?;
    let kv_heads = int(c, "num_key_value_heads").unwrap_or(heads);
    let head_dim = match int(c, "head_dim") {
        Some(d) => d,
        None => int(c, "hidden_size")
            .zip(Some(heads).filter(|&h| h > 0))
            .map(|(h, n)| h / n)
            .ok_or(ConfigError::NoHeadDim)?,
    };
    let bytes = match kv {
        KvType::F16 => 2,
        KvType::Q8_0 => 1,
        KvType::Q4_0 => return Err(ConfigError::NoFourBitKv),
    };
    let mut notes = Vec::new();
    let model_type = c.get("model_type").and_then(Json::as_str).unwrap_or("");
    if ENCODERS.contains(&model_type) {
        notes.push(format!(
            "{model_type} is an encoder: it keeps no KV cache (vLLM runs it for embeddings or classification)"
        ));
        return Ok(HfKv {
            layers,
            per_token: vec![0; layers as usize],
            window: vec![None; layers as usize],
            context: int(c, "max_position_embeddings"),
            notes,
        });
    }
    let per_token = if let Some(lora) = int(c, "kv_lora_rank") {
        let rope = int(c, "qk_rope_head_dim").unwrap_or(0);
        notes.push(format!(
            "multi-head latent attention: one latent row of kv_lora_rank {lora} + qk_rope_head_dim {rope} values per token and layer (vLLM's MLA cache)"
        ));
        (lora + rope) * bytes
    } else {
        notes.push(format!(
            "2 × {kv_heads} KV heads × {head_dim} dims × {bytes} B per token and layer"
        ));
        2 * kv_heads * head_dim * bytes
    };
    let window_size = int(c, "sliding_window")
        .filter(|_| c.get("use_sliding_window").and_then(Json::as_bool) != Some(false));
    let types: Option<Vec<String>> = c.get("layer_types").and_then(Json::as_array).map(|a| {
        a.iter()
            .map(|t| t.as_str().unwrap_or("").to_string())
            .collect()
    });
    let mut per = vec![per_token; layers as usize];
    let mut window = vec![None; layers as usize];
    match &types {
        Some(t) if t.len() as u64 == layers => {
            for (i, ty) in t.iter().enumerate() {
                match ty.as_str() {
                    "full_attention" => {}
                    "sliding_attention" | "chunked_attention" => window[i] = window_size,
                    _ => per[i] = 0,
                }
            }
            let none = per.iter().filter(|&&b| b == 0).count();
            if none > 0 {
                notes.push(format!(
                    "{none} of {layers} layers keep no KV cache (layer_types)"
                ));
            }
        }
        Some(t) => notes.push(format!(
            "layer_types has {} entries for {layers} layers and is ignored",
            t.len()
        )),
        None => {
            if let Some(w) = window_size {
                window.iter_mut().for_each(|x| *x = Some(w));
            }
        }
    }
    if let Some(w) = window_size {
        let n = window.iter().filter(|x| x.is_some()).count();
        if n > 0 {
            notes.push(format!(
                "{n} sliding-window layers keep min(context, {w}) tokens"
            ));
        }
    }
    Ok(HfKv {
        layers,
        per_token: per,
        window,
        context: int(c, "max_position_embeddings"),
        notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn configs_size_the_cache_as_vllm_does() {
        let llama = json!({"num_hidden_layers": 32, "num_attention_heads": 32,
            "num_key_value_heads": 8, "hidden_size": 4096, "max_position_embeddings": 8192});
        let k = kv_from_config(&llama, KvType::F16).unwrap();
        assert_eq!(k.per_token, vec![2 * 8 * 128 * 2; 32]);
        assert_eq!(k.at(1000)[0], 1000 * 4096);
        assert_eq!(k.context, Some(8192));
        let gemma = json!({"text_config": {"num_hidden_layers": 3, "num_attention_heads": 4,
            "num_key_value_heads": 1, "head_dim": 256, "sliding_window": 512,
            "layer_types": ["sliding_attention", "sliding_attention", "full_attention"]}});
        let k = kv_from_config(&gemma, KvType::Q8_0).unwrap();
        assert_eq!(k.at(4096), vec![512 * 512, 512 * 512, 4096 * 512]);
        let mla = json!({"num_hidden_layers": 2, "num_attention_heads": 16, "hidden_size": 2048,
            "kv_lora_rank": 512, "qk_rope_head_dim": 64});
        assert_eq!(
            kv_from_config(&mla, KvType::F16).unwrap().per_token,
            vec![576 * 2; 2]
        );
        let hybrid = json!({"num_hidden_layers": 2, "num_attention_heads": 2, "head_dim": 8,
            "layer_types": ["linear_attention", "full_attention"]});
        assert_eq!(
            kv_from_config(&hybrid, KvType::F16).unwrap().per_token,
            vec![0, 64]
        );
        let qwen = json!({"num_hidden_layers": 1, "num_attention_heads": 2, "head_dim": 8,
            "sliding_window": 16, "use_sliding_window": false});
        assert_eq!(
            kv_from_config(&qwen, KvType::F16).unwrap().window,
            vec![None]
        );
        assert_eq!(
            kv_from_config(&json!({}), KvType::F16)
                .unwrap_err()
                .to_string(),
            "config.json has no num_hidden_layers"
        );
        assert!(kv_from_config(&llama, KvType::Q4_0).is_err());
        let bert = json!({"model_type": "bert", "num_hidden_layers": 6, "num_attention_heads": 12,
            "hidden_size": 384});
        assert_eq!(
            kv_from_config(&bert, KvType::F16).unwrap().per_token,
            vec![0; 6]
        );
    }
}
