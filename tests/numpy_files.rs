//! NumPy files (issue #12): the `.npy` and `.npz` files `tests/reference/numpy_fixtures.py`
//! writes with numpy (under `target/numpy-fixtures` or `$WEIGHTPEEK_NUMPY_FIXTURES`) list the
//! arrays numpy reads back, and every array stored as it is previews numpy's values (first
//! values and last row), deflated `.npz` members too (inflated up to the window); big-endian
//! arrays are listed, and their previews say why they are not shown. No expected value is
//! written here.

mod common;

use std::path::{Path, PathBuf};

use common::open_model;
use serde_json::Value as J;
use weightpeek::open::OpenedModel;
use weightpeek::source::block_on_ready;

fn fixtures() -> Option<PathBuf> {
    let dir = std::env::var_os("WEIGHTPEEK_NUMPY_FIXTURES")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/numpy-fixtures"));
    common::real_file(dir.join("expected.json")).map(|_| dir)
}

#[test]
fn every_array_lists_and_previews_numpys_values() {
    let Some(dir) = fixtures() else { return };
    let doc: J =
        serde_json::from_slice(&std::fs::read(dir.join("expected.json")).unwrap()).unwrap();
    let mut previewed = 0;
    for (file, f) in doc["files"].as_object().unwrap() {
        let (m, mut src) = open_model(&dir.join(file));
        assert!(m.error.is_none(), "{file}: {:?}", m.error);
        assert_eq!(m.format.name(), "numpy", "{file}");
        previewed += common::check_tensors(file, &m, &mut src, f["tensors"].as_array().unwrap());
    }
    // Every array and every structured array's field with reference values was compared.
    let with_values = |t: &J| usize::from(t.get("first").is_some());
    let expected: usize = doc["files"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|f| f["tensors"].as_array().unwrap())
        .map(|t| {
            with_values(t)
                + t["field_values"]
                    .as_array()
                    .map_or(0, |fs| fs.iter().map(with_values).sum())
        })
        .sum();
    assert_eq!(previewed, expected, "arrays and fields previewed");
    assert!(previewed >= 60, "{previewed} arrays and fields previewed");
}

/// Bits per weight are numpy's count: `arr.itemsize * 8` bits for each of `arr.size`
/// elements, over the arrays of numbers; a structured array's records (96-byte elements in
/// weights.npz) are not weights and claim none (the script's `bits_per_weight`; `null` for
/// an array without numbers, or none of them).
#[test]
fn bits_per_weight_count_elements_as_numpy_does() {
    let Some(dir) = fixtures() else { return };
    let doc = common::expected_json(&dir);
    let mut compared = 0;
    for (file, f) in doc["files"].as_object().unwrap() {
        let Some(want) = f.get("bits_per_weight") else {
            continue;
        };
        let (m, _) = open_model(&dir.join(file));
        let s = weightpeek::summary::summarize(&m);
        match want.as_f64() {
            Some(w) => {
                let got = s
                    .bits_per_weight
                    .unwrap_or_else(|| panic!("{file}: no bpw"));
                assert!(
                    (got - w).abs() <= 1e-12 * w,
                    "{file}: {got} bits per weight, numpy {w}"
                );
            }
            None => assert_eq!(s.bits_per_weight, None, "{file}"),
        }
        // A type whose values are not weights has no bits per weight in the dtype rows.
        for r in &s.dtypes {
            if r.dtype.starts_with('[') {
                assert_eq!(r.bits_per_weight, None, "{file}: {}", r.dtype);
            }
        }
        compared += 1;
    }
    assert!(compared >= 20, "{compared} files compared");
    // The figure's second line says what it is over.
    let detail = |file: &str| {
        let (m, _) = open_model(&dir.join(file));
        let s = weightpeek::summary::summarize(&m);
        weightpeek::view::facts::summary_facts(&s, &m)
            .into_iter()
            .find(|f| f.label == "bits per weight")
            .and_then(|f| f.detail)
            .unwrap()
    };
    assert_eq!(
        detail("weights.npz"),
        "bytes × 8 ÷ elements of the arrays of numbers (1 structured, text or object array \
         apart: its elements are not weights)"
    );
    assert_eq!(
        detail("records.npy"),
        "no arrays of numbers (structured, text or object arrays hold no weights)"
    );
    assert_eq!(detail("f32.npy"), "tensor bytes × 8 ÷ parameters");
    assert!(doc["files"]["weights.npz"]["bits_per_weight"].is_f64());
    assert!(doc["files"]["records.npy"]["bits_per_weight"].is_null());
}

