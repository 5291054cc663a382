//! NumPy arrays: `.npy` files and the `.npy` members of an `.npz` zip archive (numpy's
//! `lib/format.py`, format versions 1.0–3.0).
//!
//! An `.npy` file is the magic `\x93NUMPY`, a major and minor version byte, the header's length
//! (2 bytes little-endian in version 1, 4 bytes in versions 2 and 3), the header — a Python dict
//! literal `{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }`, space-padded and ending
//! in a newline — and the array's bytes. The dict is read as numpy reads it ([`header`]: a
//! Python literal, Python 2's `2L` included, with structured dtypes flattened into their
//! fields); nothing is evaluated.
//!
//! Arrays of a dtype this tool does not decode are listed with their shape and size: text
//! (`<U5`, `|S3`), structured dtypes (their fields in the metadata), dates. An object array
//! (`|O`) is a pickle after the header, read and judged by [`object`] (never executed): its
//! imports are the model's [`Archive::pickles`], as a PyTorch checkpoint's are.
//!
//! A Fortran-ordered array's bytes are column-major: it is listed with its shape and previewed
//! as its transpose (the shape reversed), which is what its bytes hold row by row; a note says
//! so. Big-endian arrays (`>f4`) are listed; their values are not previewed. A deflated `.npz`
//! member (`np.savez_compressed`) is previewed by inflating its compressed bytes up to the
//! window ([`super::archive::DeflatedMember`], `crate::preview`).

pub mod header;
mod npz;
pub mod object;

pub use npz::npz_step;

pub use super::archive::Structured;
use super::archive::{Archive, MAX_PICKLE_BYTES};
use super::cursor::Short;
use super::dtype::any_dtype;
use super::error::{Error, ErrorKind, Warning};
use super::held::Held;
use super::value::{MetadataEntry, Text, Value};
use super::zip::{self, Entry, Need};
use super::{element_count, DType, Format, Model, Stop, Tensor};
use header::{Field, Py};

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
    /// The dtype string as written (`<f4`); for a structured dtype, its list as Python's
    /// `repr` writes it.
    pub descr: String,
    /// A structured dtype's leaf fields (empty for a plain dtype).
    pub fields: Vec<Field>,
    /// Bytes of one element (`None`: an object dtype, or a string numpy does not read).
    pub item_size: Option<u64>,
    /// Whether the dtype holds Python objects (then a pickle follows the header).
    pub object: bool,
    /// Whether the bytes are in Fortran (column-major) order.
    pub fortran_order: bool,
    /// The array's shape.
    pub shape: Vec<u64>,
    /// Offset of the array's first byte, relative to the start of the `.npy` bytes.
    pub data_start: u64,
}

/// The layout of `h`'s array as tensor `tensor`, when it is a structured one of a known
/// item size holding no Python objects.
pub fn structured_of(tensor: usize, h: &NpyHeader) -> Option<Structured> {
    if h.fields.is_empty() || h.object {
        return None;
    }
    Some(Structured {
        tensor,
        item: h.item_size?,
        fields: h.fields.clone(),
    })
}

fn bad(base: u64, why: impl Into<String>) -> Stop {
    Stop::Fail(Error::new(
        "npy header",
        base,
        ErrorKind::Invalid(why.into()),
    ))
}

