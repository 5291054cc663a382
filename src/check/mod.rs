//! Validation findings: everything about a model file that is wrong, suspicious or worth
//! knowing, each with a severity, a stable code, the byte offset and the tensor it concerns.
//!
//! What llama.cpp's loader (`gguf.cpp`) or the safetensors library would refuse is an error;
//! what they accept but is unusual is a warning. A clean file reports no findings, and
//! [`CHECKS`] says what was looked at.
#![forbid(unsafe_code)]

use serde::Serialize;

pub mod doctor;
mod onnx;
mod pickle;
pub mod quant;
pub use pickle::pickle_findings;

use crate::format::{DType, Format, Model};

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The file is damaged, or a reference loader would refuse it.
    Error,
    /// Accepted by the loaders, but unusual or possibly wrong.
    Warning,
    /// Worth knowing; nothing wrong.
    Info,
}

impl Severity {
    /// The word shown for it: `error`, `warning` or `note`.
    pub fn word(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "note",
        }
    }
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// Error, warning or info.
    pub severity: Severity,
    /// Stable identifier, e.g. `data-beyond-eof`.
    pub code: &'static str,
    /// Plain-words description.
    pub message: String,
    /// Absolute byte offset it concerns, if any.
    pub offset: Option<u64>,
    /// Tensor it concerns, if any.
    pub tensor: Option<String>,
}

/// What [`check_one_file`] looks at, for the "no problems found" message.
pub const CHECKS: [&str; 10] = [
    "the header parses to the end",
    "every tensor's data lies inside the file",
    "tensor data ranges do not overlap",
    "gaps between tensors and trailing bytes",
    "offsets on the alignment grid (GGUF)",
    "byte sizes agree with shape and type",
    "tensor names and metadata keys are unique and non-empty",
    "names hold no control or bidirectional-override characters",
    "every type is known",
    "metadata values have the types loaders expect",
];

/// A finding of `severity` and `code`, with its message, the byte offset and the tensor it
/// concerns, if any.
pub fn finding(
    severity: Severity,
    code: &'static str,
    message: String,
    offset: Option<u64>,
    tensor: Option<&str>,
) -> Finding {
    Finding {
        severity,
        code,
        message,
        offset,
        tensor: tensor.map(str::to_string),
    }
}

/// Validation findings of one file's model, named so a set is not checked by mistake (an
/// `OpenedModel` derefs to its first file's `Model`): [`container_findings`] and then the doctor's
/// ([`add_doctor`]), errors first. (A model opened from a set of files, with the set's own
/// findings: [`crate::open::findings::check`].)
pub fn check_one_file(m: &Model) -> Vec<Finding> {
    let mut out = container_findings(m);
    add_doctor(m, &mut out);
    out
}

/// Appends the doctor's findings ([`doctor::doctor_findings`]) to `out`, the
/// [`container_findings`] of the same model, and sorts them as [`check_one_file`] does: the result
/// equals `check_one_file(m)`. (Both sorts are stable and by severity alone, so each severity keeps the
/// container's findings first, in their order, then the doctor's.) The doctor scans a
/// vocabulary token by token, so the page runs this after the first view is drawn.
pub fn add_doctor(m: &Model, out: &mut Vec<Finding>) {
    doctor::doctor_findings(m, out);
    out.sort_by_key(|f| f.severity);
}

/// Validation findings of one file's model without the doctor's, errors first: [`check_file`]
/// sorted by severity alone. (A model merged from several files is checked file by file by
/// [`crate::open::findings::container_findings`].)
pub fn container_findings(m: &Model) -> Vec<Finding> {
    let mut out = check_file(m);
    out.sort_by_key(|f| f.severity);
    out
}

/// Validation findings of one file's model (offsets relative to that file), sorted by
/// severity, then by offset.
pub fn check_file(m: &Model) -> Vec<Finding> {
    use Severity::*;
    let mut out = Vec::new();
    if let Some(e) = &m.error {
        out.push(finding(
            Error,
            "header-incomplete",
            format!("the header could not be read to the end: {e}"),
            Some(e.offset),
            None,
        ));
    }
    for w in &m.warnings {
        out.push(finding(
            Warning,
            "parser-warning",
            w.to_string(),
            Some(w.offset),
            None,
        ));
    }
    tensors(m, &mut out);
    names(m, &mut out);
    metadata_types(m, &mut out);
    // (No pickle and no ONNX model in the lean web module: GGUF and safetensors only.)
    if crate::FULL {
        pickle::pickle_findings(m, &mut out);
        onnx::external_findings(m, &mut out);
    }
    // A pickle that runs code comes first of all: it is what a person must not miss.
    let runs_code = |f: &Finding| f.code != "pickle-dangerous";
    out.sort_by(|a, b| {
        a.severity
            .cmp(&b.severity)
            .then(runs_code(a).cmp(&runs_code(b)))
            .then(a.offset.cmp(&b.offset))
    });
    out
}

