//! ONNX models: a protobuf `ModelProto` (onnx/onnx.proto), read with a wire-format reader of
//! our own ([`wire`]) from byte ranges, skipping the tensors' payloads.
//!
//! Files: this one (limits, data types, [`OnnxInfo`], sniffing, [`step`] and its read plan);
//! `parser` (the walk over the held bytes), `found` (what a `TensorProto` holds, the message
//! kinds and their fields), `finish` (ending messages, the tensor table), `side` (external
//! data files), [`typed`] (values in typed fields), [`wire`] (the protobuf wire format).
//!
//! - **What is read**: `ModelProto` (ir_version, producer, domain, model_version, doc_string,
//!   opset_import, metadata_props, graph); the graph's nodes, initializers, sparse
//!   initializers, inputs and outputs; every node attribute's subgraphs (`g`, `graphs`: If,
//!   Loop, Scan bodies) to [`MAX_GRAPH_DEPTH`] levels, walked with an explicit stack (nothing
//!   recurses). Other fields (doc strings of nodes and graphs, value_info, functions,
//!   training_info, unknown fields) are skipped without being read.
//! - **Tensors**: every initializer (named by its `TensorProto.name`), every `Constant` node's
//!   `value` tensor (named by the node's first output), and every sparse initializer (listed,
//!   not previewed), main graph and subgraphs alike. They are listed in the order their
//!   messages end in the file: for a file written by protobuf (which writes fields in number
//!   order) that is, per graph, the nodes in order (a `Constant`'s value where the node is, a
//!   node's subgraphs depth-first in attribute order), then the initializers, then the sparse
//!   initializers.
//! - **Bytes**: a tensor's `offset` is the absolute offset of its `raw_data` payload (or of a
//!   packed `float_data` / `double_data` payload, which are little-endian fixed-width values
//!   too), so it previews as a row-major little-endian safetensors-style tensor. Values stored
//!   as varints (`int32_data`, `int64_data`, `uint64_data`), in an external file, unpacked, as
//!   strings, or sparse are listed with their byte size (elements × element size) and are
//!   marked in [`OnnxInfo::not_in_place`], which previews refuse.
//! - **Reads** ([`step`]): the payloads of `raw_data`, `float_data`, `double_data` and the
//!   varint data fields are skipped by their length prefix, never asked for. When a byte past
//!   the ranges held is needed, the next read starts there: [`MIN_READ`] bytes while the
//!   driver's budget ([`READ_BUDGET`]) has reads to spare, then half the rest of the file, a
//!   quarter with two reads left, …, the whole rest with the last one ([`plan_read`]). A file
//!   always lists within the budget (up to the driver's cap on the bytes read); one whose
//!   tensor headers are spread wider than the budget's reads can skip is read through some
//!   payloads instead.
//!
//! Every length and count comes from the file and is checked against its message's end (and
//! so the file's size) before anything is read or allocated; offsets are `u64` with checked
//! arithmetic; errors name the field path and the absolute byte offset of the field's tag.

mod finish;
mod found;
mod parser;
mod side;
pub mod typed;
pub mod wire;

use std::borrow::Cow;

use super::dtype::any_dtype;
use super::error::{Error, ErrorKind, Warning};
use super::held::Held;
use super::value::{MetadataEntry, Text, Value};
use super::zip::{Need, Stop};
use super::{element_count, DType, Endian, Format, Model, Tensor};
use found::*;
use parser::*;
pub use side::{
    attach_side_file, location_problem, side_file_missing, side_locations, side_path, ExternalData,
    SideFile, SideProblem,
};
use wire::{Bytes, Tag, WireError, WireType};

/// Reads the driver allows for one listing: the first read and
/// [`crate::source::MAX_ZIP_READS`] rounds after it, one read each here. The read size is
/// planned against it ([`plan_read`]).
pub const READ_BUDGET: u32 = 13;

