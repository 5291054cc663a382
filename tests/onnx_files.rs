//! Issue #12: ONNX models. The files `tests/reference/onnx_fixtures.py` writes with the `onnx`
//! package (every data type, the data fields, external data, sparse initializers, subgraphs,
//! many small constants, large initializers; under `target/onnx-fixtures` or
//! `$WEIGHTPEEK_ONNX_FIXTURES`) and the six real silero-vad exports list the tensors the
//! `onnx` package finds, in the same order, with their dtypes, shapes, byte sizes and the
//! models' metadata; every tensor stored in place previews the values numpy reads (first
//! values and last row), the others refuse with their reason; listing never reads the skipped
//! payloads (fewer bytes than the file, within the driver's reads). The silero-vad weights that are
//! the same in the ONNX exports, the TorchScript archive and the safetensors file preview the
//! same values in all three. Hostile inputs (every cut, lengths past the end, long varints,
//! deep nesting, huge counts) give errors, never a panic. No expected value is written here.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{open_model, CountingFile};
use serde_json::Value as J;
use weightpeek::format::Value;
use weightpeek::open::OpenedModel;
use weightpeek::preview::{preview_tensor, Preview, PreviewError, WindowRequest};
use weightpeek::source::{block_on_ready, parse_bytes, MAX_ZIP_READS};

fn fixtures() -> Option<PathBuf> {
    let dir = std::env::var_os("WEIGHTPEEK_ONNX_FIXTURES")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/onnx-fixtures"));
    common::real_file(dir.join("expected.json")).map(|_| dir)
}

fn expected(dir: &Path) -> J {
    serde_json::from_slice(&std::fs::read(dir.join("expected.json")).unwrap()).unwrap()
}

fn meta_text(v: &Value) -> String {
    match v {
        Value::String(t) => t.text.clone(),
        Value::I64(i) => i.to_string(),
        Value::U64(u) => u.to_string(),
        other => format!("{other:?}"),
    }
}

fn preview(
    m: &OpenedModel,
    src: &mut CountingFile,
    name: &str,
    rows: Option<std::ops::Range<u64>>,
) -> Result<Preview, PreviewError> {
    let req = WindowRequest {
        rows,
        cols: None,
        field: None,
    };
    block_on_ready(preview_tensor(m, src, name, &req))
}

/// The default window and the last row of tensor `name`.
fn windows(m: &OpenedModel, src: &mut CountingFile, name: &str) -> (Preview, Preview) {
    let first = preview(m, src, name, None).unwrap_or_else(|e| panic!("{name}: {e}"));
    let last = first.window.geometry.rows - 1;
    let row = preview(m, src, name, Some(last..last + 1)).unwrap();
    (first, row)
}

#[test]
fn every_file_lists_the_reference_tensors_and_values() {
    let Some(dir) = fixtures() else { return };
    let doc = expected(&dir);
    let (mut previewed, mut refused) = (0, 0);
    for (file, f) in doc["files"].as_object().unwrap() {
        let path = PathBuf::from(f["path"].as_str().unwrap());
        let (m, mut src) = open_model(&path);
        assert!(m.error.is_none(), "{file}: {:?}", m.error);
        assert_eq!(m.format.name(), "onnx", "{file}");
        let size = f["size"].as_u64().unwrap();
        assert_eq!(m.file_size, size, "{file}");
        // Listing skips the payloads: at most the driver's reads, fewer bytes than the file.
        let reads = src.reads.len() as u32;
        assert!(reads <= 1 + MAX_ZIP_READS, "{file}: {reads} reads");
        if size > 256 << 10 {
            assert!(
                src.bytes < size,
                "{file}: read {} of {size} bytes",
                src.bytes
            );
        }
        println!(
            "{file}: {} tensors from {reads} reads, {} of {size} bytes; header {}",
            m.tensors.len(),
            src.bytes,
            m.header_size
        );
        let meta: Vec<(String, String)> = m
            .metadata
            .iter()
            .map(|e| (e.key.clone(), meta_text(&e.value)))
            .collect();
        let want_meta: Vec<(String, String)> = f["metadata"]
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
        assert_eq!(meta, want_meta, "{file}: metadata");
        let want = f["tensors"].as_array().unwrap();
        let listed = src.bytes;
        // Names in order, dtypes, shapes, bytes, and the values of every previewable tensor.
        previewed += common::check_tensors(file, &m, &mut src, want);
        let info = m.onnx().expect("ONNX facts");
        for (i, (t, w)) in m.tensors.iter().zip(want).enumerate() {
            let label = format!("{file} {}", t.name);
            assert_eq!(t.elements, w["elements"].as_u64(), "{label}: elements");
            assert!(t.note.is_none(), "{label}: {:?}", t.note);
            let (source, depth) = info.sources[i];
            assert_eq!(format!("{source:?}"), w["source"], "{label}");
            assert_eq!(u64::from(depth), w["depth"].as_u64().unwrap(), "{label}");
            let in_place = w["previewable"].as_bool().unwrap();
            assert_eq!(info.not_in_place(i).is_none(), in_place, "{label}");
            let p = preview(&m, &mut src, &t.name, None);
            if !in_place {
                // The preview names the reason (varint, external, sparse, strings).
                let e = p.unwrap_err();
                let why = w["why"].as_str().unwrap();
                assert!(e.to_string().contains(why), "{label}: {e}");
                refused += 1;
            } else if w.get("first").is_none() {
                // Unknown or undecodable dtypes, odd F4 rows: refused; empty tensors: 0 values.
                match p {
                    Ok(p) => assert_eq!((t.elements, p.stats.count), (Some(0), 0), "{label}"),
                    Err(e) => assert!(t.elements != Some(0), "{label}: {e}"),
                }
            }
        }
        // A preview reads its window (the reads after listing), never re-lists.
        assert!(src.bytes >= listed);
    }
    println!("{previewed} tensors previewed, {refused} refused as not in place");
    assert!(previewed >= 400, "{previewed} previewed");
    assert!(refused >= 10, "{refused} refused");
}

