//! The header editor (`weightpeek::edit`, `weightpeek edit`): a no-op edit reproduces every real
//! header byte for byte; set, add, delete and element edits round-trip through our parser and
//! gguf-py (`tests/reference/edit_check.py`); tensor offsets and the alignment stay valid; bad
//! edits are refused with typed errors naming the key; hostile values are fine.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{data_dir, real_file, required, shared_dir, CountingFile, GgufBuilder, W};
use proptest::prelude::*;
use weightpeek::edit::file::{read_header, write_edited};
use weightpeek::edit::{plan, result_model, ChangeKind, Edit, EditError, NewValue};
use weightpeek::format::{Model, Value, ValueType};
use weightpeek::open::OpenedModel;
use weightpeek::source::{block_on_ready, parse_bytes, read_model, ReadPolicy};

fn set(spec: &str) -> Edit {
    Edit::parse_set(spec).unwrap_or_else(|e| panic!("{spec}: {e}"))
}

fn del(key: &str) -> Edit {
    Edit::Delete { key: key.into() }
}

/// The whole new file: the plan's header and the original's data section.
fn edited(file: &[u8], edits: &[Edit]) -> Result<Vec<u8>, EditError> {
    let p = plan(file, file.len() as u64, edits)?;
    let mut out = p.header.clone();
    out.extend_from_slice(&file[p.data_offset as usize..]);
    assert_eq!(out.len() as u64, p.file_size());
    Ok(out)
}

fn parsed(bytes: &[u8]) -> Model {
    let m = parse_bytes(bytes).expect("parses");
    assert!(m.error.is_none(), "{:?}", m.error);
    m
}

/// A fixture with every scalar type, a string, arrays of numbers and strings, three tensors at
/// relative offsets 0, 64 and 128, and a data section of recognisable bytes.
fn fixture(version: u32, big_endian: bool) -> Vec<u8> {
    let mut b = GgufBuilder::new(version);
    b.big_endian = big_endian;
    b.data_len = 256;
    let b = b
        .kv("general.architecture", W::s("llama"))
        .kv("general.name", W::s("tiny"))
        .kv("t.u8", W::U8(1))
        .kv("t.i8", W::I8(-2))
        .kv("t.u16", W::U16(3))
        .kv("t.i16", W::I16(-4))
        .kv("t.u32", W::U32(5))
        .kv("t.i32", W::I32(-6))
        .kv("t.f32", W::F32(0.5))
        .kv("t.bool", W::Bool(1))
        .kv("t.u64", W::U64(7))
        .kv("t.i64", W::I64(-8))
        .kv("t.f64", W::F64(0.25))
        .kv(
            "tokenizer.ggml.tokens",
            W::Arr(8, vec![W::s("<s>"), W::s("</s>"), W::s("a"), W::s("bc")]),
        )
        .kv(
            "tokenizer.ggml.token_type",
            W::Arr(5, vec![W::I32(3), W::I32(3), W::I32(1), W::I32(1)]),
        )
        .kv("t.nested", W::Arr(9, vec![W::Arr(4, vec![W::U32(1)])]))
        .tensor("a", &[16], 0, 0)
        .tensor("b", &[16], 0, 64)
        .tensor("c", &[32], 0, 128);
    let (mut bytes, off) = b.build_with_offset();
    for (i, x) in bytes[off as usize..].iter_mut().enumerate() {
        *x = (i % 251) as u8;
    }
    bytes
}

#[test]
fn a_no_op_edit_reproduces_crafted_headers_in_every_layout() {
    for (v, be) in [(3, false), (3, true), (2, false)] {
        let f = fixture(v, be);
        assert_eq!(edited(&f, &[]).unwrap(), f, "v{v} big-endian {be}");
    }
}

fn vocab_files() -> Vec<PathBuf> {
    let dir = shared_dir().join("data/vocab");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .chain(std::fs::read_dir(dir.join("history")).into_iter().flatten())
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "gguf"))
        .collect();
    files.sort();
    assert!(!required() || files.len() == 14, "{files:?}");
    files
}