/// Smallest read asked for after a skipped payload: 1 MiB. Over HTTP a read costs a round
/// trip, about what 1 MiB takes to arrive (100 ms at 10 MB/s), so a read should bring at least
/// that much: the headers and payloads of the next tensors when they are small (a graph of
/// many small constants takes few reads), the next header and the start of a payload to skip
/// when they are large. On the silero-vad exports (1.2–2.8 MB, 43–341 tensors, payloads of up
/// to 260 KB) this lists each file in 2–4 reads; 256 KiB would take 5–10 reads and read
/// 10–15 % fewer bytes.
pub const MIN_READ: u64 = 1 << 20;

/// Deepest subgraph nesting read (the main graph is depth 0). Real models nest If/Loop bodies
/// a few levels; a deeper subgraph is skipped with a warning.
pub const MAX_GRAPH_DEPTH: u32 = 64;

/// Most dimensions a tensor or a value's shape may have (numpy's limit).
pub const MAX_DIMS: usize = 64;

/// Most tensors listed: past it the listing stops with an error.
pub const MAX_TENSORS: usize = 1 << 20;

/// Longest string read (names, producer, doc string, metadata values): 1 MiB. A longer one is
/// skipped unread, with a warning.
pub const MAX_STRING: u64 = 1 << 20;

/// Most graph inputs or outputs written out in `onnx.graph.inputs` / `outputs`.
pub const MAX_IO_LISTED: usize = 1000;

/// Most `metadata_props` entries kept.
pub const MAX_META_PROPS: usize = 10_000;

/// ONNX `TensorProto.DataType` values: id, ONNX name, and the safetensors dtype weightpeek
/// shows for it (`None`: listed as an unknown dtype with the ONNX name).
pub const DATA_TYPES: [(i32, &str, Option<&str>); 29] = [
    (0, "UNDEFINED", None),
    (1, "FLOAT", Some("F32")),
    (2, "UINT8", Some("U8")),
    (3, "INT8", Some("I8")),
    (4, "UINT16", Some("U16")),
    (5, "INT16", Some("I16")),
    (6, "INT32", Some("I32")),
    (7, "INT64", Some("I64")),
    (8, "STRING", None),
    (9, "BOOL", Some("BOOL")),
    (10, "FLOAT16", Some("F16")),
    (11, "DOUBLE", Some("F64")),
    (12, "UINT32", Some("U32")),
    (13, "UINT64", Some("U64")),
    (14, "COMPLEX64", Some("C64")),
    (15, "COMPLEX128", Some("C128")),
    (16, "BFLOAT16", Some("BF16")),
    (17, "FLOAT8E4M3FN", Some("F8_E4M3")),
    (18, "FLOAT8E4M3FNUZ", Some("F8_E4M3FNUZ")),
    (19, "FLOAT8E5M2", Some("F8_E5M2")),
    (20, "FLOAT8E5M2FNUZ", Some("F8_E5M2FNUZ")),
    (21, "UINT4", None),
    (22, "INT4", None),
    (23, "FLOAT4E2M1", Some("F4")),
    (24, "FLOAT8E8M0", Some("F8_E8M0")),
    (25, "UINT2", None),
    (26, "INT2", None),
    // Same bit width and packed size as safetensors' F6 types (whose previews are refused).
    (27, "FLOAT6E2M3", Some("F6_E2M3")),
    (28, "FLOAT6E3M2", Some("F6_E3M2")),
];

/// The ONNX name of a `data_type` (`FLOAT`, `INT64`), or `data_type N` for an unknown one.
pub fn data_type_name(id: i32) -> Cow<'static, str> {
    DATA_TYPES.iter().find(|d| d.0 == id).map_or_else(
        || Cow::Owned(format!("data_type {id}")),
        |d| Cow::Borrowed(d.1),
    )
}

