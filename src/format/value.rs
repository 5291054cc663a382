//! Typed metadata values, with large arrays indexed rather than decoded.
//!
//! GGUF metadata values have 13 types (spec: ggml/docs/gguf.md, `gguf_metadata_value_type`).
//! Scalars and strings are decoded when the header is parsed; an array is recorded as
//! [`ArrayRef`] (element type, count, byte range) and its elements are decoded only when asked
//! for, from the header bytes the parser kept. safetensors `__metadata__` entries use the same
//! types (always strings).

use super::cursor::{Cursor, Endian, Short};
use super::error::{Error, ErrorKind};

/// Deepest nesting of arrays of arrays the parser accepts. Real files use depth 1 (arrays of
/// scalars or strings); the bound keeps hostile files from exhausting the small wasm stack.
pub const MAX_ARRAY_DEPTH: u32 = 8;

/// GGUF metadata value type ids (`gguf_metadata_value_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub enum ValueType {
    /// GGUF type 0: uint8.
    U8 = 0,
    /// GGUF type 1: int8.
    I8 = 1,
    /// GGUF type 2: uint16.
    U16 = 2,
    /// GGUF type 3: int16.
    I16 = 3,
    /// GGUF type 4: uint32.
    U32 = 4,
    /// GGUF type 5: int32.
    I32 = 5,
    /// GGUF type 6: float32.
    F32 = 6,
    /// GGUF type 7: bool (one byte).
    Bool = 7,
    /// GGUF type 8: string (length-prefixed UTF-8).
    String = 8,
    /// GGUF type 9: array (element type, count, elements).
    Array = 9,
    /// GGUF type 10: uint64.
    U64 = 10,
    /// GGUF type 11: int64.
    I64 = 11,
    /// GGUF type 12: float64.
    F64 = 12,
}

impl ValueType {
    /// Maps a type id from the file; `None` for ids outside 0..=12.
    pub fn from_id(id: u32) -> Option<Self> {
        use ValueType::*;
        Some(match id {
            0 => U8,
            1 => I8,
            2 => U16,
            3 => I16,
            4 => U32,
            5 => I32,
            6 => F32,
            7 => Bool,
            8 => String,
            9 => Array,
            10 => U64,
            11 => I64,
            12 => F64,
            _ => return None,
        })
    }

    /// The spec's name, as gguf-py spells it (`UINT32`, `FLOAT32`, `STRING`, ...).
    pub fn name(self) -> &'static str {
        use ValueType::*;
        match self {
            U8 => "UINT8",
            I8 => "INT8",
            U16 => "UINT16",
            I16 => "INT16",
            U32 => "UINT32",
            I32 => "INT32",
            F32 => "FLOAT32",
            Bool => "BOOL",
            String => "STRING",
            Array => "ARRAY",
            U64 => "UINT64",
            I64 => "INT64",
            F64 => "FLOAT64",
        }
    }

    /// Encoded size of a value of this type, for fixed-size types.
    pub fn fixed_size(self) -> Option<u64> {
        use ValueType::*;
        match self {
            U8 | I8 | Bool => Some(1),
            U16 | I16 => Some(2),
            U32 | I32 | F32 => Some(4),
            U64 | I64 | F64 => Some(8),
            String | Array => None,
        }
    }
}

/// Widths that differ between GGUF versions: v1 stores string and array lengths as u32,
/// v2 and v3 as u64.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// Byte order of every number.
    pub endian: Endian,
    /// Bytes of a string or array length (4 in v1, 8 later).
    pub len_width: u8,
}

impl Layout {
    /// Smallest encoded size of one element of type `t` (a string is at least its length).
    pub fn min_size(self, t: ValueType) -> u64 {
        match t {
            ValueType::String => u64::from(self.len_width),
            ValueType::Array => 4 + u64::from(self.len_width),
            other => other.fixed_size().unwrap_or(1),
        }
    }

    /// Reads a string or array length.
    pub fn read_len(self, c: &mut Cursor<'_>) -> Result<u64, Short> {
        if self.len_width == 4 {
            c.u32().map(u64::from)
        } else {
            c.u64()
        }
    }
}

/// A decoded string: lossy UTF-8 and whether bytes were replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Text {
    /// The text, with invalid UTF-8 sequences replaced by U+FFFD. A trailing NUL is kept.
    pub text: String,
    /// True when the stored bytes were not valid UTF-8.
    pub lossy: bool,
}

