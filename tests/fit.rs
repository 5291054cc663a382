//! The fit planner against gguf-py's tensor table (tests/reference/fit_fixtures.py): every
//! layer's bytes, the input and output layers, and every device's weights under several
//! device settings equal sums of the reference's per-layer bytes; the CLI's exit statuses and
//! JSON; and the repo table over a mock Hub reading only headers.

mod common;

use std::path::{Path, PathBuf};

use common::range_server::Server;
use common::{open_model, real_file, run_cli};
use serde_json::Value as Json;
use weightpeek::open::native::LocalOpener;
use weightpeek::open::read;
use weightpeek::open::OpenedModel;
use weightpeek::source::block_on_ready;
use weightpeek::summary::fit::{plan, Devices, FitOptions, FitPlan, Fits, Gpu};

const MIB: u64 = 1 << 20;

fn fixtures() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/fit-fixtures");
    real_file(root.join("expected.json")).map(|_| root)
}

fn expected(root: &Path) -> Json {
    serde_json::from_slice(&std::fs::read(root.join("expected.json")).unwrap()).unwrap()
}

fn gemma() -> Option<PathBuf> {
    real_file(common::data_dir().join("gemma-3-270m-q4_k_m.gguf"))
}

/// The model files of the reference, with their paths.
fn models(root: &Path) -> Vec<(String, PathBuf)> {
    let e = expected(root);
    e["models"]
        .as_object()
        .unwrap()
        .keys()
        .filter_map(|k| {
            let p = if k.starts_with("gemma") {
                gemma()?
            } else {
                root.join(k)
            };
            Some((k.clone(), p))
        })
        .collect()
}

/// Opens a file, or the whole split set of a first part (its siblings beside it).
fn open(p: &Path) -> OpenedModel {
    let name = p.file_name().unwrap().to_str().unwrap();
    if !name.contains("-00001-of-") {
        return open_model(p).0;
    }
    let paths: Vec<String> = std::fs::read_dir(p.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|q| {
            let n = q.file_name().unwrap().to_str().unwrap();
            n.starts_with(name.split("-00001-of-").next().unwrap()) && n.contains("-of-")
        })
        .map(|q| q.to_str().unwrap().to_string())
        .collect();
    let o = block_on_ready(read::open(&LocalOpener, &paths, read::Options::default())).unwrap();
    assert!(o.model.set.as_ref().is_some_and(|s| s.complete()), "{name}");
    o.model
}

