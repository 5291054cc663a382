//! Tensor previews (src/preview/) against tests/reference/preview_reference.py (gguf-py
//! GGUFReader + gguf.quants.dequantize, safetensors + numpy, float64 statistics) on the real
//! Gemma 3 GGUF and MiniLM safetensors files, with the bytes read counted at the source; the
//! decoded rows against tests/reference/dequant_vectors.py's Gemma rows bit for bit; and window
//! planning (rows, crops, partial blocks, overflow, files cut short, types that cannot be
//! previewed) on fixtures.

mod common;

use std::path::Path;

use common::{data_dir, real_file, reference, reference_dir, CountingFile, GgufBuilder};
use serde_json::Value as J;
use weightpeek::dequant::Exact;
use weightpeek::format::Model;
use weightpeek::open::OpenedModel;
use weightpeek::preview::{
    parse_range, plan, preview_tensor, read_window, Job, PreviewError, WindowRequest,
};
use weightpeek::source::{block_on_ready, parse_bytes};

/// The model, and its source with the header's reads forgotten (only the preview's are counted).
fn open(p: &Path) -> (OpenedModel, CountingFile) {
    let (m, mut src) = common::open_model(p);
    src.bytes = 0;
    src.reads.clear();
    (m, src)
}

fn range(v: &J) -> Option<std::ops::Range<u64>> {
    v.as_array()
        .map(|a| a[0].as_u64().unwrap()..a[1].as_u64().unwrap())
}

/// `got` equals the float64 reference `want` up to the summation order: numpy sums pairwise,
/// weightpeek in window order, so sums differ by at most ~n·ε·Σ|x|; `scale` is the mean |x|.
fn close(what: &str, got: Option<f64>, want: &J, scale: f64) {
    let want = want
        .as_f64()
        .unwrap_or_else(|| panic!("{what}: no reference"));
    let got = got.unwrap_or_else(|| panic!("{what}: no value"));
    let tol = 1e-9 * scale.max(want.abs());
    assert!(
        (got - want).abs() <= tol,
        "{what}: {got} vs reference {want} (tolerance {tol:e})"
    );
}

