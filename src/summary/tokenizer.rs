//! The tokenizer a GGUF file carries (`tokenizer.ggml.*` keys, as llama.cpp's converters write
//! them): its model and pre-tokenizer, vocabulary size, special tokens with their ids and text,
//! the add-BOS/EOS flags, the merges count, and the chat templates. Token rows are decoded on
//! demand through a [`TokenIndex`] (the offset of every token string, built once), so a
//! 262,144-token vocabulary is never decoded whole.

use std::borrow::Cow;

use serde::Serialize;

use crate::format::{ArrayRef, Model, Value, ValueType};
use crate::text;

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

/// Key suffixes of special token ids, with the role shown (llama.cpp's `LLM_KV_TOKENIZER_*_ID`;
/// note the historical spelling `seperator`).
const SPECIAL: [(&str, &str); 9] = [
    ("bos_token_id", "bos"),
    ("eos_token_id", "eos"),
    ("eot_token_id", "eot"),
    ("eom_token_id", "eom"),
    ("unknown_token_id", "unk"),
    ("padding_token_id", "pad"),
    ("seperator_token_id", "sep"),
    ("cls_token_id", "cls"),
    ("mask_token_id", "mask"),
];

fn tokens(m: &Model) -> Option<&ArrayRef> {
    match m.get("tokenizer.ggml.tokens") {
        Some(Value::Array(a)) if a.elem == ValueType::String => Some(a),
        _ => None,
    }
}

/// Reads the tokenizer keys; `None` when the file has no `tokenizer.ggml.*` key at all.
pub fn tokenizer_info(m: &Model) -> Option<TokenizerInfo> {
    if !m.metadata.iter().any(|e| e.key.starts_with("tokenizer.")) {
        return None;
    }
    let s = |k: &str| m.get(k).and_then(Value::as_str).map(str::to_string);
    let toks = tokens(m);
    let index = toks.and_then(|a| TokenIndex::build(a, &m.bytes));
    let special = SPECIAL
        .iter()
        .filter_map(|(suffix, role)| {
            let id = m.get(&format!("tokenizer.ggml.{suffix}"))?.as_u64()?;
            let text = index.as_ref().and_then(|i| i.text(&m.bytes, id));
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

/// Where every token string starts: built once in one pass (8 bytes per token), then any row
/// is decoded directly.
#[derive(Debug, Clone)]
pub struct TokenIndex {
    /// Absolute offset of each token's length field.
    starts: Vec<u64>,
    layout: crate::format::value::Layout,
}

impl TokenIndex {
    /// Indexes a string array; `None` if its bytes are not all present (never for a parsed
    /// model) or it is not a string array.
    pub fn build(a: &ArrayRef, bytes: &[u8]) -> Option<Self> {
        if a.elem != ValueType::String {
            return None;
        }
        let w = u64::from(a.layout.len_width);
        let mut starts = Vec::with_capacity(usize::try_from(a.len.min(1 << 24)).ok()?);
        let mut pos = a.start;
        for _ in 0..a.len {
            starts.push(pos);
            let len = read_len(bytes, pos, a.layout)?;
            pos = pos.checked_add(w)?.checked_add(len)?;
        }
        (pos == a.end).then_some(TokenIndex {
            starts,
            layout: a.layout,
        })
    }

    /// Number of tokens.
    pub fn len(&self) -> u64 {
        self.starts.len() as u64
    }

    /// True for an empty vocabulary.
    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// The raw text of token `id` (lossy UTF-8, not escaped), borrowed from `bytes` when it is
    /// valid UTF-8: what a scan over every token reads, allocating nothing per token.
    pub fn str_at<'a>(&self, bytes: &'a [u8], id: u64) -> Option<Cow<'a, str>> {
        let start = *self.starts.get(usize::try_from(id).ok()?)?;
        let w = u64::from(self.layout.len_width);
        let len = read_len(bytes, start, self.layout)?;
        Some(String::from_utf8_lossy(get(
            bytes,
            start.checked_add(w)?,
            len,
        )?))
    }

    /// The raw text of token `id` (lossy UTF-8, not escaped).
    pub fn raw(&self, bytes: &[u8], id: u64) -> Option<String> {
        self.str_at(bytes, id).map(Cow::into_owned)
    }

    /// Ids of the tokens whose raw text satisfies `pred`, in id order, at most `limit` of them.
    pub fn find(&self, bytes: &[u8], limit: usize, mut pred: impl FnMut(&str) -> bool) -> Vec<u64> {
        (0..self.len())
            .filter(|&id| self.str_at(bytes, id).is_some_and(|t| pred(&t)))
            .take(limit)
            .collect()
    }

    /// The text of token `id`, control characters escaped for display.
    pub fn text(&self, bytes: &[u8], id: u64) -> Option<String> {
        self.raw(bytes, id).map(|t| text::escape(&t))
    }

    /// Ids of tokens whose text contains `needle` (case-sensitive), at most `limit` of them.
    pub fn search(&self, bytes: &[u8], needle: &str, limit: usize) -> Vec<u64> {
        self.find(bytes, limit, |t| t.contains(needle))
    }
}

fn get(bytes: &[u8], at: u64, len: u64) -> Option<&[u8]> {
    let s = usize::try_from(at).ok()?;
    let e = usize::try_from(at.checked_add(len)?).ok()?;
    bytes.get(s..e)
}

fn read_len(bytes: &[u8], at: u64, layout: crate::format::value::Layout) -> Option<u64> {
    // Big-endian files store lengths big-endian.
    let big = layout.endian == crate::format::Endian::Big;
    if layout.len_width == 4 {
        let b: [u8; 4] = get(bytes, at, 4)?.try_into().ok()?;
        Some(u64::from(if big {
            u32::from_be_bytes(b)
        } else {
            u32::from_le_bytes(b)
        }))
    } else {
        let b: [u8; 8] = get(bytes, at, 8)?.try_into().ok()?;
        Some(if big {
            u64::from_be_bytes(b)
        } else {
            u64::from_le_bytes(b)
        })
    }
}