/// The silero-vad weights stored in several formats (ONNX exports, the TorchScript archive,
/// the safetensors file; matched by the reference by dtype, shape and values) preview the
/// same values in each.
#[test]
fn the_same_weights_preview_alike_across_formats() {
    let Some(dir) = fixtures() else { return };
    let doc = expected(&dir);
    let silero = common::data_dir().join("silero-vad");
    let mut opened: BTreeMap<String, (OpenedModel, CountingFile)> = BTreeMap::new();
    let groups = doc["same"].as_array().unwrap();
    let mut all_three = 0;
    for g in groups {
        let members = g["members"].as_array().unwrap();
        let mut seen: Vec<(String, Vec<String>, Vec<String>)> = Vec::new();
        for mem in members {
            let (file, name) = (mem[0].as_str().unwrap(), mem[1].as_str().unwrap());
            let (m, src) = opened.entry(file.to_string()).or_insert_with(|| {
                let path = doc["files"].get(file).map_or_else(
                    || silero.join(file),
                    |f| PathBuf::from(f["path"].as_str().unwrap()),
                );
                open_model(&path)
            });
            let t = m
                .tensors
                .iter()
                .find(|t| t.name == name)
                .unwrap_or_else(|| panic!("{file}: {name}"));
            assert_eq!(t.dtype.label(), g["dtype"], "{file} {name}");
            let (p, row) = windows(m, src, name);
            let text = |p: &Preview| {
                p.first_values
                    .iter()
                    .map(|v| format!("{:?}", v.value))
                    .collect::<Vec<_>>()
            };
            seen.push((file.to_string(), text(&p), text(&row)));
        }
        for (file, first, last) in &seen[1..] {
            assert_eq!(
                first, &seen[0].1,
                "{file} vs {}: {:?}",
                seen[0].0, g["shape"]
            );
            assert_eq!(last, &seen[0].2, "{file} vs {}: last row", seen[0].0);
        }
        let exts: std::collections::BTreeSet<&str> = seen
            .iter()
            .filter_map(|(f, _, _)| Path::new(f).extension().and_then(|e| e.to_str()))
            .collect();
        if exts.len() == 3 {
            all_three += 1;
        }
    }
    println!(
        "{} groups compared, {all_three} in all three formats",
        groups.len()
    );
    assert!(groups.len() >= 20, "{} groups", groups.len());
    assert!(all_three >= 1);
}

/// Local files through the engine's opener contract, each source counting its reads; only
/// the files named in `beside` can be found without being given.
struct Counting {
    beside: Vec<String>,
}

impl weightpeek::open::read::Opener for Counting {
    type Source = CountingFile;
    fn policy(&self) -> weightpeek::source::ReadPolicy {
        weightpeek::source::ReadPolicy::LOCAL
    }
    fn available(&self, name: &str) -> bool {
        self.beside.iter().any(|b| b == name) && Path::new(name).is_file()
    }
    async fn open(
        &self,
        name: &str,
        _first: u64,
    ) -> Result<CountingFile, weightpeek::source::SourceError> {
        Ok(CountingFile::open(Path::new(name)))
    }
    async fn open_unread(
        &self,
        name: &str,
    ) -> Result<CountingFile, weightpeek::source::SourceError> {
        Ok(CountingFile::open(Path::new(name)))
    }
    async fn read_all(
        &self,
        name: &str,
        _cap: u64,
    ) -> Result<Vec<u8>, weightpeek::source::SourceError> {
        Ok(std::fs::read(name).unwrap())
    }
}

