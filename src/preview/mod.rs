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

mod decoder;
mod field;
mod heatmap;
mod inflate;
mod job;
mod plan;
mod read;
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
    geometry, parse_range, plan, refusal, target_geometry, Geometry, Inflate, Plan, RangeError,
    WindowRequest, DEFAULT_WINDOW_VALUES, MAX_READ_BYTES, MAX_WINDOW_VALUES,
};
pub use scales::{read_scale, scale_field, ScaleField};
pub use stats::{stats_of, Histogram, Stats, HISTOGRAM_BINS};
pub use values::{exact_raw, exact_text, value_text, value_text_f64};

pub use decoder::*;
pub use job::*;
pub use read::*;

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
