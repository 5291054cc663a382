//! Our safetensors reader beside the reference crate (`safetensors` 0.8) on the same generated
//! files, including damaged ones: where the reference rejects a file and we still show it, our
//! validation must say so (an error- or warning-level finding).

use weightpeek::check::{check_one_file as check, Severity};
use weightpeek::source::parse_bytes;

fn file(header: &[u8], data: usize) -> Vec<u8> {
    let mut b = (header.len() as u64).to_le_bytes().to_vec();
    b.extend(header);
    b.extend(vec![0u8; data]);
    b
}

fn entry(name: &str, dtype: &str, shape: &str, a: u64, b: u64) -> String {
    format!(r#""{name}":{{"dtype":"{dtype}","shape":{shape},"data_offsets":[{a},{b}]}}"#)
}

/// (name, file bytes) for every case of the hostile-input issue that fits the safetensors format.
fn cases() -> Vec<(&'static str, Vec<u8>)> {
    let ok = entry("w", "F32", "[2,2]", 0, 16);
    let obj = |entries: &[String]| format!("{{{}}}", entries.join(","));
    let mut v = vec![
        ("valid", file(obj(std::slice::from_ref(&ok)).as_bytes(), 16)),
        ("header length 0", file(b"", 16)),
        ("header shorter than {}", file(b"{", 16)),
        ("header not UTF-8", file(b"{\"\xff\":1}", 0)),
        ("not JSON", file(b"hello world", 0)),
        ("JSON array", file(b"[1,2]", 0)),
        ("entry not an object", file(br#"{"w":5}"#, 0)),
        (
            "negative shape",
            file(obj(&[entry("w", "F32", "[-2]", 0, 8)]).as_bytes(), 8),
        ),
        (
            "fractional shape",
            file(obj(&[entry("w", "F32", "[2.5]", 0, 8)]).as_bytes(), 8),
        ),
        (
            "enormous shape",
            file(
                obj(&[entry("w", "F32", "[18446744073709551615,2]", 0, 8)]).as_bytes(),
                8,
            ),
        ),
        (
            "reversed offsets",
            file(obj(&[entry("w", "F32", "[2]", 8, 0)]).as_bytes(), 8),
        ),
        (
            "offsets past the file",
            file(obj(&[entry("w", "F32", "[4]", 0, 16)]).as_bytes(), 8),
        ),
        (
            "overlapping offsets",
            file(
                obj(&[
                    entry("a", "F32", "[2]", 0, 8),
                    entry("b", "F32", "[2]", 4, 12),
                ])
                .as_bytes(),
                12,
            ),
        ),
        (
            "hole between tensors",
            file(
                obj(&[
                    entry("a", "F32", "[2]", 0, 8),
                    entry("b", "F32", "[2]", 16, 24),
                ])
                .as_bytes(),
                24,
            ),
        ),
        (
            "size disagrees with shape",
            file(obj(&[entry("w", "F32", "[3]", 0, 8)]).as_bytes(), 8),
        ),
        (
            "F4 odd element count",
            file(obj(&[entry("w", "F4", "[3]", 0, 2)]).as_bytes(), 2),
        ),
        (
            "duplicate names",
            file(
                obj(&[
                    entry("w", "F32", "[2]", 0, 8),
                    entry("w", "F32", "[2]", 8, 16),
                ])
                .as_bytes(),
                16,
            ),
        ),
        (
            "bytes after the last tensor",
            file(obj(std::slice::from_ref(&ok)).as_bytes(), 64),
        ),
        (
            "unknown dtype",
            file(obj(&[entry("w", "Q9", "[2]", 0, 2)]).as_bytes(), 2),
        ),
    ];
    let mut padded = obj(std::slice::from_ref(&ok)).into_bytes();
    padded.extend([0u8; 7]);
    v.push(("NUL padding after the JSON", file(&padded, 16)));
    let mut spaced = obj(std::slice::from_ref(&ok)).into_bytes();
    spaced.extend(*b"       ");
    v.push(("space padding after the JSON", file(&spaced, 16)));
    let mut bom = "\u{feff}".as_bytes().to_vec();
    bom.extend(obj(&[ok]).as_bytes());
    v.push(("byte-order mark before the JSON", file(&bom, 16)));
    // `__metadata__` values that are not strings (issue #11): shown, with a finding per key.
    let meta = format!(
        r#"{{"__metadata__":{{"format":"pt","step":1200,"cfg":{{"lr":0.1}},"none":null}},{}}}"#,
        entry("w", "F32", "[2,2]", 0, 16)
    );
    v.push(("metadata values not strings", file(meta.as_bytes(), 16)));
    let mut big = (1u64 << 40).to_le_bytes().to_vec();
    big.extend(b"{}");
    v.push(("header length past the file", big));
    v
}

#[test]
fn where_the_reference_rejects_we_say_so() {
    let mut table = Vec::new();
    for (name, bytes) in cases() {
        let reference = safetensors::SafeTensors::deserialize(&bytes)
            .map(|_| ())
            .map_err(|e| e.to_string());
        let ours = parse_bytes(&bytes);
        let flagged = match &ours {
            Err(_) => true,
            Ok(m) => m.error.is_some() || check(m).iter().any(|f| f.severity <= Severity::Warning),
        };
        table.push(format!(
            "{name:32} reference: {:50} ours: {}",
            reference
                .as_ref()
                .err()
                .map_or("accepts".to_string(), |e| format!(
                    "rejects ({})",
                    e.chars().take(36).collect::<String>()
                )),
            if flagged { "flags it" } else { "clean" }
        ));
        if reference.is_err() {
            assert!(
                flagged,
                "{name}: the reference rejects it ({reference:?}) but we show it without a finding"
            );
        }
        if name == "valid" || name == "space padding after the JSON" {
            assert!(reference.is_ok(), "{name}");
            assert!(!flagged, "{name}: {:?}", ours.map(|m| check(&m)));
        }
    }
    println!("{}", table.join("\n"));
}

/// The exact outcome of each case: the parse error, or the first (most severe) finding.
#[test]
fn each_case_gives_its_message() {
    let want: &[(&str, &str)] = &[
        ("valid", "clean"),
        ("header length 0", "error: header length at byte 0: header length is 0; the smallest header, `{}`, is 2 bytes"),
        ("header shorter than {}", "error: header length at byte 0: header length is 1; the smallest header, `{}`, is 2 bytes"),
        ("header not UTF-8", "error: header JSON at byte 10: header JSON: not valid UTF-8"),
        ("not JSON", "refused: file start at byte 0: not a GGUF, safetensors, PyTorch, ONNX or NumPy file (unrecognised first bytes)"),
        ("JSON array", "refused: file start at byte 0: not a GGUF, safetensors, PyTorch, ONNX or NumPy file (unrecognised first bytes)"),
        ("entry not an object", "error: header JSON at byte 8: header JSON: tensor \"w\" is not an object"),
        ("negative shape", "error: header JSON at byte 8: header JSON: tensor \"w\" \"shape\" holds -2, not a non-negative integer below 2^64"),
        ("fractional shape", "error: header JSON at byte 8: header JSON: tensor \"w\" \"shape\" holds 2.5, not a non-negative integer below 2^64"),
        ("enormous shape", "elements-overflow: the product of the dimensions [18446744073709551615, 2] overflows 64 bits"),
        ("reversed offsets", "size-mismatch: data_offsets [8, 0] are reversed"),
        ("offsets past the file", "truncated: the file is shorter than its tensors need: it has 71 bytes, the data of 1 tensor(s) reaches byte 79 (an incomplete download or a cut copy?)"),
        ("overlapping offsets", "overlap: data 120..128 overlaps \"a\" (which ends at 124)"),
        ("hole between tensors", "gap: 8 unused bytes before this tensor's data; the safetensors library refuses files whose tensors do not cover the data section contiguously"),
        ("size disagrees with shape", "size-mismatch: data_offsets span 8 bytes but 3 elements of F32 need 96 bits"),
        ("F4 odd element count", "size-mismatch: data_offsets span 2 bytes but 3 elements of F4 need 12 bits"),
        ("duplicate names", "duplicate-tensor: tensor name \"w\" appears more than once"),
        ("bytes after the last tensor", "trailing-bytes: 48 bytes after the last tensor's data"),
        ("unknown dtype", "unknown-type: dtype \"Q9\" is not a safetensors 0.8 dtype"),
        ("NUL padding after the JSON", "error: header JSON at byte 65: header JSON: followed by 7 NUL byte(s) of padding; safetensors pads the header with spaces only"),
        ("space padding after the JSON", "clean"),
        ("byte-order mark before the JSON", "error: header JSON at byte 8: header JSON: starts with a UTF-8 byte-order mark (EF BB BF), which safetensors does not allow"),
        ("metadata values not strings", "parser-warning: __metadata__.step at byte 8: is a number, not a string: shown as JSON text; the safetensors library refuses a file with such a value (its tensors are intact)"),
        ("header length past the file", "error: header length at byte 0: header length is 1099511627776 bytes; the limit is 268435456 bytes"),
    ];
    let cases = cases();
    assert_eq!(cases.len(), want.len());
    for ((name, bytes), (wname, w)) in cases.iter().zip(want) {
        assert_eq!(name, wname);
        let got = match parse_bytes(bytes) {
            Err(e) => format!("refused: {e}"),
            Ok(m) => match &m.error {
                Some(e) => format!("error: {e}"),
                None => check(&m)
                    .first()
                    .map_or("clean".into(), |f| format!("{}: {}", f.code, f.message)),
            },
        };
        assert_eq!(&got, w, "{name}");
    }
}

/// A `__metadata__` whose values are not all strings (issue #11): the reference library
/// refuses the file; we keep every value as its JSON text (serde_json's rendering of the value
/// as written), warn once per such key, and show the tensors as for any file.
#[test]
fn metadata_values_that_are_not_strings_are_kept_as_json_text() {
    let values =
        serde_json::json!({"format": "pt", "step": 1200, "cfg": {"lr": 0.1}, "none": null});
    let header = format!(
        r#"{{"__metadata__":{values},{}}}"#,
        entry("w", "F32", "[2,2]", 0, 16)
    );
    let bytes = file(header.as_bytes(), 16);
    assert!(
        safetensors::SafeTensors::deserialize(&bytes).is_err(),
        "the reference refuses it"
    );
    let m = parse_bytes(&bytes).unwrap();
    assert!(m.error.is_none());
    assert_eq!(m.tensors.len(), 1);
    let obj = values.as_object().unwrap();
    let shown: Vec<(String, String)> = m
        .metadata
        .iter()
        .map(|e| (e.key.clone(), e.value.as_str().unwrap().to_string()))
        .collect();
    let want: Vec<(String, String)> = obj
        .iter()
        .map(|(k, v)| {
            (
                k.clone(),
                v.as_str().map_or_else(|| v.to_string(), str::to_string),
            )
        })
        .collect();
    assert_eq!(shown, want);
    let warned: Vec<String> = check(&m)
        .iter()
        .filter(|f| f.message.contains("not a string"))
        .map(|f| f.message.clone())
        .collect();
    let not_strings: Vec<&String> = obj
        .iter()
        .filter(|(_, v)| !v.is_string())
        .map(|(k, _)| k)
        .collect();
    assert_eq!(warned.len(), not_strings.len(), "{warned:?}");
    for (w, k) in warned.iter().zip(&not_strings) {
        assert!(w.starts_with(&format!("__metadata__.{k} ")), "{w}");
        assert!(w.contains("the safetensors library refuses"), "{w}");
    }
}
