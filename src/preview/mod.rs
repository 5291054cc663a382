//! Tensor value previews: plan the bytes of a window, read them through a [`ByteSource`],
//! decode them with [`crate::dequant`], and summarise them (statistics, histogram, heatmap, the
//! first values, per-block scales). Plain Rust, no web crates; the page and the CLI share it.
//!
//! Flow: [`plan()`] → [`read_window`] (one `ByteSource::read` of exactly `plan.read_len` bytes) →
//! [`Job`] (decode and both statistics passes in steps of a bounded number of values, so the
//! page can yield to the event loop between steps) → [`Preview`].
//!
//! Memory: the bytes of the window plus one `f32` per window value (at most
//! [`MAX_WINDOW_VALUES`]); nothing is sized by the whole tensor.
//!
//! Shapes: GGUF `ne0` (the first, contiguous dimension) is the row; safetensors the last
//! dimension. Rows count over all other dimensions in storage order.
#![forbid(unsafe_code)]

mod heatmap;
mod plan;
mod scales;
mod stats;

use std::fmt;

use serde::Serialize;

use crate::dequant::{dequantize_ggml, dequantize_safetensors, DequantError};
use crate::format::{DType, Model};
use crate::source::ByteSource;

pub use heatmap::{color, heatmap_of, Heatmap, MAX_CELLS, NAN_RGB, STOPS};
pub use plan::{
    geometry, parse_range, plan, Geometry, Plan, WindowRequest, DEFAULT_WINDOW_VALUES,
    MAX_READ_BYTES, MAX_WINDOW_VALUES,
};
pub use scales::{read_scale, scale_field, ScaleField};
pub use stats::{stats_of, Histogram, Stats, HISTOGRAM_BINS};

use heatmap::HeatmapBuilder;
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
    /// Column within the row (decoded values; for C64, `2·element + (0 re | 1 im)`).
    pub col: u64,
    /// Flat index in the tensor's decoded values: `row × row_values + col`.
    pub index: u64,
    /// The value (`null` in JSON when NaN or infinite; see `text`).
    pub value: f32,
    /// The value as text (shortest round-trip form; `NaN`, `inf`, `-inf` included).
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
    /// Type label (`Q4_K`, `BF16`).
    pub dtype: String,
    /// Shape as stored (GGUF ggml order ne0 first; safetensors row-major).
    pub shape: Vec<u64>,
    /// What a row is, in words.
    pub row_is: &'static str,
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
}

/// Reads the window's bytes: one `read` of exactly `plan.read_len` bytes at `plan.read_offset`.
/// Errors: the source failed or returned another length, or the length does not fit `usize`.
pub async fn read_window<S: ByteSource>(src: &mut S, plan: &Plan) -> Result<Vec<u8>, PreviewError> {
    usize::try_from(plan.read_len).map_err(|_| PreviewError::Overflow)?;
    let end = plan
        .read_offset
        .checked_add(plan.read_len)
        .ok_or(PreviewError::Overflow)?;
    if end > src.size() {
        return Err(PreviewError::BeyondEnd {
            offset: plan.read_offset,
            bytes: plan.read_len,
            file_size: src.size(),
        });
    }
    let bytes = src
        .read(plan.read_offset, plan.read_len)
        .await
        .map_err(|e| PreviewError::Read(e.to_string()))?;
    if bytes.len() as u64 != plan.read_len {
        return Err(PreviewError::Read(format!(
            "asked for {} bytes, got {}",
            plan.read_len,
            bytes.len()
        )));
    }
    Ok(bytes)
}

/// How one decodable unit run is turned into values.
#[derive(Debug, Clone)]
enum Decoder {
    Ggml(crate::format::GgmlType, bool),
    St(crate::format::safetensors::StDtype),
}

