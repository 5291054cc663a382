//! Comparing two model files (for example the Q4_K_M and the Q8_0 of one model, or two
//! revisions): metadata keys added, removed or changed; tensors only in one; tensors whose
//! type or shape differs; and bits per weight per tensor role.

use serde::Serialize;

use super::display;
use super::layers::split_layer;
use crate::format::{Model, Value};

/// A metadata key whose value differs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChangedKey {
    /// The key.
    pub key: String,
    /// The value in the first file, as text (arrays shortened).
    pub a: String,
    /// The value in the second file.
    pub b: String,
}

/// A tensor present in both files whose type or shape differs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChangedTensor {
    /// Tensor name.
    pub name: String,
    /// Type label in the first file.
    pub dtype_a: String,
    /// Type label in the second file.
    pub dtype_b: String,
    /// Shape in the first file.
    pub shape_a: Vec<u64>,
    /// Shape in the second file.
    pub shape_b: Vec<u64>,
}

/// Bits per weight of one role (all layers' `ffn_down.weight`, or one non-layer tensor) in both.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RoleBpw {
    /// The role (`ffn_down.weight`) or the name of a tensor outside the layers.
    pub role: String,
    /// Bits per weight in the first file (`None`: not there or no sized tensor).
    pub a: Option<f64>,
    /// Bits per weight in the second file.
    pub b: Option<f64>,
}

/// Everything that differs between two files.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diff {
    /// Keys only in the second file.
    pub keys_added: Vec<String>,
    /// Keys only in the first file.
    pub keys_removed: Vec<String>,
    /// Keys in both with different values.
    pub keys_changed: Vec<ChangedKey>,
    /// Tensors only in the second file.
    pub tensors_added: Vec<String>,
    /// Tensors only in the first file.
    pub tensors_removed: Vec<String>,
    /// Tensors in both with a different type or shape.
    pub tensors_changed: Vec<ChangedTensor>,
    /// Bits per weight per role, for every role in either file.
    pub bpw_by_role: Vec<RoleBpw>,
    /// Whole-file bits per weight of the first and second file.
    pub bpw: (Option<f64>, Option<f64>),
}

/// Two values are equal when their types match and, for arrays, their encoded elements are the
/// same bytes (so 262,144-token vocabularies compare without decoding).
fn same_value(a: &Value, ab: &[u8], b: &Value, bb: &[u8]) -> bool {
    match (a, b) {
        (Value::Array(x), Value::Array(y)) => {
            let bytes = |r: &crate::format::ArrayRef, buf: &[u8]| {
                usize::try_from(r.start)
                    .ok()
                    .zip(usize::try_from(r.end).ok())
                    .and_then(|(s, e)| buf.get(s..e))
                    .map(<[u8]>::to_vec)
            };
            x.elem == y.elem
                && x.len == y.len
                && x.layout == y.layout
                && bytes(x, ab).is_some_and(|v| Some(v) == bytes(y, bb))
        }
        (Value::F32(x), Value::F32(y)) => x.to_bits() == y.to_bits(),
        (Value::F64(x), Value::F64(y)) => x.to_bits() == y.to_bits(),
        _ => a == b,
    }
}

/// Per-role (bytes, sized elements) of a model: layer tensors by role, others by name.
fn roles(m: &Model) -> Vec<(String, u64, u64)> {
    let mut out: Vec<(String, u64, u64)> = Vec::new();
    for t in &m.tensors {
        let role = split_layer(&t.name).map_or(t.name.as_str(), |(_, _, r)| r);
        let (Some(bytes), Some(el)) = (t.bytes, t.elements) else {
            continue;
        };
        match out.iter_mut().find(|r| r.0 == role) {
            Some(r) => {
                r.1 = r.1.saturating_add(bytes);
                r.2 = r.2.saturating_add(el);
            }
            None => out.push((role.to_string(), bytes, el)),
        }
    }
    out
}

fn bpw(bytes: u64, el: u64) -> Option<f64> {
    (el > 0).then(|| bytes as f64 * 8.0 / el as f64)
}

