//! GGUF parsing on files built by the fixture builder: every version, both byte orders, every
//! value type, nested arrays, alignment, unknown types, and resumable reading.

mod common;

use common::{GgufBuilder, W};
use weightpeek::format::{DType, ErrorKind, Format, GgmlType, Model, Value, ValueType};
use weightpeek::open::OpenedModel;
use weightpeek::source::{block_on_ready, parse_bytes, read_model, MemSource, ReadPolicy};
use weightpeek::summary::summarize;

fn every_type() -> Vec<(&'static str, W)> {
    vec![
        ("t.u8", W::U8(200)),
        ("t.i8", W::I8(-100)),
        ("t.u16", W::U16(60000)),
        ("t.i16", W::I16(-30000)),
        ("t.u32", W::U32(4_000_000_000)),
        ("t.i32", W::I32(-2_000_000_000)),
        ("t.f32", W::F32(1.5e-6)),
        ("t.bool", W::Bool(1)),
        ("t.str", W::s("héllo\0")),
        ("t.arr", W::Arr(8, vec![W::s("a"), W::s(""), W::s("ccc")])),
        ("t.u64", W::U64(u64::MAX - 1)),
        ("t.i64", W::I64(i64::MIN + 1)),
        ("t.f64", W::F64(-2.25e300)),
        (
            "t.nested",
            W::Arr(
                9,
                vec![
                    W::Arr(4, vec![W::U32(1), W::U32(2)]),
                    W::Arr(4, vec![]),
                    W::Arr(4, vec![W::U32(3)]),
                ],
            ),
        ),
    ]
}

fn check_every_type(m: &Model) {
    assert!(m.error.is_none(), "{:?}", m.error);
    assert_eq!(m.metadata.len(), 14);
    let get = |k: &str| m.get(k).unwrap_or_else(|| panic!("{k}"));
    assert_eq!(get("t.u8"), &Value::U8(200));
    assert_eq!(get("t.i8"), &Value::I8(-100));
    assert_eq!(get("t.u16"), &Value::U16(60000));
    assert_eq!(get("t.i16"), &Value::I16(-30000));
    assert_eq!(get("t.u32"), &Value::U32(4_000_000_000));
    assert_eq!(get("t.i32"), &Value::I32(-2_000_000_000));
    assert_eq!(get("t.f32"), &Value::F32(1.5e-6));
    assert_eq!(get("t.bool"), &Value::Bool(true));
    assert_eq!(get("t.str").as_str(), Some("héllo\0"));
    assert_eq!(get("t.u64"), &Value::U64(u64::MAX - 1));
    assert_eq!(get("t.i64"), &Value::I64(i64::MIN + 1));
    assert_eq!(get("t.f64"), &Value::F64(-2.25e300));
    let Value::Array(a) = get("t.arr") else {
        panic!()
    };
    assert_eq!((a.elem, a.len), (ValueType::String, 3));
    let items = a.values(&m.bytes, 0, 10).unwrap();
    let texts: Vec<_> = items.iter().map(|v| v.as_str().unwrap()).collect();
    assert_eq!(texts, ["a", "", "ccc"]);
    let Value::Array(n) = get("t.nested") else {
        panic!()
    };
    assert_eq!((n.elem, n.len), (ValueType::Array, 3));
    let inner = n.values(&m.bytes, 2, 1).unwrap();
    let Value::Array(last) = &inner[0] else {
        panic!()
    };
    assert_eq!(last.values(&m.bytes, 0, 5).unwrap(), vec![Value::U32(3)]);
}

fn with_every_type(mut b: GgufBuilder) -> GgufBuilder {
    for (k, v) in every_type() {
        b = b.kv(k, v);
    }
    b.tensor("blk.0.attn_q.weight", &[64, 2], 8, 0)
        .tensor("blk.0.ffn_down.weight", &[256, 3], 12, 128)
        .tensor("output_norm.weight", &[64], 0, 1024)
}

