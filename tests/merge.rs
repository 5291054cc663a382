//! Sharded models as one (issue #3): GGUF split sets and safetensors shards merged into one
//! model with a part per tensor, and a finding (`open::findings::check`) for every
//! inconsistency between the parts, the index and the listing.

mod common;

use common::{GgufBuilder, W};
use weightpeek::format::Model;
use weightpeek::open::findings::check;
use weightpeek::open::merge::{merge, parse_index, PartResult};
use weightpeek::open::OpenedModel;
use weightpeek::source::parse_bytes;
use weightpeek::summary::summarize;

fn split_part(no: u16, count: u16, total: i32, tensors: &[&str]) -> Model {
    let mut b = GgufBuilder::new(3)
        .kv("split.no", W::U16(no))
        .kv("split.count", W::U16(count))
        .kv("split.tensors.count", W::I32(total));
    if no == 0 {
        b = b.kv("general.architecture", W::s("llama"));
    }
    for (i, t) in tensors.iter().enumerate() {
        b = b.tensor(t, &[8, 4], 0, i as u64 * 128);
    }
    b.data_len = 128 * tensors.len() as u64;
    parse_bytes(&b.build()).unwrap()
}

fn st_file(tensors: &[(&str, u64)]) -> Model {
    let mut json = String::from("{");
    let mut off = 0;
    for (i, (name, n)) in tensors.iter().enumerate() {
        if i > 0 {
            json.push(',');
        }
        json.push_str(&format!(
            "\"{name}\":{{\"dtype\":\"F32\",\"shape\":[{n}],\"data_offsets\":[{off},{}]}}",
            off + n * 4
        ));
        off += n * 4;
    }
    json.push('}');
    let mut b = (json.len() as u64).to_le_bytes().to_vec();
    b.extend_from_slice(json.as_bytes());
    b.resize(b.len() + off as usize, 0);
    parse_bytes(&b).unwrap()
}

/// The set findings' messages of a merged model (the per-file checks are tested elsewhere).
fn set_texts(m: &OpenedModel) -> Vec<String> {
    check(m)
        .into_iter()
        .filter(|f| f.code != "parser-warning")
        .map(|f| format!("[{}] {}", f.code, f.message))
        .collect()
}

fn ok(name: &str, m: Model) -> PartResult {
    (name.to_string(), Ok(m))
}

#[test]
fn gguf_split_set_merges_with_parts_and_sums() {
    let parts = vec![
        ok("m-00001-of-00002.gguf", split_part(0, 2, 3, &["a", "b"])),
        ok("m-00002-of-00002.gguf", split_part(1, 2, 3, &["c"])),
    ];
    let m = merge(parts, None, &[]).unwrap();
    assert!(m.warnings.is_empty(), "{:?}", m.warnings);
    assert!(set_texts(&m).is_empty(), "{:?}", set_texts(&m));
    let set = m.set.as_ref().unwrap();
    assert!(set.complete());
    assert_eq!(set.model_tensors, Some(3));
    assert_eq!(m.parts[1].split.no, Some(1));
    assert_eq!(m.parts[1].position, 1);
    assert_eq!(m.tensors.len(), 3);
    assert_eq!(m.tensor_count, 3);
    assert_eq!(m.parts.len(), 2);
    assert_eq!(m.part_of(2), Some(1));
    assert_eq!(m.part_of(1), Some(0));
    assert_eq!(
        m.get("general.architecture").and_then(|v| v.as_str()),
        Some("llama")
    );
    let s = summarize(&m);
    assert_eq!(s.parameter_count, 3 * 32);
}

#[test]
fn gguf_split_problems_are_warnings() {
    // Wrong split.no in part 2, a missing third part, tensor count off, a duplicate tensor.
    let p2 = split_part(5, 3, 9, &["b"]);
    let parts = vec![
        ok("m-00001-of-00003.gguf", split_part(0, 3, 9, &["a", "b"])),
        ok("m-00002-of-00003.gguf", p2),
    ];
    let m = merge(parts, None, &["m-00003-of-00003.gguf".into()]).unwrap();
    let text = set_texts(&m);
    assert!(
        text.iter().any(|t| t.starts_with("[split-no-mismatch]")
            && t.contains("split.no is 5, but this is part 2")),
        "{text:?}"
    );
    assert!(
        text.iter().any(|t| t.starts_with("[set-incomplete]")
            && t.contains("2 of the model's 3 parts read; missing: m-00003-of-00003.gguf")),
        "{text:?}"
    );
    assert!(
        text.iter()
            .any(|t| t.contains("in two parts") && t.contains("\"b\"")),
        "{text:?}"
    );
}

