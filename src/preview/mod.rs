//! Tensor value previews: plan the bytes of a window, read them through a [`ByteSource`],
//! decode them with [`crate::dequant`], and summarise them (statistics, histogram, heatmap, the
//! first values, per-block scales). Plain Rust, no web crates; the page and the CLI share it.
//!
//! Flow: [`plan()`] → [`read_window`] (one `ByteSource::read` of exactly `plan.read_len` bytes) →
//! [`Job`] (decode and both statistics passes in steps of a bounded number of values, so the
//! page can yield to the event loop between steps) → [`Preview`].
//!
//! Memory: the bytes of the window plus one `f32` per window value, or one `f64` for the types an
//! `f32` cannot hold (F64, 32- and 64-bit integers, C64's magnitude), at most
//! [`MAX_WINDOW_VALUES`] values; nothing is sized by the whole tensor.
//!
//! Exactness: every shown value is the stored type's own (see [`crate::dequant::ElementKind`]):
//! an `f32`, an `f64`, an integer with every digit, a boolean, a complex number; the minimum and
//! maximum likewise. A complex tensor's statistics, histogram and heatmap are of `|z|`.
//!
//! Shapes: GGUF `ne0` (the first, contiguous dimension) is the row; safetensors the last
//! dimension. Rows count over all other dimensions in storage order.
#![forbid(unsafe_code)]

mod field;
mod heatmap;
mod inflate;
mod plan;
mod scales;
mod stats;
mod values;

use std::fmt;
use std::ops::Range;

use serde::Serialize;

use crate::dequant::{
    decode_wide, dequantize_ggml, dequantize_safetensors, element_at, ggml_kind, st_kind,
    DequantError, ElementKind, Exact,
};
use crate::format::{DType, Model};
use crate::source::ByteSource;

pub use field::{default_field, field_view, structured, Gather};
pub use heatmap::{color, heatmap_of, Heatmap, MAX_CELLS, NAN_RGB, STOPS};
pub use inflate::{INFLATE_OUT, INFLATE_READ};
pub use plan::{
    geometry, parse_range, plan, refusal, target_geometry, Geometry, Inflate, Plan, WindowRequest,
    DEFAULT_WINDOW_VALUES, MAX_READ_BYTES, MAX_WINDOW_VALUES,
};
pub use scales::{read_scale, scale_field, ScaleField};
pub use stats::{stats_of, Histogram, Stats, HISTOGRAM_BINS};
pub use values::{exact_raw, exact_text, value_text, value_text_f64};

use heatmap::HeatmapBuilder;
pub(crate) use stats::IntRange;
use stats::{Pass1, Pass2};

/// How many first values a preview lists.
pub const FIRST_VALUES: usize = 64;

/// Why a tensor (or a window of it) cannot be previewed. Every message is plain words for the
/// page and the CLI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PreviewError {
    /// No tensor of that name or index.
    NoTensor(String),
    /// The type cannot be decoded (unknown, removed, F6, quantised big-endian).
    Dequant(DequantError),
    /// The shape or byte size does not allow a preview.
    Shape(String),
    /// The tensor's data runs past the end of the file.
    BeyondEnd {
        /// Absolute offset of the tensor's data.
        offset: u64,
        /// Its byte size.
        bytes: u64,
        /// The file's size.
        file_size: u64,
    },
    /// The requested window is empty, outside the tensor, or too large.
    Window(String),
    /// Reading the bytes failed (I/O, network), or returned the wrong length.
    Read(String),
    /// A size does not fit 64 bits (or `usize`).
    Overflow,
}

impl fmt::Display for PreviewError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PreviewError::NoTensor(n) => write!(f, "no tensor {n} in this file"),
            PreviewError::Dequant(e) => write!(f, "{e}"),
            PreviewError::Shape(s) => write!(f, "cannot preview: {s}"),
            PreviewError::BeyondEnd {
                offset,
                bytes,
                file_size,
            } => write!(
                f,
                "cannot preview: the tensor's {bytes} bytes at offset {offset} run past the end of \
                 the {file_size}-byte file (is the file cut short?)"
            ),
            PreviewError::Window(s) => write!(f, "bad window: {s}"),
            PreviewError::Read(s) => write!(f, "reading the tensor's bytes failed: {s}"),
            PreviewError::Overflow => write!(f, "cannot preview: a size overflows 64 bits"),
        }
    }
}

impl std::error::Error for PreviewError {}

impl From<DequantError> for PreviewError {
    fn from(e: DequantError) -> Self {
        PreviewError::Dequant(e)
    }
}

