//! Tokenizer findings, by llama.cpp's vocabulary loader (`llama_vocab::impl::load`):
//!
//! - `token-array-length` / `token-array-type`: `tokenizer.ggml.scores` or `.token_type`
//!   shorter than the vocabulary or of another element type (llama.cpp refuses the file: "Index
//!   out of array bounds", "invalid gguf type"); longer is a warning.
//! - `special-id-out-of-vocab`: a `tokenizer.ggml.*_token_id` past the vocabulary (llama.cpp
//!   ignores it: "bad special token", and keeps its default id).
//! - `pre-tokenizer-missing` / `pre-tokenizer-unknown`: a BPE vocabulary without
//!   `tokenizer.ggml.pre` ("GENERATION QUALITY WILL BE DEGRADED") or with a name llama.cpp does
//!   not know (it refuses the file).
//! - `duplicate-token`: two ids with the same bytes (llama.cpp refuses: "duplicate token in
//!   vocabulary"); empty tokens are exempt, llama.cpp renames them `[EMPTY_<id>]`.
//! - `special-token-type`: a token llama.cpp ends generation at or detects by text (`<|im_end|>`,
//!   `<end_of_turn>`, FIM markers, ...) not typed CONTROL (llama.cpp overrides it, warning "this
//!   is probably a bug in the model"), or another special-looking token (`<|…|>`, `<｜…｜>`,
//!   `<start_of_…>`, `<end_of_…>`, `[INST]`) typed NORMAL: it is split into text pieces when a
//!   template emits it.
//! - `template-end-not-eog`, `template-token-missing`, `eot-not-in-template`: the end-of-turn
//!   markers the chat template emits against the EOS/EOT/EOM ids and the tokens llama.cpp stops
//!   at; markers the template emits that are not tokens at all.

use super::special::{expected_control, looks_special, EOG_TEXTS, FORCED_USER_DEFINED};
use std::collections::{HashMap, HashSet};

use super::{about_key, examples, Finding, Severity};
use crate::format::token_index::{i32_at, TokenIndex, SPECIAL_TOKEN_KEYS};
use crate::format::{ArrayRef, Model, Value, ValueType};
use crate::text::escape;

const TOKENS: &str = "tokenizer.ggml.tokens";
const TYPES: &str = "tokenizer.ggml.token_type";
const SCORES: &str = "tokenizer.ggml.scores";
const PRE: &str = "tokenizer.ggml.pre";

/// llama.cpp's token types (`llama_token_type`).
const NORMAL: i32 = 1;
const UNDEFINED: i32 = 0;
const CONTROL: i32 = 3;

/// Tokenizer models llama.cpp reads as BPE and takes a pre-tokenizer for (`gemma4` sets its own).
const BPE_MODELS: [&str; 3] = ["gpt2", "hybriddna", "whitespace"];

/// Every `tokenizer.ggml.pre` value llama.cpp's loader accepts for a BPE vocabulary.
pub const KNOWN_PRE: &[&str] = &[
    "default",
    "minicpm5",
    "llama3",
    "llama-v3",
    "llama-bpe",
    "falcon3",
    "falcon-h1",
    "pixtral",
    "midm-2.0",
    "lfm2",
    "jina-v5-nano",
    "deepseek-llm",
    "deepseek-coder",
    "deepseek-v3",
    "spark2_5",
    "youtu",
    "falcon",
    "mpt",
    "starcoder",
    "gpt-2",
    "phi-2",
    "jina-es",
    "jina-de",
    "gigachat",
    "jina-v2-es",
    "jina-v2-de",
    "a.x-4.0",
    "mellum",
    "modern-bert",
    "jais-2",
    "gemma4",
    "granite-embed-multi-311m",
    "sarvam-moe",
    "jina-v1-en",
    "jina-v2-code",
    "roberta-bpe",
    "whitespace",
    "refact",
    "command-r",
    "qwen2",
    "deepseek-r1-qwen",
    "kormo",
    "f2llmv2",
    "qwen35",
    "stablelm2",
    "olmo",
    "dbrx",
    "smaug-bpe",
    "poro-chat",
    "glm4",
    "chatglm-bpe",
    "viking",
    "jais",
    "tekken",
    "smollm",
    "codeshell",
    "bloom",
    "gpt3-finnish",
    "exaone",
    "exaone4",
    "exaone-moe",
    "chameleon",
    "minerva-7b",
    "megrez",
    "gpt-4o",
    "llama4",
    "kanana2",
    "talkie",
    "granite-embed-multi-97m",
    "tiny_aya",
    "cohere2moe",
    "superbpe",
    "trillion",
    "granite-docling",
    "bailingmoe",
    "bailingmoe2",
    "llada-moe",
    "seed-coder",
    "hunyuan",
    "hunyuan-dense",
    "hy_v4",
    "joyai-llm",
    "kimi-k2",
    "ufakzeka",
    "grok-2",
    "afmoe",
    "laguna",
    "minimax-m2",
    "solar-open",
    "mellum2",
];