fn tensors(m: &Model, out: &mut Vec<Finding>) {
    use Severity::*;
    let mut ranges: Vec<(u64, u64, &str)> = Vec::new();
    // The furthest end any tensor's data needs, to name a truncated file once.
    let mut needed_end = 0u64;
    let mut beyond = 0usize;
    for (i, t) in m.tensors.iter().enumerate() {
        let name = Some(t.name.as_str());
        // An ONNX tensor whose values are elsewhere (a side file) or encoded (varints), or an
        // array inside a deflated zip member (`np.savez_compressed`): its offset and size are
        // not a range of this file (the member's own size is checked by its reader).
        let elsewhere = m.onnx().is_some_and(|o| {
            o.not_in_place(i).is_some() || o.external_of(i).is_some() || o.encoded_of(i).is_some()
        }) || m.archive().is_some_and(|a| a.deflated_of(i).is_some());
        if t.elements.is_none() {
            out.push(finding(
                Error,
                "elements-overflow",
                format!(
                    "the product of the dimensions {:?} overflows 64 bits",
                    t.shape
                ),
                Some(t.offset),
                name,
            ));
        }
        if let DType::Ggml(g) = t.dtype {
            if g.info().is_none() {
                out.push(finding(
                    Warning,
                    "unknown-type",
                    format!(
                        "{}: not a type this tool (or llama.cpp) knows; its size is estimated from the next tensor's offset",
                        g.label()
                    ),
                    Some(t.offset),
                    name,
                ));
            }
        }
        if let DType::StUnknown(s) = &t.dtype {
            let message = match m.format {
                // NumPy's dtypes (text, structured, objects, dates): named as NumPy's, with
                // why the array is not previewed.
                Format::Numpy => m
                    .archive()
                    .and_then(|a| a.not_in_place.iter().find(|(k, _)| *k == i))
                    .map_or_else(
                        || format!("NumPy dtype \"{s}\": listed, not previewed by this tool"),
                        |(_, why)| why.clone(),
                    ),
                Format::Onnx => {
                    format!("ONNX data type {s}: listed, not previewed by this tool")
                }
                _ => format!("dtype \"{s}\" is not a safetensors 0.8 dtype"),
            };
            out.push(finding(
                Warning,
                "unknown-type",
                message,
                Some(t.offset),
                name,
            ));
        }
        if let Some(note) = &t.note {
            if t.dtype.bits_per_weight().is_some() {
                out.push(finding(
                    Error,
                    "size-mismatch",
                    note.clone(),
                    Some(t.offset),
                    name,
                ));
            }
        }
        if m.format == Format::Gguf {
            if let Some(a) = m.alignment.filter(|&a| a > 0) {
                let rel = t.offset.wrapping_sub(m.data_offset);
                if t.offset >= m.data_offset && rel % a != 0 {
                    out.push(finding(
                        Error,
                        "misaligned",
                        format!(
                            "data offset {rel} (relative to the data section) is not a multiple of the alignment {a}; llama.cpp refuses it"
                        ),
                        Some(t.offset),
                        name,
                    ));
                }
            }
        }
        let Some(bytes) = t.bytes else {
            if t.offset > m.file_size && !elsewhere {
                needed_end = needed_end.max(t.offset);
                beyond += 1;
                out.push(finding(
                    Error,
                    "data-beyond-eof",
                    format!(
                        "data beyond end of file: it starts at byte {} but the file has {} bytes",
                        t.offset, m.file_size
                    ),
                    Some(t.offset),
                    name,
                ));
            }
            continue;
        };
        match t.offset.checked_add(bytes) {
            _ if elsewhere => {}
            // A PyTorch file's storages are zip members or raw blocks with headers between
            // them, and views share them; an ONNX file's payloads sit between protobuf fields:
            // overlaps and gaps are normal there.
            Some(end) if end <= m.file_size && (m.archive().is_some() || m.onnx().is_some()) => {}
            Some(end) if end <= m.file_size => ranges.push((t.offset, end, &t.name)),
            Some(end) => {
                needed_end = needed_end.max(end);
                beyond += 1;
                out.push(finding(
                    Error,
                    "data-beyond-eof",
                    format!(
                        "data beyond end of file: bytes {}..{end} but the file has {} bytes",
                        t.offset, m.file_size
                    ),
                    Some(t.offset),
                    name,
                ))
            }
            None => out.push(finding(
                Error,
                "data-beyond-eof",
                "offset + size overflows 64 bits".into(),
                Some(t.offset),
                name,
            )),
        }
    }
    ranges.sort_unstable();
    let align = if m.format == Format::Gguf {
        m.alignment.unwrap_or(1).max(1)
    } else {
        1
    };
    let mut prev_end = m.data_offset;
    let mut prev_name: Option<&str> = None;
    for &(start, end, name) in &ranges {
        if start < prev_end && prev_name.is_some() {
            out.push(finding(
                Error,
                "overlap",
                format!(
                    "data {start}..{end} overlaps \"{}\" (which ends at {prev_end})",
                    prev_name.unwrap_or_default()
                ),
                Some(start),
                Some(name),
            ));
        } else if start > prev_end {
            let gap = start - prev_end;
            // GGUF pads every tensor to the alignment; only a larger gap is unusual.
            if gap >= align {
                let sev = if m.format == Format::Safetensors {
                    Warning
                } else {
                    Info
                };
                let why = if m.format == Format::Safetensors {
                    "; the safetensors library refuses files whose tensors do not cover the data section contiguously"
                } else {
                    ""
                };
                out.push(finding(
                    sev,
                    "gap",
                    format!("{gap} unused bytes before this tensor's data{why}"),
                    Some(prev_end),
                    Some(name),
                ));
            }
        }
        if end > prev_end {
            prev_end = end;
            prev_name = Some(name);
        }
    }
    if beyond > 0 {
        out.push(finding(
            Error,
            "truncated",
            format!(
                "the file is shorter than its tensors need: it has {} bytes, the data of {beyond} tensor(s) reaches byte {needed_end} (an incomplete download or a cut copy?)",
                m.file_size
            ),
            None,
            None,
        ));
    }
    if m.error.is_none() && beyond == 0 && !ranges.is_empty() && m.file_size > prev_end {
        let extra = m.file_size - prev_end;
        if extra >= align {
            out.push(finding(
                if m.format == Format::Safetensors {
                    Warning
                } else {
                    Info
                },
                "trailing-bytes",
                format!("{extra} bytes after the last tensor's data"),
                Some(prev_end),
                None,
            ));
        }
    }
}