#[test]
fn every_value_type_in_every_version_and_byte_order() {
    for version in [1u32, 2, 3] {
        for big_endian in [false, true] {
            let mut b = with_every_type(GgufBuilder::new(version));
            b.big_endian = big_endian;
            b.data_len = 1024 + 256;
            let (bytes, data_offset) = b.build_with_offset();
            let m = OpenedModel::from(parse_bytes(&bytes).unwrap());
            let what = format!("v{version} big_endian={big_endian}");
            assert_eq!(m.format, Format::Gguf, "{what}");
            assert_eq!(m.version, Some(version), "{what}");
            check_every_type(&m);
            assert_eq!(m.data_offset, data_offset, "{what}");
            assert_eq!(m.tensors.len(), 3);
            let t = &m.tensors[1];
            assert_eq!(t.name, "blk.0.ffn_down.weight");
            assert_eq!(t.shape, [256, 3]);
            assert_eq!(t.dtype, DType::Ggml(GgmlType(12)));
            assert_eq!(t.offset, data_offset + 128);
            assert_eq!(t.elements, Some(768));
            assert_eq!(t.bytes, Some(3 * 144));
            assert_eq!(m.tensors[0].bytes, Some(2 * 2 * 34));
            let s = summarize(&m);
            assert_eq!(s.parameter_count, 128 + 768 + 64);
            assert_eq!(s.tensor_bytes, 136 + 432 + 256);
        }
    }
}

#[test]
fn alignment_64_places_the_data_section() {
    let b = GgufBuilder {
        alignment: 64,
        ..GgufBuilder::new(3)
    }
    .kv("general.alignment", W::U32(64))
    .tensor("a", &[32], 0, 0)
    .tensor("b", &[32], 1, 128);
    let (bytes, off) = b.build_with_offset();
    assert_eq!(off % 64, 0);
    let m = parse_bytes(&bytes).unwrap();
    assert_eq!(m.alignment, Some(64));
    assert_eq!(m.data_offset, off);
    assert_eq!(m.tensors[1].offset, off + 128);
}

#[test]
fn zero_tensors_and_a_file_ending_before_the_data_offset() {
    let mut bytes = GgufBuilder::new(3).kv("general.name", W::s("x")).build();
    // Real vocab files end before the aligned data offset; drop the padding.
    while bytes.last() == Some(&0) {
        bytes.pop();
    }
    let m = OpenedModel::from(parse_bytes(&bytes).unwrap());
    assert!(m.error.is_none(), "{:?}", m.error);
    assert_eq!(m.tensor_count, 0);
    assert_eq!(m.header_size, bytes.len() as u64);
    assert_eq!(summarize(&m).bits_per_weight, None);
}

#[test]
fn unknown_and_removed_types_are_listed_with_estimated_sizes() {
    let mut b = GgufBuilder::new(3)
        .tensor("removed", &[32, 4], 4, 0)
        .tensor("future", &[100], 99, 96)
        .tensor("known", &[32], 0, 160);
    b.data_len = 160 + 128;
    let (bytes, off) = b.build_with_offset();
    let m = OpenedModel::from(parse_bytes(&bytes).unwrap());
    assert!(m.error.is_none());
    assert_eq!(m.tensors[0].dtype.label(), "type 4 (removed Q4_2)");
    assert_eq!(m.tensors[0].bytes, Some(96));
    assert_eq!(m.tensors[1].dtype.label(), "type 99 (unknown)");
    assert_eq!(m.tensors[1].bytes, Some(64));
    assert_eq!(m.tensors[2].bytes, Some(128));
    assert_eq!(m.tensors[2].offset, off + 160);
    let unknown: Vec<_> = weightpeek::check::check_one_file(&m)
        .into_iter()
        .filter(|f| f.code == "unknown-type")
        .filter_map(|f| f.tensor)
        .collect();
    assert_eq!(unknown, ["removed", "future"]);
    let s = summarize(&m);
    let labels: Vec<_> = s.dtypes.iter().map(|d| d.dtype.as_str()).collect();
    assert_eq!(
        labels,
        ["F32", "type 4 (removed Q4_2)", "type 99 (unknown)"]
    );
}

