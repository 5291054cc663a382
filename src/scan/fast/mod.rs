//! Fused paths of the scan: the statistics of a run of blocks straight from the stored bytes,
//! with no decoded buffer passed over three times ([`Accumulator::add_f32`]), and the same
//! results: counts, magnitudes and the first-occurring min and max exactly, mean and standard
//! deviation to rounding (runs merged by Chan's update as before).
//!
//! - [`Fast::Linear`]: Q8_0, Q4_0 and Q5_0 (Q8_0 only in wasm32, where the others measured
//!   no faster than decoding), whose values are `d · q` with `d` an f16 and `q` a
//!   small integer: every product is exact in `f32`, so a block's sum is `d · Σq` and its
//!   squared deviations `d² (nΣq² − (Σq)²) / n`, both from integer sums (the blocks of a run
//!   combined by the two-pass formula over their means); min and max are `d` times the smallest
//!   and largest `q` (swapped when `d < 0`); zeros are the `q = 0` (all of them when `d = 0`);
//!   the magnitudes by thresholds on `|q|` (a table by `d`'s mantissa). Q6_K's
//!   `(d · sc) · q` is exact too, but its 16-value groups make this slower than decoding: it is
//!   taken in tests only.
//! - [`Fast::Affine`]: Q4_K, `(d·sc)·q − dmin·m` rounded to `f32` (the `affine` module: quants counted
//!   by value per sub-block, sums lane by lane); not in wasm32, and Q5_K in tests only (both
//!   measured slower than decoding there).
//! - [`Fast::Table`]: F16 and BF16 (little-endian) tensors of [`TABLE_MIN_VALUES`] or more:
//!   every value counted by its 16-bit pattern ([`Table16`]), summed up when the tensor is done
//!   ([`Fast::finish`]).
//!
//! A run holding a NaN or infinite block scale or value is done the careful way instead
//! (`TensorScanner::add`), so these paths see only finite values; so is a run the affine path
//! refuses (its sums would lose digits, or its min or max is a zero).
#![forbid(unsafe_code)]

mod affine;
mod table16;

use affine::{affine_q4_k, affine_q5_k, Lanes};
pub use table16::Table16;

use super::stats::{add_exponent_counts, Accumulator, Part, EXP_BINS};
use crate::dequant::f16_to_f32;
use crate::format::GgmlType;
use crate::preview::Decoder;

/// Tensors of fewer values than this are not counted in a [`Table16`] (summing up the table
/// costs about as much as counting this many values).
pub const TABLE_MIN_VALUES: u64 = 1 << 18;

/// Whether the paths that measure slower than the careful one are taken (tests only).
const SLOW_PATHS: bool = cfg!(test);

/// Whether Q4_K takes its fused path: not in wasm32, where it measured slower than decoding
/// (Chromium, `only-Q4_K.gguf`: 296 vs 326 MB/s of the data phase, 2026-12-04).
const WASM_Q4K: bool = cfg!(test) || !cfg!(target_arch = "wasm32");

/// Whether Q4_0 and Q5_0 take the fused path: not in wasm32, where it measured slower than
/// decoding or no faster (V8, 8 MiB in memory: Q4_0 284 vs 382 MB/s, Q5_0 445 vs 444; Q8_0
/// gains there, 1,000 vs 825).
const NATIVE_NIBBLES: bool = cfg!(test) || !cfg!(target_arch = "wasm32");

/// The fused path of a tensor's type, with its scratch space.
#[derive(Debug)]
pub enum Fast {
    /// Blocks of exact products `D · q` (Q8_0, Q4_0, Q5_0, Q6_K).
    Linear(Linear),
    /// Sub-blocks of `(d·sc)·q − dmin·m` (Q4_K, Q5_K).
    Affine(Affine),
    /// 16-bit floats counted by pattern.
    Table(Box<Table16>),
}

/// The block types of [`Fast::Linear`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Linear {
    /// `block_q8_0`: f16 d, 32 × i8.
    Q8_0,
    /// `block_q4_0`: f16 d, 16 bytes of nibbles, q − 8.
    Q4_0,
    /// `block_q5_0`: f16 d, u32 qh, 16 bytes of nibbles, q − 16.
    Q5_0,
    /// `block_q6_K`: 16 sub-blocks of 16, `(d · sc) · (q − 32)`.
    Q6K,
}

/// The block types of [`Fast::Affine`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Affine {
    /// `block_q4_K`.
    Q4K,
    /// `block_q5_K`.
    Q5K,
}

