//! Plain (one value per element) ggml types: F32, F16, BF16, F64, I8, I16, I32, I64, in either
//! byte order (GGUF files may be big-endian; ggml's own big-endian support byte-swaps exactly
//! these types).
//!
//! ggml: F16 via `ggml_fp16_to_fp32_row`, BF16 via `ggml_bf16_to_fp32_row` (bits << 16), both in
//! ggml/src/ggml.c; F64 and the integer types have no `to_float` in ggml and convert to the
//! nearest `f32` (Rust `as`, round to nearest even), which is numpy's `astype(float32)`.

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

/// IEEE half → f32 without branches, for whole tensors (it vectorises; `half`'s scalar
/// conversion branches per value). Same results as [`super::f16_to_f32`] for all 65536 inputs (tested):
/// normal values rebias the exponent, subnormals are `(2⁻¹⁴ + m·2⁻²⁴) − 2⁻¹⁴` (exact), Inf/NaN
/// keep their payload.
#[inline]
pub(crate) fn f16_to_f32_bulk(h: u16) -> f32 {
    let h = u32::from(h);
    let sign = (h & 0x8000) << 16;
    let shifted = (h & 0x7FFF) << 13;
    let exp = shifted & 0x0F80_0000;
    let mask = |c: bool| 0u32.wrapping_sub(u32::from(c));
    // Rebias (+112 in the exponent); Inf/NaN get another +112 to reach 255.
    let o = shifted + 0x3800_0000 + (mask(exp == 0x0F80_0000) & 0x3800_0000);
    let sub = (f32::from_bits(o + 0x0080_0000) - f32::from_bits(0x3880_0000)).to_bits();
    let is_sub = mask(exp == 0);
    f32::from_bits(((sub & is_sub) | (o & !is_sub)) | sign)
}

pub(super) fn f16_le(bytes: &[u8], out: &mut [f32]) {
    // Eight at a time over fixed-size arrays, so the loop body is branch-free and vectorises.
    let mut src = bytes.chunks_exact(16);
    let mut dst = out.chunks_exact_mut(8);
    for (b, o) in (&mut src).zip(&mut dst) {
        if let (Ok(b), Ok(o)) = (<&[u8; 16]>::try_from(b), <&mut [f32; 8]>::try_from(o)) {
            for i in 0..8 {
                o[i] = f16_to_f32_bulk(u16::from_le_bytes([b[2 * i], b[2 * i + 1]]));
            }
        }
    }
    each(src.remainder(), dst.into_remainder(), |b| {
        f16_to_f32_bulk(u16::from_le_bytes(b))
    });
}

pub(super) fn f16_be(bytes: &[u8], out: &mut [f32]) {
    each(bytes, out, |b| f16_to_f32_bulk(u16::from_be_bytes(b)));
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
    use super::super::f16_to_f32;
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
    fn bulk_f16_equals_scalar_for_every_pattern() {
        for h in 0..=u16::MAX {
            assert_eq!(
                f16_to_f32_bulk(h).to_bits(),
                f16_to_f32(h).to_bits(),
                "{h:#06x}"
            );
        }
    }

    #[test]
    fn f16_nan_keeps_payload() {
        // Signalling NaN 0x7c01 widens to 0x7f802000 (numpy), not 0x7fc02000 (quieted).
        assert_eq!(f16_to_f32(0x7c01).to_bits(), 0x7f80_2000);
        assert_eq!(f16_to_f32(0xfe00).to_bits(), 0xffc0_0000);
        assert_eq!(f16_to_f32(0x7c00), f32::INFINITY);
    }
}
