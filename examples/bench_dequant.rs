//! Native dequantisation throughput, elements per second, for every ggml type and the
//! safetensors dtypes with their own decoders.
//!
//! `cargo run --release --example bench_dequant [-- ELEMENTS [SECONDS]]` (defaults: 4 Mi
//! elements per type, 0.3 s per type). The input is pseudo-random bytes with every byte's bit 6
//! cleared, so no f16/f32 scale is Inf or NaN; decode speed does not depend on the values.
//!
//! Targets from issue #4: at least 10× gguf-py's numpy `dequantize` for every type; in the
//! browser at least 1 G elements/s for Q8_0 and Q4_K and 0.3 G elements/s for IQ2_XXS.

use std::hint::black_box;
use std::time::{Duration, Instant};

use weightpeek::dequant::{dequantize_ggml, dequantize_safetensors, st_elements};
use weightpeek::format::ggml_type::{GgmlType, Status, GGML_TYPES};
use weightpeek::format::safetensors::st_dtype;

fn bytes(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8 & 0xBF
        })
        .collect()
}

/// Runs `f` repeatedly for at least `min` and returns elements per second.
fn rate(elements: usize, min: Duration, mut f: impl FnMut()) -> f64 {
    f(); // warm up (page in the output)
    let start = Instant::now();
    let mut runs = 0u32;
    while runs < 3 || start.elapsed() < min {
        f();
        runs += 1;
    }
    elements as f64 * f64::from(runs) / start.elapsed().as_secs_f64()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let target: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(4 << 20);
    let secs: f64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(0.3);
    let min = Duration::from_secs_f64(secs);
    println!("{:<12} {:>12} {:>14}", "type", "elements", "G elements/s");
    for t in GGML_TYPES.iter().filter(|t| t.status == Status::Active) {
        let blocks = (target / t.block_size as usize).max(1);
        let input = bytes(blocks * t.type_size as usize, u64::from(t.id) + 7);
        let mut out = vec![0f32; blocks * t.block_size as usize];
        let n = out.len();
        let r = rate(n, min, || {
            dequantize_ggml(GgmlType(t.id), false, black_box(&input), &mut out).unwrap();
            black_box(&out);
        });
        println!("{:<12} {:>12} {:>14.3}", t.name, n, r / 1e9);
    }
    for name in ["F8_E4M3", "F8_E5M2", "F4", "U8", "U16", "U32", "U64", "C64"] {
        let dt = st_dtype(name).unwrap();
        let input = bytes(target * dt.bits as usize / 8, 99);
        let mut out = vec![0f32; st_elements(&dt, input.len()).unwrap()];
        let n = out.len();
        let r = rate(n, min, || {
            dequantize_safetensors(&dt, black_box(&input), &mut out).unwrap();
            black_box(&out);
        });
        println!("{:<12} {:>12} {:>14.3}", format!("st {name}"), n, r / 1e9);
    }
}
