//! Unit and property tests of the placement; the sums against gguf-py's tensor table are in
//! tests/fit.rs.

use proptest::prelude::*;

use super::place::{fewest_cpu_moe, most_layers, place};
use super::*;
use crate::source::parse_bytes;
use crate::view::testutil::{gguf, Kv};

fn costs(layers: &[(u64, u64, u64)], input: u64, output: u64, tied: u64) -> Costs {
    Costs {
        layers: layers
            .iter()
            .map(|&(dense, experts, kv)| LayerCost { dense, experts, kv })
            .collect(),
        input,
        output,
        tied_output: tied,
        stray: vec![],
    }
}

fn compute(gpu: u64, logits: u64) -> Compute {
    Compute {
        gpu,
        logits,
        cpu: gpu,
        host: 1,
        ..Compute::default()
    }
}

/// Every byte of the model is somewhere exactly once (the tied copy only on a GPU).
fn accounted(c: &Costs, cm: &Compute, p: &Placement) {
    let weights: u64 = p.gpus.iter().map(|g| g.weights).sum::<u64>() + p.cpu.weights;
    let kv: u64 = p.gpus.iter().map(|g| g.kv).sum::<u64>() + p.cpu.kv;
    let all: u64 = c.layers.iter().map(|l| l.dense + l.experts).sum::<u64>() + c.input + c.output;
    let tied = if p.cpu.output { 0 } else { c.tied_output };
    assert_eq!(weights, all + tied);
    assert_eq!(kv, c.layers.iter().map(|l| l.kv).sum::<u64>());
    let mut layers: Vec<u64> = p.gpus.iter().flat_map(|g| g.layers.clone()).collect();
    layers.extend(&p.cpu.layers);
    layers.sort_unstable();
    assert_eq!(layers, (0..c.layers.len() as u64).collect::<Vec<_>>());
    for g in &p.gpus {
        let running = !g.layers.is_empty() || g.output;
        assert_eq!(
            g.compute,
            if running { cm.gpu } else { 0 } + if g.output { cm.logits } else { 0 }
        );
    }
}

#[test]
fn ngl_counts_the_output_layer_as_llama_cpp_does() {
    let c = costs(&[(10, 0, 1), (10, 0, 1), (10, 0, 1)], 7, 5, 0);
    let cm = compute(2, 3);
    // -ngl 1 offloads only the output layer; -ngl 2 the output and blk.2.
    let p = place(&c, &cm, &[100], 1, 0).unwrap();
    assert!(p.gpus[0].output && p.gpus[0].layers.is_empty());
    assert_eq!(p.cpu.layers, [0, 1, 2]);
    let p = place(&c, &cm, &[100], 2, 0).unwrap();
    assert_eq!(p.gpus[0].layers, [2]);
    assert_eq!(p.gpus[0].total(), 11 + 5 + 2 + 3);
    // Everything: 3 × 11 + 5 + 2 + 3 = 43 bytes.
    let p = place(&c, &cm, &[43], 4, 0).unwrap();
    assert_eq!(p.gpu_layers, 4);
    assert_eq!(p.gpus[0].total(), 43);
    assert_eq!(p.cpu.weights, 7);
    assert_eq!(
        p.cpu.compute, 1,
        "the host allowance when everything is offloaded"
    );
    assert!(place(&c, &cm, &[42], 4, 0).is_none());
    assert_eq!(most_layers(&c, &cm, &[42]).gpu_layers, 3);
    accounted(&c, &cm, &most_layers(&c, &cm, &[42]));
}

#[test]
fn a_tied_output_costs_its_copy_on_the_gpu_only() {
    let c = costs(&[(10, 0, 0)], 8, 1, 8);
    let cm = compute(0, 0);
    let p = place(&c, &cm, &[100], 2, 0).unwrap();
    assert_eq!(p.gpus[0].weights, 10 + 1 + 8);
    let p = place(&c, &cm, &[100], 0, 0).unwrap();
    assert_eq!(p.cpu.weights, 8 + 10 + 1);
    accounted(&c, &cm, &p);
}

