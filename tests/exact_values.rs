//! Issue #11: every previewed value is the stored type's own. The files that
//! `tests/reference/exact_values.py` writes (every safetensors dtype, every plain GGUF type in
//! both byte orders, tensors with a zero dimension; under `target/exact-fixtures` or
//! `$WEIGHTPEEK_EXACT_FIXTURES`) are previewed natively and through the CLI's `--json`, and each
//! first value, each last row, the exact min and max, the counts and the histogram equal the
//! script's numpy / ml_dtypes values. No expected number is written here.

mod common;

use std::path::{Path, PathBuf};

use common::{float, open_model, run_cli, same, same_float};
use serde_json::Value as J;
use weightpeek::dequant::Exact;
use weightpeek::preview::{plan, read_window, Job, Preview, WindowRequest};
use weightpeek::source::block_on_ready;

fn fixtures() -> Option<PathBuf> {
    let dir = std::env::var_os("WEIGHTPEEK_EXACT_FIXTURES")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/exact-fixtures"));
    common::real_file(dir.join("expected.json")).map(|_| dir)
}

fn expected(dir: &Path) -> J {
    serde_json::from_slice(&std::fs::read(dir.join("expected.json")).unwrap()).unwrap()
}

fn range(v: &J) -> std::ops::Range<u64> {
    v[0].as_u64().unwrap()..v[1].as_u64().unwrap()
}

fn close(label: &str, got: Option<f64>, want: &J) {
    let want = want.as_f64().unwrap();
    let got = got.unwrap_or_else(|| panic!("{label}: missing"));
    // numpy sums pairwise, the preview in window order.
    assert!(
        (got - want).abs() <= 1e-12 * want.abs().max(1e-300) || got == want,
        "{label}: {got} vs {want}"
    );
}

fn check(label: &str, kind: &str, p: &Preview, w: &J) {
    assert_eq!(p.window.rows, range(&w["rows"]), "{label}: rows");
    assert_eq!(p.window.cols, range(&w["cols"]), "{label}: cols");
    assert_eq!(
        p.window.read_len,
        w["read_len"].as_u64().unwrap(),
        "{label}"
    );
    let first = w["first"].as_array().unwrap();
    assert_eq!(p.first_values.len(), first.len(), "{label}: first values");
    for (k, (v, want)) in p.first_values.iter().zip(first).enumerate() {
        assert!(
            same(kind, v.value, want),
            "{label}: value {k} is {:?}, numpy {want}",
            v.value
        );
        // The text reads back as the same value (or is every digit of the integer).
        match v.value {
            Exact::F64(x) => assert!(same_float(v.text.parse().unwrap(), x), "{}", v.text),
            Exact::F32(x) => assert!(same_float(v.text.parse::<f32>().unwrap().into(), x.into())),
            Exact::Int(_) | Exact::UInt(_) | Exact::Bool(_) => {
                assert_eq!(Some(v.text.as_str()), want.as_str(), "{label}")
            }
            Exact::Complex(..) | Exact::Complex128(..) => {
                assert!(v.text.ends_with('i'), "{}", v.text)
            }
        }
    }
    let s = &w["stats"];
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
    if s.get("min").is_none() {
        assert_eq!((st.min, st.max, st.mean), (None, None, None), "{label}");
        assert!(p.histogram.counts.is_empty(), "{label}");
        return;
    }
    for (k, got) in [("min", st.min), ("max", st.max)] {
        let got = got.unwrap_or_else(|| panic!("{label}: no {k}"));
        assert!(
            same(kind, got, &s[k]),
            "{label}: {k} {got:?}, numpy {}",
            s[k]
        );
    }
    close(&format!("{label}: mean"), st.mean, &s["mean"]);
    close(&format!("{label}: std"), st.std, &s["std"]);
    close(&format!("{label}: mean_abs"), st.mean_abs, &s["mean_abs"]);
    let counts: Vec<u64> = s["histogram"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_u64().unwrap())
        .collect();
    assert_eq!(p.histogram.counts, counts, "{label}: histogram");
    // The heatmap's scale is the largest |value| of the window at most.
    assert!(
        p.heatmap.max_abs.is_finite() || kind != "integer",
        "{label}"
    );
}