/// A deflated `.npz` member (np.savez_compressed) previews by inflating its compressed bytes
/// from the member's start up to the window's end, in reads of at most
/// [`weightpeek::preview::INFLATE_READ`]: a first row reads one such chunk, the last row reads
/// the member up to it (never past its compressed size); the preview counts the compressed
/// bytes read and says so; values are numpy's.
#[test]
fn deflated_members_inflate_only_up_to_the_window() {
    use weightpeek::preview::{preview_tensor, WindowRequest, INFLATE_READ};
    let Some(dir) = fixtures() else { return };
    let doc: J =
        serde_json::from_slice(&std::fs::read(dir.join("expected.json")).unwrap()).unwrap();
    let file = "big-compressed.npz";
    let want = &doc["files"][file]["tensors"];
    let (m, mut src) = open_model(&dir.join(file));
    let listed = src.bytes;
    let (i, t) = m
        .tensors
        .iter()
        .enumerate()
        .find(|(_, t)| t.name == "big")
        .unwrap();
    let d = *m.archive().unwrap().deflated_of(i).unwrap();
    assert!(d.compressed > 4 * INFLATE_READ, "{d:?}");
    assert!(listed < d.compressed / 4, "listing read {listed} bytes");
    let w = want
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["name"] == "big")
        .unwrap();
    let rows = t.shape[0];
    for (req, most) in [
        (Some(0..1), INFLATE_READ),
        (Some(rows - 1..rows), d.compressed),
        (None, d.compressed),
    ] {
        let before = src.bytes;
        let p = block_on_ready(preview_tensor(
            &m,
            &mut src,
            "big",
            &WindowRequest {
                rows: req.clone(),
                cols: None,
                field: None,
            },
        ))
        .unwrap();
        let read = src.bytes - before;
        assert_eq!(p.bytes_read, read, "{req:?}");
        assert!(read <= most, "{req:?}: read {read} of {}", d.compressed);
        assert_eq!(
            p.read_note.as_deref(),
            Some(
                format!(
                    "deflated member: {} compressed bytes read",
                    weightpeek::text::thousands(read)
                )
                .as_str()
            )
        );
        let (key, want_values) = match &req {
            Some(r) if r.start > 0 => ("last_row", &w["last_row"]),
            _ => ("first", &w["first"]),
        };
        for (k, (v, want)) in p
            .first_values
            .iter()
            .zip(want_values.as_array().unwrap())
            .enumerate()
        {
            assert!(
                common::same("float", v.value, want),
                "{key} {k}: {v:?} vs {want}"
            );
        }
        println!("{req:?}: {read} compressed bytes read of {}", d.compressed);
    }
}

/// A damaged deflated member (bytes flipped in its compressed data, a central directory
/// that claims it is larger inflated): a preview is an error or other values, never a panic.
#[test]
fn damaged_deflated_members_are_errors() {
    use weightpeek::preview::{preview_tensor, WindowRequest};
    use weightpeek::source::{block_on_ready, parse_bytes};
    let Some(dir) = fixtures() else { return };
    let good = std::fs::read(dir.join("compressed.npz")).unwrap();
    let m = OpenedModel::from(parse_bytes(&good).unwrap());
    let a = m.archive().unwrap();
    let mut errors = 0;
    for d in &a.deflated {
        for flip in [0u64, 1, d.compressed / 2, d.compressed - 1] {
            let mut b = good.clone();
            b[(d.start + flip) as usize] ^= 0x5a;
            let path = std::env::temp_dir().join(format!("wp-damaged-{}-{flip}.npz", d.tensor));
            std::fs::write(&path, &b).unwrap();
            let mut src = common::CountingFile::open(&path);
            let name = &m.tensors[d.tensor].name;
            let r = block_on_ready(preview_tensor(
                &m,
                &mut src,
                name,
                &WindowRequest::default(),
            ));
            if let Err(e) = r {
                assert!(!e.to_string().is_empty());
                errors += 1;
            }
            assert!(src.bytes <= d.compressed);
            let _ = std::fs::remove_file(&path);
        }
    }
    assert!(errors > 0, "no damaged member was an error");
}