#[test]
fn the_split_fills_gpus_in_order_and_skips_one_too_small() {
    let c = costs(&[(10, 0, 0); 4], 0, 4, 0);
    let cm = compute(1, 0);
    // GPU 0 holds 2 layers (1 + 20), GPU 1 nothing (5 < 1 + 10), GPU 2 the rest.
    let p = most_layers(&c, &cm, &[21, 5, 100]);
    assert_eq!(p.gpu_layers, 5);
    assert_eq!(p.split(), [2, 0, 3]);
    assert_eq!(p.gpus[0].layers, [0, 1]);
    assert_eq!(p.gpus[2].layers, [2, 3]);
    assert!(p.gpus[2].output);
    accounted(&c, &cm, &p);
}

#[test]
fn moe_moves_the_experts_of_the_first_layers() {
    let c = costs(&[(2, 50, 1), (2, 50, 1), (2, 50, 1)], 3, 2, 0);
    let cm = compute(1, 1);
    // All on the GPU: 3 × 53 + 2 + 2 = 163.
    assert_eq!(fewest_cpu_moe(&c, &cm, &[163]).unwrap().cpu_moe, 0);
    let p = fewest_cpu_moe(&c, &cm, &[120]).unwrap();
    // 163 − 50 = 113 fits with one layer's experts moved.
    assert_eq!((p.gpu_layers, p.cpu_moe), (4, 1));
    assert_eq!(p.cpu.weights, 3 + 50);
    accounted(&c, &cm, &p);
    // Not even the dense parts fit: every expert moved and fewer layers.
    let p = fewest_cpu_moe(&c, &cm, &[8]).unwrap();
    assert_eq!(p.cpu_moe, 3);
    assert!(p.gpu_layers < 4);
    assert!(fewest_cpu_moe(&costs(&[(2, 0, 1)], 0, 0, 0), &cm, &[8]).is_none());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// More GPU memory never places fewer layers, no GPU goes over its budget, every byte is
    /// placed once; with room for everything all is offloaded, with none nothing is.
    #[test]
    fn placement_is_monotone_and_within_budgets(
        layers in prop::collection::vec((0u64..1000, 0u64..3000, 0u64..200), 1..40),
        input in 0u64..5000,
        output in 0u64..5000,
        gpu in 0u64..100,
        logits in 0u64..100,
        budgets in prop::collection::vec(0u64..40_000, 0..4),
        extra in 0u64..20_000,
    ) {
        let c = costs(&layers, input, output, 0);
        let cm = compute(gpu, logits);
        let p = most_layers(&c, &cm, &budgets);
        accounted(&c, &cm, &p);
        for (g, b) in p.gpus.iter().zip(&budgets) {
            prop_assert!(g.total() <= *b);
        }
        let mut more = budgets.clone();
        if let Some(first) = more.first_mut() {
            *first += extra;
        }
        prop_assert!(most_layers(&c, &cm, &more).gpu_layers >= p.gpu_layers);
        if let Some(moe) = fewest_cpu_moe(&c, &cm, &budgets) {
            accounted(&c, &cm, &moe);
            for (g, b) in moe.gpus.iter().zip(&budgets) {
                prop_assert!(g.total() <= *b);
            }
            let more_moe = fewest_cpu_moe(&c, &cm, &more).unwrap();
            prop_assert!(
                (more_moe.gpu_layers, std::cmp::Reverse(more_moe.cpu_moe))
                    >= (moe.gpu_layers, std::cmp::Reverse(moe.cpu_moe))
            );
        }
        let all: u64 = layers.iter().map(|l| l.0 + l.1 + l.2).sum::<u64>() + output + gpu + logits;
        prop_assert_eq!(most_layers(&c, &cm, &[all]).gpu_layers, layers.len() as u64 + 1);
        prop_assert_eq!(most_layers(&c, &cm, &[]).gpu_layers, 0);
    }
}