fn open_with(names: &[String], beside: &[String]) -> weightpeek::open::read::Opened<CountingFile> {
    let opener = Counting {
        beside: beside.to_vec(),
    };
    block_on_ready(weightpeek::open::read::open(
        &opener,
        names,
        weightpeek::open::read::Options::default(),
    ))
    .unwrap()
}

/// External data (issue #12): the side file found beside the model, or given with it in
/// either order, is opened without reading any of it; a preview of an external tensor reads
/// exactly its window from the side file and shows the values the `onnx` package reads
/// (load_external_data_for_tensor, to_array), first values and last row; the tensors the
/// package refuses (bytes past the side file's end, a location outside the folder) are
/// refused with a finding, never read elsewhere. Without its side file, the previews name it.
#[test]
fn external_data_previews_from_its_side_file() {
    let Some(dir) = fixtures() else { return };
    let doc = expected(&dir);
    let (mut previewed, mut refused) = (0, 0);
    for (file, f) in doc["files"].as_object().unwrap() {
        let want = f["tensors"].as_array().unwrap();
        if !want.iter().any(|t| t.get("external").is_some()) {
            continue;
        }
        let path = f["path"].as_str().unwrap().to_string();
        let sides: Vec<String> = want
            .iter()
            .filter_map(|t| t["external"]["location"].as_str())
            .map(|l| format!("{}/{l}", dir.display()))
            .collect();
        // Found beside the model; given with it (after or before).
        let given_side = sides.first().cloned().unwrap();
        for (names, beside) in [
            (vec![path.clone()], sides.clone()),
            (vec![path.clone(), given_side.clone()], vec![]),
            (vec![given_side.clone(), path.clone()], vec![]),
        ] {
            let mut o = open_with(&names, &beside);
            let m = &o.model;
            assert!(m.error.is_none(), "{file}: {:?}", m.error);
            // A side file given is part of the model, not a stray (one outside the folder
            // is never opened: it stays a stray).
            let escapes = sides.iter().any(|s| s.contains("/../") || s.contains("//"));
            assert_eq!(
                m.set.as_ref().is_none_or(|s| s.strays.is_empty()),
                !escapes || names.len() == 1,
                "{file}: {:?}",
                m.set
            );
            // Listing read none of any side file.
            assert!(o.sources[1..].iter().all(|s| s.bytes == 0), "{file}");
            let findings = weightpeek::check::check_one_file(m);
            for (i, (t, w)) in m.tensors.iter().zip(want).enumerate() {
                if w.get("external").is_none() {
                    continue;
                }
                let label = format!("{file} {} ({names:?})", t.name);
                let at = m.source_of(i);
                let src = &mut o.sources[at];
                let before = src.bytes;
                let r = preview(m, src, &t.name, None);
                if let Some(why) = w["side_refused"].as_str() {
                    let e = r.unwrap_err().to_string();
                    assert!(src.bytes == before, "{label}: read {}", src.bytes - before);
                    let code = if why.contains("outside the directory") || why.contains("absolute")
                    {
                        "onnx-external-location"
                    } else {
                        "onnx-external-beyond-eof"
                    };
                    assert!(
                        findings
                            .iter()
                            .any(|f| f.code == code && f.tensor.as_deref() == Some(&t.name)),
                        "{label}: {e}; {findings:?}"
                    );
                    refused += 1;
                    continue;
                }
                assert!(at >= 1, "{label}: previewed from the model file");
                let p = r.unwrap_or_else(|e| panic!("{label}: {e}"));
                // Exactly the window, from the side file.
                assert_eq!(src.bytes - before, p.window.read_len, "{label}");
                assert_eq!(p.bytes_read, p.window.read_len, "{label}");
                let kind = common::kind_of(w["dtype"].as_str().unwrap());
                let first = w["side_first"].as_array().unwrap();
                assert_eq!(p.first_values.len(), first.len(), "{label}");
                for (v, want) in p.first_values.iter().zip(first) {
                    assert!(
                        common::same(kind, v.value, want),
                        "{label}: {v:?} vs {want}"
                    );
                }
                let last = p.window.geometry.rows - 1;
                let row = preview(m, &mut o.sources[at], &t.name, Some(last..last + 1)).unwrap();
                for (v, want) in row
                    .first_values
                    .iter()
                    .zip(w["side_last_row"].as_array().unwrap())
                {
                    assert!(
                        common::same(kind, v.value, want),
                        "{label}: last row {v:?} vs {want}"
                    );
                }
                previewed += 1;
            }
        }
        // Alone, with nothing beside it: listed; each preview names its side file.
        let o = open_with(std::slice::from_ref(&path), &[]);
        let m = &o.model;
        assert_eq!(o.sources.len(), 1, "{file}");
        let findings = weightpeek::check::check_one_file(m);
        for (t, w) in m.tensors.iter().zip(want) {
            let Some(loc) = w["external"]["location"].as_str() else {
                continue;
            };
            let e = block_on_ready(preview_tensor(
                m,
                &mut CountingFile::open(Path::new(&path)),
                &t.name,
                &WindowRequest::default(),
            ))
            .unwrap_err()
            .to_string();
            let file_part = loc.trim_start_matches("./");
            assert!(e.contains(file_part), "{file} {}: {e}", t.name);
        }
        if want.iter().any(|t| t.get("side_first").is_some()) {
            assert!(
                findings
                    .iter()
                    .any(|f| f.code == "onnx-external-not-opened"),
                "{file}: {findings:?}"
            );
        }
    }
    println!("{previewed} external previews, {refused} refused");
    assert!(previewed >= 12, "{previewed}");
    assert!(refused >= 6, "{refused}");
}

