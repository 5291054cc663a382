//! The memory estimate against llama.cpp's own report for the real Gemma 3 270M GGUF.
//!
//! `tests/reference/llama_cpp_memory.json` is llama.cpp's output (llama-cpp-python 0.3.36 from
//! PyPI, which builds the llama.cpp it bundles), recorded by
//! `tests/reference/llama_cpp_memory.py`: for each setting (context length, KV cache type,
//! `swa_full`), the cells, layers and MiB of each KV cache it allocated, and the weights'
//! buffer. llama.cpp prints MiB with two decimals, so sizes are compared at that precision;
//! cells and layers exactly. (The script takes ~10 minutes to build llama.cpp, so its output is
//! committed; its header records the package version and the model's sha256.)

mod common;

use common::{data_dir, open_model, real_file};
use weightpeek::summary::memory::{estimate, KvType};

/// `bytes` in MiB as llama.cpp prints it (`%.2f`).
fn mib(bytes: u64) -> String {
    format!("{:.2}", bytes as f64 / (1024.0 * 1024.0))
}

#[test]
fn gemma_3_kv_cache_and_weights_match_llama_cpp() {
    let Some(p) = real_file(data_dir().join("gemma-3-270m-q4_k_m.gguf")) else {
        return;
    };
    let reference: serde_json::Value =
        serde_json::from_str(include_str!("reference/llama_cpp_memory.json")).unwrap();
    let (m, _) = open_model(&p);
    let cases = reference["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 5);
    for c in cases {
        let ctx = c["n_ctx"].as_u64().unwrap();
        let kv = KvType::parse(c["kv_type"].as_str().unwrap()).unwrap();
        let swa_full = c["swa_full"].as_bool().unwrap();
        let label = format!("n_ctx {ctx}, {}, swa_full {swa_full}", kv.name());
        let e = estimate(&m, Some(ctx), kv).unwrap_or_else(|err| panic!("{label}: {err}"));
        let sw = e
            .sliding_window
            .as_ref()
            .expect("Gemma 3 has sliding-window layers");
        let caches = c["caches"].as_array().unwrap();
        assert_eq!(
            caches.len(),
            2,
            "{label}: llama.cpp's non-SWA and SWA caches"
        );
        let (full, swa) = (&caches[0], &caches[1]);
        // The full-attention layers: every cell of the (256-padded) context.
        assert_eq!(full["cells"].as_u64(), Some(e.cells), "{label}: cells");
        assert_eq!(full["layers"].as_u64(), Some(sw.full_layers), "{label}");
        assert_eq!(
            format!("{:.2}", full["mib"].as_f64().unwrap()),
            mib(sw.full_bytes),
            "{label}"
        );
        assert_eq!(swa["layers"].as_u64(), Some(sw.swa_layers), "{label}");
        if swa_full {
            // swa_full (the C API's default): every layer at the full context, our upper bound.
            assert_eq!(swa["cells"].as_u64(), Some(e.cells), "{label}");
            let total = full["mib"].as_f64().unwrap() + swa["mib"].as_f64().unwrap();
            assert_eq!(
                format!("{total:.2}"),
                mib(e.kv_full_context_bytes),
                "{label}"
            );
        } else {
            // llama-cli / llama-server: the window plus one ubatch, our estimate.
            assert_eq!(swa["cells"].as_u64(), Some(sw.cells), "{label}: SWA cells");
            assert_eq!(
                format!("{:.2}", swa["mib"].as_f64().unwrap()),
                mib(sw.swa_bytes),
                "{label}"
            );
            assert_eq!(sw.full_bytes + sw.swa_bytes, e.kv_bytes, "{label}");
        }
        // The weights: llama.cpp maps the file's tensor data (its CPU_Mapped buffer).
        assert_eq!(
            format!("{:.2}", c["weights_mib"].as_f64().unwrap()),
            mib(e.weights_bytes),
            "{label}: weights"
        );
    }
}
