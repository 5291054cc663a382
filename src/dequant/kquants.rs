//! K-quants, super-blocks of 256 values: Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, Q8_K.
//!
//! Layouts from ggml/src/ggml-common.h (`block_q2_K` … `block_q8_K`), decode from
//! ggml/src/ggml-quants.c (`dequantize_row_q2_K` … `dequantize_row_q8_K`), keeping the C
//! order of operations: the sub-block scale is formed first (`d · sc`), then multiplied by the
//! quant, then the min subtracted, each rounded to f32.

use super::{blocks, f16_at};

/// Q4_K / Q5_K: the 6-bit scale and min of sub-block `j` (0..8) from the 12 packed bytes
/// (ggml's `get_scale_min_k4`).
#[inline]
fn scale_min_k4(j: usize, q: &[u8; 12]) -> (u8, u8) {
    if j < 4 {
        (q[j] & 63, q[j + 4] & 63)
    } else {
        (
            (q[j + 4] & 0x0F) | ((q[j - 4] >> 6) << 4),
            (q[j + 4] >> 4) | ((q[j] >> 6) << 4),
        )
    }
}

fn scales12<const N: usize>(b: &[u8; N], at: usize) -> [u8; 12] {
    let mut s = [0u8; 12];
    s.copy_from_slice(&b[at..at + 12]);
    s
}

/// `block_q2_K`: 16 scale bytes (low nibble scale, high nibble min), 64 bytes of 2-bit quants,
/// f16 d, f16 dmin (84 B / 256). y = (d·sc)·q − dmin·m.
pub(super) fn q2_k(bytes: &[u8], out: &mut [f32]) {
    for (b, y) in blocks::<84, 256>(bytes, out) {
        let d = f16_at(b, 80);
        let min = f16_at(b, 82);
        // Group g (0..16) of 16 values: scale byte g, quant bytes 16 + 32·(g / 8) + 16·(g % 2),
        // bit pair (g / 2) % 4.
        for g in 0..16 {
            let sc = b[g];
            let dl = d * f32::from(sc & 0x0F);
            let ml = min * f32::from(sc >> 4);
            let q = 16 + 32 * (g / 8) + 16 * (g % 2);
            let shift = 2 * ((g / 2) % 4);
            let o = 16 * g;
            for l in 0..16 {
                let v = (b[q + l] >> shift) & 3;
                y[o + l] = dl * f32::from(v) - ml;
            }
        }
    }
}

/// `block_q3_K`: 32 bytes high-bit mask, 64 bytes of 2-bit quants, 12 bytes of 6-bit scales,
/// f16 d (110 B / 256). y = (d·(sc − 32))·(q − (hbit ? 0 : 4)).
pub(super) fn q3_k(bytes: &[u8], out: &mut [f32]) {
    const KMASK1: u32 = 0x0303_0303;
    const KMASK2: u32 = 0x0f0f_0f0f;
    for (b, y) in blocks::<110, 256>(bytes, out) {
        let d_all = f16_at(b, 108);
        let word = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        let (a0, a1, tmp) = (word(96), word(100), word(104));
        let aux = [
            (a0 & KMASK2) | ((tmp & KMASK1) << 4),
            (a1 & KMASK2) | (((tmp >> 2) & KMASK1) << 4),
            ((a0 >> 4) & KMASK2) | (((tmp >> 4) & KMASK1) << 4),
            ((a1 >> 4) & KMASK2) | (((tmp >> 6) & KMASK1) << 4),
        ];
        let mut scales = [0i8; 16];
        for (i, w) in aux.iter().enumerate() {
            for (k, byte) in w.to_le_bytes().iter().enumerate() {
                scales[4 * i + k] = *byte as i8;
            }
        }
        // Group g (0..16) of 16 values: scale g, quant bytes 32 + 32·(g / 8) + 16·(g % 2), bit
        // pair (g / 2) % 4, and bit g / 2 of hmask bytes 16·(g % 2) as the high bit.
        for (g, &sc) in scales.iter().enumerate() {
            let dl = d_all * f32::from(i16::from(sc) - 32);
            let q = 32 + 32 * (g / 8) + 16 * (g % 2);
            let h = 16 * (g % 2);
            let shift = 2 * ((g / 2) % 4);
            let m = 1u8 << (g / 2);
            let o = 16 * g;
            for l in 0..16 {
                let lo = i16::from((b[q + l] >> shift) & 3);
                let hi = if b[h + l] & m != 0 { 0 } else { 4 };
                y[o + l] = dl * f32::from(lo - hi);
            }
        }
    }
}

