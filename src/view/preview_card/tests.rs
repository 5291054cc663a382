//! The preview card's nodes against the previews of generated GGUF tensors.

use super::*;
use crate::preview::{heatmap_of, preview_tensor, stats_of, WindowRequest};
use crate::source::{block_on_ready, parse_bytes, MemSource};
use crate::view::testutil::gguf;

fn zeros() -> Preview {
    // An F32 tensor of 2 rows × 4 values, zero-filled.
    let b = gguf(&[], &[("w", 0, vec![4, 2], 32)]);
    let m = crate::open::OpenedModel::from(parse_bytes(&b).unwrap());
    let req = WindowRequest::default();
    block_on_ready(preview_tensor(&m, &mut MemSource::new(&b), "w", &req)).unwrap()
}

#[test]
fn stats_and_values_carry_raw_numbers() {
    let p = zeros();
    let s = stats(&p);
    assert_eq!(s.get_attr("data-testid"), Some("preview-stats"));
    assert_eq!(s.children.len(), pv::stat_rows(&p.stats).len());
    assert_eq!(s.children[0].get_attr("data-stat"), Some("count"));
    assert_eq!(s.children[0].get_attr("data-value"), Some("8"));
    assert_eq!(s.children[0].children[1].class, "mono");
    let v = values_table(&p);
    assert_eq!(v.get_attr("aria-label"), Some("first values"));
    let table = v.find_testid("preview-values").unwrap();
    assert_eq!(table.children[0].text.as_deref(), Some("First 8 values"));
    let rows = &table.children[2].children;
    assert_eq!(rows.len(), 8);
    assert_eq!(rows[5].get_attr("data-index"), Some("5"));
    assert_eq!(rows[5].get_attr("data-bits"), Some("0"));
    assert_eq!(rows[5].children[1].text.as_deref(), Some("1"));
    assert_eq!(rows[5].children[2].text.as_deref(), Some("1"));
    assert_eq!(rows[5].children[3].class, "mono num");
    let th = &table.children[1].children[0].children;
    assert_eq!((th[3].class.as_str(), th[0].class.as_str()), ("num", ""));
}

#[test]
fn the_panel_and_its_content() {
    let fields = [
        pv::FieldOption {
            name: "x".into(),
            label: "x (<f4)".into(),
            enabled: true,
        },
        pv::FieldOption {
            name: "s".into(),
            label: "s (<U3, not previewed)".into(),
            enabled: false,
        },
    ];
    let [head, body] = panel("a['x']", "F32", "shape [2] · ", &fields, Some("x"));
    assert_eq!(head.children[0].text.as_deref(), Some("a['x']"));
    assert_eq!(
        head.children[1].styles[0],
        ("background", dtype_color("F32").into())
    );
    assert_eq!(
        head.children[2].get_attr("aria-label"),
        Some("close the preview")
    );
    let select = body.find_testid("preview-field").unwrap();
    assert_eq!(select.children[0].get_attr("selected"), Some(""));
    assert_eq!(select.children[1].get_attr("disabled"), Some(""));
    assert_eq!(select.children[1].get_attr("selected"), None);
    let rows = body.find_testid("preview-rows").unwrap();
    assert_eq!(rows.get_attr("title"), Some("rows A..B (end exclusive)"));
    assert_eq!(rows.get_attr("placeholder"), Some("A..B"));
    assert_eq!(
        body.find_class("scales-toggle")[0].get_attr("hidden"),
        Some("")
    );
    assert_eq!(
        body.find_testid("preview-error").unwrap().get_attr("role"),
        Some("alert")
    );
    assert_eq!(body.children.last().unwrap().class, "preview-content");
    let [_, plain] = panel("w", "F32", "", &[], None);
    assert!(plain.find_testid("preview-field").is_none());
    assert_eq!(plain.children[1].children.len(), 5);

    assert_eq!(
        shape_note(&[32, 2], true, true),
        "shape [32, 2] · a row is ne0, GGUF's first (contiguous) dimension"
    );
    assert_eq!(
        shape_note(&[3], true, false),
        "shape [3] · a row is the last dimension"
    );
    assert_eq!(shape_note(&[0, 4], false, false), "shape [0, 4] · ");

    let p = zeros();
    let parts = content(&p);
    let classes: Vec<_> = parts.iter().map(|n| n.class.as_str()).collect();
    assert_eq!(
        classes,
        ["preview-top", "preview-heat", "preview-values table-scroll"]
    );
    let mut empty = p.clone();
    empty.stats.count = 0;
    let parts = content(&empty);
    assert_eq!(parts.len(), 1);
    assert_eq!(parts[0].get_attr("data-testid"), Some("preview-empty"));
}

