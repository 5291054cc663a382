//! The web page's wasm entry point. Trunk builds this binary (`data-bin="weightpeek-web"` in
//! index.html): the library and the CLI binary are both named `weightpeek`, so Trunk cannot
//! tell their wasm artifacts apart, and a binary's wasm only exports its own items.

#[cfg(target_arch = "wasm32")]
fn main() {
    weightpeek::web::start();
}

/// Benchmark hook for `bench/wasm.mjs` (scripts/bench.sh): parses and summarises `bytes` (a
/// header already in memory) in 5 batches of `runs` runs and returns `{median_ms, min_ms,
/// tensors}` per run: the median and minimum over the batches of (batch time / runs), timed with
/// `performance.now()` (whose resolution in a page is 0.1 ms, hence batches). Not used by the page.
#[cfg(all(target_arch = "wasm32", feature = "full"))]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn bench_header(bytes: &[u8], runs: u32) -> wasm_bindgen::JsValue {
    let perf = web_sys::window().and_then(|w| w.performance());
    let now = || perf.as_ref().map_or(0.0, |p| p.now());
    let runs = runs.max(1);
    let mut times = Vec::new();
    let mut tensors = 0;
    for _ in 0..5 {
        let t = now();
        for _ in 0..runs {
            let summary = weightpeek::source::parse_bytes(bytes)
                .map(weightpeek::open::OpenedModel::from)
                .map(|m| weightpeek::summary::summarize_open(&m).tensor_count);
            tensors = summary.unwrap_or(0);
        }
        times.push((now() - t) / f64::from(runs));
    }
    times.sort_by(f64::total_cmp);
    let out = js_sys::Object::new();
    let set = |k: &str, v: f64| {
        let _ = js_sys::Reflect::set(&out, &k.into(), &v.into());
    };
    set("median_ms", times[times.len() / 2]);
    set("min_ms", times[0]);
    set("tensors", tensors as f64);
    out.into()
}

/// Speed-ledger hook for `bench/wasm.mjs --stages` (scripts/bench.sh): times every stage of
/// opening `bytes` (a header already in memory) with the same code as the native
/// `examples/bench_stages.rs` ([`weightpeek::view::stages::time_stages`], `runs` runs per
/// batch, `performance.now()`), and returns `[{stage, median_ms, min_ms}, …]`; throws the
/// parser's message. Not used by the page.
#[cfg(all(target_arch = "wasm32", feature = "full"))]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn bench_stages(
    bytes: &[u8],
    runs: u32,
) -> Result<wasm_bindgen::JsValue, wasm_bindgen::JsValue> {
    let perf = web_sys::window().and_then(|w| w.performance());
    let now = || perf.as_ref().map_or(0.0, |p| p.now());
    let times = weightpeek::view::stages::time_stages(bytes, runs as usize, &now)
        .map_err(|e| wasm_bindgen::JsValue::from_str(&e.to_string()))?;
    serde::Serialize::serialize(&times, &serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| wasm_bindgen::JsValue::from_str(&e.to_string()))
}

/// Correctness hook for `tests/e2e/dequant-wasm.test.mjs`: decodes `input` (whole blocks of the
/// ggml type named `ty` when `kind == "ggml"`, in the file byte order `big_endian`; or of the
/// safetensors dtype `ty` when `kind == "safetensors"`) with the same `dequant` code the page's
/// preview runs, compiled to wasm32. Returns the values as a `Float32Array` (bit patterns
/// intact, NaN payloads included); throws the error text. Not used by the page.
#[cfg(all(target_arch = "wasm32", feature = "full"))]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn dequant_check(
    kind: &str,
    ty: &str,
    big_endian: bool,
    input: &[u8],
) -> Result<Vec<f32>, wasm_bindgen::JsValue> {
    use weightpeek::dequant::{
        dequantize_ggml, dequantize_safetensors, ggml_elements, st_elements,
    };
    let err = |e: String| wasm_bindgen::JsValue::from_str(&e);
    match kind {
        "ggml" => {
            let info = weightpeek::format::ggml_type::by_name(ty)
                .ok_or_else(|| err(format!("no ggml type {ty}")))?;
            let t = weightpeek::format::GgmlType(info.id);
            let n = ggml_elements(t, input.len())
                .ok_or_else(|| err(format!("{} bytes are not whole {ty} blocks", input.len())))?;
            let mut out = vec![0f32; n];
            dequantize_ggml(t, big_endian, input, &mut out).map_err(|e| err(e.to_string()))?;
            Ok(out)
        }
        "safetensors" => {
            let d = weightpeek::format::safetensors::st_dtype(ty)
                .ok_or_else(|| err(format!("no safetensors dtype {ty}")))?;
            let n = st_elements(&d, input.len()).map_err(|e| err(e.to_string()))?;
            let mut out = vec![0f32; n];
            dequantize_safetensors(&d, input, &mut out).map_err(|e| err(e.to_string()))?;
            Ok(out)
        }
        _ => Err(err(format!("unknown kind {kind}"))),
    }
}