fn names(m: &Model, out: &mut Vec<Finding>) {
    use Severity::*;
    // (name, offset) in file order, sorted stably by name: each run of one name starts with
    // its first occurrence in the file, whose offset the run's findings name (no search per
    // repeat, which was quadratic in a hostile file's tensor count).
    let mut seen: Vec<(&str, u64)> = m
        .tensors
        .iter()
        .map(|t| (t.name.as_str(), t.offset))
        .collect();
    seen.sort_by(|a, b| a.0.cmp(b.0));
    for run in seen.chunk_by(|a, b| a.0 == b.0) {
        let (name, offset) = run[0];
        // One finding per repeat.
        for _ in 1..run.len() {
            out.push(finding(
                Error,
                "duplicate-tensor",
                format!("tensor name \"{name}\" appears more than once"),
                Some(offset),
                Some(name),
            ));
        }
    }
    let mut keys: Vec<(&str, u64)> = m
        .metadata
        .iter()
        .map(|e| (e.key.as_str(), e.offset))
        .collect();
    keys.sort_unstable();
    for w in keys.windows(2) {
        if w[0].0 == w[1].0 {
            out.push(finding(
                Warning,
                "duplicate-key",
                format!(
                    "metadata key \"{}\" appears more than once; loaders keep one of them",
                    w[0].0
                ),
                Some(w[1].1),
                None,
            ));
        }
    }
    for e in &m.metadata {
        if e.key.is_empty() {
            out.push(finding(
                Warning,
                "empty-key",
                "a metadata key is empty".into(),
                Some(e.offset),
                None,
            ));
        }
    }
    let hidden = |s: &str| {
        s.chars()
            .any(|c| c.is_control() || crate::text::is_bidi_control(c))
    };
    for t in m.tensors.iter().filter(|t| hidden(&t.name)) {
        out.push(finding(
            Warning,
            "hidden-characters",
            "the tensor name contains control or bidirectional-override characters (shown escaped, e.g. \\u{202e})".into(),
            Some(t.offset),
            Some(&t.name),
        ));
    }
    for e in m.metadata.iter().filter(|e| hidden(&e.key)) {
        out.push(finding(
            Warning,
            "hidden-characters",
            format!(
                "metadata key \"{}\" contains control or bidirectional-override characters (shown escaped)",
                crate::text::escape(&e.key)
            ),
            Some(e.offset),
            None,
        ));
    }
    if m.tensors.iter().any(|t| t.name.is_empty()) {
        out.push(finding(
            Warning,
            "empty-name",
            "a tensor has an empty name".into(),
            None,
            Some(""),
        ));
    }
}

fn metadata_types(m: &Model, out: &mut Vec<Finding>) {
    use crate::format::ValueType;
    let expect = |key: &str, want: ValueType, out: &mut Vec<Finding>| {
        if let Some(e) = m.metadata.iter().find(|e| e.key == key) {
            let got = e.value.value_type();
            if got != want {
                out.push(finding(
                    Severity::Warning,
                    "metadata-type",
                    format!(
                        "\"{key}\" is {}, loaders expect {}",
                        got.name(),
                        want.name()
                    ),
                    Some(e.offset),
                    None,
                ));
            }
        }
    };
    expect("general.alignment", ValueType::U32, out);
    expect("general.architecture", ValueType::String, out);
    expect("general.file_type", ValueType::U32, out);
}