/// One of the first values of the window, with where it is in the tensor.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FirstValue {
    /// Row (over all dimensions but the row dimension, in storage order).
    pub row: u64,
    /// Column within the row (in elements; two F4 values per byte are two columns).
    pub col: u64,
    /// Flat index in the tensor's values: `row × row_values + col`.
    pub index: u64,
    /// The exact value: a number (`null` in JSON when NaN or infinite; see `text`), an integer
    /// with every digit, `true`/`false`, or `[re, im]`.
    pub value: Exact,
    /// The value as text ([`exact_text`]: shortest round-trip form in the stored precision,
    /// every digit of an integer, `re + im i`; `NaN`, `inf`, `-inf` included).
    pub text: String,
}

/// The block scales of the window, as a grid of rows × blocks.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BlockScales {
    /// Which field was read, e.g. `super-block d (f16 at byte 0)`.
    pub field: &'static str,
    /// Values per block.
    pub block_values: u64,
    /// The grid (rows of the window × blocks covering its columns).
    pub heatmap: Heatmap,
    /// Statistics of the scales.
    pub stats: Stats,
}

/// A finished preview. Serialised (without the heatmap cells) as the CLI's `--json` and the
/// page's data: one schema for both.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Preview {
    /// Tensor name.
    pub tensor: String,
    /// The field previewed, for a NumPy structured array (then `dtype` and `shape` are the
    /// field's: the array's shape followed by the field's subarray shape).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// Type label (`Q4_K`, `BF16`).
    pub dtype: String,
    /// Shape as stored (GGUF ggml order ne0 first; safetensors row-major).
    pub shape: Vec<u64>,
    /// What a row is, in words.
    pub row_is: &'static str,
    /// What the values are: `float`, `integer`, `boolean` or `complex` (then the statistics,
    /// histogram and heatmap are of `|z|`).
    pub values_are: &'static str,
    /// The plan: rows, columns, geometry, the byte range read.
    pub window: Plan,
    /// Bytes actually read from the source for this preview.
    pub bytes_read: u64,
    /// Statistics of the window's values.
    pub stats: Stats,
    /// Histogram of the finite values.
    pub histogram: Histogram,
    /// The window's heatmap (cells are not serialised).
    pub heatmap: Heatmap,
    /// The first [`FIRST_VALUES`] values in window order.
    pub first_values: Vec<FirstValue>,
    /// Per-block scales (block-quantised GGUF types with a single scale field).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block_scales: Option<BlockScales>,
    /// Where the bytes came from when it is not the model file's byte range: the ONNX side
    /// file (`from the side file "w.bin"`), a deflated `.npz` member (`deflated member: N
    /// compressed bytes read`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_note: Option<String>,
}

/// Reads the window's bytes: one `read` of exactly `plan.read_len` bytes at `plan.read_offset`
/// (none for an empty window); for a tensor in a deflated member, the member's compressed
/// bytes up to the window's end, inflated (`plan.inflate.read` then says how many were read).
/// Errors: the source failed or returned another length, or the length does not fit `usize`.
pub async fn read_window<S: ByteSource>(
    src: &mut S,
    plan: &mut Plan,
) -> Result<Vec<u8>, PreviewError> {
    read_next_window(src, plan, &mut Carry::default()).await
}

/// What a reader of one tensor's windows in order keeps from one window to the next
/// ([`read_next_window`]): a deflated member's inflater where the last window ended; an ONNX
/// typed field's protobuf span, read once when it is at most [`CARRY_SPAN_BYTES`].
#[derive(Debug, Default)]
pub struct Carry {
    inflating: Option<inflate::Inflating>,
    span: Option<(crate::format::onnx::Encoded, Vec<u8>)>,
}

/// Largest ONNX typed-field span a [`Carry`] keeps between windows: 16 MiB (the scan's bound
/// on what it holds); a longer one is read again for each window.
pub const CARRY_SPAN_BYTES: u64 = 16 << 20;

