//! The per-tensor accumulator of a scan: counts of NaN, infinite and zero values, the finite
//! values' min and max, and their mean and population standard deviation, merged from
//! cache-sized runs (each run's mean and sum of squared deviations in two passes over the run,
//! in `f64`; runs combined by Chan, Golub and LeVeque's pairwise update), so the result is as
//! accurate as numpy's float64 `mean` and `std` whatever the tensor's size.

use serde::{Deserialize, Serialize};

use crate::dequant::Exact;

/// Bins of the magnitude histogram: `|x|` by its binary exponent, from 2^−[`EXP_LOW`] (and
/// below, the first bin) to 2^[`EXP_HIGH`] (and above, the last bin); zeros are counted
/// apart.
pub const EXP_BINS: usize = 48;
/// The first bin holds finite nonzero `|x| < 2^−(EXP_LOW − 1)`.
pub const EXP_LOW: i32 = 32;
/// The last bin holds `|x| ≥ 2^(EXP_HIGH − 1)`.
pub const EXP_HIGH: i32 = EXP_BINS as i32 - EXP_LOW;

/// What a scan found in one tensor's values.
///
/// `min`, `max`, `mean`, `std` are over the finite values (`None` when there are none); `std`
/// is the population one (numpy's `std`, `ddof=0`). Complex values count by their magnitude
/// `|z|`, as previews show them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ValueStats {
    /// Values scanned.
    pub count: u64,
    /// NaN values.
    pub nan: u64,
    /// Infinite values (either sign).
    pub inf: u64,
    /// Values equal to zero (`+0` or `−0`).
    pub zeros: u64,
    /// Smallest finite value, exactly as stored.
    pub min: Option<Exact>,
    /// Largest finite value, exactly as stored.
    pub max: Option<Exact>,
    /// Mean of the finite values.
    pub mean: Option<f64>,
    /// Population standard deviation of the finite values.
    pub std: Option<f64>,
    /// Finite nonzero values by binary exponent of `|x|`: bin `k` holds `2^(k − EXP_LOW) ≤
    /// |x| < 2^(k + 1 − EXP_LOW)`, the ends open ([`EXP_BINS`] bins).
    pub magnitudes: Vec<u64>,
}

/// Accumulates [`ValueStats`] over runs of values: the statistics so far, kept as a fast
/// path's `Part` is (the same fields, merged by `Accumulator::add_part`).
#[derive(Debug, Clone, Default)]
pub struct Accumulator(Part);

/// A run's statistics as a fast path ([`super::fast`]) sums them up, for
/// [`Accumulator::add_part`].
#[derive(Debug, Clone)]
pub(crate) struct Part {
    /// Values.
    pub count: u64,
    /// NaN values.
    pub nan: u64,
    /// Infinite values.
    pub inf: u64,
    /// Zero values.
    pub zeros: u64,
    /// Finite values.
    pub finite: u64,
    /// The first smallest finite value (`+∞` when none).
    pub min: f64,
    /// The first largest finite value (`−∞` when none).
    pub max: f64,
    /// Mean of the finite values.
    pub mean: f64,
    /// Their sum of squared deviations from `mean`.
    pub m2: f64,
    /// Finite nonzero values by bin, as [`ValueStats::magnitudes`].
    pub magnitudes: [u64; EXP_BINS],
}

impl Default for Part {
    fn default() -> Self {
        Part {
            count: 0,
            nan: 0,
            inf: 0,
            zeros: 0,
            finite: 0,
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
            mean: 0.0,
            m2: 0.0,
            magnitudes: [0; EXP_BINS],
        }
    }
}