impl Fast {
    /// The fused path for `decoder`'s type, if it has one; `values` is the tensor's value
    /// count (small tensors are not worth a [`Table16`]).
    pub fn of(decoder: &Decoder, values: u64) -> Option<Fast> {
        let table =
            |bf16| (values >= TABLE_MIN_VALUES).then(|| Fast::Table(Box::new(Table16::new(bf16))));
        match *decoder {
            Decoder::Ggml(GgmlType(id), false) => match id {
                1 => table(false),
                30 => table(true),
                2 if NATIVE_NIBBLES => Some(Fast::Linear(Linear::Q4_0)),
                6 if NATIVE_NIBBLES => Some(Fast::Linear(Linear::Q5_0)),
                8 => Some(Fast::Linear(Linear::Q8_0)),
                14 if SLOW_PATHS => Some(Fast::Linear(Linear::Q6K)),
                12 if WASM_Q4K => Some(Fast::Affine(Affine::Q4K)),
                13 if SLOW_PATHS => Some(Fast::Affine(Affine::Q5K)),
                _ => None,
            },
            Decoder::St(d) if d.name == "F16" => table(false),
            Decoder::St(d) if d.name == "BF16" => table(true),
            _ => None,
        }
    }

    /// Adds one run of whole blocks whose judged scales are all finite. Returns `false`, having
    /// changed nothing, when the run must be done the careful way (a NaN or infinite value
    /// among 16-bit floats).
    pub fn add_run(&mut self, run: &[u8], acc: &mut Accumulator) -> bool {
        crate::cpu::fastest(AddRun {
            fast: self,
            run,
            acc,
        })
    }

    #[inline(always)]
    fn add_run_here(&mut self, run: &[u8], acc: &mut Accumulator) -> bool {
        if let Fast::Table(t) = self {
            return t.add_run(run, acc);
        }
        let mut r = Run::default();
        // Groups: at most one per 16 values, at least a byte each.
        r.sums.reserve(run.len() / 8);
        r.m2s.reserve(run.len() / 8);
        // The arms the builds never take (their constants false) are left out of the code.
        match self {
            Fast::Linear(Linear::Q8_0) => linear_q8_0(run, &mut r),
            Fast::Linear(Linear::Q4_0) if NATIVE_NIBBLES => linear_q4_0(run, &mut r),
            Fast::Linear(Linear::Q5_0) if NATIVE_NIBBLES => linear_q5_0(run, &mut r),
            Fast::Linear(Linear::Q6K) if SLOW_PATHS => linear_q6_k(run, &mut r),
            Fast::Affine(Affine::Q4K) if WASM_Q4K => {
                let mut l = Lanes::<16>::new();
                affine_q4_k(run, &mut l);
                return l.part().map(|p| acc.add_part(&p)).is_some();
            }
            Fast::Affine(Affine::Q5K) if SLOW_PATHS => {
                let mut l = Lanes::<32>::new();
                affine_q5_k(run, &mut l);
                return l.part().map(|p| acc.add_part(&p)).is_some();
            }
            _ => return false,
        }
        acc.add_part(&r.part());
        true
    }

    /// Adds what is still held (a [`Table16`]'s counts) to `acc`.
    pub fn finish(&mut self, acc: &mut Accumulator) {
        if let Fast::Table(t) = self {
            t.flush(acc);
        }
    }
}

/// [`Fast::add_run`]'s work, for [`crate::cpu::fastest`].
struct AddRun<'a> {
    fast: &'a mut Fast,
    run: &'a [u8],
    acc: &'a mut Accumulator,
}

impl crate::cpu::Kernel for AddRun<'_> {
    type Output = bool;
    #[inline(always)]
    fn run(self) -> bool {
        self.fast.add_run_here(self.run, self.acc)
    }
}

/// One run's sums: exponent-byte counts in four interleaved tables (so repeated exponents do
/// not wait on each other), zeros, the first extremes, and each group's sum and squared
/// deviations.
struct Run {
    exps: [[u32; 256]; 4],
    /// Whether `exps` counts anything.
    exps_used: bool,
    /// Zeros counted in `exps` (byte 0) too.
    exp_zeros: u64,
    /// Magnitudes counted by bin directly.
    bins: [u64; EXP_BINS],
    zeros: u64,
    min: f32,
    max: f32,
    /// Values per group (all groups of a run have the same size).
    group: u32,
    sums: Vec<f64>,
    m2s: Vec<f64>,
}

impl Default for Run {
    fn default() -> Self {
        Run {
            exps: [[0; 256]; 4],
            exps_used: false,
            exp_zeros: 0,
            bins: [0; EXP_BINS],
            zeros: 0,
            min: f32::INFINITY,
            max: f32::NEG_INFINITY,
            group: 0,
            sums: Vec::new(),
            m2s: Vec::new(),
        }
    }
}

