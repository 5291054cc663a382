//! The dtype histogram as horizontal bars: geometry and labels for an SVG chart.

use crate::format::ggml_type::type_tooltip;
use crate::summary::DtypeRow;
use crate::text;
use crate::view::colors::{dtype_color, text_on, with_type_tooltip};
use crate::view::node::{self, Node};

/// What the bars measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measure {
    /// Bytes of the tensors of each type.
    Bytes,
    /// Number of tensors of each type.
    Tensors,
}

impl Measure {
    /// Toggle button text.
    pub fn label(self) -> &'static str {
        match self {
            Measure::Bytes => "by bytes",
            Measure::Tensors => "by tensor count",
        }
    }

    /// The toggle button's `aria-pressed` while the chart shows `shown`.
    pub fn pressed(self, shown: Measure) -> &'static str {
        if self == shown {
            "true"
        } else {
            "false"
        }
    }
}

/// One bar.
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    /// Type label.
    pub dtype: String,
    /// Tensors of this type (for `data-count`).
    pub tensors: u64,
    /// Bytes of this type (for `data-bytes`).
    pub bytes: u64,
    /// Top of the bar's row.
    pub y: f64,
    /// Bar length in px (at least 2 for a non-zero value, so it stays visible).
    pub width: f64,
    /// Text after the bar: `171.5 MiB · 69.5%` or `81 tensors · 34.3%`.
    pub value_text: String,
    /// Tooltip with every figure.
    pub title: String,
    /// Fill colour.
    pub color: &'static str,
    /// Colour of text drawn on the fill.
    pub ink: &'static str,
}

/// The whole chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    /// SVG width (the viewBox; the chart scales to its container).
    pub width: f64,
    /// SVG height.
    pub height: f64,
    /// x where the bars start (type labels end-aligned before it).
    pub bar_x: f64,
    /// Height of a bar.
    pub bar_height: f64,
    /// The bars, largest first.
    pub bars: Vec<Bar>,
}

