//! Which bytes of a tensor a preview window needs: the tensor's row geometry, and the one
//! contiguous, block-aligned byte range covering a row range and column crop.

use std::ops::Range;

use serde::Serialize;

use crate::dequant::{st_elements, st_kind};
use crate::format::{DType, Endian, Model, Tensor};
use crate::open::OpenedModel;

use super::field::{field_view, structured, Gather};
use super::PreviewError;

/// Values decoded by default when no window is asked for: the first rows up to about this many
/// (at least one row; a longer single row is cut to this many columns).
pub const DEFAULT_WINDOW_VALUES: u64 = 1 << 20;
/// Largest window (values) one preview decodes: 16 Mi values = 64 MiB of `f32`.
pub const MAX_WINDOW_VALUES: u64 = 16 << 20;
/// Largest byte range one preview reads: 256 MiB.
pub const MAX_READ_BYTES: u64 = 256 << 20;

/// How a tensor's data decodes: the row length and the smallest decodable unit (a ggml block,
/// or a group of safetensors elements that ends on a byte boundary).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Geometry {
    /// Values per row: GGUF `ne0` (the contiguous dimension); safetensors the last dimension
    /// (a C64 element is one complex value).
    pub row_values: u64,
    /// Rows: the product of the other dimensions (1 for a scalar or a 1-D tensor).
    pub rows: u64,
    /// Bytes per row.
    pub row_bytes: u64,
    /// Values per decodable unit (ggml block size; 2 for F4, whose two values share a byte; 1
    /// for every other element-wise type).
    pub unit_values: u64,
    /// Bytes per decodable unit (ggml type size; 1 byte for F4's two values).
    pub unit_bytes: u64,
    /// Whether the file stores numbers big-endian (GGUF only).
    #[serde(skip)]
    pub big_endian: bool,
}

/// Row and column geometry of `t`, or why it cannot be previewed (unknown or removed type, F6,
/// quantised in a big-endian file, rows that are not whole blocks, sizes past 64 bits).
pub fn geometry(model: &Model, t: &Tensor) -> Result<Geometry, PreviewError> {
    let big_endian = model.endian == Endian::Big;
    let (row_values, rows, unit_values, unit_bytes) = match &t.dtype {
        DType::Ggml(g) => {
            let info = g.info().ok_or_else(|| {
                PreviewError::Dequant(crate::dequant::DequantError::UnknownGgmlType {
                    id: g.0,
                    label: g.label(),
                })
            })?;
            if big_endian && info.block_size != 1 {
                return Err(PreviewError::Dequant(
                    crate::dequant::DequantError::BigEndianQuantized { ty: info.name },
                ));
            }
            let ne0 = t.shape.first().copied().unwrap_or(1);
            let rows = product(t.shape.get(1..).unwrap_or(&[]))?;
            (
                ne0,
                rows,
                u64::from(info.block_size),
                u64::from(info.type_size),
            )
        }
        DType::St(d) => {
            let (last, lead) = match t.shape.split_last() {
                Some((last, lead)) => (*last, lead),
                None => (1, &[][..]),
            };
            let unit_bytes = if d.bits % 8 == 0 {
                u64::from(d.bits / 8)
            } else if d.bits == 4 {
                1
            } else {
                3 // F6: four values in three bytes; st_elements says why that is refused
            };
            let unit_values = st_elements(d, unit_bytes as usize).map_err(PreviewError::Dequant)?;
            // A C64 element decodes to two f32 (re, im) but is one complex value.
            let unit_values = if st_kind(d).is_complex() {
                1
            } else {
                unit_values as u64
            };
            // Elements per unit (2 for F4; 1 otherwise).
            let per_unit = unit_bytes * 8 / u64::from(d.bits.max(1));
            let per_unit = per_unit.max(1);
            if last % per_unit != 0 {
                return Err(PreviewError::Shape(format!(
                    "a row of {last} {} values does not end on a byte boundary",
                    d.name
                )));
            }
            let row_values = (last / per_unit)
                .checked_mul(unit_values)
                .ok_or(PreviewError::Overflow)?;
            (row_values, product(lead)?, unit_values, unit_bytes)
        }
        DType::StUnknown(name) => {
            return Err(PreviewError::Dequant(
                crate::dequant::DequantError::UnknownDtype { name: name.clone() },
            ))
        }
    };
    if unit_values == 0 || row_values % unit_values != 0 {
        return Err(PreviewError::Shape(format!(
            "a row of {row_values} values is not a whole number of {unit_values}-value {} blocks",
            t.dtype.label()
        )));
    }
    let row_bytes = (row_values / unit_values)
        .checked_mul(unit_bytes)
        .ok_or(PreviewError::Overflow)?;
    Ok(Geometry {
        row_values,
        rows,
        row_bytes,
        unit_values,
        unit_bytes,
        big_endian,
    })
}

