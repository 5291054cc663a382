//! Unit tests of the ONNX reader on models built here with a small protobuf encoder (field
//! numbers from onnx/onnx.proto); the comparison with the `onnx` package's own reading of
//! real and generated files is tests/onnx_files.rs.

use super::*;

fn varint(mut v: u64) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return out;
        }
        out.push(b | 0x80);
    }
}

fn key(field: u32, wire: u8) -> Vec<u8> {
    varint(u64::from(field) << 3 | u64::from(wire))
}

/// A varint field.
fn fv(field: u32, v: u64) -> Vec<u8> {
    [key(field, 0), varint(v)].concat()
}

/// A length-delimited field.
fn fl(field: u32, payload: &[u8]) -> Vec<u8> {
    [
        key(field, 2),
        varint(payload.len() as u64),
        payload.to_vec(),
    ]
    .concat()
}

fn fs(field: u32, s: &str) -> Vec<u8> {
    fl(field, s.as_bytes())
}

fn tensor_proto(name: &str, data_type: u64, dims: &[u64], raw: &[u8]) -> Vec<u8> {
    let mut t = Vec::new();
    for d in dims {
        t.extend(fv(1, *d));
    }
    t.extend(fv(2, data_type));
    t.extend(fs(8, name));
    t.extend(fl(9, raw));
    t
}

fn constant_node(output: &str, tensor: &[u8]) -> Vec<u8> {
    let attr = [fs(1, "value"), fl(5, tensor), fv(20, 4)].concat();
    [fs(2, output), fs(4, "Constant"), fl(5, &attr)].concat()
}

fn value_info(name: &str, elem: u64, dims: &[Result<u64, &str>]) -> Vec<u8> {
    let mut shape = Vec::new();
    for d in dims {
        let dim = match d {
            Ok(v) => fv(1, *v),
            Err("") => Vec::new(),
            Err(p) => fs(2, p),
        };
        shape.extend(fl(1, &dim));
    }
    let tt = [fv(1, elem), fl(2, &shape)].concat();
    [fs(1, name), fl(2, &fl(1, &tt))].concat()
}

