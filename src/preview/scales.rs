//! Per-block scales of block-quantised ggml types: the stored scale field `d` of every block in
//! the window, read straight from the bytes (no decoding), as its own grid.
//!
//! Field positions are the `block_*` structs of ggml/src/ggml-common.h (for K-quants, the
//! super-block scale `d`; the 6-bit sub-block scales are not shown).

use crate::dequant::f16_to_f32;

/// Where a type's block scale is stored, and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScaleField {
    /// An IEEE half at this byte offset of the block.
    F16(usize),
    /// An IEEE single at this byte offset (Q8_K).
    F32(usize),
    /// An E8M0 exponent byte at this offset: `2^(e − 127)`, as ggml's `e8m0_to_fp32_half × 2`
    /// (MXFP4).
    E8M0(usize),
}

/// The block-scale field of a ggml type id, or `None` for plain types and for types whose scale
/// is not a single field (IQ1_M spreads it over four nibbles; NVFP4 has one per 16 values).
pub fn scale_field(type_id: u32) -> Option<(ScaleField, &'static str)> {
    use ScaleField::*;
    Some(match type_id {
        2 | 3 | 6 | 7 | 8 | 9 => (F16(0), "d (f16 at byte 0)"),
        41 | 42 => (F16(0), "d (f16 at byte 0)"),
        12 | 13 => (F16(0), "super-block d (f16 at byte 0)"),
        10 => (F16(80), "super-block d (f16 at byte 80)"),
        11 => (F16(108), "super-block d (f16 at byte 108)"),
        14 => (F16(208), "super-block d (f16 at byte 208)"),
        15 => (F32(0), "d (f32 at byte 0)"),
        16..=23 => (F16(0), "d (f16 at byte 0)"),
        34 => (F16(52), "d (f16 at byte 52)"),
        35 => (F16(64), "d (f16 at byte 64)"),
        39 => (E8M0(0), "e (E8M0 at byte 0)"),
        _ => return None,
    })
}

/// Reads one block's scale; `block` is at least the block's size (the caller slices whole
/// blocks), otherwise NaN.
pub fn read_scale(field: ScaleField, block: &[u8]) -> f32 {
    match field {
        ScaleField::F16(o) => match block.get(o..o + 2) {
            Some(b) => f16_to_f32(u16::from_le_bytes([b[0], b[1]])),
            None => f32::NAN,
        },
        ScaleField::F32(o) => match block.get(o..o + 4) {
            Some(b) => f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            None => f32::NAN,
        },
        ScaleField::E8M0(o) => match block.get(o) {
            // 2^(e−127); e = 0 is 2^−127 (a subnormal f32), 255 is NaN in E8M0.
            Some(255) => f32::NAN,
            Some(0) => f32::from_bits(0x0040_0000),
            Some(&e) => f32::from_bits(u32::from(e) << 23),
            None => f32::NAN,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_match_the_block_layouts() {
        // Q4_K: {f16 d; f16 dmin; u8 scales[12]; u8 qs[128]}.
        let mut b = vec![0u8; 144];
        b[0..2].copy_from_slice(&0x3C00u16.to_le_bytes());
        assert_eq!(read_scale(scale_field(12).unwrap().0, &b), 1.0);
        // Q6_K: {u8 ql[128]; u8 qh[64]; i8 scales[16]; f16 d}.
        let mut b = vec![0u8; 210];
        b[208..210].copy_from_slice(&0xC000u16.to_le_bytes());
        assert_eq!(read_scale(scale_field(14).unwrap().0, &b), -2.0);
        assert_eq!(read_scale(ScaleField::E8M0(0), &[127]), 1.0);
        assert_eq!(read_scale(ScaleField::E8M0(0), &[128]), 2.0);
        assert!(read_scale(ScaleField::F16(4), &[0; 5]).is_nan());
        assert!(scale_field(0).is_none() && scale_field(29).is_none());
    }
}
