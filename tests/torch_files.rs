//! Issue #12: PyTorch checkpoints, read without running them. The files that
//! `tests/reference/torch_fixtures.py` writes (zip-format state dicts and checkpoints, a
//! re-zipped archive, ZIP64, the legacy format, malicious pickles; under
//! `target/torch-fixtures` or `$WEIGHTPEEK_TORCH_FIXTURES`) and the real lpips (legacy) and
//! silero-vad (TorchScript) files list the tensors the script's reference reader (zipfile, an
//! inert Unpickler, numpy) finds: names, dtypes, shapes, byte sizes; and every contiguous
//! tensor's first values and last row, previewed here, equal the reference's. No expected
//! value is written here.

mod common;

use std::path::{Path, PathBuf};

use common::{open_model, run_cli};
use serde_json::Value as J;
use weightpeek::check::check_one_file as check;

fn fixtures() -> Option<PathBuf> {
    let dir = std::env::var_os("WEIGHTPEEK_TORCH_FIXTURES")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/torch-fixtures"));
    common::real_file(dir.join("expected.json")).map(|_| dir)
}

fn expected(dir: &Path) -> J {
    serde_json::from_slice(&std::fs::read(dir.join("expected.json")).unwrap()).unwrap()
}

#[test]
fn every_file_lists_the_reference_tensors_and_values() {
    let Some(dir) = fixtures() else { return };
    let doc = expected(&dir);
    let mut values = 0;
    for (file, f) in doc["files"].as_object().unwrap() {
        let path = PathBuf::from(f["path"].as_str().unwrap());
        let (m, mut src) = open_model(&path);
        assert!(m.error.is_none(), "{file}: {:?}", m.error);
        assert_eq!(m.format.name(), f["format"], "{file}");
        let want = f["tensors"].as_array().unwrap();
        let names: Vec<&str> = m.tensors.iter().map(|t| t.name.as_str()).collect();
        let want_names: Vec<&str> = want.iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(names, want_names, "{file}: tensor names in order");
        // Listing reads the pickles and the zip directory, never the storages.
        let storage_bytes: u64 = want.iter().map(|t| t["bytes"].as_u64().unwrap()).sum();
        let size = std::fs::metadata(&path).unwrap().len();
        assert!(
            src.bytes <= (256 << 10) * 2 || src.bytes < size - storage_bytes / 2,
            "{file}: read {} of {size} bytes to list",
            src.bytes
        );
        values += common::check_tensors(file, &m, &mut src, want);
    }
    assert!(values >= 60, "{values} tensors previewed");
}

/// Tensors sharing a storage (tied weights, a slice of another's storage) count it once in
/// the share of the file the weights take: the storages and bytes are those of the distinct
/// storages the script's torch-free reader finds named in the pickles (legacy.pth: 16 tensors
/// summed per tensor are more bytes than the file; its 14 storages are not), and no share of
/// the file shown is over 100%.
#[test]
fn shared_storages_count_once_in_the_share_of_the_file() {
    let Some(dir) = fixtures() else { return };
    let doc = expected(&dir);
    let mut shared = 0;
    for (file, f) in doc["files"].as_object().unwrap() {
        if f["optimizer_state"]["tensors"].as_u64() != Some(0) {
            continue; // the reference counts every storage, the optimizer state's too
        }
        let path = PathBuf::from(f["path"].as_str().unwrap());
        let (m, _) = open_model(&path);
        let totals = weightpeek::summary::storage_totals(&m).expect(file);
        assert_eq!(
            totals.storages,
            f["storages"]["count"].as_u64().unwrap(),
            "{file}"
        );
        assert_eq!(
            totals.bytes,
            f["storages"]["bytes"].as_u64().unwrap(),
            "{file}"
        );
        let s = weightpeek::summary::summarize(&m);
        let facts = weightpeek::view::facts::summary_facts(&s, &m);
        let detail = facts
            .iter()
            .find(|x| x.label == "tensor bytes")
            .and_then(|x| x.detail.clone())
            .unwrap();
        let pct: f64 = detail
            .rsplit(" · ")
            .next()
            .and_then(|p| p.strip_suffix("% of the file"))
            .unwrap_or_else(|| panic!("{file}: {detail}"))
            .parse()
            .unwrap();
        let want = totals.bytes as f64 * 100.0 / s.file_size as f64;
        assert!(
            (pct - want).abs() <= 0.05 && pct <= 100.0,
            "{file}: {detail}"
        );
        if totals.bytes != s.tensor_bytes {
            shared += 1;
            let per_tensor = f["tensors"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["bytes"].as_u64().unwrap())
                .sum::<u64>();
            assert_eq!(s.tensor_bytes, per_tensor, "{file}");
            assert!(
                detail.contains(" bytes summed per tensor; "),
                "{file}: {detail}"
            );
        }
    }
    assert!(shared >= 4, "{shared} files with shared storages");
}

