//! Statistics of a window of values, in two passes (so the standard deviation is the accurate
//! two-pass one and the histogram knows its range): pass 1 counts and sums, pass 2 bins and
//! sums squared deviations. All sums are `f64`, accumulated in window order; the values come
//! in as `f32` or `f64` (the types an `f32` cannot hold), widened exactly.

use serde::Serialize;

use crate::dequant::Exact;

/// Histogram bins over the finite values.
pub const HISTOGRAM_BINS: usize = 64;

/// Statistics of the window's values.
///
/// `min`, `max`, `mean`, `std`, `mean_abs` are over the finite values only (`None` when there
/// are none); `mean = Σx / n`, `mean_abs = Σ|x| / n`, `std = sqrt(Σ(x − mean)² / n)` (population,
/// numpy's `std` with `ddof=0`), every sum in `f64` in window order. `min` and `max` are exact
/// values of the stored type: an `f32`, an `f64`, an integer with all its digits, a boolean; for
/// complex values, every statistic is of the magnitude `|z|`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stats {
    /// Values in the window.
    pub count: u64,
    /// Finite values.
    pub finite: u64,
    /// Values equal to zero (`+0` or `−0`).
    pub zeros: u64,
    /// NaN values.
    pub nan: u64,
    /// `+Inf` values.
    pub pos_inf: u64,
    /// `−Inf` values.
    pub neg_inf: u64,
    /// Smallest finite value.
    pub min: Option<Exact>,
    /// Largest finite value.
    pub max: Option<Exact>,
    /// Mean of the finite values.
    pub mean: Option<f64>,
    /// Population standard deviation of the finite values.
    pub std: Option<f64>,
    /// Mean absolute value of the finite values.
    pub mean_abs: Option<f64>,
}

/// A histogram of the finite values: `HISTOGRAM_BINS` equal bins from `min` to `max`.
///
/// Value `x` goes to bin `floor((x − min) / (max − min) × bins)` computed in `f64` (clamped to
/// the last bin, so `max` is in it); all values go to bin 0 when `min == max`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Histogram {
    /// `bins + 1` edges: `edges[i] = min + (max − min) × i / bins` (`f64`); empty when there
    /// are no finite values.
    pub edges: Vec<f64>,
    /// Values per bin.
    pub counts: Vec<u64>,
}

/// Pass-1 accumulator.
#[derive(Debug, Clone, Default)]
pub(crate) struct Pass1 {
    count: u64,
    finite: u64,
    zeros: u64,
    nan: u64,
    pos_inf: u64,
    neg_inf: u64,
    min: f64,
    max: f64,
    sum: f64,
    sum_abs: f64,
}

impl Pass1 {
    pub fn new() -> Self {
        Pass1 {
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
            ..Default::default()
        }
    }

    /// Adds values in order.
    pub fn add<T: Copy + Into<f64>>(&mut self, xs: &[T]) {
        self.count += xs.len() as u64;
        for &x in xs {
            let x: f64 = x.into();
            if x.is_finite() {
                self.finite += 1;
                if x == 0.0 {
                    self.zeros += 1;
                }
                if x < self.min {
                    self.min = x;
                }
                if x > self.max {
                    self.max = x;
                }
                self.sum += x;
                self.sum_abs += x.abs();
            } else if x.is_nan() {
                self.nan += 1;
            } else if x > 0.0 {
                self.pos_inf += 1;
            } else {
                self.neg_inf += 1;
            }
        }
    }

    /// The mean of the finite values (`None` when there are none).
    pub fn mean(&self) -> Option<f64> {
        (self.finite > 0).then(|| self.sum / self.finite as f64)
    }

    /// (min, max) of the finite values.
    pub fn range(&self) -> Option<(f64, f64)> {
        (self.finite > 0).then_some((self.min, self.max))
    }
}

/// Pass-2 accumulator: squared deviations and the histogram.
#[derive(Debug, Clone)]
pub(crate) struct Pass2 {
    mean: f64,
    min: f64,
    /// `max − min` (0 when all finite values are equal).
    span: f64,
    sq: f64,
    counts: Vec<u64>,
}

impl Pass2 {
    pub fn new(p1: &Pass1) -> Self {
        let (min, max) = p1.range().unwrap_or((0.0, 0.0));
        Pass2 {
            mean: p1.mean().unwrap_or(0.0),
            min,
            span: max - min,
            sq: 0.0,
            counts: vec![0; if p1.finite > 0 { HISTOGRAM_BINS } else { 0 }],
        }
    }

    /// Adds values in order (the same values, in the same order, as pass 1).
    pub fn add<T: Copy + Into<f64>>(&mut self, xs: &[T]) {
        if self.counts.is_empty() {
            return;
        }
        let last = HISTOGRAM_BINS - 1;
        for &x in xs {
            let d: f64 = x.into();
            if !d.is_finite() {
                continue;
            }
            let dev = d - self.mean;
            self.sq += dev * dev;
            // floor((x − min) / (max − min) × bins), exactly this order of f64 operations (the
            // reference script computes the same expression with numpy).
            let k = if self.span > 0.0 {
                ((d - self.min) / self.span * HISTOGRAM_BINS as f64) as usize
            } else {
                0
            };
            self.counts[k.min(last)] += 1;
        }
    }

