//! The formats weightpeek reads, in one list that every text naming them is made from or checked
//! against: the CLI's `--help`, the page's title, tagline, drop zone and file pickers
//! (`index.html`, checked by `tests/format_texts.rs`), the CLI's "is this a file name" rule and
//! the Hub listing's "no model files" message (issue #19: adding a format must not miss a text).

use super::reader::{PrefixStep, RangeStep, Reader};
use super::Format;

fn gguf_reader() -> Option<Box<dyn Reader>> {
    Some(super::gguf::GgufReader::boxed())
}

fn safetensors_reader() -> Option<Box<dyn Reader>> {
    Some(super::safetensors::SafetensorsReader::boxed())
}

// The formats the lean web module leaves to the full one: a constant condition, so the lean
// build links none of their code.

fn zip_reader() -> Option<Box<dyn Reader>> {
    crate::FULL.then(|| RangeStep::boxed(Format::Pytorch, super::container::zip_step))
}

fn legacy_reader() -> Option<Box<dyn Reader>> {
    crate::FULL.then(|| PrefixStep::boxed(Format::PytorchLegacy, super::torch::legacy_step))
}

fn npy_reader() -> Option<Box<dyn Reader>> {
    crate::FULL.then(|| PrefixStep::boxed(Format::Numpy, super::numpy::npy_step))
}

fn onnx_reader() -> Option<Box<dyn Reader>> {
    crate::FULL.then(|| RangeStep::boxed(Format::Onnx, super::onnx::step))
}

/// The header reader of `format` at the file's start, from [`FORMATS`]; `None` when this build
/// does not read it (the lean web module: see [`FormatInfo::reader`]).
pub fn reader(format: Format) -> Option<Box<dyn Reader>> {
    FORMATS
        .iter()
        .find(|f| f.format == format)
        .and_then(|f| (f.reader)())
}

/// One format: its name in texts and the file name endings its files have.
#[derive(Debug, Clone, Copy)]
pub struct FormatInfo {
    /// The format.
    pub format: Format,
    /// Its name in texts (`GGUF`, `PyTorch`).
    pub label: &'static str,
    /// File name endings, lowercase with the dot (`.gguf`); the first is the usual one.
    pub extensions: &'static [&'static str],
    /// Its header reader, at the file's start; `None` in a build that does not read it (the
    /// lean web module reads GGUF and safetensors only: [`crate::FULL`]).
    pub reader: fn() -> Option<Box<dyn Reader>>,
    /// Whether the lean web module reads it too (its `reader` is there in every build); the
    /// others are left to the full module.
    pub lean: bool,
}

/// Every format read, in the order texts name them. (PyTorch's `.bin` is also what other tools
/// call their weights; what a file is comes from its bytes, never from its name.)
pub const FORMATS: [FormatInfo; 6] = [
    FormatInfo {
        format: Format::Gguf,
        label: "GGUF",
        extensions: &[".gguf"],
        reader: gguf_reader,
        lean: true,
    },
    FormatInfo {
        format: Format::Safetensors,
        label: "safetensors",
        extensions: &[".safetensors"],
        reader: safetensors_reader,
        lean: true,
    },
    FormatInfo {
        format: Format::Pytorch,
        label: "PyTorch",
        extensions: &[".pt", ".pth", ".bin", ".ckpt", ".jit"],
        reader: zip_reader,
        lean: false,
    },
    FormatInfo {
        format: Format::PytorchLegacy,
        label: "PyTorch",
        extensions: &[".pt", ".pth", ".bin", ".tar"],
        reader: legacy_reader,
        lean: false,
    },
    FormatInfo {
        format: Format::Numpy,
        label: "NumPy",
        extensions: &[".npy", ".npz"],
        reader: npy_reader,
        lean: false,
    },
    FormatInfo {
        format: Format::Onnx,
        label: "ONNX",
        extensions: &[".onnx"],
        reader: onnx_reader,
        lean: false,
    },
];

