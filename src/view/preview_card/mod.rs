//! The tensor preview card's drawn parts as [`Node`]s: the statistics list, the histogram
//! figure (its SVG bars and axis), the heatmap figure around the canvas the page paints, and
//! the first values table. Numbers and text come from [`crate::view::preview`]. Also the
//! panel's decisions: its [`Stage`] (`data-state` and status line), the window boxes' texts
//! ([`range_texts`]) and reading them back ([`typed_request`]), the window each control asks
//! for ([`Opening::request`]), the heatmap canvas's size and
//! attributes ([`heat_canvas`]), and what opening a tensor shows ([`opening`]).

use crate::dequant::Exact;
use crate::format::{DType, Model};
use crate::preview::{self, exact_raw, Geometry, Heatmap, Plan, Preview, WindowRequest};
use crate::view::colors::{dtype_color, text_on};
use crate::view::node::{self, Node};
use crate::view::preview as pv;
use crate::view::spec::{RangeSpec, WindowError, WindowSpec};

/// The note under the title: `shape [4096, 32000] · a row is …` (what a row of the window is,
/// when the tensor has a window geometry: GGUF's first dimension for a ggml type, else the last).
pub fn shape_note(shape: &[u64], geometry: bool, ggml: bool) -> String {
    let dims: Vec<String> = shape.iter().map(u64::to_string).collect();
    let row = match (geometry, ggml) {
        (false, _) => "",
        (true, true) => "a row is ne0, GGUF's first (contiguous) dimension",
        (true, false) => "a row is the last dimension",
    };
    format!("shape [{}] · {row}", dims.join(", "))
}

/// What opening tensor `index` of a model shows before its window is read ([`opening`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Opening {
    /// The tensor's name (`data-tensor`).
    pub tensor: String,
    /// The window asked for, with a structured array's field filled in (the first decodable
    /// one when none was chosen); its `field` is `data-field`.
    pub req: WindowRequest,
    /// The window geometry of the tensor (of the field), `None` when it has none (then the
    /// boxes cannot be read back).
    pub geometry: Option<Geometry>,
    /// The card's head and body ([`panel`]).
    pub nodes: [Node; 2],
}

impl Opening {
    /// The card's attributes once opened, `None` to remove one: `data-state` (loading),
    /// `data-tensor`, `data-field` (a structured array's field only) and no `data-render-ms`
    /// (the last draw's).
    pub fn card_attrs(&self) -> [(&'static str, Option<String>); 4] {
        [
            ("data-state", Some(Stage::Reading.data_state().to_string())),
            ("data-tensor", Some(self.tensor.clone())),
            ("data-field", self.req.field.clone()),
            ("data-render-ms", None),
        ]
    }

    /// The request of "First rows": the default window of the field shown.
    pub fn first_rows(&self) -> WindowRequest {
        WindowRequest {
            field: self.req.field.clone(),
            ..WindowRequest::default()
        }
    }

    /// The window `control` asks for, the boxes holding `rows` and `cols` ([`typed_request`]
    /// for Show): `None` when there is none to ask (Show for a tensor without a window
    /// geometry); the boxes' error for the error box.
    pub fn request(
        &self,
        control: Control,
        rows: &str,
        cols: &str,
    ) -> Option<Result<WindowRequest, WindowError>> {
        let field = self.req.field.as_deref();
        Some(match control {
            Control::Show => typed_request(rows, cols, field, self.geometry.as_ref()?),
            Control::FirstRows => Ok(self.first_rows()),
            Control::Field(f) => Ok(WindowRequest {
                field: Some(f),
                ..WindowRequest::default()
            }),
        })
    }
}

/// A control of the panel's window form that re-opens the panel on another window
/// ([`Opening::request`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Control {
    /// Show (`preview-apply`), or Enter in a window box: the window typed in the boxes.
    Show,
    /// First rows: the default window of the field shown.
    FirstRows,
    /// Another field of a structured array picked in `preview-field`: its default window.
    Field(String),
}