/// weightpeek's dtype for an ONNX `data_type`.
pub fn dtype_of(id: i32) -> DType {
    match DATA_TYPES.iter().find(|d| d.0 == id) {
        Some((_, _, Some(st))) => any_dtype(st).map_or(DType::StUnknown((*st).into()), DType::St),
        _ => DType::StUnknown(data_type_name(id).into_owned()),
    }
}

/// A tensor whose values are in a typed field of its `TensorProto` (`int64_data`, unpacked
/// `float_data`, …): the bytes from the first tag of its data fields to the end of the last,
/// which [`typed::decode`] turns into fixed-width values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Encoded {
    /// Index in [`Model::tensors`].
    pub tensor: usize,
    /// The field onnx reads the values from ([`typed::storage_field`]).
    pub field: u32,
    /// The tensor's `data_type`.
    pub data_type: i32,
    /// Absolute offset of the first data field's tag.
    pub start: u64,
    /// Bytes from there to the end of the last data field.
    pub len: u64,
    /// Stored values the tensor needs ([`typed::stored_values`]).
    pub values: u64,
}

/// Where a listed tensor was found in the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum TensorSource {
    /// A graph's `initializer`.
    Initializer,
    /// A `Constant` node's `value` attribute.
    Constant,
    /// A graph's `sparse_initializer`.
    SparseInitializer,
}

/// What an ONNX model holds besides its tensor table.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
pub struct OnnxInfo {
    /// `ModelProto.ir_version`, when present.
    pub ir_version: Option<i64>,
    /// `opset_import`: (domain, `ai.onnx` for the default one; version), in file order.
    pub opsets: Vec<(String, i64)>,
    /// For each tensor of [`Model::tensors`] (by index): where it was found, and the depth of
    /// its graph (0: the main graph).
    pub sources: Vec<(TensorSource, u32)>,
    /// Tensors whose values are not one fixed-width little-endian byte range of this file
    /// (varint-encoded, external, unpacked, strings, sparse): (index, why). Previews refuse
    /// them with that text.
    pub not_in_place: Vec<(usize, String)>,
    /// Tensors stored in other files.
    pub external: Vec<ExternalData>,
    /// Tensors whose values are in a typed field of their `TensorProto` (varints, unpacked
    /// values, several runs): previews decode them ([`typed::decode`]).
    pub encoded: Vec<Encoded>,
    /// The side files opened with the model (by [`crate::open`]), for previews.
    pub side_files: Vec<SideFile>,
    /// Graphs read (the main graph and its subgraphs).
    pub graphs: u64,
    /// Nodes read, in every graph.
    pub nodes: u64,
    /// Bytes of tensor data skipped in the file (the payloads of every TensorProto's data
    /// fields, listed or not).
    pub payload_bytes: u64,
}

impl OnnxInfo {
    /// Why tensor `index` cannot be previewed in place, if it cannot.
    pub fn not_in_place(&self, index: usize) -> Option<&str> {
        self.not_in_place
            .iter()
            .find(|(i, _)| *i == index)
            .map(|(_, why)| why.as_str())
    }

    /// Tensor `index`'s typed-field values, if they are in one.
    pub fn encoded_of(&self, index: usize) -> Option<&Encoded> {
        self.encoded.iter().find(|e| e.tensor == index)
    }

    /// Tensor `index`'s external data, if its values are in a side file.
    pub fn external_of(&self, index: usize) -> Option<&ExternalData> {
        self.external.iter().find(|e| e.tensor == index)
    }

    /// The side file opened for tensor `index`, if its values are in one that was opened.
    pub fn side_file_of(&self, index: usize) -> Option<&SideFile> {
        let e = self.external_of(index)?;
        self.side_files.iter().find(|f| f.location == e.location)
    }
}