/// A small llama-style GGUF: `layers` layers of `per_layer` f32 elements each.
fn llama(layers: u32, per_layer: u64, tied: bool) -> OpenedModel {
    let mut tensors: Vec<(String, u32, Vec<u64>, u64)> =
        vec![("token_embd.weight".into(), 0, vec![64, 100], 0)];
    for l in 0..layers {
        tensors.push((format!("blk.{l}.attn_q.weight"), 0, vec![per_layer], 0));
    }
    tensors.push(("output_norm.weight".into(), 0, vec![64], 0));
    if !tied {
        tensors.push(("output.weight".into(), 0, vec![64, 100], 0));
    }
    let t: Vec<(&str, u32, Vec<u64>, u64)> = tensors
        .iter()
        .map(|(n, ty, s, o)| (n.as_str(), *ty, s.clone(), *o))
        .collect();
    parse_bytes(&gguf(
        &[
            ("general.architecture", Kv::Str("llama")),
            ("llama.block_count", Kv::U32(layers)),
            ("llama.embedding_length", Kv::U32(64)),
            ("llama.feed_forward_length", Kv::U32(128)),
            ("llama.attention.head_count", Kv::U32(4)),
            ("llama.attention.head_count_kv", Kv::U32(2)),
            ("llama.context_length", Kv::U32(4096)),
        ],
        &t,
    ))
    .unwrap()
    .into()
}

fn devices(gpus: &[u64], ram: u64) -> Devices {
    Devices {
        gpus: gpus
            .iter()
            .enumerate()
            .map(|(i, &bytes)| Gpu {
                name: format!("GPU {i}"),
                bytes,
            })
            .collect(),
        ram,
    }
}

#[test]
fn a_plan_reads_its_figures_from_the_header() {
    let m = llama(4, 4096, false);
    let opts = FitOptions {
        context: Some(1000),
        margin: 0,
        ..FitOptions::default()
    };
    let big = plan(&m, "m.gguf", &devices(&[1 << 30], 1 << 30), &opts).unwrap();
    assert_eq!(big.fits, Fits::Gpu);
    assert_eq!(big.gpu_layers, 5);
    assert_eq!(big.cells, 1024);
    // KV per layer: 1024 cells × 2 heads × (16 + 16) dims × 2 B.
    assert!(big.costs.layers.iter().all(|l| l.kv == 1024 * 2 * 32 * 2));
    assert!(big.costs.layers.iter().all(|l| l.dense == 4096 * 4));
    assert_eq!(big.costs.input, 64 * 100 * 4);
    assert_eq!(big.costs.output, 64 * 4 + 64 * 100 * 4);
    assert_eq!(big.command, "llama-server -m m.gguf -c 1000 -ngl 5 -fa on");
    assert_eq!(big.max_context_gpu, Some(4096));
    let gpu = &big.devices[0];
    assert_eq!(
        gpu.bytes,
        4 * (4096 * 4 + 1024 * 128) + 64 * 4 + 64 * 100 * 4 + big.compute.gpu + big.compute.logits
    );
    // No GPU: everything in RAM, exit-status class "offload".
    let cpu = plan(&m, "m.gguf", &devices(&[], 1 << 30), &opts).unwrap();
    assert_eq!((cpu.fits, cpu.gpu_layers), (Fits::Offload, 0));
    assert_eq!(cpu.devices.len(), 1);
    let none = plan(&m, "m.gguf", &devices(&[], 1000), &opts).unwrap();
    assert_eq!(none.fits, Fits::No);
    assert_eq!(none.max_context, None);
    // Two GPUs each holding half: the split is in layer counts.
    let half = gpu.bytes / 2 + big.compute.gpu + big.compute.logits;
    let two = plan(&m, "my model.gguf", &devices(&[half, half], 1 << 30), &opts).unwrap();
    assert_eq!(two.fits, Fits::Gpu);
    let split = two.tensor_split.clone().unwrap();
    assert_eq!(split.iter().sum::<u64>(), 5);
    assert!(two
        .command
        .starts_with("llama-server -m 'my model.gguf' -c 1000 -ngl 5 -fa on -ts "));
    let q8 = FitOptions {
        kv: KvType::Q8_0,
        ..opts.clone()
    };
    // Heads of 64 / 4 = 16 dims: llama.cpp refuses a q8_0 cache (block of 32).
    let e = plan(&m, "m.gguf", &devices(&[1 << 30], 1 << 30), &q8).unwrap_err();
    assert_eq!(
        e.to_string(),
        "no plan: llama.cpp refuses a q8_0 K cache for this model: its block of 32 values does not divide the head dimension 16 (llama.embedding_length / head_count); use f16"
    );
}

