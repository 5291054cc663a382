//! FP8 (F8_E4M3 / F8_E5M2) and INT8 weights with `weight_scale` / `weight_scale_inv` (per
//! tensor, per channel or DeepSeek-V3 128 × 128 blocks) and `input_scale`.

use super::config::quant_section;
use super::ctx::{shape_text, two_d, Ctx};
use super::Scheme;

/// FP8 or INT8 `prefix.weight` with `weight_scale` / `weight_scale_inv`.
pub(super) fn scaled8(cx: &mut Ctx, wi: usize, prefix: &str) {
    let w = &cx.m.tensors[wi];
    let wname = w.name.clone();
    let dt = Ctx::dtype(w).to_string();
    let companions = cx.companions(
        prefix,
        &[
            (".weight_scale", "scales"),
            (".weight_scale_inv", "inverse scales"),
            (".weight_zero_point", "zero points"),
            (".input_scale", "input scale"),
        ],
    );
    let scale = companions
        .iter()
        .find(|c| c.role.contains("scales"))
        .and_then(|c| cx.get(&c.name))
        .map(|(_, t)| t);
    let (out, inn) = match w.shape[..] {
        [o, i] => (o, i),
        _ => (0, 0),
    };
    let section = quant_section(cx.config, false);
    let block = section.and_then(|(s, _)| s.get("weight_block_size")?.as_array().cloned());
    let granularity = match scale {
        Some(s) if s.elements == Some(1) => "per-tensor scale".to_string(),
        Some(s) if s.elements == Some(out) && out > 0 => "per-channel scales".to_string(),
        Some(s) => match (two_d(s), block.as_deref()) {
            (Some((sr, sc)), Some([a, b])) => match (a.as_u64(), b.as_u64()) {
                (Some(a), Some(b)) if a > 0 && b > 0 => {
                    if (sr, sc) != (out.div_ceil(a), inn.div_ceil(b)) {
                        cx.warn(
                            "quant-shape-mismatch",
                            format!(
                                "block scales are {} but weight {} in {a}×{b} blocks needs [{}, {}]",
                                shape_text(&s.shape),
                                shape_text(&w.shape),
                                out.div_ceil(a),
                                inn.div_ceil(b)
                            ),
                            &wname,
                        );
                    }
                    format!("block {a}×{b} scales")
                }
                _ => {
                    cx.warn(
                        "quant-config-invalid",
                        "weight_block_size is not two positive integers".into(),
                        &wname,
                    );
                    format!("block scales {}", shape_text(&s.shape))
                }
            },
            (Some((sr, sc)), _) if sr > 0 && sc > 0 && out % sr == 0 && inn % sc == 0 => {
                cx.info(
                    "quant-config-missing",
                    "weight_block_size not in config.json; the block taken from the scales' shape"
                        .into(),
                    &wname,
                );
                format!("block {}×{} scales", out / sr, inn / sc)
            }
            _ => format!("scales {}", shape_text(&s.shape)),
        },
        None => String::new(),
    };
    let (scheme, bits) = if dt == "I8" {
        (Scheme::Int8, 8)
    } else {
        (Scheme::Fp8, 8)
    };
    let granularity = if scheme == Scheme::Fp8 {
        format!("{dt}, {granularity}")
    } else {
        granularity
    };
    cx.push(
        wi,
        wname,
        scheme,
        w.shape.clone(),
        "header",
        bits,
        None,
        granularity,
        companions,
    );
}