fn u(j: &Json) -> u64 {
    j.as_u64().unwrap()
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

/// A device's weight bytes from the reference: its layers (experts unless moved), the output
/// layer (with the tied copy on a GPU), the input layer on the RAM.
fn reference_weights(r: &Json, p: &FitPlan, device: usize) -> u64 {
    let d = &p.devices[device];
    let ram = device + 1 == p.devices.len();
    let layers = r["layers"].as_array().unwrap();
    let mut sum = 0;
    for &l in &d.load.layers {
        let l = &layers[l as usize];
        sum += u(&l["dense"]) + u(&l["experts"]);
    }
    if ram {
        sum += u(&r["input"]);
        // Experts moved by --n-cpu-moe from layers that are on a GPU.
        for (il, l) in layers.iter().enumerate() {
            if (il as u64) < p.cpu_moe && !d.load.layers.contains(&(il as u64)) {
                sum += u(&l["experts"]);
            }
        }
    } else {
        for &l in &d.load.layers {
            if l < p.cpu_moe {
                sum -= u(&layers[l as usize]["experts"]);
            }
        }
    }
    if d.load.output {
        sum += u(&r["output"]) + if ram { 0 } else { u(&r["tied_output"]) };
    }
    sum
}

#[test]
fn layer_bytes_equal_gguf_py_sums() {
    let Some(root) = fixtures() else { return };
    let e = expected(&root);
    let all = models(&root);
    assert!(all.len() >= 16, "{} models", all.len());
    for (key, path) in all {
        let r = &e["models"][&key];
        let m = open(&path);
        let opts = FitOptions {
            context: Some(4096),
            ..FitOptions::default()
        };
        let p = plan(&m, "m.gguf", &devices(&[8 << 30], 16 << 30), &opts)
            .unwrap_or_else(|e| panic!("{key}: {e}"));
        let layers = r["layers"].as_array().unwrap();
        assert_eq!(p.costs.layers.len(), layers.len(), "{key}");
        for (il, (got, want)) in p.costs.layers.iter().zip(layers).enumerate() {
            assert_eq!(got.dense, u(&want["dense"]), "{key} blk.{il} dense");
            assert_eq!(got.experts, u(&want["experts"]), "{key} blk.{il} experts");
        }
        assert_eq!(p.costs.input, u(&r["input"]), "{key} input");
        assert_eq!(p.costs.output, u(&r["output"]), "{key} output");
        assert_eq!(p.costs.tied_output, u(&r["tied_output"]), "{key} tied");
    }
}

#[test]
fn device_bytes_equal_reference_sums_under_many_settings() {
    let Some(root) = fixtures() else { return };
    let e = expected(&root);
    let mut checked = 0;
    for (key, path) in models(&root) {
        if key.starts_with("repo/") && !key.contains("Q4_K") {
            continue;
        }
        let r = &e["models"][&key];
        let m = open(&path);
        let sizes: &[&[u64]] = &[
            &[],
            &[0],
            &[20 * MIB],
            &[70 * MIB],
            &[90 * MIB],
            &[300 * MIB],
            &[600 * MIB],
            &[8 << 30],
            &[40 * MIB, 50 * MIB],
            &[400 * MIB, 200 * MIB, 100 * MIB],
        ];
        let mut last_layers = 0;
        for gpus in sizes {
            for ctx in [512, 4096] {
                let opts = FitOptions {
                    context: Some(ctx),
                    margin: 0,
                    ..FitOptions::default()
                };
                let p = plan(&m, "m.gguf", &devices(gpus, 16 << 30), &opts).unwrap();
                for i in 0..p.devices.len() {
                    let d = &p.devices[i];
                    assert_eq!(
                        d.load.weights,
                        reference_weights(r, &p, i),
                        "{key} {gpus:?} ctx {ctx} {}",
                        d.name
                    );
                    let kv: u64 = d
                        .load
                        .layers
                        .iter()
                        .map(|&l| p.costs.layers[l as usize].kv)
                        .sum();
                    assert_eq!(d.load.kv, kv, "{key} {} kv", d.name);
                    assert_eq!(d.bytes, d.load.weights + d.load.kv + d.load.compute);
                    if d.name != "RAM" {
                        assert!(d.bytes <= d.budget_bytes, "{key} {gpus:?}: {} over", d.name);
                    }
                }
                checked += 1;
                if gpus.len() == 1 && ctx == 4096 {
                    assert!(
                        p.gpu_layers >= last_layers,
                        "{key}: more memory, fewer layers"
                    );
                    last_layers = p.gpu_layers;
                }
            }
        }
        // With enough memory every layer is on the GPU; with none, nothing.
        let opts = FitOptions::default();
        let all = plan(&m, "m.gguf", &devices(&[64 << 30], 64 << 30), &opts).unwrap();
        assert_eq!(
            (all.fits, all.gpu_layers),
            (Fits::Gpu, all.block_count + 1),
            "{key}"
        );
        let none = plan(&m, "m.gguf", &devices(&[], 64 << 30), &opts).unwrap();
        assert_eq!((none.fits, none.gpu_layers), (Fits::Offload, 0), "{key}");
    }
    assert!(checked >= 100, "{checked} plans checked");
}

#[test]
fn a_moe_model_moves_experts_before_layers() {
    let Some(root) = fixtures() else { return };
    for name in ["moe-qwen2moe.gguf", "mla-deepseek2.gguf"] {
        let (m, _) = open_model(&root.join(name));
        let opts = FitOptions {
            context: Some(512),
            margin: 0,
            ..FitOptions::default()
        };
        let full = plan(&m, "m.gguf", &devices(&[8 << 30], 16 << 30), &opts).unwrap();
        let experts: u64 = full.costs.layers.iter().map(|l| l.experts).sum();
        assert!(experts > 0 && full.moe, "{name}");
        // A GPU that holds everything but half of the experts.
        let gpu = full.devices[0].bytes - experts / 2;
        let p = plan(&m, "m.gguf", &devices(&[gpu], 16 << 30), &opts).unwrap();
        assert_eq!(p.fits, Fits::Offload, "{name}");
        assert_eq!(
            p.gpu_layers,
            p.block_count + 1,
            "{name}: every layer on the GPU"
        );
        assert!(p.cpu_moe > 0, "{name}");
        assert!(
            p.command.ends_with(&format!(" --n-cpu-moe {}", p.cpu_moe)),
            "{}",
            p.command
        );
        let ot = p.command_ot.as_deref().unwrap();
        assert!(
            ot.contains(r"\.ffn_(up|down|gate|gate_up)_(ch|)exps=CPU'"),
            "{ot}"
        );
        let alt = p.layers_only.as_ref().unwrap();
        assert!(alt.gpu_layers < p.gpu_layers, "{name}");
        // The fewest layers: one fewer moved would not fit.
        let moved: u64 = full.costs.layers[..p.cpu_moe as usize]
            .iter()
            .map(|l| l.experts)
            .sum();
        let last = full.costs.layers[p.cpu_moe as usize - 1].experts;
        assert!(full.devices[0].bytes - moved <= gpu);
        assert!(
            full.devices[0].bytes - (moved - last) > gpu,
            "{name}: K is not the fewest"
        );
    }
}

fn cli_json(args: &[&str]) -> (i32, Json) {
    let (code, out, err) = run_cli(args, None, None);
    assert!(code != 2, "{args:?}: {err}");
    (
        code,
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}")),
    )
}

