//! Plain-text renderings of metadata values and numbers, shared by the CLI and the page.
//!
//! Everything here returns text; the page inserts it as text nodes, never as HTML.

use crate::format::{ArrayRef, Value};

/// Renders a scalar or a whole short string. Control characters (including a trailing NUL) are
/// made visible as `\0`, `\n`, `\u{1b}` so they cannot hide in a table cell.
pub fn scalar(v: &Value) -> String {
    match v {
        Value::U8(x) => x.to_string(),
        Value::I8(x) => x.to_string(),
        Value::U16(x) => x.to_string(),
        Value::I16(x) => x.to_string(),
        Value::U32(x) => x.to_string(),
        Value::I32(x) => x.to_string(),
        Value::U64(x) => x.to_string(),
        Value::I64(x) => x.to_string(),
        Value::F32(x) => format_f32(*x),
        Value::F64(x) => format_float(*x),
        Value::Bool(b) => b.to_string(),
        Value::String(t) => quote(&t.text),
        Value::Array(a) => format!("[{} × {}]", a.elem.name(), a.len),
    }
}

/// `text` trimmed, or `None` when nothing is left (a blank option, an empty token box).
pub fn nonblank(text: &str) -> Option<String> {
    let t = text.trim();
    (!t.is_empty()).then(|| t.to_string())
}

/// Shortest rendering that round-trips to the same `f32` (`1e-6` stored as f32 prints `0.000001`).
pub fn format_f32(x: f32) -> String {
    if x.is_finite() {
        format!("{x}")
    } else {
        format_float(f64::from(x))
    }
}

/// Shortest round-tripping rendering of a float (`1e-6`, `10000`, `NaN`).
pub fn format_float(x: f64) -> String {
    if x.is_nan() {
        "NaN".into()
    } else if x.is_infinite() {
        if x > 0.0 { "inf" } else { "-inf" }.into()
    } else {
        format!("{x}")
    }
}

/// Quotes a string, escaping control characters.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    out.push_str(&escape(s));
    out.push('"');
    out
}

/// Unicode bidirectional formatting characters (LRM, RLM, the embeddings and overrides
/// U+202A–U+202E, the isolates U+2066–U+2069, ALM): in a name they can make text display in
/// another order than it is stored (a file name spoof), so they are shown escaped.
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{200e}' | '\u{200f}' | '\u{061c}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Escapes control and bidi formatting characters so they are visible (`\0`, `\n`, `\t`,
/// `\u{202e}`).
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '\0' => out.push_str("\\0"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() || is_bidi_control(c) => {
                out.push_str(&format!("\\u{{{:x}}}", c as u32))
            }
            c => out.push(c),
        }
    }
    out
}

/// Renders an array as `STRING × 262144: "<pad>", "<eos>", …` with at most `items` elements.
/// `bytes` are the model's header bytes.
pub fn array(a: &ArrayRef, bytes: &[u8], items: u64) -> String {
    let mut out = format!("{} × {}", a.elem.name(), a.len);
    if a.len == 0 {
        return out;
    }
    match a.values(bytes, 0, items) {
        Ok(vals) => {
            out.push_str(": ");
            let parts: Vec<String> = vals.iter().map(scalar).collect();
            out.push_str(&parts.join(", "));
            if a.len > items {
                out.push_str(", …");
            }
        }
        Err(e) => out.push_str(&format!(" (cannot decode: {e})")),
    }
    out
}

/// Renders any value: scalars whole, strings up to `max_chars` characters, arrays with
/// `items` elements.
pub fn value(v: &Value, bytes: &[u8], items: u64, max_chars: usize) -> String {
    match v {
        Value::Array(a) => array(a, bytes, items),
        Value::String(t) if t.text.chars().count() > max_chars => {
            let cut: String = t.text.chars().take(max_chars).collect();
            format!("\"{}…\" ({} chars)", escape(&cut), t.text.chars().count())
        }
        other => scalar(other),
    }
}

/// A value as typed JSON for exports: numbers as numbers (non-finite floats as the strings
/// `"NaN"`, `"inf"`, `"-inf"`), strings as they are stored (lossy UTF-8), arrays as
/// `{"elem_type", "count", "head": [first `items` elements]}`.
pub fn to_json(v: &Value, bytes: &[u8], items: u64) -> serde_json::Value {
    use serde_json::json;
    let float = |x: f64| {
        if x.is_finite() {
            json!(x)
        } else {
            json!(format_float(x))
        }
    };
    match v {
        Value::U8(x) => json!(x),
        Value::I8(x) => json!(x),
        Value::U16(x) => json!(x),
        Value::I16(x) => json!(x),
        Value::U32(x) => json!(x),
        Value::I32(x) => json!(x),
        Value::U64(x) => json!(x),
        Value::I64(x) => json!(x),
        Value::F32(x) => float(f64::from(*x)),
        Value::F64(x) => float(*x),
        Value::Bool(b) => json!(b),
        Value::String(t) => json!(t.text),
        Value::Array(a) => {
            let head: Vec<serde_json::Value> = a
                .values(bytes, 0, items)
                .unwrap_or_default()
                .iter()
                .map(|x| to_json(x, bytes, items))
                .collect();
            json!({"elem_type": a.elem.name(), "count": a.len, "head": head})
        }
    }
}

/// Formats an integer with thousands separators: `1234567` → `1,234,567`.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// Formats a byte count with a binary unit: `253113024` → `241.4 MiB`.
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

/// Formats a parameter count the way model cards do: `268098176` → `268.1 M`.
pub fn params(n: u64) -> String {
    let v = n as f64;
    if v >= 1e12 {
        format!("{:.2} T", v / 1e12)
    } else if v >= 1e9 {
        format!("{:.2} B", v / 1e9)
    } else if v >= 1e6 {
        format!("{:.1} M", v / 1e6)
    } else if v >= 1e3 {
        format!("{:.1} K", v / 1e3)
    } else {
        n.to_string()
    }
}

/// Sorted, distinct numbers (layer indices) written as runs: `0–3, 5, 7–9`.
pub fn runs(sorted: &[u64]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let start = sorted[i];
        let mut end = start;
        while i + 1 < sorted.len() && sorted[i + 1] == end.saturating_add(1) {
            i += 1;
            end = sorted[i];
        }
        out.push(if end == start {
            start.to_string()
        } else {
            format!("{start}–{end}")
        });
        i += 1;
    }
    out.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_like_a_person_writes_them() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(bytes(253113024), "241.4 MiB");
        assert_eq!(bytes(512), "512 B");
        assert_eq!(params(268098176), "268.1 M");
        assert_eq!(escape("a\0b\u{1b}"), "a\\0b\\u{1b}");
        assert_eq!(escape("blk.0.\u{202e}thgiew"), "blk.0.\\u{202e}thgiew");
        assert_eq!(format_float(1e-6), "0.000001");
    }

    #[test]
    fn runs_collapse_consecutive_numbers() {
        assert_eq!(runs(&[0, 1, 2, 3, 5, 7, 8, 9]), "0–3, 5, 7–9");
        assert_eq!(runs(&[4]), "4");
        assert_eq!(runs(&[]), "");
    }
}
