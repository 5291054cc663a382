//! The quantisation recipe (issue #14): for the real Gemma file and the mixed-type files
//! `tests/reference/doctor_fixtures.py` writes, the recipe's rules give every tensor its type
//! back, read two ways: from the recipe's rows (pattern, layers), and from the printed
//! `llama-quantize --tensor-type` arguments applied the way llama-quantize applies them (each
//! lower-cased pattern searched in the name with Python's `re`, first and last match alike),
//! against the types gguf-py reads from the file.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value as Json;
use weightpeek::format::Model;
use weightpeek::summary::layers::split_layer;
use weightpeek::summary::recipe::{recipe, Recipe};

fn fixtures() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/doctor-fixtures");
    common::real_file(dir.join("expected.json")).map(|_| dir)
}

/// Each tensor's type by the recipe's rows: its pattern's row, the rule holding its layer.
fn by_rows(r: &Recipe, name: &str) -> Vec<String> {
    let (pattern, layer) = match split_layer(name) {
        Some((prefix, n, role)) => (format!("{prefix}.#.{role}"), Some(n)),
        None => (name.to_string(), None),
    };
    let row = r
        .rows
        .iter()
        .find(|row| row.pattern == pattern)
        .expect("a row per pattern");
    row.rules
        .iter()
        .filter(|rule| match (&rule.layers, layer) {
            (Some(l), Some(n)) => rule.all_layers || l.contains(&n),
            (None, None) => true,
            _ => false,
        })
        .map(|rule| rule.dtype.clone())
        .collect()
}