/// Over HTTP Range (the range server's log counts every byte): a model URL lists without any
/// request for its side files; a preview of an external tensor is one ranged GET of exactly
/// its window of the sibling URL, with the onnx package's values; a tensor past the side
/// file's end is refused (from the one answer that gives the side file's size).
#[test]
fn remote_external_data_reads_only_the_window() {
    let Some(dir) = fixtures() else { return };
    let doc = expected(&dir);
    let server = common::range_server::Server::files(&dir);
    for file in [
        "external.onnx",
        "external-sub.onnx",
        "external-outside.onnx",
    ] {
        let url = format!("{}/{file}", server.url);
        let start = server.requests().len();
        let (code, out, err) = common::run_cli(&[&url, "--json"], None, None);
        assert_eq!(code, 0, "{file}: {err}");
        let j: J = serde_json::from_str(&out).unwrap();
        let want = doc["files"][file]["tensors"].as_array().unwrap();
        assert_eq!(j["tensors"].as_array().unwrap().len(), want.len(), "{file}");
        let side_requests = |from: usize| -> Vec<common::range_server::Logged> {
            server.requests()[from..]
                .iter()
                .filter(|r| !r.path.ends_with(".onnx"))
                .cloned()
                .collect()
        };
        assert!(
            side_requests(start).is_empty(),
            "{file}: {:?}",
            side_requests(start)
        );
        for w in want.iter().filter(|w| w.get("external").is_some()) {
            let name = w["name"].as_str().unwrap();
            let before = server.requests().len();
            let (code, out, err) = common::run_cli(&[&url, "--tensor", name, "--json"], None, None);
            let side = side_requests(before);
            if w.get("side_refused").is_some() {
                // The side file's size is learnt from this one answer (nothing was asked of
                // it to list): the bytes it holds of the range are dropped, the rest never
                // asked for.
                assert_ne!(code, 0, "{file} {name}: {out}");
                let loc = w["external"]["location"].as_str().unwrap();
                let size = std::fs::metadata(dir.join(loc)).unwrap().len();
                let says = format!("past the end of the {size}-byte file");
                assert!(err.contains(&says), "{file} {name}: {err}");
                assert!(side.len() <= 1, "{file} {name}: {side:?}");
                continue;
            }
            assert_eq!(code, 0, "{file} {name}: {err}");
            let p: J = serde_json::from_str(&out).unwrap();
            let window = p["window"]["read_len"].as_u64().unwrap();
            assert_eq!(side.len(), 1, "{file} {name}: {side:?}");
            assert_eq!(side[0].bytes, window, "{file} {name}");
            let loc = w["external"]["location"]
                .as_str()
                .unwrap()
                .trim_start_matches("./");
            assert!(side[0].path.ends_with(loc), "{:?}", side[0]);
            let kind = common::kind_of(w["dtype"].as_str().unwrap());
            for (v, want) in p["first_values"]
                .as_array()
                .unwrap()
                .iter()
                .zip(w["side_first"].as_array().unwrap())
            {
                let text = v["text"].as_str().unwrap();
                let ok = match (kind, v["value"].as_f64()) {
                    ("integer", _) => want.as_str() == Some(text),
                    // NaN and infinities are null in JSON: their text says which.
                    (_, None) => common::float(want).to_string().eq_ignore_ascii_case(text),
                    (_, Some(x)) => x as f32 == common::float(want) as f32,
                };
                assert!(ok, "{file} {name}: {text} vs {want}");
            }
            println!(
                "{file} {name}: preview read {} bytes of the side file in 1 request",
                side[0].bytes
            );
        }
    }
}

