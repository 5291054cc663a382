//! The fused paths against the careful one: the dequantiser's `f32` values through
//! [`Accumulator::add`], on random blocks (fixed seeds) with special scales — zero of either
//! sign, subnormal, negative, the largest f16 — all-equal blocks, and 16-bit floats of every
//! finite pattern.

use super::*;
use crate::dequant::{dequantize_ggml, Exact};
use crate::scan::stats::ValueStats;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// f16 scales worth trying: zeros, subnormals, negatives, the extremes, ordinary ones.
const SCALES: &[u16] = &[
    0x0000, 0x8000, 0x0001, 0x83FF, 0x0400, 0xBC00, 0x3C00, 0x7BFF, 0xFBFF, 0x1E00, 0x2A3B, 0xA123,
];

/// A finite f16 pattern: a special one now and then, else a random finite one.
fn scale(rng: &mut Rng) -> u16 {
    let r = rng.next();
    if r % 3 == 0 {
        return SCALES[(r >> 8) as usize % SCALES.len()];
    }
    loop {
        let h = (rng.next() >> 16) as u16;
        if h & 0x7C00 != 0x7C00 {
            return h;
        }
    }
}

/// `blocks` random blocks of type `id` (`ts` bytes, f16 scales at `at`); every 7th block has
/// all its other bytes equal.
fn random_blocks(rng: &mut Rng, ts: usize, at: &[usize], blocks: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for k in 0..blocks {
        let start = out.len();
        let same = (rng.next() >> 3) as u8;
        out.extend((0..ts).map(|_| if k % 7 == 3 { same } else { rng.next() as u8 }));
        for &o in at {
            out[start + o..start + o + 2].copy_from_slice(&scale(rng).to_le_bytes());
        }
    }
    out
}

fn careful(id: u32, bytes: &[u8], values: usize, runs: usize) -> ValueStats {
    let mut out = vec![0f32; values];
    dequantize_ggml(GgmlType(id), false, bytes, &mut out).unwrap();
    let mut acc = Accumulator::default();
    for c in out.chunks(values.div_ceil(runs).max(1)) {
        acc.add(c);
    }
    acc.finish(|v| Exact::F32(v as f32))
}

fn bits(e: &Option<Exact>) -> Option<u32> {
    match e {
        Some(Exact::F32(v)) => Some(v.to_bits()),
        None => None,
        other => panic!("{other:?}"),
    }
}

fn same(f: &ValueStats, c: &ValueStats, what: &str) {
    assert_eq!(
        (f.count, f.nan, f.inf, f.zeros),
        (c.count, c.nan, c.inf, c.zeros),
        "{what}: counts"
    );
    assert_eq!(
        bits(&f.min),
        bits(&c.min),
        "{what}: min {:?} {:?}",
        f.min,
        c.min
    );
    assert_eq!(
        bits(&f.max),
        bits(&c.max),
        "{what}: max {:?} {:?}",
        f.max,
        c.max
    );
    assert_eq!(f.magnitudes, c.magnitudes, "{what}: magnitudes");
    let close = |a: Option<f64>, b: Option<f64>, scale: f64| match (a, b) {
        (Some(a), Some(b)) => a == b || (a - b).abs() <= 1e-12 * scale,
        (a, b) => a == b,
    };
    let (m, s) = (c.mean.unwrap_or(0.0), c.std.unwrap_or(0.0));
    assert!(
        close(f.mean, c.mean, m.abs().max(s)),
        "{what}: mean {:?} {:?}",
        f.mean,
        c.mean
    );
    assert!(
        close(f.std, c.std, s),
        "{what}: std {:?} {:?}",
        f.std,
        c.std
    );
}

/// The block types of the fused paths: (name, id, values per block, bytes, f16 scale offsets).
const BLOCK_TYPES: &[(&str, u32, usize, usize, &[usize])] = &[
    ("Q8_0", 8, 32, 34, &[0]),
    ("Q4_0", 2, 32, 18, &[0]),
    ("Q5_0", 6, 32, 22, &[0]),
    ("Q6_K", 14, 256, 210, &[208]),
    ("Q4_K", 12, 256, 144, &[0, 2]),
    ("Q5_K", 13, 256, 176, &[0, 2]),
];

