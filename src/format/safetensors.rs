//! safetensors header parser.
//!
//! Layout (huggingface/safetensors docs, "Format"): an 8-byte little-endian header length N,
//! then N bytes of UTF-8 JSON: an object mapping tensor names to
//! `{"dtype": "F32", "shape": [..], "data_offsets": [begin, end]}` (offsets relative to the
//! data section at 8 + N), plus an optional `"__metadata__"` object of string to string.
//! Entries are kept in file order, duplicates included (a hash map would hide them).

use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::Value as Json;

use super::cursor::{Cursor, Endian, Stop};
use super::error::{Error, ErrorKind, Warning};
use super::value::{MetadataEntry, Text, Value};

/// Largest header accepted, in bytes. The reference `safetensors` crate refuses headers over
/// 100,000,000 bytes, but real files in public datasets carry headers of ~130 MB (thousands of
/// experts); 256 MiB accepts those while bounding memory. Headers over 100 MB get a warning.
pub const MAX_HEADER_SIZE: u64 = 256 << 20;

/// Header size over which the reference crate refuses the file (`MAX_HEADER_SIZE` there).
pub const REFERENCE_MAX_HEADER_SIZE: u64 = 100_000_000;

pub use super::dtype::{any_dtype, st_dtype, StDtype, OTHER_DTYPES, ST_DTYPES};

/// One tensor entry as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StEntry {
    /// Tensor name.
    pub name: String,
    /// The dtype string as written (kept even when unknown).
    pub dtype: String,
    /// Shape, row-major as written.
    pub shape: Vec<u64>,
    /// `[begin, end)` relative to the data section.
    pub data_offsets: (u64, u64),
}

/// A parsed safetensors header.
#[derive(Debug, Clone, Default)]
pub struct StHeader {
    /// N, the JSON length; the data section starts at 8 + N.
    pub json_len: u64,
    /// `__metadata__` pairs in file order (as STRING values).
    pub metadata: Vec<MetadataEntry>,
    /// Tensor entries in file order.
    pub tensors: Vec<StEntry>,
    /// Non-fatal findings.
    pub warnings: Vec<Warning>,
}

impl StHeader {
    /// Absolute offset of the data section.
    pub fn data_offset(&self) -> u64 {
        8 + self.json_len
    }
}

/// Parses a safetensors header from `buf`, the first bytes of a file of `file_size` bytes.
/// Needs exactly `8 + N` bytes: `Stop::NeedMore(8 + N)` if `buf` is shorter.
pub fn parse(buf: &[u8], file_size: u64) -> Result<StHeader, Stop> {
    let mut c = Cursor::new(buf, 0, Endian::Little);
    let n = c
        .u64()
        .map_err(|s| s.stop(file_size, || "header length".into(), 0))?;
    if n > MAX_HEADER_SIZE {
        return Err(Error::new(
            "header length",
            0,
            ErrorKind::Invalid(format!(
                "header length is {n} bytes; the limit is {MAX_HEADER_SIZE} bytes"
            )),
        )
        .into());
    }
    if n < 2 {
        return Err(Error::new(
            "header length",
            0,
            ErrorKind::Invalid(format!(
                "header length is {n}; the smallest header, `{{}}`, is 2 bytes"
            )),
        )
        .into());
    }
    let json = c
        .take(n)
        .map_err(|s| s.stop(file_size, || format!("header JSON ({n} bytes)"), 8))?;
    let mut header = parse_json(json)?;
    header.json_len = n;
    if n > REFERENCE_MAX_HEADER_SIZE {
        header.warnings.push(Warning {
            field: "header length".into(),
            offset: 0,
            message: format!(
                "header is {n} bytes; the safetensors library refuses headers over {REFERENCE_MAX_HEADER_SIZE} bytes"
            ),
        });
    }
    Ok(header)
}

fn json_err(why: impl Into<String>) -> Error {
    Error::new("header JSON", 8, ErrorKind::Json(why.into()))
}

/// Parses the header JSON object, keeping entry order and duplicates.
fn parse_json(json: &[u8]) -> Result<StHeader, Error> {
    if json.starts_with(b"\xEF\xBB\xBF") {
        return Err(json_err(
            "starts with a UTF-8 byte-order mark (EF BB BF), which safetensors does not allow",
        ));
    }
    let nuls = json.iter().rev().take_while(|&&b| b == 0).count();
    if nuls > 0 {
        return Err(Error::new(
            "header JSON",
            8 + (json.len() - nuls) as u64,
            ErrorKind::Json(format!(
                "followed by {nuls} NUL byte(s) of padding; safetensors pads the header with spaces only"
            )),
        ));
    }
    let text = std::str::from_utf8(json).map_err(|e| {
        Error::new(
            "header JSON",
            8 + e.valid_up_to() as u64,
            ErrorKind::Json("not valid UTF-8".into()),
        )
    })?;
    let mut de = serde_json::Deserializer::from_str(text);
    let entries = (&mut de)
        .deserialize_map(OrderedEntries)
        .map_err(|e| json_err(e.to_string()))?;
    de.end().map_err(|e| json_err(e.to_string()))?;
    let mut header = StHeader::default();
    for (name, value) in entries {
        if name == "__metadata__" {
            header.metadata = metadata(&value, &mut header.warnings)?;
        } else {
            header.tensors.push(entry(name, &value)?);
        }
    }
    Ok(header)
}

