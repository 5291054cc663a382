//! Detects the format from the first bytes, and names the common wrong inputs.

use super::error::{Error, ErrorKind};

/// Bytes [`sniff`] looks at (fewer when the file is shorter).
pub const SNIFF_LEN: u64 = 64;

/// A format this tool parses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// GGUF (any version, either byte order).
    Gguf,
    /// safetensors.
    Safetensors,
    /// A PyTorch zip archive (`torch.save` since 1.6, TorchScript `torch.jit.save`).
    Pytorch,
    /// A PyTorch checkpoint in the legacy format (`torch.save` before 1.6).
    PytorchLegacy,
    /// An ONNX model (a protobuf `ModelProto`).
    Onnx,
    /// NumPy: an `.npy` array, or an `.npz` zip of them.
    Numpy,
}

impl Format {
    /// Lowercase name used in JSON (`"gguf"`, `"safetensors"`, `"pytorch"`, `"pytorch-legacy"`).
    pub fn name(self) -> &'static str {
        match self {
            Format::Gguf => "gguf",
            Format::Safetensors => "safetensors",
            Format::Pytorch => "pytorch",
            Format::PytorchLegacy => "pytorch-legacy",
            Format::Onnx => "onnx",
            Format::Numpy => "numpy",
        }
    }
}

/// Whether `head` starts with a tar header as Python's `tarfile` (which `torch.load` tries
/// first) accepts it: 512 bytes, not all zero, whose checksum field (octal, at bytes 148–155)
/// is the sum of the header's bytes with that field read as spaces, unsigned or signed
/// (`tarfile.calc_chksums`). The `ustar` magic is not needed: tarfile reads the old V7 format
/// without it.
pub fn is_tar(head: &[u8]) -> bool {
    let Some(h) = head.get(..512) else {
        return false;
    };
    if h.iter().all(|&b| b == 0) {
        return false;
    }
    // tarfile's nti(): octal digits, after optional spaces, up to a NUL or space.
    let field = &h[148..156];
    let digits: Vec<u8> = field
        .iter()
        .copied()
        .skip_while(|&b| b == b' ')
        .take_while(|&b| b != 0 && b != b' ')
        .collect();
    if digits.is_empty() || !digits.iter().all(|b| (b'0'..=b'7').contains(b)) {
        return false;
    }
    let want = digits.iter().fold(0u64, |v, &d| {
        v.saturating_mul(8).saturating_add(u64::from(d - b'0'))
    });
    let (mut unsigned, mut signed) = (0u64, 0i64);
    for (i, &b) in h.iter().enumerate() {
        let b = if (148..156).contains(&i) { b' ' } else { b };
        unsigned += u64::from(b);
        signed += i64::from(b as i8);
    }
    want == unsigned || i64::try_from(want).is_ok_and(|w| w == signed)
}

/// Detects the format of a file from `head` (its first bytes, at least
/// `min(SNIFF_LEN, file_size)` of them) and its size. Errors name what the bytes look like
/// instead: an empty file, an HTML page, a Git LFS pointer, a safetensors index JSON, the
/// pre-GGUF ggml formats.
pub fn sniff(head: &[u8], file_size: u64) -> Result<Format, Error> {
    let not = |what: &str| {
        Err(Error::new(
            "file start",
            0,
            ErrorKind::NotAModel(what.into()),
        ))
    };
    if file_size == 0 {
        return not("the file is empty (0 bytes)");
    }
    if head.starts_with(b"GGUF") {
        return Ok(Format::Gguf);
    }
    // A zip archive starts with a local file header (an empty one with its end record).
    if head.starts_with(b"PK\x03\x04") {
        return Ok(Format::Pytorch);
    }
    if head.starts_with(super::numpy::NPY_MAGIC) {
        return Ok(Format::Numpy);
    }
    // torch.load tries a file as a tar archive before it reads it as pickles: a tar header
    // first (PyTorch before 0.1.10), whatever its first bytes look like.
    if is_tar(head) || head.starts_with(&super::torch::LEGACY_MAGIC) {
        return Ok(Format::PytorchLegacy);
    }
    if super::onnx::sniff(head) {
        return Ok(Format::Onnx);
    }
    // A protocol 0 or 1 pickle that starts with an import (`cos\nsystem\n`, or a MARK first).
    let text_pickle = |h: &[u8]| {
        let h = h.strip_prefix(b"(").unwrap_or(h);
        let Some(rest) = h.strip_prefix(b"c") else {
            return false;
        };
        let ident = |b: &u8| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'.';
        let mut lines = rest.splitn(3, |&b| b == b'\n');
        let (Some(m), Some(n)) = (lines.next(), lines.next()) else {
            return false;
        };
        !m.is_empty()
            && !n.is_empty()
            && m.iter().all(ident)
            && n.iter().all(ident)
            && lines.next().is_some()
    };
    if text_pickle(head) {
        return Ok(Format::PytorchLegacy);
    }
    // Any pickle of protocol 2 to 5 (a legacy checkpoint saved with another protocol, or a
    // plain pickle): read for its imports; the reader tells which it is.
    if head.starts_with(b"\x80") && head.get(1).is_some_and(|&p| (2..=5).contains(&p)) {
        return Ok(Format::PytorchLegacy);
    }
    if head.len() < 4 && file_size < 4 && b"GGUF".starts_with(head) {
        return not(&format!(
            "the file has only {file_size} bytes, less than a GGUF header (24 bytes)"
        ));
    }
    if let Some(old) = old_ggml(head) {
        return Err(Error::new(
            "magic",
            0,
            ErrorKind::NotAModel(format!(
                "this is a {old} file, the format llama.cpp used before GGUF (2023); convert it with llama.cpp's convert scripts"
            )),
        ));
    }
    // safetensors before any text heuristic: its first 8 bytes are a binary length whose low
    // byte can be anything, `<` and `{` included.
    let st_len = head
        .get(..8)
        .and_then(|b| <[u8; 8]>::try_from(b).ok())
        .map(u64::from_le_bytes);
    // The JSON may (wrongly) start with a byte-order mark or whitespace: still safetensors-shaped,
    // and the parser names the problem. A header length of 0 is safetensors-shaped too.
    let json_start = head
        .get(8..)
        .map(|j| j.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(j));
    let st_shaped = json_start.and_then(|j| j.iter().find(|b| !b.is_ascii_whitespace()))
        == Some(&b'{')
        || (st_len == Some(0) && file_size >= 8);
    if let (Some(n), true) = (st_len, st_shaped) {
        if n.checked_add(8).is_some_and(|end| end <= file_size) {
            return Ok(Format::Safetensors);
        }
    }
    let text = String::from_utf8_lossy(&head[..head.len().min(SNIFF_LEN as usize)]);
    let trimmed = text.trim_start_matches('\u{feff}').trim_start();
    if trimmed.starts_with("version https://git-lfs") {
        return not("this is a Git LFS pointer file (a small text file standing in for the real one); download the real file, e.g. with `git lfs pull`");
    }
    let lower = trimmed.to_ascii_lowercase();
    let html = ["<!doctype html", "<html", "<head", "<body", "<?xml", "<!--"];
    if html.iter().any(|h| lower.starts_with(h)) {
        return not(
            "this is an HTML page, not a model file (was a web page saved instead of the file?)",
        );
    }
    if trimmed.starts_with('{') {
        let all = String::from_utf8_lossy(head);
        if all.contains("\"weight_map\"") {
            return not("this is a safetensors index (*.safetensors.index.json), which lists the shards of a model; open the .safetensors shards it names");
        }
        return not("this is a JSON file, not a model file");
    }
    if st_shaped {
        // Safetensors-shaped, but the header runs past the end: the parser names the field.
        return Ok(Format::Safetensors);
    }
    not("not a GGUF, safetensors, PyTorch, ONNX or NumPy file (unrecognised first bytes)")
}

