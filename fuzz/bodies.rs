//! The bodies of the fuzz targets for the readers of PyTorch, NumPy and ONNX files, shared by
//! the libFuzzer targets in `fuzz_targets/` (included with `#[path]`) and the bounded smoke run
//! in `tests/fuzz_smoke.rs` (stable Rust, part of the test command). Each takes any bytes and
//! must return without panicking; whatever it opens is also summarised, checked (the doctor
//! too), serialised and previewed, as the page and the CLI would. Each returns whether the
//! reader got through (a model, a directory, a whole pickle): the smoke run counts them so
//! that a target whose seeds all fail at the first byte does not pass unnoticed.
#![allow(dead_code)] // each target uses one body

use weightpeek::format::pickle::{self, Limits};
use weightpeek::format::{held::Held, onnx, sniff, torch, zip, Format, Model};
use weightpeek::preview::{preview_tensor, WindowRequest};
use weightpeek::source::{block_on_ready, parse_bytes, MemSource};

/// Tensors previewed per opened file (each a window of 2 rows × 8 columns).
const PREVIEWS: usize = 3;

/// Everything done after a model is read: the summary, the checks and the doctor, the JSON the
/// CLI prints, and a small window of the first tensors read from `data`.
fn after_open(m: &Model, data: &[u8]) {
    let mut s = weightpeek::summary::summarize_open(m);
    s.add_doctor(m);
    let _ = weightpeek::check::check(m);
    let _ = serde_json::to_string(&s);
    let req = WindowRequest {
        rows: Some(0..2),
        cols: Some(0..8),
    };
    for t in m.tensors.iter().take(PREVIEWS) {
        let mut src = MemSource::new(data);
        let _ = block_on_ready(preview_tensor(m, &mut src, &t.name, &req));
    }
}

/// The whole read path (sniffing, the driver loop, the format's reader) on `data` when it
/// sniffs as one of `formats`; other inputs return at once, so the fuzzer spends its time on
/// the formats the target is for.
fn open_as(data: &[u8], formats: &[Format]) -> bool {
    match sniff(data, data.len() as u64) {
        Ok(f) if formats.contains(&f) => {}
        _ => return false,
    }
    match parse_bytes(data) {
        Ok(m) => {
            after_open(&m, data);
            m.error.is_none()
        }
        Err(_) => false,
    }
}

/// The zip reader alone: the end records (and a ZIP64 end record wherever the first answer
/// points), the central directory, and every member's local header, all from `data` as the
/// whole file.
pub fn zip_reader(data: &[u8]) -> bool {
    let size = data.len() as u64;
    let end = match zip::find_end(data, size, None) {
        Ok(end) => end,
        Err(zip::ZipStop::Need(n)) => {
            let Some(rec) = slice(data, n.offset, n.len) else {
                return false;
            };
            match zip::find_end(data, size, Some(rec)) {
                Ok(end) => end,
                Err(_) => return false,
            }
        }
        Err(_) => return false,
    };
    let Some(cd) = slice(data, end.cd_offset, end.cd_size) else {
        return false;
    };
    let Ok(entries) = zip::central_directory(cd, &end) else {
        return false;
    };
    for e in &entries {
        if let Some(local) = usize::try_from(e.local_header)
            .ok()
            .and_then(|at| data.get(at..))
        {
            let _ = zip::data_offset(local, e, end.cd_offset);
        }
        let _ = zip::torch_data_offset(e, e.name.len() as u64);
    }
    true
}

/// The pickle machine alone on `data`: the tree (to the first error), every import's verdict,
/// the summary PyTorch's reader would give it, and a walk of its first nodes' accessors.
pub fn pickle_machine(data: &[u8]) -> bool {
    let (p, stopped) = pickle::parse_partial(data, 0, &Limits::DEFAULT);
    let _ = p.verdict();
    let _ = torch::info("data.pkl".into(), &p, 0, stopped.as_ref());
    for id in 0..p.nodes.len().min(64) {
        let id = id as pickle::NodeId;
        let _ = (p.str_of(id), p.int_of(id), p.bool_of(id), p.global_of(id));
        let _ = p.items_of(id).map(<[_]>::len);
        let _ = p.dict_of(id).map(|d| d.len());
    }
    stopped.is_none()
}

/// A PyTorch zip checkpoint (and any zip: an `.npz` too) read as the page reads it.
pub fn torch_zip(data: &[u8]) -> bool {
    open_as(data, &[Format::Pytorch, Format::Numpy])
}

/// A legacy (pre-1.6) PyTorch checkpoint: pickles in a row, then the storages.
pub fn torch_legacy(data: &[u8]) -> bool {
    open_as(data, &[Format::PytorchLegacy])
}

/// A NumPy `.npy` array or `.npz` archive (object arrays' pickles included).
pub fn numpy(data: &[u8]) -> bool {
    open_as(data, &[Format::Numpy])
}

/// An ONNX model: the protobuf reader run on `data` whether or not it sniffs as ONNX (the
/// sniffing is strict; the reader must hold up on anything), then the same summary, checks and
/// previews.
pub fn onnx_model(data: &[u8]) -> bool {
    let mut held = Held::default();
    held.add(0, data.to_vec());
    let prefix = &data[..data.len().min(64)];
    match onnx::step(&held, data.len() as u64, prefix) {
        Ok(m) => {
            after_open(&m, data);
            m.error.is_none()
        }
        Err(_) => false,
    }
}

/// `len` bytes of `data` at `offset`, when the file holds them.
fn slice(data: &[u8], offset: u64, len: u64) -> Option<&[u8]> {
    let start = usize::try_from(offset).ok()?;
    let end = start.checked_add(usize::try_from(len).ok()?)?;
    data.get(start..end)
}
