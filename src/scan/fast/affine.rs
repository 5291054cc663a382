//! The fused path of Q4_K and Q5_K ([`super::Fast::Affine`]): a sub-block's 32 values are
//! `(d·sc)·q − dmin·m` rounded to `f32`, at most 16 (32) distinct values `v[q]` computed as the
//! decoder does (the same `f32` operations in the same order). The quants are counted by value,
//! and each statistic is summed lane by lane over the distinct values, weighted by the counts,
//! with no sum across lanes until the run is done.
#![forbid(unsafe_code)]

use super::{blocks, exp_byte, f16_of};
use crate::scan::stats::{add_exponent_counts, Part, EXP_BINS};

/// Largest `(mean − shift)² / variance` a run's shifted sums may have (else the run is done the
/// careful way): the cancellation in `Σw² − (Σw)²/n` then costs at most three digits of the
/// sixteen, the deviation staying within 1e-12 relative.
const MAX_OFFSET_RATIO: f64 = 1e3;

/// One run's sums for the affine paths, by lane `q` (the quant; each sub-block's values are
/// `v[q]`, `c[q]` times): the count-weighted sums of `w = v − shift` and `w²` (`shift` the
/// first sub-block's middle value, so `Σw² − (Σw)²/n` cancels little, [`MAX_OFFSET_RATIO`]),
/// zeros, the first extremes, and exponent-byte counts in four interleaved tables. No sum
/// across lanes until the run is done, so each sub-block is a few vector operations.
pub(super) struct Lanes<const Q: usize> {
    exps: [[u32; 256]; 4],
    shift: Option<f64>,
    n: u64,
    s1: [f64; Q],
    s2: [f64; Q],
    zeros: [u32; Q],
    lo: [f32; Q],
    hi: [f32; Q],
}

impl<const Q: usize> Lanes<Q> {
    pub(super) fn new() -> Self {
        Lanes {
            exps: [[0; 256]; 4],
            shift: None,
            n: 0,
            s1: [0.0; Q],
            s2: [0.0; Q],
            zeros: [0; Q],
            lo: [f32::INFINITY; Q],
            hi: [f32::NEG_INFINITY; Q],
        }
    }

    /// A sub-block of `n` values taking the distinct values `v[q]` `c[q]` times each.
    #[inline(always)]
    fn add(&mut self, c: &[u32; Q], v: &[f32; Q], n: u32) {
        let shift = *self.shift.get_or_insert(f64::from(v[Q / 2]));
        for q in 0..Q {
            let w = f64::from(v[q]) - shift;
            let t = f64::from(c[q]) * w;
            self.s1[q] += t;
            self.s2[q] += t * w;
            self.zeros[q] += if v[q] == 0.0 { c[q] } else { 0 };
            // Comparisons, not f32::min: an earlier equal value stays (lane by lane).
            let lo = if c[q] > 0 { v[q] } else { f32::INFINITY };
            let hi = if c[q] > 0 { v[q] } else { f32::NEG_INFINITY };
            self.lo[q] = if lo < self.lo[q] { lo } else { self.lo[q] };
            self.hi[q] = if hi > self.hi[q] { hi } else { self.hi[q] };
        }
        for q in 0..Q {
            self.exps[q % 4][exp_byte(v[q])] += c[q];
        }
        self.n += u64::from(n);
    }

