//! The fused path of F16 and BF16 ([`super::Fast::Table`]): every value counted by its 16-bit
//! pattern, the table summed up (exactly the values, weighted by their counts) when the tensor
//! is done or the counts could overflow.
#![forbid(unsafe_code)]

use crate::dequant::f16_to_f32;
use crate::scan::stats::{bin_of, Accumulator, Part};

/// F16 or BF16 values counted by bit pattern, summed up when the tensor is done.
#[derive(Debug)]
pub struct Table16 {
    counts: Box<[u32; 65536]>,
    /// Values counted since the last flush (kept below `u32::MAX`).
    pending: u64,
    bf16: bool,
    /// The first zero counted since the last flush, as stored (its sign decides a zero min or
    /// max, as the first zero does value by value).
    first_zero: Option<u16>,
}

impl Table16 {
    pub(super) fn new(bf16: bool) -> Table16 {
        Table16 {
            counts: vec![0u32; 65536]
                .into_boxed_slice()
                .try_into()
                .unwrap_or_else(|_| Box::new([0; 65536])),
            pending: 0,
            bf16,
            first_zero: None,
        }
    }

    #[inline(always)]
    fn value(&self, h: u16) -> f32 {
        if self.bf16 {
            f32::from_bits(u32::from(h) << 16)
        } else {
            f16_to_f32(h)
        }
    }

    #[inline(always)]
    pub(super) fn add_run(&mut self, run: &[u8], acc: &mut Accumulator) -> bool {
        let special = if self.bf16 { 0x7F80 } else { 0x7C00 };
        let halves = run
            .chunks_exact(2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]));
        if halves
            .clone()
            .fold(false, |any, h| any | (h & special == special))
        {
            return false;
        }
        let n = (run.len() / 2) as u64;
        if self.pending + n >= u64::from(u32::MAX) {
            self.flush(acc);
        }
        self.pending += n;
        for h in halves.clone() {
            self.counts[usize::from(h)] += 1;
        }
        if self.first_zero.is_none() && self.counts[0] + self.counts[0x8000] > 0 {
            self.first_zero = halves.clone().find(|h| h & 0x7FFF == 0);
        }
        true
    }

    /// Adds the counted values to `acc` (one run: its exact sums over the distinct values, two
    /// passes) and empties the table.
    pub(super) fn flush(&mut self, acc: &mut Accumulator) {
        if self.pending == 0 {
            return;
        }
        let present: Vec<(f64, u32)> = (0..=u16::MAX)
            .filter(|&h| h & 0x7FFF != 0)
            .filter_map(|h| {
                let c = self.counts[usize::from(h)];
                (c > 0).then(|| (f64::from(self.value(h)), c))
            })
            .collect();
        let zeros = u64::from(self.counts[0]) + u64::from(self.counts[0x8000]);
        let n = self.pending;
        let mut p = Part {
            count: n,
            finite: n,
            zeros,
            ..Part::default()
        };
        let sum: f64 = present.iter().map(|&(v, c)| v * f64::from(c)).sum();
        p.mean = sum / n as f64;
        for &(v, c) in &present {
            let d = v - p.mean;
            p.m2 += f64::from(c) * d * d;
            p.magnitudes[bin_of(v)] += u64::from(c);
            if v < p.min {
                p.min = v;
            }
            if v > p.max {
                p.max = v;
            }
        }
        // Zeros (counted apart above): their deviations, and the first one is the extreme when
        // no value is beyond it.
        if zeros > 0 {
            let z = f64::from(self.value(self.first_zero.unwrap_or(0)));
            p.m2 += zeros as f64 * p.mean * p.mean;
            if z < p.min {
                p.min = z;
            }
            if z > p.max {
                p.max = z;
            }
        }
        acc.add_part(&p);
        self.counts.fill(0);
        self.pending = 0;
        self.first_zero = None;
    }
}
