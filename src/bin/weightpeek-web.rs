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
#[cfg(target_arch = "wasm32")]
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
                .map(|m| weightpeek::summary::summarize(&m).tensor_count);
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

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    eprintln!("weightpeek-web is the browser build of weightpeek: build it with `trunk build`; the command-line tool is `weightpeek`");
    std::process::ExitCode::from(2)
}