fn model(graph: &[u8]) -> Vec<u8> {
    [
        fv(1, 8),
        fs(2, "unit"),
        fs(3, "1.0"),
        fl(7, graph),
        fl(8, &[fs(1, ""), fv(2, 17)].concat()),
        fl(8, &[fs(1, "com.microsoft"), fv(2, 1)].concat()),
        fl(14, &[fs(1, "author"), fs(2, "me")].concat()),
    ]
    .concat()
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A graph with an initializer, a Constant, an If whose branches hold a Constant each, and
/// an input and output.
fn sample() -> Vec<u8> {
    let w = tensor_proto("w", 1, &[2, 3], &f32s(&[1., 2., 3., 4., 5., 6.]));
    let c = tensor_proto(
        "",
        7,
        &[2],
        &[1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0],
    );
    let then_g = [
        fl(
            1,
            &constant_node("then_c", &tensor_proto("", 1, &[], &f32s(&[7.]))),
        ),
        fs(2, "then"),
    ]
    .concat();
    let else_g = fl(
        1,
        &constant_node("else_c", &tensor_proto("", 9, &[1], &[1])),
    );
    let if_node = [
        fs(1, "cond"),
        fs(2, "y"),
        fs(4, "If"),
        fl(
            5,
            &[fs(1, "then_branch"), fl(6, &then_g), fv(20, 5)].concat(),
        ),
        fl(
            5,
            &[fs(1, "else_branch"), fl(6, &else_g), fv(20, 5)].concat(),
        ),
    ]
    .concat();
    let graph = [
        fl(1, &constant_node("c_out", &c)),
        fl(1, &if_node),
        fs(2, "g"),
        fl(5, &w),
        fl(11, &value_info("x", 1, &[Err("batch"), Ok(512), Err("")])),
        fl(12, &value_info("y", 7, &[])),
    ]
    .concat();
    model(&graph)
}

fn held_all(b: &[u8]) -> Held {
    let mut h = Held::default();
    h.add(0, b.to_vec());
    h
}

fn read_all(b: &[u8]) -> Model {
    match step(&held_all(b), b.len() as u64, b) {
        Ok(m) => m,
        Err(e) => panic!("{e:?}"),
    }
}

fn meta_text(m: &Model, k: &str) -> String {
    match m.get(k) {
        Some(Value::String(t)) => t.text.clone(),
        Some(Value::I64(v)) => v.to_string(),
        Some(Value::U64(v)) => v.to_string(),
        other => panic!("{k}: {other:?}"),
    }
}

#[test]
fn reads_a_small_model() {
    let b = sample();
    assert!(sniff(&b));
    let m = read_all(&b);
    assert!(m.error.is_none(), "{:?}", m.error);
    assert_eq!(m.format, Format::Onnx);
    let names: Vec<&str> = m.tensors.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["c_out", "then_c", "else_c", "w"]);
    let labels: Vec<String> = m.tensors.iter().map(|t| t.dtype.label()).collect();
    assert_eq!(labels, ["I64", "F32", "BOOL", "F32"]);
    let w = &m.tensors[3];
    assert_eq!(w.shape, [2, 3]);
    assert_eq!(w.bytes, Some(24));
    assert_eq!(w.elements, Some(6));
    let at = usize::try_from(w.offset).unwrap();
    assert_eq!(&b[at..at + 24], f32s(&[1., 2., 3., 4., 5., 6.]));
    assert_eq!(m.tensors[1].shape, Vec::<u64>::new());
    assert_eq!(meta_text(&m, "onnx.ir_version"), "8");
    assert_eq!(meta_text(&m, "onnx.producer"), "unit 1.0");
    assert_eq!(meta_text(&m, "onnx.opset.ai.onnx"), "17");
    assert_eq!(meta_text(&m, "onnx.opset.com.microsoft"), "1");
    assert_eq!(meta_text(&m, "onnx.meta.author"), "me");
    assert_eq!(meta_text(&m, "onnx.graph.name"), "g");
    assert_eq!(meta_text(&m, "onnx.graph.inputs"), "x: float[batch,512,?]");
    assert_eq!(meta_text(&m, "onnx.graph.outputs"), "y: int64[]");
    assert_eq!(meta_text(&m, "onnx.graph.nodes"), "2");
    assert_eq!(meta_text(&m, "onnx.subgraphs"), "2");
    let info = m.onnx().unwrap();
    assert_eq!(info.graphs, 3);
    assert_eq!(info.nodes, 4);
    assert_eq!(info.payload_bytes, 16 + 4 + 1 + 24);
    assert_eq!(m.header_size, b.len() as u64 - 45);
    assert!(info.not_in_place.is_empty());
    assert_eq!(
        info.sources,
        [
            (TensorSource::Constant, 0),
            (TensorSource::Constant, 1),
            (TensorSource::Constant, 1),
            (TensorSource::Initializer, 0)
        ]
    );
}

#[test]
fn every_data_type_maps() {
    for (id, onnx, st) in DATA_TYPES {
        let d = dtype_of(id);
        match st {
            Some(s) => assert_eq!(d, DType::St(any_dtype(s).unwrap()), "{onnx}"),
            None => assert_eq!(d, DType::StUnknown(onnx.into())),
        }
    }
    assert_eq!(dtype_of(99), DType::StUnknown("data_type 99".into()));
    assert_eq!(dtype_of(-1).label(), "data_type -1 (unknown)");
}

