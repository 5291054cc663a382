//! Benchmark: what the doctor's findings cost next to parsing and summarising, natively, on
//! header bytes already in memory.
//!
//! `cargo run --release --example bench_doctor -- FILE...` prints one JSON line per file:
//! `{"file", "header_bytes", "runs", "parse_summary_median_ms", "doctor_median_ms",
//! "recipe_median_ms"}` (medians of 30 runs; summarising includes the doctor). Not a test.

use std::time::Instant;

use weightpeek::check::doctor::doctor_findings;
use weightpeek::source::parse_bytes;
use weightpeek::summary::recipe::recipe;
use weightpeek::summary::summarize;

fn median(mut t: Vec<f64>) -> f64 {
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}

fn main() {
    for path in std::env::args().skip(1) {
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let header = parse_bytes(&bytes).expect("parse").header_size as usize;
        let prefix = &bytes[..header.min(bytes.len())];
        let m = parse_bytes(prefix).expect("parse");
        let runs = 30;
        let time = |f: &mut dyn FnMut()| {
            median(
                (0..runs)
                    .map(|_| {
                        let t = Instant::now();
                        f();
                        t.elapsed().as_secs_f64() * 1e3
                    })
                    .collect(),
            )
        };
        let whole = time(&mut || {
            let m = parse_bytes(prefix).expect("parse");
            std::hint::black_box(summarize(&m));
        });
        let doctor = time(&mut || {
            let mut out = Vec::new();
            doctor_findings(&m, &mut out);
            std::hint::black_box(out);
        });
        let rec = time(&mut || {
            std::hint::black_box(recipe(&m));
        });
        println!(
            "{}",
            serde_json::json!({
                "file": path,
                "header_bytes": prefix.len(),
                "runs": runs,
                "parse_summary_median_ms": whole,
                "doctor_median_ms": doctor,
                "recipe_median_ms": rec,
            })
        );
    }
}
