//! A preview computed in bounded steps (the page yields between them) or at once: decoding the
//! window's rows, the statistics' two passes, the heatmap.

use super::*;
use crate::open::OpenedModel;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Phase {
    /// Decoding rows (and pass 1 on each decoded chunk).
    Decode,
    /// Pass 2 (histogram, squared deviations) and the heatmap, per heatmap source row.
    Pass2,
    Done,
}

/// Most values decoded by one call of a decoder, so a scratch buffer stays small.
pub(super) const DECODE_CHUNK: usize = 1 << 20;

/// Decodes rows `r0..r1` of the window into `out` (the window's values), through `scratch` when
/// the crop is not whole rows.
pub(super) fn decode_rows<T: Copy>(
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
    pub(super) tensor: String,
    pub(super) field: Option<String>,
    pub(super) dtype: String,
    pub(super) shape: Vec<u64>,
    pub(super) row_is: &'static str,
    pub(super) plan: Plan,
    pub(super) bytes: Vec<u8>,
    pub(super) decoder: Decoder,
    pub(super) kind: ElementKind,
    pub(super) big_endian: bool,
    pub(super) scale: Option<(ScaleField, &'static str)>,
    /// The window's values (`F32` or `F64`, never `Complex` while computing).
    pub(super) values: WindowValues,
    /// Scratch for one row's covering units when the crop is not whole rows.
    pub(super) scratch32: Vec<f32>,
    pub(super) scratch64: Vec<f64>,
    /// Exact min/max of an integer type.
    pub(super) ints: Option<IntRange>,
    pub(super) phase: Phase,
    /// Next window row to decode (Decode) or next heatmap source row (Pass2).
    pub(super) next: u64,
    pub(super) p1: Pass1,
    pub(super) p2: Option<Pass2>,
    pub(super) heat: HeatmapBuilder,
    pub(super) read_note: Option<String>,
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
            .onnx()
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

    /// Runs to the end in slices of at most [`SLICE_MS`] by the clock `now` (milliseconds),
    /// [`STEP_VALUES`] values a step, awaiting `pause()` between slices (the browser: the next
    /// macrotask, so the page paints and handles input and never has a long task). Errors: a
    /// step's; `superseded` ([`PreviewError::Read`]) once `current()` is false after a pause.
    pub async fn run_sliced<F: std::future::Future<Output = ()>>(
        mut self,
        now: impl Fn() -> f64,
        pause: impl Fn() -> F,
        current: &dyn Fn() -> bool,
    ) -> Result<Job, PreviewError> {
        let mut slice = now();
        while !self.step(STEP_VALUES)? {
            if now() - slice > SLICE_MS {
                pause().await;
                if !current() {
                    return Err(PreviewError::Read("superseded".into()));
                }
                slice = now();
            }
        }
        Ok(self)
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
pub(super) fn pass2_rows<T: Copy + Into<f64>>(
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

/// Longest stretch of decoding between two pauses of [`Job::run_sliced`], in milliseconds.
pub const SLICE_MS: f64 = 8.0;

/// Values decoded per step of [`Job::run_sliced`] (well under a millisecond each).
pub const STEP_VALUES: usize = 1 << 17;

/// Reads the bytes of `plan`'s window from `src`, the file holding its tensor
/// ([`OpenedModel::source_of`]): `plan` first moved to where the bytes really are
/// ([`locate`]), then one read of exactly the planned range ([`read_window`]).
pub async fn window_bytes<S: ByteSource>(
    model: &OpenedModel,
    src: &mut S,
    plan: &mut Plan,
) -> Result<Vec<u8>, PreviewError> {
    *plan = locate(model, src, plan.clone()).await?;
    read_window(src, plan).await
}

/// Plans, reads and computes a preview in one go (the CLI; tests). `name` is the tensor name.
pub async fn preview_tensor<S: ByteSource>(
    model: &OpenedModel,
    src: &mut S,
    name: &str,
    req: &WindowRequest,
) -> Result<Preview, PreviewError> {
    let index = model
        .tensor_index(name)
        .ok_or_else(|| PreviewError::NoTensor(format!("\"{name}\"")))?;
    let mut plan = plan(model, index, req)?;
    let bytes = window_bytes(model, src, &mut plan).await?;
    Job::new(model, plan, bytes)?.run()
}