/// [`read_window`] for the next of a tensor's windows, read in order (the scan's pieces):
/// a window in a deflated `.npz` member goes on inflating where the window before it, whose
/// [`Carry`] this is, ended — the member is inflated once, not once per window (a window that
/// starts before that point inflates the member from its start); an ONNX typed field's span
/// up to [`CARRY_SPAN_BYTES`] is read once for all its windows.
pub async fn read_next_window<S: ByteSource>(
    src: &mut S,
    plan: &mut Plan,
    carry: &mut Carry,
) -> Result<Vec<u8>, PreviewError> {
    usize::try_from(plan.read_len).map_err(|_| PreviewError::Overflow)?;
    if let Some(mut g) = plan.gather.take_if(|_| plan.read_len > 0) {
        // A structured array's field: the whole elements covering the window, packed.
        let (from, len) = g.stored(plan.read_offset, plan.read_len)?;
        let raw = if plan.inflate.is_some() {
            let mut elements = plan.clone();
            elements.read_offset = from;
            elements.read_len = len;
            let raw = inflate::inflate_window(src, &mut elements, &mut None).await;
            plan.inflate = elements.inflate;
            raw
        } else {
            read_exact(src, from, len).await
        };
        g.read = len;
        let packed = raw.and_then(|raw| g.pack(&raw, plan.read_offset, plan.read_len));
        plan.gather = Some(g);
        return packed;
    }
    if plan.inflate.is_some() && plan.read_len > 0 {
        return inflate::inflate_window(src, plan, &mut carry.inflating).await;
    }
    if let Some(e) = plan.encoded.filter(|_| plan.read_len > 0) {
        if e.len > CARRY_SPAN_BYTES {
            return decode_window(src, plan, e).await;
        }
        let span = match carry.span.take() {
            Some((k, span)) if k == e => span,
            _ => read_span(src, e).await?,
        };
        let values = decode_span(&span, plan, e);
        carry.span = Some((e, span));
        return values;
    }
    if plan.read_len == 0 {
        // An empty window (a tensor with a zero dimension) reads nothing.
        return Ok(Vec::new());
    }
    read_exact(src, plan.read_offset, plan.read_len).await
}

/// Exactly `len` bytes at `offset` of `src`, or why not (past the end, a failed read, a short
/// answer).
async fn read_exact<S: ByteSource>(
    src: &mut S,
    offset: u64,
    len: u64,
) -> Result<Vec<u8>, PreviewError> {
    let end = offset.checked_add(len).ok_or(PreviewError::Overflow)?;
    if end > src.size() {
        return Err(PreviewError::BeyondEnd {
            offset,
            bytes: len,
            file_size: src.size(),
        });
    }
    let bytes = src
        .read(offset, len)
        .await
        .map_err(|e| PreviewError::Read(e.to_string()))?;
    if bytes.len() as u64 != len {
        return Err(PreviewError::Read(format!(
            "asked for {len} bytes, got {}",
            bytes.len()
        )));
    }
    Ok(bytes)
}

/// The window of an ONNX tensor whose values are in a typed field: reads the field's span of
/// the protobuf (one read, at most [`MAX_READ_BYTES`]) and decodes the window's values
/// ([`crate::format::onnx::typed::decode`]).
async fn decode_window<S: ByteSource>(
    src: &mut S,
    plan: &Plan,
    e: crate::format::onnx::Encoded,
) -> Result<Vec<u8>, PreviewError> {
    let span = read_span(src, e).await?;
    decode_span(&span, plan, e)
}

/// The protobuf span of an ONNX typed field ([`decode_window`]).
async fn read_span<S: ByteSource>(
    src: &mut S,
    e: crate::format::onnx::Encoded,
) -> Result<Vec<u8>, PreviewError> {
    if e.len > MAX_READ_BYTES {
        return Err(PreviewError::Window(format!(
            "its values take {} bytes of the protobuf, more than one preview reads \
             ({MAX_READ_BYTES})",
            e.len
        )));
    }
    read_exact(src, e.start, e.len).await
}

/// The window's values decoded from the span `span` of its typed field.
fn decode_span(
    span: &[u8],
    plan: &Plan,
    e: crate::format::onnx::Encoded,
) -> Result<Vec<u8>, PreviewError> {
    let keep = plan.read_offset..plan.read_offset.saturating_add(plan.read_len);
    crate::format::onnx::typed::decode(span, e.field, e.data_type, keep, e.values)
        .map_err(PreviewError::Read)
}

/// Moves `plan` to where its tensor's bytes really are, when the file's listing only predicted
/// that: a PyTorch zip member whose local header was not read (a remote archive lists its
/// tensors from the pickle and the central directory alone). Reads the member's local header
/// (one small read) and shifts the window by the difference. A plan of any other tensor is
/// returned as it is, without a read.
///
/// Errors: the header cannot be read, or is not a zip local header.
pub async fn locate<S: ByteSource>(
    model: &Model,
    src: &mut S,
    plan: Plan,
) -> Result<Plan, PreviewError> {
    let moved = member_data(model, src, plan.tensor_index).await?;
    relocate(plan, moved)
}

