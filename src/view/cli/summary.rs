//! The default text output: the file's name, the summary card's figures
//! ([`facts::summary_facts`]), the quantised layout, the architecture card
//! ([`facts::arch_lines`]), the type table ([`histogram::type_lines`]), the metadata table
//! ([`metadata::metadata_rows`]), with `--tensors` the tensor table ([`crate::view::tensors::cell_text`]),
//! the checks ([`checks::lines`]) and, for a header cut short, the error.

use crate::format::Model;
use crate::open::OpenedModel;
use crate::summary::quant_st::QuantReport;
use crate::summary::Summary;
use crate::text::{self, escape};
use crate::view::tensors::{cell_text, Column};
use crate::view::{checks, facts, histogram, metadata};

use super::{field, label_width, matches};

/// What the default output includes beyond the summary.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options<'a> {
    /// `--tensors`: the tensor table (and each quantised weight).
    pub tensors: bool,
    /// `--query`: only keys, tensors and quantised weights containing it, ignoring case.
    pub query: &'a str,
}

/// Narrowest label column of the figures (the longest label of a single file's card).
const FACT_WIDTH: usize = 15;

/// The whole output for `shown_name`. `s` is the whole summary ([`crate::summary::summarize`]:
/// the figures count what was read); the query filters the tables.
pub fn text(shown_name: &str, m: &OpenedModel, s: &Summary, opts: Options<'_>) -> String {
    let mut o = format!("{}\n", escape(shown_name));
    o.push_str(&fact_lines(s, m));
    if let Some(q) = &s.quantization {
        o.push_str(&quant_text(q, opts));
    }
    if let Some(a) = &s.architecture {
        o.push_str(&arch_text(a));
    }
    o.push_str(&types_text(s));
    o.push_str(&metadata_text(m, opts.query));
    if opts.tensors {
        o.push_str(&tensors_text(s, opts.query));
    }
    o.push_str(&checks_text(&s.findings));
    if let Some(e) = &s.error {
        o.push_str(&format!(
            "error: {}\n(everything above was read before the error)\n",
            escape(e)
        ));
    }
    o
}

/// The summary card's figures, one per line: `label  text · detail`; the set's detail (a
/// sentence or two) goes on a line of its own under its figure.
pub fn fact_lines(s: &Summary, m: &OpenedModel) -> String {
    let facts = facts::summary_facts(s, m);
    let width = label_width(facts.iter().map(|f| f.label), FACT_WIDTH);
    let mut o = String::new();
    for f in &facts {
        let detail = f.detail.as_deref().map(escape);
        match (f.testid, detail) {
            (Some("set"), Some(d)) => {
                field(&mut o, width, f.label, &escape(&f.text));
                field(&mut o, width, "", &d);
            }
            (_, Some(d)) => field(
                &mut o,
                width,
                f.label,
                &format!("{} · {d}", escape(&f.text)),
            ),
            (_, None) => field(&mut o, width, f.label, &escape(&f.text)),
        }
    }
    o
}

/// The quantised layout: where the config came from, one row per scheme and, with
/// `--tensors`, every quantised weight (logical shape, bits, group, companions' bytes).
pub fn quant_text(q: &QuantReport, opts: Options<'_>) -> String {
    let mut o = format!(
        "\nquantisation ({}; companions count as bytes, not parameters):\n",
        q.config_source
            .as_deref()
            .map_or("no config.json".to_string(), |c| format!(
                "config {}",
                escape(c)
            ))
    );
    o.push_str(&format!(
        "  {:<48} {:>8} {:>16} {:>12} {:>8}\n",
        "scheme", "weights", "logical params", "bytes", "bpw"
    ));
    for r in &q.schemes {
        o.push_str(&format!(
            "  {:<48} {:>8} {:>16} {:>12} {:>8}\n",
            escape(&r.label),
            text::thousands(r.weights),
            text::thousands(r.elements),
            text::bytes(r.bytes),
            r.bits_per_weight.map_or("–".into(), |b| format!("{b:.3}"))
        ));
    }
    if opts.tensors {
        for w in q.weights.iter().filter(|w| matches(&w.name, opts.query)) {
            let shape: Vec<String> = w.shape.iter().map(u64::to_string).collect();
            let comps: Vec<String> = w
                .companions
                .iter()
                .map(|c| format!("{} {}", c.role, text::bytes(c.bytes)))
                .collect();
            o.push_str(&format!(
                "  {:<48} [{}] ({}) {}-bit{} {} bpw; {}\n",
                escape(&w.name),
                shape.join(", "),
                w.shape_source,
                w.bits,
                w.group_size.map_or(String::new(), |g| format!(" g{g}")),
                w.bits_per_weight.map_or("–".into(), |b| format!("{b:.3}")),
                comps.join(", ")
            ));
        }
    }
    o
}

