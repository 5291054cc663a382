//! Ending messages (a tensor found, a graph or node done) and turning what was collected into
//! the [`Model`]: the tensor table with why a tensor cannot be previewed in place.

use super::*;

impl<'a> Parser<'a> {
    /// Ends the top message and hands what it read to its parent.
    pub(super) fn pop(&mut self) -> Result<(), Halt> {
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

    pub(super) fn found(&mut self, f: Found) -> Result<(), Halt> {
        if self.c.found.len() >= MAX_TENSORS {
            return Err(self.fail(
                None,
                format!("more than {MAX_TENSORS} tensors: the listing stops here"),
            ));
        }
        self.c.found.push(f);
        Ok(())
    }

    pub(super) fn into_model(mut self, prefix: &[u8], mut error: Option<Error>) -> Model {
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
            detail: crate::format::Detail::Onnx(self.info),
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
