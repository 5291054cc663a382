//! A scan on a few concurrent lanes over one queue, for a single-threaded runtime (the page's
//! Worker): while one lane waits for its tensor's bytes (a `Blob` slice, an HTTP Range
//! request), another decodes. The CLI runs [`super::scan_from`] on threads instead.

use std::cell::RefCell;
use std::collections::VecDeque;

use super::{scan_tensor, TensorScan};
use crate::open::OpenedModel;
use crate::source::ByteSource;

/// Scans the tensors `order` of `model` (indices into its tensors; those out of range are
/// passed over) on `lanes` lanes (at least one): each lane takes the next tensor of the
/// queue, reads it from a fresh source of the file holding it (`open(file)`,
/// [`OpenedModel::source_of`]) in pieces of at most `piece_bytes`, and tells
/// `done(index, &result)` when it is scanned; `progress(n)` is told the bytes of each piece
/// once read. Returns the results in the model's tensor order. A tensor that cannot be read
/// is a result ([`TensorScan::skipped`], `failed`), not an error.
pub async fn scan_lanes<S: ByteSource>(
    model: &OpenedModel,
    order: Vec<usize>,
    lanes: usize,
    piece_bytes: u64,
    open: &dyn Fn(usize) -> S,
    progress: &dyn Fn(u64),
    done: &dyn Fn(usize, &TensorScan),
) -> Vec<TensorScan> {
    let count = model.tensors.len();
    let queue: RefCell<VecDeque<usize>> =
        RefCell::new(order.into_iter().filter(|&i| i < count).collect());
    let results: RefCell<Vec<Option<TensorScan>>> = RefCell::new(vec![None; count]);
    let lane = || async {
        loop {
            // The queue's borrow ends here, before the read: another lane takes the next one.
            let Some(i) = queue.borrow_mut().pop_front() else {
                break;
            };
            let mut src = open(model.source_of(i));
            let t = scan_tensor(model, &mut src, i, piece_bytes, &mut |n| progress(n)).await;
            done(i, &t);
            if let Some(slot) = results.borrow_mut().get_mut(i) {
                *slot = Some(t);
            }
        }
    };
    futures_util::future::join_all((0..lanes.max(1)).map(|_| lane())).await;
    results.into_inner().into_iter().flatten().collect()
}
