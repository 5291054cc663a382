//! Tensors whose data is in another file (`data_location: EXTERNAL`): where they point, whether
//! that is a file beside the model, and the side file once the driver has read it.

use super::*;

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
