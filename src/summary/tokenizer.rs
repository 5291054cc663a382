//! The tokenizer a GGUF file carries (`tokenizer.ggml.*` keys, as llama.cpp's converters write
//! them): its model and pre-tokenizer, vocabulary size, special tokens with their ids and text,
//! the add-BOS/EOS flags, the merges count, and the chat templates. Token rows are decoded on
//! demand through a [`TokenIndex`] (the offset of every token string, built once), so a
//! 262,144-token vocabulary is never decoded whole.

use serde::Serialize;

pub use crate::format::token_index::{TokenIndex, SPECIAL_TOKEN_KEYS};
use crate::format::{ArrayRef, Model, Value, ValueType};

/// A special token: its role, id and text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SpecialToken {
    /// `bos`, `eos`, `eot`, `eom`, `unk`, `pad`, `sep`, `cls`, `mask`.
    pub role: &'static str,
    /// The token id from `tokenizer.ggml.<role>_token_id`.
    pub id: u64,
    /// The token's text (escaped), or `None` when the id is past the vocabulary.
    pub text: Option<String>,
}

/// What the card shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TokenizerInfo {
    /// `tokenizer.ggml.model` (`llama`, `gpt2`, `bert`, ...).
    pub model: Option<String>,
    /// `tokenizer.ggml.pre`.
    pub pre: Option<String>,
    /// Length of `tokenizer.ggml.tokens`.
    pub vocab_size: u64,
    /// Special tokens present.
    pub special: Vec<SpecialToken>,
    /// `tokenizer.ggml.add_*` flags present, as (flag, value).
    pub flags: Vec<(String, bool)>,
    /// Length of `tokenizer.ggml.merges`.
    pub merges: Option<u64>,
    /// Chat templates: (`default` or the variant name, the template text).
    pub chat_templates: Vec<(String, String)>,
}

fn tokens(m: &Model) -> Option<&ArrayRef> {
    match m.get("tokenizer.ggml.tokens") {
        Some(Value::Array(a)) if a.elem == ValueType::String => Some(a),
        _ => None,
    }
}

/// Whether `m` has a tokenizer to show (any `tokenizer.` metadata key): exactly when
/// [`tokenizer_info`] is `Some`, without building it (the lean web module's tab list).
pub fn has_tokenizer(m: &Model) -> bool {
    m.metadata.iter().any(|e| e.key.starts_with("tokenizer."))
}

/// Reads the tokenizer keys; `None` when the file has no `tokenizer.ggml.*` key at all.
pub fn tokenizer_info(m: &Model) -> Option<TokenizerInfo> {
    if !has_tokenizer(m) {
        return None;
    }
    let s = |k: &str| m.get(k).and_then(Value::as_str).map(str::to_string);
    let toks = tokens(m);
    let index = toks.and_then(|a| TokenIndex::build(a, &m.bytes));
    let special = SPECIAL_TOKEN_KEYS
        .iter()
        .filter_map(|(suffix, role)| {
            let id = m.get(&format!("tokenizer.ggml.{suffix}"))?.as_u64()?;
            let text = index
                .as_ref()
                .and_then(|i| i.raw(&m.bytes, id))
                .map(|t| crate::text::escape(&t));
            Some(SpecialToken { role, id, text })
        })
        .collect();
    let flags = m
        .metadata
        .iter()
        .filter_map(|e| {
            let flag = e.key.strip_prefix("tokenizer.ggml.add_")?;
            match e.value {
                Value::Bool(b) => Some((format!("add_{flag}"), b)),
                _ => None,
            }
        })
        .collect();
    let merges = match m.get("tokenizer.ggml.merges") {
        Some(Value::Array(a)) => Some(a.len),
        _ => None,
    };
    let chat_templates = m
        .metadata
        .iter()
        .filter_map(|e| {
            let name = if e.key == "tokenizer.chat_template" {
                "default".to_string()
            } else {
                e.key.strip_prefix("tokenizer.chat_template.")?.to_string()
            };
            Some((name, e.value.as_str()?.to_string()))
        })
        .collect();
    Some(TokenizerInfo {
        model: s("tokenizer.ggml.model"),
        pre: s("tokenizer.ggml.pre"),
        vocab_size: toks.map_or(0, |a| a.len),
        special,
        flags,
        merges,
        chat_templates,
    })
}