    /// Finishes both passes; `exact` turns the widened min and max back into the stored type's
    /// values.
    pub fn finish(self, p1: &Pass1, exact: impl Fn(f64) -> Exact) -> (Stats, Histogram) {
        let n = p1.finite as f64;
        let any = p1.finite > 0;
        let stats = Stats {
            count: p1.count,
            finite: p1.finite,
            zeros: p1.zeros,
            nan: p1.nan,
            pos_inf: p1.pos_inf,
            neg_inf: p1.neg_inf,
            min: any.then(|| exact(p1.min)),
            max: any.then(|| exact(p1.max)),
            mean: p1.mean(),
            std: any.then(|| (self.sq / n).sqrt()),
            mean_abs: any.then(|| p1.sum_abs / n),
        };
        let edges = match p1.range() {
            Some((a, b)) => (0..=HISTOGRAM_BINS)
                .map(|i| {
                    if i == HISTOGRAM_BINS {
                        b
                    } else {
                        a + (b - a) * i as f64 / HISTOGRAM_BINS as f64
                    }
                })
                .collect(),
            None => Vec::new(),
        };
        (
            stats,
            Histogram {
                edges,
                counts: self.counts,
            },
        )
    }
}

/// Statistics and histogram of `f32` values in one call (both passes).
pub fn stats_of(xs: &[f32]) -> (Stats, Histogram) {
    let mut p1 = Pass1::new();
    p1.add(xs);
    let mut p2 = Pass2::new(&p1);
    p2.add(xs);
    p2.finish(&p1, |v| Exact::F32(v as f32))
}

/// The exact smallest and largest of integer values (which `f64` holds only up to 2^53).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct IntRange {
    /// (min, max) so far.
    range: Option<(i128, i128)>,
    signed: bool,
}

impl IntRange {
    /// An empty range of signed or unsigned values.
    pub fn new(signed: bool) -> Self {
        IntRange {
            range: None,
            signed,
        }
    }

    /// Adds one value (anything but an integer is ignored).
    pub fn add(&mut self, v: Exact) {
        let v = match v {
            Exact::Int(v) => i128::from(v),
            Exact::UInt(v) => i128::from(v),
            _ => return,
        };
        self.range = Some(match self.range {
            None => (v, v),
            Some((a, b)) => (a.min(v), b.max(v)),
        });
    }

    fn exact(&self, v: i128) -> Exact {
        if self.signed {
            Exact::Int(i64::try_from(v).unwrap_or_default())
        } else {
            Exact::UInt(u64::try_from(v).unwrap_or_default())
        }
    }

    /// (min, max) as the stored type's values, `None` when no value was added.
    pub fn min_max(&self) -> Option<(Exact, Exact)> {
        self.range.map(|(a, b)| (self.exact(a), self.exact(b)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_specials_and_skips_them_in_sums() {
        let xs = [
            1.0,
            -0.0,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            3.0,
            0.0,
        ];
        let (s, h) = stats_of(&xs);
        assert_eq!(
            (s.count, s.finite, s.zeros, s.nan, s.pos_inf, s.neg_inf),
            (7, 4, 2, 1, 1, 1)
        );
        assert_eq!(
            (s.min, s.max),
            (Some(Exact::F32(-0.0)), Some(Exact::F32(3.0)))
        );
        assert_eq!(s.mean, Some(1.0));
        assert_eq!(s.mean_abs, Some(1.0));
        assert_eq!(s.std, Some(((0.0 + 1.0 + 1.0 + 4.0) / 4.0f64).sqrt()));
        assert_eq!(h.counts.iter().sum::<u64>(), 4);
        assert_eq!(h.counts[HISTOGRAM_BINS - 1], 1);
        assert_eq!(h.edges.len(), HISTOGRAM_BINS + 1);
        assert_eq!(h.edges[HISTOGRAM_BINS], 3.0);
    }

    #[test]
    fn no_finite_values_and_constant_values() {
        let (s, h) = stats_of(&[f32::NAN, f32::NAN]);
        assert_eq!((s.min, s.mean, s.std), (None, None, None));
        assert!(h.counts.is_empty() && h.edges.is_empty());
        let (s, h) = stats_of(&[2.5; 10]);
        assert_eq!(
            (s.min, s.max, s.std),
            (Some(Exact::F32(2.5)), Some(Exact::F32(2.5)), Some(0.0))
        );
        assert_eq!(h.counts[0], 10);
        let (s, _) = stats_of(&[]);
        assert_eq!((s.count, s.mean), (0, None));
    }
}
