//! Exports of one model, shared by the page's download buttons and the CLI: the summary as JSON
//! (`--json`: the [`Summary`] plus a `metadata` array of `{key, type, value}` with typed values,
//! arrays as their element type, count and first items), the tensor table as CSV (`--csv`,
//! text escaped, formulas neutralised, RFC 4180 quoting), and a Markdown report (`--markdown`:
//! summary, dtype table, per-layer map).

use crate::format::Model;
use crate::open::OpenedModel;
use crate::summary::Summary;
use crate::text;
use crate::view::node::{self, Node};

/// The `metadata` array of the JSON export: keys containing `query` (ignoring case; empty = all).
pub fn metadata_json(m: &Model, query: &str) -> serde_json::Value {
    let q = query.to_lowercase();
    m.metadata
        .iter()
        .filter(|e| q.is_empty() || e.key.to_lowercase().contains(&q))
        .map(|e| {
            serde_json::json!({
                "key": e.key,
                "type": e.value.value_type().name(),
                "value": text::to_json(&e.value, &m.bytes, 8),
            })
        })
        .collect()
}

/// Pretty JSON of the summary and all metadata (the page's "Download JSON", the CLI's `--json`).
pub fn summary_json(m: &Model, s: &Summary) -> String {
    summary_json_filtered(m, s, "")
}

/// [`summary_json`] with the metadata filtered by `query` (the summary's tensors are filtered by
/// the caller).
pub fn summary_json_filtered(m: &Model, s: &Summary, query: &str) -> String {
    let mut v = serde_json::to_value(s).unwrap_or_default();
    v["metadata"] = metadata_json(m, query);
    serde_json::to_string_pretty(&v).unwrap_or_default()
}

/// A text cell of the CSV: the file's text escaped as in every other output
/// ([`text::escape`]: control and bidi-override characters made visible, so no terminal
/// escape reaches `weightpeek FILE --csv`), a leading `'` when the text starts with `=`, `+`,
/// `-`, `@`, TAB or CR (a spreadsheet would read it as a formula; OWASP's CSV-injection advice),
/// then RFC 4180 quoting.
fn csv_text(s: &str) -> String {
    let mut cell = text::escape(s);
    if s.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        cell.insert(0, '\'');
    }
    if cell.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", cell.replace('"', "\"\""))
    } else {
        cell
    }
}

/// The tensor table as CSV: `name,type,shape,elements,bytes,offset,part` (shape as written in
/// the file, dimensions joined by `x`; empty cells for unknown values). The text cells (name,
/// type) are escaped and guarded against formulas (`csv_text`); RFC 4180 quoting.
pub fn tensors_csv(s: &Summary) -> String {
    let mut out = String::from("name,type,shape,elements,bytes,offset,part\r\n");
    for t in &s.tensors {
        let shape: Vec<String> = t.shape.iter().map(u64::to_string).collect();
        let row = [
            csv_text(&t.name),
            csv_text(&t.dtype),
            shape.join("x"),
            t.elements.map(|e| e.to_string()).unwrap_or_default(),
            t.bytes.map(|b| b.to_string()).unwrap_or_default(),
            t.offset.to_string(),
            t.part.map(|p| p.to_string()).unwrap_or_default(),
        ];
        out.push_str(&row.join(","));
        out.push_str("\r\n");
    }
    out
}

fn md_cell(s: &str) -> String {
    text::escape(s).replace('|', "\\|")
}

/// Ranges of consecutive layer numbers: `[0, 1, 2, 5, 7, 8]` → `0–2, 5, 7–8`.
pub fn layer_ranges(layers: &[u64]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < layers.len() {
        let start = layers[i];
        let mut end = start;
        while i + 1 < layers.len() && layers[i + 1] == end + 1 {
            i += 1;
            end = layers[i];
        }
        parts.push(if start == end {
            start.to_string()
        } else {
            format!("{start}–{end}")
        });
        i += 1;
    }
    parts.join(", ")
}