#[test]
fn sizes_are_checked_and_odd_f4_rounds_up() {
    // 3 F4 values take 2 bytes; 5 bytes of F32 for 2 elements is a mismatch.
    let good = tensor_proto("f4", 23, &[3], &[0x21, 0x03]);
    let bad = tensor_proto("bad", 1, &[2], &[0; 5]);
    let m = read_all(&model(&[fl(5, &good), fl(5, &bad)].concat()));
    assert!(m.tensors[0].note.is_none(), "{:?}", m.tensors[0].note);
    assert_eq!(m.tensors[0].bytes, Some(2));
    let note = m.tensors[1].note.as_deref().unwrap();
    assert!(
        note.contains("5 bytes") && note.contains("need 8"),
        "{note}"
    );
    assert_eq!(m.warnings.len(), 1);
}

#[test]
fn data_that_is_not_in_place_is_marked() {
    // int64_data (packed varints), float_data packed (in place), float_data unpacked, external.
    let varints = [fv(1, 3), fv(2, 7), fs(8, "v"), fl(7, &[1, 2, 0x96, 0x01])].concat();
    let packed = [fv(1, 2), fv(2, 1), fs(8, "p"), fl(4, &f32s(&[0.5, -1.0]))].concat();
    let unpacked = [
        fv(1, 2),
        fv(2, 1),
        fs(8, "u"),
        key(4, 5),
        f32s(&[1.0]),
        key(4, 5),
        f32s(&[2.0]),
    ]
    .concat();
    let external = [
        fv(1, 4),
        fv(2, 1),
        fs(8, "e"),
        fl(13, &[fs(1, "location"), fs(2, "weights.bin")].concat()),
        fl(13, &[fs(1, "offset"), fs(2, "4096")].concat()),
        fl(13, &[fs(1, "length"), fs(2, "16")].concat()),
        fv(14, 1),
    ]
    .concat();
    let g = [
        fl(5, &varints),
        fl(5, &packed),
        fl(5, &unpacked),
        fl(5, &external),
    ]
    .concat();
    let b = model(&g);
    let m = read_all(&b);
    assert!(m.error.is_none(), "{:?}", m.error);
    let info = m.onnx().unwrap();
    let v = &m.tensors[0];
    assert_eq!((v.bytes, v.note.as_deref()), (Some(24), None));
    // Typed fields decode to raw_data's bytes, from their span of the protobuf.
    let decoded = |i: usize| {
        let e = info.encoded_of(i).unwrap();
        assert!(info.not_in_place(i).is_none());
        let span = &b[e.start as usize..(e.start + e.len) as usize];
        let n = m.tensors[i].bytes.unwrap();
        typed::decode(span, e.field, e.data_type, 0..n, e.values).unwrap()
    };
    let i64s: Vec<u8> = [1i64, 2, 150]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    assert_eq!(decoded(0), i64s);
    let p = &m.tensors[1];
    assert_eq!(p.bytes, Some(8));
    assert!(info.not_in_place(1).is_none());
    let at = usize::try_from(p.offset).unwrap();
    assert_eq!(&b[at..at + 8], f32s(&[0.5, -1.0]));
    assert_eq!(decoded(2), f32s(&[1.0, 2.0]));
    assert_eq!(m.tensors[2].bytes, Some(8));
    let e = &m.tensors[3];
    assert_eq!((e.offset, e.bytes), (4096, Some(16)));
    assert!(info.not_in_place(3).unwrap().contains("\"weights.bin\""));
    assert_eq!(
        info.external,
        [ExternalData {
            tensor: 3,
            location: "weights.bin".into(),
            offset: 4096,
            length: Some(16),
            at: info.external[0].at,
            problem: None,
        }]
    );
    assert!(info.external[0].at > 0 && info.external[0].at < e.offset);
}

#[test]
fn locations_outside_the_models_folder_are_never_opened() {
    for bad in [
        "../weights.bin",
        "a/../../b",
        "/etc/passwd",
        "\\server\\share",
        "C:\\w.bin",
        "http://example.com/w",
        "",
        "w\u{0}.bin",
        "..\\w.bin",
    ] {
        let why = location_problem(bad).unwrap_or_else(|| panic!("{bad:?} accepted"));
        assert!(why.contains("never opened"), "{why}");
    }
    for good in ["w.bin", "./w.bin", "sub/w.bin", "model.onnx_data", "a..b"] {
        assert_eq!(location_problem(good), None, "{good}");
    }
    assert_eq!(side_path("./sub//w.bin"), "sub/w.bin");
}

