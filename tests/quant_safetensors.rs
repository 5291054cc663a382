//! Quantised safetensors layouts (issue #6): the files `tests/reference/quant_safetensors.py`
//! builds (one per layout, under `target/quant-fixtures`, or `$WEIGHTPEEK_QUANT_FIXTURES`) read
//! back with the layout, logical parameters and effective bits per weight the script computed
//! from its construction; and hostile layouts (shapes against the packing, missing companions,
//! absurd config values) give findings, never a panic.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value as Json};
use weightpeek::check::Severity;
use weightpeek::open::OpenedModel;
use weightpeek::source::parse_bytes;
use weightpeek::summary::quant_st::{analyse, wanted_tensor_data, QuantReport, Scheme};
use weightpeek::summary::summarize;

fn fixtures() -> Option<PathBuf> {
    let dir = std::env::var_os("WEIGHTPEEK_QUANT_FIXTURES")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/quant-fixtures"));
    common::real_file(dir.join("expected.json")).map(|_| dir)
}

fn cases(dir: &Path) -> Vec<Json> {
    let doc: Json = serde_json::from_slice(&std::fs::read(dir.join("expected.json")).unwrap())
        .expect("expected.json");
    doc["cases"].as_array().expect("cases").clone()
}

/// Opens a fixture: header only, plus config.json beside it when there is one.
fn open(dir: &Path, case: &Json) -> (OpenedModel, Vec<u8>) {
    let file = dir.join(case["file"].as_str().unwrap());
    let bytes = std::fs::read(&file).unwrap();
    let mut m = OpenedModel::from(
        parse_bytes(&bytes).unwrap_or_else(|e| panic!("{}: {e}", file.display())),
    );
    let config = file.with_file_name("config.json");
    if config.exists() {
        m.sidecar.config = Some(serde_json::from_slice(&std::fs::read(&config).unwrap()).unwrap());
        m.sidecar.config_source = Some(config.display().to_string());
    }
    (m, bytes)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

fn scheme_name(s: Scheme) -> String {
    serde_json::to_value(s)
        .unwrap()
        .as_str()
        .unwrap()
        .to_string()
}

fn assert_case(r: &QuantReport, case: &Json, params_key: &str, bpw_key: &str) {
    let name = case["case"].as_str().unwrap();
    assert!(
        r.layout.contains(case["layout"].as_str().unwrap()),
        "{name}: layout {:?}, expected {}",
        r.layout,
        case["layout"]
    );
    assert_eq!(
        scheme_name(r.schemes[0].scheme),
        case["scheme"].as_str().unwrap(),
        "{name}"
    );
    assert_eq!(
        r.weights.len() as u64,
        case["quantised_weights"].as_u64().unwrap(),
        "{name}"
    );
    assert_eq!(
        r.logical_parameters,
        case[params_key].as_u64().unwrap(),
        "{name}: {params_key}"
    );
    assert_eq!(
        r.tensor_bytes,
        case["tensor_bytes"].as_u64().unwrap(),
        "{name}"
    );
    assert_eq!(
        r.stored_elements,
        case["stored_elements"].as_u64().unwrap(),
        "{name}"
    );
    let bpw = r.bits_per_weight.unwrap();
    let want = case[bpw_key].as_f64().unwrap();
    assert!(close(bpw, want), "{name}: {bpw_key} {bpw} vs {want}");
}

#[test]
fn every_layout_reads_back_with_the_constructions_parameters_and_bits() {
    let Some(dir) = fixtures() else { return };
    let cases = cases(&dir);
    assert!(cases.len() >= 14, "{} cases", cases.len());
    for case in &cases {
        let name = case["case"].as_str().unwrap();
        // Header (and config) only.
        let (mut m, bytes) = open(&dir, case);
        let r = analyse(&m).unwrap_or_else(|| panic!("{name}: no layout recognised"));
        assert_case(
            &r,
            case,
            "logical_parameters_header_only",
            "bits_per_weight_header_only",
        );
        for f in &r.findings {
            assert_ne!(f.severity, Severity::Error, "{name}: {}", f.message);
        }
        let warnings: Vec<&str> = r
            .findings
            .iter()
            .filter(|f| f.severity == Severity::Warning)
            .map(|f| f.message.as_str())
            .collect();
        assert!(warnings.is_empty(), "{name}: {warnings:?}");
        // With the small descriptive tensors read (quant_state JSON, weight_shape).
        for d in wanted_tensor_data(&m) {
            let (a, b) = (d.offset as usize, (d.offset + d.len) as usize);
            m.sidecar.tensor_data.insert(d.name, bytes[a..b].to_vec());
        }
        let r = analyse(&m).unwrap();
        assert_case(&r, case, "logical_parameters", "bits_per_weight");
        assert!(
            r.findings.iter().all(|f| f.severity != Severity::Warning),
            "{name}: {:?}",
            r.findings
        );
        // The summary reports the logical figures.
        let s = summarize(&m);
        assert_eq!(
            s.parameter_count,
            case["logical_parameters"].as_u64().unwrap()
        );
        assert!(close(
            s.bits_per_weight.unwrap(),
            case["bits_per_weight"].as_f64().unwrap()
        ));
        assert_eq!(s.quantization.as_ref().map(|q| &q.layout), Some(&r.layout));
        eprintln!(
            "{name:<28} {:<48} {:>9} params {:.4} bpw",
            r.layout,
            r.logical_parameters,
            r.bits_per_weight.unwrap()
        );
    }
}

#[test]
fn missing_config_values_are_said_not_guessed_silently() {
    let Some(dir) = fixtures() else { return };
    for case in cases(&dir) {
        if case["config"].as_bool() == Some(true) {
            continue;
        }
        let (m, _) = open(&dir, &case);
        let r = analyse(&m).unwrap();
        assert!(
            r.findings.iter().any(|f| f.code == "quant-config-missing"),
            "{}: {:?}",
            case["case"],
            r.findings
        );
    }
}

#[test]
fn the_cli_reads_config_json_and_the_shape_tensors() {
    let Some(dir) = fixtures() else { return };
    for case in cases(&dir) {
        let file = dir.join(case["file"].as_str().unwrap());
        let out = Command::new(env!("CARGO_BIN_EXE_weightpeek"))
            .arg(&file)
            .arg("--json")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Json = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            v["parameter_count"], case["logical_parameters"],
            "{}",
            case["case"]
        );
        assert!(close(
            v["bits_per_weight"].as_f64().unwrap(),
            case["bits_per_weight"].as_f64().unwrap()
        ));
        let q = &v["quantization"];
        assert!(q["layout"]
            .as_str()
            .unwrap()
            .contains(case["layout"].as_str().unwrap()));
        assert_eq!(q["stored_elements"], case["stored_elements"]);
        assert_eq!(
            q["config_source"].is_string(),
            case["config"].as_bool().unwrap(),
            "{}",
            case["case"]
        );
        let text = Command::new(env!("CARGO_BIN_EXE_weightpeek"))
            .arg(&file)
            .output()
            .unwrap();
        let text = String::from_utf8(text.stdout).unwrap();
        assert!(
            text.contains(&format!(
                "quantisation    {}",
                q["layout"].as_str().unwrap()
            )),
            "{text}"
        );
    }
    // --config points elsewhere; a config that is not JSON is a finding, not a failure.
    let gptq = dir.join("gptq-4bit-no-config/model.safetensors");
    let bad = std::env::temp_dir().join(format!("wp-quant-bad-config-{}.json", std::process::id()));
    std::fs::write(&bad, b"{ not json").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_weightpeek"))
        .arg(&gptq)
        .args(["--json", "--config"])
        .arg(&bad)
        .output()
        .unwrap();
    std::fs::remove_file(&bad).ok();
    assert!(out.status.success());
    let v: Json = serde_json::from_slice(&out.stdout).unwrap();
    let codes: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["code"].as_str())
        .collect();
    assert!(codes.contains(&"quant-config-unreadable"), "{codes:?}");
    let good = dir.join("gptq-4bit-g128/config.json");
    let out = Command::new(env!("CARGO_BIN_EXE_weightpeek"))
        .arg(&gptq)
        .args(["--json", "--config"])
        .arg(&good)
        .output()
        .unwrap();
    let v: Json = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["quantization"]["config_source"].as_str(),
        Some(good.display().to_string().as_str())
    );
}