/// Where the data of tensor `index`'s zip member really starts, when the listing only
/// predicted it ([`locate`]): `Some((predicted, real))` after one small read of the member's
/// local header; `None` without a read for every other tensor. A caller planning many windows
/// of one tensor (the scan) reads it once and [`relocate`]s each plan.
///
/// Errors: the header cannot be read, or is not a zip local header.
pub async fn member_data<S: ByteSource>(
    model: &Model,
    src: &mut S,
    index: usize,
) -> Result<Option<(u64, u64)>, PreviewError> {
    let Some(a) = &model.archive else {
        return Ok(None);
    };
    let Some(s) = a
        .tensor_storage
        .get(index)
        .copied()
        .flatten()
        .and_then(|i| a.storages.get(i))
        .filter(|s| !s.verified)
    else {
        return Ok(None);
    };
    use crate::format::zip;
    let len =
        (zip::LOCAL_LEN + s.member.len() as u64 + 256).min(src.size().saturating_sub(s.header));
    let head = src
        .read(s.header, len)
        .await
        .map_err(|e| PreviewError::Read(e.to_string()))?;
    let entry = zip::Entry {
        name: s.member.clone(),
        method: zip::METHOD_STORED,
        flags: 0,
        crc32: 0,
        compressed: s.bytes,
        size: s.bytes,
        local_header: s.header,
        central_offset: 0,
    };
    let real = match zip::data_offset(&head, &entry, src.size()) {
        Ok(d) => d,
        Err(zip::ZipStop::Fail(e)) => return Err(PreviewError::Read(e.to_string())),
        Err(zip::ZipStop::Need(_) | zip::ZipStop::NeedMany(_)) => {
            return Err(PreviewError::Read(format!(
                "the local header of {} at byte {} is longer than expected",
                s.member, s.header
            )))
        }
    };
    Ok(Some((s.data, real)))
}

/// `plan` moved from a member's predicted data offset to its real one ([`member_data`]);
/// unchanged for `None`.
pub fn relocate(mut plan: Plan, moved: Option<(u64, u64)>) -> Result<Plan, PreviewError> {
    if let Some((predicted, real)) = moved {
        plan.read_offset = plan
            .read_offset
            .checked_sub(predicted)
            .and_then(|rel| real.checked_add(rel))
            .ok_or(PreviewError::Overflow)?;
    }
    Ok(plan)
}

/// How runs of a tensor's whole decodable units turn into values: the dequantisers to `f32`,
/// or [`decode_wide`] to `f64` for the element-wise types an `f32` cannot hold. Shared by the
/// previews and the scan ([`crate::scan`]).
#[derive(Debug, Clone, Copy)]
pub enum Decoder {
    /// A ggml type (and whether the file is big-endian).
    Ggml(crate::format::GgmlType, bool),
    /// A safetensors dtype (little-endian).
    St(crate::format::safetensors::StDtype),
    /// Element-wise types an `f32` cannot hold, to `f64` ([`decode_wide`]).
    Wide(ElementKind, bool),
}

impl Decoder {
    /// The decoder of `t`'s type and its element kind; `big_endian` as the file stores
    /// numbers. Errors: a dtype this tool does not know.
    pub fn of(
        t: &crate::format::Tensor,
        big_endian: bool,
    ) -> Result<(Decoder, ElementKind), PreviewError> {
        let (decoder, kind) = match &t.dtype {
            DType::Ggml(g) => (Decoder::Ggml(*g, big_endian), ggml_kind(*g)),
            DType::St(d) => (Decoder::St(*d), st_kind(d)),
            DType::StUnknown(n) => {
                return Err(PreviewError::Dequant(DequantError::UnknownDtype {
                    name: n.clone(),
                }))
            }
        };
        Ok(if kind.is_wide() {
            (Decoder::Wide(kind, big_endian), kind)
        } else {
            (decoder, kind)
        })
    }

    /// Whether values decode to `f64` ([`Decoder::f64`]) rather than `f32` ([`Decoder::f32`]).
    pub fn is_wide(&self) -> bool {
        matches!(self, Decoder::Wide(..))
    }

