//! NumPy arrays: `.npy` files and the `.npy` members of an `.npz` zip archive (numpy's
//! `lib/format.py`, format versions 1.0–3.0).
//!
//! An `.npy` file is the magic `\x93NUMPY`, a major and minor version byte, the header's length
//! (2 bytes little-endian in version 1, 4 bytes in versions 2 and 3), the header — a Python dict
//! literal `{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }`, space-padded and ending
//! in a newline — and the array's bytes. The dict is parsed here by its own small grammar
//! (strings, booleans, tuples of integers); nothing is evaluated.
//!
//! A Fortran-ordered array's bytes are column-major: it is listed with its shape and previewed
//! as its transpose (the shape reversed), which is what its bytes hold row by row; a note says
//! so. Big-endian arrays (`>f4`) are listed; their values are not previewed. A deflated `.npz`
//! member (`np.savez_compressed`) is previewed by inflating its compressed bytes up to the
//! window ([`super::torch::DeflatedMember`], `crate::preview`).

use super::error::{Error, ErrorKind, Warning};
use super::held::Held;
use super::safetensors::any_dtype;
use super::torch::Archive;
use super::value::{MetadataEntry, Text, Value};
use super::zip::{self, Entry, Need, ZipStop};
use super::{element_count, DType, Format, Model, Stop, Tensor};

/// The first six bytes of an `.npy` file.
pub const NPY_MAGIC: &[u8; 6] = b"\x93NUMPY";

/// Largest `.npy` header read: 1 MiB (numpy writes 64–4096 bytes; its own reader refuses more
/// than 10,000 by default).
pub const MAX_NPY_HEADER: u64 = 1 << 20;

/// Deepest shape this reader takes (numpy's `NPY_MAXDIMS` is 64).
pub const MAX_NPY_DIMS: usize = 64;

/// A parsed `.npy` header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NpyHeader {
    /// Format version (major, minor).
    pub version: (u8, u8),
    /// The dtype string as written (`<f4`).
    pub descr: String,
    /// Whether the bytes are in Fortran (column-major) order.
    pub fortran_order: bool,
    /// The array's shape.
    pub shape: Vec<u64>,
    /// Offset of the array's first byte, relative to the start of the `.npy` bytes.
    pub data_start: u64,
}

/// Why an `.npy` header could not be read yet: more bytes are needed (the length from the
/// start of the `.npy` bytes), or it is bad.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NpyStop {
    /// The header needs this many bytes from the start of the `.npy` bytes.
    Need(u64),
    /// The header is bad.
    Fail(Error),
}

fn bad(base: u64, why: impl Into<String>) -> NpyStop {
    NpyStop::Fail(Error::new(
        "npy header",
        base,
        ErrorKind::Invalid(why.into()),
    ))
}

/// Reads the `.npy` header at the start of `b` (whose first byte is at absolute offset `base`,
/// for messages).
pub fn parse_header(b: &[u8], base: u64) -> Result<NpyHeader, NpyStop> {
    if b.len() < 10 {
        return Err(NpyStop::Need(10));
    }
    if &b[..6] != NPY_MAGIC {
        return Err(bad(base, "not an .npy array (no \\x93NUMPY magic)"));
    }
    let version = (b[6], b[7]);
    let (len, start) = match version.0 {
        1 => (u64::from(u16::from_le_bytes([b[8], b[9]])), 10u64),
        2 | 3 => {
            if b.len() < 12 {
                return Err(NpyStop::Need(12));
            }
            (
                u64::from(u32::from_le_bytes([b[8], b[9], b[10], b[11]])),
                12,
            )
        }
        v => {
            return Err(bad(
                base + 6,
                format!("npy format version {v}, not 1, 2 or 3"),
            ))
        }
    };
    if len > MAX_NPY_HEADER {
        return Err(bad(
            base + 8,
            format!("a {len}-byte header, more than this tool reads ({MAX_NPY_HEADER})"),
        ));
    }
    let end = start + len;
    let Some(text) = b.get(start as usize..end as usize) else {
        return Err(NpyStop::Need(end));
    };
    // Version 3 is UTF-8, the others latin-1 (ASCII in practice).
    let text: String = if version.0 == 3 {
        String::from_utf8_lossy(text).into_owned()
    } else {
        text.iter().map(|&c| char::from(c)).collect()
    };
    let (descr, fortran_order, shape) =
        parse_dict(&text).map_err(|why| bad(base + start, format!("{why} in {text:?}")))?;
    Ok(NpyHeader {
        version,
        descr,
        fortran_order,
        shape,
        data_start: end,
    })
}

