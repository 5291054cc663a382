//! Scan every weight (issue #22): read each tensor's data once, front to back, in bounded
//! pieces, and count what is wrong in it — NaN and infinite values, NaN and infinite block
//! scales (as llama.cpp's `ggml_validate_row_data` judges them, [`scales`]), exact zeros — with
//! the finite values' min, max, mean and standard deviation ([`stats`]).
//!
//! Plain Rust over a [`ByteSource`], tested natively; the CLI runs it on threads (one source
//! each), the page in a Worker. A piece is a preview window ([`crate::preview::plan`]) of whole
//! rows, or of whole blocks of one row when a row is longer than a piece, so every format the
//! previews read (GGUF, safetensors, PyTorch, NumPy, ONNX; big-endian GGUF; stored zip
//! members) is read the same way, and the values are the previews' (and the references').
//!
//! Memory: one piece's bytes (at most [`PIECE_BYTES`] by default) and one run of
//! [`RUN_VALUES`] decoded values; nothing is sized by the tensor or the file.
#![forbid(unsafe_code)]

pub mod fast;
pub mod findings;
pub mod lanes;
pub mod scales;
pub mod stats;

use std::ops::Range;

use serde::{Deserialize, Serialize};

use crate::dequant::{element_at, ElementKind, Exact};
use crate::format::{DType, Model};
use crate::open::OpenedModel;
use crate::preview::{
    self, Decoder, IntRange, Plan, PreviewError, WindowRequest, MAX_WINDOW_VALUES,
};
use crate::source::ByteSource;

pub use findings::{findings, OUTLIER_FACTOR};
pub use lanes::scan_lanes;
pub use scales::{bad_scales, f16_scales_finite, judged_scales, Scales};
pub use stats::{Accumulator, ValueStats, EXP_BINS, EXP_HIGH, EXP_LOW};

/// Most bytes one piece reads (and holds) by default: 16 MiB (the bound on what a
/// scan holds at a time; threads share it, [`piece_bytes_for`]).
pub const PIECE_BYTES: u64 = 16 << 20;
/// Values decoded and accumulated at a time: 16 Ki (64 KiB of `f32`, cache-resident for the
/// accumulator's second pass).
pub const RUN_VALUES: usize = 1 << 14;

/// The piece size each of `threads` threads uses so that together they hold at most
/// [`PIECE_BYTES`] (at least 1 MiB each).
pub fn piece_bytes_for(threads: usize) -> u64 {
    (PIECE_BYTES / threads.max(1) as u64).max(1 << 20)
}

/// What a scan found in one tensor (JSON both ways: the page's Workers send it to the one that
/// merges their results).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TensorScan {
    /// The tensor's name.
    pub name: String,
    /// Its type (`Q4_K`, `F16`, …).
    #[serde(rename = "type")]
    pub dtype: String,
    /// Index of the file (part) holding it, in [`OpenedModel::parts`] order.
    pub part: usize,
    /// Bytes of its data read.
    pub bytes_read: u64,
    /// The values' statistics (absent when the tensor was not scanned).
    #[serde(flatten)]
    pub values: Option<ValueStats>,
    /// Blocks whose scales were judged (0 for plain types).
    pub blocks: u64,
    /// Judged block scales that are NaN (MXFP4: the invalid exponent 0xFF).
    pub scale_nan: u64,
    /// Judged block scales that are infinite.
    pub scale_inf: u64,
    /// Absolute file offset of the first block (or element) holding a NaN or infinite value or
    /// scale; `None` when there is none, or when the tensor's bytes are not the file's as they
    /// are (a deflated member, a NumPy field, an ONNX typed field).
    pub first_bad_offset: Option<u64>,
    /// Why the tensor was not (wholly) scanned (its values are elsewhere, its type is not
    /// decoded, a read failed); `None` when it was.
    pub skipped: Option<String>,
    /// Whether that was because its bytes could not be read (past the end of the file, a
    /// failed read, bytes that do not decode): an error, where the other reasons are notes.
    pub failed: bool,
}

