//! Hostile GGUF inputs (the hostile-input issue's list), each with the exact message or finding
//! it must give: never a panic, a clear message naming the field and the byte offset, and what
//! was read before the fault kept.

mod common;

use common::{GgufBuilder, W};
use weightpeek::check::check_one_file as check;
use weightpeek::format::Model;
use weightpeek::source::parse_bytes;

/// What a file gives: the parse error's text, or else the first finding's `code: message`, or
/// `clean`.
fn outcome(bytes: &[u8]) -> String {
    match parse_bytes(bytes) {
        Err(e) => format!("refused: {e}"),
        Ok(m) => match &m.error {
            Some(e) => format!("error: {e}"),
            None => first_finding(&m),
        },
    }
}

fn first_finding(m: &Model) -> String {
    check(m)
        .first()
        .map_or("clean".into(), |f| format!("{}: {}", f.code, f.message))
}

fn v3() -> Vec<u8> {
    let mut b = b"GGUF".to_vec();
    b.extend(3u32.to_le_bytes());
    b
}

fn header(tensors: u64, kvs: u64) -> Vec<u8> {
    let mut b = v3();
    b.extend(tensors.to_le_bytes());
    b.extend(kvs.to_le_bytes());
    b
}

fn nested(depth: usize) -> Vec<u8> {
    // One key whose value is an array of arrays ... of one u32.
    let mut b = header(0, 1);
    b.extend(1u64.to_le_bytes());
    b.push(b'n');
    b.extend(9u32.to_le_bytes());
    for _ in 1..depth {
        b.extend(9u32.to_le_bytes());
        b.extend(1u64.to_le_bytes());
    }
    b.extend(4u32.to_le_bytes());
    b.extend(1u64.to_le_bytes());
    b.extend(7u32.to_le_bytes());
    b
}

fn kv_string_len(len: u64, file_len: usize) -> Vec<u8> {
    let mut b = header(0, 1);
    b.extend(1u64.to_le_bytes());
    b.push(b'k');
    b.extend(8u32.to_le_bytes());
    b.extend(len.to_le_bytes());
    b.resize(file_len.max(b.len()), b'x');
    b
}

fn array_of(elem: u32, len: u64, file_len: usize) -> Vec<u8> {
    let mut b = header(0, 1);
    b.extend(1u64.to_le_bytes());
    b.push(b'a');
    b.extend(9u32.to_le_bytes());
    b.extend(elem.to_le_bytes());
    b.extend(len.to_le_bytes());
    b.resize(file_len.max(b.len()), 0);
    b
}

fn one_tensor(dims: &[u64], ty: u32, rel: u64, data_len: u64) -> Vec<u8> {
    let mut b = GgufBuilder::new(3).tensor("t", dims, ty, rel);
    b.data_len = data_len;
    b.build()
}

fn alignment(v: W) -> Vec<u8> {
    let mut b = GgufBuilder::new(3)
        .kv("general.alignment", v)
        .tensor("t", &[32], 0, 0);
    b.data_len = 128;
    b.build()
}

