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
//!
//! Files: this one (the types a listing fills in, the tensor table's rows), `zip_listing` and
//! `zip_pickles` (the zip format), `legacy` (legacy checkpoints, tar archives, plain pickles),
//! `tree` (the pickled object's tensors and their names).

mod legacy;
mod tree;
mod zip_listing;
mod zip_pickles;

pub use legacy::legacy_step;
pub use zip_listing::zip_listing;

pub use tree::{contiguous_strides, extent, find_tensors, is_contiguous, storage_dtype};
pub use tree::{Found, StorageRef, TensorRef, MAX_NAME_DEPTH, MAX_VISITS};
pub use zip_pickles::{archive_folder, MAX_OTHER_PICKLES, MAX_OTHER_PICKLE_BYTES};

pub(crate) use super::archive::base;
pub use super::archive::failed;
pub use super::archive::{
    info, Archive, DeflatedMember, PickleInfo, StorageInfo, Unchecked, MAX_PICKLE_BYTES,
};
pub use super::container::ZIP_TAIL;
pub use super::held::Held;

use super::error::{Error, ErrorKind, Warning};
use super::pickle::{self, Limits, Pickle};
use super::value::{MetadataEntry, Text, Value};
use super::zip::{self, Entry};
use super::{element_count, DType, Format, Model, Stop, Tensor};

/// The first 15 bytes of a legacy checkpoint: protocol 2 pickle of the magic number
/// `0x1950a86a20f9469cfc6c` (torch/serialization.py `MAGIC_NUMBER`) as LONG1.
pub const LEGACY_MAGIC: [u8; 15] = [
    0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19, 0x2e,
];

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
    m.detail = crate::format::Detail::Archive(l.archive);
    m.header_size = l.header_size;
    m
}

/// The directory of a member name (`archive/data.pkl` → `archive`).
fn dir_of(name: &str) -> &str {
    name.rsplit_once('/').map_or("", |(d, _)| d)
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
