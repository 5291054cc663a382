//! A short, bounded fuzz run of every fuzz target (the readers of PyTorch, NumPy and ONNX files,
//! issue #24, and the older GGUF, safetensors, remote-text, sniffing and dequantisation ones), on
//! stable Rust as part of the test command: the bodies of the libFuzzer targets in `fuzz/`
//! (`fuzz/bodies.rs`) run on every crash kept in `tests/data/fuzz/<target>/`, on the generated
//! and real files as seeds, and on a few thousand deterministic mutants of them (bit flips,
//! interesting bytes and lengths, cuts, repeated and removed runs). The long runs (≥ 1,000,000
//! executions a target) are `bash scripts/fuzz.sh`, seeded with the same files (written to
//! `$WEIGHTPEEK_FUZZ_SEEDS/<target>/` when that is set); their counts are in the README.

mod common;

#[path = "../fuzz/bodies.rs"]
mod bodies;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use weightpeek::format::{sniff, Format};

/// Seeds larger than this are left out (the fuzzer's `-max_len` as `scripts/fuzz.sh` sets it:
/// the real silero-vad TorchScript and ONNX files are 2.2 and 2.3 MB).
const MAX_SEED: usize = 4 << 20;
/// Mutants run per target at most.
const MUTANTS: usize = 20_000;
/// Time spent on a target's mutants at most (the debug build reads a few thousand files a
/// second; the count above is reached first on this project's machines).
const BUDGET: Duration = Duration::from_secs(12);
/// An input taking longer than this is a hang, not a slow case (libFuzzer's `-timeout` is 1 s
/// in the optimised build; the test build is unoptimised).
const HANG: Duration = Duration::from_secs(20);

/// Which seeds a target takes.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Zip,
    Pickle,
    Legacy,
    Numpy,
    Onnx,
    /// A GGUF file without its magic (the `gguf_header` target puts it back).
    GgufTail,
    /// A safetensors file's JSON header (the `safetensors_header` target adds the length).
    StHeader,
    /// A JSON file (shard indexes, listings).
    Json,
    /// The first 4 KiB of any seed (sniffing, dequantisation).
    Any,
}

struct Target {
    name: &'static str,
    body: fn(&[u8]) -> bool,
    seeds: &'static [Kind],
}

const TARGETS: [Target; 11] = [
    Target {
        name: "zip",
        body: bodies::zip_reader,
        seeds: &[Kind::Zip],
    },
    Target {
        name: "pickle",
        body: bodies::pickle_machine,
        seeds: &[Kind::Pickle, Kind::Legacy],
    },
    Target {
        name: "torch_zip",
        body: bodies::torch_zip,
        seeds: &[Kind::Zip],
    },
    Target {
        name: "torch_legacy",
        body: bodies::torch_legacy,
        seeds: &[Kind::Legacy],
    },
    Target {
        name: "numpy",
        body: bodies::numpy,
        seeds: &[Kind::Numpy],
    },
    Target {
        name: "onnx",
        body: bodies::onnx_model,
        seeds: &[Kind::Onnx],
    },
    Target {
        name: "gguf_header",
        body: bodies::gguf_header,
        seeds: &[Kind::GgufTail],
    },
    Target {
        name: "safetensors_header",
        body: bodies::safetensors_header,
        seeds: &[Kind::StHeader],
    },
    Target {
        name: "shard_index",
        body: bodies::shard_index,
        seeds: &[Kind::Json],
    },
    Target {
        name: "sniff",
        body: bodies::sniff_any,
        seeds: &[Kind::Any],
    },
    Target {
        name: "dequant",
        body: bodies::dequant,
        seeds: &[Kind::Any],
    },
];