/// The CLI lists an ONNX model as such.
#[test]
fn the_cli_lists_an_onnx_model() {
    let Some(dir) = fixtures() else { return };
    let p = dir.join("subgraphs.onnx");
    let (code, out, err) = common::run_cli(&[p.to_str().unwrap(), "--json"], None, None);
    assert_eq!(code, 0, "{err}");
    let j: J = serde_json::from_str(&out).unwrap();
    assert_eq!(j["format"], "onnx");
    assert_eq!(j["tensors"].as_array().unwrap().len(), 10);
}

// --- hostile inputs ----------------------------------------------------------------------------

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

/// A length-delimited field.
fn fl(field: u64, payload: &[u8]) -> Vec<u8> {
    [
        varint(field << 3 | 2),
        varint(payload.len() as u64),
        payload.to_vec(),
    ]
    .concat()
}

/// A varint field.
fn fv(field: u64, v: u64) -> Vec<u8> {
    [varint(field << 3), varint(v)].concat()
}

fn model(graph: &[u8]) -> Vec<u8> {
    [fv(1, 9), fl(2, b"hostile"), fl(7, graph), fl(8, &fv(2, 17))].concat()
}

fn initializer(name: &str, raw: &[u8]) -> Vec<u8> {
    fl(
        5,
        &[
            fv(1, raw.len() as u64 / 4),
            fv(2, 1),
            fl(8, name.as_bytes()),
            fl(9, raw),
        ]
        .concat(),
    )
}

/// Opens `b` as the app does, and summarises and checks what it gives (no panic anywhere).
fn open(b: &[u8]) -> Result<OpenedModel, weightpeek::format::Error> {
    let r = parse_bytes(b).map(OpenedModel::from);
    if let Ok(m) = &r {
        let _ = weightpeek::check::check_one_file(m);
        let _ = weightpeek::summary::summarize(m);
        if let Some(e) = &m.error {
            assert!(e.offset <= b.len() as u64, "{e}");
        }
    }
    r
}

fn error_text(b: &[u8]) -> String {
    let m = open(b).expect("an ONNX model").model;
    m.error
        .map(|e| e.to_string())
        .unwrap_or_else(|| panic!("no error: {:?}", m.tensors))
}

#[test]
fn every_cut_of_a_small_model_is_an_error_or_the_whole_listing() {
    let mut inputs = vec![model(
        &[
            initializer("a", &[0; 16]),
            fl(
                1,
                &[
                    fl(2, b"c"),
                    fl(4, b"Constant"),
                    fl(
                        5,
                        &[fl(1, b"value"), fl(5, &[fv(2, 7), fl(9, &[1; 8])].concat())].concat(),
                    ),
                ]
                .concat(),
            ),
        ]
        .concat(),
    )];
    if let Some(dir) = fixtures() {
        inputs.push(std::fs::read(dir.join("subgraphs.onnx")).unwrap());
    }
    for b in &inputs {
        let whole = open(b).unwrap();
        assert!(whole.error.is_none() && !whole.tensors.is_empty());
        // Cut between two of the model's own fields after the graph, a file is a smaller valid
        // model (protobuf has no end marker); every other cut is an error inside the file.
        for n in 0..b.len() {
            match open(&b[..n]) {
                Err(_) => {}
                Ok(m) => assert!(
                    m.error.is_some() || m.tensors == whole.tensors,
                    "cut at {n} of {}",
                    b.len()
                ),
            }
        }
    }
}

#[test]
fn lengths_past_the_file_are_errors_with_their_offset() {
    // A raw_data that claims 1 GiB in a small file.
    let t = [
        fv(2, 1),
        fl(8, b"t"),
        varint(9 << 3 | 2),
        varint(1 << 30),
        vec![0; 8],
    ]
    .concat();
    let b = model(&fl(5, &t));
    let e = error_text(&b);
    assert!(e.contains("truncated") || e.contains("past the end"), "{e}");
    // A graph whose length is 2^63.
    let b = [fv(1, 9), varint(7 << 3 | 2), varint(1 << 63), vec![0; 32]].concat();
    let e = error_text(&b);
    assert!(
        e.contains("ModelProto.graph") && e.contains("at byte 2"),
        "{e}"
    );
}

#[test]
fn an_eleven_byte_varint_is_an_error() {
    let t = [vec![2 << 3], vec![0xff; 10], vec![0x01]].concat();
    let b = model(&fl(5, &t));
    let e = error_text(&b);
    assert!(e.contains("longer than 10 bytes"), "{e}");
    assert!(e.contains("initializer[0].data_type"), "{e}");
}