/// The vocabulary and what is read once for all tokenizer findings.
struct Vocab<'a> {
    m: &'a Model,
    index: TokenIndex,
    types: Option<&'a ArrayRef>,
}

impl Vocab<'_> {
    fn len(&self) -> u64 {
        self.index.len()
    }

    fn text(&self, id: u64) -> Option<std::borrow::Cow<'_, str>> {
        self.index.str_at(&self.m.bytes, id)
    }

    fn token_type(&self, id: u64) -> Option<i32> {
        self.types.and_then(|a| i32_at(a, &self.m.bytes, id))
    }

    /// `"text" (id N)`, escaped.
    fn named(&self, id: u64) -> String {
        format!(
            "\"{}\" (id {id})",
            escape(&self.text(id).unwrap_or_default())
        )
    }
}

fn array<'a>(m: &'a Model, key: &str) -> Option<&'a ArrayRef> {
    match m.get(key) {
        Some(Value::Array(a)) => Some(a),
        _ => None,
    }
}

/// The tokenizer findings of `m` (nothing without a `tokenizer.ggml.tokens` string array).
pub fn findings(m: &Model, out: &mut Vec<Finding>) {
    let Some(toks) = array(m, TOKENS).filter(|a| a.elem == ValueType::String) else {
        return;
    };
    let Some(index) = TokenIndex::build(toks, &m.bytes) else {
        return;
    };
    let types = array_lengths(m, index.len(), out);
    let v = Vocab { m, index, types };
    special_ids(&v, out);
    pre_tokenizer(m, out);
    duplicates(&v, out);
    special_types(&v, out);
    template_markers(&v, out);
}

/// `scores` and `token_type` against the vocabulary's length and element types; the token
/// types when they can be read per token.
fn array_lengths<'a>(m: &'a Model, n: u64, out: &mut Vec<Finding>) -> Option<&'a ArrayRef> {
    let mut types = None;
    for (key, allowed) in [
        (SCORES, &[ValueType::F32, ValueType::I32][..]),
        (TYPES, &[ValueType::I32][..]),
    ] {
        let Some(v) = m.get(key) else { continue };
        let a = match v {
            Value::Array(a) if allowed.contains(&a.elem) => a,
            other => {
                let got = match other {
                    Value::Array(a) => format!("an array of {}", a.elem.name()),
                    v => v.value_type().name().to_string(),
                };
                let want = allowed
                    .iter()
                    .map(|t| t.name())
                    .collect::<Vec<_>>()
                    .join(" or ");
                out.push(about_key(
                    m,
                    Severity::Error,
                    "token-array-type",
                    key,
                    format!("\"{key}\" is {got}; llama.cpp expects an array of {want} and refuses the file"),
                ));
                continue;
            }
        };
        if a.len < n {
            out.push(about_key(
                m,
                Severity::Error,
                "token-array-length",
                key,
                format!(
                    "\"{key}\" has {} entries for {n} tokens; llama.cpp refuses the file (index out of array bounds)",
                    a.len
                ),
            ));
        } else {
            if a.len > n {
                out.push(about_key(
                    m,
                    Severity::Warning,
                    "token-array-length",
                    key,
                    format!(
                        "\"{key}\" has {} entries for {n} tokens; the last {} belong to no token",
                        a.len,
                        a.len - n
                    ),
                ));
            }
            if key == TYPES {
                types = Some(a);
            }
        }
    }
    types
}

fn special_ids(v: &Vocab<'_>, out: &mut Vec<Finding>) {
    for (suffix, role) in SPECIAL_TOKEN_KEYS {
        let key = format!("tokenizer.ggml.{suffix}");
        let Some(val) = v.m.get(&key) else { continue };
        let Some(id) = val.as_u64() else { continue };
        if id >= v.len() {
            out.push(about_key(
                v.m,
                Severity::Warning,
                "special-id-out-of-vocab",
                &key,
                format!(
                    "the {} token id {id} (\"{key}\") is outside the vocabulary of {} tokens; llama.cpp ignores it (\"bad special token\") and keeps its default",
                    role.to_uppercase(),
                    v.len()
                ),
            ));
        }
    }
}