#[test]
fn the_cli_exit_status_says_whether_it_fits() {
    let Some(root) = fixtures() else { return };
    let f = root.join("dense-llama.gguf");
    let f = f.to_str().unwrap();
    let (code, j) = cli_json(&["fit", f, "--gpu", "8GiB", "--ctx", "4096", "--json"]);
    assert_eq!(code, 0);
    assert_eq!(j["fits"], "gpu");
    assert_eq!(j["gpu_layers"], 7);
    assert!(j["command"]
        .as_str()
        .unwrap()
        .contains(" -c 4096 -ngl 7 -fa on"));
    assert!(j["devices"][0]["bytes"].as_u64().unwrap() > 0);
    let (code, j) = cli_json(&["fit", f, "--gpu", "40MiB", "--margin", "0", "--json"]);
    assert_eq!(code, 1);
    assert_eq!(j["fits"], "offload");
    let (code, j) = cli_json(&["fit", f, "--gpu", "0", "--ram", "10MiB", "--json"]);
    assert_eq!(code, 3);
    assert_eq!(j["fits"], "no");
    let (code, _, err) = run_cli(&["fit", f, "--gpu", "lots"], None, None);
    assert_eq!(code, 2);
    assert!(err.contains("\"lots\" is not a memory size"), "{err}");
    let (code, out, _) = run_cli(
        &[
            "fit", f, "--gpu", "rtx3060", "--gpu", "12GB", "--kv", "q8_0",
        ],
        None,
        None,
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("GPU 0: RTX 3060 (12 GiB)"), "{out}");
    assert!(out.contains("-ctk q8_0 -ctv q8_0"), "{out}");
    assert!(out.contains(" -ts "), "{out}");
    // A safetensors model (with its config.json beside it) gets vLLM's plan: its weights are
    // the tensor bytes the reference counts; an encoder keeps no KV cache.
    if let (Some(st), Some(r)) = (
        real_file(common::data_dir().join("all-MiniLM-L6-v2/model.safetensors")),
        common::reference("all-MiniLM-L6-v2"),
    ) {
        let (code, j) = cli_json(&["fit", st.to_str().unwrap(), "--gpu", "rtx4060", "--json"]);
        assert_eq!(code, 0);
        assert_eq!(j["runtime"], "vllm");
        assert_eq!(j["devices"][0]["load"]["weights"], r["tensor_bytes"]);
        assert_eq!(j["devices"][0]["load"]["kv"], 0);
        let dir = st.parent().unwrap().to_str().unwrap();
        assert_eq!(
            j["command"],
            format!("vllm serve {dir} --max-model-len 512")
        );
        let (code, j) = cli_json(&[
            "fit",
            st.to_str().unwrap(),
            "--gpu",
            "0",
            "--ram",
            "50MiB",
            "--json",
        ]);
        assert_eq!((code, &j["fits"]), (3, &Json::from("no")));
    }
}

