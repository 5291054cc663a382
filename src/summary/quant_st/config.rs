//! Reading `config.json` (or AutoGPTQ's `quantize_config.json`): the quantisation section and the
//! configured bit width and group size, each checked and reported as a finding when unusable.

use std::fmt;

use serde_json::Value as Json;

use super::ctx::Ctx;

/// A config value that should be an integer and is not: `{path}.{key} is {value}, not an
/// integer`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct NotAnInteger {
    /// The section's key path (`quantization_config`, …).
    path: String,
    /// The key in that section.
    key: String,
    /// The value as shown ([`short_json`]).
    value: String,
}

impl fmt::Display for NotAnInteger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let NotAnInteger { path, key, value } = self;
        write!(f, "{path}.{key} is {value}, not an integer")
    }
}

impl std::error::Error for NotAnInteger {}

/// The quantisation section of a config: `(object, its key path for messages)`.
pub(super) fn quant_section(config: Option<&Json>, mlx: bool) -> Option<(&Json, &'static str)> {
    let c = config?;
    let keys: &[&'static str] = if mlx {
        &["quantization", "quantization_config"]
    } else {
        &["quantization_config", "compression_config", "quantization"]
    };
    for k in keys {
        if let Some(v) = c.get(*k).filter(|v| v.is_object()) {
            return Some((v, k));
        }
    }
    // AutoGPTQ's quantize_config.json holds the keys at the top level.
    (c.get("bits").is_some() || c.get("w_bit").is_some()).then_some((c, "quantize_config"))
}

/// A config integer: `Ok(None)` when absent or null, `Err` with a message when present but not
/// an integer.
pub(super) fn int(section: &Json, key: &str, path: &str) -> Result<Option<i64>, NotAnInteger> {
    match section.get(key) {
        None | Some(Json::Null) => Ok(None),
        Some(v) => v.as_i64().map(Some).ok_or_else(|| NotAnInteger {
            path: path.to_string(),
            key: key.to_string(),
            value: short_json(v),
        }),
    }
}

pub(super) fn short_json(v: &Json) -> String {
    let s = v.to_string();
    let cut: String = s.chars().take(40).collect();
    let cut = crate::text::escape(&cut);
    if s.chars().count() > 40 {
        format!("{cut}…")
    } else {
        cut
    }
}

pub(super) fn text<'a>(section: &'a Json, key: &str) -> Option<&'a str> {
    section.get(key).and_then(Json::as_str)
}
/// A configured bit width: `Some(bits)` when the config gives a valid one (a finding when it
/// gives an invalid one).
pub(super) fn config_bits(
    cx: &mut Ctx,
    section: Option<(&Json, &'static str)>,
    keys: &[&str],
    valid: &[u32],
    tensor: &str,
) -> Option<u32> {
    let (s, path) = section?;
    for key in keys {
        match int(s, key, path) {
            Ok(None) => continue,
            Ok(Some(b)) => {
                let ok = u32::try_from(b).ok().filter(|b| valid.contains(b));
                if ok.is_none() {
                    let list: Vec<String> = valid.iter().map(u32::to_string).collect();
                    cx.warn(
                        "quant-config-invalid",
                        format!(
                            "{path}.{key} is {b}; this layout packs {} bits; the bits were taken from the shapes instead",
                            list.join(", ")
                        ),
                        tensor,
                    );
                }
                return ok;
            }
            Err(e) => {
                cx.warn(
                    "quant-config-invalid",
                    format!("{e}; the bits were taken from the shapes instead"),
                    tensor,
                );
                return None;
            }
        }
    }
    None
}

/// A configured group size along the input dimension: `Ok(Some(g))`, `Ok(None)` when absent,
/// with −1 (one group per input row, "per-channel") as `logical_in`.
pub(super) fn config_group(
    cx: &mut Ctx,
    section: Option<(&Json, &'static str)>,
    keys: &[&str],
    logical_in: u64,
    tensor: &str,
) -> Option<u64> {
    let (s, path) = section?;
    for key in keys {
        match int(s, key, path) {
            Ok(None) => continue,
            Ok(Some(-1)) => return Some(logical_in),
            Ok(Some(g)) if g > 0 => return Some(g as u64),
            Ok(Some(g)) => {
                cx.warn(
                    "quant-config-invalid",
                    format!("{path}.{key} is {g}; a group size is positive or −1"),
                    tensor,
                );
                return None;
            }
            Err(e) => {
                cx.warn("quant-config-invalid", e.to_string(), tensor);
                return None;
            }
        }
    }
    None
}
