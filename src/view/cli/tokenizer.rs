//! `--tokenizer`: the tokenizer card as text: its facts ([`tokenizer::fact_rows`]), the special
//! tokens ([`tokenizer::special_rows`]) and every chat template as numbered lines
//! ([`tokenizer::template_lines`]: split on `\n` only, tabs and trailing spaces kept, a carriage
//! return and other control or bidi characters escaped), the default first.

use crate::summary::tokenizer::TokenizerInfo;
use crate::text::escape;
use crate::view::tokenizer;

/// Printed for a file without `tokenizer.*` keys (exit status 1).
pub const NO_TOKENIZER: &str = "no tokenizer: the file has no tokenizer.* keys\n";

/// Width of the label column.
const WIDTH: usize = 16;

/// The whole output.
pub fn text(t: &TokenizerInfo) -> String {
    let mut o = String::new();
    let line = |o: &mut String, label: &str, value: &str| {
        o.push_str(&format!("{label:<WIDTH$} {value}\n"));
    };
    for (label, value) in tokenizer::fact_rows(t) {
        line(&mut o, &escape(&label), &escape(&value));
    }
    for (row, token) in tokenizer::special_rows(t).iter().zip(&t.special) {
        // Quoted, so that a token of spaces shows; the row's text is escaped already.
        let shown = match token.text {
            Some(_) => format!("\"{}\"", escape(&row.text)),
            None => row.text.clone(),
        };
        line(
            &mut o,
            &format!("{} token", row.role),
            &format!("{} {shown}", row.id_text),
        );
    }
    for (name, template) in &tokenizer::templates_in_order(&t.chat_templates) {
        o.push_str(&format!(
            "\nchat template {}:\n",
            tokenizer::template_label(name, template)
        ));
        for (number, text) in tokenizer::template_lines(template) {
            o.push_str(&format!("{number:>5}  {text}\n"));
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::parse_bytes;
    use crate::summary::tokenizer::tokenizer_info;
    use crate::view::cli::tests::clean;
    use crate::view::testutil::{gguf, Kv};

    #[test]
    fn facts_tokens_and_templates_are_the_cards() {
        let b = gguf(
            &[
                ("tokenizer.ggml.model", Kv::Str("gp\u{1b}t2")),
                (
                    "tokenizer.ggml.tokens",
                    Kv::StrArray(vec!["<s>".into(), " \u{202e}".into(), "x".into()]),
                ),
                ("tokenizer.ggml.bos_token_id", Kv::U32(1)),
                ("tokenizer.ggml.eos_token_id", Kv::U32(7)),
                ("tokenizer.chat_template.tool\u{7}", Kv::Str("t")),
                ("tokenizer.chat_template", Kv::Str("a\r\n\tb  \n")),
            ],
            &[],
        );
        let m = parse_bytes(&b).unwrap();
        let t = tokenizer_info(&m).unwrap();
        let out = text(&t);
        assert!(clean(&out), "{out:?}");
        let facts = tokenizer::fact_rows(&t);
        for (label, value) in &facts {
            assert!(
                out.contains(&format!("{label:<16} {value}\n")),
                "{label}: {out}"
            );
        }
        assert!(out.starts_with("model            gp\\u{1b}t2\n"), "{out}");
        assert!(out.contains("vocabulary       3 tokens\n"), "{out}");
        assert!(out.contains("bos token        1 \" \\u{202e}\"\n"), "{out}");
        assert!(
            out.contains("eos token        7 (past the vocabulary)\n"),
            "{out}"
        );
        // The default first, then the variant; numbered as the page numbers them.
        let want = "\nchat template default (3 lines):\n    1  a\\r\n    2  \tb  \n    3  \n\
                    \nchat template tool\\u{7} (1 line):\n    1  t\n";
        assert!(out.ends_with(want), "{out}");
    }
}