/// The architecture card: `architecture: NAME`, then its lines (name, file type, the
/// hyper-parameters).
pub fn arch_text(card: &crate::summary::ArchCard) -> String {
    let (title, lines) = facts::arch_lines(card);
    let mut o = format!("\narchitecture: {title}\n");
    let width = label_width(lines.iter().map(|l| l.label.as_str()), 20);
    for l in &lines {
        field(&mut o, width, &l.label, &escape(&l.value));
    }
    o
}

/// The type table: type, tensors, elements, bytes, bits per weight, largest share first.
pub fn types_text(s: &Summary) -> String {
    let mut o = String::from("\ntypes:\n");
    let row = |o: &mut String, cells: [&str; 5]| {
        o.push_str(&format!(
            "  {:<12} {:>8} {:>16} {:>14} {:>8}\n",
            cells[0], cells[1], cells[2], cells[3], cells[4]
        ))
    };
    row(&mut o, ["type", "tensors", "elements", "bytes", "bpw"]);
    for l in histogram::type_lines(&s.dtypes) {
        row(
            &mut o,
            [
                &escape(&l.dtype),
                &l.tensors,
                &l.elements,
                &l.bytes,
                &l.bits_per_weight,
            ],
        );
    }
    o
}

/// The metadata table: key, type, value (arrays shortened), keys containing `query`.
pub fn metadata_text(m: &Model, query: &str) -> String {
    let rows = metadata::metadata_rows(m, query);
    let mut o = format!(
        "\nmetadata ({}):\n",
        metadata::count_text(rows.len(), m.metadata.len())
    );
    for r in &rows {
        o.push_str(&format!(
            "  {:<44} {:<16} {}\n",
            r.key,
            r.type_name,
            escape(&r.value)
        ));
    }
    o
}

/// The columns the CLI's tensor table shows: the page's without the row number (the part only
/// for a model read from several files).
fn tensor_columns(s: &Summary) -> Vec<Column> {
    let merged = s.tensors.iter().any(|t| t.part.is_some());
    [
        Column::Name,
        Column::Type,
        Column::Shape,
        Column::Elements,
        Column::Bytes,
        Column::Part,
        Column::Offset,
    ]
    .into_iter()
    .filter(|c| merged || *c != Column::Part)
    .collect()
}

/// One line of the tensor table, `cells` in [`tensor_columns`]' order.
fn tensor_line(columns: &[Column], cells: &[String]) -> String {
    let mut line = String::from(" ");
    for (c, t) in columns.iter().zip(cells) {
        let cell = match c {
            Column::Name => format!("{t:<48}"),
            Column::Type => format!("{t:<10}"),
            Column::Shape => format!("{t:<22}"),
            Column::Elements | Column::Offset => format!("{t:>14}"),
            Column::Bytes => format!("{t:>12}"),
            Column::Part | Column::Index => format!("{t:<8}"),
        };
        line.push(' ');
        line.push_str(&cell);
    }
    line.truncate(line.trim_end().len());
    line.push('\n');
    line
}

