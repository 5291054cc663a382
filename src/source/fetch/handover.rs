//! The header bytes the two WebAssembly modules of a page hand each other (issue #21: a lean
//! first load that reads nothing twice). The lean module (no `full` feature) reads a remote
//! header and keeps it (`open::browser::read_shared`); when the full module loads beside it,
//! www/weightpeek.js sets `globalThis.__weightpeekHeaderPrefix(url)` to the lean module's
//! `header_prefix` (its reading as a [`prefix_object`]), and the full module's first read of that
//! URL ([`preloaded`], asked by `open::browser::RemoteFiles` before it opens the file)
//! takes its bytes instead of making a request ([`super::Fetcher::with_first`]).

use js_sys::{Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use crate::source::http::Location;

/// What the lean web module hands over of a header it read (`weightpeek-web`'s
/// `header_prefix(url)`, from `open::browser::header_prefix`): `{direct, size, bytes}`, where
/// the file lives and the bytes read from its start, for [`preloaded`] in the full module.
pub fn prefix_object(at: &Location, bytes: &[u8]) -> JsValue {
    let o = js_sys::Object::new();
    let _ = Reflect::set(&o, &"direct".into(), &at.direct.clone().into());
    let _ = Reflect::set(&o, &"size".into(), &(at.size as f64).into());
    let _ = Reflect::set(&o, &"bytes".into(), &Uint8Array::from(bytes).into());
    o.into()
}

/// The bytes the page's lean web module read from the start of `url` (www/weightpeek.js
/// sets `globalThis.__weightpeekHeaderPrefix` once the full module loads beside it: it joins
/// the lean module's reading, in flight or kept): `(where the file lives, the bytes)`.
/// `None` without that hook (a Worker, the page), for a file it did not read, or for an
/// answer that does not hold together (a size that is not an integer of at least the bytes).
pub async fn preloaded(url: &str) -> Option<(Location, Vec<u8>)> {
    let hook = Reflect::get(&js_sys::global(), &"__weightpeekHeaderPrefix".into())
        .ok()?
        .dyn_into::<js_sys::Function>()
        .ok()?;
    let promise = hook
        .call1(&JsValue::NULL, &url.into())
        .ok()?
        .dyn_into::<js_sys::Promise>()
        .ok()?;
    let v = JsFuture::from(promise).await.ok()?;
    if !v.is_object() {
        return None;
    }
    let get = |k: &str| Reflect::get(&v, &k.into()).ok();
    let direct = get("direct")?.as_string()?;
    let size = get("size")?.as_f64()?;
    let bytes: Uint8Array = get("bytes")?.dyn_into().ok()?;
    let at = Location::handed_over(url, direct, size, u64::from(bytes.length()))?;
    Some((at, bytes.to_vec()))
}