impl Chart {
    /// The `<svg>`'s `viewBox` (`0 0 W H`), `width` and `height` attributes for this chart.
    pub fn svg_attrs(&self) -> [(&'static str, String); 3] {
        [
            ("viewBox", format!("0 0 {} {}", self.width, self.height)),
            ("width", self.width.to_string()),
            ("height", self.height.to_string()),
        ]
    }
}

/// The chart's width (CSS px) in a container `client` px wide: the container's width, 560
/// when it is not laid out (0: a hidden tab), never under 320.
pub fn chart_width(client: i32) -> f64 {
    let w = if client > 0 { client } else { 560 };
    f64::from(w).max(320.0)
}

/// Whether a key pressed on a focused type row picks its type, as a click: Enter or Space
/// (`key` as `KeyboardEvent.key` names it), without Alt, Ctrl or Meta, and not a held key's
/// repeat.
pub fn picks(key: &str, alt: bool, ctrl: bool, meta: bool, repeat: bool) -> bool {
    matches!(key, "Enter" | " ") && !(alt || ctrl || meta || repeat)
}

/// Geometry constants: rows of 30 px with 20 px bars; labels in 88 px; 150 px for the value text.
const ROW: f64 = 30.0;
const BAR: f64 = 20.0;
const LABEL: f64 = 96.0;
const VALUE: f64 = 170.0;

fn pct(part: u64, whole: u64) -> String {
    if whole == 0 {
        return "0%".into();
    }
    let p = part as f64 * 100.0 / whole as f64;
    if p > 0.0 && p < 0.1 {
        "<0.1%".into()
    } else {
        format!("{p:.1}%")
    }
}

/// Lays out the chart for `rows` measured by `measure` in a viewBox `width` px wide.
pub fn chart(rows: &[DtypeRow], measure: Measure, width: f64) -> Chart {
    let value = |r: &DtypeRow| match measure {
        Measure::Bytes => r.bytes,
        Measure::Tensors => r.tensors,
    };
    let mut sorted: Vec<&DtypeRow> = rows.iter().collect();
    sorted.sort_by(|a, b| value(b).cmp(&value(a)).then_with(|| a.dtype.cmp(&b.dtype)));
    let max = sorted.first().map_or(0, |r| value(r));
    let total: u64 = rows.iter().map(value).fold(0u64, u64::saturating_add);
    // Type labels are short (`Q4_K`) but unknown types are not (`type 99 (unknown)`): the label
    // column grows with the longest one, within bounds (~7.8 px per monospace character).
    let longest = rows
        .iter()
        .map(|r| r.dtype.chars().count())
        .max()
        .unwrap_or(0);
    let label = (longest as f64 * 7.8 + 18.0).clamp(LABEL, 220.0);
    let room = (width - label - VALUE).max(40.0);
    let bars = sorted
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let v = value(r);
            let w = if max == 0 {
                0.0
            } else {
                v as f64 / max as f64 * room
            };
            let w = if v > 0 { w.max(2.0) } else { 0.0 };
            let value_text = match measure {
                Measure::Bytes => format!("{} · {}", text::bytes(v), pct(v, total)),
                Measure::Tensors => format!(
                    "{} tensor{} · {}",
                    text::thousands(v),
                    if v == 1 { "" } else { "s" },
                    pct(v, total)
                ),
            };
            let bpw = r
                .bits_per_weight
                .map_or(String::new(), |b| format!(", {b:.3} bits per weight"));
            let color = dtype_color(&r.dtype);
            Bar {
                dtype: r.dtype.clone(),
                tensors: r.tensors,
                bytes: r.bytes,
                y: i as f64 * ROW,
                width: w,
                value_text,
                title: format!(
                    "{}: {} tensor{}, {} elements, {} ({} bytes){bpw}",
                    r.dtype,
                    text::thousands(r.tensors),
                    if r.tensors == 1 { "" } else { "s" },
                    text::thousands(r.elements),
                    text::bytes(r.bytes),
                    text::thousands(r.bytes),
                ),
                color,
                ink: text_on(color),
            }
        })
        .collect::<Vec<_>>();
    Chart {
        width,
        height: (bars.len() as f64 * ROW).max(ROW),
        bar_x: label,
        bar_height: BAR,
        bars,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_toggle_shown_is_pressed() {
        assert_eq!(Measure::Bytes.pressed(Measure::Bytes), "true");
        assert_eq!(Measure::Tensors.pressed(Measure::Bytes), "false");
        assert_eq!(Measure::Tensors.pressed(Measure::Tensors), "true");
    }

    fn row(dtype: &str, tensors: u64, bytes: u64) -> DtypeRow {
        DtypeRow {
            dtype: dtype.into(),
            tensors,
            elements: bytes,
            bytes,
            bits_per_weight: Some(8.0),
        }
    }

    #[test]
    fn bars_scale_to_the_largest_and_sort_by_measure() {
        let rows = [
            row("Q8_0", 10, 1000),
            row("F32", 109, 10),
            row("Q4_K", 27, 500),
        ];
        let c = chart(&rows, Measure::Bytes, 600.0);
        let names: Vec<&str> = c.bars.iter().map(|b| b.dtype.as_str()).collect();
        assert_eq!(names, ["Q8_0", "Q4_K", "F32"]);
        let room = 600.0 - LABEL - VALUE;
        assert_eq!(c.bars[0].width, room);
        assert_eq!(c.bars[1].width, room / 2.0);
        assert_eq!(c.bars[2].width, room / 100.0);
        assert_eq!(c.bars[1].y, ROW);
        assert_eq!(c.height, 3.0 * ROW);
        assert_eq!(c.bars[0].value_text, "1000 B · 66.2%");

        let c = chart(&rows, Measure::Tensors, 600.0);
        let names: Vec<&str> = c.bars.iter().map(|b| b.dtype.as_str()).collect();
        assert_eq!(names, ["F32", "Q4_K", "Q8_0"]);
        assert_eq!(c.bars[0].value_text, "109 tensors · 74.7%");
        assert_eq!(c.bars[0].tensors, 109);
        assert_eq!(c.bars[0].bytes, 10);
    }

    #[test]
    fn long_type_labels_widen_the_label_column() {
        let c = chart(&[row("type 99 (unknown)", 1, 1)], Measure::Bytes, 600.0);
        assert!(c.bar_x > LABEL && c.bar_x <= 220.0);
        assert_eq!(c.bars[0].width, 600.0 - c.bar_x - VALUE);
        assert_eq!(
            chart(&[row("Q4_K", 1, 1)], Measure::Bytes, 600.0).bar_x,
            LABEL
        );
    }

    #[test]
    fn tiny_shares_stay_visible_and_empty_charts_are_fine() {
        let rows = [row("Q8_0", 1, 1_000_000_000), row("F32", 1, 1)];
        let c = chart(&rows, Measure::Bytes, 600.0);
        assert_eq!(c.bars[1].width, 2.0);
        assert_eq!(c.bars[1].value_text, "1 B · <0.1%");
        assert!(c.bars[1].title.starts_with("F32: 1 tensor, 1 elements"));
        let e = chart(&[], Measure::Bytes, 600.0);
        assert!(e.bars.is_empty());
        assert_eq!(e.height, ROW);
        let z = chart(&[row("F32", 0, 0)], Measure::Bytes, 600.0);
        assert_eq!(z.bars[0].width, 0.0);
    }
}

