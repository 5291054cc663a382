//! The tensor preview panel's text and geometry (the page and the CLI): statistic rows with
//! their raw values, the "read N bytes of M" line, histogram bars, the heatmap's scale labels,
//! and the window controls' text.

use crate::dequant::Exact;
use crate::format::Model;
use crate::preview::{exact_raw, exact_text, BlockScales, Heatmap, Histogram, Preview, Stats};
use crate::text;

/// One statistic: a stable key (`min`, `nan`, … — the page's `data-stat`), a label, the text
/// shown, and the raw number (the page's `data-value`; empty when there is none).
#[derive(Debug, Clone, PartialEq)]
pub struct StatRow {
    /// `data-stat` key.
    pub key: &'static str,
    /// Label.
    pub label: &'static str,
    /// Text shown.
    pub text: String,
    /// Raw value as a JS-readable number (`Number(raw)` round-trips), or empty.
    pub raw: String,
}

fn f64_raw(v: Option<f64>) -> String {
    v.map(|v| format!("{v:?}")).unwrap_or_default()
}

fn f64_text(v: Option<f64>) -> String {
    match v {
        None => "–".into(),
        Some(v) => {
            let a = v.abs();
            if a != 0.0 && !(1e-4..1e7).contains(&a) {
                format!("{v:.6e}")
            } else {
                format!("{v:.7}")
                    .trim_end_matches('0')
                    .trim_end_matches('.')
                    .to_string()
            }
        }
    }
}

/// The statistics as rows, in display order. Min/max are exact values of the stored type
/// ([`exact_text`]; `raw` is [`exact_raw`]: every digit of an integer); mean, std and mean |x|
/// are `f64` (shown to 7 significant places; `raw` is exact).
pub fn stat_rows(s: &Stats) -> Vec<StatRow> {
    let count = |key, label, n: u64| StatRow {
        key,
        label,
        text: text::thousands(n),
        raw: n.to_string(),
    };
    let exact = |key, label, v: Option<Exact>| StatRow {
        key,
        label,
        text: v.map_or("–".into(), exact_text),
        raw: v.map(exact_raw).unwrap_or_default(),
    };
    let f64row = |key, label, v: Option<f64>| StatRow {
        key,
        label,
        text: f64_text(v),
        raw: f64_raw(v),
    };
    vec![
        count("count", "values", s.count),
        exact("min", "min", s.min),
        exact("max", "max", s.max),
        f64row("mean", "mean", s.mean),
        f64row("std", "std dev", s.std),
        f64row("mean_abs", "mean |x|", s.mean_abs),
        count("zeros", "zeros", s.zeros),
        count("nan", "NaN", s.nan),
        count("pos_inf", "+Inf", s.pos_inf),
        count("neg_inf", "−Inf", s.neg_inf),
    ]
}

/// "read 1.1 MiB (1,113,840 bytes) of this tensor's 170.0 MiB".
pub fn bytes_read_text(read: u64, tensor_bytes: u64) -> String {
    format!(
        "read {} ({} bytes) of this tensor's {}",
        text::bytes(read),
        text::thousands(read),
        text::bytes(tensor_bytes)
    )
}

/// What a preview shows: the tensor's name, or a structured array's field as numpy writes it
/// (`array['x']`). Raw text: callers escape it as their medium needs.
pub fn subject(p: &Preview) -> String {
    title(&p.tensor, p.field.as_deref())
}

/// `tensor`, or `tensor['field']` (numpy's indexing of a structured array's field).
pub fn title(tensor: &str, field: Option<&str>) -> String {
    match field {
        Some(f) => format!("{tensor}['{f}']"),
        None => tensor.to_string(),
    }
}

/// One entry of a structured array's field menu.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldOption {
    /// The field's name (`outer.inner`), what the window asks for.
    pub name: String,
    /// `name (<f4)`, or `name (<U3, not previewed)`.
    pub label: String,
    /// Whether this tool decodes it.
    pub enabled: bool,
}

/// The field menu of structured array `index` (empty for any other tensor): every leaf field,
/// in the header's order, those this tool does not decode (text, dates, big-endian) disabled.
pub fn field_options(model: &Model, index: usize) -> Vec<FieldOption> {
    let Some(s) = crate::preview::structured(model, index) else {
        return Vec::new();
    };
    s.fields
        .iter()
        .map(|f| {
            let enabled = crate::preview::field_view(model, index, &f.name).is_ok();
            let label = if enabled {
                format!("{} ({})", f.name, f.descr)
            } else {
                format!("{} ({}, not previewed)", f.name, f.descr)
            };
            FieldOption {
                name: f.name.clone(),
                label,
                enabled,
            }
        })
        .collect()
}