    /// Decodes whole units to `f32` (`out`: one value per element). Errors: a wide type, or
    /// the dequantisers' (partial blocks, a wrong output length).
    pub fn f32(&self, bytes: &[u8], out: &mut [f32]) -> Result<(), DequantError> {
        match *self {
            Decoder::Ggml(t, be) => dequantize_ggml(t, be, bytes, out),
            Decoder::St(d) => dequantize_safetensors(&d, bytes, out),
            Decoder::Wide(..) => Err(DequantError::Unsupported {
                ty: "a wide type".into(),
                why: "it decodes to f64",
            }),
        }
    }

    /// Decodes whole elements of a wide type to `f64` ([`decode_wide`]). Errors: not a wide
    /// type, partial elements, a wrong output length.
    pub fn f64(&self, bytes: &[u8], out: &mut [f64]) -> Result<(), DequantError> {
        match *self {
            Decoder::Wide(kind, be) => decode_wide(kind, be, bytes, out),
            _ => Err(DequantError::Unsupported {
                ty: "a float type".into(),
                why: "it decodes to f32 through the dequantisers",
            }),
        }
    }
}

/// The window's values, row-major (`n_rows × n_cols`): `f32` when that holds them exactly,
/// else `f64` (see [`ElementKind::is_wide`]).
#[derive(Debug, Clone, PartialEq)]
pub enum WindowValues {
    /// One `f32` per value.
    F32(Vec<f32>),
    /// One `f64` per value (a 64-bit integer beyond 2^53 is its nearest double).
    F64(Vec<f64>),
    /// C64 and C32: two `f32` per value, `re` then `im`.
    Complex(Vec<f32>),
    /// C128: two `f64` per value, `re` then `im`.
    Complex128(Vec<f64>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Decoding rows (and pass 1 on each decoded chunk).
    Decode,
    /// Pass 2 (histogram, squared deviations) and the heatmap, per heatmap source row.
    Pass2,
    Done,
}

/// Most values decoded by one call of a decoder, so a scratch buffer stays small.
const DECODE_CHUNK: usize = 1 << 20;

/// Decodes rows `r0..r1` of the window into `out` (the window's values), through `scratch` when
/// the crop is not whole rows.
fn decode_rows<T: Copy>(
    p: &Plan,
    bytes: &[u8],
    out: &mut [T],
    scratch: &mut [T],
    rows: Range<usize>,
    run: impl Fn(&[u8], &mut [T]) -> Result<(), DequantError>,
) -> Result<(), DequantError> {
    let n_cols = p.n_cols() as usize;
    let row_bytes = p.geometry.row_bytes as usize;
    let run_bytes = (p.units * p.geometry.unit_bytes) as usize;
    if p.full_rows() {
        // Whole rows are contiguous in the bytes and in the output: one call.
        run(
            &bytes[rows.start * row_bytes..rows.end * row_bytes],
            &mut out[rows.start * n_cols..rows.end * n_cols],
        )
    } else {
        let skip = (p.cols.start - p.unit_start * p.geometry.unit_values) as usize;
        for r in rows {
            run(&bytes[r * row_bytes..r * row_bytes + run_bytes], scratch)?;
            out[r * n_cols..(r + 1) * n_cols].copy_from_slice(&scratch[skip..skip + n_cols]);
        }
        Ok(())
    }
}

/// A preview being computed, in steps: [`Job::step`] does a bounded amount of work, so the
/// page can yield to the event loop between steps; [`Job::run`] does it all at once.
pub struct Job {
    tensor: String,
    field: Option<String>,
    dtype: String,
    shape: Vec<u64>,
    row_is: &'static str,
    plan: Plan,
    bytes: Vec<u8>,
    decoder: Decoder,
    kind: ElementKind,
    big_endian: bool,
    scale: Option<(ScaleField, &'static str)>,
    /// The window's values (`F32` or `F64`, never `Complex` while computing).
    values: WindowValues,
    /// Scratch for one row's covering units when the crop is not whole rows.
    scratch32: Vec<f32>,
    scratch64: Vec<f64>,
    /// Exact min/max of an integer type.
    ints: Option<IntRange>,
    phase: Phase,
    /// Next window row to decode (Decode) or next heatmap source row (Pass2).
    next: u64,
    p1: Pass1,
    p2: Option<Pass2>,
    heat: HeatmapBuilder,
    read_note: Option<String>,
}

impl Job {
    /// Starts a preview of `plan`'s window from its bytes (exactly `plan.read_len` of them, as
    /// [`read_window`] returns). Allocates the window's values.
    pub fn new(model: &Model, plan: Plan, bytes: Vec<u8>) -> Result<Job, PreviewError> {
        let t = model
            .tensors
            .get(plan.tensor_index)
            .ok_or_else(|| PreviewError::NoTensor(format!("#{}", plan.tensor_index)))?;
        // A structured array's field decodes as the tensor it is seen as.
        let t = plan.gather.as_ref().map_or(t, |g| &g.view);
        if bytes.len() as u64 != plan.read_len {
            return Err(PreviewError::Read(format!(
                "got {} bytes for a {}-byte window",
                bytes.len(),
                plan.read_len
            )));
        }
        let be = plan.geometry.big_endian;
        let (decoder, kind) = Decoder::of(t, be)?;
        let (scale, row_is) = match &t.dtype {
            DType::Ggml(g) => (
                scale_field(g.0),
                "a row is ne0 values (GGUF's first, contiguous dimension)",
            ),
            _ => (None, "a row is the last dimension (row-major)"),
        };
        let n = plan.values();
        let scratch_len = if plan.full_rows() {
            0
        } else {
            usize::try_from(plan.units * plan.geometry.unit_values)
                .map_err(|_| PreviewError::Overflow)?
        };
        let (values, scratch32, scratch64) = if kind.is_wide() {
            (
                WindowValues::F64(vec![0f64; n]),
                Vec::new(),
                vec![0f64; scratch_len],
            )
        } else {
            (
                WindowValues::F32(vec![0f32; n]),
                vec![0f32; scratch_len],
                Vec::new(),
            )
        };
        let ints = match kind {
            ElementKind::Int { signed, .. } => Some(IntRange::new(signed)),
            _ => None,
        };
        let heat = HeatmapBuilder::new(plan.n_rows(), plan.n_cols());
        let side = model
            .onnx
            .as_ref()
            .and_then(|o| o.side_file_of(plan.tensor_index))
            .map(|f| {
                let path = crate::format::onnx::side_path(&f.location);
                format!("from the side file \"{path}\"")
            });
        // Where the bytes came from, when not the tensor's own byte range: each that applies.
        let notes: Vec<String> = [
            side,
            plan.inflate.map(|i| {
                format!(
                    "deflated member: {} compressed bytes read",
                    crate::text::thousands(i.read)
                )
            }),
            plan.gather.as_ref().map(|g| {
                format!(
                    "field \"{}\": {} bytes at byte {} of each {}-byte element, {} bytes of \
                     elements gathered",
                    g.field,
                    g.width,
                    g.offset,
                    g.item,
                    crate::text::thousands(g.read)
                )
            }),
            plan.encoded.map(|e| {
                format!(
                    "decoded from {}: {} bytes of the protobuf read",
                    crate::format::onnx::typed::field_name(e.field),
                    crate::text::thousands(e.len)
                )
            }),
        ]
        .into_iter()
        .flatten()
        .collect();
        let read_note = (!notes.is_empty()).then(|| notes.join("; "));
        Ok(Job {
            field: plan.gather.as_ref().map(|g| g.field.clone()),
            tensor: t.name.clone(),
            dtype: t.dtype.label(),
            shape: t.shape.clone(),
            row_is,
            bytes,
            decoder,
            kind,
            big_endian: be,
            scale,
            values,
            scratch32,
            scratch64,
            ints,
            phase: Phase::Decode,
            next: 0,
            p1: Pass1::new(),
            p2: None,
            heat,
            plan,
            read_note,
        })
    }

