//! The edits: what to set, add or delete, and the typed values they carry.
//!
//! Command-line forms (the page builds the same [`Edit`]s from its form):
//! - `KEY=VALUE`: an existing key keeps its type and VALUE is read as that type; a new key's
//!   type comes from the value's syntax ([`infer`]).
//! - `KEY:TYPE=VALUE`: the type is given (`UINT32`, `u32`, `FLOAT32`, `f32`, `STRING`, `str`,
//!   `BOOL`, …, as gguf-py names them or short).
//! - `KEY[INDEX]=VALUE`: one element of an array (a token's type, a token's text), read as the
//!   array's element type.
//! - a STRING from a file's text (`--set-file KEY=FILE`): [`NewValue::Verbatim`].

use super::EditError;
use crate::format::{Text, Value, ValueType};

/// Most characters of a value quoted in an error message.
const QUOTED_CHARS: usize = 60;

/// A value to write, before its type is known.
#[derive(Debug, Clone, PartialEq)]
pub enum NewValue {
    /// Text to read as the key's type (or, for a new key, the type its syntax suggests).
    Text(String),
    /// A string taken as it is (a file's contents, the page's textarea): always a STRING.
    Verbatim(String),
}

/// One change to a GGUF header's metadata.
#[derive(Debug, Clone, PartialEq)]
pub enum Edit {
    /// Sets `key` (adding it at the end when absent); `ty` forces a type.
    Set {
        /// The key.
        key: String,
        /// The type to write, when given.
        ty: Option<ValueType>,
        /// The value.
        value: NewValue,
    },
    /// Sets element `index` of the array `key`, as the array's element type.
    SetElement {
        /// The array's key.
        key: String,
        /// The 0-based element.
        index: u64,
        /// The value, as text.
        value: String,
    },
    /// Removes `key`.
    Delete {
        /// The key.
        key: String,
    },
}

impl Edit {
    /// The key the edit concerns.
    pub fn key(&self) -> &str {
        match self {
            Edit::Set { key, .. } | Edit::SetElement { key, .. } | Edit::Delete { key } => key,
        }
    }

    /// Parses `KEY=VALUE`, `KEY:TYPE=VALUE` or `KEY[INDEX]=VALUE` (a `--set` argument).
    pub fn parse_set(spec: &str) -> Result<Edit, EditError> {
        let bad = |why| EditError::Spec {
            spec: spec.chars().take(QUOTED_CHARS).collect(),
            why,
        };
        let (left, value) = spec
            .split_once('=')
            .ok_or_else(|| bad("expected KEY=VALUE"))?;
        if let Some(open) = left
            .strip_suffix(']')
            .and_then(|l| l.rfind('[').map(|i| (l, i)))
        {
            let (l, i) = open;
            let key = &l[..i];
            let index = l[i + 1..]
                .parse::<u64>()
                .map_err(|_| bad("the index in KEY[INDEX] is not a non-negative integer"))?;
            if key.is_empty() {
                return Err(bad("the key is empty"));
            }
            return Ok(Edit::SetElement {
                key: key.to_string(),
                index,
                value: value.to_string(),
            });
        }
        let (key, ty) = match left.rsplit_once(':') {
            Some((k, t)) => {
                let ty = type_named(t).ok_or_else(|| EditError::UnknownType {
                    key: k.to_string(),
                    name: t.to_string(),
                })?;
                (k, Some(ty))
            }
            None => (left, None),
        };
        if key.is_empty() {
            return Err(bad("the key is empty"));
        }
        Ok(Edit::Set {
            key: key.to_string(),
            ty,
            value: NewValue::Text(value.to_string()),
        })
    }

    /// Parses a `--set-file KEY=FILE` argument into the key and the file's path.
    pub fn parse_set_file(spec: &str) -> Result<(String, String), EditError> {
        match spec.split_once('=') {
            Some((k, f)) if !k.is_empty() && !f.is_empty() => Ok((k.to_string(), f.to_string())),
            _ => Err(EditError::Spec {
                spec: spec.chars().take(QUOTED_CHARS).collect(),
                why: "expected KEY=FILE",
            }),
        }
    }
}

