//! `weightpeek scan` (issue #22) against `tests/reference/scan_reference.py` (under
//! `target/scan-fixtures` or `$WEIGHTPEEK_SCAN_FIXTURES`): every tensor of a generated GGUF of
//! every ggml type gguf-py writes, a GGUF of NaN/Inf values and block scales, an all-zero tensor
//! and an outlier, the same file cut short, the real Gemma 3 GGUF and MiniLM safetensors — NaN,
//! Inf and zero counts, min and max exactly, mean and standard deviation to 1e-9 relative (numpy
//! in float64 over gguf-py's dequantised values), the bad block scales and the first bad block's
//! offset, and the findings in order; from the library (counting the bytes read: every
//! tensor's bytes, once) and from the CLI's `--json` on two threads.

mod common;

use std::path::{Path, PathBuf};

use serde_json::Value as J;
use weightpeek::open::OpenedModel;
use weightpeek::scan;
use weightpeek::source::block_on_ready;
use weightpeek::source::file::FileSource;

fn fixtures() -> Option<PathBuf> {
    let dir = std::env::var_os("WEIGHTPEEK_SCAN_FIXTURES")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/scan-fixtures"));
    common::real_file(dir.join("expected.json")).map(|_| dir)
}

/// A fixture folder: `$ENV`, else `SUB` under the crate.
fn fixture_dir(env: &str, sub: &str) -> PathBuf {
    std::env::var_os(env)
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join(sub))
}

/// Every tensor of `model` (the file at `path`) scanned in pieces of `piece` bytes, and the
/// bytes read from the file.
fn scan_counted(model: &OpenedModel, path: &Path, piece: u64) -> (Vec<scan::TensorScan>, u64) {
    let mut src = vec![FileSource::open(path).unwrap()];
    let scans = block_on_ready(scan::scan(model, &mut src, piece, &mut |_| {}));
    (scans, src[0].bytes_read)
}

/// The files of the reference: (key, path).
fn files(dir: &Path, doc: &J) -> Vec<(String, PathBuf)> {
    doc["files"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, f)| {
            let p = f["path"]
                .as_str()
                .map(PathBuf::from)
                .unwrap_or_else(|| dir.join(k));
            (k.clone(), p)
        })
        .collect()
}

fn close(got: f64, want: f64) -> bool {
    got == want || (got - want).abs() <= 1e-9 * want.abs()
}

/// Compares one tensor's result (the CLI's JSON of it) with the reference's.
fn same_tensor(file: &str, name: &str, got: &J, want: &J) {
    let at = format!("{file} {name}");
    if want["unreadable"] == true {
        assert_eq!(got["failed"], true, "{at}: {got}");
        return;
    }
    for k in ["count", "nan", "inf", "zeros"] {
        assert_eq!(got[k], want[k], "{at}: {k}");
    }
    for k in ["scale_nan", "scale_inf", "blocks", "first_bad_offset"] {
        assert_eq!(got[k], want[k], "{at}: {k}");
    }
    for k in ["min", "max"] {
        match (&got[k], &want[k]) {
            (J::Null, J::Null) => {}
            (g, w) if w.is_i64() || w.is_u64() => assert_eq!(g, w, "{at}: {k}"),
            (g, w) => {
                // An f32 min/max is written as the shortest text that reads back as that f32.
                let (g, w) = (g.as_f64().unwrap(), w.as_f64().unwrap());
                assert!(
                    g == w || (g as f32) == (w as f32) && (w as f32) as f64 == w,
                    "{at}: {k} {g} vs {w}"
                );
            }
        }
    }
    for k in ["mean", "std"] {
        match (&got[k], &want[k]) {
            (J::Null, J::Null) => {}
            (g, w) => {
                let (g, w) = (g.as_f64().unwrap(), w.as_f64().unwrap());
                assert!(close(g, w), "{at}: {k} {g} vs numpy's {w}");
            }
        }
    }
    assert_eq!(got["failed"], false, "{at}: {got}");
}

fn findings_of(v: &J) -> Vec<(String, String, J)> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["code"].as_str().unwrap().to_string(),
                f["tensor"].as_str().unwrap_or("").to_string(),
                f["offset"].clone(),
            )
        })
        .collect()
}

