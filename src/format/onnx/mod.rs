//! ONNX models: a protobuf `ModelProto` (onnx/onnx.proto), read with a wire-format reader of
//! our own ([`wire`]) from byte ranges, skipping the tensors' payloads.
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

pub mod typed;
pub mod wire;

use std::borrow::Cow;

use super::error::{Error, ErrorKind, Warning};
use super::held::Held;
use super::safetensors::any_dtype;
use super::value::{MetadataEntry, Text, Value};
use super::zip::{Need, ZipStop};
use super::{element_count, DType, Endian, Format, Model, Sidecar, Tensor};
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

/// A tensor whose data is in another file (`data_location: EXTERNAL`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ExternalData {
    /// Index in [`Model::tensors`].
    pub tensor: usize,
    /// The `location` key: a path relative to the model's folder, as written.
    pub location: String,
    /// The `offset` key (0 when absent).
    pub offset: u64,
    /// The `length` key, when present.
    pub length: Option<u64>,
    /// Absolute offset of the tensor's `TensorProto` in the model file (for findings).
    pub at: u64,
    /// Why its values cannot be read from the side file, if they cannot (checked when the
    /// model is read, and again when the side file is opened: [`attach_side_file`]).
    pub problem: Option<SideProblem>,
}

/// Why an external tensor's values are not read.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub enum SideProblem {
    /// The location is not a plain relative path inside the model's folder (`..`, an absolute
    /// path, a drive, a URL, control characters, empty): it is never opened.
    Escapes(String),
    /// The side file was not given with the model (nor found beside it), or could not be
    /// opened: the text says which and why.
    NotOpened(String),
    /// The tensor's bytes (`offset`, `length`) do not lie inside the side file, whose size is
    /// given.
    Outside {
        /// The side file's size in bytes.
        size: u64,
    },
}

/// A side file of external data opened with the model (see [`attach_side_file`]).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SideFile {
    /// The `location` as the tensors write it.
    pub location: String,
    /// The name it was opened by (a path beside the model, a file given with it, a URL's
    /// name).
    pub name: String,
    /// Its size in bytes; `None` for a remote file not asked for yet (its first read gives
    /// it: previews read exact ranges, and a range past its end is refused by the server).
    pub size: Option<u64>,
    /// Index of its byte source among the opened files' sources (after the model file's).
    pub source: usize,
}

/// Why a `location` may not be opened: it must be a relative path of plain segments inside the
/// model's folder (the `onnx` package's checker refuses absolute paths and `..` too). `None`
/// when it may.
pub fn location_problem(location: &str) -> Option<String> {
    let why = if location.is_empty() {
        "it is empty"
    } else if location.chars().any(char::is_control) {
        "it holds control characters"
    } else if location.starts_with(['/', '\\']) {
        "it is an absolute path"
    } else if location.as_bytes().get(1) == Some(&b':') || location.contains("://") {
        "it names a drive or a URL"
    } else if location.split(['/', '\\']).any(|s| s == "..") {
        "it leaves the model's folder (`..`)"
    } else {
        return None;
    };
    Some(format!(
        "the external data location \"{location}\" is not a file inside the model's folder \
         ({why}): it is never opened"
    ))
}

/// The relative path of a side file (`location` with `./` segments and doubled separators
/// removed, `/`-separated), for a location without a [`location_problem`].
pub fn side_path(location: &str) -> String {
    location
        .split(['/', '\\'])
        .filter(|s| !s.is_empty() && *s != ".")
        .collect::<Vec<_>>()
        .join("/")
}

/// The external tensors' distinct locations that may be opened, in first-use order.
pub fn side_locations(info: &OnnxInfo) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for e in &info.external {
        if !matches!(e.problem, Some(SideProblem::Escapes(_))) && !out.contains(&e.location) {
            out.push(e.location.clone());
        }
    }
    out
}

/// Records that the side file `location` was opened as `name` (`size` bytes when known) with
/// byte source `source`: its tensors preview from it, except those whose bytes lie outside
/// it ([`SideProblem::Outside`]); `tensors` is the model's table (their byte sizes).
pub fn attach_side_file(
    info: &mut OnnxInfo,
    tensors: &[Tensor],
    location: &str,
    name: &str,
    size: Option<u64>,
    source: usize,
) {
    info.side_files.push(SideFile {
        location: location.to_string(),
        name: name.to_string(),
        size,
        source,
    });
    for e in info.external.iter_mut().filter(|e| e.location == location) {
        if matches!(e.problem, Some(SideProblem::Escapes(_))) {
            continue;
        }
        let bytes = tensors.get(e.tensor).and_then(|t| t.bytes);
        let end = bytes.and_then(|b| e.offset.checked_add(b));
        e.problem = match (size, end) {
            (Some(size), Some(end)) if end > size => Some(SideProblem::Outside { size }),
            (_, None) if bytes.is_some() => Some(SideProblem::Outside {
                size: size.unwrap_or(u64::MAX),
            }),
            _ => None,
        };
    }
    let keep: Vec<usize> = info
        .external
        .iter()
        .filter(|e| e.location == location && e.problem.is_none())
        .map(|e| e.tensor)
        .collect();
    info.not_in_place.retain(|(i, _)| !keep.contains(i));
    let outside: Vec<(usize, u64, u64)> = info
        .external
        .iter()
        .filter(|e| e.location == location)
        .filter_map(|e| match e.problem {
            Some(SideProblem::Outside { size }) => Some((e.tensor, e.offset, size)),
            _ => None,
        })
        .collect();
    for (tensor, offset, size) in outside {
        let why = format!(
            "its bytes from {offset} (the offset and length of its external data) lie outside \
             the {size}-byte side file \"{name}\": not read"
        );
        set_refusal(info, tensor, why);
    }
}

/// Records that the side file `location` could not be opened (`why`: not given, not found,
/// an error), in each of its tensors' refusals.
pub fn side_file_missing(info: &mut OnnxInfo, location: &str, why: &str) {
    let mut refusals = Vec::new();
    for e in info.external.iter_mut().filter(|e| e.location == location) {
        if !matches!(e.problem, Some(SideProblem::Escapes(_))) {
            e.problem = Some(SideProblem::NotOpened(why.to_string()));
            refusals.push(e.tensor);
        }
    }
    for i in refusals {
        set_refusal(
            info,
            i,
            format!("its values are in the external file: {why}"),
        );
    }
}