#[test]
fn a_tied_embedding_model_notes_its_copy() {
    let m = llama(2, 256, true);
    let p = plan(
        &m,
        "t.gguf",
        &devices(&[1 << 30], 1 << 30),
        &FitOptions::default(),
    )
    .unwrap();
    assert_eq!(p.costs.tied_output, 64 * 100 * 4);
    assert!(p.notes.iter().any(|n| n.contains("no output.weight")));
}

#[test]
fn the_largest_context_search_is_exact() {
    let m = llama(2, 256, false);
    let opts = FitOptions {
        context: Some(256),
        margin: 0,
        ..FitOptions::default()
    };
    let p = plan(&m, "m.gguf", &devices(&[1 << 30], 1 << 30), &opts).unwrap();
    // Give the GPU exactly what 2048 tokens need: the search must find 2048.
    let at = |ctx| {
        let o = FitOptions {
            context: Some(ctx),
            ..opts.clone()
        };
        plan(&m, "m.gguf", &devices(&[1 << 30], 1 << 30), &o)
            .unwrap()
            .devices[0]
            .bytes
    };
    let need = at(2048);
    assert!(at(2304) > need);
    let q = plan(&m, "m.gguf", &devices(&[need], 1 << 30), &opts).unwrap();
    assert_eq!(q.max_context_gpu, Some(2048));
    assert_eq!(q.max_context, Some(4096));
    assert_eq!(p.context_limit, 4096);
}