#[test]
fn a_side_file_lifts_the_refusal_of_the_tensors_inside_it() {
    let mk = |name: &str, off: u64| Tensor {
        name: name.into(),
        dtype: dtype_of(1),
        shape: vec![4],
        offset: off,
        elements: Some(4),
        bytes: Some(16),
        note: None,
    };
    let tensors = [mk("a", 0), mk("b", 100)];
    let ext = |tensor, offset| ExternalData {
        tensor,
        location: "w.bin".into(),
        offset,
        length: Some(16),
        at: 9,
        problem: None,
    };
    let base = OnnxInfo {
        not_in_place: vec![(0, "x".into()), (1, "x".into())],
        external: vec![ext(0, 0), ext(1, 100)],
        ..Default::default()
    };
    // 64 bytes: a (0..16) is inside, b (100..116) is not.
    let mut info = base.clone();
    attach_side_file(&mut info, &tensors, "w.bin", "dir/w.bin", Some(64), 1);
    assert!(info.not_in_place(0).is_none());
    assert!(info
        .not_in_place(1)
        .unwrap()
        .contains("outside the 64-byte side file"));
    assert_eq!(
        info.external[1].problem,
        Some(SideProblem::Outside { size: 64 })
    );
    assert_eq!(info.side_file_of(0).map(|f| f.source), Some(1));
    // Size unknown (remote): both preview; the server refuses a range past the end.
    let mut info = base.clone();
    attach_side_file(&mut info, &tensors, "w.bin", "w.bin", None, 1);
    assert!(info.not_in_place.is_empty());
    let mut info = base;
    side_file_missing(&mut info, "w.bin", "\"w.bin\" was not given");
    assert!(info
        .not_in_place(1)
        .unwrap()
        .contains("\"w.bin\" was not given"));
}

#[test]
fn sparse_initializers_are_listed_not_previewed() {
    let values = tensor_proto("s", 1, &[2], &f32s(&[1.0, 2.0]));
    let indices = tensor_proto("", 7, &[2], &[0; 16]);
    let sp = [fl(1, &values), fl(2, &indices), fv(3, 3), fv(3, 4)].concat();
    let m = read_all(&model(&fl(15, &sp)));
    let t = &m.tensors[0];
    assert_eq!((t.name.as_str(), t.shape.as_slice()), ("s", &[3u64, 4][..]));
    assert_eq!((t.elements, t.bytes), (Some(12), Some(24)));
    let info = m.onnx().unwrap();
    assert!(info.not_in_place(0).unwrap().contains("sparse"));
    assert_eq!(info.sources[0].0, TensorSource::SparseInitializer);
}

#[test]
fn constants_of_other_ops_and_domains_are_not_tensors() {
    let t = tensor_proto("", 1, &[1], &f32s(&[0.0]));
    let attr = [fs(1, "value"), fl(5, &t)].concat();
    let cos = [fs(2, "o1"), fs(4, "ConstantOfShape"), fl(5, &attr)].concat();
    let custom = [
        fs(2, "o2"),
        fs(4, "Constant"),
        fs(7, "my.domain"),
        fl(5, &attr),
    ]
    .concat();
    let other_attr = [fs(1, "sparse_value"), fl(5, &t)].concat();
    let not_value = [fs(2, "o3"), fs(4, "Constant"), fl(5, &other_attr)].concat();
    // Fields in any order: the name after the attribute.
    let late = [fs(4, "Constant"), fl(5, &attr), fs(2, "o4")].concat();
    let g = [fl(1, &cos), fl(1, &custom), fl(1, &not_value), fl(1, &late)].concat();
    let m = read_all(&model(&g));
    let names: Vec<&str> = m.tensors.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["o4"]);
}