#[test]
fn real_files_match_the_reference_previews() {
    let Some(doc) = reference("preview") else {
        return;
    };
    let files = [
        ("gemma", data_dir().join("gemma-3-270m-q4_k_m.gguf")),
        (
            "minilm",
            data_dir().join("all-MiniLM-L6-v2/model.safetensors"),
        ),
    ];
    let mut checked = 0;
    for (key, path) in files {
        let Some(path) = real_file(path) else { return };
        let (model, mut src) = open(&path);
        for case in doc["cases"].as_array().unwrap() {
            if case["file"] != key {
                continue;
            }
            let name = case["tensor"].as_str().unwrap();
            let label = format!("{name} {:?}", case["request"]);
            let req = WindowRequest {
                rows: range(&case["request"]["rows"]),
                cols: range(&case["request"]["cols"]),
                field: None,
            };
            src.bytes = 0;
            src.reads.clear();
            let p = block_on_ready(preview_tensor(&model, &mut src, name, &req))
                .unwrap_or_else(|e| panic!("{label}: {e}"));
            // Exactly the planned range was read, once, and it is the reference's range.
            let want_off = case["read_offset"].as_u64().unwrap();
            let want_len = case["read_len"].as_u64().unwrap();
            assert_eq!(src.reads, vec![(want_off, want_len)], "{label}: reads");
            assert_eq!(src.bytes, want_len, "{label}: bytes read");
            assert_eq!(p.bytes_read, want_len, "{label}");
            assert_eq!(p.dtype, case["dtype"].as_str().unwrap(), "{label}");
            assert_eq!(Some(p.window.rows.clone()), range(&case["rows"]), "{label}");
            assert_eq!(Some(p.window.cols.clone()), range(&case["cols"]), "{label}");
            // The window is far smaller than the tensor for the big ones.
            assert!(p.bytes_read <= p.window.tensor_bytes);

            let s = &case["stats"];
            let st = &p.stats;
            for (k, got) in [
                ("count", st.count),
                ("finite", st.finite),
                ("zeros", st.zeros),
                ("nan", st.nan),
                ("pos_inf", st.pos_inf),
                ("neg_inf", st.neg_inf),
            ] {
                assert_eq!(Some(got), s[k].as_u64(), "{label}: {k}");
            }
            // f32 values written as f64 text; serde_json's default parser may be one f64 ulp
            // off, which rounds back to the same f32.
            let f32_of = |e: Option<weightpeek::dequant::Exact>| e.map(|e| e.to_f64() as f32);
            assert_eq!(
                f32_of(st.min),
                s["min"].as_f64().map(|v| v as f32),
                "{label}: min"
            );
            assert_eq!(
                f32_of(st.max),
                s["max"].as_f64().map(|v| v as f32),
                "{label}: max"
            );
            let scale = s["mean_abs"].as_f64().unwrap();
            close(&format!("{label}: mean"), st.mean, &s["mean"], scale);
            close(&format!("{label}: std"), st.std, &s["std"], scale);
            close(
                &format!("{label}: mean_abs"),
                st.mean_abs,
                &s["mean_abs"],
                scale,
            );
            let counts: Vec<u64> = s["histogram"]["counts"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_u64().unwrap())
                .collect();
            assert_eq!(p.histogram.counts, counts, "{label}: histogram");
            let edges: Vec<f64> = s["histogram"]["edges"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_f64().unwrap())
                .collect();
            assert_eq!(p.histogram.edges.len(), edges.len());
            for (a, b) in p.histogram.edges.iter().zip(&edges) {
                // Same f64 expression on both sides; the slack is serde_json's parsing.
                assert!(
                    (a - b).abs() <= 1e-15 * b.abs().max(1e-300),
                    "{label}: edge {a} vs {b}"
                );
            }
            // The reference's f32 bits (I64 position ids are small integers, exact in f32).
            let bits: Vec<u32> = p
                .first_values
                .iter()
                .map(|v| (v.value.to_f64() as f32).to_bits())
                .collect();
            let want_bits: Vec<u32> = case["first_bits"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| b.as_u64().unwrap() as u32)
                .collect();
            assert_eq!(bits, want_bits, "{label}: first values (bit patterns)");
            let v0 = &p.first_values[0];
            assert_eq!((v0.row, v0.col), (p.window.rows.start, p.window.cols.start));
            // Heatmap: at most 512×512 cells, each covered cell's value is one of the window's.
            assert!(p.heatmap.rows <= 512 && p.heatmap.cols <= 512);
            assert!(p.heatmap.limit > 0.0);
            checked += 1;
        }
    }
    assert_eq!(checked, doc["cases"].as_array().unwrap().len());
}