/// The panel for tensor `index` of `model` asked with `req` ([`Opening`]): its title (with the
/// field), the dtype and shape of what is shown (the field's, for a structured array), the
/// field menu. `None` when there is no such tensor.
pub fn opening(model: &Model, index: usize, req: WindowRequest) -> Option<Opening> {
    let t = model.tensors.get(index)?;
    let mut req = req;
    if req.field.is_none() {
        req.field = preview::default_field(model, index).map(str::to_string);
    }
    let field = req.field.as_deref();
    let view = field.and_then(|f| preview::field_view(model, index, f).ok());
    let shown = view.as_ref().map_or(t, |g| &g.view);
    let geometry = preview::target_geometry(model, index, field).ok();
    let ggml = matches!(shown.dtype, DType::Ggml(_));
    let note = shape_note(&shown.shape, geometry.is_some(), ggml);
    let fields = pv::field_options(model, index);
    let title = pv::title(&t.name, field);
    let nodes = panel(&title, &shown.dtype.label(), &note, &fields, field);
    Some(Opening {
        tensor: t.name.clone(),
        req,
        geometry,
        nodes,
    })
}

/// A window box (`data-testid="preview-rows"` / `preview-cols`), `A..B`, titled `title`.
fn range_input(name: &str, title: &str) -> Node {
    node::el("input", "range-input mono")
        .attr("type", "text")
        .testid(&format!("preview-{name}"))
        .attr("title", title)
        .attr("aria-label", title)
        .attr("spellcheck", "false")
        .attr("placeholder", "A..B")
}

/// A labelled control of the window form (`label.range`).
fn labelled(label: &str, control: Node) -> Node {
    node::el("label", "range")
        .child(node::text("span", "muted", label))
        .child(control)
}

/// The card's head and body for a tensor (appended to the emptied `section.card.preview`):
/// the head holds the `title`, the `dtype` chip and the close button; the body the
/// `shape_note`, the window form (a structured array's field menu `preview-field` when
/// `fields` is not empty, `chosen` selected; the rows and columns boxes; Show
/// (`preview-apply`), First rows; the hidden per-block scales toggle), the window line, the
/// bytes read line (`preview-bytes-read`), the status line (reading), the hidden error
/// (`preview-error`, an alert) and the empty `div.preview-content` for [`content`].
pub fn panel(
    title: &str,
    dtype: &str,
    shape_note: &str,
    fields: &[pv::FieldOption],
    chosen: Option<&str>,
) -> [Node; 2] {
    let bg = dtype_color(dtype);
    let head = node::el("header", "card-head")
        .child(node::text("h2", "preview-title", title))
        .child(
            node::text("span", "chip", dtype)
                .style("background", bg)
                .style("color", text_on(bg)),
        )
        .child(
            node::text("button", "link", "close")
                .attr("type", "button")
                .attr("aria-label", "close the preview"),
        );
    let mut controls = node::el("div", "preview-controls");
    if !fields.is_empty() {
        let options = fields.iter().map(|f| {
            let mut o = node::text("option", "", &f.label).attr("value", f.name.as_str());
            if !f.enabled {
                o = o.attr("disabled", "");
            }
            if Some(f.name.as_str()) == chosen {
                o = o.attr("selected", "");
            }
            o
        });
        let select = node::el("select", "")
            .testid("preview-field")
            .attr("aria-label", "the structured array's field to preview")
            .children(options);
        controls.push(labelled("field", select));
    }
    let controls = controls
        .child(labelled(
            "rows",
            range_input("rows", "rows A..B (end exclusive)"),
        ))
        .child(labelled(
            "columns",
            range_input("cols", "columns A..B within a row (a crop)"),
        ))
        .child(
            node::text("button", "button", "Show")
                .attr("type", "button")
                .testid("preview-apply"),
        )
        .child(node::text("button", "button", "First rows").attr("type", "button"))
        .child(
            node::el("label", "scales-toggle")
                .attr("hidden", "")
                .child(
                    node::el("input", "")
                        .attr("type", "checkbox")
                        .testid("preview-scales-toggle"),
                )
                .child(node::text("span", "", "per-block scales")),
        );
    let body = node::el("div", "card-body")
        .child(node::el("p", "note preview-window").child(node::text("span", "", shape_note)))
        .child(controls)
        .child(node::el("p", "preview-window-line"))
        .child(node::el("p", "muted").testid("preview-bytes-read"))
        .child(node::text(
            "p",
            "status-line muted",
            Stage::Reading.status().unwrap_or_default(),
        ))
        .child(
            node::el("div", "error preview-error")
                .testid("preview-error")
                .attr("role", "alert")
                .attr("hidden", ""),
        )
        .child(node::el("div", "preview-content"));
    [head, body]
}

