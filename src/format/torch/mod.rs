//! PyTorch checkpoints, read without running them: the zip archives of `torch.save` (since 1.6)
//! and TorchScript, and the legacy format before it. The tensor table comes from the pickle
//! (read by [`crate::format::pickle`], which never executes), each tensor's bytes from its
//! storage: a stored zip member, or a raw storage of the legacy file.
//!
//! - **Zip** ([`zip_listing`], after [`crate::format::container::zip_step`] read the end records
//!   and central directory from the file's end):
//!   `<prefix>/data.pkl` (and TorchScript's `<prefix>/constants.pkl`); storage `K` of a pickle
//!   `<prefix>/X.pkl` is the member `<prefix>/X/K`, whose bytes follow its local header.
//!   A local header that was not read is located by PyTorch's writer's 64-byte alignment
//!   ([`crate::format::zip::torch_data_offset`]) and marked unverified: a preview reads it first.
//! - **Legacy** ([`legacy_step`], torch/serialization.py `_legacy_save`): five pickles in a row
//!   (the magic number, the protocol version 1001, `sys_info`, the object, the storage keys),
//!   then each storage in key order as an 8-byte element count and its raw bytes.

mod tree;
mod zip_pickles;

pub use tree::{contiguous_strides, extent, find_tensors, is_contiguous, storage_dtype};
pub use tree::{Found, StorageRef, TensorRef, MAX_NAME_DEPTH, MAX_VISITS};
pub use zip_pickles::{archive_folder, MAX_OTHER_PICKLES, MAX_OTHER_PICKLE_BYTES};

pub use super::held::Held;

use super::error::{Error, ErrorKind, Warning};
use super::pickle::{self, Import, Limits, Pickle};
use super::value::{MetadataEntry, Text, Value};
use super::zip::{self, Entry, ZipStop};
use super::{element_count, DType, Endian, Format, Model, Sidecar, Stop, Tensor};

/// The first 15 bytes of a legacy checkpoint: protocol 2 pickle of the magic number
/// `0x1950a86a20f9469cfc6c` (torch/serialization.py `MAGIC_NUMBER`) as LONG1.
pub const LEGACY_MAGIC: [u8; 15] = [
    0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19, 0x2e,
];

/// Bytes read from the end of a zip archive first: the end record (with a comment of up to
/// 64 KiB) and, for up to ~2,000 members, the whole central directory, in one read.
pub const ZIP_TAIL: u64 = 256 << 10;

/// Largest central directory or pickle read: 64 MiB (a state dict of 100,000 tensors pickles to
/// ~15 MB; the central directory of 100,000 members is ~10 MB). PyTorch's reader has no such
/// limit (it reads a record whole, inflating it if need be): a larger pickle is listed as not
/// read ([`Unchecked`]), so the file is *not fully checked*, never safe.
pub const MAX_PICKLE_BYTES: u64 = 64 << 20;

/// A pickle read from the file, with its safety report.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
pub struct PickleInfo {
    /// Where it is: the zip member (`archive/data.pkl`), or `pickle 4 of 5` (legacy).
    pub name: String,
    /// Absolute offset of its first byte.
    pub offset: u64,
    /// Its length in bytes.
    pub len: u64,
    /// Pickle protocol (0–5).
    pub protocol: u8,
    /// Every import, in file order, with its verdict and the calls made through it.
    pub imports: Vec<Import>,
    /// Why reading stopped before the pickle's STOP (a cap of the pickle machine, damaged or
    /// missing bytes), with the byte where it stopped; `None` when it was read to its end.
    /// What follows that byte is not judged, so the pickle's verdict is *not fully checked*
    /// (an error finding) unless an import already read is dangerous.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
}

/// A pickle a loader may unpickle that was not read at all (too large, compressed in a way
/// this tool does not inflate, past [`MAX_OTHER_PICKLES`], inside a tar archive): its verdict is
/// *not fully checked*, never safe.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Unchecked {
    /// Where it is (a zip member's name, a tar member).
    pub name: String,
    /// Absolute offset of its header (or of the archive structure naming it).
    pub offset: u64,
    /// Why it was not read.
    pub why: String,
}