#[test]
fn partial_blocks_are_flagged_not_fatal() {
    let m = parse_bytes(&GgufBuilder::new(3).tensor("odd", &[100, 2], 12, 0).build()).unwrap();
    assert!(m.error.is_none());
    assert_eq!(m.tensors[0].bytes, None);
    assert_eq!(
        m.tensors[0].note.as_deref(),
        Some("ne0 = 100 is not a multiple of the block size 256")
    );
}

#[test]
fn resumable_reads_are_contiguous_and_give_the_same_model() {
    let mut b = with_every_type(GgufBuilder::new(3));
    let tokens: Vec<W> = (0..5000).map(|i| W::s(&format!("tok{i}"))).collect();
    b = b.kv("tokenizer.ggml.tokens", W::Arr(8, tokens));
    b.data_len = 2048;
    let (bytes, data_offset) = b.build_with_offset();
    let whole = parse_bytes(&bytes).unwrap();
    for (first, max) in [(16u64, 16u64), (40, 200), (100, 1 << 20)] {
        let policy = ReadPolicy {
            first_read: first,
            max_read: max,
            max_header: 1 << 30,
            estimate: false,
        };
        let mut src = MemSource::new(&bytes);
        let (m, stats) = block_on_ready(read_model(&mut src, &policy)).unwrap();
        assert!(m.error.is_none());
        assert_eq!(m.metadata, whole.metadata);
        assert_eq!(m.tensors, whole.tensors);
        let mut expect = 0;
        for &(off, len) in &src.reads {
            assert_eq!(off, expect, "reads must continue where the last ended");
            expect += len;
        }
        assert_eq!(stats.bytes, expect);
        assert!(
            expect <= data_offset + max.max(first),
            "read {expect} bytes for a {data_offset}-byte header"
        );
    }
}

#[test]
fn every_truncation_gives_an_error_with_an_offset_and_keeps_what_came_before() {
    let bytes = with_every_type(GgufBuilder::new(3)).build();
    let full = parse_bytes(&bytes).unwrap();
    for cut in 1..bytes.len() - 1 {
        let Ok(m) = parse_bytes(&bytes[..cut]) else {
            continue;
        };
        let Some(e) = &m.error else {
            // Cutting only alignment padding leaves a complete header.
            assert_eq!(m.tensors.len(), 3, "cut at {cut}");
            continue;
        };
        assert!(e.offset <= cut as u64, "cut {cut}: {e}");
        assert!(
            matches!(
                e.kind,
                ErrorKind::Truncated { .. } | ErrorKind::CountTooLarge { .. }
            ),
            "cut {cut}: {e}"
        );
        assert_eq!(
            m.metadata[..],
            full.metadata[..m.metadata.len()],
            "cut {cut}"
        );
    }
}

#[test]
fn bad_versions_and_value_types_are_named() {
    let mut b = GgufBuilder::new(3).build();
    b[4] = 4;
    let m = parse_bytes(&b).unwrap();
    assert_eq!(m.error.unwrap().kind, ErrorKind::UnsupportedVersion(4));

    let mut b = GgufBuilder::new(3).kv("k", W::U8(1)).build();
    // value type id sits after magic, version, two counts, key length and the key "k"
    let at = 4 + 4 + 8 + 8 + 8 + 1;
    b[at] = 13;
    let e = parse_bytes(&b).unwrap().error.unwrap();
    assert_eq!(e.kind, ErrorKind::UnknownValueType(13));
    assert_eq!(e.offset, at as u64);
    assert_eq!(e.field, "metadata[0] \"k\" value type");
}