#[test]
fn nesting_ten_thousand_deep_is_bounded() {
    // If nodes whose then_branch holds the next If, 10,000 deep.
    let mut g = initializer("bottom", &[0; 4]);
    for _ in 0..10_000 {
        g = fl(
            1,
            &[
                fl(4, b"If"),
                fl(5, &[fl(1, b"then_branch"), fl(6, &g)].concat()),
            ]
            .concat(),
        );
    }
    let m = open(&model(&g)).unwrap();
    assert!(m.error.is_none(), "{:?}", m.error);
    assert!(m.tensors.is_empty());
    assert!(
        m.warnings
            .iter()
            .any(|w| w.message.contains("nested deeper than")),
        "{:?}",
        m.warnings
    );
    // Messages nested 10,000 deep where only skipped fields are (a type of sequences of
    // sequences): never walked.
    let mut ty = fl(1, &fv(1, 1));
    for _ in 0..10_000 {
        ty = fl(4, &fl(1, &ty));
    }
    let g = fl(11, &[fl(1, b"x"), fl(2, &ty)].concat());
    let m = open(&model(&g)).unwrap();
    assert!(m.error.is_none(), "{:?}", m.error);
    assert_eq!(
        m.get("onnx.graph.inputs").map(meta_text).as_deref(),
        Some("x: sequence")
    );
}

#[test]
fn a_dims_count_of_two_to_the_forty_is_an_error() {
    // Packed dims claiming 2^40 bytes of varints.
    let t = [varint(1 << 3 | 2), varint(1 << 40), vec![1; 64]].concat();
    let e = error_text(&model(&fl(5, &t)));
    assert!(e.contains("dims"), "{e}");
    // 2^40 written as one dimension: listed, its size 2^40 × 4 bytes, past the file.
    let t = [fv(1, 1 << 40), fv(2, 1), fl(8, b"huge"), fl(9, &[0; 4])].concat();
    let m = open(&model(&fl(5, &t))).unwrap();
    assert_eq!(m.tensors[0].elements, Some(1 << 40));
    assert!(m.tensors[0]
        .note
        .as_deref()
        .unwrap()
        .contains("raw_data holds 4 bytes"));
    // As many dims as fit in the file (more than 64): an error, not 2^20 dims.
    let t: Vec<u8> = (0..1 << 20).flat_map(|_| fv(1, 1)).collect();
    let e = error_text(&model(&fl(5, &t)));
    assert!(e.contains("more than 64 dimensions"), "{e}");
}

/// Sniffing: every real `.onnx` file is ONNX, no other real model file (GGUF, safetensors,
/// PyTorch, NumPy, the vocabularies) is; an ONNX model named `.bin` opens as ONNX.
#[test]
fn only_onnx_files_sniff_as_onnx() {
    let mut files = Vec::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut dirs = vec![
        common::data_dir(),
        common::shared_dir().join("data"),
        root.join("tests/data"),
    ];
    for d in ["onnx", "torch", "numpy", "exact", "quant", "remote"] {
        dirs.push(root.join(format!("target/{d}-fixtures")));
    }
    while let Some(d) = dirs.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else {
                files.push(p);
            }
        }
    }
    let mut onnx = 0;
    for p in &files {
        use std::io::Read;
        let mut head = Vec::new();
        let f = std::fs::File::open(p).unwrap();
        let size = f.metadata().unwrap().len();
        f.take(256 << 10).read_to_end(&mut head).unwrap();
        let is_onnx =
            weightpeek::format::sniff(&head, size).ok() == Some(weightpeek::format::Format::Onnx);
        let named = p.extension().is_some_and(|e| e == "onnx");
        assert_eq!(is_onnx, named, "{}", p.display());
        onnx += usize::from(named);
    }
    println!("{} files sniffed, {onnx} ONNX", files.len());
    let Some(dir) = fixtures() else { return };
    let tmp = std::env::temp_dir().join(format!("weightpeek-onnx-{}.bin", std::process::id()));
    std::fs::copy(dir.join("subgraphs.onnx"), &tmp).unwrap();
    let (m, _) = open_model(&tmp);
    std::fs::remove_file(&tmp).unwrap();
    assert_eq!(m.format.name(), "onnx");
    assert_eq!(m.tensors.len(), 10);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

    /// Random bytes after an ONNX start, and a small model with bytes overwritten anywhere:
    /// a model or an error, never a panic; every tensor's preview answers.
    #[test]
    fn hostile_bytes_never_panic(
        rest in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..400),
        flips in proptest::collection::vec((0usize..400, proptest::prelude::any::<u8>()), 1..8),
    ) {
        let b = [vec![0x08, 0x09, 0x12, 0x01, b'x'], rest].concat();
        let _ = open(&b);
        let mut m = model(&[
            initializer("a", &[0; 16]),
            fl(1, &[fl(2, b"c"), fl(4, b"Constant"), fl(5, &[fl(1, b"value"), fl(5, &[fv(1, 2), fv(2, 7), fl(9, &[1; 16])].concat())].concat())].concat()),
            fl(15, &[fl(1, &[fv(2, 1), fl(8, b"s"), fl(4, &[0; 8])].concat()), fv(3, 4)].concat()),
        ].concat());
        for (at, v) in flips {
            let n = m.len();
            m[at % n] = v;
        }
        if let Ok(model) = open(&m) {
            let mut src = weightpeek::source::MemSource::new(&m);
            for t in &model.tensors {
                let _ = block_on_ready(preview_tensor(&model, &mut src, &t.name, &WindowRequest::default()));
            }
        }
    }
}