#[test]
fn every_tensor_equals_numpy_over_gguf_pys_values() {
    let Some(dir) = fixtures() else { return };
    let doc: J =
        serde_json::from_slice(&std::fs::read(dir.join("expected.json")).unwrap()).unwrap();
    for (key, path) in files(&dir, &doc) {
        let want = &doc["files"][&key];
        let p = path.to_str().unwrap();
        let (code, out, err) =
            common::run_cli(&["scan", p, "--json", "--threads", "2"], None, None);
        let got: J = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{key}: {e}: {err}"));
        let errors = want["findings"].as_array().unwrap().iter().any(|f| {
            f["code"]
                .as_str()
                .is_some_and(|c| c != "scan-all-zero" && c != "scan-outlier")
        });
        assert_eq!(code, i32::from(errors), "{key}: exit status ({err})");
        let tensors = got["tensors"].as_array().unwrap();
        assert_eq!(
            tensors.len(),
            want["tensors"].as_object().unwrap().len(),
            "{key}"
        );
        for t in tensors {
            let name = t["name"].as_str().unwrap();
            same_tensor(&key, name, t, &want["tensors"][name]);
        }
        assert_eq!(
            findings_of(&got["findings"]),
            findings_of(&want["findings"]),
            "{key}: findings"
        );
    }
}

#[test]
fn the_library_reads_every_tensor_once_and_no_more() {
    let Some(dir) = fixtures() else { return };
    for name in ["types.gguf", "bad.gguf", "truncated.gguf"] {
        let path = dir.join(name);
        let (model, _) = common::open_model(&path);
        let mut src = vec![FileSource::open(&path).unwrap()];
        let mut told = 0u64;
        // Pieces of 200 bytes: rows are split and read a block or a few at a time, with the
        // same results.
        let scans = block_on_ready(scan::scan(&model, &mut src, 200, &mut |n| told += n));
        let whole = block_on_ready(scan::scan(
            &model,
            &mut [FileSource::open(&path).unwrap()],
            scan::PIECE_BYTES,
            &mut |_| {},
        ));
        // The same counts, extremes and offsets; mean and std summed in other runs agree to
        // 1e-9.
        assert_eq!(scans.len(), whole.len());
        for (mut a, mut b) in scans.clone().into_iter().zip(whole) {
            if let (Some(x), Some(y)) = (a.values.as_mut(), b.values.as_mut()) {
                for (u, v) in [(&mut x.mean, &mut y.mean), (&mut x.std, &mut y.std)] {
                    if let (Some(g), Some(w)) = (*u, *v) {
                        assert!(close(g, w), "{name} {}: {g} vs {w}", a.name);
                    }
                    (*u, *v) = (None, None);
                }
            }
            assert_eq!(a, b, "{name}: pieces of 200 bytes and of 16 MiB");
        }
        let readable: u64 = model
            .tensors
            .iter()
            .filter_map(|t| t.bytes.filter(|b| t.offset + b <= model.file_size))
            .sum();
        assert_eq!(src[0].bytes_read, readable, "{name}: bytes read");
        assert_eq!(told, readable, "{name}: progress");
        assert_eq!(scans.iter().map(|t| t.bytes_read).sum::<u64>(), readable);
        // A tensor index past the model's is a result saying so, not a panic.
        let none = block_on_ready(scan::scan_tensor(
            &model,
            &mut src[0],
            usize::MAX,
            200,
            &mut |_| {},
        ));
        assert!(none.values.is_none() && none.skipped.is_some(), "{none:?}");
    }
}

/// A file that waits once before each read (as a `Blob` slice or a Range request does), so
/// the lanes of [`scan::scan_lanes`] take turns.
struct Waiting {
    file: FileSource,
    /// Tensors' reads in the order they were made, (lane's source id, offset).
    log: std::rc::Rc<std::cell::RefCell<Vec<(usize, u64)>>>,
    id: usize,
}

impl weightpeek::source::ByteSource for Waiting {
    fn size(&self) -> u64 {
        weightpeek::source::ByteSource::size(&self.file)
    }

    async fn read(
        &mut self,
        offset: u64,
        len: u64,
    ) -> Result<Vec<u8>, weightpeek::source::SourceError> {
        let mut waited = false;
        std::future::poll_fn(|_| match std::mem::replace(&mut waited, true) {
            false => std::task::Poll::Pending,
            true => std::task::Poll::Ready(()),
        })
        .await;
        self.log.borrow_mut().push((self.id, offset));
        self.file.read(offset, len).await
    }
}