fn pre_tokenizer(m: &Model, out: &mut Vec<Finding>) {
    let model = m.get("tokenizer.ggml.model").and_then(Value::as_str);
    if !model.is_some_and(|t| BPE_MODELS.contains(&t)) {
        return;
    }
    match m.get(PRE).and_then(Value::as_str) {
        None | Some("") => out.push(about_key(
            m,
            Severity::Warning,
            "pre-tokenizer-missing",
            "tokenizer.ggml.model",
            format!(
                "a BPE vocabulary (tokenizer.ggml.model \"{}\") without \"{PRE}\": llama.cpp falls back to its default pre-tokenizer and warns that generation quality will be degraded",
                model.unwrap_or_default()
            ),
        )),
        Some(p) if !KNOWN_PRE.contains(&p) => out.push(about_key(
            m,
            Severity::Error,
            "pre-tokenizer-unknown",
            PRE,
            format!("\"{PRE}\" is \"{}\", a pre-tokenizer llama.cpp does not know; it refuses the file", escape(p)),
        )),
        _ => {}
    }
}

fn duplicates(v: &Vocab<'_>, out: &mut Vec<Finding>) {
    let repeats = super::repeats::hashed(&v.index, &v.m.bytes)
        .unwrap_or_else(|| super::repeats::sorted(&v.index, &v.m.bytes));
    let count = repeats.len() as u64;
    // The examples are the repeats of the smallest texts (by bytes, then id), as a sort of the
    // whole vocabulary lists them; only the repeats are sorted, and they are few.
    let mut keyed: Vec<(&[u8], u64, u64)> = repeats
        .iter()
        .filter_map(|&(first, id)| Some((v.index.bytes_at(&v.m.bytes, id)?, id, first)))
        .collect();
    if keyed.len() > super::EXAMPLES {
        keyed.select_nth_unstable_by(super::EXAMPLES - 1, |a, b| (a.0, a.1).cmp(&(b.0, b.1)));
        keyed.truncate(super::EXAMPLES);
    }
    let mut pairs: Vec<(u64, u64)> = keyed.iter().map(|&(_, id, first)| (first, id)).collect();
    pairs.sort_unstable_by_key(|&(_, id)| id);
    let dups: Vec<String> = pairs
        .iter()
        .map(|&(first, id)| format!("{} and {id}", v.named(first)))
        .collect();
    if count > 0 {
        let more = count.saturating_sub(dups.len() as u64);
        let tail = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        out.push(about_key(
            v.m,
            Severity::Error,
            "duplicate-token",
            TOKENS,
            format!(
                "{count} token(s) repeat an earlier token's text: {}{tail}; llama.cpp refuses the vocabulary (\"duplicate token in vocabulary\")",
                dups.join(", ")
            ),
        ));
    }
}

