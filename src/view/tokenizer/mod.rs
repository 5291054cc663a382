//! The tokenizer card's text: the facts list, the special-token rows, the token list (what the
//! search box means, which ids are listed, what each row says), the merges list (the same for
//! `tokenizer.ggml.merges`, by rank) and the chat template's numbered lines. The DOM layer
//! decodes only the rows it draws, through [`TokenRows::row`] and [`MergeRows::row`].

use crate::format::{ArrayRef, Model, Value, ValueType};
use crate::summary::tokenizer::{TokenIndex, TokenizerInfo};
use crate::text;

/// Most search matches listed (the count says when there were more).
pub const SEARCH_LIMIT: usize = 10_000;

/// Placeholder and tooltip of the search box.
pub const SEARCH_HINT: &str = "search text, or #id";

/// What the search box asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenQuery {
    /// Empty box: every token.
    All,
    /// `#123` or `123`: that id.
    Id(u64),
    /// Tokens whose text contains this, ignoring case, spaces also read as the vocabulary's
    /// space marker (see [`TextMatcher`]).
    Text(String),
}

/// How a vocabulary spells text, which decides how a search text is matched against it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spelling {
    /// GPT-2 byte-level BPE (`tokenizer.ggml.model` = `gpt2`): every byte of the UTF-8 text is
    /// one character (space `Ġ`, newline `Ċ`, `é` is `Ã©`). Only ASCII letters are folded:
    /// the other characters stand for bytes (`Ġ` and `ġ` are the bytes 0x20 and 0x7F).
    ByteLevel,
    /// SentencePiece and llama.cpp's other phantom-space vocabularies (`llama`, `t5`, `bert`):
    /// a space is `▁`; Unicode lowercase.
    SentencePiece,
    /// Any other or no model: spaces tried as themselves, `▁` and `Ġ`; Unicode lowercase.
    Unknown,
}

impl Spelling {
    /// The spelling of `tokenizer.ggml.model`.
    pub fn of_model(model: Option<&str>) -> Spelling {
        match model {
            Some("gpt2") => Spelling::ByteLevel,
            Some("llama" | "t5" | "bert") => Spelling::SentencePiece,
            _ => Spelling::Unknown,
        }
    }
}

/// GPT-2's `bytes_to_unicode`: the character byte `b` is stored as in a byte-level vocabulary
/// (printable Latin-1 stays, the others are U+0100 upwards in byte order).
pub fn byte_level_char(b: u8) -> char {
    let kept = |b: u8| matches!(b, 0x21..=0x7E | 0xA1..=0xAC | 0xAE..=0xFF);
    if kept(b) {
        char::from(b)
    } else {
        let n = (0..b).filter(|&x| !kept(x)).count() as u32;
        char::from_u32(256 + n).unwrap_or(char::REPLACEMENT_CHARACTER)
    }
}

/// A search text prepared once for comparing with every token: lowercased, and also spelled
/// as the vocabulary stores it (spaces as `Ġ` or `▁`). Matching a token allocates nothing: one
/// pass over its bytes stops only where a character whose lowercase starts a needle begins.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextMatcher {
    /// The lowercased needles (distinct, not empty): as typed, then as the vocabulary spells it.
    needles: Vec<String>,
    /// (a character whose lowercase starts needle `k`, `k`), UTF-8 encoded.
    starts: Vec<(String, usize)>,
    /// The first bytes of `starts`.
    first_bytes: [bool; 256],
    /// Fold tokens with Unicode lowercase (else ASCII only).
    unicode: bool,
}