impl TensorScan {
    fn new(model: &OpenedModel, index: usize) -> TensorScan {
        let t = model.tensors.get(index);
        TensorScan {
            name: t.map_or_else(|| format!("#{index}"), |t| t.name.clone()),
            dtype: t.map(|t| t.dtype.label()).unwrap_or_default(),
            part: model.source_of(index),
            bytes_read: 0,
            values: None,
            blocks: 0,
            scale_nan: 0,
            scale_inf: 0,
            first_bad_offset: None,
            skipped: None,
            failed: false,
        }
    }

    /// Whether a NaN or infinite value or block scale was found.
    pub fn has_non_finite(&self) -> bool {
        self.scale_nan + self.scale_inf > 0
            || self.values.as_ref().is_some_and(|v| v.nan + v.inf > 0)
    }
}

/// The windows tensor `index` is read in: whole rows while a row fits `piece_bytes` (and the
/// window's values [`MAX_WINDOW_VALUES`]), else whole blocks of one row at a time. Errors:
/// the tensor is not previewable ([`preview::target_geometry`]).
pub fn pieces(model: &Model, index: usize, piece_bytes: u64) -> Result<Pieces, PreviewError> {
    let g = preview::target_geometry(model, index, None)?;
    let piece_bytes = piece_bytes.max(1);
    let (rows_per, units_per) = if g.row_bytes <= piece_bytes && g.row_values <= MAX_WINDOW_VALUES {
        let by_bytes = piece_bytes / g.row_bytes.max(1);
        let by_values = MAX_WINDOW_VALUES / g.row_values.max(1);
        (by_bytes.min(by_values).max(1), 0)
    } else {
        let by_bytes = piece_bytes / g.unit_bytes.max(1);
        let by_values = MAX_WINDOW_VALUES / g.unit_values.max(1);
        (1, by_bytes.min(by_values).max(1))
    };
    Ok(Pieces {
        rows: g.rows,
        row_values: g.row_values,
        unit_values: g.unit_values,
        rows_per,
        units_per,
        row: 0,
        col: 0,
    })
}

/// An iterator of a tensor's windows ([`pieces`]), in storage order.
#[derive(Debug, Clone)]
pub struct Pieces {
    rows: u64,
    row_values: u64,
    unit_values: u64,
    rows_per: u64,
    /// Units (blocks) per piece when a row is split; 0 when pieces are whole rows.
    units_per: u64,
    row: u64,
    col: u64,
}

impl Iterator for Pieces {
    type Item = WindowRequest;

    fn next(&mut self) -> Option<WindowRequest> {
        if self.row >= self.rows || self.row_values == 0 {
            return None;
        }
        if self.units_per == 0 {
            let end = self.row.saturating_add(self.rows_per).min(self.rows);
            let req = window(self.row..end, None);
            self.row = end;
            return Some(req);
        }
        let step = self.units_per.saturating_mul(self.unit_values.max(1));
        let end = self.col.saturating_add(step).min(self.row_values);
        let req = window(self.row..self.row + 1, Some(self.col..end));
        self.col = end;
        if self.col >= self.row_values {
            self.col = 0;
            self.row += 1;
        }
        Some(req)
    }
}

fn window(rows: Range<u64>, cols: Option<Range<u64>>) -> WindowRequest {
    WindowRequest {
        rows: Some(rows),
        cols,
        field: None,
    }
}

/// The running scan of one tensor: feed it each piece's plan and bytes ([`TensorScanner::add`]).
#[derive(Debug)]
pub struct TensorScanner {
    out: TensorScan,
    decoder: Decoder,
    kind: ElementKind,
    big_endian: bool,
    scales: Option<Scales>,
    acc: Accumulator,
    ints: Option<IntRange>,
    /// The fused path of the type, if it has one ([`fast`]).
    fast: Option<fast::Fast>,
    f32s: Vec<f32>,
    f64s: Vec<f64>,
}

