//! MXFP4 (gpt-oss): `X_blocks` U8 holding 32 FP4 (E2M1) values a block, with `X_scales` U8
//! (E8M0) one a block.

use super::ctx::{shape_text, Ctx};
use super::Scheme;

/// MXFP4 `base_blocks` (U8 `[…, blocks, 16]`) with `base_scales` (U8 E8M0 `[…, blocks]`).
pub(super) fn mxfp4(cx: &mut Ctx, bi: usize, base: &str) {
    let b = &cx.m.tensors[bi];
    let bname = b.name.clone();
    let companions = cx.companions(base, &[("_scales", "E8M0 scales")]);
    let scales = companions
        .first()
        .and_then(|c| cx.get(&c.name))
        .map(|(_, t)| t);
    let n = b.shape.len();
    let shape = match b.shape.split_last() {
        Some((&16, lead)) if !lead.is_empty() => {
            let mut s = lead.to_vec();
            match s.last_mut().and_then(|d| d.checked_mul(32)) {
                Some(v) => {
                    if let Some(d) = s.last_mut() {
                        *d = v;
                    }
                    Some(s)
                }
                None => None,
            }
        }
        _ => None,
    };
    let Some(shape) = shape else {
        cx.warn(
            "quant-shape-mismatch",
            format!(
                "MXFP4 blocks are [..., blocks, 16] (16 bytes = 32 FP4 values); this one is {}; counted as stored",
                shape_text(&b.shape)
            ),
            &bname,
        );
        return;
    };
    if let Some(s) = scales {
        if s.shape[..] != b.shape[..n - 1] {
            cx.warn(
                "quant-shape-mismatch",
                format!(
                    "MXFP4 scales are {} but blocks {} need {}",
                    shape_text(&s.shape),
                    shape_text(&b.shape),
                    shape_text(&b.shape[..n - 1])
                ),
                &bname,
            );
        }
    }
    cx.push(
        bi,
        base.to_string(),
        Scheme::Mxfp4,
        shape,
        "packing",
        4,
        Some(32),
        "32-value blocks, E8M0 scales".into(),
        companions,
    );
}
