//! The block scales llama.cpp's `ggml_validate_row_data` (ggml/src/ggml-quants.c) judges, per
//! ggml type: the f16 `d` of most block types, `d` and `m`/`dmin` of Q4_1, Q5_1, Q2_K, Q4_K
//! and Q5_K, the f32 `d` of Q8_K, the E8M0 exponent `e` of MXFP4 (its byte 0xFF is invalid),
//! and IQ1_M's f16 scale spread over the top nibbles of four `u16`. NVFP4's UE4M3 scales are
//! all valid bytes; plain types are judged by their values. Byte offsets are the `block_*`
//! structs of ggml/src/ggml-common.h.

use crate::dequant::f16_to_f32;
use crate::preview::{read_scale, ScaleField};

/// Where the judged scales of a block sit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scales {
    /// One or two fields read as [`read_scale`] reads them.
    Fields(&'static [ScaleField]),
    /// IQ1_M: `(sc[0] >> 12) | ((sc[1] >> 8) & 0xF0) | ((sc[2] >> 4) & 0xF00) | (sc[3] &
    /// 0xF000)` of the four `u16` at byte 48 (after `qs[32]` and `qh[16]`), an f16.
    Iq1m,
}

/// The scales llama.cpp's `ggml_validate_row_data` judges for ggml type `type_id`, or `None` when it
/// judges none (plain types: their values are judged; NVFP4; unknown types).
pub fn judged_scales(type_id: u32) -> Option<Scales> {
    use ScaleField::{E8M0, F16, F32};
    const D0: &[ScaleField] = &[F16(0)];
    const DM0: &[ScaleField] = &[F16(0), F16(2)];
    Some(Scales::Fields(match type_id {
        // Q4_0, Q5_0, Q8_0, Q1_0, Q2_0: d.
        2 | 6 | 8 | 41 | 42 => D0,
        // Q4_1, Q5_1 (d, m); Q8_1 (d, s: ggml has no validation of it, its layout is Q4_1's).
        3 | 7 | 9 => DM0,
        // Q2_K: {scales[16], qs[64], d, dmin}.
        10 => &[F16(80), F16(82)],
        // Q3_K: d at byte 108.
        11 => &[F16(108)],
        // Q4_K, Q5_K: {d, dmin, …}.
        12 | 13 => DM0,
        // Q6_K: d at byte 208.
        14 => &[F16(208)],
        // Q8_K: an f32 d.
        15 => &[F32(0)],
        // IQ2_XXS, IQ2_XS, IQ3_XXS, IQ1_S, IQ4_NL, IQ3_S, IQ2_S, IQ4_XS: d.
        16..=23 => D0,
        29 => return Some(Scales::Iq1m),
        // TQ1_0: d at byte 52; TQ2_0: d at byte 64.
        34 => &[F16(52)],
        35 => &[F16(64)],
        // MXFP4: e.
        39 => &[E8M0(0)],
        _ => return None,
    }))
}

/// Counts of judged scales that are NaN and infinite in one block (`block` is whole).
pub fn bad_scales(scales: Scales, block: &[u8]) -> (u32, u32) {
    let judge = |v: f32| (u32::from(v.is_nan()), u32::from(v.is_infinite()));
    match scales {
        Scales::Fields(fields) => fields.iter().fold((0, 0), |(n, i), f| {
            let (a, b) = judge(read_scale(*f, block));
            (n + a, i + b)
        }),
        Scales::Iq1m => {
            let sc = |k: usize| {
                block
                    .get(48 + 2 * k..50 + 2 * k)
                    .map_or(0xFFFF, |b| u16::from_le_bytes([b[0], b[1]]))
            };
            let bits = (sc(0) >> 12)
                | ((sc(1) >> 8) & 0x00F0)
                | ((sc(2) >> 4) & 0x0F00)
                | (sc(3) & 0xF000);
            judge(f16_to_f32(bits))
        }
    }
}

/// Whether every judged scale of the `unit`-byte blocks of `run` is finite, when the scales are
/// f16 fields (the common case, checked in one pass over their exponent bits: an f16 is NaN or
/// infinite exactly when its five exponent bits are all set); `None` when they are not f16
/// fields (then [`bad_scales`] judges each block).
pub fn f16_scales_finite(scales: Scales, run: &[u8], unit: usize) -> Option<bool> {
    let Scales::Fields(fields) = scales else {
        return None;
    };
    let mut offsets = [0usize; 2];
    if fields.len() > offsets.len() {
        return None;
    }
    for (o, f) in offsets.iter_mut().zip(fields) {
        match *f {
            ScaleField::F16(at) if at + 2 <= unit => *o = at,
            _ => return None,
        }
    }
    let bad = |b: &[u8], at: usize| {
        let h = u16::from_le_bytes([b[at], b[at + 1]]);
        h & 0x7C00 == 0x7C00
    };
    let (a, b) = (offsets[0], offsets[1]);
    let blocks = run.chunks_exact(unit);
    Some(if fields.len() == 1 {
        !blocks.fold(false, |any, blk| any | bad(blk, a))
    } else {
        !blocks.fold(false, |any, blk| any | bad(blk, a) | bad(blk, b))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn judges_the_fields_ggml_validates() {
        // Q4_K with a NaN dmin (0x7E00) and an infinite d (0x7C00).
        let mut b = vec![0u8; 144];
        b[0..2].copy_from_slice(&0x7C00u16.to_le_bytes());
        b[2..4].copy_from_slice(&0x7E00u16.to_le_bytes());
        assert_eq!(bad_scales(judged_scales(12).unwrap(), &b), (1, 1));
        // MXFP4's e = 0xFF is invalid (counted as NaN); 0xFE is a finite 2^127.
        assert_eq!(bad_scales(judged_scales(39).unwrap(), &[0xFF; 17]), (1, 0));
        assert_eq!(bad_scales(judged_scales(39).unwrap(), &[0xFE; 17]), (0, 0));
        // IQ1_M: the top nibbles of the four u16 at byte 48 make 0x7C00 (+Inf).
        let mut b = vec![0u8; 56];
        for (k, nib) in [0x0u16, 0x0, 0xC, 0x7].iter().enumerate() {
            b[48 + 2 * k..50 + 2 * k].copy_from_slice(&(nib << 12).to_le_bytes());
        }
        assert_eq!(bad_scales(Scales::Iq1m, &b), (0, 1));
        assert!(judged_scales(0).is_none() && judged_scales(40).is_none());
    }

    #[test]
    fn the_quick_check_agrees_with_the_judge() {
        // Every f16 pattern as Q4_K's d then as its dmin, and as Q6_K's d (at byte 208).
        for (ty, unit, at) in [(12u32, 144usize, 0usize), (12, 144, 2), (14, 210, 208)] {
            let s = judged_scales(ty).unwrap();
            for h in (0..=u16::MAX)
                .step_by(7)
                .chain([0x7C00, 0xFC00, 0x7E00, 0x7BFF])
            {
                let mut run = vec![0u8; 3 * unit];
                run[unit + at..unit + at + 2].copy_from_slice(&h.to_le_bytes());
                let judged = run.chunks_exact(unit).all(|b| bad_scales(s, b) == (0, 0));
                assert_eq!(
                    f16_scales_finite(s, &run, unit),
                    Some(judged),
                    "{ty} {h:#06x}"
                );
            }
        }
        assert_eq!(
            f16_scales_finite(judged_scales(15).unwrap(), &[0; 292], 292),
            None
        );
        assert_eq!(f16_scales_finite(Scales::Iq1m, &[0; 56], 56), None);
    }
}