/// Benchmark hook for `bench/dequant_wasm.mjs` (scripts/bench.sh): decodes `input` (whole
/// blocks of the ggml type `ty`) repeatedly for at least `min_ms` milliseconds (after one
/// warm-up run) and returns elements per second, timed with `performance.now()`.
#[cfg(all(target_arch = "wasm32", feature = "full"))]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn bench_dequant(ty: &str, input: &[u8], min_ms: f64) -> Result<f64, wasm_bindgen::JsValue> {
    use weightpeek::dequant::{dequantize_ggml, ggml_elements};
    let err = |e: String| wasm_bindgen::JsValue::from_str(&e);
    let info = weightpeek::format::ggml_type::by_name(ty)
        .ok_or_else(|| err(format!("no ggml type {ty}")))?;
    let t = weightpeek::format::GgmlType(info.id);
    let n = ggml_elements(t, input.len()).ok_or_else(|| err("not whole blocks".into()))?;
    let mut out = vec![0f32; n];
    let perf = web_sys::window().and_then(|w| w.performance());
    let now = || perf.as_ref().map_or(0.0, |p| p.now());
    dequantize_ggml(t, false, input, &mut out).map_err(|e| err(e.to_string()))?;
    let start = now();
    let mut runs = 0u32;
    while runs < 3 || now() - start < min_ms {
        dequantize_ggml(t, false, std::hint::black_box(input), &mut out)
            .map_err(|e| err(e.to_string()))?;
        std::hint::black_box(&out);
        runs += 1;
    }
    Ok(n as f64 * f64::from(runs) / ((now() - start) / 1e3))
}

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    eprintln!("weightpeek-web is the browser build of weightpeek: build it with `trunk build`; the command-line tool is `weightpeek`");
    std::process::ExitCode::from(2)
}

/// The `<weightpeek-view>` element's view (www/weightpeek.js creates one per connected
/// element and frees it when the element is removed); see `weightpeek::web::widget`.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub struct Widget(weightpeek::web::widget::Widget);

#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
impl Widget {
    /// A view of nothing yet, drawing into `container` (in the shadow root of `host`).
    #[wasm_bindgen::prelude::wasm_bindgen(constructor)]
    pub fn new(host: web_sys::Element, container: web_sys::Element) -> Widget {
        Widget(weightpeek::web::widget::Widget::new(host, container))
    }
    /// A view that takes the element's view's place once `on_settled(state)` says it is
    /// ready (the lean module's view moving to the full module); see `wake`, `retire`.
    pub fn moving(
        host: web_sys::Element,
        container: web_sys::Element,
        on_settled: js_sys::Function,
    ) -> Widget {
        Widget(weightpeek::web::widget::Widget::moving(
            host, container, on_settled,
        ))
    }
    /// The moving view is the element's now: its state is shown.
    pub fn wake(&self) {
        self.0.wake();
    }
    /// This view was replaced: freeing it leaves the element's state as it is.
    pub fn retire(&self) {
        self.0.retire();
    }
    /// The `src` attribute: loads it (cancelling what was loading).
    pub fn set_src(&self, src: Option<String>) {
        self.0.set_src(src);
    }
    /// `element.open(files, name)`: shows local files (a File/Blob, an array of them or a
    /// FileList: one model or a set; headers only, nothing is uploaded).
    pub fn open_files(&self, files: wasm_bindgen::JsValue, name: Option<String>) {
        self.0.open_files(files, name);
    }
    /// The `tab` attribute.
    pub fn set_tab(&self, tab: Option<String>) {
        self.0.set_tab(tab);
    }
    /// The `tensor` attribute.
    pub fn set_tensor(&self, tensor: Option<String>) {
        self.0.set_tensor(tensor);
    }
    /// The `filter` attribute.
    pub fn set_filter(&self, filter: Option<String>) {
        self.0.set_filter(filter);
    }
    /// The `endpoint` attribute.
    pub fn set_endpoint(&self, endpoint: Option<String>) {
        self.0.set_endpoint(endpoint);
    }
    /// The `gpu` attribute (the Fit tab: a comma list of GPU sizes or cards).
    pub fn set_gpu(&self, v: Option<String>) {
        self.0.set_fit("gpu", v);
    }
    /// The `ram` attribute (the Fit tab).
    pub fn set_ram(&self, v: Option<String>) {
        self.0.set_fit("ram", v);
    }
    /// The `ctx` attribute (the Fit tab's context).
    pub fn set_ctx(&self, v: Option<String>) {
        self.0.set_fit("ctx", v);
    }
    /// The `kv` attribute (the Fit tab's KV cache type).
    pub fn set_kv(&self, v: Option<String>) {
        self.0.set_fit("kv", v);
    }
    /// The `margin` attribute (the Fit tab: memory kept free per GPU).
    pub fn set_margin(&self, v: Option<String>) {
        self.0.set_fit("margin", v);
    }
    /// Opens a tensor's preview as the reader's choice once the model is shown: a row opened
    /// in the lean module's view, finished by the full module.
    pub fn open_as_reader(&self, name: String) {
        self.0.open_as_reader(name);
    }
    /// Downloads an export (`json`, `csv`, `markdown`) once the model is shown: a click on
    /// the lean module's button, finished by the full module.
    pub fn export(&self, kind: &str) {
        self.0.export(kind);
    }
}