/// Where a tensor's storage bytes are.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct StorageInfo {
    /// The storage key.
    pub key: String,
    /// The zip member holding it (`archive/data/0`), empty in the legacy format.
    pub member: String,
    /// Absolute offset of the member's local header (zip), or of the 8-byte count (legacy).
    pub header: u64,
    /// Absolute offset of the storage's first byte.
    pub data: u64,
    /// Bytes of the member (zip) or of the storage (legacy).
    pub bytes: u64,
    /// Whether `data` was read from the local header (else predicted from PyTorch's alignment,
    /// and a preview reads the header first).
    pub verified: bool,
}

/// What a PyTorch file holds besides its tensors: the pickles and their imports, and where
/// each tensor's storage is.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
pub struct Archive {
    /// `zip`, `torchscript` or `legacy` (PyTorch), `pickle` (a plain pickle), `npy` or `npz`
    /// (NumPy).
    pub kind: &'static str,
    /// The pickles read, in file order.
    pub pickles: Vec<PickleInfo>,
    /// Storages, by index; [`Archive::tensor_storage`] maps tensors to them.
    pub storages: Vec<StorageInfo>,
    /// The storage of each tensor of [`Model::tensors`] (by index), if found.
    pub tensor_storage: Vec<Option<usize>>,
    /// Tensor-like values that could not be read: `(name, offset, why)`.
    pub skipped: Vec<(String, u64, String)>,
    /// Tensors whose view is strided (not one byte range): `(index in Model::tensors, stride)`.
    pub strided: Vec<(usize, Vec<u64>)>,
    /// Tensors whose values are not in the file as they are: `(index, why)`; previews refuse
    /// them with that text.
    pub not_in_place: Vec<(usize, String)>,
    /// Tensors in deflated `.npz` members (`np.savez_compressed`): previews inflate the
    /// member's compressed bytes up to their window.
    pub deflated: Vec<DeflatedMember>,
    /// Pickles a loader may unpickle that were not read: with any of them, or a pickle whose
    /// reading stopped early ([`PickleInfo::stopped`]), the file is *not fully checked*.
    pub unchecked: Vec<Unchecked>,
    /// NumPy structured arrays (not object ones): their fields, each previewed on its own.
    pub structured: Vec<crate::format::numpy::Structured>,
}

/// An array inside a deflated zip member: its values are at `data_start` of the inflated
/// member, whose compressed bytes are `compressed` bytes at `start` of the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct DeflatedMember {
    /// Index in [`Model::tensors`].
    pub tensor: usize,
    /// Absolute offset of the member's compressed bytes.
    pub start: u64,
    /// The member's compressed size.
    pub compressed: u64,
    /// The member's size inflated (the central directory's).
    pub size: u64,
    /// Offset of the array's first byte in the inflated member (after its `.npy` header).
    pub data_start: u64,
}

/// Top-level keys of a training checkpoint under which an optimizer's `state_dict()` is saved:
/// `optimizer` and `optimizer_state_dict` (PyTorch's recipes), `optimizer_states` (a list of
/// them: PyTorch Lightning).
pub const OPTIMIZER_KEYS: [&str; 3] = ["optimizer", "optimizer_state_dict", "optimizer_states"];

/// Whether a tensor named `name` (a dotted path in the pickled object) is optimizer state, not
/// a parameter of the model: it lies in an optimizer's `state` or `param_groups` under one of
/// [`OPTIMIZER_KEYS`] at the top of the checkpoint (`optimizer.state.0.exp_avg`,
/// `optimizer_states.0.state.3.momentum_buffer`).
pub fn is_optimizer_state(name: &str) -> bool {
    let mut seg = name.split('.');
    let Some(first) = seg.next() else {
        return false;
    };
    if !OPTIMIZER_KEYS.contains(&first) {
        return false;
    }
    let next = match seg.next() {
        // Lightning's list: optimizer_states.<i>.state…
        Some(i) if first == "optimizer_states" && i.bytes().all(|b| b.is_ascii_digit()) => {
            seg.next()
        }
        other => other,
    };
    matches!(next, Some("state" | "param_groups"))
}

