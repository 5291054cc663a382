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
    let bos = specials.iter().find(|r| r.role == "bos").unwrap();
    assert_eq!(
        (bos.id, bos.id_text.as_str(), bos.text.as_str()),
        (1, "1", "<s>")
    );
    let pad = specials.iter().find(|r| r.role == "pad").unwrap();
    assert_eq!(
        (pad.id, pad.id_text.as_str(), pad.text.as_str()),
        (99_999, "99,999", "(past the vocabulary)")
    );
    let facts = fact_rows(&info);
    assert_eq!(facts[2], ("vocabulary".into(), "20,003 tokens".into()));
    assert!(has_token_list(&m));
}

#[test]
fn text_search_ignores_case_and_reads_spaces_as_the_marker() {
    let sp = |n: &str, t: &str| TextMatcher::new(n, Spelling::SentencePiece).matches(t);
    let bl = |n: &str, t: &str| TextMatcher::new(n, Spelling::ByteLevel).matches(t);
    let any = |n: &str, t: &str| TextMatcher::new(n, Spelling::Unknown).matches(t);
    // Spaces: `▁` (SentencePiece), `Ġ` (byte-level), either (unknown), or as typed.
    assert!(sp(" the", "▁the"));
    assert!(sp("of the", "of▁the▁"));
    assert!(!sp(" the", "Ġthe"));
    assert!(bl(" the", "Ġthe"));
    assert!(!bl(" the", "▁the"));
    assert!(any(" the", "▁the") && any(" the", "Ġthe") && any(" the", "a the"));
    assert!(sp("▁the", "▁the") && bl("Ġthe", "Ġthe"));
    // Case, ASCII and Unicode; the needle folded once, the token at each place.
    assert!(sp("HELLO", "▁hello") && sp("hello", "HeLLo") && bl("HELLO", "Ġhello"));
    assert!(sp("ÉTÉ", "▁été") && sp("été", "ÉTÉ") && sp("straße", "STRAẞE"));
    assert!(sp("ΣΟΦΊΑ", "σοφία") && sp("i", "İ") && sp("k", "\u{212a}"));
    assert!(!sp("hello", "hell") && !sp("ab", "a▁b") && !sp("x", ""));
    assert!(sp("日本", "▁日本語") && !sp("日本", "日"));
    // Byte-level: any UTF-8 text as the vocabulary stores its bytes (é = C3 A9 = `Ã©`,
    // newline `Ċ`); only ASCII folds there, as `Ġ`/`ġ` are the bytes 0x20 and 0x7F.
    assert_eq!(byte_level_char(b' '), 'Ġ');
    assert_eq!(byte_level_char(b'\n'), 'Ċ');
    assert_eq!(byte_level_char(0x7f), 'ġ');
    assert_eq!(byte_level_char(b'a'), 'a');
    assert_eq!(byte_level_char(0xad), 'Ń');
    assert!(bl(" café", "ĠcafÃ©") && bl("\n\n", "ĊĊ"));
    assert!(!bl("Ġ", "ġ") && !bl("ġthe", "Ġthe") && !bl("Ã", "ã"));
    assert_eq!(Spelling::of_model(Some("gpt2")), Spelling::ByteLevel);
    assert_eq!(Spelling::of_model(Some("llama")), Spelling::SentencePiece);
    assert_eq!(Spelling::of_model(None), Spelling::Unknown);
}

#[test]
fn lower_preimage_is_every_character_whose_lowercase_starts_with_it() {
    // Brute force over every character: the quick first-byte scan misses no match start.
    for u in 0..=0x10_ffffu32 {
        let Some(c) = char::from_u32(u) else { continue };
        let f = first_lower(c, true);
        assert!(
            lower_preimage(f, true).contains(&c),
            "{c:?} lowercases to {f:?}"
        );
        let f = first_lower(c, false);
        assert!(lower_preimage(f, false).contains(&c), "{c:?} (ASCII)");
    }
    assert_eq!(lower_preimage('k', true), ['k', 'K', '\u{212a}']);
    assert_eq!(lower_preimage('k', false), ['k', 'K']);
    assert_eq!(lower_preimage('▁', true), ['▁']);
}

#[test]
fn token_search_on_a_bpe_vocabulary() {
    let m = bpe();
    let mut rows = TokenRows::new(&m);
    let ids = |rows: &TokenRows| {
        (0..rows.len())
            .map(|p| rows.id_at(p).unwrap())
            .collect::<Vec<_>>()
    };
    rows.set_query(&m, " the");
    assert_eq!(ids(&rows), [7]);
    rows.set_query(&m, " T");
    assert_eq!(ids(&rows), [5, 7]);
    rows.set_query(&m, "HE");
    assert_eq!(ids(&rows), [6, 7]);
    rows.set_query(&m, "Ġthe");
    assert_eq!(ids(&rows), [7]);
    // The SentencePiece list: case-insensitive too.
    let v = vocab();
    let mut rows = TokenRows::new(&v);
    rows.set_query(&v, "T1999");
    assert_eq!(rows.len(), 11);
    rows.set_query(&v, "<S>");
    assert_eq!(ids(&rows), [1]);
}

