//! A tiny GGUF v3 writer for the view-model tests.

/// A metadata value to write.
pub enum Kv<'a> {
    U32(u32),
    F32(f32),
    Str(&'a str),
    StrArray(Vec<String>),
    I32Array(Vec<i32>),
}

fn put_str(b: &mut Vec<u8>, s: &str) {
    b.extend((s.len() as u64).to_le_bytes());
    b.extend(s.as_bytes());
}

/// Writes a GGUF v3 file with the given metadata and tensors `(name, ggml type id, shape,
/// bytes)`, tensor data zero-filled and 32-byte aligned.
pub fn gguf(kvs: &[(&str, Kv<'_>)], tensors: &[(&str, u32, Vec<u64>, u64)]) -> Vec<u8> {
    let mut b = b"GGUF".to_vec();
    b.extend(3u32.to_le_bytes());
    b.extend((tensors.len() as u64).to_le_bytes());
    b.extend((kvs.len() as u64).to_le_bytes());
    for (k, v) in kvs {
        put_str(&mut b, k);
        match v {
            Kv::U32(x) => {
                b.extend(4u32.to_le_bytes());
                b.extend(x.to_le_bytes());
            }
            Kv::F32(x) => {
                b.extend(6u32.to_le_bytes());
                b.extend(x.to_le_bytes());
            }
            Kv::Str(s) => {
                b.extend(8u32.to_le_bytes());
                put_str(&mut b, s);
            }
            Kv::StrArray(items) => {
                b.extend(9u32.to_le_bytes());
                b.extend(8u32.to_le_bytes());
                b.extend((items.len() as u64).to_le_bytes());
                for s in items {
                    put_str(&mut b, s);
                }
            }
            Kv::I32Array(items) => {
                b.extend(9u32.to_le_bytes());
                b.extend(5u32.to_le_bytes());
                b.extend((items.len() as u64).to_le_bytes());
                for x in items {
                    b.extend(x.to_le_bytes());
                }
            }
        }
    }
    let mut offset = 0u64;
    for (name, ty, shape, bytes) in tensors {
        put_str(&mut b, name);
        b.extend((shape.len() as u32).to_le_bytes());
        for d in shape {
            b.extend(d.to_le_bytes());
        }
        b.extend(ty.to_le_bytes());
        b.extend(offset.to_le_bytes());
        offset += bytes.div_ceil(32) * 32;
    }
    while b.len() % 32 != 0 {
        b.push(0);
    }
    b.resize(b.len() + offset as usize, 0);
    b
}

/// A two-block llama header with a context of 100 tokens and one tensor (`t`, F32 × 8): what
/// the memory and fit view-models' tests plan.
pub fn tiny_llama() -> Vec<u8> {
    gguf(
        &[
            ("general.architecture", Kv::Str("llama")),
            ("llama.block_count", Kv::U32(2)),
            ("llama.embedding_length", Kv::U32(64)),
            ("llama.attention.head_count", Kv::U32(4)),
            ("llama.context_length", Kv::U32(100)),
        ],
        &[("t", 0, vec![8], 0)],
    )
}

use crate::view::js::{JsData, JsKind};

/// JSON standing in for JavaScript values; `{"fn": …}` is a function, `{"nan": …}` NaN.
pub(crate) struct Js(pub serde_json::Value);

impl JsData for Js {
    fn kind(&self) -> JsKind {
        use serde_json::Value as J;
        match &self.0 {
            J::Null => JsKind::Null,
            J::Bool(b) => JsKind::Bool(*b),
            J::Number(n) => JsKind::Number(n.as_f64().unwrap_or(0.0)),
            J::String(t) => JsKind::Text(t.clone()),
            J::Array(_) => JsKind::Array,
            J::Object(o) if o.contains_key("fn") => JsKind::Other,
            J::Object(o) if o.contains_key("nan") => JsKind::Number(f64::NAN),
            J::Object(_) => JsKind::Object,
        }
    }
    fn items(&self) -> Vec<Js> {
        self.0.as_array().unwrap().iter().cloned().map(Js).collect()
    }
    fn entries(&self) -> Vec<(String, Js)> {
        let o = self.0.as_object().unwrap();
        o.iter().map(|(k, v)| (k.clone(), Js(v.clone()))).collect()
    }
    fn get(&self, key: &str) -> Js {
        Js(self.0.get(key).cloned().unwrap_or_default())
    }
}

/// The JavaScript value written as JSON `text`.
pub(crate) fn js(text: &str) -> Js {
    Js(serde_json::from_str(text).unwrap())
}