/// What `div.preview-content` holds for a finished preview: the note of an empty window
/// (`preview-empty`) alone; else the note on complex values if any, the statistics beside the
/// histogram (`div.preview-top`), the heatmap figure (its canvas painted by the page) and the
/// first values.
pub fn content(p: &Preview) -> Vec<Node> {
    if let Some(empty) = pv::empty_text(p) {
        return vec![node::text("p", "note", &empty).testid("preview-empty")];
    }
    let mut out: Vec<Node> = pv::values_note(p)
        .map(|t| node::text("p", "note", t))
        .into_iter()
        .collect();
    out.push(
        node::el("div", "preview-top")
            .child(stats(p))
            .child(histogram(p)),
    );
    out.push(heatmap_figure());
    out.push(values_table(p));
    out
}

/// The statistics (`dl.preview-stats`, `data-testid="preview-stats"`): a `div.stat` per
/// [`pv::stat_rows`] row with `data-stat` and `data-value`, its label and text.
pub fn stats(p: &Preview) -> Node {
    node::el("dl", "preview-stats")
        .testid("preview-stats")
        .children(pv::stat_rows(&p.stats).into_iter().map(|r| {
            node::el("div", "stat")
                .attr("data-stat", r.key)
                .attr("data-value", r.raw)
                .child(node::text("dt", "", r.label))
                .child(node::text("dd", "mono", &r.text))
        }))
}

/// The histogram figure: its caption, the SVG (`data-testid="preview-histogram"`, 480 × 140
/// user units: the zero line when 0 is inside, a `rect` per bin with `data-count` and its
/// range as tooltip) and the axis labels, or "no finite values".
pub fn histogram(p: &Preview) -> Node {
    let (w, h) = (480.0, 140.0);
    let caption = format!(
        "Histogram ({} bins, finite values)",
        p.histogram.counts.len()
    );
    let axis = pv::histogram_axis(&p.histogram);
    let mut svg = node::svg("svg")
        .testid("preview-histogram")
        .attr("viewBox", format!("0 0 {w} {h}"))
        .attr("preserveAspectRatio", "none")
        .attr("role", "img")
        .attr("aria-label", "histogram of the window's values");
    if let Some((_, Some(z), _)) = &axis {
        let x = format!("{:.2}", z * w);
        svg.push(
            node::svg("line")
                .attr("x1", x.clone())
                .attr("x2", x)
                .attr("y1", "0")
                .attr("y2", h.to_string())
                .attr("class", "zero"),
        );
    }
    let bars = pv::histogram_bars(&p.histogram, w, h).into_iter().map(|b| {
        node::svg("rect")
            .attr("x", format!("{:.2}", b.x))
            .attr("y", format!("{:.2}", b.y))
            .attr("width", format!("{:.2}", (b.w - 0.5).max(0.5)))
            .attr("height", format!("{:.2}", b.h))
            .attr("data-count", b.count.to_string())
            .child(node::svg("title").text(b.title))
    });
    let fig = node::el("figure", "preview-hist")
        .child(node::text("figcaption", "fig-title", &caption))
        .child(svg.children(bars));
    match axis {
        Some((lo, zero, hi)) => {
            let mut a = node::el("div", "hist-axis mono").child(node::text("span", "", &lo));
            if let Some(z) = zero {
                a.push(node::text("span", "zero", "0").style("left", format!("{:.1}%", z * 100.0)));
            }
            fig.child(a.child(node::text("span", "", &hi)))
        }
        None => fig.child(node::text("p", "muted", "no finite values")),
    }
}

/// The heatmap figure: its caption (`figcaption.fig-title`), the canvas the page paints
/// (`data-testid="preview-heatmap"`), the colour legend (`div.heat-bar` with the scale's
/// gradient, `div.heat-labels` filled by [`heat_labels`]) and an empty note.
pub fn heatmap_figure() -> Node {
    node::el("figure", "preview-heat")
        .child(node::text("figcaption", "fig-title", heat_title(false)))
        .child(node::el("canvas", "").testid("preview-heatmap"))
        .child(
            node::el("div", "heat-legend")
                .child(node::el("div", "heat-bar").style("background", Heatmap::css_gradient()))
                .child(node::el("div", "heat-labels mono")),
        )
        .child(node::el("p", "note"))
}