    /// The run's statistics, or `None` when it must be done the careful way: the shift too far
    /// from the mean ([`MAX_OFFSET_RATIO`]), or a zero min or max (whose sign is the first
    /// zero's, which lanes do not keep; distinct lanes hold distinct values otherwise).
    pub(super) fn part(&self) -> Option<Part> {
        if self.n == 0 {
            return Some(Part::default());
        }
        let n = self.n as f64;
        let s1: f64 = self.s1.iter().sum();
        let s2: f64 = self.s2.iter().sum();
        let off = s1 / n;
        let m2 = s2 - s1 * off;
        // (m2 is never NaN here: every value is finite.)
        if m2 < 0.0 || (off != 0.0 && off * off > MAX_OFFSET_RATIO * (m2 / n)) {
            return None;
        }
        let (mut min, mut max) = (f32::INFINITY, f32::NEG_INFINITY);
        for (&lo, &hi) in self.lo.iter().zip(&self.hi) {
            if lo < min {
                min = lo;
            }
            if hi > max {
                max = hi;
            }
        }
        if min == 0.0 || max == 0.0 {
            return None;
        }
        let zeros: u64 = self.zeros.iter().map(|&z| u64::from(z)).sum();
        let mut by_exp = [0u64; 256];
        for (e, b) in by_exp.iter_mut().enumerate() {
            *b = self.exps.iter().map(|t| u64::from(t[e])).sum();
        }
        let mut magnitudes = [0u64; EXP_BINS];
        add_exponent_counts(&mut magnitudes, &by_exp, zeros);
        Some(Part {
            count: self.n,
            finite: self.n,
            zeros,
            min: f64::from(min),
            max: f64::from(max),
            mean: self.shift.unwrap_or(0.0) + off,
            m2,
            magnitudes,
            ..Part::default()
        })
    }
}

/// ggml's `get_scale_min_k4`: sub-block `j`'s 6-bit scale and min from the 12 packed bytes.
#[inline(always)]
fn scale_min_k4(j: usize, q: &[u8]) -> (u8, u8) {
    let at = |i: usize| q.get(i).copied().unwrap_or(0);
    if j < 4 {
        (at(j) & 63, at(j + 4) & 63)
    } else {
        (
            (at(j + 4) & 0x0F) | ((at(j - 4) >> 6) << 4),
            (at(j + 4) >> 4) | ((at(j) >> 6) << 4),
        )
    }
}

/// The distinct values `d·q − m` of q in 0..Q, as the decoder rounds them.
#[inline(always)]
fn values<const Q: usize>(d: f32, m: f32) -> [f32; Q] {
    let mut v = [0f32; Q];
    for (q, v) in v.iter_mut().enumerate() {
        *v = d * f32::from(q as u8) - m;
    }
    v
}

#[inline(always)]
pub(super) fn affine_q4_k(run: &[u8], r: &mut Lanes<16>) {
    for b in blocks::<144>(run) {
        let (d, min) = (f16_of(b, 0), f16_of(b, 2));
        let sc = &b[4..16];
        for p in 0..4 {
            let (s1, m1) = scale_min_k4(2 * p, sc);
            let (s2, m2) = scale_min_k4(2 * p + 1, sc);
            let (d1, m1) = (d * f32::from(s1), min * f32::from(m1));
            let (d2, m2) = (d * f32::from(s2), min * f32::from(m2));
            let (mut c1, mut c2) = ([0u32; 16], [0u32; 16]);
            for &x in &b[16 + 32 * p..48 + 32 * p] {
                c1[usize::from(x & 0x0F)] += 1;
                c2[usize::from(x >> 4)] += 1;
            }
            r.add(&c1, &values::<16>(d1, m1), 32);
            r.add(&c2, &values::<16>(d2, m2), 32);
        }
    }
}

#[inline(always)]
pub(super) fn affine_q5_k(run: &[u8], r: &mut Lanes<32>) {
    for b in blocks::<176>(run) {
        let (d, min) = (f16_of(b, 0), f16_of(b, 2));
        let sc = &b[4..16];
        let qh = &b[16..48];
        for p in 0..4 {
            let (s1, m1) = scale_min_k4(2 * p, sc);
            let (s2, m2) = scale_min_k4(2 * p + 1, sc);
            let (d1, m1) = (d * f32::from(s1), min * f32::from(m1));
            let (d2, m2) = (d * f32::from(s2), min * f32::from(m2));
            let (u1, u2) = (1u8 << (2 * p), 2u8 << (2 * p));
            let (mut c1, mut c2) = ([0u32; 32], [0u32; 32]);
            for (&x, &h) in b[48 + 32 * p..80 + 32 * p].iter().zip(qh) {
                let h1 = if h & u1 != 0 { 16 } else { 0 };
                let h2 = if h & u2 != 0 { 16 } else { 0 };
                c1[usize::from((x & 0x0F) + h1)] += 1;
                c2[usize::from((x >> 4) + h2)] += 1;
            }
            r.add(&c1, &values::<32>(d1, m1), 32);
            r.add(&c2, &values::<32>(d2, m2), 32);
        }
    }
}