impl Decoder {
    fn run(&self, bytes: &[u8], out: &mut [f32]) -> Result<(), DequantError> {
        match self {
            Decoder::Ggml(t, be) => dequantize_ggml(*t, *be, bytes, out),
            Decoder::St(d) => dequantize_safetensors(d, bytes, out),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Decoding rows (and pass 1 on each decoded chunk).
    Decode,
    /// Pass 2 (histogram, squared deviations) and the heatmap, per heatmap source row.
    Pass2,
    Done,
}

/// A preview being computed, in steps: [`Job::step`] does a bounded amount of work, so the
/// page can yield to the event loop between steps; [`Job::run`] does it all at once.
pub struct Job {
    tensor: String,
    dtype: String,
    shape: Vec<u64>,
    row_is: &'static str,
    plan: Plan,
    bytes: Vec<u8>,
    decoder: Decoder,
    scale: Option<(ScaleField, &'static str)>,
    /// The window's values, row-major (`n_rows × n_cols`).
    values: Vec<f32>,
    /// Scratch for one row's covering units when the crop is not whole rows.
    scratch: Vec<f32>,
    phase: Phase,
    /// Next window row to decode (Decode) or next heatmap source row (Pass2).
    next: u64,
    p1: Pass1,
    p2: Option<Pass2>,
    heat: HeatmapBuilder,
}

impl Job {
    /// Starts a preview of `plan`'s window from its bytes (exactly `plan.read_len` of them, as
    /// [`read_window`] returns). Allocates the window's values.
    pub fn new(model: &Model, plan: Plan, bytes: Vec<u8>) -> Result<Job, PreviewError> {
        let t = model
            .tensors
            .get(plan.tensor_index)
            .ok_or_else(|| PreviewError::NoTensor(format!("#{}", plan.tensor_index)))?;
        if bytes.len() as u64 != plan.read_len {
            return Err(PreviewError::Read(format!(
                "got {} bytes for a {}-byte window",
                bytes.len(),
                plan.read_len
            )));
        }
        let (decoder, scale, row_is) = match &t.dtype {
            DType::Ggml(g) => (
                Decoder::Ggml(*g, plan.geometry.big_endian),
                scale_field(g.0),
                "a row is ne0 values (GGUF's first, contiguous dimension)",
            ),
            DType::St(d) => (
                Decoder::St(*d),
                None,
                "a row is the last dimension (row-major)",
            ),
            DType::StUnknown(n) => {
                return Err(PreviewError::Dequant(DequantError::UnknownDtype {
                    name: n.clone(),
                }))
            }
        };
        let n = plan.values();
        let scratch_len = if plan.full_rows() {
            0
        } else {
            usize::try_from(plan.units * plan.geometry.unit_values)
                .map_err(|_| PreviewError::Overflow)?
        };
        let heat = HeatmapBuilder::new(plan.n_rows(), plan.n_cols());
        Ok(Job {
            tensor: t.name.clone(),
            dtype: t.dtype.label(),
            shape: t.shape.clone(),
            row_is,
            bytes,
            decoder,
            scale,
            values: vec![0f32; n],
            scratch: vec![0f32; scratch_len],
            phase: Phase::Decode,
            next: 0,
            p1: Pass1::new(),
            p2: None,
            heat,
            plan,
        })
    }

    /// Values in the window.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether the window is empty (never, for a planned window).
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
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

    fn decode_step(&mut self, budget: usize) -> Result<(), PreviewError> {
        let p = &self.plan;
        let n_rows = p.n_rows();
        let n_cols = p.n_cols() as usize;
        let row_bytes = p.geometry.row_bytes as usize;
        let run_bytes = (p.units * p.geometry.unit_bytes) as usize;
        let rows_now = ((budget / n_cols.max(1)).max(1) as u64).min(n_rows - self.next);
        let r0 = self.next as usize;
        let r1 = r0 + rows_now as usize;
        if p.full_rows() {
            // Whole rows are contiguous in the bytes and in the output: one call.
            let bytes = &self.bytes[r0 * row_bytes..r1 * row_bytes];
            let out = &mut self.values[r0 * n_cols..r1 * n_cols];
            self.decoder.run(bytes, out)?;
        } else {
            let skip = (p.cols.start - p.unit_start * p.geometry.unit_values) as usize;
            for r in r0..r1 {
                let bytes = &self.bytes[r * row_bytes..r * row_bytes + run_bytes];
                self.decoder.run(bytes, &mut self.scratch)?;
                self.values[r * n_cols..(r + 1) * n_cols]
                    .copy_from_slice(&self.scratch[skip..skip + n_cols]);
            }
        }
        self.p1.add(&self.values[r0 * n_cols..r1 * n_cols]);
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
        let n = self.values.len();
        let start = (self.next as usize * w).min(n);
        let end = ((self.next + rows_now) as usize * w).min(n);
        if let Some(p2) = self.p2.as_mut() {
            p2.add(&self.values[start..end]);
        }
        let r0 = self.next as usize;
        self.heat.add_rows(&self.values, r0..r0 + rows_now as usize);
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

    /// [`Job::finish`], also giving the window's decoded values (row-major, `rows × cols`),
    /// for the JavaScript API's `preview()`.
    pub fn finish_with_values(mut self) -> Result<(Preview, Vec<f32>), PreviewError> {
        while !self.step(usize::MAX / 2)? {}
        let p2 = self.p2.take().ok_or(PreviewError::Overflow)?;
        let (stats, histogram) = p2.finish(&self.p1);
        let p = &self.plan;
        let n_cols = p.n_cols();
        let rv = p.geometry.row_values;
        let first_values = self
            .values
            .iter()
            .take(FIRST_VALUES)
            .enumerate()
            .map(|(k, &v)| {
                let row = p.rows.start + k as u64 / n_cols;
                let col = p.cols.start + k as u64 % n_cols;
                FirstValue {
                    row,
                    col,
                    index: row.saturating_mul(rv).saturating_add(col),
                    value: v,
                    text: value_text(v),
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
        let bytes_read = self.bytes.len() as u64;
        let values = std::mem::take(&mut self.values);
        let preview = Preview {
            tensor: self.tensor,
            dtype: self.dtype,
            shape: self.shape,
            row_is: self.row_is,
            window: self.plan,
            bytes_read,
            stats,
            histogram,
            heatmap: self.heat.finish(),
            first_values,
            block_scales,
        };
        Ok((preview, values))
    }

    /// The decoded window values (row-major), e.g. to compare with a reference.
    pub fn values(&self) -> &[f32] {
        &self.values
    }
}

/// A value as text: Rust's shortest round-trip form (`0.012345678`), in exponent form below
/// 1e-4 or from 1e7 in magnitude (`-3e-8`), and `NaN`, `inf`, `-inf`.
pub fn value_text(v: f32) -> String {
    let a = v.abs();
    if v.is_nan() {
        "NaN".into()
    } else if v.is_finite() && a != 0.0 && !(1e-4..1e7).contains(&a) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
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
    let plan = plan(model, index, req)?;
    let bytes = read_window(src, &plan).await?;
    Job::new(model, plan, bytes)?.run()
}