impl Text {
    /// Decodes bytes as UTF-8, lossily.
    pub fn decode(bytes: &[u8]) -> Self {
        match std::str::from_utf8(bytes) {
            Ok(s) => Text {
                text: s.to_owned(),
                lossy: false,
            },
            Err(_) => Text {
                text: String::from_utf8_lossy(bytes).into_owned(),
                lossy: true,
            },
        }
    }
}

/// Where an array's elements are: decoded on demand from the header bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArrayRef {
    /// Element type.
    pub elem: ValueType,
    /// Element count.
    pub len: u64,
    /// Absolute offset of the first element.
    pub start: u64,
    /// Absolute offset one past the last element.
    pub end: u64,
    /// Widths and byte order of the file.
    pub layout: Layout,
}

/// One metadata value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A UINT8.
    U8(u8),
    /// An INT8.
    I8(i8),
    /// A UINT16.
    U16(u16),
    /// An INT16.
    I16(i16),
    /// A UINT32.
    U32(u32),
    /// An INT32.
    I32(i32),
    /// A FLOAT32.
    F32(f32),
    /// A BOOL; the raw byte is kept when it was neither 0 nor 1.
    Bool(bool),
    /// A STRING: its bytes in the header, decoded on demand.
    String(Text),
    /// An ARRAY: element type, count and where its elements lie (indexed, not decoded).
    Array(ArrayRef),
    /// A UINT64.
    U64(u64),
    /// An INT64.
    I64(i64),
    /// A FLOAT64.
    F64(f64),
}

impl Value {
    /// The value's type.
    pub fn value_type(&self) -> ValueType {
        match self {
            Value::U8(_) => ValueType::U8,
            Value::I8(_) => ValueType::I8,
            Value::U16(_) => ValueType::U16,
            Value::I16(_) => ValueType::I16,
            Value::U32(_) => ValueType::U32,
            Value::I32(_) => ValueType::I32,
            Value::F32(_) => ValueType::F32,
            Value::Bool(_) => ValueType::Bool,
            Value::String(_) => ValueType::String,
            Value::Array(_) => ValueType::Array,
            Value::U64(_) => ValueType::U64,
            Value::I64(_) => ValueType::I64,
            Value::F64(_) => ValueType::F64,
        }
    }

    /// The value as an unsigned integer, for any integer type holding a non-negative value.
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            Value::U8(v) => Some(v.into()),
            Value::U16(v) => Some(v.into()),
            Value::U32(v) => Some(v.into()),
            Value::U64(v) => Some(v),
            Value::I8(v) => u64::try_from(v).ok(),
            Value::I16(v) => u64::try_from(v).ok(),
            Value::I32(v) => u64::try_from(v).ok(),
            Value::I64(v) => u64::try_from(v).ok(),
            _ => None,
        }
    }

    /// The value as a float, for any numeric type.
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Value::F32(v) => Some(v.into()),
            Value::F64(v) => Some(v),
            Value::I8(v) => Some(v.into()),
            Value::I16(v) => Some(v.into()),
            Value::I32(v) => Some(v.into()),
            Value::I64(v) => Some(v as f64),
            _ => self.as_u64().map(|v| v as f64),
        }
    }

    /// The string, for STRING values.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(t) => Some(&t.text),
            _ => None,
        }
    }
}

/// One key/value pair of the metadata, in file order.
#[derive(Debug, Clone, PartialEq)]
pub struct MetadataEntry {
    /// The key (lossy UTF-8).
    pub key: String,
    /// Absolute offset where this pair starts (its key length field).
    pub offset: u64,
    /// The value.
    pub value: Value,
}

/// Reads a length-prefixed string and checks its length against the file before touching it.
pub(crate) fn read_text(
    c: &mut Cursor<'_>,
    layout: Layout,
    file_size: u64,
) -> Result<Text, ReadError> {
    let at = c.pos();
    let len = layout.read_len(c)?;
    check_fits(len, 1, c.pos(), file_size, "string length", at)?;
    Ok(Text::decode(c.take(len)?))
}

/// Either a short read (fetch more) or a hard failure.
#[derive(Debug)]
pub(crate) enum ReadError {
    Short(Short),
    Fail(Error),
}

impl From<Short> for ReadError {
    fn from(s: Short) -> Self {
        ReadError::Short(s)
    }
}

impl From<Error> for ReadError {
    fn from(e: Error) -> Self {
        ReadError::Fail(e)
    }
}

