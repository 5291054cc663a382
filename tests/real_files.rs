//! The real files: every vocab GGUF in ../shared/data/vocab (v1, v2, v3), the Gemma 3 270M
//! Q4_K_M GGUF, the all-MiniLM-L6-v2 safetensors and the bundled sample, compared field by field
//! with the reference readers' output (tests/reference/reference.py: gguf-py's GGUFReader, the
//! safetensors package, and @huggingface/gguf for v1). Also the header-only promise, counted at
//! the byte source, and the real damaged file.

mod common;

use std::path::{Path, PathBuf};

use common::{data_dir, open_model as open, real_file, reference, shared_dir};
use serde_json::Value as J;
use weightpeek::format::ggml_type::{self, file_type_name, GGML_TYPES};
use weightpeek::format::{ErrorKind, Value};
use weightpeek::open::OpenedModel;
use weightpeek::summary::summarize;

fn u(j: &J) -> u64 {
    j.as_u64().unwrap_or_else(|| panic!("not a u64: {j}"))
}

/// Compares a reference JSON value with a parsed metadata value.
fn same_scalar(r: &J, v: &Value) -> bool {
    match (r, v) {
        (J::String(s), Value::String(t)) => *s == t.text,
        (J::String(s), Value::F32(x)) => s == &nonfinite(f64::from(*x)),
        (J::String(s), Value::F64(x)) => s == &nonfinite(*x),
        (J::Bool(b), Value::Bool(x)) => b == x,
        (J::Number(_), Value::F32(x)) => r.as_f64() == Some(f64::from(*x)),
        (J::Number(_), Value::F64(x)) => r.as_f64() == Some(*x),
        (J::Number(n), other) => match (n.as_i64(), n.as_u64()) {
            (_, Some(x)) => other.as_u64() == Some(x),
            (Some(x), None) => other.as_f64() == Some(x as f64),
            _ => false,
        },
        _ => false,
    }
}

fn nonfinite(x: f64) -> String {
    if x.is_nan() {
        "nan".into()
    } else if x > 0.0 {
        "inf".into()
    } else {
        "-inf".into()
    }
}