fn special_types(v: &Vocab<'_>, out: &mut Vec<Finding>) {
    if v.types.is_none() {
        return;
    }
    let mut not_control = Vec::new();
    let mut normal = Vec::new();
    // Texts such as `</s>` or `<PRE>` are also ordinary HTML or prose tokens in large
    // vocabularies (Gemma's `</s>` is a strikethrough tag): llama.cpp's list is judged for them
    // only when the file names them a special token.
    let declared: Vec<u64> = SPECIAL_TOKEN_KEYS
        .iter()
        .filter_map(|(suffix, _)| v.m.get(&format!("tokenizer.ggml.{suffix}"))?.as_u64())
        .collect();
    let (mut n_not_control, mut n_normal) = (0usize, 0usize);
    let keep = |list: &mut Vec<String>, n: &mut usize, id: u64| {
        *n += 1;
        if list.len() < super::EXAMPLES {
            list.push(v.named(id));
        }
    };
    for id in 0..v.len() {
        // Every text judged here starts with `<`, `[`, `_<` or `▁<` (E2 96 81 3C): a look at
        // its first bytes skips the rest of a 262,144-token vocabulary without decoding it.
        let Some(b) = v.index.bytes_at(&v.m.bytes, id) else {
            continue;
        };
        if !super::special::may_be_special(b) {
            continue;
        }
        let Some(t) = v.text(id) else { continue };
        let Some(ty) = v.token_type(id) else { continue };
        if FORCED_USER_DEFINED.contains(&t.as_ref()) {
            continue;
        }
        if expected_control(&t) && (looks_special(&t) || declared.contains(&id)) {
            if ty != CONTROL {
                keep(&mut not_control, &mut n_not_control, id);
            }
        } else if looks_special(&t) && (ty == NORMAL || ty == UNDEFINED) {
            keep(&mut normal, &mut n_normal, id);
        }
    }
    let more = |shown: &[String], n: usize| {
        let mut s = shown.join(", ");
        if n > shown.len() {
            s.push_str(&format!(" and {} more", n - shown.len()));
        }
        s
    };
    if !not_control.is_empty() {
        out.push(about_key(
            v.m,
            Severity::Warning,
            "special-token-type",
            TYPES,
            format!(
                "{} token(s) llama.cpp ends generation at or detects by their text are not typed CONTROL: {}; llama.cpp overrides the type (\"this is probably a bug in the model\"), other runtimes may print them as text",
                n_not_control,
                more(&not_control, n_not_control)
            ),
        ));
    }
    if !normal.is_empty() {
        out.push(about_key(
            v.m,
            Severity::Warning,
            "special-token-type",
            TYPES,
            format!(
                "{} special-looking token(s) are typed NORMAL, not CONTROL or USER_DEFINED: {}; llama.cpp does not match them in text, so a template's marker becomes several ordinary tokens",
                n_normal,
                more(&normal, n_normal)
            ),
        ));
    }
}

/// Words that say a marker ends a turn, a message or the text (lower-cased): `<|im_end|>`,
/// `<end_of_turn>`, `<|END_OF_TURN_TOKEN|>`, `<|eot_id|>`, `<|endoftext|>`. Markers that end a
/// part of a turn (`<|END_THINKING|>`, `<|END_RESPONSE|>`, `[/INST]`) do not.
const TURN_END_WORDS: &[&str] = &[
    "end_of_turn",
    "end_turn",
    "turn_end",
    "endofturn",
    "end_of_text",
    "endoftext",
    "end_of_sentence",
    "end\u{2581}of\u{2581}sentence",
    "im_end",
    "eot",
    "eos",
    "end_of_message",
    "eom",
];

/// Whether a marker the template emits ends a turn.
fn ends_turn(t: &str) -> bool {
    let l = t.to_lowercase();
    t == "</s>"
        || t == "<|end|>"
        || EOG_TEXTS.contains(&t)
        || TURN_END_WORDS.iter().any(|w| l.contains(w))
}

/// The lengths and first bytes of the texts a scan looks for: a token of another length or
/// first byte is none of them (lengths past 63 bytes share one bit). A token that is not valid
/// UTF-8 decodes with U+FFFD in it, so it can match only a text holding U+FFFD; when one does,
/// every token is looked at.
struct Sought {
    lengths: u64,
    first: [bool; 256],
    every: bool,
}

impl Sought {
    fn new<'a>(texts: impl Iterator<Item = &'a str>) -> Sought {
        let mut s = Sought {
            lengths: 0,
            first: [false; 256],
            every: false,
        };
        for t in texts {
            s.lengths |= 1 << t.len().min(63);
            if let Some(&b) = t.as_bytes().first() {
                s.first[usize::from(b)] = true;
            }
            s.every |= t.contains(char::REPLACEMENT_CHARACTER);
        }
        s
    }

    /// Whether token bytes `b` (decoded lossily) may be one of the texts: never false for one
    /// of them.
    fn may_be(&self, b: &[u8]) -> bool {
        self.every
            || (self.lengths & (1 << b.len().min(63)) != 0
                && b.first().is_none_or(|&f| self.first[usize::from(f)]))
    }
}