// ---- hostile layouts, built in memory --------------------------------------------------------

/// A safetensors file of zero-filled tensors `(name, dtype, shape)`.
fn st(tensors: &[(&str, &str, &[u64])]) -> Vec<u8> {
    let width = |d: &str| match d {
        "I32" | "U32" | "F32" => 4,
        "F16" | "BF16" => 2,
        "I64" => 8,
        _ => 1,
    };
    let mut header = serde_json::Map::new();
    let mut off = 0u64;
    for (name, dtype, shape) in tensors {
        let n: u64 = shape.iter().product::<u64>() * width(dtype);
        header.insert(
            name.to_string(),
            json!({"dtype": dtype, "shape": shape, "data_offsets": [off, off + n]}),
        );
        off += n;
    }
    let text = Json::Object(header).to_string();
    let mut out = (text.len() as u64).to_le_bytes().to_vec();
    out.extend(text.as_bytes());
    out.resize(out.len() + off as usize, 0);
    out
}

/// A header whose data section is not written (shapes too large to build).
fn st_header_only(tensors: &[(&str, &str, &[u64])]) -> Vec<u8> {
    let mut header = serde_json::Map::new();
    for (name, dtype, shape) in tensors {
        header.insert(
            name.to_string(),
            json!({"dtype": dtype, "shape": shape, "data_offsets": [0, 0]}),
        );
    }
    let text = Json::Object(header).to_string();
    let mut out = (text.len() as u64).to_le_bytes().to_vec();
    out.extend(text.as_bytes());
    out
}