/// Characters whose lowercase is not their uppercase's lowercase-inverse (the lowercase of
/// `İ` starts with `i`, the Kelvin sign's is `k`, titlecase digraphs and Greek letters with
/// prosgegrammeni): with `f` and `f`'s uppercase, every character whose lowercase starts with
/// `f` (checked against every character by a test).
const LOWER_OTHERS: &[char] = &[
    '\u{130}',  // İ
    '\u{1c5}',  // ǅ
    '\u{1c8}',  // ǈ
    '\u{1cb}',  // ǋ
    '\u{1f2}',  // ǲ
    '\u{3f4}',  // ϴ
    '\u{1e9e}', // ẞ
    '\u{1f88}', '\u{1f89}', '\u{1f8a}', '\u{1f8b}', '\u{1f8c}', '\u{1f8d}', '\u{1f8e}', '\u{1f8f}',
    '\u{1f98}', '\u{1f99}', '\u{1f9a}', '\u{1f9b}', '\u{1f9c}', '\u{1f9d}', '\u{1f9e}', '\u{1f9f}',
    '\u{1fa8}', '\u{1fa9}', '\u{1faa}', '\u{1fab}', '\u{1fac}', '\u{1fad}', '\u{1fae}', '\u{1faf}',
    '\u{1fbc}', // ᾼ
    '\u{1fcc}', // ῌ
    '\u{1ffc}', // ῼ
    '\u{2126}', // Ω ohm sign
    '\u{212a}', // K Kelvin sign
    '\u{212b}', // Å angstrom sign
];

fn first_lower(c: char, unicode: bool) -> char {
    if unicode {
        c.to_lowercase().next().unwrap_or(c)
    } else {
        c.to_ascii_lowercase()
    }
}

/// Every character whose lowercase (Unicode, or ASCII only) starts with `f`.
fn lower_preimage(f: char, unicode: bool) -> Vec<char> {
    let mut v = Vec::new();
    let up: Vec<char> = if unicode {
        f.to_uppercase().collect()
    } else {
        vec![f.to_ascii_uppercase()]
    };
    let up = (up.len() == 1).then(|| up[0]);
    let others = if unicode { LOWER_OTHERS } else { &[] };
    for c in [f].into_iter().chain(up).chain(others.iter().copied()) {
        if first_lower(c, unicode) == f && !v.contains(&c) {
            v.push(c);
        }
    }
    v
}

impl TextMatcher {
    /// Prepares `needle` for a vocabulary spelled `spelling`.
    pub fn new(needle: &str, spelling: Spelling) -> TextMatcher {
        let unicode = spelling != Spelling::ByteLevel;
        let typed: String = if unicode {
            needle.chars().flat_map(char::to_lowercase).collect()
        } else {
            needle.to_ascii_lowercase()
        };
        let spelled: Vec<String> = match spelling {
            Spelling::ByteLevel => vec![typed.bytes().map(byte_level_char).collect()],
            Spelling::SentencePiece => vec![typed.replace(' ', "▁")],
            // `Ġ` lowercases to `ġ`, as the token's does.
            Spelling::Unknown => vec![typed.replace(' ', "▁"), typed.replace(' ', "ġ")],
        };
        let mut needles: Vec<String> = Vec::new();
        for n in [typed].into_iter().chain(spelled) {
            if !n.is_empty() && !needles.contains(&n) {
                needles.push(n);
            }
        }
        let mut starts = Vec::new();
        let mut first_bytes = [false; 256];
        for (k, n) in needles.iter().enumerate() {
            let Some(f) = n.chars().next() else { continue };
            for c in lower_preimage(f, unicode) {
                let s = c.to_string();
                first_bytes[usize::from(s.as_bytes()[0])] = true;
                starts.push((s, k));
            }
        }
        TextMatcher {
            needles,
            starts,
            first_bytes,
            unicode,
        }
    }

    /// True when `token`, lowercased, contains one of the needles.
    pub fn matches(&self, token: &str) -> bool {
        if self.needles.is_empty() {
            return true;
        }
        token.bytes().enumerate().any(|(i, b)| {
            if !self.first_bytes[usize::from(b)] {
                return false;
            }
            // A first byte of a character: a boundary in valid UTF-8.
            let Some(rest) = token.get(i..) else {
                return false;
            };
            self.starts.iter().any(|(c, k)| {
                rest.starts_with(c.as_str()) && self.starts_with(rest, &self.needles[*k])
            })
        })
    }

    /// True when `rest`, lowercased, starts with `needle`.
    fn starts_with(&self, rest: &str, needle: &str) -> bool {
        if self.unicode {
            let mut it = rest.chars().flat_map(char::to_lowercase);
            needle.chars().all(|n| it.next() == Some(n))
        } else {
            let (r, n) = (rest.as_bytes(), needle.as_bytes());
            r.len() >= n.len() && r.iter().zip(n).all(|(a, b)| a.to_ascii_lowercase() == *b)
        }
    }
}