/// The safety verdicts: the malicious pickles' dangerous imports are errors, with the byte of
/// the import; the clean files get the "nothing in it runs code" note; the imports listed are
/// the reference's (pickletools order is file order).
#[test]
fn dangerous_imports_are_errors_and_clean_files_say_so() {
    let Some(dir) = fixtures() else { return };
    let doc = expected(&dir);
    for (file, f) in doc["files"].as_object().unwrap() {
        let path = PathBuf::from(f["path"].as_str().unwrap());
        let (m, _) = open_model(&path);
        let a = m.archive().expect("an archive");
        let mut got: Vec<(String, String)> = a
            .imports()
            .map(|i| (i.module.clone(), i.name.clone()))
            .collect();
        let mut want: Vec<(String, String)> = f["imports"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                (
                    p[0].as_str().unwrap().to_string(),
                    p[1].as_str().unwrap().to_string(),
                )
            })
            .collect();
        got.sort();
        got.dedup();
        want.sort();
        want.dedup();
        assert_eq!(got, want, "{file}: imports");
        let findings = check(&m);
        let dangerous: Vec<_> = findings
            .iter()
            .filter(|f| f.code == "pickle-dangerous")
            .collect();
        if file.starts_with("malicious-") {
            assert!(!dangerous.is_empty(), "{file}: {findings:?}");
            assert!(dangerous.iter().all(|d| d.offset.is_some()));
        } else {
            assert!(dangerous.is_empty(), "{file}: {dangerous:?}");
        }
        if file.starts_with("malicious-import-only") {
            assert!(
                dangerous[0].message.contains("not called"),
                "{}",
                dangerous[0].message
            );
        }
        if file.ends_with(".pt") && !file.starts_with("malicious") || file.starts_with("lpips") {
            assert!(
                findings.iter().any(|f| f.code == "pickle-safe"),
                "{file}: {findings:?}"
            );
        }
    }
}

/// The CLI lists a checkpoint, exits 0, and its --check exits non-zero for a malicious one.
#[test]
fn the_cli_lists_and_checks_checkpoints() {
    let Some(dir) = fixtures() else { return };
    let sd = dir.join("state-dict.pt");
    let (code, out, err) = run_cli(&[sd.to_str().unwrap(), "--json"], None, None);
    assert_eq!(code, 0, "{err}");
    let j: J = serde_json::from_str(&out).unwrap();
    assert_eq!(j["format"], "pytorch");
    let bad = dir.join("malicious-os-system.pt");
    let (code, out, _) = run_cli(&[bad.to_str().unwrap(), "--check"], None, None);
    assert_ne!(code, 0, "{out}");
    assert!(out.contains("posix.system"), "{out}");
}

