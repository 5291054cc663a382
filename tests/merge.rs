//! Sharded models as one (issue #3): GGUF split sets and safetensors shards merged into one
//! model with a part per tensor, and warnings for every inconsistency between the parts, the
//! index and the listing.

mod common;

use common::{GgufBuilder, W};
use weightpeek::format::Model;
use weightpeek::open::merge::{check_split_part, merge, parse_index, PartResult};
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

fn ok(name: &str, m: Model) -> PartResult {
    (name.to_string(), Ok(m))
}

#[test]
fn gguf_split_set_merges_with_parts_and_sums() {
    let parts = vec![
        ok("m-00001-of-00002.gguf", split_part(0, 2, 3, &["a", "b"])),
        ok("m-00002-of-00002.gguf", split_part(1, 2, 3, &["c"])),
    ];
    for (i, (name, m)) in parts.iter().enumerate() {
        assert!(check_split_part(name, i, 2, m.as_ref().unwrap()).is_empty());
    }
    let m = merge(parts, None, &[]).unwrap();
    assert!(m.warnings.is_empty(), "{:?}", m.warnings);
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
    let w = check_split_part("m-00002-of-00003.gguf", 1, 3, &p2);
    assert!(w[0].to_string().contains("is 5"), "{w:?}");
    let parts = vec![
        ok("m-00001-of-00003.gguf", split_part(0, 3, 9, &["a", "b"])),
        ok("m-00002-of-00003.gguf", p2),
    ];
    let m = merge(parts, None, &["m-00003-of-00003.gguf".into()]).unwrap();
    let text: Vec<String> = m.warnings.iter().map(|w| w.to_string()).collect();
    assert!(
        text.iter()
            .any(|t| t.contains("m-00003-of-00003.gguf") && t.contains("not in the repository")),
        "{text:?}"
    );
    assert!(
        text.iter()
            .any(|t| t.contains("in two parts") && t.contains("\"b\"")),
        "{text:?}"
    );
}

#[test]
fn unreadable_part_is_a_warning_and_all_unreadable_is_an_error() {
    let parts = vec![
        ok("a.gguf", split_part(0, 2, 2, &["a"])),
        ("b.gguf".to_string(), Err("HTTP 404".to_string())),
    ];
    let m = merge(parts, None, &[]).unwrap();
    assert!(m
        .warnings
        .iter()
        .any(|w| w.to_string().contains("HTTP 404")));
    let e = merge(vec![("x".into(), Err("boom".into()))], None, &[]).unwrap_err();
    assert!(e.contains("boom"));
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
    let text: Vec<String> = m.warnings.iter().map(|w| w.to_string()).collect();
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