/// The decoded rows of the first Q4_K / Q6_K / Q8_0 / Q5_0 tensors equal the dequantisation
/// reference vectors (gguf-py, from the same Gemma rows) bit for bit, read through the preview.
#[test]
fn gemma_rows_equal_the_dequant_reference_vectors() {
    let Some(index) = reference("dequant/index") else {
        return;
    };
    let Some(path) = real_file(data_dir().join("gemma-3-270m-q4_k_m.gguf")) else {
        return;
    };
    let (model, mut src) = open(&path);
    let dir = reference_dir().join("dequant");
    for ty in ["Q4_K", "Q5_0", "Q6_K", "Q8_0"] {
        let i = model
            .tensors
            .iter()
            .position(|t| t.dtype.label() == ty)
            .unwrap();
        let req = WindowRequest {
            rows: Some(0..2),
            cols: None,
            field: None,
        };
        let p = plan(&model, i, &req).unwrap();
        src.bytes = 0;
        let bytes = block_on_ready(read_window(&mut src, &mut p.clone())).unwrap();
        assert_eq!(src.bytes, p.read_len);
        let mut job = Job::new(&model, p, bytes).unwrap();
        while !job.step(1000).unwrap() {}
        let case = index["cases"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"].as_str() == Some(&format!("{ty}.gemma")))
            .unwrap();
        let want: Vec<u32> = std::fs::read(dir.join(case["expected"].as_str().unwrap()))
            .unwrap()
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let got: Vec<u32> = job
            .values_f64()
            .iter()
            .map(|&v| (v as f32).to_bits())
            .collect();
        assert_eq!(got, want, "{ty}");
        let preview = job.finish().unwrap();
        let scales = preview
            .block_scales
            .expect("quantised types have block scales");
        assert_eq!(
            scales.stats.count,
            2 * model.tensors[i].shape[0] / scales.block_values
        );
    }
}

// --- Planning on fixtures -----------------------------------------------------------------

/// A GGUF with one tensor of type `ty` and shape `dims`, its data section `data_len` bytes.
fn fixture(ty: u32, dims: &[u64], data_len: u64) -> Model {
    let mut b = GgufBuilder::new(3).tensor("t", dims, ty, 0);
    b.data_len = data_len;
    parse_bytes(&b.build()).unwrap()
}

#[test]
fn windows_are_row_aligned_whole_blocks() {
    // Q4_K (256 values in 144 bytes), 4 rows of 512: rows of 288 bytes.
    let m = OpenedModel::from(fixture(12, &[512, 4], 4 * 288));
    let off = m.tensors[0].offset;
    let p = plan(&m, 0, &WindowRequest::default()).unwrap();
    assert_eq!((p.rows.clone(), p.cols.clone()), (0..4, 0..512));
    assert_eq!((p.read_offset, p.read_len), (off, 4 * 288));
    // Rows 1..3: whole rows.
    let p = plan(
        &m,
        0,
        &WindowRequest {
            rows: Some(1..3),
            cols: None,
            field: None,
        },
    )
    .unwrap();
    assert_eq!((p.read_offset, p.read_len), (off + 288, 576));
    // A crop inside the second block of rows 1..3: from block 1 of row 1 to the end of block 1
    // of row 2 (144 + 288 bytes).
    let p = plan(
        &m,
        0,
        &WindowRequest {
            rows: Some(1..3),
            cols: Some(300..301),
            field: None,
        },
    )
    .unwrap();
    assert_eq!((p.unit_start, p.units), (1, 1));
    assert_eq!((p.read_offset, p.read_len), (off + 288 + 144, 432));
    // A crop straddling both blocks of one row reads that row only.
    let p = plan(
        &m,
        0,
        &WindowRequest {
            rows: Some(3..4),
            cols: Some(255..257),
            field: None,
        },
    )
    .unwrap();
    assert_eq!((p.read_offset, p.read_len), (off + 3 * 288, 288));
    let bytes = vec![0u8; 288];
    let pv = Job::new(&m, p, bytes).unwrap().run().unwrap();
    assert_eq!(pv.stats.count, 2);
    assert_eq!(pv.first_values[1].col, 256);
    assert_eq!(pv.first_values[1].index, 3 * 512 + 256);
}

#[test]
fn default_window_is_about_a_million_values() {
    // F16 [1000, 5000]: 1048 rows of 1000 values (2^20 / 1000).
    let m = OpenedModel::from(fixture(1, &[1000, 5000], 1000 * 5000 * 2));
    let p = plan(&m, 0, &WindowRequest::default()).unwrap();
    assert_eq!(p.rows, 0..1048);
    assert_eq!(p.read_len, 1048 * 2000);
    // A 1-D tensor longer than 2^20: its first 2^20 values.
    let m = OpenedModel::from(fixture(0, &[3 << 20], 12 << 20));
    let p = plan(&m, 0, &WindowRequest::default()).unwrap();
    assert_eq!((p.rows.clone(), p.cols.clone()), (0..1, 0..1 << 20));
    assert_eq!(p.read_len, 4 << 20);
}

#[test]
fn bad_windows_and_types_say_why() {
    let m = OpenedModel::from(fixture(0, &[8, 4], 128));
    let err = |req: WindowRequest| plan(&m, 0, &req).unwrap_err().to_string();
    let e = err(WindowRequest {
        rows: Some(3..9),
        cols: None,
        field: None,
    });
    assert!(e.contains("rows 3..9") && e.contains("4 rows"), "{e}");
    let e = err(WindowRequest {
        rows: None,
        cols: Some(2..2),
        field: None,
    });
    assert!(e.contains("columns 2..2"), "{e}");
    // Data past the end of the file: the data section is cut short.
    let cut = OpenedModel::from(fixture(0, &[8, 4], 100));
    let e = plan(&cut, 0, &WindowRequest::default()).unwrap_err();
    assert!(matches!(e, PreviewError::BeyondEnd { .. }), "{e}");
    assert!(e.to_string().contains("past the end"), "{e}");
    // Shapes whose byte size overflows 64 bits.
    let huge = OpenedModel::from(fixture(0, &[1 << 40, 1 << 40], 0));
    assert!(plan(&huge, 0, &WindowRequest::default()).is_err());
    // Unknown and removed types, quantised big-endian.
    let e = plan(&fixture(4, &[32], 18).into(), 0, &WindowRequest::default()).unwrap_err();
    assert!(e.to_string().contains("removed"), "{e}");
    let mut b = GgufBuilder::new(3).tensor("t", &[32], 2, 0);
    b.big_endian = true;
    b.data_len = 18;
    let be = OpenedModel::from(parse_bytes(&b.build()).unwrap());
    let e = plan(&be, 0, &WindowRequest::default()).unwrap_err();
    assert!(e.to_string().contains("big-endian"), "{e}");
    // Rows that are not whole blocks (Q4_0 needs 32 values per block).
    let e = plan(
        &fixture(2, &[48, 2], 54).into(),
        0,
        &WindowRequest::default(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("block"), "{e}");
}

#[test]
fn big_windows_are_refused_before_anything_is_allocated() {
    // F32 [1 << 20, 64]: 256 MiB of data present; 17 rows of 2^20 values is over the limit.
    let mut b = GgufBuilder::new(3).tensor("t", &[1 << 20, 64], 0, 0);
    b.data_len = 0;
    let (bytes, off) = b.build_with_offset();
    // The model believes the file is big enough: build the Model from the header only and
    // patch the size, so no 256 MiB buffer is needed.
    let mut m = OpenedModel::from(parse_bytes(&bytes).unwrap());
    m.file_size = off + (256 << 20);
    let e = plan(
        &m,
        0,
        &WindowRequest {
            rows: Some(0..17),
            cols: None,
            field: None,
        },
    )
    .unwrap_err();
    assert!(
        e.to_string().contains("more than one preview decodes"),
        "{e}"
    );
}

#[test]
fn safetensors_rows_are_the_last_dimension() {
    // F4 [3, 4]: two values per byte, rows of 2 bytes; BF16 scalar.
    let header = r#"{"a":{"dtype":"F4","shape":[3,4],"data_offsets":[0,6]},"b":{"dtype":"BF16","shape":[],"data_offsets":[6,8]},"c":{"dtype":"F6_E2M3","shape":[4],"data_offsets":[8,11]},"d":{"dtype":"C64","shape":[2,2],"data_offsets":[11,43]}}"#;
    let mut file = (header.len() as u64).to_le_bytes().to_vec();
    file.extend_from_slice(header.as_bytes());
    let base = file.len() as u64;
    file.extend_from_slice(&[0x21, 0x43, 0x65, 0x07, 0x00, 0x00]); // F4 nibbles
    file.extend_from_slice(&0x3F80u16.to_le_bytes()); // BF16 1.0
    file.extend_from_slice(&[0; 3]);
    for v in [1.0f32, -1.0, 2.0, -2.0, 3.0, -3.0, 4.0, -4.0] {
        file.extend_from_slice(&v.to_le_bytes());
    }
    let m = OpenedModel::from(parse_bytes(&file).unwrap());
    let p = plan(
        &m,
        0,
        &WindowRequest {
            rows: Some(1..2),
            cols: Some(1..3),
            field: None,
        },
    )
    .unwrap();
    assert_eq!((p.read_offset, p.read_len), (base + 2, 2));
    let pv = Job::new(
        &m,
        p,
        file[(base + 2) as usize..(base + 4) as usize].to_vec(),
    )
    .unwrap()
    .run()
    .unwrap();
    // Row 1 = bytes 0x65, 0x07: values (low nibble first) 5→3.0, 6→4.0, 7→6.0, 0→0.0.
    let got: Vec<Exact> = pv.first_values.iter().map(|v| v.value).collect();
    assert_eq!(got, vec![Exact::F32(4.0), Exact::F32(6.0)]);
    let p = plan(&m, 1, &WindowRequest::default()).unwrap();
    assert_eq!(
        (p.rows.clone(), p.cols.clone(), p.read_len),
        (0..1, 0..1, 2)
    );
    let e = plan(&m, 2, &WindowRequest::default()).unwrap_err();
    assert!(e.to_string().contains("F6_E2M3"), "{e}");
    // C64: a row of 2 elements is 2 complex values.
    let p = plan(&m, 3, &WindowRequest::default()).unwrap();
    assert_eq!((p.cols.clone(), p.read_len), (0..2, 32));
    let pv = Job::new(&m, p, file[(base + 11) as usize..].to_vec())
        .unwrap()
        .run()
        .unwrap();
    let got: Vec<Exact> = pv.first_values.iter().map(|v| v.value).collect();
    assert_eq!(
        got,
        [(1.0, -1.0), (2.0, -2.0), (3.0, -3.0), (4.0, -4.0)].map(|(re, im)| Exact::Complex(re, im))
    );
    assert_eq!(pv.first_values[3].text, "4 - 4i");
    assert_eq!((pv.first_values[3].row, pv.first_values[3].col), (1, 1));
}

#[test]
fn ranges_parse_like_the_cli_and_page_take_them() {
    assert_eq!(parse_range("5..9", 100), Ok(5..9));
    assert_eq!(parse_range(" 5.. ", 100), Ok(5..100));
    assert_eq!(parse_range("..3", 100), Ok(0..3));
    assert_eq!(parse_range("7", 100), Ok(7..8));
    assert_eq!(parse_range("1_000..2_000", 5000), Ok(1000..2000));
    assert!(parse_range("9..5", 100).is_err());
    assert!(parse_range("a..b", 100)
        .unwrap_err()
        .to_string()
        .contains("\"a\""));
    assert!(parse_range("18446744073709551615", 100).is_err());
}

#[test]
fn a_sliced_run_pauses_between_slices_and_stops_when_superseded() {
    use std::cell::Cell;
    use weightpeek::preview::{SLICE_MS, STEP_VALUES};
    // F32, 1,024 rows of 256: every value in the default window, several steps of work.
    let m = OpenedModel::from(fixture(0, &[256, 1024], 256 * 1024 * 4));
    let job = || {
        let p = plan(&m, 0, &WindowRequest::default()).unwrap();
        let n = p.read_len as usize;
        Job::new(&m, p, vec![0u8; n]).unwrap()
    };
    assert_eq!(job().len(), 2 * STEP_VALUES);
    let json = |p: &weightpeek::preview::Preview| serde_json::to_string(p).unwrap();
    let whole = json(&job().run().unwrap());
    // A clock that moves past a slice at every reading: a pause after every step.
    let clock = Cell::new(0.0);
    let now = || {
        let t = clock.get();
        clock.set(t + SLICE_MS + 1.0);
        t
    };
    let pauses = Cell::new(0u32);
    let pause = || {
        pauses.set(pauses.get() + 1);
        std::future::ready(())
    };
    let sliced = block_on_ready(job().run_sliced(now, pause, &|| true)).unwrap();
    assert_eq!(json(&sliced.finish().unwrap()), whole);
    let steps = pauses.get();
    assert!(steps >= 2, "{steps} pauses");
    // Superseded: it stops at the first pause.
    pauses.set(0);
    let stopped = block_on_ready(job().run_sliced(now, pause, &|| false));
    assert!(matches!(stopped, Err(PreviewError::Read(ref why)) if why == "superseded"));
    assert_eq!(pauses.get(), 1);
    // A clock that stands still: one slice, no pause, the same preview.
    pauses.set(0);
    let at_once = block_on_ready(job().run_sliced(|| 0.0, pause, &|| false)).unwrap();
    assert_eq!(json(&at_once.finish().unwrap()), whole);
    assert_eq!(pauses.get(), 0);
}
