//! ONNX external data findings: a `location` outside the model's folder (never opened), a
//! tensor whose bytes lie outside its side file, and side files that were not opened (their
//! tensors are listed, not previewed).

use super::{finding, Finding, Severity};
use crate::format::onnx::SideProblem;
use crate::format::Model;

/// Adds the external data findings of `m` (an ONNX model) to `out`.
pub(super) fn external_findings(m: &Model, out: &mut Vec<Finding>) {
    let Some(info) = m.onnx() else { return };
    let mut not_opened: Vec<(&str, u64, usize)> = Vec::new();
    for e in &info.external {
        let name = m.tensors.get(e.tensor).map(|t| t.name.as_str());
        match &e.problem {
            Some(SideProblem::Escapes(why)) => out.push(finding(
                Severity::Error,
                "onnx-external-location",
                why.clone(),
                Some(e.at),
                name,
            )),
            Some(SideProblem::Outside { size }) => {
                let bytes = name
                    .and_then(|_| m.tensors.get(e.tensor))
                    .and_then(|t| t.bytes)
                    .map_or("?".into(), |b| b.to_string());
                out.push(finding(
                    Severity::Error,
                    "onnx-external-beyond-eof",
                    format!(
                        "its external data (offset {}, {bytes} bytes) lies outside the \
                         {size}-byte side file \"{}\": the onnx package refuses it",
                        e.offset, e.location
                    ),
                    Some(e.at),
                    name,
                ))
            }
            Some(SideProblem::NotOpened(_)) | None if info.side_file_of(e.tensor).is_none() => {
                match not_opened.iter_mut().find(|(l, _, _)| *l == e.location) {
                    Some(n) => n.2 += 1,
                    None => not_opened.push((&e.location, e.at, 1)),
                }
            }
            _ => {}
        }
    }
    for (location, at, n) in not_opened {
        out.push(finding(
            Severity::Info,
            "onnx-external-not-opened",
            format!(
                "{n} tensor{} keep their values in the side file \"{location}\", which was not \
                 opened with the model: they are listed, not previewed (give the file too)",
                if n == 1 { "" } else { "s" }
            ),
            Some(at),
            None,
        ));
    }
}