/// Checks a parsed model against its reference JSON: counts, sizes, every tensor, every
/// metadata value (arrays: type, count, first 5 and last elements), and the summary totals.
fn check_against_reference(m: &OpenedModel, r: &J) {
    let path = r["path"].as_str().unwrap();
    assert!(m.error.is_none(), "{path}: {:?}", m.error);
    assert_eq!(m.format.name(), r["format"], "{path}");
    assert_eq!(m.file_size, u(&r["file_size"]), "{path}");
    assert_eq!(m.metadata_count, u(&r["metadata_count"]), "{path}");
    assert_eq!(m.metadata.len() as u64, u(&r["metadata_count"]), "{path}");
    assert_eq!(m.tensor_count, u(&r["tensor_count"]), "{path}");
    if m.format.name() == "gguf" {
        assert_eq!(m.version.map(u64::from), r["version"].as_u64(), "{path}");
        assert_eq!(m.alignment, r["alignment"].as_u64(), "{path}");
        assert_eq!(m.data_offset, u(&r["data_offset"]), "{path}");
        let be = r["endianness"] == "big";
        assert_eq!(m.endian == weightpeek::format::Endian::Big, be, "{path}");
    } else {
        assert_eq!(m.header_size, u(&r["header_size"]), "{path}");
    }
    let rt = r["tensors"].as_array().unwrap();
    assert_eq!(m.tensors.len(), rt.len(), "{path}");
    for (t, e) in m.tensors.iter().zip(rt) {
        assert_eq!(t.name, e["name"].as_str().unwrap(), "{path}");
        assert_eq!(
            t.dtype.label(),
            e["dtype"].as_str().unwrap(),
            "{path} {}",
            t.name
        );
        let shape: Vec<u64> = e["shape"].as_array().unwrap().iter().map(u).collect();
        assert_eq!(t.shape, shape, "{path} {}", t.name);
        assert_eq!(t.offset, u(&e["offset"]), "{path} {}", t.name);
        assert_eq!(t.bytes, Some(u(&e["bytes"])), "{path} {}", t.name);
    }
    let rm = r["metadata"].as_array().unwrap();
    assert_eq!(m.metadata.len(), rm.len(), "{path}");
    for (kv, e) in m.metadata.iter().zip(rm) {
        let key = e["key"].as_str().unwrap();
        assert_eq!(kv.key, key, "{path}");
        assert_eq!(kv.value.value_type().name(), e["type"], "{path} {key}");
        if let Value::Array(a) = &kv.value {
            assert_eq!(a.elem.name(), e["elem_type"], "{path} {key}");
            assert_eq!(a.len, u(&e["count"]), "{path} {key}");
            let head = a.values(&m.bytes, 0, 5).unwrap();
            let rh = e["head"].as_array().unwrap();
            assert_eq!(head.len(), rh.len(), "{path} {key}");
            for (v, x) in head.iter().zip(rh) {
                assert!(same_scalar(x, v), "{path} {key}: {x} vs {v:?}");
            }
            if a.len > 0 && !e["last"].is_null() {
                let last = a.values(&m.bytes, a.len - 1, 1).unwrap();
                assert!(same_scalar(&e["last"], &last[0]), "{path} {key} last");
            }
        } else {
            assert!(
                same_scalar(&e["value"], &kv.value),
                "{path} {key}: {} vs {:?}",
                e["value"],
                kv.value
            );
        }
    }
    let s = summarize(m);
    assert_eq!(s.parameter_count, u(&r["parameter_count"]), "{path}");
    assert_eq!(s.tensor_bytes, u(&r["tensor_bytes"]), "{path}");
    let rd = r["dtypes"].as_array().unwrap();
    assert_eq!(s.dtypes.len(), rd.len(), "{path}");
    for e in rd {
        let d = s
            .dtypes
            .iter()
            .find(|d| d.dtype == e["dtype"].as_str().unwrap())
            .unwrap_or_else(|| panic!("{path}: no {}", e["dtype"]));
        assert_eq!(d.tensors, u(&e["tensors"]), "{path} {}", d.dtype);
        assert_eq!(d.elements, u(&e["elements"]), "{path} {}", d.dtype);
        assert_eq!(d.bytes, u(&e["bytes"]), "{path} {}", d.dtype);
    }
    let params = u(&r["parameter_count"]);
    if params > 0 {
        let expect = u(&r["tensor_bytes"]) as f64 * 8.0 / params as f64;
        assert_eq!(s.bits_per_weight, Some(expect), "{path}");
    }
}

fn vocab_files() -> Vec<PathBuf> {
    let dir = shared_dir().join("data/vocab");
    let mut files: Vec<PathBuf> = ["", "history"]
        .iter()
        .flat_map(|sub| std::fs::read_dir(dir.join(sub)).into_iter().flatten())
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "gguf"))
        .collect();
    files.sort();
    files
}

fn key_of(p: &Path) -> String {
    p.file_stem().unwrap().to_string_lossy().into_owned()
}

#[test]
fn every_vocab_file_matches_the_reference() {
    let files = vocab_files();
    let Some(_) = real_file(shared_dir().join("data/vocab")) else {
        return;
    };
    assert_eq!(files.len(), 14, "vocab/ has 12 v3 files and 2 in history/");
    for p in files {
        let Some(r) = reference(&key_of(&p)) else {
            continue;
        };
        let (m, src) = open(&p);
        check_against_reference(&m, &r);
        // The container checks find nothing; the doctor's real findings in these files are
        // tests/doctor.rs's.
        let found: Vec<_> = weightpeek::check::check_one_file(&m)
            .into_iter()
            .filter(|f| !weightpeek::check::doctor::is_doctor_code(f.code))
            .collect();
        assert_eq!(found, [], "{}", p.display());
        // These files hold only a header: it is read, and nothing is read twice.
        assert_eq!(src.bytes, m.file_size, "{}", p.display());
    }
}