/// The legend's labels (a `span` each) and the note under the heatmap `h` (prefixed by
/// `caption`, the block scales' caption, when it shows them).
pub fn heat_labels(h: &Heatmap, caption: Option<&str>) -> (Vec<Node>, String) {
    let (labels, text) = pv::heatmap_legend(h);
    let text = match caption {
        Some(c) => format!("{c}; {text}"),
        None => text,
    };
    (
        labels.iter().map(|l| node::text("span", "", l)).collect(),
        text,
    )
}

/// The heatmap figure's caption: of the block scales (`scales`) or of the window's values.
pub fn heat_title(scales: bool) -> &'static str {
    if scales {
        "Per-block scales"
    } else {
        "Heatmap of the window"
    }
}

/// The heatmaps a finished preview can show: of the window's values, and of its per-block
/// scales with their caption ([`pv::scales_caption`]) when it has them (the scales toggle).
#[derive(Debug, Clone, PartialEq)]
pub struct HeatViews {
    values: Heatmap,
    scales: Option<(Heatmap, String)>,
}

impl HeatViews {
    /// The heatmaps of `p`.
    pub fn of(p: &Preview) -> HeatViews {
        HeatViews {
            values: p.heatmap.clone(),
            scales: (p.block_scales.as_ref()).map(|s| (s.heatmap.clone(), pv::scales_caption(s))),
        }
    }

    /// Whether there are scales to toggle to (the toggle is shown).
    pub fn has_scales(&self) -> bool {
        self.scales.is_some()
    }

    /// What the figure shows with the toggle on (`scales`) or off: its title
    /// ([`heat_title`]), the heatmap painted, and the caption before its note (the scales').
    pub fn shown(&self, scales: bool) -> (&'static str, &Heatmap, Option<&str>) {
        match (&self.scales, scales) {
            (Some((h, caption)), true) => (heat_title(true), h, Some(caption.as_str())),
            _ => (heat_title(false), &self.values, None),
        }
    }
}

