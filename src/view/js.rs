//! JavaScript values as the web shells hand them to the view: what a value is ([`JsKind`]),
//! a trait over the web build's `JsValue` and plain test data ([`JsData`]), and the readings
//! every front end shares — truthiness, string properties, the URLs of a source, a copy as
//! JSON data to a bounded depth ([`plain`]) and a spec read from a plain object ([`spec_of`]).
//! Nothing here reads the DOM; `view::api` and `view::opening` both read values through it.

/// What a JavaScript value is, as [`plain`] reads it.
#[derive(Debug, Clone, PartialEq)]
pub enum JsKind {
    /// `undefined` or `null`.
    Null,
    /// A boolean.
    Bool(bool),
    /// A number (possibly NaN or infinite).
    Number(f64),
    /// A string.
    Text(String),
    /// An array ([`JsData::items`]).
    Array,
    /// Any other object ([`JsData::entries`]).
    Object,
    /// Anything else: a function, a Symbol, a BigInt.
    Other,
}

/// A JavaScript value as [`plain`] walks it (the web build's `JsValue`; plain data in tests).
pub trait JsData: Sized {
    /// What the value is.
    fn kind(&self) -> JsKind;
    /// An array's items, in order (only asked of a [`JsKind::Array`]).
    fn items(&self) -> Vec<Self>;
    /// An object's own enumerable string-keyed properties, in order (only asked of a
    /// [`JsKind::Object`]: a typed array's are its indices, a `Set` has none).
    fn entries(&self) -> Vec<(String, Self)>;
    /// The property `key` of an object (`undefined` when it has none), as JavaScript reads
    /// it: own or inherited, a getter's value.
    fn get(&self, key: &str) -> Self;
}

/// Whether `v` is an object whose properties a call reads (an object or an array: JavaScript's
/// `typeof v === "object"`, not `null`).
pub fn is_object(v: &impl JsData) -> bool {
    matches!(v.kind(), JsKind::Object | JsKind::Array)
}

/// Whether `v` is truthy as JavaScript's `if (v)` reads it (a function, a Symbol or a BigInt
/// counts as true).
pub fn truthy(v: &impl JsData) -> bool {
    match v.kind() {
        JsKind::Null => false,
        JsKind::Bool(b) => b,
        JsKind::Number(x) => x != 0.0 && !x.is_nan(),
        JsKind::Text(t) => !t.is_empty(),
        JsKind::Array | JsKind::Object | JsKind::Other => true,
    }
}

/// The string property `key` of `v` (`None` when absent or not a string).
pub fn text_of(v: &impl JsData, key: &str) -> Option<String> {
    match v.get(key).kind() {
        JsKind::Text(t) => Some(t),
        _ => None,
    }
}

/// The URLs a call's source names: a URL string, or an array of URL strings; `None` for
/// anything else (local files).
pub fn urls_of(source: &impl JsData) -> Option<Vec<String>> {
    let text = |v: &_| match JsData::kind(v) {
        JsKind::Text(t) => Some(t),
        _ => None,
    };
    match source.kind() {
        JsKind::Text(t) => Some(vec![t]),
        JsKind::Array => source.items().iter().map(text).collect(),
        _ => None,
    }
}

/// Deepest nesting [`plain`] copies (a spec is three levels deep: `devices.gpus[i].size`).
pub const PLAIN_DEPTH: u32 = 6;

/// A JavaScript value at nesting `depth` as JSON data: numbers (finite ones; others as their
/// text), strings, booleans, arrays and objects, `null` for `undefined`; anything else (a
/// function, a Symbol, a BigInt, a container nested [`PLAIN_DEPTH`] deep) as `false`, which no
/// spec field accepts, so it is refused by the field's name. Containers that deep are not
/// opened.
pub fn plain<T: JsData>(v: &T, depth: u32) -> serde_json::Value {
    use serde_json::Value as J;
    let deeper = depth.saturating_add(1);
    match v.kind() {
        JsKind::Null => J::Null,
        JsKind::Bool(b) => J::Bool(b),
        JsKind::Number(x) => {
            serde_json::Number::from_f64(x).map_or_else(|| J::String(x.to_string()), J::Number)
        }
        JsKind::Text(t) => J::String(t),
        JsKind::Other => J::Bool(false),
        _ if depth >= PLAIN_DEPTH => J::Bool(false),
        JsKind::Array => J::Array(v.items().iter().map(|x| plain(x, deeper)).collect()),
        JsKind::Object => J::Object(
            v.entries()
                .into_iter()
                .map(|(k, x)| (k, plain(&x, deeper)))
                .collect(),
        ),
    }
}