/// The page's scan on a few lanes over one queue gives every tensor's result once, the same
/// as a scan one tensor after another, with lanes taking turns while their reads wait; each
/// tensor is told once, the progress adds up to the bytes read, and an index past the model's
/// is passed over.
#[test]
fn lanes_scan_each_tensor_once_as_one_after_another_does() {
    use std::cell::{Cell, RefCell};
    // Six F32 tensors of 300 values (1,200 bytes each, every 1,216: the alignment is 32), read
    // in pieces of 200 bytes: six reads a tensor.
    let mut b = common::GgufBuilder::new(3);
    for i in 0..6u64 {
        b = b.tensor(&format!("t{i}"), &[300], 0, i * 1216);
    }
    b.data_len = 6 * 1216;
    let path = std::env::temp_dir().join(format!("weightpeek-lanes-{}.gguf", std::process::id()));
    std::fs::write(&path, b.build()).unwrap();
    let (model, _) = common::open_model(&path);
    let one_by_one = block_on_ready(scan::scan(
        &model,
        &mut [FileSource::open(&path).unwrap()],
        200,
        &mut |_| {},
    ));
    let log = std::rc::Rc::new(RefCell::new(Vec::new()));
    let opened = Cell::new(0usize);
    let open = |file: usize| {
        assert_eq!(file, 0, "one file");
        opened.set(opened.get() + 1);
        Waiting {
            file: FileSource::open(&path).unwrap(),
            log: log.clone(),
            id: opened.get(),
        }
    };
    let told = Cell::new(0u64);
    let done = RefCell::new(Vec::new());
    let mut order = scan::scan_order(&model);
    order.push(usize::MAX);
    let scans = block_on_ready(scan::scan_lanes(
        &model,
        order,
        3,
        200,
        &open,
        &|n| told.set(told.get() + n),
        &|i, t| done.borrow_mut().push((i, t.name.clone())),
    ));
    assert_eq!(scans, one_by_one);
    let mut told_once: Vec<usize> = done.borrow().iter().map(|(i, _)| *i).collect();
    told_once.sort_unstable();
    assert_eq!(told_once, (0..model.tensors.len()).collect::<Vec<_>>());
    assert_eq!(opened.get(), model.tensors.len(), "a source per tensor");
    let read: u64 = scans.iter().map(|t| t.bytes_read).sum();
    assert_eq!(told.get(), read);
    // The second read made is another lane's (its first tensor), not the first lane's next.
    let ids: Vec<usize> = log.borrow().iter().map(|(id, _)| *id).collect();
    assert_eq!(&ids[..3], &[1, 2, 3], "{ids:?}");
    assert_eq!(read, 6 * 1200);
    std::fs::remove_file(&path).unwrap();
}

/// A deflated `.npz` member (np.savez_compressed, 4 MiB of random floats) scanned in 64 KiB
/// pieces is inflated once: its compressed bytes are read once in all (not once per piece, as
/// 64 windows each inflated from the member's start would), with the results of one piece.
#[test]
fn a_deflated_member_is_inflated_once_piece_after_piece() {
    let dir = fixture_dir("WEIGHTPEEK_NUMPY_FIXTURES", "target/numpy-fixtures");
    let Some(path) = common::real_file(dir.join("big-compressed.npz")) else {
        return;
    };
    let (model, _) = common::open_model(&path);
    let size = std::fs::metadata(&path).unwrap().len();
    let scan_in = |piece: u64| scan_counted(&model, &path, piece);
    let (small, small_read) = scan_in(64 << 10);
    let (whole, whole_read) = scan_in(scan::PIECE_BYTES);
    let values: u64 = small
        .iter()
        .filter_map(|t| t.values.as_ref())
        .map(|v| v.count)
        .sum();
    assert!(values >= 1 << 19, "{values} values scanned: {small:?}");
    assert!(
        small_read <= size,
        "{small_read} bytes read of a {size}-byte file"
    );
    assert_eq!(
        small_read, whole_read,
        "compressed bytes read in 64 KiB pieces and in one"
    );
    for (a, b) in small.iter().zip(&whole) {
        let (x, y) = (a.values.as_ref().unwrap(), b.values.as_ref().unwrap());
        assert_eq!(
            (x.count, x.nan, x.zeros, x.min, x.max),
            (y.count, y.nan, y.zeros, y.min, y.max),
            "{}",
            a.name
        );
        let (m, n) = (x.mean.unwrap(), y.mean.unwrap());
        assert!(close(m, n), "{}: mean {m} vs {n}", a.name);
    }
}