#[test]
fn every_hostile_gguf_gives_its_message() {
    let mut full = GgufBuilder::new(3)
        .kv("general.name", W::s("tiny"))
        .tensor("t", &[8], 0, 0);
    full.data_len = 32;
    let full = full.build();
    let cut_in_value = &full[..full.len() - 32 - 40];
    let mut ndims = header(1, 0);
    ndims.extend(1u64.to_le_bytes());
    ndims.push(b't');
    ndims.extend(u32::MAX.to_le_bytes());
    ndims.resize(64, 0);
    let mut bad_type = header(0, 1);
    bad_type.extend(1u64.to_le_bytes());
    bad_type.push(b'k');
    bad_type.extend(13u32.to_le_bytes());
    let mut bool2 = GgufBuilder::new(3).kv("b", W::Bool(2)).build();
    bool2.truncate(bool2.len());
    let mut v0 = b"GGUF".to_vec();
    v0.extend(0u32.to_le_bytes());
    v0.extend([0u8; 16]);
    let mut v4 = b"GGUF".to_vec();
    v4.extend(4u32.to_le_bytes());
    v4.extend([0u8; 16]);
    let two_to_32 = 1u64 << 32;

    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("cut inside the magic", b"GG".to_vec(),
         "refused: file start at byte 0: the file has only 2 bytes, less than a GGUF header (24 bytes)"),
        ("cut inside the counts", header(1, 1)[..14].to_vec(),
         "error: GGUF header at byte 0: the file ends at byte 14 but this field needs bytes up to 16 (truncated or damaged file)"),
        ("cut inside a value", cut_in_value.to_vec(),
         "error: metadata[0] \"general.name\" value: string length at byte 48: string length is 4, but at most 0 fit in the bytes that remain (damaged file?)"),
        ("tensor_count 2^40 in 24 bytes", header(1 << 40, 0),
         "error: tensor count at byte 8: tensor count is 1099511627776, but at most 0 fit in the bytes that remain (damaged file?)"),
        ("kv_count 10^6 in 24 bytes", header(0, 1_000_000),
         "error: metadata count at byte 16: metadata count is 1000000, but at most 0 fit in the bytes that remain (damaged file?)"),
        ("string length 2^40", kv_string_len(1 << 40, 64),
         "error: metadata[0] \"k\" value: string length at byte 37: string length is 1099511627776, but at most 19 fit in the bytes that remain (damaged file?)"),
        ("string length 2^50", kv_string_len(1 << 50, 64),
         "error: metadata[0] \"k\" value: string length at byte 37: string length is 1125899906842624, but at most 19 fit in the bytes that remain (damaged file?)"),
        ("1 MiB string length in 132 bytes", kv_string_len(1 << 20, 132),
         "error: metadata[0] \"k\" value: string length at byte 37: string length is 1048576, but at most 87 fit in the bytes that remain (damaged file?)"),
        ("2^28 u32 in 113 bytes", array_of(4, 1 << 28, 113),
         "error: metadata[0] \"a\" array: array length at byte 41: array length is 268435456, but at most 16 fit in the bytes that remain (damaged file?)"),
        ("2^50 elements", array_of(0, 1 << 50, 113),
         "error: metadata[0] \"a\" array: array length at byte 41: array length is 1125899906842624, but at most 64 fit in the bytes that remain (damaged file?)"),
        ("n_dims 0xFFFFFFFF", ndims,
         "error: tensor[0] \"t\" n_dims at byte 33: n_dims is 4294967295; ggml tensors have at most 4 dimensions"),
        ("arrays nested 70 deep", nested(70),
         "error: metadata[0] \"n\" array element: array element type at byte 121: values nested more than 8 deep"),
        ("arrays nested 1,000,000 deep", nested(1_000_000),
         "error: metadata[0] \"n\" array element: array element type at byte 121: values nested more than 8 deep"),
        ("5 dimensions", one_tensor(&[1, 1, 1, 1, 1], 0, 0, 32),
         "error: tensor[0] \"t\" n_dims at byte 33: n_dims is 5; ggml tensors have at most 4 dimensions"),
        ("dims product wraps to 0", one_tensor(&[two_to_32; 4], 0, 0, 32),
         "elements-overflow: the product of the dimensions [4294967296, 4294967296, 4294967296, 4294967296] overflows 64 bits"),
        ("partial blocks", one_tensor(&[100], 12, 0, 256),
         "size-mismatch: ne0 = 100 is not a multiple of the block size 256"),
        ("offset + size overflows", one_tensor(&[8], 0, u64::MAX - 8, 32),
         "size-mismatch: offset overflows 64 bits"),
        ("data past the end", one_tensor(&[64], 0, 0, 32),
         "truncated: the file is shorter than its tensors need: it has 96 bytes, the data of 1 tensor(s) reaches byte 320 (an incomplete download or a cut copy?)"),
        ("offset off the alignment grid", one_tensor(&[4], 0, 8, 64),
         "misaligned: data offset 8 (relative to the data section) is not a multiple of the alignment 32; llama.cpp refuses it"),
        ("alignment 0", alignment(W::U32(0)),
         "error: metadata \"general.alignment\" at byte 24: alignment is 0; it must be a power of two between 1 and 1048576"),
        ("alignment 3", alignment(W::U32(3)),
         "error: metadata \"general.alignment\" at byte 24: alignment is 3; it must be a power of two between 1 and 1048576"),
        ("alignment 2^40", alignment(W::U64(1 << 40)),
         "error: metadata \"general.alignment\" at byte 24: alignment is 1099511627776; it must be a power of two between 1 and 1048576"),
        ("alignment as a string", alignment(W::s("32")),
         "error: metadata \"general.alignment\" at byte 24: alignment is a STRING, not an unsigned integer"),
        ("alignment as UINT64 32", alignment(W::U64(32)),
         "metadata-type: \"general.alignment\" is UINT64, loaders expect UINT32"),
        ("ggml magic", b"lmgg\x01\x00\x00\x00".to_vec(),
         "refused: magic at byte 0: this is a ggml (unversioned) file, the format llama.cpp used before GGUF (2023); convert it with llama.cpp's convert scripts"),
        ("ggjt magic", b"tjgg\x03\x00\x00\x00".to_vec(),
         "refused: magic at byte 0: this is a GGJT file, the format llama.cpp used before GGUF (2023); convert it with llama.cpp's convert scripts"),
        ("version 0", v0,
         "error: version at byte 4: GGUF version 0 is not supported (known: 1, 2, 3)"),
        ("version 4", v4,
         "error: version at byte 4: GGUF version 4 is not supported (known: 1, 2, 3)"),
        ("unknown value type", bad_type,
         "error: metadata[0] \"k\" value type at byte 33: unknown metadata value type 13 (known: 0..=12)"),
        ("BOOL byte 2", bool2,
         "parser-warning: metadata[0] \"b\" at byte 37: BOOL byte is 2, not 0 or 1; read as true"),
        ("duplicate keys", GgufBuilder::new(3).kv("k", W::U8(1)).kv("k", W::U8(2)).build(),
         "duplicate-key: metadata key \"k\" appears more than once; loaders keep one of them"),
        ("duplicate tensor names", {
            let mut b = GgufBuilder::new(3).tensor("t", &[8], 0, 0).tensor("t", &[8], 0, 32);
            b.data_len = 64;
            b.build()
        }, "duplicate-tensor: tensor name \"t\" appears more than once"),
        ("empty key", GgufBuilder::new(3).kv("", W::U8(1)).build(),
         "empty-key: a metadata key is empty"),
    ];
    let mut failures = Vec::new();
    for (name, bytes, want) in &cases {
        let got = outcome(bytes);
        if got != *want {
            failures.push(format!("{name}:\n  want: {want}\n  got:  {got}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_real_vocab_cut_inside_its_merges_keeps_every_key_before() {
    let p = common::shared_dir().join("data/vocab/ggml-vocab-gpt-2.gguf");
    let Some(p) = common::real_file(p) else {
        return;
    };
    let bytes = std::fs::read(p).unwrap();
    let whole = parse_bytes(&bytes).unwrap();
    let (index, merges) = whole
        .metadata
        .iter()
        .enumerate()
        .find(|(_, e)| e.key == "tokenizer.ggml.merges")
        .expect("gpt-2 has merges");
    let weightpeek::format::Value::Array(a) = &merges.value else {
        panic!()
    };
    let cut = (a.start + a.end) / 2;
    let m = parse_bytes(&bytes[..cut as usize]).unwrap();
    let e = m.error.as_ref().expect("cut file must fail");
    assert!(
        e.field.starts_with(&format!(
            "metadata[{index}] \"tokenizer.ggml.merges\" array element"
        )),
        "{e}"
    );
    assert!(e.offset > a.start && e.offset <= cut, "{e}");
    assert_eq!(m.metadata[..], whole.metadata[..index]);
}
