//! The per-layer quantisation map: for each tensor role (`ffn_down.weight`, `attn_q.weight`),
//! which type it has on which layer.
//!
//! A tensor belongs to layer N when its name has a numeric segment: `blk.N.<role>` (GGUF),
//! `model.layers.N.<role>` or `encoder.layer.N.<role>` (safetensors). The role is the rest of
//! the name after the number. When a model has several layer stacks (e.g. `v.blk.N` and
//! `blk.N`), the role is prefixed with its stack, `v.blk.*.<role>`.

use serde::Serialize;

use crate::format::Model;

/// One role across the layers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RoleRow {
    /// The role (name after the layer number).
    pub role: String,
    /// Type label per layer, aligned with [`LayerMap::layers`] (`None`: no such tensor there).
    pub cells: Vec<Option<String>>,
    /// Each type used by this role with the layers that use it, most used first.
    pub types: Vec<RoleType>,
}

/// Layers of one role that share one type.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RoleType {
    /// Type label.
    pub dtype: String,
    /// Layer numbers, ascending.
    pub layers: Vec<u64>,
}

/// The whole map.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct LayerMap {
    /// Distinct layer numbers, ascending.
    pub layers: Vec<u64>,
    /// Roles in order of first appearance.
    pub roles: Vec<RoleRow>,
}

/// Splits a tensor name into (stack prefix, layer, role).
pub fn split_layer(name: &str) -> Option<(&str, u64, &str)> {
    let mut start = 0;
    for seg in name.split('.') {
        let end = start + seg.len();
        if start > 0 && !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_digit()) {
            let layer: u64 = seg.parse().ok()?;
            let role = name.get(end + 1..)?;
            if role.is_empty() {
                return None;
            }
            return Some((&name[..start - 1], layer, role));
        }
        start = end + 1;
    }
    None
}

/// Builds the map from a model's tensors.
pub fn layer_map(m: &Model) -> LayerMap {
    let parts: Vec<(&str, u64, &str, String)> = m
        .tensors
        .iter()
        .filter_map(|t| split_layer(&t.name).map(|(p, l, r)| (p, l, r, t.dtype.label())))
        .collect();
    let mut prefixes: Vec<&str> = parts.iter().map(|p| p.0).collect();
    prefixes.sort_unstable();
    prefixes.dedup();
    let several = prefixes.len() > 1;
    let mut layers: Vec<u64> = parts.iter().map(|p| p.1).collect();
    layers.sort_unstable();
    layers.dedup();
    let mut roles: Vec<RoleRow> = Vec::new();
    for (prefix, layer, role, dtype) in parts {
        let role = if several {
            format!("{prefix}.*.{role}")
        } else {
            role.to_string()
        };
        let idx = match roles.iter().position(|r| r.role == role) {
            Some(i) => i,
            None => {
                roles.push(RoleRow {
                    role,
                    cells: vec![None; layers.len()],
                    types: Vec::new(),
                });
                roles.len() - 1
            }
        };
        let r = &mut roles[idx];
        if let Ok(col) = layers.binary_search(&layer) {
            r.cells[col] = Some(dtype.clone());
        }
        match r.types.iter_mut().find(|t| t.dtype == dtype) {
            Some(t) => t.layers.push(layer),
            None => r.types.push(RoleType {
                dtype,
                layers: vec![layer],
            }),
        }
    }
    for r in &mut roles {
        for t in &mut r.types {
            t.layers.sort_unstable();
            t.layers.dedup();
        }
        r.types.sort_by(|a, b| {
            b.layers
                .len()
                .cmp(&a.layers.len())
                .then(a.dtype.cmp(&b.dtype))
        });
    }
    LayerMap { layers, roles }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_common_layer_names() {
        assert_eq!(
            split_layer("blk.12.ffn_down.weight"),
            Some(("blk", 12, "ffn_down.weight"))
        );
        assert_eq!(
            split_layer("encoder.layer.3.attention.self.query.weight"),
            Some(("encoder.layer", 3, "attention.self.query.weight"))
        );
        assert_eq!(split_layer("token_embd.weight"), None);
        assert_eq!(split_layer("blk.7"), None);
        assert_eq!(split_layer("3.weight"), None);
    }
}