impl Archive {
    /// The deflated member holding tensor `index`, if it is in one.
    pub fn deflated_of(&self, index: usize) -> Option<&DeflatedMember> {
        self.deflated.iter().find(|d| d.tensor == index)
    }
}

impl Archive {
    /// What unpickles this file's pickles, for messages: `np.load(allow_pickle=True)` for a
    /// NumPy file (its object arrays), `torch.load` otherwise.
    pub fn loader(&self) -> &'static str {
        match self.kind {
            "npy" | "npz" => crate::format::numpy::object::LOADER,
            _ => "torch.load",
        }
    }

    /// Every import of every pickle, in file order.
    pub fn imports(&self) -> impl Iterator<Item = &Import> {
        self.pickles.iter().flat_map(|p| p.imports.iter())
    }

    /// Whether every pickle a loader may unpickle was read to its end (nothing in
    /// [`Archive::unchecked`], no [`PickleInfo::stopped`]).
    pub fn fully_checked(&self) -> bool {
        self.unchecked.is_empty() && self.pickles.iter().all(|p| p.stopped.is_none())
    }
}

fn text(s: impl Into<String>) -> Value {
    Value::String(Text {
        text: s.into(),
        lossy: false,
    })
}

fn meta(out: &mut Vec<MetadataEntry>, key: &str, offset: u64, value: Value) {
    out.push(MetadataEntry {
        key: key.to_string(),
        offset,
        value,
    });
}

/// One tensor of the table, from its storage and view.
fn tensor_of(t: &TensorRef, data: Option<(u64, u64)>) -> Tensor {
    let elements = element_count(&t.shape);
    let (dtype, size) = match &t.storage.dtype {
        Some((d, s)) => (d.clone(), *s),
        None => (DType::StUnknown(t.storage.type_name.clone()), 0),
    };
    let mut note = None;
    // A problem with the tensor's bytes: its note (a size-mismatch finding).
    let mut warn = |msg: String| note = Some(msg);
    let reach = extent(&t.shape, &t.stride).and_then(|e| e.checked_add(t.storage_offset));
    match reach {
        Some(r) if r <= t.storage.numel => {}
        _ => warn(format!(
            "its view reaches element {} of a storage of {} elements",
            reach.map_or("past 2^64".to_string(), |r| r.to_string()),
            t.storage.numel
        )),
    }
    let bytes = elements
        .and_then(|n| n.checked_mul(size))
        .filter(|_| size > 0);
    let offset = match data {
        Some((start, member_bytes)) => {
            let need = t.storage.numel.checked_mul(size);
            if size > 0 && need.is_none_or(|n| n > member_bytes) {
                warn(format!(
                    "its storage {} says {} elements ({} bytes) but holds {member_bytes} bytes",
                    t.storage.key,
                    t.storage.numel,
                    need.map_or("past 2^64".into(), |n| n.to_string())
                ));
            }
            t.storage_offset
                .checked_mul(size)
                .and_then(|o| start.checked_add(o))
                .unwrap_or(u64::MAX)
        }
        None => {
            warn(format!(
                "its storage {} is not in the file: its values cannot be read",
                t.storage.key
            ));
            0
        }
    };
    // Without its storage the tensor has no bytes in this file.
    let bytes = bytes.filter(|_| data.is_some());
    Tensor {
        name: t.name.clone(),
        dtype,
        shape: t.shape.clone(),
        offset,
        elements,
        // A strided view's values take this many bytes too (torch's `nbytes`), but not as one
        // range: previews refuse it (see `Archive::strided`).
        bytes,
        note,
    }
}

/// An empty model of a container format (PyTorch, a plain pickle, NumPy) for a file of
/// `file_size` bytes (`bytes`: its first bytes), with no error.
pub(crate) fn base(format: Format, file_size: u64, bytes: Vec<u8>) -> Model {
    Model {
        format,
        version: None,
        endian: Endian::Little,
        file_size,
        header_size: 0,
        data_offset: 0,
        alignment: None,
        metadata_count: 0,
        metadata: Vec::new(),
        tensor_count: 0,
        tensors: Vec::new(),
        warnings: Vec::new(),
        error: None,
        bytes,
        parts: Vec::new(),
        sidecar: Sidecar::default(),
        set: None,
        archive: None,
        onnx: None,
    }
}