/// Adds counts of finite `f32` values by exponent byte (`by_exp[e]`, `e` < 255) to the bins:
/// byte e (1..=254) is 2^(e − 127); byte 0 holds the `zeros` and the subnormals (below 2^−126:
/// the first bin), as [`bin_of`] puts them.
pub(crate) fn add_exponent_counts(
    magnitudes: &mut [u64; EXP_BINS],
    by_exp: &[u64; 256],
    zeros: u64,
) {
    magnitudes[0] += by_exp[0].saturating_sub(zeros);
    for (e, &c) in by_exp.iter().enumerate().take(255).skip(1) {
        let bin = (e as i32 - 127 + EXP_LOW).clamp(0, EXP_BINS as i32 - 1) as usize;
        magnitudes[bin] += c;
    }
}

/// [`Accumulator::add_f32`]'s work, for [`crate::cpu::fastest`].
struct AddF32<'a> {
    acc: &'a mut Accumulator,
    xs: &'a [f32],
}

impl crate::cpu::Kernel for AddF32<'_> {
    type Output = ();
    #[inline(always)]
    fn run(self) {
        self.acc.add_f32_here(self.xs);
    }
}

/// Bin of a finite nonzero magnitude.
pub(crate) fn bin_of(x: f64) -> usize {
    // The binary exponent: exact from the bits (subnormals of f64 fall in the first bin).
    let e = ((x.abs().to_bits() >> 52) & 0x7FF) as i32 - 1023;
    (e + EXP_LOW).clamp(0, EXP_BINS as i32 - 1) as usize
}

impl Accumulator {
    /// Adds one run of values (widened exactly to `f64`); keep runs cache-sized (the run is
    /// passed over twice).
    pub fn add<T: Copy + Into<f64>>(&mut self, xs: &[T]) {
        let mut n = 0u64;
        let mut sum = 0f64;
        for &x in xs {
            let x: f64 = x.into();
            if x.is_finite() {
                n += 1;
                sum += x;
                if x == 0.0 {
                    self.0.zeros += 1;
                } else {
                    self.0.magnitudes[bin_of(x)] += 1;
                }
                if x < self.0.min {
                    self.0.min = x;
                }
                if x > self.0.max {
                    self.0.max = x;
                }
            } else if x.is_nan() {
                self.0.nan += 1;
            } else {
                self.0.inf += 1;
            }
        }
        self.0.count += xs.len() as u64;
        if n == 0 {
            return;
        }
        let mean = sum / n as f64;
        let m2: f64 = xs
            .iter()
            .map(|&x| x.into())
            .filter(|x: &f64| x.is_finite())
            .map(|x| (x - mean) * (x - mean))
            .sum();
        self.merge(n, mean, m2);
    }

    /// [`Accumulator::add`] for `f32` values, the same result (but for the order of the sums)
    /// in a few vectorisable loops: pass 1 counts zeros and values by exponent byte (four
    /// interleaved tables, so runs of one exponent do not wait on each other), and takes the
    /// min, max and sum in eight lanes; a run holding a NaN or an infinity (exponent byte
    /// 0xFF) is done by [`Accumulator::add`] instead.
    pub fn add_f32(&mut self, xs: &[f32]) {
        crate::cpu::fastest(AddF32 { acc: self, xs });
    }

