//! `TensorScanner::add` on an 8 MiB tensor in memory, per type, as
//! `examples/bench_scan_core.rs` times it natively (the same data), for wasm32: `bench(k, mib,
//! runs)` returns the median seconds of type `TYPES[k]`, timed by the host's `env.now()`
//! (milliseconds, `performance.now`). Run by `run.sh`.

use weightpeek::preview;
use weightpeek::scan::{pieces, TensorScanner};
use weightpeek::source::parse_bytes;

#[link(wasm_import_module = "env")]
extern "C" {
    /// The host's clock, in milliseconds.
    fn now() -> f64;
}

fn clock() -> f64 {
    // SAFETY: an import without arguments or memory access; the host gives performance.now.
    unsafe { now() }
}

include!("../../scan_core_data.rs");


/// The median seconds of `runs` scans of `mib` MiB of type `TYPES[k]` (after one warm-up).
#[no_mangle]
pub extern "C" fn bench(k: u32, mib: u32, runs: u32) -> f64 {
    let Some(&(_, id, bs, ts, scales)) = TYPES.get(k as usize) else {
        return f64::NAN;
    };
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ u64::from(id));
    let row_bytes = 4096 / bs * ts;
    let rows = (((mib as usize) << 20) / row_bytes).max(1) as u64;
    let bytes = data(&mut rng, id, bs, ts, scales, rows as usize * row_bytes);
    let file = gguf(id, rows, &bytes);
    let model = parse_bytes(&file).expect("the generated GGUF parses");
    let req = pieces(&model, 0, 1 << 40).unwrap().next().unwrap();
    let plan = preview::plan(&model, 0, &req).unwrap();
    let at = model.tensors[0].offset as usize;
    let tensor = &file[at..at + bytes.len()];
    let mut times = Vec::new();
    for _ in 0..=runs.max(1) {
        let mut s = TensorScanner::new(&model, 0).unwrap();
        let t0 = clock();
        s.add(&plan, std::hint::black_box(tensor)).unwrap();
        times.push((clock() - t0) / 1e3);
        std::hint::black_box(s.finish());
    }
    times.remove(0); // the first run warms up
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

/// The bytes [`bench`] scans for type `TYPES[k]`.
#[no_mangle]
pub extern "C" fn bytes_of(k: u32, mib: u32) -> f64 {
    let Some(&(_, _, bs, ts, _)) = TYPES.get(k as usize) else {
        return f64::NAN;
    };
    let row_bytes = 4096 / bs * ts;
    ((((mib as usize) << 20) / row_bytes).max(1) * row_bytes) as f64
}

/// How many types [`bench`] knows (`run.mjs` names them in `TYPES` order).
#[no_mangle]
pub extern "C" fn types() -> u32 {
    TYPES.len() as u32
}
