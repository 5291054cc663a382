//! The summary as JSON, as the CLI's `--json` prints it: the [`Summary`] plus a `metadata`
//! array of `{key, type, value}` (arrays shortened to their first items).

use crate::format::Model;
use crate::summary::{display, Summary};

/// Pretty JSON of the summary and metadata, for the page's "Download JSON" button.
pub fn summary_json(m: &Model, s: &Summary) -> String {
    let mut v = serde_json::to_value(s).unwrap_or_default();
    v["metadata"] = m
        .metadata
        .iter()
        .map(|e| {
            serde_json::json!({
                "key": e.key,
                "type": e.value.value_type().name(),
                "value": display::value(&e.value, &m.bytes, 8, 4096),
            })
        })
        .collect();
    serde_json::to_string_pretty(&v).unwrap_or_default()
}

/// The download's file name: `model.gguf` → `model.gguf.weightpeek.json`, path separators and
/// control characters replaced.
pub fn json_file_name(name: &str) -> String {
    let clean: String = name
        .chars()
        .map(|c| {
            if c.is_control() || matches!(c, '/' | '\\' | ':') {
                '_'
            } else {
                c
            }
        })
        .collect();
    format!("{clean}.weightpeek.json")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::parse_bytes;
    use crate::summary::summarize;
    use crate::view::testutil::{gguf, Kv};

    #[test]
    fn json_has_the_summary_and_the_metadata() {
        let b = gguf(
            &[("general.architecture", Kv::Str("llama"))],
            &[("blk.0.attn_q.weight", 12, vec![256, 2], 288)],
        );
        let m = parse_bytes(&b).unwrap();
        let s = summarize(&m);
        let v: serde_json::Value = serde_json::from_str(&summary_json(&m, &s)).unwrap();
        assert_eq!(v["format"], "gguf");
        assert_eq!(v["tensor_count"], 1);
        assert_eq!(v["parameter_count"], 512);
        assert_eq!(v["metadata"][0]["key"], "general.architecture");
        assert_eq!(v["metadata"][0]["value"], "\"llama\"");
        assert_eq!(v["tensors"][0]["dtype"], "Q4_K");
    }

    #[test]
    fn file_names_are_safe() {
        assert_eq!(json_file_name("m.gguf"), "m.gguf.weightpeek.json");
        assert_eq!(
            json_file_name("a/b\\c:\n.gguf"),
            "a_b_c__.gguf.weightpeek.json"
        );
    }
}