#[test]
fn block_paths_give_the_careful_paths_results() {
    for &(name, id, bs, ts, at) in BLOCK_TYPES {
        let decoder = Decoder::Ggml(GgmlType(id), false);
        let mut fused = 0;
        for (seed, blocks, runs) in [
            (1u64, 1usize, 1usize),
            (2, 3, 1),
            (3, 100, 1),
            (4, 257, 5),
            (5, 64, 64),
            (6, 40, 40),
        ] {
            let mut rng = Rng(seed * 0x9E37_79B9 + u64::from(id));
            let bytes = random_blocks(&mut rng, ts, at, blocks);
            let mut acc = Accumulator::default();
            let mut fast = Fast::of(&decoder, 0).expect("a fused path");
            for run in bytes.chunks(blocks.div_ceil(runs) * ts) {
                // A run the fused path refuses is done the careful way, as the scanner does.
                if fast.add_run(run, &mut acc) {
                    fused += 1;
                } else {
                    let mut out = vec![0f32; run.len() / ts * bs];
                    dequantize_ggml(GgmlType(id), false, run, &mut out).unwrap();
                    acc.add(&out);
                }
            }
            fast.finish(&mut acc);
            let f = acc.finish(|v| Exact::F32(v as f32));
            same(
                &f,
                &careful(id, &bytes, blocks * bs, runs),
                &format!("{name} {seed}"),
            );
        }
        assert!(fused > 60, "{name}: only {fused} runs fused");
    }
}

#[test]
fn block_paths_with_a_large_offset_keep_the_deviation() {
    // Q4_K with the mins far from the scales: mean ≫ std (values near −dmin·m).
    let mut rng = Rng(77);
    let mut bytes = random_blocks(&mut rng, 144, &[], 64);
    for b in bytes.chunks_exact_mut(144) {
        b[0..2].copy_from_slice(&0x0400u16.to_le_bytes()); // d = 2^-14
        b[2..4].copy_from_slice(&0x5800u16.to_le_bytes()); // dmin = 128
    }
    let mut acc = Accumulator::default();
    let mut fast = Fast::of(&Decoder::Ggml(GgmlType(12), false), 0).unwrap();
    assert!(fast.add_run(&bytes, &mut acc));
    let f = acc.finish(|v| Exact::F32(v as f32));
    same(&f, &careful(12, &bytes, 64 * 256, 1), "Q4_K offset");
    // A run whose first sub-block (the shift) is far from all the others, which barely
    // spread: the shifted sums would cancel too much, so the run is refused.
    let mut far = vec![0u8; 256 * 144];
    for (k, b) in far.chunks_exact_mut(144).enumerate() {
        if k == 0 {
            b[2..4].copy_from_slice(&0x3C00u16.to_le_bytes()); // dmin = 1, d = 0
            b[8] = 63; // sub-block 0's min: every value −63, the others 0
        } else {
            b[0..2].copy_from_slice(&0x0400u16.to_le_bytes()); // d = 2^-14, dmin = 0
            b[4..8].fill(63);
            b[16..].fill(0x5A);
        }
    }
    let mut fast = Fast::of(&Decoder::Ggml(GgmlType(12), false), 0).unwrap();
    assert!(!fast.add_run(&far, &mut Accumulator::default()));
    // Q8_0 blocks of one value each but for one quant: tiny deviations.
    let mut bytes = Vec::new();
    for k in 0..50u8 {
        bytes.extend(0x6400u16.to_le_bytes()); // d = 1024
        bytes.extend((0..32).map(|j| if j == k % 32 { 101 } else { 100 }));
    }
    let mut acc = Accumulator::default();
    let mut fast = Fast::of(&Decoder::Ggml(GgmlType(8), false), 0).unwrap();
    assert!(fast.add_run(&bytes, &mut acc));
    let f = acc.finish(|v| Exact::F32(v as f32));
    same(&f, &careful(8, &bytes, 50 * 32, 1), "Q8_0 offset");
}