/// The three keys of the header dict, from its text.
fn parse_dict(text: &str) -> Result<(String, bool, Vec<u64>), String> {
    let mut p = Lit {
        s: text.as_bytes(),
        i: 0,
    };
    p.ws();
    p.eat(b'{')?;
    let (mut descr, mut fortran, mut shape) = (None, None, None);
    loop {
        p.ws();
        if p.peek() == Some(b'}') {
            break;
        }
        let key = p.string()?;
        p.ws();
        p.eat(b':')?;
        p.ws();
        match key.as_str() {
            "descr" => {
                if p.peek() == Some(b'[') {
                    return Err(
                        "a structured dtype (a list of fields), not read by this tool".into(),
                    );
                }
                descr = Some(p.string()?);
            }
            "fortran_order" => fortran = Some(p.boolean()?),
            "shape" => shape = Some(p.shape()?),
            k => return Err(format!("an unexpected key {k:?}")),
        }
        p.ws();
        match p.peek() {
            Some(b',') => p.i += 1,
            Some(b'}') => break,
            _ => return Err(format!("expected , or }} at character {}", p.i)),
        }
    }
    Ok((
        descr.ok_or("no 'descr'")?,
        fortran.ok_or("no 'fortran_order'")?,
        shape.ok_or("no 'shape'")?,
    ))
}

/// A cursor over a Python literal.
struct Lit<'a> {
    s: &'a [u8],
    i: usize,
}

impl Lit<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }
    fn ws(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_whitespace()) {
            self.i += 1;
        }
    }
    fn eat(&mut self, c: u8) -> Result<(), String> {
        if self.peek() == Some(c) {
            self.i += 1;
            Ok(())
        } else {
            Err(format!(
                "expected {:?} at character {}",
                char::from(c),
                self.i
            ))
        }
    }
    fn string(&mut self) -> Result<String, String> {
        let q = self
            .peek()
            .filter(|&c| c == b'\'' || c == b'"')
            .ok_or("expected a string")?;
        self.i += 1;
        let start = self.i;
        while let Some(c) = self.peek() {
            if c == q {
                let s = String::from_utf8_lossy(&self.s[start..self.i]).into_owned();
                self.i += 1;
                return Ok(s);
            }
            if c == b'\\' {
                return Err("an escape in a string, not read by this tool".into());
            }
            self.i += 1;
        }
        Err("an unterminated string".into())
    }
    fn boolean(&mut self) -> Result<bool, String> {
        for (word, v) in [(&b"True"[..], true), (&b"False"[..], false)] {
            if self.s[self.i..].starts_with(word) {
                self.i += word.len();
                return Ok(v);
            }
        }
        Err("expected True or False".into())
    }
    fn shape(&mut self) -> Result<Vec<u64>, String> {
        self.eat(b'(')?;
        let mut dims = Vec::new();
        loop {
            self.ws();
            match self.peek() {
                Some(b')') => {
                    self.i += 1;
                    return Ok(dims);
                }
                Some(b',') if !dims.is_empty() => self.i += 1,
                Some(c) if c.is_ascii_digit() => {
                    let start = self.i;
                    while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                        self.i += 1;
                    }
                    let t = std::str::from_utf8(&self.s[start..self.i]).unwrap_or("");
                    let d = t
                        .parse::<u64>()
                        .map_err(|_| format!("a dimension {t} past 2^64"))?;
                    if dims.len() == MAX_NPY_DIMS {
                        return Err(format!("more than {MAX_NPY_DIMS} dimensions"));
                    }
                    dims.push(d);
                }
                _ => return Err(format!("expected a dimension at character {}", self.i)),
            }
        }
    }
}