/// Parses the search box: blank is every token; `#123` or a plain number is an id; anything
/// else is text to find (kept as typed, spaces included, unless it is all spaces).
pub fn parse_query(s: &str) -> TokenQuery {
    let t = s.trim();
    if t.is_empty() {
        return TokenQuery::All;
    }
    let digits = t.strip_prefix('#').unwrap_or(t);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        if let Ok(id) = digits.parse::<u64>() {
            return TokenQuery::Id(id);
        }
    }
    TokenQuery::Text(s.to_string())
}

/// llama.cpp's token types (`llama_token_type`).
pub fn token_type_name(t: i64) -> String {
    match t {
        0 => "undefined".into(),
        1 => "normal".into(),
        2 => "unknown".into(),
        3 => "control".into(),
        4 => "user-defined".into(),
        5 => "unused".into(),
        6 => "byte".into(),
        other => other.to_string(),
    }
}

/// One drawn row of the token list.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenRow {
    /// Token id.
    pub id: u64,
    /// The id as shown (thousands separators).
    pub id_text: String,
    /// The token's text, control characters escaped.
    pub text: String,
    /// Token type name, or empty when the file has no types.
    pub kind: String,
    /// Score, or empty when the file has no scores.
    pub score: String,
}

fn array<'a>(m: &'a Model, key: &str) -> Option<&'a ArrayRef> {
    match m.get(key) {
        Some(Value::Array(a)) => Some(a),
        _ => None,
    }
}

/// The token list: the ids listed now (all, or a search's matches) and how to draw a row.
#[derive(Debug, Clone)]
pub struct TokenRows {
    index: Option<TokenIndex>,
    spelling: Spelling,
    listing: Listing,
}

impl TokenRows {
    /// Indexes `m`'s token strings (once; every search and row uses the index).
    pub fn new(m: &Model) -> TokenRows {
        let index = array(m, "tokenizer.ggml.tokens").and_then(|a| TokenIndex::build(a, &m.bytes));
        let model = m.get("tokenizer.ggml.model").and_then(Value::as_str);
        TokenRows {
            index,
            spelling: Spelling::of_model(model),
            listing: Listing::default(),
        }
    }

    /// Tokens in the vocabulary.
    pub fn vocab(&self) -> u64 {
        self.index.as_ref().map_or(0, TokenIndex::len)
    }

    /// Rows listed now.
    pub fn len(&self) -> usize {
        self.listing.len(self.vocab())
    }

    /// No row listed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Applies the search box text: blank lists every token, `#n` or a number is id `n`,
    /// anything else finds the tokens containing it, ignoring case, with its spaces also as the
    /// vocabulary's space marker ([`TextMatcher`]).
    pub fn set_query(&mut self, m: &Model, s: &str) {
        let vocab = self.vocab();
        let index = self.index.as_ref();
        let spelling = self.spelling;
        self.listing.set(parse_query(s), vocab, |t, limit| {
            let matcher = TextMatcher::new(t, spelling);
            index.map_or_else(Vec::new, |i| {
                i.find(&m.bytes, limit, |tok| matcher.matches(tok))
            })
        });
    }

    /// The count line above the list.
    pub fn count_text(&self) -> String {
        self.listing.count_text(self.vocab(), "tokens")
    }

    /// Token id at list position `pos`.
    pub fn id_at(&self, pos: usize) -> Option<u64> {
        self.listing.at(pos, self.vocab())
    }

    /// The row at list position `pos`, decoded now (text, type and score of that id only).
    pub fn row(&self, m: &Model, pos: usize) -> Option<TokenRow> {
        let id = self.id_at(pos)?;
        let text = crate::text::escape(&self.index.as_ref()?.raw(&m.bytes, id)?);
        let one = |key: &str| {
            array(m, key)
                .filter(|a| a.len > id)
                .and_then(|a| a.values(&m.bytes, id, 1).ok())
                .and_then(|v| v.into_iter().next())
        };
        let kind = one("tokenizer.ggml.token_type")
            .and_then(|v| match v {
                Value::I32(t) => Some(token_type_name(i64::from(t))),
                other => other.as_u64().map(|t| token_type_name(t as i64)),
            })
            .unwrap_or_default();
        let score = one("tokenizer.ggml.scores")
            .map(|v| match v {
                Value::F32(x) => text::format_f32(x),
                other => text::scalar(&other),
            })
            .unwrap_or_default();
        Some(TokenRow {
            id,
            id_text: text::thousands(id),
            text,
            kind,
            score,
        })
    }
}

