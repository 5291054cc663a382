//! FP4 (E2M1) block types: MXFP4 (32 values, E8M0 scale) and NVFP4 (64 values, four UE4M3
//! scales of 16 values each).
//!
//! Layouts from ggml/src/ggml-common.h (`block_mxfp4`, `block_nvfp4`), decode from
//! ggml/src/ggml-quants.c (`dequantize_row_mxfp4`, `dequantize_row_nvfp4`) with the scale
//! conversions of ggml/src/ggml-impl.h (`ggml_e8m0_to_fp32_half`, `ggml_ue4m3_to_fp32`). ggml's
//! `kvalues_mxfp4` are the E2M1 values doubled, and both scale conversions halve to match.

use super::blocks;
use super::grids::KVALUES_MXFP4;

/// `ggml_e8m0_to_fp32_half`: 2^(e − 128) as f32 bits, including the two subnormal cases.
#[inline]
pub(crate) fn e8m0_half(e: u8) -> f32 {
    let bits = if e < 2 {
        0x0020_0000u32 << e
    } else {
        u32::from(e - 1) << 23
    };
    f32::from_bits(bits)
}

/// `ggml_ue4m3_to_fp32`: unsigned E4M3 (bias 7), halved; 0 and 0x7F decode to 0. The top bit
/// is ignored (ggml masks the exponent with 0xF).
#[inline]
pub(crate) fn ue4m3_half(x: u8) -> f32 {
    if x == 0 || x == 0x7F {
        return 0.0;
    }
    let exp = i32::from((x >> 3) & 0x0F);
    let man = f32::from(x & 7);
    // Both are exact: man·2⁻⁹ and (1 + man/8)·2^(exp−7) need at most 4 significant bits.
    let raw = if exp == 0 {
        man * f32::from_bits(0x3B00_0000) // 2^-9
    } else {
        (1.0 + man / 8.0) * f32::from_bits(((exp - 7 + 127) as u32) << 23)
    };
    raw * 0.5
}

/// `block_mxfp4`: E8M0 exponent byte, 16 bytes of E2M1 nibbles (17 B / 32).
/// y = kvalues\[q\]·2^(e − 128); low nibbles first.
pub(super) fn mxfp4(bytes: &[u8], out: &mut [f32]) {
    for (b, y) in blocks::<17, 32>(bytes, out) {
        let d = e8m0_half(b[0]);
        for j in 0..16 {
            let q = b[1 + j];
            y[j] = f32::from(KVALUES_MXFP4[usize::from(q & 0x0F)]) * d;
            y[j + 16] = f32::from(KVALUES_MXFP4[usize::from(q >> 4)]) * d;
        }
    }
}

/// `block_nvfp4`: 4 UE4M3 scale bytes, 32 bytes of E2M1 nibbles (36 B / 64). Each 16-value
/// sub-block s uses scale s and bytes 8s..8s+8, low nibbles first.
pub(super) fn nvfp4(bytes: &[u8], out: &mut [f32]) {
    for (b, y) in blocks::<36, 64>(bytes, out) {
        for s in 0..4 {
            let d = ue4m3_half(b[s]);
            for j in 0..8 {
                let q = b[4 + 8 * s + j];
                y[16 * s + j] = f32::from(KVALUES_MXFP4[usize::from(q & 0x0F)]) * d;
                y[16 * s + j + 8] = f32::from(KVALUES_MXFP4[usize::from(q >> 4)]) * d;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scale_conversions_follow_ggml_impl_h() {
        assert_eq!(e8m0_half(0).to_bits(), 0x0020_0000);
        assert_eq!(e8m0_half(1).to_bits(), 0x0040_0000);
        assert_eq!(e8m0_half(128), 1.0);
        assert_eq!(e8m0_half(255), 2f32.powi(127));
        assert_eq!(ue4m3_half(0x38), 0.5); // exp 7, man 0 → 1.0, halved
        assert_eq!(ue4m3_half(0x01), 2f32.powi(-10)); // subnormal 2^-9, halved
        assert_eq!(ue4m3_half(0x7E), 224.0); // 448 halved
        assert_eq!(ue4m3_half(0x7F), 0.0);
        assert_eq!(ue4m3_half(0xFF), 240.0); // top bit ignored: exp 15, man 7
    }
}