/// The dtype of a descr (`<f4`, `|b1`, `<c8`), and whether it is big-endian. Unknown and
/// unsupported ones (`<U8` strings, `O` objects, `<c16`) are [`DType::StUnknown`].
pub fn descr_dtype(descr: &str) -> (DType, bool) {
    let (order, code) = match descr.as_bytes().first() {
        Some(b'<' | b'|' | b'=') => (false, &descr[1..]),
        Some(b'>') => (true, &descr[1..]),
        _ => (false, descr),
    };
    let name = match code {
        "f4" => "F32",
        "f8" => "F64",
        "f2" => "F16",
        "i8" => "I64",
        "i4" => "I32",
        "i2" => "I16",
        "i1" => "I8",
        "u8" => "U64",
        "u4" => "U32",
        "u2" => "U16",
        "u1" => "U8",
        "b1" => "BOOL",
        "c8" => "C64",
        "c16" => "C128",
        _ => "",
    };
    match any_dtype(name) {
        Some(d) if !order || d.bits <= 8 => (DType::St(d), false),
        Some(_) => (DType::StUnknown(format!("{descr} (big-endian)")), true),
        None => (DType::StUnknown(descr.to_string()), order),
    }
}

/// Bytes of a deflated member inflated to find its `.npy` header (numpy writes 128–4096).
const INFLATE_HEAD: usize = 64 << 10;

/// Inflates the start of a raw deflate stream (`input`: its first compressed bytes) into at
/// most [`INFLATE_HEAD`] bytes: what comes out before the input or the room ends.
pub fn inflate_head(input: &[u8]) -> Vec<u8> {
    use miniz_oxide::inflate::core::{decompress, inflate_flags, DecompressorOxide};
    let mut out = vec![0u8; INFLATE_HEAD];
    let mut d = DecompressorOxide::new();
    let flags = inflate_flags::TINFL_FLAG_HAS_MORE_INPUT
        | inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
    let (_, _, written) = decompress(&mut d, input, &mut out, 0, flags);
    out.truncate(written.min(INFLATE_HEAD));
    out
}

/// A tensor from an `.npy` header whose array bytes start at absolute `data`: its dtype,
/// shape (a Fortran-ordered array's reversed: its transpose, as its bytes are laid out), size.
pub fn tensor(name: String, h: &NpyHeader, data: u64) -> Tensor {
    let (dtype, _) = descr_dtype(&h.descr);
    let mut shape = h.shape.clone();
    if h.fortran_order {
        shape.reverse();
    }
    let elements = element_count(&shape);
    // The element size is the descr's number (`>f4`: 4 bytes), known or not.
    let size = h
        .descr
        .trim_start_matches(['<', '>', '|', '='])
        .get(1..)
        .and_then(|n| n.parse::<u64>().ok());
    let bytes = size.and_then(|s| elements.and_then(|n| n.checked_mul(s)));
    Tensor {
        name,
        dtype,
        shape,
        offset: data,
        elements,
        bytes,
        note: None,
    }
}

fn meta(out: &mut Vec<MetadataEntry>, key: String, value: String) {
    out.push(MetadataEntry {
        key,
        offset: 0,
        value: Value::String(Text {
            text: value,
            lossy: false,
        }),
    });
}

fn fortran_warning(name: &str, h: &NpyHeader, at: u64) -> Warning {
    Warning {
        field: format!("array \"{name}\""),
        offset: at,
        message: format!(
            "Fortran-ordered (column-major): listed and previewed as its transpose, shape {:?} \
             reversed, which is how its bytes are laid out",
            h.shape
        ),
    }
}

/// An empty NumPy model (`.npy` or `.npz`) of a file of `size` bytes.
fn base(size: u64, bytes: Vec<u8>, kind: &'static str) -> Model {
    let mut m = super::torch::base(Format::Numpy, size, bytes);
    m.archive = Some(Archive {
        kind,
        ..Default::default()
    });
    m
}

