//! A bounded pool of futures: many shard headers read with at most [`POOL_SIZE`] requests in
//! flight, on one thread (wasm's event loop, or the CLI's executor).

use std::future::Future;
use std::pin::Pin;
use std::task::Poll;

/// Shard headers read at once for a sharded model: the browser's own per-host limit is 6
/// HTTP/1.1 connections, and more in flight would only queue inside it.
pub const POOL_SIZE: usize = 6;

/// Runs `f` on every item with at most `limit` futures in flight at once; results in item
/// order. Single-threaded (wasm): in-flight futures are polled whenever any of them wakes.
pub async fn bounded<T, Fut: Future>(
    items: Vec<T>,
    limit: usize,
    mut f: impl FnMut(usize, T) -> Fut,
) -> Vec<Fut::Output> {
    let total = items.len();
    let mut pending = items.into_iter().enumerate();
    let mut running: Vec<(usize, Pin<Box<Fut>>)> = Vec::new();
    let mut out: Vec<Option<Fut::Output>> = (0..total).map(|_| None).collect();
    let mut exhausted = false;
    std::future::poll_fn(move |cx| loop {
        while !exhausted && running.len() < limit.max(1) {
            match pending.next() {
                Some((i, t)) => running.push((i, Box::pin(f(i, t)))),
                None => exhausted = true,
            }
        }
        let mut progressed = false;
        let mut k = 0;
        while k < running.len() {
            if let Poll::Ready(v) = running[k].1.as_mut().poll(cx) {
                out[running[k].0] = Some(v);
                running.swap_remove(k);
                progressed = true;
            } else {
                k += 1;
            }
        }
        if exhausted && running.is_empty() {
            return Poll::Ready(std::mem::take(&mut out).into_iter().flatten().collect());
        }
        if !progressed {
            return Poll::Pending;
        }
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    struct YieldOnce(bool);
    impl Future for YieldOnce {
        type Output = ();
        fn poll(mut self: Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> Poll<()> {
            if self.0 {
                Poll::Ready(())
            } else {
                self.0 = true;
                cx.waker().wake_by_ref();
                Poll::Pending
            }
        }
    }

    #[test]
    fn pool_never_runs_more_than_its_limit() {
        let live = Cell::new(0);
        let peak = Cell::new(0);
        let out =
            crate::source::block_on_ready(bounded((0..163).collect(), POOL_SIZE, |i, x: u32| {
                let (live, peak) = (&live, &peak);
                async move {
                    live.set(live.get() + 1);
                    peak.set(peak.get().max(live.get()));
                    for _ in 0..(i % 4) {
                        YieldOnce(false).await;
                    }
                    live.set(live.get() - 1);
                    x * 2
                }
            }));
        assert_eq!(out, (0..163).map(|x| x * 2).collect::<Vec<_>>());
        assert!(
            peak.get() <= POOL_SIZE && peak.get() >= POOL_SIZE - 1,
            "{}",
            peak.get()
        );
    }
}