/// The tensor table: a heading with the count (`12 of 236 tensors` when `query` filters) and
/// the shape order, the column titles, one line per tensor whose name or type contains
/// `query`, in file order.
pub fn tensors_text(s: &Summary, query: &str) -> String {
    let shown: Vec<(usize, &crate::summary::TensorRow)> = s
        .tensors
        .iter()
        .enumerate()
        .filter(|(_, t)| matches(&t.name, query) || matches(&t.dtype, query))
        .collect();
    let total = s.tensors.len();
    let count = if shown.len() == total {
        super::plural(total as u64, "tensor", "tensors")
    } else {
        format!(
            "{} of {}",
            text::thousands(shown.len() as u64),
            super::plural(total as u64, "tensor", "tensors")
        )
    };
    let mut o = format!(
        "\ntensors: {count}; {}\n",
        facts::shape_order_note(s.format, false)
    );
    let columns = tensor_columns(s);
    let titles: Vec<String> = columns.iter().map(|c| c.title().to_string()).collect();
    o.push_str(&tensor_line(&columns, &titles));
    for (i, t) in shown {
        let cells: Vec<String> = columns
            .iter()
            .map(|c| escape(&cell_text(t, i, *c, false)))
            .collect();
        o.push_str(&tensor_line(&columns, &cells));
    }
    o
}