/// `.npy` headers as numpy reads them (issue #24): Python 2's long integers and `|O8`, keys in
/// another order with double quotes, format versions 2.0 and 3.0, structured dtypes (nested,
/// aligned with padding, titled), text, bytes, dates, 0-d arrays: each lists with numpy's
/// version, shape, item size and data start, a structured dtype with numpy's leaf fields and
/// their offsets (the padding left out), and object dtypes (a structured one with an object
/// field too) with their pickle.
#[test]
fn header_forms_read_as_numpy_reads_them() {
    let Some(dir) = fixtures() else { return };
    let doc = common::expected_json(&dir);
    let mut n = 0;
    for (file, f) in doc["files"].as_object().unwrap() {
        if !file.starts_with("headers/") {
            continue;
        }
        let (m, _) = open_model(&dir.join(file));
        assert!(m.error.is_none(), "{file}: {:?}", m.error);
        let w = &f["tensors"][0];
        let meta = |k: &str| {
            m.metadata
                .iter()
                .find(|e| e.key == k)
                .and_then(|e| e.value.as_str().map(str::to_string))
        };
        let v = &w["version"];
        assert_eq!(
            meta("numpy.format").unwrap(),
            format!("{}.{}", v[0], v[1]),
            "{file}"
        );
        let t = &m.tensors[0];
        let object = w["object"].as_bool().unwrap();
        assert_eq!(
            m.archive().unwrap().pickles.len(),
            usize::from(object),
            "{file}"
        );
        if !object {
            assert_eq!(Some(t.offset), w["data_start"].as_u64(), "{file}");
            assert_eq!(
                t.bytes,
                w["itemsize"].as_u64().map(|s| s * t.elements.unwrap()),
                "{file}"
            );
        }
        let fields = w["fields"].as_array().unwrap();
        let listed = meta("numpy.fields").unwrap_or_default();
        for fl in fields {
            let shape: Vec<u64> = fl[2]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d.as_u64().unwrap())
                .collect();
            let shape = if shape.is_empty() {
                String::new()
            } else {
                format!(" {shape:?}")
            };
            let text = format!(
                "{} {}{shape} at byte {}",
                fl[0].as_str().unwrap(),
                fl[1].as_str().unwrap(),
                fl[3]
            );
            assert!(listed.contains(&text), "{file}: {text} not in {listed}");
        }
        if fields.is_empty() {
            assert!(listed.is_empty(), "{file}: {listed}");
        } else if !object {
            assert_eq!(
                meta("numpy.itemsize").unwrap(),
                w["itemsize"].to_string(),
                "{file}"
            );
        }
        n += 1;
    }
    assert!(n >= 19, "{n} header forms");
    // Dtypes this tool does not decode: the finding and the preview's refusal name NumPy's
    // dtype and why, never safetensors.
    use weightpeek::preview::{preview_tensor, WindowRequest};
    for file in [
        "headers/text.npy",
        "headers/structured.npy",
        "headers/datetime.npy",
        "headers/py2-object.npy",
        "bigendian.npy",
    ] {
        let (m, mut src) = open_model(&dir.join(file));
        let findings = weightpeek::check::check_one_file(&m);
        let f = findings
            .iter()
            .find(|f| f.code == "unknown-type")
            .unwrap_or_else(|| panic!("{file}: {findings:?}"));
        assert!(f.message.contains("NumPy"), "{file}: {}", f.message);
        let e = block_on_ready(preview_tensor(
            &m,
            &mut src,
            "array",
            &WindowRequest::default(),
        ))
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("NumPy") && !e.contains("safetensors"),
            "{file}: {e}"
        );
        let path = dir.join(file);
        let (code, _, err) =
            common::run_cli(&[path.to_str().unwrap(), "--tensor", "array"], None, None);
        assert_ne!(code, 0, "{file}");
        assert!(
            err.contains("NumPy") && !err.contains("safetensors"),
            "{file}: {err}"
        );
    }
}

