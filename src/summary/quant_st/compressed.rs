//! compressed-tensors pack-quantized (and NVFP4): `X.weight_packed` with the logical shape in
//! `X.weight_shape`'s data, `weight_scale`, `weight_zero_point`, `weight_g_idx`,
//! `weight_global_scale`.

use serde_json::Value as Json;

use super::config::{config_bits, quant_section};
use super::ctx::{group_words, shape_text, two_d, Ctx};
use super::Scheme;
use crate::format::Tensor;

/// Reads a compressed-tensors `weight_shape` tensor's data: little-endian I64 or I32 values.
pub(super) fn weight_shape_data(t: &Tensor, data: &[u8]) -> Option<Vec<u64>> {
    let width = match Ctx::dtype(t) {
        "I64" | "U64" => 8,
        "I32" | "U32" => 4,
        _ => return None,
    };
    if data.is_empty() || data.len() % width != 0 || data.len() / width > 8 {
        return None;
    }
    data.chunks_exact(width)
        .map(|c| {
            let v = if width == 8 {
                i64::from_le_bytes(c.try_into().ok()?)
            } else {
                i64::from(i32::from_le_bytes(c.try_into().ok()?))
            };
            u64::try_from(v).ok()
        })
        .collect()
}

/// compressed-tensors `prefix.weight_packed`.
pub(super) fn compressed_tensors(cx: &mut Ctx, pi: usize, prefix: &str) {
    let p = &cx.m.tensors[pi];
    let pname = p.name.clone();
    let companions = cx.companions(
        prefix,
        &[
            (".weight_scale", "scales"),
            (".weight_zero_point", "zero points"),
            (".weight_g_idx", "g_idx"),
            (".weight_shape", "shape"),
            (".weight_global_scale", "global scale"),
            (".input_global_scale", "input global scale"),
            (".input_scale", "input scale"),
        ],
    );
    let dt = Ctx::dtype(p).to_string();
    let Some((rows, cols)) = two_d(p).filter(|_| dt == "I32" || dt == "U8") else {
        cx.warn(
            "quant-shape-mismatch",
            format!(
                "weight_packed is {dt} {}; compressed-tensors packs a 2-D I32 (or U8 for NVFP4) tensor; counted as stored",
                shape_text(&p.shape)
            ),
            &pname,
        );
        return;
    };
    let shape_t = companions
        .iter()
        .find(|c| c.role == "shape")
        .and_then(|c| cx.get(&c.name))
        .map(|(_, t)| t);
    let read_shape = shape_t.and_then(|t| {
        let data = cx.m.sidecar.tensor_data.get(&t.name)?;
        Some(weight_shape_data(t, data))
    });
    let read_shape = match read_shape {
        Some(Some(s)) if s.len() == 2 => Some((s[0], s[1])),
        Some(_) => {
            cx.warn(
                "quant-shape-mismatch",
                "weight_shape's data is not two non-negative integers; the shape was derived from the packing".into(),
                &pname,
            );
            None
        }
        None => None,
    };
    let section = quant_section(cx.config, false);
    let scale_cols = companions
        .iter()
        .find(|c| c.role == "scales")
        .and_then(|c| cx.get(&c.name))
        .and_then(|(_, t)| two_d(t))
        .map(|(_, c)| c);
    // The weights' quantisation arguments: config_groups.<name>.weights.
    let groups: Vec<(&Json, &str)> = section
        .and_then(|(s, _)| s.get("config_groups")?.as_object())
        .map(|g| {
            g.values()
                .filter_map(|v| v.get("weights").filter(|w| w.is_object()))
                .map(|w| (w, "config_groups.<group>.weights"))
                .collect()
        })
        .unwrap_or_default();
    let nvfp4 = dt == "U8";
    let (bits, pack) = if nvfp4 {
        (4u32, 2u64)
    } else {
        let mut configured = None;
        let mut distinct = Vec::new();
        for g in &groups {
            if let Some(b) = config_bits(
                cx,
                Some(*g),
                &["num_bits"],
                &[1, 2, 3, 4, 5, 6, 7, 8],
                &pname,
            ) {
                if !distinct.contains(&b) {
                    distinct.push(b);
                }
                configured.get_or_insert(b);
            }
        }
        // Bits the stored shape allows given the logical input size (weight_shape's data).
        let fits = |b: u32| {
            let pk = u64::from(32 / b);
            read_shape.is_some_and(|(_, i)| i.div_ceil(pk) == cols)
        };
        let bits = match (configured, distinct.len()) {
            (Some(b), 1) => b,
            (Some(_), _) => match distinct.iter().copied().find(|&b| fits(b)) {
                Some(b) => b,
                None => {
                    cx.warn(
                        "quant-config-missing",
                        "config groups give different num_bits and weight_shape was not read; the first group's bits used".into(),
                        &pname,
                    );
                    distinct[0]
                }
            },
            (None, _) => {
                let from_shape = [4u32, 8, 2].into_iter().find(|&b| fits(b));
                match from_shape {
                    Some(b) => {
                        cx.info(
                            "quant-config-missing",
                            format!("num_bits not in config.json; {b} taken from weight_shape and the packing"),
                            &pname,
                        );
                        b
                    }
                    None => {
                        cx.warn(
                            "quant-config-missing",
                            "num_bits neither in config.json nor derivable; assumed 4 (W4A16, the common pack-quantized scheme)".into(),
                            &pname,
                        );
                        4
                    }
                }
            }
        };
        (bits, u64::from(32 / bits))
    };
    let capacity = cols.checked_mul(pack);
    let (out, inn, source) = match (read_shape, capacity) {
        (Some((o, i)), Some(cap)) if o == rows && i <= cap && i.div_ceil(pack) == cols => {
            (o, i, "weight_shape")
        }
        (_, None) => {
            cx.warn(
                "quant-overflow",
                "the unpacked size overflows 64 bits; counted as stored".into(),
                &pname,
            );
            return;
        }
        (rs, Some(cap)) => {
            match rs {
                Some((o, i)) => cx.warn(
                    "quant-shape-mismatch",
                    format!(
                        "weight_shape says [{o}, {i}] but {bits}-bit weight_packed {} holds [{rows}, {cap}]; derived from the packing",
                        shape_text(&p.shape)
                    ),
                    &pname,
                ),
                None => cx.info(
                    "quant-derived",
                    "logical shape derived from the packing (the exact input size is in weight_shape's data, which was not read; it may be up to 32 / bits − 1 smaller)".into(),
                    &pname,
                ),
            }
            (rows, cap, "packing")
        }
    };
    let group = if nvfp4 {
        None
    } else {
        let g = groups
            .iter()
            .find_map(|(w, _)| w.get("group_size").and_then(Json::as_u64));
        let strategy = groups
            .iter()
            .find_map(|(w, _)| w.get("strategy").and_then(Json::as_str));
        match (g, strategy) {
            (Some(g), _) if g > 0 => Some(g),
            (_, Some("channel")) => Some(inn),
            _ => None,
        }
    };
    let group = group.or_else(|| {
        scale_cols
            .filter(|&c| c > 0 && inn % c == 0)
            .map(|c| inn / c)
    });
    let granularity = group_words(group, inn);
    let mut label_extra = granularity;
    if nvfp4 {
        label_extra = format!(
            "NVFP4{}",
            group.map_or(String::new(), |g| format!(", group size {g}"))
        );
    }
    cx.push(
        pi,
        format!("{prefix}.weight"),
        Scheme::CompressedTensors,
        vec![out, inn],
        source,
        bits,
        group,
        label_extra,
        companions,
    );
}