#[test]
fn reads_skip_payloads_and_ask_for_what_follows() {
    // Two 2 MiB initializers: the first read (256 KiB) ends inside the first payload; the
    // parse asks for the bytes after it, never the payload itself, and skips the second.
    let big = vec![0u8; 2 << 20];
    let g = [
        fl(5, &tensor_proto("a", 2, &[2 << 20], &big)),
        fl(5, &tensor_proto("b", 2, &[2 << 20], &big)),
        fl(5, &tensor_proto("c", 1, &[1], &f32s(&[1.0]))),
    ]
    .concat();
    let b = model(&g);
    let size = b.len() as u64;
    let mut h = Held::default();
    h.add(0, b[..256 << 10].to_vec());
    let mut reads = 1;
    let m = loop {
        match step(&h, size, &b[..256 << 10]) {
            Ok(m) => break m,
            Err(Stop::NeedRange(n)) => {
                // The asked range starts past the first payload, in file order.
                let a = &b[usize::try_from(n.offset).unwrap()..];
                assert!(n.offset > 256 << 10, "{n:?}");
                assert!(n.offset.checked_add(n.len).unwrap() <= size);
                h.add(n.offset, a[..usize::try_from(n.len).unwrap()].to_vec());
                reads += 1;
                assert!(reads <= READ_BUDGET);
            }
            Err(Stop::Fail(e)) => panic!("{e}"),
            Err(other) => panic!("ONNX asks for one range at a time: {other:?}"),
        }
    };
    assert!(m.error.is_none(), "{:?}", m.error);
    assert_eq!(m.tensors.len(), 3);
    // The first read, and one after each payload (MIN_READ, which ends inside the next one).
    assert_eq!(reads, 3);
    assert!(h.bytes() < size, "{} of {size}", h.bytes());
}

#[test]
fn read_plans_halve_the_rest_as_the_budget_runs_out() {
    let mib = 1u64 << 20;
    // Early: MIN_READ, or the rest / 2^11 with 12 reads left.
    assert_eq!(plan_read(mib, mib + 1, 1, 12 * mib).len, MIN_READ);
    assert_eq!(plan_read(mib, mib + 1, 1, 4097 * mib).len, 2 * mib);
    // Then half, a quarter, …
    assert_eq!(plan_read(mib, mib + 1, 11, 101 * mib).len, 50 * mib);
    assert_eq!(plan_read(mib, mib + 1, 10, 101 * mib).len, 25 * mib);
    // The last read allowed takes the rest; never past the end; at least what is needed.
    assert_eq!(plan_read(mib, mib + 1, 12, 500 * mib).len, 499 * mib);
    assert_eq!(plan_read(mib, mib + 1, 12, mib + 10).len, 10);
    assert_eq!(plan_read(mib, mib + 1, 20, 3 * mib).len, 2 * mib);
    assert_eq!(plan_read(10, 11, 1, 20).len, 10);
    assert_eq!(plan_read(mib, 9 * mib, 1, 100 * mib).len, 8 * mib);
    assert_eq!(READ_BUDGET, 1 + crate::source::MAX_ZIP_READS);
}