/// A GGUF value type by gguf-py's name (`UINT32`) or a short one (`u32`, `f32`, `str`),
/// ignoring case. ARRAY is not one: arrays are edited element by element.
pub fn type_named(name: &str) -> Option<ValueType> {
    use ValueType::*;
    Some(match name.to_ascii_lowercase().as_str() {
        "uint8" | "u8" => U8,
        "int8" | "i8" => I8,
        "uint16" | "u16" => U16,
        "int16" | "i16" => I16,
        "uint32" | "u32" => U32,
        "int32" | "i32" => I32,
        "uint64" | "u64" => U64,
        "int64" | "i64" => I64,
        "float32" | "f32" => F32,
        "float64" | "f64" => F64,
        "bool" => Bool,
        "string" | "str" => String,
        _ => return None,
    })
}

/// The type a new key's value text suggests: `true`/`false` a BOOL; an integer a UINT32 (or
/// UINT64 past 32 bits; INT32 / INT64 when negative), as llama.cpp's converters write counts
/// and token ids; a number with a fraction or exponent a FLOAT32; anything else (or text in
/// double quotes, which are removed) a STRING.
pub fn infer(text: &str) -> (ValueType, String) {
    if text.len() >= 2 && text.starts_with('"') && text.ends_with('"') {
        if let Ok(serde_json::Value::String(s)) = serde_json::from_str(text) {
            return (ValueType::String, s);
        }
    }
    let t = text.trim();
    let owned = || text.to_string();
    if t == "true" || t == "false" {
        return (ValueType::Bool, owned());
    }
    if let Ok(v) = t.parse::<i128>() {
        let ty = if v >= 0 {
            if v <= i128::from(u32::MAX) {
                ValueType::U32
            } else {
                ValueType::U64
            }
        } else if v >= i128::from(i32::MIN) {
            ValueType::I32
        } else {
            ValueType::I64
        };
        return (ty, owned());
    }
    let numeric = t
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'));
    if numeric && t.chars().any(|c| c.is_ascii_digit()) && t.parse::<f64>().is_ok() {
        return (ValueType::F32, owned());
    }
    (ValueType::String, owned())
}