/// A safetensors model of one `bytes`-byte U8 tensor with `config` attached.
fn safetensors(bytes: u64, config: serde_json::Value) -> OpenedModel {
    let header =
        format!(r#"{{"w":{{"dtype":"U8","shape":[{bytes}],"data_offsets":[0,{bytes}]}}}}"#);
    let mut b = (header.len() as u64).to_le_bytes().to_vec();
    b.extend(header.as_bytes());
    b.resize(b.len() + bytes as usize, 0);
    let mut m = OpenedModel::from(parse_bytes(&b).unwrap());
    m.sidecar
        .attach_config(config.to_string().as_bytes(), "config.json");
    m
}

#[test]
fn a_safetensors_model_is_planned_as_vllm_runs_it() {
    let config = serde_json::json!({"model_type": "llama", "num_hidden_layers": 4,
        "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 16,
        "max_position_embeddings": 8192});
    let m = safetensors(1 << 20, config);
    let opts = FitOptions {
        context: Some(4096),
        margin: 0,
        ..FitOptions::default()
    };
    // KV: 4 layers × 4096 tokens × 2 × 2 heads × 16 dims × 2 B = 2 MiB.
    let kv = 4 * 4096 * 2 * 2 * 16 * 2;
    let p = plan(
        &m,
        "dir/model.safetensors",
        &devices(&[3 << 20], 1 << 30),
        &opts,
    )
    .unwrap();
    assert_eq!((p.runtime, p.fits), (Runtime::Vllm, Fits::Gpu));
    assert_eq!(p.devices[0].bytes, (1 << 20) + kv);
    assert_eq!(p.command, "vllm serve dir --max-model-len 4096");
    // Two GPUs: half each, tensor parallel.
    let two = plan(
        &m,
        "dir/model.safetensors",
        &devices(&[3 << 19, 3 << 19], 1 << 30),
        &opts,
    )
    .unwrap();
    assert_eq!(two.fits, Fits::Gpu);
    assert_eq!(two.devices[0].bytes, ((1 << 20) + kv) / 2);
    assert!(two.command.ends_with(" --tensor-parallel-size 2"));
    // A GPU too small by 1 byte: whole GiB of weights offloaded — more than the weights.
    let small = plan(
        &m,
        "m.safetensors",
        &devices(&[(1 << 20) + kv - 1], 1 << 30),
        &opts,
    )
    .unwrap();
    assert_eq!(small.fits, Fits::No);
    assert_eq!(small.max_context_gpu, Some(4096 - 256));
    // q8_0 is vLLM's fp8 cache: half the KV.
    let fp8 = FitOptions {
        kv: KvType::Q8_0,
        ..opts.clone()
    };
    let p8 = plan(&m, "m.safetensors", &devices(&[3 << 20], 1 << 30), &fp8).unwrap();
    assert_eq!(p8.devices[0].load.kv, kv / 2);
    assert!(p8.command.contains(" --kv-cache-dtype fp8"));
    let mut bare = safetensors(16, serde_json::json!({}));
    bare.sidecar.config = None;
    assert_eq!(
        plan(&bare, "m.safetensors", &devices(&[], 1 << 30), &opts),
        Err(FitError::NoConfig(ConfigError::NotFound))
    );
}

/// The typed reasons read as the sentences they replaced: the estimate's "no estimate: "
/// gives way to "no plan: ", other leads stay.
#[test]
fn fit_errors_keep_their_sentences() {
    assert_eq!(
        FitError::NoEstimate(EstimateError::Overflow).to_string(),
        "no plan: the KV cache size overflows 64 bits"
    );
    assert_eq!(
        FitError::NoEstimate(EstimateError::NoCache {
            arch: "bert".into(),
            weights: Some(3 << 20)
        })
        .to_string(),
        "no plan: no KV estimate: bert is an encoder or non-causal model, for which llama.cpp keeps no KV cache (llama_model::create_memory); it needs about as much memory as its weights, 3.0 MiB"
    );
    assert_eq!(
        FitError::from(EstimateError::NoArchitecture).to_string(),
        "no plan: no general.architecture key"
    );
    assert_eq!(
        FitError::from(ConfigError::NotFound).to_string(),
        "no plan: a safetensors model's KV cache is sized from its config.json: no config.json was found beside the model"
    );
    assert_eq!(
        FitError::NoConfig(ConfigError::Unreadable("config.json: not JSON".into())).to_string(),
        "no plan: a safetensors model's KV cache is sized from its config.json: config.json: not JSON"
    );
    assert_eq!(
        FitError::NoContext {
            arch: "llama".into()
        }
        .to_string(),
        "no plan: the file has no llama.context_length key; give a context"
    );
}

#[test]
fn vllm_offloads_whole_gib_of_weights() {
    let gib = 1u64 << 30;
    // 10 GiB of weights + 1 GiB KV on one 8 GiB GPU: 3 GiB offloaded.
    assert_eq!(
        super::vllm::vllm_fit(10 * gib, gib, &[8 * gib], 16 * gib),
        (Fits::Offload, 3)
    );
    // Not enough RAM for the offload.
    assert_eq!(
        super::vllm::vllm_fit(10 * gib, gib, &[8 * gib], 2 * gib),
        (Fits::No, 3)
    );
    // Two GPUs: 5.5 GiB each.
    assert_eq!(
        super::vllm::vllm_fit(10 * gib, gib, &[6 * gib, 6 * gib], 0),
        (Fits::Gpu, 0)
    );
    assert_eq!(
        super::vllm::vllm_fit(gib, 0, &[], 2 * gib),
        (Fits::Offload, 0)
    );
}