fn old_ggml(head: &[u8]) -> Option<&'static str> {
    // Magic u32 values of ggml's pre-GGUF containers, as written little-endian or big-endian.
    const OLD: [(&[u8; 4], &str); 4] = [
        (b"ggml", "ggml (unversioned)"),
        (b"ggmf", "GGMF"),
        (b"ggjt", "GGJT"),
        (b"ggla", "GGLA (LoRA adapter)"),
    ];
    let first: [u8; 4] = head.get(..4)?.try_into().ok()?;
    let mut rev = first;
    rev.reverse();
    OLD.iter()
        .find(|(m, _)| **m == first || **m == rev)
        .map(|(_, n)| *n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tar_header_is_told_by_its_checksum_not_its_magic() {
        // A V7 header: a name, octal fields, no ustar magic; the checksum as tarfile writes it.
        let mut h = vec![0u8; 1024];
        h[..8].copy_from_slice(b"storages");
        h[100..107].copy_from_slice(b"0000644");
        h[124..135].copy_from_slice(b"00000000012");
        h[148..156].copy_from_slice(b"        ");
        let sum: u32 = h[..512].iter().map(|&b| u32::from(b)).sum();
        h[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
        assert!(is_tar(&h));
        assert_eq!(sniff(&h, 1024), Ok(Format::PytorchLegacy));
        // One byte changed, a zero block, a short head: not a tar header.
        let mut bad = h.clone();
        bad[3] ^= 1;
        assert!(!is_tar(&bad));
        assert!(!is_tar(&[0u8; 512]));
        assert!(!is_tar(&h[..511]));
    }

    fn why(head: &[u8]) -> String {
        sniff(head, head.len() as u64).unwrap_err().to_string()
    }

    #[test]
    fn names_wrong_inputs() {
        assert!(why(b"").contains("empty"));
        assert!(why(b"<!DOCTYPE html><html>").contains("HTML page"));
        assert!(
            why(b"version https://git-lfs.github.com/spec/v1\noid sha256:").contains("Git LFS")
        );
        assert!(why(br#"{"metadata":{},"weight_map":{"a":"b"}}"#).contains("safetensors index"));
        assert!(why(b"tjgg\x01\x00\x00\x00").contains("GGJT"));
        assert!(why(b"\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09").contains("unrecognised"));
    }

    #[test]
    fn detects_formats() {
        assert_eq!(sniff(b"GGUF\x03\x00\x00\x00", 8), Ok(Format::Gguf));
        let mut st = 2u64.to_le_bytes().to_vec();
        st.extend(b"{}");
        assert_eq!(sniff(&st, 10), Ok(Format::Safetensors));
        // Header lengths whose low byte is `<` (60) or `{` (123), or that start with a space
        // (0x20): binary lengths, not text.
        for n in [60u64, 123, 15392, 31520] {
            let mut st = n.to_le_bytes().to_vec();
            st.push(b'{');
            assert_eq!(sniff(&st, n + 8), Ok(Format::Safetensors), "{n}");
        }
    }
}