#[test]
fn the_histogram_figure() {
    let mut p = zeros();
    let (s, h) = stats_of(&[1.0, -3.0, 0.0, 1e-9]);
    (p.stats, p.histogram) = (s, h);
    let fig = histogram(&p);
    let svg = fig.find_testid("preview-histogram").unwrap();
    assert!(svg.svg);
    assert_eq!(svg.get_attr("viewBox"), Some("0 0 480 140"));
    let line = &svg.children[0];
    assert_eq!(line.tag, "line");
    assert_eq!(line.get_attr("x1"), Some("360.00"));
    let rects: Vec<_> = svg.children.iter().filter(|n| n.tag == "rect").collect();
    assert_eq!(rects.len(), p.histogram.counts.len());
    let total: u64 = rects
        .iter()
        .map(|r| r.get_attr("data-count").unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(total, 4);
    assert_eq!(rects[0].children[0].tag, "title");
    let axis = &fig.find_class("hist-axis")[0];
    assert_eq!(axis.text_content(), "-301");
    assert_eq!(axis.children[1].styles[0], ("left", "75.0%".to_string()));
    p.histogram.edges.clear();
    p.histogram.counts.clear();
    let empty = histogram(&p);
    assert_eq!(empty.children[2].text.as_deref(), Some("no finite values"));
}

#[test]
fn the_heatmap_frame_labels_and_size() {
    let f = heatmap_figure();
    assert_eq!(f.find_testid("preview-heatmap").unwrap().tag, "canvas");
    assert_eq!(
        f.find_class("heat-bar")[0].styles[0],
        ("background", Heatmap::css_gradient())
    );
    let v: Vec<f32> = (0..640).map(|i| i as f32).collect();
    let h = heatmap_of(&v, 1, 640);
    let (labels, note) = heat_labels(&h, Some("scales"));
    assert_eq!(labels.len(), 3);
    assert_eq!(labels[1].text.as_deref(), Some("0"));
    assert!(note.starts_with("scales; one row of 640 values"), "{note}");
    // 25 lines of 26: nearly square.
    assert_eq!(heat_css(&h), ("640px".into(), "640 / 615".into()));
    let wide = heatmap_of(&vec![1.0f32; 2 * 1024], 2, 1024);
    assert_eq!(heat_css(&wide), ("640px".into(), "640 / 48".into()));
}

#[test]
fn the_toggle_shows_the_scales_or_the_values() {
    let mut p = zeros();
    let plain = HeatViews::of(&p);
    assert!(!plain.has_scales());
    assert_eq!(
        plain.shown(true),
        ("Heatmap of the window", &p.heatmap, None)
    );
    let scales = crate::preview::BlockScales {
        field: "super-block d (f16 at byte 0)",
        block_values: 256,
        heatmap: heatmap_of(&[0.5f32, 2.0], 1, 2),
        stats: stats_of(&[0.5, 2.0]).0,
    };
    let caption = pv::scales_caption(&scales);
    p.block_scales = Some(scales.clone());
    let views = HeatViews::of(&p);
    assert!(views.has_scales());
    assert_eq!(
        views.shown(true),
        ("Per-block scales", &scales.heatmap, Some(caption.as_str()))
    );
    assert!(caption.starts_with("super-block d (f16 at byte 0), one per 256-value block"));
    assert_eq!(
        views.shown(false),
        ("Heatmap of the window", &p.heatmap, None)
    );
}

#[test]
fn stages_say_their_state_and_status() {
    let states: Vec<_> = [
        Stage::Waiting,
        Stage::Reading,
        Stage::Decoding,
        Stage::Ready,
        Stage::Error,
    ]
    .map(|s| (s.data_state(), s.status().is_some()))
    .into();
    assert_eq!(
        states,
        [
            ("waiting", true),
            ("loading", true),
            ("loading", true),
            ("ready", false),
            ("error", false)
        ]
    );
    assert_eq!(Stage::Decoding.status(), Some("Decoding the window…"));
    // The panel is drawn reading.
    let [_, body] = panel("w", "F32", "", &[], None);
    let status = body
        .children
        .iter()
        .find(|c| c.class == "status-line muted");
    assert_eq!(
        status.and_then(|s| s.text.as_deref()),
        Some("Reading the window's bytes…")
    );
}

#[test]
fn the_boxes_show_and_read_the_window() {
    // F32 tensors: `w` of 3 rows × 5 values, `z` with a zero dimension.
    let b = gguf(&[], &[("w", 0, vec![5, 3], 60), ("z", 0, vec![5, 0], 0)]);
    let m = crate::open::OpenedModel::from(parse_bytes(&b).unwrap());
    let asked = WindowRequest {
        rows: Some(1..3),
        cols: Some(2..4),
        field: None,
    };
    let plan = crate::preview::plan(&m, 0, &asked).unwrap();
    assert_eq!(range_texts(&plan), ["1..3", "2..4"]);
    let whole = crate::preview::plan(&m, 0, &WindowRequest::default()).unwrap();
    assert_eq!(range_texts(&whole), ["0..3", "0..5"]);
    let empty = crate::preview::plan(&m, 1, &WindowRequest::default()).unwrap();
    assert_eq!(range_texts(&empty), ["", ""]);

    let g = crate::preview::target_geometry(&m, 0, None).unwrap();
    assert_eq!(
        typed_request("", "  ", None, &g),
        Ok(WindowRequest::default())
    );
    let typed = typed_request("1..3", "2..", None, &g).unwrap();
    assert_eq!((typed.rows, typed.cols), (Some(1..3), Some(2..5)));
    let bad = typed_request("x", "", None, &g)
        .unwrap_err()
        .text_for(crate::view::spec::Front::Page);
    assert!(bad.starts_with("rows"), "{bad}");
    assert_eq!(
        typed_request("", "", Some("a"), &g)
            .unwrap()
            .field
            .as_deref(),
        Some("a")
    );
}

#[test]
fn the_controls_ask_for_their_window() {
    let b = gguf(&[], &[("w", 0, vec![5, 3], 60)]);
    let m = crate::open::OpenedModel::from(parse_bytes(&b).unwrap());
    let mut o = opening(&m, 0, WindowRequest::default()).unwrap();
    let shown = o.request(Control::Show, "0..2", "1..3").unwrap().unwrap();
    assert_eq!(
        (shown.rows, shown.cols, shown.field),
        (Some(0..2), Some(1..3), None)
    );
    let bad = o.request(Control::Show, "", "9..x").unwrap().unwrap_err();
    assert!(bad
        .text_for(crate::view::spec::Front::Page)
        .starts_with("columns"));
    // A structured array's field shown: Show and First rows keep it.
    o.req.field = Some("x".into());
    let shown = o.request(Control::Show, "1..2", "").unwrap().unwrap();
    assert_eq!(
        (shown.rows, shown.field.as_deref()),
        (Some(1..2), Some("x"))
    );
    assert_eq!(
        o.request(Control::FirstRows, "1..2", "0..1"),
        Some(Ok(WindowRequest {
            field: Some("x".into()),
            ..WindowRequest::default()
        }))
    );
    assert_eq!(
        o.request(Control::Field("y".into()), "", ""),
        Some(Ok(WindowRequest {
            field: Some("y".into()),
            ..WindowRequest::default()
        }))
    );
    // No window geometry: Show asks for nothing; the others still re-open.
    o.geometry = None;
    assert_eq!(o.request(Control::Show, "0..2", ""), None);
    assert!(o.request(Control::FirstRows, "", "").is_some());
}

#[test]
fn the_canvas_has_a_pixel_per_cell() {
    let p = zeros();
    let c = heat_canvas(&p.heatmap);
    // 2 rows × 4 values: a cell each.
    assert_eq!((c.width, c.height), (4, 2));
    assert_eq!(c.attrs[0], ("data-cells", "2x4".to_string()));
    assert_eq!(c.attrs[1].0, "data-limit");
    let (w, aspect) = heat_css(&p.heatmap);
    assert_eq!(c.style, [("width", w), ("aspect-ratio", aspect)]);
    assert_eq!(heat_title(true), "Per-block scales");
    assert_eq!(
        heatmap_figure().children[0].text.as_deref(),
        Some(heat_title(false))
    );
}

#[test]
fn opening_a_tensor_shows_its_title_type_and_shape() {
    // GGUF F32 `w`: ne = [5, 3] (5 values a row, 3 rows).
    let b = gguf(&[], &[("w", 0, vec![5, 3], 60)]);
    let m = parse_bytes(&b).unwrap();
    let asked = WindowRequest {
        rows: Some(1..2),
        ..WindowRequest::default()
    };
    let o = opening(&m, 0, asked.clone()).unwrap();
    assert_eq!(o.tensor, "w");
    // Not a structured array: no field, the request as asked.
    assert_eq!(o.req, asked);
    assert_eq!(o.first_rows(), WindowRequest::default());
    let g = o.geometry.as_ref().unwrap();
    assert_eq!((g.rows, g.row_values), (3, 5));
    let [head, body] = &o.nodes;
    assert_eq!(
        head.find_class("preview-title")[0].text.as_deref(),
        Some("w")
    );
    assert_eq!(head.find_class("chip")[0].text.as_deref(), Some("F32"));
    assert_eq!(
        body.find_class("preview-window")[0].children[0]
            .text
            .as_deref(),
        Some("shape [5, 3] · a row is ne0, GGUF's first (contiguous) dimension")
    );
    assert!(body.find_testid("preview-field").is_none());
    assert!(opening(&m, 1, WindowRequest::default()).is_none());
}

#[test]
fn the_card_says_what_is_open_and_what_was_read() {
    let b = gguf(&[], &[("w", 0, vec![5, 3], 60)]);
    let m = crate::open::OpenedModel::from(parse_bytes(&b).unwrap());
    let o = opening(&m, 0, WindowRequest::default()).unwrap();
    assert_eq!(
        o.card_attrs(),
        [
            ("data-state", Some("loading".to_string())),
            ("data-tensor", Some("w".to_string())),
            ("data-field", None),
            ("data-render-ms", None),
        ]
    );
    // The whole tensor: 15 F32 values, 60 bytes, read from its data offset.
    let req = WindowRequest::default();
    let p = block_on_ready(preview_tensor(&m, &mut MemSource::new(&b), "w", &req)).unwrap();
    let [value, range] = bytes_read_attrs(&p);
    assert_eq!(value, ("data-value", "60".to_string()));
    let offset = m.tensors[0].offset;
    assert_eq!(range, ("data-range", format!("{offset}+60")));
}
