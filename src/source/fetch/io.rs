//! The browser side of remote reads for [`super`]: `fetch` in the page or a Worker,
//! its request options, a body's chunks within a read timeout, and a timed wait (a gloo timer
//! guard). Bytes only: what to ask and what an answer means are decided in [`super`] and
//! [`crate::source::http`].

use std::future::Future;
use std::pin::Pin;
use std::task::Poll;

use gloo_timers::future::TimeoutFuture;
use js_sys::{Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    AbortController, ReadableStreamDefaultReader, RequestInit, RequestMode, RequestRedirect,
};

use crate::source::blob::js_error_text;
use crate::source::http::{Next, Watchdog};

/// A CORS request's options: `method` (GET, or HEAD for the final URL of a redirect only)
/// with the given redirect handling, aborted by `controller`.
pub(super) fn init(method: &str, redirect: RequestRedirect, c: &AbortController) -> RequestInit {
    let init = RequestInit::new();
    init.set_method(method);
    init.set_mode(RequestMode::Cors);
    init.set_redirect(redirect);
    init.set_signal(Some(&c.signal()));
    init
}

/// How a timed wait ended.
pub(super) enum Raced {
    /// The promise settled.
    Done(Result<JsValue, JsValue>),
    /// The time ran out first.
    TimedOut,
}

/// Waits for `promise`, or `ms` milliseconds, whichever comes first; the timer is a gloo
/// guard, cleared when this returns.
pub(super) async fn race(promise: js_sys::Promise, ms: u32) -> Raced {
    let mut fut = JsFuture::from(promise);
    let mut timer = TimeoutFuture::new(ms);
    std::future::poll_fn(move |cx| {
        if let Poll::Ready(v) = Pin::new(&mut fut).poll(cx) {
            return Poll::Ready(Raced::Done(v));
        }
        if Pin::new(&mut timer).poll(cx).is_ready() {
            return Poll::Ready(Raced::TimedOut);
        }
        Poll::Pending
    })
    .await
}

pub(super) fn now_ms() -> f64 {
    js_sys::Date::now()
}

/// The next chunk of a body, within the watchdog's time.
pub(super) async fn next_chunk(
    reader: &ReadableStreamDefaultReader,
    dog: &Watchdog,
) -> Next<Uint8Array> {
    let chunk = match race(reader.read(), dog.remaining_ms(now_ms())).await {
        Raced::TimedOut => return Next::TimedOut,
        Raced::Done(r) => r,
    };
    let done = |c: &JsValue| Reflect::get(c, &"done".into()).ok()?.as_bool();
    let value = chunk.and_then(|c| match done(&c).unwrap_or(true) {
        true => Ok(None),
        false => Ok(Some(
            Reflect::get(&c, &"value".into())?.dyn_into::<Uint8Array>()?,
        )),
    });
    match value {
        Ok(Some(v)) => Next::Chunk(v),
        Ok(None) => Next::End,
        Err(e) => Next::Failed(js_error_text(&e)),
    }
}

/// `fetch(url, init)` of the page, or of the Worker this runs in (the scan's).
pub(super) fn global_fetch(url: &str, init: &web_sys::RequestInit) -> js_sys::Promise {
    let global = js_sys::global();
    match global.dyn_ref::<web_sys::Window>() {
        Some(w) => w.fetch_with_str_and_init(url, init),
        None => global
            .unchecked_into::<web_sys::WorkerGlobalScope>()
            .fetch_with_str_and_init(url, init),
    }
}