/// Checks that `count` items of at least `min_size` bytes each fit between `pos` and the end
/// of the file, before anything is allocated or fetched for them.
pub(crate) fn check_fits(
    count: u64,
    min_size: u64,
    pos: u64,
    file_size: u64,
    what: &'static str,
    field_offset: u64,
) -> Result<(), Error> {
    let remaining = file_size.saturating_sub(pos);
    let max = remaining.checked_div(min_size).unwrap_or(u64::MAX);
    if count > max {
        return Err(Error::new(
            what,
            field_offset,
            ErrorKind::CountTooLarge { count, what, max },
        ));
    }
    Ok(())
}

/// Reads one value of type `t` at the cursor. Arrays are indexed (skipped over, validating
/// their structure) and returned as [`ArrayRef`]; `depth` is the current nesting.
pub(crate) fn read_value(
    c: &mut Cursor<'_>,
    t: ValueType,
    layout: Layout,
    file_size: u64,
    depth: u32,
) -> Result<Value, ReadError> {
    Ok(match t {
        ValueType::U8 => Value::U8(c.u8()?),
        ValueType::I8 => Value::I8(c.i8()?),
        ValueType::U16 => Value::U16(c.u16()?),
        ValueType::I16 => Value::I16(c.i16()?),
        ValueType::U32 => Value::U32(c.u32()?),
        ValueType::I32 => Value::I32(c.i32()?),
        ValueType::F32 => Value::F32(c.f32()?),
        ValueType::Bool => Value::Bool(c.u8()? != 0),
        ValueType::U64 => Value::U64(c.u64()?),
        ValueType::I64 => Value::I64(c.i64()?),
        ValueType::F64 => Value::F64(c.f64()?),
        ValueType::String => Value::String(read_text(c, layout, file_size)?),
        ValueType::Array => {
            let head = read_array_head(c, layout, file_size, depth)?;
            skip_elements(c, &head, 0, layout, file_size, depth)?;
            Value::Array(ArrayRef {
                elem: head.elem,
                len: head.len,
                start: head.start,
                end: c.pos(),
                layout,
            })
        }
    })
}

/// An array's element type and count, read and checked; `start` is the first element.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ArrayHead {
    pub elem: ValueType,
    pub len: u64,
    pub start: u64,
}

/// Reads an array's element type and count, and checks the count against the file.
pub(crate) fn read_array_head(
    c: &mut Cursor<'_>,
    layout: Layout,
    file_size: u64,
    depth: u32,
) -> Result<ArrayHead, ReadError> {
    if depth >= MAX_ARRAY_DEPTH {
        return Err(Error::new(
            "array element type",
            c.pos(),
            ErrorKind::TooDeep(MAX_ARRAY_DEPTH),
        )
        .into());
    }
    let at = c.pos();
    let id = c.u32()?;
    let elem = ValueType::from_id(id)
        .ok_or_else(|| Error::new("array element type", at, ErrorKind::UnknownValueType(id)))?;
    let len_at = c.pos();
    let len = layout.read_len(c)?;
    check_fits(
        len,
        layout.min_size(elem),
        c.pos(),
        file_size,
        "array length",
        len_at,
    )?;
    Ok(ArrayHead {
        elem,
        len,
        start: c.pos(),
    })
}

/// Skips elements `done..head.len` of an array, validating strings' and nested arrays' lengths.
/// On a short read the cursor is left after the last complete element, so a caller can record
/// how many were skipped (`skip_elements` is resumable through [`skip_some`]).
pub(crate) fn skip_elements(
    c: &mut Cursor<'_>,
    head: &ArrayHead,
    done: u64,
    layout: Layout,
    file_size: u64,
    depth: u32,
) -> Result<(), ReadError> {
    let mut done = done;
    skip_some(c, head, &mut done, layout, file_size, depth)
}

/// Like [`skip_elements`], but updates `done` after every complete element so a caller can
/// resume after a short read without re-reading what was already skipped.
pub(crate) fn skip_some(
    c: &mut Cursor<'_>,
    head: &ArrayHead,
    done: &mut u64,
    layout: Layout,
    file_size: u64,
    depth: u32,
) -> Result<(), ReadError> {
    if let Some(size) = head.elem.fixed_size() {
        let rest = head.len - *done;
        // check_fits bounded len by the file size, so this cannot overflow.
        let bytes = rest.checked_mul(size).ok_or_else(|| {
            Error::new(
                "array length",
                head.start,
                ErrorKind::Overflow("array size"),
            )
        })?;
        c.skip(bytes)?;
        *done = head.len;
        return Ok(());
    }
    while *done < head.len {
        let mut probe = c.clone();
        match head.elem {
            ValueType::String => {
                let at = probe.pos();
                let len = layout.read_len(&mut probe)?;
                check_fits(len, 1, probe.pos(), file_size, "string length", at)?;
                probe.skip(len)?;
            }
            _ => {
                let inner = read_array_head(&mut probe, layout, file_size, depth + 1)?;
                skip_elements(&mut probe, &inner, 0, layout, file_size, depth + 1)?;
            }
        }
        *c = probe;
        *done += 1;
    }
    Ok(())
}