/// The spec an argument that should be a plain object gives: the default spec for
/// `undefined` or `null`; `None` when it is not a plain object (an array, a string, …) or
/// does not have the spec's shape. The object is first copied as data ([`plain`]), so a
/// property the spec does not read (a method, a Symbol) is ignored, and a value of the wrong
/// kind in one it reads (a typed array for `cols`, a BigInt for `ram`) is that field's own
/// error.
pub fn spec_of<T: serde::de::DeserializeOwned + Default>(v: &impl JsData) -> Option<T> {
    match v.kind() {
        JsKind::Null => Some(T::default()),
        JsKind::Object => serde_json::from_value(plain(v, 0)).ok(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::spec::{DeviceSpec, WindowSpec};
    use crate::view::testutil::js;

    #[test]
    fn javascript_truthiness_and_string_properties() {
        for (v, t) in [
            ("0", false),
            ("1", true),
            ("\"\"", false),
            ("\"x\"", true),
            ("null", false),
            ("[]", true),
            ("{}", true),
            ("false", false),
            ("true", true),
        ] {
            assert_eq!(truthy(&js(v)), t, "{v}");
        }
        assert!(!truthy(&js(r#"{"nan": 1}"#)));
        let o = js(r#"{"url": "a", "n": 1}"#);
        assert_eq!(
            (text_of(&o, "url"), text_of(&o, "n"), text_of(&o, "x")),
            (Some("a".into()), None, None)
        );
    }

    #[test]
    fn a_source_names_urls_as_a_string_or_an_array_of_strings() {
        assert_eq!(
            urls_of(&js(r#""https://h/a.gguf""#)),
            Some(vec!["https://h/a.gguf".into()])
        );
        assert_eq!(
            urls_of(&js(r#"["a", "b"]"#)),
            Some(vec!["a".into(), "b".into()])
        );
        assert_eq!(urls_of(&js("[]")), Some(vec![]));
        // Files (objects) among them, or not strings at all: local files.
        assert_eq!(urls_of(&js(r#"["a", {}]"#)), None);
        assert_eq!(urls_of(&js("{}")), None);
        assert_eq!(urls_of(&js("null")), None);
    }

    #[test]
    fn javascript_values_are_copied_as_data_to_a_depth() {
        let v = js(r#"{"a": [1, "x", null, true], "f": {"fn": 1}, "n": {"nan": 1}}"#);
        assert_eq!(
            plain(&v, 0),
            serde_json::json!({"a": [1.0, "x", null, true], "f": false, "n": "NaN"})
        );
        // Containers nested PLAIN_DEPTH deep are not opened; scalars there still are.
        let deep = js("[[[[[[[1]]]]]]]");
        assert_eq!(plain(&deep, 0), serde_json::json!([[[[[[false]]]]]]));
        assert_eq!(plain(&js("3"), PLAIN_DEPTH + 1), serde_json::json!(3.0));
        assert_eq!(plain(&js("{}"), u32::MAX), serde_json::json!(false));
    }

    #[test]
    fn specs_come_from_plain_objects_only() {
        assert_eq!(
            spec_of::<WindowSpec>(&js("null")),
            Some(WindowSpec::default())
        );
        assert_eq!(spec_of::<WindowSpec>(&js("[1]")), None);
        assert_eq!(spec_of::<WindowSpec>(&js(r#""rows""#)), None);
        assert_eq!(spec_of::<WindowSpec>(&js(r#"{"fn": 1}"#)), None);
        let w: WindowSpec = spec_of(&js(r#"{"rows": [9, 5], "other": {"fn": 1}}"#)).unwrap();
        assert_eq!(w, serde_json::from_str(r#"{"rows": [9, 5]}"#).unwrap());
        // A value of the wrong kind in a field the spec reads is that field's error.
        let d: DeviceSpec = spec_of(&js(r#"{"ram": {"fn": 1}}"#)).unwrap();
        assert!(d.to_devices().is_err());
    }
}
