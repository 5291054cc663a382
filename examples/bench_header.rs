//! Benchmark: header parse + summary time (the first view's `summarize_open`; the doctor,
//! added after it, is timed in the speed ledger, examples/bench_stages.rs), natively, on header
//! bytes already in memory.
//!
//! `cargo run --release --example bench_header -- FILE...` prints one JSON line per file:
//! `{"file", "header_bytes", "runs", "median_ms", "min_ms", "mb_per_s"}` (MB/s of header bytes,
//! from the median). Reported by scripts/bench.sh beside the reference tools; not a test.

use std::time::Instant;

use weightpeek::source::parse_bytes;
use weightpeek::summary::summarize_open;

fn main() {
    for path in std::env::args().skip(1) {
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        // Parse once to learn the header size, then time parsing exactly the header bytes.
        let header = parse_bytes(&bytes).expect("parse").header_size as usize;
        let prefix = &bytes[..header.min(bytes.len())];
        let runs = 30;
        let mut times = Vec::with_capacity(runs);
        let mut tensors = 0;
        for _ in 0..runs {
            let t = Instant::now();
            let m = weightpeek::open::OpenedModel::from(parse_bytes(prefix).expect("parse"));
            let s = summarize_open(&m);
            tensors += s.tensor_count;
            times.push(t.elapsed().as_secs_f64() * 1e3);
        }
        times.sort_by(f64::total_cmp);
        let median = times[runs / 2];
        println!(
            "{}",
            serde_json::json!({
                "file": path,
                "header_bytes": prefix.len(),
                "runs": runs,
                "tensors": tensors / runs as u64,
                "median_ms": median,
                "min_ms": times[0],
                "mb_per_s": prefix.len() as f64 / 1e6 / (median / 1e3),
            })
        );
    }
}