/// One step of reading an `.npy` file from its first bytes `buf` (the file is `size` bytes).
pub fn npy_step(buf: &[u8], size: u64) -> Result<Model, Stop> {
    let h = match parse_header(buf, 0) {
        Ok(h) => h,
        Err(NpyStop::Need(n)) if n <= size => return Err(Stop::NeedMore(n)),
        Err(NpyStop::Need(n)) => {
            return Err(Stop::Fail(Error::new(
                "npy header",
                0,
                ErrorKind::Truncated {
                    needed_end: n,
                    file_size: size,
                },
            )))
        }
        Err(NpyStop::Fail(e)) => return Err(Stop::Fail(e)),
    };
    let mut m = base(size, buf.to_vec(), "npy");
    meta(
        &mut m.metadata,
        "numpy.format".into(),
        format!("{}.{}", h.version.0, h.version.1),
    );
    meta(&mut m.metadata, "numpy.descr".into(), h.descr.clone());
    meta(
        &mut m.metadata,
        "numpy.fortran_order".into(),
        if h.fortran_order { "True" } else { "False" }.into(),
    );
    if h.fortran_order {
        m.warnings.push(fortran_warning("array", &h, 8));
    }
    m.tensors.push(tensor("array".into(), &h, h.data_start));
    m.header_size = h.data_start;
    m.metadata_count = m.metadata.len() as u64;
    m.tensor_count = 1;
    Ok(m)
}

/// Most `.npy` headers of an `.npz` read in one round of reads.
const NPZ_BATCH: usize = 4096;