/// Over HTTP Range (the Rust range server, whose log counts every byte sent): the generated
/// models list the reference's tensors within the driver's reads, the 32 MiB one from a
/// quarter of its bytes; a preview reads its window.
#[test]
fn remote_models_list_from_a_few_ranges() {
    let Some(dir) = fixtures() else { return };
    let doc = expected(&dir);
    let server = common::range_server::Server::files(&dir);
    for file in ["large.onnx", "many.onnx", "subgraphs.onnx"] {
        let f = &doc["files"][file];
        let url = format!("{}/{file}", server.url);
        let before = (server.requests().len(), server.bytes());
        let (code, out, err) = common::run_cli(&[&url, "--json"], None, None);
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
        let size = f["size"].as_u64().unwrap();
        println!(
            "{file}: {} tensors of a {size}-byte file from {requests} requests, {bytes} bytes",
            names.len()
        );
        assert!(
            requests as u32 <= 1 + MAX_ZIP_READS,
            "{file}: {requests} requests"
        );
        if file == "large.onnx" {
            assert!(bytes < size / 4, "{file}: {bytes} bytes");
        }
        let t = &f["tensors"][0];
        let name = t["name"].as_str().unwrap();
        let (code, out, err) = common::run_cli(&[&url, "--tensor", name, "--json"], None, None);
        assert_eq!(code, 0, "{file}: {err}");
        let p: J = serde_json::from_str(&out).unwrap();
        for (v, w) in p["first_values"]
            .as_array()
            .unwrap()
            .iter()
            .zip(t["first"].as_array().unwrap())
        {
            let got = v["text"].as_str().unwrap().parse::<f64>().unwrap();
            // The CLI writes an F32 value's shortest text as an f32.
            let (got, want) = (f64::from(got as f32), f64::from(common::float(w) as f32));
            assert!(
                common::same_float(got, want),
                "{file} {name}: {got} vs {want}"
            );
        }
    }
}

/// Every `TensorProto` storage form previews (issue #24): in storage.onnx each previewable
/// data type is stored as raw_data, in its typed field packed (as protobuf writes it),
/// unpacked, in two packed runs, and unpacked with the name among the values; every form lists
/// the raw one's dtype, shape and bytes, previews to_array's values (the reference's, checked
/// value by value in `every_file_lists_the_reference_tensors_and_values`) identical across the
/// forms, and the typed forms read their field's span of the protobuf once.
#[test]
fn every_storage_form_previews_the_same_values() {
    let Some(dir) = fixtures() else { return };
    let doc = expected(&dir);
    let want = doc["files"]["storage.onnx"]["tensors"].as_array().unwrap();
    let (m, mut src) = open_model(&dir.join("storage.onnx"));
    assert!(m.error.is_none(), "{:?}", m.error);
    let info = m.onnx().unwrap();
    let mut kinds = BTreeMap::<String, Vec<(String, Vec<String>, Vec<String>)>>::new();
    for (i, t) in m.tensors.iter().enumerate() {
        let w = want.iter().find(|w| w["name"] == t.name.as_str()).unwrap();
        assert!(w["previewable"].as_bool().unwrap(), "{}", t.name);
        let (kind, form) = t.name.split_once('.').unwrap();
        // A lone packed float_data / double_data run is in place, as raw_data is.
        let in_place =
            form == "raw" || form == "packed" && matches!(kind, "f32" | "f64" | "c64" | "c128");
        assert_eq!(info.encoded_of(i).is_none(), in_place, "{}", t.name);
        let before = src.bytes;
        let (p, row) = windows(&m, &mut src, &t.name);
        if let Some(e) = info.encoded_of(i) {
            assert_eq!(p.bytes_read, e.len, "{}", t.name);
            assert_eq!(src.bytes - before, 2 * e.len, "{}", t.name);
            assert!(p.read_note.as_deref().unwrap().starts_with("decoded from"));
        }
        let text = |p: &Preview| {
            p.first_values
                .iter()
                .map(|v| format!("{:?}", v.value))
                .collect()
        };
        kinds
            .entry(kind.to_string())
            .or_default()
            .push((form.to_string(), text(&p), text(&row)));
    }
    assert!(kinds.len() >= 21, "{} data types", kinds.len());
    for (kind, forms) in &kinds {
        let names: Vec<&str> = forms.iter().map(|f| f.0.as_str()).collect();
        assert_eq!(
            names,
            ["raw", "packed", "unpacked", "runs", "mixed"],
            "{kind}"
        );
        for f in &forms[1..] {
            assert_eq!((&f.1, &f.2), (&forms[0].1, &forms[0].2), "{kind} {}", f.0);
        }
    }
}

