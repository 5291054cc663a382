// The scan benchmarks' data (examples/bench_scan_core.rs natively, bench/scan_core_wasm for
// wasm32, included by both with `include!`): a small xorshift generator and one model-like
// GGUF tensor per type, the same bytes in both builds.

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