/// What a listing found, put into a model.
struct Listed {
    metadata: Vec<MetadataEntry>,
    tensors: Vec<Tensor>,
    warnings: Vec<Warning>,
    archive: Archive,
    header_size: u64,
}

fn model(kind: &'static str, file_size: u64, bytes: Vec<u8>, l: Listed) -> Model {
    let format = if kind == "legacy" {
        Format::PytorchLegacy
    } else {
        Format::Pytorch
    };
    let mut m = base(format, file_size, bytes);
    m.metadata_count = l.metadata.len() as u64;
    m.metadata = l.metadata;
    m.tensor_count = l.tensors.len() as u64;
    m.tensors = l.tensors;
    m.warnings = l.warnings;
    m.archive = Some(l.archive);
    m.header_size = l.header_size;
    m
}

/// A model holding only the error that stopped reading (nothing could be listed).
pub fn failed(format: Format, file_size: u64, bytes: Vec<u8>, e: Error) -> Model {
    let mut m = base(format, file_size, bytes);
    m.error = Some(e);
    m
}

/// The report of pickle `p` read from `offset` (`stopped`: the error that ended the reading
/// before STOP, if any).
pub fn info(name: String, p: &Pickle, offset: u64, stopped: Option<&Error>) -> PickleInfo {
    PickleInfo {
        name,
        offset,
        len: p.end.saturating_sub(offset),
        protocol: p.protocol,
        imports: p.globals.clone(),
        // A cap that stopped only the tree, after which every import was still found, leaves
        // the verdict whole (the listing's error says what was not listed).
        stopped: stopped
            .filter(|_| !p.imports_complete)
            .map(|e| e.to_string()),
    }
}

/// The directory of a member name (`archive/data.pkl` → `archive`).
fn dir_of(name: &str) -> &str {
    name.rsplit_once('/').map_or("", |(d, _)| d)
}

