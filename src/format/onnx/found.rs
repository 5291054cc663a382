//! What the parser finds in a `TensorProto` (its data's place, its name, type and shape) and
//! the message kinds it walks with their fields (the part of onnx.proto that is read).

use super::*;

/// A tensor's data, as found in its `TensorProto`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Data {
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
pub(super) struct TensorAcc {
    /// Offset of the message's tag.
    pub(super) at: u64,
    pub(super) dims: Vec<u64>,
    pub(super) data_type: i32,
    pub(super) name: String,
    pub(super) raw: Option<(u64, u64)>,
    pub(super) fixed: Option<(&'static str, u64, u64)>,
    /// Data fields 4, 5, 7, 10, 11 present (bit n for field n), how many runs of them (a
    /// packed run or one unpacked value each), and their span (first tag, last end).
    pub(super) data_fields: u32,
    pub(super) runs: u64,
    pub(super) span: Option<(u64, u64)>,
    pub(super) strings: Option<(u64, u64, u64)>,
    pub(super) string_lens: Vec<u64>,
    pub(super) external: Vec<(String, String)>,
    pub(super) location: u64,
    pub(super) segment: bool,
}

/// Most string lengths of a `string_data` tensor named in its listing.
pub(super) const MAX_STRING_LENS: usize = 8;

impl TensorAcc {
    /// A run of data field `field` (a packed run, or one unpacked value) from its tag at
    /// `from` to `to`.
    pub(super) fn data_run(&mut self, field: u32, from: u64, to: u64) {
        self.data_fields |= 1 << field;
        self.runs = self.runs.saturating_add(1);
        let (a, b) = self.span.get_or_insert((from, to));
        *a = (*a).min(from);
        *b = (*b).max(to);
    }

    pub(super) fn data(&self, warnings: &mut Vec<Warning>) -> Data {
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
pub(super) struct Found {
    pub(super) name: String,
    pub(super) tensor: TensorAcc,
    pub(super) source: TensorSource,
    pub(super) depth: u32,
    /// A sparse tensor's dense shape and its indices' tensor.
    pub(super) sparse: Option<(Vec<u64>, Option<TensorAcc>)>,
}

/// What a frame of the stack is reading.
#[derive(Debug)]
pub(super) enum Kind {
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
    pub(super) fn message(&self) -> &'static str {
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
    pub(super) fn field_name(&self, f: u32) -> Option<&'static str> {
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
