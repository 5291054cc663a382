//! The scan of every weight in the browser (issue #22), run inside a Web Worker by
//! www/scan-worker.js, for the page's "Scan all weights" card ([`super::scan_card`]) and the
//! JavaScript API's `scan()`: open the source as `inspect()` does (its header again: the
//! worker has a module of its own), then [`crate::scan::scan_tensor`] every tensor of its
//! share ([`scan::shares`]: local files are scanned by one Worker per core, each its share,
//! and [`merge`]d), in [`scan::scan_order`], on a few concurrent lanes so that reading (a
//! `Blob` slice, an HTTP Range request) overlaps decoding. Each tensor's result and the bytes done are told to the
//! worker's callbacks as they come; the result is `weightpeek scan --json`'s document.
//!
//! Cancelling is the worker's termination (the page and `scan()` end the worker): every read
//! in flight stops with it.

use std::cell::Cell;

use js_sys::Function;
use wasm_bindgen::JsValue;

use super::api;
use crate::scan::{self, TensorScan};
use crate::source::boxed::BoxedSource;
use crate::view::scan as view;

/// Scans share `share` of `shares` ([`scan::shares`]; `0` of `1`: every tensor) of the model
/// at `source` (as for `inspect()`: URL strings or local files) with the options `opts`
/// (`endpoint`, `token`, `name`). `on_progress(done, total)` is called with
/// the tensor bytes read so far and the bytes the scan reads in all, at most every
/// [`view::PROGRESS_MS`] and once at the end; `on_tensor(json, row, index)` with each tensor's
/// result ([`TensorScan`] as JSON), its table row ([`view::ScanRow`] as JSON) and its index
/// when it is done.
/// Returns `[doc, lines]`: the JSON of [`view::ScanDoc`] and of the findings' lines for the Checks
/// card ([`view::FindingLine`]). Errors: the
/// model cannot be opened (the message says why); a tensor that cannot be read is a result
/// (`skipped`, `failed`), not an error.
pub async fn run(
    source: JsValue,
    opts: JsValue,
    share: usize,
    shares: usize,
    on_progress: Function,
    on_tensor: Function,
) -> Result<js_sys::Array, JsValue> {
    let o = api::options(&opts);
    let remote = crate::view::js::urls_of(&source).is_some();
    let (opened, _abort) = api::open_checked(&source, &o).await?;
    let model = &opened.model;
    let share = view::Share::of(model, remote, share, shares);
    let told = Cell::new(view::Progress::new(share.bytes));
    // `read` more bytes done; told at most every PROGRESS_MS, and when `force`d.
    let tell = |read: u64, force: bool| {
        let mut p = told.get();
        if let Some((done, total)) = p.step(read, js_sys::Date::now(), force) {
            let (done, total) = (done as f64, total as f64);
            let _ = on_progress.call2(&JsValue::NULL, &done.into(), &total.into());
        }
        told.set(p);
    };
    tell(0, true);
    let progress = |n: u64| tell(n, false);
    let scanned = |i: usize, t: &TensorScan| {
        let row = view::row(i, t);
        if let (Ok(json), Ok(row)) = (serde_json::to_string(t), serde_json::to_string(&row)) {
            let i = &(i as f64).into();
            let _ = on_tensor.call3(&JsValue::NULL, &json.into(), &row.into(), i);
        }
    };
    let open = |file: usize| BoxedSource((opened.source)(file));
    let (lanes, piece) = (share.lanes, share.piece);
    let scans = scan::scan_lanes(
        model,
        share.tensors,
        lanes,
        piece,
        &open,
        &progress,
        &scanned,
    );
    let scans = scans.await;
    tell(0, true);
    document(&opened.name, &scans, lanes.saturating_mul(shares.max(1)))
}

/// `[doc, lines]` as [`run`] returns them ([`view::document_json`]).
fn document(file: &str, scans: &[TensorScan], threads: usize) -> Result<js_sys::Array, JsValue> {
    let [doc, lines] =
        view::document_json(file, scans, threads).map_err(|e| JsValue::from_str(&e.to_string()))?;
    Ok(js_sys::Array::of2(&doc.into(), &lines.into()))
}

/// Merges the results of a scan done in shares by several Workers: `tensors` is the JSON
/// array of every tensor's result ([`TensorScan`], as `on_tensor` gave them) in the model's
/// order; the findings are computed over all of them. Returns `[doc, lines]` as [`run`].
/// Errors: the JSON is not such an array.
pub fn merge(file: &str, tensors: &str, threads: usize) -> Result<js_sys::Array, JsValue> {
    let scans: Vec<TensorScan> = serde_json::from_str(tensors)
        .map_err(|e| JsValue::from_str(&format!("the Workers' results: {e}")))?;
    document(file, &scans, threads)
}