/// The tensors of a zip-format checkpoint whose central directory (`end`, `entries`) was read
/// from the bytes `held` (the file is `size` bytes; `prefix` its first bytes): the model, or
/// the bytes to read next ([`ZipStop::Need`]), or why the archive cannot be read.
pub fn zip_listing(
    held: &Held,
    size: u64,
    prefix: &[u8],
    end: &zip::EndRecord,
    entries: &[Entry],
) -> Result<Model, ZipStop> {
    // Members by name, as PyTorch's reader finds them: case-insensitively, the last of
    // several with one name.
    let mut index: std::collections::HashMap<String, usize> = Default::default();
    let mut dup_names: Vec<&str> = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        if index.insert(e.name.to_lowercase(), i).is_some() {
            dup_names.push(&e.name);
        }
    }
    let by_name = |n: &str| index.get(&n.to_lowercase()).map(|&i| &entries[i]);
    let mut chosen = zip_pickles::choose(entries, &by_name, end.cd_offset)?;
    let (main, constants) = (chosen.main, chosen.constants);
    let mut warnings = std::mem::take(&mut chosen.warnings);
    let root = dir_of(&main.name).to_string();
    let slash = if root.is_empty() { "" } else { "/" };
    let torchscript = constants.is_some()
        || entries
            .iter()
            .any(|e| e.name.starts_with(&format!("{root}{slash}code/")));
    let read = zip_pickles::read(held, end.cd_offset, chosen)?;
    // The main pickle's error first: it is the listing's.
    let errors: Vec<Error> = read.trees.iter().filter_map(|t| t.error.clone()).collect();
    let pickles = read.trees;
    let mut metadata = Vec::new();
    let kind = if torchscript { "torchscript" } else { "zip" };
    meta(
        &mut metadata,
        "pytorch.format",
        0,
        text(if torchscript {
            "TorchScript archive (torch.jit.save)"
        } else {
            "zip (torch.save, PyTorch 1.6 and later)"
        }),
    );
    meta(&mut metadata, "pytorch.archive", 0, text(root.clone()));
    for (key, member) in [
        ("pytorch.version", "version"),
        ("pytorch.byteorder", "byteorder"),
    ] {
        let Some(e) = by_name(&format!("{root}{slash}{member}"))
            .or_else(|| by_name(&format!("{root}{slash}.data/{member}")))
        else {
            continue;
        };
        if !e.is_stored() {
            continue;
        }
        let local = held.from(e.local_header).unwrap_or(&[]);
        let v = zip::data_offset(local, e, end.cd_offset)
            .ok()
            .and_then(|s| held.get(s, e.compressed.min(64)))
            .map(|b| String::from_utf8_lossy(b).trim().to_string());
        if let Some(v) = v {
            if key == "pytorch.byteorder" && v != "little" {
                warnings.push(Warning {
                    field: e.name.clone(),
                    offset: e.local_header,
                    message: format!(
                        "the storages are {v}-endian: values are read as little-endian"
                    ),
                });
            }
            meta(&mut metadata, key, e.local_header, text(v));
        }
    }
    if let Some(t) = pickles.first() {
        meta(
            &mut metadata,
            "pickle.protocol",
            t.start,
            Value::U32(u32::from(t.pickle.protocol)),
        );
    }
    meta(
        &mut metadata,
        "zip.members",
        end.cd_offset,
        Value::U64(entries.len() as u64),
    );
    if end.zip64 {
        meta(
            &mut metadata,
            "zip.zip64",
            end.end_offset,
            Value::Bool(true),
        );
    }
    let mut archive = Archive {
        kind,
        ..Default::default()
    };
    let mut tensors = Vec::new();
    let mut storage_index: std::collections::HashMap<String, usize> = Default::default();
    for name in &dup_names {
        warnings.push(Warning {
            field: format!("zip member \"{name}\""),
            offset: end.cd_offset,
            message: "the archive has several members of this name (compared without case): \
                      PyTorch reads the last; every pickle is checked"
                .into(),
        });
    }
    for t in &pickles {
        let (e, start, p) = (&t.entry, &t.start, &t.pickle);
        let stem = e.name.strip_suffix(".pkl").unwrap_or(&e.name).to_string();
        let found = find_tensors(p, p.root);
        if found.truncated {
            warnings.push(Warning {
                field: e.name.clone(),
                offset: *start,
                message: format!(
                    "the value tree is deeper than {MAX_NAME_DEPTH} or larger than {MAX_VISITS} \
                     nodes: tensors past that are not listed"
                ),
            });
        }
        let is_constants = e.name.ends_with("constants.pkl");
        for t in &found.tensors {
            let member = format!("{stem}/{}", t.storage.key);
            let idx = match storage_index.get(&member) {
                Some(&i) => Some(i),
                None => by_name(&member).map(|m| {
                    let local = held.from(m.local_header).unwrap_or(&[]);
                    let (data, verified) = match zip::data_offset(local, m, end.cd_offset) {
                        Ok(d) => (d, true),
                        Err(_) => (
                            zip::torch_data_offset(m, m.name.len() as u64).unwrap_or(u64::MAX),
                            false,
                        ),
                    };
                    archive.storages.push(StorageInfo {
                        key: t.storage.key.clone(),
                        member: member.clone(),
                        header: m.local_header,
                        data,
                        bytes: m.size,
                        verified,
                    });
                    let i = archive.storages.len() - 1;
                    storage_index.insert(member.clone(), i);
                    i
                }),
            };
            if let Some(m) = by_name(&member).filter(|m| idx.is_some() && !m.is_stored()) {
                archive.not_in_place.push((
                    tensors.len(),
                    format!(
                        "its storage {} is a compressed zip member (method {}): its values are \
                         not in the file as they are",
                        m.name, m.method
                    ),
                ));
            }
            let data = idx.map(|i| (archive.storages[i].data, archive.storages[i].bytes));
            let mut t = t.clone();
            if is_constants {
                t.name = if t.name.is_empty() {
                    "constants".into()
                } else {
                    format!("constants.{}", t.name)
                };
            }
            if t.name.is_empty() {
                t.name = "tensor".into();
            }
            if !is_contiguous(&t.shape, &t.stride) {
                archive.strided.push((tensors.len(), t.stride.clone()));
            }
            tensors.push(tensor_of(&t, data));
            archive.tensor_storage.push(idx);
        }
        archive.skipped.extend(found.skipped);
        archive
            .pickles
            .push(info(e.name.clone(), p, *start, t.error.as_ref()));
    }
    let header_size = pickles
        .iter()
        .map(|t| t.pickle.end.saturating_sub(t.start))
        .chain(read.others.iter().map(|o| o.len))
        .sum::<u64>()
        .saturating_add(end.cd_size);
    archive.pickles.extend(read.others);
    archive.unchecked = read.unchecked;
    let mut errors = errors.into_iter();
    let first = errors.next();
    for e in errors {
        warnings.push(Warning {
            field: e.field.clone(),
            offset: e.offset,
            message: e.to_string(),
        });
    }
    let mut m = model(
        kind,
        size,
        prefix.to_vec(),
        Listed {
            metadata,
            tensors,
            warnings,
            archive,
            header_size,
        },
    );
    m.error = first;
    Ok(m)
}