/// Reads `p`'s header the way the CLI does, counting the bytes read.
fn header_of(p: &Path) -> (Model, u64) {
    let mut src = CountingFile::open(p);
    let (m, _) = block_on_ready(read_model(&mut src, &ReadPolicy::LOCAL)).expect("reads");
    assert!(m.error.is_none(), "{}: {:?}", p.display(), m.error);
    (m, src.bytes)
}

#[test]
fn a_no_op_edit_reproduces_every_real_v2_and_v3_header_byte_for_byte() {
    let mut files = vocab_files();
    files.extend(real_file(data_dir().join("gemma-3-270m-q4_k_m.gguf")));
    let mut checked = 0;
    for p in files {
        let (m, read) = header_of(&p);
        if m.version == Some(1) {
            continue;
        }
        // Only the header was read: at most the first read (which may cover a small file).
        assert!(
            read <= m.header_size.max(ReadPolicy::LOCAL.first_read) + (1 << 20),
            "{}: read {read} bytes for a {}-byte header",
            p.display(),
            m.header_size
        );
        let pl = plan(&m.bytes, m.file_size, &[]).unwrap();
        assert!(pl.changes.is_empty() && pl.notes.is_empty());
        assert_eq!(pl.file_size(), m.file_size, "{}", p.display());
        let head = &m.bytes[..pl.header.len()];
        assert!(
            head == pl.header.as_slice(),
            "{}: header differs",
            p.display()
        );
        checked += 1;
    }
    assert!(!required() || checked == 14, "checked {checked}");
}

#[test]
fn the_gemma_file_written_by_a_no_op_edit_is_the_same_file() {
    let Some(g) = real_file(data_dir().join("gemma-3-270m-q4_k_m.gguf")) else {
        return;
    };
    let dir = tempdir("noop");
    let out = dir.join("same.gguf");
    let m = read_header(&g).unwrap();
    let pl = plan(&m.bytes, m.file_size, &[]).unwrap();
    let n = write_edited(&g, &out, &pl).unwrap();
    assert_eq!(n, m.file_size);
    assert!(same_contents(&g, &out), "the rewritten file differs");
    std::fs::remove_dir_all(dir).ok();
}

/// Compares two files a MiB at a time.
fn same_contents(a: &Path, b: &Path) -> bool {
    use std::io::Read;
    let (mut fa, mut fb) = (
        std::fs::File::open(a).unwrap(),
        std::fs::File::open(b).unwrap(),
    );
    let (mut ba, mut bb) = (vec![0u8; 1 << 20], vec![0u8; 1 << 20]);
    loop {
        let na = read_full(&mut fa, &mut ba);
        let nb = read_full(&mut fb, &mut bb);
        if na != nb || ba[..na] != bb[..nb] {
            return false;
        }
        if na == 0 {
            return true;
        }
    }
    fn read_full(f: &mut std::fs::File, buf: &mut [u8]) -> usize {
        let mut n = 0;
        while n < buf.len() {
            match f.read(&mut buf[n..]).unwrap() {
                0 => break,
                k => n += k,
            }
        }
        n
    }
}

