//! The speed ledger's stages: every piece of work done when a model is opened, timed one by
//! one on header bytes already in memory (as after `Blob.slice` in the page), by the same code
//! natively (`examples/bench_stages.rs`) and in the browser (the wasm entry's `bench_stages`),
//! so `scripts/bench.sh` compares like with like. Not used by the page or the CLI.
//!
//! The stages ([`STAGES`]): `parse` (bytes to [`crate::format::Model`]), `summary` (the first view's
//! [`summarize_open`]: counts, types, layers, tensors, container checks), `checks` (the
//! container checks alone), `doctor` (tokenizer, template and structure findings, added after
//! the first view), `recipe`, `layer_map`, `tokenizer` (the Tokenizer card's facts), `memory`
//! (the Memory card's estimate at the model's own context), `fit` (the Fit card's plan with the
//! page's default settings), and `open`: parse, summary, tokenizer, recipe, memory and fit
//! together, what the page computes before its first view of a model.

use serde::Serialize;

use crate::check::doctor::doctor_findings;
use crate::open::findings::container_findings;
use crate::open::OpenedModel;
use crate::source::parse_bytes;
use crate::summary::{
    fit, layers::layer_map, memory, recipe::recipe, summarize_open, tokenizer::tokenizer_info,
};

/// The stages timed, in the ledger's order.
pub const STAGES: [&str; 10] = [
    "parse",
    "summary",
    "checks",
    "doctor",
    "recipe",
    "layer_map",
    "tokenizer",
    "memory",
    "fit",
    "open",
];

/// One stage's time per run, in milliseconds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StageTime {
    /// One of [`STAGES`].
    pub stage: &'static str,
    /// Median over the batches of (batch time / runs).
    pub median_ms: f64,
    /// Minimum over the batches of (batch time / runs).
    pub min_ms: f64,
}

/// Batches timed per stage: each batch runs a stage `runs` times, so a clock as coarse as a
/// page's `performance.now()` (0.1 ms) still resolves a stage of a few microseconds.
pub const BATCHES: usize = 7;

/// Times every stage of [`STAGES`] on `header` (a model file's header bytes): after one
/// warm-up run, [`BATCHES`] batches of `runs` runs each, read with `now` (milliseconds, any
/// origin). Errors: the bytes do not parse (the parser's message).
pub fn time_stages(
    header: &[u8],
    runs: usize,
    now: &dyn Fn() -> f64,
) -> Result<Vec<StageTime>, crate::format::Error> {
    let m = OpenedModel::from(parse_bytes(header)?);
    let runs = runs.max(1);
    let mut out = Vec::new();
    for stage in STAGES {
        let one = || run(stage, header, &m);
        one();
        let mut per_run: Vec<f64> = (0..BATCHES)
            .map(|_| {
                let t = now();
                for _ in 0..runs {
                    one();
                }
                (now() - t) / runs as f64
            })
            .collect();
        per_run.sort_by(f64::total_cmp);
        out.push(StageTime {
            stage,
            median_ms: per_run[per_run.len() / 2],
            min_ms: per_run[0],
        });
    }
    Ok(out)
}

/// Runs `stage` once on `m` (parsed from `header`), its results kept from the optimiser.
fn run(stage: &str, header: &[u8], m: &OpenedModel) {
    use std::hint::black_box;
    match stage {
        "parse" => drop(black_box(parse_bytes(header))),
        "summary" => drop(black_box(summarize_open(m))),
        "checks" => drop(black_box(container_findings(m))),
        "doctor" => {
            let mut out = Vec::new();
            doctor_findings(m, &mut out);
            drop(black_box(out));
        }
        "recipe" => drop(black_box(recipe(m))),
        "layer_map" => drop(black_box(layer_map(m))),
        "tokenizer" => drop(black_box(tokenizer_info(m))),
        "memory" => drop(black_box(card_estimate(m))),
        "fit" => drop(black_box(default_plan(m))),
        _ => {
            if let Ok(m) = parse_bytes(header).map(OpenedModel::from) {
                black_box(summarize_open(&m));
                black_box(tokenizer_info(&m));
                black_box(recipe(&m));
                black_box(card_estimate(&m));
                black_box(default_plan(&m));
            }
        }
    }
}

/// The Memory card's first estimate: the model's own context, F16 KV cache.
fn card_estimate(m: &OpenedModel) -> Option<memory::MemoryEstimate> {
    memory::estimate(m, None, memory::KvType::F16).ok()
}

/// The Fit card's first plan: the page's default settings.
fn default_plan(m: &OpenedModel) -> Option<fit::FitPlan> {
    let i = super::fit::inputs(&super::fit::Settings::default()).ok()?;
    fit::plan(m, "model", &i.devices, &i.options).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_stage_is_timed_with_the_clock_given() {
        let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/www/sample.gguf"))
            .expect("www/sample.gguf");
        // A clock that advances 1 ms per reading: every batch reads it twice.
        let t = std::cell::Cell::new(0.0);
        let now = || {
            t.set(t.get() + 1.0);
            t.get()
        };
        let times = time_stages(&bytes, 4, &now).expect("sample parses");
        let names: Vec<_> = times.iter().map(|s| s.stage).collect();
        assert_eq!(names, STAGES);
        for s in &times {
            assert_eq!((s.median_ms, s.min_ms), (0.25, 0.25), "{}", s.stage);
        }
        assert_eq!(t.get(), (STAGES.len() * BATCHES * 2) as f64);
        assert!(time_stages(b"not a model file", 1, &now).is_err());
    }
}