/// What kind of seed a file is: by its bytes (the formats' sniffing), pickles by name.
fn kind(path: &Path, b: &[u8]) -> Option<Kind> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    if ext == "pkl" || ext == "pickle" {
        return Some(Kind::Pickle);
    }
    match sniff(b, b.len() as u64).ok()? {
        Format::Numpy => Some(if b.starts_with(b"PK") {
            Kind::Zip
        } else {
            Kind::Numpy
        }),
        Format::Pytorch => Some(Kind::Zip),
        Format::PytorchLegacy => Some(Kind::Legacy),
        Format::Onnx => Some(Kind::Onnx),
        _ => None,
    }
}

/// The generated fixture folders, the hostile inputs, the bundled sample and the real models'
/// folder.
fn seed_dirs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut dirs: Vec<PathBuf> = [
        "target/torch-fixtures",
        "target/numpy-fixtures",
        "target/onnx-fixtures",
        "target/pickle-fixtures",
        "target/remote-fixtures",
        "tests/data/hostile",
    ]
    .iter()
    .map(|d| root.join(d))
    .collect();
    dirs.push(common::data_dir());
    dirs
}

/// Every file under `dir` (recursively; symlinks followed) up to [`MAX_SEED`] bytes.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            files(&p, out);
        } else if p.metadata().is_ok_and(|m| m.len() as usize <= MAX_SEED) {
            out.push(p);
        }
    }
}

/// Seeds by kind, each with its file name.
fn seeds() -> Vec<(Kind, String, Vec<u8>)> {
    let mut paths = Vec::new();
    for d in seed_dirs() {
        files(&d, &mut paths);
    }
    let mut out = Vec::new();
    for p in paths {
        let Ok(b) = std::fs::read(&p) else { continue };
        // Python pickles written beside a generated file's reference (`expected.json`, …)
        // are JSON, not seeds; `kind` leaves them out by their bytes.
        let name = p.display().to_string();
        out.push((Kind::Any, name.clone(), b[..b.len().min(4096)].to_vec()));
        if p.extension().is_some_and(|e| e == "json") {
            out.push((Kind::Json, name.clone(), b.clone()));
        }
        match sniff(&b, b.len() as u64) {
            Ok(Format::Gguf) => out.push((Kind::GgufTail, name.clone(), b[4..].to_vec())),
            Ok(Format::Safetensors) => {
                let len = u64::from_le_bytes(b[..8].try_into().unwrap());
                let end =
                    usize::try_from(len.saturating_add(8)).map_or(b.len(), |e| e.min(b.len()));
                out.push((Kind::StHeader, name.clone(), b[8..end].to_vec()));
            }
            _ => {}
        }
        if let Some(k) = kind(&p, &b) {
            out.push((k, name, b));
        }
    }
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("www/sample.gguf");
    if let Ok(b) = std::fs::read(&sample) {
        out.push((
            Kind::GgufTail,
            sample.display().to_string(),
            b[4..].to_vec(),
        ));
    }
    out
}

/// xorshift64*: the mutants are the same in every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Values that make lengths, counts and offsets lie.
const INTERESTING: [u64; 10] = [
    0,
    1,
    0x7F,
    0xFF,
    0xFFFF,
    0x7FFF_FFFF,
    0xFFFF_FFFF,
    0x1_0000_0000,
    u64::MAX / 2,
    u64::MAX,
];

/// One to four edits of `seed`.
fn mutate(seed: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut b = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        let n = b.len();
        if n == 0 {
            b.push(rng.next() as u8);
            continue;
        }
        match rng.below(7) {
            0 => b[rng.below(n)] ^= 1 << rng.below(8),
            1 => b[rng.below(n)] = INTERESTING[rng.below(INTERESTING.len())] as u8,
            2 => {
                let v = INTERESTING[rng.below(INTERESTING.len())];
                let w = [2, 4, 8][rng.below(3)];
                let at = rng.below(n);
                let le = v.to_le_bytes();
                for (i, x) in le.iter().take(w).enumerate() {
                    if let Some(y) = b.get_mut(at + i) {
                        *y = *x;
                    }
                }
            }
            3 => b.truncate(rng.below(n)),
            4 => {
                let at = rng.below(n);
                let len = 1 + rng.below(64.min(n - at));
                let run: Vec<u8> = b[at..at + len].to_vec();
                let to = rng.below(n);
                b.splice(to..to, run);
            }
            5 => {
                let at = rng.below(n);
                let len = 1 + rng.below(64.min(n - at));
                b.drain(at..at + len);
            }
            _ => {
                let at = rng.below(n);
                b[at] = rng.next() as u8;
            }
        }
    }
    b
}

