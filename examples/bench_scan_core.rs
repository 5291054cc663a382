//! The scan's per-core speed (issue #22): `TensorScanner::add` on an 8 MiB tensor held in memory,
//! for F16, BF16, F32, Q8_0, Q4_0, Q5_0, Q4_K, Q5_K and Q6_K, in MB/s of file bytes and ns per value.
//!
//! `cargo run --release --example bench_scan_core [-- MIB [RUNS]]` (defaults: 8 MiB, 5 runs;
//! the median of the runs is printed). The data are model-like: normal values of σ 0.02 for the
//! plain types, random quants with f16 scales in 1e-4..1e-2 for the block types (as
//! `bench/make_scan_file.py` writes them). With `--stats` it prints each tensor's result too
//! (to compare two builds' results); type names after the numbers pick those types only.

use std::time::Instant;

use weightpeek::preview::{self};
use weightpeek::scan::{pieces, TensorScanner};
use weightpeek::source::parse_bytes;

include!("../bench/scan_core_data.rs");

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let stats = args.iter().any(|a| a == "--stats");
    let nums: Vec<usize> = args.iter().filter_map(|a| a.parse().ok()).collect();
    let mib = nums.first().copied().unwrap_or(8);
    let runs = nums.get(1).copied().unwrap_or(5).max(1);
    let only: Vec<&String> = args
        .iter()
        .filter(|a| !a.starts_with("--") && a.parse::<usize>().is_err())
        .collect();
    println!(
        "{:<6} {:>10} {:>10} {:>10}",
        "type", "MB", "MB/s", "ns/value"
    );
    for &(name, id, bs, ts, scales) in TYPES {
        if !only.is_empty() && !only.iter().any(|o| o.as_str() == name) {
            continue;
        }
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ u64::from(id));
        let row_bytes = 4096 / bs * ts;
        let rows = ((mib << 20) / row_bytes).max(1) as u64;
        let bytes = data(&mut rng, id, bs, ts, scales, rows as usize * row_bytes);
        let file = gguf(id, rows, &bytes);
        let model = weightpeek::open::OpenedModel::from(
            parse_bytes(&file).expect("the generated GGUF parses"),
        );
        let req = pieces(&model, 0, 1 << 40).unwrap().next().unwrap();
        let plan = preview::plan(&model, 0, &req).unwrap();
        let at = model.tensors[0].offset as usize;
        let tensor = &file[at..at + bytes.len()];
        let mut times = Vec::new();
        let mut last = None;
        for _ in 0..=runs {
            let mut s = TensorScanner::new(&model, 0).unwrap();
            let t0 = Instant::now();
            s.add(&plan, std::hint::black_box(tensor)).unwrap();
            times.push(t0.elapsed().as_secs_f64());
            last = Some(s.finish());
        }
        times.remove(0); // the first run warms up
        times.sort_by(f64::total_cmp);
        let t = times[times.len() / 2];
        let values = rows as f64 * 4096.0;
        println!(
            "{:<6} {:>10.1} {:>10.0} {:>10.3}",
            name,
            bytes.len() as f64 / 1e6,
            bytes.len() as f64 / t / 1e6,
            t / values * 1e9
        );
        if stats {
            println!("{}", serde_json::to_string(&last).unwrap());
        }
    }
}