#[test]
fn an_unreadable_part_is_an_error_finding_and_all_unreadable_fails() {
    let parts = vec![
        ok("a.gguf", split_part(0, 2, 2, &["a"])),
        ("b.gguf".to_string(), Err("HTTP 404".into())),
    ];
    let m = merge(parts, None, &[]).unwrap();
    assert!(
        set_texts(&m)
            .iter()
            .any(|t| t == "[part-unreadable] b.gguf could not be read: HTTP 404"),
        "{:?}",
        set_texts(&m)
    );
    let set = m.set.as_ref().unwrap();
    assert!(set.missing.is_empty(), "given but damaged is not missing");
    assert_eq!(set.unreadable[0].name, "b.gguf");
    assert!(!set.complete());
    let f = check(&m);
    let u = f.iter().find(|f| f.code == "part-unreadable").unwrap();
    assert_eq!(u.severity, weightpeek::check::Severity::Error);
    let e = merge(vec![("x".into(), Err("boom".into()))], None, &[]).unwrap_err();
    assert!(e.to_string().contains("boom"));
}

#[test]
fn safetensors_index_is_compared_with_the_shards() {
    let index = parse_index(
        br#"{"metadata": {"total_size": 9999},
             "weight_map": {"a": "s-00001-of-00002.safetensors",
                            "b": "s-00002-of-00002.safetensors",
                            "ghost": "s-00002-of-00002.safetensors"}}"#,
    )
    .unwrap();
    let parts = vec![
        ok(
            "s-00001-of-00002.safetensors",
            st_file(&[("a", 4), ("stray", 2)]),
        ),
        ok(
            "s-00002-of-00002.safetensors",
            st_file(&[("b", 8), ("a", 4)]),
        ),
    ];
    let m = merge(parts, Some(&index), &[]).unwrap();
    let text = set_texts(&m);
    let has = |needle: &str| text.iter().any(|t| t.contains(needle));
    assert!(
        has("not in that shard's header") && has("\"ghost\""),
        "{text:?}"
    );
    assert!(
        has("in a shard but not in the index") && has("\"stray\""),
        "{text:?}"
    );
    assert!(has("in two parts"), "{text:?}");
    let bytes = (4 + 2 + 8 + 4) * 4;
    assert!(
        has(&format!(
            "the index says 9999 bytes; the shards' tensors hold {bytes} bytes"
        )),
        "{text:?}"
    );
}

#[test]
fn consistent_safetensors_shards_have_no_warnings() {
    let index = parse_index(
        br#"{"metadata": {"total_size": 48},
             "weight_map": {"a": "s-00001-of-00002.safetensors", "b": "s-00002-of-00002.safetensors"}}"#,
    )
    .unwrap();
    let parts = vec![
        ok("s-00001-of-00002.safetensors", st_file(&[("a", 4)])),
        ok("s-00002-of-00002.safetensors", st_file(&[("b", 8)])),
    ];
    let m = merge(parts, Some(&index), &[]).unwrap();
    assert!(m.warnings.is_empty(), "{:?}", m.warnings);
    assert!(set_texts(&m).is_empty(), "{:?}", set_texts(&m));
    assert_eq!(summarize(&m).tensor_bytes, 48);
}

#[test]
fn parts_are_checked_file_by_file() {
    // Every part's tensors start at offset 0 of its own data section: no overlaps reported.
    let parts = vec![
        ok("m-00001-of-00002.gguf", split_part(0, 2, 3, &["a", "b"])),
        ok("m-00002-of-00002.gguf", split_part(1, 2, 3, &["c"])),
    ];
    let m = merge(parts, None, &[]).unwrap();
    let s = summarize(&m);
    let errors: Vec<_> = s
        .findings
        .iter()
        .filter(|f| f.severity == weightpeek::check::Severity::Error)
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
}