/// The arguments applied by the reference script as llama-quantize would.
fn applied(file: &Path, r: &Recipe) -> Option<Json> {
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python");
    common::real_file(python.clone())?;
    let args = std::env::temp_dir().join(format!(
        "weightpeek-recipe-{}-{}.json",
        std::process::id(),
        file.file_stem().unwrap().to_string_lossy()
    ));
    std::fs::write(&args, serde_json::to_vec(&r.arguments).unwrap()).unwrap();
    let out = Command::new(python)
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/reference/doctor_fixtures.py"))
        .arg("--apply")
        .arg(file)
        .arg(&args)
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

fn assert_reproduces(file: &Path, m: &Model) -> Recipe {
    let r = recipe(m).expect("a GGUF with tensors has a recipe");
    assert!(r.complete);
    for t in &m.tensors {
        assert_eq!(
            by_rows(&r, &t.name),
            [t.dtype.label()],
            "{}: {}",
            file.display(),
            t.name
        );
    }
    let rules: usize = r.rows.iter().map(|row| row.rules.len()).sum();
    assert_eq!(r.arguments.len(), rules);
    if let Some(a) = applied(file, &r) {
        assert_eq!(a["tensors"].as_u64(), Some(m.tensors.len() as u64));
        for (name, want) in a["file"].as_object().unwrap() {
            assert_eq!(a["matches"][name], 1, "{name}: rules must not overlap");
            assert_eq!(&a["first"][name], want, "{name}");
            assert_eq!(&a["last"][name], want, "{name}");
        }
    }
    r
}

#[test]
fn gemma_recipe_reproduces_every_type() {
    let Some(p) = common::real_file(common::data_dir().join("gemma-3-270m-q4_k_m.gguf")) else {
        return;
    };
    let (m, _) = common::open_model(&p);
    let r = assert_reproduces(&p, &m);
    // 236 tensors collapse into one row per role and the two whole-model tensors.
    let tensors: u64 = r.rows.iter().map(|row| row.tensors).sum();
    assert_eq!(tensors, m.tensors.len() as u64);
    assert!(r.rows.len() < 20, "{} rows", r.rows.len());
    assert_eq!(r.base_type, "Q4_K_M");
    assert!(r
        .provenance
        .iter()
        .any(|p| p.key == "general.quantization_version"));
}

#[test]
fn mixed_type_files_reproduce_every_type() {
    let Some(dir) = fixtures() else { return };
    let doc: Json =
        serde_json::from_slice(&std::fs::read(dir.join("expected.json")).unwrap()).unwrap();
    let cases = doc["recipe"].as_array().unwrap();
    assert_eq!(cases.len(), 3);
    for case in cases {
        let file = dir.join(case["file"].as_str().unwrap());
        let (m, _) = common::open_model(&file);
        let types = case["types"].as_object().unwrap();
        assert_eq!(types.len(), m.tensors.len());
        for t in &m.tensors {
            assert_eq!(
                Some(t.dtype.label().as_str()),
                types[&t.name].as_str(),
                "{}",
                t.name
            );
        }
        let r = assert_reproduces(&file, &m);
        if case["case"] == "recipe-uniform" {
            // One type per role: no layer lists at all.
            assert!(r.rows.iter().all(|row| row.rules.len() == 1));
        } else {
            assert!(r.rows.iter().any(|row| row.rules.len() > 1));
        }
    }
}

#[test]
fn cli_prints_the_recipe() {
    let Some(p) = common::real_file(common::data_dir().join("gemma-3-270m-q4_k_m.gguf")) else {
        return;
    };
    let (code, out, _) = common::run_cli(&[p.to_str().unwrap(), "--recipe"], None, None);
    assert_eq!(code, 0, "{out}");
    assert!(out.starts_with("Quantisation recipe: 15 patterns"), "{out}");
    assert!(out.contains("blk.#.ffn_down.weight"), "{out}");
    assert!(
        out.contains("--tensor-type '^blk\\.\\d+\\.ffn_gate\\.weight$=Q5_0'"),
        "{out}"
    );
    assert!(out.contains("IN.gguf OUT.gguf Q4_K_M"), "{out}");
    let (code, json, _) = common::run_cli(&[p.to_str().unwrap(), "--recipe", "--json"], None, None);
    assert_eq!(code, 0);
    let j: Json = serde_json::from_str(&json).unwrap();
    let (m, _) = common::open_model(&p);
    assert_eq!(serde_json::to_value(recipe(&m).unwrap()).unwrap(), j);
    let st = common::data_dir().join("all-MiniLM-L6-v2/model.safetensors");
    if common::real_file(st.clone()).is_some() {
        let (code, out, _) = common::run_cli(&[st.to_str().unwrap(), "--recipe"], None, None);
        assert_eq!(
            (code, out.as_str()),
            (1, weightpeek::view::cli::recipe::NO_RECIPE)
        );
    }
}

#[test]
fn compare_lists_the_recipe_patterns_that_differ() {
    let Some(dir) = fixtures() else { return };
    let (a, _) = common::open_model(&dir.join("recipe-q4km-like.gguf"));
    let (b, _) = common::open_model(&dir.join("recipe-uniform.gguf"));
    let v = weightpeek::view::compare::compare("a", &a, "b", &b);
    let (ra, rb) = (recipe(&a).unwrap(), recipe(&b).unwrap());
    let types = |r: &Recipe, p: &str| {
        r.rows
            .iter()
            .find(|row| row.pattern == p)
            .map(weightpeek::view::recipe::types_text)
    };
    // Exactly the patterns whose types differ (or that one file lacks) are listed.
    let mut seen = std::collections::HashSet::new();
    let want: Vec<String> = ra
        .rows
        .iter()
        .chain(&rb.rows)
        .map(|row| row.pattern.clone())
        .filter(|p| types(&ra, p) != types(&rb, p) && seen.insert(p.clone()))
        .collect();
    let got: Vec<String> = v.recipe.iter().map(|r| r.raw.clone()).collect();
    assert!(!got.is_empty());
    assert_eq!(got, want);
    let same = weightpeek::view::compare::compare("a", &a, "a", &a);
    assert!(same.recipe.is_empty());
    let text = weightpeek::view::cli::diff::text("a", "b", &v);
    assert!(text.contains("quantisation recipe differences ("), "{text}");
}
