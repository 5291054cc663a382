//! The memory estimate on the real Gemma 3 270M GGUF: the sliding-window split llama.cpp uses
//! (models/gemma3.cpp: `load_swa_pattern(ml, 6)`, every sixth layer full attention; the SWA
//! cache `GGML_PAD(min(n_ctx, n_swa + n_ubatch), 256)` cells, llama-kv-cache-iswa.cpp), with the
//! expected numbers worked out here from the file's own keys.

mod common;

use common::{data_dir, open_model, real_file, reference};
use weightpeek::format::{Model, Value};
use weightpeek::summary::memory::{estimate, KvType, CELL_PAD, N_UBATCH};

fn key(m: &Model, k: &str) -> u64 {
    m.get(k)
        .and_then(Value::as_u64)
        .unwrap_or_else(|| panic!("{k}"))
}

#[test]
fn gemma_3_270m_splits_full_and_sliding_window_layers_as_llama_cpp() {
    let Some(p) = real_file(data_dir().join("gemma-3-270m-q4_k_m.gguf")) else {
        return;
    };
    let (m, _) = open_model(&p);
    let layers = key(&m, "gemma3.block_count");
    let kv_heads = key(&m, "gemma3.attention.head_count_kv");
    let (dk, dv) = (
        key(&m, "gemma3.attention.key_length"),
        key(&m, "gemma3.attention.value_length"),
    );
    let window = key(&m, "gemma3.attention.sliding_window");
    // The file's own keys as gguf-py reads them (tests/reference/reference.py).
    let Some(r) = reference("gemma-3-270m-q4_k_m") else {
        return;
    };
    let rkey = |k: &str| {
        r["metadata"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["key"] == k)
            .and_then(|e| e["value"].as_u64())
            .unwrap_or_else(|| panic!("reference has no {k}"))
    };
    assert_eq!(
        (layers, window),
        (
            rkey("gemma3.block_count"),
            rkey("gemma3.attention.sliding_window")
        ),
        "the file this test was written for"
    );
    let pad = |n: u64| n.div_ceil(CELL_PAD) * CELL_PAD;
    // set_swa_pattern(6): layer il is sliding-window when il % 6 < 5.
    let swa: Vec<bool> = (0..layers).map(|il| il % 6 < 5).collect();
    let n_swa = swa.iter().filter(|&&s| s).count() as u64;
    let n_full = layers - n_swa;
    for (ctx, kv, (bb, bv)) in [
        (32_768u64, KvType::F16, (2u64, 1u64)),
        (4096, KvType::Q8_0, (34, 32)),
        (100, KvType::Q4_0, (18, 32)),
    ] {
        let e = estimate(&m, Some(ctx), kv).unwrap();
        let row = |values: u64| values.div_ceil(bv) * bb;
        let per_cell = row(kv_heads * dk) + row(kv_heads * dv);
        let cells = pad(ctx);
        let swa_cells = pad(cells.min(window + N_UBATCH));
        let s = e.sliding_window.as_ref().expect("a sliding-window split");
        assert_eq!(s.layers, swa, "{ctx}");
        assert_eq!((s.full_layers, s.swa_layers), (n_full, n_swa));
        assert_eq!((e.cells, s.cells), (cells, swa_cells), "{ctx}");
        assert_eq!(s.full_bytes, n_full * cells * per_cell, "{ctx}");
        assert_eq!(s.swa_bytes, n_swa * swa_cells * per_cell, "{ctx}");
        assert_eq!(e.kv_bytes, s.full_bytes + s.swa_bytes);
        assert_eq!(e.kv_full_context_bytes, layers * cells * per_cell);
        for (il, &b) in e.kv_per_layer.iter().enumerate() {
            let c = if swa[il] { swa_cells } else { cells };
            assert_eq!(b, c * per_cell, "layer {il} at {ctx}");
        }
        eprintln!(
            "gemma-3-270m at {ctx} tokens, {kv:?}: KV {} bytes ({n_full} × {cells} + {n_swa} × {swa_cells} cells), every layer at full context {} bytes",
            e.kv_bytes, e.kv_full_context_bytes
        );
    }
}