/// PyTorch's magic number, as the first pickle's value (`0x1950a86a20f9469cfc6c`).
fn is_magic(p: &Pickle) -> bool {
    matches!(p.node(p.root), Some(pickle::Node::BigInt(d)) if d == "119547037146038801333356")
}

/// A pickle that is not a PyTorch checkpoint: its imports judged, nothing listed.
/// `torch.load` unpickles it (running what it calls) before it checks the magic number.
fn plain_pickle(p: Pickle, buf: &[u8], size: u64) -> Model {
    let mut m = base(Format::PytorchLegacy, size, buf.to_vec());
    m.warnings.push(Warning {
        field: "pickle".into(),
        offset: 0,
        message: "a plain Python pickle, not a PyTorch checkpoint (no magic number): \
                  torch.load and pickle.load unpickle it, running what it calls, before \
                  anything checks what it is"
            .into(),
    });
    meta(
        &mut m.metadata,
        "pickle.protocol",
        0,
        Value::U32(u32::from(p.protocol)),
    );
    m.metadata_count = 1;
    m.header_size = p.end;
    m.archive = Some(Archive {
        kind: "pickle",
        pickles: vec![info("pickle".into(), &p, 0, None)],
        ..Default::default()
    });
    m
}

/// A tar archive, which `torch.load` opens as PyTorch's first format (before 0.1.10): it
/// unpickles the members `storages` and `tensors` (pickles between raw storage bytes) and
/// `pickle`. They are not read here, so the file is *not fully checked*.
fn tar_archive(buf: &[u8], size: u64) -> Model {
    let mut m = base(Format::PytorchLegacy, size, buf.to_vec());
    let ustar = buf.get(257..262) == Some(b"ustar");
    meta(
        &mut m.metadata,
        "pytorch.format",
        0,
        text(if ustar {
            "tar archive (torch.save before PyTorch 0.1.10)"
        } else {
            "tar archive without the ustar magic (old V7 tar, which torch.load opens too)"
        }),
    );
    m.metadata_count = 1;
    m.archive = Some(Archive {
        kind: "tar",
        unchecked: vec![Unchecked {
            name: "the tar archive's members".into(),
            offset: 0,
            why: "torch.load opens a file whose first 512 bytes are a tar header as PyTorch's \
                  first format and unpickles its storages, tensors and pickle members; \
                  weightpeek does not read tar archives, so their pickles are not checked"
                .into(),
        }],
        ..Default::default()
    });
    m
}