fn product(dims: &[u64]) -> Result<u64, PreviewError> {
    crate::format::element_count(dims).ok_or(PreviewError::Overflow)
}

/// What to preview: a row range and a column range (in decoded values within a row). `None`
/// takes the default: rows from 0 up to [`DEFAULT_WINDOW_VALUES`] values, all columns (or the
/// first [`DEFAULT_WINDOW_VALUES`] of a longer row).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WindowRequest {
    /// Rows `A..B` (end exclusive).
    pub rows: Option<Range<u64>>,
    /// Columns `A..B` within each row (end exclusive).
    pub cols: Option<Range<u64>>,
    /// For a NumPy structured array: the field previewed (its rows and columns are the
    /// field's, [`target_geometry`]).
    pub field: Option<String>,
}

/// A planned window: which rows and columns, which bytes to read, how to decode them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Plan {
    /// Index of the tensor in `Model::tensors`.
    #[serde(skip)]
    pub tensor_index: usize,
    /// The tensor's geometry.
    pub geometry: Geometry,
    /// Rows shown (end exclusive).
    pub rows: Range<u64>,
    /// Columns shown (end exclusive), in decoded values within a row.
    pub cols: Range<u64>,
    /// Absolute file offset of the first byte read.
    pub read_offset: u64,
    /// Bytes read: from the first block of the crop in the first row to the last block of the
    /// crop in the last row (whole rows in between), one contiguous range.
    pub read_len: u64,
    /// The tensor's bytes in total.
    pub tensor_bytes: u64,
    /// First decodable unit (block) of the crop within a row.
    pub unit_start: u64,
    /// Units per row covering the crop.
    pub units: u64,
    /// For a tensor in a deflated zip member: `read_offset` and `read_len` are offsets in the
    /// member inflated, and these its compressed bytes ([`super::read_window`] inflates them
    /// up to the window's end).
    #[serde(skip)]
    pub inflate: Option<Inflate>,
    /// For an ONNX tensor whose values are in a typed field (`int64_data`, unpacked
    /// `float_data`, …): `read_offset` and `read_len` are offsets in the values decoded, and
    /// this the protobuf span [`super::read_window`] reads and decodes.
    #[serde(skip)]
    pub encoded: Option<crate::format::onnx::Encoded>,
    /// For a field of a NumPy structured array: `read_offset` and `read_len` are offsets in
    /// the field's bytes packed, and this where they lie in the array's elements
    /// ([`super::read_window`] reads the elements and packs the field's bytes).
    #[serde(skip)]
    pub gather: Option<Gather>,
}

/// The compressed bytes of a deflated member holding a window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Inflate {
    /// Absolute offset of the member's compressed bytes in the file.
    pub start: u64,
    /// The member's compressed size.
    pub compressed: u64,
    /// Compressed bytes read for the window (set by [`super::read_window`]).
    pub read: u64,
}

impl Plan {
    /// Rows in the window.
    pub fn n_rows(&self) -> u64 {
        self.rows.end - self.rows.start
    }
    /// Columns in the window.
    pub fn n_cols(&self) -> u64 {
        self.cols.end - self.cols.start
    }
    /// Values in the window (fits `usize`: checked against [`MAX_WINDOW_VALUES`] when planned).
    pub fn values(&self) -> usize {
        (self.n_rows() * self.n_cols()) as usize
    }
    /// Whether the crop is whole rows (then rows decode straight into the output, many at once).
    pub fn full_rows(&self) -> bool {
        self.cols.start == 0 && self.cols.end == self.geometry.row_values
    }
}

/// Why tensor `index` of `model` is not previewed whatever the window, when its values are not
/// in the file as they are: an ONNX tensor's (another file, sparse, strings, a field onnx does
/// not read), a PyTorch compressed storage's, a NumPy object, structured or text array's. This
/// reason comes before any about the tensor's type ([`geometry`]).
pub fn refusal(model: &Model, index: usize) -> Option<String> {
    if let Some(why) = model.onnx().and_then(|o| o.not_in_place(index)) {
        return Some(why.to_string());
    }
    model
        .archive()
        .and_then(|a| a.not_in_place.iter().find(|(i, _)| *i == index))
        .map(|(_, why)| why.clone())
}

/// The geometry a window of tensor `index` is chosen in: the tensor's, or its field's when
/// `field` names one of a NumPy structured array's. Errors: the tensor is refused
/// ([`refusal`]; a structured array without a field), no such field, a type that cannot be
/// previewed ([`geometry`]).
pub fn target_geometry(
    model: &Model,
    index: usize,
    field: Option<&str>,
) -> Result<Geometry, PreviewError> {
    if let Some(g) = field_of(model, index, field)? {
        return geometry(model, &g.view);
    }
    let t = model
        .tensors
        .get(index)
        .ok_or_else(|| PreviewError::NoTensor(format!("#{index}")))?;
    geometry(model, t)
}