/// A Markdown report: the summary figures, the architecture, the dtype table and the per-layer
/// quantisation map (each role with the layers of each type). Text from the file is escaped
/// (control characters made visible, `|` escaped in tables).
pub fn markdown(name: &str, s: &Summary, m: &OpenedModel) -> String {
    let mut o = format!("# {}\n\n", md_cell(name));
    o.push_str("| | |\n|---|---|\n");
    // The summary card's figures, in its words (a set, a part alone, quantisation included).
    for f in crate::view::facts::summary_facts(s, m) {
        let v = match &f.detail {
            Some(d) => format!("{} · {d}", f.text),
            None => f.text.clone(),
        };
        o.push_str(&format!("| {} | {} |\n", f.label, md_cell(&v)));
    }
    if let Some(a) = &s.architecture {
        o.push_str(&format!(
            "\n## Architecture: {}\n\n| | |\n|---|---|\n",
            md_cell(&a.architecture)
        ));
        if let Some(ft) = &a.file_type {
            o.push_str(&format!("| file type | {} |\n", md_cell(ft)));
        }
        for r in &a.rows {
            o.push_str(&format!("| {} | {} |\n", r.label, md_cell(&r.value)));
        }
    }
    if let Some(q) = &s.quantization {
        o.push_str("\n## Quantisation\n\nLogical parameters: packed weights unpacked; scales, zero points and other companion tensors count as bytes, not parameters.\n\n| scheme | weights | logical parameters | bytes | bits per weight |\n|---|---:|---:|---:|---:|\n");
        for r in &q.schemes {
            o.push_str(&format!(
                "| {} | {} | {} | {} | {} |\n",
                md_cell(&r.label),
                text::thousands(r.weights),
                text::thousands(r.elements),
                text::bytes(r.bytes),
                r.bits_per_weight.map_or("–".into(), |b| format!("{b:.3}"))
            ));
        }
    }
    o.push_str("\n## Types\n\n| type | tensors | elements | bytes | bits per weight |\n|---|---:|---:|---:|---:|\n");
    for d in &s.dtypes {
        o.push_str(&format!(
            "| {} | {} | {} | {} | {} |\n",
            md_cell(&d.dtype),
            text::thousands(d.tensors),
            text::thousands(d.elements),
            text::bytes(d.bytes),
            d.bits_per_weight.map_or("–".into(), |b| format!("{b:.3}"))
        ));
    }
    if !s.layers.roles.is_empty() {
        o.push_str("\n## Quantisation by layer\n\n| role | types (layers) |\n|---|---|\n");
        for r in &s.layers.roles {
            let types: Vec<String> = r
                .types
                .iter()
                .map(|t| format!("{} ({})", md_cell(&t.dtype), layer_ranges(&t.layers)))
                .collect();
            o.push_str(&format!(
                "| {} | {} |\n",
                md_cell(&r.role),
                types.join("; ")
            ));
        }
    }
    if !s.findings.is_empty() {
        o.push_str("\n## Checks\n\n");
        for f in &s.findings {
            let sev = match f.severity {
                crate::check::Severity::Error => "**error**",
                other => other.word(),
            };
            o.push_str(&format!("- {sev}: {}\n", md_cell(&f.message)));
        }
    }
    o
}

/// The download's file name: `model.gguf` → `model.gguf.weightpeek.json`, path separators and
/// control characters replaced.
pub fn json_file_name(name: &str) -> String {
    export_file_name(name, "json")
}

/// The CSV download's name: `model.gguf` → `model.gguf.weightpeek.csv` (as [`json_file_name`]).
pub fn csv_file_name(name: &str) -> String {
    export_file_name(name, "csv")
}

/// The Markdown download's name: `model.gguf` → `model.gguf.weightpeek.md`.
pub fn markdown_file_name(name: &str) -> String {
    export_file_name(name, "md")
}

fn export_file_name(name: &str, ext: &str) -> String {
    // A set's display name ends with its count (`x-00001-of-00003.gguf (3 parts)`, `… (2 of
    // 3 files)`): the file is named after the first file alone.
    let name = match name.rsplit_once(" (") {
        Some((first, count)) if count.ends_with(" parts)") || count.ends_with(" files)") => first,
        _ => name,
    };
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
    format!("{clean}.weightpeek.{ext}")
}

/// What a download button of the summary card exports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The summary and metadata as JSON.
    Json,
    /// The tensor table as CSV.
    Csv,
    /// The Markdown report.
    Markdown,
}

impl Kind {
    /// Every kind, in the order of the summary card's buttons.
    pub const ALL: [Kind; 3] = [Kind::Json, Kind::Csv, Kind::Markdown];

