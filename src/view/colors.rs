//! One colour per tensor type, so a type looks the same in the histogram, the layer map and
//! the legend. Families share a hue that runs from cool (full precision) to warm (few bits):
//! floats blue/grey, 8-bit green, 6-bit teal, 5-bit lime, 4-bit amber, 3-bit orange, 2-bit
//! red, 1-bit pink; variants of a family get different shades.

/// `text`, then on a line of its own the block layout of type `dtype` (when it has one): the
/// tooltip of a chart bar or a layer-map cell.
pub fn with_type_tooltip(text: &str, dtype: &str) -> String {
    match crate::format::ggml_type::type_tooltip(dtype) {
        Some(t) => format!("{text}\n{t}"),
        None => text.to_string(),
    }
}

const KNOWN: &[(&str, &str)] = &[
    ("F64", "#475569"),
    ("F32", "#94a3b8"),
    ("F16", "#60a5fa"),
    ("BF16", "#818cf8"),
    ("F8_E4M3", "#a78bfa"),
    ("F8_E5M2", "#c4b5fd"),
    ("F8_E8M0", "#8b5cf6"),
    ("Q8_0", "#059669"),
    ("Q8_1", "#10b981"),
    ("Q8_K", "#34d399"),
    ("Q6_K", "#0d9488"),
    ("Q5_0", "#65a30d"),
    ("Q5_1", "#84cc16"),
    ("Q5_K", "#a3e635"),
    ("Q4_0", "#d97706"),
    ("Q4_1", "#f59e0b"),
    ("Q4_K", "#fbbf24"),
    ("IQ4_NL", "#b45309"),
    ("IQ4_XS", "#ca8a04"),
    ("MXFP4", "#eab308"),
    ("NVFP4", "#facc15"),
    ("Q3_K", "#ea580c"),
    ("IQ3_XXS", "#f97316"),
    ("IQ3_S", "#fb923c"),
    ("Q2_K", "#dc2626"),
    ("IQ2_XXS", "#ef4444"),
    ("IQ2_XS", "#f87171"),
    ("IQ2_S", "#b91c1c"),
    ("TQ2_0", "#991b1b"),
    ("Q2_0", "#fca5a5"),
    ("IQ1_S", "#db2777"),
    ("IQ1_M", "#ec4899"),
    ("TQ1_0", "#be185d"),
    ("Q1_0", "#f9a8d4"),
    ("I64", "#1e3a8a"),
    ("I32", "#1d4ed8"),
    ("I16", "#0e7490"),
    ("I8", "#0f766e"),
    ("U64", "#312e81"),
    ("U32", "#3730a3"),
    ("U16", "#155e75"),
    ("U8", "#115e59"),
    ("BOOL", "#a8a29e"),
];

/// For types not in the table (unknown ids, new safetensors dtypes): a stable pick by name.
const FALLBACK: [&str; 6] = [
    "#a16207", "#7c3aed", "#be123c", "#4d7c0f", "#0369a1", "#78716c",
];

/// The fill colour of a type label (`Q4_K`, `F32`, `type 99 (unknown)`), as `#rrggbb`.
pub fn dtype_color(label: &str) -> &'static str {
    if let Some((_, c)) = KNOWN.iter().find(|(n, _)| *n == label) {
        return c;
    }
    let h = label.bytes().fold(2166136261u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(16777619)
    });
    FALLBACK[h as usize % FALLBACK.len()]
}

/// Black or white, whichever reads better on `bg` (`#rrggbb`), by relative luminance.
pub fn text_on(bg: &str) -> &'static str {
    let hex = bg.trim_start_matches('#');
    let ch = |i: usize| {
        let v = u8::from_str_radix(hex.get(i..i + 2).unwrap_or("80"), 16).unwrap_or(128);
        let c = f64::from(v) / 255.0;
        if c <= 0.03928 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    let l = 0.2126 * ch(0) + 0.7152 * ch(2) + 0.0722 * ch(4);
    // Contrast against white is (1.05)/(l+0.05); against black (l+0.05)/0.05. Pick the larger.
    if (l + 0.05) / 0.05 >= 1.05 / (l + 0.05) {
        "#111827"
    } else {
        "#ffffff"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_types_have_distinct_colours() {
        let mut seen = std::collections::HashSet::new();
        for (name, c) in KNOWN {
            assert!(seen.insert(*c), "{name} shares its colour");
            assert_eq!(dtype_color(name), *c);
        }
    }

    #[test]
    fn unknown_types_get_a_stable_colour() {
        let a = dtype_color("type 99 (unknown)");
        assert_eq!(a, dtype_color("type 99 (unknown)"));
        assert!(FALLBACK.contains(&a));
    }

    #[test]
    fn text_contrasts_with_its_background() {
        assert_eq!(text_on("#ffffff"), "#111827");
        assert_eq!(text_on("#fbbf24"), "#111827");
        assert_eq!(text_on("#1e3a8a"), "#ffffff");
        assert_eq!(text_on("#991b1b"), "#ffffff");
    }
}