/// Whether the first bytes look like an ONNX `ModelProto`: field 1 `ir_version` (tag 0x08, a
/// varint of 1 to 1000) first, as every protobuf writer puts it, then at least one more
/// field, and as far as `head` goes only `ModelProto`'s fields with their wire types, or
/// fields numbered past the known ones (27 and up: added by a later ONNX). A safetensors
/// length (zeros after its first bytes), GGUF or zip magic, or text (single-byte tags of the
/// numbers 1–15) fails the walk.
pub fn sniff(head: &[u8]) -> bool {
    let mut h = Held::default();
    h.add(0, head.to_vec());
    let mut b = Bytes::new(&h);
    let end = head.len() as u64;
    let mut pos = 0u64;
    let mut fields = 0;
    while pos < end {
        let Ok(t) = wire::tag(&mut b, &mut pos, end) else {
            // A tag cut by the end of `head` is fine after a few good fields.
            return fields >= 2 && pos >= end.saturating_sub(wire::MAX_VARINT_LEN);
        };
        let want = match t.field {
            1 | 5 => Some(WireType::Varint),
            2 | 3 | 4 | 6 | 7 | 8 | 14 | 20 | 25 | 26 => Some(WireType::Len),
            27.. if fields > 0 => None,
            _ => return false,
        };
        if fields == 0 && t.field != 1 || want.is_some_and(|w| w != t.wire) {
            return false;
        }
        match t.wire {
            WireType::Varint => match wire::varint(&mut b, &mut pos, end) {
                Ok(v) if t.field != 1 || (1..=1000).contains(&v) => {}
                Ok(_) => return false,
                Err(_) => return fields >= 1,
            },
            WireType::Len => match wire::varint(&mut b, &mut pos, end) {
                // A length-delimited field: its payload may run past `head` (the graph does).
                Ok(n) => pos = pos.saturating_add(n),
                Err(_) => return fields >= 1,
            },
            WireType::I64 | WireType::I32 => {
                pos = pos.saturating_add(t.wire.fixed_len().unwrap_or(8));
            }
        }
        fields += 1;
    }
    fields >= 2
}

/// One step of reading an ONNX model from the bytes `held` (the file is `size` bytes;
/// `prefix` its first bytes, which `held` holds at offset 0): the model, or the next range to
/// read ([`Stop::NeedRange`]). A file that cannot be read to the end gives a model with the
/// tensors listed before the problem and the error in [`Model::error`].
///
/// The model's `header_size` is the file's size less the tensor data payloads skipped
/// ([`OnnxInfo::payload_bytes`]): the protobuf structure around the weights.
pub fn step(held: &Held, size: u64, prefix: &[u8]) -> Result<Model, Stop> {
    let mut p = Parser::new(held, size);
    let error = match p.run() {
        Ok(()) => None,
        Err(Halt::Need { at, min_end }) => {
            return Err(Stop::NeedRange(plan_read(
                at,
                min_end,
                p.bytes.reads_entered(),
                size,
            )))
        }
        Err(Halt::Fail(e)) => Some(e),
    };
    Ok(p.into_model(prefix, error))
}

/// The read to make when byte `at` is missing (and bytes up to `min_end` are needed), after
/// `reads` reads of a `size`-byte file, with `left` = [`READ_BUDGET`] − `reads` reads left
/// (this one included): the rest of the file / 2^(left − 1), at least [`MIN_READ`] and
/// `min_end`, at most the file's end. The last read takes the whole rest, so the listing
/// always ends within the budget; until the budget runs short, reads stay small and each can
/// skip the next large payload (halving rather than spreading the rest evenly: a file with
/// eight 4 MiB payloads lists reading 8 MiB of them, not 14).
pub fn plan_read(at: u64, min_end: u64, reads: u32, size: u64) -> Need {
    let rest = size.saturating_sub(at);
    let left = READ_BUDGET.saturating_sub(reads).max(1);
    let len = rest
        .checked_shr(left - 1)
        .unwrap_or(0)
        .max(MIN_READ)
        .max(u64::from(left == 1) * rest);
    Need {
        offset: at,
        len: len.max(min_end.saturating_sub(at)).min(rest),
    }
}

#[cfg(test)]
mod tests;
