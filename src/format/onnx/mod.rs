//! ONNX models (a protobuf `ModelProto`): being written (issue #12). Until then a file that
//! sniffs as ONNX says so.

use super::error::{Error, ErrorKind};
use super::torch::Held;
use super::zip::ZipStop;
use super::{Format, Model};

/// Whether the first bytes look like an ONNX `ModelProto`: field 1 `ir_version` (tag 0x08, a
/// small varint) followed by another known field tag.
pub fn sniff(head: &[u8]) -> bool {
    matches!(head, [0x08, v, next, ..] if (1..=16).contains(v) && [0x12, 0x1a, 0x22, 0x2a, 0x3a, 0x42].contains(next))
}

/// One step of reading an ONNX model from the bytes `held` (the file is `size` bytes; `prefix`
/// its first bytes): the model, the bytes to read next, or why it cannot be read.
pub fn step(_held: &Held, size: u64, prefix: &[u8]) -> Result<Model, ZipStop> {
    Ok(super::torch::failed(
        Format::Onnx,
        size,
        prefix.to_vec(),
        Error::new(
            "ONNX model",
            0,
            ErrorKind::NotAModel("an ONNX model: this build does not read ONNX yet".into()),
        ),
    ))
}