impl ArrayRef {
    /// Decodes elements `from..from+count` (clamped to the array) from `bytes`, the header
    /// bytes starting at file offset 0. Strings are decoded lossily; nested arrays come back
    /// as [`Value::Array`]. Fails only if `bytes` does not hold the array (it always does for
    /// a model the parser produced).
    pub fn values(&self, bytes: &[u8], from: u64, count: u64) -> Result<Vec<Value>, Error> {
        let to = from.saturating_add(count).min(self.len);
        let file_size = bytes.len() as u64;
        let mut c = Cursor::new(bytes, self.start, self.layout.endian);
        let fail = |e: ReadError| match e {
            ReadError::Fail(e) => e,
            ReadError::Short(s) => Error::new(
                "array element",
                self.start,
                ErrorKind::Truncated {
                    needed_end: s.needed_end,
                    file_size,
                },
            ),
        };
        let head = ArrayHead {
            elem: self.elem,
            len: from.min(self.len),
            start: self.start,
        };
        if let Some(size) = self.elem.fixed_size() {
            c = Cursor::new(
                bytes,
                self.start.saturating_add(head.len.saturating_mul(size)),
                self.layout.endian,
            );
        } else {
            skip_elements(&mut c, &head, 0, self.layout, file_size, 1).map_err(fail)?;
        }
        let mut out = Vec::with_capacity(usize::try_from(to.saturating_sub(from)).unwrap_or(0));
        for _ in from..to {
            out.push(read_value(&mut c, self.elem, self.layout, file_size, 1).map_err(fail)?);
        }
        Ok(out)
    }

    /// Number of encoded bytes of the array's elements.
    pub fn byte_len(&self) -> u64 {
        self.end - self.start
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LE3: Layout = Layout {
        endian: Endian::Little,
        len_width: 8,
    };

    fn string_array(items: &[&str]) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend(8u32.to_le_bytes());
        b.extend((items.len() as u64).to_le_bytes());
        for s in items {
            b.extend((s.len() as u64).to_le_bytes());
            b.extend(s.as_bytes());
        }
        b
    }

    #[test]
    fn string_array_is_indexed_then_decoded_on_demand() {
        let b = string_array(&["a", "bc", "\u{fffd}x", "d"]);
        let mut c = Cursor::new(&b, 0, Endian::Little);
        let v = read_value(&mut c, ValueType::Array, LE3, b.len() as u64, 0).unwrap();
        let Value::Array(a) = v else { panic!() };
        assert_eq!((a.len, a.start, a.end), (4, 12, b.len() as u64));
        let got = a.values(&b, 1, 2).unwrap();
        assert_eq!(got[0].as_str(), Some("bc"));
        assert_eq!(got[1].as_str(), Some("\u{fffd}x"));
        assert_eq!(a.values(&b, 3, 100).unwrap().len(), 1);
    }

    #[test]
    fn huge_counts_fail_before_allocating() {
        let mut b = Vec::new();
        b.extend(4u32.to_le_bytes());
        b.extend((1u64 << 28).to_le_bytes());
        b.extend([0u8; 101]);
        let mut c = Cursor::new(&b, 0, Endian::Little);
        let e = read_value(&mut c, ValueType::Array, LE3, b.len() as u64, 0).unwrap_err();
        let ReadError::Fail(e) = e else { panic!() };
        assert_eq!(
            e.kind,
            ErrorKind::CountTooLarge {
                count: 1 << 28,
                what: "array length",
                max: 25
            }
        );
        assert_eq!(e.offset, 4);
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let mut b = Vec::new();
        for _ in 0..100 {
            b.extend(9u32.to_le_bytes());
            b.extend(1u64.to_le_bytes());
        }
        b.extend(0u32.to_le_bytes());
        b.extend(0u64.to_le_bytes());
        let mut c = Cursor::new(&b[..], 0, Endian::Little);
        // The outer value type (ARRAY) was read by the caller: start at its element type.
        let e = read_value(&mut c, ValueType::Array, LE3, b.len() as u64, 0).unwrap_err();
        let ReadError::Fail(e) = e else { panic!() };
        assert_eq!(e.kind, ErrorKind::TooDeep(MAX_ARRAY_DEPTH));
    }
}