#[test]
fn gemma_3_gguf_matches_the_reference_reading_only_its_header() {
    let Some(p) = real_file(data_dir().join("gemma-3-270m-q4_k_m.gguf")) else {
        return;
    };
    let Some(r) = reference("gemma-3-270m-q4_k_m") else {
        return;
    };
    let (m, src) = open(&p);
    check_against_reference(&m, &r);
    assert_eq!(weightpeek::check::check_one_file(&m), []);
    let header = u(&r["data_offset"]);
    assert!(
        src.bytes < header + (1 << 20),
        "read {} bytes for a {header}-byte header",
        src.bytes
    );
    let s = summarize(&m);
    let card = s.architecture.expect("gemma3 card");
    assert_eq!(card.architecture, "gemma3");
    let ft = r["metadata"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["key"] == "general.file_type")
        .map(|e| u(&e["value"]))
        .unwrap();
    assert_eq!(
        card.file_type,
        Some(format!("{} ({ft})", file_type_name(ft).unwrap()))
    );
    // Per-layer map: every blk.N.* tensor of the reference lands in the map with its type.
    for t in r["tensors"].as_array().unwrap() {
        let name = t["name"].as_str().unwrap();
        let Some(rest) = name.strip_prefix("blk.") else {
            continue;
        };
        let (layer, role) = rest.split_once('.').unwrap();
        let layer: u64 = layer.parse().unwrap();
        let row = s.layers.roles.iter().find(|x| x.role == role).unwrap();
        let col = s.layers.layers.binary_search(&layer).unwrap();
        assert_eq!(row.cells[col].as_deref(), t["dtype"].as_str(), "{name}");
    }
}

#[test]
fn minilm_safetensors_matches_the_reference_reading_only_its_header() {
    let Some(p) = real_file(data_dir().join("all-MiniLM-L6-v2/model.safetensors")) else {
        return;
    };
    let Some(r) = reference("all-MiniLM-L6-v2") else {
        return;
    };
    let (m, src) = open(&p);
    check_against_reference(&m, &r);
    assert_eq!(weightpeek::check::check_one_file(&m), []);
    assert!(src.bytes < u(&r["header_size"]) + (1 << 20));
    assert_eq!(src.reads.len(), 1, "an 11 KB header takes one read");
}

#[test]
fn the_bundled_sample_matches_the_reference() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("www/sample.gguf");
    let Some(r) = reference("sample") else { return };
    let (m, _) = open(&p);
    check_against_reference(&m, &r);
}

#[test]
fn the_real_damaged_file_gives_a_clear_error_and_keeps_the_keys_before_it() {
    let Some(p) = real_file(shared_dir().join("data/corrupt/ggml-vocab-bert-bge.mangled.gguf"))
    else {
        return;
    };
    let Some(r) = reference("ggml-vocab-bert-bge") else {
        return;
    };
    let (m, _) = open(&p);
    let e = m
        .error
        .as_ref()
        .expect("the damaged file must not parse cleanly");
    let msg = e.to_string();
    assert!(msg.contains(&format!("at byte {}", e.offset)), "{msg}");
    assert!(
        matches!(
            e.kind,
            ErrorKind::CountTooLarge { .. } | ErrorKind::Truncated { .. }
        ),
        "{msg}"
    );
    assert!(e.field.starts_with("metadata["), "{msg}");
    // The keys before the damage are the real file's keys.
    let real: Vec<&str> = r["metadata"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["key"].as_str().unwrap())
        .collect();
    let got: Vec<&str> = m.metadata.iter().map(|e| e.key.as_str()).collect();
    assert!(got.len() >= 5, "{got:?}");
    assert_eq!(got[..], real[..got.len()]);
    assert!(e.offset < m.file_size);
    // The tensor list was never reached: the table says so (its header announces none), and
    // the memory card says what an encoder needs without a missing number.
    assert_eq!(m.tensor_count, 0);
    assert_eq!(
        weightpeek::view::tensors::empty_text(m.tensors.len(), m.tensor_count, true),
        "No tensors: the header announces none, and parsing stopped before its tensor list."
    );
    let kv = weightpeek::summary::memory::KvType::F16;
    let why = weightpeek::summary::memory::estimate(&m, None, kv)
        .unwrap_err()
        .to_string();
    assert!(
        why.ends_with("it needs about as much memory as its weights, which are not known: the header was not read to the end of its tensor list"),
        "{why}"
    );
}