/// Whether this is the full module (`false`: the lean one a page downloads first).
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn is_full() -> bool {
    weightpeek::FULL
}

/// The lean module's bytes of a header it read (`{direct, size, bytes}` or `null`), for the
/// full module's reading of the same URL: see `weightpeek::source::fetch::handover`.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub async fn header_prefix(url: String) -> wasm_bindgen::JsValue {
    weightpeek::web::header_prefix(&url).await
}

/// Whether the page's URL text names one remote file an element can show (www/page.js, the
/// page's lean start): see `weightpeek::view::opening::names_file`.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn names_file(text: &str, endpoint: &str) -> bool {
    weightpeek::view::opening::names_file(text, endpoint)
}

/// The tab the page's address asks for (`?…&tab=`, else `#tab=`), as the page's app reads it
/// (www/page.js starts its lean view there): its name, or `None` when the address names no tab
/// of weightpeek's. See `weightpeek::view::address::asked_tab`.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn asked_tab(search: &str, hash: &str) -> Option<String> {
    weightpeek::view::address::asked_tab(search, hash).map(|t| t.name().to_string())
}

/// Test hook: widgets and their preview panels alive now (0 once every element was removed).
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn live_widgets() -> u32 {
    weightpeek::web::widget::live_widgets()
}

/// `inspect(source, options)` (www/weightpeek.js parses the JSON): see `weightpeek::web::api`.
/// (The full module's: its JSON has the doctor's findings.)
#[cfg(all(target_arch = "wasm32", feature = "full"))]
#[wasm_bindgen::prelude::wasm_bindgen]
pub async fn inspect_json(
    source: wasm_bindgen::JsValue,
    options: wasm_bindgen::JsValue,
) -> Result<String, wasm_bindgen::JsValue> {
    weightpeek::web::api::inspect(source, options).await
}

/// The scan of every weight (share `share` of `shares`), for www/scan-worker.js (a Web
/// Worker): see `weightpeek::web::scan::run`. Resolves to `[doc, lines]` (JSON strings).
#[cfg(all(target_arch = "wasm32", feature = "full"))]
#[wasm_bindgen::prelude::wasm_bindgen]
pub async fn scan_run(
    source: wasm_bindgen::JsValue,
    options: wasm_bindgen::JsValue,
    share: u32,
    shares: u32,
    on_progress: js_sys::Function,
    on_tensor: js_sys::Function,
) -> Result<js_sys::Array, wasm_bindgen::JsValue> {
    weightpeek::web::scan::run(
        source,
        options,
        share as usize,
        shares as usize,
        on_progress,
        on_tensor,
    )
    .await
}

/// Merges the shares of a scan done by several Workers (www/scan-worker.js): see
/// `weightpeek::web::scan::merge`.
#[cfg(all(target_arch = "wasm32", feature = "full"))]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn scan_merge(
    file: &str,
    tensors: &str,
    threads: u32,
) -> Result<js_sys::Array, wasm_bindgen::JsValue> {
    weightpeek::web::scan::merge(file, tensors, threads as usize)
}

/// `fit(source, devices, options)`: the placement plan as a plain object; see
/// `weightpeek::web::api`.
#[cfg(all(target_arch = "wasm32", feature = "full"))]
#[wasm_bindgen::prelude::wasm_bindgen]
pub async fn fit_plan(
    source: wasm_bindgen::JsValue,
    devices: wasm_bindgen::JsValue,
    options: wasm_bindgen::JsValue,
) -> Result<wasm_bindgen::JsValue, wasm_bindgen::JsValue> {
    weightpeek::web::api::fit(source, devices, options).await
}

/// `preview(source, tensor, window, options)`: `[json, Float32Array]`; see
/// `weightpeek::web::api`.
#[cfg(all(target_arch = "wasm32", feature = "full"))]
#[wasm_bindgen::prelude::wasm_bindgen]
pub async fn preview_values(
    source: wasm_bindgen::JsValue,
    tensor: String,
    window: wasm_bindgen::JsValue,
    options: wasm_bindgen::JsValue,
) -> Result<js_sys::Array, wasm_bindgen::JsValue> {
    weightpeek::web::api::preview(source, tensor, window, options).await
}
