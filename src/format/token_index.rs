//! An index over a GGUF string array (a vocabulary's `tokenizer.ggml.tokens`): the offset of
//! every string, built once in one pass, so any token is decoded on demand and a 262,144-token
//! vocabulary is never decoded whole. Sits low so both the checks and the summaries use it.

use std::borrow::Cow;

use crate::format::{ArrayRef, ValueType};

/// Key suffixes of special token ids, with the role shown (llama.cpp's `LLM_KV_TOKENIZER_*_ID`;
/// note the historical spelling `seperator`).
pub const SPECIAL_TOKEN_KEYS: [(&str, &str); 9] = [
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

    /// The bytes of token `id` as stored (no decoding): what llama.cpp compares when it looks
    /// for duplicate tokens.
    pub fn bytes_at<'a>(&self, bytes: &'a [u8], id: u64) -> Option<&'a [u8]> {
        let start = *self.starts.get(usize::try_from(id).ok()?)?;
        let w = u64::from(self.layout.len_width);
        let len = read_len(bytes, start, self.layout)?;
        get(bytes, start.checked_add(w)?, len)
    }

    /// The raw text of token `id` (lossy UTF-8, not escaped), borrowed from `bytes` when it is
    /// valid UTF-8: what a scan over every token reads, allocating nothing per token.
    pub fn str_at<'a>(&self, bytes: &'a [u8], id: u64) -> Option<Cow<'a, str>> {
        self.bytes_at(bytes, id).map(String::from_utf8_lossy)
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

/// Element `i` of an INT32 array (`tokenizer.ggml.token_type`), read straight from the header
/// bytes in the file's byte order; `None` past the array or for another element type.
pub fn i32_at(a: &ArrayRef, bytes: &[u8], i: u64) -> Option<i32> {
    if a.elem != ValueType::I32 || i >= a.len {
        return None;
    }
    let b: [u8; 4] = get(bytes, a.start.checked_add(i.checked_mul(4)?)?, 4)?
        .try_into()
        .ok()?;
    Some(if a.layout.endian == crate::format::Endian::Big {
        i32::from_be_bytes(b)
    } else {
        i32::from_le_bytes(b)
    })
}