#[test]
fn sixteen_bit_tables_give_the_careful_paths_results() {
    for (bf16, id) in [(false, 1u32), (true, 30)] {
        let special = if bf16 { 0x7F80u16 } else { 0x7C00 };
        // Every finite pattern twice, then random ones; odd-length runs.
        let mut halves: Vec<u16> = (0..=u16::MAX)
            .chain(0..=u16::MAX)
            .filter(|h| h & special != special)
            .collect();
        let mut rng = Rng(5 + u64::from(id));
        halves.extend((0..10_001).map(|_| (rng.next() >> 20) as u16 & 0x3FFF));
        let bytes: Vec<u8> = halves.iter().flat_map(|h| h.to_le_bytes()).collect();
        for (what, part) in [("all", &bytes[..]), ("tail", &bytes[bytes.len() - 2002..])] {
            let mut acc = Accumulator::default();
            let mut fast = Fast::Table(Box::new(Table16::new(bf16)));
            for run in part.chunks(2 * 16_383) {
                assert!(fast.add_run(run, &mut acc));
            }
            fast.finish(&mut acc);
            let f = acc.finish(|v| Exact::F32(v as f32));
            same(
                &f,
                &careful(id, part, part.len() / 2, part.len().div_ceil(2 * 16_383)),
                what,
            );
        }
        // Zeros of both signs: the first one is the extreme, and a NaN or infinity is refused.
        for first in [0x8000u16, 0x0000] {
            let halves = [0x3C00u16, first, first ^ 0x8000, 0x4000];
            let bytes: Vec<u8> = halves.iter().flat_map(|h| h.to_le_bytes()).collect();
            let mut acc = Accumulator::default();
            let mut fast = Fast::Table(Box::new(Table16::new(bf16)));
            assert!(fast.add_run(&bytes[2..], &mut acc));
            assert!(!fast.add_run(&special.to_le_bytes(), &mut acc));
            fast.finish(&mut acc);
            let f = acc.finish(|v| Exact::F32(v as f32));
            same(&f, &careful(id, &bytes[2..], 3, 1), "zeros");
            let all_zero = [first, first ^ 0x8000, first];
            let bytes: Vec<u8> = all_zero.iter().flat_map(|h| h.to_le_bytes()).collect();
            let mut acc = Accumulator::default();
            let mut fast = Fast::Table(Box::new(Table16::new(bf16)));
            assert!(fast.add_run(&bytes, &mut acc));
            fast.finish(&mut acc);
            let f = acc.finish(|v| Exact::F32(v as f32));
            same(&f, &careful(id, &bytes, 3, 1), "all zero");
        }
    }
}

/// A GGUF (version 3, no metadata) of one tensor of type `id`: `rows` rows of `row` values.
fn gguf(id: u32, row: u64, rows: u64, data: &[u8]) -> Vec<u8> {
    let mut f = Vec::new();
    f.extend(b"GGUF");
    f.extend(3u32.to_le_bytes());
    f.extend(1u64.to_le_bytes());
    f.extend(0u64.to_le_bytes());
    f.extend(1u64.to_le_bytes());
    f.push(b't');
    f.extend(2u32.to_le_bytes());
    f.extend(row.to_le_bytes());
    f.extend(rows.to_le_bytes());
    f.extend(id.to_le_bytes());
    f.extend(0u64.to_le_bytes());
    while f.len() % 32 != 0 {
        f.push(0);
    }
    f.extend(data);
    f
}

/// The tensor of `file` scanned in pieces of `piece` bytes, fused and careful.
fn scan_both(file: &[u8], piece: u64) -> (crate::scan::TensorScan, crate::scan::TensorScan) {
    use crate::scan::{pieces, TensorScanner};
    let model = crate::open::OpenedModel::from(crate::source::parse_bytes(file).unwrap());
    let at = usize::try_from(model.tensors[0].offset).unwrap();
    let run = |fused: bool| {
        let mut s = TensorScanner::new(&model, 0).unwrap();
        if !fused {
            s = s.careful();
        }
        for req in pieces(&model, 0, piece).unwrap() {
            let plan = crate::preview::plan(&model, 0, &req).unwrap();
            let start = usize::try_from(plan.read_offset).unwrap();
            let len = usize::try_from(plan.read_len).unwrap();
            s.add(&plan, &file[start..start + len]).unwrap();
        }
        assert!(at > 0);
        s.finish()
    };
    (run(true), run(false))
}