/// The checks: the card's title, then one line per finding (`severity: text`).
pub fn checks_text(findings: &[crate::check::Finding]) -> String {
    if findings.is_empty() {
        return String::new();
    }
    let mut o = format!(
        "\n{} (weightpeek --check lists them alone):\n",
        checks::title(findings)
    );
    for l in checks::lines(findings) {
        o.push_str(&format!("  {}: {}\n", l.severity, l.text));
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::parse_bytes;
    use crate::summary::summarize;
    use crate::view::cli::tests::clean;
    use crate::view::testutil::{gguf, Kv};

    fn model() -> OpenedModel {
        let b = gguf(
            &[
                ("general.architecture", Kv::Str("lla\u{1b}[2Jma")),
                ("general.name", Kv::Str("tiny")),
                ("lla\u{1b}[2Jma.block_count", Kv::U32(2)),
                ("evil\u{7}.key", Kv::Str("v\u{202e}x")),
            ],
            &[
                ("token_embd.weight", 8, vec![64, 100], 34 * 2 * 100),
                ("blk.0.attn_q\u{202e}.weight", 12, vec![256, 4], 144 * 4),
                ("output_norm.weight", 0, vec![64], 256),
            ],
        );
        parse_bytes(&b).unwrap().into()
    }

    #[test]
    fn figures_are_the_cards_with_their_details() {
        let m = model();
        let s = summarize(&m);
        let lines = fact_lines(&s, &m);
        let facts = facts::summary_facts(&s, &m);
        assert_eq!(lines.lines().count(), facts.len());
        for (line, f) in lines.lines().zip(&facts) {
            let want = match &f.detail {
                Some(d) => format!("  {:<15} {} · {d}", f.label, f.text),
                None => format!("  {:<15} {}", f.label, f.text),
            };
            assert_eq!(line, want);
        }
        let params = 64 * 100 + 256 * 4 + 64;
        assert!(lines.contains(&format!(
            "  parameters      {} · {}\n",
            text::params(params),
            text::thousands(params)
        )));
        assert!(lines.contains("  format          GGUF v3 · little-endian · alignment 32\n"));
    }

    #[test]
    fn a_set_detail_goes_under_its_figure() {
        use crate::open::SetInfo;
        let m = model();
        let mut s = summarize(&m);
        s.set = Some(SetInfo {
            kind: "gguf-split",
            files_expected: 3,
            files_read: vec!["m-00001-of-00003.gguf".into()],
            missing: vec![
                "m-00002-of-00003.gguf".into(),
                "m\u{1b}-00003-of-00003.gguf".into(),
            ],
            model_tensors: Some(9),
            ..SetInfo::default()
        });
        let f = facts::set_fact(s.set.as_ref().unwrap(), s.tensor_count).unwrap();
        let lines = fact_lines(&s, &m);
        // A part alone labels its totals as this file's, so the label column widens to them.
        let width = "tensor bytes in this file".len();
        let mut want = format!("  {:<width$} {}\n", "set", f.text);
        want.push_str(&format!("  {:<width$} {}\n", "", f.detail.unwrap()));
        assert!(lines.starts_with(&want), "{lines}");
        assert!(lines.contains("part 1 of 3"), "{lines}");
        assert!(lines.contains("3 of the model's 9 tensors are in this file"));
        assert!(lines.contains("missing: m-00002-of-00003.gguf, m\\u{1b}-00003-of-00003.gguf"));
        assert!(lines.contains(&format!("  {:<width$} 3", "tensors in this file")));
        assert!(clean(&lines));
    }

    #[test]
    fn file_text_is_escaped_in_every_section() {
        let m = model();
        let s = summarize(&m);
        let out = text(
            "a\u{7}.gguf",
            &m,
            &s,
            Options {
                tensors: true,
                query: "",
            },
        );
        assert!(clean(&out), "{out:?}");
        assert!(out.starts_with("a\\u{7}.gguf\n"));
        assert!(out.contains("\narchitecture: lla\\u{1b}[2Jma\n"), "{out}");
        assert!(out.contains("  name                 tiny\n"), "{out}");
        assert!(out.contains("  layers               2\n"), "{out}");
        assert!(out.contains("evil\\u{7}.key"), "{out}");
        assert!(out.contains("\"v\\u{202e}x\""), "{out}");
        assert!(out.contains("blk.0.attn_q\\u{202e}.weight"), "{out}");
        assert!(out.contains("\nmetadata (4 keys):\n"), "{out}");
        assert!(
            out.contains("\ntensors: 3 tensors; shape in ggml order"),
            "{out}"
        );
    }

    #[test]
    fn the_query_filters_keys_and_tensors_and_says_so() {
        let m = model();
        let s = summarize(&m);
        let out = text(
            "m.gguf",
            &m,
            &s,
            Options {
                tensors: true,
                query: "ATTN",
            },
        );
        assert!(out.contains("\nmetadata (0 of 4 keys):\n"), "{out}");
        assert!(out.contains("\ntensors: 1 of 3 tensors;"), "{out}");
        let table: Vec<&str> = out
            .lines()
            .skip_while(|l| !l.starts_with("tensors:"))
            .skip(1)
            .take_while(|l| !l.is_empty())
            .collect();
        assert_eq!(table.len(), 2, "{out}");
        let cells = |l: &str| l.split_whitespace().map(str::to_string).collect::<Vec<_>>();
        assert_eq!(
            cells(table[0]),
            ["name", "type", "shape", "elements", "bytes", "offset"]
        );
        // The cells are the page's (thousands separators, the byte unit, the file's offset).
        let t = &s.tensors[1];
        let row = cells(table[1]);
        assert_eq!(row[0], "blk.0.attn_q\\u{202e}.weight");
        assert_eq!(row[1], "Q4_K");
        assert_eq!(row[2..4], ["[256,".to_string(), "4]".to_string()]);
        assert_eq!(row[4], "1,024");
        assert_eq!(format!("{} {}", row[5], row[6]), text::bytes(576));
        assert_eq!(row[7], text::thousands(t.offset));
    }

    #[test]
    fn types_and_checks_are_the_pages() {
        let m = model();
        let s = summarize(&m);
        let types = types_text(&s);
        for l in histogram::type_lines(&s.dtypes) {
            let line = format!(
                "  {:<12} {:>8} {:>16} {:>14} {:>8}\n",
                l.dtype, l.tensors, l.elements, l.bytes, l.bits_per_weight
            );
            assert!(types.contains(&line), "{line} in {types}");
        }
        assert!(checks_text(&[]).is_empty());
        use crate::check::{Finding, Severity};
        let f = [Finding {
            severity: Severity::Warning,
            code: "gap",
            message: "a\u{1b}b".into(),
            offset: Some(4096),
            tensor: Some("t\u{202e}".into()),
        }];
        assert_eq!(
            checks_text(&f),
            "\nChecks: 1 warning (weightpeek --check lists them alone):\n  warning: tensor \"t\\u{202e}\": a\\u{1b}b (byte 4,096)\n"
        );
    }
}