/// How the canvas shows heatmap `h`: one pixel per cell (`width` × `height`, the canvas's own
/// size), its CSS `style` ([`heat_css`]: the height follows the width through
/// `aspect-ratio`, so a narrow screen shrinks the canvas without distorting it) and its
/// `attrs` (`data-cells` = `ROWSxCOLS`, `data-limit` = the colour scale's limit).
#[derive(Debug, Clone, PartialEq)]
pub struct HeatCanvas {
    /// Canvas width in pixels: the heatmap's cell columns.
    pub width: u32,
    /// Canvas height in pixels: its cell rows.
    pub height: u32,
    /// `width` and `aspect-ratio` style values.
    pub style: [(&'static str, String); 2],
    /// `data-cells` and `data-limit`.
    pub attrs: [(&'static str, String); 2],
}

/// The canvas for heatmap `h` ([`HeatCanvas`]).
pub fn heat_canvas(h: &Heatmap) -> HeatCanvas {
    let (width, height) = (h.cols as u32, h.rows as u32);
    let (css_w, aspect) = heat_css(h);
    HeatCanvas {
        width,
        height,
        style: [("width", css_w), ("aspect-ratio", aspect)],
        attrs: [
            ("data-cells", format!("{height}x{width}")),
            ("data-limit", format!("{:?}", h.limit)),
        ],
    }
}

/// The bytes-read line's attributes for preview `p`: `data-value` (bytes read) and
/// `data-range` (`offset+length` of the read in the file).
pub fn bytes_read_attrs(p: &Preview) -> [(&'static str, String); 2] {
    [
        ("data-value", p.bytes_read.to_string()),
        (
            "data-range",
            format!("{}+{}", p.window.read_offset, p.window.read_len),
        ),
    ]
}

/// Where the preview panel is, as the card shows it: `data-state` ([`Stage::data_state`]) and
/// the status line ([`Stage::status`]; hidden once ready or failed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// In a hidden tab panel: nothing is read until the tab is shown.
    Waiting,
    /// Reading the window's bytes.
    Reading,
    /// Decoding the bytes read.
    Decoding,
    /// Drawn.
    Ready,
    /// Failed (the error box says why).
    Error,
}

impl Stage {
    /// The card's `data-state`: `waiting`, `loading` (reading or decoding), `ready` or `error`.
    pub fn data_state(self) -> &'static str {
        match self {
            Stage::Waiting => "waiting",
            Stage::Reading | Stage::Decoding => "loading",
            Stage::Ready => "ready",
            Stage::Error => "error",
        }
    }

    /// The status line's text, `None` when the line is hidden (ready or failed).
    pub fn status(self) -> Option<&'static str> {
        match self {
            Stage::Waiting => Some("The values are read when this tab is shown."),
            Stage::Reading => Some("Reading the window's bytes…"),
            Stage::Decoding => Some("Decoding the window…"),
            Stage::Ready | Stage::Error => None,
        }
    }
}

/// The rows and columns boxes' texts for `plan`'s window, `A..B` each (end exclusive); both
/// empty for a tensor with a zero dimension (no window to edit: Show asks for the default).
pub fn range_texts(plan: &Plan) -> [String; 2] {
    if plan.values() == 0 {
        return [String::new(), String::new()];
    }
    let (r, c) = (&plan.rows, &plan.cols);
    [
        format!("{}..{}", r.start, r.end),
        format!("{}..{}", c.start, c.end),
    ]
}

/// The window the boxes ask for: `rows` and `cols` as typed (a blank box is no range, the
/// default), of `field` when a structured array's field is shown, within geometry `g`; the
/// one reading of a window shared with the CLI and the API ([`WindowSpec::request`]).
/// Errors: the typed [`WindowError`]; the error box words it with
/// `text_for(Front::Page)`.
pub fn typed_request(
    rows: &str,
    cols: &str,
    field: Option<&str>,
    g: &Geometry,
) -> Result<WindowRequest, WindowError> {
    let typed = |v: &str| (!v.trim().is_empty()).then(|| RangeSpec::Text(v.to_string()));
    let spec = WindowSpec {
        rows: typed(rows),
        cols: typed(cols),
        field: field.map(|f| Ok(f.to_string())),
    };
    spec.request(g)
}

/// The canvas's CSS size for `h`: the window's own aspect ratio (rows : columns of values),
/// at most 640 CSS px on the longer side, between 160 and 640 px wide and 48 and 640 px tall:
/// (`width`, `aspect-ratio`) style values.
pub fn heat_css(h: &Heatmap) -> (String, String) {
    let (gr, gc) = (h.grid_rows.max(1) as f64, h.grid_cols.max(1) as f64);
    let scale = 640.0 / gr.max(gc);
    let css_w = (gc * scale).clamp(160.0, 640.0);
    let css_h = (gr * scale).clamp(48.0, 640.0);
    (format!("{css_w:.0}px"), format!("{css_w:.0} / {css_h:.0}"))
}

/// The first values (`table.values-table`, `data-testid="preview-values"`, in a keyboard
/// scrollable `div.preview-values`): a row per value with `data-index`, `data-bits` (an f32's
/// bits) and `data-value` (exact), its index, row, column and text.
pub fn values_table(p: &Preview) -> Node {
    let head =
        node::el("tr", "").children(["index", "row", "column", "value"].map(|h| {
            node::text("th", if h == "value" { "num" } else { "" }, h).attr("scope", "col")
        }));
    let rows = p.first_values.iter().map(|v| {
        let mut tr = node::el("tr", "").attr("data-index", v.index.to_string());
        if let Exact::F32(x) = v.value {
            tr = tr.attr("data-bits", x.to_bits().to_string());
        }
        tr.attr("data-value", exact_raw(v.value)).children(
            [
                (v.index.to_string(), "mono muted"),
                (v.row.to_string(), "mono"),
                (v.col.to_string(), "mono"),
                (v.text.clone(), "mono num"),
            ]
            .map(|(t, c)| node::text("td", c, &t)),
        )
    });
    node::el("div", "preview-values table-scroll")
        .attr("tabindex", "0")
        .attr("aria-label", "first values")
        .child(
            node::el("table", "values-table")
                .testid("preview-values")
                .child(node::text(
                    "caption",
                    "fig-title",
                    &format!("First {} values", p.first_values.len()),
                ))
                .child(node::el("thead", "").child(head))
                .child(node::el("tbody", "").children(rows)),
        )
}

#[cfg(test)]
mod tests;