/// A typed field whose values do not match the tensor (fewer values than its shape needs, a
/// value in another field than onnx reads for its type, a varint cut by the message's end):
/// the preview is an error naming the field, never a panic or other values.
#[test]
fn typed_fields_that_do_not_fit_are_errors() {
    let tensor = |dims: &[u64], dt: u64, data: &[u8]| {
        let mut b: Vec<u8> = dims.iter().flat_map(|&d| fv(1, d)).collect();
        b.extend(fv(2, dt));
        b.extend(fl(8, b"t"));
        b.extend_from_slice(data);
        fl(5, &b)
    };
    let packed = |field: u64, vals: &[u64]| {
        fl(
            field,
            &vals.iter().flat_map(|&v| varint(v)).collect::<Vec<u8>>(),
        )
    };
    for (data, dims, dt, says) in [
        (
            packed(7, &[1, 2, 3]),
            vec![4],
            7,
            "holds 3 values but the tensor needs 4",
        ),
        (packed(5, &[1, 2, 3, 4]), vec![4], 7, "does not read"),
        (packed(7, &[1, 2, 3, 4, 5]), vec![4], 7, "holds 5 values"),
        ([fv(5, 1), fv(5, 2)].concat(), vec![3], 6, "holds 2 values"),
    ] {
        let b = model(&tensor(&dims, dt, &data));
        let m = open(&b).unwrap();
        assert!(m.error.is_none(), "{:?}", m.error);
        let path = std::env::temp_dir().join(format!("wp-typed-{}-{dt}.onnx", says.len()));
        std::fs::write(&path, &b).unwrap();
        let mut src = CountingFile::open(&path);
        let e = preview(&m, &mut src, "t", None).unwrap_err().to_string();
        assert!(e.contains(says), "{says}: {e}");
        let _ = std::fs::remove_file(&path);
    }
}

/// Over HTTP Range: a typed-field tensor (unpacked int64_data, FLOAT16 bits in two packed runs
/// of int32_data, BOOL mixed with its name, UINT32 in packed uint64_data) previews the values
/// of the local file's preview (to_array's, checked above), reading its field's span (its
/// bytes read) in at most one request more than the listing.
#[test]
fn remote_typed_fields_read_their_span_once() {
    let Some(dir) = fixtures() else { return };
    let (m, mut src) = open_model(&dir.join("storage.onnx"));
    let info = m.onnx().unwrap();
    let server = common::range_server::Server::files(&dir);
    let url = format!("{}/storage.onnx", server.url);
    let before = server.requests().len();
    let (code, _, err) = common::run_cli(&[&url, "--json"], None, None);
    assert_eq!(code, 0, "{err}");
    let listing = server.requests().len() - before;
    for name in ["i64.unpacked", "f16.runs", "bool.mixed", "u32.packed"] {
        let index = m.tensors.iter().position(|t| t.name == name).unwrap();
        let e = *info.encoded_of(index).unwrap();
        let local = preview(&m, &mut src, name, None).unwrap();
        let before = server.requests().len();
        let (code, out, err) = common::run_cli(&[&url, "--tensor", name, "--json"], None, None);
        assert_eq!(code, 0, "{name}: {err}");
        let p: J = serde_json::from_str(&out).unwrap();
        // The values as text (the JSON's numbers are written from f32 or f64 alike).
        let texts = p["first_values"]
            .as_array()
            .map(|v| v.iter().map(|x| &x["text"]));
        let want: Vec<J> = local
            .first_values
            .iter()
            .map(|v| v.text.as_str().into())
            .collect();
        assert!(texts.unwrap().eq(want.iter()), "{name}");
        assert_eq!(p["bytes_read"].as_u64(), Some(e.len), "{name}");
        // The listing's requests, then at most one for the span (none when the listing's
        // reads hold it).
        let log = server.requests();
        assert!(
            log.len() - before <= listing + 1,
            "{name}: {:?}",
            &log[before..]
        );
    }
}