fn tempdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("weightpeek-edit-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn a_v1_file_is_written_as_v3_with_every_value_kept() {
    let Some(p) = real_file(shared_dir().join("data/vocab/history/ggml-vocab-llama.v1.gguf"))
    else {
        return;
    };
    let (m, _) = header_of(&p);
    assert_eq!(m.version, Some(1));
    let pl = plan(
        &m.bytes,
        m.file_size,
        &[set("general.name=llama v1 rewritten")],
    )
    .unwrap();
    assert_eq!(pl.version, 3);
    assert_eq!(pl.notes.len(), 1, "{:?}", pl.notes);
    let r = result_model(&pl);
    assert!(r.error.is_none(), "{:?}", r.error);
    assert_eq!(r.version, Some(3));
    let added = usize::from(m.get("general.name").is_none());
    assert_eq!(r.metadata.len(), m.metadata.len() + added);
    for (a, b) in m.metadata.iter().zip(&r.metadata) {
        assert_eq!(a.key, b.key);
        match (&a.value, &b.value) {
            (Value::Array(x), Value::Array(y)) => {
                assert_eq!((x.elem, x.len), (y.elem, y.len), "{}", a.key);
                let xs = x.values(&m.bytes, 0, x.len).unwrap();
                let ys = y.values(&r.bytes, 0, y.len).unwrap();
                assert!(xs == ys, "{}: elements differ", a.key);
            }
            (_, Value::String(t)) if a.key == "general.name" => {
                assert_eq!(t.text, "llama v1 rewritten")
            }
            (x, y) => assert_eq!(x, y, "{}", a.key),
        }
    }
    // gguf-py, which refuses v1, reads the v3 file with the same keys and elements.
    let Some(py) = python() else { return };
    let dir = tempdir("v1");
    let out = dir.join("llama.v3.gguf");
    std::fs::write(&out, &pl.header).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/reference/edit_check.py");
    let run = Command::new(py)
        .arg(script)
        .arg("--describe")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let d: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(d["version"], 3);
    let keys = d["keys"].as_object().unwrap();
    let ours: Vec<&str> = r.metadata.iter().map(|e| e.key.as_str()).collect();
    assert_eq!(keys.keys().map(String::as_str).collect::<Vec<_>>(), ours);
    for e in &r.metadata {
        let k = &keys[&e.key];
        match &e.value {
            Value::Array(a) => {
                let vals = a.values(&r.bytes, 0, a.len).unwrap();
                let theirs = k["values"].as_array().unwrap();
                assert_eq!(theirs.len() as u64, a.len, "{}", e.key);
                for (x, y) in vals.iter().zip(theirs) {
                    assert_eq!(weightpeek::text::to_json(x, &r.bytes, 0), *y, "{}", e.key);
                }
            }
            v => assert_eq!(
                weightpeek::text::to_json(v, &r.bytes, 0),
                k["value"],
                "{}",
                e.key
            ),
        }
    }
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn set_add_delete_and_elements_round_trip_in_every_layout() {
    for (v, be) in [(3, false), (3, true), (2, false)] {
        let f = fixture(v, be);
        let edits = [
            set("general.name=renamed"),
            set("t.u8=200"),
            set("t.i8=-100"),
            set("t.u16=65535"),
            set("t.i16=-32768"),
            set("t.u32=4000000000"),
            set("t.i32=-2000000000"),
            set("t.f32=0.1"),
            set("t.bool=false"),
            set("t.u64=18446744073709551615"),
            set("t.i64=-9223372036854775808"),
            set("t.f64=1e-300"),
            set("tokenizer.ggml.token_type[2]=4"),
            set("tokenizer.ggml.tokens[1]=<|end|>"),
            set("new.count=12"),
            set("new.neg=-3"),
            set("new.ratio=0.75"),
            set("new.flag=true"),
            set("new.text=hello"),
            set("new.quoted=\"42\""),
            set("new.typed:i16=-5"),
            set("new.typed64:f64=2.5"),
            del("t.nested"),
        ];
        let out = edited(&f, &edits).unwrap();
        let m = OpenedModel::from(parsed(&out));
        assert_eq!(m.version, Some(v));
        assert_eq!(m.endian == weightpeek::format::Endian::Big, be);
        let get = |k: &str| m.get(k).cloned().unwrap_or_else(|| panic!("{k} missing"));
        assert_eq!(get("general.name").as_str(), Some("renamed"));
        assert_eq!(get("t.u8"), Value::U8(200));
        assert_eq!(get("t.i8"), Value::I8(-100));
        assert_eq!(get("t.u16"), Value::U16(65535));
        assert_eq!(get("t.i16"), Value::I16(-32768));
        assert_eq!(get("t.u32"), Value::U32(4_000_000_000));
        assert_eq!(get("t.i32"), Value::I32(-2_000_000_000));
        assert_eq!(get("t.f32"), Value::F32("0.1".parse().unwrap()));
        assert_eq!(get("t.bool"), Value::Bool(false));
        assert_eq!(get("t.u64"), Value::U64(u64::MAX));
        assert_eq!(get("t.i64"), Value::I64(i64::MIN));
        assert_eq!(get("t.f64"), Value::F64("1e-300".parse().unwrap()));
        let Value::Array(tt) = get("tokenizer.ggml.token_type") else {
            panic!()
        };
        let tt: Vec<Value> = tt.values(&m.bytes, 0, 10).unwrap();
        assert_eq!(
            tt,
            [3, 3, 4, 1].map(Value::I32).to_vec(),
            "only element 2 changed"
        );
        let Value::Array(tok) = get("tokenizer.ggml.tokens") else {
            panic!()
        };
        let tok: Vec<String> = tok
            .values(&m.bytes, 0, 10)
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect();
        assert_eq!(tok, ["<s>", "<|end|>", "a", "bc"]);
        assert_eq!(get("new.count"), Value::U32(12));
        assert_eq!(get("new.neg"), Value::I32(-3));
        assert_eq!(get("new.ratio"), Value::F32(0.75));
        assert_eq!(get("new.flag"), Value::Bool(true));
        assert_eq!(get("new.text").as_str(), Some("hello"));
        assert_eq!(get("new.quoted").as_str(), Some("42"));
        assert_eq!(get("new.typed"), Value::I16(-5));
        assert_eq!(get("new.typed64"), Value::F64(2.5));
        assert!(m.get("t.nested").is_none());
        // Added keys come last, in the order given; the others keep their places.
        let keys: Vec<&str> = m.metadata.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(keys[0], "general.architecture");
        assert_eq!(keys[keys.len() - 8..][0], "new.count");
        assert_eq!(keys.last(), Some(&"new.typed64"));
        assert_eq!(m.metadata_count, keys.len() as u64);
        // Tensors: same names, types, shapes and relative offsets; the data section unchanged.
        let orig = parsed(&f);
        assert_eq!(m.tensors.len(), 3);
        for (a, b) in orig.tensors.iter().zip(&m.tensors) {
            assert_eq!((&a.name, &a.dtype, &a.shape), (&b.name, &b.dtype, &b.shape));
            assert_eq!(a.offset - orig.data_offset, b.offset - m.data_offset);
        }
        assert_eq!(m.data_offset % 32, 0);
        assert_eq!(
            &out[m.data_offset as usize..],
            &f[orig.data_offset as usize..]
        );
        let findings = weightpeek::summary::summarize(&m).findings;
        assert!(
            findings
                .iter()
                .all(|x| x.severity != weightpeek::check::Severity::Error),
            "{findings:?}"
        );
    }
}

#[test]
fn changes_say_what_each_edit_did() {
    let f = fixture(3, false);
    let p = plan(
        &f,
        f.len() as u64,
        &[
            set("t.u32=9"),
            set("tokenizer.ggml.token_type[0]=1"),
            set("new.k=x"),
            del("t.i8"),
        ],
    )
    .unwrap();
    let kinds: Vec<(ChangeKind, Option<&str>, Option<&str>)> = p
        .changes
        .iter()
        .map(|c| (c.kind, c.before.as_deref(), c.after.as_deref()))
        .collect();
    assert_eq!(
        kinds,
        [
            (ChangeKind::Changed, Some("UINT32 5"), Some("UINT32 9")),
            (ChangeKind::Element(0), Some("INT32 3"), Some("INT32 1")),
            (ChangeKind::Added, None, Some("STRING \"x\"")),
            (ChangeKind::Removed, Some("INT8 -2"), None),
        ]
    );
}

#[test]
fn alignment_edits_keep_offsets_valid_or_are_refused() {
    let f = fixture(3, false);
    // Offsets 0, 64, 128 sit on a 64 grid: the data section moves to the next multiple of 64.
    let out = edited(&f, &[set("general.alignment:u32=64")]).unwrap();
    let m = parsed(&out);
    assert_eq!(m.alignment, Some(64));
    assert_eq!(m.data_offset % 64, 0);
    for t in &m.tensors {
        assert_eq!(t.offset % 64, 0, "{}", t.name);
    }
    let orig = parsed(&f);
    assert_eq!(
        &out[m.data_offset as usize..],
        &f[orig.data_offset as usize..]
    );
    // Deleting it again gives the default 32.
    let back = edited(&out, &[del("general.alignment")]).unwrap();
    assert_eq!(back, f, "add then delete is the original");
    // 128 would misalign "b" (at 64).
    assert_eq!(
        edited(&f, &[set("general.alignment:u32=128")]).unwrap_err(),
        EditError::AlignmentBreaksOffsets {
            alignment: 128,
            tensor: "b".into(),
            offset: 64
        }
    );
    for bad in [
        "general.alignment:u32=48",
        "general.alignment:u32=0",
        "general.alignment:u32=2097152",
        "general.alignment:u64=64",
        "general.alignment:str=64",
    ] {
        assert!(
            matches!(
                edited(&f, &[set(bad)]),
                Err(EditError::BadAlignment { ref key, .. }) if key == "general.alignment"
            ),
            "{bad}"
        );
    }
    // An inferred type for a new alignment is UINT32, as llama.cpp requires.
    assert!(edited(&f, &[set("general.alignment=64")]).is_ok());
}

#[test]
fn bad_edits_are_refused_naming_the_key() {
    let f = fixture(3, false);
    let err = |e: Edit| edited(&f, &[e]).unwrap_err();
    let bad_value = |spec: &str, want: ValueType| match err(set(spec)) {
        EditError::BadValue { key, ty, .. } => {
            assert_eq!(ty, want, "{spec}");
            assert!(spec.starts_with(&key), "{spec}: {key}");
        }
        other => panic!("{spec}: {other:?}"),
    };
    bad_value("t.u8=256", ValueType::U8);
    bad_value("t.u8=-1", ValueType::U8);
    bad_value("t.i8=128", ValueType::I8);
    bad_value("t.u32=1.5", ValueType::U32);
    bad_value("t.u32=abc", ValueType::U32);
    bad_value("t.u64=18446744073709551616", ValueType::U64);
    bad_value("t.f32=1e39", ValueType::F32);
    bad_value("t.f32=fast", ValueType::F32);
    bad_value("t.bool=yes", ValueType::Bool);
    bad_value("new.k:u16=70000", ValueType::U16);
    bad_value("tokenizer.ggml.token_type[1]=x", ValueType::I32);
    assert_eq!(
        err(del("no.such")),
        EditError::NoSuchKey {
            key: "no.such".into()
        }
    );
    assert_eq!(
        err(set("no.such[0]=1")),
        EditError::NoSuchKey {
            key: "no.such".into()
        }
    );
    assert_eq!(
        err(set("tokenizer.ggml.tokens[4]=x")),
        EditError::IndexOutOfRange {
            key: "tokenizer.ggml.tokens".into(),
            index: 4,
            len: 4
        }
    );
    assert_eq!(
        err(set("t.u32[0]=1")),
        EditError::NotAnArray {
            key: "t.u32".into(),
            ty: ValueType::U32
        }
    );
    assert_eq!(
        err(set("t.nested[0]=1")),
        EditError::NestedArray {
            key: "t.nested".into()
        }
    );
    assert_eq!(
        err(set("tokenizer.ggml.tokens=abc")),
        EditError::ArrayValue {
            key: "tokenizer.ggml.tokens".into()
        }
    );
    assert!(matches!(
        Edit::parse_set("k:float8=1"),
        Err(EditError::UnknownType { ref key, ref name }) if key == "k" && name == "float8"
    ));
    // Not GGUF, and a header that is not all there.
    assert_eq!(
        plan(b"PK\x03\x04 not gguf", 14, &[]).unwrap_err(),
        EditError::NotGguf
    );
    let cut = &f[..100];
    assert!(matches!(
        plan(cut, f.len() as u64, &[]),
        Err(EditError::Unreadable(_))
    ));
    assert!(matches!(
        plan(cut, cut.len() as u64, &[]),
        Err(EditError::Unreadable(_))
    ));
    // Messages name the key, with file text escaped.
    let msg = err(del("evil\u{1b}[2J\u{202e}")).to_string();
    assert!(msg.contains("evil\\u{1b}[2J\\u{202e}"), "{msg}");
}

#[test]
fn huge_strings_and_keys_are_fine() {
    let f = fixture(3, false);
    let template = "{{ x }}\n".repeat(4 << 20); // 32 MiB
    let long_key = "k".repeat(100_000);
    let out = edited(
        &f,
        &[
            Edit::Set {
                key: "tokenizer.chat_template".into(),
                ty: None,
                value: NewValue::Verbatim(template.clone()),
            },
            set(&format!("{long_key}=1")),
            set(&format!("tokenizer.ggml.tokens[3]={}", "z".repeat(1 << 20))),
        ],
    )
    .unwrap();
    let m = parsed(&out);
    assert_eq!(
        m.get("tokenizer.chat_template").and_then(Value::as_str),
        Some(template.as_str())
    );
    assert_eq!(m.get(&long_key), Some(&Value::U32(1)));
    assert_eq!(m.tensors.len(), 3);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    /// Any `--set` text either is refused with an error or gives a header that parses
    /// completely, with the data section unchanged.
    #[test]
    fn arbitrary_set_specs_never_panic(spec in "[a-z.\\[\\]:0-9=_-]{0,24}", value in "\\PC{0,12}") {
        let f = fixture(3, false);
        let text = format!("{spec}{value}");
        if let Ok(e) = Edit::parse_set(&text) {
            if let Ok(out) = edited(&f, &[e]) {
                let m = parse_bytes(&out).unwrap();
                prop_assert!(m.error.is_none());
                prop_assert_eq!(m.tensors.len(), 3);
                prop_assert_eq!(&out[m.data_offset as usize..], &f[f.len() - 256..]);
            }
        }
    }
}

// --- the CLI, checked with gguf-py ------------------------------------------------------------

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_weightpeek"))
}

