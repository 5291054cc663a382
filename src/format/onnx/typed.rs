//! ONNX tensors whose values are in a typed field of their `TensorProto` rather than in
//! `raw_data`: `float_data`, `int32_data`, `int64_data`, `double_data`, `uint64_data`, packed
//! (one length-delimited run) or unpacked (a tag before each value), in one run or several.
//! [`decode`] turns such a field into the fixed-width little-endian bytes `raw_data` would
//! hold, with the values `onnx.numpy_helper.to_array` gives:
//!
//! - the field read is the one onnx reads for the data type (`helper.tensor_dtype_to_field`):
//!   `float_data` for FLOAT and COMPLEX64 (pairs), `double_data` for DOUBLE and COMPLEX128,
//!   `int64_data` for INT64, `uint64_data` for UINT32 and UINT64, `int32_data` for every
//!   other numeric type; values in another field are not read (onnx does not read them);
//! - an `int32_data` value is a protobuf `int32` (a varint truncated to 32 bits), cast as
//!   numpy's `astype` casts (INT8, UINT8, INT16, UINT16 keep the low bits; BOOL is nonzero);
//!   FLOAT16 and BFLOAT16 are the low 16 bits of the value, the 8-bit float types the low 8,
//!   FLOAT4E2M1 one byte of two packed values per entry; a `uint64_data` value cast to UINT32
//!   keeps the low 32 bits;
//! - the number of values must be the tensor's (twice it for complex types; half of it, rounded
//!   up, for FLOAT4E2M1), else onnx refuses the tensor, and so does the preview.

use super::{data_type_name, dtype_of};
use crate::format::DType;

/// The `TensorProto` field onnx reads a data type's values from when there is no `raw_data`
/// (`onnx.helper.tensor_dtype_to_field`): 4 `float_data`, 5 `int32_data`, 7 `int64_data`,
/// 10 `double_data`, 11 `uint64_data`; `None` for STRING (6, `string_data`) and UNDEFINED.
pub fn storage_field(data_type: i32) -> Option<u32> {
    Some(match data_type {
        1 | 14 => 4,
        7 => 7,
        11 | 15 => 10,
        12 | 13 => 11,
        2..=6 | 9 | 10 | 16..=28 => 5,
        _ => return None,
    })
}

/// The name of a data field (`int64_data`).
pub fn field_name(field: u32) -> &'static str {
    match field {
        4 => "float_data",
        5 => "int32_data",
        7 => "int64_data",
        10 => "double_data",
        _ => "uint64_data",
    }
}

/// Bytes one stored value of `data_type` decodes to: its element size (a complex value is two
/// stored values, 4 or 8 bytes each), 1 for a FLOAT4E2M1 entry (two packed values); `None`
/// for a type this tool does not preview (INT4, UINT4, INT2, UINT2, FLOAT6, STRING).
pub fn stored_width(data_type: i32) -> Option<u64> {
    match data_type {
        14 => Some(4),
        15 => Some(8),
        23 => Some(1),
        _ => match dtype_of(data_type) {
            DType::St(d) if d.bits % 8 == 0 => Some(u64::from(d.bits / 8)),
            _ => None,
        },
    }
}

/// How many stored values a tensor of `elements` elements of `data_type` has.
pub fn stored_values(data_type: i32, elements: u64) -> Option<u64> {
    match data_type {
        14 | 15 => elements.checked_mul(2),
        23 => Some(elements.div_ceil(2)),
        _ => Some(elements),
    }
}

/// A value's bytes as `raw_data` would hold them: `v` is the varint (fields 5, 7, 11) or the
/// fixed-width bits (fields 4, 10) as read.
fn put(data_type: i32, v: u64, out: &mut [u8]) {
    let i32v = v as u32; // protobuf int32: the low 32 bits
    match out.len() {
        1 => {
            out[0] = if data_type == 9 {
                u8::from(i32v != 0)
            } else {
                i32v as u8
            }
        }
        2 => out.copy_from_slice(&(i32v as u16).to_le_bytes()),
        4 => out.copy_from_slice(&i32v.to_le_bytes()),
        _ => out.copy_from_slice(&v.to_le_bytes()[..out.len().min(8)]),
    }
}

/// Why the protobuf bytes of a typed field could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpanError {
    /// A varint is cut by the end of the bytes.
    VarintCut,
    /// A varint longer than 10 bytes.
    VarintTooLong,
    /// A fixed-width value (4 or 8 bytes) is cut by the end of the bytes.
    FixedCut,
    /// A length-delimited run longer than the bytes left.
    RunPastData {
        /// The run's length in bytes, as read.
        len: u64,
    },
    /// A wire type other than 0, 1, 2 and 5.
    WireType(u64),
}

impl std::fmt::Display for SpanError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SpanError::VarintCut => write!(f, "a varint runs past the field"),
            SpanError::VarintTooLong => write!(f, "a varint longer than 10 bytes"),
            SpanError::FixedCut => write!(f, "a fixed-width value runs past the field"),
            SpanError::RunPastData { len } => {
                write!(f, "a {len}-byte run past the tensor's data")
            }
            SpanError::WireType(wire) => write!(f, "wire type {wire} inside the tensor's data"),
        }
    }
}

impl std::error::Error for SpanError {}

