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

/// Whole F16 tensors. On x86 and aarch64 the `half` crate converts slices with the CPU's
/// F16C / FP16 instructions when present (detected at run time), 8 values per instruction.
/// Those quiet signalling NaNs (set the top mantissa bit), while numpy — the reference — keeps
/// the payload as stored, so each chunk whose input holds a NaN has those lanes rewritten with
/// [`f16_to_f32`]. Elsewhere (wasm) the branch-free [`f16_to_f32`] loop vectorises by itself.
pub(super) fn f16_le(bytes: &[u8], out: &mut [f32]) {
    #[cfg(any(target_arch = "x86", target_arch = "x86_64", target_arch = "aarch64"))]
    {
        use half::slice::{HalfBitsSliceExt, HalfFloatSliceExt};
        const CHUNK: usize = 512;
        let mut bits = [0u16; CHUNK];
        for (b, o) in bytes.chunks(2 * CHUNK).zip(out.chunks_mut(CHUNK)) {
            let bits = &mut bits[..o.len()];
            for (h, b) in bits.iter_mut().zip(b.chunks_exact(2)) {
                *h = u16::from_le_bytes([b[0], b[1]]);
            }
            let halves: &[half::f16] = bits.reinterpret_cast();
            halves.convert_to_f32_slice(o);
            let is_nan = |h: u16| h & 0x7FFF > 0x7C00;
            if bits.iter().fold(false, |any, &h| any | is_nan(h)) {
                for (o, &h) in o.iter_mut().zip(bits.iter()) {
                    if is_nan(h) {
                        *o = f16_to_f32(h);
                    }
                }
            }
        }
    }
    #[cfg(not(any(target_arch = "x86", target_arch = "x86_64", target_arch = "aarch64")))]
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
    fn f16_slices_keep_nan_payloads() {
        // Every pattern, twice over and at an odd length, through the slice path (F16C where the
        // CPU has it): the same bits as the scalar conversion, signalling NaNs included.
        let all: Vec<u8> = (0..=u16::MAX)
            .chain(0..=u16::MAX)
            .flat_map(u16::to_le_bytes)
            .collect();
        let bytes = &all[2..];
        let mut out = vec![0f32; bytes.len() / 2];
        f16_le(bytes, &mut out);
        for (i, (o, b)) in out.iter().zip(bytes.chunks_exact(2)).enumerate() {
            let h = u16::from_le_bytes([b[0], b[1]]);
            assert_eq!(o.to_bits(), f16_to_f32(h).to_bits(), "{i}: {h:#06x}");
        }
    }
}