    #[inline(always)]
    fn add_f32_here(&mut self, xs: &[f32]) {
        const LANES: usize = 8;
        let mut exps = [[0u32; 256]; 4];
        let mut lo = [f32::INFINITY; LANES];
        let mut hi = [f32::NEG_INFINITY; LANES];
        let mut sums = [0f64; LANES];
        let mut zeros = [0u32; LANES];
        // The exponent tables apart: their stores would keep the other loop from vectorising.
        let mut quads = xs.chunks_exact(4);
        for q in quads.by_ref() {
            for (t, &x) in exps.iter_mut().zip(q) {
                t[(x.to_bits() >> 23) as usize & 0xFF] += 1;
            }
        }
        for &x in quads.remainder() {
            exps[0][(x.to_bits() >> 23) as usize & 0xFF] += 1;
        }
        let lane = |k: usize,
                    x: f32,
                    lo: &mut [f32; LANES],
                    hi: &mut [f32; LANES],
                    sums: &mut [f64; LANES],
                    zeros: &mut [u32; LANES]| {
            // Comparisons, not f32::min: a NaN is never taken (and the run then goes the
            // careful way anyway).
            if x < lo[k] {
                lo[k] = x;
            }
            if x > hi[k] {
                hi[k] = x;
            }
            sums[k] += f64::from(x);
            zeros[k] += u32::from(x == 0.0);
        };
        let chunks = xs.chunks_exact(LANES);
        let tail = chunks.remainder();
        for c in chunks {
            for (k, &x) in c.iter().enumerate() {
                lane(k, x, &mut lo, &mut hi, &mut sums, &mut zeros);
            }
        }
        for (k, &x) in tail.iter().enumerate() {
            lane(k, x, &mut lo, &mut hi, &mut sums, &mut zeros);
        }
        let mut by_exp = [0u64; 256];
        for (e, b) in by_exp.iter_mut().enumerate() {
            *b = exps.iter().map(|t| u64::from(t[e])).sum();
        }
        if by_exp[255] > 0 {
            return self.add(xs);
        }
        let n = xs.len() as u64;
        self.0.count += n;
        if n == 0 {
            return;
        }
        let zeros: u64 = zeros.iter().map(|&z| u64::from(z)).sum();
        self.0.zeros += zeros;
        add_exponent_counts(&mut self.0.magnitudes, &by_exp, zeros);
        let lo = lo.iter().fold(f32::INFINITY, |a, &b| a.min(b));
        let hi = hi.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b));
        self.0.min = self.0.min.min(f64::from(lo));
        self.0.max = self.0.max.max(f64::from(hi));
        let mean = sums.iter().sum::<f64>() / n as f64;
        let mut m2s = [0f64; LANES];
        let chunks = xs.chunks_exact(LANES);
        let tail = chunks.remainder();
        for c in chunks {
            for (k, &x) in c.iter().enumerate() {
                let d = f64::from(x) - mean;
                m2s[k] += d * d;
            }
        }
        for (k, &x) in tail.iter().enumerate() {
            let d = f64::from(x) - mean;
            m2s[k] += d * d;
        }
        self.merge(n, mean, m2s.iter().sum());
    }

    /// Adds a run summarised by a fast path ([`super::fast`]): its counts, its first-occurring
    /// extremes (taken only when strictly beyond the ones so far, as [`Accumulator::add`] takes
    /// them value by value) and its mean and sum of squared deviations.
    pub(crate) fn add_part(&mut self, p: &Part) {
        self.0.count += p.count;
        self.0.nan += p.nan;
        self.0.inf += p.inf;
        self.0.zeros += p.zeros;
        for (m, &c) in self.0.magnitudes.iter_mut().zip(&p.magnitudes) {
            *m += c;
        }
        if p.finite == 0 {
            return;
        }
        if p.min < self.0.min {
            self.0.min = p.min;
        }
        if p.max > self.0.max {
            self.0.max = p.max;
        }
        self.merge(p.finite, p.mean, p.m2);
    }

    /// Chan et al.: combines (finite, mean, m2) with a run's (n, mean, m2).
    fn merge(&mut self, n: u64, mean: f64, m2: f64) {
        let total = self.0.finite + n;
        let delta = mean - self.0.mean;
        let (a, b) = (self.0.finite as f64, n as f64);
        self.0.mean += delta * (b / total as f64);
        self.0.m2 += m2 + delta * delta * (a * b / total as f64);
        self.0.finite = total;
    }

    /// Values that are NaN or infinite so far.
    pub fn non_finite(&self) -> u64 {
        self.0.nan + self.0.inf
    }

    /// The statistics; `exact` turns a widened min or max back into the stored type's value.
    pub fn finish(&self, exact: impl Fn(f64) -> Exact) -> ValueStats {
        let any = self.0.finite > 0;
        ValueStats {
            count: self.0.count,
            nan: self.0.nan,
            inf: self.0.inf,
            zeros: self.0.zeros,
            min: any.then(|| exact(self.0.min)),
            max: any.then(|| exact(self.0.max)),
            mean: any.then_some(self.0.mean),
            std: any.then(|| (self.0.m2 / self.0.finite as f64).sqrt()),
            magnitudes: self.0.magnitudes.to_vec(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_merge_to_the_two_pass_result() {
        let xs: Vec<f32> = (0..10_000)
            .map(|i| ((i * 7919) % 1000) as f32 * 0.37 - 50.0)
            .collect();
        let mut whole = Accumulator::default();
        whole.add(&xs);
        let mut runs = Accumulator::default();
        for c in xs.chunks(333) {
            runs.add(c);
        }
        let n = xs.len() as f64;
        let mean = xs.iter().map(|&x| f64::from(x)).sum::<f64>() / n;
        let var = xs
            .iter()
            .map(|&x| (f64::from(x) - mean).powi(2))
            .sum::<f64>()
            / n;
        for a in [whole, runs] {
            let s = a.finish(Exact::F64);
            assert!((s.mean.unwrap() - mean).abs() <= 1e-12 * mean.abs());
            assert!((s.std.unwrap() - var.sqrt()).abs() <= 1e-12 * var.sqrt());
            assert_eq!(s.magnitudes.iter().sum::<u64>() + s.zeros, 10_000);
        }
    }

    #[test]
    fn the_f32_path_gives_the_careful_paths_results() {
        let mut xs: Vec<f32> = (0..5_003)
            .map(|i| ((i * 7919) % 2001) as f32 * 1e-3 - 1.0)
            .collect();
        xs[17] = -0.0;
        xs[40] = 1e-40; // subnormal
        xs[41] = -3e38;
        xs[42] = 1e-30;
        for bad in [None, Some(f32::NAN), Some(f32::NEG_INFINITY)] {
            let mut v = xs.clone();
            if let Some(b) = bad {
                v[4_000] = b;
            }
            let (mut fast, mut careful) = (Accumulator::default(), Accumulator::default());
            for c in v.chunks(1000) {
                fast.add_f32(c);
                careful.add(c);
            }
            let (f, c) = (
                fast.finish(|x| Exact::F32(x as f32)),
                careful.finish(|x| Exact::F32(x as f32)),
            );
            assert_eq!(
                (f.count, f.nan, f.inf, f.zeros, f.min, f.max),
                (c.count, c.nan, c.inf, c.zeros, c.min, c.max)
            );
            assert_eq!(f.magnitudes, c.magnitudes);
            let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b.abs().max(1e-300);
            assert!(
                close(f.mean.unwrap(), c.mean.unwrap()) && close(f.std.unwrap(), c.std.unwrap())
            );
        }
    }

    #[test]
    fn specials_are_counted_not_summed() {
        let mut a = Accumulator::default();
        a.add(&[
            1.0f32,
            -0.0,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            3.0,
        ]);
        let s = a.finish(|v| Exact::F32(v as f32));
        assert_eq!((s.count, s.nan, s.inf, s.zeros), (6, 1, 2, 1));
        assert_eq!(
            (s.min, s.max),
            (Some(Exact::F32(-0.0)), Some(Exact::F32(3.0)))
        );
        assert_eq!(s.mean, Some(4.0 / 3.0));
        // 1.0 is 2^0: bin EXP_LOW; 3.0 is in [2, 4): bin EXP_LOW + 1.
        assert_eq!(
            (
                s.magnitudes[EXP_LOW as usize],
                s.magnitudes[EXP_LOW as usize + 1]
            ),
            (1, 1)
        );
        let empty = Accumulator::default().finish(Exact::F64);
        assert_eq!((empty.min, empty.mean, empty.std), (None, None, None));
    }
}