/// Placeholder and tooltip of the merges search box.
pub const MERGE_SEARCH_HINT: &str = "search text, or #rank";

/// One drawn row of the merges list.
#[derive(Debug, Clone, PartialEq)]
pub struct MergeRow {
    /// Rank: the merge's position in `tokenizer.ggml.merges` (0 is applied first).
    pub rank: u64,
    /// The rank as shown (thousands separators).
    pub rank_text: String,
    /// The left part, control characters escaped.
    pub left: String,
    /// The right part, escaped.
    pub right: String,
    /// The token the merge makes (left and right joined), escaped.
    pub result: String,
}

/// A merge line split into its two parts at the first space (BPE merges are `left right`; the
/// parts themselves hold no plain space). A line without a space is all left part.
pub fn split_merge(raw: &str) -> (&str, &str) {
    raw.split_once(' ').unwrap_or((raw, ""))
}

/// True when the merge line `raw` matches the search text `needle`: the line as stored
/// (`Ġ t`) contains it, or the token it makes (`Ġt`) does.
pub fn merge_matches(raw: &str, needle: &str) -> bool {
    if raw.contains(needle) {
        return true;
    }
    let (l, r) = split_merge(raw);
    if l.contains(needle) || r.contains(needle) {
        return true;
    }
    // Across the join: a head of the needle ends the left part, the rest starts the right.
    needle
        .char_indices()
        .skip(1)
        .any(|(k, _)| l.ends_with(&needle[..k]) && r.starts_with(&needle[k..]))
}

/// Which positions of a searchable list are listed now: all of them, or a search's matches
/// (at most [`SEARCH_LIMIT`]), with the count line's words.
#[derive(Debug, Clone, Default)]
struct Listing {
    /// `None`: every position in order.
    matches: Option<Vec<u64>>,
    /// The search stopped at [`SEARCH_LIMIT`].
    capped: bool,
}

impl Listing {
    fn len(&self, total: u64) -> usize {
        match &self.matches {
            Some(v) => v.len(),
            None => usize::try_from(total).unwrap_or(usize::MAX),
        }
    }

    fn at(&self, pos: usize, total: u64) -> Option<u64> {
        match &self.matches {
            Some(v) => v.get(pos).copied(),
            None => (pos < self.len(total)).then_some(pos as u64),
        }
    }

    /// Applies a parsed query: `number` is the `#n` / plain-number lookup, `text` runs a text
    /// search returning at most the limit it is given.
    fn set(&mut self, q: TokenQuery, total: u64, text: impl FnOnce(&str, usize) -> Vec<u64>) {
        self.capped = false;
        self.matches = match q {
            TokenQuery::All => None,
            TokenQuery::Id(id) => Some(if id < total { vec![id] } else { Vec::new() }),
            TokenQuery::Text(t) => {
                let found = text(&t, SEARCH_LIMIT + 1);
                self.capped = found.len() > SEARCH_LIMIT;
                Some(found.into_iter().take(SEARCH_LIMIT).collect())
            }
        };
    }

    /// `262,144 tokens`, `3 matches of 262,144 tokens`, `first 10,000 matches of …`.
    fn count_text(&self, total: u64, noun: &str) -> String {
        let all = format!("{} {noun}", text::thousands(total));
        match &self.matches {
            None => all,
            Some(v) if self.capped => {
                format!("first {} matches of {all}", text::thousands(v.len() as u64))
            }
            Some(v) if v.len() == 1 => format!("1 match of {all}"),
            Some(v) => format!("{} matches of {all}", text::thousands(v.len() as u64)),
        }
    }
}

/// The merges list: the ranks listed now (all, or a search's matches) and how to draw a row.
/// Only the rows drawn are decoded, through an index of `tokenizer.ggml.merges` built once.
#[derive(Debug, Clone)]
pub struct MergeRows {
    index: Option<TokenIndex>,
    listing: Listing,
}

impl MergeRows {
    /// Indexes `m`'s merge strings (once).
    pub fn new(m: &Model) -> MergeRows {
        let index = array(m, "tokenizer.ggml.merges").and_then(|a| TokenIndex::build(a, &m.bytes));
        MergeRows {
            index,
            listing: Listing::default(),
        }
    }