/// Tooltip of the chart and the type table: they are links to the tensor list.
pub const PICK_HINT: &str = "click a type to list its tensors";

/// One line of the per-type table under the chart (the CLI's "types" section).
#[derive(Debug, Clone, PartialEq)]
pub struct TypeLine {
    /// The type label (`Q4_K`), escaped.
    pub dtype: String,
    /// Its colour in the chart (a CSS colour).
    pub color: &'static str,
    /// Tensors of this type, with thousands separators.
    pub tensors: String,
    /// Elements of this type, with thousands separators.
    pub elements: String,
    /// Bytes of this type, in binary units.
    pub bytes: String,
    /// Exact bytes, for a tooltip.
    pub bytes_exact: String,
    /// Bits per weight of this type (3 decimals), or `-`.
    pub bits_per_weight: String,
}

/// The per-type table, in the summary's order (largest share of bytes first).
pub fn type_lines(rows: &[DtypeRow]) -> Vec<TypeLine> {
    rows.iter()
        .map(|r| TypeLine {
            dtype: r.dtype.clone(),
            color: dtype_color(&r.dtype),
            tensors: text::thousands(r.tensors),
            elements: text::thousands(r.elements),
            bytes: text::bytes(r.bytes),
            bytes_exact: format!("{} bytes", text::thousands(r.bytes)),
            bits_per_weight: r.bits_per_weight.map_or("–".into(), |b| format!("{b:.3}")),
        })
        .collect()
}

/// The card's frame: the title, the measure toggle (a button per [`Measure`], in the head when
/// there are types), the chart box holding the empty SVG (`data-testid="dtype-histogram"`, its
/// bars drawn by [`chart_nodes`] at the box's width), and the per-type table ([`type_table`]).
pub fn card(rows: &[DtypeRow]) -> Node {
    let mut card = node::card("Tensor types", "types");
    if !rows.is_empty() {
        card.head().push(
            node::el("div", "toggle")
                .attr("role", "group")
                .attr("aria-label", "measure")
                .children(
                    [Measure::Bytes, Measure::Tensors]
                        .into_iter()
                        .map(|m| node::text("button", "", m.label()).attr("type", "button")),
                ),
        );
    }
    let body = card.body();
    body.push(
        node::el("div", "chart").attr("title", PICK_HINT).child(
            node::svg("svg")
                .testid("dtype-histogram")
                .attr("role", "img")
                .attr("aria-label", "tensor types"),
        ),
    );
    if !rows.is_empty() {
        body.push(node::el("div", "type-wrap").child(type_table(rows)));
    }
    card
}