#[test]
fn every_dtype_previews_numpys_exact_values() {
    let Some(dir) = fixtures() else { return };
    let doc = expected(&dir);
    let mut checked = 0;
    let mut kinds = std::collections::BTreeSet::new();
    for t in doc["tensors"].as_array().unwrap() {
        let file = dir.join(doc["files"][t["file"].as_str().unwrap()].as_str().unwrap());
        let (m, mut src) = open_model(&file);
        let name = t["tensor"].as_str().unwrap();
        let kind = t["kind"].as_str().unwrap();
        let index = m.tensors.iter().position(|x| x.name == name).unwrap();
        assert_eq!(
            p_dtype(&m, index),
            t["dtype"].as_str().unwrap(),
            "{name}: dtype"
        );
        for w in t["windows"].as_array().unwrap() {
            let req = WindowRequest {
                rows: w["request"].get("rows").map(range),
                cols: None,
                field: None,
            };
            let label = format!("{} {name} {:?}", t["file"], req.rows);
            let p = plan(&m, index, &req).unwrap_or_else(|e| panic!("{label}: {e}"));
            src.bytes = 0;
            let bytes = block_on_ready(read_window(&mut src, &mut p.clone())).unwrap();
            assert_eq!(src.bytes, p.read_len, "{label}: bytes read");
            let pv = Job::new(&m, p, bytes).unwrap().run().unwrap();
            assert_eq!(pv.values_are, kind, "{label}");
            check(&label, kind, &pv, w);
            kinds.insert(kind.to_string());
            checked += 1;
        }
    }
    assert!(checked >= 70, "{checked} windows");
    assert_eq!(kinds.len(), 4, "{kinds:?}");
}

fn p_dtype(m: &weightpeek::format::Model, i: usize) -> String {
    m.tensors[i].dtype.label()
}

/// The same values through the CLI's `--tensor NAME --json` (integers as JSON integers, with
/// every digit) and its text; a tensor with a zero dimension exits 0 with empty statistics.
#[test]
fn the_cli_json_has_every_digit() {
    let Some(dir) = fixtures() else { return };
    let doc = expected(&dir);
    for t in doc["tensors"].as_array().unwrap() {
        let file = dir.join(doc["files"][t["file"].as_str().unwrap()].as_str().unwrap());
        let name = t["tensor"].as_str().unwrap();
        let kind = t["kind"].as_str().unwrap();
        let w = &t["windows"][0];
        let path = file.to_str().unwrap();
        let (code, out, err) = run_cli(&[path, "--tensor", name, "--json"], None, None);
        assert_eq!(code, 0, "{name}: {err}");
        let j: J = serde_json::from_str(&out).unwrap();
        assert_eq!(j["values_are"], kind, "{name}");
        let first = w["first"].as_array().unwrap();
        let got = j["first_values"].as_array().unwrap();
        assert_eq!(got.len(), first.len(), "{name}");
        for (g, want) in got.iter().zip(first) {
            let v = &g["value"];
            let ok = match kind {
                "integer" => v.is_i64() || v.is_u64(),
                "boolean" => v.is_boolean(),
                "complex" => v.as_array().is_some_and(|a| a.len() == 2),
                _ => v.is_f64() || v.is_null() || v.is_i64() || v.is_u64(),
            };
            assert!(ok, "{name}: {v} is not a JSON {kind}");
            match kind {
                "integer" => assert_eq!(Some(v.to_string().as_str()), want.as_str(), "{name}"),
                "boolean" => assert_eq!(Some(v.to_string().as_str()), want.as_str(), "{name}"),
                // F64 values are full doubles; f32 values are their shortest f32 text, which
                // reads back as the same f32.
                "float" if !v.is_null() && t["dtype"] == "F64" => {
                    assert!(
                        same_float(v.as_f64().unwrap(), float(want)),
                        "{name}: {v} {want}"
                    )
                }
                "float" if !v.is_null() => {
                    let (g, w) = (v.as_f64().unwrap() as f32, float(want) as f32);
                    assert!(same_float(g.into(), w.into()), "{name}: {v} {want}")
                }
                _ => {}
            }
        }
        let s = &w["stats"];
        assert_eq!(j["stats"]["count"], s["count"], "{name}");
        if kind == "integer" && s.get("min").is_some() {
            assert_eq!(
                Some(j["stats"]["min"].to_string().as_str()),
                s["min"].as_str()
            );
            assert_eq!(
                Some(j["stats"]["max"].to_string().as_str()),
                s["max"].as_str()
            );
        }
        if s["count"] == 0 {
            assert!(j["stats"]["min"].is_null() && j["first_values"] == J::Array(vec![]));
            let (code, text, _) = run_cli(&[path, "--tensor", name], None, None);
            assert_eq!(code, 0, "{name}");
            assert!(text.contains("0 values: the shape ["), "{text}");
        }
    }
    // The text output of a U64 tensor prints its largest value with every digit.
    let st = dir.join(doc["files"]["st"].as_str().unwrap());
    let (code, text, _) = run_cli(&[st.to_str().unwrap(), "--tensor", "u64"], None, None);
    assert_eq!(code, 0);
    let u64_max = u64::MAX.to_string();
    assert!(text.contains(&format!("] {u64_max}\n")), "{text}");
    assert!(
        text.contains(&format!("max             {u64_max}\n")),
        "{text}"
    );
}
