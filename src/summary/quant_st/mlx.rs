//! MLX (mlx-lm): `X.weight` U32 packed along the last dimension with `scales` and `biases`;
//! bits and group size from config.json `quantization`, with per-module overrides.

use super::config::{config_bits, config_group, quant_section};
use super::ctx::{group_words, shape_text, Ctx};
use super::Scheme;

/// MLX `prefix.weight` (U32 packed along the last dimension) with `scales` and `biases`.
pub(super) fn mlx(cx: &mut Ctx, wi: usize, prefix: &str) {
    let w = &cx.m.tensors[wi];
    let wname = w.name.clone();
    let companions = cx.companions(prefix, &[(".scales", "scales"), (".biases", "biases")]);
    let scales = companions
        .iter()
        .find(|c| c.role == "scales")
        .and_then(|c| cx.get(&c.name))
        .map(|(_, t)| t);
    let section = quant_section(cx.config, true);
    // mlx-lm writes per-module overrides under the module's path.
    let module = section
        .and_then(|(s, _)| s.get(prefix))
        .filter(|v| v.is_object());
    let section = match module {
        Some(v) => Some((v, "quantization.<module>")),
        None => section,
    };
    let valid: &[u32] = &[1, 2, 3, 4, 5, 6, 8];
    let bits = config_bits(cx, section, &["bits"], valid, &wname);
    let bits = match bits {
        Some(b) => b,
        None => {
            cx.info(
                "quant-config-missing",
                "MLX bits not in config.json (\"quantization\": {\"bits\", \"group_size\"}); assumed MLX's default 4".into(),
                &wname,
            );
            4
        }
    };
    let Some((&packed, lead)) = w.shape.split_last() else {
        cx.warn(
            "quant-shape-mismatch",
            "an MLX packed weight is at least 1-D; counted as stored".into(),
            &wname,
        );
        return;
    };
    let Some(inn) = packed
        .checked_mul(32)
        .filter(|p| p % u64::from(bits) == 0)
        .map(|p| p / u64::from(bits))
    else {
        cx.warn(
            "quant-shape-mismatch",
            format!(
                "U32 weight {}: the last dimension × 32 is not a whole number of {bits}-bit values; counted as stored",
                shape_text(&w.shape)
            ),
            &wname,
        );
        return;
    };
    let group = config_group(cx, section, &["group_size"], inn, &wname);
    let group = match group {
        Some(g) => g,
        None => {
            if section.is_none_or(|(s, _)| s.get("group_size").is_none()) {
                cx.info(
                    "quant-config-missing",
                    "MLX group_size not in config.json; assumed MLX's default 64".into(),
                    &wname,
                );
            }
            64
        }
    };
    if let Some(s) = scales {
        let mut want = lead.to_vec();
        want.push(inn.div_ceil(group.max(1)));
        if s.shape != want {
            cx.warn(
                "quant-shape-mismatch",
                format!(
                    "scales are {} but {bits}-bit weight {} with group size {group} needs {}",
                    shape_text(&s.shape),
                    shape_text(&w.shape),
                    shape_text(&want)
                ),
                &wname,
            );
        }
    }
    let mut shape = lead.to_vec();
    shape.push(inn);
    cx.push(
        wi,
        wname,
        Scheme::Mlx,
        shape,
        "packing",
        bits,
        Some(group),
        group_words(Some(group), inn),
        companions,
    );
}