/// Object arrays (issue #24): the pickle after the header of an `.npy` file, a stored `.npz`
/// member or a deflated one is read (never run) and judged as a checkpoint's pickles are: the
/// imports pickletools finds, at the same offsets (absolute, or within the inflated member);
/// the ones whose elements call os.system, eval, exec, subprocess.Popen or runpy._run_code
/// are dangerous (an error finding each, the summary's verdict `dangerous`), the benign ones
/// (numbers, strings, dicts, a 0-d dict) safe, and the summary says loading them needs
/// `allow_pickle=True`. Reading the pickle is one read more than the header, at most.
/// picklescan's and fickling's verdicts on the same files are printed beside ours.
#[test]
fn object_array_pickles_are_judged_as_checkpoints_are() {
    use weightpeek::check::check_one_file as check;
    use weightpeek::format::pickle::Verdict;
    let Some(dir) = fixtures() else { return };
    let doc = common::expected_json(&dir);
    let (mut dangerous_files, mut safe_files) = (0, 0);
    for (file, f) in doc["files"].as_object().unwrap() {
        let Some(want) = f["pickles"].as_array() else {
            continue;
        };
        let (m, src) = open_model(&dir.join(file));
        assert!(m.error.is_none(), "{file}: {:?}", m.error);
        let a = m.archive().unwrap();
        assert_eq!(a.pickles.len(), want.len(), "{file}");
        for (p, w) in a.pickles.iter().zip(want) {
            assert_eq!(p.name, w["name"].as_str().unwrap(), "{file}");
            assert_eq!(Some(p.offset), w["offset"].as_u64(), "{file}");
            assert_eq!(Some(p.len), w["len"].as_u64(), "{file}");
            let got: Vec<J> = p
                .imports
                .iter()
                .map(|i| {
                    serde_json::json!({"module": i.module, "name": i.name, "offset": i.offset,
                                       "opcode": i.opcode})
                })
                .collect();
            let exp = w["imports"].as_array().unwrap();
            assert_eq!(&got, exp, "{file}: {}", p.name);
        }
        let findings = check(&m);
        let fact = weightpeek::view::facts::pickle_fact(a);
        let detail = fact.detail.clone().unwrap_or_default();
        assert!(detail.contains("allow_pickle=True"), "{file}: {detail}");
        let worst = a.imports().map(|i| i.verdict).max();
        let errors: Vec<_> = findings
            .iter()
            .filter(|x| x.code == "pickle-dangerous")
            .collect();
        if f["intent"] == "malicious" {
            assert_eq!(worst, Some(Verdict::Dangerous), "{file}");
            assert_eq!(fact.text, "dangerous", "{file}");
            let bad = a
                .imports()
                .filter(|i| i.verdict == Verdict::Dangerous)
                .count();
            assert_eq!(errors.len(), bad, "{file}");
            dangerous_files += 1;
        } else if f["intent"] == "unknown" {
            // A class neither known to rebuild a value nor known to run code: a warning.
            assert_eq!(worst, Some(Verdict::Unknown), "{file}");
            assert_eq!(fact.text, "unknown imports", "{file}");
            assert!(errors.is_empty(), "{file}: {errors:?}");
            assert!(
                findings.iter().any(|x| x.code == "pickle-unknown"),
                "{file}"
            );
        } else {
            assert_eq!(worst, Some(Verdict::Safe), "{file}");
            assert_eq!(fact.text, "safe", "{file}");
            assert!(errors.is_empty(), "{file}: {errors:?}");
            assert!(findings.iter().any(|x| x.code == "pickle-safe"), "{file}");
            safe_files += 1;
        }
        if file.ends_with(".npy") {
            // The header's read, then (when the first read did not hold it) the pickle's:
            // from the data to the file's end, once.
            let size = std::fs::metadata(dir.join(file)).unwrap().len();
            assert!(src.reads.len() <= 2, "{file}: {:?}", src.reads);
            assert_eq!(src.bytes, size, "{file}");
            if file.contains("big-strings") {
                assert_eq!(src.reads.len(), 2, "{file}: {:?}", src.reads);
            }
        }
        println!(
            "{file}: ours {:?}; picklescan dangerous {}, fickling {}",
            worst.unwrap(),
            f["picklescan"]["dangerous"],
            f["fickling"]["severity"]
        );
    }
    assert!(dangerous_files >= 7, "{dangerous_files} dangerous files");
    assert!(safe_files >= 9, "{safe_files} safe files");
}

