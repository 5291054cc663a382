//! Ternary and 1/2-bit types: TQ1_0, TQ2_0 (256 values), Q1_0 (128 values), Q2_0 (64 values).
//!
//! Layouts from ggml/src/ggml-common.h (`block_tq1_0`, `block_tq2_0`, `block_q1_0`,
//! `block_q2_0`), decode from ggml/src/ggml-quants.c (`dequantize_row_tq1_0`,
//! `dequantize_row_tq2_0`, `dequantize_row_q1_0`, `dequantize_row_q2_0`).

use super::{blocks, f16_at};

/// One base-3 digit of a TQ1_0 byte: the byte holds a fixed-point fraction whose n-th ternary
/// digit comes out as `((q·3ⁿ mod 256) · 3) >> 8`. Returns digit − 1 as f32.
#[inline]
fn trit(q: u8, pow3: u8) -> f32 {
    let q = q.wrapping_mul(pow3);
    let xi = (u16::from(q) * 3) >> 8;
    f32::from(xi as i16 - 1)
}

const POW3: [u8; 6] = [1, 3, 9, 27, 81, 243];

/// `block_tq1_0`: 48 bytes of 5 trits each, 4 bytes of 4 trits each, f16 d (54 B / 256).
/// Values in order: bytes 0..32 digit by digit (5 × 32), bytes 32..48 (5 × 16), then the 4
/// `qh` bytes (4 × 4). y = (t − 1)·d.
pub(super) fn tq1_0(bytes: &[u8], out: &mut [f32]) {
    for (b, y) in blocks::<54, 256>(bytes, out) {
        let d = f16_at(b, 52);
        let mut k = 0;
        for (start, len) in [(0usize, 32usize), (32, 16)] {
            for &p in &POW3[..5] {
                for m in 0..len {
                    y[k] = trit(b[start + m], p) * d;
                    k += 1;
                }
            }
        }
        for &p in &POW3[..4] {
            for j in 0..4 {
                y[k] = trit(b[48 + j], p) * d;
                k += 1;
            }
        }
    }
}

/// `block_tq2_0`: 64 bytes of 2-bit values, f16 d (66 B / 256). Per 32 bytes, four passes over
/// bit pairs 0, 2, 4, 6. y = (q − 1)·d.
pub(super) fn tq2_0(bytes: &[u8], out: &mut [f32]) {
    for (b, y) in blocks::<66, 256>(bytes, out) {
        let d = f16_at(b, 64);
        let mut k = 0;
        for j in [0usize, 32] {
            for l in 0..4 {
                for m in 0..32 {
                    let q = (b[j + m] >> (2 * l)) & 3;
                    y[k] = f32::from(i16::from(q) - 1) * d;
                    k += 1;
                }
            }
        }
    }
}

/// `block_q1_0`: f16 d, 16 bytes = 128 sign bits, LSB first (18 B / 128). y = bit ? d : −d.
/// (−d is d with the sign bit flipped, so each byte is eight xors of d's bits.)
pub(super) fn q1_0(bytes: &[u8], out: &mut [f32]) {
    for (b, y) in blocks::<18, 128>(bytes, out) {
        let d = f16_at(b, 0).to_bits();
        for (y, &q) in y.chunks_exact_mut(8).zip(&b[2..]) {
            let neg = u32::from(!q);
            for (k, o) in y.iter_mut().enumerate() {
                *o = f32::from_bits(d ^ (((neg >> k) & 1) << 31));
            }
        }
    }
}

/// `block_q2_0`: f16 d, 16 bytes of 2-bit codes, lowest bits first (18 B / 64).
/// Codes 0, 1, 2, 3 mean −1, 0, +1, +2: y = (q − 1)·d.
pub(super) fn q2_0(bytes: &[u8], out: &mut [f32]) {
    for (b, y) in blocks::<18, 64>(bytes, out) {
        let d = f16_at(b, 0);
        for (y, &q) in y.chunks_exact_mut(4).zip(&b[2..]) {
            for (k, o) in y.iter_mut().enumerate() {
                let c = (q >> (2 * k)) & 3;
                *o = f32::from(i16::from(c) - 1) * d;
            }
        }
    }
}
