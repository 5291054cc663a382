//! The tokenizer card's text: the facts list, the special-token rows, the token list (what the
//! search box means, which ids are listed, what each row says), the merges list (the same for
//! `tokenizer.ggml.merges`, by rank) and the chat template's numbered lines. The DOM layer
//! decodes only the rows it draws, through [`TokenRows::row`] and [`MergeRows::row`].

use crate::format::{ArrayRef, Model, Value, ValueType};
use crate::summary::display;
use crate::summary::tokenizer::{TokenIndex, TokenizerInfo};

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
    /// Tokens whose text contains this (case-sensitive).
    Text(String),
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
    listing: Listing,
}

impl TokenRows {
    /// Indexes `m`'s token strings (once; every search and row uses the index).
    pub fn new(m: &Model) -> TokenRows {
        let index = array(m, "tokenizer.ggml.tokens").and_then(|a| TokenIndex::build(a, &m.bytes));
        TokenRows {
            index,
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

    /// Applies the search box text.
    pub fn set_query(&mut self, m: &Model, s: &str) {
        let vocab = self.vocab();
        let index = self.index.as_ref();
        self.listing.set(parse_query(s), vocab, |t, limit| {
            index.map_or_else(Vec::new, |i| i.search(&m.bytes, t, limit))
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
        let text = self.index.as_ref()?.text(&m.bytes, id)?;
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
                Value::F32(x) => display::format_f32(x),
                other => display::scalar(&other),
            })
            .unwrap_or_default();
        Some(TokenRow {
            id,
            id_text: display::thousands(id),
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
        let all = format!("{} {noun}", display::thousands(total));
        match &self.matches {
            None => all,
            Some(v) if self.capped => format!(
                "first {} matches of {all}",
                display::thousands(v.len() as u64)
            ),
            Some(v) if v.len() == 1 => format!("1 match of {all}"),
            Some(v) => format!("{} matches of {all}", display::thousands(v.len() as u64)),
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
    /// anything else finds the merges whose line or whose result contains it (case-sensitive).
    pub fn set_query(&mut self, m: &Model, s: &str) {
        let total = self.total();
        let index = self.index.as_ref();
        self.listing.set(parse_query(s), total, |needle, limit| {
            index.map_or_else(Vec::new, |i| {
                (0..i.len())
                    .filter(|&r| {
                        i.raw(&m.bytes, r)
                            .is_some_and(|t| merge_matches(&t, needle))
                    })
                    .take(limit)
                    .collect()
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
            rank_text: display::thousands(rank),
            left: display::escape(l),
            right: display::escape(r),
            result: display::escape(&format!("{l}{r}")),
        })
    }
}

/// True when `m` has a string array of merges (the card's merges list has something to show).
pub fn has_merge_list(m: &Model) -> bool {
    array(m, "tokenizer.ggml.merges").is_some_and(|a| a.elem == ValueType::String)
}

/// The facts list: (label, value).
pub fn fact_rows(t: &TokenizerInfo) -> Vec<(String, String)> {
    let opt = |s: &Option<String>| {
        s.as_deref()
            .map(display::escape)
            .unwrap_or_else(|| "–".into())
    };
    let mut rows = vec![
        ("model".to_string(), opt(&t.model)),
        ("pre-tokenizer".to_string(), opt(&t.pre)),
        (
            "vocabulary".to_string(),
            format!("{} tokens", display::thousands(t.vocab_size)),
        ),
    ];
    if let Some(n) = t.merges {
        rows.push(("merges".to_string(), display::thousands(n)));
    }
    for (flag, v) in &t.flags {
        rows.push((display::escape(flag), v.to_string()));
    }
    rows
}

/// Special-token rows: (role, id, text as shown).
pub fn special_rows(t: &TokenizerInfo) -> Vec<(String, u64, String)> {
    t.special
        .iter()
        .map(|s| {
            (
                s.role.to_string(),
                s.id,
                s.text
                    .as_deref()
                    .unwrap_or("(past the vocabulary)")
                    .to_string(),
            )
        })
        .collect()
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
                .map(display::escape)
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
        display::escape(name),
        display::thousands(lines as u64),
        if lines == 1 { "" } else { "s" }
    )
}

/// True when `m` is a string array of tokens (the card's list has something to show).
pub fn has_token_list(m: &Model) -> bool {
    array(m, "tokenizer.ggml.tokens").is_some_and(|a| a.elem == ValueType::String)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::summary::tokenizer::tokenizer_info;
    use crate::view::testutil;

    #[test]
    fn queries() {
        assert_eq!(parse_query(""), TokenQuery::All);
        assert_eq!(parse_query("   "), TokenQuery::All);
        assert_eq!(parse_query("#123"), TokenQuery::Id(123));
        assert_eq!(parse_query(" 42 "), TokenQuery::Id(42));
        assert_eq!(parse_query("#"), TokenQuery::Text("#".into()));
        assert_eq!(parse_query("#1a"), TokenQuery::Text("#1a".into()));
        assert_eq!(parse_query("▁the"), TokenQuery::Text("▁the".into()));
        assert_eq!(parse_query(" the"), TokenQuery::Text(" the".into()));
        // Too large for u64: searched as text.
        let big = "99999999999999999999999";
        assert_eq!(parse_query(big), TokenQuery::Text(big.into()));
    }

    #[test]
    fn type_names() {
        assert_eq!(token_type_name(1), "normal");
        assert_eq!(token_type_name(3), "control");
        assert_eq!(token_type_name(6), "byte");
        assert_eq!(token_type_name(42), "42");
    }

    #[test]
    fn template_lines_rebuild_the_text() {
        let t = "{% for m in messages %}\n\t{{ m }}\r\n{% endfor %}\n";
        let lines = template_lines(t);
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[0], ("1".into(), "{% for m in messages %}".into()));
        assert_eq!(lines[1].1, "\t{{ m }}\\r");
        assert_eq!(lines[3], ("4".into(), String::new()));
        let plain = "a\nb\tc\nd";
        let joined: Vec<String> = template_lines(plain).into_iter().map(|l| l.1).collect();
        assert_eq!(joined.join("\n"), plain);
        assert_eq!(template_label("default", plain), "default (3 lines)");
        assert_eq!(template_label("tool_use", "x"), "tool_use (1 line)");
        assert_eq!(template_lines("a\u{202e}b")[0].1, "a\\u{202e}b");
    }

    fn vocab() -> crate::format::Model {
        use testutil::Kv;
        let mut toks: Vec<String> = vec!["<pad>".into(), "<s>".into(), "</s>".into()];
        toks.extend((3..20_003).map(|i| format!("t{i}")));
        let types: Vec<i32> = (0..toks.len()).map(|i| if i < 3 { 3 } else { 1 }).collect();
        let bytes = testutil::gguf(
            &[
                ("general.architecture", Kv::Str("llama")),
                ("tokenizer.ggml.model", Kv::Str("llama")),
                ("tokenizer.ggml.tokens", Kv::StrArray(toks)),
                ("tokenizer.ggml.token_type", Kv::I32Array(types)),
                ("tokenizer.ggml.bos_token_id", Kv::U32(1)),
                ("tokenizer.ggml.eos_token_id", Kv::U32(2)),
                ("tokenizer.ggml.padding_token_id", Kv::U32(99_999)),
            ],
            &[],
        );
        crate::source::parse_bytes(&bytes).unwrap()
    }

    #[test]
    fn token_rows_decode_search_and_count() {
        let m = vocab();
        let info = tokenizer_info(&m).unwrap();
        let mut rows = TokenRows::new(&m);
        assert_eq!(rows.vocab(), 20_003);
        assert_eq!(rows.len() as u64, info.vocab_size);
        assert_eq!(rows.count_text(), "20,003 tokens");
        let r = rows.row(&m, 1).unwrap();
        assert_eq!(
            (r.id, r.text.as_str(), r.kind.as_str()),
            (1, "<s>", "control")
        );
        assert_eq!(r.score, "");
        let last = rows.row(&m, rows.len() - 1).unwrap();
        assert_eq!(
            (last.text.as_str(), last.id_text.as_str()),
            ("t20002", "20,002")
        );
        assert_eq!(last.kind, "normal");
        assert!(rows.row(&m, rows.len()).is_none());

        rows.set_query(&m, "#2");
        assert_eq!(rows.id_at(0), Some(2));
        assert_eq!(rows.count_text(), "1 match of 20,003 tokens");
        rows.set_query(&m, "99999999");
        assert!(rows.is_empty());
        rows.set_query(&m, "t1999");
        // t1999, t19990..t19999
        assert_eq!(rows.len(), 11);
        assert!((0..11).all(|p| rows.row(&m, p).unwrap().text.contains("t1999")));
        rows.set_query(&m, "t");
        assert_eq!(rows.len(), SEARCH_LIMIT);
        assert!(rows.count_text().starts_with("first 10,000 matches"));
        rows.set_query(&m, "");
        assert_eq!(rows.len() as u64, info.vocab_size);

        let specials = special_rows(&info);
        assert!(specials.contains(&("bos".into(), 1, "<s>".into())));
        assert!(specials.contains(&("pad".into(), 99_999, "(past the vocabulary)".into())));
        let facts = fact_rows(&info);
        assert_eq!(facts[2], ("vocabulary".into(), "20,003 tokens".into()));
        assert!(has_token_list(&m));
    }

    fn bpe() -> crate::format::Model {
        use testutil::Kv;
        let toks: Vec<String> = ["a", "b", "ab", "Ġ", "t", "Ġt", "he", "Ġthe"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let mut merges: Vec<String> =
            vec!["a b".into(), "Ġ t".into(), "h e".into(), "Ġt he".into()];
        merges.extend((4..30_000).map(|i| format!("m{i} x\u{1}")));
        let bytes = testutil::gguf(
            &[
                ("tokenizer.ggml.model", Kv::Str("gpt2")),
                ("tokenizer.ggml.tokens", Kv::StrArray(toks)),
                ("tokenizer.ggml.merges", Kv::StrArray(merges)),
            ],
            &[],
        );
        crate::source::parse_bytes(&bytes).unwrap()
    }

    #[test]
    fn merge_lines_split_and_match() {
        assert_eq!(split_merge("Ġ t"), ("Ġ", "t"));
        assert_eq!(split_merge("Ġt he"), ("Ġt", "he"));
        assert_eq!(split_merge("x"), ("x", ""));
        assert_eq!(split_merge("a b c"), ("a", "b c"));
        // The line as stored, either part, or the token it makes.
        assert!(merge_matches("Ġt he", "Ġt he"));
        assert!(merge_matches("Ġt he", "Ġthe"));
        assert!(merge_matches("Ġt he", "th"));
        assert!(merge_matches("Ġt he", "he"));
        assert!(merge_matches("Ġt he", "Ġ"));
        assert!(!merge_matches("Ġt he", "the "));
        assert!(!merge_matches("Ġt he", "hex"));
        assert!(!merge_matches("a b", "ba"));
        // Multi-byte characters split at character boundaries only.
        assert!(merge_matches("ç² ĺ", "²ĺ"));
    }

    #[test]
    fn merge_rows_decode_search_and_count() {
        let m = bpe();
        let info = tokenizer_info(&m).unwrap();
        let mut rows = MergeRows::new(&m);
        assert!(has_merge_list(&m));
        assert_eq!(Some(rows.total()), info.merges);
        assert_eq!(rows.len(), 30_000);
        assert_eq!(rows.count_text(), "30,000 merges");
        let r = rows.row(&m, 1).unwrap();
        assert_eq!(
            (r.rank, r.left.as_str(), r.right.as_str(), r.result.as_str()),
            (1, "Ġ", "t", "Ġt")
        );
        // Control characters are escaped in every part.
        let last = rows.row(&m, rows.len() - 1).unwrap();
        assert_eq!(last.rank_text, "29,999");
        assert_eq!(
            (
                last.left.as_str(),
                last.right.as_str(),
                last.result.as_str()
            ),
            ("m29999", "x\\u{1}", "m29999x\\u{1}")
        );
        assert!(rows.row(&m, rows.len()).is_none());

        rows.set_query(&m, "Ġthe");
        assert_eq!(rows.len(), 1);
        assert_eq!(rows.rank_at(0), Some(3));
        assert_eq!(rows.count_text(), "1 match of 30,000 merges");
        rows.set_query(&m, "Ġ");
        assert_eq!(
            (0..rows.len())
                .map(|p| rows.rank_at(p).unwrap())
                .collect::<Vec<_>>(),
            [1, 3]
        );
        rows.set_query(&m, "#3");
        assert_eq!(rows.row(&m, 0).unwrap().result, "Ġthe");
        rows.set_query(&m, "29999");
        assert_eq!(rows.row(&m, 0).unwrap().rank, 29_999);
        rows.set_query(&m, "30000");
        assert!(rows.is_empty());
        assert_eq!(rows.count_text(), "0 matches of 30,000 merges");
        rows.set_query(&m, "m2999");
        // m2999, m29990..m29999
        assert_eq!(rows.len(), 11);
        rows.set_query(&m, "x");
        assert_eq!(rows.len(), SEARCH_LIMIT);
        assert!(rows
            .count_text()
            .starts_with("first 10,000 matches of 30,000 merges"));
        rows.set_query(&m, " ");
        assert_eq!(rows.len(), 30_000);

        // No merges key: an empty list.
        let v = vocab();
        assert!(!has_merge_list(&v));
        let none = MergeRows::new(&v);
        assert_eq!((none.total(), none.len()), (0, 0));
        assert!(none.row(&v, 0).is_none());
    }
}