/// A training checkpoint's optimizer state (torch's `{"model", "optimizer"}`, Lightning's
/// `optimizer_states`, the nested checkpoint's one step) is counted apart, not in the
/// parameters: its tensors and values are those the reference finds in the optimizer state
/// dicts by the object's structure, and the parameters are every other tensor's elements.
#[test]
fn optimizer_state_is_not_parameters() {
    let Some(dir) = fixtures() else { return };
    let doc = expected(&dir);
    let mut with_state = 0;
    for (file, f) in doc["files"].as_object().unwrap() {
        if file == "big.pt" {
            continue;
        }
        let path = PathBuf::from(f["path"].as_str().unwrap());
        let (m, _) = common::open_model(&path);
        let s = weightpeek::summary::summarize(&m);
        let want = &f["optimizer_state"];
        let (tensors, values) = (
            want["tensors"].as_u64().unwrap(),
            want["values"].as_u64().unwrap(),
        );
        let got = s.optimizer_state.unwrap_or_default();
        assert_eq!((got.tensors, got.values), (tensors, values), "{file}");
        let all: u64 = f["tensors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                t["shape"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|d| d.as_u64().unwrap())
                    .product::<u64>()
            })
            .sum();
        assert_eq!(s.parameter_count, all - values, "{file}: parameters");
        if tensors > 0 {
            with_state += 1;
            let facts = weightpeek::view::facts::summary_facts(&s, &m);
            let fact = facts
                .iter()
                .find(|f| f.label == "optimizer state")
                .expect(file);
            assert_eq!(
                fact.value.as_deref(),
                Some(values.to_string().as_str()),
                "{file}"
            );
        }
    }
    assert!(
        with_state >= 3,
        "{with_state} checkpoints with optimizer state"
    );
}

/// Over HTTP Range (the Rust range server, whose log counts every byte sent): the 500 MB zip
/// checkpoint and the ZIP64 one list the reference tensors reading under 1 MiB in at most 3
/// requests; a preview reads its storage's local header and exactly its window.
#[test]
fn remote_checkpoints_list_from_a_few_ranges() {
    let Some(dir) = fixtures() else { return };
    let doc = expected(&dir);
    let server = common::range_server::Server::files(&dir);
    for file in ["big.pt", "zip64.pt", "legacy.pth"] {
        let Some(f) = doc["files"].get(file) else {
            assert!(
                file != "big.pt" || !common::required(),
                "big.pt missing: run torch_fixtures.py --big"
            );
            continue;
        };
        let url = format!("{}/{file}", server.url);
        let before = (server.requests().len(), server.bytes());
        let (code, out, err) = run_cli(&[&url, "--json"], None, None);
        assert_eq!(code, 0, "{file}: {err}");
        let j: J = serde_json::from_str(&out).unwrap();
        let names: Vec<&str> = j["tensors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        let want: Vec<&str> = f["tensors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, want, "{file}");
        let requests = server.requests().len() - before.0;
        let bytes = server.bytes() - before.1;
        assert!(bytes < 1 << 20, "{file}: {bytes} bytes to list");
        assert!(requests <= 3, "{file}: {requests} requests to list");
        let size = std::fs::metadata(dir.join(file)).unwrap().len();
        println!("{file}: listed {} tensors of a {size}-byte file from {requests} requests, {bytes} bytes", names.len());
        // A preview: the local header (when not read to list) and the window.
        let t = &f["tensors"][0];
        let name = t["name"].as_str().unwrap();
        let before = (server.requests().len(), server.bytes());
        let (code, out, err) = run_cli(&[&url, "--tensor", name, "--json"], None, None);
        assert_eq!(code, 0, "{file}: {err}");
        let p: J = serde_json::from_str(&out).unwrap();
        let window = p["window"]["read_len"].as_u64().unwrap();
        let first: Vec<String> = p["first_values"]
            .as_array()
            .unwrap()
            .iter()
            .take(8)
            .map(|v| v["text"].as_str().unwrap().to_string())
            .collect();
        assert!(!first.is_empty(), "{file}");
        for (v, w) in p["first_values"]
            .as_array()
            .unwrap()
            .iter()
            .zip(t["first"].as_array().unwrap())
        {
            let got = v["text"].as_str().unwrap().parse::<f64>().unwrap();
            assert_eq!(got as f32, common::float(w) as f32, "{file} {name}");
        }
        let listing_again = server.bytes() - before.1;
        let preview_requests = server.requests().len() - before.0 - requests;
        assert!(
            preview_requests <= 2,
            "{file}: {preview_requests} requests for the preview"
        );
        assert!(
            listing_again <= bytes + window + 1024,
            "{file}: {listing_again} bytes for listing + a {window}-byte window"
        );
    }
}