    /// The export's name in the element's `weightpeek-need-full` event and
    /// `Widget::export` (`json`, `csv`, `markdown`).
    pub fn name(self) -> &'static str {
        match self {
            Kind::Json => "json",
            Kind::Csv => "csv",
            Kind::Markdown => "markdown",
        }
    }

    /// The kind named `name` ([`Kind::name`]).
    pub fn parse(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The file's media type (`application/json`, `text/csv`, `text/markdown`).
    pub fn media_type(self) -> &'static str {
        match self {
            Kind::Json => "application/json",
            Kind::Csv => "text/csv",
            Kind::Markdown => "text/markdown",
        }
    }

    /// The download's file name for a model shown as `name` (`<name>.weightpeek.<ext>`).
    pub fn file_name(self, name: &str) -> String {
        match self {
            Kind::Json => json_file_name(name),
            Kind::Csv => csv_file_name(name),
            Kind::Markdown => markdown_file_name(name),
        }
    }

    /// The file's text for model `m` shown as `name` (as the CLI's `--json`, `--csv`,
    /// `--markdown` print it).
    pub fn text(self, name: &str, m: &OpenedModel) -> String {
        let s = crate::summary::summarize(m);
        match self {
            Kind::Json => summary_json(m, &s),
            Kind::Csv => tensors_csv(&s),
            Kind::Markdown => markdown(name, &s, m),
        }
    }

    /// The button (`button.button.small`, `data-testid` `export-json` / `-csv` / `-markdown`,
    /// its tooltip naming the CLI option that prints the same file).
    pub fn button(self) -> Node {
        let (label, tip, testid) = match self {
            Kind::Json => (
                "Download JSON",
                "the summary, metadata and tensor list, as `weightpeek --json` prints them",
                "export-json",
            ),
            Kind::Csv => (
                "Download CSV",
                "the tensor table as CSV, as `weightpeek --csv` prints it",
                "export-csv",
            ),
            Kind::Markdown => (
                "Download Markdown",
                "a Markdown report (summary, types, per-layer map), as `weightpeek --markdown` prints it",
                "export-markdown",
            ),
        };
        node::text("button", "button small", label)
            .attr("type", "button")
            .attr("title", tip)
            .testid(testid)
    }
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
        let m = crate::open::OpenedModel::from(parse_bytes(&b).unwrap());
        let s = summarize(&m);
        let v: serde_json::Value = serde_json::from_str(&summary_json(&m, &s)).unwrap();
        assert_eq!(v["format"], "gguf");
        assert_eq!(v["tensor_count"], 1);
        assert_eq!(v["parameter_count"], 512);
        assert_eq!(v["metadata"][0]["key"], "general.architecture");
        assert_eq!(v["metadata"][0]["value"], "llama");
        assert_eq!(v["tensors"][0]["dtype"], "Q4_K");
    }

    #[test]
    fn csv_and_markdown() {
        let b = gguf(
            &[("general.architecture", Kv::Str("llama"))],
            &[
                ("blk.0.attn_q.weight", 12, vec![256, 2], 288),
                ("blk.1.attn_q.weight", 8, vec![32, 2], 0),
                ("a,\"b\"", 0, vec![4], 600),
            ],
        );
        let m = crate::open::OpenedModel::from(parse_bytes(&b).unwrap());
        let s = summarize(&m);
        let csv = tensors_csv(&s);
        let lines: Vec<&str> = csv.split("\r\n").collect();
        assert_eq!(lines[0], "name,type,shape,elements,bytes,offset,part");
        assert!(
            lines[1].starts_with("blk.0.attn_q.weight,Q4_K,256x2,512,288,"),
            "{}",
            lines[1]
        );
        assert!(
            lines[3].starts_with("\"a,\"\"b\"\"\",F32,4,4,16,"),
            "{}",
            lines[3]
        );
        let md = markdown("m|x.gguf", &s, &m);
        assert!(md.starts_with("# m\\|x.gguf\n"), "{md}");
        // The figures are the summary card's, in its words.
        for f in crate::view::facts::summary_facts(&s, &m) {
            assert!(
                md.contains(&format!("| {} | {}", f.label, f.text)),
                "{}: {md}",
                f.label
            );
        }
        assert!(
            md.contains("| attn_q.weight | Q4_K (0); Q8_0 (1) |")
                || md.contains("| attn_q.weight | Q8_0 (1); Q4_K (0) |"),
            "{md}"
        );
        assert!(md.contains("| Q4_K | 1 | 512 | 288 B | 4.500 |"), "{md}");
        assert_eq!(layer_ranges(&[0, 1, 2, 5, 7, 8]), "0–2, 5, 7–8");
    }

    #[test]
    fn csv_text_is_escaped_and_formulas_neutralised() {
        // Control and bidi characters made visible, as in every other output.
        assert_eq!(csv_text("\u{1b}[2J\u{1b}[Hx"), "\\u{1b}[2J\\u{1b}[Hx");
        assert_eq!(csv_text("a\u{7}b\u{202e}c"), "a\\u{7}b\\u{202e}c");
        assert_eq!(csv_text("a\nb"), "a\\nb");
        // Formula starts get a leading apostrophe (OWASP), then RFC 4180 quoting.
        assert_eq!(csv_text("=1+1"), "'=1+1");
        assert_eq!(csv_text("+1"), "'+1");
        assert_eq!(csv_text("-1"), "'-1");
        assert_eq!(csv_text("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(csv_text("\tx"), "'\\tx");
        assert_eq!(csv_text("\r=x"), "'\\r=x");
        assert_eq!(
            csv_text("=HYPERLINK(\"http://e.x\",\"y\")"),
            "\"'=HYPERLINK(\"\"http://e.x\"\",\"\"y\"\")\""
        );
        assert_eq!(csv_text("=a,b"), "\"'=a,b\"");
        // Ordinary names, and these characters anywhere but first, stay as they are.
        assert_eq!(csv_text("blk.0.attn_q.weight"), "blk.0.attn_q.weight");
        assert_eq!(csv_text("a=b-c+d@e"), "a=b-c+d@e");
        assert_eq!(csv_text("a,\"b\""), "\"a,\"\"b\"\"\"");
        assert_eq!(csv_text(""), "");
    }

    #[test]
    fn csv_of_hostile_names_has_no_control_characters() {
        let b = gguf(
            &[("general.architecture", Kv::Str("llama"))],
            &[
                ("\u{1b}[2J\u{1b}[Hwipe", 0, vec![4], 0),
                ("=cmd|' /C calc'!A0", 0, vec![4], 32),
                ("line\r\nbreak\u{202e}", 0, vec![4], 64),
                ("ok.weight", 0, vec![4], 96),
            ],
        );
        let m = crate::open::OpenedModel::from(parse_bytes(&b).unwrap());
        let mut s = summarize(&m);
        s.tensors[3].dtype = "@type\u{7}".into();
        let csv = tensors_csv(&s);
        assert!(
            !csv.replace("\r\n", "")
                .chars()
                .any(|c| c.is_control() || ('\u{202a}'..='\u{202e}').contains(&c)),
            "{csv:?}"
        );
        let lines: Vec<&str> = csv.split("\r\n").collect();
        assert_eq!(
            lines.len(),
            6,
            "header, four rows, empty after the last CRLF"
        );
        assert!(
            lines[1].starts_with("\\u{1b}[2J\\u{1b}[Hwipe,F32,4,4,16,"),
            "{}",
            lines[1]
        );
        assert!(
            lines[2].starts_with("'=cmd|' /C calc'!A0,F32,"),
            "{}",
            lines[2]
        );
        assert!(
            lines[3].starts_with("line\\r\\nbreak\\u{202e},F32,"),
            "{}",
            lines[3]
        );
        assert!(
            lines[4].starts_with("ok.weight,'@type\\u{7},4,"),
            "{}",
            lines[4]
        );
    }

    #[test]
    fn file_names_are_safe() {
        assert_eq!(json_file_name("m.gguf"), "m.gguf.weightpeek.json");
        assert_eq!(csv_file_name("m.gguf"), "m.gguf.weightpeek.csv");
        assert_eq!(markdown_file_name("a/b.gguf"), "a_b.gguf.weightpeek.md");
        assert_eq!(
            json_file_name("a/b\\c:\n.gguf"),
            "a_b_c__.gguf.weightpeek.json"
        );
    }

    #[test]
    fn kinds_name_their_buttons_and_files() {
        let m = crate::open::OpenedModel::from(
            parse_bytes(include_bytes!("../../www/sample.gguf")).unwrap(),
        );
        for (k, id) in [
            (Kind::Json, "export-json"),
            (Kind::Csv, "export-csv"),
            (Kind::Markdown, "export-markdown"),
        ] {
            assert_eq!(Kind::parse(k.name()), Some(k));
            let b = k.button();
            assert_eq!(b.get_attr("data-testid"), Some(id));
            assert_eq!(b.get_attr("type"), Some("button"));
            assert!(b.get_attr("title").unwrap().contains("weightpeek --"));
        }
        assert_eq!(Kind::parse("xml"), None);
        assert_eq!(Kind::Csv.file_name("m.gguf"), "m.gguf.weightpeek.csv");
        assert_eq!(Kind::Markdown.media_type(), "text/markdown");
        let s = summarize(&m);
        assert_eq!(Kind::Json.text("s.gguf", &m), summary_json(&m, &s));
        assert_eq!(Kind::Csv.text("s.gguf", &m), tensors_csv(&s));
        assert!(Kind::Markdown.text("s.gguf", &m).starts_with("# s.gguf\n"));
    }
}