/// The chart's SVG content: a `g` per bar (`data-dtype`, `data-count`, `data-bytes`) holding its
/// tooltip, the type label, the bar and the value text; or "no tensors".
pub fn chart_nodes(c: &Chart) -> Vec<Node> {
    if c.bars.is_empty() {
        return vec![node::svg("text")
            .attr("x", "0")
            .attr("y", "20")
            .attr("class", "chart-empty")
            .text("no tensors")];
    }
    let mid = c.bar_height / 2.0;
    c.bars
        .iter()
        .map(|b| {
            node::svg("g")
                .attr("data-dtype", b.dtype.as_str())
                .attr("data-count", b.tensors.to_string())
                .attr("data-bytes", b.bytes.to_string())
                .child(node::svg("title").text(with_type_tooltip(&b.title, &b.dtype)))
                .child(
                    node::svg("text")
                        .attr("x", (c.bar_x - 10.0).to_string())
                        .attr("y", (b.y + 5.0 + mid).to_string())
                        .attr("dominant-baseline", "central")
                        .attr("text-anchor", "end")
                        .attr("class", "bar-label")
                        .text(b.dtype.as_str()),
                )
                .child(
                    node::svg("rect")
                        .attr("x", c.bar_x.to_string())
                        .attr("y", (b.y + 5.0).to_string())
                        .attr("width", b.width.to_string())
                        .attr("height", c.bar_height.to_string())
                        .attr("rx", "3")
                        .attr("fill", b.color),
                )
                .child(
                    node::svg("text")
                        .attr("x", (c.bar_x + b.width + 8.0).to_string())
                        .attr("y", (b.y + 5.0 + mid).to_string())
                        .attr("dominant-baseline", "central")
                        .attr("class", "bar-value")
                        .text(b.value_text.as_str()),
                )
        })
        .collect()
}

/// The per-type figures as a table (the CLI's "types" section): a row per type (`data-pick`,
/// a tab stop named by [`row_label`]) with its swatch, name (`data-testid="type-name"`, the
/// block layout as tooltip), tensors, elements, bytes (exact as tooltip), bits per weight.
pub fn type_table(rows: &[DtypeRow]) -> Node {
    let head = node::el("tr", "").children(
        [
            ("type", false),
            ("tensors", true),
            ("elements", true),
            ("bytes", true),
            ("bits / weight", true),
        ]
        .into_iter()
        .map(|(h, num)| node::text("th", if num { "num" } else { "" }, h)),
    );
    let body = type_lines(rows).into_iter().map(|l| {
        let tip =
            type_tooltip(&l.dtype).map_or(PICK_HINT.to_string(), |t| format!("{t}\n{PICK_HINT}"));
        node::el("tr", "")
            .attr("data-pick", l.dtype.as_str())
            .attr("title", PICK_HINT)
            .attr("tabindex", "0")
            .attr("aria-label", row_label(&l))
            .child(
                node::el("td", "")
                    .attr("title", tip)
                    .testid("type-name")
                    .child(node::el("span", "swatch").style("background", l.color))
                    .child(node::text("span", "mono", &l.dtype)),
            )
            .child(node::text("td", "num", &l.tensors))
            .child(node::text("td", "num", &l.elements))
            .child(node::text("td", "num", &l.bytes).attr("title", l.bytes_exact.as_str()))
            .child(node::text("td", "num", &l.bits_per_weight))
    });
    node::el("table", "type-table")
        .child(node::el("thead", "").child(head))
        .child(node::el("tbody", "").children(body))
}

/// The accessible name of a type row: the type's tooltip (its block layout), the row's figures
/// and what Enter does, e.g. `Q6_K: 256 weights per block, 210 bytes per block, 6.5625 bits per
/// weight; 9 tensors, 11,796,480 elements, 9.3 MiB, 6.562 bits per weight; Enter lists its
/// tensors`.
pub fn row_label(l: &TypeLine) -> String {
    format!(
        "{}; {} tensor{}, {} elements, {}, {} bits per weight; Enter lists its tensors",
        type_tooltip(&l.dtype).unwrap_or_else(|| l.dtype.clone()),
        l.tensors,
        if l.tensors == "1" { "" } else { "s" },
        l.elements,
        l.bytes,
        l.bits_per_weight,
    )
}

#[cfg(test)]
mod node_tests {
    use super::*;
    use crate::source::parse_bytes;
    use crate::summary::summarize;

