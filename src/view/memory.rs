//! The memory card's text: the context box (parsed and clamped), the KV type choices, and the
//! figures of [`crate::summary::memory::estimate`] as rows with units and exact bytes.

use crate::format::{Model, Value};
use crate::open::OpenedModel;
use crate::summary::memory::{estimate, KvType, MemoryEstimate};
use crate::text;
use crate::view::node::{self, Node};

/// Largest context the box accepts (tokens); larger entries are clamped to it.
pub const MAX_CONTEXT: u64 = 16 * 1024 * 1024;

/// The KV types offered: (option value, label).
pub const KV_CHOICES: [(&str, &str); 3] = [
    ("f16", "f16 (2 bytes per value)"),
    ("q8_0", "q8_0 (34 bytes per 32 values)"),
    ("q4_0", "q4_0 (18 bytes per 32 values)"),
];

/// The model's own context length (`{arch}.context_length`), the box's default.
pub fn model_context(m: &Model) -> Option<u64> {
    let arch = m.get("general.architecture").and_then(Value::as_str)?;
    m.get(&format!("{arch}.context_length"))
        .and_then(Value::as_u64)
}

/// What the context box holds, as used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextInput {
    /// Tokens to estimate for; `None`: the model's own.
    pub tokens: Option<u64>,
    /// Said under the box when the entry was not used as typed.
    pub note: Option<String>,
    /// The entry is not a number at all (the model's own is used instead).
    pub invalid: bool,
}

impl ContextInput {
    /// The box's `aria-invalid`: `"true"` for an entry that is no number at all.
    pub fn aria_invalid(&self) -> &'static str {
        if self.invalid {
            "true"
        } else {
            "false"
        }
    }
}

/// Parses the context box: blank is the model's own; a whole number (`,`, `_` or spaces as
/// thousands separators), or a number with a `k` suffix for ×1024 (`8k` = 8,192, `1.5k` =
/// 1,536; a decimal point only with the suffix, so `8.192` is not read as 8,192) is clamped to
/// 1..=[`MAX_CONTEXT`]; anything else (`abc`, `-5`, `4096.5`) falls back to the model's own and
/// says so. `invalid` tells the box to mark itself (`aria-invalid`).
pub fn parse_context(s: &str) -> ContextInput {
    let t = s.trim();
    if t.is_empty() {
        return ContextInput {
            tokens: None,
            note: None,
            invalid: false,
        };
    }
    let not_a_number = || ContextInput {
        tokens: None,
        note: Some(format!(
            "“{}” is not a whole number of tokens (e.g. 4096, 32,768 or 8k); using the model's own",
            text::escape(t)
        )),
        invalid: true,
    };
    let (number, k) = match t.strip_suffix(['k', 'K']) {
        Some(d) => (d.trim_end(), true),
        None => (t, false),
    };
    let clean: String = number
        .chars()
        .filter(|c| !matches!(c, ',' | '_' | ' '))
        .collect();
    let (whole, frac) = clean.split_once('.').unwrap_or((&clean, ""));
    let digits = |x: &str| x.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || !digits(whole) || !digits(frac) || (!k && clean.contains('.')) {
        return not_a_number();
    }
    // Exact in integers: whole × 1024 + frac × 1024 / 10^len (a fraction of a token rounds
    // down), saturating past any context the box accepts.
    let n = if k {
        let w = whole
            .parse::<u64>()
            .map_or(u64::MAX, |w| w.saturating_mul(1024));
        let f = frac.get(..frac.len().min(6)).unwrap_or("");
        let fv = if f.is_empty() {
            0
        } else {
            f.parse::<u64>().unwrap_or(0)
        };
        w.saturating_add(fv * 1024 / 10u64.pow(f.len() as u32))
    } else {
        whole.parse::<u64>().unwrap_or(u64::MAX)
    };
    let clamped = n.clamp(1, MAX_CONTEXT);
    let note = (clamped != n).then(|| {
        format!(
            "clamped to {} (1 to {})",
            tokens_text(clamped),
            text::thousands(MAX_CONTEXT)
        )
    });
    ContextInput {
        tokens: Some(clamped),
        note,
        invalid: false,
    }
}

