//! The JavaScript API behind `inspect()`, `preview()` and `fit()` of www/weightpeek.js: open a model
//! (a URL, a list of shard URLs, or local files: a `File`/`Blob`, an array of them, a `FileList`)
//! header-only, and summarise it as the CLI's
//! `--json` does, decode one window of a tensor as the CLI's `--tensor … --json` does, or plan
//! a GGUF model on a person's GPUs and RAM as `weightpeek fit … --json` does.
//!
//! Options (a plain object, every field optional): `endpoint` (Hub endpoint for Hub URL forms),
//! `token` (sent only to that endpoint's origin), `signal` (an `AbortSignal`: aborting cancels
//! every request), `name` (display name of a `Blob`).

use std::rc::Rc;

use gloo::events::EventListener;
use js_sys::{Array, Float32Array, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::AbortSignal;

use super::load::{self, Opened};
use super::preview::yield_now;
use crate::preview::{Job, WindowValues};
use crate::source::boxed::BoxedSource;
use crate::summary;
use crate::view::api::{self as calls, window_failure};
use crate::view::errors::{self, Failure, Front};
use crate::view::export;
use crate::view::js::{is_object, spec_of, urls_of, JsData, JsKind};
use crate::view::spec::WindowSpec;

/// The options of one call: the text ones ([`calls::text_options`]) and the `signal`.
pub(super) struct Options {
    text: calls::TextOptions,
    signal: Option<AbortSignal>,
}

pub(super) fn options(o: &JsValue) -> Options {
    let signal = is_object(o).then(|| o.get("signal").dyn_into::<AbortSignal>().ok());
    Options {
        text: calls::text_options(o),
        signal: signal.flatten(),
    }
}

/// A JavaScript error whose message is the failure's ([`calls::message`]).
pub(super) fn js_error(failure: Failure) -> JsValue {
    js_sys::Error::new(&calls::message(&failure)).into()
}

/// The rejection of an aborted call: the signal's reason, as `fetch` rejects (an
/// `AbortError` DOMException by default, a `TimeoutError` for `AbortSignal.timeout()`).
fn aborted(o: &Options) -> Option<JsValue> {
    let s = o.signal.as_ref().filter(|s| s.aborted())?;
    let reason = Reflect::get(s, &"reason".into()).unwrap_or(JsValue::UNDEFINED);
    Some(if reason.is_undefined() {
        js_error(calls::aborted())
    } else {
        reason
    })
}

/// An opening, and the listener that cancels its requests (and its previews') when the
/// call's signal aborts: it lives as long as the call.
pub(super) type Open = (Opened, Option<EventListener>);

/// Opens `source`: a URL string (a split part or an index opens its set), an array of URL
/// strings read as one model, or local files (a `File`/`Blob`, an array of them, a
/// `FileList`; given together they open as one model when they form a set).
async fn open(source: &JsValue, o: &Options) -> Result<Open, Failure> {
    let Some(urls) = urls_of(source) else {
        let files =
            load::local_files(source, o.text.name.clone()).ok_or_else(calls::not_a_source)?;
        return Ok((load::read_local(files, Rc::new(|_| {})).await?, None));
    };
    let given = calls::given(&urls, &o.text.endpoint, load::resolve_url)?;
    let fetcher = load::fetcher(
        o.text.endpoint.clone(),
        o.text.token.clone(),
        Box::new(|| {}),
        Front::Api,
    );
    // Aborting the signal cancels every request of the opening and of its preview reads.
    let abort = o.signal.as_ref().map(|s| {
        if s.aborted() {
            fetcher.cancel();
        }
        // Holds the opening's fetcher (whose previews' fetchers are its children) for as long
        // as the call runs.
        let f = fetcher.clone();
        EventListener::new(s, "abort", move |_| f.cancel())
    });
    let opened = load::read_shared(fetcher, given, Rc::new(|_: &load::Counters| {})).await?;
    Ok((opened, abort))
}

/// `inspect(source, options)`: the model as the CLI's `--json` (a JSON string; the module
/// parses it). A model that could be read only in part has its `error` set and is returned.
/// Errors: nothing could be read (the message says why).
pub async fn inspect(source: JsValue, opts: JsValue) -> Result<String, JsValue> {
    let o = options(&opts);
    let (opened, _abort) = open_checked(&source, &o).await?;
    let s = summary::summarize(&opened.model);
    let json = export::summary_json(&opened.model, &s);
    // A header that could be read only in part rejects, with what was read kept in the
    // error's `partial` (the module parses it), so `catch` never sees "0 tensors" as a result.
    if let Some(e) = &opened.model.error {
        let err = js_error(errors::partial_failure(e, &opened.name, Front::Api));
        let _ = Reflect::set(&err, &"partial".into(), &json.into());
        return Err(err);
    }
    Ok(json)
}

/// [`open`], honouring the signal before and after (a local file's reading is not
/// interruptible, but its result is dropped) and rejecting with the signal's reason.
pub(super) async fn open_checked(source: &JsValue, o: &Options) -> Result<Open, JsValue> {
    if let Some(r) = aborted(o) {
        return Err(r);
    }
    let result = open(source, o).await;
    if let Some(r) = aborted(o) {
        return Err(r);
    }
    result.map_err(js_error)
}

/// A JavaScript value as [`crate::view::js::plain`] walks it.
impl JsData for JsValue {
    fn kind(&self) -> JsKind {
        if self.is_undefined() || self.is_null() {
            JsKind::Null
        } else if let Some(b) = self.as_bool() {
            JsKind::Bool(b)
        } else if let Some(x) = self.as_f64() {
            JsKind::Number(x)
        } else if let Some(t) = self.as_string() {
            JsKind::Text(t)
        } else if self.is_function() || !self.is_object() {
            JsKind::Other
        } else if Array::is_array(self) {
            JsKind::Array
        } else {
            JsKind::Object
        }
    }

    fn items(&self) -> Vec<JsValue> {
        Array::from(self).iter().collect()
    }

    fn entries(&self) -> Vec<(String, JsValue)> {
        let keys = js_sys::Object::keys(self.unchecked_ref::<js_sys::Object>());
        let value = |k: &JsValue| Reflect::get(self, k).unwrap_or(JsValue::UNDEFINED);
        let key = |k: JsValue| Some((k.as_string()?, value(&k)));
        keys.iter().filter_map(key).collect()
    }

    fn get(&self, key: &str) -> JsValue {
        Reflect::get(self, &key.into()).unwrap_or(JsValue::UNDEFINED)
    }
}

/// `preview(source, tensorName, window, options)`: decodes the window (`{rows, cols, field}`,
/// each optional: the page's default window; `field` names a NumPy structured array's field,
/// numpy's `arr['x']`, whose rows and columns the window then counts) of the named tensor,
/// reading only its bytes. Returns
/// `[json, values]`: the CLI's `--tensor --json` schema as a JSON string, and the window's
/// values (row-major): a `Float32Array`, a `Float64Array` for the types an `f32` cannot hold
/// (F64, 32- and 64-bit integers; a 64-bit integer beyond 2^53 is its nearest double, the
/// JSON's `first_values[].text` has every digit), or for C64 a `Float32Array` of `re, im`
/// pairs. Errors: the model or tensor cannot be read, no such tensor or field, a window
/// outside the tensor.
pub async fn preview(
    source: JsValue,
    tensor: String,
    window: JsValue,
    opts: JsValue,
) -> Result<Array, JsValue> {
    let o = options(&opts);
    let (opened, _abort) = open_checked(&source, &o).await?;
    let m = &opened.model;
    let err = |e: String| js_error(window_failure(e));
    // The one reading of a window, shared with the CLI and the page (a window that is not an
    // object is the default one, as before).
    let spec: WindowSpec = spec_of(&window).unwrap_or_default();
    let mut p = calls::window_plan(m, &opened.name, &tensor, &spec).map_err(js_error)?;
    let mut src = BoxedSource((opened.source)(m.source_of(p.tensor_index)));
    let bytes = (crate::preview::window_bytes(m, &mut src, &mut p).await)
        .map_err(|e| aborted(&o).unwrap_or_else(|| err(e.to_string())))?;
    let job = Job::new(m, p, bytes).map_err(|e| err(e.to_string()))?;
    let live = || o.signal.as_ref().is_none_or(|s| !s.aborted());
    let decoded = job.run_sliced(js_sys::Date::now, yield_now, &live).await;
    if let Some(r) = aborted(&o) {
        return Err(r);
    }
    let (preview, values) = decoded
        .and_then(Job::finish_with_values)
        .map_err(|e| err(e.to_string()))?;
    let json = serde_json::to_string(&preview).map_err(|e| err(e.to_string()))?;
    let out = Array::new();
    out.push(&json.into());
    out.push(&match values {
        WindowValues::F32(v) | WindowValues::Complex(v) => Float32Array::from(v.as_slice()).into(),
        WindowValues::F64(v) | WindowValues::Complex128(v) => {
            js_sys::Float64Array::from(v.as_slice()).into()
        }
    });
    Ok(out)
}

/// `fit(source, devices, options)`: where llama.cpp would put every layer of the GGUF model
/// `source` on `devices`, as `weightpeek fit … --json` prints it (a plain object: `fits`,
/// `gpu_layers`, `cpu_moe`, `tensor_split`, per-device `bytes`, `command`, …). `options`
/// also takes `endpoint`, `token`, `signal` and `name` as [`inspect`] does. Errors: bad
/// devices or options, the model cannot be read, or there is no plan (not a GGUF file, no
/// KV estimate).
pub async fn fit(source: JsValue, devices: JsValue, opts: JsValue) -> Result<JsValue, JsValue> {
    // The one reading of devices and options, shared with the CLI and the page.
    let (d, fo) = calls::fit_arguments(spec_of(&devices), spec_of(&opts)).map_err(js_error)?;
    let o = options(&opts);
    let (opened, _abort) = open_checked(&source, &o).await?;
    let p = calls::fit(&opened.model, &opened.name, &d, &fo).map_err(js_error)?;
    serde::Serialize::serialize(&p, &serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| js_error(calls::no_plan(e.to_string())))
}
