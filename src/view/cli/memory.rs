//! `--memory`: the memory card as text: its figures ([`memory::rows`]: architecture, context,
//! weights, KV cache, total, and the sliding-window split with its full-context upper bound),
//! the formula with the model's numbers, and the notes.

use crate::summary::memory::MemoryEstimate;
use crate::text::escape;
use crate::view::memory;

use super::{field, label_width};

/// The estimate.
pub fn text(e: &MemoryEstimate) -> String {
    let rows = memory::rows(e);
    let width = label_width(rows.iter().map(|(l, _)| l.as_str()), 0);
    let mut o =
        String::from("memory to run the model (weights + KV cache, as llama.cpp sizes it):\n");
    for (label, value) in &rows {
        field(&mut o, width, label, &escape(value));
    }
    o.push_str(&format!("  {}\n", escape(&e.formula)));
    for n in &e.notes {
        o.push_str(&format!("  note: {}\n", escape(n)));
    }
    o
}

/// Why there is no estimate, as the card says it (exit status 1).
pub fn no_estimate(why: &str) -> String {
    format!("{}\n", escape(&memory::no_estimate_text(why)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::parse_bytes;
    use crate::summary::memory::{estimate, KvType};
    use crate::text;
    use crate::view::cli::tests::clean;
    use crate::view::testutil::{gguf, Kv};

    fn gemma() -> crate::open::OpenedModel {
        let b = gguf(
            &[
                ("general.architecture", Kv::Str("gemma3")),
                ("gemma3.block_count", Kv::U32(12)),
                ("gemma3.embedding_length", Kv::U32(640)),
                ("gemma3.attention.head_count", Kv::U32(4)),
                ("gemma3.attention.head_count_kv", Kv::U32(1)),
                ("gemma3.attention.key_length", Kv::U32(256)),
                ("gemma3.attention.value_length", Kv::U32(256)),
                ("gemma3.attention.sliding_window", Kv::U32(512)),
                ("gemma3.context_length", Kv::U32(32768)),
            ],
            &[("t", 0, vec![1024], 4096)],
        );
        parse_bytes(&b).unwrap().into()
    }

    /// `  label  value` of the output, by label.
    fn value<'a>(out: &'a str, label: &str) -> Option<&'a str> {
        out.lines()
            .filter_map(|l| l.strip_prefix("  "))
            .find_map(|l| l.strip_prefix(label).filter(|r| r.starts_with(' ')))
            .map(str::trim_start)
    }

    #[test]
    fn the_lines_carry_the_estimates_figures() {
        let m = gemma();
        let e = estimate(&m, Some(8192), KvType::Q8_0).unwrap();
        let s = e.sliding_window.clone().unwrap();
        let out = text(&e);
        let exact = |n: u64| format!("{} ({} bytes)", text::bytes(n), text::thousands(n));
        assert_eq!(value(&out, "architecture"), Some("gemma3"));
        assert_eq!(value(&out, "context"), Some("8,192 tokens"));
        assert_eq!(value(&out, "weights"), Some(exact(4096).as_str()));
        assert_eq!(
            value(&out, "KV cache (q8_0)"),
            Some(exact(e.kv_bytes).as_str())
        );
        assert_eq!(value(&out, "total"), Some(exact(e.total_bytes).as_str()));
        assert_eq!(e.total_bytes, e.kv_bytes + 4096);
        // gemma3: every sixth layer full attention (2 of 12), the others at the window.
        assert_eq!((s.full_layers, s.swa_layers), (2, 10));
        assert_eq!(
            value(&out, "KV full attention"),
            Some(
                format!(
                    "2 × {} cells: {}",
                    text::thousands(e.cells),
                    exact(s.full_bytes)
                )
                .as_str()
            )
        );
        assert_eq!(
            value(&out, "KV sliding window"),
            Some(
                format!(
                    "10 × {} cells: {}",
                    text::thousands(s.cells),
                    exact(s.swa_bytes)
                )
                .as_str()
            )
        );
        assert_eq!(s.full_bytes + s.swa_bytes, e.kv_bytes);
        assert_eq!(
            value(&out, "KV upper bound"),
            Some(
                format!(
                    "{}: every layer at full context",
                    exact(e.kv_full_context_bytes)
                )
                .as_str()
            )
        );
        assert!(out.contains(&format!("  {}\n", e.formula)));
        for n in &e.notes {
            assert!(out.contains(&format!("  note: {n}\n")), "{n}");
        }
    }

    #[test]
    fn no_estimate_says_why_escaped() {
        let b = gguf(
            &[("general.architecture", Kv::Str("e\u{1b}vil\u{202e}"))],
            &[],
        );
        let m = crate::open::OpenedModel::from(parse_bytes(&b).unwrap());
        let why = estimate(&m, None, KvType::F16).unwrap_err().to_string();
        let out = no_estimate(&why);
        assert!(out.starts_with("no estimate"), "{out}");
        assert!(clean(&out), "{out:?}");
        assert_eq!(no_estimate("no estimate: x"), "no estimate: x\n");
    }
}