/// The reviewer's case on a real vocabulary: deepseek-coder (byte-level BPE) stores ` the`
/// as `Ġthe`, id 254.
#[test]
fn deepseek_coder_finds_the_with_a_leading_space() {
    let shared = std::env::var("WEIGHTPEEK_SHARED")
        .unwrap_or_else(|_| format!("{}/../shared", env!("CARGO_MANIFEST_DIR")));
    let file = format!("{shared}/data/vocab/ggml-vocab-deepseek-coder.gguf");
    let bytes = std::fs::read(&file).unwrap_or_else(|e| panic!("{file}: {e}"));
    let m = crate::source::parse_bytes(&bytes).unwrap();
    let mut rows = TokenRows::new(&m);
    let ids = |rows: &TokenRows| {
        (0..rows.len())
            .map(|p| rows.id_at(p).unwrap())
            .collect::<Vec<_>>()
    };
    rows.set_query(&m, "Ġthe");
    let marker = ids(&rows);
    assert!(marker.contains(&254), "{marker:?}");
    rows.set_query(&m, " the");
    assert_eq!(ids(&rows), marker, "a space is Ġ");
    assert_eq!(rows.row(&m, 0).map(|r| r.text.starts_with('Ġ')), Some(true));
    rows.set_query(&m, "hello");
    let lower = ids(&rows);
    rows.set_query(&m, "HELLO");
    assert_eq!(ids(&rows), lower);
    assert!(lower.len() >= 2, "{lower:?}");
    assert!((0..rows.len()).all(|p| rows
        .row(&m, p)
        .unwrap()
        .text
        .to_lowercase()
        .contains("hello")));
}

#[test]
fn default_chat_template_first() {
    use testutil::Kv;
    let bytes = testutil::gguf(
        &[
            ("tokenizer.ggml.model", Kv::Str("gpt2")),
            ("tokenizer.chat_template.tool_use", Kv::Str("tools")),
            ("tokenizer.chat_template", Kv::Str("plain\nchat")),
            ("tokenizer.chat_template.rag", Kv::Str("rag")),
        ],
        &[],
    );
    let m = crate::source::parse_bytes(&bytes).unwrap();
    let info = tokenizer_info(&m).unwrap();
    let names = |t: &[(String, String)]| t.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    assert_eq!(names(&info.chat_templates), ["tool_use", "default", "rag"]);
    let ordered = templates_in_order(&info.chat_templates);
    assert_eq!(names(&ordered), ["default", "tool_use", "rag"]);
    assert_eq!(ordered[0].1, "plain\nchat");
    // Without a default, or with only one: file order.
    let variants = vec![
        ("b".to_string(), String::new()),
        ("a".to_string(), String::new()),
    ];
    assert_eq!(templates_in_order(&variants), variants);
    assert!(templates_in_order(&[]).is_empty());
}

fn bpe() -> crate::format::Model {
    use testutil::Kv;
    let toks: Vec<String> = ["a", "b", "ab", "Ġ", "t", "Ġt", "he", "Ġthe"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let mut merges: Vec<String> = vec!["a b".into(), "Ġ t".into(), "h e".into(), "Ġt he".into()];
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
    // ASCII letters ignore case; Ġ (a byte, not a letter here) does not change.
    rows.set_query(&m, "ĠTHE");
    assert_eq!((rows.len(), rows.rank_at(0)), (1, Some(3)));
    rows.set_query(&m, "M29999X");
    assert_eq!(rows.rank_at(0), Some(29_999));
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

#[test]
fn the_copy_note_says_whether_it_copied() {
    assert_eq!(copy_status(None), "copied");
    let denied = Some("NotAllowedError: Write permission denied.");
    assert_eq!(
        copy_status(denied),
        "not copied: NotAllowedError: Write permission denied."
    );
}

#[test]
fn without_a_clipboard_the_note_says_it_needs_a_secure_page() {
    assert_eq!(
        copy_status(Some(NO_CLIPBOARD)),
        "not copied: the clipboard is not available here (it needs https or localhost)"
    );
}

#[test]
fn the_variant_menu_picks_a_template_by_its_index() {
    let t = |n: &str| (n.to_string(), format!("{{{{ {n} }}}}"));
    let templates = [t("default"), t("tool_use"), t("rag")];
    // An index picks its template; not an index (nothing picked yet) is the first, the default.
    let picked = |value: &str| template_at(&templates, value).map(|t| t.0.as_str());
    let names: Vec<_> = ["2", "1", "", "-1"].into_iter().map(picked).collect();
    assert_eq!(
        names,
        [
            Some("rag"),
            Some("tool_use"),
            Some("default"),
            Some("default")
        ]
    );
    assert_eq!(
        template_at(&templates, "1").map(|t| t.1.as_str()),
        Some("{{ tool_use }}")
    );
    assert_eq!(template_at(&templates, "3"), None);
    assert_eq!(template_at(&[], "0"), None);
}