/// The exponent byte of `v`.
#[inline(always)]
fn exp_byte(v: f32) -> usize {
    (v.to_bits() >> 23) as usize & 0xFF
}

impl Run {
    /// Takes a group's first extremes (strictly beyond: an earlier equal value stays).
    #[inline(always)]
    fn extremes(&mut self, lo: f32, hi: f32) {
        if lo < self.min {
            self.min = lo;
        }
        if hi > self.max {
            self.max = hi;
        }
    }

    /// The run's statistics: the mean of the group sums, and the groups' squared deviations
    /// plus their means' (two passes over the groups).
    fn part(&self) -> Part {
        let mut magnitudes = self.bins;
        if self.exps_used {
            let mut by_exp = [0u64; 256];
            for (e, b) in by_exp.iter_mut().enumerate() {
                *b = self.exps.iter().map(|t| u64::from(t[e])).sum();
            }
            add_exponent_counts(&mut magnitudes, &by_exp, self.exp_zeros);
        }
        let g = f64::from(self.group);
        let n = u64::from(self.group) * self.sums.len() as u64;
        if n == 0 {
            return Part::default();
        }
        let mean = self.sums.iter().sum::<f64>() / n as f64;
        let between: f64 = self
            .sums
            .iter()
            .map(|&s| {
                let d = s / g - mean;
                d * d
            })
            .sum();
        Part {
            count: n,
            nan: 0,
            inf: 0,
            zeros: self.zeros,
            finite: n,
            min: f64::from(self.min),
            max: f64::from(self.max),
            mean,
            m2: self.m2s.iter().sum::<f64>() + g * between,
            magnitudes,
        }
    }
}

/// `THRESHOLDS[m][j]`: the least integer `p` with `p · (1 + m/1024) ≥ 2^j` — where the binary
/// exponent of `|d| · p` passes `e + j`, for an f16 `d` (as an `f32`: `e` its exponent, `m` the
/// top 10 bits of its mantissa, the others zero) and an integer `p ≥ 1`.
static THRESHOLDS: [[u16; 16]; 1024] = thresholds();

const fn thresholds() -> [[u16; 16]; 1024] {
    let mut t = [[0u16; 16]; 1024];
    let mut m = 0;
    while m < 1024 {
        let mut j = 0;
        while j < 16 {
            let f = 1024 + m as u32;
            t[m][j] = ((1024u32 << j).div_ceil(f)) as u16;
            j += 1;
        }
        m += 1;
    }
    t
}

/// A group of `N` values `(d · s) · q[k]` for an f16 `d`, a small integer `s` (1 but for Q6_K's
/// scales) and `q` in storage order (`q[0]` is the first value); `|s · q| < 2^(K − 1)`. The
/// magnitudes are counted by [`THRESHOLDS`]: `|d · s · q|`'s exponent is `d`'s plus the `j` of
/// the last threshold `|s · q|` reaches.
#[inline(always)]
fn linear_group<const N: usize, const K: usize>(d: f32, s: i8, q: &[i8; N], r: &mut Run) {
    let dl = d * f32::from(s);
    let (mut sum, mut s2, mut lo, mut hi, mut z) = (0i32, 0i32, i8::MAX, i8::MIN, 0u32);
    for &x in q {
        let x32 = i32::from(x);
        sum += x32;
        s2 += x32 * x32;
        lo = lo.min(x);
        hi = hi.max(x);
        z += u32::from(x == 0);
    }
    r.group = N as u32;
    if dl == 0.0 {
        // Every value is a zero, signed by q's sign and d's: the first one is the extreme.
        let first = dl * f32::from(q[0]);
        r.extremes(first, first);
        r.zeros += N as u64;
        r.sums.push(0.0);
        r.m2s.push(0.0);
        return;
    }
    let bits = d.to_bits();
    let row = &THRESHOLDS[(bits >> 13) as usize & 0x3FF];
    let e = ((bits >> 23) & 0xFF) as i32 - 127 + super::stats::EXP_LOW;
    let mut ge = [0u16; K];
    ge[0] = N as u16 - z as u16;
    if K <= 8 && s == 1 {
        // |q| ≤ 128: byte lanes.
        let mut p = [0u8; N];
        for (p, &x) in p.iter_mut().zip(q) {
            *p = x.unsigned_abs();
        }
        // (An index loop: `enumerate().skip(1)` is not unrolled, and costs 1.6×.)
        for j in 1..K {
            let t = row[j].min(255) as u8;
            ge[j] = u16::from(p.iter().fold(0u8, |c, &p| c.wrapping_add(u8::from(p >= t))));
        }
    } else {
        let sa = u16::from(s.unsigned_abs());
        let mut p = [0u16; N];
        for (p, &x) in p.iter_mut().zip(q) {
            *p = sa * u16::from(x.unsigned_abs());
        }
        for j in 1..K {
            let t = row[j];
            ge[j] = p
                .iter()
                .fold(0u16, |c, &p| c.wrapping_add(u16::from(p >= t)));
        }
    }
    for k in 0..K {
        let next = if k + 1 < K { ge[k + 1] } else { 0 };
        let bin = (e + k as i32).clamp(0, EXP_BINS as i32 - 1) as usize;
        r.bins[bin] += u64::from(ge[k] - next);
    }
    r.zeros += u64::from(z);
    let (a, b) = (dl * f32::from(lo), dl * f32::from(hi));
    if dl > 0.0 {
        r.extremes(a, b);
    } else {
        r.extremes(b, a);
    }
    let df = f64::from(dl);
    let spread = N as i64 * i64::from(s2) - i64::from(sum) * i64::from(sum);
    r.sums.push(df * f64::from(sum));
    r.m2s.push(df * df * spread as f64 / N as f64);
}