/// An `.npz` archive: each `.npy` member's header, from its local header and first bytes (a
/// deflated member's first compressed bytes, inflated). `entries` are the archive's members,
/// `cd_offset` where its central directory starts. Missing bytes are one [`ZipStop::NeedMany`]
/// per round, for every member at once. The model's `header_size` counts the members' local
/// and `.npy` headers and the central directory.
pub fn npz_step(
    held: &Held,
    size: u64,
    prefix: &[u8],
    entries: &[Entry],
    cd_offset: u64,
) -> Result<Model, ZipStop> {
    let mut m = base(size, prefix.to_vec(), "npz");
    let mut needs = Vec::new();
    let mut listed = Vec::new();
    let mut header = 0u64;
    for e in entries.iter().filter(|e| e.name.ends_with(".npy")) {
        let name = e.name.strip_suffix(".npy").unwrap_or(&e.name).to_string();
        let guess = zip::LOCAL_LEN + e.name.len() as u64 + 256 + 4096;
        let local = held.from(e.local_header).unwrap_or(&[]);
        let start = match zip::data_offset(local, e, cd_offset) {
            Ok(s) => s,
            Err(ZipStop::Need(_)) => {
                needs.push(Need {
                    offset: e.local_header,
                    len: guess.min(cd_offset.saturating_sub(e.local_header)),
                });
                continue;
            }
            Err(f) => return Err(f),
        };
        let have = held.from(start).unwrap_or(&[]);
        let have = &have[..have
            .len()
            .min(usize::try_from(e.compressed).unwrap_or(usize::MAX))];
        let (head, stored) = if e.is_stored() {
            (have.to_vec(), true)
        } else if e.method == zip::METHOD_DEFLATE && e.flags & 1 == 0 {
            (inflate_head(have), false)
        } else {
            m.warnings.push(Warning {
                field: format!("npz member \"{}\"", e.name),
                offset: e.local_header,
                message: format!("compression method {} (or encryption): not read", e.method),
            });
            continue;
        };
        match parse_header(&head, start) {
            Ok(h) => {
                // The member's local header and its .npy header (in the stored bytes).
                header = header.saturating_add(start - e.local_header);
                if stored {
                    header = header.saturating_add(h.data_start);
                }
                listed.push((name, h, start, stored, e.compressed, e.size))
            }
            Err(NpyStop::Need(n)) => {
                let more = if stored { n } else { (n * 2).max(1 << 16) }.min(e.compressed);
                if (have.len() as u64) >= more || (have.len() as u64) >= e.compressed {
                    m.warnings.push(Warning {
                        field: format!("npz member \"{}\"", e.name),
                        offset: start,
                        message: "its .npy header runs past the member".into(),
                    });
                    continue;
                }
                needs.push(Need {
                    offset: e.local_header,
                    len: (start - e.local_header).saturating_add(more.max(4096).min(e.compressed)),
                });
            }
            Err(NpyStop::Fail(err)) => {
                m.warnings.push(Warning {
                    field: format!("npz member \"{}\"", e.name),
                    offset: err.offset,
                    message: err.to_string(),
                });
            }
        }
    }
    if !needs.is_empty() {
        needs.truncate(NPZ_BATCH);
        return Err(ZipStop::NeedMany(needs));
    }
    let mut deflated = 0usize;
    for (name, h, start, stored, compressed, inflated) in listed {
        if h.fortran_order {
            m.warnings.push(fortran_warning(&name, &h, start));
        }
        let index = m.tensors.len();
        let mut t = tensor(name, &h, start.saturating_add(h.data_start));
        if !stored {
            // Its values are inside the compressed bytes: a preview inflates them up to its
            // window (`t.offset` is the compressed bytes' start).
            deflated += 1;
            t.offset = start;
            if let Some(a) = m.archive.as_mut() {
                a.deflated.push(super::torch::DeflatedMember {
                    tensor: index,
                    start,
                    compressed,
                    size: inflated,
                    data_start: h.data_start,
                });
            }
        } else if let Some(end) = t.bytes.and_then(|b| h.data_start.checked_add(b)) {
            if end > compressed {
                t.note = Some(format!(
                    "the array needs {end} bytes of its member, which holds {compressed}"
                ));
            }
        }
        m.tensors.push(t);
    }
    meta(
        &mut m.metadata,
        "numpy.format".into(),
        "npz (a zip of .npy arrays)".into(),
    );
    meta(
        &mut m.metadata,
        "zip.members".into(),
        entries.len().to_string(),
    );
    if deflated > 0 {
        meta(&mut m.metadata, "npz.deflated".into(), deflated.to_string());
    }
    m.metadata_count = m.metadata.len() as u64;
    m.tensor_count = m.tensors.len() as u64;
    // Headers: every member's local and .npy header, and the central directory with the end
    // records (from the directory's start to the end of the file).
    m.header_size = header
        .saturating_add(size.saturating_sub(cd_offset))
        .min(size);
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn npy(header: &str) -> Vec<u8> {
        let mut b = NPY_MAGIC.to_vec();
        b.extend([1, 0]);
        b.extend((header.len() as u16).to_le_bytes());
        b.extend(header.as_bytes());
        b
    }

    #[test]
    fn reads_what_numpy_writes() {
        let b = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }          \n");
        let h = parse_header(&b, 0).unwrap();
        assert_eq!(
            (h.descr.as_str(), h.fortran_order, h.shape.clone()),
            ("<f4", false, vec![3, 4])
        );
        assert_eq!(h.data_start, b.len() as u64);
        let h = parse_header(
            &npy("{'descr': '|b1', 'fortran_order': True, 'shape': (7,), }\n"),
            0,
        )
        .unwrap();
        assert_eq!((h.fortran_order, h.shape), (true, vec![7]));
        let h = parse_header(
            &npy("{'descr': '<i8', 'fortran_order': False, 'shape': (), }\n"),
            0,
        )
        .unwrap();
        assert!(h.shape.is_empty());
        assert_eq!(descr_dtype("<c8").0.label(), "C64");
        assert!(descr_dtype(">f4").1);
        assert_eq!(descr_dtype(">u1").0.label(), "U8");
    }

    #[test]
    fn bad_headers_say_why() {
        for h in [
            "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (3,), }",
            "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (3,), }",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999,), }",
            "{'descr': '<f4', 'shape': (3,), }",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'x': 1}",
            "{'descr': '<f4",
        ] {
            assert!(
                matches!(parse_header(&npy(h), 0), Err(NpyStop::Fail(_))),
                "{h}"
            );
        }
        assert_eq!(parse_header(&npy("{}")[..9], 0), Err(NpyStop::Need(10)));
        let b = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }\n");
        assert!(matches!(parse_header(&b[..20], 0), Err(NpyStop::Need(_))));
        for cut in 0..b.len() {
            let _ = parse_header(&b[..cut], 0);
        }
    }
}