impl TensorScanner {
    /// Starts the scan of tensor `index`. Errors: its type is not decoded (structured and
    /// object arrays, values elsewhere, unknown types: [`preview::target_geometry`]'s reasons).
    pub fn new(model: &OpenedModel, index: usize) -> Result<TensorScanner, PreviewError> {
        let t = model
            .tensors
            .get(index)
            .ok_or_else(|| PreviewError::NoTensor(format!("#{index}")))?;
        let g = preview::target_geometry(model, index, None)?;
        let be = g.big_endian;
        let (decoder, kind) = Decoder::of(t, be)?;
        let scales = match &t.dtype {
            DType::Ggml(ty) => judged_scales(ty.0),
            _ => None,
        };
        let ints = match kind {
            ElementKind::Int { signed, .. } => Some(IntRange::new(signed)),
            _ => None,
        };
        let fast = fast::Fast::of(&decoder, g.rows.saturating_mul(g.row_values));
        Ok(TensorScanner {
            out: TensorScan::new(model, index),
            fast,
            decoder,
            kind,
            big_endian: be,
            scales,
            acc: Accumulator::default(),
            ints,
            f32s: Vec::new(),
            f64s: Vec::new(),
        })
    }

    /// Adds one piece: `plan` as [`preview::plan`] made it for a window of [`pieces`], `bytes`
    /// as [`preview::read_window`] read them (whole decodable units). Errors: bytes that do not
    /// decode (a partial block), which a plan of [`pieces`] never gives.
    pub fn add(&mut self, plan: &Plan, bytes: &[u8]) -> Result<(), PreviewError> {
        let g = &plan.geometry;
        let unit = usize::try_from(g.unit_bytes).map_err(|_| PreviewError::Overflow)?;
        let unit_values = usize::try_from(g.unit_values).map_err(|_| PreviewError::Overflow)?;
        if unit == 0 || unit_values == 0 || bytes.len() % unit != 0 {
            return Err(PreviewError::Read(format!(
                "{} bytes are not whole {unit}-byte units",
                bytes.len()
            )));
        }
        // Offsets are the file's only when the bytes are read as they are stored.
        let in_place = plan.inflate.is_none() && plan.encoded.is_none() && plan.gather.is_none();
        let units_per_run = (RUN_VALUES / unit_values).max(1);
        for (k, run) in bytes.chunks(units_per_run * unit).enumerate() {
            let run_start = (k * units_per_run * unit) as u64;
            let bad_before = self.acc.non_finite();
            let mut first_bad_unit = None;
            if let Some(s) = self.scales {
                // All finite (the common case, one quick pass): nothing to count.
                let finite = scales::f16_scales_finite(s, run, unit) == Some(true);
                let judged = if finite { &[][..] } else { run };
                for (u, block) in judged.chunks_exact(unit).enumerate() {
                    let (nan, inf) = bad_scales(s, block);
                    self.out.scale_nan += u64::from(nan);
                    self.out.scale_inf += u64::from(inf);
                    if nan + inf > 0 && first_bad_unit.is_none() {
                        first_bad_unit = Some(u);
                    }
                }
                self.out.blocks += (run.len() / unit) as u64;
            }
            let n = run.len() / unit * unit_values;
            // The fused paths see only runs whose judged scales are all finite.
            let fused = first_bad_unit.is_none()
                && self
                    .fast
                    .as_mut()
                    .is_some_and(|f| f.add_run(run, &mut self.acc));
            let first_value_bad = if fused {
                None
            } else if self.decoder.is_wide() {
                self.f64s.resize(n, 0.0);
                self.decoder
                    .f64(run, &mut self.f64s)
                    .map_err(PreviewError::Dequant)?;
                self.acc.add(&self.f64s);
                first_non_finite(&self.f64s, self.acc.non_finite() > bad_before)
            } else {
                self.f32s.resize(n, 0.0);
                self.decoder
                    .f32(run, &mut self.f32s)
                    .map_err(PreviewError::Dequant)?;
                self.acc.add_f32(&self.f32s);
                first_non_finite(&self.f32s, self.acc.non_finite() > bad_before)
            };
            if let (ElementKind::Int { bytes: w, .. }, Some(ints)) = (self.kind, self.ints.as_mut())
            {
                for e in run.chunks_exact(usize::from(w)) {
                    if let Some(v) = element_at(self.kind, self.big_endian, e) {
                        ints.add(v);
                    }
                }
            }
            let first = [first_bad_unit, first_value_bad.map(|v| v / unit_values)]
                .into_iter()
                .flatten()
                .min();
            if let (Some(u), None, true) = (first, self.out.first_bad_offset, in_place) {
                self.out.first_bad_offset = plan
                    .read_offset
                    .checked_add(run_start)
                    .and_then(|o| o.checked_add(u as u64 * g.unit_bytes));
            }
        }
        self.out.bytes_read = self.out.bytes_read.saturating_add(bytes.len() as u64);
        Ok(())
    }

