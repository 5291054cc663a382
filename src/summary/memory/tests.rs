//! Unit tests of the estimate on GGUF files built from metadata; the comparison with llama.cpp
//! itself is tests/memory_vs_llama_cpp.rs.

use super::*;
use crate::open::OpenedModel;
use crate::source::parse_bytes;
use crate::view::testutil::{gguf, Kv};

/// A model from metadata only (one 8-element f32 tensor, 32 bytes).
fn model(kvs: &[(&str, Kv<'_>)]) -> OpenedModel {
    parse_bytes(&gguf(kvs, &[("t", 0, vec![8], 0)]))
        .unwrap()
        .into()
}

/// f16 bytes of `layers` layers at `cells` cells with `h` KV heads of (k + v) dims.
fn f16(layers: u64, cells: u64, h: u64, k: u64, v: u64) -> u64 {
    layers * cells * h * (k + v) * 2
}

#[test]
fn llama_style_keys_give_the_formula() {
    let m = model(&[
        ("general.architecture", Kv::Str("llama")),
        ("llama.block_count", Kv::U32(2)),
        ("llama.embedding_length", Kv::U32(64)),
        ("llama.attention.head_count", Kv::U32(4)),
        ("llama.attention.head_count_kv", Kv::I32Array(vec![2, 0])),
        ("llama.context_length", Kv::U32(100)),
    ]);
    let e = estimate(&m, None, KvType::F16).unwrap();
    // head dim 64 / 4 = 16; 100 tokens are 256 cells; layer 1 has no KV heads.
    assert_eq!(e.context, 100);
    assert_eq!(e.cells, 256);
    assert_eq!(e.kv_per_layer, [f16(1, 256, 2, 16, 16), 0]);
    assert_eq!(e.weights_bytes, 32);
    assert_eq!(e.total_bytes, 32 + e.kv_bytes);
    assert_eq!(e.kv_full_context_bytes, e.kv_bytes);
    assert!(e.sliding_window.is_none() && !e.mla);
    assert!(e
        .notes
        .iter()
        .any(|n| n.contains("100 tokens are 256 cells")));
    let q8 = estimate(&m, Some(512), KvType::Q8_0).unwrap();
    // per row: 2 heads × 16 dims = 32 values = one 34-byte block, for K and for V.
    assert_eq!(q8.kv_bytes, 512 * (34 + 34));
    assert!(
        e.formula.starts_with(
            "KV = 2 layers × 256 cells × n_head_kv[l] KV heads × (16 + 16) dims × 2 B"
        ),
        "{}",
        e.formula
    );
}

#[test]
fn missing_keys_say_no_estimate() {
    let m = model(&[
        ("general.architecture", Kv::Str("mamba")),
        ("mamba.ssm.state_size", Kv::U32(16)),
    ]);
    assert!(estimate(&m, None, KvType::F16)
        .unwrap_err()
        .to_string()
        .contains("recurrent"));
    let m = model(&[("general.architecture", Kv::Str("llama"))]);
    let why = estimate(&m, None, KvType::F16).unwrap_err();
    assert_eq!(
        why,
        EstimateError::MissingKey {
            arch: "llama".into(),
            key: "block_count"
        }
    );
    assert_eq!(
        why.to_string(),
        "no estimate: the file has no llama.block_count key"
    );
    for (arch, says) in [
        ("qwen3next", "hybrid"),
        ("bert", "no KV cache"),
        ("gemma-embedding", "no KV cache"),
        ("deepseek32", "dedicated cache"),
    ] {
        let m = model(&[
            ("general.architecture", Kv::Str(arch)),
            (&format!("{arch}.block_count"), Kv::U32(2)),
        ]);
        let why = estimate(&m, Some(4096), KvType::F16)
            .unwrap_err()
            .to_string();
        assert!(why.contains(says), "{arch}: {why}");
    }
}

/// An encoder needs about its weights: their bytes when the tensor list was read, said to be
/// none for a file without tensors, and unknown (not a missing number) when parsing stopped
/// before the tensor list.
#[test]
fn an_encoder_needs_about_its_weights_known_or_not() {
    let kvs = [("general.architecture", Kv::Str("bert"))];
    let why = estimate(&model(&kvs), None, KvType::F16).unwrap_err();
    assert_eq!(
        why,
        EstimateError::NoCache {
            arch: "bert".into(),
            weights: Some(32)
        }
    );
    assert!(
        why.to_string().ends_with(
            "(llama_model::create_memory); it needs about as much memory as its weights, 32 B"
        ),
        "{why}"
    );
    let empty: OpenedModel = parse_bytes(&gguf(&kvs, &[])).unwrap().into();
    assert!(estimate(&empty, None, KvType::F16)
        .unwrap_err()
        .to_string()
        .ends_with("as much memory as its weights, and this file holds no tensors"));
    // Cut in its second key: the architecture was read, the tensor list was not.
    let b = gguf(
        &[
            ("general.architecture", Kv::Str("bert")),
            ("bert.block_count", Kv::U32(2)),
        ],
        &[("t", 0, vec![8], 0)],
    );
    // 24 bytes of counts, then the first key (8 + 20 name, 4 type, 8 + 4 value) ends at 68.
    let cut = parse_bytes(&b[..75]).unwrap();
    assert!(cut.error.is_some() && cut.tensors.is_empty());
    let why = estimate(&cut.into(), None, KvType::F16).unwrap_err();
    assert_eq!(
        why,
        EstimateError::NoCache {
            arch: "bert".into(),
            weights: None
        }
    );
    assert!(why.to_string().ends_with(
        "as much memory as its weights, which are not known: the header was not read to the end of its tensor list"
    ));
}

/// The common decoder architectures of issue #6, from the keys their converters write:
/// every layer at the full context.
#[test]
fn common_architectures_estimate_from_their_keys() {
    // (arch, layers, embd, heads, kv heads, key/value length if written)
    type Case = (&'static str, u32, u32, u32, u32, Option<u32>);
    let cases: [Case; 6] = [
        ("llama", 32, 4096, 32, 8, None),         // Llama 3 8B
        ("qwen2", 28, 3584, 28, 4, None),         // Qwen2.5 7B
        ("qwen3", 36, 4096, 32, 8, Some(128)),    // Qwen3 8B
        ("qwen3moe", 48, 2048, 32, 4, Some(128)), // Qwen3 30B-A3B
        ("phi3", 32, 3072, 32, 32, None),         // Phi-3 mini
        ("llama", 40, 5120, 32, 8, Some(128)),    // Mistral Nemo (llama arch)
    ];
    for (arch, layers, embd, heads, kv_heads, len) in cases {
        let k = |s: &str| format!("{arch}.{s}");
        let mut kvs = vec![
            ("general.architecture".to_string(), Kv::Str(arch)),
            (k("block_count"), Kv::U32(layers)),
            (k("embedding_length"), Kv::U32(embd)),
            (k("attention.head_count"), Kv::U32(heads)),
            (k("attention.head_count_kv"), Kv::U32(kv_heads)),
            (k("context_length"), Kv::U32(32768)),
        ];
        if let Some(l) = len {
            kvs.push((k("attention.key_length"), Kv::U32(l)));
            kvs.push((k("attention.value_length"), Kv::U32(l)));
        }
        if arch == "phi3" || embd == 5120 {
            kvs.push((k("attention.sliding_window"), Kv::U32(2047)));
        }
        let refs: Vec<(&str, Kv<'_>)> = kvs
            .iter()
            .map(|(a, b)| {
                (
                    a.as_str(),
                    match b {
                        Kv::Str(s) => Kv::Str(s),
                        Kv::U32(x) => Kv::U32(*x),
                        _ => unreachable!(),
                    },
                )
            })
            .collect();
        let m = model(&refs);
        let e = estimate(&m, Some(8192), KvType::F16).unwrap();
        let dim = u64::from(len.unwrap_or(embd / heads));
        let want = f16(layers.into(), 8192, kv_heads.into(), dim, dim);
        assert_eq!(e.kv_bytes, want, "{arch}");
        assert_eq!(e.kv_full_context_bytes, want, "{arch}");
        assert!(e.sliding_window.is_none(), "{arch}");
        if arch == "phi3" {
            assert!(e
                .notes
                .iter()
                .any(|n| n.contains("switches it off for phi3")));
        } else if embd == 5120 {
            assert!(e
                .notes
                .iter()
                .any(|n| n.contains("no per-layer window pattern for llama")));
        }
    }
}

fn gemma(arch: &str, layers: u32, window: Option<u32>, extra: &[(&str, Kv<'_>)]) -> OpenedModel {
    let k = |s: &str| format!("{arch}.{s}");
    let names = [
        k("block_count"),
        k("embedding_length"),
        k("attention.head_count"),
        k("attention.head_count_kv"),
        k("attention.key_length"),
        k("attention.value_length"),
        k("context_length"),
        k("attention.sliding_window"),
    ];
    let mut kvs: Vec<(&str, Kv<'_>)> = vec![
        ("general.architecture", Kv::Str(arch)),
        (&names[0], Kv::U32(layers)),
        (&names[1], Kv::U32(640)),
        (&names[2], Kv::U32(4)),
        (&names[3], Kv::U32(1)),
        (&names[4], Kv::U32(256)),
        (&names[5], Kv::U32(256)),
        (&names[6], Kv::U32(32768)),
    ];
    if let Some(w) = window {
        kvs.push((&names[7], Kv::U32(w)));
    }
    for (a, b) in extra {
        kvs.push((
            a,
            match b {
                Kv::U32(x) => Kv::U32(*x),
                Kv::I32Array(v) => Kv::I32Array(v.clone()),
                _ => unreachable!(),
            },
        ));
    }
    model(&kvs)
}

#[test]
fn gemma3_uses_every_sixth_layer_for_full_attention() {
    let m = gemma("gemma3", 26, Some(512), &[]);
    let e = estimate(&m, Some(32768), KvType::F16).unwrap();
    let s = e.sliding_window.as_ref().unwrap();
    let full: Vec<usize> = (0..26).filter(|&il| !s.layers[il]).collect();
    assert_eq!(full, [5, 11, 17, 23]);
    // min(32768, 512 + 512) = 1024, a multiple of 256.
    assert_eq!(s.cells, 1024);
    assert_eq!((s.full_layers, s.swa_layers), (4, 22));
    assert_eq!(s.full_bytes, f16(4, 32768, 1, 256, 256));
    assert_eq!(s.swa_bytes, f16(22, 1024, 1, 256, 256));
    assert_eq!(e.kv_bytes, s.full_bytes + s.swa_bytes);
    assert_eq!(e.kv_full_context_bytes, f16(26, 32768, 1, 256, 256));
    assert!(
        e.formula.contains("4 full-attention layers × 32768 cells"),
        "{}",
        e.formula
    );
    assert!(
        e.formula.contains("22 sliding-window layers × 1024 cells"),
        "{}",
        e.formula
    );
    // A short context: the SWA cache is capped by the full one.
    let short = estimate(&m, Some(600), KvType::F16).unwrap();
    assert_eq!(short.cells, 768);
    assert_eq!(short.sliding_window.unwrap().cells, 768);
    assert_eq!(short.kv_bytes, short.kv_full_context_bytes);
    // No window key: llama.cpp uses full attention everywhere (models/gemma3.cpp).
    let none = estimate(&gemma("gemma3", 26, None, &[]), Some(4096), KvType::F16).unwrap();
    assert!(none.sliding_window.is_none());
    assert_eq!(none.kv_bytes, f16(26, 4096, 1, 256, 256));
    assert!(none
        .notes
        .iter()
        .any(|n| n.contains("full attention on every layer")));
}

#[test]
fn gemma2_alternates_and_defaults_the_window() {
    // models/gemma2.cpp: period 2, window 4096 unless the key says otherwise.
    let e = estimate(&gemma("gemma2", 26, None, &[]), Some(8192), KvType::F16).unwrap();
    let s = e.sliding_window.as_ref().unwrap();
    assert_eq!(s.window, 4096);
    assert_eq!(
        (0..4).map(|il| s.layers[il]).collect::<Vec<_>>(),
        [true, false, true, false]
    );
    // 4096 + 512 = 4608, a multiple of 256.
    assert_eq!(s.cells, 4608);
    assert_eq!(
        e.kv_bytes,
        f16(13, 8192, 1, 256, 256) + f16(13, 4608, 1, 256, 256)
    );
    assert!(e
        .notes
        .iter()
        .any(|n| n.contains("default window for gemma2, 4096")));
    // A period in the file's sliding_window_pattern overrides the loader's.
    let p = gemma(
        "gemma2",
        6,
        Some(1000),
        &[("gemma2.attention.sliding_window_pattern", Kv::U32(3))],
    );
    let s = estimate(&p, Some(8192), KvType::F16)
        .unwrap()
        .sliding_window
        .unwrap();
    assert_eq!(s.layers, [true, true, false, true, true, false]);
    // 1000 + 512 = 1512 → 1536.
    assert_eq!(s.cells, 1536);
}

#[test]
fn per_layer_pattern_arrays_and_shared_caches() {
    // gemma4: the pattern is a per-layer array; the last shared_kv_layers reuse caches.
    let m = gemma(
        "gemma4",
        6,
        Some(512),
        &[
            (
                "gemma4.attention.sliding_window_pattern",
                Kv::I32Array(vec![1, 1, 0, 1, 1, 0]),
            ),
            ("gemma4.attention.shared_kv_layers", Kv::U32(2)),
            ("gemma4.attention.key_length_swa", Kv::U32(128)),
            ("gemma4.attention.value_length_swa", Kv::U32(128)),
        ],
    );
    let e = estimate(&m, Some(4096), KvType::F16).unwrap();
    assert_eq!(
        e.kv_per_layer,
        [
            f16(1, 1024, 1, 128, 128),
            f16(1, 1024, 1, 128, 128),
            f16(1, 4096, 1, 256, 256),
            f16(1, 1024, 1, 128, 128),
            0,
            0
        ]
    );
    // Without the array llama.cpp refuses the file: the upper bound, said so.
    let bare = gemma("gemma4", 6, Some(512), &[]);
    let e = estimate(&bare, Some(4096), KvType::F16).unwrap();
    assert!(e.sliding_window.is_none());
    assert!(e
        .notes
        .iter()
        .any(|n| n.contains("sliding_window_pattern, which the file lacks")));
    // gemma3n: period 5, only the first 20 layers keep a cache.
    let n = gemma("gemma3n", 30, Some(512), &[]);
    let e = estimate(&n, Some(4096), KvType::F16).unwrap();
    let s = e.sliding_window.as_ref().unwrap();
    assert_eq!((s.full_layers, s.swa_layers), (4, 16));
    assert!(e.kv_per_layer[20..].iter().all(|&b| b == 0));
    assert_eq!(
        e.kv_bytes,
        f16(4, 4096, 1, 256, 256) + f16(16, 1024, 1, 256, 256)
    );
}

#[test]
fn llama4_chunks_and_gpt_oss_alternates() {
    // llama4: chunk 8192 set in the loader, 3 chunked layers then 1 full.
    let m = gemma("llama4", 8, None, &[]);
    let e = estimate(&m, Some(65536), KvType::F16).unwrap();
    let s = e.sliding_window.as_ref().unwrap();
    assert!(s.chunked);
    assert_eq!(s.cells, 8192 + 512);
    assert_eq!((s.full_layers, s.swa_layers), (2, 6));
    // gpt-oss needs the key; without it the upper bound, said so.
    let g = gemma("gpt-oss", 4, Some(128), &[]);
    let s = estimate(&g, Some(4096), KvType::F16)
        .unwrap()
        .sliding_window
        .unwrap();
    assert_eq!(s.layers, [true, false, true, false]);
    assert_eq!(s.cells, 768);
    let bare = estimate(&gemma("gpt-oss", 4, None, &[]), Some(4096), KvType::F16).unwrap();
    assert!(bare.sliding_window.is_none());
    assert!(bare
        .notes
        .iter()
        .any(|n| n.contains("needs gpt-oss.attention.sliding_window")));
    // cohere2moe: dense first.
    let c = gemma("cohere2moe", 5, Some(4096), &[]);
    let s = estimate(&c, Some(32768), KvType::F16)
        .unwrap()
        .sliding_window
        .unwrap();
    assert_eq!(s.layers, [false, true, true, true, false]);
}

#[test]
fn mla_caches_k_only() {
    // DeepSeek-V3 keys as convert_hf_to_gguf writes them (head_count_kv 1,
    // key_length = kv_lora_rank + rope, value_length = kv_lora_rank).
    let full = [
        ("general.architecture", Kv::Str("deepseek2")),
        ("deepseek2.block_count", Kv::U32(61)),
        ("deepseek2.embedding_length", Kv::U32(7168)),
        ("deepseek2.attention.head_count", Kv::U32(128)),
        ("deepseek2.attention.head_count_kv", Kv::U32(1)),
        ("deepseek2.attention.key_length", Kv::U32(576)),
        ("deepseek2.attention.value_length", Kv::U32(512)),
        ("deepseek2.attention.key_length_mla", Kv::U32(192)),
        ("deepseek2.attention.value_length_mla", Kv::U32(128)),
        ("deepseek2.attention.kv_lora_rank", Kv::U32(512)),
        ("deepseek2.rope.dimension_count", Kv::U32(64)),
        ("deepseek2.context_length", Kv::U32(163840)),
    ];
    let copy = |skip: &str| -> Vec<(&str, Kv<'_>)> {
        full.iter()
            .filter(|(k, _)| !k.ends_with(skip))
            .map(|(k, v)| {
                (
                    *k,
                    match v {
                        Kv::Str(s) => Kv::Str(s),
                        Kv::U32(x) => Kv::U32(*x),
                        _ => unreachable!(),
                    },
                )
            })
            .collect()
    };
    let e = estimate(&model(&copy("-none-")), Some(4096), KvType::F16).unwrap();
    assert!(e.mla);
    assert_eq!(e.kv_bytes, 61 * 4096 * 576 * 2);
    assert!(
        e.formula.contains("576 K dims (MLA: no V cache)"),
        "{}",
        e.formula
    );
    assert!(e
        .notes
        .iter()
        .any(|n| n.contains("kv_lora_rank 512 + rope 64 = 576")));
    let q8 = estimate(&model(&copy("-none-")), Some(4096), KvType::Q8_0).unwrap();
    assert_eq!(q8.kv_bytes, 61 * 4096 * (576 / 32 * 34));
    for (skip, named) in [
        (".key_length_mla", "deepseek2.attention.key_length_mla"),
        (".value_length_mla", "deepseek2.attention.value_length_mla"),
        (
            ".attention.key_length",
            "deepseek2.attention.key_length key",
        ),
    ] {
        let why = estimate(&model(&copy(skip)), Some(4096), KvType::F16)
            .unwrap_err()
            .to_string();
        assert!(
            why.starts_with("no estimate") && why.contains(named),
            "{skip}: {why}"
        );
    }
    // Both MLA lengths missing: an older conversion, no guess.
    let kvs: Vec<(&str, Kv<'_>)> = copy("_mla");
    let why = estimate(&model(&kvs), Some(4096), KvType::F16)
        .unwrap_err()
        .to_string();
    assert!(
        why.contains("no deepseek2.attention.key_length_mla key"),
        "{why}"
    );
}

#[test]
fn nextn_layers_have_no_cache() {
    let m = gemma(
        "glm4moe",
        4,
        None,
        &[("glm4moe.nextn_predict_layers", Kv::U32(1))],
    );
    let e = estimate(&m, Some(256), KvType::F16).unwrap();
    assert_eq!(e.kv_per_layer[3], 0);
    assert_eq!(e.kv_bytes, f16(3, 256, 1, 256, 256));
}

#[test]
fn swa_pattern_matches_set_swa_pattern() {
    assert_eq!(swa_pattern(4, 0, false), [true; 4]);
    assert_eq!(swa_pattern(4, 1, false), [false; 4]);
    assert_eq!(swa_pattern(4, 2, true), [false, true, false, true]);
    assert_eq!(
        swa_pattern(7, 6, false),
        [true, true, true, true, true, false, true]
    );
}
