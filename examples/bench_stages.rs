//! Benchmark: every stage of the work done when a model is opened
//! ([`weightpeek::view::stages`]), natively, on header bytes already in memory.
//!
//! `cargo run --release --example bench_stages -- [--runs N] FILE...` prints one JSON line per
//! file: `{"file", "header_bytes", "runs", "stages": [{"stage", "median_ms", "min_ms"}, …]}`.
//! The browser runs the same code (the wasm entry's `bench_stages`, `bench/wasm.mjs --stages`);
//! `scripts/bench.sh` puts both in the speed ledger. Not a test.

use std::time::Instant;

use weightpeek::source::parse_bytes;
use weightpeek::view::stages::time_stages;

/// One file's line of output.
#[derive(serde::Serialize)]
struct Line {
    file: String,
    header_bytes: usize,
    runs: usize,
    stages: Vec<weightpeek::view::stages::StageTime>,
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut runs = 10;
    if args.first().is_some_and(|a| a == "--runs") {
        runs = args.get(1).and_then(|n| n.parse().ok()).expect("--runs N");
        args.drain(..2);
    }
    let start = Instant::now();
    let now = || start.elapsed().as_secs_f64() * 1e3;
    for path in args {
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        // Parse once to learn the header size, then time exactly the header bytes.
        let header = parse_bytes(&bytes).expect("parse").header_size as usize;
        let prefix = &bytes[..header.min(bytes.len())];
        let line = Line {
            header_bytes: prefix.len(),
            stages: time_stages(prefix, runs, &now).expect("parse"),
            file: path,
            runs,
        };
        println!("{}", serde_json::to_string(&line).expect("JSON"));
    }
}