    /// The same scanner without its fused path (tests compare the two).
    #[cfg(test)]
    pub(crate) fn careful(mut self) -> TensorScanner {
        self.fast = None;
        self
    }

    /// The tensor's result.
    pub fn finish(mut self) -> TensorScan {
        if let Some(f) = self.fast.as_mut() {
            f.finish(&mut self.acc);
        }
        let kind = self.kind;
        let mut values = self.acc.finish(|v| match kind {
            ElementKind::Float32 => Exact::F32(v as f32),
            ElementKind::Bool => Exact::Bool(v != 0.0),
            _ => Exact::F64(v),
        });
        // A 64-bit integer past 2^53 has no exact f64: the extremes as stored.
        if let Some((a, b)) = self.ints.as_ref().and_then(IntRange::min_max) {
            values.min = Some(a);
            values.max = Some(b);
        }
        TensorScan {
            values: Some(values),
            ..self.out
        }
    }
}

/// Index of the first NaN or infinite value of a run, looked for only when the run held
/// one (`any`).
fn first_non_finite<T: Copy + Into<f64>>(xs: &[T], any: bool) -> Option<usize> {
    any.then(|| xs.iter().position(|&x| !x.into().is_finite()))
        .flatten()
}

/// A skipped tensor's result, saying why.
pub fn skipped(model: &OpenedModel, index: usize, why: &PreviewError) -> TensorScan {
    TensorScan {
        skipped: Some(why.to_string()),
        failed: is_failure(why),
        ..TensorScan::new(model, index)
    }
}

/// Whether `e` says the bytes could not be read or do not decode (rather than that the
/// tensor's type is not decoded here).
fn is_failure(e: &PreviewError) -> bool {
    use crate::dequant::DequantError as D;
    match e {
        PreviewError::BeyondEnd { .. } | PreviewError::Read(_) => true,
        PreviewError::Dequant(d) => matches!(
            d,
            D::PartialBlock { .. } | D::OutputLength { .. } | D::Overflow
        ),
        _ => false,
    }
}

/// Scans tensor `index` of `model` from `src` (the file holding it), in pieces of at most
/// `piece_bytes`; `progress` is told the bytes of each piece once read. A tensor that cannot
/// be scanned, or whose read fails, comes back [`TensorScan::skipped`] with the reason (the
/// scan of the others goes on).
pub async fn scan_tensor<S: ByteSource>(
    model: &OpenedModel,
    src: &mut S,
    index: usize,
    piece_bytes: u64,
    progress: &mut dyn FnMut(u64),
) -> TensorScan {
    let (mut scanner, windows) = match TensorScanner::new(model, index)
        .and_then(|s| Ok((s, pieces(model, index, piece_bytes)?)))
    {
        Ok(x) => x,
        Err(e) => return skipped(model, index, &e),
    };
    // A zip member whose local header was not read: read it once, not once a piece.
    let moved = match preview::member_data(model, src, index).await {
        Ok(m) => m,
        Err(e) => return skipped(model, index, &e),
    };
    // A deflated .npz member is inflated once, piece after piece.
    let mut carry = preview::Carry::default();
    for req in windows {
        let step = async {
            let plan = preview::plan(model, index, &req)?;
            let mut plan = preview::relocate(plan, moved)?;
            let bytes = preview::read_next_window(src, &mut plan, &mut carry).await?;
            scanner.add(&plan, &bytes)?;
            Ok::<u64, PreviewError>(bytes.len() as u64)
        };
        match step.await {
            Ok(n) => progress(n),
            // Nothing read yet (the tensor lies past the end of the file, say): not scanned.
            Err(e) if scanner.out.bytes_read == 0 => return skipped(model, index, &e),
            Err(e) => {
                let mut out = scanner.finish();
                let rows = req.rows.unwrap_or(0..0);
                out.skipped = Some(format!("stopped at rows {}..{}: {e}", rows.start, rows.end));
                out.failed = is_failure(&e);
                return out;
            }
        }
    }
    scanner.finish()
}