/// The CLI (issue #24): `--json` lists a malicious object array's pickle with its dangerous
/// import and an error finding, `--check` exits 1; a benign one's verdicts are all safe and
/// `--check` exits 0. Remotely (the range server), the same pickles and verdicts, in at most
/// one request more than a plain array of the same layout takes.
#[test]
fn the_cli_judges_object_arrays_locally_and_remotely() {
    let Some(dir) = fixtures() else { return };
    let doc = common::expected_json(&dir);
    let server = common::range_server::Server::files(&dir);
    let plain_requests = {
        let before = server.requests().len();
        let (code, _, err) =
            common::run_cli(&[&format!("{}/f32.npy", server.url), "--json"], None, None);
        assert_eq!(code, 0, "{err}");
        server.requests().len() - before
    };
    let (mut checked, mut twins) = (0, 0);
    for (file, f) in doc["files"].as_object().unwrap() {
        if !file.starts_with("objects/") {
            continue;
        }
        let malicious = f["intent"] == "malicious";
        let path = dir.join(file);
        let url = format!("{}/{file}", server.url);
        for (target, remote) in [(path.to_str().unwrap(), false), (url.as_str(), true)] {
            let before = server.requests().len();
            let (code, out, err) = common::run_cli(&[target, "--json"], None, None);
            assert_eq!(code, 0, "{file}: {err}");
            let requests = server.requests().len() - before;
            let j: J = serde_json::from_str(&out).unwrap();
            // Every import's verdict, of every pickle.
            let pickles = j["pickles"].as_array().into_iter().flatten();
            let imports = pickles.flat_map(|p| p["imports"].as_array().into_iter().flatten());
            let verdicts: Vec<&str> = imports.filter_map(|i| i["verdict"].as_str()).collect();
            assert_eq!(
                verdicts.contains(&"dangerous"),
                malicious,
                "{file}: {verdicts:?}"
            );
            if f["intent"] == "benign" {
                assert!(verdicts.iter().all(|v| *v == "safe"), "{file}");
            }
            let dangerous = j["findings"]
                .as_array()
                .unwrap()
                .iter()
                .any(|x| x["code"] == "pickle-dangerous" && x["severity"] == "error");
            assert_eq!(dangerous, malicious, "{file}");
            if remote && file.ends_with(".npy") {
                assert!(
                    requests <= plain_requests + 1,
                    "{file}: {requests} requests (a plain array takes {plain_requests})"
                );
            }
            if remote && file.ends_with("big-objects.npz") {
                // Its twin has plain arrays of the same sizes where its object arrays are.
                let before = server.requests().len();
                let twin = format!("{}/big-objects-twin.npz", server.url);
                let (code, _, err) = common::run_cli(&[&twin, "--json"], None, None);
                assert_eq!(code, 0, "{err}");
                let plain = server.requests().len() - before;
                assert!(
                    requests <= plain + 1,
                    "{file}: {requests} requests, its twin {plain}"
                );
                println!("{file}: {requests} requests, its plain twin {plain}");
                twins += 1;
            }
            let (code, out, _) = common::run_cli(&[target, "--check"], None, None);
            assert_eq!(code, i32::from(malicious), "{file}: {out}");
        }
        checked += 1;
    }
    assert!(checked >= 14, "{checked} object files");
    assert_eq!(twins, 1);
}

/// An `.npy` file of format 2.0 with this header text (padded, newline-ended) and bytes after.
fn npy_v2(header: &str, tail: &[u8]) -> Vec<u8> {
    let mut h = header.as_bytes().to_vec();
    h.push(b'\n');
    let mut b = b"\x93NUMPY\x02\x00".to_vec();
    b.extend((h.len() as u32).to_le_bytes());
    b.extend(h);
    b.extend_from_slice(tail);
    b
}