fn report(bytes: &[u8], config: Option<Json>) -> (QuantReport, Vec<(&'static str, String)>) {
    let mut m = OpenedModel::from(parse_bytes(bytes).unwrap());
    m.sidecar.config = config;
    let r = analyse(&m).expect("a layout");
    let codes = r
        .findings
        .iter()
        .map(|f| (f.code, f.message.clone()))
        .collect();
    // The summary and every export path take the same model without panicking.
    let s = summarize(&m);
    let _ = weightpeek::view::export::summary_json(&m, &s);
    let _ = weightpeek::view::export::markdown("hostile", &s, &m);
    (r, codes)
}

fn has(codes: &[(&'static str, String)], code: &str, words: &str) -> bool {
    codes.iter().any(|(c, m)| *c == code && m.contains(words))
}

#[test]
fn qweight_rows_that_are_not_whole_values_are_counted_as_stored() {
    // 3-bit: 5 rows × 32 bits = 160 bits, not a whole number of 3-bit values.
    let f = st(&[
        ("l.qweight", "I32", &[5, 64]),
        ("l.scales", "F16", &[1, 64]),
    ]);
    let (r, codes) = report(&f, Some(json!({"quantization_config": {"bits": 3}})));
    assert!(r.weights.is_empty());
    assert!(
        has(
            &codes,
            "quant-shape-mismatch",
            "not a whole number of 3-bit"
        ),
        "{codes:?}"
    );
    // Counted as its 320 stored values; the scales are bytes.
    assert_eq!(r.logical_parameters, 320);
}

#[test]
fn a_qweight_that_is_not_2d_i32_is_a_finding() {
    let f = st(&[
        ("l.qweight", "F16", &[4, 4, 4]),
        ("l.qzeros", "I32", &[1, 1]),
    ]);
    let (r, codes) = report(&f, None);
    assert!(has(&codes, "quant-shape-mismatch", "2-D I32"), "{codes:?}");
    assert_eq!(r.logical_parameters, 64);
}

#[test]
fn missing_companions_are_named() {
    let f = st(&[("l.qweight", "I32", &[16, 64])]);
    let (r, codes) = report(&f, None);
    assert!(
        has(&codes, "quant-companion-missing", "l.scales"),
        "{codes:?}"
    );
    assert!(has(&codes, "quant-assumed", "GPTQ from AWQ"), "{codes:?}");
    assert!(
        has(&codes, "quant-config-missing", "assumed 4"),
        "{codes:?}"
    );
    assert_eq!(r.logical_parameters, 128 * 64);
    // A bitsandbytes weight without its quant_state.
    let f = st(&[
        ("l.weight", "U8", &[32, 1]),
        ("l.weight.absmax", "F32", &[1]),
    ]);
    let (r, codes) = report(&f, None);
    assert_eq!(r.weights[0].scheme, Scheme::Bnb4);
    assert!(
        has(&codes, "quant-companion-missing", "quant_state"),
        "{codes:?}"
    );
    assert_eq!(r.logical_parameters, 64);
}

#[test]
fn absurd_config_values_are_refused_with_the_key_named() {
    let layer = st(&[
        ("l.qweight", "I32", &[32, 64]),
        ("l.qzeros", "I32", &[2, 8]),
        ("l.scales", "F16", &[2, 64]),
    ]);
    for (cfg, words) in [
        (json!({"quantization_config": {"bits": 7}}), "bits is 7"),
        (json!({"quantization_config": {"bits": 64}}), "bits is 64"),
        (json!({"quantization_config": {"bits": -4}}), "bits is -4"),
        (
            json!({"quantization_config": {"bits": "four"}}),
            "not an integer",
        ),
        (
            json!({"quantization_config": {"bits": 1e300}}),
            "not an integer",
        ),
        (
            json!({"quantization_config": {"bits": 4, "group_size": 0}}),
            "group_size is 0",
        ),
    ] {
        let (r, codes) = report(&layer, Some(cfg.clone()));
        assert!(
            has(&codes, "quant-config-invalid", words),
            "{cfg}: {codes:?}"
        );
        // The bits come from the qzeros' shape instead: 8 columns × 32 / 64 outputs = 4.
        assert_eq!(r.weights[0].bits, 4, "{cfg}");
        assert_eq!(r.logical_parameters, 256 * 64, "{cfg}");
    }
    // Config and shapes disagree: the config wins, and the disagreement is said.
    let (r, codes) = report(&layer, Some(json!({"quantization_config": {"bits": 8}})));
    assert_eq!(r.weights[0].bits, 8);
    assert!(
        has(&codes, "quant-shape-mismatch", "says 8 bits"),
        "{codes:?}"
    );
    // A config that is not an object, or whose section is a string: ignored, values derived.
    for cfg in [
        json!([1, 2]),
        json!({"quantization_config": "gptq"}),
        json!(null),
    ] {
        let (r, _) = report(&layer, Some(cfg));
        assert_eq!(r.logical_parameters, 256 * 64);
    }
    // MLX with absurd bits: MLX's default is used and said.
    let mlx = st(&[
        ("l.weight", "U32", &[8, 8]),
        ("l.scales", "F16", &[8, 1]),
        ("l.biases", "F16", &[8, 1]),
    ]);
    let (r, codes) = report(
        &mlx,
        Some(json!({"quantization": {"bits": 64, "group_size": 64}})),
    );
    assert!(
        has(&codes, "quant-config-invalid", "bits is 64"),
        "{codes:?}"
    );
    assert_eq!(r.logical_parameters, 8 * 64);
}

#[test]
fn companion_shapes_that_disagree_with_the_packing_are_findings() {
    let f = st(&[
        ("l.qweight", "I32", &[32, 64]),
        ("l.scales", "F16", &[3, 64]),
        ("l.g_idx", "I32", &[100]),
    ]);
    let (_, codes) = report(
        &f,
        Some(
            json!({"quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": 128}}),
        ),
    );
    assert!(
        has(&codes, "quant-shape-mismatch", "scales are [3, 64]"),
        "{codes:?}"
    );
    assert!(
        has(&codes, "quant-shape-mismatch", "g_idx is [100]"),
        "{codes:?}"
    );
    // MXFP4 blocks whose last dimension is not 16 bytes.
    let f = st(&[
        ("e.w_blocks", "U8", &[2, 4, 15]),
        ("e.w_scales", "U8", &[2, 4]),
    ]);
    // Not recognised as a layout at all when nothing else is quantised: a finding-free None is
    // fine, but a mixed file reports it.
    let mut m = OpenedModel::from(parse_bytes(&f).unwrap());
    m.sidecar.config = None;
    if let Some(r) = analyse(&m) {
        assert!(r.findings.iter().any(|f| f.code == "quant-shape-mismatch"));
    }
    let f = st(&[
        ("e.w_blocks", "U8", &[2, 4, 16]),
        ("e.w_scales", "U8", &[2, 5]),
        ("e.v_blocks", "U8", &[2, 4, 15]),
        ("e.v_scales", "U8", &[2, 4]),
    ]);
    let (r, codes) = report(&f, None);
    assert!(
        has(&codes, "quant-shape-mismatch", "MXFP4 scales are [2, 5]"),
        "{codes:?}"
    );
    assert!(
        has(&codes, "quant-shape-mismatch", "[..., blocks, 16]"),
        "{codes:?}"
    );
    assert_eq!(r.logical_parameters, 2 * 4 * 32 + 2 * 4 * 15);
    // FP8 block scales that do not cover the weight.
    let f = st(&[
        ("l.weight", "F8_E4M3", &[256, 256]),
        ("l.weight_scale_inv", "F32", &[1, 2]),
    ]);
    let (_, codes) = report(
        &f,
        Some(json!({"quantization_config": {"weight_block_size": [128, 128]}})),
    );
    assert!(
        has(&codes, "quant-shape-mismatch", "block scales are [1, 2]"),
        "{codes:?}"
    );
}

#[test]
fn bad_shape_tensor_data_falls_back_to_the_packing() {
    let f = st(&[
        ("l.weight_packed", "I32", &[4, 2]),
        ("l.weight_shape", "I64", &[2]),
        ("l.weight_scale", "F16", &[4, 1]),
        ("b.weight", "U8", &[8, 1]),
        ("b.weight.absmax", "F32", &[1]),
        ("b.weight.quant_state.bitsandbytes__nf4", "U8", &[16]),
    ]);
    let cfg =
        json!({"quantization_config": {"config_groups": {"g": {"weights": {"num_bits": 4}}}}});
    for (shape_data, state) in [
        (vec![0xffu8; 16], b"{\"shape\": [1000]".to_vec()),
        (
            [4i64, 1 << 40]
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect(),
            br#"{"shape":[1000,1000]}"#.to_vec(),
        ),
        (vec![1, 2, 3], vec![0xff]),
    ] {
        let mut m = OpenedModel::from(parse_bytes(&f).unwrap());
        m.sidecar.config = Some(cfg.clone());
        m.sidecar
            .tensor_data
            .insert("l.weight_shape".into(), shape_data);
        m.sidecar
            .tensor_data
            .insert("b.weight.quant_state.bitsandbytes__nf4".into(), state);
        let r = analyse(&m).unwrap();
        assert_eq!(r.logical_parameters, 4 * 16 + 16, "{:?}", r.findings);
        assert!(r
            .findings
            .iter()
            .any(|f| f.code == "quant-shape-mismatch" || f.code == "quant-state-unreadable"));
    }
}

#[test]
fn overflowing_shapes_do_not_panic() {
    let big = u64::MAX / 2;
    for f in [
        st_header_only(&[
            ("l.qweight", "I32", &[big, 3]),
            ("l.scales", "F16", &[1, 3]),
        ]),
        st_header_only(&[
            ("l.qweight", "I32", &[3, big]),
            ("l.scales", "F16", &[1, big]),
        ]),
        st_header_only(&[
            ("l.weight", "U32", &[big, big]),
            ("l.scales", "F16", &[1, 1]),
        ]),
        st_header_only(&[
            ("e.w_blocks", "U8", &[big, big, 16]),
            ("e.w_scales", "U8", &[1]),
        ]),
        st_header_only(&[
            ("l.weight_packed", "I32", &[big, big]),
            ("l.weight_scale", "F16", &[1]),
        ]),
        st_header_only(&[
            ("b.weight", "U8", &[big, 4]),
            ("b.weight.absmax", "F32", &[1]),
        ]),
    ] {
        let m = OpenedModel::from(parse_bytes(&f).unwrap());
        let _ = analyse(&m);
        let _ = summarize(&m);
    }
}

#[test]
fn gguf_and_plain_safetensors_have_no_layout() {
    let f = st(&[("a.weight", "F16", &[4, 4]), ("a.scales", "F16", &[4])]);
    let m = OpenedModel::from(parse_bytes(&f).unwrap());
    assert!(analyse(&m).is_none());
    assert!(summarize(&m).quantization.is_none());
    let g = common::GgufBuilder::new(3).build();
    assert!(analyse(&parse_bytes(&g).unwrap().into()).is_none());
}

#[test]
fn many_distinct_findings_stay_fast() {
    // 30,000 qweights whose rows are not whole 3-bit values, each with its own message.
    let names: Vec<String> = (0..30_000).map(|i| format!("m{i}.qweight")).collect();
    let shapes: Vec<[u64; 2]> = (0..30_000u64).map(|i| [3 * i + 1, 8]).collect();
    let tensors: Vec<(&str, &str, &[u64])> = names
        .iter()
        .zip(&shapes)
        .map(|(n, s)| (n.as_str(), "I32", &s[..]))
        .collect();
    let f = st_header_only(&tensors);
    let mut m = OpenedModel::from(parse_bytes(&f).unwrap());
    m.sidecar.config = Some(json!({"quantization_config": {"bits": 3}}));
    let t = std::time::Instant::now();
    let r = analyse(&m).unwrap();
    let took = t.elapsed();
    // One mismatch per tensor, and the GPTQ-or-AWQ note once for all 30,000.
    assert_eq!(r.findings.len(), 30_000 + 1);
    assert!(r.findings.iter().any(|f| f.code == "quant-assumed"
        && f.message
            .contains("(30000 tensors, the first \"m0.qweight\")")));
    assert!(took.as_secs() < 20, "{took:?}");
    eprintln!("30,000 distinct findings in {took:?}");
}

#[test]
fn random_layouts_never_panic() {
    // A small linear congruential generator: the same 3,000 files every run.
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = |n: u64| {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) % n
    };
    let suffixes = [
        ".qweight",
        ".qzeros",
        ".scales",
        ".g_idx",
        ".weight",
        ".weight.absmax",
        ".weight.quant_map",
        ".weight.nested_absmax",
        ".weight.quant_state.bitsandbytes__nf4",
        ".SCB",
        ".weight_format",
        ".weight_scale",
        ".weight_scale_inv",
        ".input_scale",
        ".biases",
        ".weight_packed",
        ".weight_shape",
        ".weight_zero_point",
        "_blocks",
        "_scales",
    ];
    let dtypes = [
        "I32", "U32", "U8", "I8", "F16", "F32", "F8_E4M3", "I64", "BOOL",
    ];
    let dims = [0u64, 1, 2, 3, 7, 8, 16, 32, 128, u64::MAX / 5, u64::MAX];
    let configs = [
        json!(null),
        json!({"quantization_config": {"bits": 4, "group_size": 128}}),
        json!({"quantization_config": {"quant_method": "awq", "bits": 3, "version": "gemv"}}),
        json!({"quantization": {"bits": 2, "group_size": -1, "l": {"bits": 8}}}),
        json!({"quantization_config": {"config_groups": {"a": {"weights": {"num_bits": 8}}, "b": {"weights": {"num_bits": 4, "group_size": 0}}}}}),
        json!({"quantization_config": {"weight_block_size": [0, "x"]}}),
        json!({"bits": 1e10}),
    ];
    for _ in 0..3_000 {
        let n = 1 + next(5) as usize;
        let names: Vec<String> = (0..n)
            .map(|_| format!("l{}", suffixes[next(suffixes.len() as u64) as usize]))
            .collect();
        let shapes: Vec<Vec<u64>> = (0..n)
            .map(|_| {
                (0..next(5))
                    .map(|_| dims[next(dims.len() as u64) as usize])
                    .collect()
            })
            .collect();
        let tensors: Vec<(&str, &str, &[u64])> = names
            .iter()
            .zip(&shapes)
            .map(|(name, s)| {
                (
                    name.as_str(),
                    dtypes[next(dtypes.len() as u64) as usize],
                    &s[..],
                )
            })
            .collect();
        let f = st_header_only(&tensors);
        let Ok(mut m) = parse_bytes(&f).map(OpenedModel::from) else {
            continue;
        };
        m.sidecar.config = Some(configs[next(configs.len() as u64) as usize].clone());
        if next(2) == 0 {
            for name in &names {
                let data: Vec<u8> = (0..next(24)).map(|_| next(256) as u8).collect();
                m.sidecar.tensor_data.insert(name.clone(), data);
            }
        }
        let _ = analyse(&m);
        let s = summarize(&m);
        let _ = weightpeek::view::facts::summary_facts(&s, &m);
    }
}
