//! Plain (one value per element) ggml types: F32, F16, BF16, F64, I8, I16, I32, I64, in either
//! byte order (GGUF files may be big-endian; ggml's own big-endian support byte-swaps exactly
//! these types).
//!
//! ggml: F16 via `ggml_fp16_to_fp32_row`, BF16 via `ggml_bf16_to_fp32_row` (bits << 16), both in
//! ggml/src/ggml.c; F64 and the integer types have no `to_float` in ggml and convert to the
//! nearest `f32` (Rust `as`, round to nearest even), which is numpy's `astype(float32)`.

use super::f16_to_f32;

/// Decodes fixed-size little/big-endian elements of `N` bytes with `conv`.
#[inline]
fn each<const N: usize>(bytes: &[u8], out: &mut [f32], conv: impl Fn([u8; N]) -> f32) {
    for (b, o) in bytes.chunks_exact(N).zip(out.iter_mut()) {
        if let Ok(a) = <[u8; N]>::try_from(b) {
            *o = conv(a);
        }
    }
}

pub(super) fn f32_le(bytes: &[u8], out: &mut [f32]) {
    each(bytes, out, f32::from_le_bytes);
}

pub(super) fn f32_be(bytes: &[u8], out: &mut [f32]) {
    each(bytes, out, f32::from_be_bytes);
}

pub(super) fn f16_le(bytes: &[u8], out: &mut [f32]) {
    each(bytes, out, |b| f16_to_f32(u16::from_le_bytes(b)));
}

pub(super) fn f16_be(bytes: &[u8], out: &mut [f32]) {
    each(bytes, out, |b| f16_to_f32(u16::from_be_bytes(b)));
}

pub(super) fn bf16_le(bytes: &[u8], out: &mut [f32]) {
    each(bytes, out, |b| {
        f32::from_bits(u32::from(u16::from_le_bytes(b)) << 16)
    });
}

pub(super) fn bf16_be(bytes: &[u8], out: &mut [f32]) {
    each(bytes, out, |b| {
        f32::from_bits(u32::from(u16::from_be_bytes(b)) << 16)
    });
}

pub(super) fn f64_le(bytes: &[u8], out: &mut [f32]) {
    each(bytes, out, |b| f64::from_le_bytes(b) as f32);
}

pub(super) fn f64_be(bytes: &[u8], out: &mut [f32]) {
    each(bytes, out, |b| f64::from_be_bytes(b) as f32);
}

pub(super) fn i8(bytes: &[u8], out: &mut [f32]) {
    each(bytes, out, |b| f32::from(i8::from_le_bytes(b)));
}

pub(super) fn i16_le(bytes: &[u8], out: &mut [f32]) {
    each(bytes, out, |b| f32::from(i16::from_le_bytes(b)));
}

pub(super) fn i16_be(bytes: &[u8], out: &mut [f32]) {
    each(bytes, out, |b| f32::from(i16::from_be_bytes(b)));
}

pub(super) fn i32_le(bytes: &[u8], out: &mut [f32]) {
    each(bytes, out, |b| i32::from_le_bytes(b) as f32);
}

pub(super) fn i32_be(bytes: &[u8], out: &mut [f32]) {
    each(bytes, out, |b| i32::from_be_bytes(b) as f32);
}

pub(super) fn i64_le(bytes: &[u8], out: &mut [f32]) {
    each(bytes, out, |b| i64::from_le_bytes(b) as f32);
}

pub(super) fn i64_be(bytes: &[u8], out: &mut [f32]) {
    each(bytes, out, |b| i64::from_be_bytes(b) as f32);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_byte_orders() {
        let mut le = [0f32; 2];
        let mut be = [0f32; 2];
        f32_le(&[0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0], &mut le);
        f32_be(&[0x3f, 0x80, 0, 0, 0xc0, 0, 0, 0], &mut be);
        assert_eq!(le, [1.0, -2.0]);
        assert_eq!(be, le);
        f16_le(&[0x00, 0x3c, 0x01, 0x00], &mut le);
        assert_eq!(le, [1.0, 2f32.powi(-24)]);
        f16_be(&[0x3c, 0x00, 0x00, 0x01], &mut be);
        assert_eq!(be, le);
        bf16_be(&[0x3f, 0x80, 0xc0, 0x00], &mut be);
        assert_eq!(be, [1.0, -2.0]);
        i64_le(&[0xff; 16], &mut le);
        assert_eq!(le, [-1.0, -1.0]);
        i16_be(&[0x80, 0x00, 0x00, 0x07], &mut be);
        assert_eq!(be, [-32768.0, 7.0]);
    }

    #[test]
    fn f16_nan_keeps_payload() {
        // Signalling NaN 0x7c01 widens to 0x7f802000 (numpy), not 0x7fc02000 (quieted).
        assert_eq!(f16_to_f32(0x7c01).to_bits(), 0x7f80_2000);
        assert_eq!(f16_to_f32(0xfe00).to_bits(), 0xffc0_0000);
        assert_eq!(f16_to_f32(0x7c00), f32::INFINITY);
    }
}