    #[test]
    fn the_card_of_the_sample() {
        let m = crate::open::OpenedModel::from(
            parse_bytes(include_bytes!("../../www/sample.gguf")).unwrap(),
        );
        let s = summarize(&m);
        let c = card(&s.dtypes);
        assert_eq!(c.class, "card types");
        let toggle = &c.find_class("toggle")[0];
        let labels: Vec<_> = toggle.children.iter().map(|b| b.text_content()).collect();
        assert_eq!(labels, ["by bytes", "by tensor count"]);
        let svg = c.find_testid("dtype-histogram").unwrap();
        assert!(svg.svg && svg.children.is_empty());
        let rows = &c.find_class("type-table")[0].children[1].children;
        let lines = type_lines(&s.dtypes);
        assert_eq!(rows.len(), lines.len());
        assert_eq!(rows[0].get_attr("data-pick"), Some(lines[0].dtype.as_str()));
        assert_eq!(
            rows[0].get_attr("aria-label"),
            Some(row_label(&lines[0]).as_str())
        );
        let name = &rows[0].children[0];
        assert_eq!(name.get_attr("data-testid"), Some("type-name"));
        assert_eq!(name.children[1].text, Some(lines[0].dtype.clone()));
        assert_eq!(
            rows[0].children[3].get_attr("title"),
            Some(lines[0].bytes_exact.as_str())
        );

        let ch = chart(&s.dtypes, Measure::Bytes, 600.0);
        let bars = chart_nodes(&ch);
        assert_eq!(bars.len(), ch.bars.len());
        let g = &bars[0];
        assert!(g.svg && g.tag == "g");
        assert_eq!(g.get_attr("data-dtype"), Some(ch.bars[0].dtype.as_str()));
        assert_eq!(
            g.get_attr("data-count"),
            Some(ch.bars[0].tensors.to_string().as_str())
        );
        let tags: Vec<_> = g.children.iter().map(|n| n.tag).collect();
        assert_eq!(tags, ["title", "text", "rect", "text"]);
        assert_eq!(g.children[2].get_attr("fill"), Some(ch.bars[0].color));
        assert_eq!(g.children[3].text, Some(ch.bars[0].value_text.clone()));
        let empty = chart_nodes(&chart(&[], Measure::Bytes, 600.0));
        assert_eq!(empty[0].text.as_deref(), Some("no tensors"));
        assert!(card(&[]).find_class("toggle").is_empty());
    }
}

#[cfg(test)]
mod type_line_tests {
    use super::*;

    #[test]
    fn type_lines_read_like_the_cli() {
        let rows = [DtypeRow {
            dtype: "Q6_K".into(),
            tensors: 9,
            elements: 11_796_480,
            bytes: 9_676_800,
            bits_per_weight: Some(6.5625),
        }];
        let l = &type_lines(&rows)[0];
        assert_eq!(
            (
                l.tensors.as_str(),
                l.elements.as_str(),
                l.bytes.as_str(),
                l.bits_per_weight.as_str()
            ),
            ("9", "11,796,480", "9.2 MiB", "6.562")
        );
        assert_eq!(l.bytes_exact, "9,676,800 bytes");
        assert_eq!(l.color, dtype_color("Q6_K"));
    }

    #[test]
    fn the_chart_fits_its_container_and_keys_pick_rows() {
        assert_eq!(chart_width(800), 800.0);
        assert_eq!(chart_width(200), 320.0);
        assert_eq!(chart_width(0), 560.0);
        let c = chart(
            &[DtypeRow {
                dtype: "F32".into(),
                tensors: 1,
                elements: 10,
                bytes: 10,
                bits_per_weight: Some(32.0),
            }],
            Measure::Bytes,
            600.0,
        );
        let [vb, w, h] = c.svg_attrs();
        assert_eq!(vb, ("viewBox", format!("0 0 600 {}", c.height)));
        assert_eq!(w, ("width", "600".to_string()));
        assert_eq!(h.0, "height");
        assert_eq!(h.1.parse::<f64>().unwrap(), c.height);
        assert!(picks("Enter", false, false, false, false));
        assert!(picks(" ", false, false, false, false));
        assert!(!picks("a", false, false, false, false));
        assert!(!picks("Enter", false, true, false, false));
        assert!(!picks(" ", false, false, false, true));
        assert!(!picks("Enter", true, false, false, false));
        assert!(!picks("Enter", false, false, true, false));
    }
}
