//! Which token texts are special to llama.cpp (its end-of-generation list, the markers it
//! detects by text) and which merely look special: shared by the tokenizer findings and the
//! chat template's end-of-turn check.

/// Token texts llama.cpp treats as end of generation whatever their ids (its EOG list).
pub const EOG_TEXTS: &[&str] = &[
    "<|eot_id|>",
    "<|im_end|>",
    "<|end|>",
    "<|return|>",
    "<|call|>",
    "<|flush|>",
    "<|calls|>",
    "<end_of_turn>",
    "<|endoftext|>",
    "</s>",
    "<|eom_id|>",
    "<EOT>",
    "_<EOT>",
    "[EOT]",
    "[EOS]",
    "<|end_of_text|>",
    "<end_of_utterance>",
    "<eos>",
    "<turn|>",
    "<|tool_response>",
    "<｜end▁of▁sentence｜>",
    "[e~[",
];

/// Token texts llama.cpp detects by text as EOT, EOM or fill-in-the-middle markers when their
/// ids are not set, and types CONTROL (besides [`EOG_TEXTS`]).
const DETECTED_TEXTS: &[&str] = &[
    "<|fim_prefix|>",
    "<fim-prefix>",
    "<fim_prefix>",
    "<｜fim▁begin｜>",
    "<PRE>",
    "▁<PRE>",
    "<|code_prefix|>",
    "<|prefix|>",
    "<|fim_suffix|>",
    "<fim-suffix>",
    "<fim_suffix>",
    "<｜fim▁hole｜>",
    "<SUF>",
    "▁<SUF>",
    "<|code_suffix|>",
    "<|suffix|>",
    "<|fim_middle|>",
    "<fim-middle>",
    "<fim_middle>",
    "<｜fim▁end｜>",
    "<MID>",
    "▁<MID>",
    "<|code_middle|>",
    "<|middle|>",
    "<|fim_pad|>",
    "<fim-pad>",
    "<fim_pad>",
    "<PAD>",
    "[PAD]",
    "<|fim_repo|>",
    "<|repo_name|>",
    "<fim-repo>",
    "<REPO>",
    "<|file_sep|>",
];

/// Tokens llama.cpp types USER_DEFINED itself (gpt-oss): whatever the file says is fine.
pub const FORCED_USER_DEFINED: [&str; 4] =
    ["<|channel|>", "<|message|>", "<|start|>", "<|constrain|>"];

/// Whether a token's bytes can be a text [`expected_control`] or [`looks_special`] accepts:
/// they start with `<`, `[`, `_<` or `▁<` (every text of both lists does). Decides from the
/// first four bytes, so a scan skips ordinary tokens without decoding them.
pub fn may_be_special(b: &[u8]) -> bool {
    matches!(
        b,
        [b'<' | b'[', ..] | [b'_', b'<', ..] | [0xE2, 0x96, 0x81, b'<', ..]
    )
}

/// Whether llama.cpp expects `t` typed CONTROL (and overrides it when it is not).
pub fn expected_control(t: &str) -> bool {
    EOG_TEXTS.contains(&t) || DETECTED_TEXTS.contains(&t)
}

/// Whether `t` looks like a special token: `<|…|>`, `<｜…｜>`, `<start_of_…>`, `<end_of_…>`,
/// or `[INST]`-style (`[` + capitals, digits or `_`, optionally after `/`, + `]`).
pub fn looks_special(t: &str) -> bool {
    let inner = |a: &str, b: &str| {
        t.strip_prefix(a)
            .and_then(|r| r.strip_suffix(b))
            .is_some_and(|r| !r.is_empty() && !r.contains(char::is_whitespace))
    };
    if inner("<|", "|>") || inner("<｜", "｜>") {
        return true;
    }
    if (t.starts_with("<start_of_") || t.starts_with("<end_of_")) && t.ends_with('>') {
        return !t.contains(char::is_whitespace);
    }
    if let Some(r) = t.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        let r = r.strip_prefix('/').unwrap_or(r);
        return r.len() >= 3
            && r.starts_with(|c: char| c.is_ascii_uppercase())
            && r.chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_special_text_passes_the_first_byte_filter() {
        for t in EOG_TEXTS
            .iter()
            .chain(DETECTED_TEXTS)
            .chain(&FORCED_USER_DEFINED)
        {
            assert!(may_be_special(t.as_bytes()), "{t}");
        }
        for t in [
            "<|im_start|>",
            "<｜begin▁of▁sentence｜>",
            "<start_of_turn>",
            "[INST]",
            "[/INST]",
        ] {
            assert!(looks_special(t) && may_be_special(t.as_bytes()), "{t}");
        }
        for t in ["▁the", "_x", "hello", "", "▁", "\u{2581}[x"] {
            assert!(!may_be_special(t.as_bytes()), "{t}");
        }
    }
}