    /// Values in the window.
    pub fn len(&self) -> usize {
        self.plan.values()
    }

    /// Whether the window is empty (a tensor with a zero dimension).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Does about `budget` values of work (at least one row). `Ok(true)` when finished.
    pub fn step(&mut self, budget: usize) -> Result<bool, PreviewError> {
        match self.phase {
            Phase::Decode => self.decode_step(budget)?,
            Phase::Pass2 => self.pass2_step(budget),
            Phase::Done => {}
        }
        Ok(self.phase == Phase::Done)
    }

    /// Byte offset in the window's bytes of window value `k` of an element-wise type (whose
    /// decodable unit is one element).
    fn element_offset(&self, k: usize) -> Option<usize> {
        let p = &self.plan;
        let n_cols = p.n_cols() as usize;
        let width = self.kind.width()?;
        let (r, c) = (k / n_cols.max(1), k % n_cols.max(1));
        let skip = (p.cols.start - p.unit_start * p.geometry.unit_values) as usize;
        Some(r * p.geometry.row_bytes as usize + (skip + c) * width)
    }

    /// The exact value of window value `k`.
    fn exact(&self, k: usize) -> Exact {
        let decoded = match &self.values {
            WindowValues::F32(v) => v.get(k).map(|&x| f64::from(x)),
            WindowValues::F64(v) => v.get(k).copied(),
            WindowValues::Complex(_) | WindowValues::Complex128(_) => None,
        };
        if self.kind == ElementKind::Float32 {
            return Exact::F32(decoded.unwrap_or(f64::NAN) as f32);
        }
        self.element_offset(k)
            .and_then(|at| self.bytes.get(at..))
            .and_then(|b| element_at(self.kind, self.big_endian, b))
            .unwrap_or(Exact::F64(decoded.unwrap_or(f64::NAN)))
    }