/// The field `field` of structured array `index` as a tensor of its own (`None` without a
/// field); or why tensor `index` is refused ([`refusal`]: a structured array without a field,
/// a tensor whose values are elsewhere, an object array with or without a field).
fn field_of(
    model: &Model,
    index: usize,
    field: Option<&str>,
) -> Result<Option<Gather>, PreviewError> {
    if let (Some(f), Some(_)) = (field, structured(model, index)) {
        return field_view(model, index, f).map(Some);
    }
    if let Some(why) = refusal(model, index) {
        return Err(PreviewError::Shape(why));
    }
    // A field of a tensor that is no structured array: field_view says so.
    field.map(|f| field_view(model, index, f)).transpose()
}

/// Plans the window `req` of tensor `index` of `model`: the rows and columns, and the single
/// contiguous byte range (checked 64-bit arithmetic, whole blocks) that covers them.
///
/// A tensor with a zero dimension has the empty window `0..0 × 0..0` (0 values, 0 bytes read)
/// by default.
///
/// Errors: no such tensor, a type that cannot be previewed (see [`geometry`]), an unknown byte
/// size, data that does not fit in the file, rows or columns outside the tensor or empty, a
/// window over [`MAX_WINDOW_VALUES`] values or [`MAX_READ_BYTES`] bytes, sizes past 64 bits.
pub fn plan(model: &OpenedModel, index: usize, req: &WindowRequest) -> Result<Plan, PreviewError> {
    let whole = model
        .tensors
        .get(index)
        .ok_or_else(|| PreviewError::NoTensor(format!("#{index}")))?;
    let mut gather = field_of(model, index, req.field.as_deref())?;
    let t = gather.as_ref().map_or(whole, |g| &g.view);
    let g = geometry(model, t)?;
    if let Some((_, stride)) = model
        .archive()
        .and_then(|a| a.strided.iter().find(|(i, _)| *i == index))
    {
        return Err(PreviewError::Shape(format!(
            "a strided view (stride {stride:?} for shape {:?}): its values are not one byte range",
            t.shape
        )));
    }
    let tensor_bytes = g
        .rows
        .checked_mul(g.row_bytes)
        .ok_or(PreviewError::Overflow)?;
    match t.bytes {
        Some(b) if b == tensor_bytes => {}
        Some(b) => {
            return Err(PreviewError::Shape(format!(
                "the tensor's data spans {b} bytes but its shape and type need {tensor_bytes}"
            )))
        }
        None => {
            return Err(PreviewError::Shape(
                "the tensor's byte size is unknown".into(),
            ))
        }
    }
    // In a model merged from several files, the offset is within the tensor's own part; an
    // ONNX external tensor's, within its side file; a deflated member's, within the member
    // inflated (whose compressed bytes the window's read inflates).
    let deflated = model.archive().and_then(|a| a.deflated_of(index)).copied();
    // An ONNX tensor in a typed field: offsets within its values decoded.
    let encoded = model.onnx().and_then(|o| o.encoded_of(index)).copied();
    let (mut base, file_size) = match (deflated, encoded) {
        (Some(d), _) => (d.data_start, d.size),
        (None, Some(_)) => (0, tensor_bytes),
        (None, None) => (whole.offset, model.data_file_size(index)),
    };
    let inflate = deflated.map(|d| Inflate {
        start: d.start,
        compressed: d.compressed,
        read: 0,
    });
    // What must lie in the file: the tensor's bytes, or a field's whole array.
    let stored_bytes = match &gather {
        Some(_) => whole.bytes.ok_or_else(|| {
            PreviewError::Shape("the structured array's byte size is unknown".into())
        })?,
        None => tensor_bytes,
    };
    let end = base.checked_add(stored_bytes);
    if end.is_none_or(|e| e > file_size) {
        return Err(PreviewError::BeyondEnd {
            offset: base,
            bytes: stored_bytes,
            file_size,
        });
    }
    if let Some(ga) = gather.as_mut() {
        // The window's offsets are in the field's packed bytes; `ga.base` is where the
        // elements start.
        ga.base = base;
        base = 0;
    }
    if g.rows == 0 || g.row_values == 0 {
        // A dimension is 0: the default window is the empty one (0 values, nothing read);
        // a window asked for is outside the tensor.
        if req.rows.is_none() && req.cols.is_none() {
            return Ok(Plan {
                tensor_index: index,
                geometry: g,
                rows: 0..0,
                cols: 0..0,
                read_offset: base,
                read_len: 0,
                tensor_bytes,
                unit_start: 0,
                units: 0,
                inflate,
                encoded,
                gather,
            });
        }
        return Err(PreviewError::Window(format!(
            "the tensor has no values (its shape has a 0), so no window {} is inside it",
            if req.rows.is_some() {
                "of rows"
            } else {
                "of columns"
            }
        )));
    }
    let cols = match (&req.cols, &req.rows) {
        (Some(c), _) => c.clone(),
        (None, None) => 0..g.row_values.min(DEFAULT_WINDOW_VALUES),
        (None, Some(_)) => 0..g.row_values,
    };
    if cols.start >= cols.end || cols.end > g.row_values {
        return Err(PreviewError::Window(format!(
            "columns {}..{} are not a non-empty range within the {} values of a row",
            cols.start, cols.end, g.row_values
        )));
    }
    let n_cols = cols.end - cols.start;
    let rows = match &req.rows {
        Some(r) => r.clone(),
        None => 0..g.rows.min((DEFAULT_WINDOW_VALUES / n_cols).max(1)),
    };
    if rows.start >= rows.end || rows.end > g.rows {
        return Err(PreviewError::Window(format!(
            "rows {}..{} are not a non-empty range within the {} rows of the tensor",
            rows.start, rows.end, g.rows
        )));
    }
    let n_rows = rows.end - rows.start;
    let values = n_rows.checked_mul(n_cols).ok_or(PreviewError::Overflow)?;
    if values > MAX_WINDOW_VALUES {
        return Err(PreviewError::Window(format!(
            "{values} values is more than one preview decodes ({MAX_WINDOW_VALUES}); choose fewer rows or columns"
        )));
    }
    let unit_start = cols.start / g.unit_values;
    let unit_end = cols.end.div_ceil(g.unit_values);
    let units = unit_end - unit_start;
    // From the crop's first unit in the first row to its last unit in the last row.
    let first = rows
        .start
        .checked_mul(g.row_bytes)
        .and_then(|b| b.checked_add(unit_start.checked_mul(g.unit_bytes)?))
        .ok_or(PreviewError::Overflow)?;
    let last_end = (rows.end - 1)
        .checked_mul(g.row_bytes)
        .and_then(|b| b.checked_add(unit_end.checked_mul(g.unit_bytes)?))
        .ok_or(PreviewError::Overflow)?;
    let read_len = last_end - first;
    if read_len > MAX_READ_BYTES {
        return Err(PreviewError::Window(format!(
            "the window's rows span {read_len} bytes, more than one preview reads ({MAX_READ_BYTES}); choose fewer rows"
        )));
    }
    if let Some(ga) = &gather {
        let (_, stored) = ga.stored(first, read_len)?;
        if stored > MAX_READ_BYTES {
            return Err(PreviewError::Window(format!(
                "the window's elements span {stored} bytes, more than one preview reads ({MAX_READ_BYTES}); choose fewer rows"
            )));
        }
    }
    let read_offset = base.checked_add(first).ok_or(PreviewError::Overflow)?;
    Ok(Plan {
        tensor_index: index,
        geometry: g,
        rows,
        cols,
        read_offset,
        read_len,
        tensor_bytes,
        unit_start,
        units,
        inflate,
        encoded,
        gather,
    })
}