fn template_markers(v: &Vocab<'_>, out: &mut Vec<Finding>) {
    let templates: Vec<(&str, &str)> =
        v.m.metadata
            .iter()
            .filter(|e| {
                e.key == "tokenizer.chat_template" || e.key.starts_with("tokenizer.chat_template.")
            })
            .filter_map(|e| Some((e.key.as_str(), e.value.as_str()?)))
            .collect();
    if templates.is_empty() {
        return;
    }
    let mut wanted: HashSet<String> = HashSet::new();
    for (_, src) in &templates {
        wanted.extend(super::template::markers(src));
    }
    if wanted.is_empty() {
        return;
    }
    // Each marker's id, and the ids llama.cpp stops at: one pass over the vocabulary.
    let mut ids: HashMap<String, u64> = HashMap::new();
    let mut eog: HashSet<u64> = HashSet::new();
    let sought = Sought::new(
        EOG_TEXTS
            .iter()
            .copied()
            .chain(wanted.iter().map(String::as_str)),
    );
    for id in 0..v.len() {
        // A token that no text sought could be (by its length and first byte) is not decoded.
        match v.index.bytes_at(&v.m.bytes, id) {
            Some(b) if sought.may_be(b) => {}
            _ => continue,
        }
        let Some(t) = v.text(id) else { continue };
        if EOG_TEXTS.contains(&t.as_ref()) {
            eog.insert(id);
        }
        if wanted.contains(t.as_ref()) {
            ids.entry(t.into_owned()).or_insert(id);
        }
    }
    let id_of = |suffix: &str| {
        v.m.get(&format!("tokenizer.ggml.{suffix}"))
            .and_then(Value::as_u64)
            .filter(|&id| id < v.len())
    };
    let eot = id_of("eot_token_id");
    eog.extend(
        [id_of("eos_token_id"), eot, id_of("eom_token_id")]
            .into_iter()
            .flatten(),
    );
    let eos_text = id_of("eos_token_id").map_or("not set".to_string(), |id| v.named(id));
    for (key, src) in &templates {
        let mut ends = Vec::new();
        let mut missing = Vec::new();
        let mut not_eog = Vec::new();
        for mk in super::template::markers(src) {
            match ids.get(&mk) {
                None => missing.push(format!("\"{}\"", escape(&mk))),
                Some(&id) => {
                    if ends_turn(&mk) {
                        ends.push(id);
                        if !eog.contains(&id) {
                            not_eog.push(v.named(id));
                        }
                    }
                }
            }
        }
        if !missing.is_empty() {
            out.push(about_key(
                v.m,
                Severity::Warning,
                "template-token-missing",
                key,
                format!(
                    "\"{key}\" emits {} that {} not a token of the vocabulary: {}; it is tokenized as ordinary text",
                    if missing.len() == 1 { "a marker" } else { "markers" },
                    if missing.len() == 1 { "is" } else { "are" },
                    examples(&missing)
                ),
            ));
        }
        if !not_eog.is_empty() {
            out.push(about_key(
                v.m,
                Severity::Warning,
                "template-end-not-eog",
                key,
                format!(
                    "\"{key}\" ends turns with {}, which is neither the EOS token ({eos_text}), the EOT or EOM token, nor a token llama.cpp stops at: generation may run past the end of a reply",
                    examples(&not_eog)
                ),
            ));
        }
        if let Some(eot) = eot.filter(|id| !ends.is_empty() && !ends.contains(id)) {
            out.push(about_key(
                v.m,
                Severity::Warning,
                "eot-not-in-template",
                "tokenizer.ggml.eot_token_id",
                format!(
                    "the EOT token is {}, but \"{key}\" ends turns with {}",
                    v.named(eot),
                    examples(&ends.iter().map(|&id| v.named(id)).collect::<Vec<_>>())
                ),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_looking_tokens() {
        for t in [
            "<|im_start|>",
            "<｜begin▁of▁sentence｜>",
            "<start_of_turn>",
            "<end_of_image>",
            "[INST]",
            "[/INST]",
            "[CLS]",
        ] {
            assert!(looks_special(t), "{t}");
        }
        for t in [
            "<|>",
            "<s>",
            "</s>",
            "<0x0A>",
            "[unused0]",
            "[a]",
            "<| x |>",
            "hello",
        ] {
            assert!(!looks_special(t), "{t}");
        }
    }

    #[test]
    fn turn_ending_markers() {
        for t in [
            "<|im_end|>",
            "<end_of_turn>",
            "<|END_OF_TURN_TOKEN|>",
            "<|eot_id|>",
            "<|end|>",
            "</s>",
            "<|turn_end|>",
        ] {
            assert!(ends_turn(t), "{t}");
        }
        for t in [
            "<|END_THINKING|>",
            "<|END_RESPONSE|>",
            "<|END_ACTION|>",
            "[/INST]",
            "<|im_start|>",
            "<end_of_image>",
        ] {
            assert!(!ends_turn(t), "{t}");
        }
    }
}
