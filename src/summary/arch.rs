//! The architecture card of a GGUF model, from its `<arch>.*` keys.
//!
//! Keys follow llama.cpp's naming (gguf-py `Keys.LLM` / `Keys.Attention`): `{arch}.block_count`,
//! `{arch}.embedding_length`, `{arch}.attention.head_count`, `{arch}.attention.head_count_kv`,
//! `{arch}.context_length`, `{arch}.feed_forward_length`, `{arch}.vocab_size`. A key may hold a
//! per-layer array where a scalar is usual (e.g. head counts of models with varying layers);
//! such a value is shown as an array, not treated as an error.

use serde::Serialize;

use crate::format::ggml_type::file_type_name;
use crate::format::{Model, Value};
use crate::text;

/// One line of the card.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CardRow {
    /// What it is, in words ("layers").
    pub label: &'static str,
    /// The metadata key it came from.
    pub key: String,
    /// The value as text (an array as `INT32 × 26: 4, 4, …`).
    pub value: String,
    /// The value as a number, when it is a scalar number.
    pub number: Option<f64>,
}

/// The architecture card.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ArchCard {
    /// `general.architecture`.
    pub architecture: String,
    /// `general.name`, if present.
    pub name: Option<String>,
    /// `general.file_type` by its llama.cpp name, e.g. `MOSTLY_Q4_K_M`.
    pub file_type: Option<String>,
    /// The hyper-parameters present, in a fixed order.
    pub rows: Vec<CardRow>,
}

const ROWS: [(&str, &str); 7] = [
    ("layers", "block_count"),
    ("embedding length", "embedding_length"),
    ("attention heads", "attention.head_count"),
    ("KV heads", "attention.head_count_kv"),
    ("context length", "context_length"),
    ("feed-forward length", "feed_forward_length"),
    ("vocabulary size", "vocab_size"),
];

/// Builds the card for a GGUF model with `general.architecture`; `None` otherwise.
pub fn arch_card(m: &Model) -> Option<ArchCard> {
    let arch = m.get("general.architecture")?.as_str()?.to_string();
    let mut rows = Vec::new();
    for (label, suffix) in ROWS {
        let key = format!("{arch}.{suffix}");
        if let Some(v) = m.get(&key) {
            rows.push(row(label, key, v, &m.bytes));
        } else if suffix == "vocab_size" {
            if let Some(Value::Array(a)) = m.get("tokenizer.ggml.tokens") {
                rows.push(CardRow {
                    label,
                    key: "tokenizer.ggml.tokens (length)".into(),
                    value: text::thousands(a.len),
                    number: Some(a.len as f64),
                });
            }
        }
    }
    let file_type =
        m.get("general.file_type")
            .and_then(Value::as_u64)
            .map(|id| match file_type_name(id) {
                Some(n) => format!("{n} ({id})"),
                None => format!("{id} (unknown)"),
            });
    Some(ArchCard {
        architecture: arch,
        name: m
            .get("general.name")
            .and_then(Value::as_str)
            .map(str::to_string),
        file_type,
        rows,
    })
}

fn row(label: &'static str, key: String, v: &Value, bytes: &[u8]) -> CardRow {
    match v {
        Value::Array(_) => CardRow {
            label,
            key,
            value: format!("per layer: {}", text::value(v, bytes, 8, 80)),
            number: None,
        },
        other => CardRow {
            label,
            key,
            value: match other.as_u64() {
                Some(n) => text::thousands(n),
                None => text::scalar(other),
            },
            number: other.as_f64(),
        },
    }
}
