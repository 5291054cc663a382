//! Validation findings on built files: each problem gives its finding with the right severity
//! and offset; clean files give none.

mod common;

use std::path::Path;

use common::{GgufBuilder, W};
use weightpeek::check::{check_one_file as check, Finding, Severity};
use weightpeek::source::parse_bytes;

fn codes(f: &[Finding]) -> Vec<(Severity, &'static str, Option<&str>)> {
    f.iter()
        .map(|x| (x.severity, x.code, x.tensor.as_deref()))
        .collect()
}

fn safetensors(json: &str, data: usize) -> Vec<u8> {
    let mut b = (json.len() as u64).to_le_bytes().to_vec();
    b.extend(json.as_bytes());
    b.extend(vec![0u8; data]);
    b
}

#[test]
fn a_clean_gguf_and_the_sample_have_no_findings() {
    let mut b = GgufBuilder::new(3)
        .kv("general.architecture", W::s("llama"))
        .kv("general.alignment", W::U32(32))
        .tensor("a", &[32], 0, 0)
        .tensor("b", &[32, 2], 8, 128);
    b.data_len = 128 + 68 + 28;
    let m = parse_bytes(&b.build()).unwrap();
    assert_eq!(check(&m), []);
    let sample =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("www/sample.gguf")).unwrap();
    assert_eq!(check(&parse_bytes(&sample).unwrap()), []);
}

#[test]
fn gguf_layout_problems_are_found() {
    let mut b = GgufBuilder::new(3)
        .kv("general.alignment", W::U64(32))
        .kv("k", W::U8(1))
        .kv("k", W::U8(2))
        .tensor("a", &[64], 0, 0)
        .tensor("overlapping", &[32], 0, 128)
        .tensor("misaligned", &[8], 0, 200)
        .tensor("a", &[32], 0, 1024)
        .tensor("beyond", &[1024], 0, 2048)
        .tensor("odd", &[100], 12, 512);
    b.data_len = 2048;
    let (bytes, off) = b.build_with_offset();
    let m = parse_bytes(&bytes).unwrap();
    let f = check(&m);
    let c = codes(&f);
    use Severity::*;
    for want in [
        (Error, "overlap", Some("overlapping")),
        (Error, "misaligned", Some("misaligned")),
        (Error, "duplicate-tensor", Some("a")),
        (Error, "data-beyond-eof", Some("beyond")),
        (Error, "size-mismatch", Some("odd")),
        (Warning, "duplicate-key", None),
        (Warning, "metadata-type", None),
    ] {
        assert!(c.contains(&want), "{want:?} not in {c:?}");
    }
    let beyond = f.iter().find(|x| x.code == "data-beyond-eof").unwrap();
    assert_eq!(beyond.offset, Some(off + 2048));
    assert!(
        beyond.message.contains("data beyond end of file"),
        "{}",
        beyond.message
    );
    // Errors come first.
    assert!(f.windows(2).all(|w| w[0].severity <= w[1].severity));
}

#[test]
fn safetensors_holes_trailing_bytes_and_mismatches_are_found() {
    let json = r#"{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[16,24]},"c":{"dtype":"F16","shape":[3],"data_offsets":[24,30]},"d":{"dtype":"F4","shape":[3],"data_offsets":[30,32]},"e":{"dtype":"Q9","shape":[1],"data_offsets":[32,33]}}"#;
    let m = parse_bytes(&safetensors(json, 40)).unwrap();
    let f = check(&m);
    let c = codes(&f);
    use Severity::*;
    for want in [
        (Warning, "gap", Some("b")),
        (Error, "size-mismatch", Some("d")),
        (Warning, "unknown-type", Some("e")),
        (Warning, "trailing-bytes", None),
    ] {
        assert!(c.contains(&want), "{want:?} not in {c:?}");
    }
    assert!(!c.iter().any(|x| x.2 == Some("c")), "{c:?}");
}

#[test]
fn a_cut_file_is_an_error_with_its_offset() {
    let b = GgufBuilder::new(3)
        .kv("general.name", W::s("abcdef"))
        .build();
    let m = parse_bytes(&b[..40]).unwrap();
    let f = check(&m);
    assert_eq!(f[0].code, "header-incomplete");
    assert_eq!(f[0].offset, m.error.as_ref().map(|e| e.offset));
}