/// The order tensors are scanned in: by file, then by offset (each file's data read front to
/// back).
pub fn scan_order(model: &OpenedModel) -> Vec<usize> {
    let mut order: Vec<usize> = (0..model.tensors.len()).collect();
    order.sort_by_key(|&i| (model.source_of(i), model.tensors[i].offset, i));
    order
}

/// The tensors of `model` split into `count` shares of about equal bytes, for scanners that
/// work apart (the page's Workers): each tensor, in [`scan_order`], goes to the share holding
/// the fewest bytes so far (the first of them on a tie), so each share is read front to back
/// too. Every scanner computes the same split from the same model.
pub fn shares(model: &OpenedModel, count: usize) -> Vec<Vec<usize>> {
    let count = count.max(1);
    let mut out = vec![Vec::new(); count];
    let mut bytes = vec![0u64; count];
    for i in scan_order(model) {
        let k = (0..count).min_by_key(|&k| (bytes[k], k)).unwrap_or(0);
        out[k].push(i);
        bytes[k] = bytes[k].saturating_add(model.tensors[i].bytes.unwrap_or(0));
    }
    out
}

/// Bytes a scan of `model` reads: every scanned tensor's data (a tensor that cannot be planned
/// counts 0).
pub fn bytes_to_scan(model: &Model) -> u64 {
    let all: Vec<usize> = (0..model.tensors.len()).collect();
    bytes_to_scan_of(model, &all)
}

/// [`bytes_to_scan`] of the tensors `indices` (a share, [`shares`]).
pub fn bytes_to_scan_of(model: &Model, indices: &[usize]) -> u64 {
    indices
        .iter()
        .copied()
        .filter(|&i| i < model.tensors.len())
        .filter(|&i| preview::target_geometry(model, i, None).is_ok())
        .filter_map(|i| model.tensors[i].bytes)
        .fold(0u64, u64::saturating_add)
}

/// Scans tensor `i` from the source of the file holding it (`sources[model.source_of(i)]`,
/// [`scan_tensor`]); a missing source gives a result saying so.
pub async fn scan_from<S: ByteSource>(
    model: &OpenedModel,
    sources: &mut [S],
    i: usize,
    piece_bytes: u64,
    progress: &mut dyn FnMut(u64),
) -> TensorScan {
    match sources.get_mut(model.source_of(i)) {
        Some(src) => scan_tensor(model, src, i, piece_bytes, progress).await,
        None => skipped(
            model,
            i,
            &PreviewError::Read("the file holding it was not read".into()),
        ),
    }
}

/// Scans every tensor of `model`, one after another ([`scan_order`], [`scan_from`]). Results
/// are in the model's tensor order.
pub async fn scan<S: ByteSource>(
    model: &OpenedModel,
    sources: &mut [S],
    piece_bytes: u64,
    progress: &mut dyn FnMut(u64),
) -> Vec<TensorScan> {
    let mut out: Vec<Option<TensorScan>> = vec![None; model.tensors.len()];
    for i in scan_order(model) {
        out[i] = Some(scan_from(model, sources, i, piece_bytes, progress).await);
    }
    out.into_iter().flatten().collect()
}