/// Reads the `.npy` header at the start of `b` (whose first byte is at absolute offset `base`,
/// for messages). Errors: [`Stop::NeedMore`]`(n)` when the header needs the first `n` bytes of
/// `b` (counted from `b`'s start, not from `base`); [`Stop::Fail`] for a bad header.
pub fn parse_header(b: &[u8], base: u64) -> Result<NpyHeader, Stop> {
    if b.len() < 10 {
        return Err(Stop::NeedMore(10));
    }
    if &b[..6] != NPY_MAGIC {
        return Err(bad(base, "not an .npy array (no \\x93NUMPY magic)"));
    }
    let version = (b[6], b[7]);
    let (len, start) = match version.0 {
        1 => (u64::from(u16::from_le_bytes([b[8], b[9]])), 10u64),
        2 | 3 => {
            if b.len() < 12 {
                return Err(Stop::NeedMore(12));
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
    let range = to_usize(start).zip(to_usize(end)).map(|(a, z)| a..z);
    let Some(text) = range.and_then(|r| b.get(r)) else {
        return Err(Stop::NeedMore(end));
    };
    // Version 3 is UTF-8, the others latin-1 (ASCII in practice).
    let text: String = if version.0 == 3 {
        String::from_utf8_lossy(text).into_owned()
    } else {
        text.iter().map(|&c| char::from(c)).collect()
    };
    // numpy filters Python 2's long integers (`2L`) out of version 1 and 2 headers only.
    let d = parse_dict(&text, version.0 < 3)
        .map_err(|why| bad(base + start, format!("{why} in {text:?}")))?;
    Ok(NpyHeader {
        version,
        descr: d.descr,
        fields: d.fields,
        item_size: d.item_size,
        object: d.object,
        fortran_order: d.fortran_order,
        shape: d.shape,
        data_start: end,
    })
}

/// Why the header dict could not be read ([`parse_dict`]).
#[derive(Debug, Clone, PartialEq, Eq)]
enum DictError {
    /// The text is not a Python literal.
    Literal(header::LiteralError),
    /// The literal is not a dict.
    NotADict,
    /// A key is not a string.
    KeyNotString,
    /// `fortran_order` is not `True` or `False`.
    FortranNotBool,
    /// `shape` is not a tuple.
    ShapeNotTuple,
    /// `shape` is a tuple but not of non-negative integers.
    Shape(header::ShapeError),
    /// A key other than the three numpy reads (the key as written).
    UnexpectedKey(String),
    /// `descr` is neither a dtype string nor a list of fields.
    DescrNotStringOrList,
    /// `descr`'s list of fields is bad.
    Dtype(header::DtypeError),
    /// A key numpy requires is missing (`descr`, `fortran_order` or `shape`).
    Missing(&'static str),
}

impl From<header::LiteralError> for DictError {
    fn from(e: header::LiteralError) -> Self {
        DictError::Literal(e)
    }
}

impl From<header::ShapeError> for DictError {
    fn from(e: header::ShapeError) -> Self {
        DictError::Shape(e)
    }
}

impl From<header::DtypeError> for DictError {
    fn from(e: header::DtypeError) -> Self {
        DictError::Dtype(e)
    }
}

impl std::fmt::Display for DictError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DictError::Literal(e) => write!(f, "{e}"),
            DictError::NotADict => write!(f, "the header is not a dict"),
            DictError::KeyNotString => write!(f, "a key that is not a string"),
            DictError::FortranNotBool => write!(f, "'fortran_order' is not True or False"),
            DictError::ShapeNotTuple => write!(f, "'shape' is not a tuple of integers"),
            DictError::Shape(e) => write!(f, "{e}"),
            DictError::UnexpectedKey(k) => write!(
                f,
                "an unexpected key {k:?} (numpy reads exactly descr, fortran_order and shape)"
            ),
            DictError::DescrNotStringOrList => {
                write!(f, "'descr' is neither a dtype string nor a list of fields")
            }
            DictError::Dtype(e) => write!(f, "{e}"),
            DictError::Missing(key) => write!(f, "no '{key}'"),
        }
    }
}

impl std::error::Error for DictError {}

/// What the header dict says.
struct Dict {
    descr: String,
    fields: Vec<Field>,
    item_size: Option<u64>,
    object: bool,
    fortran_order: bool,
    shape: Vec<u64>,
}

/// The three keys of the header dict, from its text, as numpy checks them: exactly `descr`,
/// `fortran_order` (a bool) and `shape` (a tuple of integers).
fn parse_dict(text: &str, allow_long: bool) -> Result<Dict, DictError> {
    let (v, _) = header::literal(text.as_bytes(), allow_long)?;
    let Py::Dict(pairs) = v else {
        return Err(DictError::NotADict);
    };
    let (mut descr, mut fortran, mut shape) = (None, None, None);
    for (k, v) in pairs {
        let Py::Str(k) = k else {
            return Err(DictError::KeyNotString);
        };
        match (k.as_str(), v) {
            ("descr", v) => descr = Some(v),
            ("fortran_order", Py::Bool(b)) => fortran = Some(b),
            ("fortran_order", _) => return Err(DictError::FortranNotBool),
            ("shape", v @ Py::Tuple(_)) => shape = Some(header::dims_of(&v)?),
            ("shape", _) => return Err(DictError::ShapeNotTuple),
            (k, _) => return Err(DictError::UnexpectedKey(k.to_string())),
        }
    }
    let (descr, fields, item_size, object) = match descr.ok_or(DictError::Missing("descr"))? {
        Py::Str(s) => {
            let size = header::item_size(&s);
            let object = header::is_object(&s);
            (s, Vec::new(), size, object)
        }
        Py::List(l) => {
            let (fields, size) = header::fields(&l)?;
            let object = fields.iter().any(|f| header::is_object(&f.descr));
            (header::repr(&Py::List(l)), fields, size, object)
        }
        _ => return Err(DictError::DescrNotStringOrList),
    };
    Ok(Dict {
        descr,
        fields,
        item_size,
        object,
        fortran_order: fortran.ok_or(DictError::Missing("fortran_order"))?,
        shape: shape.ok_or(DictError::Missing("shape"))?,
    })
}

/// What a NumPy dtype this tool does not decode is, for messages: `text of 5 characters
/// (UTF-32)`, `a structured dtype of 3 fields`, `Python objects (a pickle)`.
pub fn dtype_words(descr: &str) -> String {
    if descr.starts_with('[') {
        return "a structured dtype (its fields interleaved in each element)".into();
    }
    let code = type_code(descr);
    let n = || code.get(1..).unwrap_or("");
    match code.chars().next() {
        Some('O') => "Python objects, pickled after the header".into(),
        Some('U') => format!("text of {} characters (UTF-32)", n()),
        Some('S' | 'a') => format!("byte strings of {} bytes", n()),
        Some('V') => format!("raw void values of {} bytes", n()),
        Some('M') => "dates and times (datetime64)".into(),
        Some('m') => "time differences (timedelta64)".into(),
        _ if descr.starts_with('>') => "big-endian values".into(),
        _ => "a dtype this tool does not decode".into(),
    }
}

/// Whether an array whose dtype [`tensor`] named `dtype` holds numbers, numpy's
/// `dtype.kind` in `b i u f c` (booleans, integers, floats, complex numbers; either byte
/// order): each of its `arr.size` elements is then one weight of `arr.itemsize * 8` bits.
/// Structured records, text, byte strings, void values, Python objects, dates and time
/// differences are not weights, and bits per weight does not count them.
pub fn holds_numbers(dtype: &DType) -> bool {
    match dtype {
        DType::StUnknown(s) => {
            let descr = s.strip_suffix(" (big-endian)").unwrap_or(s);
            matches!(
                type_code(descr).chars().next(),
                Some('b' | 'i' | 'u' | 'f' | 'c')
            )
        }
        DType::St(_) | DType::Ggml(_) => true,
    }
}

/// A simple descr without its byte-order mark (`<f4` → `f4`): numpy's kind character, then the
/// item size. A structured descr (`[(…)]`) is returned as it is.
fn type_code(descr: &str) -> &str {
    descr.trim_start_matches(['<', '>', '|', '='])
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
/// most `INFLATE_HEAD` bytes: what comes out before the input or the room ends.
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
/// shape (a Fortran-ordered array's reversed: its transpose, as its bytes are laid out), size
/// (elements × item size; none for an object array, whose values are a pickle).
pub fn tensor(name: String, h: &NpyHeader, data: u64) -> Tensor {
    // A structured dtype is named by its list, as numpy's header writes it.
    let dtype = if h.fields.is_empty() {
        descr_dtype(&h.descr).0
    } else {
        DType::StUnknown(h.descr.clone())
    };
    let mut shape = h.shape.clone();
    if h.fortran_order {
        shape.reverse();
    }
    let elements = element_count(&shape);
    let bytes = h
        .item_size
        .filter(|_| !h.object)
        .and_then(|s| elements.and_then(|n| n.checked_mul(s)));
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

/// Why an array of `h` is not previewed, when its dtype is not one this tool decodes (text,
/// structured, objects, dates): the previews' refusal, naming NumPy's dtype.
pub fn not_previewed(h: &NpyHeader) -> Option<String> {
    if h.object {
        return Some(format!(
            "a NumPy object array ({}): its elements are Python objects in a pickle, which \
             only {} unpickles (running what it names); the pickle is judged, not previewed",
            if h.fields.is_empty() {
                &h.descr
            } else {
                "structured"
            },
            object::LOADER
        ));
    }
    if !h.fields.is_empty() {
        return Some(format!(
            "a NumPy structured array of {} fields ({}): its fields are interleaved in each \
             {}-byte element; preview one field at a time (the CLI's --field NAME, the API's \
             window.field, the page's field menu)",
            h.fields.len(),
            field_list(&h.fields, 6),
            h.item_size.map_or("?".into(), |s| s.to_string())
        ));
    }
    match descr_dtype(&h.descr).0 {
        DType::StUnknown(_) => Some(format!(
            "NumPy dtype {}: {}, listed but not previewed by this tool",
            h.descr,
            dtype_words(&h.descr)
        )),
        _ => None,
    }
}

/// `a <f4 at 0, b <i8 (2,) at 4`, the first `most` fields.
fn field_list(fields: &[Field], most: usize) -> String {
    let mut s: Vec<String> = fields
        .iter()
        .take(most)
        .map(|f| {
            let shape = if f.shape.is_empty() {
                String::new()
            } else {
                format!(" {:?}", f.shape)
            };
            format!("{} {}{shape} at byte {}", f.name, f.descr, f.offset)
        })
        .collect();
    if fields.len() > most {
        s.push(format!("and {} more", fields.len() - most));
    }
    s.join(", ")
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
    let mut m = super::archive::base(Format::Numpy, size, bytes);
    m.detail = crate::format::Detail::Archive(Archive {
        kind,
        ..Default::default()
    });
    m
}

/// One step of reading an `.npy` file from its first bytes `buf` (the file is `size` bytes).
pub fn npy_step(buf: &[u8], size: u64) -> Result<Model, Stop> {
    let h = match parse_header(buf, 0) {
        Ok(h) => h,
        // The file's bytes start at offset 0: a need is an absolute end, or past the file.
        Err(Stop::NeedMore(n)) => {
            return Err(Short { needed_end: n }.stop(size, || "npy header".into(), 0))
        }
        Err(fail) => return Err(fail),
    };
    // An object array's pickle runs from the data to the file's end: read it in one go.
    let pickle_end = size.min(h.data_start.saturating_add(MAX_PICKLE_BYTES));
    if h.object && (buf.len() as u64) < pickle_end {
        return Err(Stop::NeedMore(pickle_end));
    }
    let kept = if h.object {
        to_usize(h.data_start).map_or(buf, |n| &buf[..n.min(buf.len())])
    } else {
        buf
    };
    let mut m = base(size, kept.to_vec(), "npy");
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
    fields_meta(&mut m.metadata, "", &h);
    if h.fortran_order {
        m.warnings.push(fortran_warning("array", &h, 8));
    }
    m.tensors.push(tensor("array".into(), &h, h.data_start));
    if let (Some(a), Some(st)) = (m.archive_mut(), structured_of(0, &h)) {
        a.structured.push(st);
    }
    m.header_size = h.data_start;
    let mut refusal = not_previewed(&h).map(|why| (0, why));
    if h.object {
        let pickle = to_usize(h.data_start)
            .zip(to_usize(pickle_end))
            .and_then(|(a, b)| buf.get(a..b));
        let Some(bytes) = pickle else {
            return Err(Stop::Fail(Error::new(
                "npy object array",
                h.data_start,
                ErrorKind::Invalid("its pickle's bytes do not fit this machine's memory".into()),
            )));
        };
        let (info, err) =
            object::judge("array.npy".into(), bytes, h.data_start, pickle_end == size);
        m.header_size = h.data_start.saturating_add(info.len);
        object_meta(&mut m.metadata, &info);
        if let Some(a) = m.archive_mut() {
            a.pickles.push(info);
        }
        m.error = err;
    }
    if let Some(a) = m.archive_mut() {
        a.not_in_place.extend(refusal.take());
    }
    m.metadata_count = m.metadata.len() as u64;
    m.tensor_count = 1;
    Ok(m)
}

/// A file-derived offset or length as a `usize` (wasm32's is 32 bits), if it fits.
fn to_usize(n: u64) -> Option<usize> {
    usize::try_from(n).ok()
}

/// A structured dtype's fields and item size in the metadata (`prefix`: `name.` of an `.npz`
/// member, empty for an `.npy` file).
fn fields_meta(out: &mut Vec<MetadataEntry>, prefix: &str, h: &NpyHeader) {
    if h.fields.is_empty() {
        return;
    }
    meta(
        out,
        format!("{prefix}numpy.fields"),
        field_list(&h.fields, MAX_FIELDS_LISTED),
    );
    if let Some(s) = h.item_size {
        meta(out, format!("{prefix}numpy.itemsize"), s.to_string());
    }
}

/// Most fields of a structured dtype written out in its metadata entry.
const MAX_FIELDS_LISTED: usize = 64;

/// An object array's pickle in the metadata: what loading it takes.
fn object_meta(out: &mut Vec<MetadataEntry>, info: &super::archive::PickleInfo) {
    meta(
        out,
        format!("numpy.pickle {}", info.name),
        format!(
            "an object array: a protocol {} pickle of {} bytes at byte {}; loading it needs {}, \
             which runs what it imports",
            info.protocol,
            info.len,
            info.offset,
            object::LOADER
        ),
    );
}

#[cfg(test)]
mod tests {
    use super::npz::merge_near;
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
        // Python 2: long integers, |O8.
        let h = parse_header(
            &npy("{'descr': '|O8', 'fortran_order': False, 'shape': (2L, 3L), }\n"),
            0,
        )
        .unwrap();
        assert_eq!(
            (h.shape.clone(), h.object, h.item_size),
            (vec![2, 3], true, None)
        );
        let h = parse_header(
            &npy("{'descr': [('a', '<f4'), ('b', '<i8', (2,))], 'fortran_order': False, 'shape': (5,), }\n"),
            0,
        )
        .unwrap();
        assert_eq!(
            (h.fields.len(), h.item_size, h.object),
            (2, Some(20), false)
        );
        assert_eq!(h.descr, "[('a', '<f4'), ('b', '<i8', (2,))]");
        let h = parse_header(
            &npy("{'descr': '<U5', 'fortran_order': False, 'shape': (), }\n"),
            0,
        )
        .unwrap();
        assert_eq!(tensor("a".into(), &h, 0).bytes, Some(20));
        assert!(descr_dtype(">f4").1);
        assert_eq!(descr_dtype(">u1").0.label(), "U8");
    }

    #[test]
    fn bad_dicts_say_why_in_numpys_words() {
        let msg = |t: &str| parse_dict(t, true).err().map(|e| e.to_string());
        let ok = "'descr': '<f4', 'fortran_order': False, 'shape': (3,)";
        assert_eq!(msg(&format!("{{{ok}}}")), None);
        assert_eq!(
            msg("{'descr': '<f4', 'shape': (3,), }").as_deref(),
            Some("no 'fortran_order'")
        );
        assert_eq!(
            msg(&format!("{{{ok}, 'x': 1}}")).as_deref(),
            Some("an unexpected key \"x\" (numpy reads exactly descr, fortran_order and shape)")
        );
        assert_eq!(
            msg("{'descr': '<f4', 'fortran_order': 0, 'shape': (3,)}").as_deref(),
            Some("'fortran_order' is not True or False")
        );
        assert_eq!(msg("[]").as_deref(), Some("the header is not a dict"));
        assert_eq!(
            msg("{'descr': '<f4', 'fortran_order': False, 'shape': (3,)").as_deref(),
            Some("expected ',' or a closing bracket at character 54")
        );
        let b = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (-3,), }");
        let Err(Stop::Fail(e)) = parse_header(&b, 0) else {
            panic!()
        };
        assert_eq!(
            e.to_string(),
            "npy header at byte 10: a negative dimension -3 in \
             \"{'descr': '<f4', 'fortran_order': False, 'shape': (-3,), }\""
        );
    }

    #[test]
    fn near_pickles_are_read_as_one_range() {
        let n = |offset, len| Need { offset, len };
        let got = merge_near(vec![n(5000, 100), n(0, 1000), n(900, 50), n(1 << 30, 8)]);
        assert_eq!(got, [n(0, 5100), n(1 << 30, 8)]);
    }

    #[test]
    fn bad_headers_say_why() {
        for h in [
            "{'descr': [('a', '<f4', 'x')], 'fortran_order': False, 'shape': (3,), }",
            "{'descr': '<f4', 'fortran_order': False, 'shape': 3, }",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (-3,), }",
            "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (3,), }",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999,), }",
            "{'descr': '<f4', 'shape': (3,), }",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'x': 1}",
            "{'descr': '<f4",
        ] {
            assert!(
                matches!(parse_header(&npy(h), 0), Err(Stop::Fail(_))),
                "{h}"
            );
        }
        assert_eq!(parse_header(&npy("{}")[..9], 0), Err(Stop::NeedMore(10)));
        let b = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }\n");
        assert!(matches!(parse_header(&b[..20], 0), Err(Stop::NeedMore(_))));
        for cut in 0..b.len() {
            let _ = parse_header(&b[..cut], 0);
        }
    }
}