#[test]
fn a_repo_table_reads_only_headers() {
    let Some(root) = fixtures() else { return };
    let repo = root.join("repo");
    let e = expected(&root);
    let cdn = Server::files(&repo);
    let hub = Server::hub(&cdn, &repo);
    let (code, out, err) = run_cli(
        &[
            "fit",
            "owner/repo",
            "--gpu",
            "12MiB",
            "--margin",
            "0",
            "--ctx",
            "256",
            "--json",
        ],
        None,
        Some(&hub.url),
    );
    assert!(code == 0 || code == 1, "{code}: {err}");
    let j: Json = serde_json::from_str(&out).unwrap();
    let rows = j["models"].as_array().unwrap();
    let types = e["repo"].as_object().unwrap();
    assert_eq!(
        rows.len(),
        types.len(),
        "one row per model, the split set as one"
    );
    assert!(rows.len() >= 10);
    // Largest first; the pick is the largest that fits fully; each row equals its own plan.
    let sizes: Vec<u64> = rows.iter().map(|r| u(&r["size"])).collect();
    assert!(sizes.windows(2).all(|w| w[0] >= w[1]), "{sizes:?}");
    let picks: Vec<&Json> = rows.iter().filter(|r| r["pick"] == true).collect();
    assert_eq!(picks.len(), 1);
    let first_full = rows.iter().position(|r| r["fits"] == "gpu").unwrap();
    assert_eq!(rows[first_full]["pick"], true);
    assert!(
        rows.iter().any(|r| r["fits"] == "offload"),
        "the GPU size should split the table"
    );
    for r in rows {
        let label = r["label"].as_str().unwrap();
        // A split set's label is its common name: plan its first part.
        let stem = label.split(' ').next().unwrap().trim_end_matches(".gguf");
        let mut files: Vec<String> = std::fs::read_dir(&repo)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n == &format!("{stem}.gguf") || n.starts_with(&format!("{stem}-00001-of-")))
            .collect();
        files.sort();
        let (_, one) = cli_json(&[
            "fit",
            repo.join(&files[0]).to_str().unwrap(),
            "--gpu",
            "12MiB",
            "--margin",
            "0",
            "--ctx",
            "256",
            "--json",
        ]);
        assert_eq!(r["fits"], one["fits"], "{label}");
        assert_eq!(r["gpu_layers"], one["gpu_layers"], "{label}");
    }
    let sent: u64 = cdn.requests().iter().map(|q| q.bytes).sum();
    let (_, text, _) = run_cli(
        &[
            "fit",
            "owner/repo",
            "--gpu",
            "12MiB",
            "--margin",
            "0",
            "--ctx",
            "256",
        ],
        None,
        Some(&hub.url),
    );
    let pick = rows[first_full]["label"].as_str().unwrap();
    assert!(
        text.lines()
            .any(|l| l.starts_with("→ ") && l.contains(pick)),
        "{text}"
    );
    assert_eq!(
        text.lines().filter(|l| l.contains("tiny-")).count(),
        rows.len() + 1,
        "{text}"
    );
    // Only headers: the bytes sent for the table are far below the files' size.
    let total: u64 = sizes.iter().sum();
    assert!(sent < total / 20, "{sent} of {total} bytes read");
    for q in cdn.requests() {
        assert!(q.bytes <= MIB / 2, "{}: {} bytes", q.path, q.bytes);
    }
}

/// llama.cpp's own report (tests/reference/llama_cpp_fit.json, recorded by
/// `llama_cpp_memory.py --fit` from the same generated files and the real Gemma 3).
fn llama_cpp() -> Json {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/reference/llama_cpp_fit.json");
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}

#[test]
fn kv_and_compute_agree_with_llama_cpp_for_four_architectures() {
    let Some(root) = fixtures() else { return };
    let report = llama_cpp();
    let e = expected(&root);
    let models = report["models"].as_object().unwrap();
    assert!(models.len() >= 4);
    let mut archs = std::collections::BTreeSet::new();
    for (name, r) in models {
        let path = if name.starts_with("gemma") {
            match gemma() {
                Some(p) => p,
                None => continue,
            }
        } else {
            root.join(name)
        };
        assert_eq!(
            e["models"][name]["sha256"],
            r["sha256"],
            "{name} differs from the file llama.cpp measured: re-record tests/reference/llama_cpp_fit.json"
        );
        let m = open(&path);
        for case in r["cases"].as_array().unwrap() {
            let kv = weightpeek::summary::memory::KvType::parse(case["kv_type"].as_str().unwrap())
                .unwrap();
            let opts = FitOptions {
                context: Some(u(&case["n_ctx"])),
                kv,
                margin: 0,
            };
            let p = plan(&m, "m.gguf", &devices(&[], 64 << 30), &opts).unwrap();
            archs.insert(p.architecture.clone());
            let caches = case["caches"].as_array().unwrap();
            let ours: u64 = p.costs.layers.iter().map(|l| l.kv).sum();
            let theirs: f64 = caches.iter().map(|c| c["mib"].as_f64().unwrap()).sum();
            // llama.cpp prints MiB with two decimals.
            let tolerance = 0.005 * caches.len() as f64 + 1e-9;
            assert!(
                (ours as f64 / MIB as f64 - theirs).abs() <= tolerance,
                "{name} {case}: KV {ours} bytes vs llama.cpp {theirs} MiB"
            );
            let cells: Vec<u64> = caches.iter().map(|c| u(&c["cells"])).collect();
            assert_eq!(cells.iter().max().copied(), Some(p.cells), "{name} {case}");
            // The compute allowance of the CPU running everything: never below llama.cpp's
            // reservation, at most 5% + 1 MiB above it.
            let compute = p.devices.last().unwrap().load.compute as f64 / MIB as f64;
            let measured = case["compute_mib"].as_f64().unwrap();
            assert!(
                compute + 0.005 >= measured && compute <= measured * 1.05 + 1.0,
                "{name} {case}: compute allowance {compute:.2} MiB vs llama.cpp {measured} MiB"
            );
        }
    }
    assert!(archs.len() >= 4, "{archs:?}");
}