/// Why a typed field's values could not be decoded ([`decode`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeError {
    /// Values of this ONNX data type are not previewed ([`stored_width`] is `None`).
    NotPreviewed {
        /// The `TensorProto` data type.
        data_type: i32,
    },
    /// A value wider than this machine's `usize`.
    TooWide,
    /// The asked window's bytes cannot be allocated.
    WindowTooLarge,
    /// The field's protobuf bytes are bad.
    Span {
        /// The field's name ([`field_name`]).
        field: &'static str,
        /// What is bad.
        why: SpanError,
    },
    /// The field holds another number of values than the tensor needs.
    Count {
        /// The field's name ([`field_name`]).
        field: &'static str,
        /// Values found in the field.
        count: u64,
        /// Values the tensor needs ([`stored_values`]).
        want: u64,
    },
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DecodeError::NotPreviewed { data_type } => {
                write!(f, "{} values are not previewed", data_type_name(*data_type))
            }
            DecodeError::TooWide => write!(f, "too wide"),
            DecodeError::WindowTooLarge => {
                write!(f, "the window does not fit this machine's memory")
            }
            DecodeError::Span { field, why } => write!(f, "{field}: {why}"),
            DecodeError::Count { field, count, want } => write!(
                f,
                "{field} holds {count} values but the tensor needs {want}: onnx's to_array refuses it"
            ),
        }
    }
}

impl std::error::Error for DecodeError {}

fn varint(b: &[u8], i: &mut usize) -> Result<u64, SpanError> {
    let mut v = 0u64;
    for k in 0..10 {
        let Some(&c) = b.get(*i) else {
            return Err(SpanError::VarintCut);
        };
        *i += 1;
        v |= u64::from(c & 0x7f) << (7 * k);
        if c & 0x80 == 0 {
            return Ok(v);
        }
    }
    Err(SpanError::VarintTooLong)
}

fn fixed(b: &[u8], i: &mut usize, n: usize) -> Result<u64, SpanError> {
    let bytes = i
        .checked_add(n)
        .and_then(|e| b.get(*i..e))
        .ok_or(SpanError::FixedCut)?;
    *i += n;
    let mut w = [0u8; 8];
    w[..n].copy_from_slice(bytes);
    Ok(u64::from_le_bytes(w))
}

/// Decodes the values of `field` (a [`storage_field`]) in `span` — the bytes of a
/// `TensorProto` from the first tag of its data fields to the end of the last, other fields
/// among them skipped — into the little-endian bytes of `data_type` values, keeping only the
/// output bytes `keep` (a range of the decoded tensor); `want` is the number of values the
/// tensor needs ([`stored_values`]).
///
/// Errors: the span is not protobuf fields, a value is cut, or the field holds another number
/// of values than `want` (onnx refuses such a tensor too), naming the field.
pub fn decode(
    span: &[u8],
    field: u32,
    data_type: i32,
    keep: std::ops::Range<u64>,
    want: u64,
) -> Result<Vec<u8>, DecodeError> {
    let width = stored_width(data_type).ok_or(DecodeError::NotPreviewed { data_type })?;
    let w = usize::try_from(width).map_err(|_| DecodeError::TooWide)?;
    let cap = usize::try_from(keep.end.saturating_sub(keep.start))
        .map_err(|_| DecodeError::WindowTooLarge)?;
    let mut out = Vec::new();
    out.try_reserve_exact(cap)
        .map_err(|_| DecodeError::WindowTooLarge)?;
    let mut count = 0u64;
    let mut one = [0u8; 8];
    let mut emit = |v: u64, count: &mut u64, out: &mut Vec<u8>| {
        let at = count.saturating_mul(width);
        *count += 1;
        if at.saturating_add(width) <= keep.start || at >= keep.end {
            return;
        }
        put(data_type, v, &mut one[..w]);
        let lo = keep.start.saturating_sub(at) as usize;
        let hi = (keep.end - at).min(width) as usize;
        out.extend_from_slice(&one[lo..hi]);
    };
    let name = field_name(field);
    let bad = |why: SpanError| DecodeError::Span { field: name, why };
    let value_len = match field {
        4 => Some(4),
        10 => Some(8),
        _ => None,
    };
    let mut i = 0usize;
    while i < span.len() {
        let tag = varint(span, &mut i).map_err(bad)?;
        let (f, wire) = (tag >> 3, tag & 7);
        match wire {
            // Varint: one unpacked value of a varint field, or another field.
            0 => {
                let v = varint(span, &mut i).map_err(bad)?;
                if f == u64::from(field) && value_len.is_none() {
                    emit(v, &mut count, &mut out);
                }
            }
            1 | 5 => {
                let n = if wire == 1 { 8 } else { 4 };
                let v = fixed(span, &mut i, n).map_err(bad)?;
                if f == u64::from(field) && value_len == Some(n) {
                    emit(v, &mut count, &mut out);
                }
            }
            2 => {
                let len = varint(span, &mut i).map_err(bad)?;
                let end = usize::try_from(len)
                    .ok()
                    .and_then(|l| i.checked_add(l))
                    .filter(|&e| e <= span.len())
                    .ok_or(bad(SpanError::RunPastData { len }))?;
                if f == u64::from(field) {
                    // Packed values.
                    let run = &span[i..end];
                    let mut k = 0usize;
                    while k < run.len() {
                        let v = match value_len {
                            Some(n) => fixed(run, &mut k, n).map_err(bad)?,
                            None => varint(run, &mut k).map_err(bad)?,
                        };
                        emit(v, &mut count, &mut out);
                    }
                }
                i = end;
            }
            _ => return Err(bad(SpanError::WireType(wire))),
        }
    }
    if count != want {
        return Err(DecodeError::Count {
            field: name,
            count,
            want,
        });
    }
    Ok(out)
}