/// [`bytes_read_text`] of a preview, with where the bytes came from when that is not the
/// model file's range (the ONNX side file, a deflated `.npz` member, a structured array's
/// elements).
pub fn bytes_read_line(p: &Preview) -> String {
    let read = match &p.field {
        // The elements read hold every field: the field's own bytes are fewer.
        Some(_) => format!(
            "read {} ({} bytes) for this field's {}",
            text::bytes(p.bytes_read),
            text::thousands(p.bytes_read),
            text::bytes(p.window.tensor_bytes)
        ),
        None => bytes_read_text(p.bytes_read, p.window.tensor_bytes),
    };
    match &p.read_note {
        Some(n) => format!("{read}; {n}"),
        None => read,
    }
}

/// The window in words: "rows 0..640 of 640 × columns 0..1024 of 1024 (655,360 values)".
pub fn window_text(p: &Preview) -> String {
    let w = &p.window;
    format!(
        "rows {}..{} of {} × columns {}..{} of {} ({} values)",
        w.rows.start,
        w.rows.end,
        text::thousands(w.geometry.rows),
        w.cols.start,
        w.cols.end,
        text::thousands(w.geometry.row_values),
        text::thousands(p.stats.count)
    )
}

/// For a window with no values (a tensor with a zero dimension): "0 values: the shape [0, 4]
/// has a zero dimension, so there is nothing to show".
pub fn empty_text(p: &Preview) -> Option<String> {
    (p.stats.count == 0).then(|| {
        let shape: Vec<String> = p.shape.iter().map(u64::to_string).collect();
        format!(
            "0 values: the shape [{}] has a zero dimension, so there is nothing to show",
            shape.join(", ")
        )
    })
}

/// What the statistics are of, when not simply the values: complex values are summarised by
/// their magnitude.
pub fn values_note(p: &Preview) -> Option<&'static str> {
    (p.values_are == "complex").then_some(
        "complex values: the statistics, histogram and heatmap are of |z| = √(re² + im²)",
    )
}

/// A histogram bar in a `width × height` box (SVG user units), bin `i`.
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    /// Left edge.
    pub x: f64,
    /// Top edge.
    pub y: f64,
    /// Width.
    pub w: f64,
    /// Height.
    pub h: f64,
    /// Values in the bin.
    pub count: u64,
    /// Tooltip: "[lo, hi): count".
    pub title: String,
}

/// Bars for the histogram in a `width × height` box; heights are linear in the count, the
/// tallest bin fills the box; a non-empty bin is at least 1 unit tall so it stays visible.
pub fn histogram_bars(h: &Histogram, width: f64, height: f64) -> Vec<Bar> {
    let n = h.counts.len();
    let top = h.counts.iter().copied().max().unwrap_or(0);
    if n == 0 || top == 0 {
        return Vec::new();
    }
    let bw = width / n as f64;
    h.counts
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            let bh = if c == 0 {
                0.0
            } else {
                (c as f64 / top as f64 * height).max(1.0)
            };
            let (lo, hi) = (h.edges[i], h.edges[i + 1]);
            let close = if i + 1 == n { "]" } else { ")" };
            Bar {
                x: i as f64 * bw,
                y: height - bh,
                w: bw,
                h: bh,
                count: c,
                title: format!(
                    "[{}, {}{close}: {}",
                    f64_text(Some(lo)),
                    f64_text(Some(hi)),
                    text::thousands(c)
                ),
            }
        })
        .collect()
}

/// Axis labels under the histogram: (min, 0 position as a fraction if 0 is inside, max).
pub fn histogram_axis(h: &Histogram) -> Option<(String, Option<f64>, String)> {
    let (lo, hi) = (*h.edges.first()?, *h.edges.last()?);
    let zero = (lo < 0.0 && hi > 0.0).then(|| -lo / (hi - lo));
    Some((f64_text(Some(lo)), zero, f64_text(Some(hi))))
}