/// The f16 at `b[i..i + 2]` of a whole block.
#[inline(always)]
fn f16_of(b: &[u8], i: usize) -> f32 {
    match b.get(i..i + 2) {
        Some(&[x, y]) => f16_to_f32(u16::from_le_bytes([x, y])),
        _ => f32::NAN,
    }
}

/// The `N`-byte blocks of a run.
#[inline(always)]
fn blocks<const N: usize>(run: &[u8]) -> impl Iterator<Item = &[u8; N]> {
    run.chunks_exact(N).filter_map(|b| b.try_into().ok())
}

#[inline(always)]
fn linear_q8_0(run: &[u8], r: &mut Run) {
    for b in blocks::<34>(run) {
        let d = f16_of(b, 0);
        let mut q = [0i8; 32];
        for (q, &x) in q.iter_mut().zip(&b[2..]) {
            *q = x as i8;
        }
        linear_group::<32, 8>(d, 1, &q, r);
    }
}

#[inline(always)]
fn linear_q4_0(run: &[u8], r: &mut Run) {
    for b in blocks::<18>(run) {
        let d = f16_of(b, 0);
        let mut q = [0i8; 32];
        for j in 0..16 {
            q[j] = (b[2 + j] & 0x0F) as i8 - 8;
            q[j + 16] = (b[2 + j] >> 4) as i8 - 8;
        }
        linear_group::<32, 8>(d, 1, &q, r);
    }
}

#[inline(always)]
fn linear_q5_0(run: &[u8], r: &mut Run) {
    for b in blocks::<22>(run) {
        let d = f16_of(b, 0);
        let qh = u32::from_le_bytes([b[2], b[3], b[4], b[5]]);
        let mut q = [0i8; 32];
        for j in 0..16 {
            let h0 = (((qh >> j) << 4) & 0x10) as u8;
            let h1 = ((qh >> (j + 12)) & 0x10) as u8;
            q[j] = ((b[6 + j] & 0x0F) | h0) as i8 - 16;
            q[j + 16] = ((b[6 + j] >> 4) | h1) as i8 - 16;
        }
        linear_group::<32, 8>(d, 1, &q, r);
    }
}

#[inline(always)]
fn linear_q6_k(run: &[u8], r: &mut Run) {
    for b in blocks::<210>(run) {
        let d = f16_of(b, 208);
        // The quants in storage order, as the decoder makes them: value 128·n + 32·m + l.
        let mut q = [0i8; 256];
        for n in 0..2 {
            let (ql, qh, o) = (64 * n, 128 + 32 * n, 128 * n);
            for l in 0..32 {
                let h = b[qh + l];
                q[o + l] = ((b[ql + l] & 0x0F) | ((h & 3) << 4)) as i8 - 32;
                q[o + l + 32] = ((b[ql + l + 32] & 0x0F) | (((h >> 2) & 3) << 4)) as i8 - 32;
                q[o + l + 64] = ((b[ql + l] >> 4) | (((h >> 4) & 3) << 4)) as i8 - 32;
                q[o + l + 96] = ((b[ql + l + 32] >> 4) | (((h >> 6) & 3) << 4)) as i8 - 32;
            }
        }
        // Value p's scale is byte 192 + p / 16 (the decoder's `sc + is + 2·m`).
        for (g, q) in q.chunks_exact(16).enumerate() {
            if let Ok(q) = <&[i8; 16]>::try_from(q) {
                linear_group::<16, 13>(d, b[192 + g] as i8, q, r);
            }
        }
    }
}

#[cfg(test)]
mod tests;