/// The crashes found by the long runs, kept as regression inputs.
fn regressions(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/fuzz")
        .join(target);
    let mut paths = Vec::new();
    files(&dir, &mut paths);
    paths
        .into_iter()
        .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
        .collect()
}

/// Runs `body` on `input`, returning what it returned and how long it took; a hang fails.
fn timed(body: fn(&[u8]) -> bool, input: &[u8], what: &str) -> bool {
    let t = Instant::now();
    let ok = body(input);
    let took = t.elapsed();
    assert!(took < HANG, "{what}: {took:?}");
    ok
}

/// Runs target `t`: its regressions, its seeds, then its mutants; prints the counts.
fn smoke(t: &Target) {
    for (name, b) in regressions(t.name) {
        timed(t.body, &b, &name);
    }
    let all = seeds();
    let mine: Vec<&(Kind, String, Vec<u8>)> =
        all.iter().filter(|(k, _, _)| t.seeds.contains(k)).collect();
    if mine.is_empty() {
        assert!(
            !common::required(),
            "{}: no seeds in {:?}; run scripts/test.sh",
            t.name,
            seed_dirs()
        );
        eprintln!("SKIP: {}: no seeds (run scripts/test.sh)", t.name);
        return;
    }
    // `scripts/fuzz.sh` takes the seeds from here: `$WEIGHTPEEK_FUZZ_SEEDS/<target>/`.
    if let Some(out) = std::env::var_os("WEIGHTPEEK_FUZZ_SEEDS") {
        let dir = Path::new(&out).join(t.name);
        std::fs::create_dir_all(&dir).unwrap();
        for (i, (_, _, b)) in mine.iter().enumerate() {
            std::fs::write(dir.join(format!("seed-{i:04}")), b).unwrap();
        }
    }
    let opened = mine
        .iter()
        .filter(|(_, name, b)| timed(t.body, b, name))
        .count();
    assert!(
        opened > 0,
        "{}: none of {} seeds got through the reader",
        t.name,
        mine.len()
    );
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ t.name.len() as u64);
    let start = Instant::now();
    let (mut runs, mut through) = (0, 0);
    while runs < MUTANTS && start.elapsed() < BUDGET {
        let (_, name, seed) = mine[rng.below(mine.len())];
        let m = mutate(seed, &mut rng);
        through += usize::from(timed(t.body, &m, &format!("mutant {runs} of {name}")));
        runs += 1;
    }
    eprintln!(
        "{}: {} seeds ({} read through), {} mutants ({} read through) in {:.1} s",
        t.name,
        mine.len(),
        opened,
        runs,
        through,
        start.elapsed().as_secs_f64()
    );
}

macro_rules! smoke_tests {
    ($($test:ident => $i:expr),* $(,)?) => {
        $(#[test]
        fn $test() {
            smoke(&TARGETS[$i]);
        })*
    };
}

smoke_tests! {
    fuzz_smoke_zip => 0,
    fuzz_smoke_pickle => 1,
    fuzz_smoke_torch_zip => 2,
    fuzz_smoke_torch_legacy => 3,
    fuzz_smoke_numpy => 4,
    fuzz_smoke_onnx => 5,
    fuzz_smoke_gguf_header => 6,
    fuzz_smoke_safetensors_header => 7,
    fuzz_smoke_shard_index => 8,
    fuzz_smoke_sniff => 9,
    fuzz_smoke_dequant => 10,
}