/// Hostile `.npy` headers and object arrays (issue #24): a descr nested 100,000 levels, 5,000
/// fields, 65 dimensions, a shape whose product overflows 64 bits, Python 2's `L` in a format
/// 3.0 header (numpy refuses it there), a pickle with a length past the file, and every cut of
/// the object-array fixtures: each is an error with its offset (or, for the overflowing shape,
/// a listing with an error finding) within a second, never a panic.
#[test]
fn hostile_headers_and_pickles_are_errors_not_panics() {
    use weightpeek::source::parse_bytes;
    let t0 = std::time::Instant::now();
    let deep = format!(
        "{{'descr': {}'<f4'{}, 'fortran_order': False, 'shape': (1,), }}",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let fields: Vec<String> = (0..5000).map(|i| format!("('f{i}', '<f4')")).collect();
    let many = format!(
        "{{'descr': [{}], 'fortran_order': False, 'shape': (1,), }}",
        fields.join(", ")
    );
    let dims = format!(
        "{{'descr': '<f4', 'fortran_order': False, 'shape': ({}), }}",
        "1, ".repeat(65)
    );
    let mut v3 = npy_v2(
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2L,), }",
        &[0; 8],
    );
    v3[6] = 3;
    for (label, b, says) in [
        ("deep", npy_v2(&deep, &[]), "nested deeper"),
        ("many", npy_v2(&many, &[0; 20000]), "more than 4096 fields"),
        ("dims", npy_v2(&dims, &[0; 4]), "more than 64 dimensions"),
        ("v3 long", v3, "expected ',' or a closing bracket"),
        (
            "pickle past the end",
            npy_v2(
                "{'descr': '|O', 'fortran_order': False, 'shape': (1,), }",
                b"\x80\x02X\xff\xff\xff\x7fab",
            ),
            "object array pickle",
        ),
    ] {
        let m = parse_bytes(&b).unwrap();
        let e = m.error.unwrap_or_else(|| panic!("{label}: no error"));
        assert!(e.to_string().contains(says), "{label}: {e}");
        assert!(e.offset <= b.len() as u64, "{label}: {e}");
    }
    let huge = npy_v2(
        "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }",
        &[0; 16],
    );
    let m = OpenedModel::from(parse_bytes(&huge).unwrap());
    assert!(m.error.is_none());
    assert_eq!(m.tensors[0].elements, None);
    let findings = weightpeek::check::check_one_file(&m);
    assert!(
        findings.iter().any(|f| f.code == "elements-overflow"),
        "{findings:?}"
    );
    assert!(t0.elapsed().as_secs_f64() < 1.0, "{:?}", t0.elapsed());
    // Every cut of the object arrays and header forms: a listing or an error, never a panic.
    let Some(dir) = fixtures() else { return };
    let mut cuts = 0;
    for sub in ["objects", "headers"] {
        for f in std::fs::read_dir(dir.join(sub)).unwrap() {
            let b = std::fs::read(f.unwrap().path()).unwrap();
            if b.len() > 64 << 10 {
                continue;
            }
            for cut in (0..b.len()).step_by(1 + b.len() / 300) {
                if let Ok(m) = parse_bytes(&b[..cut]) {
                    let _ = weightpeek::check::check_one_file(&m);
                    let _ = weightpeek::summary::summarize(&m.into());
                }
                cuts += 1;
            }
        }
    }
    assert!(cuts > 3000, "{cuts} cuts");
}

/// An `.npz` member compressed with bzip2 (numpy's zipfile reads it, and np.load would unpickle
/// the object array in it; this tool does not inflate bzip2): an error saying its safety is not
/// known, and `--check` exits 1 — never a clean verdict.
#[test]
fn a_member_this_tool_cannot_read_is_not_called_safe() {
    let Some(dir) = fixtures() else { return };
    let path = dir.join("bzip2-object.npz");
    let (m, _) = open_model(&path);
    let e = m.model.error.expect("an error");
    assert!(e.to_string().contains("is not known"), "{e}");
    assert!(e.to_string().contains("allow_pickle=True"), "{e}");
    let (code, out, _) = common::run_cli(&[path.to_str().unwrap(), "--check"], None, None);
    assert_eq!(code, 1, "{out}");
}

