//! [`EstimateError`]: why [`estimate`](super::estimate) gives no estimate, one variant per
//! reason; its `Display` is the sentence shown to the person.

use std::fmt;

/// Why there is no memory estimate for a model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EstimateError {
    /// Not a GGUF file: the hyper-parameters of other formats live in a `config.json`.
    NotGguf {
        /// The file's format (`Format::name`).
        format: &'static str,
    },
    /// The file has no `general.architecture` string.
    NoArchitecture,
    /// A recurrent (state-space, RWKV) or hybrid model: its state is not a KV cache.
    Recurrent {
        /// `general.architecture`.
        arch: String,
    },
    /// An encoder or non-causal model, for which llama.cpp keeps no KV cache.
    NoCache {
        /// `general.architecture`.
        arch: String,
        /// Bytes of its tensors as stored (what it needs, about), when the header was read to
        /// the end of its tensor list; `None` when parsing stopped before.
        weights: Option<u64>,
    },
    /// llama.cpp gives the architecture a dedicated cache this estimate does not model.
    DedicatedCache {
        /// `general.architecture`.
        arch: String,
    },
    /// A required key `{arch}.{key}` is missing.
    MissingKey {
        /// `general.architecture`.
        arch: String,
        /// The key after the architecture's prefix (`block_count`, …).
        key: &'static str,
    },
    /// A key that must hold an integer holds something else.
    NotInteger {
        /// The key as the message names it (`block_count`, `{arch}.attention.key_length`).
        key: String,
    },
    /// A context of 0 tokens was asked for.
    ZeroContext,
    /// `block_count` is 0 or above 100,000.
    BlockCount(u64),
    /// A head dimension `{arch}.{key}` is absent and cannot be derived.
    NoHeadDim {
        /// `general.architecture`.
        arch: String,
        /// The head-dimension key (`attention.key_length`, …).
        key: &'static str,
    },
    /// Multi-head latent attention (`kv_lora_rank`) without `attention.key_length_mla`.
    MlaUnmarked {
        /// `general.architecture`.
        arch: String,
    },
    /// Only one of `key_length_mla` and `value_length_mla` is present.
    MlaKeyMissing {
        /// `general.architecture`.
        arch: String,
        /// The missing one: `key_length_mla` or `value_length_mla`.
        key: &'static str,
    },
    /// The KV cache size overflows 64 bits.
    Overflow,
    /// A per-layer array whose length is not the layer count.
    LayerEntries {
        /// The key (`head_count`, `head_count_kv`).
        what: &'static str,
        /// Entries in the array.
        len: u64,
        /// `block_count`.
        layers: u64,
    },
    /// A per-layer array whose elements could not be read.
    Array(crate::format::Error),
    /// A per-layer array with an entry that is not an integer.
    NonIntegerEntry {
        /// The key (`head_count`, `head_count_kv`).
        what: &'static str,
    },
    /// A per-layer value that is neither an array nor an integer.
    NotPerLayer {
        /// The key (`head_count`, `head_count_kv`).
        what: &'static str,
    },
}

impl fmt::Display for EstimateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EstimateError::NotGguf { format } => write!(
                f,
                "no estimate: the memory estimate reads a GGUF file's hyper-parameters; a {format} file's live in its config.json"
            ),
            EstimateError::NoArchitecture => f.write_str("no general.architecture key"),
            EstimateError::Recurrent { arch } => write!(
                f,
                "no estimate: {arch} is a recurrent (state-space/RWKV) or hybrid model; its state is not a KV cache"
            ),
            EstimateError::NoCache { arch, weights } => write!(
                f,
                "no KV estimate: {arch} is an encoder or non-causal model, for which llama.cpp keeps no KV cache (llama_model::create_memory); {}",
                match weights {
                    Some(0) => "it needs about as much memory as its weights, and this file holds no tensors".to_string(),
                    Some(w) => format!("it needs about as much memory as its weights, {}", crate::text::bytes(*w)),
                    None => "it needs about as much memory as its weights, which are not known: the header was not read to the end of its tensor list".to_string(),
                }
            ),
            EstimateError::DedicatedCache { arch } => write!(
                f,
                "no estimate: llama.cpp gives {arch} a dedicated cache (llama_model::create_memory: sparse-attention indexer or a cache shared with another context) that this estimate does not model"
            ),
            EstimateError::MissingKey { arch, key } => {
                write!(f, "no estimate: the file has no {arch}.{key} key")
            }
            EstimateError::NotInteger { key } => write!(f, "no estimate: {key} is not an integer"),
            EstimateError::ZeroContext => {
                f.write_str("no estimate: a context of 0 tokens (llama.cpp needs at least 1)")
            }
            EstimateError::BlockCount(n) => write!(f, "no estimate: block_count is {n}"),
            EstimateError::NoHeadDim { arch, key } => write!(
                f,
                "no estimate: no {arch}.{key} and no embedding_length / head_count to derive it"
            ),
            EstimateError::MlaUnmarked { arch } => write!(
                f,
                "no estimate: {arch} uses multi-head latent attention (kv_lora_rank) but the file has no {arch}.attention.key_length_mla key; llama.cpp then runs it without MLA, caching K and V per head, which this estimate does not guess"
            ),
            EstimateError::MlaKeyMissing { arch, key } => write!(
                f,
                "no estimate: the file has no {arch}.attention.{key} key (llama.cpp needs both key_length_mla and value_length_mla for MLA)"
            ),
            EstimateError::Overflow => {
                f.write_str("no estimate: the KV cache size overflows 64 bits")
            }
            EstimateError::LayerEntries { what, len, layers } => {
                write!(f, "{what} has {len} entries for {layers} layers")
            }
            EstimateError::Array(e) => write!(f, "{e}"),
            EstimateError::NonIntegerEntry { what } => write!(f, "{what} holds a non-integer"),
            EstimateError::NotPerLayer { what } => write!(f, "{what} is not an integer"),
        }
    }
}

impl std::error::Error for EstimateError {}
