//! The formats weightpeek reads, in one list that every text naming them is made from or checked
//! against: the CLI's `--help`, the page's title, tagline, drop zone and file pickers
//! (`index.html`, checked by `tests/format_texts.rs`), the CLI's "is this a file name" rule and
//! the Hub listing's "no model files" message (issue #19: adding a format must not miss a text).

use super::Format;

/// One format: its name in texts and the file name endings its files have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FormatInfo {
    /// The format.
    pub format: Format,
    /// Its name in texts (`GGUF`, `PyTorch`).
    pub label: &'static str,
    /// File name endings, lowercase with the dot (`.gguf`); the first is the usual one.
    pub extensions: &'static [&'static str],
}

/// Every format read, in the order texts name them. (PyTorch's `.bin` is also what other tools
/// call their weights; what a file is comes from its bytes, never from its name.)
pub const FORMATS: [FormatInfo; 6] = [
    FormatInfo {
        format: Format::Gguf,
        label: "GGUF",
        extensions: &[".gguf"],
    },
    FormatInfo {
        format: Format::Safetensors,
        label: "safetensors",
        extensions: &[".safetensors"],
    },
    FormatInfo {
        format: Format::Pytorch,
        label: "PyTorch",
        extensions: &[".pt", ".pth", ".bin", ".ckpt", ".jit"],
    },
    FormatInfo {
        format: Format::PytorchLegacy,
        label: "PyTorch",
        extensions: &[".pt", ".pth", ".bin", ".tar"],
    },
    FormatInfo {
        format: Format::Numpy,
        label: "NumPy",
        extensions: &[".npy", ".npz"],
    },
    FormatInfo {
        format: Format::Onnx,
        label: "ONNX",
        extensions: &[".onnx"],
    },
];

/// The formats' names once each, in order: `["GGUF", "safetensors", "PyTorch", "NumPy", "ONNX"]`.
pub fn labels() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for f in &FORMATS {
        if !out.contains(&f.label) {
            out.push(f.label);
        }
    }
    out
}

/// `GGUF, safetensors, PyTorch, NumPy and ONNX` (with `joiner` as the last word: "and", "or").
pub fn labels_text(joiner: &str) -> String {
    let l = labels();
    match l.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} {joiner} {last}", rest.join(", ")),
        _ => l.join(""),
    }
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
    }
}