/// `block_q4_K`: f16 d, f16 dmin, 12 bytes of 6-bit scales/mins, 128 bytes of nibbles
/// (144 B / 256). y = (d·sc)·q − dmin·m, 64 values per pair of sub-blocks.
pub(super) fn q4_k(bytes: &[u8], out: &mut [f32]) {
    for (b, y) in blocks::<144, 256>(bytes, out) {
        let d = f16_at(b, 0);
        let min = f16_at(b, 2);
        let sc = scales12(b, 4);
        for p in 0..4 {
            let (s1, m1) = scale_min_k4(2 * p, &sc);
            let (s2, m2) = scale_min_k4(2 * p + 1, &sc);
            let (d1, m1) = (d * f32::from(s1), min * f32::from(m1));
            let (d2, m2) = (d * f32::from(s2), min * f32::from(m2));
            let q = 16 + 32 * p;
            let o = 64 * p;
            for l in 0..32 {
                y[o + l] = d1 * f32::from(b[q + l] & 0x0F) - m1;
                y[o + 32 + l] = d2 * f32::from(b[q + l] >> 4) - m2;
            }
        }
    }
}

/// `block_q5_K`: f16 d, f16 dmin, 12 bytes of scales/mins, 32 bytes of fifth bits, 128 bytes of
/// nibbles (176 B / 256). y = (d·sc)·(q + 16·hbit) − dmin·m.
pub(super) fn q5_k(bytes: &[u8], out: &mut [f32]) {
    for (b, y) in blocks::<176, 256>(bytes, out) {
        let d = f16_at(b, 0);
        let min = f16_at(b, 2);
        let sc = scales12(b, 4);
        for p in 0..4 {
            let (s1, m1) = scale_min_k4(2 * p, &sc);
            let (s2, m2) = scale_min_k4(2 * p + 1, &sc);
            let (d1, m1) = (d * f32::from(s1), min * f32::from(m1));
            let (d2, m2) = (d * f32::from(s2), min * f32::from(m2));
            let u1 = 1u8 << (2 * p);
            let u2 = 2u8 << (2 * p);
            let ql = 48 + 32 * p;
            let o = 64 * p;
            for l in 0..32 {
                let qh = b[16 + l];
                let h1 = if qh & u1 != 0 { 16 } else { 0 };
                let h2 = if qh & u2 != 0 { 16 } else { 0 };
                y[o + l] = d1 * f32::from((b[ql + l] & 0x0F) + h1) - m1;
                y[o + 32 + l] = d2 * f32::from((b[ql + l] >> 4) + h2) - m2;
            }
        }
    }
}

/// `block_q6_K`: 128 bytes low nibbles, 64 bytes of 2-bit highs, 16 × i8 scales, f16 d
/// (210 B / 256). y = (d·sc)·(q − 32).
pub(super) fn q6_k(bytes: &[u8], out: &mut [f32]) {
    for (b, y) in blocks::<210, 256>(bytes, out) {
        let d = f16_at(b, 208);
        for n in 0..2 {
            let ql = 64 * n;
            let qh = 128 + 32 * n;
            let sc = 192 + 8 * n;
            let o = 128 * n;
            for l in 0..32 {
                let is = l / 16;
                let h = b[qh + l];
                let q1 = ((b[ql + l] & 0x0F) | ((h & 3) << 4)) as i8 - 32;
                let q2 = ((b[ql + l + 32] & 0x0F) | (((h >> 2) & 3) << 4)) as i8 - 32;
                let q3 = ((b[ql + l] >> 4) | (((h >> 4) & 3) << 4)) as i8 - 32;
                let q4 = ((b[ql + l + 32] >> 4) | (((h >> 6) & 3) << 4)) as i8 - 32;
                let s = |k: usize| d * f32::from(b[sc + is + k] as i8);
                y[o + l] = s(0) * f32::from(q1);
                y[o + l + 32] = s(2) * f32::from(q2);
                y[o + l + 64] = s(4) * f32::from(q3);
                y[o + l + 96] = s(6) * f32::from(q4);
            }
        }
    }
}

/// `block_q8_K`: f32 d, 256 × i8, 16 × i16 bsums (292 B / 256). y = d·q.
///
/// Q8_K is ggml's activation format for K-quant dot products; its `dequantize_row_q8_K`
/// exists in ggml-quants.c although the type has no `to_float` in ggml.c's type traits.
pub(super) fn q8_k(bytes: &[u8], out: &mut [f32]) {
    for (b, y) in blocks::<292, 256>(bytes, out) {
        let d = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        for j in 0..256 {
            y[j] = d * f32::from(b[4 + j] as i8);
        }
    }
}
