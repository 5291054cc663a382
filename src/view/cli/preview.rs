//! `--tensor NAME`: the preview panel as text: the window ([`crate::view::preview::window_text`]), the bytes
//! read, the statistics ([`crate::view::preview::stat_rows`]), the histogram in text bars, the first values
//! and, for block-quantised types, the block scales ([`crate::view::preview::scales_caption`]).

use crate::open::OpenedModel;
use crate::preview::Preview;
use crate::text::escape;
use crate::view::preview as pv;

use super::field;

/// Width of the label column (`values`, `std dev`, `mean |x|`, …).
const WIDTH: usize = 15;

/// Lines of the text histogram.
const HISTOGRAM_LINES: usize = 16;

/// First values printed (the JSON has them all).
const VALUES: usize = 32;

/// The preview.
pub fn text(p: &Preview) -> String {
    let shape: Vec<String> = p.shape.iter().map(u64::to_string).collect();
    let mut o = format!(
        "{} ({}, shape [{}]; {})\n",
        escape(&pv::subject(p)),
        escape(&p.dtype),
        shape.join(", "),
        p.row_is
    );
    field(&mut o, WIDTH, "window", &pv::window_text(p));
    o.push_str(&format!("  {}\n", escape(&pv::bytes_read_line(p))));
    if let Some(empty) = pv::empty_text(p) {
        o.push_str(&format!("  {empty}\n"));
        return o;
    }
    if let Some(note) = pv::values_note(p) {
        o.push_str(&format!("  {note}\n"));
    }
    for row in pv::stat_rows(&p.stats) {
        field(&mut o, WIDTH, row.label, &row.text);
    }
    o.push_str(&format!(
        "\nhistogram ({} bins in {HISTOGRAM_LINES} rows, finite values; --json has every bin):\n",
        p.histogram.counts.len()
    ));
    for line in pv::histogram_text(&p.histogram, HISTOGRAM_LINES) {
        o.push_str(&format!("  {line}\n"));
    }
    o.push_str("\nfirst values (row, column: value):\n");
    for v in p.first_values.iter().take(VALUES) {
        o.push_str(&format!("  [{}, {}] {}\n", v.row, v.col, v.text));
    }
    if let Some(s) = &p.block_scales {
        o.push_str(&format!("\nblock scales: {}\n", pv::scales_caption(s)));
    }
    o
}

/// Why `name` cannot be previewed because it is not among the tensors read: not in the
/// model; or, for a set read in part, in a file that was not read (named when the index says
/// which).
pub fn missing_tensor_text(m: &OpenedModel, name: &str) -> String {
    let base = format!("no tensor \"{}\"", escape(name));
    let Some(set) = m
        .set
        .as_ref()
        .filter(|s| !s.kind.is_empty() && !s.complete())
    else {
        return format!("{base} (list them with --tensors)");
    };
    let in_file = set.shard_index.as_ref().and_then(|ix| {
        let (_, f) = ix.weight_map.iter().find(|(n, _)| n == name)?;
        ix.files.get(*f as usize)
    });
    match in_file {
        Some(file) => format!(
            "{base} in the files read: the index places it in {}, which was not read",
            escape(file)
        ),
        None => format!(
            "{base} in the {} of the set's {} files read; it may be in a missing one ({})",
            set.files_read.len(),
            set.files_expected,
            set.missing
                .iter()
                .map(|f| escape(crate::open::recognise::file_name(f)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preview::{preview_tensor, WindowRequest};
    use crate::source::{block_on_ready, parse_bytes, MemSource};
    use crate::view::cli::tests::clean;
    use crate::view::testutil::gguf;

    #[test]
    fn window_statistics_and_values_are_the_panels() {
        // A Q8_0 tensor of 2 rows × 32 values (one block each), zero-filled: every value 0.
        let name = "blk.0.\u{1b}[31mattn\u{202e}.weight";
        let b = gguf(&[], &[(name, 8, vec![32, 2], 68)]);
        let m = crate::open::OpenedModel::from(parse_bytes(&b).unwrap());
        let mut src = MemSource::new(&b);
        let req = WindowRequest {
            rows: Some(1..2),
            cols: None,
            field: None,
        };
        let p = block_on_ready(preview_tensor(&m, &mut src, name, &req)).unwrap();
        let out = text(&p);
        assert!(clean(&out), "{out:?}");
        assert!(
            out.starts_with(&format!(
                "blk.0.\\u{{1b}}[31mattn\\u{{202e}}.weight (Q8_0, shape [32, 2]; {})\n",
                p.row_is
            )),
            "{out}"
        );
        assert!(out.contains(&format!("  window          {}\n", pv::window_text(&p))));
        assert!(pv::window_text(&p).starts_with("rows 1..2 of 2 × columns 0..32 of 32"));
        assert!(out.contains(&format!(
            "  {}\n",
            pv::bytes_read_text(p.bytes_read, p.window.tensor_bytes)
        )));
        for row in pv::stat_rows(&p.stats) {
            assert!(
                out.contains(&format!("  {:<15} {}\n", row.label, row.text)),
                "{}",
                row.label
            );
        }
        assert!(out.contains("  values          32\n"), "{out}");
        assert!(out.contains("  zeros           32\n"), "{out}");
        assert_eq!(out.matches("] 0\n").count(), 32, "{out}");
        assert!(out.contains("  [1, 31] 0\n"), "{out}");
        let scales = p
            .block_scales
            .as_ref()
            .expect("Q8_0 has one scale per block");
        assert!(out.ends_with(&format!("\nblock scales: {}\n", pv::scales_caption(scales))));
    }
}
