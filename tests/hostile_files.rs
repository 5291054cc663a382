//! Regressions from a review with hostile and odd files (tests/data/hostile/): each once gave a
//! wrong number, a misleading message or a silent acceptance.

mod common;

use std::path::PathBuf;

use common::{data_dir, real_file};
use weightpeek::check::{check_one_file as check, Severity};
use weightpeek::format::{ErrorKind, Format, Model};
use weightpeek::open::OpenedModel;
use weightpeek::source::parse_bytes;
use weightpeek::summary::summarize;
use weightpeek::text;

fn path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/hostile")
        .join(name)
}

fn open(name: &str) -> Model {
    let b = std::fs::read(path(name)).unwrap();
    parse_bytes(&b).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn codes(m: &Model) -> Vec<(&'static str, Option<String>)> {
    check(m).into_iter().map(|f| (f.code, f.tensor)).collect()
}

#[test]
fn safetensors_whose_length_bytes_look_like_text_are_safetensors() {
    // Header lengths 15392 and 31520 (written by safetensors.numpy.save) start with the bytes
    // `20 3C` and `20 7B`; length 60 is `<`.
    for name in [
        "st-real-hdr15392-looks-html.safetensors",
        "st-real-hdr31520-looks-json.safetensors",
        "st-hdr60-unpadded.safetensors",
    ] {
        let m = open(name);
        assert_eq!(m.format, Format::Safetensors, "{name}");
        assert!(m.error.is_none(), "{name}: {:?}", m.error);
        assert!(!m.tensors.is_empty(), "{name}");
        assert_eq!(check(&m), [], "{name}");
    }
}

#[test]
fn unknown_type_sizes_never_reach_past_the_file() {
    for name in ["unknown-type-unsorted.gguf", "only-unknown-last.gguf"] {
        let m = OpenedModel::from(open(name));
        let s = summarize(&m);
        assert!(
            s.tensor_bytes <= m.file_size,
            "{name}: {} bytes",
            s.tensor_bytes
        );
        if let Some(b) = s.bits_per_weight {
            assert!(b < 1e6, "{name}: bpw {b}");
        }
        assert!(codes(&m).iter().any(|c| c.0 == "unknown-type"), "{name}");
    }
    let m = open("unknown-type-unsorted.gguf");
    assert!(codes(&m).contains(&("data-beyond-eof", Some("u2".into()))));
}

#[test]
fn tensors_of_unknown_size_do_not_drag_bits_per_weight_to_zero() {
    let m = OpenedModel::from(open("misaligned-q4k.gguf"));
    let s = summarize(&m);
    assert_eq!(s.bits_per_weight, None);
    assert!(codes(&m).iter().any(|c| c.0 == "size-mismatch"));
    let m = open("dims-overflow.gguf");
    assert!(codes(&m).iter().any(|c| c.0 == "elements-overflow"));
}

#[test]
fn an_unsupported_version_is_not_shown_as_v0() {
    let m = open("version-4.gguf");
    assert_eq!(m.version, None);
    assert_eq!(m.error.unwrap().kind, ErrorKind::UnsupportedVersion(4));
    let m = open("huge-tensor-count.gguf");
    assert_eq!(m.version, Some(3));
    assert!(matches!(
        m.error.unwrap().kind,
        ErrorKind::CountTooLarge { .. }
    ));
}

#[test]
fn names_with_terminal_escapes_or_bidi_overrides_display_escaped() {
    for name in ["ansi-escape.gguf", "rtl-control.gguf"] {
        let m = open(name);
        let names = m
            .tensors
            .iter()
            .map(|t| t.name.as_str())
            .chain(m.metadata.iter().map(|e| e.key.as_str()));
        assert!(
            check(&m).iter().any(|f| f.code == "hidden-characters"),
            "{name}"
        );
        for n in names {
            let shown = text::escape(n);
            assert!(
                !shown
                    .chars()
                    .any(|c| c.is_control() || text::is_bidi_control(c)),
                "{name}: {shown}"
            );
        }
    }
}

#[test]
fn layout_damage_is_reported() {
    let expect = [
        ("overlap.gguf", "overlap"),
        ("dup-tensor.gguf", "duplicate-tensor"),
        ("unaligned-offset.gguf", "misaligned"),
        ("offset-beyond.gguf", "data-beyond-eof"),
        ("st-dup.safetensors", "duplicate-tensor"),
        ("st-gap.safetensors", "gap"),
        ("st-beyond.safetensors", "data-beyond-eof"),
    ];
    for (name, code) in expect {
        let m = open(name);
        let f = check(&m);
        let hit = f.iter().find(|x| x.code == code);
        assert!(hit.is_some(), "{name}: no {code} in {f:?}");
        assert!(hit.unwrap().severity <= Severity::Warning, "{name}");
    }
}

#[test]
fn a_partial_download_of_gemma_says_it_is_truncated() {
    let Some(p) = real_file(data_dir().join("gemma-3-270m-q4_k_m.gguf")) else {
        return;
    };
    let mut head = vec![0u8; 10_000_000];
    use std::io::Read;
    std::fs::File::open(p)
        .unwrap()
        .read_exact(&mut head)
        .unwrap();
    let m = OpenedModel::from(parse_bytes(&head).unwrap());
    assert!(m.error.is_none(), "the header is complete");
    let f = check(&m);
    assert_eq!(f[0].code, "truncated", "{:?}", f[0]);
    assert!(f[0].message.contains("10000000 bytes"), "{}", f[0].message);
    assert!(!f.iter().any(|x| x.code == "trailing-bytes"));
    assert_eq!(summarize(&m).findings, f);
}