#[test]
fn the_scanner_gives_the_same_results_with_and_without_its_fused_path() {
    let mut rng = Rng(99);
    // 16-bit floats, big enough for the pattern table, with NaN and infinite values in some
    // runs (those runs are done the careful way; the first bad offset is the same), zeros of
    // both signs and subnormals.
    for (id, special) in [(1u32, 0x7C00u16), (30, 0x7F80)] {
        let n = 1usize << 19;
        let mut halves: Vec<u16> = (0..n)
            .map(|_| (rng.next() >> 20) as u16 & 0xBFFF) // bit 14 clear: finite
            .collect();
        halves[5] = 0x8000;
        halves[6] = 0x0000;
        halves[7] = 0x0001;
        halves[300_001] = special | 1; // NaN
        halves[400_000] = special | 0x8000; // −Inf
        let bytes: Vec<u8> = halves.iter().flat_map(|h| h.to_le_bytes()).collect();
        let file = gguf(id, 4096, (n / 4096) as u64, &bytes);
        for piece in [1 << 20, 16 << 20] {
            let (f, c) = scan_both(&file, piece);
            assert!(f.first_bad_offset.is_some() && f.has_non_finite());
            same(
                f.values.as_ref().unwrap(),
                c.values.as_ref().unwrap(),
                "16-bit",
            );
            assert_eq!(f.first_bad_offset, c.first_bad_offset);
        }
    }
    // Block types with a NaN or infinite scale in one block.
    for &(name, id, bs, ts, at) in BLOCK_TYPES {
        let blocks = 3 * 4096 / bs * 8;
        let mut bytes = random_blocks(&mut rng, ts, at, blocks);
        let bad = 5 * ts * (4096 / bs) + 3 * ts;
        bytes[bad + at[at.len() - 1]..][..2].copy_from_slice(&0xFC00u16.to_le_bytes());
        let file = gguf(id, 4096, (blocks * bs / 4096) as u64, &bytes);
        for piece in [300, 1 << 20] {
            let (f, c) = scan_both(&file, piece);
            same(f.values.as_ref().unwrap(), c.values.as_ref().unwrap(), name);
            assert_eq!(f.first_bad_offset, c.first_bad_offset, "{name}");
            assert_eq!((f.scale_inf, f.blocks), (c.scale_inf, c.blocks), "{name}");
            assert!(f.scale_inf == 1 && f.first_bad_offset.is_some(), "{name}");
        }
    }
}

#[test]
fn random_bytes_scan_the_same_with_and_without_the_fused_path() {
    // Every byte random, scales included (NaN, infinite, subnormal, zero ones among them): the
    // runs with a bad scale go the careful way, the others the fused one, and the results are
    // the careful scanner's.
    let mut rng = Rng(2026);
    for &(name, id, bs, ts, _) in BLOCK_TYPES {
        for round in 0..4 {
            let blocks = 4096 / bs * (1 + round);
            let bytes: Vec<u8> = (0..blocks * ts).map(|_| rng.next() as u8).collect();
            let file = gguf(id, 4096, (blocks * bs / 4096) as u64, &bytes);
            for piece in [ts as u64 * 7, 1 << 20] {
                let (f, c) = scan_both(&file, piece);
                same(f.values.as_ref().unwrap(), c.values.as_ref().unwrap(), name);
                assert_eq!(
                    (f.scale_nan, f.scale_inf, f.blocks, f.first_bad_offset),
                    (c.scale_nan, c.scale_inf, c.blocks, c.first_bad_offset),
                    "{name}"
                );
            }
        }
    }
}