/// A structured array's field (issue #24, item 4) reads only the elements covering its
/// window, in one read: row 39 of `records['pos.y']` (3 values, one per element of the last
/// row) reads 3 elements of numpy's item size, at the offset numpy's header gives; its values
/// are numpy's. The CLI's `--field` gives the same preview, names the fields when asked for
/// one that does not exist, and refuses a text field and a plain array's field in words.
#[test]
fn a_field_window_reads_only_the_elements_covering_it() {
    use weightpeek::preview::{preview_tensor, WindowRequest};
    let Some(dir) = fixtures() else { return };
    let doc = common::expected_json(&dir);
    let w = &doc["files"]["records.npy"]["tensors"][0];
    let item = w["bytes"].as_u64().unwrap() / 120;
    let y = w["field_values"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["field"] == "pos.y")
        .unwrap();
    let (m, mut src) = open_model(&dir.join("records.npy"));
    src.bytes = 0;
    src.reads.clear();
    let req = WindowRequest {
        rows: Some(39..40),
        field: Some("pos.y".into()),
        ..Default::default()
    };
    let p = block_on_ready(preview_tensor(&m, &mut src, "array", &req)).unwrap();
    assert_eq!(
        src.reads,
        vec![(m.tensors[0].offset + 39 * 3 * item, 3 * item)]
    );
    assert_eq!(p.bytes_read, 3 * item);
    let got: Vec<J> = p
        .first_values
        .iter()
        .map(|v| J::String(v.text.clone()))
        .collect();
    assert_eq!(&got, y["last_row"].as_array().unwrap());
    // The CLI: the same values, and errors in words.
    let path = dir.join("records.npy");
    let path = path.to_str().unwrap();
    let (code, out, err) = common::run_cli(
        &[
            path, "--tensor", "array", "--field", "pos.y", "--rows", "39", "--json",
        ],
        None,
        None,
    );
    assert_eq!(code, 0, "{err}");
    let cli: J = serde_json::from_str(&out).unwrap();
    assert_eq!(cli["field"], "pos.y");
    assert_eq!(cli["bytes_read"], 3 * item);
    let texts: Vec<&J> = cli["first_values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| &v["text"])
        .collect();
    assert_eq!(
        texts,
        y["last_row"].as_array().unwrap().iter().collect::<Vec<_>>()
    );
    for (args, words) in [
        (
            vec!["--field", "nope"],
            "its fields are w, id, ok, pos.x, pos.y, tag, z",
        ),
        (vec!["--field", "tag"], "NumPy dtype <U3"),
        (vec![], "preview one field at a time"),
    ] {
        let mut a = vec![path, "--tensor", "array"];
        a.extend(args);
        let (code, _, err) = common::run_cli(&a, None, None);
        assert_eq!(code, 2, "{a:?}");
        assert!(err.contains(words), "{a:?}: {err}");
    }
    // The page's field menu: every field, those numpy's reference marks previewable enabled,
    // and the first of them shown by default.
    let options = weightpeek::view::preview::field_options(&m, 0);
    let fields = w["field_values"].as_array().unwrap();
    let got: Vec<(&str, bool)> = options
        .iter()
        .map(|o| (o.name.as_str(), o.enabled))
        .collect();
    let want: Vec<(&str, bool)> = fields
        .iter()
        .map(|f| (f["field"].as_str().unwrap(), f["previewable"] == true))
        .collect();
    assert_eq!(got, want);
    assert_eq!(
        weightpeek::preview::default_field(&m, 0),
        want.iter().find(|(_, ok)| *ok).map(|(n, _)| *n)
    );
    let plain = dir.join("f32.npy");
    let (code, _, err) = common::run_cli(
        &[plain.to_str().unwrap(), "--tensor", "array", "--field", "x"],
        None,
        None,
    );
    assert_eq!(code, 2);
    assert!(err.contains("not a NumPy structured array"), "{err}");
}
