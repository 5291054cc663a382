//! The walk over the held bytes: an explicit stack of open messages (nothing recurses), each
//! field dispatched by the message kind it is in; payloads are skipped by their length.

use super::*;

/// Why a parse stopped before the end.
pub(super) enum Halt {
    /// Byte `at` is not held; bytes up to `min_end` are needed.
    Need { at: u64, min_end: u64 },
    /// The file is bad here.
    Fail(Error),
}

/// One open message.
#[derive(Debug)]
pub(super) struct Frame {
    pub(super) kind: Kind,
    /// Absolute offset one past its last byte.
    pub(super) end: u64,
    /// Its field's name in the parent (`graph`, `node`), and its place among its siblings.
    pub(super) label: &'static str,
    pub(super) index: Option<u64>,
}

/// What to do with a length-delimited field.
pub(super) enum Len {
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
pub(super) struct Collected {
    pub(super) ir_version: Option<(i64, u64)>,
    pub(super) producer_name: Option<Str>,
    pub(super) producer_version: Option<Str>,
    pub(super) domain: Option<Str>,
    pub(super) model_version: Option<(i64, u64)>,
    pub(super) doc_string: Option<Str>,
    pub(super) graph_name: Option<Str>,
    pub(super) graph_at: u64,
    pub(super) opsets: Vec<(String, i64, u64)>,
    pub(super) props: Vec<(String, String, u64)>,
    pub(super) inputs: Vec<String>,
    pub(super) outputs: Vec<String>,
    pub(super) inputs_more: u64,
    pub(super) outputs_more: u64,
    pub(super) main_nodes: u64,
    pub(super) subgraphs: u64,
    pub(super) found: Vec<Found>,
}

/// A string value and where its field is.
#[derive(Debug, Clone)]
pub(super) struct Str {
    pub(super) text: String,
    pub(super) at: u64,
}

pub(super) struct Parser<'a> {
    pub(super) bytes: Bytes<'a>,
    pub(super) size: u64,
    pub(super) pos: u64,
    pub(super) stack: Vec<Frame>,
    pub(super) c: Collected,
    pub(super) info: OnnxInfo,
    pub(super) warnings: Vec<Warning>,
    /// Offset of the tag of the field being read (for errors).
    pub(super) field_at: u64,
}

impl<'a> Parser<'a> {
    pub(super) fn new(held: &'a Held, size: u64) -> Self {
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
    pub(super) fn path(&self, f: Option<u32>) -> String {
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

    pub(super) fn wire_error(&self, e: WireError, field: Option<u32>, min_end: u64) -> Halt {
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

    pub(super) fn fail(&self, field: Option<u32>, why: String) -> Halt {
        Halt::Fail(Error::new(
            self.path(field),
            self.field_at,
            ErrorKind::Invalid(why),
        ))
    }

    pub(super) fn warn(&mut self, field: Option<u32>, message: String) {
        let field = self.path(field);
        self.warnings.push(Warning {
            field,
            offset: self.field_at,
            message,
        });
    }

    pub(super) fn varint(&mut self, end: u64, field: Option<u32>) -> Result<u64, Halt> {
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
    pub(super) fn string(&mut self, len: u64, field: u32) -> Result<Option<String>, Halt> {
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
    pub(super) fn run(&mut self) -> Result<(), Halt> {
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

    pub(super) fn on_varint(&mut self, t: Tag, v: u64) -> Result<(), Halt> {
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
    pub(super) fn push_dim(&mut self, v: u64, field: u32) -> Result<(), Halt> {
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

    pub(super) fn on_fixed(&mut self, t: Tag, value_at: u64) {
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

    pub(super) fn on_len(&mut self, t: Tag, start: u64, len: u64) -> Result<(), Halt> {
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
    pub(super) fn count_child(&mut self, field: u32) {
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

    pub(super) fn on_str(&mut self, field: u32, s: Str) {
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

    pub(super) fn on_payload(&mut self, field: u32, start: u64, len: u64) {
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
}