    fn decode_step(&mut self, budget: usize) -> Result<(), PreviewError> {
        let p = &self.plan;
        let n_rows = p.n_rows();
        let n_cols = p.n_cols() as usize;
        let budget = budget.min(DECODE_CHUNK);
        let rows_now = ((budget / n_cols.max(1)).max(1) as u64).min(n_rows - self.next);
        let r0 = self.next as usize;
        let r1 = r0 + rows_now as usize;
        let window = r0 * n_cols..r1 * n_cols;
        let d = self.decoder;
        match &mut self.values {
            WindowValues::F64(out) => {
                decode_rows(p, &self.bytes, out, &mut self.scratch64, r0..r1, |b, o| {
                    d.f64(b, o)
                })?;
                self.p1.add(&out[window.clone()]);
            }
            WindowValues::F32(out) => {
                decode_rows(p, &self.bytes, out, &mut self.scratch32, r0..r1, |b, o| {
                    d.f32(b, o)
                })?;
                self.p1.add(&out[window.clone()]);
            }
            _ => return Err(PreviewError::Overflow),
        }
        if let Some(mut ints) = self.ints.take() {
            for k in window {
                ints.add(self.exact(k));
            }
            self.ints = Some(ints);
        }
        self.next += rows_now;
        if self.next == n_rows {
            self.p2 = Some(Pass2::new(&self.p1));
            self.phase = Phase::Pass2;
            self.next = 0;
        }
        Ok(())
    }

    fn pass2_step(&mut self, budget: usize) {
        let w = self.heat.grid_cols() as usize;
        let rows = self.heat.grid_rows();
        let rows_now = ((budget / w.max(1)).max(1) as u64).min(rows - self.next);
        let r0 = self.next as usize;
        let grid = r0..r0 + rows_now as usize;
        match &self.values {
            WindowValues::F32(v) => {
                pass2_rows(self.p2.as_mut(), &mut self.heat, v, w, grid);
            }
            WindowValues::F64(v) => {
                pass2_rows(self.p2.as_mut(), &mut self.heat, v, w, grid);
            }
            WindowValues::Complex(_) | WindowValues::Complex128(_) => {}
        }
        self.next += rows_now;
        if self.next == rows {
            self.phase = Phase::Done;
        }
    }

    /// Runs every remaining step.
    pub fn run(mut self) -> Result<Preview, PreviewError> {
        while !self.step(1 << 20)? {}
        self.finish()
    }

    /// The preview, once [`Job::step`] returned `true` (otherwise finishes the work first).
    pub fn finish(self) -> Result<Preview, PreviewError> {
        self.finish_with_values().map(|(p, _)| p)
    }

    /// The exact value of a widened min or max.
    fn exact_of(&self, v: f64) -> Exact {
        match self.kind {
            ElementKind::Float32 => Exact::F32(v as f32),
            ElementKind::Bool => Exact::Bool(v != 0.0),
            // Integers are replaced by their exact range below.
            ElementKind::Float64
            | ElementKind::Complex64
            | ElementKind::Complex128
            | ElementKind::Complex32
            | ElementKind::Int { .. } => Exact::F64(v),
        }
    }

