//! The bodies of every fuzz target (the readers of PyTorch, NumPy and ONNX files, and the older
//! GGUF, safetensors, sniffing, remote-text and dequantisation ones), shared by the libFuzzer
//! targets in `fuzz_targets/` (included with `#[path]`) and the bounded smoke run
//! in `tests/fuzz_smoke.rs` (stable Rust, part of the test command). Each takes any bytes and
//! must return without panicking; whatever it opens is also summarised, checked (the doctor
//! too), serialised and previewed, as the page and the CLI would. Each returns whether the
//! reader got through (a model, a directory, a whole pickle): the smoke run counts them so
//! that a target whose seeds all fail at the first byte does not pass unnoticed.
#![allow(dead_code)] // each target uses one body

use weightpeek::format::pickle::{self, Limits};
use weightpeek::format::{held::Held, onnx, sniff, torch, zip, Format};
use weightpeek::open::OpenedModel;
use weightpeek::preview::{preview_tensor, WindowRequest};
use weightpeek::source::{block_on_ready, parse_bytes, MemSource};

/// Tensors previewed per opened file (each a window of 2 rows × 8 columns).
const PREVIEWS: usize = 3;

/// Everything done after a model is read: the summary, the checks and the doctor, the JSON the
/// CLI prints, and a small window of the first tensors read from `data`.
fn after_open(m: &OpenedModel, data: &[u8]) {
    let mut s = weightpeek::summary::summarize_open(m);
    s.add_doctor(m);
    let _ = weightpeek::open::findings::check(m);
    let _ = serde_json::to_string(&s);
    let req = WindowRequest {
        rows: Some(0..2),
        cols: Some(0..8),
        field: None,
    };
    for t in m.tensors.iter().take(PREVIEWS) {
        let mut src = MemSource::new(data);
        let _ = block_on_ready(preview_tensor(m, &mut src, &t.name, &req));
    }
    // A NumPy structured array's fields: each one's window gathered from its elements.
    for s in m
        .archive()
        .into_iter()
        .flat_map(|a| &a.structured)
        .take(PREVIEWS)
    {
        let Some(t) = m.tensors.get(s.tensor) else {
            continue;
        };
        for f in s.fields.iter().take(PREVIEWS) {
            let req = WindowRequest {
                field: Some(f.name.clone()),
                ..req.clone()
            };
            let mut src = MemSource::new(data);
            let _ = block_on_ready(preview_tensor(m, &mut src, &t.name, &req));
        }
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
    match parse_bytes(data).map(OpenedModel::from) {
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
        Err(zip::Stop::NeedRange(n)) => {
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
    match onnx::step(&held, data.len() as u64, prefix).map(OpenedModel::from) {
        Ok(m) => {
            after_open(&m, data);
            m.error.is_none()
        }
        Err(_) => false,
    }
}

/// The whole header path on arbitrary bytes behind a GGUF magic: parse, summarise, check, and
/// decode every metadata array's first and last elements.
pub fn gguf_header(data: &[u8]) -> bool {
    let mut b = b"GGUF".to_vec();
    b.extend_from_slice(data);
    let Ok(m) = parse_bytes(&b).map(OpenedModel::from) else {
        return false;
    };
    let _ = weightpeek::summary::summarize(&m);
    let _ = weightpeek::check::check_one_file(&m);
    for e in &m.metadata {
        if let weightpeek::format::Value::Array(a) = &e.value {
            let _ = a.values(&m.bytes, 0, 4);
            let _ = a.values(&m.bytes, a.len.saturating_sub(1), 1);
        }
    }
    m.error.is_none()
}

/// safetensors headers: an 8-byte length, then `data` (mostly JSON-ish via the corpus), then
/// 64 bytes of data section; and `data` read as a whole file.
pub fn safetensors_header(data: &[u8]) -> bool {
    let mut b = (data.len() as u64).to_le_bytes().to_vec();
    b.extend_from_slice(data);
    b.extend_from_slice(&[0u8; 64]);
    let ok = match parse_bytes(&b).map(OpenedModel::from) {
        Ok(m) => {
            let _ = weightpeek::summary::summarize(&m);
            let _ = weightpeek::check::check_one_file(&m);
            m.error.is_none()
        }
        Err(_) => false,
    };
    let _ = parse_bytes(data);
    ok
}

/// The entry points that read server or user text: the safetensors shard index
/// (`model.safetensors.index.json`), Hub tree listings, pasted URLs, and a server's
/// Content-Range header.
pub fn shard_index(data: &[u8]) -> bool {
    use weightpeek::remote::{hub, shards};
    use weightpeek::source::http;
    let ok = weightpeek::open::merge::parse_index(data).is_ok();
    let text = String::from_utf8_lossy(data);
    if let Ok(files) = shards::parse_tree_listing(&text) {
        let _ = shards::group(&files);
    }
    let _ = hub::parse_input(&text, hub::DEFAULT_ENDPOINT);
    let _ = http::parse_content_range(&text);
    let _ = http::read_timeout_ms(Some(&text));
    ok
}

/// Format sniffing on arbitrary first bytes and sizes.
pub fn sniff_any(data: &[u8]) -> bool {
    let size = data.len() as u64;
    let _ = sniff(data, size.wrapping_mul(3));
    sniff(data, size).is_ok()
}

/// Dequantisation of arbitrary bytes as every ggml type (both byte orders) and every
/// safetensors dtype (the first byte picks them).
pub fn dequant(data: &[u8]) -> bool {
    use weightpeek::dequant::{dequantize_ggml, dequantize_safetensors, ggml_elements};
    use weightpeek::format::ggml_type::GgmlType;
    use weightpeek::format::safetensors::ST_DTYPES;
    let Some((&sel, bytes)) = data.split_first() else {
        return false;
    };
    let ty = GgmlType(u32::from(sel % 48));
    let mut ok = false;
    if let Some(n) = ggml_elements(ty, bytes.len()) {
        let mut out = vec![0f32; n];
        ok = dequantize_ggml(ty, sel & 0x80 != 0, bytes, &mut out).is_ok();
    }
    let mut wrong = vec![0f32; bytes.len() % 17];
    let _ = dequantize_ggml(ty, false, bytes, &mut wrong);
    let d = &ST_DTYPES[usize::from(sel) % ST_DTYPES.len()];
    for n in [bytes.len(), bytes.len() * 2, bytes.len() / 2] {
        let mut out = vec![0f32; n];
        let _ = dequantize_safetensors(d, bytes, &mut out);
    }
    ok
}

/// `len` bytes of `data` at `offset`, when the file holds them.
fn slice(data: &[u8], offset: u64, len: u64) -> Option<&[u8]> {
    let start = usize::try_from(offset).ok()?;
    let end = start.checked_add(usize::try_from(len).ok()?)?;
    data.get(start..end)
}