/// `.venv/bin/python`, required under the test command; `None` (skip) in a bare `cargo test`.
fn python() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python");
    if p.exists() {
        return Some(p);
    }
    assert!(!required(), "{} missing; run scripts/test.sh", p.display());
    eprintln!("SKIP: no .venv; run scripts/test.sh");
    None
}

/// Runs the reference checker; returns its JSON report (the test fails when it says not ok).
fn reference_check(
    orig: &Path,
    new: &Path,
    expect: serde_json::Value,
) -> Option<serde_json::Value> {
    let py = python()?;
    let exp = new.with_extension("expect.json");
    std::fs::write(&exp, expect.to_string()).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/reference/edit_check.py");
    let out = Command::new(py)
        .arg(script)
        .arg(orig)
        .arg(new)
        .arg(&exp)
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    assert!(out.status.success() && report["ok"] == true, "{report}");
    Some(report)
}

#[test]
fn the_cli_edits_the_gemma_file_and_gguf_py_agrees() {
    let Some(g) = real_file(data_dir().join("gemma-3-270m-q4_k_m.gguf")) else {
        return;
    };
    let dir = tempdir("gemma");
    let template = dir.join("template.jinja");
    let text = "{{ bos_token }}{% for m in messages %}<start_of_turn>{{ m['role'] }}\n{{ m['content'] | trim }}<end_of_turn>\n{% endfor %}{% if add_generation_prompt %}<start_of_turn>model\n{% endif %}";
    std::fs::write(&template, text).unwrap();
    let out = dir.join("edited.gguf");
    let run = bin()
        .arg("edit")
        .arg(&g)
        .arg(&out)
        .arg("--set-file")
        .arg(format!("tokenizer.chat_template={}", template.display()))
        .args(["--set", "general.name=Gemma 3 270m (edited)"])
        .args(["--delete", "general.license"])
        .args(["--set", "tokenizer.ggml.token_type[106]=4"])
        .args(["--set", "tokenizer.ggml.eos_token_id=106"])
        .args(["--set", "my.added:f32=0.1"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(stdout.contains("changes (6):"), "{stdout}");
    assert!(
        stdout.contains("changed  tokenizer.ggml.token_type[106]"),
        "{stdout}"
    );
    assert!(stdout.contains("6 metadata differences"), "{stdout}");
    assert!(stdout.contains("checks of the result:"), "{stdout}");
    let report = reference_check(
        &g,
        &out,
        serde_json::json!({
            "set": [
                {"key": "tokenizer.chat_template", "type": "STRING", "value": text},
                {"key": "general.name", "type": "STRING", "value": "Gemma 3 270m (edited)"},
                {"key": "tokenizer.ggml.eos_token_id", "type": "UINT32", "value": "106"},
                {"key": "my.added", "type": "FLOAT32", "value": "0.1"},
            ],
            "elements": [{"key": "tokenizer.ggml.token_type", "index": 106, "value": "4"}],
            "delete": ["general.license"],
        }),
    );
    if let Some(r) = report {
        assert_eq!(r["tensors"], 236);
    }
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn the_cli_edits_a_v2_vocab_file_and_gguf_py_agrees() {
    let Some(v) = real_file(shared_dir().join("data/vocab/history/ggml-vocab-falcon.v2.gguf"))
    else {
        return;
    };
    let dir = tempdir("v2");
    let out = dir.join("falcon.gguf");
    let run = bin()
        .arg("edit")
        .arg(&v)
        .arg(&out)
        .args(["--set", "tokenizer.ggml.tokens[11]=<|edited|>"])
        .args(["--set", "general.note=written by weightpeek"])
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    reference_check(
        &v,
        &out,
        serde_json::json!({
            "set": [{"key": "general.note", "type": "STRING", "value": "written by weightpeek"}],
            "elements": [{"key": "tokenizer.ggml.tokens", "index": 11, "value": "<|edited|>"}],
        }),
    );
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn the_cli_refuses_to_overwrite_its_input_and_writes_nothing_on_a_bad_edit() {
    let dir = tempdir("refuse");
    let f = dir.join("tiny.gguf");
    let bytes = fixture(3, false);
    std::fs::write(&f, &bytes).unwrap();
    let same = dir.join(".").join("tiny.gguf");
    for out in [&f, &same] {
        let run = bin()
            .arg("edit")
            .arg(&f)
            .arg(out)
            .args(["--set", "t.u8=2"])
            .output()
            .unwrap();
        assert_eq!(run.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&run.stderr).contains("the output is the input"));
    }
    #[cfg(unix)]
    {
        let link = dir.join("link.gguf");
        std::fs::hard_link(&f, &link).unwrap();
        let run = bin().arg("edit").arg(&f).arg(&link).output().unwrap();
        assert_eq!(run.status.code(), Some(2), "a hard link is the same file");
    }
    assert_eq!(std::fs::read(&f).unwrap(), bytes, "the input is untouched");
    let out = dir.join("out.gguf");
    let run = bin()
        .arg("edit")
        .arg(&f)
        .arg(&out)
        .args(["--set", "t.u8=300"])
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("t.u8: \"300\" is not a UINT8"));
    assert!(!out.exists());
    // Edits apply in command-line order: a delete after a set removes the key.
    let run = bin()
        .arg("edit")
        .arg(&f)
        .arg(&out)
        .args(["--set", "new.k=1", "--delete", "new.k", "--set", "t.u8=9"])
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let m = parsed(&std::fs::read(&out).unwrap());
    assert!(m.get("new.k").is_none());
    assert_eq!(m.get("t.u8"), Some(&Value::U8(9)));
    // File-derived and typed text is printed escaped.
    std::fs::remove_file(&out).unwrap();
    let run = bin()
        .arg("edit")
        .arg(&f)
        .arg(&out)
        .args(["--set", "general.name=x\u{1b}[31m\u{202e}y"])
        .output()
        .unwrap();
    assert!(run.status.success());
    let stdout = String::from_utf8(run.stdout).unwrap();
    assert!(
        !stdout.contains('\u{1b}') && !stdout.contains('\u{202e}'),
        "{stdout}"
    );
    assert!(stdout.contains("x\\u{1b}[31m\\u{202e}y"), "{stdout}");
    std::fs::remove_dir_all(dir).ok();
}