#[test]
fn sniffs_models_and_nothing_else() {
    assert!(sniff(&sample()));
    assert!(sniff(&sample()[..20]));
    assert!(sniff(&[
        0x08, 0x07, 0x12, 0x07, b'p', b'y', b't', b'o', b'r', b'c', b'h'
    ]));
    // A safetensors length whose first bytes read like ir_version and producer_name.
    let mut st = 0x0012_0508u64.to_le_bytes().to_vec();
    st.extend(b"{\"a\":{}}");
    assert!(!sniff(&st));
    assert!(!sniff(b"GGUF\x03\x00\x00\x00"));
    assert!(!sniff(b"PK\x03\x04"));
    assert!(!sniff(b"{\"metadata\": 1}"));
    assert!(!sniff(&[0x08, 0x00, 0x12, 0x00]));
    assert!(!sniff(&[0x08, 0x07]));
    assert!(!sniff(&[]));
    // ir_version must come first.
    assert!(!sniff(&[0x12, 0x01, b'a', 0x08, 0x07]));
    // Wrong wire type for a known field; an unknown field below 27.
    assert!(!sniff(&[0x08, 0x07, 0x10, 0x01]));
    assert!(!sniff(&[0x08, 0x07, 0x4a, 0x00]));
    // A field a later ONNX may add (number 30), after ir_version.
    assert!(sniff(
        &[
            [0x08, 0x07, 0xf2, 0x01, 0x01, b'x'].as_slice(),
            &sample()[2..]
        ]
        .concat()
    ));
    // Heads cut anywhere after the second tag.
    for n in [1, 2, 3, 6, 64] {
        assert!(sniff(&sample()[..n]) == (n >= 3), "{n}");
    }
}

fn error_of(b: &[u8]) -> Error {
    let m = read_all(b);
    m.error
        .unwrap_or_else(|| panic!("no error: {:?}", m.tensors))
}

#[test]
fn errors_name_the_field_and_offset() {
    // A graph length past the end of the file.
    let mut b = sample();
    b.truncate(b.len() - 40);
    let e = error_of(&b);
    assert!(matches!(e.kind, ErrorKind::Truncated { .. }), "{e}");
    assert!(e.field.starts_with("ModelProto"), "{e}");
    // An 11-byte varint as ir_version.
    let b = [vec![0x08], vec![0x80; 10], vec![0x01]].concat();
    let e = error_of(&b);
    assert_eq!(e.offset, 0);
    assert!(e.to_string().contains("longer than 10 bytes"), "{e}");
    // A raw_data length past its TensorProto (inside the file).
    let t = [fv(2, 1), key(9, 2), varint(100), vec![0; 4]].concat();
    let b = model(&[fl(5, &t), vec![0; 200]].concat());
    let e = error_of(&b);
    assert!(e.field.ends_with("initializer[0].raw_data"), "{e}");
    assert!(
        e.to_string().contains("past the end of its TensorProto"),
        "{e}"
    );
    // 65 dimensions; a negative one.
    let dims: Vec<u8> = (0..65).flat_map(|_| fv(1, 1)).collect();
    let e = error_of(&model(&fl(5, &dims)));
    assert!(e.to_string().contains("more than 64 dimensions"), "{e}");
    let e = error_of(&model(&fl(5, &fv(1, u64::MAX))));
    assert!(e.to_string().contains("-1 is negative"), "{e}");
    // Groups and undefined wire types.
    let e = error_of(&model(&[0x0b]));
    assert!(e.to_string().contains("group"), "{e}");
}

#[test]
fn tensors_before_an_error_are_kept() {
    let t = tensor_proto("kept", 1, &[1], &f32s(&[1.0]));
    let b = model(&[fl(5, &t), vec![0x0f]].concat());
    let m = read_all(&b);
    assert!(m.error.is_some());
    assert_eq!(m.tensors.len(), 1);
    assert_eq!(m.tensors[0].name, "kept");
}

#[test]
fn deep_subgraphs_are_skipped_with_a_warning() {
    // If nodes nested 200 deep, a Constant at the bottom.
    let mut g = fl(
        1,
        &constant_node("bottom", &tensor_proto("", 1, &[1], &f32s(&[1.0]))),
    );
    for _ in 0..200 {
        let attr = [fs(1, "then_branch"), fl(6, &g)].concat();
        g = fl(1, &[fs(4, "If"), fl(5, &attr)].concat());
    }
    let m = read_all(&model(&g));
    assert!(m.error.is_none(), "{:?}", m.error);
    assert!(m.tensors.is_empty());
    assert_eq!(m.warnings.len(), 1, "{:?}", m.warnings);
    assert!(m.warnings[0].message.contains("deeper than 64"));
    assert_eq!(m.onnx().unwrap().graphs, 1 + u64::from(MAX_GRAPH_DEPTH));
}