    /// [`Job::finish`], also giving the window's values (row-major, `rows × cols`; for C64 two
    /// `f32` per value), for the JavaScript API's `preview()`.
    pub fn finish_with_values(mut self) -> Result<(Preview, WindowValues), PreviewError> {
        while !self.step(usize::MAX / 2)? {}
        let p2 = self.p2.take().ok_or(PreviewError::Overflow)?;
        let (mut stats, histogram) = p2.finish(&self.p1, |v| self.exact_of(v));
        if let Some((lo, hi)) = self.ints.and_then(|r| r.min_max()) {
            stats.min = Some(lo);
            stats.max = Some(hi);
        }
        let p = &self.plan;
        let n_cols = p.n_cols().max(1);
        let rv = p.geometry.row_values;
        let first_values = (0..self.len().min(FIRST_VALUES))
            .map(|k| {
                let row = p.rows.start + k as u64 / n_cols;
                let col = p.cols.start + k as u64 % n_cols;
                let value = self.exact(k);
                FirstValue {
                    row,
                    col,
                    index: row.saturating_mul(rv).saturating_add(col),
                    value,
                    text: exact_text(value),
                }
            })
            .collect();
        let block_scales = self.scale.map(|(field, label)| {
            let per_row = p.units as usize;
            let ub = p.geometry.unit_bytes as usize;
            let row_bytes = p.geometry.row_bytes as usize;
            let mut grid = Vec::with_capacity(per_row * p.n_rows() as usize);
            for r in 0..p.n_rows() as usize {
                for b in 0..per_row {
                    let at = r * row_bytes + b * ub;
                    grid.push(read_scale(
                        field,
                        self.bytes.get(at..at + ub).unwrap_or(&[]),
                    ));
                }
            }
            BlockScales {
                field: label,
                block_values: p.geometry.unit_values,
                heatmap: heatmap_of(&grid, p.n_rows(), per_row as u64),
                stats: stats_of(&grid).0,
            }
        });
        let values = if self.kind == ElementKind::Complex128 {
            let mut pairs = Vec::with_capacity(self.len().saturating_mul(2));
            for k in 0..self.len() {
                if let Exact::Complex128(re, im) = self.exact(k) {
                    pairs.extend([re, im]);
                }
            }
            WindowValues::Complex128(pairs)
        } else if self.kind.is_complex() {
            let mut pairs = Vec::with_capacity(self.len().saturating_mul(2));
            for k in 0..self.len() {
                if let Exact::Complex(re, im) = self.exact(k) {
                    pairs.extend([re, im]);
                }
            }
            WindowValues::Complex(pairs)
        } else {
            std::mem::replace(&mut self.values, WindowValues::F32(Vec::new()))
        };
        // From the file: the window's bytes, or a deflated member's compressed bytes.
        let bytes_read = match (self.plan.inflate, self.plan.encoded, &self.plan.gather) {
            (Some(i), _, _) => i.read,
            (None, Some(e), _) if self.plan.read_len > 0 => e.len,
            (None, None, Some(g)) => g.read,
            _ => self.bytes.len() as u64,
        };
        let preview = Preview {
            tensor: self.tensor,
            field: self.field,
            dtype: self.dtype,
            shape: self.shape,
            row_is: self.row_is,
            values_are: self.kind.word(),
            window: self.plan,
            bytes_read,
            stats,
            histogram,
            heatmap: self.heat.finish(),
            first_values,
            block_scales,
            read_note: self.read_note,
        };
        Ok((preview, values))
    }

    /// The window's values decoded so far, each as the nearest `f64` (row-major), e.g. to
    /// compare with a reference.
    pub fn values_f64(&self) -> Vec<f64> {
        match &self.values {
            WindowValues::F32(v) => v.iter().map(|&x| f64::from(x)).collect(),
            WindowValues::F64(v) | WindowValues::Complex128(v) => v.clone(),
            WindowValues::Complex(v) => v.iter().map(|&x| f64::from(x)).collect(),
        }
    }
}

/// Pass 2 and the heatmap over heatmap source rows `grid` (each `w` values of `values`).
fn pass2_rows<T: Copy + Into<f64>>(
    p2: Option<&mut Pass2>,
    heat: &mut HeatmapBuilder,
    values: &[T],
    w: usize,
    grid: Range<usize>,
) {
    let n = values.len();
    let start = (grid.start * w).min(n);
    let end = (grid.end * w).min(n);
    if let Some(p2) = p2 {
        p2.add(&values[start..end]);
    }
    heat.add_rows(values, grid);
}

/// Plans, reads and computes a preview in one go (the CLI; tests). `name` is the tensor name.
pub async fn preview_tensor<S: ByteSource>(
    model: &Model,
    src: &mut S,
    name: &str,
    req: &WindowRequest,
) -> Result<Preview, PreviewError> {
    let index = model
        .tensors
        .iter()
        .position(|t| t.name == name)
        .ok_or_else(|| PreviewError::NoTensor(format!("\"{name}\"")))?;
    let mut plan = locate(model, src, plan(model, index, req)?).await?;
    let bytes = read_window(src, &mut plan).await?;
    Job::new(model, plan, bytes)?.run()
}