/// Reads `text` as a value of type `ty` for `key`. Integers must fit the type (decimal, an
/// optional sign); floats are rounded to the nearest FLOAT32 / FLOAT64 (`inf`, `nan` allowed);
/// a BOOL is `true`, `false`, `1` or `0`; a STRING is the text as it is.
pub fn parse_value(key: &str, ty: ValueType, text: &str) -> Result<Value, EditError> {
    let bad = |why: String| EditError::BadValue {
        key: key.to_string(),
        ty,
        value: text.chars().take(QUOTED_CHARS).collect(),
        why,
    };
    let t = text.trim();
    let int = || -> Result<i128, EditError> {
        t.parse::<i128>()
            .map_err(|_| bad("not an integer".to_string()))
    };
    macro_rules! fit {
        ($variant:ident, $t:ty) => {{
            let v = int()?;
            let x = <$t>::try_from(v)
                .map_err(|_| bad(format!("out of range ({} to {})", <$t>::MIN, <$t>::MAX)))?;
            Value::$variant(x)
        }};
    }
    let float = || -> Result<f64, EditError> {
        let lower = t.to_ascii_lowercase();
        match lower.as_str() {
            "nan" => Ok(f64::NAN),
            "inf" | "+inf" | "infinity" => Ok(f64::INFINITY),
            "-inf" | "-infinity" => Ok(f64::NEG_INFINITY),
            _ => t
                .parse::<f64>()
                .map_err(|_| bad("not a number".to_string())),
        }
    };
    Ok(match ty {
        ValueType::U8 => fit!(U8, u8),
        ValueType::I8 => fit!(I8, i8),
        ValueType::U16 => fit!(U16, u16),
        ValueType::I16 => fit!(I16, i16),
        ValueType::U32 => fit!(U32, u32),
        ValueType::I32 => fit!(I32, i32),
        ValueType::U64 => fit!(U64, u64),
        ValueType::I64 => fit!(I64, i64),
        ValueType::F32 => {
            // Parsed straight to f32 (correctly rounded), not through f64 (double rounding).
            let lower = t.to_ascii_lowercase();
            let v = match lower.as_str() {
                "nan" | "inf" | "+inf" | "infinity" | "-inf" | "-infinity" => float()? as f32,
                _ => t
                    .parse::<f32>()
                    .map_err(|_| bad("not a number".to_string()))?,
            };
            if v.is_infinite() && float()?.is_finite() {
                return Err(bad("out of FLOAT32 range".to_string()));
            }
            Value::F32(v)
        }
        ValueType::F64 => Value::F64(float()?),
        ValueType::Bool => match t {
            "true" | "1" => Value::Bool(true),
            "false" | "0" => Value::Bool(false),
            _ => return Err(bad("use true or false".to_string())),
        },
        ValueType::String => Value::String(Text {
            text: text.to_string(),
            lossy: false,
        }),
        ValueType::Array => {
            return Err(EditError::ArrayValue {
                key: key.to_string(),
            })
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse() {
        assert_eq!(
            Edit::parse_set("a.b=3").unwrap(),
            Edit::Set {
                key: "a.b".into(),
                ty: None,
                value: NewValue::Text("3".into())
            }
        );
        assert_eq!(
            Edit::parse_set("a.b:f32=x=y").unwrap(),
            Edit::Set {
                key: "a.b".into(),
                ty: Some(ValueType::F32),
                value: NewValue::Text("x=y".into())
            }
        );
        assert_eq!(
            Edit::parse_set("t.types[106]=3").unwrap(),
            Edit::SetElement {
                key: "t.types".into(),
                index: 106,
                value: "3".into()
            }
        );
        assert!(matches!(
            Edit::parse_set("a.b:float128=1"),
            Err(EditError::UnknownType { .. })
        ));
        assert!(matches!(
            Edit::parse_set("nothing"),
            Err(EditError::Spec { .. })
        ));
        assert!(matches!(
            Edit::parse_set("k[-1]=2"),
            Err(EditError::Spec { .. })
        ));
    }

    #[test]
    fn new_key_types_follow_the_syntax() {
        assert_eq!(infer("7").0, ValueType::U32);
        assert_eq!(infer("5000000000").0, ValueType::U64);
        assert_eq!(infer("-1").0, ValueType::I32);
        assert_eq!(infer("-5000000000").0, ValueType::I64);
        assert_eq!(infer("1e-6").0, ValueType::F32);
        assert_eq!(infer("0.5").0, ValueType::F32);
        assert_eq!(infer("true").0, ValueType::Bool);
        assert_eq!(infer("llama").0, ValueType::String);
        assert_eq!(infer("\"12\""), (ValueType::String, "12".to_string()));
        assert_eq!(infer("e").0, ValueType::String);
    }

    #[test]
    fn values_must_fit_their_type() {
        assert_eq!(
            parse_value("k", ValueType::U8, "255").unwrap(),
            Value::U8(255)
        );
        assert!(matches!(
            parse_value("k", ValueType::U8, "256"),
            Err(EditError::BadValue { .. })
        ));
        assert!(matches!(
            parse_value("k", ValueType::U32, "-1"),
            Err(EditError::BadValue { .. })
        ));
        assert!(matches!(
            parse_value("k", ValueType::U32, "1.5"),
            Err(EditError::BadValue { .. })
        ));
        assert!(matches!(
            parse_value("k", ValueType::F32, "1e39"),
            Err(EditError::BadValue { .. })
        ));
        assert!(matches!(
            parse_value("k", ValueType::Bool, "yes"),
            Err(EditError::BadValue { .. })
        ));
        assert_eq!(
            parse_value("k", ValueType::F32, "0.1").unwrap(),
            Value::F32(0.1f32)
        );
        assert!(matches!(
            parse_value("k", ValueType::Array, "[1]"),
            Err(EditError::ArrayValue { .. })
        ));
    }
}