/// The `__metadata__` pairs. The format says string to string; a value of another JSON type
/// (a number, an object, `null`; people do publish such files) is kept as its JSON text with
/// a warning naming the key, since the `safetensors` library refuses the whole file over it
/// while the tensors are intact.
fn metadata(value: &Json, warnings: &mut Vec<Warning>) -> Result<Vec<MetadataEntry>, Error> {
    let obj = value
        .as_object()
        .ok_or_else(|| json_err("\"__metadata__\" is not an object of strings"))?;
    Ok(obj
        .iter()
        .map(|(k, v)| {
            let text = match v.as_str() {
                Some(s) => s.to_owned(),
                None => {
                    let kind = match v {
                        Json::Null => "null",
                        Json::Bool(_) => "a boolean",
                        Json::Number(_) => "a number",
                        Json::Array(_) => "an array",
                        Json::Object(_) => "an object",
                        Json::String(_) => "a string",
                    };
                    warnings.push(Warning {
                        field: format!("__metadata__.{k}"),
                        offset: 8,
                        message: format!(
                            "is {kind}, not a string: shown as JSON text; the safetensors library refuses a file with such a value (its tensors are intact)"
                        ),
                    });
                    v.to_string()
                }
            };
            MetadataEntry {
                key: k.clone(),
                offset: 8,
                value: Value::String(Text { text, lossy: false }),
            }
        })
        .collect())
}

fn entry(name: String, value: &Json) -> Result<StEntry, Error> {
    let field = |what: &str| format!("tensor \"{name}\" {what}");
    let obj = value
        .as_object()
        .ok_or_else(|| json_err(format!("tensor \"{name}\" is not an object")))?;
    let dtype = obj
        .get("dtype")
        .and_then(Json::as_str)
        .ok_or_else(|| json_err(field("has no \"dtype\" string")))?
        .to_owned();
    let nums = |key: &str| -> Result<Vec<u64>, Error> {
        let arr = obj
            .get(key)
            .and_then(Json::as_array)
            .ok_or_else(|| json_err(field(&format!("has no \"{key}\" array"))))?;
        arr.iter()
            .map(|v| {
                v.as_u64().ok_or_else(|| {
                    json_err(field(&format!(
                        "\"{key}\" holds {v}, not a non-negative integer below 2^64"
                    )))
                })
            })
            .collect()
    };
    let shape = nums("shape")?;
    let offsets = nums("data_offsets")?;
    let [begin, end] = offsets[..] else {
        return Err(json_err(field("\"data_offsets\" does not have 2 numbers")));
    };
    Ok(StEntry {
        name,
        dtype,
        shape,
        data_offsets: (begin, end),
    })
}

/// Visits a JSON object as an ordered list of (key, value), keeping duplicate keys.
struct OrderedEntries;

impl<'de> Visitor<'de> for OrderedEntries {
    type Value = Vec<(String, Json)>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON object of tensor entries")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        while let Some((k, v)) = map.next_entry::<String, Json>()? {
            out.push((k, v));
        }
        Ok(out)
    }
}

/// The safetensors header reader ([`super::reader::Reader`]): [`parse`] over a growing prefix.
pub struct SafetensorsReader(Option<StHeader>);

impl SafetensorsReader {
    /// A reader at the file's start.
    pub fn boxed() -> Box<dyn super::reader::Reader> {
        Box::new(SafetensorsReader(None))
    }
}

impl super::reader::Reader for SafetensorsReader {
    fn step(&mut self, input: &super::reader::Input<'_>) -> super::reader::Step {
        use super::reader::Step;
        match parse(input.prefix, input.size) {
            Ok(h) => {
                self.0 = Some(h);
                Step::Done
            }
            Err(stop) => Step::from_stop(stop, None),
        }
    }

    fn finish(self: Box<Self>, prefix: Vec<u8>, size: u64, error: Option<Error>) -> super::Model {
        match self.0 {
            Some(h) => super::model_from_safetensors(h, prefix, size),
            None => {
                let mut m = super::model_from_safetensors(StHeader::default(), prefix, size);
                m.error = error;
                m.header_size = 0;
                m
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(json: &str) -> Vec<u8> {
        let mut b = (json.len() as u64).to_le_bytes().to_vec();
        b.extend(json.as_bytes());
        b
    }

    #[test]
    fn keeps_order_and_duplicates() {
        let b = file(
            r#"{"b":{"dtype":"F16","shape":[2,3],"data_offsets":[0,12]},"__metadata__":{"format":"pt"},"a":{"dtype":"F4","shape":[4],"data_offsets":[12,14]},"b":{"dtype":"X9","shape":[],"data_offsets":[14,15]}}"#,
        );
        let h = parse(&b, b.len() as u64 + 15).unwrap();
        let names: Vec<_> = h.tensors.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["b", "a", "b"]);
        assert_eq!(h.tensors[0].shape, [2, 3]);
        assert_eq!(h.tensors[2].dtype, "X9");
        assert_eq!(h.metadata[0].key, "format");
        let m = file(r#"{"__metadata__":{"z":"1","a":"2"}}"#);
        let keys: Vec<_> = parse(&m, m.len() as u64)
            .unwrap()
            .metadata
            .into_iter()
            .map(|e| e.key)
            .collect();
        assert_eq!(keys, ["z", "a"], "file order, not sorted");
        assert_eq!(h.data_offset(), b.len() as u64);
    }

    #[test]
    fn needs_exactly_the_header() {
        let b = file(r#"{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}"#);
        assert!(matches!(parse(&b[..20], 1000), Err(Stop::NeedMore(n)) if n == b.len() as u64));
        match parse(&b[..20], 30) {
            Err(Stop::Fail(e)) => assert_eq!(e.offset, 8),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn rejects_negative_shape_with_the_field() {
        let b = file(r#"{"w":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}}"#);
        let Err(Stop::Fail(e)) = parse(&b, 100) else {
            panic!()
        };
        assert!(
            e.to_string().contains("tensor \"w\" \"shape\" holds -1"),
            "{e}"
        );
    }
}