/// The histogram as text lines (CLI): `bins` merged groups, each "lo .. hi  count  ####".
pub fn histogram_text(h: &Histogram, lines: usize) -> Vec<String> {
    let n = h.counts.len();
    if n == 0 {
        return vec!["(no finite values)".into()];
    }
    let per = n.div_ceil(lines.max(1));
    let groups: Vec<(f64, f64, u64)> = (0..n)
        .step_by(per)
        .map(|i| {
            let j = (i + per).min(n);
            (h.edges[i], h.edges[j], h.counts[i..j].iter().sum())
        })
        .collect();
    let top = groups.iter().map(|g| g.2).max().unwrap_or(1).max(1);
    groups
        .iter()
        .map(|&(lo, hi, c)| {
            let bar = "#".repeat(((c as f64 / top as f64) * 40.0).round() as usize);
            format!(
                "{:>14} .. {:<14} {:>12}  {bar}",
                f64_text(Some(lo)),
                f64_text(Some(hi)),
                text::thousands(c)
            )
        })
        .collect()
}

/// Labels of the heatmap's colour scale: (−limit, "0", +limit), and a line saying how the
/// cells were made.
pub fn heatmap_legend(h: &Heatmap) -> ([String; 3], String) {
    let l = f64_text(Some(h.limit));
    let labels = [format!("−{l}"), "0".to_string(), format!("+{l}")];
    let mut note = if h.wrapped {
        format!(
            "one row of {} values wrapped into {} lines of {}",
            text::thousands(h.values),
            text::thousands(h.grid_rows),
            text::thousands(h.grid_cols)
        )
    } else {
        format!(
            "{} rows × {} columns",
            text::thousands(h.grid_rows),
            text::thousands(h.grid_cols)
        )
    };
    if h.rows as u64 != h.grid_rows || h.cols as u64 != h.grid_cols {
        note.push_str(&format!(
            " shown as {} × {} cells, each the value of largest magnitude in it",
            h.rows, h.cols
        ));
    }
    if h.max_abs > h.limit {
        note.push_str(&format!(
            "; scale clipped at the 99th percentile of |cell| (largest |value| {})",
            f64_text(Some(h.max_abs))
        ));
    }
    note.push_str("; green = NaN/Inf only");
    (labels, note)
}

/// Caption of the block-scale heatmap.
pub fn scales_caption(s: &BlockScales) -> String {
    format!(
        "{}, one per {}-value block: min {}, max {}",
        s.field,
        s.block_values,
        s.stats.min.map_or("–".into(), exact_text),
        s.stats.max.map_or("–".into(), exact_text)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preview::{heatmap_of, stats_of};

    #[test]
    fn stat_rows_carry_raw_numbers() {
        let (s, h) = stats_of(&[1.0, -3.0, 0.0, f32::NAN, 1e-9]);
        let rows = stat_rows(&s);
        let get = |k: &str| rows.iter().find(|r| r.key == k).unwrap().clone();
        assert_eq!(get("min").raw, "-3.0");
        assert_eq!(get("nan").raw, "1");
        assert_eq!(get("zeros").text, "1");
        assert_eq!(get("mean").raw.parse::<f64>().unwrap(), s.mean.unwrap());
        let bars = histogram_bars(&h, 640.0, 100.0);
        assert_eq!(bars.len(), 64);
        assert_eq!(bars.iter().map(|b| b.count).sum::<u64>(), 4);
        assert!(bars[63].title.ends_with("]: 1"), "{}", bars[63].title);
        let (lo, zero, hi) = histogram_axis(&h).unwrap();
        assert_eq!((lo.as_str(), hi.as_str()), ("-3", "1"));
        assert_eq!(zero, Some(0.75));
        assert_eq!(histogram_text(&h, 16).len(), 16);
        let (none, _) = stats_of(&[]);
        assert_eq!(stat_rows(&none)[1].raw, "");
    }

    #[test]
    fn legend_says_how_cells_were_made() {
        let v: Vec<f32> = (0..640).map(|i| i as f32).collect();
        let (labels, note) = heatmap_legend(&heatmap_of(&v, 1, 640));
        assert_eq!(labels[1], "0");
        assert!(
            note.starts_with("one row of 640 values wrapped into 25 lines of 26"),
            "{note}"
        );
        let v = vec![1.0f32; 1024 * 2];
        let (_, note) = heatmap_legend(&heatmap_of(&v, 2, 1024));
        assert!(note.contains("2 × 512 cells"), "{note}");
        assert_eq!(
            bytes_read_text(1_113_840, 178_257_920),
            "read 1.1 MiB (1,113,840 bytes) of this tensor's 170.0 MiB"
        );
    }
}
