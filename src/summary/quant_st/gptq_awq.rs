//! GPTQ (AutoGPTQ / GPTQModel) and AWQ (AutoAWQ GEMM / GEMV): `X.qweight` I32 with `qzeros`,
//! `scales` and `g_idx`; which of the two (and AWQ's GEMV packing) comes from the config's
//! `quant_method` / `version`, else from `g_idx` and the shapes.

use super::config::{config_bits, config_group, quant_section, text};
use super::ctx::{group_words, shape_text, two_d, Ctx};
use super::Scheme;

/// GPTQ (AutoGPTQ) or AWQ (AutoAWQ) `prefix.qweight`.
pub(super) fn gptq_awq(cx: &mut Ctx, qi: usize, prefix: &str) {
    let q = &cx.m.tensors[qi];
    let qname = q.name.clone();
    let section = quant_section(cx.config, false);
    let companions = cx.companions(
        prefix,
        &[
            (".qzeros", "zero points"),
            (".scales", "scales"),
            (".g_idx", "g_idx"),
        ],
    );
    let find = |role: &str| {
        companions
            .iter()
            .find(|c| c.role == role)
            .and_then(|c| cx.get(&c.name))
            .map(|(_, t)| t)
    };
    let (scales, qzeros, g_idx) = (find("scales"), find("zero points"), find("g_idx"));
    let dt = Ctx::dtype(q);
    let Some((rows, cols)) = two_d(q).filter(|_| dt == "I32" || dt == "U32") else {
        cx.warn(
            "quant-shape-mismatch",
            format!(
                "qweight is {dt} {}; GPTQ and AWQ store a 2-D I32 tensor; counted as stored",
                shape_text(&q.shape)
            ),
            &qname,
        );
        return;
    };
    let method = section
        .and_then(|(s, _)| text(s, "quant_method"))
        .map(str::to_ascii_lowercase);
    let scheme = match method.as_deref() {
        Some("gptq") => Scheme::Gptq,
        Some("awq") => Scheme::Awq,
        _ => match scales.and_then(two_d) {
            _ if g_idx.is_some() => Scheme::Gptq,
            Some((_, sc)) if sc == cols => Scheme::Gptq,
            Some((_, sc)) if sc > cols && cols > 0 && sc % cols == 0 => Scheme::Awq,
            _ => {
                cx.info(
                    "quant-assumed",
                    "neither config.json nor the companions tell GPTQ from AWQ; read as GPTQ (packed along the input dimension; the parameter count is the same either way)".into(),
                    &qname,
                );
                Scheme::Gptq
            }
        },
    };
    let gemv = scheme == Scheme::Awq
        && section
            .and_then(|(s, _)| text(s, "version"))
            .is_some_and(|v| v.eq_ignore_ascii_case("gemv"));
    let valid: &[u32] = &[2, 3, 4, 8];
    // The bits the companions imply: GPTQ qzeros [groups, out × bits / 32]; AWQ scales
    // [groups, out] against qweight [in, out × bits / 32].
    let derived = match scheme {
        Scheme::Gptq => qzeros
            .and_then(two_d)
            .and_then(|(_, zc)| zc.checked_mul(32))
            .filter(|&z| cols > 0 && z % cols == 0)
            .map(|z| z / cols),
        _ if gemv => None,
        _ => scales
            .and_then(two_d)
            .filter(|&(_, sc)| cols > 0 && sc % cols == 0 && sc > 0)
            .map(|(_, sc)| sc / cols)
            .filter(|&pack| pack > 0 && 32 % pack == 0)
            .map(|pack| 32 / pack),
    }
    .and_then(|b| u32::try_from(b).ok())
    .filter(|b| valid.contains(b));
    let bits = match config_bits(cx, section, &["bits", "w_bit"], valid, &qname) {
        Some(b) => {
            if let Some(d) = derived.filter(|&d| d != b) {
                cx.warn(
                    "quant-shape-mismatch",
                    format!("config.json says {b} bits but the companions' shapes say {d}; counted with {b}"),
                    &qname,
                );
            }
            b
        }
        None => match derived {
            Some(d) => {
                cx.info(
                    "quant-config-missing",
                    format!("bits not in config.json; {d} taken from the companions' shapes"),
                    &qname,
                );
                d
            }
            None => {
                cx.info(
                    "quant-config-missing",
                    "bits neither in config.json nor derivable from the companions; assumed 4 (the AutoGPTQ / AutoAWQ default)".into(),
                    &qname,
                );
                4
            }
        },
    };
    if scheme == Scheme::Awq && 32 % bits != 0 {
        cx.warn(
            "quant-shape-mismatch",
            format!("AWQ packs 32 / bits values an I32; {bits} bits do not divide 32; counted as stored"),
            &qname,
        );
        return;
    }
    // Logical [out, in].
    let unpack = |packed: u64| {
        packed
            .checked_mul(32)
            .filter(|p| p % u64::from(bits) == 0)
            .map(|p| p / u64::from(bits))
    };
    let (out, inn, packed_dim) = match scheme {
        Scheme::Gptq => (Some(cols), unpack(rows), "rows"),
        _ if gemv => (Some(rows), unpack(cols), "columns"),
        _ => (unpack(cols), Some(rows), "columns"),
    };
    let (Some(out), Some(inn)) = (out, inn) else {
        cx.warn(
            "quant-shape-mismatch",
            format!(
                "qweight {}: {packed_dim} × 32 is not a whole number of {bits}-bit values; counted as stored",
                shape_text(&q.shape)
            ),
            &qname,
        );
        return;
    };
    if scales.is_none() {
        cx.warn(
            "quant-companion-missing",
            format!("no {prefix}.scales beside the qweight: it cannot be dequantised"),
            &qname,
        );
    }
    let group = config_group(cx, section, &["group_size", "q_group_size"], inn, &qname);
    let scale_groups = scales
        .and_then(two_d)
        .map(|(r, c)| if gemv { c } else { r });
    let group = match (group, scale_groups) {
        (Some(g), _) => Some(g),
        (None, Some(n)) if n > 0 && inn % n == 0 => {
            cx.info(
                "quant-config-missing",
                "group size not in config.json; taken from the scales' shape".into(),
                &qname,
            );
            Some(inn / n)
        }
        _ => None,
    };
    // Companion shapes against the packing.
    if let (Some(g), Some(s)) = (group, scales) {
        let groups = inn.div_ceil(g.max(1));
        let want = if gemv {
            vec![out, groups]
        } else {
            vec![groups, out]
        };
        if s.shape != want && !gemv {
            cx.warn(
                "quant-shape-mismatch",
                format!(
                    "scales are {} but {bits}-bit qweight {} with group size {g} needs {}",
                    shape_text(&s.shape),
                    shape_text(&q.shape),
                    shape_text(&want)
                ),
                &qname,
            );
        }
    }
    if let Some(gi) = g_idx {
        if gi.shape != [inn] {
            cx.warn(
                "quant-shape-mismatch",
                format!(
                    "g_idx is {} but the weight has {inn} input features",
                    shape_text(&gi.shape)
                ),
                &qname,
            );
        }
    }
    let granularity = group_words(group, inn);
    cx.push(
        qi,
        format!("{prefix}.weight"),
        scheme,
        vec![out, inn],
        "packing",
        bits,
        group,
        granularity,
        companions,
    );
}