    /// Merges in the file.
    pub fn total(&self) -> u64 {
        self.index.as_ref().map_or(0, TokenIndex::len)
    }

    /// Rows listed now.
    pub fn len(&self) -> usize {
        self.listing.len(self.total())
    }

    /// No row listed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Applies the search box text: blank lists every merge, `#n` or a number is rank `n`,
    /// anything else finds the merges whose line or whose result contains it, ignoring the case
    /// of ASCII letters (merges are byte-level BPE, where every other character stands for a
    /// byte, as in the token search).
    pub fn set_query(&mut self, m: &Model, s: &str) {
        let total = self.total();
        let index = self.index.as_ref();
        self.listing.set(parse_query(s), total, |needle, limit| {
            let needle = needle.to_ascii_lowercase();
            // One buffer for every line's lowercased copy.
            let mut line = String::new();
            index.map_or_else(Vec::new, |i| {
                i.find(&m.bytes, limit, |t| {
                    line.clear();
                    line.push_str(t);
                    line.make_ascii_lowercase();
                    merge_matches(&line, &needle)
                })
            })
        });
    }

    /// The count line above the list.
    pub fn count_text(&self) -> String {
        self.listing.count_text(self.total(), "merges")
    }

    /// Rank at list position `pos`.
    pub fn rank_at(&self, pos: usize) -> Option<u64> {
        self.listing.at(pos, self.total())
    }

    /// The row at list position `pos`, decoded now.
    pub fn row(&self, m: &Model, pos: usize) -> Option<MergeRow> {
        let rank = self.rank_at(pos)?;
        let raw = self.index.as_ref()?.raw(&m.bytes, rank)?;
        let (l, r) = split_merge(&raw);
        Some(MergeRow {
            rank,
            rank_text: text::thousands(rank),
            left: text::escape(l),
            right: text::escape(r),
            result: text::escape(&format!("{l}{r}")),
        })
    }
}

/// True when `m` has a string array of merges (the card's merges list has something to show).
pub fn has_merge_list(m: &Model) -> bool {
    array(m, "tokenizer.ggml.merges").is_some_and(|a| a.elem == ValueType::String)
}

/// The facts list: (label, value).
pub fn fact_rows(t: &TokenizerInfo) -> Vec<(String, String)> {
    let opt = |s: &Option<String>| s.as_deref().map(text::escape).unwrap_or_else(|| "–".into());
    let mut rows = vec![
        ("model".to_string(), opt(&t.model)),
        ("pre-tokenizer".to_string(), opt(&t.pre)),
        (
            "vocabulary".to_string(),
            format!("{} tokens", text::thousands(t.vocab_size)),
        ),
    ];
    if let Some(n) = t.merges {
        rows.push(("merges".to_string(), text::thousands(n)));
    }
    for (flag, v) in &t.flags {
        rows.push((text::escape(flag), v.to_string()));
    }
    rows
}

/// One row of the special-token table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecialRow {
    /// `bos`, `eos`, ...
    pub role: String,
    /// The token id.
    pub id: u64,
    /// The id as shown (thousands separators, as in the token list).
    pub id_text: String,
    /// The token's text (escaped), or `(past the vocabulary)`.
    pub text: String,
}

/// Special-token rows.
pub fn special_rows(t: &TokenizerInfo) -> Vec<SpecialRow> {
    t.special
        .iter()
        .map(|s| SpecialRow {
            role: s.role.to_string(),
            id: s.id,
            id_text: text::thousands(s.id),
            text: s
                .text
                .as_deref()
                .unwrap_or("(past the vocabulary)")
                .to_string(),
        })
        .collect()
}

/// The chat templates in the selector's order: the default (`tokenizer.chat_template`, named
/// `default`) first, shown when the card opens, then the named variants in file order.
pub fn templates_in_order(templates: &[(String, String)]) -> Vec<(String, String)> {
    let (default, variants): (Vec<_>, Vec<_>) = templates
        .iter()
        .cloned()
        .partition(|(name, _)| name == "default");
    default.into_iter().chain(variants).collect()
}

