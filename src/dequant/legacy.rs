//! ggml's first block formats, 32 values per block: Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q8_1.
//!
//! Layouts from ggml/src/ggml-common.h (`block_q4_0` …), decode from ggml/src/ggml-quants.c
//! (`dequantize_row_q4_0` …). The first half of a block's values come from the low nibbles, the
//! second half from the high nibbles. Products are `f32(q) * d` and `f32(q) * d + m`, rounded
//! after each operation (no fused multiply-add), exactly as the C reference.

use super::{blocks, f16_at};

/// `block_q4_0`: f16 d, 16 bytes of nibbles (18 B / 32). y = (q − 8)·d.
pub(super) fn q4_0(bytes: &[u8], out: &mut [f32]) {
    for (b, y) in blocks::<18, 32>(bytes, out) {
        let d = f16_at(b, 0);
        for j in 0..16 {
            let q = b[2 + j];
            y[j] = f32::from(i16::from(q & 0x0F) - 8) * d;
            y[j + 16] = f32::from(i16::from(q >> 4) - 8) * d;
        }
    }
}

/// `block_q4_1`: f16 d, f16 m, 16 bytes of nibbles (20 B / 32). y = q·d + m.
pub(super) fn q4_1(bytes: &[u8], out: &mut [f32]) {
    for (b, y) in blocks::<20, 32>(bytes, out) {
        let d = f16_at(b, 0);
        let m = f16_at(b, 2);
        for j in 0..16 {
            let q = b[4 + j];
            y[j] = f32::from(q & 0x0F) * d + m;
            y[j + 16] = f32::from(q >> 4) * d + m;
        }
    }
}

/// The fifth bits of Q5 blocks: bit j of the little-endian u32 `qh` goes to value j.
#[inline]
fn fifth_bits(qh: u32, j: usize) -> (u8, u8) {
    let h0 = (((qh >> j) << 4) & 0x10) as u8;
    let h1 = ((qh >> (j + 12)) & 0x10) as u8;
    (h0, h1)
}

/// `block_q5_0`: f16 d, u32 qh, 16 bytes of nibbles (22 B / 32). y = (q − 16)·d.
pub(super) fn q5_0(bytes: &[u8], out: &mut [f32]) {
    for (b, y) in blocks::<22, 32>(bytes, out) {
        let d = f16_at(b, 0);
        let qh = u32::from_le_bytes([b[2], b[3], b[4], b[5]]);
        for j in 0..16 {
            let q = b[6 + j];
            let (h0, h1) = fifth_bits(qh, j);
            y[j] = f32::from(i16::from((q & 0x0F) | h0) - 16) * d;
            y[j + 16] = f32::from(i16::from((q >> 4) | h1) - 16) * d;
        }
    }
}

/// `block_q5_1`: f16 d, f16 m, u32 qh, 16 bytes of nibbles (24 B / 32). y = q·d + m.
pub(super) fn q5_1(bytes: &[u8], out: &mut [f32]) {
    for (b, y) in blocks::<24, 32>(bytes, out) {
        let d = f16_at(b, 0);
        let m = f16_at(b, 2);
        let qh = u32::from_le_bytes([b[4], b[5], b[6], b[7]]);
        for j in 0..16 {
            let q = b[8 + j];
            let (h0, h1) = fifth_bits(qh, j);
            y[j] = f32::from((q & 0x0F) | h0) * d + m;
            y[j + 16] = f32::from((q >> 4) | h1) * d + m;
        }
    }
}

/// `block_q8_0`: f16 d, 32 × i8 (34 B / 32). y = q·d.
pub(super) fn q8_0(bytes: &[u8], out: &mut [f32]) {
    for (b, y) in blocks::<34, 32>(bytes, out) {
        let d = f16_at(b, 0);
        for j in 0..32 {
            y[j] = f32::from(b[2 + j] as i8) * d;
        }
    }
}

/// `block_q8_1`: f16 d, f16 s (= d·Σq, unused here), 32 × i8 (36 B / 32). y = q·d.
///
/// ggml has no `dequantize_row_q8_1` (Q8_1 is the activation format its dot products
/// quantise to); this follows the block's definition ("d: delta, qs: quants"), the same
/// product as `dequantize_row_q8_0`.
pub(super) fn q8_1(bytes: &[u8], out: &mut [f32]) {
    for (b, y) in blocks::<36, 32>(bytes, out) {
        let d = f16_at(b, 0);
        for j in 0..32 {
            y[j] = f32::from(b[4 + j] as i8) * d;
        }
    }
}
