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

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn normal(&mut self) -> f64 {
        let (a, b) = (self.unit().max(1e-300), self.unit());
        (-2.0 * a.ln()).sqrt() * (std::f64::consts::TAU * b).cos()
    }
}

/// (name, ggml type id, values per block, bytes per block, f16 scale offsets)
const TYPES: &[(&str, u32, usize, usize, &[usize])] = &[
    ("F16", 1, 1, 2, &[]),
    ("BF16", 30, 1, 2, &[]),
    ("F32", 0, 1, 4, &[]),
    ("Q8_0", 8, 32, 34, &[0]),
    ("Q4_0", 2, 32, 18, &[0]),
    ("Q5_0", 6, 32, 22, &[0]),
    ("Q4_K", 12, 256, 144, &[0, 2]),
    ("Q5_K", 13, 256, 176, &[0, 2]),
    ("Q6_K", 14, 256, 210, &[208]),
];

fn data(rng: &mut Rng, id: u32, bs: usize, ts: usize, scales: &[usize], bytes: usize) -> Vec<u8> {
    let n = bytes / ts;
    let mut out = Vec::with_capacity(n * ts);
    for _ in 0..n {
        match id {
            1 => out.extend(half::f16::from_f64(rng.normal() * 0.02).to_le_bytes()),
            30 => out.extend(half::bf16::from_f64(rng.normal() * 0.02).to_le_bytes()),
            0 => out.extend(((rng.normal() * 0.02) as f32).to_le_bytes()),
            _ => {
                let at = out.len();
                out.extend((0..ts).map(|_| rng.next() as u8));
                for &o in scales {
                    let d = half::f16::from_f64(1e-4 + rng.unit() * (1e-2 - 1e-4));
                    out[at + o..at + o + 2].copy_from_slice(&d.to_le_bytes());
                }
            }
        }
    }
    let _ = bs;
    out
}

/// A GGUF (version 3, no metadata) of one tensor of `rows` rows of 4096 values.
fn gguf(id: u32, rows: u64, data: &[u8]) -> Vec<u8> {
    let mut f = Vec::new();
    f.extend(b"GGUF");
    f.extend(3u32.to_le_bytes());
    f.extend(1u64.to_le_bytes());
    f.extend(0u64.to_le_bytes());
    let name = b"t";
    f.extend((name.len() as u64).to_le_bytes());
    f.extend(name);
    f.extend(2u32.to_le_bytes());
    f.extend(4096u64.to_le_bytes());
    f.extend(rows.to_le_bytes());
    f.extend(id.to_le_bytes());
    f.extend(0u64.to_le_bytes());
    while f.len() % 32 != 0 {
        f.push(0);
    }
    f.extend(data);
    f
}

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