/// `1 token`, `4,096 tokens`.
pub fn tokens_text(n: u64) -> String {
    format!(
        "{} token{}",
        text::thousands(n),
        if n == 1 { "" } else { "s" }
    )
}

/// A size with its unit and the exact bytes: `1.23 MiB (1,289,748 bytes)`.
pub fn bytes_text(n: u64) -> String {
    format!("{} ({} bytes)", text::bytes(n), text::thousands(n))
}

/// The figures: (label, value). The first five are always architecture, context, weights, KV
/// cache and total; a sliding-window split adds its two parts and the full-context upper bound
/// (labels kept short: the figures' label column is as wide as the longest label).
pub fn rows(e: &MemoryEstimate) -> Vec<(String, String)> {
    let context = if e.cells == e.context {
        tokens_text(e.context)
    } else {
        format!(
            "{} ({} cells)",
            tokens_text(e.context),
            text::thousands(e.cells)
        )
    };
    let mut r = vec![
        ("architecture".into(), text::escape(&e.architecture)),
        ("context".into(), context),
        ("weights".into(), bytes_text(e.weights_bytes)),
        (
            format!("KV cache ({})", e.kv_type.name()),
            bytes_text(e.kv_bytes),
        ),
        ("total".into(), bytes_text(e.total_bytes)),
    ];
    if let Some(s) = &e.sliding_window {
        let part = |n: u64, cells: u64, bytes: u64| {
            format!(
                "{n} × {} cells: {}",
                text::thousands(cells),
                bytes_text(bytes)
            )
        };
        r.push((
            "KV full attention".into(),
            part(s.full_layers, e.cells, s.full_bytes),
        ));
        r.push((
            format!(
                "KV {}",
                if s.chunked {
                    "chunked"
                } else {
                    "sliding window"
                }
            ),
            part(s.swa_layers, s.cells, s.swa_bytes),
        ));
        r.push((
            "KV upper bound".into(),
            format!(
                "{}: every layer at full context",
                bytes_text(e.kv_full_context_bytes)
            ),
        ));
    }
    r
}

/// The text shown when there is no estimate: the reason, starting "no estimate".
pub fn no_estimate_text(why: &str) -> String {
    if why.starts_with("no estimate") || why.starts_with("no KV estimate") {
        why.to_string()
    } else {
        format!("no estimate: {why}")
    }
}

/// The card's frame (`data-testid="memory"`): the context box (`data-testid="memory-context"`,
/// its value and placeholder the model's own `context` if known), the KV type select
/// (`data-testid="memory-kv"`, one option per [`KV_CHOICES`]), a hidden note for the context
/// box, and the empty `div.memory-out` that [`output`] fills.
pub fn card(context: Option<u64>) -> Node {
    let mut input = node::el("input", "")
        .attr("type", "text")
        .attr("inputmode", "numeric")
        .attr("class", "filter ctx-input")
        .testid("memory-context")
        .attr("aria-label", "context length in tokens")
        .attr(
            "title",
            "tokens of context; blank: the model's own; 8k = 8192",
        );
    if let Some(c) = context {
        let c = c.to_string();
        input = input.attr("value", c.as_str()).attr("placeholder", c);
    }
    let select = node::el("select", "")
        .attr("class", "select")
        .testid("memory-kv")
        .children(
            KV_CHOICES
                .iter()
                .map(|(v, label)| node::text("option", "", label).attr("value", *v)),
        );
    let form = node::el("div", "memory-form")
        .child(
            node::el("label", "field")
                .child(node::text("span", "muted", "context (tokens)"))
                .child(input),
        )
        .child(
            node::el("label", "field")
                .child(node::text("span", "muted", "KV cache type"))
                .child(select),
        );
    let mut card = node::card("Memory to run", "memory").testid("memory");
    let body = card.body();
    body.push(form);
    body.push(node::el("p", "note warn").attr("hidden", ""));
    body.push(node::el("div", "memory-out"));
    card
}