/// A tensor's result reads back from its JSON (the page's Workers send them to the one that
/// merges them) and writes the same JSON again; the findings of the results read back are the
/// CLI's.
#[test]
fn results_read_back_from_their_json() {
    let Some(dir) = fixtures() else { return };
    for name in ["types.gguf", "bad.gguf", "truncated.gguf"] {
        let p = dir.join(name);
        let (_, out, err) = common::run_cli(&["scan", p.to_str().unwrap(), "--json"], None, None);
        let doc: J = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{name}: {e}: {err}"));
        let back: Vec<scan::TensorScan> =
            serde_json::from_value(doc["tensors"].clone()).expect("tensors read back");
        assert_eq!(
            serde_json::to_value(&back).unwrap(),
            doc["tensors"],
            "{name}: written again"
        );
        assert_eq!(
            serde_json::to_value(scan::findings(&back)).unwrap(),
            doc["findings"],
            "{name}: findings"
        );
    }
}

/// The Workers' split: every tensor in exactly one share, each share in scan order, the shares'
/// bytes within one tensor's bytes of each other.
#[test]
fn shares_split_the_tensors_evenly_by_bytes() {
    let Some(dir) = fixtures() else { return };
    let (model, _) = common::open_model(&dir.join("types.gguf"));
    let order = scan::scan_order(&model);
    let largest = model.tensors.iter().filter_map(|t| t.bytes).max().unwrap();
    for count in [1, 2, 3, 7] {
        let shares = scan::shares(&model, count);
        assert_eq!(shares.len(), count);
        let mut all: Vec<usize> = shares.concat();
        all.sort_unstable();
        assert_eq!(
            all,
            (0..model.tensors.len()).collect::<Vec<_>>(),
            "{count} shares"
        );
        for s in &shares {
            let at: Vec<usize> = s
                .iter()
                .map(|i| order.iter().position(|j| j == i).unwrap())
                .collect();
            assert!(
                at.windows(2).all(|w| w[0] < w[1]),
                "{count} shares: scan order"
            );
        }
        let bytes: Vec<u64> = shares
            .iter()
            .map(|s| s.iter().filter_map(|&i| model.tensors[i].bytes).sum())
            .collect();
        let (lo, hi) = (bytes.iter().min().unwrap(), bytes.iter().max().unwrap());
        assert!(hi - lo <= largest, "{count} shares: {bytes:?}");
    }
}

/// ONNX values in typed fields (`int64_data`, `float_data`, …) scanned a value a piece: each
/// field's span is read once, as in one piece, with the same results.
#[test]
fn an_onnx_typed_field_is_read_once_piece_after_piece() {
    let dir = fixture_dir("WEIGHTPEEK_ONNX_FIXTURES", "target/onnx-fixtures");
    let Some(path) = common::real_file(dir.join("data-fields.onnx")) else {
        return;
    };
    let (model, _) = common::open_model(&path);
    let scan_in = |piece: u64| scan_counted(&model, &path, piece);
    let (small, small_read) = scan_in(8);
    let (whole, whole_read) = scan_in(scan::PIECE_BYTES);
    let typed = small
        .iter()
        .filter(|t| t.name.ends_with("_data") && t.values.is_some())
        .count();
    assert!(typed >= 4, "{typed} typed-field tensors scanned: {small:?}");
    assert_eq!(
        small_read, whole_read,
        "bytes read in 8-byte pieces and in one"
    );
    for (a, b) in small.iter().zip(&whole) {
        let (x, y) = (a.values.as_ref(), b.values.as_ref());
        assert_eq!(
            x.map(|v| (v.count, v.nan, v.zeros, v.min, v.max)),
            y.map(|v| (v.count, v.nan, v.zeros, v.min, v.max)),
            "{}",
            a.name
        );
    }
}