#[test]
fn every_truncation_is_an_error_not_a_panic() {
    // Cut between two of the model's own fields after the graph, the file is a smaller valid
    // model (protobuf has no end marker): then the listing is the whole one.
    let b = sample();
    let whole = read_all(&b).tensors;
    for n in 1..b.len() {
        let m = read_all(&b[..n]);
        assert!(m.error.is_some() || m.tensors == whole, "cut at {n}");
    }
}

#[test]
fn long_strings_are_skipped() {
    let name = "n".repeat(usize::try_from(MAX_STRING).unwrap() + 1);
    let t = [fv(2, 1), fs(8, &name), fl(9, &f32s(&[1.0]))].concat();
    let m = read_all(&model(&fl(5, &t)));
    assert!(m.error.is_none());
    assert_eq!(m.tensors[0].name, "");
    assert!(m.warnings[0]
        .message
        .contains("longer than this tool reads"));
}

#[test]
fn typed_runs_packed_unpacked_and_mixed_decode_alike() {
    // int32_data of INT8: -1 (a 10-byte varint), 300 (wraps to 44), 5.
    let vals = [(-1i64) as u64, 300, 5];
    let packed: Vec<u8> = vals.iter().flat_map(|&x| varint(x)).collect();
    let a = [varint(5 << 3 | 2), varint(packed.len() as u64), packed].concat();
    let b: Vec<u8> = vals
        .iter()
        .flat_map(|&x| [varint(5 << 3), varint(x)].concat())
        .collect();
    // Unpacked with another field (name, 8) between the values.
    let c = [
        varint(5 << 3),
        varint(vals[0]),
        varint(8 << 3 | 2),
        varint(1),
        b"x".to_vec(),
        varint(5 << 3),
    ]
    .concat();
    let c = [c, varint(vals[1]), varint(5 << 3), varint(vals[2])].concat();
    for span in [a, b, c] {
        assert_eq!(typed::decode(&span, 5, 3, 0..3, 3).unwrap(), [0xff, 44, 5]);
        assert_eq!(typed::decode(&span, 5, 3, 1..2, 3).unwrap(), [44]);
        assert!(typed::decode(&span, 5, 3, 0..3, 4)
            .unwrap_err()
            .to_string()
            .contains("holds 3"));
    }
    // float_data unpacked: fixed32 values.
    let f = [varint(4 << 3 | 5), 1.5f32.to_le_bytes().to_vec()].concat();
    assert_eq!(
        typed::decode(&f, 4, 1, 0..4, 1).unwrap(),
        1.5f32.to_le_bytes()
    );
    // A cut value is an error, not a panic.
    for cut in 0..f.len() {
        let _ = typed::decode(&f[..cut], 4, 1, 0..4, 1);
    }
    // The errors' words.
    let msg = |span: &[u8], field, data_type, want| {
        typed::decode(span, field, data_type, 0..1, want)
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        msg(&[0x80], 5, 3, 1),
        "int32_data: a varint runs past the field"
    );
    assert_eq!(
        msg(&[0xff; 11], 5, 3, 1),
        "int32_data: a varint longer than 10 bytes"
    );
    assert_eq!(
        msg(&f[..3], 4, 1, 1),
        "float_data: a fixed-width value runs past the field"
    );
    assert_eq!(
        msg(&[5 << 3 | 2, 9, 1], 5, 3, 1),
        "int32_data: a 9-byte run past the tensor's data"
    );
    assert_eq!(
        msg(&[5 << 3 | 3], 5, 3, 1),
        "int32_data: wire type 3 inside the tensor's data"
    );
    assert_eq!(
        msg(&[], 5, 3, 1),
        "int32_data holds 0 values but the tensor needs 1: onnx's to_array refuses it"
    );
    assert_eq!(
        msg(&[], 5, 8, 1),
        format!("{} values are not previewed", super::data_type_name(8))
    );
}