/// One step of reading a legacy checkpoint from its first bytes `buf` (the file is `size`
/// bytes): the model, or how far the bytes must reach ([`Stop::NeedMore`]).
pub fn legacy_step(buf: &[u8], size: u64) -> Result<Model, Stop> {
    if super::sniff::is_tar(buf) {
        return Ok(tar_archive(buf, size));
    }
    let mut at = 0u64;
    let mut pickles = Vec::new();
    for i in 0..5 {
        let rest = buf
            .get(usize::try_from(at).unwrap_or(usize::MAX)..)
            .unwrap_or(&[]);
        let (p, err) = pickle::parse_partial(rest, at, &Limits::DEFAULT);
        let Some(mut e) = err else {
            at = p.end;
            // The first pickle is PyTorch's magic number, or this is a plain pickle.
            if i == 0 && !is_magic(&p) {
                return Ok(plain_pickle(p, buf, size));
            }
            pickles.push(p);
            continue;
        };
        let have = buf.len() as u64;
        let need = match e.kind {
            ErrorKind::Truncated { needed_end, .. } => Some(needed_end),
            // A string or bytes value running past the bytes read so far: its opcode, an
            // 8-byte length at most, and the value (past the file's end it is damage).
            ErrorKind::CountTooLarge { count, .. } => e
                .offset
                .checked_add(9)
                .and_then(|n| n.checked_add(count))
                .filter(|&n| n <= size.saturating_add(8))
                .map(|n| n.min(size)),
            _ => None,
        };
        if have < size && need.is_some_and(|n| n >= have) {
            // The machine starts over on each read, so reads grow by half of what is held at
            // least: a pickle of n bytes is parsed in ~3n bytes' work, not n² / 1 MiB.
            return Err(Stop::NeedMore(
                have.saturating_add(1)
                    .max(need.unwrap_or(0))
                    .max(have.saturating_add(have / 2))
                    .min(size),
            ));
        }
        e.field = format!("legacy checkpoint pickle {} of 5: {}", i + 1, e.field);
        // What was read is kept: the imports before the damage are what a loader would run.
        let start = pickles.last().map_or(0, |q: &Pickle| q.end);
        let mut m = base(Format::PytorchLegacy, size, buf.to_vec());
        let mut archive = Archive {
            kind: "legacy",
            ..Default::default()
        };
        let mut s0 = 0;
        for (k, q) in pickles.iter().enumerate() {
            archive
                .pickles
                .push(info(format!("pickle {} of 5", k + 1), q, s0, None));
            s0 = q.end;
        }
        archive
            .pickles
            .push(info(format!("pickle {} of 5", i + 1), &p, start, Some(&e)));
        m.archive = Some(archive);
        m.error = Some(e);
        return Ok(m);
    }
    let [magic, version, sys_info, object, keys] =
        <[Pickle; 5]>::try_from(pickles).map_err(|_| {
            Stop::Fail(Error::new(
                "legacy checkpoint",
                0,
                ErrorKind::Invalid("fewer than 5 pickles".into()),
            ))
        })?;
    let mut warnings = Vec::new();
    let mut metadata = Vec::new();
    meta(
        &mut metadata,
        "pytorch.format",
        0,
        text("legacy (torch.save before PyTorch 1.6)"),
    );
    if let Some(v) = version.int_of(version.root) {
        meta(
            &mut metadata,
            "pytorch.protocol_version",
            LEGACY_MAGIC.len() as u64,
            Value::I64(v),
        );
    }
    let little = sys_info.dict_of(sys_info.root).and_then(|d| {
        d.iter().find_map(|(k, v)| {
            (sys_info.str_of(*k) == Some("little_endian"))
                .then(|| matches!(sys_info.node(*v), Some(pickle::Node::Bool(true))))
        })
    });
    if little == Some(false) {
        warnings.push(Warning {
            field: "sys_info".into(),
            offset: object.end,
            message: "saved on a big-endian machine: values are read as little-endian".into(),
        });
    }
    meta(
        &mut metadata,
        "pickle.protocol",
        0,
        Value::U32(u32::from(object.protocol)),
    );
    let found = find_tensors(&object, object.root);
    // Storage keys in the order their bytes follow.
    let key_list: Vec<String> = keys
        .items_of(keys.root)
        .unwrap_or(&[])
        .iter()
        .filter_map(|&k| keys.str_of(k).map(str::to_string))
        .collect();
    meta(
        &mut metadata,
        "pytorch.storages",
        0,
        Value::U64(key_list.len() as u64),
    );
    // Each storage's size from the tensors' persistent ids (one id per storage).
    let mut sizes: std::collections::HashMap<&str, (u64, u64)> = Default::default();
    for t in &found.tensors {
        let root = t
            .storage
            .view_of
            .as_ref()
            .map_or(t.storage.key.as_str(), |v| v.0.as_str());
        if let Some((_, s)) = &t.storage.dtype {
            sizes.entry(root).or_insert((t.storage.numel, *s));
        }
    }
    let mut archive = Archive {
        kind: "legacy",
        ..Default::default()
    };
    let mut cursor = keys.end;
    let mut offsets: std::collections::HashMap<&str, usize> = Default::default();
    for k in &key_list {
        let Some(&(numel, s)) = sizes.get(k.as_str()) else {
            warnings.push(Warning {
                field: format!("storage {k}"),
                offset: cursor,
                message:
                    "no tensor says how large this storage is: storages after it are not located"
                        .into(),
            });
            break;
        };
        let Some(bytes) = numel.checked_mul(s) else {
            break;
        };
        let data = cursor.saturating_add(8);
        // The stored count, when read, must be the persistent id's.
        // The cursor is a file offset (u64): past usize (wasm32: 4 GiB) it is not in `buf`.
        let count = usize::try_from(cursor)
            .ok()
            .and_then(|c| buf.get(c..c.checked_add(8)?));
        if let Some(c) = count {
            let stored = u64::from_le_bytes(c.try_into().unwrap_or([0; 8]));
            // An untyped storage (with _rebuild_tensor_v3) counts bytes.
            if stored != numel && Some(stored) != numel.checked_mul(s) {
                warnings.push(Warning {
                    field: format!("storage {k}"),
                    offset: cursor,
                    message: format!("the file says {stored} elements, the pickle {numel}"),
                });
            }
        }
        archive.storages.push(StorageInfo {
            key: k.clone(),
            member: String::new(),
            header: cursor,
            data,
            bytes,
            verified: true,
        });
        offsets.insert(k.as_str(), archive.storages.len() - 1);
        cursor = data.saturating_add(bytes);
    }
    if cursor > size {
        warnings.push(Warning {
            field: "storages".into(),
            offset: keys.end,
            message: format!(
                "the storages end at byte {cursor}, past the end of the {size}-byte file"
            ),
        });
    }
    let mut tensors = Vec::new();
    for t in &found.tensors {
        let (root, view_off) = match &t.storage.view_of {
            Some((r, o)) => (r.as_str(), *o),
            None => (t.storage.key.as_str(), 0),
        };
        let idx = offsets.get(root).copied();
        let data = idx.map(|i| {
            let s = &archive.storages[i];
            let size = t.storage.dtype.as_ref().map_or(0, |d| d.1);
            (
                s.data.saturating_add(view_off.saturating_mul(size)),
                s.bytes,
            )
        });
        let mut t = t.clone();
        if t.name.is_empty() {
            t.name = "tensor".into();
        }
        if !is_contiguous(&t.shape, &t.stride) {
            archive.strided.push((tensors.len(), t.stride.clone()));
        }
        tensors.push(tensor_of(&t, data));
        archive.tensor_storage.push(idx);
    }
    archive.skipped = found.skipped;
    let starts = [magic.end, version.end, sys_info.end, object.end];
    for (i, p) in [&version, &sys_info, &object, &keys]
        .into_iter()
        .enumerate()
    {
        archive
            .pickles
            .push(info(format!("pickle {} of 5", i + 2), p, starts[i], None));
    }
    Ok(model(
        "legacy",
        size,
        buf.to_vec(),
        Listed {
            metadata,
            tensors,
            warnings,
            archive,
            header_size: keys.end,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::is_optimizer_state;

    #[test]
    fn optimizer_state_is_told_by_its_path() {
        for yes in [
            "optimizer.state.0.exp_avg",
            "optimizer_state_dict.state.12.momentum_buffer",
            "optimizer_states.0.state.3.exp_avg_sq",
            "optimizer.param_groups.0.lr",
        ] {
            assert!(is_optimizer_state(yes), "{yes}");
        }
        for no in [
            "model.optimizer.state.weight",
            "optimizer.weight",
            "optimizer_states.x.state.0",
            "state_dict.fc.weight",
            "optimizers.state.0",
            "",
        ] {
            assert!(!is_optimizer_state(no), "{no}");
        }
    }
}