/// Files `torch.load` runs code from, shaped to slip past a scanner (tests/reference/
/// torch_fixtures.py `write_attacks`: a second data.pkl, another case, a deflated pickle, a
/// dotted path to os, a Python 2 module name, a name computed by a call, a plain pickle, a
/// protocol 0 pickle): every one has a dangerous import, and `--check` exits non-zero.
#[test]
fn attacks_that_hide_from_scanners_are_dangerous() {
    let Some(dir) = fixtures() else { return };
    let mut seen = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        if !name.starts_with("attack-") {
            continue;
        }
        let (m, _) = open_model(&path);
        let findings = check(&m);
        assert!(
            findings.iter().any(|f| f.code == "pickle-dangerous"),
            "{name}: {findings:?}"
        );
        assert_eq!(
            findings[0].code, "pickle-dangerous",
            "{name}: the first finding"
        );
        let (code, out, _) = run_cli(&[path.to_str().unwrap(), "--check"], None, None);
        assert_ne!(code, 0, "{name}: {out}");
        seen += 1;
    }
    assert!(seen >= 8, "{seen} attack files");
}

/// transformers' sharded checkpoints (`pytorch_model-0000N-of-0000M.bin` with
/// `pytorch_model.bin.index.json`) open as one model, from the index or from the parts: every
/// part's tensors as the reference reads them, in part order, their pickles judged, and a
/// tensor of the second part previews the reference's values from its own file.
#[test]
fn sharded_bin_checkpoints_open_as_one_model() {
    use weightpeek::open::native::LocalOpener;
    use weightpeek::open::read::{open, Options};
    use weightpeek::preview::{preview_tensor, WindowRequest};
    use weightpeek::source::block_on_ready;
    let Some(dir) = fixtures() else { return };
    let doc = expected(&dir);
    let shards = PathBuf::from(doc["sharded"]["dir"].as_str().unwrap());
    let parts = doc["sharded"]["parts"].as_object().unwrap();
    let want: Vec<&J> = parts.values().flat_map(|p| p.as_array().unwrap()).collect();
    let index = shards.join("pytorch_model.bin.index.json");
    let part_paths: Vec<String> = parts
        .keys()
        .map(|k| shards.join(k).display().to_string())
        .collect();
    for given in [vec![index.display().to_string()], part_paths] {
        let opened = block_on_ready(open(&LocalOpener, &given, Options::default())).unwrap();
        let m = &opened.model;
        assert_eq!(
            m.set.as_ref().map(|s| s.kind),
            Some("pytorch-shards"),
            "{given:?}"
        );
        let names: Vec<&str> = m.tensors.iter().map(|t| t.name.as_str()).collect();
        let want_names: Vec<&str> = want.iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(names, want_names, "{given:?}");
        assert_eq!(m.archive().unwrap().pickles.len(), 2);
        assert!(
            check(m).iter().any(|f| f.code == "pickle-safe"),
            "{given:?}"
        );
        // The first tensor of the second part, from its own file.
        let (second, tensors) = parts.iter().nth(1).unwrap();
        let t = &tensors[0];
        let name = t["name"].as_str().unwrap();
        let mut src = common::CountingFile::open(&shards.join(second));
        let p =
            block_on_ready(preview_tensor(m, &mut src, name, &WindowRequest::default())).unwrap();
        for (v, w) in p.first_values.iter().zip(t["first"].as_array().unwrap()) {
            assert!(
                common::same(common::kind_of(t["dtype"].as_str().unwrap()), v.value, w),
                "{name}"
            );
        }
    }
}