/// What `div.memory-out` holds for an estimate: the figures of [`rows`] (the total marked),
/// the formula and the notes; or the reason there is none ([`no_estimate_text`]).
pub fn output<E: std::fmt::Display>(estimate: &Result<MemoryEstimate, E>) -> Vec<Node> {
    match estimate {
        Ok(e) => {
            let mut dl = node::el("dl", "kv memory-figures");
            for (k, v) in rows(e) {
                let class = if k == "total" { "total" } else { "" };
                dl.push(node::text("dt", "", &k));
                dl.push(node::text("dd", class, &v));
            }
            vec![
                dl,
                node::text("p", "mono formula", &e.formula),
                node::el("ul", "notes")
                    .children(e.notes.iter().map(|n| node::text("li", "note", n))),
            ]
        }
        Err(why) => vec![node::text(
            "p",
            "no-estimate",
            &no_estimate_text(&why.to_string()),
        )],
    }
}

/// The card's `data-*` figures for an estimate, in the order set: `Some(value)` sets one,
/// `None` removes it. An estimate sets `data-kv-bytes`, `data-total-bytes`,
/// `data-weights-bytes`, `data-context` (tokens) and `data-kv-full-bytes` and removes
/// `data-no-estimate`; none removes them and sets `data-no-estimate=""`.
pub fn estimate_attrs<E>(
    estimate: &Result<MemoryEstimate, E>,
) -> Vec<(&'static str, Option<String>)> {
    let figures = |e: Option<&MemoryEstimate>| {
        let n = |f: fn(&MemoryEstimate) -> u64| e.map(|e| f(e).to_string());
        vec![
            ("data-kv-bytes", n(|e| e.kv_bytes)),
            ("data-total-bytes", n(|e| e.total_bytes)),
            ("data-weights-bytes", n(|e| e.weights_bytes)),
            ("data-context", n(|e| e.context)),
            ("data-kv-full-bytes", n(|e| e.kv_full_context_bytes)),
        ]
    };
    let mut out = figures(estimate.as_ref().ok());
    out.push(("data-no-estimate", estimate.is_err().then(String::new)));
    out
}

/// What the card shows for what its inputs hold ([`Shown::of`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Shown {
    /// Said under the context box (hidden when `None`): an entry not used as typed.
    pub note: Option<String>,
    /// The context box's `aria-invalid` ([`ContextInput::aria_invalid`]).
    pub aria_invalid: &'static str,
    /// The card's `data-*` figures ([`estimate_attrs`]).
    pub attrs: Vec<(&'static str, Option<String>)>,
    /// What `div.memory-out` holds ([`output`]).
    pub output: Vec<Node>,
}