/// The names of the formats `keep` keeps, once each, in order.
fn labels_of(keep: impl Fn(&FormatInfo) -> bool) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for f in FORMATS.iter().filter(|f| keep(f)) {
        if !out.contains(&f.label) {
            out.push(f.label);
        }
    }
    out
}

/// `a, b and c` of `labels` (with `joiner` as the last word: "and", "or").
fn join_labels(l: &[&str], joiner: &str) -> String {
    match l.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} {joiner} {last}", rest.join(", ")),
        _ => l.join(""),
    }
}

/// The formats' names once each, in order: `["GGUF", "safetensors", "PyTorch", "NumPy", "ONNX"]`.
pub fn labels() -> Vec<&'static str> {
    labels_of(|_| true)
}

/// `GGUF, safetensors, PyTorch, NumPy and ONNX` (with `joiner` as the last word: "and", "or").
pub fn labels_text(joiner: &str) -> String {
    join_labels(&labels(), joiner)
}

/// `PyTorch, NumPy and ONNX` (with `joiner` as the last word): the formats the lean web module
/// leaves to the full one ([`FormatInfo::lean`]).
pub fn full_only_labels_text(joiner: &str) -> String {
    join_labels(&labels_of(|f| !f.lean), joiner)
}

/// Every file name ending read, once each, in order (`.gguf`, `.safetensors`, `.pt`, …).
pub fn extensions() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for e in FORMATS.iter().flat_map(|f| f.extensions.iter().copied()) {
        if !out.contains(&e) {
            out.push(e);
        }
    }
    out
}

/// The format a file named `name` usually is, by its ending (case-insensitive; the first
/// format listed with that ending: `.pt` is [`Format::Pytorch`]). Only a guess for listings and
/// for telling file names from repository ids: what a file is comes from its bytes.
pub fn format_of_name(name: &str) -> Option<Format> {
    let lower = name.to_ascii_lowercase();
    FORMATS
        .iter()
        .find(|f| f.extensions.iter().any(|e| lower.ends_with(e)))
        .map(|f| f.format)
}

/// Whether `name` ends like a model file of some format (case-insensitive).
pub fn has_model_extension(name: &str) -> bool {
    format_of_name(name).is_some()
}

/// The file pickers' `accept` list: every ending, then `.json` (a shard index, a config) when
/// `with_json`, then `application/octet-stream` (a file with another name).
pub fn accept(with_json: bool) -> String {
    let mut parts: Vec<&str> = extensions();
    if with_json {
        parts.push(".json");
    }
    parts.push("application/octet-stream");
    parts.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_sniffed_format_is_listed_once_with_endings() {
        for f in [
            Format::Gguf,
            Format::Safetensors,
            Format::Pytorch,
            Format::PytorchLegacy,
            Format::Onnx,
            Format::Numpy,
        ] {
            let info: Vec<_> = FORMATS.iter().filter(|i| i.format == f).collect();
            assert_eq!(info.len(), 1, "{f:?}");
            assert!(!info[0].extensions.is_empty());
        }
        assert_eq!(
            labels_text("and"),
            "GGUF, safetensors, PyTorch, NumPy and ONNX"
        );
        assert!(has_model_extension("Model.ONNX"));
        assert_eq!(format_of_name("ckpt.pth.tar"), Some(Format::PytorchLegacy));
        assert_eq!(format_of_name("w.npz"), Some(Format::Numpy));
        assert!(!has_model_extension("README.md"));
        assert!(accept(true).starts_with(".gguf,.safetensors,.pt,"));
        assert_eq!(full_only_labels_text("and"), "PyTorch, NumPy and ONNX");
    }

    /// A format the lean module reads has its reader in every build; the others only in the
    /// full one.
    #[test]
    fn the_lean_flag_says_which_readers_every_build_has() {
        for f in &FORMATS {
            assert_eq!(
                (f.reader)().is_some(),
                f.lean || crate::FULL,
                "{:?}",
                f.format
            );
        }
    }
}