#[test]
fn the_type_table_matches_gguf_py() {
    let Some(r) = reference("ggml_types") else {
        return;
    };
    let sized = r["quant_types"].as_array().unwrap();
    for e in sized {
        let id = u(&e["id"]) as u32;
        let t = ggml_type::lookup(id).unwrap_or_else(|| panic!("id {id} missing"));
        assert_eq!(t.name, e["name"], "id {id}");
        assert_eq!(u64::from(t.block_size), u(&e["block_size"]), "{}", t.name);
        if t.name == "Q8_1" {
            // gguf-py says 40; ggml's block_q8_1 (ggml-common.h) is 2 × f16 + 32 = 36 bytes.
            assert_eq!((t.type_size, u(&e["type_size"])), (36, 40));
            continue;
        }
        assert_eq!(u64::from(t.type_size), u(&e["type_size"]), "{}", t.name);
    }
    // Every active id in our table that gguf-py knows has the same name; ids gguf-py lacks
    // (newer than 0.19.0) are the tail of the table.
    let known: Vec<u64> = sized.iter().map(|e| u(&e["id"])).collect();
    let ours: Vec<u64> = GGML_TYPES
        .iter()
        .filter(|t| t.status == ggml_type::Status::Active)
        .map(|t| u64::from(t.id))
        .collect();
    let missing: Vec<u64> = ours
        .iter()
        .copied()
        .filter(|i| !known.contains(i))
        .collect();
    assert!(
        missing.iter().all(|&i| i > *known.iter().max().unwrap()),
        "{missing:?}"
    );
    for f in r["file_types"].as_array().unwrap() {
        assert_eq!(
            file_type_name(u(&f["id"])),
            f["name"].as_str(),
            "file type {}",
            f["id"]
        );
    }
}

#[test]
fn the_tokenizer_of_every_real_gguf_matches_the_reference() {
    use weightpeek::summary::tokenizer::{tokenizer_info, TokenIndex};
    let mut files = vocab_files();
    files.push(data_dir().join("gemma-3-270m-q4_k_m.gguf"));
    for p in files {
        let Some(p) = real_file(p) else { continue };
        let Some(r) = reference(&key_of(&p)) else {
            continue;
        };
        let (m, _) = open(&p);
        let meta = r["metadata"].as_array().unwrap();
        let rk = |k: &str| meta.iter().find(|e| e["key"] == k);
        let Some(rt) = rk("tokenizer.ggml.tokens") else {
            continue;
        };
        let info = tokenizer_info(&m).unwrap();
        assert_eq!(info.vocab_size, u(&rt["count"]), "{}", p.display());
        let Some(Value::Array(a)) = m.get("tokenizer.ggml.tokens") else {
            panic!()
        };
        let index = TokenIndex::build(a, &m.bytes).expect("index");
        let head = rt["head"].as_array().unwrap();
        for (i, t) in head.iter().enumerate() {
            assert_eq!(
                index.raw(&m.bytes, i as u64).as_deref(),
                t.as_str(),
                "{}",
                p.display()
            );
        }
        assert_eq!(
            index.raw(&m.bytes, index.len() - 1).as_deref(),
            rt["last"].as_str(),
            "{}",
            p.display()
        );
        // Special tokens among the first five have their reference text.
        for s in &info.special {
            if s.id < head.len() as u64 {
                let want = weightpeek::text::escape(head[s.id as usize].as_str().unwrap());
                assert_eq!(
                    s.text.as_deref(),
                    Some(want.as_str()),
                    "{} {}",
                    p.display(),
                    s.role
                );
            }
        }
        if let Some(rm) = rk("tokenizer.ggml.merges") {
            assert_eq!(info.merges, Some(u(&rm["count"])), "{}", p.display());
        }
        let first = head[0].as_str().unwrap();
        if !first.is_empty() {
            assert!(
                index.search(&m.bytes, first, 1_000_000).contains(&0),
                "{}",
                p.display()
            );
        }
    }
}