fn set_refusal(info: &mut OnnxInfo, index: usize, why: String) {
    info.not_in_place.retain(|(i, _)| *i != index);
    info.not_in_place.push((index, why));
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
/// read ([`ZipStop::Need`]). A file that cannot be read to the end gives a model with the
/// tensors listed before the problem and the error in [`Model::error`].
///
/// The model's `header_size` is the file's size less the tensor data payloads skipped
/// ([`OnnxInfo::payload_bytes`]): the protobuf structure around the weights.
pub fn step(held: &Held, size: u64, prefix: &[u8]) -> Result<Model, ZipStop> {
    let mut p = Parser::new(held, size);
    let error = match p.run() {
        Ok(()) => None,
        Err(Halt::Need { at, min_end }) => {
            return Err(ZipStop::Need(plan_read(
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

/// Why a parse stopped before the end.
enum Halt {
    /// Byte `at` is not held; bytes up to `min_end` are needed.
    Need { at: u64, min_end: u64 },
    /// The file is bad here.
    Fail(Error),
}

/// A tensor's data, as found in its `TensorProto`.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Data {
    None,
    /// `raw_data`: the payload's offset and length.
    Raw(u64, u64),
    /// Packed fixed-width values (`float_data` 4, `double_data` 8 bytes each).
    Fixed {
        field: &'static str,
        offset: u64,
        len: u64,
    },
    /// Values in typed fields (varints, unpacked, several runs): the fields present (a bit
    /// per field number) and the span from the first one's tag to the last one's end.
    Typed {
        fields: u32,
        start: u64,
        end: u64,
    },
    /// `string_data`: entries, their bytes, the first lengths.
    Strings {
        offset: u64,
        count: u64,
        bytes: u64,
        lens: Vec<u64>,
    },
    /// `data_location: EXTERNAL`.
    External {
        location: String,
        offset: u64,
        length: Option<u64>,
    },
}

/// A `TensorProto` being read.
#[derive(Debug, Clone, Default)]
struct TensorAcc {
    /// Offset of the message's tag.
    at: u64,
    dims: Vec<u64>,
    data_type: i32,
    name: String,
    raw: Option<(u64, u64)>,
    fixed: Option<(&'static str, u64, u64)>,
    /// Data fields 4, 5, 7, 10, 11 present (bit n for field n), how many runs of them (a
    /// packed run or one unpacked value each), and their span (first tag, last end).
    data_fields: u32,
    runs: u64,
    span: Option<(u64, u64)>,
    strings: Option<(u64, u64, u64)>,
    string_lens: Vec<u64>,
    external: Vec<(String, String)>,
    location: u64,
    segment: bool,
}

/// Most string lengths of a `string_data` tensor named in its listing.
const MAX_STRING_LENS: usize = 8;

impl TensorAcc {
    /// A run of data field `field` (a packed run, or one unpacked value) from its tag at
    /// `from` to `to`.
    fn data_run(&mut self, field: u32, from: u64, to: u64) {
        self.data_fields |= 1 << field;
        self.runs = self.runs.saturating_add(1);
        let (a, b) = self.span.get_or_insert((from, to));
        *a = (*a).min(from);
        *b = (*b).max(to);
    }

    fn data(&self, warnings: &mut Vec<Warning>) -> Data {
        if self.location == 1 {
            let get = |k: &str| {
                self.external
                    .iter()
                    .rev()
                    .find(|(key, _)| key == k)
                    .map(|(_, v)| v.as_str())
            };
            let mut num = |k: &str| {
                let v = get(k)?;
                match v.trim().parse::<u64>() {
                    Ok(n) => Some(n),
                    Err(_) => {
                        warnings.push(Warning {
                            field: format!("tensor \"{}\" external_data {k}", self.name),
                            offset: self.at,
                            message: format!("\"{v}\" is not a byte count"),
                        });
                        None
                    }
                }
            };
            let offset = num("offset").unwrap_or(0);
            let length = num("length");
            return Data::External {
                location: get("location").unwrap_or("").to_string(),
                offset,
                length,
            };
        }
        let one_packed_run = self.runs == 1 && self.fixed.is_some();
        if let Some((o, n)) = self.raw {
            Data::Raw(o, n)
        } else if let (Some((field, offset, len)), true) = (self.fixed, one_packed_run) {
            Data::Fixed { field, offset, len }
        } else if let Some((start, end)) = self.span {
            Data::Typed {
                fields: self.data_fields,
                start,
                end,
            }
        } else if let Some((offset, count, bytes)) = self.strings {
            Data::Strings {
                offset,
                count,
                bytes,
                lens: self.string_lens.clone(),
            }
        } else {
            Data::None
        }
    }
}

/// A tensor found, before it becomes a [`Tensor`].
#[derive(Debug, Clone)]
struct Found {
    name: String,
    tensor: TensorAcc,
    source: TensorSource,
    depth: u32,
    /// A sparse tensor's dense shape and its indices' tensor.
    sparse: Option<(Vec<u64>, Option<TensorAcc>)>,
}

/// What a frame of the stack is reading.
#[derive(Debug)]
enum Kind {
    Model,
    Graph {
        depth: u32,
        nodes: u64,
        inits: u64,
    },
    Node {
        output: Option<String>,
        name: String,
        op_type: String,
        domain: String,
        value: Option<Box<TensorAcc>>,
        attrs: u64,
        depth: u32,
    },
    Attr {
        name: String,
        tensor: Option<Box<TensorAcc>>,
        depth: u32,
    },
    Tensor(Box<TensorAcc>),
    Sparse {
        values: Option<Box<TensorAcc>>,
        indices: Option<Box<TensorAcc>>,
        dims: Vec<u64>,
        at: u64,
        depth: u32,
    },
    ValueInfo {
        output: bool,
        name: String,
        ty: Option<String>,
    },
    Type {
        text: Option<String>,
    },
    TensorType {
        sparse: bool,
        elem: i32,
        dims: Option<Vec<String>>,
    },
    Shape {
        dims: Vec<String>,
    },
    Dim {
        text: Option<String>,
    },
    Opset {
        domain: String,
        version: i64,
        at: u64,
    },
    Entry {
        key: String,
        value: String,
        at: u64,
    },
}

impl Kind {
    /// The message's name in onnx.proto.
    fn message(&self) -> &'static str {
        match self {
            Kind::Model => "ModelProto",
            Kind::Graph { .. } => "GraphProto",
            Kind::Node { .. } => "NodeProto",
            Kind::Attr { .. } => "AttributeProto",
            Kind::Tensor(_) => "TensorProto",
            Kind::Sparse { .. } => "SparseTensorProto",
            Kind::ValueInfo { .. } => "ValueInfoProto",
            Kind::Type { .. } => "TypeProto",
            Kind::TensorType { .. } => "TypeProto.Tensor",
            Kind::Shape { .. } => "TensorShapeProto",
            Kind::Dim { .. } => "TensorShapeProto.Dimension",
            Kind::Opset { .. } => "OperatorSetIdProto",
            Kind::Entry { .. } => "StringStringEntryProto",
        }
    }

    /// The name of field `f` of this message, for messages.
    fn field_name(&self, f: u32) -> Option<&'static str> {
        Some(match (self, f) {
            (Kind::Model, 1) => "ir_version",
            (Kind::Model, 2) => "producer_name",
            (Kind::Model, 3) => "producer_version",
            (Kind::Model, 4) => "domain",
            (Kind::Model, 5) => "model_version",
            (Kind::Model, 6) => "doc_string",
            (Kind::Model, 7) => "graph",
            (Kind::Model, 8) => "opset_import",
            (Kind::Model, 14) => "metadata_props",
            (Kind::Graph { .. }, 1) => "node",
            (Kind::Graph { .. }, 2) => "name",
            (Kind::Graph { .. }, 5) => "initializer",
            (Kind::Graph { .. }, 11) => "input",
            (Kind::Graph { .. }, 12) => "output",
            (Kind::Graph { .. }, 15) => "sparse_initializer",
            (Kind::Node { .. }, 2) => "output",
            (Kind::Node { .. }, 3) => "name",
            (Kind::Node { .. }, 4) => "op_type",
            (Kind::Node { .. }, 5) => "attribute",
            (Kind::Node { .. }, 7) => "domain",
            (Kind::Attr { .. }, 1) => "name",
            (Kind::Attr { .. }, 5) => "t",
            (Kind::Attr { .. }, 6) => "g",
            (Kind::Attr { .. }, 11) => "graphs",
            (Kind::Tensor(_), 1) => "dims",
            (Kind::Tensor(_), 2) => "data_type",
            (Kind::Tensor(_), 3) => "segment",
            (Kind::Tensor(_), 4) => "float_data",
            (Kind::Tensor(_), 5) => "int32_data",
            (Kind::Tensor(_), 6) => "string_data",
            (Kind::Tensor(_), 7) => "int64_data",
            (Kind::Tensor(_), 8) => "name",
            (Kind::Tensor(_), 9) => "raw_data",
            (Kind::Tensor(_), 10) => "double_data",
            (Kind::Tensor(_), 11) => "uint64_data",
            (Kind::Tensor(_), 13) => "external_data",
            (Kind::Tensor(_), 14) => "data_location",
            (Kind::Sparse { .. }, 1) => "values",
            (Kind::Sparse { .. }, 2) => "indices",
            (Kind::Sparse { .. }, 3) => "dims",
            (Kind::ValueInfo { .. }, 1) => "name",
            (Kind::ValueInfo { .. }, 2) => "type",
            (Kind::Type { .. }, 1) => "tensor_type",
            (Kind::TensorType { .. }, 1) => "elem_type",
            (Kind::TensorType { .. }, 2) => "shape",
            (Kind::Shape { .. }, 1) => "dim",
            (Kind::Dim { .. }, 1) => "dim_value",
            (Kind::Dim { .. }, 2) => "dim_param",
            (Kind::Opset { .. }, 1) => "domain",
            (Kind::Opset { .. }, 2) => "version",
            (Kind::Entry { .. }, 1) => "key",
            (Kind::Entry { .. }, 2) => "value",
            _ => return None,
        })
    }
}

/// One open message.
#[derive(Debug)]
struct Frame {
    kind: Kind,
    /// Absolute offset one past its last byte.
    end: u64,
    /// Its field's name in the parent (`graph`, `node`), and its place among its siblings.
    label: &'static str,
    index: Option<u64>,
}

/// What to do with a length-delimited field.
enum Len {
    /// A message: read its fields.
    Message(Kind, &'static str, Option<u64>),
    /// A string: read it.
    Str,
    /// Packed `int64` dims.
    Dims,
    /// Tensor data: skip it, noting where it is.
    Payload,
    /// Skip it unread.
    Skip,
    /// A subgraph past [`MAX_GRAPH_DEPTH`] (its parent's depth): skip it, with a warning.
    TooDeep(u32),
    /// A shape's dimension past [`MAX_DIMS`].
    TooManyDims,
    /// A `TensorProto.segment`: skip it, marking the tensor.
    Segment,
    /// A value type other than a tensor: its word, and skip it.
    TypeWord(&'static str),
}

/// The model's own fields and what the walk collected.
#[derive(Debug, Default)]
struct Collected {
    ir_version: Option<(i64, u64)>,
    producer_name: Option<Str>,
    producer_version: Option<Str>,
    domain: Option<Str>,
    model_version: Option<(i64, u64)>,
    doc_string: Option<Str>,
    graph_name: Option<Str>,
    graph_at: u64,
    opsets: Vec<(String, i64, u64)>,
    props: Vec<(String, String, u64)>,
    inputs: Vec<String>,
    outputs: Vec<String>,
    inputs_more: u64,
    outputs_more: u64,
    main_nodes: u64,
    subgraphs: u64,
    found: Vec<Found>,
}

/// A string value and where its field is.
#[derive(Debug, Clone)]
struct Str {
    text: String,
    at: u64,
}

struct Parser<'a> {
    bytes: Bytes<'a>,
    size: u64,
    pos: u64,
    stack: Vec<Frame>,
    c: Collected,
    info: OnnxInfo,
    warnings: Vec<Warning>,
    /// Offset of the tag of the field being read (for errors).
    field_at: u64,
}

impl<'a> Parser<'a> {
    fn new(held: &'a Held, size: u64) -> Self {
        Parser {
            bytes: Bytes::new(held),
            size,
            pos: 0,
            stack: vec![Frame {
                kind: Kind::Model,
                end: size,
                label: "ModelProto",
                index: None,
            }],
            c: Collected::default(),
            info: OnnxInfo::default(),
            warnings: Vec::new(),
            field_at: 0,
        }
    }

    /// `ModelProto.graph.node[3].attribute[0].g` and the field `f`'s name.
    fn path(&self, f: Option<u32>) -> String {
        let mut s = String::new();
        for (i, fr) in self.stack.iter().enumerate() {
            if i > 0 {
                s.push('.');
            }
            s.push_str(fr.label);
            if let Some(n) = fr.index {
                s.push_str(&format!("[{n}]"));
            }
        }
        if let (Some(f), Some(top)) = (f, self.stack.last()) {
            match top.kind.field_name(f) {
                Some(n) => s.push_str(&format!(".{n}")),
                None => s.push_str(&format!(" field {f}")),
            }
        }
        s
    }

    fn wire_error(&self, e: WireError, field: Option<u32>, min_end: u64) -> Halt {
        let kind = match e {
            WireError::Missing(at) => {
                return Halt::Need {
                    at,
                    min_end: min_end.max(at.saturating_add(1)),
                }
            }
            WireError::PastEnd { needed, end } if end >= self.size => ErrorKind::Truncated {
                needed_end: needed,
                file_size: self.size,
            },
            WireError::PastEnd { needed, end } => ErrorKind::Invalid(format!(
                "it runs to byte {needed}, past the end of its {} at byte {end}",
                self.stack.last().map_or("message", |f| f.kind.message())
            )),
            other => ErrorKind::Invalid(other.to_string()),
        };
        Halt::Fail(Error::new(self.path(field), self.field_at, kind))
    }

    fn fail(&self, field: Option<u32>, why: String) -> Halt {
        Halt::Fail(Error::new(
            self.path(field),
            self.field_at,
            ErrorKind::Invalid(why),
        ))
    }

    fn warn(&mut self, field: Option<u32>, message: String) {
        let field = self.path(field);
        self.warnings.push(Warning {
            field,
            offset: self.field_at,
            message,
        });
    }

    fn varint(&mut self, end: u64, field: Option<u32>) -> Result<u64, Halt> {
        let mut pos = self.pos;
        let r = wire::varint(&mut self.bytes, &mut pos, end);
        match r {
            Ok(v) => {
                self.pos = pos;
                Ok(v)
            }
            Err(e) => Err(self.wire_error(e, field, 0)),
        }
    }

    /// Reads a string payload (`len` bytes at `self.pos`); a longer one than [`MAX_STRING`] is
    /// skipped with a warning.
    fn string(&mut self, len: u64, field: u32) -> Result<Option<String>, Halt> {
        let at = self.pos;
        if len > MAX_STRING {
            self.warn(
                Some(field),
                format!("a {len}-byte string, longer than this tool reads ({MAX_STRING}): skipped"),
            );
            self.pos = at + len;
            return Ok(None);
        }
        let s = match self.bytes.slice(at, len) {
            Ok(s) => Text::decode(&s),
            Err(e) => return Err(self.wire_error(e, Some(field), at + len)),
        };
        if s.lossy {
            self.warn(
                Some(field),
                "not valid UTF-8: invalid bytes are shown as U+FFFD".into(),
            );
        }
        self.pos = at + len;
        Ok(Some(s.text))
    }

    /// The main loop: read fields until the root message ends.
    fn run(&mut self) -> Result<(), Halt> {
        loop {
            let Some(top) = self.stack.last() else {
                return Ok(());
            };
            let end = top.end;
            if self.pos >= end {
                self.pop()?;
                continue;
            }
            self.field_at = self.pos;
            let mut pos = self.pos;
            let t = match wire::tag(&mut self.bytes, &mut pos, end) {
                Ok(t) => t,
                Err(e) => return Err(self.wire_error(e, None, 0)),
            };
            self.pos = pos;
            match t.wire {
                WireType::Varint => {
                    let v = self.varint(end, Some(t.field))?;
                    self.on_varint(t, v)?;
                }
                WireType::I64 | WireType::I32 => {
                    let n = t.wire.fixed_len().unwrap_or(8);
                    let stop = self.pos.saturating_add(n);
                    if stop > end {
                        return Err(self.wire_error(
                            WireError::PastEnd { needed: stop, end },
                            Some(t.field),
                            0,
                        ));
                    }
                    self.on_fixed(t, self.pos);
                    self.pos = stop;
                }
                WireType::Len => {
                    let mut pos = self.pos;
                    let (start, len) = match wire::len_prefix(&mut self.bytes, &mut pos, end) {
                        Ok(x) => x,
                        Err(e) => return Err(self.wire_error(e, Some(t.field), 0)),
                    };
                    self.pos = start;
                    self.on_len(t, start, len)?;
                }
            }
        }
    }

    fn on_varint(&mut self, t: Tag, v: u64) -> Result<(), Halt> {
        let at = self.field_at;
        let Some(top) = self.stack.last_mut() else {
            return Ok(());
        };
        match (&mut top.kind, t.field) {
            (Kind::Tensor(_), 1) | (Kind::Sparse { .. }, 3) => return self.push_dim(v, t.field),
            (Kind::Model, 1) => self.c.ir_version = Some((wire::as_i64(v), at)),
            (Kind::Model, 5) => self.c.model_version = Some((wire::as_i64(v), at)),
            (Kind::Tensor(acc), 2) => acc.data_type = wire::as_i64(v) as i32,
            (Kind::Tensor(acc), 14) => acc.location = v,
            (Kind::Tensor(acc), f @ (5 | 7 | 11)) => {
                // One unpacked varint value.
                let size = self.pos.saturating_sub(at);
                acc.data_run(f, at, self.pos);
                self.info.payload_bytes = self.info.payload_bytes.saturating_add(size);
            }
            (Kind::TensorType { elem, .. }, 1) => *elem = wire::as_i64(v) as i32,
            (Kind::Dim { text }, 1) => *text = Some(wire::as_i64(v).to_string()),
            (Kind::Opset { version, .. }, 2) => *version = wire::as_i64(v),
            _ => {}
        }
        Ok(())
    }

    /// A dimension of a tensor's `dims` (or a sparse tensor's).
    fn push_dim(&mut self, v: u64, field: u32) -> Result<(), Halt> {
        let d = wire::as_i64(v);
        if d < 0 {
            return Err(self.fail(Some(field), format!("dimension {d} is negative")));
        }
        let dims = match self.stack.last_mut().map(|f| &mut f.kind) {
            Some(Kind::Tensor(acc)) => &mut acc.dims,
            Some(Kind::Sparse { dims, .. }) => dims,
            _ => return Ok(()),
        };
        if dims.len() >= MAX_DIMS {
            return Err(self.fail(Some(field), format!("more than {MAX_DIMS} dimensions")));
        }
        dims.push(d as u64);
        Ok(())
    }

    fn on_fixed(&mut self, t: Tag, value_at: u64) {
        let n = t.wire.fixed_len().unwrap_or(8);
        let Some(Frame {
            kind: Kind::Tensor(acc),
            ..
        }) = self.stack.last_mut()
        else {
            return;
        };
        if !matches!((t.field, t.wire), (4, WireType::I32) | (10, WireType::I64)) {
            return;
        }
        // One unpacked fixed-width value, its tag at `field_at`.
        acc.data_run(t.field, self.field_at, value_at.saturating_add(n));
        self.info.payload_bytes = self.info.payload_bytes.saturating_add(n);
    }

    fn on_len(&mut self, t: Tag, start: u64, len: u64) -> Result<(), Halt> {
        let end = start + len;
        let Some(top) = self.stack.last() else {
            return Ok(());
        };
        let action = match (&top.kind, t.field) {
            (Kind::Model, 2 | 3 | 4 | 6) => Len::Str,
            (Kind::Model, 7) => Len::Message(
                Kind::Graph {
                    depth: 0,
                    nodes: 0,
                    inits: 0,
                },
                "graph",
                None,
            ),
            (Kind::Model, 8) => Len::Message(
                Kind::Opset {
                    domain: String::new(),
                    version: 0,
                    at: self.field_at,
                },
                "opset_import",
                Some(self.c.opsets.len() as u64),
            ),
            (Kind::Model, 14) => Len::Message(
                Kind::Entry {
                    key: String::new(),
                    value: String::new(),
                    at: self.field_at,
                },
                "metadata_props",
                Some(self.c.props.len() as u64),
            ),
            (
                Kind::Graph {
                    depth,
                    nodes,
                    inits,
                },
                f,
            ) => {
                let depth = *depth;
                match f {
                    1 => Len::Message(
                        Kind::Node {
                            output: None,
                            name: String::new(),
                            op_type: String::new(),
                            domain: String::new(),
                            value: None,
                            attrs: 0,
                            depth,
                        },
                        "node",
                        Some(*nodes),
                    ),
                    2 if depth == 0 => Len::Str,
                    5 => Len::Message(
                        Kind::Tensor(Box::new(TensorAcc {
                            at: self.field_at,
                            ..Default::default()
                        })),
                        "initializer",
                        Some(*inits),
                    ),
                    11 | 12 if depth == 0 => Len::Message(
                        Kind::ValueInfo {
                            output: f == 12,
                            name: String::new(),
                            ty: None,
                        },
                        if f == 11 { "input" } else { "output" },
                        None,
                    ),
                    15 => Len::Message(
                        Kind::Sparse {
                            values: None,
                            indices: None,
                            dims: Vec::new(),
                            at: self.field_at,
                            depth,
                        },
                        "sparse_initializer",
                        None,
                    ),
                    _ => Len::Skip,
                }
            }
            (Kind::Node { attrs, depth, .. }, f) => match f {
                2..=4 | 7 => Len::Str,
                5 => Len::Message(
                    Kind::Attr {
                        name: String::new(),
                        tensor: None,
                        depth: *depth,
                    },
                    "attribute",
                    Some(*attrs),
                ),
                _ => Len::Skip,
            },
            (Kind::Attr { depth, .. }, f) => match f {
                1 => Len::Str,
                5 => Len::Message(
                    Kind::Tensor(Box::new(TensorAcc {
                        at: self.field_at,
                        ..Default::default()
                    })),
                    "t",
                    None,
                ),
                6 | 11 if *depth >= MAX_GRAPH_DEPTH => Len::TooDeep(*depth),
                6 | 11 => Len::Message(
                    Kind::Graph {
                        depth: *depth + 1,
                        nodes: 0,
                        inits: 0,
                    },
                    if f == 6 { "g" } else { "graphs" },
                    None,
                ),
                _ => Len::Skip,
            },
            (Kind::Tensor(_), f) => match f {
                1 => Len::Dims,
                8 => Len::Str,
                13 => Len::Message(
                    Kind::Entry {
                        key: String::new(),
                        value: String::new(),
                        at: self.field_at,
                    },
                    "external_data",
                    None,
                ),
                3 => Len::Segment,
                4 | 5 | 6 | 7 | 9 | 10 | 11 => Len::Payload,
                _ => Len::Skip,
            },
            (Kind::Sparse { .. }, f) => match f {
                1 | 2 => Len::Message(
                    Kind::Tensor(Box::new(TensorAcc {
                        at: self.field_at,
                        ..Default::default()
                    })),
                    if f == 1 { "values" } else { "indices" },
                    None,
                ),
                3 => Len::Dims,
                _ => Len::Skip,
            },
            (Kind::ValueInfo { .. }, 1) => Len::Str,
            (Kind::ValueInfo { .. }, 2) => Len::Message(Kind::Type { text: None }, "type", None),
            (Kind::Type { .. }, f @ (1 | 8)) => Len::Message(
                Kind::TensorType {
                    sparse: f == 8,
                    elem: 0,
                    dims: None,
                },
                if f == 1 {
                    "tensor_type"
                } else {
                    "sparse_tensor_type"
                },
                None,
            ),
            (Kind::Type { .. }, f @ (4 | 5 | 7 | 9)) => Len::TypeWord(match f {
                4 => "sequence",
                5 => "map",
                7 => "opaque",
                _ => "optional",
            }),
            (Kind::TensorType { .. }, 2) => {
                Len::Message(Kind::Shape { dims: Vec::new() }, "shape", None)
            }
            (Kind::Shape { dims }, 1) if dims.len() >= MAX_DIMS => Len::TooManyDims,
            (Kind::Shape { dims }, 1) => {
                Len::Message(Kind::Dim { text: None }, "dim", Some(dims.len() as u64))
            }
            (Kind::Dim { .. }, 2) => Len::Str,
            (Kind::Opset { .. }, 1) => Len::Str,
            (Kind::Entry { .. }, 1 | 2) => Len::Str,
            _ => Len::Skip,
        };
        match action {
            Len::Skip => self.pos = end,
            Len::TooDeep(depth) => {
                self.warn(
                    Some(t.field),
                    format!(
                        "a subgraph nested deeper than {MAX_GRAPH_DEPTH} levels (its parent is \
                         at depth {depth}): skipped, its tensors are not listed"
                    ),
                );
                self.pos = end;
            }
            Len::TooManyDims => {
                return Err(self.fail(Some(t.field), format!("more than {MAX_DIMS} dimensions")))
            }
            Len::Segment => {
                if let Some(Frame {
                    kind: Kind::Tensor(acc),
                    ..
                }) = self.stack.last_mut()
                {
                    acc.segment = true;
                }
                self.pos = end;
            }
            Len::TypeWord(word) => {
                if let Some(Frame {
                    kind: Kind::Type { text },
                    ..
                }) = self.stack.last_mut()
                {
                    *text = Some(word.to_string());
                }
                self.pos = end;
            }
            Len::Message(kind, label, index) => {
                if let Kind::Graph { depth, .. } = kind {
                    self.info.graphs += 1;
                    if depth == 0 {
                        self.c.graph_at = self.field_at;
                    }
                }
                self.count_child(t.field);
                self.stack.push(Frame {
                    kind,
                    end,
                    label,
                    index,
                });
            }
            Len::Str => {
                let s = self.string(len, t.field)?;
                if let Some(text) = s {
                    self.on_str(
                        t.field,
                        Str {
                            text,
                            at: self.field_at,
                        },
                    );
                }
            }
            Len::Dims => {
                while self.pos < end {
                    let v = self.varint(end, Some(t.field))?;
                    self.push_dim(v, t.field)?;
                }
            }
            Len::Payload => {
                self.on_payload(t.field, start, len);
                self.pos = end;
            }
        }
        Ok(())
    }

    /// Counts a child message in its parent (for the indexes in paths).
    fn count_child(&mut self, field: u32) {
        match self.stack.last_mut().map(|f| &mut f.kind) {
            Some(Kind::Graph { nodes, inits, .. }) => match field {
                1 => *nodes += 1,
                5 => *inits += 1,
                _ => {}
            },
            Some(Kind::Node { attrs, .. }) if field == 5 => *attrs += 1,
            _ => {}
        }
    }

    fn on_str(&mut self, field: u32, s: Str) {
        let Some(top) = self.stack.last_mut() else {
            return;
        };
        let s2 = s;
        match (&mut top.kind, field) {
            (Kind::Model, 2) => self.c.producer_name = Some(s2),
            (Kind::Model, 3) => self.c.producer_version = Some(s2),
            (Kind::Model, 4) => self.c.domain = Some(s2),
            (Kind::Model, 6) => self.c.doc_string = Some(s2),
            (Kind::Graph { .. }, 2) => self.c.graph_name = Some(s2),
            (Kind::Node { output, .. }, 2) if output.is_none() => *output = Some(s2.text),
            (Kind::Node { name, .. }, 3) => *name = s2.text,
            (Kind::Node { op_type, .. }, 4) => *op_type = s2.text,
            (Kind::Node { domain, .. }, 7) => *domain = s2.text,
            (Kind::Attr { name, .. }, 1) => *name = s2.text,
            (Kind::Tensor(acc), 8) => acc.name = s2.text,
            (Kind::ValueInfo { name, .. }, 1) => *name = s2.text,
            (Kind::Dim { text }, 2) => *text = Some(s2.text),
            (Kind::Opset { domain, .. }, 1) => *domain = s2.text,
            (Kind::Entry { key, .. }, 1) => *key = s2.text,
            (Kind::Entry { value, .. }, 2) => *value = s2.text,
            _ => {}
        }
    }

    fn on_payload(&mut self, field: u32, start: u64, len: u64) {
        self.info.payload_bytes = self.info.payload_bytes.saturating_add(len);
        let Some(Frame {
            kind: Kind::Tensor(acc),
            ..
        }) = self.stack.last_mut()
        else {
            return;
        };
        let tag_at = self.field_at;
        match field {
            9 => acc.raw = Some((start, len)),
            4 | 10 | 5 | 7 | 11 => {
                if field == 4 || field == 10 {
                    acc.fixed = Some((typed::field_name(field), start, len));
                }
                acc.data_run(field, tag_at, start.saturating_add(len));
            }
            6 => {
                let (_, c, b) = acc.strings.get_or_insert((start, 0, 0));
                *c += 1;
                *b = b.saturating_add(len);
                if acc.string_lens.len() < MAX_STRING_LENS {
                    acc.string_lens.push(len);
                }
            }
            _ => {}
        }
    }

    /// Ends the top message and hands what it read to its parent.
    fn pop(&mut self) -> Result<(), Halt> {
        let Some(done) = self.stack.pop() else {
            return Ok(());
        };
        let parent = self.stack.last_mut().map(|f| &mut f.kind);
        match (done.kind, parent) {
            (Kind::Tensor(acc), Some(Kind::Graph { depth, .. })) => {
                let depth = *depth;
                let name = acc.name.clone();
                self.found(Found {
                    name,
                    tensor: *acc,
                    source: TensorSource::Initializer,
                    depth,
                    sparse: None,
                })?;
            }
            (Kind::Tensor(acc), Some(Kind::Attr { tensor, .. })) => *tensor = Some(acc),
            (
                Kind::Tensor(acc),
                Some(Kind::Sparse {
                    values, indices, ..
                }),
            ) => {
                if done.label == "values" {
                    *values = Some(acc);
                } else {
                    *indices = Some(acc);
                }
            }
            (
                Kind::Attr {
                    name,
                    tensor: Some(t),
                    ..
                },
                Some(Kind::Node { value, .. }),
            ) if name == "value" => *value = Some(t),
            (
                Kind::Node {
                    output,
                    name,
                    op_type,
                    domain,
                    value,
                    depth,
                    ..
                },
                _,
            ) => {
                self.info.nodes += 1;
                if depth == 0 {
                    self.c.main_nodes += 1;
                }
                let default_domain = domain.is_empty() || domain == "ai.onnx";
                if let (true, true, Some(t)) = (op_type == "Constant", default_domain, value) {
                    let name = [output.unwrap_or_default(), t.name.clone(), name]
                        .into_iter()
                        .find(|n| !n.is_empty())
                        .unwrap_or_else(|| "constant".into());
                    self.found(Found {
                        name,
                        tensor: *t,
                        source: TensorSource::Constant,
                        depth,
                        sparse: None,
                    })?;
                }
            }
            (Kind::Graph { depth, .. }, _) if depth > 0 => self.c.subgraphs += 1,
            (
                Kind::Sparse {
                    values,
                    indices,
                    dims,
                    at,
                    depth,
                },
                _,
            ) => {
                let values = values.map(|v| *v).unwrap_or(TensorAcc {
                    at,
                    ..Default::default()
                });
                let name = if values.name.is_empty() {
                    "sparse".to_string()
                } else {
                    values.name.clone()
                };
                self.found(Found {
                    name,
                    tensor: values,
                    source: TensorSource::SparseInitializer,
                    depth,
                    sparse: Some((dims, indices.map(|i| *i))),
                })?;
            }
            (Kind::ValueInfo { output, name, ty }, Some(Kind::Graph { depth: 0, .. })) => {
                let text = format!("{name}: {}", ty.unwrap_or_else(|| "?".into()));
                let (list, more) = if output {
                    (&mut self.c.outputs, &mut self.c.outputs_more)
                } else {
                    (&mut self.c.inputs, &mut self.c.inputs_more)
                };
                if list.len() < MAX_IO_LISTED {
                    list.push(text);
                } else {
                    *more += 1;
                }
            }
            (Kind::Type { text }, Some(Kind::ValueInfo { ty, .. })) => *ty = text,
            (Kind::TensorType { sparse, elem, dims }, Some(Kind::Type { text })) => {
                let mut s = data_type_name(elem).to_lowercase();
                if sparse {
                    s = format!("sparse {s}");
                }
                if let Some(d) = dims {
                    s.push('[');
                    s.push_str(&d.join(","));
                    s.push(']');
                }
                *text = Some(s);
            }
            (Kind::Shape { dims }, Some(Kind::TensorType { dims: d, .. })) => *d = Some(dims),
            (Kind::Dim { text }, Some(Kind::Shape { dims })) => {
                dims.push(text.unwrap_or_else(|| "?".into()));
            }
            (
                Kind::Opset {
                    domain,
                    version,
                    at,
                },
                Some(Kind::Model),
            ) => self.c.opsets.push((domain, version, at)),
            (Kind::Entry { key, value, at }, Some(Kind::Model))
                if self.c.props.len() < MAX_META_PROPS =>
            {
                self.c.props.push((key, value, at))
            }
            (Kind::Entry { key, value, .. }, Some(Kind::Tensor(acc))) => {
                acc.external.push((key, value));
            }
            (Kind::Model, None) => {}
            _ => {}
        }
        Ok(())
    }

    fn found(&mut self, f: Found) -> Result<(), Halt> {
        if self.c.found.len() >= MAX_TENSORS {
            return Err(self.fail(
                None,
                format!("more than {MAX_TENSORS} tensors: the listing stops here"),
            ));
        }
        self.c.found.push(f);
        Ok(())
    }

    fn into_model(mut self, prefix: &[u8], mut error: Option<Error>) -> Model {
        if error.is_none() && self.info.graphs == 0 {
            error = Some(Error::new(
                "ModelProto.graph",
                self.size,
                ErrorKind::Invalid(
                    "the model has no graph (field 7): the file is cut short, or not an ONNX \
                     model"
                        .into(),
                ),
            ));
        } else if error.is_none() && self.c.opsets.is_empty() {
            self.warnings.push(Warning {
                field: "ModelProto.opset_import".into(),
                offset: self.size,
                message: "no opset_import: ONNX requires one (is the file cut short?)".into(),
            });
        }
        let mut metadata = Vec::new();
        let mut meta = |key: String, at: u64, value: Value| {
            metadata.push(MetadataEntry {
                key,
                offset: at,
                value,
            })
        };
        let c = std::mem::take(&mut self.c);
        if let Some((v, at)) = c.ir_version {
            meta("onnx.ir_version".into(), at, Value::I64(v));
            self.info.ir_version = Some(v);
        }
        let producer = [&c.producer_name, &c.producer_version]
            .into_iter()
            .flatten()
            .map(|s| s.text.as_str())
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        if !producer.is_empty() {
            let at = c
                .producer_name
                .as_ref()
                .or(c.producer_version.as_ref())
                .map_or(0, |s| s.at);
            meta("onnx.producer".into(), at, text(producer));
        }
        if let Some(d) = c.domain.as_ref().filter(|d| !d.text.is_empty()) {
            meta("onnx.domain".into(), d.at, text(d.text.clone()));
        }
        if let Some((v, at)) = c.model_version {
            meta("onnx.model_version".into(), at, Value::I64(v));
        }
        if let Some(d) = c.doc_string.as_ref().filter(|d| !d.text.is_empty()) {
            meta("onnx.doc_string".into(), d.at, text(d.text.clone()));
        }
        for (domain, version, at) in &c.opsets {
            let d = if domain.is_empty() { "ai.onnx" } else { domain };
            meta(format!("onnx.opset.{d}"), *at, Value::I64(*version));
            self.info.opsets.push((d.to_string(), *version));
        }
        if let Some(n) = c.graph_name.as_ref().filter(|d| !d.text.is_empty()) {
            meta("onnx.graph.name".into(), n.at, text(n.text.clone()));
        }
        for (key, list, more) in [
            ("onnx.graph.inputs", &c.inputs, c.inputs_more),
            ("onnx.graph.outputs", &c.outputs, c.outputs_more),
        ] {
            let mut s = list.join("; ");
            if more > 0 {
                s.push_str(&format!("; … and {more} more"));
            }
            meta(key.into(), c.graph_at, text(s));
        }
        meta(
            "onnx.graph.nodes".into(),
            c.graph_at,
            Value::U64(c.main_nodes),
        );
        if c.subgraphs > 0 {
            meta("onnx.subgraphs".into(), c.graph_at, Value::U64(c.subgraphs));
        }
        for (k, v, at) in &c.props {
            meta(format!("onnx.meta.{k}"), *at, text(v.clone()));
        }
        let mut tensors = Vec::with_capacity(c.found.len());
        for f in &c.found {
            let i = tensors.len();
            tensors.push(tensor_of(f, i, &mut self.info, &mut self.warnings));
            self.info.sources.push((f.source, f.depth));
        }
        let header_size = if error.is_none() {
            self.size.saturating_sub(self.info.payload_bytes)
        } else {
            self.pos.saturating_sub(self.info.payload_bytes)
        };
        Model {
            format: Format::Onnx,
            version: None,
            endian: Endian::Little,
            file_size: self.size,
            header_size,
            data_offset: 0,
            alignment: None,
            metadata_count: metadata.len() as u64,
            metadata,
            tensor_count: tensors.len() as u64,
            tensors,
            warnings: self.warnings,
            error,
            bytes: prefix.to_vec(),
            parts: Vec::new(),
            sidecar: Sidecar::default(),
            set: None,
            archive: None,
            onnx: Some(self.info),
        }
    }
}

fn text(s: impl Into<String>) -> Value {
    Value::String(Text {
        text: s.into(),
        lossy: false,
    })
}

/// Bytes `elements` values of `dtype` take as fixed-width little-endian values (rounded up to
/// a whole byte: F4's odd count ends in half a byte, as ONNX pads it).
fn st_bytes(dtype: &DType, elements: Option<u64>) -> Option<u64> {
    let DType::St(d) = dtype else { return None };
    elements?
        .checked_mul(u64::from(d.bits))
        .map(|bits| bits.div_ceil(8))
}

/// One tensor of the table from what was found, with why it cannot be previewed in place.
fn tensor_of(f: &Found, index: usize, info: &mut OnnxInfo, warnings: &mut Vec<Warning>) -> Tensor {
    let t = &f.tensor;
    let dtype = dtype_of(t.data_type);
    let mut note = None;
    let shape = match &f.sparse {
        Some((dims, _)) => dims.clone(),
        None => t.dims.clone(),
    };
    let elements = element_count(&shape);
    let want = st_bytes(&dtype, elements);
    let label = dtype.label();
    let mut refuse = |why: String| info.not_in_place.push((index, why));
    if t.segment {
        refuse("a segment of a tensor stored in several TensorProtos (`segment`)".into());
    }
    let (offset, bytes) = if let Some((_, indices)) = &f.sparse {
        let values = element_count(&t.dims);
        let mut stored = |a: &TensorAcc| match a.data(warnings) {
            Data::Raw(_, n) | Data::Fixed { len: n, .. } => Some(n),
            Data::Typed { .. } | Data::None => {
                st_bytes(&dtype_of(a.data_type), element_count(&a.dims))
            }
            Data::Strings { bytes, .. } => Some(bytes),
            Data::External { length, .. } => length,
        };
        let v_bytes = stored(t);
        let i_bytes = indices.as_ref().map_or(Some(0), stored);
        refuse(format!(
            "a sparse tensor ({} stored values and their indices): its dense values are not \
             stored, so it is not previewed",
            values.map_or("?".into(), |v| v.to_string())
        ));
        let offset = match t.data(warnings) {
            Data::Raw(o, _) | Data::Fixed { offset: o, .. } => o,
            _ => t.at,
        };
        (offset, v_bytes.and_then(|v| v.checked_add(i_bytes?)))
    } else {
        match t.data(warnings) {
            Data::Raw(o, n) => {
                if let Some(w) = want.filter(|&w| w != n) {
                    note = Some(format!(
                        "raw_data holds {n} bytes but {} elements of {label} need {w}",
                        elements.unwrap_or(0)
                    ));
                }
                (o, Some(n))
            }
            Data::Fixed { field, offset, len } => {
                // FLOAT, COMPLEX64 (pairs of floats); DOUBLE, COMPLEX128 (pairs of doubles).
                let fits = matches!(
                    (field, t.data_type),
                    ("float_data", 1 | 14) | ("double_data", 11 | 15)
                );
                if !fits {
                    refuse(format!(
                        "its values are in {field}, which does not hold {} values as they are \
                         stored in place",
                        data_type_name(t.data_type)
                    ));
                    (offset, want.or(Some(len)))
                } else {
                    if let Some(w) = want.filter(|&w| w != len) {
                        note = Some(format!(
                            "{field} holds {len} bytes but {} elements of {label} need {w}",
                            elements.unwrap_or(0)
                        ));
                    }
                    (offset, Some(len))
                }
            }
            Data::Typed { fields, start, end } => {
                let named = |mask: u32| {
                    [4u32, 5, 7, 10, 11]
                        .into_iter()
                        .filter(|f| mask & (1 << f) != 0)
                        .map(typed::field_name)
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                let field = typed::storage_field(t.data_type).filter(|f| fields & (1 << f) != 0);
                let values = elements.and_then(|n| typed::stored_values(t.data_type, n));
                match (field, values) {
                    (Some(field), Some(values)) if typed::stored_width(t.data_type).is_some() => {
                        info.encoded.push(Encoded {
                            tensor: index,
                            field,
                            data_type: t.data_type,
                            start,
                            len: end.saturating_sub(start),
                            values,
                        });
                    }
                    (Some(field), _) => refuse(format!(
                        "its values are in {}, as {} values: not previewed",
                        typed::field_name(field),
                        data_type_name(t.data_type)
                    )),
                    (None, _) => refuse(format!(
                        "its values are in {}, which onnx does not read for a {} tensor (it \
                         reads {}): onnx.numpy_helper.to_array refuses it",
                        named(fields),
                        data_type_name(t.data_type),
                        typed::storage_field(t.data_type).map_or("no field", typed::field_name)
                    )),
                }
                (start, want)
            }
            Data::Strings {
                offset,
                count,
                bytes,
                lens,
            } => {
                let mut shown: Vec<String> = lens.iter().map(u64::to_string).collect();
                if count > lens.len() as u64 {
                    shown.push("…".into());
                }
                refuse(format!(
                    "{count} strings of {} bytes ({bytes} bytes in string_data): text, not \
                     previewed",
                    shown.join(", ")
                ));
                (offset, Some(bytes))
            }
            Data::External {
                location,
                offset,
                length,
            } => {
                let problem = location_problem(&location);
                refuse(problem.clone().unwrap_or_else(|| {
                    format!(
                        "its values are in the external file \"{location}\" (at byte \
                         {offset}), which was not opened with the model: give it too (drop \
                         both files together, or keep it beside the .onnx)"
                    )
                }));
                info.external.push(ExternalData {
                    tensor: index,
                    location,
                    offset,
                    length,
                    at: t.at,
                    problem: problem.map(SideProblem::Escapes),
                });
                (offset, length.or(want))
            }
            Data::None if elements == Some(0) => (t.at, Some(0)),
            Data::None => {
                note = Some(format!(
                    "no data: {} elements of {label} but none of the data fields is set",
                    elements.map_or("?".into(), |n| n.to_string())
                ));
                (t.at, None)
            }
        }
    };
    if let Some(n) = &note {
        warnings.push(Warning {
            field: format!("tensor \"{}\"", f.name),
            offset: t.at,
            message: n.clone(),
        });
    }
    Tensor {
        name: f.name.clone(),
        dtype,
        shape,
        offset,
        elements,
        bytes,
        note,
    }
}

#[cfg(test)]
mod tests;