/// Why a typed window (`A..B`) is not a range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RangeError {
    /// A bound is not a whole number (the text, underscores removed).
    NotANumber(String),
    /// A single row `A` whose end `A + 1` does not fit 64 bits.
    TooLarge,
    /// The range holds no row: `start..end` with `start >= end`.
    Empty {
        /// The first row asked.
        start: u64,
        /// The end asked (exclusive).
        end: u64,
    },
}

impl std::fmt::Display for RangeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RangeError::NotANumber(s) => write!(f, "\"{s}\" is not a whole number"),
            RangeError::TooLarge => f.write_str("number too large"),
            RangeError::Empty { start, end } => write!(f, "{start}..{end} is empty"),
        }
    }
}

impl std::error::Error for RangeError {}

/// Parses `A..B` (end exclusive), `A..` (to `max`), `..B`, or a single `A` (one row) into a
/// range; `max` is the exclusive upper bound used for an open end. Errors: [`RangeError`].
pub fn parse_range(text: &str, max: u64) -> Result<Range<u64>, RangeError> {
    let text = text.trim();
    let num = |s: &str, default: u64| -> Result<u64, RangeError> {
        let s = s.trim().replace('_', "");
        if s.is_empty() {
            return Ok(default);
        }
        s.parse::<u64>().map_err(|_| RangeError::NotANumber(s))
    };
    let r = match text.split_once("..") {
        Some((a, b)) => num(a, 0)?..num(b, max)?,
        None => {
            let a = num(text, 0)?;
            a..a.checked_add(1).ok_or(RangeError::TooLarge)?
        }
    };
    if r.start >= r.end {
        return Err(RangeError::Empty {
            start: r.start,
            end: r.end,
        });
    }
    Ok(r)
}