/// A chat template as numbered lines: (number, line). Split on `\n` only, so the lines joined
/// with `\n` are the template exactly; tabs stay, other control and bidi characters are made
/// visible.
pub fn template_lines(text: &str) -> Vec<(String, String)> {
    text.split('\n')
        .enumerate()
        .map(|(i, line)| {
            let shown: String = line
                .split('\t')
                .map(text::escape)
                .collect::<Vec<_>>()
                .join("\t");
            ((i + 1).to_string(), shown)
        })
        .collect()
}

/// The selector's label for a template: `default` or the variant's name, with its line count.
pub fn template_label(name: &str, text: &str) -> String {
    let lines = text.split('\n').count();
    format!(
        "{} ({} line{})",
        text::escape(name),
        text::thousands(lines as u64),
        if lines == 1 { "" } else { "s" }
    )
}

/// True when `m` is a string array of tokens (the card's list has something to show).
pub fn has_token_list(m: &Model) -> bool {
    array(m, "tokenizer.ggml.tokens").is_some_and(|a| a.elem == ValueType::String)
}

/// The note beside the copy button once the clipboard answered: `refused` is the browser's
/// reason when it did not copy.
pub fn copy_status(refused: Option<&str>) -> String {
    match refused {
        None => "copied".into(),
        Some(e) => format!("not copied: {e}"),
    }
}

/// Milliseconds the copy note stays before it is cleared.
pub const COPY_NOTE_MS: u32 = 4000;

/// Why nothing was copied when the browser offers no clipboard (`navigator.clipboard` is
/// only there in a secure context), said through [`copy_status`].
pub const NO_CLIPBOARD: &str = "the clipboard is not available here (it needs https or localhost)";

/// The template the variant menu's value `value` picks (the options' values are indexes in
/// `templates`, [`template_parts`]): a value that is no index picks the first; `None` past
/// the end.
pub fn template_at<'a>(
    templates: &'a [(String, String)],
    value: &str,
) -> Option<&'a (String, String)> {
    templates.get(value.parse::<usize>().unwrap_or(0))
}

mod nodes;
pub use nodes::{
    card, info_nodes, list_nodes, template_parts, template_view, ListTexts, ModelList, SearchList,
    MERGE_LIST, TOKEN_LIST,
};

#[cfg(test)]
mod tests;

#[cfg(test)]
mod timing {
    use super::*;

    fn ms_per_run(mut f: impl FnMut()) -> f64 {
        f();
        let n = 20;
        let t0 = std::time::Instant::now();
        for _ in 0..n {
            f();
        }
        t0.elapsed().as_secs_f64() * 1000.0 / f64::from(n)
    }

    /// Times the token search on the Gemma 3 vocabulary (262,144 tokens) and deepseek-coder's
    /// against the plain case-sensitive search (`TokenIndex::search`); run with
    /// `cargo test --release --lib search_timing -- --ignored --nocapture`.
    #[test]
    #[ignore = "needs the Gemma 3 GGUF in $WEIGHTPEEK_DATA; prints timings"]
    fn search_timing() {
        let home = std::env::var("HOME").unwrap_or_default();
        let data = std::env::var("WEIGHTPEEK_DATA")
            .unwrap_or_else(|_| format!("{home}/.cache/weightpeek-data"));
        let shared = std::env::var("WEIGHTPEEK_SHARED").unwrap_or_else(|_| "../shared".into());
        for file in [
            format!("{data}/gemma-3-270m-q4_k_m.gguf"),
            format!("{shared}/data/vocab/ggml-vocab-deepseek-coder.gguf"),
        ] {
            let bytes = std::fs::read(&file).unwrap();
            let m = crate::source::parse_bytes(&bytes).unwrap();
            let mut rows = TokenRows::new(&m);
            println!("{file}: {} tokens", rows.vocab());
            for q in ["the", " the", "HELLO", "zzzq", "ing", "▁the", "日本"] {
                let index = rows.index.clone().unwrap();
                let mut plain = 0;
                let old = ms_per_run(|| plain = index.search(&m.bytes, q, SEARCH_LIMIT + 1).len());
                let new = ms_per_run(|| rows.set_query(&m, q));
                println!(
                    "  {q:?}: case-sensitive {old:.2} ms ({plain} matches), now {new:.2} ms ({}), {:.2}×",
                    rows.count_text(),
                    new / old
                );
            }
        }
    }
}