impl Shown {
    /// The card of `model` when the context box holds `context` ([`parse_context`]) and the
    /// KV select `kv` (an option value of [`KV_CHOICES`]; f16 for anything else).
    pub fn of(model: &OpenedModel, context: &str, kv: &str) -> Shown {
        let ctx = parse_context(context);
        let kv = KvType::parse(kv).unwrap_or(KvType::F16);
        let e = estimate(model, ctx.tokens, kv);
        Shown {
            aria_invalid: ctx.aria_invalid(),
            note: ctx.note,
            attrs: estimate_attrs(&e),
            output: output(&e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_entry_that_is_no_number_marks_the_box() {
        assert_eq!(parse_context("banana").aria_invalid(), "true");
        assert_eq!(parse_context("8k").aria_invalid(), "false");
        assert_eq!(parse_context("").aria_invalid(), "false");
    }
    use crate::source::parse_bytes;
    use crate::view::testutil::{gguf, tiny_llama, Kv};

    #[test]
    fn context_box() {
        assert_eq!(parse_context("  ").tokens, None);
        assert_eq!(parse_context("4096").tokens, Some(4096));
        assert_eq!(parse_context("32,768").tokens, Some(32_768));
        assert_eq!(parse_context("8k").tokens, Some(8192));
        assert_eq!(parse_context("1 000 000").tokens, Some(1_000_000));
        let zero = parse_context("0");
        assert_eq!(zero.tokens, Some(1));
        assert!(zero.note.unwrap().starts_with("clamped to 1 token (1 to"));
        let huge = parse_context("99999999999999999999999");
        assert_eq!(huge.tokens, Some(MAX_CONTEXT));
        assert!(huge.note.unwrap().contains("16,777,216"));
        let bad = parse_context("-5");
        assert_eq!(bad.tokens, None);
        assert!(bad.invalid && bad.note.unwrap().contains("not a whole number"));
        assert_eq!(parse_context("abc").tokens, None);
        assert!(parse_context("4096").note.is_none());
        // A decimal point only with the k suffix (not a thousands separator).
        assert_eq!(parse_context("1.5k").tokens, Some(1536));
        assert_eq!(parse_context("0.5K").tokens, Some(512));
        assert_eq!(parse_context("2.25 k").tokens, Some(2304));
        assert_eq!(parse_context("1.0001k").tokens, Some(1024));
        for wrong in [
            "4096.5",
            "8.192",
            "1.5.2k",
            ".5k",
            "k",
            "1m",
            "１０２４",
            "4096 tokens",
        ] {
            let c = parse_context(wrong);
            assert_eq!(c.tokens, None, "{wrong}");
            assert!(c.invalid, "{wrong}");
        }
        assert_eq!(parse_context("99999999999k").tokens, Some(MAX_CONTEXT));
        assert_eq!(parse_context("1.99999999999999999999k").tokens, Some(2047));
    }

    #[test]
    fn rows_and_reasons() {
        let b = tiny_llama();
        let m = crate::open::OpenedModel::from(parse_bytes(&b).unwrap());
        assert_eq!(model_context(&m), Some(100));
        let e = estimate(&m, None, KvType::Q8_0).unwrap();
        let r = rows(&e);
        assert_eq!(r[1].1, "100 tokens (256 cells)");
        let a = estimate_attrs::<String>(&Ok(e.clone()));
        assert_eq!(a[1], ("data-total-bytes", Some(e.total_bytes.to_string())));
        assert_eq!(a[3], ("data-context", Some("100".to_string())));
        assert_eq!(a[5], ("data-no-estimate", None));
        let none = estimate_attrs::<String>(&Err("x".into()));
        assert!(none[..5].iter().all(|(_, v)| v.is_none()));
        assert_eq!(none[5], ("data-no-estimate", Some(String::new())));
        // The CLI's --ctx 0 (the box clamps to 1): no estimate, not a 0-byte cache.
        assert!(estimate(&m, Some(0), KvType::F16)
            .unwrap_err()
            .to_string()
            .contains("0 tokens"));
        assert_eq!(r.len(), 5);
        assert_eq!(tokens_text(1), "1 token");
        assert_eq!(r[3].0, "KV cache (q8_0)");
        assert_eq!(
            r[3].1,
            format!(
                "{} ({} bytes)",
                text::bytes(e.kv_bytes),
                text::thousands(e.kv_bytes)
            )
        );
        assert_eq!(r[4].1, bytes_text(e.total_bytes));
        assert_eq!(
            no_estimate_text("no general.architecture key"),
            "no estimate: no general.architecture key"
        );
        assert_eq!(no_estimate_text("no estimate: x"), "no estimate: x");
        for (v, _) in KV_CHOICES {
            assert!(KvType::parse(v).is_some());
        }
    }

    #[test]
    fn sliding_window_rows() {
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
            &[("t", 0, vec![8], 0)],
        );
        let m = crate::open::OpenedModel::from(parse_bytes(&b).unwrap());
        let e = estimate(&m, None, KvType::F16).unwrap();
        let s = e.sliding_window.clone().unwrap();
        let r = rows(&e);
        assert_eq!(r[1].1, "32,768 tokens");
        assert_eq!(r[4].0, "total");
        assert_eq!(r[5].0, "KV full attention");
        assert_eq!(
            r[5].1,
            format!("2 × 32,768 cells: {}", bytes_text(s.full_bytes))
        );
        assert_eq!(r[6].0, "KV sliding window");
        assert_eq!(
            r[6].1,
            format!("10 × 1,024 cells: {}", bytes_text(s.swa_bytes))
        );
        assert_eq!(r[7].0, "KV upper bound");
        assert_eq!(
            r[7].1,
            format!(
                "{}: every layer at full context",
                bytes_text(e.kv_full_context_bytes)
            )
        );
        assert!(e.kv_full_context_bytes > e.kv_bytes);
    }

    #[test]
    fn the_card_of_the_sample() {
        let m = crate::open::OpenedModel::from(
            parse_bytes(include_bytes!("../../www/sample.gguf")).unwrap(),
        );
        let ctx = model_context(&m);
        let c = card(ctx);
        assert_eq!(c.class, "card memory");
        assert_eq!(c.get_attr("data-testid"), Some("memory"));
        let input = c.find_testid("memory-context").unwrap();
        assert_eq!(input.tag, "input");
        assert_eq!(input.get_attr("class"), Some("filter ctx-input"));
        assert_eq!(
            input.get_attr("placeholder").map(str::to_string),
            ctx.map(|c| c.to_string())
        );
        let kv = c.find_testid("memory-kv").unwrap();
        assert_eq!(kv.children.len(), KV_CHOICES.len());
        assert_eq!(kv.children[0].get_attr("value"), Some(KV_CHOICES[0].0));
        assert_eq!(kv.children[0].text.as_deref(), Some(KV_CHOICES[0].1));
        let note = &c.find_class("warn")[0];
        assert_eq!(note.get_attr("hidden"), Some(""));
        assert!(c.find_class("memory-out")[0].children.is_empty());

        // The sample (BERT) has no KV cache: the reason, as the card says it.
        let bert = output(&estimate(&m, None, KvType::F16));
        assert_eq!(bert.len(), 1);
        assert_eq!(bert[0].class, "no-estimate");
        assert!(bert[0].text.as_deref().unwrap().starts_with("no "));

        let llama = tiny_llama();
        let m = crate::open::OpenedModel::from(parse_bytes(&llama).unwrap());
        let c = card(model_context(&m));
        let input = c.find_testid("memory-context").unwrap();
        assert_eq!(input.get_attr("value"), Some("100"));
        assert_eq!(input.get_attr("placeholder"), Some("100"));
        let e = estimate(&m, None, KvType::F16);
        let out = output(&e);
        let e = e.unwrap();
        let want = rows(&e);
        assert_eq!(out[0].class, "kv memory-figures");
        assert_eq!(out[0].children.len(), 2 * want.len());
        assert_eq!(out[0].children[2].text, Some(want[1].0.clone()));
        assert_eq!(
            out[0].children[3].text.as_deref(),
            Some("100 tokens (256 cells)")
        );
        let total = out[0].children.iter().find(|n| n.class == "total").unwrap();
        let i = want.iter().position(|(k, _)| k == "total").unwrap();
        assert_eq!(total.text, Some(want[i].1.clone()));
        assert_eq!(out[1].text, Some(e.formula.clone()));
        assert_eq!(out[2].children.len(), e.notes.len());
        assert_eq!(out[2].children[0].text, Some(e.notes[0].clone()));
        // The card as its inputs say: the box's entry, the KV type (f16 for an unknown one).
        let typed = Shown::of(&m, "abc", "q9");
        assert_eq!(typed.aria_invalid, "true");
        assert_eq!(typed.note, parse_context("abc").note);
        assert!(typed.note.is_some());
        assert_eq!(typed.output, out);
        assert_eq!(typed.attrs, estimate_attrs(&Ok::<_, String>(e.clone())));
        let q8 = Shown::of(&m, "8k", "q8_0");
        let e8 = estimate(&m, Some(8192), KvType::Q8_0);
        assert_eq!((q8.note, q8.aria_invalid), (None, "false"));
        assert_eq!(q8.output, output(&e8));
        assert_eq!(q8.attrs[3], ("data-context", Some("8192".to_string())));
        let none = output(&Err::<MemoryEstimate, _>("no block count"));
        assert_eq!(none[0].text.as_deref(), Some("no estimate: no block count"));
        assert_eq!(none[0].class, "no-estimate");
    }
}