/// Compares two models.
pub fn diff(a: &Model, b: &Model) -> Diff {
    let show = |v: &Value, bytes: &[u8]| display::value(v, bytes, 4, 80);
    let mut keys_changed = Vec::new();
    for ea in &a.metadata {
        if let Some(eb) = b.metadata.iter().find(|e| e.key == ea.key) {
            if !same_value(&ea.value, &a.bytes, &eb.value, &b.bytes) {
                keys_changed.push(ChangedKey {
                    key: ea.key.clone(),
                    a: show(&ea.value, &a.bytes),
                    b: show(&eb.value, &b.bytes),
                });
            }
        }
    }
    let only = |x: &Model, y: &Model| -> Vec<String> {
        x.metadata
            .iter()
            .filter(|e| !y.metadata.iter().any(|f| f.key == e.key))
            .map(|e| e.key.clone())
            .collect()
    };
    let only_t = |x: &Model, y: &Model| -> Vec<String> {
        x.tensors
            .iter()
            .filter(|t| !y.tensors.iter().any(|u| u.name == t.name))
            .map(|t| t.name.clone())
            .collect()
    };
    let tensors_changed = a
        .tensors
        .iter()
        .filter_map(|ta| {
            let tb = b.tensors.iter().find(|t| t.name == ta.name)?;
            (ta.dtype != tb.dtype || ta.shape != tb.shape).then(|| ChangedTensor {
                name: ta.name.clone(),
                dtype_a: ta.dtype.label(),
                dtype_b: tb.dtype.label(),
                shape_a: ta.shape.clone(),
                shape_b: tb.shape.clone(),
            })
        })
        .collect();
    let ra = roles(a);
    let rb = roles(b);
    let mut bpw_by_role: Vec<RoleBpw> = ra
        .iter()
        .map(|(role, by, el)| RoleBpw {
            role: role.clone(),
            a: bpw(*by, *el),
            b: rb.iter().find(|r| &r.0 == role).and_then(|r| bpw(r.1, r.2)),
        })
        .collect();
    for (role, by, el) in &rb {
        if !ra.iter().any(|r| &r.0 == role) {
            bpw_by_role.push(RoleBpw {
                role: role.clone(),
                a: None,
                b: bpw(*by, *el),
            });
        }
    }
    let total = |r: &[(String, u64, u64)]| {
        let (by, el) = r.iter().fold((0u64, 0u64), |(x, y), r| {
            (x.saturating_add(r.1), y.saturating_add(r.2))
        });
        bpw(by, el)
    };
    Diff {
        keys_added: only(b, a),
        keys_removed: only(a, b),
        keys_changed,
        tensors_added: only_t(b, a),
        tensors_removed: only_t(a, b),
        tensors_changed,
        bpw: (total(&ra), total(&rb)),
        bpw_by_role,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::parse_bytes;
    use crate::view::testutil::{gguf, Kv};

    #[test]
    fn finds_what_changed() {
        let a = gguf(
            &[
                ("general.name", Kv::Str("m")),
                ("general.file_type", Kv::Str("x")),
                ("only.a", Kv::Str("1")),
            ],
            &[
                ("blk.0.ffn_down.weight", 12, vec![256, 2], 0),
                ("blk.1.ffn_down.weight", 12, vec![256, 2], 288),
                ("gone", 0, vec![4], 576),
            ],
        );
        let b = gguf(
            &[
                ("general.name", Kv::Str("m")),
                ("general.file_type", Kv::Str("y")),
                ("only.b", Kv::Str("2")),
            ],
            &[
                ("blk.0.ffn_down.weight", 8, vec![256, 2], 0),
                ("blk.1.ffn_down.weight", 8, vec![256, 2], 544),
                ("new", 0, vec![4], 1088),
            ],
        );
        let (a, b) = (parse_bytes(&a).unwrap(), parse_bytes(&b).unwrap());
        let d = diff(&a, &b);
        assert_eq!(d.keys_added, ["only.b"]);
        assert_eq!(d.keys_removed, ["only.a"]);
        assert_eq!(d.keys_changed.len(), 1);
        assert_eq!(d.keys_changed[0].key, "general.file_type");
        assert_eq!(
            (d.keys_changed[0].a.as_str(), d.keys_changed[0].b.as_str()),
            ("\"x\"", "\"y\"")
        );
        assert_eq!(d.tensors_added, ["new"]);
        assert_eq!(d.tensors_removed, ["gone"]);
        assert_eq!(d.tensors_changed.len(), 2);
        assert_eq!(d.tensors_changed[0].dtype_a, "Q4_K");
        assert_eq!(d.tensors_changed[0].dtype_b, "Q8_0");
        let down = d
            .bpw_by_role
            .iter()
            .find(|r| r.role == "ffn_down.weight")
            .unwrap();
        assert_eq!((down.a, down.b), (Some(4.5), Some(8.5)));
        assert_eq!(diff(&a, &a).keys_changed, []);
    }
}
