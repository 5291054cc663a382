//! Comparing two model files (for example the Q4_K_M and the Q8_0 of one model, or two
//! revisions): metadata keys added, removed or changed; tensors only in one; tensors whose
//! type or shape differs; and bits per weight per tensor role.

use std::collections::HashMap;

use serde::Serialize;

use super::bpw;
use super::layers::split_layer;
use crate::format::{Model, Value};
use crate::text;

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
            x.elem == y.elem
                && x.len == y.len
                && x.layout == y.layout
                && array_bytes(x, ab).is_some_and(|v| Some(v) == array_bytes(y, bb))
        }
        (Value::F32(x), Value::F32(y)) => x.to_bits() == y.to_bits(),
        (Value::F64(x), Value::F64(y)) => x.to_bits() == y.to_bits(),
        _ => a == b,
    }
}

/// The encoded elements of an array (borrowed: a vocabulary is compared in place).
fn array_bytes<'a>(r: &crate::format::ArrayRef, buf: &'a [u8]) -> Option<&'a [u8]> {
    let s = usize::try_from(r.start).ok()?;
    let e = usize::try_from(r.end).ok()?;
    buf.get(s..e)
}

/// The position of the first item of each name (a lookup by name in one step, so comparing
/// two files of many tensors is not quadratic).
pub fn first_by_name<'a>(names: impl Iterator<Item = &'a str>) -> HashMap<&'a str, usize> {
    let mut map = HashMap::new();
    for (i, n) in names.enumerate() {
        map.entry(n).or_insert(i);
    }
    map
}

/// Per-role (bytes, sized elements) of a model: layer tensors by role, others by name.
fn roles(m: &Model) -> Vec<(String, u64, u64)> {
    let mut out: Vec<(String, u64, u64)> = Vec::new();
    let mut at: HashMap<&str, usize> = HashMap::new();
    for t in &m.tensors {
        let role = split_layer(&t.name).map_or(t.name.as_str(), |(_, _, r)| r);
        let (Some(bytes), Some(el)) = (t.bytes, t.elements) else {
            continue;
        };
        match at.get(role) {
            Some(&i) => {
                let r = &mut out[i];
                r.1 = r.1.saturating_add(bytes);
                r.2 = r.2.saturating_add(el);
            }
            None => {
                at.insert(role, out.len());
                out.push((role.to_string(), bytes, el));
            }
        }
    }
    out
}

/// Compares two models.
pub fn diff(a: &Model, b: &Model) -> Diff {
    let show = |v: &Value, bytes: &[u8]| text::value(v, bytes, 4, 80);
    let keys_a = first_by_name(a.metadata.iter().map(|e| e.key.as_str()));
    let keys_b = first_by_name(b.metadata.iter().map(|e| e.key.as_str()));
    let names_a = first_by_name(a.tensors.iter().map(|t| t.name.as_str()));
    let names_b = first_by_name(b.tensors.iter().map(|t| t.name.as_str()));
    let mut keys_changed = Vec::new();
    for ea in &a.metadata {
        if let Some(eb) = keys_b.get(ea.key.as_str()).map(|&i| &b.metadata[i]) {
            if !same_value(&ea.value, &a.bytes, &eb.value, &b.bytes) {
                keys_changed.push(ChangedKey {
                    key: ea.key.clone(),
                    a: show(&ea.value, &a.bytes),
                    b: show(&eb.value, &b.bytes),
                });
            }
        }
    }
    let only = |x: &Model, y: &HashMap<&str, usize>| -> Vec<String> {
        x.metadata
            .iter()
            .filter(|e| !y.contains_key(e.key.as_str()))
            .map(|e| e.key.clone())
            .collect()
    };
    let only_t = |x: &Model, y: &HashMap<&str, usize>| -> Vec<String> {
        x.tensors
            .iter()
            .filter(|t| !y.contains_key(t.name.as_str()))
            .map(|t| t.name.clone())
            .collect()
    };
    let tensors_changed = a
        .tensors
        .iter()
        .filter_map(|ta| {
            let tb = &b.tensors[*names_b.get(ta.name.as_str())?];
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
    let roles_a = first_by_name(ra.iter().map(|r| r.0.as_str()));
    let roles_b = first_by_name(rb.iter().map(|r| r.0.as_str()));
    let mut bpw_by_role: Vec<RoleBpw> = ra
        .iter()
        .map(|(role, by, el)| RoleBpw {
            role: role.clone(),
            a: bpw(*by, *el),
            b: roles_b
                .get(role.as_str())
                .and_then(|&i| bpw(rb[i].1, rb[i].2)),
        })
        .collect();
    for (role, by, el) in &rb {
        if !roles_a.contains_key(role.as_str()) {
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
        keys_added: only(b, &keys_a),
        keys_removed: only(a, &keys_b),
        keys_changed,
        tensors_added: only_t(b, &names_a),
        tensors_removed: only_t(a, &names_b),
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
